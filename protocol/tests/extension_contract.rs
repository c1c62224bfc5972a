//! The extension's content scripts are classic scripts: they cannot import the generated
//! `contract.js` (protocol/src/contract.rs), so the facts they need from the protocol are
//! copied into them. These tests run the scripts with node and fail when a copy
//! disagrees with the Rust definition: `extension/delta.js` must apply every field of
//! [`TabDelta`], and `extension/dispatch.js`' builtins, failure codes and tiers must be the
//! protocol's. A code any extension script reports must be a [`DispatchFailure`]. The
//! service worker routes every [`DaemonMessage`], and sends the agent messages
//! (`tab_ungrouped`, `share_tab`, `revoke_agent`) with every field the protocol reads.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use nsp_protocol::channel::{DaemonMessage, DispatchFailure, ExtensionMessage, TabDelta};
use nsp_protocol::{builtins, ActionExplain, Context, ProbeMetadata, Reversibility};
use serde_json::{json, Value};

fn extension_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../extension")
}

/// Runs `program` with node and reads what it prints as JSON.
fn node(program: &str) -> Value {
    let out = Command::new("node")
        .args(["-e", program])
        .output()
        .expect("node (cargo xtask test installs Node.js)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("node printed JSON")
}

fn script(name: &str) -> String {
    extension_dir().join(name).display().to_string()
}

/// A delta with every field set. A struct literal without `..Default::default()` on
/// purpose: a new field of `TabDelta` does not compile here until the test covers it.
fn full_delta() -> TabDelta {
    let mut actions = BTreeMap::new();
    actions.insert(
        "click".to_string(),
        builtins::schema("click").expect("a builtin"),
    );
    let mut explain = BTreeMap::new();
    explain.insert(
        "click".to_string(),
        ActionExplain {
            tier_reason: "new reason".into(),
            ..ActionExplain::default()
        },
    );
    TabDelta {
        changed: [
            ("both".to_string(), json!("new")),
            ("added".into(), json!(2)),
        ]
        .into_iter()
        .collect(),
        removed: vec!["both".into(), "gone".into()],
        actions: Some(actions),
        confidence: Some(0.5),
        context: Some(Context {
            url: Some("http://127.0.0.1:9/next".into()),
            ..Context::default()
        }),
        probe_metadata: Some(ProbeMetadata {
            raw_object_count: 7,
            ..ProbeMetadata::default()
        }),
        explain: Some(explain),
    }
}

#[test]
fn delta_js_applies_every_field_of_a_tab_delta() {
    let delta = serde_json::to_value(full_delta()).expect("json");
    let fields = delta.as_object().expect("an object");
    let capture = json!({
        "objects": {"both": "old", "gone": 1, "kept": true},
        "actions": {}, "explain": {}, "confidence": 0.9,
        "context": {"url": "http://127.0.0.1:9/"}, "probe_metadata": {},
    });
    let program = format!(
        "require({script:?}); const cap = {capture}; globalThis.NspDelta.apply(cap, {delta}); \
         process.stdout.write(JSON.stringify(cap));",
        script = script("delta.js"),
    );
    let got = node(&program);
    // Removed first, then changed (daemon/tests/delta_order.rs holds the daemon to it).
    assert_eq!(
        got["objects"],
        json!({"both": "new", "added": 2, "kept": true})
    );
    for (field, value) in fields {
        if field == "changed" || field == "removed" {
            continue;
        }
        assert_eq!(
            same_numbers(&got[field]),
            same_numbers(value),
            "extension/delta.js does not apply the delta's `{field}` (nsp_protocol::channel::TabDelta)"
        );
    }
}

/// `value` with every number as an f64: JavaScript prints the float 1.0 as `1`.
fn same_numbers(value: &Value) -> Value {
    match value {
        Value::Number(n) => json!(n.as_f64()),
        Value::Array(items) => items.iter().map(same_numbers).collect(),
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| (k.clone(), same_numbers(v)))
            .collect::<serde_json::Map<_, _>>()
            .into(),
        other => other.clone(),
    }
}

#[test]
fn dispatch_js_copies_the_protocol_lists() {
    let program = format!(
        "require({script:?}); process.stdout.write(JSON.stringify(globalThis.NspDispatch.contract));",
        script = script("dispatch.js"),
    );
    let got = node(&program);
    assert_eq!(
        got["builtins"],
        json!(builtins::NAMES),
        "dispatch.js' BUILTINS differ from nsp_protocol::builtins::NAMES"
    );
    let ranks: Value = Reversibility::ALL
        .iter()
        .enumerate()
        .map(|(rank, tier)| (tier.as_str().to_string(), json!(rank)))
        .collect::<serde_json::Map<_, _>>()
        .into();
    assert_eq!(
        got["tierRank"], ranks,
        "dispatch.js' TIER_RANK differs from nsp_protocol::Reversibility::ALL"
    );
    let all: BTreeSet<&str> = DispatchFailure::ALL.iter().map(|c| c.as_str()).collect();
    for code in got["failureCodes"].as_array().expect("codes") {
        let code = code.as_str().expect("a string");
        assert!(
            all.contains(code),
            "dispatch.js' FAILURE_CODES has {code:?}, which is no nsp_protocol::channel::DispatchFailure"
        );
    }
}

#[test]
fn dispatch_js_runs_every_builtin() {
    let text = std::fs::read_to_string(script("dispatch.js")).expect("dispatch.js");
    for name in builtins::NAMES {
        assert!(
            text.contains(&format!("case {name:?}:")),
            "dispatch.js has no `case {name:?}:` for the builtin {name}"
        );
    }
}

/// The string literals an extension script reports or reads as a failure code: the
/// first argument of `fail(`/`failure(`, the value of `code:`, what `code ===` compares.
fn reported_codes(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for marker in ["fail(\"", "failure(\"", "code: \"", "code === \""] {
        let mut rest = text;
        while let Some(i) = rest.find(marker) {
            // `fail(` must be a call, not the end of a longer name.
            let before = rest[..i].chars().next_back();
            rest = &rest[i + marker.len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            if let Some(end) = rest.find('"') {
                out.push(rest[..end].to_string());
            }
        }
    }
    out
}

#[test]
fn every_code_an_extension_script_reports_is_a_dispatch_failure() {
    let all: BTreeSet<&str> = DispatchFailure::ALL.iter().map(|c| c.as_str()).collect();
    let mut seen = 0;
    // The extension's scripts and the service worker's modules.
    let dirs = [extension_dir(), extension_dir().join("worker")];
    let scripts = dirs.iter().flat_map(|d| {
        std::fs::read_dir(d)
            .unwrap_or_else(|e| panic!("{}: {e}", d.display()))
            .map(|entry| entry.expect("entry").path())
    });
    for path in scripts {
        if path.extension().and_then(|e| e.to_str()) != Some("js") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("script");
        for code in reported_codes(&text) {
            seen += 1;
            assert!(
                all.contains(code.as_str()),
                "{} reports the failure code {code:?}, which is no nsp_protocol::channel::DispatchFailure",
                path.display()
            );
        }
    }
    // The scan finds the codes it is meant to find.
    assert!(
        seen >= 20,
        "only {seen} failure codes found in extension/*.js"
    );
}

#[test]
fn the_scan_finds_codes_where_scripts_write_them() {
    let js = r#"fail("a", "x"); failure("b", m); return { code: "c" }; if (msg.code === "d") nofail("e");"#;
    assert_eq!(reported_codes(js), ["a", "b", "c", "d"]);
}

/// The service worker's modules (extension/worker/*.js), by file name.
fn worker_modules() -> BTreeMap<String, String> {
    let dir = extension_dir().join("worker");
    std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("entry").path())
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("js"))
        .map(|p| {
            let name = p
                .file_name()
                .expect("a name")
                .to_string_lossy()
                .into_owned();
            (name, std::fs::read_to_string(&p).expect("a module"))
        })
        .collect()
}

/// How many variants [`daemon_message_type`] names.
const DAEMON_MESSAGE_VARIANTS: usize = 11;

/// The `type` of a message nspd sends, and the variant's number. A match without a
/// wildcard on purpose: a new [`DaemonMessage`] does not compile here until it has an
/// arm, and [`every_daemon_message_is_routed_by_the_worker`] fails until it has a sample.
fn daemon_message_type(msg: &DaemonMessage) -> (&'static str, usize) {
    match msg {
        DaemonMessage::Welcome { .. } => ("welcome", 0),
        DaemonMessage::KeepaliveAck => ("keepalive_ack", 1),
        DaemonMessage::Dispatch { .. } => ("dispatch", 2),
        DaemonMessage::Resolve { .. } => ("resolve", 3),
        DaemonMessage::Capture { .. } => ("capture", 4),
        DaemonMessage::OpenTab { .. } => ("open_tab", 5),
        DaemonMessage::CloseTab { .. } => ("close_tab", 6),
        DaemonMessage::Approval(_) => ("approval", 7),
        DaemonMessage::ApprovalClosed { .. } => ("approval_closed", 8),
        DaemonMessage::Corrections { .. } => ("corrections", 9),
        DaemonMessage::Agents { .. } => ("agents", 10),
    }
}

#[test]
fn every_daemon_message_is_routed_by_the_worker() {
    let samples = [
        json!({"type": "welcome", "channel_version": 1, "daemon_version": "0"}),
        json!({"type": "keepalive_ack"}),
        json!({"type": "dispatch", "action_id": "a", "tab_id": 1, "action": "click", "parameters": {}}),
        json!({"type": "resolve", "request_id": "r", "tab_id": 1, "selector": "#x"}),
        json!({"type": "capture", "request_id": "r", "tab_id": 1}),
        json!({"type": "open_tab", "request_id": "r", "url": "http://127.0.0.1:9/",
               "group": {"title": "research", "color": "blue"}}),
        json!({"type": "close_tab", "request_id": "r", "tab_id": 1}),
        json!({"type": "approval", "approval_id": "q", "tab_id": 1, "pid": 1, "action": "delete",
               "tier": "irreversible_write", "confidence": 0.5, "floor": 0.95, "reason": "why",
               "key_id": "k", "agent": "research", "asked_at": "now", "expires_at": "later"}),
        json!({"type": "approval_closed", "approval_id": "q", "reason": "answered"}),
        json!({"type": "corrections", "corrections": []}),
        json!({"type": "agents", "agents": [{"name": "research",
               "group": {"title": "research", "color": "blue"}, "scope": "s",
               "owned_tabs": [1], "shared_tabs": [], "last_actions": []}]}),
    ];
    let router = &worker_modules()["from-daemon.js"];
    let mut seen = BTreeSet::new();
    for sample in samples {
        let msg: DaemonMessage = serde_json::from_value(sample.clone())
            .unwrap_or_else(|e| panic!("{sample} is no DaemonMessage: {e}"));
        let (tag, variant) = daemon_message_type(&msg);
        assert_eq!(sample["type"], tag, "the sample of {msg:?}");
        seen.insert(variant);
        assert!(
            router.contains(&format!("case {tag:?}:")),
            "extension/worker/from-daemon.js has no `case {tag:?}:` for DaemonMessage::{msg:?}"
        );
    }
    assert_eq!(
        seen.len(),
        DAEMON_MESSAGE_VARIANTS,
        "a DaemonMessage variant has no sample here"
    );
}

/// The messages the worker sends for the person's tab groups, shares and revocations:
/// some module must send each, naming every field the protocol has, and the protocol
/// must read what it sends.
#[test]
fn the_worker_sends_the_agent_messages_the_protocol_reads() {
    let samples = [
        ExtensionMessage::TabUngrouped { tab_id: 1 },
        ExtensionMessage::ShareTab {
            tab_id: 1,
            agent: "research".into(),
            share: true,
        },
        ExtensionMessage::RevokeAgent {
            name: "research".into(),
        },
    ];
    let modules = worker_modules();
    for msg in samples {
        let value = serde_json::to_value(&msg).expect("json");
        let fields = value.as_object().expect("an object");
        let tag = fields["type"].as_str().expect("a type");
        let opening = format!("({{ type: {tag:?}");
        let line = modules
            .values()
            .flat_map(|text| text.lines())
            .find(|line| line.contains(&opening) && line.contains("send"))
            .unwrap_or_else(|| panic!("no worker module sends {{ type: {tag:?} }} ({msg:?})"));
        for field in fields.keys().filter(|f| *f != "type") {
            assert!(
                line.contains(&format!("{field}:")),
                "the worker sends {tag:?} without `{field}`: {line}"
            );
        }
    }
}

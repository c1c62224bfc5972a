//! The extension's content scripts are classic scripts: they cannot import the generated
//! `contract.js` (protocol/src/contract.rs), so the facts they need from the protocol are
//! copied into them. These tests run the scripts with node and fail when a copy
//! disagrees with the Rust definition: `extension/delta.js` must apply every field of
//! [`TabDelta`], and `extension/dispatch.js`' builtins, failure codes and tiers must be the
//! protocol's. A code any extension script reports must be a [`DispatchFailure`].

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use nsp_protocol::channel::{DispatchFailure, TabDelta};
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

//! Corrections through the probe's one configuration value: the page origin's
//! corrections, as the extension passes them, change the named action's tier and
//! confidence and say so in its explanation, both on a full analysis and after a patch;
//! without them, the capture is exactly what it was.

#![cfg(not(target_arch = "wasm32"))]

use nsp_probe::Probe;
use nsp_protocol::snapshot::PageSnapshot;
use nsp_protocol::{PageCapture, Reversibility};
use serde_json::{json, Value};

mod support;
use support::el_at as el;

fn page() -> PageSnapshot {
    PageSnapshot {
        url: "http://127.0.0.1:1/reports".into(),
        title: "Reports".into(),
        elements: vec![
            el("main", None, "#reports", "", &[("id", "reports")]),
            el("h1", Some(0), "#reports > h1", "Reports", &[]),
            el(
                "button",
                Some(0),
                "#archive-all",
                "Archive",
                &[("id", "archive-all"), ("type", "button")],
            ),
            el(
                "button",
                Some(0),
                "#star",
                "Star",
                &[("id", "star"), ("type", "button")],
            ),
        ],
        ..Default::default()
    }
}

fn capture(config: Value) -> PageCapture {
    let mut probe = Probe::from_config(&config.to_string()).expect("config");
    let text = probe
        .analyze_json(&serde_json::to_string(&page()).expect("json"))
        .expect("analyze");
    serde_json::from_str(&text).expect("capture")
}

fn without_latencies(mut c: PageCapture) -> PageCapture {
    c.probe_metadata.labeling_latency_ms = 0.0;
    c.probe_metadata.total_latency_ms = 0.0;
    c
}

#[test]
fn absent_corrections_change_nothing_and_present_ones_apply() {
    let plain = capture(json!({"tier": "wasm_in_page"}));
    let empty = capture(json!({"tier": "wasm_in_page", "corrections": []}));
    assert_eq!(without_latencies(plain.clone()), without_latencies(empty));
    let name = plain
        .actions
        .iter()
        .find(|(_, a)| a.internal_target.contains("archive-all"))
        .map(|(n, _)| n.clone())
        .expect("archive action");
    let before = &plain.actions[&name];
    assert_ne!(before.reversibility, Reversibility::IrreversibleWrite);

    // The person: irreversible, at declared confidence.
    let person = capture(json!({"tier": "wasm_in_page", "corrections": [
        {"id": "1", "origin": "http://127.0.0.1:1", "action": name, "tier": "irreversible_write", "trusted": false, "by": "person", "created_at": "2026-11-30T12:00:00.000Z"}
    ]}));
    let a = &person.actions[&name];
    assert_eq!(a.reversibility, Reversibility::IrreversibleWrite);
    assert_eq!(a.confidence, 0.99);
    let lines = &person.explain[&name].signals;
    assert!(
        lines
            .iter()
            .any(|l| l.contains("corrected by the person on 2026-11-30")),
        "{lines:?}"
    );
    // Other actions are untouched.
    for (n, a) in &plain.actions {
        if *n != name {
            assert_eq!(person.actions.get(n), Some(a), "{n}");
        }
    }

    // An agent: a lower ceiling only.
    let agent = capture(json!({"tier": "wasm_in_page", "corrections": [
        {"id": "2", "origin": "http://127.0.0.1:1", "action": name, "max_confidence": 0.3, "trusted": false, "by": "agent", "key_id": "abc", "created_at": "2026-11-30T12:00:00.000Z"},
        {"id": "3", "origin": "http://127.0.0.1:1", "action": name, "tier": "read", "trusted": false, "by": "agent", "key_id": "abc", "created_at": "2026-11-30T12:00:00.000Z"}
    ]}));
    let a = &agent.actions[&name];
    assert_eq!(a.reversibility, before.reversibility);
    assert_eq!(a.confidence, 0.3);
    assert!(agent.explain[&name]
        .signals
        .iter()
        .any(|l| l.contains("by an agent (key abc) on 2026-11-30")));

    // A configuration whose corrections are not a list is refused, not ignored.
    assert!(Probe::from_config(
        &json!({"tier": "wasm_in_page", "corrections": {"a": 1}}).to_string()
    )
    .is_err());
}

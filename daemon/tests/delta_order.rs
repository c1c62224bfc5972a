//! A `tab_delta` means the same thing to the daemon (`Hub::tab_delta`) and to the
//! extension (`extension/delta.js`, run here with node): both are fed one capture and
//! one delta in which the order of application matters (a key both removed and
//! changed, beside plain removals and changes), and must end with the same objects.

use std::collections::BTreeMap;
use std::process::Command;

use nsp_daemon::core::hub::{Hub, TabReport};
use nsp_protocol::channel::TabDelta;
use nsp_protocol::{PageCapture, ProbeStatus};
use serde_json::{json, Value};

fn capture() -> PageCapture {
    serde_json::from_value(json!({
        "app_name": "T", "confidence": 0.9,
        "context": {"url": "http://127.0.0.1:9/", "location": null, "view": null, "window_title": null, "window_id": null},
        "objects": {"both": "old", "gone": 1, "kept": true, "edited": 1},
        "actions": {},
        "probe_metadata": {"capture_latency_ms": 0.0, "labeling_latency_ms": 0.0, "total_latency_ms": 0.0,
            "raw_object_count": 4, "filtered_object_count": 4, "cache_hit": false, "probe_tier": null}
    }))
    .expect("capture")
}

fn delta_json() -> Value {
    json!({"changed": {"both": "new", "edited": 2, "added": "x"}, "removed": ["both", "gone"]})
}

/// What the daemon makes of the delta.
fn daemon_objects() -> BTreeMap<String, Value> {
    let hub = Hub::new();
    let (tx, _rx) = tokio::sync::mpsc::channel(4);
    let conn = hub.connect("b".into(), "Chromium".into(), tx);
    let pid = hub
        .tab_state(
            conn,
            TabReport {
                capture: Some(capture()),
                ..TabReport::new(1, ProbeStatus::Active)
            },
        )
        .expect("tab");
    let d = delta_json();
    let delta = TabDelta {
        changed: serde_json::from_value(d["changed"].clone()).expect("changed"),
        removed: serde_json::from_value(d["removed"].clone()).expect("removed"),
        ..TabDelta::default()
    };
    hub.tab_delta(conn, 1, delta).expect("applied");
    hub.state(pid).expect("state").objects
}

/// What extension/delta.js makes of it.
fn extension_objects() -> BTreeMap<String, Value> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../extension/delta.js");
    let program = format!(
        "require({script:?}); const cap = {cap}; globalThis.NspDelta.apply(cap, {delta}); process.stdout.write(JSON.stringify(cap.objects));",
        cap = serde_json::to_string(&capture()).expect("json"),
        delta = delta_json(),
    );
    let out = Command::new("node")
        .args(["-e", &program])
        .output()
        .expect("node (cargo xtask test installs Node.js)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("objects as JSON")
}

#[test]
fn daemon_and_extension_apply_a_delta_in_the_same_order() {
    let daemon = daemon_objects();
    // Removed first, then changed: a key in both keeps its new value.
    let expected: BTreeMap<String, Value> =
        serde_json::from_value(json!({"both": "new", "kept": true, "edited": 2, "added": "x"}))
            .expect("map");
    assert_eq!(daemon, expected);
    assert_eq!(extension_objects(), daemon);
}

//! Fuzz target: arbitrary bytes as a verify expression. Whatever parses must print to
//! a form that parses back to the same tree, and must evaluate (with and without a
//! previous state) without panicking, to a result that agrees with itself.

#![no_main]

use std::collections::BTreeMap;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use nsp_protocol::{Context, ProbeMetadata, SubstrateState};
use nsp_verify::{evaluate, parse, parse_with_limits, Limits};
use serde_json::{json, Value};

fn state(sent: u64, url: &str, objects: Value) -> SubstrateState {
    let Value::Object(map) = objects else {
        unreachable!("objects are written as a JSON object below")
    };
    let mut objects: BTreeMap<String, Value> = map.into_iter().collect();
    objects.insert("inbox.sent_count".into(), json!(sent));
    SubstrateState {
        pid: 1,
        app_id: "mail-localhost-1".into(),
        app_name: "Mail".into(),
        runtime: "v8".into(),
        confidence: 0.96,
        capture_id: "0190b6c0-0000-7000-8000-000000000000".into(),
        schema_version: "1.0.0".into(),
        captured_at: "2025-01-01T00:00:00Z".into(),
        context: Context {
            url: Some(url.into()),
            location: None,
            view: Some("inbox".into()),
            window_title: Some("Inbox".into()),
            window_id: Some("3".into()),
        },
        objects,
        actions: BTreeMap::new(),
        probe_metadata: ProbeMetadata::default(),
    }
}

fn states() -> &'static (SubstrateState, SubstrateState) {
    static STATES: OnceLock<(SubstrateState, SubstrateState)> = OnceLock::new();
    STATES.get_or_init(|| {
        let before = state(
            14,
            "https://mail.example/inbox",
            json!({
                "a": 1,
                "inbox.unread_count": 3,
                "inbox.emails[0].id": "m1",
                "inbox.emails[0].is_read": false,
                "compose.is_open": true,
                "labels": ["work"],
            }),
        );
        let after = state(
            15,
            "https://mail.example/sent",
            json!({
                "a": 1.0,
                "b": "héllo 👋",
                "inbox.unread_count": 0,
                "inbox.emails[0].id": "m1",
                "inbox.emails[0].is_read": true,
                "inbox.emails[1].id": "m2",
                "inbox.emails[10]": "x",
                "compose.is_open": false,
                "compose.draft_id": "d-17",
                "labels": ["work", "family", 3, null, {"k": [1, 2]}],
                "meta": {"owner": {"name": "Ada"}, "n": [1, [2, [3]]]},
                "nothing": null,
            }),
        );
        (before, after)
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(expr) = parse(src) else {
        return;
    };
    let printed = expr.to_string();
    let roomy = Limits {
        max_bytes: usize::MAX,
        max_nodes: usize::MAX,
        ..Limits::default()
    };
    match parse_with_limits(&printed, &roomy) {
        Ok(again) => assert_eq!(again, expr, "{src:?} printed as {printed:?}"),
        Err(e) => panic!("{src:?} printed as {printed:?}, which does not parse: {e}"),
    }
    let (before, after) = states();
    for prev in [Some(before), None] {
        let result = evaluate(&expr, after, prev);
        assert_eq!(result.passed, result.value == Value::Bool(true));
        assert!(!result.explanation.is_empty());
    }
});

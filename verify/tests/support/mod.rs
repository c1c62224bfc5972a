//! States shared by the test files: a small mail app before and after sending.

use std::collections::BTreeMap;

use nsp_protocol::{Context, ProbeMetadata, SubstrateState};
use serde_json::{json, Value};

pub fn state(url: &str, confidence: f64, objects: Value) -> SubstrateState {
    let Value::Object(map) = objects else {
        panic!("objects must be a JSON object");
    };
    SubstrateState {
        pid: 1,
        app_id: "mail-localhost-1".to_string(),
        app_name: "Mail".to_string(),
        runtime: "v8".to_string(),
        confidence,
        capture_id: "0190b6c0-0000-7000-8000-000000000000".to_string(),
        schema_version: "1.0.0".to_string(),
        captured_at: "2025-01-01T00:00:00Z".to_string(),
        context: Context {
            url: Some(url.to_string()),
            location: None,
            view: Some("sent".to_string()),
            window_title: Some("Sent – Mail".to_string()),
            window_id: Some("7".to_string()),
        },
        objects: map.into_iter().collect::<BTreeMap<_, _>>(),
        actions: BTreeMap::new(),
        probe_metadata: ProbeMetadata::default(),
    }
}

/// Before sending: 14 sent, a draft open.
pub fn before() -> SubstrateState {
    state(
        "https://mail.google.com/inbox",
        0.97,
        json!({
            "inbox.unread_count": 3,
            "inbox.sent_count": 14,
            "inbox.emails[0].id": "m1",
            "inbox.emails[0].subject": "Hi",
            "inbox.emails[0].is_read": false,
            "inbox.emails[1].id": "m2",
            "inbox.emails[1].subject": "Lunch?",
            "inbox.emails[1].is_read": true,
            "compose.is_open": true,
            "compose.subject": "Hello",
            "flight.is_armed": false,
            "flight.altitude_m": 0.0,
            "labels": ["work"],
            "score": 3,
        }),
    )
}

/// After sending: 15 sent, the draft closed and saved, a third email.
pub fn after() -> SubstrateState {
    state(
        "https://mail.google.com/sent",
        0.96,
        json!({
            "inbox.unread_count": 0,
            "inbox.sent_count": 15,
            "inbox.emails[0].id": "m1",
            "inbox.emails[0].subject": "Hi",
            "inbox.emails[0].is_read": true,
            "inbox.emails[1].id": "m2",
            "inbox.emails[1].subject": "Lunch?",
            "inbox.emails[1].is_read": true,
            "inbox.emails[2].id": "m3",
            "inbox.emails[2].subject": "Re: Hello",
            "inbox.emails[2].is_read": false,
            "inbox.emails[10]": "an entry with no fields",
            "compose.is_open": false,
            "compose.draft_id": "d-17",
            "compose.subject": "Hello",
            "flight.is_armed": true,
            "flight.altitude_m": 12.5,
            "labels": ["work", "family"],
            "meta": {"owner": {"name": "Ada"}, "count": 3.0},
            "greeting": "héllo wörld 👋",
            "quote": "it's \"quoted\"\n",
            "big": 9007199254740993u64,
            "nothing": null,
            "score": 3.0,
        }),
    )
}

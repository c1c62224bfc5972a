//! temporary breakdown
use nsp_protocol::{Context, ProbeMetadata, SubstrateState};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::Instant;

fn time(name: &str, mut f: impl FnMut()) {
    for _ in 0..20000 {
        f();
    }
    let n = 200000;
    let t = Instant::now();
    for _ in 0..n {
        f();
    }
    println!("{name}: {:.0} ns", t.elapsed().as_nanos() as f64 / n as f64);
}

fn main() {
    let before = state(14, true, "https://mail.google.com/inbox");
    let after = state(15, false, "https://mail.google.com/sent");
    for src in [
        "compose.is_open == false && inbox.sent_count > 14 && context.url.includes('sent')",
        "inbox.unread_count == 0",
        "inbox.emails.length == 150",
    ] {
        println!("{src}");
        let expr = nsp_verify::parse(src).unwrap();
        time("  parse", || {
            black_box(nsp_verify::parse(black_box(src)).unwrap());
        });
        time("  evaluate", || {
            black_box(nsp_verify::evaluate(
                black_box(&expr),
                &after,
                Some(&before),
            ));
        });
        time("  to_string", || {
            black_box(expr.to_string());
        });
    }
}
/// A mail-like page with exactly 1,000 keys.
fn state(sent: u64, compose_open: bool, url: &str) -> SubstrateState {
    let mut objects = BTreeMap::new();
    let mut put = |key: String, value: Value| {
        objects.insert(key, value);
    };
    put("inbox.unread_count".into(), json!(0));
    put("inbox.sent_count".into(), json!(sent));
    put("inbox.total_count".into(), json!(150));
    for i in 0..150 {
        put(format!("inbox.emails[{i}].id"), json!(format!("m{i:04}")));
        put(
            format!("inbox.emails[{i}].subject"),
            json!(format!("Quarterly report #{i}")),
        );
        put(
            format!("inbox.emails[{i}].from"),
            json!(format!("sender{i}@example.com")),
        );
        put(format!("inbox.emails[{i}].is_read"), json!(i % 3 == 0));
        put(
            format!("inbox.emails[{i}].received_at"),
            json!(format!("2025-01-{:02}T09:00:00Z", i % 28 + 1)),
        );
    }
    put("compose.is_open".into(), json!(compose_open));
    put("compose.draft_id".into(), json!("d-17"));
    put("compose.to".into(), json!("ada@example.com"));
    put("compose.subject".into(), json!("Hello"));
    put("compose.body".into(), json!("See you at noon."));
    put("flight.is_armed".into(), json!(true));
    put("flight.altitude_m".into(), json!(12.5));
    put("flight.speed_kts".into(), json!(88.0));
    put("flight.heading_deg".into(), json!(270));
    put("flight.mode".into(), json!("cruise"));
    for i in 0..(1000 - 3 - 750 - 5 - 5) {
        let value = if i % 2 == 0 {
            json!(i % 4 == 0)
        } else {
            json!(format!("option-{i}"))
        };
        put(format!("settings.pref_{i:03}"), value);
    }
    SubstrateState {
        pid: 1,
        app_id: "mail-localhost-1".into(),
        app_name: "Mail".into(),
        runtime: "v8".into(),
        confidence: 0.97,
        capture_id: "0190b6c0-0000-7000-8000-000000000000".into(),
        schema_version: "1.0.0".into(),
        captured_at: "2025-01-01T00:00:00Z".into(),
        context: Context {
            url: Some(url.into()),
            location: None,
            view: Some("inbox".into()),
            window_title: Some("Mail".into()),
            window_id: Some("1".into()),
        },
        objects,
        actions: BTreeMap::new(),
        probe_metadata: ProbeMetadata::default(),
    }
}

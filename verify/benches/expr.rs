//! Parse + evaluate of typical verify expressions against a 1,000-key state, side by
//! side with cel-interpreter compiling and executing the same check on the same data.
//!
//! No harness: a warm-up, then samples of many iterations each; the median and p90 of
//! the per-iteration times are reported. Prints one markdown table (every line starts
//! with `|`), which `cargo xtask bench` collects.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

use cel_interpreter::{Context as CelContext, Program};
use nsp_protocol::{Context, ProbeMetadata, SubstrateState};
use serde_json::{json, Map, Value};

/// Time spent running a case before measuring it.
const WARM_UP: Duration = Duration::from_millis(150);
/// Target duration of one sample; iterations per sample are sized to reach it.
const SAMPLE: Duration = Duration::from_millis(2);
const SAMPLES: usize = 101;

/// (ours, the same check in CEL).
const CASES: [(&str, &str); 10] = [
    ("inbox.unread_count == 0", "inbox.unread_count == 0"),
    ("confidence >= 0.95", "confidence >= 0.95"),
    (
        "context.url == \"https://mail.google.com/sent\"",
        "context.url == \"https://mail.google.com/sent\"",
    ),
    (
        "compose.is_open == false && inbox.sent_count > 14 && context.url.includes('sent')",
        "compose.is_open == false && inbox.sent_count > 14 && context.url.contains('sent')",
    ),
    (
        "flight.is_armed == true && flight.altitude_m > 10.0",
        "flight.is_armed == true && flight.altitude_m > 10.0",
    ),
    (
        "prev.inbox.sent_count != inbox.sent_count",
        "prev.inbox.sent_count != inbox.sent_count",
    ),
    (
        "changed(inbox.sent_count)",
        "prev.inbox.sent_count != inbox.sent_count",
    ),
    (
        "inbox.emails[42].is_read == true",
        "inbox.emails[42].is_read == true",
    ),
    ("inbox.emails.length == 150", "size(inbox.emails) == 150"),
    ("exists(compose.draft_id)", "has(compose.draft_id)"),
];

fn main() {
    let before = state(14, true, "https://mail.google.com/inbox");
    let after = state(15, false, "https://mail.google.com/sent");
    assert_eq!(after.objects.len(), 1000);
    let cel = cel_context(&before, &after);

    println!(
        "State: {} object keys (150 emails x 5 fields, counters, compose, flight, settings).",
        after.objects.len()
    );
    println!(
        "Ours: nsp_verify::parse + evaluate(expr, &after, Some(&before)), explanation included."
    );
    println!(
        "CEL: cel-interpreter Program::compile + execute; the same values bound once as nested \
         maps and lists (variables inbox, compose, flight, settings, context, confidence, and \
         prev holding the state before), the way a CEL user would write `inbox.emails[0].is_read`."
    );
    println!(
        "Times are per parse+evaluate (ours) or compile+execute (CEL), {SAMPLES} samples each."
    );
    println!();
    println!("| expression | ours median ns | cel median ns | ratio (cel/ours) | ours p90 ns | cel p90 ns |");
    println!("|---|---:|---:|---:|---:|---:|");
    for (ours, theirs) in CASES {
        let expected =
            nsp_verify::evaluate(&nsp_verify::parse(ours).unwrap(), &after, Some(&before));
        let cel_value = Program::compile(theirs).unwrap().execute(&cel).unwrap();
        assert_eq!(
            cel_value,
            cel_interpreter::Value::Bool(expected.passed),
            "{ours} and {theirs} disagree"
        );

        let ours_stats = measure(|| {
            let expr = nsp_verify::parse(black_box(ours)).unwrap();
            nsp_verify::evaluate(&expr, black_box(&after), Some(black_box(&before))).passed
        });
        let cel_stats = measure(|| {
            let program = Program::compile(black_box(theirs)).unwrap();
            program.execute(black_box(&cel)).unwrap() == cel_interpreter::Value::Bool(true)
        });
        let label = if ours == theirs {
            format!("`{ours}`")
        } else {
            format!("`{ours}` (CEL: `{theirs}`)")
        };
        println!(
            "| {label} | {:.0} | {:.0} | {:.1} | {:.0} | {:.0} |",
            ours_stats.median,
            cel_stats.median,
            cel_stats.median / ours_stats.median,
            ours_stats.p90,
            cel_stats.p90
        );
    }
}

struct Stats {
    median: f64,
    p90: f64,
}

/// Nanoseconds per call of `f`: median and p90 over samples of many calls each.
fn measure(mut f: impl FnMut() -> bool) -> Stats {
    let start = Instant::now();
    let mut warm_calls: u32 = 0;
    while start.elapsed() < WARM_UP {
        black_box(f());
        warm_calls += 1;
    }
    let per_call = start.elapsed().as_secs_f64() / f64::from(warm_calls.max(1));
    let iterations = ((SAMPLE.as_secs_f64() / per_call) as u64).max(1);
    let mut samples: Vec<f64> = (0..SAMPLES)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..iterations {
                black_box(f());
            }
            t.elapsed().as_nanos() as f64 / iterations as f64
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    Stats {
        median: samples[samples.len() / 2],
        p90: samples[samples.len() * 9 / 10],
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

/// The state as nested JSON: `a.b[2].c` becomes `{"a": {"b": [.., .., {"c": ..}]}}`.
fn nested(state: &SubstrateState) -> Map<String, Value> {
    let mut root = Value::Object(Map::new());
    for (key, value) in &state.objects {
        let mut node = &mut root;
        for part in key.split('.') {
            let (name, index) = match part.split_once('[') {
                Some((name, rest)) => (name, rest.trim_end_matches(']').parse::<usize>().ok()),
                None => (part, None),
            };
            node = node
                .as_object_mut()
                .expect("an object")
                .entry(name)
                .or_insert_with(|| {
                    if index.is_some() {
                        json!([])
                    } else {
                        json!({})
                    }
                });
            if let Some(i) = index {
                let items = node.as_array_mut().expect("a list");
                while items.len() <= i {
                    items.push(json!({}));
                }
                node = &mut items[i];
            }
        }
        *node = value.clone();
    }
    let Value::Object(mut map) = root else {
        unreachable!("the root is an object")
    };
    map.insert(
        "context".into(),
        serde_json::to_value(&state.context).expect("context serialises"),
    );
    map.insert("confidence".into(), json!(state.confidence));
    map
}

fn cel_context(before: &SubstrateState, after: &SubstrateState) -> CelContext<'static> {
    let mut context = CelContext::default();
    for (name, value) in nested(after) {
        context.add_variable_from_value(name, cel_interpreter::to_value(value).expect("converts"));
    }
    let prev = Value::Object(nested(before));
    context.add_variable_from_value("prev", cel_interpreter::to_value(prev).expect("converts"));
    context
}

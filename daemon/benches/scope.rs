//! What applying an agent's scope costs per request, against what a request cost before
//! there were agents (the default key's guard), on one nspd's state with 100 tabs: the
//! key named and limited (`access::guard`), then the tab looked up in its scope
//! (`access::tab`: origin patterns, tab ownership). Run by `cargo xtask bench`
//! (`NSP_BENCH_ONLY=scope`); prints a markdown table.

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use nsp_daemon::core::access;
use nsp_daemon::core::agents::{AgentAsk, Agents, Scope, TabsScope};
use nsp_daemon::core::app::AppState;
use nsp_daemon::core::auth::AgentKey;
use nsp_daemon::core::config::Settings;
use nsp_daemon::core::hub::{Hub, TabReport};
use nsp_daemon::core::ratelimit::Bucket;
use nsp_protocol::{ProbeStatus, Reversibility};

const TABS: i64 = 100;
const ROUNDS: usize = 200_000;
/// The target: an agent's scope adds under this per request.
const TARGET: Duration = Duration::from_micros(5);

fn main() {
    let dir = tempfile::tempdir().expect("tempdir");
    let key = AgentKey::load_or_create(dir.path()).expect("key");
    let agents = Agents::open(dir.path(), &key).expect("agents");
    let scoped = Scope {
        origins: vec![
            "https://*.example.com".parse().expect("origin"),
            "http://127.0.0.1:8000".parse().expect("origin"),
        ],
        max_tier: Reversibility::ReversibleWrite,
        tabs: TabsScope::Own,
        ask: AgentAsk::BelowFloor,
        actions_per_minute: None,
    };
    let path = agents.add("bench", scoped).expect("add");
    let agent_key = std::fs::read_to_string(path)
        .expect("key")
        .trim()
        .to_owned();
    let mut settings = Settings::new(dir.path().to_owned());
    // The buckets are not what is measured: wide enough never to refuse.
    settings.actions_per_sec = u32::MAX / 2;
    settings.state_reads_per_sec = u32::MAX / 2;
    let state = AppState {
        hub: Hub::new(),
        key_id: key.id(),
        agents,
        owners: nsp_daemon::core::owners::Owners::open(dir.path()),
        leases: Default::default(),
        last_actions: Default::default(),
        key: key.clone(),
        local_addr: "127.0.0.1:7842".parse().expect("addr"),
        audit: Arc::new(nsp_daemon::core::audit::AuditLog::open(dir.path()).expect("audit")),
        idempotency: Default::default(),
        limits: nsp_daemon::core::ratelimit::Limits::new(
            settings.actions_per_sec,
            settings.state_reads_per_sec,
        ),
        watchers: Default::default(),
        corrections: nsp_daemon::core::corrections::Corrections::open(dir.path())
            .expect("corrections"),
        settings,
    };
    let (tx, _rx) = tokio::sync::mpsc::channel(1);
    let conn = state.hub.connect("bench".into(), "Chromium".into(), tx);
    let mut target = 0;
    for tab_id in 1..=TABS {
        let url = format!("https://app{tab_id}.example.com/inbox?page={tab_id}");
        let report = TabReport {
            url: Some(url),
            ..TabReport::new(tab_id, ProbeStatus::Active)
        };
        let pid = state.hub.tab_state(conn, report).expect("tab");
        if tab_id % 2 == 0 {
            state.owners.claim("bench", tab_id, "bench");
        }
        if tab_id == TABS {
            target = pid;
        }
    }
    let default_key = key.reveal().to_owned();
    let before = time(|| {
        let who = access::guard(&state, Some(&default_key), Bucket::StateReads).expect("guard");
        black_box(state.hub.identity(target).is_some() && who.is_default());
    });
    let after = time(|| {
        let who = access::guard(&state, Some(&agent_key), Bucket::StateReads).expect("guard");
        black_box(access::tab(&state, &who, target).expect("in scope"));
    });
    let listed = time(|| {
        let who = access::guard(&state, Some(&agent_key), Bucket::StateReads).expect("guard");
        black_box(access::tabs(&state, &who).len());
    });
    let added = after.saturating_sub(before);
    println!("| per request | time | vs the default key's guard |");
    println!("|---|---|---|");
    println!(
        "| default key: guard (anchor) | {:.2} µs | 1.00× |",
        micros(before)
    );
    println!(
        "| scoped agent: guard + tab in scope ({TABS} tabs, 2 origin patterns, own tabs) | {:.2} µs | {:.2}× |",
        micros(after),
        after.as_secs_f64() / before.as_secs_f64()
    );
    println!(
        "| scoped agent: `/apps` filtered ({TABS} tabs) | {:.2} µs | {:.2}× |",
        micros(listed),
        listed.as_secs_f64() / before.as_secs_f64()
    );
    println!(
        "| scope check added per request: target < {} µs | {:.2} µs | {} |",
        TARGET.as_micros(),
        micros(added),
        if added < TARGET { "met" } else { "not met" }
    );
}

/// The median of 5 runs of `ROUNDS` calls, per call.
fn time(mut f: impl FnMut()) -> Duration {
    for _ in 0..ROUNDS / 10 {
        f();
    }
    let mut runs: Vec<Duration> = (0..5)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..ROUNDS {
                f();
            }
            start.elapsed() / ROUNDS as u32
        })
        .collect();
    runs.sort();
    runs[2]
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

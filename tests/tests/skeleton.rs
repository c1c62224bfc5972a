//! The walking skeleton end to end: the demo app on 127.0.0.1, nspd launching headless
//! Chromium with the built extension, the probe's first state, and one read action
//! dispatched to the page and checked against the app's own backend.

use std::time::Duration;

use nsp_fixtures::{DemoOptions, DemoServer};
use nsp_protocol::ProbeStatus;
use nsp_tests::{fetch_json, Nspd, NspdOptions};
use serde_json::json;

const TAB_TIMEOUT: Duration = Duration::from_secs(60);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn demo_app_state_and_read_text_round_trip() {
    let demo = DemoServer::start(DemoOptions::default())
        .await
        .expect("demo app");
    let origin = demo.url("/");
    let nspd = Nspd::launch(&NspdOptions {
        url: origin.clone(),
        headless: true,
    })
    .expect("nspd");

    let app = nspd
        .wait_for_app(TAB_TIMEOUT, |a| {
            a.probe_status == ProbeStatus::Active
                && a.current_url
                    .as_deref()
                    .is_some_and(|u| u.starts_with(&origin))
        })
        .await
        .expect("the demo tab becomes active");
    assert_eq!(app.app_name, "Demo Mail");
    assert_eq!(app.runtime, "v8");
    assert!(
        app.runtime_name.contains("156") || app.runtime_name.starts_with("Chrom"),
        "{}",
        app.runtime_name
    );
    assert!(app.has_state && app.action_count > 0);

    let (status, state) = nspd
        .get(&format!("/substrate/v1/state/{}", app.pid))
        .await
        .expect("state");
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["pid"], app.pid);
    assert_eq!(state["app_id"], app.app_id.as_str());
    assert_eq!(state["context"]["url"], origin.as_str());
    // The extension's service worker analyses a page of this size (content.js).
    assert_eq!(state["probe_metadata"]["probe_tier"], "wasm_extension");
    assert_eq!(state["actions"]["read_text"]["reversibility"], "read");
    assert_eq!(
        state["actions"]["send_email"]["reversibility"],
        "irreversible_write"
    );

    // Ground truth from the app's backend, read through the page by the probe.
    let backend = fetch_json(&demo.url("/api/emails")).await.expect("backend");
    let unread = backend["inbox"]
        .as_array()
        .expect("inbox list")
        .iter()
        .filter(|e| e["unread"] == true)
        .count();
    let (status, resp) = nspd
        .act(&json!({"pid": app.pid, "action": "read_text", "parameters": {"selector": "#unread-count"}}),
        )
        .await
        .expect("action");
    assert_eq!(status, 200, "{resp}");
    assert_eq!(resp["success"], true);
    assert_eq!(resp["executed"], true);
    assert_eq!(resp["raw_return"], unread.to_string());

    // The same by app_id, on a selector that matches nothing: a clear failure.
    let (status, resp) = nspd
        .act(&json!({"app_id": app.app_id, "action": "read_text", "parameters": {"selector": "#no-such-thing"}}),
        )
        .await
        .expect("action");
    assert_eq!(status, 422, "{resp}");
    assert_eq!(resp["code"], "action_failed");
    assert_eq!(resp["error"]["code"], "action_failed");
    assert!(
        resp["message"]
            .as_str()
            .unwrap_or("")
            .contains("#no-such-thing"),
        "{resp}"
    );

    // Reading changed nothing in the app.
    assert!(demo.backend().events().is_empty());
}

/// Under `script-src 'self'` the page may not compile WebAssembly: its snapshots go to
/// the extension's service worker, as every page's of ordinary size do, and stay there
/// whatever the page's size.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn strict_csp_page_gets_a_working_probe_in_the_extension() {
    let demo = DemoServer::start(DemoOptions {
        strict_csp: true,
        ..DemoOptions::default()
    })
    .await
    .expect("demo app");
    let origin = demo.url("/");
    let nspd = Nspd::launch(&NspdOptions {
        url: origin.clone(),
        headless: true,
    })
    .expect("nspd");

    let app = nspd
        .wait_for_app(TAB_TIMEOUT, |a| {
            a.probe_status == ProbeStatus::Active && a.confidence >= 0.95
        })
        .await
        .expect("the strict-CSP tab gets an active probe");
    assert_eq!(app.current_url.as_deref(), Some(origin.as_str()));

    let (status, state) = nspd
        .get(&format!("/substrate/v1/state/{}", app.pid))
        .await
        .expect("state");
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["probe_metadata"]["probe_tier"], "wasm_extension");
    assert_eq!(
        state["actions"]["send_email"]["reversibility"],
        "irreversible_write"
    );
    assert_eq!(state["objects"]["inbox.unread_count"], 3);

    // Dispatch works the same on this tier: read the counter through the page.
    let (status, resp) = nspd
        .act(&json!({"pid": app.pid, "action": "read_text", "parameters": {"selector": "#unread-count"}}),
        )
        .await
        .expect("action");
    assert_eq!(status, 200, "{resp}");
    assert_eq!(resp["raw_return"], "3");
    assert!(demo.backend().events().is_empty());
}

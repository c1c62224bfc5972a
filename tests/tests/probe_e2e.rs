//! The probe end to end: the real nspd launching headless Chromium with the built
//! extension, pages from the demo app's corpus, ground truth from the page itself or the
//! app's backend.

use std::time::{Duration, Instant};

use nsp_fixtures::{DemoOptions, DemoServer};
use nsp_protocol::api::AppSummary;
use nsp_tests::{open_tab, Nspd};
use serde_json::{json, Value};

const TAB_TIMEOUT: Duration = Duration::from_secs(60);

async fn open(url: &str, min_confidence: f64) -> (Nspd, AppSummary) {
    open_tab(url, min_confidence)
        .await
        .expect("the tab's probe settles")
}

async fn state(nspd: &Nspd, pid: u64) -> Value {
    let (status, body) = nspd
        .get(&format!("/substrate/v1/state/{pid}"))
        .await
        .expect("state");
    assert_eq!(status, 200, "{body}");
    body
}

/// Polls the (non-fresh) state until `pred` holds: only the page's own updates can
/// make it hold.
async fn wait_state(
    nspd: &Nspd,
    pid: u64,
    timeout: Duration,
    pred: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = Instant::now() + timeout;
    loop {
        let s = state(nspd, pid).await;
        if pred(&s) {
            return s;
        }
        assert!(
            Instant::now() < deadline,
            "state never matched; last: {s:#}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The comparable part of a state: what an agent may do and see.
fn agent_view(state: &Value) -> (Value, Value, Value) {
    (
        state["actions"].clone(),
        state["objects"].clone(),
        state["confidence"].clone(),
    )
}

/// Where the probe runs: in the extension's service worker (tier `wasm_extension`, its
/// wasm compiled once for the browser) for a page of ordinary size; in a probe of the
/// page's own (`wasm_in_page`) for a page too big to share the worker with other tabs,
/// where the page's CSP allows WebAssembly, and in the worker whatever its size where it
/// does not. The same page gives the same state on both tiers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_too_big_for_the_worker_moves_to_its_own_probe_with_the_same_state() {
    let demo = DemoServer::start(DemoOptions::default())
        .await
        .expect("demo app");
    let small = demo.url("/");
    // 4,500 list entries: more element records than content.js's WORKER_MAX_RECORDS.
    let big = demo.url("/?pad=4500");
    let big_strict = demo.url("/?pad=4500&csp=strict");
    let (nspd, app) = open(&small, 0.95).await;
    let first = state(&nspd, app.pid).await;
    assert_eq!(first["probe_metadata"]["probe_tier"], "wasm_extension");

    let go = |url: &str| {
        json!({"pid": app.pid, "action": "navigate", "parameters": {"url": url},
               "verify_expression": format!("context.url == {}", json!(url))})
    };
    let (status, resp) = nspd.act(&go(&big)).await.expect("navigate");
    assert_eq!(status, 200, "{resp}");
    // The worker answers the big page's first capture; the page's own probe takes over.
    let in_page = wait_state(&nspd, app.pid, TAB_TIMEOUT, |s| {
        s["context"]["url"] == big.as_str()
            && s["probe_metadata"]["probe_tier"] == "wasm_in_page"
            && s["probe_metadata"]["settled"] == true
    })
    .await;
    assert!(
        in_page["probe_metadata"]["element_count"]
            .as_u64()
            .unwrap_or(0)
            > 4000,
        "{:#}",
        in_page["probe_metadata"]
    );

    // The same page where WebAssembly may not run in the page: the worker keeps it.
    let (status, resp) = nspd.act(&go(&big_strict)).await.expect("navigate");
    assert_eq!(status, 200, "{resp}");
    let worker = wait_state(&nspd, app.pid, TAB_TIMEOUT, |s| {
        s["context"]["url"] == big_strict.as_str() && s["probe_metadata"]["settled"] == true
    })
    .await;
    assert_eq!(worker["probe_metadata"]["probe_tier"], "wasm_extension");
    let (a1, o1, c1) = agent_view(&in_page);
    let (a2, o2, c2) = agent_view(&worker);
    assert_eq!(a1, a2, "actions differ between the tiers");
    assert_eq!(o1, o2, "objects differ between the tiers");
    assert_eq!(c1, c2);
    assert_eq!(
        worker["actions"]["archive"]["parameters"][0]["name"],
        "email_id"
    );
    // A read still runs on the page the worker analyses.
    let (status, resp) = nspd
        .act(&json!({"pid": app.pid, "action": "read_text", "parameters": {"selector": "#unread-count"}}))
        .await
        .expect("read");
    assert_eq!(status, 200, "{resp}");
    assert_eq!(resp["raw_return"], "3");
    assert!(demo.backend().events().is_empty());
}

/// A page under the worker's size that "navigates" in place every 45 ms, so that each
/// batch of changes is a full analysis (`fixtures/hostile/busy.html`): its analyses take
/// the worker more than its share, and it moves to a probe of its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_that_keeps_the_worker_busy_moves_to_its_own_probe() {
    let demo = DemoServer::start(DemoOptions::default())
        .await
        .expect("demo app");
    let url = demo.url("/hostile/busy.html");
    let (nspd, app) = open(&url, 0.0).await;
    let moved = wait_state(&nspd, app.pid, TAB_TIMEOUT, |s| {
        s["probe_metadata"]["probe_tier"] == "wasm_in_page"
    })
    .await;
    let records = moved["probe_metadata"]["element_count"]
        .as_u64()
        .unwrap_or(0);
    assert!(
        records > 3000 && records <= 4000,
        "moved for its time, not its size: {records} records"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dom_change_reaches_the_daemon_as_changed_keys() {
    let demo = DemoServer::start(DemoOptions::default())
        .await
        .expect("demo app");
    // The page flips its build status by itself 10 s after loading. Its buttons are
    // ambiguous ("Cancel build"), so its confidence stays below 0.95, which is right.
    let url = demo.url("/pages/live.html?after=10000");
    let (nspd, app) = open(&url, 0.5).await;
    let before = state(&nspd, app.pid).await;
    assert_eq!(before["objects"]["build.status"], "running", "{before:#}");
    assert_eq!(before["objects"]["build.tests_passed"], 0);
    assert!(before["actions"]["cancel_build"].is_object());

    let after = wait_state(&nspd, app.pid, Duration::from_secs(20), |s| {
        s["objects"]["build.status"] == "passed"
    })
    .await;
    assert_ne!(after["capture_id"], before["capture_id"]);
    assert_eq!(after["objects"]["build.tests_passed"], 128);
    // The buttons swapped: the hidden one is gone from the actions, the shown one is there.
    assert!(
        after["actions"]["cancel_build"].is_null(),
        "{:#}",
        after["actions"]
    );
    assert!(
        after["actions"]["retry_build"].is_object(),
        "{:#}",
        after["actions"]
    );

    let (status, diff) = nspd
        .get(&format!("/substrate/v1/diff/{}", app.pid))
        .await
        .expect("diff");
    assert_eq!(status, 200, "{diff}");
    let changed: Vec<&str> = diff["diff"]
        .as_array()
        .expect("diff list")
        .iter()
        .filter_map(|d| d["path"].as_str())
        .collect();
    assert!(changed.contains(&"build.status"), "{diff:#}");
    assert!(changed.contains(&"build.tests_passed"), "{diff:#}");
    assert!(
        !changed.contains(&"buildwatch.heading"),
        "unchanged keys are not in the diff: {diff:#}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typed_passwords_and_card_numbers_never_reach_objects() {
    let demo = DemoServer::start(DemoOptions::default())
        .await
        .expect("demo app");
    let url = demo.url("/pages/secrets.html");
    let (nspd, app) = open(&url, 0.95).await;
    let password = "hunter2-Orchid-77";
    let card = "4111 1111 1111 1111";
    // No autocomplete hint and an innocent name: only the value says it is a card.
    let backup = "5555555555554444";
    let cvc = "737";
    let (status, resp) = nspd
        .act(&json!({"pid": app.pid, "action": "save_payment",
                    "parameters": {"password": password, "cardnumber": card, "backup": backup, "cvc": cvc, "note": "for Q4"},
                    "verify_expression": "billing.status == 'Saved'"}),
        )
        .await
        .expect("action");
    assert_eq!(status, 200, "{resp}");

    let (status, fresh) = nspd
        .get(&format!("/substrate/v1/state/{}?fresh=true", app.pid))
        .await
        .expect("fresh state");
    assert_eq!(status, 200, "{fresh}");
    let text = fresh.to_string();
    for secret in [password, card, "4111111111111111", backup, "hunter2"] {
        assert!(
            !text.contains(secret),
            "{secret:?} leaked into the state: {fresh:#}"
        );
    }
    let objects = &fresh["objects"];
    // Only whether each secret is filled: not its value, not its length.
    for key in ["password", "cardnumber", "backup", "cvc"] {
        assert_eq!(
            objects[format!("payment.{key}_filled")],
            true,
            "{key}: {objects:#}"
        );
    }
    for (key, value) in objects.as_object().expect("objects") {
        assert!(!key.ends_with("_length"), "{key} = {value}");
    }
    assert!(objects.get("payment.cvc").is_none() && objects.get("payment.password").is_none());
    // Ordinary fields are still reported.
    assert_eq!(objects["payment.note"], "for Q4");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webmcp_tools_are_discovered_and_run_in_the_page() {
    let demo = DemoServer::start(DemoOptions::default())
        .await
        .expect("demo app");
    let url = demo.url("/pages/webmcp.html");
    let (nspd, app) = open(&url, 0.95).await;
    let s = state(&nspd, app.pid).await;
    assert_eq!(s["actions"]["get_menu"]["reversibility"], "read");
    assert_eq!(
        s["actions"]["place_order"]["reversibility"],
        "irreversible_write"
    );
    assert_eq!(
        s["actions"]["add_to_basket"]["internal_target"],
        "webmcp:add_to_basket"
    );
    assert_eq!(s["objects"]["basket.count"], 0);

    let (status, resp) = nspd
        .act(
            &json!({"pid": app.pid, "action": "add_to_basket", "parameters": {"pizza": "diavola"},
                    "verify_expression": "basket.count == 1"}),
        )
        .await
        .expect("action");
    assert_eq!(status, 200, "{resp}");
    assert_eq!(resp["raw_return"], json!({"count": 1}));
    let (status, resp) = nspd
        .act(&json!({"pid": app.pid, "action": "get_menu", "parameters": {}}))
        .await
        .expect("action");
    assert_eq!(status, 200, "{resp}");
    assert_eq!(resp["raw_return"]["pizzas"][1]["id"], "diavola");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn history_and_hash_navigation_make_new_captures() {
    let demo = DemoServer::start(DemoOptions::default())
        .await
        .expect("demo app");
    let url = demo.url("/pages/spa.html");
    let (nspd, app) = open(&url, 0.95).await;
    let before = state(&nspd, app.pid).await;
    assert_eq!(before["context"]["view"], "/pages/spa.html");

    let (status, resp) = nspd
        .act(&json!({"pid": app.pid, "action": "open_reports", "parameters": {}}))
        .await
        .expect("action");
    assert_eq!(status, 200, "{resp}");
    let reports = wait_state(&nspd, app.pid, Duration::from_secs(10), |s| {
        s["context"]["url"]
            .as_str()
            .is_some_and(|u| u.ends_with("?view=reports"))
    })
    .await;
    assert_eq!(reports["objects"]["view.title"], "Reports");
    assert_eq!(reports["context"]["view"], "/pages/spa.html");

    let (status, resp) = nspd
        .act(&json!({"pid": app.pid, "action": "open_settings", "parameters": {}}))
        .await
        .expect("action");
    assert_eq!(status, 200, "{resp}");
    let settings = wait_state(&nspd, app.pid, Duration::from_secs(10), |s| {
        s["context"]["view"] == "/pages/spa.html#settings"
    })
    .await;
    assert_eq!(settings["objects"]["view.title"], "Settings");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn starring_a_row_flips_a_boolean_whose_key_stays() {
    let demo = DemoServer::start(DemoOptions::default())
        .await
        .expect("demo app");
    let url = demo.url("/pages/mail.html");
    let (nspd, app) = open(&url, 0.95).await;
    let before = state(&nspd, app.pid).await;
    let objects = &before["objects"];
    assert_eq!(objects["inbox.threads[0].starred"], false, "{objects:#}");
    assert_eq!(objects["inbox.threads[2].starred"], true, "{objects:#}");
    // The folder counter is named by its folder, not its position.
    assert_eq!(objects["folders.inbox.count"], 2, "{objects:#}");

    let (status, resp) = nspd
        .act(&json!({"pid": app.pid, "action": "star",
                    "parameters": {"thread_id": "t-101"},
                    "verify_expression": "inbox.threads[0].starred == true"}))
        .await
        .expect("action");
    assert_eq!(status, 200, "{resp}");
    assert_eq!(resp["verification"]["passed"], true, "{resp:#}");

    let after = wait_state(&nspd, app.pid, TAB_TIMEOUT, |s| {
        s["objects"]["inbox.threads[0].starred"] == true
    })
    .await;
    let keys = |s: &Value| -> Vec<String> {
        s["objects"]
            .as_object()
            .expect("objects")
            .keys()
            .cloned()
            .collect()
    };
    assert_eq!(
        keys(&before),
        keys(&after),
        "starring changes a value, not keys"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nspds_probe_settings_reach_the_probe() {
    let demo = DemoServer::start(DemoOptions::default())
        .await
        .expect("demo app");
    let url = demo.url("/pages/mail.html");
    // A cap far below the page's 40-odd keys: only the configured probe obeys it.
    let (nspd, app) = nsp_tests::open_tab_with_env(&url, 0.95, &[("NSP_PROBE__MAX_OBJECTS", "5")])
        .await
        .expect("the tab's probe settles");
    let s = wait_state(&nspd, app.pid, TAB_TIMEOUT, |s| {
        s["objects"].as_object().is_some_and(|o| o.len() == 5)
    })
    .await;
    let meta = &s["probe_metadata"];
    assert_eq!(meta["objects_truncated"], true, "{meta:#}");
    assert!(
        meta["raw_object_count"].as_u64().unwrap_or(0) > 5,
        "{meta:#}"
    );
    assert_eq!(meta["filtered_object_count"], 5, "{meta:#}");
}

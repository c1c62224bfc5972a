//! A page that stops the probe, end to end: the real nspd, headless Chromium with a copy
//! of the built extension, and the fixture app in two tabs.
//!
//! The extension's worker runs one instance of the probe's WebAssembly for every tab. A
//! trap in it (a panic on something a page wrote, memory run out on a page too big, a
//! stack overflow) stops the wasm mid-call: what the call allocated is never freed, its
//! shadow stack is not unwound, the tab's probe stays borrowed. No page is known to
//! cause one (the probe is fuzzed: `probe-wasm/tests/hostile_input.rs`), so this test
//! makes one the way a trap happens: the copy's probe module, while it analyses a page
//! whose URL carries a marker, grows the wasm's memory by 64 MiB (what an allocation
//! that ran memory out leaves behind) and throws `WebAssembly.RuntimeError` from inside
//! the analysis (from the clock it imports), so the wasm's frames are abandoned as a
//! trap abandons them. What must hold:
//! - the page that stopped it gets an error state saying so, and nothing runs there:
//!   an action on it is refused with no write;
//! - every other tab goes on, on a new instance (the old one's memory is gone): the
//!   other tab's irreversible action runs and writes exactly once;
//! - the tab that stopped it is read again once it loads another page.

use std::path::Path;
use std::time::Duration;

use nsp_fixtures::{DemoOptions, DemoServer, EventKind};
use nsp_protocol::api::AppSummary;
use nsp_protocol::{ProbeStatus, EXTENSION_CHANNEL_PATH, EXTENSION_ID};
use nsp_tests::faults::Cdp;
use nsp_tests::webdriver::copy_dir;
use nsp_tests::{extension_dir, fresh_data_dir, Nspd, WebDriver, WebDriverOptions};
use serde_json::{json, Value};

const TAB_TIMEOUT: Duration = Duration::from_secs(60);
/// In the URL of the page the copy's probe stops on.
const MARKER: &str = "nsp-test-trap";
/// What the stop leaves in the wasm's memory.
const GROWN: u64 = 64 << 20;

/// The built extension, copied to `to`, with its probe module stopping on `MARKER`.
fn extension_that_traps(to: &Path) {
    copy_dir(&extension_dir().expect("built extension"), to).expect("copy the extension");
    let glue = to.join("probe/nsp_probe.js");
    let mut text = std::fs::read_to_string(&glue).expect("the probe's module");
    let mut patch = |anchor: &str, with: &str| {
        assert_eq!(
            text.matches(anchor).count(),
            1,
            "wasm-bindgen's output changed: `{anchor}` is not in nsp_probe.js once; update this test"
        );
        text = text.replace(anchor, with);
    };
    let analyse = "ret = wasm.probe_analyze(this.__wbg_ptr, ptr0, len0);";
    patch(
        analyse,
        &format!("globalThis.__nspTestStop = snapshot_json.includes({MARKER:?}); {analyse}"),
    );
    let clock = "const ret = performance.now();";
    patch(
        clock,
        &format!(
            "if (globalThis.__nspTestStop) {{ globalThis.__nspTestStop = false; \
             wasm.memory.grow({}); throw new WebAssembly.RuntimeError('unreachable'); }} {clock}",
            GROWN >> 16
        ),
    );
    std::fs::write(&glue, text).expect("write the probe's module");
}

async fn tab(nspd: &Nspd, what: &str, pred: impl Fn(&AppSummary) -> bool) -> AppSummary {
    nspd.wait_for_app(TAB_TIMEOUT, pred)
        .await
        .unwrap_or_else(|e| panic!("{what}: {e:#}"))
}

/// The worker's probe: its tabs and the bytes of its wasm memory.
async fn worker_probe(cdp: &mut Cdp) -> Value {
    cdp.eval_in(
        "service_worker",
        &format!("chrome-extension://{EXTENSION_ID}/"),
        "globalThis.nspProbeStats()",
    )
    .await
    .expect("the worker's probe")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_that_stops_the_probe_is_refused_and_every_other_tab_goes_on() {
    let demo = DemoServer::start(DemoOptions::default())
        .await
        .expect("demo app");
    let backend = demo.backend();
    let nspd = Nspd::serve(0, fresh_data_dir().expect("tempdir")).expect("nspd");
    let copy = tempfile::Builder::new()
        .prefix("nsp-probe-stops-")
        .tempdir()
        .expect("tempdir");
    extension_that_traps(copy.path());
    let browser = WebDriver::start(&WebDriverOptions {
        extension: Some(copy.path().to_owned()),
        daemon_ws_url: Some(format!(
            "ws://127.0.0.1:{}{EXTENSION_CHANNEL_PATH}",
            nspd.port()
        )),
        ..WebDriverOptions::default()
    })
    .await
    .expect("chromedriver with the extension");
    let mut cdp = Cdp::connect(&browser.devtools_ws_url().await.expect("DevTools URL"))
        .await
        .expect("DevTools");

    let good = demo.url("/confirm");
    browser.goto(&good).await.expect("open the page");
    let a = tab(&nspd, "the first tab", |a| {
        a.probe_status == ProbeStatus::Active
            && a.has_state
            && a.current_url.as_deref() == Some(good.as_str())
    })
    .await;

    // The page that stops the probe, in a second tab.
    let bad = demo.url(&format!("/confirm?{MARKER}"));
    cdp.call("Target.createTarget", json!({"url": bad}), None)
        .await
        .expect("open a second tab");
    let b = tab(&nspd, "the tab that stopped the probe", |b| {
        b.probe_status == ProbeStatus::Error && b.current_url.as_deref() == Some(bad.as_str())
    })
    .await;
    let why = b.probe_message.clone().unwrap_or_default();
    assert!(why.contains("the probe stopped while it read it"), "{b:?}");
    assert!(!b.has_state, "{b:?}");

    // Nothing runs there.
    let (status, body) = nspd
        .act(
            &json!({"pid": b.pid, "action": "delete_forever", "parameters": {},
                     "verify_expression": "prev.reports.deleted_count != reports.deleted_count"}),
        )
        .await
        .expect("act on the tab that stopped the probe");
    assert_eq!(body["code"], "probe_not_ready", "{status} {body}");
    let message = body["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("probe status: error") && message.contains("navigate or reload"),
        "says why, and what to do: {body}"
    );

    // The other tab goes on, read by a new instance: fresh means a new capture, which
    // finds the old instance's probe gone and sends a full snapshot.
    let (status, state) = nspd
        .get(&format!("/substrate/v1/state/{}?fresh=true", a.pid))
        .await
        .expect("state");
    assert_eq!(status, 200, "{state}");
    assert_eq!(
        state["actions"]["delete_forever"]["reversibility"], "irreversible_write",
        "{state}"
    );
    let stats = worker_probe(&mut cdp).await;
    let bytes = stats["wasm_bytes"].as_u64().unwrap_or(0);
    assert!(
        bytes > 0 && bytes < GROWN,
        "the worker still reads tabs with the instance that stopped: {stats}"
    );
    let (status, body) = nspd
        .act(
            &json!({"pid": a.pid, "action": "delete_forever", "parameters": {},
                     "verify_expression": "prev.reports.deleted_count != reports.deleted_count"}),
        )
        .await
        .expect("act on the other tab");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["verification"]["passed"], true, "{body}");
    let events = backend.wait_for_events(2, Duration::from_millis(500)).await;
    assert_eq!(
        events.len(),
        1,
        "exactly one write, on the good tab: {events:?}"
    );
    assert_eq!(events[0].kind, EventKind::Delete);

    // The tab that stopped it, on another page, is read again.
    let home = demo.url("/");
    cdp.eval_in_page(&bad, &format!("location.href = {home:?}; true"))
        .await
        .expect("navigate the second tab");
    tab(&nspd, "the second tab on another page", |t| {
        t.pid == b.pid
            && t.probe_status == ProbeStatus::Active
            && t.has_state
            && t.current_url.as_deref() == Some(home.as_str())
    })
    .await;
}

//! Pages that were open before the extension started, end to end: headless Chromium
//! (driven by chromedriver, with no extension at first), the built extension loaded into
//! it later over the DevTools protocol (`Extensions.loadUnpacked`, as installing it from
//! the store would), the real nspd and the fixture apps.
//!
//! Chromium runs an extension's manifest content scripts only in documents loaded after
//! the extension, so without the worker's join (worker/join.js) such a tab is invisible
//! to nspd until the person reloads it. What must hold:
//! - a page loaded before the extension was installed becomes a tab nspd gates and
//!   dispatches to, and a `confirm()` its action raises is answered by NSP (the late
//!   page world is paired): exactly one write at the app's backend;
//! - a page the extension was removed and installed again under (what an update or a
//!   reload does: the old scripts are left behind, and page-world.js with them) is
//!   joined again, and the WebMCP tools the page registered before still reach nspd and
//!   run once.

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

/// nspd (no browser of its own), and a browser without the extension whose DevTools may
/// load and remove unpacked extensions.
struct Rig {
    demo: DemoServer,
    nspd: Nspd,
    browser: WebDriver,
    cdp: Cdp,
    /// The copy of the built extension the browser loads, with nspd's address in it.
    extension: tempfile::TempDir,
}

impl Rig {
    async fn start() -> Rig {
        let demo = DemoServer::start(DemoOptions::default())
            .await
            .expect("demo app");
        let nspd = Nspd::serve(0, fresh_data_dir().expect("tempdir")).expect("nspd");
        let extension = tempfile::Builder::new()
            .prefix("nsp-joined-late-")
            .tempdir()
            .expect("tempdir");
        copy_dir(&extension_dir().expect("built extension"), extension.path())
            .expect("copy the extension");
        let config = json!({
            "daemon_url": format!("ws://127.0.0.1:{}{EXTENSION_CHANNEL_PATH}", nspd.port())
        });
        std::fs::write(extension.path().join("nsp-config.json"), config.to_string())
            .expect("nsp-config.json");
        let browser = WebDriver::start(&WebDriverOptions {
            extra_args: vec!["--enable-unsafe-extension-debugging".into()],
            ..WebDriverOptions::default()
        })
        .await
        .expect("chromedriver without the extension");
        let cdp = Cdp::connect(&browser.devtools_ws_url().await.expect("DevTools URL"))
            .await
            .expect("DevTools");
        Rig {
            demo,
            nspd,
            browser,
            cdp,
            extension,
        }
    }

    /// Installs the extension, as the store would.
    async fn install(&mut self) {
        let path = self.extension.path();
        let loaded = self
            .cdp
            .call(
                "Extensions.loadUnpacked",
                json!({"path": path_text(path)}),
                None,
            )
            .await
            .expect("Extensions.loadUnpacked");
        assert_eq!(loaded["id"], EXTENSION_ID, "the manifest's key names it");
    }

    /// The tab at `url`, once nspd has it active with a state.
    async fn tab(&self, url: &str) -> AppSummary {
        self.nspd
            .wait_for_app(TAB_TIMEOUT, |a| {
                a.probe_status == ProbeStatus::Active
                    && a.has_state
                    && a.current_url.as_deref() == Some(url)
            })
            .await
            .expect("nspd has the tab")
    }

    async fn state(&self, pid: u64) -> Value {
        let (status, body) = self
            .nspd
            .get(&format!("/substrate/v1/state/{pid}?fresh=true"))
            .await
            .expect("state");
        assert_eq!(status, 200, "{body}");
        body
    }
}

fn path_text(p: &Path) -> String {
    p.to_str().expect("a UTF-8 temporary path").to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_loaded_before_the_extension_was_installed_is_joined_and_acted_on_once() {
    let mut rig = Rig::start().await;
    let backend = rig.demo.backend();
    let url = rig.demo.url("/confirm");
    rig.browser.goto(&url).await.expect("open the page");
    // Nothing of ours ran in it.
    let before = rig
        .cdp
        .eval_in_page(&url, "Boolean(window.__nspPageWorld)")
        .await
        .expect("eval");
    assert_eq!(before, json!(false));

    rig.install().await;
    let app = rig.tab(&url).await;
    let state = rig.state(app.pid).await;
    assert_eq!(
        state["actions"]["delete_forever"]["reversibility"], "irreversible_write",
        "{state}"
    );

    // Its handler asks confirm() before it writes: the page world, paired late, lets
    // NSP answer it for an irreversible action sent with its check.
    let (status, body) = rig
        .nspd
        .act(
            &json!({"pid": app.pid, "action": "delete_forever", "parameters": {},
                     "verify_expression": "prev.reports.deleted_count != reports.deleted_count"}),
        )
        .await
        .expect("delete forever");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["verification"]["passed"], true, "{body}");
    assert_eq!(body["dialogs"][0]["accepted"], true, "{body}");
    let events = backend.wait_for_events(2, Duration::from_millis(500)).await;
    assert_eq!(events.len(), 1, "exactly one write: {events:?}");
    assert_eq!(events[0].kind, EventKind::Delete);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_the_extension_was_reinstalled_under_keeps_its_webmcp_tools() {
    let mut rig = Rig::start().await;
    rig.install().await;
    let url = rig.demo.url("/pages/webmcp.html");
    rig.browser.goto(&url).await.expect("open the page");
    let first = rig.tab(&url).await;
    let state = rig.state(first.pid).await;
    assert_eq!(
        state["actions"]["get_menu"]["reversibility"], "read",
        "{state}"
    );

    // Removed and installed again under the page, as an update or a reload does: the
    // old content scripts and page-world.js stay behind.
    rig.cdp
        .call("Extensions.uninstall", json!({"id": EXTENSION_ID}), None)
        .await
        .expect("Extensions.uninstall");
    rig.install().await;
    // A new browser session to nspd (the extension's session storage went with it).
    let app = rig
        .nspd
        .wait_for_app(TAB_TIMEOUT, |a| {
            a.pid != first.pid
                && a.probe_status == ProbeStatus::Active
                && a.has_state
                && a.current_url.as_deref() == Some(url.as_str())
        })
        .await
        .expect("nspd has the tab again");
    let state = rig.state(app.pid).await;
    // Registered by the page as it loaded, under the extension since removed: the old
    // page world, paired with the new isolated world, sent them again.
    assert_eq!(
        state["actions"]["add_to_basket"]["internal_target"], "webmcp:add_to_basket",
        "{state}"
    );

    let (status, body) = rig
        .nspd
        .act(
            &json!({"pid": app.pid, "action": "add_to_basket", "parameters": {"pizza": "diavola"},
                    "verify_expression": "basket.count == 1"}),
        )
        .await
        .expect("add to basket");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["raw_return"], json!({"count": 1}), "{body}");
    // The page's own basket: the tool ran once, not once per set of scripts.
    let count = rig
        .cdp
        .eval_in_page(&url, "document.getElementById('basket-count').textContent")
        .await
        .expect("eval");
    assert_eq!(count, json!("1"));
}

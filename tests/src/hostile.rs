//! The hostile-page suite's harness (`tests/tests/hostile.rs`): one real nspd and one
//! headless Chromium with the built extension per attack class, each case on a page of
//! `fixtures/hostile/` in a tab of its own, served by a Demo Mail server of its own so
//! that the server's log of writes ([`Writes`]) holds exactly what that case's page did.
//!
//! The log is the ground truth: an attack test asserts from it, never from what nspd or
//! the extension answer, that nothing the agent did not ask for happened. What nspd
//! answers is asserted too (a refusal's code), but second.

use std::path::Path;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use nsp_fixtures::{DemoOptions, DemoServer, Write, Writes};
use serde_json::{json, Value};

use crate::{
    extension_dir, fresh_data_dir, open_tab_from_popup, popup_url, Nspd, NspdOptions, WebDriver,
    WebDriverOptions,
};

/// How long a tab's probe may take to become active.
const TAB_TIMEOUT: Duration = Duration::from_secs(60);

/// How long a write the page started has to reach the backend before a test may say
/// that none came. Writes are `fetch`es started inside the click, on loopback: they
/// arrive in milliseconds; this is the bound, not the expected time.
pub const QUIET: Duration = Duration::from_millis(400);

/// nspd as the suite runs it: nobody at the browser to ask (a refusal is a refusal,
/// never a held question), and no rate limit in the way of a quick run of refusals.
const SUITE_ENV: &[(&str, &str)] = &[
    ("NSP_GATE__ASK_PERSON", "never"),
    ("NSP_RATE_LIMIT__ACTIONS_PER_SEC", "1000"),
    ("NSP_RATE_LIMIT__STATE_READS_PER_SEC", "10000"),
];

/// nspd and its browser, shared by the cases of one attack class.
#[derive(Debug)]
pub struct Suite {
    pub nspd: Nspd,
    /// The chromedriver-driven browser the cases open tabs in; `None` when nspd
    /// launched its own browser on one page ([`Suite::launch_logged`]).
    browser: Option<WebDriver>,
    /// The popup's window handle, which the cases' tabs are opened from.
    popup: Option<Value>,
}

/// One case's page: its own server (and log of writes), its tab, and nspd's pid for it.
#[derive(Debug)]
pub struct Tab {
    pub demo: DemoServer,
    pub tab_id: i64,
    pub pid: u64,
    pub url: String,
}

impl Suite {
    /// Starts nspd (no browser of its own) and a chromedriver-driven headless Chromium
    /// with the built extension pointed at it, showing the extension's popup page, from
    /// which the cases open their tabs.
    pub async fn start() -> Result<Suite> {
        let nspd = Nspd::serve_with_env(0, fresh_data_dir()?, SUITE_ENV).context("nspd")?;
        let browser = WebDriver::start(&WebDriverOptions {
            extension: Some(extension_dir()?),
            daemon_ws_url: Some(format!(
                "ws://127.0.0.1:{}/substrate/v1/extension",
                nspd.port()
            )),
            window_size: Some((1000, 900)),
            ..WebDriverOptions::default()
        })
        .await
        .context("chromedriver with the extension")?;
        browser.goto(&popup_url()).await.context("open the popup")?;
        let popup = browser.window().await.context("the popup's window")?;
        Ok(Suite {
            nspd,
            browser: Some(browser),
            popup: Some(popup),
        })
    }

    /// For a class that searches nspd's own log: serves `fixtures/hostile/` from a new
    /// server and has nspd launch its own headless browser on `path`, with nspd's log
    /// (debug level) written to `log`. Returns the suite and the page's tab once its
    /// probe is active.
    pub async fn launch_logged(path: &str, log: &Path) -> Result<(Suite, Tab)> {
        let demo = DemoServer::start(DemoOptions::default())
            .await
            .context("a server for the page")?;
        let url = demo.url(path);
        let nspd = Nspd::launch_logged(
            &NspdOptions {
                url: url.clone(),
                headless: true,
            },
            log,
        )
        .context("nspd with its browser")?;
        let app = nspd
            .wait_for_app(TAB_TIMEOUT, |a| {
                a.probe_status == nsp_protocol::ProbeStatus::Active
                    && a.current_url.as_deref() == Some(url.as_str())
            })
            .await
            .with_context(|| format!("open {url}"))?;
        let tab = Tab {
            demo,
            tab_id: 0,
            pid: app.pid,
            url,
        };
        Ok((
            Suite {
                nspd,
                browser: None,
                popup: None,
            },
            tab,
        ))
    }

    /// Serves `fixtures/hostile/` from a new server and opens `path` on it (e.g.
    /// `/hostile/swap.html?on=capture`) in a new tab in front, once its probe is active.
    pub async fn open(&self, path: &str) -> Result<Tab> {
        let browser = self
            .browser
            .as_ref()
            .context("this suite's nspd has its own browser: open pages with launch_logged")?;
        let demo = DemoServer::start(DemoOptions::default())
            .await
            .context("a server for the page")?;
        let url = demo.url(path);
        self.to_popup(browser).await?;
        let (tab_id, app) = open_tab_from_popup(browser, &self.nspd, &url, true, TAB_TIMEOUT)
            .await
            .with_context(|| format!("open {url}"))?;
        Ok(Tab {
            demo,
            tab_id,
            pid: app.pid,
            url,
        })
    }

    /// Closes a case's tab (its server stops when the `Tab` drops).
    pub async fn close(&self, tab: Tab) {
        // A tab that is already gone is closed enough; a launched browser's one page
        // closes with nspd.
        if let Some(browser) = &self.browser {
            let _ = self.to_popup(browser).await;
            let _ = browser
                .eval(
                    "await chrome.tabs.remove(args[0]); return true;",
                    json!([tab.tab_id]),
                )
                .await;
        }
        tab.demo.shutdown().await;
    }

    /// Runs `body` (an async function body; `args` are its arguments) in the page of
    /// `tab`, in the page's own world, as the page itself could. The browser's window
    /// stays the tab's afterwards, so that what the page started is still running
    /// when the case's next request reaches it: [`Suite::open`] and [`Suite::close`]
    /// go back to the popup's window themselves.
    pub async fn in_page(&self, tab: &Tab, body: &str, args: Value) -> Result<Value> {
        let browser = self
            .browser
            .as_ref()
            .context("this suite's nspd has its own browser: no window to switch to")?;
        let skip = self.popup.clone().unwrap_or(Value::Null);
        if !browser.switch_to_page(&tab.url, &skip).await? {
            bail!("no window shows {}", tab.url);
        }
        browser.eval(body, args).await
    }

    /// Points the browser's window at the popup again (after [`Suite::in_page`]).
    async fn to_popup(&self, browser: &WebDriver) -> Result<()> {
        if let Some(popup) = &self.popup {
            browser
                .switch_to(popup)
                .await
                .context("back to the popup's window")?;
        }
        Ok(())
    }

    /// The tab's latest state.
    pub async fn state(&self, tab: &Tab) -> Value {
        let (status, body) = self
            .nspd
            .get(&format!("/substrate/v1/state/{}", tab.pid))
            .await
            .expect("GET /state");
        assert_eq!(status, 200, "{body}");
        body
    }

    /// A fresh capture of the tab.
    pub async fn fresh_state(&self, tab: &Tab) -> Value {
        let (status, body) = self
            .nspd
            .get(&format!("/substrate/v1/state/{}?fresh=true", tab.pid))
            .await
            .expect("GET /state?fresh");
        assert_eq!(status, 200, "{body}");
        body
    }

    /// `POST /action` on the tab with `body`'s fields (the pid is added); returns the
    /// status code and the body.
    pub async fn act(&self, tab: &Tab, mut body: Value) -> (u16, Value) {
        body["pid"] = json!(tab.pid);
        let (status, answer) = self.nspd.act(&body).await.expect("POST /action");
        (status.as_u16(), answer)
    }
}

impl Tab {
    pub fn writes(&self) -> Writes {
        self.demo.hostile()
    }

    /// Every write of this tab's page, after waiting [`QUIET`] for one more than
    /// `expected` to arrive (so a write the page started is not missed).
    pub async fn settled_writes(&self, expected: usize) -> Vec<Write> {
        self.writes().wait_for(expected + 1, QUIET).await
    }
}

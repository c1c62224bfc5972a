//! The toolbar popup and the badge, end to end: headless Chromium driven by chromedriver
//! loads the built extension pointed at a real nspd, opens pages of the demo app in tabs
//! of its own, and the extension's `popup.html` (opened in a tab of the same browser)
//! must show what nspd knows about each of them: the daemon connection, the probe tier,
//! the confidence and the actions by tier. The badge of each tab is read back with
//! `chrome.action.getBadge*` from the popup page. nspd is the ground truth; then nspd
//! stops and the popup and badges must say so.
//!
//! The browser is not launched by nspd (`nspd run --launch` closes its browser when it
//! exits): chromedriver owns it, so it outlives the daemon.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use nsp_fixtures::{DemoOptions, DemoServer};
use nsp_protocol::builtins;
use nsp_tests::{
    extension_dir, fresh_data_dir, open_tab_from_popup, popup_url, Nspd, WebDriver,
    WebDriverOptions,
};
use serde::Deserialize;
use serde_json::json;

const TAB_TIMEOUT: Duration = Duration::from_secs(60);
const RENDER_TIMEOUT: Duration = Duration::from_secs(30);

/// One row of the popup's tab table, as rendered.
#[derive(Debug, Clone, PartialEq, Deserialize)]
struct PopupRow {
    tier: String,
    confidence: String,
    confidence_class: String,
    counts: String,
}

/// What the popup shows.
#[derive(Debug, Clone, Deserialize)]
struct PopupView {
    connection: String,
    connection_class: String,
    daemon_url: String,
    /// By the page's URL (the page cell's tooltip).
    rows: BTreeMap<String, PopupRow>,
}

/// A tab's action badge, read back from the browser.
#[derive(Debug, Clone, PartialEq, Deserialize)]
struct Badge {
    text: String,
    color: Vec<u8>,
    title: String,
}

const READ_POPUP: &str = r##"
const conn = document.getElementById("connection");
const rows = {};
for (const tr of document.querySelectorAll("#tabs tbody tr")) {
  rows[tr.cells[0].title] = {
    tier: tr.cells[1].textContent,
    confidence: tr.cells[2].textContent,
    confidence_class: tr.cells[2].className,
    counts: tr.cells[3].textContent,
  };
}
return { connection: conn.textContent, connection_class: conn.className, daemon_url: conn.title, rows };
"##;

const READ_BADGES: &str = r#"
const out = {};
for (const tabId of args[0]) {
  out[tabId] = {
    text: await chrome.action.getBadgeText({ tabId }),
    color: await chrome.action.getBadgeBackgroundColor({ tabId }),
    title: await chrome.action.getTitle({ tabId }),
  };
}
return out;
"#;

async fn read_popup(browser: &WebDriver) -> Result<PopupView> {
    Ok(serde_json::from_value(
        browser.eval(READ_POPUP, json!([])).await?,
    )?)
}

async fn read_badges(browser: &WebDriver, tabs: &[i64]) -> Result<BTreeMap<i64, Badge>> {
    let v = browser.eval(READ_BADGES, json!([tabs])).await?;
    let map: BTreeMap<String, Badge> = serde_json::from_value(v)?;
    Ok(map
        .into_iter()
        .filter_map(|(k, b)| Some((k.parse().ok()?, b)))
        .collect())
}

/// A tab opened from the popup page: the browser's tab id and nspd's pid for it.
#[derive(Debug)]
struct Tab {
    url: String,
    tab_id: i64,
    pid: u64,
    /// `in page` or `extension`, what nspd must report.
    tier: &'static str,
}

/// What nspd's state for a tab says the popup row and the badge must show.
#[derive(Debug)]
struct Expected {
    row: PopupRow,
    confidence: f64,
    by_tier: [usize; 3],
}

const GREEN: [u8; 4] = [0x1e, 0x7e, 0x34, 255];
const AMBER: [u8; 4] = [0xb2, 0x6a, 0x00, 255];
const RED: [u8; 4] = [0xb0, 0x00, 0x20, 255];
const GREY: [u8; 4] = [0x77, 0x77, 0x77, 255];

async fn expected(nspd: &Nspd, tab: &Tab) -> Result<Expected> {
    let (status, state) = nspd
        .get(&format!("/substrate/v1/state/{}", tab.pid))
        .await?;
    if status != 200 {
        bail!("GET /state/{} answered {status}: {state}", tab.pid);
    }
    let tier = match state["probe_metadata"]["probe_tier"].as_str() {
        Some("wasm_in_page") => "in page",
        Some("wasm_extension") => "extension",
        other => bail!("tab {} has no probe tier in nspd: {other:?}", tab.url),
    };
    let confidence = state["confidence"]
        .as_f64()
        .context("state without confidence")?;
    let settled = state["probe_metadata"]["settled"].as_bool() != Some(false);
    // Actions by tier, the page's own: the generic builtins every tab lists are not.
    let mut by_tier = [0usize; 3];
    for (name, action) in state["actions"]
        .as_object()
        .context("state without actions")?
    {
        if builtins::NAMES.contains(&name.as_str()) {
            continue;
        }
        match action["reversibility"].as_str() {
            Some("read") => by_tier[0] += 1,
            Some("reversible_write") => by_tier[1] += 1,
            Some("irreversible_write") => by_tier[2] += 1,
            other => bail!("action {name} has tier {other:?}"),
        }
    }
    let class = if confidence >= 0.95 {
        "good"
    } else if confidence >= 0.8 {
        "mid"
    } else {
        "low"
    };
    Ok(Expected {
        row: PopupRow {
            tier: tier.to_owned(),
            confidence: format!(
                "{confidence:.2}{}",
                if settled { "" } else { " (settling)" }
            ),
            confidence_class: class.to_owned(),
            counts: format!("{} / {} / {}", by_tier[0], by_tier[1], by_tier[2]),
        },
        confidence,
        by_tier,
    })
}

/// The badge rule of worker/badge.js: the confidence in percent, coloured by the gate's floors
/// while connected, grey while not.
fn expected_badge(e: &Expected, connected: bool) -> (String, [u8; 4]) {
    let text = format!("{}", (e.confidence * 100.0).round() as i64);
    let color = if !connected {
        GREY
    } else if e.confidence >= 0.95 {
        GREEN
    } else if e.confidence >= 0.8 {
        AMBER
    } else {
        RED
    };
    (text, color)
}

/// Checks the rendered popup and the badges against nspd; `Err` says what differs.
fn compare(
    tabs: &[Tab],
    expected: &[Expected],
    view: &PopupView,
    badges: &BTreeMap<i64, Badge>,
    connected: bool,
) -> std::result::Result<(), String> {
    let mut problems = Vec::new();
    let (pill, class) = if connected {
        ("connected to nspd", "pill ok")
    } else {
        ("nspd not connected", "pill off")
    };
    if view.connection != pill || view.connection_class != class {
        problems.push(format!(
            "connection pill {:?} ({:?}), want {pill:?} ({class:?})",
            view.connection, view.connection_class
        ));
    }
    for (tab, e) in tabs.iter().zip(expected) {
        if e.row.tier != tab.tier {
            problems.push(format!(
                "nspd says {} runs the probe {:?}, the test wants {:?}",
                tab.url, e.row.tier, tab.tier
            ));
        }
        if connected {
            match view.rows.get(&tab.url) {
                None => problems.push(format!("no popup row for {}", tab.url)),
                Some(row) if *row != e.row => problems.push(format!(
                    "popup row for {}: {row:?}, nspd says {:?}",
                    tab.url, e.row
                )),
                Some(_) => {}
            }
        }
        let (text, color) = expected_badge(e, connected);
        let Some(badge) = badges.get(&tab.tab_id) else {
            problems.push(format!("no badge read for tab {}", tab.tab_id));
            continue;
        };
        if badge.text != text || badge.color != color {
            problems.push(format!(
                "badge of {}: {:?} {:?}, want {text:?} {color:?} (confidence {})",
                tab.url, badge.text, badge.color, e.confidence
            ));
        }
        let tier_words = if tab.tier == "in page" {
            "probe: in the page"
        } else {
            "probe: in the extension"
        };
        let counts = format!(
            "({} read, {} reversible, {} irreversible)",
            e.by_tier[0], e.by_tier[1], e.by_tier[2]
        );
        let conn_words = if connected {
            "NSP — connected to nspd\n"
        } else {
            "NSP — nspd not connected\n"
        };
        if !badge.title.starts_with(conn_words)
            || !badge.title.contains(tier_words)
            || !badge.title.contains(&counts)
        {
            problems.push(format!(
                "badge title of {}: {:?}, want {conn_words:?}, {tier_words:?} and {counts:?}",
                tab.url, badge.title
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

/// Re-reads the popup (live: it refreshes itself) and the badges until they agree with
/// nspd's state (`nspd`: `None` when it is gone, then its last answer stands), or fails
/// after `timeout` with the differences.
async fn wait_agree(
    browser: &WebDriver,
    nspd: Option<&Nspd>,
    tabs: &[Tab],
    last: &mut Vec<Expected>,
    timeout: Duration,
) -> (PopupView, BTreeMap<i64, Badge>) {
    let ids: Vec<i64> = tabs.iter().map(|t| t.tab_id).collect();
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(nspd) = nspd {
            let mut fresh = Vec::new();
            for tab in tabs {
                fresh.push(expected(nspd, tab).await.expect("nspd's state"));
            }
            *last = fresh;
        }
        let view = read_popup(browser).await.expect("reading the popup");
        let badges = read_badges(browser, &ids)
            .await
            .expect("reading the badges");
        match compare(tabs, last, &view, &badges, nspd.is_some()) {
            Ok(()) => return (view, badges),
            Err(problems) => assert!(
                Instant::now() < deadline,
                "the popup and badges do not show what nspd knows after {timeout:?}:\n\
                 {problems}\npopup: {view:#?}\nbadges: {badges:#?}"
            ),
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_popup_and_badge_show_what_nspd_knows_and_when_it_is_gone() {
    let demo = DemoServer::start(DemoOptions::default())
        .await
        .expect("demo app");
    let data_dir = fresh_data_dir().expect("tempdir");
    let mut nspd = Nspd::serve(0, data_dir).expect("nspd");
    let ws_url = format!("ws://127.0.0.1:{}/substrate/v1/extension", nspd.port());
    // Headless Chromium with the built extension naming this nspd.
    let browser = WebDriver::start(&WebDriverOptions {
        extension: Some(extension_dir().expect("built extension")),
        daemon_ws_url: Some(ws_url.clone()),
        window_size: None,
        ..WebDriverOptions::default()
    })
    .await
    .expect("chromedriver with the extension");

    // The demo app (its probe in the extension's worker, as every page of ordinary
    // size), the same app under a CSP that forbids WebAssembly in the page, a page the
    // probe cannot understand well (low confidence, another badge colour), and the demo
    // app too big to share the worker (a probe of its own, in the page).
    let pages = [
        (demo.url("/"), "extension"),
        (demo.url("/?csp=strict"), "extension"),
        (demo.url("/pages/div-soup.html"), "extension"),
        (demo.url("/?pad=4500"), "in page"),
    ];
    browser.goto(&popup_url()).await.expect("open the popup");
    let mut tabs = Vec::new();
    for (url, tier) in pages {
        let (tab_id, app) = open_tab_from_popup(&browser, &nspd, &url, true, TAB_TIMEOUT)
            .await
            .expect("the tab's probe is active in nspd");
        tabs.push(Tab {
            url,
            tab_id,
            pid: app.pid,
            tier,
        });
    }

    // Opened afresh, the popup shows each tab as nspd knows it, and so do the badges.
    browser.goto(&popup_url()).await.expect("reopen the popup");
    let mut last = Vec::new();
    let (view, _) = wait_agree(&browser, Some(&nspd), &tabs, &mut last, RENDER_TIMEOUT).await;
    assert_eq!(view.daemon_url, ws_url);
    assert_eq!(
        view.rows.len(),
        tabs.len(),
        "one row per page with a probe: {view:#?}"
    );
    // The pages differ where it matters: the badge colours are not all one rule.
    assert!(
        last.iter().any(|e| e.confidence >= 0.95) && last.iter().any(|e| e.confidence < 0.8),
        "the pages should span the confidence bands: {last:#?}"
    );
    assert!(
        (0..3).all(|i| last.iter().any(|e| e.by_tier[i] > 0)),
        "the pages should offer actions of every tier: {last:#?}"
    );

    // An agent's action shows under the popup's recent actions, with its outcome.
    let (status, resp) = nspd
        .act(&json!({"pid": tabs[0].pid, "action": "mark_read", "parameters": {"email_id": "e1"}}))
        .await
        .expect("mark_read");
    assert_eq!(status, 200, "{resp}");
    let want = format!("tab {}: mark_read — done", tabs[0].tab_id);
    let deadline = Instant::now() + RENDER_TIMEOUT;
    loop {
        let recent = browser
            .eval(
                "return Array.from(document.querySelectorAll('#recent li'), (li) => li.textContent);",
                json!([]),
            )
            .await
            .expect("reading the recent actions");
        let items: Vec<String> = serde_json::from_value(recent).expect("a list of strings");
        if items.iter().any(|i| i.contains(&want)) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the popup's recent actions never showed {want:?}: {items:#?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    wait_agree(&browser, Some(&nspd), &tabs, &mut last, RENDER_TIMEOUT).await;

    // nspd goes away: the open popup notices by itself, a reopened one too, and the
    // badges turn grey (their text stays the last confidence).
    nspd.stop();
    wait_agree(&browser, None, &tabs, &mut last, RENDER_TIMEOUT).await;
    browser.goto(&popup_url()).await.expect("reopen the popup");
    wait_agree(&browser, None, &tabs, &mut last, RENDER_TIMEOUT).await;
}

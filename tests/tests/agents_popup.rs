//! Several agents in one browser, as the person sees them, end to end: two agents made
//! with `nspd agents add` (alpha with `--tabs own`, beta with `--tabs shared`), a real
//! nspd, headless Chromium driven by chromedriver with the built extension, and the
//! extension's `popup.html` opened as a tab, where the test plays the person.
//!
//! In order, one browser: each agent opens a tab (`POST /substrate/v1/tabs`) and Chrome
//! shows two tab groups titled by the agents' names, in different colours, each with the
//! agent's tab; the popup lists both agents (a screenshot is taken); the approval card
//! names the agent that asks; sharing alpha's tab with beta from the popup makes it exist
//! for beta, and stopping makes it go again; a tab taken out of its agent's group
//! (`chrome.tabs.ungroup`, what dragging it out does) after a service-worker restart no
//! longer exists for that agent;
//! and Revoke in the popup makes the agent's next request 401 within a second (a
//! script's click on it does nothing).

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hyper::{Method, StatusCode};
use nsp_fixtures::{DemoOptions, DemoServer};
use nsp_protocol::EXTENSION_ID;
use nsp_tests::faults::Cdp;
use nsp_tests::{
    extension_dir, fresh_data_dir, nspd_bin, popup_url, workspace_root, Nspd, WebDriver,
    WebDriverOptions,
};
use serde_json::{json, Value};

const TAB_TIMEOUT: Duration = Duration::from_secs(60);
const RENDER_TIMEOUT: Duration = Duration::from_secs(20);
/// The issue's bound: a revoked agent's next request is refused within a second.
const REVOKE_BOUND: Duration = Duration::from_secs(1);

/// `nspd agents add NAME --data-dir DIR ARGS...`; returns the agent's key, read from the
/// key file whose path the command prints (it never prints the key).
fn add_agent(data_dir: &Path, name: &str, args: &[&str]) -> String {
    let out = std::process::Command::new(nspd_bin().expect("nspd"))
        .args(["agents", "add", name, "--data-dir"])
        .arg(data_dir)
        .args(args)
        .output()
        .expect("run nspd agents add");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "nspd agents add {name}: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let path = stdout.trim();
    let key = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("the key file {path:?} the command printed: {e}"))
        .trim()
        .to_owned();
    assert!(
        !key.is_empty() && !stdout.contains(&key),
        "the command printed the key"
    );
    key
}

/// Re-evaluates `script` in the popup page until `done` accepts its value, or fails
/// after `timeout` saying `what` with the last value.
async fn wait_eval(
    browser: &WebDriver,
    script: &str,
    args: Value,
    what: &str,
    timeout: Duration,
    done: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = Instant::now() + timeout;
    loop {
        let v = browser.eval(script, args.clone()).await.expect(what);
        if done(&v) {
            return v;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: not after {timeout:?}: {v:#}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The pids of the tabs that exist for the agent with `key`.
async fn pids_for(nspd: &Nspd, key: &str) -> Vec<u64> {
    let (status, list) = nspd
        .request_as(key, Method::GET, "/substrate/v1/apps", None)
        .await
        .expect("GET /apps");
    assert_eq!(status, StatusCode::OK, "{list}");
    list["apps"]
        .as_array()
        .expect("apps")
        .iter()
        .filter_map(|a| a["pid"].as_u64())
        .collect()
}

/// Waits until the tabs that exist for the agent with `key` satisfy `done`.
async fn wait_pids(nspd: &Nspd, key: &str, what: &str, done: impl Fn(&[u64]) -> bool) {
    let deadline = Instant::now() + RENDER_TIMEOUT;
    loop {
        let pids = pids_for(nspd, key).await;
        if done(&pids) {
            return;
        }
        assert!(Instant::now() < deadline, "{what}: the agent sees {pids:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Clicks the popup's button at `css`, looked up again if the popup redrew it between
/// finding and clicking.
async fn click(browser: &WebDriver, css: &str) {
    let mut last = String::new();
    for _ in 0..5 {
        let button = browser.find(css).await.expect(css);
        match browser.click(&button).await {
            Ok(_) => return,
            Err(e) if e.to_string().contains("stale element") => last = e.to_string(),
            Err(e) => panic!("click {css}: {e}"),
        }
    }
    panic!("click {css}: the button went stale five times: {last}");
}

/// The browser's tab groups, with their tabs: `[{title, color, tabs: [id]}]`.
const GROUPS: &str = r#"
const out = [];
for (const g of await chrome.tabGroups.query({})) {
  const tabs = (await chrome.tabs.query({ groupId: g.id })).map((t) => t.id);
  out.push({ title: g.title, color: g.color, tabs });
}
return out;
"#;

/// The popup brought to the front of its window again (an agent's new tab is active).
const TO_FRONT: &str =
    "const me = await chrome.tabs.getCurrent(); await chrome.tabs.update(me.id, { active: true }); return me.id;";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_agents_get_tab_groups_the_popup_shows_shares_and_revokes_them() {
    let demo = DemoServer::start(DemoOptions::default())
        .await
        .expect("demo app");
    let origin = demo.url("/").trim_end_matches('/').to_owned();
    let data_dir = fresh_data_dir().expect("tempdir");
    let alpha = add_agent(
        data_dir.path(),
        "alpha",
        &["--origins", &origin, "--tabs", "own"],
    );
    let beta = add_agent(
        data_dir.path(),
        "beta",
        &[
            "--origins",
            &origin,
            "--max-tier",
            "read",
            "--tabs",
            "shared",
        ],
    );
    let nspd = Nspd::serve_with_env(
        0,
        data_dir,
        &[
            ("NSP_GATE__ASK_PERSON", "below_floor"),
            ("NSP_GATE__APPROVAL_TIMEOUT_MS", "20000"),
        ],
    )
    .expect("nspd");
    let nspd = Arc::new(nspd);
    let ws_url = format!("ws://127.0.0.1:{}/substrate/v1/extension", nspd.port());
    let browser = WebDriver::start(&WebDriverOptions {
        extension: Some(extension_dir().expect("built extension")),
        daemon_ws_url: Some(ws_url),
        window_size: Some((900, 1000)),
        ..WebDriverOptions::default()
    })
    .await
    .expect("chromedriver with the extension");
    browser.goto(&popup_url()).await.expect("open the popup");
    // The popup connected the worker to nspd before the agents open tabs.
    wait_eval(
        &browser,
        "return document.getElementById('connection').textContent;",
        json!([]),
        "the popup says nspd is connected",
        TAB_TIMEOUT,
        |v| v == "connected to nspd",
    )
    .await;

    // --- (1) each agent opens a tab: two tab groups, titled and coloured per agent -----
    // alpha opens two: the second goes into the group the first made.
    let mut pids = Vec::new();
    for (key, path) in [(&beta, "/"), (&alpha, "/"), (&alpha, "/unsure")] {
        let (status, opened) = nspd
            .request_as(
                key,
                Method::POST,
                "/substrate/v1/tabs",
                Some(&json!({"url": demo.url(path)})),
            )
            .await
            .expect("POST /tabs");
        assert_eq!(status, StatusCode::OK, "{opened}");
        pids.push(opened["tab"]["pid"].as_u64().expect("the new tab's pid"));
    }
    let (beta_pid, alpha_inbox, alpha_pid) = (pids[0], pids[1], pids[2]);
    let groups = wait_eval(
        &browser,
        GROUPS,
        json!([]),
        "two tab groups, one per agent, each with its tabs",
        RENDER_TIMEOUT,
        |v| {
            let gs = v.as_array().map(Vec::as_slice).unwrap_or_default();
            gs.len() == 2
                && [("alpha", 2), ("beta", 1)].iter().all(|(name, n)| {
                    gs.iter().any(|g| {
                        g["title"] == *name && g["tabs"].as_array().is_some_and(|t| t.len() == *n)
                    })
                })
        },
    )
    .await;
    let group = |name: &str| -> &Value {
        groups
            .as_array()
            .and_then(|gs| gs.iter().find(|g| g["title"] == name))
            .expect("the group")
    };
    assert_ne!(
        group("alpha")["color"],
        group("beta")["color"],
        "the agents' groups have one colour: {groups:#}"
    );
    // Which of alpha's tabs is /unsure: the worker's status has each tab's URL.
    let alpha_tab = browser
        .eval(
            "const s = await chrome.runtime.sendMessage({ type: 'popup_status' }); \
             return s.tabs.find((t) => t.url === args[0]).tab_id;",
            json!([demo.url("/unsure")]),
        )
        .await
        .expect("the worker's status")
        .as_i64()
        .expect("alpha's /unsure tab id");
    assert!(
        group("alpha")["tabs"]
            .as_array()
            .expect("tabs")
            .contains(&json!(alpha_tab)),
        "alpha's /unsure tab is not in its group: {groups:#}"
    );
    let beta_tab = group("beta")["tabs"][0].as_i64().expect("beta's tab id");
    // With their tab scopes, neither sees the other's tab.
    let mut mine = pids_for(&nspd, &alpha).await;
    mine.sort_unstable();
    assert_eq!(mine, vec![alpha_inbox, alpha_pid]);
    assert_eq!(pids_for(&nspd, &beta).await, vec![beta_pid]);
    // An action of alpha's, for the popup's last actions.
    let (status, done) = nspd
        .request_as(
            &alpha,
            Method::POST,
            "/substrate/v1/action",
            Some(&json!({"pid": alpha_inbox, "action": "mark_read", "parameters": {"email_id": "e1"}})),
        )
        .await
        .expect("mark_read");
    assert_eq!(status, StatusCode::OK, "{done}");

    // --- (2) the popup lists both agents --------------------------------------------------
    // alpha's tab was used last: the popup's "current tab" when the popup is a tab itself.
    browser
        .eval(
            "await chrome.tabs.update(args[0], { active: true });",
            json!([alpha_tab]),
        )
        .await
        .expect("activate alpha's tab");
    browser
        .eval(TO_FRONT, json!([]))
        .await
        .expect("popup to the front");
    browser.goto(&popup_url()).await.expect("reopen the popup");
    let shown = wait_eval(
        &browser,
        r#"return Array.from(document.querySelectorAll('#agents .agent'), (a) => ({
             name: a.dataset.agent,
             chip: a.querySelector('.chip').style.background,
             text: a.textContent,
           }));"#,
        json!([]),
        "the popup lists both agents with their tabs and alpha's last action",
        RENDER_TIMEOUT,
        |v| {
            let list = v.as_array().map(Vec::as_slice).unwrap_or_default();
            let says = |name: &str, want: &[&str]| {
                list.iter().any(|a| {
                    a["name"] == name
                        && a["text"]
                            .as_str()
                            .is_some_and(|t| want.iter().all(|w| t.contains(w)))
                })
            };
            list.len() == 2
                && says(
                    "alpha",
                    &[
                        "owns 2 tabs",
                        "mark_read on 127.0.0.1: done",
                        "up to irreversible_write",
                    ],
                )
                && says("beta", &["owns 1 tab,", "up to read"])
        },
    )
    .await;
    let names: Vec<&str> = shown
        .as_array()
        .expect("agents")
        .iter()
        .filter_map(|a| a["name"].as_str())
        .collect();
    assert_eq!(names.len(), 2, "{shown:#}");
    assert!(
        names.contains(&"alpha") && names.contains(&"beta"),
        "{shown:#}"
    );
    assert_ne!(
        shown[0]["chip"], shown[1]["chip"],
        "one chip colour: {shown:#}"
    );
    for a in shown.as_array().expect("agents") {
        let text = a["text"].as_str().unwrap_or_default();
        assert!(text.contains("Revoke"), "no Revoke button: {text}");
    }
    let body = browser.find("body").await.expect("body");
    let png = browser.element_screenshot(&body).await.expect("screenshot");
    assert!(png.starts_with(b"\x89PNG"), "not a PNG");
    // docs/agents-popup.png is this screenshot: refreshed in the repository with
    // UPDATE_SCREENSHOT=1 (or UPDATE_EXPECT=1), otherwise left in target/ for a look (a
    // test run does not change tracked files).
    std::fs::write(workspace_root().join("target/agents-popup.png"), &png)
        .expect("save the screenshot");
    if std::env::var_os("UPDATE_SCREENSHOT").is_some()
        || std::env::var_os("UPDATE_EXPECT").is_some()
    {
        std::fs::write(workspace_root().join("docs/agents-popup.png"), &png)
            .expect("save the screenshot in docs/");
    }

    // --- (5) the approval card names the agent that asks ---------------------------------
    // zap, an irreversible write the probe is unsure of: alpha's question goes to the person.
    let asking = {
        let (nspd, key) = (nspd.clone(), alpha.clone());
        let zap = json!({"pid": alpha_pid, "action": "zap", "verify_expression": "changed(count)"});
        tokio::spawn(async move {
            nspd.request_as(&key, Method::POST, "/substrate/v1/action", Some(&zap))
                .await
                .expect("alpha's zap")
        })
    };
    let what = wait_eval(
        &browser,
        "const w = document.querySelector('#approvals .card .what'); return w ? w.textContent : null;",
        json!([]),
        "the approval card appears",
        RENDER_TIMEOUT,
        |v| v.is_string(),
    )
    .await;
    assert!(
        what.as_str()
            .is_some_and(|w| w.starts_with("alpha asks to run ") && w.contains("zap")),
        "the card does not name the agent: {what}"
    );
    click(&browser, "#approvals .card .deny").await;
    let (status, body) = asking.await.expect("alpha's zap");
    assert_eq!(status, StatusCode::FORBIDDEN, "denied: {body}");
    // The answered card leaves the popup above the share rows, which move up with it: a
    // click aimed before that redraw lands on whatever took the button's place.
    wait_eval(
        &browser,
        "return document.querySelector('#approvals .card') ? null : true;",
        json!([]),
        "the answered card leaves the popup",
        RENDER_TIMEOUT,
        |v| v == &json!(true),
    )
    .await;

    // --- (4) sharing from the popup, and ungrouping ---------------------------------------
    let share_tab = wait_eval(
        &browser,
        "const s = document.getElementById('share'); return s.hidden ? null : Number(s.dataset.tabId);",
        json!([]),
        "the popup offers to share the current tab",
        RENDER_TIMEOUT,
        |v| v.is_number(),
    )
    .await;
    assert_eq!(share_tab, json!(alpha_tab), "the current tab is alpha's");
    click(&browser, "#share .share-row[data-agent='beta'] button").await;
    wait_pids(
        &nspd,
        &beta,
        "alpha's tab shared with beta exists for beta",
        |p| p.contains(&alpha_pid),
    )
    .await;
    let stop = wait_eval(
        &browser,
        "const b = document.querySelector(\"#share .share-row[data-agent='beta'] button\"); return b && !b.disabled ? b.textContent : null;",
        json!([]),
        "the popup offers to stop sharing",
        RENDER_TIMEOUT,
        |v| v == "Stop sharing",
    )
    .await;
    assert_eq!(stop, "Stop sharing");
    click(&browser, "#share .share-row[data-agent='beta'] button").await;
    wait_pids(
        &nspd,
        &beta,
        "a tab no longer shared is gone for beta",
        |p| !p.contains(&alpha_pid),
    )
    .await;
    // Taken out of its group, beta's own tab is beta's no more; also when the service
    // worker restarted meanwhile (it remembers its groups' tabs in storage.session).
    let mut cdp = Cdp::connect(&browser.devtools_ws_url().await.expect("DevTools URL"))
        .await
        .expect("DevTools");
    cdp.stop_service_worker(&format!("chrome-extension://{EXTENSION_ID}/"))
        .await
        .expect("stop the worker");
    browser
        .eval("await chrome.tabs.ungroup(args[0]);", json!([beta_tab]))
        .await
        .expect("ungroup beta's tab");
    wait_pids(
        &nspd,
        &beta,
        "an ungrouped tab is gone for its agent",
        |p| !p.contains(&beta_pid),
    )
    .await;
    assert_eq!(pids_for(&nspd, &alpha).await.len(), 2);

    // --- (3) Revoke in the popup: the agent's next request is 401 within a second --------
    // A script's click (untrusted) on beta's Revoke does nothing: had it sent anything, it
    // went over the popup's port before alpha's revocation, and beta would be refused too.
    // The popup draws its list again once the restarted worker answers: wait for it.
    wait_eval(
        &browser,
        "return ['alpha', 'beta'].every((a) => document.querySelector(`#agents .agent[data-agent='${a}'] .revoke`) !== null);",
        json!([]),
        "both agents' Revoke buttons",
        Duration::from_secs(10),
        |v| v == &json!(true),
    )
    .await;
    browser
        .eval(
            "document.querySelector(\"#agents .agent[data-agent='beta'] .revoke\").click();",
            json!([]),
        )
        .await
        .expect("a script's click");
    click(&browser, "#agents .agent[data-agent='alpha'] .revoke").await;
    let clicked = Instant::now();
    loop {
        let (status, body) = nspd
            .request_as(&alpha, Method::GET, "/substrate/v1/apps", None)
            .await
            .expect("GET /apps");
        if status == StatusCode::UNAUTHORIZED {
            break;
        }
        assert_eq!(status, StatusCode::OK, "{body}");
        assert!(
            clicked.elapsed() < REVOKE_BOUND,
            "alpha still answered {status} {:?} after Revoke",
            clicked.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    eprintln!(
        "revoked from the popup: refused after {:?}",
        clicked.elapsed()
    );
    // beta goes on (pids_for asserts 200), and the popup no longer lists alpha.
    assert_eq!(pids_for(&nspd, &beta).await, Vec::<u64>::new());
    wait_eval(
        &browser,
        "return Array.from(document.querySelectorAll('#agents .agent'), (a) => a.dataset.agent);",
        json!([]),
        "the popup drops the revoked agent",
        RENDER_TIMEOUT,
        |v| *v == json!(["beta"]),
    )
    .await;
}

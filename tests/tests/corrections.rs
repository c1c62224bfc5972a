//! Corrections that stick, end to end: headless Chromium (driven by chromedriver) with
//! the built extension, a real nspd and the demo mail app, whose backend is the ground
//! truth. An agent's `/learn` that would loosen an action is 403 and changes nothing; a
//! stricter one reaches the probe (the tab's state shows the stricter tier or lower
//! confidence, its explanation says who corrected it) and the gate then asks for what
//! the stricter action needs, with nothing reaching the backend. A person's correction
//! made in the popup (opened as a tab) persists across an nspd restart, and
//! `nspd corrections remove` undoes it while nspd runs.

use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use nsp_fixtures::{DemoOptions, DemoServer, EventKind};
use nsp_protocol::ProbeStatus;
use nsp_tests::{
    corrections_cli, extension_dir, fresh_data_dir, open_tab_from_popup, popup_url, Nspd,
    WebDriver, WebDriverOptions,
};
use serde_json::{json, Value};

const TAB_TIMEOUT: Duration = Duration::from_secs(60);
const APPLY_TIMEOUT: Duration = Duration::from_secs(30);

fn action<'a>(state: &'a Value, name: &str) -> &'a Value {
    &state["actions"][name]
}

/// What the popup's corrections part knows (from the service worker): the stored
/// corrections and each tab's actions with their `corrected` explain lines.
async fn popup_status(browser: &WebDriver) -> Result<Value> {
    browser
        .eval(
            "return await chrome.runtime.sendMessage({ type: 'corrections_status' });",
            json!([]),
        )
        .await
}

/// The explain lines of `name` on the tab at `origin`, as the popup shows them.
async fn corrected_lines(browser: &WebDriver, origin: &str, name: &str) -> Result<Vec<String>> {
    let s = popup_status(browser).await?;
    for t in s["tabs"].as_array().into_iter().flatten() {
        if t["origin"] != origin {
            continue;
        }
        for a in t["actions"].as_array().into_iter().flatten() {
            if a["name"] == name {
                return Ok(serde_json::from_value(a["corrected"].clone())?);
            }
        }
    }
    bail!("no action {name} on {origin} in the popup: {s}")
}

async fn wait_corrected_line(browser: &WebDriver, origin: &str, name: &str, needle: &str) {
    let deadline = Instant::now() + APPLY_TIMEOUT;
    loop {
        let lines = corrected_lines(browser, origin, name)
            .await
            .unwrap_or_default();
        if lines.iter().any(|l| l.contains(needle)) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the explanation of {name} never said {needle:?}: {lines:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Clicks a control of the popup's corrections part (the page's own DOM, as a person
/// would), waiting until it is rendered.
async fn popup_click(browser: &WebDriver, script: &str, args: Value) {
    let deadline = Instant::now() + APPLY_TIMEOUT;
    loop {
        let done = browser
            .eval(script, args.clone())
            .await
            .expect("popup script");
        if done == json!(true) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the popup never offered the control: {done}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

const SET_TIER: &str = r#"
const [origin, action, tier] = args;
const row = Array.from(document.querySelectorAll("tr.correct-action"))
  .find((r) => r.dataset.origin === origin && r.dataset.action === action);
if (!row) return document.getElementById("corrections").textContent.slice(0, 300);
row.querySelector("select.correct-tier").value = tier;
row.querySelector("button.correct-apply").click();
return true;
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn corrections_tighten_for_agents_stick_for_the_person_and_come_off_with_the_cli() {
    let demo = DemoServer::start(DemoOptions::default())
        .await
        .expect("demo app");
    let backend = demo.backend();
    let origin = format!("http://{}", demo.addr());
    let mut nspd = Nspd::serve(0, fresh_data_dir().expect("tempdir")).expect("nspd");
    let port = nspd.port();
    let browser = WebDriver::start(&WebDriverOptions {
        extension: Some(extension_dir().expect("built extension")),
        daemon_ws_url: Some(format!("ws://127.0.0.1:{port}/substrate/v1/extension")),
        window_size: None,
        ..WebDriverOptions::default()
    })
    .await
    .expect("chromedriver with the extension");
    browser.goto(&popup_url()).await.expect("open the popup");
    let url = demo.url("/");
    let (tab_id, app) = open_tab_from_popup(&browser, &nspd, &url, true, TAB_TIMEOUT)
        .await
        .expect("the demo's probe is active");
    let pid = app.pid;
    let before = nspd
        .wait_state(pid, "archive and mark_read", APPLY_TIMEOUT, |s| {
            s["actions"]["archive"].is_object() && s["actions"]["mark_read"].is_object()
        })
        .await;
    assert_eq!(
        action(&before, "archive")["reversibility"],
        "reversible_write"
    );
    assert_eq!(
        action(&before, "send_email")["reversibility"],
        "irreversible_write"
    );
    let email = before["objects"]["inbox.emails[0].id"]
        .as_str()
        .expect("an email id")
        .to_owned();
    let corrections_file = nspd.data_dir.path().join("corrections.json");

    // An agent may not loosen: lower tiers and higher confidences are 403, and nothing
    // is stored or changed.
    for body in [
        json!({"pid": pid, "action": "send_email", "reversibility": "reversible_write"}),
        json!({"pid": pid, "action": "archive", "reversibility": "read"}),
        json!({"pid": pid, "action": "archive", "confidence": 1.0}),
    ] {
        let (status, resp) = nspd
            .post("/substrate/v1/learn", &body)
            .await
            .expect("learn");
        assert_eq!(status, 403, "{body}: {resp}");
        assert_eq!(resp["code"], "forbidden", "{resp}");
    }
    assert!(
        !corrections_file.exists(),
        "a refused /learn stored something"
    );
    let (_, now) = nspd
        .get(&format!("/substrate/v1/state/{pid}"))
        .await
        .expect("state");
    for name in ["send_email", "archive"] {
        assert_eq!(action(&now, name), action(&before, name), "{name} changed");
    }

    // Stricter: archive becomes irreversible, mark_read's confidence drops.
    let (status, resp) = nspd
        .post(
            "/substrate/v1/learn",
            &json!({"pid": pid, "action": "archive", "reversibility": "irreversible_write"}),
        )
        .await
        .expect("learn");
    assert_eq!(status, 200, "{resp}");
    let (status, resp) = nspd
        .post(
            "/substrate/v1/learn",
            &json!({"pid": pid, "action": "mark_read", "confidence": 0.5}),
        )
        .await
        .expect("learn");
    assert_eq!(status, 200, "{resp}");
    let after = nspd
        .wait_state(pid, "the agent's corrections", APPLY_TIMEOUT, |s| {
            s["actions"]["archive"]["reversibility"] == "irreversible_write"
                && s["actions"]["mark_read"]["confidence"].as_f64() == Some(0.5)
        })
        .await;
    assert_eq!(
        action(&after, "mark_read")["reversibility"],
        "reversible_write"
    );
    wait_corrected_line(&browser, &origin, "archive", "corrected by an agent (key ").await;

    // The gate now asks for what the stricter tier needs, and nothing reaches the app.
    let (status, resp) = nspd
        .act(&json!({"pid": pid, "action": "archive", "parameters": {"email_id": email}}))
        .await
        .expect("act");
    assert_eq!(
        (status.as_u16(), resp["code"].as_str()),
        (400, Some("missing_verify_expression")),
        "{resp}"
    );
    let (status, resp) = nspd
        // Refused, not put to a person (nspd would ask one by default: its browser is not
        // a headless launch).
        .act(&json!({"pid": pid, "action": "mark_read", "parameters": {"email_id": email}, "approval": "never"}))
        .await
        .expect("act");
    assert_eq!(
        (status.as_u16(), resp["code"].as_str()),
        (422, Some("confidence_too_low")),
        "{resp}"
    );
    assert_eq!(backend.count(EventKind::Archive), 0);
    assert_eq!(backend.count(EventKind::MarkRead), 0);
    let learns: Vec<Value> = nspd
        .audit()
        .into_iter()
        .filter(|l| l["event"] == "learn")
        .collect();
    assert_eq!(learns.len(), 5, "{learns:#?}");

    // The person, in the popup, says delete_forever is reversible on this site (a
    // person may loosen; an agent could not).
    popup_click(
        &browser,
        SET_TIER,
        json!([origin, "delete_forever", "reversible_write"]),
    )
    .await;
    let person = nspd
        .wait_state(pid, "the person's correction", APPLY_TIMEOUT, |s| {
            s["actions"]["delete_forever"]["reversibility"] == "reversible_write"
        })
        .await;
    assert_eq!(action(&person, "delete_forever")["confidence"], 0.99);
    let stored = popup_status(&browser).await.expect("popup status");
    let date = stored["corrections"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["action"] == "delete_forever" && c["by"] == "person")
        .and_then(|c| c["created_at"].as_str())
        .map(|d| d[..10].to_owned())
        .unwrap_or_else(|| panic!("the popup does not list the correction: {stored}"));
    wait_corrected_line(
        &browser,
        &origin,
        "delete_forever",
        &format!("corrected by the person on {date}"),
    )
    .await;

    // nspd restarts on the same data dir and port: the correction is still there, in
    // the file, in what the new nspd pushes, and on a freshly loaded page.
    let data = nspd.stop_keep_data();
    let (ok, listed) = corrections_cli(&["list"], data.path());
    assert!(ok, "{listed}");
    let line = listed
        .lines()
        .find(|l| l.contains("delete_forever"))
        .unwrap_or_else(|| panic!("the person's correction is not in the file: {listed}"));
    let id = line.split_whitespace().next().expect("id").to_owned();
    nspd = Nspd::serve(port, data).expect("nspd again");
    browser
        .eval(
            "await chrome.tabs.reload(args[0]); return true;",
            json!([tab_id]),
        )
        .await
        .expect("reload the demo");
    let app = nspd
        .wait_for_app(TAB_TIMEOUT, |a| {
            a.probe_status == ProbeStatus::Active && a.current_url.as_deref() == Some(&url)
        })
        .await
        .expect("the demo again");
    let pid = app.pid;
    nspd.wait_state(
        pid,
        "the person's correction after the restart",
        APPLY_TIMEOUT,
        |s| {
            s["actions"]["delete_forever"]["reversibility"] == "reversible_write"
                && s["actions"]["archive"]["reversibility"] == "irreversible_write"
        },
    )
    .await;

    // Removed with the command line while nspd runs: the action is back as the page
    // declares it.
    let (ok, out) = corrections_cli(&["remove", &id], nspd.data_dir.path());
    assert!(ok, "{out}");
    nspd.wait_state(
        pid,
        "delete_forever without the correction",
        APPLY_TIMEOUT,
        |s| s["actions"]["delete_forever"] == before["actions"]["delete_forever"],
    )
    .await;
    let (_, listed) = corrections_cli(&["list"], nspd.data_dir.path());
    assert!(!listed.contains("delete_forever"), "{listed}");
    assert_eq!(backend.events(), Vec::new(), "nothing reached the app");
    nspd.stop();
}

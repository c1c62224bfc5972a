//! Asking the person, end to end: headless Chromium driven by chromedriver loads the
//! built extension pointed at a real nspd (`[gate] ask_person = "below_floor"`), a tab
//! shows a fixture page whose one control the probe cannot understand (it archives the
//! first inbox email on the recording backend), and the test plays the person by
//! driving the extension's `popup.html`, opened as a tab, through WebDriver. The
//! backend's event list is the ground truth of what ran.
//!
//! One browser for the whole story, in order: a card appears with the target outlined
//! and a screenshot is taken for the README; a script's click and forged runtime
//! messages from the content script's world answer nothing; a real click approves and
//! the action runs once; deny sends nothing (403); a service-worker restart while a
//! question is open still ends in one answer and one dispatch; and silence ends in 408
//! with nothing sent.

use std::sync::Arc;
use std::time::{Duration, Instant};

use nsp_fixtures::{DemoOptions, DemoServer, EventKind};
use nsp_protocol::{ProbeStatus, EXTENSION_ID};
use nsp_tests::faults::Cdp;
use nsp_tests::{
    corrections_cli, extension_dir, fresh_data_dir, open_tab_from_popup, popup_url, workspace_root,
    Nspd, WebDriver, WebDriverOptions,
};
use serde_json::{json, Value};

const TAB_TIMEOUT: Duration = Duration::from_secs(60);
const CARD_TIMEOUT: Duration = Duration::from_secs(20);
/// nspd's `approval_timeout_ms`: long enough for a worker restart, short for the
/// timeout case.
const APPROVAL_TIMEOUT_MS: u64 = 12_000;

/// The approval ids of the cards the popup shows.
async fn cards(browser: &WebDriver) -> Vec<String> {
    let v = browser
        .eval(
            "return Array.from(document.querySelectorAll('#approvals .card'), (c) => c.dataset.approvalId);",
            json!([]),
        )
        .await
        .expect("reading the cards");
    serde_json::from_value(v).expect("a list of ids")
}

/// Waits until the popup shows exactly one card; returns its approval id.
async fn wait_card(browser: &WebDriver) -> String {
    let deadline = Instant::now() + CARD_TIMEOUT;
    loop {
        let shown = cards(browser).await;
        if shown.len() == 1 {
            return shown[0].clone();
        }
        assert!(
            Instant::now() < deadline,
            "the popup never showed one approval card: {shown:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn wait_no_card(browser: &WebDriver) {
    let deadline = Instant::now() + CARD_TIMEOUT;
    while !cards(browser).await.is_empty() {
        assert!(Instant::now() < deadline, "the card never went away");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The held request: the page's one control, with the verify expression an irreversible
/// write under its floor needs: the page's "Done here" count (`count`, from its span's
/// id) changes with every archive. (A check that already holds, like `true`, is refused
/// before anyone is asked: it could not tell whether zap did anything.)
fn zap(pid: u64) -> Value {
    json!({"pid": pid, "action": "zap", "verify_expression": "changed(count)"})
}

/// The agent's `zap`, sent in the background: it waits while the person is asked.
fn zap_meanwhile(
    nspd: &Arc<Nspd>,
    pid: u64,
) -> tokio::task::JoinHandle<(hyper::StatusCode, Value)> {
    let nspd = nspd.clone();
    tokio::spawn(async move { nspd.act(&zap(pid)).await.expect("zap") })
}

/// Clicks the open card's button of `class` (`approve`, `deny`, `always`) in the popup.
/// The popup draws its cards again when the pending list changes (a new capture, a
/// timer), which can replace the button between finding and clicking it: a stale
/// reference is looked up again, a few times.
async fn answer_card(browser: &WebDriver, class: &str) {
    let mut last = String::new();
    for _ in 0..5 {
        let button = browser
            .find(&format!("#approvals .card .{class}"))
            .await
            .expect("button");
        match browser.click(&button).await {
            Ok(_) => return,
            Err(e) if e.to_string().contains("stale element") => last = e.to_string(),
            Err(e) => panic!("click {class}: {e}"),
        }
    }
    panic!("click {class}: the button went stale five times: {last}");
}

fn archives(demo: &DemoServer) -> usize {
    demo.backend().count(EventKind::Archive)
}

/// Evaluates `expression` in the extension's isolated world (its content scripts') of
/// the page at `url_prefix`, through DevTools: what a compromised or confused content
/// script could run. Returns the value, awaited.
async fn eval_in_content_world(cdp: &mut Cdp, url_prefix: &str, expression: &str) -> Value {
    let targets = cdp.targets().await.expect("targets");
    let target = targets
        .iter()
        .find(|t| {
            t["type"] == "page" && t["url"].as_str().is_some_and(|u| u.starts_with(url_prefix))
        })
        .and_then(|t| t["targetId"].as_str())
        .expect("the page's target")
        .to_owned();
    let attached = cdp
        .call(
            "Target.attachToTarget",
            json!({"targetId": target, "flatten": true}),
            None,
        )
        .await
        .expect("attach");
    let session = attached["sessionId"].as_str().expect("session").to_owned();
    cdp.events.clear();
    cdp.call("Runtime.enable", json!({}), Some(&session))
        .await
        .expect("Runtime.enable");
    // The contexts are announced as events; one more round trip makes sure all arrived.
    cdp.call(
        "Runtime.evaluate",
        json!({"expression": "1"}),
        Some(&session),
    )
    .await
    .expect("a round trip");
    let context = cdp
        .events
        .iter()
        .filter(|e| {
            e["method"] == "Runtime.executionContextCreated" && e["sessionId"] == json!(session)
        })
        .map(|e| &e["params"]["context"])
        .find(|c| {
            c["auxData"]["type"] == "isolated"
                && c["origin"]
                    .as_str()
                    .is_some_and(|o| o.contains(EXTENSION_ID))
        })
        .and_then(|c| c["id"].as_i64())
        .unwrap_or_else(|| panic!("no isolated world of the extension: {:#?}", cdp.events));
    let result = cdp
        .call(
            "Runtime.evaluate",
            json!({"expression": expression, "contextId": context, "awaitPromise": true, "returnByValue": true}),
            Some(&session),
        )
        .await
        .expect("evaluate in the content script's world");
    let _ = cdp
        .call(
            "Target.detachFromTarget",
            json!({"sessionId": session}),
            None,
        )
        .await;
    result["result"]["value"].clone()
}

/// nspd's settings for these tests: ask the person, with this `approval_timeout_ms`.
fn asking_env(timeout_ms: &str) -> [(&'static str, &str); 2] {
    [
        ("NSP_GATE__ASK_PERSON", "below_floor"),
        ("NSP_GATE__APPROVAL_TIMEOUT_MS", timeout_ms),
    ]
}

/// What each test starts from: the demo app, nspd asking the person, a browser with the
/// extension on the popup page, and `/unsure` open in a tab whose probe is active.
struct Scene {
    demo: DemoServer,
    nspd: Arc<Nspd>,
    browser: WebDriver,
    page_url: String,
    pid: u64,
}

impl Scene {
    async fn start(timeout_ms: &str) -> Scene {
        let demo = DemoServer::start(DemoOptions::default())
            .await
            .expect("demo app");
        let nspd = Nspd::serve_with_env(
            0,
            fresh_data_dir().expect("tempdir"),
            &asking_env(timeout_ms),
        )
        .expect("nspd");
        let ws_url = format!("ws://127.0.0.1:{}/substrate/v1/extension", nspd.port());
        let browser = WebDriver::start(&WebDriverOptions {
            extension: Some(extension_dir().expect("built extension")),
            daemon_ws_url: Some(ws_url),
            window_size: Some((900, 1000)),
            ..WebDriverOptions::default()
        })
        .await
        .expect("chromedriver with the extension");
        let page_url = demo.url("/unsure");
        browser.goto(&popup_url()).await.expect("open the popup");
        let (_, app) = open_tab_from_popup(&browser, &nspd, &page_url, false, TAB_TIMEOUT)
            .await
            .expect("the page's probe is active in nspd");
        let pid = app.pid;
        Scene {
            demo,
            nspd: Arc::new(nspd),
            browser,
            page_url,
            pid,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_person_approves_denies_and_ignores_held_actions_in_the_popup() {
    let timeout = APPROVAL_TIMEOUT_MS.to_string();
    let Scene {
        demo,
        nspd,
        browser,
        page_url,
        pid,
    } = Scene::start(&timeout).await;
    let mut cdp = Cdp::connect(&browser.devtools_ws_url().await.expect("DevTools URL"))
        .await
        .expect("DevTools");
    let (_, state) = nspd
        .get(&format!("/substrate/v1/state/{pid}"))
        .await
        .expect("state");
    let schema = &state["actions"]["zap"];
    assert_eq!(schema["reversibility"], "irreversible_write", "{state}");
    let confidence = schema["confidence"].as_f64().expect("confidence");
    assert!(confidence < 0.95, "zap must be under its floor: {schema}");

    // --- approve once, after attempts that must not count -----------------------------
    let agent = zap_meanwhile(&nspd, pid);
    let approval_id = wait_card(&browser).await;
    // The card says what will happen.
    let card_text = browser
        .eval(
            "return document.querySelector('#approvals .card').textContent;",
            json!([]),
        )
        .await
        .expect("card text");
    let card_text = card_text.as_str().unwrap_or_default().to_owned();
    for want in [
        "Run zap?",
        "irreversible write",
        "changed(count)",
        "agent key",
        "Approve once",
        "Deny",
        "Always allow this action on this site",
    ] {
        assert!(
            card_text.contains(want),
            "the card lacks {want:?}: {card_text}"
        );
    }
    // The action's name and the probe's lines quoting the page are shown as the page's
    // words, never in the extension's own voice.
    let quoted = browser
        .eval(
            "const card = document.querySelector('#approvals .card'); \
             return [Array.from(card.querySelectorAll('.what .page-text'), (q) => q.textContent), \
               card.querySelectorAll('.signals li').length, card.querySelectorAll('.signals li > .page-text').length];",
            json!([]),
        )
        .await
        .expect("quoted page text");
    assert_eq!(
        quoted[0],
        json!(["zap"]),
        "the action's name is not marked as page text: {quoted}"
    );
    assert_eq!(
        quoted[1], quoted[2],
        "every line of the probe's explanation is marked as page text: {quoted}"
    );
    // The target is outlined in the page.
    let outline = cdp
        .eval_in_page(&page_url, "document.getElementById('zap').style.outline")
        .await
        .expect("outline");
    assert!(
        outline.as_str().is_some_and(|o| o.contains("solid")),
        "the target is not outlined: {outline}"
    );
    // The screenshot of the real popup for the README.
    let body = browser.find("body").await.expect("body");
    let png = browser.element_screenshot(&body).await.expect("screenshot");
    assert!(png.starts_with(b"\x89PNG"), "not a PNG");
    // The README's picture is this screenshot: refreshed in the repository with
    // UPDATE_SCREENSHOT=1, otherwise left in target/ for a look (a test run does not
    // change tracked files).
    let shot = if std::env::var_os("UPDATE_SCREENSHOT").is_some() {
        workspace_root().join("docs/approval-card.png")
    } else {
        workspace_root().join("target/approval-card.png")
    };
    std::fs::write(&shot, &png).expect("save the screenshot");

    // A script's click on the button (untrusted) answers nothing.
    browser
        .eval(
            "document.querySelector('#approvals .card .approve').click(); \
             document.querySelector('#approvals .card .always').dispatchEvent(new MouseEvent('click', {bubbles: true}));",
            json!([]),
        )
        .await
        .expect("synthetic clicks");
    // Forged answers from the content scripts' world: a one-off message and the popup's
    // port name. The worker refuses both (the sender is the web page, not our page).
    let forged = eval_in_content_world(
        &mut cdp,
        &page_url,
        &format!(
            "(async () => {{ \
               let reply = 'none'; \
               try {{ reply = JSON.stringify(await chrome.runtime.sendMessage({{type: 'approval_answer', approval_id: '{approval_id}', decision: 'approve_once'}})); }} catch (e) {{ reply = 'threw: ' + e.message; }} \
               const port = chrome.runtime.connect({{name: 'nsp-popup'}}); \
               port.postMessage({{type: 'approval_answer', approval_id: '{approval_id}', decision: 'always'}}); \
               return reply; }})()"
        ),
    )
    .await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(
        !agent.is_finished(),
        "a forged or synthetic answer released the action ({forged})"
    );
    assert_eq!(
        archives(&demo),
        0,
        "nothing may run before the person answers"
    );
    assert_eq!(cards(&browser).await, vec![approval_id.clone()]);
    let refused = browser
        .eval(
            "return (await chrome.storage.session.get('refused_senders')).refused_senders || 0;",
            json!([]),
        )
        .await
        .expect("refusal count");
    assert!(
        refused.as_u64().unwrap_or(0) >= 2,
        "the worker did not refuse both forged answers: {refused} (sendMessage said {forged})"
    );

    // The person clicks Approve once: it runs once.
    answer_card(&browser, "approve").await;
    let (status, resp) = agent.await.expect("agent task");
    assert_eq!(status, 200, "{resp}");
    assert_eq!(archives(&demo), 1, "approved once: one archive");
    wait_no_card(&browser).await;
    let outline = cdp
        .eval_in_page(&page_url, "document.getElementById('zap').style.outline")
        .await
        .expect("outline");
    assert_eq!(outline, "", "the outline stays after the question closed");
    let audit = nspd.audit();
    let answered: Vec<&Value> = audit
        .iter()
        .filter(|l| l["decision"] == "approval_answered")
        .collect();
    assert_eq!(answered.len(), 1, "{audit:#?}");
    assert_eq!(answered[0]["answer"], "approve_once");
    assert_eq!(answered[0]["by"], "person");

    // --- deny ---------------------------------------------------------------------------
    let agent = zap_meanwhile(&nspd, pid);
    wait_card(&browser).await;
    answer_card(&browser, "deny").await;
    let (status, resp) = agent.await.expect("agent task");
    assert_eq!(status, 403, "{resp}");
    assert_eq!(resp["code"], "approval_denied", "{resp}");
    assert_eq!(
        archives(&demo),
        1,
        "denied: nothing more reached the backend"
    );
    wait_no_card(&browser).await;

    // --- the service worker restarts while the question is open ------------------------
    let agent = zap_meanwhile(&nspd, pid);
    let before = wait_card(&browser).await;
    cdp.stop_service_worker(&format!("chrome-extension://{EXTENSION_ID}/"))
        .await
        .expect("stop the worker");
    // The popup reconnects (waking the worker), which shows the question again from
    // chrome.storage.session and nspd's re-sent question.
    let after = wait_card(&browser).await;
    assert_eq!(before, after, "the same question after the restart");
    answer_card(&browser, "approve").await;
    let (status, resp) = agent.await.expect("agent task");
    assert_eq!(status, 200, "{resp}");
    assert_eq!(
        archives(&demo),
        2,
        "one answer, one dispatch across the restart"
    );
    let audit = nspd.audit();
    let for_this = audit
        .iter()
        .filter(|l| l["decision"] == "approval_answered" && l["approval_id"] == json!(after))
        .count();
    assert_eq!(for_this, 1, "{audit:#?}");

    // --- nobody answers -----------------------------------------------------------------
    let started = Instant::now();
    let agent = zap_meanwhile(&nspd, pid);
    wait_card(&browser).await;
    let (status, resp) = agent.await.expect("agent task");
    assert_eq!(status, 408, "{resp}");
    assert_eq!(resp["code"], "approval_timeout", "{resp}");
    assert!(started.elapsed() >= Duration::from_millis(APPROVAL_TIMEOUT_MS));
    wait_no_card(&browser).await;
    assert_eq!(
        archives(&demo),
        2,
        "timed out: nothing more reached the backend"
    );

    // The popup lists the outcomes, the worker's own included.
    let recent = browser
        .eval(
            "return Array.from(document.querySelectorAll('#recent li'), (li) => li.textContent);",
            json!([]),
        )
        .await
        .expect("recent");
    let recent: Vec<String> = serde_json::from_value(recent).expect("strings");
    assert!(
        recent.iter().any(|r| r.contains("denied by you"))
            && recent.iter().any(|r| r.contains("not answered in time")),
        "{recent:#?}"
    );

    // A tab row opens the tab's actions, by tier, with confidence and reason.
    let row = browser.find("#tabs tbody tr").await.expect("the tab's row");
    browser.click(&row).await.expect("open the tab's actions");
    let view = browser
        .eval(
            "const box = document.getElementById('tab-actions');              const group = box.querySelector('.tier-group.irreversible_write');              return { hidden: box.hidden, heading: group && group.querySelector('h3').textContent,                       item: group && group.querySelector('li[data-action=zap]').textContent };",
            json!([]),
        )
        .await
        .expect("the tab's actions");
    assert_eq!(view["hidden"], false, "{view}");
    assert_eq!(view["heading"], "irreversible write (1)", "{view}");
    let item = view["item"].as_str().unwrap_or_default();
    assert!(
        item.starts_with(&format!("zap {confidence:.2}")) && item.contains("no known verb"),
        "{view}"
    );
}

/// "Always allow this action on this site": the person's answer approves the held
/// action and stores a trusted correction, so the next identical request passes the gate
/// by itself (sent with `"approval": "never"`, it would be refused otherwise), also after
/// nspd restarts on the same data dir; `nspd corrections remove` takes it back, and the
/// same request is refused again. The backend's archive count is the ground truth.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn always_allow_sticks_across_a_restart_until_the_cli_removes_it() {
    let Scene {
        demo,
        nspd,
        browser,
        page_url,
        pid,
    } = Scene::start("30000").await;
    let port = nspd.port();
    let is_page = |a: &nsp_protocol::api::AppSummary| {
        a.probe_status == ProbeStatus::Active && a.current_url.as_deref() == Some(&page_url)
    };
    let unsure = |s: &Value| s["actions"]["zap"]["confidence"].as_f64().unwrap_or(1.0) < 0.95;
    nspd.wait_state(pid, "zap under its floor", TAB_TIMEOUT, unsure)
        .await;
    let never = |pid: u64| json!({"pid": pid, "action": "zap", "verify_expression": "changed(count)", "approval": "never"});
    let (status, refused) = nspd.act(&never(pid)).await.expect("act");
    assert_eq!(
        (status.as_u16(), refused["code"].as_str()),
        (422, Some("confidence_too_low")),
        "{refused}"
    );

    // The person answers "Always allow".
    let agent = zap_meanwhile(&nspd, pid);
    wait_card(&browser).await;
    answer_card(&browser, "always").await;
    let (status, resp) = agent.await.expect("agent task");
    assert_eq!(status, 200, "{resp}");
    assert_eq!(archives(&demo), 1);

    // The next identical request passes by itself: trusted, at declared level.
    let trusted = |s: &Value| s["actions"]["zap"]["confidence"].as_f64() == Some(0.99);
    let state = nspd
        .wait_state(pid, "zap trusted", TAB_TIMEOUT, trusted)
        .await;
    assert_eq!(
        state["actions"]["zap"]["reversibility"],
        "irreversible_write"
    );
    let (status, resp) = nspd.act(&never(pid)).await.expect("act");
    assert_eq!(status, 200, "{resp}");
    assert_eq!(archives(&demo), 2);
    let asked = nspd
        .audit()
        .iter()
        .filter(|l| l["decision"] == "approval_asked")
        .count();
    assert_eq!(asked, 1, "only the first request was put to the person");

    // nspd restarts on the same data dir and port: still trusted.
    let nspd = Arc::into_inner(nspd).expect("no other owner");
    let data = nspd.stop_keep_data();
    let (ok, listed) = corrections_cli(&["list"], data.path());
    assert!(ok, "{listed}");
    let id = listed
        .lines()
        .find(|l| l.contains("zap"))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("no stored correction for zap: {listed}"))
        .to_owned();
    let nspd = Nspd::serve_with_env(port, data, &asking_env("30000")).expect("nspd again");
    let pid = nspd
        .wait_for_app(TAB_TIMEOUT, is_page)
        .await
        .expect("the page again after the restart")
        .pid;
    nspd.wait_state(pid, "zap trusted after the restart", TAB_TIMEOUT, trusted)
        .await;
    let (status, resp) = nspd.act(&never(pid)).await.expect("act");
    assert_eq!(status, 200, "{resp}");
    assert_eq!(archives(&demo), 3);

    // The CLI removes it from the running nspd: the same request is refused again, and
    // nothing more reaches the backend.
    let (ok, out) = corrections_cli(&["remove", &id], nspd.data_dir.path());
    assert!(ok, "{out}");
    nspd.wait_state(pid, "zap back under its floor", TAB_TIMEOUT, unsure)
        .await;
    let (status, resp) = nspd.act(&never(pid)).await.expect("act");
    assert_eq!(
        (status.as_u16(), resp["code"].as_str()),
        (422, Some("confidence_too_low")),
        "{resp}"
    );
    assert_eq!(archives(&demo), 3);
}

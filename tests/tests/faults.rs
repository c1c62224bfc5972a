//! At most once and a definite answer when the channel breaks, and the stale-target guard
//! when the page moves under the agent: real Chromium, the built extension, the real
//! nspd and the demo mail app's backend as ground truth.
//!
//! How the faults are made (all real, nothing stands in for nspd or the extension):
//! - The extension reaches nspd through `ChannelRelay`, a TCP relay on loopback. Timing
//!   alone cannot put a fault "after the dispatch, before its answer": the page answers
//!   about 20 ms after it clicks. So the relay, once it has passed a dispatch to the
//!   extension, drops whole frames the extension sends back on that connection (a link
//!   dead in one direction), and the test cuts only once the page's `action_result` went
//!   into that dead link: the page really did the send and its answer is really lost.
//! - The cut (`ChannelRelay::cut`) closes both TCP sockets; nspd sees its extension
//!   connection close, the service worker sees its WebSocket close and reconnects.
//! - The worker stop uses the browser's DevTools port (`--remote-debugging-port=0`, read
//!   from `DevToolsActivePort`): `Target.closeTarget` on the service worker's target,
//!   which stops it as the Stop button of `chrome://serviceworker-internals` does. The
//!   page is held inside the action at that moment by a synchronous request from its
//!   own submit handler to the test (a slow page handler), so the stop lands between
//!   dispatch and answer every time.
//! - The reorder runs a script in the page through DevTools, as the app's own code
//!   would when it re-sorts its list.

use std::time::{Duration, Instant};

use nsp_daemon::launch::{Browser, LaunchOptions};
use nsp_fixtures::{DemoOptions, DemoServer, EventKind};
use nsp_protocol::api::AppSummary;
use nsp_protocol::{ProbeStatus, EXTENSION_CHANNEL_PATH, EXTENSION_ID};
use nsp_tests::faults::{Cdp, ChannelRelay};
use nsp_tests::{extension_dir, fresh_data_dir, Nspd};
use serde_json::{json, Value};

/// nspd (no browser of its own), the relay in front of its extension channel, and a
/// browser with the extension and a DevTools port on the demo app.
struct Rig {
    demo: DemoServer,
    nspd: Nspd,
    relay: ChannelRelay,
    browser: Browser,
    cdp: Cdp,
    app: AppSummary,
}

impl Rig {
    async fn start() -> Rig {
        let demo = DemoServer::start(DemoOptions::default())
            .await
            .expect("demo app");
        let nspd = Nspd::serve(0, fresh_data_dir().expect("tempdir")).expect("nspd");
        let relay = ChannelRelay::start(nspd.port()).await.expect("relay");
        let browser = Browser::launch_with_args(
            &LaunchOptions {
                browser: std::env::var_os("CHROME").map(Into::into),
                extension_dir: extension_dir().expect("extension"),
                headless: true,
                daemon_ws_url: format!("ws://127.0.0.1:{}{EXTENSION_CHANNEL_PATH}", relay.port()),
                url: Some(demo.url("/")),
                profiles_in: None,
            },
            &["--remote-debugging-port=0"],
        )
        .expect("browser");
        let devtools = browser
            .devtools_ws_url(Duration::from_secs(30))
            .expect("the browser wrote DevToolsActivePort");
        let cdp = Cdp::connect(&devtools).await.expect("DevTools");
        let app = wait_active(&nspd, &demo.url("/")).await;
        Rig {
            demo,
            nspd,
            relay,
            browser,
            cdp,
            app,
        }
    }
}

impl Drop for Rig {
    fn drop(&mut self) {
        self.browser.close();
    }
}

/// Waits until the demo tab is active and confident on `nspd` (after start or after a
/// reconnect).
async fn wait_active(nspd: &Nspd, url: &str) -> AppSummary {
    nspd.wait_for_app(Duration::from_secs(60), |a| {
        a.probe_status == ProbeStatus::Active
            && a.has_state
            && a.confidence >= 0.95
            && a.current_url.as_deref() == Some(url)
    })
    .await
    .expect("the demo tab is active")
}

fn send_request(pid: u64, to: &str) -> Value {
    json!({
        "pid": pid,
        "action": "send_email",
        "parameters": {"to": to, "subject": "Once", "body": "Sent at most once."},
        "verify_expression": "prev.outbox.sent_count != outbox.sent_count",
        "verify_timeout_ms": 5000
    })
}

/// The page's sent counter in a state (a number, or a numeric string).
fn sent_count(state: &Value) -> Option<f64> {
    let v = &state["objects"]["outbox.sent_count"];
    v.as_f64().or_else(|| v.as_str()?.trim().parse().ok())
}

/// Reads the tab's state afresh until `pred` holds (bounded), and returns it.
async fn wait_state(nspd: &Nspd, pid: u64, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (status, state) = nspd
            .get(&format!("/substrate/v1/state/{pid}?fresh=true"))
            .await
            .expect("state");
        if status == 200 && pred(&state) {
            return state;
        }
        assert!(
            Instant::now() < deadline,
            "{what} never held; last state ({status}): {state}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The cut comes after nspd dispatched the send, the page did it and its answer was
/// lost on the dead link. nspd waits its reconnect grace (5 s) for the answer over the
/// extension's new connection, which never brings it (the worker sent it once), then
/// the agent gets 503 `outcome_unknown` from the same nspd, well before the 30 s action
/// timeout. The backend has exactly one send, and a retry with the same
/// `Idempotency-Key` replays that answer without sending again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cut_after_dispatch_is_outcome_unknown_and_a_keyed_retry_does_not_send_again() {
    let rig = Rig::start().await;
    let backend = rig.demo.backend();
    let request = send_request(rig.app.pid, "carol@example.com");
    let key = "cut-after-dispatch-1";

    rig.relay.hold_after_next_dispatch();
    let answered = tokio::sync::Notify::new();
    let agent = {
        let answered = &answered;
        let nspd = &rig.nspd;
        let request = request.clone();
        async move {
            let started = Instant::now();
            let answer = nspd.act_idempotent(&request, key).await.expect("action");
            answered.notify_one();
            eprintln!(
                "the agent's answer after {:?}: {} {}",
                started.elapsed(),
                answer.0,
                answer.1
            );
            (answer, started.elapsed())
        }
    };
    let fault = async {
        tokio::select! {
            r = rig.relay.wait_dispatched(1, Duration::from_secs(60)) => r.expect("nspd dispatched the send"),
            () = answered.notified() => panic!("the agent was answered before anything was dispatched"),
        }
        rig.relay
            .wait_held_results(1, Duration::from_secs(30))
            .await
            .expect("the page answered into the dead link");
        rig.relay.cut();
    };
    let (((status, body, replayed), took), ()) = tokio::join!(agent, fault);
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["code"], "outcome_unknown", "{body}");
    assert!(!replayed);
    assert!(
        took < Duration::from_secs(20),
        "the agent waited {took:?}: the cut must end the wait, not the action timeout"
    );
    assert_eq!(backend.count(EventKind::Send), 1);

    // The extension reconnects through the relay; the page shows the one send.
    wait_active(&rig.nspd, &rig.demo.url("/")).await;
    wait_state(&rig.nspd, rig.app.pid, "outbox.sent_count == 1", |s| {
        sent_count(s) == Some(1.0)
    })
    .await;

    // The same key and body: the stored answer, and nothing sent.
    let (status2, body2, replayed2) = rig.nspd.act_idempotent(&request, key).await.expect("retry");
    assert_eq!(status2, 503, "{body2}");
    assert!(
        replayed2,
        "the retry was run again instead of replayed: {body2}"
    );
    assert_eq!(body2["code"], "outcome_unknown");
    assert_eq!(body2["action_id"], body["action_id"]);
    assert_eq!(backend.count(EventKind::Send), 1, "{:?}", backend.events());

    // The audit log says what happened: dispatched, then outcome unknown.
    let audit = rig.nspd.audit();
    let this: Vec<&Value> = audit
        .iter()
        .filter(|r| r["action_id"] == body["action_id"])
        .collect();
    assert!(
        this.iter().any(|r| r["decision"] == "dispatched")
            && this
                .iter()
                .any(|r| r["decision"] == "completed" && r["result"] == "outcome_unknown"),
        "{this:?}"
    );
}

/// A one-shot HTTP endpoint the page calls synchronously from inside the action: while
/// the request is open the page (and the content script running the action, which
/// shares its thread) is held mid-action. Says when the request arrived; answers when
/// released.
async fn page_gate() -> (
    u16,
    tokio::sync::oneshot::Receiver<()>,
    tokio::sync::oneshot::Sender<()>,
) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let (arrived_tx, arrived) = tokio::sync::oneshot::channel();
    let (release, released) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        let Ok((mut conn, _)) = listener.accept().await else {
            return;
        };
        let mut head = Vec::new();
        let mut buf = [0u8; 4096];
        while !head.windows(4).any(|w| w == b"\r\n\r\n") {
            match conn.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => head.extend_from_slice(&buf[..n]),
            }
        }
        let _ = arrived_tx.send(());
        let _ = released.await;
        let _ = conn
            .write_all(b"HTTP/1.1 200 OK\r\nAccess-Control-Allow-Origin: *\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
            .await;
    });
    (port, arrived, release)
}

/// The service worker is stopped (DevTools, as `chrome://serviceworker-internals` does)
/// while an action is pending: nspd dispatched a send, the worker passed it to the page,
/// and the page is still inside it (its submit handler is held on a synchronous request
/// to the test, so the stop lands at exactly that point). The page finishes the send,
/// its answer wakes a new worker, which reconnects (same browser session) and delivers
/// it: the agent gets a definite 200 with verification, not `outcome_unknown`. The send
/// happened once, the new worker still lists the action id as executed
/// (`chrome.storage.session` survived the stop), and a keyed retry replays.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_stopped_while_an_action_is_pending_runs_it_once_and_answers() {
    let mut rig = Rig::start().await;
    let backend = rig.demo.backend();
    let request = send_request(rig.app.pid, "dave@example.com");
    let sw_prefix = format!("chrome-extension://{EXTENSION_ID}/");
    let (gate_port, arrived, release) = page_gate().await;
    let installed = rig
        .cdp
        .eval_in_page(
            &rig.demo.url("/"),
            &format!(
                "document.getElementById('compose').addEventListener('submit', () => {{ \
                 const x = new XMLHttpRequest(); x.open('GET', 'http://127.0.0.1:{gate_port}/hold', false); x.send(); \
                 }}, {{ capture: true, once: true }}); true"
            ),
        )
        .await
        .expect("install the slow handler");
    assert_eq!(installed, true);

    let answered = tokio::sync::Notify::new();
    let nspd = &rig.nspd;
    let cdp = &mut rig.cdp;
    let agent = async {
        let started = Instant::now();
        let answer = nspd
            .act_idempotent(&request, "worker-stop-1")
            .await
            .expect("action");
        answered.notify_one();
        eprintln!(
            "the agent's answer after {:?}: {} {}",
            started.elapsed(),
            answer.0,
            answer.1
        );
        (answer, started.elapsed())
    };
    let fault = async {
        tokio::select! {
            r = tokio::time::timeout(Duration::from_secs(60), arrived) => {
                r.expect("the page reached its submit handler").expect("gate");
            }
            () = answered.notified() => panic!("the agent was answered before the page ran the action"),
        }
        assert_eq!(
            backend.count(EventKind::Send),
            0,
            "the page is held before it sends"
        );
        cdp.stop_service_worker(&sw_prefix)
            .await
            .expect("stop the worker");
        // Let the page go on only once the worker is gone.
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let targets = cdp.targets().await.expect("targets");
            let running = targets.iter().any(|t| {
                t["type"] == "service_worker"
                    && t["url"].as_str().is_some_and(|u| u.starts_with(&sw_prefix))
            });
            if !running {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "the worker did not stop: {targets:?}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let _ = release.send(());
    };
    let (((status, body, _), took), ()) = tokio::join!(agent, fault);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["verification"]["passed"], true, "{body}");
    assert!(took < Duration::from_secs(30), "the agent waited {took:?}");
    let action_id = body["action_id"].as_str().expect("action_id").to_owned();
    assert_eq!(backend.count(EventKind::Send), 1, "{:?}", backend.events());

    // The new worker's at-most-once record still holds the action id, so a re-delivered
    // dispatch would be refused as a duplicate.
    let executed = rig
        .cdp
        .eval_in(
            "service_worker",
            &sw_prefix,
            "chrome.storage.session.get('executed').then((g) => g.executed || [])",
        )
        .await
        .expect("read the worker's storage");
    assert!(
        executed
            .as_array()
            .is_some_and(|ids| ids.iter().any(|id| id == action_id.as_str())),
        "{action_id} is not in the executed ids after the restart: {executed}"
    );

    // A keyed retry replays; the backend still has one send.
    let (status2, body2, replayed) = rig
        .nspd
        .act_idempotent(&request, "worker-stop-1")
        .await
        .expect("retry");
    assert_eq!((status2.as_u16(), replayed), (200, true), "{body2}");
    assert_eq!(body2["action_id"], body["action_id"]);
    assert_eq!(backend.count(EventKind::Send), 1, "{:?}", backend.events());
}

/// Rows reordered between the agent's capture and its action. With the capture's id as
/// `expected_capture_id` the action is refused with 409 and nothing is clicked; without
/// it, the action acts on the row whose id was given, wherever that row now is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reordered_list_is_stale_with_expected_capture_id_and_rows_are_found_by_id() {
    let mut rig = Rig::start().await;
    let backend = rig.demo.backend();
    let pid = rig.app.pid;
    let (status, before) = rig
        .nspd
        .get(&format!("/substrate/v1/state/{pid}?fresh=true"))
        .await
        .expect("state");
    assert_eq!(status, 200, "{before}");
    let capture_id = before["capture_id"]
        .as_str()
        .expect("capture_id")
        .to_owned();
    assert_eq!(before["objects"]["inbox.emails[0].id"], "e1", "{before}");

    // The app re-sorts its inbox: the last row moves to the top.
    let order = rig
        .cdp
        .eval_in_page(
            &rig.demo.url("/"),
            "(() => { const l = document.getElementById('email-list'); l.prepend(l.lastElementChild); \
             return Array.from(l.children, (li) => li.dataset.emailId); })()",
        )
        .await
        .expect("reorder");
    assert_eq!(order, json!(["e5", "e1", "e2", "e3", "e4"]));
    wait_state(&rig.nspd, pid, "the reordered inbox in nspd's state", |s| {
        s["objects"]["inbox.emails[0].id"] == "e5"
    })
    .await;

    let archive_e2 = |expected: Option<&str>| {
        let mut req = json!({"pid": pid, "action": "archive", "parameters": {"email_id": "e2"}});
        if let Some(id) = expected {
            req["expected_capture_id"] = json!(id);
        }
        req
    };
    let (status, body) = rig
        .nspd
        .act(&archive_e2(Some(&capture_id)))
        .await
        .expect("action");
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["code"], "stale_state", "{body}");
    assert!(backend.events().is_empty(), "{:?}", backend.events());
    let rows = rig
        .cdp
        .eval_in_page(
            &rig.demo.url("/"),
            "Array.from(document.getElementById('email-list').children, (li) => li.dataset.emailId)",
        )
        .await
        .expect("rows");
    assert_eq!(
        rows,
        json!(["e5", "e1", "e2", "e3", "e4"]),
        "a row was touched"
    );

    let (status, body) = rig.nspd.act(&archive_e2(None)).await.expect("action");
    assert_eq!(status, 200, "{body}");
    let events = backend.wait_for_events(1, Duration::from_secs(10)).await;
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0].kind, EventKind::Archive);
    assert_eq!(events[0].email_id.as_deref(), Some("e2"), "{events:?}");
}

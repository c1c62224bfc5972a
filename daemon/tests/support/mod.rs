//! Test harness for the daemon's integration tests: nspd's server in-process on a free
//! loopback port, an HTTP client, and a scripted extension — a test double that speaks
//! our extension protocol over a real WebSocket and plays a page whose behaviour each
//! test sets.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use futures_util::{SinkExt, StreamExt};
use http_body_util::{BodyExt, Full};
use hyper::{Method, Request, StatusCode};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use nsp_daemon::core::config::{FileConfig, Settings};
use nsp_daemon::server::Server;
use nsp_protocol::approval::{ApprovalClosedReason, ApprovalDecision, ApprovalQuestion};
use nsp_protocol::channel::{
    DaemonMessage, DialogKind, DispatchExpect, DispatchFailure, DispatchOutcome, ExtensionMessage,
    PageDialog, Resolution, ResolvedElement,
};
use nsp_protocol::{PageCapture, ProbeStatus};
use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot, Notify};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

/// A running daemon.
pub struct Daemon {
    pub addr: SocketAddr,
    pub key: String,
    pub data_dir: tempfile::TempDir,
    stop: Option<oneshot::Sender<()>>,
    client: Client<HttpConnector, Full<Bytes>>,
}

/// Fast timers so tests run quickly; tests override what they need.
pub fn fast_config() -> FileConfig {
    let mut c = FileConfig::default();
    c.dispatcher.post_action_wait_ms = 10;
    c.dispatcher.poll_interval_ms = 20;
    c.dispatcher.action_timeout_ms = 2_000;
    c.dispatcher.capture_timeout_ms = 1_000;
    c.rate_limit.actions_per_sec = 1_000;
    c.rate_limit.state_reads_per_sec = 10_000;
    // A scripted page has nobody in front of it: refuse under a floor, as headless does.
    // The approval tests turn asking on.
    c.gate.ask_person = Some(nsp_daemon::core::config::AskPerson::Never);
    c
}

impl Daemon {
    pub async fn start() -> Daemon {
        Daemon::start_with(fast_config()).await
    }

    pub async fn start_with(config: FileConfig) -> Daemon {
        Daemon::start_in(config, tempfile::tempdir().expect("tempdir")).await
    }

    /// Starts with `<data_dir>/data` as the data dir, which the caller may have
    /// prepared.
    pub async fn start_in(mut config: FileConfig, data_dir: tempfile::TempDir) -> Daemon {
        config.server.port = 0;
        let settings = Settings::from_config(config, data_dir.path().join("data"));
        let server = Server::bind(settings).await.expect("bind");
        let addr = server.local_addr();
        let key = server.key().reveal().to_owned();
        let (stop, stopped) = oneshot::channel::<()>();
        tokio::spawn(server.run(async {
            let _ = stopped.await;
        }));
        Daemon {
            addr,
            key,
            data_dir,
            stop: Some(stop),
            client: Client::builder(TokioExecutor::new()).build_http(),
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Sends a request with the agent key and the right Host; returns status, headers
    /// and the JSON body.
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
        headers: &[(&str, &str)],
    ) -> Response {
        let mut builder = Request::builder().method(method).uri(self.url(path));
        if !headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("x-substrate-key"))
        {
            builder = builder.header("x-substrate-key", &self.key);
        }
        for (k, v) in headers.iter().filter(|(_, v)| !v.is_empty()) {
            builder = builder.header(*k, *v);
        }
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        self.send(builder.body(Full::new(Bytes::from(body))).expect("request"))
            .await
    }

    pub async fn send(&self, req: Request<Full<Bytes>>) -> Response {
        let resp = tokio::time::timeout(Duration::from_secs(30), self.client.request(req))
            .await
            .expect("answer within 30 s")
            .expect("request");
        let status = resp.status();
        let headers = resp.headers().clone();
        let bytes = resp.into_body().collect().await.expect("body").to_bytes();
        let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        Response {
            status,
            headers,
            body,
        }
    }

    pub async fn get(&self, path: &str) -> Response {
        self.call(Method::GET, path, None, &[]).await
    }

    /// `POST /substrate/v1/action` with `body`.
    pub async fn act(&self, body: Value) -> Response {
        self.post("/substrate/v1/action", body).await
    }

    /// The same with an `Idempotency-Key` header.
    pub async fn act_with_key(&self, body: Value, key: &str) -> Response {
        self.call(
            Method::POST,
            "/substrate/v1/action",
            Some(body),
            &[("idempotency-key", key)],
        )
        .await
    }

    pub async fn post(&self, path: &str, body: Value) -> Response {
        self.call(
            Method::POST,
            path,
            Some(body),
            &[("content-type", "application/json")],
        )
        .await
    }

    pub fn audit_lines(&self) -> Vec<Value> {
        std::fs::read_to_string(self.data_dir.path().join("data/audit.jsonl"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

#[derive(Debug)]
pub struct Response {
    pub status: StatusCode,
    pub headers: hyper::HeaderMap,
    pub body: Value,
}

impl Response {
    pub fn code(&self) -> &str {
        self.body["code"].as_str().unwrap_or("")
    }

    /// Asserts an error response with both body shapes and a request id.
    pub fn assert_error(&self, status: u16, code: &str) {
        assert_eq!(self.status.as_u16(), status, "{}", self.body);
        assert_eq!(self.body["success"], false, "{}", self.body);
        assert_eq!(self.body["code"], code, "{}", self.body);
        assert_eq!(self.body["error"]["code"], code, "{}", self.body);
        assert_eq!(self.body["error"]["message"], self.body["message"]);
        let rid = self
            .headers
            .get("x-request-id")
            .and_then(|v| v.to_str().ok())
            .expect("x-request-id");
        assert_eq!(self.body["error"]["request_id"], rid);
        assert!(!self.body["message"].as_str().unwrap_or("").is_empty());
    }
}

/// What the scripted page does with a dispatched action.
#[derive(Debug, Clone)]
pub enum OnDispatch {
    /// Answer done with this value and apply `changes` to the page's objects, visible
    /// from the `after_captures`-th capture after the action on (0: at once).
    Succeed {
        value: Value,
        changes: BTreeMap<String, Value>,
        after_captures: u32,
    },
    /// Answer failed with this code.
    Fail { code: String, message: String },
    /// Never answer.
    Hang,
    /// Close the connection without answering.
    Drop,
    /// Answer done after a delay, with `changes` applied to the page's objects at once
    /// (the page changed; its answer is slow).
    Slow {
        delay: Duration,
        changes: BTreeMap<String, Value>,
    },
    /// Raise `confirm(message)` as a page's handler would, and do what the extension
    /// does with it: answer yes only when the dispatch allowed it (`accept_confirm`),
    /// reporting the dialog and applying `changes` to the page's objects, else fail
    /// with `dialog_declined`.
    Confirm {
        message: String,
        changes: BTreeMap<String, Value>,
    },
}

/// The scripted page's state and what it saw.
#[derive(Debug)]
pub struct Page {
    pub capture: PageCapture,
    pub on_dispatch: OnDispatch,
    pub dispatched: Vec<(String, String, Value)>,
    /// Per dispatch, in order: whether the daemon let the page accept a `confirm()`.
    pub accept_confirm: Vec<bool>,
    /// Questions put to the person, in order of arrival (re-sent ones again).
    pub questions: Vec<ApprovalQuestion>,
    /// `approval_closed` notices, in order.
    pub closed: Vec<(String, ApprovalClosedReason)>,
    /// The person's answer, given at once to every question; `None`: nobody answers.
    pub person: Option<ApprovalDecision>,
    /// Every `corrections` push, in order (the first follows the welcome).
    pub corrections: Vec<Vec<nsp_protocol::approval::Correction>>,
    /// Per dispatch, in order: what the gate saw (`expect`).
    pub expects: Vec<Option<DispatchExpect>>,
    /// What each selector resolves to (`resolve`); a selector not listed matches nothing.
    pub resolutions: BTreeMap<String, Resolution>,
    /// Whether the page answers `resolve` (an old extension does not).
    pub answers_resolve: bool,
    /// Selectors nspd asked to resolve, in order.
    pub resolved: Vec<String>,
    /// Replaces the page's capture just before the next capture is answered: the page
    /// swapping its controls between the gate and dispatch.
    pub swap_before_capture: Option<PageCapture>,
    pending: Option<(u32, BTreeMap<String, Value>)>,
}

/// One element a selector resolves to: `actions` are the discovered actions it
/// belongs to.
pub fn resolves_to(tag: &str, label: &str, actions: &[&str]) -> Resolution {
    Resolution {
        count: 1,
        element: Some(ResolvedElement {
            tag: tag.into(),
            label: label.into(),
            actions: actions.iter().map(|a| a.to_string()).collect(),
            secret: false,
            perceivable: true,
        }),
        error: None,
    }
}

/// A connected scripted extension with one tab.
pub struct FakeExtension {
    pub page: Arc<Mutex<Page>>,
    pub tab_id: i64,
    out: mpsc::UnboundedSender<Message>,
    pub closed: Arc<Notify>,
    /// The daemon's welcome, as it arrived.
    pub welcome: DaemonMessage,
}

/// The default page: a small mail app with declared actions and a settled confidence.
pub fn mail_capture(confidence: f64) -> PageCapture {
    serde_json::from_value(json!({
        "app_name": "Test Mail",
        "confidence": confidence,
        "context": {"url": "http://127.0.0.1:9/inbox", "location": "127.0.0.1:9", "view": "/inbox", "window_title": "Inbox", "window_id": null},
        "objects": {"inbox.unread_count": 3, "outbox.sent_count": 14, "inbox.emails[0].id": "e1", "inbox.emails[1].id": "e2"},
        "actions": {
            "send_email": {"signature": "fn(to: string, subject?: string) -> bool", "reversibility": "irreversible_write", "description": "Send", "confidence": 0.99,
                "internal_target": "dom:#compose", "parameters": [
                    {"name": "to", "type_name": "string", "required": true, "description": "Recipient address"},
                    {"name": "subject", "type_name": "string", "required": false, "description": "Subject"}]},
            "archive": {"signature": "fn(email_id: string) -> bool", "reversibility": "reversible_write", "description": "Archive", "confidence": 0.99,
                "internal_target": "dom:#email-list", "parameters": [
                    {"name": "email_id", "type_name": "string", "required": true, "description": "Email id from inbox.emails[N].id", "allowed_values": ["e1", "e2"]}]},
            "search": {"signature": "fn(q: string) -> bool", "reversibility": "read", "description": "Search", "confidence": 0.9,
                "internal_target": "dom:#search", "parameters": [{"name": "q", "type_name": "string", "required": true, "description": "Query"}]},
            "read_text": {"signature": "fn(selector: string) -> string", "reversibility": "read", "description": "Read text", "confidence": 1.0,
                "internal_target": "builtin:read_text", "parameters": [{"name": "selector", "type_name": "string", "required": true, "description": "CSS selector"}]}
        },
        "probe_metadata": {"capture_latency_ms": 1.0, "labeling_latency_ms": 1.0, "total_latency_ms": 2.0, "raw_object_count": 4, "filtered_object_count": 4, "cache_hit": false, "probe_tier": "wasm_in_page", "settled": true}
    }))
    .expect("capture")
}

impl FakeExtension {
    /// Connects with our extension's Origin, says hello and announces one tab.
    pub async fn connect(daemon: &Daemon, capture: Option<PageCapture>) -> FakeExtension {
        FakeExtension::connect_as(daemon, capture, "browser-1", 7).await
    }

    pub async fn connect_as(
        daemon: &Daemon,
        capture: Option<PageCapture>,
        instance: &str,
        tab_id: i64,
    ) -> FakeExtension {
        let url = format!("ws://{}/substrate/v1/extension", daemon.addr);
        let mut request = url.into_client_request().expect("request");
        request.headers_mut().insert(
            "origin",
            format!("chrome-extension://{}", nsp_protocol::EXTENSION_ID)
                .parse()
                .expect("header"),
        );
        let (ws, _) = tokio_tungstenite::connect_async(request)
            .await
            .expect("extension channel");
        let (mut sink, mut stream) = ws.split();
        let hello = ExtensionMessage::Hello {
            channel_version: nsp_protocol::CHANNEL_VERSION,
            extension_version: "test".into(),
            user_agent: "test".into(),
            browser: "Chromium 156".into(),
            instance_id: instance.into(),
        };
        sink.send(Message::text(serde_json::to_string(&hello).expect("json")))
            .await
            .expect("hello");
        let welcome: DaemonMessage = match stream.next().await {
            Some(Ok(Message::Text(t))) => {
                assert!(t.contains("welcome"), "{t}");
                serde_json::from_str(&t).expect("welcome")
            }
            other => panic!("no welcome: {other:?}"),
        };
        let page = Arc::new(Mutex::new(Page {
            capture: capture.clone().unwrap_or_default(),
            on_dispatch: OnDispatch::Succeed {
                value: json!(true),
                changes: BTreeMap::new(),
                after_captures: 0,
            },
            dispatched: Vec::new(),
            accept_confirm: Vec::new(),
            questions: Vec::new(),
            closed: Vec::new(),
            person: None,
            corrections: Vec::new(),
            expects: Vec::new(),
            resolutions: BTreeMap::new(),
            answers_resolve: true,
            resolved: Vec::new(),
            swap_before_capture: None,
            pending: None,
        }));
        let (out, mut out_rx) = mpsc::unbounded_channel::<Message>();
        let closed = Arc::new(Notify::new());
        let fake = FakeExtension {
            page: page.clone(),
            tab_id,
            out: out.clone(),
            closed: closed.clone(),
            welcome,
        };
        let first = tab_state(
            tab_id,
            capture
                .as_ref()
                .map(|_| ProbeStatus::Active)
                .unwrap_or(ProbeStatus::Attaching),
            capture,
            None,
        );
        out.send(first).expect("queue");
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    msg = out_rx.recv() => {
                        let Some(msg) = msg else { break };
                        let close = matches!(msg, Message::Close(_));
                        if sink.send(msg).await.is_err() || close {
                            break;
                        }
                    }
                    incoming = stream.next() => {
                        let Some(Ok(Message::Text(text))) = incoming else { break };
                        let msg: DaemonMessage = serde_json::from_str(&text).expect("daemon message");
                        handle(&page, &out, msg);
                    }
                }
            }
            closed.notify_waiters();
        });
        fake
    }

    pub fn set(&self, f: impl FnOnce(&mut Page)) {
        f(&mut self.page.lock().expect("page"));
    }

    pub fn dispatched(&self) -> Vec<(String, String, Value)> {
        self.page.lock().expect("page").dispatched.clone()
    }

    /// Announces a new full capture (as after a DOM change).
    pub fn push_capture(&self) {
        let capture = self.page.lock().expect("page").capture.clone();
        let _ = self.out.send(tab_state(
            self.tab_id,
            ProbeStatus::Active,
            Some(capture),
            None,
        ));
    }

    pub fn send_raw(&self, msg: &ExtensionMessage) {
        let _ = self
            .out
            .send(Message::text(serde_json::to_string(msg).expect("json")));
    }

    /// Answers a question as the person would, from this connection.
    pub fn answer(&self, approval_id: &str, decision: ApprovalDecision) {
        self.send_raw(&ExtensionMessage::ApprovalAnswer {
            approval_id: approval_id.to_owned(),
            decision,
        });
    }

    /// Waits until at least `n` questions arrived on this connection; returns them.
    /// The questions put to the person so far.
    #[allow(dead_code)]
    pub fn questions(&self) -> Vec<ApprovalQuestion> {
        self.page.lock().expect("page").questions.clone()
    }

    pub async fn wait_questions(&self, n: usize) -> Vec<ApprovalQuestion> {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        loop {
            let q = self.page.lock().expect("page").questions.clone();
            if q.len() >= n {
                return q;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "only {} of {n} questions arrived",
                q.len()
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Waits until an `approval_closed` for `approval_id` arrived; returns its reason.
    pub async fn wait_closed(&self, approval_id: &str) -> ApprovalClosedReason {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        loop {
            let closed = self.page.lock().expect("page").closed.clone();
            if let Some((_, reason)) = closed.iter().find(|(id, _)| id == approval_id) {
                return *reason;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "no approval_closed for {approval_id}: {closed:?}"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    pub fn close_tab(&self) {
        self.send_raw(&ExtensionMessage::TabClosed {
            tab_id: self.tab_id,
        });
    }

    pub async fn disconnect(&self) {
        let notified = self.closed.notified();
        let _ = self.out.send(Message::Close(None));
        let _ = tokio::time::timeout(Duration::from_secs(5), notified).await;
    }
}

fn tab_state(
    tab_id: i64,
    status: ProbeStatus,
    capture: Option<PageCapture>,
    request_id: Option<String>,
) -> Message {
    let msg = ExtensionMessage::TabState {
        tab_id,
        window_id: Some(1),
        status,
        url: Some("http://127.0.0.1:9/inbox".into()),
        title: Some("Inbox".into()),
        message: None,
        capture: capture.map(Box::new),
        request_id,
    };
    Message::text(serde_json::to_string(&msg).expect("json"))
}

fn handle(page: &Arc<Mutex<Page>>, out: &mpsc::UnboundedSender<Message>, msg: DaemonMessage) {
    let mut p = page.lock().expect("page");
    match msg {
        DaemonMessage::Capture { request_id, tab_id } => {
            if let Some(swapped) = p.swap_before_capture.take() {
                p.capture = swapped;
            }
            if let Some((left, changes)) = p.pending.take() {
                if left <= 1 {
                    p.capture.objects.extend(changes);
                } else {
                    p.pending = Some((left - 1, changes));
                }
            }
            let _ = out.send(tab_state(
                tab_id,
                ProbeStatus::Active,
                Some(p.capture.clone()),
                Some(request_id),
            ));
        }
        DaemonMessage::Dispatch {
            action_id,
            tab_id,
            action,
            parameters,
            accept_confirm,
            expect,
            ..
        } => {
            p.dispatched
                .push((action_id.clone(), action, Value::Object(parameters)));
            p.accept_confirm.push(accept_confirm);
            p.expects.push(expect);
            let result = |outcome: DispatchOutcome| {
                Message::text(
                    serde_json::to_string(&ExtensionMessage::ActionResult {
                        action_id: action_id.clone(),
                        tab_id,
                        outcome,
                    })
                    .expect("json"),
                )
            };
            match p.on_dispatch.clone() {
                OnDispatch::Succeed {
                    value,
                    changes,
                    after_captures,
                } => {
                    if after_captures == 0 {
                        p.capture.objects.extend(changes);
                    } else {
                        p.pending = Some((after_captures, changes));
                    }
                    let _ = out.send(result(DispatchOutcome::Done {
                        value,
                        dialogs: Vec::new(),
                    }));
                }
                OnDispatch::Fail { code, message } => {
                    let code = serde_json::from_value(json!(code)).expect("failure code");
                    let _ = out.send(result(DispatchOutcome::Failed { code, message }));
                }
                OnDispatch::Confirm { message, changes } => {
                    let outcome = if accept_confirm {
                        p.capture.objects.extend(changes);
                        DispatchOutcome::Done {
                            value: json!(true),
                            dialogs: vec![PageDialog {
                                kind: DialogKind::Confirm,
                                message,
                                accepted: true,
                            }],
                        }
                    } else {
                        DispatchOutcome::Failed {
                            code: DispatchFailure::DialogDeclined,
                            message: format!(
                                "The page asked {message:?} (confirm) and NSP answered no."
                            ),
                        }
                    };
                    let _ = out.send(result(outcome));
                }
                OnDispatch::Hang => {}
                OnDispatch::Drop => {
                    let _ = out.send(Message::Close(None));
                }
                OnDispatch::Slow { delay, changes } => {
                    p.capture.objects.extend(changes);
                    let out = out.clone();
                    let msg = result(DispatchOutcome::Done {
                        value: json!(true),
                        dialogs: Vec::new(),
                    });
                    tokio::spawn(async move {
                        tokio::time::sleep(delay).await;
                        let _ = out.send(msg);
                    });
                }
            }
        }
        DaemonMessage::Resolve {
            request_id,
            tab_id,
            selector,
        } => {
            p.resolved.push(selector.clone());
            if p.answers_resolve {
                let resolution = p.resolutions.get(&selector).cloned().unwrap_or_default();
                let answer = ExtensionMessage::Resolved {
                    request_id,
                    tab_id,
                    resolution,
                };
                let _ = out.send(Message::text(serde_json::to_string(&answer).expect("json")));
            }
        }
        DaemonMessage::Welcome { .. } | DaemonMessage::KeepaliveAck => {}
        DaemonMessage::Approval(question) => {
            if let Some(decision) = p.person {
                let answer = ExtensionMessage::ApprovalAnswer {
                    approval_id: question.approval_id.clone(),
                    decision,
                };
                let _ = out.send(Message::text(serde_json::to_string(&answer).expect("json")));
            }
            p.questions.push(question);
        }
        DaemonMessage::ApprovalClosed {
            approval_id,
            reason,
        } => p.closed.push((approval_id, reason)),
        // The fake page applies no corrections; it records them for the tests of the
        // corrections store.
        DaemonMessage::Corrections { corrections } => p.corrections.push(corrections),
        // Its browser opens and closes no tabs.
        DaemonMessage::OpenTab { .. } | DaemonMessage::CloseTab { .. } => {}
        // It shows no popup.
        DaemonMessage::Agents { .. } => {}
    }
}

/// Waits until the daemon lists a tab satisfying `pred`, returning its pid.
pub async fn wait_for_tab(daemon: &Daemon, pred: impl Fn(&Value) -> bool) -> u64 {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let r = daemon.get("/substrate/v1/apps").await;
        if let Some(app) = r.body["apps"]
            .as_array()
            .and_then(|a| a.iter().find(|x| pred(x)))
        {
            return app["pid"].as_u64().expect("pid");
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no tab matched: {}",
            r.body
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// A daemon with one connected, active mail tab.
pub async fn daemon_with_tab(config: FileConfig, confidence: f64) -> (Daemon, FakeExtension, u64) {
    let daemon = Daemon::start_with(config).await;
    let ext = FakeExtension::connect(&daemon, Some(mail_capture(confidence))).await;
    let pid = wait_for_tab(&daemon, |a| a["has_state"] == true).await;
    (daemon, ext, pid)
}

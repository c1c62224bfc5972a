//! The hub: which browsers are connected, which tabs they announced, each tab's last
//! two captures, and the actions and captures waiting for a page's answer.
//!
//! Invariants: a tab belongs to the connection that announced it, and only that
//! connection (or a later one of the same browser instance, after the first closed)
//! can update it or answer for it. A pid is never reused while the daemon runs.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use bytes::Bytes;
use hyper::StatusCode;
use nsp_protocol::api::AppSummary;
use nsp_protocol::channel::{DaemonMessage, DispatchOutcome};
use nsp_protocol::{
    round_confidence, ActionExplain, ActionSchema, Context, PageCapture, ProbeMetadata,
    ProbeStatus, SubstrateState, SCHEMA_VERSION,
};
use serde_json::Value;
use tokio::sync::{broadcast, mpsc, oneshot};

use crate::error::ApiError;
use crate::gate::Cleared;

/// Identifies one extension connection for the daemon's lifetime.
pub type ConnId = u64;

/// Something that happened to a tab, for watchers.
#[derive(Debug, Clone, PartialEq)]
pub struct TabEvent {
    pub pid: u64,
    pub kind: TabEventKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum TabEventKind {
    /// A new capture arrived; the keys whose values differ from the previous one.
    Captured { changed_keys: Vec<String> },
    /// The probe status changed without a capture.
    Status,
    /// The tab is gone.
    Closed,
}

/// One connected extension (one browser).
#[derive(Debug)]
struct Conn {
    tx: mpsc::Sender<DaemonMessage>,
    instance_id: String,
    browser: String,
}

/// One tab.
#[derive(Debug)]
struct Tab {
    pid: u64,
    app_id: String,
    conn: Option<ConnId>,
    tab_id: i64,
    window_id: Option<i64>,
    status: ProbeStatus,
    message: Option<String>,
    url: Option<String>,
    title: Option<String>,
    browser: String,
    current: Option<SubstrateState>,
    /// `current` as `GET /state` sends it, serialized on the first read after each
    /// change and served as is until the next (`commit` clears it).
    current_json: Option<Bytes>,
    /// Counts commits, so a serialization made outside the lock is kept only if no
    /// capture arrived meanwhile.
    generation: u64,
    previous: Option<SubstrateState>,
    explain: BTreeMap<String, ActionExplain>,
    /// Recent captures' action targets, for the stale-target guard.
    history: VecDeque<(String, BTreeMap<String, String>)>,
    /// One action at a time per tab.
    action_lock: Arc<tokio::sync::Mutex<()>>,
}

/// How many recent captures the stale-target guard remembers.
const HISTORY: usize = 32;

/// What identifies an action's target: where it acts and what it takes. A row action
/// (`row:`) keeps one selector whatever the rows are, so its rows count too: the values
/// its row parameters may take, in the page's order (the probe lists up to 25). Rows
/// reordered, added or removed since a capture then make `expected_capture_id` stale, as
/// an agent that chose "the third row" or "the one above X" needs.
fn target_fingerprint(a: &ActionSchema) -> String {
    let mut fingerprint = format!("{}|{}", a.internal_target, a.signature);
    if a.internal_target.starts_with("row:") {
        for p in &a.parameters {
            if let Some(values) = &p.allowed_values {
                fingerprint.push('|');
                fingerprint.push_str(&p.name);
                fingerprint.push('=');
                fingerprint.push_str(&Value::Array(values.clone()).to_string());
            }
        }
    }
    fingerprint
}

impl Tab {
    /// Makes `state` the current capture and returns the keys that changed.
    fn commit(&mut self, state: SubstrateState) -> Vec<String> {
        let changed = match &self.current {
            Some(prev) => changed_keys(&prev.objects, &state.objects),
            None => state.objects.keys().cloned().collect(),
        };
        if let Some(url) = &state.context.url {
            self.url = Some(url.clone());
        }
        let targets = state
            .actions
            .iter()
            .map(|(n, a)| (n.clone(), target_fingerprint(a)))
            .collect();
        self.history.push_back((state.capture_id.clone(), targets));
        while self.history.len() > HISTORY {
            self.history.pop_front();
        }
        self.previous = self.current.replace(state);
        self.current_json = None;
        self.generation += 1;
        changed
    }
}

/// An incremental update from the page (see `ExtensionMessage::TabDelta`).
#[derive(Debug, Default)]
pub struct Delta {
    pub changed: BTreeMap<String, Value>,
    pub removed: Vec<String>,
    pub actions: Option<BTreeMap<String, ActionSchema>>,
    pub confidence: Option<f64>,
    pub context: Option<Context>,
    pub probe_metadata: Option<ProbeMetadata>,
    pub explain: Option<BTreeMap<String, ActionExplain>>,
}

#[derive(Debug)]
struct PendingAction {
    conn: ConnId,
    /// The browser session (`hello.instance_id`) of `conn`: after a reconnect the same
    /// session may still deliver the answer.
    instance_id: String,
    /// Set when `conn` closed: from then on the answer may come from a new connection
    /// of the same browser session, within [`RECONNECT_GRACE`].
    orphaned: bool,
    pid: u64,
    reply: oneshot::Sender<DispatchOutcome>,
}

/// How long a dispatched action whose connection closed waits for its answer over a
/// new connection from the same browser session. A stopped service worker is woken
/// again by the page's answer and reconnects at once, and a dropped socket reconnects
/// after 0.25 to 0.75 s; beyond this the outcome is unknown.
pub const RECONNECT_GRACE: Duration = Duration::from_secs(5);

#[derive(Debug)]
struct PendingCapture {
    conn: ConnId,
    reply: oneshot::Sender<()>,
}

#[derive(Debug, Default)]
struct Inner {
    next_pid: u64,
    next_conn: ConnId,
    conns: HashMap<ConnId, Conn>,
    tabs: BTreeMap<u64, Tab>,
    by_browser_tab: HashMap<(String, i64), u64>,
    pending_actions: HashMap<String, PendingAction>,
    pending_captures: HashMap<String, PendingCapture>,
}

/// Shared daemon state. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Hub {
    inner: Arc<Mutex<Inner>>,
    events: broadcast::Sender<TabEvent>,
    started: Instant,
    max_tabs: usize,
    reconnect_grace: Duration,
    /// Tabs nspd asked the browser to open or close, waiting for the answer.
    pub tab_ops: Arc<crate::tab_ops::Pending>,
}

/// The stale-target guard's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetCheck {
    Same,
    Changed,
    /// The capture is not (or no longer) known to the daemon.
    UnknownCapture,
}

/// Why a dispatch did not produce an outcome.
#[derive(Debug, thiserror::Error)]
pub enum DispatchError {
    #[error("the tab's probe is not connected")]
    Detached,
    #[error("the page did not answer within {0:?}")]
    Timeout(Duration),
    #[error("the connection to the page dropped after dispatch")]
    OutcomeUnknown,
}

impl Default for Hub {
    fn default() -> Self {
        Self::new()
    }
}

impl Hub {
    pub fn new() -> Hub {
        Hub::with_max_tabs(512)
    }

    pub fn with_max_tabs(max_tabs: usize) -> Hub {
        let (events, _) = broadcast::channel(1024);
        Hub {
            inner: Arc::new(Mutex::new(Inner {
                next_pid: 1,
                next_conn: 1,
                ..Inner::default()
            })),
            events,
            started: Instant::now(),
            max_tabs,
            reconnect_grace: RECONNECT_GRACE,
            tab_ops: Arc::default(),
        }
    }

    /// This hub with another [`RECONNECT_GRACE`] (zero: a closed connection makes its
    /// pending actions' outcome unknown at once).
    pub fn with_reconnect_grace(mut self, grace: Duration) -> Hub {
        self.reconnect_grace = grace;
        self
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves plain data behind; keep serving.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn uptime(&self) -> Duration {
        self.started.elapsed()
    }

    pub fn subscribe(&self) -> broadcast::Receiver<TabEvent> {
        self.events.subscribe()
    }

    fn emit(&self, event: TabEvent) {
        // No receivers is fine: nobody is watching.
        let _ = self.events.send(event);
    }

    /// A new extension connection said hello.
    pub fn connect(
        &self,
        instance_id: String,
        browser: String,
        tx: mpsc::Sender<DaemonMessage>,
    ) -> ConnId {
        let mut inner = self.lock();
        let id = inner.next_conn;
        inner.next_conn += 1;
        inner.conns.insert(
            id,
            Conn {
                tx,
                instance_id,
                browser,
            },
        );
        id
    }

    /// The connection closed: its tabs become detached, and captures waiting on it fail
    /// (their senders are dropped). Dispatched actions wait [`RECONNECT_GRACE`] more for
    /// their answer over a new connection from the same browser session (the service
    /// worker restarted or the socket dropped, the page still answers); then their
    /// outcome is unknown.
    pub fn disconnect(&self, conn: ConnId) {
        let mut detached = Vec::new();
        let mut orphaned = Vec::new();
        {
            let mut inner = self.lock();
            inner.conns.remove(&conn);
            for tab in inner.tabs.values_mut() {
                if tab.conn == Some(conn) {
                    tab.conn = None;
                    tab.status = ProbeStatus::Detached;
                    tab.message = Some("The extension's connection to nspd closed.".into());
                    detached.push(tab.pid);
                }
            }
            let grace =
                !self.reconnect_grace.is_zero() && tokio::runtime::Handle::try_current().is_ok();
            inner.pending_actions.retain(|id, p| {
                if p.conn != conn {
                    return true;
                }
                if grace {
                    p.orphaned = true;
                    orphaned.push(id.clone());
                }
                grace
            });
            inner.pending_captures.retain(|_, p| p.conn != conn);
        }
        if !orphaned.is_empty() {
            let hub = self.clone();
            tokio::spawn(async move {
                tokio::time::sleep(hub.reconnect_grace).await;
                let mut inner = hub.lock();
                for id in orphaned {
                    // Still orphaned and unanswered: dropping the sender tells the
                    // waiting dispatch that the outcome is unknown.
                    if inner.pending_actions.get(&id).is_some_and(|p| p.orphaned) {
                        inner.pending_actions.remove(&id);
                    }
                }
            });
        }
        for pid in detached {
            self.emit(TabEvent {
                pid,
                kind: TabEventKind::Status,
            });
        }
    }

    /// A tab reported its status and maybe a capture. Returns the pid, or `None` when the
    /// tab belongs to another live connection (the report is ignored).
    #[allow(clippy::too_many_arguments)]
    pub fn tab_state(
        &self,
        conn: ConnId,
        tab_id: i64,
        window_id: Option<i64>,
        status: ProbeStatus,
        url: Option<String>,
        title: Option<String>,
        message: Option<String>,
        capture: Option<PageCapture>,
        request_id: Option<String>,
    ) -> Option<u64> {
        let mut inner = self.lock();
        let (instance_id, browser) = {
            let c = inner.conns.get(&conn)?;
            (c.instance_id.clone(), c.browser.clone())
        };
        let key = (instance_id.clone(), tab_id);
        let pid = match inner.by_browser_tab.get(&key).copied() {
            Some(pid) => {
                let owner = inner.tabs.get(&pid).and_then(|t| t.conn);
                if let Some(owner) = owner {
                    if owner != conn && inner.conns.contains_key(&owner) {
                        tracing::warn!(
                            conn,
                            tab_id,
                            pid,
                            "a second connection claimed a tab owned by a live connection; ignored"
                        );
                        return None;
                    }
                }
                pid
            }
            None => {
                if inner.tabs.len() >= self.max_tabs {
                    tracing::warn!(
                        conn,
                        tab_id,
                        max = self.max_tabs,
                        "tab limit reached; a new tab is not tracked"
                    );
                    return None;
                }
                let pid = inner.next_pid;
                inner.next_pid += 1;
                let app_id = make_app_id(url.as_deref(), pid);
                inner.tabs.insert(
                    pid,
                    Tab {
                        pid,
                        app_id,
                        conn: Some(conn),
                        tab_id,
                        window_id,
                        status,
                        message: None,
                        url: None,
                        title: None,
                        browser: browser.clone(),
                        current: None,
                        current_json: None,
                        generation: 0,
                        previous: None,
                        explain: BTreeMap::new(),
                        history: VecDeque::new(),
                        action_lock: Arc::new(tokio::sync::Mutex::new(())),
                    },
                );
                inner.by_browser_tab.insert(key, pid);
                pid
            }
        };
        let tab = inner.tabs.get_mut(&pid)?;
        tab.conn = Some(conn);
        tab.browser = browser;
        tab.status = status;
        tab.message = message;
        if window_id.is_some() {
            tab.window_id = window_id;
        }
        if url.is_some() {
            tab.url = url;
        }
        if title.is_some() {
            tab.title = title;
        }
        let event = match capture {
            Some(mut capture) => {
                tab.explain = std::mem::take(&mut capture.explain);
                let state = build_state(tab, capture);
                TabEventKind::Captured {
                    changed_keys: tab.commit(state),
                }
            }
            None => TabEventKind::Status,
        };
        if let Some(request_id) = request_id {
            if let Some(waiter) = inner.pending_captures.remove(&request_id) {
                let _ = waiter.reply.send(());
            }
        }
        drop(inner);
        self.emit(TabEvent { pid, kind: event });
        Some(pid)
    }

    /// Applies an incremental update to the tab's last capture. Ignored (with a log
    /// line) when the tab is not this connection's or has no capture to apply it to.
    pub fn tab_delta(&self, conn: ConnId, tab_id: i64, delta: Delta) -> Option<u64> {
        let mut inner = self.lock();
        let instance_id = inner.conns.get(&conn)?.instance_id.clone();
        let pid = *inner.by_browser_tab.get(&(instance_id, tab_id))?;
        let tab = inner.tabs.get_mut(&pid)?;
        if tab.conn != Some(conn) {
            tracing::warn!(
                conn,
                tab_id,
                "a delta for a tab owned by another connection; ignored"
            );
            return None;
        }
        let Some(mut state) = tab.current.clone() else {
            tracing::debug!(pid, "a delta before any full capture; ignored");
            return None;
        };
        // Removed first, then changed (a key in both keeps its new value), the order of
        // extension/delta.js; daemon/tests/delta_order.rs checks both.
        for key in &delta.removed {
            state.objects.remove(key);
        }
        state.objects.extend(delta.changed);
        if let Some(actions) = delta.actions {
            state.actions = actions
                .into_iter()
                .map(|(name, mut a)| {
                    a.confidence = round_confidence(a.confidence);
                    (name, a)
                })
                .collect();
        }
        if let Some(explain) = delta.explain {
            tab.explain = explain;
        }
        if let Some(c) = delta.confidence {
            state.confidence = round_confidence(c);
        }
        if let Some(mut context) = delta.context {
            context.window_id = context.window_id.or(tab.window_id.map(|w| w.to_string()));
            state.context = context;
        }
        if let Some(meta) = delta.probe_metadata {
            state.probe_metadata = meta;
        }
        state.capture_id = uuid::Uuid::now_v7().to_string();
        state.captured_at = now_rfc3339();
        let changed_keys = tab.commit(state);
        drop(inner);
        self.emit(TabEvent {
            pid,
            kind: TabEventKind::Captured { changed_keys },
        });
        Some(pid)
    }

    /// The tab's action lock (one action at a time per tab).
    pub fn action_lock(&self, pid: u64) -> Option<Arc<tokio::sync::Mutex<()>>> {
        self.lock().tabs.get(&pid).map(|t| t.action_lock.clone())
    }

    /// Whether `action`'s target is the same now as in capture `capture_id`.
    pub fn target_since(&self, pid: u64, capture_id: &str, action: &str) -> TargetCheck {
        let inner = self.lock();
        let Some(tab) = inner.tabs.get(&pid) else {
            return TargetCheck::UnknownCapture;
        };
        let Some((_, then)) = tab.history.iter().find(|(id, _)| id == capture_id) else {
            return TargetCheck::UnknownCapture;
        };
        let now = tab
            .current
            .as_ref()
            .and_then(|s| s.actions.get(action))
            .map(target_fingerprint);
        match (then.get(action), now) {
            (Some(a), Some(b)) if *a == b => TargetCheck::Same,
            _ => TargetCheck::Changed,
        }
    }

    /// Why the probe classified each action of the tab's current capture.
    pub fn explain(&self, pid: u64) -> Option<BTreeMap<String, ActionExplain>> {
        self.lock().tabs.get(&pid).map(|t| t.explain.clone())
    }

    /// A tab went away.
    pub fn tab_closed(&self, conn: ConnId, tab_id: i64) {
        let pid = {
            let mut inner = self.lock();
            let Some(instance_id) = inner.conns.get(&conn).map(|c| c.instance_id.clone()) else {
                return;
            };
            let key = (instance_id, tab_id);
            let Some(pid) = inner.by_browser_tab.get(&key).copied() else {
                return;
            };
            if inner.tabs.get(&pid).and_then(|t| t.conn) != Some(conn) {
                return;
            }
            inner.by_browser_tab.remove(&key);
            inner.tabs.remove(&pid);
            inner.pending_actions.retain(|_, p| p.pid != pid);
            pid
        };
        self.emit(TabEvent {
            pid,
            kind: TabEventKind::Closed,
        });
    }

    /// The page answered a dispatch: on the connection it was sent on, or, once that
    /// closed, on a new connection of the same browser session.
    pub fn action_result(&self, conn: ConnId, action_id: &str, outcome: DispatchOutcome) {
        let mut inner = self.lock();
        let instance = inner.conns.get(&conn).map(|c| c.instance_id.clone());
        match inner.pending_actions.get(action_id) {
            Some(p)
                if p.conn == conn
                    || (p.orphaned && instance.as_deref() == Some(p.instance_id.as_str())) =>
            {
                if let Some(p) = inner.pending_actions.remove(action_id) {
                    let _ = p.reply.send(outcome);
                }
            }
            Some(_) => tracing::warn!(
                conn,
                action_id,
                "an action result from a connection that was not asked; ignored"
            ),
            None => tracing::debug!(
                conn,
                action_id,
                "an action result nobody waits for (late or duplicate)"
            ),
        }
    }

    /// The tab's app_id.
    pub fn app_id(&self, pid: u64) -> Option<String> {
        self.lock().tabs.get(&pid).map(|t| t.app_id.clone())
    }

    /// Resolves a pid or app_id to a pid.
    pub fn resolve(&self, pid: Option<u64>, app_id: Option<&str>) -> Result<u64, ApiError> {
        let inner = self.lock();
        match (pid, app_id) {
            (Some(pid), app_id) => {
                let tab = inner
                    .tabs
                    .get(&pid)
                    .ok_or_else(|| ApiError::pid_not_found(&format!("pid {pid}")))?;
                if let Some(app_id) = app_id {
                    if tab.app_id != app_id {
                        return Err(ApiError::invalid_request(format!(
                            "pid {pid} is the tab {:?}, not app_id {app_id:?}. Send one of them, or both matching.",
                            tab.app_id
                        ))
                        .with("field", "app_id"));
                    }
                }
                Ok(pid)
            }
            (None, Some(app_id)) => inner
                .tabs
                .values()
                .find(|t| t.app_id == app_id)
                .map(|t| t.pid)
                .ok_or_else(|| {
                    ApiError::invalid_request(format!(
                        "No tab has app_id {app_id:?}. List the open tabs with GET /substrate/v1/apps and use one of their app_id values."
                    ))
                    .with("field", "app_id")
                }),
            (None, None) => Err(ApiError::invalid_request(
                "The request names no tab. Send \"pid\" (a number from GET /substrate/v1/apps) or \"app_id\".",
            )
            .with("field", "pid")),
        }
    }

    pub fn tab_count(&self) -> usize {
        self.lock().tabs.len()
    }

    /// How many extension connections are open (`nspd inspect` waits for the first).
    pub fn connection_count(&self) -> usize {
        self.lock().conns.len()
    }

    /// Summaries of every known tab, by pid.
    pub fn list(&self) -> Vec<AppSummary> {
        let inner = self.lock();
        inner.tabs.values().map(summarize).collect()
    }

    /// One tab's summary.
    pub fn summary(&self, pid: u64) -> Option<AppSummary> {
        self.lock().tabs.get(&pid).map(summarize)
    }

    /// The tab's current state, or the reason there is none.
    pub fn state(&self, pid: u64) -> Result<SubstrateState, ApiError> {
        let inner = self.lock();
        let tab = inner
            .tabs
            .get(&pid)
            .ok_or_else(|| ApiError::pid_not_found(&format!("pid {pid}")))?;
        if tab.conn.is_none() {
            return Err(detached(pid));
        }
        match &tab.current {
            Some(state) => Ok(state.clone()),
            None => Err(not_ready(tab)),
        }
    }

    /// The tab's current state as the JSON body `GET /state` sends (the bytes of
    /// [`crate::http::json_bytes`] of [`Hub::state`]), or the same error. Serialized
    /// once per capture: under 1,000 readers and a stream of deltas, reads then cost a
    /// lookup and a reference count instead of a clone and a serialization each.
    pub fn state_json(&self, pid: u64) -> Result<Bytes, ApiError> {
        let (state, generation) = {
            let inner = self.lock();
            let tab = inner
                .tabs
                .get(&pid)
                .ok_or_else(|| ApiError::pid_not_found(&format!("pid {pid}")))?;
            if tab.conn.is_none() {
                return Err(detached(pid));
            }
            if let Some(bytes) = &tab.current_json {
                return Ok(bytes.clone());
            }
            match &tab.current {
                Some(state) => (state.clone(), tab.generation),
                None => return Err(not_ready(tab)),
            }
        };
        // Serialized outside the lock: other tabs' readers and deltas need not wait.
        let bytes = crate::http::json_bytes(&state);
        if let Some(tab) = self.lock().tabs.get_mut(&pid) {
            if tab.generation == generation {
                tab.current_json = Some(bytes.clone());
            }
        }
        Ok(bytes)
    }

    /// The tab's previous and current state, when there are two captures.
    pub fn last_two(&self, pid: u64) -> Option<(SubstrateState, SubstrateState)> {
        let inner = self.lock();
        let tab = inner.tabs.get(&pid)?;
        Some((tab.previous.clone()?, tab.current.clone()?))
    }

    /// Sends an action the gate cleared to the tab's page and waits for its answer. Only
    /// [`crate::gate::check`] makes a [`Cleared`]; the page may answer yes to the
    /// action's own `confirm()` only when it says so (see
    /// [`crate::gate::Decision::accepts_confirm`]).
    pub async fn dispatch(
        &self,
        pid: u64,
        action_id: String,
        cleared: &Cleared,
        timeout: Duration,
    ) -> Result<DispatchOutcome, DispatchError> {
        let (reply, rx) = oneshot::channel();
        let tx = {
            let mut inner = self.lock();
            let (conn, tab_id) = match inner.tabs.get(&pid) {
                Some(Tab {
                    conn: Some(conn),
                    tab_id,
                    ..
                }) => (*conn, *tab_id),
                _ => return Err(DispatchError::Detached),
            };
            let (tx, instance_id) = inner
                .conns
                .get(&conn)
                .map(|c| (c.tx.clone(), c.instance_id.clone()))
                .ok_or(DispatchError::Detached)?;
            inner.pending_actions.insert(
                action_id.clone(),
                PendingAction {
                    conn,
                    instance_id,
                    orphaned: false,
                    pid,
                    reply,
                },
            );
            (tx, tab_id)
        };
        let (tx, tab_id) = tx;
        let msg = DaemonMessage::Dispatch {
            action_id: action_id.clone(),
            tab_id,
            action: cleared.action().to_owned(),
            parameters: cleared.parameters().clone(),
            internal_target: cleared.internal_target().map(str::to_owned),
            accept_confirm: cleared.accepts_confirm(),
        };
        if tx.send(msg).await.is_err() {
            self.lock().pending_actions.remove(&action_id);
            return Err(DispatchError::Detached);
        }
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(outcome)) => Ok(outcome),
            Ok(Err(_)) => Err(DispatchError::OutcomeUnknown),
            Err(_) => {
                let pending = self.lock().pending_actions.remove(&action_id);
                // The connection dropped and no answer came over a new one before the
                // timeout: that is an unknown outcome, not a slow page.
                if pending.is_some_and(|p| p.orphaned) {
                    Err(DispatchError::OutcomeUnknown)
                } else {
                    Err(DispatchError::Timeout(timeout))
                }
            }
        }
    }

    /// Asks the tab for a fresh capture and waits until it has arrived.
    pub async fn fresh_capture(
        &self,
        pid: u64,
        timeout: Duration,
    ) -> Result<SubstrateState, ApiError> {
        let request_id = uuid::Uuid::now_v7().to_string();
        let (reply, rx) = oneshot::channel();
        let (tx, tab_id) = {
            let mut inner = self.lock();
            let tab = inner
                .tabs
                .get(&pid)
                .ok_or_else(|| ApiError::pid_not_found(&format!("pid {pid}")))?;
            let conn = tab.conn.ok_or_else(|| detached(pid))?;
            let tab_id = tab.tab_id;
            let tx = inner
                .conns
                .get(&conn)
                .map(|c| c.tx.clone())
                .ok_or_else(|| detached(pid))?;
            inner
                .pending_captures
                .insert(request_id.clone(), PendingCapture { conn, reply });
            (tx, tab_id)
        };
        let msg = DaemonMessage::Capture {
            request_id: request_id.clone(),
            tab_id,
        };
        if tx.send(msg).await.is_err() {
            self.lock().pending_captures.remove(&request_id);
            return Err(detached(pid));
        }
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(())) => self.state(pid),
            Ok(Err(_)) => Err(detached(pid)),
            Err(_) => {
                self.lock().pending_captures.remove(&request_id);
                Err(ApiError::new(
                    StatusCode::GATEWAY_TIMEOUT,
                    "probe_timeout",
                    format!(
                        "The page did not deliver a fresh capture within {} ms. It may be busy or frozen; retry, or read the last state without fresh=true.",
                        timeout.as_millis()
                    ),
                ))
            }
        }
    }
}

/// Where tabs live, for opening and closing them (`tab_ops`).
impl Hub {
    /// A connected browser to open a tab in: the oldest connection, or `None`.
    pub fn a_browser(&self) -> Option<(ConnId, mpsc::Sender<DaemonMessage>)> {
        let inner = self.lock();
        let conn = inner.conns.keys().min().copied()?;
        inner.conns.get(&conn).map(|c| (conn, c.tx.clone()))
    }

    /// The pid of browser tab `tab_id` of connection `conn`, once the extension has
    /// reported it.
    pub fn pid_of(&self, conn: ConnId, tab_id: i64) -> Option<u64> {
        let inner = self.lock();
        let instance = inner.conns.get(&conn)?.instance_id.clone();
        inner.by_browser_tab.get(&(instance, tab_id)).copied()
    }

    /// The connection and browser tab id of `pid`, with the connection's sender.
    pub fn location(&self, pid: u64) -> Option<(i64, mpsc::Sender<DaemonMessage>)> {
        let inner = self.lock();
        let tab = inner.tabs.get(&pid)?;
        let conn = inner.conns.get(&tab.conn?)?;
        Some((tab.tab_id, conn.tx.clone()))
    }
}

fn detached(pid: u64) -> ApiError {
    ApiError::new(
        StatusCode::SERVICE_UNAVAILABLE,
        "probe_detached",
        format!("The probe of tab {pid} is not connected (the browser or extension went away). List tabs again with GET /substrate/v1/apps."),
    )
}

fn not_ready(tab: &Tab) -> ApiError {
    let mut message = format!(
        "Tab {} has no capture yet (probe status: {}).",
        tab.pid,
        tab.status.as_str()
    );
    match &tab.message {
        Some(why) => {
            message.push(' ');
            message.push_str(why);
        }
        None => message.push_str(" Wait for the page to finish loading and retry."),
    }
    ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "probe_not_ready", message)
        .with("probe_status", tab.status.as_str())
}

fn summarize(tab: &Tab) -> AppSummary {
    let state = tab.current.as_ref();
    AppSummary {
        pid: tab.pid,
        app_id: tab.app_id.clone(),
        app_name: state
            .map(|s| s.app_name.clone())
            .or_else(|| tab.title.clone().filter(|t| !t.is_empty()))
            .or_else(|| tab.url.as_deref().and_then(host_of).map(str::to_owned))
            .unwrap_or_else(|| format!("tab {}", tab.tab_id)),
        runtime: "v8".into(),
        runtime_name: tab.browser.clone(),
        probe_status: tab.status,
        probe_message: tab.message.clone(),
        confidence: state.map_or(0.0, |s| s.confidence),
        object_count: state.map_or(0, |s| s.objects.len() as u64),
        action_count: state.map_or(0, |s| s.actions.len() as u64),
        last_captured_at: state.map(|s| s.captured_at.clone()),
        has_state: state.is_some(),
        current_view: state.and_then(|s| s.context.view.clone()),
        current_url: tab.url.clone(),
    }
}

fn build_state(tab: &Tab, capture: PageCapture) -> SubstrateState {
    let mut context = capture.context;
    context.window_id = context.window_id.or(tab.window_id.map(|w| w.to_string()));
    let app_name = if capture.app_name.trim().is_empty() {
        tab.title.clone().unwrap_or_default()
    } else {
        capture.app_name
    };
    SubstrateState {
        pid: tab.pid,
        app_id: tab.app_id.clone(),
        app_name,
        runtime: "v8".into(),
        confidence: round_confidence(capture.confidence),
        capture_id: uuid::Uuid::now_v7().to_string(),
        schema_version: SCHEMA_VERSION.into(),
        captured_at: now_rfc3339(),
        context,
        objects: capture.objects,
        actions: capture
            .actions
            .into_iter()
            .map(|(name, mut a)| {
                a.confidence = round_confidence(a.confidence);
                (name, a)
            })
            .collect(),
        probe_metadata: capture.probe_metadata,
    }
}

/// Keys whose values differ between two object maps (added, removed or changed), sorted.
/// Values compare with the equality `/diff` and `changed()` use
/// ([`nsp_verify::json_equal`]: numbers by value), so `/watch` reports exactly the keys
/// `/diff` lists.
pub fn changed_keys(
    before: &BTreeMap<String, Value>,
    after: &BTreeMap<String, Value>,
) -> Vec<String> {
    let mut keys: Vec<String> = before
        .iter()
        .filter(|(k, v)| !after.get(*k).is_some_and(|a| nsp_verify::json_equal(v, a)))
        .map(|(k, _)| k.clone())
        .collect();
    keys.extend(after.keys().filter(|k| !before.contains_key(*k)).cloned());
    keys.sort();
    keys
}

/// The current time as RFC 3339 (UTC, milliseconds).
pub fn now_rfc3339() -> String {
    let now = time::OffsetDateTime::now_utc();
    let now = now
        .replace_nanosecond(now.millisecond() as u32 * 1_000_000)
        .unwrap_or(now);
    now.format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_else(|_| now.unix_timestamp().to_string())
}

fn host_of(url: &str) -> Option<&str> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if host.starts_with('[') {
        host.split_once(']')
            .map_or(host, |(h, _)| h.trim_start_matches('['))
    } else {
        host.split(':').next().unwrap_or(host)
    };
    (!host.is_empty()).then_some(host)
}

/// `site slug + "-" + pid`, e.g. `mail-example-com-17`; stable for the tab's life.
fn make_app_id(url: Option<&str>, pid: u64) -> String {
    let host = url.and_then(host_of).unwrap_or("tab");
    let host = host.strip_prefix("www.").unwrap_or(host);
    let mut slug = String::new();
    for ch in host.chars() {
        if ch.is_ascii_alphanumeric() {
            slug.push(ch.to_ascii_lowercase());
        } else if !slug.ends_with('-') && !slug.is_empty() {
            slug.push('-');
        }
    }
    let slug = slug.trim_end_matches('-');
    let slug = if slug.is_empty() { "tab" } else { slug };
    format!("{slug}-{pid}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Map;

    #[test]
    fn app_ids_are_slugs_of_the_host() {
        assert_eq!(
            make_app_id(Some("https://www.Mail.example.com/inbox"), 7),
            "mail-example-com-7"
        );
        assert_eq!(
            make_app_id(Some("http://127.0.0.1:8080/"), 1),
            "127-0-0-1-1"
        );
        assert_eq!(make_app_id(Some("http://[::1]:80/x"), 2), "1-2");
        assert_eq!(make_app_id(None, 3), "tab-3");
    }

    /// Tab 1 of `conn`, announced active with nothing else known yet.
    fn announce_active(hub: &Hub, conn: ConnId) -> Option<u64> {
        hub.tab_state(
            conn,
            1,
            None,
            ProbeStatus::Active,
            None,
            None,
            None,
            None,
            None,
        )
    }

    fn capture_with(objects: Value) -> PageCapture {
        serde_json::from_value(serde_json::json!({
            "app_name": "A", "confidence": 0.9,
            "context": {"url": "http://127.0.0.1:9/x", "location": null, "view": null, "window_title": null, "window_id": null},
            "objects": objects,
            "actions": {"read_text": {"signature": "fn(selector: string) -> string", "reversibility": "read",
                "description": "Read text", "confidence": 1.0, "internal_target": "builtin:read_text", "parameters": []}},
            "probe_metadata": {"capture_latency_ms": 0.0, "labeling_latency_ms": 0.0, "total_latency_ms": 0.0,
                "raw_object_count": 1, "filtered_object_count": 1, "cache_hit": false, "probe_tier": null}
        }))
        .expect("capture")
    }

    /// The cached body is what a fresh serialization of the state gives, after every
    /// kind of change: a full capture, a delta, a detach and a reattach, a close.
    #[tokio::test]
    async fn the_cached_state_body_is_a_fresh_serialization_after_every_change() {
        let hub = Hub::new().with_reconnect_grace(Duration::ZERO);
        let fresh = |hub: &Hub, pid: u64| crate::http::json_bytes(&hub.state(pid).expect("state"));
        let (tx, _rx) = mpsc::channel(4);
        let conn = hub.connect("browser-a".into(), "Chromium 156".into(), tx);
        let announce = |hub: &Hub, conn: ConnId, capture: Option<PageCapture>| {
            hub.tab_state(
                conn,
                5,
                Some(1),
                ProbeStatus::Active,
                None,
                None,
                None,
                capture,
                None,
            )
            .expect("tab")
        };
        let pid = announce(&hub, conn, None);
        let err = hub.state_json(pid).expect_err("no capture yet");
        assert_eq!(err.code, hub.state(pid).expect_err("no capture").code);

        announce(&hub, conn, Some(capture_with(serde_json::json!({"n": 1}))));
        let first = hub.state_json(pid).expect("state");
        assert_eq!(first, fresh(&hub, pid));
        // Served from the cache: the same allocation, not a new serialization.
        assert_eq!(hub.state_json(pid).expect("again").as_ptr(), first.as_ptr());

        let delta = Delta {
            changed: [("n".to_owned(), Value::from(2))].into(),
            ..Delta::default()
        };
        hub.tab_delta(conn, 5, delta).expect("delta applied");
        let after_delta = hub.state_json(pid).expect("state");
        assert_ne!(after_delta, first, "a delta invalidates the cached body");
        assert_eq!(after_delta, fresh(&hub, pid));
        assert!(String::from_utf8_lossy(&after_delta).contains(r#""n":2"#));

        let delta = Delta {
            removed: vec!["n".to_owned()],
            confidence: Some(0.5),
            ..Delta::default()
        };
        hub.tab_delta(conn, 5, delta).expect("delta applied");
        let removed = hub.state_json(pid).expect("state");
        assert_eq!(removed, fresh(&hub, pid));
        assert!(!String::from_utf8_lossy(&removed).contains(r#""n":"#));

        announce(
            &hub,
            conn,
            Some(capture_with(serde_json::json!({"m": "x"}))),
        );
        let recaptured = hub.state_json(pid).expect("state");
        assert_ne!(
            recaptured, removed,
            "a full capture invalidates the cached body"
        );
        assert_eq!(recaptured, fresh(&hub, pid));

        // Detached: the same error as the uncached read, never the stale bytes.
        hub.disconnect(conn);
        let err = hub.state_json(pid).expect_err("detached");
        assert_eq!(err.code, hub.state(pid).expect_err("detached").code);
        let (tx, _rx2) = mpsc::channel(4);
        let conn = hub.connect("browser-a".into(), "Chromium 156".into(), tx);
        announce(&hub, conn, None);
        assert_eq!(hub.state_json(pid).expect("reattached"), fresh(&hub, pid));

        hub.tab_closed(conn, 5);
        let err = hub.state_json(pid).expect_err("closed");
        assert_eq!(err.code, hub.state(pid).expect_err("closed").code);
    }

    #[test]
    fn changed_keys_cover_added_removed_and_changed() {
        let a: BTreeMap<String, Value> = [("x".into(), 1.into()), ("y".into(), 2.into())].into();
        let b: BTreeMap<String, Value> = [("y".into(), 3.into()), ("z".into(), 4.into())].into();
        assert_eq!(changed_keys(&a, &b), vec!["x", "y", "z"]);
    }

    fn state_with(objects: Value) -> SubstrateState {
        serde_json::from_value(serde_json::json!({
            "pid": 1, "app_id": "a", "app_name": "A", "runtime": "v8", "confidence": 1.0,
            "capture_id": "c", "schema_version": "1.0.0", "captured_at": "2026-01-01T00:00:00Z",
            "context": {"url": null, "location": null, "view": null, "window_title": null, "window_id": null},
            "objects": objects, "actions": {},
            "probe_metadata": {"capture_latency_ms": 0.0, "labeling_latency_ms": 0.0, "total_latency_ms": 0.0,
                "raw_object_count": 0, "filtered_object_count": 0, "cache_hit": false, "probe_tier": null}
        }))
        .expect("state")
    }

    /// `/watch` (changed_keys) and `/diff` (changed_fields) use one equality: `3` and
    /// `3.0` are the same number in both, and a real change is one in both.
    #[test]
    fn watch_and_diff_agree_on_what_changed() {
        let before =
            state_with(serde_json::json!({"n": 3, "list": [1, {"x": 2}], "s": "a", "gone": 1}));
        let after = state_with(
            serde_json::json!({"n": 3.0, "list": [1.0, {"x": 2.0}], "s": "b", "new": 1}),
        );
        let watched = changed_keys(&before.objects, &after.objects);
        let diffed: Vec<String> = nsp_verify::changed_fields(&before, &after)
            .into_iter()
            .map(|c| c.path)
            .collect();
        assert_eq!(watched, vec!["gone", "new", "s"]);
        assert_eq!(watched, diffed);
    }

    #[tokio::test]
    async fn a_second_connection_cannot_claim_a_live_tab() {
        let hub = Hub::new();
        let (tx1, _rx1) = mpsc::channel(4);
        let (tx2, _rx2) = mpsc::channel(4);
        let c1 = hub.connect("browser-a".into(), "Chromium 156".into(), tx1);
        let c2 = hub.connect("browser-a".into(), "Chromium 156".into(), tx2);
        let pid = hub
            .tab_state(
                c1,
                5,
                None,
                ProbeStatus::Active,
                Some("http://127.0.0.1/".into()),
                None,
                None,
                None,
                None,
            )
            .expect("first claim");
        assert_eq!(
            hub.tab_state(
                c2,
                5,
                None,
                ProbeStatus::Error,
                None,
                None,
                None,
                None,
                None
            ),
            None
        );
        assert_eq!(
            hub.summary(pid).expect("tab").probe_status,
            ProbeStatus::Active
        );
        hub.tab_closed(c2, 5);
        assert!(
            hub.summary(pid).is_some(),
            "only the owner may close its tab"
        );
        // After the owner is gone, the same browser instance may reclaim its tab.
        hub.disconnect(c1);
        assert_eq!(
            hub.summary(pid).expect("tab").probe_status,
            ProbeStatus::Detached
        );
        let again = hub.tab_state(
            c2,
            5,
            None,
            ProbeStatus::Active,
            None,
            None,
            None,
            None,
            None,
        );
        assert_eq!(again, Some(pid));
    }

    #[tokio::test]
    async fn a_dropped_connection_makes_the_outcome_unknown() {
        let hub = Hub::new().with_reconnect_grace(Duration::from_millis(50));
        let (tx, mut rx) = mpsc::channel(4);
        let conn = hub.connect("b".into(), "Chromium".into(), tx);
        let pid = announce_active(&hub, conn).expect("tab");
        let hub2 = hub.clone();
        let task = tokio::spawn(async move {
            let cleared = crate::gate::Cleared::for_tests("read_text", Map::new());
            hub2.dispatch(pid, "a1".into(), &cleared, Duration::from_secs(5))
                .await
        });
        let sent = rx.recv().await.expect("dispatch sent");
        assert!(matches!(sent, DaemonMessage::Dispatch { .. }));
        hub.disconnect(conn);
        let result = task.await.expect("join");
        assert!(
            matches!(result, Err(DispatchError::OutcomeUnknown)),
            "{result:?}"
        );
    }

    /// A service worker that restarted (or a socket that dropped) reconnects with the
    /// same browser session and delivers the page's answer: the dispatch gets it. An
    /// answer from another browser session is not taken.
    #[tokio::test]
    async fn an_answer_after_a_reconnect_of_the_same_session_is_delivered() {
        let hub = Hub::new().with_reconnect_grace(Duration::from_secs(10));
        let (tx, mut rx) = mpsc::channel(4);
        let conn = hub.connect("b".into(), "Chromium".into(), tx);
        let announce = |conn| announce_active(&hub, conn);
        let pid = announce(conn).expect("tab");
        let hub2 = hub.clone();
        let task = tokio::spawn(async move {
            let cleared = crate::gate::Cleared::for_tests("read_text", Map::new());
            hub2.dispatch(pid, "a1".into(), &cleared, Duration::from_secs(20))
                .await
        });
        rx.recv().await.expect("dispatch sent");
        hub.disconnect(conn);

        let (tx_other, _rx_other) = mpsc::channel(4);
        let other = hub.connect("c".into(), "Chromium".into(), tx_other);
        let done = |v: &str| DispatchOutcome::Done {
            value: Value::String(v.into()),
            dialogs: Vec::new(),
        };
        hub.action_result(other, "a1", done("from another browser"));

        let (tx2, _rx2) = mpsc::channel(4);
        let again = hub.connect("b".into(), "Chromium".into(), tx2);
        assert_eq!(announce(again), Some(pid));
        hub.action_result(again, "a1", done("after the restart"));
        let result = task.await.expect("join");
        assert!(
            matches!(&result, Ok(DispatchOutcome::Done { value, .. }) if value == "after the restart"),
            "{result:?}"
        );
    }

    /// The stale-target guard sees rows reordered under a row action, which keeps its
    /// selector; a form action's choices are not its target.
    #[test]
    fn a_row_actions_fingerprint_follows_its_rows_order() {
        let schema = |target: &str, ids: &[&str]| ActionSchema {
            signature: "fn(email_id: string) -> bool".into(),
            reversibility: nsp_protocol::Reversibility::ReversibleWrite,
            description: String::new(),
            confidence: 0.99,
            internal_target: target.into(),
            parameters: vec![nsp_protocol::ActionParameter {
                name: "email_id".into(),
                type_name: "string".into(),
                required: true,
                description: String::new(),
                allowed_values: Some(ids.iter().map(|&i| Value::from(i)).collect()),
                default_value: None,
            }],
        };
        let row = "row:[data-nsp-action=\"archive\"] | [data-nsp-param] | param";
        assert_eq!(
            target_fingerprint(&schema(row, &["e1", "e2"])),
            target_fingerprint(&schema(row, &["e1", "e2"]))
        );
        assert_ne!(
            target_fingerprint(&schema(row, &["e1", "e2"])),
            target_fingerprint(&schema(row, &["e2", "e1"]))
        );
        let form = "dom:#compose button";
        assert_eq!(
            target_fingerprint(&schema(form, &["a", "b"])),
            target_fingerprint(&schema(form, &["b", "a"]))
        );
    }
}

//! The hub's registry: the extension connections, the tabs they announced and who
//! owns which, what tabs report (`tab_state`, `tab_delta`, `tab_closed`), the
//! stale-target guard's history and the per-tab action lock.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

use nsp_protocol::channel::{DaemonMessage, TabDelta};
use nsp_protocol::{
    round_confidence, ActionExplain, ActionSchema, PageCapture, ProbeStatus, SubstrateState,
    SCHEMA_VERSION,
};
use serde_json::Value;
use tokio::sync::mpsc;

use super::{ConnId, Hub, HubError, TabEvent, TabEventKind};
use crate::core::util::{host_of, now_rfc3339};

/// One connected extension (one browser).
#[derive(Debug)]
pub(super) struct Conn {
    pub(super) tx: mpsc::Sender<DaemonMessage>,
    pub(super) instance_id: String,
    browser: String,
}

/// One tab.
#[derive(Debug)]
pub(super) struct Tab {
    pub(super) pid: u64,
    pub(super) app_id: String,
    pub(super) conn: Option<ConnId>,
    /// The browser session the tab is in (`hello.instance_id`).
    pub(super) instance_id: String,
    pub(super) tab_id: i64,
    pub(super) window_id: Option<i64>,
    pub(super) status: ProbeStatus,
    pub(super) message: Option<String>,
    pub(super) url: Option<String>,
    pub(super) title: Option<String>,
    pub(super) browser: String,
    /// Shared, so readers take it under the lock by reference count and clone or
    /// serialize it outside.
    pub(super) current: Option<Arc<SubstrateState>>,
    /// `current` as `GET /state` sends it, serialized on the first read after each
    /// change and served as is until the next (`commit` clears it).
    pub(super) current_json: Option<bytes::Bytes>,
    /// Counts commits, so a serialization made outside the lock is kept only if no
    /// capture arrived meanwhile.
    pub(super) generation: u64,
    pub(super) previous: Option<Arc<SubstrateState>>,
    pub(super) explain: Arc<BTreeMap<String, ActionExplain>>,
    /// Recent captures' action targets, for the stale-target guard.
    history: VecDeque<(String, BTreeMap<String, String>)>,
    /// One action at a time per tab.
    action_lock: Arc<tokio::sync::Mutex<()>>,
}

/// How many recent captures the stale-target guard remembers.
const HISTORY: usize = 32;

/// What identifies an action's target: where it acts, what it takes, and what the
/// person sees of it: the labels of its bound elements (`explain`). A control whose
/// label turned from "Archive" into "Delete" is not the target an agent chose, even
/// at the same selector. A row action (`row:`) keeps one selector whatever the rows
/// are, so its rows count too: the values its row parameters may take, in the page's
/// order (the probe lists up to 25), and each row's cells. Rows reordered, added,
/// removed or rewritten since a capture then make `expected_capture_id` stale, as an
/// agent that chose "the third row" or "the one above X" needs (rows keyed by position
/// have nothing else to tell them apart).
fn target_fingerprint(a: &ActionSchema, explain: Option<&ActionExplain>) -> String {
    let mut fingerprint = format!("{}|{}", a.internal_target, a.signature);
    if let Some(explain) = explain {
        let labels: Vec<&str> = explain.elements.iter().map(|e| e.text.as_str()).collect();
        fingerprint.push_str("|labels=");
        fingerprint.push_str(&serde_json::to_string(&labels).unwrap_or_default());
    }
    if a.internal_target.starts_with("row:") {
        for p in &a.parameters {
            if let Some(values) = &p.allowed_values {
                fingerprint.push('|');
                fingerprint.push_str(&p.name);
                fingerprint.push('=');
                fingerprint.push_str(&Value::Array(values.clone()).to_string());
            }
        }
        if let Some(explain) = explain {
            fingerprint.push_str("|rows=");
            fingerprint.push_str(&serde_json::to_string(&explain.rows).unwrap_or_default());
        }
    }
    fingerprint
}

/// A new capture made ready to commit: the keys that changed since the one it follows
/// and its actions' target fingerprints, worked out without the hub's lock where the
/// caller can (a delta).
struct Prepared {
    state: SubstrateState,
    changed: Vec<String>,
    targets: BTreeMap<String, String>,
}

impl Prepared {
    fn new(
        before: Option<&SubstrateState>,
        state: SubstrateState,
        explain: &BTreeMap<String, ActionExplain>,
    ) -> Prepared {
        let changed = match before {
            Some(prev) => changed_keys(&prev.objects, &state.objects),
            None => state.objects.keys().cloned().collect(),
        };
        let targets = state
            .actions
            .iter()
            .map(|(n, a)| (n.clone(), target_fingerprint(a, explain.get(n))))
            .collect();
        Prepared {
            state,
            changed,
            targets,
        }
    }
}

impl Tab {
    /// Makes `state` the current capture (explained by `self.explain`) and returns the
    /// keys that changed.
    fn commit(&mut self, state: SubstrateState) -> Vec<String> {
        let prepared = Prepared::new(self.current.as_deref(), state, &self.explain);
        let (changed, _dropped) = self.install(prepared);
        changed
    }

    /// Commits a prepared capture. Returns the keys that changed and the capture that
    /// dropped out of `previous`, for the caller to free after the lock.
    fn install(&mut self, prepared: Prepared) -> (Vec<String>, Option<Arc<SubstrateState>>) {
        let Prepared {
            state,
            changed,
            targets,
        } = prepared;
        if let Some(url) = &state.context.url {
            self.url = Some(url.clone());
        }
        self.history.push_back((state.capture_id.clone(), targets));
        while self.history.len() > HISTORY {
            self.history.pop_front();
        }
        let dropped = std::mem::replace(&mut self.previous, self.current.replace(Arc::new(state)));
        self.current_json = None;
        self.generation += 1;
        (changed, dropped)
    }
}

/// The state a tab's capture becomes: the probe's capture with the tab's identity, a
/// new capture id and the time.
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

/// What a tab reported (`ExtensionMessage::TabState`): its status, what is known of
/// the page, and maybe a capture (the answer to a fresh-capture request when
/// `request_id` is set).
#[derive(Debug)]
pub struct TabReport {
    /// The browser's id of the tab.
    pub tab_id: i64,
    pub window_id: Option<i64>,
    pub status: ProbeStatus,
    pub url: Option<String>,
    pub title: Option<String>,
    /// What the extension says about the probe (an error, why it is not ready).
    pub message: Option<String>,
    pub capture: Option<PageCapture>,
    pub request_id: Option<String>,
}

impl TabReport {
    /// A report of tab `tab_id`'s status and nothing else; set the other fields with
    /// struct update syntax.
    pub fn new(tab_id: i64, status: ProbeStatus) -> TabReport {
        TabReport {
            tab_id,
            window_id: None,
            status,
            url: None,
            title: None,
            message: None,
            capture: None,
            request_id: None,
        }
    }
}

/// The stale-target guard's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetCheck {
    Same,
    Changed,
    /// The capture is not (or no longer) known to the daemon.
    UnknownCapture,
}

impl Hub {
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
    /// (their senders are dropped). Dispatched actions wait
    /// [`RECONNECT_GRACE`](super::RECONNECT_GRACE) more for their answer over a new
    /// connection from the same browser session (the service worker restarted or the
    /// socket dropped, the page still answers); then their outcome is unknown.
    pub fn disconnect(&self, conn: ConnId) {
        let mut detached = Vec::new();
        let orphaned = {
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
            inner.captures.connection_closed(conn, false);
            inner.resolves.connection_closed(conn, false);
            inner.actions.connection_closed(conn, grace)
        };
        if !orphaned.is_empty() {
            let hub = self.clone();
            tokio::spawn(async move {
                tokio::time::sleep(hub.reconnect_grace).await;
                // Still orphaned and unanswered: dropping the sender tells the waiting
                // dispatch that the outcome is unknown.
                hub.lock().actions.drop_orphans(&orphaned);
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
    pub fn tab_state(&self, conn: ConnId, report: TabReport) -> Option<u64> {
        let tab_id = report.tab_id;
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
                let app_id = make_app_id(report.url.as_deref(), pid);
                inner.tabs.insert(
                    pid,
                    Tab {
                        pid,
                        app_id,
                        conn: Some(conn),
                        instance_id: instance_id.clone(),
                        tab_id,
                        window_id: report.window_id,
                        status: report.status,
                        message: None,
                        url: None,
                        title: None,
                        browser: browser.clone(),
                        current: None,
                        current_json: None,
                        generation: 0,
                        previous: None,
                        explain: Arc::default(),
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
        tab.status = report.status;
        tab.message = report.message;
        if report.window_id.is_some() {
            tab.window_id = report.window_id;
        }
        if report.url.is_some() {
            tab.url = report.url;
        }
        if report.title.is_some() {
            tab.title = report.title;
        }
        let event = match report.capture {
            Some(mut capture) => {
                tab.explain = Arc::new(std::mem::take(&mut capture.explain));
                let state = build_state(tab, capture);
                TabEventKind::Captured {
                    changed_keys: tab.commit(state),
                }
            }
            None => TabEventKind::Status,
        };
        if report.status == ProbeStatus::Detecting {
            // A navigation: the document asked for a fresh capture is gone, and the
            // next one's first capture is as fresh as any answer could be.
            inner.captures.document_gone(pid);
        } else if matches!(event, TabEventKind::Captured { .. }) {
            inner
                .captures
                .answer_new_document(pid, conn, Some(&instance_id), || ());
        }
        if let Some(request_id) = report.request_id {
            // The answer to a fresh-capture request (or a late one nobody waits for).
            inner
                .captures
                .answer(&request_id, conn, Some(&instance_id), ());
        }
        drop(inner);
        self.emit(TabEvent { pid, kind: event });
        Some(pid)
    }

    /// Applies an incremental update to the tab's last capture. Ignored (with a log
    /// line) when the tab is not this connection's or has no capture to apply it to.
    pub fn tab_delta(&self, conn: ConnId, tab_id: i64, delta: TabDelta) -> Option<u64> {
        // The tab's current capture, taken under the lock by reference; the copy, the
        // delta and the comparison happen outside it, so readers of every tab are not
        // held up by a tab's update.
        let (pid, base, generation, window_id, base_explain) = {
            let inner = self.lock();
            let instance_id = inner.conns.get(&conn)?.instance_id.clone();
            let pid = *inner.by_browser_tab.get(&(instance_id, tab_id))?;
            let tab = inner.tabs.get(&pid)?;
            if tab.conn != Some(conn) {
                tracing::warn!(
                    conn,
                    tab_id,
                    "a delta for a tab owned by another connection; ignored"
                );
                return None;
            }
            let Some(base) = tab.current.clone() else {
                tracing::debug!(pid, "a delta before any full capture; ignored");
                return None;
            };
            (
                pid,
                base,
                tab.generation,
                tab.window_id,
                tab.explain.clone(),
            )
        };
        let TabDelta {
            changed,
            removed,
            actions,
            explain,
            confidence,
            context,
            probe_metadata,
        } = delta;
        let mut state = SubstrateState::clone(&base);
        // Removed first, then changed (a key in both keeps its new value), the order of
        // extension/delta.js; daemon/tests/delta_order.rs checks both.
        for key in &removed {
            state.objects.remove(key);
        }
        state.objects.extend(changed);
        if let Some(actions) = actions {
            state.actions = actions
                .into_iter()
                .map(|(name, mut a)| {
                    a.confidence = round_confidence(a.confidence);
                    (name, a)
                })
                .collect();
        }
        if let Some(c) = confidence {
            state.confidence = round_confidence(c);
        }
        if let Some(mut context) = context {
            context.window_id = context.window_id.or(window_id.map(|w| w.to_string()));
            state.context = context;
        }
        if let Some(meta) = probe_metadata {
            state.probe_metadata = meta;
        }
        state.capture_id = uuid::Uuid::now_v7().to_string();
        state.captured_at = now_rfc3339();
        // The delta's explanations when it brings them, else the tab's unchanged ones.
        let explain = explain.map(Arc::new).unwrap_or(base_explain);
        let prepared = Prepared::new(Some(&base), state, &explain);
        drop(base);
        let (changed_keys, dropped) = {
            let mut inner = self.lock();
            let tab = inner.tabs.get_mut(&pid)?;
            // One connection's messages are handled in order, so nothing else commits
            // to its tab in between; a detach or a new owner meanwhile drops the delta.
            if tab.conn != Some(conn) || tab.generation != generation {
                tracing::debug!(
                    pid,
                    "the tab changed hands while a delta was applied; ignored"
                );
                return None;
            }
            tab.explain = explain;
            tab.install(prepared)
        };
        drop(dropped);
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
        // The whole id, or its last digits as the model view writes them
        // (`model_view::short_capture`): those must name one recent capture.
        let short = capture_id.len() >= crate::core::model_view::SHORT_CAPTURE_LEN;
        let mut found = tab.history.iter().filter(|(id, _)| {
            id == capture_id || (short && id.len() > capture_id.len() && id.ends_with(capture_id))
        });
        let (Some((_, then)), None) = (found.next(), found.next()) else {
            return TargetCheck::UnknownCapture;
        };
        // The newest entry is the current capture's, made with its explanations.
        let now = tab
            .history
            .back()
            .and_then(|(_, targets)| targets.get(action));
        match (then.get(action), now) {
            (Some(a), Some(b)) if a == b => TargetCheck::Same,
            _ => TargetCheck::Changed,
        }
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
            inner.actions.tab_closed(pid);
            inner.resolves.tab_closed(pid);
            pid
        };
        self.emit(TabEvent {
            pid,
            kind: TabEventKind::Closed,
        });
    }

    /// The tab's app_id.
    pub fn app_id(&self, pid: u64) -> Option<String> {
        self.lock().tabs.get(&pid).map(|t| t.app_id.clone())
    }

    /// Resolves a pid or app_id to a pid.
    pub fn resolve(&self, pid: Option<u64>, app_id: Option<&str>) -> Result<u64, HubError> {
        let inner = self.lock();
        match (pid, app_id) {
            (Some(pid), app_id) => {
                let tab = inner.tabs.get(&pid).ok_or(HubError::UnknownPid(pid))?;
                match app_id {
                    Some(app_id) if tab.app_id != app_id => Err(HubError::AppIdMismatch {
                        pid,
                        actual: tab.app_id.clone(),
                        app_id: app_id.to_owned(),
                    }),
                    _ => Ok(pid),
                }
            }
            (None, Some(app_id)) => inner
                .tabs
                .values()
                .find(|t| t.app_id == app_id)
                .map(|t| t.pid)
                .ok_or_else(|| HubError::UnknownAppId(app_id.to_owned())),
            (None, None) => Err(HubError::NoTabNamed),
        }
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

// --- for `crate::core::approvals` and `crate::core::tab_ops`: where to reach a tab's browser ------------------------------------

impl Hub {
    /// The held actions waiting for the person.
    pub fn questions(&self) -> &super::questions::Questions {
        &self.questions
    }

    /// Where to put a question about tab `pid`: its browser tab id, the browser session
    /// (`hello.instance_id`) and the sender of its live connection.
    pub fn tab_channel(&self, pid: u64) -> Option<(i64, String, mpsc::Sender<DaemonMessage>)> {
        let inner = self.lock();
        let tab = inner.tabs.get(&pid)?;
        let conn = inner.conns.get(&tab.conn?)?;
        Some((tab.tab_id, conn.instance_id.clone(), conn.tx.clone()))
    }

    /// Who a tab is, for an agent's scope: its browser session, browser tab id and URL.
    pub fn identity(&self, pid: u64) -> Option<(String, i64, Option<String>)> {
        let inner = self.lock();
        let tab = inner.tabs.get(&pid)?;
        Some((tab.instance_id.clone(), tab.tab_id, tab.url.clone()))
    }

    /// The pids of every known tab.
    pub fn pids(&self) -> Vec<u64> {
        self.lock().tabs.keys().copied().collect()
    }

    /// The browser tab id of `pid` and the sender of its live connection (`tab_ops`).
    pub fn location(&self, pid: u64) -> Option<(i64, mpsc::Sender<DaemonMessage>)> {
        self.tab_channel(pid).map(|(tab_id, _, tx)| (tab_id, tx))
    }

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

    /// The browser session of a live connection.
    pub fn conn_instance(&self, conn: ConnId) -> Option<String> {
        self.lock().conns.get(&conn).map(|c| c.instance_id.clone())
    }

    /// The senders of every live connection of one browser session.
    pub fn instance_senders(&self, instance_id: &str) -> Vec<mpsc::Sender<DaemonMessage>> {
        self.lock()
            .conns
            .values()
            .filter(|c| c.instance_id == instance_id)
            .map(|c| c.tx.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use nsp_protocol::channel::DispatchOutcome;
    use serde_json::Map;

    use super::*;
    use crate::core::hub::DispatchError;

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
        hub.tab_state(conn, TabReport::new(1, ProbeStatus::Active))
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

    /// `expected_capture_id` takes the whole id or the last 8 characters the model view
    /// writes; fewer characters, or digits no recent capture ends with, are unknown.
    #[tokio::test]
    async fn a_capture_is_named_by_its_id_or_its_last_digits() {
        let hub = Hub::new().with_reconnect_grace(Duration::ZERO);
        let (tx, _rx) = mpsc::channel(4);
        let conn = hub.connect("browser-a".into(), "Chromium 156".into(), tx);
        let pid = hub
            .tab_state(
                conn,
                TabReport {
                    window_id: Some(1),
                    capture: Some(capture_with(serde_json::json!({"n": 1}))),
                    ..TabReport::new(5, ProbeStatus::Active)
                },
            )
            .expect("tab");
        let id = hub.state(pid).expect("state").capture_id.clone();
        let short = crate::core::model_view::short_capture(&id);
        assert_eq!(short.len(), 8);
        for given in [id.as_str(), short] {
            assert_eq!(
                hub.target_since(pid, given, "read_text"),
                TargetCheck::Same,
                "{given}"
            );
        }
        for given in [&short[1..], "ffffffff", ""] {
            assert_eq!(
                hub.target_since(pid, given, "read_text"),
                TargetCheck::UnknownCapture,
                "{given}"
            );
        }
    }

    /// The cached body is what a fresh serialization of the state gives, after every
    /// kind of change: a full capture, a delta, a detach and a reattach, a close.
    #[tokio::test]
    async fn the_cached_state_body_is_a_fresh_serialization_after_every_change() {
        let hub = Hub::new().with_reconnect_grace(Duration::ZERO);
        let fresh =
            |hub: &Hub, pid: u64| crate::core::util::json_bytes(&hub.state(pid).expect("state"));
        let (tx, _rx) = mpsc::channel(4);
        let conn = hub.connect("browser-a".into(), "Chromium 156".into(), tx);
        let announce = |hub: &Hub, conn: ConnId, capture: Option<PageCapture>| {
            hub.tab_state(
                conn,
                TabReport {
                    window_id: Some(1),
                    capture,
                    ..TabReport::new(5, ProbeStatus::Active)
                },
            )
            .expect("tab")
        };
        let pid = announce(&hub, conn, None);
        let err = hub.state_json(pid).expect_err("no capture yet");
        assert!(matches!(err, HubError::NotReady { .. }), "{err:?}");
        assert_eq!(err, hub.state(pid).expect_err("no capture"));

        announce(&hub, conn, Some(capture_with(serde_json::json!({"n": 1}))));
        let first = hub.state_json(pid).expect("state");
        assert_eq!(first, fresh(&hub, pid));
        // Served from the cache: the same allocation, not a new serialization.
        assert_eq!(hub.state_json(pid).expect("again").as_ptr(), first.as_ptr());

        let delta = TabDelta {
            changed: [("n".to_owned(), Value::from(2))].into(),
            ..TabDelta::default()
        };
        hub.tab_delta(conn, 5, delta).expect("delta applied");
        let after_delta = hub.state_json(pid).expect("state");
        assert_ne!(after_delta, first, "a delta invalidates the cached body");
        assert_eq!(after_delta, fresh(&hub, pid));
        assert!(String::from_utf8_lossy(&after_delta).contains(r#""n":2"#));

        let delta = TabDelta {
            removed: vec!["n".to_owned()],
            confidence: Some(0.5),
            ..TabDelta::default()
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
        assert_eq!(err, HubError::Detached(pid));
        assert_eq!(err, hub.state(pid).expect_err("detached"));
        let (tx, _rx2) = mpsc::channel(4);
        let conn = hub.connect("browser-a".into(), "Chromium 156".into(), tx);
        announce(&hub, conn, None);
        assert_eq!(hub.state_json(pid).expect("reattached"), fresh(&hub, pid));

        hub.tab_closed(conn, 5);
        let err = hub.state_json(pid).expect_err("closed");
        assert_eq!(err, HubError::UnknownPid(pid));
        assert_eq!(err, hub.state(pid).expect_err("closed"));
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
                TabReport {
                    url: Some("http://127.0.0.1/".into()),
                    ..TabReport::new(5, ProbeStatus::Active)
                },
            )
            .expect("first claim");
        assert_eq!(
            hub.tab_state(c2, TabReport::new(5, ProbeStatus::Error)),
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
        let again = hub.tab_state(c2, TabReport::new(5, ProbeStatus::Active));
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
            let cleared = crate::core::gate::Cleared::for_tests("read_text", Map::new());
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
            let cleared = crate::core::gate::Cleared::for_tests("read_text", Map::new());
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
                secret: false,
            }],
        };
        let row = "row:[data-nsp-action=\"archive\"] | [data-nsp-param] | param";
        assert_eq!(
            target_fingerprint(&schema(row, &["e1", "e2"]), None),
            target_fingerprint(&schema(row, &["e1", "e2"]), None)
        );
        assert_ne!(
            target_fingerprint(&schema(row, &["e1", "e2"]), None),
            target_fingerprint(&schema(row, &["e2", "e1"]), None)
        );
        let form = "dom:#compose button";
        assert_eq!(
            target_fingerprint(&schema(form, &["a", "b"]), None),
            target_fingerprint(&schema(form, &["b", "a"]), None)
        );
    }

    /// The labels of an action's elements and a row action's cells are part of its
    /// target: "Archive" relabelled "Delete" at the same selector, or a row keyed by
    /// position whose cells changed, is another target.
    #[test]
    fn labels_and_row_cells_are_part_of_the_fingerprint() {
        let schema = |target: &str| ActionSchema {
            signature: "fn(index: number) -> bool".into(),
            reversibility: nsp_protocol::Reversibility::ReversibleWrite,
            description: String::new(),
            confidence: 0.99,
            internal_target: target.into(),
            parameters: Vec::new(),
        };
        let explain = |label: &str, rows: &[&[&str]]| ActionExplain {
            elements: vec![nsp_protocol::ExplainElement {
                tag: "button".into(),
                selector: "#b".into(),
                text: label.into(),
                ..Default::default()
            }],
            rows: rows
                .iter()
                .map(|r| r.iter().map(|c| c.to_string()).collect())
                .collect(),
            ..Default::default()
        };
        let button = schema("dom:#b");
        assert_eq!(
            target_fingerprint(&button, Some(&explain("Archive", &[]))),
            target_fingerprint(&button, Some(&explain("Archive", &[])))
        );
        assert_ne!(
            target_fingerprint(&button, Some(&explain("Archive", &[]))),
            target_fingerprint(&button, Some(&explain("Delete", &[])))
        );
        let row = schema("row:ul > li button | ul > li | index");
        assert_ne!(
            target_fingerprint(&row, Some(&explain("Archive", &[&["Ann", "Hi"]]))),
            target_fingerprint(&row, Some(&explain("Archive", &[&["Bob", "Invoice"]])))
        );
    }
}

//! The hub: which browsers are connected, which tabs they announced, each tab's last
//! two captures, and the actions and captures waiting for a page's answer.
//!
//! - `registry.rs`: connections and tabs, who owns which, and what they report
//!   (`tab_state`, `tab_delta`, `tab_closed`), the stale-target history and the
//!   per-tab action lock;
//! - `pending.rs`: requests sent to a page and waiting for its answer, one generic
//!   table ([`pending::Pending`]) used by dispatched actions, fresh captures and
//!   selector resolutions;
//! - `views.rs`: what the agent API reads (summaries, the state and its cached JSON
//!   body, the last two captures, explanations);
//! - `error.rs`: [`HubError`], the domain errors the agent API maps to its own.
//!
//! Invariants: a tab belongs to the connection that announced it, and only that
//! connection (or a later one of the same browser instance, after the first closed)
//! can update it or answer for it. A pid is never reused while the daemon runs.

mod error;
mod pending;
pub mod questions;
mod registry;
pub mod tab_requests;
mod views;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use nsp_protocol::channel::{DispatchOutcome, Resolution};
use tokio::sync::broadcast;

pub use error::HubError;
pub use pending::{DispatchError, ResolveError, RECONNECT_GRACE};
pub use registry::{changed_keys, TabReport, TargetCheck};

use pending::Pending;
use registry::{Conn, Tab};

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

#[derive(Debug)]
struct Inner {
    next_pid: u64,
    next_conn: ConnId,
    conns: HashMap<ConnId, Conn>,
    tabs: BTreeMap<u64, Tab>,
    by_browser_tab: HashMap<(String, i64), u64>,
    /// Dispatched actions, by action id.
    actions: Pending<DispatchOutcome>,
    /// Fresh captures asked for, by request id.
    captures: Pending<()>,
    /// Selectors sent to a page to resolve, by request id.
    resolves: Pending<Resolution>,
}

/// Shared daemon state. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Hub {
    inner: Arc<Mutex<Inner>>,
    events: broadcast::Sender<TabEvent>,
    started: Instant,
    max_tabs: usize,
    reconnect_grace: Duration,
    /// Held actions waiting for the person (`crate::core::approvals`).
    questions: questions::Questions,
    /// Tabs nspd asked the browser to open or close, waiting for the answer.
    pub tab_requests: Arc<tab_requests::TabRequests>,
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
                conns: HashMap::new(),
                tabs: BTreeMap::new(),
                by_browser_tab: HashMap::new(),
                actions: Pending::default(),
                captures: Pending::default(),
                resolves: Pending::default(),
            })),
            events,
            started: Instant::now(),
            max_tabs,
            reconnect_grace: RECONNECT_GRACE,
            questions: questions::Questions::default(),
            tab_requests: Arc::default(),
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

    pub fn tab_count(&self) -> usize {
        self.lock().tabs.len()
    }

    /// How many extension connections are open (`nspd inspect` waits for the first).
    pub fn connection_count(&self) -> usize {
        self.lock().conns.len()
    }
}

//! Requests sent to a page that wait for its answer: dispatched actions (answered by
//! `action_result`), fresh captures (answered by a `tab_state` carrying the request
//! id) and selector resolutions (answered by `resolved`). One table type and one wait
//! serve all; they differ only in what the answer carries and in whether a closed
//! connection's requests may still be answered over a new connection of the same
//! browser session (actions may, within [`RECONNECT_GRACE`]; captures and resolutions,
//! which change nothing, are simply asked again).

use std::collections::HashMap;
use std::time::Duration;

use nsp_protocol::channel::{DaemonMessage, DispatchOutcome, Resolution};
use nsp_protocol::SubstrateState;
use tokio::sync::oneshot;

use super::{ConnId, Hub, HubError, Inner};
use crate::core::gate::Cleared;

/// How long a dispatched action whose connection closed waits for its answer over a
/// new connection from the same browser session. A stopped service worker is woken
/// again by the page's answer and reconnects at once, and a dropped socket reconnects
/// after 0.25 to 0.75 s; beyond this the outcome is unknown.
pub const RECONNECT_GRACE: Duration = Duration::from_secs(5);

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

/// Why a selector was not resolved.
#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    #[error("the tab's probe is not connected")]
    Detached,
    /// No answer in time: a busy page, or an extension older than `resolve` that
    /// ignores the message.
    #[error("the page did not say what the selector finds within {0:?}")]
    Timeout(Duration),
}

/// One request waiting for its answer.
#[derive(Debug)]
struct Waiter<T> {
    /// The connection the request was sent on.
    conn: ConnId,
    /// The browser session (`hello.instance_id`) of `conn`: after a reconnect the same
    /// session may still deliver the answer.
    instance_id: String,
    /// Set when `conn` closed and the request may still be answered: from then on the
    /// answer may come from a new connection of the same browser session.
    orphaned: bool,
    /// Set when the document the request went to started unloading: the next
    /// document's first capture answers it instead (captures only).
    document_gone: bool,
    pid: u64,
    reply: oneshot::Sender<T>,
}

/// Requests waiting for an answer of type `T`, by request id.
#[derive(Debug)]
pub(super) struct Pending<T> {
    waiting: HashMap<String, Waiter<T>>,
}

impl<T> Default for Pending<T> {
    fn default() -> Self {
        Pending {
            waiting: HashMap::new(),
        }
    }
}

/// What became of an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Delivery {
    Delivered,
    /// Someone waits for it, but not from this connection or browser session.
    NotAsked,
    /// Nobody waits (late, duplicate, or never asked).
    NobodyWaits,
}

/// Why a request to a page got no answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WaitError {
    UnknownTab,
    Detached,
    Timeout,
    /// The answer can no longer come: the connection closed (and, for requests that
    /// may be answered after a reconnect, no new one answered in time).
    Lost,
}

impl<T> Pending<T> {
    /// Registers request `id`, sent on `conn` for tab `pid`; the receiver gets the answer,
    /// or an error when the request is given up.
    fn insert(
        &mut self,
        id: String,
        conn: ConnId,
        instance_id: String,
        pid: u64,
    ) -> oneshot::Receiver<T> {
        let (reply, rx) = oneshot::channel();
        self.waiting.insert(
            id,
            Waiter {
                conn,
                instance_id,
                orphaned: false,
                document_gone: false,
                pid,
                reply,
            },
        );
        rx
    }

    /// Delivers an answer that came on `conn` (of browser session `instance`): taken
    /// from the connection the request went out on or, once that closed, from a new
    /// connection of the same session.
    pub(super) fn answer(
        &mut self,
        id: &str,
        conn: ConnId,
        instance: Option<&str>,
        value: T,
    ) -> Delivery {
        match self.waiting.get(id) {
            Some(w) if w.conn == conn || (w.orphaned && instance == Some(&w.instance_id)) => {
                if let Some(w) = self.waiting.remove(id) {
                    let _ = w.reply.send(value);
                }
                Delivery::Delivered
            }
            Some(_) => Delivery::NotAsked,
            None => Delivery::NobodyWaits,
        }
    }

    /// Gives up request `id`; returns whether it was orphaned (its connection closed),
    /// or `None` when it was no longer waiting.
    fn cancel(&mut self, id: &str) -> Option<bool> {
        self.waiting.remove(id).map(|w| w.orphaned)
    }

    /// `conn` closed. With `grace`, its requests stay, orphaned, and their ids are
    /// returned (for [`Pending::drop_orphans`] after the grace); without, they are
    /// given up at once (their receivers see the sender dropped).
    pub(super) fn connection_closed(&mut self, conn: ConnId, grace: bool) -> Vec<String> {
        let mut orphaned = Vec::new();
        self.waiting.retain(|id, w| {
            if w.conn != conn {
                return true;
            }
            if grace {
                w.orphaned = true;
                orphaned.push(id.clone());
            }
            grace
        });
        orphaned
    }

    /// Gives up the requests among `ids` still orphaned and unanswered.
    pub(super) fn drop_orphans(&mut self, ids: &[String]) {
        for id in ids {
            if self.waiting.get(id).is_some_and(|w| w.orphaned) {
                self.waiting.remove(id);
            }
        }
    }

    /// Tab `pid`'s document is unloading (a navigation): what was asked of it will be
    /// answered by the next document, if at all.
    pub(super) fn document_gone(&mut self, pid: u64) {
        for w in self.waiting.values_mut().filter(|w| w.pid == pid) {
            w.document_gone = true;
        }
    }

    /// Delivers `value()` to every request of tab `pid` whose document unloaded, from
    /// the connection it went out on (or its session after a reconnect).
    pub(super) fn answer_new_document(
        &mut self,
        pid: u64,
        conn: ConnId,
        instance: Option<&str>,
        value: impl Fn() -> T,
    ) {
        let ids: Vec<String> = self
            .waiting
            .iter()
            .filter(|(_, w)| {
                w.pid == pid
                    && w.document_gone
                    && (w.conn == conn || (w.orphaned && instance == Some(&w.instance_id)))
            })
            .map(|(id, _)| id.clone())
            .collect();
        for id in ids {
            if let Some(w) = self.waiting.remove(&id) {
                let _ = w.reply.send(value());
            }
        }
    }

    /// The tab went away: its requests are given up.
    pub(super) fn tab_closed(&mut self, pid: u64) {
        self.waiting.retain(|_, w| w.pid != pid);
    }
}

impl Hub {
    /// Sends `message(tab_id)` to the page of tab `pid` as request `id` in `table`, and
    /// waits up to `timeout` for its answer.
    async fn ask<T>(
        &self,
        pid: u64,
        id: String,
        table: fn(&mut Inner) -> &mut Pending<T>,
        message: impl FnOnce(i64) -> DaemonMessage,
        timeout: Duration,
    ) -> Result<T, WaitError> {
        let (tx, rx, tab_id) = {
            let mut inner = self.lock();
            let tab = inner.tabs.get(&pid).ok_or(WaitError::UnknownTab)?;
            let (conn, tab_id) = (tab.conn.ok_or(WaitError::Detached)?, tab.tab_id);
            let (tx, instance_id) = inner
                .conns
                .get(&conn)
                .map(|c| (c.tx.clone(), c.instance_id.clone()))
                .ok_or(WaitError::Detached)?;
            // A tab between documents (a navigation under way: its page said it is
            // going, the next one has not reported) will not answer from the old
            // document: the next one's first capture is the answer.
            let between = tab.status == nsp_protocol::ProbeStatus::Detecting;
            let pending = table(&mut inner);
            let rx = pending.insert(id.clone(), conn, instance_id, pid);
            if between {
                pending.document_gone(pid);
            }
            (tx, rx, tab_id)
        };
        if tx.send(message(tab_id)).await.is_err() {
            table(&mut self.lock()).cancel(&id);
            return Err(WaitError::Detached);
        }
        match tokio::time::timeout(timeout, rx).await {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(_)) => Err(WaitError::Lost),
            // The connection dropped and no answer came over a new one before the
            // timeout: that is a lost answer, not a slow page.
            Err(_) => match table(&mut self.lock()).cancel(&id) {
                Some(true) => Err(WaitError::Lost),
                _ => Err(WaitError::Timeout),
            },
        }
    }

    /// Sends an action the gate cleared to the tab's page and waits for its answer. Only
    /// [`crate::core::gate::check`] makes a [`Cleared`]; the page may answer yes to the
    /// action's own `confirm()` only when it says so (see
    /// [`crate::core::gate::Decision::accepts_confirm`]).
    pub async fn dispatch(
        &self,
        pid: u64,
        action_id: String,
        cleared: &Cleared,
        timeout: Duration,
    ) -> Result<DispatchOutcome, DispatchError> {
        let message = |tab_id| DaemonMessage::Dispatch {
            action_id: action_id.clone(),
            tab_id,
            action: cleared.action().to_owned(),
            parameters: cleared.parameters().clone(),
            internal_target: cleared.internal_target().map(str::to_owned),
            accept_confirm: cleared.accepts_confirm(),
            expect: Some(cleared.expect().clone()),
        };
        self.ask(
            pid,
            action_id.clone(),
            |inner| &mut inner.actions,
            message,
            timeout,
        )
        .await
        .map_err(|e| match e {
            WaitError::UnknownTab | WaitError::Detached => DispatchError::Detached,
            WaitError::Timeout => DispatchError::Timeout(timeout),
            WaitError::Lost => DispatchError::OutcomeUnknown,
        })
    }

    /// The page answered a dispatch: on the connection it was sent on, or, once that
    /// closed, on a new connection of the same browser session.
    pub fn action_result(&self, conn: ConnId, action_id: &str, outcome: DispatchOutcome) {
        let mut inner = self.lock();
        let instance = inner.conns.get(&conn).map(|c| c.instance_id.clone());
        match inner
            .actions
            .answer(action_id, conn, instance.as_deref(), outcome)
        {
            Delivery::Delivered => {}
            Delivery::NotAsked => tracing::warn!(
                conn,
                action_id,
                "an action result from a connection that was not asked; ignored"
            ),
            Delivery::NobodyWaits => tracing::debug!(
                conn,
                action_id,
                "an action result nobody waits for (late or duplicate)"
            ),
        }
    }

    /// Asks the tab's page which element `selector` finds (`resolve`), waiting up to
    /// `timeout` for its `resolved`.
    pub async fn resolve_selector(
        &self,
        pid: u64,
        selector: &str,
        timeout: Duration,
    ) -> Result<Resolution, ResolveError> {
        let request_id = uuid::Uuid::now_v7().to_string();
        let message = |tab_id| DaemonMessage::Resolve {
            request_id: request_id.clone(),
            tab_id,
            selector: selector.to_owned(),
        };
        self.ask(
            pid,
            request_id.clone(),
            |inner| &mut inner.resolves,
            message,
            timeout,
        )
        .await
        .map_err(|e| match e {
            WaitError::UnknownTab | WaitError::Detached | WaitError::Lost => ResolveError::Detached,
            WaitError::Timeout => ResolveError::Timeout(timeout),
        })
    }

    /// The page answered a `resolve` (only the connection it was sent on may).
    pub fn resolved(&self, conn: ConnId, request_id: &str, resolution: Resolution) {
        let mut inner = self.lock();
        let instance = inner.conns.get(&conn).map(|c| c.instance_id.clone());
        if inner
            .resolves
            .answer(request_id, conn, instance.as_deref(), resolution)
            != Delivery::Delivered
        {
            tracing::debug!(conn, request_id, "a resolution nobody waits for; ignored");
        }
    }

    /// Asks the tab for a fresh capture and waits until it has arrived.
    pub async fn fresh_capture(
        &self,
        pid: u64,
        timeout: Duration,
    ) -> Result<SubstrateState, HubError> {
        let request_id = uuid::Uuid::now_v7().to_string();
        let message = |tab_id| DaemonMessage::Capture {
            request_id: request_id.clone(),
            tab_id,
        };
        match self
            .ask(
                pid,
                request_id.clone(),
                |inner| &mut inner.captures,
                message,
                timeout,
            )
            .await
        {
            Ok(()) => self.state(pid),
            Err(WaitError::UnknownTab) => Err(HubError::UnknownPid(pid)),
            Err(WaitError::Detached | WaitError::Lost) => Err(HubError::Detached(pid)),
            Err(WaitError::Timeout) => Err(HubError::CaptureTimeout(timeout)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table's rules, for any kind of answer: the asking connection's answer is
    /// taken; another connection's is not; after the connection closed with grace, a
    /// new connection of the same session may answer, another session may not.
    #[test]
    fn answers_come_from_the_asking_connection_or_its_session_after_a_reconnect() {
        let mut table: Pending<u8> = Pending::default();
        let mut rx = table.insert("a".into(), 1, "s".into(), 7);
        assert_eq!(table.answer("a", 2, Some("s"), 1), Delivery::NotAsked);
        assert_eq!(table.answer("b", 1, Some("s"), 1), Delivery::NobodyWaits);
        assert_eq!(table.answer("a", 1, Some("s"), 3), Delivery::Delivered);
        assert_eq!(rx.try_recv(), Ok(3));
        assert_eq!(table.answer("a", 1, Some("s"), 4), Delivery::NobodyWaits);

        let mut rx = table.insert("c".into(), 1, "s".into(), 7);
        assert_eq!(table.connection_closed(1, true), vec!["c".to_owned()]);
        assert_eq!(table.answer("c", 3, Some("other"), 5), Delivery::NotAsked);
        assert_eq!(table.answer("c", 4, Some("s"), 6), Delivery::Delivered);
        assert_eq!(rx.try_recv(), Ok(6));
    }

    /// A capture asked of a document that then navigated away is answered by the next
    /// document's first capture, from the same connection only; other tabs' requests
    /// and requests of a document still there are left waiting.
    #[test]
    fn a_navigation_hands_a_capture_request_to_the_next_document() {
        let mut table: Pending<u8> = Pending::default();
        let mut gone = table.insert("a".into(), 1, "s".into(), 7);
        let mut other_tab = table.insert("b".into(), 1, "s".into(), 8);
        table.answer_new_document(7, 1, Some("s"), || 1);
        assert!(gone.try_recv().is_err(), "not before the document went");
        table.document_gone(7);
        table.answer_new_document(7, 2, Some("other"), || 2);
        assert!(gone.try_recv().is_err(), "not from another connection");
        table.answer_new_document(7, 1, Some("s"), || 3);
        assert_eq!(gone.try_recv(), Ok(3));
        assert!(other_tab.try_recv().is_err());
        assert_eq!(table.answer("b", 1, Some("s"), 4), Delivery::Delivered);
        assert_eq!(other_tab.try_recv(), Ok(4));
    }

    /// Without grace a closed connection's requests are given up at once; with grace
    /// they are given up when the grace ends unanswered; a closed tab's always.
    #[test]
    fn requests_are_given_up_when_their_answer_cannot_come() {
        let mut table: Pending<()> = Pending::default();
        let mut rx = table.insert("a".into(), 1, "s".into(), 7);
        let mut other = table.insert("b".into(), 2, "s".into(), 8);
        assert!(table.connection_closed(1, false).is_empty());
        assert!(rx.try_recv().is_err() && table.cancel("a").is_none());

        let mut rx = table.insert("c".into(), 1, "s".into(), 7);
        let orphans = table.connection_closed(1, true);
        assert!(rx.try_recv().is_err(), "no answer yet");
        assert_eq!(table.waiting.get("c").map(|w| w.orphaned), Some(true));
        table.drop_orphans(&orphans);
        assert!(table.cancel("c").is_none(), "given up after the grace");
        assert_eq!(rx.try_recv(), Err(oneshot::error::TryRecvError::Closed));

        table.tab_closed(8);
        assert!(other.try_recv().is_err() && table.cancel("b").is_none());
    }
}

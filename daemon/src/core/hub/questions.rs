//! The questions put to the person about held actions, open until answered or timed out
//! (kept by the hub so that a reconnecting browser gets them again; asked and answered
//! by [`crate::core::approvals`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use nsp_protocol::approval::{ApprovalDecision, ApprovalQuestion};
use tokio::sync::oneshot;

/// The open questions, by `approval_id`.
#[derive(Debug, Clone, Default)]
pub struct Questions {
    open: Arc<Mutex<HashMap<String, Open>>>,
}

/// One open question.
#[derive(Debug)]
pub struct Open {
    pub question: ApprovalQuestion,
    /// The browser session that may answer.
    pub instance_id: String,
    /// Taken by the first answer.
    pub reply: Option<oneshot::Sender<ApprovalDecision>>,
}

impl Questions {
    pub(crate) fn lock(&self) -> MutexGuard<'_, HashMap<String, Open>> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// How many questions are open.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The action of a question open about tab `pid` and when it expires (RFC 3339),
    /// for a front door that tells its caller what it is waiting on.
    pub fn waiting_on(&self, pid: u64) -> Option<(String, String)> {
        self.lock()
            .values()
            .find(|o| o.question.pid == pid && o.reply.is_some())
            .map(|o| (o.question.action.clone(), o.question.expires_at.clone()))
    }
}

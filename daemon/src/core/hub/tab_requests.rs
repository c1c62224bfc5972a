//! Tabs nspd asked the browser to open or close, waiting for the extension's answer
//! (asked by [`crate::core::tab_ops`], answered through the extension channel).

use std::collections::HashMap;
use std::sync::Mutex;

use tokio::sync::oneshot;

/// The extension's answer: the tab's id, or why not.
pub type Answer = Result<Option<i64>, String>;

/// Requests sent to a browser, waiting for their `tab_op_result`.
#[derive(Debug, Default)]
pub struct TabRequests {
    waiting: Mutex<HashMap<String, oneshot::Sender<Answer>>>,
}

impl TabRequests {
    /// Delivers the extension's answer to the request waiting for it (if it still is).
    pub fn answer(&self, request_id: &str, tab_id: Option<i64>, error: Option<String>) {
        let waiter = self
            .waiting
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(request_id);
        if let Some(tx) = waiter {
            let _ = tx.send(match error {
                Some(e) => Err(e),
                None => Ok(tab_id),
            });
        }
    }

    /// Waits for the answer to `request_id` (see [`TabRequests::answer`]).
    pub fn wait_for(&self, request_id: &str) -> oneshot::Receiver<Answer> {
        let (reply, rx) = oneshot::channel();
        self.waiting
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(request_id.to_owned(), reply);
        rx
    }

    /// Whether no request is waiting.
    pub fn is_empty(&self) -> bool {
        self.waiting
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_empty()
    }

    /// Stops waiting for `request_id`.
    pub fn forget(&self, request_id: &str) {
        self.waiting
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(request_id);
    }
}

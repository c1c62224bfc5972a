//! One description of each request for both doors: a door decodes its wire (a JSON body
//! and headers, an MCP tool's arguments) into the protocol's request type and calls the
//! constructor here, which checks it once. No door calls another door's parser.

use std::time::Duration;

use nsp_protocol::api::{
    ActionRequest, ACTION_NAME_MAX_BYTES, VERIFY_TIMEOUT_MS_DEFAULT, VERIFY_TIMEOUT_MS_MAX,
    VERIFY_TIMEOUT_MS_MIN,
};
use nsp_protocol::SubstrateState;
use serde_json::{json, Value};

use crate::core::error::CoreError;

/// An action request that passed the checks every door owes the pipeline; only
/// [`ActionCall::new`] makes one, and [`crate::core::pipeline::act`] takes it.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionCall {
    req: ActionRequest,
}

impl ActionCall {
    /// Checks `req`; nothing has happened yet when this fails.
    pub fn new(req: ActionRequest) -> Result<ActionCall, CoreError> {
        if req.pid == Some(0) {
            return Err(CoreError::invalid_request(
                "\"pid\" must be a positive integer from GET /substrate/v1/apps.",
            )
            .with("field", "pid"));
        }
        if req.action.trim().is_empty() {
            return Err(CoreError::invalid_request(
                "\"action\" is empty. Name one of the actions in the tab's state.",
            )
            .with("field", "action"));
        }
        if req.action.len() > ACTION_NAME_MAX_BYTES {
            return Err(CoreError::invalid_request(format!(
                "\"action\" is longer than {ACTION_NAME_MAX_BYTES} bytes; no action has such a name."
            ))
            .with("field", "action"));
        }
        if let Some(t) = req.verify_timeout_ms {
            if !(VERIFY_TIMEOUT_MS_MIN..=VERIFY_TIMEOUT_MS_MAX).contains(&t) {
                return Err(CoreError::invalid_request(format!(
                    "\"verify_timeout_ms\" is {t}; it must be between {VERIFY_TIMEOUT_MS_MIN} and {VERIFY_TIMEOUT_MS_MAX}."
                ))
                .with("field", "verify_timeout_ms"));
            }
        }
        if req.pid.is_none() && req.app_id.is_none() {
            return Err(CoreError::invalid_request(
                "The request names no tab. Send \"pid\" (a number from GET /substrate/v1/apps) or \"app_id\".",
            )
            .with("field", "pid"));
        }
        Ok(ActionCall { req })
    }

    pub fn request(&self) -> &ActionRequest {
        &self.req
    }

    /// What a repeated idempotency key must match: the request and the tab it ran on.
    pub fn fingerprint(&self, pid: u64) -> Value {
        json!({"pid": pid, "request": self.req})
    }
}

/// The polling time of a verify request (`timeout_ms`), 5000 ms when left out.
pub fn verify_timeout(timeout_ms: Option<u64>) -> Result<Duration, CoreError> {
    let timeout = timeout_ms.unwrap_or(VERIFY_TIMEOUT_MS_DEFAULT);
    if !(VERIFY_TIMEOUT_MS_MIN..=VERIFY_TIMEOUT_MS_MAX).contains(&timeout) {
        return Err(CoreError::invalid_request(format!(
            "\"timeout_ms\" is {timeout}; it must be between {VERIFY_TIMEOUT_MS_MIN} and {VERIFY_TIMEOUT_MS_MAX}."
        ))
        .with("field", "timeout_ms"));
    }
    Ok(Duration::from_millis(timeout))
}

/// Which of a state's objects a read returns: those whose key starts with `prefix`,
/// after the key `after`, at most `limit` of them, in key order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ObjectWindow {
    pub prefix: Option<String>,
    pub after: Option<String>,
    pub limit: Option<usize>,
}

impl ObjectWindow {
    /// Keeps the window's objects. `filtered_object_count` becomes the number returned;
    /// `objects_truncated` is set when `limit` left matching objects out (read on with
    /// `after=` the last key returned).
    pub fn apply(&self, s: &mut SubstrateState) {
        if *self == ObjectWindow::default() {
            return;
        }
        let prefix = self.prefix.as_deref().unwrap_or("");
        let limit = self.limit.unwrap_or(usize::MAX);
        let all = std::mem::take(&mut s.objects);
        let mut matching = all.into_iter().filter(|(k, _)| {
            k.starts_with(prefix) && self.after.as_deref().is_none_or(|a| k.as_str() > a)
        });
        s.objects = matching.by_ref().take(limit).collect();
        if matching.next().is_some() {
            s.probe_metadata.objects_truncated = true;
        }
        s.probe_metadata.filtered_object_count = s.objects.len() as u64;
    }
}

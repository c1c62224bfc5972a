//! The core's one error type: a refusal or failure, named by a code of
//! [`crate::core::codes`], in words for the agent. It carries no status: each door
//! chooses its own encoding (the HTTP door's status table is `door::http::status`).

use serde_json::{Map, Value};

use crate::core::codes;

/// A refusal or failure the agent sees. `message` is written for the agent: what was
/// wrong and what to do instead. Internal details go to the log, never here.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{code}: {message}")]
pub struct CoreError {
    /// One of the constants of [`codes`].
    pub code: &'static str,
    pub message: String,
    /// Extra facts for the agent (e.g. `actual_confidence`); the HTTP door puts them at
    /// the top level of its body, MCP in its structured content.
    pub details: Map<String, Value>,
    /// When a retry may succeed, in whole seconds (a rate limit says so).
    pub retry_after_secs: Option<u64>,
}

impl CoreError {
    /// An error with `code`, one of the constants of [`codes`].
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        CoreError {
            code,
            message: message.into(),
            details: Map::new(),
            retry_after_secs: None,
        }
    }

    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.details.insert(key.to_owned(), value.into());
        self
    }

    /// Adds `details` (those already there win).
    pub fn with_details(mut self, details: &Map<String, Value>) -> Self {
        for (k, v) in details {
            self.details.entry(k.clone()).or_insert_with(|| v.clone());
        }
        self
    }

    /// Says when a retry may succeed.
    pub fn retry_after(mut self, secs: u64) -> Self {
        self.retry_after_secs = Some(secs);
        self
    }

    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(codes::INVALID_REQUEST, message)
    }

    pub fn pid_not_found(what: &str) -> Self {
        Self::new(codes::PID_NOT_FOUND,
            format!(
                "No tab with {what} is known. List the open tabs with GET /substrate/v1/apps and use one of their pid or app_id values."
            ),
        )
    }
}

/// The hub's domain errors in the agent's words: every message about a tab that is
/// unknown, detached, not ready or slow is written here, not in the hub.
impl From<crate::core::hub::HubError> for CoreError {
    fn from(err: crate::core::hub::HubError) -> Self {
        use crate::core::codes;
        use crate::core::hub::HubError;
        match err {
            HubError::UnknownPid(pid) => CoreError::pid_not_found(&format!("pid {pid}")),
            HubError::AppIdMismatch { pid, actual, app_id } => CoreError::invalid_request(format!(
                "pid {pid} is the tab {actual:?}, not app_id {app_id:?}. Send one of them, or both matching."
            ))
            .with("field", "app_id"),
            HubError::UnknownAppId(app_id) => CoreError::invalid_request(format!(
                "No tab has app_id {app_id:?}. List the open tabs with GET /substrate/v1/apps and use one of their app_id values."
            ))
            .with("field", "app_id"),
            HubError::NoTabNamed => CoreError::invalid_request(
                "The request names no tab. Send \"pid\" (a number from GET /substrate/v1/apps) or \"app_id\".",
            )
            .with("field", "pid"),
            HubError::Detached(pid) => CoreError::new(codes::PROBE_DETACHED,
                format!("The probe of tab {pid} is not connected (the browser or extension went away). List tabs again with GET /substrate/v1/apps."),
            ),
            HubError::NotReady { pid, status, why } => {
                let mut message =
                    format!("Tab {pid} has no capture yet (probe status: {}).", status.as_str());
                match why {
                    Some(why) => {
                        message.push(' ');
                        message.push_str(&why);
                    }
                    None => message.push_str(" Wait for the page to finish loading and retry."),
                }
                CoreError::new(codes::PROBE_NOT_READY, message)
                    .with("probe_status", status.as_str())
            }
            HubError::CaptureTimeout(timeout) => CoreError::new(codes::PROBE_TIMEOUT,
                format!(
                    "The page did not deliver a fresh capture within {} ms. It may be busy or frozen; retry, or read the last state without fresh=true.",
                    timeout.as_millis()
                ),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use nsp_protocol::ProbeStatus;

    use super::*;
    use crate::core::hub::HubError;

    /// Every hub error becomes a code the HTTP door's status table lists.
    #[test]
    fn hub_errors_map_to_listed_codes_with_their_status() {
        let all = [
            HubError::UnknownPid(3),
            HubError::UnknownAppId("a-1".into()),
            HubError::AppIdMismatch {
                pid: 3,
                actual: "a-3".into(),
                app_id: "a-1".into(),
            },
            HubError::NoTabNamed,
            HubError::Detached(3),
            HubError::NotReady {
                pid: 3,
                status: ProbeStatus::Attaching,
                why: None,
            },
            HubError::CaptureTimeout(Duration::from_millis(1500)),
        ];
        for err in all {
            let api = CoreError::from(err.clone());
            assert!(
                crate::door::http::status::status_of(api.code).is_some(),
                "{err:?} -> {api:?}"
            );
        }
        let not_ready = CoreError::from(HubError::NotReady {
            pid: 3,
            status: ProbeStatus::Error,
            why: Some("The probe failed.".into()),
        });
        assert_eq!(
            not_ready.message,
            "Tab 3 has no capture yet (probe status: error). The probe failed."
        );
        assert_eq!(not_ready.details["probe_status"], "error");
    }
}

//! The one error type of the agent API, and its single mapping to status + JSON body.

use hyper::StatusCode;
use serde_json::{json, Map, Value};

use crate::codes;

/// A refusal or failure the agent sees. `message` is written for the agent: what was
/// wrong and what to do instead. Internal details go to the log, never here.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{code}: {message}")]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    /// Extra top-level fields of the body (e.g. `actual_confidence`).
    pub details: Map<String, Value>,
    /// Extra response headers (e.g. `Retry-After`).
    pub headers: Vec<(&'static str, String)>,
}

impl ApiError {
    /// An error with `code`, one of the constants of [`codes`]; its status is the one
    /// [`codes::ALL`] gives the code, so the two cannot disagree. A code missing from
    /// the table is a bug (a test scans the sources for them): debug builds panic, a
    /// release build answers 500 rather than guess.
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        let status = codes::status_of(code).and_then(|s| StatusCode::from_u16(s).ok());
        debug_assert!(status.is_some(), "{code} is not in codes::ALL");
        ApiError {
            status: status.unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            code,
            message: message.into(),
            details: Map::new(),
            headers: Vec::new(),
        }
    }

    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.details.insert(key.to_owned(), value.into());
        self
    }

    pub fn with_header(mut self, name: &'static str, value: String) -> Self {
        self.headers.push((name, value));
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

    pub fn not_found(path: &str) -> Self {
        Self::new(codes::NOT_FOUND,
            format!("There is no route {path}. The API lives under /substrate/v1/ (see /substrate/v1/openapi.json)."),
        )
    }

    pub fn method_not_allowed(method: &str, path: &str) -> Self {
        Self::new(
            codes::METHOD_NOT_ALLOWED,
            format!("{method} is not allowed on {path}."),
        )
    }

    /// The JSON body: both shapes at once, because the SDK reads top-level `code` and
    /// `message` while the documented shape nests them under `error`.
    pub fn body(&self, request_id: &str) -> Value {
        let mut body = Map::new();
        body.insert("success".into(), Value::Bool(false));
        body.insert("code".into(), Value::String(self.code.into()));
        body.insert("message".into(), Value::String(self.message.clone()));
        body.insert(
            "error".into(),
            json!({"code": self.code, "message": self.message, "request_id": request_id}),
        );
        for (k, v) in &self.details {
            body.entry(k.clone()).or_insert_with(|| v.clone());
        }
        Value::Object(body)
    }
}

/// The hub's domain errors in the agent's words: every message about a tab that is
/// unknown, detached, not ready or slow is written here, not in the hub.
impl From<crate::hub::HubError> for ApiError {
    fn from(err: crate::hub::HubError) -> Self {
        use crate::codes;
        use crate::hub::HubError;
        match err {
            HubError::UnknownPid(pid) => ApiError::pid_not_found(&format!("pid {pid}")),
            HubError::AppIdMismatch { pid, actual, app_id } => ApiError::invalid_request(format!(
                "pid {pid} is the tab {actual:?}, not app_id {app_id:?}. Send one of them, or both matching."
            ))
            .with("field", "app_id"),
            HubError::UnknownAppId(app_id) => ApiError::invalid_request(format!(
                "No tab has app_id {app_id:?}. List the open tabs with GET /substrate/v1/apps and use one of their app_id values."
            ))
            .with("field", "app_id"),
            HubError::NoTabNamed => ApiError::invalid_request(
                "The request names no tab. Send \"pid\" (a number from GET /substrate/v1/apps) or \"app_id\".",
            )
            .with("field", "pid"),
            HubError::Detached(pid) => ApiError::new(codes::PROBE_DETACHED,
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
                ApiError::new(codes::PROBE_NOT_READY, message)
                    .with("probe_status", status.as_str())
            }
            HubError::CaptureTimeout(timeout) => ApiError::new(codes::PROBE_TIMEOUT,
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
    use crate::hub::HubError;

    /// Every hub error becomes a code of `codes::ALL` with that code's status.
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
            let api = ApiError::from(err.clone());
            assert_eq!(
                crate::codes::status_of(api.code),
                Some(api.status.as_u16()),
                "{err:?} -> {api:?}"
            );
        }
        let not_ready = ApiError::from(HubError::NotReady {
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

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

//! Models of the agent-facing HTTP API (NSP v1) that are not the state itself.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::state::ProbeStatus;

/// `GET /health`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Health {
    pub status: String,
    pub version: String,
    pub uptime_secs: u64,
    pub tracked_processes: u64,
    pub auth_enabled: bool,
}

/// One tab in `GET /substrate/v1/apps`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AppSummary {
    pub pid: u64,
    pub app_id: String,
    pub app_name: String,
    pub runtime: String,
    pub runtime_name: String,
    pub probe_status: ProbeStatus,
    /// Why the probe is in its status, in words (set for `error`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe_message: Option<String>,
    pub confidence: f64,
    pub object_count: u64,
    pub action_count: u64,
    pub last_captured_at: Option<String>,
    pub has_state: bool,
    pub current_view: Option<String>,
    pub current_url: Option<String>,
}

/// `GET /substrate/v1/apps`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AppList {
    pub total: u64,
    pub apps: Vec<AppSummary>,
}

/// `POST /substrate/v1/action`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActionRequest {
    #[serde(default)]
    pub pid: Option<u64>,
    #[serde(default)]
    pub app_id: Option<String>,
    pub action: String,
    #[serde(default)]
    pub parameters: Map<String, Value>,
    #[serde(default)]
    pub verify: Option<bool>,
    #[serde(default)]
    pub verify_expression: Option<String>,
    #[serde(default)]
    pub verify_timeout_ms: Option<u64>,
    #[serde(default)]
    pub fresh_state: bool,
    #[serde(default)]
    pub expected_capture_id: Option<String>,
    /// Hold the request and ask the person when only a confidence floor refuses it
    /// (`ask`), or never (`never`); absent means nspd's `[gate] ask_person`.
    #[serde(default)]
    pub approval: Option<crate::approval::ApprovalMode>,
}

/// One changed key between two captures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldChange {
    pub path: String,
    pub before: Value,
    pub after: Value,
}

/// The result of evaluating a verify expression after an action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerificationOutcome {
    pub passed: bool,
    pub expression: String,
    pub computed_value: Value,
    pub explanation: String,
    /// Whole milliseconds: the SDK parses this as an integer.
    pub latency_ms: u64,
    pub poll_cycles: u32,
    pub changed_fields: Vec<FieldChange>,
}

/// `POST /substrate/v1/action` answered 200.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActionResponse {
    pub success: bool,
    pub action_id: String,
    pub action: String,
    pub executed: bool,
    pub runtime: String,
    /// Whole milliseconds: the SDK parses this as an integer.
    pub total_latency_ms: u64,
    pub message: String,
    pub verification: Option<VerificationOutcome>,
    pub updated_state: Option<crate::state::SubstrateState>,
    pub state_delta: Option<Map<String, Value>>,
    pub raw_return: Value,
    /// Dialogs the page raised while the action ran and how NSP answered them: an
    /// irreversible action's own `confirm()` is accepted and reported here with its
    /// text. Left out when there were none (the published SDK ignores fields it does not
    /// know).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dialogs: Vec<crate::channel::PageDialog>,
}

//! Models of the agent-facing HTTP API (NSP v1) that are not the state itself.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::state::{ActionSchema, ProbeStatus};

/// Longest action name a request may carry; no action has a longer one.
pub const ACTION_NAME_MAX_BYTES: usize = 256;
/// Bounds of `verify_timeout_ms` (`/action`) and `timeout_ms` (`/verify`), and the
/// default when it is left out.
pub const VERIFY_TIMEOUT_MS_MIN: u64 = 100;
pub const VERIFY_TIMEOUT_MS_MAX: u64 = 30_000;
pub const VERIFY_TIMEOUT_MS_DEFAULT: u64 = 5_000;
/// Longest `Idempotency-Key` header, after trimming.
pub const IDEMPOTENCY_KEY_MAX_BYTES: usize = 255;
/// Most objects one `GET /state?limit=` may ask for (the probe's own ceiling).
pub const MAX_STATE_LIMIT: usize = 100_000;
/// Longest `prefix=` or `after=`: an object key is at most this long.
pub const MAX_KEY_QUERY_BYTES: usize = 200;

/// The name, in a schema's `x-nsp-max-length-from`, of a length limit that nspd's
/// configuration sets (`[dispatcher] verify_expression_max_bytes`). nspd's OpenAPI
/// document replaces it with the configured number, so the document states the limit
/// the running daemon enforces.
pub const VERIFY_EXPRESSION_LIMIT: &str = "verify_expression_max_bytes";

/// `GET /health`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Health {
    pub status: String,
    pub version: String,
    pub uptime_secs: u64,
    pub tracked_processes: u64,
    pub auth_enabled: bool,
}

/// One tab in `GET /substrate/v1/apps`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AppList {
    pub total: u64,
    pub apps: Vec<AppSummary>,
}

/// `POST /substrate/v1/action`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ActionRequest {
    /// The tab, from `GET /substrate/v1/apps`; `pid` or `app_id` is required.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    pub pid: Option<u64>,
    #[serde(default)]
    pub app_id: Option<String>,
    /// An action name of the tab's state, or a builtin.
    #[cfg_attr(
        feature = "schema",
        schemars(length(min = 1, max = ACTION_NAME_MAX_BYTES))
    )]
    pub action: String,
    #[serde(default)]
    pub parameters: Map<String, Value>,
    #[serde(default)]
    pub verify: Option<bool>,
    /// Required for irreversible writes and writing builtins; at most the configured
    /// byte limit.
    #[serde(default)]
    #[cfg_attr(
        feature = "schema",
        schemars(extend("x-nsp-max-length-from" = VERIFY_EXPRESSION_LIMIT))
    )]
    pub verify_expression: Option<String>,
    /// How long to poll the expression; 5000 when left out.
    #[serde(default)]
    #[cfg_attr(
        feature = "schema",
        schemars(range(min = VERIFY_TIMEOUT_MS_MIN, max = VERIFY_TIMEOUT_MS_MAX))
    )]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FieldChange {
    pub path: String,
    pub before: Value,
    pub after: Value,
}

/// The result of evaluating a verify expression after an action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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

/// `POST /substrate/v1/verify`: evaluate an expression against the tab's live state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct VerifyRequest {
    /// The tab; `pid` or `app_id` is required.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    pub pid: Option<u64>,
    #[serde(default)]
    pub app_id: Option<String>,
    /// A verify expression (docs/verify-language.md), at most the configured byte limit.
    #[cfg_attr(
        feature = "schema",
        schemars(
            length(min = 1),
            extend("x-nsp-max-length-from" = VERIFY_EXPRESSION_LIMIT)
        )
    )]
    pub expression: String,
    /// How long to poll; 5000 when left out.
    #[serde(default)]
    #[cfg_attr(
        feature = "schema",
        schemars(range(min = VERIFY_TIMEOUT_MS_MIN, max = VERIFY_TIMEOUT_MS_MAX))
    )]
    pub timeout_ms: Option<u64>,
}

/// `GET /substrate/v1/schema/{pid}`: the actions of the tab's current state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SchemaResponse {
    pub pid: u64,
    pub app_id: String,
    pub app_name: String,
    pub schema_version: String,
    pub actions: BTreeMap<String, ActionSchema>,
}

/// `GET /substrate/v1/diff/{pid}`: what changed between the tab's last two captures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DiffResponse {
    pub pid: u64,
    pub app_id: String,
    /// Every key that differs, sorted by path; numbers compare by value.
    pub diff: Vec<FieldChange>,
    /// When the current capture was taken (RFC 3339).
    pub captured_at: String,
    pub previous_capture_id: String,
    pub current_capture_id: String,
}

/// One message of the `GET /substrate/v1/watch/{pid}` WebSocket: the tab's objects
/// changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct WatchEvent {
    pub pid: u64,
    pub app_id: String,
    /// Counts the messages of this stream, from 1.
    pub sequence: u64,
    /// The object keys that changed (every key of the state after the stream fell
    /// behind).
    pub changed_keys: Vec<String>,
    /// When the capture was taken (RFC 3339).
    pub captured_at: String,
}

/// The query of `GET /substrate/v1/state/{pid}`. nspd parses it by hand (a query
/// string, not JSON); this type is its documented shape.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct StateQuery {
    /// Ask the page for a new capture and wait for it (also `1`/`0`, or a bare `fresh`).
    #[serde(default)]
    pub fresh: bool,
    /// Only the objects whose key starts with this (e.g. `inbox.emails[12].`);
    /// percent-encode `[` and `]`.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(length(max = MAX_KEY_QUERY_BYTES)))]
    pub prefix: Option<String>,
    /// Only the objects whose key sorts after this one: the last key of the previous
    /// page.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(length(max = MAX_KEY_QUERY_BYTES)))]
    pub after: Option<String>,
    /// At most this many objects, in key order; when more match,
    /// `probe_metadata.objects_truncated` is true.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(range(min = 1, max = MAX_STATE_LIMIT)))]
    pub limit: Option<u64>,
    /// `json` (the default over HTTP): the state as this API types it. `model`: the
    /// compact text written for a model (`text/plain`), what MCP's `get_state` returns
    /// by default.
    #[serde(default)]
    pub view: Option<StateView>,
}

/// How a state is written for its reader: `GET /state`'s `view=` and MCP `get_state`'s
/// `view`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum StateView {
    /// The state as JSON, the NSP v1 shape the SDK reads.
    Json,
    /// Compact text for a model: objects as `key: value` lines, one line per action
    /// (name, typed parameters, tier, confidence, a short description), no selectors,
    /// the builtins left to the tool's description.
    Model,
}

impl StateView {
    /// The view a query value names.
    pub fn parse(s: &str) -> Option<StateView> {
        match s {
            "json" => Some(StateView::Json),
            "model" => Some(StateView::Model),
            _ => None,
        }
    }
}

/// The query of `GET /substrate/v1/watch/{pid}`: a browser's WebSocket client cannot
/// set headers, so the agent key may come here.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct WatchQuery {
    /// The agent key.
    #[serde(default)]
    pub key: Option<String>,
}

/// The headers `POST /substrate/v1/action` reads besides the key.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ActionHeaders {
    /// Runs the request once: a retry with the same key gets the stored answer.
    #[serde(default, rename = "Idempotency-Key")]
    #[cfg_attr(
        feature = "schema",
        schemars(length(min = 1, max = IDEMPOTENCY_KEY_MAX_BYTES))
    )]
    pub idempotency_key: Option<String>,
}

/// The body of every error answer: both shapes at once, because the published SDK
/// reads top-level `code` and `message` while other clients read the nested `error`.
/// Further top-level fields depend on the code (docs/api.md lists them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ErrorBody {
    /// Always false.
    #[cfg_attr(feature = "schema", schemars(extend("const" = false)))]
    pub success: bool,
    pub code: String,
    /// What was wrong and what to do instead, written for the agent.
    pub message: String,
    pub error: ErrorDetail,
    /// The code's own fields (`field`, `retry_after_ms`, `actual_confidence`, ...).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The nested `error` of an [`ErrorBody`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ErrorDetail {
    pub code: String,
    pub message: String,
    /// The `X-Request-Id` of the answer.
    pub request_id: String,
}

/// `POST /substrate/v1/tabs`: open a page in a new tab. An agent other than the default
/// one owns the tab it opens, and it goes into the agent's tab group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct OpenTabRequest {
    /// An http(s) URL, within the agent's origins.
    #[cfg_attr(feature = "schema", schemars(length(min = 1, max = 8192)))]
    pub url: String,
}

/// The answer to [`OpenTabRequest`]: the tab, and its first settled capture's id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct OpenTabResponse {
    pub tab: AppSummary,
    pub capture_id: String,
    pub settled: bool,
}

/// `POST /substrate/v1/lease`: hold a tab for a multi-step flow; while the lease holds,
/// other agents' writes on it are refused (`tab_leased`). Sent again by the holder, it
/// renews the lease; with `ttl_ms` 0 it releases it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct LeaseRequest {
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    pub pid: u64,
    /// How long the lease holds, from now: 1,000 to 600,000 ms; 0 releases the caller's
    /// lease.
    #[cfg_attr(feature = "schema", schemars(range(max = LEASE_TTL_MS_MAX)))]
    pub ttl_ms: u64,
}

/// The shortest and longest lease one request may ask for.
pub const LEASE_TTL_MS_MIN: u64 = 1_000;
pub const LEASE_TTL_MS_MAX: u64 = 600_000;

/// A lease: who holds which tab until when.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LeaseResponse {
    pub pid: u64,
    /// The agent's name.
    pub holder: String,
    /// RFC 3339.
    pub expires_at: String,
    /// `false` after a release.
    pub held: bool,
}

//! Every error code the agent can be answered with: the names of the core's refusals
//! and failures ([`crate::core::error::CoreError::code`]). Which HTTP status each one
//! gets is the HTTP door's choice (`crate::door::http::status::ALL`); MCP makes its own.

pub const INVALID_REQUEST: &str = "invalid_request";
pub const MISSING_VERIFY_EXPRESSION: &str = "missing_verify_expression";
pub const VERIFY_EXPRESSION_TOO_LARGE: &str = "verify_expression_too_large";
pub const INVALID_VERIFY_EXPRESSION: &str = "invalid_verify_expression";
pub const VERIFY_EXPRESSION_VACUOUS: &str = "verify_expression_vacuous";
pub const DANGEROUS_ACTION_UNVERIFIED: &str = "dangerous_action_unverified";
pub const INVALID_PARAMETERS: &str = "invalid_parameters";
pub const MISSING_KEY: &str = "missing_key";
pub const INVALID_KEY: &str = "invalid_key";
pub const FORBIDDEN: &str = "forbidden";
pub const APPROVAL_DENIED: &str = "approval_denied";
pub const APPROVAL_TIMEOUT: &str = "approval_timeout";
pub const PID_NOT_FOUND: &str = "pid_not_found";
pub const ACTION_NOT_AVAILABLE: &str = "action_not_available";
pub const NOT_FOUND: &str = "not_found";
pub const NO_DIFF_YET: &str = "no_diff_yet";
pub const METHOD_NOT_ALLOWED: &str = "method_not_allowed";
pub const IDEMPOTENCY_CONFLICT: &str = "idempotency_conflict";
pub const STALE_STATE: &str = "stale_state";
pub const PAYLOAD_TOO_LARGE: &str = "payload_too_large";
pub const IRREVERSIBLE_NOT_CONFIRMED: &str = "irreversible_not_confirmed";
pub const CONFIDENCE_TOO_LOW: &str = "confidence_too_low";
pub const VERIFICATION_FAILED: &str = "verification_failed";
pub const IDEMPOTENCY_KEY_REUSED: &str = "idempotency_key_reused";
pub const ACTION_FAILED: &str = "action_failed";
pub const UPGRADE_REQUIRED: &str = "upgrade_required";
pub const RATE_LIMITED: &str = "rate_limited";
pub const PROBE_DETACHED: &str = "probe_detached";
pub const PROBE_NOT_READY: &str = "probe_not_ready";
pub const OUTCOME_UNKNOWN: &str = "outcome_unknown";
pub const AUDIT_UNAVAILABLE: &str = "audit_unavailable";
pub const CORRECTIONS_UNAVAILABLE: &str = "corrections_unavailable";
pub const TOO_MANY_WATCHERS: &str = "too_many_watchers";
pub const PROBE_TIMEOUT: &str = "probe_timeout";
pub const REQUEST_TIMEOUT: &str = "request_timeout";
pub const SCOPE_DENIED: &str = "scope_denied";
pub const TAB_LEASED: &str = "tab_leased";

//! Every error code the agent API can answer with, and its status. The OpenAPI
//! document is generated from this table and a test checks it against the contract.

/// (status, code, when)
pub const ALL: &[(u16, &str, &str)] = &[
    (400, INVALID_REQUEST, "malformed JSON, wrong types, a missing or unknown tab reference, out-of-range values"),
    (400, MISSING_VERIFY_EXPRESSION, "a write that requires verification came without an expression; the message suggests one built from the state's real keys"),
    (400, VERIFY_EXPRESSION_TOO_LARGE, "the expression is over the byte limit (checked before parsing)"),
    (400, INVALID_VERIFY_EXPRESSION, "the expression does not parse, uses a forbidden token or exceeds depth/size limits; the message points at the byte position"),
    (400, VERIFY_EXPRESSION_VACUOUS, "the expression already holds on the current state (with prev = now), or reads no state after the action, so it cannot tell whether the action did anything; the message suggests a changed(...) or exact-value form built from the state's real keys"),
    (400, DANGEROUS_ACTION_UNVERIFIED, "a dangerous-sounding action on an unresolved target without verification"),
    (400, INVALID_PARAMETERS, "missing required parameter, wrong type, value not allowed, unknown parameter"),
    (401, MISSING_KEY, "no agent key"),
    (401, INVALID_KEY, "wrong agent key"),
    (403, FORBIDDEN, "foreign Host, foreign Origin, an extension id that is not allowed, or an agent's /learn that would loosen an action"),
    (403, APPROVAL_DENIED, "the person was asked about the held action and denied it; nothing was sent"),
    (404, PID_NOT_FOUND, "unknown tab"),
    (404, ACTION_NOT_AVAILABLE, "the action is not in the tab's current schema"),
    (404, NOT_FOUND, "no such route"),
    (404, NO_DIFF_YET, "fewer than two captures exist for the tab"),
    (405, METHOD_NOT_ALLOWED, "the route exists for another method"),
    (408, APPROVAL_TIMEOUT, "the person was asked about the held action and did not answer within approval_timeout_ms; nothing was sent"),
    (409, IDEMPOTENCY_CONFLICT, "the same Idempotency-Key is still running"),
    (409, STALE_STATE, "expected_capture_id was given and the action's target (where it acts, its labels, a row action's rows) changed since that capture; or the capture taken just before dispatch shows another tier, other labels or another named row than the gate saw: nothing was sent"),
    (413, PAYLOAD_TOO_LARGE, "the request body is over max_body_bytes"),
    (422, IRREVERSIBLE_NOT_CONFIRMED, "\"verify\": false was sent for an irreversible write"),
    (422, CONFIDENCE_TOO_LOW, "the effective confidence is under the tier's floor"),
    (422, VERIFICATION_FAILED, "the action ran and the expression was still false at the timeout"),
    (422, IDEMPOTENCY_KEY_REUSED, "the same Idempotency-Key with a different request"),
    (422, ACTION_FAILED, "the page threw or the target vanished"),
    (426, UPGRADE_REQUIRED, "a WebSocket route was called without an upgrade"),
    (429, RATE_LIMITED, "over the per-key rate limit; Retry-After and retry_after_ms say when to retry"),
    (503, PROBE_DETACHED, "the tab's probe is not connected"),
    (503, PROBE_NOT_READY, "the tab has no capture yet"),
    (503, OUTCOME_UNKNOWN, "the page connection dropped after dispatch: the action may or may not have happened"),
    (503, AUDIT_UNAVAILABLE, "the audit record of an irreversible action could not be written to disk (full disk, unwritable data dir): nothing was sent"),
    (503, CORRECTIONS_UNAVAILABLE, "a correction could not be stored in the data dir: nothing changed"),
    (503, TOO_MANY_WATCHERS, "the watcher limit is reached"),
    (504, PROBE_TIMEOUT, "the page did not answer in time"),
    (504, REQUEST_TIMEOUT, "the request did not finish within its route timeout"),
];

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

/// The status of a code, from [`ALL`].
pub fn status_of(code: &str) -> Option<u16> {
    ALL.iter().find(|(_, c, _)| *c == code).map(|(s, _, _)| *s)
}

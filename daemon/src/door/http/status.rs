//! The HTTP door's status for every error code of the core: the one place an HTTP status
//! is chosen for a domain error. The OpenAPI document is generated from this table and a
//! test checks it against the contract.

use hyper::StatusCode;

use crate::core::codes::*;
use crate::core::error::CoreError;

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
    (403, SCOPE_DENIED, "outside the agent's scope: an action above its max-tier, or a URL outside its origins; a person's approval cannot lift it"),
    (409, TAB_LEASED, "another agent holds a lease on the tab; the error says who and until when"),
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

/// The status of a code, from [`ALL`].
pub fn status_of(code: &str) -> Option<u16> {
    ALL.iter().find(|(_, c, _)| *c == code).map(|(s, _, _)| *s)
}

/// The status `err` is answered with. A code missing from the table is a bug (a test
/// scans the sources for them): debug builds panic, a release build answers 500 rather
/// than guess.
pub fn status(err: &CoreError) -> StatusCode {
    let status = status_of(err.code).and_then(|s| StatusCode::from_u16(s).ok());
    debug_assert!(status.is_some(), "{} is not in status::ALL", err.code);
    status.unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

/// The JSON body of an error: both shapes at once, because the SDK reads top-level
/// `code` and `message` while the documented shape nests them under `error`.
pub fn body(err: &CoreError, request_id: &str) -> serde_json::Value {
    use serde_json::{json, Map, Value};
    let mut body = Map::new();
    body.insert("success".into(), Value::Bool(false));
    body.insert("code".into(), Value::String(err.code.into()));
    body.insert("message".into(), Value::String(err.message.clone()));
    body.insert(
        "error".into(),
        json!({"code": err.code, "message": err.message, "request_id": request_id}),
    );
    for (k, v) in &err.details {
        body.entry(k.clone()).or_insert_with(|| v.clone());
    }
    Value::Object(body)
}

/// No route has this path.
pub fn not_found(path: &str) -> CoreError {
    CoreError::new(
        NOT_FOUND,
        format!("There is no route {path}. The API lives under /substrate/v1/ (see /substrate/v1/openapi.json)."),
    )
}

/// The route exists for another method.
pub fn method_not_allowed(method: &str, path: &str) -> CoreError {
    CoreError::new(
        METHOD_NOT_ALLOWED,
        format!("{method} is not allowed on {path}."),
    )
}

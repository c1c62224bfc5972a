//! The action pipeline and the guard in front of it, shared by both front doors (the
//! NSP v1 HTTP API in `api.rs` and MCP in `mcp.rs`): they differ only in how they decode
//! requests and encode answers.

use std::sync::Arc;
use std::time::{Duration, Instant};

use hyper::header::AUTHORIZATION;
use hyper::{HeaderMap, StatusCode};
use nsp_protocol::api::{
    ActionRequest, ActionResponse, VerificationOutcome, VERIFY_TIMEOUT_MS_DEFAULT,
};
use nsp_protocol::channel::{DialogKind, DispatchFailure, DispatchOutcome, PageDialog, Resolution};
use nsp_protocol::{Reversibility, SubstrateState};
use serde_json::{json, Map, Value};

use crate::app::AppState;
use crate::codes;
use crate::error::ApiError;
use crate::gate::{self, Decision, GateLimits};
use crate::hub::{DispatchError, HubError, ResolveError, TargetCheck};
use crate::idempotency::Claim;
use crate::ratelimit::Bucket;
use crate::verification::{self, Polling};

/// The guard of every authenticated route, whichever door it came through: the agent
/// key, then the key's rate limit for `bucket`. `query` is searched for `?key=` (only
/// `/watch` passes it: browsers cannot set headers on a WebSocket).
pub fn guard(
    state: &AppState,
    headers: &HeaderMap,
    query: Option<&str>,
    bucket: Bucket,
) -> Result<(), ApiError> {
    authenticate(state, headers, query)?;
    limit(state, bucket)
}

/// The key's rate limit for `bucket` (MCP checks it per tool call: one HTTP request
/// there may be any tool).
pub fn limit(state: &AppState, bucket: Bucket) -> Result<(), ApiError> {
    if let Err(wait) = state.limits.check(bucket, &state.key_id) {
        let secs = wait.as_secs_f64().ceil().max(1.0) as u64;
        return Err(ApiError::new(
            codes::RATE_LIMITED,
            format!(
                "Too many {} for this key. Retry in {} ms.",
                if bucket == Bucket::Actions {
                    "actions"
                } else {
                    "reads"
                },
                wait.as_millis()
            ),
        )
        .with("retry_after_ms", wait.as_millis() as u64)
        .with_header("retry-after", secs.to_string()));
    }
    Ok(())
}

/// What [`act`] produced: a new run, or the stored answer of an earlier request with
/// the same idempotency key (its status and body, success or error, as first sent).
#[derive(Debug)]
pub enum Acted {
    Ran(Box<ActionResponse>),
    Replayed { status: u16, body: Value },
}

pub async fn bounded<T>(
    limit: Duration,
    fut: impl std::future::Future<Output = Result<T, ApiError>>,
) -> Result<T, ApiError> {
    tokio::time::timeout(limit, fut).await.unwrap_or_else(|_| {
        Err(ApiError::new(codes::REQUEST_TIMEOUT,
            format!(
                "The request did not finish within {} ms. If it was an action, read the state before retrying: it may have run.",
                limit.as_millis()
            ),
        ))
    })
}

/// Checks the agent key: `X-Substrate-Key`, `Authorization: Bearer`, or (watch only)
/// `?key=`.
pub fn authenticate(
    state: &AppState,
    headers: &HeaderMap,
    query: Option<&str>,
) -> Result<(), ApiError> {
    if !state.settings.require_key {
        return Ok(());
    }
    let from_query = query.and_then(|q| {
        q.split('&')
            .filter_map(|pair| pair.split_once('='))
            .find(|(k, _)| *k == "key")
            .map(|(_, v)| v)
    });
    let presented = headers
        .get("x-substrate-key")
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .or_else(|| {
            headers
                .get(AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.strip_prefix("Bearer "))
                .map(str::trim)
        })
        .or(from_query);
    match presented {
        None | Some("") => Err(ApiError::new(codes::MISSING_KEY,
            "This route needs the agent key in the X-Substrate-Key header (or Authorization: Bearer). `nspd token` prints it.",
        )),
        Some(key) if state.key.matches(key) => Ok(()),
        Some(_) => Err(ApiError::new(codes::INVALID_KEY,
            "The agent key is wrong. `nspd token` prints the current one.",
        )),
    }
}

pub async fn get_state(
    state: &AppState,
    pid: u64,
    fresh: bool,
) -> Result<SubstrateState, ApiError> {
    Ok(if fresh {
        state
            .hub
            .fresh_capture(pid, state.settings.capture_timeout)
            .await?
    } else {
        state.hub.state(pid)?
    })
}

/// Runs an action request for tab `pid` once per idempotency key: a repeated key
/// replays the first answer. `request` is the request as the agent sent it (the JSON
/// body), which a repeated key must match.
pub async fn act(
    state: &Arc<AppState>,
    req: &ActionRequest,
    pid: u64,
    request: Value,
    idem: Option<String>,
    request_id: &str,
) -> Result<Acted, ApiError> {
    let Some(idem) = idem else {
        return run_action(state, req, pid, request_id)
            .await
            .map(|r| Acted::Ran(Box::new(r)));
    };
    // The same key must mean the same request: compare the parsed body and the tab.
    let fingerprint = json!({"pid": pid, "request": request});
    match state.idempotency.claim(&state.key_id, &idem, &fingerprint) {
        Claim::Run => {}
        Claim::Replay { status, body } => return Ok(Acted::Replayed { status, body }),
        Claim::Conflict => {
            return Err(ApiError::new(codes::IDEMPOTENCY_CONFLICT,
                "A request with this Idempotency-Key is still running. Wait for it, then retry to get its stored answer.",
            ))
        }
        Claim::Reused => {
            return Err(ApiError::new(codes::IDEMPOTENCY_KEY_REUSED,
                "This Idempotency-Key was used for a different request. Use a new key for a new request.",
            ))
        }
    }
    let result = run_action(state, req, pid, request_id).await;
    if matches!(&result, Err(e) if e.code == codes::AUDIT_UNAVAILABLE) {
        // Nothing was sent and the message says to retry once the disk is fixed: that
        // retry, with the same key, must run rather than replay this refusal.
        state.idempotency.release(&state.key_id, &idem);
        return result.map(|r| Acted::Ran(Box::new(r)));
    }
    let (status, body) = match &result {
        Ok(resp) => (
            StatusCode::OK.as_u16(),
            serde_json::to_value(resp).unwrap_or(Value::Null),
        ),
        Err(e) => (e.status.as_u16(), e.body(request_id)),
    };
    state
        .idempotency
        .complete(&state.key_id, &idem, status, body);
    result.map(|r| Acted::Ran(Box::new(r)))
}

pub(crate) fn audit_base(
    state: &AppState,
    request_id: &str,
    pid: u64,
    url: Option<&str>,
    action: &str,
) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("request_id".into(), json!(request_id));
    m.insert("key_id".into(), json!(state.key_id));
    m.insert("pid".into(), json!(pid));
    m.insert("url".into(), json!(url));
    m.insert("action".into(), json!(action));
    m
}

/// Appends an audit record. A durable one (an irreversible action's: synced to disk) is
/// written on the blocking pool, so the disk's wait does not hold up the other requests
/// and the extension channels on this worker thread; the caller still waits for it.
async fn record_audit(
    state: &Arc<AppState>,
    rec: Map<String, Value>,
    durable: bool,
) -> std::io::Result<()> {
    if !durable {
        return state.audit.record(rec, false);
    }
    let state = state.clone();
    tokio::task::spawn_blocking(move || state.audit.record(rec, true))
        .await
        .unwrap_or_else(|e| Err(std::io::Error::other(e)))
}

/// The action pipeline: gate, stale-target guard, per-tab lock, audit, dispatch,
/// verification. Every refusal and failure is an [`ApiError`]; the front door encodes it.
pub async fn run_action(
    state: &Arc<AppState>,
    req: &ActionRequest,
    pid: u64,
    request_id: &str,
) -> Result<ActionResponse, ApiError> {
    let started = Instant::now();
    let settings = &state.settings;
    // Shared with the hub: the gate reads it, and only agents' corrections copy it.
    let gate_state = if req.fresh_state {
        Some(Arc::new(
            state
                .hub
                .fresh_capture(pid, settings.capture_timeout)
                .await?,
        ))
    } else {
        match state.hub.shared_state(pid) {
            Ok(s) => Some(s),
            Err(HubError::NotReady { .. }) => None,
            Err(e) => return Err(e.into()),
        }
    };
    // What agents made stricter on this site holds at the gate whatever the probe sent.
    let gate_state = gate_state.map(|mut s| {
        state.corrections.enforce_agents(&mut s);
        s
    });
    let url = gate_state.as_ref().and_then(|s| s.context.url.clone());
    let explain = state.hub.explain(pid).unwrap_or_default();
    let limits = GateLimits {
        verify_expression_max_bytes: settings.verify_expression_max_bytes,
    };
    // Every refusal before dispatch is audited alike, secrets redacted by their mark.
    let refused = |e: ApiError, secret: &[String]| {
        let mut rec = audit_base(state, request_id, pid, url.as_deref(), &req.action);
        rec.insert("decision".into(), json!(format!("refused:{}", e.code)));
        rec.insert(
            "parameters".into(),
            crate::audit::redact(&req.parameters, secret),
        );
        // A refusal sends nothing, so a lost line cannot hide an action (and the
        // failure is logged by `record`).
        let _ = state.audit.record(rec, false);
        e
    };
    // A writing builtin aimed by selector is gated by the element the page finds there.
    let resolution = match gate::selector_to_resolve(req, gate_state.as_deref()) {
        None => None,
        Some(selector) => match resolve(state, pid, selector).await {
            Ok(r) => Some(r),
            Err(e) => {
                let secret = gate::secret_parameters(req, gate_state.as_deref(), None);
                return Err(refused(e, &secret));
            }
        },
    };
    let resolved = resolution.as_ref().and_then(|r| r.element.as_ref());
    if let Some(r) = &resolution {
        if let Err(e) = usable_resolution(r, &req.action, req.parameters.get("selector")) {
            let secret = gate::secret_parameters(req, gate_state.as_deref(), resolved);
            return Err(refused(e, &secret));
        }
    }
    // The gate, with the person in it: an action only its confidence floor refuses may be
    // held and put to the person; then their answer releases it, with the tab's lock.
    let (decision, held_lock) = match crate::approvals::check(
        state,
        req,
        pid,
        gate::Seen {
            state: gate_state.as_deref(),
            explain: &explain,
            resolved,
        },
        limits,
        request_id,
    )
    .await
    {
        Ok(d) => d,
        Err(e) => {
            let secret = gate::secret_parameters(req, gate_state.as_deref(), resolved);
            return Err(refused(e, &secret));
        }
    };

    // Step 8: the stale-target guard.
    if let Some(capture_id) = &req.expected_capture_id {
        let check = state.hub.target_since(pid, capture_id, &decision.action);
        if check != TargetCheck::Same {
            let why = match check {
                TargetCheck::UnknownCapture => {
                    format!("capture {capture_id} is not one of the tab's recent captures")
                }
                _ => format!(
                    "the target of {} changed since capture {capture_id}",
                    decision.action
                ),
            };
            return Err(ApiError::new(codes::STALE_STATE,
                format!("Refused rather than act on something else: {why}. Read the state again and decide on what is there now."),
            )
            .with("expected_capture_id", capture_id.clone())
            .with("current_capture_id", gate_state.as_ref().map(|s| s.capture_id.clone())));
        }
    }

    // Step 9: one action at a time per tab.
    // (An action the person approved holds the lock since before it was asked.)
    let _guard = match held_lock {
        Some(guard) => guard,
        None => lock_tab(state, pid).await?,
    };

    // The capture just before dispatch, for prev.* and changed().
    let prev = if decision.expression.is_some() || decision.tier != Reversibility::Read {
        match state.hub.fresh_capture(pid, settings.capture_timeout).await {
            Ok(s) => Some(Arc::new(s)),
            Err(_) => state.hub.shared_state(pid).ok(),
        }
    } else {
        // A read without an expression: no verification and no state after it, so no
        // before-state either (it would be a second copy of the whole state per read).
        // The dispatch still carries what the gate saw, which the page's dispatcher
        // compares with the live element.
        None
    };

    // The gate again, on that capture: what is dispatched must be what was gated. The
    // page may have swapped the control, its label or the row between the two.
    if let Some(before) = &prev {
        // Held to the same agents' corrections as the gate's state (copied only if one
        // applies).
        let mut now = before.clone();
        state.corrections.enforce_agents(&mut now);
        let explain_now = state.hub.explain(pid).unwrap_or_default();
        if let Err(e) = gate::regate(&decision, &now, &explain_now) {
            return Err(refused(e, &decision.secret_parameters));
        }
    }

    let action_id = uuid::Uuid::now_v7().to_string();
    let mut rec = audit_base(state, request_id, pid, url.as_deref(), &decision.action);
    rec.insert("action_id".into(), json!(action_id));
    rec.insert("tier".into(), json!(decision.tier.as_str()));
    rec.insert(
        "effective_confidence".into(),
        json!(decision.effective_confidence),
    );
    rec.insert("decision".into(), json!("dispatched"));
    rec.insert(
        "verify_expression".into(),
        json!(decision.expression.as_ref().map(|(s, _)| s)),
    );
    rec.insert(
        "parameters".into(),
        crate::audit::redact(&req.parameters, &decision.secret_parameters),
    );
    // Irreversible actions reach the disk before the page sees them, or not at all.
    let irreversible = decision.tier == Reversibility::IrreversibleWrite;
    if let Err(e) = record_audit(state, rec, irreversible).await {
        if irreversible {
            return Err(ApiError::new(codes::AUDIT_UNAVAILABLE,
                format!(
                    "{} was not sent: it is an irreversible write and its audit record could not be written to {} ({e}). Free disk space or fix the permissions of the data dir, then retry.",
                    decision.action,
                    state.audit.path().display()
                ),
            )
            .with("action_id", action_id.clone())
            .with("executed", false));
        }
    }

    let outcome = state
        .hub
        .dispatch(
            pid,
            action_id.clone(),
            decision.cleared(),
            settings.action_timeout,
        )
        .await;
    // The completion record (written with `record_audit`; `false` when it did not reach
    // the log, which the response then says: the action itself happened or not
    // regardless).
    let completion = |result: &str,
                      verification: Option<&VerificationOutcome>,
                      dialogs: &[PageDialog]|
     -> Map<String, Value> {
        let mut rec = audit_base(state, request_id, pid, url.as_deref(), &decision.action);
        rec.insert("action_id".into(), json!(action_id));
        rec.insert("decision".into(), json!("completed"));
        rec.insert("result".into(), json!(result));
        if !dialogs.is_empty() {
            rec.insert("dialogs".into(), json!(dialogs));
        }
        rec.insert(
            "verification".into(),
            json!(verification.map(|v| json!({"passed": v.passed, "explanation": v.explanation}))),
        );
        rec
    };
    let unrecorded = |e: ApiError, recorded: bool| {
        if recorded {
            e
        } else {
            e.with("audit_completion_recorded", false)
        }
    };
    let (value, dialogs) = match outcome {
        Ok(DispatchOutcome::Done { value, dialogs }) => (value, dialogs),
        Ok(DispatchOutcome::Failed { code, message }) => {
            let recorded = record_audit(state, completion("failed", None, &[]), irreversible)
                .await
                .is_ok();
            return Err(unrecorded(
                action_failed(code, &message).with("action_id", action_id.clone()),
                recorded,
            ));
        }
        Err(e) => {
            let rec = completion(
                match e {
                    DispatchError::Detached => "not_sent",
                    DispatchError::Timeout(_) => "timeout",
                    DispatchError::OutcomeUnknown => "outcome_unknown",
                },
                None,
                &[],
            );
            let recorded = record_audit(state, rec, irreversible).await.is_ok();
            return Err(unrecorded(
                dispatch_error(e, pid).with("action_id", action_id.clone()),
                recorded,
            ));
        }
    };

    if !decision.accepts_confirm()
        && dialogs
            .iter()
            .any(|x| x.kind == DialogKind::Confirm && x.accepted)
    {
        // The extension answers yes only when told to; this one did not keep to that.
        tracing::warn!(action = %decision.action, "the extension reports a confirm() it accepted without being allowed to");
    }
    let (verification, updated_state) = match &decision.expression {
        Some((source, expr)) => match prev.as_deref().or(gate_state.as_deref()) {
            Some(prev) => {
                let polling = Polling {
                    initial_wait: settings.post_action_wait,
                    interval: settings.poll_interval,
                    timeout: Duration::from_millis(
                        req.verify_timeout_ms.unwrap_or(VERIFY_TIMEOUT_MS_DEFAULT),
                    ),
                    capture_timeout: settings.capture_timeout,
                };
                let verified =
                    verification::verify(&state.hub, pid, source, expr, prev, polling).await;
                (Some(verified.outcome), verified.last_state)
            }
            None => (None, None),
        },
        None if decision.tier != Reversibility::Read => {
            tokio::time::sleep(settings.post_action_wait).await;
            let after = state
                .hub
                .fresh_capture(pid, settings.capture_timeout)
                .await
                .ok();
            (None, after)
        }
        None => (None, None),
    };
    let rec = completion(
        match &verification {
            Some(v) if !v.passed => "verification_failed",
            _ => "done",
        },
        verification.as_ref(),
        &dialogs,
    );
    let recorded = record_audit(state, rec, irreversible).await.is_ok();
    if let Some(v) = verification.as_ref().filter(|v| !v.passed) {
        return Err(unrecorded(ApiError::new(codes::VERIFICATION_FAILED,
            format!(
                "{} ran, but the verify_expression was still false after {} ms: {} Read the state before doing anything else: the action happened.",
                decision.action, v.latency_ms, v.explanation
            ),
        )
        .with("verification", serde_json::to_value(v).unwrap_or(Value::Null))
        .with("action_id", action_id.clone())
        .with("executed", true), recorded));
    }
    let mut message = success_message(&decision, verification.as_ref(), &dialogs);
    if !recorded {
        message.push_str(&format!(
            " The audit log could not record its completion (see nspd's log; free disk space or fix the data dir): {} holds only that it was dispatched.",
            state.audit.path().display()
        ));
    }
    let state_delta = match (prev.as_deref(), &updated_state) {
        (Some(before), Some(after)) => {
            let mut delta = Map::new();
            for change in nsp_verify::changed_fields(before, after) {
                delta.insert(
                    change.path,
                    json!({"before": change.before, "after": change.after}),
                );
            }
            Some(delta)
        }
        _ => None,
    };
    let response = ActionResponse {
        success: true,
        action_id,
        action: decision.action.clone(),
        executed: true,
        runtime: "v8".into(),
        total_latency_ms: started.elapsed().as_millis() as u64,
        message,
        verification,
        updated_state,
        state_delta,
        raw_return: value,
        dialogs,
    };
    Ok(response)
}

/// Asks the page which element `selector` finds, for the gate. An extension that does
/// not answer (one older than `resolve` ignores it) gets a refusal, never a guess.
async fn resolve(state: &AppState, pid: u64, selector: &str) -> Result<Resolution, ApiError> {
    let timeout = state.settings.capture_timeout;
    state
        .hub
        .resolve_selector(pid, selector, timeout)
        .await
        .map_err(|e| match e {
            ResolveError::Detached => dispatch_error(DispatchError::Detached, pid),
            ResolveError::Timeout(t) => ApiError::new(
                codes::ACTION_FAILED,
                format!(
                    "The action was not sent: nspd gates a builtin aimed by selector by the element the page finds there, and the page did not say which element {selector:?} finds within {} ms (an extension older than this nspd does not know how to). Update the extension, or call a discovered action instead.",
                    t.as_millis()
                ),
            )
            .with("failure", "unsupported")
            .with("executed", false),
        })
}

/// Whether what a selector found can be acted on: exactly one element, which a person
/// can see and reach.
fn usable_resolution(
    r: &Resolution,
    action: &str,
    selector: Option<&Value>,
) -> Result<(), ApiError> {
    let selector = selector.and_then(Value::as_str).unwrap_or_default();
    let bad = |what: String| {
        ApiError::new(
            codes::INVALID_PARAMETERS,
            format!(
                "{action} was not sent: {what}. See the action's parameters in the tab's state."
            ),
        )
        .with("field", "parameters.selector")
    };
    if let Some(error) = &r.error {
        return Err(bad(format!(
            "the page cannot use the selector {selector:?} ({error})"
        )));
    }
    let element = match (r.count, &r.element) {
        (1, Some(element)) => element,
        (0, _) => return Err(bad(format!("the selector {selector:?} matches no element"))),
        (1, None) => {
            return Err(bad(format!(
                "the page did not say which element the selector {selector:?} finds"
            )))
        }
        (n, _) => {
            return Err(bad(format!(
                "the selector {selector:?} matches {n} elements, and NSP acts only on a selector that finds exactly one; use the internal_target of a discovered action, or a more specific selector"
            ))
            .with("matches", n))
        }
    };
    if !element.perceivable {
        return Err(action_failed(
            DispatchFailure::TargetHidden,
            &format!(
                "{action} was not sent: the element {selector:?} finds ({} {:?}) is not one a person can see or reach.",
                crate::util::clip(&element.tag, 20),
                crate::util::clip(&element.label, 80)
            ),
        )
        .with("executed", false));
    }
    Ok(())
}

/// Takes tab `pid`'s action lock: one action at a time per tab. Waits at most
/// `action_lock_timeout` for an action already running there.
pub async fn lock_tab(
    state: &AppState,
    pid: u64,
) -> Result<tokio::sync::OwnedMutexGuard<()>, ApiError> {
    let lock = state
        .hub
        .action_lock(pid)
        .ok_or_else(|| ApiError::pid_not_found(&format!("pid {pid}")))?;
    let limit = state.settings.action_lock_timeout;
    tokio::time::timeout(limit, lock.lock_owned())
        .await
        .map_err(|_| {
            ApiError::new(
                codes::PROBE_TIMEOUT,
                format!(
                    "Another action on tab {pid} has been running for over {} ms; this one was not sent. Retry later.",
                    limit.as_millis()
                ),
            )
        })
}

fn success_message(
    d: &Decision,
    v: Option<&VerificationOutcome>,
    dialogs: &[PageDialog],
) -> String {
    let via = d
        .inherited_from
        .as_ref()
        .map(|a| format!(" (gated as {a})"))
        .unwrap_or_default();
    // An accepted confirm() is said in words: it is what NSP agreed to on the agent's
    // behalf.
    let asked: String = dialogs
        .iter()
        .filter(|x| x.kind == DialogKind::Confirm && x.accepted)
        .map(|x| {
            format!(
                " NSP answered yes to the page's confirm(“{}”), as this action's own confirmation.",
                x.message
            )
        })
        .collect();
    match v {
        Some(v) => format!(
            "{}{via} ran and was verified: {}.{asked}",
            d.action,
            v.explanation.trim_end_matches('.')
        ),
        None => format!("{}{via} ran.{asked}", d.action),
    }
}

/// Polls `expression` on tab `pid` until it holds or `timeout` passes (`POST /verify`).
pub async fn verify(
    state: &AppState,
    pid: u64,
    expression: &str,
    timeout: Duration,
) -> Result<VerificationOutcome, ApiError> {
    let limits = GateLimits {
        verify_expression_max_bytes: state.settings.verify_expression_max_bytes,
    };
    if expression.trim().is_empty() {
        return Err(
            ApiError::new(codes::INVALID_VERIFY_EXPRESSION, "\"expression\" is empty.")
                .with("field", "expression"),
        );
    }
    let expr =
        gate::parse_expression(expression, limits).map_err(|e| e.with("field", "expression"))?;
    let prev = state.hub.state(pid)?;
    let polling = Polling {
        initial_wait: Duration::ZERO,
        interval: state.settings.poll_interval,
        timeout,
        capture_timeout: state.settings.capture_timeout,
    };
    let verified = verification::verify(&state.hub, pid, expression, &expr, &prev, polling).await;
    Ok(verified.outcome)
}

fn action_failed(code: DispatchFailure, message: &str) -> ApiError {
    let code_str = serde_json::to_value(code)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    let advice = match code {
        DispatchFailure::TargetNotFound => "Nothing on the page matches. Read the current state and use a selector or value from it.",
        DispatchFailure::TargetChanged => "The page changed under the action, so it was not run. Read the state again before retrying.",
        DispatchFailure::Threw => "The page threw while running the action. Read the state to see what happened.",
        DispatchFailure::Duplicate => "This action id already ran once and was not run again.",
        DispatchFailure::NoProbe => "The tab's probe is not running. Reload the page or wait for it to load.",
        DispatchFailure::BadParameters => "Fix the parameters as the message says.",
        DispatchFailure::Unsupported => "This extension version does not support the action.",
        DispatchFailure::TargetHidden => "A person could not see or reach the element right then (hidden, covered, off-screen or disabled), so NSP did not act on it. Read the state again: NSP offers only what a person can see.",
        DispatchFailure::DialogDeclined => {
            "NSP answers yes to a page's confirmation only for an irreversible_write sent with a verify_expression; the probe now rates this control irreversible_write for the rest of the page's life. Read the state before anything else."
        }
    };
    ApiError::new(
        codes::ACTION_FAILED,
        format!("The action did not complete: {message} {advice}"),
    )
    .with("failure", code_str)
}

fn dispatch_error(err: DispatchError, pid: u64) -> ApiError {
    match err {
        DispatchError::Detached => ApiError::new(codes::PROBE_DETACHED,
            format!("The probe of tab {pid} is not connected, so the action was not sent. List tabs again with GET /substrate/v1/apps."),
        ),
        DispatchError::Timeout(t) => ApiError::new(codes::PROBE_TIMEOUT,
            format!(
                "The page did not answer within {} ms. The action may or may not have happened; nspd did not retry. Read the state before deciding anything.",
                t.as_millis()
            ),
        ),
        DispatchError::OutcomeUnknown => ApiError::new(codes::OUTCOME_UNKNOWN,
            "The connection to the page dropped after the action was sent and before it answered: it may or may not have happened. nspd did not retry. Read the state to find out.",
        ),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::config::Settings;

    /// An AppState on a temporary data dir, with `actions_per_sec`.
    pub(crate) fn state(
        dir: &std::path::Path,
        require_key: bool,
        actions_per_sec: u32,
    ) -> AppState {
        let mut settings = Settings::new(dir.to_owned());
        settings.require_key = require_key;
        settings.actions_per_sec = actions_per_sec;
        let key = crate::auth::AgentKey::load_or_create(dir).expect("key");
        AppState {
            hub: crate::hub::Hub::new(),
            key_id: key.id(),
            key,
            local_addr: "127.0.0.1:7842".parse().expect("addr"),
            audit: crate::audit::AuditLog::open(dir).expect("audit"),
            idempotency: crate::idempotency::Store::default(),
            limits: crate::ratelimit::Limits::new(
                settings.actions_per_sec,
                settings.state_reads_per_sec,
            ),
            watchers: std::sync::atomic::AtomicUsize::new(0),
            corrections: crate::corrections::Corrections::open(dir).expect("corrections"),
            settings,
        }
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, v.parse().expect("header value"));
        }
        h
    }

    #[test]
    fn the_guard_wants_the_key_in_any_of_its_places() {
        let dir = tempfile::tempdir().expect("tempdir");
        let s = state(dir.path(), true, 1000);
        let key = s.key.reveal().to_owned();
        let code = |h: &HeaderMap, q: Option<&str>| {
            guard(&s, h, q, Bucket::StateReads).err().map(|e| e.code)
        };
        assert_eq!(code(&headers(&[]), None), Some(codes::MISSING_KEY));
        assert_eq!(
            code(&headers(&[("authorization", "Bearer ")]), None),
            Some(codes::MISSING_KEY)
        );
        assert_eq!(
            code(
                &headers(&[("authorization", &format!("Bearer {}", "0".repeat(64)))]),
                None
            ),
            Some(codes::INVALID_KEY)
        );
        assert_eq!(
            code(
                &headers(&[("authorization", &format!("Bearer {key}"))]),
                None
            ),
            None
        );
        assert_eq!(code(&headers(&[("x-substrate-key", &key)]), None), None);
        // `?key=` counts only where the door passes the query (the watch route).
        assert_eq!(code(&headers(&[]), Some(&format!("key={key}"))), None);
        assert_eq!(
            code(
                &headers(&[("authorization", &format!("Basic {key}"))]),
                None
            ),
            Some(codes::MISSING_KEY)
        );
        let err = guard(&s, &headers(&[]), None, Bucket::StateReads).expect_err("no key");
        assert_eq!(err.status, StatusCode::UNAUTHORIZED);
    }

    #[test]
    fn the_guard_limits_each_bucket_and_says_when_to_retry() {
        let dir = tempfile::tempdir().expect("tempdir");
        let s = state(dir.path(), false, 1);
        let none = HeaderMap::new();
        // No key needed when [auth] require_key is off.
        guard(&s, &none, None, Bucket::Actions).expect("the first action passes");
        let err =
            guard(&s, &none, None, Bucket::Actions).expect_err("the second is over the limit");
        assert_eq!(err.code, codes::RATE_LIMITED);
        assert_eq!(err.status, StatusCode::TOO_MANY_REQUESTS);
        assert!(
            err.details["retry_after_ms"].as_u64().is_some(),
            "{:?}",
            err.details
        );
        assert!(err.headers.iter().any(|(k, _)| *k == "retry-after"));
        // Reads have their own bucket.
        guard(&s, &none, None, Bucket::StateReads).expect("a read still passes");
        assert_eq!(
            limit(&s, Bucket::Actions).err().map(|e| e.code),
            Some(codes::RATE_LIMITED)
        );
    }
}

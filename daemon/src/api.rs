//! The agent API (NSP v1): routing, authentication, rate limits and the handlers.
//! Handlers return a response or an [`ApiError`]; `http::handle` turns errors into
//! bodies in one place.

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use hyper::{HeaderMap, Method, Request, Response, StatusCode};
use nsp_protocol::api::{
    ActionHeaders, ActionRequest, ActionResponse, AppList, DiffResponse, Health, SchemaResponse,
    StateQuery, VerificationOutcome, VerifyRequest, WatchEvent, WatchQuery, ACTION_NAME_MAX_BYTES,
    IDEMPOTENCY_KEY_MAX_BYTES, VERIFY_TIMEOUT_MS_DEFAULT, VERIFY_TIMEOUT_MS_MAX,
    VERIFY_TIMEOUT_MS_MIN,
};
pub use nsp_protocol::api::{MAX_KEY_QUERY_BYTES, MAX_STATE_LIMIT};
use nsp_protocol::approval::{LearnRequest, LearnResponse};
use nsp_protocol::channel::{DialogKind, DispatchFailure, DispatchOutcome, PageDialog};
use nsp_protocol::{Reversibility, SubstrateState};
use serde_json::{json, Map, Value};

use crate::codes;
use crate::error::ApiError;
use crate::gate::{self, Decision, GateLimits};
use crate::http::{json_bytes, json_bytes_response, json_response, AppState, Body};
use crate::hub::{DispatchError, HubError, TargetCheck};
use crate::idempotency::Claim;
use crate::ratelimit::Bucket;
use crate::route::{schema_of, Access, Call, Reply, Route};
use crate::verification::{self, Polling};

pub const PREFIX: &str = "/substrate/v1";

/// Every route of the agent API, one entry each: the router (`route::serve`) and the
/// OpenAPI document (`openapi::document`) are both built from this table.
pub static ROUTES: &[Route] = &[
    Route {
        method: Method::GET,
        path: "/health",
        summary: "Daemon health; needs no key",
        access: Access::Open,
        handler: |c| Box::pin(async move { Ok(health(&c.state)) }),
        query: None,
        headers: None,
        body: None,
        reply: Reply::Json(schema_of::<Health>),
        errors: &[],
    },
    Route {
        method: Method::HEAD,
        path: "/health",
        summary: "Daemon health, headers only; needs no key",
        access: Access::Open,
        handler: |c| Box::pin(async move { Ok(health(&c.state)) }),
        query: None,
        headers: None,
        body: None,
        reply: Reply::Json(schema_of::<Health>),
        errors: &[],
    },
    Route {
        method: Method::GET,
        path: "/substrate/v1/apps",
        summary: "List the tabs with a probe",
        access: Access::Key(Bucket::StateReads),
        handler: |c| Box::pin(async move { Ok(ok_json(&apps(&c.state))) }),
        query: None,
        headers: None,
        body: None,
        reply: Reply::Json(schema_of::<AppList>),
        errors: &[],
    },
    Route {
        method: Method::GET,
        path: "/substrate/v1/state/{pid}",
        summary: "A tab's state, flat; fresh=true asks the page for a new capture; prefix=, after= and limit= return a part of its objects (a large page read in pages)",
        access: Access::Key(Bucket::StateReads),
        handler: |c| Box::pin(state_route(c)),
        query: Some(schema_of::<StateQuery>),
        headers: None,
        body: None,
        reply: Reply::Json(schema_of::<SubstrateState>),
        errors: &[
            codes::PROBE_DETACHED,
            codes::PROBE_NOT_READY,
            codes::PROBE_TIMEOUT,
            codes::REQUEST_TIMEOUT,
        ],
    },
    Route {
        method: Method::GET,
        path: "/substrate/v1/schema/{pid}",
        summary: "A tab's actions",
        access: Access::Key(Bucket::StateReads),
        handler: |c| Box::pin(async move { schema(&c.state, c.pid) }),
        query: None,
        headers: None,
        body: None,
        reply: Reply::Json(schema_of::<SchemaResponse>),
        errors: &[codes::PROBE_DETACHED, codes::PROBE_NOT_READY],
    },
    Route {
        method: Method::POST,
        path: "/substrate/v1/action",
        summary: "Gate, dispatch and verify one action (route timeout 120 s)",
        access: Access::Key(Bucket::Actions),
        handler: |c| Box::pin(action_route(c)),
        query: None,
        headers: Some(schema_of::<ActionHeaders>),
        body: Some(schema_of::<ActionRequest>),
        reply: Reply::Json(schema_of::<ActionResponse>),
        errors: &[
            codes::MISSING_VERIFY_EXPRESSION,
            codes::VERIFY_EXPRESSION_TOO_LARGE,
            codes::INVALID_VERIFY_EXPRESSION,
            codes::DANGEROUS_ACTION_UNVERIFIED,
            codes::INVALID_PARAMETERS,
            codes::PID_NOT_FOUND,
            codes::ACTION_NOT_AVAILABLE,
            codes::IDEMPOTENCY_CONFLICT,
            codes::STALE_STATE,
            codes::IRREVERSIBLE_NOT_CONFIRMED,
            codes::CONFIDENCE_TOO_LOW,
            codes::APPROVAL_DENIED,
            codes::APPROVAL_TIMEOUT,
            codes::VERIFICATION_FAILED,
            codes::IDEMPOTENCY_KEY_REUSED,
            codes::ACTION_FAILED,
            codes::PROBE_DETACHED,
            codes::PROBE_NOT_READY,
            codes::OUTCOME_UNKNOWN,
            codes::AUDIT_UNAVAILABLE,
            codes::PROBE_TIMEOUT,
            codes::REQUEST_TIMEOUT,
        ],
    },
    Route {
        method: Method::POST,
        path: "/substrate/v1/learn",
        summary: "A correction from an agent: only ever stricter (a higher tier, a lower confidence)",
        access: Access::Key(Bucket::Actions),
        handler: |c| Box::pin(learn_route(c)),
        query: None,
        headers: None,
        body: Some(schema_of::<LearnRequest>),
        reply: Reply::Json(schema_of::<LearnResponse>),
        errors: &[
            codes::FORBIDDEN,
            codes::PID_NOT_FOUND,
            codes::ACTION_NOT_AVAILABLE,
            codes::PROBE_DETACHED,
            codes::PROBE_NOT_READY,
            codes::CORRECTIONS_UNAVAILABLE,
        ],
    },
    Route {
        method: Method::GET,
        path: "/substrate/v1/diff/{pid}",
        summary: "What changed between the tab's last two captures",
        access: Access::Key(Bucket::StateReads),
        handler: |c| Box::pin(async move { diff(&c.state, c.pid) }),
        query: None,
        headers: None,
        body: None,
        reply: Reply::Json(schema_of::<DiffResponse>),
        errors: &[codes::PROBE_DETACHED, codes::PROBE_NOT_READY, codes::NO_DIFF_YET],
    },
    Route {
        method: Method::POST,
        path: "/substrate/v1/verify",
        summary: "Evaluate an expression against the live state, polling until true or timeout (route timeout 120 s)",
        access: Access::Key(Bucket::Actions),
        handler: |c| Box::pin(verify_route(c)),
        query: None,
        headers: None,
        body: Some(schema_of::<VerifyRequest>),
        reply: Reply::Json(schema_of::<VerificationOutcome>),
        errors: &[
            codes::VERIFY_EXPRESSION_TOO_LARGE,
            codes::INVALID_VERIFY_EXPRESSION,
            codes::PID_NOT_FOUND,
            codes::PROBE_DETACHED,
            codes::PROBE_NOT_READY,
            codes::PROBE_TIMEOUT,
            codes::REQUEST_TIMEOUT,
        ],
    },
    Route {
        method: Method::GET,
        path: "/substrate/v1/watch/{pid}",
        summary: "WebSocket of state changes; pings every 15 s; closes 1000 when the tab goes away",
        access: Access::KeyOrQuery(Bucket::StateReads),
        handler: |c| Box::pin(async move { crate::watch::upgrade(&c.state, c.req, c.pid) }),
        query: Some(schema_of::<WatchQuery>),
        headers: None,
        body: None,
        reply: Reply::WebSocket(schema_of::<WatchEvent>),
        errors: &[codes::UPGRADE_REQUIRED, codes::TOO_MANY_WATCHERS],
    },
    Route {
        method: Method::GET,
        path: "/substrate/v1/openapi.json",
        summary: "This document",
        access: Access::Key(Bucket::StateReads),
        handler: |c| {
            Box::pin(async move {
                Ok(json_response(
                    StatusCode::OK,
                    &crate::openapi::document(&c.state.settings),
                ))
            })
        },
        query: None,
        headers: None,
        body: None,
        reply: Reply::Document,
        errors: &[],
    },
];

/// Serves one request of the agent API from [`ROUTES`].
pub async fn route(
    state: &Arc<AppState>,
    req: Request<Incoming>,
    request_id: &str,
) -> Result<Response<Body>, ApiError> {
    crate::route::serve(ROUTES, state, req, request_id).await
}

async fn state_route(c: Call) -> Result<Response<Body>, ApiError> {
    let Call {
        state, req, pid, ..
    } = c;
    let fresh = query_flag(req.uri().query(), "fresh")?;
    // Checked before any capture is asked for: a bad query costs the page nothing.
    let window = ObjectWindow::parse(req.uri().query())?;
    if !fresh && window == ObjectWindow::default() {
        // The whole current state: the bytes serialized once per capture.
        return Ok(json_bytes_response(
            StatusCode::OK,
            state.hub.state_json(pid)?,
        ));
    }
    let mut s = bounded(
        state.settings.request_timeout,
        get_state(&state, pid, fresh),
    )
    .await?;
    window.apply(&mut s);
    Ok(ok_json(&s))
}

async fn action_route(c: Call) -> Result<Response<Body>, ApiError> {
    let Call {
        state,
        req,
        request_id,
        ..
    } = c;
    let idem = idempotency_key(req.headers())?;
    let body = read_body(&state, req).await?;
    bounded(
        state.settings.action_route_timeout,
        action(&state, &body, idem, &request_id),
    )
    .await
}

async fn learn_route(c: Call) -> Result<Response<Body>, ApiError> {
    let body = read_body(&c.state, c.req).await?;
    crate::learn::learn(&c.state, &body, &c.request_id).await
}

async fn verify_route(c: Call) -> Result<Response<Body>, ApiError> {
    let body = read_body(&c.state, c.req).await?;
    bounded(
        c.state.settings.action_route_timeout,
        verify(&c.state, &body),
    )
    .await
}

async fn bounded<T>(
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

fn health(state: &AppState) -> Response<Body> {
    ok_json(&Health {
        status: "ok".into(),
        version: crate::VERSION.into(),
        uptime_secs: state.hub.uptime().as_secs(),
        tracked_processes: state.hub.tab_count() as u64,
        auth_enabled: state.settings.require_key,
    })
}

fn apps(state: &AppState) -> AppList {
    let apps = state.hub.list();
    AppList {
        total: apps.len() as u64,
        apps,
    }
}

async fn get_state(state: &AppState, pid: u64, fresh: bool) -> Result<SubstrateState, ApiError> {
    Ok(if fresh {
        state
            .hub
            .fresh_capture(pid, state.settings.capture_timeout)
            .await?
    } else {
        state.hub.state(pid)?
    })
}

fn schema(state: &AppState, pid: u64) -> Result<Response<Body>, ApiError> {
    let s = state.hub.state(pid)?;
    Ok(ok_json(&SchemaResponse {
        pid: s.pid,
        app_id: s.app_id,
        app_name: s.app_name,
        schema_version: s.schema_version,
        actions: s.actions,
    }))
}

fn diff(state: &AppState, pid: u64) -> Result<Response<Body>, ApiError> {
    let current = state.hub.state(pid)?;
    let Some((prev, cur)) = state.hub.last_two(pid) else {
        return Err(ApiError::new(codes::NO_DIFF_YET,
            format!("Tab {pid} has only one capture so far; a diff needs two. Read the state, act or wait for a change, then ask again."),
        ));
    };
    Ok(ok_json(&DiffResponse {
        pid,
        app_id: current.app_id,
        diff: nsp_verify::changed_fields(&prev, &cur),
        captured_at: cur.captured_at,
        previous_capture_id: prev.capture_id,
        current_capture_id: cur.capture_id,
    }))
}

fn idempotency_key(headers: &HeaderMap) -> Result<Option<String>, ApiError> {
    match headers.get("idempotency-key") {
        None => Ok(None),
        Some(v) => {
            let key = v.to_str().unwrap_or("").trim();
            if key.is_empty() || key.len() > IDEMPOTENCY_KEY_MAX_BYTES {
                return Err(ApiError::invalid_request(format!(
                    "Idempotency-Key must be 1 to {IDEMPOTENCY_KEY_MAX_BYTES} visible ASCII characters."
                ))
                .with("field", "Idempotency-Key"));
            }
            Ok(Some(key.to_owned()))
        }
    }
}

/// Parses and validates an ActionRequest body; nothing has happened yet when this
/// fails. Public and pure (bytes in, request or error out) so the fuzz target in
/// `fuzz/` drives exactly what `POST /action` runs.
pub fn parse_action_request(body: &[u8]) -> Result<ActionRequest, ApiError> {
    let req: ActionRequest = parse_json(body)?;
    if req.pid == Some(0) {
        return Err(ApiError::invalid_request(
            "\"pid\" must be a positive integer from GET /substrate/v1/apps.",
        )
        .with("field", "pid"));
    }
    if req.action.trim().is_empty() {
        return Err(ApiError::invalid_request(
            "\"action\" is empty. Name one of the actions in the tab's state.",
        )
        .with("field", "action"));
    }
    if req.action.len() > ACTION_NAME_MAX_BYTES {
        return Err(ApiError::invalid_request(format!(
            "\"action\" is longer than {ACTION_NAME_MAX_BYTES} bytes; no action has such a name."
        ))
        .with("field", "action"));
    }
    if let Some(t) = req.verify_timeout_ms {
        if !(VERIFY_TIMEOUT_MS_MIN..=VERIFY_TIMEOUT_MS_MAX).contains(&t) {
            return Err(ApiError::invalid_request(format!(
                "\"verify_timeout_ms\" is {t}; it must be between {VERIFY_TIMEOUT_MS_MIN} and {VERIFY_TIMEOUT_MS_MAX}."
            ))
            .with("field", "verify_timeout_ms"));
        }
    }
    if req.pid.is_none() && req.app_id.is_none() {
        return Err(ApiError::invalid_request(
            "The request names no tab. Send \"pid\" (a number from GET /substrate/v1/apps) or \"app_id\".",
        )
        .with("field", "pid"));
    }
    Ok(req)
}

async fn action(
    state: &Arc<AppState>,
    body: &Bytes,
    idem: Option<String>,
    request_id: &str,
) -> Result<Response<Body>, ApiError> {
    let req = parse_action_request(body)?;
    let pid = state.hub.resolve(req.pid, req.app_id.as_deref())?;
    let Some(idem) = idem else {
        return run_action(state, &req, pid, request_id).await;
    };
    // The same key must mean the same request: compare the parsed body and the tab.
    let fingerprint = json!({"pid": pid, "request": serde_json::from_slice::<Value>(body).unwrap_or(Value::Null)});
    match state.idempotency.claim(&state.key_id, &idem, &fingerprint) {
        Claim::Run => {}
        Claim::Replay { status, body } => {
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
            let mut resp = json_response(status, &body);
            resp.headers_mut().insert("idempotent-replayed", hyper::header::HeaderValue::from_static("true"));
            return Ok(resp);
        }
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
    let result = run_action(state, &req, pid, request_id).await;
    if matches!(&result, Err(e) if e.code == codes::AUDIT_UNAVAILABLE) {
        // Nothing was sent and the message says to retry once the disk is fixed: that
        // retry, with the same key, must run rather than replay this refusal.
        state.idempotency.release(&state.key_id, &idem);
        return result;
    }
    let (status, body) = match &result {
        Ok(resp) => (resp.status().as_u16(), replay_body(resp)),
        Err(e) => (e.status.as_u16(), e.body(request_id)),
    };
    state
        .idempotency
        .complete(&state.key_id, &idem, status, body);
    result
}

/// The JSON body of a response we built (bodies are `Full`, so already in memory).
fn replay_body(resp: &Response<Body>) -> Value {
    resp.extensions()
        .get::<ReplayBody>()
        .map(|b| b.0.clone())
        .unwrap_or(Value::Null)
}

/// A copy of a success body, kept on the response for idempotent replay.
#[derive(Debug, Clone)]
struct ReplayBody(Value);

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

async fn run_action(
    state: &Arc<AppState>,
    req: &ActionRequest,
    pid: u64,
    request_id: &str,
) -> Result<Response<Body>, ApiError> {
    let started = Instant::now();
    let settings = &state.settings;
    let gate_state = if req.fresh_state {
        Some(
            state
                .hub
                .fresh_capture(pid, settings.capture_timeout)
                .await?,
        )
    } else {
        match state.hub.state(pid) {
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
    // The gate, with the person in it: an action only its confidence floor refuses may be
    // held and put to the person; then their answer releases it, with the tab's lock.
    let (decision, held_lock) = match crate::approvals::check(
        state,
        req,
        pid,
        gate_state.as_ref(),
        &explain,
        limits,
        request_id,
    )
    .await
    {
        Ok(d) => d,
        Err(e) => {
            let mut rec = audit_base(state, request_id, pid, url.as_deref(), &req.action);
            rec.insert("decision".into(), json!(format!("refused:{}", e.code)));
            rec.insert("parameters".into(), crate::audit::redact(&req.parameters));
            // A refusal sends nothing, so a lost line cannot hide an action (and the
            // failure is logged by `record`).
            let _ = state.audit.record(rec, false);
            return Err(e);
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
        None => {
            let lock = state
                .hub
                .action_lock(pid)
                .ok_or_else(|| ApiError::pid_not_found(&format!("pid {pid}")))?;
            tokio::time::timeout(settings.action_lock_timeout, lock.lock_owned())
                .await
                .map_err(|_| {
                    ApiError::new(codes::PROBE_TIMEOUT,
                        format!(
                            "Another action on tab {pid} has been running for over {} ms; this one was not sent. Retry later.",
                            settings.action_lock_timeout.as_millis()
                        ),
                    )
                })?
        }
    };

    // The capture just before dispatch, for prev.* and changed().
    let prev = if decision.expression.is_some() || decision.tier != Reversibility::Read {
        match state.hub.fresh_capture(pid, settings.capture_timeout).await {
            Ok(s) => Some(s),
            Err(_) => state.hub.state(pid).ok(),
        }
    } else {
        // A read without an expression: no verification and no state after it, so no
        // before-state either (it would be a second copy of the whole state per read).
        None
    };

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
    rec.insert("parameters".into(), crate::audit::redact(&req.parameters));
    // Irreversible actions reach the disk before the page sees them, or not at all.
    let irreversible = decision.tier == Reversibility::IrreversibleWrite;
    if let Err(e) = state.audit.record(rec, irreversible) {
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
    // The completion record; `false` when it did not reach the log, which the response
    // then says (the action itself happened or not regardless).
    let completion = |result: &str,
                      verification: Option<&VerificationOutcome>,
                      dialogs: &[PageDialog]|
     -> bool {
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
        state.audit.record(rec, irreversible).is_ok()
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
            let recorded = completion("failed", None, &[]);
            return Err(unrecorded(
                action_failed(code, &message).with("action_id", action_id.clone()),
                recorded,
            ));
        }
        Err(e) => {
            let recorded = completion(
                match e {
                    DispatchError::Detached => "not_sent",
                    DispatchError::Timeout(_) => "timeout",
                    DispatchError::OutcomeUnknown => "outcome_unknown",
                },
                None,
                &[],
            );
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
        Some((source, expr)) => {
            let prev = prev.clone().or_else(|| gate_state.clone());
            match prev {
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
                        verification::verify(&state.hub, pid, source, expr, &prev, polling).await;
                    (Some(verified.outcome), verified.last_state)
                }
                None => (None, None),
            }
        }
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
    let recorded = completion(
        match &verification {
            Some(v) if !v.passed => "verification_failed",
            _ => "done",
        },
        verification.as_ref(),
        &dialogs,
    );
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
    let state_delta = match (&prev, &updated_state) {
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
    let body = serde_json::to_value(&response).unwrap_or(Value::Null);
    let mut resp = json_response(StatusCode::OK, &body);
    resp.extensions_mut().insert(ReplayBody(body));
    Ok(resp)
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

async fn verify(state: &Arc<AppState>, body: &Bytes) -> Result<Response<Body>, ApiError> {
    let req: VerifyRequest = parse_json(body)?;
    if req.pid == Some(0) {
        return Err(
            ApiError::invalid_request("\"pid\" must be a positive integer.").with("field", "pid"),
        );
    }
    let timeout = req.timeout_ms.unwrap_or(VERIFY_TIMEOUT_MS_DEFAULT);
    if !(VERIFY_TIMEOUT_MS_MIN..=VERIFY_TIMEOUT_MS_MAX).contains(&timeout) {
        return Err(ApiError::invalid_request(format!(
            "\"timeout_ms\" is {timeout}; it must be between {VERIFY_TIMEOUT_MS_MIN} and {VERIFY_TIMEOUT_MS_MAX}."
        ))
        .with("field", "timeout_ms"));
    }
    if req.pid.is_none() && req.app_id.is_none() {
        return Err(ApiError::invalid_request("Send \"pid\" or \"app_id\".").with("field", "pid"));
    }
    let pid = state.hub.resolve(req.pid, req.app_id.as_deref())?;
    let limits = GateLimits {
        verify_expression_max_bytes: state.settings.verify_expression_max_bytes,
    };
    if req.expression.trim().is_empty() {
        return Err(
            ApiError::new(codes::INVALID_VERIFY_EXPRESSION, "\"expression\" is empty.")
                .with("field", "expression"),
        );
    }
    let expr = gate::parse_expression(&req.expression, limits)
        .map_err(|e| e.with("field", "expression"))?;
    let prev = state.hub.state(pid)?;
    let polling = Polling {
        initial_wait: Duration::ZERO,
        interval: state.settings.poll_interval,
        timeout: Duration::from_millis(timeout),
        capture_timeout: state.settings.capture_timeout,
    };
    let verified =
        verification::verify(&state.hub, pid, &req.expression, &expr, &prev, polling).await;
    Ok(ok_json(&verified.outcome))
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

pub(crate) async fn read_body(state: &AppState, req: Request<Incoming>) -> Result<Bytes, ApiError> {
    let limit = state.settings.max_body_bytes;
    if let Some(len) = req
        .headers()
        .get(hyper::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok())
    {
        if len > limit as u64 {
            return Err(too_large(limit));
        }
    }
    match Limited::new(req.into_body(), limit).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e)
            if e.downcast_ref::<http_body_util::LengthLimitError>()
                .is_some() =>
        {
            Err(too_large(limit))
        }
        Err(_) => Err(ApiError::invalid_request(
            "The request body could not be read.",
        )),
    }
}

fn too_large(limit: usize) -> ApiError {
    ApiError::new(
        codes::PAYLOAD_TOO_LARGE,
        format!("The request body is over {limit} bytes."),
    )
}

/// Parses a JSON body, naming the offending field when a value has the wrong type.
pub(crate) fn parse_json<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::invalid_request(
            "The body is empty; send a JSON object.",
        ));
    }
    let de = &mut serde_json::Deserializer::from_slice(body);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let field = if path != "." && !path.is_empty() {
            Some(path)
        } else {
            field_from_serde_error(&inner.to_string())
        };
        let message = match &field {
            Some(f) => format!("The body is not a valid request: field {f:?}: {inner}."),
            None => format!("The body is not valid JSON for this route: {inner}."),
        };
        let mut err = ApiError::invalid_request(message);
        if let Some(f) = field {
            err = err.with("field", f);
        }
        err
    })
}

/// serde names missing or unknown fields in backticks.
fn field_from_serde_error(message: &str) -> Option<String> {
    let start = message.find('`')? + 1;
    let len = message[start..].find('`')?;
    Some(message[start..start + len].to_owned())
}

/// Which part of a tab's objects `GET /state` returns: `prefix=` keeps the keys that
/// start with it, `after=` the keys after it (in key order, to read a large state in
/// pages), `limit=` at most that many, in key order. Without them, all objects.
#[derive(Debug, Default, PartialEq)]
pub struct ObjectWindow {
    pub prefix: Option<String>,
    pub after: Option<String>,
    pub limit: Option<usize>,
}

impl ObjectWindow {
    pub fn parse(query: Option<&str>) -> Result<ObjectWindow, ApiError> {
        let mut w = ObjectWindow::default();
        let Some(query) = query else { return Ok(w) };
        for pair in query.split('&') {
            let (k, raw) = pair.split_once('=').unwrap_or((pair, ""));
            if !matches!(k, "prefix" | "after" | "limit") {
                continue;
            }
            let bad = |m: String| Err(ApiError::invalid_request(m).with("field", k));
            let Some(v) = percent_decode(raw) else {
                return bad(format!(
                    "?{k}= is not valid percent-encoded UTF-8; encode the key as a query value."
                ));
            };
            let taken = match k {
                "limit" => w.limit.is_some(),
                "prefix" => w.prefix.is_some(),
                _ => w.after.is_some(),
            };
            if taken {
                return bad(format!("?{k}= is given twice; give it once."));
            }
            match k {
                "limit" => match v.trim().parse::<usize>() {
                    Ok(n) if (1..=MAX_STATE_LIMIT).contains(&n) => w.limit = Some(n),
                    _ => {
                        return bad(format!(
                            "?limit= must be a whole number from 1 to {MAX_STATE_LIMIT} (the most objects to return, in key order), not {v:?}."
                        ))
                    }
                },
                _ if v.len() > MAX_KEY_QUERY_BYTES => {
                    return bad(format!(
                        "?{k}= must be at most {MAX_KEY_QUERY_BYTES} bytes (an object key or its beginning, e.g. inbox.emails[), not {} bytes.",
                        v.len()
                    ))
                }
                "prefix" => w.prefix = Some(v),
                _ => w.after = Some(v),
            }
        }
        Ok(w)
    }

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

/// `%XX` escapes and `+` (a space) decoded; `None` for a broken escape or bytes that
/// are not UTF-8.
fn percent_decode(raw: &str) -> Option<String> {
    let bytes = raw.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = bytes.get(i + 1..i + 3)?;
                if !hex.iter().all(u8::is_ascii_hexdigit) {
                    return None;
                }
                out.push(u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

fn query_flag(query: Option<&str>, name: &str) -> Result<bool, ApiError> {
    let Some(query) = query else { return Ok(false) };
    for pair in query.split('&') {
        let (k, v) = pair.split_once('=').unwrap_or((pair, "true"));
        if k == name {
            return match v {
                "true" | "1" | "" => Ok(true),
                "false" | "0" => Ok(false),
                _ => Err(ApiError::invalid_request(format!(
                    "?{name}= must be true or false, not {v:?}."
                ))
                .with("field", name)),
            };
        }
    }
    Ok(false)
}

pub(crate) fn ok_json<T: serde::Serialize>(value: &T) -> Response<Body> {
    json_bytes_response(StatusCode::OK, json_bytes(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_windows_parse_and_refuse_what_they_cannot_mean() {
        let w = ObjectWindow::parse(Some("fresh=true&prefix=inbox.emails%5B1&limit=5&after=a+b"))
            .expect("parses");
        assert_eq!(w.prefix.as_deref(), Some("inbox.emails[1"));
        assert_eq!(w.after.as_deref(), Some("a b"));
        assert_eq!(w.limit, Some(5));
        assert_eq!(
            ObjectWindow::parse(None).expect("none"),
            ObjectWindow::default()
        );
        for bad in [
            "limit=0",
            "limit=-1",
            "limit=ten",
            "limit=100001",
            "limit=",
            "prefix=%ZZ",
            "prefix=%+5",
            "prefix=%FF",
            "prefix=a&prefix=b",
        ] {
            let err = ObjectWindow::parse(Some(bad)).expect_err(bad);
            assert_eq!(err.status, StatusCode::BAD_REQUEST, "{bad}");
        }
        let long = format!("prefix={}", "a".repeat(201));
        assert!(ObjectWindow::parse(Some(&long)).is_err());
    }
}

//! The agent API (NSP v1): routing, authentication, rate limits and the handlers.
//! Handlers return a response or an [`CoreError`]; `http::handle` turns errors into
//! bodies in one place.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use hyper::{HeaderMap, Method, Request, Response, StatusCode};
use nsp_protocol::api::{
    ActionHeaders, ActionRequest, ActionResponse, AppList, DiffResponse, Health, LeaseRequest,
    LeaseResponse, OpenTabRequest, OpenTabResponse, SchemaResponse, StateQuery, StateView,
    VerificationOutcome, VerifyRequest, WatchEvent, WatchQuery, IDEMPOTENCY_KEY_MAX_BYTES,
};
pub use nsp_protocol::api::{MAX_KEY_QUERY_BYTES, MAX_STATE_LIMIT};
use nsp_protocol::approval::{LearnRequest, LearnResponse};
use nsp_protocol::SubstrateState;

use crate::core::access;
use crate::core::agents::Agent;
use crate::core::app::AppState;
use crate::core::codes;
use crate::core::error::CoreError;
use crate::core::leases::Lease;
use crate::core::pipeline::{self, bounded, Acted};
use crate::core::ratelimit::Bucket;
use crate::core::request::{self, ActionCall, ObjectWindow};
use crate::door::http::route::{schema_of, Access, Call, Reply, Route};
use crate::door::http::{json_bytes, json_bytes_response, json_response, Body};

pub use crate::door::http::route::PREFIX;

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
        handler: |c| Box::pin(async move { Ok(ok_json(&apps(&c.state, &c.agent))) }),
        query: None,
        headers: None,
        body: None,
        reply: Reply::Json(schema_of::<AppList>),
        errors: &[],
    },
    Route {
        method: Method::GET,
        path: "/substrate/v1/state/{pid}",
        summary: "A tab's state, flat; fresh=true asks the page for a new capture; prefix=, after= and limit= return a part of its objects (a large page read in pages); view=model returns the compact text written for a model instead of JSON",
        access: Access::Key(Bucket::StateReads),
        handler: |c| Box::pin(state_route(c)),
        query: Some(schema_of::<StateQuery>),
        headers: None,
        body: None,
        reply: Reply::JsonOrModelText(schema_of::<SubstrateState>),
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
            codes::VERIFY_EXPRESSION_VACUOUS,
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
        handler: |c| Box::pin(async move { crate::door::http::watch::upgrade(&c.state, c.agent, c.req, c.pid) }),
        query: Some(schema_of::<WatchQuery>),
        headers: None,
        body: None,
        reply: Reply::WebSocket(schema_of::<WatchEvent>),
        errors: &[codes::UPGRADE_REQUIRED, codes::TOO_MANY_WATCHERS],
    },
    Route {
        method: Method::POST,
        path: "/substrate/v1/tabs",
        summary: "Open a page in a new tab; an agent owns the tabs it opens (its tab group)",
        access: Access::Key(Bucket::Actions),
        handler: |c| Box::pin(open_tab_route(c)),
        query: None,
        headers: None,
        body: Some(schema_of::<OpenTabRequest>),
        reply: Reply::Json(schema_of::<OpenTabResponse>),
        errors: &[
            codes::SCOPE_DENIED,
            codes::ACTION_FAILED,
            codes::PROBE_DETACHED,
            codes::PROBE_NOT_READY,
            codes::PROBE_TIMEOUT,
        ],
    },
    Route {
        method: Method::POST,
        path: "/substrate/v1/lease",
        summary: "Hold a tab for a multi-step flow: other agents' writes on it are refused until it ends (send again to renew; ttl_ms 0 releases it)",
        access: Access::Key(Bucket::Actions),
        handler: |c| Box::pin(lease_route(c)),
        query: None,
        headers: None,
        body: Some(schema_of::<LeaseRequest>),
        reply: Reply::Json(schema_of::<LeaseResponse>),
        errors: &[codes::PID_NOT_FOUND, codes::TAB_LEASED],
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
                    &crate::door::http::openapi::document(ROUTES, &c.state.settings),
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
) -> Result<Response<Body>, CoreError> {
    crate::door::http::route::serve(ROUTES, state, req, request_id).await
}

async fn state_route(c: Call) -> Result<Response<Body>, CoreError> {
    let Call {
        state, req, pid, ..
    } = c;
    let fresh = query_flag(req.uri().query(), "fresh")?;
    // Checked before any capture is asked for: a bad query costs the page nothing.
    let window = parse_window(req.uri().query())?;
    let view = query_view(req.uri().query())?;
    if view == StateView::Model {
        let mut s = bounded(
            state.settings.request_timeout,
            pipeline::get_state(&state, pid, fresh),
        )
        .await?;
        window.apply(&mut s);
        return Ok(text_response(crate::core::model_view::render(&s)));
    }
    if !fresh && window == ObjectWindow::default() {
        // The whole current state: the bytes serialized once per capture.
        return Ok(json_bytes_response(
            StatusCode::OK,
            state.hub.state_json(pid)?,
        ));
    }
    let mut s = bounded(
        state.settings.request_timeout,
        pipeline::get_state(&state, pid, fresh),
    )
    .await?;
    window.apply(&mut s);
    Ok(ok_json(&s))
}

async fn action_route(c: Call) -> Result<Response<Body>, CoreError> {
    let Call {
        state,
        req,
        request_id,
        agent,
        ..
    } = c;
    let idem = idempotency_key(req.headers())?;
    let body = read_body(&state, req).await?;
    bounded(
        state.settings.action_route_timeout,
        action(&state, &agent, &body, idem, &request_id),
    )
    .await
}

async fn learn_route(c: Call) -> Result<Response<Body>, CoreError> {
    let body = read_body(&c.state, c.req).await?;
    let req: LearnRequest = parse_json(&body)?;
    let resp = crate::core::learn::learn(&c.state, &c.agent, req, &c.request_id).await?;
    Ok(ok_json(&resp))
}

async fn verify_route(c: Call) -> Result<Response<Body>, CoreError> {
    let body = read_body(&c.state, c.req).await?;
    bounded(
        c.state.settings.action_route_timeout,
        verify(&c.state, &c.agent, &body),
    )
    .await
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

fn apps(state: &AppState, agent: &Agent) -> AppList {
    let apps = access::tabs(state, agent);
    AppList {
        total: apps.len() as u64,
        apps,
    }
}

fn schema(state: &AppState, pid: u64) -> Result<Response<Body>, CoreError> {
    let s = state.hub.state(pid)?;
    Ok(ok_json(&SchemaResponse {
        pid: s.pid,
        app_id: s.app_id,
        app_name: s.app_name,
        schema_version: s.schema_version,
        actions: s.actions,
    }))
}

fn diff(state: &AppState, pid: u64) -> Result<Response<Body>, CoreError> {
    let current = state.hub.state(pid)?;
    let Some((prev, cur)) = state.hub.last_two(pid) else {
        return Err(CoreError::new(codes::NO_DIFF_YET,
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

/// How long `POST /substrate/v1/tabs` waits for the new page's first settled capture.
const OPEN_SETTLE: Duration = Duration::from_secs(20);

async fn open_tab_route(c: Call) -> Result<Response<Body>, CoreError> {
    let body = read_body(&c.state, c.req).await?;
    let req: OpenTabRequest = parse_json(&body)?;
    let (tab, s) =
        crate::core::tab_ops::open_for(&c.state, &c.agent, &req.url, OPEN_SETTLE).await?;
    Ok(ok_json(&OpenTabResponse {
        tab,
        capture_id: s.capture_id,
        settled: s.probe_metadata.settled,
    }))
}

async fn lease_route(c: Call) -> Result<Response<Body>, CoreError> {
    let body = read_body(&c.state, c.req).await?;
    let req: LeaseRequest = parse_json(&body)?;
    let pid = crate::core::access::tab(&c.state, &c.agent, req.pid)?;
    let leases = &c.state.leases;
    if req.ttl_ms == 0 {
        leases.release(&c.state.agents, &c.agent, pid);
        // Whoever holds it now (another agent's lease is not the caller's to end).
        return Ok(ok_json(&match leases.holder(&c.state.agents, pid) {
            Some(lease) => lease_view(&lease, true),
            None => LeaseResponse {
                pid,
                holder: c.agent.name.clone(),
                expires_at: crate::core::util::now_rfc3339(),
                held: false,
            },
        }));
    }
    let lease = leases.take(
        &c.state.agents,
        &c.agent,
        pid,
        Duration::from_millis(req.ttl_ms),
    )?;
    Ok(ok_json(&lease_view(&lease, true)))
}

fn lease_view(lease: &Lease, held: bool) -> LeaseResponse {
    LeaseResponse {
        pid: lease.pid,
        holder: lease.holder.name.clone(),
        expires_at: lease.expires_at.clone(),
        held,
    }
}

fn idempotency_key(headers: &HeaderMap) -> Result<Option<String>, CoreError> {
    match headers.get("idempotency-key") {
        None => Ok(None),
        Some(v) => {
            let key = v.to_str().unwrap_or("").trim();
            if key.is_empty() || key.len() > IDEMPOTENCY_KEY_MAX_BYTES {
                return Err(CoreError::invalid_request(format!(
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
pub fn parse_action_request(body: &[u8]) -> Result<ActionCall, CoreError> {
    ActionCall::new(parse_json::<ActionRequest>(body)?)
}

async fn action(
    state: &Arc<AppState>,
    agent: &Arc<Agent>,
    body: &Bytes,
    idem: Option<String>,
    request_id: &str,
) -> Result<Response<Body>, CoreError> {
    let call = parse_action_request(body)?;
    let req = call.request();
    let pid = access::resolve(state, agent, req.pid, req.app_id.as_deref())?;
    match pipeline::act(state, agent, &call, pid, idem, request_id).await? {
        Acted::Ran(response) => Ok(ok_json(&response)),
        Acted::Replayed(first) => {
            let mut resp = match &first.result {
                Ok(response) => ok_json(&**response),
                Err(err) => json_response(
                    crate::door::http::status::status(err),
                    &crate::door::http::status::body(err, &first.request_id),
                ),
            };
            resp.headers_mut().insert(
                "idempotent-replayed",
                hyper::header::HeaderValue::from_static("true"),
            );
            Ok(resp)
        }
    }
}

async fn verify(
    state: &Arc<AppState>,
    agent: &Agent,
    body: &Bytes,
) -> Result<Response<Body>, CoreError> {
    let req: VerifyRequest = parse_json(body)?;
    if req.pid == Some(0) {
        return Err(
            CoreError::invalid_request("\"pid\" must be a positive integer.").with("field", "pid"),
        );
    }
    let timeout = request::verify_timeout(req.timeout_ms)?;
    if req.pid.is_none() && req.app_id.is_none() {
        return Err(CoreError::invalid_request("Send \"pid\" or \"app_id\".").with("field", "pid"));
    }
    let pid = access::resolve(state, agent, req.pid, req.app_id.as_deref())?;
    let outcome = pipeline::verify(state, pid, &req.expression, timeout).await?;
    Ok(ok_json(&outcome))
}

pub(crate) async fn read_body(
    state: &AppState,
    req: Request<Incoming>,
) -> Result<Bytes, CoreError> {
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
        Err(_) => Err(CoreError::invalid_request(
            "The request body could not be read.",
        )),
    }
}

fn too_large(limit: usize) -> CoreError {
    CoreError::new(
        codes::PAYLOAD_TOO_LARGE,
        format!("The request body is over {limit} bytes."),
    )
}

/// Parses a JSON body, naming the offending field when a value has the wrong type.
pub(crate) fn parse_json<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, CoreError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(CoreError::invalid_request(
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
        let mut err = CoreError::invalid_request(message);
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

/// The object window of `GET /state`'s query: `prefix=` keeps the keys that start with
/// it, `after=` the keys after it (in key order, to read a large state in pages),
/// `limit=` at most that many, in key order. Without them, all objects.
pub fn parse_window(query: Option<&str>) -> Result<ObjectWindow, CoreError> {
    let mut w = ObjectWindow::default();
    let Some(query) = query else { return Ok(w) };
    for pair in query.split('&') {
        let (k, raw) = pair.split_once('=').unwrap_or((pair, ""));
        if !matches!(k, "prefix" | "after" | "limit") {
            continue;
        }
        let bad = |m: String| Err(CoreError::invalid_request(m).with("field", k));
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

/// `?view=` of `GET /state`: `json` (the default) or `model`.
fn query_view(query: Option<&str>) -> Result<StateView, CoreError> {
    let Some(query) = query else {
        return Ok(StateView::Json);
    };
    let mut view = None;
    for pair in query.split('&') {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        if k != "view" {
            continue;
        }
        let bad = |m: String| Err(CoreError::invalid_request(m).with("field", "view"));
        match (view, StateView::parse(v)) {
            (Some(_), _) => return bad("?view= is given twice; give it once.".into()),
            (None, Some(v)) => view = Some(v),
            (None, None) => {
                return bad(format!(
                    "?view= must be json (the state as JSON) or model (compact text for a model), not {v:?}."
                ))
            }
        }
    }
    Ok(view.unwrap_or(StateView::Json))
}

/// A `text/plain` 200 with the headers every response carries.
fn text_response(text: String) -> Response<Body> {
    let mut resp = json_bytes_response(StatusCode::OK, Bytes::from(text));
    resp.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    resp
}

fn query_flag(query: Option<&str>, name: &str) -> Result<bool, CoreError> {
    let Some(query) = query else { return Ok(false) };
    for pair in query.split('&') {
        let (k, v) = pair.split_once('=').unwrap_or((pair, "true"));
        if k == name {
            return match v {
                "true" | "1" | "" => Ok(true),
                "false" | "0" => Ok(false),
                _ => Err(CoreError::invalid_request(format!(
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
        let w = parse_window(Some("fresh=true&prefix=inbox.emails%5B1&limit=5&after=a+b"))
            .expect("parses");
        assert_eq!(w.prefix.as_deref(), Some("inbox.emails[1"));
        assert_eq!(w.after.as_deref(), Some("a b"));
        assert_eq!(w.limit, Some(5));
        assert_eq!(parse_window(None).expect("none"), ObjectWindow::default());
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
            let err = parse_window(Some(bad)).expect_err(bad);
            assert_eq!(
                crate::door::http::status::status(&err),
                StatusCode::BAD_REQUEST,
                "{bad}"
            );
        }
        let long = format!("prefix={}", "a".repeat(201));
        assert!(parse_window(Some(&long)).is_err());
    }
}

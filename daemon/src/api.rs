//! The agent API (NSP v1): routes and handlers. Each handler returns a response or an
//! [`ApiError`]; `http::handle` turns errors into bodies in one place.

use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use hyper::header::AUTHORIZATION;
use hyper::{Method, Request, Response, StatusCode};
use nsp_protocol::api::{ActionRequest, ActionResponse, AppList, Health};
use nsp_protocol::channel::{DispatchFailure, DispatchOutcome};
use serde_json::{json, Value};

use crate::error::ApiError;
use crate::http::{json_response, AppState, Body};
use crate::tabs::DispatchError;

const PREFIX: &str = "/substrate/v1";

pub async fn route(
    state: &Arc<AppState>,
    req: Request<Incoming>,
    request_id: &str,
) -> Result<Response<Body>, ApiError> {
    let path = req.uri().path().to_owned();
    let method = req.method().clone();
    if path == "/health" {
        return match method {
            Method::GET | Method::HEAD => Ok(health(state)),
            _ => Err(ApiError::method_not_allowed(method.as_str(), &path)),
        };
    }
    let Some(rest) = path.strip_prefix(PREFIX) else {
        return Err(ApiError::not_found(&path));
    };
    authenticate(state, &req)?;
    let segments: Vec<&str> = rest.trim_start_matches('/').split('/').collect();
    match (&method, segments.as_slice()) {
        (&Method::GET, ["apps"]) => Ok(apps(state)),
        (&Method::GET, ["state", pid]) => {
            let pid = parse_pid(pid)?;
            let fresh = query_flag(req.uri().query(), "fresh")?;
            get_state(state, pid, fresh).await
        }
        (&Method::POST, ["action"]) => {
            let body = read_body(state, req).await?;
            action(state, &body, request_id).await
        }
        (_, ["apps"] | ["state", _] | ["action"]) => {
            Err(ApiError::method_not_allowed(method.as_str(), &path))
        }
        _ => Err(ApiError::not_found(&path)),
    }
}

fn authenticate(state: &AppState, req: &Request<Incoming>) -> Result<(), ApiError> {
    if !state.settings.require_key {
        return Ok(());
    }
    let headers = req.headers();
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
        });
    match presented {
        None | Some("") => Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "missing_key",
            "This route needs the agent key in the X-Substrate-Key header (or Authorization: Bearer). `nspd token` prints it.",
        )),
        Some(key) if state.key.matches(key) => Ok(()),
        Some(_) => Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "invalid_key",
            "The agent key is wrong. `nspd token` prints the current one.",
        )),
    }
}

fn health(state: &AppState) -> Response<Body> {
    let health = Health {
        status: "ok".into(),
        version: crate::VERSION.into(),
        uptime_secs: state.hub.uptime().as_secs(),
        tracked_processes: state.hub.tab_count() as u64,
        auth_enabled: state.settings.require_key,
    };
    ok_json(&health)
}

fn apps(state: &AppState) -> Response<Body> {
    let apps = state.hub.list();
    ok_json(&AppList {
        total: apps.len() as u64,
        apps,
    })
}

async fn get_state(state: &AppState, pid: u64, fresh: bool) -> Result<Response<Body>, ApiError> {
    let snapshot = if fresh {
        state
            .hub
            .fresh_capture(pid, state.settings.capture_timeout)
            .await?
    } else {
        state.hub.state(pid)?
    };
    Ok(ok_json(&snapshot))
}

async fn action(
    state: &AppState,
    body: &Bytes,
    _request_id: &str,
) -> Result<Response<Body>, ApiError> {
    let started = Instant::now();
    let request: ActionRequest = parse_json(body)?;
    if request.pid == Some(0) {
        return Err(ApiError::invalid_request(
            "\"pid\" must be a positive integer (see GET /substrate/v1/apps).",
        )
        .with("field", "pid"));
    }
    if request.action.trim().is_empty() {
        return Err(ApiError::invalid_request(
            "\"action\" is empty. Name one of the actions in the tab's state.",
        )
        .with("field", "action"));
    }
    let pid = state.hub.resolve(request.pid, request.app_id.as_deref())?;
    // The gate of safety.md arrives with the API issue; until then only the read
    // builtin exists, and nothing that writes can be reached.
    if request.action != "read_text" {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "action_not_available",
            format!(
                "Action {:?} is not available on tab {pid}. Available now: read_text(selector).",
                request.action
            ),
        ));
    }
    match request.parameters.get("selector") {
        Some(Value::String(s)) if !s.trim().is_empty() => {}
        _ => return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "invalid_parameters",
            "read_text needs \"selector\": a non-empty CSS selector string, e.g. \"#inbox h2\".",
        )
        .with("field", "parameters.selector")),
    }
    if let Some(unknown) = request.parameters.keys().find(|k| *k != "selector") {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "invalid_parameters",
            format!("read_text takes only \"selector\"; remove {unknown:?}."),
        )
        .with("field", format!("parameters.{unknown}")));
    }
    let action_id = uuid::Uuid::now_v7().to_string();
    let outcome = state
        .hub
        .dispatch(
            pid,
            action_id.clone(),
            request.action.clone(),
            request.parameters.clone(),
            None,
            state.settings.action_timeout,
        )
        .await
        .map_err(|e| dispatch_error(e, pid))?;
    match outcome {
        DispatchOutcome::Done { value } => {
            let response = ActionResponse {
                success: true,
                action_id,
                action: request.action.clone(),
                executed: true,
                runtime: "v8".into(),
                total_latency_ms: started.elapsed().as_secs_f64() * 1000.0,
                message: format!("{} ran on tab {pid}.", request.action),
                verification: None,
                updated_state: None,
                state_delta: None,
                raw_return: value,
            };
            Ok(ok_json(&response))
        }
        DispatchOutcome::Failed { code, message } => Err(action_failed(code, &message)),
    }
}

fn action_failed(code: DispatchFailure, message: &str) -> ApiError {
    let code_str = serde_json::to_value(code)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    let advice = match code {
        DispatchFailure::TargetNotFound => "Nothing on the page matches. Read the current state and use a selector or value from it.",
        DispatchFailure::TargetChanged => "The page changed under the action. Read the state again before retrying.",
        DispatchFailure::Threw => "The page threw while running the action. Read the state to see what happened.",
        DispatchFailure::Duplicate => "This action id already ran once and was not run again.",
        DispatchFailure::NoProbe => "The tab's probe is not running. Reload the page or wait for it to load.",
        DispatchFailure::BadParameters => "Fix the parameters as the message says.",
        DispatchFailure::Unsupported => "This extension version does not support the action.",
    };
    ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        "action_failed",
        format!("The action did not complete: {message} {advice}"),
    )
    .with("failure", code_str)
}

fn dispatch_error(err: DispatchError, pid: u64) -> ApiError {
    match err {
        DispatchError::Detached => ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "probe_detached",
            format!("The probe of tab {pid} is not connected. List tabs again with GET /substrate/v1/apps."),
        ),
        DispatchError::Timeout(t) => ApiError::new(
            StatusCode::GATEWAY_TIMEOUT,
            "probe_timeout",
            format!("The page did not answer within {} ms. Read the state before deciding to retry.", t.as_millis()),
        ),
        DispatchError::OutcomeUnknown => ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "outcome_unknown",
            "The connection to the page dropped after the action was sent and before it answered: it may or may not have happened. nspd did not retry. Read the state to find out.",
        ),
    }
}

async fn read_body(state: &AppState, req: Request<Incoming>) -> Result<Bytes, ApiError> {
    let limit = state.settings.max_body_bytes;
    match Limited::new(req.into_body(), limit).collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e)
            if e.downcast_ref::<http_body_util::LengthLimitError>()
                .is_some() =>
        {
            Err(ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "payload_too_large",
                format!("The request body is over {limit} bytes."),
            ))
        }
        Err(_) => Err(ApiError::invalid_request(
            "The request body could not be read.",
        )),
    }
}

fn parse_json<T: serde::de::DeserializeOwned>(body: &Bytes) -> Result<T, ApiError> {
    serde_json::from_slice(body).map_err(|e| {
        let mut err = ApiError::invalid_request(format!("The body is not a valid request: {e}."));
        if let Some(field) = field_from_serde_error(&e.to_string()) {
            err = err.with("field", field);
        }
        err
    })
}

/// serde names the offending field in backticks ("missing field `action`", "unknown
/// field `x`") or not at all (type errors name the expected type only).
fn field_from_serde_error(message: &str) -> Option<String> {
    let start = message.find('`')? + 1;
    let len = message[start..].find('`')?;
    Some(message[start..start + len].to_owned())
}

fn parse_pid(raw: &str) -> Result<u64, ApiError> {
    match raw.parse::<u64>() {
        Ok(pid) if pid > 0 => Ok(pid),
        _ => Err(ApiError::invalid_request(format!(
            "{raw:?} is not a pid: use a positive integer from GET /substrate/v1/apps."
        ))
        .with("field", "pid")),
    }
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

fn ok_json<T: serde::Serialize>(value: &T) -> Response<Body> {
    let value = serde_json::to_value(value).unwrap_or_else(|_| json!({}));
    json_response(StatusCode::OK, &value)
}

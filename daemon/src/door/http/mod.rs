//! The front door: every request passes the Host allow-list and the Origin rules here,
//! before any handler runs. Then it is routed to the extension channel or the agent API.

pub mod api;
pub mod openapi;
pub mod route;
pub mod status;
pub mod watch;

use std::convert::Infallible;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{HeaderValue, CONNECTION, CONTENT_TYPE, HOST, ORIGIN, UPGRADE};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use nsp_protocol::EXTENSION_CHANNEL_PATH;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::Role;
use tokio_tungstenite::WebSocketStream;

use crate::core::config::Settings;
use crate::core::error::CoreError;

pub type Body = Full<Bytes>;

use crate::core::app::AppState;
pub use crate::core::util::json_bytes;

/// The one service function: never fails, every failure becomes a response here.
pub async fn handle(
    state: Arc<AppState>,
    req: Request<Incoming>,
) -> Result<Response<Body>, Infallible> {
    let request_id = uuid::Uuid::now_v7().to_string();
    let method = req.method().clone();
    let path = req.uri().path().to_owned();
    let result = route(&state, req, &request_id).await;
    let mut response = match result {
        Ok(resp) => resp,
        Err(err) => {
            if status::status(&err).is_server_error() {
                tracing::warn!(%request_id, %method, %path, code = err.code, "{}", err.message);
            } else {
                tracing::debug!(%request_id, %method, %path, code = err.code, "{}", err.message);
            }
            error_response(&err, &request_id)
        }
    };
    if let Ok(v) = HeaderValue::from_str(&request_id) {
        response.headers_mut().insert("x-request-id", v);
    }
    Ok(response)
}

/// Builds the JSON response of an error.
pub fn error_response(err: &CoreError, request_id: &str) -> Response<Body> {
    let mut resp = json_response(status::status(err), &status::body(err, request_id));
    if let Some(secs) = err.retry_after_secs {
        resp.headers_mut()
            .insert(hyper::header::RETRY_AFTER, HeaderValue::from(secs));
    }
    resp
}

/// A JSON response with the headers every response carries.
pub fn json_response(status: StatusCode, value: &serde_json::Value) -> Response<Body> {
    let body = serde_json::to_vec(value).unwrap_or_else(|_| b"{}".to_vec());
    json_bytes_response(status, Bytes::from(body))
}

/// [`json_response`] for a body already serialized.
pub fn json_bytes_response(status: StatusCode, body: Bytes) -> Response<Body> {
    let mut resp = Response::new(Full::new(body));
    *resp.status_mut() = status;
    let headers = resp.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert("cache-control", HeaderValue::from_static("no-store"));
    headers.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    resp
}

async fn route(
    state: &Arc<AppState>,
    req: Request<Incoming>,
    request_id: &str,
) -> Result<Response<Body>, CoreError> {
    check_host(&req, state.local_addr.port())?;
    if req.uri().path() == EXTENSION_CHANNEL_PATH {
        return upgrade_extension(state, req);
    }
    check_agent_origin(&req, &state.settings)?;
    api::route(state, req, request_id).await
}

fn forbidden(message: impl Into<String>) -> CoreError {
    CoreError::new(crate::core::codes::FORBIDDEN, message)
}

/// DNS-rebinding defence: only loopback names with our port.
pub(crate) fn check_host<B>(req: &Request<B>, port: u16) -> Result<(), CoreError> {
    let host = req
        .headers()
        .get(HOST)
        .and_then(|h| h.to_str().ok())
        .ok_or_else(|| {
            forbidden(
                "A Host header naming 127.0.0.1, localhost or [::1] with nspd's port is required.",
            )
        })?;
    if !host_allowed(host, port) {
        return Err(forbidden(format!(
            "Host {host:?} is not allowed. nspd answers only to 127.0.0.1:{port}, localhost:{port} and [::1]:{port}."
        )));
    }
    // An absolute-form request line carries its own authority; it must agree.
    if let Some(authority) = req.uri().authority() {
        if !host_allowed(authority.as_str(), port) {
            return Err(forbidden(format!(
                "Request target authority {:?} is not allowed.",
                authority.as_str()
            )));
        }
    }
    Ok(())
}

/// Whether a Host value names this daemon on loopback.
pub fn host_allowed(host: &str, port: u16) -> bool {
    let host = host.to_ascii_lowercase();
    let with_port = [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
    ];
    if with_port.contains(&host) {
        return true;
    }
    port == 80 && matches!(host.as_str(), "127.0.0.1" | "localhost" | "[::1]")
}

fn extension_origin_allowed(origin: &str, settings: &Settings) -> bool {
    origin
        .strip_prefix("chrome-extension://")
        .is_some_and(|id| settings.allowed_extension_ids.iter().any(|a| a == id))
}

/// A web page may send requests to loopback, but browsers always attach its Origin:
/// any Origin other than our own extension is refused, and no CORS header is ever sent.
pub(crate) fn check_agent_origin<B>(
    req: &Request<B>,
    settings: &Settings,
) -> Result<(), CoreError> {
    match req.headers().get(ORIGIN) {
        None => Ok(()),
        Some(origin) => {
            let origin = origin.to_str().unwrap_or("");
            if extension_origin_allowed(origin, settings) {
                Ok(())
            } else {
                Err(forbidden(format!(
                    "Requests from web origins ({origin:?}) are refused: the agent API is for local programs, not web pages."
                )))
            }
        }
    }
}

fn upgrade_extension(
    state: &Arc<AppState>,
    req: Request<Incoming>,
) -> Result<Response<Body>, CoreError> {
    let origin = req
        .headers()
        .get(ORIGIN)
        .and_then(|o| o.to_str().ok())
        .unwrap_or("");
    if !extension_origin_allowed(origin, &state.settings) {
        return Err(forbidden(format!(
            "The extension channel accepts only the NSP extension (Origin chrome-extension://{}), not {origin:?}.",
            state.settings.allowed_extension_ids.join(" or chrome-extension://")
        )));
    }
    let key = websocket_key(&req, "This endpoint is a WebSocket for the NSP extension.")?;
    let accept = derive_accept_key(key.as_bytes());
    let config = crate::door::channel::ws_config(state.settings.max_ws_message_bytes);
    let state = state.clone();
    tokio::spawn(async move {
        match hyper::upgrade::on(req).await {
            Ok(upgraded) => {
                let ws = WebSocketStream::from_raw_socket(
                    TokioIo::new(upgraded),
                    Role::Server,
                    Some(config),
                )
                .await;
                crate::door::channel::serve(ws, state).await;
            }
            Err(e) => tracing::warn!(error = %e, "extension upgrade failed"),
        }
    });
    Ok(switching_protocols(&accept))
}

/// The `Sec-WebSocket-Key` of a WebSocket upgrade request, or 426 with `hint`.
pub fn websocket_key<B>(req: &Request<B>, hint: &str) -> Result<HeaderValue, CoreError> {
    let is_upgrade = req
        .headers()
        .get(UPGRADE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("websocket"));
    match (is_upgrade, req.headers().get("sec-websocket-key")) {
        (true, Some(key)) => Ok(key.clone()),
        _ => Err(CoreError::new(crate::core::codes::UPGRADE_REQUIRED, hint)),
    }
}

/// The 101 answer that completes a WebSocket handshake.
pub fn switching_protocols(accept: &str) -> Response<Body> {
    let mut resp = Response::new(Full::new(Bytes::new()));
    *resp.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
    let headers = resp.headers_mut();
    headers.insert(UPGRADE, HeaderValue::from_static("websocket"));
    headers.insert(CONNECTION, HeaderValue::from_static("Upgrade"));
    if let Ok(v) = HeaderValue::from_str(accept) {
        headers.insert("sec-websocket-accept", v);
    }
    resp
}

/// The agent key a request presents: `X-Substrate-Key`, `Authorization: Bearer`, or
/// `?key=` in `query` (only `/watch` passes it: browsers cannot set headers on a
/// WebSocket).
pub fn presented_key<'a>(headers: &'a hyper::HeaderMap, query: Option<&'a str>) -> Option<&'a str> {
    let from_query = query.and_then(|q| {
        q.split('&')
            .filter_map(|pair| pair.split_once('='))
            .find(|(k, _)| *k == "key")
            .map(|(_, v)| v)
    });
    headers
        .get("x-substrate-key")
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .or_else(|| {
            headers
                .get(hyper::header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.strip_prefix("Bearer "))
                .map(str::trim)
        })
        .or(from_query)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::access::guard;
    use crate::core::codes;
    use crate::core::pipeline::tests::state;
    use crate::core::ratelimit::Bucket;
    use hyper::HeaderMap;

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
            guard(&s, presented_key(h, q), Bucket::StateReads)
                .err()
                .map(|e| e.code)
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
        let err =
            guard(&s, presented_key(&headers(&[]), None), Bucket::StateReads).expect_err("no key");
        assert_eq!(err.code, codes::MISSING_KEY);
    }

    #[test]
    fn only_loopback_hosts_with_our_port() {
        for ok in [
            "127.0.0.1:7842",
            "localhost:7842",
            "LOCALHOST:7842",
            "[::1]:7842",
        ] {
            assert!(host_allowed(ok, 7842), "{ok}");
        }
        for bad in [
            "evil.example",
            "",
            ":7842",
            "localhost.evil.example:7842",
            "127.0.0.1.nip.io:7842",
            "127.0.0.1:7843",
            "127.0.0.1",
            "0.0.0.0:7842",
        ] {
            assert!(!host_allowed(bad, 7842), "{bad}");
        }
    }
}

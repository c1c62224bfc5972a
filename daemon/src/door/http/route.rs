//! What one route of the agent API is (method, path, handler, the types it reads and
//! answers, the error codes it can give), and the router that serves a table of them.
//! The table is `api::ROUTES`; the router here and the OpenAPI document
//! (`openapi.rs`) both read it, so a route exists in both or in neither.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use hyper::body::Incoming;
use hyper::{Method, Request, Response};
use schemars::{JsonSchema, Schema, SchemaGenerator};

use crate::core::agents::Agent;
use crate::core::app::AppState;
use crate::core::codes;
use crate::core::error::CoreError;
use crate::core::ratelimit::Bucket;
use crate::door::http::Body;

/// What a handler returns: boxed, so handlers of every route fit one table.
/// Where the agent API lives: every route's path starts with it.
pub const PREFIX: &str = "/substrate/v1";

pub type Answer = Pin<Box<dyn Future<Output = Result<Response<Body>, CoreError>> + Send>>;

/// A route's handler.
pub type Handler = fn(Call) -> Answer;

/// Makes the JSON Schema of one `protocol` type (a `$ref` into the document's
/// components); `schema_of::<T>` is one.
pub type SchemaFn = fn(&mut SchemaGenerator) -> Schema;

/// The [`SchemaFn`] of `T`.
pub fn schema_of<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    generator.subschema_for::<T>()
}

/// Everything a handler gets: the request, and what the router already checked.
#[derive(Debug)]
pub struct Call {
    pub state: Arc<AppState>,
    pub req: Request<Incoming>,
    /// The `{pid}` of the path, parsed (a positive integer); 0 on a route without one.
    pub pid: u64,
    pub request_id: String,
    /// The agent the key named (the default agent on an open route), whose scope the
    /// router applied to `pid`.
    pub agent: Arc<Agent>,
}

/// Who may call a route, and which rate-limit bucket it draws from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// No key and no rate limit (`/health`, outside the API prefix).
    Open,
    /// The agent key in a header.
    Key(Bucket),
    /// The agent key in a header or in `?key=` (a browser's WebSocket client cannot set
    /// headers).
    KeyOrQuery(Bucket),
}

/// What a route answers when it succeeds.
#[derive(Debug, Clone, Copy)]
pub enum Reply {
    /// 200 with a JSON body of this type.
    Json(SchemaFn),
    /// 200 with a JSON body of this type, or with `view=model` the compact text for a
    /// model (`core::model_view`).
    JsonOrModelText(SchemaFn),
    /// 101, then a WebSocket whose text messages are this type.
    WebSocket(SchemaFn),
    /// 200 with the OpenAPI document itself.
    Document,
}

/// One route of the agent API. Adding a route is adding one of these to
/// `api::ROUTES`.
#[derive(Debug, Clone)]
pub struct Route {
    pub method: Method,
    /// The path template: literal segments and `{pid}`.
    pub path: &'static str,
    /// One line for the OpenAPI document.
    pub summary: &'static str,
    pub access: Access,
    pub handler: Handler,
    /// The query parameters, as a type whose fields are the parameters.
    pub query: Option<SchemaFn>,
    /// Request headers beyond the key, as a type whose fields are the headers.
    pub headers: Option<SchemaFn>,
    /// The JSON body.
    pub body: Option<SchemaFn>,
    pub reply: Reply,
    /// The codes this route's handler can answer besides those every route of its
    /// kind can (see [`Route::codes`]).
    pub errors: &'static [&'static str],
}

impl Route {
    /// Every code the route can answer: its own, and those that come with its access,
    /// its `{pid}` and its body.
    pub fn codes(&self) -> Vec<&'static str> {
        // Host and Origin are checked on every request, before any route.
        let mut out = vec![codes::FORBIDDEN];
        if self.access != Access::Open {
            out.extend([codes::MISSING_KEY, codes::INVALID_KEY, codes::RATE_LIMITED]);
        }
        if self.has_pid() {
            out.extend([codes::INVALID_REQUEST, codes::PID_NOT_FOUND]);
        }
        if self.body.is_some() {
            out.extend([codes::INVALID_REQUEST, codes::PAYLOAD_TOO_LARGE]);
        }
        out.extend(self.errors);
        out.sort_unstable();
        out.dedup();
        out
    }

    pub fn has_pid(&self) -> bool {
        self.path.contains("{pid}")
    }

    /// Whether this route's template matches `path`; `Some(pid segment)` for a
    /// template with `{pid}` (unparsed), `Some("")` for one without.
    fn matches<'p>(&self, path: &'p str) -> Option<&'p str> {
        let Some(template) = self.path.strip_prefix(PREFIX) else {
            // Outside the API prefix only exact paths exist.
            return (self.path == path).then_some("");
        };
        let rest = path.strip_prefix(PREFIX)?;
        // Leading slashes after the prefix are one separator, as they always were.
        let mut got = rest.trim_start_matches('/').split('/');
        let mut pid = "";
        for want in template.trim_start_matches('/').split('/') {
            let seg = got.next()?;
            if want == "{pid}" {
                pid = seg;
            } else if want != seg {
                return None;
            }
        }
        got.next().is_none().then_some(pid)
    }
}

/// Serves one request of the agent API from `routes`: a path outside the prefix that
/// no route has is 404 before anything else; under the prefix the key and the rate
/// limit come before the path is looked up (so an unknown path without a key is 401);
/// then a path with no route for the method is 405, a path with none at all 404.
pub async fn serve(
    routes: &'static [Route],
    state: &Arc<AppState>,
    req: Request<Incoming>,
    request_id: &str,
) -> Result<Response<Body>, CoreError> {
    let path = req.uri().path().to_owned();
    let method = req.method().clone();
    let matched: Vec<(&'static Route, &str)> = routes
        .iter()
        .filter_map(|r| r.matches(&path).map(|pid| (r, pid)))
        .collect();
    if matched.is_empty() && !path.starts_with(PREFIX) {
        return Err(crate::door::http::status::not_found(&path));
    }
    let access = matched.first().map(|(r, _)| r.access);
    let agent = if access != Some(Access::Open) {
        let query_key = matched
            .iter()
            .any(|(r, _)| matches!(r.access, Access::KeyOrQuery(_)));
        let agent = crate::core::access::authenticate(
            state,
            crate::door::http::presented_key(
                req.headers(),
                if query_key { req.uri().query() } else { None },
            ),
        )?;
        let bucket = match access {
            Some(Access::Key(b) | Access::KeyOrQuery(b)) => b,
            _ => Bucket::StateReads,
        };
        crate::core::access::limit(state, &agent, bucket)?;
        agent
    } else {
        state.agents.default_agent()
    };
    let Some((route, pid)) = matched.iter().find(|(r, _)| r.method == method) else {
        return Err(if matched.is_empty() {
            crate::door::http::status::not_found(&path)
        } else {
            crate::door::http::status::method_not_allowed(method.as_str(), &path)
        });
    };
    // A tab outside the agent's scope does not exist for it.
    let pid = if route.has_pid() {
        crate::core::access::tab(state, &agent, parse_pid(pid)?)?
    } else {
        0
    };
    (route.handler)(Call {
        state: state.clone(),
        req,
        pid,
        request_id: request_id.to_owned(),
        agent,
    })
    .await
}

fn parse_pid(raw: &str) -> Result<u64, CoreError> {
    match raw.parse::<u64>() {
        Ok(pid) if pid > 0 => Ok(pid),
        _ => Err(CoreError::invalid_request(format!(
            "{raw:?} is not a pid: use a positive integer from GET /substrate/v1/apps."
        ))
        .with("field", "pid")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(_: Call) -> Answer {
        Box::pin(async { Err(crate::door::http::status::not_found("")) })
    }

    fn route(path: &'static str) -> Route {
        Route {
            method: Method::GET,
            path,
            summary: "",
            access: Access::Key(Bucket::StateReads),
            handler: answer,
            query: None,
            headers: None,
            body: None,
            reply: Reply::Document,
            errors: &[],
        }
    }

    #[test]
    fn templates_match_whole_paths_only() {
        let state = route("/substrate/v1/state/{pid}");
        assert_eq!(state.matches("/substrate/v1/state/3"), Some("3"));
        assert_eq!(state.matches("/substrate/v1//state/x"), Some("x"));
        assert_eq!(state.matches("/substrate/v1/state/"), Some(""));
        assert_eq!(state.matches("/substrate/v1/state"), None);
        assert_eq!(state.matches("/substrate/v1/state/3/4"), None);
        assert_eq!(state.matches("/substrate/v2/state/3"), None);
        let health = route("/health");
        assert_eq!(health.matches("/health"), Some(""));
        assert_eq!(health.matches("/health/"), None);
        assert_eq!(
            route("/substrate/v1/apps").matches("/substrate/v1/apps"),
            Some("")
        );
    }
}

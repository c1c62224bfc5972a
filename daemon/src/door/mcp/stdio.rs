//! `nspd mcp --stdio`: a bridge for MCP clients that only launch commands. It reads
//! JSON-RPC messages from stdin, one per line, posts each to a running nspd's MCP
//! endpoint (Streamable HTTP) with the agent key, and writes every message that comes
//! back (JSON answers, SSE events, and the session's server-to-client stream) to stdout,
//! one per line. It understands no tool: it only moves messages and the session header.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

type HttpClient = Client<HttpConnector, Full<Bytes>>;

/// What the bridge needs: where MCP is and the key.
#[derive(Clone)]
pub struct Target {
    pub url: String,
    pub key: String,
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key.
        f.debug_struct("Target")
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

/// The session as the server set it up: its id, and the protocol version to name in
/// each request's header.
#[derive(Debug, Default)]
struct Session {
    id: Option<String>,
    protocol_version: Option<String>,
    listening: bool,
}

/// Runs until `input` ends; then ends the session (DELETE) and returns.
pub async fn run<R, W>(target: Target, input: R, output: W) -> anyhow::Result<()>
where
    R: tokio::io::AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let client: HttpClient = Client::builder(TokioExecutor::new()).build_http();
    let session = Arc::new(Mutex::new(Session::default()));
    // One writer, so messages from concurrent streams never interleave on stdout.
    let (out_tx, mut out_rx) = mpsc::channel::<String>(256);
    let writer = tokio::spawn(async move {
        let mut output = output;
        while let Some(line) = out_rx.recv().await {
            if output.write_all(line.as_bytes()).await.is_err()
                || output.write_all(b"\n").await.is_err()
                || output.flush().await.is_err()
            {
                break;
            }
        }
    });
    let mut lines = tokio::io::BufReader::new(input).lines();
    let mut posts = tokio::task::JoinSet::new();
    while let Some(line) = lines.next_line().await? {
        if line.trim().is_empty() {
            continue;
        }
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            let _ = out_tx
                .send(json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "nspd mcp --stdio: a line on stdin is not JSON"}}).to_string())
                .await;
            continue;
        };
        // Requests run concurrently (a long `execute` must not hold up a `ping`).
        posts.spawn(post(
            client.clone(),
            target.clone(),
            session.clone(),
            message,
            out_tx.clone(),
        ));
        while posts.try_join_next().is_some() {}
    }
    // stdin closed: let answers in flight arrive, then end the session.
    let _ = tokio::time::timeout(Duration::from_secs(5), async {
        while posts.join_next().await.is_some() {}
    })
    .await;
    posts.abort_all();
    let id = session.lock().unwrap_or_else(|e| e.into_inner()).id.clone();
    if let Some(id) = id {
        let req = request(&target, Method::DELETE, Some(&id), None, Bytes::new());
        let _ = tokio::time::timeout(Duration::from_secs(2), client.request(req)).await;
    }
    drop(out_tx);
    let _ = writer.await;
    Ok(())
}

/// The routing headers Streamable HTTP asks of a request (SEP-2243, required by the
/// 2026-07-28 protocol): `Mcp-Method`, and `Mcp-Name` (the tool, resource or task it
/// names), Base64-wrapped when it is not plain visible ASCII.
pub fn routing_headers(message: &Value) -> Vec<(&'static str, String)> {
    let Some(method) = message.get("method").and_then(Value::as_str) else {
        return Vec::new();
    };
    let mut out = vec![("mcp-method", method.to_owned())];
    let key = match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => Some("uri"),
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    };
    if let Some(name) = key
        .and_then(|k| message.pointer(&format!("/params/{k}")))
        .and_then(Value::as_str)
    {
        let plain = !name.starts_with([' ', '\t'])
            && !name.ends_with([' ', '\t'])
            && name.chars().all(|c| (' '..='~').contains(&c));
        let value = if plain {
            name.to_owned()
        } else {
            use base64::Engine as _;
            format!(
                "=?base64?{}?=",
                base64::engine::general_purpose::STANDARD.encode(name)
            )
        };
        out.push(("mcp-name", value));
    }
    out
}

fn request(
    target: &Target,
    method: Method,
    session: Option<&str>,
    version: Option<&str>,
    body: Bytes,
) -> Request<Full<Bytes>> {
    let mut builder = Request::builder()
        .method(method)
        .uri(&target.url)
        .header("authorization", format!("Bearer {}", target.key))
        .header("accept", "application/json, text/event-stream");
    if !body.is_empty() {
        builder = builder.header("content-type", "application/json");
    }
    if let Some(id) = session {
        builder = builder.header("mcp-session-id", id);
    }
    if let Some(v) = version {
        builder = builder.header("mcp-protocol-version", v);
    }
    builder
        .body(Full::new(body))
        .unwrap_or_else(|_| Request::new(Full::new(Bytes::new())))
}

async fn post(
    client: HttpClient,
    target: Target,
    session: Arc<Mutex<Session>>,
    message: Value,
    out: mpsc::Sender<String>,
) {
    let id = message.get("id").cloned();
    let is_request = id.is_some() && message.get("method").is_some();
    // A request of the per-request protocol (2026-07-28) names its version itself.
    let own_version = message
        .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let (sid, version) = {
        let s = session.lock().unwrap_or_else(|e| e.into_inner());
        (
            s.id.clone(),
            own_version.or_else(|| s.protocol_version.clone()),
        )
    };
    let body = Bytes::from(message.to_string());
    let mut req = request(
        &target,
        Method::POST,
        sid.as_deref(),
        version.as_deref(),
        body,
    );
    for (name, value) in routing_headers(&message) {
        if let Ok(v) = hyper::header::HeaderValue::from_str(&value) {
            req.headers_mut().insert(name, v);
        }
    }
    let fail = |text: String| {
        let out = out.clone();
        let id = id.clone();
        async move {
            tracing::warn!("{text}");
            if is_request {
                let _ = out
                    .send(json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32000, "message": text}}).to_string())
                    .await;
            }
        }
    };
    let resp = match client.request(req).await {
        Ok(resp) => resp,
        Err(e) => {
            fail(format!(
                "nspd mcp --stdio: cannot reach nspd at {} ({e}); is `nspd run` running?",
                target.url
            ))
            .await;
            return;
        }
    };
    if let Some(new_id) = resp
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
    {
        let start_listening = {
            let mut s = session.lock().unwrap_or_else(|e| e.into_inner());
            s.id = Some(new_id.clone());
            !std::mem::replace(&mut s.listening, true)
        };
        if start_listening {
            tokio::spawn(listen(
                client.clone(),
                target.clone(),
                session.clone(),
                out.clone(),
            ));
        }
    }
    let status = resp.status();
    if status == StatusCode::ACCEPTED {
        return;
    }
    if !status.is_success() {
        let body = resp
            .into_body()
            .collect()
            .await
            .map(|b| b.to_bytes())
            .unwrap_or_default();
        let detail = serde_json::from_slice::<Value>(&body)
            .ok()
            .and_then(|v| {
                v.pointer("/error/message")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .unwrap_or_else(|| String::from_utf8_lossy(&body).into_owned());
        fail(format!("nspd refused the MCP request ({status}): {detail}")).await;
        return;
    }
    forward(resp, &session, &out).await;
}

/// Writes every message of a response (one JSON body, or an SSE stream) to `out`.
async fn forward(resp: Response<Incoming>, session: &Mutex<Session>, out: &mpsc::Sender<String>) {
    let is_sse = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    let mut body = resp.into_body();
    if !is_sse {
        let bytes = body
            .collect()
            .await
            .map(|b| b.to_bytes())
            .unwrap_or_default();
        if let Ok(value) = serde_json::from_slice::<Value>(&bytes) {
            emit(value, session, out).await;
        }
        return;
    }
    let mut buffer = String::new();
    while let Some(frame) = body.frame().await {
        let Ok(frame) = frame else { break };
        let Ok(data) = frame.into_data() else {
            continue;
        };
        buffer.push_str(&String::from_utf8_lossy(&data).replace("\r\n", "\n"));
        while let Some(end) = buffer.find("\n\n") {
            let event: String = buffer.drain(..end + 2).collect();
            let data: Vec<&str> = event
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(|d| d.strip_prefix(' ').unwrap_or(d))
                .collect();
            if data.is_empty() {
                continue;
            }
            if let Ok(value) = serde_json::from_str::<Value>(&data.join("\n")) {
                emit(value, session, out).await;
            }
        }
    }
}

/// One message (or a batch) to stdout; an initialize answer sets the protocol version.
async fn emit(value: Value, session: &Mutex<Session>, out: &mpsc::Sender<String>) {
    let messages = match value {
        Value::Array(items) => items,
        one => vec![one],
    };
    for message in messages {
        if let Some(v) = message
            .pointer("/result/protocolVersion")
            .and_then(Value::as_str)
        {
            if message.pointer("/result/serverInfo").is_some() {
                session
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .protocol_version = Some(v.to_owned());
            }
        }
        let _ = out.send(message.to_string()).await;
    }
}

/// The session's server-to-client stream (resource updates): a GET kept open, opened
/// again if it drops, until the server says there is none.
async fn listen(
    client: HttpClient,
    target: Target,
    session: Arc<Mutex<Session>>,
    out: mpsc::Sender<String>,
) {
    loop {
        let (sid, version) = {
            let s = session.lock().unwrap_or_else(|e| e.into_inner());
            (s.id.clone(), s.protocol_version.clone())
        };
        let Some(sid) = sid else { return };
        // The first GET waits for initialize's answer, which names the version.
        if version.is_none() {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        }
        let req = request(
            &target,
            Method::GET,
            Some(&sid),
            version.as_deref(),
            Bytes::new(),
        );
        match client.request(req).await {
            Ok(resp) if resp.status().is_success() => forward(resp, &session, &out).await,
            // No such stream (stateless server, or the session ended): nothing to hear.
            Ok(resp) if resp.status().is_client_error() => return,
            _ => {}
        }
        if out.is_closed() {
            return;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_carry_their_routing_headers() {
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "get_state", "arguments": {}}});
        assert_eq!(
            routing_headers(&call),
            [
                ("mcp-method", "tools/call".to_owned()),
                ("mcp-name", "get_state".to_owned())
            ]
        );
        let read = json!({"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": {"uri": "nsp://tab/1/state"}});
        assert_eq!(routing_headers(&read)[1].1, "nsp://tab/1/state");
        let odd = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "naïve "}});
        assert_eq!(routing_headers(&odd)[1].1, "=?base64?bmHDr3ZlIA==?=");
        let list = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list"});
        assert_eq!(
            routing_headers(&list),
            [("mcp-method", "tools/list".to_owned())]
        );
        // Answers and notifications without a method carry none.
        assert!(routing_headers(&json!({"jsonrpc": "2.0", "id": 5, "result": {}})).is_empty());
    }
}

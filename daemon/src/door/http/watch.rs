//! `GET /substrate/v1/watch/{pid}`: a WebSocket that pushes
//! `{pid, app_id, sequence, changed_keys, captured_at}` on every state change of the
//! tab, pings every 15 s, and closes with code 1000 when the tab goes away.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures_util::{SinkExt, StreamExt};
use hyper::body::Incoming;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use nsp_protocol::api::WatchEvent;
use tokio::sync::broadcast::error::RecvError;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, Role, WebSocketConfig};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

use crate::core::app::AppState;
use crate::core::codes;
use crate::core::error::CoreError;
use crate::core::hub::TabEventKind;
use crate::door::http::Body;

const PING_EVERY: Duration = Duration::from_secs(15);

/// Decrements the watcher count when a stream ends, however it ends.
struct WatcherSlot(Arc<AppState>);

impl Drop for WatcherSlot {
    fn drop(&mut self) {
        self.0.watchers.fetch_sub(1, Ordering::SeqCst);
    }
}

pub fn upgrade(
    state: &Arc<AppState>,
    agent: Arc<crate::core::agents::Agent>,
    req: Request<Incoming>,
    pid: u64,
) -> Result<Response<Body>, CoreError> {
    let app_id = state
        .hub
        .app_id(pid)
        .ok_or_else(|| CoreError::pid_not_found(&format!("pid {pid}")))?;
    let key = crate::door::http::websocket_key(
        &req,
        "This route is a WebSocket: connect with a WebSocket client (the SDK's session.watch()).",
    )?;
    if state.watchers.fetch_add(1, Ordering::SeqCst) >= state.settings.max_watchers {
        state.watchers.fetch_sub(1, Ordering::SeqCst);
        return Err(CoreError::new(
            codes::TOO_MANY_WATCHERS,
            format!(
                "{} watch streams are open, the limit. Close one and retry.",
                state.settings.max_watchers
            ),
        ));
    }
    let slot = WatcherSlot(state.clone());
    // Subscribe before answering so no change between the answer and the first
    // poll of the stream is lost.
    let mut events = state.hub.subscribe();
    let hub = state.hub.clone();
    let scope_state = state.clone();
    let config = WebSocketConfig::default()
        .max_message_size(Some(64 * 1024))
        .max_frame_size(Some(64 * 1024));
    tokio::spawn(async move {
        let _slot = slot;
        let upgraded = match hyper::upgrade::on(req).await {
            Ok(u) => u,
            Err(e) => {
                tracing::debug!(error = %e, "watch upgrade failed");
                return;
            }
        };
        let ws =
            WebSocketStream::from_raw_socket(TokioIo::new(upgraded), Role::Server, Some(config))
                .await;
        let (mut sink, mut stream) = ws.split();
        let mut sequence: u64 = 0;
        let mut ping = tokio::time::interval(PING_EVERY);
        ping.tick().await;
        loop {
            tokio::select! {
                event = events.recv() => {
                    let changed_keys = match event {
                        Ok(e) if e.pid != pid => continue,
                        Ok(e) => match e.kind {
                            // A capture identical to the last one is not a change.
                            TabEventKind::Captured { changed_keys } if changed_keys.is_empty() => continue,
                            TabEventKind::Captured { changed_keys } => changed_keys,
                            TabEventKind::Status => continue,
                            TabEventKind::Closed => {
                                let frame = CloseFrame { code: CloseCode::Normal, reason: "the tab went away".into() };
                                let _ = sink.send(Message::Close(Some(frame))).await;
                                break;
                            }
                        },
                        // Missed events: report every key as changed, so nothing is missed.
                        Err(RecvError::Lagged(_)) => match hub.state(pid) {
                            Ok(s) => s.objects.keys().cloned().collect(),
                            Err(_) => continue,
                        },
                        Err(RecvError::Closed) => break,
                    };
                    // The agent was revoked, or the tab left its scope (navigated to
                    // another origin, ungrouped, unshared): the stream ends.
                    if !scope_state.agents.is_current(&agent)
                        || !crate::core::access::sees(&scope_state, &agent, pid)
                    {
                        let frame = CloseFrame { code: CloseCode::Policy, reason: "outside the agent's scope".into() };
                        let _ = sink.send(Message::Close(Some(frame))).await;
                        break;
                    }
                    sequence += 1;
                    let captured_at = hub.state(pid).map(|s| s.captured_at).unwrap_or_else(|_| crate::core::util::now_rfc3339());
                    let msg = WatchEvent {
                        pid,
                        app_id: app_id.clone(),
                        sequence,
                        changed_keys,
                        captured_at,
                    };
                    let text = serde_json::to_string(&msg).unwrap_or_default();
                    if sink.send(Message::text(text)).await.is_err() {
                        break;
                    }
                }
                _ = ping.tick() => {
                    if !scope_state.agents.is_current(&agent) {
                        let frame = CloseFrame { code: CloseCode::Policy, reason: "the agent was revoked".into() };
                        let _ = sink.send(Message::Close(Some(frame))).await;
                        break;
                    }
                    if sink.send(Message::Ping(Bytes::new())).await.is_err() {
                        break;
                    }
                }
                incoming = stream.next() => match incoming {
                    None | Some(Err(_)) | Some(Ok(Message::Close(_))) => break,
                    Some(Ok(_)) => {}
                },
            }
        }
    });
    Ok(crate::door::http::switching_protocols(&derive_accept_key(
        key.as_bytes(),
    )))
}

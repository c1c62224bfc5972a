//! The extension channel: one WebSocket per browser, spoken by the extension's service
//! worker. Origin checks happen before the upgrade (in `http`); this module runs an
//! accepted connection until it closes.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use hyper::upgrade::Upgraded;
use hyper_util::rt::TokioIo;
use nsp_protocol::channel::{DaemonMessage, ExtensionMessage, ProbeSettings};
use nsp_protocol::CHANNEL_VERSION;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, WebSocketConfig};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

use crate::tabs::Hub;

/// The first message must arrive within this time.
const HELLO_TIMEOUT: Duration = Duration::from_secs(10);
/// The extension sends a keepalive at least every 20 s; silence for this long means the
/// worker is gone even if TCP has not noticed.
const IDLE_TIMEOUT: Duration = Duration::from_secs(65);

/// WebSocket limits for the extension channel.
pub fn ws_config(max_message_bytes: usize) -> WebSocketConfig {
    WebSocketConfig::default()
        .max_message_size(Some(max_message_bytes))
        .max_frame_size(Some(max_message_bytes))
}

/// Runs one extension connection to its end.
/// `probe` goes to the extension in the welcome: the settings of every probe it runs.
pub async fn serve(ws: WebSocketStream<TokioIo<Upgraded>>, hub: Hub, probe: ProbeSettings) {
    let (mut sink, mut stream) = ws.split();

    let hello = tokio::time::timeout(HELLO_TIMEOUT, stream.next()).await;
    let (instance_id, browser) = match hello {
        Ok(Some(Ok(Message::Text(text)))) => {
            match serde_json::from_str::<ExtensionMessage>(&text) {
                Ok(ExtensionMessage::Hello {
                    channel_version,
                    extension_version,
                    browser,
                    instance_id,
                    ..
                }) if channel_version == CHANNEL_VERSION => {
                    tracing::info!(%extension_version, %browser, "extension connected");
                    (instance_id, browser)
                }
                Ok(ExtensionMessage::Hello {
                    channel_version, ..
                }) => {
                    let reason = format!("channel version {channel_version} is not supported; nspd speaks {CHANNEL_VERSION}: update the extension or nspd");
                    close(&mut sink, CloseCode::Policy, &reason).await;
                    return;
                }
                _ => {
                    close(
                        &mut sink,
                        CloseCode::Policy,
                        "the first message must be hello",
                    )
                    .await;
                    return;
                }
            }
        }
        _ => {
            close(&mut sink, CloseCode::Policy, "no hello").await;
            return;
        }
    };

    let (tx, mut rx) = mpsc::channel::<DaemonMessage>(256);
    let conn = hub.connect(instance_id, browser, tx);
    let welcome = DaemonMessage::Welcome {
        channel_version: CHANNEL_VERSION,
        daemon_version: crate::VERSION.into(),
        probe: Some(probe),
    };
    if send(&mut sink, &welcome).await.is_err() {
        hub.disconnect(conn);
        return;
    }

    loop {
        tokio::select! {
            incoming = tokio::time::timeout(IDLE_TIMEOUT, stream.next()) => {
                let frame = match incoming {
                    Err(_) => {
                        tracing::warn!(conn, "extension silent for {IDLE_TIMEOUT:?}; closing");
                        close(&mut sink, CloseCode::Away, "idle").await;
                        break;
                    }
                    Ok(None) => break,
                    Ok(Some(Err(e))) => {
                        tracing::info!(conn, error = %e, "extension channel closed abruptly");
                        break;
                    }
                    Ok(Some(Ok(frame))) => frame,
                };
                match frame {
                    Message::Text(text) => match serde_json::from_str::<ExtensionMessage>(&text) {
                        Ok(msg) => {
                            if let Some(reply) = handle(&hub, conn, msg) {
                                if send(&mut sink, &reply).await.is_err() {
                                    break;
                                }
                            }
                        }
                        Err(e) => tracing::warn!(conn, error = %e, "unreadable message from the extension; ignored"),
                    },
                    Message::Close(_) => break,
                    // tungstenite answers pings itself; binary frames are not ours.
                    _ => {}
                }
            }
            outgoing = rx.recv() => {
                let Some(msg) = outgoing else { break };
                if send(&mut sink, &msg).await.is_err() {
                    break;
                }
            }
        }
    }
    hub.disconnect(conn);
    tracing::info!(conn, "extension disconnected");
}

fn handle(hub: &Hub, conn: u64, msg: ExtensionMessage) -> Option<DaemonMessage> {
    match msg {
        ExtensionMessage::Hello { .. } => {
            tracing::warn!(conn, "a second hello on one connection; ignored");
            None
        }
        ExtensionMessage::Keepalive => Some(DaemonMessage::KeepaliveAck),
        ExtensionMessage::TabState {
            tab_id,
            window_id,
            status,
            url,
            title,
            message,
            capture,
            request_id,
        } => {
            hub.tab_state(
                conn,
                tab_id,
                window_id,
                status,
                url,
                title,
                message,
                capture.map(|c| *c),
                request_id,
            );
            None
        }
        ExtensionMessage::TabDelta {
            tab_id,
            changed,
            removed,
            actions,
            confidence,
            context,
            probe_metadata,
            explain,
        } => {
            let delta = crate::tabs::Delta {
                changed,
                removed,
                actions,
                confidence,
                context,
                probe_metadata,
                explain,
            };
            hub.tab_delta(conn, tab_id, delta);
            None
        }
        ExtensionMessage::TabClosed { tab_id } => {
            hub.tab_closed(conn, tab_id);
            None
        }
        ExtensionMessage::TabOpResult {
            request_id,
            tab_id,
            error,
        } => {
            hub.tab_ops.answer(&request_id, tab_id, error);
            None
        }
        ExtensionMessage::ActionResult {
            action_id, outcome, ..
        } => {
            hub.action_result(conn, &action_id, outcome);
            None
        }
        // Approvals: answered by the approval hold (to be wired).
        ExtensionMessage::ApprovalAnswer { approval_id, .. } => {
            tracing::warn!(conn, %approval_id, "an approval answer, but nothing is held; ignored");
            None
        }
        // Corrections from the person: stored by the corrections store (to be wired).
        ExtensionMessage::Correct { origin, action, .. } => {
            tracing::warn!(conn, %origin, %action, "a correction, but no store; ignored");
            None
        }
        ExtensionMessage::RemoveCorrection { id } => {
            tracing::warn!(conn, %id, "a correction removal, but no store; ignored");
            None
        }
    }
}

async fn send<S>(sink: &mut S, msg: &DaemonMessage) -> Result<(), ()>
where
    S: futures_util::Sink<Message> + Unpin,
{
    let text = serde_json::to_string(msg).map_err(|_| ())?;
    sink.send(Message::text(text)).await.map_err(|_| ())
}

async fn close<S>(sink: &mut S, code: CloseCode, reason: &str)
where
    S: futures_util::Sink<Message> + Unpin,
{
    let frame = CloseFrame {
        code,
        reason: reason.to_owned().into(),
    };
    let _ = sink.send(Message::Close(Some(frame))).await;
}

//! The extension channel: one WebSocket per browser, spoken by the extension's service
//! worker. Origin checks happen before the upgrade (in `http`); this module runs an
//! accepted connection until it closes.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use hyper::upgrade::Upgraded;
use hyper_util::rt::TokioIo;
use nsp_protocol::channel::{AgentView, DaemonMessage, ExtensionMessage, ProbeSettings};
use nsp_protocol::CHANNEL_VERSION;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, WebSocketConfig};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::WebSocketStream;

use std::sync::Arc;

use crate::core::app::AppState;
use crate::core::hub::TabReport;
use nsp_protocol::approval::CorrectionSource;

/// The first message must arrive within this time.
const HELLO_TIMEOUT: Duration = Duration::from_secs(10);
/// The extension sends a keepalive at least every 20 s; silence for this long means the
/// worker is gone even if TCP has not noticed.
const IDLE_TIMEOUT: Duration = Duration::from_secs(65);
/// How often the popup's view of the agents is looked at (and sent when it changed).
const AGENTS_EVERY: Duration = Duration::from_millis(500);

/// WebSocket limits for the extension channel.
pub fn ws_config(max_message_bytes: usize) -> WebSocketConfig {
    WebSocketConfig::default()
        .max_message_size(Some(max_message_bytes))
        .max_frame_size(Some(max_message_bytes))
}

/// Runs one extension connection to its end.
/// `probe` goes to the extension in the welcome: the settings of every probe it runs.
/// `audit` is the audit log, where the person's corrections are recorded.
/// `corrections`: the store whose every correction goes to the extension after the
/// welcome and again on every change (all origins in one message: the list is small and
/// bounded, and the worker picks each page's own when it configures that page's probe).
pub async fn serve(ws: WebSocketStream<TokioIo<Upgraded>>, state: Arc<AppState>) {
    let hub = state.hub.clone();
    let probe: ProbeSettings = state.settings.probe;
    let corrections = state.corrections.clone();
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
    let conn = hub.connect(instance_id.clone(), browser, tx);
    let welcome = DaemonMessage::Welcome {
        channel_version: CHANNEL_VERSION,
        daemon_version: crate::VERSION.into(),
        probe: Some(probe),
    };
    if send(&mut sink, &welcome).await.is_err() {
        hub.disconnect(conn);
        return;
    }
    let mut corrections_rx = corrections.subscribe();
    let all = DaemonMessage::Corrections {
        corrections: corrections_rx.borrow_and_update().as_ref().clone(),
    };
    if send(&mut sink, &all).await.is_err() {
        hub.disconnect(conn);
        return;
    }
    // Questions to the person still open in this browser session (its service worker
    // restarted, or the socket dropped): asked again, so the new worker can answer them.
    for question in crate::core::approvals::open_questions(&hub, conn) {
        if send(&mut sink, &question).await.is_err() {
            hub.disconnect(conn);
            return;
        }
    }

    // The agents the popup shows: sent when what it would show changed.
    let mut agents_tick = tokio::time::interval(AGENTS_EVERY);
    let mut agents_sent: Option<Vec<AgentView>> = None;
    // Silence is measured from the last frame, whatever else the loop does meanwhile.
    let mut idle_until = tokio::time::Instant::now() + IDLE_TIMEOUT;
    loop {
        tokio::select! {
            _ = agents_tick.tick() => {
                let now = crate::core::crew::views(&state, &instance_id);
                if agents_sent.as_ref() != Some(&now) {
                    let msg = DaemonMessage::Agents { agents: now.clone() };
                    if send(&mut sink, &msg).await.is_err() {
                        break;
                    }
                    agents_sent = Some(now);
                }
            }
            incoming = tokio::time::timeout_at(idle_until, stream.next()) => {
                idle_until = tokio::time::Instant::now() + IDLE_TIMEOUT;
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
                            if let Some(reply) = handle(&state, &instance_id, conn, msg) {
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
            changed = corrections_rx.changed() => {
                if changed.is_err() {
                    break;
                }
                let all = DaemonMessage::Corrections {
                    corrections: corrections_rx.borrow_and_update().as_ref().clone(),
                };
                if send(&mut sink, &all).await.is_err() {
                    break;
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

fn handle(
    state: &AppState,
    instance_id: &str,
    conn: u64,
    msg: ExtensionMessage,
) -> Option<DaemonMessage> {
    let (hub, corrections, audit) = (&state.hub, &state.corrections, &state.audit);
    // The person's corrections go to the audit log like every other decision that
    // changes what the gate will allow.
    let record = |what: &str, fields: &[(&str, serde_json::Value)]| {
        let mut rec = serde_json::Map::new();
        rec.insert("event".into(), what.into());
        rec.insert("by".into(), "person".into());
        for (k, v) in fields {
            rec.insert((*k).into(), v.clone());
        }
        let _ = audit.record(rec, false);
    };
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
            let report = TabReport {
                tab_id,
                window_id,
                status,
                url,
                title,
                message,
                capture: capture.map(|c| *c),
                request_id,
            };
            hub.tab_state(conn, report);
            None
        }
        ExtensionMessage::TabDelta { tab_id, delta } => {
            hub.tab_delta(conn, tab_id, delta);
            None
        }
        ExtensionMessage::TabClosed { tab_id } => {
            if let Some(pid) = hub.pid_of(conn, tab_id) {
                state.leases.tab_closed(pid);
            }
            hub.tab_closed(conn, tab_id);
            state.owners.release(instance_id, tab_id, false);
            None
        }
        // The person's say over agents: the service worker sends these only for the
        // extension's own pages (the popup).
        ExtensionMessage::TabUngrouped { tab_id } => {
            state.owners.release(instance_id, tab_id, true);
            record("tab_ungrouped", &[("tab_id", tab_id.into())]);
            None
        }
        ExtensionMessage::ShareTab {
            tab_id,
            agent,
            share,
        } => {
            if state.agents.get(&agent).is_some_and(|a| !a.is_default()) {
                state.owners.share(instance_id, tab_id, &agent, share);
                record(
                    if share { "tab_shared" } else { "tab_unshared" },
                    &[("tab_id", tab_id.into()), ("agent", agent.into())],
                );
            }
            None
        }
        ExtensionMessage::RevokeAgent { name } => {
            match state.agents.revoke(&name) {
                Ok(true) => {
                    state.owners.forget_agent(&name);
                    tracing::info!(conn, %name, "the person revoked an agent");
                    record("agent_revoked", &[("agent", name.into())]);
                }
                Ok(false) => tracing::info!(conn, %name, "no agent of this name to revoke"),
                Err(e) => tracing::warn!(conn, %name, error = %e, "the agent was not revoked"),
            }
            None
        }
        ExtensionMessage::TabOpResult {
            request_id,
            tab_id,
            error,
        } => {
            hub.tab_requests.answer(&request_id, tab_id, error);
            None
        }
        ExtensionMessage::Resolved {
            request_id,
            resolution,
            ..
        } => {
            hub.resolved(conn, &request_id, resolution);
            None
        }
        ExtensionMessage::ActionResult {
            action_id, outcome, ..
        } => {
            hub.action_result(conn, &action_id, outcome);
            None
        }
        ExtensionMessage::ApprovalAnswer {
            approval_id,
            decision,
        } => {
            crate::core::approvals::answer(hub, conn, &approval_id, decision);
            None
        }
        // Corrections from the person: the service worker sends these only for the
        // extension's own pages. Every change reaches every connection through the
        // store's subscription, this one included, so there is no reply here.
        ExtensionMessage::Correct {
            origin,
            action,
            tier,
            trusted,
        } => {
            let c = crate::core::corrections::new_correction(
                &origin,
                &action,
                tier,
                trusted,
                None,
                CorrectionSource::Person,
                None,
            );
            match corrections.add(c) {
                Ok(c) => {
                    tracing::info!(conn, %origin, %action, id = %c.id, "the person corrected an action");
                    record(
                        "correction",
                        &[("correction", serde_json::to_value(&c).unwrap_or_default())],
                    );
                }
                Err(e) => {
                    tracing::warn!(conn, %origin, %action, error = %e, "a correction from the person was not stored")
                }
            }
            None
        }
        ExtensionMessage::RemoveCorrection { id } => {
            match corrections.remove(&id) {
                Ok(true) => {
                    tracing::info!(conn, %id, "the person removed a correction");
                    record("correction_removed", &[("id", id.clone().into())]);
                }
                Ok(false) => tracing::info!(conn, %id, "no correction with this id to remove"),
                Err(e) => tracing::warn!(conn, %id, error = %e, "a correction was not removed"),
            }
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

//! Fault injection for the end-to-end fault tests: a TCP relay between the extension and
//! nspd that can hold back the extension's side of the channel once nspd has sent a
//! dispatch and then cut the connection, and a minimal Chrome DevTools Protocol client
//! (browser-wide WebSocket) to stop the extension's service worker or run a script in a
//! page, as a person with DevTools or a page's own code would.
//!
//! Both act on the real processes: nspd, the browser and the extension are the shipped
//! ones and see a real closed TCP connection or a really stopped worker; nothing here
//! stands in for either side of the channel.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::Message;

/// What the relay was asked to do with the next dispatch.
#[derive(Debug, Default)]
struct Plan {
    /// Hold back everything the extension sends once a dispatch has passed to it.
    hold_after_dispatch: bool,
}

#[derive(Debug)]
struct Shared {
    plan: Mutex<Plan>,
    /// How many dispatches passed from nspd to the extension.
    dispatched: watch::Sender<usize>,
    /// How many action results from the extension were held back (dropped).
    held_results: watch::Sender<usize>,
    /// Bumped by [`ChannelRelay::cut`]: every live connection closes.
    cut: watch::Sender<u64>,
}

/// A loopback TCP relay in front of nspd's extension channel. The extension connects to
/// [`ChannelRelay::port`]; the relay rewrites the handshake's `Host` (nspd answers only
/// to its own port) and forwards bytes both ways, unaltered. nspd's frames are unmasked
/// JSON text, so a dispatch is recognised by its `"type":"dispatch"` bytes; the
/// extension's frames are cut at frame boundaries (and unmasked to read, never to
/// change), so a hold drops whole frames and can tell an action result.
#[derive(Debug)]
pub struct ChannelRelay {
    port: u16,
    shared: Arc<Shared>,
    accept: JoinHandle<()>,
}

impl ChannelRelay {
    /// Starts relaying 127.0.0.1:(free port) to 127.0.0.1:`upstream`.
    pub async fn start(upstream: u16) -> Result<ChannelRelay> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let port = listener.local_addr()?.port();
        let shared = Arc::new(Shared {
            plan: Mutex::new(Plan::default()),
            dispatched: watch::Sender::new(0),
            held_results: watch::Sender::new(0),
            cut: watch::Sender::new(0),
        });
        let for_loop = shared.clone();
        let accept = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let shared = for_loop.clone();
                tokio::spawn(async move {
                    if let Ok(server) = TcpStream::connect(("127.0.0.1", upstream)).await {
                        relay(client, server, port, upstream, shared).await;
                    }
                });
            }
        });
        Ok(ChannelRelay {
            port,
            shared,
            accept,
        })
    }

    /// The port the extension should connect to.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// From the next dispatch on, whatever the extension sends on that connection
    /// (its action result, keepalives, captures) is read and dropped, as on a link
    /// that has gone dead in one direction. Lasts until [`ChannelRelay::cut`].
    pub fn hold_after_next_dispatch(&self) {
        self.lock().hold_after_dispatch = true;
    }

    /// Waits until `n` dispatches in all have passed to the extension.
    pub async fn wait_dispatched(&self, n: usize, timeout: Duration) -> Result<()> {
        let mut rx = self.shared.dispatched.subscribe();
        tokio::time::timeout(timeout, rx.wait_for(|&c| c >= n))
            .await
            .with_context(|| format!("no dispatch {n} passed within {timeout:?}"))?
            .context("relay gone")?;
        Ok(())
    }

    /// Waits until `n` action results in all were held back (sent by the extension and
    /// dropped by the relay, so lost as on a dead link).
    pub async fn wait_held_results(&self, n: usize, timeout: Duration) -> Result<()> {
        let mut rx = self.shared.held_results.subscribe();
        tokio::time::timeout(timeout, rx.wait_for(|&c| c >= n))
            .await
            .with_context(|| format!("no action result {n} was held within {timeout:?}"))?
            .context("relay gone")?;
        Ok(())
    }

    /// Closes every live connection (both TCP sockets), and stops holding. New
    /// connections (the extension reconnecting) are relayed as before.
    pub fn cut(&self) {
        self.lock().hold_after_dispatch = false;
        self.shared.cut.send_modify(|n| *n += 1);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Plan> {
        self.shared.plan.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for ChannelRelay {
    fn drop(&mut self) {
        self.accept.abort();
        self.shared.cut.send_modify(|n| *n += 1);
    }
}

/// Relays one connection until either side closes or the relay is cut.
async fn relay(
    client: TcpStream,
    server: TcpStream,
    port: u16,
    upstream: u16,
    shared: Arc<Shared>,
) {
    let mut cut = shared.cut.subscribe();
    cut.mark_unchanged();
    let (mut client_rd, mut client_wr) = client.into_split();
    let (mut server_rd, mut server_wr) = server.into_split();
    // Set once a dispatch passed while holding was planned; the extension's bytes are
    // then dropped.
    let holding = Arc::new(std::sync::atomic::AtomicBool::new(false));

    let up_holding = holding.clone();
    let up_shared = shared.clone();
    let up = async move {
        // The handshake first: its Host names the relay's port, nspd wants its own.
        let mut head = Vec::new();
        let mut buf = vec![0u8; 16 * 1024];
        while !head.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = client_rd.read(&mut buf).await.unwrap_or(0);
            if n == 0 {
                return;
            }
            head.extend_from_slice(&buf[..n]);
        }
        let end = head
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .map_or(head.len(), |i| i + 4);
        let handshake = String::from_utf8_lossy(&head[..end]).replace(
            &format!("127.0.0.1:{port}"),
            &format!("127.0.0.1:{upstream}"),
        );
        if server_wr.write_all(handshake.as_bytes()).await.is_err() {
            return;
        }
        // Then whole frames: forwarded, or dropped while holding.
        let mut pending = head[end..].to_vec();
        loop {
            while let Some((len, result)) = client_frame(&pending) {
                let frame: Vec<u8> = pending.drain(..len).collect();
                if up_holding.load(std::sync::atomic::Ordering::SeqCst) {
                    if result {
                        up_shared.held_results.send_modify(|c| *c += 1);
                    }
                } else if server_wr.write_all(&frame).await.is_err() {
                    return;
                }
            }
            let n = client_rd.read(&mut buf).await.unwrap_or(0);
            if n == 0 {
                break;
            }
            pending.extend_from_slice(&buf[..n]);
        }
    };
    let down = async move {
        let mut buf = vec![0u8; 64 * 1024];
        // The end of the previous read, so a marker split between reads is still seen.
        let mut tail: Vec<u8> = Vec::new();
        const MARK: &[u8] = b"\"type\":\"dispatch\"";
        loop {
            let n = server_rd.read(&mut buf).await.unwrap_or(0);
            if n == 0 {
                break;
            }
            let mut window = std::mem::take(&mut tail);
            window.extend_from_slice(&buf[..n]);
            let dispatches = window.windows(MARK.len()).filter(|w| *w == MARK).count();
            tail = window[window.len().saturating_sub(MARK.len() - 1)..].to_vec();
            if dispatches > 0 {
                let hold = shared
                    .plan
                    .lock()
                    .map(|p| p.hold_after_dispatch)
                    .unwrap_or(false);
                // Hold before the dispatch reaches the extension, so not even a fast
                // answer can slip through. One dispatch arms one hold.
                if hold {
                    holding.store(true, std::sync::atomic::Ordering::SeqCst);
                    if let Ok(mut plan) = shared.plan.lock() {
                        plan.hold_after_dispatch = false;
                    }
                }
            }
            if client_wr.write_all(&buf[..n]).await.is_err() {
                break;
            }
            if dispatches > 0 {
                shared.dispatched.send_modify(|c| *c += dispatches);
            }
        }
    };
    tokio::select! {
        _ = up => {}
        _ = down => {}
        _ = cut.changed() => {}
    }
    // Dropping the halves closes both sockets.
}

/// The length of the first complete WebSocket frame a client sent in `buf` (RFC 6455
/// 5.2: client frames are masked), and whether it is an `action_result` message; `None`
/// until a whole frame is there.
fn client_frame(buf: &[u8]) -> Option<(usize, bool)> {
    let b1 = *buf.get(1)?;
    let masked = b1 & 0x80 != 0;
    let (len, mut at) = match b1 & 0x7f {
        126 => (u16::from_be_bytes([*buf.get(2)?, *buf.get(3)?]) as usize, 4),
        127 => {
            let bytes: [u8; 8] = buf.get(2..10)?.try_into().ok()?;
            (usize::try_from(u64::from_be_bytes(bytes)).ok()?, 10)
        }
        n => (n as usize, 2),
    };
    let mask = if masked {
        let m: [u8; 4] = buf.get(at..at + 4)?.try_into().ok()?;
        at += 4;
        Some(m)
    } else {
        None
    };
    let payload = buf.get(at..at + len)?;
    let text: Vec<u8> = match mask {
        Some(m) => payload
            .iter()
            .enumerate()
            .map(|(i, b)| b ^ m[i % 4])
            .collect(),
        None => payload.to_vec(),
    };
    const MARK: &[u8] = b"\"type\":\"action_result\"";
    let is_result = buf[0] & 0x0f == 1 && text.windows(MARK.len()).any(|w| w == MARK);
    Some((at + len, is_result))
}

/// A browser-wide Chrome DevTools Protocol connection (`--remote-debugging-port`).
/// Commands are sent one at a time; events are kept in `events`.
#[derive(Debug)]
pub struct Cdp {
    ws: tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>,
    next_id: u64,
    /// Events that arrived while waiting for answers, oldest first.
    pub events: Vec<Value>,
}

impl Cdp {
    /// Connects to the browser target's URL (see
    /// `nsp_daemon::launch::Browser::devtools_ws_url`).
    pub async fn connect(url: &str) -> Result<Cdp> {
        let (ws, _) = tokio::time::timeout(
            Duration::from_secs(10),
            tokio_tungstenite::connect_async(url),
        )
        .await
        .context("DevTools did not accept within 10 s")??;
        Ok(Cdp {
            ws,
            next_id: 1,
            events: Vec::new(),
        })
    }

    /// Runs one command (on `session`, or the browser) and returns its result.
    pub async fn call(
        &mut self,
        method: &str,
        params: Value,
        session: Option<&str>,
    ) -> Result<Value> {
        let id = self.next_id;
        self.next_id += 1;
        let mut msg = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        self.ws.send(Message::text(msg.to_string())).await?;
        let answer = tokio::time::timeout(Duration::from_secs(20), async {
            while let Some(frame) = self.ws.next().await {
                let Message::Text(text) = frame? else {
                    continue;
                };
                let v: Value = serde_json::from_str(text.as_str())?;
                if v["id"] == json!(id) {
                    return Ok(v);
                }
                if v.get("method").is_some() && self.events.len() < 10_000 {
                    self.events.push(v);
                }
            }
            bail!("DevTools closed the connection")
        })
        .await
        .with_context(|| format!("{method} got no answer within 20 s"))??;
        if let Some(err) = answer.get("error") {
            bail!("{method} failed: {err}");
        }
        Ok(answer["result"].clone())
    }

    /// The browser's targets (pages, service workers, ...).
    pub async fn targets(&mut self) -> Result<Vec<Value>> {
        let r = self.call("Target.getTargets", json!({}), None).await?;
        Ok(r["targetInfos"].as_array().cloned().unwrap_or_default())
    }

    /// Stops the service worker whose script URL starts with `url_prefix`, as the Stop
    /// button of `chrome://serviceworker-internals` does: closing a service worker's
    /// target makes Chromium stop the worker once no DevTools session is attached (this
    /// connection attaches none). Returns the target id that was closed.
    pub async fn stop_service_worker(&mut self, url_prefix: &str) -> Result<String> {
        let targets = self.targets().await?;
        let Some(id) = targets
            .iter()
            .find(|t| {
                t["type"] == "service_worker"
                    && t["url"].as_str().is_some_and(|u| u.starts_with(url_prefix))
            })
            .and_then(|t| t["targetId"].as_str())
            .map(str::to_owned)
        else {
            bail!("no running service worker at {url_prefix}; targets: {targets:?}");
        };
        self.call("Target.closeTarget", json!({"targetId": id}), None)
            .await?;
        Ok(id)
    }

    /// Evaluates `expression` (a promise is awaited) in the main world of the page whose
    /// URL starts with `url_prefix` and returns its value.
    pub async fn eval_in_page(&mut self, url_prefix: &str, expression: &str) -> Result<Value> {
        self.eval_in("page", url_prefix, expression).await
    }

    /// As [`Cdp::eval_in_page`], in the first target of `kind` (`page`,
    /// `service_worker`) whose URL starts with `url_prefix`.
    pub async fn eval_in(
        &mut self,
        kind: &str,
        url_prefix: &str,
        expression: &str,
    ) -> Result<Value> {
        let targets = self.targets().await?;
        let Some(id) = targets
            .iter()
            .find(|t| {
                t["type"] == kind && t["url"].as_str().is_some_and(|u| u.starts_with(url_prefix))
            })
            .and_then(|t| t["targetId"].as_str())
            .map(str::to_owned)
        else {
            bail!("no {kind} at {url_prefix}; targets: {targets:?}");
        };
        let attached = self
            .call(
                "Target.attachToTarget",
                json!({"targetId": id, "flatten": true}),
                None,
            )
            .await?;
        let session = attached["sessionId"]
            .as_str()
            .context("no session id")?
            .to_owned();
        let result = self
            .call(
                "Runtime.evaluate",
                json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
                Some(&session),
            )
            .await;
        let _ = self
            .call(
                "Target.detachFromTarget",
                json!({"sessionId": session}),
                None,
            )
            .await;
        let result = result?;
        if let Some(exc) = result.get("exceptionDetails") {
            bail!("the page threw: {exc}");
        }
        Ok(result["result"]["value"].clone())
    }
}

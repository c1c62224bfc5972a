//! Binding, the accept loop and graceful shutdown.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;

use crate::core::app::AppState;
use crate::core::auth::{AgentKey, KeyError};
use crate::core::config::Settings;
use crate::core::hub::Hub;
use crate::door::http::handle;

/// How long a client may take to send its request headers (slowloris defence).
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// How long in-flight requests get to finish after a shutdown signal.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("refusing to listen on {0}: nspd binds loopback only (127.0.0.1 or ::1), because the agent API must never be reachable from the network")]
    NotLoopback(std::net::IpAddr),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error(transparent)]
    Key(#[from] KeyError),
    #[error(transparent)]
    Corrections(#[from] crate::core::corrections::StoreError),
    #[error(transparent)]
    Agents(#[from] crate::core::agents::AgentsError),
    #[error("cannot open the audit log {path}: {source}")]
    Audit {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
}

/// A bound server, not yet serving.
#[derive(Debug)]
pub struct Server {
    listener: TcpListener,
    /// The MCP door's listener (`[mcp]`), when it is on.
    mcp: Option<TcpListener>,
    mcp_addr: Option<SocketAddr>,
    state: Arc<AppState>,
}

/// How many connections may wait for nspd to accept them. The standard library's (and
/// mio's) 128 overflows when a thousand agents connect at once: Linux drops the excess
/// SYNs and the clients retry a second later. The kernel caps it at
/// `net.core.somaxconn`.
const ACCEPT_BACKLOG: u32 = 1024;

/// Binds a listening socket on `addr` with [`ACCEPT_BACKLOG`].
fn listen(addr: SocketAddr) -> std::io::Result<TcpListener> {
    let socket = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    // As std and mio do: a restarted nspd can rebind its port at once.
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(ACCEPT_BACKLOG)
}

/// Binds the MCP listener. A port from the settings must be free; the derived default
/// (the API's port + 1) falls back to a free port when something else holds it, since
/// nspd prints the one it got and writes it to `<data dir>/mcp.url`.
fn bind_mcp(host: std::net::IpAddr, port: u16, explicit: bool) -> Result<TcpListener, StartError> {
    let addr = SocketAddr::new(host, port);
    match listen(addr) {
        Ok(listener) => Ok(listener),
        Err(e) if !explicit && port != 0 && e.kind() == std::io::ErrorKind::AddrInUse => {
            tracing::warn!(%addr, "the MCP port is taken; MCP listens on a free port instead (set [mcp] port to choose one)");
            let any = SocketAddr::new(host, 0);
            listen(any).map_err(|source| StartError::Bind { addr: any, source })
        }
        Err(source) => Err(StartError::Bind { addr, source }),
    }
}

impl Server {
    /// Loads (or creates) the agent key and binds the listener.
    pub async fn bind(settings: Settings) -> Result<Server, StartError> {
        if !settings.host.is_loopback() {
            return Err(StartError::NotLoopback(settings.host));
        }
        let key = AgentKey::load_or_create(&settings.data_dir)?;
        let addr = SocketAddr::new(settings.host, settings.port);
        let listener = listen(addr).map_err(|source| StartError::Bind { addr, source })?;
        let local_addr = listener
            .local_addr()
            .map_err(|source| StartError::Bind { addr, source })?;
        let (mcp, mcp_addr) = match settings.mcp_port() {
            Some(port) => {
                let listener = bind_mcp(settings.host, port, settings.mcp_port.is_some())?;
                let bound = listener.local_addr().map_err(|source| StartError::Bind {
                    addr: SocketAddr::new(settings.host, port),
                    source,
                })?;
                (Some(listener), Some(bound))
            }
            None => (None, None),
        };
        let audit = crate::core::audit::AuditLog::open(&settings.data_dir).map_err(|source| {
            StartError::Audit {
                path: settings.data_dir.join(crate::core::audit::AUDIT_FILE),
                source,
            }
        })?;
        let corrections = crate::core::corrections::Corrections::open(&settings.data_dir)?;
        corrections.watch_file();
        let agents = crate::core::agents::Agents::open(&settings.data_dir, &key)?;
        agents.watch_file();
        let state = Arc::new(AppState {
            hub: Hub::with_max_tabs(settings.max_tabs),
            key_id: key.id(),
            agents,
            owners: crate::core::owners::Owners::open(&settings.data_dir),
            leases: crate::core::leases::Leases::default(),
            last_actions: Default::default(),
            key,
            local_addr,
            audit: Arc::new(audit),
            idempotency: crate::core::idempotency::Store::default(),
            limits: crate::core::ratelimit::Limits::new(
                settings.actions_per_sec,
                settings.state_reads_per_sec,
            ),
            watchers: std::sync::atomic::AtomicUsize::new(0),
            corrections,
            settings,
        });
        Ok(Server {
            listener,
            mcp,
            mcp_addr,
            state,
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.state.local_addr
    }

    /// Where MCP is served (its `/mcp` is on this address), when it is on.
    pub fn mcp_addr(&self) -> Option<SocketAddr> {
        self.mcp_addr
    }

    pub fn hub(&self) -> Hub {
        self.state.hub.clone()
    }

    pub fn key(&self) -> &AgentKey {
        &self.state.key
    }

    /// Serves until `shutdown` resolves, then lets in-flight requests finish (bounded).
    pub async fn run(self, shutdown: impl Future<Output = ()>) {
        // Upgradeable connections have no GracefulConnection impl, so shutdown is
        // wired by hand: a watch flag tells each connection to finish, and every
        // connection task holds a clone of `alive`, so `alive_rx` ends when all are done.
        let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
        let (alive, mut alive_rx) = tokio::sync::mpsc::channel::<()>(1);
        let mut shutdown = std::pin::pin!(shutdown);
        let mcp_stop = tokio_util::sync::CancellationToken::new();
        let mcp = self.mcp.map(|listener| {
            tokio::spawn(crate::door::mcp::serve(
                self.state.clone(),
                listener,
                mcp_stop.clone(),
            ))
        });
        loop {
            tokio::select! {
                accepted = self.listener.accept() => {
                    let (stream, peer) = match accepted {
                        Ok(pair) => pair,
                        Err(e) => {
                            // Usually EMFILE or a reset before accept: log and go on.
                            tracing::warn!(error = %e, "accept failed");
                            tokio::time::sleep(Duration::from_millis(50)).await;
                            continue;
                        }
                    };
                    // Answers and extension-channel frames are small and latency-bound:
                    // never hold one back waiting for the peer's ACK (Nagle).
                    if let Err(e) = stream.set_nodelay(true) {
                        tracing::debug!(error = %e, "TCP_NODELAY not set");
                    }
                    let state = self.state.clone();
                    let service = service_fn(move |req| handle(state.clone(), req));
                    let conn = http1::Builder::new()
                        .timer(TokioTimer::new())
                        .header_read_timeout(HEADER_READ_TIMEOUT)
                        .max_buf_size(64 * 1024)
                        .serve_connection(TokioIo::new(stream), service)
                        .with_upgrades();
                    let mut stop_rx = stop_rx.clone();
                    let alive = alive.clone();
                    tokio::spawn(async move {
                        let mut conn = std::pin::pin!(conn);
                        let result = tokio::select! {
                            r = conn.as_mut() => r,
                            _ = async { stop_rx.wait_for(|stop| *stop).await.map(|_| ()) } => {
                                conn.as_mut().graceful_shutdown();
                                conn.await
                            }
                        };
                        if let Err(e) = result {
                            tracing::debug!(%peer, error = %e, "connection ended with an error");
                        }
                        drop(alive);
                    });
                }
                () = &mut shutdown => break,
            }
        }
        drop(self.listener);
        // MCP's open streams end with their sessions.
        mcp_stop.cancel();
        if let Some(task) = mcp {
            let _ = task.await;
        }
        let _ = stop_tx.send(true);
        drop(alive);
        tokio::select! {
            _ = alive_rx.recv() => tracing::info!("all connections closed"),
            () = tokio::time::sleep(SHUTDOWN_GRACE) => tracing::warn!("shutdown grace period over; closing the remaining connections"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_taken_default_mcp_port_falls_back_and_a_chosen_one_fails() {
        let host = std::net::IpAddr::from([127, 0, 0, 1]);
        let taken = TcpListener::bind((host, 0)).await.expect("bind");
        let port = taken.local_addr().expect("addr").port();
        let other = bind_mcp(host, port, false).expect("falls back");
        assert_ne!(other.local_addr().expect("addr").port(), port);
        let err = bind_mcp(host, port, true).expect_err("a chosen port must be free");
        assert!(matches!(err, StartError::Bind { .. }), "{err}");
    }

    /// Three hundred agents connecting at once all get through the handshake while nspd
    /// is busy elsewhere (nothing accepts here): with the default backlog of 128 the
    /// kernel drops the rest, and they wait a second to retry.
    #[tokio::test]
    async fn a_burst_of_connections_fits_the_accept_backlog() {
        let listener = listen(SocketAddr::from(([127, 0, 0, 1], 0))).expect("listen");
        let addr = listener.local_addr().expect("addr");
        let connects = (0..300).map(|_| {
            tokio::time::timeout(
                std::time::Duration::from_millis(800),
                tokio::net::TcpStream::connect(addr),
            )
        });
        let results = futures_util::future::join_all(connects).await;
        let through = results.iter().filter(|r| matches!(r, Ok(Ok(_)))).count();
        assert_eq!(through, 300, "connections that did not get through at once");
        drop(listener);
    }
}

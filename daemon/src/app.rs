//! The shared state every handler of either front door (HTTP API, MCP) can reach, kept
//! apart from the front doors so handlers do not import them.

use std::net::SocketAddr;

use crate::auth::AgentKey;
use crate::config::Settings;
use crate::hub::Hub;

/// What every request handler can reach.
#[derive(Debug)]
pub struct AppState {
    pub settings: Settings,
    pub hub: Hub,
    pub key: AgentKey,
    /// A short id of the key for logs and limits; never the key itself.
    pub key_id: String,
    /// The address actually bound (the port may have been 0 in the settings).
    pub local_addr: SocketAddr,
    pub audit: crate::audit::AuditLog,
    pub idempotency: crate::idempotency::Store,
    pub limits: crate::ratelimit::Limits,
    /// Open `/watch` streams.
    pub watchers: std::sync::atomic::AtomicUsize,
    /// The corrections store (`corrections.json`), pushed to the extension.
    pub corrections: crate::corrections::Corrections,
}

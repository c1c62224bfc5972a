//! The shared state every handler of either front door (HTTP API, MCP) can reach, kept
//! apart from the front doors so handlers do not import them.

use std::net::SocketAddr;

use crate::core::auth::AgentKey;
use crate::core::config::Settings;
use crate::core::hub::Hub;

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
    /// Shared with the extension channels, which record the person's corrections.
    pub audit: std::sync::Arc<crate::core::audit::AuditLog>,
    pub idempotency: crate::core::idempotency::Store<crate::core::idempotency::FirstAnswer>,
    pub limits: crate::core::ratelimit::Limits,
    /// Open `/watch` streams.
    pub watchers: std::sync::atomic::AtomicUsize,
    /// The corrections store (`corrections.json`), pushed to the extension.
    pub corrections: crate::core::corrections::Corrections,
}

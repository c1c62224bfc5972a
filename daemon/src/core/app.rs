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
    /// The agents and their scopes (`agents.json`; `key` is the default agent's).
    pub agents: crate::core::agents::Agents,
    /// Which agent owns which tab, and what the person shared (`owners.json`).
    pub owners: crate::core::owners::Owners,
    /// Agents' leases on tabs.
    pub leases: crate::core::leases::Leases,
    /// Each agent's last actions, for the popup.
    pub last_actions: crate::core::agents::LastActions,
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

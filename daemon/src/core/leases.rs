//! Tab leases: an agent doing a multi-step flow on a tab holds it, and another agent's
//! writes there are refused (`tab_leased`) until the lease ends: released, expired, the
//! tab closed, or the holder revoked. Reads stay open to every agent that sees the tab.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use crate::core::agents::{Agent, Agents};
use crate::core::codes;
use crate::core::error::CoreError;

/// The shortest and longest lease one request may ask for (renew to hold longer).
pub const MIN_TTL: Duration = Duration::from_millis(nsp_protocol::api::LEASE_TTL_MS_MIN);
pub const MAX_TTL: Duration = Duration::from_millis(nsp_protocol::api::LEASE_TTL_MS_MAX);

/// Who holds a tab, and until when.
#[derive(Debug, Clone)]
pub struct Lease {
    pub holder: Arc<Agent>,
    pub pid: u64,
    until: Instant,
    /// `until` as RFC 3339, for the agents.
    pub expires_at: String,
}

/// The leases; one per nspd.
#[derive(Debug, Default)]
pub struct Leases {
    by_pid: Mutex<HashMap<u64, Lease>>,
}

impl Leases {
    /// `agent` takes or renews the lease on tab `pid` for `ttl`; refused while another
    /// agent holds it.
    pub fn take(
        &self,
        agents: &Agents,
        agent: &Arc<Agent>,
        pid: u64,
        ttl: Duration,
    ) -> Result<Lease, CoreError> {
        if !(MIN_TTL..=MAX_TTL).contains(&ttl) {
            return Err(CoreError::invalid_request(format!(
                "\"ttl_ms\" must be from {} to {}; renew the lease before it ends to hold the tab longer.",
                MIN_TTL.as_millis(),
                MAX_TTL.as_millis()
            ))
            .with("field", "ttl_ms"));
        }
        let mut leases = self.lock();
        if let Some(held) = live(agents, &mut leases, pid) {
            if held.holder.name != agent.name {
                return Err(leased(&held));
            }
        }
        let lease = Lease {
            holder: agent.clone(),
            pid,
            until: Instant::now() + ttl,
            expires_at: crate::core::util::rfc3339(SystemTime::now() + ttl),
        };
        leases.insert(pid, lease.clone());
        Ok(lease)
    }

    /// `agent` releases its lease on `pid`. Returns whether it held one.
    pub fn release(&self, agents: &Agents, agent: &Agent, pid: u64) -> bool {
        let mut leases = self.lock();
        match live(agents, &mut leases, pid) {
            Some(held) if held.holder.name == agent.name => {
                leases.remove(&pid);
                true
            }
            _ => false,
        }
    }

    /// The tab closed: its lease ends.
    pub fn tab_closed(&self, pid: u64) {
        self.lock().remove(&pid);
    }

    /// `agent` may write on `pid` unless another agent holds it.
    pub fn check(&self, agents: &Agents, agent: &Agent, pid: u64) -> Result<(), CoreError> {
        let mut leases = self.lock();
        match live(agents, &mut leases, pid) {
            Some(held) if held.holder.name != agent.name => Err(leased(&held)),
            _ => Ok(()),
        }
    }

    /// The live lease on `pid`, if any.
    pub fn holder(&self, agents: &Agents, pid: u64) -> Option<Lease> {
        live(agents, &mut self.lock(), pid)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Lease>> {
        self.by_pid.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The lease on `pid` if it still holds (not expired, holder not revoked); a dead one
/// is dropped.
fn live(agents: &Agents, leases: &mut HashMap<u64, Lease>, pid: u64) -> Option<Lease> {
    let lease = leases.get(&pid)?;
    if lease.until > Instant::now() && agents.is_current(&lease.holder) {
        return Some(lease.clone());
    }
    leases.remove(&pid);
    None
}

fn leased(held: &Lease) -> CoreError {
    CoreError::new(
        codes::TAB_LEASED,
        format!(
            "The agent {:?} holds tab {} until {} for a flow of its own; writes by other agents wait until it releases the tab or the lease ends. Reads are open.",
            held.holder.name, held.pid, held.expires_at
        ),
    )
    .with("holder", held.holder.name.clone())
    .with("expires_at", held.expires_at.clone())
}

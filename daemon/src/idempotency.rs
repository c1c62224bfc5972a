//! `Idempotency-Key` on `POST /action`: the same key and body replay the stored
//! response for 24 h; the same key with another body is refused; the same key while
//! the first request still runs is a conflict.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::Value;

/// How long a stored response is replayed.
pub const RETENTION: Duration = Duration::from_secs(24 * 60 * 60);
/// Most keys remembered at once (oldest are forgotten first).
const MAX_KEYS: usize = 10_000;

#[derive(Debug, Clone)]
enum Slot {
    Running,
    Done { status: u16, body: Value },
}

#[derive(Debug)]
struct Entry {
    request: Value,
    slot: Slot,
    at: Instant,
}

/// What to do with a request that carries a key.
#[derive(Debug, PartialEq)]
pub enum Claim {
    /// First time: run it, then call [`Store::complete`].
    Run,
    /// Done before with the same request: answer this.
    Replay { status: u16, body: Value },
    /// Still running.
    Conflict,
    /// Used before for a different request.
    Reused,
}

/// Keys per agent key id.
#[derive(Debug, Default)]
pub struct Store {
    entries: Mutex<HashMap<(String, String), Entry>>,
}

impl Store {
    pub fn claim(&self, key_id: &str, idem_key: &str, request: &Value) -> Claim {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        entries.retain(|_, e| now.duration_since(e.at) < RETENTION);
        let k = (key_id.to_owned(), idem_key.to_owned());
        if let Some(e) = entries.get(&k) {
            if &e.request != request {
                return Claim::Reused;
            }
            return match &e.slot {
                Slot::Running => Claim::Conflict,
                Slot::Done { status, body } => Claim::Replay {
                    status: *status,
                    body: body.clone(),
                },
            };
        }
        if entries.len() >= MAX_KEYS {
            if let Some(oldest) = entries
                .iter()
                .min_by_key(|(_, e)| e.at)
                .map(|(k, _)| k.clone())
            {
                entries.remove(&oldest);
            }
        }
        entries.insert(
            k,
            Entry {
                request: request.clone(),
                slot: Slot::Running,
                at: now,
            },
        );
        Claim::Run
    }

    /// Stores the response of a claimed key.
    pub fn complete(&self, key_id: &str, idem_key: &str, status: u16, body: Value) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = entries.get_mut(&(key_id.to_owned(), idem_key.to_owned())) {
            e.slot = Slot::Done { status, body };
        }
    }

    /// Forgets a claimed key whose request was refused before anything ran, so a
    /// corrected retry with the same key is not blocked.
    pub fn release(&self, key_id: &str, idem_key: &str) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.remove(&(key_id.to_owned(), idem_key.to_owned()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn run_conflict_replay_reused() {
        let store = Store::default();
        let req = json!({"action": "send_email"});
        assert_eq!(store.claim("k", "i1", &req), Claim::Run);
        assert_eq!(store.claim("k", "i1", &req), Claim::Conflict);
        store.complete("k", "i1", 200, json!({"success": true}));
        assert_eq!(
            store.claim("k", "i1", &req),
            Claim::Replay {
                status: 200,
                body: json!({"success": true})
            }
        );
        assert_eq!(
            store.claim("k", "i1", &json!({"action": "other"})),
            Claim::Reused
        );
        // Another agent key has its own namespace.
        assert_eq!(
            store.claim("k2", "i1", &json!({"action": "other"})),
            Claim::Run
        );
    }
}

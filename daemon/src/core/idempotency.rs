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
enum Slot<A> {
    Running,
    Done(A),
}

#[derive(Debug)]
struct Entry<A> {
    request: Value,
    slot: Slot<A>,
    at: Instant,
}

/// The first answer to an action request with a key, replayed as it was given: the
/// response or the error, and the id of the request that got it (its error body
/// names that request).
#[derive(Debug, Clone)]
pub struct FirstAnswer {
    pub result:
        Result<std::sync::Arc<nsp_protocol::api::ActionResponse>, crate::core::error::CoreError>,
    pub request_id: String,
}

/// What to do with a request that carries a key.
#[derive(Debug, PartialEq)]
pub enum Claim<A> {
    /// First time: run it, then call [`Store::complete`].
    Run,
    /// Done before with the same request: answer this.
    Replay(A),
    /// Still running.
    Conflict,
    /// Used before for a different request.
    Reused,
}

/// Keys per agent key id, each with the first answer `A` (as the core gave it: each
/// door encodes a replay as it encoded the first answer).
#[derive(Debug)]
pub struct Store<A> {
    entries: Mutex<HashMap<(String, String), Entry<A>>>,
}

impl<A> Default for Store<A> {
    fn default() -> Self {
        Store {
            entries: Mutex::default(),
        }
    }
}

impl<A: Clone> Store<A> {
    pub fn claim(&self, key_id: &str, idem_key: &str, request: &Value) -> Claim<A> {
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
                Slot::Done(answer) => Claim::Replay(answer.clone()),
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
    pub fn complete(&self, key_id: &str, idem_key: &str, answer: A) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(e) = entries.get_mut(&(key_id.to_owned(), idem_key.to_owned())) {
            e.slot = Slot::Done(answer);
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
        store.complete("k", "i1", (200, json!({"success": true})));
        assert_eq!(
            store.claim("k", "i1", &req),
            Claim::Replay((200, json!({"success": true})))
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

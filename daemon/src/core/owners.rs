//! Which agent owns which tab, and which tabs the person shared with which agent.
//!
//! A tab an agent opens is its own (the extension puts it in a tab group named after
//! the agent); the person can share any tab with an agent from the popup. A tab is
//! known by its browser session (the extension's instance id) and Chrome's tab id, which
//! both outlive a restart of nspd or of the extension's service worker, so the claims
//! are kept in `<data dir>/owners.json` (only nspd writes it) and hold again after either
//! restarts. A closed tab, or a tab taken out of its agent's group, loses its claims.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::core::filestore;

pub const OWNERS_FILE: &str = "owners.json";

/// One tab's claims.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Claims {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub shared_with: BTreeSet<String>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct FileBody {
    version: u32,
    /// By `instance_id/tab_id`.
    tabs: BTreeMap<String, Claims>,
}

/// The claims; one per nspd.
#[derive(Debug)]
pub struct Owners {
    path: PathBuf,
    tabs: Mutex<BTreeMap<String, Claims>>,
}

fn tab_key(instance_id: &str, tab_id: i64) -> String {
    format!("{instance_id}/{tab_id}")
}

impl Owners {
    /// The claims kept in `data_dir` (none when the file is missing or unreadable: a
    /// lost claim hides a tab from an agent, it never shows one).
    pub fn open(data_dir: &Path) -> Owners {
        let path = data_dir.join(OWNERS_FILE);
        let tabs = match filestore::read(&path) {
            Ok(Some((text, _))) => match serde_json::from_str::<FileBody>(&text) {
                Ok(body) => body.tabs,
                Err(e) => {
                    tracing::warn!(path = %path.display(), error = %e, "cannot read the tab claims; starting with none");
                    BTreeMap::new()
                }
            },
            Ok(None) => BTreeMap::new(),
            Err(e) => {
                tracing::warn!(path = %path.display(), error = %e, "cannot read the tab claims; starting with none");
                BTreeMap::new()
            }
        };
        Owners {
            path,
            tabs: Mutex::new(tabs),
        }
    }

    /// The claims on one tab.
    pub fn claims(&self, instance_id: &str, tab_id: i64) -> Option<Claims> {
        self.lock().get(&tab_key(instance_id, tab_id)).cloned()
    }

    /// Whether `agent` owns the tab or has it shared (`shared` counts only when asked).
    pub fn holds(&self, instance_id: &str, tab_id: i64, agent: &str, shared: bool) -> bool {
        self.lock()
            .get(&tab_key(instance_id, tab_id))
            .is_some_and(|c| {
                c.owner.as_deref() == Some(agent) || (shared && c.shared_with.contains(agent))
            })
    }

    /// `agent` opened the tab: it owns it.
    pub fn claim(&self, instance_id: &str, tab_id: i64, agent: &str) {
        self.change(|tabs| {
            tabs.entry(tab_key(instance_id, tab_id)).or_default().owner = Some(agent.to_owned());
        });
    }

    /// The person shared the tab with `agent` (`share`), or took it back.
    pub fn share(&self, instance_id: &str, tab_id: i64, agent: &str, share: bool) {
        self.change(|tabs| {
            let key = tab_key(instance_id, tab_id);
            let claims = tabs.entry(key.clone()).or_default();
            if share {
                claims.shared_with.insert(agent.to_owned());
            } else {
                claims.shared_with.remove(agent);
            }
            if claims == &Claims::default() {
                tabs.remove(&key);
            }
        });
    }

    /// The tab closed, or left its agent's group: its owner's claim ends (`owner_only`)
    /// or every claim does.
    pub fn release(&self, instance_id: &str, tab_id: i64, owner_only: bool) {
        self.change(|tabs| {
            let key = tab_key(instance_id, tab_id);
            if owner_only {
                if let Some(c) = tabs.get_mut(&key) {
                    c.owner = None;
                    if c.shared_with.is_empty() {
                        tabs.remove(&key);
                    }
                }
            } else {
                tabs.remove(&key);
            }
        });
    }

    /// An agent was revoked: none of its claims hold.
    pub fn forget_agent(&self, agent: &str) {
        self.change(|tabs| {
            tabs.retain(|_, c| {
                if c.owner.as_deref() == Some(agent) {
                    c.owner = None;
                }
                c.shared_with.remove(agent);
                c != &Claims::default()
            });
        });
    }

    /// Every claim, by `instance_id/tab_id`.
    pub fn all(&self) -> BTreeMap<String, Claims> {
        self.lock().clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Claims>> {
        self.tabs.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Changes the claims and writes them (a failed write is logged: the claims in
    /// memory still hold until nspd restarts).
    fn change(&self, f: impl FnOnce(&mut BTreeMap<String, Claims>)) {
        let mut tabs = self.lock();
        let before = tabs.clone();
        f(&mut tabs);
        if *tabs == before {
            return;
        }
        let body = FileBody {
            version: 1,
            tabs: tabs.clone(),
        };
        let text = serde_json::to_string_pretty(&body).unwrap_or_default() + "\n";
        if let Err(e) = filestore::write_atomic(&self.path, &text) {
            tracing::warn!(path = %self.path.display(), error = %e, "cannot save the tab claims");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_survive_a_restart_and_end_with_the_tab_or_the_agent() {
        let dir = tempfile::tempdir().expect("tempdir");
        let owners = Owners::open(dir.path());
        owners.claim("i1", 7, "research");
        owners.share("i1", 8, "research", true);
        owners.share("i1", 8, "coder", true);
        let again = Owners::open(dir.path());
        assert!(again.holds("i1", 7, "research", false));
        assert!(!again.holds("i1", 7, "coder", true));
        assert!(
            !again.holds("i2", 7, "research", true),
            "another browser session"
        );
        assert!(again.holds("i1", 8, "research", true));
        assert!(
            !again.holds("i1", 8, "research", false),
            "shared is not owned"
        );
        again.share("i1", 8, "coder", false);
        assert!(!again.holds("i1", 8, "coder", true));
        again.forget_agent("research");
        assert!(!again.holds("i1", 7, "research", false));
        assert!(again.all().is_empty(), "{:?}", again.all());
        again.claim("i1", 9, "coder");
        again.release("i1", 9, false);
        assert!(Owners::open(dir.path()).all().is_empty());
    }
}

//! The corrections store: per origin and action, what a person (or, stricter only, an
//! agent) said about an action's tier or confidence. Kept in
//! `<data dir>/corrections.json` and pushed to the extension, whose probe applies them
//! as declared-level evidence (docs/safety.md, "Corrections").
//!
//! nspd and the `nspd corrections` command line share the file. Every change takes an
//! exclusive lock on `corrections.lock`, reads the file afresh, changes it and replaces
//! it atomically (a temporary file renamed over it), so neither side loses the other's
//! change. A running nspd polls the file's identity ([`POLL_INTERVAL`]) and pushes what
//! another process changed, so `nspd corrections remove` takes effect without a restart
//! and without an HTTP route that would let an agent remove a person's correction.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use nsp_protocol::approval::{Correction, CorrectionSource};
use nsp_protocol::Reversibility;
use serde::{Deserialize, Serialize};
use tokio::sync::watch;

use crate::core::filestore::{self, stamp_of, Stamp};

pub const CORRECTIONS_FILE: &str = "corrections.json";
const LOCK_FILE: &str = "corrections.lock";
pub use crate::core::filestore::POLL_INTERVAL;
/// The most corrections kept: the whole list travels to the extension in one message.
pub const MAX_CORRECTIONS: usize = 2_000;
/// The longest action name a correction may name.
const MAX_ACTION_LEN: usize = 200;

/// Why the store could not be read or changed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot use {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not a corrections file ({reason}); fix or remove it")]
    Malformed { path: PathBuf, reason: String },
    #[error("{0}")]
    Invalid(String),
    #[error("there are already {MAX_CORRECTIONS} corrections; remove some first")]
    Full,
}

/// The file's shape.
#[derive(Debug, Default, Serialize, Deserialize)]
struct FileBody {
    version: u32,
    corrections: Vec<Correction>,
}

#[derive(Debug)]
struct Inner {
    dir: PathBuf,
    /// Serialises changes within this process (the file lock covers other processes).
    state: Mutex<Stamp>,
    tx: watch::Sender<Arc<Vec<Correction>>>,
}

/// A handle on the store; clones share it.
#[derive(Debug, Clone)]
pub struct Corrections {
    inner: Arc<Inner>,
}

impl Corrections {
    /// Opens the store in `data_dir` (an absent file is an empty store).
    pub fn open(data_dir: &Path) -> Result<Corrections, StoreError> {
        let path = data_dir.join(CORRECTIONS_FILE);
        let (list, stamp) = read(&path)?;
        let (tx, _) = watch::channel(Arc::new(list));
        Ok(Corrections {
            inner: Arc::new(Inner {
                dir: data_dir.to_owned(),
                state: Mutex::new(stamp),
                tx,
            }),
        })
    }

    pub fn path(&self) -> PathBuf {
        self.inner.dir.join(CORRECTIONS_FILE)
    }

    /// Every correction, oldest first.
    pub fn list(&self) -> Vec<Correction> {
        self.inner.tx.borrow().as_ref().clone()
    }

    /// The corrections of one origin.
    pub fn for_origin(&self, origin: &str) -> Vec<Correction> {
        self.inner
            .tx
            .borrow()
            .iter()
            .filter(|c| c.origin == origin)
            .cloned()
            .collect()
    }

    /// Sees every change, made here or by another process (once [`Self::watch_file`]
    /// runs).
    pub fn subscribe(&self) -> watch::Receiver<Arc<Vec<Correction>>> {
        self.inner.tx.subscribe()
    }

    /// Stores `c`, replacing the correction of the same origin, action and source (a
    /// person's new word replaces their old one; an agent's is merged by the caller,
    /// `learn`, so it never loosens what an agent said before). Returns what was stored.
    pub fn add(&self, c: Correction) -> Result<Correction, StoreError> {
        validate(&c)?;
        self.change(|list| {
            list.retain(|o| !(o.origin == c.origin && o.action == c.action && o.by == c.by));
            if list.len() >= MAX_CORRECTIONS {
                return Err(StoreError::Full);
            }
            list.push(c.clone());
            Ok(c.clone())
        })
    }

    /// The person's "always allow this action on this site": a trusted correction,
    /// keeping a tier the person set before for the same action.
    pub fn add_trusted(
        &self,
        origin: &str,
        action: &str,
        by: CorrectionSource,
    ) -> Result<Correction, StoreError> {
        let tier = self
            .list()
            .into_iter()
            .find(|o| o.origin == origin && o.action == action && o.by == by)
            .and_then(|o| o.tier);
        self.add(new_correction(origin, action, tier, true, None, by, None))
    }

    /// Applies the agents' corrections for the state's origin to the state the gate
    /// reads: a higher tier, a lower confidence ceiling. The probe applies them too, but
    /// nspd does not rely on an extension it cannot see (an old one, or a worker that
    /// has not received the list yet): what an agent made stricter stays stricter.
    /// The person's corrections loosen as well as tighten, so they stay the probe's to
    /// apply, from its evidence.
    ///
    /// The state is shared with the hub; it is copied only when a correction changes
    /// it (a read of a page without agents' corrections copies nothing).
    pub fn enforce_agents(&self, state: &mut std::sync::Arc<nsp_protocol::SubstrateState>) {
        let Some(origin) = state.context.url.as_deref().and_then(origin_of) else {
            return;
        };
        for c in self.for_origin(&origin) {
            if c.by != CorrectionSource::Agent {
                continue;
            }
            let Some(current) = state.actions.get(&c.action) else {
                continue;
            };
            let tier = c.tier.filter(|t| *t > current.reversibility);
            let ceiling = c.max_confidence.filter(|m| *m < current.confidence);
            if tier.is_none() && ceiling.is_none() {
                continue;
            }
            let Some(action) = std::sync::Arc::make_mut(state).actions.get_mut(&c.action) else {
                continue;
            };
            if let Some(tier) = tier {
                action.reversibility = tier;
            }
            if let Some(ceiling) = ceiling {
                action.confidence = ceiling;
            }
        }
    }

    /// Removes the correction with this id; false when there was none.
    pub fn remove(&self, id: &str) -> Result<bool, StoreError> {
        self.change(|list| {
            let before = list.len();
            list.retain(|c| c.id != id);
            Ok(list.len() != before)
        })
    }

    /// Reads the file again when another process replaced it, and publishes what
    /// changed. Returns whether the list changed.
    pub fn reload_if_changed(&self) -> Result<bool, StoreError> {
        let path = self.path();
        let mut stamp = self.inner.state.lock().unwrap_or_else(|e| e.into_inner());
        if stamp_of(&path) == *stamp {
            return Ok(false);
        }
        let (list, new_stamp) = read(&path)?;
        *stamp = new_stamp;
        Ok(self.publish(list))
    }

    /// Polls the file until the last handle on the store is gone.
    pub fn watch_file(&self) {
        filestore::watch(&self.inner, |inner| {
            let store = Corrections { inner };
            if let Err(e) = store.reload_if_changed() {
                // Logged once per version of the file, not on every poll.
                tracing::warn!(error = %e, "cannot reload the corrections; keeping the last good ones");
                let mut stamp = store.inner.state.lock().unwrap_or_else(|e| e.into_inner());
                *stamp = stamp_of(&store.path());
            }
        });
    }

    fn publish(&self, list: Vec<Correction>) -> bool {
        self.inner.tx.send_if_modified(|cur| {
            if **cur == list {
                false
            } else {
                *cur = Arc::new(list);
                true
            }
        })
    }

    /// Read, change, write under both locks.
    fn change<T>(
        &self,
        f: impl FnOnce(&mut Vec<Correction>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let path = self.path();
        let mut stamp = self.inner.state.lock().unwrap_or_else(|e| e.into_inner());
        let ((out, list), new_stamp) =
            filestore::rewrite(&self.inner.dir, LOCK_FILE, &path, io_error, |text| {
                let mut list = parse(&path, text)?;
                let out = f(&mut list)?;
                Ok((to_text(&list)?, (out, list)))
            })?;
        *stamp = new_stamp;
        self.publish(list);
        Ok(out)
    }
}

/// A new correction with a fresh id and the current time.
pub fn new_correction(
    origin: &str,
    action: &str,
    tier: Option<Reversibility>,
    trusted: bool,
    max_confidence: Option<f64>,
    by: CorrectionSource,
    key_id: Option<String>,
) -> Correction {
    Correction {
        id: uuid::Uuid::now_v7().to_string(),
        origin: origin.to_owned(),
        action: action.to_owned(),
        tier,
        trusted,
        max_confidence,
        by,
        key_id,
        created_at: crate::core::util::now_rfc3339(),
    }
}

fn validate(c: &Correction) -> Result<(), StoreError> {
    if origin_of(&c.origin).as_deref() != Some(c.origin.as_str()) {
        return Err(StoreError::Invalid(format!(
            "{:?} is not an origin (scheme://host[:port], http or https, lowercase, no path)",
            c.origin
        )));
    }
    if c.action.is_empty() || c.action.len() > MAX_ACTION_LEN {
        return Err(StoreError::Invalid(format!(
            "the action name must have 1 to {MAX_ACTION_LEN} bytes"
        )));
    }
    if let Some(m) = c.max_confidence {
        if !(0.0..=1.0).contains(&m) {
            return Err(StoreError::Invalid(format!(
                "max_confidence {m} is not between 0 and 1"
            )));
        }
    }
    if c.tier.is_none() && !c.trusted && c.max_confidence.is_none() {
        return Err(StoreError::Invalid(
            "a correction sets a tier, trusted, or a confidence ceiling".into(),
        ));
    }
    Ok(())
}

/// The origin of an http(s) URL as browsers write it (`URL.origin`): lowercase scheme
/// and host, the port only when it is not the scheme's default. `None` for anything
/// else.
pub fn origin_of(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    let default_port = match scheme.as_str() {
        "http" => "80",
        "https" => "443",
        _ => return None,
    };
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if authority.is_empty() {
        return None;
    }
    // An IPv6 literal keeps its brackets; the port follows the last colon after them.
    let (host, port) = match authority.rfind(':') {
        Some(i) if !authority[i..].contains(']') => (&authority[..i], Some(&authority[i + 1..])),
        _ => (authority, None),
    };
    if host.is_empty() || host.contains(|ch: char| ch.is_whitespace()) {
        return None;
    }
    let host = host.to_ascii_lowercase();
    match port {
        None | Some("") => Some(format!("{scheme}://{host}")),
        Some(p) if p == default_port => Some(format!("{scheme}://{host}")),
        Some(p) if p.bytes().all(|b| b.is_ascii_digit()) && p.parse::<u16>().is_ok() => {
            Some(format!("{scheme}://{host}:{}", p.parse::<u16>().ok()?))
        }
        Some(_) => None,
    }
}

fn io_error(path: PathBuf, source: std::io::Error) -> StoreError {
    StoreError::Io { path, source }
}

fn read(path: &Path) -> Result<(Vec<Correction>, Stamp), StoreError> {
    match filestore::read(path).map_err(|e| io_error(path.to_owned(), e))? {
        Some((text, stamp)) => Ok((parse(path, Some(text))?, stamp)),
        None => Ok((Vec::new(), None)),
    }
}

fn parse(path: &Path, text: Option<String>) -> Result<Vec<Correction>, StoreError> {
    let Some(text) = text else {
        return Ok(Vec::new());
    };
    let body: FileBody = serde_json::from_str(&text).map_err(|e| StoreError::Malformed {
        path: path.to_owned(),
        reason: e.to_string(),
    })?;
    Ok(body.corrections)
}

/// The file's text for `list`.
fn to_text(list: &[Correction]) -> Result<String, StoreError> {
    let body = FileBody {
        version: 1,
        corrections: list.to_vec(),
    };
    let text =
        serde_json::to_string_pretty(&body).map_err(|e| StoreError::Invalid(e.to_string()))?;
    Ok(text + "\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn person(origin: &str, action: &str, tier: Reversibility) -> Correction {
        new_correction(
            origin,
            action,
            Some(tier),
            false,
            None,
            CorrectionSource::Person,
            None,
        )
    }

    #[test]
    fn origins_as_browsers_write_them() {
        assert_eq!(
            origin_of("http://127.0.0.1:8080/mail?x=1").as_deref(),
            Some("http://127.0.0.1:8080")
        );
        assert_eq!(
            origin_of("HTTPS://Mail.Example.com:443/").as_deref(),
            Some("https://mail.example.com")
        );
        assert_eq!(
            origin_of("http://user@host:80#x").as_deref(),
            Some("http://host")
        );
        assert_eq!(
            origin_of("http://[::1]:9000/").as_deref(),
            Some("http://[::1]:9000")
        );
        assert_eq!(origin_of("file:///etc/passwd"), None);
        assert_eq!(origin_of("http://host:99999/"), None);
        assert_eq!(origin_of("http:///x"), None);
    }

    #[test]
    fn add_list_remove_persist_and_mode() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Corrections::open(dir.path()).expect("open");
        assert!(store.list().is_empty());
        let a = store
            .add(person(
                "http://127.0.0.1:1",
                "archive",
                Reversibility::IrreversibleWrite,
            ))
            .expect("add");
        // The same person, same action: replaced, not duplicated.
        let b = store
            .add(person("http://127.0.0.1:1", "archive", Reversibility::Read))
            .expect("add again");
        let c = store
            .add_trusted("http://127.0.0.1:1", "send", CorrectionSource::Person)
            .expect("trusted");
        let list = store.list();
        assert_eq!(list.len(), 2, "{list:?}");
        assert!(!list.iter().any(|x| x.id == a.id));
        assert!(
            uuid::Uuid::parse_str(&b.id)
                .expect("uuid")
                .get_version_num()
                == 7
        );
        assert!(time::OffsetDateTime::parse(
            &b.created_at,
            &time::format_description::well_known::Rfc3339
        )
        .is_ok());
        let mode = std::fs::metadata(store.path())
            .expect("file")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        // Another process (a second handle) sees it from the file.
        let again = Corrections::open(dir.path()).expect("reopen");
        assert_eq!(again.list(), store.list());
        assert!(again.remove(&c.id).expect("remove"));
        assert!(!again.remove(&c.id).expect("remove twice"));
        // The first handle notices the other's change.
        let mut rx = store.subscribe();
        assert!(store.reload_if_changed().expect("reload"));
        assert!(rx.has_changed().expect("watch"));
        assert_eq!(
            rx.borrow_and_update()
                .iter()
                .map(|x| x.id.clone())
                .collect::<Vec<_>>(),
            vec![b.id.clone()]
        );
        assert!(!store.reload_if_changed().expect("reload twice"));
        // And no temporary file is left behind.
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .expect("dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            names.iter().all(|n| !n.starts_with(".corrections.")),
            "{names:?}"
        );
    }

    #[test]
    fn a_change_by_another_handle_is_not_lost() {
        // Two handles (nspd and the CLI): each change reads the file first.
        let dir = tempfile::tempdir().expect("tempdir");
        let one = Corrections::open(dir.path()).expect("open");
        let two = Corrections::open(dir.path()).expect("open");
        one.add(person("http://a.test", "x", Reversibility::Read))
            .expect("add");
        two.add(person("http://a.test", "y", Reversibility::Read))
            .expect("add");
        let three = Corrections::open(dir.path()).expect("open");
        assert_eq!(three.list().len(), 2);
    }

    #[test]
    fn refuses_what_is_not_a_correction() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Corrections::open(dir.path()).expect("open");
        let mut c = person("http://a.test/path", "x", Reversibility::Read);
        assert!(matches!(store.add(c.clone()), Err(StoreError::Invalid(_))));
        c.origin = "http://a.test".into();
        c.tier = None;
        assert!(matches!(store.add(c.clone()), Err(StoreError::Invalid(_))));
        c.max_confidence = Some(1.5);
        assert!(matches!(store.add(c), Err(StoreError::Invalid(_))));
        std::fs::write(dir.path().join(CORRECTIONS_FILE), "not json").expect("write");
        assert!(matches!(
            Corrections::open(dir.path()),
            Err(StoreError::Malformed { .. })
        ));
    }
}

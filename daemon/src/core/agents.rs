//! Agents and their scopes: who holds which key, and what that key may read and do.
//!
//! The key in `agent.key` is the **default** agent, with the full scope it always had,
//! so every existing client keeps working. `nspd agents add NAME …` makes another: a
//! fresh key in `agents/NAME.key` (0600) and a record in `agents.json` with its scope
//! and the SHA-256 of its key (never the key). nspd and the command line share the file
//! by [`crate::core::filestore`]'s discipline; a running nspd polls it, so an added or
//! revoked agent counts within [`filestore::POLL_INTERVAL`]. The scope is applied in one place,
//! [`crate::core::access`], for every door (docs/safety.md, "Several agents").

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::{Arc, Mutex};

use nsp_protocol::channel::TabGroup;
use nsp_protocol::Reversibility;
use serde::{Deserialize, Serialize};

use crate::core::auth::{self, AgentKey, KeyError};
use crate::core::filestore::{self, stamp_of, Stamp};

pub const AGENTS_FILE: &str = "agents.json";
const LOCK_FILE: &str = "agents.lock";
/// The directory of the agents' key files, inside the data dir.
pub const KEYS_DIR: &str = "agents";
/// The name of the agent whose key is `agent.key`.
pub const DEFAULT_AGENT: &str = "default";
/// The most agents one nspd keeps.
pub const MAX_AGENTS: usize = 64;

/// Which tabs an agent sees (within its origins).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TabsScope {
    /// Only the tabs it opened.
    Own,
    /// The tabs it opened and those the person shared with it.
    Shared,
    /// Every tab.
    All,
}

/// When an agent's actions go to the person.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentAsk {
    /// As the daemon does: an action only its confidence floor refuses may be put to
    /// the person.
    BelowFloor,
    /// Every write, even one the gate clears, waits for the person.
    Always,
    /// Nothing is put to the person: under the floor is refused.
    Never,
}

/// An origin an agent may touch: `https://app.example.com`, or with a `*.` before the
/// host, that domain and every subdomain of it (`https://*.example.com` also matches
/// `https://example.com`), as Chrome's match patterns do. The port is the scheme's
/// default unless written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OriginPattern {
    scheme: String,
    host: String,
    subdomains: bool,
    port: u16,
}

impl OriginPattern {
    /// Whether the page at `url` is in this origin.
    pub fn matches(&self, url: &url::Url) -> bool {
        if url.scheme() != self.scheme || url.port_or_known_default() != Some(self.port) {
            return false;
        }
        let Some(host) = url.host_str() else {
            return false;
        };
        host == self.host
            || (self.subdomains
                && host.len() > self.host.len()
                && host.ends_with(&self.host)
                && host.as_bytes()[host.len() - self.host.len() - 1] == b'.')
    }
}

impl FromStr for OriginPattern {
    type Err = String;

    fn from_str(raw: &str) -> Result<OriginPattern, String> {
        let bad = |why: &str| {
            format!("{raw:?} is not an origin pattern ({why}); write scheme://host[:port], e.g. https://mail.example.com or https://*.example.com")
        };
        let (subdomains, text) = match raw.split_once("://*.") {
            Some((scheme, rest)) => (true, format!("{scheme}://{rest}")),
            None => (false, raw.to_owned()),
        };
        let url = url::Url::parse(&text).map_err(|e| bad(&e.to_string()))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(bad("only http and https"));
        }
        if url.path() != "/" || url.query().is_some() || url.fragment().is_some() {
            return Err(bad("no path, query or fragment"));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(bad("no user or password"));
        }
        let host = url.host_str().ok_or_else(|| bad("no host"))?.to_owned();
        if host.contains('*') {
            return Err(bad("a wildcard only as `*.` before the host"));
        }
        if subdomains && !host.contains('.') {
            return Err(bad("`*.` needs a domain of at least two labels"));
        }
        Ok(OriginPattern {
            scheme: url.scheme().to_owned(),
            port: url.port_or_known_default().ok_or_else(|| bad("no port"))?,
            host,
            subdomains,
        })
    }
}

impl std::fmt::Display for OriginPattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let default = if self.scheme == "https" { 443 } else { 80 };
        let star = if self.subdomains { "*." } else { "" };
        write!(f, "{}://{star}{}", self.scheme, self.host)?;
        if self.port != default {
            write!(f, ":{}", self.port)?;
        }
        Ok(())
    }
}

impl Serialize for OriginPattern {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for OriginPattern {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<OriginPattern, D::Error> {
        let raw = String::deserialize(d)?;
        raw.parse().map_err(serde::de::Error::custom)
    }
}

/// What an agent may touch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scope {
    /// The origins it may see and act on; empty: every origin.
    #[serde(default)]
    pub origins: Vec<OriginPattern>,
    /// The highest tier it may run.
    pub max_tier: Reversibility,
    pub tabs: TabsScope,
    pub ask: AgentAsk,
    /// Its own ceiling on actions, besides the daemon's per-key limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actions_per_minute: Option<u32>,
}

impl Scope {
    /// The default agent's: everything, as before there were agents.
    pub fn full() -> Scope {
        Scope {
            origins: Vec::new(),
            max_tier: Reversibility::IrreversibleWrite,
            tabs: TabsScope::All,
            ask: AgentAsk::BelowFloor,
            actions_per_minute: None,
        }
    }

    /// Whether the page at `url` is in the agent's origins (a tab with no URL yet is in
    /// only an agent without origins).
    pub fn allows_url(&self, url: Option<&str>) -> bool {
        if self.origins.is_empty() {
            return true;
        }
        let Some(url) = url.and_then(|u| url::Url::parse(u).ok()) else {
            return false;
        };
        self.origins.iter().any(|o| o.matches(&url))
    }

    /// Whether the agent may run an action of `tier`.
    pub fn allows_tier(&self, tier: Reversibility) -> bool {
        tier_rank(tier) <= tier_rank(self.max_tier)
    }
}

fn tier_rank(t: Reversibility) -> u8 {
    match t {
        Reversibility::Read => 0,
        Reversibility::ReversibleWrite => 1,
        Reversibility::IrreversibleWrite => 2,
    }
}

/// The tab group of an agent's tabs: its name, and a colour of Chrome's nine chosen by
/// the name, so an agent keeps its colour across restarts.
pub fn group_of(agent: &str) -> TabGroup {
    const COLORS: [&str; 9] = [
        "blue", "red", "yellow", "green", "pink", "purple", "cyan", "orange", "grey",
    ];
    let sum = agent
        .bytes()
        .fold(0usize, |h, b| h.wrapping_mul(31).wrapping_add(b as usize));
    TabGroup {
        title: agent.to_owned(),
        color: COLORS[sum % COLORS.len()].to_owned(),
    }
}

/// How many last actions are kept per agent.
const LAST_ACTIONS: usize = 5;

/// Each agent's last actions, newest first.
#[derive(Debug, Default)]
pub struct LastActions {
    by_agent: Mutex<HashMap<String, VecDeque<String>>>,
}

impl LastActions {
    pub fn note(&self, agent: &str, line: String) {
        let mut all = self.by_agent.lock().unwrap_or_else(|e| e.into_inner());
        let list = all.entry(agent.to_owned()).or_default();
        list.push_front(line);
        list.truncate(LAST_ACTIONS);
    }

    pub fn of(&self, agent: &str) -> Vec<String> {
        let all = self.by_agent.lock().unwrap_or_else(|e| e.into_inner());
        all.get(agent)
            .map(|l| l.iter().cloned().collect())
            .unwrap_or_default()
    }
}

/// One agent, as requests meet it.
#[derive(Debug, Clone, PartialEq)]
pub struct Agent {
    pub name: String,
    /// A short, non-reversible id of its key (logs, limits, idempotency).
    pub key_id: String,
    pub scope: Scope,
    /// The SHA-256 of its key, to tell a revoked-and-added-again agent from the old one.
    fingerprint: String,
}

impl Agent {
    pub fn is_default(&self) -> bool {
        self.name == DEFAULT_AGENT
    }
}

/// One agent as `agents.json` keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentRecord {
    pub name: String,
    /// SHA-256 of the key, hex.
    pub key_sha256: String,
    #[serde(flatten)]
    pub scope: Scope,
    pub created_at: String,
}

impl AgentRecord {
    fn agent(&self) -> Agent {
        Agent {
            name: self.name.clone(),
            key_id: self.key_sha256.get(..12).unwrap_or_default().to_owned(),
            scope: self.scope.clone(),
            fingerprint: self.key_sha256.clone(),
        }
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct FileBody {
    version: u32,
    agents: Vec<AgentRecord>,
}

/// Why the agents could not be read or changed.
#[derive(Debug, thiserror::Error)]
pub enum AgentsError {
    #[error("cannot use {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not an agents file ({reason}); fix or remove it")]
    Malformed { path: PathBuf, reason: String },
    #[error(transparent)]
    Key(#[from] KeyError),
    #[error("{0}")]
    Invalid(String),
}

/// The agents as one version of the file had them, by key fingerprint.
#[derive(Debug, Default)]
struct Snapshot {
    by_fingerprint: BTreeMap<String, Arc<Agent>>,
    records: Vec<AgentRecord>,
}

#[derive(Debug)]
struct Inner {
    dir: PathBuf,
    default: Arc<Agent>,
    /// The last version read, and its stamp (the in-process change lock too).
    current: Mutex<(Stamp, Arc<Snapshot>)>,
}

/// A handle on the agents; clones share it.
#[derive(Debug, Clone)]
pub struct Agents {
    inner: Arc<Inner>,
}

impl Agents {
    /// Opens the agents of `data_dir`; `default_key` is `agent.key`'s.
    pub fn open(data_dir: &Path, default_key: &AgentKey) -> Result<Agents, AgentsError> {
        let path = data_dir.join(AGENTS_FILE);
        let (records, stamp) = read(&path)?;
        Ok(Agents {
            inner: Arc::new(Inner {
                dir: data_dir.to_owned(),
                default: Arc::new(Agent {
                    name: DEFAULT_AGENT.to_owned(),
                    key_id: default_key.id(),
                    scope: Scope::full(),
                    fingerprint: default_key.fingerprint(),
                }),
                current: Mutex::new((stamp, Arc::new(snapshot(records)))),
            }),
        })
    }

    pub fn path(&self) -> PathBuf {
        self.inner.dir.join(AGENTS_FILE)
    }

    /// The default agent (`agent.key`).
    pub fn default_agent(&self) -> Arc<Agent> {
        self.inner.default.clone()
    }

    /// The agent whose key is `presented`, other than the default one.
    pub fn by_key(&self, presented: &str) -> Option<Arc<Agent>> {
        let fingerprint = auth::fingerprint(presented);
        self.snapshot().by_fingerprint.get(&fingerprint).cloned()
    }

    /// Whether `agent` still holds: the default one always; another until it is revoked
    /// (or revoked and added again with a new key).
    pub fn is_current(&self, agent: &Agent) -> bool {
        agent.is_default()
            || self
                .snapshot()
                .by_fingerprint
                .get(&agent.fingerprint)
                .is_some_and(|a| a.name == agent.name)
    }

    /// An agent by name (the default one too), as it is now.
    pub fn get(&self, name: &str) -> Option<Arc<Agent>> {
        if name == DEFAULT_AGENT {
            return Some(self.default_agent());
        }
        self.snapshot()
            .by_fingerprint
            .values()
            .find(|a| a.name == name)
            .cloned()
    }

    /// Every agent's record, oldest first (not the default one).
    pub fn list(&self) -> Vec<AgentRecord> {
        self.snapshot().records.clone()
    }

    fn snapshot(&self) -> Arc<Snapshot> {
        self.inner
            .current
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .1
            .clone()
    }

    /// Adds agent `name` with `scope`: a fresh key in `agents/NAME.key` (0600), whose
    /// path is returned (never the key).
    pub fn add(&self, name: &str, scope: Scope) -> Result<PathBuf, AgentsError> {
        check_name(name)?;
        if scope.actions_per_minute == Some(0) {
            return Err(AgentsError::Invalid(
                "--actions-per-minute must be at least 1".into(),
            ));
        }
        let keys = self.inner.dir.join(KEYS_DIR);
        auth::ensure_private_dir(&keys)?;
        let key_path = keys.join(format!("{name}.key"));
        self.change(|records| {
            if records.iter().any(|r| r.name == name) {
                return Err(AgentsError::Invalid(format!(
                    "there is already an agent {name:?}; `nspd agents revoke {name}` first to give it a new key or scope"
                )));
            }
            if records.len() >= MAX_AGENTS {
                return Err(AgentsError::Invalid(format!(
                    "there are already {MAX_AGENTS} agents; revoke some first"
                )));
            }
            // A key file left by an agent of this name revoked earlier is not reused.
            match std::fs::remove_file(&key_path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(source) => {
                    return Err(AgentsError::Io {
                        path: key_path.clone(),
                        source,
                    })
                }
            }
            let key = AgentKey::load_or_create_at(key_path.clone())?;
            records.push(AgentRecord {
                name: name.to_owned(),
                key_sha256: key.fingerprint(),
                scope,
                created_at: crate::core::util::now_rfc3339(),
            });
            Ok(())
        })?;
        Ok(key_path)
    }

    /// Revokes agent `name`: its record and its key file go; its next request is
    /// refused. Returns whether there was one.
    pub fn revoke(&self, name: &str) -> Result<bool, AgentsError> {
        if name == DEFAULT_AGENT {
            return Err(AgentsError::Invalid(
                "the default agent is agent.key's; to stop it, delete agent.key and restart nspd (it makes a new one)".into(),
            ));
        }
        let removed = self.change(|records| {
            let before = records.len();
            records.retain(|r| r.name != name);
            Ok(records.len() != before)
        })?;
        let key_path = self.inner.dir.join(KEYS_DIR).join(format!("{name}.key"));
        if removed {
            let _ = std::fs::remove_file(key_path);
        }
        Ok(removed)
    }

    /// Reads the file again when another process replaced it. Returns whether it did.
    pub fn reload_if_changed(&self) -> Result<bool, AgentsError> {
        let path = self.path();
        let mut current = self.inner.current.lock().unwrap_or_else(|e| e.into_inner());
        if stamp_of(&path) == current.0 {
            return Ok(false);
        }
        let (records, stamp) = match read(&path) {
            Ok(r) => r,
            Err(e) => {
                // Logged once per version of the file, not on every poll.
                current.0 = stamp_of(&path);
                return Err(e);
            }
        };
        *current = (stamp, Arc::new(snapshot(records)));
        Ok(true)
    }

    /// Polls the file until the last handle is gone.
    pub fn watch_file(&self) {
        filestore::watch(&self.inner, |inner| {
            if let Err(e) = (Agents { inner }).reload_if_changed() {
                tracing::warn!(error = %e, "cannot reload the agents; keeping the last good ones");
            }
        });
    }

    /// Read, change, write under both locks.
    fn change<T>(
        &self,
        f: impl FnOnce(&mut Vec<AgentRecord>) -> Result<T, AgentsError>,
    ) -> Result<T, AgentsError> {
        let path = self.path();
        let mut current = self.inner.current.lock().unwrap_or_else(|e| e.into_inner());
        let ((out, records), stamp) =
            filestore::rewrite(&self.inner.dir, LOCK_FILE, &path, io_error, |text| {
                let mut records = parse(&path, text)?;
                let out = f(&mut records)?;
                let text = serde_json::to_string_pretty(&FileBody {
                    version: 1,
                    agents: records.clone(),
                })
                .map_err(|e| AgentsError::Invalid(e.to_string()))?;
                Ok((text + "\n", (out, records)))
            })?;
        *current = (stamp, Arc::new(snapshot(records)));
        Ok(out)
    }
}

fn snapshot(records: Vec<AgentRecord>) -> Snapshot {
    Snapshot {
        by_fingerprint: records
            .iter()
            .map(|r| (r.key_sha256.clone(), Arc::new(r.agent())))
            .collect(),
        records,
    }
}

fn io_error(path: PathBuf, source: std::io::Error) -> AgentsError {
    AgentsError::Io { path, source }
}

fn read(path: &Path) -> Result<(Vec<AgentRecord>, Stamp), AgentsError> {
    match filestore::read(path).map_err(|e| io_error(path.to_owned(), e))? {
        Some((text, stamp)) => Ok((parse(path, Some(text))?, stamp)),
        None => Ok((Vec::new(), None)),
    }
}

fn parse(path: &Path, text: Option<String>) -> Result<Vec<AgentRecord>, AgentsError> {
    let Some(text) = text else {
        return Ok(Vec::new());
    };
    let body: FileBody = serde_json::from_str(&text).map_err(|e| AgentsError::Malformed {
        path: path.to_owned(),
        reason: e.to_string(),
    })?;
    Ok(body.agents)
}

/// An agent's name: 1 to 32 of `a-z`, `0-9`, `-` and `_`, starting with a letter or a
/// digit (it names a file and a tab group), and not `default`.
pub fn check_name(name: &str) -> Result<(), AgentsError> {
    let ok = !name.is_empty()
        && name.len() <= 32
        && name.bytes().enumerate().all(|(i, b)| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || (i > 0 && (b == b'-' || b == b'_'))
        });
    if !ok {
        return Err(AgentsError::Invalid(format!(
            "{name:?} is not an agent name: use 1 to 32 of a-z, 0-9, - and _, starting with a letter or digit"
        )));
    }
    if name == DEFAULT_AGENT {
        return Err(AgentsError::Invalid(
            "\"default\" is the agent of agent.key; choose another name".into(),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn pattern(s: &str) -> OriginPattern {
        s.parse().expect(s)
    }

    fn url(s: &str) -> url::Url {
        url::Url::parse(s).expect(s)
    }

    #[test]
    fn origin_patterns_match_as_chrome_match_patterns_do() {
        let exact = pattern("https://mail.example.com");
        assert!(exact.matches(&url("https://mail.example.com/inbox?x=1")));
        assert!(exact.matches(&url("https://MAIL.example.com:443/")));
        assert!(!exact.matches(&url("http://mail.example.com/")));
        assert!(!exact.matches(&url("https://mail.example.com:8443/")));
        assert!(!exact.matches(&url("https://evil-mail.example.com/")));
        let wild = pattern("https://*.example.com");
        assert!(wild.matches(&url("https://example.com/")));
        assert!(wild.matches(&url("https://a.b.example.com/")));
        assert!(!wild.matches(&url("https://notexample.com/")));
        assert!(!wild.matches(&url("https://example.com.evil.net/")));
        let local = pattern("http://127.0.0.1:8080");
        assert!(local.matches(&url("http://127.0.0.1:8080/x")));
        assert!(!local.matches(&url("http://127.0.0.1:8081/x")));
        assert_eq!(local.to_string(), "http://127.0.0.1:8080");
        assert_eq!(wild.to_string(), "https://*.example.com");
        for bad in [
            "example.com",
            "ftp://example.com",
            "https://example.com/path",
            "https://*example.com",
            "https://a.*.example.com",
            "https://*.com",
            "https://user@example.com",
        ] {
            assert!(bad.parse::<OriginPattern>().is_err(), "{bad}");
        }
    }

    #[test]
    fn a_scope_allows_its_origins_and_tiers_only() {
        let scope = Scope {
            origins: vec![pattern("http://127.0.0.1:9000")],
            max_tier: Reversibility::Read,
            tabs: TabsScope::Own,
            ask: AgentAsk::BelowFloor,
            actions_per_minute: None,
        };
        assert!(scope.allows_url(Some("http://127.0.0.1:9000/a")));
        assert!(!scope.allows_url(Some("http://127.0.0.1:9001/a")));
        assert!(!scope.allows_url(None));
        assert!(scope.allows_tier(Reversibility::Read));
        assert!(!scope.allows_tier(Reversibility::ReversibleWrite));
        assert!(Scope::full().allows_url(None));
        assert!(Scope::full().allows_tier(Reversibility::IrreversibleWrite));
    }

    #[test]
    fn agents_are_added_found_by_key_and_revoked_across_processes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let default_key = AgentKey::load_or_create(dir.path()).expect("key");
        let nspd = Agents::open(dir.path(), &default_key).expect("open");
        let cli = Agents::open(dir.path(), &default_key).expect("open");
        let path = cli.add("research", Scope::full()).expect("add");
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let key = std::fs::read_to_string(&path).expect("key");
        assert!(
            nspd.by_key(key.trim()).is_none(),
            "not seen before a reload"
        );
        assert!(nspd.reload_if_changed().expect("reload"));
        let agent = nspd.by_key(key.trim()).expect("found by its key");
        assert_eq!(agent.name, "research");
        assert!(nspd.by_key(default_key.reveal()).is_none());
        assert!(nspd.is_current(&agent));
        assert!(!std::fs::read_to_string(cli.path())
            .expect("file")
            .contains(key.trim()));
        assert!(matches!(
            cli.add("research", Scope::full()),
            Err(AgentsError::Invalid(_))
        ));
        assert!(cli.revoke("research").expect("revoke"));
        assert!(!path.exists(), "the key file goes with the agent");
        nspd.reload_if_changed().expect("reload");
        assert!(!nspd.is_current(&agent));
        assert!(nspd.by_key(key.trim()).is_none());
        // Added again: a new key, and the old agent stays revoked.
        cli.add("research", Scope::full()).expect("add again");
        nspd.reload_if_changed().expect("reload");
        assert!(!nspd.is_current(&agent));
        assert!(nspd.is_current(&nspd.default_agent()));
        assert!(cli.revoke(DEFAULT_AGENT).is_err());
        for bad in ["", "Default", "default", "-x", "a b", &"x".repeat(33)] {
            assert!(cli.add(bad, Scope::full()).is_err(), "{bad:?}");
        }
    }
}

//! The agent key: generated on first start, kept in a 0600 file in a 0700 data dir,
//! compared in constant time, never logged.

use std::fs;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use subtle::ConstantTimeEq;

/// File name of the key inside the data dir.
pub const KEY_FILE: &str = "agent.key";

/// Why the key could not be loaded or created.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error("cannot create the data dir {path}: {source}")]
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot read or write the key file {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the key file {path} is readable by group or others (mode {mode:o}); run `chmod 600 {path}` or delete it so nspd makes a new one")]
    Exposed { path: PathBuf, mode: u32 },
    #[error(
        "the key file {path} does not hold a 64-hex-digit key; delete it so nspd makes a new one"
    )]
    Malformed { path: PathBuf },
    #[error("the system random source failed: {0}")]
    Random(String),
}

/// The agent key, held in memory for comparisons.
#[derive(Clone)]
pub struct AgentKey {
    key: String,
    path: PathBuf,
}

impl std::fmt::Debug for AgentKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the key itself, even in debug output.
        f.debug_struct("AgentKey")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl AgentKey {
    /// Loads the key from `data_dir`, creating the dir (0700) and a fresh 256-bit key
    /// (file 0600) when there is none.
    pub fn load_or_create(data_dir: &Path) -> Result<AgentKey, KeyError> {
        ensure_private_dir(data_dir)?;
        AgentKey::load_or_create_at(data_dir.join(KEY_FILE))
    }

    /// Loads the key in the file `path`, or creates the file (0600) with a fresh key;
    /// `path`'s directory must exist.
    pub fn load_or_create_at(path: PathBuf) -> Result<AgentKey, KeyError> {
        match fs::metadata(&path) {
            Ok(meta) => {
                let mode = meta.permissions().mode() & 0o777;
                if mode & 0o077 != 0 {
                    return Err(KeyError::Exposed { path, mode });
                }
                let text = fs::read_to_string(&path).map_err(|source| KeyError::Io {
                    path: path.clone(),
                    source,
                })?;
                let key = text.trim().to_owned();
                if key.len() != 64 || !key.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return Err(KeyError::Malformed { path });
                }
                Ok(AgentKey { key, path })
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let mut bytes = [0u8; 32];
                getrandom::fill(&mut bytes).map_err(|e| KeyError::Random(e.to_string()))?;
                let key: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
                let mut file = fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(0o600)
                    .open(&path)
                    .map_err(|source| KeyError::Io {
                        path: path.clone(),
                        source,
                    })?;
                file.write_all(format!("{key}\n").as_bytes())
                    .and_then(|()| file.sync_all())
                    .map_err(|source| KeyError::Io {
                        path: path.clone(),
                        source,
                    })?;
                Ok(AgentKey { key, path })
            }
            Err(source) => Err(KeyError::Io { path, source }),
        }
    }

    /// A short, non-reversible id of the key (first 48 bits of its SHA-256), for
    /// logs, limits and the audit trail.
    pub fn id(&self) -> String {
        self.fingerprint()[..12].to_owned()
    }

    /// The SHA-256 of the key, in hex: what `agents.json` keeps to know a key again
    /// without holding it.
    pub fn fingerprint(&self) -> String {
        fingerprint(&self.key)
    }

    /// Where the key lives.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The key itself, for `nspd token` only.
    pub fn reveal(&self) -> &str {
        &self.key
    }

    /// Constant-time comparison (length differences leak only the length, which is fixed).
    pub fn matches(&self, candidate: &str) -> bool {
        let a = self.key.as_bytes();
        let b = candidate.as_bytes();
        a.len() == b.len() && bool::from(a.ct_eq(b))
    }
}

/// The SHA-256 of a presented key, in hex.
pub fn fingerprint(key: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(key.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Creates `dir` with mode 0700, or tightens an existing dir we own to 0700.
pub fn ensure_private_dir(dir: &Path) -> Result<(), KeyError> {
    let err = |source| KeyError::CreateDir {
        path: dir.to_owned(),
        source,
    };
    if !dir.exists() {
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(err)?;
    }
    let meta = fs::metadata(dir).map_err(err)?;
    if meta.permissions().mode() & 0o077 != 0 {
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700)).map_err(err)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creates_private_key_once_and_reloads_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let data = dir.path().join("data");
        let first = AgentKey::load_or_create(&data).expect("create");
        let mode = fs::metadata(first.path())
            .expect("meta")
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o600);
        let dmode = fs::metadata(&data).expect("meta").permissions().mode() & 0o777;
        assert_eq!(dmode, 0o700);
        assert_eq!(first.reveal().len(), 64);
        let second = AgentKey::load_or_create(&data).expect("reload");
        assert_eq!(first.reveal(), second.reveal());
    }

    #[test]
    fn refuses_a_group_readable_key() {
        let dir = tempfile::tempdir().expect("tempdir");
        let key = AgentKey::load_or_create(dir.path()).expect("create");
        fs::set_permissions(key.path(), fs::Permissions::from_mode(0o640)).expect("chmod");
        let err = AgentKey::load_or_create(dir.path()).expect_err("must refuse");
        assert!(matches!(err, KeyError::Exposed { .. }), "{err}");
    }

    #[test]
    fn compares_whole_keys_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let key = AgentKey::load_or_create(dir.path()).expect("create");
        let good = key.reveal().to_owned();
        assert!(key.matches(&good));
        assert!(!key.matches(&good[..63]));
        assert!(!key.matches(&format!("{good}0")));
        assert!(!key.matches(""));
        let mut wrong = good.into_bytes();
        wrong[10] = if wrong[10] == b'a' { b'b' } else { b'a' };
        assert!(!key.matches(&String::from_utf8(wrong).expect("utf8")));
    }
}

//! The discipline of the small JSON files nspd shares with its own command line
//! (`corrections.json`, `agents.json`): every change takes an exclusive lock on a
//! sibling lock file, reads the file afresh, changes it and replaces it atomically (a
//! temporary 0600 file renamed over it), so neither process loses the other's change; a
//! running nspd polls the file's identity ([`Stamp`]) to see what the other changed.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Weak};
use std::time::Duration;

/// How often a running nspd looks for changes another process made to a shared file.
pub const POLL_INTERVAL: Duration = Duration::from_millis(250);

/// What identifies one version of a file on disk: a rename makes a new inode, a write
/// in place a new length or time. `None` when there is no file.
pub type Stamp = Option<(u64, u64, i64, i64)>;

pub fn stamp_of(path: &Path) -> Stamp {
    let m = std::fs::metadata(path).ok()?;
    Some((m.ino(), m.len(), m.mtime(), m.mtime_nsec()))
}

/// Opens (creating, 0600) `dir/lock_name` and takes an exclusive advisory lock on it,
/// held until the returned file is dropped.
pub fn lock(dir: &Path, lock_name: &str) -> std::io::Result<File> {
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(dir.join(lock_name))?;
    flock(&file)?;
    Ok(file)
}

/// An exclusive advisory lock on `file`, held until it is closed (`File::lock` is newer
/// than the workspace's minimum Rust).
fn flock(file: &File) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    loop {
        // SAFETY: flock on a descriptor this `File` owns for the whole call.
        let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
        if r == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// The file's text and its stamp, or `None` when there is no file.
pub fn read(path: &Path) -> std::io::Result<Option<(String, Stamp)>> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some((text, stamp_of(path)))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Writes `text` to a temporary file (0600) in `path`'s directory, syncs it and renames
/// it over `path`: a reader sees the old text or the new one, never half.
pub fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let prefix = format!(
        ".{}.",
        path.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    );
    // tempfile creates the file 0600.
    let mut tmp = tempfile::Builder::new().prefix(&prefix).tempfile_in(dir)?;
    tmp.write_all(text.as_bytes())?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Under `dir/lock_name`: reads `path` afresh (`None` when there is no file), lets
/// `change` turn its text into the new text (and an answer), and writes that
/// atomically. Returns the answer and the new file's stamp. `io` names an I/O failure
/// of a path in the caller's error type.
pub fn rewrite<T, E>(
    dir: &Path,
    lock_name: &str,
    path: &Path,
    io: impl Fn(PathBuf, std::io::Error) -> E,
    change: impl FnOnce(Option<String>) -> Result<(String, T), E>,
) -> Result<(T, Stamp), E> {
    let lock = lock(dir, lock_name).map_err(|e| io(dir.join(lock_name), e))?;
    let text = read(path)
        .map_err(|e| io(path.to_owned(), e))?
        .map(|(text, _)| text);
    let (new_text, out) = change(text)?;
    write_atomic(path, &new_text).map_err(|e| io(path.to_owned(), e))?;
    let stamp = stamp_of(path);
    drop(lock);
    Ok((out, stamp))
}

/// Calls `reload` every [`POLL_INTERVAL`] until the last strong reference to `inner` is
/// gone (the task holds a weak one, so it never keeps a stopped server's store alive).
pub fn watch<I: Send + Sync + 'static>(inner: &Arc<I>, reload: impl Fn(Arc<I>) + Send + 'static) {
    let weak: Weak<I> = Arc::downgrade(inner);
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(POLL_INTERVAL);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            let Some(inner) = weak.upgrade() else { break };
            reload(inner);
        }
    });
}

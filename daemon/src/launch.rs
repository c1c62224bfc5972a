//! `nspd run --launch`: a Chromium with a fresh temporary profile and our extension,
//! owned by nspd. It is closed, and the profile removed, when nspd exits; if nspd dies
//! without cleaning up, the kernel kills the browser (parent-death signal), and the next
//! launch in the same folder removes the profile it left (see [`LaunchOptions::profiles_in`]).

use std::ffi::OsString;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Why the browser could not be started.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error("no Chromium found: pass --browser PATH, set $CHROME, or install one (Debian: `apt-get install chromium`); looked for chromium, chromium-browser, google-chrome on PATH")]
    NoBrowser,
    #[error("the extension folder {0} has no manifest.json: run `cargo xtask dist` to build it, or pass --extension DIR")]
    NoExtension(PathBuf),
    #[error("cannot prepare the browser profile: {0}")]
    Profile(std::io::Error),
    #[error("cannot start {browser}: {source}")]
    Spawn {
        browser: PathBuf,
        source: std::io::Error,
    },
}

/// What to launch.
#[derive(Debug, Clone)]
pub struct LaunchOptions {
    pub browser: Option<PathBuf>,
    pub extension_dir: PathBuf,
    pub headless: bool,
    /// The daemon's extension-channel URL, written into the extension copy's config.
    pub daemon_ws_url: String,
    pub url: Option<String>,
    /// The folder the profile is made in (`nspd run`: `<data dir>/browsers`); `None`: the
    /// system's temporary folder. A live profile holds an exclusive lock on its
    /// `owner.lock`; profiles in this folder whose lock nobody holds were left by an nspd
    /// that died without cleaning up (SIGKILL, a power cut) and are removed at launch.
    pub profiles_in: Option<PathBuf>,
}

const PROFILE_PREFIX: &str = "nspd-chromium-";
const OWNER_LOCK: &str = "owner.lock";
/// A profile without its lock file yet is one being made right now, unless older.
const UNLOCKED_GRACE: Duration = Duration::from_secs(600);

/// A running browser. Dropping it closes the browser and removes the profile.
#[derive(Debug)]
pub struct Browser {
    child: Option<Child>,
    profile: Option<tempfile::TempDir>,
    /// Held (flock) while the browser runs; the kernel lets go when nspd dies.
    _owner: Option<File>,
    pub path: PathBuf,
    /// The browser's profile (`--user-data-dir`), where Chromium writes
    /// `DevToolsActivePort` when started with a remote-debugging port.
    user_data: PathBuf,
}

/// Finds the browser: explicit path, `$CHROME`, then PATH.
pub fn find_browser(explicit: Option<&Path>) -> Result<PathBuf, LaunchError> {
    if let Some(p) = explicit {
        return Ok(p.to_owned());
    }
    if let Some(p) = std::env::var_os("CHROME").filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ] {
        for dir in std::env::split_paths(&path) {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
    }
    Err(LaunchError::NoBrowser)
}

/// Makes `cmd` a child this process owns: no stdio, its own process group (so the whole
/// tree of a browser can be killed at once), and killed by the kernel if this process
/// dies without closing it.
pub fn owned_child(cmd: &mut Command) -> &mut Command {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0);
    // SAFETY: prctl with PR_SET_PDEATHSIG is async-signal-safe; it only asks the kernel
    // to SIGKILL the child when its parent dies.
    unsafe {
        cmd.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd
}

/// Points `cmd`'s temporary folder (`TMPDIR`) at a new folder `tmp` in `dir`: what the
/// child or its own children leave there goes when `dir` does, which a child killed at
/// the end of its life never cleans up itself.
pub fn scratch_in(cmd: &mut Command, dir: &Path) -> std::io::Result<()> {
    let tmp = dir.join("tmp");
    std::fs::create_dir(&tmp)?;
    cmd.env("TMPDIR", tmp);
    Ok(())
}

impl Browser {
    pub fn launch(opts: &LaunchOptions) -> Result<Browser, LaunchError> {
        Browser::launch_with_args(opts, &[])
    }

    /// [`Browser::launch`] with extra command-line switches before the URL. Tests use it
    /// for `--remote-debugging-port=0` (see [`Browser::devtools_ws_url`]); nspd itself
    /// never opens a DevTools port.
    pub fn launch_with_args(opts: &LaunchOptions, extra: &[&str]) -> Result<Browser, LaunchError> {
        let path = find_browser(opts.browser.as_deref())?;
        if !opts.extension_dir.join("manifest.json").is_file() {
            return Err(LaunchError::NoExtension(opts.extension_dir.clone()));
        }
        let mut builder = tempfile::Builder::new();
        builder.prefix(PROFILE_PREFIX);
        let profile = match &opts.profiles_in {
            Some(dir) => {
                std::fs::create_dir_all(dir).map_err(LaunchError::Profile)?;
                remove_orphans(dir);
                builder.tempdir_in(dir)
            }
            None => builder.tempdir(),
        }
        .map_err(LaunchError::Profile)?;
        let owner = File::create(profile.path().join(OWNER_LOCK)).map_err(LaunchError::Profile)?;
        if !try_lock(&owner) {
            return Err(LaunchError::Profile(std::io::Error::last_os_error()));
        }
        // A copy of the extension with the daemon's address in it, so a daemon on any
        // port is found without the user configuring anything. The id does not change:
        // it comes from the manifest's key, not the folder.
        let ext = profile.path().join("extension");
        copy_dir(&opts.extension_dir, &ext).map_err(LaunchError::Profile)?;
        // A web page to start on is opened by the extension once it is loaded
        // (`start_url`), not from the command line: Chromium loads the tabs it starts
        // with without waiting for its extensions, so such a tab can miss the
        // `document_start` scripts (page-world.js: WebMCP tools, dialogs) or all of them.
        let (start_url, first_tab) = split_start(opts.url.as_deref());
        let mut config = serde_json::json!({ "daemon_url": opts.daemon_ws_url });
        if let Some(url) = start_url {
            config["start_url"] = url.into();
        }
        std::fs::write(ext.join("nsp-config.json"), config.to_string())
            .map_err(LaunchError::Profile)?;
        let user_data = profile.path().join("user-data");
        std::fs::create_dir(&user_data).map_err(LaunchError::Profile)?;

        let mut args: Vec<OsString> = vec![
            format!("--user-data-dir={}", user_data.display()).into(),
            format!("--load-extension={}", ext.display()).into(),
            format!("--disable-extensions-except={}", ext.display()).into(),
            "--no-first-run".into(),
            "--no-default-browser-check".into(),
            "--disable-background-networking".into(),
            "--disable-component-update".into(),
            "--disable-sync".into(),
            "--disable-quic".into(),
            "--disable-features=Translate,MediaRouter,OptimizationHints".into(),
            "--password-store=basic".into(),
            // Crashpad handlers start in process groups of their own; without a crash
            // reporter nothing of the browser escapes the group nspd kills.
            "--disable-breakpad".into(),
            "--disable-crash-reporter".into(),
            "--use-mock-keychain".into(),
        ];
        if opts.headless {
            args.push("--headless=new".into());
            args.push("--disable-gpu".into());
        }
        // Chromium's sandbox cannot start as root; tests and CI run as root.
        if unsafe { libc::geteuid() } == 0 {
            args.push("--no-sandbox".into());
        }
        args.extend(extra.iter().map(OsString::from));
        args.push(first_tab.into());

        let mut cmd = Command::new(&path);
        cmd.args(&args);
        // Chromium's own scratch (its singleton socket folder) goes in the profile too.
        scratch_in(&mut cmd, profile.path()).map_err(LaunchError::Profile)?;
        owned_child(&mut cmd);
        let child = cmd.spawn().map_err(|source| LaunchError::Spawn {
            browser: path.clone(),
            source,
        })?;
        tracing::info!(browser = %path.display(), pid = child.id(), headless = opts.headless, "browser launched");
        Ok(Browser {
            child: Some(child),
            profile: Some(profile),
            _owner: Some(owner),
            path,
            user_data,
        })
    }

    /// The browser-wide DevTools WebSocket URL of a browser started with
    /// `--remote-debugging-port=0`: Chromium picks a free loopback port and writes it,
    /// with the browser target's path, to `DevToolsActivePort` in the profile. Waits up
    /// to `timeout` for that file; `None` if it never appears.
    pub fn devtools_ws_url(&self, timeout: Duration) -> Option<String> {
        let file = self.user_data.join("DevToolsActivePort");
        let deadline = Instant::now() + timeout;
        loop {
            if let Ok(text) = std::fs::read_to_string(&file) {
                let mut lines = text.lines();
                if let (Some(port), Some(path)) = (lines.next(), lines.next()) {
                    return Some(format!("ws://127.0.0.1:{}{}", port.trim(), path.trim()));
                }
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The browser's process id (also its process group id).
    pub fn pid(&self) -> u32 {
        self.child.as_ref().map_or(0, Child::id)
    }

    /// Whether the browser process has exited.
    pub fn has_exited(&mut self) -> bool {
        match &mut self.child {
            Some(child) => !matches!(child.try_wait(), Ok(None)),
            None => true,
        }
    }

    /// Closes the browser (SIGTERM to its process group, SIGKILL after a grace period)
    /// and removes the profile.
    pub fn close(&mut self) {
        if let Some(mut child) = self.child.take() {
            let pgid = child.id() as i32;
            // SAFETY: plain kill(2) on the process group we created for the browser.
            unsafe {
                libc::kill(-pgid, libc::SIGTERM);
            }
            let deadline = Instant::now() + Duration::from_secs(5);
            loop {
                match child.try_wait() {
                    Ok(Some(_)) => break,
                    Ok(None) if Instant::now() < deadline => {
                        std::thread::sleep(Duration::from_millis(50))
                    }
                    _ => {
                        // SAFETY: as above.
                        unsafe {
                            libc::kill(-pgid, libc::SIGKILL);
                        }
                        let _ = child.wait();
                        break;
                    }
                }
            }
            // Helpers (zygote, renderers) share the group; make sure none outlives us.
            // SAFETY: as above; ESRCH when the group is already empty is fine.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
        if let Some(profile) = self.profile.take() {
            if let Err(e) = profile.close() {
                tracing::warn!(error = %e, "could not remove the browser profile");
            }
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        self.close();
    }
}

/// An exclusive, non-blocking `flock` on `file`: whether it was taken.
fn try_lock(file: &File) -> bool {
    // SAFETY: flock(2) on a descriptor we own; it is released when the file is closed.
    unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
}

/// Removes the profiles in `dir` no live nspd holds: their owner died without cleaning up.
fn remove_orphans(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if !entry
            .file_name()
            .to_string_lossy()
            .starts_with(PROFILE_PREFIX)
        {
            continue;
        }
        let path = entry.path();
        // A lock we could take means its owner is gone; held until the folder is removed.
        let lock = File::open(path.join(OWNER_LOCK)).ok();
        let orphan = match &lock {
            Some(lock) => try_lock(lock),
            None => entry
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| t.elapsed().is_ok_and(|age| age > UNLOCKED_GRACE)),
        };
        if orphan {
            match std::fs::remove_dir_all(&path) {
                Ok(()) => {
                    tracing::info!(profile = %path.display(), "removed a browser profile left by an nspd that died")
                }
                Err(e) => {
                    tracing::warn!(profile = %path.display(), error = %e, "could not remove a browser profile left by an nspd that died")
                }
            }
        }
    }
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), target)?;
        }
    }
    Ok(())
}

/// The page the extension opens once it is loaded (an http(s) URL), and what
/// Chromium's command line opens: `about:blank` then, else the URL itself (no content
/// script runs on other schemes, so there is nothing to wait for).
fn split_start(url: Option<&str>) -> (Option<&str>, &str) {
    match url {
        Some(u) if url::Url::parse(u).is_ok_and(|p| matches!(p.scheme(), "http" | "https")) => {
            (Some(u), "about:blank")
        }
        Some(u) => (None, u),
        None => (None, "about:blank"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A profile folder as a launch makes it, its `owner.lock` held (`Some`) or not.
    fn profile(dir: &Path, name: &str, locked: bool) -> Option<File> {
        let p = dir.join(name);
        std::fs::create_dir_all(p.join("user-data")).expect("profile");
        let lock = File::create(p.join(OWNER_LOCK)).expect("lock file");
        if locked {
            assert!(try_lock(&lock), "the lock of a fresh profile is free");
            Some(lock)
        } else {
            None
        }
    }

    #[test]
    fn a_web_page_to_start_on_is_left_to_the_extension() {
        let page = "http://127.0.0.1:8000/inbox";
        assert_eq!(split_start(Some(page)), (Some(page), "about:blank"));
        assert_eq!(
            split_start(Some("https://example.com/")),
            (Some("https://example.com/"), "about:blank")
        );
        // No content script runs there: Chromium opens it as it is.
        assert_eq!(
            split_start(Some("file:///tmp/a.html")),
            (None, "file:///tmp/a.html")
        );
        assert_eq!(split_start(None), (None, "about:blank"));
    }

    #[test]
    fn only_profiles_nobody_holds_are_removed() {
        let dir = tempfile::tempdir().expect("tempdir");
        // flock locks conflict between open files even in one process: a held lock
        // here stands for a live nspd.
        let _live = profile(dir.path(), "nspd-chromium-live", true);
        profile(dir.path(), "nspd-chromium-dead", false);
        // Being made right now: no lock file yet.
        std::fs::create_dir(dir.path().join("nspd-chromium-new")).expect("dir");
        // Not ours.
        std::fs::create_dir(dir.path().join("something-else")).expect("dir");

        remove_orphans(dir.path());

        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .expect("read")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(
            left,
            ["nspd-chromium-live", "nspd-chromium-new", "something-else"]
        );
    }
}

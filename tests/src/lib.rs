//! The harness shared by the end-to-end tests and `cargo xtask demo`: start the real
//! `nspd` binary (which launches headless Chromium with the built extension), talk to
//! its HTTP API, wait on conditions with bounded timeouts, and reap every process it
//! started, even when a test fails. `webdriver` drives a browser of its own for tests
//! that need the browser rather than nspd's view of it.

pub mod faults;
pub mod flows;
pub mod hostile;
pub mod real_apps;
pub mod webdriver;

pub use webdriver::{WebDriver, WebDriverOptions};

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Method, Request, StatusCode};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use nsp_protocol::api::{AppList, AppSummary};
use serde_json::Value;

/// A port on 127.0.0.1 that nothing listened on a moment ago and that no other caller
/// in this process has been given. The kernel may hand the same free port to two tests
/// running side by side (one binds it later than the other asked); the set of ports
/// given out keeps them apart, and a server that finds its port taken by another
/// process is started again on a new one (`RealApp::start`).
pub fn free_port() -> Result<u16> {
    static GIVEN: std::sync::Mutex<std::collections::BTreeSet<u16>> =
        std::sync::Mutex::new(std::collections::BTreeSet::new());
    // Held while asking again, so the kernel cannot answer the same port twice.
    let mut held = Vec::new();
    for _ in 0..64 {
        let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        let port = listener.local_addr()?.port();
        let mut given = GIVEN.lock().unwrap_or_else(|e| e.into_inner());
        if given.insert(port) {
            return Ok(port);
        }
        held.push(listener);
    }
    bail!("no free port on 127.0.0.1 that this process has not given out already")
}

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The extension's popup page, which the tests open as a tab to read the service
/// worker's status and to answer its questions.
pub fn popup_url() -> String {
    format!(
        "chrome-extension://{}/popup.html",
        nsp_protocol::EXTENSION_ID
    )
}

/// From an extension page the driver shows (the popup), opens `url` in a new tab
/// (`active`: in front) and waits until nspd has the tab with its probe active. Returns
/// Chrome's tab id and the tab as nspd lists it.
pub async fn open_tab_from_popup(
    browser: &WebDriver,
    nspd: &Nspd,
    url: &str,
    active: bool,
    timeout: Duration,
) -> Result<(i64, AppSummary)> {
    let tab_id = browser
        .eval(
            "return (await chrome.tabs.create({ url: args[0], active: args[1] })).id;",
            serde_json::json!([url, active]),
        )
        .await
        .context("open a tab from the popup")?
        .as_i64()
        .context("chrome.tabs.create gave no tab id")?;
    let app = nspd
        .wait_for_app(timeout, |a| {
            a.probe_status == nsp_protocol::ProbeStatus::Active
                && a.current_url.as_deref() == Some(url)
        })
        .await
        .context("the tab's probe is active in nspd")?;
    Ok((tab_id, app))
}

/// The built extension: `$NSP_EXTENSION_DIR`, else `target/dist/extension`.
pub fn extension_dir() -> Result<PathBuf> {
    let dir = std::env::var_os("NSP_EXTENSION_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target/dist/extension"));
    if !dir.join("manifest.json").is_file() {
        bail!(
            "no built extension in {}: run `cargo xtask dist` first (cargo xtask test does)",
            dir.display()
        );
    }
    Ok(dir)
}

/// The nspd binary: `$NSPD_BIN`, else `target/debug/nspd`.
pub fn nspd_bin() -> Result<PathBuf> {
    let bin = std::env::var_os("NSPD_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target/debug/nspd"));
    if !bin.is_file() {
        bail!(
            "no nspd binary at {}: run `cargo build -p nsp-daemon` first (cargo xtask test does)",
            bin.display()
        );
    }
    Ok(bin)
}

/// How to start nspd.
#[derive(Debug, Clone)]
pub struct NspdOptions {
    /// Page to open in the launched browser.
    pub url: String,
    pub headless: bool,
}

/// A running nspd with its browser. Dropping it stops both and removes their dirs.
#[derive(Debug)]
pub struct Nspd {
    child: Option<Child>,
    browser_pid: Option<i32>,
    /// `http://127.0.0.1:PORT`
    pub base: String,
    /// `http://127.0.0.1:PORT/mcp`, nspd's MCP endpoint (empty when `[mcp]` is off).
    pub mcp_url: String,
    pub key: String,
    pub data_dir: tempfile::TempDir,
    client: Client<HttpConnector, Full<Bytes>>,
}

/// An empty temporary data dir for one nspd, removed when dropped.
pub fn fresh_data_dir() -> Result<tempfile::TempDir> {
    Ok(tempfile::Builder::new().prefix("nspd-test-").tempdir()?)
}

impl Nspd {
    /// Starts `nspd run --launch` on a free port and waits until it listens and its
    /// browser has started.
    pub fn launch(opts: &NspdOptions) -> Result<Nspd> {
        Nspd::launch_with_env(opts, &[])
    }

    /// [`Nspd::launch`] with extra environment variables for nspd (its
    /// `NSP_<SECTION>__<KEY>` settings overrides).
    pub fn launch_with_env(opts: &NspdOptions, env: &[(&str, &str)]) -> Result<Nspd> {
        Nspd::launch_in(opts, env, fresh_data_dir()?)
    }

    /// [`Nspd::launch_with_env`] on a data dir the test prepared (or one a previous
    /// nspd left, to restart on it).
    pub fn launch_in(
        opts: &NspdOptions,
        env: &[(&str, &str)],
        data_dir: tempfile::TempDir,
    ) -> Result<Nspd> {
        let mut args: Vec<std::ffi::OsString> = vec![
            "--launch".into(),
            "--extension".into(),
            extension_dir()?.into(),
        ];
        if opts.headless {
            args.push("--headless".into());
        }
        args.push(opts.url.clone().into());
        Nspd::spawn(0, data_dir, &args, env, true, None)
    }

    /// As [`Nspd::launch`], with nspd's log (at debug level) written to `log` instead of
    /// the test's stderr, for tests that search it (e.g. for a secret that must not be
    /// there).
    pub fn launch_logged(opts: &NspdOptions, log: &Path) -> Result<Nspd> {
        let data_dir = fresh_data_dir()?;
        let args: Vec<std::ffi::OsString> = vec![
            "--launch".into(),
            "--extension".into(),
            extension_dir()?.into(),
            "--headless".into(),
            opts.url.clone().into(),
        ];
        Nspd::spawn(0, data_dir, &args, &[], true, Some(log))
    }

    /// Starts `nspd run` without a browser on `port` (0: a free one), with `data_dir`.
    pub fn serve(port: u16, data_dir: tempfile::TempDir) -> Result<Nspd> {
        Nspd::spawn(port, data_dir, &[], &[], false, None)
    }

    /// [`Nspd::serve`] with extra environment variables (`NSP_<SECTION>__<KEY>`).
    pub fn serve_with_env(
        port: u16,
        data_dir: tempfile::TempDir,
        env: &[(&str, &str)],
    ) -> Result<Nspd> {
        Nspd::spawn(port, data_dir, &[], env, false, None)
    }

    fn spawn(
        port: u16,
        data_dir: tempfile::TempDir,
        extra: &[std::ffi::OsString],
        env: &[(&str, &str)],
        with_browser: bool,
        log: Option<&Path>,
    ) -> Result<Nspd> {
        let mut cmd = Command::new(nspd_bin()?);
        let (filter, stderr) = match log {
            Some(path) => (
                "debug".to_owned(),
                Stdio::from(std::fs::File::create(path).context("creating nspd's log file")?),
            ),
            None => (
                std::env::var("NSP_LOG").unwrap_or_else(|_| "warn".into()),
                Stdio::inherit(),
            ),
        };
        cmd.args(["run", "--port", &port.to_string()])
            .arg("--data-dir")
            .arg(data_dir.path())
            .args(extra)
            .env("NSP_LOG", filter)
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr);
        let mut child = cmd.spawn().context("starting nspd")?;
        let stdout = child.stdout.take().context("nspd stdout")?;
        let mut nspd = Nspd {
            child: Some(child),
            browser_pid: None,
            base: String::new(),
            mcp_url: String::new(),
            key: String::new(),
            data_dir,
            client: Client::builder(TokioExecutor::new()).build_http(),
        };
        // Read the startup lines on a thread so a silent nspd cannot hang us.
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        // nspd prints its address, its MCP endpoint (unless [mcp] is off), then (with
        // --launch) the browser's pid.
        let with_mcp = !env
            .iter()
            .any(|(k, v)| *k == "NSP_MCP__ENABLED" && *v == "false");
        let deadline = Instant::now() + Duration::from_secs(30);
        while nspd.base.is_empty()
            || (with_mcp && nspd.mcp_url.is_empty())
            || (with_browser && nspd.browser_pid.is_none())
        {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match rx.recv_timeout(left) {
                Ok(line) => line,
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    bail!("nspd did not report its address (and browser) within 30 s")
                }
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    bail!("nspd exited during startup; its stderr above says why")
                }
            };
            if let Some(base) = line.strip_prefix("nspd listening on ") {
                nspd.base = base.trim().to_owned();
            } else if let Some(mcp) = line.strip_prefix("MCP: ") {
                nspd.mcp_url = mcp.split_whitespace().next().unwrap_or("").to_owned();
            } else if let Some(pid) = line.split("(pid ").nth(1) {
                nspd.browser_pid = pid.trim_end_matches(')').parse().ok();
            }
        }
        nspd.key = std::fs::read_to_string(nspd.data_dir.path().join("agent.key"))
            .context("reading the agent key")?
            .trim()
            .to_owned();
        Ok(nspd)
    }

    /// nspd's process id (while it runs).
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Kills nspd with SIGKILL (no cleanup, as in a crash or an OOM kill), waits for it
    /// to be gone, and hands back its data dir. Its browser dies with it (the kernel's
    /// parent-death signal) and is killed here too if anything of it is left.
    pub fn kill_keep_data(mut self) -> tempfile::TempDir {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        self.stop();
        let placeholder = fresh_data_dir().expect("tempdir");
        std::mem::replace(&mut self.data_dir, placeholder)
    }

    /// Stops nspd and hands back its data dir (to start another nspd on it).
    pub fn stop_keep_data(mut self) -> tempfile::TempDir {
        self.stop();
        let placeholder = fresh_data_dir().expect("tempdir");
        std::mem::replace(&mut self.data_dir, placeholder)
    }

    /// A request to the agent API with the key; returns status and JSON body.
    pub async fn request(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<(StatusCode, Value)> {
        self.request_as(&self.key, method, path, body).await
    }

    /// [`Nspd::request`] with another agent's key (`nspd agents add`).
    pub async fn request_as(
        &self,
        key: &str,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<(StatusCode, Value)> {
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        let req = Request::builder()
            .method(method)
            .uri(format!("{}{path}", self.base))
            .header("x-substrate-key", key)
            .header("content-type", "application/json")
            .body(Full::new(Bytes::from(body)))?;
        let resp = tokio::time::timeout(Duration::from_secs(150), self.client.request(req))
            .await
            .context("nspd did not answer within 150 s")??;
        let status = resp.status();
        let bytes = resp.into_body().collect().await?.to_bytes();
        let json = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes)
                .with_context(|| format!("non-JSON body: {}", String::from_utf8_lossy(&bytes)))?
        };
        Ok((status, json))
    }

    pub async fn get(&self, path: &str) -> Result<(StatusCode, Value)> {
        self.request(Method::GET, path, None).await
    }

    /// The tab's state as it is now (`GET /substrate/v1/state/{pid}?fresh=true`); an
    /// error unless nspd answers 200.
    pub async fn fresh_state(&self, pid: u64) -> Result<Value> {
        let (status, body) = self
            .get(&format!("/substrate/v1/state/{pid}?fresh=true"))
            .await?;
        anyhow::ensure!(status == StatusCode::OK, "state {pid}: {status} {body}");
        Ok(body)
    }

    pub async fn post(&self, path: &str, body: &Value) -> Result<(StatusCode, Value)> {
        self.request(Method::POST, path, Some(body)).await
    }

    /// `POST /substrate/v1/action` with `body` and an `Idempotency-Key`; also says
    /// whether nspd answered with a stored response (`Idempotent-Replayed: true`).
    pub async fn act_idempotent(
        &self,
        body: &Value,
        key: &str,
    ) -> Result<(StatusCode, Value, bool)> {
        let req = Request::builder()
            .method(Method::POST)
            .uri(format!("{}/substrate/v1/action", self.base))
            .header("x-substrate-key", &self.key)
            .header("content-type", "application/json")
            .header("idempotency-key", key)
            .body(Full::new(Bytes::from(body.to_string())))?;
        let resp = tokio::time::timeout(Duration::from_secs(150), self.client.request(req))
            .await
            .context("nspd did not answer within 150 s")??;
        let status = resp.status();
        let replayed = resp
            .headers()
            .get("idempotent-replayed")
            .is_some_and(|v| v == "true");
        let bytes = resp.into_body().collect().await?.to_bytes();
        let json = serde_json::from_slice(&bytes)
            .with_context(|| format!("non-JSON body: {}", String::from_utf8_lossy(&bytes)))?;
        Ok((status, json, replayed))
    }

    /// `POST /substrate/v1/action` with `body`.
    pub async fn act(&self, body: &Value) -> Result<(StatusCode, Value)> {
        self.post("/substrate/v1/action", body).await
    }

    pub async fn apps(&self) -> Result<Vec<AppSummary>> {
        let (status, body) = self.get("/substrate/v1/apps").await?;
        if status != StatusCode::OK {
            bail!("GET /apps answered {status}: {body}");
        }
        Ok(serde_json::from_value::<AppList>(body)?.apps)
    }

    /// Waits until a tab satisfies `pred` (polling `/apps`), or fails after `timeout`
    /// with what the tabs looked like.
    pub async fn wait_for_app(
        &self,
        timeout: Duration,
        pred: impl Fn(&AppSummary) -> bool,
    ) -> Result<AppSummary> {
        let deadline = Instant::now() + timeout;
        let mut last = Vec::new();
        loop {
            last = self.apps().await.unwrap_or(last);
            if let Some(app) = last.iter().find(|a| pred(a)) {
                return Ok(app.clone());
            }
            if Instant::now() >= deadline {
                bail!(
                    "no tab matched within {timeout:?}; tabs were: {}",
                    serde_json::to_string_pretty(&last)?
                );
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Waits until tab `pid`'s state satisfies `pred` and returns it; panics after
    /// `timeout` with the actions it last saw (`what` names the wait in that message).
    pub async fn wait_state(
        &self,
        pid: u64,
        what: &str,
        timeout: Duration,
        pred: impl Fn(&Value) -> bool,
    ) -> Value {
        let deadline = Instant::now() + timeout;
        loop {
            let (status, state) = self
                .get(&format!("/substrate/v1/state/{pid}"))
                .await
                .expect("GET /state");
            if status == 200 && pred(&state) {
                return state;
            }
            assert!(
                Instant::now() < deadline,
                "the tab never showed {what} within {timeout:?}: {}",
                state["actions"]
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Stops nspd (SIGTERM, then SIGKILL after 10 s) and makes sure its browser is gone.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let pid = child.id() as i32;
            // SAFETY: kill(2) on the child we spawned.
            unsafe {
                libc::kill(pid, libc::SIGTERM);
            }
            let deadline = Instant::now() + Duration::from_secs(10);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = child.try_wait() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(25));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
        if let Some(pid) = self.browser_pid.take() {
            // nspd closes its browser on SIGTERM and the kernel kills it if nspd died;
            // this covers a browser helper that outlived both.
            // SAFETY: kill(2) on the process group nspd created for the browser.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
    }
}

impl Drop for Nspd {
    fn drop(&mut self) {
        self.stop();
    }
}

/// GET a URL without the agent key (e.g. a fixture app's own backend API) as JSON.
/// `nspd corrections ARGS --data-dir DIR`: whether it succeeded, and its stdout and
/// stderr.
pub fn corrections_cli(args: &[&str], data_dir: &Path) -> (bool, String) {
    let out = std::process::Command::new(nspd_bin().expect("nspd"))
        .arg("corrections")
        .args(args)
        .arg("--data-dir")
        .arg(data_dir)
        .output()
        .expect("run nspd corrections");
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

pub async fn fetch_json(url: &str) -> Result<Value> {
    let client: Client<HttpConnector, Full<Bytes>> =
        Client::builder(TokioExecutor::new()).build_http();
    let req = Request::builder().uri(url).body(Full::new(Bytes::new()))?;
    let resp = tokio::time::timeout(Duration::from_secs(30), client.request(req))
        .await
        .context("no answer within 30 s")??;
    let bytes = resp.into_body().collect().await?.to_bytes();
    Ok(serde_json::from_slice(&bytes)?)
}

/// The Python with the published SDK: `$NSP_SDK_PYTHON`, else `target/sdk-venv`.
pub fn sdk_python() -> Result<PathBuf> {
    let python = std::env::var_os("NSP_SDK_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target/sdk-venv/bin/python"));
    if !python.is_file() {
        bail!(
            "no Python with the NSP SDK at {}: run `cargo xtask test` (it creates target/sdk-venv with nelieo-nsp)",
            python.display()
        );
    }
    Ok(python)
}

/// The Python with the official MCP SDK: `$NSP_MCP_PYTHON`, else `target/mcp-venv`.
pub fn mcp_python() -> Result<PathBuf> {
    let python = std::env::var_os("NSP_MCP_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target/mcp-venv/bin/python"));
    if !python.is_file() {
        bail!(
            "no Python with the MCP SDK at {}: run `cargo xtask test` (it creates target/mcp-venv with mcp)",
            python.display()
        );
    }
    Ok(python)
}

impl Nspd {
    /// The port nspd listens on.
    pub fn port(&self) -> u16 {
        self.base
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .unwrap_or(0)
    }

    /// Runs one scenario of `tests/sdk/scenarios.py` with the published SDK against
    /// this nspd and returns the JSON line it printed.
    pub async fn sdk(&self, scenario: &str, arg: Option<&str>) -> Result<Value> {
        let python = sdk_python()?;
        let script = workspace_root().join("tests/sdk/scenarios.py");
        let mut cmd = tokio::process::Command::new(python);
        cmd.arg(script)
            .arg(self.port().to_string())
            .arg(&self.key)
            .arg(scenario);
        if let Some(arg) = arg {
            cmd.arg(arg);
        }
        cmd.kill_on_drop(true);
        let out = tokio::time::timeout(Duration::from_secs(120), cmd.output())
            .await
            .with_context(|| format!("SDK scenario {scenario} did not finish within 120 s"))??;
        let stdout = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() {
            bail!(
                "SDK scenario {scenario} failed ({}):\n{stdout}\n{}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let line = stdout.lines().last().unwrap_or("");
        serde_json::from_str(line)
            .with_context(|| format!("scenario {scenario} printed no JSON: {stdout}"))
    }

    /// The audit log's records.
    pub fn audit(&self) -> Vec<Value> {
        std::fs::read_to_string(self.data_dir.path().join("audit.jsonl"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }
}

/// Launches nspd with a headless browser on `url` and waits until that tab's probe is
/// active with at least `min_confidence` (60 s at most).
pub async fn open_tab(url: &str, min_confidence: f64) -> Result<(Nspd, AppSummary)> {
    open_tab_with_env(url, min_confidence, &[]).await
}

/// [`open_tab`] with extra environment variables for nspd.
pub async fn open_tab_with_env(
    url: &str,
    min_confidence: f64,
    env: &[(&str, &str)],
) -> Result<(Nspd, AppSummary)> {
    open_tab_in(url, min_confidence, env, fresh_data_dir()?).await
}

/// [`open_tab_with_env`] with nspd on `data_dir`.
pub async fn open_tab_in(
    url: &str,
    min_confidence: f64,
    env: &[(&str, &str)],
    data_dir: tempfile::TempDir,
) -> Result<(Nspd, AppSummary)> {
    let nspd = Nspd::launch_in(
        &NspdOptions {
            url: url.to_owned(),
            headless: true,
        },
        env,
        data_dir,
    )?;
    let app = nspd
        .wait_for_app(Duration::from_secs(60), |a| {
            a.probe_status == nsp_protocol::ProbeStatus::Active
                && a.confidence >= min_confidence
                && a.current_url.as_deref() == Some(url)
        })
        .await?;
    Ok((nspd, app))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tests running side by side never get the same port, even when the kernel would
    /// answer each with the port the other has just let go.
    #[test]
    fn free_ports_are_given_out_once() {
        let threads: Vec<std::thread::JoinHandle<Vec<u16>>> = (0..4)
            .map(|_| std::thread::spawn(|| (0..200).map(|_| free_port().unwrap()).collect()))
            .collect();
        let mut all: Vec<u16> = threads
            .into_iter()
            .flat_map(|t| t.join().expect("a thread asking for ports"))
            .collect();
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n, "a port was given out twice");
    }
}

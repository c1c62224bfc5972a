//! A minimal WebDriver client: chromedriver driving one headless Chromium session, with
//! or without an unpacked extension, for tests that need the browser itself rather than
//! nspd's view of it (the extension's page scripts run directly in a page, the popup
//! read back from its own page).
//!
//! WebDriver is plain HTTP+JSON, so this needs nothing beyond the harness's own hyper
//! client; chromedriver's `goog/cdp/execute` endpoint lets a script run before the
//! page's own (as the extension's main-world script does).

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Method, Request};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::{json, Value};

/// How to start the browser.
#[derive(Debug, Clone, Default)]
pub struct WebDriverOptions {
    /// An unpacked extension to load (and no other), e.g. [`crate::extension_dir`]. The
    /// browser loads a copy, so the built extension is never written to.
    pub extension: Option<PathBuf>,
    /// With `extension`: the nspd WebSocket URL the extension connects to, written into
    /// the copy's `nsp-config.json` as `nspd run --launch` does.
    pub daemon_ws_url: Option<String>,
    /// The window size; `None` leaves Chromium's default. Recorded layouts (the probe's
    /// corpus) depend on it.
    pub window_size: Option<(u32, u32)>,
    /// More command-line switches for the browser.
    pub extra_args: Vec<String>,
}

/// A chromedriver with one headless Chromium session. Dropping it ends the session, then
/// kills chromedriver's process group (the browser and its helpers are in it) and the
/// browser by pid, whatever happened.
#[derive(Debug)]
pub struct WebDriver {
    chromedriver: Child,
    browser_pid: Option<i32>,
    base: String,
    session: String,
    /// `host:port` of the browser's DevTools (chromedriver's `debuggerAddress`).
    debugger_address: Option<String>,
    client: Client<HttpConnector, Full<Bytes>>,
    /// The profile and the extension's copy.
    _dir: tempfile::TempDir,
}

/// `$env` if set, else the first of `candidates` that exists.
fn find(env: &str, candidates: &[&str]) -> Result<PathBuf> {
    if let Some(p) = std::env::var_os(env).filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    candidates
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
        .with_context(|| format!("none of {candidates:?} exists; set ${env}"))
}

/// Copies the folder `from` (an unpacked extension, a fixture site) to `to`.
pub fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

impl WebDriver {
    pub async fn start(opts: &WebDriverOptions) -> Result<WebDriver> {
        let chromedriver = find(
            "CHROMEDRIVER",
            &["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"],
        )?;
        let chrome = find(
            "CHROME",
            &[
                "/usr/bin/chromium",
                "/usr/bin/chromium-browser",
                "/usr/bin/google-chrome",
            ],
        )?;
        let dir = tempfile::Builder::new()
            .prefix("nsp-webdriver-")
            .tempdir()?;
        let profile = dir.path().join("profile");
        std::fs::create_dir(&profile)?;
        let mut args = vec![
            "--headless=new".to_owned(),
            "--disable-gpu".into(),
            format!("--user-data-dir={}", profile.display()),
            "--no-first-run".into(),
            "--no-default-browser-check".into(),
            "--disable-background-networking".into(),
            "--disable-component-update".into(),
            "--disable-sync".into(),
            "--password-store=basic".into(),
            "--use-mock-keychain".into(),
            // No crash handler in a process group of its own: the group kill reaps all.
            "--disable-breakpad".into(),
            "--disable-crash-reporter".into(),
        ];
        if let Some(from) = &opts.extension {
            let ext = dir.path().join("extension");
            copy_dir(from, &ext)?;
            if let Some(url) = &opts.daemon_ws_url {
                std::fs::write(
                    ext.join("nsp-config.json"),
                    json!({ "daemon_url": url }).to_string(),
                )?;
            }
            args.push(format!("--load-extension={}", ext.display()));
            args.push(format!("--disable-extensions-except={}", ext.display()));
        }
        args.extend(opts.extra_args.iter().cloned());
        if let Some((w, h)) = opts.window_size {
            args.push(format!("--window-size={w},{h}"));
        }
        // Chromium's sandbox cannot start as root (CI runs as root).
        if unsafe { libc::geteuid() } == 0 {
            args.push("--no-sandbox".into());
        }

        let port = crate::free_port()?;
        let mut cmd = Command::new(&chromedriver);
        cmd.arg(format!("--port={port}"));
        // Chromium's singleton socket folder and chromedriver's scratch go in our folder.
        nsp_daemon::launch::scratch_in(&mut cmd, dir.path())?;
        nsp_daemon::launch::owned_child(&mut cmd);
        let child = cmd
            .spawn()
            .with_context(|| format!("starting {}", chromedriver.display()))?;
        // Built before anything else can fail, so Drop reaps chromedriver from here on.
        let mut driver = WebDriver {
            chromedriver: child,
            browser_pid: None,
            base: format!("http://127.0.0.1:{port}"),
            session: String::new(),
            debugger_address: None,
            client: Client::builder(TokioExecutor::new()).build_http(),
            _dir: dir,
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Ok(status) = driver.call(Method::GET, "/status", None).await {
                if status["value"]["ready"] == true {
                    break;
                }
            }
            if Instant::now() > deadline {
                bail!("chromedriver did not become ready within 20 s");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": chrome, "args": args}
        }}});
        let created = driver.call(Method::POST, "/session", Some(&caps)).await?;
        driver.session = created["value"]["sessionId"]
            .as_str()
            .with_context(|| format!("no session: {created}"))?
            .to_owned();
        driver.debugger_address = created["value"]["capabilities"]["goog:chromeOptions"]
            ["debuggerAddress"]
            .as_str()
            .map(str::to_owned);
        driver.browser_pid = created["value"]["capabilities"]["goog:processID"]
            .as_i64()
            .and_then(|p| i32::try_from(p).ok());
        Ok(driver)
    }

    /// One WebDriver request; a WebDriver error in the answer is an `Err`.
    pub async fn call(&self, method: Method, path: &str, body: Option<&Value>) -> Result<Value> {
        let req = Request::builder()
            .method(method)
            .uri(format!("{}{path}", self.base))
            .header("content-type", "application/json")
            .body(Full::new(Bytes::from(
                body.map(|b| b.to_string()).unwrap_or_default(),
            )))?;
        let resp = tokio::time::timeout(Duration::from_secs(60), self.client.request(req))
            .await
            .context("chromedriver did not answer within 60 s")??;
        let bytes = resp.into_body().collect().await?.to_bytes();
        let value: Value = serde_json::from_slice(&bytes).with_context(|| {
            format!(
                "chromedriver sent non-JSON: {}",
                String::from_utf8_lossy(&bytes)
            )
        })?;
        if value["value"]["error"].is_string() {
            bail!("webdriver {path}: {}", value["value"]);
        }
        Ok(value)
    }

    /// `rest` (e.g. `/url`) under this session.
    pub fn session_path(&self, rest: &str) -> String {
        format!("/session/{}{rest}", self.session)
    }

    /// The handle of the window (tab) commands go to now.
    pub async fn window(&self) -> Result<Value> {
        Ok(self
            .call(Method::GET, &self.session_path("/window"), None)
            .await?["value"]
            .clone())
    }

    /// Sends the commands that follow to the window `handle`.
    pub async fn switch_to(&self, handle: &Value) -> Result<()> {
        self.call(
            Method::POST,
            &self.session_path("/window"),
            Some(&serde_json::json!({ "handle": handle })),
        )
        .await?;
        Ok(())
    }

    /// Sends the commands that follow to the window, other than `skip`, whose page is at
    /// `url`; `false` when no window shows it (the current one is then unspecified).
    pub async fn switch_to_page(&self, url: &str, skip: &Value) -> Result<bool> {
        let handles = self
            .call(Method::GET, &self.session_path("/window/handles"), None)
            .await?["value"]
            .clone();
        for handle in handles.as_array().into_iter().flatten() {
            // A window that closed since the list was read is not the one.
            if handle == skip || self.switch_to(handle).await.is_err() {
                continue;
            }
            let here = self
                .eval("return location.href;", serde_json::json!([]))
                .await;
            if here.ok().as_ref().and_then(Value::as_str) == Some(url) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The browser-wide DevTools WebSocket URL (for [`crate::faults::Cdp`]).
    pub async fn devtools_ws_url(&self) -> Result<String> {
        let addr = self
            .debugger_address
            .as_deref()
            .context("chromedriver reported no debuggerAddress")?;
        let version = crate::fetch_json(&format!("http://{addr}/json/version")).await?;
        version["webSocketDebuggerUrl"]
            .as_str()
            .map(str::to_owned)
            .with_context(|| format!("no webSocketDebuggerUrl in {version}"))
    }

    /// The first element matching `css` in the driven tab: its WebDriver id.
    pub async fn find(&self, css: &str) -> Result<String> {
        let v = self
            .call(
                Method::POST,
                &self.session_path("/element"),
                Some(&json!({"using": "css selector", "value": css})),
            )
            .await?;
        v["value"]
            .as_object()
            .and_then(|o| o.values().next())
            .and_then(Value::as_str)
            .map(str::to_owned)
            .with_context(|| format!("no element id in {v}"))
    }

    /// Clicks an element as a person would: real input events, `isTrusted` in the page.
    pub async fn click(&self, element: &str) -> Result<()> {
        self.call(
            Method::POST,
            &self.session_path(&format!("/element/{element}/click")),
            Some(&json!({})),
        )
        .await?;
        Ok(())
    }

    /// A PNG of one element as the browser renders it.
    pub async fn element_screenshot(&self, element: &str) -> Result<Vec<u8>> {
        let v = self
            .call(
                Method::GET,
                &self.session_path(&format!("/element/{element}/screenshot")),
                None,
            )
            .await?;
        let b64 = v["value"].as_str().context("no screenshot data")?;
        decode_base64(b64)
    }

    /// Runs `source` in every new document before the page's own scripts.
    pub async fn add_init_script(&self, source: &str) -> Result<()> {
        let body =
            json!({"cmd": "Page.addScriptToEvaluateOnNewDocument", "params": {"source": source}});
        self.call(
            Method::POST,
            &self.session_path("/goog/cdp/execute"),
            Some(&body),
        )
        .await?;
        Ok(())
    }

    /// Navigates the driven tab and waits for the load event.
    pub async fn goto(&self, url: &str) -> Result<()> {
        self.call(
            Method::POST,
            &self.session_path("/url"),
            Some(&json!({ "url": url })),
        )
        .await?;
        Ok(())
    }

    /// Runs a function body with `arguments`, returns its value.
    pub async fn execute(&self, script: &str, args: Value) -> Result<Value> {
        let v = self
            .call(
                Method::POST,
                &self.session_path("/execute/sync"),
                Some(&json!({"script": script, "args": args})),
            )
            .await?;
        Ok(v["value"].clone())
    }

    /// Runs an async function body; it must call `arguments[arguments.length - 1](result)`.
    pub async fn execute_async(&self, script: &str, args: Value) -> Result<Value> {
        let v = self
            .call(
                Method::POST,
                &self.session_path("/execute/async"),
                Some(&json!({"script": script, "args": args})),
            )
            .await?;
        Ok(v["value"].clone())
    }

    /// Runs an async function body in the driven tab with its arguments as `args`;
    /// `return` gives its value and a throw is an `Err`.
    pub async fn eval(&self, body: &str, args: Value) -> Result<Value> {
        let script = format!(
            "const done = arguments[arguments.length - 1];\
             (async (...args) => {{ {body} }})(...Array.from(arguments).slice(0, -1))\
               .then(done, (e) => done({{ script_error: String(e && e.stack || e) }}));"
        );
        let v = self.execute_async(&script, args).await?;
        if let Some(e) = v.get("script_error") {
            bail!("script failed: {e}");
        }
        Ok(v)
    }
}

/// Standard base64 (WebDriver's screenshot encoding), without a dependency for it.
fn decode_base64(text: &str) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text
        .bytes()
        .filter(|c| !c.is_ascii_whitespace() && *c != b'=')
    {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => bail!("not base64: {:?}", c as char),
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Ok(out)
}

impl Drop for WebDriver {
    fn drop(&mut self) {
        // Ending the session closes the browser; chromedriver alone would leave it
        // running. A plain blocking request: Drop cannot await.
        if !self.session.is_empty() {
            use std::io::{Read, Write};
            let addr = self.base.trim_start_matches("http://").to_owned();
            if let Ok(mut stream) = std::net::TcpStream::connect(&addr) {
                let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
                let req = format!(
                    "DELETE /session/{} HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                    self.session
                );
                let _ = stream.write_all(req.as_bytes());
                let mut sink = Vec::new();
                let _ = stream.read_to_end(&mut sink);
            }
        }
        let pgid = self.chromedriver.id() as i32;
        // SAFETY: kill(2) on the process group we created for chromedriver (the browser
        // it started and the browser's helpers are in it) and on the browser it reported;
        // ESRCH when they are already gone is fine.
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
            if let Some(pid) = self.browser_pid {
                libc::kill(pid, libc::SIGKILL);
            }
        }
        let _ = self.chromedriver.wait();
    }
}

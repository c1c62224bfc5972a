//! Shared by the probe's end-to-end tests: a minimal WebDriver client (chromedriver
//! driving headless Chromium, no extension) for tests that run the extension's page
//! scripts directly in a page, and small helpers around the demo app's corpus.
//!
//! WebDriver is plain HTTP+JSON, so this needs nothing beyond the harness's own hyper
//! client; chromedriver's `goog/cdp/execute` endpoint lets a script run before the
//! page's own (as the extension's main-world script does).

#![allow(dead_code)] // each test binary uses a different part

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Method, Request};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::{json, Value};

/// The extension's sources (not the built copy: these scripts need no build).
pub fn extension_src() -> PathBuf {
    nsp_tests::workspace_root().join("extension")
}

pub fn read_script(name: &str) -> String {
    std::fs::read_to_string(extension_src().join(name))
        .unwrap_or_else(|e| panic!("reading extension/{name}: {e}"))
}

fn find(env: &str, candidates: &[&str]) -> Result<PathBuf> {
    if let Some(p) = std::env::var_os(env).filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    for c in candidates {
        let p = PathBuf::from(c);
        if p.is_file() {
            return Ok(p);
        }
    }
    bail!("none of {candidates:?} exists; set ${env}")
}

/// A chromedriver with one headless Chromium session. Dropping it ends both.
pub struct Driver {
    child: Child,
    base: String,
    session: String,
    client: Client<HttpConnector, Full<Bytes>>,
    _profile: tempfile::TempDir,
}

impl Driver {
    pub async fn start() -> Result<Driver> {
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
        let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let child = Command::new(&chromedriver)
            .arg(format!("--port={port}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .with_context(|| format!("starting {}", chromedriver.display()))?;
        let profile = tempfile::Builder::new()
            .prefix("nsp-webdriver-")
            .tempdir()?;
        let mut driver = Driver {
            child,
            base: format!("http://127.0.0.1:{port}"),
            session: String::new(),
            client: Client::builder(TokioExecutor::new()).build_http(),
            _profile: profile,
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Ok(status) = driver.call(Method::GET, "/status", None).await {
                if status["value"]["ready"] == true {
                    break;
                }
            }
            if Instant::now() > deadline {
                bail!("chromedriver did not become ready");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let mut args = vec![
            "--headless=new".to_owned(),
            "--disable-gpu".into(),
            "--no-first-run".into(),
            "--disable-background-networking".into(),
            "--disable-component-update".into(),
            "--disable-sync".into(),
            "--window-size=1280,900".into(),
            format!("--user-data-dir={}", driver._profile.path().display()),
        ];
        // Chromium's sandbox cannot start as root (CI runs as root).
        if unsafe { libc::geteuid() } == 0 {
            args.push("--no-sandbox".into());
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
        Ok(driver)
    }

    async fn call(&self, method: Method, path: &str, body: Option<&Value>) -> Result<Value> {
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

    fn session_path(&self, rest: &str) -> String {
        format!("/session/{}{rest}", self.session)
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

    /// Navigates and waits for the load event.
    pub async fn goto(&self, url: &str) -> Result<()> {
        self.call(
            Method::POST,
            &self.session_path("/url"),
            Some(&json!({"url": url})),
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

    /// Loads the extension's page-side scripts into the current page (main world).
    pub async fn inject_probe_scripts(&self) -> Result<()> {
        for name in ["extract.js", "bridge.js", "dispatch.js"] {
            self.execute(&read_script(name), json!([])).await?;
        }
        Ok(())
    }

    /// A snapshot exactly as the extension takes it, as JSON text.
    pub async fn snapshot(&self) -> Result<String> {
        let v = self
            .execute(
                "const bridge = globalThis.__nspBridge || (globalThis.__nspBridge = NspBridge.create({}));\
                 const ex = new NspExtract.Extractor(document);\
                 const snap = bridge.snapshot(ex);\
                 snap.extract_ms = 0;\
                 return JSON.stringify(snap);",
                json!([]),
            )
            .await?;
        v.as_str()
            .map(str::to_owned)
            .context("snapshot was not a string")
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        // Ending the session closes its browser; chromedriver alone would leave it
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
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

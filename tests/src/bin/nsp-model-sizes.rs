//! `cargo xtask bench` (`NSP_BENCH_ONLY=size`): what a page costs a model to read (issue
//! 23). Every page of the real-app corpus (`fixtures/real/truth.json`) and the demo mail
//! app, in one headless Chromium with the extension and one real nspd: the bytes of
//! nspd's compact model view (`GET /state?view=model`, what MCP's `get_state` returns)
//! against Playwright's `ariaSnapshot()` of the same page in the same browser, and the
//! JSON `/state` beside them. Prints a markdown report with each target met or not.
//!
//!     nsp-model-sizes PLAYWRIGHT_CORE_DIR OUT_DIR
//!
//! Needs what the e2e tests need (`NSPD_BIN`, `NSP_EXTENSION_DIR`, `NSP_REAL_PYTHON`,
//! `NSP_REAL_NODE_MODULES`, `CHROME`); the texts of each page are left in OUT_DIR.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use nsp_daemon::launch::{Browser, LaunchOptions};
use nsp_fixtures::{DemoOptions, DemoServer};
use nsp_protocol::EXTENSION_CHANNEL_PATH;
use nsp_tests::real_apps::{real_dir, AppKind, RealApp, RealAppOptions};
use nsp_tests::{extension_dir, fresh_data_dir, workspace_root, Nspd};
use serde::Deserialize;
use serde_json::{json, Value};

/// Issue 23: no page's model view larger than its aria snapshot, and the geometric mean
/// of aria / model at least this.
const GEOMEAN_SMALLER: f64 = 1.5;

#[derive(Debug, Deserialize)]
struct Truth {
    pages: BTreeMap<String, TruthPage>,
}

#[derive(Debug, Deserialize)]
struct TruthPage {
    app: String,
    path: String,
    #[serde(default)]
    ready: Option<String>,
    controls: Vec<TruthControl>,
}

#[derive(Debug, Deserialize)]
struct TruthControl {
    action: Option<String>,
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [playwright, out_dir] = args.as_slice() else {
        bail!("usage: nsp-model-sizes PLAYWRIGHT_CORE_DIR OUT_DIR");
    };
    std::fs::create_dir_all(out_dir)?;
    let truth: Truth =
        serde_json::from_str(&std::fs::read_to_string(real_dir().join("truth.json"))?)?;

    let demo = DemoServer::start(DemoOptions::default()).await?;
    let mut apps: BTreeMap<String, RealApp> = BTreeMap::new();
    for page in truth.pages.values() {
        if !apps.contains_key(&page.app) {
            let app = RealApp::start(
                AppKind::parse(&page.app)?,
                RealAppOptions {
                    autologin: true,
                    ..RealAppOptions::default()
                },
            )
            .with_context(|| format!("starting {}", page.app))?;
            apps.insert(page.app.clone(), app);
        }
    }
    let mut pages = vec![
        json!({"name": "demo-mail", "url": demo.url("/"), "actions": ["archive", "send_email"]}),
    ];
    for (name, page) in &truth.pages {
        pages.push(json!({
            "name": name,
            "url": apps[&page.app].url(&page.path),
            "ready": page.ready,
            "actions": page.controls.iter().filter_map(|c| c.action.as_deref()).collect::<Vec<_>>(),
        }));
    }
    let pages_file = std::path::Path::new(out_dir).join("pages.json");
    std::fs::write(&pages_file, serde_json::to_vec(&pages)?)?;

    let nspd = Nspd::serve(0, fresh_data_dir()?)?;
    let browser = Browser::launch_with_args(
        &LaunchOptions {
            browser: std::env::var_os("CHROME").map(Into::into),
            extension_dir: extension_dir()?,
            headless: true,
            daemon_ws_url: format!("ws://127.0.0.1:{}{EXTENSION_CHANNEL_PATH}", nspd.port()),
            url: None,
            profiles_in: None,
        },
        &["--remote-debugging-port=0"],
    )?;
    let devtools = browser
        .devtools_ws_url(Duration::from_secs(30))
        .context("the browser wrote no DevToolsActivePort")?;

    let out = tokio::process::Command::new("node")
        .arg(workspace_root().join("tests/model_view/sizes.js"))
        .args([playwright, &devtools, &nspd.base, &nspd.key])
        .arg(&pages_file)
        .arg(out_dir)
        .kill_on_drop(true)
        .output()
        .await?;
    if !out.status.success() {
        bail!(
            "sizes.js failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report: Value = serde_json::from_str(stdout.lines().last().unwrap_or(""))
        .with_context(|| format!("no JSON from sizes.js: {stdout}"))?;
    print!("{}", markdown(&report));
    drop(browser);
    Ok(())
}

fn markdown(r: &Value) -> String {
    let pages = r["pages"].as_array().cloned().unwrap_or_default();
    let mut md =
        String::from("## What a page costs a model to read: model view vs ariaSnapshot\n\n");
    let _ = writeln!(
        md,
        "Headless Chromium {} with the extension, one nspd; per page, the bytes of nspd's \
         compact model view (`GET /state?view=model`, MCP `get_state`'s default), of \
         Playwright's `locator('body').ariaSnapshot()` of the same tab, and of the JSON \
         `GET /state`. Pages: the demo mail app and every page of the real-app corpus.\n",
        r["chromium"].as_str().unwrap_or("?")
    );
    md.push_str(
        "| page | model view | ariaSnapshot | smaller | JSON /state |\n|---|---:|---:|---:|---:|\n",
    );
    let (mut log_sum, mut larger, mut larger_with_lines) = (0.0, Vec::new(), Vec::new());
    for p in &pages {
        let (model, aria, json) = (
            p["model_bytes"].as_f64().unwrap_or(0.0),
            p["aria_bytes"].as_f64().unwrap_or(0.0),
            p["json_bytes"].as_f64().unwrap_or(0.0),
        );
        let ratio = aria / model.max(1.0);
        log_sum += ratio.ln();
        let name = p["name"].as_str().unwrap_or("?");
        if model > aria {
            larger.push(name.to_owned());
        }
        if model > aria + p["page_lines_bytes"].as_f64().unwrap_or(0.0) {
            larger_with_lines.push(name.to_owned());
        }
        let _ = writeln!(
            md,
            "| {name}{} | {:.2} KB | {:.2} KB | {ratio:.2}× | {:.1} KB |",
            if p["offered_all"] == true {
                ""
            } else {
                " (not every labelled action yet)"
            },
            model / 1000.0,
            aria / 1000.0,
            json / 1000.0
        );
    }
    let geomean = (log_sum / pages.len().max(1) as f64).exp();
    let mark = |ok: bool| if ok { "met" } else { "**not met**" };
    let _ = writeln!(md, "\n| target | measured | |\n|---|---|---|");
    // "1 of 24 larger (radicale-login)".
    let count = |names: &[String]| {
        let mut out = format!("{} of {} larger", names.len(), pages.len());
        if !names.is_empty() {
            let _ = write!(out, " ({})", names.join(", "));
        }
        out
    };
    let _ = writeln!(
        md,
        "| no page's model view larger than its ariaSnapshot | {} | {} |",
        count(&larger),
        mark(larger.is_empty())
    );
    let _ = writeln!(
        md,
        "| geometric mean ≥ {GEOMEAN_SMALLER}× smaller than ariaSnapshot | {geomean:.2}× | {} |",
        mark(geomean >= GEOMEAN_SMALLER)
    );
    // Our header carries the page's URL and title, which ariaSnapshot() does not and
    // Playwright MCP sends next to it: on a page of a few controls those lines are most
    // of the difference. Reported, not a target of the issue.
    let _ = writeln!(
        md,
        "| (reported) no page larger than ariaSnapshot plus the URL and title lines Playwright MCP sends with it | {} | |",
        count(&larger_with_lines),
    );
    md
}

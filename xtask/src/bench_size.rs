//! `NSP_BENCH_ONLY=size`: what a page costs a model to read (issue 23). Runs
//! `nsp-model-sizes` (tests/src/bin/), which opens the demo app and every page of the
//! real-app corpus in one headless Chromium with the extension and one nspd, and compares
//! the compact model view with Playwright's `ariaSnapshot()` of the same tab; its
//! markdown goes into the report. The texts of each page stay in `target/bench/model_view/`.

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context, Result};

pub fn run(root: &Path, extension: &Path, chromium: &Path) -> Result<String> {
    let work = root.join("target/bench-probe");
    crate::bench_loop::ensure_npm(&work)?;
    let real = crate::tools::ensure_real_apps(root)?;
    let nspd = crate::bench_loop::build_nspd(root)?;
    crate::stage("size: model view vs ariaSnapshot on the real apps and the demo");
    let cargo = crate::tools::cargo();
    crate::tools::run(Command::new(&cargo).current_dir(root).args([
        "build",
        "-p",
        "nsp-tests",
        "--bin",
        "nsp-model-sizes",
    ]))
    .context("cargo build -p nsp-tests --bin nsp-model-sizes")?;
    let out_dir = root.join("target/bench/model_view");
    // A debug build, as the e2e tests use: it only drives; nspd is the release one.
    let out = Command::new(root.join("target/debug/nsp-model-sizes"))
        .current_dir(root)
        .arg(work.join("node_modules/playwright-core"))
        .arg(&out_dir)
        .env("NSPD_BIN", &nspd)
        .env("NSP_EXTENSION_DIR", extension)
        .env("CHROME", chromium)
        .env("NSP_REAL_PYTHON", &real.python)
        .env("NSP_REAL_NODE_MODULES", &real.node_modules)
        .output()
        .context("running nsp-model-sizes")?;
    if !out.status.success() {
        bail!(
            "nsp-model-sizes failed ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

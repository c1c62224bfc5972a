//! `cargo xtask test`: installs what is missing, then runs every check in the order that
//! fails fastest: fmt, clippy (native and wasm32), native tests, the probe's browser
//! tests (wasm-pack in headless Chromium), the extension build, the end-to-end tests
//! (which also run real open-source apps, installed under `target/real-apps/`).

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;

use crate::tools;

#[derive(Debug, Args)]
pub struct TestArgs {
    /// Skip fmt and clippy (for quick local iterations; CI runs them).
    #[arg(long)]
    pub no_lint: bool,
}

pub fn run(root: &Path, args: &TestArgs) -> Result<()> {
    let started = Instant::now();
    let tools = tools::ensure_for_dist(root)?;
    let wasm_pack = tools::ensure_wasm_pack()?;
    let (browser, chromedriver) = tools::ensure_browser()?;
    let python = tools::ensure_sdk_venv(root)?;
    let openapi_python = tools::ensure_openapi_venv(root)?;
    let mcp_python = tools::ensure_mcp_venv(root)?;
    let real_apps = tools::ensure_real_apps(root)?;
    let own_venv_apps = tools::ensure_own_venv_apps(root)?;
    let cargo = tools::cargo();

    if !args.no_lint {
        crate::stage("cargo fmt --check");
        tools::run(
            Command::new(&cargo)
                .current_dir(root)
                .args(["fmt", "--all", "--check"]),
        )
        .context("formatting differs: run `cargo fmt --all`")?;

        crate::stage("cargo clippy (native, -D warnings)");
        tools::run(Command::new(&cargo).current_dir(root).args([
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ]))?;
        crate::stage("cargo clippy (probe for wasm32, -D warnings)");
        tools::run(Command::new(&cargo).current_dir(root).args([
            "clippy",
            "--package",
            "nsp-probe",
            "--target",
            "wasm32-unknown-unknown",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ]))?;
    }

    crate::stage("native tests");
    tools::run(
        Command::new(&cargo)
            .current_dir(root)
            .args([
                "test",
                "--workspace",
                "--exclude",
                "nsp-tests",
                "--no-fail-fast",
            ])
            // The daemon's contract test validates the OpenAPI document with it.
            .env("NSP_OPENAPI_PYTHON", &openapi_python)
            // Tests that may skip when a tool is missing fail instead: everything they
            // need was installed above.
            .env("NSP_XTASK_TEST", "1"),
    )?;

    crate::stage("probe browser tests (wasm-pack test --headless --chrome)");
    // wasm-bindgen's test runner stops chromedriver before it has removed the browser's
    // profile (25 MB in /tmp per test binary): their temporary folder is ours, emptied
    // after the run whatever its outcome.
    let scratch = root.join("target/tmp/probe-browser-tests");
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch)
        .with_context(|| format!("cannot create {}", scratch.display()))?;
    let ran = tools::run(
        Command::new(&wasm_pack)
            .current_dir(root.join("probe-wasm"))
            .args(["test", "--headless", "--chrome", "--chromedriver"])
            .arg(&chromedriver)
            .env("WASM_BINDGEN_TEST_TIMEOUT", "120")
            .env("TMPDIR", &scratch)
            // wasm-pack must use our pinned wasm-bindgen, never download one.
            .env("WASM_PACK_CACHE", root.join("target/wasm-pack-cache")),
    );
    let _ = std::fs::remove_dir_all(&scratch);
    ran?;

    let extension = crate::dist::run(root, &tools)?;
    if !args.no_lint {
        // After dist: the probe module's declarations come from its wasm-bindgen build.
        check_js(root)?;
    }

    crate::stage("end-to-end tests (real Chromium, extension, nspd, fixture apps)");
    tools::run(Command::new(&cargo).current_dir(root).args([
        "build",
        "--package",
        "nsp-daemon",
        "--bin",
        "nspd",
    ]))?;
    tools::run(
        Command::new(&cargo)
            .current_dir(root)
            .args([
                "test",
                "--package",
                "nsp-tests",
                "--no-fail-fast",
                "--",
                "--test-threads",
                "2",
            ])
            .env("NSP_EXTENSION_DIR", &extension)
            .env("NSPD_BIN", root.join("target/debug/nspd"))
            .env("NSP_SDK_PYTHON", &python)
            .env("NSP_MCP_PYTHON", &mcp_python)
            .env("NSP_REAL_PYTHON", &real_apps.python)
            .envs(own_venv_apps.iter().map(|(var, python)| (var, python)))
            .env("NSP_REAL_NODE_MODULES", &real_apps.node_modules)
            .env("CHROMEDRIVER", &chromedriver)
            .env("CHROME", &browser),
    )?;

    println!(
        "\nall checks passed in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// `tsc --checkJs` over the extension's JavaScript (config in `xtask/js/`). Needs the
/// probe's declarations from `cargo xtask dist` (target/dist/types).
pub fn check_js(root: &Path) -> Result<()> {
    crate::stage("tsc --checkJs (the extension's JavaScript)");
    let tsc = tools::ensure_js_check(root)?;
    tools::run(
        Command::new(tsc)
            .current_dir(root)
            .args(["--project", "xtask/js/tsconfig.json", "--pretty", "false"]),
    )
    .context("the extension's JavaScript does not type-check: fix what tsc reports above (JSDoc types; globals in xtask/js/extension-globals.d.ts)")?;
    for dir in ["extension", "extension/worker"] {
        for entry in std::fs::read_dir(root.join(dir))? {
            let path = entry?.path();
            if path.extension().is_some_and(|e| e == "js") {
                let text = std::fs::read_to_string(&path)?;
                if let Some((name, line)) = duplicate_function(&text) {
                    anyhow::bail!(
                        "{}:{line}: a second `function {name}` in the same scope replaces the first \
                         everywhere in it (JavaScript hoists both; tsc does not object): rename one",
                        path.display()
                    );
                }
            }
        }
    }
    Ok(())
}

/// The first function declared twice at the same indentation in one file, with the
/// line of the second: in the extension's one-scope-per-file scripts, the same scope.
/// (A second `captionOf` once replaced the field-caption one and renamed fields.)
fn duplicate_function(text: &str) -> Option<(String, usize)> {
    let mut seen = std::collections::HashSet::new();
    for (n, line) in text.lines().enumerate() {
        let body = line.trim_start();
        let indent = line.len() - body.len();
        let body = body.strip_prefix("async ").unwrap_or(body);
        let Some(rest) = body.strip_prefix("function ") else {
            continue;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$')
            .collect();
        if !name.is_empty() && !seen.insert((indent, name.clone())) {
            return Some((name, n + 1));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::duplicate_function;

    #[test]
    fn a_function_declared_twice_in_one_scope_is_found() {
        let twice = "(() => {\n  function a() {}\n  function b() {\n    function a() {}\n  }\n  async function a() {}\n})();\n";
        assert_eq!(duplicate_function(twice), Some(("a".to_owned(), 6)));
        assert_eq!(
            duplicate_function("  function a() {}\n  function ab() {}\n"),
            None
        );
    }
}

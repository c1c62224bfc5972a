//! Shared by the probe's end-to-end tests: small helpers around the extension's page
//! scripts, run directly in a page driven by the harness's [`WebDriver`] (headless
//! Chromium, no extension).

#![allow(dead_code)] // each test binary uses a different part

use std::path::PathBuf;

use anyhow::{Context, Result};
use nsp_tests::{WebDriver, WebDriverOptions};
use serde_json::json;

/// The extension's sources (not the built copy: these scripts need no build).
pub fn extension_src() -> PathBuf {
    nsp_tests::workspace_root().join("extension")
}

pub fn read_script(name: &str) -> String {
    std::fs::read_to_string(extension_src().join(name))
        .unwrap_or_else(|e| panic!("reading extension/{name}: {e}"))
}

/// A browser without the extension, at the window size the recorded snapshots were
/// taken at (their layout depends on it).
pub async fn start_driver() -> Result<WebDriver> {
    WebDriver::start(&WebDriverOptions {
        window_size: Some((1280, 900)),
        ..WebDriverOptions::default()
    })
    .await
}

/// Loads the extension's page-side scripts into the current page (main world).
pub async fn inject_probe_scripts(driver: &WebDriver) -> Result<()> {
    for name in ["extract.js", "bridge.js", "dispatch.js"] {
        driver.execute(&read_script(name), json!([])).await?;
    }
    Ok(())
}

/// A snapshot exactly as the extension takes it, as JSON text.
pub async fn snapshot(driver: &WebDriver) -> Result<String> {
    let v = driver
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

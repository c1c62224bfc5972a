//! The probe benchmark: our full capture (extraction + classification) against
//! Playwright's `ariaSnapshot()` on generated app pages of 600 to 35,000 elements, in one
//! headless Chromium run; the size of our state against the aria snapshot's text; the
//! time of an incremental update after one small DOM change; the wasm's size. Returns
//! markdown for BENCHMARKS.md.
//!
//! The browser side is `bench_probe.js`, run with node and playwright-core (installed
//! with npm under `target/bench-probe`, bench only; it drives the system Chromium
//! through `executablePath`). The extension is the one `cargo xtask dist` builds, or
//! `$NSP_EXTENSION_DIR`.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use serde_json::Value;

const SCRIPT: &str = include_str!("bench_probe.js");
const SIZES: &str = "600,1700,5000,12000,35000";

/// Targets from the probe issue: (elements, ms) for a full capture.
const CAPTURE_TARGETS: [(u64, f64); 2] = [(600, 5.0), (5000, 15.0)];
const INCREMENTAL_TARGET_MS: f64 = 2.0;
const SPEEDUP_TARGET: f64 = 3.0;
const SIZE_RATIO_TARGET: f64 = 3.0;
/// 250 KB gzipped since issue 20 (150 KB before; the cost that matters is per page),
/// checked as 250,000 bytes, the stricter reading.
const WASM_GZ_TARGET: u64 = 250_000;
/// Issue 19: the dispatcher's actionability checks may add at most this to a dispatched
/// click at p50.
const CLICK_CHECKS_TARGET_MS: f64 = 0.2;

/// The extension the benchmarks load: `$NSP_EXTENSION_DIR`, else the one `cargo xtask
/// dist` builds (built now).
pub fn extension(root: &Path) -> Result<PathBuf> {
    Ok(match std::env::var_os("NSP_EXTENSION_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => {
            let tools = crate::tools::ensure_for_dist(root)?;
            crate::dist::run(root, &tools)?
        }
    })
}

pub fn run(root: &Path, extension: &Path) -> Result<String> {
    let wasm = extension.join("probe/nsp_probe_bg.wasm");
    if !wasm.is_file() {
        bail!(
            "no probe wasm at {}: build the extension first",
            wasm.display()
        );
    }
    let (browser, _) = crate::tools::ensure_browser()?;
    let work = root.join("target/bench-probe");
    std::fs::create_dir_all(&work)?;
    crate::bench_loop::ensure_npm(&work)?;
    std::fs::write(work.join("bench_probe.js"), SCRIPT)?;

    crate::stage("benchmarking the probe against ariaSnapshot (headless Chromium)");
    let out = Command::new("node")
        .current_dir(&work)
        .arg("bench_probe.js")
        .arg(extension)
        .arg(&browser)
        .arg(std::env::var("NSP_BENCH_SIZES").unwrap_or_else(|_| SIZES.into()))
        .output()
        .context("running node (is Node.js installed?)")?;
    if !out.status.success() {
        bail!(
            "the benchmark failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let report: Value = serde_json::from_slice(&out.stdout).with_context(|| {
        format!(
            "the benchmark printed no JSON:\n{}",
            String::from_utf8_lossy(&out.stdout)
        )
    })?;
    let raw = std::fs::metadata(&wasm)?.len();
    let gz = gzip_len(&wasm)?;
    Ok(markdown(&report, raw, gz))
}

fn gzip_len(path: &Path) -> Result<u64> {
    let data = std::fs::read(path)?;
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(&data)?;
    Ok(enc.finish()?.len() as u64)
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

fn mark(ok: bool) -> &'static str {
    if ok {
        "met"
    } else {
        "**missed**"
    }
}

fn markdown(report: &Value, raw: u64, gz: u64) -> String {
    let mut md = String::new();
    let chromium = report["chromium"].as_str().unwrap_or("");
    let _ = writeln!(md, "## Probe: capture vs Playwright ariaSnapshot\n");
    let _ = writeln!(
        md,
        "Headless Chromium {chromium}, one run, generated app pages (navigation, a filter \
         form, an orders table with a link, a badge and two buttons per row). Median of 7 \
         runs after a warm-up of at least 10 captures and 300 ms of capturing, and of at \
         least 2 aria snapshots and 300 ms (V8 optimizes wasm and JS by the work they do; \
         the extension re-captures on every change, so the warm state is what agents get; \
         the first, cold capture is in the \"cold\" column). \"in page\" is extraction + \
         JSON + wasm analysis + JSON back, timed in the page; \"via CDP\" is the same as seen from node, which is how \
         `ariaSnapshot()` is timed. Incremental: one counter's text changes; the time from \
         the mutated node to the parsed delta (patch of the changed subtree, wasm update).\n"
    );
    let _ = writeln!(
        md,
        "| elements | recorded | capture in page (extract + analyze) | cold | capture via CDP | ariaSnapshot | speedup | incremental | state | aria text | smaller | actions | objects | confidence |"
    );
    let _ = writeln!(
        md,
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    let rows = report["results"].as_array().cloned().unwrap_or_default();
    for r in &rows {
        let _ = writeln!(
            md,
            "| {} | {} | {:.1} ms ({:.1} + {:.1}) | {:.0} ms | {:.1} ms | {:.1} ms | {:.1}× | {:.2} ms | {:.1} KB | {:.1} KB | {:.1}× | {} | {} | {} |",
            r["elements"],
            r["records"],
            f(&r["capture_ms"]),
            f(&r["extract_ms"]),
            f(&r["analyze_ms"]),
            f(&r["cold_ms"]),
            f(&r["capture_outer_ms"]),
            f(&r["aria_ms"]),
            f(&r["aria_ms"]) / f(&r["capture_outer_ms"]),
            f(&r["incremental_ms"]),
            f(&r["state_bytes"]) / 1024.0,
            f(&r["aria_bytes"]) / 1024.0,
            f(&r["aria_bytes"]) / f(&r["state_bytes"]),
            r["actions"],
            r["objects"],
            r["confidence"],
        );
    }
    let _ = writeln!(
        md,
        "\nProbe wasm: {:.1} KiB raw, {:.1} KiB gzipped.\n",
        raw as f64 / 1024.0,
        gz as f64 / 1024.0
    );
    let _ = writeln!(md, "| target | measured | |\n|---|---|---|");
    let at = |n: u64| {
        rows.iter()
            .find(|r| r["target_elements"].as_u64() == Some(n))
            .cloned()
    };
    for (n, ms) in CAPTURE_TARGETS {
        if let Some(r) = at(n) {
            let got = f(&r["capture_ms"]);
            let _ = writeln!(
                md,
                "| full capture ≤ {ms} ms at {n} | {got:.1} ms | {} |",
                mark(got <= ms)
            );
        }
    }
    if let Some(r) = at(5000) {
        let speedup = f(&r["aria_ms"]) / f(&r["capture_outer_ms"]);
        let ratio = f(&r["aria_bytes"]) / f(&r["state_bytes"]);
        let inc = f(&r["incremental_ms"]);
        let _ = writeln!(
            md,
            "| ≥ {SPEEDUP_TARGET}× faster than ariaSnapshot at 5000 | {speedup:.1}× | {} |",
            mark(speedup >= SPEEDUP_TARGET)
        );
        let _ = writeln!(
            md,
            "| incremental update ≤ {INCREMENTAL_TARGET_MS} ms at 5000 | {inc:.2} ms | {} |",
            mark(inc <= INCREMENTAL_TARGET_MS)
        );
        let _ = writeln!(
            md,
            "| state ≥ {SIZE_RATIO_TARGET}× smaller than the aria snapshot at 5000 | {ratio:.1}× | {} |",
            mark(ratio >= SIZE_RATIO_TARGET)
        );
    }
    // The most any page of the run needs: the check reads layout, which grows with it.
    let checks = rows
        .iter()
        .map(|r| f(&r["click_checks_ms"]))
        .fold(0.0, f64::max);
    let _ = writeln!(
        md,
        "| actionability checks add ≤ {CLICK_CHECKS_TARGET_MS} ms to a dispatched click (p50, worst page) | {checks:.3} ms | {} |",
        mark(checks <= CLICK_CHECKS_TARGET_MS)
    );
    let _ = writeln!(
        md,
        "| wasm ≤ 250 KB gzipped | {:.1} KB ({:.1} KiB) | {} |",
        gz as f64 / 1000.0,
        gz as f64 / 1024.0,
        mark(gz <= WASM_GZ_TARGET)
    );
    md
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_reports_targets() {
        let report = serde_json::json!({"chromium": "156", "results": [
            {"target_elements": 5000, "elements": 4999, "records": 3900, "capture_ms": 12.0, "cold_ms": 90.0,
             "extract_ms": 6.0, "analyze_ms": 6.0, "capture_outer_ms": 14.0, "aria_ms": 200.0,
             "incremental_ms": 1.0, "click_checks_ms": 0.045, "state_bytes": 30000, "aria_bytes": 120000, "actions": 15,
             "objects": 500, "confidence": 1.0}
        ]});
        let md = markdown(&report, 600_000, 140_000);
        assert!(
            md.contains("| 4999 | 3900 | 12.0 ms (6.0 + 6.0) | 90 ms | 14.0 ms | 200.0 ms | 14.3×"),
            "{md}"
        );
        assert!(
            md.contains("| full capture ≤ 15 ms at 5000 | 12.0 ms | met |"),
            "{md}"
        );
        assert!(
            md.contains("| state ≥ 3× smaller than the aria snapshot at 5000 | 4.0× | met |"),
            "{md}"
        );
        assert!(
            md.contains("| actionability checks add ≤ 0.2 ms to a dispatched click (p50, worst page) | 0.045 ms | met |"),
            "{md}"
        );
        assert!(
            md.contains("| wasm ≤ 250 KB gzipped | 140.0 KB (136.7 KiB) | met |"),
            "{md}"
        );
    }
}

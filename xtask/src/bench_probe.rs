//! The probe benchmark: our full capture (extraction + classification) against
//! Playwright's `ariaSnapshot()` on generated app pages of 600 to 35,000 elements, in one
//! headless Chromium run; the size of our state against the aria snapshot's text; the
//! time of an incremental update after one small DOM change; the wasm's size; a page
//! load's first (cold) capture and the memory a tab pays (issue 23); and, with the
//! extension loaded and an nspd, a page load's time to its first state at nspd. Returns
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

/// Targets from the probe issue: (elements, ms) for a full warm capture; issue 23 set the
/// one at 5,000 elements from 15 to 8 ms.
const CAPTURE_TARGETS: [(u64, f64); 2] = [(600, 5.0), (5000, 8.0)];
/// Issue 23: a page load's first (cold) capture, (elements, ms).
const COLD_TARGETS: [(u64, f64); 2] = [(600, 20.0), (5000, 40.0)];
/// Issue 23: the extension's memory per tab at 5,000 elements (JS heap + wasm memory).
/// Checked as 4,000,000 bytes, the stricter reading.
const MEMORY_TARGET_BYTES: f64 = 4_000_000.0;
const INCREMENTAL_TARGET_MS: f64 = 2.0;
/// Issue 23 (3× before).
const SPEEDUP_TARGET: f64 = 20.0;
const SIZE_RATIO_TARGET: f64 = 3.0;
/// 300 KB gzipped since issue 23 (250 KB since issue 20, 150 KB before; the cost that
/// matters is per page), checked as 300,000 bytes, the stricter reading.
pub const WASM_GZ_TARGET: u64 = 300_000;
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
        .arg(root.join("fixtures/real/snapshots"))
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
    let nav = if std::env::var("NSP_BENCH_NAV").as_deref() == Ok("0") {
        None
    } else {
        Some(page_loads(root, &work, extension, &browser)?)
    };
    let raw = std::fs::metadata(&wasm)?.len();
    let gz = gzip_len(&wasm)?;
    let mut md = markdown(&report, raw, gz);
    if let Some(nav) = nav {
        md.push_str(&nav_markdown(&nav, &report));
    }
    Ok(md)
}

/// A page load's time to its first state at nspd (release), with the extension loaded
/// and pointed at it (`bench_probe.js nav`). `NSP_BENCH_NAV=0` skips it.
fn page_loads(root: &Path, work: &Path, extension: &Path, browser: &Path) -> Result<Value> {
    let nspd = crate::bench_loop::build_nspd(root)?;
    let daemon = crate::bench_loop::Daemon::start(&nspd, "nav")?;
    crate::stage("timing page loads to their first state at nspd (headless Chromium)");
    let out = Command::new("node")
        .current_dir(work)
        .arg("bench_probe.js")
        .arg("nav")
        .arg(extension)
        .arg(browser)
        .arg(std::env::var("NSP_BENCH_NAV_SIZES").unwrap_or_else(|_| "600,5000".into()))
        .arg(&daemon.base)
        .arg(&daemon.key)
        .output()
        .context("running node (is Node.js installed?)")?;
    drop(daemon);
    if !out.status.success() {
        bail!(
            "the page-load benchmark failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.lines().last().unwrap_or(""))
        .with_context(|| format!("the page-load benchmark printed no JSON:\n{text}"))
}

fn nav_markdown(nav: &Value, report: &Value) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "\nPage load to first state at nspd (cold): the extension loaded in headless \
         Chromium and pointed at nspd (release, or the build `NSP_BENCH_NSPD` names); \
         each load in a new tab on a host of its own (`*.localhost`, a new renderer \
         process), from the navigation's start to nspd listing the tab with a state \
         (polled every 2 ms), median of the loads. The content script starts at \
         `document_idle` and waits for 120 ms without DOM changes before its first \
         capture (warming its extraction up meanwhile), so that wait is in the figure; \
         \"page load\" is the page's own load event. \"first capture\" is that \
         state's own account of the capture the content script took (its \
         `probe_metadata`, timed in the content script: the extraction, then the \
         snapshot's JSON, the analysis where the tier says and the capture parsed): the \
         cold capture as the extension takes it on a page load. \"warm capture\" is the \
         same account of fresh captures (`?fresh=true`) of one open tab, after 10 of \
         them. The service worker's wasm memory is read from the worker with one tab of \
         the size open and with 4 (it never shrinks, so the first figure holds one \
         analysis's working memory, and the growth past it is what each further tab \
         keeps: its last snapshot and capture).\n"
    );
    let _ = writeln!(
        md,
        "| elements | tier | navigation to first state at nspd | page load | ours after the page's load | first capture (extract + analyze) | warm capture (extract + analyze) | worker wasm, one tab / per further tab |"
    );
    let _ = writeln!(md, "|---:|---|---:|---:|---:|---:|---:|---:|");
    let results = nav["results"].as_array().cloned().unwrap_or_default();
    for r in &results {
        let _ = writeln!(
            md,
            "| {} | {} | {:.0} ms | {:.0} ms | {:.0} ms | {:.1} ms ({:.1} + {:.1}) | {:.1} ms ({:.1} + {:.1}) | {:.2} / {:.2} MB |",
            r["target_elements"],
            r["tier"].as_str().unwrap_or("?"),
            f(&r["nav_state_ms"]),
            f(&r["nav_load_ms"]),
            f(&r["nav_state_ms"]) - f(&r["nav_load_ms"]),
            f(&r["first_capture_ms"]),
            f(&r["first_extract_ms"]),
            f(&r["first_analyze_ms"]),
            f(&r["warm_capture_ms"]),
            f(&r["warm_extract_ms"]),
            f(&r["warm_analyze_ms"]),
            f(&r["worker_wasm_one_tab"]) / MB,
            f(&r["worker_wasm_per_tab"]) / MB,
        );
    }
    // The cold targets once more, on the capture the extension itself took first (the
    // table above judges them on the in-page column, taken right after the warm-up).
    let _ = writeln!(md, "\n| target | measured | |\n|---|---|---|");
    let at = |n: u64| {
        results
            .iter()
            .find(|r| r["target_elements"].as_u64() == Some(n))
    };
    for (n, ms) in COLD_TARGETS {
        if let Some(r) = at(n) {
            let got = f(&r["first_capture_ms"]);
            let _ = writeln!(
                md,
                "| cold first capture ≤ {ms} ms at {n}, as the extension took it on a page load | {got:.1} ms | {} |",
                mark(got <= ms)
            );
        }
    }
    // A page of this size is analysed in the worker: what a tab costs is the page's JS
    // heap (the in-page run's, which also holds the page probe's JS side) and what the
    // worker keeps for it.
    let heap = report["results"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| r["target_elements"].as_u64() == Some(5000))
        .map(|r| f(&r["heap_bytes"]));
    if let (Some(r), Some(heap)) = (at(5000), heap) {
        if r["tier"] == "wasm_extension" {
            let mem = heap + f(&r["worker_wasm_per_tab"]);
            let _ = writeln!(
                md,
                "| memory per tab ≤ {:.0} MB at 5000, analysed in the worker (the page's JS heap + the worker's wasm per tab) | {:.2} MB | {} |",
                MEMORY_TARGET_BYTES / MB,
                mem / MB,
                mark(mem <= MEMORY_TARGET_BYTES)
            );
        }
    }
    md
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

const MB: f64 = 1_000_000.0;

/// The extension's memory in one tab: its JS heap and the wasm instance's memory.
fn memory(r: &Value) -> f64 {
    f(&r["heap_bytes"]) + f(&r["wasm_memory_bytes"])
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
        "\nCold: a page load's first capture, in a fresh browser context on an origin of its \
         own each time (a new renderer process, so no compiled wasm or tier-up is shared), \
         median of the runs. \"load\" (importing the glue, fetching, compiling and \
         instantiating the wasm, making the probe) and the warm-up (one analysis of a \
         small built-in page, the probe corpus's checkout page: `warm()`) precede it, as in the content script, which \
         waits for a quiet page (120 ms) before its first capture and warms the probe \
         up if that wait goes on; \"without the warm-up\" is the same first capture in \
         fresh contexts that skip it. The anchor is the first `ariaSnapshot()` of a \
         freshly loaded page in a fresh context. Memory per tab: the JS heap in use after a full GC (CDP \
         `HeapProfiler.collectGarbage`, `Runtime.getHeapUsage`) of the warm tab (probe \
         loaded, extractor and last capture kept, as the content script keeps them) minus \
         that of the same page without our scripts, plus the wasm instance's linear memory \
         (its high-water mark; it never shrinks).\n"
    );
    let _ = writeln!(
        md,
        "| elements | cold capture (extract + analyze) | load + warm-up | without the warm-up | cold ariaSnapshot | cold vs warm | JS heap | wasm memory | memory per tab |"
    );
    let _ = writeln!(md, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in &rows {
        let _ = writeln!(
            md,
            "| {} | {:.1} ms ({:.1} + {:.1}) | {:.1} + {:.1} ms | {:.1} ms | {:.1} ms | {:.1}× | {:.2} MB | {:.2} MB | {:.2} MB |",
            r["elements"],
            f(&r["cold_ms"]),
            f(&r["cold_extract_ms"]),
            f(&r["cold_analyze_ms"]),
            f(&r["cold_load_ms"]),
            f(&r["cold_warm_ms"]),
            f(&r["cold_unwarmed_ms"]),
            f(&r["cold_aria_ms"]),
            f(&r["cold_ms"]) / f(&r["capture_ms"]),
            f(&r["heap_bytes"]) / MB,
            f(&r["wasm_memory_bytes"]) / MB,
            memory(r) / MB,
        );
    }
    if let Some(real) = report["real_cold"].as_object() {
        let _ = writeln!(
            md,
            "\nCold first analysis of pages not generated here: each of the {} recorded \
             real-app snapshots (`fixtures/real/snapshots/`) analysed in {} fresh contexts \
             right after `warm()` ({:.1} ms, median), median per page: geometric mean \
             {:.1} ms, slowest {:.1} ms ({}).",
            real["pages"],
            real["runs"],
            f(&real["warm_ms"]),
            f(&real["geomean_ms"]),
            f(&real["slowest_ms"]),
            real["slowest"].as_str().unwrap_or("")
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
    for (n, ms) in COLD_TARGETS {
        if let Some(r) = at(n) {
            let got = f(&r["cold_ms"]);
            let _ = writeln!(
                md,
                "| cold first capture ≤ {ms} ms at {n}, a probe of the page's own (anchor: cold ariaSnapshot {:.1} ms, {:.1}× ours) | {got:.1} ms | {} |",
                f(&r["cold_aria_ms"]),
                f(&r["cold_aria_ms"]) / got,
                mark(got <= ms)
            );
        }
    }
    if let Some(r) = at(5000) {
        let mem = memory(&r);
        let _ = writeln!(
            md,
            "| memory per tab ≤ {:.0} MB at 5000, a probe of the page's own (JS heap + wasm memory) | {:.2} MB | {} |",
            MEMORY_TARGET_BYTES / MB,
            mem / MB,
            mark(mem <= MEMORY_TARGET_BYTES)
        );
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
        "| wasm ≤ 300 KB gzipped | {:.1} KB ({:.1} KiB) | {} |",
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
    fn page_loads_are_tabled() {
        let nav = serde_json::json!({"results": [
            {"target_elements": 600, "tier": "wasm_extension", "nav_state_ms": 190.4, "nav_load_ms": 40.2,
             "first_capture_ms": 14.5, "first_extract_ms": 9.25, "first_analyze_ms": 5.25,
             "warm_capture_ms": 4.0, "warm_extract_ms": 2.5, "warm_analyze_ms": 1.5,
             "worker_wasm_one_tab": 720896, "worker_wasm_per_tab": 174762},
            {"target_elements": 5000, "tier": "wasm_extension", "nav_state_ms": 300.0, "nav_load_ms": 150.0,
             "first_capture_ms": 50.0, "first_extract_ms": 35.0, "first_analyze_ms": 15.0,
             "warm_capture_ms": 18.0, "warm_extract_ms": 12.0, "warm_analyze_ms": 6.0,
             "worker_wasm_one_tab": 1966080, "worker_wasm_per_tab": 700000}
        ]});
        let report = serde_json::json!({"results": [
            {"target_elements": 5000, "heap_bytes": 1300000}
        ]});
        let md = nav_markdown(&nav, &report);
        assert!(
            md.contains("| 600 | wasm_extension | 190 ms | 40 ms | 150 ms | 14.5 ms (9.2 + 5.2) | 4.0 ms (2.5 + 1.5) | 0.72 / 0.17 MB |"),
            "{md}"
        );
        assert!(
            md.contains(
                "| cold first capture ≤ 20 ms at 600, as the extension took it on a page load | 14.5 ms | met |"
            ),
            "{md}"
        );
        assert!(
            md.contains(
                "| cold first capture ≤ 40 ms at 5000, as the extension took it on a page load | 50.0 ms | **missed** |"
            ),
            "{md}"
        );
        assert!(
            md.contains(
                "| memory per tab ≤ 4 MB at 5000, analysed in the worker (the page's JS heap + the worker's wasm per tab) | 2.00 MB | met |"
            ),
            "{md}"
        );
    }

    #[test]
    fn markdown_reports_targets() {
        let report = serde_json::json!({"chromium": "156", "results": [
            {"target_elements": 5000, "elements": 4999, "records": 3900, "capture_ms": 12.0, "cold_ms": 36.0,
             "cold_extract_ms": 16.0, "cold_analyze_ms": 20.0, "cold_load_ms": 9.0, "cold_warm_ms": 5.0,
             "cold_unwarmed_ms": 60.0, "cold_aria_ms": 300.0,
             "heap_bytes": 2000000, "wasm_memory_bytes": 3000000,
             "extract_ms": 6.0, "analyze_ms": 6.0, "capture_outer_ms": 14.0, "aria_ms": 200.0,
             "incremental_ms": 1.0, "click_checks_ms": 0.045, "state_bytes": 30000, "aria_bytes": 120000, "actions": 15,
             "objects": 500, "confidence": 1.0}
        ], "real_cold": {"pages": 23, "runs": 3, "geomean_ms": 6.8, "slowest_ms": 21.04,
             "slowest": "trac-ticket", "warm_ms": 40.2}});
        let md = markdown(&report, 600_000, 140_000);
        assert!(
            md.contains("each of the 23 recorded real-app snapshots (`fixtures/real/snapshots/`) analysed in 3 fresh contexts right after `warm()` (40.2 ms, median), median per page: geometric mean 6.8 ms, slowest 21.0 ms (trac-ticket)."),
            "{md}"
        );
        assert!(
            md.contains("| 4999 | 3900 | 12.0 ms (6.0 + 6.0) | 36 ms | 14.0 ms | 200.0 ms | 14.3×"),
            "{md}"
        );
        assert!(
            md.contains("| full capture ≤ 8 ms at 5000 | 12.0 ms | **missed** |"),
            "{md}"
        );
        assert!(
            md.contains("| cold first capture ≤ 40 ms at 5000, a probe of the page's own (anchor: cold ariaSnapshot 300.0 ms, 8.3× ours) | 36.0 ms | met |"),
            "{md}"
        );
        assert!(
            md.contains("| 4999 | 36.0 ms (16.0 + 20.0) | 9.0 + 5.0 ms | 60.0 ms | 300.0 ms | 3.0× | 2.00 MB | 3.00 MB | 5.00 MB |"),
            "{md}"
        );
        assert!(
            md.contains(
                "| memory per tab ≤ 4 MB at 5000, a probe of the page's own (JS heap + wasm memory) | 5.00 MB | **missed** |"
            ),
            "{md}"
        );
        assert!(
            md.contains("| ≥ 20× faster than ariaSnapshot at 5000 | 14.3× | **missed** |"),
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
            md.contains("| wasm ≤ 300 KB gzipped | 140.0 KB (136.7 KiB) | met |"),
            "{md}"
        );
    }
}

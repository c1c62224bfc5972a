//! `cargo xtask bench`: every benchmark, each reported against the anchor measured in
//! the same run, into `target/bench/report.md` (BENCHMARKS.md quotes it).
//! `NSP_BENCH_ONLY=verify,scope,probe,loop,size` runs a subset (comma-separated).

use std::path::Path;

use anyhow::{Context, Result};

pub fn run(root: &Path) -> Result<()> {
    let only = std::env::var("NSP_BENCH_ONLY").unwrap_or_default();
    let wanted = |name: &str| only.is_empty() || only.split(',').any(|o| o.trim() == name);
    let mut report = String::from("# Benchmark report\n\n");
    if wanted("verify") {
        crate::stage("verify expressions: nsp-verify vs cel-interpreter");
        let verify = crate::bench_verify::run(root)?;
        println!("{verify}");
        report.push_str("## verify_expression: parse + evaluate, 1,000-key state\n\n");
        report.push_str(&verify);
        report.push('\n');
    }
    if wanted("scope") {
        crate::stage("agents: the scope check per request vs the default key's guard");
        let scope = crate::bench_verify::cargo_bench(root, "nsp-daemon", "scope")?;
        println!("{scope}");
        report.push_str("## Agents: what a scope costs per request\n\n");
        report.push_str(&scope);
        report.push('\n');
    }
    let needs_browser = wanted("probe") || wanted("loop") || wanted("size");
    let browser = if needs_browser {
        Some((
            crate::bench_probe::extension(root)?,
            crate::tools::ensure_browser()?.0,
        ))
    } else {
        None
    };
    if let (true, Some((extension, _))) = (wanted("probe"), &browser) {
        crate::stage("probe: full capture and incremental update vs Playwright ariaSnapshot");
        let probe = crate::bench_probe::run(root, extension)?;
        println!("{probe}");
        report.push_str(&probe);
        report.push('\n');
    }
    if let (true, Some((extension, chromium))) = (wanted("loop"), &browser) {
        let inputs = crate::bench_loop::Inputs {
            extension,
            browser: chromium,
        };
        let lp = crate::bench_loop::run(root, &inputs)?;
        println!("{lp}");
        report.push_str(&lp);
        report.push('\n');
    }
    if let (true, Some((extension, chromium))) = (wanted("size"), &browser) {
        let size = crate::bench_size::run(root, extension, chromium)?;
        println!("{size}");
        report.push_str(&size);
        report.push('\n');
    }
    let dir = root.join("target/bench");
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("report.md");
    std::fs::write(&path, report).with_context(|| format!("writing {}", path.display()))?;
    println!("\nreport: {}", path.display());
    Ok(())
}

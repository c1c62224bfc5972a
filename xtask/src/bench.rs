//! `cargo xtask bench`: every benchmark, each reported against the anchor measured in
//! the same run, into `target/bench/report.md` (BENCHMARKS.md quotes it).

use std::path::Path;

use anyhow::{Context, Result};

pub fn run(root: &Path) -> Result<()> {
    let mut report = String::from("# Benchmark report\n\n");
    crate::stage("verify expressions: nsp-verify vs cel-interpreter");
    let verify = crate::bench_verify::run(root)?;
    println!("{verify}");
    report.push_str("## verify_expression: parse + evaluate, 1,000-key state\n\n");
    report.push_str(&verify);
    report.push('\n');
    crate::stage("probe: full capture and incremental update vs Playwright ariaSnapshot");
    let probe = crate::bench_probe::run(root)?;
    println!("{probe}");
    report.push_str(&probe);
    report.push('\n');
    let dir = root.join("target/bench");
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("report.md");
    std::fs::write(&path, report).with_context(|| format!("writing {}", path.display()))?;
    println!("\nreport: {}", path.display());
    Ok(())
}

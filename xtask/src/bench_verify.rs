//! `cargo xtask bench`: the benchmarks that are plain `cargo bench` targets printing a
//! markdown table: nsp-verify's expression benchmark, our parser and evaluator against
//! cel-interpreter on the same 1,000-key state (`verify/benches/expr.rs`), and what an
//! agent's scope costs nspd per request (`daemon/benches/scope.rs`).

use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};

/// Runs `cargo bench -p nsp-verify --bench expr` (an optimised build), shows its whole
/// report, and returns the markdown table from it.
pub fn run(root: &Path) -> Result<String> {
    cargo_bench(root, "nsp-verify", "expr")
}

/// Runs `cargo bench -p PACKAGE --bench BENCH`, shows its whole report, and returns the
/// markdown table from it.
pub fn cargo_bench(root: &Path, package: &str, bench: &str) -> Result<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    println!("running cargo bench -p {package} --bench {bench}");
    let output = Command::new(&cargo)
        .current_dir(root)
        .args(["bench", "-p", package, "--bench", bench])
        .stderr(Stdio::inherit())
        .output()
        .context("starting cargo bench")?;
    let report = String::from_utf8_lossy(&output.stdout);
    print!("{report}");
    if !output.status.success() {
        bail!(
            "cargo bench -p {package} --bench {bench} failed with {}",
            output.status
        );
    }
    let table: Vec<&str> = report
        .lines()
        .filter(|line| line.starts_with('|'))
        .collect();
    if table.is_empty() {
        bail!("the benchmark printed no table");
    }
    Ok(table.join("\n") + "\n")
}

//! `cargo xtask fuzz`: runs nsp-verify's `parse_eval` fuzz target (in `fuzz/`) for a
//! given time, installing cargo-fuzz first when it is missing.
//!
//! cargo-fuzz passes nightly-only flags (`-Zsanitizer=address`, coverage passes) to
//! rustc. Only the stable toolchain exists on our machines and none other can be
//! downloaded; the stable compiler accepts those flags when `RUSTC_BOOTSTRAP=1` is set,
//! which is what this task does, for the fuzz build only.

use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};

/// The one fuzz target, in `fuzz/fuzz_targets/parse_eval.rs`.
const TARGET: &str = "parse_eval";
/// cargo-fuzz version we install and run with.
const CARGO_FUZZ_VERSION: &str = "0.13.2";

/// Fuzzes `parse_eval` for `seconds`; fails if the fuzzer found a crash (the input is
/// then in `fuzz/artifacts/parse_eval/`).
pub fn run(root: &Path, seconds: u64) -> Result<()> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    ensure_cargo_fuzz(&cargo)?;
    let dict = root.join("fuzz").join("parse_eval.dict");
    println!(
        "fuzzing {TARGET} for {seconds} s: RUSTC_BOOTSTRAP=1 cargo fuzz run {TARGET} \
         (corpus in fuzz/corpus/{TARGET}, crashes in fuzz/artifacts/{TARGET})"
    );
    let status = Command::new(&cargo)
        .current_dir(root)
        .env("RUSTC_BOOTSTRAP", "1")
        .args(["fuzz", "run", TARGET, "--"])
        .arg(format!("-max_total_time={seconds}"))
        .arg(format!("-dict={}", dict.display()))
        .arg("-print_final_stats=1")
        .status()
        .context("starting cargo fuzz")?;
    if !status.success() {
        bail!(
            "the fuzzer stopped with {status}; the failing input is in fuzz/artifacts/{TARGET}/ \
             (replay: RUSTC_BOOTSTRAP=1 cargo fuzz run {TARGET} fuzz/artifacts/{TARGET}/<file>)"
        );
    }
    Ok(())
}

fn ensure_cargo_fuzz(cargo: &str) -> Result<()> {
    let installed = Command::new(cargo)
        .args(["fuzz", "--version"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if installed {
        return Ok(());
    }
    println!(
        "cargo-fuzz is missing: cargo install cargo-fuzz --version {CARGO_FUZZ_VERSION} --locked"
    );
    let status = Command::new(cargo)
        .args([
            "install",
            "cargo-fuzz",
            "--version",
            CARGO_FUZZ_VERSION,
            "--locked",
        ])
        .status()
        .context("starting cargo install cargo-fuzz")?;
    if !status.success() {
        bail!("cargo install cargo-fuzz failed with {status}");
    }
    Ok(())
}

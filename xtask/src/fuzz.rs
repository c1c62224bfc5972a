//! `cargo xtask fuzz [TARGET]`: runs the fuzz targets in `fuzz/` (the verify expression
//! parser, the extension-channel decoder, the `/action` request decoder, the probe on
//! what a page writes) one after another for a given time each, installing cargo-fuzz first when it is missing, and
//! prints each target's executions and outcome at the end.
//!
//! cargo-fuzz passes nightly-only flags (`-Zsanitizer=address`, coverage passes) to
//! rustc. Only the stable toolchain exists on our machines and none other can be
//! downloaded; the stable compiler accepts those flags when `RUSTC_BOOTSTRAP=1` is set,
//! which is what this task does, for the fuzz build only.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};

/// One fuzz target (in `fuzz/fuzz_targets/`).
struct Target {
    name: &'static str,
    /// Its dictionary, in `fuzz/`.
    dict: Option<&'static str>,
    /// Its seed inputs: a directory in `fuzz/seeds/`, read but never written (new inputs
    /// go to `fuzz/corpus/<target>`, which git ignores).
    seeds: Option<&'static str>,
    /// More libFuzzer flags.
    flags: &'static [&'static str],
}

const TARGETS: &[Target] = &[
    Target {
        name: "parse_eval",
        dict: Some("parse_eval.dict"),
        seeds: None,
        flags: &[],
    },
    Target {
        name: "extension_message",
        dict: Some("json.dict"),
        seeds: Some("seeds/extension_message"),
        flags: &[],
    },
    Target {
        name: "action_request",
        dict: Some("json.dict"),
        seeds: Some("seeds/action_request"),
        flags: &[],
    },
    // Its bytes are choices, not text (no dictionary; its pages are the corpus's, which
    // it reads itself), and a page needs dozens of them: libFuzzer's length control
    // would keep it at a few bytes while each new byte still finds new code.
    Target {
        name: "probe_snapshot",
        dict: None,
        seeds: None,
        flags: &["-len_control=0", "-max_len=1024"],
    },
];
/// Seconds one input may take before libFuzzer calls it a failure (a page that costs
/// the probe seconds is one: the worker serves every tab).
const INPUT_TIMEOUT_SECS: u64 = 10;
/// cargo-fuzz version we install and run with.
const CARGO_FUZZ_VERSION: &str = "0.13.2";

/// What one run reported.
struct Outcome {
    target: &'static str,
    execs: Option<u64>,
    ok: bool,
}

/// Fuzzes every target (or only `only`) for `seconds` each; fails if the fuzzer found a
/// crash in any (the input is then in `fuzz/artifacts/<target>/`). A crash in one target
/// does not stop the others from running.
pub fn run(root: &Path, seconds: u64, only: Option<&str>) -> Result<()> {
    let targets: Vec<&Target> = TARGETS
        .iter()
        .filter(|t| only.is_none_or(|o| o == t.name))
        .collect();
    if targets.is_empty() {
        let names: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
        bail!(
            "no fuzz target {:?}; the targets are {names:?}",
            only.unwrap_or("")
        );
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    ensure_cargo_fuzz(&cargo)?;
    let mut outcomes = Vec::new();
    for target in targets {
        outcomes.push(fuzz_one(root, &cargo, target, seconds)?);
    }
    println!("\nfuzz summary ({seconds} s per target):");
    for o in &outcomes {
        let execs = o.execs.map_or("?".to_owned(), |n| n.to_string());
        let verdict = if o.ok {
            "no crash".to_owned()
        } else {
            format!("FAILED: see fuzz/artifacts/{}/", o.target)
        };
        println!("  {:<18} {execs:>12} execs  {verdict}", o.target);
    }
    let failed: Vec<&str> = outcomes
        .iter()
        .filter(|o| !o.ok)
        .map(|o| o.target)
        .collect();
    if !failed.is_empty() {
        bail!(
            "the fuzzer stopped with a failure in {failed:?}; replay an input with \
             RUSTC_BOOTSTRAP=1 cargo fuzz run <target> fuzz/artifacts/<target>/<file>"
        );
    }
    Ok(())
}

fn fuzz_one(root: &Path, cargo: &str, target: &Target, seconds: u64) -> Result<Outcome> {
    let Target {
        name: target,
        dict,
        seeds,
        flags,
    } = *target;
    let fuzz_dir = root.join("fuzz");
    // libFuzzer writes new inputs into the first corpus directory only.
    let corpus = fuzz_dir.join("corpus").join(target);
    std::fs::create_dir_all(&corpus).with_context(|| format!("creating {}", corpus.display()))?;
    println!(
        "fuzzing {target} for {seconds} s: RUSTC_BOOTSTRAP=1 cargo fuzz run {target} \
         (corpus in fuzz/corpus/{target}, crashes in fuzz/artifacts/{target})"
    );
    let mut cmd = Command::new(cargo);
    cmd.current_dir(root)
        .env("RUSTC_BOOTSTRAP", "1")
        .args(["fuzz", "run", target])
        .arg(&corpus);
    if let Some(seeds) = seeds {
        cmd.arg(fuzz_dir.join(seeds));
    }
    cmd.arg("--")
        .arg(format!("-max_total_time={seconds}"))
        .arg(format!("-timeout={INPUT_TIMEOUT_SECS}"))
        .args(flags);
    if let Some(dict) = dict {
        cmd.arg(format!("-dict={}", fuzz_dir.join(dict).display()));
    }
    let mut child = cmd
        .arg("-print_final_stats=1")
        .stderr(Stdio::piped())
        .spawn()
        .context("starting cargo fuzz")?;
    // libFuzzer reports on stderr: pass it through and keep the final count.
    let mut execs = None;
    let stderr = child.stderr.take().context("cargo fuzz's stderr")?;
    let mut out = std::io::stderr();
    for line in BufReader::new(stderr).lines() {
        let line = line.context("reading cargo fuzz's output")?;
        if let Some(n) = line.strip_prefix("stat::number_of_executed_units:") {
            execs = n.trim().parse().ok();
        }
        let _ = writeln!(out, "{line}");
    }
    let status = child.wait().context("waiting for cargo fuzz")?;
    Ok(Outcome {
        target,
        execs,
        ok: status.success(),
    })
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

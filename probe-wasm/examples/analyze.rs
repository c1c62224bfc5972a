//! Analyses a snapshot file natively, N times, and prints the time per analysis: the
//! probe's hot path without a browser, for profilers that count instructions
//! (`valgrind --tool=callgrind`), which give the same answer on a busy machine.
//!
//! `cargo run --release -p nsp-probe --example analyze -- snapshot.json [N]`
//!
//! A snapshot is what the extension's extractor produces (`JSON.stringify` of
//! `NspBridge.create({}).snapshot(new NspExtract.Extractor(document))` in a page).

use std::time::Instant;

use nsp_probe::Probe;
use nsp_protocol::ProbeTier;

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .ok_or("usage: analyze <snapshot.json> [iterations]")?;
    let n: u32 = match args.next() {
        Some(s) => s.parse().map_err(|e| format!("iterations {s:?}: {e}"))?,
        None => 20,
    };
    let json = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
    let mut probe = Probe::with_tier(ProbeTier::WasmInPage);
    let started = Instant::now();
    let mut bytes = 0;
    for _ in 0..n.max(1) {
        bytes = probe.analyze_json(&json)?.len();
    }
    println!(
        "{:?} per analysis ({} iterations, {bytes} bytes of capture)",
        started.elapsed() / n.max(1),
        n.max(1)
    );
    Ok(())
}

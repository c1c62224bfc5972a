//! Prints why the probe decided what it did for a recorded snapshot: every action (or
//! the ones named) with its tier, confidence and weighed signals; with `--objects` in
//! place of the names, the state's objects instead.
//!
//! `cargo run -p nsp-probe --example explain -- fixtures/pages/snapshots/mail.json [action…|--objects]`

use nsp_probe::analyze_snapshot;
use nsp_protocol::snapshot::PageSnapshot;
use nsp_protocol::ProbeTier;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: explain SNAPSHOT.json [ACTION…|--objects]");
        std::process::exit(2);
    };
    let names: Vec<String> = args.collect();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(1);
    });
    let snap: PageSnapshot = serde_json::from_str(&text).unwrap_or_else(|e| {
        eprintln!("{path}: not a page snapshot: {e}");
        std::process::exit(1);
    });
    let capture = analyze_snapshot(&snap, ProbeTier::WasmInPage);
    println!(
        "state confidence {:.3}: {}",
        capture.confidence,
        capture
            .probe_metadata
            .confidence_reason
            .as_deref()
            .unwrap_or("")
    );
    if names == ["--objects"] {
        for (key, value) in &capture.objects {
            println!("{key} = {value}");
        }
        return;
    }
    for (name, action) in &capture.actions {
        if action.internal_target.starts_with("builtin:")
            || (!names.is_empty() && !names.contains(name))
        {
            continue;
        }
        println!(
            "{name}: {} {:.3} — {}",
            action.reversibility.as_str(),
            action.confidence,
            action.internal_target
        );
        if let Some(why) = capture.explain.get(name) {
            for s in &why.signals {
                println!("    {s}");
            }
        }
    }
}

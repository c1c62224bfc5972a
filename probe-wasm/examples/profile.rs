//! Times the probe natively on a recorded snapshot: `cargo run --release -p nsp-probe
//! --example profile -- snapshot.json`. For finding where a capture's time goes.

use std::time::Instant;

use nsp_probe::Probe;
use nsp_protocol::ProbeTier;

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: profile SNAPSHOT.json");
    let text = std::fs::read_to_string(&path).expect("read snapshot");
    let mut probe = Probe::with_tier(ProbeTier::WasmInPage);
    let t = Instant::now();
    let snap: nsp_protocol::snapshot::PageSnapshot = serde_json::from_str(&text).expect("json");
    println!("parse: {:?} ({} records)", t.elapsed(), snap.elements.len());
    let t = Instant::now();
    let capture = nsp_probe::analyze_snapshot(&snap, ProbeTier::WasmInPage);
    println!("analyze: {:?}", t.elapsed());
    let t = Instant::now();
    let out = serde_json::to_string(&capture).expect("json");
    println!("encode: {:?} ({} bytes)", t.elapsed(), out.len());
    for _ in 0..3 {
        let t = Instant::now();
        probe.analyze_json(&text).expect("analyze");
        println!("analyze_json: {:?}", t.elapsed());
    }
}

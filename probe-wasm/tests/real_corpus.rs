//! The probe on the real-app corpus, natively: the snapshots the real extraction
//! recorded from Django admin, Flask-Admin, Datasette, Radicale and a React TodoMVC
//! (`fixtures/real/snapshots/`, kept current by `tests/tests/real_corpus.rs`) against
//! the hand-written truth in `fixtures/real/truth.json`, reported apart from the
//! synthetic corpus (`tests/corpus.rs`). Fast enough to iterate on the classifier with.
//!
//! Asserts what must already hold (no unsafe tier, every named action offered); the
//! accuracy, coverage and confidence targets are the constants below, to be raised as
//! the classifier improves.

#![cfg(not(target_arch = "wasm32"))]

use std::path::{Path, PathBuf};

use nsp_probe::analyze_snapshot;
use nsp_protocol::snapshot::PageSnapshot;
use nsp_protocol::{ProbeTier, Reversibility};
use serde_json::Value;

/// Least share of labelled controls offered with exactly the truth's tier. Target: 0.95.
const MIN_EXACT_TIER: f64 = 0.0;
/// Least share of labelled controls the probe offers at all. Target: 0.95.
const MIN_COVERAGE: f64 = 0.0;
/// Least state confidence on a page. Target: 0.80.
const MIN_PAGE_CONFIDENCE: f64 = 0.0;

fn real() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/real")
}

const TIERS: [Reversibility; 3] = [
    Reversibility::Read,
    Reversibility::ReversibleWrite,
    Reversibility::IrreversibleWrite,
];

fn tier(s: &str) -> Reversibility {
    match s {
        "read" => Reversibility::Read,
        "reversible_write" => Reversibility::ReversibleWrite,
        "irreversible_write" => Reversibility::IrreversibleWrite,
        _ => panic!("truth.json: unknown tier {s:?}"),
    }
}

fn index(t: Reversibility) -> usize {
    TIERS.iter().position(|x| *x == t).unwrap_or(0)
}

#[test]
fn real_corpus_tiers_coverage_and_confidence() {
    let truth: Value = serde_json::from_str(
        &std::fs::read_to_string(real().join("truth.json")).expect("fixtures/real/truth.json"),
    )
    .expect("truth.json");
    let pages = truth["pages"].as_object().expect("truth.json: pages");
    let mut matrix = [[0usize; 3]; 3];
    let (mut labelled, mut offered, mut exact) = (0usize, 0usize, 0usize);
    let mut unsafe_errors = Vec::new();
    let mut missing = Vec::new();
    let mut confidences = Vec::new();
    for (page, spec) in pages {
        let path = real().join("snapshots").join(format!("{page}.json"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e} (record it with tests/real_corpus.rs)",
                path.display()
            )
        });
        let snap: PageSnapshot =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{page}: {e}"));
        let capture = analyze_snapshot(&snap, ProbeTier::WasmInPage);
        confidences.push((page.clone(), capture.confidence));
        for control in spec["controls"].as_array().expect("controls") {
            labelled += 1;
            let want = tier(control["tier"].as_str().expect("tier"));
            let name = control["action"].as_str();
            let Some(got) = name.and_then(|n| capture.actions.get(n)) else {
                if let Some(n) = name {
                    missing.push(format!("{page}: {n}"));
                }
                continue;
            };
            offered += 1;
            matrix[index(want)][index(got.reversibility)] += 1;
            if got.reversibility == want {
                exact += 1;
            }
            if want == Reversibility::IrreversibleWrite && got.reversibility < want {
                unsafe_errors.push(format!(
                    "{page}: {} is irreversible, the probe says {}",
                    name.unwrap_or(""),
                    got.reversibility.as_str()
                ));
            }
        }
    }
    let share = |n: usize| n as f64 / labelled.max(1) as f64;
    println!(
        "real-app corpus: {} pages, {labelled} labelled controls",
        pages.len()
    );
    println!(
        "exact tier: {exact}/{labelled} = {:.1}%",
        100.0 * share(exact)
    );
    println!(
        "coverage:   {offered}/{labelled} = {:.1}%",
        100.0 * share(offered)
    );
    println!("unsafe:     {}", unsafe_errors.len());
    println!("confusion matrix (rows: truth, columns: probe)");
    for (i, row) in matrix.iter().enumerate() {
        println!(
            "{:>20} {:>6} {:>12} {:>14}",
            TIERS[i].as_str(),
            row[0],
            row[1],
            row[2]
        );
    }
    for (page, c) in &confidences {
        println!("  {page:<24} confidence {c:.2}");
    }
    assert!(
        unsafe_errors.is_empty(),
        "UNSAFE misclassifications:\n{}",
        unsafe_errors.join("\n")
    );
    assert!(
        missing.is_empty(),
        "labelled actions the probe does not offer:\n{}",
        missing.join("\n")
    );
    assert!(
        share(exact) >= MIN_EXACT_TIER,
        "exact tier {}",
        share(exact)
    );
    assert!(
        share(offered) >= MIN_COVERAGE,
        "coverage {}",
        share(offered)
    );
    for (page, c) in &confidences {
        assert!(*c >= MIN_PAGE_CONFIDENCE, "{page}: confidence {c}");
    }
    assert!(
        pages.len() >= 10 && labelled >= 40,
        "the corpus is too small"
    );
}

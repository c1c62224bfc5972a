//! The probe on its corpus: golden outputs (expect-test style, `UPDATE_EXPECT=1`
//! refreshes them) and the safety check of tiers against hand-labelled truth.
//!
//! Inputs are the snapshots the real extraction recorded in headless Chromium
//! (`fixtures/pages/snapshots/`, kept current by `tests/tests/probe_corpus.rs`), so these
//! run natively and fast. The truth (`fixtures/pages/truth.json`) is written by a person
//! reading each page, never copied from the probe's output.

#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};

use nsp_probe::analyze_snapshot;
use nsp_protocol::snapshot::PageSnapshot;
use nsp_protocol::{PageCapture, ProbeTier, Reversibility};
use serde_json::Value;

fn pages() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/pages")
}

fn snapshots() -> Vec<(String, PageSnapshot)> {
    let mut out = Vec::new();
    let dir = pages().join("snapshots");
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let snap: PageSnapshot =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        out.push((name, snap));
    }
    out
}

fn band(c: f64) -> &'static str {
    if c >= 0.95 {
        "all actions (>= 0.95)"
    } else if c >= 0.8 {
        "up to reversible writes (0.80-0.94)"
    } else if c >= 0.4 {
        "reads only (0.40-0.79)"
    } else {
        "nothing (< 0.40)"
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 70 {
        format!("{}…", s.chars().take(70).collect::<String>())
    } else {
        s
    }
}

/// The golden text: what an agent would rely on, in a stable order.
fn render(capture: &PageCapture) -> String {
    let mut out = String::new();
    let meta = &capture.probe_metadata;
    let _ = writeln!(out, "app: {}", capture.app_name);
    let _ = writeln!(
        out,
        "confidence: {:.4} — {} — {}",
        capture.confidence,
        band(capture.confidence),
        meta.confidence_reason.as_deref().unwrap_or("")
    );
    let _ = writeln!(
        out,
        "view: {}",
        capture.context.view.as_deref().unwrap_or("")
    );
    let _ = writeln!(out, "actions:");
    for (name, a) in &capture.actions {
        if a.internal_target.starts_with("builtin:") {
            continue;
        }
        let _ = writeln!(
            out,
            "  {name} {} — {} {:.2} — {}",
            a.signature,
            a.reversibility.as_str(),
            a.confidence,
            a.internal_target
        );
        let _ = writeln!(out, "    desc: {}", a.description);
        for p in &a.parameters {
            let mut line = format!("    {}: {}", p.name, p.description);
            if let Some(allowed) = &p.allowed_values {
                let list: Vec<String> = allowed.iter().map(short).collect();
                let _ = write!(line, " | allowed {}", list.join(", "));
            }
            if let Some(d) = &p.default_value {
                let _ = write!(line, " | default {}", short(d));
            }
            let _ = writeln!(out, "{line}");
        }
        if let Some(why) = capture.explain.get(name) {
            let _ = writeln!(out, "    why: {}", why.tier_reason);
        }
    }
    let _ = writeln!(out, "objects ({}):", capture.objects.len());
    for (k, v) in capture.objects.iter().take(60) {
        let _ = writeln!(out, "  {k} = {}", short(v));
    }
    if capture.objects.len() > 60 {
        let _ = writeln!(out, "  … {} more", capture.objects.len() - 60);
    }
    out
}

#[test]
fn corpus_goldens() {
    let update = std::env::var("UPDATE_EXPECT").is_ok_and(|v| v == "1");
    let dir = pages().join("expected");
    std::fs::create_dir_all(&dir).unwrap();
    let mut stale = Vec::new();
    for (name, snap) in snapshots() {
        let capture = analyze_snapshot(&snap, ProbeTier::WasmInPage);
        let text = render(&capture);
        let path = dir.join(format!("{name}.txt"));
        if update {
            std::fs::write(&path, &text).unwrap();
            continue;
        }
        let golden = std::fs::read_to_string(&path).unwrap_or_default();
        if golden != text {
            let diff = golden
                .lines()
                .zip(text.lines())
                .find(|(a, b)| a != b)
                .map(|(a, b)| format!("\n    golden: {a}\n    now:    {b}"))
                .unwrap_or_else(|| " (lengths differ)".into());
            stale.push(format!("{name}:{diff}"));
        }
    }
    assert!(
        stale.is_empty(),
        "probe output differs from the goldens in fixtures/pages/expected (refresh with \
         UPDATE_EXPECT=1 cargo test -p nsp-probe --test corpus, and review the diff):\n{}",
        stale.join("\n")
    );
}

#[test]
fn every_corpus_page_has_a_recorded_snapshot() {
    let recorded: Vec<String> = snapshots().into_iter().map(|(n, _)| n).collect();
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(pages()).unwrap().flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        if let Some(name) = file.strip_suffix(".html") {
            if !recorded.iter().any(|r| r == name) {
                missing.push(name.to_owned());
            }
        }
    }
    assert!(missing.is_empty(), "record snapshots for {missing:?}");
    assert!(recorded.len() >= 15, "{recorded:?}");
}

const TIERS: [Reversibility; 3] = [
    Reversibility::Read,
    Reversibility::ReversibleWrite,
    Reversibility::IrreversibleWrite,
];

fn parse_tier(s: &str) -> Reversibility {
    match s {
        "read" => Reversibility::Read,
        "reversible_write" => Reversibility::ReversibleWrite,
        "irreversible_write" => Reversibility::IrreversibleWrite,
        _ => panic!("truth.json: unknown tier {s:?}"),
    }
}

/// Tier accuracy against the truth, the confusion matrix, and the one error that must
/// never happen: an action people label irreversible offered with a lower tier.
#[test]
fn no_unsafe_tier_on_the_corpus() {
    let truth: BTreeMap<String, BTreeMap<String, String>> = serde_json::from_str(
        &std::fs::read_to_string(pages().join("truth.json")).expect("fixtures/pages/truth.json"),
    )
    .expect("truth.json");
    let snaps: BTreeMap<String, PageSnapshot> = snapshots().into_iter().collect();
    let mut matrix = [[0usize; 3]; 3];
    let mut unsafe_errors = Vec::new();
    let mut missing = Vec::new();
    let mut total = 0;
    let mut right = 0;
    for (page, labels) in &truth {
        let snap = snaps
            .get(page)
            .unwrap_or_else(|| panic!("truth names page {page:?} without a snapshot"));
        let capture = analyze_snapshot(snap, ProbeTier::WasmInPage);
        for (action, tier) in labels {
            let want = parse_tier(tier);
            let Some(got) = capture.actions.get(action) else {
                missing.push(format!("{page}: {action}"));
                continue;
            };
            let t = TIERS.iter().position(|x| *x == want).unwrap();
            let p = TIERS.iter().position(|x| *x == got.reversibility).unwrap();
            matrix[t][p] += 1;
            total += 1;
            if t == p {
                right += 1;
            }
            if want == Reversibility::IrreversibleWrite && got.reversibility < want {
                unsafe_errors.push(format!(
                    "{page}: {action} is irreversible, probe says {}",
                    got.reversibility.as_str()
                ));
            }
        }
    }
    println!(
        "tier accuracy: {right}/{total} = {:.1}%",
        100.0 * right as f64 / total.max(1) as f64
    );
    println!("confusion matrix (rows: truth, columns: probe)");
    println!(
        "{:>20} {:>6} {:>12} {:>14}",
        "", "read", "reversible", "irreversible"
    );
    for (i, row) in matrix.iter().enumerate() {
        println!(
            "{:>20} {:>6} {:>12} {:>14}",
            TIERS[i].as_str(),
            row[0],
            row[1],
            row[2]
        );
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
    assert!(total >= 60, "the truth labels too few actions ({total})");
}

//! The probe on its corpus: golden outputs (expect-test style, `UPDATE_EXPECT=1`
//! refreshes them) and the safety check of tiers against hand-labelled truth.
//!
//! Inputs are the snapshots the real extraction recorded in headless Chromium
//! (`fixtures/pages/snapshots/`, kept current by `tests/tests/probe_corpus.rs`), so these
//! run natively and fast. The truth (`fixtures/pages/truth.json`) is written by a person
//! reading each page, never copied from the probe's output.
//!
//! To see what a change of the probe did, action by action: `NSP_CORPUS_LIST=1` prints
//! every labelled action's tier and confidence and each page's analysis time (diff two
//! runs; time with `--release`), and `NSP_CORPUS_EXPLAIN=page:action` prints one
//! action's explanation.

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
    let dir = pages().join("snapshots");
    let found = snapshots_in(&dir);
    assert!(!found.is_empty(), "no snapshots in {}", dir.display());
    found
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

/// One hand label: the tier a person reading the page gives the control, and why.
struct Label {
    tier: Reversibility,
    why: String,
}

/// A truth file: page → action → label. A label is a tier, or `{"tier", "why"}`. The
/// long form, `{"pages": {page: {"controls": [{control, action, tier, why}]}}}`, lists
/// every visible control; one without an action (`null`) is one the probe should offer
/// and does not, which counts against coverage.
fn read_truth(path: &Path) -> BTreeMap<String, BTreeMap<String, Label>> {
    let value: Value = serde_json::from_str(
        &std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    )
    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let raw: BTreeMap<String, BTreeMap<String, Value>> = match value.get("pages") {
        Some(Value::Object(pages)) => pages
            .iter()
            .map(|(page, p)| {
                let controls = p.get("controls").and_then(Value::as_array);
                let mut labels = BTreeMap::new();
                for (i, c) in controls.into_iter().flatten().enumerate() {
                    let action = match c.get("action").and_then(Value::as_str) {
                        Some(a) => a.to_owned(),
                        // Not offered: a name no action has, so it counts as missing.
                        None => format!(
                            "(none for {})",
                            c.get("control")
                                .and_then(Value::as_str)
                                .unwrap_or(&i.to_string())
                        ),
                    };
                    labels.insert(action, c.clone());
                }
                (page.clone(), labels)
            })
            .collect(),
        _ => serde_json::from_value(value).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    };
    raw.into_iter()
        .map(|(page, labels)| {
            let labels = labels
                .into_iter()
                .map(|(action, v)| {
                    let label = match &v {
                        Value::String(t) => Label {
                            tier: parse_tier(t),
                            why: String::new(),
                        },
                        Value::Object(o) => Label {
                            tier: parse_tier(o.get("tier").and_then(Value::as_str).unwrap_or("")),
                            why: o
                                .get("why")
                                .and_then(Value::as_str)
                                .unwrap_or("")
                                .to_owned(),
                        },
                        _ => panic!(
                            "{}: {page}.{action}: a tier or {{tier, why}}",
                            path.display()
                        ),
                    };
                    (action, label)
                })
                .collect();
            (page, labels)
        })
        .collect()
}

/// Confidence buckets of the reliability table: lower bounds.
const BUCKETS: [f64; 6] = [0.0, 0.5, 0.8, 0.9, 0.95, 0.98];

/// How the probe did on one corpus.
#[derive(Default)]
struct Score {
    total: usize,
    right: usize,
    labelled: usize,
    matrix: [[usize; 3]; 3],
    unsafe_errors: Vec<String>,
    confident_errors: Vec<String>,
    /// Every wrong tier.
    errors: Vec<String>,
    missing: Vec<String>,
    /// Per bucket: actions, right ones, sum of confidences.
    buckets: [(usize, usize, f64); 6],
    /// Every action labelled irreversible: page, name, tier given, confidence.
    irreversible: Vec<String>,
    /// Settled pages below the state confidence floor.
    low_state: Vec<String>,
    states: Vec<(String, f64)>,
}

impl Score {
    fn accuracy(&self) -> f64 {
        self.right as f64 / self.total.max(1) as f64
    }

    fn coverage(&self) -> f64 {
        self.total as f64 / self.labelled.max(1) as f64
    }

    fn report(&self, name: &str) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "## {name}: tier accuracy {}/{} = {:.1}%, coverage {}/{} = {:.1}%, unsafe {}",
            self.right,
            self.total,
            100.0 * self.accuracy(),
            self.total,
            self.labelled,
            100.0 * self.coverage(),
            self.unsafe_errors.len()
        );
        let _ = writeln!(out, "confusion matrix (rows: truth, columns: probe)");
        let _ = writeln!(
            out,
            "{:>20} {:>6} {:>12} {:>14}",
            "", "read", "reversible", "irreversible"
        );
        for (i, row) in self.matrix.iter().enumerate() {
            let _ = writeln!(
                out,
                "{:>20} {:>6} {:>12} {:>14}",
                TIERS[i].as_str(),
                row[0],
                row[1],
                row[2]
            );
        }
        let _ = writeln!(
            out,
            "reliability (confidence bucket: actions, mean confidence, tier right)"
        );
        for (i, (n, right, sum)) in self.buckets.iter().enumerate() {
            let hi = BUCKETS.get(i + 1).copied().unwrap_or(1.0);
            if *n == 0 {
                let _ = writeln!(out, "  [{:.2}, {:.2}): 0", BUCKETS[i], hi);
                continue;
            }
            let _ = writeln!(
                out,
                "  [{:.2}, {:.2}): {n:>3} actions, mean {:.3}, right {right}/{n} = {:.1}%",
                BUCKETS[i],
                hi,
                sum / *n as f64,
                100.0 * *right as f64 / *n as f64
            );
        }
        let _ = writeln!(out, "irreversible actions (truth) and their confidence:");
        for line in &self.irreversible {
            let _ = writeln!(out, "  {line}");
        }
        let _ = writeln!(out, "wrong tiers:");
        for line in &self.errors {
            let _ = writeln!(out, "  {line}");
        }
        let _ = writeln!(out, "labelled controls the probe does not offer:");
        for line in &self.missing {
            let _ = writeln!(out, "  {line}");
        }
        let _ = writeln!(out, "state confidence per page:");
        for (page, c) in &self.states {
            let _ = writeln!(out, "  {page}: {c:.3}");
        }
        out
    }
}

/// Scores the probe on one corpus folder (`fixtures/<dir>`: `truth.json` and
/// `snapshots/`).
fn score(dir: &Path, state_floor: Option<f64>) -> Score {
    let truth = read_truth(&dir.join("truth.json"));
    let snaps: BTreeMap<String, PageSnapshot> =
        snapshots_in(&dir.join("snapshots")).into_iter().collect();
    let mut s = Score::default();
    for (page, labels) in &truth {
        let snap = snaps
            .get(page)
            .unwrap_or_else(|| panic!("truth names page {page:?} without a snapshot"));
        let started = std::time::Instant::now();
        let capture = analyze_snapshot(snap, ProbeTier::WasmInPage);
        if std::env::var_os("NSP_CORPUS_LIST").is_some() {
            // The first analysis, then the mean of 50 more (run with --release).
            let first = started.elapsed();
            let again = std::time::Instant::now();
            for _ in 0..50 {
                std::hint::black_box(analyze_snapshot(snap, ProbeTier::WasmInPage));
            }
            let ms = |d: std::time::Duration| d.as_secs_f64() * 1000.0;
            eprintln!(
                "time {page} {:.3} ms (first {:.3} ms)",
                ms(again.elapsed()) / 50.0,
                ms(first)
            );
        }
        s.states.push((page.clone(), capture.confidence));
        if let Some(floor) = state_floor {
            if !snap.unsettled && capture.confidence < floor {
                s.low_state.push(format!(
                    "{page}: {:.3} ({})",
                    capture.confidence,
                    capture
                        .probe_metadata
                        .confidence_reason
                        .as_deref()
                        .unwrap_or("")
                ));
            }
        }
        for (action, label) in labels {
            s.labelled += 1;
            let want = label.tier;
            let Some(got) = capture.actions.get(action) else {
                s.missing.push(format!("{page}: {action}"));
                continue;
            };
            if std::env::var("NSP_CORPUS_EXPLAIN").ok().as_deref()
                == Some(&format!("{page}:{action}"))
            {
                eprintln!("{:#?}", capture.explain.get(action));
            }
            if std::env::var_os("NSP_CORPUS_LIST").is_some() {
                eprintln!(
                    "action {page} {action} truth {} probe {} {:.4}",
                    want.as_str(),
                    got.reversibility.as_str(),
                    got.confidence
                );
            }
            let t = TIERS.iter().position(|x| *x == want).unwrap();
            let p = TIERS.iter().position(|x| *x == got.reversibility).unwrap();
            s.matrix[t][p] += 1;
            s.total += 1;
            let right = t == p;
            if right {
                s.right += 1;
            }
            let b = BUCKETS
                .iter()
                .rposition(|lo| got.confidence >= *lo)
                .unwrap_or(0);
            s.buckets[b].0 += 1;
            s.buckets[b].1 += usize::from(right);
            s.buckets[b].2 += got.confidence;
            let line = format!(
                "{page}: {action} is {}, probe says {} at {:.2}{}",
                want.as_str(),
                got.reversibility.as_str(),
                got.confidence,
                if label.why.is_empty() {
                    String::new()
                } else {
                    format!(" (truth: {})", label.why)
                }
            );
            if want == Reversibility::IrreversibleWrite {
                s.irreversible.push(format!(
                    "{page}: {action} {} {:.2}",
                    got.reversibility.as_str(),
                    got.confidence
                ));
            }
            if want == Reversibility::IrreversibleWrite && got.reversibility < want {
                s.unsafe_errors.push(line.clone());
            }
            if !right && got.confidence >= 0.95 {
                s.confident_errors.push(line.clone());
            }
            if !right {
                s.errors.push(line);
            }
        }
    }
    s
}

fn snapshots_in(dir: &Path) -> Vec<(String, PageSnapshot)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    let mut paths: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    for path in paths {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let snap: PageSnapshot =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        out.push((name, snap));
    }
    out
}

/// The calibration contract of `classify.rs`, asserted on one corpus: no unsafe
/// tier, no wrong tier at or above 0.95 in either direction, at least 95 % exact
/// tiers and 95 % of labelled controls offered.
fn assert_calibrated(name: &str, s: &Score) {
    println!("{}", s.report(name));
    assert!(
        s.unsafe_errors.is_empty(),
        "{name}: UNSAFE misclassifications:\n{}",
        s.unsafe_errors.join("\n")
    );
    assert!(
        s.confident_errors.is_empty(),
        "{name}: wrong tiers scored >= 0.95:\n{}",
        s.confident_errors.join("\n")
    );
    assert!(
        s.accuracy() >= 0.95,
        "{name}: tier accuracy {:.1}% is below 95%",
        100.0 * s.accuracy()
    );
    assert!(
        s.coverage() >= 0.95,
        "{name}: labelled actions the probe does not offer:\n{}",
        s.missing.join("\n")
    );
    assert!(
        s.low_state.is_empty(),
        "{name}: settled pages below the state confidence floor:\n{}",
        s.low_state.join("\n")
    );
}

/// Tier accuracy against the truth, the confusion matrix, the reliability table, and
/// the one error that must never happen: an action people label irreversible offered
/// with a lower tier.
#[test]
fn synthetic_corpus_is_safe_and_calibrated() {
    let s = score(&pages(), None);
    assert!(
        s.labelled >= 60,
        "the truth labels too few actions ({})",
        s.labelled
    );
    assert_calibrated("synthetic corpus", &s);
    assert!(
        s.missing.is_empty(),
        "labelled actions the probe does not offer:\n{}",
        s.missing.join("\n")
    );
}

/// The same on pages of real open-source apps (recorded by
/// `tests/tests/real_corpus.rs`), where every settled page must also leave the probe
/// sure enough of the page (state confidence >= 0.80) for reversible writes.
#[test]
fn real_app_corpus_is_safe_and_calibrated() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/real");
    let s = score(&dir, Some(0.80));
    assert!(
        s.labelled >= 60,
        "the real-app truth labels too few actions ({})",
        s.labelled
    );
    assert_calibrated("real-app corpus", &s);
}

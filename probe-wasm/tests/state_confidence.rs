//! The state's confidence as a measured probability (ARCHITECTURE.md, "State
//! confidence"): on both labelled corpora, the share of pages where it *holds* — every
//! action offered at ≥ 0.8 has its true tier, and every labelled control that writes is
//! offered — per confidence bucket, which must be no lower than the bucket's floor.
//! Then the properties it must have on any page: controls that cannot change anything
//! do not pull a well understood page under 0.95, a page of unlabelled clickable divs
//! stays under 0.80, and unsettled or truncated captures lower it.

#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use nsp_probe::analyze_snapshot;
use nsp_protocol::snapshot::{ElementRecord, PageSnapshot};
use nsp_protocol::{ProbeTier, Reversibility};
use serde_json::Value;

mod support;
use support::el;

/// Lower bounds of the buckets the table reports.
const BUCKETS: [f64; 4] = [0.0, 0.5, 0.8, 0.95];

fn tier(s: &str) -> Reversibility {
    match s {
        "read" => Reversibility::Read,
        "reversible_write" => Reversibility::ReversibleWrite,
        "irreversible_write" => Reversibility::IrreversibleWrite,
        other => panic!("unknown tier {other:?}"),
    }
}

/// Page → [(action or None when the probe should offer something it does not name,
/// true tier)], from either truth format.
fn truth(path: &Path) -> BTreeMap<String, Vec<(Option<String>, Reversibility)>> {
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut out = BTreeMap::new();
    if let Some(Value::Object(pages)) = v.get("pages") {
        for (page, p) in pages {
            let controls = p.get("controls").and_then(Value::as_array);
            let labels = controls
                .into_iter()
                .flatten()
                .map(|c| {
                    (
                        c.get("action").and_then(Value::as_str).map(str::to_owned),
                        tier(c.get("tier").and_then(Value::as_str).unwrap_or("")),
                    )
                })
                .collect();
            out.insert(page.clone(), labels);
        }
    } else if let Value::Object(pages) = v {
        for (page, actions) in pages {
            let Value::Object(actions) = actions else {
                continue;
            };
            let labels = actions
                .iter()
                .map(|(a, l)| {
                    let t = l
                        .as_str()
                        .or_else(|| l.get("tier").and_then(Value::as_str))
                        .unwrap_or("");
                    (Some(a.clone()), tier(t))
                })
                .collect();
            out.insert(page, labels);
        }
    }
    out
}

fn snapshot(dir: &Path, page: &str) -> Option<PageSnapshot> {
    let text = std::fs::read_to_string(dir.join("snapshots").join(format!("{page}.json"))).ok()?;
    Some(serde_json::from_str(&text).unwrap())
}

struct Row {
    page: String,
    confidence: f64,
    reason: String,
    holds: bool,
    why: String,
}

/// Each labelled page of a corpus: its state confidence and whether the state held.
fn measure(dir: &Path) -> Vec<Row> {
    let mut rows = Vec::new();
    for (page, labels) in truth(&dir.join("truth.json")) {
        let Some(snap) = snapshot(dir, &page) else {
            continue;
        };
        let capture = analyze_snapshot(&snap, ProbeTier::WasmInPage);
        let mut why = Vec::new();
        for (action, want) in &labels {
            let offered = action
                .as_deref()
                .and_then(|a| capture.actions.get(a).map(|s| (a, s)));
            match offered {
                Some((a, got)) if got.confidence >= 0.8 && got.reversibility != *want => {
                    why.push(format!(
                        "{a} claimed {} at {:.2}, truth {}",
                        got.reversibility.as_str(),
                        got.confidence,
                        want.as_str()
                    ))
                }
                Some(_) => {}
                None if *want != Reversibility::Read => why.push(format!(
                    "{} (a {} control) not offered",
                    action.as_deref().unwrap_or("a labelled control"),
                    want.as_str()
                )),
                None => {}
            }
        }
        rows.push(Row {
            page,
            confidence: capture.confidence,
            reason: capture
                .probe_metadata
                .confidence_reason
                .clone()
                .unwrap_or_default(),
            holds: why.is_empty(),
            why: why.join("; "),
        });
    }
    rows
}

fn corpora() -> Vec<(&'static str, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    vec![
        ("synthetic", root.join("pages")),
        ("real-app", root.join("real")),
    ]
}

/// The reliability table over both corpora; every bucket's observed share of pages
/// where the state held must reach the bucket's floor (within sampling error) (a state confidence of 0.95 that
/// held on 80 % of pages would be a lie the gate believes).
#[test]
fn state_confidence_is_calibrated_on_both_corpora() {
    let mut rows = Vec::new();
    for (name, dir) in corpora() {
        for mut r in measure(&dir) {
            r.page = format!("{name}/{}", r.page);
            rows.push(r);
        }
    }
    assert!(rows.len() >= 20, "too few labelled pages: {}", rows.len());
    let mut table =
        String::from("state confidence reliability (bucket: pages, mean confidence, state held)\n");
    let mut failures = Vec::new();
    for (i, lo) in BUCKETS.iter().enumerate() {
        let hi = BUCKETS.get(i + 1).copied().unwrap_or(1.0 + f64::EPSILON);
        let in_bucket: Vec<&Row> = rows
            .iter()
            .filter(|r| r.confidence >= *lo && r.confidence < hi)
            .collect();
        if in_bucket.is_empty() {
            let _ = writeln!(table, "  [{lo:.2}, {:.2}): 0", hi.min(1.0));
            continue;
        }
        let held = in_bucket.iter().filter(|r| r.holds).count();
        let mean = in_bucket.iter().map(|r| r.confidence).sum::<f64>() / in_bucket.len() as f64;
        let share = held as f64 / in_bucket.len() as f64;
        let _ = writeln!(
            table,
            "  [{lo:.2}, {:.2}): {:>3} pages, mean {mean:.3}, held {held}/{} = {:.1}%",
            hi.min(1.0),
            in_bucket.len(),
            in_bucket.len(),
            100.0 * share
        );
        // Small buckets: a bucket fails when even the upper end of the 95 % interval
        // (Wilson's) of its share is under its floor.
        if wilson_upper(held, in_bucket.len()) < *lo {
            failures.push(format!(
                "[{lo:.2}, {:.2}) held on {:.1}% of its pages",
                hi.min(1.0),
                100.0 * share
            ));
        }
    }
    let _ = writeln!(table, "pages under 0.95, and why:");
    for r in rows.iter().filter(|r| r.confidence < 0.95) {
        let _ = writeln!(table, "  {} at {:.3}: {}", r.page, r.confidence, r.reason);
    }
    let _ = writeln!(table, "pages where the state did not hold:");
    for r in rows.iter().filter(|r| !r.holds) {
        let _ = writeln!(table, "  {} at {:.3}: {}", r.page, r.confidence, r.why);
    }
    println!("{table}");
    assert!(failures.is_empty(), "{}\n{table}", failures.join("\n"));
}

/// The upper end of Wilson's 95 % score interval for `k` successes in `n` trials.
fn wilson_upper(k: usize, n: usize) -> f64 {
    let (k, n, z) = (k as f64, n as f64, 1.96f64);
    let p = k / n;
    let centre = p + z * z / (2.0 * n);
    let spread = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    (centre + spread) / (1.0 + z * z / n)
}

fn page(elements: Vec<ElementRecord>) -> PageSnapshot {
    PageSnapshot {
        url: "http://127.0.0.1:1/tickets/7".into(),
        title: "Ticket 7".into(),
        elements,
        ..PageSnapshot::default()
    }
}

/// A ticket page with one edit form (a clear write), surrounded by controls that
/// cannot change anything: an image-only home link, plain links, a skip link, tabs, a
/// disclosure, a menu button, an editor's formatting toolbar of `href="#"` links with
/// only a title, and the form's bare "Cancel".
fn comment_page(with_shell: bool) -> PageSnapshot {
    let mut els = vec![
        el("body", None, "", &[]), // 0
        el(
            "form",
            Some(0),
            "",
            &[("method", "post"), ("action", "/tickets/7")],
        ), // 1
        el("textarea", Some(1), "", &[("name", "description")]), // 2
        el("button", Some(1), "Save changes", &[("type", "submit")]), // 3
    ];
    els[2].label = "Description".into();
    if with_shell {
        let mut shell = vec![
            el("a", Some(0), "", &[("href", "/")]), // 4 logo
            el("img", Some(4), "", &[("alt", "")]), // 5
            el("a", Some(0), "Skip to main content", &[("href", "#main")]), // 6
            el("a", Some(0), "Docs", &[("href", "/docs")]), // 7
            el("div", Some(0), "", &[("role", "tablist")]), // 8
            el(
                "button",
                Some(8),
                "Details",
                &[("role", "tab"), ("aria-selected", "true")],
            ), // 9
            el("button", Some(8), "History", &[("role", "tab")]), // 10
            el("button", Some(0), "Filters", &[("aria-expanded", "false")]), // 11
            el(
                "button",
                Some(0),
                "",
                &[("aria-haspopup", "menu"), ("title", "More")],
            ), // 12
            el("div", Some(1), "", &[("class", "wikitoolbar")]), // 13
            el("a", Some(13), "", &[("href", "#"), ("title", "Bold text")]), // 14
            el(
                "a",
                Some(13),
                "",
                &[("href", "#"), ("title", "Italic text")],
            ), // 15
            el("a", Some(13), "", &[("href", "#"), ("title", "Heading")]), // 16
            el("a", Some(13), "", &[("href", "#"), ("title", "Link")]), // 17
            el(
                "input",
                Some(1),
                "",
                &[("type", "submit"), ("name", "cancel"), ("value", "Cancel")],
            ), // 18
        ];
        els.append(&mut shell);
    }
    let mut s = page(els);
    s.elements.iter_mut().enumerate().for_each(|(i, e)| {
        e.selector = format!("{}:nth-of-type({})", e.tag, i + 1);
    });
    s
}

#[test]
fn controls_that_cannot_change_anything_do_not_pull_a_clear_page_down() {
    let bare = analyze_snapshot(&comment_page(false), ProbeTier::WasmInPage);
    let shell = analyze_snapshot(&comment_page(true), ProbeTier::WasmInPage);
    assert!(bare.confidence >= 0.95, "bare page at {}", bare.confidence);
    assert!(
        shell.confidence >= 0.95,
        "the same page with links, tabs, menus, a formatting toolbar and Cancel: {} ({})",
        shell.confidence,
        shell
            .probe_metadata
            .confidence_reason
            .as_deref()
            .unwrap_or("")
    );
}

#[test]
fn a_page_of_unlabelled_clickable_divs_stays_under_the_reversible_floor() {
    let mut els = vec![el("body", None, "", &[])];
    for k in 0..5 {
        let mut d = el("div", Some(0), "", &[("class", &format!("tile t{k}"))]);
        d.clickable = true;
        d.selector = format!("div:nth-of-type({})", k + 1);
        els.push(d);
    }
    let capture = analyze_snapshot(&page(els.clone()), ProbeTier::WasmInPage);
    assert!(
        capture.confidence < 0.8,
        "div soup at {}",
        capture.confidence
    );
    // Even beside a clear form, two nameless clickable divs keep a page off the
    // irreversible floor.
    let mut form = comment_page(false);
    for (k, d) in els.into_iter().skip(1).take(2).enumerate() {
        let mut d = d;
        d.parent = Some(0);
        d.selector = format!("div.tile:nth-of-type({})", k + 1);
        form.elements.push(d);
    }
    let c = analyze_snapshot(&form, ProbeTier::WasmInPage).confidence;
    assert!(
        c < 0.95,
        "a clear form beside nameless clickable divs at {c}"
    );
}

#[test]
fn unsettled_and_truncated_captures_lower_it() {
    let settled = analyze_snapshot(&comment_page(true), ProbeTier::WasmInPage).confidence;
    let mut s = comment_page(true);
    s.unsettled = true;
    let unsettled = analyze_snapshot(&s, ProbeTier::WasmInPage).confidence;
    let mut s = comment_page(true);
    s.truncated = true;
    let truncated = analyze_snapshot(&s, ProbeTier::WasmInPage).confidence;
    assert!(
        unsettled < settled && unsettled < 0.95,
        "unsettled {unsettled}"
    );
    assert!(
        truncated < settled && truncated < 0.95,
        "truncated {truncated}"
    );
}

/// A write control the probe cannot read pulls the page down even among clear ones:
/// "cannot change anything" is decided by structure, not by being unclear.
#[test]
fn an_unclear_write_among_clear_ones_still_counts() {
    let mut s = comment_page(false);
    let mut odd = el(
        "button",
        Some(1),
        "Frobnicate",
        &[("type", "submit"), ("name", "x")],
    );
    odd.selector = "button:nth-of-type(9)".into();
    s.elements.push(odd);
    let capture = analyze_snapshot(&s, ProbeTier::WasmInPage);
    let reason = capture
        .probe_metadata
        .confidence_reason
        .clone()
        .unwrap_or_default();
    assert!(
        capture.confidence < 1.0 && reason.contains("unclear"),
        "an unclear submit left the page at {} ({reason})",
        capture.confidence
    );
}

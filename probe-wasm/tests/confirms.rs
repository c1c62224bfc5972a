//! A control that asked for confirmation when an action was dispatched to it is
//! irreversible for the rest of the page's life: the raise pass over all sources, its
//! explanation, and that incremental patches keep it.

#![cfg(not(target_arch = "wasm32"))]

use nsp_probe::{analyze_snapshot, raised_by_confirm, round4, Probe};
use nsp_protocol::snapshot::{ConfirmSeen, PageSnapshot, SnapshotPatch, Splice};
use nsp_protocol::{PageCapture, ProbeTier, Reversibility};
use serde_json::Value;

mod support;
use support::el_at as el;

/// Reports: a plain "Archive" button, a "Star" button, and rows with a repeated
/// "Archive" control (one row action).
fn page(confirmed: Vec<ConfirmSeen>) -> PageSnapshot {
    PageSnapshot {
        url: "http://127.0.0.1:1/reports".into(),
        title: "Reports".into(),
        elements: vec![
            el(
                "main",
                None,
                "#reports",
                "",
                &[("id", "reports"), ("aria-label", "Reports")],
            ),
            el("h1", Some(0), "#reports > h1", "Reports", &[]),
            el(
                "button",
                Some(0),
                "#archive-all",
                "Archive",
                &[("id", "archive-all"), ("type", "button")],
            ),
            el(
                "button",
                Some(0),
                "#star",
                "Star",
                &[("id", "star"), ("type", "button")],
            ),
            el("ul", Some(0), "#rows", "", &[("id", "rows")]),
            el(
                "li",
                Some(4),
                "#rows > li:nth-of-type(1)",
                "",
                &[("data-report-id", "r1")],
            ),
            el(
                "span",
                Some(5),
                "#rows > li:nth-of-type(1) > span",
                "Q3",
                &[("class", "name")],
            ),
            el(
                "button",
                Some(5),
                "#rows > li:nth-of-type(1) > button",
                "Archive",
                &[("type", "button")],
            ),
            el(
                "li",
                Some(4),
                "#rows > li:nth-of-type(2)",
                "",
                &[("data-report-id", "r2")],
            ),
            el(
                "span",
                Some(8),
                "#rows > li:nth-of-type(2) > span",
                "Q4",
                &[("class", "name")],
            ),
            el(
                "button",
                Some(8),
                "#rows > li:nth-of-type(2) > button",
                "Archive",
                &[("type", "button")],
            ),
        ],
        confirmed_controls: confirmed,
        ..PageSnapshot::default()
    }
}

const ASKED: &str = "Archive everything? This cannot be undone.";

fn seen_at(selector: &str) -> ConfirmSeen {
    ConfirmSeen {
        selector: selector.into(),
        target: String::new(),
        text: ASKED.into(),
    }
}

fn analyze(s: &PageSnapshot) -> PageCapture {
    analyze_snapshot(s, ProbeTier::WasmInPage)
}

/// The action bound to `selector`, by its explanation.
fn action_at<'a>(c: &'a PageCapture, selector: &str) -> &'a str {
    c.explain
        .iter()
        .find(|(_, e)| e.elements.iter().any(|x| x.selector == selector))
        .map(|(name, _)| name.as_str())
        .unwrap_or_else(|| panic!("no action bound to {selector}: {:?}", c.actions.keys()))
}

#[test]
fn a_confirm_raises_only_the_action_of_that_control() {
    let before = analyze(&page(vec![]));
    let archive = action_at(&before, "#archive-all").to_owned();
    let star = action_at(&before, "#star").to_owned();
    assert_ne!(
        before.actions[&archive].reversibility,
        Reversibility::IrreversibleWrite,
        "the fixture needs a control the probe rates below irreversible"
    );

    let after = analyze(&page(vec![seen_at("#archive-all")]));
    let raised = &after.actions[&archive];
    assert_eq!(raised.reversibility, Reversibility::IrreversibleWrite);
    assert_eq!(raised.confidence, round4(raised_by_confirm()));
    assert!(raised.description.contains(ASKED), "{}", raised.description);
    let why = &after.explain[&archive];
    assert!(
        why.signals
            .iter()
            .any(|s| s.contains("confirm(") && s.contains(ASKED)),
        "{:?}",
        why.signals
    );
    assert!(
        why.tier_reason.contains("cannot be undone"),
        "{}",
        why.tier_reason
    );
    assert!(why.tier_reason.contains("before"), "{}", why.tier_reason);

    // Nothing else moves: the other control, and the page's own confidence.
    assert_eq!(after.actions[&star], before.actions[&star]);
    assert_eq!(after.confidence, before.confidence);
    let others = |c: &PageCapture| {
        c.actions
            .iter()
            .filter(|(n, _)| **n != archive)
            .map(|(n, a)| (n.clone(), a.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(others(&after), others(&before));

    // An element nobody is bound to, or an empty list, changes nothing.
    assert_eq!(
        analyze(&page(vec![seen_at("#nowhere")])).actions,
        before.actions
    );
}

#[test]
fn a_row_action_is_raised_by_one_row_or_by_its_target() {
    let before = analyze(&page(vec![]));
    let row = action_at(&before, "#rows > li:nth-of-type(2) > button").to_owned();
    assert!(
        before.actions[&row].internal_target.starts_with("row:"),
        "{:?}",
        before.actions[&row]
    );
    // The control of one row raises the one action all rows share.
    let by_element = analyze(&page(vec![seen_at("#rows > li:nth-of-type(2) > button")]));
    assert_eq!(
        by_element.actions[&row].reversibility,
        Reversibility::IrreversibleWrite
    );
    // So does the dispatched action's target, when the element is gone or re-rendered.
    let by_target = analyze(&page(vec![ConfirmSeen {
        selector: "#gone".into(),
        target: before.actions[&row].internal_target.clone(),
        text: ASKED.into(),
    }]));
    assert_eq!(by_target.actions[&row], by_element.actions[&row]);
}

#[test]
fn an_irreversible_action_keeps_its_confidence_and_gains_the_signal() {
    let mut s = page(vec![]);
    s.elements.push(el(
        "button",
        Some(0),
        "#wipe",
        "Delete forever",
        &[("id", "wipe"), ("type", "button")],
    ));
    let before = analyze(&s);
    let wipe = action_at(&before, "#wipe").to_owned();
    assert_eq!(
        before.actions[&wipe].reversibility,
        Reversibility::IrreversibleWrite
    );
    s.confirmed_controls = vec![seen_at("#wipe")];
    let after = analyze(&s);
    assert_eq!(after.actions[&wipe], before.actions[&wipe]);
    assert!(after.explain[&wipe]
        .signals
        .iter()
        .any(|x| x.contains("confirm(")));
}

fn delta_actions(delta: &str) -> Option<Value> {
    if delta.is_empty() {
        return None;
    }
    let v: Value = serde_json::from_str(delta).expect("delta");
    v.get("actions").cloned()
}

#[test]
fn patches_keep_the_raised_tier() {
    let mut probe = Probe::with_tier(ProbeTier::WasmInPage);
    let snapshot = page(vec![seen_at("#archive-all")]);
    let capture: PageCapture = serde_json::from_str(
        &probe
            .analyze_json(&serde_json::to_string(&snapshot).unwrap())
            .unwrap(),
    )
    .unwrap();
    let archive = action_at(&capture, "#archive-all").to_owned();
    assert_eq!(
        capture.actions[&archive].reversibility,
        Reversibility::IrreversibleWrite
    );

    // A text-only change (the heading) reuses the capture.
    let mut heading = snapshot.elements[1].clone();
    heading.text = "Reports (2)".into();
    let text_only = SnapshotPatch {
        splices: vec![Splice {
            start: 1,
            delete: 1,
            insert: vec![heading],
        }],
        url: snapshot.url.clone(),
        title: snapshot.title.clone(),
        ..SnapshotPatch::default()
    };
    let delta = probe
        .update_json(&serde_json::to_string(&text_only).unwrap())
        .unwrap();
    if let Some(actions) = delta_actions(&delta) {
        assert_eq!(actions[&archive]["reversibility"], "irreversible_write");
    }

    // A structural change (a new row) analyses the page again, from the patched
    // snapshot, which still lists the control.
    let row = vec![
        el(
            "li",
            Some(4),
            "#rows > li:nth-of-type(3)",
            "",
            &[("data-report-id", "r3")],
        ),
        el(
            "span",
            Some(11),
            "#rows > li:nth-of-type(3) > span",
            "Q1",
            &[("class", "name")],
        ),
        el(
            "button",
            Some(11),
            "#rows > li:nth-of-type(3) > button",
            "Archive",
            &[("type", "button")],
        ),
    ];
    let structural = SnapshotPatch {
        splices: vec![Splice {
            start: 11,
            delete: 0,
            insert: row,
        }],
        url: snapshot.url.clone(),
        title: snapshot.title.clone(),
        ..SnapshotPatch::default()
    };
    let delta = probe
        .update_json(&serde_json::to_string(&structural).unwrap())
        .unwrap();
    let actions = delta_actions(&delta).expect("a new row changes the actions");
    assert_eq!(
        actions[&archive]["reversibility"], "irreversible_write",
        "{actions}"
    );
    assert_eq!(actions[&archive]["confidence"], round4(raised_by_confirm()));
}

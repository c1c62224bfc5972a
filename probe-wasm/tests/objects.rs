//! Native tests of how `objects` keys are named, on small hand-built snapshots: items
//! of navigation keyed by their label, toggle states as booleans, secrets reported only
//! as filled or not, and the configurable caps with their truncation flag. Each test
//! checks that a change of state changes a value and never its key.

#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeMap;

use nsp_probe::{analyze_snapshot, analyze_snapshot_with, Limits, Probe};
use nsp_protocol::snapshot::{ElementRecord, PageSnapshot};
use nsp_protocol::{PageCapture, ProbeTier};
use serde_json::{json, Value};

mod support;
use support::el;

fn snap(elements: Vec<ElementRecord>) -> PageSnapshot {
    PageSnapshot {
        url: "http://127.0.0.1:1/app".into(),
        title: "App".into(),
        elements,
        ..PageSnapshot::default()
    }
}

fn objects(s: &PageSnapshot) -> BTreeMap<String, Value> {
    analyze_snapshot(s, ProbeTier::WasmInPage).objects
}

/// A folder nav: "Inbox" with a badge inside its link, "Sent 0" with the number in its
/// text, "Drafts" with none.
fn folders(inbox: &str, current: usize) -> PageSnapshot {
    let cur = |n: usize| if n == current { "page" } else { "false" };
    snap(vec![
        el("nav", None, "", &[("aria-label", "Folders")]),
        el("ul", Some(0), "", &[]),
        el("li", Some(1), "", &[]),
        el(
            "a",
            Some(2),
            &format!("Inbox {inbox}"),
            &[("href", "#inbox"), ("aria-current", cur(0))],
        ),
        el("span", Some(3), inbox, &[("class", "badge")]),
        el("li", Some(1), "", &[]),
        el(
            "a",
            Some(5),
            "Sent 0",
            &[("href", "#sent"), ("aria-current", cur(1))],
        ),
        el("li", Some(1), "", &[]),
        el(
            "a",
            Some(7),
            "Drafts",
            &[("href", "#drafts"), ("aria-current", cur(2))],
        ),
    ])
}

#[test]
fn nav_items_are_keyed_by_their_label_not_their_position() {
    let o = objects(&folders("2", 0));
    assert_eq!(o["folders.inbox.count"], json!(2));
    assert_eq!(o["folders.sent.count"], json!(0));
    assert_eq!(o["folders.inbox.current"], json!(true));
    assert_eq!(o["folders.sent.current"], json!(false));
    assert_eq!(o["folders.drafts.current"], json!(false));
    // A count is reported only while the page shows one.
    assert!(!o.contains_key("folders.drafts.count"), "{o:#?}");
    assert!(
        o.keys().all(|k| !k.contains("items") && !k.contains('[')),
        "{o:#?}"
    );
}

#[test]
fn a_counter_that_changes_keeps_its_key() {
    let before = objects(&folders("2", 0));
    let after = objects(&folders("13", 1));
    let keys = |o: &BTreeMap<String, Value>| o.keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&before), keys(&after));
    assert_eq!(after["folders.inbox.count"], json!(13));
    assert_eq!(after["folders.inbox.current"], json!(false));
    assert_eq!(after["folders.sent.current"], json!(true));
}

#[test]
fn a_badge_beside_the_link_is_the_items_count() {
    let o = objects(&snap(vec![
        el("nav", None, "", &[("aria-label", "Mailboxes")]),
        el("ul", Some(0), "", &[]),
        // The extractor gives a small item the text of all it holds.
        el("li", Some(1), "Inbox (5)", &[]),
        el("a", Some(2), "Inbox", &[("href", "#i")]),
        el("span", Some(2), "(5)", &[("class", "count")]),
        el("li", Some(1), "Spam", &[]),
        el("a", Some(5), "Spam", &[("href", "#s")]),
    ]));
    assert_eq!(o["mailboxes.inbox.count"], json!(5));
    assert!(!o.contains_key("mailboxes.spam.count"), "{o:#?}");
}

#[test]
fn data_lists_and_ambiguous_menus_keep_indexes() {
    // A list outside navigation is data: its records keep [N].
    let o = objects(&snap(vec![
        el("section", None, "", &[("aria-label", "Tasks")]),
        el("ul", Some(0), "", &[("id", "todo")]),
        el("li", Some(1), "Buy milk 2", &[]),
        el("li", Some(1), "Call Ana", &[]),
    ]));
    assert_eq!(o["tasks.todo[0].text"], json!("Buy milk 2"));
    assert_eq!(o["tasks.todo[1].text"], json!("Call Ana"));
    // Items whose names collide once numbers are left out cannot be told apart by
    // name: the nav keeps its indexes.
    let o = objects(&snap(vec![
        el("nav", None, "", &[("aria-label", "Pages")]),
        el("ul", Some(0), "", &[]),
        el("li", Some(1), "", &[]),
        el("a", Some(2), "Page 1", &[("href", "?p=1")]),
        el("li", Some(1), "", &[]),
        el("a", Some(4), "Page 2", &[("href", "?p=2")]),
    ]));
    assert!(o.contains_key("pages.items[0].link"), "{o:#?}");
    assert!(!o.contains_key("pages.page.count"), "{o:#?}");
}

/// A list of threads, each with a star toggle whose label flips with its state.
fn threads(starred: [bool; 2]) -> PageSnapshot {
    let star = |on: bool| {
        (
            if on { "Unstar" } else { "Star" },
            if on { "true" } else { "false" },
        )
    };
    let (l0, p0) = star(starred[0]);
    let (l1, p1) = star(starred[1]);
    snap(vec![
        el("section", None, "", &[("aria-label", "Inbox")]),
        el("ul", Some(0), "", &[("id", "list")]),
        el("li", Some(1), "", &[("data-thread-id", "t1")]),
        el("span", Some(2), "Hello", &[("class", "subject")]),
        el(
            "button",
            Some(2),
            l0,
            &[("type", "button"), ("aria-pressed", p0)],
        ),
        el("li", Some(1), "", &[("data-thread-id", "t2")]),
        el("span", Some(5), "Lunch", &[("class", "subject")]),
        el(
            "button",
            Some(5),
            l1,
            &[("type", "button"), ("aria-pressed", p1)],
        ),
    ])
}

#[test]
fn a_rows_toggle_is_a_boolean_named_from_its_label() {
    let before = objects(&threads([false, false]));
    let after = objects(&threads([false, true]));
    assert_eq!(before["inbox.list[1].starred"], json!(false));
    assert_eq!(after["inbox.list[1].starred"], json!(true));
    assert_eq!(after["inbox.list[0].starred"], json!(false));
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>()
    );
}

#[test]
fn an_icon_toggle_is_named_by_its_class() {
    let o = objects(&snap(vec![
        el("section", None, "", &[("aria-label", "Post")]),
        el(
            "button",
            Some(0),
            "",
            &[("class", "like"), ("aria-pressed", "true")],
        ),
    ]));
    assert_eq!(o["post.liked"], json!(true));
}

fn settings(dark: bool, bold: bool, open: bool, compact: bool) -> PageSnapshot {
    let b = |v: bool| if v { "true" } else { "false" };
    snap(vec![
        el("section", None, "", &[("id", "settings")]),
        el(
            "input",
            Some(0),
            "",
            &[
                ("type", "checkbox"),
                ("name", "dark_mode"),
                ("checked", b(dark)),
            ],
        ),
        el(
            "button",
            Some(0),
            "Compact view",
            &[("role", "switch"), ("aria-checked", b(compact))],
        ),
        el(
            "button",
            Some(0),
            "Bold",
            &[("type", "button"), ("aria-pressed", b(bold))],
        ),
        el(
            "button",
            Some(0),
            "Filters",
            &[("type", "button"), ("aria-expanded", b(open))],
        ),
    ])
}

#[test]
fn standalone_toggles_switches_and_checkboxes_are_booleans() {
    let off = objects(&settings(false, false, false, false));
    let on = objects(&settings(true, true, true, true));
    for (key, off_value, on_value) in [
        ("settings.dark_mode", false, true),
        ("settings.compact_view", false, true),
        ("settings.bold", false, true),
        ("settings.filters_expanded", false, true),
    ] {
        assert_eq!(off.get(key), Some(&json!(off_value)), "{key}: {off:#?}");
        assert_eq!(on.get(key), Some(&json!(on_value)), "{key}: {on:#?}");
    }
    assert_eq!(
        off.keys().collect::<Vec<_>>(),
        on.keys().collect::<Vec<_>>()
    );
}

fn tabs(selected: Option<usize>) -> PageSnapshot {
    let sel = |n: usize| if selected == Some(n) { "true" } else { "false" };
    snap(vec![
        el("header", None, "", &[("aria-label", "Calendar")]),
        el(
            "div",
            Some(0),
            "",
            &[("role", "tablist"), ("aria-label", "View")],
        ),
        el(
            "button",
            Some(1),
            "Day",
            &[("role", "tab"), ("aria-selected", sel(0))],
        ),
        el(
            "button",
            Some(1),
            "Week",
            &[("role", "tab"), ("aria-selected", sel(1))],
        ),
    ])
}

#[test]
fn a_tablist_reports_its_selected_tab_by_label() {
    assert_eq!(
        objects(&tabs(Some(1)))["calendar.view.selected_tab"],
        json!("Week")
    );
    assert_eq!(
        objects(&tabs(Some(0)))["calendar.view.selected_tab"],
        json!("Day")
    );
    assert_eq!(
        objects(&tabs(None))["calendar.view.selected_tab"],
        Value::Null
    );
    // Tabs are not also reported one by one.
    assert!(objects(&tabs(Some(1)))
        .keys()
        .all(|k| !k.ends_with("_selected")));
}

/// A login form whose password field carries what the extractor sends: `value_filled`
/// now, `value_length` in snapshots recorded before.
fn login(secret_attr: (&str, &str)) -> PageSnapshot {
    snap(vec![
        el(
            "form",
            None,
            "",
            &[
                ("id", "login"),
                ("method", "post"),
                ("aria-label", "Log in"),
            ],
        ),
        el(
            "input",
            Some(0),
            "",
            &[("name", "user"), ("type", "text"), ("value", "sam")],
        ),
        el(
            "input",
            Some(0),
            "",
            &[("name", "password"), ("type", "password"), secret_attr],
        ),
        el(
            "input",
            Some(0),
            "",
            &[("name", "card"), ("autocomplete", "cc-number"), secret_attr],
        ),
        el("button", Some(0), "Log in", &[("type", "submit")]),
    ])
}

#[test]
fn a_secret_is_only_reported_as_filled() {
    for (attr, filled) in [
        (("value_filled", "true"), true),
        (("value_filled", "false"), false),
        (("value_length", "7919"), true),
        (("value_length", "0"), false),
    ] {
        let capture: PageCapture = analyze_snapshot(&login(attr), ProbeTier::WasmInPage);
        let o = &capture.objects;
        assert_eq!(o["login.password_filled"], json!(filled), "{attr:?}");
        assert_eq!(o["login.card_filled"], json!(filled), "{attr:?}");
        assert_eq!(o["login.user"], json!("sam"));
        assert!(
            o.keys().all(|k| !k.ends_with("_length")),
            "{attr:?}: {o:#?}"
        );
        assert!(!o.contains_key("login.password") && !o.contains_key("login.card"));
        // The recorded length appears nowhere in what leaves the probe.
        let text = serde_json::to_string(&capture).expect("encodes");
        assert!(!text.contains("7919"), "{text}");
    }
}

/// A table of `n` rows, three fields each.
fn long_table(n: usize) -> PageSnapshot {
    let mut els = vec![
        el("table", None, "", &[("id", "orders")]),
        el("tbody", Some(0), "", &[]),
    ];
    for i in 0..n {
        let tr = els.len() as u32;
        els.push(el(
            "tr",
            Some(1),
            "",
            &[("data-order-id", &format!("o{i}"))],
        ));
        els.push(el("td", Some(tr), &format!("Order {i}"), &[]));
        els.push(el("td", Some(tr), &format!("{i}.50"), &[]));
    }
    snap(els)
}

#[test]
fn the_caps_are_settings_and_a_truncation_is_reported() {
    let page = long_table(600);
    // Defaults: 100 records a list, the rest counted.
    let c = analyze_snapshot(&page, ProbeTier::WasmInPage);
    assert!(!c.objects.contains_key("orders[599].order_id"));
    assert_eq!(c.objects["orders_total"], json!(600));
    assert!(c.probe_metadata.objects_truncated);
    // Raised: row 600 is there, and nothing was cut.
    let wide = Limits {
        max_objects: 10_000,
        max_list_records: 1_000,
    };
    let c = analyze_snapshot_with(&page, ProbeTier::WasmInPage, wide);
    assert_eq!(c.objects["orders[599].order_id"], json!("o599"));
    assert!(!c.objects.contains_key("orders_total"));
    assert!(!c.probe_metadata.objects_truncated);
    assert_eq!(
        c.probe_metadata.filtered_object_count,
        c.objects.len() as u64
    );
    // Lowered: at most `max_objects` keys, and the flag says so.
    let narrow = Limits {
        max_objects: 10,
        max_list_records: 1_000,
    };
    let c = analyze_snapshot_with(&page, ProbeTier::WasmInPage, narrow);
    assert_eq!(c.objects.len(), 10);
    assert!(c.probe_metadata.objects_truncated);
    assert!(c.probe_metadata.raw_object_count > 10);
    // A small page is not truncated, and the flag is not even sent.
    let c = analyze_snapshot(&long_table(3), ProbeTier::WasmInPage);
    assert!(!c.probe_metadata.objects_truncated);
    let text = serde_json::to_string(&c.probe_metadata).expect("encodes");
    assert!(!text.contains("objects_truncated"), "{text}");
}

#[test]
fn the_probe_takes_its_caps_from_its_configuration() {
    let page = serde_json::to_string(&long_table(600)).expect("encodes");
    let mut probe =
        Probe::from_config(r#"{"tier":"wasm_in_page","max_objects":5000,"max_list_records":700}"#)
            .expect("config");
    let c: PageCapture =
        serde_json::from_str(&probe.analyze_json(&page).expect("analyzes")).expect("capture");
    assert_eq!(c.objects["orders[599].order_id"], json!("o599"));
    // Out of range is clamped, not an error; a wrong type is an error.
    let mut probe =
        Probe::from_config(r#"{"tier":"wasm_in_page","max_objects":0}"#).expect("clamped config");
    let c: PageCapture =
        serde_json::from_str(&probe.analyze_json(&page).expect("analyzes")).expect("capture");
    assert_eq!(c.objects.len(), 1);
    assert!(Probe::from_config(r#"{"tier":"wasm_in_page","max_objects":"many"}"#).is_err());
    // The old configuration, the tier alone, still works.
    assert!(Probe::from_config(r#"{"tier":"wasm_extension"}"#).is_ok());
}

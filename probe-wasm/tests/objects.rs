//! Native tests of how `objects` keys are named, on small hand-built snapshots: items
//! of navigation keyed by their label, toggle states as booleans, secrets reported only
//! as filled or not, and the configurable caps with their truncation flag. Each test
//! checks that a change of state changes a value and never its key.

#![cfg(not(target_arch = "wasm32"))]

use std::collections::{BTreeMap, BTreeSet};

use nsp_probe::{analyze_snapshot, analyze_snapshot_with, Limits, Probe};
use nsp_protocol::snapshot::{ElementRecord, PageSnapshot};
use nsp_protocol::{PageCapture, ProbeTier};
use serde_json::{json, Value};

mod support;
use support::{el, el_at};

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

/// The `n`-th (0-based) of its kind under `parent`: `li:nth-of-type(n + 1)`.
fn nth(
    tag: &str,
    parent: Option<u32>,
    n: usize,
    text: &str,
    attrs: &[(&str, &str)],
) -> ElementRecord {
    el_at(
        tag,
        parent,
        &format!("{tag}:nth-of-type({})", n + 1),
        text,
        attrs,
    )
}

/// The values of the keys that end with `suffix`, in key order.
fn values_ending<'o>(o: &'o BTreeMap<String, Value>, suffix: &str) -> Vec<&'o Value> {
    o.iter()
        .filter(|(k, _)| k.ends_with(suffix))
        .map(|(_, v)| v)
        .collect()
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

/// A tab bar drawn as a list (`ul[role=tablist] > li[role=tab]`, as JupyterLab's is)
/// says its selection once, as the tablist's `selected_tab`, not also as a `selected`
/// boolean per tab item.
#[test]
fn a_tab_bar_drawn_as_a_list_says_its_selection_once() {
    let bar = |selected: usize| {
        let mut els = vec![
            el("main", None, "", &[("aria-label", "Main panel")]),
            el("ul", Some(0), "", &[("role", "tablist")]),
        ];
        for (n, label) in ["Files", "Running", "Clusters"].into_iter().enumerate() {
            let on = if n == selected { "true" } else { "false" };
            let id = format!("tab-key-{n}");
            els.push(el_at(
                "li",
                Some(1),
                &format!("#{id}"),
                label,
                &[("role", "tab"), ("id", &id), ("aria-selected", on)],
            ));
        }
        objects(&snap(els))
    };
    let files = bar(0);
    assert_eq!(
        files["main_panel.selected_tab"],
        json!("Files"),
        "{files:#?}"
    );
    assert!(
        files
            .keys()
            .all(|k| !k.ends_with("selected") || k.ends_with("selected_tab")),
        "{files:#?}"
    );
    assert_eq!(bar(1)["main_panel.selected_tab"], json!("Running"));
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

/// A table whose header row is `td` cells with an empty first and last one, a leading
/// selection-box column and a status that is the same on every row.
fn pages_table() -> PageSnapshot {
    let mut els = vec![
        el("table", None, "", &[("id", "page-table")]),
        el("thead", Some(0), "", &[]),
        el("tr", Some(1), "", &[]),
        el("td", Some(2), "", &[]),
        el("input", Some(3), "", &[("type", "checkbox")]),
        el("th", Some(2), "Title", &[]),
        el("th", Some(2), "Status", &[]),
        el("td", Some(2), "", &[]),
        el("tbody", Some(0), "", &[]),
    ];
    for (title, id) in [("About us", "0"), ("Pricing", "1")] {
        let tr = els.len() as u32;
        els.push(el("tr", Some(8), "", &[]));
        els.push(el("td", Some(tr), "", &[]));
        els.push(el(
            "input",
            Some(tr + 1),
            "",
            &[("type", "checkbox"), ("value", id)],
        ));
        els.push(el("td", Some(tr), title, &[]));
        els.push(el("td", Some(tr), "Live", &[]));
        els.push(el("td", Some(tr), "", &[]));
        els.push(el("button", Some(tr + 5), "Unpublish", &[]));
    }
    snap(els)
}

#[test]
fn a_selection_column_shifts_no_value_and_a_named_constant_column_stays() {
    let o = objects(&pages_table());
    assert_eq!(o["page_table[0].title"], json!("About us"), "{o:#?}");
    assert_eq!(o["page_table[1].title"], json!("Pricing"), "{o:#?}");
    assert_eq!(o["page_table[0].status"], json!("Live"), "{o:#?}");
    assert_eq!(o["page_table[1].status"], json!("Live"), "{o:#?}");
}

#[test]
fn style_rules_are_never_a_value() {
    let o = objects(&snap(vec![
        el("main", None, "", &[]),
        el(
            "div",
            Some(0),
            ".pane { display: flex; } .title { color: #1f272d; }",
            &[("id", "styleArea")],
        ),
        el("div", Some(0), "Saved {just now}", &[("id", "note-state")]),
    ]));
    assert!(!o.contains_key("style_area"), "{o:#?}");
    // Braces alone in prose are text.
    assert_eq!(o["note_state"], json!("Saved {just now}"), "{o:#?}");
}

/// An ARIA grid whose rows sit in row groups: a header row of `columnheader`s names the
/// columns and is no record; rows carry their selection.
#[test]
fn an_aria_grid_is_records_named_by_its_column_headers() {
    let mut els = vec![
        el("div", None, "", &[("role", "grid"), ("aria-label", "Runs")]),
        el("div", Some(0), "", &[("role", "rowgroup")]),
        el("div", Some(1), "", &[("role", "row")]),
        el("span", Some(2), "Run", &[("role", "columnheader")]),
        el("span", Some(2), "State", &[("role", "columnheader")]),
        el("div", Some(0), "", &[("role", "rowgroup")]),
    ];
    for (run, state, selected) in [
        ("build-41", "passed", "false"),
        ("build-42", "failed", "true"),
    ] {
        let row = els.len() as u32;
        els.push(el(
            "div",
            Some(5),
            "",
            &[("role", "row"), ("aria-selected", selected)],
        ));
        els.push(el("span", Some(row), run, &[("role", "gridcell")]));
        els.push(el("span", Some(row), state, &[("role", "gridcell")]));
    }
    let o = objects(&snap(els));
    assert_eq!(o["runs[0].run"], json!("build-41"), "{o:#?}");
    assert_eq!(o["runs[1].state"], json!("failed"), "{o:#?}");
    assert_eq!(o["runs[1].selected"], json!(true), "{o:#?}");
    assert_eq!(o["runs[0].selected"], json!(false), "{o:#?}");
    assert!(
        o.keys()
            .all(|k| !k.contains("columnheader") && !k.starts_with("items")),
        "{o:#?}"
    );
}

/// A record's view (one article, not a list of them): its text is readable, bounded.
#[test]
fn an_articles_text_is_readable_and_bounded() {
    let long = "word ".repeat(200);
    let o = objects(&snap(vec![
        el("main", None, "", &[]),
        el("article", Some(0), "", &[("aria-label", "Note")]),
        el("h2", Some(1), "groceries.txt", &[]),
        el("p", Some(1), "Milk, eggs and bread.", &[]),
        el("p", Some(1), &long, &[]),
    ]));
    let text = o["note.text"].as_str().expect("the note's text");
    assert!(
        text.starts_with("Milk, eggs and bread. word word"),
        "{text}"
    );
    assert!(text.chars().count() <= 201, "{}", text.len());
}

/// A file listing: each row's selection box is labelled after its row ('Select file
/// "a.md"'), the first row's name is drawn as a control (the focused item), every row
/// says the same relative time as a link, and the cells carry generated classes.
fn listing() -> PageSnapshot {
    let mut els = vec![el("ul", None, "", &[("aria-label", "Files")])];
    for (n, (kind, name)) in [("directory", "docs"), ("file", "a.md"), ("file", "b.txt")]
        .into_iter()
        .enumerate()
    {
        let li = els.len() as u32;
        els.push(nth("li", Some(0), n, "", &[]));
        els.push(el_at(
            "input",
            Some(li),
            "input:nth-of-type(1)",
            "",
            &[
                ("type", "checkbox"),
                ("aria-label", &format!("Select {kind} \"{name}\"")),
                ("class", "css-9x1kq2"),
            ],
        ));
        let mut attrs = vec![("class", "css-4hf7a1")];
        if n == 0 {
            attrs.push(("role", "button"));
        }
        els.push(el_at("span", Some(li), "span:nth-of-type(1)", name, &attrs));
        els.push(el_at(
            "a",
            Some(li),
            "a:nth-of-type(1)",
            "15 seconds ago",
            &[("href", &format!("/files/{name}")), ("class", "css-4hf7a1")],
        ));
    }
    for e in els.iter_mut().skip(1) {
        e.relative = true;
    }
    snap(els)
}

#[test]
fn row_boxes_are_one_action_keyed_by_the_visible_name_never_by_a_class_or_a_time() {
    let c = analyze_snapshot(&listing(), ProbeTier::WasmInPage);
    let names: Vec<&String> = c.actions.keys().collect();
    let select = &c.actions["select"];
    let [param] = &select.parameters[..] else {
        panic!("{select:#?}")
    };
    assert_eq!(
        param.allowed_values,
        Some(vec![json!("docs"), json!("a.md"), json!("b.txt")]),
        "{select:#?}"
    );
    assert!(!param.name.contains("css"), "{}", param.name);
    assert!(
        names
            .iter()
            .all(|n| !n.contains("ago") && !n.contains("css") && !n.contains("select_")),
        "{names:?}"
    );
    let o = &c.objects;
    assert_eq!(
        o[&format!("files[0].{}", param.name)],
        json!("docs"),
        "{o:#?}"
    );
    assert!(o.keys().all(|k| !k.contains("css")), "{o:#?}");
}

/// Recorded frames side by side (sections of one class, each with a heading and its own
/// "Close"): records, and one `close` chosen by the record's title.
#[test]
fn sibling_frames_are_records_and_their_repeated_control_is_one_action() {
    let mut els = vec![el("main", None, "", &[])];
    for (n, title) in ["notes.md", "todo.md"].into_iter().enumerate() {
        let s = els.len() as u32;
        els.push(nth("section", Some(0), n, "", &[("class", "pane")]));
        els.push(el_at("h2", Some(s), "h2:nth-of-type(1)", title, &[]));
        els.push(el_at(
            "button",
            Some(s),
            "button:nth-of-type(1)",
            "",
            &[("aria-label", "Close"), ("type", "button")],
        ));
    }
    for e in els.iter_mut().skip(1) {
        e.relative = true;
    }
    let c = analyze_snapshot(&snap(els), ProbeTier::WasmInPage);
    let names: Vec<&String> = c
        .actions
        .keys()
        .filter(|n| n.starts_with("close"))
        .collect();
    assert_eq!(names, ["close"], "{:#?}", c.actions);
    let close = &c.actions["close"];
    assert_eq!(
        close.parameters[0].allowed_values,
        Some(vec![json!("notes.md"), json!("todo.md")]),
        "{close:#?}"
    );
}

/// An unnamed section holding a list of posts is named by its first heading, which is
/// the first post's own: the posts' records and row actions are not named after it.
#[test]
fn records_are_not_named_after_one_of_them() {
    let mut els = vec![
        el("section", None, "", &[]),
        el_at("ul", Some(0), "ul:nth-of-type(1)", "", &[]),
    ];
    for (n, title) in ["Alpha release", "Beta feedback"].into_iter().enumerate() {
        let li = els.len() as u32;
        els.push(nth("li", Some(1), n, "", &[]));
        els.push(el_at("h3", Some(li), "h3:nth-of-type(1)", title, &[]));
        els.push(el_at(
            "button",
            Some(li),
            "button:nth-of-type(1)",
            "More",
            &[("type", "button"), ("aria-haspopup", "menu")],
        ));
    }
    for e in els.iter_mut().skip(1) {
        e.relative = true;
    }
    let c = analyze_snapshot(&snap(els), ProbeTier::WasmInPage);
    let keys: Vec<&String> = c.objects.keys().collect();
    assert!(keys.iter().all(|k| !k.starts_with("alpha")), "{keys:?}");
    assert_eq!(
        c.objects["items[1].title"],
        json!("Beta feedback"),
        "{keys:?}"
    );
}

/// A listing whose items are opened by pressing their names (the focused item's name
/// drawn as a button, the others as plain text): one `open(name)` at `read`, pressing
/// the chosen row's name as a person opens an item, not one action per record named
/// after it; the records carry that name as `name`.
#[test]
fn a_listings_names_open_their_records_as_one_read_row_action() {
    let c = analyze_snapshot(&listing(), ProbeTier::WasmInPage);
    let open = c
        .actions
        .get("open")
        .unwrap_or_else(|| panic!("{:#?}", c.actions));
    assert_eq!(open.reversibility.as_str(), "read", "{open:#?}");
    assert!(open.confidence >= 0.8, "{open:#?}");
    let [param] = &open.parameters[..] else {
        panic!("{open:#?}")
    };
    assert_eq!(param.name, "name");
    assert_eq!(
        param.allowed_values,
        Some(vec![json!("docs"), json!("a.md"), json!("b.txt")])
    );
    // The control is the name itself, in the chosen row, pressed as an item is opened.
    let parts: Vec<&str> = open.internal_target.split(" | ").collect();
    assert_eq!(parts.len(), 4, "{}", open.internal_target);
    assert!(parts[0].ends_with("li > span:nth-of-type(1)"), "{parts:?}");
    assert_eq!(parts[2], "text:span:nth-of-type(1)");
    assert_eq!(parts[3], "open");
    assert!(!c.actions.contains_key("docs"), "{:#?}", c.actions.keys());
    assert_eq!(
        c.objects["files[1].name"],
        json!("a.md"),
        "{:#?}",
        c.objects
    );
    assert_eq!(
        c.objects["files[0].name"],
        json!("docs"),
        "{:#?}",
        c.objects
    );
    // The selection boxes are chosen by the same parameter.
    assert_eq!(c.actions["select"].parameters[0].name, "name");
}

/// A navigation whose links wrap their titles in spans the page marks clickable (a
/// framework's `a.nav-link > span.nav-link-title`): pressing the title follows its link,
/// so the links are the actions, and no `open(name)` pressing the spans repeats them.
#[test]
fn a_name_inside_a_link_is_no_pressed_name() {
    let s = support::recorded(
        "http://127.0.0.1:1/admin/book/create",
        "Books",
        json!([
            ["aside", null, "aside", 0, ""],
            ["ul", 0, "ul:nth-of-type(1)", 0, "", {"class": "navbar-nav"}],
            ["li", 1, 1, 0, "Authors", {"class": "nav-item"}],
            ["a", 2, 1, 0, "Authors", {"class": "nav-link", "href": "/admin/author/list"}],
            ["span", 3, 1, 8, "Authors", {"class": "nav-link-title"}],
            ["li", 1, 2, 0, "Books", {"class": "nav-item"}],
            ["a", 5, 1, 0, "Books", {"class": "nav-link active", "href": "/admin/book/list"}],
            ["span", 6, 1, 8, "Books", {"class": "nav-link-title"}]
        ]),
    );
    let c = analyze_snapshot(&s, ProbeTier::WasmInPage);
    assert!(!c.actions.contains_key("open"), "{:#?}", c.actions.keys());
    for name in ["open_authors", "open_books"] {
        let a = c
            .actions
            .get(name)
            .unwrap_or_else(|| panic!("{name}: {:#?}", c.actions.keys()));
        assert_eq!(a.reversibility.as_str(), "read");
        assert!(a.internal_target.ends_with("a:nth-of-type(1)"), "{a:#?}");
    }
}

/// Cells whose classes extend their row's (`entry-size` in a row of class `entry`, as
/// class naming schemes write a block's elements) are named by the part after it; a
/// class made of a design system's whole name is not a field name.
#[test]
fn cells_named_after_their_row_class_are_named_by_their_own_part() {
    let mut els = vec![el("ul", None, "", &[("aria-label", "Files")])];
    for (n, (name, size)) in [("a.md", "27 B"), ("b.txt", "18 B")]
        .into_iter()
        .enumerate()
    {
        let li = els.len() as u32;
        els.push(nth("li", Some(0), n, "", &[("class", "ui-Listing-item")]));
        els.push(el_at(
            "span",
            Some(li),
            "span:nth-of-type(1)",
            name,
            &[("class", "ui-Listing-itemText")],
        ));
        els.push(el_at(
            "span",
            Some(li),
            "span:nth-of-type(2)",
            size,
            &[("class", "ui-Listing-itemFileSize")],
        ));
    }
    for e in els.iter_mut().skip(1) {
        e.relative = true;
    }
    let o = objects(&snap(els));
    assert_eq!(o["files[1].file_size"], json!("18 B"), "{o:#?}");
    assert_eq!(o["files[0].text"], json!("a.md"), "{o:#?}");
    assert!(o.keys().all(|k| !k.contains("listing")), "{o:#?}");
}

/// One record's view drawn as a `div role=article` (an open note), with a "close" like
/// the sidebar's: the record's control is named after its own record, its text is
/// readable under the record's name.
#[test]
fn a_record_views_control_and_text_are_named_after_its_own_record() {
    let c = analyze_snapshot(
        &snap(vec![
            el(
                "div",
                None,
                "",
                &[("role", "region"), ("aria-label", "Sidebar")],
            ),
            el(
                "button",
                Some(0),
                "",
                &[("aria-label", "close"), ("title", "Close this note")],
            ),
            el("main", None, "", &[]),
            el(
                "div",
                Some(2),
                "",
                &[("role", "article"), ("class", "frame")],
            ),
            el(
                "button",
                Some(3),
                "",
                &[("aria-label", "close"), ("title", "Close this note")],
            ),
            el("h2", Some(3), "Groceries", &[]),
            el("p", Some(3), "Milk, eggs, bread and coffee.", &[]),
        ]),
        ProbeTier::WasmInPage,
    );
    let names: Vec<&String> = c
        .actions
        .keys()
        .filter(|n| n.starts_with("close"))
        .collect();
    assert_eq!(names, ["close", "close_groceries"], "{:#?}", c.actions);
    // The record's own button, not the sidebar's.
    assert!(c.actions["close_groceries"]
        .internal_target
        .ends_with("button:nth-of-type(4)"));
    assert!(c.actions["close"]
        .internal_target
        .ends_with("button:nth-of-type(1)"));
    assert_eq!(
        c.objects["groceries.text"],
        json!("Milk, eggs, bread and coffee."),
        "{:#?}",
        c.objects
    );
}

/// A link with no text named by its image (the extractor records the image's alt as
/// the link's label): `open_<alt>` at `read`, not left out as unnamed.
#[test]
fn an_image_only_link_is_named_by_its_image() {
    let mut logo = el("a", Some(0), "", &[("href", "https://example.org/")]);
    logo.label = "Example Powered".into();
    let c = analyze_snapshot(
        &snap(vec![el("footer", None, "", &[]), logo]),
        ProbeTier::WasmInPage,
    );
    let open = c
        .actions
        .get("open_example_powered")
        .unwrap_or_else(|| panic!("{:#?}", c.actions));
    assert_eq!(open.reversibility.as_str(), "read");
}

/// The extractor's side of the rule above: a link or button with no text takes its
/// image's alt (else its title) as the label the probe reads and the dispatcher checks;
/// a text or an aria-label still wins.
#[test]
fn extract_js_names_an_image_only_link_by_its_image() {
    let script = support::node::extension_script("extract.js");
    let program = format!(
        r#"require({script:?});
        const img = (attrs) => ({{ getAttribute: (n) => (n in attrs ? attrs[n] : null) }});
        const link = (tag, text, attrs, inner) => ({{
          localName: tag, textContent: text, firstChild: text ? {{ nodeType: 3, data: text, nextSibling: null }} : null,
          childElementCount: inner ? 1 : 0,
          getAttribute: (n) => (n in attrs ? attrs[n] : null), hasAttribute: (n) => n in attrs,
          querySelector: () => inner,
        }});
        console.log(JSON.stringify([
          NspExtract.controlLabel(link("a", "", {{ href: "/" }}, img({{ alt: "Trac Powered" }}))),
          NspExtract.controlLabel(link("a", "", {{ href: "/" }}, img({{ title: "Source code" }}))),
          NspExtract.controlLabel(link("button", "", {{}}, img({{ alt: "Search" }}))),
          NspExtract.controlLabel(link("a", "Home", {{ href: "/" }}, img({{ alt: "Logo" }}))),
          NspExtract.controlLabel(link("a", "", {{ href: "/", "aria-label": "Start" }}, img({{ alt: "Logo" }}))),
          NspExtract.controlLabel(link("a", "", {{ href: "/", title: "Docs" }}, null)),
          NspExtract.controlLabel(link("a", "", {{ href: "", title: "Create a new calendar" }}, img({{ alt: "\u2795" }}))),
          NspExtract.controlLabel(link("a", "", {{ href: "/" }}, img({{ alt: "\u2795", title: "New" }}))),
        ]));"#
    );
    let labels: Vec<String> =
        serde_json::from_value(support::node::run_json(&program)).expect("labels");
    assert_eq!(
        labels,
        [
            "Trac Powered",
            "Source code",
            "Search",
            "Home",
            "Start",
            "Docs",
            "Create a new calendar",
            "New"
        ]
    );
}

/// A field nothing names (no name, id, label, placeholder or title) is keyed by its
/// role, never by what it holds; an id that names nothing ("0") is no key either.
#[test]
fn an_unnamed_fields_key_is_its_role_never_its_value() {
    let o = objects(&snap(vec![
        el("section", None, "", &[("aria-label", "Editor")]),
        el(
            "input",
            Some(0),
            "",
            &[("type", "text"), ("value", "New item")],
        ),
        el(
            "textarea",
            Some(0),
            "",
            &[("id", "0"), ("value", "Body text")],
        ),
    ]));
    assert_eq!(o["editor.text"], json!("New item"), "{o:#?}");
    assert!(
        o.keys()
            .all(|k| !k.contains("new_item") && !k.ends_with(".0")),
        "{o:#?}"
    );
    assert_eq!(o["editor.text_2"], json!("Body text"), "{o:#?}");
}

/// `e`, not visible.
fn hidden(mut e: ElementRecord) -> ElementRecord {
    e.visible = false;
    e
}

/// A field in a hidden part of the page (a closed dialog, another scene of a single-page
/// app) is not an object; a hidden input whose parent shows (a checkbox drawn by its
/// label) still is.
#[test]
fn fields_of_a_hidden_section_are_not_objects() {
    let s = snap(vec![
        el("main", None, "", &[]),
        el("form", Some(0), "", &[("aria-label", "Sign in")]),
        el(
            "input",
            Some(1),
            "",
            &[("name", "username"), ("type", "text")],
        ),
        hidden(el("section", Some(0), "", &[("id", "createscene")])),
        hidden(el("form", Some(3), "", &[("aria-label", "Create")])),
        hidden(el(
            "input",
            Some(4),
            "",
            &[("name", "displayname"), ("type", "text")],
        )),
        el("label", Some(0), "Remember me", &[]),
        hidden(el(
            "input",
            Some(6),
            "",
            &[("name", "remember"), ("type", "checkbox")],
        )),
    ]);
    let o = objects(&s);
    assert!(o.keys().any(|k| k.ends_with("username")), "{o:?}");
    assert!(!o.keys().any(|k| k.contains("displayname")), "{o:?}");
    assert!(o.keys().any(|k| k.ends_with("remember")), "{o:?}");
}

/// The objects of a list of links, `items` as (the item's class, its label), in a region
/// of id `id`; a label `|` is a divider, with no link.
fn nav_objects(id: &str, items: &[(&str, &str)]) -> BTreeMap<String, Value> {
    let mut els = vec![
        el("div", None, "", &[("id", id)]),
        el("ul", Some(0), "", &[]),
    ];
    for (n, (class, label)) in items.iter().enumerate() {
        let li = els.len() as u32;
        els.push(nth("li", Some(1), n, label, &[("class", class)]));
        if *label != "|" {
            els.push(el("a", Some(li), label, &[("href", "#x")]));
        }
    }
    objects(&snap(els))
}

/// A class that says where a row is (`first`, `last`, `odd`), or where it is drawn (a
/// CSS framework's `ml-auto`, `float-right` on one item of a nav), is not a state of
/// the row: `selected` is.
#[test]
fn position_classes_are_not_row_state() {
    let o = nav_objects(
        "metanav",
        &[
            ("first", "Login"),
            ("odd", "Preferences"),
            ("", "Help"),
            ("last", "About"),
        ],
    );
    assert!(
        !o.keys()
            .any(|k| k.ends_with(".first") || k.ends_with(".last") || k.ends_with(".odd")),
        "{o:?}"
    );

    // Bootstrap's nav: the current item `active`, one item pushed right by `ml-auto`,
    // another floated by `float-right`.
    let o = nav_objects(
        "content",
        &[
            ("nav-item active", "Structure"),
            ("nav-item", "Content"),
            ("nav-item ml-auto", "Import"),
            ("nav-item float-right", "Drop"),
        ],
    );
    assert!(
        o.keys().any(|k| k.ends_with("active")),
        "the current item is state: {o:?}"
    );
    assert!(
        !o.keys()
            .any(|k| k.contains("auto") || k.contains("float") || k.contains("right")),
        "{o:?}"
    );

    // A menu whose items carry a framework's item class and whose divider does not: the
    // class says what an element is, not a state (Pure CSS's `pure-menu-item`).
    let o = nav_objects(
        "top-menu",
        &[
            ("pure-menu-item selected", "Settings"),
            ("pure-menu-item", "Import"),
            ("menu-divider", "|"),
            ("pure-menu-item", "Help"),
        ],
    );
    assert!(o.keys().any(|k| k.ends_with("selected")), "{o:?}");
    assert!(
        !o.keys()
            .any(|k| k.contains("menu_item") || k.contains("divider")),
        "{o:?}"
    );
}

/// The current item marked on its link (`li > a.selected`, as TodoMVC's filters and
/// Bootstrap's `a.nav-link.active` do) is a state of its record, never the name of the
/// text column: every record says whether it is the current one, and the column of
/// names stays named for what it holds. Moving the mark changes values, never keys.
#[test]
fn a_state_class_on_an_items_link_is_its_state_not_a_column_name() {
    let filters = |current: usize| {
        let mut els = vec![
            el("footer", None, "", &[("class", "footer")]),
            el("ul", Some(0), "", &[("class", "filters")]),
        ];
        for (n, label) in ["All", "Active", "Completed"].into_iter().enumerate() {
            let li = els.len() as u32;
            els.push(nth("li", Some(1), n, label, &[]));
            let class = if n == current { "selected" } else { "" };
            els.push(el(
                "a",
                Some(li),
                label,
                &[("href", "#/x"), ("class", class)],
            ));
        }
        objects(&snap(els))
    };
    let all = filters(0);
    // Each item keyed by its own text says it once: as its `name`, not again as the
    // link that holds all of it.
    let names = values_ending(&all, ".name");
    assert_eq!(
        names,
        [&json!("All"), &json!("Active"), &json!("Completed")],
        "{all:#?}"
    );
    assert!(values_ending(&all, ".link").is_empty(), "{all:#?}");
    assert!(
        all.iter()
            .all(|(k, v)| !k.ends_with(".selected") || v.is_boolean()),
        "{all:#?}"
    );
    let selected: Vec<&String> = all
        .iter()
        .filter(|(k, v)| k.ends_with(".selected") && **v == json!(true))
        .map(|(k, _)| k)
        .collect();
    assert_eq!(selected.len(), 1, "{all:#?}");
    let active = filters(1);
    assert_eq!(
        all.keys().collect::<Vec<_>>(),
        active.keys().collect::<Vec<_>>(),
        "moving the mark changes no key"
    );
    assert_ne!(all, active, "moving the mark changes a value");

    // Bootstrap's pager marks the link it cannot follow: `a.page-link.disabled`.
    let mut els = vec![el("ul", None, "", &[("class", "pagination")])];
    for (n, (label, class)) in [
        ("Previous", "page-link disabled"),
        ("1", "page-link"),
        ("Next", "page-link"),
    ]
    .into_iter()
    .enumerate()
    {
        let li = els.len() as u32;
        els.push(nth("li", Some(0), n, label, &[("class", "page-item")]));
        els.push(el(
            "a",
            Some(li),
            label,
            &[("href", "#p"), ("class", class)],
        ));
    }
    let pager = objects(&snap(els));
    assert!(
        !pager
            .keys()
            .any(|k| k.ends_with(".disabled") && pager[k].is_string()),
        "{pager:#?}"
    );
    assert_eq!(
        pager
            .iter()
            .filter(|(k, v)| k.ends_with("disabled") && **v == json!(true))
            .count(),
        1,
        "{pager:#?}"
    );
}

/// A ticket's details as a table of labelled values (`<th>Priority:</th><td>major</td>`,
/// two pairs a row, as Trac draws them).
fn ticket(priority: &str, owner: &str) -> PageSnapshot {
    let mut els = vec![
        el("div", None, "", &[("id", "ticket")]),
        el("table", Some(0), "", &[("class", "properties")]),
        el("tbody", Some(1), "", &[]),
    ];
    let rows: [[(&str, &str, bool); 2]; 2] = [
        [("Reported by:", "alice", true), ("Owned by:", owner, true)],
        [("Priority:", priority, true), ("Milestone:", "", false)],
    ];
    for (n, row) in rows.iter().enumerate() {
        let tr = els.len() as u32;
        els.push(nth("tr", Some(2), n, "", &[]));
        for (label, value, link) in row {
            els.push(el("th", Some(tr), label, &[]));
            let td = els.len() as u32;
            els.push(el("td", Some(tr), value, &[]));
            if *link {
                let href = format!("/query?v={value}");
                els.push(el("a", Some(td), value, &[("href", &href)]));
            }
        }
    }
    snap(els)
}

/// Labelled values are objects named by their labels, not records of a list with the
/// labels as values; a link showing a value is named by its label, so neither key nor
/// action changes with the value.
#[test]
fn a_table_of_labelled_values_is_named_by_its_labels() {
    let before = analyze_snapshot(&ticket("major", "bob"), ProbeTier::WasmInPage);
    let o = &before.objects;
    let leaf = |o: &BTreeMap<String, Value>, name: &str| -> Option<Value> {
        o.iter()
            .find(|(k, _)| *k == name || k.ends_with(&format!(".{name}")))
            .map(|(_, v)| v.clone())
    };
    assert_eq!(leaf(o, "priority"), Some(json!("major")), "{o:#?}");
    assert_eq!(leaf(o, "owned_by"), Some(json!("bob")), "{o:#?}");
    assert_eq!(leaf(o, "reported_by"), Some(json!("alice")), "{o:#?}");
    assert_eq!(leaf(o, "milestone"), Some(json!("")), "{o:#?}");
    assert!(
        !o.values().any(|v| v == &json!("Priority:")),
        "a label is no value: {o:#?}"
    );
    for name in ["open_priority", "open_owned_by", "open_reported_by"] {
        assert!(
            before.actions.contains_key(name),
            "{name}: {:?}",
            before.actions.keys()
        );
    }
    let after = analyze_snapshot(&ticket("minor", "carol"), ProbeTier::WasmInPage);
    assert_eq!(leaf(&after.objects, "priority"), Some(json!("minor")));
    assert_eq!(
        before.objects.keys().collect::<Vec<_>>(),
        after.objects.keys().collect::<Vec<_>>()
    );
    assert_eq!(
        before.actions.keys().collect::<Vec<_>>(),
        after.actions.keys().collect::<Vec<_>>()
    );
}

/// A table whose rows start with a row header and hold several values (no `th`, `td`
/// pairs), or whose columns a `thead` names, is a list of records still.
#[test]
fn a_table_of_records_is_no_table_of_labelled_values() {
    let mut els = vec![
        el("table", None, "", &[("id", "scores")]),
        el("tbody", Some(0), "", &[]),
    ];
    for (n, (who, a, b)) in [("Alice", "30", "40"), ("Bob", "25", "35")]
        .into_iter()
        .enumerate()
    {
        let tr = els.len() as u32;
        els.push(nth("tr", Some(1), n, "", &[]));
        els.push(el("th", Some(tr), who, &[]));
        els.push(el("td", Some(tr), a, &[]));
        els.push(el("td", Some(tr), b, &[]));
    }
    let o = objects(&snap(els));
    assert!(
        o.keys()
            .any(|k| k.starts_with("scores[1]") || k.starts_with("scores.rows[1]")),
        "{o:#?}"
    );
    assert!(!o.contains_key("scores.alice"), "{o:#?}");
}

/// A select whose options submit ids says its choice as its parameter takes it, by the
/// option's text: the object and the parameter's allowed values use the same words.
#[test]
fn a_selects_value_is_its_choice_in_the_words_its_parameter_takes() {
    let page = |chosen: &str| {
        snap(vec![
            el("form", None, "", &[("id", "bill"), ("method", "post")]),
            el(
                "select",
                Some(0),
                "",
                &[
                    ("name", "payer"),
                    ("options", r#"["","1","2","3"]"#),
                    ("option_labels", r#"["","Amina","Georg","Alice"]"#),
                    ("value", chosen),
                ],
            ),
            el("button", Some(0), "Submit", &[("type", "submit")]),
        ])
    };
    let capture = analyze_snapshot(&page("2"), ProbeTier::WasmInPage);
    let (key, value) = capture
        .objects
        .iter()
        .find(|(k, _)| k.ends_with("payer"))
        .expect("the select is an object");
    assert_eq!(value, &json!("Georg"), "{key}");
    let param = capture
        .actions
        .values()
        .flat_map(|a| &a.parameters)
        .find(|p| p.name == "payer")
        .expect("the select is a parameter");
    let allowed = param.allowed_values.as_ref().expect("its choices");
    assert!(allowed.iter().any(|v| v == "Georg"), "{allowed:?}");
    let other = analyze_snapshot(&page("1"), ProbeTier::WasmInPage);
    assert_eq!(other.objects.get(key), Some(&json!("Amina")));
}

/// A first option that shows no text is a placeholder whatever its value (WTForms'
/// `__None`, sqladmin's and Flask-Admin's forms): the choices are the other options'
/// words, not their values; and a select of many choices holds the list of the
/// options chosen, in those words.
#[test]
fn a_blank_first_option_is_a_placeholder_and_many_choices_are_a_list() {
    let page = |team: &str, tags: &str| {
        snap(vec![
            el("form", None, "", &[("id", "ticket"), ("method", "post")]),
            el(
                "select",
                Some(0),
                "",
                &[
                    ("name", "team"),
                    ("options", r#"["__None","1","2"]"#),
                    ("option_labels", r#"[" ","Support","Billing"]"#),
                    ("value", team),
                ],
            ),
            el(
                "select",
                Some(0),
                "",
                &[
                    ("name", "tags"),
                    ("multiple", ""),
                    ("options", r#"["1","2","3"]"#),
                    ("option_labels", r#"["bug","ux","docs"]"#),
                    ("value", tags),
                ],
            ),
            el("button", Some(0), "Save", &[("type", "submit")]),
        ])
    };
    let capture = analyze_snapshot(&page("__None", "1,3"), ProbeTier::WasmInPage);
    let param = capture
        .actions
        .values()
        .flat_map(|a| &a.parameters)
        .find(|p| p.name == "team")
        .expect("the select is a parameter");
    assert_eq!(
        param.allowed_values.as_deref(),
        Some(&[json!("Support"), json!("Billing")][..]),
        "{param:?}"
    );
    let object = |c: &nsp_protocol::PageCapture, name: &str| {
        c.objects
            .iter()
            .find(|(k, _)| k.ends_with(name))
            .map(|(_, v)| v.clone())
    };
    assert_ne!(object(&capture, "team"), Some(json!("__None")));
    assert_eq!(object(&capture, "tags"), Some(json!(["bug", "docs"])));
    let other = analyze_snapshot(&page("2", ""), ProbeTier::WasmInPage);
    assert_eq!(object(&other, "team"), Some(json!("Billing")));
    assert_eq!(object(&other, "tags"), Some(json!([])));
}

/// Classes of one family that say one thing of each row (`status-open`,
/// `status-closed`) are one field, `status`, not a boolean per class; `is-` classes are
/// states still.
#[test]
fn a_class_family_is_one_field_of_its_rows() {
    let mut els = vec![
        el("table", None, "", &[("id", "tickets")]),
        el("thead", Some(0), "", &[]),
        el("tr", Some(1), "", &[]),
        el("th", Some(2), "Summary", &[]),
        el("tbody", Some(0), "", &[]),
    ];
    for (n, (class, summary)) in [
        ("ticket status-open is-unread", "Rake cracks"),
        ("ticket status-closed", "Hose leaks"),
        ("ticket status-open", "Spade bent"),
    ]
    .into_iter()
    .enumerate()
    {
        let tr = els.len() as u32;
        els.push(nth("tr", Some(4), n, summary, &[("class", class)]));
        els.push(el("td", Some(tr), summary, &[]));
    }
    let o = objects(&snap(els));
    let status = values_ending(&o, "].status");
    assert_eq!(
        status,
        [&json!("open"), &json!("closed"), &json!("open")],
        "{o:#?}"
    );
    assert!(!o.keys().any(|k| k.contains("status_")), "{o:#?}");
    assert!(o.keys().any(|k| k.ends_with("].is_unread")), "{o:#?}");
}

/// A wrapper with an id around an element with an id of its own and the same text
/// says it once, under the inner key.
#[test]
fn a_text_wrapped_in_two_ids_is_said_once() {
    let o = objects(&snap(vec![
        el("div", None, "None available", &[("id", "content-related")]),
        el(
            "div",
            Some(0),
            "None available",
            &[("id", "recent-actions-module")],
        ),
        el("div", None, "Saved", &[("id", "save-state")]),
    ]));
    let said: Vec<&String> = o
        .iter()
        .filter(|(_, v)| **v == json!("None available"))
        .map(|(k, _)| k)
        .collect();
    assert_eq!(said.len(), 1, "{o:#?}");
    assert!(said[0].ends_with("recent_actions_module"), "{o:#?}");
    assert_eq!(o.get("save_state"), Some(&json!("Saved")), "{o:#?}");
}

/// An editable region with no name of its own (a code editor's content) is keyed by its
/// role, never by its text: typing must change the value, not the key.
#[test]
fn an_unnamed_editable_region_is_keyed_by_its_role_not_its_text() {
    let page = |text: &str| {
        snap(vec![
            el("main", None, "", &[("aria-label", "Editor")]),
            el(
                "div",
                Some(0),
                text,
                &[("contenteditable", "true"), ("role", "textbox")],
            ),
        ])
    };
    let before = objects(&page("Milk, eggs, bread"));
    let after = objects(&page("Milk, eggs, bread, coffee"));
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>(),
        "{before:?} / {after:?}"
    );
    assert!(!before.keys().any(|k| k.contains("milk")), "{before:?}");
    assert!(
        before.values().any(|v| v == "Milk, eggs, bread"),
        "{before:?}"
    );
}

/// Behind an open modal dialog the page is covered, not gone: its fields stay objects
/// even when the cover hides them and their parents, so an agent can verify what the
/// dialog's action did to the page behind it.
#[test]
fn fields_behind_an_open_modal_dialog_stay_objects() {
    let s = snap(vec![
        el("main", None, "", &[]),
        hidden(el("div", Some(0), "", &[("id", "filebrowser")])),
        hidden(el(
            "input",
            Some(1),
            "",
            &[("name", "path"), ("type", "text")],
        )),
        el(
            "div",
            None,
            "",
            &[
                ("role", "dialog"),
                ("aria-modal", "true"),
                ("aria-label", "Delete"),
            ],
        ),
        el("button", Some(3), "Delete", &[]),
    ]);
    let o = objects(&s);
    assert!(o.keys().any(|k| k.ends_with("path")), "{o:?}");
}

/// A skip link (JupyterLab's `#jp-skiplink`: a wrapper with an id around `<a
/// href="#first-cell">Skip to Main</a>`, off the page until keyboard focus brings it
/// on screen) is no action, and its words are a label, not state: neither its wrapper's
/// id nor its own keys an object. Text under an id beside it still does.
#[test]
fn a_skip_links_words_are_no_object() {
    let mut link = el(
        "a",
        Some(2),
        "Skip to Main",
        &[
            ("class", "skip-link"),
            ("href", "#first-cell"),
            ("tabindex", "1"),
        ],
    );
    link.clickable = true;
    let s = snap(vec![
        el("div", None, "", &[("id", "main")]), // 0
        el(
            "div",
            Some(0),
            "",
            &[("id", "top-panel"), ("role", "banner")],
        ), // 1
        el(
            "div",
            Some(1),
            "Skip to Main",
            &[("id", "jp-skiplink"), ("class", "lm-Widget jp-skiplink")],
        ), // 2
        link,                                   // 3
        el(
            "a",
            Some(1),
            "Jump to content",
            &[("id", "jump"), ("href", "#content")],
        ), // 4
        el("div", Some(1), "groceries.txt", &[("id", "jp-title")]), // 5
        el("div", Some(0), "", &[("id", "content")]), // 6
    ]);
    let c = analyze_snapshot(&s, ProbeTier::WasmInPage);
    for (k, v) in &c.objects {
        let text = v.as_str().unwrap_or("");
        assert!(
            !text.starts_with("Skip") && !text.starts_with("Jump"),
            "{k}: {v}\n{:#?}",
            c.objects
        );
    }
    assert!(
        c.objects
            .iter()
            .any(|(k, v)| k.ends_with("jp_title") && v == "groceries.txt"),
        "{:#?}",
        c.objects
    );
    assert!(
        c.actions
            .keys()
            .all(|n| !n.contains("skip") && !n.contains("jump")),
        "{:?}",
        c.actions.keys()
    );
}

/// A list inside a record of another list (a tree's branch, `li > ol`; a cell's tags,
/// `td > ul`) is a list of its own keyed under that record, and no part of the record's
/// fields: each item is said once, under its parent, not again in every ancestor's
/// record (a report's account tree said each account once per level above it).
#[test]
fn a_list_inside_a_record_is_keyed_under_it_and_said_once() {
    // accounts: Income > (Salary, Bonus), Expenses > Food > (Coffee, Groceries).
    let mut els = vec![
        el("main", None, "", &[]),
        el("ol", Some(0), "", &[("id", "accounts")]),
    ];
    // (parent record index, depth-first) builds `li > span.account + span.num + ol`.
    fn item(els: &mut Vec<ElementRecord>, list: u32, n: usize, name: &str, num: &str) -> u32 {
        let li = els.len() as u32;
        els.push(nth("li", Some(list), n, &format!("{name} {num}"), &[]));
        els.push(nth("span", Some(li), 0, name, &[("class", "account")]));
        els.push(nth("span", Some(li), 1, num, &[("class", "num")]));
        li
    }
    fn sublist(els: &mut Vec<ElementRecord>, li: u32) -> u32 {
        let ol = els.len() as u32;
        els.push(nth("ol", Some(li), 0, "", &[]));
        ol
    }
    let income = item(&mut els, 1, 0, "Income", "-300");
    let ol = sublist(&mut els, income);
    item(&mut els, ol, 0, "Salary", "-250");
    item(&mut els, ol, 1, "Bonus", "-50");
    let expenses = item(&mut els, 1, 1, "Expenses", "120");
    let ol = sublist(&mut els, expenses);
    let food = item(&mut els, ol, 0, "Food", "120");
    let ol = sublist(&mut els, food);
    item(&mut els, ol, 0, "Coffee", "20");
    item(&mut els, ol, 1, "Groceries", "100");
    let o = objects(&snap(els));
    let want = [
        ("accounts[0].account", json!("Income")),
        ("accounts[0].num", json!(-300)),
        ("accounts[0].items[0].account", json!("Salary")),
        ("accounts[0].items[1].account", json!("Bonus")),
        ("accounts[1].account", json!("Expenses")),
        ("accounts[1].items[0].account", json!("Food")),
        ("accounts[1].items[0].items[0].account", json!("Coffee")),
        ("accounts[1].items[0].items[1].num", json!(100)),
    ];
    for (key, value) in want {
        assert_eq!(o.get(key), Some(&value), "{key} in {o:#?}");
    }
    // Each account once: no ancestor's record holds a descendant's name.
    for name in ["Salary", "Bonus", "Food", "Coffee", "Groceries"] {
        let n = o.values().filter(|v| *v == &json!(name)).count();
        assert_eq!(n, 1, "{name} in {o:#?}");
    }

    // A table's rows with their tags in a cell: the tags under their row.
    let mut els = vec![
        el("table", None, "", &[("id", "issues")]),
        el("tbody", Some(0), "", &[]),
    ];
    for (n, (title, tags)) in [
        ("Crash on save", &["bug", "ui"][..]),
        ("Add export", &["feature"][..]),
    ]
    .into_iter()
    .enumerate()
    {
        let tr = els.len() as u32;
        els.push(nth("tr", Some(1), n, "", &[]));
        els.push(nth("td", Some(tr), 0, title, &[]));
        let td = els.len() as u32;
        els.push(nth("td", Some(tr), 1, "", &[]));
        let ul = els.len() as u32;
        els.push(nth("ul", Some(td), 0, "", &[]));
        for (k, tag) in tags.iter().enumerate() {
            els.push(nth("li", Some(ul), k, tag, &[]));
        }
    }
    let o = objects(&snap(els));
    for (key, value) in [
        ("issues[0].text", json!("Crash on save")),
        ("issues[0].items[0].text", json!("bug")),
        ("issues[0].items[1].text", json!("ui")),
        ("issues[1].text", json!("Add export")),
        ("issues[1].items[0].text", json!("feature")),
    ] {
        assert_eq!(o.get(key), Some(&value), "{key} in {o:#?}");
    }
    for tag in ["bug", "ui", "feature"] {
        assert_eq!(
            o.values().filter(|v| *v == &json!(tag)).count(),
            1,
            "{tag} in {o:#?}"
        );
    }
}

/// A region is named by its own first heading, not by the heading of a block of its
/// own beside the region's controls (a promotion panel with headings and links above a
/// settings form would name every setting after "Try our extension"). A heading in a
/// header block of its own still names the region.
#[test]
fn a_side_blocks_heading_does_not_name_its_region() {
    let page = |promo: bool| {
        let mut els = vec![el("section", None, "", &[("class", "content")])];
        let block = els.len() as u32;
        els.push(el("div", Some(0), "", &[("id", "overlay")]));
        els.push(el(
            "h4",
            Some(block),
            if promo {
                "Try our extension"
            } else {
                "Settings"
            },
            &[],
        ));
        if promo {
            els.push(el(
                "a",
                Some(block),
                "Web store",
                &[("href", "https://example.com/")],
            ));
            els.push(el("h4", Some(block), "We need your support", &[]));
        }
        let form = els.len() as u32;
        els.push(el("form", Some(0), "", &[("method", "post")]));
        let mut field = el(
            "input",
            Some(form),
            "",
            &[("name", "timeout"), ("type", "number"), ("value", "45")],
        );
        field.label = "Timeout".into();
        els.push(field);
        els.push(el("button", Some(form), "Save", &[("type", "submit")]));
        objects(&snap(els))
    };
    let o = page(true);
    assert_eq!(o.get("timeout"), Some(&json!(45)), "{o:#?}");
    assert!(!o.keys().any(|k| k.contains("try_our")), "{o:#?}");
    let o = page(false);
    assert_eq!(o.get("settings.timeout"), Some(&json!(45)), "{o:#?}");
}

/// A `<label>` names a field, whatever its id: its text ("Search term") is no state
/// (Wagtail's `#id_q-label`, visually hidden, beside the search box). The field's value
/// is.
#[test]
fn a_label_with_an_id_is_no_state() {
    let mut field = el(
        "input",
        Some(0),
        "",
        &[
            ("type", "text"),
            ("name", "q"),
            ("id", "id_q"),
            ("value", ""),
        ],
    );
    field.label = "Search term".into();
    let o = objects(&snap(vec![
        el("header", None, "", &[("id", "site")]),
        el(
            "label",
            Some(0),
            "Search term",
            &[
                ("for", "id_q"),
                ("id", "id_q-label"),
                ("class", "w-sr-only"),
            ],
        ),
        field,
        el("span", Some(0), "3 pages", &[("id", "page-count")]),
    ]));
    assert!(!o.values().any(|v| v == &json!("Search term")), "{o:#?}");
    assert!(o.keys().any(|k| k.ends_with(".q")), "{o:#?}");
    assert!(o.keys().any(|k| k.ends_with("page_count")), "{o:#?}");
}

/// A CSS framework's utility class says when or how an element shows (Bootstrap 3's
/// `hidden-sm` on a nav link's text, `d-none d-md-inline`, `text-muted`, `text-right`,
/// `mb-2`, Tailwind's `md:block`), never what it holds: no column is named after one.
#[test]
fn utility_classes_name_no_column() {
    // Calibre-Web's header: an upload form, then links whose text sits in a span
    // hidden on small screens.
    let mut els = vec![
        el("ul", None, "", &[("id", "main-nav")]),
        nth("li", Some(0), 0, "", &[]),
        el(
            "form",
            Some(1),
            "",
            &[("id", "form-upload"), ("method", "post")],
        ),
        el(
            "input",
            Some(2),
            "",
            &[("type", "file"), ("name", "btn-upload")],
        ),
    ];
    for (n, label) in ["Tasks", "Admin", "Account", "Logout"]
        .into_iter()
        .enumerate()
    {
        let li = els.len() as u32;
        els.push(nth("li", Some(0), n + 1, label, &[]));
        let a = els.len() as u32;
        let id = format!("top_{}", label.to_lowercase());
        els.push(el("a", Some(li), label, &[("href", "/x"), ("id", &id)]));
        els.push(el("span", Some(a), label, &[("class", "hidden-sm")]));
    }
    let o = objects(&snap(els));
    assert!(!o.keys().any(|k| k.contains("hidden")), "{o:?}");

    // A list of orders whose cells carry only utility classes besides one real name.
    let mut els = vec![el("ul", None, "", &[("id", "orders")])];
    for (n, (who, total)) in [("Ada", "12.00"), ("Bob", "8.50"), ("Cy", "3.10")]
        .into_iter()
        .enumerate()
    {
        let li = els.len() as u32;
        els.push(nth("li", Some(0), n, &format!("{who} {total} paid"), &[]));
        els.push(el("span", Some(li), who, &[("class", "customer fw-bold")]));
        els.push(el("span", Some(li), total, &[("class", "text-right mb-2")]));
        els.push(el(
            "span",
            Some(li),
            "paid",
            &[("class", "d-none md:inline text-muted")],
        ));
    }
    let o = objects(&snap(els));
    let keys = o.keys().cloned().collect::<Vec<_>>().join(" ");
    assert!(keys.contains("customer"), "{keys}");
    for bad in ["text_", "mb_", "d_none", "md_", "fw_", "muted"] {
        assert!(!keys.contains(bad), "{bad}: {keys}");
    }
}

/// A table written without `<thead>` (the browser puts its header row in the body):
/// the row of `th` cells names the columns and is no record.
#[test]
fn a_header_row_in_the_body_is_no_record() {
    let mut els = vec![
        el("table", None, "", &[("id", "users")]),
        el("tbody", Some(0), "", &[]),
        nth("tr", Some(1), 0, "", &[]),
    ];
    for (n, h) in ["Username", "Email", "Downloads"].into_iter().enumerate() {
        els.push(nth("th", Some(2), n, h, &[]));
    }
    for (r, (user, mail, n)) in [
        ("ada", "ada@example.org", "3"),
        ("bob", "bob@example.org", "0"),
    ]
    .into_iter()
    .enumerate()
    {
        let tr = els.len() as u32;
        els.push(nth("tr", Some(1), r + 1, "", &[]));
        for (k, v) in [user, mail, n].into_iter().enumerate() {
            els.push(nth("td", Some(tr), k, v, &[]));
        }
    }
    let o = objects(&snap(els));
    assert_eq!(
        o.get("users[0].username"),
        Some(&Value::from("ada")),
        "{o:?}"
    );
    assert_eq!(
        o.get("users[1].email"),
        Some(&Value::from("bob@example.org")),
        "{o:?}"
    );
    assert!(!o.keys().any(|k| k.starts_with("users[2]")), "{o:?}");
    assert!(!o.values().any(|v| v == "Username"), "{o:?}");
}

/// A table whose phone column the page hides at this width, and a navigation item
/// holding a closed menu (the account menu under a user's name).
fn hidden_parts(shown: bool) -> PageSnapshot {
    let mut els = vec![
        el("main", None, "", &[]),
        el("table", Some(0), "", &[("id", "people")]),
        el("tbody", Some(1), "", &[]),
    ];
    for (n, (name, phone)) in [("Ada Lovelace", "555-0101"), ("Grace Hopper", "555-0102")]
        .into_iter()
        .enumerate()
    {
        let row = els.len() as u32;
        els.push(nth("tr", Some(2), n, "", &[]));
        els.push(nth("td", Some(row), 0, name, &[("class", "name")]));
        let mut cell = nth("td", Some(row), 1, phone, &[("class", "phone")]);
        cell.visible = shown;
        els.push(cell);
    }
    let nav = els.len() as u32;
    els.push(el("header", None, "", &[]));
    els.push(el("ul", Some(nav), "", &[]));
    let list = nav + 1;
    els.push(nth("li", Some(list), 0, "", &[]));
    els.push(nth("a", Some(list + 1), 0, "Help", &[("href", "/help")]));
    els.push(nth("li", Some(list), 1, "", &[]));
    let user = list + 3;
    els.push(nth(
        "a",
        Some(user),
        0,
        "ada",
        &[("href", "#"), ("id", "user")],
    ));
    els.push(nth("ul", Some(user), 0, "", &[]));
    let menu = user + 2;
    for (n, label) in ["Log out", "Change password"].into_iter().enumerate() {
        let li = els.len() as u32;
        let mut item = nth("li", Some(menu), n, label, &[]);
        item.visible = shown;
        els.push(item);
        let mut link = nth("a", Some(li), 0, label, &[("href", "#")]);
        link.visible = shown;
        els.push(link);
    }
    els[menu as usize].visible = shown;
    snap(els)
}

/// Text a person cannot see is no field of a record: a hidden cell, a closed menu's
/// items. Shown, they are fields again.
#[test]
fn hidden_cells_and_closed_menus_are_no_fields() {
    let hidden = objects(&hidden_parts(false));
    let keys: Vec<&str> = hidden.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "header.items[0].link",
            "header.items[1].link",
            "people[0].name",
            "people[1].name"
        ],
        "{hidden:#?}"
    );
    assert!(!hidden.values().any(|v| v == "Log out"), "{hidden:#?}");
    let shown = objects(&hidden_parts(true));
    assert_eq!(shown["people[1].phone"], json!("555-0102"), "{shown:#?}");
    assert_eq!(
        shown["header.items[1].items[0].name"],
        json!("Log out"),
        "{shown:#?}"
    );
    // What stays keeps its key.
    for (k, v) in &hidden {
        assert_eq!(shown.get(k), Some(v), "{k}");
    }
}

/// A disabled control the extraction flags as out of reach is most often drawn greyed
/// out under `pointer-events: none`, shown all the same: a pagination's "First" and
/// "Last" on its only page keep their text in their records.
#[test]
fn a_disabled_control_out_of_reach_keeps_its_text() {
    let mut els = vec![
        el("main", None, "", &[]),
        el("ul", Some(0), "", &[("class", "pagination")]),
    ];
    // The previous and next links are icons, named by their aria-label alone.
    let items = [
        ("First", "", true),
        ("", "Previous page", true),
        ("1", "", false),
        ("", "Next page", true),
        ("Last", "", true),
    ];
    for (n, (label, aria, off)) in items.into_iter().enumerate() {
        let li = els.len() as u32;
        let class = if off {
            "page-item disabled"
        } else {
            "page-item active"
        };
        els.push(nth("li", Some(1), n, label, &[("class", class)]));
        let mut attrs = vec![("href", "/list"), ("class", "page-link")];
        if !aria.is_empty() {
            attrs.push(("aria-label", aria));
        }
        let mut link = nth("a", Some(li), 0, label, &attrs);
        if off {
            link.visible = false;
            link.disabled = true;
        }
        els.push(link);
    }
    let o = objects(&snap(els));
    for label in ["First", "Last"] {
        assert!(o.values().any(|v| v == label), "{label}: {o:#?}");
    }
}

/// A list of links keyed by their text, where some links wrap their name in a span of
/// its own (`a > span.name`, a group that opens): that span is the key already, not a
/// second field. Records as the extraction writes them.
#[test]
fn a_name_inside_the_key_link_is_said_once() {
    let s = support::recorded(
        "http://127.0.0.1:1/app",
        "App",
        json!([
            ["main", null, "main", 0, ""],
            ["ul", 0, "ul:nth-of-type(1)", 0, "", {"class": "table_list"}],
            ["li", 1, 1, 0, "Calculator"],
            ["a", 2, 1, 0, "Calculator", {"href": "#/forms/calc/", "class": "subtle", "title": "Adds two numbers."}],
            ["li", 1, 2, 0, "Download forms", {"class": "group"}],
            ["a", 4, 1, 0, "Download forms", {"href": "#", "class": "subtle", "title": "Click to toggle children."}],
            ["span", 5, 1, 0, "Download forms", {"class": "name"}],
            ["li", 1, 3, 0, "Download movies"],
            ["a", 7, 1, 0, "Download movies", {"href": "#/forms/movies/", "class": "subtle", "title": "A list of movies."}],
            ["li", 1, 4, 0, "Download schedule"],
            ["a", 9, 1, 0, "Download schedule", {"href": "#/forms/schedule/", "class": "subtle", "title": "The day's schedule."}],
            ["li", 1, 5, 0, "Text forms", {"class": "group"}],
            ["a", 11, 1, 0, "Text forms", {"href": "#", "class": "subtle", "title": "Click to toggle children."}],
            ["span", 12, 1, 0, "Text forms", {"class": "name"}],
            ["li", 1, 6, 0, "Booking form"],
            ["a", 14, 1, 0, "Booking form", {"href": "#/forms/booking/", "class": "subtle", "title": "Make a booking."}]
        ]),
    );
    let o = objects(&s);
    let labels = [
        "Calculator",
        "Download forms",
        "Download movies",
        "Download schedule",
        "Text forms",
        "Booking form",
    ];
    for (n, label) in labels.into_iter().enumerate() {
        let record = format!("items[{n}].");
        let said: Vec<&String> = o
            .iter()
            .filter(|(k, v)| k.starts_with(&record) && *v == label)
            .map(|(k, _)| k)
            .collect();
        assert_eq!(said.len(), 1, "{label}: {o:#?}");
    }
    assert_eq!(o["items[1].group"], json!(true), "{o:#?}");
}

/// A field with the label a person reads beside it.
fn field(parent: u32, n: usize, label: &str, attrs: &[(&str, &str)]) -> ElementRecord {
    ElementRecord {
        label: label.into(),
        ..nth("input", Some(parent), n, "", attrs)
    }
}

#[test]
fn a_field_in_a_row_is_a_value_of_its_record() {
    // A cart: each line's quantity is a number field in the "Quantity" column.
    let mut els = vec![
        el("table", None, "", &[]),
        nth("thead", Some(0), 0, "", &[]),
        nth("tr", Some(1), 0, "Item Quantity Price", &[]),
        nth("th", Some(2), 0, "Item", &[]),
        nth("th", Some(2), 1, "Quantity", &[]),
        nth("th", Some(2), 2, "Price", &[]),
        nth("tbody", Some(0), 0, "", &[]),
    ];
    for (n, (item, qty, price)) in [("Apples", "2", "$3"), ("Pears", "5", "$4")]
        .into_iter()
        .enumerate()
    {
        let tr = els.len() as u32;
        let id = format!("l{n}");
        els.push(nth(
            "tr",
            Some(6),
            n,
            &format!("{item} {price}"),
            &[("data-line-id", &id)],
        ));
        els.push(nth("td", Some(tr), 0, item, &[]));
        els.push(nth("td", Some(tr), 1, "", &[]));
        els.push(field(
            tr + 2,
            0,
            &format!("Quantity of {item}"),
            &[
                ("type", "number"),
                ("name", &format!("qty-{n}")),
                ("value", qty),
            ],
        ));
        els.push(nth("td", Some(tr), 2, price, &[]));
    }
    let o = objects(&snap(els));
    assert_eq!(
        values_ending(&o, ".quantity"),
        [&json!(2), &json!(5)],
        "{o:#?}"
    );
}

#[test]
fn fields_laid_out_one_per_row_are_fields_not_records() {
    // An interval as a table: a number field, then its label, on each row.
    let mut els = vec![
        el("table", None, "", &[("id", "interval")]),
        nth("tbody", Some(0), 0, "", &[]),
    ];
    for (n, (unit, value)) in [("Weeks", ""), ("Days", ""), ("Hours", "3")]
        .into_iter()
        .enumerate()
    {
        let tr = els.len() as u32;
        let name = format!("interval-{}", unit.to_lowercase());
        els.push(nth("tr", Some(1), n, "", &[]));
        els.push(nth("td", Some(tr), 0, "", &[]));
        els.push(field(
            tr + 1,
            0,
            unit,
            &[
                ("type", "number"),
                ("name", &name),
                ("id", &name),
                ("value", value),
            ],
        ));
        els.push(nth("th", Some(tr), 0, unit, &[]));
        els.push(nth("label", Some(tr + 3), 0, unit, &[("for", &name)]));
    }
    let o = objects(&snap(els));
    assert_eq!(o.get("interval_hours"), Some(&json!(3)), "{o:#?}");
    assert_eq!(o.get("interval_weeks"), Some(&Value::Null), "{o:#?}");
    assert!(
        o.values().all(|v| v != &json!("Weeks")),
        "the labels are no records: {o:#?}"
    );
}

#[test]
fn a_row_that_says_only_its_classes_is_no_record() {
    // A toolbar menu of icon links, one of them collapsible, one with a word.
    let mut els = vec![el("ul", None, "", &[("id", "tools")])];
    for (n, (class, text)) in [("item", ""), ("item collapsible", ""), ("item", "Settings")]
        .into_iter()
        .enumerate()
    {
        let li = els.len() as u32;
        els.push(nth("li", Some(0), n, text, &[("class", class)]));
        els.push(nth("a", Some(li), 0, text, &[("href", &format!("/t/{n}"))]));
    }
    let o = objects(&snap(els));
    let keys: Vec<&String> = o.keys().collect();
    assert!(
        keys.iter()
            .all(|k| !k.contains("[0]") && !k.contains("[1]")),
        "{o:#?}"
    );
    assert!(keys.iter().any(|k| k.contains("[2]")), "{o:#?}");
}

/// A journal: each entry shows its date (a link), a payee in a part of its own and the
/// narration written beside it in the same span, which the extraction records in no
/// part (`<strong class="payee">Market</strong>Vegetables`), and "comments" after a
/// count on every row.
fn journal(entries: &[(&str, &str, &str, &str)], extra: Option<ElementRecord>) -> PageSnapshot {
    let mut els = vec![el("ol", None, "", &[("aria-label", "Journal")])];
    for (n, (date, payee, narration, count)) in entries.iter().enumerate() {
        let li = els.len() as u32;
        let text = format!("{date} {payee}{narration} {count} comments");
        els.push(nth("li", Some(0), n, &text, &[("class", "entry")]));
        els.push(el_at(
            "a",
            Some(li),
            "span:nth-of-type(1) > a",
            date,
            &[("href", "#e")],
        ));
        els.push(el_at(
            "strong",
            Some(li),
            "span:nth-of-type(2) > strong",
            payee,
            &[("class", "payee")],
        ));
        els.push(el_at(
            "span",
            Some(li),
            "span:nth-of-type(3)",
            count,
            &[("class", "count")],
        ));
    }
    els.extend(extra);
    for e in els.iter_mut().skip(1) {
        e.relative = true;
    }
    snap(els)
}

/// Words a row shows outside its recorded parts are its data: the narration reaches the
/// model as the record's `text`, and changes with it; words the same on every row are
/// the list's ("comments") and no record's; nothing is reported when a part's text is
/// not in the row's (cut at its limit) or the row holds a list box, whose options are in
/// its text.
#[test]
fn words_a_row_shows_outside_its_parts_are_its_text() {
    let entries = [
        ("2026-11-10", "Market", "Vegetables", "2"),
        ("2026-11-03", "Landlord", "Rent November", "0"),
    ];
    let o = objects(&journal(&entries, None));
    assert_eq!(o["journal[0].text"], json!("Vegetables"), "{o:#?}");
    assert_eq!(o["journal[1].text"], json!("Rent November"), "{o:#?}");
    assert_eq!(o["journal[0].payee"], json!("Market"), "{o:#?}");
    assert!(
        !o.values()
            .any(|v| v.as_str().is_some_and(|s| s.contains("comments"))),
        "{o:#?}"
    );
    let mut changed = entries;
    changed[0].2 = "Fruit";
    let o2 = objects(&journal(&changed, None));
    assert_eq!(o2["journal[0].text"], json!("Fruit"), "{o2:#?}");
    assert_eq!(o.keys().collect::<Vec<_>>(), o2.keys().collect::<Vec<_>>());

    // The row's text cut before its last part: not where it should be.
    let mut cut = journal(&entries, None);
    cut.elements[1].text = "2026-11-10 MarketVeget".into();
    let o = objects(&cut);
    assert!(!o.contains_key("journal[0].text"), "{o:#?}");
    assert_eq!(o["journal[1].payee"], json!("Landlord"), "{o:#?}");

    // A list box in the row: its options are words of the row's text.
    let mut boxed = journal(&entries, None);
    boxed.elements[1].text = "2026-11-10 MarketVegetablesOpenClosed 2 comments".into();
    let mut select = el_at("select", Some(1), "select", "", &[("name", "state")]);
    select.relative = true;
    boxed.elements.insert(2, select);
    for e in boxed.elements.iter_mut().skip(3) {
        if let Some(p) = e.parent.as_mut().filter(|p| **p >= 2) {
            *p += 1;
        }
    }
    let o = objects(&boxed);
    assert!(
        !o.values().any(|v| v == &json!("VegetablesOpenClosed")),
        "{o:#?}"
    );
    assert!(!o.contains_key("journal[0].text"), "{o:#?}");
}

/// Sibling buttons marked with the keys that press them (`data-key="s o"`, Fava's
/// filters): rows whose state is shown, never keyed by the shortcut; the same buttons
/// marked with ids are keyed by them.
#[test]
fn a_keyboard_shortcut_is_no_rows_key() {
    let filters = |keys: [&str; 3]| {
        let mut els = vec![el("form", None, "", &[("aria-label", "Filters")])];
        for (n, (label, key)) in ["Open", "Close", "Note"].into_iter().zip(keys).enumerate() {
            let class = if n == 1 { "inactive" } else { "" };
            let mut b = nth(
                "button",
                Some(0),
                n,
                label,
                &[("type", "button"), ("data-key", key), ("class", class)],
            );
            b.relative = true;
            els.push(b);
        }
        objects(&snap(els))
    };
    let o = filters(["s o", "s c", "ctrl+n"]);
    assert!(!o.keys().any(|k| k.ends_with(".key")), "{o:#?}");
    assert_eq!(
        values_ending(&o, ".inactive"),
        [&json!(false), &json!(true), &json!(false)],
        "{o:#?}"
    );
    let o = filters(["open", "close", "note"]);
    assert_eq!(values_ending(&o, ".key").len(), 3, "{o:#?}");
    // Letters alone may be ids.
    let o = filters(["a", "b", "c"]);
    assert_eq!(values_ending(&o, ".key").len(), 3, "{o:#?}");
}

/// Keyed siblings outside list markup are rows, but not fields (Fava keys its header's
/// filter fields with their shortcuts, `data-key="f t"`: three records of
/// `expanded: false` before), and not the parts of a record (a navigation item's link
/// and its "+" beside it, each keyed: a second list of the same two links before).
#[test]
fn keyed_fields_and_the_keyed_parts_of_a_row_are_no_list() {
    let mut els = vec![el("header", None, "", &[])];
    for (n, (label, key)) in [("Time", "f t"), ("Account", "f a"), ("Filter", "f f")]
        .into_iter()
        .enumerate()
    {
        let mut f = field(
            0,
            n,
            label,
            &[
                ("role", "combobox"),
                ("aria-expanded", "false"),
                ("data-key", key),
                ("value", ""),
            ],
        );
        f.label = String::new();
        f.attrs.insert("placeholder".into(), label.into());
        els.push(f);
    }
    let nav = els.len() as u32;
    els.push(el("ul", None, "", &[("class", "navigation")]));
    for (n, (label, extra)) in [
        ("Editor", Some("+")),
        ("Import", Some("Export")),
        ("Options", None),
    ]
    .into_iter()
    .enumerate()
    {
        let li = els.len() as u32;
        els.push(nth("li", Some(nav), n, label, &[]));
        let href = format!("/{}/", label.to_lowercase());
        let key = format!("g {}", &label[..1].to_lowercase());
        els.push(nth(
            "a",
            Some(li),
            0,
            label,
            &[("href", &href), ("data-key", &key)],
        ));
        if let Some(x) = extra {
            els.push(nth(
                "a",
                Some(li),
                1,
                x,
                &[("href", "#add"), ("class", "secondary"), ("data-key", "n")],
            ));
        }
    }
    let o = objects(&snap(els));
    assert!(!o.keys().any(|k| k.contains("expanded")), "{o:#?}");
    for key in ["time", "account", "filter"] {
        assert!(o.keys().any(|k| k.ends_with(key)), "{key}: {o:#?}");
    }
    // One list: the navigation's, its items' links and what is beside them.
    let lists: BTreeSet<&str> = o
        .keys()
        .filter_map(|k| k.split_once('[').map(|(l, _)| l))
        .collect();
    assert_eq!(lists.len(), 1, "{o:#?}");
    assert!(
        !o.keys()
            .any(|k| k.ends_with(".secondary") && o[k].is_boolean()),
        "{o:#?}"
    );
}

/// Rows of one form whose fields each have a name of their own are its fields, whatever
/// their labels and boxes (Roundup's "Sort on: [sort0] Descending: [sortdir0]", then
/// "[sort1] Descending: [sortdir1]": four records of "Descending:" and a `select(index)`
/// of its boxes before). Rows whose boxes share one name (a list's selection) stay
/// records.
#[test]
fn rows_of_a_form_whose_fields_have_names_of_their_own_are_its_fields() {
    let build = |names: [&str; 8]| {
        let mut els = vec![
            el("form", None, "", &[("method", "get"), ("action", "issue")]),
            nth("table", Some(0), 0, "", &[]),
            nth("tbody", Some(1), 0, "", &[]),
        ];
        for (n, caption) in ["Sort on:", "", "Group on:", ""].into_iter().enumerate() {
            let tr = els.len() as u32;
            els.push(nth("tr", Some(2), n, "", &[]));
            els.push(nth("th", Some(tr), 0, caption, &[]));
            els.push(nth("td", Some(tr), 0, "", &[]));
            let mut select = nth(
                "select",
                Some(tr + 2),
                0,
                "",
                &[("name", names[2 * n]), ("value", "")],
            );
            select
                .attrs
                .insert("options".into(), r#"["","activity","title"]"#.into());
            els.push(select);
            els.push(nth("th", Some(tr), 1, "Descending:", &[]));
            els.push(nth("td", Some(tr), 1, "", &[]));
            els.push(nth(
                "input",
                Some(tr + 4),
                0,
                "",
                &[
                    ("type", "checkbox"),
                    ("name", names[2 * n + 1]),
                    ("checked", "false"),
                ],
            ));
        }
        // The submit in a row of its own, as Roundup lays it out: no label-value pairs.
        let tr = els.len() as u32;
        els.push(nth("tr", Some(2), 4, "", &[]));
        els.push(nth("td", Some(tr), 0, "", &[]));
        els.push(nth("td", Some(tr), 1, "", &[]));
        els.push(nth(
            "input",
            Some(tr + 2),
            0,
            "",
            &[("type", "submit"), ("value", "Redisplay")],
        ));
        objects(&snap(els))
    };
    let o = build([
        "@sort0",
        "@sortdir0",
        "@sort1",
        "@sortdir1",
        "@group0",
        "@groupdir0",
        "@group1",
        "@groupdir1",
    ]);
    assert!(!o.keys().any(|k| k.contains('[')), "no records: {o:#?}");
    for key in [
        "sort0",
        "sortdir0",
        "sort1",
        "sortdir1",
        "group1",
        "groupdir1",
    ] {
        assert!(o.keys().any(|k| k.ends_with(key)), "{key}: {o:#?}");
    }
    let o = build([
        "@sort0", "selected", "@sort1", "selected", "@group0", "selected", "@group1", "selected",
    ]);
    assert!(o.keys().any(|k| k.contains('[')), "records: {o:#?}");
}

/// A table whose first row is its title (one `th`: "History") above its column
/// headers is named by the title, its columns by the headers (Roundup's history was
/// `rows_2[0]: {history: <date>, text_2: "admin", text_3: "create"}`). A first row
/// above rows of another shape (each message's header row, then its one cell) stays
/// that table's one column.
#[test]
fn a_tables_title_row_names_the_table_and_its_header_row_the_columns() {
    let mut els = vec![
        el("main", None, "", &[]),
        nth("table", Some(0), 0, "", &[("class", "history")]),
        nth("tbody", Some(1), 0, "", &[]),
        nth("tr", Some(2), 0, "", &[]),
        nth("th", Some(3), 0, "History", &[]),
        nth("tr", Some(2), 1, "", &[]),
    ];
    for (n, h) in ["Date", "User", "Action", "Args"].into_iter().enumerate() {
        els.push(nth("th", Some(5), n, h, &[]));
    }
    for (n, (date, user, action)) in [
        ("2026-12-05 13:42", "admin", "create"),
        ("2026-12-05 14:02", "bob", "set"),
    ]
    .into_iter()
    .enumerate()
    {
        let tr = els.len() as u32;
        els.push(nth("tr", Some(2), n + 2, "", &[]));
        for (k, v) in [date, user, action, ""].into_iter().enumerate() {
            els.push(nth("td", Some(tr), k, v, &[]));
        }
    }
    let table = els.len() as u32;
    els.push(nth("table", Some(0), 1, "", &[("class", "messages")]));
    els.push(nth("tbody", Some(table), 0, "", &[]));
    els.push(nth("tr", Some(table + 1), 0, "", &[]));
    els.push(nth("th", Some(table + 2), 0, "Messages", &[]));
    els.push(nth("tr", Some(table + 1), 1, "", &[]));
    for (k, h) in ["msg1 (view)", "Author: admin", "Date: 2026-12-05"]
        .into_iter()
        .enumerate()
    {
        els.push(nth("th", Some(table + 4), k, h, &[]));
    }
    let tr = els.len() as u32;
    els.push(nth("tr", Some(table + 1), 2, "", &[]));
    els.push(nth("td", Some(tr), 0, "It jams every time.", &[]));
    let o = objects(&snap(els));
    assert_eq!(o.get("history[1].user"), Some(&json!("bob")), "{o:#?}");
    assert_eq!(o.get("history[0].action"), Some(&json!("create")), "{o:#?}");
    assert!(!o.keys().any(|k| k.contains("text_")), "{o:#?}");
    assert_eq!(
        values_ending(&o, ".messages"),
        [&json!("It jams every time.")],
        "{o:#?}"
    );
}

/// A tracker's issue form laid out as a table (Roundup's): two labelled fields on a row,
/// a helper link "(list)" beside a field, a row of the form's buttons. The fields are
/// the page's objects, no row is a record of labels. Rows that repeat the same field
/// (a cart's lines: a product link and its "Quantity") stay records.
#[test]
fn a_form_laid_out_in_table_rows_is_fields_not_records() {
    let mut els = vec![
        el("form", None, "", &[("aria-label", "New issue")]),
        nth("table", Some(0), 0, "", &[]),
        nth("tbody", Some(1), 0, "", &[]),
    ];
    let rows: [&[(&str, &str)]; 3] = [
        &[("Priority", "select"), ("Status", "select")],
        &[("Nosy List", "text")],
        &[("Change Note", "textarea")],
    ];
    for (n, fields) in rows.into_iter().enumerate() {
        let tr = els.len() as u32;
        els.push(nth("tr", Some(2), n, "", &[]));
        for (k, (label, kind)) in fields.iter().enumerate() {
            els.push(nth("th", Some(tr), k, label, &[]));
            let td = els.len() as u32;
            let helper = *kind == "text";
            els.push(nth(
                "td",
                Some(tr),
                k,
                if helper { "(list)" } else { "" },
                &[],
            ));
            let name = slug_of(label);
            let mut f = field(td, 0, label, &[("name", &name), ("value", "")]);
            if *kind != "text" {
                f.tag = (*kind).into();
            }
            els.push(f);
            if helper {
                els.push(nth(
                    "a",
                    Some(td),
                    0,
                    "(list)",
                    &[("href", "user?@template=help")],
                ));
            }
        }
    }
    let tr = els.len() as u32;
    els.push(nth("tr", Some(2), 3, "", &[]));
    els.push(nth("td", Some(tr), 0, "", &[]));
    els.push(nth(
        "input",
        Some(tr + 1),
        0,
        "",
        &[("type", "submit"), ("value", "Submit")],
    ));
    let o = objects(&snap(els));
    assert!(!o.keys().any(|k| k.contains('[')), "no records: {o:#?}");
    for key in ["priority", "status", "nosy_list", "change_note"] {
        assert!(o.keys().any(|k| k.ends_with(key)), "{key}: {o:#?}");
    }

    // A cart whose lines show only a product link and its quantity field.
    let mut els = vec![
        el("table", None, "", &[("aria-label", "Cart")]),
        nth("tbody", Some(0), 0, "", &[]),
    ];
    for (n, item) in ["Apples", "Pears"].into_iter().enumerate() {
        let tr = els.len() as u32;
        els.push(nth("tr", Some(1), n, item, &[]));
        els.push(nth("td", Some(tr), 0, item, &[]));
        els.push(nth("a", Some(tr + 1), 0, item, &[("href", "/p")]));
        els.push(nth("td", Some(tr), 1, "", &[]));
        els.push(field(
            tr + 3,
            0,
            "Quantity",
            &[
                ("type", "number"),
                ("name", &format!("q{n}")),
                ("value", "1"),
            ],
        ));
    }
    let o = objects(&snap(els));
    assert!(o.keys().any(|k| k.starts_with("cart[1].")), "{o:#?}");
}

fn slug_of(label: &str) -> String {
    label.to_lowercase().replace(' ', "_")
}

/// An ARIA table drawn with `div`s as a design system draws it (MLflow's experiment
/// list): a header row of `columnheader`s, each holding a sort button around a span,
/// all marked with one `data-component-id`; rows of `cell`s whose text sits in spans
/// (a time in two), a link, and a value beside a copy button; a kit's checkbox class on the rows' boxes
/// and the header's "select all"; a pagination of two marked buttons below.
fn design_system_table() -> PageSnapshot {
    let mut els = vec![el("main", None, "", &[])];
    let table = els.len() as u32;
    els.push(nth("div", Some(0), 0, "", &[("role", "table")]));
    let head = els.len() as u32;
    els.push(nth(
        "div",
        Some(table),
        0,
        "",
        &[("role", "row"), ("class", "table-isHeader")],
    ));
    let header = [
        ("role", "columnheader"),
        ("data-component-id", "app.list.header"),
    ];
    let all = els.len() as u32;
    els.push(nth("div", Some(head), 0, "", &header));
    els.push(nth(
        "input",
        Some(all),
        0,
        "",
        &[
            ("type", "checkbox"),
            ("class", "dubois-checkbox-input"),
            ("checked", "false"),
        ],
    ));
    for (n, column) in ["Name", "Time created", "Value"].into_iter().enumerate() {
        let h = els.len() as u32;
        els.push(nth("div", Some(head), n + 1, column, &header));
        let inner = if column == "Value" {
            h
        } else {
            let b = els.len() as u32;
            els.push(nth(
                "div",
                Some(h),
                0,
                column,
                &[("role", "button"), ("tabindex", "0")],
            ));
            b
        };
        els.push(nth(
            "span",
            Some(inner),
            0,
            column,
            &[("class", "dubois-typography")],
        ));
    }
    for (n, (name, time, value)) in [
        ("churn-model", "12/05/2026, 05:54 PM", "0.03"),
        ("price-forecast", "12/04/2026, 09:10 AM", "5"),
    ]
    .into_iter()
    .enumerate()
    {
        let row = els.len() as u32;
        els.push(nth("div", Some(table), n + 1, "", &[("role", "row")]));
        let cell = |els: &mut Vec<ElementRecord>, k: usize, text: &str| {
            let c = els.len() as u32;
            els.push(nth("div", Some(row), k, text, &[("role", "cell")]));
            c
        };
        let c = cell(&mut els, 0, "");
        els.push(nth(
            "input",
            Some(c),
            0,
            "",
            &[
                ("type", "checkbox"),
                ("class", "dubois-checkbox-input"),
                ("checked", "false"),
            ],
        ));
        let c = cell(&mut els, 1, name);
        let href = format!("#/experiments/{n}");
        els.push(nth(
            "a",
            Some(c),
            0,
            name,
            &[("href", &href), ("class", "experiment-link")],
        ));
        // The time in two spans: the cell is one value, as a `td` is.
        let c = cell(&mut els, 2, time);
        let (day, clock) = time.split_once(' ').unwrap();
        els.push(nth(
            "span",
            Some(c),
            0,
            day,
            &[("class", "dubois-typography")],
        ));
        els.push(nth(
            "span",
            Some(c),
            1,
            clock,
            &[("class", "dubois-typography")],
        ));
        let c = cell(&mut els, 3, value);
        els.push(nth(
            "button",
            Some(c),
            0,
            "",
            &[
                ("type", "button"),
                ("data-component-id", "app.list.copy_value"),
            ],
        ));
        els.push(nth("div", Some(c), 0, value, &[("class", "css-s2r85i")]));
    }
    let pages = els.len() as u32;
    els.push(nth("div", Some(0), 1, "PreviousNext", &[]));
    for (n, (label, id)) in [
        ("Previous", "app.list.previous_page"),
        ("Next", "app.list.next_page"),
    ]
    .into_iter()
    .enumerate()
    {
        els.push(nth(
            "button",
            Some(pages),
            n,
            label,
            &[("type", "button"), ("data-component-id", id)],
        ));
    }
    snap(els)
}

#[test]
fn an_aria_table_of_divs_names_its_columns_sorts_by_them_and_selects_its_rows() {
    let c = analyze_snapshot(&design_system_table(), ProbeTier::WasmInPage);
    let o = &c.objects;
    // Each cell's value under its column's name, the text beside a copy button too.
    let rows: Vec<(&str, &str, &str)> = vec![
        ("churn-model", "12/05/2026, 05:54 PM", "0.03"),
        ("price-forecast", "12/04/2026, 09:10 AM", "5"),
    ];
    for (n, (name, time, value)) in rows.into_iter().enumerate() {
        assert_eq!(
            o.get(&format!("items[{n}].name")),
            Some(&json!(name)),
            "{o:#?}"
        );
        assert_eq!(
            o.get(&format!("items[{n}].time_created")),
            Some(&json!(time)),
            "{o:#?}"
        );
        let v = o.get(&format!("items[{n}].value")).map(|v| v.to_string());
        assert_eq!(
            v.as_deref().map(|v| v.trim_matches('"')),
            Some(value),
            "{o:#?}"
        );
    }
    // One list: neither the header cells nor the pagination's buttons, which carry one
    // component's marks, are records; no key is a class or a mark.
    let lists: BTreeSet<&str> = o
        .keys()
        .filter_map(|k| k.split_once('[').map(|(l, _)| l))
        .collect();
    assert_eq!(lists, BTreeSet::from(["items"]), "{o:#?}");
    assert!(
        !o.keys().any(|k| ["component", "typography", "link", "text"]
            .iter()
            .any(|w| k.contains(w))),
        "{o:#?}"
    );
    // The header's buttons sort; the rows' boxes select their row.
    for column in ["name", "time_created"] {
        let sort = &c.actions[&format!("sort_by_{column}")];
        assert_eq!(
            sort.reversibility,
            nsp_protocol::Reversibility::Read,
            "{sort:?}"
        );
    }
    assert!(c.actions.contains_key("select"), "{:#?}", c.actions.keys());
    assert!(
        !c.actions.keys().any(|a| a.contains("dubois")),
        "{:#?}",
        c.actions.keys()
    );
}

#[test]
fn a_column_is_named_by_its_sort_link_when_its_header_says_more() {
    let mut els = vec![el("table", None, "", &[])];
    els.push(nth("thead", Some(0), 0, "", &[]));
    els.push(nth("tr", Some(1), 0, "", &[]));
    els.push(nth("th", Some(2), 0, "Title 1-3 of 3 pages", &[]));
    els.push(nth(
        "a",
        Some(3),
        0,
        "Title",
        &[("href", "?ordering=title")],
    ));
    els.push(nth("th", Some(2), 1, "Updated", &[]));
    els.push(nth(
        "a",
        Some(5),
        0,
        "Updated",
        &[("href", "?ordering=updated")],
    ));
    let body = els.len() as u32;
    els.push(nth("tbody", Some(0), 0, "", &[]));
    for (n, (title, when)) in [("About us", "Just now"), ("Pricing", "2 days ago")]
        .into_iter()
        .enumerate()
    {
        let tr = els.len() as u32;
        els.push(nth("tr", Some(body), n, "", &[]));
        let td = els.len() as u32;
        els.push(nth("td", Some(tr), 0, title, &[]));
        let href = format!("/pages/{n}/edit/");
        els.push(nth("a", Some(td), 0, title, &[("href", &href)]));
        let more = format!("More options for '{title}'");
        els.push(nth(
            "button",
            Some(td),
            0,
            "",
            &[("type", "button"), ("aria-label", &more)],
        ));
        els.push(nth("td", Some(tr), 1, when, &[]));
    }
    let o = objects(&snap(els));
    assert_eq!(o.get("rows[0].title"), Some(&json!("About us")), "{o:#?}");
    assert_eq!(
        o.get("rows[1].updated"),
        Some(&json!("2 days ago")),
        "{o:#?}"
    );
}

#[test]
fn a_divider_between_navigation_items_leaves_them_keyed_by_label() {
    let mut els = vec![el("nav", None, "", &[]), nth("ul", Some(0), 0, "", &[])];
    for (n, item) in ["Overview", "", "Observability", "Traces", "Sessions"]
        .into_iter()
        .enumerate()
    {
        let li = els.len() as u32;
        els.push(nth("li", Some(1), n, item, &[("class", "css-1qjhb37")]));
        match item {
            "" => {}
            // A section's caption, no link.
            "Observability" => els.push(nth("span", Some(li), 0, item, &[])),
            _ => {
                let href = format!("#/{}", item.to_lowercase());
                let current = if n == 0 { "page" } else { "false" };
                els.push(nth(
                    "a",
                    Some(li),
                    0,
                    item,
                    &[("href", &href), ("aria-current", current)],
                ));
            }
        }
    }
    let o = objects(&snap(els));
    assert_eq!(o.get("nav.overview.current"), Some(&json!(true)), "{o:#?}");
    assert_eq!(o.get("nav.traces.current"), Some(&json!(false)), "{o:#?}");
    assert!(!o.keys().any(|k| k.contains('[')), "{o:#?}");
}

#[test]
fn an_item_of_punctuation_alone_is_a_divider_not_a_record() {
    // markItUp's toolbar over a text area (django-wiki's editor): its buttons are items
    // of a list, its separators items whose text is a row of dashes.
    let mut els = vec![el("ul", None, "", &[])];
    for (n, item) in ["Bold", "Italic", "---------------", "Quotes", "Code"]
        .into_iter()
        .enumerate()
    {
        let li = els.len() as u32;
        if item.starts_with('-') {
            els.push(nth(
                "li",
                Some(0),
                n,
                item,
                &[("class", "markItUpSeparator")],
            ));
            continue;
        }
        els.push(nth("li", Some(0), n, item, &[("class", "markItUpButton")]));
        els.push(nth(
            "a",
            Some(li),
            0,
            item,
            &[("href", ""), ("title", item)],
        ));
    }
    let o = objects(&snap(els));
    assert!(o.values().all(|v| v != &json!("---------------")), "{o:#?}");
    assert_eq!(o.get("items[2].name"), Some(&json!("Quotes")), "{o:#?}");
}

#[test]
fn a_layouts_panes_are_regions_not_records() {
    // marimo's shell: react-resizable-panels marks its sidebar and its body with
    // `data-panel-id` and `data-panel-group-id`; they were two records keyed by the pane
    // (`items[0].panel_id: "app-chrome-sidebar"`), and each pane's button a row action.
    let mut els = vec![el("div", None, "", &[("data-panel-group", "")])];
    for (n, (pane, button)) in [("app-chrome-sidebar", "Files"), ("app-chrome-body", "Run")]
        .into_iter()
        .enumerate()
    {
        let at = els.len() as u32;
        els.push(nth(
            "div",
            Some(0),
            n,
            "",
            &[
                ("id", pane),
                ("data-panel-id", pane),
                ("data-panel-group-id", "_r_0_"),
            ],
        ));
        els.push(nth("button", Some(at), 0, button, &[("type", "button")]));
    }
    let c = analyze_snapshot(&snap(els), ProbeTier::WasmInPage);
    assert!(
        !c.objects.keys().any(|k| k.contains('[')),
        "{:#?}",
        c.objects
    );
    for name in ["files", "run"] {
        assert!(
            c.actions.get(name).is_some_and(|a| a.parameters.is_empty()),
            "{:?}",
            c.actions.keys()
        );
    }
}

#[test]
fn a_kits_type_style_names_no_field() {
    // A confirmation's list of what it will delete, each item's text in a span styled
    // by the kit, beside a count whose class says what it is.
    let mut els = vec![el("ul", None, "", &[])];
    for (n, (name, id)) in [("fraud-model", "3"), ("churn-model", "1")]
        .into_iter()
        .enumerate()
    {
        let li = els.len() as u32;
        els.push(nth("li", Some(0), n, &format!("{name}{id}"), &[]));
        els.push(nth(
            "span",
            Some(li),
            0,
            name,
            &[("class", "du-bois-light-typography css-1nahjrq")],
        ));
        els.push(nth(
            "span",
            Some(li),
            1,
            id,
            &[("class", "MuiTypography-caption experiment-id")],
        ));
    }
    let o = objects(&snap(els));
    assert_eq!(
        o.get("items[0].text"),
        Some(&json!("fraud-model")),
        "{o:#?}"
    );
    assert_eq!(o.get("items[1].experiment_id"), Some(&json!(1)), "{o:#?}");
    assert!(
        !o.keys().any(|k| k.to_lowercase().contains("typography")),
        "{o:#?}"
    );
}

#[test]
fn a_list_without_a_name_takes_the_heading_right_before_it() {
    let mut els = vec![el("main", None, "", &[("id", "main")])];
    let table = |els: &mut Vec<ElementRecord>, n: usize, head: [&str; 2], rows: &[[&str; 2]]| {
        let t = els.len() as u32;
        els.push(nth("table", Some(0), n, "", &[]));
        els.push(nth("thead", Some(t), 0, "", &[]));
        let tr = els.len() as u32;
        els.push(nth("tr", Some(t + 1), 0, "", &[]));
        for (k, h) in head.into_iter().enumerate() {
            els.push(nth("th", Some(tr), k, h, &[]));
        }
        let body = els.len() as u32;
        els.push(nth("tbody", Some(t), 0, "", &[]));
        for (r, row) in rows.iter().enumerate() {
            let tr = els.len() as u32;
            els.push(nth("tr", Some(body), r, "", &[]));
            for (k, v) in row.iter().enumerate() {
                els.push(nth("td", Some(tr), k, v, &[]));
            }
        }
    };
    // Two flat sections: a heading with a count, a search box, a table each.
    els.push(nth("h3", Some(0), 0, "Metrics (2)", &[]));
    els.push(nth(
        "input",
        Some(0),
        0,
        "",
        &[("type", "search"), ("aria-label", "Search metrics")],
    ));
    table(
        &mut els,
        0,
        ["Metric", "Value"],
        &[["auc", "0.8"], ["loss", "0.3"]],
    );
    els.push(nth("h3", Some(0), 1, "Parameters (2)", &[]));
    table(
        &mut els,
        1,
        ["Parameter", "Value"],
        &[["lr", "0.03"], ["depth", "5"]],
    );
    // A row of headings drawn as tabs names no list below it.
    for (k, tab) in ["Journal", "Balances (monthly)"].into_iter().enumerate() {
        let h = els.len() as u32;
        els.push(nth("h3", Some(0), 2 + k, tab, &[]));
        els.push(nth("a", Some(h), 0, tab, &[("href", "?r=x")]));
    }
    let ul = els.len() as u32;
    els.push(nth("ul", Some(0), 0, "", &[]));
    for (k, entry) in ["Open", "Close"].into_iter().enumerate() {
        let li = els.len() as u32;
        els.push(nth("li", Some(ul), k, entry, &[]));
        els.push(nth("a", Some(li), 0, entry, &[("href", "?show=x")]));
    }
    // Nor does the page's title: it names the page.
    els.push(nth("h1", Some(0), 0, "Expense tracker", &[]));
    let ol = els.len() as u32;
    els.push(nth("ol", Some(0), 0, "", &[]));
    for (k, step) in ["Add a category", "Add an expense"].into_iter().enumerate() {
        els.push(nth("li", Some(ol), k, step, &[]));
    }
    let o = objects(&snap(els));
    assert!(!o.keys().any(|k| k.contains("expense_tracker[")), "{o:#?}");
    assert_eq!(
        o.get("main.metrics[0].metric"),
        Some(&json!("auc")),
        "{o:#?}"
    );
    assert_eq!(
        o.get("main.parameters[1].parameter"),
        Some(&json!("depth")),
        "{o:#?}"
    );
    assert_eq!(o.get("main.items[0].name"), Some(&json!("Open")), "{o:#?}");
    assert!(!o.keys().any(|k| k.contains("balances")), "{o:#?}");
}

/// A data grid with its first columns pinned (AG Grid's markup): the header and every
/// row drawn twice, once in the pinned part and once in the rest, the two rows of one
/// record sharing their `aria-rowindex`; a row of column groups above the headers.
/// `center` gives the second part's rows' indexes.
fn pinned_grid(center: [&str; 2]) -> PageSnapshot {
    let mut els = vec![el("main", None, "", &[])];
    let grid = els.len() as u32;
    els.push(nth(
        "div",
        Some(0),
        0,
        "",
        &[("role", "treegrid"), ("aria-rowcount", "4")],
    ));
    let head = els.len() as u32;
    els.push(nth("div", Some(grid), 0, "", &[("role", "presentation")]));
    let heads: [&[&str]; 2] = [&["", "Run Name", "Created"], &["Duration", "Source"]];
    for (p, names) in heads.into_iter().enumerate() {
        let part = els.len() as u32;
        els.push(nth("div", Some(head), p, "", &[("role", "rowgroup")]));
        let groups = els.len() as u32;
        els.push(nth(
            "div",
            Some(part),
            0,
            "",
            &[("role", "row"), ("aria-rowindex", "1")],
        ));
        for k in 0..names.len() {
            els.push(nth("div", Some(groups), k, "", &[("role", "columnheader")]));
        }
        let row = els.len() as u32;
        els.push(nth(
            "div",
            Some(part),
            1,
            &names.join(" "),
            &[("role", "row"), ("aria-rowindex", "2")],
        ));
        for (k, name) in names.iter().enumerate() {
            let h = els.len() as u32;
            els.push(nth("div", Some(row), k, name, &[("role", "columnheader")]));
            if name.is_empty() {
                els.push(nth(
                    "input",
                    Some(h),
                    0,
                    "",
                    &[
                        ("type", "checkbox"),
                        ("id", "ag-10-input"),
                        ("aria-label", "Select all runs"),
                        ("checked", "false"),
                    ],
                ));
            }
        }
    }
    let body = els.len() as u32;
    els.push(nth("div", Some(grid), 1, "", &[("role", "presentation")]));
    let runs = [
        ("run-a", "1 hour ago", "41ms", "seed.py"),
        ("run-b", "2 hours ago", "44ms", "train.py"),
    ];
    for p in 0..2 {
        let part = els.len() as u32;
        els.push(nth("div", Some(body), p, "", &[("role", "rowgroup")]));
        for (n, (name, created, duration, source)) in runs.into_iter().enumerate() {
            let index = if p == 0 {
                (n + 3).to_string()
            } else {
                center[n].to_owned()
            };
            let row = els.len() as u32;
            els.push(nth(
                "div",
                Some(part),
                n,
                "",
                &[("role", "row"), ("aria-rowindex", &index)],
            ));
            let cell = |els: &mut Vec<ElementRecord>, k: usize, text: &str| {
                let c = els.len() as u32;
                els.push(nth("div", Some(row), k, text, &[("role", "gridcell")]));
                c
            };
            if p == 0 {
                let c = cell(&mut els, 0, "");
                els.push(nth(
                    "input",
                    Some(c),
                    0,
                    "",
                    &[
                        ("type", "checkbox"),
                        (
                            "aria-label",
                            "Press Space to toggle row selection (unchecked)",
                        ),
                        ("checked", "false"),
                    ],
                ));
                let c = cell(&mut els, 1, name);
                let href = format!("#/runs/{name}");
                els.push(nth("a", Some(c), 0, name, &[("href", &href)]));
                cell(&mut els, 2, created);
            } else {
                // The grid listens for clicks on its cells (to move its focus).
                let c = cell(&mut els, 0, duration);
                els[c as usize].clickable = true;
                let c = cell(&mut els, 1, source);
                els.push(nth("span", Some(c), 0, source, &[]));
                els.push(nth(
                    "button",
                    Some(c),
                    0,
                    "",
                    &[("type", "button"), ("aria-label", "Copy source")],
                ));
            }
        }
    }
    snap(els)
}

#[test]
fn a_grid_with_pinned_columns_gives_one_record_per_row() {
    let c = analyze_snapshot(&pinned_grid(["3", "4"]), ProbeTier::WasmInPage);
    let o = &c.objects;
    for (n, (name, created, duration, source)) in [
        ("run-a", "1 hour ago", "41ms", "seed.py"),
        ("run-b", "2 hours ago", "44ms", "train.py"),
    ]
    .into_iter()
    .enumerate()
    {
        for (field, value) in [
            ("run_name", name),
            ("created", created),
            ("duration", duration),
            ("source", source),
        ] {
            assert_eq!(
                o.get(&format!("items[{n}].{field}")),
                Some(&json!(value)),
                "{o:#?}"
            );
        }
    }
    // Two records, not four; no column numbered for the empty row of column groups; the
    // grid's row count holds its two header rows.
    assert!(!o.keys().any(|k| k.starts_with("items[2]")), "{o:#?}");
    assert!(!o.keys().any(|k| k.contains("col")), "{o:#?}");
    assert!(!o.contains_key("items_total"), "{o:#?}");
    // A cell the grid listens for clicks on is data, not an action.
    assert!(
        !c.actions.keys().any(|a| a.contains("ms")),
        "{:#?}",
        c.actions.keys()
    );
    // The rows' boxes select their row: their label says their state, and changes
    // with it. The header's box is named by its label, not by the id the grid
    // numbered.
    assert!(c.actions.contains_key("select"), "{:#?}", c.actions.keys());
    assert!(
        !c.actions.keys().any(|a| a.contains("press_space")),
        "{:#?}",
        c.actions.keys()
    );
    assert_eq!(o.get("select_all_runs"), Some(&json!(false)), "{o:#?}");
    // The second part's button picks a row of the same records.
    let copy = &c.actions["copy_source"];
    assert!(
        copy.parameters
            .iter()
            .any(|p| p.description.contains("items[N]")),
        "{copy:?}"
    );

    // Parts whose rows are not the same rows (rows pinned to the top, then the body's)
    // stay records of their own.
    let o = objects(&pinned_grid(["7", "8"]));
    assert!(o.keys().any(|k| k.starts_with("items[3]")), "{o:#?}");
}

#[test]
fn a_field_beside_a_cells_value_is_not_its_columns_value() {
    let mut els = vec![el("table", None, "", &[])];
    els.push(nth("thead", Some(0), 0, "", &[]));
    els.push(nth("tr", Some(1), 0, "Run Name Amount", &[]));
    els.push(nth("th", Some(2), 0, "Run Name", &[]));
    els.push(nth("th", Some(2), 1, "Amount", &[]));
    let tbody = els.len() as u32;
    els.push(nth("tbody", Some(0), 0, "", &[]));
    for (n, (name, colour, amount)) in [("run-a", "#3ba65e", "5"), ("run-b", "#445461", "7")]
        .into_iter()
        .enumerate()
    {
        let tr = els.len() as u32;
        els.push(nth("tr", Some(tbody), n, "", &[]));
        let td = els.len() as u32;
        els.push(nth("td", Some(tr), 0, &format!("{colour}{name}"), &[]));
        els.push(nth("span", Some(td), 0, colour, &[]));
        let mut picker = nth(
            "input",
            Some(td),
            0,
            "",
            &[("type", "color"), ("value", colour)],
        );
        picker.label = colour.into();
        els.push(picker);
        els.push(nth("a", Some(td), 0, name, &[("href", "#/run")]));
        // A quantity field alone in its cell is its column's value.
        let td = els.len() as u32;
        els.push(nth("td", Some(tr), 1, "", &[]));
        els.push(nth(
            "input",
            Some(td),
            0,
            "",
            &[("type", "number"), ("value", amount)],
        ));
    }
    let o = objects(&snap(els));
    assert!(
        !o.iter().any(
            |(k, v)| k.ends_with(".run_name") && v.as_str().is_some_and(|v| v.starts_with('#'))
        ),
        "{o:#?}"
    );
    assert_eq!(o.get("rows[1].amount"), Some(&json!(7)), "{o:#?}");
}

#[test]
fn a_grids_cells_inside_wrappers_are_its_rows_cells() {
    // AG Grid 36: each row holds its pinned and scrolling cells in wrappers of its own.
    let mut els = vec![el("main", None, "", &[])];
    els.push(nth("div", Some(0), 0, "", &[("role", "grid")]));
    let row = |els: &mut Vec<ElementRecord>, n: usize, role: &str, texts: [&str; 3]| {
        let r = els.len() as u32;
        els.push(nth("div", Some(1), n, "", &[("role", "row")]));
        for (p, part) in [&texts[..2], &texts[2..]].into_iter().enumerate() {
            let w = els.len() as u32;
            els.push(nth("div", Some(r), p, "", &[("role", "presentation")]));
            for (k, t) in part.iter().enumerate() {
                els.push(nth("div", Some(w), k, t, &[("role", role)]));
            }
        }
    };
    row(&mut els, 0, "columnheader", ["Run", "Status", "Owner"]);
    row(&mut els, 1, "gridcell", ["churn-a", "finished", "ana"]);
    row(&mut els, 2, "gridcell", ["churn-b", "failed", "bo"]);
    let o = objects(&snap(els));
    assert_eq!(o.get("items[1].owner"), Some(&json!("bo")), "{o:#?}");
    assert_eq!(o.get("items[0].run"), Some(&json!("churn-a")), "{o:#?}");
    assert!(!o.keys().any(|k| k.starts_with("items[2]")), "{o:#?}");
}

/// A page's running text outside articles and records (a wiki page's body, a ticket's
/// description): the paragraphs of each region joined, as `<region>.text`, or `text`
/// outside any; the page's shell, a form's help, text the state holds already and a
/// paragraph of links or controls are not its text.
fn prose_page(body: &str) -> PageSnapshot {
    snap(vec![
        el("main", None, "", &[]),
        el("h1", Some(0), "Recipes", &[]),
        el("p", Some(0), body, &[]),
        el("p", Some(0), "Bake at 220 degrees.", &[]),
        el("p", Some(0), "   ", &[]),
        ElementRecord {
            visible: false,
            ..el("p", Some(0), "A paragraph nobody sees", &[])
        },
        // A section named by its heading.
        el("section", Some(0), "", &[]),
        el("h2", Some(6), "Description", &[]),
        el("p", Some(6), "The handle splits below freezing.", &[]),
        // The shell: a nav, Trac's div#footer, a class that says so.
        el("nav", Some(0), "", &[]),
        el("p", Some(9), "Signed in as alice", &[]),
        el("div", Some(0), "", &[("id", "footer")]),
        el("p", Some(11), "Powered by Trac", &[]),
        el("a", Some(12), "Trac", &[("href", "https://trac.example/")]),
        el("div", Some(0), "", &[("class", "site-header top")]),
        el("p", Some(14), "Our shop", &[]),
        // A form's help.
        el("form", Some(0), "", &[("aria-label", "Search")]),
        el("p", Some(16), "Words of three letters or more.", &[]),
        el("input", Some(16), "", &[("name", "q")]),
        // Links' words, which name actions already.
        el("p", Some(0), "json, CSV", &[]),
        el("a", Some(19), "json", &[("href", "/x.json")]),
        el("a", Some(19), "CSV", &[("href", "/x.csv")]),
        // A bar of controls drawn in a paragraph.
        el("p", Some(0), "Share Print", &[]),
        el("button", Some(22), "Share", &[]),
        // A value keyed by an id of its own.
        el("p", Some(0), "Visitors today: 1,204", &[]),
        el("span", Some(24), "1,204", &[("id", "visitors")]),
        el("p", Some(0), "Saved", &[("id", "status")]),
    ])
}

#[test]
fn a_pages_running_text_is_readable_and_its_shell_is_not() {
    let o = objects(&prose_page("Bread needs flour, water and time."));
    assert_eq!(
        o["text"], "Bread needs flour, water and time. Bake at 220 degrees.",
        "{o:#?}"
    );
    assert_eq!(
        o["description.text"], "The handle splits below freezing.",
        "{o:#?}"
    );
    assert_eq!(o["visitors"], 1204, "{o:#?}");
    assert_eq!(o["status"], "Saved", "{o:#?}");
    for said in [
        "nobody sees",
        "Signed in",
        "Powered by",
        "Our shop",
        "three letters",
        "json",
        "Share",
        "Visitors today",
    ] {
        assert!(
            o.values()
                .all(|v| !v.as_str().is_some_and(|s| s.contains(said))),
            "{said}: {o:#?}"
        );
    }
    // A change of the text changes the value, never the key.
    let again = objects(&prose_page("Bread needs rye."));
    assert_eq!(again["text"], "Bread needs rye. Bake at 220 degrees.");
    assert_eq!(
        o.keys().collect::<BTreeSet<_>>(),
        again.keys().collect::<BTreeSet<_>>()
    );
}

#[test]
fn a_pages_running_text_is_bounded_and_an_articles_is_said_once() {
    let long = "word ".repeat(400);
    let o = objects(&prose_page(&long));
    let text = o["text"].as_str().expect("the page's text");
    assert!(text.starts_with("word word"), "{text}");
    assert!(text.chars().count() <= 201, "{}", text.len());
    // An article's paragraphs are its text, not the page's as well.
    let o = objects(&snap(vec![
        el("main", None, "", &[]),
        el("article", Some(0), "", &[("aria-label", "Note")]),
        el("p", Some(1), "Milk, eggs and bread.", &[]),
    ]));
    assert_eq!(o["note.text"], "Milk, eggs and bread.", "{o:#?}");
    assert_eq!(o.len(), 1, "{o:#?}");
}

#[test]
fn a_layout_named_after_its_sidebar_is_no_shell() {
    // AdminLTE's `body.sidebar-mini`, WordPress's `has-sidebar`: the wrapper holds the
    // page's heading and content, and its paragraphs are the page's text; its sidebar
    // proper is the shell.
    let o = objects(&snap(vec![
        el(
            "div",
            None,
            "",
            &[("class", "hold-transition sidebar-mini")],
        ),
        el("div", Some(0), "", &[("class", "main-sidebar")]),
        el("p", Some(1), "Signed in as alice", &[]),
        el("div", Some(0), "", &[("class", "content")]),
        el("h1", Some(3), "Orders", &[]),
        el("p", Some(3), "Three orders wait for shipping.", &[]),
    ]));
    assert_eq!(o["text"], "Three orders wait for shipping.", "{o:#?}");
}

#[test]
fn a_paragraph_with_links_among_its_words_is_text_and_one_of_a_hundred_elements_is_not() {
    // Prose links its words (a wiki's body); a "paragraph" of a hundred elements is
    // layout, and each paragraph's elements are looked at once, however many there are.
    let mut els = vec![
        el("main", None, "", &[]),
        el(
            "p",
            Some(0),
            "Bread needs flour and water, and time to rise.",
            &[],
        ),
        el("a", Some(1), "flour", &[("href", "/flour")]),
        el("a", Some(1), "water", &[("href", "/water")]),
    ];
    let big = els.len() as u32;
    els.push(el("p", Some(0), &"grain ".repeat(100), &[]));
    for _ in 0..100 {
        els.push(el("span", Some(big), "grain", &[]));
    }
    let o = objects(&snap(els));
    assert_eq!(
        o["text"], "Bread needs flour and water, and time to rise.",
        "{o:#?}"
    );
}

#[test]
fn a_container_with_an_id_bars_its_paragraphs_only_when_its_text_is_keyed() {
    // `div#content` around the page reads no text of its own (a container of many
    // elements): its paragraphs are the page's text. `div#note`, whose text is its one
    // paragraph's, keys it as `note`: said once.
    let o = objects(&snap(vec![
        el("div", None, "", &[("id", "content")]),
        el(
            "p",
            Some(0),
            "Orders ship the day after they are paid.",
            &[],
        ),
        el("div", Some(0), "Closed on Sundays.", &[("id", "note")]),
        el("p", Some(2), "Closed on Sundays.", &[]),
    ]));
    assert_eq!(
        o["text"], "Orders ship the day after they are paid.",
        "{o:#?}"
    );
    assert_eq!(o["note"], "Closed on Sundays.", "{o:#?}");
    assert_eq!(o.len(), 2, "{o:#?}");
}

//! What a page may put in its snapshot, whatever its shape, never stops the probe: a
//! panic in the wasm is a trap, and the service worker's probe is one instance that
//! every tab shares. And a page nesting its elements thousands deep costs the analysis
//! what a page of ordinary depth costs, not the square of its depth.
//!
//! The page decides every text, label and attribute value of its records, and how deep
//! and wide they nest; the extraction decides their form. Each recorded page of the
//! corpus is analysed with its values replaced by awkward strings (combining marks,
//! right-to-left, numbers out of range, selectors' punctuation, a CSS framework's
//! negative sizes, long runs).

#![cfg(not(target_arch = "wasm32"))]

use std::path::Path;

use nsp_probe::analyze_snapshot;
use nsp_protocol::snapshot::{ElementRecord, PageSnapshot};
use nsp_protocol::ProbeTier;

mod support;
use support::{el, el_at, snapshot};

/// Values a page may write anywhere.
const AWKWARD: &[&str] = &[
    "",
    " ",
    "-",
    "-mt-2",
    "-translate-x-1/2",
    "--",
    "m-",
    "p",
    "\u{0301}",
    "e\u{0301}",
    "İstanbul",
    "ﬃ",
    "…",
    "👩‍👩‍👧 family",
    "\u{200b}",
    "\u{202e}evil",
    "日本語のテキスト",
    "١٢٣",
    "1,234.56",
    "-0",
    "1e309",
    "99999999999999999999999",
    "NaN",
    "(required)",
    "()",
    "[0]",
    "a.b[3].c",
    "\"",
    "\\",
    "\n\n",
    "€12",
    "12 €",
    "100%",
    "ǅ",
    "ΐ",
    "a\u{0000}b",
    "\u{FEFF}",
    "3 minutes ago",
    "#",
    "javascript:",
    "?q=1&r=2",
    "Ｄｅｌｅｔｅ",
    "Delete all",
    "--------",
    "x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x x",
];

/// Every recorded page of the corpus: its file name and snapshot.
fn recorded_pages() -> Vec<(String, PageSnapshot)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut pages = Vec::new();
    for dir in ["fixtures/pages/snapshots", "fixtures/real/snapshots"] {
        let mut files: Vec<_> = std::fs::read_dir(root.join(dir))
            .expect("the corpus")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        for file in files {
            let text = std::fs::read_to_string(&file).expect("read");
            let snap: PageSnapshot = serde_json::from_str(&text).expect("a snapshot");
            let name = file
                .file_name()
                .expect("name")
                .to_string_lossy()
                .into_owned();
            pages.push((name, snap));
        }
    }
    assert!(
        pages.len() >= 40,
        "the corpus went missing: {}",
        pages.len()
    );
    pages
}

fn set(e: &mut ElementRecord, what: &str, value: &str) {
    match what {
        "text" => e.text = value.into(),
        "label" => e.label = value.into(),
        attr => e.attrs.insert(attr.into(), value.into()),
    }
}

#[test]
fn awkward_texts_and_attributes_never_stop_the_probe() {
    const PLACES: &[&str] = &[
        "text",
        "label",
        "class",
        "name",
        "value",
        "id",
        "aria-label",
        "href",
        "role",
        "type",
        "data-nsp-key",
        "options",
    ];
    let mut failed = Vec::new();
    for (name, snap) in recorded_pages() {
        for (pass, what) in PLACES.iter().enumerate() {
            let mut s = snap.clone();
            for (k, e) in s.elements.iter_mut().enumerate() {
                let value = AWKWARD[(k * 7 + pass * 13) % AWKWARD.len()];
                set(e, what, value);
            }
            s.title = AWKWARD[pass % AWKWARD.len()].into();
            let outcome = std::panic::catch_unwind(|| {
                let capture = analyze_snapshot(&s, ProbeTier::WasmExtension);
                serde_json::to_string(&capture).expect("a capture encodes")
            });
            if outcome.is_err() {
                failed.push(format!("{name} with awkward {what}"));
            }
        }
    }
    assert!(failed.is_empty(), "the probe panicked on: {failed:#?}");
}

/// A page of ordinary depth (a form to save) with a chain of `depth` nested sections
/// below it, each with a button, as only a page out to hurt would nest.
fn nested_page(depth: u32) -> PageSnapshot {
    let mut elements = vec![
        el("main", None, "", &[]),
        el("form", Some(0), "", &[("id", "note")]),
        el(
            "input",
            Some(1),
            "",
            &[("name", "title"), ("type", "text"), ("value", "")],
        ),
        el("button", Some(1), "Save note", &[("type", "submit")]),
        el("div", Some(0), "", &[]),
    ];
    for level in 0..depth {
        let parent = elements.len() as u32 - 1;
        let mut section = el("section", Some(parent), "", &[]);
        section.nth = 1;
        section.selector.clear();
        elements.push(section);
        let mut button = el("button", Some(parent + 1), &format!("Drop {level}"), &[]);
        button.nth = 1;
        button.selector.clear();
        elements.push(button);
    }
    snapshot("http://127.0.0.1:1/notes", "Notes", elements)
}

#[test]
fn a_page_nested_thousands_deep_is_read_to_a_depth_and_no_further() {
    let shallow = analyze_snapshot(&nested_page(10), ProbeTier::WasmExtension);
    let deep = analyze_snapshot(&nested_page(1_500), ProbeTier::WasmExtension);
    // The page's own actions, and the first levels' buttons, are there.
    for capture in [&shallow, &deep] {
        assert!(
            capture.actions.contains_key("save_note"),
            "{:?}",
            capture.actions.keys()
        );
    }
    let offered = |c: &nsp_protocol::PageCapture, label: &str| {
        c.actions.values().any(|a| a.description.contains(label))
    };
    assert!(offered(&deep, "Drop 3"), "{:?}", deep.actions.keys());
    // Past the depth anyone nests, nothing is read: no selector thousands of steps
    // long, and a capture the size of a page's, not gigabytes.
    assert!(!offered(&deep, "Drop 1400"));
    let longest = deep
        .actions
        .values()
        .map(|a| a.internal_target.len())
        .max()
        .unwrap_or(0);
    assert!(longest < 8_000, "a selector of {longest} bytes");
    let size = serde_json::to_string(&deep).expect("json").len();
    assert!(size < 4_000_000, "a capture of {size} bytes");
    // It says it did not read everything.
    assert!(
        deep.confidence < shallow.confidence,
        "{} vs {}",
        deep.confidence,
        shallow.confidence
    );
}

#[test]
fn a_form_of_thousands_of_fields_and_many_buttons_makes_a_capture_of_a_pages_size() {
    let mut elements = vec![el("form", None, "", &[("id", "settings")])];
    for k in 0..2_000 {
        elements.push(el(
            "input",
            Some(0),
            "",
            &[
                ("type", "text"),
                ("value", ""),
                ("aria-label", &format!("Setting {k}")),
            ],
        ));
    }
    for k in 0..30 {
        elements.push(el("button", Some(0), &format!("Apply set {k}"), &[]));
    }
    let page = snapshot("http://127.0.0.1:1/settings", "Settings", elements);
    let capture = analyze_snapshot(&page, ProbeTier::WasmExtension);
    let apply = capture
        .actions
        .get("apply_set_0")
        .expect("the form's first button");
    // Every parameter an agent could use is a lot; the rest keep what the page holds.
    assert_eq!(apply.parameters.len(), 200);
    assert!(capture.actions.values().all(|a| a.parameters.len() <= 200));
    let size = serde_json::to_string(&capture).expect("json").len();
    assert!(size < 8_000_000, "a capture of {size} bytes");
}

/// Thousands of one button (rows drawn with `<div>`s, each with its "Delete"): found by
/// `probe_snapshot` in `fuzz/`, where 16,000 records took 14 s to analyse, each copy
/// numbered by trying every number from 2 and compared with every other as a twin.
/// Each is a twin (put to a person) and has a name of its own; a state holds 300.
#[test]
fn thousands_of_one_button_are_named_and_put_to_a_person() {
    let mut elements = vec![el("main", None, "", &[])];
    for _ in 0..3_000 {
        let row = elements.len() as u32;
        elements.push(el("div", Some(0), "", &[]));
        elements.push(el("button", Some(row), "Delete", &[("type", "button")]));
    }
    let page = snapshot("http://127.0.0.1:1/rows", "Rows", elements);
    let capture = analyze_snapshot(&page, ProbeTier::WasmExtension);
    let deletes: Vec<_> = capture
        .actions
        .iter()
        .filter(|(n, _)| n.starts_with("delete"))
        .collect();
    // As many as a state holds (300 actions), each with a name of its own.
    assert_eq!(deletes.len(), 300);
    assert!(capture.actions.contains_key("delete_300"));
    assert!(deletes.iter().all(|(_, a)| a.confidence <= 0.5));
}

/// A group of thousands of buttons beside a text area (found by `probe_snapshot`: each
/// button looked through its whole group to ask whether the group is an editor's
/// toolbar, 68 ms natively for 2,600 records, seconds in the fuzzer's build). The
/// group is asked once; its buttons format the editor's text as three of them do.
#[test]
fn a_toolbar_of_thousands_of_buttons_is_read_once() {
    let page = |buttons: usize| {
        let mut elements = vec![
            el("main", None, "", &[]),
            el("textarea", Some(0), "", &[("name", "body")]),
            el("div", Some(0), "", &[]),
        ];
        for k in 0..buttons {
            elements.push(el(
                "button",
                Some(2),
                &format!("B{k}"),
                &[("type", "button")],
            ));
        }
        snapshot("http://127.0.0.1:1/editor", "Editor", elements)
    };
    let few = analyze_snapshot(&page(3), ProbeTier::WasmExtension);
    let many = analyze_snapshot(&page(2_500), ProbeTier::WasmExtension);
    assert_eq!(many.confidence, few.confidence);
    assert_eq!(
        many.probe_metadata.confidence_reason.as_deref(),
        Some("2500 controls, none of which can change anything (links, tabs, menus)")
    );
}

/// Thousands of radio buttons that HTML would leave a group each (no name, or a name
/// no other radio of their form has), every one of them checked: each radio's group
/// was found by comparing its selector with every other's (50 s natively for 4,000
/// unnamed radios, 4.5 s for 4,000 lone names), and each checked one named its group
/// again. Groups are found once per capture now, by where the radios sit: two
/// containers are two groups, each one parameter and one object, whatever their size.
#[test]
fn thousands_of_checked_radios_are_grouped_once() {
    let page = |n: usize, lone: bool| {
        let mut elements = vec![el_at("main", None, "main", "", &[])];
        for (g, (label, prefix)) in [("Size", "s"), ("Colour", "c")].into_iter().enumerate() {
            let holder = elements.len() as u32;
            let at = format!("main > div:nth-of-type({})", g + 1);
            elements.push(el_at("div", Some(0), &at, "", &[("aria-label", label)]));
            for k in 0..n {
                let value = format!("{prefix}{k}");
                // Names a framework might give (`radio-abc`): letters, so each is
                // stable, and no other radio has it.
                let letter = |d: usize| char::from(b'a' + (d % 26) as u8);
                let name = format!(
                    "radio-{g}{}{}{}",
                    letter(k / 676),
                    letter(k / 26),
                    letter(k)
                );
                let mut attrs = vec![("type", "radio"), ("value", &*value), ("checked", "true")];
                if lone {
                    attrs.push(("name", &*name));
                }
                let at = format!("{at} > label:nth-of-type({}) > input", k + 1);
                elements.push(el_at("input", Some(holder), &at, "", &attrs));
            }
        }
        snapshot("http://127.0.0.1:1/shop", "Shop", elements)
    };
    for lone in [false, true] {
        let cap = analyze_snapshot(&page(2_000, lone), ProbeTier::WasmExtension);
        for (action, object, first) in [("set_size", "size", "s0"), ("set_colour", "colour", "c0")]
        {
            let params = &cap.actions[action].parameters;
            assert_eq!(params.len(), 1, "{action}: {params:?}");
            let values = params[0].allowed_values.as_ref().expect("allowed values");
            assert_eq!(values.len(), 2_000, "{action}");
            assert_eq!(cap.objects[object], first, "{object}");
        }
        assert_eq!(
            cap.objects.len(),
            2,
            "{:?}",
            cap.objects.keys().collect::<Vec<_>>()
        );
    }
}

/// Thousands of one field or button, each of which looked through all the others: the
/// objects of unnamed boxes were numbered by trying every number from 2 (3,000 boxes:
/// 0.2 s natively, 4 s at 8,000); each button of a form worked out the form's
/// parameters again (2,000 switches drawn as buttons, which submit their form and are
/// its fields too: 2 s); each button of a form asked the whole form whether anything
/// submits it; and the options of a group were told apart by comparing each with
/// every other. Each is asked once now, and says what it said of a few.
#[test]
fn thousands_of_one_field_or_button_are_read_as_a_few_are() {
    let many = |n: usize, root: &str, field: &dyn Fn(usize) -> (String, Vec<(String, String)>)| {
        let named: &[(&str, &str)] = if root == "form" {
            &[("aria-label", "Prefs")]
        } else {
            &[]
        };
        let mut elements = vec![el_at(root, None, root, "", named)];
        if root == "form" {
            elements.push(el_at(
                "input",
                Some(0),
                "form > input:nth-of-type(1)",
                "",
                &[("name", "q")],
            ));
        }
        for k in 0..n {
            let (tag, attrs) = field(k);
            let attrs: Vec<(&str, &str)> = attrs
                .iter()
                .map(|(a, v)| (a.as_str(), v.as_str()))
                .collect();
            let text = if tag == "input" {
                String::new()
            } else {
                format!("Opt {k}")
            };
            let at = format!("{root} > {tag}:nth-of-type({})", k + 2);
            elements.push(el_at(&tag, Some(0), &at, &text, &attrs));
        }
        snapshot("http://127.0.0.1:1/prefs", "Prefs", elements)
    };
    let pairs = |p: &[(&str, &str)]| {
        p.iter()
            .map(|(a, v)| (a.to_string(), v.to_string()))
            .collect()
    };

    // Unnamed boxes: each its own object and its own action, numbered in order.
    let boxes = |_| ("input".to_owned(), pairs(&[("type", "text")]));
    let cap = analyze_snapshot(&many(3_000, "main", &boxes), ProbeTier::WasmExtension);
    // (The state lists the first 300 actions: `MAX_ACTIONS`.)
    for k in ["text", "text_2", "text_200"] {
        assert!(cap.actions.contains_key(&format!("fill_{k}")), "fill_{k}");
    }
    assert!(cap.objects.contains_key("text_1000"));

    // Switches drawn as `<button>`s in a form: each submits the form with every switch
    // (and the form's field) as its parameters, at most 200, the last as the first.
    let switch = |_| {
        (
            "button".to_owned(),
            pairs(&[("role", "switch"), ("aria-checked", "false")]),
        )
    };
    for n in [3, 2_000] {
        let cap = analyze_snapshot(&many(n, "form", &switch), ProbeTier::WasmExtension);
        let (first, last) = (
            &cap.actions["opt_0"],
            // The last within the state's first 300 actions.
            &cap.actions[&format!("opt_{}", (n - 1).min(250))],
        );
        assert_eq!(first.parameters, last.parameters);
        assert_eq!(first.parameters.len(), (n + 1).min(200));
    }

    // Buttons that act in the page, in a form with a field and nothing that submits
    // it: what is said of each is what is said of a few.
    let button = |_| ("button".to_owned(), pairs(&[("type", "button")]));
    let few = analyze_snapshot(&many(3, "form", &button), ProbeTier::WasmExtension);
    let lots = analyze_snapshot(&many(3_000, "form", &button), ProbeTier::WasmExtension);
    let (a, b) = (&few.actions["opt"], &lots.actions["opt"]);
    assert_eq!(
        (a.reversibility, a.confidence),
        (b.reversibility, b.confidence)
    );

    // A group of boxes of one name: each value is offered, once.
    let tags = |k: usize| {
        let value = format!("t{k}");
        (
            "input".to_owned(),
            pairs(&[("type", "checkbox"), ("name", "tags"), ("value", &value)]),
        )
    };
    let cap = analyze_snapshot(&many(3_000, "form", &tags), ProbeTier::WasmExtension);
    let offered = cap.actions.values().find_map(|a| {
        a.parameters
            .iter()
            .find(|p| p.name == "tags")
            .and_then(|p| p.allowed_values.clone())
    });
    assert_eq!(offered.map(|v| v.len()), Some(3_000));
}

/// Lists a page repeats by the thousand: each row's own "Remove" form asked every
/// other row whether it held one (a list of 2,000 such rows: 0.25 s natively, 0.95 s
/// at 4,000); lists of one name were numbered by trying every number from 2 (4,000
/// lists: 0.8 s); a tab bar told its tabs apart by comparing each with every other.
/// Each is read once now, and says what it said of a few.
#[test]
fn thousands_of_rows_lists_and_tabs_are_read_once() {
    // A list whose every row posts a form of its own: one row action.
    let mut elements = vec![
        el_at("main", None, "main", "", &[]),
        el_at("ul", Some(0), "main > ul", "", &[]),
    ];
    for k in 0..2_000 {
        let li = elements.len() as u32;
        let at = format!("main > ul > li:nth-of-type({})", k + 1);
        elements.push(el_at("li", Some(1), &at, &format!("Item {k} Remove"), &[]));
        let form = elements.len() as u32;
        let f = format!("{at} > form");
        elements.push(el_at("form", Some(li), &f, "Remove", &[("method", "post")]));
        let value = k.to_string();
        let hidden = [
            ("type", "hidden"),
            ("name", "id"),
            ("value", value.as_str()),
        ];
        elements.push(el_at(
            "input",
            Some(form),
            &format!("{f} > input"),
            "",
            &hidden,
        ));
        elements.push(el_at(
            "button",
            Some(form),
            &format!("{f} > button"),
            "Remove",
            &[],
        ));
    }
    let cap = analyze_snapshot(
        &snapshot("http://127.0.0.1:1/items", "Items", elements),
        ProbeTier::WasmExtension,
    );
    assert_eq!(cap.actions["remove"].signature, "fn(name: string) -> bool");
    assert!(!cap.actions.contains_key("remove_2"));

    // Thousands of lists of links, each its own list of one name, numbered in order.
    let mut elements = vec![el_at("main", None, "main", "", &[])];
    for k in 0..3_000 {
        let ul = elements.len() as u32;
        let at = format!("main > ul:nth-of-type({})", k + 1);
        elements.push(el_at("ul", Some(0), &at, "", &[]));
        for j in 0..3 {
            let li = elements.len() as u32;
            let item = format!("{at} > li:nth-of-type({})", j + 1);
            let text = format!("L{k} {j}");
            elements.push(el_at("li", Some(ul), &item, &text, &[]));
            let href = format!("/l/{k}/{j}");
            elements.push(el_at(
                "a",
                Some(li),
                &format!("{item} > a"),
                &text,
                &[("href", &href)],
            ));
        }
    }
    let cap = analyze_snapshot(
        &snapshot("http://127.0.0.1:1/links", "Links", elements),
        ProbeTier::WasmExtension,
    );
    for key in ["items[0].link", "items_2[0].link", "items_400[2].link"] {
        assert!(cap.objects.contains_key(key), "{key}");
    }

    // A tab bar of thousands of tabs, one of them twice: each label offered once.
    let mut elements = vec![
        el_at("main", None, "main", "", &[]),
        el_at("div", Some(0), "main > div", "", &[("role", "tablist")]),
    ];
    for k in 0..3_001 {
        let label = format!("Tab {}", k.min(2_999));
        let at = format!("main > div > button:nth-of-type({})", k + 1);
        elements.push(el_at("button", Some(1), &at, &label, &[("role", "tab")]));
    }
    let cap = analyze_snapshot(
        &snapshot("http://127.0.0.1:1/tabs", "Tabs", elements),
        ProbeTier::WasmExtension,
    );
    let tab = &cap.actions["select_tab"].parameters[0];
    assert_eq!(tab.allowed_values.as_ref().map(Vec::len), Some(3_000));
}

/// A table of thousands of rows, each with a cell of buttons: whether the buttons of a
/// cell are an editor's toolbar asked whether the table held an editor, once per row
/// (3,000 rows of six buttons: 0.3 s natively, 1.3 s at 6,000). The table is asked
/// once; the rows' actions are what they are for a few rows.
#[test]
fn a_table_of_rows_of_buttons_is_asked_about_once() {
    let page = |rows: usize| {
        let mut elements = vec![
            el_at("main", None, "main", "", &[]),
            el_at("table", Some(0), "main > table", "", &[]),
        ];
        for k in 0..rows {
            let tr = elements.len() as u32;
            let at = format!("main > table > tbody > tr:nth-of-type({})", k + 1);
            elements.push(el_at("tr", Some(1), &at, "", &[]));
            let name = format!("Name {k}");
            elements.push(el_at(
                "td",
                Some(tr),
                &format!("{at} > td:nth-of-type(1)"),
                &name,
                &[],
            ));
            let td = elements.len() as u32;
            let cell = format!("{at} > td:nth-of-type(2)");
            elements.push(el_at("td", Some(tr), &cell, "", &[]));
            for b in ["Archive", "Refund", "Copy", "Print", "Share", "Pin"] {
                let button = format!("{cell} > button:nth-of-type({})", elements.len());
                elements.push(el_at("button", Some(td), &button, b, &[("type", "button")]));
            }
        }
        snapshot("http://127.0.0.1:1/orders", "Orders", elements)
    };
    let few = analyze_snapshot(&page(3), ProbeTier::WasmExtension);
    let many = analyze_snapshot(&page(3_000), ProbeTier::WasmExtension);
    says_the_same(&few, &many, &["archive", "refund", "pin"]);
}

/// Thousands of buttons that send the fields beside them, in one element (found by
/// `probe_snapshot`: each button read the element's headings again, 0.44 s natively for
/// 5,232 records): the element's facts are read once, and each button's action is
/// what it is among a few.
#[test]
fn thousands_of_sending_buttons_beside_fields_read_their_headings_once() {
    let page = |buttons: usize| {
        let mut elements = vec![
            el_at("main", None, "main", "", &[]),
            el_at("div", Some(0), "main > div", "", &[]),
            el_at("h2", Some(1), "main > div > h2", "New contact", &[]),
            el_at(
                "input",
                Some(1),
                "main > div > input:nth-of-type(1)",
                "",
                &[("name", "name")],
            ),
            el_at(
                "input",
                Some(1),
                "main > div > input:nth-of-type(2)",
                "",
                &[("name", "email")],
            ),
        ];
        for k in 0..buttons {
            let at = format!("main > div > button:nth-of-type({})", k + 1);
            elements.push(el_at(
                "button",
                Some(1),
                &at,
                &format!("Add {k}"),
                &[("type", "button")],
            ));
        }
        snapshot("http://127.0.0.1:1/contacts", "Contacts", elements)
    };
    let few = analyze_snapshot(&page(3), ProbeTier::WasmExtension);
    let many = analyze_snapshot(&page(3_000), ProbeTier::WasmExtension);
    says_the_same(&few, &many, &["add_0", "add_2"]);
}

/// A form of thousands of boxes (found by `probe_snapshot`: each box asked whether its
/// form is switches sent as they change, reading the whole form and the page each time;
/// a patch to 4,336 records took 0.37 s natively). The form is asked once: with no
/// submit each box is its own switch, with one they are its parameters.
#[test]
fn a_form_of_thousands_of_boxes_is_asked_about_once() {
    let page = |boxes: usize, submit: bool| {
        let mut elements = vec![el_at("form", None, "form", "", &[("method", "post")])];
        for k in 0..boxes {
            let (name, label) = (format!("box{k}"), format!("Box {k}"));
            let at = format!("form > input:nth-of-type({})", k + 1);
            let attrs = [
                ("type", "checkbox"),
                ("name", name.as_str()),
                ("aria-label", label.as_str()),
            ];
            elements.push(el_at("input", Some(0), &at, "", &attrs));
        }
        if submit {
            elements.push(el_at("button", Some(0), "form > button", "Save", &[]));
        }
        snapshot("http://127.0.0.1:1/prefs", "Prefs", elements)
    };
    let alone = analyze_snapshot(&page(3_000, false), ProbeTier::WasmExtension);
    assert_eq!(
        alone.actions["set_box_2"].signature,
        "fn(checked: boolean) -> bool"
    );
    let sent = analyze_snapshot(&page(3_000, true), ProbeTier::WasmExtension);
    assert!(!sent.actions.contains_key("set_box_2"));
    assert_eq!(sent.actions["save"].parameters.len(), 200);
}

/// Actions `names` say the same on a page of thousands as on a page of a few: their
/// signature, tier and confidence.
fn says_the_same(
    few: &nsp_protocol::PageCapture,
    many: &nsp_protocol::PageCapture,
    names: &[&str],
) {
    for name in names {
        let (a, b) = (&few.actions[*name], &many.actions[*name]);
        assert_eq!(a.signature, b.signature, "{name}");
        assert_eq!(
            (a.reversibility, a.confidence),
            (b.reversibility, b.confidence),
            "{name}"
        );
    }
}

/// A distinct name of letters for the `k`th of thousands ("aa", "ab", … "zz", "aax"…):
/// names of words, so no two controls are numbered apart.
fn letters(k: usize) -> String {
    let a = (b'a' + (k / 26 % 26) as u8) as char;
    let b = (b'a' + (k % 26) as u8) as char;
    format!("{a}{b}{}", "x".repeat(k / 676))
}

#[test]
fn thousands_of_openers_find_what_they_open_by_id_once() {
    // Controls that each name what they open by id (Bootstrap's `data-bs-target`,
    // `aria-controls`) looked the id up among all the page's records: 2,000 of them, each
    // with its own dialog, took 125 ms natively against 36 ms for half as many. The ids
    // are indexed once per page now. What each says is the same: a row's "Delete" that
    // opens a dialog whose "Delete" does it only asks (a read), at any count.
    let name = letters;
    let page = |n: usize| {
        let mut elements = vec![el_at("main", None, "main", "", &[])];
        for k in 0..n {
            let at = |rest: &str| format!("main > div:nth-of-type({}){rest}", k + 1);
            let id = format!("confirm-{k}");
            let target = format!("#{id}");
            let row = elements.len() as u32;
            elements.push(el_at("div", Some(0), &at(""), "", &[]));
            elements.push(el_at(
                "button",
                Some(row),
                &at(" > button"),
                &format!("Delete {}", name(k)),
                &[
                    ("type", "button"),
                    ("data-bs-toggle", "modal"),
                    ("data-bs-target", &target),
                ],
            ));
            let dialog = elements.len() as u32;
            elements.push(el_at(
                "div",
                Some(row),
                &at(" > div"),
                "",
                &[
                    ("id", &id),
                    ("role", "dialog"),
                    ("aria-label", &format!("Delete {}?", name(k))),
                ],
            ));
            elements.push(el_at(
                "button",
                Some(dialog),
                &at(" > div > button"),
                "Delete",
                &[("type", "button")],
            ));
        }
        snapshot("http://127.0.0.1:1/items", "Items", elements)
    };
    let few = analyze_snapshot(&page(3), ProbeTier::WasmExtension);
    let many = analyze_snapshot(&page(2_000), ProbeTier::WasmExtension);
    says_the_same(&few, &many, &["delete_aa", "delete_ab"]);
    assert_eq!(
        few.actions["delete_aa"].reversibility,
        nsp_protocol::Reversibility::Read,
        "{:?}",
        few.explain["delete_aa"].signals
    );
}

#[test]
fn a_group_of_thousands_looks_for_its_undoing_verb_once() {
    // The fuzzer's page: thousands of buttons in one group whose verb has an undoing
    // verb on the page. Each looked for it among the controls of its group and read
    // the whole group (1,576 "Close" buttons beside an "Open" tab: 0.45 s natively);
    // each group's verbs are counted once now. What each button says is the same: the
    // "Unarchive" in its group still makes "Archive" undoable.
    let name = letters;
    let page = |n: usize| {
        let mut elements = vec![
            el_at("section", None, "section", "", &[("aria-label", "Items")]),
            el_at(
                "button",
                Some(0),
                "section > button:nth-of-type(1)",
                "Unarchive selected",
                &[("type", "button")],
            ),
        ];
        for k in 0..n {
            let at = format!("section > button:nth-of-type({})", k + 2);
            let label = format!("Archive {}", name(k));
            elements.push(el_at("button", Some(0), &at, &label, &[("type", "button")]));
        }
        snapshot("http://127.0.0.1:1/items", "Items", elements)
    };
    let few = analyze_snapshot(&page(3), ProbeTier::WasmExtension);
    let many = analyze_snapshot(&page(1_500), ProbeTier::WasmExtension);
    says_the_same(
        &few,
        &many,
        &["archive_aa", "archive_ab", "unarchive_selected"],
    );
    assert!(
        few.explain["archive_aa"]
            .signals
            .iter()
            .any(|s| s.starts_with("inverse_pair")),
        "{:?}",
        few.explain["archive_aa"].signals
    );
}

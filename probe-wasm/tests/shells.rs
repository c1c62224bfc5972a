//! App shells, menus, dialogs and fields (issue 20): landmarks, dock panels, splitters,
//! skip links and tab bars are not actions; a tab bar is one `select_tab(tab)`; a menu
//! button opens at `read`, its open menu's items are actions named by their own text,
//! and the state says which menu is open and whose; unnamed fields are parameters named
//! from what a person reads beside them, never from their value; a dialog's confirm
//! button carries the dialog's fields wherever its `<form>` ends. Each case is a
//! hand-built snapshot of generic markup.

#![cfg(not(target_arch = "wasm32"))]

use nsp_probe::analyze_snapshot;
use nsp_protocol::snapshot::{ElementRecord, PageSnapshot};
use nsp_protocol::{PageCapture, ProbeTier, Reversibility};

mod support;
use support::el_at;

fn snap(elements: Vec<ElementRecord>) -> PageSnapshot {
    PageSnapshot {
        url: "http://127.0.0.1:1/app".into(),
        title: "Workbench".into(),
        elements,
        ..PageSnapshot::default()
    }
}

fn analyze(s: &PageSnapshot) -> PageCapture {
    analyze_snapshot(s, ProbeTier::WasmInPage)
}

/// A record with a unique selector (`#e<index>`), so explanations tell elements apart.
fn e(tag: &str, parent: Option<u32>, text: &str, attrs: &[(&str, &str)]) -> ElementRecord {
    el_at(tag, parent, "", text, attrs)
}

/// Gives every record the selector `#e<index>`.
fn numbered(mut els: Vec<ElementRecord>) -> Vec<ElementRecord> {
    for (i, r) in els.iter_mut().enumerate() {
        if r.selector.is_empty() {
            r.selector = format!("#e{i}");
        }
    }
    els
}

fn clickable(mut r: ElementRecord) -> ElementRecord {
    r.clickable = true;
    r
}

fn labelled(mut r: ElementRecord, label: &str) -> ElementRecord {
    r.label = label.into();
    r
}

fn names(c: &PageCapture) -> Vec<String> {
    c.actions
        .iter()
        .filter(|(_, a)| !a.internal_target.starts_with("builtin:"))
        .map(|(n, _)| n.clone())
        .collect()
}

fn dump(c: &PageCapture) -> String {
    let mut out = format!(
        "confidence {} {:?}\n",
        c.confidence, c.probe_metadata.confidence_reason
    );
    for (n, a) in &c.actions {
        if a.internal_target.starts_with("builtin:") {
            continue;
        }
        out += &format!(
            "  {n}: {:?} {} {} {:?}\n",
            a.reversibility,
            a.confidence,
            a.signature,
            a.parameters
                .iter()
                .map(|p| (&p.name, &p.allowed_values))
                .collect::<Vec<_>>()
        );
    }
    for (k, v) in &c.objects {
        out += &format!("  obj {k} = {v}\n");
    }
    out
}

/// A workbench: a banner, a navigation landmark and a main region made focusable
/// (`tabindex=-1`, as apps do to move focus), dock panels with a click listener that
/// focuses them, a splitter between them, a skip link, a tab bar, and one real button.
fn workbench() -> PageSnapshot {
    snap(numbered(vec![
        e("body", None, "", &[]), // 0
        e(
            "a",
            Some(0),
            "Skip to main panel",
            &[("href", "#main-panel")],
        ), // 1
        clickable(e(
            "div",
            Some(0),
            "",
            &[("role", "banner"), ("tabindex", "-1")],
        )), // 2
        e("button", Some(2), "Run build", &[("type", "button")]), // 3
        clickable(e(
            "div",
            Some(0),
            "",
            &[
                ("role", "navigation"),
                ("tabindex", "-1"),
                ("aria-label", "Explorer"),
            ],
        )), // 4
        e("a", Some(4), "Files", &[("href", "/files")]), // 5
        clickable(e(
            "div",
            Some(0),
            "",
            &[("class", "dock-panel"), ("tabindex", "0")],
        )), // 6
        e("button", Some(6), "Refresh", &[("type", "button")]), // 7
        e(
            "input",
            Some(6),
            "",
            &[("type", "search"), ("aria-label", "Filter files")],
        ), // 8
        clickable(e(
            "div",
            Some(0),
            "",
            &[
                ("role", "separator"),
                ("tabindex", "0"),
                ("aria-orientation", "vertical"),
                ("aria-valuenow", "30"),
            ],
        )), // 9
        clickable(e(
            "div",
            Some(0),
            "",
            &[("role", "main"), ("id", "main-panel"), ("tabindex", "-1")],
        )), // 10
        e(
            "div",
            Some(10),
            "",
            &[("role", "tablist"), ("aria-label", "Editors")],
        ), // 11
        e(
            "button",
            Some(11),
            "README.md",
            &[("role", "tab"), ("aria-selected", "true")],
        ), // 12
        e(
            "button",
            Some(11),
            "main.rs",
            &[("role", "tab"), ("aria-selected", "false")],
        ), // 13
        e(
            "button",
            Some(11),
            "lib.rs",
            &[("role", "tab"), ("aria-selected", "false")],
        ), // 14
        clickable(e(
            "div",
            Some(10),
            "",
            &[("role", "toolbar"), ("aria-label", "Top bar")],
        )), // 15
        e("button", Some(15), "Format", &[("type", "button")]), // 16
        e("button", Some(15), "Outline", &[("type", "button")]), // 17
        clickable(e(
            "section",
            Some(10),
            "",
            &[
                ("role", "region"),
                ("aria-label", "Main content"),
                ("tabindex", "0"),
            ],
        )), // 18
        e("p", Some(18), "Hello", &[]), // 19
    ]))
}

#[test]
fn landmarks_panels_splitters_skip_links_and_tab_bars_are_not_actions() {
    let c = analyze(&workbench());
    eprintln!("{}", dump(&c));
    let names = names(&c);
    for not in [
        "skip_to_main_panel",
        "open_skip_to_main_panel",
        "main_content",
        "top_bar",
        "explorer",
        "0",
        "30",
    ] {
        assert!(!names.contains(&not.to_owned()), "{not}: {}", dump(&c));
    }
    for name in &names {
        assert!(!name.starts_with("show_"), "{name}: {}", dump(&c));
    }
    let tab = &c.actions["select_tab"];
    assert_eq!(tab.reversibility, Reversibility::Read, "{}", dump(&c));
    assert_eq!(tab.parameters.len(), 1);
    assert_eq!(tab.parameters[0].name, "tab");
    assert_eq!(
        tab.parameters[0].allowed_values,
        Some(vec!["README.md".into(), "main.rs".into(), "lib.rs".into()])
    );
    let selected = c
        .objects
        .iter()
        .find(|(k, _)| k.ends_with("editors.selected_tab"))
        .map(|(_, v)| v.clone());
    assert_eq!(selected, Some("README.md".into()), "{}", dump(&c));
    for real in ["run_build", "refresh", "format", "outline", "open_files"] {
        assert!(names.contains(&real.to_owned()), "{real}: {}", dump(&c));
    }
}

/// A file list whose rows each have a "More actions" menu button; the second row's menu
/// is open, rendered at the end of the page (a portal), as component libraries do.
fn file_list_with_an_open_menu() -> PageSnapshot {
    snap(numbered(vec![
        e("body", None, "", &[]),                               // 0
        e("main", Some(0), "", &[]),                            // 1
        e("ul", Some(1), "", &[("aria-label", "Files")]),       // 2
        e("li", Some(2), "", &[]),                              // 3
        e("span", Some(3), "Report.pdf", &[("class", "name")]), // 4
        e(
            "button",
            Some(3),
            "",
            &[
                ("aria-label", "More actions"),
                ("aria-haspopup", "menu"),
                ("aria-expanded", "false"),
            ],
        ), // 5
        e("li", Some(2), "", &[]),                              // 6
        e("span", Some(6), "Budget.xlsx", &[("class", "name")]), // 7
        e(
            "button",
            Some(6),
            "",
            &[
                ("aria-label", "More actions"),
                ("aria-haspopup", "menu"),
                ("aria-expanded", "true"),
            ],
        ), // 8
        e("li", Some(2), "", &[]),                              // 9
        e("span", Some(9), "Notes.txt", &[("class", "name")]),  // 10
        e(
            "button",
            Some(9),
            "",
            &[
                ("aria-label", "More actions"),
                ("aria-haspopup", "menu"),
                ("aria-expanded", "false"),
            ],
        ), // 11
        e(
            "button",
            Some(1),
            "Options",
            &[("aria-haspopup", "true"), ("aria-expanded", "false")],
        ), // 12
        e("div", Some(0), "", &[("role", "menu")]),             // 13
        e("div", Some(13), "Rename", &[("role", "menuitem")]),  // 14
        e("div", Some(13), "Move to trash", &[("role", "menuitem")]), // 15
        e("div", Some(13), "Copy link", &[("role", "menuitem")]), // 16
    ]))
}

#[test]
fn a_menu_button_opens_at_read_and_its_open_menu_items_are_named_by_their_text() {
    let c = analyze(&file_list_with_an_open_menu());
    eprintln!("{}", dump(&c));
    // The menu buttons open something: reads an agent may press to see the menu.
    let opener = c
        .actions
        .iter()
        .find(|(n, _)| n.starts_with("more_actions"))
        .map(|(_, a)| a)
        .unwrap_or_else(|| panic!("{}", dump(&c)));
    assert_eq!(opener.reversibility, Reversibility::Read, "{}", dump(&c));
    assert!(opener.confidence >= 0.8, "{}", dump(&c));
    let options = &c.actions["options"];
    assert_eq!(options.reversibility, Reversibility::Read, "{}", dump(&c));
    assert!(options.confidence >= 0.9, "{}", dump(&c));
    // The open menu's items, named by their own text, say whose menu they are in.
    for (name, text) in [
        ("rename", "Rename"),
        ("move_to_trash", "Move to trash"),
        ("copy_link", "Copy link"),
    ] {
        let a = c
            .actions
            .get(name)
            .unwrap_or_else(|| panic!("{name}: {}", dump(&c)));
        assert!(a.description.contains(text), "{name}: {}", a.description);
        assert!(
            a.description.contains("Budget.xlsx"),
            "{name}: {}",
            a.description
        );
    }
    assert_ne!(
        c.actions["move_to_trash"].reversibility,
        Reversibility::Read
    );
    // The state says which menu is open, and whose.
    assert_eq!(
        c.objects.get("open_menu.name"),
        Some(&"More actions".into()),
        "{}",
        dump(&c)
    );
    let record = c
        .objects
        .get("open_menu.record")
        .and_then(|v| v.as_str())
        .unwrap_or_default();
    assert!(record.ends_with("[1]"), "{}", dump(&c));
}

/// Fields nothing names by `name` or `id`: each becomes a parameter named by what a
/// person reads beside it, or by what it is, never by its value.
fn editor_with_unnamed_fields() -> PageSnapshot {
    snap(numbered(vec![
        e("body", None, "", &[]),                               // 0
        e("section", Some(0), "", &[("aria-label", "Editor")]), // 1
        e(
            "input",
            Some(1),
            "",
            &[
                ("type", "text"),
                ("value", "New item"),
                ("class", "css-1o4wo1x"),
            ],
        ), // 2
        e(
            "input",
            Some(1),
            "",
            &[("type", "text"), ("placeholder", "Add a tag")],
        ), // 3
        labelled(
            e(
                "textarea",
                Some(1),
                "",
                &[("class", "du-bois-light-typography-2")],
            ),
            "Description",
        ), // 4
        e(
            "input",
            Some(1),
            "",
            &[
                ("type", "text"),
                ("title", "#1f272d"),
                ("id", "0"),
                ("value", "#1f272d"),
            ],
        ), // 5
        e(
            "input",
            Some(1),
            "",
            &[("type", "date"), ("aria-label", "Due date")],
        ), // 6
        e("button", Some(1), "Save item", &[("type", "button")]), // 7
    ]))
}

#[test]
fn unnamed_fields_are_parameters_named_from_what_a_person_reads() {
    let c = analyze(&editor_with_unnamed_fields());
    eprintln!("{}", dump(&c));
    let save = &c.actions["save_item"];
    let params: Vec<&str> = save.parameters.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        params,
        ["text", "add_a_tag", "description", "text_2", "due_date"],
        "{}",
        dump(&c)
    );
    for p in &save.parameters {
        assert!(
            !p.name.contains("new_item") && !p.name.contains("1f272d") && !p.name.contains("css"),
            "{p:?}"
        );
    }
    // Nor is its value, a colour or a number a key of the state.
    for key in c.objects.keys() {
        assert!(
            !key.contains("new_item") && !key.contains("1f272d") && !key.ends_with(".0"),
            "{key}: {}",
            dump(&c)
        );
    }
    // The parameter fills the field it names.
    let explain = &c.explain["save_item"];
    assert_eq!(explain.parameters["text"], "#e2");
    assert_eq!(explain.parameters["text_2"], "#e5");
}

/// A component-library modal: the `<form>` holds the fields, the footer (outside the
/// form) holds "Cancel" and "Create"; the dialog sits in a portal container the page
/// listens on for clicks outside the dialog.
fn modal_with_the_confirm_button_outside_its_form() -> PageSnapshot {
    snap(numbered(vec![
        e("body", None, "", &[]),    // 0
        e("main", Some(0), "", &[]), // 1
        e(
            "button",
            Some(1),
            "New project",
            &[("type", "button"), ("aria-haspopup", "dialog")],
        ), // 2
        clickable(e("div", Some(0), "", &[("class", "portal-root")])), // 3
        e(
            "div",
            Some(3),
            "",
            &[
                ("role", "dialog"),
                ("aria-modal", "true"),
                ("aria-label", "Create project"),
            ],
        ), // 4
        e("h2", Some(4), "Create project", &[]), // 5
        e("form", Some(4), "", &[]), // 6
        e("input", Some(6), "", &[("name", "title"), ("required", "")]), // 7
        e(
            "select",
            Some(6),
            "",
            &[
                ("name", "visibility"),
                ("options", "[\"Private\",\"Public\"]"),
                ("value", "Private"),
            ],
        ), // 8
        e("div", Some(4), "", &[("class", "footer")]), // 9
        e("button", Some(9), "Cancel", &[("type", "button")]), // 10
        e("button", Some(9), "Create", &[("type", "button")]), // 11
    ]))
}

#[test]
fn a_dialogs_confirm_button_outside_its_form_carries_the_fields() {
    let c = analyze(&modal_with_the_confirm_button_outside_its_form());
    eprintln!("{}", dump(&c));
    let create = &c.actions["create"];
    assert_eq!(create.internal_target, "dom:#e11", "{}", dump(&c));
    let params: Vec<&str> = create.parameters.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(params, ["title", "visibility"], "{}", dump(&c));
    assert_ne!(create.reversibility, Reversibility::Read);
    for name in names(&c) {
        assert!(!name.starts_with("submit"), "{name}: {}", dump(&c));
        let a = &c.actions[&name];
        assert_ne!(a.internal_target, "dom:#e3", "the portal: {}", dump(&c));
        assert_ne!(a.internal_target, "dom:#e6", "the form: {}", dump(&c));
    }
    // Behind the open modal dialog, the page is out of a person's reach: the button
    // that opened it is not offered until it closes.
    assert!(!c.actions.contains_key("new_project"), "{}", dump(&c));
    // The same dialog, not modal: the button that opens it only opens it.
    let mut s = modal_with_the_confirm_button_outside_its_form();
    s.elements[4].attrs.remove("aria-modal");
    let c = analyze(&s);
    assert_eq!(
        c.actions["new_project"].reversibility,
        Reversibility::Read,
        "{}",
        dump(&c)
    );
    assert_eq!(
        c.actions["create"].internal_target,
        "dom:#e11",
        "{}",
        dump(&c)
    );
}

/// A modal dialog asking to confirm a deletion over a toolbar with its own "Delete":
/// only the dialog's controls are offered (the toolbar is behind it), so its "Delete"
/// is plain `delete`; the toolbar does not count against the page's confidence.
#[test]
fn behind_an_open_modal_dialog_nothing_is_offered() {
    let page = |modal: bool| {
        let mut dialog = vec![("class", "dialog")];
        if modal {
            dialog.push(("aria-modal", "true"));
        }
        snap(numbered(vec![
            e("body", None, "", &[]),                                       // 0
            e("div", Some(0), "", &[("role", "toolbar")]),                  // 1
            e("button", Some(1), "Delete", &[("type", "button")]),          // 2
            e("button", Some(1), "Rename", &[("type", "button")]),          // 3
            e("dialog", Some(0), "", &dialog),                              // 4
            clickable(e("div", Some(4), "Delete", &[("class", "header")])), // 5
            e(
                "span",
                Some(4),
                "Are you sure you want to permanently delete notes.txt?",
                &[],
            ), // 6
            e("button", Some(4), "Cancel", &[("type", "button")]),          // 7
            e("button", Some(4), "Delete", &[("type", "button")]),          // 8
            e(
                "input",
                Some(0),
                "",
                &[("name", "folder"), ("value", "Receipts")],
            ), // 9
        ]))
    };
    let c = analyze(&page(true));
    // The header the page listens on (for dragging) says "Delete" too: the real button
    // keeps the plain name.
    assert_eq!(names(&c), ["cancel", "delete", "delete_2"], "{}", dump(&c));
    assert_eq!(
        c.actions["delete"].internal_target,
        "dom:#e8",
        "{}",
        dump(&c)
    );
    assert_eq!(
        c.actions["delete"].reversibility,
        Reversibility::IrreversibleWrite
    );
    assert!(c.confidence >= 0.95, "{}", dump(&c));
    // What the page behind shows is still read: a verify expression can name it.
    assert!(
        c.objects.values().any(|v| v == "Receipts"),
        "{:?}",
        c.objects
    );
    // Not modal: the toolbar is there too.
    let c = analyze(&page(false));
    assert!(c.actions.contains_key("rename"), "{}", dump(&c));
}

/// The same shape for a dangerous confirmation: a "type the name to confirm" field in
/// the form, "Delete project" in the footer. The button carries the field and keeps its
/// tier: carrying fields never makes a deletion look like a save.
#[test]
fn a_dialogs_dangerous_confirm_outside_its_form_stays_irreversible() {
    let s = snap(numbered(vec![
        e("body", None, "", &[]), // 0
        e(
            "div",
            Some(0),
            "",
            &[
                ("role", "alertdialog"),
                ("aria-modal", "true"),
                ("aria-label", "Delete project"),
            ],
        ), // 1
        e("p", Some(1), "This cannot be undone.", &[]), // 2
        e("form", Some(1), "", &[]), // 3
        labelled(
            e("input", Some(3), "", &[("required", "")]),
            "Type the project name",
        ), // 4
        e("div", Some(1), "", &[]), // 5
        e("button", Some(5), "Cancel", &[("type", "button")]), // 6
        e("button", Some(5), "Delete project", &[("type", "button")]), // 7
    ]));
    let c = analyze(&s);
    eprintln!("{}", dump(&c));
    let delete = &c.actions["delete_project"];
    assert_eq!(delete.internal_target, "dom:#e7");
    assert_eq!(delete.parameters[0].name, "type_the_project_name");
    assert_eq!(
        delete.reversibility,
        Reversibility::IrreversibleWrite,
        "{}",
        dump(&c)
    );
    assert_eq!(c.actions["cancel"].reversibility, Reversibility::Read);
}

/// A toolbar of components: each `<x-button>` host listens for clicks and holds its own
/// `<button>` in a shadow root. One control, one action.
#[test]
fn a_component_host_around_its_button_is_one_action() {
    let mut els = vec![
        e("body", None, "", &[]),
        e(
            "div",
            Some(0),
            "",
            &[("role", "toolbar"), ("aria-label", "Files")],
        ),
    ];
    for (i, label) in ["Rename", "Delete", "Upload"].iter().enumerate() {
        let host = 2 + 2 * i as u32;
        els.push(clickable(e(
            "x-button",
            Some(1),
            label,
            &[("title", label)],
        )));
        els.push(e("button", Some(host), label, &[("type", "button")]));
    }
    let c = analyze(&snap(numbered(els)));
    eprintln!("{}", dump(&c));
    assert_eq!(names(&c), ["delete", "rename", "upload"], "{}", dump(&c));
    assert_eq!(c.actions["rename"].internal_target, "dom:#e3");
}

/// The text `span` inside a menu's buttons, styled with the button's class (so it looks
/// clickable), is part of its button: one action per button, bound to the button, at
/// the button's confidence (no "plain element" doubt).
#[test]
fn a_clickable_part_of_a_button_is_that_button() {
    let mut els = vec![
        e("body", None, "", &[]),
        e("div", Some(0), "", &[("role", "menu")]),
    ];
    for (i, label) in ["Delete", "Rename"].iter().enumerate() {
        let button = 2 + 2 * i as u32;
        els.push(e(
            "button",
            Some(1),
            label,
            &[("class", "menu-btn"), ("title", label)],
        ));
        els.push(clickable(e(
            "span",
            Some(button),
            &label.to_ascii_lowercase(),
            &[("class", "menu-btn-text")],
        )));
    }
    let c = analyze(&snap(numbered(els)));
    assert_eq!(names(&c), ["delete", "rename"], "{}", dump(&c));
    let delete = &c.actions["delete"];
    assert_eq!(delete.internal_target, "dom:#e2", "{}", dump(&c));
    assert_eq!(delete.reversibility, Reversibility::IrreversibleWrite);
    assert!(delete.confidence >= 0.95, "{}", dump(&c));
}

/// A link that says how long ago something happened is named by where it leads: its
/// words change by themselves from capture to capture, its name must not.
#[test]
fn a_link_showing_a_relative_time_keeps_its_name() {
    let page = |ago: &str| {
        snap(numbered(vec![
            e("body", None, "", &[]),
            e("p", Some(0), "Last reply", &[]),
            e(
                "a",
                Some(0),
                ago,
                &[("href", "http://127.0.0.1:1/threads/41?page=2")],
            ),
        ]))
    };
    let a = analyze(&page("15 seconds ago"));
    let b = analyze(&page("2 minutes ago"));
    assert_eq!(names(&a), ["open_threads"], "{}", dump(&a));
    assert_eq!(names(&a), names(&b));
}

/// A scene whose buttons sit in a `<form>` of their own with no field (a wrapper), and
/// whose confirmation phrase box is before that form: "Delete" carries the box as its
/// parameter, so an agent can type the phrase; the wrapper is not an action.
#[test]
fn a_field_less_forms_buttons_carry_the_fields_beside_it() {
    let mut els = numbered(vec![
        e("body", None, "", &[]),                            // 0
        e("section", Some(0), "", &[("id", "deletescene")]), // 1
        e("h1", Some(1), "Delete Collection", &[]),          // 2
        e(
            "input",
            Some(1),
            "",
            &[("type", "text"), ("data-name", "confirmation")],
        ), // 3
        e("form", Some(1), "", &[]),                         // 4
        e("button", Some(4), "Delete", &[("type", "button")]), // 5
        e("button", Some(4), "Cancel", &[("type", "button")]), // 6
    ]);
    els[3].label = "Type DELETE to confirm".into();
    let c = analyze(&snap(els));
    let delete = c
        .actions
        .iter()
        .find(|(n, _)| n.starts_with("delete"))
        .map(|(_, a)| a)
        .unwrap_or_else(|| {
            panic!(
                "no delete action: {:?}",
                c.actions.keys().collect::<Vec<_>>()
            )
        });
    assert_eq!(delete.reversibility, Reversibility::IrreversibleWrite);
    assert_eq!(
        delete.parameters.len(),
        1,
        "the phrase box is Delete's parameter: {:?}",
        delete.parameters
    );
}

/// The same scene as a page shows it: nothing names the phrase box (no label, no
/// placeholder, no name), and the question is a paragraph before it. The parameter is
/// named by what the box is, and its description quotes what the page asks to type.
#[test]
fn an_unnamed_boxs_parameter_quotes_what_the_page_says_before_it() {
    let c = analyze(&snap(numbered(vec![
        e("body", None, "", &[]),                            // 0
        e("section", Some(0), "", &[("id", "deletescene")]), // 1
        e("h1", Some(1), "Delete Collection", &[]),          // 2
        e(
            "p",
            Some(1),
            "To delete the collection Family please enter the phrase DELETE in the box below:",
            &[],
        ), // 3
        e(
            "input",
            Some(1),
            "",
            &[("type", "text"), ("class", "confirmtxt")],
        ), // 4
        e("form", Some(1), "", &[]),                         // 5
        e("button", Some(5), "Delete", &[("type", "button")]), // 6
        e("button", Some(5), "Cancel", &[("type", "button")]), // 7
    ])));
    let delete = &c.actions["delete"];
    assert_eq!(delete.parameters.len(), 1, "{}", dump(&c));
    let p = &delete.parameters[0];
    assert_eq!(p.name, "text", "named by what it is, never by its class");
    assert!(
        p.description
            .contains("enter the phrase DELETE in the box below"),
        "{}",
        p.description
    );
}

/// A select whose option values are ids a person never sees ("1", "2") offers the
/// options' texts, and its chosen one by its text; one whose values are what it shows
/// offers those.
#[test]
fn a_selects_choices_are_what_a_person_reads() {
    let els = numbered(vec![
        e("body", None, "", &[]),
        e(
            "form",
            Some(0),
            "",
            &[("method", "post"), ("action", "/bills/add")],
        ),
        e(
            "select",
            Some(1),
            "",
            &[
                ("name", "payer"),
                ("options", r#"["","1","2"]"#),
                ("option_labels", r#"["","Amina","Georg"]"#),
                ("value", "2"),
            ],
        ),
        e(
            "select",
            Some(1),
            "",
            &[
                ("name", "currency"),
                ("options", r#"["EUR","USD"]"#),
                ("value", "EUR"),
            ],
        ),
        e("button", Some(1), "Add bill", &[("type", "submit")]),
    ]);
    let c = analyze(&snap(els));
    let add = c
        .actions
        .values()
        .find(|a| a.parameters.len() == 2)
        .expect("the form");
    let payer = add
        .parameters
        .iter()
        .find(|p| p.name == "payer")
        .expect("payer");
    assert_eq!(
        payer.allowed_values.as_deref(),
        Some(&[serde_json::json!("Amina"), serde_json::json!("Georg")][..])
    );
    assert_eq!(payer.default_value, Some(serde_json::json!("Georg")));
    let currency = add
        .parameters
        .iter()
        .find(|p| p.name == "currency")
        .expect("currency");
    assert_eq!(
        currency.allowed_values.as_deref(),
        Some(&[serde_json::json!("EUR"), serde_json::json!("USD")][..])
    );
}

/// A code editor's surface (a scroller listening for clicks around its `pre` lines, as
/// CodeMirror 5 draws it) is no action: its text is the code, which would name it and
/// move its tier with every edit ("order by" read as a purchase). The button beside it
/// stays.
#[test]
fn a_code_editors_surface_is_no_action() {
    let c = analyze(&snap(numbered(vec![
        e(
            "form",
            None,
            "",
            &[("action", "/library"), ("method", "get")],
        ),
        clickable(e(
            "div",
            Some(0),
            "1select title from books order by year",
            &[("class", "CodeMirror-scroll"), ("tabindex", "-1")],
        )),
        e(
            "div",
            Some(1),
            "1select title from books order by year",
            &[("class", "CodeMirror-lines"), ("role", "presentation")],
        ),
        e(
            "pre",
            Some(2),
            "select title from books order by year",
            &[("class", "CodeMirror-line"), ("role", "presentation")],
        ),
        e("button", Some(0), "Run SQL", &[("type", "submit")]),
    ])));
    let names = names(&c);
    assert!(
        names
            .iter()
            .all(|n| !n.contains("select") && !n.contains("order")),
        "{}",
        dump(&c)
    );
    assert!(names.iter().any(|n| n == "run_sql"), "{}", dump(&c));
}

/// A tally a page listens for clicks on ("0 of 3 selected", Django's action counter) is
/// a count that changes with the selection, no action; the select-all box beside it is
/// one.
#[test]
fn a_tally_is_no_action() {
    let c = analyze(&snap(numbered(vec![
        e("div", None, "", &[("class", "actions")]),
        clickable(e(
            "span",
            Some(0),
            "0 of 3 selected",
            &[("class", "action-counter")],
        )),
        e("button", Some(0), "Go", &[("type", "button")]),
    ])));
    let names = names(&c);
    assert!(
        names.iter().all(|n| !n.contains("selected")),
        "{}",
        dump(&c)
    );
    assert!(names.iter().any(|n| n == "go"), "{}", dump(&c));
}

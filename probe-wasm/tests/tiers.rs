//! Tier rules of issue 20, each on a small generic page of its own (hand-built
//! snapshots, as the extraction records them): what a control does is read from its
//! structure and its words, never from a site's names.
//!
//! - compose evidence needs a field of recipients' addresses *and* a send verb;
//! - saving, confirming or discarding an edit of a record is reversible;
//! - a GET form opens a page, whatever its label;
//! - "New" makes an item (a write), it does not only open an editor;
//! - a plain add form saves at a confidence the gate lets through;
//! - a button that opens a dialog is a read;
//! - an undoing verb counts only in the same group of controls;
//! - a "Yes, <verb>" confirmation page is as sure as its verb;
//! - a view toggle ("Hide sidebar") and a formatting button change nothing stored;
//! - every button of an editor's formatting toolbar edits the text, by structure;
//! - a helper that changes a form's fields without sending it ("Everyone", "Format",
//!   "Delete <field>") is a reversible write, like typing;
//! - a menu button or disclosure reads, in a row too, with or without ARIA;
//! - "Submit" of a form editing a record that exists saves the edit;
//! - a form with no button does what its one field's name says ("New todo");
//! - a "Reactivate" on another row of the list undoes "Deactivate";
//! - one of a group of buttons of which one is marked current switches a view;
//! - a form of switches alone (no button, posting as they change) is its switches;
//! - a column header the page listens for clicks on sorts the table, and so does a
//!   header row drawn as a list's row;
//! - a group of buttons whose class says which are on toggles;
//! - a radio group outside a form is a choice that can be made back, unless one of its
//!   options' words says otherwise.

#![cfg(not(target_arch = "wasm32"))]

use nsp_probe::analyze_snapshot;
use nsp_protocol::snapshot::{ElementRecord, PageSnapshot};
use nsp_protocol::{ActionSchema, PageCapture, ProbeTier, Reversibility};

mod support;
use support::{el, el_at};

use Reversibility::{IrreversibleWrite as I, Read as R, ReversibleWrite as W};

fn page(url: &str, title: &str, elements: Vec<ElementRecord>) -> PageCapture {
    let snap = PageSnapshot {
        url: url.into(),
        title: title.into(),
        site_name: Some("Demo".into()),
        elements,
        ..PageSnapshot::default()
    };
    analyze_snapshot(&snap, ProbeTier::WasmInPage)
}

/// The action bound to the control whose label is `label`, with its name.
fn action<'a>(capture: &'a PageCapture, label: &str) -> (&'a str, &'a ActionSchema) {
    let name = capture
        .explain
        .iter()
        .find(|(_, ex)| ex.elements.first().is_some_and(|e| e.text == label))
        .map(|(name, _)| name.as_str())
        .unwrap_or_else(|| {
            panic!(
                "no action bound to \"{label}\" in {:?}",
                capture.actions.keys().collect::<Vec<_>>()
            )
        });
    (name, &capture.actions[name])
}

fn tier(capture: &PageCapture, label: &str) -> (Reversibility, f64) {
    let (name, a) = action(capture, label);
    let v = (a.reversibility, a.confidence);
    eprintln!(
        "{label}: {name} {} {} {:.3} {:?}",
        a.signature,
        v.0.as_str(),
        v.1,
        capture.explain[name].signals
    );
    v
}

fn labelled(tag: &str, parent: u32, label: &str, attrs: &[(&str, &str)]) -> ElementRecord {
    let mut e = el(tag, Some(parent), "", attrs);
    e.label = label.into();
    e
}

#[test]
fn a_cc_box_beside_a_text_is_a_record_not_a_message() {
    for cc_type in ["text", "email"] {
        let c = page(
            "http://127.0.0.1:1/tickets/new",
            "New ticket",
            vec![
                el("main", None, "", &[]),
                el("h1", Some(0), "New ticket", &[]),
                el(
                    "form",
                    Some(0),
                    "",
                    &[("method", "post"), ("action", "/tickets")],
                ),
                labelled(
                    "input",
                    2,
                    "Summary",
                    &[("type", "text"), ("name", "summary")],
                ),
                labelled("input", 2, "CC", &[("type", cc_type), ("name", "cc")]),
                labelled("textarea", 2, "Description", &[("name", "description")]),
                el("button", Some(2), "Create ticket", &[("type", "submit")]),
            ],
        );
        let (t, conf) = tier(&c, "Create ticket");
        assert_eq!(t, W, "cc type={cc_type}");
        assert!(conf >= 0.80, "cc type={cc_type}: {conf}");
    }

    // Recipients' addresses, a message and a send verb: a message, irreversible.
    let c = page(
        "http://127.0.0.1:1/mail/compose",
        "Compose",
        vec![
            el("main", None, "", &[]),
            el(
                "form",
                Some(0),
                "",
                &[("method", "post"), ("action", "/mail")],
            ),
            labelled("input", 1, "To", &[("type", "email"), ("name", "to")]),
            labelled(
                "input",
                1,
                "Subject",
                &[("type", "text"), ("name", "subject")],
            ),
            labelled("textarea", 1, "Message", &[("name", "body")]),
            el("button", Some(1), "Send", &[("type", "submit")]),
        ],
    );
    let (t, conf) = tier(&c, "Send");
    assert_eq!(t, I);
    assert!(conf >= 0.95, "{conf}");
    let (name, _) = action(&c, "Send");
    assert!(c.explain[name]
        .signals
        .iter()
        .any(|s| s.starts_with("compose (+")));
}

#[test]
fn saving_confirming_or_discarding_an_edit_is_reversible() {
    // An edit form of an existing record.
    let c = page(
        "http://127.0.0.1:1/items/7/edit",
        "Edit item",
        vec![
            el("main", None, "", &[]),
            el("h1", Some(0), "Edit item", &[]),
            el(
                "form",
                Some(0),
                "",
                &[("method", "post"), ("action", "/items/7")],
            ),
            labelled(
                "input",
                2,
                "Title",
                &[("type", "text"), ("name", "title"), ("value", "Groceries")],
            ),
            labelled("textarea", 2, "Text", &[("name", "text")]),
            el("button", Some(2), "Confirm changes", &[("type", "submit")]),
            el(
                "button",
                Some(2),
                "Discard changes",
                &[("type", "submit"), ("name", "discard")],
            ),
        ],
    );
    for label in ["Confirm changes", "Discard changes"] {
        let (t, conf) = tier(&c, label);
        assert_eq!(t, W, "{label}");
        assert!(conf >= 0.80, "{label}: {conf}");
    }

    // An editor without a form: its own buttons beside the fields.
    let c = page(
        "http://127.0.0.1:1/notes#groceries",
        "Notes",
        vec![
            el("main", None, "", &[]),
            el("section", Some(0), "", &[("aria-label", "Editor")]),
            el(
                "button",
                Some(1),
                "",
                &[
                    ("type", "button"),
                    ("aria-label", "Confirm changes to this note"),
                ],
            ),
            el(
                "button",
                Some(1),
                "",
                &[
                    ("type", "button"),
                    ("aria-label", "Discard changes to this note"),
                ],
            ),
            labelled(
                "input",
                1,
                "Title",
                &[("type", "text"), ("value", "Groceries")],
            ),
            labelled("textarea", 1, "Text", &[]),
        ],
    );
    for label in [
        "Confirm changes to this note",
        "Discard changes to this note",
    ] {
        let (t, conf) = tier(&c, label);
        assert_eq!(t, W, "{label}");
        assert!(conf >= 0.80, "{label}: {conf}");
    }

    // "Save and publish" is not only a save: the stricter word keeps it irreversible.
    let c = page(
        "http://127.0.0.1:1/posts/new",
        "New post",
        vec![
            el("main", None, "", &[]),
            el(
                "form",
                Some(0),
                "",
                &[("method", "post"), ("action", "/posts")],
            ),
            labelled("input", 1, "Title", &[("type", "text"), ("name", "title")]),
            el("button", Some(1), "Save and publish", &[("type", "submit")]),
        ],
    );
    assert_eq!(tier(&c, "Save and publish").0, I);
}

#[test]
fn a_get_form_opens_a_page_whatever_its_label() {
    let mut els = vec![
        el("main", None, "", &[]),
        el("h1", Some(0), "Meeting notes", &[]),
        el("div", Some(0), "", &[("class", "page-actions")]),
    ];
    for (label, action) in [
        ("Delete page", "delete"),
        ("Rename page", "rename"),
        ("Attach file", "attach"),
        ("Reply", "reply"),
    ] {
        let form = els.len() as u32;
        els.push(el(
            "form",
            Some(2),
            "",
            &[("method", "get"), ("action", "/wiki/MeetingNotes")],
        ));
        els.push(el(
            "input",
            Some(form),
            "",
            &[("type", "hidden"), ("name", "action"), ("value", action)],
        ));
        els.push(el(
            "input",
            Some(form),
            "",
            &[("type", "submit"), ("value", label)],
        ));
    }
    let c = page("http://127.0.0.1:1/wiki/MeetingNotes", "Meeting notes", els);
    for label in ["Delete page", "Rename page", "Attach file", "Reply"] {
        assert_eq!(tier(&c, label).0, R, "{label}");
    }

    // The same "Delete page" posting: it acts.
    let c = page(
        "http://127.0.0.1:1/wiki/MeetingNotes",
        "Meeting notes",
        vec![
            el("main", None, "", &[]),
            el(
                "form",
                Some(0),
                "",
                &[("method", "post"), ("action", "/wiki/MeetingNotes")],
            ),
            el(
                "input",
                Some(1),
                "",
                &[("type", "hidden"), ("name", "action"), ("value", "delete")],
            ),
            el(
                "input",
                Some(1),
                "",
                &[("type", "submit"), ("value", "Delete page")],
            ),
        ],
    );
    assert_eq!(tier(&c, "Delete page").0, I);
}

#[test]
fn new_makes_an_item_and_a_dialog_opener_reads() {
    let c = page(
        "http://127.0.0.1:1/notes",
        "Notes",
        vec![
            el("main", None, "", &[]),
            el(
                "div",
                Some(0),
                "",
                &[("role", "toolbar"), ("aria-label", "Notes")],
            ),
            el("button", Some(1), "New", &[("type", "button")]),
            el(
                "button",
                Some(1),
                "Create",
                &[("type", "button"), ("aria-haspopup", "dialog")],
            ),
            el(
                "button",
                Some(1),
                "Add",
                &[("type", "button"), ("aria-controls", "add-dialog")],
            ),
            el(
                "div",
                Some(0),
                "",
                &[
                    ("role", "dialog"),
                    ("id", "add-dialog"),
                    ("aria-label", "Add a note"),
                ],
            ),
        ],
    );
    let (t, _) = tier(&c, "New");
    assert_eq!(t, W, "a new item exists once \"New\" is pressed");

    // Beside a data grid's search box (no `<form>`): the box holds a query, not what
    // "Create" would save; the button opens an editor.
    let mut search = el(
        "input",
        Some(1),
        "",
        &[("type", "search"), ("placeholder", "Search items")],
    );
    search.label = String::new();
    let c2 = page(
        "http://127.0.0.1:1/items",
        "Items",
        vec![
            el("main", None, "", &[]),
            el("div", Some(0), "", &[("class", "grid-toolbar")]),
            search,
            el("button", Some(1), "Create", &[("type", "button")]),
        ],
    );
    assert_eq!(tier(&c2, "Create").0, R);
    for label in ["Create", "Add"] {
        let (t, conf) = tier(&c, label);
        assert_eq!(t, R, "{label}");
        assert!(conf >= 0.80, "{label}: {conf}");
    }
}

#[test]
fn a_plain_add_form_saves_above_the_reversible_floor() {
    // A title, a number, a select and the button; posted, or sent by the page's script
    // (no method). "Insert" as a database browser's form says it.
    for (method, button) in [
        (Some("post"), "Create"),
        (None, "Save"),
        (None, "Add"),
        (Some("post"), "Insert"),
    ] {
        let mut form_attrs = vec![("action", "")];
        if let Some(m) = method {
            form_attrs.push(("method", m));
        }
        let c = page(
            "http://127.0.0.1:1/admin/item/new/",
            "Item - Admin",
            vec![
                el("main", None, "", &[]),
                el("form", Some(0), "", &form_attrs),
                labelled("input", 1, "Title", &[("type", "text"), ("name", "title")]),
                labelled(
                    "input",
                    1,
                    "Quantity",
                    &[("type", "number"), ("name", "qty")],
                ),
                labelled(
                    "select",
                    1,
                    "Status",
                    &[("name", "status"), ("options", "[\"open\",\"closed\"]")],
                ),
                el(
                    "input",
                    Some(1),
                    "",
                    &[("type", "submit"), ("value", button)],
                ),
                el("a", Some(1), "Cancel", &[("href", "/admin/item/")]),
            ],
        );
        let (t, conf) = tier(&c, button);
        assert_eq!(t, W, "{button}");
        assert!(conf >= 0.80, "{button} ({method:?}): {conf}");
    }
}

#[test]
fn an_undoing_verb_counts_only_in_the_same_group() {
    // A side panel's "Close" does not make the header's "Open menu" undoable.
    let c = page(
        "http://127.0.0.1:1/app",
        "App",
        vec![
            el("header", None, "", &[]),
            el("button", Some(0), "Open menu", &[("type", "button")]),
            el("aside", None, "", &[("aria-label", "Details")]),
            el("button", Some(2), "Close", &[("type", "button")]),
        ],
    );
    let (name, _) = action(&c, "Open menu");
    assert!(
        !c.explain[name]
            .signals
            .iter()
            .any(|s| s.starts_with("inverse_pair")),
        "{:?}",
        c.explain[name].signals
    );
    assert_ne!(tier(&c, "Open menu").0, W);

    // In one toolbar, the pair counts.
    let c = page(
        "http://127.0.0.1:1/thread/4",
        "Thread",
        vec![
            el("main", None, "", &[]),
            el(
                "div",
                Some(0),
                "",
                &[("role", "toolbar"), ("aria-label", "Thread")],
            ),
            el("button", Some(1), "Mute", &[("type", "button")]),
            el("button", Some(1), "Unmute", &[("type", "button")]),
        ],
    );
    let (name, _) = action(&c, "Mute");
    assert!(c.explain[name]
        .signals
        .iter()
        .any(|s| s.starts_with("inverse_pair")));
}

#[test]
fn a_yes_verb_confirmation_page_is_as_sure_as_its_verb() {
    let c = page(
        "http://127.0.0.1:1/pages/7/publish",
        "Publish page",
        vec![
            el("main", None, "", &[]),
            el("h1", Some(0), "Publish \"Roadmap\"?", &[]),
            el(
                "p",
                Some(0),
                "Everyone with the link will see this page.",
                &[],
            ),
            el("form", Some(0), "", &[("method", "post"), ("action", "")]),
            el(
                "input",
                Some(3),
                "",
                &[("type", "hidden"), ("name", "csrf"), ("value", "x")],
            ),
            el("button", Some(3), "Yes, publish", &[("type", "submit")]),
            el("a", Some(3), "Cancel", &[("href", "/pages/7")]),
        ],
    );
    let (t, conf) = tier(&c, "Yes, publish");
    assert_eq!(t, I);
    assert!(conf >= 0.95, "{conf}");

    // A reversible verb stays reversible, and sure.
    let c = page(
        "http://127.0.0.1:1/pages/7/archive",
        "Archive page",
        vec![
            el("main", None, "", &[]),
            el("form", Some(0), "", &[("method", "post"), ("action", "")]),
            el("button", Some(1), "Yes, archive", &[("type", "submit")]),
            el("a", Some(1), "Cancel", &[("href", "/pages/7")]),
        ],
    );
    let (t, conf) = tier(&c, "Yes, archive");
    assert_eq!(t, W);
    assert!(conf >= 0.80, "{conf}");
}

#[test]
fn view_toggles_and_formatting_buttons_store_nothing() {
    let c = page(
        "http://127.0.0.1:1/notes/3",
        "Notes",
        vec![
            el(
                "button",
                None,
                "",
                &[("type", "button"), ("aria-label", "Hide sidebar")],
            ),
            el("main", None, "", &[]),
            el(
                "div",
                Some(1),
                "",
                &[("aria-label", "Editor"), ("role", "region")],
            ),
            el(
                "button",
                Some(2),
                "",
                &[("type", "button"), ("title", "Bold")],
            ),
            el(
                "button",
                Some(2),
                "",
                &[("type", "button"), ("title", "Wrap selection in brackets")],
            ),
            labelled("textarea", 2, "Text", &[]),
        ],
    );
    let (t, _) = tier(&c, "Hide sidebar");
    assert_eq!(t, R);
    for label in ["Bold", "Wrap selection in brackets"] {
        let (t, conf) = tier(&c, label);
        assert_eq!(t, W, "{label}");
        assert!(conf >= 0.80, "{label}: {conf}");
    }
    // Read from the label's words, it is no read when the visible text says otherwise.
    let c = page(
        "http://127.0.0.1:1/bank",
        "Bank",
        vec![
            el("main", None, "", &[]),
            el(
                "button",
                Some(0),
                "Wire all funds to savings",
                &[("type", "button"), ("aria-label", "Hide sidebar")],
            ),
        ],
    );
    assert_ne!(tier(&c, "Hide sidebar").0, R);
}

fn hidden(mut e: ElementRecord) -> ElementRecord {
    e.visible = false;
    e
}

fn signals<'a>(capture: &'a PageCapture, label: &str) -> &'a [String] {
    let (name, _) = action(capture, label);
    &capture.explain[name].signals
}

/// Whether the action bound to `label` has the signal `name`.
fn has_signal(capture: &PageCapture, label: &str, name: &str) -> bool {
    let found = signals(capture, label).iter().any(|s| s.starts_with(name));
    if !found {
        eprintln!("{label}: no {name} in {:?}", signals(capture, label));
    }
    found
}

#[test]
fn every_button_of_an_editors_formatting_toolbar_edits_the_text() {
    // A wiki's toolbar: `href="#"` links with only a title, most of them without a
    // formatting word, beside the text area of a comment form.
    let mut els = vec![
        el("main", None, "", &[]),
        el(
            "form",
            Some(0),
            "",
            &[("method", "post"), ("action", "/ticket/3")],
        ),
        el("fieldset", Some(1), "", &[]),
    ];
    for title in [
        "Bold text: **Example**",
        "Horizontal rule: ----",
        "Link: [http://www.example.com/ Example]",
        "Image: [[Image()]]",
        "Line break",
    ] {
        els.push(el("a", Some(2), "", &[("href", "#"), ("title", title)]));
    }
    els.push(labelled("textarea", 2, "Comment", &[("name", "comment")]));
    els.push(el(
        "input",
        Some(1),
        "",
        &[("type", "submit"), ("value", "Submit changes")],
    ));
    let c = page("http://127.0.0.1:1/ticket/3", "Ticket 3", els);
    for label in [
        "Bold text: **Example**",
        "Horizontal rule: ----",
        "Link: [http://www.example.com/ Example]",
        "Image: [[Image()]]",
        "Line break",
    ] {
        let (t, conf) = tier(&c, label);
        assert_eq!(t, W, "{label}");
        assert!(conf >= 0.80, "{label}: {conf}");
    }

    // An editor's frame with icon buttons: a deletion among them is still a deletion,
    // a menu button still opens its menu.
    let c = page(
        "http://127.0.0.1:1/notes#groceries",
        "Notes",
        vec![
            el("main", None, "", &[]),
            el(
                "div",
                Some(0),
                "",
                &[("role", "region"), ("aria-label", "Editor")],
            ),
            el("button", Some(1), "", &[("title", "Bold")]),
            el("button", Some(1), "", &[("title", "Strikethrough")]),
            el("button", Some(1), "", &[("title", "Quote")]),
            el("button", Some(1), "", &[("title", "Delete this note")]),
            el(
                "button",
                Some(1),
                "",
                &[("title", "Insert picture"), ("aria-expanded", "false")],
            ),
            labelled("textarea", 1, "Text", &[]),
        ],
    );
    assert_eq!(tier(&c, "Quote").0, W);
    assert_eq!(tier(&c, "Delete this note").0, I);
    assert_eq!(tier(&c, "Insert picture").0, R);

    // A post's buttons beside a reply box are no toolbar: nothing formats there.
    let c = page(
        "http://127.0.0.1:1/feed",
        "Feed",
        vec![
            el("main", None, "", &[]),
            el("article", Some(0), "", &[]),
            el("p", Some(1), "Shipping today!", &[]),
            el("button", Some(1), "Repost", &[("type", "button")]),
            el("button", Some(1), "Boost", &[("type", "button")]),
            el("button", Some(1), "Star", &[("type", "button")]),
            labelled("textarea", 1, "Reply", &[]),
        ],
    );
    for label in ["Repost", "Boost"] {
        assert!(!has_signal(&c, label, "formats_text"), "{label}");
        assert_eq!(tier(&c, label).0, I, "{label}");
    }
}

#[test]
fn helpers_that_change_a_forms_fields_are_reversible_writes() {
    // "Everyone" / "No one" tick the boxes of the form; nothing is sent until Save.
    let c = page(
        "http://127.0.0.1:1/bills/new",
        "New bill",
        vec![
            el("main", None, "", &[]),
            el("form", Some(0), "", &[("method", "post"), ("action", "")]),
            labelled("input", 1, "What?", &[("type", "text"), ("name", "what")]),
            el("div", Some(1), "", &[]),
            el("a", Some(3), "Everyone", &[("href", "#")]),
            el("a", Some(3), "No one", &[("href", "#")]),
            labelled(
                "input",
                3,
                "Ana",
                &[("type", "checkbox"), ("name", "for"), ("value", "1")],
            ),
            labelled(
                "input",
                3,
                "Ben",
                &[("type", "checkbox"), ("name", "for"), ("value", "2")],
            ),
            el(
                "input",
                Some(1),
                "",
                &[("type", "submit"), ("value", "Add")],
            ),
        ],
    );
    for label in ["Everyone", "No one"] {
        let (t, _) = tier(&c, label);
        assert_eq!(t, W, "{label}");
        assert!(has_signal(&c, label, "fills_form"));
    }

    // "Format" reformats the query in the box; "Run" sends it.
    let c = page(
        "http://127.0.0.1:1/db",
        "Query",
        vec![
            el("main", None, "", &[]),
            el("form", Some(0), "", &[("method", "get"), ("action", "/db")]),
            labelled("textarea", 1, "Query", &[("name", "sql")]),
            el("button", Some(1), "Format query", &[("type", "button")]),
            el(
                "input",
                Some(1),
                "",
                &[("type", "submit"), ("value", "Run")],
            ),
        ],
    );
    assert_eq!(tier(&c, "Format query").0, W);

    // "Delete <field>" beside the field it names empties it; "Delete this note" does not
    // name a field.
    let mut type_box = el(
        "input",
        Some(1),
        "",
        &[("type", "text"), ("placeholder", "content type")],
    );
    type_box.label = String::new();
    let c = page(
        "http://127.0.0.1:1/notes#draft",
        "Notes",
        vec![
            el("main", None, "", &[]),
            el("div", Some(0), "", &[]),
            type_box,
            el(
                "button",
                Some(1),
                "",
                &[
                    ("aria-label", "delete content type"),
                    ("title", "Delete content type"),
                ],
            ),
            el("button", Some(1), "", &[("title", "Delete this note")]),
        ],
    );
    let (t, conf) = tier(&c, "delete content type");
    assert_eq!(t, W);
    assert!(conf >= 0.80, "{conf}");
    assert_eq!(tier(&c, "Delete this note").0, I);
}

#[test]
fn menu_buttons_and_disclosures_read_wherever_they_are() {
    // A nav of dropdowns, one with ARIA and one without: links that go nowhere
    // (`javascript:`) act in the page, so each is an action of its own judged by its
    // words and ARIA, never one action choosing among them by text (Flask-Admin's "Add
    // Filter" and "With selected"; Grappelli's "Open All Items" and "Close All Items",
    // named by their titles, were one action no word of which was judged).
    let c = page(
        "http://127.0.0.1:1/admin/contacts/",
        "Contacts",
        vec![
            el("main", None, "", &[]),
            el("ul", Some(0), "", &[]),
            el("li", Some(1), "", &[]),
            el(
                "a",
                Some(2),
                "Add filter",
                &[("href", "javascript:void(0)")],
            ),
            hidden(el("a", Some(2), "City", &[("href", "javascript:void(0)")])),
            el("li", Some(1), "", &[]),
            el(
                "a",
                Some(5),
                "With selected",
                &[
                    ("href", "javascript:void(0)"),
                    ("role", "button"),
                    ("aria-haspopup", "true"),
                    ("aria-expanded", "false"),
                ],
            ),
            hidden(el(
                "a",
                Some(5),
                "Delete",
                &[("href", "javascript:void(0)")],
            )),
        ],
    );
    let (filter, a) = action(&c, "Add filter");
    assert_eq!(a.reversibility, R);
    let (selected, a) = action(&c, "With selected");
    assert_ne!(filter, selected);
    assert_eq!(a.reversibility, R);
    assert!(c.explain[selected]
        .signals
        .iter()
        .any(|s| s.starts_with("opens_popup")));
    let c = page(
        "http://127.0.0.1:1/admin/tasks/task/add/",
        "Add task",
        vec![
            el("nav", None, "", &[]),
            el("ul", Some(0), "", &[]),
            el("li", Some(1), "", &[]),
            el(
                "a",
                Some(2),
                "",
                &[("href", "javascript://"), ("title", "Open All Items")],
            ),
            el("li", Some(1), "", &[]),
            el(
                "a",
                Some(4),
                "",
                &[("href", "javascript://"), ("title", "Close All Items")],
            ),
        ],
    );
    let (open, a) = action(&c, "Open All Items");
    assert_eq!(a.reversibility, R);
    assert_ne!(open, action(&c, "Close All Items").0);

    // A disclosure drawn without ARIA: the user's name as a link going nowhere, right
    // before the list of links it shows (Grappelli's user menu), opens that part; a
    // verb beside such a list is still judged by its words.
    let c = page(
        "http://127.0.0.1:1/admin/",
        "Site administration",
        vec![
            el("header", None, "", &[]),
            el("ul", Some(0), "", &[("id", "user-tools")]),
            el("li", Some(1), "", &[("class", "grp-collapse grp-closed")]),
            el("a", Some(2), "admin", &[("href", "javascript://")]),
            el("ul", Some(2), "", &[]),
            hidden(el("li", Some(4), "", &[])),
            hidden(el(
                "a",
                Some(5),
                "Change password",
                &[("href", "/admin/password_change/")],
            )),
            hidden(el("li", Some(4), "", &[])),
            hidden(el("button", Some(7), "Log out", &[("type", "button")])),
            el("li", Some(1), "", &[]),
            el("a", Some(9), "Empty trash", &[("href", "javascript://")]),
            el("ul", Some(9), "", &[]),
            hidden(el("a", Some(11), "Trash", &[("href", "/trash/")])),
        ],
    );
    let (name, a) = action(&c, "admin");
    eprintln!("{name}: {:?}", c.explain[name].signals);
    assert_eq!(a.reversibility, R);
    assert!(has_signal(&c, "admin", "opens_popup"));
    assert!(!has_signal(&c, "Empty trash", "opens_popup"));

    // A hidden button beside a visible one is no menu: a state swaps them.
    let c = page(
        "http://127.0.0.1:1/builds/311",
        "Build",
        vec![
            el("main", None, "", &[]),
            el("section", Some(0), "", &[("aria-label", "Build")]),
            el("button", Some(1), "Cancel build", &[("type", "button")]),
            hidden(el("button", Some(1), "Retry build", &[("type", "button")])),
        ],
    );
    assert_eq!(tier(&c, "Cancel build").0, I);

    // A view toggle with a pressed state and a menu toggle: their verbs show or hide.
    let c = page(
        "http://127.0.0.1:1/files",
        "Files",
        vec![
            el("main", None, "", &[]),
            el("div", Some(0), "", &[("role", "toolbar")]),
            el(
                "button",
                Some(1),
                "",
                &[
                    ("aria-label", "Toggle file filter"),
                    ("aria-pressed", "false"),
                ],
            ),
            el(
                "button",
                Some(1),
                "",
                &[
                    ("aria-label", "Toggle navigation"),
                    ("aria-expanded", "false"),
                ],
            ),
        ],
    );
    for label in ["Toggle file filter", "Toggle navigation"] {
        let (t, conf) = tier(&c, label);
        assert_eq!(t, R, "{label}");
        assert!(conf >= 0.95, "{label}: {conf}");
    }
}

#[test]
fn submit_of_a_form_editing_a_record_saves_the_edit() {
    let form = |url: &str, legend: &str, value: &str| {
        page(
            url,
            "Bills",
            vec![
                el("main", None, "", &[]),
                el("form", Some(0), "", &[("method", "post")]),
                el("fieldset", Some(1), "", &[]),
                el("legend", Some(2), legend, &[]),
                labelled(
                    "input",
                    2,
                    "What?",
                    &[("type", "text"), ("name", "what"), ("value", value)],
                ),
                labelled(
                    "input",
                    2,
                    "How much?",
                    &[("type", "text"), ("name", "amount"), ("value", value)],
                ),
                el(
                    "input",
                    Some(1),
                    "",
                    &[("type", "submit"), ("value", "Submit")],
                ),
            ],
        )
    };
    let c = form(
        "http://127.0.0.1:1/demo/edit/1",
        "Edit this bill",
        "Groceries",
    );
    let (t, conf) = tier(&c, "Submit");
    assert_eq!(t, W);
    assert!(conf >= 0.80, "{conf}");
    // A new record's form headed "Add a bill": its "Submit" sends that record.
    let c = form("http://127.0.0.1:1/demo/add", "Add a bill", "");
    let (t, conf) = tier(&c, "Submit");
    assert_eq!(t, W);
    assert!(conf >= 0.80, "{conf}");
    // A heading that names anything more than storing a record leaves it strict.
    for legend in ["Add a comment", "New post", "Bill details", ""] {
        let c = form("http://127.0.0.1:1/demo/add", legend, "");
        assert_eq!(tier(&c, "Submit").0, I, "{legend}");
    }
}

#[test]
fn a_dialogs_title_says_what_its_forms_generic_submit_stores() {
    // A modal titled "Add a bill" above a form whose only button says "Submit".
    let dialog = |title: &str| {
        page(
            "http://127.0.0.1:1/demo/bills",
            "Bills",
            vec![
                el("main", None, "", &[]),
                el(
                    "div",
                    Some(0),
                    "",
                    &[("role", "dialog"), ("aria-labelledby", "t")],
                ),
                el("h3", Some(1), title, &[("id", "t")]),
                el("form", Some(1), "", &[("method", "post")]),
                labelled("input", 3, "What?", &[("type", "text"), ("name", "what")]),
                labelled(
                    "input",
                    3,
                    "How much?",
                    &[("type", "text"), ("name", "amount")],
                ),
                el(
                    "input",
                    Some(3),
                    "",
                    &[("type", "submit"), ("value", "Submit")],
                ),
            ],
        )
    };
    let (t, conf) = tier(&dialog("Add a bill"), "Submit");
    assert_eq!(t, W);
    assert!(conf >= 0.80, "{conf}");
    assert_eq!(tier(&dialog("Send a payment"), "Submit").0, I);
    assert_eq!(tier(&dialog("Are you sure?"), "Submit").0, I);
}

#[test]
fn a_bare_cancel_beside_another_button_of_a_formless_dialog_backs_out() {
    // marimo's "Save notebook": a Radix dialog with a file name box, "Cancel" and
    // "Save", buttons with no type and no `<form>`. "Cancel" was irreversible (0.64, the
    // word alone): beside another sending button it backs out, as in a `<form>`.
    let dialog = |buttons: &[&str]| {
        let mut els = vec![
            el("main", None, "", &[]),
            el(
                "div",
                Some(0),
                "",
                &[("role", "dialog"), ("aria-labelledby", "t")],
            ),
            el("h2", Some(1), "Save notebook", &[("id", "t")]),
            labelled(
                "input",
                1,
                "Filename",
                &[("type", "text"), ("name", "filename")],
            ),
        ];
        for b in buttons {
            els.push(el("button", Some(1), b, &[]));
        }
        page("http://127.0.0.1:1/", "notes.py", els)
    };
    let (t, conf) = tier(&dialog(&["Cancel", "Save"]), "Cancel");
    assert_eq!(t, R);
    assert!(conf >= 0.95, "{conf}");
    assert_eq!(tier(&dialog(&["Cancel", "Save"]), "Save").0, W);
    // Alone, "Cancel" is what the group sends: its word decides.
    assert_eq!(tier(&dialog(&["Cancel"]), "Cancel").0, I);
}

#[test]
fn a_form_with_no_button_does_what_its_one_field_says() {
    let mut entry = el(
        "input",
        Some(2),
        "",
        &[
            ("aria-label", "New todo"),
            ("placeholder", "What needs to be done?"),
        ],
    );
    entry.label = String::new();
    let c = page(
        "http://127.0.0.1:1/todos",
        "Todos",
        vec![
            el("main", None, "", &[]),
            el("header", Some(0), "", &[]),
            el("form", Some(1), "", &[]),
            entry,
        ],
    );
    let (name, a) = c
        .actions
        .iter()
        .find(|(_, a)| a.internal_target.ends_with("form:nth-of-type(2)"))
        .unwrap_or_else(|| {
            panic!(
                "no form action in {:?}",
                c.actions.keys().collect::<Vec<_>>()
            )
        });
    eprintln!("{name}: {:?}", c.explain[name].signals);
    assert_eq!(a.reversibility, W);
}

#[test]
fn a_reactivate_on_another_row_undoes_deactivate() {
    let list = |second: &str| {
        let mut els = vec![el("main", None, "", &[]), el("table", Some(0), "", &[])];
        for (i, label) in ["Deactivate", second].into_iter().enumerate() {
            let row = els.len() as u32;
            els.push(el("tr", Some(1), "", &[("id", &format!("member-{i}"))]));
            els.push(el("td", Some(row), &format!("Member {i}"), &[]));
            let cell = els.len() as u32;
            els.push(el("td", Some(row), "", &[]));
            let form = els.len() as u32;
            els.push(el(
                "form",
                Some(cell),
                "",
                &[
                    ("method", "post"),
                    // Deactivation posted to a deletion route: strict alone.
                    ("action", &format!("/members/{i}/delete")),
                ],
            ));
            els.push(el("button", Some(form), label, &[("type", "submit")]));
        }
        page("http://127.0.0.1:1/members", "Members", els)
    };
    let c = list("Reactivate");
    let (name, a) = c
        .explain
        .iter()
        .find(|(_, ex)| ex.elements.first().is_some_and(|e| e.text == "Deactivate"))
        .map(|(n, _)| (n, &c.actions[n]))
        .expect("deactivate");
    eprintln!("{name}: {:?}", c.explain[name].signals);
    assert_eq!(a.reversibility, W);
    assert!(c.explain[name]
        .signals
        .iter()
        .any(|s| s.starts_with("inverse_pair")));
    // Alone on the page, "Deactivate" stays strict.
    let c = list("Deactivate");
    assert!(c
        .actions
        .values()
        .all(|a| a.reversibility != W || a.internal_target.starts_with("builtin:")));
}

/// Buttons `labels` as children of one unrecorded `div` (the `n`th) inside record
/// `parent`, the way the extraction records them (a relative selector through the
/// `div`); `current` marks one with the class `selected`.
fn button_group(
    els: &mut Vec<ElementRecord>,
    parent: u32,
    n: usize,
    labels: &[&str],
    current: &[usize],
) {
    for (k, label) in labels.iter().enumerate() {
        let class = if current.contains(&k) {
            "unset svelte-4vmeqm selected"
        } else {
            "unset svelte-4vmeqm"
        };
        let mut b = el_at(
            "button",
            Some(parent),
            &format!("div:nth-of-type({n}) > button:nth-of-type({})", k + 1),
            label,
            &[("type", "button"), ("class", class)],
        );
        b.relative = true;
        els.push(b);
    }
}

#[test]
fn one_of_a_group_of_buttons_marked_current_switches_a_view() {
    // A report's chart switcher: buttons without a verb, one marked `selected`, in a
    // `div` the extraction did not record (their parent record is the article). Beside
    // them, in another `div`, a lone button without a verb.
    let mut els = vec![el("main", None, "", &[]), el("article", Some(0), "", &[])];
    button_group(
        &mut els,
        1,
        3,
        &["Net Profit", "Income (Monthly)", "Income", "Expenses"],
        &[0],
    );
    button_group(&mut els, 1, 4, &["Frobnicate"], &[]);
    let c = page("http://127.0.0.1:1/report", "Report", els);
    for label in ["Net Profit", "Income (Monthly)", "Income", "Expenses"] {
        let (t, conf) = tier(&c, label);
        assert_eq!(t, R, "{label}");
        assert!(conf >= 0.80, "{label}: {conf}");
        assert!(
            signals(&c, label)[0].starts_with("switches_view"),
            "{label}: {:?}",
            signals(&c, label)
        );
    }
    assert_eq!(tier(&c, "Frobnicate").0, I, "not of the group");

    // The mark says which view, not what a verb does: a deletion in such a group is
    // still a deletion, an archive still a write.
    let mut els = vec![el("main", None, "", &[]), el("section", Some(0), "", &[])];
    button_group(
        &mut els,
        1,
        1,
        &["Day", "Archive week", "Delete month"],
        &[0],
    );
    let c = page("http://127.0.0.1:1/calendar", "Calendar", els);
    assert_eq!(tier(&c, "Day").0, R);
    assert_eq!(tier(&c, "Archive week").0, W);
    assert_eq!(tier(&c, "Delete month").0, I);

    // No mark, two marks (independent toggles), pressed states (toggle buttons), a
    // form's buttons: no group switching a view, the verbless guess stands.
    for (current, pressed, form) in [
        (&[][..], false, false),
        (&[0, 1][..], false, false),
        (&[0][..], true, false),
        (&[0][..], false, true),
    ] {
        let mut els = vec![el("main", None, "", &[])];
        let parent = if form {
            els.push(el("form", Some(0), "", &[("method", "post")]));
            1
        } else {
            0
        };
        button_group(&mut els, parent, 1, &["Income", "Expenses"], current);
        if pressed {
            for e in els.iter_mut().filter(|e| e.tag == "button") {
                e.attrs.insert("aria-pressed".into(), "false".into());
            }
        }
        let c = page("http://127.0.0.1:1/report", "Report", els);
        for label in ["Income", "Expenses"] {
            let case = format!("{label}: current {current:?}, pressed {pressed}, form {form}");
            assert!(!has_signal(&c, label, "switches_view"), "{case}");
            assert_ne!(tier(&c, label).0, R, "{case}");
        }
    }
}

/// A form of one checkbox that posts as the box is switched (no button: the page's
/// script sends it; Calibre-Web's "Read" and "Archive" boxes): the box is the action,
/// a switch that can be switched back, above the reversible floor; its label names the
/// state it sets ("Read"), not a reading verb. A `get` form of one box filters: its
/// submit reads.
#[test]
fn a_form_of_switches_alone_is_its_switches() {
    let c = page(
        "http://127.0.0.1:1/book/4",
        "A Study in Scarlet",
        vec![
            el_at("h1", None, "h1", "A Study in Scarlet", &[]),
            el_at(
                "form",
                None,
                "#have_read_form",
                "",
                &[
                    ("id", "have_read_form"),
                    ("method", "POST"),
                    ("action", "/ajax/toggleread/4"),
                ],
            ),
            labelled(
                "input",
                1,
                "Read",
                &[
                    ("type", "checkbox"),
                    ("id", "have_read_cb"),
                    ("checked", "false"),
                ],
            ),
            el_at(
                "form",
                None,
                "#archived_form",
                "",
                &[
                    ("id", "archived_form"),
                    ("method", "POST"),
                    ("action", "/ajax/togglearchived/4"),
                ],
            ),
            labelled(
                "input",
                3,
                "Archive",
                &[
                    ("type", "checkbox"),
                    ("id", "archived_cb"),
                    ("checked", "false"),
                ],
            ),
            el_at(
                "form",
                None,
                "#filter",
                "",
                &[("id", "filter"), ("method", "get"), ("action", "/books")],
            ),
            labelled(
                "input",
                5,
                "Only unread",
                &[("type", "checkbox"), ("name", "unread")],
            ),
            // Boxes that a button outside their form sends (`form="prefs"`): a form.
            el_at(
                "form",
                None,
                "#prefs",
                "",
                &[("id", "prefs"), ("method", "post"), ("action", "/prefs")],
            ),
            labelled(
                "input",
                7,
                "Weekly digest",
                &[("type", "checkbox"), ("name", "digest")],
            ),
            el_at(
                "button",
                None,
                "#save-prefs",
                "Save preferences",
                &[("type", "submit"), ("form", "prefs"), ("id", "save-prefs")],
            ),
        ],
    );
    assert!(
        !c.actions.keys().any(|k| k.contains("weekly_digest")),
        "{:?}",
        c.actions.keys()
    );
    for label in ["Read", "Archive"] {
        let (name, a) = action(&c, label);
        assert!(name.starts_with("set_"), "{name}: {:?}", c.actions.keys());
        assert_eq!(a.reversibility, W, "{label}: {:?}", c.explain[name].signals);
        assert!(
            a.confidence >= 0.8,
            "{label}: {} {:?}",
            a.confidence,
            c.explain[name].signals
        );
    }
    assert!(
        !c.actions
            .keys()
            .any(|k| k.contains("read_form") || k.contains("archived_form")),
        "{:?}",
        c.actions.keys()
    );
    let filter = c
        .actions
        .iter()
        .find(|(_, a)| a.internal_target.contains("#filter"))
        .unwrap_or_else(|| panic!("{:?}", c.actions.keys()));
    assert_eq!(filter.1.reversibility, R, "{}", filter.0);
}

#[test]
fn a_number_fields_steppers_are_the_field_not_actions() {
    // A number field drawn with its own "−" and "+" buttons (Streamlit's "Decrement" and
    // "Increment", Dash's "Decrease value" and "Increase value"), in a form and not.
    // Typing the number is the field's action: its buttons are no action of their own,
    // do not take the form's fields as one, and do not count against the page.
    let stepped = |readonly: bool, in_form: bool| {
        let mut field = vec![("type", "number"), ("value", "0")];
        if readonly {
            field.push(("readonly", ""));
        }
        let mut els = vec![el("main", None, "", &[])];
        if in_form {
            els.push(el("form", Some(0), "", &[]));
        }
        let p = els.len() as u32 - 1;
        els.push(labelled("input", p, "Amount", &field));
        els.push(el(
            "button",
            Some(p),
            "\u{2212}",
            &[("type", "button"), ("aria-label", "Decrease value")],
        ));
        els.push(el(
            "button",
            Some(p),
            "",
            &[("type", "button"), ("aria-label", "Increment")],
        ));
        if in_form {
            els.push(el("button", Some(p), "Add expense", &[("type", "submit")]));
        }
        page("http://127.0.0.1:1/", "Expenses", els)
    };
    for in_form in [false, true] {
        let c = stepped(false, in_form);
        let bound: Vec<&str> = c
            .explain
            .values()
            .flat_map(|ex| ex.elements.iter().map(|e| e.text.as_str()))
            .collect();
        for label in ["Increment", "Decrease value"] {
            assert!(
                !bound.contains(&label),
                "in a form: {in_form}: {label} is offered: {:?}",
                c.actions.keys().collect::<Vec<_>>()
            );
        }
        assert!(
            c.confidence >= 0.9,
            "in a form: {in_form}: {}",
            c.confidence
        );
        if in_form {
            let (name, a) = action(&c, "Add expense");
            assert!(
                a.parameters.iter().any(|p| p.name == "amount"),
                "{name}: {:?}",
                a.parameters
            );
        }
    }
    // Beside a read-only quantity the buttons are the only way to change it: actions.
    let c = stepped(true, false);
    for label in ["Increment", "Decrease value"] {
        let (t, conf) = tier(&c, label);
        assert_eq!(t, W, "{label}");
        assert!(conf >= 0.80, "{label}: {conf}");
    }
}

#[test]
fn a_select_drawn_as_a_button_is_named_by_what_it_chooses() {
    // A custom select's trigger shows the value chosen ("Acme"), not what it does: a
    // Dash dropdown, a Headless UI listbox button.
    let c = page(
        "http://127.0.0.1:1/",
        "Stock",
        vec![
            el("main", None, "", &[]),
            el(
                "button",
                Some(0),
                "Acme",
                &[
                    ("id", "supplier"),
                    ("type", "button"),
                    ("aria-haspopup", "listbox"),
                    ("aria-expanded", "false"),
                ],
            ),
            el("p", Some(0), "Plan", &[]),
            el(
                "button",
                Some(0),
                "Basic",
                &[("type", "button"), ("aria-haspopup", "listbox")],
            ),
        ],
    );
    for (label, want) in [("Acme", "choose_supplier"), ("Basic", "choose_plan")] {
        let (name, a) = action(&c, label);
        assert_eq!(name, want, "{:?}", c.actions.keys().collect::<Vec<_>>());
        assert_eq!(a.reversibility, R, "{name}");
    }
    // Its open state goes by the same name, which stays when the value changes.
    let objects = serde_json::to_string(&c.objects).unwrap();
    assert!(
        objects.contains("choose_supplier_expanded") && !objects.contains("acme"),
        "{objects}"
    );
}

/// Buttons `labels` in a `<form>` of filters, each `type="button"` with the class
/// `word` when its index is in `marked`, and a title when it is a glyph.
fn filter_buttons(labels: &[&str], word: &str, marked: &[usize]) -> Vec<ElementRecord> {
    let mut els = vec![
        el("main", None, "", &[]),
        el("form", Some(0), "", &[("class", "filters")]),
    ];
    for (k, label) in labels.iter().enumerate() {
        let class = if marked.contains(&k) { word } else { "" };
        let title = format!("{label} entries");
        let mut attrs = vec![("type", "button"), ("class", class)];
        if label.chars().count() == 1 {
            attrs.push(("title", title.as_str()));
        }
        let mut b = el_at(
            "button",
            Some(1),
            &format!("button:nth-of-type({})", k + 1),
            label,
            &attrs,
        );
        b.relative = true;
        els.push(b);
    }
    els
}

#[test]
fn a_group_of_buttons_whose_class_says_on_or_off_toggles() {
    // A journal's entry-type filters: each shown or hidden (`inactive`), glyphs
    // titled; pressing one again puts it back.
    let labels = ["Balance", "Note", "*", "!", "Pad", "Delete"];
    let c = page(
        "http://127.0.0.1:1/journal",
        "Journal",
        filter_buttons(&labels, "inactive", &[0, 2, 4]),
    );
    for label in ["Balance", "Note", "*", "!", "Pad"] {
        let (t, conf) = tier(&c, label);
        assert_eq!(t, W, "{label}");
        assert!(conf >= 0.8, "{label}: {conf}");
        assert!(has_signal(&c, label, "toggle_state"));
    }
    // Its own words outweigh the structure, and danger styling cancels it.
    assert_eq!(tier(&c, "Delete").0, I);
    let mut els = filter_buttons(&labels, "inactive", &[0, 2, 4]);
    els[5].attrs.insert("class".into(), "btn-danger".into());
    let c = page("http://127.0.0.1:1/journal", "Journal", els);
    assert!(!has_signal(&c, "!", "toggle_state"));
    assert!(has_signal(&c, "Note", "toggle_state"));

    // One marked among equals is a view switch, and so is one left unmarked: no
    // toggle.
    for marked in [&[1][..], &[0, 1, 2, 3, 5][..]] {
        let c = page(
            "http://127.0.0.1:1/journal",
            "Journal",
            filter_buttons(&labels[..5], "inactive", marked),
        );
        assert!(
            !has_signal(&c, "Note", "toggle_state"),
            "{marked:?}: {:?}",
            signals(&c, "Note")
        );
    }
}

/// A table whose header cells are `clickable` (the page listens for clicks on them),
/// one cell per label, with one body row; `wrap` puts each label in a clickable `span`
/// inside a plain `th` instead (a sort button filling the header).
fn table_with_headers(labels: &[&str], in_thead: bool, wrap: bool) -> Vec<ElementRecord> {
    let mut els = vec![
        el("main", None, "", &[]),
        el("table", Some(0), "", &[]),
        el(if in_thead { "thead" } else { "tbody" }, Some(1), "", &[]),
        el("tr", Some(2), "", &[]),
    ];
    for label in labels {
        let mut th = el("th", Some(3), label, &[]);
        th.clickable = !wrap;
        let at = els.len() as u32;
        els.push(th);
        if wrap {
            let mut span = el("span", Some(at), label, &[("class", "label")]);
            span.clickable = true;
            els.push(span);
        }
    }
    let body = els.len() as u32;
    els.push(el("tbody", Some(1), "", &[]));
    els.push(el("tr", Some(body), "", &[]));
    for value in labels.iter().map(|l| format!("{l} of the row")) {
        els.push(el("td", Some(body + 1), &value, &[]));
    }
    els
}

#[test]
fn a_column_header_the_page_listens_to_sorts_the_table() {
    // Quasar's and Vuetify's tables listen for clicks on every header cell; MUI's and
    // Ant's put a sort button in it. Either way a column's name, clicked, sorts.
    for wrap in [false, true] {
        let c = page(
            "http://127.0.0.1:1/tasks",
            "Tasks",
            table_with_headers(&["Title", "Owner", "Due date"], true, wrap),
        );
        for label in ["Title", "Owner", "Due date"] {
            let (t, conf) = tier(&c, label);
            assert_eq!(t, R, "{label}, wrapped {wrap}");
            assert!(conf >= 0.60, "{label}: {conf}");
            assert!(has_signal(&c, label, "sorts_column"));
        }
        assert_eq!(action(&c, "Due date").0, "sort_by_due_date");
    }

    // A header's own verb outweighs the structure: a "Delete" header stays a deletion
    // and keeps its name.
    let c = page(
        "http://127.0.0.1:1/tasks",
        "Tasks",
        table_with_headers(&["Title", "Delete"], true, false),
    );
    assert_eq!(tier(&c, "Delete").0, I);
    assert_eq!(action(&c, "Delete").0, "delete");

    // A `th` of a body row is a row's header, not a column's: no such evidence.
    let c = page(
        "http://127.0.0.1:1/tasks",
        "Tasks",
        table_with_headers(&["Title"], false, false),
    );
    assert!(!has_signal(&c, "Title", "sorts_column"));
    assert_ne!(tier(&c, "Title").0, R);
}

/// A journal drawn as lists (Fava's shape): a header row `li.head` of column names,
/// buttons but "Balance", in a list of its own right before the rows' list when
/// `apart`, else first in it; three rows of a date link, a payee and an amount; a select
/// beside the lists (a chart's interval, no `<form>`). `header` adds its attributes to
/// the header row.
fn drawn_journal(columns: &[&str], apart: bool, header: &[(&str, &str)]) -> Vec<ElementRecord> {
    let mut els = vec![el("main", None, "", &[])];
    els.push(labelled(
        "select",
        0,
        "Interval",
        &[("name", "interval"), ("value", "monthly")],
    ));
    let mut attrs = vec![("class", "head")];
    attrs.extend_from_slice(header);
    let words = columns.join(" ") + " Balance";
    els.push(el("ol", Some(0), "", &[("class", "flex-table")]));
    els.push(el("li", Some(2), &words, &attrs));
    for (n, c) in columns.iter().enumerate() {
        els.push(el_at(
            "button",
            Some(3),
            &format!("p > button:nth-of-type({})", n + 1),
            c,
            &[("type", "button")],
        ));
    }
    els.push(el_at(
        "span",
        Some(3),
        "p > span",
        "Balance",
        &[("class", "num")],
    ));
    let list = if apart {
        els.push(el("ol", Some(0), "", &[("class", "flex-table journal")]));
        els.len() as u32 - 1
    } else {
        2
    };
    for (n, (date, payee, amount)) in [
        ("2026-11-03", "Landlord", "-900.00"),
        ("2026-11-01", "Employer", "2500.00"),
        ("2026-01-01", "Opening", "1000.00"),
    ]
    .into_iter()
    .enumerate()
    {
        let row = els.len() as u32;
        let href = format!("#context-{n}");
        els.push(el(
            "li",
            Some(list),
            &format!("{date} {payee} {amount}"),
            &[("class", "transaction")],
        ));
        els.push(el_at("a", Some(row), "p > a", date, &[("href", &href)]));
        els.push(el_at(
            "strong",
            Some(row),
            "p > strong",
            payee,
            &[("class", "payee")],
        ));
        els.push(el_at(
            "span",
            Some(row),
            "p > span",
            amount,
            &[("class", "num")],
        ));
    }
    els
}

#[test]
fn a_header_row_drawn_as_a_list_row_sorts_and_is_no_record() {
    for (apart, class) in [
        (true, "head"),
        (false, "head"),
        (false, "gridHeader"),
        (true, "list__header"),
    ] {
        let c = page(
            "http://127.0.0.1:1/journal",
            "Journal",
            drawn_journal(
                &["Date", "Payee/Narration", "Cost / Change"],
                apart,
                &[("class", class)],
            ),
        );
        for (label, name) in [
            ("Date", "sort_by_date"),
            ("Payee/Narration", "sort_by_payee_narration"),
            // "Change" is a verb, and a field is beside it: still a column's name,
            // and no form's submit.
            ("Cost / Change", "sort_by_cost_change"),
        ] {
            let (t, _) = tier(&c, label);
            assert_eq!(t, R, "{label}, apart {apart}");
            assert!(has_signal(&c, label, "sorts_column"));
            let (n, a) = action(&c, label);
            assert_eq!(n, name);
            assert!(a.parameters.is_empty(), "{label}: {}", a.signature);
        }
        // The rows are the records; the header's words are none of them.
        let objects = serde_json::to_string(&c.objects).unwrap();
        assert!(
            objects.contains("Landlord") && objects.contains("Opening"),
            "{objects}"
        );
        assert!(
            !objects.contains("Balance") && !objects.contains("head"),
            "{objects}"
        );
        let records = c.objects.keys().filter(|k| k.contains("[2]")).count();
        assert!(records > 0, "{:#?}", c.objects);
        assert!(
            !c.objects.keys().any(|k| k.contains("[3]")),
            "{:#?}",
            c.objects
        );
    }

    // The header's own verb outweighs the structure, as in a table's header.
    let c = page(
        "http://127.0.0.1:1/journal",
        "Journal",
        drawn_journal(&["Date", "Delete"], false, &[]),
    );
    assert_eq!(tier(&c, "Delete").0, I);
    assert_eq!(action(&c, "Delete").0, "delete");

    // A row classed `head` that holds data (a link) is a row like the others: a record,
    // and its buttons sort nothing.
    let mut els = drawn_journal(&["Date"], false, &[]);
    els.push(el_at(
        "a",
        Some(3),
        "p > a",
        "Everything",
        &[("href", "/all")],
    ));
    els[3].text.push_str(" Everything");
    let c = page("http://127.0.0.1:1/journal", "Journal", els);
    assert!(!has_signal(&c, "Date", "sorts_column"));
    let objects = serde_json::to_string(&c.objects).unwrap();
    assert!(objects.contains("Balance"), "{objects}");
}

/// A page of one button, `label`, that submits nothing.
fn one_button(label: &str) -> PageCapture {
    page(
        "http://127.0.0.1:1/",
        "App",
        vec![
            el("main", None, "", &[]),
            el("button", Some(0), label, &[("type", "button")]),
        ],
    )
}

#[test]
fn a_settings_button_opens_them_and_a_verb_on_them_writes() {
    // "Settings" and "Preferences" alone open a view, as "Details" and "Help" do (every
    // Gradio app's footer has a "Settings" button); a verb on them still decides.
    let one = |label: &str| tier(&one_button(label), label);
    // A "Menu" button (Actual Budget's on each file's row) opens one.
    for label in ["Settings", "Preferences", "Show settings", "Menu"] {
        let (t, conf) = one(label);
        assert_eq!(t, R, "{label}");
        assert!(conf >= 0.8, "{label}: {conf}");
    }
    for label in [
        "Apply settings",
        "Reset settings",
        "Delete preferences",
        "Save settings",
        "Delete menu",
    ] {
        assert_ne!(one(label).0, R, "{label}");
    }
}

/// The tier of a button labelled `label` that posts its form to the server.
fn posted(label: &str) -> (Reversibility, f64) {
    let c = page(
        "http://127.0.0.1:1/",
        "Watches",
        vec![
            el("main", None, "", &[]),
            el(
                "form",
                Some(0),
                "",
                &[("method", "post"), ("action", "/toggle")],
            ),
            el("button", Some(1), label, &[("type", "submit")]),
        ],
    );
    tier(&c, label)
}

/// Each of `labels` on a posting button is a reversible write sure enough to pass.
fn posted_are_writes(labels: &[&str]) {
    for label in labels {
        let (t, conf) = posted(label);
        assert_eq!(t, W, "{label}");
        assert!(conf >= 0.8, "{label}: {conf}");
    }
}

#[test]
fn pausing_is_undone_by_resuming_whether_it_posts_or_not() {
    // "Pause checks" posting to the server (changedetection.io's watch list) was a read
    // word contradicted by a POST, and went to a person as `irreversible` 0.37; a pause
    // is a change its resume takes back, in a form or in a media player.
    posted_are_writes(&["Pause checks", "Pause", "Unpause", "Resume"]);
    let (t, conf) = tier(&one_button("Pause"), "Pause");
    assert_eq!(t, W);
    assert!(conf >= 0.8, "{conf}");
}

#[test]
fn a_link_with_a_data_method_sends_a_request_and_is_no_read() {
    // changedetection.io's "Clone & Edit" is a link Rails-style scripts turn into a POST
    // (`data-method="post"`): the link's structure was still counted (+3 `read`), and it
    // passed the gate as a `read` at 0.66, ungated. It does not navigate, so it is
    // weighed as the request it sends and named for what it does.
    let page_with = |method: Option<&str>| {
        let mut attrs = vec![("href", "/api/clone?uuid=1")];
        if let Some(m) = method {
            attrs.push(("data-method", m));
        }
        page(
            "http://127.0.0.1:1/edit/1",
            "Edit",
            vec![
                el("main", None, "", &[]),
                el("a", Some(0), "Clone & Edit", &attrs),
            ],
        )
    };
    let c = page_with(Some("post"));
    let (name, a) = action(&c, "Clone & Edit");
    assert_eq!(name, "clone_edit", "{a:#?}");
    // A clone is a copy the app makes, deleted like any other (as a duplicate is).
    assert_eq!(a.reversibility, W, "{a:#?}");
    assert!(a.description.contains("POST"), "{a:#?}");
    for label in ["Clone", "Clone project", "Duplicate"] {
        assert_eq!(tier(&one_button(label), label).0, W, "{label}");
    }
    // The same link without the attribute navigates: a read, as before.
    let c = page_with(None);
    let (name, a) = action(&c, "Clone & Edit");
    assert_eq!(name, "open_clone_edit", "{a:#?}");
    assert_eq!(a.reversibility, R, "{a:#?}");
    // `data-method="get"` is a link like any other.
    assert_eq!(tier(&page_with(Some("get")), "Clone & Edit").0, R);
}

#[test]
fn a_search_box_is_no_parameter_of_the_buttons_beside_it() {
    // Actual Budget's records are too flat to tell its toolbar from its sidebar: every
    // button outside a form took the transactions' search box as a parameter
    // (`add_account(search?)`, `add_new(search?)`). A search box is how the page finds
    // things; a button outside any form sends it only when the box names the button's
    // verb ("Search or add a tag" beside "Add").
    let c = page(
        "http://127.0.0.1:1/accounts/1",
        "Checking",
        vec![
            el("main", None, "", &[]),
            el(
                "input",
                Some(0),
                "",
                &[("placeholder", "Search"), ("value", "")],
            ),
            el("button", Some(0), "Add New", &[("type", "button")]),
            el("button", Some(0), "Save", &[("type", "button")]),
            el("input", Some(0), "", &[("type", "search"), ("name", "q")]),
        ],
    );
    for label in ["Add New", "Save"] {
        let (name, a) = action(&c, label);
        assert!(a.parameters.is_empty(), "{name}: {a:#?}");
    }
    let c = page(
        "http://127.0.0.1:1/notes/1",
        "Note",
        vec![
            el("main", None, "", &[]),
            el(
                "input",
                Some(0),
                "",
                &[
                    ("placeholder", "Search or add a tag"),
                    ("name", "tag"),
                    ("value", ""),
                ],
            ),
            el("button", Some(0), "Add", &[("type", "button")]),
        ],
    );
    let (name, a) = action(&c, "Add");
    assert_eq!(a.parameters.len(), 1, "{name}: {a:#?}");
}

/// A label of one letter or sign names nothing a model can read: the control's title
/// names its action ("x" titled "Other transactions"), and a sign that named no action
/// at all ("*") now does. A title that puts a verb before the label's words ("Toggle
/// metadata" on "Metadata") opens the name with it. Links keep the name of where they
/// lead, a label with its own verb keeps it, and the name never moves the tier.
#[test]
fn a_glyphs_title_names_its_action_and_a_titles_verb_opens_a_name() {
    // A journal's buttons, each with its title when it has one ("" for none).
    let journal = |buttons: &[(&str, &str)], more: Vec<ElementRecord>| {
        let mut els = vec![el("main", None, "", &[])];
        for (label, title) in buttons {
            let mut attrs = vec![("type", "button")];
            if !title.is_empty() {
                attrs.push(("title", title));
            }
            els.push(el("button", Some(0), label, &attrs));
        }
        els.extend(more);
        page("http://127.0.0.1:1/journal", "Journal", els)
    };
    let capture = journal(
        &[
            ("x", "Other transactions"),
            ("*", "Cleared transactions"),
            ("B", ""),
            ("Metadata", "Toggle metadata"),
            ("Save", "Save changes"),
            ("?", "?"),
        ],
        vec![el(
            "a",
            Some(0),
            "Name",
            &[("href", "?sort=name"), ("title", "Sort by name")],
        )],
    );
    let name = |label: &str| action(&capture, label).0.to_owned();
    assert_eq!(name("x"), "other_transactions");
    assert!(
        capture.actions["other_transactions"]
            .description
            .contains("\"x\" (titled \"Other transactions\")"),
        "{:?}",
        capture.actions["other_transactions"].description
    );
    assert_eq!(name("*"), "cleared_transactions");
    assert_eq!(name("B"), "b");
    assert_eq!(name("Metadata"), "toggle_metadata");
    assert_eq!(name("Save"), "save");
    assert_eq!(name("Name"), "open_name");
    assert!(!capture
        .explain
        .values()
        .any(|ex| ex.elements.iter().any(|e| e.text == "?")));
    // The tier is the label's and the title's evidence, whatever the name.
    let untitled = journal(&[("x", ""), ("Metadata", "")], Vec::new());
    assert_eq!(tier(&capture, "x"), tier(&untitled, "x"));
    assert_eq!(tier(&capture, "Metadata").0, W);
}

#[test]
fn got_it_closes_a_tip() {
    // MLflow's first visit to an experiment: a guidance popover over the page.
    let c = page(
        "http://127.0.0.1:1/#/experiments/1/overview",
        "Overview - MLflow",
        vec![
            el(
                "div",
                None,
                "Detect issues in your traces",
                &[("role", "dialog"), ("aria-label", "Popover content")],
            ),
            el_at(
                "p",
                Some(0),
                "p:nth-of-type(1)",
                "Use this button to detect quality issues in your traces.",
                &[],
            ),
            el_at(
                "button",
                Some(0),
                "button:nth-of-type(1)",
                "",
                &[("type", "button"), ("aria-label", "Close guidance")],
            ),
            el_at(
                "button",
                Some(0),
                "button:nth-of-type(2)",
                "Got it",
                &[("type", "button")],
            ),
        ],
    );
    assert_eq!(tier(&c, "Got it").0, R);
}

#[test]
fn an_options_button_opens_its_options() {
    // Label Studio's project card and data manager tab: a menu of options, opened.
    let c = page(
        "http://127.0.0.1:1/projects/",
        "Projects | Label Studio",
        vec![
            el("main", None, "", &[]),
            el_at(
                "button",
                Some(0),
                "button:nth-of-type(1)",
                "",
                &[("type", "button"), ("aria-label", "Project options")],
            ),
        ],
    );
    assert_eq!(tier(&c, "Project options").0, R);
}

#[test]
fn a_radio_group_outside_a_form_is_a_choice_that_can_be_made_back() {
    // A toolbar's segmented control (Label Studio's density, Fava's chart): a native
    // radio button holds its checked state as `role=radio` does, and choosing another
    // option puts it back; a radio's label with a write verb still decides.
    let radio = |parent: u32, n: u32, value: &str, label: &str, checked: bool| {
        let mut e = el_at(
            "input",
            Some(parent),
            &format!("div:nth-of-type({n}) > label:nth-of-type(1) > input:nth-of-type(1)"),
            "",
            &[("type", "radio"), ("value", value)],
        );
        if checked {
            e.attrs.insert("checked".into(), "true".into());
        }
        e.label = label.into();
        e
    };
    let group = |id: &str, options: [(&str, &str, bool); 2]| {
        let mut els = vec![
            el("main", None, "", &[]),
            el_at("div", Some(0), "div:nth-of-type(1)", "", &[("id", id)]),
        ];
        for (n, (value, label, checked)) in options.into_iter().enumerate() {
            els.push(radio(1, n as u32 + 1, value, label, checked));
        }
        page("http://127.0.0.1:1/settings", "Settings | Demo", els)
    };
    let set = |c: &PageCapture| {
        c.actions
            .iter()
            .find(|(n, _)| n.starts_with("set_"))
            .map(|(n, a)| (n.clone(), a.clone()))
            .unwrap_or_else(|| panic!("no choice in {:?}", c.actions.keys()))
    };
    let c = group(
        "toolbar",
        [
            ("comfortable", "Comfortable density", true),
            ("compact", "Compact density", false),
        ],
    );
    let (name, a) = set(&c);
    assert_eq!(name, "set_density", "{:?}", c.actions.keys());
    assert_eq!(a.reversibility, W);
    assert!(a.confidence >= 0.9, "{a:?}");
    let c = group(
        "danger",
        [
            ("keep", "Keep my account", true),
            ("delete", "Delete my account", false),
        ],
    );
    let (_, a) = set(&c);
    assert_ne!(
        (a.reversibility, a.confidence >= 0.8),
        (W, true),
        "a choice whose first option's words delete is no confident reversible write: {a:?}"
    );
}

#[test]
fn every_way_of_asking_confirm_first_counts_on_every_kind_of_control() {
    // Rails' `data-confirm`, Turbo's `data-turbo-confirm` and an inline `confirm()`
    // handler all mean the page asks before it acts. A form's submit button knew only
    // the first two, a row's control and a declared one only the first and the last.
    for attr in [
        ("data-confirm", "Sure?"),
        ("data-turbo-confirm", "Sure?"),
        ("onclick", "return confirm('Sure?')"),
    ] {
        let asks = |capture: &PageCapture, label: &str| {
            let (name, _) = action(capture, label);
            capture.explain[name]
                .signals
                .iter()
                .any(|s| s.starts_with("asks_confirmation"))
        };
        // A form's submit.
        let c = page(
            "http://127.0.0.1:1/notes/3/edit",
            "Edit note",
            vec![
                el(
                    "form",
                    None,
                    "",
                    &[("method", "post"), ("action", "/notes/3")],
                ),
                el(
                    "input",
                    Some(0),
                    "",
                    &[("name", "title"), ("value", "Milk")],
                ),
                el("button", Some(0), "Save", &[("type", "submit"), attr]),
            ],
        );
        assert!(asks(&c, "Save"), "{attr:?}: a form's submit");
        // A control repeated on a list's rows.
        let c = page(
            "http://127.0.0.1:1/notes",
            "Notes",
            vec![
                el("ul", None, "", &[("id", "notes")]),
                el("li", Some(0), "Milk", &[("data-id", "1")]),
                el("button", Some(1), "Archive", &[("type", "button"), attr]),
                el("li", Some(0), "Eggs", &[("data-id", "2")]),
                el("button", Some(3), "Archive", &[("type", "button"), attr]),
            ],
        );
        assert!(asks(&c, "Archive"), "{attr:?}: a row's control");
    }
}

#[test]
fn a_rows_reply_link_opens_its_editor_whether_or_not_the_page_listens_on_it() {
    // A comment thread (Isso's): each comment's "Reply" is a link going nowhere that
    // opens a reply box under it. The page's click listener on it, which the extension
    // reports, makes it no less a link: it is no plain clickable.
    for listened in [false, true] {
        let mut els = vec![
            el("main", None, "", &[]),
            el("ul", Some(0), "", &[("class", "comments")]),
        ];
        three_comments(
            &mut els,
            |_, said| el("li", Some(1), &format!("{said} Reply"), &[]),
            |li| {
                let mut reply = el("a", Some(li), "Reply", &[("href", "#")]);
                reply.clickable = listened;
                reply
            },
        );
        let c = page("http://127.0.0.1:1/post", "A post", els);
        let (name, a) = action(&c, "Reply");
        assert!(
            a.parameters.len() == 1,
            "{name}: one per row: {}",
            a.signature
        );
        assert_eq!(tier(&c, "Reply").0, R, "listened: {listened}");
        assert!(
            has_signal(&c, "Reply", "opens_editor"),
            "listened: {listened}"
        );
        assert!(!has_signal(&c, "Reply", "binding"), "listened: {listened}");
    }
}

/// A comment thread drawn as Isso draws it: its box for a new comment (no `<form>`),
/// then the comments (rows, as the extraction finds cards of one class), the readers'
/// with a "Reply", the agent's own with "Edit" and "Delete" (while it is edited,
/// "Save", "Cancel" and "Delete" under a field holding its text): links going nowhere.
fn comment_thread(editing: bool) -> PageCapture {
    page(
        "http://127.0.0.1:1/post",
        "A post",
        thread_elements(editing),
    )
}

/// Isso's box for a comment under `parent`: its text, the author's name, "Submit".
fn push_postbox(els: &mut Vec<ElementRecord>, parent: u32) {
    let bx = els.len() as u32;
    els.push(el("div", Some(parent), "", &[("class", "isso-postbox")]));
    els.push(labelled("textarea", bx, "Type Comment Here", &[]));
    els.push(labelled(
        "input",
        bx,
        "Name",
        &[("name", "author"), ("type", "text")],
    ));
    els.push(el(
        "input",
        Some(bx),
        "Submit",
        &[("type", "submit"), ("value", "Submit")],
    ));
}

fn thread_elements(editing: bool) -> Vec<ElementRecord> {
    let mut els = vec![
        el("main", None, "", &[]),
        el("div", Some(0), "", &[("id", "isso-thread")]),
    ];
    push_postbox(&mut els, 1);
    els.push(el("div", Some(1), "", &[("id", "isso-root")]));
    let link = |parent: u32, label: &str| listened("a", parent, label, &[("href", "#")]);
    let comment = |n: u32, said: &str| {
        let id = format!("isso-{n}");
        el(
            "div",
            Some(6),
            said,
            &[("id", &id), ("class", "isso-comment"), ("nsp-row", "")],
        )
    };
    three_comments(&mut els, comment, |row| link(row, "Reply"));
    let own = els.len() as u32;
    els.push(el(
        "div",
        Some(6),
        "",
        &[("id", "isso-4"), ("class", "isso-comment"), ("nsp-row", "")],
    ));
    els.push(el("div", Some(own), "", &[("class", "isso-text")]));
    if editing {
        els.push(el(
            "textarea",
            Some(own + 1),
            "",
            &[("class", "isso-textarea")],
        ));
    } else {
        els.push(el(
            "p",
            Some(own + 1),
            "Sea otters use stones as tools.",
            &[],
        ));
    }
    let footer = els.len() as u32;
    els.push(el(
        "div",
        Some(own),
        "",
        &[("class", "isso-comment-footer")],
    ));
    let labels: &[&str] = if editing {
        &["Save", "Cancel", "Delete"]
    } else {
        &["Edit", "Delete"]
    };
    for label in labels {
        els.push(link(footer, label));
    }
    els
}

#[test]
fn a_link_going_nowhere_sends_the_fields_beside_it_and_no_others() {
    let params = |c: &PageCapture, label: &str| -> Vec<String> {
        let (_, a) = action(c, label);
        a.parameters.iter().map(|p| p.name.clone()).collect()
    };
    let c = comment_thread(false);
    assert!(
        c.objects.keys().any(|k| k.ends_with("[3].text")),
        "the comments are records: {:?}",
        c.objects.keys().collect::<Vec<_>>()
    );
    assert_eq!(params(&c, "Submit"), ["type_comment_here", "author"]);
    assert!(
        params(&c, "Delete").is_empty(),
        "{:?}",
        params(&c, "Delete")
    );
    assert!(params(&c, "Edit").is_empty());

    // While the comment is edited, its "Save" (on that record alone) sends its text;
    // the new comment's "Submit" does not.
    let c = comment_thread(true);
    assert_eq!(params(&c, "Save").len(), 1, "{:?}", params(&c, "Save"));
    assert_eq!(tier(&c, "Save").0, W);
    assert_eq!(params(&c, "Submit"), ["type_comment_here", "author"]);
    assert!(
        params(&c, "Delete").is_empty(),
        "{:?}",
        params(&c, "Delete")
    );
}

#[test]
fn a_records_own_form_says_which_record_it_is_in() {
    // Isso's "Reply" under a comment opens a box like the thread's own inside that
    // comment: the same fields, the same "Submit". Told apart by the record, neither is
    // put to a person as the other's twin.
    let c = comment_thread(false);
    let reply = |c: &PageCapture| -> Vec<(String, f64, Vec<String>)> {
        c.actions
            .values()
            .filter(|a| a.description.contains("\"Submit\""))
            .map(|a| {
                let params = a.parameters.iter().map(|p| p.name.clone()).collect();
                (a.description.clone(), a.confidence, params)
            })
            .collect()
    };
    let alone = reply(&c);
    assert_eq!(alone.len(), 1, "{alone:?}");
    let mut els = thread_elements(false);
    let first = els
        .iter()
        .position(|e| e.attrs.get("id").map(String::as_str) == Some("isso-1"))
        .expect("the first comment") as u32;
    push_postbox(&mut els, first);
    let c = page("http://127.0.0.1:1/post", "A post", els);
    let both = reply(&c);
    assert_eq!(both.len(), 2, "{both:?}");
    let (main, own): (Vec<_>, Vec<_>) = both.iter().partition(|(d, ..)| !d.contains('['));
    assert_eq!(main.len(), 1, "{both:?}");
    assert!(own[0].0.ends_with("[0])"), "{both:?}");
    for (d, confidence, params) in &both {
        assert_eq!(params, &["type_comment_here", "author"], "{d}");
        assert_eq!(*confidence, alone[0].1, "{d}: no twin of the other");
    }
}

#[test]
fn a_password_alone_posted_to_a_login_address_logs_in() {
    // Isso's admin: "Administration secured by password:", a form of one password box
    // and no button, posted to `/login/`. It was `submit(password)` at
    // `irreversible_write` 0.86, put to a person; it logs in, which logging out undoes.
    let form = |action: &str| {
        page(
            "http://127.0.0.1:1/admin/",
            "Isso admin",
            vec![
                el("main", None, "", &[]),
                el(
                    "form",
                    Some(0),
                    "",
                    &[("method", "post"), ("action", action)],
                ),
                labelled(
                    "input",
                    1,
                    "password",
                    &[("type", "password"), ("name", "password")],
                ),
            ],
        )
    };
    let tier_of = |c: &PageCapture| {
        let a = c
            .actions
            .values()
            .find(|a| a.parameters.iter().any(|p| p.name == "password"))
            .unwrap_or_else(|| panic!("{:?}", c.actions.keys()));
        (a.reversibility, a.confidence)
    };
    let c = form("http://127.0.0.1:1/login/");
    let (t, conf) = tier_of(&c);
    assert_eq!(t, W, "{conf}");
    assert!(conf >= 0.80, "{conf}");
    // The same box posted elsewhere (a password confirming something) stays strict.
    assert_eq!(tier_of(&form("http://127.0.0.1:1/settings/delete")).0, I);
}

#[test]
fn a_link_with_no_address_the_page_listens_on_is_a_control() {
    // Isso's admin: each comment's "Delete" is `<a class="delete" onclick="…">`, with no
    // `href`, and so is "Log Out". Neither was offered at all: a link without an
    // address was no control, whatever the page did on its click.
    let mut els = vec![
        el("main", None, "", &[]),
        listened("a", 0, "Log Out", &[("id", "logout")]),
        el("div", Some(0), "", &[("id", "isso-root")]),
    ];
    three_comments(
        &mut els,
        |n, said| {
            el(
                "div",
                Some(2),
                said,
                &[("id", &format!("isso-{n}")), ("nsp-row", "")],
            )
        },
        |row| listened("a", row, "Delete", &[("class", "delete")]),
    );
    let c = page("http://127.0.0.1:1/admin/", "Isso admin", els);
    let (name, delete) = action(&c, "Delete");
    assert_eq!(
        delete.parameters.len(),
        1,
        "{name}: one per row: {}",
        delete.signature
    );
    assert_eq!(delete.reversibility, I);
    assert_eq!(tier(&c, "Log Out").0, W);
}

/// Three readers' comments: each the record `row(n, text)` makes, its text in a `p`,
/// and the control `control(record)` makes.
fn three_comments(
    els: &mut Vec<ElementRecord>,
    row: impl Fn(u32, &str) -> ElementRecord,
    control: impl Fn(u32) -> ElementRecord,
) {
    for (n, said) in [(1, "Otters."), (2, "Beavers."), (3, "Minks.")] {
        let r = els.len() as u32;
        els.push(row(n, said));
        els.push(el("p", Some(r), said, &[]));
        els.push(control(r));
    }
}

/// An element the page listens for clicks on.
fn listened(tag: &str, parent: u32, text: &str, attrs: &[(&str, &str)]) -> ElementRecord {
    let mut e = el(tag, Some(parent), text, attrs);
    e.clickable = true;
    e
}

#[test]
fn doing_a_read_again_on_the_servers_side_is_a_reversible_write() {
    // changedetection.io's "Recheck" (a row's button posting to `/checknow`), a media
    // library's "Rescan library": a new fetch or scan is stored, nothing is lost. With
    // no known verb they were irreversible at 0.64, sent to a person every time.
    posted_are_writes(&["Recheck", "Rescan library", "Refetch", "Resync"]);
}

#[test]
fn relaying_or_resending_a_message_reaches_other_people() {
    // MailDev's "Relay email" (an icon button in the open message's header) sends the
    // message on to its recipients' server: with no known verb it was irreversible at
    // 0.48, below the bar, and went to a person as a guess.
    for label in ["Relay email", "Resend invitation", "Relay"] {
        let (t, conf) = tier(&one_button(label), label);
        assert_eq!(t, I, "{label}");
        assert!(conf >= 0.95, "{label}: {conf}");
    }
}

/// Buttons `labels` as children of one unrecorded `div` inside record `parent`, each
/// with its class from `classes`.
fn styled_group(els: &mut Vec<ElementRecord>, parent: u32, labels: &[&str], classes: &[&str]) {
    for (k, (label, class)) in labels.iter().zip(classes).enumerate() {
        let mut b = el_at(
            "button",
            Some(parent),
            &format!("div:nth-of-type(1) > button:nth-of-type({})", k + 1),
            label,
            &[("class", class)],
        );
        b.relative = true;
        els.push(b);
    }
}

#[test]
fn one_of_three_buttons_styled_apart_switches_a_view() {
    // MailDev's message view: "HTML | Plain Text | Headers | Source", the shown one in
    // the accent colour by a utility class, no `selected`, no ARIA. Verbless, each was
    // irreversible at 0.48 and went to a person.
    const ON: &str = "px-4 py-2 border-b-2 border-primary text-primary";
    const OFF: &str = "px-4 py-2 border-b-2 border-transparent text-muted hover:text-fg";
    let tabs = ["HTML", "Plain Text", "Headers", "Source"];
    let mut els = vec![el("main", None, "", &[])];
    styled_group(&mut els, 0, &tabs, &[ON, OFF, OFF, OFF]);
    let c = page("http://127.0.0.1:1/", "MailDev", els);
    for label in tabs {
        let (t, conf) = tier(&c, label);
        assert_eq!(t, R, "{label}");
        assert!(conf >= 0.80, "{label}: {conf}");
        assert!(has_signal(&c, label, "switches_view"), "{label}");
    }

    // A message without HTML: its "HTML" disabled, greyed by a style of its own, the
    // shown view the plain text. The others still switch the view.
    let mut els = vec![el("main", None, "", &[])];
    styled_group(
        &mut els,
        0,
        &tabs,
        &[
            &format!("{OFF} cursor-not-allowed opacity-50"),
            ON,
            OFF,
            OFF,
        ],
    );
    els[1].disabled = true;
    let c = page("http://127.0.0.1:1/", "MailDev", els);
    for label in &tabs[1..] {
        assert_eq!(tier(&c, label).0, R, "{label}");
        assert!(has_signal(&c, label, "switches_view"), "{label}");
    }

    // Not a view switch: a toolbar whose primary button says a verb that writes, two
    // buttons (any two differ), three styles, all alike.
    let cases: [(&[&str], &[&str]); 4] = [
        (&["Save", "Preview", "Details"], &[ON, OFF, OFF]),
        (&["Income", "Expenses"], &[ON, OFF]),
        (&["Income", "Expenses", "Assets"], &[ON, OFF, "px-4 other"]),
        (&["Income", "Expenses", "Assets"], &[OFF, OFF, OFF]),
    ];
    for (labels, classes) in cases {
        let mut els = vec![el("main", None, "", &[])];
        styled_group(&mut els, 0, labels, classes);
        let c = page("http://127.0.0.1:1/", "Report", els);
        for label in labels {
            assert!(
                !has_signal(&c, label, "switches_view"),
                "{label} in {labels:?} {classes:?}"
            );
        }
    }
}

#[test]
fn a_group_of_tabs_is_the_children_of_its_tag() {
    // mitmweb's flow pane: a close button, then "Request | Response | Connection" as
    // links going nowhere, the shown one `active`. The close button beside them made
    // the group fail, and each tab was a guess at `irreversible_write` 0.48.
    let mut els = vec![el("main", None, "", &[])];
    let mut close = el_at(
        "button",
        Some(0),
        "nav:nth-of-type(1) > button:nth-of-type(1)",
        "Close",
        &[("class", "close-button")],
    );
    close.relative = true;
    els.push(close);
    for (k, label) in ["Request", "Response", "Connection"].iter().enumerate() {
        let class = if k == 0 { "active" } else { "" };
        let mut a = el_at(
            "a",
            Some(0),
            &format!("nav:nth-of-type(1) > a:nth-of-type({})", k + 1),
            label,
            &[("href", "#"), ("class", class)],
        );
        a.relative = true;
        els.push(a);
    }
    let c = page("http://127.0.0.1:1/", "mitmweb", els);
    for label in ["Request", "Response", "Connection"] {
        let (t, conf) = tier(&c, label);
        assert_eq!(t, R, "{label}");
        assert!(conf >= 0.80, "{label}: {conf}");
        assert!(has_signal(&c, label, "switches_view"), "{label}");
    }
}

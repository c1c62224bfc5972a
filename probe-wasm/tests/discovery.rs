//! Native tests of discovery on small hand-built snapshots: what each source produces,
//! the safety rules around tiers and secrets, bounds on hostile text, stable names, and
//! that an incremental update always equals a full analysis of the patched page.

#![cfg(not(target_arch = "wasm32"))]

use nsp_probe::{analyze_snapshot, Probe};
use nsp_protocol::snapshot::{ElementRecord, PageSnapshot, SnapshotPatch, Splice};
use nsp_protocol::{PageCapture, ProbeTier, Reversibility};
use serde_json::{json, Value};

mod support;
use support::{el, el_at};

fn snap(elements: Vec<ElementRecord>) -> PageSnapshot {
    PageSnapshot {
        url: "http://127.0.0.1:1/mail#inbox".into(),
        title: "Inbox".into(),
        site_name: Some("Demo Mail".into()),
        elements,
        ..PageSnapshot::default()
    }
}

fn analyze(s: &PageSnapshot) -> PageCapture {
    analyze_snapshot(s, ProbeTier::WasmInPage)
}

fn mailbox() -> PageSnapshot {
    snap(vec![
        el(
            "section",
            None,
            "",
            &[("id", "inbox"), ("aria-label", "Inbox")],
        ),
        el("span", Some(0), "3", &[("id", "unread-count")]),
        el("ul", Some(0), "", &[("id", "email-list")]),
        el(
            "li",
            Some(2),
            "",
            &[("data-email-id", "e1"), ("class", "email unread")],
        ),
        el("span", Some(3), "Hello", &[("class", "subject")]),
        el(
            "button",
            Some(3),
            "Archive",
            &[("type", "button"), ("class", "archive")],
        ),
        el(
            "li",
            Some(2),
            "",
            &[("data-email-id", "e2"), ("class", "email")],
        ),
        el("span", Some(6), "Lunch", &[("class", "subject")]),
        el(
            "button",
            Some(6),
            "Archive",
            &[("type", "button"), ("class", "archive")],
        ),
        el(
            "form",
            None,
            "",
            &[
                ("id", "compose"),
                ("method", "post"),
                ("aria-label", "Compose"),
            ],
        ),
        el(
            "input",
            Some(9),
            "",
            &[
                ("name", "to"),
                ("type", "email"),
                ("required", ""),
                ("value", ""),
            ],
        ),
        el(
            "input",
            Some(9),
            "",
            &[
                ("id", "pw"),
                ("name", "pw"),
                ("type", "password"),
                ("value_length", "7"),
            ],
        ),
        el("button", Some(9), "Send", &[("type", "submit")]),
    ])
}

#[test]
fn forms_rows_and_objects_from_a_mailbox() {
    let c = analyze(&mailbox());
    let send = &c.actions["send"];
    assert_eq!(send.reversibility, Reversibility::IrreversibleWrite);
    assert_eq!(send.signature, "fn(to: string, pw?: string) -> bool");
    let archive = &c.actions["archive"];
    assert_eq!(archive.reversibility, Reversibility::ReversibleWrite);
    assert_eq!(archive.signature, "fn(email_id: string) -> bool");
    assert_eq!(
        archive.parameters[0].allowed_values,
        Some(vec![json!("e1"), json!("e2")])
    );
    assert_eq!(
        archive.parameters[0].description,
        "Email id from inbox.email_list[N].email_id"
    );
    assert!(archive.internal_target.starts_with("row:"));
    assert_eq!(c.objects["inbox.unread_count"], json!(3));
    assert_eq!(c.objects["inbox.email_list[0].email_id"], json!("e1"));
    assert_eq!(c.objects["inbox.email_list[0].unread"], json!(true));
    assert_eq!(c.objects["inbox.email_list[1].subject"], json!("Lunch"));
    assert_eq!(c.objects["compose.pw_filled"], json!(true));
    assert!(!c.objects.contains_key("compose.pw_length"));
    assert!(!c.objects.contains_key("compose.pw"));
    assert!(c.actions.contains_key("read_text") && c.actions.contains_key("click"));
    assert_eq!(c.app_name, "Demo Mail");
    assert_eq!(c.context.view.as_deref(), Some("/mail#inbox"));
    assert!(c.confidence >= 0.95, "{}", c.confidence);
}

#[test]
fn the_same_page_gives_the_same_names_and_state() {
    let a = analyze(&mailbox());
    let b = analyze(&mailbox());
    assert_eq!(a, b);
    // A page that adds an unrelated region does not rename what was there.
    let mut more = mailbox();
    more.elements
        .push(el("button", None, "Help", &[("type", "button")]));
    let c = analyze(&more);
    for name in a.actions.keys() {
        assert!(c.actions.contains_key(name), "{name} was renamed");
    }
}

#[test]
fn page_declarations_are_trusted_but_never_lower_a_strong_tier() {
    let s = snap(vec![
        el(
            "button",
            None,
            "Delete forever",
            &[
                ("data-nsp-action", "purge"),
                ("data-nsp-reversibility", "read"),
            ],
        ),
        el(
            "button",
            None,
            "Archive",
            &[
                ("data-nsp-action", "archive_all"),
                ("data-nsp-reversibility", "reversible_write"),
            ],
        ),
        el(
            "button",
            None,
            "Click me",
            &[
                ("data-nsp-action", "click"),
                ("data-nsp-reversibility", "read"),
            ],
        ),
    ]);
    let c = analyze(&s);
    let purge = &c.actions["purge"];
    assert_eq!(purge.reversibility, Reversibility::IrreversibleWrite);
    // Under the irreversible floor: the person decides.
    assert!(purge.confidence < 0.95, "{purge:?}");
    assert_eq!(c.actions["archive_all"].confidence, 0.99);
    // A page cannot shadow a builtin.
    assert_eq!(c.actions["click"].internal_target, "builtin:click");
    assert!(c.actions.contains_key("click_2"));
}

#[test]
fn unknown_and_unlabelled_controls_lower_the_state_confidence() {
    let mut elements = vec![el("main", None, "", &[])];
    for _ in 0..8 {
        let mut d = el("div", Some(0), "", &[("class", "tile")]);
        d.clickable = true;
        elements.push(d);
    }
    let c = analyze(&snap(elements));
    assert!(c.confidence < 0.8, "{}", c.confidence);
    let reason = c.probe_metadata.confidence_reason.unwrap_or_default();
    // The reason says why: controls nothing names or understands.
    assert!(
        reason.contains("unnamed") || reason.contains("unclear"),
        "{reason}"
    );
}

#[test]
fn hostile_text_is_trimmed_and_bounded() {
    let long = "x".repeat(100_000);
    let s = snap(vec![
        el("button", None, &format!("Send\u{0}\u{7}{long}"), &[]),
        el(
            "span",
            None,
            &format!("\u{1b}[2J{long}"),
            &[("id", "notice")],
        ),
    ]);
    let c = analyze(&s);
    for (name, action) in &c.actions {
        assert!(name.len() <= 48, "{name}");
        assert!(action.description.chars().count() <= 200);
        assert!(!action.description.chars().any(char::is_control));
    }
    let text = serde_json::to_string(&c).unwrap();
    assert!(text.len() < 20_000, "{} bytes", text.len());
    assert!(!text.contains('\u{1b}') && !text.contains("\\u0000"));
}

#[test]
fn parent_cycles_and_forward_links_do_not_hang() {
    let mut a = el("div", Some(1), "", &[]);
    a.parent = Some(1);
    let b = el("button", Some(0), "Refresh", &[]);
    let c = analyze(&snap(vec![a, b]));
    assert!(c.actions.contains_key("refresh"));
}

#[test]
fn hidden_and_disabled_controls_are_not_offered() {
    let mut hidden = el("button", None, "Delete account", &[]);
    hidden.visible = false;
    let mut disabled = el("button", None, "Publish", &[]);
    disabled.disabled = true;
    let c = analyze(&snap(vec![
        hidden,
        disabled,
        el("button", None, "Save", &[]),
    ]));
    assert!(!c.actions.contains_key("delete_account"));
    assert!(!c.actions.contains_key("publish"));
    assert!(c.actions.contains_key("save"));
}

#[test]
fn webmcp_tools_become_declared_actions() {
    let mut s = snap(vec![]);
    s.tools = vec![nsp_protocol::snapshot::DeclaredTool {
        name: "getOrderStatus".into(),
        description: "Look up an order".into(),
        input_schema: json!({"type": "object", "properties": {
            "order": {"type": "string", "description": "Order number"},
            "verbose": {"type": "boolean"}}, "required": ["order"]}),
        read_only: Some(true),
        destructive: None,
    }];
    let c = analyze(&s);
    let tool = &c.actions["getOrderStatus"];
    assert_eq!(tool.reversibility, Reversibility::Read);
    assert_eq!(
        tool.signature,
        "fn(order: string, verbose?: boolean) -> object"
    );
    assert_eq!(tool.internal_target, "webmcp:getOrderStatus");
}

/// `probe`'s capture of `base`, its first.
fn first_capture(probe: &mut Probe, base: &PageSnapshot) -> PageCapture {
    serde_json::from_str(
        &probe
            .analyze_json(&serde_json::to_string(base).unwrap())
            .unwrap(),
    )
    .unwrap()
}

/// A patch of `base` that replaces its record `at` with `record`.
fn replace_one(base: &PageSnapshot, at: usize, record: ElementRecord) -> SnapshotPatch {
    SnapshotPatch {
        splices: vec![Splice {
            start: at as u32,
            delete: 1,
            insert: vec![record],
        }],
        url: base.url.clone(),
        title: base.title.clone(),
        ..SnapshotPatch::default()
    }
}

fn capture_after(probe: &mut Probe, patch: &SnapshotPatch, base: &PageSnapshot) -> Value {
    let full = analyze(&{
        let mut s = base.clone();
        s.apply(patch.clone()).unwrap();
        s
    });
    let delta: Value = match probe
        .update_json(&serde_json::to_string(patch).unwrap())
        .unwrap()
    {
        t if t.is_empty() => Value::Null,
        t => serde_json::from_str(&t).unwrap(),
    };
    json!({"full": {"objects": full.objects, "actions": full.actions, "confidence": full.confidence}, "delta": delta})
}

#[test]
fn updates_equal_full_analyses() {
    let base = mailbox();
    let mut probe = Probe::with_tier(ProbeTier::WasmInPage);
    let first = first_capture(&mut probe, &base);
    let mut objects = first.objects.clone();
    let mut actions = first.actions.clone();

    // A counter's text (the fast path), then a new row (the full path).
    let mut counter = base.elements[1].clone();
    counter.text = "2".into();
    let text_patch = replace_one(&base, 1, counter);
    let out = capture_after(&mut probe, &text_patch, &base);
    assert_eq!(out["delta"]["changed"], json!({"inbox.unread_count": 2}));
    for (k, v) in out["delta"]["changed"].as_object().unwrap() {
        objects.insert(k.clone(), v.clone());
    }
    assert_eq!(json!(objects), out["full"]["objects"]);

    let mut after_text = base.clone();
    after_text.apply(text_patch).unwrap();
    let mut list = after_text.elements[2..9].to_vec();
    list.extend([
        el(
            "li",
            Some(2),
            "",
            &[("data-email-id", "e3"), ("class", "email")],
        ),
        el("span", Some(9), "Invoice", &[("class", "subject")]),
        el(
            "button",
            Some(9),
            "Archive",
            &[("type", "button"), ("class", "archive")],
        ),
    ]);
    let row_patch = SnapshotPatch {
        splices: vec![Splice {
            start: 2,
            delete: 7,
            insert: list,
        }],
        url: base.url.clone(),
        title: base.title.clone(),
        ..SnapshotPatch::default()
    };
    let out = capture_after(&mut probe, &row_patch, &after_text);
    let delta = &out["delta"];
    for (k, v) in delta["changed"].as_object().unwrap() {
        objects.insert(k.clone(), v.clone());
    }
    for k in delta["removed"].as_array().unwrap() {
        objects.remove(k.as_str().unwrap());
    }
    assert_eq!(json!(objects), out["full"]["objects"]);
    actions = serde_json::from_value(delta["actions"].clone()).unwrap_or(actions);
    assert_eq!(json!(actions), out["full"]["actions"]);
    assert_eq!(
        actions["archive"].parameters[0].allowed_values,
        Some(vec![json!("e1"), json!("e2"), json!("e3")])
    );

    // Nothing changed: no delta.
    let nothing = SnapshotPatch {
        url: base.url.clone(),
        title: base.title.clone(),
        ..SnapshotPatch::default()
    };
    assert_eq!(
        probe
            .update_json(&serde_json::to_string(&nothing).unwrap())
            .unwrap(),
        ""
    );
}

#[test]
fn settling_raises_the_confidence_through_a_delta() {
    let mut base = mailbox();
    base.unsettled = true;
    let mut probe = Probe::with_tier(ProbeTier::WasmInPage);
    let first = first_capture(&mut probe, &base);
    assert!(first.confidence < 0.95 && !first.probe_metadata.settled);
    let settle = SnapshotPatch {
        url: base.url.clone(),
        title: base.title.clone(),
        unsettled: false,
        ..SnapshotPatch::default()
    };
    let delta: Value = serde_json::from_str(
        &probe
            .update_json(&serde_json::to_string(&settle).unwrap())
            .unwrap(),
    )
    .unwrap();
    assert!(delta["confidence"].as_f64().unwrap() >= 0.95, "{delta}");
    assert_eq!(delta["probe_metadata"]["settled"], true);
    assert_eq!(delta["changed"], json!({}));
}

#[test]
fn a_custom_listbox_in_a_form_is_a_parameter_with_its_options() {
    let page = snap(vec![
        el("form", None, "", &[("aria-label", "Support request")]),
        el(
            "input",
            Some(0),
            "",
            &[("name", "subject"), ("type", "text")],
        ),
        el(
            "div",
            Some(0),
            "",
            &[
                ("id", "message"),
                ("role", "textbox"),
                ("aria-label", "Message"),
                ("contenteditable", "true"),
            ],
        ),
        el(
            "ul",
            Some(0),
            "",
            &[
                ("id", "priority"),
                ("role", "listbox"),
                ("aria-label", "Priority"),
            ],
        ),
        el(
            "li",
            Some(3),
            "Low",
            &[("role", "option"), ("aria-selected", "false")],
        ),
        el(
            "li",
            Some(3),
            "Normal",
            &[("role", "option"), ("aria-selected", "true")],
        ),
        el(
            "li",
            Some(3),
            "High",
            &[("role", "option"), ("aria-selected", "false")],
        ),
        el("button", Some(0), "Send request", &[("type", "submit")]),
    ]);
    let capture = analyze(&page);
    let (name, send) = capture
        .actions
        .iter()
        .find(|(_, a)| a.internal_target.ends_with("button:nth-of-type(1)"))
        .expect("the form's submit is an action");
    let names: Vec<&str> = send.parameters.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        ["subject", "message", "priority"],
        "{name}: {send:#?}"
    );
    let priority = &send.parameters[2];
    assert_eq!(priority.type_name, "string");
    assert_eq!(
        priority.allowed_values,
        Some(vec![json!("Low"), json!("Normal"), json!("High")])
    );
    assert_eq!(priority.default_value, Some(json!("Normal")));
    // The listbox is filled by its own selector, not by its options'.
    let explain = &capture.explain[name];
    assert!(
        explain.parameters["priority"].ends_with("ul:nth-of-type(1)"),
        "{:?}",
        explain.parameters
    );
}

/// A table's labelled value read again from its cell alone (the fast path) is what a
/// full analysis reads, also when the cell empties: the key stays, with `""`.
#[test]
fn a_labelled_values_update_equals_a_full_analysis() {
    let mut els = vec![
        el("table", None, "", &[("id", "ticket")]),
        el("tbody", Some(0), "", &[]),
        el("tr", Some(1), "", &[]),
        el("th", Some(2), "Priority:", &[]),
        el("td", Some(2), "major", &[]),
        el("th", Some(2), "Milestone:", &[]),
        el("td", Some(2), "", &[]),
    ];
    els[0].selector = "#ticket".into();
    let base = PageSnapshot {
        url: "http://127.0.0.1:1/ticket/1".into(),
        title: "Ticket".into(),
        elements: els,
        ..PageSnapshot::default()
    };
    let mut probe = Probe::with_tier(ProbeTier::WasmInPage);
    let first = first_capture(&mut probe, &base);
    let key = |leaf: &str| {
        first
            .objects
            .keys()
            .find(|k| k.ends_with(leaf))
            .cloned()
            .unwrap_or_else(|| panic!("{leaf}: {:?}", first.objects))
    };
    let (priority, milestone) = (key("priority"), key("milestone"));
    assert_eq!(first.objects[&milestone], json!(""));
    let mut objects = first.objects.clone();
    let mut snapshot = base.clone();
    for (at, text) in [(6, "m1"), (4, ""), (6, "")] {
        let mut cell = snapshot.elements[at].clone();
        cell.text = text.into();
        let patch = replace_one(&snapshot, at, cell);
        let out = capture_after(&mut probe, &patch, &snapshot);
        snapshot.apply(patch).unwrap();
        for (k, v) in out["delta"]["changed"].as_object().into_iter().flatten() {
            objects.insert(k.clone(), v.clone());
        }
        for k in out["delta"]["removed"].as_array().into_iter().flatten() {
            objects.remove(k.as_str().unwrap());
        }
        assert_eq!(
            json!(objects),
            out["full"]["objects"],
            "after {text:?} at {at}"
        );
    }
    assert_eq!(objects[&priority], json!(""));
    assert_eq!(objects[&milestone], json!(""));
}

/// A row template writes its control's label the same way on every row: a menu's
/// "Admin" link and the signed-in user's name "admin" are two links, not one control
/// repeated on two rows (which would make either one reachable only by its position),
/// while "Replies (3)" and "Replies (5)" stay one control.
#[test]
fn labels_differing_in_case_are_different_controls() {
    // Calibre-Web's header: an upload form, then the links.
    let mut els = vec![
        el_at("ul", None, "#main-nav", "", &[("id", "main-nav")]),
        el_at("li", Some(0), "li:nth-of-type(1)", "", &[]),
        el_at(
            "form",
            Some(1),
            "#form-upload",
            "",
            &[("id", "form-upload"), ("method", "post")],
        ),
        el_at(
            "input",
            Some(2),
            "input",
            "",
            &[("type", "file"), ("name", "btn-upload")],
        ),
    ];
    for (n, (label, href)) in [
        ("Tasks", "/tasks"),
        ("Admin", "/admin/view"),
        ("admin", "/me"),
        ("Logout", "/logout"),
    ]
    .into_iter()
    .enumerate()
    {
        let li = els.len() as u32;
        els.push(el_at(
            "li",
            Some(0),
            &format!("li:nth-of-type({})", n + 2),
            label,
            &[],
        ));
        els.push(el_at("a", Some(li), "a", label, &[("href", href)]));
    }
    let c = analyze(&snap(els));
    let positional: Vec<&String> = c
        .actions
        .iter()
        .filter(|(_, a)| a.parameters.iter().any(|p| p.name == "index"))
        .map(|(n, _)| n)
        .collect();
    assert!(
        positional.is_empty(),
        "{positional:?}: {:?}",
        c.actions.keys()
    );
    assert!(!c.actions.contains_key("admin"), "{:?}", c.actions.keys());

    let mut els = vec![el_at("ul", None, "#threads", "", &[("id", "threads")])];
    for (n, (subject, count)) in [("Lunch", 3), ("Budget", 5)].into_iter().enumerate() {
        let li = els.len() as u32;
        els.push(el_at(
            "li",
            Some(0),
            &format!("li:nth-of-type({})", n + 1),
            &format!("{subject} Replies ({count})"),
            &[("data-thread-id", &format!("t{n}"))],
        ));
        els.push(el_at(
            "span",
            Some(li),
            "span",
            subject,
            &[("class", "subject")],
        ));
        els.push(el_at(
            "button",
            Some(li),
            "button",
            &format!("Replies ({count})"),
            &[("type", "button")],
        ));
    }
    let c = analyze(&snap(els));
    let replies: Vec<&String> = c
        .actions
        .keys()
        .filter(|n| n.starts_with("replies"))
        .collect();
    assert_eq!(replies.len(), 1, "{:?}", c.actions.keys());
}

/// A table whose owner column links each row's owner (one on two rows, others on one),
/// beside an "Edit" link of the same shape on every row: the owner links are one
/// `open_owner(name)` found by their place in the row, not an action per owner; their
/// labels are data, so an owner called "Delete Everything" makes nothing a write; the
/// "Edit" links stay their own action.
#[test]
fn a_column_of_links_whose_labels_are_data_is_one_row_action() {
    let mut rows = Vec::new();
    for (n, (name, owner)) in [
        ("Maria Okafor", "Ann"),
        ("Jonas Berg", "Delete Everything"),
        ("Chen Wei", "Ann"),
        ("Sofia Rossi", "Bob"),
    ]
    .into_iter()
    .enumerate()
    {
        let tr = 8 + n * 6;
        rows.push(json!(["tr", 7, n + 1, 0, ""]));
        rows.push(json!(["td", tr, 1, 0, name]));
        rows.push(json!(["td", tr, 2, 0, owner]));
        rows.push(json!(["a", tr + 2, 1, 0, owner, {"href": format!("/people/{n}")}]));
        rows.push(json!(["td", tr, 3, 0, "Edit"]));
        rows.push(json!(["a", tr + 4, 1, 0, "Edit", {"href": format!("/contacts/{n}/edit")}]));
    }
    let mut elements = vec![
        json!(["main", null, "main", 0, ""]),
        json!(["table", 0, "#contacts", 0, "", {"id": "contacts"}]),
        json!(["thead", 1, 1, 0, ""]),
        json!(["tr", 2, 1, 0, ""]),
        json!(["th", 3, 1, 0, "Name"]),
        json!(["th", 3, 2, 0, "Owner"]),
        json!(["th", 3, 3, 0, ""]),
        json!(["tbody", 1, 1, 0, ""]),
    ];
    elements.extend(rows);
    let s = support::recorded("http://127.0.0.1:1/contacts", "Contacts", json!(elements));
    let c = analyze(&s);
    let names: Vec<&String> = c.actions.keys().collect();
    let open = c
        .actions
        .get("open_owner")
        .unwrap_or_else(|| panic!("{names:?}"));
    assert_eq!(open.reversibility, Reversibility::Read, "{open:#?}");
    assert!(
        open.internal_target
            .starts_with("row:tr > td:nth-of-type(2) > a:nth-of-type(1) | tr | text:"),
        "{}",
        open.internal_target
    );
    let [param] = &open.parameters[..] else {
        panic!("{open:#?}")
    };
    assert_eq!(
        param.allowed_values,
        Some(vec![
            json!("Maria Okafor"),
            json!("Jonas Berg"),
            json!("Chen Wei"),
            json!("Sofia Rossi")
        ]),
        "{open:#?}"
    );
    for absent in ["ann", "delete_everything", "bob", "open_ann"] {
        assert!(!c.actions.contains_key(absent), "{names:?}");
    }
    assert!(
        c.actions
            .values()
            .filter(|a| !a.internal_target.starts_with("builtin:"))
            .all(|a| a.reversibility == Reversibility::Read),
        "{:#?}",
        c.actions
    );
    let edit = c.actions.get("edit").unwrap_or_else(|| panic!("{names:?}"));
    assert!(edit.internal_target.contains("| text:"), "{edit:#?}");

    // A label that says more than following a link, where other rows show names, keeps
    // its own evidence: the column is not merged over it.
    let mut with_verb = s.clone();
    for e in with_verb.elements.iter_mut() {
        if e.tag == "a" && e.text == "Ann" {
            e.text = "Delete account".into();
        }
    }
    let c = analyze(&with_verb);
    assert!(
        !c.actions.contains_key("open_owner"),
        "{:#?}",
        c.actions.keys()
    );
    let delete = c
        .actions
        .get("delete_account")
        .unwrap_or_else(|| panic!("{:#?}", c.actions.keys()));
    assert_ne!(delete.reversibility, Reversibility::Read, "{delete:#?}");

    // A link of the column that says it deletes (Rails' `data-method`) is no plain link:
    // the column is not merged over it, and that link is judged by its own evidence.
    let mut with_method = s.clone();
    let bob = with_method
        .elements
        .iter_mut()
        .find(|e| e.tag == "a" && e.text == "Bob")
        .expect("Bob's link");
    bob.attrs.insert("data-method".into(), "delete".into());
    let c = analyze(&with_method);
    for a in c.actions.values() {
        let on_bob = a.parameters.iter().any(|p| {
            p.allowed_values
                .as_ref()
                .is_some_and(|v| v.contains(&json!("Sofia Rossi")))
        });
        if a.internal_target.contains("td:nth-of-type(2) > a") && on_bob {
            panic!("Bob's deleting link merged into a read column: {a:#?}");
        }
    }
}

/// Links on the rows of a table that has no name of its own, each to its own place: one
/// action chosen by the link's text, named by the header of the column they stand in
/// (`open_ticket`), not by the generic `rows` (`open_items`, which a navigation list's
/// action beside it would also want).
#[test]
fn links_of_an_unnamed_table_are_named_by_their_column() {
    let mut elements = vec![
        json!(["main", null, "main", 0, ""]),
        json!(["table", 0, "table:nth-of-type(1)", 0, ""]),
        json!(["thead", 1, 1, 0, ""]),
        json!(["tr", 2, 1, 0, ""]),
        json!(["th", 3, 1, 0, "Ticket"]),
        json!(["th", 3, 2, 0, "Summary"]),
        json!(["tbody", 1, 1, 0, ""]),
    ];
    for (n, summary) in ["Printer jams", "VPN drops", "New laptop"]
        .into_iter()
        .enumerate()
    {
        let tr = 7 + n * 4;
        elements.push(json!(["tr", 6, n + 1, 0, ""]));
        elements.push(json!(["td", tr, 1, 0, format!("#{}", n + 1)]));
        elements.push(json!(["a", tr + 1, 1, 0, format!("#{}", n + 1), {"href": format!("/ticket/{}", n + 1)}]));
        elements.push(json!(["td", tr, 2, 0, summary]));
    }
    let s = support::recorded("http://127.0.0.1:1/report", "Report", json!(elements));
    let c = analyze(&s);
    let names: Vec<&String> = c.actions.keys().collect();
    let open = c
        .actions
        .get("open_ticket")
        .unwrap_or_else(|| panic!("{names:?}"));
    assert_eq!(open.reversibility, Reversibility::Read, "{open:#?}");
    assert_eq!(
        open.parameters[0].allowed_values,
        Some(vec![json!("#1"), json!("#2"), json!("#3")]),
        "{open:#?}"
    );
    assert!(!c.actions.contains_key("open_items"), "{names:?}");
}

#[test]
fn a_rows_icon_menu_naming_its_row_is_one_row_action() {
    // A page listing: each title cell holds a menu of one icon button whose accessible
    // name says the row's title ("More options for 'About us'").
    let mut elements = vec![
        json!(["main", null, "main", 0, ""]),
        json!(["table", 0, "#pages", 0, "", {"id": "pages"}]),
        json!(["tbody", 1, 1, 0, ""]),
    ];
    for (n, title) in ["About us", "Pricing", "Careers"].into_iter().enumerate() {
        let tr = elements.len();
        elements.push(json!(["tr", 2, n + 1, 0, ""]));
        elements.push(json!(["td", tr, 1, 0, title, {"class": "title"}]));
        elements.push(json!(["ul", tr + 1, 1, 0, "", {"class": "actions"}]));
        elements.push(json!(["li", tr + 2, 1, 0, ""]));
        elements.push(json!(["button", tr + 3, 1, 0, "",
            {"type": "button", "class": "toggle", "aria-label": format!("More options for '{title}'")}]));
        elements.push(json!(["td", tr, 2, 0, "Live", {"class": "status"}]));
    }
    let s = support::recorded(
        "http://127.0.0.1:1/admin/pages/3/",
        "Pages",
        json!(elements),
    );
    let c = analyze(&s);
    let names: Vec<&String> = c.actions.keys().collect();
    let more = c
        .actions
        .get("more_options")
        .unwrap_or_else(|| panic!("{names:?}"));
    assert!(more.internal_target.starts_with("row:"), "{more:#?}");
    assert_eq!(more.parameters.len(), 1, "{more:#?}");
    assert!(
        names
            .iter()
            .all(|n| !n.contains("about_us") && !n.contains("pricing")),
        "{names:?}"
    );
}

/// Whether a key, name or parameter holds a part that is a numbered id (`c8`).
fn has_numbered_part(s: &str) -> bool {
    s.split(['.', '_', '[', ']'])
        .any(|p| p.len() > 1 && p.starts_with('c') && p[1..].bytes().all(|b| b.is_ascii_digit()))
}

/// A page as NiceGUI (Vue and Quasar) draws it: every element numbered `c<n>`, the field's
/// `name` its number too, a switch drawn with `div`s and named by its text, a table whose
/// header cells the page listens on and whose rows' boxes say only "q-checkbox".
fn numbered_page() -> PageSnapshot {
    let mut rows = Vec::new();
    for (k, (title, owner)) in [
        ("Order paper", "Ana"),
        ("Call the printer", "Ben"),
        ("Book the venue", "Ana"),
    ]
    .into_iter()
    .enumerate()
    {
        let tr = 15 + k * 5;
        rows.push(json!(["tr", 14, k + 1, 0, ""]));
        rows.push(json!(["td", tr, 1, 0, ""]));
        rows.push(json!(["div", tr + 1, 1, 0, "", {"class": "q-checkbox cursor-pointer no-outline", "role": "checkbox", "aria-checked": "false", "tabindex": "0"}]));
        rows.push(json!(["td", tr, 2, 0, title]));
        rows.push(json!(["td", tr, 3, 0, owner]));
    }
    let mut els = vec![
        json!(["main", null, "#c2", 0, "", {"id": "c2", "class": "q-page"}]),
        json!(["div", 0, "#c3", 0, "", {"id": "c3"}]),
        json!(["div", 1, "#c4", 0, "Team tasks", {"id": "c4", "class": "text-h4"}]),
        json!(["div", 1, "#c5", 0, "", {"id": "c5", "class": "q-card"}]),
        json!(["input", 3, "#c6", 0, "", {"id": "c6", "name": "c6", "type": "text", "aria-label": "Task title", "value": ""}, "Task title"]),
        json!(["div", 3, "#c8", 0, "Urgent", {"id": "c8", "role": "switch", "aria-checked": "false", "tabindex": "0"}]),
        json!(["button", 3, "#c9", 0, "Add task", {"id": "c9", "type": "button"}]),
        json!(["table", 1, "#c10", 0, "", {"id": "c10", "class": "q-table"}]),
        json!(["thead", 7, 1, 0, ""]),
        json!(["tr", 8, 1, 0, ""]),
        json!(["th", 9, 1, 0, ""]),
        json!(["div", 10, 1, 0, "", {"class": "q-checkbox", "role": "checkbox", "aria-checked": "false", "tabindex": "0"}]),
        json!(["th", 9, 2, 8, "Title"]),
        json!(["th", 9, 3, 8, "Owner"]),
        json!(["tbody", 7, 1, 0, ""]),
    ];
    els.extend(rows);
    // Below the table: two buttons in a row of their own, a checkbox and a slider.
    els.extend([
        json!(["div", 1, "#c11", 0, "", {"id": "c11", "class": "nicegui-row"}]),
        json!(["button", 30, "#c12", 0, "Delete selected", {"id": "c12", "type": "button"}]),
        json!(["button", 30, "#c13", 0, "Mark done", {"id": "c13", "type": "button"}]),
        json!(["div", 1, "#c14", 0, "Show finished", {"id": "c14", "role": "checkbox", "aria-checked": "false", "tabindex": "0"}]),
        json!(["div", 1, "#c15", 0, "", {"id": "c15", "role": "slider", "aria-valuenow": "3", "tabindex": "0"}]),
    ]);
    support::recorded("http://127.0.0.1:1/", "Tasks", Value::Array(els))
}

#[test]
fn ids_a_framework_numbers_name_nothing() {
    let c = analyze(&numbered_page());
    let names: Vec<&String> = c.actions.keys().collect();
    for want in [
        "add_task",
        "set_urgent",
        "sort_by_title",
        "sort_by_owner",
        "select",
    ] {
        assert!(c.actions.contains_key(want), "{want} in {names:?}");
    }
    let params: Vec<&str> = c.actions["add_task"]
        .parameters
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    assert!(params.contains(&"task_title"), "{params:?}");
    // The switch's parameter is named by its text too.
    assert!(params.contains(&"urgent"), "{params:?}");
    for name in &names {
        assert!(!has_numbered_part(name), "{name}");
        for p in &c.actions[*name].parameters {
            assert!(!has_numbered_part(&p.name), "{name}({})", p.name);
        }
    }
    let keys: Vec<&String> = c.objects.keys().collect();
    assert!(keys.iter().all(|k| !has_numbered_part(k)), "{keys:?}");
    assert_eq!(c.objects.get("urgent"), Some(&json!(false)), "{keys:?}");
}

#[test]
fn fields_a_closer_button_sends_are_not_another_buttons() {
    // "Delete selected" and "Mark done" sit in a row of their own; the nearest element
    // holding them and fields is the page's content, which holds the card of "Add task"
    // with its fields and the table with its rows' boxes too.
    let c = analyze(&numbered_page());
    let params = |name: &str| -> Vec<String> {
        c.actions
            .get(name)
            .map(|a| a.parameters.iter().map(|p| p.name.clone()).collect())
            .unwrap_or_default()
    };
    assert_eq!(params("add_task"), ["task_title", "urgent"]);
    for name in ["delete_selected", "mark_done"] {
        let got = params(name);
        for theirs in ["task_title", "urgent", "checked", "checked_2"] {
            assert!(!got.iter().any(|p| p == theirs), "{name}: {got:?}");
        }
    }

    // A page's own numbered ids, on elements of one kind (steps, rows, questions), are
    // its names.
    let steps = snap(
        (1..=4)
            .map(|n| {
                el(
                    "p",
                    None,
                    &format!("Step {n} ready"),
                    &[("id", &format!("step{n}"))],
                )
            })
            .collect(),
    );
    let c = analyze(&steps);
    for n in 1..=4 {
        assert!(
            c.objects.contains_key(&format!("step{n}")),
            "{:?}",
            c.objects.keys().collect::<Vec<_>>()
        );
    }
}

/// The parameter names of action `a` of capture `c`, in order.
fn param_names(c: &PageCapture, a: &str) -> Vec<String> {
    let action = c
        .actions
        .get(a)
        .unwrap_or_else(|| panic!("{a}: {:#?}", c.actions));
    action.parameters.iter().map(|p| p.name.clone()).collect()
}

/// Elements below `parent` through wrappers the extraction did not record: their
/// selectors continue the parent's (`relative`), several steps long.
fn below(tag: &str, parent: u32, steps: &str, text: &str, attrs: &[(&str, &str)]) -> ElementRecord {
    let mut e = el_at(tag, Some(parent), steps, text, attrs);
    e.relative = true;
    e
}

#[test]
fn a_button_without_a_form_sends_the_fields_nearest_it_in_the_dom() {
    // An app's root, recorded; its wrappers are not. An assistant panel's question box
    // and "Send message" share three wrappers; a table of colour pickers, a tag box
    // with its own "Add", and a field found by its id sit elsewhere in the root.
    let mut els = vec![el_at("div", None, "#root", "", &[("id", "root")])];
    let panel = "div:nth-of-type(1) > div:nth-of-type(2) > div:nth-of-type(1)";
    els.push(below(
        "textarea",
        0,
        &format!("{panel} > div:nth-of-type(2) > textarea:nth-of-type(1)"),
        "",
        &[("aria-label", "Ask a question")],
    ));
    els.push(below(
        "button",
        0,
        &format!("{panel} > div:nth-of-type(3) > button:nth-of-type(1)"),
        "Send message",
        &[("type", "button")],
    ));
    let table = els.len() as u32;
    els.push(below(
        "table",
        0,
        "div:nth-of-type(2) > table:nth-of-type(1)",
        "",
        &[],
    ));
    for n in 0..3 {
        let tr = els.len() as u32;
        els.push(below(
            "tr",
            table,
            &format!("tbody > tr:nth-of-type({})", n + 1),
            "",
            &[],
        ));
        let td = els.len() as u32;
        els.push(below(
            "td",
            tr,
            "td:nth-of-type(1)",
            &format!("run-{n}"),
            &[],
        ));
        let colour = format!("#{n}{n}aa33");
        els.push(below(
            "input",
            td,
            "label > input:nth-of-type(1)",
            "",
            &[
                ("type", "color"),
                ("aria-label", "Colour"),
                ("value", &colour),
            ],
        ));
    }
    let tags = "div:nth-of-type(3) > div:nth-of-type(1)";
    els.push(below(
        "input",
        0,
        &format!("{tags} > input:nth-of-type(1)"),
        "",
        &[("type", "text"), ("aria-label", "Tag name")],
    ));
    els.push(below(
        "button",
        0,
        &format!("{tags} > button:nth-of-type(1)"),
        "Add",
        &[("type", "button")],
    ));
    // Found by its id: where it sits under the root is unknown, so it stays a field
    // of whichever button the root's fields go to.
    els.push(el_at(
        "input",
        Some(0),
        "#title",
        "",
        &[("id", "title"), ("type", "text"), ("aria-label", "Title")],
    ));
    let c = analyze(&snap(els));
    let params = |a: &str| param_names(&c, a);
    assert_eq!(params("send_message"), ["ask_a_question", "title"]);
    assert_eq!(params("add"), ["tag_name", "title"]);
}

#[test]
fn a_button_without_a_form_sends_the_text_area_one_wrapper_up_unless_another_button_is_there() {
    // Isso's comment box, drawn without a form: its text area sits in a wrapper beside
    // the section holding the name box and "Submit". Beside it, a box whose tag field
    // and "Add tag" share a wrapper, and whose "Save" sits with "Title" in the next.
    let mut els = vec![el_at("div", None, "#root", "", &[("id", "root")])];
    let field = |steps: &str, label: &str| {
        below(
            "input",
            0,
            steps,
            "",
            &[("type", "text"), ("aria-label", label)],
        )
    };
    els.push(below(
        "textarea",
        0,
        "div:nth-of-type(1) > div:nth-of-type(1) > textarea:nth-of-type(1)",
        "",
        &[("aria-label", "Comment")],
    ));
    els.push(field(
        "div:nth-of-type(1) > div:nth-of-type(2) > p:nth-of-type(1) > input:nth-of-type(1)",
        "Name",
    ));
    els.push(below(
        "input",
        0,
        "div:nth-of-type(1) > div:nth-of-type(2) > p:nth-of-type(2) > input:nth-of-type(1)",
        "",
        &[("type", "submit"), ("value", "Submit")],
    ));
    els.push(field(
        "div:nth-of-type(2) > div:nth-of-type(1) > input:nth-of-type(1)",
        "Tag name",
    ));
    els.push(below(
        "button",
        0,
        "div:nth-of-type(2) > div:nth-of-type(1) > button:nth-of-type(1)",
        "Add tag",
        &[("type", "button")],
    ));
    els.push(field(
        "div:nth-of-type(2) > div:nth-of-type(2) > p:nth-of-type(1) > input:nth-of-type(1)",
        "Title",
    ));
    els.push(below(
        "button",
        0,
        "div:nth-of-type(2) > div:nth-of-type(2) > p:nth-of-type(2) > button:nth-of-type(1)",
        "Save",
        &[("type", "button")],
    ));
    let c = analyze(&snap(els));
    let params = |a: &str| param_names(&c, a);
    assert_eq!(params("submit"), ["comment", "name"]);
    // The tag field is one wrapper up from "Save" too, but that wrapper holds "Add
    // tag" as well.
    assert_eq!(params("save"), ["title"]);
    assert_eq!(params("add_tag"), ["tag_name"]);
    assert!(
        !c.actions.keys().any(|a| a.starts_with("fill_")),
        "{:?}",
        c.actions.keys()
    );
}

#[test]
fn an_editors_formatting_buttons_send_no_field_and_keep_their_numbers() {
    // A form-less editor: a toolbar of formatting buttons, two told apart only by a
    // number, above a text area, and the editor's "Save" below.
    let mut els = vec![el("div", None, "", &[("class", "editor")])];
    els.push(nth_el("div", 0, 0, "", &[("class", "toolbar")]));
    for (n, label) in [
        "Apply bold formatting to selection",
        "Apply heading level 1 formatting to lines",
        "Apply heading level 2 formatting to lines",
    ]
    .into_iter()
    .enumerate()
    {
        els.push(nth_el(
            "button",
            1,
            n,
            "",
            &[("type", "button"), ("aria-label", label)],
        ));
    }
    els.push(nth_el(
        "textarea",
        0,
        0,
        "",
        &[("aria-label", "Text"), ("value", "Hello")],
    ));
    els.push(nth_el("button", 0, 0, "Save", &[("type", "button")]));
    // Numbers in brackets are counts, which name nothing.
    let aside = els.len() as u32;
    els.push(el("aside", None, "", &[]));
    for (n, label) in ["Replies (3)", "Replies (5)"].into_iter().enumerate() {
        els.push(nth_el("button", aside, n, label, &[("type", "button")]));
    }
    let c = analyze(&snap(els));
    assert!(
        !c.actions
            .keys()
            .any(|a| a.contains("replies_3") || a.contains("replies_5")),
        "{:#?}",
        c.actions.keys()
    );
    let params = |a: &str| -> Vec<String> {
        let action = c
            .actions
            .get(a)
            .unwrap_or_else(|| panic!("{a}: {:#?}", c.actions.keys()));
        action.parameters.iter().map(|p| p.name.clone()).collect()
    };
    assert_eq!(params("save"), ["text"]);
    assert!(params("apply_bold_formatting_to_selection").is_empty());
    assert!(params("apply_heading_level_1_formatting_to_lines").is_empty());
    assert!(params("apply_heading_level_2_formatting_to_lines").is_empty());
}

/// The `n`-th (0-based) `tag` under record `parent`: `tag:nth-of-type(n + 1)`.
fn nth_el(tag: &str, parent: u32, n: usize, text: &str, attrs: &[(&str, &str)]) -> ElementRecord {
    el_at(
        tag,
        Some(parent),
        &format!("{tag}:nth-of-type({})", n + 1),
        text,
        attrs,
    )
}

#[test]
fn radio_buttons_without_a_name_are_one_parameter_named_by_their_group() {
    // Three groups of radios a component draws without `name`s: one in a radiogroup
    // with a label, one whose options share a word, one that mirrors its choice into a
    // hidden input. HTML would make each radio a group of its own.
    let mut els = vec![el("form", None, "", &[("aria-label", "Ticket")])];
    type Radios<'a> = &'a [(&'a str, &'a str, bool)];
    let groups: [(&[(&str, &str)], Radios); 3] = [
        (
            &[("role", "radiogroup"), ("aria-label", "Kind")],
            &[
                ("Hardware", "Hardware", true),
                ("Software", "Software", false),
            ],
        ),
        (
            &[],
            &[("line", "Line chart", false), ("area", "Area chart", true)],
        ),
        (
            &[],
            &[
                ("Sequential sampling", "Sequential", true),
                ("Uniform sampling", "Random", false),
            ],
        ),
    ];
    for (g, (attrs, radios)) in groups.into_iter().enumerate() {
        let div = els.len() as u32;
        els.push(nth_el("div", 0, g, "", attrs));
        if g == 2 {
            els.push(nth_el(
                "input",
                div,
                0,
                "",
                &[
                    ("type", "hidden"),
                    ("name", "sampling"),
                    ("value", "Sequential sampling"),
                ],
            ));
        }
        for (k, (value, label, checked)) in radios.iter().enumerate() {
            let mut r = nth_el(
                "input",
                div,
                k + 1,
                "",
                &[
                    ("type", "radio"),
                    ("value", value),
                    ("checked", if *checked { "true" } else { "false" }),
                ],
            );
            r.label = (*label).into();
            els.push(r);
        }
    }
    els.push(nth_el("button", 0, 0, "Save", &[("type", "submit")]));
    let c = analyze(&snap(els));
    let save = c
        .actions
        .iter()
        .find(|(n, _)| n.starts_with("save"))
        .map(|(_, a)| a)
        .unwrap_or_else(|| panic!("{:#?}", c.actions.keys()));
    assert_eq!(save.parameters.len(), 3, "{:#?}", save.parameters);
    for (name, values, chosen) in [
        ("kind", json!(["Hardware", "Software"]), "Hardware"),
        ("chart", json!(["line", "area"]), "area"),
        (
            "sampling",
            json!(["Sequential sampling", "Uniform sampling"]),
            "Sequential sampling",
        ),
    ] {
        let p = save
            .parameters
            .iter()
            .find(|p| p.name == name)
            .unwrap_or_else(|| panic!("{name}: {:#?}", save.parameters));
        assert_eq!(p.allowed_values, values.as_array().cloned(), "{p:?}");
        assert_eq!(p.default_value, Some(json!(chosen)), "{p:?}");
        // The state says each group's choice under the same name, whichever is chosen.
        let key = c
            .objects
            .keys()
            .find(|k| k.ends_with(name))
            .unwrap_or_else(|| panic!("{name}: {:#?}", c.objects));
        assert_eq!(c.objects[key], json!(chosen), "{:#?}", c.objects);
    }
}

/// Dash's `dcc.Checklist`: a `role=listbox` whose options are labels around checkboxes
/// sharing a name. The boxes are the fields, one list parameter of the form beside it
/// (it was one string, `news?: "Weekly"|"Monthly"`, and the options a list of records
/// with a `select(name)` read).
#[test]
fn a_listbox_of_labelled_boxes_is_a_group_of_fields() {
    let c = analyze(&snap(vec![
        el("div", None, "", &[("id", "app")]),
        el(
            "input",
            Some(0),
            "",
            &[("id", "name"), ("aria-label", "Name")],
        ),
        el(
            "div",
            Some(0),
            "WeeklyMonthly",
            &[("id", "news"), ("role", "listbox")],
        ),
        el(
            "label",
            Some(2),
            "Weekly",
            &[("role", "option"), ("aria-selected", "false")],
        ),
        el(
            "input",
            Some(3),
            "",
            &[
                ("type", "checkbox"),
                ("name", "news"),
                ("value", "Weekly"),
                ("checked", "false"),
            ],
        ),
        el(
            "label",
            Some(2),
            "Monthly",
            &[("role", "option"), ("aria-selected", "false")],
        ),
        el(
            "input",
            Some(5),
            "",
            &[
                ("type", "checkbox"),
                ("name", "news"),
                ("value", "Monthly"),
                ("checked", "false"),
            ],
        ),
        el("button", Some(0), "Save contact", &[("id", "save")]),
    ]));
    let save = &c.actions["save_contact"];
    let news = save
        .parameters
        .iter()
        .find(|p| p.name == "news")
        .unwrap_or_else(|| panic!("{save:?}"));
    assert_eq!(news.type_name, "array", "{news:?}");
    assert_eq!(
        news.allowed_values,
        Some(vec![json!("Weekly"), json!("Monthly")]),
        "{news:?}"
    );
    assert!(!c.actions.contains_key("select"), "{:?}", c.actions.keys());
    assert!(
        !c.objects.keys().any(|k| k.starts_with("news[")),
        "{:?}",
        c.objects.keys()
    );
}

/// A lone "Add …" button reads as opening an editor (Gmail's "Compose", a "New issue"),
/// unless the page has fields no form holds that it may send: Mesop draws a name box,
/// a role picker and "Add member" under wrappers nothing records, so nothing groups
/// them, and "Add member" (which sends them) was a `read` at 0.83, run with no person
/// and no check. A row's "Reply" beside a loose composer still opens an editor.
#[test]
fn an_add_button_beside_loose_fields_is_no_read() {
    let lone = |with_fields: bool| {
        let mut els = vec![];
        if with_fields {
            els.push(el(
                "input",
                None,
                "",
                &[("id", "member-name"), ("aria-label", "Name")],
            ));
        }
        els.push(el("button", None, "Add member", &[]));
        els.push(el("ul", None, "", &[]));
        let ul = u32::try_from(els.len() - 1).unwrap();
        els.push(el("li", Some(ul), "Ada", &[]));
        els.push(el("button", Some(ul + 1), "Reply", &[]));
        analyze(&snap(els))
    };
    let c = lone(false);
    assert_eq!(
        c.actions["add_member"].reversibility,
        Reversibility::Read,
        "{:?}",
        c.actions["add_member"]
    );
    let c = lone(true);
    assert_ne!(
        c.actions["add_member"].reversibility,
        Reversibility::Read,
        "{:?}",
        c.actions["add_member"]
    );
    let reply = c
        .actions
        .iter()
        .find(|(n, _)| n.starts_with("reply"))
        .map(|(_, a)| a)
        .unwrap_or_else(|| panic!("{:?}", c.actions.keys()));
    assert_eq!(reply.reversibility, Reversibility::Read, "{reply:?}");
}

/// Mesop draws every component under custom elements the extraction does not record
/// (only a field's box, where it listens): no record holds both the fields and "Add
/// member", so it sent nothing and the agent had to fill each field alone. The page's
/// one sending button, in no region, sends the fields no form or row holds; with a
/// second such button nobody can tell whose fields they are, and neither takes them.
#[test]
fn the_one_button_of_a_page_that_records_no_container_sends_its_fields() {
    let page = |second: bool| {
        let mut els = vec![
            el("div", None, "Name", &[("class", "wrapper")]),
            el(
                "input",
                Some(0),
                "",
                &[("id", "member-name"), ("aria-label", "Name")],
            ),
            el("div", None, "Role", &[("class", "wrapper")]),
            el(
                "select",
                Some(2),
                "",
                &[
                    ("aria-label", "Role"),
                    ("value", "viewer"),
                    ("options", r#"["viewer","editor"]"#),
                ],
            ),
            el("button", None, "Add member", &[]),
        ];
        if second {
            // (A deletion would send no field, and leave them to "Add member".)
            els.push(el("button", None, "Rename team", &[]));
        }
        analyze(&snap(els))
    };
    let c = page(false);
    let add = &c.actions["add_member"];
    let names: Vec<&str> = add.parameters.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["name", "role"], "{add:?}");
    let c = page(true);
    assert!(
        c.actions["add_member"].parameters.is_empty(),
        "{:?}",
        c.actions["add_member"]
    );
}

#[test]
fn a_table_drawn_with_a_body_per_row_is_one_list() {
    // Django Unfold draws each row of its change list in a `tbody` of its own (to open
    // it apart): the rows of all the bodies are one list under the table's head, not a
    // list per row.
    let mut els = vec![
        el("table", None, "", &[("id", "result_list")]),
        el("thead", Some(0), "", &[]),
        el("tr", Some(1), "", &[]),
        el("th", Some(2), "Title", &[]),
        el("th", Some(2), "Pinned", &[]),
    ];
    for (title, pinned) in [("Book club", "no"), ("Dentist", "yes"), ("Groceries", "no")] {
        let body = u32::try_from(els.len()).unwrap();
        els.push(el("tbody", Some(0), "", &[]));
        els.push(el("tr", Some(body), "", &[]));
        els.push(el("td", Some(body + 1), title, &[]));
        els.push(el("td", Some(body + 1), pinned, &[]));
    }
    let c = analyze(&snap(els));
    let objects = serde_json::to_value(&c.objects).unwrap();
    let keys: Vec<&String> = objects.as_object().unwrap().keys().collect();
    assert_eq!(objects["result_list[1].title"], "Dentist", "{keys:?}");
    assert_eq!(objects["result_list[2].pinned"], "no", "{keys:?}");
    assert!(
        !keys.iter().any(|k| k.contains("result_list_2")),
        "{keys:?}"
    );
}

#[test]
fn a_form_of_boxes_without_names_and_no_submit_is_no_action() {
    // Wagtail's page explorer wraps its rows' selection boxes (no `name`: the page
    // reads them itself) in a `<form>` with no submit: nothing would send it, and it
    // sends none of them. It was `submit_page_reorder_form(select_all, select)` at
    // `irreversible` 0.48. A box with a name is sent, and its form stays an action.
    for named in [false, true] {
        let mut box_attrs = vec![
            ("type", "checkbox"),
            ("aria-label", "Select"),
            ("checked", "false"),
        ];
        if named {
            box_attrs.push(("name", "page"));
        }
        let els = vec![
            el("form", None, "", &[("id", "page-reorder-form")]),
            el(
                "input",
                Some(0),
                "",
                &[
                    ("type", "checkbox"),
                    ("aria-label", "Select all"),
                    ("checked", "false"),
                ],
            ),
            el("input", Some(0), "", &box_attrs),
        ];
        let c = analyze(&snap(els));
        let names: Vec<&String> = c.actions.keys().collect();
        assert_eq!(
            names.iter().any(|n| n.contains("page_reorder_form")),
            named,
            "{names:?}"
        );
    }
}

#[test]
fn a_row_is_named_by_its_title_not_by_a_time_that_moves() {
    // Wagtail's page explorer: each row's title is a link around a span with an id of
    // its own (`#page_5_title`), then a "More options for 'Contact'" menu button; the
    // next cell says when the page changed ("13 minutes ago", in a button). The rows are
    // told apart by their titles: one `more_options(title)`, not an action per page, and
    // never by the time, which moves by itself.
    // Selectors as the extraction writes them: each a step below its parent's.
    let step = |tag: &str, parent: u32, step: &str, text: &str, attrs: &[(&str, &str)]| {
        let mut e = el_at(tag, Some(parent), step, text, attrs);
        e.relative = true;
        e
    };
    for time_first in [false, true] {
        let heads = if time_first {
            ["Updated", "Title"]
        } else {
            ["Title", "Updated"]
        };
        let mut els = vec![
            el_at("table", None, "#pages", "", &[("id", "pages")]),
            step("thead", 0, "thead:nth-of-type(1)", "", &[]),
            step("tr", 1, "tr:nth-of-type(1)", "", &[]),
            step("th", 2, "th:nth-of-type(1)", heads[0], &[]),
            step("th", 2, "th:nth-of-type(2)", heads[1], &[]),
            step("th", 2, "th:nth-of-type(3)", "Type", &[]),
            step("tbody", 0, "tbody:nth-of-type(1)", "", &[]),
        ];
        for (n, (id, title, when)) in [
            ("5", "Contact", "13 minutes ago"),
            ("4", "About us", "15 minutes ago"),
            ("6", "Blog", "just now"),
        ]
        .into_iter()
        .enumerate()
        {
            let tr = u32::try_from(els.len()).unwrap();
            let href = format!("/admin/pages/{id}/edit/");
            let span_id = format!("page_{id}_title");
            let more = format!("More options for '{title}'");
            els.push(step(
                "tr",
                6,
                &format!("tr:nth-of-type({})", n + 1),
                "",
                &[],
            ));
            // The time's cell first, too: still no key.
            let (title_td, when_td) = if time_first { (2, 1) } else { (1, 2) };
            for k in 1..=2 {
                let td = u32::try_from(els.len()).unwrap();
                let at = format!("td:nth-of-type({k})");
                if k == when_td {
                    els.push(step("td", tr, &at, when, &[]));
                    els.push(step(
                        "button",
                        td,
                        "button:nth-of-type(1)",
                        when,
                        &[("type", "button")],
                    ));
                    els.push(step("time", td + 1, "time:nth-of-type(1)", when, &[]));
                    continue;
                }
                debug_assert_eq!(k, title_td);
                els.push(step("td", tr, &at, title, &[("class", "title")]));
                els.push(step("div", td, "div:nth-of-type(1)", title, &[]));
                els.push(step(
                    "a",
                    td + 1,
                    "a:nth-of-type(1)",
                    title,
                    &[("href", &href)],
                ));
                els.push(el_at(
                    "span",
                    Some(td + 2),
                    &format!("#{span_id}"),
                    title,
                    &[("id", &span_id)],
                ));
                els.push(step("div", td, "div:nth-of-type(2)", "", &[]));
                els.push(step(
                    "button",
                    td + 4,
                    "button:nth-of-type(1)",
                    "",
                    &[
                        ("type", "button"),
                        ("aria-label", &more),
                        ("aria-expanded", "false"),
                    ],
                ));
            }
            els.push(step("td", tr, "td:nth-of-type(3)", "Home page", &[]));
        }
        let c = analyze(&snap(els));
        let names: Vec<&String> = c.actions.keys().collect();
        let more = c
            .actions
            .get("more_options")
            .unwrap_or_else(|| panic!("{names:?}"));
        assert_eq!(more.parameters.len(), 1, "{more:?}");
        assert_eq!(more.parameters[0].name, "title", "{more:?}");
        assert!(!names.iter().any(|n| n.contains("contact")), "{names:?}");
    }
}

#[test]
fn the_words_of_a_control_a_person_does_not_see_are_no_data_of_its_row() {
    // Grappelli's user tools: a list of links and Django's theme toggle, a button whose
    // words are a visually hidden label per theme (only its icon is seen, so the
    // extraction records what the eye sees of it, nothing). Those labels are the
    // button's, no fields of the list's record.
    let mut els = vec![
        el("ul", None, "", &[("id", "grp-user-tools")]),
        el("li", Some(0), "", &[]),
        el("a", Some(1), "admin", &[("href", "/admin/me/")]),
        el("li", Some(0), "", &[]),
        el("a", Some(3), "View site", &[("href", "/")]),
        el("li", Some(0), "", &[]),
        el(
            "button",
            Some(5),
            "Toggle theme (current theme: auto) Toggle theme (current theme: light)",
            &[("class", "theme-toggle"), ("seen_text", "")],
        ),
    ];
    for theme in ["auto", "light"] {
        els.push(el(
            "div",
            Some(6),
            &format!("Toggle theme (current theme: {theme})"),
            &[(
                "class",
                &format!("visually-hidden theme-label-when-{theme}"),
            )],
        ));
    }
    let c = analyze(&snap(els));
    let keys: Vec<&String> = c.objects.keys().collect();
    assert!(!keys.iter().any(|k| k.contains("theme_label")), "{keys:?}");
    assert!(
        keys.iter().any(|k| k.contains("grp_user_tools")),
        "{keys:?}"
    );
}

#[test]
fn a_form_laid_out_as_a_table_with_a_select_widget_is_no_list() {
    // Flask-AppBuilder lays its form out as a table, a label cell and a field cell per
    // row; its "Team" is a Select2 widget (a picker with no `name`, standing in for the
    // hidden select) showing a clear "×", and "Urgent" a checkbox. The rows are the
    // form's layout, not records: the fields are objects of the form.
    let mut els = vec![
        el(
            "form",
            None,
            "",
            &[("id", "model_form"), ("method", "post")],
        ),
        el("table", Some(0), "", &[]),
        el("tbody", Some(1), "", &[]),
    ];
    let row = |els: &mut Vec<ElementRecord>, caption: &str| -> u32 {
        let tr = u32::try_from(els.len()).unwrap();
        els.push(el("tr", Some(2), "", &[]));
        els.push(el("td", Some(tr), caption, &[]));
        els.push(el("td", Some(tr), "", &[]));
        tr + 2
    };
    let cell = row(&mut els, "Team");
    let mut select = el(
        "select",
        Some(cell),
        "",
        &[
            ("id", "team"),
            ("name", "team"),
            ("value", "1"),
            ("options", r#"["__None","1"]"#),
            ("option_labels", r#"["","Red"]"#),
        ],
    );
    select.visible = false;
    els.push(select);
    let picker = u32::try_from(els.len()).unwrap();
    let mut p = el(
        "span",
        Some(cell),
        "×Red",
        &[("role", "combobox"), ("nsp-picker", ""), ("value", "Red")],
    );
    p.label = "Team".into();
    els.push(p);
    els.push(el(
        "span",
        Some(picker),
        "×",
        &[("title", "Remove all items")],
    ));
    for (caption, attrs) in [
        (
            "Name *",
            vec![("id", "name"), ("name", "name"), ("type", "text")],
        ),
        (
            "Email",
            vec![("id", "email"), ("name", "email"), ("type", "text")],
        ),
        (
            "Urgent",
            vec![
                ("id", "urgent"),
                ("name", "urgent"),
                ("type", "checkbox"),
                ("checked", "true"),
            ],
        ),
    ] {
        let cell = row(&mut els, caption);
        let mut f = el("input", Some(cell), "", &attrs);
        f.label = caption.into();
        els.push(f);
    }
    els.push(el("button", Some(0), "Save", &[("type", "submit")]));
    let c = analyze(&snap(els));
    let objects = serde_json::to_value(&c.objects).unwrap();
    let keys: Vec<&String> = objects.as_object().unwrap().keys().collect();
    assert!(!keys.iter().any(|k| k.contains("rows")), "{keys:?}");
    assert_eq!(objects["model_form.team"], "Red", "{keys:?}");
    assert_eq!(objects["model_form.urgent"], true, "{keys:?}");
}

#[test]
fn a_submit_button_outside_its_form_sends_the_form_it_names() {
    // HTML's form owner: a button with `form="task_form"` outside the `<form>` (Django
    // Unfold's "Save" bar) sends that form with its fields; one inside another form
    // that names this one is this one's too.
    let els = vec![
        el(
            "form",
            None,
            "",
            &[
                ("id", "task_form"),
                ("method", "post"),
                ("action", "/tasks/add/"),
            ],
        ),
        el(
            "input",
            Some(0),
            "",
            &[("name", "title"), ("aria-label", "Title")],
        ),
        el("div", None, "", &[("class", "submit-row")]),
        el(
            "button",
            Some(2),
            "Save",
            &[("type", "submit"), ("form", "task_form"), ("name", "_save")],
        ),
        el(
            "form",
            None,
            "",
            &[("id", "logout"), ("method", "post"), ("action", "/logout/")],
        ),
        el(
            "button",
            Some(4),
            "Save and continue editing",
            &[
                ("type", "submit"),
                ("form", "task_form"),
                ("name", "_continue"),
            ],
        ),
    ];
    let c = analyze(&snap(els));
    let save = c
        .actions
        .keys()
        .find(|n| n.starts_with("save") && !n.starts_with("save_and"))
        .unwrap_or_else(|| panic!("{:?}", c.actions.keys()));
    for name in [save.as_str(), "save_and_continue_editing"] {
        let a = c
            .actions
            .get(name)
            .unwrap_or_else(|| panic!("{name}: {:?}", c.actions.keys()));
        let params: Vec<&str> = a.parameters.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(params, ["title"], "{name}: {a:?}");
        assert_ne!(a.reversibility, Reversibility::Read, "{a:?}");
    }
}

#[test]
fn a_control_that_opens_the_dialog_confirming_its_verb_only_asks() {
    // sqladmin's row "Delete", a Bootstrap modal opener (`data-bs-toggle="modal"
    // data-bs-target="#modal-delete"`), and the modal in the page, hidden, holding its
    // own "Delete": the opener only asks, a read; the modal's "Delete" is the deletion.
    // An opener whose dialog holds no control saying its verb, or names no dialog of
    // the page, stays the stricter reading.
    let page = |target: &str, confirm: &str, danger: bool| {
        let mut els = vec![
            el("table", None, "", &[("id", "rows")]),
            el("tbody", Some(0), "", &[]),
        ];
        for title in ["Login fails", "Refund twice"] {
            els.push(el("tr", Some(1), "", &[]));
            let tr = u32::try_from(els.len() - 1).unwrap();
            els.push(el("td", Some(tr), title, &[]));
            els.push(el(
                "a",
                Some(tr),
                "Delete",
                &[
                    ("href", "#"),
                    ("data-bs-toggle", "modal"),
                    ("data-bs-target", target),
                    ("class", if danger { "btn btn-danger" } else { "btn" }),
                ],
            ));
        }
        let mut modal = el(
            "div",
            None,
            "",
            &[("id", "modal-delete"), ("class", "modal fade")],
        );
        modal.visible = false;
        els.push(modal);
        let m = u32::try_from(els.len() - 1).unwrap();
        let mut b = el("button", Some(m), confirm, &[("class", "btn btn-danger")]);
        b.visible = false;
        els.push(b);
        let mut c = el("button", Some(m), "Cancel", &[("data-bs-dismiss", "modal")]);
        c.visible = false;
        els.push(c);
        analyze(&snap(els))
    };
    let tier = |c: &PageCapture| {
        c.actions
            .iter()
            .find(|(n, _)| n.starts_with("delete"))
            .map(|(_, a)| a.reversibility)
            .unwrap_or_else(|| panic!("{:?}", c.actions.keys()))
    };
    assert_eq!(
        tier(&page("#modal-delete", "Delete", false)),
        Reversibility::Read
    );
    assert_eq!(
        tier(&page("#modal-delete", "Delete", true)),
        Reversibility::Read
    );
    assert_eq!(
        tier(&page("#modal-delete", "Close", false)),
        Reversibility::IrreversibleWrite
    );
    assert_eq!(
        tier(&page("#elsewhere", "Delete", false)),
        Reversibility::IrreversibleWrite
    );
}

#[test]
fn the_links_of_a_lists_one_row_are_each_its_own_action() {
    // sqladmin's list left with one record: its "View" and "Edit" icon links in one cell
    // were one "link of the list, chosen by its text" whose only choice was "View", and
    // "Edit" was offered nowhere. A second link of a row names no row: each link is an
    // action of its own. A list of links, one per row, stays one action.
    let els = vec![
        el("table", None, "", &[("id", "tickets")]),
        el("tbody", Some(0), "", &[]),
        el("tr", Some(1), "", &[]),
        el("td", Some(2), "Login fails", &[]),
        el("td", Some(2), "", &[]),
        el("a", Some(4), "View", &[("href", "/admin/ticket/details/1")]),
        el("a", Some(4), "Edit", &[("href", "/admin/ticket/edit/1")]),
        el("ul", None, "", &[("id", "nav")]),
        el("li", Some(7), "", &[]),
        el("a", Some(8), "Tickets", &[("href", "/admin/ticket/list")]),
        el("li", Some(7), "", &[]),
        el("a", Some(10), "Teams", &[("href", "/admin/team/list")]),
    ];
    let c = analyze(&snap(els));
    let names: Vec<&String> = c.actions.keys().collect();
    let takes = |word: &str| {
        c.actions.iter().any(|(n, a)| {
            n.contains(word)
                || a.parameters.iter().any(|p| {
                    p.allowed_values
                        .as_ref()
                        .is_some_and(|v| v.iter().any(|x| x == word))
                })
        })
    };
    assert!(takes("edit"), "{names:?}");
    assert!(takes("view"), "{names:?}");
    let nav = c.actions.values().find(|a| {
        a.parameters.iter().any(|p| {
            p.allowed_values
                .as_ref()
                .is_some_and(|v| v.len() == 2 && v.iter().any(|x| x == "Teams"))
        })
    });
    assert!(
        nav.is_some(),
        "the navigation's links stay one action: {names:?}"
    );
}

#[test]
fn a_lists_one_row_keyed_by_a_layout_id_names_no_record() {
    // django-wiki's title bar: one `li#article-title-li` around the article's permalink
    // was a row action, `recipes(id: "article-title-li")`. An id without a digit names
    // a part of the layout: the link is an action of its own. The one row of an inbox,
    // `li#msg-42`, still picks its record.
    let page = |id: &str| {
        snap(vec![
            el("ul", None, "", &[("class", "navbar-nav")]),
            el("li", Some(0), "Recipes", &[("id", id)]),
            el("a", Some(1), "Recipes", &[("href", "/recipes/")]),
            el("button", Some(1), "Archive", &[("type", "button")]),
        ])
    };
    let c = analyze(&page("article-title-li"));
    let names: Vec<&String> = c.actions.keys().collect();
    assert!(c.actions.contains_key("open_recipes"), "{names:?}");
    assert!(c.actions.contains_key("archive"), "{names:?}");
    let row_actions = |c: &nsp_protocol::PageCapture| -> Vec<String> {
        c.actions
            .iter()
            .filter(|(_, a)| !a.internal_target.starts_with("builtin:") && !a.parameters.is_empty())
            .map(|(n, _)| n.clone())
            .collect()
    };
    assert_eq!(row_actions(&c), Vec::<String>::new(), "{names:?}");
    let c = analyze(&page("msg-42"));
    assert_eq!(row_actions(&c).len(), 2, "{:?}", c.actions.keys());
}

#[test]
fn twins_of_one_label_with_icons_are_named_by_them() {
    // The extraction marks a control named by its title and drawn as an icon with the
    // icon's name (`nsp-icon`): twins of one title are told apart by it, twins without
    // one are numbered.
    let page = |icons: [Option<&str>; 2]| {
        let mut els = vec![el("div", None, "", &[])];
        for icon in icons {
            let mut attrs = vec![
                ("type", "button"),
                ("title", "Sub-articles for Recipes"),
                ("aria-expanded", "false"),
            ];
            if let Some(i) = icon {
                attrs.push(("nsp-icon", i));
            }
            els.push(el("button", Some(0), "", &attrs));
        }
        snap(els)
    };
    let names = |c: &nsp_protocol::PageCapture| -> Vec<String> {
        c.actions
            .keys()
            .filter(|n| n.starts_with("sub_"))
            .cloned()
            .collect()
    };
    let c = analyze(&page([Some("sitemap"), Some("file")]));
    assert_eq!(
        names(&c),
        [
            "sub_articles_for_recipes_file",
            "sub_articles_for_recipes_sitemap"
        ]
    );
    // Each one's state under its action's name: `<name>_expanded`.
    for name in names(&c) {
        assert_eq!(
            c.objects.get(&format!("{name}_expanded")),
            Some(&serde_json::json!(false)),
            "{:#?}",
            c.objects
        );
    }
    assert_eq!(
        names(&analyze(&page([None, None]))),
        ["sub_articles_for_recipes", "sub_articles_for_recipes_2"]
    );
}

#[test]
fn a_link_that_acts_is_no_choice_of_its_lists_links() {
    // Calibre-Web's top bar lists "Tasks", "Admin" and "Logout" as links of one shape:
    // they were one read, `open_main_nav(title)`, and `title: "Logout"` ended the
    // session through the gate as a read. Rails' sign-out sends a DELETE from a nav
    // list's link. A link that does more than open a page is its own action; one that
    // opens a page where a deletion is confirmed ("Delete account") stays a choice.
    let nav = |last: &[(&str, &str)]| {
        snap(vec![
            el("ul", None, "", &[("id", "nav")]),
            el("li", Some(0), "", &[]),
            el("a", Some(1), "Books", &[("href", "/books")]),
            el("li", Some(0), "", &[]),
            el(
                "a",
                Some(3),
                "Delete account",
                &[("href", "/account/delete")],
            ),
            el("li", Some(0), "", &[]),
            el("a", Some(5), "Logout", last),
        ])
    };
    for (attrs, name) in [
        (vec![("href", "/logout")], "open_logout"),
        (
            vec![("href", "/users/sign_out"), ("data-method", "delete")],
            "logout",
        ),
        (
            vec![("href", "/users/sign_out"), ("data-turbo-method", "delete")],
            "logout",
        ),
    ] {
        let c = analyze(&nav(&attrs));
        let choices: Vec<&serde_json::Value> = c
            .actions
            .values()
            .flat_map(|a| &a.parameters)
            .flat_map(|p| p.allowed_values.iter().flatten())
            .collect();
        assert_eq!(choices, ["Books", "Delete account"], "{attrs:?}");
        let own = &c.actions[name];
        // Logging in again undoes it, the DELETE included: the session is what it deletes.
        assert_eq!(
            own.reversibility,
            Reversibility::ReversibleWrite,
            "{attrs:?}"
        );
        assert!(own.confidence >= 0.8, "{attrs:?}: {}", own.confidence);
    }
    // Tags each removed by a link that sends a DELETE: none is a choice of a read.
    let c = analyze(&snap(vec![
        el("ul", None, "", &[("id", "tags")]),
        el("li", Some(0), "", &[]),
        el(
            "a",
            Some(1),
            "rust",
            &[("href", "/tags/1"), ("data-turbo-method", "delete")],
        ),
        el("li", Some(0), "", &[]),
        el(
            "a",
            Some(3),
            "wasm",
            &[("href", "/tags/2"), ("data-turbo-method", "delete")],
        ),
    ]));
    for (name, a) in &c.actions {
        if !a.internal_target.starts_with("builtin:") {
            assert_ne!(a.reversibility, Reversibility::Read, "{name}");
        }
    }
}

/// The extraction's search for the element holding a formless button's fields stops at
/// a region as `forms.rs` does (`extract.js`, `fieldGroups`): its lists of region tags
/// and roles are the probe's.
#[test]
fn extract_js_knows_the_probes_regions() {
    let program = format!(
        "require({:?}); console.log(JSON.stringify([[...NspExtract.REGION_TAGS], [...NspExtract.REGION_ROLES]]));",
        support::node::extension_script("extract.js")
    );
    let mut lists: Vec<Vec<String>> =
        serde_json::from_value(support::node::run_json(&program)).expect("two lists");
    let sorted = |v: &[&str]| {
        let mut v: Vec<String> = v.iter().map(|s| s.to_string()).collect();
        v.sort();
        v
    };
    for l in &mut lists {
        l.sort();
    }
    assert_eq!(
        lists[0],
        sorted(nsp_probe::REGION_TAGS),
        "extract.js REGION_TAGS"
    );
    assert_eq!(
        lists[1],
        sorted(nsp_probe::REGION_ROLES),
        "extract.js REGION_ROLES"
    );
}

#[test]
fn extract_js_keys_what_the_probe_keys_inside_a_paragraph() {
    let program = format!(
        "require({:?}); console.log(JSON.stringify(NspExtract.KEYED_INSIDE));",
        support::node::extension_script("extract.js")
    );
    assert_eq!(
        support::node::run_json(&program),
        nsp_probe::KEYED_INSIDE,
        "extract.js KEYED_INSIDE"
    );
}

/// Panel's widgets, each in a shadow root of its own (records as the extraction writes
/// them there: whole selectors through `>>>`, under the one recorded root): the form's
/// fields are "Add expense"'s, not those of "Delete last expense" in the column beside
/// (whose steps from the root part from theirs sooner); the number box's two arrows with
/// no name are the box's own, and the button hosts with no name around each button are
/// those buttons: every control is understood.
#[test]
fn shadow_root_widgets_send_the_fields_of_their_own_column() {
    let col = "#r > div:nth-of-type(1) >>> > div:nth-of-type(1)";
    let other = "#r > div:nth-of-type(1) >>> > div:nth-of-type(2)";
    let elements = json!([
        ["div", null, "#r", 0, "", {"id": "r"}],
        ["input", 0, format!("{col} >>> > div:nth-of-type(1) >>> #input"), 0, "", {"type": "text", "id": "input"}, "Who"],
        ["div", 0, format!("{col} >>> > div:nth-of-type(2) >>> > div:nth-of-type(1) > div:nth-of-type(1)"), 0, "", {"class": "bk-spin-wrapper"}],
        ["input", 2, format!("{col} >>> > div:nth-of-type(2) >>> #input"), 0, "", {"type": "text", "id": "input"}, "Amount"],
        ["button", 2, 1, 0, "", {"class": "bk-spin-btn bk-spin-btn-up"}],
        ["button", 2, 2, 0, "", {"class": "bk-spin-btn bk-spin-btn-down"}],
        ["input", 0, format!("{col} >>> > div:nth-of-type(3) >>> > input:nth-of-type(1)"), 0, "", {"type": "checkbox"}, "Shared"],
        ["div", 0, format!("{col} >>> > div:nth-of-type(4)"), 8, "", {"class": "bk-panel-models-widgets-Button"}],
        ["div", 7, format!("{col} >>> > div:nth-of-type(4) >>> > div:nth-of-type(1)"), 8, "Add expense", {"class": "bk-btn-group"}],
        ["button", 8, 1, 0, "Add expense", {"type": "button"}],
        ["div", 0, format!("{other} >>> > div:nth-of-type(1)"), 8, "", {"class": "bk-panel-models-widgets-Button"}],
        ["div", 10, format!("{other} >>> > div:nth-of-type(1) >>> > div:nth-of-type(1)"), 8, "Delete last expense", {"class": "bk-btn-group"}],
        ["button", 11, 1, 0, "Delete last expense", {"type": "button", "class": "bk-btn bk-btn-danger"}],
    ]);
    let c = analyze(&support::recorded(
        "http://127.0.0.1:1/",
        "Expenses",
        elements,
    ));
    let names: Vec<&String> = c.actions.keys().collect();
    let add = c
        .actions
        .get("add_expense")
        .unwrap_or_else(|| panic!("{names:?}"));
    let params: Vec<&str> = add.parameters.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(params, ["who", "amount", "shared"], "{add:#?}");
    let delete = c
        .actions
        .get("delete_last_expense")
        .unwrap_or_else(|| panic!("{names:?}"));
    assert!(delete.parameters.is_empty(), "{delete:#?}");
    assert_eq!(
        c.confidence, 1.0,
        "{:?}",
        c.probe_metadata.confidence_reason
    );
}

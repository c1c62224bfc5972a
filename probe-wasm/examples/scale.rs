//! How the analysis grows with a page's size, shape by shape: every kind of field and
//! button, and every repeated structure we know of, built at two sizes, twice apart, in
//! one container and analysed natively. Twice the copies should take about twice as
//! long; a shape flagged `n²?` took over three times as long (the fifteenth session
//! found and fixed twelve such shapes this way; see docs/threat-model.md). Timings of
//! one run, not a benchmark: run it in a release build.
//!
//! Usage: `cargo run --release -p nsp-probe --example scale [n] [shape prefix]`
//! (n: 1000).

#[path = "../tests/support/mod.rs"]
mod support;

use nsp_probe::analyze_snapshot;
use nsp_protocol::snapshot::{ElementRecord, PageSnapshot};
use nsp_protocol::ProbeTier;
use support::el_at;

fn page(n: usize, kind: &str, in_form: bool) -> PageSnapshot {
    let root = if in_form { "form" } else { "main" };
    let mut els = vec![
        el_at(root, None, root, "", &[]),
        el_at(
            "div",
            Some(0),
            &format!("{root} > div:nth-of-type(1)"),
            "",
            &[],
        ),
    ];
    for k in 0..n {
        let s = |tag: &str| format!("{root} > div:nth-of-type(1) > {tag}:nth-of-type({})", k + 1);
        let t = format!("Item {k}");
        let nm = format!("f{}", k % 7);
        let e = match kind {
            "checkbox" => el_at("input", Some(1), &s("input"), "", &[("type", "checkbox")]),
            "checkbox_named" => el_at(
                "input",
                Some(1),
                &s("input"),
                "",
                &[("type", "checkbox"), ("name", "tags"), ("value", &t)],
            ),
            "text" => el_at("input", Some(1), &s("input"), "", &[("type", "text")]),
            "text_named" => el_at(
                "input",
                Some(1),
                &s("input"),
                "",
                &[("type", "text"), ("name", &nm)],
            ),
            "select" => el_at("select", Some(1), &s("select"), "", &[]),
            "textarea" => el_at("textarea", Some(1), &s("textarea"), "", &[]),
            "link" => el_at("a", Some(1), &s("a"), &t, &[("href", &format!("/x/{k}"))]),
            "link_same" => el_at("a", Some(1), &s("a"), "Open", &[("href", "/x")]),
            "button" => el_at("button", Some(1), &s("button"), &t, &[("type", "button")]),
            "submit" => el_at("button", Some(1), &s("button"), &t, &[]),
            "label" => el_at("label", Some(1), &s("label"), &t, &[]),
            "heading" => el_at("h2", Some(1), &s("h2"), &t, &[]),
            "tab" => el_at("button", Some(1), &s("button"), &t, &[("role", "tab")]),
            "menuitem" => el_at("div", Some(1), &s("div"), &t, &[("role", "menuitem")]),
            "option" => el_at("div", Some(1), &s("div"), &t, &[("role", "option")]),
            "editable" => el_at(
                "div",
                Some(1),
                &s("div"),
                &t,
                &[("contenteditable", "true")],
            ),
            "li" => el_at("li", Some(1), &s("li"), &t, &[]),
            "details" => el_at("summary", Some(1), &s("summary"), &t, &[]),
            "switch" => el_at(
                "button",
                Some(1),
                &s("button"),
                &t,
                &[("role", "switch"), ("aria-checked", "false")],
            ),
            "dialog" => el_at(
                "div",
                Some(1),
                &s("div"),
                &t,
                &[("role", "dialog"), ("aria-modal", "true")],
            ),
            "region" => el_at("section", Some(1), &s("section"), &t, &[("aria-label", &t)]),
            "itemscope" => el_at(
                "div",
                Some(1),
                &s("div"),
                &t,
                &[("itemscope", ""), ("itemtype", "https://schema.org/Thing")],
            ),
            "nsp_key" => el_at(
                "div",
                Some(1),
                &s("div"),
                &t,
                &[("data-nsp-key", &format!("k{k}"))],
            ),
            "labelled" => el_at(
                "input",
                Some(1),
                &s("input"),
                "",
                &[("type", "text"), ("aria-labelledby", "lbl")],
            ),
            "id_for" => el_at("label", Some(1), &s("label"), &t, &[("for", "same")]),
            "hidden" => el_at(
                "input",
                Some(1),
                &s("input"),
                "",
                &[("type", "hidden"), ("name", &nm), ("value", &t)],
            ),
            "password" => el_at("input", Some(1), &s("input"), "", &[("type", "password")]),
            "img" => el_at("img", Some(1), &s("img"), "", &[("alt", &t)]),
            "tr" => el_at("tr", Some(1), &s("tr"), &t, &[]),
            "range" => el_at("input", Some(1), &s("input"), "", &[("type", "range")]),
            _ => panic!("{kind}"),
        };
        els.push(e);
    }
    support::snapshot("http://127.0.0.1:1/p", "P", els)
}
/// Records an element under `parent` at `sel` and returns its index.
fn push(
    els: &mut Vec<ElementRecord>,
    tag: &str,
    parent: usize,
    sel: String,
    text: &str,
    attrs: &[(&str, &str)],
) -> usize {
    els.push(el_at(tag, Some(parent as u32), &sel, text, attrs));
    els.len() - 1
}

fn shapes(n: usize, shape: &str) -> PageSnapshot {
    let mut els: Vec<ElementRecord> = vec![el_at("main", None, "main", "", &[])];
    match shape {
        "rowforms" => {
            let t = push(&mut els, "table", 0, "main > table".into(), "", &[]);
            for k in 0..n {
                let tr = push(
                    &mut els,
                    "tr",
                    t,
                    format!("main > table > tbody > tr:nth-of-type({})", k + 1),
                    &format!("Row {k} Delete"),
                    &[],
                );
                push(
                    &mut els,
                    "td",
                    tr,
                    format!(
                        "main > table > tbody > tr:nth-of-type({}) > td:nth-of-type(1)",
                        k + 1
                    ),
                    &format!("Row {k}"),
                    &[],
                );
                let td = push(
                    &mut els,
                    "td",
                    tr,
                    format!(
                        "main > table > tbody > tr:nth-of-type({}) > td:nth-of-type(2)",
                        k + 1
                    ),
                    "Delete",
                    &[],
                );
                let f = push(
                    &mut els,
                    "form",
                    td,
                    format!(
                        "main > table > tbody > tr:nth-of-type({}) > td:nth-of-type(2) > form",
                        k + 1
                    ),
                    "Delete",
                    &[("method", "post"), ("action", &format!("/d/{k}"))],
                );
                push(&mut els, "button", f, format!("main > table > tbody > tr:nth-of-type({}) > td:nth-of-type(2) > form > button", k + 1), "Delete", &[]);
            }
        }
        "liforms" => {
            let ul = push(&mut els, "ul", 0, "main > ul".into(), "", &[]);
            for k in 0..n {
                let li = push(
                    &mut els,
                    "li",
                    ul,
                    format!("main > ul > li:nth-of-type({})", k + 1),
                    &format!("Item {k} Remove"),
                    &[],
                );
                let f = push(
                    &mut els,
                    "form",
                    li,
                    format!("main > ul > li:nth-of-type({}) > form", k + 1),
                    "Remove",
                    &[("method", "post")],
                );
                push(
                    &mut els,
                    "input",
                    f,
                    format!("main > ul > li:nth-of-type({}) > form > input", k + 1),
                    "",
                    &[
                        ("type", "hidden"),
                        ("name", "id"),
                        ("value", &k.to_string()),
                    ],
                );
                push(
                    &mut els,
                    "button",
                    f,
                    format!("main > ul > li:nth-of-type({}) > form > button", k + 1),
                    "Remove",
                    &[],
                );
            }
        }
        "forms" => {
            for k in 0..n {
                let f = push(
                    &mut els,
                    "form",
                    0,
                    format!("main > form:nth-of-type({})", k + 1),
                    "",
                    &[],
                );
                push(
                    &mut els,
                    "input",
                    f,
                    format!("main > form:nth-of-type({}) > input", k + 1),
                    "",
                    &[("name", "q")],
                );
                push(
                    &mut els,
                    "button",
                    f,
                    format!("main > form:nth-of-type({}) > button", k + 1),
                    "Go",
                    &[],
                );
            }
        }
        "lists" => {
            for k in 0..n {
                let ul = push(
                    &mut els,
                    "ul",
                    0,
                    format!("main > ul:nth-of-type({})", k + 1),
                    "",
                    &[],
                );
                for j in 0..3 {
                    let li = push(
                        &mut els,
                        "li",
                        ul,
                        format!(
                            "main > ul:nth-of-type({}) > li:nth-of-type({})",
                            k + 1,
                            j + 1
                        ),
                        &format!("L{k} {j}"),
                        &[],
                    );
                    push(
                        &mut els,
                        "a",
                        li,
                        format!(
                            "main > ul:nth-of-type({}) > li:nth-of-type({}) > a",
                            k + 1,
                            j + 1
                        ),
                        &format!("L{k} {j}"),
                        &[("href", &format!("/l/{k}/{j}"))],
                    );
                }
            }
        }
        "tables" => {
            for k in 0..n {
                let t = push(
                    &mut els,
                    "table",
                    0,
                    format!("main > table:nth-of-type({})", k + 1),
                    "",
                    &[],
                );
                for j in 0..3 {
                    let tr = push(
                        &mut els,
                        "tr",
                        t,
                        format!(
                            "main > table:nth-of-type({}) > tbody > tr:nth-of-type({})",
                            k + 1,
                            j + 1
                        ),
                        "",
                        &[],
                    );
                    push(&mut els, "td", tr, format!("main > table:nth-of-type({}) > tbody > tr:nth-of-type({}) > td:nth-of-type(1)", k + 1, j + 1), &format!("c{k}{j}"), &[]);
                    push(&mut els, "td", tr, format!("main > table:nth-of-type({}) > tbody > tr:nth-of-type({}) > td:nth-of-type(2)", k + 1, j + 1), &format!("d{k}{j}"), &[]);
                }
            }
        }
        "cols" => {
            let t = push(&mut els, "table", 0, "main > table".into(), "", &[]);
            let h = push(
                &mut els,
                "tr",
                t,
                "main > table > thead > tr".into(),
                "",
                &[],
            );
            for c in 0..n {
                push(
                    &mut els,
                    "th",
                    h,
                    format!("main > table > thead > tr > th:nth-of-type({})", c + 1),
                    &format!("Col {c}"),
                    &[],
                );
            }
            for r in 0..3 {
                let tr = push(
                    &mut els,
                    "tr",
                    t,
                    format!("main > table > tbody > tr:nth-of-type({})", r + 1),
                    "",
                    &[],
                );
                for c in 0..n {
                    push(
                        &mut els,
                        "td",
                        tr,
                        format!(
                            "main > table > tbody > tr:nth-of-type({}) > td:nth-of-type({})",
                            r + 1,
                            c + 1
                        ),
                        &format!("v{r}{c}"),
                        &[],
                    );
                }
            }
        }
        "labels_for" => {
            let f = push(&mut els, "form", 0, "main > form".into(), "", &[]);
            for k in 0..n {
                let id = format!("f{k}");
                push(
                    &mut els,
                    "label",
                    f,
                    format!("main > form > label:nth-of-type({})", k + 1),
                    &format!("Field {k}"),
                    &[("for", &id)],
                );
                push(
                    &mut els,
                    "input",
                    f,
                    format!("#{id}"),
                    "",
                    &[("id", &id), ("name", &id)],
                );
            }
            push(
                &mut els,
                "button",
                f,
                "main > form > button".into(),
                "Save",
                &[],
            );
        }
        "dialogs" => {
            for k in 0..n {
                let d = push(
                    &mut els,
                    "div",
                    0,
                    format!("main > div:nth-of-type({})", k + 1),
                    "",
                    &[("role", "dialog"), ("aria-label", &format!("D{k}"))],
                );
                push(
                    &mut els,
                    "button",
                    d,
                    format!("main > div:nth-of-type({}) > button", k + 1),
                    "Close",
                    &[("type", "button")],
                );
            }
        }
        "tablist" => {
            let tl = push(
                &mut els,
                "div",
                0,
                "main > div".into(),
                "",
                &[("role", "tablist")],
            );
            for k in 0..n {
                push(
                    &mut els,
                    "button",
                    tl,
                    format!("main > div > button:nth-of-type({})", k + 1),
                    &format!("Tab {k}"),
                    &[("role", "tab")],
                );
            }
        }
        "sections" => {
            for k in 0..n {
                let s = push(
                    &mut els,
                    "section",
                    0,
                    format!("main > section:nth-of-type({})", k + 1),
                    "",
                    &[],
                );
                push(
                    &mut els,
                    "h2",
                    s,
                    format!("main > section:nth-of-type({}) > h2", k + 1),
                    &format!("Section {k}"),
                    &[],
                );
                push(
                    &mut els,
                    "button",
                    s,
                    format!("main > section:nth-of-type({}) > button", k + 1),
                    "Edit",
                    &[("type", "button")],
                );
            }
        }
        "details" => {
            for k in 0..n {
                let d = push(
                    &mut els,
                    "details",
                    0,
                    format!("main > details:nth-of-type({})", k + 1),
                    "",
                    &[],
                );
                push(
                    &mut els,
                    "summary",
                    d,
                    format!("main > details:nth-of-type({}) > summary", k + 1),
                    &format!("More {k}"),
                    &[],
                );
                push(
                    &mut els,
                    "a",
                    d,
                    format!("main > details:nth-of-type({}) > a", k + 1),
                    "Link",
                    &[("href", "/x")],
                );
            }
        }
        "cards" => {
            for k in 0..n {
                let d = push(
                    &mut els,
                    "div",
                    0,
                    format!("main > div:nth-of-type({})", k + 1),
                    "",
                    &[("class", "card")],
                );
                push(
                    &mut els,
                    "h3",
                    d,
                    format!("main > div:nth-of-type({}) > h3", k + 1),
                    &format!("Card {k}"),
                    &[],
                );
                push(
                    &mut els,
                    "input",
                    d,
                    format!("main > div:nth-of-type({}) > input", k + 1),
                    "",
                    &[("name", "qty")],
                );
                push(
                    &mut els,
                    "button",
                    d,
                    format!("main > div:nth-of-type({}) > button", k + 1),
                    "Add to cart",
                    &[("type", "button")],
                );
            }
        }
        "divrows" => {
            let l = push(
                &mut els,
                "div",
                0,
                "main > div".into(),
                "",
                &[("role", "list")],
            );
            for k in 0..n {
                let r = push(
                    &mut els,
                    "div",
                    l,
                    format!("main > div > div:nth-of-type({})", k + 1),
                    "",
                    &[("role", "listitem")],
                );
                push(
                    &mut els,
                    "span",
                    r,
                    format!("main > div > div:nth-of-type({}) > span", k + 1),
                    &format!("Name {k}"),
                    &[],
                );
                push(
                    &mut els,
                    "button",
                    r,
                    format!(
                        "main > div > div:nth-of-type({}) > button:nth-of-type(1)",
                        k + 1
                    ),
                    "Edit",
                    &[("type", "button")],
                );
                push(
                    &mut els,
                    "button",
                    r,
                    format!(
                        "main > div > div:nth-of-type({}) > button:nth-of-type(2)",
                        k + 1
                    ),
                    "Delete",
                    &[("type", "button")],
                );
            }
        }
        "rowcheck" => {
            let t = push(&mut els, "table", 0, "main > table".into(), "", &[]);
            for k in 0..n {
                let tr = push(
                    &mut els,
                    "tr",
                    t,
                    format!("main > table > tbody > tr:nth-of-type({})", k + 1),
                    "",
                    &[],
                );
                let td = push(
                    &mut els,
                    "td",
                    tr,
                    format!(
                        "main > table > tbody > tr:nth-of-type({}) > td:nth-of-type(1)",
                        k + 1
                    ),
                    "",
                    &[],
                );
                push(
                    &mut els,
                    "input",
                    td,
                    format!(
                        "main > table > tbody > tr:nth-of-type({}) > td:nth-of-type(1) > input",
                        k + 1
                    ),
                    "",
                    &[
                        ("type", "checkbox"),
                        ("name", "sel"),
                        ("value", &k.to_string()),
                    ],
                );
                push(
                    &mut els,
                    "td",
                    tr,
                    format!(
                        "main > table > tbody > tr:nth-of-type({}) > td:nth-of-type(2)",
                        k + 1
                    ),
                    &format!("Name {k}"),
                    &[],
                );
            }
            push(
                &mut els,
                "button",
                0,
                "main > button".into(),
                "Delete selected",
                &[],
            );
        }
        _ => panic!("{shape}"),
    }
    support::snapshot("http://127.0.0.1:1/s", "S", els)
}
/// A table of `n` rows, each a name cell and a cell of buttons labelled `labels(row)`.
fn table_of_buttons(els: &mut Vec<ElementRecord>, n: usize, labels: impl Fn(usize) -> Vec<String>) {
    let t = push(els, "table", 0, "main > table".into(), "", &[]);
    for k in 0..n {
        let row = format!("main > table > tbody > tr:nth-of-type({})", k + 1);
        let tr = push(els, "tr", t, row.clone(), "", &[]);
        let name = format!("{row} > td:nth-of-type(1)");
        push(els, "td", tr, name, &format!("Name {k}"), &[]);
        let cell = format!("{row} > td:nth-of-type(2)");
        let td = push(els, "td", tr, cell.clone(), "", &[]);
        for (b, label) in labels(k).iter().enumerate() {
            let at = format!("{cell} > button:nth-of-type({})", b + 1);
            push(els, "button", td, at, label, &[("type", "button")]);
        }
    }
}

fn shapes2(n: usize, shape: &str) -> PageSnapshot {
    let mut els: Vec<ElementRecord> = vec![el_at("main", None, "main", "", &[])];
    match shape {
        "rowbuttons" => {
            table_of_buttons(&mut els, n, |_| (0..6).map(|b| format!("Act{b}")).collect())
        }
        "rowdistinct" => table_of_buttons(&mut els, n, |k| vec![format!("Do {k}")]),
        // A button that stores, different on each row: a sender of fields in a record.
        "rowsaves" => table_of_buttons(&mut els, n, |k| vec![format!("Save {k}")]),
        "labelledby" => {
            let f = push(&mut els, "form", 0, "main > form".into(), "", &[]);
            for k in 0..n {
                let id = format!("l{k}");
                push(
                    &mut els,
                    "span",
                    f,
                    format!("#{id}"),
                    &format!("Label {k}"),
                    &[("id", &id)],
                );
                push(
                    &mut els,
                    "input",
                    f,
                    format!("main > form > input:nth-of-type({})", k + 1),
                    "",
                    &[("aria-labelledby", &id), ("name", &format!("n{k}"))],
                );
            }
            push(
                &mut els,
                "button",
                f,
                "main > form > button".into(),
                "Save",
                &[],
            );
        }
        "samefor" => {
            let f = push(&mut els, "form", 0, "main > form".into(), "", &[]);
            for k in 0..n {
                push(
                    &mut els,
                    "label",
                    f,
                    format!("main > form > label:nth-of-type({})", k + 1),
                    &format!("Field {k}"),
                    &[("for", "x")],
                );
                push(
                    &mut els,
                    "input",
                    f,
                    format!("main > form > input:nth-of-type({})", k + 1),
                    "",
                    &[("id", "x"), ("name", &format!("n{k}"))],
                );
            }
            push(
                &mut els,
                "button",
                f,
                "main > form > button".into(),
                "Save",
                &[],
            );
        }
        "deepwide" => {
            let mut parent = 0;
            for d in 0..100 {
                parent = push(&mut els, "div", parent, format!("div{d}"), "", &[]);
                for k in 0..(n / 100) {
                    push(
                        &mut els,
                        "button",
                        parent,
                        format!("b{d}-{k}"),
                        &format!("B {d} {k}"),
                        &[("type", "button")],
                    );
                }
            }
        }
        "headings" => {
            for k in 0..n {
                push(
                    &mut els,
                    "h3",
                    0,
                    format!("main > h3:nth-of-type({})", k + 1),
                    &format!("Heading {k}"),
                    &[],
                );
                push(
                    &mut els,
                    "p",
                    0,
                    format!("main > p:nth-of-type({})", k + 1),
                    &format!("Para {k}"),
                    &[],
                );
                push(
                    &mut els,
                    "button",
                    0,
                    format!("main > button:nth-of-type({})", k + 1),
                    "Edit",
                    &[("type", "button")],
                );
            }
        }
        "links_same_href" => {
            for k in 0..n {
                push(
                    &mut els,
                    "a",
                    0,
                    format!("main > a:nth-of-type({})", k + 1),
                    &format!("Link {k}"),
                    &[("href", "/same")],
                );
            }
        }
        "declared" => {
            for k in 0..n {
                let f = push(
                    &mut els,
                    "form",
                    0,
                    format!("main > form:nth-of-type({})", k + 1),
                    "",
                    &[
                        ("toolname", &format!("tool_{k}")),
                        ("tooldescription", "Does a thing"),
                    ],
                );
                push(
                    &mut els,
                    "input",
                    f,
                    format!("main > form:nth-of-type({}) > input", k + 1),
                    "",
                    &[("name", "q")],
                );
                push(
                    &mut els,
                    "button",
                    f,
                    format!("main > form:nth-of-type({}) > button", k + 1),
                    "Go",
                    &[],
                );
            }
        }
        "nspkeys" => {
            for k in 0..n {
                let d = push(
                    &mut els,
                    "div",
                    0,
                    format!("main > div:nth-of-type({})", k + 1),
                    "",
                    &[("data-nsp-key", "items[]")],
                );
                push(
                    &mut els,
                    "span",
                    d,
                    format!("main > div:nth-of-type({}) > span", k + 1),
                    &format!("v{k}"),
                    &[("data-nsp-key", "name")],
                );
            }
        }
        "selects" => {
            let f = push(&mut els, "form", 0, "main > form".into(), "", &[]);
            for k in 0..n {
                let opts: String = (0..5)
                    .map(|o| format!("o{o}"))
                    .collect::<Vec<_>>()
                    .join("\u{1f}");
                push(
                    &mut els,
                    "select",
                    f,
                    format!("main > form > select:nth-of-type({})", k + 1),
                    "",
                    &[("name", &format!("s{k}")), ("options", &opts)],
                );
            }
            push(
                &mut els,
                "button",
                f,
                "main > form > button".into(),
                "Save",
                &[],
            );
        }
        "implicit" => {
            for k in 0..n {
                let d = push(
                    &mut els,
                    "div",
                    0,
                    format!("main > div:nth-of-type({})", k + 1),
                    "",
                    &[],
                );
                push(
                    &mut els,
                    "input",
                    d,
                    format!("main > div:nth-of-type({}) > input", k + 1),
                    "",
                    &[("name", "q"), ("type", "text")],
                );
                push(
                    &mut els,
                    "button",
                    d,
                    format!("main > div:nth-of-type({}) > button", k + 1),
                    "Save",
                    &[("type", "button")],
                );
            }
        }
        "menu" => {
            let m = push(
                &mut els,
                "div",
                0,
                "main > div".into(),
                "",
                &[("role", "menu")],
            );
            for k in 0..n {
                push(
                    &mut els,
                    "div",
                    m,
                    format!("main > div > div:nth-of-type({})", k + 1),
                    &format!("Item {k}"),
                    &[("role", "menuitem")],
                );
            }
        }
        "openers" => {
            // Buttons that each open a menu of their own by id (`aria-controls`,
            // Bootstrap's `data-bs-target`), its "Delete" inside: an id looked up per
            // control.
            for k in 0..n {
                let id = format!("m{k}");
                let target = format!("#{id}");
                let sel = |rest: &str| format!("main > div:nth-of-type({}){rest}", k + 1);
                let d = push(&mut els, "div", 0, sel(""), "", &[]);
                push(
                    &mut els,
                    "button",
                    d,
                    sel(" > button"),
                    &format!("Actions {k}"),
                    &[
                        ("aria-expanded", "false"),
                        ("aria-controls", &id),
                        ("data-bs-target", &target),
                    ],
                );
                let m = push(
                    &mut els,
                    "div",
                    d,
                    sel(" > div"),
                    "",
                    &[("id", &id), ("role", "menu")],
                );
                push(&mut els, "button", m, sel(" > div > button"), "Delete", &[]);
            }
        }
        "listbox" => {
            let m = push(
                &mut els,
                "div",
                0,
                "main > div".into(),
                "",
                &[("role", "listbox"), ("aria-label", "Pick")],
            );
            for k in 0..n {
                push(
                    &mut els,
                    "div",
                    m,
                    format!("main > div > div:nth-of-type({})", k + 1),
                    &format!("Opt {k}"),
                    &[("role", "option")],
                );
            }
        }
        "grid" => {
            let g = push(
                &mut els,
                "div",
                0,
                "main > div".into(),
                "",
                &[("role", "grid")],
            );
            for r in 0..n {
                let row = push(
                    &mut els,
                    "div",
                    g,
                    format!("main > div > div:nth-of-type({})", r + 1),
                    "",
                    &[("role", "row")],
                );
                for c in 0..3 {
                    push(
                        &mut els,
                        "div",
                        row,
                        format!(
                            "main > div > div:nth-of-type({}) > div:nth-of-type({})",
                            r + 1,
                            c + 1
                        ),
                        &format!("c{r}{c}"),
                        &[("role", "gridcell")],
                    );
                }
            }
        }
        _ => panic!("{shape}"),
    }
    support::snapshot("http://127.0.0.1:1/s", "S", els)
}
fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let only = std::env::args().nth(2);
    let time = |page: &PageSnapshot| {
        let t = std::time::Instant::now();
        let _ = analyze_snapshot(page, ProbeTier::WasmExtension);
        t.elapsed().as_secs_f64() * 1000.0
    };
    let report = |name: &str, a: &PageSnapshot, b: &PageSnapshot| {
        let (ta, tb) = (time(a), time(b));
        let flag = if tb > 3.0 * ta && tb > 20.0 {
            "  n²?"
        } else {
            ""
        };
        println!(
            "{name:24} {:6} records {ta:9.1} ms   {:6} records {tb:9.1} ms   x{:.1}{flag}",
            a.elements.len(),
            b.elements.len(),
            tb / ta
        );
    };
    let wanted = |name: &str| only.as_deref().is_none_or(|o| name.starts_with(o));
    for kind in [
        "checkbox",
        "checkbox_named",
        "text",
        "text_named",
        "select",
        "textarea",
        "link",
        "link_same",
        "button",
        "submit",
        "label",
        "heading",
        "tab",
        "menuitem",
        "option",
        "editable",
        "li",
        "details",
        "switch",
        "dialog",
        "region",
        "itemscope",
        "nsp_key",
        "labelled",
        "id_for",
        "hidden",
        "password",
        "img",
        "tr",
        "range",
    ] {
        for in_form in [false, true] {
            let name = format!("{kind}{}", if in_form { " (form)" } else { "" });
            if wanted(&name) {
                report(&name, &page(n, kind, in_form), &page(2 * n, kind, in_form));
            }
        }
    }
    for shape in [
        "rowforms",
        "liforms",
        "forms",
        "lists",
        "tables",
        "cols",
        "labels_for",
        "dialogs",
        "tablist",
        "sections",
        "details",
        "cards",
        "divrows",
        "rowcheck",
    ] {
        if wanted(shape) {
            report(shape, &shapes(n / 2, shape), &shapes(n, shape));
        }
    }
    for shape in [
        "rowbuttons",
        "rowdistinct",
        "rowsaves",
        "labelledby",
        "samefor",
        "deepwide",
        "headings",
        "links_same_href",
        "declared",
        "nspkeys",
        "selects",
        "implicit",
        "menu",
        "openers",
        "listbox",
        "grid",
    ] {
        if wanted(shape) {
            report(shape, &shapes2(n, shape), &shapes2(2 * n, shape));
        }
    }
}

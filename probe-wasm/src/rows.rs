//! Repeated row controls → one parameterized action: the Archive button on every email
//! row is `archive(email_id)`, not five buttons. The parameter is what tells rows apart
//! (a `data-*-id` attribute, declared row parameters, a distinct text cell, or, failing
//! all of those, the row's position), and its description says where agents find valid
//! values (`inbox.emails[N].email_id`).
//!
//! The target is `row:<controls> | <rows> | <key>`: the dispatcher finds the controls,
//! keeps the one whose row matches the parameters and whose label is the one the schema
//! describes, and clicks it.

use std::fmt::Write as _;

use nsp_protocol::ActionParameter;

use crate::classify::{classify, is_danger_class, Evidence, Kind};
use crate::declared::{action_name, scope_prefix, value_source};
use crate::discover::{signature, Claims, FewValues, Found, Source};
use crate::lists::{row_cells, text_cells, Lists, RowKey, MAX_RECORDS};
use crate::page::{control_label, ElementRecordExt, Page};
use crate::text::{clip, humanize, name_value_pairs, slug};
use crate::HashMap;

/// How the dispatcher tells rows apart for one group.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum KeySpec {
    /// Declared `data-nsp-param` pairs.
    Param,
    Attr(String),
    /// Text of the cell at this selector relative to the row.
    Text(String),
    /// The control's own label (links to different places: search results).
    Label,
    Index,
}

struct Group {
    name: String,
    label: String,
    list: usize,
    key: KeySpec,
    param: String,
    controls: Vec<usize>,
    rows: Vec<usize>,
}

pub fn discover(page: &Page<'_>, lists: &Lists, claims: &mut Claims, found: &mut Vec<Found>) {
    // Groups in the order they were first seen, found again through a key written into
    // one reused buffer: this loop sees every control of every row, and only a new group
    // allocates. The key is the control's name and shape, the row's tag and how rows
    // are told apart (an index into `specs`, which holds each distinct one once).
    let mut groups: Vec<Group> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::default();
    let mut specs: Vec<KeySpec> = Vec::new();
    let mut gk = String::new();
    for (l, list) in lists.lists.iter().enumerate() {
        for &row in &list.rows {
            let (key, param) = key_for(page, lists, l, row);
            let spec = match specs.iter().position(|k| *k == key) {
                Some(n) => n,
                None => {
                    specs.push(key.clone());
                    specs.len() - 1
                }
            };
            for c in page.descendants(row) {
                let e = &page.els[c];
                let toggle = row_toggle(e);
                if !(page.control(c) || toggle) || !e.visible || e.disabled || claims.is_claimed(c)
                {
                    continue;
                }
                // Controls of a nested list belong to that list's rows.
                if lists.record_of(page, c).map(|(_, _, r)| r) != Some(row) {
                    continue;
                }
                let label = if toggle {
                    toggle_label(e)
                } else {
                    control_label(e)
                };
                let name = slug(&label);
                if name.is_empty() {
                    continue;
                }
                gk.clear();
                let _ = write!(gk, "{name}\u{1}{}.", e.tag);
                for (n, class) in e.classes().split_whitespace().enumerate() {
                    if n > 0 {
                        gk.push('.');
                    }
                    // Page text: the separator must not come from it.
                    gk.extend(class.chars().filter(|c| !c.is_control()));
                }
                let _ = write!(gk, "\u{1}{}\u{1}{spec}", page.els[row].tag);
                let g = match index.get(gk.as_str()) {
                    Some(&g) => g,
                    None => {
                        groups.push(Group {
                            name,
                            label,
                            list: l,
                            key: key.clone(),
                            param: param.clone(),
                            controls: Vec::new(),
                            rows: Vec::new(),
                        });
                        index.insert(gk.clone(), groups.len() - 1);
                        groups.len() - 1
                    }
                };
                groups[g].controls.push(c);
                groups[g].rows.push(row);
            }
        }
    }
    drop(index);
    let mut singles: Vec<Group> = Vec::new();
    for group in groups {
        // One control is a row action only on the one row of a list (an inbox with a
        // single email). Otherwise a control that does not repeat is its own thing: a
        // title link, a link in a navigation list.
        let keyed = matches!(group.key, KeySpec::Param | KeySpec::Attr(_));
        let lone_row = lists.lists[group.list].rows.len() == 1;
        // A button on the one row of a list with no key is bound to that row by its
        // position all the same (`li:nth-of-type(1) > button`): a row arriving above it
        // would take its place. As a row action it carries the row's cells, which the
        // dispatcher checks.
        let positional_button =
            group.key == KeySpec::Index && lone_row && page.els[group.controls[0]].tag != "a";
        if group.controls.len() < 2 && !(keyed && lone_row) && !positional_button {
            singles.push(group);
            continue;
        }
        if let Some(action) = build(page, lists, &group) {
            for c in &group.controls {
                claims.claim(*c);
            }
            found.push(action);
        }
    }
    link_lists(page, lists, singles, claims, found);
}

/// Links of the same shape on the rows of one list, each to a different place (search
/// results, a table of documents): one `open_<list>(title)` chosen by the link's text.
fn link_lists(
    page: &Page<'_>,
    lists: &Lists,
    singles: Vec<Group>,
    claims: &mut Claims,
    found: &mut Vec<Found>,
) {
    let mut order: Vec<(usize, String)> = Vec::new();
    let mut merged: HashMap<(usize, String), Group> = HashMap::default();
    for g in singles {
        let c = g.controls[0];
        let e = &page.els[c];
        if e.tag != "a" || !e.has("href") {
            continue;
        }
        let shape = format!("{}.{}", e.tag, e.classes());
        let key = (g.list, shape);
        match merged.get_mut(&key) {
            Some(m) => {
                m.controls.push(c);
                m.rows.push(g.rows[0]);
            }
            None => {
                order.push(key.clone());
                // Named after the list, skipping generic segments: folders.items → folders.
                let path = &lists.lists[g.list].path;
                let segment = path
                    .rsplit('.')
                    .map(|s| s.split('[').next().unwrap_or(s))
                    .find(|s| !matches!(*s, "items" | "rows"))
                    .unwrap_or("items");
                let name = format!("open_{}", slug(segment));
                merged.insert(
                    key,
                    Group {
                        name,
                        label: String::new(),
                        list: g.list,
                        key: KeySpec::Label,
                        param: "title".into(),
                        controls: vec![c],
                        rows: vec![g.rows[0]],
                    },
                );
            }
        }
    }
    for key in order {
        let Some(group) = merged.remove(&key) else {
            continue;
        };
        if group.controls.len() < 2 {
            continue;
        }
        if let Some(action) = build(page, lists, &group) {
            for c in &group.controls {
                claims.claim(*c);
            }
            found.push(action);
        }
    }
}

/// How rows of list `l` are keyed, and the parameter's name.
fn key_for(page: &Page<'_>, lists: &Lists, l: usize, row: usize) -> (KeySpec, String) {
    if let Some(r) = page.row[row].filter(|r| *r == row || page.ancestors(row).any(|a| a == *r)) {
        let names: Vec<String> = name_value_pairs(page.els[r].attr("data-nsp-param").unwrap_or(""))
            .into_iter()
            .map(|(n, _)| action_name(&n))
            .collect();
        return (KeySpec::Param, names.join(","));
    }
    let list = &lists.lists[l];
    match &list.key {
        Some(RowKey::Attr { attr, field }) => (KeySpec::Attr(attr.clone()), field.clone()),
        Some(RowKey::Text { cell, field }) => {
            let cells = text_cells(page, row);
            let rel = cells.get(*cell).and_then(|(c, _)| {
                page.selector(*c)
                    .strip_prefix(&format!("{} > ", page.selector(row)))
                    .map(str::to_owned)
            });
            match rel {
                Some(rel) => (KeySpec::Text(rel), field.clone()),
                None => (KeySpec::Index, "index".into()),
            }
        }
        None => (KeySpec::Index, "index".into()),
    }
}

/// A checkbox or switch repeated on rows (a todo's "done" box): pressing it in a row
/// flips that row.
fn row_toggle(e: &nsp_protocol::snapshot::ElementRecord) -> bool {
    (e.tag == "input" && e.input_type() == "checkbox") || matches!(e.role(), "switch" | "checkbox")
}

/// A row toggle's label: its own, else its first class ("toggle"), which is how such
/// boxes are told apart from the row's other controls.
fn toggle_label(e: &nsp_protocol::snapshot::ElementRecord) -> String {
    let own = crate::page::field_label(e);
    if !own.is_empty() && own != "on" {
        return own;
    }
    e.classes()
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_owned()
}

fn build(page: &Page<'_>, lists: &Lists, group: &Group) -> Option<Found> {
    let first = group.controls[0];
    let e = &page.els[first];
    let list = &lists.lists[group.list];
    let kind = if row_toggle(e) {
        Kind::Toggle
    } else if e.tag == "a"
        && e.attr("href")
            .is_some_and(|h| !h.starts_with("javascript:") && h != "#")
    {
        Kind::Link
    } else if e.clickable && e.tag != "button" && e.role() != "button" {
        Kind::Clickable
    } else {
        Kind::Button
    };
    let first_label = if kind == Kind::Toggle {
        toggle_label(e)
    } else {
        control_label(e)
    };
    let label = if group.label.is_empty() {
        first_label.as_str()
    } else {
        group.label.as_str()
    };
    // Links chosen by their own text: each row's text names a record ("Book flights"),
    // not what following the link does.
    let words_are_data = group.key == KeySpec::Label;
    let mut ev = Evidence::on_page(kind, if words_are_data { "" } else { label }, page, first);
    if words_are_data {
        // Nor do its other texts (a title repeating the record's name).
        ev.shown.clear();
        ev.visible = "";
    }
    ev.positional = group.key == KeySpec::Index;
    ev.href = e.attr("href");
    ev.danger = is_danger_class(e.classes());
    ev.confirms =
        e.has("data-confirm") || e.attr("onclick").is_some_and(|o| o.contains("confirm("));
    ev.opens_popup = e.has("aria-haspopup") || e.has("aria-expanded");
    ev.data_method = e
        .attr("data-method")
        .map(str::trim)
        .filter(|m| !m.eq_ignore_ascii_case("get"));
    let lowered;
    if let Some(m) = ev.data_method {
        lowered = m.to_ascii_lowercase();
        ev.data_method = Some(&lowered);
    }
    let verdict = classify(&ev);

    let first_selector = page.selector(first);
    let scope = scope_prefix(&first_selector);
    let row_tag = &page.els[group.rows[0]].tag;
    let control_shape = {
        let classes: Vec<String> = e
            .classes()
            .split_whitespace()
            .filter(|c| {
                c.chars()
                    .all(|ch| ch.is_ascii_alphanumeric() || ch == '-' || ch == '_')
            })
            .filter(|c| !c.starts_with(|ch: char| ch.is_ascii_digit()))
            .map(|c| format!(".{c}"))
            .collect();
        format!("{}{}", e.tag, classes.join(""))
    };
    let (row_sel, key_spec) = match &group.key {
        KeySpec::Param => ("[data-nsp-param]".to_owned(), "param".to_owned()),
        KeySpec::Attr(attr) => (format!("{row_tag}[{attr}]"), format!("@{attr}")),
        KeySpec::Text(rel) => (row_tag.clone(), format!("text:{rel}")),
        KeySpec::Label => (row_tag.clone(), "label".to_owned()),
        KeySpec::Index => {
            let container = page.parent[group.rows[0]]
                .map(|c| page.selector(c))
                .unwrap_or_default();
            let rows = if container.is_empty() {
                row_tag.clone()
            } else {
                format!("{container} > {row_tag}")
            };
            (rows, "index".to_owned())
        }
    };
    let rows_selector = match &group.key {
        KeySpec::Index => row_sel,
        _ => format!("{scope}{row_sel}"),
    };
    let target = format!("row:{rows_selector} {control_shape} | {rows_selector} | {key_spec}");

    // Per parameter, the first row (its position in the group) holding each value, in
    // the order the values were first seen: the order of `allowed_values`.
    let mut firsts: Vec<Vec<(String, usize)>> = Vec::new();
    let params: Vec<ActionParameter> = match &group.key {
        KeySpec::Index => vec![ActionParameter {
            name: "index".into(),
            type_name: "number".into(),
            required: true,
            description: format!("0-based position of the row in {}[N]", list.path),
            allowed_values: None,
            default_value: None,
            secret: false,
        }],
        _ => group
            .param
            .split(',')
            .filter(|p| !p.is_empty())
            .map(|pname| {
                let mut values = FewValues::default();
                let mut sources: Vec<String> = Vec::new();
                let mut seen_lists: Vec<usize> = Vec::new();
                let mut first: Vec<(String, usize)> = Vec::new();
                for (k, row) in group.rows.iter().enumerate() {
                    let Some(v) = row_value(page, *row, &group.key, pname) else {
                        continue;
                    };
                    if first.len() <= FewValues::LIMIT && !first.iter().any(|(f, _)| *f == v) {
                        first.push((v.clone(), k));
                    }
                    // One source per list the rows are in ("inbox… or archived…").
                    let list_of = lists.record_of(page, *row).map(|(l, _, _)| l);
                    if let Some(l) = list_of.filter(|l| !seen_lists.contains(l)) {
                        seen_lists.push(l);
                        if let Some(src) = value_source(page, lists, *row, &v) {
                            sources.push(src);
                        }
                    }
                    values.push(&v);
                }
                firsts.push(first);
                let description = if sources.is_empty() {
                    format!("{} of the row in {}", humanize(pname), list.path)
                } else {
                    format!("{} from {}", humanize(pname), sources.join(" or "))
                };
                ActionParameter {
                    name: pname.to_owned(),
                    type_name: "string".into(),
                    required: true,
                    description,
                    allowed_values: values.allowed(),
                    default_value: None,
                    secret: false,
                }
            })
            .collect(),
    };
    if params.is_empty() {
        return None;
    }
    let cells = cells_by_row(page, group, &params, &firsts);
    let description = if group.key == KeySpec::Label {
        format!(
            "Follow one of the links in {}, chosen by its text",
            list.path
        )
    } else {
        format!(
            "Press \"{}\" on one row of {} (chosen by {})",
            clip(&group.label, 60),
            list.path,
            params
                .iter()
                .map(|p| p.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let mut action = Found::new(group.name.clone(), Source::Row, verdict, description);
    action.ns = page.namespace(group.rows[0]).map(str::to_owned);
    action.schema.signature = signature(&params, "bool");
    action.schema.parameters = params;
    action.schema.internal_target = target;
    action.explain.rows = cells;
    action.explain.signals.push(format!(
        "the same control repeats on {} rows",
        group.controls.len()
    ));
    for c in &group.controls {
        action.bind(page, *c);
    }
    Some(action)
}

/// The cells of every row the action can act on (`ActionExplain::rows`), in the order
/// an agent names them: by `index`, every row the dispatcher counts (the row tag's
/// children of the rows' container), up to [`MAX_RECORDS`] (the state lists no more);
/// by one keyed parameter, one row per `allowed_values` entry, in that order (`firsts`:
/// the first row of the group holding each value, in first-seen order). Empty when the
/// parameter lists no values (more than `FewValues::LIMIT` rows) or there are several:
/// those rows are bound by their identity, not their position.
fn cells_by_row(
    page: &Page<'_>,
    group: &Group,
    params: &[ActionParameter],
    firsts: &[Vec<(String, usize)>],
) -> Vec<Vec<String>> {
    if group.key == KeySpec::Index {
        let first = group.rows[0];
        let tag = &page.els[first].tag;
        let rows: Vec<usize> = match page.parent[first] {
            Some(container) => page
                .children(container)
                .iter()
                .copied()
                .filter(|r| page.els[*r].tag == *tag)
                .collect(),
            None => (0..page.els.len())
                .filter(|r| page.els[*r].tag == *tag)
                .collect(),
        };
        return rows
            .into_iter()
            .take(MAX_RECORDS)
            .map(|r| row_cells(page, r))
            .collect();
    }
    let ([param], [first]) = (params, firsts) else {
        return Vec::new();
    };
    if param.allowed_values.is_none() {
        return Vec::new();
    }
    first
        .iter()
        .map(|(_, k)| {
            // The element the dispatcher takes for the row: the declared row around the
            // control, or the list's row.
            let (row, control) = (group.rows[*k], group.controls[*k]);
            let r = match group.key {
                KeySpec::Param => page.row[control].unwrap_or(row),
                _ => row,
            };
            row_cells(page, r)
        })
        .collect()
}

/// The value that selects `row` for parameter `pname`.
fn row_value(page: &Page<'_>, row: usize, key: &KeySpec, pname: &str) -> Option<String> {
    match key {
        KeySpec::Param => {
            let r = page.row[row]?;
            name_value_pairs(page.els[r].attr("data-nsp-param").unwrap_or(""))
                .into_iter()
                .find(|(n, _)| action_name(n) == pname)
                .map(|(_, v)| v)
        }
        KeySpec::Attr(attr) => page.els[row].attr(attr).map(str::to_owned),
        KeySpec::Text(rel) => {
            let want = format!("{} > {rel}", page.selector(row));
            page.descendants(row)
                .find(|i| page.selector(*i) == want)
                .map(|i| page.els[i].text.trim().to_owned())
        }
        KeySpec::Label => page
            .descendants(row)
            .find(|i| page.control(*i) && page.els[*i].tag == "a")
            .map(|i| control_label(&page.els[i])),
        KeySpec::Index => None,
    }
}

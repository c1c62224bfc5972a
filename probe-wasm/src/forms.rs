//! Forms → one action per submit control, with typed parameters from the named fields.
//! Also the scripted kind of form most apps use: fields and a button grouped in one
//! container without a `<form>` (a composer with a contenteditable and a "Post" button).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use nsp_protocol::snapshot::ElementRecord;
use nsp_protocol::ActionParameter;
use serde_json::Value;

use crate::classify::{classify, is_danger_class, Declared, Evidence, FormFacts, Kind};
use crate::found::{signature, Claims, Found, Source};
use crate::page::{
    control_label, field_label, is_editable, is_payment, is_secret, ElementRecordExt, Page,
};
use crate::text::{clip, humanize, is_identifier, slug, without_shortcut};
use crate::HashMap;

/// Labels that say nothing about which form they submit ("Save" on a settings page with
/// three forms): the action name gets the form's namespace.
const GENERIC_LABELS: &[&str] = &[
    "submit", "ok", "go", "continue", "next", "save", "apply", "done", "update", "yes", "send",
];

/// One action per `<form>`'s submit button (or the form itself, sent by Enter). Returns
/// the forms whose buttons repeated in the rows of a list inside them were left to
/// `rows` ([`row_submits`]); [`discover_left`] takes what `rows` did not.
pub fn discover(
    page: &Page<'_>,
    lists: &crate::lists::Lists,
    claims: &mut Claims,
    found: &mut Vec<Found>,
) -> Vec<usize> {
    let mut left = Vec::new();
    let owners = owners(page);
    let mut repeated = crate::HashMap::default();
    for f in 0..page.els.len() {
        let form = &page.els[f];
        if form.tag != "form" || !form.visible || claims.is_claimed(f) {
            continue;
        }
        let fields = fields_of(page, f, &owners);
        let mut submits = submits_of(page, f, claims, &owners);
        let in_rows = row_submits(page, lists, f, &submits);
        if !in_rows.is_empty() {
            // Both in document order.
            submits.retain(|s| in_rows.binary_search(s).is_err());
            left.push(f);
            if submits.is_empty() {
                // Nothing but row buttons: the form is sent by them, not by Enter.
                continue;
            }
        }
        // A button-only form repeated in every row of a list (a row's "Delete" posted
        // by a form of its own) is that list's row action, one action with the row as
        // parameter: `rows` builds it.
        if submits.len() == 1
            && !fields.iter().any(|i| page.els[*i].visible)
            && in_repeated_row(page, f, submits[0], &mut repeated)
        {
            continue;
        }
        let facts = form_facts(page, f, &fields, submits.len() > 1, false);
        let ns = page.namespace_incl(f).map(str::to_owned);
        if submits.is_empty() {
            // A dialog's form whose confirm button sits in the dialog's footer, outside
            // the `<form>` (component libraries): that button, with the form's fields.
            let shown = fields
                .iter()
                .any(|i| page.els[*i].visible && !page.els[*i].disabled);
            if let Some(b) = dialog_confirm(page, f, claims).filter(|_| shown) {
                let label = control_label(&page.els[b]);
                let facts = form_facts(page, f, &fields, false, false);
                let action = build(page, f, b, &label, &fields, &facts, ns, None);
                claims.claim(b);
                claims.claim(f);
                found.push(action);
                continue;
            }
            // A form of switches alone, which the page sends as one is switched: the
            // switches are the actions (`controls`), as a person uses them.
            if crate::controls::toggles_alone(page, f) {
                continue;
            }
            // A form whose page sends it from a control of its own that is no submit
            // button (`<button type="button">Save</button>`, a `div.btn` with a click
            // handler): that control, with the form's fields, as a person uses it.
            if let Some(b) = scripted_submit(page, f, claims).filter(|_| shown) {
                let label = control_label(&page.els[b]);
                let action = build(page, f, b, &label, &fields, &facts, ns, None);
                claims.claim(b);
                claims.claim(f);
                found.push(action);
                continue;
            }
            // Enter in a field submits a form without a button (search boxes). A form
            // whose shown fields are boxes without a `name` sends none of them, and
            // Enter in a box submits nothing: the page acts on them itself (Wagtail's
            // explorer wraps its rows' selection boxes in such a form).
            let shown: Vec<&ElementRecord> = fields
                .iter()
                .map(|i| &page.els[*i])
                .filter(|e| e.visible && !e.disabled)
                .collect();
            let boxes_only = shown
                .iter()
                .all(|e| !e.has("name") && matches!(e.input_type().as_ref(), "checkbox" | "radio"));
            if shown.is_empty() || boxes_only {
                continue;
            }
            let label = form
                .attr("aria-label")
                .map(str::to_owned)
                .or_else(|| (form.role() == "search").then(|| "Search".to_owned()))
                .unwrap_or_else(|| form.label.clone());
            let action = build(page, f, f, &label, &fields, &facts, ns, None);
            claims.claim(f);
            found.push(action);
            continue;
        }
        each_submit(page, f, &fields, &submits, &facts, ns, claims, found);
    }
    left
}

/// The submit buttons of form `f` that a list inside it repeats row by row: a button
/// with the same label in two rows or more of one list (a watch list's "Pause" on each
/// row, each with a `formaction` naming its row; a grid's "Delete" with `name="delete"
/// value="<id>"`), on rows with nothing to fill but a selection box. Each is one row
/// action with the row as its parameter (`rows`), not one form action per row told
/// apart by nothing an agent can read.
fn row_submits(
    page: &Page<'_>,
    lists: &crate::lists::Lists,
    f: usize,
    submits: &[usize],
) -> Vec<usize> {
    // Per (list, label letters): the first row seen, and whether a second row has it. A
    // form holds few distinct labels: a scan of them costs less than a map's code.
    let mut seen: Vec<(usize, String, usize, bool)> = Vec::new();
    let mut keyed: Vec<(usize, usize)> = Vec::new();
    for &s in submits {
        let Some((l, _, row)) = lists.record_of(page, s) else {
            continue;
        };
        // A row with fields a person fills (an inline-edit grid's "Save" on every row)
        // sends them with the button: that stays the form's action, with its fields.
        if !page.ancestors(row).any(|a| a == f)
            || page.descendants(row).any(|i| {
                let e = &page.els[i];
                e.visible
                    && !e.disabled
                    && form_field(page, i)
                    && !is_toggle(e)
                    && e.input_type() != "hidden"
            })
        {
            continue;
        }
        let letters: String = control_label(&page.els[s])
            .chars()
            .filter(|c| c.is_alphabetic())
            .collect();
        if letters.is_empty() {
            continue;
        }
        let k = match seen
            .iter()
            .position(|(sl, sk, _, _)| *sl == l && *sk == letters)
        {
            Some(k) => {
                seen[k].3 |= seen[k].2 != row;
                k
            }
            None => {
                seen.push((l, letters, row, false));
                seen.len() - 1
            }
        };
        keyed.push((s, k));
    }
    keyed
        .into_iter()
        .filter(|&(_, k)| seen[k].3)
        .map(|(s, _)| s)
        .collect()
}

/// The row buttons [`discover`] left to `rows` that `rows` did not take (a label on one
/// row only among several, a button whose address differs in more than its row's id):
/// each the form's action, as any submit button is.
pub fn discover_left(page: &Page<'_>, left: &[usize], claims: &mut Claims, found: &mut Vec<Found>) {
    let owners = owners(page);
    for &f in left {
        let fields = fields_of(page, f, &owners);
        let submits = submits_of(page, f, claims, &owners);
        let facts = form_facts(page, f, &fields, submits.len() > 1, false);
        let ns = page.namespace_incl(f).map(str::to_owned);
        each_submit(page, f, &fields, &submits, &facts, ns, claims, found);
    }
}

/// The fields of form `f`.
fn fields_of(page: &Page<'_>, f: usize, owners: &[usize]) -> Vec<usize> {
    owned(page, f, owners, &|i| form_field(page, i))
}

/// The visible submit buttons of form `f` no other source has taken.
fn submits_of(page: &Page<'_>, f: usize, claims: &Claims, owners: &[usize]) -> Vec<usize> {
    owned(page, f, owners, &|i| {
        is_submit(&page.els[i]) && page.els[i].visible && !claims.is_claimed(i)
    })
}

/// The elements that name their form (a `form` attribute), in document order: nearly
/// always none.
fn owners(page: &Page<'_>) -> Vec<usize> {
    (0..page.els.len())
        .filter(|&i| page.els[i].has("form"))
        .collect()
}

/// The elements of form `f` that `keep` keeps, in document order: those inside it that
/// name no other form, and those of `owners` anywhere whose `form` attribute names it
/// (HTML's form owner: Django Unfold puts its "Save" buttons outside the `<form>`).
fn owned(page: &Page<'_>, f: usize, owners: &[usize], keep: &dyn Fn(usize) -> bool) -> Vec<usize> {
    let id = page.els[f].attr("id");
    let inside = f + 1..page.end[f];
    // Inside it naming no form, or anywhere naming it.
    let ours = |i: usize| match page.els[i].attr("form") {
        None => inside.contains(&i),
        named => named == id,
    };
    let mut out: Vec<usize> = inside.clone().filter(|&i| ours(i) && keep(i)).collect();
    for &i in owners {
        if !inside.contains(&i) && ours(i) && keep(i) {
            out.push(i);
        }
    }
    crate::text::sort_indices(&mut out);
    out
}

/// One action per submit button of form `f`, which the form's fields fill; the buttons
/// and the form are claimed.
#[allow(clippy::too_many_arguments)]
fn each_submit(
    page: &Page<'_>,
    f: usize,
    fields: &[usize],
    submits: &[usize],
    facts: &FormFacts,
    ns: Option<String>,
    claims: &mut Claims,
    found: &mut Vec<Found>,
) {
    // Every button sends the same fields: their parameters are worked out for the
    // first and copied to the rest (a form of thousands of fields and buttons is no n²
    // of parameter work).
    let mut first: Option<usize> = None;
    for &s in submits {
        let label = control_label(&page.els[s]);
        let own = if first.is_some() { &[][..] } else { fields };
        let mut action = build(page, f, s, &label, own, facts, ns.clone(), None);
        match first {
            Some(k) => {
                let done = &found[k];
                action.schema.parameters = done.schema.parameters.clone();
                action.schema.signature = done.schema.signature.clone();
                action.explain.parameters = done.explain.parameters.clone();
                for &x in fields {
                    action.cover(x);
                }
            }
            None => first = Some(found.len()),
        }
        claims.claim(s);
        found.push(action);
    }
    claims.claim(f);
}

/// A submit button's own `formmethod` and `formaction`, which the browser sends the
/// form with instead of the form's: the form's facts as this button sends it, or
/// `None` when it has neither.
pub fn submitter_facts(c: &ElementRecord, facts: &FormFacts) -> Option<FormFacts> {
    let method = c.attr("formmethod").map(|m| m.trim().to_ascii_lowercase());
    let action = c.attr("formaction");
    if method.is_none() && action.is_none() {
        return None;
    }
    let mut own = facts.clone();
    if let Some(m) = method {
        own.method = Some(m);
    }
    if let Some(a) = action {
        own.action_url = a.to_owned();
    }
    Some(own)
}

/// Whether form `f`, with its one button `submit`, sits in a row (`tr`, `li`, `role=row`
/// or `listitem`) whose siblings hold a form with a button of the same label. The rows
/// of a list are read once (`seen`: for each list and row tag, how many rows hold such
/// a form for each label), not once per row: a list of a thousand rows, each with its
/// own "Delete" form, is no n².
fn in_repeated_row(
    page: &Page<'_>,
    f: usize,
    submit: usize,
    seen: &mut crate::HashMap<String, usize>,
) -> bool {
    let is_row = |i: usize| {
        let e = &page.els[i];
        matches!(e.tag.as_str(), "tr" | "li") || matches!(e.role(), "row" | "listitem")
    };
    let Some(row) = page.ancestors(f).take(4).find(|&a| is_row(a)) else {
        return false;
    };
    let Some(list) = page.ancestors(row).next() else {
        return false;
    };
    let label = control_label(&page.els[submit]);
    if label.trim().is_empty() {
        return false;
    }
    let tag = &page.els[row].tag;
    let rows = format!("{list}\u{1}{tag}\u{1}");
    if std::mem::replace(crate::slot(seen, rows.clone()), 1) == 0 {
        for &r in page.children(list) {
            if page.els[r].tag == *tag {
                // Each label counted once per row (marked under the row's number).
                for l in submit_labels(page, r) {
                    if std::mem::replace(crate::slot(seen, format!("{rows}{l}\u{2}{r}")), 1) == 0 {
                        *crate::slot(seen, format!("{rows}{l}")) += 1;
                    }
                }
            }
        }
    }
    let own = submit_labels(page, row).contains(&label) as usize;
    crate::kept(seen, &format!("{rows}{label}")).unwrap_or(0) > own
}

/// The labels of the buttons that submit a form inside row `r`.
fn submit_labels(page: &Page<'_>, r: usize) -> Vec<String> {
    let mut labels = Vec::new();
    for d in page.descendants(r).filter(|&d| page.els[d].tag == "form") {
        for b in page.descendants(d) {
            if is_submit(&page.els[b]) {
                labels.push(control_label(&page.els[b]));
            }
        }
    }
    labels
}

/// Fields and a write button in one container, no `<form>`: filled, then clicked.
pub fn discover_implicit(
    page: &Page<'_>,
    lists: &crate::lists::Lists,
    claims: &mut Claims,
    found: &mut Vec<Found>,
) {
    // In document order, so the ones inside an element are a run of them. Not a field's
    // own buttons, claimed by now (a number box's steps, a combobox's tags' "Remove …"),
    // nor a list's row actions (rows.rs).
    let senders: Vec<usize> = (0..page.els.len())
        .filter(|&i| !claims.is_claimed(i) && sends(page, i))
        .collect();
    // The fields in no `<form>`, in document order: each button's are a run of them (a
    // group of thousands of buttons does not scan its group once per button).
    let loose: Vec<usize> = (0..page.els.len())
        .filter(|&i| page.form[i].is_none() && form_field(page, i))
        .collect();
    let mut last: Option<(usize, Vec<usize>, FormFacts)> = None;
    for &b in &senders {
        if claims.is_claimed(b)
            // A `<form>` that holds buttons and no field of its own is only a wrapper:
            // its buttons act on the fields beside it, like buttons in no form.
            || page.form[b].is_some_and(|f| page.descendants(f).any(|i| form_field(page, i)))
        {
            continue;
        }
        let label = control_label(&page.els[b]);
        // A record's own button (on that record alone: a comment's "Save" under its text
        // being edited) sends the fields of its record, never fields beside the list.
        let row = lists.record_of(page, b).map(|(_, _, r)| r..page.end[r]);
        let Some(group) =
            field_group(page, b).filter(|g| row.as_ref().is_none_or(|r| r.contains(g)))
        else {
            if row.is_some() {
                continue;
            }
            if let Some(action) = top_level(page, lists, &senders, b, &label) {
                claims.claim(b);
                found.push(action);
            }
            continue;
        };
        // Fields a closer button sends are that button's: a card's fields beside its own
        // "Add" are not the page's "Delete selected"'s, though both sit in the content.
        // Each other sending button owns the part of the group it sits in (the group's
        // child holding it) unless that part holds this button too. A row's selection
        // box is its row's (`select(row)`), and a table header's box selects all rows:
        // neither is a parameter.
        // Asked of each field (the group's child holding it), not of each other button:
        // a group of thousands of buttons is no n².
        let owned = |i: usize| {
            let part = page
                .ancestors(i)
                .take_while(|a| *a != group)
                .last()
                .unwrap_or(i);
            let range = part..page.end[part];
            let first = senders.partition_point(|&o| o < range.start);
            !range.contains(&b) && senders.get(first).is_some_and(|o| range.contains(o))
        };
        let inside = page.descendants(group);
        let from = loose.partition_point(|&i| i < inside.start);
        let fields: Vec<usize> = loose[from..]
            .iter()
            .copied()
            .take_while(|i| inside.contains(i))
            .filter(|&i| !owned(i))
            .filter(|&i| !is_search_box(page, i) || names_verb_of(page, i, &label))
            .filter(|&i| {
                !(is_toggle(&page.els[i])
                    && (lists.record_of(page, i).is_some()
                        || page.ancestors(i).any(|a| {
                            page.els[a].tag == "thead" || page.els[a].role() == "columnheader"
                        })))
            })
            .collect();
        let fields = nearest_in_dom(page, &senders, group, b, fields);
        if !any_to_fill(page, &fields) {
            continue;
        }
        // The group's facts (its heading, whether it edits a record) are the last
        // button's when it sends the same fields from the same group: thousands of
        // buttons in one group read its headings once, not once each.
        let facts = match &last {
            Some((g, f, facts)) if *g == group && *f == fields => facts.clone(),
            _ => {
                // Another button sends from the group too: a bare "Cancel" beside it
                // backs out (a dialog drawn with no `<form>`: marimo's "Save notebook").
                form_facts(
                    page,
                    group,
                    &fields,
                    within(&senders, &inside).len() > 1,
                    true,
                )
            }
        };
        let ns = page.namespace_incl(group).map(str::to_owned);
        let mut action = build(page, group, b, &label, &fields, &facts, ns, None);
        // A record's own form says which record it is in: Isso's reply box under one
        // comment and the box under the thread are otherwise alike, and put to a person
        // as twins (`discover::put_twins_to_a_person`).
        if let Some((l, n, _)) = lists.record_of(page, b) {
            let list = &lists.lists[l];
            if list.item_names.is_none() {
                let _ = write!(action.schema.description, " (in {}[{n}])", list.path);
            }
        }
        last = Some((group, fields, facts));
        claims.claim(b);
        found.push(action);
    }
}

/// The elements of `sorted` (ascending) inside `range`.
fn within<'a>(sorted: &'a [usize], range: &std::ops::Range<usize>) -> &'a [usize] {
    let lo = sorted.partition_point(|&o| o < range.start);
    let hi = sorted.partition_point(|&o| o < range.end);
    &sorted[lo..hi]
}

/// A page that records nothing that holds both its fields and its button (Mesop draws
/// each component under custom elements, recorded only where a field's box listens):
/// the page's one sending button, in no region or dialog, sends the fields no `<form>`
/// and no list's row holds (no search box). None when another button sends, or no such
/// field is visible and enabled. The button stands in for the group it lacks.
fn top_level(
    page: &Page<'_>,
    lists: &crate::lists::Lists,
    senders: &[usize],
    b: usize,
    label: &str,
) -> Option<Found> {
    if senders.iter().any(|&o| o != b)
        || page.in_dialog[b]
        || page.ancestors(b).any(|a| page.region_el(a))
    {
        return None;
    }
    let fields: Vec<usize> = (0..page.els.len())
        .filter(|&i| page.form[i].is_none() && form_field(page, i))
        .filter(|&i| lists.record_of(page, i).is_none())
        .filter(|&i| !is_search_box(page, i) || names_verb_of(page, i, label))
        .collect();
    if !any_to_fill(page, &fields) {
        return None;
    }
    let facts = form_facts(page, b, &fields, false, true);
    let ns = page.namespace(b).map(str::to_owned);
    Some(build(page, b, b, label, &fields, &facts, ns, None))
}

/// Whether a person can fill any of `fields`: one is visible, enabled and no box.
fn any_to_fill(page: &Page<'_>, fields: &[usize]) -> bool {
    fields
        .iter()
        .any(|i| page.els[*i].visible && !page.els[*i].disabled && !is_toggle(&page.els[*i]))
}

/// The steps from recorded element `from` down to its descendant `i`, as the records'
/// selectors write them: a step of a relative selector as `(step, 0)`, a record's
/// `nth` as `(tag, nth)`, and a record found by an id or a whole selector, which is
/// somewhere below its recorded parent, as `("#", index)`: only a path through the same
/// record matches it.
fn dom_steps<'p>(page: &'p Page<'_>, from: usize, i: usize) -> Vec<(&'p str, usize)> {
    let mut chain: Vec<usize> = std::iter::once(i)
        .chain(page.ancestors(i))
        .take_while(|a| *a != from)
        .collect();
    chain.reverse();
    let mut steps = Vec::new();
    for j in chain {
        let e = &page.els[j];
        // Inside a shadow root a record's selector is whole (the host's, `>>>`, its
        // path there): below its recorded parent's own, it continues that one, as a
        // relative one does (Bokeh draws each widget in a shadow root of its own).
        let under = || {
            page.parent[j]
                .filter(|_| e.selector.contains(" >>> "))
                .and_then(|p| e.selector.strip_prefix(page.selector(p).as_str()))
                .filter(|r| r.starts_with(' '))
        };
        if e.nth > 0 {
            steps.push((e.tag.as_str(), e.nth as usize));
        } else if e.relative {
            steps.extend(e.selector.split(" > ").map(|s| (s, 0)));
        } else if let Some(rest) = under() {
            steps.extend(
                rest.split_whitespace()
                    .filter(|s| *s != ">")
                    .map(|s| (s, 0)),
            );
        } else {
            steps.push(("#", j));
        }
    }
    steps
}

/// How many steps two paths of `dom_steps` share from their start.
fn common(a: &[(&str, usize)], b: &[(&str, usize)]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// How many sending buttons of a group [`nearest_in_dom`] compares the fields' places
/// with; a group of more is not asked.
const OWNERS: usize = 16;

/// The fields of `fields` (below `group`) nearest button `b` in the DOM: the extraction
/// records few of a page's wrappers, so `group`, the nearest recorded element holding
/// a field, can be a whole app's root (MLflow's assistant panel and its "New Chat" sit
/// six wrappers deep in `#root`, beside a table of colour pickers). The fields kept are
/// those that share the most of the button's steps down from `group`, as the nearest
/// element holding fields would hold them had it been recorded, and those one wrapper
/// further up (still below the group) when that wrapper holds no other sending button:
/// Isso's reply box holds its text area beside the section of its name and address
/// boxes and "Submit", where TiddlyWiki's editor holds its text and, further down, the
/// new field's name and value beside their own "add", with its "ok" and the tags'
/// "add" further up.
fn nearest_in_dom(
    page: &Page<'_>,
    senders: &[usize],
    group: usize,
    b: usize,
    fields: Vec<usize>,
) -> Vec<usize> {
    let own = dom_steps(page, group, b);
    // Fields that another sending button of the group is nearer to, every one of them
    // (sharing more of its steps down from the group), are that button's form: Panel's
    // "Delete last expense", in the column beside its form's, sends none of them. One
    // nearer to only some (TiddlyWiki's "add" beside the tag box) takes nothing from
    // this button: the editor's "ok" saves the tag typed there too. Asked of at most
    // OWNERS buttons.
    let theirs: Vec<_> = fields.iter().map(|&f| dom_steps(page, group, f)).collect();
    let inside = page.descendants(group);
    let in_group = within(senders, &inside);
    if in_group.len() <= OWNERS {
        for &o in in_group {
            let steps = dom_steps(page, group, o);
            if o != b && theirs.iter().all(|t| common(&steps, t) > common(&own, t)) {
                return Vec::new();
            }
        }
    }
    if fields.len() < 2 {
        return fields;
    }
    // How many steps each field shares with the button, `None` when the paths part
    // where one of them is unknown (a field found by its id, a text area in a frame):
    // such a field may sit anywhere, and is kept.
    let shared: Vec<Option<usize>> = theirs
        .iter()
        .map(|t| {
            let n = common(&own, t);
            let unknown = |s: Option<&(&str, usize)>| s.is_some_and(|s| s.0 == "#");
            (!unknown(own.get(n)) && !unknown(t.get(n))).then_some(n)
        })
        .collect();
    // Measured on the fields a person fills in, as `field_group` finds its group: a
    // "Remember me" box beside the button does not make its fields a form of one box.
    let fills = |f: usize| {
        let e = &page.els[f];
        e.visible && !e.disabled && !is_toggle(e)
    };
    let Some(most) = fields
        .iter()
        .zip(&shared)
        .filter(|(f, _)| fills(**f))
        .filter_map(|(_, n)| *n)
        .max()
        .filter(|m| *m > 0)
    else {
        return fields;
    };
    // The wrapper one step up holds no other sending button: then none sits right
    // before or after `b` in the document's order (the wrapper is a run of it).
    let alone = || {
        let at = senders.partition_point(|&o| o < b);
        [at.wrapping_sub(1), at + 1]
            .iter()
            .filter_map(|&k| senders.get(k))
            .all(|&o| {
                !page.descendants(group).contains(&o)
                    || common(&own, &dom_steps(page, group, o)) + 1 < most
            })
    };
    let mut wide = None;
    fields
        .into_iter()
        .zip(shared)
        .filter(|&(_, n)| {
            n.is_none_or(|n| {
                n >= most || (n + 1 == most && most > 1 && *wide.get_or_insert_with(alone))
            })
        })
        .map(|(f, _)| f)
        .collect()
}

/// Whether `b` is a visible button that sends something by its words: not a read, nor a
/// toggle of the interface ("Hide", "Pin"), nor the opener of a menu or dialog (the
/// dialog has its own), nor a column's name in a header row drawn without table
/// markup (a sort), nor a button of an editor's formatting toolbar (its label names a
/// change of the text's form: `classify::formats_text`). Only such a button makes the
/// fields beside it a form.
fn sends(page: &Page<'_>, b: usize) -> bool {
    let e = &page.els[b];
    // A link going nowhere, which the page's script follows, sends the fields beside it
    // when its words store them (Isso's "Save" under a comment being edited); its
    // "Delete" and "Cancel" there send nothing.
    let saves = e.tag == "a"
        && e.attr("href").is_none_or(|h| h.trim() == "#")
        && crate::classify::names_storing(&control_label(e));
    if !(is_button(e) || saves)
        || !e.visible
        || crate::controls::opens_popup(e)
        || crate::lists::in_drawn_header(page, b)
    {
        return false;
    }
    let label = control_label(e);
    crate::classify::from_words(&label).is_some_and(|w| {
        w.tier != nsp_protocol::Reversibility::Read
            && !matches!(
                w.cue.as_str(),
                "toggle" | "switch" | "turn" | "enable" | "disable" | "hide" | "pin" | "unpin"
            )
    })
        // A formatting toolbar's button changes the selection's form in the editor
        // beside it ("Apply bold formatting to selection"): it sends no field.
        && !crate::classify::formats_text(page, b, &label)
        // Nor does a field's own reset ("Reset to default value" in a slider's box):
        // the field stays a parameter of the form around it.
        && !crate::classify::clears_field(page, b, &label)
}

/// The button that confirms dialog-held form `form` from outside it: in the same
/// dialog (`role=dialog`/`alertdialog`, `<dialog>`), in no form (or tied to this one by
/// its `form` attribute), visible, and neither a dismissal ("Cancel", "Close") nor a
/// read. The last such button wins: dialog footers end with their primary action.
fn dialog_confirm(page: &Page<'_>, form: usize, claims: &Claims) -> Option<usize> {
    if !page.in_dialog[form] {
        return None;
    }
    let dialog = page
        .ancestors(form)
        .find(|a| crate::page::is_dialog(&page.els[*a]))?;
    let form_id = page.els[form].attr("id").filter(|id| !id.is_empty());
    let mut best = None;
    for b in page.descendants(dialog) {
        let e = &page.els[b];
        if !is_button(e) || !e.visible || claims.is_claimed(b) {
            continue;
        }
        let tied = form_id.is_some() && e.attr("form") == form_id;
        if page.form[b].is_some() && !tied {
            continue;
        }
        // In this dialog, not a nested one.
        if page
            .ancestors(b)
            .find(|a| crate::page::is_dialog(&page.els[*a]))
            != Some(dialog)
        {
            continue;
        }
        let label = control_label(e);
        if label.is_empty() || crate::classify::is_dismiss(&label) {
            continue;
        }
        if tied {
            return Some(b);
        }
        // "OK" names no verb; "Help" or "Preview" would read.
        let words = crate::classify::from_words(&label);
        if words.is_none_or(|w| w.tier != nsp_protocol::Reversibility::Read) {
            best = Some(b);
        }
    }
    best
}

/// The control that sends form `form`, which has no submit button, from a script: a
/// visible, enabled control inside it that is not a field, a link that navigates, a
/// dismissal or a read ("Help", "Preview"), and whose words write. The one such
/// control, else the one of them that names storing ("Save", "Create", "Update"
/// beside a "Delete"); none when that leaves a choice.
fn scripted_submit(page: &Page<'_>, form: usize, claims: &Claims) -> Option<usize> {
    let mut writes = Vec::new();
    for b in page.descendants(form) {
        let e = &page.els[b];
        if !page.control(b)
            || page.field(b)
            || is_toggle(e)
            || !e.visible
            || e.disabled
            || claims.is_claimed(b)
            || page.form[b] != Some(form)
        {
            continue;
        }
        let href = e.attr("href").map(str::trim).unwrap_or("");
        if e.tag == "a" && !href.is_empty() && href != "#" && !href.starts_with("javascript:") {
            continue;
        }
        // A control that opens a dialog or a menu sends nothing ("Add allowed tags").
        if crate::controls::opens_popup(e) {
            continue;
        }
        let label = control_label(e);
        if label.is_empty() || crate::classify::is_dismiss(&label) {
            continue;
        }
        if crate::classify::from_words(&label)
            .is_some_and(|w| w.tier != nsp_protocol::Reversibility::Read && !w.mixed)
        {
            writes.push((b, crate::classify::names_storing(&label)));
        }
    }
    match writes.as_slice() {
        [(b, _)] => Some(*b),
        _ => {
            let mut storing = writes.iter().filter(|(_, s)| *s);
            match (storing.next(), storing.next()) {
                (Some((b, _)), None) => Some(*b),
                _ => None,
            }
        }
    }
}

/// The nearest container (at most four levels up, never past a region) that holds
/// fields outside any form. Inside a dialog, the dialog itself at the furthest: a
/// dialog's footer buttons act on the dialog's fields however deep those sit.
fn field_group(page: &Page<'_>, b: usize) -> Option<usize> {
    let dialog = page.in_dialog[b]
        .then(|| {
            page.ancestors(b)
                .find(|a| crate::page::is_dialog(&page.els[*a]))
        })
        .flatten();
    for (depth, a) in page.ancestors(b).enumerate() {
        if depth >= 4 && dialog.is_none() {
            break;
        }
        let has_fields = page.descendants(a).any(|i| {
            let e = &page.els[i];
            page.field(i) && page.form[i].is_none() && e.visible && !e.disabled && !is_toggle(e)
        });
        if has_fields {
            return Some(a);
        }
        // A region ends the search, but not the field-less `<form>` wrapping the button
        // (a form with fields of its own never gets here).
        if (page.region_el(a) && page.els[a].tag != "form") || Some(a) == dialog {
            break;
        }
    }
    None
}

/// What the step buttons of a number field say ("−" and "+" name themselves by an
/// `aria-label` of these). Symbols alone are not enough: a "+" beside a quantity may
/// add the line.
const STEP_LABELS: &[&str] = &[
    "increment",
    "decrement",
    "increase",
    "decrease",
    "increase value",
    "decrease value",
    "increment value",
    "decrement value",
    "increase quantity",
    "decrease quantity",
    "step up",
    "step down",
];

/// How far, in records, a step button stands from its field.
const STEP_REACH: usize = 3;

/// The number field (a number or text box) that button `b` steps, if it is one of its
/// step buttons: labelled as one ([`STEP_LABELS`]) and beside it, with no other field
/// between them (UI kits draw them around or after the input: Streamlit's and Dash's
/// "Increment" / "Decrease value"), or with no name at all, the field and two buttons
/// being all their wrapper holds (Bokeh's arrows, drawn by CSS). Only for a field an
/// agent can type into (enabled, not read-only):
/// then typing the number is the field's action and its buttons add nothing; beside a
/// read-only quantity they are the only way to change it, and stay actions.
pub fn steps_a_field(page: &Page<'_>, b: usize) -> Option<usize> {
    if !is_button(&page.els[b]) {
        return None;
    }
    // The field first: it rules out nearly every button without reading its label
    // (this runs for every button of every capture, twice).
    let before = (b.saturating_sub(STEP_REACH)..b)
        .rev()
        .find(|&i| page.field(i));
    let after = (b + 1..(b + 1 + STEP_REACH).min(page.els.len())).find(|&i| page.field(i));
    let field = [before, after].into_iter().flatten().find(|&f| {
        let field = &page.els[f];
        field.visible
            && !field.disabled
            && !field.has("readonly")
            && field.attr("aria-readonly") != Some("true")
            && (field.tag == "input" && matches!(field.input_type().as_ref(), "number" | "text")
                || field.role() == "spinbutton")
    })?;
    let label = control_label(&page.els[b]);
    let label = label.trim();
    // With no name at all: one of two buttons that are, with the field, all their
    // wrapper holds (a spinner's arrows).
    if label.is_empty() {
        let kids = page.children(page.parent[b]?);
        return (kids.len() == 3
            && kids.contains(&field)
            && kids.iter().all(|&k| k == field || is_button(&page.els[k])))
        .then_some(field);
    }
    STEP_LABELS
        .iter()
        .any(|s| s.eq_ignore_ascii_case(label))
        .then_some(field)
}

/// Claims the buttons that belong to a field: the step buttons of every number field an
/// agent can type into (see [`steps_a_field`]) and the tag buttons of a combobox of many
/// choices (below). No action of their own, and none that takes them for a form's
/// submit.
pub fn claim_fields_buttons(page: &Page<'_>, claims: &mut Claims) {
    for b in 0..page.els.len() {
        if !claims.is_claimed(b) && steps_a_field(page, b).is_some() {
            claims.claim(b);
        }
        // The tags of a combobox of many choices (`multiple`, from `manyChoices` in
        // extract.js) are its value: their "Remove client" buttons and its "Clear all",
        // in the group around it, are the field's own (the dispatcher removes tags as it
        // fills it), neither actions nor a form's submit.
        let e = &page.els[b];
        // What a picker holds (the element Angular Material listens on to open it, Dash's
        // "Clear selection") is the picker's own: it opens or empties the field.
        if crate::page::is_picker(e) {
            for t in page.descendants(b) {
                claims.claim(t);
            }
        }
        if e.role() == "combobox" && e.has("multiple") {
            let group = page.parent[b].unwrap_or(b);
            for t in page.descendants(group) {
                if !is_button(&page.els[t]) {
                    continue;
                }
                let label = control_label(&page.els[t]);
                let starts = |w: &str| {
                    label
                        .get(..w.len())
                        .is_some_and(|h| h.eq_ignore_ascii_case(w))
                };
                if starts("remove ") || starts("delete ") || label.eq_ignore_ascii_case("clear all")
                {
                    claims.claim(t);
                }
            }
        }
    }
}

/// A field a form sends: the page's fields, and a custom select (`role=listbox`, chosen
/// by clicking one of its options), which is no field anywhere else: outside a form its
/// options are a list of records.
fn form_field(page: &Page<'_>, i: usize) -> bool {
    page.field(i)
        || (page.els[i].role() == "listbox"
            && !combobox_popup(page, i)
            // Options drawn around boxes of their own (Dash's `dcc.Checklist`): the
            // boxes are the fields.
            && !page.descendants(i).any(|d| page.field(d)))
}

/// Whether listbox `i` is the popup a combobox names (`aria-controls`, `aria-owns`): the
/// suggestions of a field a person types into (an autocomplete's open list), chosen
/// through that field, no choice of its own.
fn combobox_popup(page: &Page<'_>, i: usize) -> bool {
    let Some(id) = page.els[i]
        .attr("id")
        .map(str::trim)
        .filter(|id| !id.is_empty())
    else {
        return false;
    };
    page.els.iter().any(|e| {
        (e.role() == "combobox" || e.has("aria-autocomplete"))
            && [e.attr("aria-controls"), e.attr("aria-owns")]
                .into_iter()
                .flatten()
                .any(|ids| ids.split_whitespace().any(|x| x == id))
    })
}

/// A `<button>`, `role=button`, or an `<input>` of type button or submit.
fn is_button(e: &ElementRecord) -> bool {
    e.tag == "button"
        || e.role() == "button"
        || (e.tag == "input" && matches!(e.input_type().as_ref(), "button" | "submit"))
}

fn is_toggle(e: &ElementRecord) -> bool {
    (e.tag == "input" && matches!(e.input_type().as_ref(), "checkbox" | "radio"))
        || matches!(e.role(), "switch" | "checkbox" | "radio")
}

pub fn is_submit(e: &ElementRecord) -> bool {
    (e.tag == "button"
        && e.attr("type")
            .is_none_or(|t| t.eq_ignore_ascii_case("submit")))
        || (e.tag == "input" && matches!(e.input_type().as_ref(), "submit" | "image"))
}

pub fn form_facts(
    page: &Page<'_>,
    form: usize,
    fields: &[usize],
    has_other_submit: bool,
    implicit: bool,
) -> FormFacts {
    let f = &page.els[form];
    FormFacts {
        method: if implicit {
            None
        } else {
            f.attr("method").map(|m| m.trim().to_ascii_lowercase())
        },
        action_url: f.attr("action").unwrap_or("").to_owned(),
        has_password: fields
            .iter()
            .any(|i| is_secret(&page.els[*i]) && !is_payment(&page.els[*i])),
        has_payment: fields.iter().any(|i| is_payment(&page.els[*i])),
        composes: composes(page, fields),
        login: login(page, fields),
        data_fields: fields
            .iter()
            .filter(|i| {
                let e = &page.els[**i];
                e.visible && e.input_type() != "hidden" && !is_search_box(page, **i)
            })
            .count(),
        implicit,
        has_other_submit,
        edits_record: edits_record(page, form, fields),
        stores_record: headed_as_storing(page, form),
    }
}

/// Whether form `form`'s own heading, or the title of the dialog it sits in, opens with
/// a verb that stores a record ([`FormFacts::stores_record`]). The dialog's title: the
/// element its `aria-labelledby` names, else its first heading.
fn headed_as_storing(page: &Page<'_>, form: usize) -> bool {
    let heading = |i: usize| {
        matches!(
            page.els[i].tag.as_str(),
            "legend" | "h1" | "h2" | "h3" | "h4"
        ) || page.els[i].role() == "heading"
    };
    if let Some(i) = page.descendants(form).find(|&i| heading(i)) {
        return crate::classify::names_storing(&page.els[i].text);
    }
    let Some(dialog) = page
        .ancestors(form)
        .find(|a| crate::page::is_dialog(&page.els[*a]))
    else {
        return false;
    };
    let labelled = page.els[dialog]
        .attr("aria-labelledby")
        .and_then(|id| page.by_id(id))
        .filter(|i| page.descendants(dialog).contains(i));
    labelled
        .or_else(|| page.descendants(dialog).find(|&i| heading(i)))
        .is_some_and(|i| crate::classify::names_storing(&page.els[i].text))
}

/// Whether form `form` edits a record that exists ([`FormFacts::edits_record`]).
fn edits_record(page: &Page<'_>, form: usize, fields: &[usize]) -> bool {
    let filled = fields.iter().any(|&i| {
        let e = &page.els[i];
        e.visible
            && (e.tag == "textarea"
                || (e.tag == "input"
                    && matches!(e.input_type().as_ref(), "" | "text" | "number" | "date")))
            && e.attr("value").is_some_and(|v| !v.trim().is_empty())
            && !is_search_box(page, i)
    });
    if !filled {
        return false;
    }
    let says_edit = |text: &str| {
        crate::text::words(text)
            .first()
            .is_some_and(|w| w == "edit" || w == "editing")
    };
    let view = crate::text::view_of(&page.snap.url);
    let in_path = view
        .split(['/', '#'])
        .any(|seg| seg.eq_ignore_ascii_case("edit"));
    let heading = |i: usize| matches!(page.els[i].tag.as_str(), "legend" | "h1" | "h2" | "h3");
    let own = page
        .descendants(form)
        .find(|&i| heading(i))
        .is_some_and(|i| says_edit(&page.els[i].text));
    let page_heading = (0..page.els.len())
        .find(|&i| page.els[i].tag == "h1")
        .is_some_and(|i| says_edit(&page.els[i].text));
    in_path || own || page_heading
}

/// A field that searches or filters what is shown (`type=search`, `role=searchbox`, in
/// a `role=search`, or named "Search…" / "Filter…"): what it holds is a query, not a
/// record's data.
/// Whether field `i` takes data a person types or chooses: no checkbox, radio button,
/// switch or file, no search or filter box.
pub fn holds_data(page: &Page<'_>, i: usize) -> bool {
    let e = &page.els[i];
    !is_toggle(e)
        && !matches!(e.input_type().as_ref(), "file" | "hidden")
        && !matches!(e.role(), "radio" | "slider")
        && !is_search_box(page, i)
}

fn is_search_box(page: &Page<'_>, i: usize) -> bool {
    let e = &page.els[i];
    e.input_type() == "search"
        || e.role() == "searchbox"
        || page
            .ancestors(i)
            .take(3)
            .any(|a| page.els[a].role() == "search")
        || crate::text::words(&field_label(page, e))
            .first()
            .is_some_and(|w| matches!(w.as_str(), "search" | "filter" | "find"))
}

/// Whether search box `i`'s own words name the opening verb of button label `label`
/// ("Search or add a tag" beside "Add"). Otherwise a search box is how the page finds
/// things, not something a button outside any form sends: the "Add" or "Save" of a
/// toolbar beside it, or any button of a page whose records are too flat to tell
/// groups apart (Actual Budget's "Add account" and "Add New" took its transactions'
/// search box as a parameter), leaves it out.
fn names_verb_of(page: &Page<'_>, i: usize, label: &str) -> bool {
    let words = crate::text::words(label);
    let Some(verb) = words.first() else {
        return false;
    };
    crate::text::words(&field_label(page, &page.els[i]))
        .iter()
        .skip(1)
        .any(|w| w == verb)
}

/// A user field and exactly one password that is not a new one, and little else: a
/// login form.
fn login(page: &Page<'_>, fields: &[usize]) -> bool {
    let visible: Vec<&ElementRecord> = fields
        .iter()
        .map(|i| &page.els[*i])
        .filter(|e| e.visible && e.input_type() != "hidden")
        .collect();
    let passwords: Vec<&&ElementRecord> = visible
        .iter()
        .filter(|e| e.input_type() == "password")
        .collect();
    let new_password = passwords.iter().any(|e| {
        e.attr("autocomplete")
            .is_some_and(|a| a.contains("new-password"))
    });
    let user = visible.iter().any(|e| {
        matches!(e.input_type().as_ref(), "text" | "email" | "")
            && (e
                .attr("autocomplete")
                .is_some_and(|a| a.contains("username") || a.contains("email"))
                || crate::text::words(&field_label(page, e)).iter().any(|w| {
                    matches!(
                        w.as_str(),
                        "user" | "username" | "login" | "email" | "e" | "name"
                    )
                }))
    });
    passwords.len() == 1 && !new_password && user && visible.len() <= 4
}

/// A field of recipients' addresses and a message among the fields: sent (the
/// classifier asks for a send verb too), what the form holds reaches people. A field of
/// addresses is an email field, or one named "To" or "Recipients"; a "CC" box alone
/// beside a text is a record's field, not a message's recipients.
fn composes(page: &Page<'_>, fields: &[usize]) -> bool {
    let recipient = fields.iter().any(|i| {
        let e = &page.els[*i];
        e.input_type() == "email" || {
            let w = crate::text::words(&field_label(page, e));
            w.first().is_some_and(|w| w == "to")
                || w.iter().any(|w| w == "recipient" || w == "recipients")
        }
    });
    let message = fields.iter().any(|i| {
        let e = &page.els[*i];
        e.tag == "textarea" || is_editable(e)
    });
    recipient && message
}

/// The name a person reads on the one text field of a form (its `aria-label`, label,
/// placeholder or title; never its `name` or id), or nothing when the form has another
/// number of fields or its one field is not a text entry.
fn entry_name(page: &Page<'_>, fields: &[usize]) -> String {
    let [only] = fields else {
        return String::new();
    };
    let e = &page.els[*only];
    let text_entry = e.tag == "textarea"
        || (e.tag == "input"
            && matches!(
                e.input_type().as_ref(),
                "" | "text" | "search" | "url" | "email"
            ));
    if !text_entry {
        return String::new();
    }
    [
        e.attr("aria-label"),
        Some(e.label.as_str()),
        e.attr("placeholder"),
        e.attr("title"),
    ]
    .into_iter()
    .flatten()
    .map(str::trim)
    .find(|s| crate::page::names_something(s))
    // A search field says what it is by its type, when it has no words of its own.
    .unwrap_or(if e.input_type() == "search" || e.role() == "searchbox" {
        "Search"
    } else {
        ""
    })
    .to_owned()
}

/// One form-like action: `control` is what gets clicked (or the form itself).
#[allow(clippy::too_many_arguments)]
pub fn build(
    page: &Page<'_>,
    form: usize,
    control: usize,
    label: &str,
    fields: &[usize],
    facts: &FormFacts,
    ns: Option<String>,
    declared: Option<(&str, Option<Declared>, Option<&str>)>,
) -> Found {
    let c = &page.els[control];
    let f = &page.els[form];
    // A form with no button and no name of its own, sent by Enter from its one field,
    // does what that field's name says to a person ("New todo", "Search"): the words
    // are judged as the button's would be (its name stays the form's).
    let entry = if form == control && label.trim().is_empty() {
        entry_name(page, fields)
    } else {
        String::new()
    };
    let judged = if entry.is_empty() { label } else { &entry };
    let mut ev = Evidence::on_page(Kind::Submit, judged, page, control);
    let own = submitter_facts(c, facts);
    ev.form = Some(own.as_ref().unwrap_or(facts));
    ev.disabled = c.disabled;
    ev.danger = is_danger_class(c.classes());
    ev.confirms = crate::page::asks_confirm(c);
    ev.declared = declared.and_then(|d| d.1);
    // What the page says the form does: its WebMCP `tooldescription`, else its
    // `data-nsp-description`. Evidence like any other text.
    ev.description = f
        .attr("tooldescription")
        .or(declared.and_then(|d| d.2))
        .unwrap_or("");
    let verdict = classify(&ev);

    let (name, description) = match declared {
        Some((name, _, desc)) => (
            name.to_owned(),
            desc.map(str::to_owned)
                .unwrap_or_else(|| describe(page, form, control, label)),
        ),
        None => {
            // A form sent by Enter from its one field is named by that field ("New
            // todo", "Search") when it has no name of its own.
            let mut name = slug(if label.trim().is_empty() {
                &entry
            } else {
                without_shortcut(label)
            });
            if name.is_empty() {
                name = match &ns {
                    Some(ns) => format!("submit_{ns}"),
                    None => "submit".into(),
                };
            } else if GENERIC_LABELS.contains(&name.as_str()) && form != control {
                if let Some(ns) = ns.as_deref().filter(|ns| *ns != name) {
                    // "send" stays "send" on a page whose compose form is its only form;
                    // collisions are qualified later anyway. Generic verbs that name no
                    // object read better with one.
                    if name != "send" {
                        name = format!("{name}_{ns}");
                    }
                }
            }
            (name, describe(page, form, control, label))
        }
    };
    let mut description = description;
    if c.disabled {
        description.push_str(" (the button is disabled until the form is valid)");
    }
    let mut action = Found::new(
        name,
        if declared.is_some() {
            Source::Declared
        } else {
            Source::Form
        },
        verdict,
        description,
    );
    action.ns = ns;
    let (params, targets) = field_params(page, fields);
    action.schema.signature = signature(&params, "bool");
    action.schema.parameters = params;
    action.schema.internal_target = format!("dom:{}", page.selector(control));
    action.explain.parameters = targets;
    if c.disabled {
        action
            .explain
            .signals
            .push("the submit control is disabled right now".into());
    }
    action.bind(page, control);
    if form != control {
        action.bind(page, form);
    }
    // The fields are this action's parameters: switches and choices among them are
    // understood, not loose controls.
    for &f in fields {
        action.cover(f);
    }
    action
}

fn describe(page: &Page<'_>, form: usize, control: usize, label: &str) -> String {
    let f = &page.els[form];
    let form_name = f
        .attr("aria-label")
        .map(str::to_owned)
        .or_else(|| Some(f.label.clone()).filter(|l| !l.is_empty()))
        .or_else(|| page.namespace_incl(form).map(humanize));
    match (form_name, form == control) {
        (Some(n), false) => format!(
            "Fill the \"{}\" form and press \"{}\"",
            clip(&n, 60),
            clip(without_shortcut(label), 60)
        ),
        (None, false) => format!(
            "Fill the form and press \"{}\"",
            clip(without_shortcut(label), 60)
        ),
        (Some(n), true) => format!("Fill the \"{}\" form and submit it", clip(&n, 60)),
        (None, true) => "Fill the form and submit it".into(),
    }
}

/// The most parameters an action has. Real forms have dozens (the corpus: 12 at most);
/// a page of thousands of fields and many buttons would otherwise make a capture of
/// their product (2,400 fields and 44 buttons: 48 MB) in the worker every tab shares.
const MAX_PARAMETERS: usize = 200;

/// Typed parameters from fields, and the selector each one fills.
pub fn field_params(
    page: &Page<'_>,
    fields: &[usize],
) -> (Vec<ActionParameter>, BTreeMap<String, String>) {
    let mut params: Vec<ActionParameter> = Vec::new();
    let mut targets = BTreeMap::new();
    let mut groups: HashMap<String, Vec<usize>> = HashMap::default();
    let mut order: Vec<String> = Vec::new();
    // Parameters named by what their field is, for want of anything naming them.
    let mut unnamed: Vec<String> = Vec::new();
    let mut next_number: HashMap<String, usize> = HashMap::default();
    // Radio buttons with no `name` in one group (`page::radio_group`): one parameter.
    let mut radio_groups: Vec<(usize, String)> = Vec::new();
    for &i in fields {
        let e = &page.els[i];
        // A disabled field a box enables (the extraction's `enabled_by`: "Allow
        // updating this column") is a parameter: the dispatcher ticks the box first.
        let enabled = e.attr("enabled_by").is_some();
        if !e.visible
            || (e.disabled && !enabled)
            || (e.tag == "input" && e.input_type() == "file")
            || crate::page::slider_twin(page, i)
        {
            continue;
        }
        let group = crate::page::radio_group(page, i);
        if let Some((_, name)) = group
            .as_ref()
            .and_then(|g| radio_groups.iter().find(|(c, _)| *c == g.members[0]))
        {
            crate::members(&mut groups, name.clone()).push(i);
            continue;
        }
        let named = match &group {
            Some(g) => Some(
                crate::page::radio_group_name(page, g)
                    .map_or(("choice".to_owned(), true), |n| (n, false)),
            ),
            None => param_name(page, e),
        };
        let Some((mut name, by_role)) = named else {
            continue;
        };
        if by_role {
            // Fields named by what they are (two unnamed text boxes) are two parameters.
            name = crate::text::number_on(name, &mut next_number, &|n| groups.contains_key(n));
            unnamed.push(name.clone());
        }
        if let Some(g) = group {
            radio_groups.push((g.members[0], name.clone()));
        }
        if !groups.contains_key(&name) {
            order.push(name.clone());
        }
        crate::members(&mut groups, name).push(i);
    }
    // The first MAX_PARAMETERS fields; the rest keep what the page holds.
    order.truncate(MAX_PARAMETERS);
    for name in order {
        let members = &groups[&name];
        let first = &page.els[members[0]];
        let kind = first.input_type();
        let is_input = first.tag == "input";
        let secret = members.iter().any(|i| is_secret(&page.els[*i]));
        // A group of radio buttons `page::radio_group` found (no name, or a generated
        // one).
        let found_group = radio_groups.iter().any(|(_, n)| *n == name);
        // A secret field's label may be where the page mirrors what is typed: it is
        // described by its name, which never comes from there (`param_name`).
        // A group of radio buttons with no `name` is described by its own name, not
        // by its first option's label.
        let label = if secret {
            String::new()
        } else if found_group {
            crate::text::humanize(&name)
        } else {
            field_label(page, first)
        };
        let required = members.iter().any(|i| {
            let e = &page.els[*i];
            e.has("required") || e.attr("aria-required") == Some("true")
        });
        let declared_desc = first
            .attr("data-nsp-description")
            .or_else(|| first.attr("toolparamdescription"))
            .map(|d| clip(d, 160));
        let (type_name, allowed, default, hint): (&str, Option<Vec<Value>>, Option<Value>, String) =
            if is_input && kind == "radio" {
                // Its values, unless they name nothing (pyLoad's "1" and "0" for
                // "Queue" and "Packages", Streamlit's "0", "1", "2"): then what its
                // options say.
                let choices = crate::page::group_choices(page, members);
                let checked = members
                    .iter()
                    .position(|i| page.els[*i].attr("checked") == Some("true"))
                    .map(|k| Value::String(choices[k].clone()));
                let values: Vec<Value> = choices.into_iter().map(Value::String).collect();
                (
                    "string",
                    Some(values),
                    checked,
                    "one of the allowed values".into(),
                )
            } else if is_input && kind == "checkbox" && members.len() > 1 {
                // Boxes sharing a name take the list of those to tick: their values,
                // or what their labels say where the values name nothing (I Hate
                // Money's "payed for" boxes are the members' ids, labelled by their
                // names), unless every label starts alike (Django's row boxes, "Select
                // this object for an action - Dentist"): a row's box is chosen by its
                // row's own action, and a list's labels would repeat those words on
                // every row.
                let choices = crate::page::group_choices(page, members);
                let first = choices.first().and_then(|c| c.split_whitespace().next());
                let alike = choices.iter().all(|c| c.split_whitespace().next() == first);
                let values: Vec<Value> = choices
                    .into_iter()
                    .zip(members)
                    .map(|(c, i)| {
                        let value = page.els[*i].attr("value").unwrap_or("on");
                        Value::String(if alike { value.to_owned() } else { c })
                    })
                    .collect();
                (
                    "array",
                    Some(values),
                    None,
                    "a list of the allowed values to check".into(),
                )
            } else if (is_input && kind == "checkbox")
                || matches!(first.role(), "switch" | "checkbox" | "radio")
            {
                // An ARIA radio button (Quasar's, Radix's: a `div` or `button` with
                // `role=radio`) is chosen by a click, as a box is ticked; a click does
                // not clear it, choosing another option of its group does.
                let on = first.attr("checked") == Some("true")
                    || first.attr("aria-checked") == Some("true");
                (
                    "boolean",
                    None,
                    Some(Value::Bool(on)),
                    "true to check it, false to clear it".into(),
                )
            } else if matches!(first.role(), "combobox" | "searchbox") && first.has("multiple") {
                // A combobox of many choices, or the search box of a widget of many
                // choices standing in for a hidden `<select multiple>` (`manyChoices` in
                // extract.js): the options to keep as its tags, which its list offers
                // once it is open.
                (
                    "array",
                    None,
                    None,
                    "a list of the options to choose".into(),
                )
            } else if crate::page::is_picker(first) {
                // A select drawn as a button: its options exist only once it is open.
                (
                    "string",
                    None,
                    crate::page::picker_default(first),
                    "one of the options its list shows when opened".into(),
                )
            } else if first.tag == "select" {
                let (choices, chosen) = crate::page::select_choices(first);
                let options: Vec<Value> = choices.into_iter().map(Value::String).collect();
                let multiple = first.has("multiple");
                let default = chosen.map(Value::String);
                (
                    if multiple { "array" } else { "string" },
                    (!options.is_empty()).then_some(options),
                    if multiple { None } else { default },
                    "one of the allowed values (the list's options)".into(),
                )
            } else if first.role() == "listbox" {
                // Its options' texts are the values; dispatch.js clicks the option
                // whose text (or value attribute) matches.
                let options: Vec<usize> = page
                    .descendants(members[0])
                    .filter(|d| page.els[*d].role() == "option" && page.els[*d].visible)
                    .collect();
                let values: Vec<Value> = options
                    .iter()
                    .map(|d| page.els[*d].text.trim())
                    .filter(|t| !t.is_empty())
                    .map(|t| Value::String(clip(t, 200)))
                    .collect();
                let selected = options
                    .iter()
                    .find(|d| page.els[**d].attr("aria-selected") == Some("true"))
                    .map(|d| page.els[*d].text.trim())
                    .filter(|t| !t.is_empty())
                    .map(|t| Value::String(clip(t, 200)));
                (
                    "string",
                    (!values.is_empty()).then_some(values),
                    selected,
                    "one of the allowed values (the list's options)".into(),
                )
            } else if (is_input && matches!(kind.as_ref(), "number" | "range"))
                || crate::page::is_aria_slider(first)
            {
                let mut hint = "a number".to_owned();
                if let (Some(min), Some(max)) = (first.attr("min"), first.attr("max")) {
                    hint = format!("a number from {} to {}", clip(min, 12), clip(max, 12));
                }
                let default = first
                    .attr("value")
                    .and_then(|v| crate::text::parse_number(v.trim()));
                ("number", None, default, hint)
            } else {
                let hint = match (is_input, kind.as_ref()) {
                    _ if is_secret(first) => "secret: never echoed in the state".to_owned(),
                    // A read-only field that opens a list (Quasar's QSelect, Mantine's
                    // Select): the dispatcher chooses the option saying the value.
                    _ if first.has("readonly")
                        && (first.role() == "combobox"
                            || first.attr("aria-haspopup") == Some("listbox")) =>
                    {
                        "one of the options its list shows when opened".to_owned()
                    }
                    (true, "email") => "an email address".into(),
                    (true, "tel") => "a phone number".into(),
                    (true, "url") => "a URL".into(),
                    (true, "date") => "a date, YYYY-MM-DD".into(),
                    (true, "time") => "a time, HH:MM".into(),
                    (true, "datetime-local") => "a date and time, YYYY-MM-DDTHH:MM".into(),
                    (true, "month") => "a month, YYYY-MM".into(),
                    (true, "search") => "search terms".into(),
                    _ => "free text".into(),
                };
                let default = if is_secret(first) {
                    None
                } else if crate::page::holds_lines(first) {
                    // What the field's object holds (its lines kept), so that the model
                    // view can say it once.
                    Some(crate::page::held_value(first))
                        .filter(|v| v.as_str().is_some_and(|t| !t.is_empty()))
                } else {
                    first
                        .attr("value")
                        .filter(|v| !v.is_empty())
                        .map(|v| Value::String(clip(v, 200)))
                };
                ("string", None, default, hint)
            };
        let description = declared_desc.unwrap_or_else(|| {
            let label = if label.is_empty() {
                humanize(&name)
            } else {
                label
            };
            match unnamed
                .contains(&name)
                .then(|| page.text_before(members[0]))
                .flatten()
            {
                // Nothing names the field: what the page says right before it is what
                // a person reads to know what to type ("enter the phrase DELETE").
                Some(before) => clip(
                    &format!(
                        "{label}: {hint}; the page says before it: \"{}\"",
                        clip(before, 160)
                    ),
                    240,
                ),
                None => clip(&format!("{label}: {hint}"), 160),
            }
        });
        // A field a box enables says so: giving it a value ticks that box too.
        let description = match first.attr("enabled_by") {
            Some(by) => clip(
                &format!("{description}; filling it first ticks \"{}\"", clip(by, 60)),
                240,
            ),
            None => description,
        };
        targets.insert(name.clone(), page.selector(members[0]));
        params.push(ActionParameter {
            name,
            type_name: type_name.into(),
            required,
            description,
            allowed_values: allowed,
            default_value: default,
            secret,
        });
    }
    (params, targets)
}

/// The parameter a field fills: `data-nsp-param`, its `name`, its stable id, its label
/// ([`field_label`]), else what it is (`text`, `date`…: [`crate::page::role_name`]; the
/// `bool` says so). Never its value, a colour, a number or a generated id. A secret
/// field's: its `name` or id, else its kind (`crate::page::secret_name`), never a label
/// or a declared name.
pub fn param_name(page: &Page<'_>, e: &ElementRecord) -> Option<(String, bool)> {
    let secret = is_secret(e);
    // Written for scripts, kept as written when it is an identifier.
    let coded = |raw: &str| -> Option<String> {
        let raw = raw.trim();
        if is_identifier(raw) && !raw.contains(['.', '-']) {
            return Some(raw.to_owned());
        }
        Some(slug(raw)).filter(|s| !s.is_empty())
    };
    let declared = e
        .attr("data-nsp-param")
        .filter(|p| !p.contains('=') && !secret);
    if let Some(name) = declared
        .or_else(|| page.name_of(e).filter(|n| crate::page::names_something(n)))
        .and_then(coded)
    {
        return Some((name, false));
    }
    if secret {
        let id = page.id_of(e);
        return Some((
            id.and_then(coded)
                .unwrap_or_else(|| crate::page::secret_name(page, e)),
            false,
        ));
    }
    // What a person reads beside the field names it before its id does: ids are for
    // scripts ("field-7", "mui-3"), used only when nothing else names the field.
    let read = [
        e.attr("aria-label"),
        Some(e.label.as_str()),
        crate::page::content_name(e),
        e.attr("placeholder"),
        e.attr("title"),
    ]
    .into_iter()
    .flatten()
    .find(|s| crate::page::names_something(s))
    .map(slug)
    .filter(|s| !s.is_empty());
    if let Some(name) = read {
        return Some((name, false));
    }
    if let Some(name) = page
        .id_of(e)
        .filter(|id| crate::page::names_something(id))
        .and_then(coded)
    {
        return Some((name, false));
    }
    Some((crate::page::role_name(e).to_owned(), true))
}

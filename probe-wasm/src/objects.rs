//! Objects: the page's state as flat dot paths that stay the same from capture to
//! capture for the same page structure, so agents can write verify expressions
//! against them (`inbox.unread_count`, `inbox.emails[0].subject`).
//!
//! Sources: `data-nsp-key` declarations (exact, trusted), lists (indexed records, or
//! items keyed by their label in navigation and menus), elements with stable ids
//! (counters and labelled values, namespaced by their region), form field values (never
//! secrets: only whether they are filled), toggle states (`aria-pressed`,
//! `aria-checked`, `aria-expanded`; `aria-selected` as a tablist's selected tab), status
//! messages, `<dl>` pairs, meters, microdata and JSON-LD.
//!
//! How a key is named, so that an agent can tell what a value is: a value is keyed by
//! its own accessible name or label, or by the label of the item holding it, never by
//! its position when a name exists (`folders.inbox.count`, not `folders.items[0].badge`);
//! numbers are left out of names, so a counter going from 2 to 3 keeps its key. Records
//! of data lists and tables, which have no name of their own, keep `[N]`.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::lists::{
    declared_element_value, item_fields, record_fields_sourced, resolve_declared_path, slug_key,
    toggle_states_named, Lists, PropertyCell, TextSource, MAX_RECORDS,
};
use crate::page::{control_label, is_field, is_heading, is_secret, ElementRecordExt, Page};
use crate::text::{
    clip, declared_value, name_value_pairs, parse_number, slug, typed_value, MAX_VALUE_LEN,
};
use crate::HashMap;

/// Most keys one capture reports, unless configured otherwise ([`Limits`]).
pub const MAX_OBJECTS: usize = 1500;
/// Bounds on what the probe may be configured to report: a capture crosses the wasm
/// boundary and the extension channel as one string.
pub const MAX_OBJECTS_CEILING: usize = 100_000;

/// How much of a page goes into `objects`: the probe's configuration sets these (nspd's
/// `[probe]` settings reach it through the extension).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most keys one capture reports.
    pub max_objects: usize,
    /// Most records one list contributes; the rest are counted in `<list>_total`.
    pub max_list_records: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_objects: MAX_OBJECTS,
            max_list_records: MAX_RECORDS,
        }
    }
}

impl Limits {
    /// Within the bounds: at least one key and one record, at most
    /// [`MAX_OBJECTS_CEILING`] of either.
    pub fn clamped(self) -> Limits {
        Limits {
            max_objects: self.max_objects.clamp(1, MAX_OBJECTS_CEILING),
            max_list_records: self.max_list_records.clamp(1, MAX_OBJECTS_CEILING),
        }
    }
}

/// Most keys one JSON-LD block contributes.
const MAX_JSON_LD_KEYS: usize = 60;

#[derive(Debug, Default)]
pub struct Objects {
    pub values: BTreeMap<String, Value>,
    /// Keys found before the caps applied.
    pub raw_count: usize,
    /// A cap left something out: keys past `max_objects`, or records past
    /// `max_list_records` (counted in `<list>_total`).
    pub truncated: bool,
    max_objects: usize,
    /// Keys read from one element's text, and how: a change of that text alone can be
    /// applied to these keys without a full analysis.
    pub text_sources: Vec<(usize, String, TextSource)>,
}

impl Objects {
    fn put(&mut self, key: String, value: Value) {
        self.put_from(key, value, None);
    }

    /// Every key passes here: one the page chose that would shadow a name of the
    /// product's (`confidence`, `context.url`, `gate.*`: `nsp_protocol::reserved`) is
    /// renamed `page.<key>`.
    fn put_from(&mut self, key: String, value: Value, src: Option<(usize, TextSource)>) {
        if key.is_empty() || key.len() > 200 {
            return;
        }
        let key = match nsp_protocol::reserved::page_key(&key) {
            std::borrow::Cow::Borrowed(_) => key,
            std::borrow::Cow::Owned(renamed) => renamed,
        };
        self.raw_count += 1;
        if self.values.contains_key(&key) {
            // The first writer of a key wins: declarations run first.
            return;
        }
        if self.values.len() < self.max_objects {
            if let Some((i, how)) = src {
                self.text_sources.push((i, key.clone(), how));
            }
            self.values.insert(key, value);
        } else {
            self.truncated = true;
        }
    }
}

/// The value an element's text gives under `how` (see [`TextSource`]).
pub fn text_value(e: &nsp_protocol::snapshot::ElementRecord, how: TextSource) -> Option<Value> {
    match how {
        TextSource::Typed => typed_value(&e.text),
        TextSource::TypedOrEmpty => {
            typed_value(&e.text).or_else(|| Some(Value::String(String::new())))
        }
        TextSource::Plain => {
            let t = e.text.trim();
            (!t.is_empty()).then(|| Value::String(clip(t, MAX_VALUE_LEN)))
        }
        TextSource::Declared => declared_element_value(e),
    }
}

/// `limits` as given: the probe's constructors clamp them, and any value is safe here.
pub fn extract(page: &Page<'_>, lists: &Lists, limits: Limits) -> Objects {
    let mut out = Objects {
        max_objects: limits.max_objects,
        ..Objects::default()
    };
    declared(page, &mut out);
    for list in &lists.lists {
        if let Some(names) = &list.item_names {
            // Named items: `folders.inbox.count`, `folders.sent.current`.
            for (row, name) in list.rows.iter().zip(names) {
                let base = list.path.clone() + "." + name + ".";
                for (field, value) in item_fields(page, list, *row) {
                    out.put(base.clone() + &field, value);
                }
            }
            continue;
        }
        for (n, row) in list.rows.iter().take(limits.max_list_records).enumerate() {
            for (field, value, src) in record_fields_sourced(page, list, *row) {
                out.put_from(format!("{}[{n}].{field}", list.path), value, src);
            }
        }
        if list.rows.len() > limits.max_list_records {
            out.truncated = true;
            out.put(format!("{}_total", list.path), Value::from(list.rows.len()));
        } else if let Some(total) = list.declared_total {
            // A virtualized list shows a window of its rows: how many it has in all.
            out.put(format!("{}_total", list.path), Value::from(total));
        }
    }
    // Which menu is open, and whose (a record's "More" menu).
    for (key, value) in crate::controls::open_menu_objects(page, lists) {
        out.put(key, value);
    }
    heuristics(page, lists, &mut out);
    microdata(page, &mut out);
    json_ld(page, &mut out);
    prose(page, lists, &mut out);
    out
}

fn declared(page: &Page<'_>, out: &mut Objects) {
    for (i, e) in page.els.iter().enumerate() {
        let Some(key) = e.attr("data-nsp-key").map(str::trim) else {
            continue;
        };
        if key.ends_with("[]") || (key.starts_with('.') && page.record[i].is_some()) {
            // Records and their fields come with the lists.
            continue;
        }
        let path = resolve_declared_path(page, i, key);
        if path.is_empty() {
            continue;
        }
        if is_secret(e) {
            // Whatever the page declares on a secret field (`data-nsp-value`,
            // `data-nsp-fields`) may be what was typed: only whether it is filled.
            out.put(format!("{path}_filled"), Value::Bool(secret_filled(e)));
            continue;
        }
        if let Some(pairs) = e.attr("data-nsp-fields") {
            for (name, raw) in name_value_pairs(pairs) {
                out.put(format!("{path}.{}", slug_key(&name)), declared_value(&raw));
            }
        }
        let is_container = page.descendants(i).any(|d| page.els[d].has("data-nsp-key"));
        if is_container && !e.has("data-nsp-value") {
            continue;
        }
        if let Some(v) = declared_element_value(e) {
            let src =
                (!e.has("data-nsp-value") && !is_field(e)).then_some((i, TextSource::Declared));
            out.put_from(path, v, src);
        }
    }
}

fn heuristics(page: &Page<'_>, lists: &Lists, out: &mut Objects) {
    let mut radio_done: HashMap<String, usize> = HashMap::default();
    let mut next: HashMap<String, usize> = HashMap::default();
    // Toggles drawn as icons and named by a title another toggle shares: each one's state
    // goes under the name its action has (`discover::settle_names`: `<name>_<icon>`),
    // not under one key the first of them would keep. Counted only on a page with such
    // icons (`nsp-icon`, extract.js).
    let mut shared: HashMap<String, usize> = HashMap::default();
    if page.els.iter().any(|e| e.has("nsp-icon")) {
        for (i, e) in page.els.iter().enumerate() {
            if page.control(i) && (e.has("aria-expanded") || e.has("aria-pressed")) {
                *crate::slot(&mut shared, crate::text::state_name(&control_label(e))) += 1;
            }
        }
    }
    let twin_name = |e: &nsp_protocol::snapshot::ElementRecord| -> Option<String> {
        let icon = slug(e.attr("nsp-icon")?);
        let name = crate::text::state_name(&control_label(e));
        (!icon.is_empty() && crate::kept(&shared, &name).is_some_and(|n| n > 1))
            .then(|| format!("{name}_{icon}"))
    };
    for (i, e) in page.els.iter().enumerate() {
        if page.declared_scope[i] || lists.record_of(page, i).is_some() {
            continue;
        }
        let ns = page.namespace(i);
        if page.field(i) {
            field_value(page, i, ns, &mut radio_done, &mut next, out);
            continue;
        }
        if !e.visible {
            continue;
        }
        if let Some(cell) = lists.property_cell(page, i) {
            // A table of labelled values: each `td` is the value its `th` names; the
            // `th` is a label, and a cell holding a control or field is reported by it.
            if let PropertyCell::Value(th) = cell {
                property_value(page, i, th, ns, out);
            }
            continue;
        }
        if e.role() == "tablist" {
            selected_tab(page, i, ns, out);
            continue;
        }
        if page.control(i) {
            let states = toggle_states_named(
                e,
                twin_name(e).or_else(|| crate::controls::picker_name(page, i)),
            );
            if !states.is_empty() {
                for (leaf, value) in states {
                    out.put(page.key_in(ns, &leaf), value);
                }
                continue;
            }
        }
        if let Some(id) = page.id_of(e) {
            // An element holding controls is a container, its text their labels. A skip
            // link is a link too, though no action: its words ("Skip to main") are a
            // label, never state, whether the page shows it or keyboard focus brings it
            // on screen.
            let holds_controls = page
                .descendants(i)
                .any(|d| page.control(d) || page.field(d) || skip_link(&page.els[d]));
            // A wrapper whose text is all an inner element's with an id of its own says
            // it once, under the inner one's key (Django's `#content-related` around
            // `#recent-actions-module`).
            let text = e.text.trim();
            let said_inside = || {
                page.descendants(i).any(|d| {
                    let inner = &page.els[d];
                    page.id_of(inner).is_some() && !page.region_el(d) && inner.text.trim() == text
                })
            };
            // A `<label>` names a field: its text is the field's name, never state; what
            // a picker shows is its value, said under the picker's key.
            if !page.control(i)
                && e.tag != "label"
                && !skip_link(e)
                && !page.region_el(i)
                && !holds_controls
                && !text.is_empty()
                && !said_inside()
                && !page
                    .ancestors(i)
                    .any(|a| crate::page::is_picker(&page.els[a]))
            {
                let leaf = slug(id);
                if !leaf.is_empty() {
                    if let Some(v) = typed_value(&e.text) {
                        out.put_from(page.key_in(ns, &leaf), v, Some((i, TextSource::Typed)));
                    }
                }
                continue;
            }
        }
        match e.role() {
            "status" | "alert" if !e.text.trim().is_empty() => {
                let leaf = if e.role() == "alert" {
                    "alert"
                } else {
                    "status"
                };
                out.put_from(
                    page.key_under(ns, leaf),
                    Value::String(clip(&e.text, MAX_VALUE_LEN)),
                    Some((i, TextSource::Plain)),
                );
                continue;
            }
            _ => {}
        }
        match e.tag.as_str() {
            "dd" => {
                // The dt before it names it.
                if let Some(p) = page.parent[i] {
                    let siblings = page.children(p);
                    if let Some(pos) = siblings.iter().position(|s| *s == i) {
                        if let Some(dt) = siblings[..pos]
                            .iter()
                            .rev()
                            .find(|s| page.els[**s].tag == "dt")
                        {
                            let leaf = slug(&page.els[*dt].text);
                            if let (false, Some(v)) = (leaf.is_empty(), typed_value(&e.text)) {
                                out.put_from(
                                    page.key_in(ns, &leaf),
                                    v,
                                    Some((i, TextSource::Typed)),
                                );
                            }
                        }
                    }
                }
            }
            "meter" | "progress" => {
                let leaf = e
                    .attr("aria-label")
                    .map(slug)
                    .or_else(|| Some(slug(&e.label)))
                    .filter(|s| !s.is_empty())
                    .unwrap_or_else(|| e.tag.clone());
                if let Some(v) = e.attr("value").and_then(|v| parse_number(v.trim())) {
                    out.put(page.key_in(ns, &leaf), v);
                }
            }
            "output" => {
                let leaf = e
                    .attr("name")
                    .map(slug)
                    .filter(|s| !s.is_empty())
                    .unwrap_or_else(|| "output".into());
                if let Some(v) = typed_value(&e.text) {
                    out.put(page.key_in(ns, &leaf), v);
                }
            }
            _ if is_heading(e) && e.tag == "h1" && !e.text.trim().is_empty() => {
                out.put(
                    page.key_under(ns, "heading"),
                    Value::String(clip(&e.text, MAX_VALUE_LEN)),
                );
            }
            "article" => article_text(page, i, out),
            _ if e.role() == "article" => article_text(page, i, out),
            _ => {}
        }
    }
}

/// [`crate::page::is_skip_link`], for a link (the tag first: it is asked of every
/// element under an element with an id).
fn skip_link(e: &nsp_protocol::snapshot::ElementRecord) -> bool {
    e.tag == "a" && crate::page::is_skip_link(e)
}

/// The text of an article that is no list record (a post, a note, a record's view),
/// readable: its paragraphs joined, bounded like any value, as `<ns>.text` (the
/// article's name, else its region's). A list's articles carry theirs as fields.
fn article_text(page: &Page<'_>, article: usize, out: &mut Objects) {
    let mut text = String::new();
    for d in page.descendants(article) {
        let e = &page.els[d];
        if e.tag != "p" || !e.visible || e.text.trim().is_empty() {
            continue;
        }
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(e.text.trim());
        if text.len() > MAX_VALUE_LEN * 2 {
            break;
        }
    }
    let Some(Value::String(v)) = typed_value(&text).filter(|v| v.is_string()) else {
        return;
    };
    // A record view named by its own heading keeps its text under that name.
    let ns = crate::page::own_name(page, &page.els[article])
        .or_else(|| page.namespace_incl(article).map(str::to_owned));
    out.put(page.key_under(ns.as_deref(), "text"), Value::String(v));
}

/// The running text of the page outside articles and records (a wiki page's body, a
/// ticket's description, what a confirmation page asks): the visible paragraphs of each
/// region joined, bounded like any value, as `<ns>.text` (`text` outside any named
/// region). Not the page's shell, a form's help, a dialog, a label, a control, an alert,
/// nor text the state already holds (an article's, a record's, one keyed by an id), nor
/// a paragraph that says nothing beside its links ([`says_more_than_its_links`]).
/// Written last: it shadows no other key.
fn prose(page: &Page<'_>, lists: &Lists, out: &mut Objects) {
    let n = page.els.len();
    if !page.els.iter().any(|e| e.tag == "p") {
        return;
    }
    // What each subtree holds (children come after their parent): a control or field,
    // and the page's content (its `main`, an `h1` or `h2`). Then, parents first, whether
    // an ancestor bars an element's paragraphs. Linear, whatever the page's nesting.
    let mut acts = vec![false; n];
    let mut content = vec![false; n];
    for i in (0..n).rev() {
        let e = &page.els[i];
        acts[i] |= page.control(i) || page.field(i);
        content[i] |= matches!(e.tag.as_str(), "main" | "h1" | "h2") || e.role() == "main";
        if let Some(p) = page.parent[i] {
            acts[p] |= acts[i];
            content[p] |= content[i];
        }
    }
    // An element with an id, holding no control, whose text the state keys by that id
    // (a container of many elements reads no text, and keys none).
    let said_by_id = |a: usize| {
        let e = &page.els[a];
        page.id_of(e).is_some() && !page.region_el(a) && !acts[a] && !e.text.trim().is_empty()
    };
    let bars = |a: usize| {
        let e = &page.els[a];
        crate::page::is_shell(e)
            || (!content[a] && names_shell(e))
            || matches!(e.tag.as_str(), "article" | "form" | "dialog" | "label")
            || matches!(
                e.role(),
                "article" | "dialog" | "alertdialog" | "alert" | "status" | "tooltip" | "form"
            )
            || page.control(a)
            || said_by_id(a)
    };
    // Whether an element or one of its ancestors bars the paragraphs below it, each
    // asked once.
    let mut closed = vec![false; n];
    let mut texts: Vec<(String, String)> = Vec::new();
    let mut at_key: HashMap<String, usize> = HashMap::default();
    for i in 0..n {
        let above = page.parent[i].is_some_and(|p| closed[p]);
        closed[i] = above || bars(i);
        let e = &page.els[i];
        if e.tag != "p" || !e.visible || above || said_by_id(i) || e.text.trim().is_empty() {
            continue;
        }
        if page.declared_scope[i] || lists.record_of(page, i).is_some() {
            continue;
        }
        let key = page.key_under(page.namespace(i), "text");
        let at = *at_key.entry(key.clone()).or_insert_with(|| {
            texts.push((key, String::new()));
            texts.len() - 1
        });
        let text = &mut texts[at].1;
        if text.len() > MAX_VALUE_LEN * 2 || !says_more_than_its_links(page, i) {
            continue;
        }
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(e.text.trim());
    }
    for (key, text) in texts {
        if let Some(Value::String(v)) = typed_value(&text).filter(Value::is_string) {
            out.put(key, Value::String(v));
        }
    }
}

/// Whether paragraph `p` says something of its own ([`prose`]): it holds no field or
/// control but links (a bar of controls drawn in a paragraph), nothing the state keys
/// already (an element with an id, an `output`, a declared key), and not only a few
/// words around its links, whose words are actions' names already ("This data as json,
/// CSV": fewer than four words of its own, or fewer than its links'). A paragraph of
/// more than a few dozen elements is layout, not text.
fn says_more_than_its_links(page: &Page<'_>, p: usize) -> bool {
    if page.end[p] - p > 64 {
        return false;
    }
    let words = |t: &str| {
        t.split_whitespace()
            .filter(|w| w.chars().any(char::is_alphanumeric))
            .count()
    };
    let mut linked = 0;
    for d in page.descendants(p) {
        let e = &page.els[d];
        if page.field(d) || (page.control(d) && e.tag != "a") || keyed_on_its_own(page, e) {
            return false;
        }
        if e.tag == "a" {
            linked += words(&e.text);
        }
    }
    let own = words(&page.els[p].text).saturating_sub(linked);
    linked == 0 || (own >= 4 && own >= linked)
}

/// What inside a paragraph the state keys on its own, as a selector: a paragraph
/// around one is no running text ([`says_more_than_its_links`]), and `extract.js` does
/// not record it (its `KEYED_INSIDE`, the same; `tests/discovery.rs` ties them).
pub const KEYED_INSIDE: &str = "[id], output, [data-nsp-key]";

/// [`KEYED_INSIDE`] of a record: an id the probe keys by (`Page::id_of`), an
/// `output`, a declared key.
fn keyed_on_its_own(page: &Page<'_>, e: &nsp_protocol::snapshot::ElementRecord) -> bool {
    page.id_of(e).is_some() || e.tag == "output" || e.has("data-nsp-key")
}

/// Whether an element's id or class says it is the page's shell (`#footer`,
/// `site-header`, `navbar`, `sidebar`); [`prose`] asks it only of an element holding
/// none of the page's content (its `main`, an `h1` or `h2`): a layout's wrapper named
/// after what it holds beside the content (AdminLTE's `body.sidebar-mini`, WordPress's
/// `has-sidebar`) is no shell.
fn names_shell(e: &nsp_protocol::snapshot::ElementRecord) -> bool {
    let says = |v: &str| {
        v.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| {
            matches!(
                w.to_ascii_lowercase().as_str(),
                "footer" | "header" | "navbar" | "nav" | "sidebar" | "breadcrumb" | "breadcrumbs"
            )
        })
    };
    e.attr("id").is_some_and(says) || e.attr("class").is_some_and(says)
}

/// The value of a table's labelled row (`<th>Priority:</th><td>major</td>`):
/// `<ns>.priority = "major"`, typed as cell text is; an empty cell is `""`. A value
/// shown as a link is the link's text; a cell that holds a field or another control
/// says nothing of its own (they are reported themselves).
fn property_value(page: &Page<'_>, td: usize, th: usize, ns: Option<&str>, out: &mut Objects) {
    let leaf = slug(&page.els[th].text);
    let holds_more = |d: usize| page.field(d) || (page.control(d) && page.els[d].tag != "a");
    if leaf.is_empty() || page.descendants(td).any(holds_more) {
        return;
    }
    let how = TextSource::TypedOrEmpty;
    if let Some(v) = text_value(&page.els[td], how) {
        out.put_from(page.key_in(ns, &leaf), v, Some((td, how)));
    }
}

/// The tab a tablist shows, by its label: `<ns>.<tablist>.selected_tab = "Week"` (or
/// `<ns>.selected_tab` for an unnamed tablist), `null` while no tab is selected. One
/// string rather than a boolean per tab: the key stays the same whichever tab is chosen,
/// and a verify expression names the tab it expects.
fn selected_tab(page: &Page<'_>, list: usize, ns: Option<&str>, out: &mut Objects) {
    let e = &page.els[list];
    let mut any = false;
    let mut selected = Value::Null;
    for d in page.descendants(list) {
        let t = &page.els[d];
        if t.role() == "tab" {
            any = true;
            if t.attr("aria-selected").map(str::trim) == Some("true") {
                selected = Value::String(clip(&control_label(t), MAX_VALUE_LEN));
                break;
            }
        }
    }
    if !any {
        return;
    }
    let key = match crate::page::own_name(page, e) {
        Some(name) => page.key_in(ns, &name) + ".selected_tab",
        None => page.key_under(ns, "selected_tab"),
    };
    out.put(key, selected);
}

/// A form field's value under its form's namespace. A secret reports only whether it
/// is filled (`<name>_filled`): neither its value nor its length leaves the probe.
fn field_value(
    page: &Page<'_>,
    i: usize,
    ns: Option<&str>,
    radio_done: &mut HashMap<String, usize>,
    next: &mut HashMap<String, usize>,
    out: &mut Objects,
) {
    let e = &page.els[i];
    // A field in a hidden part of the page (a closed dialog, another view of a
    // single-page app) is state of nothing the person sees; a hidden field whose parent
    // shows (a styled checkbox's input, drawn by its label) still counts, and so does
    // the page behind an open modal dialog: covered, not gone (an agent verifies what
    // the dialog did to it).
    let hidden_part =
        page.parent[i].is_some_and(|p| !page.els[p].visible) && !page.outside_modal(i);
    // Nor does a field nobody sees or types into (a picker's focus box beside it:
    // Dash's), nor an ARIA slider's thumb beside its number box.
    if (!e.visible && (e.disabled || hidden_part || e.has("readonly")))
        || crate::page::slider_twin(page, i)
    {
        return;
    }
    if is_secret(e) {
        let key = page.key_under(ns, &crate::page::secret_name(page, e));
        out.put(format!("{key}_filled"), Value::Bool(secret_filled(e)));
        return;
    }
    // Named exactly as its parameter is (`forms::param_name`: an agent verifies with the
    // name it filled): never by its current value, a colour, a number or a generated id;
    // a field nothing names is named by its role ("text"), not by what it holds ("New
    // item" would give `editor.new_item`).
    // An editable region (`contenteditable`, a code editor's content) is a field too: its
    // text is its value, never its name (typing would change the key).
    let is_field_tag =
        matches!(e.tag.as_str(), "input" | "textarea" | "select") || crate::page::is_editable(e);
    let mut by_role = false;
    // A radio button with no `name` is its group's (`page::radio_group`): the checked
    // one says the group's value, under the group's name.
    let group = crate::page::radio_group(page, i);
    if group.is_some() && e.attr("checked") != Some("true") {
        return;
    }
    // A group's checked radio says its value once, and the group is named once: a page
    // checking each of thousands of one group's radios costs one naming, not thousands.
    if let Some(g) = &group {
        let done = format!(
            "\u{3}{}\u{3}{}\u{3}{}\u{3}{}",
            ns.unwrap_or(""),
            g.holder,
            g.members[0],
            g.members.len()
        );
        if std::mem::replace(crate::slot(radio_done, done), 1) != 0 {
            return;
        }
    }
    let group_name = group.as_ref().map(|g| {
        crate::page::radio_group_name(page, g).unwrap_or_else(|| {
            by_role = true;
            "choice".to_owned()
        })
    });
    // A picker by its label first, as its parameter is: its ids are a kit's
    // (`mat-select-0`).
    let picker_label = crate::page::is_picker(e)
        .then(|| slug(&crate::page::field_label(page, e)))
        .filter(|s| !s.is_empty());
    let name = group_name.or(picker_label).or_else(|| {
        is_field_tag
            .then(|| crate::forms::param_name(page, e))
            .flatten()
            .filter(|(_, role)| !role)
            .map(|(n, _)| n)
            .or_else(|| Some(slug(&crate::page::field_label(page, e))).filter(|s| !s.is_empty()))
            .or_else(|| {
                by_role = is_field_tag;
                is_field_tag.then(|| crate::page::role_name(e).to_owned())
            })
            // A switch drawn as a button may be named by its text alone.
            .or_else(|| Some(slug(&control_label(e))).filter(|s| !s.is_empty()))
    });
    let Some(name) = name else { return };
    let mut key = page.key_under(ns, &name);
    // Fields named by their role alone are numbered as their parameters are (`text`,
    // `text_2`): each keeps a key of its own, numbered on from the last number tried
    // (thousands of unnamed boxes cost no n²).
    if by_role {
        key = crate::text::number_on(key, next, &|k| out.values.contains_key(k));
    }
    match (e.tag.as_str(), e.input_type().as_ref()) {
        ("input", "checkbox") => out.put(key, Value::Bool(e.attr("checked") == Some("true"))),
        ("input", "radio") => {
            if e.attr("checked") == Some("true")
                && std::mem::replace(crate::slot(radio_done, key.clone()), 1) == 0
            {
                // As its parameter offers it (`page::group_choices`): a label where the
                // values name nothing.
                let value = match &group {
                    Some(g) => {
                        let k = g.members.iter().position(|m| *m == i).unwrap_or(0);
                        crate::page::group_choices(page, g.members)
                            .into_iter()
                            .nth(k)
                            .unwrap_or_default()
                    }
                    None => named_choice(page, i),
                };
                out.put(key, Value::String(clip(&value, MAX_VALUE_LEN)));
            }
        }
        ("input", "file") => {}
        _ => {
            // A cut text says how long it is: written back as read, it would lose the
            // rest.
            if let Some(n) = crate::page::held_chars(e) {
                out.put(format!("{key}_chars"), Value::from(n));
            }
            out.put(key, crate::page::held_value(e));
        }
    }
}

/// What the checked radio `i` of a group sharing its `name` says: its value, or its
/// label where the group's values name nothing (`page::group_choices`, as the group's
/// parameter offers it: pyLoad's destination "1" is "Queue"). The group is looked for
/// only then: a value that names something is said as it is.
fn named_choice(page: &Page<'_>, i: usize) -> String {
    let e = &page.els[i];
    let value = e.attr("value").unwrap_or("on");
    if crate::page::names_something(value) && crate::page::stable_id(value) {
        return value.to_owned();
    }
    let members = crate::page::named_radios(page, i);
    let k = members.iter().position(|m| *m == i).unwrap_or(0);
    crate::page::group_choices(page, &members)
        .into_iter()
        .nth(k)
        .unwrap_or_else(|| value.to_owned())
}

/// Whether a secret field holds anything. The extractor sends `value_filled`; snapshots
/// recorded before it sent `value_length`, which is read here and never reported; a
/// field only the probe judges secret may still carry its `value`.
fn secret_filled(e: &nsp_protocol::snapshot::ElementRecord) -> bool {
    if let Some(v) = e.attr("value_filled") {
        return v.trim() == "true";
    }
    if let Some(n) = e.attr("value_length") {
        // The extractor wrote a length in digits: filled unless it is 0.
        return !n.trim().trim_start_matches('0').is_empty();
    }
    e.attr("value").is_some_and(|v| !v.is_empty())
}

/// `itemscope`/`itemprop` → `<type>.<prop>` (indexed when a type repeats).
fn microdata(page: &Page<'_>, out: &mut Objects) {
    let scopes: Vec<usize> = (0..page.els.len())
        .filter(|i| page.els[*i].has("itemscope"))
        .collect();
    if scopes.is_empty() {
        return;
    }
    let type_of = |i: usize| {
        let t = page.els[i].attr("itemtype").unwrap_or("");
        let last = t.trim_end_matches('/').rsplit('/').next().unwrap_or("");
        let s = slug(last);
        if s.is_empty() {
            "item".to_owned()
        } else {
            s
        }
    };
    let mut totals: HashMap<String, usize> = HashMap::default();
    for s in &scopes {
        *crate::slot(&mut totals, type_of(*s)) += 1;
    }
    let mut seen: HashMap<String, usize> = HashMap::default();
    for s in scopes {
        let t = type_of(s);
        let n = crate::slot(&mut seen, t.clone());
        let base = if crate::kept(&totals, &t).unwrap_or(0) > 1 {
            format!("{t}[{n}]")
        } else {
            t.clone()
        };
        *n += 1;
        if *n > MAX_RECORDS {
            continue;
        }
        for d in page.descendants(s) {
            let e = &page.els[d];
            let Some(prop) = e.attr("itemprop") else {
                continue;
            };
            // Only this scope's own properties.
            let owner = page.ancestors(d).find(|a| page.els[*a].has("itemscope"));
            if owner != Some(s) || is_secret(e) {
                continue;
            }
            let raw = e
                .attr("content")
                .or_else(|| e.attr("value"))
                .or_else(|| e.attr("datetime"))
                .map(str::to_owned)
                .unwrap_or_else(|| e.text.clone());
            if let Some(v) = typed_value(&raw) {
                out.put(format!("{base}.{}", slug_key(prop)), v);
            }
        }
    }
}

/// JSON-LD blocks flattened to `jsonld.<type>.<prop>`, two levels deep.
fn json_ld(page: &Page<'_>, out: &mut Objects) {
    let mut seen: HashMap<String, usize> = HashMap::default();
    for block in &page.snap.json_ld {
        let items: Vec<&Value> = match block {
            Value::Array(a) => a.iter().collect(),
            Value::Object(o) => match o.get("@graph") {
                Some(Value::Array(g)) => g.iter().collect(),
                _ => vec![block],
            },
            _ => Vec::new(),
        };
        for item in items.into_iter().take(10) {
            let Value::Object(map) = item else { continue };
            let t = match map.get("@type") {
                Some(Value::String(s)) => slug(s),
                Some(Value::Array(a)) => a
                    .first()
                    .and_then(Value::as_str)
                    .map(slug)
                    .unwrap_or_default(),
                _ => String::new(),
            };
            let t = if t.is_empty() { "thing".to_owned() } else { t };
            let n = crate::slot(&mut seen, t.clone());
            let base = if *n == 0 {
                format!("jsonld.{t}")
            } else {
                format!("jsonld.{t}_{}", *n + 1)
            };
            *n += 1;
            let mut budget = MAX_JSON_LD_KEYS;
            flatten(&base, item, 0, &mut budget, out);
        }
    }
}

fn flatten(prefix: &str, value: &Value, depth: usize, budget: &mut usize, out: &mut Objects) {
    if *budget == 0 {
        return;
    }
    match value {
        Value::Object(map) if depth < 3 => {
            for (k, v) in map {
                if k.starts_with('@') {
                    continue;
                }
                let leaf = slug_key(k);
                flatten(&format!("{prefix}.{leaf}"), v, depth + 1, budget, out);
            }
        }
        Value::String(s) if depth > 0 => {
            *budget -= 1;
            out.put(prefix.to_owned(), Value::String(clip(s, MAX_VALUE_LEN)));
        }
        Value::Number(_) | Value::Bool(_) if depth > 0 => {
            *budget -= 1;
            out.put(prefix.to_owned(), value.clone());
        }
        _ => {}
    }
}

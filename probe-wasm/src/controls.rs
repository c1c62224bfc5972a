//! Standalone controls no more trusted source claimed: buttons, links, ARIA controls
//! (button, link, menuitem, tab), switches and choice lists outside forms, and plain
//! elements the page attached click handlers to. Unlabelled ones are not offered: an
//! agent could not tell them apart, and they lower the state's coverage instead.

use nsp_protocol::ActionParameter;
use serde_json::Value;

use crate::classify::{classify, is_danger_class, Evidence, Kind};
use crate::found::{signature, Claims, Found, Source};
use crate::lists::Lists;
use crate::page::{control_label, field_label, is_secret, ElementRecordExt, Page};
use crate::text::{clip, name_slug, slug, without_shortcut};
use crate::HashMap;

pub fn discover(page: &Page<'_>, lists: &Lists, claims: &mut Claims, found: &mut Vec<Found>) {
    // Keyed by "label\u{1}href" (one HashMap type across the probe keeps the wasm small).
    let mut links: HashMap<String, usize> = HashMap::default();
    let mut radios: HashMap<String, usize> = HashMap::default();
    // Per form, whether it is switches sent as they change (`toggles_alone`): 0 not
    // asked yet, 1 no, 2 yes. Asked by each of its fields, it is read once per form.
    let mut alone = vec![0u8; page.els.len()];
    // Fields a form-like action already fills.
    let mut filled = vec![false; page.els.len()];
    for f in found
        .iter()
        .filter(|f| matches!(f.source, Source::Form | Source::Declared))
    {
        for &b in &f.bound {
            if let Some(slot) = filled.get_mut(b) {
                *slot = true;
            }
        }
    }
    for i in 0..page.els.len() {
        let e = &page.els[i];
        if !e.visible || e.disabled || claims.is_claimed(i) {
            continue;
        }
        if let Some(action) = loose_field(page, i, &filled) {
            claims.claim(i);
            found.push(action);
            continue;
        }
        if let Some(action) = toggle_or_choice(page, i, &mut radios, &mut alone, found) {
            claims.claim(i);
            found.push(action);
            continue;
        }
        if e.role() == "tablist" {
            if let Some(action) = tab_bar(page, i, claims) {
                found.push(action);
            }
            continue;
        }
        if !page.control(i) {
            continue;
        }
        let label = control_label(e);
        let href = e.attr("href").unwrap_or("");
        let base = if crate::text::live_text(&label) {
            // "15 seconds ago" changes by itself: a link is named by where it leads
            // (`/tickets/41` is `open_tickets`), anything else is not named by it.
            if e.tag == "a" {
                let path = href.split(['?', '#']).next().unwrap_or("");
                let path = match path.find("://") {
                    Some(k) => path[k + 3..].find('/').map_or("", |s| &path[k + 3 + s..]),
                    None => path,
                };
                name_slug(path)
            } else {
                String::new()
            }
        } else if let Some(th) = lists.property_label_of(page, i) {
            // A link showing a labelled value (Trac's "Owned by: bob") is named by
            // the label, which stays when the value changes.
            name_slug(&page.els[th].text)
        } else if let Some(name) = picker_name(page, i) {
            name
        } else {
            name_slug(&label)
        };
        // A label of one letter or sign ("x", "B", "*", "+") names nothing a model can
        // read: the title a person reads on hovering it ("Other transactions") names
        // the action, and its description quotes both.
        let title = e
            .attr("title")
            .map(str::trim)
            .filter(|t| !t.is_empty() && *t != label.trim());
        let titled = title.filter(|t| glyph(&base) && !glyph(&name_slug(t)));
        let base = titled.map(title_name).unwrap_or(base);
        if base.is_empty() {
            continue;
        }
        // `href=""` is the page itself: following it loads this page again.
        let navigates = e.tag == "a"
            && e.has("href")
            && href.trim() != "#"
            && !href.trim().to_ascii_lowercase().starts_with("javascript:");
        let is_reset = (e.tag == "button" || e.tag == "input")
            && e.attr("type")
                .is_some_and(|t| t.eq_ignore_ascii_case("reset"));
        let kind = if is_reset {
            Kind::Reset
        } else if navigates || (e.role() == "link" && !e.clickable) {
            Kind::Link
        } else if e.role() == "tab" {
            Kind::Tab
        } else if e.tag == "button"
            || e.tag == "input"
            || e.tag == "summary"
            || matches!(
                e.role(),
                "button" | "menuitem" | "menuitemcheckbox" | "menuitemradio"
            )
            || e.tag == "a"
        {
            Kind::Button
        } else {
            Kind::Clickable
        };
        if kind == Kind::Link {
            // The same link twice (header and footer) is one action.
            let key = format!("{base}\u{1}{href}");
            if let Some(idx) = crate::kept(&links, &key) {
                found[idx].bind(page, i);
                claims.claim(i);
                continue;
            }
            *crate::slot(&mut links, key) = found.len();
        }
        // A title that puts a verb before the label's words ("Toggle Open entries" on
        // "Open", "Toggle metadata" on "Metadata") says what pressing it does, and its
        // verb opens the name: `toggle_open`, `toggle_metadata` (a link's name says it
        // is followed).
        let base = match title.filter(|_| matches!(kind, Kind::Button | Kind::Clickable)) {
            Some(t) if titled.is_none() => match verb_before(t, &label) {
                Some(verb) => format!("{verb}_{base}"),
                None => base,
            },
            _ => base,
        };
        let mut ev = Evidence::on_page(kind, &label, page, i);
        ev.href = e.attr("href");
        ev.danger = is_danger_class(e.classes());
        ev.confirms = crate::page::asks_confirm(e);
        let method = crate::page::data_method(e);
        ev.data_method = method.as_deref();
        let verdict = classify(&ev);
        let menu = open_menu_of(page, i);
        // The label as the description quotes it: without a shortcut hint.
        let shown = clip(without_shortcut(&label), 100);
        let (name, description) = match kind {
            _ if menu.is_some() && kind != Kind::Link => {
                let opener = menu.as_ref().and_then(|m| m.1.clone());
                (
                    base,
                    format!(
                        "Press \"{}\" in the open menu{}",
                        shown,
                        opener.map(|o| format!(" of {o}")).unwrap_or_default()
                    ),
                )
            }
            // A link with a data-method sends a request: named for what it does.
            Kind::Link if ev.data_method.is_some() => (
                base,
                format!(
                    "Press the link \"{shown}\" (it sends a {} request)",
                    ev.data_method.unwrap_or_default().to_ascii_uppercase()
                ),
            ),
            Kind::Link => (
                format!("open_{base}"),
                format!("Follow the link \"{shown}\""),
            ),
            Kind::Tab => (
                format!("show_{base}"),
                format!("Switch to the \"{shown}\" tab"),
            ),
            // Named for what it does only when nothing outweighed the header's
            // structure: a header labelled "Delete" keeps its own name.
            _ if ev.sorts_column && verdict.tier == nsp_protocol::Reversibility::Read => {
                (format!("sort_by_{base}"), format!("Sort by \"{shown}\""))
            }
            _ => (base, format!("Press \"{shown}\"")),
        };
        let description = match titled {
            Some(t) => format!("{description} (titled \"{}\")", clip(t, 100)),
            None => description,
        };
        let mut action = Found::new(name, Source::Control, verdict, description);
        action.ns = match menu.clone() {
            // A menu's item that collides with another action is told apart by the
            // menu's name ("delete_more_actions"), never by a record's.
            Some((Some(m), _)) => Some(m),
            _ => page.namespace(i).map(str::to_owned),
        };
        action.schema.signature = "fn() -> bool".into();
        action.schema.internal_target = format!("dom:{}", page.selector(i));
        action.bind(page, i);
        claims.claim(i);
        found.push(action);
    }
}

/// Whether a name slug names nothing a reader can tell apart: one letter or digit, or
/// none (a sign).
fn glyph(slug: &str) -> bool {
    slug.chars().filter(|c| c.is_alphanumeric()).count() <= 1
}

/// The verb `title` opens with when the rest of it holds every word of `label` and
/// `label` does not open with that verb itself, as a name's word (`toggle`).
fn verb_before(title: &str, label: &str) -> Option<String> {
    let verb = crate::classify::opening_verb(title)?;
    let said = crate::text::words(label);
    let rest = crate::text::words(title);
    let verb_words = crate::text::words(&verb).len();
    let after = rest.get(verb_words..)?;
    (!said.is_empty()
        && said.first().map(String::as_str) != Some(verb.as_str())
        && said.iter().all(|w| after.contains(w)))
    .then(|| name_slug(&verb))
}

/// An action's name from a control's title: its first five words.
fn title_name(title: &str) -> String {
    let words: Vec<&str> = title.split_whitespace().take(5).collect();
    name_slug(&words.join(" "))
}

/// A text field outside any form that no action fills (a filter box, a search field
/// that filters as you type): `fill_<label>(text)`.
fn loose_field(page: &Page<'_>, i: usize, filled: &[bool]) -> Option<Found> {
    let e = &page.els[i];
    if page.form[i].is_some() || filled[i] || !page.field(i) || is_secret(e) {
        return None;
    }
    let texty = e.tag == "textarea"
        || (e.tag == "input"
            && matches!(
                e.input_type().as_ref(),
                "text" | "search" | "email" | "url" | "tel" | "number" | ""
            ))
        || matches!(e.role(), "textbox" | "searchbox");
    if !texty {
        return None;
    }
    let mut label = field_label(page, e);
    let mut base = name_slug(&label);
    if base.is_empty() {
        // Nothing names it (an editor's bare title box): it is still something an
        // agent must be able to fill, named by what it is.
        label = crate::page::role_name(e).replace('_', " ");
        base = crate::page::role_name(e).to_owned();
    }
    let ev = Evidence::on_page(Kind::Field, &label, page, i);
    let verdict = classify(&ev);
    let param = ActionParameter {
        name: "text".into(),
        type_name: "string".into(),
        required: true,
        description: format!("What to type into \"{}\"", clip(&label, 100)),
        allowed_values: None,
        default_value: None,
        secret: false,
    };
    let mut action = Found::new(
        format!("fill_{base}"),
        Source::Control,
        verdict,
        format!("Type into the field \"{}\"", clip(&label, 100)),
    );
    action.ns = page.namespace(i).map(str::to_owned);
    action.schema.signature = signature(std::slice::from_ref(&param), "bool");
    action.schema.parameters = vec![param];
    let selector = page.selector(i);
    action.schema.internal_target = format!("dom:{selector}");
    action.explain.parameters.insert("text".into(), selector);
    // Listed without its text: a field's value is what the agent changes, so the
    // dispatcher must not compare it with the one seen at capture time.
    action.cover(i);
    let mut element = crate::found::explain_element(page, i);
    element.text.clear();
    action.explain.elements.push(element);
    Some(action)
}

/// Switches, radio groups and choice lists outside forms: `set_<label>(value)`.
fn toggle_or_choice(
    page: &Page<'_>,
    i: usize,
    radios: &mut HashMap<String, usize>,
    alone: &mut [u8],
    found: &mut [Found],
) -> Option<Found> {
    let e = &page.els[i];
    if let Some(f) = page.form[i] {
        if alone[f] == 0 {
            alone[f] = 1 + u8::from(toggles_alone(page, f));
        }
        if alone[f] == 1 {
            return None;
        }
    }
    let is_checkbox = (e.tag == "input" && e.input_type() == "checkbox")
        || matches!(e.role(), "switch" | "checkbox" | "menuitemcheckbox");
    let is_radio = e.tag == "input" && e.input_type() == "radio";
    let is_select = e.tag == "select";
    let is_picker = crate::page::is_picker(e);
    if !(is_checkbox || is_radio || is_select || is_picker) {
        return None;
    }
    let label = field_label(page, e);
    // Radio buttons with no `name` are one group by where they sit
    // (`page::radio_group`), keyed apart from any name, and named by the group.
    let unnamed = if is_radio {
        crate::page::radio_group(page, i)
    } else {
        None
    };
    let group = match &unnamed {
        Some(g) => format!("\u{1}{}", g.members[0]),
        None => e.attr("name").unwrap_or("").to_owned(),
    };
    if is_radio {
        if let Some(idx) = crate::kept(radios, &group).filter(|_| !group.is_empty()) {
            // Another option of a group already offered: add its value (a group found
            // by where it sits offered them all at once).
            if unnamed.is_none() {
                let value = Value::String(e.attr("value").unwrap_or("on").to_owned());
                if let Some(p) = found[idx].schema.parameters.first_mut() {
                    p.allowed_values.get_or_insert_with(Vec::new).push(value);
                }
            }
            found[idx].bind(page, i);
            return None;
        }
    }
    let base = if let Some(g) = &unnamed {
        // Never by one of its options: by what it is.
        crate::page::radio_group_name(page, g).unwrap_or_else(|| "choice".to_owned())
    } else if is_radio {
        slug(e.attr("name").unwrap_or(&label))
    } else {
        slug(&label)
    };
    if base.is_empty() {
        return None;
    }
    let kind = if is_checkbox {
        Kind::Toggle
    } else {
        Kind::Choice
    };
    // A radio group is chosen by any of its options: what each option says is
    // evidence of what choosing does, and the stricter reading wins ("Delete my
    // account" beside "Keep my account").
    // (A group found by where it sits has its members; a named one's are the radios of
    // its name in its form.)
    let mut options: Vec<String> = Vec::new();
    let mut add = |o: usize| {
        if o != i {
            options.push(field_label(page, &page.els[o]));
        }
    };
    match &unnamed {
        Some(g) => g.members.iter().for_each(|&o| add(o)),
        None if is_radio => crate::page::named_radios(page, i)
            .into_iter()
            .for_each(&mut add),
        None => {}
    }
    let mut ev = Evidence::on_page(kind, &label, page, i);
    ev.shown.extend(options.iter().map(String::as_str));
    ev.danger = is_danger_class(e.classes());
    let verdict = classify(&ev);
    let param = if is_checkbox {
        ActionParameter {
            name: "checked".into(),
            type_name: "boolean".into(),
            required: true,
            description: "true to switch it on, false to switch it off".into(),
            allowed_values: None,
            default_value: Some(Value::Bool(
                e.attr("checked") == Some("true") || e.attr("aria-checked") == Some("true"),
            )),
            secret: is_secret(e),
        }
    } else {
        let allowed: Vec<Value> = if let Some(g) = &unnamed {
            crate::page::group_choices(page, g.members)
                .into_iter()
                .map(Value::String)
                .collect()
        } else if is_radio {
            vec![Value::String(e.attr("value").unwrap_or("on").to_owned())]
        } else if is_picker {
            // Its options exist only once it is open.
            Vec::new()
        } else {
            crate::page::select_choices(e)
                .0
                .into_iter()
                .map(Value::String)
                .collect()
        };
        ActionParameter {
            name: "value".into(),
            type_name: "string".into(),
            required: true,
            description: if is_picker {
                "One of the options its list shows when opened".into()
            } else {
                "One of the allowed values".into()
            },
            allowed_values: (!is_picker).then_some(allowed),
            default_value: if is_select && !is_secret(e) {
                crate::page::select_choices(e).1.map(Value::String)
            } else if is_picker {
                crate::page::picker_default(e)
            } else {
                None
            },
            secret: is_secret(e),
        }
    };
    let description = if is_checkbox {
        format!("Switch \"{}\" on or off", clip(&label, 100))
    } else if unnamed.is_some() {
        // A group is described by its own name, not by its first option's label.
        format!("Choose \"{}\"", crate::text::humanize(&base))
    } else {
        format!("Choose \"{}\"", clip(&label, 100))
    };
    let mut action = Found::new(format!("set_{base}"), Source::Control, verdict, description);
    action.ns = page.namespace(i).map(str::to_owned);
    action.schema.signature = signature(std::slice::from_ref(&param), "bool");
    action.schema.parameters = vec![param];
    action.schema.internal_target = format!("dom:{}", page.selector(i));
    if is_radio {
        action
            .explain
            .parameters
            .insert("value".into(), page.selector(i));
        *crate::slot(radios, group) = found.len();
    }
    action.bind(page, i);
    Some(action)
}

/// Whether form `f` is only switches the page sends as they change: no submit button
/// and no other control, a method that writes (a `get` form of checkboxes is a filter,
/// whose submit reads), and every visible field a checkbox or radio button (Calibre-Web's
/// "Read" and "Archive" boxes, each a form posting to a toggle URL). A person switches
/// the box; nothing else sends the form, and pressing Enter in a checkbox sends nothing.
pub fn toggles_alone(page: &Page<'_>, f: usize) -> bool {
    let method = page.els[f]
        .attr("method")
        .map(|m| m.trim().to_ascii_lowercase());
    if method
        .as_deref()
        .is_none_or(|m| m == "get" || m == "dialog")
    {
        return false;
    }
    let mut toggles = 0;
    for d in page.descendants(f) {
        let e = &page.els[d];
        if !e.visible || e.input_type() == "hidden" {
            continue;
        }
        let toggle = (e.tag == "input" && matches!(e.input_type().as_ref(), "checkbox" | "radio"))
            || matches!(e.role(), "switch" | "checkbox" | "radio");
        if toggle {
            toggles += 1;
        } else if page.field(d) || page.control(d) {
            return false;
        }
    }
    // A button elsewhere that submits it (`<button form="settings">`) sends it.
    let id = page.els[f].attr("id").filter(|id| !id.is_empty());
    toggles > 0
        && !page
            .els
            .iter()
            .any(|e| id.is_some() && e.attr("form") == id)
}

/// A control that opens a menu, listbox, dialog or disclosure (`aria-haspopup` other
/// than `false`, `aria-expanded`, a `<summary>`, or Bootstrap's data API saying so:
/// `data-toggle` / `data-bs-toggle` of `modal`, `dropdown`, `offcanvas`, `collapse`,
/// which pages write instead of the ARIA).
pub fn opens_popup(e: &nsp_protocol::snapshot::ElementRecord) -> bool {
    e.attr("aria-haspopup")
        .is_some_and(|v| !v.trim().eq_ignore_ascii_case("false"))
        || e.has("aria-expanded")
        || e.tag == "summary"
        || [e.attr("data-toggle"), e.attr("data-bs-toggle")]
            .into_iter()
            .flatten()
            .any(|v| matches!(v.trim(), "modal" | "dropdown" | "offcanvas" | "collapse"))
}

/// For an item of an open menu (`role=menuitem*` inside `role=menu`): the menu's name
/// (its label, else its opener's) and, when the opener sits in a row, what that row
/// says ("the row \"Report.pdf\""). `None` for anything else.
fn open_menu_of(page: &Page<'_>, i: usize) -> Option<(Option<String>, Option<String>)> {
    let e = &page.els[i];
    if !matches!(e.role(), "menuitem" | "menuitemcheckbox" | "menuitemradio") {
        return None;
    }
    let menu = page
        .ancestors(i)
        .find(|a| matches!(page.els[*a].role(), "menu" | "menubar"))?;
    if page.els[menu].role() == "menubar" {
        return None;
    }
    let opener = menu_opener(page, menu);
    let name = crate::page::own_name(page, &page.els[menu])
        .or_else(|| opener.map(|o| name_slug(&control_label(&page.els[o]))))
        .filter(|n| !n.is_empty());
    let row = opener.and_then(|o| row_words(page, o));
    Some((name, row))
}

/// The control that opened menu `menu`: the one whose `aria-controls` names the menu,
/// else the one expanded control that opens a menu while exactly one menu is open
/// (menus are often rendered at the end of the page, far from their button).
pub fn menu_opener(page: &Page<'_>, menu: usize) -> Option<usize> {
    let id = page.els[menu].attr("id").filter(|id| !id.is_empty());
    if let Some(id) = id {
        let by_ref = (0..page.els.len()).find(|j| {
            page.els[*j]
                .attr("aria-controls")
                .is_some_and(|c| c.split_whitespace().any(|c| c == id))
                && page.els[*j].visible
        });
        if by_ref.is_some() {
            return by_ref;
        }
    }
    // The menu inside its opener's container (a dropdown).
    if let Some(p) = page.parent[menu] {
        let beside = page
            .descendants(p)
            .find(|j| *j < menu && expanded_menu_button(&page.els[*j]));
        if beside.is_some() {
            return beside;
        }
    }
    let open_menus = (0..page.els.len())
        .filter(|j| page.els[*j].role() == "menu" && page.els[*j].visible)
        .count();
    let mut openers = (0..page.els.len()).filter(|j| expanded_menu_button(&page.els[*j]));
    match (open_menus, openers.next(), openers.next()) {
        (1, Some(o), None) => Some(o),
        _ => None,
    }
}

fn expanded_menu_button(e: &nsp_protocol::snapshot::ElementRecord) -> bool {
    e.visible
        && e.attr("aria-expanded").map(str::trim) == Some("true")
        && e.attr("aria-haspopup").is_some_and(|v| {
            let v = v.trim().to_ascii_lowercase();
            v == "true" || v == "menu"
        })
}

/// The nearest row around `i` (a list item, table row, ARIA row or item), in words: its
/// first cell's text ("the row \"Report.pdf\"").
fn row_words(page: &Page<'_>, i: usize) -> Option<String> {
    let row = page.ancestors(i).find(|a| {
        let r = &page.els[*a];
        matches!(r.tag.as_str(), "li" | "tr" | "article")
            || matches!(
                r.role(),
                "row" | "listitem" | "option" | "treeitem" | "article"
            )
    })?;
    let cells = crate::lists::row_cells(page, row);
    let first = cells.into_iter().find(|c| !c.trim().is_empty())?;
    Some(format!("the row \"{}\"", clip(&first, 60)))
}

/// A tab bar (`role=tablist`) as one action, `select_tab(tab)`, whose parameter's
/// allowed values are the tabs' labels; the tab shown is the state's `selected_tab`
/// (objects.rs). One action rather than one per tab: an agent picks a tab by name, and
/// the bar's tabs are covered by it.
fn tab_bar(page: &Page<'_>, list: usize, claims: &mut Claims) -> Option<Found> {
    let bar = &page.els[list];
    if !bar.visible || claims.is_claimed(list) {
        return None;
    }
    let tabs: Vec<usize> = page
        .descendants(list)
        .filter(|t| {
            let e = &page.els[*t];
            e.role() == "tab"
                && e.visible
                && !e.disabled
                && !claims.is_claimed(*t)
                && page
                    .ancestors(*t)
                    .find(|a| page.els[*a].role() == "tablist")
                    == Some(list)
        })
        .collect();
    let mut values: Vec<Value> = Vec::new();
    // Each label once, in order (a bar of thousands of tabs is no n²).
    let mut seen = HashMap::default();
    let mut selected = None;
    for &t in &tabs {
        let label = control_label(&page.els[t]);
        if label.is_empty() {
            continue;
        }
        let fresh = std::mem::replace(crate::slot(&mut seen, label.clone()), 1) == 0;
        let v = Value::String(label);
        if page.els[t].attr("aria-selected").map(str::trim) == Some("true") {
            selected = Some(v.clone());
        }
        if fresh {
            values.push(v);
        }
    }
    if values.is_empty() {
        return None;
    }
    let bar_label = control_label(bar);
    let what = if bar_label.is_empty() {
        "tab".to_owned()
    } else {
        format!("{} tab", clip(&bar_label, 60))
    };
    let mut ev = Evidence::on_page(Kind::Tab, &what, page, tabs[0]);
    ev.opens_popup = false;
    let verdict = classify(&ev);
    let param = ActionParameter {
        name: "tab".into(),
        type_name: "string".into(),
        required: true,
        description: "The tab to show: one of the allowed values (the tabs' labels)".into(),
        allowed_values: Some(values),
        default_value: selected,
        secret: false,
    };
    let mut action = Found::new(
        "select_tab".into(),
        Source::Control,
        verdict,
        if bar_label.is_empty() {
            "Show one of the tabs".into()
        } else {
            format!("Show one of the \"{}\" tabs", clip(&bar_label, 100))
        },
    );
    action.ns =
        crate::page::own_name(page, bar).or_else(|| page.namespace(list).map(str::to_owned));
    action.schema.signature = signature(std::slice::from_ref(&param), "bool");
    action.schema.parameters = vec![param];
    action.schema.internal_target = format!("dom:{}", page.selector(list));
    action.bind(page, list);
    for &t in &tabs {
        action.cover(t);
        claims.claim(t);
    }
    claims.claim(list);
    Some(action)
}

/// Which menu is open, for `objects` (called by `objects::extract`): `open_menu.name`,
/// the open menu's name (its label, else its opener's: "More actions"), and, when its
/// opener sits in a record of a list, `open_menu.record`, that record's path
/// (`files[1]`), so an agent knows whose menu its items act on. Nothing while no menu
/// is open.
pub fn open_menu_objects(page: &Page<'_>, lists: &crate::lists::Lists) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    let Some(menu) = (0..page.els.len()).find(|m| {
        let e = &page.els[*m];
        e.role() == "menu"
            && e.visible
            && page
                .descendants(*m)
                .any(|i| page.els[i].visible && page.els[i].role().starts_with("menuitem"))
    }) else {
        return out;
    };
    let opener = menu_opener(page, menu);
    // The menu's own name is a label it is given, never its items' text.
    let m = &page.els[menu];
    let own = m
        .attr("aria-label")
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .unwrap_or(m.label.trim())
        .to_owned();
    let name = if own.is_empty() {
        opener
            .map(|o| control_label(&page.els[o]))
            .unwrap_or_default()
    } else {
        own
    };
    out.push((
        "open_menu.name".to_owned(),
        if name.is_empty() {
            Value::Null
        } else {
            Value::String(clip(&name, 100))
        },
    ));
    if let Some((list, record, _)) = opener.and_then(|o| lists.record_of(page, o)) {
        if let Some(l) = lists.lists.get(list) {
            let path = if let Some(names) = &l.item_names {
                names
                    .get(record)
                    .map(|n| format!("{}.{n}", l.path))
                    .unwrap_or_default()
            } else {
                format!("{}[{record}]", l.path)
            };
            if !path.is_empty() {
                out.push(("open_menu.record".to_owned(), Value::String(path)));
            }
        }
    }
    out
}

/// The name of a button that opens a list of choices (`aria-haspopup="listbox"`: a
/// custom select's trigger, as Headless UI, MUI and Dash draw it), whose text is the
/// value chosen and says nothing of what it does ("Acme"): `choose_` and what it
/// chooses, its caption or else its stable id. None when an `aria-label` names it
/// already, or nothing does: it is then named as any control.
pub fn picker_name(page: &Page<'_>, i: usize) -> Option<String> {
    let e = &page.els[i];
    if e.attr("aria-haspopup") != Some("listbox") || e.has("aria-label") {
        return None;
    }
    let what = page
        .text_before(i)
        .map(name_slug)
        .filter(|s| !s.is_empty())
        .or_else(|| page.id_of(e).map(name_slug).filter(|s| !s.is_empty()))?;
    Some(format!("choose_{what}"))
}

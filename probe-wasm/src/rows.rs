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
use crate::found::{signature, Claims, FewValues, Found, Source};
use crate::lists::{row_cells, Lists, RowKey, MAX_RECORDS};
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
    /// Each control's own label, for row toggles, which group by their shape alone, and
    /// for a column of links whose labels are data.
    labels: Vec<String>,
    /// Where the control sits in its row, as a selector relative to the row, when that
    /// and not its shape finds it: a column of links whose labels are data (see
    /// [`link_columns`]), beside other links of the same shape in the row.
    at: Option<String>,
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
            // The row's texts, asked for once, when a control's label may name its row
            // by one of them.
            let mut texts: Option<Vec<usize>> = None;
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
                    toggle_label(page, lists, e)
                } else {
                    control_label(e)
                };
                // The same link twice in one row, drawn as a picture and then in words
                // (a card's cover and its title, both opening the book): one control,
                // the one in words, found among the next few records.
                if e.tag == "a"
                    && e.text.is_empty()
                    && e.has("href")
                    && (c + 1..page.end[row].min(c + 8)).any(|d| {
                        let o = &page.els[d];
                        o.tag == "a"
                            && !o.text.is_empty()
                            && o.visible
                            && !o.disabled
                            && o.attr("href") == e.attr("href")
                    })
                {
                    claims.claim(c);
                    continue;
                }
                // "Delete Buy milk", "Delete Call the plumber": a label naming its own
                // row's record is the same control on every row, named by the rest.
                let label = if toggle {
                    label
                } else {
                    let own = page.els[row].text.trim();
                    let named = row_value(page, row, &key, &param)
                        .or_else(|| (!own.is_empty() && own.len() <= 80).then(|| own.to_owned()));
                    let plain = without_row_key(&label, named.as_deref());
                    if plain == label && named.is_none() {
                        // Rows told apart by position: a label naming its row does so by
                        // one of the row's texts ("More options for 'About us'").
                        texts
                            .get_or_insert_with(|| {
                                crate::lists::own_descendants(page, row)
                                    .filter(|&i| {
                                        let t = page.els[i].text.trim();
                                        !t.is_empty() && t.len() <= 80 && !page.control(i)
                                    })
                                    .take(8)
                                    .collect()
                            })
                            .iter()
                            .map(|&i| without_row_key(&label, Some(&page.els[i].text)))
                            .find(|l| *l != label)
                            .unwrap_or(plain)
                    } else {
                        plain
                    }
                };
                let name = if crate::text::live_text(&label) {
                    // A link showing a time ("15 seconds ago") opens its row's record;
                    // its text moves by itself and names nothing.
                    if e.tag != "a" {
                        continue;
                    }
                    format!("open_{}", list_segment(&list.path))
                } else {
                    // Without its counts: "Replies (3)" on one row and "Replies (5)" on
                    // the next are one control, and its name stays when a count moves.
                    crate::text::name_slug(&label)
                };
                if name.is_empty() {
                    continue;
                }
                gk.clear();
                // A row's selection box is one control whatever its label says of its
                // row ('Select file "a.md"', 'Select directory "docs"'): toggles group by
                // shape, and are named after what their labels share (`toggle_groups`).
                if toggle {
                    gk.push('\u{2}');
                } else {
                    gk.push_str(&name);
                    // A template writes its control's label the same way on every row:
                    // "Admin" and the user name "admin" in one menu are two links, not
                    // one control, though their names are one. Counts and spaces aside
                    // ("Replies (3)", "Replies (5)"), the letters must match as written.
                    gk.push('\u{3}');
                    gk.extend(label.chars().filter(|c| c.is_alphabetic()));
                }
                // A button that sends its form elsewhere (`formaction`, `formmethod`)
                // is the same control on another row only if it sends it the same way
                // to the same place but for its row's id: a row whose "Pause" posts to
                // `?op=delete` is another control, judged by its own address.
                if let Some(m) = e.attr("formmethod") {
                    gk.push('\u{4}');
                    gk.extend(m.trim().chars().map(|c| c.to_ascii_lowercase()));
                }
                if let Some(a) = e.attr("formaction") {
                    gk.push('\u{4}');
                    address_shape(a, &mut gk);
                }
                let _ = write!(gk, "\u{1}{}.", e.tag);
                for (n, class) in e.classes().split_whitespace().enumerate() {
                    if n > 0 {
                        gk.push('.');
                    }
                    // Page text: the separator must not come from it.
                    gk.extend(class.chars().filter(|c| !c.is_control()));
                }
                // The list too: rows of two lists are two sets of records, each with its
                // own action (a grid of "Discover" books above the grid of all books).
                let _ = write!(gk, "\u{1}{}\u{1}{spec}\u{1}{l}", page.els[row].tag);
                let g = match index.get(gk.as_str()) {
                    Some(&g) => g,
                    None => {
                        groups.push(Group {
                            name,
                            label: label.clone(),
                            list: l,
                            key: key.clone(),
                            param: param.clone(),
                            controls: Vec::new(),
                            rows: Vec::new(),
                            labels: Vec::new(),
                            at: None,
                        });
                        *crate::slot(&mut index, gk.clone()) = groups.len() - 1;
                        groups.len() - 1
                    }
                };
                groups[g].controls.push(c);
                groups[g].rows.push(row);
                groups[g].labels.push(label);
            }
        }
    }
    drop(index);
    let groups = link_columns(page, lists, groups);
    let groups = toggle_groups(page, groups);
    let mut singles: Vec<Group> = Vec::new();
    for group in groups {
        // One control is a row action only on the one row of a list (an inbox with a
        // single email). Otherwise a control that does not repeat is its own thing: a
        // title link, a link in a navigation list.
        let lone_row = lists.lists[group.list].rows.len() == 1;
        // Keyed by an attribute, the one row must name a record by it (`msg-42`, a
        // uuid: a digit), not a part of the layout (django-wiki's `article-title-li`
        // around a title's permalink).
        let keyed = match &group.key {
            KeySpec::Param => true,
            KeySpec::Attr(a) => page.els[group.rows[0]]
                .attr(a)
                .is_some_and(|v| v.bytes().any(|b| b.is_ascii_digit())),
            _ => false,
        };
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
    name_opens(page, lists, claims, found);
    record_buttons(page, lists, claims, found);
    frame_actions(page, lists, claims, found);
}

/// A list whose rows are themselves buttons, each drawn as its whole record (a mail
/// client's messages, a chat's conversations: sender, time, subject and the start of
/// the text in one `<button>`), or a table whose rows the page makes pressable (a
/// pointer cursor: mitmweb's flows): pressing one opens or selects its record. One
/// `open_<list>(<key>)` at `read`, pressing the chosen row, not one action per record
/// named and judged by its record's words ("report", "find" in an email's subject say
/// nothing of the button; "2m ago" would rename it every minute). A row of fewer than
/// three texts (its own and its parts') is no record (a command and its shortcut), a
/// button holding a control of its own is a card around actions, and rows whose text
/// opens with a verb ("Delete this repository — once you delete…", "Open file…
/// Ctrl+O") say what they do: none of those lists is taken.
fn record_buttons(page: &Page<'_>, lists: &Lists, claims: &mut Claims, found: &mut Vec<Found>) {
    for (l, list) in lists.lists.iter().enumerate() {
        if list.declared || list.item_names.is_some() || list.rows.len() < 2 {
            continue;
        }
        let pressed = |r: usize| {
            let e = &page.els[r];
            page.control(r)
                && !page.field(r)
                && matches!(kind_of(e), Kind::Button | Kind::Clickable)
                && e.visible
                && !e.disabled
                && !claims.is_claimed(r)
                && !crate::controls::opens_popup(e)
                && !crate::classify::hits(&control_label(e))
                    .iter()
                    .any(|h| h.first)
                // A table's row pressed as a whole (drawn with a pointer cursor) may hold
                // its own controls, as a list's rows do.
                && (e.tag == "tr" || e.role() == "row" || page.descendants(r).all(|d| !page.control(d)))
                && std::iter::once(r)
                    .chain(crate::lists::own_descendants(page, r))
                    .filter(|&d| !page.els[d].text.trim().is_empty())
                    .nth(2)
                    .is_some()
        };
        if !list.rows.iter().all(|&r| pressed(r)) {
            continue;
        }
        let (key, param) = key_for(page, lists, l, list.rows[0]);
        // Named after its list when the page names it (`open_emails`), else `open_item`
        // (a list under a region is named after the region: `aside.items`).
        let last = list.path.rsplit('.').next().unwrap_or_default();
        let name = if matches!(last, "items" | "rows") {
            "open_item".to_owned()
        } else {
            format!("open_{}", list_segment(&list.path))
        };
        let group = Group {
            name,
            label: "Open".into(),
            list: l,
            key,
            param,
            controls: list.rows.clone(),
            rows: list.rows.clone(),
            labels: Vec::new(),
            at: None,
        };
        let Some(mut action) = build(page, lists, &group) else {
            continue;
        };
        // The control is the row itself (`| self`).
        let mut parts = action.schema.internal_target.split(" | ").skip(1);
        let (Some(rows_sel), Some(key_spec)) = (parts.next(), parts.next()) else {
            continue;
        };
        action.schema.internal_target = format!("row:{rows_sel} | {rows_sel} | {key_spec} | self");
        action.schema.description = format!(
            "Open one record of {}, pressing it (chosen by {})",
            list.path, group.param
        );
        action.explain.signals.push(
            "each row is pressed as a whole, showing its record: pressing it opens that record"
                .into(),
        );
        for r in &list.rows {
            claims.claim(*r);
        }
        found.push(action);
    }
}

/// A listing whose records are opened by pressing their names (a file browser's items,
/// a grid's first column): the name is drawn as text the page makes pressable
/// ([`crate::lists::pressed_name`]) in at least one row (the focused item's), and is
/// the list's key. One `open(<key>)` at `read`, pressing the chosen row's name, not
/// one action per record named after it (`docs`, `dentist_md`) nor none for the rows
/// whose name is plain text. The dispatcher presses it as a person opens an item: a
/// double-click (`| open`), which opens where a single click only selects.
fn name_opens(page: &Page<'_>, lists: &Lists, claims: &mut Claims, found: &mut Vec<Found>) {
    for (l, list) in lists.lists.iter().enumerate() {
        let Some(RowKey::Text { rel, field }) = &list.key else {
            continue;
        };
        if list.declared || list.item_names.is_some() {
            continue;
        }
        let cells: Vec<usize> = list
            .rows
            .iter()
            .filter_map(|r| crate::lists::cell_at(page, *r, rel))
            .collect();
        if cells.len() != list.rows.len()
            || !cells.iter().any(|c| crate::lists::pressed_name(page, *c))
            || cells.iter().any(|c| {
                claims.is_claimed(*c)
                    || matches!(page.els[*c].tag.as_str(), "a" | "button" | "input")
            })
        {
            continue;
        }
        let group = Group {
            name: "open".into(),
            label: "Open".into(),
            list: l,
            key: KeySpec::Text(rel.clone()),
            param: field.clone(),
            controls: cells.clone(),
            rows: list.rows.clone(),
            labels: Vec::new(),
            at: None,
        };
        let Some(mut action) = build(page, lists, &group) else {
            continue;
        };
        // The control is the name itself, at its place in the row.
        let rows_sel = action
            .schema
            .internal_target
            .split(" | ")
            .nth(1)
            .unwrap_or_default()
            .to_owned();
        action.schema.internal_target =
            format!("row:{rows_sel} > {rel} | {rows_sel} | text:{rel} | open");
        action.schema.description = format!(
            "Open one record of {} by its {}",
            list.path,
            lower(&humanize(field))
        );
        action
            .explain
            .signals
            .push("pressing a record's name in a listing opens it".into());
        for c in &cells {
            claims.claim(*c);
        }
        found.push(action);
    }
}

/// Most controls one frame group may bind; a page repeating a control more often is
/// not showing records side by side.
const MAX_FRAMES: usize = 50;

/// A control repeated once in each of several records shown side by side outside list
/// markup (open editors, cards, panes, each with its heading and its own "Close"): one
/// row action chosen by the record's title, not one action per frame named after
/// whatever region holds them (`close_sidebar`, `close_sidebar_2`). The frames are found
/// from the controls' selectors: the same path but for one step, the frame's position
/// among its siblings; each frame's heading, at the same place in every frame and with a
/// different text in each, is the key.
fn frame_actions(page: &Page<'_>, lists: &Lists, claims: &mut Claims, found: &mut Vec<Found>) {
    let mut order: Vec<String> = Vec::new();
    let mut groups: HashMap<String, Vec<usize>> = HashMap::default();
    for c in 0..page.els.len() {
        let e = &page.els[c];
        if !page.control(c)
            || page.field(c)
            || !e.visible
            || e.disabled
            || claims.is_claimed(c)
            || lists.record_of(page, c).is_some()
        {
            continue;
        }
        let label = control_label(e);
        let name = crate::text::name_slug(&label);
        if name.is_empty() || crate::text::live_text(&label) {
            continue;
        }
        let key = format!("{name}\u{1}{}\u{1}{}", e.tag, e.classes());
        let g = crate::members(&mut groups, key.clone());
        if g.is_empty() {
            order.push(key);
        }
        g.push(c);
    }
    for key in order {
        let controls = &groups[&key];
        if controls.len() < 2 || controls.len() > MAX_FRAMES {
            continue;
        }
        let selectors: Vec<String> = controls.iter().map(|c| page.selector(*c)).collect();
        let Some((frames_sel, prefixes)) = frame_split(&selectors) else {
            continue;
        };
        // Each frame's heading: the records next to the control in document order that
        // sit in the same frame (an unrecorded frame's records are contiguous).
        let mut rel: Option<String> = None;
        let mut titles: Vec<String> = Vec::new();
        for (c, prefix) in controls.iter().zip(&prefixes) {
            let inside = format!("{prefix} > ");
            let in_frame = |i: usize| page.selector(i).starts_with(&inside);
            let mut lo = *c;
            while lo > 0 && in_frame(lo - 1) {
                lo -= 1;
            }
            let heading = (lo..page.els.len())
                .take_while(|i| *i == *c || in_frame(*i))
                .find(|i| crate::page::is_heading(&page.els[*i]));
            let Some(h) = heading else {
                titles.clear();
                break;
            };
            let here = page.selector(h)[inside.len()..].to_owned();
            if rel.as_ref().is_some_and(|r| *r != here) {
                titles.clear();
                break;
            }
            rel = Some(here);
            let title = page.els[h].text.trim().to_owned();
            if title.is_empty() || titles.contains(&title) {
                titles.clear();
                break;
            }
            titles.push(title);
        }
        let Some(rel) = rel.filter(|_| titles.len() == controls.len()) else {
            continue;
        };
        let first = controls[0];
        let e = &page.els[first];
        let label = control_label(e);
        let verdict = judge(page, first, kind_of(e), &label, false, false);
        let mut values = FewValues::default();
        for t in &titles {
            values.push(t);
        }
        let params = vec![ActionParameter {
            name: "title".into(),
            type_name: "string".into(),
            required: true,
            description: "Title of the record, as its heading shows it".into(),
            allowed_values: values.allowed(),
            default_value: None,
            secret: false,
        }];
        let mut action = Found::new(
            crate::text::name_slug(&label),
            Source::Row,
            verdict,
            format!(
                "Press \"{}\" in one of the records shown side by side (chosen by title)",
                clip(&label, 60)
            ),
        );
        // Not a region named after one of the frames (its first heading).
        let mut region = page.region[first];
        while let Some(r) = region.filter(|r| {
            crate::page::own_name(page, &page.els[*r]).is_none()
                && (r + 1..page.end[*r].min(r + 60))
                    .find(|j| page.heading(*j))
                    .is_some_and(|h| titles.iter().any(|t| page.els[h].text.trim() == t))
        }) {
            region = page.region[r];
        }
        action.ns = region.and_then(|r| page.region_name[r].clone());
        action.schema.signature = signature(&params, "bool");
        action.schema.parameters = params;
        action.schema.internal_target = format!(
            "row:{frames_sel} {} | {frames_sel} | text:{rel}",
            control_shape(e)
        );
        action.explain.signals.push(format!(
            "the same control repeats in {} frames, each with its own heading",
            controls.len()
        ));
        for c in controls {
            action.bind(page, *c);
            claims.claim(*c);
        }
        found.push(action);
    }
}

/// The frames around controls with these selectors: when they are the same but for one
/// step before the control's own, a `tag:nth-of-type(n)` of one tag, the frames'
/// selector (that step without its position) and each control's frame.
fn frame_split(selectors: &[String]) -> Option<(String, Vec<String>)> {
    let steps: Vec<Vec<&str>> = selectors.iter().map(|s| s.split(" > ").collect()).collect();
    let n = steps[0].len();
    if steps.iter().any(|s| s.len() != n) {
        return None;
    }
    let differ: Vec<usize> = (0..n)
        .filter(|k| steps.iter().any(|s| s[*k] != steps[0][*k]))
        .collect();
    let [j] = differ[..] else {
        return None;
    };
    if j + 1 >= n {
        return None;
    }
    let tag = steps[0][j].split_once(":nth-of-type(")?.0;
    if tag.is_empty()
        || !steps.iter().all(|s| {
            s[j].split_once(":nth-of-type(")
                .is_some_and(|(t, _)| t == tag)
        })
    {
        return None;
    }
    let mut frames = steps[0][..j].join(" > ");
    if !frames.is_empty() {
        frames.push_str(" > ");
    }
    frames.push_str(tag);
    let prefixes = steps.iter().map(|s| s[..=j].join(" > ")).collect();
    Some((frames, prefixes))
}

/// A control's tag and classes as a selector, without classes a selector cannot carry
/// as they are.
fn control_shape(e: &nsp_protocol::snapshot::ElementRecord) -> String {
    // A loop, not an iterator chain: each chain is code of its own in the wasm.
    let mut out = e.tag.clone();
    for c in e.classes().split_whitespace() {
        if c.chars()
            .all(|ch| ch.is_ascii_alphanumeric() || ch == '-' || ch == '_')
            && !c.starts_with(|ch: char| ch.is_ascii_digit())
        {
            out.push('.');
            out.push_str(c);
        }
    }
    out
}

/// For a group of submit buttons, what the dispatcher requires of the button it presses
/// in the chosen row, as attribute selectors: the method the group's buttons send their
/// form with, and the part of their `formaction` every row shares (cut at the URL's
/// separators, so that no id's first digits are taken for the template). A row whose
/// button has the label but sends the form elsewhere (`?op=delete` among `?op=pause`)
/// has no such button: the group does not press it. Buttons with neither attribute
/// press only buttons with neither. Empty for any other control.
fn sends_alike(page: &Page<'_>, controls: &[usize]) -> String {
    let e = &page.els[controls[0]];
    if !crate::forms::is_submit(e) {
        return String::new();
    }
    let mut out = String::new();
    match e.attr("formmethod").map(|m| m.trim().to_ascii_lowercase()) {
        Some(m) if !m.is_empty() && m.bytes().all(|b| b.is_ascii_alphabetic()) => {
            let _ = write!(out, "[formmethod=\"{m}\" i]");
        }
        Some(_) => {}
        None => out.push_str(":not([formmethod])"),
    }
    let actions: Vec<&str> = controls
        .iter()
        .filter_map(|&c| page.els[c].attr("formaction"))
        .collect();
    if actions.is_empty() {
        out.push_str(":not([formaction])");
        return out;
    }
    if actions.len() < controls.len() {
        return out;
    }
    // Characters an address may hold that cannot end a CSS string or a target's part.
    let safe = |c: char| c.is_ascii_alphanumeric() || "/?&=;:._-~%+,!*()@$".contains(c);
    let sep = |c: char| matches!(c, '/' | '?' | '&' | '=' | ';' | '#');
    let first = actions[0];
    let mut prefix = actions.iter().fold(first.len(), |n, a| {
        first
            .bytes()
            .zip(a.bytes())
            .take(n)
            .take_while(|(x, y)| x == y)
            .count()
    });
    if actions.iter().any(|a| a.len() != prefix) {
        // Up to the last separator of the shared part: "/items/10" of "/items/101" and
        // "/items/105" is "/items/".
        prefix = first[..prefix].rfind(sep).map_or(0, |i| i + 1);
    }
    while !first.is_char_boundary(prefix) {
        prefix -= 1;
    }
    if actions.iter().all(|a| *a == first) && first.chars().all(safe) {
        let _ = write!(out, "[formaction=\"{first}\"]");
        return out;
    }
    let head = &first[..prefix];
    let head = &head[..head.find(|c| !safe(c)).unwrap_or(head.len())];
    if !head.is_empty() {
        let _ = write!(out, "[formaction^=\"{head}\"]");
    }
    // A value the extraction clipped has lost its end.
    if actions.iter().all(|a| a.len() < 500 && a.len() > prefix) {
        let mut suffix = actions.iter().fold(first.len(), |n, a| {
            first
                .bytes()
                .rev()
                .zip(a.bytes().rev())
                .take(n)
                .take_while(|(x, y)| x == y)
                .count()
        });
        suffix = suffix.min(actions.iter().map(|a| a.len() - prefix).min().unwrap_or(0));
        let mut start = first.len() - suffix;
        while !first.is_char_boundary(start) {
            start += 1;
        }
        let tail = &first[start..];
        // From the first separator of the shared end: "/pause" of "/items/3/pause".
        let tail = tail.find(sep).map_or("", |i| &tail[i..]);
        let tail = &tail[tail.rfind(|c| !safe(c)).map_or(0, |i| i + 1)..];
        if !tail.is_empty() {
            let _ = write!(out, "[formaction$=\"{tail}\"]");
        }
    }
    out
}

/// Links at one place in their rows whose labels are the rows' data (an author's or a
/// director's name, linking to that record). The loop above groups a row's controls by
/// their labels, as a template writes a control the same way on every row, so each
/// name that repeats became an action of its own (`george_lucas(id)`), and a name on one
/// row none. When links of several labels sit at the same place in their rows (one
/// selector relative to the row), all of one shape, in a list with a key, and some label
/// repeats on several rows, they are one action, `open_<column>(<key>)`: the row chosen
/// by the key, the link by its place in it, its labels data and not evidence. A column
/// whose every link is on one row only stays links chosen by their text
/// ([`link_lists`]).
fn link_columns(page: &Page<'_>, lists: &Lists, groups: Vec<Group>) -> Vec<Group> {
    // Plain links only: one the page marks as doing more than following it (a
    // `data-method`, a `data-confirm` or `confirm()`, danger styling) keeps its own
    // group and its own evidence; a column's action is judged by its first link.
    let links = |g: &Group| {
        matches!(g.key, KeySpec::Param | KeySpec::Attr(_) | KeySpec::Text(_))
            && g.controls.iter().all(|&c| {
                let e = &page.els[c];
                e.tag == "a"
                    && e.has("href")
                    && crate::page::data_method(e).is_none()
                    && !crate::page::asks_confirm(e)
                    && !e.has("onclick")
                    && !is_danger_class(e.classes())
            })
    };
    // Only lists where a link's label repeats on several rows: most pages have none, and
    // the places below are selectors built per control.
    let mut repeat: Vec<usize> = groups
        .iter()
        .filter(|g| g.controls.len() >= 2 && links(g))
        .map(|g| g.list)
        .collect();
    if repeat.is_empty() {
        return groups;
    }
    crate::text::sort_indices(&mut repeat);
    repeat.dedup();
    // Where a group's links all sit: its list, their place in the row and shape.
    let place = |g: &Group| -> Option<(usize, String, String)> {
        if repeat.binary_search(&g.list).is_err() || !links(g) {
            return None;
        }
        let mut at: Option<String> = None;
        for (&c, &row) in g.controls.iter().zip(&g.rows) {
            let rel = crate::lists::rel_selector(page, row, c)?;
            match &at {
                None => at = Some(rel),
                Some(a) if *a == rel => {}
                Some(_) => return None,
            }
        }
        Some((g.list, at?, control_shape(&page.els[g.controls[0]])))
    };
    let mut places: Vec<Option<(usize, String, String)>> = groups.iter().map(place).collect();
    // The groups at each place, in first-seen order. (String keys: the map type the
    // loop above uses, and one more map type costs the wasm kilobytes.)
    let mut index: HashMap<String, usize> = HashMap::default();
    let mut buckets: Vec<Vec<usize>> = Vec::new();
    for (j, p) in places.iter().enumerate() {
        if let Some((list, rel, shape)) = p {
            let key = format!("{list}\u{1}{rel}\u{1}{shape}");
            // Bucket numbers from 1: a new key's count is 0.
            let b = crate::slot(&mut index, key);
            if *b == 0 {
                buckets.push(Vec::new());
                *b = buckets.len();
            }
            let b = *b - 1;
            buckets[b].push(j);
        }
    }
    let mut merged_into: Vec<Option<usize>> = vec![None; groups.len()];
    for same in &buckets {
        let first = same[0];
        let same: Vec<usize> = same
            .iter()
            .copied()
            .filter(|&j| groups[j].key == groups[first].key)
            .collect();
        // A label whose own words say more than following a link ("Delete account" at
        // the place where other rows show names) keeps its group and its evidence: a
        // page cannot make a verb data by putting names beside it.
        let reads = |j: usize| {
            let c = groups[j].controls[0];
            let e = &page.els[c];
            judge(page, c, kind_of(e), &groups[j].label, false, false).tier
                == nsp_protocol::Reversibility::Read
        };
        if same.len() >= 2
            && same.iter().any(|&j| groups[j].controls.len() >= 2)
            && same.iter().all(|&j| reads(j))
        {
            for &j in &same {
                merged_into[j] = Some(first);
            }
        }
    }
    let mut out: Vec<Group> = Vec::with_capacity(groups.len());
    let mut columns: Vec<(usize, usize)> = Vec::new();
    for (j, g) in groups.into_iter().enumerate() {
        let Some(i) = merged_into[j] else {
            out.push(g);
            continue;
        };
        if let Some(&(_, at)) = columns.iter().find(|(first, _)| *first == i) {
            // In document order, so the key's allowed values are in the list's order.
            let m: &mut Group = &mut out[at];
            for ((c, row), label) in g.controls.into_iter().zip(g.rows).zip(g.labels) {
                let k = m.controls.iter().take_while(|&&x| x < c).count();
                m.controls.insert(k, c);
                m.rows.insert(k, row);
                m.labels.insert(k, label);
            }
            continue;
        }
        let Some((_, rel, _)) = places[j].take() else {
            out.push(g);
            continue;
        };
        let list = &lists.lists[g.list];
        let column = crate::lists::field_at(page, list, g.rows[0], g.controls[0])
            .unwrap_or_else(|| "link".to_owned());
        columns.push((i, out.len()));
        out.push(Group {
            name: format!("open_{}", slug(&column)),
            label: column,
            at: Some(rel),
            ..g
        });
    }
    out
}

/// Row toggles grouped by shape: one per row, they are one action named after the
/// words their labels start with in common ("Select"), else after the first label. A
/// row with two of one shape (a "read" and a "write" box of one class) splits the group
/// back by label.
fn toggle_groups(page: &Page<'_>, groups: Vec<Group>) -> Vec<Group> {
    let mut out = Vec::with_capacity(groups.len());
    for g in groups {
        if !row_toggle(&page.els[g.controls[0]]) || g.labels.iter().all(|l| *l == g.labels[0]) {
            out.push(g);
            continue;
        }
        let mut rows = g.rows.clone();
        crate::text::sort_indices(&mut rows);
        rows.dedup();
        if rows.len() == g.rows.len() {
            let split: Vec<Vec<String>> = g.labels.iter().map(|l| crate::text::words(l)).collect();
            let shared = split[0]
                .iter()
                .enumerate()
                .take_while(|(k, w)| split.iter().all(|s| s.get(*k) == Some(*w)))
                .count();
            let label = if shared == 0 {
                "select".to_owned()
            } else {
                split[0][..shared].join(" ")
            };
            out.push(Group {
                name: crate::text::name_slug(&label),
                label,
                ..g
            });
            continue;
        }
        // Split back by label, in first-seen order.
        let mut parts: Vec<Group> = Vec::new();
        for k in 0..g.controls.len() {
            let name = crate::text::name_slug(&g.labels[k]);
            let at = match parts.iter().position(|p| p.name == name) {
                Some(at) => at,
                None => {
                    parts.push(Group {
                        name,
                        label: g.labels[k].clone(),
                        list: g.list,
                        key: g.key.clone(),
                        param: g.param.clone(),
                        controls: Vec::new(),
                        rows: Vec::new(),
                        labels: Vec::new(),
                        at: None,
                    });
                    parts.len() - 1
                }
            };
            parts[at].controls.push(g.controls[k]);
            parts[at].rows.push(g.rows[k]);
            parts[at].labels.push(g.labels[k].clone());
        }
        out.extend(parts);
    }
    out
}

/// Links of the same shape on the rows of one list, each to a different place (search
/// results, a table of documents): one `open_<list>(title)` chosen by the link's text.
/// A link going nowhere (`javascript:`, `#`: Grappelli's "Open All Items" and "Close
/// All Items") acts in the page: each is its own action, judged by its words.
fn link_lists(
    page: &Page<'_>,
    lists: &Lists,
    singles: Vec<Group>,
    claims: &mut Claims,
    found: &mut Vec<Found>,
) {
    // The groups in the order first seen, found by list and shape (a map of positions,
    // of the kind the probe has already: one kind of map fewer in the wasm).
    let mut merged: Vec<Group> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::default();
    for g in singles {
        let c = g.controls[0];
        let e = &page.els[c];
        if e.tag != "a" || kind_of(e) != Kind::Link {
            continue;
        }
        // A link that does more than open a page is no choice of the list's: one that
        // ends the session ("Logout" in a top bar) or whose markup writes (Rails'
        // `data-method="delete"`, `data-confirm`) is its own action, gated as what it
        // does. Its words otherwise name a record (a search result "Delete an account").
        if crate::classify::logs_out(&crate::classify::hits(&control_label(e)))
            || judge(page, c, Kind::Link, "", true, false).tier != nsp_protocol::Reversibility::Read
        {
            continue;
        }
        let key = format!("{}\u{1}{}.{}", g.list, e.tag, e.classes());
        match crate::kept(&at, &key).map(|k| &mut merged[k]) {
            // A second link of one row (a record's "Edit" beside its "View" on the one
            // row of its list) names no row of its own: it is its own action.
            Some(m) if m.rows.contains(&g.rows[0]) => {}
            Some(m) => {
                m.controls.push(c);
                m.rows.push(g.rows[0]);
            }
            None => {
                at.insert(key, merged.len());
                let list = &lists.lists[g.list];
                // A list with no name of its own (`rows`, `items`): named by the header
                // of the table column its links stand in.
                let segment = match list_segment(&list.path) {
                    s if s == "items" => crate::lists::header_at(page, list, g.rows[0], c)
                        .map(|f| slug(&f))
                        .filter(|f| !f.is_empty())
                        .unwrap_or(s),
                    s => s,
                };
                let name = format!("open_{segment}");
                merged.push(Group {
                    name,
                    label: String::new(),
                    list: g.list,
                    key: KeySpec::Label,
                    param: "title".into(),
                    controls: vec![c],
                    rows: vec![g.rows[0]],
                    labels: Vec::new(),
                    at: None,
                });
            }
        }
    }
    for group in merged {
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

/// What a list is called in an action's name: the last segment of its path that is not
/// generic (`folders.items` → `folders`).
fn list_segment(path: &str) -> String {
    let segment = path
        .rsplit('.')
        .map(|s| s.split('[').next().unwrap_or(s))
        .find(|s| !matches!(*s, "items" | "rows"))
        .unwrap_or("items");
    slug(segment)
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
        Some(RowKey::Text { rel, field }) => (KeySpec::Text(rel.clone()), field.clone()),
        None => (KeySpec::Index, "index".into()),
    }
}

/// A checkbox or switch repeated on rows (a todo's "done" box): pressing it in a row
/// flips that row.
fn row_toggle(e: &nsp_protocol::snapshot::ElementRecord) -> bool {
    crate::page::is_switch(e)
}

/// A row toggle's label: its own, else its first class when that names it ("toggle"),
/// which is how such boxes are told apart from the row's other controls, else "select".
fn toggle_label(
    page: &Page<'_>,
    lists: &Lists,
    e: &nsp_protocol::snapshot::ElementRecord,
) -> String {
    // A label that says the box's state ("Press Space to toggle row selection
    // (unchecked)", AG Grid's) changes when it is pressed: no name.
    let own = crate::page::field_label(page, e);
    let stateful = own
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| w.eq_ignore_ascii_case("checked") || w.eq_ignore_ascii_case("unchecked"));
    if !own.is_empty() && own != "on" && !stateful {
        return own;
    }
    // Its first class, the component's own: the ones after it are a kit's utilities
    // (`cursor-pointer`, `rounded`). A generated class (`css-1o4wo1x`, `h-4`) names
    // nothing, nor one that only says what kind of widget it is (`q-checkbox`,
    // `form-check-input`, Semantic's `ui checkbox`); a row's box with no name of its own
    // selects its row. Nor does one a box outside the rows carries too (the header's
    // "select all" box in `du-bois-light-checkbox-input`): it is how the kit draws boxes.
    let free = |c: &str| {
        lists
            .free_boxes
            .iter()
            .any(|b| page.els[*b].classes().split_whitespace().any(|k| k == c))
    };
    e.classes()
        .split_whitespace()
        .next()
        .filter(|c| !crate::text::generated_name(c) && !widget_class(c) && !free(c))
        .unwrap_or("select")
        .to_owned()
}

/// A class that names only a kind of widget, in a UI kit's words: every part of it is
/// a widget word or a kit's short prefix (`q-checkbox`, `mat-checkbox-input`,
/// `form-check-input`, `ui`). "toggle" is no such word: TodoMVC's
/// `toggle` is what tells its done box from the row's other controls.
fn widget_class(class: &str) -> bool {
    const WORDS: &[&str] = &[
        "checkbox",
        "check",
        "switch",
        "radio",
        "input",
        "form",
        "control",
        "custom",
        "root",
        "native",
        "box",
        "field",
        "inner",
        "wrapper",
        "container",
        "ui",
        "mui",
        "mat",
        "mdc",
        "ant",
        "el",
        "q",
        "v",
        "p",
        "k",
        "x",
        "md",
        "bs",
        "chakra",
    ];
    let lower = class.to_ascii_lowercase();
    lower
        .split(['-', '_'])
        .filter(|p| !p.is_empty())
        .all(|p| WORDS.contains(&p))
}

/// What kind of control a row action presses. A link going nowhere is a button, with
/// or without a click listener the page added (as outside rows, controls.rs): only
/// an element with no control semantics is a plain clickable.
fn kind_of(e: &nsp_protocol::snapshot::ElementRecord) -> Kind {
    if row_toggle(e) {
        Kind::Toggle
    } else if e.tag == "a"
        && e.attr("href")
            .is_some_and(|h| !h.starts_with("javascript:") && h != "#")
    {
        Kind::Link
    } else if e.clickable && e.tag != "button" && e.tag != "a" && e.role() != "button" {
        Kind::Clickable
    } else {
        Kind::Button
    }
}

/// An address as its rows share it: each part of its path and each query value that
/// holds a digit (an id, a uuid) written as `#`, the rest as it is, control characters
/// left out (`/toggle?op=pause&uuid=397727df-…` → `/toggle?op=pause&uuid=#`).
fn address_shape(address: &str, out: &mut String) {
    for (n, part) in address
        .trim()
        .split(['/', '?', '&', '=', '#', ';'])
        .enumerate()
    {
        if n > 0 {
            out.push('/');
        }
        if part.chars().any(|c| c.is_ascii_digit()) {
            out.push('#');
        } else {
            out.extend(part.chars().filter(|c| !c.is_control()));
        }
    }
}

/// The tier and confidence of a row action pressing controls like `first`, labelled
/// `label`. `words_are_data`: the label names a record, not what pressing does (links
/// chosen by their text); `positional`: rows are chosen by their position.
fn judge(
    page: &Page<'_>,
    first: usize,
    kind: Kind,
    label: &str,
    words_are_data: bool,
    positional: bool,
) -> crate::classify::Verdict {
    judge_as(
        page,
        first,
        kind,
        if words_are_data { "" } else { label },
        words_are_data,
        positional,
    )
}

/// [`judge`] with the label given as it is; `words_are_data`: the control's own texts
/// name a record, and are left out of the evidence.
fn judge_as(
    page: &Page<'_>,
    first: usize,
    kind: Kind,
    label: &str,
    words_are_data: bool,
    positional: bool,
) -> crate::classify::Verdict {
    let e = &page.els[first];
    let mut ev = Evidence::on_page(kind, label, page, first);
    if words_are_data {
        // Nor do its other texts (a title repeating the record's name).
        ev.shown.clear();
        ev.visible = "";
    }
    ev.positional = positional;
    ev.href = e.attr("href");
    ev.danger = is_danger_class(e.classes());
    ev.confirms = crate::page::asks_confirm(e);
    // `on_page` has judged it already (`controls::opens_popup`).
    ev.opens_popup = ev.opens_popup || e.has("aria-haspopup") || e.has("aria-expanded");
    let method = crate::page::data_method(e);
    ev.data_method = method.as_deref();
    // A row's button that submits a form of its own (a "Delete" posted per row): the
    // form's method and address are evidence, as for any form.
    // Its own `formmethod` and `formaction` (a row's button in a form around the whole
    // list) before the form's.
    let facts;
    if crate::forms::is_submit(e) {
        if let Some(form) = page.ancestors(first).find(|&a| page.els[a].tag == "form") {
            let of_form = crate::forms::form_facts(page, form, &[], false, false);
            facts = crate::forms::submitter_facts(e, &of_form).unwrap_or(of_form);
            ev.form = Some(&facts);
            ev.kind = Kind::Submit;
        }
    }
    classify(&ev)
}

fn build(page: &Page<'_>, lists: &Lists, group: &Group) -> Option<Found> {
    let first = group.controls[0];
    let e = &page.els[first];
    let list = &lists.lists[group.list];
    let kind = kind_of(e);
    let first_label = if kind == Kind::Toggle {
        toggle_label(page, lists, e)
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
    let words_are_data = group.key == KeySpec::Label || group.at.is_some();
    // The control is the row's key itself (a record's name pressed to open it): its
    // text is the record's, and the action is what the group's label says.
    let is_key = group.controls == group.rows
        || matches!(&group.key, KeySpec::Text(rel)
        if page.selector(first) == format!("{} > {rel}", page.selector(group.rows[0])));
    // The same control on every row: one that says it opens a menu (`aria-haspopup`,
    // `aria-expanded`) says it for all, and the action is judged by it.
    let judged = group
        .controls
        .iter()
        .copied()
        .find(|&c| crate::controls::opens_popup(&page.els[c]))
        .unwrap_or(first);
    let verdict = if is_key {
        judge_as(page, first, kind, label, true, false)
    } else {
        judge(
            page,
            judged,
            kind_of(&page.els[judged]),
            label,
            words_are_data,
            group.key == KeySpec::Index,
        )
    };

    let first_selector = page.selector(first);
    let scope = scope_prefix(&first_selector);
    let row_tag = &page.els[group.rows[0]].tag;
    let control_shape = control_shape(e) + &sends_alike(page, &group.controls);
    // The rows as children of their container: the dispatcher takes a control's row as
    // its nearest ancestor matching the rows' selector, and a bare `div` would be any
    // wrapper around the control inside the row.
    let in_container = || {
        let container = page.parent[group.rows[0]]
            .map(|c| page.selector(c))
            .unwrap_or_default();
        if container.is_empty() {
            row_tag.clone()
        } else {
            format!("{container} > {row_tag}")
        }
    };
    // `li` and `tr` rows are found by their tag alone: the nearest one around a control
    // is its row (a control of a nested list belongs to that list's rows).
    let by_tag = matches!(row_tag.as_str(), "li" | "tr");
    let (row_sel, key_spec) = match &group.key {
        KeySpec::Param => ("[data-nsp-param]".to_owned(), "param".to_owned()),
        KeySpec::Attr(attr) => (format!("{row_tag}[{attr}]"), format!("@{attr}")),
        KeySpec::Text(rel) if by_tag => (row_tag.clone(), format!("text:{rel}")),
        KeySpec::Text(rel) => (in_container(), format!("text:{rel}")),
        KeySpec::Label if by_tag => (row_tag.clone(), "label".to_owned()),
        KeySpec::Label => (in_container(), "label".to_owned()),
        KeySpec::Index => (in_container(), "index".to_owned()),
    };
    let rows_selector = match &group.key {
        KeySpec::Param | KeySpec::Attr(_) => format!("{scope}{row_sel}"),
        KeySpec::Text(_) | KeySpec::Label if by_tag => format!("{scope}{row_sel}"),
        // A full selector already, from the document or shadow root it starts in.
        _ => row_sel,
    };
    let target = match &group.at {
        // Found by its place in the row: other links of its shape sit beside it.
        Some(at) => format!("row:{rows_selector} > {at} | {rows_selector} | {key_spec}"),
        None => format!("row:{rows_selector} {control_shape} | {rows_selector} | {key_spec}"),
    };

    // Per parameter, the first row (its position in the group) holding each value, in
    // the order the values were first seen: the order of `allowed_values`.
    let mut firsts: Vec<Vec<(String, usize)>> = Vec::new();
    let mut params: Vec<ActionParameter> = Vec::new();
    match &group.key {
        KeySpec::Index => params.push(ActionParameter {
            name: "index".into(),
            type_name: "number".into(),
            required: true,
            description: format!("0-based position of the row in {}[N]", list.path),
            allowed_values: None,
            default_value: None,
            secret: false,
        }),
        // A loop, not an iterator chain: each chain is code of its own in the wasm.
        _ => {
            for pname in group.param.split(',') {
                if pname.is_empty() {
                    continue;
                }
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
                params.push(ActionParameter {
                    name: pname.to_owned(),
                    type_name: "string".into(),
                    required: true,
                    description,
                    allowed_values: values.allowed(),
                    default_value: None,
                    secret: false,
                });
            }
        }
    }
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
        let chosen_by = params
            .iter()
            .map(|p| p.name.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        if group.at.is_some() {
            format!(
                "Follow the {} link of one row of {} (chosen by {chosen_by})",
                lower(&humanize(&group.label)),
                list.path,
            )
        } else {
            format!(
                "Press \"{}\" on one row of {} (chosen by {chosen_by})",
                clip(&group.label, 60),
                list.path,
            )
        }
    };
    let mut action = Found::new(group.name.clone(), Source::Row, verdict, description);
    // The records' namespace: never a region named after one of the records.
    let container = page.parent[group.rows[0]].unwrap_or(group.rows[0]);
    action.ns = crate::lists::records_namespace(page, container, &list.rows).map(str::to_owned);
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

/// `label` without the record name `key` it repeats ("Delete Buy milk" on the row of
/// "Buy milk" → "Delete"), when words are left; else `label` as it is.
fn without_row_key(label: &str, key: Option<&str>) -> String {
    let Some(key) = key
        .map(str::trim)
        .filter(|k| k.chars().any(char::is_alphanumeric))
    else {
        return label.to_owned();
    };
    let lower_label = lower(label);
    let k = lower(key);
    if lower_label.len() != label.len() {
        return label.to_owned();
    }
    // As whole words only: "a" is no part of "Archive".
    let bounded = |at: usize| {
        let before = lower_label[..at].chars().next_back();
        let after = lower_label[at + k.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    };
    let Some(at) = lower_label
        .match_indices(&k)
        .map(|(i, _)| i)
        .find(|&i| bounded(i))
    else {
        return label.to_owned();
    };
    let rest = format!("{} {}", &label[..at], &label[at + k.len()..]);
    let mut words: Vec<&str> = rest
        .split_whitespace()
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .collect();
    // "More options for" the row: the word that led to its name goes with it.
    if words.len() > 1
        && words.last().is_some_and(|w| {
            let w = lower(w.trim_matches(|c: char| !c.is_alphanumeric()));
            matches!(
                w.as_str(),
                "for" | "of" | "to" | "on" | "in" | "from" | "about" | "with"
            )
        })
    {
        words.pop();
    }
    let rest = words
        .join(" ")
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_owned();
    if rest.chars().any(char::is_alphabetic) {
        rest
    } else {
        label.to_owned()
    }
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
            crate::lists::cell_at(page, row, rel).map(|i| page.els[i].text.trim().to_owned())
        }
        KeySpec::Label => page
            .descendants(row)
            .find(|i| page.control(*i) && page.els[*i].tag == "a")
            .map(|i| control_label(&page.els[i])),
        KeySpec::Index => None,
    }
}

/// `s` in lower case, a character at a time (`str::to_lowercase`'s own code, kilobytes
/// of the wasm, adds only the Greek final sigma).
fn lower(s: &str) -> String {
    s.chars().flat_map(char::to_lowercase).collect()
}

#[cfg(test)]
mod label_tests {
    use super::without_row_key;

    #[test]
    fn a_label_loses_its_rows_name_only_as_whole_words() {
        assert_eq!(
            without_row_key("Delete Buy milk", Some("Buy milk")),
            "Delete"
        );
        assert_eq!(without_row_key("Archive", Some("a")), "Archive");
        assert_eq!(without_row_key("Buy milk", Some("Buy milk")), "Buy milk");
        assert_eq!(without_row_key("Edit \"Notes\"", Some("notes")), "Edit");
        assert_eq!(without_row_key("Delete", None), "Delete");
        assert_eq!(
            without_row_key("More options for 'About us'", Some("About us")),
            "More options"
        );
        assert_eq!(without_row_key("Log in to Acme", Some("Acme")), "Log in");
        assert_eq!(without_row_key("Löschen ÄRGER", Some("ärger")), "Löschen");
    }
}

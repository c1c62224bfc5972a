//! The evidence types: what the builders (forms, rows, controls, declarations) saw
//! about one action, before anything is weighed.

use nsp_protocol::Reversibility;

use crate::context::{Local, PageFacts};

/// What sort of control an action is bound to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A button (or `role=button`, `input type=button`).
    Button,
    /// A link that navigates (`a[href]` with a real URL).
    Link,
    /// The submit control of a form (or of a group of fields acting as one).
    Submit,
    /// A checkbox or switch that is an action by itself (outside any form).
    Toggle,
    /// A `<select>` or listbox outside any form.
    Choice,
    /// `role=tab`: switches what is shown.
    Tab,
    /// A non-semantic element with a click handler.
    Clickable,
    /// A form's reset button: clears what was typed, sends nothing.
    Reset,
    /// A WebMCP tool.
    Tool,
    /// A text field outside any form that no other action fills (a filter box).
    Field,
}

/// Facts about a form an action submits.
#[derive(Debug, Clone, Default)]
pub struct FormFacts {
    /// Lowercase method; `None` when the form has no `method` attribute (scripted forms
    /// usually have none and `preventDefault` the submit).
    pub method: Option<String>,
    pub action_url: String,
    pub has_password: bool,
    pub has_payment: bool,
    /// A field for recipients (an email address, "To") and one for a message body: what
    /// is submitted reaches other people.
    pub composes: bool,
    /// A user field and exactly one password that is not a new one: a login form.
    pub login: bool,
    /// No `<form>` element: fields and a button grouped by their container.
    pub implicit: bool,
    /// The form also has another submit control (this one may be a secondary "Cancel").
    pub has_other_submit: bool,
    /// Visible fields a person fills (not hidden ones, not its buttons).
    pub data_fields: usize,
    /// The form edits a record that exists: it says "edit" (a path segment of the
    /// page's URL, its legend or heading, the page's first heading) and its text fields
    /// hold values already. Sending it saves the edit; the record stays editable.
    pub edits_record: bool,
    /// The form's own heading (a legend or heading inside it), or the title of the
    /// dialog it sits in, opens with a verb that stores a record and says nothing else
    /// ("Add a bill", "New ticket"): a generic "Submit" sends that record.
    pub stores_record: bool,
}

/// Everything the classifier may weigh about one action.
#[derive(Debug, Clone)]
pub struct Evidence<'a> {
    pub kind: Kind,
    /// The control's visible label (or the tool's name).
    pub label: &'a str,
    /// More text describing the action (a tool's description, `data-nsp-description`),
    /// weighed less.
    pub description: &'a str,
    /// The other texts a person or a model sees on the control besides `label` (its
    /// visible text when an `aria-label` names it, its `<label>`, a button input's value,
    /// its title: [`shown_texts`]). A tier one of them names and the label does not is a
    /// conflict, weighed like the label's own words, so the stricter reading wins.
    pub shown: Vec<&'a str>,
    /// The control's visible text (what a sighted person reads on it), whatever names
    /// it: a `read` declaration is corroborated by its words, not by an `aria-label`
    /// the person does not see.
    pub visible: &'a str,
    pub form: Option<&'a FormFacts>,
    /// Danger styling on the control (`danger`, `destructive`… in its classes).
    pub danger: bool,
    /// The page asks for confirmation (`data-confirm`, `onclick="return confirm(…)"`).
    pub confirms: bool,
    /// A Rails/Laravel-style `data-method` other than get.
    pub data_method: Option<&'a str>,
    /// The control opens a menu, dialog or disclosure (`aria-haspopup`, `aria-expanded`).
    pub opens_popup: bool,
    /// Inside a `<dialog>` / `role=dialog`.
    pub in_dialog: bool,
    /// The control's `aria-controls` names a dialog: it opens that dialog.
    pub opens_dialog: bool,
    /// What the control opens (named by Bootstrap's `data-bs-target` or by
    /// `aria-controls`) is in the page and holds a control whose text opens with the
    /// same word as this one's label ("Delete" and the modal's "Delete"): it confirms,
    /// and its control does what the label says.
    pub opens_confirm: bool,
    /// The control submits the one writing form of the page, a form with no field to
    /// fill whose only other controls lead back ("Yes, publish" beside "Cancel"): the
    /// page asks only whether to go ahead with what its verb says.
    pub confirm_step: bool,
    /// A button of an editor's formatting toolbar (see [`formats_text`] and
    /// [`editor_toolbar_button`]).
    pub formats_text: bool,
    /// A control that changes the fields of its form without sending it ([`fills_form`]).
    pub fills_form: bool,
    /// A button that empties the field beside it, named by it ("Delete content type"
    /// beside the content type box: [`clears_field`]).
    pub clears_field: bool,
    /// One of a group of buttons that switch a view ([`switches_view`]).
    pub switches_view: bool,
    /// A table's column header the page listens for clicks on ([`sorts_column`]).
    pub sorts_column: bool,
    /// One of a group of buttons whose class says which are on ([`toggles_by_class`]).
    pub class_toggle: bool,
    /// The page's own declaration: `data-nsp-reversibility` or WebMCP hints.
    pub declared: Option<Declared>,
    /// Page-wide facts (None for WebMCP tools, which have no element).
    pub page: Option<&'a PageFacts>,
    /// What the page says about this control.
    pub local: Local,
    /// Rows are chosen by position, which shifts: the binding may be wrong.
    pub positional: bool,
    /// The control is disabled right now.
    pub disabled: bool,
    /// The name of the section or form the control sits in ("cart", "coupon"), as
    /// words: "Remove" in the cart reads as "remove from cart".
    pub section: String,
    /// A link's `href`.
    pub href: Option<&'a str>,
    /// The page's own URL (to tell a link to this site from one elsewhere).
    pub page_url: &'a str,
}

/// What a page declared about an action's tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Declared {
    /// `data-nsp-reversibility`.
    Tier(Reversibility),
    /// WebMCP `readOnlyHint: true`.
    ReadOnly,
    /// WebMCP `destructiveHint: true`.
    Destructive,
    /// WebMCP `destructiveHint: false` (and not read-only).
    NotDestructive,
    /// WebMCP `readOnlyHint: false` alone: it writes, how is left to the evidence.
    NotReadOnly,
}

impl<'a> Evidence<'a> {
    pub fn new(kind: Kind, label: &'a str) -> Evidence<'a> {
        Evidence {
            kind,
            label,
            description: "",
            shown: Vec::new(),
            visible: "",
            form: None,
            danger: false,
            confirms: false,
            data_method: None,
            opens_popup: false,
            in_dialog: false,
            opens_dialog: false,
            opens_confirm: false,
            confirm_step: false,
            formats_text: false,
            fills_form: false,
            clears_field: false,
            switches_view: false,
            sorts_column: false,
            class_toggle: false,
            declared: None,
            page: None,
            local: Local::default(),
            positional: false,
            disabled: false,
            section: String::new(),
            href: None,
            page_url: "",
        }
    }

    /// Evidence for control `idx` of `page`, with what the page around it says.
    pub fn on_page(
        kind: Kind,
        label: &'a str,
        page: &'a crate::page::Page<'_>,
        idx: usize,
    ) -> Evidence<'a> {
        let mut ev = Evidence::new(kind, label);
        let els: &'a [nsp_protocol::snapshot::ElementRecord] = page.els;
        ev.shown = shown_texts(&els[idx], label);
        // What a sighted person sees on it: the extraction's `seen_text` when a part of
        // its text is hidden from the eye (a screen reader's label, a transparent part).
        ev.visible = if crate::page::is_field(&els[idx]) {
            ""
        } else {
            crate::page::ElementRecordExt::attr(&els[idx], "seen_text")
                .unwrap_or(&els[idx].text)
                .trim()
        };
        ev.page = Some(&page.facts);
        ev.page_url = &page.snap.url;
        ev.local = crate::context::local(page, &page.facts, idx, label);
        ev.class_toggle = matches!(kind, Kind::Button | Kind::Clickable)
            && !crate::controls::opens_popup(&els[idx])
            && toggles_by_class(page, idx);
        ev.in_dialog = page.in_dialog[idx];
        ev.section = page
            .namespace_incl(idx)
            .map(|ns| {
                ns.split('_')
                    .filter(|w| !matches!(*w, "your" | "my" | "the" | "our"))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_default();
        ev.opens_popup =
            crate::controls::opens_popup(&els[idx]) || discloses(page, idx, label, &ev.shown);
        ev.opens_dialog = opens_dialog(page, idx);
        ev.opens_confirm = (ev.opens_popup || ev.opens_dialog) && opens_confirm(page, idx, label);
        ev.confirm_step = confirm_step(page, idx);
        // By structure alone (a toolbar beside an editor, a helper beside a form's
        // fields) only when nothing the control shows names another tier and it opens
        // nothing: "Delete this tiddler" in the editor's frame is still a deletion.
        let structural = !ev.opens_popup
            && !ev.opens_dialog
            && !super::lexicon::shows_part(label)
            && !names_other_tier(&[&[label][..], &ev.shown].concat());
        ev.formats_text =
            formats_text(page, idx, label) || (structural && editor_toolbar_button(page, idx));
        ev.fills_form = !ev.formats_text && structural && fills_form(page, idx);
        ev.clears_field = !ev.opens_popup && clears_field(page, idx, label);
        ev.switches_view = kind == Kind::Button && !ev.opens_popup && switches_view(page, idx);
        ev.sorts_column = matches!(kind, Kind::Button | Kind::Clickable)
            && !ev.opens_popup
            && sorts_column(page, idx, label);
        // An undoing verb counts only beside this control: in its form, toolbar, dialog,
        // list or section, not anywhere on the page.
        ev.local.inverse = ev
            .local
            .inverse
            .and_then(|_| group_inverse(page, idx, label));
        ev
    }
}

/// The texts of control `e` other than `label` that a person or a model sees: its
/// `aria-label`, its `<label>` (or `aria-labelledby` text), its visible text, a button
/// input's value and its title, each once. `control_label` picks one of them as the
/// label (the `aria-label` first); the rest are evidence too, so a control named
/// "Account" whose visible text says "Delete account" is not read as "Account" alone.
pub fn shown_texts<'a>(e: &'a nsp_protocol::snapshot::ElementRecord, label: &str) -> Vec<&'a str> {
    use crate::page::ElementRecordExt;
    let button_value = e.attr("value").filter(|_| {
        e.tag == "input" && matches!(e.input_type().as_ref(), "submit" | "button" | "reset")
    });
    // A field's text is what it holds (a textarea's, a contenteditable's): data, not
    // a name.
    let text = Some(e.text.as_str()).filter(|_| !crate::page::is_field(e));
    let mut out: Vec<&'a str> = Vec::new();
    for text in [
        e.attr("aria-label"),
        Some(e.label.as_str()),
        text,
        button_value,
        e.attr("title"),
    ]
    .into_iter()
    .flatten()
    {
        let text = text.trim();
        // The same words in another case are the same text ("Delete content type" as
        // the title of a control labelled "delete content type").
        if !text.is_empty()
            && !text.eq_ignore_ascii_case(label.trim())
            && !out.iter().any(|o| o.eq_ignore_ascii_case(text))
        {
            out.push(text);
        }
    }
    out
}

/// Danger styling in a class list.
pub fn is_danger_class(class: &str) -> bool {
    class.split_whitespace().any(|c| {
        let c = c.to_ascii_lowercase();
        c.contains("danger") || c.contains("destructive") || c.contains("critical")
    })
}

/// Whether control `idx`'s `aria-controls` names a dialog of the page.
fn opens_dialog(page: &crate::page::Page<'_>, idx: usize) -> bool {
    use crate::page::ElementRecordExt;
    let Some(ids) = page.els[idx].attr("aria-controls") else {
        return false;
    };
    ids.split_whitespace().any(|id| {
        page.by_id(id)
            .is_some_and(|d| crate::page::is_dialog(&page.els[d]))
    })
}

/// Whether what control `idx` (labelled `label`) opens is in the page and holds a
/// control whose text opens with the word `label` opens with (see
/// [`Evidence::opens_confirm`]): named by Bootstrap's `data-bs-target` / `data-target`
/// or by `aria-controls`, and not around the control.
fn opens_confirm(page: &crate::page::Page<'_>, idx: usize, label: &str) -> bool {
    use crate::page::ElementRecordExt;
    let e = &page.els[idx];
    let verb = label.split_whitespace().next().unwrap_or("");
    let id = e
        .attr("data-bs-target")
        .or(e.attr("data-target"))
        .or(e.attr("aria-controls"))
        .unwrap_or("")
        .trim()
        .trim_start_matches('#');
    !verb.is_empty()
        && !id.is_empty()
        && page.by_id(id).is_some_and(|d| {
            !(d..page.end[d]).contains(&idx)
                && page.descendants(d).any(|j| {
                    page.control(j)
                        && page.els[j]
                            .text
                            .split_whitespace()
                            .next()
                            .is_some_and(|w| w.eq_ignore_ascii_case(verb))
                })
        })
}

/// Whether control `idx` submits the page's one writing form, a form with no visible
/// field to fill whose other controls all lead back, on a page that offers a way back:
/// a step that asks only "go ahead?".
fn confirm_step(page: &crate::page::Page<'_>, idx: usize) -> bool {
    use crate::page::ElementRecordExt;
    let Some(form) = page.form[idx] else {
        return false;
    };
    if page.facts.write_forms != [form] || !page.facts.back {
        return false;
    }
    page.descendants(form).filter(|&j| j != idx).all(|j| {
        let e = &page.els[j];
        if !e.visible || e.input_type() == "hidden" {
            return true;
        }
        if page.field(j) {
            return false;
        }
        !page.control(j) || super::lexicon::is_back(&crate::page::control_label(e))
    })
}

/// The most elements of a group searched for an undoing verb: beyond it, none is
/// taken (the stricter reading).
const MAX_GROUP: usize = 2_000;

/// The verb that undoes control `idx`'s (labelled `label`) when a control of the same
/// group says it: the nearest form, fieldset, dialog, toolbar or group, menu, list or
/// table, or section of the page around it, else the nearest container that holds
/// another control (none: no pair).
fn group_inverse(page: &crate::page::Page<'_>, idx: usize, label: &str) -> Option<&'static str> {
    use crate::page::ElementRecordExt;
    let verb = crate::text::words(label).into_iter().next()?;
    let grouping = |a: usize| {
        let e = &page.els[a];
        matches!(
            e.tag.as_str(),
            "form"
                | "fieldset"
                | "dialog"
                | "ul"
                | "ol"
                | "table"
                | "section"
                | "article"
                | "aside"
                | "nav"
                | "header"
                | "footer"
                | "main"
        ) || matches!(
            e.role(),
            "toolbar"
                | "group"
                | "menu"
                | "menubar"
                | "dialog"
                | "alertdialog"
                | "list"
                | "grid"
                | "listbox"
                | "tree"
                | "region"
                | "navigation"
                | "complementary"
                | "banner"
                | "contentinfo"
                | "main"
        )
    };
    let acts_here = |j: usize| {
        let e = &page.els[j];
        // A tab or a link names a view ("Open" tabs, "Show all" links), not an act.
        page.control(j)
            && e.visible
            && e.role() != "tab"
            && !(e.tag == "a" && e.attr("href").is_some_and(|h| !h.is_empty() && h != "#"))
    };
    let acts = |j: usize| j != idx && acts_here(j);
    // A form holding this one button and nothing else that acts (a row's own form
    // around its "Deactivate") is the button, not a group: the list of rows it sits
    // in is, if it sits in one (its "Reactivate" is on another row).
    let list = |a: usize| {
        let e = &page.els[a];
        matches!(e.tag.as_str(), "ul" | "ol" | "table")
            || matches!(e.role(), "list" | "grid" | "listbox" | "tree" | "table")
    };
    let group = page.ancestors(idx).find(|&a| grouping(a)).map(|g| {
        let lone_form = page.els[g].tag == "form" && !page.descendants(g).any(acts);
        if lone_form {
            page.ancestors(g).find(|&a| list(a)).unwrap_or(g)
        } else {
            g
        }
    });
    // No such container: the nearest one that holds another control.
    let group = group.or_else(|| {
        page.ancestors(idx)
            .take(8)
            .find(|&a| page.descendants(a).len() <= MAX_GROUP && page.descendants(a).any(acts))
    })?;
    let range = page.descendants(group);
    if range.len() > MAX_GROUP {
        return None;
    }
    // A verb undoing this one that a control of the group other than this one opens
    // with. How many of the group's controls open with it is counted once per group
    // and verb (kept as the count plus one): each control of a group of thousands
    // read the whole group.
    let opens_with = |j: usize, w: &str| {
        crate::text::words(&crate::page::control_label(&page.els[j]))
            .first()
            .is_some_and(|f| f == w)
    };
    let mut memo = page.memo.0.take();
    let inverse = crate::context::inverse_where(&verb, &mut |other| {
        let count = crate::slot(&mut memo, format!("{group}\u{1}{other}"));
        if *count == 0 {
            *count = 1;
            for j in range.clone() {
                if acts_here(j) && opens_with(j, other) {
                    *count += 1;
                }
            }
        }
        let own = usize::from(acts_here(idx) && opens_with(idx, other));
        *count > 1 + own
    });
    page.memo.0.set(memo);
    inverse
}

/// Whether control `idx` is a button of an editor's formatting toolbar: a button that
/// submits nothing, whose label names a change of the text's form ("Bold", "Heading 2",
/// "Wrap selection in brackets"), with a text area or an editable region in the
/// container around it.
pub fn formats_text(page: &crate::page::Page<'_>, idx: usize, label: &str) -> bool {
    use crate::page::ElementRecordExt;
    let e = &page.els[idx];
    if crate::page::submits_form(page, idx)
        || page.field(idx)
        || (e.tag == "a" && e.attr("href").is_some_and(|h| h != "#"))
    {
        return false;
    }
    let formatting = crate::text::words(label)
        .iter()
        .chain(crate::text::words(e.attr("title").unwrap_or("")).iter())
        .any(|w| super::lexicon::formats(w));
    formatting
        && page.ancestors(idx).take(3).any(|a| {
            page.descendants(a).len() <= MAX_GROUP
                && page.descendants(a).any(|d| {
                    let el = &page.els[d];
                    el.tag == "textarea" || crate::page::is_editable(el)
                })
        })
}

/// The most elements a container may hold to count as the group around a toolbar or a
/// field: beyond it, it is a page, not a group.
const MAX_BESIDE: usize = 400;

/// Whether element `e` holds text a person edits: a text area, an editable region or a
/// `role=textbox`.
fn is_text_editor(e: &nsp_protocol::snapshot::ElementRecord) -> bool {
    use crate::page::ElementRecordExt;
    e.tag == "textarea" || crate::page::is_editable(e) || e.role() == "textbox"
}

/// A control that can only act in the page: not a field, not a submit, not a link to a
/// URL (`href="#"` and `javascript:` run a script of the page).
fn acts_in_page(page: &crate::page::Page<'_>, idx: usize) -> bool {
    use crate::page::ElementRecordExt;
    let e = &page.els[idx];
    let real_link = e.tag == "a"
        && e.attr("href").is_some_and(|h| {
            let h = h.trim();
            !h.is_empty() && h != "#" && !h.to_ascii_lowercase().starts_with("javascript:")
        });
    page.control(idx) && !page.field(idx) && !crate::page::submits_form(page, idx) && !real_link
}

/// A control that acts in the page and says no verb, right before an element holding
/// controls all hidden (Grappelli's user menu: the user's name as a `javascript://`
/// link before the list of "Change password" and "Log out" it shows): a disclosure
/// drawn without ARIA, which shows that part.
fn discloses(page: &crate::page::Page<'_>, idx: usize, label: &str, shown: &[&str]) -> bool {
    let next = page.end[idx];
    if next >= page.els.len()
        || page.parent[next] != page.parent[idx]
        || !acts_in_page(page, idx)
        || std::iter::once(&label)
            .chain(shown)
            .any(|t| !super::lexicon::hits(t).is_empty())
    {
        return false;
    }
    let mut controls = page
        .descendants(next)
        .filter(|&d| page.control(d))
        .peekable();
    controls.peek().is_some() && controls.all(|d| !page.els[d].visible)
}

/// Whether control `idx` is one of a group of buttons that switch a view (a segmented
/// control: "Day | Week | Month", a chart's "Net Profit | Income | Expenses"): it acts
/// in the page outside any form, the element holding it holds two or more recorded
/// elements of its tag (others beside them are no members), all acting in the page and
/// holding no pressed state of their own, and exactly one of them is marked current (a class `selected`, `active`
/// or `current`, or the `is-` form of one; `aria-current`; `aria-selected="true"`).
/// One marked among equals is what a tab bar drawn without its roles looks like. So is,
/// with none marked so, one of three or more styled apart from the others, which share
/// one class attribute ("HTML | Plain Text | Headers | Source", the shown one in the
/// accent colour), when no label among them says a verb that writes: a toolbar's
/// primary "Save" beside "Cancel" is styled apart too. A member disabled now counts for
/// neither.
pub fn switches_view(page: &crate::page::Page<'_>, idx: usize) -> bool {
    use crate::page::ElementRecordExt;
    const MAX_GROUP: usize = 12;
    if page.form[idx].is_some() || !acts_in_page(page, idx) {
        return false;
    }
    let (Some(parent), Some(here)) = (page.parent[idx], dom_parent(page, idx)) else {
        return false;
    };
    let tag = page.els[idx].tag.as_str();
    let mut members = 0;
    let mut current = 0;
    // The class attributes seen, each with how many members have it (at most two).
    let mut styles: Vec<(&str, usize)> = Vec::new();
    let mut writes = false;
    for &k in page.children(parent) {
        if dom_parent(page, k) != Some(here) {
            continue;
        }
        let e = &page.els[k];
        // The group is the children of its tag: a pane's close button before its tabs
        // (mitmweb's "Request | Response | …" links) is none of them. A member disabled
        // now (MailDev's "HTML" for a message without HTML) is one of the group all the
        // same, drawn in its own greyed style: left out of both counts.
        if e.tag != tag || e.disabled {
            continue;
        }
        match styles.iter_mut().find(|(c, _)| *c == e.classes()) {
            Some((_, n)) => *n += 1,
            None => styles.push((e.classes(), 1)),
        }
        writes = writes
            || super::lexicon::hits(&crate::page::control_label(e))
                .iter()
                .any(|h| h.tier != nsp_protocol::Reversibility::Read);
        if !acts_in_page(page, k)
            || e.has("aria-pressed")
            || e.has("aria-checked")
            || crate::controls::opens_popup(e)
        {
            return false;
        }
        members += 1;
        if members > MAX_GROUP {
            return false;
        }
        current += usize::from(marked_current(e));
    }
    let apart = members >= 3
        && current == 0
        && !writes
        && matches!(styles[..], [(_, a), (_, b)] if a.min(b) == 1);
    members >= 2 && current == 1 || apart
}

/// Whether control `idx` is one of a group of toggle buttons whose state only a class
/// shows (a journal's entry-type filters: "Open", "Note", "*" titled "Cleared
/// transactions", each `inactive` or not; in a `<form>` of filters too, as buttons that
/// submit nothing): it acts in the page, the element holding it
/// holds buttons of its tag that act in the page, and a state word of the class
/// (`active`, `inactive`, `selected`, `on`, `off`, `pressed`, `checked`, `toggled`, or a
/// compound ending in one: `is-active`) marks two or more of them and leaves two or
/// more unmarked. One marked among equals is a view switch instead
/// ([`switches_view`]), and so is one left unmarked (a tab bar that marks the others
/// `inactive`). Pressing such a button again puts its state back, as `aria-pressed`
/// says of its own.
pub fn toggles_by_class(page: &crate::page::Page<'_>, idx: usize) -> bool {
    use crate::page::ElementRecordExt;
    const MAX_GROUP: usize = 40;
    let state_word = |c: &str| {
        matches!(
            c.rsplit(['-', '_']).next().unwrap_or(c),
            "active" | "inactive" | "selected" | "on" | "off" | "pressed" | "checked" | "toggled"
        )
    };
    if !acts_in_page(page, idx) {
        return false;
    }
    let (Some(parent), Some(here)) = (page.parent[idx], dom_parent(page, idx)) else {
        return false;
    };
    let tag = page.els[idx].tag.as_str();
    let group: Vec<usize> = page
        .children(parent)
        .iter()
        .copied()
        .filter(|&k| dom_parent(page, k) == Some(here) && page.els[k].tag == tag)
        .take(MAX_GROUP + 1)
        .collect();
    if group.len() < 4 || group.len() > MAX_GROUP || !group.iter().all(|&k| acts_in_page(page, k)) {
        return false;
    }
    // A word that marks some of them and not the others.
    let mut words = group.iter().flat_map(|&k| {
        page.els[k]
            .classes()
            .split_whitespace()
            .filter(|c| state_word(c))
    });
    words.any(|w| {
        let marked = group
            .iter()
            .filter(|&&k| page.els[k].classes().split_whitespace().any(|c| c == w))
            .count();
        marked >= 2 && group.len() - marked >= 2
    })
}

/// Whether control `idx` is a table's column header or the one control filling one (a
/// sort button whose label is the header's whole text): a column header the page
/// listens for clicks on sorts the table by that column, or does nothing. A header is
/// a `role=columnheader`, or a `th` in a `thead` or with `scope="col"`; it holds no
/// field (a header's "select all" box is a field of its own), and it acts in the page.
/// A button of a header row drawn without table markup
/// ([`crate::lists::drawn_header_row`]) with a column's few words is one too.
pub fn sorts_column(page: &crate::page::Page<'_>, idx: usize, label: &str) -> bool {
    use crate::page::ElementRecordExt;
    let header = |h: usize| {
        let e = &page.els[h];
        e.role() == "columnheader"
            || (e.tag == "th"
                && !matches!(e.role(), "rowheader" | "link")
                && (e
                    .attr("scope")
                    .is_some_and(|s| s.trim().eq_ignore_ascii_case("col"))
                    || page.ancestors(h).any(|a| page.els[a].tag == "thead")))
    };
    if !acts_in_page(page, idx) || page.descendants(idx).any(|d| page.field(d)) {
        return false;
    }
    if header(idx) {
        return true;
    }
    // A button of a header row drawn without table markup, labelled as a column is
    // (a glyph alone names no column).
    if crate::lists::in_drawn_header(page, idx)
        && (1..=4).contains(&crate::text::words(label).len())
    {
        return true;
    }
    // A control inside a header cell, saying what the cell says.
    let Some(cell) = page.ancestors(idx).find(|a| {
        let e = &page.els[*a];
        matches!(e.tag.as_str(), "th" | "td" | "tr" | "table")
            || matches!(
                e.role(),
                "columnheader" | "rowheader" | "cell" | "gridcell" | "row" | "table" | "grid"
            )
    }) else {
        return false;
    };
    let said = |t: &str| crate::text::words(t).join(" ");
    header(cell)
        && !label.trim().is_empty()
        && said(&page.els[cell].text) == said(label)
        && page.descendants(cell).filter(|d| page.control(*d)).count() == 1
}

/// Where element `i` sits in the DOM, as its recorded parent and the part of its own
/// selector before its last step: two records with the same answer are children of one
/// element, whether or not that element was recorded. `None` when the selector does not
/// say (an id selector).
fn dom_parent<'p>(page: &'p crate::page::Page<'_>, i: usize) -> Option<(Option<usize>, &'p str)> {
    let e = &page.els[i];
    if e.nth > 0 {
        return Some((page.parent[i], ""));
    }
    match e.selector.rsplit_once(" > ") {
        Some((prefix, _)) => Some((page.parent[i].filter(|_| e.relative), prefix)),
        None => e.relative.then_some((page.parent[i], "")),
    }
}

/// A control marked as the current one of its group.
fn marked_current(e: &nsp_protocol::snapshot::ElementRecord) -> bool {
    use crate::page::ElementRecordExt;
    e.classes().split_whitespace().any(|c| {
        matches!(
            c.strip_prefix("is-").unwrap_or(c),
            "selected" | "active" | "current"
        )
    }) || e.attr("aria-current").is_some_and(|v| v.trim() != "false")
        || e.attr("aria-selected").is_some_and(|v| v.trim() == "true")
}

/// Whether control `idx` is a button of an editor's formatting toolbar, by structure:
/// it acts in the page, and it sits in a `role=toolbar` (or, without one, in a group of
/// three or more such buttons with no submit) where at least one button names a change
/// of the text's form ("Bold", "Heading") and a text area, an editable region or a
/// `role=textbox` is in the toolbar, beside it or named by its `aria-controls`. Every
/// button of such a toolbar ("Horizontal rule", "Link", "Image", a button with only an
/// icon) changes the text being edited, which only the editor's own save sends. Shared
/// with the state confidence, for which these buttons cannot change anything stored.
pub fn editor_toolbar_button(page: &crate::page::Page<'_>, idx: usize) -> bool {
    use crate::page::ElementRecordExt;
    if !acts_in_page(page, idx) {
        return false;
    }
    let toolbar = page
        .ancestors(idx)
        .take(4)
        .find(|&a| page.els[a].role() == "toolbar");
    let Some(group) = toolbar.or_else(|| page.ancestors(idx).next()) else {
        return false;
    };
    if page.descendants(group).len() > MAX_BESIDE {
        return false;
    }
    let mut buttons = 0;
    let mut formatting = false;
    for d in page.descendants(group) {
        if crate::page::submits_form(page, d) {
            return false;
        }
        if acts_in_page(page, d) {
            buttons += 1;
            let e = &page.els[d];
            formatting = formatting
                || [
                    crate::page::control_label(e).as_str(),
                    e.attr("title").unwrap_or(""),
                ]
                .iter()
                .any(|t| {
                    crate::text::words(t)
                        .iter()
                        .any(|w| super::lexicon::formats(w))
                });
        }
    }
    if !formatting || buttons < if toolbar.is_some() { 2 } else { 3 } {
        return false;
    }
    let controlled = page.els[group].attr("aria-controls").is_some_and(|ids| {
        ids.split_whitespace().any(|id| {
            page.els
                .iter()
                .any(|e| e.attr("id") == Some(id) && is_text_editor(e))
        })
    });
    controlled
        || std::iter::once(group)
            .chain(page.ancestors(group).take(2))
            .any(|a| {
                page.descendants(a).len() <= MAX_BESIDE
                    && page.descendants(a).any(|d| is_text_editor(&page.els[d]))
            })
}

/// Whether control `idx` changes the fields of the form it sits in without sending it:
/// a control that acts in the page (a `type=button`, an `href="#"` link, a clickable),
/// inside a `<form>` that has a submit of its own, in the same container as one of the
/// form's fields ("Everyone" beside the boxes it ticks, "Format" beside the text it
/// reformats). The form's own submit is what sends what it changed.
pub fn fills_form(page: &crate::page::Page<'_>, idx: usize) -> bool {
    let Some(form) = page.form[idx] else {
        return false;
    };
    if !acts_in_page(page, idx) {
        return false;
    }
    // Not `idx` itself, which acts in the page.
    if !page.sent(form) {
        return false;
    }
    page.ancestors(idx)
        .take_while(|&a| a != form)
        .chain(std::iter::once(form))
        .take(2)
        .any(|a| {
            page.descendants(a).len() <= MAX_BESIDE
                && page
                    .descendants(a)
                    .any(|d| page.field(d) && page.form[d] == Some(form))
        })
}

/// Whether `texts` name a permanent act anywhere, or open with a read ("Preview",
/// "Show…"): structure alone then does not say what the control does. A read word
/// later is the object ("Format query").
pub(super) fn names_other_tier(texts: &[&str]) -> bool {
    use nsp_protocol::Reversibility::{IrreversibleWrite, Read};
    texts.iter().any(|t| {
        super::lexicon::hits(t)
            .iter()
            .any(|h| h.tier == IrreversibleWrite || (h.tier == Read && h.first))
    })
}

/// Words after "Clear"/"Reset" that name a field's value, not a thing the field names:
/// "to default value", "value", "input", "field".
fn names_a_value(object: &[String]) -> bool {
    let rest = match object {
        [to, rest @ ..] if to == "to" => rest,
        rest => rest,
    };
    match rest {
        [w] => matches!(
            w.as_str(),
            "default" | "defaults" | "value" | "input" | "field"
        ),
        [a, b] => a == "default" && b == "value",
        _ => false,
    }
}

/// Whether control `idx` sits beside exactly one field a person sets: one field, or a
/// number box and the slider that sets the same number (Gradio's `gr.Slider`). Beside
/// means in the same DOM element, read from the selectors (the extraction records few
/// wrappers), or in a recorded parent of a dozen elements at most.
#[inline(never)]
fn one_field_beside(page: &crate::page::Page<'_>, idx: usize) -> bool {
    use crate::page::ElementRecordExt;
    let Some(container) = page.ancestors(idx).next() else {
        return false;
    };
    let inside = page.descendants(container);
    let small = inside.len() <= 12;
    if inside.len() > 60 {
        return false;
    }
    let own = page.selector(idx);
    let dom_parent = own.rsplit_once(" > ").map(|(p, _)| p);
    let (mut fields, mut number, mut range) = (0, false, false);
    for d in inside {
        if !page.field(d) {
            continue;
        }
        let d_selector = page.selector(d);
        let beside =
            dom_parent.is_some() && d_selector.rsplit_once(" > ").map(|(p, _)| p) == dom_parent;
        if beside || small {
            fields += 1;
            let kind = page.els[d].input_type();
            number |= kind == "number";
            range |= kind == "range";
        }
    }
    fields == 1 || (fields == 2 && number && range)
}

/// Whether control `idx`, labelled `label`, empties the field beside it: it acts in the
/// page, its label is one verb of removal ("Delete", "Remove", "Clear", "Erase",
/// "Reset") followed by exactly the name a person reads on a text field in the same
/// small container ("Delete content type" beside the box named "content type"), or
/// "Clear"/"Reset" followed by words naming a field's value itself ("Reset to default
/// value" in a slider's own container: Gradio's `gr.Slider`), beside exactly one field.
/// What it deletes is what that field holds, which typing puts back.
pub fn clears_field(page: &crate::page::Page<'_>, idx: usize, label: &str) -> bool {
    use crate::page::ElementRecordExt;
    let words = crate::text::words(label);
    let Some((verb, object)) = words.split_first() else {
        return false;
    };
    if object.is_empty()
        || !matches!(
            verb.as_str(),
            "delete" | "remove" | "clear" | "erase" | "reset"
        )
        || !acts_in_page(page, idx)
    {
        return false;
    }
    if matches!(verb.as_str(), "clear" | "reset") && names_a_value(object) {
        return one_field_beside(page, idx);
    }
    let Some(parent) = page.ancestors(idx).next() else {
        return false;
    };
    if page.descendants(parent).len() > 60 {
        return false;
    }
    page.descendants(parent).any(|d| {
        let e = &page.els[d];
        let text_entry = e.tag == "textarea"
            || (e.tag == "input"
                && matches!(
                    e.input_type().as_ref(),
                    "" | "text" | "search" | "url" | "email" | "number" | "date"
                ));
        text_entry
            && e.visible
            && [
                e.attr("aria-label"),
                Some(e.label.as_str()),
                e.attr("placeholder"),
                e.attr("title"),
            ]
            .into_iter()
            .flatten()
            .any(|name| crate::text::words(name) == object)
    })
}

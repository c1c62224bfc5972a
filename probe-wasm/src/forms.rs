//! Forms → one action per submit control, with typed parameters from the named fields.
//! Also the scripted kind of form most apps use: fields and a button grouped in one
//! container without a `<form>` (a composer with a contenteditable and a "Post" button).

use std::collections::BTreeMap;

use nsp_protocol::snapshot::ElementRecord;
use nsp_protocol::ActionParameter;
use serde_json::Value;

use crate::classify::{classify, is_danger_class, Declared, Evidence, FormFacts, Kind};
use crate::discover::{signature, Claims, Found, Source};
use crate::page::{
    control_label, field_label, is_editable, is_payment, is_secret, ElementRecordExt, Page,
};
use crate::text::{clip, humanize, is_identifier, slug};
use crate::HashMap;

/// Labels that say nothing about which form they submit ("Save" on a settings page with
/// three forms): the action name gets the form's namespace.
const GENERIC_LABELS: &[&str] = &[
    "submit", "ok", "go", "continue", "next", "save", "apply", "done", "update", "yes", "send",
];

pub fn discover(page: &Page<'_>, claims: &mut Claims, found: &mut Vec<Found>) {
    for f in 0..page.els.len() {
        let form = &page.els[f];
        if form.tag != "form" || !form.visible || claims.is_claimed(f) {
            continue;
        }
        let fields: Vec<usize> = page
            .descendants(f)
            .filter(|i| form_field(page, *i))
            .collect();
        let submits: Vec<usize> = page
            .descendants(f)
            .filter(|i| is_submit(&page.els[*i]) && page.els[*i].visible && !claims.is_claimed(*i))
            .collect();
        let facts = form_facts(page, f, &fields, submits.len() > 1, false);
        let ns = page.namespace_incl(f).map(str::to_owned);
        if submits.is_empty() {
            // Enter in a field submits a form without a button (search boxes).
            if !fields
                .iter()
                .any(|i| page.els[*i].visible && !page.els[*i].disabled)
            {
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
        for s in submits {
            let label = control_label(&page.els[s]);
            let action = build(page, f, s, &label, &fields, &facts, ns.clone(), None);
            claims.claim(s);
            found.push(action);
        }
        claims.claim(f);
    }
}

/// Fields and a write button in one container, no `<form>`: filled, then clicked.
pub fn discover_implicit(
    page: &Page<'_>,
    lists: &crate::lists::Lists,
    claims: &mut Claims,
    found: &mut Vec<Found>,
) {
    for b in 0..page.els.len() {
        let e = &page.els[b];
        let is_button = e.tag == "button"
            || e.role() == "button"
            || (e.tag == "input" && matches!(e.input_type().as_ref(), "button" | "submit"));
        if !is_button
            || !e.visible
            || claims.is_claimed(b)
            || page.form[b].is_some()
            || lists.record_of(page, b).is_some()
        {
            continue;
        }
        let label = control_label(e);
        let verdict = crate::classify::from_words(&label);
        // Only a button that sends something makes its neighbours a form: a toggle
        // beside a filter box sends nothing.
        if verdict.as_ref().is_none_or(|w| {
            w.tier == nsp_protocol::Reversibility::Read
                || matches!(
                    w.cue.as_str(),
                    "toggle" | "switch" | "turn" | "enable" | "disable" | "hide" | "pin" | "unpin"
                )
        }) {
            continue;
        }
        let Some(group) = field_group(page, b) else {
            continue;
        };
        let fields: Vec<usize> = page
            .descendants(group)
            .filter(|i| form_field(page, *i) && page.form[*i].is_none())
            .collect();
        let facts = form_facts(page, group, &fields, false, true);
        let ns = page.namespace_incl(group).map(str::to_owned);
        let action = build(page, group, b, &label, &fields, &facts, ns, None);
        claims.claim(b);
        found.push(action);
    }
}

/// The nearest container (at most four levels up, never past a region) that holds
/// fields outside any form.
fn field_group(page: &Page<'_>, b: usize) -> Option<usize> {
    for (depth, a) in page.ancestors(b).enumerate() {
        if depth >= 4 {
            break;
        }
        let has_fields = page.descendants(a).any(|i| {
            let e = &page.els[i];
            page.field(i) && page.form[i].is_none() && e.visible && !e.disabled && !is_toggle(e)
        });
        if has_fields {
            return Some(a);
        }
        if page.region_el(a) {
            break;
        }
    }
    None
}

/// A field a form sends: the page's fields, and a custom select (`role=listbox`, chosen
/// by clicking one of its options), which is no field anywhere else: outside a form its
/// options are a list of records.
fn form_field(page: &Page<'_>, i: usize) -> bool {
    page.field(i) || page.els[i].role() == "listbox"
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
        implicit,
        has_other_submit,
    }
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
                || crate::text::words(&field_label(e)).iter().any(|w| {
                    matches!(
                        w.as_str(),
                        "user" | "username" | "login" | "email" | "e" | "name"
                    )
                }))
    });
    passwords.len() == 1 && !new_password && user && visible.len() <= 4
}

/// Recipients and a message among the fields: what the form sends reaches people.
fn composes(page: &Page<'_>, fields: &[usize]) -> bool {
    let recipient = fields.iter().any(|i| {
        let e = &page.els[*i];
        e.input_type() == "email"
            || crate::text::words(&field_label(e))
                .iter()
                .any(|w| matches!(w.as_str(), "to" | "recipient" | "recipients" | "cc" | "bcc"))
    });
    let message = fields.iter().any(|i| {
        let e = &page.els[*i];
        e.tag == "textarea" || is_editable(e)
    });
    recipient && message
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
    let mut ev = Evidence::on_page(Kind::Submit, label, page, control);
    ev.form = Some(facts);
    ev.disabled = c.disabled;
    ev.danger = is_danger_class(c.classes());
    ev.confirms = c.has("data-confirm") || c.has("data-turbo-confirm");
    ev.in_dialog = page.in_dialog[control];
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
            let mut name = slug(label);
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
            clip(label, 60)
        ),
        (None, false) => format!("Fill the form and press \"{}\"", clip(label, 60)),
        (Some(n), true) => format!("Fill the \"{}\" form and submit it", clip(&n, 60)),
        (None, true) => "Fill the form and submit it".into(),
    }
}

/// Typed parameters from fields, and the selector each one fills.
pub fn field_params(
    page: &Page<'_>,
    fields: &[usize],
) -> (Vec<ActionParameter>, BTreeMap<String, String>) {
    let mut params: Vec<ActionParameter> = Vec::new();
    let mut targets = BTreeMap::new();
    let mut groups: HashMap<String, Vec<usize>> = HashMap::default();
    let mut order: Vec<String> = Vec::new();
    for &i in fields {
        let e = &page.els[i];
        if !e.visible || e.disabled || (e.tag == "input" && e.input_type() == "file") {
            continue;
        }
        let Some(name) = param_name(e) else { continue };
        if !groups.contains_key(&name) {
            order.push(name.clone());
        }
        groups.entry(name).or_default().push(i);
    }
    for name in order {
        let members = &groups[&name];
        let first = &page.els[members[0]];
        let kind = first.input_type();
        let is_input = first.tag == "input";
        let secret = members.iter().any(|i| is_secret(&page.els[*i]));
        // A secret field's label may be where the page mirrors what is typed: it is
        // described by its name, which never comes from there (`param_name`).
        let label = if secret {
            String::new()
        } else {
            field_label(first)
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
                let values: Vec<Value> = members
                    .iter()
                    .map(|i| Value::String(page.els[*i].attr("value").unwrap_or("on").to_owned()))
                    .collect();
                let checked = members
                    .iter()
                    .find(|i| page.els[**i].attr("checked") == Some("true"))
                    .map(|i| Value::String(page.els[*i].attr("value").unwrap_or("on").to_owned()));
                (
                    "string",
                    Some(values),
                    checked,
                    "one of the allowed values".into(),
                )
            } else if is_input && kind == "checkbox" && members.len() > 1 {
                let values: Vec<Value> = members
                    .iter()
                    .map(|i| Value::String(page.els[*i].attr("value").unwrap_or("on").to_owned()))
                    .collect();
                (
                    "array",
                    Some(values),
                    None,
                    "a list of the allowed values to check".into(),
                )
            } else if (is_input && kind == "checkbox")
                || matches!(first.role(), "switch" | "checkbox")
            {
                let on = first.attr("checked") == Some("true")
                    || first.attr("aria-checked") == Some("true");
                (
                    "boolean",
                    None,
                    Some(Value::Bool(on)),
                    "true to check it, false to clear it".into(),
                )
            } else if first.tag == "select" {
                let options: Vec<Value> = first
                    .attr("options")
                    .and_then(|o| serde_json::from_str::<Vec<String>>(o).ok())
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|o| !o.is_empty())
                    .map(Value::String)
                    .collect();
                let multiple = first.has("multiple");
                let default = first
                    .attr("value")
                    .filter(|v| !v.is_empty())
                    .map(|v| Value::String(v.to_owned()));
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
            } else if is_input && matches!(kind.as_ref(), "number" | "range") {
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
                } else if is_editable(first) {
                    Some(first.text.clone())
                        .filter(|t| !t.is_empty())
                        .map(Value::String)
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
            clip(&format!("{label}: {hint}"), 160)
        });
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

/// The parameter a field fills: `data-nsp-param`, its `name`, its id, its label. A
/// secret field's: its `name` or id, else its kind (`crate::page::secret_name`), never
/// a label or a declared name.
fn param_name(e: &ElementRecord) -> Option<String> {
    let secret = is_secret(e);
    let declared = e
        .attr("data-nsp-param")
        .filter(|p| !p.contains('=') && !secret);
    let raw = declared
        .or_else(|| e.attr("name"))
        .or_else(|| e.attr("id").filter(|id| crate::page::stable_id(id)));
    if let Some(raw) = raw.map(str::trim).filter(|r| !r.is_empty()) {
        if is_identifier(raw) && !raw.contains(['.', '-']) {
            return Some(raw.to_owned());
        }
        let s = slug(raw);
        if !s.is_empty() {
            return Some(s);
        }
    }
    if secret {
        return Some(crate::page::secret_name(e));
    }
    let s = slug(&field_label(e));
    (!s.is_empty()).then_some(s)
}

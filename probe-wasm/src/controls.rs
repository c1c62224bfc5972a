//! Standalone controls no more trusted source claimed: buttons, links, ARIA controls
//! (button, link, menuitem, tab), switches and choice lists outside forms, and plain
//! elements the page attached click handlers to. Unlabelled ones are not offered: an
//! agent could not tell them apart, and they lower the state's coverage instead.

use nsp_protocol::ActionParameter;
use serde_json::Value;

use crate::classify::{classify, is_danger_class, Evidence, Kind};
use crate::discover::{signature, Claims, Found, Source};
use crate::page::{control_label, field_label, is_secret, ElementRecordExt, Page};
use crate::text::{clip, name_slug, slug};
use crate::HashMap;

pub fn discover(page: &Page<'_>, claims: &mut Claims, found: &mut Vec<Found>) {
    // Keyed by "label\u{1}href" (one HashMap type across the probe keeps the wasm small).
    let mut links: HashMap<String, usize> = HashMap::default();
    let mut radios: HashMap<String, usize> = HashMap::default();
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
        if let Some(action) = toggle_or_choice(page, i, &mut radios, found) {
            claims.claim(i);
            found.push(action);
            continue;
        }
        if !page.control(i) {
            continue;
        }
        let label = control_label(e);
        let base = name_slug(&label);
        if base.is_empty() {
            continue;
        }
        let href = e.attr("href").unwrap_or("");
        let navigates = e.tag == "a"
            && !href.is_empty()
            && href != "#"
            && !href.to_ascii_lowercase().starts_with("javascript:");
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
            if let Some(&idx) = links.get(&key) {
                found[idx].bind(page, i);
                claims.claim(i);
                continue;
            }
            links.insert(key, found.len());
        }
        let mut ev = Evidence::on_page(kind, &label, page, i);
        ev.href = e.attr("href");
        ev.danger = is_danger_class(e.classes());
        ev.confirms = e.has("data-confirm")
            || e.has("data-turbo-confirm")
            || e.attr("onclick").is_some_and(|o| o.contains("confirm("));
        let method = e
            .attr("data-method")
            .or_else(|| e.attr("data-turbo-method"))
            .map(|m| m.trim().to_ascii_lowercase());
        ev.data_method = method.as_deref().filter(|m| *m != "get");
        ev.opens_popup = e.has("aria-haspopup") || e.has("aria-expanded") || e.tag == "summary";
        ev.in_dialog = page.in_dialog[i];
        let verdict = classify(&ev);
        let (name, description) = match kind {
            Kind::Link => (
                format!("open_{base}"),
                format!("Follow the link \"{}\"", clip(&label, 100)),
            ),
            Kind::Tab => (
                format!("show_{base}"),
                format!("Switch to the \"{}\" tab", clip(&label, 100)),
            ),
            _ => (base, format!("Press \"{}\"", clip(&label, 100))),
        };
        let mut action = Found::new(name, Source::Control, verdict, description);
        action.ns = page.namespace(i).map(str::to_owned);
        action.schema.signature = "fn() -> bool".into();
        action.schema.internal_target = format!("dom:{}", page.selector(i));
        action.bind(page, i);
        claims.claim(i);
        found.push(action);
    }
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
    let label = field_label(e);
    let base = name_slug(&label);
    if base.is_empty() {
        return None;
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
    let mut element = crate::discover::explain_element(page, i);
    element.text.clear();
    action.explain.elements.push(element);
    Some(action)
}

/// Switches, radio groups and choice lists outside forms: `set_<label>(value)`.
fn toggle_or_choice(
    page: &Page<'_>,
    i: usize,
    radios: &mut HashMap<String, usize>,
    found: &mut [Found],
) -> Option<Found> {
    let e = &page.els[i];
    if page.form[i].is_some() {
        return None;
    }
    let is_checkbox = (e.tag == "input" && e.input_type() == "checkbox")
        || matches!(e.role(), "switch" | "checkbox" | "menuitemcheckbox");
    let is_radio = e.tag == "input" && e.input_type() == "radio";
    let is_select = e.tag == "select";
    if !(is_checkbox || is_radio || is_select) {
        return None;
    }
    let label = field_label(e);
    if is_radio {
        let group = e.attr("name").unwrap_or("").to_owned();
        if let Some(&idx) = radios.get(&group).filter(|_| !group.is_empty()) {
            // Another option of a group already offered: add its value.
            let value = Value::String(e.attr("value").unwrap_or("on").to_owned());
            if let Some(p) = found[idx].schema.parameters.first_mut() {
                p.allowed_values.get_or_insert_with(Vec::new).push(value);
            }
            found[idx].bind(page, i);
            return None;
        }
    }
    let base = if is_radio {
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
    let mut ev = Evidence::on_page(kind, &label, page, i);
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
        let allowed: Vec<Value> = if is_radio {
            vec![Value::String(e.attr("value").unwrap_or("on").to_owned())]
        } else {
            e.attr("options")
                .and_then(|o| serde_json::from_str::<Vec<String>>(o).ok())
                .unwrap_or_default()
                .into_iter()
                .map(Value::String)
                .collect()
        };
        ActionParameter {
            name: "value".into(),
            type_name: "string".into(),
            required: true,
            description: "One of the allowed values".into(),
            allowed_values: Some(allowed),
            default_value: e
                .attr("value")
                .filter(|v| !v.is_empty() && is_select && !is_secret(e))
                .map(|v| Value::String(v.to_owned())),
            secret: is_secret(e),
        }
    };
    let description = if is_checkbox {
        format!("Switch \"{}\" on or off", clip(&label, 100))
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
        radios.insert(e.attr("name").unwrap_or("").to_owned(), found.len());
    }
    action.bind(page, i);
    Some(action)
}

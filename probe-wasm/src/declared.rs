//! Actions the page declares itself, trusted most: WebMCP tools
//! (`navigator.modelContext.registerTool`, recorded by the extension's main-world
//! shim), WebMCP's declarative forms (`<form toolname tooldescription>`), and our
//! `data-nsp-*` vocabulary (see the site authors section of README.md):
//!
//! - `data-nsp-action="name"` on a control or a `<form>`;
//! - `data-nsp-reversibility="read|reversible_write|irreversible_write"` beside it;
//! - `data-nsp-description="…"` on the action or on a field;
//! - `data-nsp-param="name"` on a field (renames its parameter), or
//!   `data-nsp-param="email_id=e1"` on a row: every action inside the row takes that
//!   parameter, and the action is offered once for all rows.

use nsp_protocol::snapshot::DeclaredTool;
use nsp_protocol::{ActionParameter, Reversibility};
use serde_json::Value;

use crate::classify::{classify, is_danger_class, Declared, Evidence, Kind, Verdict};
use crate::forms::{self, form_facts, is_submit};
use crate::found::{signature, Claims, FewValues, Found, Source};
use crate::lists::{record_fields, Lists};
use crate::page::{control_label, ElementRecordExt, Page};
use crate::text::{clip, humanize, is_identifier, name_value_pairs, slug, MAX_DESCRIPTION_LEN};
use crate::HashMap;

pub fn discover(page: &Page<'_>, lists: &Lists, claims: &mut Claims, found: &mut Vec<Found>) {
    for tool in &page.snap.tools {
        if let Some(action) = webmcp_tool(tool) {
            found.push(action);
        }
    }
    for f in 0..page.els.len() {
        let e = &page.els[f];
        if e.tag == "form" && e.visible && !e.has("data-nsp-action") {
            if let Some(name) = e
                .attr("toolname")
                .map(action_name)
                .filter(|n| !n.is_empty())
            {
                let fields: Vec<usize> = page.descendants(f).filter(|i| page.field(*i)).collect();
                let submit = page
                    .descendants(f)
                    .find(|i| is_submit(&page.els[*i]) && page.els[*i].visible)
                    .unwrap_or(f);
                let facts = form_facts(page, f, &fields, false, false);
                let label = control_label(&page.els[submit]);
                let desc = e.attr("tooldescription");
                let ns = page.namespace_incl(f).map(str::to_owned);
                found.push(forms::build(
                    page,
                    f,
                    submit,
                    &label,
                    &fields,
                    &facts,
                    ns,
                    Some((&name, None, desc)),
                ));
                claims.claim(f);
                claims.claim(submit);
            }
        }
    }

    // data-nsp-action, grouped by name in document order.
    let mut order: Vec<String> = Vec::new();
    let mut groups: HashMap<String, Vec<usize>> = HashMap::default();
    for (i, e) in page.els.iter().enumerate() {
        let Some(raw) = e.attr("data-nsp-action") else {
            continue;
        };
        let name = action_name(raw);
        // A disabled submit stays offered (the form build says why); other disabled
        // controls are not.
        let offered_disabled = is_submit(e) && page.form[i].is_some();
        if name.is_empty() || !e.visible || (e.disabled && !offered_disabled) {
            continue;
        }
        if !groups.contains_key(&name) {
            order.push(name.clone());
        }
        crate::members(&mut groups, name).push(i);
    }
    for name in order {
        let members = &groups[&name];
        let first = members[0];
        let e = &page.els[first];
        let declared_tier = e
            .attr("data-nsp-reversibility")
            .and_then(parse_tier)
            .map(Declared::Tier);
        let desc = e
            .attr("data-nsp-description")
            .map(|d| clip(d, MAX_DESCRIPTION_LEN));
        let action = if e.tag == "form" || (is_submit(e) && page.form[first].is_some()) {
            let form = if e.tag == "form" {
                first
            } else {
                page.form[first].unwrap_or(first)
            };
            let control = if e.tag == "form" {
                page.descendants(form)
                    .find(|i| is_submit(&page.els[*i]) && page.els[*i].visible)
                    .unwrap_or(form)
            } else {
                first
            };
            let fields: Vec<usize> = page.descendants(form).filter(|i| page.field(*i)).collect();
            let facts = form_facts(page, form, &fields, false, false);
            let label = control_label(&page.els[control]);
            let ns = page.namespace_incl(form).map(str::to_owned);
            claims.claim(form);
            claims.claim(control);
            forms::build(
                page,
                form,
                control,
                &label,
                &fields,
                &facts,
                ns,
                Some((&name, declared_tier, desc.as_deref())),
            )
        } else if members.iter().any(|m| page.row[*m].is_some()) {
            row_action(page, lists, &name, members, declared_tier, desc)
        } else {
            single_action(page, &name, members, declared_tier, desc)
        };
        for m in members {
            claims.claim(*m);
        }
        found.push(action);
    }
}

/// A declared name as the page wrote it when it is a clean identifier, else its slug.
pub fn action_name(raw: &str) -> String {
    let raw = raw.trim();
    if is_identifier(raw) {
        raw.to_owned()
    } else {
        slug(raw)
    }
}

pub fn parse_tier(s: &str) -> Option<Reversibility> {
    match s.trim().to_ascii_lowercase().as_str() {
        "read" => Some(Reversibility::Read),
        "reversible_write" | "reversible" => Some(Reversibility::ReversibleWrite),
        "irreversible_write" | "irreversible" => Some(Reversibility::IrreversibleWrite),
        _ => None,
    }
}

fn kind_of(e: &nsp_protocol::snapshot::ElementRecord) -> Kind {
    if e.tag == "a"
        && e.attr("href")
            .is_some_and(|h| !h.starts_with("javascript:") && h != "#")
    {
        Kind::Link
    } else if e.role() == "tab" {
        Kind::Tab
    } else if crate::page::is_switch(e) {
        Kind::Toggle
    } else if e.tag == "select" {
        Kind::Choice
    } else {
        Kind::Button
    }
}

fn evidence<'a>(
    e: &'a nsp_protocol::snapshot::ElementRecord,
    label: &'a str,
    page: &'a Page<'_>,
    idx: usize,
) -> Evidence<'a> {
    let mut ev = Evidence::on_page(kind_of(e), label, page, idx);
    ev.danger = is_danger_class(e.classes());
    ev.confirms = crate::page::asks_confirm(e);
    ev.opens_popup = e.has("aria-haspopup") || e.has("aria-expanded");
    ev.description = e.attr("data-nsp-description").unwrap_or("");
    ev
}

/// The label of a declared action's first element and the classifier's verdict on it,
/// with the page's declaration as evidence.
fn classify_declared(page: &Page<'_>, idx: usize, declared: Option<Declared>) -> (String, Verdict) {
    let e = &page.els[idx];
    let label = control_label(e);
    let mut ev = evidence(e, &label, page, idx);
    ev.declared = declared;
    let verdict = classify(&ev);
    (label, verdict)
}

fn single_action(
    page: &Page<'_>,
    name: &str,
    members: &[usize],
    declared: Option<Declared>,
    desc: Option<String>,
) -> Found {
    let first = members[0];
    let e = &page.els[first];
    let (label, verdict) = classify_declared(page, first, declared);
    let description =
        desc.unwrap_or_else(|| format!("{} (declared by the page)", clip(&label, 100)));
    let mut action = Found::new(name.to_owned(), Source::Declared, verdict, description);
    action.ns = page.namespace(first).map(str::to_owned);
    let params = match kind_of(e) {
        Kind::Toggle => vec![ActionParameter {
            name: "checked".into(),
            type_name: "boolean".into(),
            required: true,
            description: "true to switch it on, false to switch it off".into(),
            allowed_values: None,
            default_value: None,
            secret: crate::page::is_secret(e),
        }],
        Kind::Choice => {
            let options: Vec<Value> = crate::page::select_choices(e)
                .0
                .into_iter()
                .map(Value::String)
                .collect();
            vec![ActionParameter {
                name: "value".into(),
                type_name: "string".into(),
                required: true,
                description: "One of the allowed values (the list's options)".into(),
                allowed_values: (!options.is_empty()).then_some(options),
                default_value: None,
                secret: crate::page::is_secret(e),
            }]
        }
        _ => Vec::new(),
    };
    action.schema.signature = signature(&params, "bool");
    action.schema.parameters = params;
    action.schema.internal_target = format!("dom:{}", page.selector(first));
    for m in members {
        action.bind(page, *m);
    }
    action
}

/// One action for a control repeated in declared rows, parameterized by the rows'
/// `data-nsp-param` values.
fn row_action(
    page: &Page<'_>,
    lists: &Lists,
    name: &str,
    members: &[usize],
    declared: Option<Declared>,
    desc: Option<String>,
) -> Found {
    let first = members[0];
    let e = &page.els[first];
    let (label, verdict) = classify_declared(page, first, declared);

    // Per parameter, in first-seen order: its values in row order, where agents find
    // them (one source per list the rows are in), the lists seen, and the first row
    // declaring each value. A vector, not maps by name: rows declare a few parameters,
    // and each map type is kilobytes of wasm.
    #[derive(Default)]
    struct Param {
        name: String,
        values: FewValues,
        sources: Vec<String>,
        lists: Vec<usize>,
        firsts: Vec<(String, usize)>,
    }
    let mut ps: Vec<Param> = Vec::new();
    for m in members {
        let Some(row) = page.row[*m] else { continue };
        let pairs = name_value_pairs(page.els[row].attr("data-nsp-param").unwrap_or(""));
        for (pname, value) in pairs {
            let pname = action_name(&pname);
            if pname.is_empty() {
                continue;
            }
            let k = match ps.iter().position(|p| p.name == pname) {
                Some(k) => k,
                None => {
                    ps.push(Param {
                        name: pname,
                        ..Param::default()
                    });
                    ps.len() - 1
                }
            };
            let p = &mut ps[k];
            if let Some((l, _, _)) = lists.record_of(page, row) {
                if !p.lists.contains(&l) {
                    p.lists.push(l);
                    if let Some(src) = value_source(page, lists, row, &value) {
                        p.sources.push(src);
                    }
                }
            }
            if p.firsts.len() <= FewValues::LIMIT && !p.firsts.iter().any(|(v, _)| *v == value) {
                p.firsts.push((value.clone(), row));
            }
            p.values.push(&value);
        }
    }
    // Loops, not iterator chains: each chain is code of its own in the wasm.
    let mut params: Vec<ActionParameter> = Vec::with_capacity(ps.len());
    for p in &ps {
        let described = e
            .attr("data-nsp-param-description")
            .map(|d| clip(d, MAX_DESCRIPTION_LEN));
        let description = described.unwrap_or_else(|| {
            if p.sources.is_empty() {
                format!(
                    "{} of the row to act on (each row declares its own)",
                    humanize(&p.name)
                )
            } else {
                format!("{} from {}", humanize(&p.name), p.sources.join(" or "))
            }
        });
        params.push(ActionParameter {
            name: p.name.clone(),
            type_name: "string".into(),
            required: true,
            description,
            allowed_values: p.values.allowed(),
            default_value: None,
            secret: false,
        });
    }
    // The rows' cells in the order of the one parameter's allowed values (the
    // dispatcher's row is the declared row around the control).
    let cells: Vec<Vec<String>> = match (params.as_slice(), ps.first()) {
        ([p], Some(first)) if p.allowed_values.is_some() => first
            .firsts
            .iter()
            .map(|(_, row)| crate::lists::row_cells(page, *row))
            .collect(),
        _ => Vec::new(),
    };
    let description =
        desc.unwrap_or_else(|| format!("{} on one row (declared by the page)", clip(&label, 100)));
    let mut action = Found::new(name.to_owned(), Source::Declared, verdict, description);
    action.explain.rows = cells;
    action.ns = page.namespace(first).map(str::to_owned);
    action.schema.signature = signature(&params, "bool");
    action.schema.parameters = params;
    let control = format!(
        "{}[data-nsp-action=\"{}\"]",
        scope_prefix(&page.selector(first)),
        css_string(name)
    );
    action.schema.internal_target = format!("row:{control} | [data-nsp-param] | param");
    action
        .explain
        .signals
        .push(format!("offered once for {} rows", members.len()));
    for m in members {
        action.bind(page, *m);
    }
    action
}

/// Where an agent finds valid values of a row parameter: the record field of the row's
/// list holding the same value (`inbox.emails[N].id`).
pub fn value_source(page: &Page<'_>, lists: &Lists, row: usize, value: &str) -> Option<String> {
    let (l, _, row_el) = lists.record_of(page, row)?;
    let list = &lists.lists[l];
    let fields = record_fields(page, list, row_el);
    fields
        .iter()
        .find(|(_, v)| match v {
            Value::String(s) => s == value,
            // Compared as numbers: formatting floats would pull float printing into the wasm.
            Value::Number(n) => {
                crate::text::parse_number(value).and_then(|v| v.as_f64()) == n.as_f64()
            }
            Value::Bool(b) => (if *b { "true" } else { "false" }) == value,
            _ => false,
        })
        .map(|(field, _)| format!("{}[N].{field}", list.path))
}

/// The part of a selector up to and including the last ` >>> ` (the shadow root or
/// frame it lives in), so a scoped selector searches the same tree.
pub fn scope_prefix(selector: &str) -> &str {
    match selector.rfind(" >>> ") {
        Some(pos) => &selector[..pos + 5],
        None => "",
    }
}

/// Escapes text for a double-quoted CSS string.
pub fn css_string(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// A WebMCP tool as an action: parameters from its input schema, the tier from its
/// hints and words.
fn webmcp_tool(tool: &DeclaredTool) -> Option<Found> {
    let name = action_name(&tool.name);
    if name.is_empty() {
        return None;
    }
    let words = crate::text::humanize(&tool.name);
    let words = crate::text::slug(&words).replace('_', " ");
    let mut ev = Evidence::new(Kind::Tool, &words);
    ev.description = &tool.description;
    ev.declared = match (tool.read_only, tool.destructive) {
        (Some(true), _) => Some(Declared::ReadOnly),
        (_, Some(true)) => Some(Declared::Destructive),
        (Some(false), Some(false)) => Some(Declared::Tier(Reversibility::ReversibleWrite)),
        (_, Some(false)) => Some(Declared::NotDestructive),
        (Some(false), None) => Some(Declared::NotReadOnly),
        _ => None,
    };
    let mut verdict = classify(&ev);
    if ev.declared.is_none() {
        verdict
            .signals
            .push("a WebMCP tool without readOnlyHint: it may write".into());
    }
    let description = if tool.description.trim().is_empty() {
        format!("WebMCP tool \"{}\"", clip(&tool.name, 60))
    } else {
        clip(&tool.description, MAX_DESCRIPTION_LEN)
    };
    let mut action = Found::new(name, Source::Declared, verdict, description);
    let params = schema_params(&tool.input_schema);
    action.schema.signature = signature(&params, "object");
    action.schema.parameters = params;
    action.schema.internal_target = format!("webmcp:{}", clip(&tool.name, 64));
    action
        .explain
        .signals
        .push("registered with navigator.modelContext".into());
    Some(action)
}

/// Parameters from a JSON Schema object: required ones first, each group by name.
pub fn schema_params(schema: &Value) -> Vec<ActionParameter> {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut params: Vec<ActionParameter> = Vec::new();
    for (name, prop) in props.iter().take(32) {
        let type_name = match prop.get("type").and_then(Value::as_str) {
            Some("integer" | "number") => "number",
            Some("boolean") => "boolean",
            Some("array") => "array",
            Some("object") => "object",
            _ => "string",
        };
        let allowed = prop
            .get("enum")
            .and_then(Value::as_array)
            .cloned()
            .or_else(|| {
                prop.get("oneOf")
                    .and_then(Value::as_array)
                    .map(|alts| {
                        alts.iter()
                            .filter_map(|a| a.get("const").cloned())
                            .collect::<Vec<_>>()
                    })
                    .filter(|v| !v.is_empty())
            });
        let description = prop
            .get("description")
            .and_then(Value::as_str)
            .map(|d| clip(d, MAX_DESCRIPTION_LEN))
            .unwrap_or_else(|| humanize(name));
        params.push(ActionParameter {
            name: clip(name, 64),
            type_name: type_name.into(),
            required: required.contains(&name.as_str()),
            description,
            allowed_values: allowed,
            default_value: prop.get("default").cloned(),
            // A tool's parameter fills no field of ours: secret by its name (the
            // same rule as a field's) or a `format` of `password`.
            secret: nsp_protocol::secrets::is_secret_name(name)
                || prop.get("format").and_then(Value::as_str) == Some("password"),
        });
    }
    // Required ones first, each group in the schema's order (a stable partition, not a
    // sort: a stable sort's code is kilobytes of wasm per element type).
    let (mut first, rest): (Vec<_>, Vec<_>) = params.into_iter().partition(|p| p.required);
    first.extend(rest);
    first
}

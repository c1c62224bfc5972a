//! Discovery: from a flat element table to actions, tiers, confidence and objects.
//!
//! Sources, most trusted first: `data-nsp-*` declarations, forms, standalone controls
//! (buttons, links, ARIA buttons), builtins. Tiers come from evidence; when the evidence
//! is thin the stricter tier is chosen with a lower confidence, never the reverse.

use std::collections::BTreeMap;

use nsp_protocol::snapshot::{ElementRecord, PageSnapshot};
use nsp_protocol::{
    ActionParameter, ActionSchema, Context, PageCapture, ProbeMetadata, ProbeTier, Reversibility,
};
use serde_json::Value;

/// Longest action or object name the probe makes from page text.
const MAX_NAME_LEN: usize = 48;
/// Longest description built from page text.
const MAX_DESCRIPTION_LEN: usize = 160;

/// Analyses one snapshot.
pub fn analyze(snapshot: &PageSnapshot, tier: ProbeTier) -> PageCapture {
    let page = Page::new(snapshot);
    let mut actions = BTreeMap::new();
    discover_declared(&page, &mut actions);
    discover_forms(&page, &mut actions);
    discover_controls(&page, &mut actions);
    add_builtins(&mut actions);
    let objects = extract_objects(&page);

    let confidence = state_confidence(snapshot, &actions);
    let app_name = snapshot
        .site_name
        .clone()
        .filter(|s| !s.trim().is_empty())
        .or_else(|| Some(snapshot.title.clone()).filter(|s| !s.trim().is_empty()))
        .unwrap_or_else(|| host(&snapshot.url).to_owned());
    let raw_object_count = objects.len() as u64;
    PageCapture {
        app_name: clip(&app_name, MAX_DESCRIPTION_LEN),
        confidence,
        context: Context {
            url: Some(snapshot.url.clone()),
            location: Some(host(&snapshot.url).to_owned()),
            view: Some(view_of(&snapshot.url)),
            window_title: Some(snapshot.title.clone()),
            window_id: None,
        },
        objects,
        actions,
        probe_metadata: ProbeMetadata {
            capture_latency_ms: snapshot.extract_ms,
            labeling_latency_ms: 0.0,
            total_latency_ms: snapshot.extract_ms,
            raw_object_count,
            filtered_object_count: raw_object_count,
            cache_hit: false,
            probe_tier: Some(tier),
            element_count: snapshot.elements.len() as u64,
            probe_version: env!("CARGO_PKG_VERSION").to_owned(),
        },
    }
}

/// The snapshot with navigation helpers.
struct Page<'a> {
    elements: &'a [ElementRecord],
}

impl<'a> Page<'a> {
    fn new(snapshot: &'a PageSnapshot) -> Page<'a> {
        Page {
            elements: &snapshot.elements,
        }
    }

    fn ancestors(&self, idx: usize) -> impl Iterator<Item = (usize, &'a ElementRecord)> + '_ {
        let mut next = self.elements.get(idx).and_then(|e| e.parent);
        let mut steps = 0usize;
        std::iter::from_fn(move || {
            // Parent links come from the page; a cycle must not hang us.
            steps += 1;
            if steps > self.elements.len() {
                return None;
            }
            let i = next? as usize;
            let el = self.elements.get(i)?;
            next = el.parent.filter(|p| (*p as usize) < i);
            Some((i, el))
        })
    }

    fn enclosing_form(&self, idx: usize) -> Option<usize> {
        self.ancestors(idx)
            .find(|(_, e)| e.tag == "form")
            .map(|(i, _)| i)
    }

    fn descendants(&self, idx: usize) -> impl Iterator<Item = (usize, &'a ElementRecord)> + '_ {
        self.elements
            .iter()
            .enumerate()
            .skip(idx + 1)
            .filter(move |(i, _)| self.ancestors(*i).any(|(a, _)| a == idx))
    }

    /// The namespace of an element: the nearest landmark or sectioning ancestor with an
    /// id or label, as a slug.
    fn namespace(&self, idx: usize) -> Option<String> {
        self.ancestors(idx)
            .filter(|(_, e)| is_region(e))
            .find_map(|(_, e)| {
                e.attrs
                    .get("id")
                    .or_else(|| e.attrs.get("aria-label"))
                    .map(|s| slug(s))
            })
            .filter(|s| !s.is_empty())
    }
}

fn is_region(e: &ElementRecord) -> bool {
    matches!(
        e.tag.as_str(),
        "section" | "main" | "nav" | "aside" | "form" | "article" | "header" | "footer" | "dialog"
    ) || e.attrs.get("role").is_some_and(|r| {
        matches!(
            r.as_str(),
            "region" | "main" | "navigation" | "dialog" | "form" | "complementary"
        )
    })
}

fn is_control(e: &ElementRecord) -> bool {
    match e.tag.as_str() {
        "button" => true,
        "a" => e.attrs.contains_key("href"),
        "input" => matches!(
            e.attrs.get("type").map(String::as_str),
            Some("submit" | "button" | "reset" | "image")
        ),
        _ => e
            .attrs
            .get("role")
            .is_some_and(|r| matches!(r.as_str(), "button" | "link" | "menuitem" | "tab")),
    }
}

fn is_field(e: &ElementRecord) -> bool {
    match e.tag.as_str() {
        "textarea" | "select" => true,
        "input" => !matches!(
            e.attrs.get("type").map(String::as_str),
            Some("submit" | "button" | "reset" | "image" | "hidden")
        ),
        _ => false,
    }
}

/// The human label of a control: aria-label, text, value, title.
fn label(e: &ElementRecord) -> String {
    let candidates = [
        e.attrs.get("aria-label").map(String::as_str),
        Some(e.text.as_str()),
        e.attrs.get("value").map(String::as_str),
        e.attrs.get("title").map(String::as_str),
    ];
    candidates
        .into_iter()
        .flatten()
        .map(str::trim)
        .find(|s| !s.is_empty())
        .map(|s| clip(s, MAX_DESCRIPTION_LEN))
        .unwrap_or_default()
}

/// What the verb of a label says about reversibility, and how sure that is.
fn tier_from_words(text: &str) -> (Reversibility, f64, &'static str) {
    const IRREVERSIBLE: &[&str] = &[
        "send",
        "submit",
        "pay",
        "buy",
        "order",
        "delete",
        "remove",
        "publish",
        "transfer",
        "confirm",
        "post",
        "purchase",
        "checkout",
        "destroy",
        "erase",
        "forever",
        "permanently",
        "sign",
        "book",
        "cancel",
    ];
    const REVERSIBLE: &[&str] = &[
        "archive",
        "unarchive",
        "star",
        "label",
        "move",
        "mark",
        "save",
        "draft",
        "undo",
        "add",
        "edit",
        "update",
        "toggle",
        "like",
        "follow",
        "pin",
        "mute",
        "snooze",
        "rename",
        "read",
    ];
    const READ: &[&str] = &[
        "search", "filter", "open", "view", "sort", "show", "next", "previous", "refresh",
        "expand", "collapse", "go", "details", "more", "back", "home", "help",
    ];
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let has = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
    if has(IRREVERSIBLE) {
        (
            Reversibility::IrreversibleWrite,
            0.7,
            "label names an irreversible verb",
        )
    } else if has(REVERSIBLE) {
        (
            Reversibility::ReversibleWrite,
            0.65,
            "label names a reversible verb",
        )
    } else if has(READ) {
        (Reversibility::Read, 0.65, "label names a read verb")
    } else {
        // Unknown verbs fail closed: the strictest tier with a low confidence.
        (
            Reversibility::IrreversibleWrite,
            0.3,
            "no known verb; assumed irreversible",
        )
    }
}

fn parse_tier(s: &str) -> Option<Reversibility> {
    match s.trim() {
        "read" => Some(Reversibility::Read),
        "reversible_write" | "reversible" => Some(Reversibility::ReversibleWrite),
        "irreversible_write" | "irreversible" => Some(Reversibility::IrreversibleWrite),
        _ => None,
    }
}

fn insert_unique(actions: &mut BTreeMap<String, ActionSchema>, name: String, schema: ActionSchema) {
    use std::collections::btree_map::Entry;
    if name.is_empty() {
        return;
    }
    let mut candidate = name.clone();
    for n in 2.. {
        if let Entry::Vacant(slot) = actions.entry(candidate) {
            slot.insert(schema);
            return;
        }
        candidate = format!("{name}_{n}");
    }
}

fn signature(params: &[ActionParameter], returns: &str) -> String {
    let list: Vec<String> = params
        .iter()
        .map(|p| {
            format!(
                "{}{}: {}",
                p.name,
                if p.required { "" } else { "?" },
                p.type_name
            )
        })
        .collect();
    format!("fn({}) -> {returns}", list.join(", "))
}

/// `data-nsp-action` on any element: the page's own declaration, trusted most.
fn discover_declared(page: &Page<'_>, actions: &mut BTreeMap<String, ActionSchema>) {
    for (idx, e) in page.elements.iter().enumerate() {
        let Some(name) = e.attrs.get("data-nsp-action") else {
            continue;
        };
        if !e.visible || e.disabled {
            continue;
        }
        let name = slug(name);
        let declared = e
            .attrs
            .get("data-nsp-reversibility")
            .and_then(|t| parse_tier(t));
        let (tier, confidence) = match declared {
            Some(t) => (t, 0.99),
            None => {
                let (t, c, _) = tier_from_words(&label(e));
                (t, c)
            }
        };
        let params = if e.tag == "form" {
            form_parameters(page, idx)
        } else {
            Vec::new()
        };
        let schema = ActionSchema {
            signature: signature(&params, "bool"),
            reversibility: tier,
            description: e
                .attrs
                .get("data-nsp-description")
                .map(|d| clip(d, MAX_DESCRIPTION_LEN))
                .unwrap_or_else(|| format!("{} (declared by the page)", label(e))),
            confidence,
            internal_target: format!("dom:{}", e.selector),
            parameters: params,
        };
        insert_unique(actions, name, schema);
    }
}

/// One action per form with a submit control.
fn discover_forms(page: &Page<'_>, actions: &mut BTreeMap<String, ActionSchema>) {
    for (idx, form) in page.elements.iter().enumerate() {
        if form.tag != "form" || !form.visible || form.attrs.contains_key("data-nsp-action") {
            continue;
        }
        let submit = page.descendants(idx).find(|(_, e)| {
            (e.tag == "button" && e.attrs.get("type").is_none_or(|t| t == "submit"))
                || (e.tag == "input"
                    && e.attrs
                        .get("type")
                        .is_some_and(|t| t == "submit" || t == "image"))
        });
        let Some((_, submit)) = submit else { continue };
        if submit.disabled || !submit.visible {
            continue;
        }
        let text = label(submit);
        let form_label = form.attrs.get("aria-label").cloned().unwrap_or_default();
        let (mut tier, mut confidence, _) = tier_from_words(&text);
        let method = form
            .attrs
            .get("method")
            .map(|m| m.to_ascii_lowercase())
            .unwrap_or_else(|| "get".into());
        if method == "get" && tier == Reversibility::IrreversibleWrite && confidence < 0.5 {
            // A GET form with no telling verb is most likely a search or filter; still
            // not certain, so the confidence stays low.
            tier = Reversibility::Read;
            confidence = 0.5;
        }
        let params = form_parameters(page, idx);
        if params.iter().any(|p| p.description.contains("secret"))
            && tier != Reversibility::IrreversibleWrite
        {
            tier = Reversibility::IrreversibleWrite;
            confidence = confidence.min(0.6);
        }
        let name = if text.is_empty() {
            slug(&form_label)
        } else {
            slug(&text)
        };
        let schema = ActionSchema {
            signature: signature(&params, "bool"),
            reversibility: tier,
            description: format!(
                "Submit the form {:?} with its {:?} button",
                clip(&form_label, 60),
                text
            ),
            confidence,
            internal_target: format!("dom:{}", form.selector),
            parameters: params,
        };
        insert_unique(actions, name, schema);
    }
}

fn form_parameters(page: &Page<'_>, form_idx: usize) -> Vec<ActionParameter> {
    let mut params: Vec<ActionParameter> = Vec::new();
    for (_, e) in page.descendants(form_idx) {
        if !is_field(e) || e.disabled {
            continue;
        }
        let Some(name) = e.attrs.get("name").filter(|n| !n.is_empty()) else {
            continue;
        };
        if params.iter().any(|p| &p.name == name) {
            continue;
        }
        let input_type = e.attrs.get("type").map(String::as_str).unwrap_or("text");
        let type_name = match (e.tag.as_str(), input_type) {
            ("input", "number" | "range") => "number",
            ("input", "checkbox") => "boolean",
            _ => "string",
        };
        let secret = is_secret(e);
        let mut description = format!("Value for the {:?} field", clip(&label_of_field(e), 60));
        if secret {
            description.push_str(" (secret: never echoed in state)");
        }
        params.push(ActionParameter {
            name: name.clone(),
            type_name: type_name.into(),
            required: e.attrs.contains_key("required"),
            description,
            allowed_values: None,
            default_value: None,
        });
    }
    params
}

fn label_of_field(e: &ElementRecord) -> String {
    e.attrs
        .get("aria-label")
        .or_else(|| e.attrs.get("data-label"))
        .or_else(|| e.attrs.get("placeholder"))
        .or_else(|| e.attrs.get("name"))
        .cloned()
        .unwrap_or_default()
}

/// Password and payment fields: their values never enter the state.
pub fn is_secret(e: &ElementRecord) -> bool {
    e.attrs.get("type").is_some_and(|t| t == "password")
        || e.attrs.get("autocomplete").is_some_and(|a| {
            a.split_whitespace().any(|t| {
                matches!(
                    t,
                    "cc-number" | "cc-csc" | "current-password" | "new-password" | "one-time-code"
                )
            })
        })
}

/// Buttons and links outside forms.
fn discover_controls(page: &Page<'_>, actions: &mut BTreeMap<String, ActionSchema>) {
    for (idx, e) in page.elements.iter().enumerate() {
        if !is_control(e) || !e.visible || e.disabled || e.attrs.contains_key("data-nsp-action") {
            continue;
        }
        if page.enclosing_form(idx).is_some() {
            continue;
        }
        let text = label(e);
        if text.is_empty() {
            continue;
        }
        let is_link = e.tag == "a" || e.attrs.get("role").is_some_and(|r| r == "link");
        let (tier, confidence, name) = if is_link {
            (Reversibility::Read, 0.6, format!("open_{}", slug(&text)))
        } else {
            let (t, c, _) = tier_from_words(&text);
            (t, c, slug(&text))
        };
        let description = if is_link {
            format!("Follow the link {text:?}")
        } else {
            format!("Click the {text:?} button")
        };
        let schema = ActionSchema {
            signature: "fn() -> bool".into(),
            reversibility: tier,
            description,
            confidence,
            internal_target: format!("dom:{}", e.selector),
            parameters: Vec::new(),
        };
        insert_unique(actions, name, schema);
    }
}

/// Builtins available on every tab. Only the ones the extension can run are offered.
fn add_builtins(actions: &mut BTreeMap<String, ActionSchema>) {
    let selector = ActionParameter {
        name: "selector".into(),
        type_name: "string".into(),
        required: true,
        description: "A CSS selector; an action's internal_target without the dom: prefix works"
            .into(),
        allowed_values: None,
        default_value: None,
    };
    actions.insert(
        "read_text".into(),
        ActionSchema {
            signature: "fn(selector: string) -> string".into(),
            reversibility: Reversibility::Read,
            description: "Read the visible text of the first element matching the selector".into(),
            confidence: 1.0,
            internal_target: "builtin:read_text".into(),
            parameters: vec![selector],
        },
    );
}

/// Numeric counters and labelled values, namespaced by their region.
fn extract_objects(page: &Page<'_>) -> BTreeMap<String, Value> {
    let mut objects = BTreeMap::new();
    for (idx, e) in page.elements.iter().enumerate() {
        let key = match (e.attrs.get("data-nsp-key"), e.attrs.get("id")) {
            (Some(k), _) => k.trim().to_owned(),
            (None, Some(id)) if !is_field(e) && !is_control(e) && !is_region(e) => {
                let leaf = slug(id);
                match page.namespace(idx) {
                    Some(ns) if !leaf.starts_with(&ns) => format!("{ns}.{leaf}"),
                    _ => leaf,
                }
            }
            _ => continue,
        };
        if key.is_empty() || is_secret(e) {
            continue;
        }
        let text = e.text.trim();
        let value = match text.parse::<f64>() {
            Ok(n) if n.is_finite() && text.len() < 20 => serde_json::Number::from_f64(n)
                .map(|num| {
                    if n.fract() == 0.0 && n.abs() < 1e15 {
                        Value::from(n as i64)
                    } else {
                        Value::Number(num)
                    }
                })
                .unwrap_or(Value::Null),
            _ if text.is_empty() || text.len() > 200 => continue,
            _ => Value::String(text.to_owned()),
        };
        objects.insert(key, value);
    }
    objects
}

/// Provisional: the share of visible controls mapped to a confident action, damped
/// while the page is still changing.
fn state_confidence(snapshot: &PageSnapshot, actions: &BTreeMap<String, ActionSchema>) -> f64 {
    let discovered: Vec<&ActionSchema> = actions
        .values()
        .filter(|a| !a.internal_target.starts_with("builtin:"))
        .collect();
    if discovered.is_empty() {
        return 0.5;
    }
    let mean = discovered.iter().map(|a| a.confidence).sum::<f64>() / discovered.len() as f64;
    let damp = if snapshot.unsettled { 0.8 } else { 1.0 };
    (mean * damp).clamp(0.0, 1.0)
}

/// snake_case ASCII slug of page text, bounded.
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    for ch in text.chars() {
        if ch.is_ascii_alphanumeric() {
            if out.len() >= MAX_NAME_LEN {
                break;
            }
            out.push(ch.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_end_matches('_').to_owned()
}

fn clip(text: &str, max_chars: usize) -> String {
    let cleaned: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    match cleaned.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}…", &cleaned[..cut]),
        None => cleaned,
    }
}

fn host(url: &str) -> &str {
    url.split_once("://")
        .map(|(_, rest)| rest.split(['/', '?', '#']).next().unwrap_or(""))
        .unwrap_or("")
}

/// The view: path plus hash route, without the query.
fn view_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let path_start = rest.find('/').unwrap_or(rest.len());
    let path_and_more = &rest[path_start..];
    let (before_hash, hash) = path_and_more
        .split_once('#')
        .map_or((path_and_more, ""), |(a, b)| (a, b));
    let path = before_hash.split('?').next().unwrap_or("");
    let path = if path.is_empty() { "/" } else { path };
    if hash.is_empty() {
        path.to_owned()
    } else {
        format!("{path}#{hash}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn el(tag: &str, parent: Option<u32>, text: &str, attrs: &[(&str, &str)]) -> ElementRecord {
        ElementRecord {
            tag: tag.into(),
            parent,
            selector: format!("{tag}:nth-of-type(1)"),
            text: text.into(),
            attrs: attrs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            visible: true,
            disabled: false,
        }
    }

    #[test]
    fn verbs_decide_tiers_and_unknown_fails_closed() {
        assert_eq!(tier_from_words("Send").0, Reversibility::IrreversibleWrite);
        assert_eq!(
            tier_from_words("Delete forever").0,
            Reversibility::IrreversibleWrite
        );
        assert_eq!(tier_from_words("Archive").0, Reversibility::ReversibleWrite);
        assert_eq!(tier_from_words("Search").0, Reversibility::Read);
        let (tier, conf, _) = tier_from_words("Frobnicate");
        assert_eq!(tier, Reversibility::IrreversibleWrite);
        assert!(conf < 0.5);
    }

    #[test]
    fn forms_become_actions_with_parameters_and_secrets_stay_out() {
        let snapshot = PageSnapshot {
            url: "http://127.0.0.1:1/mail#inbox".into(),
            title: "Inbox".into(),
            site_name: Some("Demo Mail".into()),
            elements: vec![
                el("section", None, "", &[("id", "inbox")]),
                el("span", Some(0), "3", &[("id", "unread-count")]),
                el(
                    "form",
                    None,
                    "",
                    &[
                        ("id", "compose"),
                        ("method", "post"),
                        ("aria-label", "Compose"),
                    ],
                ),
                el(
                    "input",
                    Some(2),
                    "",
                    &[("name", "to"), ("type", "email"), ("required", "")],
                ),
                el(
                    "input",
                    Some(2),
                    "hunter2",
                    &[("id", "pw"), ("name", "pw"), ("type", "password")],
                ),
                el("button", Some(2), "Send", &[("type", "submit")]),
                el("button", Some(0), "Archive", &[("type", "button")]),
            ],
            extract_ms: 1.0,
            unsettled: false,
        };
        let capture = analyze(&snapshot, ProbeTier::WasmInPage);
        let send = &capture.actions["send"];
        assert_eq!(send.reversibility, Reversibility::IrreversibleWrite);
        assert_eq!(send.signature, "fn(to: string, pw?: string) -> bool");
        assert_eq!(
            capture.actions["archive"].reversibility,
            Reversibility::ReversibleWrite
        );
        assert!(capture.actions.contains_key("read_text"));
        assert_eq!(
            capture.objects.get("inbox.unread_count"),
            Some(&Value::from(3))
        );
        assert!(!serde_json::to_string(&capture)
            .expect("json")
            .contains("hunter2"));
        assert_eq!(capture.app_name, "Demo Mail");
        assert_eq!(capture.context.view.as_deref(), Some("/mail#inbox"));
    }

    #[test]
    fn hostile_text_is_trimmed_and_bounded() {
        let long = "x".repeat(100_000);
        let snapshot = PageSnapshot {
            url: "http://a/".into(),
            elements: vec![el("button", None, &format!("Send\u{0}\u{7}{long}"), &[])],
            ..PageSnapshot::default()
        };
        let capture = analyze(&snapshot, ProbeTier::WasmInPage);
        for (name, action) in &capture.actions {
            assert!(name.len() <= MAX_NAME_LEN, "{name}");
            assert!(action.description.chars().count() <= MAX_DESCRIPTION_LEN + 40);
            assert!(!action.description.chars().any(char::is_control));
        }
    }

    #[test]
    fn parent_cycles_do_not_hang() {
        let mut a = el("div", Some(1), "", &[]);
        a.parent = Some(1);
        let b = el("button", Some(0), "Go", &[]);
        let snapshot = PageSnapshot {
            url: "http://a/".into(),
            elements: vec![a, b],
            ..PageSnapshot::default()
        };
        let capture = analyze(&snapshot, ProbeTier::WasmInPage);
        assert!(capture.actions.contains_key("go"));
    }
}

//! The generic builtins every tab offers (docs/safety.md): `click`, `type`, `clear`,
//! `focus`, `scroll`, `press_key`, `navigate`, `read_text`. One definition, used by the
//! probe (which lists them in every state) and by the daemon's gate (which gates each
//! call by what it aims at). The tiers here are the worst case, for an element nothing
//! else explains.

use crate::{ActionParameter, ActionSchema, Reversibility};

/// Every builtin. No discovered action may take one of these names.
pub const NAMES: &[&str] = &[
    "click",
    "type",
    "clear",
    "focus",
    "scroll",
    "press_key",
    "navigate",
    "read_text",
];

/// Builtins that write: a verify expression is always required.
pub const SAFETY_REQUIRED: &[&str] = &["click", "type", "clear", "press_key", "navigate"];

/// Builtins whose effect does not depend on the page they run on, so the gate holds
/// them to their own confidence only, not to the lower of theirs and the page's:
/// `navigate` loads the URL the agent names, whatever the page it leaves says. An agent
/// must be able to leave a page the probe does not understand. Every other builtin aims
/// at an element of the page, and is only as sure as the page is understood.
pub const PAGE_INDEPENDENT: &[&str] = &["navigate"];

fn param(name: &str, type_name: &str, required: bool, description: &str) -> ActionParameter {
    ActionParameter {
        name: name.into(),
        type_name: type_name.into(),
        required,
        description: description.into(),
        allowed_values: None,
        default_value: None,
        secret: false,
    }
}

/// The schema of a builtin, as every tab's state lists it.
pub fn schema(name: &str) -> Option<ActionSchema> {
    let selector = |required| {
        param(
            "selector",
            "string",
            required,
            "A CSS selector; an action's internal_target without the dom: prefix works",
        )
    };
    let (sig, tier, description, params) = match name {
        "click" => (
            "fn(selector?: string, x?: number, y?: number) -> bool",
            Reversibility::IrreversibleWrite,
            "Click an element (by selector) or a point; gated like the action the element belongs to",
            vec![selector(false), param("x", "number", false, "Viewport x"), param("y", "number", false, "Viewport y")],
        ),
        "type" => (
            "fn(selector: string, text: string) -> bool",
            Reversibility::IrreversibleWrite,
            "Type text into a field; gated like the action the field belongs to",
            vec![selector(true), param("text", "string", true, "The text to type")],
        ),
        "clear" => (
            "fn(selector: string) -> bool",
            Reversibility::IrreversibleWrite,
            "Clear a field; gated like the action the field belongs to",
            vec![selector(true)],
        ),
        "focus" => ("fn(selector: string) -> bool", Reversibility::Read, "Focus an element", vec![selector(true)]),
        "scroll" => (
            "fn(selector?: string, x?: number, y?: number) -> bool",
            Reversibility::Read,
            "Scroll an element into view, or the page to a point",
            vec![selector(false), param("x", "number", false, "Page x"), param("y", "number", false, "Page y")],
        ),
        "press_key" => (
            "fn(key: string, selector?: string) -> bool",
            Reversibility::IrreversibleWrite,
            "Press a key (e.g. Enter) on an element or the focused one; gated like the action the element belongs to",
            vec![param("key", "string", true, "A KeyboardEvent key value, e.g. Enter"), selector(false)],
        ),
        "navigate" => (
            "fn(url: string) -> bool",
            Reversibility::ReversibleWrite,
            "Navigate the tab to a URL",
            vec![param("url", "string", true, "An http(s) URL")],
        ),
        "read_text" => (
            "fn(selector: string) -> string",
            Reversibility::Read,
            "Read the visible text of the first element matching the selector",
            vec![selector(true)],
        ),
        _ => return None,
    };
    Some(ActionSchema {
        signature: sig.into(),
        reversibility: tier,
        description: description.into(),
        confidence: 1.0,
        internal_target: format!("builtin:{name}"),
        parameters: params,
    })
}

//! The gate of docs/safety.md, steps 2–7, as one pure function: given the request and the
//! state the gate uses, either a [`Decision`] to dispatch or the refusal. The order of
//! the checks is the contract (e.g. an irreversible request without an expression is
//! refused for that before its confidence is looked at).
//!
//! Invariant: nothing reaches dispatch without a `Decision` from [`check`]. The type
//! system holds it: [`crate::hub::Hub::dispatch`] takes a [`Cleared`], which only
//! [`check`] can make (its fields are private to this module), and what the page is
//! sent is exactly what the gate looked at: the action, its checked parameters, its
//! target and whether it may answer a `confirm()`.

use std::collections::BTreeMap;

use nsp_protocol::api::ActionRequest;
use nsp_protocol::{ActionExplain, ActionSchema, Reversibility, SubstrateState};
use serde_json::{Map, Value};

use crate::codes;
use crate::error::ApiError;

/// Floors on effective confidence, per tier.
pub fn floor(tier: Reversibility) -> f64 {
    tier.confidence_floor()
}

/// Builtins that write: a verify expression is always required.
pub const SAFETY_REQUIRED_BUILTINS: &[&str] = nsp_protocol::builtins::SAFETY_REQUIRED;

/// Every builtin, available on every tab.
pub const BUILTINS: &[&str] = nsp_protocol::builtins::NAMES;

/// Words that make an unresolved action name dangerous (gate step 4).
const DANGEROUS_WORDS: &[&str] = &[
    "delete",
    "remove",
    "destroy",
    "drop",
    "purge",
    "wipe",
    "reset",
    "clear_all",
    "empty",
    "terminate",
    "shutdown",
    "kill",
];

/// What the gate allows.
#[derive(Debug, Clone)]
pub struct Decision {
    pub action: String,
    pub tier: Reversibility,
    pub action_confidence: f64,
    pub effective_confidence: f64,
    pub required_confidence: f64,
    /// The parsed expression and its source.
    pub expression: Option<(String, nsp_verify::Expr)>,
    /// What the page acts on (`dom:...`), when known.
    pub internal_target: Option<String>,
    pub builtin: bool,
    /// For a builtin aimed at a discovered action's element: that action's name.
    pub inherited_from: Option<String>,
    /// What may be dispatched; private, so a `Decision` comes only from [`check`].
    cleared: Cleared,
}

impl Decision {
    /// Whether the page may answer yes to a `confirm()` the action raises: only for an
    /// irreversible write that came with a verify expression. For such an action the
    /// dialog is its own confirmation (the agent asked for exactly this, with a check);
    /// for any other tier a confirmation means the probe underrated the action, so it is
    /// declined.
    pub fn accepts_confirm(&self) -> bool {
        self.cleared.accept_confirm
    }

    /// The part of the decision that dispatch takes.
    pub fn cleared(&self) -> &Cleared {
        &self.cleared
    }
}

/// An action the gate let through, with the parameters it checked. Only [`check`]
/// constructs one; [`crate::hub::Hub::dispatch`] requires one.
#[derive(Debug, Clone)]
pub struct Cleared {
    action: String,
    parameters: Map<String, Value>,
    internal_target: Option<String>,
    accept_confirm: bool,
}

impl Cleared {
    pub fn action(&self) -> &str {
        &self.action
    }

    pub fn parameters(&self) -> &Map<String, Value> {
        &self.parameters
    }

    pub fn internal_target(&self) -> Option<&str> {
        self.internal_target.as_deref()
    }

    pub fn accepts_confirm(&self) -> bool {
        self.accept_confirm
    }

    /// A clearance for unit tests of the dispatch plumbing, which have no page state to
    /// gate against. Not compiled into nspd.
    #[cfg(test)]
    pub(crate) fn for_tests(action: &str, parameters: Map<String, Value>) -> Cleared {
        Cleared {
            action: action.to_owned(),
            parameters,
            internal_target: None,
            accept_confirm: false,
        }
    }
}

/// Limits the gate applies.
#[derive(Debug, Clone, Copy)]
pub struct GateLimits {
    pub verify_expression_max_bytes: usize,
}

/// The schema of a builtin (one definition, shared with the probe).
pub fn builtin_schema(name: &str) -> Option<ActionSchema> {
    nsp_protocol::builtins::schema(name)
}

/// Runs gate steps 2–7 against `state` (the state the gate uses; `None` when the tab
/// has no capture yet).
pub fn check(
    req: &ActionRequest,
    state: Option<&SubstrateState>,
    explain: &BTreeMap<String, ActionExplain>,
    limits: GateLimits,
) -> Result<Decision, ApiError> {
    match check_or_hold(req, state, explain, limits, false)? {
        Gated::Clear(d) => Ok(d),
        // Not asked for: step 5 refuses instead of holding.
        Gated::Held(h) => Err(h.refusal),
    }
}

/// What [`check_or_hold`] lets through.
#[derive(Debug)]
pub enum Gated {
    Clear(Decision),
    /// Refused only by the confidence floor (step 5), with every other step passed: the
    /// person may approve it (`crate::approvals`).
    Held(Held),
}

/// An action under its confidence floor that passed every other step. It holds a
/// [`Decision`] that only the person's approval releases ([`Held::approve`] takes a
/// [`crate::approvals::PersonApproved`], which only `approvals` makes); nothing in it
/// can be dispatched as it is.
#[derive(Debug)]
pub struct Held {
    decision: Decision,
    /// The refusal step 5 would have answered (`confidence_too_low`).
    pub refusal: ApiError,
}

impl Held {
    pub fn action(&self) -> &str {
        &self.decision.action
    }
    pub fn tier(&self) -> Reversibility {
        self.decision.tier
    }
    pub fn effective_confidence(&self) -> f64 {
        self.decision.effective_confidence
    }
    pub fn required_confidence(&self) -> f64 {
        self.decision.required_confidence
    }
    pub fn verify_expression(&self) -> Option<&str> {
        self.decision.expression.as_ref().map(|(s, _)| s.as_str())
    }
    pub fn internal_target(&self) -> Option<&str> {
        self.decision.internal_target.as_deref()
    }
    /// The discovered action a builtin is gated as, if any.
    pub fn inherited_from(&self) -> Option<&str> {
        self.decision.inherited_from.as_deref()
    }
    pub fn builtin(&self) -> bool {
        self.decision.builtin
    }
    /// The person approved: the decision, to dispatch and verify as usual.
    pub fn approve(self, _approved: crate::approvals::PersonApproved) -> Decision {
        self.decision
    }
}

/// [`check`], except that with `ask` a request refused only by its confidence floor
/// passes the remaining steps (parameters, expression) and comes back [`Gated::Held`]
/// rather than refused. Every other refusal is the same as [`check`]'s, in the same
/// order; a verify expression is required exactly as without `ask`.
pub fn check_or_hold(
    req: &ActionRequest,
    state: Option<&SubstrateState>,
    explain: &BTreeMap<String, ActionExplain>,
    limits: GateLimits,
    ask: bool,
) -> Result<Gated, ApiError> {
    let name = req.action.as_str();
    let has_expression = req
        .verify_expression
        .as_deref()
        .is_some_and(|e| !e.trim().is_empty());

    // Step 2: builtins, and what they aim at.
    let is_builtin = BUILTINS.contains(&name)
        && state
            .and_then(|s| s.actions.get(name))
            .is_none_or(|a| a.internal_target.starts_with("builtin:"));
    let (schema, tier, action_confidence, inherited_from, internal_target) = if is_builtin {
        let schema = state
            .and_then(|s| s.actions.get(name).cloned())
            .or_else(|| builtin_schema(name))
            .ok_or_else(|| not_available(name, state))?;
        let (tier, confidence, inherited, target) =
            builtin_target(name, req, state, explain, &schema);
        (Some(schema), tier, confidence, inherited, target)
    } else {
        match state.and_then(|s| s.actions.get(name)) {
            Some(schema) => (
                Some(schema.clone()),
                schema.reversibility,
                schema.confidence,
                None,
                Some(schema.internal_target.clone()),
            ),
            None => (None, Reversibility::IrreversibleWrite, 0.0, None, None),
        }
    };

    // Step 3: the schema gate.
    if schema.is_some() {
        if tier == Reversibility::IrreversibleWrite && req.verify == Some(false) {
            return Err(ApiError::new(codes::IRREVERSIBLE_NOT_CONFIRMED,
                format!(
                    "{name} is an irreversible write and the request said \"verify\": false. Irreversible actions always run with verification: drop \"verify\": false and send a verify_expression."
                ),
            )
            .with("reversibility", tier.as_str()));
        }
        let required_by_builtin = is_builtin && SAFETY_REQUIRED_BUILTINS.contains(&name);
        if (tier == Reversibility::IrreversibleWrite || required_by_builtin) && !has_expression {
            let suggestion = state
                .map(|s| suggest_expression(s, name))
                .unwrap_or_else(|| "changed(<key>)".into());
            let why = if tier == Reversibility::IrreversibleWrite {
                format!("{name} is an irreversible write")
            } else {
                format!("{name} is a builtin that writes")
            };
            return Err(ApiError::new(codes::MISSING_VERIFY_EXPRESSION,
                format!(
                    "{why}, so it needs a verify_expression that proves it did what you meant. For example: {suggestion}"
                ),
            )
            .with("suggested_expression", suggestion)
            .with("reversibility", tier.as_str()));
        }
    }

    // Step 4: the heuristic gate for targets that cannot be resolved.
    let Some(schema) = schema else {
        let lowered = name.to_ascii_lowercase();
        if let Some(word) = DANGEROUS_WORDS.iter().find(|w| lowered.contains(*w)) {
            if !has_expression {
                return Err(ApiError::new(codes::DANGEROUS_ACTION_UNVERIFIED,
                    format!(
                        "{name:?} is not in the tab's current schema and its name contains {word:?}; nspd will not guess at a destructive action without verification. Read the state, use an action from it, and send a verify_expression."
                    ),
                ));
            }
        }
        return Err(not_available(name, state));
    };
    let state = state.ok_or_else(|| not_available(name, None))?;

    // Step 5: the confidence floor.
    let effective = action_confidence.min(state.confidence);
    let required = floor(tier);
    let mut below_floor = None;
    if effective < required {
        let why = explain.get(inherited_from.as_deref().unwrap_or(name));
        let refusal = ApiError::new(
            codes::CONFIDENCE_TOO_LOW,
            confidence_message(name, tier, action_confidence, state, required, why),
        )
        .with("actual_confidence", effective)
        .with("required_confidence", required)
        .with("reversibility", tier.as_str());
        if !ask {
            return Err(refusal);
        }
        // Held for the person: the remaining steps still apply before anyone is asked.
        below_floor = Some(refusal);
    }

    // Step 6: parameters.
    check_parameters(name, &schema, &req.parameters)?;
    if is_builtin && matches!(name, "click" | "scroll") {
        let has_selector = req.parameters.contains_key("selector");
        let has_point = req.parameters.contains_key("x") && req.parameters.contains_key("y");
        if !has_selector && !has_point && name == "click" {
            return Err(invalid_parameters(
                name,
                "needs \"selector\", or both \"x\" and \"y\"",
                "selector",
            ));
        }
    }

    // Step 7: the expression, size before anything else.
    let expression = match req
        .verify_expression
        .as_deref()
        .filter(|e| !e.trim().is_empty())
    {
        None => None,
        Some(src) => Some((src.to_owned(), parse_expression(src, limits)?)),
    };

    let cleared = Cleared {
        action: name.to_owned(),
        parameters: req.parameters.clone(),
        internal_target: internal_target.clone(),
        accept_confirm: tier == Reversibility::IrreversibleWrite && expression.is_some(),
    };
    let decision = Decision {
        action: name.to_owned(),
        tier,
        action_confidence,
        effective_confidence: effective,
        required_confidence: required,
        expression,
        internal_target,
        builtin: is_builtin,
        inherited_from,
        cleared,
    };
    Ok(match below_floor {
        None => Gated::Clear(decision),
        Some(refusal) => Gated::Held(Held { decision, refusal }),
    })
}

/// Why the effective confidence is under the floor and what, if anything, would raise
/// it. Whichever of the action's and the page's confidence is under the floor decides
/// the advice: waiting helps only a page that was still loading or changing; an
/// action's own confidence comes from the page's markup and does not change by reading
/// the state again.
fn confidence_message(
    name: &str,
    tier: Reversibility,
    action: f64,
    state: &SubstrateState,
    required: f64,
    why: Option<&ActionExplain>,
) -> String {
    let tier_words = match tier {
        Reversibility::Read => "a read",
        Reversibility::ReversibleWrite => "a reversible write",
        Reversibility::IrreversibleWrite => "an irreversible write",
    };
    let mut out = format!(
        "{name} is {tier_words} and needs confidence {required:.2}; the effective confidence is {:.4} (action {action:.4}, page {:.4}).",
        action.min(state.confidence),
        state.confidence
    );
    if action < required {
        let reason = why.map(|w| {
            let parts: Vec<&str> = [w.tier_reason.as_str(), w.confidence_reason.as_str()]
                .into_iter()
                .filter(|r| !r.is_empty())
                .collect();
            parts.join("; ")
        });
        match reason.filter(|r| !r.is_empty()) {
            Some(reason) => out.push_str(&format!(" The probe's reasons: {reason}.")),
            None => out.push_str(&format!(
                " The probe inferred {name} from the page's markup."
            )),
        }
        out.push_str(
            " Reading the state again will not change that: only the site can raise it, by declaring the action (data-nsp-action with data-nsp-reversibility, or a WebMCP tool with readOnlyHint/destructiveHint) or by correcting a declaration that conflicts with what the page shows. Until then a person has to do this one.",
        );
    }
    if state.confidence < required {
        let meta = &state.probe_metadata;
        let reason = meta
            .confidence_reason
            .as_deref()
            .filter(|r| !r.is_empty())
            .map(|r| format!(" The page's confidence: {r}."))
            .unwrap_or_default();
        out.push_str(&reason);
        if !meta.settled {
            out.push_str(
                " The page was still loading or changing: let it settle, read the state with fresh=true, and retry.",
            );
        } else if action >= required {
            out.push_str(
                " The page is settled, so waiting will not help: the probe understands too little of it. The site can declare its controls (data-nsp-* attributes or WebMCP tools); otherwise a person has to do this one.",
            );
        }
    }
    out
}

/// Parses a verify expression with the configured byte limit.
pub fn parse_expression(src: &str, limits: GateLimits) -> Result<nsp_verify::Expr, ApiError> {
    let max = limits.verify_expression_max_bytes;
    if src.len() > max {
        return Err(ApiError::new(codes::VERIFY_EXPRESSION_TOO_LARGE,
            format!(
                "verify_expression is {} bytes; the limit is {max}. Check fewer keys, or split the check across actions.",
                src.len()
            ),
        )
        .with("field", "verify_expression")
        .with("limit_bytes", max as u64));
    }
    let parse_limits = nsp_verify::Limits {
        max_bytes: max,
        ..nsp_verify::Limits::default()
    };
    nsp_verify::parse_with_limits(src, &parse_limits).map_err(|e| {
        let code = if e.code() == codes::VERIFY_EXPRESSION_TOO_LARGE {
            codes::VERIFY_EXPRESSION_TOO_LARGE
        } else {
            codes::INVALID_VERIFY_EXPRESSION
        };
        ApiError::new(code, format!("verify_expression is not valid: {e}"))
            .with("field", "verify_expression")
            .with("position", e.position() as u64)
    })
}

/// Which tier and confidence a builtin gets: a read builtin is a read; a writing one
/// aimed at a discovered action's element inherits that action's; anything else is
/// treated as irreversible (fail closed).
fn builtin_target(
    name: &str,
    req: &ActionRequest,
    state: Option<&SubstrateState>,
    explain: &BTreeMap<String, ActionExplain>,
    schema: &ActionSchema,
) -> (Reversibility, f64, Option<String>, Option<String>) {
    let selector = req
        .parameters
        .get("selector")
        .and_then(Value::as_str)
        .map(str::trim);
    let target = selector.map(|s| format!("dom:{s}"));
    if !SAFETY_REQUIRED_BUILTINS.contains(&name) || name == "navigate" {
        return (schema.reversibility, schema.confidence, None, target);
    }
    let (Some(selector), Some(state)) = (selector, state) else {
        return (Reversibility::IrreversibleWrite, 1.0, None, target);
    };
    let mut best: Option<(&String, &ActionSchema)> = None;
    for (action_name, action) in &state.actions {
        if action.internal_target.starts_with("builtin:") {
            continue;
        }
        if element_belongs(selector, action_name, action, explain) {
            // Several actions may share an element (a form and its submit button):
            // the strictest tier wins, then the lowest confidence.
            let stricter = match best {
                None => true,
                Some((_, b)) => {
                    action.reversibility > b.reversibility
                        || (action.reversibility == b.reversibility
                            && action.confidence < b.confidence)
                }
            };
            if stricter {
                best = Some((action_name, action));
            }
        }
    }
    match best {
        Some((action_name, action)) => (
            action.reversibility,
            action.confidence,
            Some(action_name.clone()),
            target,
        ),
        None => (Reversibility::IrreversibleWrite, 1.0, None, target),
    }
}

/// Whether `selector` names an element bound to `action`: its target, one of the
/// elements the probe bound it to, or an element inside its target.
fn element_belongs(
    selector: &str,
    name: &str,
    action: &ActionSchema,
    explain: &BTreeMap<String, ActionExplain>,
) -> bool {
    let target = action
        .internal_target
        .strip_prefix("dom:")
        .unwrap_or(&action.internal_target);
    let inside = |outer: &str| {
        !outer.is_empty()
            && (selector == outer
                || selector.starts_with(&format!("{outer} "))
                || selector.starts_with(&format!("{outer}>"))
                || selector.starts_with(&format!("{outer} >")))
    };
    if inside(target) {
        return true;
    }
    explain.get(name).is_some_and(|e| {
        e.elements.iter().any(|el| {
            inside(&el.selector)
                || el
                    .id
                    .as_deref()
                    .is_some_and(|id| selector == format!("#{id}"))
        })
    })
}

fn check_parameters(
    name: &str,
    schema: &ActionSchema,
    params: &serde_json::Map<String, Value>,
) -> Result<(), ApiError> {
    for key in params.keys() {
        if !schema.parameters.iter().any(|p| &p.name == key) {
            let known: Vec<&str> = schema.parameters.iter().map(|p| p.name.as_str()).collect();
            return Err(invalid_parameters(
                name,
                &format!(
                    "has no parameter {key:?} (it takes: {})",
                    if known.is_empty() {
                        "none".to_owned()
                    } else {
                        known.join(", ")
                    }
                ),
                key,
            ));
        }
    }
    for p in &schema.parameters {
        match params.get(&p.name) {
            None | Some(Value::Null) if p.required => {
                return Err(invalid_parameters(
                    name,
                    &format!("needs {:?} ({}): {}", p.name, p.type_name, p.description),
                    &p.name,
                ))
            }
            None | Some(Value::Null) => {}
            Some(v) => {
                let ok = match p.type_name.as_str() {
                    "string" => v.is_string(),
                    "number" => v.is_number(),
                    "boolean" => v.is_boolean(),
                    "object" => v.is_object(),
                    "array" => v.is_array(),
                    _ => true,
                };
                if !ok {
                    return Err(invalid_parameters(
                        name,
                        &format!(
                            "takes {:?} as a {}, not {}",
                            p.name,
                            p.type_name,
                            json_type(v)
                        ),
                        &p.name,
                    ));
                }
                if let Some(allowed) = &p.allowed_values {
                    if !allowed.contains(v) {
                        let shown: Vec<String> =
                            allowed.iter().take(20).map(Value::to_string).collect();
                        return Err(invalid_parameters(
                            name,
                            &format!(
                                "does not allow {v} for {:?}; allowed: {}",
                                p.name,
                                shown.join(", ")
                            ),
                            &p.name,
                        )
                        .with("allowed_values", Value::Array(allowed.clone())));
                    }
                }
            }
        }
    }
    Ok(())
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn invalid_parameters(action: &str, what: &str, field: &str) -> ApiError {
    ApiError::new(
        codes::INVALID_PARAMETERS,
        format!("{action} {what}. See the action's parameters in the tab's state."),
    )
    .with("field", format!("parameters.{field}"))
}

fn not_available(name: &str, state: Option<&SubstrateState>) -> ApiError {
    match state {
        Some(state) => {
            let mut names: Vec<&str> = state.actions.keys().map(String::as_str).collect();
            names.truncate(40);
            ApiError::new(codes::ACTION_NOT_AVAILABLE,
                format!(
                    "Action {name:?} is not available on this tab now. Available: {}. Read the state again: the page may have changed.",
                    names.join(", ")
                ),
            )
            .with("action", name)
        }
        None => ApiError::new(codes::PROBE_NOT_READY,
            "The tab has no capture yet, so no action can be checked. Wait for the page to load and retry.",
        ),
    }
}

/// A verify expression built from the state's real keys, for the refusal message:
/// a counter whose name relates to the action if there is one, else any counter, else
/// a URL change.
pub fn suggest_expression(state: &SubstrateState, action: &str) -> String {
    let words: Vec<String> = action
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| w.len() > 2)
        .map(|w| w.to_ascii_lowercase())
        .collect();
    let related = |key: &str| {
        let k = key.to_ascii_lowercase();
        // A three-letter stem catches inflections ("send" → "sent_count").
        words
            .iter()
            .any(|w| k.contains(w.as_str()) || k.contains(&w[..3]))
    };
    let scalar = |key: &&String| !key.contains('[');
    let numeric: Vec<&String> = state
        .objects
        .iter()
        .filter(|(k, v)| v.is_number() && scalar(k))
        .map(|(k, _)| k)
        .collect();
    let pick = numeric
        .iter()
        .find(|k| related(k) && (k.contains("count") || k.contains("total")))
        .or_else(|| numeric.iter().find(|k| related(k)))
        .or_else(|| {
            numeric
                .iter()
                .find(|k| k.contains("count") || k.contains("total"))
        })
        .or_else(|| numeric.first());
    match pick {
        Some(key) => format!("prev.{key} != {key}"),
        None => match state.objects.keys().find(|k| scalar(k)) {
            Some(key) => format!("changed({key})"),
            None => "prev.context.url != context.url".into(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn state(confidence: f64) -> SubstrateState {
        serde_json::from_value(json!({
            "pid": 1, "app_id": "mail-1", "app_name": "Mail", "runtime": "v8", "confidence": confidence,
            "capture_id": "c1", "schema_version": "1.0.0", "captured_at": "2026-01-01T00:00:00Z",
            "context": {"url": "http://127.0.0.1/", "location": null, "view": null, "window_title": null, "window_id": null},
            "objects": {"inbox.unread_count": 3, "outbox.sent_count": 14, "inbox.emails[0].id": "e1"},
            "actions": {
                "send_email": {"signature": "fn(to: string) -> bool", "reversibility": "irreversible_write", "description": "", "confidence": 0.99,
                    "internal_target": "dom:#compose", "parameters": [{"name": "to", "type_name": "string", "required": true, "description": "Recipient"}]},
                "archive": {"signature": "fn(email_id: string) -> bool", "reversibility": "reversible_write", "description": "", "confidence": 0.9,
                    "internal_target": "dom:#email-list", "parameters": [{"name": "email_id", "type_name": "string", "required": true, "description": "", "allowed_values": ["e1"]}]},
                "open_help": {"signature": "fn() -> bool", "reversibility": "read", "description": "", "confidence": 0.5,
                    "internal_target": "dom:#help", "parameters": []}
            },
            "probe_metadata": {"capture_latency_ms": 0.0, "labeling_latency_ms": 0.0, "total_latency_ms": 0.0, "raw_object_count": 0, "filtered_object_count": 0, "cache_hit": false, "probe_tier": null}
        }))
        .expect("state")
    }

    fn req(v: Value) -> ActionRequest {
        serde_json::from_value(v).expect("request")
    }

    const LIMITS: GateLimits = GateLimits {
        verify_expression_max_bytes: 2048,
    };

    fn code(r: Result<Decision, ApiError>) -> &'static str {
        match r {
            Ok(_) => "ok",
            Err(e) => e.code,
        }
    }

    #[test]
    fn missing_expression_comes_before_confidence() {
        let s = state(0.3);
        let r = check(
            &req(json!({"pid": 1, "action": "send_email", "parameters": {"to": "a@b.c"}})),
            Some(&s),
            &BTreeMap::new(),
            LIMITS,
        );
        let err = r.expect_err("refused");
        assert_eq!(err.code, codes::MISSING_VERIFY_EXPRESSION);
        assert_eq!(
            err.details["suggested_expression"],
            "prev.outbox.sent_count != outbox.sent_count"
        );
    }

    #[test]
    fn verify_false_on_irreversible_is_not_confirmed() {
        let s = state(0.99);
        let r = check(
            &req(
                json!({"pid": 1, "action": "send_email", "verify": false, "verify_expression": "changed(outbox.sent_count)", "parameters": {"to": "a"}}),
            ),
            Some(&s),
            &BTreeMap::new(),
            LIMITS,
        );
        assert_eq!(code(r), codes::IRREVERSIBLE_NOT_CONFIRMED);
    }

    #[test]
    fn effective_confidence_is_the_minimum() {
        let s = state(0.85);
        let r = check(
            &req(
                json!({"pid": 1, "action": "send_email", "verify_expression": "changed(outbox.sent_count)", "parameters": {"to": "a"}}),
            ),
            Some(&s),
            &BTreeMap::new(),
            LIMITS,
        );
        let err = r.expect_err("refused");
        assert_eq!(err.code, codes::CONFIDENCE_TOO_LOW);
        assert_eq!(err.details["actual_confidence"], 0.85);
        assert_eq!(err.details["required_confidence"], 0.95);
        // A reversible write passes at 0.85 (action 0.9, page 0.85).
        let ok = check(
            &req(json!({"pid": 1, "action": "archive", "parameters": {"email_id": "e1"}})),
            Some(&s),
            &BTreeMap::new(),
            LIMITS,
        )
        .expect("allowed");
        assert_eq!(ok.effective_confidence, 0.85);
    }

    fn too_low(s: &SubstrateState, explain: &BTreeMap<String, ActionExplain>) -> String {
        let err = check(
            &req(
                json!({"pid": 1, "action": "send_email", "verify_expression": "changed(outbox.sent_count)", "parameters": {"to": "a"}}),
            ),
            Some(s),
            explain,
            LIMITS,
        )
        .expect_err("refused");
        assert_eq!(err.code, codes::CONFIDENCE_TOO_LOW);
        err.message
    }

    #[test]
    fn confidence_too_low_says_what_would_raise_it() {
        // The action is the limit: its reasons, and that only a declaration (or a
        // person) helps; never "wait and refresh".
        let mut s = state(0.99);
        s.actions.get_mut("send_email").expect("send").confidence = 0.85;
        let mut explain = BTreeMap::new();
        explain.insert(
            "send_email".to_owned(),
            ActionExplain {
                tier_reason: "the page raised confirm(\"Sure?\") when this was dispatched".into(),
                confidence_reason: "the binding is inferred".into(),
                ..ActionExplain::default()
            },
        );
        let m = too_low(&s, &explain);
        assert!(m.contains("send_email is an irreversible write"), "{m}");
        assert!(m.contains("confirm(\"Sure?\")"), "{m}");
        assert!(m.contains("data-nsp-reversibility"), "{m}");
        assert!(m.contains("a person"), "{m}");
        assert!(!m.contains("settle"), "{m}");
        assert!(!m.contains("a irreversible"), "{m}");

        // The page is the limit and was still changing: settling helps.
        let mut s = state(0.85);
        s.probe_metadata.settled = false;
        s.probe_metadata.confidence_reason = Some("the page is still loading or changing".into());
        let m = too_low(&s, &BTreeMap::new());
        assert!(m.contains("let it settle"), "{m}");
        assert!(m.contains("fresh=true"), "{m}");
        assert!(!m.contains("data-nsp-reversibility"), "{m}");

        // The page is the limit and settled: waiting does not help.
        let mut s = state(0.85);
        s.probe_metadata.settled = true;
        s.probe_metadata.confidence_reason = Some(
            "60% of 10 visible interactive elements are explained by confident actions".into(),
        );
        let m = too_low(&s, &BTreeMap::new());
        assert!(m.contains("60% of 10"), "{m}");
        assert!(m.contains("waiting will not help"), "{m}");
        assert!(!m.contains("let it settle"), "{m}");
    }

    #[test]
    fn parameters_are_checked_against_the_schema() {
        let s = state(0.99);
        let cases = [
            (json!({}), "parameters.email_id"),
            (json!({"email_id": 5}), "parameters.email_id"),
            (json!({"email_id": "e9"}), "parameters.email_id"),
            (json!({"email_id": "e1", "extra": 1}), "parameters.extra"),
        ];
        for (params, field) in cases {
            let err = check(
                &req(json!({"pid": 1, "action": "archive", "parameters": params})),
                Some(&s),
                &BTreeMap::new(),
                LIMITS,
            )
            .expect_err("refused");
            assert_eq!(err.code, codes::INVALID_PARAMETERS, "{params}");
            assert_eq!(err.details["field"], field, "{params}");
        }
    }

    #[test]
    fn unresolved_dangerous_names_need_verification() {
        let s = state(0.99);
        let r = check(
            &req(json!({"pid": 1, "action": "purge_everything"})),
            Some(&s),
            &BTreeMap::new(),
            LIMITS,
        );
        assert_eq!(code(r), codes::DANGEROUS_ACTION_UNVERIFIED);
        let r = check(
            &req(json!({"pid": 1, "action": "frobnicate"})),
            Some(&s),
            &BTreeMap::new(),
            LIMITS,
        );
        assert_eq!(code(r), codes::ACTION_NOT_AVAILABLE);
        let r = check(
            &req(
                json!({"pid": 1, "action": "purge_everything", "verify_expression": "changed(x)"}),
            ),
            Some(&s),
            &BTreeMap::new(),
            LIMITS,
        );
        assert_eq!(code(r), codes::ACTION_NOT_AVAILABLE);
    }

    #[test]
    fn builtins_inherit_the_tier_of_the_element_they_aim_at() {
        let s = state(0.99);
        // Clicking inside the compose form is gated like send_email.
        let r = check(
            &req(
                json!({"pid": 1, "action": "click", "parameters": {"selector": "#compose > button"}}),
            ),
            Some(&s),
            &BTreeMap::new(),
            LIMITS,
        );
        assert_eq!(code(r), codes::MISSING_VERIFY_EXPRESSION);
        let d = check(
            &req(json!({"pid": 1, "action": "click", "verify_expression": "changed(outbox.sent_count)", "parameters": {"selector": "#compose > button"}})),
            Some(&s),
            &BTreeMap::new(),
            LIMITS,
        )
        .expect("allowed");
        assert_eq!(d.tier, Reversibility::IrreversibleWrite);
        assert_eq!(d.inherited_from.as_deref(), Some("send_email"));
        // An element nobody classified is irreversible (fail closed).
        let d = check(
            &req(json!({"pid": 1, "action": "click", "verify_expression": "changed(x)", "parameters": {"selector": "#mystery"}})),
            Some(&s),
            &BTreeMap::new(),
            LIMITS,
        )
        .expect("allowed with verification");
        assert_eq!(d.tier, Reversibility::IrreversibleWrite);
        assert_eq!(d.inherited_from, None);
        // Reading needs nothing.
        let d = check(
            &req(json!({"pid": 1, "action": "read_text", "parameters": {"selector": "#x"}})),
            Some(&s),
            &BTreeMap::new(),
            LIMITS,
        )
        .expect("read");
        assert_eq!(d.tier, Reversibility::Read);
    }

    #[test]
    fn expressions_are_checked_last_size_before_parse() {
        let s = state(0.99);
        let big = format!("a == {}", "1".repeat(3000));
        let r = check(
            &req(json!({"pid": 1, "action": "open_help", "verify_expression": big})),
            Some(&s),
            &BTreeMap::new(),
            LIMITS,
        );
        assert_eq!(code(r), codes::VERIFY_EXPRESSION_TOO_LARGE);
        let r = check(
            &req(json!({"pid": 1, "action": "open_help", "verify_expression": "a == "})),
            Some(&s),
            &BTreeMap::new(),
            LIMITS,
        );
        let err = r.expect_err("refused");
        assert_eq!(err.code, codes::INVALID_VERIFY_EXPRESSION);
        assert!(err.details.contains_key("position"));
    }
}

//! The gate of docs/safety.md, steps 2–7, as one pure function: given the request and the
//! state the gate uses, either a [`Decision`] to dispatch or the refusal. The order of
//! the checks is the contract (e.g. an irreversible request without an expression is
//! refused for that before its confidence is looked at).
//!
//! Invariant: nothing reaches dispatch without a `Decision` from [`check`]. The type
//! system holds it: [`crate::core::hub::Hub::dispatch`] takes a [`Cleared`], which only
//! [`check`] can make (its fields are private to this module), and what the page is
//! sent is exactly what the gate looked at: the action, its checked parameters, its
//! target, whether it may answer a `confirm()`, and what the gate saw of it
//! ([`DispatchExpect`]: tier, labels, the named row, the resolved element), which the
//! page's dispatcher compares with the live page and [`regate`] with the capture taken
//! just before dispatch.
//!
//! Two rules keep a hostile page from choosing its own gate: a builtin aimed by selector
//! is rated by the element the page resolved the selector to (`ResolvedElement`), never
//! by the selector's text; and an element no discovered action explains has an unknown
//! confidence ([`UNKNOWN_CONFIDENCE`]), under every floor.

use std::collections::BTreeMap;

use nsp_protocol::api::ActionRequest;
use nsp_protocol::channel::{DispatchExpect, ResolvedElement};
use nsp_protocol::{ActionExplain, ActionSchema, Reversibility, SubstrateState};
use serde_json::{Map, Value};

use crate::core::codes;
use crate::core::error::CoreError;

/// The confidence of an element no discovered action explains: nothing says what it
/// does, so it is under every tier's floor and goes to the person (or is refused).
pub const UNKNOWN_CONFIDENCE: f64 = 0.0;

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

/// Words of an action's name that take records out of a list, and that put them in:
/// a refusal's suggested expression expects the list shorter, or longer.
const REMOVING_WORDS: &[&str] = &[
    "delete", "remove", "trash", "discard", "destroy", "erase", "purge",
];
const ADDING_WORDS: &[&str] = &["add", "create", "new", "post", "upload", "import", "insert"];

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
    /// The parameters whose values are secret (the schema's `secret` mark, or `type`'s
    /// `text` into a secret field): never logged, audited or echoed.
    pub secret_parameters: Vec<String>,
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

    /// What the gate saw, sent with the dispatch.
    pub fn expect(&self) -> &DispatchExpect {
        &self.cleared.expect
    }

    /// The part of the decision that dispatch takes.
    pub fn cleared(&self) -> &Cleared {
        &self.cleared
    }
}

/// An action the gate let through, with the parameters it checked. Only [`check`]
/// constructs one; [`crate::core::hub::Hub::dispatch`] requires one.
#[derive(Debug, Clone)]
pub struct Cleared {
    action: String,
    parameters: Map<String, Value>,
    internal_target: Option<String>,
    accept_confirm: bool,
    expect: DispatchExpect,
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

    /// What the gate saw, for the page's dispatcher to compare with the live page.
    pub fn expect(&self) -> &DispatchExpect {
        &self.expect
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
            expect: DispatchExpect::default(),
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
/// has no capture yet), for a request whose selector (if any) was not resolved: a
/// writing builtin aimed by selector then has an unknown confidence.
pub fn check(
    req: &ActionRequest,
    state: Option<&SubstrateState>,
    explain: &BTreeMap<String, ActionExplain>,
    limits: GateLimits,
) -> Result<Decision, CoreError> {
    match check_or_hold(req, state, explain, None, limits, false)? {
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
    /// person may approve it (`crate::core::approvals`).
    Held(Held),
}

/// Proof that the person approved a held action; [`Held::approve`] takes it. Only
/// [`crate::core::approvals`] makes one, once the person's answer arrived.
#[derive(Debug)]
pub struct PersonApproved {
    _private: (),
}

impl PersonApproved {
    /// The person said yes (`approve_once` or `always`): for `approvals` alone.
    pub(in crate::core) fn given() -> Self {
        PersonApproved { _private: () }
    }
}

/// An action under its confidence floor that passed every other step. It holds a
/// [`Decision`] that only the person's approval releases ([`Held::approve`] takes a
/// [`PersonApproved`], which only `approvals` makes); nothing in it
/// can be dispatched as it is.
#[derive(Debug)]
pub struct Held {
    decision: Decision,
    /// The refusal step 5 would have answered (`confidence_too_low`).
    pub refusal: CoreError,
}

impl Held {
    /// A decision the gate cleared that the agent's scope still puts to the person
    /// (`--ask always`); `refusal` stands if nobody can be asked.
    pub fn by_scope(decision: Decision, refusal: CoreError) -> Held {
        Held { decision, refusal }
    }
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
    /// The parameters whose values are secret (never shown to the person either).
    pub fn secret_parameters(&self) -> &[String] {
        &self.decision.secret_parameters
    }
    /// The person approved: the decision, to dispatch and verify as usual.
    pub fn approve(self, _approved: PersonApproved) -> Decision {
        self.decision
    }
}

/// What the gate looks at of the page: the state it uses (`None` before the tab's first
/// capture), that capture's explanations, and the element a writing builtin's selector
/// resolved to ([`selector_to_resolve`]).
#[derive(Debug, Clone, Copy)]
pub struct Seen<'a> {
    pub state: Option<&'a SubstrateState>,
    pub explain: &'a BTreeMap<String, ActionExplain>,
    pub resolved: Option<&'a ResolvedElement>,
}

/// Whether `name` is a builtin on this tab (a discovered action may not take a
/// builtin's name; a state that has one anyway keeps it).
fn is_builtin(name: &str, state: Option<&SubstrateState>) -> bool {
    BUILTINS.contains(&name)
        && state
            .and_then(|s| s.actions.get(name))
            .is_none_or(|a| a.internal_target.starts_with("builtin:"))
}

/// The selector nspd must resolve in the page before gating `req`: a writing builtin
/// (`click`, `type`, `clear`, `press_key`) aimed by `selector`, sent with a verify
/// expression (without one the gate refuses it whatever the element is).
pub fn selector_to_resolve<'r>(
    req: &'r ActionRequest,
    state: Option<&SubstrateState>,
) -> Option<&'r str> {
    let name = req.action.as_str();
    let has_expression = req
        .verify_expression
        .as_deref()
        .is_some_and(|e| !e.trim().is_empty());
    if !has_expression
        || name == "navigate"
        || !SAFETY_REQUIRED_BUILTINS.contains(&name)
        || !is_builtin(name, state)
    {
        return None;
    }
    req.parameters
        .get("selector")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// The names of `req`'s parameters whose values are secret: marked `secret` in the
/// action's schema (the probe marks parameters that fill a secret field), or `type`'s
/// `text` when the element it types into is a secret field.
pub fn secret_parameters(
    req: &ActionRequest,
    state: Option<&SubstrateState>,
    resolved: Option<&ResolvedElement>,
) -> Vec<String> {
    let name = req.action.as_str();
    let schema = state
        .and_then(|s| s.actions.get(name).cloned())
        .or_else(|| builtin_schema(name).filter(|_| is_builtin(name, state)));
    let mut out: Vec<String> = schema
        .map(|s| {
            s.parameters
                .iter()
                .filter(|p| p.secret)
                .map(|p| p.name.clone())
                .collect()
        })
        .unwrap_or_default();
    if name == "type" && is_builtin(name, state) && resolved.is_some_and(|e| e.secret) {
        out.push("text".into());
    }
    out
}

/// [`check`], except that with `ask` a request refused only by its confidence floor
/// passes the remaining steps (parameters, expression) and comes back [`Gated::Held`]
/// rather than refused. Every other refusal is the same as [`check`]'s, in the same
/// order; a verify expression is required exactly as without `ask`. `resolved` is the
/// element a writing builtin's selector found in the page ([`selector_to_resolve`]).
pub fn check_or_hold(
    req: &ActionRequest,
    state: Option<&SubstrateState>,
    explain: &BTreeMap<String, ActionExplain>,
    resolved: Option<&ResolvedElement>,
    limits: GateLimits,
    ask: bool,
) -> Result<Gated, CoreError> {
    let name = req.action.as_str();
    let has_expression = req
        .verify_expression
        .as_deref()
        .is_some_and(|e| !e.trim().is_empty());

    // Step 2: builtins, and what they aim at.
    let is_builtin = is_builtin(name, state);
    let (schema, tier, action_confidence, inherited_from, internal_target) = if is_builtin {
        let schema = state
            .and_then(|s| s.actions.get(name).cloned())
            .or_else(|| builtin_schema(name))
            .ok_or_else(|| not_available(name, state))?;
        let (tier, confidence, inherited, target) =
            builtin_target(name, req, state, resolved, &schema);
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
            return Err(CoreError::new(codes::IRREVERSIBLE_NOT_CONFIRMED,
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
            return Err(CoreError::new(codes::MISSING_VERIFY_EXPRESSION,
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
                return Err(CoreError::new(codes::DANGEROUS_ACTION_UNVERIFIED,
                    format!(
                        "{name:?} is not in the tab's current schema and its name contains {word:?}; nspd will not guess at a destructive action without verification. Read the state, use an action from it, and send a verify_expression."
                    ),
                ));
            }
        }
        return Err(not_available(name, state));
    };
    let state = state.ok_or_else(|| not_available(name, None))?;

    // Step 5: the confidence floor: the lower of the action's and the page's, except
    // for a builtin whose effect does not depend on the page (`navigate`).
    let page_independent = is_builtin && nsp_protocol::builtins::PAGE_INDEPENDENT.contains(&name);
    let effective = if page_independent {
        action_confidence
    } else {
        action_confidence.min(state.confidence)
    };
    let required = floor(tier);
    let mut below_floor = None;
    // A writing builtin aimed at nothing any action explains: nobody knows what it does.
    let unexplained = is_builtin
        && inherited_from.is_none()
        && tier == Reversibility::IrreversibleWrite
        && action_confidence == UNKNOWN_CONFIDENCE;
    if effective < required {
        let why = explain.get(inherited_from.as_deref().unwrap_or(name));
        let message = if unexplained {
            unexplained_message(name, req, required)
        } else {
            confidence_message(name, tier, action_confidence, state, required, why)
        };
        let refusal = CoreError::new(codes::CONFIDENCE_TOO_LOW, message)
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
    let secret_parameters = secret_parameters(req, Some(state), resolved);
    check_parameters(name, &schema, &req.parameters, &secret_parameters)?;
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
    // Then whether it can verify anything at all (after parsing: the size and syntax
    // refusals say more about a broken expression).
    if let Some((src, expr)) = &expression {
        vacuous(name, src, expr, state, "now")?;
    }

    let expect = DispatchExpect {
        tier: Some(tier),
        labels: if is_builtin {
            // A builtin's element is identified by `element`, not by an action's labels.
            Vec::new()
        } else {
            bound_labels(explain.get(name))
        },
        row: if is_builtin {
            None
        } else {
            named_row(&schema, explain.get(name), &req.parameters)
        },
        element: if is_builtin { resolved.cloned() } else { None },
    };
    let cleared = Cleared {
        action: name.to_owned(),
        parameters: req.parameters.clone(),
        internal_target: internal_target.clone(),
        accept_confirm: tier == Reversibility::IrreversibleWrite && expression.is_some(),
        expect,
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
        secret_parameters,
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
pub fn parse_expression(src: &str, limits: GateLimits) -> Result<nsp_verify::Expr, CoreError> {
    let max = limits.verify_expression_max_bytes;
    if src.len() > max {
        return Err(CoreError::new(codes::VERIFY_EXPRESSION_TOO_LARGE,
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
        CoreError::new(code, format!("verify_expression is not valid: {e}"))
            .with("field", "verify_expression")
            .with("position", e.position() as u64)
    })
}

/// Which tier and confidence a builtin gets: a read builtin is a read; a writing one
/// is rated by the element its selector resolved to in the page: the strictest of the
/// discovered actions that element belongs to (then the lowest confidence). An element
/// no action explains, a point, the focused element, or an element whose actions the
/// gate's capture does not have: irreversible at [`UNKNOWN_CONFIDENCE`] (fail closed).
/// The selector's text never decides: a page can shape its DOM so that any selector
/// that looks like it is inside an action finds something else.
fn builtin_target(
    name: &str,
    req: &ActionRequest,
    state: Option<&SubstrateState>,
    resolved: Option<&ResolvedElement>,
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
    let unknown = (
        Reversibility::IrreversibleWrite,
        UNKNOWN_CONFIDENCE,
        None,
        target.clone(),
    );
    let (Some(_), Some(state), Some(element)) = (selector, state, resolved) else {
        return unknown;
    };
    let mut best: Option<(&String, &ActionSchema)> = None;
    for action_name in &element.actions {
        let Some(action) = state
            .actions
            .get(action_name)
            .filter(|a| !a.internal_target.starts_with("builtin:"))
        else {
            // The page's newest capture has an action the gate's does not: what the
            // element does is not what the gate knows.
            return unknown;
        };
        // Several actions may share an element (a form and its submit button): the
        // strictest tier wins, then the lowest confidence.
        let stricter = match best {
            None => true,
            Some((_, b)) => {
                action.reversibility > b.reversibility
                    || (action.reversibility == b.reversibility && action.confidence < b.confidence)
            }
        };
        if stricter {
            best = Some((action_name, action));
        }
    }
    match best {
        Some((action_name, action)) => (
            action.reversibility,
            action.confidence,
            Some(action_name.clone()),
            target,
        ),
        None => unknown,
    }
}

/// Why a writing builtin aimed at nothing any action explains is under its floor.
fn unexplained_message(name: &str, req: &ActionRequest, required: f64) -> String {
    let aim = match req.parameters.get("selector").and_then(Value::as_str) {
        Some(sel) => format!(
            "the element {:?} finds belongs to no action the probe discovered",
            crate::core::util::clip(sel, 200)
        ),
        None if name == "press_key" => "without a selector it acts on whatever has focus".into(),
        None => "a point on the page belongs to no action the probe discovered".into(),
    };
    format!(
        "{name} is a builtin that writes, and {aim}, so nspd cannot tell what it would do: its confidence is unknown, under every floor (an irreversible write needs {required:.2}). Call the discovered action the element belongs to, or aim at an element of one; otherwise a person has to do this one."
    )
}

/// The labels of the elements `explain` binds an action to, in order: what the page's
/// dispatcher compares the live elements with.
fn bound_labels(explain: Option<&ActionExplain>) -> Vec<String> {
    explain
        .map(|e| e.elements.iter().map(|el| el.text.clone()).collect())
        .unwrap_or_default()
}

/// For a row action: the cells of the row `params` names, as `explain` has them. The
/// rows are in the order of the row parameter's `allowed_values` (the first parameter
/// that has them), or of `index` for rows keyed by position.
pub fn named_row(
    schema: &ActionSchema,
    explain: Option<&ActionExplain>,
    params: &Map<String, Value>,
) -> Option<Vec<String>> {
    if !schema.internal_target.starts_with("row:") {
        return None;
    }
    let rows = &explain?.rows;
    let position = schema.parameters.iter().find_map(|p| {
        let value = params.get(&p.name)?;
        match &p.allowed_values {
            Some(allowed) => allowed.iter().position(|v| v == value),
            None if p.name == "index" => value.as_u64().and_then(|i| usize::try_from(i).ok()),
            None => None,
        }
    })?;
    rows.get(position).cloned()
}

/// Refuses an expression that cannot verify anything: one that reads no state after the
/// action, or one that already holds on `state` with `prev` = `state` (so it would pass
/// whether or not the action did anything). `when` says which state that is.
pub fn vacuous(
    name: &str,
    src: &str,
    expr: &nsp_verify::Expr,
    state: &SubstrateState,
    when: &str,
) -> Result<(), CoreError> {
    let why = if !expr.reads_state() {
        "reads nothing of the state after the action, so its value cannot depend on what the action did".to_owned()
    } else {
        let now = nsp_verify::evaluate(expr, state, Some(state));
        if !now.passed {
            return Ok(());
        }
        format!(
            "already holds {when}, before {name} runs ({}), so it would pass whether or not the action did anything",
            now.explanation.trim_end_matches('.')
        )
    };
    let change = suggest_expression(state, name);
    let exact = suggest_exact_value(state, name);
    let mut message = format!(
        "verify_expression {src:?} {why}. Write one that only the action can make true: a change, e.g. {change}"
    );
    if let Some(exact) = &exact {
        message.push_str(&format!(
            ", or the exact value you expect afterwards, e.g. {exact}"
        ));
    }
    message.push('.');
    let mut err = CoreError::new(codes::VERIFY_EXPRESSION_VACUOUS, message)
        .with("field", "verify_expression")
        .with("suggested_expression", change);
    if let Some(exact) = exact {
        err = err.with("suggested_exact_expression", exact);
    }
    Err(err)
}

/// Gate steps re-run on the capture taken just before dispatch (`now`, with its
/// `explain`): the action must still be what the gate let through. Its tier, the labels
/// of its elements and the cells of the row it names must be those the gate saw
/// (`decision.expect()`), else 409 `stale_state`; and its expression must still not
/// hold already (a page that changed meanwhile could make any check pass). Nothing has
/// been sent when this refuses.
pub fn regate(
    decision: &Decision,
    now: &SubstrateState,
    explain: &BTreeMap<String, ActionExplain>,
) -> Result<(), CoreError> {
    let expect = decision.expect();
    let name = decision.action.as_str();
    let stale = |what: String| {
        CoreError::new(
            codes::STALE_STATE,
            format!(
                "Refused rather than act on something else: {what} between the gate's check and the capture taken just before dispatch, so nothing was sent. Read the state again and decide on what is there now."
            ),
        )
        .with("current_capture_id", now.capture_id.clone())
    };
    // The discovered action whose tier the gate used (a builtin's: the one its element
    // belongs to; none for an unexplained element, whose element the dispatcher checks).
    let rated = if decision.builtin {
        decision.inherited_from.as_deref()
    } else {
        Some(name)
    };
    if let Some(rated) = rated {
        let Some(schema) = now.actions.get(rated) else {
            return Err(stale(format!("{rated} left the page")));
        };
        if Some(schema.reversibility) != expect.tier {
            return Err(stale(format!(
                "{rated} turned from {} into {}",
                expect.tier.map(Reversibility::as_str).unwrap_or("unknown"),
                schema.reversibility.as_str()
            )));
        }
        if !decision.builtin {
            let labels = bound_labels(explain.get(rated));
            if labels != expect.labels {
                let shown = |l: &[String]| {
                    let clipped: Vec<String> = l
                        .iter()
                        .take(5)
                        .map(|t| crate::core::util::clip(t, 80))
                        .collect();
                    format!("{clipped:?}")
                };
                return Err(stale(format!(
                    "the controls of {rated} changed from {} to {}",
                    shown(&expect.labels),
                    shown(&labels)
                )));
            }
            let row = named_row(schema, explain.get(rated), decision.cleared.parameters());
            if row != expect.row {
                let shown = |r: &Option<Vec<String>>| match r {
                    Some(cells) => {
                        let clipped: Vec<String> = cells
                            .iter()
                            .take(5)
                            .map(|t| crate::core::util::clip(t, 60))
                            .collect();
                        format!("{clipped:?}")
                    }
                    None => "no row".to_owned(),
                };
                return Err(stale(format!(
                    "the row {rated} names changed from {} to {}",
                    shown(&expect.row),
                    shown(&row)
                )));
            }
        }
    }
    if let Some((src, expr)) = &decision.expression {
        vacuous(
            name,
            src,
            expr,
            now,
            "on the page as it is just before dispatch",
        )?;
    }
    Ok(())
}

fn check_parameters(
    name: &str,
    schema: &ActionSchema,
    params: &serde_json::Map<String, Value>,
    secret: &[String],
) -> Result<(), CoreError> {
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
                            "takes {:?} as {}, not {}",
                            p.name,
                            with_article(&p.type_name),
                            json_type(v)
                        ),
                        &p.name,
                    ));
                }
                if let Some(allowed) = &p.allowed_values {
                    // A list's allowed values are its items' (a group of checkboxes
                    // sharing a name, a multiple select): each item must be one.
                    let held = match v {
                        Value::Array(items) if p.type_name == "array" => {
                            items.iter().all(|item| allowed.contains(item))
                        }
                        v => allowed.contains(v),
                    };
                    if !held
                        && (secret.contains(&p.name) || crate::core::audit::secret_by_name(&p.name))
                    {
                        // Neither the value nor the page's list of secrets is echoed.
                        return Err(invalid_parameters(
                            name,
                            &format!(
                                "does not allow that value for {:?} (a secret: not shown)",
                                p.name
                            ),
                            &p.name,
                        ));
                    }
                    if !held {
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

/// A type's name with its article: "a string", "an array".
fn with_article(type_name: &str) -> String {
    let vowel = type_name.starts_with(['a', 'e', 'i', 'o', 'u']);
    format!("{} {type_name}", if vowel { "an" } else { "a" })
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

fn invalid_parameters(action: &str, what: &str, field: &str) -> CoreError {
    CoreError::new(
        codes::INVALID_PARAMETERS,
        format!("{action} {what}. See the action's parameters in the tab's state."),
    )
    .with("field", format!("parameters.{field}"))
}

fn not_available(name: &str, state: Option<&SubstrateState>) -> CoreError {
    match state {
        Some(state) => {
            let mut names: Vec<&str> = state.actions.keys().map(String::as_str).collect();
            names.truncate(40);
            CoreError::new(codes::ACTION_NOT_AVAILABLE,
                format!(
                    "Action {name:?} is not available on this tab now. Available: {}. Read the state again: the page may have changed.",
                    names.join(", ")
                ),
            )
            .with("action", name)
        }
        None => CoreError::new(codes::PROBE_NOT_READY,
            "The tab has no capture yet, so no action can be checked. Wait for the page to load and retry.",
        ),
    }
}

/// An exact-value verify expression built from the state's real keys: the counter
/// [`suggest_expression`] picks, one more than it is now (what a send, an add or a
/// count of done items does). `None` without an integer counter.
pub fn suggest_exact_value(state: &SubstrateState, action: &str) -> Option<String> {
    let (key, _) = suggested_counter(state, action)?;
    let n = state.objects.get(key)?.as_i64()?;
    Some(format!("{key} == {}", n.saturating_add(1)))
}

/// A verify expression built from the state's real keys, for the refusal message:
/// a counter whose name relates to the action if there is one, else the length of the
/// list the action acts on (one of whose records its parameter names, else the
/// longest), fewer records after a deletion and more after an addition, else any
/// counter, else a URL change.
pub fn suggest_expression(state: &SubstrateState, action: &str) -> String {
    let counter = suggested_counter(state, action);
    if let Some((key, true)) = counter {
        return format!("prev.{key} != {key}");
    }
    if let Some(list) = suggested_list(state, action) {
        let words = action_words(action);
        let has = |set: &[&str]| words.iter().any(|w| set.contains(&w.as_str()));
        let op = if has(REMOVING_WORDS) {
            "<"
        } else if has(ADDING_WORDS) {
            ">"
        } else {
            "!="
        };
        return format!("len({list}) {op} len(prev.{list})");
    }
    match counter {
        Some((key, _)) => format!("prev.{key} != {key}"),
        None => match state.objects.keys().find(|k| !k.contains('[')) {
            Some(key) => format!("changed({key})"),
            None => "prev.context.url != context.url".into(),
        },
    }
}

/// The words of an action's name, lowercased, longer than two letters.
fn action_words(action: &str) -> Vec<String> {
    action
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| w.len() > 2)
        .map(|w| w.to_ascii_lowercase())
        .collect()
}

/// The list of `state` (the path before a key's first `[`) that `action`'s parameters
/// name records of (`one of items[N].name`), else the one with the most keys.
fn suggested_list(state: &SubstrateState, action: &str) -> Option<String> {
    let lists: Vec<&str> = state
        .objects
        .keys()
        .filter_map(|k| k.split_once('[').map(|(list, _)| list))
        .collect();
    let named = state.actions.get(action).and_then(|a| {
        a.parameters.iter().find_map(|p| {
            lists
                .iter()
                .filter(|l| p.description.contains(&format!("{l}[N]")))
                .max_by_key(|l| l.len())
        })
    });
    let longest = || {
        let mut count: std::collections::BTreeMap<&str, usize> = Default::default();
        for l in &lists {
            *count.entry(l).or_default() += 1;
        }
        count.into_iter().max_by_key(|(_, n)| *n).map(|(l, _)| l)
    };
    named.copied().or_else(longest).map(str::to_owned)
}

/// The numeric key of `state` a verify expression for `action` is best built on, and
/// whether its name relates to the action.
fn suggested_counter<'s>(state: &'s SubstrateState, action: &str) -> Option<(&'s String, bool)> {
    let words = action_words(action);
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
        .or_else(|| numeric.iter().find(|k| related(k)));
    if let Some(k) = pick {
        return Some((k, true));
    }
    numeric
        .iter()
        .find(|k| k.contains("count") || k.contains("total"))
        .or_else(|| numeric.first())
        .map(|k| (*k, false))
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

    fn code(r: Result<Decision, CoreError>) -> &'static str {
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

    #[test]
    fn navigate_leaves_a_page_the_probe_does_not_understand() {
        // A page at 0.51: navigate is held to its own confidence; a click is not.
        let s = state(0.51);
        let go = req(json!({"pid": 1, "action": "navigate",
            "parameters": {"url": "http://127.0.0.1/next"},
            "verify_expression": "changed(context.url)"}));
        let ok = check(&go, Some(&s), &BTreeMap::new(), LIMITS).expect("navigate allowed");
        assert!(
            ok.effective_confidence >= 0.8,
            "{}",
            ok.effective_confidence
        );
        let click = req(json!({"pid": 1, "action": "click",
            "parameters": {"selector": "#help"},
            "verify_expression": "changed(inbox.unread_count)"}));
        assert_ne!(
            code(check(&click, Some(&s), &BTreeMap::new(), LIMITS)),
            "ok"
        );
        assert_eq!(nsp_protocol::builtins::PAGE_INDEPENDENT, &["navigate"]);
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

    fn element(actions: &[&str]) -> ResolvedElement {
        ResolvedElement {
            tag: "button".into(),
            label: "x".into(),
            actions: actions.iter().map(|a| a.to_string()).collect(),
            secret: false,
            perceivable: true,
        }
    }

    fn gate(
        v: Value,
        s: &SubstrateState,
        explain: &BTreeMap<String, ActionExplain>,
        resolved: Option<&ResolvedElement>,
        ask: bool,
    ) -> Result<Gated, CoreError> {
        check_or_hold(&req(v), Some(s), explain, resolved, LIMITS, ask)
    }

    fn cleared(r: Result<Gated, CoreError>) -> Decision {
        match r {
            Ok(Gated::Clear(d)) => d,
            Ok(Gated::Held(h)) => panic!("held: {}", h.refusal.message),
            Err(e) => panic!("refused: {} {}", e.code, e.message),
        }
    }

    #[test]
    fn builtins_are_gated_by_the_element_the_page_resolved() {
        let s = state(0.99);
        let none = BTreeMap::new();
        let click = |sel: &str| json!({"pid": 1, "action": "click", "verify_expression": "changed(outbox.sent_count)", "parameters": {"selector": sel}});
        // Without an expression a writing builtin is refused whatever it aims at.
        let r = gate(
            json!({"pid": 1, "action": "click", "parameters": {"selector": "#compose > button"}}),
            &s,
            &none,
            Some(&element(&["send_email"])),
            false,
        );
        assert_eq!(
            r.err().map(|e| e.code),
            Some(codes::MISSING_VERIFY_EXPRESSION)
        );
        // An element inside the compose form is gated like send_email.
        let d = cleared(gate(
            click("#compose > button"),
            &s,
            &none,
            Some(&element(&["send_email"])),
            false,
        ));
        assert_eq!(d.tier, Reversibility::IrreversibleWrite);
        assert_eq!(d.inherited_from.as_deref(), Some("send_email"));
        assert_eq!(d.expect().element, Some(element(&["send_email"])));
        // The strictest of the element's actions wins, whatever the selector says: a
        // selector that starts like the read link's target but found the form's button.
        let d = cleared(gate(
            click("#help ~ button"),
            &s,
            &none,
            Some(&element(&["open_help", "send_email"])),
            false,
        ));
        assert_eq!(d.inherited_from.as_deref(), Some("send_email"));
        // A read link resolved as such is gated as that link (its confidence, 0.5, is
        // a read's floor at least).
        let r = gate(
            click("#help"),
            &s,
            &none,
            Some(&element(&["open_help"])),
            false,
        );
        let d = cleared(r);
        assert_eq!(d.tier, Reversibility::Read);
        assert_eq!(d.inherited_from.as_deref(), Some("open_help"));
        // Reading needs nothing.
        let d = cleared(gate(
            json!({"pid": 1, "action": "read_text", "parameters": {"selector": "#x"}}),
            &s,
            &none,
            None,
            false,
        ));
        assert_eq!(d.tier, Reversibility::Read);
    }

    /// An element no action explains has an unknown confidence: refused under the floor,
    /// or held for the person when nspd may ask; never let through at 1.0.
    #[test]
    fn an_element_no_action_explains_goes_to_the_person() {
        let s = state(0.99);
        let none = BTreeMap::new();
        let click = json!({"pid": 1, "action": "click", "verify_expression": "changed(outbox.sent_count)", "parameters": {"selector": "#help ~ button"}});
        for resolved in [
            None,
            Some(element(&[])),
            // An action the gate's capture does not have.
            Some(element(&["open_help", "ghost"])),
        ] {
            let err =
                gate(click.clone(), &s, &none, resolved.as_ref(), false).expect_err("refused");
            assert_eq!(err.code, codes::CONFIDENCE_TOO_LOW, "{resolved:?}");
            assert_eq!(err.details["actual_confidence"], 0.0);
            assert!(
                err.message.contains("belongs to no action"),
                "{}",
                err.message
            );
            match gate(click.clone(), &s, &none, resolved.as_ref(), true) {
                Ok(Gated::Held(h)) => {
                    assert_eq!(h.tier(), Reversibility::IrreversibleWrite);
                    assert_eq!(h.effective_confidence(), 0.0);
                }
                other => panic!("not held: {other:?}"),
            }
        }
        // A point, and press_key on whatever has focus: unknown too.
        for v in [
            json!({"pid": 1, "action": "click", "verify_expression": "changed(outbox.sent_count)", "parameters": {"x": 3, "y": 4}}),
            json!({"pid": 1, "action": "press_key", "verify_expression": "changed(outbox.sent_count)", "parameters": {"key": "Enter"}}),
        ] {
            let err = gate(v.clone(), &s, &none, None, false).expect_err("refused");
            assert_eq!(err.code, codes::CONFIDENCE_TOO_LOW, "{v}");
        }
    }

    #[test]
    fn a_row_action_without_a_counter_is_shown_its_lists_length() {
        // MLflow's experiment list: counters that say nothing of the action, a list whose
        // records the deletion's parameter names, and a longer one it does not.
        let mut s = state(0.99);
        s.objects = serde_json::from_value(json!({
            "status_count": 2,
            "ask_a_question": "",
            "items[0].name": "fraud-model", "items[1].name": "churn-model",
            "nav.items[0].text": "Home", "nav.items[1].text": "Runs", "nav.items[2].text": "Models",
        }))
        .unwrap();
        let row_action = |reversibility: &str| -> ActionSchema {
            serde_json::from_value(json!({"signature": "fn(name: string) -> bool",
                "reversibility": reversibility, "description": "", "confidence": 0.99,
                "internal_target": "dom:#list", "parameters": [{"name": "name", "type_name": "string",
                "required": true, "description": "one of items[N].name"}]}))
            .unwrap()
        };
        s.actions
            .insert("delete_experiment".into(), row_action("irreversible_write"));
        s.actions
            .insert("rename".into(), row_action("irreversible_write"));
        assert_eq!(
            suggest_expression(&s, "delete_experiment"),
            "len(items) < len(prev.items)"
        );
        assert_eq!(
            suggest_expression(&s, "rename"),
            "len(items) != len(prev.items)"
        );
        // No parameter names a list: the longest, more records after an addition.
        assert_eq!(
            suggest_expression(&s, "create_run"),
            "len(nav.items) > len(prev.nav.items)"
        );
        // Never vacuous: it cannot hold before the action runs.
        let none = BTreeMap::new();
        let err = gate(
            json!({"pid": 1, "action": "delete_experiment", "parameters": {"name": "fraud-model"}}),
            &s,
            &none,
            None,
            false,
        )
        .expect_err("no expression");
        assert_eq!(
            err.details["suggested_expression"],
            "len(items) < len(prev.items)"
        );
        cleared(gate(
            json!({"pid": 1, "action": "delete_experiment", "parameters": {"name": "fraud-model"},
                "verify_expression": "len(items) < len(prev.items)"}),
            &s,
            &none,
            None,
            false,
        ));
    }

    #[test]
    fn an_expression_that_cannot_tell_is_vacuous() {
        let s = state(0.99);
        let none = BTreeMap::new();
        let send = |expr: &str| {
            gate(
                json!({"pid": 1, "action": "send_email", "verify_expression": expr, "parameters": {"to": "a"}}),
                &s,
                &none,
                None,
                false,
            )
        };
        for expr in [
            "outbox.sent_count > 0",
            "outbox.sent_count == 14",
            "!changed(outbox.sent_count)",
            "true",
            "1 == 1",
            "prev.outbox.sent_count == 14",
            "changed(outbox.sent_count) || inbox.unread_count == 3",
        ] {
            let err = send(expr).expect_err("refused");
            assert_eq!(err.code, codes::VERIFY_EXPRESSION_VACUOUS, "{expr}");
            assert_eq!(
                err.details["suggested_expression"], "prev.outbox.sent_count != outbox.sent_count",
                "{expr}"
            );
            assert_eq!(
                err.details["suggested_exact_expression"],
                "outbox.sent_count == 15"
            );
            assert!(
                err.message.contains("outbox.sent_count == 15"),
                "{}",
                err.message
            );
        }
        let err = send("true").expect_err("refused");
        assert!(err.message.contains("reads nothing"), "{}", err.message);
        let err = send("outbox.sent_count > 0").expect_err("refused");
        assert!(err.message.contains("already holds"), "{}", err.message);
        for expr in [
            "outbox.sent_count == 15",
            "changed(outbox.sent_count)",
            "prev.outbox.sent_count != outbox.sent_count",
            "outbox.sent_count > prev.outbox.sent_count",
        ] {
            cleared(send(expr));
        }
        // The suggestions themselves are never vacuous.
        cleared(send(&suggest_expression(&s, "send_email")));
        cleared(send(
            &suggest_exact_value(&s, "send_email").expect("a counter"),
        ));
    }

    fn explained(labels: &[&str], rows: &[&[&str]]) -> ActionExplain {
        ActionExplain {
            elements: labels
                .iter()
                .map(|l| nsp_protocol::ExplainElement {
                    tag: "button".into(),
                    selector: "#b".into(),
                    text: l.to_string(),
                    ..Default::default()
                })
                .collect(),
            rows: rows
                .iter()
                .map(|r| r.iter().map(|c| c.to_string()).collect())
                .collect(),
            ..Default::default()
        }
    }

    fn row_state() -> SubstrateState {
        let mut s = state(0.99);
        let archive = s.actions.get_mut("archive").expect("archive");
        archive.internal_target = "row:#list > li button | #list > li | @data-id".into();
        archive.parameters[0].allowed_values = Some(vec![json!("e1"), json!("e2")]);
        s
    }

    #[test]
    fn the_dispatch_carries_what_the_gate_saw() {
        let s = row_state();
        let mut explain = BTreeMap::new();
        explain.insert(
            "archive".to_owned(),
            explained(&["Archive"], &[&["Ann", "Lunch"], &["Bob", "Invoice"]]),
        );
        explain.insert("send_email".to_owned(), explained(&["To", "Send"], &[]));
        let d = cleared(gate(
            json!({"pid": 1, "action": "archive", "parameters": {"email_id": "e2"}}),
            &s,
            &explain,
            None,
            false,
        ));
        let expect = d.expect();
        assert_eq!(expect.tier, Some(Reversibility::ReversibleWrite));
        assert_eq!(expect.labels, vec!["Archive".to_owned()]);
        assert_eq!(
            expect.row,
            Some(vec!["Bob".to_owned(), "Invoice".to_owned()])
        );
        assert_eq!(expect.element, None);
        assert_eq!(d.cleared().expect(), expect);
        let d = cleared(gate(
            json!({"pid": 1, "action": "send_email", "verify_expression": "changed(outbox.sent_count)", "parameters": {"to": "a"}}),
            &s,
            &explain,
            None,
            false,
        ));
        assert_eq!(d.expect().labels, vec!["To".to_owned(), "Send".to_owned()]);
        assert_eq!(d.expect().row, None);
        assert!(d.accepts_confirm());

        // Rows keyed by position: `index` names the row.
        let mut s = row_state();
        let archive = s.actions.get_mut("archive").expect("archive");
        archive.parameters[0].name = "index".into();
        archive.parameters[0].type_name = "number".into();
        archive.parameters[0].allowed_values = None;
        let d = cleared(gate(
            json!({"pid": 1, "action": "archive", "parameters": {"index": 0}}),
            &s,
            &explain,
            None,
            false,
        ));
        assert_eq!(
            d.expect().row,
            Some(vec!["Ann".to_owned(), "Lunch".to_owned()])
        );
    }

    #[test]
    fn regate_refuses_what_changed_between_gate_and_dispatch() {
        let s = row_state();
        let mut explain = BTreeMap::new();
        explain.insert(
            "archive".to_owned(),
            explained(&["Archive"], &[&["Ann", "Lunch"], &["Bob", "Invoice"]]),
        );
        let d = cleared(gate(
            json!({"pid": 1, "action": "archive", "verify_expression": "changed(inbox.unread_count)", "parameters": {"email_id": "e1"}}),
            &s,
            &explain,
            None,
            false,
        ));
        regate(&d, &s, &explain).expect("nothing changed");

        let stale = |now: &SubstrateState, explain: &BTreeMap<String, ActionExplain>| {
            regate(&d, now, explain).err().map(|e| (e.code, e.message))
        };
        // The label.
        let mut relabelled = explain.clone();
        relabelled.insert(
            "archive".to_owned(),
            explained(
                &["Delete forever"],
                &[&["Ann", "Lunch"], &["Bob", "Invoice"]],
            ),
        );
        let (code, message) = stale(&s, &relabelled).expect("stale");
        assert_eq!(code, codes::STALE_STATE);
        assert!(message.contains("Delete forever"), "{message}");
        // The tier.
        let mut now = s.clone();
        now.actions
            .get_mut("archive")
            .expect("archive")
            .reversibility = Reversibility::IrreversibleWrite;
        assert_eq!(stale(&now, &explain).map(|e| e.0), Some(codes::STALE_STATE));
        // The row the request names (a new row came first).
        let mut shifted = explain.clone();
        shifted.insert(
            "archive".to_owned(),
            explained(&["Archive"], &[&["Eve", "Wire"], &["Ann", "Lunch"]]),
        );
        assert_eq!(stale(&s, &shifted).map(|e| e.0), Some(codes::STALE_STATE));
        // Gone.
        let mut gone = s.clone();
        gone.actions.remove("archive");
        assert_eq!(
            stale(&gone, &explain).map(|e| e.0),
            Some(codes::STALE_STATE)
        );
        // The expression already holds on the page just before dispatch.
        let mut changed = s.clone();
        changed
            .objects
            .insert("inbox.unread_count".into(), json!(3));
        regate(&d, &changed, &explain).expect("changed() compares with prev = now");
        let d = cleared(gate(
            json!({"pid": 1, "action": "archive", "verify_expression": "inbox.unread_count == 2", "parameters": {"email_id": "e1"}}),
            &s,
            &explain,
            None,
            false,
        ));
        let mut now = s.clone();
        now.objects.insert("inbox.unread_count".into(), json!(2));
        assert_eq!(
            regate(&d, &now, &explain).err().map(|e| e.code),
            Some(codes::VERIFY_EXPRESSION_VACUOUS)
        );
    }

    /// A group of checkboxes sharing a name takes a list: each item must be one of the
    /// allowed values, and a bare value is refused saying the list is wanted.
    #[test]
    fn a_list_parameter_takes_a_list_of_its_allowed_values() {
        let mut s = state(0.99);
        let archive = s.actions.get_mut("archive").expect("archive");
        archive.parameters[0].name = "uuids".into();
        archive.parameters[0].type_name = "array".into();
        archive.parameters[0].allowed_values = Some(vec![json!("a "), json!("b "), json!("c ")]);
        let run = |params: Value| {
            check(
                &req(json!({"pid": 1, "action": "archive", "parameters": params})),
                Some(&s),
                &BTreeMap::new(),
                LIMITS,
            )
        };
        assert!(run(json!({"uuids": ["a ", "c "]})).is_ok());
        assert!(run(json!({"uuids": []})).is_ok());
        let err = run(json!({"uuids": ["a ", "d "]})).expect_err("d is no box's value");
        assert_eq!(err.code, codes::INVALID_PARAMETERS);
        assert!(err.message.contains("allowed: \"a \""), "{}", err.message);
        let err = run(json!({"uuids": "a "})).expect_err("a list is wanted");
        assert_eq!(err.code, codes::INVALID_PARAMETERS);
        assert!(
            err.message.contains("as an array, not a string"),
            "{}",
            err.message
        );
    }

    /// A parameter the schema marks secret is redacted by its mark, `type` into a
    /// secret field too, and no refusal echoes a secret value.
    #[test]
    fn secrets_are_known_by_their_mark_and_never_echoed() {
        let mut s = state(0.99);
        let mut login: ActionSchema = s.actions["send_email"].clone();
        login.parameters[0].name = "x".into();
        login.parameters[0].secret = true;
        login.parameters[0].allowed_values = Some(vec![json!("hunter2")]);
        s.actions.insert("log_in".into(), login);
        let r = req(json!({"pid": 1, "action": "log_in", "parameters": {"x": "hunter3"}}));
        assert_eq!(secret_parameters(&r, Some(&s), None), vec!["x".to_owned()]);
        let err = check(&r, Some(&s), &BTreeMap::new(), LIMITS).expect_err("refused");
        let err = if err.code == codes::MISSING_VERIFY_EXPRESSION {
            check(
                &req(json!({"pid": 1, "action": "log_in", "verify_expression": "changed(outbox.sent_count)", "parameters": {"x": "hunter3"}})),
                Some(&s),
                &BTreeMap::new(),
                LIMITS,
            )
            .expect_err("refused")
        } else {
            err
        };
        assert_eq!(err.code, codes::INVALID_PARAMETERS);
        let body = format!("{} {:?}", err.message, err.details);
        assert!(!body.contains("hunter"), "{body}");

        let typed = req(
            json!({"pid": 1, "action": "type", "parameters": {"selector": "#pw", "text": "hunter2"}}),
        );
        let mut field = element(&[]);
        assert!(secret_parameters(&typed, Some(&s), Some(&field)).is_empty());
        field.secret = true;
        assert_eq!(
            secret_parameters(&typed, Some(&s), Some(&field)),
            vec!["text".to_owned()]
        );
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

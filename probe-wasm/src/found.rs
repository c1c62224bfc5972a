//! What the builders (declarations, forms, rows, controls) produce: an action found on
//! the page before its name is settled ([`Found`]), where it came from ([`Source`]), the
//! elements already offered ([`Claims`]) and its signature. Its own module so that the
//! builders do not import [`crate::discover`], which calls them.

use nsp_protocol::{ActionExplain, ActionParameter, ActionSchema, ExplainElement};

use crate::classify::Verdict;
use crate::page::{control_label, ElementRecordExt, Page};
use crate::text::{clip, MAX_DESCRIPTION_LEN};

/// Most elements one action's explanation lists.
const MAX_EXPLAIN_ELEMENTS: usize = 20;
/// Where an action came from; earlier sources win name collisions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Source {
    Declared,
    Form,
    Row,
    Control,
    Builtin,
}

/// One action before names are settled.
#[derive(Debug, Clone)]
pub struct Found {
    pub name: String,
    pub source: Source,
    /// Namespace used to qualify the name when it collides.
    pub ns: Option<String>,
    pub schema: ActionSchema,
    pub explain: ActionExplain,
    /// Elements this action covers (for coverage and for claiming).
    pub bound: Vec<usize>,
}

impl Found {
    /// An action built from a verdict; the caller fills parameters and target.
    pub fn new(name: String, source: Source, verdict: Verdict, description: String) -> Found {
        Found {
            name,
            source,
            ns: None,
            schema: ActionSchema {
                signature: String::new(),
                reversibility: verdict.tier,
                description: clip(&description, MAX_DESCRIPTION_LEN),
                confidence: verdict.confidence,
                internal_target: String::new(),
                parameters: Vec::new(),
            },
            explain: ActionExplain {
                elements: Vec::new(),
                signals: verdict.signals,
                tier_reason: verdict.tier_reason,
                confidence_reason: verdict.confidence_reason,
                ..ActionExplain::default()
            },
            bound: Vec::new(),
        }
    }

    /// Counts `idx` as understood through this action without listing it as a bound
    /// element (a form's fields).
    pub fn cover(&mut self, idx: usize) {
        self.bound.push(idx);
    }

    pub fn bind(&mut self, page: &Page<'_>, idx: usize) {
        self.bound.push(idx);
        if self.explain.elements.len() < MAX_EXPLAIN_ELEMENTS {
            self.explain.elements.push(explain_element(page, idx));
        }
    }
}

pub fn explain_element(page: &Page<'_>, idx: usize) -> ExplainElement {
    let e = &page.els[idx];
    ExplainElement {
        tag: e.tag.clone(),
        id: e.attr("id").map(str::to_owned),
        selector: page.selector(idx),
        // A picker nothing names is read by the option it shows, which is its value:
        // listed without it, as a field is.
        text: if crate::page::is_picker(e) && e.label.trim().is_empty() && !e.has("aria-label") {
            String::new()
        } else {
            clip(&control_label(e), 80)
        },
    }
}

/// `fn(a: string, b?: number) -> bool`.
pub fn signature(params: &[ActionParameter], returns: &str) -> String {
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

/// Distinct values in first-seen order, up to a limit: a parameter lists its valid
/// values only while they are few, and a 5,000-row table must not cost a quadratic scan.
#[derive(Debug, Default)]
pub struct FewValues {
    values: Vec<String>,
    overflow: bool,
}

impl FewValues {
    pub const LIMIT: usize = 25;

    pub fn push(&mut self, value: &str) {
        if self.overflow || self.values.iter().any(|v| v == value) {
            return;
        }
        if self.values.len() == Self::LIMIT {
            self.overflow = true;
            self.values.clear();
            return;
        }
        self.values.push(value.to_owned());
    }

    /// The values as `allowed_values`, or `None` when there were too many.
    pub fn allowed(&self) -> Option<Vec<serde_json::Value>> {
        (!self.overflow && !self.values.is_empty()).then(|| {
            self.values
                .iter()
                .cloned()
                .map(serde_json::Value::String)
                .collect()
        })
    }
}

/// Elements already offered by a more trusted source.
#[derive(Debug, Default)]
pub struct Claims {
    claimed: Vec<bool>,
}

impl Claims {
    pub fn new(len: usize) -> Claims {
        Claims {
            claimed: vec![false; len],
        }
    }

    pub fn claim(&mut self, idx: usize) {
        if let Some(slot) = self.claimed.get_mut(idx) {
            *slot = true;
        }
    }

    pub fn is_claimed(&self, idx: usize) -> bool {
        self.claimed.get(idx).copied().unwrap_or(false)
    }
}

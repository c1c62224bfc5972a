//! Corrections: what a person (or, stricter only, an agent) said about an action on this
//! site, stored by nspd and passed in the probe's configuration by the extension (only
//! the page origin's own). They are declared-level evidence: the person's tier is the
//! action's tier at [`DECLARED`] confidence, a trusted action keeps the probe's tier at
//! that confidence, and an agent's raises the tier or caps the confidence, never the
//! other way. The pass runs after the actions have their final names (corrections name
//! actions as agents see them) and says what it did in the action's `--explain` lines,
//! weighed by [`Signal::Corrected`] from the one table.

use nsp_protocol::Reversibility;
#[cfg(test)]
use nsp_protocol::{ActionExplain, ActionSchema};
use serde_json::Value;

use crate::classify::{Signal, Vote, Weighed, DECLARED};
use crate::found::Found;

/// One correction as the probe needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct Fix {
    pub action: String,
    pub tier: Option<Reversibility>,
    pub trusted: bool,
    pub max_confidence: Option<f64>,
    /// By an agent (else by the person), with the agent key's id.
    pub agent: Option<String>,
    /// `YYYY-MM-DD` of `created_at`.
    pub date: String,
}

/// The most corrections one probe takes (nspd stores at most a few thousand over all
/// sites; one site's are far fewer).
const MAX_FIXES: usize = 1_000;

/// Reads the `corrections` array of a probe configuration (the fields of
/// `nsp_protocol::approval::Correction`), by hand like the rest of the configuration.
/// Absent or null: none. `None` when it is there but not a list of corrections.
pub fn parse(v: Option<&Value>) -> Option<Vec<Fix>> {
    let list = match v {
        None | Some(Value::Null) => return Some(Vec::new()),
        Some(Value::Array(list)) => list,
        Some(_) => return None,
    };
    let mut out = Vec::with_capacity(list.len().min(MAX_FIXES));
    for c in list.iter().take(MAX_FIXES) {
        let action = c.get("action")?.as_str()?.to_owned();
        let tier = match c.get("tier") {
            None | Some(Value::Null) => None,
            Some(t) => Some(tier_of(t.as_str()?)?),
        };
        let max_confidence = match c.get("max_confidence") {
            None | Some(Value::Null) => None,
            Some(m) => Some(m.as_f64()?.clamp(0.0, 1.0)),
        };
        let agent = match c.get("by").and_then(Value::as_str) {
            Some("agent") => Some(
                c.get("key_id")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
            ),
            Some("person") => None,
            _ => return None,
        };
        let created = c.get("created_at").and_then(Value::as_str).unwrap_or("");
        let date = created.get(..10).unwrap_or(created).to_owned();
        out.push(Fix {
            action,
            tier,
            trusted: c.get("trusted").and_then(Value::as_bool).unwrap_or(false),
            max_confidence,
            agent,
            date,
        });
    }
    Some(out)
}

fn tier_of(s: &str) -> Option<Reversibility> {
    Some(match s {
        "read" => Reversibility::Read,
        "reversible_write" => Reversibility::ReversibleWrite,
        "irreversible_write" => Reversibility::IrreversibleWrite,
        _ => return None,
    })
}

/// Applies `fixes` to the discovered actions of a capture (builtins take none): the
/// person's first, then the agents', which can only make the result stricter. It runs
/// before the page's coverage is computed, so a corrected action counts as understood,
/// as a declared one does.
pub fn apply(fixes: &[Fix], actions: &mut [Found]) {
    // Written with `push_str` into one string rather than a `format!` per phrase: every
    // formatting call is code of its own in a wasm with a size budget.
    for agents in [false, true] {
        for fix in fixes.iter().filter(|f| f.agent.is_some() == agents) {
            let Some(found) = actions.iter_mut().find(|f| f.name == fix.action) else {
                continue;
            };
            let (schema, e) = (&mut found.schema, &mut found.explain);
            let before = schema.reversibility;
            let before_confidence = schema.confidence;
            let mut what = String::new();
            if let Some(t) = fix.tier.filter(|t| !agents || *t > before) {
                schema.reversibility = t;
                what.push_str(if agents { "tier raised to " } else { "tier " });
                what.push_str(t.as_str());
            }
            if !agents && (fix.tier.is_some() || fix.trusted) {
                schema.confidence = DECLARED;
            }
            if !agents && fix.trusted {
                what.push_str(if what.is_empty() { "" } else { ", " });
                what.push_str("trusted");
            }
            if let Some(m) = fix.max_confidence.filter(|m| schema.confidence > *m) {
                schema.confidence = m;
                what.push_str(if what.is_empty() { "" } else { ", " });
                what.push_str("confidence capped");
            }
            let changed = !what.is_empty();
            if !changed {
                what.push_str("no change, already as strict");
            }
            let mut by = String::from("corrected by ");
            match &fix.agent {
                None => by.push_str("the person"),
                Some(k) => {
                    by.push_str("an agent");
                    if !k.is_empty() {
                        by.push_str(" (key ");
                        by.push_str(k);
                        by.push(')');
                    }
                }
            }
            if !fix.date.is_empty() {
                by.push_str(" on ");
                by.push_str(&fix.date);
            }
            e.signals.push(
                Weighed {
                    signal: Signal::Corrected,
                    vote: Vote::For(schema.reversibility),
                    detail: format!(
                        "{by}: {what} (before: {} at {:.2}, now {:.2})",
                        before.as_str(),
                        before_confidence,
                        schema.confidence
                    ),
                }
                .line(),
            );
            if changed {
                by.push_str(": ");
                by.push_str(&what);
                by.push_str("; ");
                by.push_str(&e.tier_reason);
                e.tier_reason = by;
                if !agents && (fix.tier.is_some() || fix.trusted) {
                    e.confidence_reason = "corrected by the person: declared level".into();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use Reversibility::{IrreversibleWrite as I, Read as R, ReversibleWrite as W};

    fn schema(tier: Reversibility, confidence: f64) -> ActionSchema {
        serde_json::from_value(json!({"signature": "fn() -> bool", "reversibility": tier, "description": "", "confidence": confidence, "internal_target": "dom:#x", "parameters": []})).expect("schema")
    }

    fn run(fixes: Value, tier: Reversibility, confidence: f64) -> (ActionSchema, Vec<String>) {
        let fixes = parse(Some(&fixes)).expect("parse");
        let mut found = [Found {
            name: "act".into(),
            source: crate::found::Source::Control,
            ns: None,
            schema: schema(tier, confidence),
            explain: ActionExplain {
                elements: Vec::new(),
                signals: Vec::new(),
                tier_reason: String::new(),
                confidence_reason: String::new(),
                parameters: std::collections::BTreeMap::new(),
                rows: Vec::new(),
            },
            bound: Vec::new(),
        }];
        apply(&fixes, &mut found);
        let [f] = found;
        (f.schema, f.explain.signals)
    }

    #[test]
    fn a_person_sets_the_tier_or_trusts_at_declared_confidence() {
        let (s, lines) = run(
            json!([{"action": "act", "tier": "read", "by": "person", "created_at": "2026-11-30T10:00:00Z"}]),
            I,
            0.7,
        );
        assert_eq!((s.reversibility, s.confidence), (R, DECLARED));
        assert!(
            lines[0].contains("corrected by the person on 2026-11-30: tier read"),
            "{lines:?}"
        );
        let (s, lines) = run(
            json!([{"action": "act", "trusted": true, "by": "person", "created_at": "2026-11-30T10:00:00Z"}]),
            I,
            0.7,
        );
        assert_eq!((s.reversibility, s.confidence), (I, DECLARED));
        assert!(lines[0].starts_with("corrected (+"), "{lines:?}");
    }

    #[test]
    fn an_agent_only_tightens_even_after_the_person() {
        let (s, lines) = run(
            json!([{"action": "act", "tier": "irreversible_write", "max_confidence": 0.6, "by": "agent", "key_id": "k1", "created_at": "2026-11-30T10:00:00Z"}]),
            W,
            0.9,
        );
        assert_eq!((s.reversibility, s.confidence), (I, 0.6));
        assert!(
            lines[0].contains("by an agent (key k1) on 2026-11-30"),
            "{lines:?}"
        );
        // An agent's "read" never lowers; its ceiling applies after the person's trust.
        let (s, _) = run(
            json!([
                {"action": "act", "tier": "read", "by": "agent", "created_at": "x"},
                {"action": "act", "trusted": true, "max_confidence": null, "by": "person", "created_at": "x"},
                {"action": "act", "max_confidence": 0.5, "by": "agent", "created_at": "x"}
            ]),
            W,
            0.9,
        );
        assert_eq!((s.reversibility, s.confidence), (W, 0.5));
    }

    #[test]
    fn other_actions_and_bad_lists() {
        let (s, lines) = run(
            json!([{"action": "other", "tier": "read", "by": "person"}]),
            I,
            0.7,
        );
        assert_eq!((s.reversibility, s.confidence), (I, 0.7));
        assert!(lines.is_empty());
        assert_eq!(parse(Some(&json!([{"action": "a", "by": "nobody"}]))), None);
        assert_eq!(parse(Some(&json!({"action": "a"}))), None);
        assert_eq!(parse(Some(&json!(null))), Some(Vec::new()));
    }
}

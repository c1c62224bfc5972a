//! A correction from an agent (`POST /substrate/v1/learn` in the HTTP door). An agent
//! may only make an action stricter than the tab's current schema says (a higher tier,
//! a lower confidence); anything looser is refused (`forbidden`), because an agent that
//! could loosen the gate would not be gated. The person corrects through the
//! extension's popup (the channel), never this way. Every request is audited.

use std::sync::Arc;

use nsp_protocol::approval::{CorrectionSource, LearnRequest, LearnResponse};
use nsp_protocol::Reversibility;
use serde_json::json;

use crate::core::app::AppState;
use crate::core::codes;
use crate::core::corrections::{new_correction, origin_of, StoreError};
use crate::core::error::CoreError;

/// What an agent asked for, once judged stricter: the tier to raise to and the
/// confidence ceiling, each only when it is stricter than the current schema.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stricter {
    pub tier: Option<Reversibility>,
    pub max_confidence: Option<f64>,
}

/// The rule: nothing looser (a lower tier, a higher confidence), and something
/// stricter (a higher tier, or a lower confidence). `Err` says what is allowed.
pub fn judge(
    current_tier: Reversibility,
    current_confidence: f64,
    tier: Option<Reversibility>,
    confidence: Option<f64>,
) -> Result<Stricter, String> {
    let allowed = format!(
        "An agent may only make an action stricter: a tier above {} (reversible_write < irreversible_write), or a confidence below {current_confidence}. Only the person can loosen a correction, in the extension's popup.",
        current_tier.as_str()
    );
    if let Some(t) = tier {
        if t < current_tier {
            return Err(format!(
                "{} is looser than the current tier {}. {allowed}",
                t.as_str(),
                current_tier.as_str()
            ));
        }
    }
    if let Some(c) = confidence {
        if c > current_confidence {
            return Err(format!(
                "confidence {c} is above the current {current_confidence}. {allowed}"
            ));
        }
    }
    let out = Stricter {
        tier: tier.filter(|t| *t > current_tier),
        max_confidence: confidence.filter(|c| *c < current_confidence),
    };
    if out.tier.is_none() && out.max_confidence.is_none() {
        return Err(format!("Nothing in it is stricter than now. {allowed}"));
    }
    Ok(out)
}

/// Judges, stores and audits an agent's correction `req`.
pub async fn learn(
    state: &Arc<AppState>,
    who: &crate::core::agents::Agent,
    req: LearnRequest,
    request_id: &str,
) -> Result<LearnResponse, CoreError> {
    if req.pid == Some(0) {
        return Err(
            CoreError::invalid_request("\"pid\" must be a positive integer.").with("field", "pid"),
        );
    }
    if req.pid.is_none() && req.app_id.is_none() {
        return Err(CoreError::invalid_request("Send \"pid\" or \"app_id\".").with("field", "pid"));
    }
    if req.reversibility.is_none() && req.confidence.is_none() {
        return Err(CoreError::invalid_request(
            "Send \"reversibility\" (a stricter tier) or \"confidence\" (a lower one), or both.",
        ));
    }
    if let Some(c) = req.confidence {
        if !(0.0..=1.0).contains(&c) {
            return Err(CoreError::invalid_request(format!(
                "\"confidence\" is {c}; it must be between 0 and 1."
            ))
            .with("field", "confidence"));
        }
    }
    let pid = crate::core::access::resolve(state, who, req.pid, req.app_id.as_deref())?;
    let current = state.hub.state(pid)?;
    let url = current.context.url.clone();
    let mut rec = crate::core::audit::base(who, request_id, pid, url.as_deref(), &req.action);
    rec.insert("event".into(), json!("learn"));
    rec.insert(
        "requested".into(),
        json!({"reversibility": req.reversibility, "confidence": req.confidence}),
    );
    let refuse = |mut rec: serde_json::Map<String, serde_json::Value>, e: CoreError| {
        rec.insert("decision".into(), json!(format!("refused:{}", e.code)));
        // A refusal changes nothing; a lost line is logged by `record`.
        let _ = state.audit.record(rec, false);
        e
    };
    let Some(schema) = current.actions.get(&req.action) else {
        let mut names: Vec<&str> = current.actions.keys().map(String::as_str).collect();
        names.truncate(40);
        let e = CoreError::new(
            codes::ACTION_NOT_AVAILABLE,
            format!(
                "Action {:?} is not available on this tab now. Available: {}.",
                req.action,
                names.join(", ")
            ),
        )
        .with("action", req.action.as_str());
        return Err(refuse(rec, e));
    };
    rec.insert("tier".into(), json!(schema.reversibility));
    rec.insert("confidence".into(), json!(schema.confidence));
    let Some(origin) = url.as_deref().and_then(origin_of) else {
        let e =
            CoreError::invalid_request("The tab has no http(s) origin to store a correction for.");
        return Err(refuse(rec, e));
    };
    let stricter = match judge(
        schema.reversibility,
        schema.confidence,
        req.reversibility,
        req.confidence,
    ) {
        Ok(s) => s,
        Err(message) => {
            let e = CoreError::new(codes::FORBIDDEN, message)
                .with("action", req.action.as_str())
                .with("current_reversibility", schema.reversibility.as_str())
                .with("current_confidence", schema.confidence);
            return Err(refuse(rec, e));
        }
    };
    // Merged with what agents said before about the same action, so a later request
    // can only add strictness, never drop an earlier agent's ceiling or tier.
    let earlier = state
        .corrections
        .for_origin(&origin)
        .into_iter()
        .find(|c| c.action == req.action && c.by == CorrectionSource::Agent);
    let tier = match (earlier.as_ref().and_then(|c| c.tier), stricter.tier) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    };
    let max_confidence = match (
        earlier.as_ref().and_then(|c| c.max_confidence),
        stricter.max_confidence,
    ) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    let correction = new_correction(
        &origin,
        &req.action,
        tier,
        false,
        max_confidence,
        CorrectionSource::Agent,
        Some(who.key_id.clone()),
    );
    let stored = match state.corrections.add(correction) {
        Ok(c) => c,
        Err(err) => {
            let e = match err {
                StoreError::Full | StoreError::Invalid(_) => {
                    CoreError::invalid_request(err.to_string())
                }
                StoreError::Io { .. } | StoreError::Malformed { .. } => {
                    tracing::error!(error = %err, "cannot store a correction");
                    CoreError::new(codes::CORRECTIONS_UNAVAILABLE,
                        "The correction could not be stored in the data dir; nothing changed. Retry later.",
                    )
                }
            };
            return Err(refuse(rec, e));
        }
    };
    rec.insert("decision".into(), json!("corrected"));
    rec.insert("correction".into(), json!(stored));
    let _ = state.audit.record(rec, true);
    let mut what = Vec::new();
    if let Some(t) = stored.tier {
        what.push(format!("tier {}", t.as_str()));
    }
    if let Some(c) = stored.max_confidence {
        what.push(format!("confidence at most {c}"));
    }
    let resp = LearnResponse {
        success: true,
        message: format!(
            "Stored for {} on {origin}: {}. The probe applies it on its next capture of that site's pages (the extension recaptures them now).",
            req.action,
            what.join(", ")
        ),
        correction: stored,
    };
    Ok(resp)
}

#[cfg(test)]
mod tests {
    use super::*;
    use Reversibility::{IrreversibleWrite as I, Read as R, ReversibleWrite as W};

    #[test]
    fn only_stricter_passes() {
        // Stricter tier, lower confidence, or both.
        assert_eq!(
            judge(W, 0.9, Some(I), None),
            Ok(Stricter {
                tier: Some(I),
                max_confidence: None
            })
        );
        assert_eq!(
            judge(W, 0.9, None, Some(0.5)),
            Ok(Stricter {
                tier: None,
                max_confidence: Some(0.5)
            })
        );
        // The same tier with a lower confidence: the confidence is the stricter part.
        assert_eq!(
            judge(W, 0.9, Some(W), Some(0.5)),
            Ok(Stricter {
                tier: None,
                max_confidence: Some(0.5)
            })
        );
        // Looser in any part, or stricter in none: refused, saying what is allowed.
        for (t, c) in [
            (Some(R), None),
            (Some(R), Some(0.1)),
            (Some(W), None),
            (None, Some(0.95)),
            (Some(I), Some(0.95)),
            (None, Some(0.9)),
        ] {
            let e = judge(W, 0.9, t, c).expect_err("looser");
            assert!(e.contains("only make an action stricter"), "{e}");
        }
        // Nothing is stricter than irreversible at zero.
        assert!(judge(I, 0.0, Some(I), Some(0.0)).is_err());
    }
}

//! Asking the person: a request that only a confidence floor refuses is held, put to the
//! person at the browser (the extension's approval card), and released, refused or timed
//! out by their answer (docs/safety.md, "Asking the person").
//!
//! Invariants: a held action is dispatched only after an answer of `approve_once` or
//! `always` arrived for its `approval_id` from a connection of the browser session the
//! tab belongs to; the answer is taken once (later ones are ignored), so one question
//! releases at most one dispatch. The tab's action lock is taken before the question goes
//! out and kept until the action is done, and the dispatch timeout starts only after the
//! answer. Open questions are keyed by `approval_id`, not by connection: a restarted
//! service worker reconnects, gets every open question of its session again (after its
//! hello) and can answer any of them.

use std::collections::BTreeMap;
use std::sync::Arc;

use nsp_protocol::api::ActionRequest;
use nsp_protocol::approval::{
    ApprovalClosedReason, ApprovalDecision, ApprovalMode, ApprovalQuestion, Correction,
    CorrectionSource,
};
use nsp_protocol::channel::DaemonMessage;
use nsp_protocol::{ActionExplain, Reversibility, SubstrateState};
use serde_json::{json, Map, Value};
use tokio::sync::{mpsc, oneshot, OwnedMutexGuard};

use crate::core::agents::{Agent, AgentAsk};
use crate::core::app::AppState;
use crate::core::audit;
use crate::core::codes;
use crate::core::config::AskPerson;
use crate::core::error::CoreError;
use crate::core::gate::{self, Decision, GateLimits, Gated, Held};
use crate::core::hub::questions::Open;
use crate::core::hub::{ConnId, Hub};

/// Whether this request may be held for the person: the request's own `"approval"`
/// wins over `[gate] ask_person`.
pub fn asks(ask_person: AskPerson, req: &ActionRequest) -> bool {
    match req.approval {
        Some(ApprovalMode::Ask) => true,
        Some(ApprovalMode::Never) => false,
        None => ask_person == AskPerson::BelowFloor,
    }
}

/// [`asks`], held to the agent's own `--ask`, which is never looser than the daemon's:
/// an agent that is never to ask is never held for the person.
pub fn agent_asks(ask_person: AskPerson, who: &Agent, req: &ActionRequest) -> bool {
    who.scope.ask != AgentAsk::Never && asks(ask_person, req)
}

/// The gate, with the person in it: a [`Decision`] to dispatch, and, when the person was
/// asked, the tab's action lock, taken before asking and to be held until the action is
/// done. An action under its floor is held only when [`asks`] says so; otherwise the
/// answer is exactly [`gate::check`]'s.
/// Between the gate's verdict and any person, the agent's scope
/// ([`crate::core::access::may_run`]: its max-tier and other agents' leases), which no
/// approval can lift; and an agent with `--ask always` puts every write to the person.
pub async fn check(
    state: &Arc<AppState>,
    who: &Arc<Agent>,
    req: &ActionRequest,
    pid: u64,
    seen: gate::Seen<'_>,
    limits: GateLimits,
    request_id: &str,
) -> Result<(Decision, Option<OwnedMutexGuard<()>>), CoreError> {
    let ask = agent_asks(state.settings.ask_person, who, req);
    let gated = gate::check_or_hold(req, seen.state, seen.explain, seen.resolved, limits, ask)?;
    let (action, tier) = match &gated {
        Gated::Clear(d) => (d.action.clone(), d.tier),
        Gated::Held(h) => (h.action().to_owned(), h.tier()),
    };
    crate::core::access::may_run(state, who, pid, &action, tier)?;
    let held = match gated {
        Gated::Clear(d) if who.scope.ask == AgentAsk::Always && d.tier != Reversibility::Read => {
            let why = CoreError::new(
                codes::APPROVAL_DENIED,
                format!(
                    "The agent {:?} runs every write past the person (its --ask always scope), and nobody could be asked.",
                    who.name
                ),
            );
            gate::Held::by_scope(d, why)
        }
        Gated::Clear(d) => return Ok((d, None)),
        Gated::Held(held) => held,
    };
    ask_person(
        state,
        who,
        req,
        pid,
        seen.state,
        seen.explain,
        held,
        request_id,
    )
    .await
    .map(|(d, g)| (d, Some(g)))
}

#[allow(clippy::too_many_arguments)]
async fn ask_person(
    state: &Arc<AppState>,
    who: &Arc<Agent>,
    req: &ActionRequest,
    pid: u64,
    gate_state: Option<&SubstrateState>,
    explain: &BTreeMap<String, ActionExplain>,
    held: Held,
    request_id: &str,
) -> Result<(Decision, OwnedMutexGuard<()>), CoreError> {
    let settings = &state.settings;
    let hub = &state.hub;
    // The stale-target guard before anyone is asked: nobody should approve an action on
    // something the agent did not see.
    if let Some(capture_id) = &req.expected_capture_id {
        if hub.target_since(pid, capture_id, held.action()) != crate::core::hub::TargetCheck::Same {
            return Err(CoreError::new(codes::STALE_STATE,
                format!("Refused rather than act on something else: the target of {} changed since capture {capture_id}. Read the state again and decide on what is there now.", held.action()),
            )
            .with("expected_capture_id", capture_id.clone()));
        }
    }
    let Some((tab_id, instance_id, tx)) = hub.tab_channel(pid) else {
        // No browser to ask: the refusal stands.
        return Err(held.refusal);
    };

    // The lock before the question: while the person decides, no other action runs on
    // the tab, and the page they look at is the page the action will meet.
    let guard = crate::core::lock::lock_tab(state, pid).await?;

    let approval_id = uuid::Uuid::now_v7().to_string();
    let url = gate_state.and_then(|s| s.context.url.clone());
    let origin = url.as_deref().and_then(crate::core::corrections::origin_of);
    let why = explain.get(held.inherited_from().unwrap_or(held.action()));
    let asked = std::time::SystemTime::now();
    let question = ApprovalQuestion {
        approval_id: approval_id.clone(),
        tab_id,
        pid,
        origin: origin.clone(),
        url: url.clone(),
        action: held.action().to_owned(),
        tier: held.tier(),
        confidence: held.effective_confidence(),
        floor: held.required_confidence(),
        parameters: match crate::core::audit::redact(&req.parameters, held.secret_parameters()) {
            Value::Object(m) => m,
            _ => Map::new(),
        },
        signals: why.map(|w| w.signals.clone()).unwrap_or_default(),
        reason: held.refusal.message.clone(),
        verify_expression: held.verify_expression().map(str::to_owned),
        key_id: who.key_id.clone(),
        agent: Some(who.name.clone()),
        target: outline_target(&held, why),
        asked_at: crate::core::util::rfc3339(asked),
        expires_at: crate::core::util::rfc3339(asked + settings.approval_timeout),
    };

    let (reply, answer) = oneshot::channel();
    hub.questions().lock().insert(
        approval_id.clone(),
        Open {
            question: question.clone(),
            instance_id: instance_id.clone(),
            reply: Some(reply),
        },
    );
    // From here on the question is withdrawn from the browser if this request goes away
    // (the agent hung up) before it is answered.
    let mut open = OpenGuard {
        hub: hub.clone(),
        approval_id: approval_id.clone(),
        instance_id,
        reason: ApprovalClosedReason::Withdrawn,
    };

    let mut rec = audit::base(who, request_id, pid, url.as_deref(), held.action());
    rec.insert("decision".into(), json!("approval_asked"));
    rec.insert("approval_id".into(), json!(approval_id));
    rec.insert(
        "question".into(),
        serde_json::to_value(&question).unwrap_or(Value::Null),
    );
    let _ = state.audit.record(rec, false);
    // A closed connection is not the end: the session's next hello gets the question.
    let _ = tx.send(DaemonMessage::Approval(question.clone())).await;

    let decision = tokio::time::timeout(settings.approval_timeout, answer).await;
    let decision = match decision {
        Ok(Ok(d)) => d,
        // Timed out (or the question vanished, which only a bug could do: fail closed).
        _ => {
            open.reason = ApprovalClosedReason::TimedOut;
            drop(open);
            let mut rec = audit::base(who, request_id, pid, url.as_deref(), held.action());
            rec.insert("decision".into(), json!("approval_timed_out"));
            rec.insert("approval_id".into(), json!(approval_id));
            rec.insert("asked_at".into(), json!(question.asked_at));
            let _ = state.audit.record(rec, false);
            return Err(CoreError::new(codes::APPROVAL_TIMEOUT,
                format!(
                    "{} is under its confidence floor, so nspd asked the person at the browser; nobody answered within {} ms, and nothing was sent. Ask them to watch the browser and retry, or leave this one to them.",
                    held.action(),
                    settings.approval_timeout.as_millis()
                ),
            )
            .with("approval_id", approval_id)
            .with("executed", false));
        }
    };
    open.reason = ApprovalClosedReason::Answered;
    drop(open);
    let mut rec = audit::base(who, request_id, pid, url.as_deref(), held.action());
    rec.insert("decision".into(), json!("approval_answered"));
    rec.insert("approval_id".into(), json!(approval_id));
    rec.insert("answer".into(), json!(decision));
    rec.insert("by".into(), json!("person"));
    rec.insert("asked_at".into(), json!(question.asked_at));
    rec.insert(
        "answered_at".into(),
        json!(crate::core::util::now_rfc3339()),
    );
    let _ = state.audit.record(rec, false);

    match decision {
        ApprovalDecision::Deny => Err(CoreError::new(codes::APPROVAL_DENIED,
            format!(
                "The person at the browser denied {}; nothing was sent. Do not retry it: ask them what they want instead.",
                held.action()
            ),
        )
        .with("approval_id", approval_id)
        .with("executed", false)),
        ApprovalDecision::ApproveOnce | ApprovalDecision::Always => {
            if decision == ApprovalDecision::Always {
                remember_always(state, who, origin.as_deref(), &held, &approval_id);
            }
            // Answered from a service worker that just restarted: its tabs announce
            // themselves again a moment later. Wait for this one (bounded) rather than
            // fail the dispatch on a tab that is only reconnecting.
            wait_attached(hub, pid, crate::core::hub::RECONNECT_GRACE).await;
            // The page may have changed while the person read the card: what they
            // approved must still be what the action acts on.
            if let (Some(before), Ok(now)) = (gate_state, hub.state(pid)) {
                let name = held.inherited_from().unwrap_or(held.action());
                if fingerprint(before, name) != fingerprint(&now, name) {
                    return Err(CoreError::new(codes::STALE_STATE,
                        format!(
                            "The person approved {}, but its target changed on the page while they decided; nothing was sent. Read the state again.",
                            held.action()
                        ),
                    )
                    .with("approval_id", approval_id));
                }
            }
            Ok((held.approve(gate::PersonApproved::given()), guard))
        }
    }
}

/// Returns once tab `pid` has a live connection again, or after `limit`.
async fn wait_attached(hub: &Hub, pid: u64, limit: std::time::Duration) {
    let mut events = hub.subscribe();
    let deadline = tokio::time::Instant::now() + limit;
    while hub.tab_channel(pid).is_none() {
        match tokio::time::timeout_at(deadline, events.recv()).await {
            Err(_) => return,
            Ok(Err(tokio::sync::broadcast::error::RecvError::Closed)) => return,
            // Any event (or a lagged receiver) is a reason to look again.
            Ok(_) => {}
        }
    }
}

/// "Always allow this action on this site": approves, and stores a "trusted" correction
/// from the person for the discovered action on `origin`, so the probe rates it at
/// declared level from then on. A builtin is remembered under the action whose element
/// it aims at; a builtin aimed at nothing the probe classified is approved once and not
/// remembered: "always click anything" is not a wish nspd keeps. Returns what was
/// stored, if anything; the audit log records either way.
pub fn remember_always(
    state: &AppState,
    who: &Agent,
    origin: Option<&str>,
    held: &Held,
    approval_id: &str,
) -> Option<Correction> {
    let action = if held.builtin() {
        held.inherited_from()
    } else {
        Some(held.action())
    };
    let stored = match (origin, action) {
        (Some(origin), Some(action)) => {
            match state
                .corrections
                .add_trusted(origin, action, CorrectionSource::Person)
            {
                Ok(c) => Some(c),
                Err(e) => {
                    tracing::warn!(%origin, %action, error = %e, "could not store the person's \"always allow\"");
                    None
                }
            }
        }
        _ => None,
    };
    let mut rec = Map::new();
    rec.insert("agent".into(), json!(who.name));
    rec.insert("key_id".into(), json!(who.key_id));
    rec.insert("decision".into(), json!("approval_always"));
    rec.insert("approval_id".into(), json!(approval_id));
    rec.insert("origin".into(), json!(origin));
    rec.insert("action".into(), json!(action.unwrap_or(held.action())));
    rec.insert("by".into(), json!("person"));
    rec.insert(
        "correction_id".into(),
        json!(stored.as_ref().map(|c| c.id.clone())),
    );
    let _ = state.audit.record(rec, false);
    stored
}

/// An answer from the extension (`approval_answer`). Taken only from a connection of the
/// browser session the question went to, and only once.
pub fn answer(hub: &Hub, conn: ConnId, approval_id: &str, decision: ApprovalDecision) {
    let Some(instance) = hub.conn_instance(conn) else {
        return;
    };
    let mut open = hub.questions().lock();
    let Some(entry) = open.get_mut(approval_id) else {
        tracing::info!(conn, %approval_id, "an answer to a question that is no longer open; ignored");
        return;
    };
    if entry.instance_id != instance {
        tracing::warn!(conn, %approval_id, "an answer from another browser session; ignored");
        return;
    }
    match entry.reply.take() {
        Some(reply) => {
            let _ = reply.send(decision);
        }
        None => tracing::info!(conn, %approval_id, "a second answer to one question; ignored"),
    }
}

/// The open questions of the browser session of `conn` that nobody answered yet, sent
/// again after its hello (the service worker restarted, or the socket dropped).
pub fn open_questions(hub: &Hub, conn: ConnId) -> Vec<DaemonMessage> {
    let Some(instance) = hub.conn_instance(conn) else {
        return Vec::new();
    };
    hub.questions()
        .lock()
        .values()
        .filter(|o| o.instance_id == instance && o.reply.is_some())
        .map(|o| DaemonMessage::Approval(o.question.clone()))
        .collect()
}

/// Removes an open question when the request is done with it (answered, timed out or
/// dropped) and tells the browser, so every card showing it goes away.
struct OpenGuard {
    hub: Hub,
    approval_id: String,
    instance_id: String,
    reason: ApprovalClosedReason,
}

impl Drop for OpenGuard {
    fn drop(&mut self) {
        self.hub.questions().lock().remove(&self.approval_id);
        let msg = DaemonMessage::ApprovalClosed {
            approval_id: self.approval_id.clone(),
            reason: self.reason,
        };
        for tx in self.hub.instance_senders(&self.instance_id) {
            send_now(&tx, msg.clone());
        }
    }
}

/// Drop cannot await: a full queue (256 messages) loses the notice, and the card then
/// goes when its `expires_at` passes.
fn send_now(tx: &mpsc::Sender<DaemonMessage>, msg: DaemonMessage) {
    if tx.try_send(msg).is_err() {
        tracing::debug!("could not queue approval_closed; the card expires by itself");
    }
}

/// The element the page outlines: the first element the probe bound the action to, or a
/// builtin's selector.
fn outline_target(held: &Held, why: Option<&ActionExplain>) -> Option<String> {
    if let Some(el) = why.and_then(|w| w.elements.first()) {
        return Some(el.selector.clone());
    }
    held.internal_target()
        .and_then(|t| t.strip_prefix("dom:"))
        .map(str::to_owned)
}

/// What an action acts on, for the check after the person's answer.
fn fingerprint(state: &SubstrateState, name: &str) -> Option<(String, String)> {
    state
        .actions
        .get(name)
        .map(|a| (a.internal_target.clone(), a.signature.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_front_door_can_see_what_a_tab_waits_on_until_it_is_answered() {
        let registry = crate::core::hub::questions::Questions::default();
        assert_eq!(registry.waiting_on(7), None);
        let question: ApprovalQuestion = serde_json::from_value(json!({
            "approval_id": "a1", "tab_id": 3, "pid": 7, "action": "zap",
            "tier": "irreversible_write", "confidence": 0.4, "floor": 0.95,
            "reason": "under the floor", "key_id": "k", "asked_at": "2026-12-01T00:00:00Z",
            "expires_at": "2026-12-01T00:01:00Z"
        }))
        .expect("question");
        let (reply, _answer) = oneshot::channel();
        registry.lock().insert(
            "a1".into(),
            Open {
                question,
                instance_id: "i".into(),
                reply: Some(reply),
            },
        );
        assert_eq!(
            registry.waiting_on(7),
            Some(("zap".to_owned(), "2026-12-01T00:01:00Z".to_owned()))
        );
        assert_eq!(registry.waiting_on(8), None);
        // Answered: nothing to wait on any more.
        registry.lock().get_mut("a1").expect("open").reply.take();
        assert_eq!(registry.waiting_on(7), None);
    }

    #[test]
    fn the_request_decides_over_the_config() {
        let mut req: ActionRequest =
            serde_json::from_value(json!({"pid": 1, "action": "x"})).expect("request");
        assert!(asks(AskPerson::BelowFloor, &req));
        assert!(!asks(AskPerson::Never, &req));
        req.approval = Some(ApprovalMode::Ask);
        assert!(asks(AskPerson::Never, &req));
        req.approval = Some(ApprovalMode::Never);
        assert!(!asks(AskPerson::BelowFloor, &req));
    }
}

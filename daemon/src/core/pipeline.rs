//! The action's trip, shared by both doors (the NSP v1 HTTP API, `door::http`, and MCP,
//! `door::mcp`): they differ only in how they decode requests and encode answers.
//! [`run_action`] is the trip as one line of named steps.

use std::sync::Arc;
use std::time::{Duration, Instant};

use nsp_protocol::api::{
    ActionRequest, ActionResponse, VerificationOutcome, VERIFY_TIMEOUT_MS_DEFAULT,
};
use nsp_protocol::channel::{DialogKind, DispatchFailure, DispatchOutcome, PageDialog, Resolution};
use nsp_protocol::{Reversibility, SubstrateState};
use serde_json::{json, Map, Value};

use crate::core::agents::Agent;
use crate::core::app::AppState;
use crate::core::codes;
use crate::core::error::CoreError;
use crate::core::gate::{self, Decision, GateLimits};
use crate::core::hub::{DispatchError, HubError, ResolveError, TargetCheck};
use crate::core::idempotency::{Claim, FirstAnswer};
use crate::core::request::ActionCall;
use crate::core::verification::{self, Polling};
use crate::core::{approvals, audit, lock};
use tokio::sync::OwnedMutexGuard;

/// What [`act`] produced: a new run, or the stored answer of an earlier request with
/// the same idempotency key (success or error, as first given).
#[derive(Debug)]
pub enum Acted {
    Ran(Box<ActionResponse>),
    Replayed(FirstAnswer),
}

pub async fn bounded<T>(
    limit: Duration,
    fut: impl std::future::Future<Output = Result<T, CoreError>>,
) -> Result<T, CoreError> {
    tokio::time::timeout(limit, fut).await.unwrap_or_else(|_| {
        Err(CoreError::new(codes::REQUEST_TIMEOUT,
            format!(
                "The request did not finish within {} ms. If it was an action, read the state before retrying: it may have run.",
                limit.as_millis()
            ),
        ))
    })
}

pub async fn get_state(
    state: &AppState,
    pid: u64,
    fresh: bool,
) -> Result<SubstrateState, CoreError> {
    Ok(if fresh {
        state
            .hub
            .fresh_capture(pid, state.settings.capture_timeout)
            .await?
    } else {
        state.hub.state(pid)?
    })
}

/// Runs a checked action request for tab `pid` once per idempotency key: a repeated
/// key replays the first answer (the step "remember": each answer is kept for its key).
pub async fn act(
    state: &Arc<AppState>,
    who: &Arc<Agent>,
    call: &ActionCall,
    pid: u64,
    idem: Option<String>,
    request_id: &str,
) -> Result<Acted, CoreError> {
    let req = call.request();
    let Some(idem) = idem else {
        return run_action(state, who, req, pid, request_id)
            .await
            .map(|r| Acted::Ran(Box::new(r)));
    };
    // The same key must mean the same request: compare the request and the tab.
    let fingerprint = call.fingerprint(pid);
    match state.idempotency.claim(&who.key_id, &idem, &fingerprint) {
        Claim::Run => {}
        Claim::Replay(first) => return Ok(Acted::Replayed(first)),
        Claim::Conflict => {
            return Err(CoreError::new(codes::IDEMPOTENCY_CONFLICT,
                "A request with this Idempotency-Key is still running. Wait for it, then retry to get its stored answer.",
            ))
        }
        Claim::Reused => {
            return Err(CoreError::new(codes::IDEMPOTENCY_KEY_REUSED,
                "This Idempotency-Key was used for a different request. Use a new key for a new request.",
            ))
        }
    }
    let result = run_action(state, who, req, pid, request_id).await;
    if matches!(&result, Err(e) if e.code == codes::AUDIT_UNAVAILABLE) {
        // Nothing was sent and the message says to retry once the disk is fixed: that
        // retry, with the same key, must run rather than replay this refusal.
        state.idempotency.release(&who.key_id, &idem);
        return result.map(|r| Acted::Ran(Box::new(r)));
    }
    let result = result.map(Arc::new);
    state.idempotency.complete(
        &who.key_id,
        &idem,
        FirstAnswer {
            result: result.clone(),
            request_id: request_id.to_owned(),
        },
    );
    result.map(|r| Acted::Ran(Box::new(Arc::unwrap_or_clone(r))))
}

/// Appends an audit record. A durable one (an irreversible action's: synced to disk) is
/// written on the blocking pool, so the disk's wait does not hold up the other requests
/// and the extension channels on this worker thread; the caller still waits for it.
async fn record_audit(
    state: &Arc<AppState>,
    rec: Map<String, Value>,
    durable: bool,
) -> std::io::Result<()> {
    if !durable {
        return state.audit.record(rec, false);
    }
    let state = state.clone();
    tokio::task::spawn_blocking(move || state.audit.record(rec, true))
        .await
        .unwrap_or_else(|e| Err(std::io::Error::other(e)))
}

/// The action's trip, after the door's steps (the key and the rate limit,
/// [`crate::core::access::guard`]; the request checked, [`crate::core::request`]) and
/// [`act`]'s (the tab resolved, a repeated idempotency key replayed): one line of named
/// steps, each handing the next what it needs. Every refusal and failure is a
/// [`CoreError`]; the door encodes it.
pub async fn run_action(
    state: &Arc<AppState>,
    who: &Arc<Agent>,
    req: &ActionRequest,
    pid: u64,
    request_id: &str,
) -> Result<ActionResponse, CoreError> {
    let trip = Trip {
        state,
        who,
        req,
        pid,
        request_id,
        started: Instant::now(),
    };
    let seen = trip.look().await?;
    let target = trip.resolve_target(&seen).await?;
    let (decision, held_lock) = trip.gate(&seen, target.as_ref()).await?;
    trip.still_the_target(&seen, &decision)?;
    let _lock = trip.lock(held_lock).await?;
    let before = trip.before_dispatch(&seen, &decision).await?;
    let action_id = trip.audit_dispatch(&seen, &decision).await?;
    let (value, dialogs) = trip.dispatch(&seen, &decision, &action_id).await?;
    let (verification, after) = trip.verify(&seen, &decision, before.as_deref()).await;
    let recorded = trip
        .audit_completion(
            &seen,
            &decision,
            &action_id,
            verification.as_ref(),
            &dialogs,
        )
        .await;
    trip.answer(Ran {
        decision,
        action_id,
        value,
        dialogs,
        verification,
        before,
        after,
        recorded,
    })
}

/// One action request on its way, for the steps of [`run_action`].
struct Trip<'a> {
    state: &'a Arc<AppState>,
    /// The agent that asked (its scope was applied at the door and is again at the gate).
    who: &'a Arc<Agent>,
    req: &'a ActionRequest,
    pid: u64,
    request_id: &'a str,
    started: Instant,
}

/// What the gate judges: the tab's state (held to agents' corrections) and the probe's
/// explanations.
struct Seen {
    /// Shared with the hub: the gate reads it, and only agents' corrections copy it.
    state: Option<Arc<SubstrateState>>,
    /// Why there is no state, when there is none (the probe's status and its words):
    /// what a refusal for want of a state says instead of "wait and retry".
    not_ready: Option<HubError>,
    url: Option<String>,
    explain: Arc<std::collections::BTreeMap<String, nsp_protocol::ActionExplain>>,
}

/// What a dispatched action came to, for the answer.
struct Ran {
    decision: Decision,
    action_id: String,
    value: Value,
    dialogs: Vec<PageDialog>,
    verification: Option<VerificationOutcome>,
    before: Option<Arc<SubstrateState>>,
    after: Option<SubstrateState>,
    recorded: bool,
}

impl Trip<'_> {
    /// Step: the state the gate judges (fresh if asked for).
    async fn look(&self) -> Result<Seen, CoreError> {
        let (state, pid) = (self.state, self.pid);
        let mut not_ready = None;
        let gate_state = if self.req.fresh_state {
            Some(Arc::new(
                state
                    .hub
                    .fresh_capture(pid, state.settings.capture_timeout)
                    .await?,
            ))
        } else {
            match state.hub.shared_state(pid) {
                Ok(s) => Some(s),
                Err(e @ HubError::NotReady { .. }) => {
                    not_ready = Some(e);
                    None
                }
                Err(e) => return Err(e.into()),
            }
        };
        // What agents made stricter on this site holds at the gate whatever the probe sent.
        let gate_state = gate_state.map(|mut s| {
            state.corrections.enforce_agents(&mut s);
            s
        });
        Ok(Seen {
            url: gate_state.as_ref().and_then(|s| s.context.url.clone()),
            state: gate_state,
            not_ready,
            explain: state.hub.explain(pid).unwrap_or_default(),
        })
    }

    /// Every refusal before dispatch is audited alike, secrets redacted by their mark.
    fn refused(&self, seen: &Seen, e: CoreError, secret: &[String]) -> CoreError {
        let mut rec = audit::base(
            self.who,
            self.request_id,
            self.pid,
            seen.url.as_deref(),
            &self.req.action,
        );
        rec.insert("decision".into(), json!(format!("refused:{}", e.code)));
        rec.insert(
            "parameters".into(),
            audit::redact(&self.req.parameters, secret),
        );
        // A refusal sends nothing, so a lost line cannot hide an action (and the
        // failure is logged by `record`).
        let _ = self.state.audit.record(rec, false);
        e
    }

    /// Step: a writing builtin aimed by selector is gated by the element the page finds
    /// there.
    async fn resolve_target(&self, seen: &Seen) -> Result<Option<Resolution>, CoreError> {
        let req = self.req;
        let Some(selector) = gate::selector_to_resolve(req, seen.state.as_deref()) else {
            return Ok(None);
        };
        let r = match resolve(self.state, self.pid, selector).await {
            Ok(r) => r,
            Err(e) => {
                let secret = gate::secret_parameters(req, seen.state.as_deref(), None);
                return Err(self.refused(seen, e, &secret));
            }
        };
        if let Err(e) = usable_resolution(&r, &req.action, req.parameters.get("selector")) {
            let resolved = r.element.as_ref();
            let secret = gate::secret_parameters(req, seen.state.as_deref(), resolved);
            return Err(self.refused(seen, e, &secret));
        }
        Ok(Some(r))
    }

    /// Step: the gate, with the person in it: an action only its confidence floor
    /// refuses may be held and put to the person ([`crate::core::approvals`]); then their
    /// answer releases it, with the tab's lock.
    async fn gate(
        &self,
        seen: &Seen,
        target: Option<&Resolution>,
    ) -> Result<(Decision, Option<OwnedMutexGuard<()>>), CoreError> {
        let resolved = target.and_then(|r| r.element.as_ref());
        let limits = GateLimits {
            verify_expression_max_bytes: self.state.settings.verify_expression_max_bytes,
        };
        let seen_by_gate = gate::Seen {
            state: seen.state.as_deref(),
            explain: &seen.explain,
            resolved,
        };
        if self.req.action == "navigate" {
            if let Some(url) = self.req.parameters.get("url").and_then(Value::as_str) {
                crate::core::access::may_go(self.who, url)
                    .map_err(|e| self.refused(seen, e, &[]))?;
            }
        }
        approvals::check(
            self.state,
            self.who,
            self.req,
            self.pid,
            seen_by_gate,
            limits,
            self.request_id,
        )
        .await
        .map_err(|e| {
            // Refused for want of a state: say why the tab has none (a probe that failed
            // on the page is not cured by waiting).
            let e = match &seen.not_ready {
                Some(why) if e.code == codes::PROBE_NOT_READY => why.clone().into(),
                _ => e,
            };
            let secret = gate::secret_parameters(self.req, seen.state.as_deref(), resolved);
            self.refused(seen, e, &secret)
        })
    }

    /// Step 8 of the gate: the stale-target guard.
    fn still_the_target(&self, seen: &Seen, decision: &Decision) -> Result<(), CoreError> {
        let Some(capture_id) = &self.req.expected_capture_id else {
            return Ok(());
        };
        let check = self
            .state
            .hub
            .target_since(self.pid, capture_id, &decision.action);
        if check == TargetCheck::Same {
            return Ok(());
        }
        let why = match check {
            TargetCheck::UnknownCapture => {
                format!("capture {capture_id} is not one of the tab's recent captures")
            }
            _ => format!(
                "the target of {} changed since capture {capture_id}",
                decision.action
            ),
        };
        Err(CoreError::new(codes::STALE_STATE,
            format!("Refused rather than act on something else: {why}. Read the state again and decide on what is there now."),
        )
        .with("expected_capture_id", capture_id.clone())
        .with("current_capture_id", seen.state.as_ref().map(|s| s.capture_id.clone())))
    }

    /// Step 9: one action at a time per tab. (An action the person approved holds the
    /// lock since before they were asked.)
    async fn lock(
        &self,
        held: Option<OwnedMutexGuard<()>>,
    ) -> Result<OwnedMutexGuard<()>, CoreError> {
        match held {
            Some(guard) => Ok(guard),
            None => lock::lock_tab(self.state, self.pid).await,
        }
    }

    /// Step: the capture just before dispatch, for prev.* and changed(), and the gate
    /// again on it: what is dispatched must be what was gated. The page may have
    /// swapped the control, its label or the row between the two.
    async fn before_dispatch(
        &self,
        seen: &Seen,
        decision: &Decision,
    ) -> Result<Option<Arc<SubstrateState>>, CoreError> {
        let (state, pid) = (self.state, self.pid);
        // Revoked while it waited for the lock or the person: nothing is sent.
        crate::core::access::still_current(state, self.who)
            .map_err(|e| self.refused(seen, e, &decision.secret_parameters))?;
        if decision.expression.is_none() && decision.tier == Reversibility::Read {
            // A read without an expression: no verification and no state after it, so
            // no before-state either (it would be a second copy of the whole state per
            // read). The dispatch still carries what the gate saw, which the page's
            // dispatcher compares with the live element.
            return Ok(None);
        }
        let before = match state
            .hub
            .fresh_capture(pid, state.settings.capture_timeout)
            .await
        {
            Ok(s) => Some(Arc::new(s)),
            Err(_) => state.hub.shared_state(pid).ok(),
        };
        if let Some(before) = &before {
            // Held to the same agents' corrections as the gate's state (copied only if
            // one applies).
            let mut now = before.clone();
            state.corrections.enforce_agents(&mut now);
            let explain_now = state.hub.explain(pid).unwrap_or_default();
            if let Err(e) = gate::regate(decision, &now, &explain_now) {
                return Err(self.refused(seen, e, &decision.secret_parameters));
            }
        }
        Ok(before)
    }

    fn irreversible(decision: &Decision) -> bool {
        decision.tier == Reversibility::IrreversibleWrite
    }

    /// Step: the audit record of the dispatch. Irreversible actions reach the disk
    /// before the page sees them, or not at all. Returns the new action id.
    async fn audit_dispatch(&self, seen: &Seen, decision: &Decision) -> Result<String, CoreError> {
        let state = self.state;
        let action_id = uuid::Uuid::now_v7().to_string();
        let mut rec = audit::base(
            self.who,
            self.request_id,
            self.pid,
            seen.url.as_deref(),
            &decision.action,
        );
        rec.insert("action_id".into(), json!(action_id));
        rec.insert("tier".into(), json!(decision.tier.as_str()));
        rec.insert(
            "effective_confidence".into(),
            json!(decision.effective_confidence),
        );
        rec.insert("decision".into(), json!("dispatched"));
        rec.insert(
            "verify_expression".into(),
            json!(decision.expression.as_ref().map(|(s, _)| s)),
        );
        rec.insert(
            "parameters".into(),
            audit::redact(&self.req.parameters, &decision.secret_parameters),
        );
        let irreversible = Self::irreversible(decision);
        if let Err(e) = record_audit(state, rec, irreversible).await {
            if irreversible {
                return Err(CoreError::new(codes::AUDIT_UNAVAILABLE,
                    format!(
                        "{} was not sent: it is an irreversible write and its audit record could not be written to {} ({e}). Free disk space or fix the permissions of the data dir, then retry.",
                        decision.action,
                        state.audit.path().display()
                    ),
                )
                .with("action_id", action_id.clone())
                .with("executed", false));
            }
        }
        Ok(action_id)
    }

    /// The completion record (written with `record_audit`; `false` when it did not
    /// reach the log, which the answer then says: the action itself happened or not
    /// regardless).
    fn completion(
        &self,
        seen: &Seen,
        decision: &Decision,
        action_id: &str,
        result: &str,
        verification: Option<&VerificationOutcome>,
        dialogs: &[PageDialog],
    ) -> Map<String, Value> {
        let mut rec = audit::base(
            self.who,
            self.request_id,
            self.pid,
            seen.url.as_deref(),
            &decision.action,
        );
        rec.insert("action_id".into(), json!(action_id));
        rec.insert("decision".into(), json!("completed"));
        rec.insert("result".into(), json!(result));
        if !dialogs.is_empty() {
            rec.insert("dialogs".into(), json!(dialogs));
        }
        rec.insert(
            "verification".into(),
            json!(verification.map(|v| json!({"passed": v.passed, "explanation": v.explanation}))),
        );
        rec
    }

    /// Step: the dispatch, through the hub, of the cleared decision. A failure is
    /// audited as the action's completion.
    async fn dispatch(
        &self,
        seen: &Seen,
        decision: &Decision,
        action_id: &str,
    ) -> Result<(Value, Vec<PageDialog>), CoreError> {
        let state = self.state;
        let irreversible = Self::irreversible(decision);
        let outcome = state
            .hub
            .dispatch(
                self.pid,
                action_id.to_owned(),
                decision.cleared(),
                state.settings.action_timeout,
            )
            .await;
        let (value, dialogs) = match outcome {
            Ok(DispatchOutcome::Done { value, dialogs }) => (value, dialogs),
            Ok(DispatchOutcome::Failed { code, message }) => {
                let rec = self.completion(seen, decision, action_id, "failed", None, &[]);
                let recorded = record_audit(state, rec, irreversible).await.is_ok();
                return Err(unrecorded(
                    action_failed(code, &message).with("action_id", action_id),
                    recorded,
                ));
            }
            Err(e) => {
                let result = match e {
                    DispatchError::Detached => "not_sent",
                    DispatchError::Timeout(_) => "timeout",
                    DispatchError::OutcomeUnknown => "outcome_unknown",
                };
                let rec = self.completion(seen, decision, action_id, result, None, &[]);
                let recorded = record_audit(state, rec, irreversible).await.is_ok();
                return Err(unrecorded(
                    dispatch_error(e, self.pid).with("action_id", action_id),
                    recorded,
                ));
            }
        };
        if !decision.accepts_confirm()
            && dialogs
                .iter()
                .any(|x| x.kind == DialogKind::Confirm && x.accepted)
        {
            // The extension answers yes only when told to; this one did not keep to that.
            tracing::warn!(action = %decision.action, "the extension reports a confirm() it accepted without being allowed to");
        }
        Ok((value, dialogs))
    }

    /// Step: the verification (polling the expression), or for a write without one the
    /// state after it.
    async fn verify(
        &self,
        seen: &Seen,
        decision: &Decision,
        before: Option<&SubstrateState>,
    ) -> (Option<VerificationOutcome>, Option<SubstrateState>) {
        let (state, pid, settings) = (self.state, self.pid, &self.state.settings);
        match &decision.expression {
            Some((source, expr)) => match before.or(seen.state.as_deref()) {
                Some(prev) => {
                    let polling = Polling {
                        initial_wait: settings.post_action_wait,
                        interval: settings.poll_interval,
                        timeout: Duration::from_millis(
                            self.req
                                .verify_timeout_ms
                                .unwrap_or(VERIFY_TIMEOUT_MS_DEFAULT),
                        ),
                        capture_timeout: settings.capture_timeout,
                    };
                    let verified =
                        verification::verify(&state.hub, pid, source, expr, prev, polling).await;
                    (Some(verified.outcome), verified.last_state)
                }
                None => (None, None),
            },
            None if decision.tier != Reversibility::Read => {
                tokio::time::sleep(settings.post_action_wait).await;
                let after = state
                    .hub
                    .fresh_capture(pid, settings.capture_timeout)
                    .await
                    .ok();
                (None, after)
            }
            None => (None, None),
        }
    }

    /// Step: the audit record of the completion; whether it reached the log.
    async fn audit_completion(
        &self,
        seen: &Seen,
        decision: &Decision,
        action_id: &str,
        verification: Option<&VerificationOutcome>,
        dialogs: &[PageDialog],
    ) -> bool {
        let result = match verification {
            Some(v) if !v.passed => "verification_failed",
            _ => "done",
        };
        let host = seen
            .url
            .as_deref()
            .and_then(crate::core::util::host_of)
            .unwrap_or("?");
        self.state.last_actions.note(
            &self.who.name,
            format!("{} on {host}: {result}", decision.action),
        );
        let rec = self.completion(seen, decision, action_id, result, verification, dialogs);
        record_audit(self.state, rec, Self::irreversible(decision))
            .await
            .is_ok()
    }

    /// Step: the answer: a verification that did not hold is an error (the action
    /// happened), anything else the response with what changed.
    fn answer(&self, ran: Ran) -> Result<ActionResponse, CoreError> {
        let Ran {
            decision,
            action_id,
            value,
            dialogs,
            verification,
            before,
            after,
            recorded,
        } = ran;
        if let Some(v) = verification.as_ref().filter(|v| !v.passed) {
            let offered = newly_offered(before.as_deref(), after.as_ref());
            return Err(unrecorded(CoreError::new(codes::VERIFICATION_FAILED,
                format!(
                    "{} ran, but the verify_expression was still false after {} ms: {}{offered} Read the state before doing anything else: the action happened.",
                    decision.action, v.latency_ms, v.explanation
                ),
            )
            .with("verification", serde_json::to_value(v).unwrap_or(Value::Null))
            .with("action_id", action_id.clone())
            .with("executed", true), recorded));
        }
        let mut message = success_message(&decision, verification.as_ref(), &dialogs);
        if !recorded {
            message.push_str(&format!(
                " The audit log could not record its completion (see nspd's log; free disk space or fix the data dir): {} holds only that it was dispatched.",
                self.state.audit.path().display()
            ));
        }
        let state_delta = match (before.as_deref(), &after) {
            (Some(before), Some(after)) => {
                let mut delta = Map::new();
                for change in nsp_verify::changed_fields(before, after) {
                    delta.insert(
                        change.path,
                        json!({"before": change.before, "after": change.after}),
                    );
                }
                Some(delta)
            }
            _ => None,
        };
        Ok(ActionResponse {
            success: true,
            action_id,
            action: decision.action.clone(),
            executed: true,
            runtime: "v8".into(),
            total_latency_ms: self.started.elapsed().as_millis() as u64,
            message,
            verification,
            updated_state: after,
            state_delta,
            raw_return: value,
            dialogs,
        })
    }
}

/// The actions the last state offers that the one before the action did not (a
/// confirmation the page opened instead of doing the deed: changedetection.io's bulk
/// "Delete" asks in a dialog of its own), as " The page now offers: name (tier 0.98),
/// …." for a failed verification's message (tier and confidence as the model view
/// writes them); "" when there are none.
fn newly_offered(before: Option<&SubstrateState>, after: Option<&SubstrateState>) -> String {
    const SHOWN: usize = 5;
    let (Some(before), Some(after)) = (before, after) else {
        return String::new();
    };
    let new: Vec<String> = after
        .actions
        .iter()
        .filter(|(name, _)| !before.actions.contains_key(*name))
        .take(SHOWN)
        .map(|(name, a)| {
            format!(
                "{name} ({} {})",
                crate::core::model_view::tier_word(a.reversibility),
                crate::core::model_view::number(a.confidence)
            )
        })
        .collect();
    if new.is_empty() {
        String::new()
    } else {
        format!(" The page now offers: {}.", new.join(", "))
    }
}

/// `e`, saying when its completion did not reach the audit log.
fn unrecorded(e: CoreError, recorded: bool) -> CoreError {
    if recorded {
        e
    } else {
        e.with("audit_completion_recorded", false)
    }
}

/// Asks the page which element `selector` finds, for the gate. An extension that does
/// not answer (one older than `resolve` ignores it) gets a refusal, never a guess.
async fn resolve(state: &AppState, pid: u64, selector: &str) -> Result<Resolution, CoreError> {
    let timeout = state.settings.capture_timeout;
    state
        .hub
        .resolve_selector(pid, selector, timeout)
        .await
        .map_err(|e| match e {
            ResolveError::Detached => dispatch_error(DispatchError::Detached, pid),
            ResolveError::Timeout(t) => CoreError::new(
                codes::ACTION_FAILED,
                format!(
                    "The action was not sent: nspd gates a builtin aimed by selector by the element the page finds there, and the page did not say which element {selector:?} finds within {} ms (an extension older than this nspd does not know how to). Update the extension, or call a discovered action instead.",
                    t.as_millis()
                ),
            )
            .with("failure", "unsupported")
            .with("executed", false),
        })
}

/// Whether what a selector found can be acted on: exactly one element, which a person
/// can see and reach.
fn usable_resolution(
    r: &Resolution,
    action: &str,
    selector: Option<&Value>,
) -> Result<(), CoreError> {
    let selector = selector.and_then(Value::as_str).unwrap_or_default();
    let bad = |what: String| {
        CoreError::new(
            codes::INVALID_PARAMETERS,
            format!(
                "{action} was not sent: {what}. See the action's parameters in the tab's state."
            ),
        )
        .with("field", "parameters.selector")
    };
    if let Some(error) = &r.error {
        return Err(bad(format!(
            "the page cannot use the selector {selector:?} ({error})"
        )));
    }
    let element = match (r.count, &r.element) {
        (1, Some(element)) => element,
        (0, _) => return Err(bad(format!("the selector {selector:?} matches no element"))),
        (1, None) => {
            return Err(bad(format!(
                "the page did not say which element the selector {selector:?} finds"
            )))
        }
        (n, _) => {
            return Err(bad(format!(
                "the selector {selector:?} matches {n} elements, and NSP acts only on a selector that finds exactly one; use the internal_target of a discovered action, or a more specific selector"
            ))
            .with("matches", n))
        }
    };
    if !element.perceivable {
        return Err(action_failed(
            DispatchFailure::TargetHidden,
            &format!(
                "{action} was not sent: the element {selector:?} finds ({} {:?}) is not one a person can see or reach.",
                crate::core::util::clip(&element.tag, 20),
                crate::core::util::clip(&element.label, 80)
            ),
        )
        .with("executed", false));
    }
    Ok(())
}

fn success_message(
    d: &Decision,
    v: Option<&VerificationOutcome>,
    dialogs: &[PageDialog],
) -> String {
    let via = d
        .inherited_from
        .as_ref()
        .map(|a| format!(" (gated as {a})"))
        .unwrap_or_default();
    // An accepted confirm() is said in words: it is what NSP agreed to on the agent's
    // behalf.
    let asked: String = dialogs
        .iter()
        .filter(|x| x.kind == DialogKind::Confirm && x.accepted)
        .map(|x| {
            format!(
                " NSP answered yes to the page's confirm(“{}”), as this action's own confirmation.",
                x.message
            )
        })
        .collect();
    match v {
        Some(v) => format!(
            "{}{via} ran and was verified: {}.{asked}",
            d.action,
            v.explanation.trim_end_matches('.')
        ),
        None => format!("{}{via} ran.{asked}", d.action),
    }
}

/// Polls `expression` on tab `pid` until it holds or `timeout` passes (`POST /verify`).
pub async fn verify(
    state: &AppState,
    pid: u64,
    expression: &str,
    timeout: Duration,
) -> Result<VerificationOutcome, CoreError> {
    let limits = GateLimits {
        verify_expression_max_bytes: state.settings.verify_expression_max_bytes,
    };
    if expression.trim().is_empty() {
        return Err(
            CoreError::new(codes::INVALID_VERIFY_EXPRESSION, "\"expression\" is empty.")
                .with("field", "expression"),
        );
    }
    let expr =
        gate::parse_expression(expression, limits).map_err(|e| e.with("field", "expression"))?;
    let prev = state.hub.state(pid)?;
    let polling = Polling {
        initial_wait: Duration::ZERO,
        interval: state.settings.poll_interval,
        timeout,
        capture_timeout: state.settings.capture_timeout,
    };
    let verified = verification::verify(&state.hub, pid, expression, &expr, &prev, polling).await;
    Ok(verified.outcome)
}

fn action_failed(code: DispatchFailure, message: &str) -> CoreError {
    let code_str = serde_json::to_value(code)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    let advice = match code {
        DispatchFailure::TargetNotFound => "Nothing on the page matches. Read the current state and use a selector or value from it.",
        DispatchFailure::TargetChanged => "The page changed under the action, so it was not run. Read the state again before retrying.",
        DispatchFailure::Threw => "The page threw while running the action. Read the state to see what happened.",
        DispatchFailure::Duplicate => "This action id already ran once and was not run again.",
        DispatchFailure::NoProbe => "The tab's probe is not running. Reload the page or wait for it to load.",
        DispatchFailure::BadParameters => "Fix the parameters as the message says.",
        DispatchFailure::Unsupported => "This extension version does not support the action.",
        DispatchFailure::TargetHidden => "A person could not see or reach the element right then (hidden, covered, off-screen or disabled), so NSP did not act on it. Read the state again: NSP offers only what a person can see.",
        DispatchFailure::DialogDeclined => {
            "NSP answers yes to a page's confirmation only for an irreversible_write sent with a verify_expression; the probe now rates this control irreversible_write for the rest of the page's life. Read the state before anything else."
        }
    };
    CoreError::new(
        codes::ACTION_FAILED,
        format!("The action did not complete: {message} {advice}"),
    )
    .with("failure", code_str)
}

fn dispatch_error(err: DispatchError, pid: u64) -> CoreError {
    match err {
        DispatchError::Detached => CoreError::new(codes::PROBE_DETACHED,
            format!("The probe of tab {pid} is not connected, so the action was not sent. List tabs again with GET /substrate/v1/apps."),
        ),
        DispatchError::Timeout(t) => CoreError::new(codes::PROBE_TIMEOUT,
            format!(
                "The page did not answer within {} ms. The action may or may not have happened; nspd did not retry. Read the state before deciding anything.",
                t.as_millis()
            ),
        ),
        DispatchError::OutcomeUnknown => CoreError::new(codes::OUTCOME_UNKNOWN,
            "The connection to the page dropped after the action was sent and before it answered: it may or may not have happened. nspd did not retry. Read the state to find out.",
        ),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::core::config::Settings;

    /// An AppState on a temporary data dir, with `actions_per_sec`.
    pub(crate) fn state(
        dir: &std::path::Path,
        require_key: bool,
        actions_per_sec: u32,
    ) -> AppState {
        let mut settings = Settings::new(dir.to_owned());
        settings.require_key = require_key;
        settings.actions_per_sec = actions_per_sec;
        let key = crate::core::auth::AgentKey::load_or_create(dir).expect("key");
        AppState {
            hub: crate::core::hub::Hub::new(),
            key_id: key.id(),
            agents: crate::core::agents::Agents::open(dir, &key).expect("agents"),
            owners: crate::core::owners::Owners::open(dir),
            leases: crate::core::leases::Leases::default(),
            last_actions: Default::default(),
            key,
            local_addr: "127.0.0.1:7842".parse().expect("addr"),
            audit: std::sync::Arc::new(crate::core::audit::AuditLog::open(dir).expect("audit")),
            idempotency: crate::core::idempotency::Store::default(),
            limits: crate::core::ratelimit::Limits::new(
                settings.actions_per_sec,
                settings.state_reads_per_sec,
            ),
            watchers: std::sync::atomic::AtomicUsize::new(0),
            corrections: crate::core::corrections::Corrections::open(dir).expect("corrections"),
            settings,
        }
    }

    fn with_actions(actions: &[(&str, Reversibility, f64)]) -> SubstrateState {
        let mut s: SubstrateState = serde_json::from_value(json!({
            "pid": 1, "app_id": "a", "app_name": "A", "runtime": "v8", "confidence": 1.0,
            "capture_id": "c", "schema_version": "1.0.0", "captured_at": "2026-01-01T00:00:00Z",
            "context": {"url": "http://127.0.0.1/", "location": null, "view": null, "window_title": null, "window_id": null},
            "objects": {}, "actions": {},
            "probe_metadata": {"capture_latency_ms": 0.0, "labeling_latency_ms": 0.0, "total_latency_ms": 0.0, "raw_object_count": 0, "filtered_object_count": 0, "cache_hit": false, "probe_tier": null}
        }))
        .expect("state");
        for (name, tier, confidence) in actions {
            s.actions.insert(
                (*name).to_owned(),
                serde_json::from_value(json!({"signature": "fn() -> bool", "reversibility": tier,
                    "description": "", "confidence": confidence, "internal_target": "dom:#x", "parameters": []}))
                .expect("action"),
            );
        }
        s
    }

    /// A bulk "Delete" that opens the page's own confirmation: the failed verification
    /// names what the page offers now that it did not before, tier and confidence cut
    /// as the model view cuts them.
    #[test]
    fn a_failed_verification_names_the_actions_the_page_now_offers() {
        use Reversibility::{IrreversibleWrite, Read};
        let before = with_actions(&[("delete", IrreversibleWrite, 0.97), ("search", Read, 0.95)]);
        let after = with_actions(&[
            ("cancel", Read, 0.97),
            ("delete", IrreversibleWrite, 0.97),
            ("delete_delete_watches", IrreversibleWrite, 0.9849),
            ("search", Read, 0.95),
        ]);
        assert_eq!(
            newly_offered(Some(&before), Some(&after)),
            " The page now offers: cancel (read 0.97), delete_delete_watches (irreversible 0.98)."
        );
        assert_eq!(newly_offered(Some(&before), Some(&before)), "");
        assert_eq!(newly_offered(None, Some(&after)), "");
    }
}

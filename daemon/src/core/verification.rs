//! The verification loop: wait, capture fresh state, evaluate, poll until the
//! expression holds or the timeout passes. `/action` and `/verify` both use it.

use std::time::{Duration, Instant};

use nsp_protocol::api::VerificationOutcome;
use nsp_protocol::SubstrateState;

use crate::core::hub::Hub;

/// How to poll.
#[derive(Debug, Clone, Copy)]
pub struct Polling {
    /// Wait before the first capture (lets the page react).
    pub initial_wait: Duration,
    pub interval: Duration,
    pub timeout: Duration,
    /// Bound on one fresh capture.
    pub capture_timeout: Duration,
}

/// The outcome and the last state it was evaluated against.
#[derive(Debug)]
pub struct Verified {
    pub outcome: VerificationOutcome,
    pub last_state: Option<SubstrateState>,
}

/// Evaluates `expr` against fresh captures of tab `pid` until it is true or the
/// timeout passes. `prev` is the capture taken just before the action (for `prev.*`,
/// `changed()` and `changed_fields`).
pub async fn verify(
    hub: &Hub,
    pid: u64,
    source: &str,
    expr: &nsp_verify::Expr,
    prev: &SubstrateState,
    polling: Polling,
) -> Verified {
    let started = Instant::now();
    let deadline = started + polling.timeout;
    tokio::time::sleep(polling.initial_wait.min(polling.timeout)).await;
    let mut cycles = 0u32;
    let mut last: Option<(SubstrateState, nsp_verify::Evaluation)> = None;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        // A fresh capture when the page answers in time; else the newest one known
        // (a busy page still gets evaluated on what it last reported).
        let state = match hub
            .fresh_capture(
                pid,
                polling
                    .capture_timeout
                    .min(left.max(Duration::from_millis(50))),
            )
            .await
        {
            Ok(state) => Some(state),
            Err(_) => hub.state(pid).ok(),
        };
        if let Some(state) = state {
            cycles += 1;
            let evaluation = nsp_verify::evaluate(expr, &state, Some(prev));
            let passed = evaluation.passed;
            last = Some((state, evaluation));
            if passed {
                break;
            }
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        tokio::time::sleep(polling.interval.min(left)).await;
    }
    let latency_ms = started.elapsed().as_millis() as u64;
    match last {
        Some((state, evaluation)) => Verified {
            outcome: VerificationOutcome {
                passed: evaluation.passed,
                expression: source.to_owned(),
                computed_value: evaluation.value,
                explanation: if evaluation.passed {
                    evaluation.explanation
                } else {
                    format!(
                        "still false after {} ms and {cycles} capture(s): {}",
                        latency_ms, evaluation.explanation
                    )
                },
                latency_ms,
                poll_cycles: cycles,
                changed_fields: nsp_verify::changed_fields(prev, &state),
            },
            last_state: Some(state),
        },
        None => Verified {
            outcome: VerificationOutcome {
                passed: false,
                expression: source.to_owned(),
                computed_value: serde_json::Value::Null,
                explanation: format!("no state could be captured from the tab within {latency_ms} ms, so nothing was evaluated"),
                latency_ms,
                poll_cycles: 0,
                changed_fields: Vec::new(),
            },
            last_state: None,
        },
    }
}

//! Scoring: from weighed signals to a tier and a confidence, by the safety rule. The
//! one place where evidence becomes a number (see the module comment of
//! [`super`] for what the numbers mean).

use nsp_protocol::Reversibility::{self, IrreversibleWrite, Read, ReversibleWrite};

use super::signals::{Binding, Signal, Vote, Weighed};

/// How far a lower tier must lead the irreversible score to be chosen over it.
pub const MARGIN: f64 = 1.0;
/// How far `read` must lead the reversible score to be chosen over it.
pub const MARGIN_WRITE: f64 = 0.5;
/// The most an inferred action may claim: page evidence is never proof.
pub const MAX_INFERRED: f64 = 0.98;
/// A page's own declaration: the binding and tier are the page author's word.
pub const DECLARED: f64 = 0.99;
/// What a nat of evidence is worth in the confidence: the scores are multiplied by this
/// before the softmax (a temperature of 0.8). The tier and the safety rule's margins
/// use the raw scores; only the probability is sharpened. Measured, not chosen: with the
/// raw softmax, the 214 actions of both corpora it scored in [0.80, 0.95) had the right
/// tier 214 times (Wilson 95 % lower bound 98.2 %), far above what they claimed; with
/// 1.25 every bucket still holds its floor (`probe-wasm/tests/corpus.rs`) and a label
/// that opens with a word that rarely means anything else ("Delete", "Send"), with
/// nothing against it, reaches 0.95.
pub const SHARPNESS: f64 = 1.25;

/// The classifier's answer, with its reasons.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub tier: Reversibility,
    pub confidence: f64,
    /// Each signal in words with its weight, for `--explain`.
    pub signals: Vec<String>,
    pub tier_reason: String,
    pub confidence_reason: String,
}

/// Collects the signals of one action.
#[derive(Clone)]
pub(super) struct Tally {
    pub(super) weighed: Vec<Weighed>,
    pub(super) bindings: Vec<Binding>,
}

impl Tally {
    pub(super) fn new() -> Tally {
        Tally {
            weighed: Vec::new(),
            bindings: Vec::new(),
        }
    }

    /// Adds `signal`, voting the way the table fixes for it.
    pub(super) fn add(&mut self, signal: Signal, detail: impl Into<String>) {
        debug_assert!(signal.fixed_vote().is_some(), "{signal:?} votes as named");
        // A signal without a fixed vote never comes here; were it to, it counts for the
        // stricter tier.
        let vote = signal.fixed_vote().unwrap_or(Vote::For(IrreversibleWrite));
        self.add_vote(signal, vote, detail);
    }

    /// Adds `signal` voting `vote`: for the signals whose tier the evidence names.
    pub(super) fn add_vote(&mut self, signal: Signal, vote: Vote, detail: impl Into<String>) {
        self.weighed.push(Weighed {
            signal,
            vote,
            detail: detail.into(),
        });
    }
}

/// The confidence of an action raised to `irreversible_write` because the page asked
/// `confirm()` when it was dispatched: [`Signal::ConfirmSeen`] alone against two silent
/// tiers (the earlier evidence pointed elsewhere, so it is not counted for). About 0.91:
/// below the irreversible floor, so only a declaration or a person lets an agent go on.
pub fn raised_by_confirm() -> f64 {
    alone(Signal::ConfirmSeen)
}

/// The probability a signal with a fixed vote gives its tier when it alone is weighed,
/// against tiers with no evidence: the softmax of [`decide`] over one signal.
pub fn alone(signal: Signal) -> f64 {
    let vote = signal.fixed_vote().unwrap_or(Vote::For(IrreversibleWrite));
    let tier = match vote {
        Vote::For(t) | Vote::Against(t) => t,
    };
    let score = scores(&[Weighed {
        signal,
        vote,
        detail: String::new(),
    }]);
    softmax(&score, tier as usize)
}

/// Each tier's score: the weights voting for it less those voting against it.
fn scores(weighed: &[Weighed]) -> [f64; 3] {
    let mut score = [0.0f64; 3];
    for w in weighed {
        let weight = w.signal.weight();
        match w.vote {
            Vote::For(tier) => score[tier as usize] += weight,
            Vote::Against(tier) => score[tier as usize] -= weight,
        }
    }
    score
}

/// `exp(k·score[i]) / Σ exp(k·score[t])`, with `k` = [`SHARPNESS`].
fn softmax(score: &[f64; 3], i: usize) -> f64 {
    let norm: f64 = score.iter().map(|s| (SHARPNESS * s).exp()).sum();
    (SHARPNESS * score[i]).exp() / norm
}

/// Scores, the tier by the safety rule (and at least `at_least`, for the reason given),
/// and the confidence: the softmax probability of the tier chosen.
pub(super) fn decide(
    t: &Tally,
    declared: bool,
    at_least: Option<(Reversibility, &str)>,
) -> Verdict {
    const TIERS: [Reversibility; 3] = [Read, ReversibleWrite, IrreversibleWrite];
    let score = scores(&t.weighed);
    // The best score, ties to the stricter tier.
    let mut best = 2;
    for i in [1, 0] {
        if score[i] > score[best] {
            best = i;
        }
    }
    let mut rule = None;
    if best < 2 && score[2] > 0.0 && score[best] - score[2] < MARGIN {
        rule = Some(format!(
            "the evidence for {} does not beat irreversible_write's by {MARGIN}: the stricter tier wins",
            TIERS[best].as_str()
        ));
        best = 2;
    } else if best == 0 && score[1] > 0.0 && score[0] - score[1] < MARGIN_WRITE {
        rule = Some(format!(
            "the evidence for read does not beat reversible_write's by {MARGIN_WRITE}: the stricter tier wins"
        ));
        best = 1;
    }
    if let Some((floor, why)) = at_least.filter(|(f, _)| (*f as usize) > best) {
        rule = Some(format!("{} at least: {why}", floor.as_str()));
        best = floor as usize;
    }
    let tier = TIERS[best];
    let p_tier = softmax(&score, best);
    let p_binding: f64 = t.bindings.iter().map(|b| b.probability()).product();
    let cap = if declared { DECLARED } else { MAX_INFERRED };
    // max/min, not clamp: clamp with a non-constant bound keeps a panic message that
    // formats floats, kilobytes in the wasm.
    let confidence = (p_tier * p_binding).max(0.0).min(cap);

    let mut signals: Vec<String> = t.weighed.iter().map(Weighed::line).collect();
    for b in &t.bindings {
        signals.push(format!(
            "binding (x{:.2}): {}",
            b.probability(),
            b.describe()
        ));
    }
    signals.push(format!(
        "scores: read {:.2}, reversible_write {:.2}, irreversible_write {:.2} -> P({}) = {:.3}",
        score[0],
        score[1],
        score[2],
        tier.as_str(),
        p_tier
    ));
    if let Some(r) = &rule {
        signals.push(r.clone());
    }
    // The reason: the heaviest signal for the chosen tier.
    let top = t
        .weighed
        .iter()
        .filter(|w| w.vote == Vote::For(tier))
        .max_by(|a, b| a.signal.weight().total_cmp(&b.signal.weight()));
    let tier_reason = match (top, &rule) {
        (_, Some(r)) => r.clone(),
        (Some(w), None) => w.detail.clone(),
        (None, None) => "nothing points elsewhere".to_owned(),
    };
    Verdict {
        tier,
        confidence,
        signals,
        tier_reason,
        confidence_reason: confidence_reason(confidence, declared),
    }
}

fn confidence_reason(confidence: f64, declared: bool) -> String {
    if declared && confidence >= 0.98 {
        "declared by the page itself".into()
    } else if confidence >= 0.95 {
        "strong, consistent evidence".into()
    } else if confidence >= 0.8 {
        "good evidence with some room for doubt".into()
    } else if confidence >= 0.6 {
        "weak or conflicting evidence: the stricter reading was taken".into()
    } else {
        "a guess: little on the page says what this does".into()
    }
}

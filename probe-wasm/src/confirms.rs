//! Evidence from dispatch: a control that raised `confirm()` when NSP dispatched an
//! action to it (and NSP declined, because the action was not an irreversible write) is
//! treated as irreversible for the rest of the page's life. The content script lists such
//! controls in every snapshot (`PageSnapshot::confirmed_controls`); this pass runs after
//! every source has produced its actions and raises each action bound to one of them.

use nsp_protocol::snapshot::ConfirmSeen;
use nsp_protocol::Reversibility;

use crate::classify::{raised_by_confirm, Signal, Vote, Weighed};
use crate::found::Found;
use crate::page::Page;
use crate::text::{clip, MAX_DESCRIPTION_LEN};

/// The most characters of the page's question quoted in an explanation.
const QUOTE_LEN: usize = 120;

/// Raises every action bound to a control in `seen` to `irreversible_write`, and says
/// why in its explanation and description. Actions already irreversible keep their
/// confidence and gain the signal.
pub fn raise(page: &Page<'_>, seen: &[ConfirmSeen], found: &mut [Found]) {
    if seen.is_empty() {
        return;
    }
    for f in found.iter_mut() {
        let hit = seen.iter().find(|s| {
            (!s.target.is_empty() && s.target == f.schema.internal_target)
                || (!s.selector.is_empty()
                    && f.bound.iter().any(|&i| page.selector(i) == s.selector))
        });
        let Some(hit) = hit else { continue };
        // Plain quotes, not Debug's escaped ones: people read this.
        let quoted = format!("\"{}\"", clip(&hit.text, QUOTE_LEN));
        let signal = Weighed {
            signal: Signal::ConfirmSeen,
            vote: Vote::For(Reversibility::IrreversibleWrite),
            detail: format!("the page raised confirm({quoted}) when this was dispatched: pages ask before what cannot be undone"),
        }
        .line();
        f.explain.signals.push(signal.clone());
        if f.schema.reversibility == Reversibility::IrreversibleWrite {
            continue;
        }
        f.explain.tier_reason = format!(
            "{signal} (before, {}: {})",
            f.schema.reversibility.as_str(),
            f.explain.tier_reason
        );
        f.explain.confidence_reason =
            "the page's confirm() makes the stricter tier likely; the binding is inferred".into();
        f.schema.reversibility = Reversibility::IrreversibleWrite;
        f.schema.confidence = raised_by_confirm();
        let note = format!(
            "The page asks for confirmation before this: {}",
            clip(&hit.text, QUOTE_LEN)
        );
        // First, so that clipping a long description keeps it.
        f.schema.description = if f.schema.description.is_empty() {
            note
        } else {
            clip(
                &format!("{note} {}", f.schema.description),
                MAX_DESCRIPTION_LEN,
            )
        };
    }
}

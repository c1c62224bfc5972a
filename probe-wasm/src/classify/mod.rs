//! Reversibility from evidence, and the one place where evidence becomes a confidence.
//!
//! Every action the probe finds goes through [`classify`]. The evidence builders
//! (forms, rows, controls, declarations) only describe what they saw in an
//! [`Evidence`]; this module turns it into [`Weighed`] signals, each a vote for (or
//! against) one tier with a weight from the single table in [`Signal::row`].
//!
//! **What confidence means.** An action's confidence is the probability that its
//! binding, its parameters and its tier are all right, where a tier stricter than the
//! truth counts as wrong. It is computed as
//!
//! ```text
//! P(tier) = exp(k·score[tier]) / Σ exp(k·score[t])   score[t] = Σ weights voting for t
//! confidence = P(chosen tier) × P(binding right), capped at 0.98 for inferred actions
//! ```
//!
//! The weights are log-odds ("nats") and decide the tier; `k` ([`score::SHARPNESS`],
//! 1.25) is measured: it makes the probabilities as sure as the corpora show the
//! evidence to be. A signal of weight 2.2 alone, against two tiers with no evidence,
//! gives that tier 0.89; 3.0 gives 0.955; 4.0 gives 0.99 (capped at 0.98). On the
//! synthetic and the real-app corpora, actions scored at or above 0.95 have no tier
//! error in either direction, and each confidence bucket is right at least as often as
//! it claims (the reliability table in BENCHMARKS.md, asserted by
//! `probe-wasm/tests/corpus.rs`).
//!
//! **The safety rule.** Classifying an irreversible action as reversible or read lowers
//! the gate, the worst error this probe can make. So a lower tier is chosen over
//! `irreversible_write` only when it leads the irreversible score by
//! [`score::MARGIN`]; when the evidence conflicts, the stricter tier wins, and the
//! softmax then gives it a low confidence, so the gate treats the guess as a guess.
//!
//! **Pages lie.** Every text a control shows is evidence, not only the one that names
//! it ([`evidence::shown_texts`]); a declaration counts in full only while nothing the
//! page shows contradicts it, and `read` only when something the page shows reads as a read
//! ([`classify`]). A contradicted declaration is one ordinary word among the others.
//!
//! The parts: [`evidence`] (what the builders saw), [`lexicon`] (words and their
//! strengths), [`signals`] (the one table of signals: name, vote, weight), `gather`
//! (evidence into signals), [`score`] (signals into a tier and a confidence) and, here,
//! the rules about declarations.

mod evidence;
mod gather;
mod lexicon;
mod score;
mod signals;

use nsp_protocol::Reversibility::{self, IrreversibleWrite, Read, ReversibleWrite};

pub use evidence::{
    clears_field, editor_toolbar_button, formats_text, is_danger_class, Declared, Evidence,
    FormFacts, Kind,
};
pub use lexicon::{from_words, hits, is_dismiss, logs_out, names_storing, opening_verb};
pub use score::{raised_by_confirm, Verdict, DECLARED};
pub use signals::{Signal, Strength, Vote, Weighed};

use gather::gather;
use score::{decide, Tally};

/// Classifies one action. See the module comment for what the numbers mean.
///
/// **A declaration can only make an action stricter, unless nothing contradicts it.**
/// The page's declaration (`data-nsp-reversibility`, WebMCP hints) counts in full
/// ([`Signal::Declared`]) when nothing else the page shows says the action is stricter
/// than declared ([`contradicts`]) and, for `read`, when something the page shows
/// reads as a read too ([`corroborates_read`]): `read` lifts the gate entirely, so the
/// page's word alone does not get it. Otherwise the declaration weighs as one ordinary
/// word ([`Signal::DeclaredContradicted`]) and the tier is at least what the evidence
/// without it says, at the probability the softmax then gives: the conflict shows as a
/// low confidence, and the gate asks the person.
pub fn classify(ev: &Evidence<'_>) -> Verdict {
    let mut t = Tally::new();
    gather(ev, &mut t);
    let Some(at) = t.weighed.iter().position(|w| w.signal == Signal::Declared) else {
        return evidence_verdict(ev, &t);
    };
    let decl = t.weighed[at].clone();
    // The most the declaration lets the action be: a tier, or below irreversible.
    let declared_tier = match decl.vote {
        Vote::For(tier) => tier,
        Vote::Against(IrreversibleWrite) => ReversibleWrite,
        // "Not read" only ever makes an action stricter.
        Vote::Against(_) => return decide(&t, true, None),
    };
    let others = || {
        t.weighed
            .iter()
            .enumerate()
            .filter(move |(i, _)| *i != at)
            .map(|(_, w)| w)
    };
    let against = others().find(|w| contradicts(w, declared_tier));
    let uncorroborated = declared_tier == Read && !others().any(|w| corroborates_read(w, ev));
    if against.is_none() && !uncorroborated {
        return decide(&t, true, None);
    }
    let mut evidence_only = t.clone();
    evidence_only.weighed.remove(at);
    let evidence = evidence_verdict(ev, &evidence_only);
    let why = match against {
        Some(w) => format!("contradicted by {}: {}", w.signal.name(), w.detail),
        None => {
            "nothing the page shows reads as a read (no read word, no link, no GET form)".to_owned()
        }
    };
    let mut weakened = t;
    weakened.weighed[at] = Weighed {
        signal: Signal::DeclaredContradicted,
        vote: decl.vote,
        detail: format!("{}, {why}", decl.detail),
    };
    let mut v = decide(
        &weakened,
        false,
        Some((
            evidence.tier,
            "the evidence without the declaration says so: the stricter tier wins",
        )),
    );
    v.tier_reason = format!(
        "{}, but {why}; the declaration can only make it stricter: {}",
        decl.detail, v.tier_reason
    );
    v
}

/// The verdict of the evidence alone, with one rule beyond the scores: a control whose
/// visible text has words, none of them known, is not a read on the strength of words
/// it does not show (an `aria-label` or title of "View balance" on a button reading
/// "Wire all funds to savings"), unless its structure reads (a link, a GET form, a
/// tab…). Its visible text is then treated as any label without a known verb: assumed
/// permanent, at the low probability the scores give that.
fn evidence_verdict(ev: &Evidence<'_>, t: &Tally) -> Verdict {
    let v = decide(t, false, None);
    let structure_reads = t.weighed.iter().any(|w| {
        w.vote == Vote::For(Read)
            && !matches!(
                w.signal,
                Signal::LabelVerb(_)
                    | Signal::LabelWord(_)
                    | Signal::ShownVerb(_)
                    | Signal::ShownWord(_)
                    | Signal::DescriptionWord(_)
                    // Read from the label's words, like them.
                    | Signal::ShowsPart
            )
    });
    if v.tier != Read || structure_reads || visible_text_allows_read(ev) {
        return v;
    }
    decide(
        t,
        false,
        Some((
            IrreversibleWrite,
            "its read words are not in its visible text, which names nothing known: assumed permanent",
        )),
    )
}

/// Whether signal `w` says the action is stricter than the page declared (`declared`
/// being the most the declaration allows). A verb of at least normal strength opening
/// the label or another text of the control, a strong word anywhere in them or in the
/// description, and every fact of the page's structure that only writes have (a
/// writing form, payment, recipients and a message, warnings, danger styling,
/// confirmation markup, `data-method`, a `confirm()` seen), contradicts. Weak words
/// ("Remove", "Cancel") do not: they often mean something else. Neither does the
/// fail-closed default for a label without a known word ([`Signal::NoVerb`]): for
/// `read`, [`corroborates_read`] asks for more than its absence.
pub fn contradicts(w: &Weighed, declared: Reversibility) -> bool {
    match w.vote {
        Vote::For(tier) if tier > declared => match w.signal {
            Signal::NoVerb => false,
            Signal::LabelVerb(s) | Signal::ShownVerb(s) => s >= Strength::Normal,
            // Later words are often the object ("get order status"), and descriptions
            // are looser: only strong words there.
            Signal::LabelWord(s) | Signal::ShownWord(s) | Signal::DescriptionWord(s) => {
                s >= Strength::Strong
            }
            _ => true,
        },
        Vote::For(_) => false,
        Vote::Against(tier) => tier == declared,
    }
}

/// Whether signal `w` is something the page shows that reads as a read: a read word in
/// the label or the control's texts, a link, a GET form, a tab, a dismiss button, an
/// opening menu. A description is the page's own prose beside its declaration and
/// corroborates only a WebMCP tool, which shows nothing else. Words corroborate only
/// when the visible text agrees: a button that reads "Wire all funds" is not made a
/// read by an `aria-label` or title of "View balance".
pub fn corroborates_read(w: &Weighed, ev: &Evidence<'_>) -> bool {
    w.vote == Vote::For(Read)
        && match w.signal {
            Signal::DescriptionWord(_) => ev.kind == Kind::Tool,
            Signal::LabelVerb(_)
            | Signal::LabelWord(_)
            | Signal::ShownVerb(_)
            | Signal::ShownWord(_)
            | Signal::ShowsPart => visible_text_allows_read(ev),
            _ => true,
        }
}

/// The control shows no words of its own beyond its label, or its visible text has a
/// read word.
fn visible_text_allows_read(ev: &Evidence<'_>) -> bool {
    let visible = ev.visible.trim();
    visible.is_empty()
        || visible == ev.label.trim()
        || !visible.bytes().any(|b| b.is_ascii_alphabetic())
        || hits(visible).iter().any(|h| h.tier == Read)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::{Local, PageFacts};

    fn button(label: &str) -> Verdict {
        classify(&Evidence::new(Kind::Button, label))
    }

    fn submit(label: &str, form: &FormFacts) -> Verdict {
        let mut ev = Evidence::new(Kind::Submit, label);
        ev.form = Some(form);
        classify(&ev)
    }

    fn post() -> FormFacts {
        FormFacts {
            method: Some("post".into()),
            ..FormFacts::default()
        }
    }

    #[test]
    fn a_loose_field_is_typed_into_and_a_filter_box_reads() {
        // A text box outside any form that nothing names (a rename box, a title):
        // typing changes what it holds, and typing again puts it back.
        let v = classify(&Evidence::new(Kind::Field, "text"));
        assert_eq!(v.tier, ReversibleWrite, "{v:?}");
        assert!(v.confidence >= 0.8, "{v:?}");
        // One that says it filters or searches holds a query.
        for label in ["Filter projects", "Search"] {
            let v = classify(&Evidence::new(Kind::Field, label));
            assert_eq!(v.tier, Read, "{label}: {v:?}");
            assert!(v.confidence >= 0.8, "{label}: {v:?}");
        }
    }

    #[test]
    fn verbs_decide_and_unknown_fails_closed() {
        assert_eq!(button("Send").tier, IrreversibleWrite);
        assert_eq!(button("Delete forever").tier, IrreversibleWrite);
        assert!(button("Delete forever").confidence >= 0.95);
        assert_eq!(button("Archive").tier, ReversibleWrite);
        assert_eq!(button("Move to Inbox").tier, ReversibleWrite);
        assert_eq!(button("Mark as read").tier, ReversibleWrite);
        assert_eq!(button("Search").tier, Read);
        let unknown = button("Frobnicate");
        assert_eq!(unknown.tier, IrreversibleWrite);
        assert!(unknown.confidence < 0.5);
    }

    #[test]
    fn returning_to_a_place_reads_and_returning_a_thing_does_not() {
        // Lektor's admin "Return to Website" (a button, its title alone) was an
        // irreversible write at 0.48, put to a person: no verb it knew.
        for label in [
            "Return to Website",
            "Back to list",
            "Return to the dashboard",
        ] {
            let v = button(label);
            assert_eq!(v.tier, Read, "{label}: {v:?}");
            assert!(v.confidence >= 0.8, "{label}: {v:?}");
        }
        for label in ["Return item", "Back to list and delete draft"] {
            assert_ne!(button(label).tier, Read, "{label}");
        }
    }

    #[test]
    fn backing_out_of_a_question_the_page_asks_reads() {
        // Lektor's admin asks "Do you really want to delete this page?" above "Yes,
        // delete" and "No, cancel", in no form and no dialog: "No, cancel" was an
        // irreversible write at 0.51 ("cancel" as in cancelling an order).
        let asks = PageFacts {
            question: Some("Do you really want to delete this page?".into()),
            ..PageFacts::default()
        };
        for label in ["No, cancel", "Cancel", "Go back"] {
            let mut ev = Evidence::new(Kind::Button, label);
            ev.page = Some(&asks);
            let v = classify(&ev);
            assert_eq!(v.tier, Read, "{label}: {v:?}");
            assert!(v.confidence >= 0.95, "{label}: {v:?}");
        }
        // Asked nothing, "Cancel" alone is no way back from anything.
        assert_ne!(button("No, cancel").tier, Read);
    }

    #[test]
    fn mixed_words_take_the_stricter_tier_with_less_confidence() {
        let v = button("Undo send");
        assert_eq!(v.tier, IrreversibleWrite);
        assert!(v.confidence <= 0.75, "{v:?}");
        let v = button("Save and publish");
        assert_eq!(v.tier, IrreversibleWrite);
        assert!(v.confidence < 0.8);
    }

    #[test]
    fn clear_irreversible_actions_reach_the_floor_and_vague_ones_do_not() {
        let compose = FormFacts {
            composes: true,
            ..post()
        };
        let v = submit("Send", &compose);
        assert_eq!(v.tier, IrreversibleWrite);
        assert!(v.confidence >= 0.95, "{v:?}");
        let pay = FormFacts {
            has_payment: true,
            ..post()
        };
        assert!(submit("Place order", &pay).confidence >= 0.95);

        // A confirmation page: no verb on the button, the page says it all.
        let facts = PageFacts {
            question: Some("Are you sure you want to delete the note \"x\"?".into()),
            warnings: vec![(3, "will be deleted")],
            back: true,
            path_cue: Some("delete"),
            ..PageFacts::default()
        };
        let mut ev = Evidence::new(Kind::Submit, "Yes, I'm sure");
        let form = post();
        ev.form = Some(&form);
        ev.page = Some(&facts);
        ev.local = Local {
            warning: Some("will be deleted"),
            confirmation_page: true,
            lone_write_form: true,
            ..Local::default()
        };
        let v = classify(&ev);
        assert_eq!(v.tier, IrreversibleWrite);
        assert!(v.confidence >= 0.95, "{v:?}");
        assert!(v
            .signals
            .iter()
            .any(|s| s.starts_with("confirmation_page (+3.00")));

        // A button that says "Delete" and nothing against it: the word rarely means
        // anything else, and actions scored so were right every time on both corpora.
        let v = button("Delete");
        assert_eq!(v.tier, IrreversibleWrite);
        assert!(v.confidence >= 0.95, "{v:?}");

        // Vague: a bare submit, an unknown verb on a POST form.
        for v in [submit("Submit", &post()), submit("Continue", &post())] {
            assert_eq!(v.tier, IrreversibleWrite);
            assert!(v.confidence < 0.95, "{v:?}");
        }
    }

    #[test]
    fn authentication_is_undoable_but_ending_other_sessions_is_not() {
        let login = FormFacts {
            has_password: true,
            ..post()
        };
        let v = submit("Log in", &login);
        assert_eq!(v.tier, ReversibleWrite, "{v:?}");
        assert!(v.confidence >= 0.8, "{v:?}");
        assert_eq!(submit("Sign up", &login).tier, ReversibleWrite);
        assert_eq!(button("Sign out").tier, ReversibleWrite);
        for label in ["Sign out other sessions", "Log out everywhere", "Revoke"] {
            assert_eq!(button(label).tier, IrreversibleWrite, "{label}");
        }
        assert_eq!(submit("Change password", &login).tier, IrreversibleWrite);
        // A password in a form that does not log in is a sign of something serious.
        assert_eq!(submit("Continue", &login).tier, IrreversibleWrite);
    }

    #[test]
    fn undo_evidence_makes_removals_and_toggles_reversible() {
        let facts = PageFacts {
            verbs: [("add".to_owned(), 1), ("remove".to_owned(), 1)]
                .into_iter()
                .collect(),
            ..PageFacts::default()
        };
        let mut ev = Evidence::new(Kind::Button, "Remove");
        ev.page = Some(&facts);
        ev.local.inverse = facts.inverse_of("remove");
        let v = classify(&ev);
        assert_eq!(v.tier, ReversibleWrite, "{v:?}");
        assert!(v.confidence >= 0.8, "{v:?}");
        // Without the pair, a removal stays strict and unsure.
        let v = button("Remove");
        assert_eq!(v.tier, IrreversibleWrite);
        assert!(v.confidence < 0.8);

        let mut ev = Evidence::new(Kind::Button, "Star");
        ev.local.toggle_state = true;
        let v = classify(&ev);
        assert_eq!(v.tier, ReversibleWrite);
        assert!(v.confidence >= 0.95, "{v:?}");
        // A pressed state does not make a "Delete" undoable.
        let mut ev = Evidence::new(Kind::Button, "Delete");
        ev.local.toggle_state = true;
        assert_eq!(classify(&ev).tier, IrreversibleWrite);
    }

    #[test]
    fn danger_and_confirm_only_make_things_stricter() {
        // Danger styling alone does not outweigh a strong undoable verb, but it leaves
        // the action below the reversible floor.
        let mut ev = Evidence::new(Kind::Button, "Archive");
        ev.danger = true;
        let v = classify(&ev);
        assert_eq!(v.tier, ReversibleWrite);
        assert!(v.confidence < 0.8);
        let mut ev = Evidence::new(Kind::Button, "Save");
        ev.danger = true;
        assert_eq!(classify(&ev).tier, IrreversibleWrite);
        let mut ev = Evidence::new(Kind::Button, "Delete");
        ev.danger = true;
        assert!(classify(&ev).confidence > 0.95);
        let mut ev = Evidence::new(Kind::Link, "Remove");
        ev.data_method = Some("delete");
        assert_eq!(classify(&ev).tier, IrreversibleWrite);
        let mut ev = Evidence::new(Kind::Button, "Star");
        ev.confirms = true;
        assert_eq!(classify(&ev).tier, IrreversibleWrite);
    }

    #[test]
    fn forms_weigh_method_and_fields() {
        let get = FormFacts {
            method: Some("get".into()),
            ..FormFacts::default()
        };
        let v = submit("Search", &get);
        assert_eq!((v.tier, v.confidence >= 0.95), (Read, true));
        assert_eq!(submit("Go", &get).tier, Read);

        let v = submit("Continue", &post());
        assert_eq!(v.tier, IrreversibleWrite);
        assert!(v.confidence < 0.7, "{v:?}");
        let v = submit("Save", &post());
        assert_eq!(v.tier, ReversibleWrite);
        assert!(v.confidence >= 0.8);

        let pay = FormFacts {
            has_payment: true,
            ..post()
        };
        let v = submit("Save", &pay);
        assert_eq!(v.tier, IrreversibleWrite);
        assert!(v.confidence >= 0.6, "{v:?}");
        // A read verb on a form that POSTs is not a read.
        assert_ne!(submit("Go", &post()).tier, Read);
    }

    #[test]
    fn links_read_unless_their_words_act() {
        assert_eq!(classify(&Evidence::new(Kind::Link, "Pricing")).tier, Read);
        assert_eq!(
            classify(&Evidence::new(Kind::Link, "Edit profile")).tier,
            Read
        );
        let v = classify(&Evidence::new(Kind::Link, "Unsubscribe"));
        assert_eq!(v.tier, IrreversibleWrite);
        assert!(v.confidence < 0.8);
        let v = classify(&Evidence::new(Kind::Link, "Delete"));
        assert_eq!(v.tier, IrreversibleWrite);
    }

    #[test]
    fn declarations_are_trusted_but_never_lower_strong_evidence() {
        let mut ev = Evidence::new(Kind::Button, "Archive");
        ev.declared = Some(Declared::Tier(ReversibleWrite));
        let v = classify(&ev);
        assert_eq!((v.tier, v.confidence), (ReversibleWrite, DECLARED));

        let mut ev = Evidence::new(Kind::Button, "Delete forever");
        ev.declared = Some(Declared::Tier(Read));
        let v = classify(&ev);
        assert_eq!(v.tier, IrreversibleWrite);
        // Under the irreversible floor: the person decides.
        assert!(v.confidence < 0.95, "{v:?}");

        let mut ev = Evidence::new(Kind::Tool, "get_order_status");
        ev.declared = Some(Declared::ReadOnly);
        assert_eq!(classify(&ev).tier, Read);

        let mut ev = Evidence::new(Kind::Tool, "frobnicate");
        ev.declared = Some(Declared::NotDestructive);
        assert_eq!(classify(&ev).tier, ReversibleWrite);
    }

    #[test]
    fn dismiss_buttons_in_dialogs_read() {
        let mut ev = Evidence::new(Kind::Button, "Cancel");
        ev.in_dialog = true;
        assert_eq!(classify(&ev).tier, Read);
        assert_eq!(button("Cancel subscription").tier, IrreversibleWrite);
    }

    #[test]
    fn popups_read_unless_the_label_acts() {
        let mut ev = Evidence::new(Kind::Button, "Settings");
        ev.opens_popup = true;
        assert_eq!(classify(&ev).tier, Read);
        let mut ev = Evidence::new(Kind::Button, "Delete…");
        ev.opens_popup = true;
        assert_eq!(classify(&ev).tier, IrreversibleWrite);
    }

    #[test]
    fn every_signal_is_explained_with_its_weight() {
        let v = submit(
            "Send",
            &FormFacts {
                composes: true,
                ..post()
            },
        );
        let want = [
            (
                Signal::LabelVerb(Strength::Strong),
                "+3.00 irreversible_write",
            ),
            (Signal::WriteForm, "-2.50 read"),
            (Signal::Compose, "+1.50 irreversible_write"),
        ];
        assert_eq!(v.signals.len(), want.len() + 1, "{:?}", v.signals);
        for (line, (signal, weight)) in v.signals.iter().zip(want) {
            assert!(
                line.starts_with(&format!("{} ({weight})", signal.name())),
                "{line}"
            );
        }
        assert!(v.signals.last().unwrap().starts_with("scores:"));
    }

    #[test]
    fn the_signal_table_names_each_signal_once_and_fixes_structural_votes() {
        use Strength::Normal;
        let all = [
            Signal::LabelVerb(Normal),
            Signal::LabelWord(Normal),
            Signal::DescriptionWord(Normal),
            Signal::ShownVerb(Normal),
            Signal::ShownWord(Normal),
            Signal::NoVerb,
            Signal::Link,
            Signal::Tab,
            Signal::SwitchesView,
            Signal::Choice,
            Signal::Reset,
            Signal::OpensPopup,
            Signal::ShowsPart,
            Signal::FormatsText,
            Signal::FillsForm,
            Signal::ClearsField,
            Signal::OpensEditor,
            Signal::LinkActs,
            Signal::LinkToPage,
            Signal::Selection,
            Signal::LoginForm,
            Signal::SecretField,
            Signal::LooseField,
            Signal::Dismisses,
            Signal::GetForm,
            Signal::WriteForm,
            Signal::Previews,
            Signal::OpensPage,
            Signal::MakesItem,
            Signal::RecordForm,
            Signal::ConfirmStep,
            Signal::FormAction,
            Signal::PagePath,
            Signal::PageHeading,
            Signal::ConfirmationPage,
            Signal::Warning,
            Signal::Compose,
            Signal::Payment,
            Signal::Password,
            Signal::Authentication,
            Signal::ToggleState,
            Signal::InversePair,
            Signal::Undo,
            Signal::Trash,
            Signal::Danger,
            Signal::AsksConfirmation,
            Signal::DataMethodDelete,
            Signal::DataMethodWrite,
            Signal::ConfirmSeen,
            Signal::Declared,
            Signal::DeclaredContradicted,
            Signal::Corrected,
        ];
        let mut names: Vec<&str> = all.iter().map(|s| s.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all.len(), "a name is used twice");
        for s in all {
            assert!(s.weight() > 0.0, "{s:?}");
        }
        // Facts of the page's structure vote one way, always; words, headings,
        // declarations and corrections vote for the tier they name.
        assert_eq!(Signal::WriteForm.fixed_vote(), Some(Vote::Against(Read)));
        assert_eq!(Signal::LabelVerb(Normal).fixed_vote(), None);
        // The raise after a confirm() is the table's softmax of that one signal.
        let w = (score::SHARPNESS * Signal::ConfirmSeen.weight()).exp();
        assert_eq!(raised_by_confirm(), w / (w + 2.0));
        assert!(
            raised_by_confirm() < 0.95,
            "a confirm() alone never passes the floor"
        );
    }

    #[test]
    fn confidence_is_a_probability_over_the_tiers() {
        // One Normal verb against two silent tiers: e^(1.25·2.2) / (e^(1.25·2.2) + 2).
        let v = button("Save");
        let e = (score::SHARPNESS * 2.2f64).exp();
        let want = e / (e + 2.0);
        assert!((v.confidence - want).abs() < 1e-9, "{v:?}");
    }
}

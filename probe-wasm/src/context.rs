//! What the page around a control says about it: the evidence beyond the label.
//!
//! A label alone says "Yes, I'm sure" or "Remove"; the page says what is being
//! confirmed or removed. [`PageFacts`] is gathered once per analysis (the URL path,
//! the title and first heading, confirmation questions, warnings, the verbs of every
//! control, undo and trash affordances); [`Local`] is what of it applies to one control
//! (the warning in its form or dialog, whether its form is the one form of a
//! confirmation page). The classifier turns both into weighed signals.

use nsp_protocol::Reversibility;

use crate::classify::{from_words, is_dismiss};
use crate::page::{control_label, ElementRecordExt, Page};
use crate::text::words;

/// Phrases that ask the person to confirm something ("Are you sure you want to …").
const QUESTIONS: &[&str] = &[
    "are you sure",
    "do you really want",
    "confirm that you want",
    "you are about to",
    "please confirm",
];

/// Phrases that warn of an effect that cannot be taken back.
const WARNINGS: &[&str] = &[
    "cannot be undone",
    "can't be undone",
    "can\u{2019}t be undone",
    "can not be undone",
    "cannot be reversed",
    "not be able to recover",
    "cannot be recovered",
    "can't be recovered",
    "permanently",
    "irreversible",
    "will be deleted",
    "will be removed",
    "will be lost",
    "all related",
    "following related",
    "related items",
    "related objects",
    "this action is final",
];

/// The warning phrase a text the control itself carries (a description, a title)
/// contains, lowercase. The phrases about related items are left out: they warn on a
/// page about what a deletion takes with it, and in a description they mostly list.
pub fn warning_in(text: &str) -> Option<&'static str> {
    // Bounded: a page may write a megabyte into a description.
    let mut end = text.len().min(2000);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let low = text[..end].to_ascii_lowercase();
    WARNINGS
        .iter()
        .filter(|w| !w.contains("related"))
        .find(|w| low.contains(**w))
        .copied()
}

/// URL path segments that name a step which commits something.
const PATH_CUES: &[&str] = &[
    "delete",
    "destroy",
    "remove",
    "confirm",
    "confirmation",
    "checkout",
    "pay",
    "payment",
    "purchase",
    "transfer",
    "send",
];

/// Verbs and the verb that undoes them. Seeing both on one page is evidence that
/// either can be taken back.
const INVERSES: &[(&str, &str)] = &[
    ("archive", "unarchive"),
    ("star", "unstar"),
    ("pin", "unpin"),
    ("follow", "unfollow"),
    ("like", "unlike"),
    ("mute", "unmute"),
    ("flag", "unflag"),
    ("block", "unblock"),
    ("lock", "unlock"),
    ("hide", "unhide"),
    ("hide", "show"),
    ("suspend", "unsuspend"),
    ("suspend", "reactivate"),
    ("suspend", "resume"),
    ("pause", "resume"),
    ("pause", "unpause"),
    ("deactivate", "activate"),
    ("deactivate", "reactivate"),
    ("disable", "enable"),
    ("subscribe", "unsubscribe"),
    ("watch", "unwatch"),
    ("assign", "unassign"),
    ("add", "remove"),
    ("join", "leave"),
    ("publish", "unpublish"),
    ("approve", "unapprove"),
    ("open", "close"),
    ("reopen", "close"),
    ("mark", "unmark"),
    ("tag", "untag"),
    ("check", "uncheck"),
    ("select", "deselect"),
];

/// Labels that offer a way back from a step, beyond those that dismiss it
/// ([`is_dismiss`]): a confirmation page's "Back" or "No".
const BACK: &[&[&str]] = &[
    &["back"],
    &["no"],
    &["no", "go", "back"],
    &["return"],
    &["keep"],
];

pub use crate::facts::PageFacts;

impl PageFacts {
    pub fn gather(page: &Page<'_>) -> PageFacts {
        let mut facts = PageFacts {
            path_cue: path_cue(&page.snap.url),
            ..PageFacts::default()
        };
        let mut heading_text = page.snap.title.clone();
        let mut first_heading = true;
        for (i, e) in page.els.iter().enumerate() {
            if !e.visible {
                continue;
            }
            if first_heading && matches!(e.tag.as_str(), "h1" | "h2") && !e.text.is_empty() {
                heading_text.push_str(" . ");
                heading_text.push_str(&e.text);
                first_heading = false;
            }
            // The page's own writing forms: a log-out or language form in the header or
            // navigation is site chrome, not the step the page is about.
            if e.tag == "form" && page.control_count(i) > 0 && !in_chrome(page, i) {
                let method = e.attr("method").unwrap_or("").trim().to_ascii_lowercase();
                if !method.is_empty() && method != "get" && method != "dialog" {
                    facts.write_forms.push(i);
                }
            }
            if !facts.loose_fields
                && page.field(i)
                && page.form[i].is_none()
                && !e.disabled
                && crate::forms::holds_data(page, i)
            {
                facts.loose_fields = true;
            }
            if page.control(i) {
                let label = control_label(e);
                let w = words(&label);
                if let Some(first) = w.first() {
                    *crate::slot(&mut facts.verbs, first.clone()) += 1;
                }
                if is_dismiss(&label)
                    || BACK
                        .iter()
                        .any(|b| w.iter().map(String::as_str).eq(b.iter().copied()))
                {
                    facts.back = true;
                }
                if w.first().is_some_and(|f| f == "undo") {
                    facts.undo = true;
                }
                if w.len() <= 3
                    && w.iter().any(|x| {
                        matches!(
                            x.as_str(),
                            "trash" | "bin" | "deleted" | "recycle" | "archived"
                        )
                    })
                {
                    facts.trash = true;
                }
            }
            if e.text.len() >= 8 {
                let low = e.text.to_ascii_lowercase();
                if facts.question.is_none() && QUESTIONS.iter().any(|q| low.contains(q)) {
                    facts.question = Some(crate::text::clip(&e.text, 120));
                }
                if let Some(w) = WARNINGS.iter().find(|w| low.contains(**w)) {
                    facts.warnings.push((i, w));
                }
            }
        }
        facts.heading = from_words(&heading_text).filter(|w| w.tier > Reversibility::Read);
        facts
    }

    /// The verb that undoes `verb`, or that `verb` undoes, when a control on the page
    /// says it.
    pub fn inverse_of(&self, verb: &str) -> Option<&'static str> {
        inverse_where(verb, &mut |other| crate::kept(&self.verbs, other).is_some())
    }
}

/// The first verb undoing `verb` (in [`INVERSES`]'s order) for which `said` holds.
pub fn inverse_where(
    verb: &str,
    said: &mut dyn FnMut(&'static str) -> bool,
) -> Option<&'static str> {
    for (a, b) in INVERSES {
        let other = if *a == verb {
            *b
        } else if *b == verb {
            *a
        } else {
            continue;
        };
        if said(other) {
            return Some(other);
        }
    }
    None
}

/// The page facts that apply to one control.
#[derive(Debug, Clone, Default)]
pub struct Local {
    /// A warning in the control's form, dialog or (on a one-form page) anywhere.
    pub warning: Option<&'static str>,
    /// The control submits the one writing form of a page that asks for confirmation
    /// and offers a way back.
    pub confirmation_page: bool,
    /// The control submits the one writing form of the page: the URL path and the
    /// page's heading speak for it.
    pub lone_write_form: bool,
    /// The control carries a pressed or checked state (`aria-pressed`, `aria-checked`,
    /// a checkbox or switch): pressing it again undoes it.
    pub toggle_state: bool,
    /// The verb that undoes this control's verb, seen on the page.
    pub inverse: Option<&'static str>,
    /// The control sits inside a `<form>`.
    pub in_form: bool,
    /// The control sits in a row of a list (an item, a table row, an article): it acts
    /// on its row, never on fields outside it.
    pub in_row: bool,
}

/// What the page says about control `idx` (which submits `form`, if any).
pub fn local(page: &Page<'_>, facts: &PageFacts, idx: usize, label: &str) -> Local {
    let e = &page.els[idx];
    let form = page.form[idx].or((e.tag == "form").then_some(idx));
    let lone_write_form = form.is_some_and(|f| facts.write_forms == [f]);
    let scope = form.or_else(|| {
        page.in_dialog[idx]
            .then(|| {
                page.ancestors(idx)
                    .find(|a| crate::page::is_dialog(&page.els[*a]))
            })
            .flatten()
    });
    let warning = facts
        .warnings
        .iter()
        .find(|(w, _)| match scope {
            Some(s) => *w > s && *w < page.end[s],
            None => false,
        })
        .or_else(|| facts.warnings.first().filter(|_| lone_write_form))
        .map(|(_, phrase)| *phrase);
    let confirmation_page =
        lone_write_form && (facts.question.is_some() || !facts.warnings.is_empty()) && facts.back;
    // A native radio button holds its checked state as `role=radio` does with
    // `aria-checked`: choosing another option of its group puts it back.
    let toggle_state = e.has("aria-pressed")
        || e.has("aria-checked")
        || (e.tag == "input" && matches!(e.input_type().as_ref(), "checkbox" | "radio"))
        || e.role() == "switch";
    let inverse = words(label).first().and_then(|v| facts.inverse_of(v));
    Local {
        warning,
        confirmation_page,
        lone_write_form,
        toggle_state,
        inverse,
        in_form: page.form[idx].is_some(),
        in_row: page.ancestors(idx).take(8).any(|a| {
            let x = &page.els[a];
            crate::lists::is_row(x) || x.has("nsp-row")
        }),
    }
}

/// Inside the page's header, navigation, footer or a sidebar.
fn in_chrome(page: &Page<'_>, i: usize) -> bool {
    page.ancestors(i)
        .any(|a| crate::page::is_shell(&page.els[a]))
}

fn path_cue(url: &str) -> Option<&'static str> {
    let path = url
        .split_once("://")
        .map_or(url, |(_, rest)| rest.find('/').map_or("", |i| &rest[i..]));
    let path = path.split(['?', '#']).next().unwrap_or("");
    path.split(['/', '-', '_', '.'])
        .filter(|s| !s.is_empty())
        .find_map(|seg| {
            let seg = seg.to_ascii_lowercase();
            PATH_CUES.iter().find(|c| **c == seg).copied()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `extract.js`' `CUE_TEXT` regular expression, as JavaScript source.
    fn cue_text() -> String {
        let source = std::fs::read_to_string(crate::node::extension_script("extract.js"))
            .expect("extension/extract.js");
        let line = source
            .lines()
            .find(|l| l.trim_start().starts_with("const CUE_TEXT = /"))
            .expect("CUE_TEXT in extract.js");
        line.trim()
            .trim_start_matches("const CUE_TEXT = ")
            .trim_end_matches(';')
            .to_owned()
    }

    /// The extractor records a plain paragraph only when its `CUE_TEXT` matches, so every
    /// question and warning the probe looks for must match it: both lists, one check,
    /// with the extractor's own regular expression run by node.
    #[test]
    fn the_extractor_keeps_every_phrase_the_probe_looks_for() {
        let regex = cue_text();
        let phrases: Vec<&str> = QUESTIONS.iter().chain(WARNINGS).copied().collect();
        let script = format!(
            "const re = {regex}; const missed = {}.filter((p) => !re.test('x ' + p + ' x')); \
             process.stdout.write(JSON.stringify(missed));",
            serde_json::to_string(&phrases).expect("json")
        );
        let missed: Vec<String> =
            serde_json::from_value(crate::node::run_json(&script)).expect("node's answer");
        assert!(
            missed.is_empty(),
            "extract.js's CUE_TEXT does not keep {missed:?}"
        );
    }

    /// An unnamed field's parameter quotes the text before it (`Page::text_before`), which
    /// the extractor records only when `CUE_TEXT` matches: instructions to type something
    /// must, ordinary paragraphs must not.
    #[test]
    fn the_extractor_keeps_instructions_to_type() {
        let regex = cue_text();
        let kept = [
            "To delete the collection Family please enter the phrase DELETE in the box below:",
            "Please type the name of the project to confirm.",
        ];
        let left = [
            "Welcome back! Here are your latest notes.",
            "Type: Address book",
        ];
        let script = format!(
            "const re = {regex}; process.stdout.write(JSON.stringify([{}.map((p) => re.test(p)), {}.map((p) => re.test(p))]));",
            serde_json::to_string(&kept).expect("json"),
            serde_json::to_string(&left).expect("json"),
        );
        let got: (Vec<bool>, Vec<bool>) =
            serde_json::from_value(crate::node::run_json(&script)).expect("node's answer");
        assert_eq!(got, (vec![true, true], vec![false, false]));
    }

    #[test]
    fn path_cues_come_from_the_path_only() {
        assert_eq!(
            path_cue("http://x.test/admin/notes/3/delete/"),
            Some("delete")
        );
        assert_eq!(path_cue("http://x.test/checkout?step=2"), Some("checkout"));
        assert_eq!(path_cue("http://delete.test/notes?delete=1"), None);
        assert_eq!(path_cue("http://x.test/deleted-items"), None);
    }
}

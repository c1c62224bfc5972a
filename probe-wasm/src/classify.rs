//! Reversibility from evidence. Every action the probe finds goes through
//! [`classify`], which weighs the control's words, what kind of control it is, the form
//! around it and the page's own declarations, and explains itself in words.
//!
//! The rule that shapes everything here: classifying an irreversible action as
//! reversible or read lowers the gate, which is the worst error this probe can make.
//! So conflicting or missing evidence always resolves to the stricter tier, with a
//! confidence low enough that the gate treats the guess as a guess.

use nsp_protocol::Reversibility::{self, IrreversibleWrite, Read, ReversibleWrite};

use crate::text::words;

/// What sort of control an action is bound to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A button (or `role=button`, `input type=button`).
    Button,
    /// A link that navigates (`a[href]` with a real URL).
    Link,
    /// The submit control of a form (or of a group of fields acting as one).
    Submit,
    /// A checkbox or switch that is an action by itself (outside any form).
    Toggle,
    /// A `<select>` or listbox outside any form.
    Choice,
    /// `role=tab`: switches what is shown.
    Tab,
    /// A non-semantic element with a click handler.
    Clickable,
    /// A form's reset button: clears what was typed, sends nothing.
    Reset,
    /// A WebMCP tool.
    Tool,
}

/// Facts about a form an action submits.
#[derive(Debug, Clone, Default)]
pub struct FormFacts {
    /// Lowercase method; `None` when the form has no `method` attribute (scripted forms
    /// usually have none and `preventDefault` the submit).
    pub method: Option<String>,
    pub action_url: String,
    pub has_password: bool,
    pub has_payment: bool,
    /// No `<form>` element: fields and a button grouped by their container.
    pub implicit: bool,
    /// The form also has another submit control (this one may be a secondary "Cancel").
    pub has_other_submit: bool,
}

/// Everything the classifier may weigh about one action.
#[derive(Debug, Clone)]
pub struct Evidence<'a> {
    pub kind: Kind,
    /// The control's visible label (or the tool's name).
    pub label: &'a str,
    /// More text describing the action (a tool's description), weighed less.
    pub description: &'a str,
    pub form: Option<&'a FormFacts>,
    /// Danger styling on the control (`danger`, `destructive`… in its classes).
    pub danger: bool,
    /// The page asks for confirmation (`data-confirm`, `onclick="return confirm(…)"`).
    pub confirms: bool,
    /// A Rails/Laravel-style `data-method` other than get.
    pub data_method: Option<&'a str>,
    /// The control opens a menu, dialog or disclosure (`aria-haspopup`, `aria-expanded`).
    pub opens_popup: bool,
    /// Inside a `<dialog>` / `role=dialog`.
    pub in_dialog: bool,
    /// The page's own declaration: `data-nsp-reversibility` or WebMCP hints.
    pub declared: Option<Declared>,
}

/// What a page declared about an action's tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Declared {
    /// `data-nsp-reversibility`.
    Tier(Reversibility),
    /// WebMCP `readOnlyHint: true`.
    ReadOnly,
    /// WebMCP `destructiveHint: true`.
    Destructive,
    /// WebMCP `destructiveHint: false` (and not read-only).
    NotDestructive,
}

impl<'a> Evidence<'a> {
    pub fn new(kind: Kind, label: &'a str) -> Evidence<'a> {
        Evidence {
            kind,
            label,
            description: "",
            form: None,
            danger: false,
            confirms: false,
            data_method: None,
            opens_popup: false,
            in_dialog: false,
            declared: None,
        }
    }
}

/// The classifier's answer, with its reasons.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub tier: Reversibility,
    pub confidence: f64,
    pub signals: Vec<String>,
    pub tier_reason: String,
    pub confidence_reason: String,
}

/// What the words of a label say.
#[derive(Debug, Clone, PartialEq)]
pub struct WordVerdict {
    pub tier: Reversibility,
    pub confidence: f64,
    /// The word or phrase that decided, e.g. "delete forever".
    pub cue: String,
    /// More than one tier was named ("Undo send").
    pub mixed: bool,
    /// The cue opens the label (a verb in first position names the action; later words
    /// are often its object: "Order history", "Rust and WebAssembly book").
    pub first: bool,
}

/// Multi-word phrases, checked before single words: their meaning differs from their
/// parts ("move to trash" is recoverable, "delete forever" is not).
const PHRASES: &[(&str, Reversibility, f64)] = &[
    ("delete forever", IrreversibleWrite, 0.97),
    ("permanently delete", IrreversibleWrite, 0.97),
    ("delete permanently", IrreversibleWrite, 0.97),
    ("delete account", IrreversibleWrite, 0.97),
    ("delete this repository", IrreversibleWrite, 0.97),
    ("delete repository", IrreversibleWrite, 0.97),
    ("close account", IrreversibleWrite, 0.95),
    ("place order", IrreversibleWrite, 0.97),
    ("buy now", IrreversibleWrite, 0.97),
    ("pay now", IrreversibleWrite, 0.97),
    ("complete purchase", IrreversibleWrite, 0.97),
    ("confirm purchase", IrreversibleWrite, 0.97),
    ("send money", IrreversibleWrite, 0.97),
    ("transfer funds", IrreversibleWrite, 0.97),
    ("empty trash", IrreversibleWrite, 0.95),
    ("cancel subscription", IrreversibleWrite, 0.93),
    ("cancel order", IrreversibleWrite, 0.93),
    ("sign up", IrreversibleWrite, 0.9),
    ("create account", IrreversibleWrite, 0.9),
    ("sign in", IrreversibleWrite, 0.85),
    ("log in", IrreversibleWrite, 0.85),
    ("sign out", ReversibleWrite, 0.88),
    ("log out", ReversibleWrite, 0.88),
    ("save draft", ReversibleWrite, 0.95),
    ("save as draft", ReversibleWrite, 0.95),
    ("move to trash", ReversibleWrite, 0.9),
    ("move to bin", ReversibleWrite, 0.9),
    ("move to inbox", ReversibleWrite, 0.92),
    ("mark as read", ReversibleWrite, 0.92),
    ("mark as unread", ReversibleWrite, 0.92),
    ("add to cart", ReversibleWrite, 0.9),
    ("add to bag", ReversibleWrite, 0.9),
    ("add to wishlist", ReversibleWrite, 0.9),
    ("apply filters", Read, 0.92),
    ("apply filter", Read, 0.92),
    ("apply coupon", ReversibleWrite, 0.85),
    ("apply code", ReversibleWrite, 0.85),
    ("load more", Read, 0.92),
    ("show more", Read, 0.92),
    ("see more", Read, 0.92),
    ("learn more", Read, 0.92),
    ("read more", Read, 0.92),
    ("see all", Read, 0.9),
    ("view all", Read, 0.9),
];

/// Single words, by the tier they point to and how sure they make us.
const WORDS: &[(&str, Reversibility, f64)] = &[
    // Permanent, or reaching other people or money.
    ("send", IrreversibleWrite, 0.93),
    ("submit", IrreversibleWrite, 0.9),
    ("pay", IrreversibleWrite, 0.95),
    ("buy", IrreversibleWrite, 0.95),
    ("order", IrreversibleWrite, 0.9),
    ("purchase", IrreversibleWrite, 0.95),
    ("checkout", IrreversibleWrite, 0.93),
    ("delete", IrreversibleWrite, 0.93),
    ("remove", IrreversibleWrite, 0.9),
    ("destroy", IrreversibleWrite, 0.95),
    ("erase", IrreversibleWrite, 0.95),
    ("purge", IrreversibleWrite, 0.95),
    ("wipe", IrreversibleWrite, 0.95),
    ("publish", IrreversibleWrite, 0.93),
    ("post", IrreversibleWrite, 0.9),
    ("tweet", IrreversibleWrite, 0.93),
    ("reply", IrreversibleWrite, 0.9),
    ("forward", IrreversibleWrite, 0.85),
    ("comment", IrreversibleWrite, 0.88),
    ("share", IrreversibleWrite, 0.85),
    ("transfer", IrreversibleWrite, 0.95),
    ("confirm", IrreversibleWrite, 0.9),
    ("approve", IrreversibleWrite, 0.9),
    ("reject", IrreversibleWrite, 0.88),
    ("decline", IrreversibleWrite, 0.85),
    ("accept", IrreversibleWrite, 0.88),
    ("merge", IrreversibleWrite, 0.92),
    ("deploy", IrreversibleWrite, 0.92),
    ("release", IrreversibleWrite, 0.88),
    ("terminate", IrreversibleWrite, 0.95),
    ("revoke", IrreversibleWrite, 0.93),
    ("deactivate", IrreversibleWrite, 0.9),
    ("invite", IrreversibleWrite, 0.9),
    ("donate", IrreversibleWrite, 0.95),
    ("refund", IrreversibleWrite, 0.93),
    ("charge", IrreversibleWrite, 0.93),
    ("withdraw", IrreversibleWrite, 0.95),
    ("deposit", IrreversibleWrite, 0.93),
    ("book", IrreversibleWrite, 0.9),
    ("reserve", IrreversibleWrite, 0.9),
    ("register", IrreversibleWrite, 0.9),
    ("subscribe", IrreversibleWrite, 0.85),
    ("unsubscribe", IrreversibleWrite, 0.85),
    ("vote", IrreversibleWrite, 0.85),
    ("report", IrreversibleWrite, 0.85),
    ("ban", IrreversibleWrite, 0.9),
    ("kick", IrreversibleWrite, 0.9),
    ("reset", IrreversibleWrite, 0.85),
    ("empty", IrreversibleWrite, 0.85),
    ("drop", IrreversibleWrite, 0.88),
    ("kill", IrreversibleWrite, 0.92),
    ("shutdown", IrreversibleWrite, 0.92),
    ("execute", IrreversibleWrite, 0.88),
    ("launch", IrreversibleWrite, 0.85),
    ("sign", IrreversibleWrite, 0.85),
    ("upgrade", IrreversibleWrite, 0.85),
    ("downgrade", IrreversibleWrite, 0.85),
    ("finish", IrreversibleWrite, 0.85),
    ("complete", IrreversibleWrite, 0.85),
    ("retry", IrreversibleWrite, 0.8),
    ("restart", IrreversibleWrite, 0.85),
    ("repost", IrreversibleWrite, 0.9),
    ("retweet", IrreversibleWrite, 0.9),
    ("reshare", IrreversibleWrite, 0.9),
    ("suspend", IrreversibleWrite, 0.82),
    // Alone, these are ambiguous ("Cancel" may close a form or cancel an order; "Apply"
    // a filter or for a loan): strict and unsure.
    ("cancel", IrreversibleWrite, 0.7),
    ("apply", IrreversibleWrite, 0.6),
    // Undoable.
    ("archive", ReversibleWrite, 0.93),
    ("unarchive", ReversibleWrite, 0.93),
    ("restore", ReversibleWrite, 0.9),
    ("star", ReversibleWrite, 0.92),
    ("unstar", ReversibleWrite, 0.92),
    ("label", ReversibleWrite, 0.9),
    ("tag", ReversibleWrite, 0.9),
    ("untag", ReversibleWrite, 0.9),
    ("move", ReversibleWrite, 0.88),
    ("mark", ReversibleWrite, 0.9),
    ("flag", ReversibleWrite, 0.9),
    ("unflag", ReversibleWrite, 0.9),
    ("snooze", ReversibleWrite, 0.92),
    ("pin", ReversibleWrite, 0.9),
    ("unpin", ReversibleWrite, 0.9),
    ("mute", ReversibleWrite, 0.9),
    ("unmute", ReversibleWrite, 0.9),
    ("like", ReversibleWrite, 0.88),
    ("unlike", ReversibleWrite, 0.88),
    ("favorite", ReversibleWrite, 0.9),
    ("favourite", ReversibleWrite, 0.9),
    ("bookmark", ReversibleWrite, 0.9),
    ("follow", ReversibleWrite, 0.88),
    ("unfollow", ReversibleWrite, 0.88),
    ("watch", ReversibleWrite, 0.85),
    ("unwatch", ReversibleWrite, 0.85),
    ("save", ReversibleWrite, 0.88),
    ("draft", ReversibleWrite, 0.9),
    ("add", ReversibleWrite, 0.85),
    ("edit", ReversibleWrite, 0.85),
    ("update", ReversibleWrite, 0.85),
    ("rename", ReversibleWrite, 0.88),
    ("toggle", ReversibleWrite, 0.9),
    ("enable", ReversibleWrite, 0.88),
    ("disable", ReversibleWrite, 0.88),
    ("turn", ReversibleWrite, 0.85),
    ("switch", ReversibleWrite, 0.85),
    ("set", ReversibleWrite, 0.85),
    ("change", ReversibleWrite, 0.85),
    ("assign", ReversibleWrite, 0.88),
    ("unassign", ReversibleWrite, 0.88),
    ("hide", ReversibleWrite, 0.85),
    ("attach", ReversibleWrite, 0.85),
    ("detach", ReversibleWrite, 0.85),
    ("upload", ReversibleWrite, 0.8),
    ("duplicate", ReversibleWrite, 0.85),
    ("create", ReversibleWrite, 0.82),
    ("new", ReversibleWrite, 0.82),
    ("undo", ReversibleWrite, 0.92),
    ("redo", ReversibleWrite, 0.88),
    ("check", ReversibleWrite, 0.82),
    ("uncheck", ReversibleWrite, 0.85),
    ("increase", ReversibleWrite, 0.85),
    ("decrease", ReversibleWrite, 0.85),
    ("join", ReversibleWrite, 0.82),
    ("leave", ReversibleWrite, 0.8),
    ("block", ReversibleWrite, 0.82),
    ("unblock", ReversibleWrite, 0.85),
    ("upvote", ReversibleWrite, 0.85),
    ("downvote", ReversibleWrite, 0.85),
    ("logout", ReversibleWrite, 0.88),
    ("reorder", ReversibleWrite, 0.85),
    ("schedule", ReversibleWrite, 0.82),
    ("reschedule", ReversibleWrite, 0.82),
    // Changes nothing.
    ("search", Read, 0.93),
    ("find", Read, 0.9),
    ("filter", Read, 0.92),
    ("filters", Read, 0.9),
    ("open", Read, 0.88),
    ("view", Read, 0.9),
    ("sort", Read, 0.92),
    ("show", Read, 0.88),
    ("display", Read, 0.88),
    ("next", Read, 0.92),
    ("previous", Read, 0.92),
    ("prev", Read, 0.92),
    ("back", Read, 0.88),
    ("refresh", Read, 0.9),
    ("reload", Read, 0.9),
    ("expand", Read, 0.9),
    ("collapse", Read, 0.9),
    ("go", Read, 0.85),
    ("details", Read, 0.88),
    ("more", Read, 0.85),
    ("less", Read, 0.85),
    ("help", Read, 0.88),
    ("preview", Read, 0.9),
    ("browse", Read, 0.9),
    ("see", Read, 0.88),
    ("download", Read, 0.85),
    ("print", Read, 0.88),
    ("export", Read, 0.85),
    ("zoom", Read, 0.9),
    ("close", Read, 0.82),
    ("dismiss", Read, 0.85),
    ("read", Read, 0.85),
    ("get", Read, 0.88),
    ("list", Read, 0.88),
    ("fetch", Read, 0.88),
    ("query", Read, 0.88),
    ("lookup", Read, 0.88),
    ("look", Read, 0.85),
    ("play", Read, 0.85),
    ("pause", Read, 0.85),
    ("copy", Read, 0.85),
    ("today", Read, 0.85),
    ("home", Read, 0.85),
];

/// The lexicon sorted by word, built once: classification runs for every control.
fn word_table() -> &'static [(&'static str, Reversibility, f64)] {
    static TABLE: std::sync::OnceLock<Vec<(&'static str, Reversibility, f64)>> =
        std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = WORDS.to_vec();
        table.sort_unstable_by(|a, b| a.0.cmp(b.0));
        table
    })
}

fn lookup(word: &str) -> Option<(Reversibility, f64)> {
    let table = word_table();
    table
        .binary_search_by(|(w, _, _)| (*w).cmp(word))
        .ok()
        .map(|i| (table[i].1, table[i].2))
}

/// A phrase split into words, with its tier, confidence and text.
type Phrase = (Vec<&'static str>, Reversibility, f64, &'static str);

/// Phrases split into words once.
fn phrase_table() -> &'static [Phrase] {
    static TABLE: std::sync::OnceLock<Vec<Phrase>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        PHRASES
            .iter()
            .map(|(p, t, c)| (p.split(' ').collect(), *t, *c, *p))
            .collect()
    })
}

/// What the words of `text` say, or `None` when no known verb is there.
pub fn from_words(text: &str) -> Option<WordVerdict> {
    let words = words(text);
    if words.is_empty() {
        return None;
    }
    let mut found: Vec<(Reversibility, f64, String, bool)> = Vec::new();
    let mut phrase_tiers: Vec<&'static str> = Vec::new();
    for (parts, tier, conf, phrase) in phrase_table() {
        let at = words
            .windows(parts.len())
            .position(|w| w.iter().zip(parts.iter()).all(|(a, b)| a == b));
        if let Some(pos) = at {
            found.push((*tier, *conf, (*phrase).to_owned(), pos == 0));
            phrase_tiers.push(phrase);
        }
    }
    for (i, word) in words.iter().enumerate() {
        // Words already explained by a phrase do not vote again ("sign" in "sign out").
        if phrase_tiers
            .iter()
            .any(|p| p.split(' ').any(|pw| pw == word))
        {
            continue;
        }
        if let Some((tier, conf)) = lookup(word) {
            // A verb in first position is the action; later words are often objects
            // ("Order history"), so they count, but for less.
            let conf = if i == 0 { conf } else { conf * 0.88 };
            found.push((tier, conf, word.clone(), i == 0));
        }
    }
    if found.is_empty() {
        return None;
    }
    let strictest = found.iter().map(|f| f.0).max()?;
    let mixed = found.iter().any(|f| f.0 != strictest);
    let (tier, conf, cue, first) = found
        .into_iter()
        .filter(|f| f.0 == strictest)
        .max_by(|a, b| a.1.total_cmp(&b.1))?;
    let confidence = if mixed { conf.min(0.75) } else { conf };
    Some(WordVerdict {
        tier,
        confidence,
        cue,
        mixed,
        first,
    })
}

/// Classifies one action. See the module comment for the rule that shapes it.
pub fn classify(ev: &Evidence<'_>) -> Verdict {
    let mut signals = Vec::new();
    let label_words = from_words(ev.label);
    let desc_words = if ev.description.is_empty() {
        None
    } else {
        from_words(ev.description)
    };
    if let Some(w) = &label_words {
        signals.push(format!(
            "{} \"{}\" in the label points to {}",
            if w.cue.contains(' ') {
                "phrase"
            } else {
                "verb"
            },
            w.cue,
            w.tier.as_str()
        ));
        if w.mixed {
            signals.push("the label names verbs of different tiers".into());
        }
    } else if !ev.label.is_empty() {
        signals.push("no known verb in the label".into());
    }
    if let Some(w) = &desc_words {
        signals.push(format!(
            "\"{}\" in the description points to {}",
            w.cue,
            w.tier.as_str()
        ));
    }

    // Evidence beside the words, each a (tier, confidence, why) vote.
    let mut tier;
    let mut confidence;
    let mut tier_reason;
    match ev.kind {
        Kind::Link => {
            signals.push("a link: following it normally only navigates".into());
            match &label_words {
                // A link's label is usually a title ("Rust and WebAssembly book"); only a
                // verb that opens it says the link acts.
                Some(w) if w.tier > Read && w.first => {
                    // GET links can still do damage (one-click unsubscribe, delete links).
                    tier = w.tier;
                    confidence = 0.78;
                    tier_reason = format!(
                        "a link, but its label says \"{}\"; links that act on GET exist, so the stricter tier",
                        w.cue
                    );
                }
                _ => {
                    tier = Read;
                    confidence = 0.92;
                    tier_reason = "a link that navigates".into();
                }
            }
        }
        Kind::Tab => {
            tier = Read;
            confidence = 0.92;
            tier_reason = "a tab switches what is shown".into();
            signals.push("role=tab".into());
            if let Some(w) = label_words.as_ref().filter(|w| w.tier > Read) {
                tier = w.tier;
                confidence = 0.7;
                tier_reason = format!("a tab, but labelled \"{}\"", w.cue);
            }
        }
        Kind::Reset => {
            signals.push("a reset button: clears the form's fields, sends nothing".into());
            tier = ReversibleWrite;
            confidence = 0.9;
            tier_reason = "resetting a form only clears what was typed".into();
        }
        Kind::Toggle => {
            signals.push("a checkbox or switch outside any form".into());
            match label_words.as_ref().filter(|w| w.tier == IrreversibleWrite) {
                Some(w) => {
                    tier = IrreversibleWrite;
                    confidence = 0.7;
                    tier_reason = format!(
                        "a switch, but its label says \"{}\"; switching it may not be undoable",
                        w.cue
                    );
                }
                None => {
                    tier = ReversibleWrite;
                    confidence = 0.9;
                    tier_reason = "a switch can be switched back".into();
                }
            }
        }
        Kind::Choice => {
            signals.push("a choice list outside any form".into());
            match &label_words {
                Some(w) if w.tier == Read => {
                    tier = Read;
                    confidence = 0.86;
                    tier_reason = format!("choosing changes the view (\"{}\")", w.cue);
                }
                Some(w) if w.tier == IrreversibleWrite => {
                    tier = IrreversibleWrite;
                    confidence = 0.7;
                    tier_reason = format!("a choice labelled \"{}\"", w.cue);
                }
                _ => {
                    tier = ReversibleWrite;
                    confidence = 0.82;
                    tier_reason = "a choice that can be chosen back".into();
                }
            }
        }
        Kind::Submit => {
            let form = ev.form.cloned().unwrap_or_default();
            let method = form.method.clone();
            match method.as_deref() {
                Some("get") if !form.implicit => signals.push("the form submits with GET".into()),
                Some(m) if !form.implicit => {
                    signals.push(format!("the form submits with {}", m.to_ascii_uppercase()))
                }
                _ if form.implicit => {
                    signals.push("fields and a button grouped without a <form>".into())
                }
                _ => signals.push("the form has no method (scripted submit)".into()),
            }
            let cancel_like = is_dismiss(ev.label) && form.has_other_submit;
            match (&label_words, method.as_deref()) {
                _ if cancel_like => {
                    tier = Read;
                    confidence = 0.82;
                    tier_reason = "a secondary button that dismisses the form".into();
                }
                (Some(w), Some("get")) if w.tier == Read && !form.implicit => {
                    tier = Read;
                    confidence = 0.95;
                    tier_reason = format!("a GET form whose button says \"{}\"", w.cue);
                }
                (None, Some("get")) if !form.implicit => {
                    tier = Read;
                    confidence = 0.88;
                    tier_reason = "a GET form: submitting only asks for a page".into();
                }
                (Some(w), _) => {
                    tier = w.tier;
                    confidence = w.confidence;
                    tier_reason = format!("the submit button says \"{}\"", w.cue);
                    if w.tier == Read && method.as_deref() == Some("post") {
                        // A POST that claims to read: trust the method more than the word.
                        tier = ReversibleWrite;
                        confidence = 0.7;
                        tier_reason =
                            format!("the button says \"{}\" but the form POSTs data", w.cue);
                    }
                }
                (None, _) => {
                    tier = IrreversibleWrite;
                    confidence = 0.55;
                    tier_reason =
                        "the form sends data and its button names no known verb; assumed permanent"
                            .into();
                }
            }
            if form.action_url.to_ascii_lowercase().contains("delete")
                || form.action_url.to_ascii_lowercase().contains("destroy")
            {
                signals.push(format!("the form's action URL \"{}\"", form.action_url));
                if tier < IrreversibleWrite {
                    tier = IrreversibleWrite;
                    confidence = 0.8;
                    tier_reason = "the form's action URL deletes".into();
                }
            }
            if form.has_payment {
                signals.push("the form has payment fields".into());
                tier = IrreversibleWrite;
                confidence = confidence.max(0.95);
                tier_reason = "the form takes payment details".into();
            } else if form.has_password {
                signals.push("the form has a password field".into());
                if tier < IrreversibleWrite {
                    tier = IrreversibleWrite;
                    confidence = 0.85;
                    tier_reason = "the form submits a password".into();
                } else {
                    confidence = confidence.max(0.9);
                }
            }
        }
        Kind::Button | Kind::Clickable | Kind::Tool => {
            match &label_words {
                Some(w) => {
                    tier = w.tier;
                    confidence = w.confidence;
                    tier_reason = format!("the label says \"{}\"", w.cue);
                }
                None => {
                    tier = IrreversibleWrite;
                    confidence = 0.3;
                    tier_reason = "no known verb; assumed permanent until shown otherwise".into();
                }
            }
            if let Some(d) = &desc_words {
                if label_words.is_none() || d.tier > tier {
                    tier = d.tier.max(tier);
                    confidence = if label_words.is_none() {
                        d.confidence * 0.9
                    } else {
                        confidence.min(0.75)
                    };
                    tier_reason = format!("the description says \"{}\"", d.cue);
                }
            }
            if ev.kind == Kind::Clickable {
                signals.push("a plain element with a click handler (no button semantics)".into());
                confidence *= 0.85;
            }
            if ev.opens_popup {
                signals.push("opens a menu, dialog or disclosure".into());
                if tier == IrreversibleWrite && label_words.is_some() {
                    // "Delete…" that opens a confirm: the act behind it is still a delete.
                    confidence = confidence.min(0.85);
                } else if label_words.as_ref().is_none_or(|w| w.tier == Read) {
                    tier = Read;
                    confidence = 0.86;
                    tier_reason = "it only opens a menu, dialog or disclosure".into();
                }
            }
            if ev.kind == Kind::Button && is_dismiss(ev.label) && ev.in_dialog {
                tier = Read;
                confidence = 0.84;
                tier_reason = "dismisses a dialog".into();
            }
        }
    }

    // Evidence that only ever makes things stricter.
    if let Some(m) = ev.data_method {
        signals.push(format!("data-method={m}"));
        if tier < IrreversibleWrite && m != "get" {
            tier = if m == "delete" {
                IrreversibleWrite
            } else {
                tier.max(ReversibleWrite)
            };
            confidence = confidence.min(0.8);
            tier_reason = format!("the link sends a {} request", m.to_ascii_uppercase());
        }
    }
    if ev.confirms {
        signals.push("the page asks for confirmation first".into());
        if tier < IrreversibleWrite {
            tier = IrreversibleWrite;
            confidence = 0.75;
            tier_reason =
                "the page asks for confirmation, which pages reserve for what cannot be undone"
                    .into();
        } else {
            confidence = (confidence + 0.03).min(0.97);
        }
    }
    if ev.danger {
        signals.push("danger styling".into());
        if tier < IrreversibleWrite {
            tier_reason =
                format!("{tier_reason}; but it is styled as dangerous, so the stricter tier");
            tier = IrreversibleWrite;
            confidence = 0.7;
        } else {
            confidence = (confidence + 0.03).min(0.97);
        }
    }

    // The page's own word, trusted most, but never to lower a strongly evidenced tier.
    if let Some(declared) = ev.declared {
        let evidence_tier = tier;
        let evidence_conf = confidence;
        let (d_tier, d_conf, d_why) = match declared {
            Declared::Tier(t) => (t, 0.99, format!("the page declares {}", t.as_str())),
            Declared::ReadOnly => (Read, 0.99, "the tool is declared read-only".to_owned()),
            Declared::Destructive => (
                IrreversibleWrite,
                0.99,
                "the tool is declared destructive".to_owned(),
            ),
            Declared::NotDestructive => {
                // Not destructive is not the same as undoable; the words still decide
                // between read and reversible.
                let t = if evidence_tier == Read && label_words.is_some() {
                    Read
                } else {
                    ReversibleWrite
                };
                (t, 0.9, "the tool is declared non-destructive".to_owned())
            }
        };
        signals.push(d_why.clone());
        if d_tier < evidence_tier && evidence_conf >= 0.85 && label_words.is_some() {
            signals.push(format!(
                "the declaration ({}) is less strict than the evidence ({})",
                d_tier.as_str(),
                evidence_tier.as_str()
            ));
            tier = evidence_tier;
            confidence = 0.8;
            tier_reason = format!(
                "{d_why}, but the evidence says {}: {tier_reason}; the stricter tier wins",
                evidence_tier.as_str()
            );
        } else {
            tier = d_tier;
            confidence = d_conf;
            tier_reason = d_why;
        }
    }

    let confidence = confidence.clamp(0.0, 1.0);
    let confidence_reason = confidence_reason(confidence, ev.declared.is_some());
    Verdict {
        tier,
        confidence,
        signals,
        tier_reason,
        confidence_reason,
    }
}

fn confidence_reason(confidence: f64, declared: bool) -> String {
    if declared && confidence >= 0.98 {
        "declared by the page itself".into()
    } else if confidence >= 0.9 {
        "strong, consistent evidence".into()
    } else if confidence >= 0.8 {
        "good evidence with some room for doubt".into()
    } else if confidence >= 0.6 {
        "weak or conflicting evidence: the stricter reading was taken".into()
    } else {
        "a guess: nothing on the page says what this does".into()
    }
}

/// "Cancel", "Close", "Dismiss", "Not now": buttons that back out of something.
fn is_dismiss(label: &str) -> bool {
    let w = words(label);
    matches!(
        w.iter().map(String::as_str).collect::<Vec<_>>().as_slice(),
        ["cancel"]
            | ["close"]
            | ["dismiss"]
            | ["not", "now"]
            | ["no", "thanks"]
            | ["never", "mind"]
    )
}

/// Danger styling in a class list.
pub fn is_danger_class(class: &str) -> bool {
    class.split_whitespace().any(|c| {
        let c = c.to_ascii_lowercase();
        c.contains("danger") || c.contains("destructive") || c.contains("critical")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn button(label: &str) -> Verdict {
        classify(&Evidence::new(Kind::Button, label))
    }

    #[test]
    fn verbs_decide_and_unknown_fails_closed() {
        assert_eq!(button("Send").tier, IrreversibleWrite);
        assert_eq!(button("Delete forever").tier, IrreversibleWrite);
        assert!(button("Delete forever").confidence > 0.95);
        assert_eq!(button("Archive").tier, ReversibleWrite);
        assert_eq!(button("Move to Inbox").tier, ReversibleWrite);
        assert_eq!(button("Mark as read").tier, ReversibleWrite);
        assert_eq!(button("Search").tier, Read);
        let unknown = button("Frobnicate");
        assert_eq!(unknown.tier, IrreversibleWrite);
        assert!(unknown.confidence < 0.5);
    }

    #[test]
    fn mixed_words_take_the_stricter_tier_with_less_confidence() {
        let v = button("Undo send");
        assert_eq!(v.tier, IrreversibleWrite);
        assert!(v.confidence <= 0.75);
        let v = button("Save and publish");
        assert_eq!(v.tier, IrreversibleWrite);
    }

    #[test]
    fn danger_and_confirm_only_make_things_stricter() {
        let mut ev = Evidence::new(Kind::Button, "Archive");
        ev.danger = true;
        let v = classify(&ev);
        assert_eq!(v.tier, IrreversibleWrite);
        assert!(v.confidence < 0.8);
        let mut ev = Evidence::new(Kind::Button, "Delete");
        ev.danger = true;
        assert!(classify(&ev).confidence > 0.93);
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
        let mut ev = Evidence::new(Kind::Submit, "Search");
        ev.form = Some(&get);
        let v = classify(&ev);
        assert_eq!((v.tier, v.confidence >= 0.95), (Read, true));
        let mut ev = Evidence::new(Kind::Submit, "Go");
        ev.form = Some(&get);
        assert_eq!(classify(&ev).tier, Read);

        let post = FormFacts {
            method: Some("post".into()),
            ..FormFacts::default()
        };
        let mut ev = Evidence::new(Kind::Submit, "Continue");
        ev.form = Some(&post);
        let v = classify(&ev);
        assert_eq!(v.tier, IrreversibleWrite);
        assert!(v.confidence < 0.6);

        let pay = FormFacts {
            method: Some("post".into()),
            has_payment: true,
            ..FormFacts::default()
        };
        let mut ev = Evidence::new(Kind::Submit, "Save");
        ev.form = Some(&pay);
        let v = classify(&ev);
        assert_eq!(v.tier, IrreversibleWrite);
        assert!(v.confidence >= 0.95);

        let login = FormFacts {
            method: Some("post".into()),
            has_password: true,
            ..FormFacts::default()
        };
        let mut ev = Evidence::new(Kind::Submit, "Continue");
        ev.form = Some(&login);
        assert_eq!(classify(&ev).tier, IrreversibleWrite);
    }

    #[test]
    fn links_read_unless_their_words_act() {
        assert_eq!(classify(&Evidence::new(Kind::Link, "Pricing")).tier, Read);
        let v = classify(&Evidence::new(Kind::Link, "Unsubscribe"));
        assert_eq!(v.tier, IrreversibleWrite);
        assert!(v.confidence < 0.8);
    }

    #[test]
    fn declarations_are_trusted_but_never_lower_strong_evidence() {
        let mut ev = Evidence::new(Kind::Button, "Archive");
        ev.declared = Some(Declared::Tier(ReversibleWrite));
        let v = classify(&ev);
        assert_eq!((v.tier, v.confidence), (ReversibleWrite, 0.99));

        let mut ev = Evidence::new(Kind::Button, "Delete forever");
        ev.declared = Some(Declared::Tier(Read));
        let v = classify(&ev);
        assert_eq!(v.tier, IrreversibleWrite);
        assert!(v.confidence <= 0.8);

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
}

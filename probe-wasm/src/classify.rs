//! Reversibility from evidence, and the one place where evidence becomes a confidence.
//!
//! Every action the probe finds goes through [`classify`]. The evidence builders
//! (forms, rows, controls, declarations) only describe what they saw in an
//! [`Evidence`]; this module turns it into [`Weighed`] signals, each a vote for (or
//! against) one tier with a weight from the single table in [`Signal::weight`].
//!
//! **What confidence means.** An action's confidence is the probability that its
//! binding, its parameters and its tier are all right, where a tier stricter than the
//! truth counts as wrong. It is computed as
//!
//! ```text
//! P(tier) = exp(score[tier]) / Σ exp(score[t])     score[t] = Σ weights voting for t
//! confidence = P(chosen tier) × P(binding right), capped at 0.98 for inferred actions
//! ```
//!
//! The weights are log-odds ("nats"): a signal of weight 2.2 alone, against two tiers
//! with no evidence, gives that tier 0.82; 3.0 gives 0.91; 4.0 gives 0.96. They were set
//! so that, on the synthetic and the real-app corpora, actions scored at or above 0.95
//! have no tier error in either direction, and each confidence bucket is right about as
//! often as it claims (the reliability table in BENCHMARKS.md, asserted by
//! `probe-wasm/tests/corpus.rs`).
//!
//! **The safety rule.** Classifying an irreversible action as reversible or read lowers
//! the gate, the worst error this probe can make. So a lower tier is chosen over
//! `irreversible_write` only when it leads the irreversible score by [`MARGIN`]; when
//! the evidence conflicts, the stricter tier wins, and the softmax then gives it a low
//! confidence, so the gate treats the guess as a guess.
//!
//! **Pages lie.** Every text a control shows is evidence, not only the one that names
//! it ([`shown_texts`]); a declaration counts in full only while nothing the page shows
//! contradicts it, and `read` only when something the page shows reads as a read
//! ([`classify`]). A contradicted declaration is one ordinary word among the others.

use nsp_protocol::Reversibility::{self, IrreversibleWrite, Read, ReversibleWrite};

use crate::context::{Local, PageFacts};
use crate::text::words;

/// How far a lower tier must lead the irreversible score to be chosen over it.
pub const MARGIN: f64 = 1.0;
/// How far `read` must lead the reversible score to be chosen over it.
pub const MARGIN_WRITE: f64 = 0.5;
/// The most an inferred action may claim: page evidence is never proof.
pub const MAX_INFERRED: f64 = 0.98;
/// A page's own declaration: the binding and tier are the page author's word.
pub const DECLARED: f64 = 0.99;

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
    /// A text field outside any form that no other action fills (a filter box).
    Field,
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
    /// A field for recipients (an email address, "To") and one for a message body: what
    /// is submitted reaches other people.
    pub composes: bool,
    /// A user field and exactly one password that is not a new one: a login form.
    pub login: bool,
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
    /// More text describing the action (a tool's description, `data-nsp-description`),
    /// weighed less.
    pub description: &'a str,
    /// The other texts a person or a model sees on the control besides `label` (its
    /// visible text when an `aria-label` names it, its `<label>`, a button input's value,
    /// its title: [`shown_texts`]). A tier one of them names and the label does not is a
    /// conflict, weighed like the label's own words, so the stricter reading wins.
    pub shown: Vec<&'a str>,
    /// The control's visible text (what a sighted person reads on it), whatever names
    /// it: a `read` declaration is corroborated by its words, not by an `aria-label`
    /// the person does not see.
    pub visible: &'a str,
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
    /// Page-wide facts (None for WebMCP tools, which have no element).
    pub page: Option<&'a PageFacts>,
    /// What the page says about this control.
    pub local: Local,
    /// Rows are chosen by position, which shifts: the binding may be wrong.
    pub positional: bool,
    /// The control is disabled right now.
    pub disabled: bool,
    /// The name of the section or form the control sits in ("cart", "coupon"), as
    /// words: "Remove" in the cart reads as "remove from cart".
    pub section: String,
    /// A link's `href`.
    pub href: Option<&'a str>,
    /// The page's own URL (to tell a link to this site from one elsewhere).
    pub page_url: &'a str,
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
    /// WebMCP `readOnlyHint: false` alone: it writes, how is left to the evidence.
    NotReadOnly,
}

impl<'a> Evidence<'a> {
    pub fn new(kind: Kind, label: &'a str) -> Evidence<'a> {
        Evidence {
            kind,
            label,
            description: "",
            shown: Vec::new(),
            visible: "",
            form: None,
            danger: false,
            confirms: false,
            data_method: None,
            opens_popup: false,
            in_dialog: false,
            declared: None,
            page: None,
            local: Local::default(),
            positional: false,
            disabled: false,
            section: String::new(),
            href: None,
            page_url: "",
        }
    }

    /// Evidence for control `idx` of `page`, with what the page around it says.
    pub fn on_page(
        kind: Kind,
        label: &'a str,
        page: &'a crate::page::Page<'_>,
        idx: usize,
    ) -> Evidence<'a> {
        let mut ev = Evidence::new(kind, label);
        let els: &'a [nsp_protocol::snapshot::ElementRecord] = page.els;
        ev.shown = shown_texts(&els[idx], label);
        ev.visible = if crate::page::is_field(&els[idx]) {
            ""
        } else {
            els[idx].text.trim()
        };
        ev.page = Some(&page.facts);
        ev.page_url = &page.snap.url;
        ev.local = crate::context::local(page, &page.facts, idx, label);
        ev.in_dialog = page.in_dialog[idx];
        ev.section = page
            .namespace_incl(idx)
            .map(|ns| {
                ns.split('_')
                    .filter(|w| !matches!(*w, "your" | "my" | "the" | "our"))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_default();
        ev
    }
}

/// The texts of control `e` other than `label` that a person or a model sees: its
/// `aria-label`, its `<label>` (or `aria-labelledby` text), its visible text, a button
/// input's value and its title, each once. `control_label` picks one of them as the
/// label (the `aria-label` first); the rest are evidence too, so a control named
/// "Account" whose visible text says "Delete account" is not read as "Account" alone.
pub fn shown_texts<'a>(e: &'a nsp_protocol::snapshot::ElementRecord, label: &str) -> Vec<&'a str> {
    use crate::page::ElementRecordExt;
    let button_value = e.attr("value").filter(|_| {
        e.tag == "input" && matches!(e.input_type().as_ref(), "submit" | "button" | "reset")
    });
    // A field's text is what it holds (a textarea's, a contenteditable's): data, not
    // a name.
    let text = Some(e.text.as_str()).filter(|_| !crate::page::is_field(e));
    let mut out: Vec<&'a str> = Vec::new();
    for text in [
        e.attr("aria-label"),
        Some(e.label.as_str()),
        text,
        button_value,
        e.attr("title"),
    ]
    .into_iter()
    .flatten()
    {
        let text = text.trim();
        if !text.is_empty() && text != label.trim() && !out.contains(&text) {
            out.push(text);
        }
    }
    out
}

/// How strongly a word or phrase names its tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Strength {
    /// Often means something else ("Cancel" a form or an order; "Apply" a filter).
    Weak,
    Normal,
    /// Rarely means anything else ("Send", "Delete", "Archive", "Search").
    Strong,
    /// Says the effect outright ("Delete forever", "Place order").
    Decisive,
}

/// Which way a signal pushes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vote {
    For(Reversibility),
    /// Evidence that the action is not of this tier (a POST form is not a read), without
    /// saying which of the others it is.
    Against(Reversibility),
}

/// Every kind of evidence the classifier weighs. [`Signal::weight`] is the one table of
/// weights; nothing else in the probe sets a confidence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// A verb or phrase opening the label.
    LabelVerb(Strength),
    /// A known word later in the label: often the object ("Order history").
    LabelWord(Strength),
    /// A known word in a longer description (inflected forms too: "deletes"), the
    /// strongest one per tier: the words of one sentence are not independent evidence.
    DescriptionWord(Strength),
    /// A verb or phrase opening another text shown on the control (its visible text when
    /// an `aria-label` names it, its title), naming a tier the label does not.
    ShownVerb(Strength),
    /// A known word later in such a text, naming a tier the label does not.
    ShownWord(Strength),
    /// No known word: assumed permanent until shown otherwise.
    NoVerb,
    /// A link: following it normally only navigates.
    Link,
    /// `role=tab`: switches what is shown.
    Tab,
    /// A select or listbox outside a form: chosen back as easily.
    Choice,
    /// A form's reset button.
    Reset,
    /// Opens a menu, dialog or disclosure.
    OpensPopup,
    /// A button that creates or replies, with no fields to carry what it would send:
    /// it opens an editor, and nothing happens until that is filled and saved.
    OpensEditor,
    /// A link whose label ends a session ("Log out"): its target performs it, so the
    /// link is weaker evidence of a mere navigation.
    LinkActs,
    /// A link to a page of this site with no query: sites route a GET of a plain path to
    /// a page (a form, a confirmation step) and act on POST.
    LinkToPage,
    /// A checkbox that selects rows or items for a later step: selection changes what is
    /// chosen, not what is stored.
    Selection,
    /// A login form (a user field and one current password): it starts a session.
    LoginForm,
    /// A secret field in the form: submitting it is never a mere read.
    SecretField,
    /// A text field outside any form: typing changes what it holds, and nothing sends
    /// it (a page may still save as you type, so it is not a read on its own).
    LooseField,
    /// Cancel/Close in a dialog, or a secondary Cancel beside a form's real submit.
    Dismisses,
    /// The form submits with GET: it asks for a page.
    GetForm,
    /// The form submits with POST (or another writing method).
    WriteForm,
    /// The form's action URL names a deletion.
    FormAction,
    /// The URL path names a committing step (`/delete/`, `/confirm`, `/checkout`), and
    /// this submits the page's one writing form.
    PagePath,
    /// The page's title or first heading names the action, for its one writing form.
    PageHeading,
    /// The one writing form of a page that asks "are you sure" and offers a way back.
    ConfirmationPage,
    /// "Cannot be undone", "permanently", "will be deleted" near the control.
    Warning,
    /// A form with recipients and a message: it reaches other people.
    Compose,
    /// Card or bank details in the form.
    Payment,
    /// A password in a form that does not log in or sign up.
    Password,
    /// Logging in, out or signing up with a password form: undone by logging out.
    Authentication,
    /// The control holds a pressed or checked state; pressing it again undoes it.
    ToggleState,
    /// The verb that undoes this one is on the page too (archive/unarchive).
    InversePair,
    /// An "Undo" control on the page.
    Undo,
    /// A trash or bin the deleted item goes to.
    Trash,
    /// Danger styling.
    Danger,
    /// The page asks for confirmation before it acts (`data-confirm`).
    AsksConfirmation,
    /// `data-method="delete"`.
    DataMethodDelete,
    /// `data-method` post, put or patch.
    DataMethodWrite,
    /// The page raised `confirm()` when an action was dispatched to the control (and
    /// NSP declined it): pages ask before what cannot be undone.
    ConfirmSeen,
    /// The page's own declaration.
    Declared,
    /// The page's declaration when what the page shows contradicts it (a stricter word,
    /// a writing form, a warning), or, for `read`, when nothing the page shows reads
    /// as a read: no longer the author's word, one claim among the others.
    DeclaredContradicted,
    /// A correction a person made for this action on this site (or an agent's, which
    /// only tightens), applied by `corrections.rs` at declared level.
    Corrected,
}

impl Signal {
    /// The weight of a signal, in nats of log-odds for the tier it votes for.
    pub fn weight(self) -> f64 {
        fn verb(s: Strength) -> f64 {
            match s {
                Strength::Weak => 1.0,
                Strength::Normal => 2.2,
                Strength::Strong => 3.0,
                Strength::Decisive => 4.0,
            }
        }
        match self {
            Signal::LabelVerb(s) => verb(s),
            Signal::LabelWord(s) => verb(s) * 0.6,
            Signal::DescriptionWord(s) => verb(s) * 0.5,
            Signal::ShownVerb(s) => verb(s),
            Signal::ShownWord(s) => verb(s) * 0.6,
            Signal::NoVerb => 0.5,
            Signal::Link => 3.0,
            Signal::Tab => 3.0,
            Signal::Choice => 1.5,
            Signal::Reset => 3.0,
            Signal::OpensPopup => 3.5,
            Signal::OpensEditor => 3.5,
            Signal::LinkActs => 1.0,
            Signal::LinkToPage => 1.5,
            Signal::Selection => 3.0,
            Signal::LoginForm => 2.5,
            Signal::SecretField => 2.5,
            Signal::LooseField => 0.5,
            Signal::Dismisses => 3.5,
            Signal::GetForm => 2.5,
            Signal::WriteForm => 2.5,
            Signal::FormAction => 2.0,
            Signal::PagePath => 1.5,
            Signal::PageHeading => 1.0,
            Signal::ConfirmationPage => 3.0,
            Signal::Warning => 2.0,
            Signal::Compose => 1.5,
            Signal::Payment => 4.0,
            Signal::Password => 1.0,
            Signal::Authentication => 1.0,
            Signal::ToggleState => 2.5,
            Signal::InversePair => 3.5,
            Signal::Undo => 1.0,
            Signal::Trash => 1.0,
            Signal::Danger => 2.0,
            Signal::AsksConfirmation => 2.5,
            Signal::DataMethodDelete => 2.5,
            Signal::DataMethodWrite => 2.5,
            Signal::ConfirmSeen => 3.0,
            Signal::Declared => 8.0,
            // As much as one ordinary word of the page's text (a Normal verb).
            Signal::DeclaredContradicted => 2.2,
            Signal::Corrected => 8.0,
        }
    }

    /// The signal's name in explanations.
    pub fn name(self) -> &'static str {
        match self {
            Signal::LabelVerb(_) => "label_verb",
            Signal::LabelWord(_) => "label_word",
            Signal::DescriptionWord(_) => "description_word",
            Signal::ShownVerb(_) => "shown_verb",
            Signal::ShownWord(_) => "shown_word",
            Signal::NoVerb => "no_verb",
            Signal::Link => "link",
            Signal::Tab => "tab",
            Signal::Choice => "choice",
            Signal::Reset => "reset",
            Signal::OpensPopup => "opens_popup",
            Signal::OpensEditor => "opens_editor",
            Signal::LinkActs => "link_acts",
            Signal::LinkToPage => "link_to_page",
            Signal::Selection => "selection",
            Signal::LoginForm => "login_form",
            Signal::SecretField => "secret_field",
            Signal::LooseField => "loose_field",
            Signal::Dismisses => "dismisses",
            Signal::GetForm => "get_form",
            Signal::WriteForm => "write_form",
            Signal::FormAction => "form_action",
            Signal::PagePath => "page_path",
            Signal::PageHeading => "page_heading",
            Signal::ConfirmationPage => "confirmation_page",
            Signal::Warning => "warning_text",
            Signal::Compose => "compose",
            Signal::Payment => "payment",
            Signal::Password => "password",
            Signal::Authentication => "authentication",
            Signal::ToggleState => "toggle_state",
            Signal::InversePair => "inverse_pair",
            Signal::Undo => "undo",
            Signal::Trash => "trash",
            Signal::Danger => "danger_styling",
            Signal::AsksConfirmation => "asks_confirmation",
            Signal::DataMethodDelete => "data_method_delete",
            Signal::DataMethodWrite => "data_method_write",
            Signal::ConfirmSeen => "confirm_seen",
            Signal::Declared => "declared",
            Signal::DeclaredContradicted => "declared_contradicted",
            Signal::Corrected => "corrected",
        }
    }
}

/// The probability that an action's binding and parameters are right, by how it is
/// bound. Multiplies the tier's probability.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Binding {
    /// A plain element with a click handler: it may be a wrapper of the real control.
    PlainClickable,
    /// Rows chosen by their position, which shifts as rows come and go.
    Positional,
    /// The control is disabled now: the form is not ready as described.
    Disabled,
}

impl Binding {
    pub fn probability(self) -> f64 {
        match self {
            Binding::PlainClickable => 0.85,
            Binding::Positional => 0.85,
            Binding::Disabled => 0.9,
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Binding::PlainClickable => "a plain element with a click handler (no button semantics)",
            Binding::Positional => {
                "rows have no identity; the parameter is a position, which shifts"
            }
            Binding::Disabled => "the control is disabled right now",
        }
    }
}

/// One signal as weighed for one action.
#[derive(Debug, Clone, PartialEq)]
pub struct Weighed {
    pub signal: Signal,
    pub vote: Vote,
    pub detail: String,
}

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

/// What the words of a label say.
#[derive(Debug, Clone, PartialEq)]
pub struct WordVerdict {
    pub tier: Reversibility,
    pub strength: Strength,
    /// The word or phrase that decided, e.g. "delete forever".
    pub cue: String,
    /// More than one tier was named ("Undo send").
    pub mixed: bool,
    /// The cue opens the label (a verb in first position names the action; later words
    /// are often its object: "Order history", "Rust and WebAssembly book").
    pub first: bool,
}

use Strength::{Decisive, Normal, Strong, Weak};

/// Multi-word phrases, checked before single words: their meaning differs from their
/// parts ("move to trash" is recoverable, "delete forever" is not). A phrase inside a
/// longer matched phrase does not vote ("sign out" in "sign out other sessions").
const PHRASES: &[&str] = &[
    concat!(
        "delete forever:i4,permanently delete:i4,delete permanently:i4,delete account:i4,",
        "delete my account:i4,delete this repository:i4,delete repository:i4,",
        "close account:i3,place order:i4,place your order:i4,buy now:i4,pay now:i4,",
        "complete purchase:i4,confirm purchase:i4,confirm order:i3,send money:i4,",
        "transfer funds:i4,empty trash:i3,empty bin:i3,cancel subscription:i3,",
        "cancel order:i3,",
    ),
    // Credentials and sessions: ending other sessions, rotating keys and changing a
    // password cannot be taken back by the person who did it.
    concat!(
        "sign out other sessions:i3,sign out of other sessions:i3,",
        "sign out all other sessions:i3,sign out everywhere:i3,sign out of all:i3,",
        "log out other sessions:i3,log out of other sessions:i3,",
        "log out all other sessions:i3,log out everywhere:i3,log out of all:i3,",
        "log out all devices:i3,sign out all devices:i3,end other sessions:i3,",
        "end all sessions:i3,revoke all:i3,change password:i3,update password:i3,",
        "reset password:i3,regenerate key:i3,regenerate token:i3,",
    ),
    // Authentication: a session or an account that can be ended again.
    concat!(
        "sign up:w2,create account:w2,create an account:w2,sign in:w2,log in:w2,",
        "sign out:w2,log out:w2,save draft:w3,save as draft:w3,move to trash:w3,",
        "move to bin:w3,move to inbox:w3,move to archive:w3,mark as read:w3,",
        "mark as unread:w3,mark read:w3,mark unread:w3,add to cart:w3,add to bag:w3,",
        "add to basket:w3,add to wishlist:w3,remove from cart:w2,remove from bag:w2,",
        "remove from basket:w2,remove from wishlist:w2,remove from favorites:w2,",
        "apply filters:r2,apply filter:r2,apply coupon:w2,apply code:w2,",
        "apply promo code:w2,apply discount:w2,load more:r2,show more:r2,see more:r2,",
        "learn more:r2,read more:r2,see all:r2,view all:r2,go back:r2,close ticket:w2,",
        "close issue:w2,close pull request:w2,reopen:w2,",
    ),
];

/// Single words, by the tier they point to and how strongly.
const WORDS: &[&str] = &[
    // Permanent, or reaching other people or money.
    "send:i3,submit:i2,pay:i3,buy:i3,order:i2,purchase:i3,checkout:i3,delete:i3,",
    // Most removals take an item out of a list or set it can be put back into; alone,
    // the word is a weak sign of permanence.
    concat!(
        "remove:i1,destroy:i3,erase:i3,purge:i3,wipe:i3,publish:i3,post:i2,tweet:i3,",
        "reply:i2,forward:i2,comment:i2,share:i2,transfer:i3,confirm:i2,approve:i2,",
        "reject:i2,decline:i2,accept:i2,merge:i2,deploy:i2,release:i2,terminate:i3,",
        "revoke:i3,deactivate:i2,invite:i2,donate:i3,refund:i3,charge:i3,withdraw:i3,",
        "deposit:i3,book:i2,reserve:i2,subscribe:i2,unsubscribe:i2,vote:i2,report:i2,",
        "ban:i2,kick:i2,reset:i2,empty:i2,drop:i2,kill:i2,shutdown:i2,execute:i2,",
        "launch:i2,sign:i2,upgrade:i2,downgrade:i2,finish:i2,complete:i2,retry:i1,",
        "restart:i2,repost:i2,retweet:i2,reshare:i2,regenerate:i2,rotate:i1,",
    ),
    // Alone, these are ambiguous ("Cancel" may close a form or cancel an order; "Apply"
    // a filter or for a loan): strict and unsure.
    "cancel:i1,apply:i1,",
    // Undoable.
    concat!(
        "archive:w3,unarchive:w3,restore:w2,star:w3,unstar:w3,label:w2,tag:w2,untag:w2,",
        "move:w2,mark:w2,flag:w2,unflag:w2,snooze:w3,pin:w2,unpin:w2,mute:w2,unmute:w2,",
        "like:w2,unlike:w2,favorite:w2,favourite:w2,bookmark:w2,follow:w2,unfollow:w2,",
        "watch:w2,unwatch:w2,save:w2,draft:w2,add:w2,update:w2,rename:w2,toggle:w2,",
        "enable:w2,disable:w2,turn:w2,switch:w2,set:w2,change:w2,assign:w2,unassign:w2,",
        "hide:w2,attach:w2,detach:w2,upload:w1,duplicate:w2,create:w1,new:w1,undo:w2,",
        "redo:w2,check:w1,uncheck:w2,increase:w2,decrease:w2,join:w1,leave:w1,block:w1,",
        "unblock:w2,upvote:w2,downvote:w2,login:w2,signin:w2,logout:w2,signout:w2,",
        "signup:w2,register:w1,reorder:w2,schedule:w1,reschedule:w1,resume:w2,",
        "reactivate:w2,activate:w1,unsuspend:w2,",
    ),
    // A suspension is temporary by its meaning.
    "suspend:w2,unlock:w2,lock:w1,unpublish:w2,",
    // Changes nothing.
    concat!(
        "search:r3,select:r2,deselect:r2,unselect:r2,find:r2,filter:r2,filters:r2,",
        "open:r2,view:r2,",
    ),
    // An edit control opens an editor; saving is a separate step.
    concat!(
        "edit:r1,sort:r2,show:r2,display:r2,next:r2,previous:r2,prev:r2,back:r2,",
        "refresh:r2,reload:r2,expand:r2,collapse:r2,go:r2,details:r2,more:r2,less:r2,",
        "help:r2,preview:r2,browse:r2,see:r2,download:r2,print:r2,export:r2,zoom:r2,",
        "close:r1,dismiss:r2,read:r2,get:r2,list:r2,fetch:r2,query:r2,lookup:r2,look:r2,",
        "play:r2,pause:r2,copy:r2,today:r2,home:r2,",
    ),
];

/// One lexicon entry: a word or phrase, its tier and strength.
type Entry = (&'static str, Reversibility, Strength);

/// Unpacks lexicon text: `word:TS` entries separated by commas, `T` the tier (`r`
/// read, `w` reversible write, `i` irreversible write) and `S` the strength from 1
/// (weak) to 4 (decisive). Text rather than a table of tuples because a tuple table
/// costs the wasm its pointers, which do not compress.
fn unpack(groups: &'static [&'static str], out: &mut Vec<Entry>) {
    for entry in groups.iter().flat_map(|g| g.split(',')) {
        let Some((word, code)) = entry.rsplit_once(':') else {
            continue;
        };
        let mut c = code.bytes();
        let tier = match c.next() {
            Some(b'r') => Read,
            Some(b'w') => ReversibleWrite,
            _ => IrreversibleWrite,
        };
        let strength = match c.next() {
            Some(b'1') => Weak,
            Some(b'2') => Normal,
            Some(b'3') => Strong,
            _ => Decisive,
        };
        out.push((word, tier, strength));
    }
}

/// The word lexicon sorted by word, built once: classification runs for every control.
fn word_table() -> &'static [Entry] {
    static TABLE: std::sync::OnceLock<Vec<Entry>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = Vec::new();
        unpack(WORDS, &mut table);
        table.sort_unstable_by(|a, b| a.0.cmp(b.0));
        table
    })
}

fn lookup(word: &str) -> Option<(Reversibility, Strength)> {
    let table = word_table();
    table
        .binary_search_by(|(w, _, _)| (*w).cmp(word))
        .ok()
        .map(|i| (table[i].1, table[i].2))
}

/// Phrases, longest first, so that a longer phrase claims its words before a phrase
/// inside it can.
fn phrase_table() -> &'static [Entry] {
    static TABLE: std::sync::OnceLock<Vec<Entry>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut all = Vec::new();
        unpack(PHRASES, &mut all);
        let len = |p: &str| p.split(' ').count();
        let longest = all.iter().map(|p| len(p.0)).max().unwrap_or(0);
        // Longest first without a sort (a sort of this type costs the wasm kilobytes).
        let mut table = Vec::with_capacity(all.len());
        for n in (1..=longest).rev() {
            table.extend(all.iter().filter(|p| len(p.0) == n).copied());
        }
        table
    })
}

/// One known word or phrase found in a text.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub tier: Reversibility,
    pub strength: Strength,
    pub cue: String,
    /// The cue opens the text.
    pub first: bool,
}

/// Every known word and phrase in `text`, in the order found (phrases first).
pub fn hits(text: &str) -> Vec<Hit> {
    hits_in(text, false)
}

/// A word's base form for the lexicon when it is inflected ("deletes", "archived"),
/// as descriptions write verbs. Not applied to labels, whose plurals are mostly nouns
/// ("Orders", "Posts").
fn base_form(word: &str) -> Option<(Reversibility, Strength)> {
    ["s", "es", "d", "ed"]
        .iter()
        .filter_map(|suffix| word.strip_suffix(suffix))
        .filter(|stem| stem.len() >= 3)
        .find_map(lookup)
}

/// [`hits`], with inflected words too when `inflected`.
fn hits_in(text: &str, inflected: bool) -> Vec<Hit> {
    let words = words(text);
    let mut out = Vec::new();
    if words.is_empty() {
        return out;
    }
    let mut used = vec![false; words.len()];
    for (phrase, tier, strength) in phrase_table() {
        let n = phrase.split(' ').count();
        if n > words.len() {
            continue;
        }
        let at = (0..=words.len() - n).find(|&i| {
            !used[i..i + n].iter().any(|u| *u)
                && words[i..i + n]
                    .iter()
                    .zip(phrase.split(' '))
                    .all(|(a, b)| a == b)
        });
        if let Some(pos) = at {
            used[pos..pos + n].iter_mut().for_each(|u| *u = true);
            out.push(Hit {
                tier: *tier,
                strength: *strength,
                cue: (*phrase).to_owned(),
                first: pos == 0,
            });
        }
    }
    for (i, word) in words.iter().enumerate() {
        if used[i] {
            continue;
        }
        let found = lookup(word).or_else(|| inflected.then(|| base_form(word)).flatten());
        if let Some((tier, strength)) = found {
            out.push(Hit {
                tier,
                strength,
                cue: word.clone(),
                first: i == 0,
            });
        }
    }
    out
}

/// A phrase made of a short label and the name of its section ("Remove" in the cart:
/// "remove from cart"; "Apply" in the coupon form: "apply coupon"), when one matches.
fn section_hits(label: &str, section: &str) -> Option<Vec<Hit>> {
    let n = words(label).len();
    if section.is_empty() || n == 0 || n > 2 {
        return None;
    }
    for glue in ["", "from", "to"] {
        let text = format!("{label} {glue} {section}");
        if let Some(h) = hits(&text)
            .into_iter()
            .find(|h| h.first && h.cue.split(' ').count() > n)
        {
            return Some(vec![h]);
        }
    }
    None
}

/// What the words of `text` say, in short: the strictest tier named, by its strongest
/// cue. `None` when no known word is there.
pub fn from_words(text: &str) -> Option<WordVerdict> {
    let found = hits(text);
    let strictest = found.iter().map(|h| h.tier).max()?;
    let mixed = found.iter().any(|h| h.tier != strictest);
    let best = found
        .into_iter()
        .filter(|h| h.tier == strictest)
        .max_by_key(|h| (h.first, h.strength))?;
    Some(WordVerdict {
        tier: best.tier,
        strength: best.strength,
        cue: best.cue,
        mixed,
        first: best.first,
    })
}

/// Labels of logging in, out and signing up.
fn is_authentication(cue: &str) -> bool {
    matches!(
        cue,
        "sign in"
            | "log in"
            | "login"
            | "signin"
            | "sign up"
            | "signup"
            | "create account"
            | "create an account"
            | "register"
            | "sign out"
            | "log out"
            | "logout"
            | "signout"
    )
}

/// The confidence of an action raised to `irreversible_write` because the page asked
/// `confirm()` when it was dispatched: [`Signal::ConfirmSeen`] alone against two silent
/// tiers (the earlier evidence pointed elsewhere, so it is not counted for). About 0.91:
/// below the irreversible floor, so only a declaration or a person lets an agent go on.
pub fn raised_by_confirm() -> f64 {
    let w = Signal::ConfirmSeen.weight().exp();
    w / (w + 2.0)
}

/// Labels of checkboxes that choose items for a later step.
fn is_selection(cue: &str) -> bool {
    matches!(cue, "select" | "deselect" | "unselect" | "select all")
}

/// A link to a page of the same site whose URL has no query: not `#`, `javascript:`,
/// `mailto:` or another host.
fn plain_page_link(href: &str, page_url: &str) -> bool {
    let h = href.trim();
    if h.is_empty() || h.starts_with('#') || h.contains('?') {
        return false;
    }
    let lower = h.to_ascii_lowercase();
    if lower.starts_with("javascript:") || lower.starts_with("mailto:") || lower.starts_with("tel:")
    {
        return false;
    }
    match lower.split_once("://") {
        None => !lower.starts_with("//"),
        Some((_, rest)) => {
            let host = rest.split('/').next().unwrap_or("");
            !host.is_empty() && crate::text::host(page_url).eq_ignore_ascii_case(host)
        }
    }
}

/// Labels that end a session.
fn ends_session(cue: &str) -> bool {
    matches!(cue, "sign out" | "log out" | "logout" | "signout")
}

/// Verbs of buttons that start something to be filled in.
fn opens_editor(cue: &str) -> bool {
    matches!(
        cue,
        "add" | "new" | "create" | "compose" | "write" | "reply" | "comment" | "forward"
    )
}

/// Cues of deletion, which a trash or undo can soften.
fn is_deletion(cue: &str) -> bool {
    matches!(cue, "delete" | "remove" | "erase" | "discard")
}

/// Collects the signals of one action.
#[derive(Clone)]
struct Tally {
    weighed: Vec<Weighed>,
    bindings: Vec<Binding>,
}

impl Tally {
    fn add(&mut self, signal: Signal, vote: Vote, detail: impl Into<String>) {
        self.weighed.push(Weighed {
            signal,
            vote,
            detail: detail.into(),
        });
    }
}

/// The strongest hit of each tier in one text (an opening one before a later one when
/// `prefer_first`), indexed by tier: the words of one text are one piece of evidence per
/// tier, not one per word.
fn strongest_per_tier(found: &[Hit], prefer_first: bool) -> [Option<&Hit>; 3] {
    let rank = |h: &Hit| (prefer_first && h.first, h.strength);
    let mut best: [Option<&Hit>; 3] = [None; 3];
    for h in found {
        let slot = &mut best[h.tier as usize];
        if slot.is_none_or(|b| rank(h) > rank(b)) {
            *slot = Some(h);
        }
    }
    best
}

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
    let mut t = Tally {
        weighed: Vec::new(),
        bindings: Vec::new(),
    };
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
            "the read words are not in the control's visible text, whose words name nothing known: assumed permanent",
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
            | Signal::ShownWord(_) => visible_text_allows_read(ev),
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

/// Turns what the evidence holds into weighed signals.
fn gather(ev: &Evidence<'_>, t: &mut Tally) {
    let section_phrase = section_hits(ev.label, &ev.section);
    let label_hits = section_phrase.clone().unwrap_or_else(|| hits(ev.label));
    let form = ev.form.cloned().unwrap_or_default();
    let writes_form = ev.kind == Kind::Submit
        && !form.implicit
        && form
            .method
            .as_deref()
            .is_some_and(|m| m != "get" && m != "dialog");
    let dismiss = is_dismiss(ev.label);
    let secondary_dismiss = ev.kind == Kind::Submit && dismiss && form.has_other_submit;
    // "Cancel" or "No, take me back" beside a form or in a dialog backs out of it.
    let dialog_dismiss = matches!(ev.kind, Kind::Button | Kind::Clickable | Kind::Link)
        && dismiss
        && (ev.in_dialog || ev.local.in_form);
    let auth = label_hits.iter().any(|h| is_authentication(&h.cue));

    // The words.
    if secondary_dismiss || dialog_dismiss {
        t.add(
            Signal::Dismisses,
            Vote::For(Read),
            if secondary_dismiss {
                "a secondary button that dismisses the form"
            } else {
                "backs out of the dialog or form it sits in"
            },
        );
    } else {
        // Later words of the opening verb's own tier are usually its object ("Delete
        // Buy milk"): the verb has said it already. Words of another tier still count,
        // and make the reading mixed ("Undo send").
        let opening = label_hits.iter().find(|h| h.first).map(|h| h.tier);
        for h in label_hits
            .iter()
            .filter(|h| h.first || Some(h.tier) != opening)
        {
            let strength =
                if ev.kind == Kind::Link && h.tier == ReversibleWrite && !ends_session(&h.cue) {
                    // A link's words name where it goes ("Edit profile"): following it
                    // opens that view.
                    Strength::Weak
                } else {
                    h.strength
                };
            let signal = if h.first {
                Signal::LabelVerb(strength)
            } else {
                Signal::LabelWord(strength)
            };
            let what = if section_phrase.is_some() {
                "phrase (label and section)"
            } else if h.cue.contains(' ') {
                "phrase"
            } else {
                "word"
            };
            t.add(
                signal,
                Vote::For(h.tier),
                format!(
                    "{what} \"{}\" in the label points to {}",
                    h.cue,
                    h.tier.as_str()
                ),
            );
        }
    }
    // The other texts shown on the control: a tier they name and the label does not is
    // a conflict between what the person sees and what the control is called.
    let mut named = [false; 3];
    for w in &t.weighed {
        if let Vote::For(tier) = w.vote {
            named[tier as usize] = true;
        }
    }
    for text in &ev.shown {
        let found = hits(text);
        for h in strongest_per_tier(&found, true).into_iter().flatten() {
            if std::mem::replace(&mut named[h.tier as usize], true) {
                continue;
            }
            let strength =
                if ev.kind == Kind::Link && h.tier == ReversibleWrite && !ends_session(&h.cue) {
                    Strength::Weak
                } else {
                    h.strength
                };
            t.add(
                if h.first {
                    Signal::ShownVerb(strength)
                } else {
                    Signal::ShownWord(strength)
                },
                Vote::For(h.tier),
                format!(
                    "\"{}\" in the control's text \"{}\" points to {}, which its label \"{}\" does not",
                    h.cue,
                    crate::text::clip(text, 60),
                    h.tier.as_str(),
                    crate::text::clip(ev.label, 60)
                ),
            );
        }
    }
    if !ev.description.is_empty() {
        // One vote per tier, the strongest: a description full of read words says
        // "read" once.
        let found = hits_in(ev.description, true);
        for h in strongest_per_tier(&found, false).into_iter().flatten() {
            t.add(
                Signal::DescriptionWord(h.strength),
                Vote::For(h.tier),
                format!(
                    "\"{}\" in the description points to {}",
                    h.cue,
                    h.tier.as_str()
                ),
            );
        }
    }

    // The kind of control.
    match ev.kind {
        Kind::Link if label_hits.iter().any(|h| h.first && ends_session(&h.cue)) => t.add(
            Signal::LinkActs,
            Vote::For(Read),
            "a link, but one that ends a session: its target performs it",
        ),
        Kind::Link => {
            t.add(
                Signal::Link,
                Vote::For(Read),
                "a link: following it normally only navigates",
            );
            if let Some(href) = ev.href.filter(|h| plain_page_link(h, ev.page_url)) {
                t.add(
                    Signal::LinkToPage,
                    Vote::For(Read),
                    format!(
                        "it links to the page \"{}\" of this site, with no query",
                        crate::text::clip(href, 80)
                    ),
                );
            }
        }
        Kind::Tab => t.add(
            Signal::Tab,
            Vote::For(Read),
            "role=tab switches what is shown",
        ),
        Kind::Reset => t.add(
            Signal::Reset,
            Vote::For(ReversibleWrite),
            "a reset button: clears the form's fields, sends nothing",
        ),
        Kind::Toggle
            if label_hits
                .first()
                .is_some_and(|h| h.first && is_selection(&h.cue)) =>
        {
            t.add(
                Signal::Selection,
                Vote::For(Read),
                "a checkbox that selects items for a later step",
            )
        }
        Kind::Toggle => t.add(
            Signal::ToggleState,
            Vote::For(ReversibleWrite),
            "a checkbox or switch: it can be switched back",
        ),
        Kind::Choice => t.add(
            Signal::Choice,
            Vote::For(ReversibleWrite),
            "a choice list outside any form: it can be chosen back",
        ),
        Kind::Clickable => t.bindings.push(Binding::PlainClickable),
        Kind::Field => t.add(
            Signal::LooseField,
            Vote::For(ReversibleWrite),
            "a field outside any form: typing changes what it holds, and nothing sends it",
        ),
        Kind::Button | Kind::Submit | Kind::Tool => {}
    }
    if ev.kind != Kind::Toggle && ev.local.toggle_state {
        t.add(
            Signal::ToggleState,
            Vote::For(ReversibleWrite),
            "it holds a pressed or checked state: pressing it again undoes it",
        );
    }
    if ev.kind != Kind::Submit && label_hits.iter().any(|h| h.first && ends_session(&h.cue)) {
        t.add(
            Signal::Authentication,
            Vote::For(ReversibleWrite),
            "it ends this session: logging in again undoes it",
        );
    }
    let creates = label_hits
        .first()
        .is_some_and(|h| h.first && opens_editor(&h.cue));
    if creates && ev.kind == Kind::Button && ev.form.is_none() && !ev.local.in_form {
        t.add(
            Signal::OpensEditor,
            Vote::For(Read),
            "a button that creates or replies, with no fields of its own: it opens an editor",
        );
    }
    // A dangerous-looking control that opens a dialog leads into the dangerous step:
    // that it only opens something is then no comfort.
    if ev.opens_popup && !ev.danger && matches!(ev.kind, Kind::Button | Kind::Clickable) {
        t.add(
            Signal::OpensPopup,
            Vote::For(Read),
            "opens a menu, dialog or disclosure",
        );
    }

    // The form.
    if ev.kind == Kind::Submit {
        match form.method.as_deref() {
            _ if form.implicit => {}
            Some("get") => t.add(
                Signal::GetForm,
                Vote::For(Read),
                "the form submits with GET: it asks for a page",
            ),
            Some(m) if writes_form => t.add(
                Signal::WriteForm,
                Vote::Against(Read),
                format!("the form submits with {}", m.to_ascii_uppercase()),
            ),
            _ => {}
        }
        let action = form.action_url.to_ascii_lowercase();
        if action.contains("delete") || action.contains("destroy") {
            t.add(
                Signal::FormAction,
                Vote::For(IrreversibleWrite),
                format!("the form's action URL \"{}\"", form.action_url),
            );
        }
        if form.has_password || form.has_payment {
            t.add(
                Signal::SecretField,
                Vote::Against(Read),
                "the form submits a secret field",
            );
        }
        if form.has_payment {
            t.add(
                Signal::Payment,
                Vote::For(IrreversibleWrite),
                "the form takes payment details",
            );
        } else if form.has_password && auth {
            t.add(
                Signal::Authentication,
                Vote::For(ReversibleWrite),
                "a password form that logs in or signs up: undone by logging out",
            );
        } else if form.login {
            t.add(
                Signal::LoginForm,
                Vote::For(ReversibleWrite),
                "a user field and one current password: a login form, undone by logging out",
            );
        } else if form.has_password {
            t.add(
                Signal::Password,
                Vote::For(IrreversibleWrite),
                "the form submits a password",
            );
        }
        if form.composes && !secondary_dismiss {
            t.add(
                Signal::Compose,
                Vote::For(IrreversibleWrite),
                "the form has recipients and a message: it reaches other people",
            );
        }
    }

    // The page around it.
    if let Some(page) = ev.page {
        let submits_lone_form =
            ev.local.lone_write_form && ev.kind == Kind::Submit && !secondary_dismiss;
        if submits_lone_form {
            if let Some(cue) = page.path_cue {
                t.add(
                    Signal::PagePath,
                    Vote::For(IrreversibleWrite),
                    format!("the page's URL path names \"{cue}\""),
                );
            }
            if let Some(h) = &page.heading {
                t.add(
                    Signal::PageHeading,
                    Vote::For(h.tier),
                    format!(
                        "the page's title or heading says \"{}\" ({})",
                        h.cue,
                        h.tier.as_str()
                    ),
                );
            }
        }
        if ev.local.confirmation_page && submits_lone_form {
            t.add(
                Signal::ConfirmationPage,
                Vote::For(IrreversibleWrite),
                match &page.question {
                    Some(q) => format!(
                        "the one form of a confirmation page that asks \"{q}\" and offers a way back"
                    ),
                    None => "the one form of a page that warns and offers a way back".to_owned(),
                },
            );
        }
        if let Some(w) = ev
            .local
            .warning
            .filter(|_| !secondary_dismiss && !dialog_dismiss)
        {
            t.add(
                Signal::Warning,
                Vote::For(IrreversibleWrite),
                format!("warning text nearby: \"{w}\""),
            );
        }
        if let Some(inv) = ev.local.inverse {
            t.add(
                Signal::InversePair,
                Vote::For(ReversibleWrite),
                format!("\"{inv}\" on the same page undoes it"),
            );
        }
        let deletes = label_hits.iter().any(|h| is_deletion(&h.cue));
        if deletes && page.trash {
            t.add(
                Signal::Trash,
                Vote::For(ReversibleWrite),
                "the page has a trash or bin where deleted items go",
            );
        }
        if deletes && page.undo {
            t.add(
                Signal::Undo,
                Vote::For(ReversibleWrite),
                "the page offers \"Undo\"",
            );
        }
    }

    // A warning the control carries itself (its description or title: "permanently
    // deletes the account"), where the page around it had none.
    let warned = t.weighed.iter().any(|w| w.signal == Signal::Warning);
    if !warned && !secondary_dismiss && !dialog_dismiss {
        let own = std::iter::once(ev.description)
            .chain(ev.shown.iter().copied())
            .find_map(|text| crate::context::warning_in(text).map(|w| (w, text)));
        if let Some((w, text)) = own {
            t.add(
                Signal::Warning,
                Vote::For(IrreversibleWrite),
                format!(
                    "warning in the control's own text: \"{w}\" (\"{}\")",
                    crate::text::clip(text, 60)
                ),
            );
        }
    }

    // Markup that only ever makes things stricter.
    if let Some(m) = ev.data_method {
        if m == "delete" {
            t.add(
                Signal::DataMethodDelete,
                Vote::For(IrreversibleWrite),
                "data-method=delete: the link sends a DELETE request",
            );
        } else {
            t.add(
                Signal::DataMethodWrite,
                Vote::Against(Read),
                format!(
                    "data-method={m}: the link sends a {} request",
                    m.to_ascii_uppercase()
                ),
            );
        }
    }
    if ev.confirms {
        t.add(
            Signal::AsksConfirmation,
            Vote::For(IrreversibleWrite),
            "the page asks for confirmation first, which pages reserve for what cannot be undone",
        );
    }
    if ev.danger {
        t.add(
            Signal::Danger,
            Vote::For(IrreversibleWrite),
            "danger styling",
        );
    }

    // Nothing the control shows says anything: assume the worst, weakly. A description
    // is the page's prose beside the control, which a person does not see: its words
    // name a WebMCP tool (which shows nothing else), not a control whose own text has no
    // known word ("Wire all funds" described as "View your balance").
    let worded = t.weighed.iter().any(|w| match w.signal {
        Signal::LabelVerb(_)
        | Signal::LabelWord(_)
        | Signal::ShownVerb(_)
        | Signal::ShownWord(_)
        | Signal::Dismisses => true,
        Signal::DescriptionWord(_) => ev.kind == Kind::Tool,
        _ => false,
    });
    if !worded
        && matches!(
            ev.kind,
            Kind::Button | Kind::Clickable | Kind::Submit | Kind::Tool
        )
    {
        t.add(
            Signal::NoVerb,
            Vote::For(IrreversibleWrite),
            if ev.label.trim().is_empty() {
                "no label: assumed permanent until shown otherwise"
            } else {
                "no known verb in the label: assumed permanent until shown otherwise"
            },
        );
    }

    if let Some(d) = ev.declared {
        let (vote, detail) = match d {
            Declared::Tier(tier) => (
                Vote::For(tier),
                format!("the page declares {}", tier.as_str()),
            ),
            Declared::ReadOnly => (Vote::For(Read), "the tool is declared read-only".to_owned()),
            Declared::Destructive => (
                Vote::For(IrreversibleWrite),
                "the tool is declared destructive".to_owned(),
            ),
            // Not destructive is not the same as undoable: the words still decide
            // between read and reversible.
            Declared::NotDestructive => (
                Vote::Against(IrreversibleWrite),
                "the tool is declared non-destructive".to_owned(),
            ),
            Declared::NotReadOnly => (
                Vote::Against(Read),
                "the tool is declared not read-only (readOnlyHint: false)".to_owned(),
            ),
        };
        t.add(Signal::Declared, vote, detail);
    }
    if ev.positional {
        t.bindings.push(Binding::Positional);
    }
    if ev.disabled {
        t.bindings.push(Binding::Disabled);
    }
}

/// Scores, the tier by the safety rule (and at least `at_least`, for the reason given),
/// and the confidence: the softmax probability of the tier chosen.
fn decide(t: &Tally, declared: bool, at_least: Option<(Reversibility, &str)>) -> Verdict {
    const TIERS: [Reversibility; 3] = [Read, ReversibleWrite, IrreversibleWrite];
    let mut score = [0.0f64; 3];
    for w in &t.weighed {
        let weight = w.signal.weight();
        match w.vote {
            Vote::For(tier) => score[tier as usize] += weight,
            Vote::Against(tier) => score[tier as usize] -= weight,
        }
    }
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
            "the evidence for {} does not outweigh the evidence for irreversible_write by {MARGIN}: the stricter tier wins",
            TIERS[best].as_str()
        ));
        best = 2;
    } else if best == 0 && score[1] > 0.0 && score[0] - score[1] < MARGIN_WRITE {
        rule = Some(format!(
            "the evidence for read does not outweigh the evidence for reversible_write by {MARGIN_WRITE}: the stricter tier wins"
        ));
        best = 1;
    }
    if let Some((floor, why)) = at_least.filter(|(f, _)| (*f as usize) > best) {
        rule = Some(format!("{} at least: {why}", floor.as_str()));
        best = floor as usize;
    }
    let tier = TIERS[best];
    let norm: f64 = score.iter().map(|s| s.exp()).sum();
    let p_tier = score[best].exp() / norm;
    let p_binding: f64 = t.bindings.iter().map(|b| b.probability()).product();
    let cap = if declared { DECLARED } else { MAX_INFERRED };
    // max/min, not clamp: clamp with a non-constant bound keeps a panic message that
    // formats floats, kilobytes in the wasm.
    let confidence = (p_tier * p_binding).max(0.0).min(cap);

    let mut signals = Vec::new();
    for w in &t.weighed {
        let (sign, vote_tier) = match w.vote {
            Vote::For(v) => ("+", v),
            Vote::Against(v) => ("-", v),
        };
        signals.push(format!(
            "{} ({}{:.2} {}): {}",
            w.signal.name(),
            sign,
            w.signal.weight(),
            vote_tier.as_str(),
            w.detail
        ));
    }
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

/// "Cancel", "Close", "Dismiss", "Not now": buttons that back out of something.
pub fn is_dismiss(label: &str) -> bool {
    let w = words(label);
    matches!(
        w.iter().map(String::as_str).collect::<Vec<_>>().as_slice(),
        ["cancel"]
            | ["close"]
            | ["dismiss"]
            | ["not", "now"]
            | ["no", "thanks"]
            | ["never", "mind"]
            | ["no", "take", "me", "back"]
            | ["go", "back"]
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

        // Vague: a bare submit, a bare delete button, an unknown verb on a POST form.
        for v in [
            submit("Submit", &post()),
            button("Delete"),
            submit("Continue", &post()),
        ] {
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
    fn confidence_is_a_probability_over_the_tiers() {
        // One Normal verb against two silent tiers: e^2.2 / (e^2.2 + 2).
        let v = button("Save");
        let want = 2.2f64.exp() / (2.2f64.exp() + 2.0);
        assert!((v.confidence - want).abs() < 1e-9, "{v:?}");
    }
}

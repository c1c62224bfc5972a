//! The signals: every kind of evidence the classifier weighs, each one row of
//! [`Signal::row`] with its name in explanations, the tier it votes for and its weight.
//! Gathering ([`super::gather`]) says only which signals it saw and why; the vote and
//! the weight come from the table, so a signal cannot vote one way in one place and
//! another way elsewhere.

use nsp_protocol::Reversibility::{self, IrreversibleWrite, Read, ReversibleWrite};

pub use crate::words::Strength;

impl Strength {
    /// The weight of a word of this strength opening a label, in nats.
    pub fn weight(self) -> f64 {
        match self {
            Strength::Weak => 1.0,
            Strength::Normal => 2.2,
            Strength::Strong => 3.0,
            Strength::Decisive => 4.0,
        }
    }
}

/// Which way a signal pushes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vote {
    For(Reversibility),
    /// Evidence that the action is not of this tier (a POST form is not a read), without
    /// saying which of the others it is.
    Against(Reversibility),
}

/// Where a signal's vote goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Votes {
    /// Always this way, whatever the evidence.
    Fixed(Vote),
    /// For the tier the evidence itself names: a word's tier, a heading's, a
    /// declaration's or a correction's.
    Named,
}

/// One row of the signal table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Row {
    /// The signal's name in explanations.
    pub name: &'static str,
    pub votes: Votes,
    /// In nats of log-odds for the tier it votes for.
    pub weight: f64,
}

/// Every kind of evidence the classifier weighs. [`Signal::row`] is the one table of
/// names, votes and weights; nothing else in the probe sets a confidence.
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
    /// Opens a dialog of the page that holds a control saying the same verb: the
    /// confirmation of what its label says, which that control does.
    OpensConfirm,
    /// Shows, hides or toggles a part of the interface (a sidebar, a pane, a filter
    /// box): it changes what is shown, nothing stored.
    ShowsPart,
    /// A button of an editor's formatting toolbar: it changes the text being edited,
    /// which only the editor's own save sends, and the editor's undo takes it back.
    FormatsText,
    /// A control that acts in the page (no submit, no link to a URL) beside the fields
    /// of a form that has its own submit: it changes what the form holds ("Everyone"
    /// ticking boxes, "Format" reformatting a query), which only that submit sends. A
    /// script could do more, so it weighs less than a toolbar beside an editor.
    FillsForm,
    /// A button that empties the field beside it, whose name its label repeats ("Delete
    /// content type" beside the content type box): what it deletes is what the field
    /// holds, which typing puts back.
    ClearsField,
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
    /// A second submit of the form whose verb previews ("Preview", "Show changes"):
    /// the form posts to show its result, its other submit saves.
    Previews,
    /// The form says `method="get"` itself: submitting it asks for the page its URL
    /// names, whatever its label ("Delete page" that opens the confirmation page).
    OpensPage,
    /// A button that makes a new, blank item at once ("New"): a write, undone by
    /// deleting the item.
    MakesItem,
    /// A form of fields that saves, creates or updates a record, or confirms or
    /// discards an edit of one: the record can be edited or deleted again.
    RecordForm,
    /// The one writing form of a page that only asks whether to go ahead, with nothing
    /// to fill and only a way back beside it: its verb says exactly what happens.
    ConfirmStep,
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
    /// One of a group of buttons of which one is marked current: a segmented control
    /// that switches what is shown, as a tablist does without its roles.
    SwitchesView,
    /// A table's column header the page listens for clicks on: clicking a column's
    /// name sorts the table by it; nothing is stored.
    SortsColumn,
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
    /// The one table of signals: name, vote, weight. A word's weight follows its
    /// strength ([`Strength::weight`]), less when it is not the opening verb.
    pub fn row(self) -> Row {
        use Vote::{Against, For};
        use Votes::{Fixed, Named};
        let (name, votes, weight) = match self {
            Signal::LabelVerb(s) => ("label_verb", Named, s.weight()),
            Signal::LabelWord(s) => ("label_word", Named, s.weight() * 0.6),
            Signal::DescriptionWord(s) => ("description_word", Named, s.weight() * 0.5),
            Signal::ShownVerb(s) => ("shown_verb", Named, s.weight()),
            Signal::ShownWord(s) => ("shown_word", Named, s.weight() * 0.6),
            Signal::NoVerb => ("no_verb", Fixed(For(IrreversibleWrite)), 0.5),
            Signal::Link => ("link", Fixed(For(Read)), 3.0),
            Signal::Tab => ("tab", Fixed(For(Read)), 3.0),
            // Less than a tab's role: a class is weaker evidence than ARIA, and any
            // Normal verb of a label keeps a write from reading as a read (the margin).
            Signal::SwitchesView => ("switches_view", Fixed(For(Read)), 2.5),
            // As `switches_view`: structure, which a Normal verb of the label outweighs.
            Signal::SortsColumn => ("sorts_column", Fixed(For(Read)), 2.5),
            Signal::Choice => ("choice", Fixed(For(ReversibleWrite)), 1.5),
            Signal::Reset => ("reset", Fixed(For(ReversibleWrite)), 3.0),
            Signal::OpensPopup => ("opens_popup", Fixed(For(Read)), 3.5),
            Signal::OpensConfirm => ("opens_confirm", Fixed(For(Read)), 2.5),
            Signal::ShowsPart => ("shows_part", Fixed(For(Read)), 3.5),
            Signal::FormatsText => ("formats_text", Fixed(For(ReversibleWrite)), 3.0),
            Signal::FillsForm => ("fills_form", Fixed(For(ReversibleWrite)), 2.0),
            Signal::ClearsField => ("clears_field", Fixed(For(ReversibleWrite)), 2.5),
            Signal::OpensEditor => ("opens_editor", Fixed(For(Read)), 3.5),
            Signal::LinkActs => ("link_acts", Fixed(For(Read)), 1.0),
            Signal::LinkToPage => ("link_to_page", Fixed(For(Read)), 1.5),
            Signal::Selection => ("selection", Fixed(For(Read)), 3.0),
            Signal::LoginForm => ("login_form", Fixed(For(ReversibleWrite)), 2.5),
            Signal::SecretField => ("secret_field", Fixed(Against(Read)), 2.5),
            Signal::LooseField => ("loose_field", Fixed(For(ReversibleWrite)), 1.7),
            Signal::Dismisses => ("dismisses", Fixed(For(Read)), 3.5),
            Signal::GetForm => ("get_form", Fixed(For(Read)), 2.5),
            Signal::WriteForm => ("write_form", Fixed(Against(Read)), 2.5),
            Signal::Previews => ("previews", Fixed(For(Read)), 2.5),
            Signal::OpensPage => ("opens_page", Fixed(For(Read)), 2.5),
            Signal::MakesItem => ("makes_item", Fixed(For(ReversibleWrite)), 1.5),
            Signal::RecordForm => ("record_form", Fixed(For(ReversibleWrite)), 1.5),
            Signal::ConfirmStep => ("confirm_step", Named, 1.0),
            Signal::FormAction => ("form_action", Fixed(For(IrreversibleWrite)), 2.0),
            Signal::PagePath => ("page_path", Fixed(For(IrreversibleWrite)), 1.5),
            Signal::PageHeading => ("page_heading", Named, 1.0),
            Signal::ConfirmationPage => ("confirmation_page", Fixed(For(IrreversibleWrite)), 3.0),
            Signal::Warning => ("warning_text", Fixed(For(IrreversibleWrite)), 2.0),
            Signal::Compose => ("compose", Fixed(For(IrreversibleWrite)), 1.5),
            Signal::Payment => ("payment", Fixed(For(IrreversibleWrite)), 4.0),
            Signal::Password => ("password", Fixed(For(IrreversibleWrite)), 1.0),
            Signal::Authentication => ("authentication", Fixed(For(ReversibleWrite)), 1.0),
            Signal::ToggleState => ("toggle_state", Fixed(For(ReversibleWrite)), 2.5),
            Signal::InversePair => ("inverse_pair", Fixed(For(ReversibleWrite)), 3.5),
            Signal::Undo => ("undo", Fixed(For(ReversibleWrite)), 1.0),
            Signal::Trash => ("trash", Fixed(For(ReversibleWrite)), 1.0),
            Signal::Danger => ("danger_styling", Fixed(For(IrreversibleWrite)), 2.0),
            Signal::AsksConfirmation => ("asks_confirmation", Fixed(For(IrreversibleWrite)), 2.5),
            Signal::DataMethodDelete => ("data_method_delete", Fixed(For(IrreversibleWrite)), 2.5),
            Signal::DataMethodWrite => ("data_method_write", Fixed(Against(Read)), 2.5),
            // 2.4: alone, sharpened, about 0.91, under the irreversible floor (see
            // `score::raised_by_confirm`).
            Signal::ConfirmSeen => ("confirm_seen", Fixed(For(IrreversibleWrite)), 2.4),
            Signal::Declared => ("declared", Named, 8.0),
            // As much as one ordinary word of the page's text (a Normal verb).
            Signal::DeclaredContradicted => ("declared_contradicted", Named, 2.2),
            Signal::Corrected => ("corrected", Named, 8.0),
        };
        Row {
            name,
            votes,
            weight,
        }
    }

    /// The weight of a signal, in nats of log-odds for the tier it votes for.
    pub fn weight(self) -> f64 {
        self.row().weight
    }

    /// The signal's name in explanations.
    pub fn name(self) -> &'static str {
        self.row().name
    }

    /// The vote the table fixes for this signal; `None` for a signal that votes for
    /// the tier its evidence names.
    pub fn fixed_vote(self) -> Option<Vote> {
        match self.row().votes {
            Votes::Fixed(v) => Some(v),
            Votes::Named => None,
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

    pub(super) fn describe(self) -> &'static str {
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

impl Weighed {
    /// The signal in words with its weight, as `--explain` lists it:
    /// `name (+3.00 irreversible_write): detail`.
    pub fn line(&self) -> String {
        let (sign, tier) = match self.vote {
            Vote::For(v) => ("+", v),
            Vote::Against(v) => ("-", v),
        };
        format!(
            "{} ({}{:.2} {}): {}",
            self.signal.name(),
            sign,
            self.signal.weight(),
            tier.as_str(),
            self.detail
        )
    }
}

//! The vocabulary of what words say, shared by the page's facts and the classifier:
//! how strongly a word names its tier, and what a label's words say in short. Below
//! both, so the page model can hold what its words say without importing the
//! classifier.

use nsp_protocol::Reversibility;

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

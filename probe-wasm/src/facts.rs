//! What the page as a whole says, gathered once per analysis (by `context.rs`) and held
//! by the page model for the classifier.

use crate::words::WordVerdict;

/// Page-wide facts, gathered once per analysis.
#[derive(Debug, Clone, Default)]
pub struct PageFacts {
    /// A visible question asking for confirmation, clipped.
    pub question: Option<String>,
    /// Visible elements whose text warns of a permanent effect, with the phrase.
    pub warnings: Vec<(usize, &'static str)>,
    /// A visible control that backs out (Cancel, "No, take me back").
    pub back: bool,
    /// A visible control labelled "Undo".
    pub undo: bool,
    /// A visible link or control naming a trash, bin or archive destination.
    pub trash: bool,
    /// The URL path segment that names a committing step.
    pub path_cue: Option<&'static str>,
    /// What the title and first heading's words say.
    pub heading: Option<WordVerdict>,
    /// Explicit, visible forms that submit with POST (or another writing method).
    pub write_forms: Vec<usize>,
    /// First words of every visible control's label (lowercase).
    pub verbs: crate::HashMap<String, usize>,
    /// A visible field a person types or chooses data in (no box, radio, search or
    /// filter) that no `<form>` holds: what a button beside it may send.
    pub loose_fields: bool,
}

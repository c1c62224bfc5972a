//! Why an expression was refused: a kind, the byte where it went wrong, words for the
//! agent, and the API error code the daemon answers with.

/// API code for an expression over the byte limit (checked before anything else).
pub const CODE_TOO_LARGE: &str = "verify_expression_too_large";
/// API code for every other refusal: syntax, forbidden token, depth, node count, type.
pub const CODE_INVALID: &str = "invalid_verify_expression";

/// What kind of refusal a [`ParseError`] is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    /// Longer than [`Limits::max_bytes`](crate::Limits::max_bytes); nothing was tokenized.
    TooLarge { len: usize, max: usize },
    /// Contains a deny-listed token (`fetch(`, `eval(`, `import(`, `XMLHttpRequest`,
    /// `document.cookie`), wherever it appears, strings included.
    Forbidden { token: &'static str },
    /// Not in the grammar.
    Syntax,
    /// Nested deeper than [`Limits::max_depth`](crate::Limits::max_depth).
    TooDeep { max: usize },
    /// More nodes than [`Limits::max_nodes`](crate::Limits::max_nodes).
    TooManyNodes { max: usize },
    /// A value where a condition is needed (the whole expression, either side of `&&`
    /// or `||`, the operand of `!`).
    NotACondition,
}

/// An expression the parser refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at byte {position}: {message}")]
pub struct ParseError {
    kind: ErrorKind,
    position: usize,
    message: String,
}

impl ParseError {
    pub(crate) fn new(kind: ErrorKind, position: usize, message: impl Into<String>) -> Self {
        ParseError {
            kind,
            position,
            message: message.into(),
        }
    }

    pub(crate) fn syntax(position: usize, message: impl Into<String>) -> Self {
        ParseError::new(ErrorKind::Syntax, position, message)
    }

    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// Byte offset in the source where the problem was found.
    pub fn position(&self) -> usize {
        self.position
    }

    /// What was wrong and what was expected, without the position.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The API error code: [`CODE_TOO_LARGE`] or [`CODE_INVALID`].
    pub fn code(&self) -> &'static str {
        match self.kind {
            ErrorKind::TooLarge { .. } => CODE_TOO_LARGE,
            _ => CODE_INVALID,
        }
    }
}

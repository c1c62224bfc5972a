//! The verify_expression language: what an agent writes to say how the daemon can tell
//! that an action worked, parsed by our own parser and evaluated by our own evaluator
//! against a [`SubstrateState`](nsp_protocol::SubstrateState). Nothing here ever reaches a
//! JavaScript engine, a network or a file.
//!
//! ```
//! # fn demo(before: &nsp_protocol::SubstrateState, after: &nsp_protocol::SubstrateState)
//! # -> Result<(), nsp_verify::ParseError> {
//! // Checked before the action is dispatched: a refusal maps to an API error code.
//! let expr = nsp_verify::parse("prev.inbox.sent_count != inbox.sent_count")?;
//! // Evaluated against the captures after and before it.
//! let outcome = nsp_verify::evaluate(&expr, after, Some(before));
//! if outcome.passed {
//!     // outcome.explanation: "inbox.sent_count changed from 14 to 15"
//! }
//! let changes = nsp_verify::changed_fields(before, after);
//! # let _ = changes;
//! # Ok(())
//! # }
//! ```
//!
//! # The language
//!
//! - **Paths** name a flat key of `objects`: `inbox.unread_count`,
//!   `inbox.emails[0].is_read`. Names are a letter or `_`, then letters, digits, `_`
//!   or `-`; indexes are `[N]`; no spaces inside a path. Reserved: `confidence` (the
//!   state's), `context.url`, `context.location`, `context.view`,
//!   `context.window_title`, `context.window_id` (all strings or null). `prev.<path>` reads the state
//!   captured before the action. A key that is not in `objects` is looked up inside a
//!   JSON list or object stored whole under a shorter key (`tags[0]` when `tags` is
//!   `["a"]`); failing that it is missing, and a missing key is `null`.
//! - **Literals**: integers, floats, negatives and exponents (`3`, `-2`, `0.95`,
//!   `1e3`); strings in `'single'` or `"double"` quotes with the escapes `\\ \' \" \n
//!   \t \r`, `\u{1F600}` (1–6 hex digits) and `\uXXXX` (JSON style, surrogate pairs
//!   combined), any other Unicode text as is; `true`, `false`, `null`.
//! - **Comparisons** `== != > >= < <=`, **logic** `&& || !`, parentheses.
//!   Precedence, tightest first: `!`, comparisons (which do not chain), `&&`, `||`.
//! - **Functions** `changed(path)` (the value, or any key under the path, differs from
//!   the previous state; false without one), `exists(path)` (the key, or a key under
//!   it, is present), `len(path)`. **Methods** `x.includes(y)` (substring, or element
//!   of a list), `x.startsWith(y)`, `x.endsWith(y)`; the property `x.length`.
//!   Lengths count chars of a string, elements of a JSON list, or distinct `N` of the
//!   keys `x[N]` and `x[N].*`; with none of those the length is null (so a typo never
//!   reads as an empty list: test emptiness with `!exists(x[0])`). A path's last
//!   `.length` is always the property.
//!
//! # Meaning
//!
//! Values of different types never compare: `==`, `!=` and the orderings are all
//! false between, say, a number and `null` or a string, and the explanation says so.
//! So a missing key can never make a check pass. The one exception is the literal
//! `null`: `x == null` and `x != null` test for null or missing. Numbers compare by
//! value (`3 == 3.0`); strings order by code point.
//!
//! The whole expression must be a condition: a comparison, `changed`/`exists`, a
//! method, `!`, `&&`, `||`, `true` or `false`. A bare path at the top is refused
//! (write `x == true`). Inside `&&`, `||` and `!` a path may stand alone
//! (`!compose.is_open`), and it holds only if its value is the boolean true; a
//! literal, `len()` or `.length` there is refused when parsed. Refusing at parse time
//! matters: the daemon checks the expression before it dispatches the action.
//!
//! # Bounds
//!
//! [`Limits`] are checked before the work they bound: the byte length before
//! tokenizing, depth before every nested descent, nodes as they are built. A flat
//! `&&`/`||` chain is one n-ary node read in a loop, so it costs no depth. The deny
//! list (`fetch(`, `eval(`, `import(`, with or without spaces before the parenthesis,
//! `XMLHttpRequest`, `document.cookie`) is checked on the raw text, strings
//! included; the grammar, which has no way to call anything, is the real wall.
//! Evaluation is linear in the nodes (times the keys a list or subtree spans), never
//! recurses deeper than a parsed tree can be, and never panics.
//!
//! # Explanations
//!
//! [`Evaluation::explanation`] says in words what decided the result: the failing
//! clause of an `&&` and the values it saw ("inbox.sent_count > 5 is false:
//! inbox.sent_count is 3"), the holding clause of an `||`, what changed ("inbox.sent_count
//! changed from 14 to 15"), and why a comparison of mismatched types is
//! false. Values are shortened and the text is capped at 2 KiB.

mod ast;
mod diff;
mod error;
mod eval;
mod explain;
mod forbidden;
mod lexer;
mod parser;
mod value;

pub use ast::{CompareOp, Expr, Function, Literal, Method, Path, PathError, Scope, Segment};
pub use diff::changed_fields;
pub use error::{ErrorKind, ParseError, CODE_INVALID, CODE_TOO_LARGE};
pub use explain::{evaluate, Evaluation};
pub use parser::{parse, parse_with_limits};
pub use value::json_equal;

/// Depth above which a configured [`Limits::max_depth`] is not honoured, so that no
/// setting can let the parser's recursion near the end of a thread's stack.
pub const HARD_MAX_DEPTH: usize = 64;

/// How big an expression may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Longest source, in bytes; checked before anything else.
    pub max_bytes: usize,
    /// Deepest nesting of parentheses, `!`, function calls and methods/`.length`
    /// (a flat `&&`/`||` chain adds none). Capped at [`HARD_MAX_DEPTH`].
    pub max_depth: usize,
    /// Most nodes in the tree.
    pub max_nodes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: 2048,
            max_depth: 32,
            max_nodes: 1024,
        }
    }
}

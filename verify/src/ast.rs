//! The syntax tree of a verify expression and its printer.
//!
//! Printing uses the fewest parentheses that make `parse(print(e)) == e` hold; the
//! property tests check that for generated trees.

use std::fmt;

/// One verify expression.
///
/// `And` and `Or` are n-ary so a long flat chain is one node with many operands, not
/// a deep tree: walking it needs no recursion per clause. Trees built by the parser
/// have at least two operands in each; hand-built ones should too (an empty `And` is
/// true, an empty `Or` false, but neither prints as something that parses).
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Literal(Literal),
    /// A value of the state: `inbox.unread_count`, `prev.context.url`.
    Path(Path),
    /// `changed(path)`, `exists(path)`, `len(path)`.
    Call(Function, Path),
    /// `x.length`.
    Length(Box<Expr>),
    /// `x.includes(y)`, `x.startsWith(y)`, `x.endsWith(y)`.
    Method {
        receiver: Box<Expr>,
        method: Method,
        argument: Box<Expr>,
    },
    /// `!x`.
    Not(Box<Expr>),
    /// `lhs op rhs`; comparisons do not chain.
    Compare {
        op: CompareOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `a && b && ...`.
    And(Vec<Expr>),
    /// `a || b || ...`.
    Or(Vec<Expr>),
}

/// A literal value.
///
/// Integers that fit an `i64` stay integers; larger ones, and anything with a
/// fraction or an exponent, are `Float`. `Float` is always finite when parsed.
#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
}

/// The built-in functions; each takes one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Function {
    /// The value (or anything under the path) differs between the previous and the
    /// current state.
    Changed,
    /// The key, or a key under it, is present.
    Exists,
    /// Length of a string (in chars) or a list (distinct `[N]` entries).
    Len,
}

impl Function {
    pub fn name(self) -> &'static str {
        match self {
            Function::Changed => "changed",
            Function::Exists => "exists",
            Function::Len => "len",
        }
    }

    pub(crate) fn from_name(name: &str) -> Option<Function> {
        match name {
            "changed" => Some(Function::Changed),
            "exists" => Some(Function::Exists),
            "len" => Some(Function::Len),
            _ => None,
        }
    }
}

/// The string methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    /// Substring of a string, or element of a list.
    Includes,
    StartsWith,
    EndsWith,
}

impl Method {
    pub fn name(self) -> &'static str {
        match self {
            Method::Includes => "includes",
            Method::StartsWith => "startsWith",
            Method::EndsWith => "endsWith",
        }
    }

    pub(crate) fn from_name(name: &str) -> Option<Method> {
        match name {
            "includes" => Some(Method::Includes),
            "startsWith" => Some(Method::StartsWith),
            "endsWith" => Some(Method::EndsWith),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CompareOp {
    Eq,
    Ne,
    Gt,
    Ge,
    Lt,
    Le,
}

impl CompareOp {
    pub fn symbol(self) -> &'static str {
        match self {
            CompareOp::Eq => "==",
            CompareOp::Ne => "!=",
            CompareOp::Gt => ">",
            CompareOp::Ge => ">=",
            CompareOp::Lt => "<",
            CompareOp::Le => "<=",
        }
    }
}

/// Which state a path reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scope {
    /// The state after the action.
    Current,
    /// `prev.`: the state captured just before the action.
    Prev,
}

/// One step of a path, as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Segment<'a> {
    /// `.name` (or the first name).
    Field(&'a str),
    /// `[N]`.
    Index(u64),
}

/// What a path resolves to, decided once at parse time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Target {
    Confidence,
    Context(ContextField),
    Object,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum ContextField {
    Url,
    Location,
    View,
    WindowTitle,
    WindowId,
}

/// A path into a state: the flat key of `SubstrateState.objects` it names, or one of
/// the reserved `confidence` and `context.{url,location,view,window_title,window_id}`.
///
/// The key is stored in its canonical form (`inbox.emails[0].is_read`), followed by
/// the two prefixes that list and subtree look-ups range over (`key.` and `key[`),
/// so evaluation never builds a string.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Path {
    scope: Scope,
    /// `key` then `.` then `key` then `[`: see [`Path::key`], `dot_prefix`, `bracket_prefix`.
    buf: String,
    key_len: usize,
    target: Target,
}

/// Why [`Path::new`] refused a list of segments.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid path: {0}")]
pub struct PathError(&'static str);

/// Words reserved at the start of a current-state path.
const RESERVED_HEADS: [&str; 4] = ["true", "false", "null", "prev"];

impl Path {
    /// Builds a path from its segments, refusing any that would not print as the same
    /// path: the first segment must be a name that is not `true`, `false`, `null` or
    /// (in the current scope) `prev`; names are identifiers (a letter or `_`, then
    /// letters, digits, `_` or `-`); a last name after a `.` cannot be `length` (it
    /// would read as the length property); a path cannot spell a forbidden token.
    pub fn new(scope: Scope, segments: &[Segment<'_>]) -> Result<Path, PathError> {
        let Some(Segment::Field(head)) = segments.first() else {
            return Err(PathError("a path starts with a name"));
        };
        if scope == Scope::Current && RESERVED_HEADS.contains(head) {
            return Err(PathError(
                "a path cannot start with true, false, null or prev",
            ));
        }
        let mut key = String::new();
        for (i, segment) in segments.iter().enumerate() {
            match *segment {
                Segment::Field(name) => {
                    if !is_identifier(name) {
                        return Err(PathError(
                            "a name is a letter or _ then letters, digits, _ or -",
                        ));
                    }
                    if i > 0 {
                        if name == "length" && i + 1 == segments.len() {
                            return Err(PathError("a path cannot end in .length"));
                        }
                        key.push('.');
                    }
                    key.push_str(name);
                }
                Segment::Index(n) => {
                    use std::fmt::Write as _;
                    let _ = write!(key, "[{n}]");
                }
            }
        }
        if crate::forbidden::find_forbidden(&key).is_some() {
            return Err(PathError("a path cannot spell a forbidden token"));
        }
        Ok(Path::from_key(scope, &key))
    }

    /// `key` must be canonical: identifiers joined by `.`, indexes as `[N]`.
    pub(crate) fn from_key(scope: Scope, key: &str) -> Path {
        let target = match key {
            "confidence" => Target::Confidence,
            "context.url" => Target::Context(ContextField::Url),
            "context.location" => Target::Context(ContextField::Location),
            "context.view" => Target::Context(ContextField::View),
            "context.window_title" => Target::Context(ContextField::WindowTitle),
            "context.window_id" => Target::Context(ContextField::WindowId),
            _ => Target::Object,
        };
        let key_len = key.len();
        let mut buf = String::with_capacity(2 * key_len + 2);
        buf.push_str(key);
        buf.push('.');
        buf.push_str(key);
        buf.push('[');
        Path {
            scope,
            buf,
            key_len,
            target,
        }
    }

    pub fn scope(&self) -> Scope {
        self.scope
    }

    /// The flat key, e.g. `inbox.emails[0].is_read` (without `prev.`).
    pub fn key(&self) -> &str {
        &self.buf[..self.key_len]
    }

    /// `key.`: every key under this path as a namespace starts with it.
    pub(crate) fn dot_prefix(&self) -> &str {
        &self.buf[..self.key_len + 1]
    }

    /// `key[`: every entry of this path as a list starts with it.
    pub(crate) fn bracket_prefix(&self) -> &str {
        &self.buf[self.key_len + 1..]
    }

    pub(crate) fn target(&self) -> Target {
        self.target
    }

    /// The segments as written.
    pub fn segments(&self) -> impl Iterator<Item = Segment<'_>> + '_ {
        segments_of(self.key())
    }
}

impl fmt::Debug for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Path")
            .field("scope", &self.scope)
            .field("key", &self.key())
            .finish()
    }
}

/// Splits a canonical key at `.` and `[`; indexes are digits up to `]`.
pub(crate) fn segments_of(key: &str) -> impl Iterator<Item = Segment<'_>> + '_ {
    let mut rest = key;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        if let Some(after) = rest.strip_prefix('[') {
            let close = after.find(']').unwrap_or(after.len());
            let n = after[..close].parse().unwrap_or(u64::MAX);
            rest = after.get(close + 1..).unwrap_or("");
            return Some(Segment::Index(n));
        }
        let body = rest.strip_prefix('.').unwrap_or(rest);
        let end = body.find(['.', '[']).unwrap_or(body.len());
        rest = &body[end..];
        Some(Segment::Field(&body[..end]))
    })
}

/// Identifier rule shared by the lexer and [`Path::new`].
pub(crate) fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(is_identifier_start) && chars.all(is_identifier_continue)
}

pub(crate) fn is_identifier_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

pub(crate) fn is_identifier_continue(c: char) -> bool {
    c == '_' || c == '-' || c.is_alphanumeric()
}

/// Binding strength, loosest first; a child that binds looser than its place needs
/// is printed in parentheses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Precedence {
    Or,
    And,
    Compare,
    Not,
    Postfix,
}

impl Expr {
    fn precedence(&self) -> Precedence {
        match self {
            Expr::Or(_) => Precedence::Or,
            Expr::And(_) => Precedence::And,
            Expr::Compare { .. } => Precedence::Compare,
            Expr::Not(_) => Precedence::Not,
            Expr::Literal(_)
            | Expr::Path(_)
            | Expr::Call(..)
            | Expr::Length(_)
            | Expr::Method { .. } => Precedence::Postfix,
        }
    }

    /// Whether the expression always yields true or false. A path does not: its value
    /// is known only at run time.
    pub fn is_condition(&self) -> bool {
        match self {
            Expr::Literal(Literal::Bool(_))
            | Expr::Not(_)
            | Expr::Compare { .. }
            | Expr::And(_)
            | Expr::Or(_)
            | Expr::Method { .. } => true,
            Expr::Call(function, _) => *function != Function::Len,
            Expr::Literal(_) | Expr::Path(_) | Expr::Length(_) => false,
        }
    }

    /// Whether the expression reads the state after the action at all: a path of the
    /// current state, or `changed(…)` (which compares it with the previous one). One that
    /// does not (`true`, `1 == 1`, `prev.x == 3`) has the same value whatever the action
    /// did, so it cannot verify anything; nspd refuses it as vacuous.
    pub fn reads_state(&self) -> bool {
        // A walk with its own stack: hand-built trees may be deeper than parsed ones.
        let mut stack = vec![self];
        while let Some(e) = stack.pop() {
            match e {
                Expr::Literal(_) => {}
                Expr::Path(p) => {
                    if p.scope() == Scope::Current {
                        return true;
                    }
                }
                Expr::Call(function, p) => {
                    if *function == Function::Changed || p.scope() == Scope::Current {
                        return true;
                    }
                }
                Expr::Length(inner) | Expr::Not(inner) => stack.push(inner),
                Expr::Method {
                    receiver, argument, ..
                } => {
                    stack.push(receiver);
                    stack.push(argument);
                }
                Expr::Compare { lhs, rhs, .. } => {
                    stack.push(lhs);
                    stack.push(rhs);
                }
                Expr::And(items) | Expr::Or(items) => stack.extend(items.iter()),
            }
        }
        false
    }
}

/// Writes `e`, in parentheses when it binds looser than `min`.
fn write_operand(f: &mut fmt::Formatter<'_>, e: &Expr, min: Precedence) -> fmt::Result {
    if e.precedence() < min {
        f.write_str("(")?;
        fmt::Display::fmt(e, f)?;
        f.write_str(")")
    } else {
        fmt::Display::fmt(e, f)
    }
}

/// Writes the receiver of `.length` or a method.
fn write_receiver(f: &mut fmt::Formatter<'_>, e: &Expr) -> fmt::Result {
    // `a.length.length` would read back as the path `a.length` followed by `.length`,
    // so a length used as a receiver keeps its parentheses.
    if matches!(e, Expr::Length(_)) {
        write!(f, "({e})")
    } else {
        write_operand(f, e, Precedence::Postfix)
    }
}

fn write_joined(
    f: &mut fmt::Formatter<'_>,
    items: &[Expr],
    sep: &str,
    min: Precedence,
) -> fmt::Result {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(sep)?;
        }
        write_operand(f, item, min)?;
    }
    Ok(())
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Literal(literal) => fmt::Display::fmt(literal, f),
            Expr::Path(path) => fmt::Display::fmt(path, f),
            Expr::Call(function, path) => write!(f, "{}({path})", function.name()),
            Expr::Length(inner) => {
                write_receiver(f, inner)?;
                f.write_str(".length")
            }
            Expr::Method {
                receiver,
                method,
                argument,
            } => {
                write_receiver(f, receiver)?;
                write!(f, ".{}({argument})", method.name())
            }
            Expr::Not(inner) => {
                f.write_str("!")?;
                write_operand(f, inner, Precedence::Not)
            }
            Expr::Compare { op, lhs, rhs } => {
                // Comparisons do not chain, so a comparison operand needs parentheses.
                write_operand(f, lhs, Precedence::Not)?;
                write!(f, " {} ", op.symbol())?;
                write_operand(f, rhs, Precedence::Not)
            }
            // A nested chain of the same operator keeps its parentheses: without them
            // it would read back flattened into this one.
            Expr::And(items) => write_joined(f, items, " && ", Precedence::Compare),
            Expr::Or(items) => write_joined(f, items, " || ", Precedence::And),
        }
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.scope == Scope::Prev {
            f.write_str("prev.")?;
        }
        f.write_str(self.key())
    }
}

impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Literal::Null => f.write_str("null"),
            Literal::Bool(b) => write!(f, "{b}"),
            Literal::Int(n) => write!(f, "{n}"),
            // Debug is the shortest form that reads back to the same f64, and always
            // shows a `.` or an exponent, so it reads back as a float.
            Literal::Float(x) => write!(f, "{x:?}"),
            Literal::Str(s) => write_string_literal(f, s),
        }
    }
}

/// Writes a double-quoted string literal that the lexer reads back to `s`.
pub(crate) fn write_string_literal(out: &mut impl fmt::Write, s: &str) -> fmt::Result {
    out.write_char('"')?;
    let mut plain_from = 0;
    for (i, c) in s.char_indices() {
        // The deny-list applies to the whole source, strings included; escaping the
        // first character of a forbidden token keeps the printed form parseable.
        let hide = crate::forbidden::forbidden_at(s, i).is_some();
        let escape = match c {
            _ if hide => None,
            '"' => Some("\\\""),
            '\\' => Some("\\\\"),
            '\n' => Some("\\n"),
            '\t' => Some("\\t"),
            '\r' => Some("\\r"),
            c if c.is_control() => None,
            _ => continue,
        };
        out.write_str(&s[plain_from..i])?;
        plain_from = i + c.len_utf8();
        match escape {
            Some(text) => out.write_str(text)?,
            None => write!(out, "\\u{{{:x}}}", c as u32)?,
        }
    }
    out.write_str(&s[plain_from..])?;
    out.write_char('"')
}

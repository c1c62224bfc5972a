//! Evaluates an expression against the state after an action and, optionally, the one
//! before it. Pure: reads the two states, allocates only the result.

use std::collections::BTreeMap;
use std::ops::Bound;

use nsp_protocol::SubstrateState;
use serde_json::Value;

use crate::ast::{
    segments_of, ContextField, Expr, Function, Literal, Method, Path, Scope, Segment, Target,
};
use crate::value::{compare, equal, length_of, Val};
use crate::HARD_MAX_DEPTH;

/// Deepest tree the evaluator walks. A parsed tree stays far below: each level of
/// parse depth adds at most an `||`, an `&&`, a comparison and the nested node.
pub(crate) const MAX_EVAL_DEPTH: usize = 4 * HARD_MAX_DEPTH + 16;

/// The walk went deeper than [`MAX_EVAL_DEPTH`] (only a hand-built tree can).
#[derive(Debug, Clone, Copy)]
pub(crate) struct TooDeep;

#[derive(Debug, Clone, Copy)]
pub(crate) struct Evaluator<'a> {
    pub current: &'a SubstrateState,
    pub prev: Option<&'a SubstrateState>,
}

impl<'a> Evaluator<'a> {
    pub fn eval(&self, e: &'a Expr, depth: usize) -> Result<Val<'a>, TooDeep> {
        if depth > MAX_EVAL_DEPTH {
            return Err(TooDeep);
        }
        let next = depth + 1;
        Ok(match e {
            Expr::Literal(literal) => literal_value(literal),
            Expr::Path(path) => self.value(path),
            Expr::Call(Function::Changed, path) => Val::Bool(self.changed(path)),
            Expr::Call(Function::Exists, path) => Val::Bool(self.exists(path)),
            Expr::Call(Function::Len, path) => self.path_length(path),
            Expr::Length(inner) => match &**inner {
                Expr::Path(path) => self.path_length(path),
                other => length_of(self.eval(other, next)?),
            },
            Expr::Method {
                receiver,
                method,
                argument,
            } => {
                let r = self.eval(receiver, next)?;
                let a = self.eval(argument, next)?;
                Val::Bool(apply_method(*method, r, a))
            }
            Expr::Not(inner) => match self.eval(inner, next)? {
                Val::Bool(b) => Val::Bool(!b),
                _ => Val::Bool(false),
            },
            Expr::Compare { op, lhs, rhs } => {
                let l = self.eval(lhs, next)?;
                let r = self.eval(rhs, next)?;
                Val::Bool(compare(
                    *op,
                    l,
                    r,
                    is_null_literal(lhs) || is_null_literal(rhs),
                ))
            }
            Expr::And(items) => {
                for item in items {
                    if !matches!(self.eval(item, next)?, Val::Bool(true)) {
                        return Ok(Val::Bool(false));
                    }
                }
                Val::Bool(true)
            }
            Expr::Or(items) => {
                for item in items {
                    if matches!(self.eval(item, next)?, Val::Bool(true)) {
                        return Ok(Val::Bool(true));
                    }
                }
                Val::Bool(false)
            }
        })
    }

    pub fn state(&self, scope: Scope) -> Option<&'a SubstrateState> {
        match scope {
            Scope::Current => Some(self.current),
            Scope::Prev => self.prev,
        }
    }

    /// The value a path names in its own scope.
    pub fn value(&self, path: &'a Path) -> Val<'a> {
        match self.state(path.scope()) {
            Some(state) => lookup(state, path),
            None => Val::NoPrev,
        }
    }

    /// Length of a string or a list; a list may be one JSON array or `key[N]` entries.
    pub fn path_length(&self, path: &'a Path) -> Val<'a> {
        let Some(state) = self.state(path.scope()) else {
            return Val::NoPrev;
        };
        match lookup(state, path) {
            Val::Missing if path.target() == Target::Object => {
                match count_entries(&state.objects, path.bracket_prefix()) {
                    0 => Val::Missing,
                    n => Val::Int(n as i128),
                }
            }
            other => length_of(other),
        }
    }

    pub fn exists(&self, path: &'a Path) -> bool {
        let Some(state) = self.state(path.scope()) else {
            return false;
        };
        match path.target() {
            Target::Confidence => true,
            Target::Context(_) => !lookup(state, path).is_null(),
            Target::Object => {
                !matches!(lookup(state, path), Val::Missing)
                    || first_key_with_prefix(&state.objects, path.dot_prefix()).is_some()
                    || first_key_with_prefix(&state.objects, path.bracket_prefix()).is_some()
            }
        }
    }

    pub fn changed(&self, path: &'a Path) -> bool {
        matches!(self.change(path), Change::Value { .. } | Change::Under(_))
    }

    /// What `changed(path)` found, with the values it found.
    pub fn change(&self, path: &'a Path) -> Change<'a> {
        let Some(prev) = self.prev else {
            return Change::NoPrev;
        };
        let before = lookup(prev, path);
        let after = lookup(self.current, path);
        if !same_value(before, after) {
            return Change::Value { before, after };
        }
        if path.target() == Target::Object {
            let (old, new) = (&prev.objects, &self.current.objects);
            let under = first_difference(old, new, path.dot_prefix())
                .or_else(|| first_difference(old, new, path.bracket_prefix()));
            if let Some(difference) = under {
                return Change::Under(difference);
            }
        }
        Change::None { value: after }
    }
}

/// The answer of `changed(path)`.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Change<'a> {
    /// There is no previous state: not changed.
    NoPrev,
    /// The value itself differs (or appeared, or disappeared).
    Value { before: Val<'a>, after: Val<'a> },
    /// The value is the same, but a key under the path differs.
    Under(Difference<'a>),
    /// Nothing differs.
    None { value: Val<'a> },
}

/// Equal, with presence counting: a key that appears or disappears has changed even
/// if it holds null.
pub(crate) fn same_value(before: Val<'_>, after: Val<'_>) -> bool {
    match (before, after) {
        (Val::Missing, Val::Missing) => true,
        (Val::Missing, _) | (_, Val::Missing) => false,
        _ => equal(before, after),
    }
}

pub(crate) fn is_null_literal(e: &Expr) -> bool {
    matches!(e, Expr::Literal(Literal::Null))
}

fn literal_value(literal: &Literal) -> Val<'_> {
    match literal {
        Literal::Null => Val::Null,
        Literal::Bool(b) => Val::Bool(*b),
        Literal::Int(n) => Val::Int(i128::from(*n)),
        Literal::Float(x) => Val::Float(*x),
        Literal::Str(s) => Val::Str(s),
    }
}

pub(crate) fn apply_method(method: Method, receiver: Val<'_>, argument: Val<'_>) -> bool {
    match (method, receiver, argument) {
        (Method::Includes, Val::Str(s), Val::Str(needle)) => s.contains(needle),
        (Method::Includes, Val::List(items), needle) => items.iter().any(|item| {
            let item = Val::from_json(item);
            crate::value::same_type(item, needle) && equal(item, needle)
        }),
        (Method::StartsWith, Val::Str(s), Val::Str(prefix)) => s.starts_with(prefix),
        (Method::EndsWith, Val::Str(s), Val::Str(suffix)) => s.ends_with(suffix),
        _ => false,
    }
}

/// Whether `apply_method` had operands of the types it works on.
pub(crate) fn method_applies(method: Method, receiver: Val<'_>, argument: Val<'_>) -> bool {
    matches!(
        (method, receiver, argument),
        (Method::Includes, Val::List(_), _) | (_, Val::Str(_), Val::Str(_))
    )
}

pub(crate) fn lookup<'a>(state: &'a SubstrateState, path: &Path) -> Val<'a> {
    match path.target() {
        Target::Confidence => Val::Float(state.confidence),
        Target::Context(field) => {
            let context = &state.context;
            let text = match field {
                ContextField::Url => &context.url,
                ContextField::Location => &context.location,
                ContextField::View => &context.view,
                ContextField::WindowTitle => &context.window_title,
                ContextField::WindowId => &context.window_id,
            };
            text.as_deref().map_or(Val::Null, Val::Str)
        }
        Target::Object => lookup_object(&state.objects, path.key()),
    }
}

/// The flat key, or else a value stored whole (a JSON list or object) under a shorter
/// key that the rest of the path walks into.
fn lookup_object<'a>(objects: &'a BTreeMap<String, Value>, key: &str) -> Val<'a> {
    if let Some(v) = objects.get(key) {
        return Val::from_json(v);
    }
    let bytes = key.as_bytes();
    for cut in (1..bytes.len()).rev() {
        if bytes[cut] != b'.' && bytes[cut] != b'[' {
            continue;
        }
        if let Some(v) = objects.get(&key[..cut]) {
            return descend(v, &key[cut..]);
        }
    }
    Val::Missing
}

fn descend<'a>(mut v: &'a Value, rest: &str) -> Val<'a> {
    for segment in segments_of(rest) {
        let next = match (segment, v) {
            (Segment::Field(name), Value::Object(map)) => map.get(name),
            (Segment::Index(i), Value::Array(items)) => {
                usize::try_from(i).ok().and_then(|i| items.get(i))
            }
            _ => None,
        };
        match next {
            Some(inner) => v = inner,
            None => return Val::Missing,
        }
    }
    Val::from_json(v)
}

fn keys_with_prefix<'a, 'p>(
    objects: &'a BTreeMap<String, Value>,
    prefix: &'p str,
) -> impl Iterator<Item = (&'a String, &'a Value)> + use<'a, 'p> {
    objects
        .range::<str, _>((Bound::Included(prefix), Bound::Unbounded))
        .take_while(move |(k, _)| k.starts_with(prefix))
}

pub(crate) fn first_key_with_prefix<'a>(
    objects: &'a BTreeMap<String, Value>,
    prefix: &str,
) -> Option<&'a str> {
    keys_with_prefix(objects, prefix)
        .next()
        .map(|(k, _)| k.as_str())
}

/// Distinct `N` among keys `prefix N ]...` (`prefix` ends with `[`).
///
/// Keys sharing an index are adjacent in sorted order (they share the prefix
/// `key[N]`), so a key that starts like the previous entry is skipped with one short
/// comparison. The range ends before `key\` (`\` follows `[`), so no key is tested
/// against the prefix.
fn count_entries(objects: &BTreeMap<String, Value>, prefix: &str) -> usize {
    let mut end = String::with_capacity(prefix.len());
    end.push_str(&prefix[..prefix.len() - 1]);
    end.push('\\');
    let mut count = 0;
    // `N]` of the entry being skipped through.
    let mut entry: &[u8] = &[];
    for (key, _) in
        objects.range::<str, _>((Bound::Included(prefix), Bound::Excluded(end.as_str())))
    {
        let rest = &key.as_bytes()[prefix.len()..];
        if !entry.is_empty() && rest.starts_with(entry) {
            continue;
        }
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 || rest.get(digits) != Some(&b']') {
            entry = &[];
            continue;
        }
        entry = &rest[..=digits];
        count += 1;
    }
    count
}

/// One key under `prefix` that differs between two states.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Difference<'a> {
    pub key: &'a str,
    pub before: Option<&'a Value>,
    pub after: Option<&'a Value>,
}

/// The first key (in sorted order) under `prefix` that was added, removed or changed.
pub(crate) fn first_difference<'a>(
    before: &'a BTreeMap<String, Value>,
    after: &'a BTreeMap<String, Value>,
    prefix: &str,
) -> Option<Difference<'a>> {
    let mut old = keys_with_prefix(before, prefix).peekable();
    let mut new = keys_with_prefix(after, prefix).peekable();
    loop {
        let difference = match (old.peek(), new.peek()) {
            (None, None) => return None,
            (Some(&(key, b)), None) => Difference {
                key,
                before: Some(b),
                after: None,
            },
            (None, Some(&(key, a))) => Difference {
                key,
                before: None,
                after: Some(a),
            },
            (Some(&(ko, b)), Some(&(kn, a))) => match ko.cmp(kn) {
                std::cmp::Ordering::Less => Difference {
                    key: ko,
                    before: Some(b),
                    after: None,
                },
                std::cmp::Ordering::Greater => Difference {
                    key: kn,
                    before: None,
                    after: Some(a),
                },
                std::cmp::Ordering::Equal => {
                    if !crate::value::json_equal(b, a) {
                        Difference {
                            key: ko,
                            before: Some(b),
                            after: Some(a),
                        }
                    } else {
                        old.next();
                        new.next();
                        continue;
                    }
                }
            },
        };
        return Some(difference);
    }
}

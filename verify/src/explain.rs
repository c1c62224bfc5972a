//! Evaluation that puts itself into words: which part decided the result, with which
//! values.
//!
//! One pass: each node that needs explaining is evaluated here, and the operands it
//! talks about are evaluated once, by the plain evaluator, so nothing is looked up or
//! counted twice. `&&` and `||` write the words of each operand as they go and keep
//! only those that decided the result. The text is bounded: values are shortened, at
//! most [`MAX_LISTED`] operands of a chain are described, and the whole explanation is
//! cut at [`MAX_EXPLANATION_BYTES`].

use std::fmt::Write as _;
use std::io;

use nsp_protocol::SubstrateState;
use serde_json::Value;

use crate::ast::{
    write_string_literal, CompareOp, Expr, Function, Literal, Method, Path, Scope, Target,
};
use crate::eval::{
    apply_method, first_key_with_prefix, is_null_literal, lookup, method_applies, same_value,
};
use crate::eval::{Change, Difference, Evaluator, TooDeep, MAX_EVAL_DEPTH};
use crate::value::{compare, compare_mismatch, Val};

/// Longest explanation, in bytes (plus a final `…`).
pub(crate) const MAX_EXPLANATION_BYTES: usize = 2048;
/// Longest rendering of one value, in chars.
const MAX_VALUE_CHARS: usize = 80;
/// Operands of `&&`/`||` described one by one before the rest is summarised.
const MAX_LISTED: usize = 4;

/// The result of evaluating an expression.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    /// The computed value of the whole expression (a boolean for a parsed one).
    pub value: Value,
    /// `value` is `true`.
    pub passed: bool,
    /// Why, in words: which part was false and with which values, or what held.
    pub explanation: String,
}

/// Evaluates `expr` against `current` and, for `prev.*` and `changed()`, `prev`.
///
/// Never panics and never errors: a type mismatch, a missing key or a missing
/// previous state make the affected comparison false, and the explanation says so.
pub fn evaluate(
    expr: &Expr,
    current: &SubstrateState,
    prev: Option<&SubstrateState>,
) -> Evaluation {
    let evaluator = Evaluator { current, prev };
    let mut explanation = String::with_capacity(192);
    match evaluate_explained(&evaluator, expr, &mut explanation) {
        Ok(value) => Evaluation {
            passed: matches!(value, Val::Bool(true)),
            value: value.to_json(),
            explanation,
        },
        Err(TooDeep) => Evaluation {
            value: Value::Null,
            passed: false,
            explanation: format!(
                "the expression is nested more than {MAX_EVAL_DEPTH} levels deep and was not evaluated"
            ),
        },
    }
}

/// Evaluates `expr`, writing why it has its value into `out`.
pub(crate) fn evaluate_explained<'a>(
    ev: &Evaluator<'a>,
    expr: &'a Expr,
    out: &mut String,
) -> Result<Val<'a>, TooDeep> {
    let value = Explainer { ev, out: &mut *out }.eval(expr, 0)?;
    if !matches!(value, Val::Bool(_)) {
        out.clear();
        out.push_str("the expression's value is ");
        write_val(out, value);
        out.push_str(", not true or false: a verify expression must be a condition");
    }
    if out.len() > MAX_EXPLANATION_BYTES {
        let mut cut = MAX_EXPLANATION_BYTES;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
        out.push('…');
    }
    Ok(value)
}

struct Explainer<'e, 'a> {
    ev: &'e Evaluator<'a>,
    out: &'e mut String,
}

impl<'a> Explainer<'_, 'a> {
    /// Evaluates `e` and appends why it has its value.
    fn eval(&mut self, e: &'a Expr, depth: usize) -> Result<Val<'a>, TooDeep> {
        if depth > MAX_EVAL_DEPTH {
            return Err(TooDeep);
        }
        let next = depth + 1;
        let value = match e {
            Expr::Compare { op, lhs, rhs } => {
                let l = self.ev.eval(lhs, next)?;
                let r = self.ev.eval(rhs, next)?;
                let null_literal = is_null_literal(lhs) || is_null_literal(rhs);
                let passed = compare(*op, l, r, null_literal);
                self.say_compare(e, *op, (lhs, l), (rhs, r), null_literal, passed);
                Val::Bool(passed)
            }
            Expr::Method {
                receiver,
                method,
                argument,
            } => {
                let r = self.ev.eval(receiver, next)?;
                let a = self.ev.eval(argument, next)?;
                let passed = apply_method(*method, r, a);
                self.say_method(e, *method, (receiver, r), (argument, a), passed);
                Val::Bool(passed)
            }
            Expr::Call(Function::Changed, path) => Val::Bool(self.say_changed(path)),
            Expr::Call(Function::Exists, path) => {
                let exists = self.ev.exists(path);
                self.say_exists(path, exists);
                Val::Bool(exists)
            }
            Expr::Not(inner) => {
                let mark = self.out.len();
                let inner_value = self.eval(inner, next)?;
                let value = match inner_value {
                    Val::Bool(b) => Val::Bool(!b),
                    _ => Val::Bool(false),
                };
                let header = format!("{e} is {}: ", bool_word(value));
                if matches!(inner_value, Val::Bool(_)) {
                    self.out.insert_str(mark, &header);
                } else {
                    self.out.truncate(mark);
                    self.out.push_str(&header);
                    self.fact(inner, inner_value);
                    self.out.push_str(", not true or false");
                }
                value
            }
            Expr::And(items) => self.chain(items, true, next)?,
            Expr::Or(items) => self.chain(items, false, next)?,
            Expr::Literal(Literal::Bool(b)) => {
                let _ = write!(self.out, "the constant {b}");
                Val::Bool(*b)
            }
            Expr::Literal(_) | Expr::Path(_) | Expr::Length(_) | Expr::Call(Function::Len, _) => {
                let value = self.ev.eval(e, depth)?;
                self.fact(e, value);
                if !matches!(value, Val::Bool(_)) {
                    self.out.push_str(", which is not true or false");
                }
                value
            }
        };
        Ok(value)
    }

    /// `&&` (`is_and`) or `||`. Decided by the first operand that is not true (`&&`)
    /// or true (`||`): only its words are kept. Otherwise every operand counted, and
    /// the first few are described.
    fn chain(&mut self, items: &'a [Expr], is_and: bool, depth: usize) -> Result<Val<'a>, TooDeep> {
        let n = items.len();
        let start = self.out.len();
        for (i, item) in items.iter().enumerate() {
            let listed = i < MAX_LISTED;
            if listed && i > 0 {
                self.out.push_str("; ");
            }
            let text_start = self.out.len();
            let value = if listed {
                self.eval(item, depth)?
            } else {
                self.ev.eval(item, depth)?
            };
            let truthy = matches!(value, Val::Bool(true));
            if truthy == is_and {
                continue;
            }
            let verb = if truthy { "holds" } else { "is false" };
            let header = format!("condition {} of {n} {verb}: ", i + 1);
            if listed {
                self.out.replace_range(start..text_start, &header);
            } else {
                self.out.truncate(start);
                self.out.push_str(&header);
                self.eval(item, depth)?;
            }
            return Ok(Val::Bool(truthy));
        }
        let header = match (is_and, n) {
            (true, 2) => "both conditions hold: ".to_string(),
            (true, _) => format!("all {n} conditions hold: "),
            (false, 2) => "neither alternative holds: ".to_string(),
            (false, _) => format!("none of the {n} alternatives holds: "),
        };
        self.out.insert_str(start, &header);
        if n > MAX_LISTED {
            let _ = write!(self.out, "; and {} more", n - MAX_LISTED);
        }
        Ok(Val::Bool(is_and))
    }

    fn say_compare(
        &mut self,
        e: &Expr,
        op: CompareOp,
        (lhs, l): (&'a Expr, Val<'a>),
        (rhs, r): (&'a Expr, Val<'a>),
        null_literal: bool,
        passed: bool,
    ) {
        let word = if passed { "true" } else { "false" };
        if let Some((path, before, after)) = prev_and_current(lhs, rhs, l, r) {
            let changed = !same_value(before, after);
            if changed && passed && op == CompareOp::Ne {
                self.changed_from(path, before, after);
                return;
            }
            let _ = write!(self.out, "{e} is {word}: ");
            if changed {
                self.changed_from(path, before, after);
                if before.is_null() != after.is_null() {
                    let _ = write!(
                        self.out,
                        "; null does not compare with a value, but changed({path}) counts a key that appears or disappears"
                    );
                    return;
                }
            } else {
                let _ = write!(self.out, "{path} is ");
                write_val(self.out, after);
                self.out.push_str(" before and after");
            }
        } else {
            let _ = write!(self.out, "{e} is {word}");
            self.facts([(lhs, l), (rhs, r)]);
        }
        if !passed {
            if let Some(reason) = compare_mismatch(op, l, r, null_literal) {
                let _ = write!(self.out, "; {reason}");
            }
        }
    }

    /// ": a is 1 and b is 2" for the operands that are not literals.
    fn facts(&mut self, operands: [(&'a Expr, Val<'a>); 2]) {
        let mut first = true;
        for (operand, value) in operands {
            if matches!(operand, Expr::Literal(_)) {
                continue;
            }
            self.out.push_str(if first { ": " } else { " and " });
            first = false;
            self.fact(operand, value);
        }
    }

    fn changed_from(&mut self, path: &Path, before: Val<'_>, after: Val<'_>) {
        let _ = write!(self.out, "{} changed from ", path.key());
        write_val(self.out, before);
        self.out.push_str(" to ");
        write_val(self.out, after);
    }

    fn say_changed(&mut self, path: &'a Path) -> bool {
        match self.ev.change(path) {
            Change::NoPrev => {
                let _ = write!(
                    self.out,
                    "changed({path}) is false: there is no previous state to compare with"
                );
                false
            }
            Change::Value { before, after } => {
                self.changed_from(path, before, after);
                true
            }
            Change::Under(difference) => {
                let _ = write!(self.out, "{path} changed: ");
                self.difference(difference);
                true
            }
            Change::None { value } => {
                let _ = write!(self.out, "changed({path}) is false: {path} is ");
                write_val(self.out, value);
                self.out.push_str(" before and after");
                if path.target() == Target::Object {
                    self.out.push_str(", and no key under it changed");
                }
                if matches!(value, Val::Missing) {
                    self.keys_ending_in(path);
                }
                false
            }
        }
    }

    /// For a path that names no key: the keys of the state that end in it ("result"
    /// for `form.result`), at most three, so the one meant can be written next time.
    fn keys_ending_in(&mut self, path: &Path) {
        let Some(state) = self.ev.state(Scope::Current) else {
            return;
        };
        let key = path.key();
        let mut found: Vec<&str> = Vec::new();
        for k in state.objects.keys() {
            let Some(head) = k.strip_suffix(key) else {
                continue;
            };
            if head.ends_with('.') || head.ends_with(']') {
                found.push(k);
                if found.len() == 3 {
                    break;
                }
            }
        }
        if !found.is_empty() {
            let _ = write!(self.out, " (keys that end in it: {})", found.join(", "));
        }
    }

    fn difference(&mut self, d: Difference<'_>) {
        let _ = write!(self.out, "{} ", d.key);
        match (d.before, d.after) {
            (None, Some(after)) => {
                self.out.push_str("was added (");
                write_val(self.out, Val::from_json(after));
                self.out.push(')');
            }
            (Some(before), None) => {
                self.out.push_str("was removed (it was ");
                write_val(self.out, Val::from_json(before));
                self.out.push(')');
            }
            (before, after) => {
                self.out.push_str("changed from ");
                write_val(self.out, before.map_or(Val::Missing, Val::from_json));
                self.out.push_str(" to ");
                write_val(self.out, after.map_or(Val::Missing, Val::from_json));
            }
        }
    }

    fn say_exists(&mut self, path: &'a Path, exists: bool) {
        let Some(state) = self.ev.state(path.scope()) else {
            let _ = write!(
                self.out,
                "exists({path}) is false: there is no previous state"
            );
            return;
        };
        let value = lookup(state, path);
        if exists {
            let _ = write!(self.out, "{path} exists: ");
            if matches!(value, Val::Missing) {
                let child = first_key_with_prefix(&state.objects, path.dot_prefix())
                    .or_else(|| first_key_with_prefix(&state.objects, path.bracket_prefix()))
                    .unwrap_or_default();
                let _ = write!(self.out, "{child} is present");
            } else {
                self.out.push_str("it is ");
                write_val(self.out, value);
            }
            return;
        }
        let which = match path.scope() {
            Scope::Current => "current",
            Scope::Prev => "previous",
        };
        if path.target() == Target::Object {
            let key = path.key();
            let _ = write!(
                self.out,
                "exists({path}) is false: no key {key}, {key}.… or {key}[N] in the {which} state"
            );
        } else {
            let _ = write!(self.out, "exists({path}) is false: {path} is null");
        }
    }

    fn say_method(
        &mut self,
        e: &Expr,
        method: Method,
        (receiver, r): (&'a Expr, Val<'a>),
        (argument, a): (&'a Expr, Val<'a>),
        passed: bool,
    ) {
        let _ = write!(self.out, "{e} is {}", if passed { "true" } else { "false" });
        self.facts([(receiver, r), (argument, a)]);
        if !method_applies(method, r, a) {
            let needs = match method {
                Method::Includes => "a string receiver and a string argument, or a list receiver",
                Method::StartsWith | Method::EndsWith => "a string receiver and a string argument",
            };
            let _ = write!(
                self.out,
                "; {}() needs {needs}, not {} and {}",
                method.name(),
                r.type_name(),
                a.type_name()
            );
        }
    }

    /// "`operand` is `value`", with the reason when a length came out null.
    fn fact(&mut self, operand: &'a Expr, value: Val<'a>) {
        let _ = write!(self.out, "{operand} is ");
        let measured = match operand {
            Expr::Length(inner) => Some((&**inner, None)),
            Expr::Call(Function::Len, path) => Some((operand, Some(path))),
            _ => None,
        };
        let (measured, path) = match (measured, value) {
            (Some((inner, path)), Val::Missing | Val::Null) => match (inner, path) {
                (Expr::Path(path), _) | (_, Some(path)) => (inner, Some(path)),
                _ => (inner, None),
            },
            _ => {
                write_val(self.out, value);
                return;
            }
        };
        match (value, path) {
            (Val::Missing, Some(path)) => {
                let key = path.key();
                let list = match path.scope() {
                    Scope::Current => key.to_string(),
                    Scope::Prev => format!("prev.{key}"),
                };
                let _ = write!(
                    self.out,
                    "null: there is no key {key} and no {key}[N] entry (to check that a list is empty, use !exists({list}[0]))"
                );
            }
            (Val::Null, _) => {
                let inner = match path {
                    Some(path) => self.ev.value(path),
                    None => self.ev.eval(measured, 0).unwrap_or(Val::Null),
                };
                let _ = write!(
                    self.out,
                    "null: {} is {}, which has no length",
                    MeasuredText(measured, path),
                    inner.type_name()
                );
            }
            _ => write_val(self.out, value),
        }
    }
}

/// What a length was taken of, as written: the path of `len(p)`, else the receiver.
struct MeasuredText<'e>(&'e Expr, Option<&'e Path>);

impl std::fmt::Display for MeasuredText<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.1 {
            Some(path) => write!(f, "{path}"),
            None => write!(f, "{}", self.0),
        }
    }
}

fn bool_word(v: Val<'_>) -> &'static str {
    if matches!(v, Val::Bool(true)) {
        "true"
    } else {
        "false"
    }
}

/// `prev.P` against `P`, either way round: the pattern agents use to check a change.
/// Returns the current path, the value before and the value after.
fn prev_and_current<'a>(
    lhs: &'a Expr,
    rhs: &'a Expr,
    l: Val<'a>,
    r: Val<'a>,
) -> Option<(&'a Path, Val<'a>, Val<'a>)> {
    let (Expr::Path(a), Expr::Path(b)) = (lhs, rhs) else {
        return None;
    };
    if a.key() != b.key() {
        return None;
    }
    let (path, before, after) = match (a.scope(), b.scope()) {
        (Scope::Prev, Scope::Current) => (b, l, r),
        (Scope::Current, Scope::Prev) => (a, r, l),
        _ => return None,
    };
    // Without a previous state there is no "before" to speak of.
    (!matches!(before, Val::NoPrev)).then_some((path, before, after))
}

/// Writes a value for a person: strings quoted, long values shortened.
pub(crate) fn write_val(out: &mut String, v: Val<'_>) {
    match v {
        Val::Missing => out.push_str("null (no such key)"),
        Val::NoPrev => out.push_str("null (there is no previous state)"),
        Val::Null => out.push_str("null"),
        Val::Bool(b) => {
            let _ = write!(out, "{b}");
        }
        Val::Int(n) => {
            let _ = write!(out, "{n}");
        }
        Val::Float(x) => {
            let _ = write!(out, "{x:?}");
        }
        Val::Str(s) => {
            let short = crate::lexer::shorten(s);
            let _ = write_string_literal(out, &short);
        }
        Val::List(items) => {
            write_list_short(out, items);
            let _ = write!(out, " (a list of {})", items.len());
        }
        Val::Object(map) => {
            let plural = if map.len() == 1 { "" } else { "s" };
            let _ = write!(out, "an object with {} key{plural}", map.len());
        }
    }
}

/// Compact JSON of a list, cut after [`MAX_VALUE_CHARS`] bytes.
fn write_list_short(out: &mut String, items: &[Value]) {
    let mut sink = Capped {
        buf: Vec::new(),
        cap: MAX_VALUE_CHARS,
    };
    let complete = serde_json::to_writer(&mut sink, items).is_ok();
    let text = match std::str::from_utf8(&sink.buf) {
        Ok(text) => text,
        Err(e) => std::str::from_utf8(&sink.buf[..e.valid_up_to()]).unwrap_or_default(),
    };
    out.push_str(text);
    if !complete {
        out.push('…');
    }
}

/// A writer that takes `cap` bytes and then refuses, so a huge value is never
/// serialised whole.
struct Capped {
    buf: Vec<u8>,
    cap: usize,
}

impl io::Write for Capped {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        let room = self.cap - self.buf.len();
        if room == 0 {
            return Err(io::Error::other("full"));
        }
        let n = data.len().min(room);
        self.buf.extend_from_slice(&data[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

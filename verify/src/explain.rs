//! Puts an evaluation into words: which part decided the result, with which values.
//!
//! Runs once, after evaluation, and re-evaluates only the sub-expressions it talks
//! about, so the evaluator itself builds no strings. The text is bounded: values are
//! shortened and the whole explanation is cut at [`MAX_EXPLANATION_BYTES`].

use std::fmt::Write as _;
use std::io;

use serde_json::Value;

use crate::ast::{write_string_literal, Expr, Function, Literal, Method, Path, Scope, Target};
use crate::eval::{
    apply_method, first_difference, first_key_with_prefix, is_null_literal, lookup, method_applies,
    same_value, Difference, Evaluator, MAX_EVAL_DEPTH,
};
use crate::value::{compare, compare_mismatch, Val};

/// Longest explanation, in bytes (plus a final `…`).
pub(crate) const MAX_EXPLANATION_BYTES: usize = 2048;
/// Longest rendering of one value, in chars.
const MAX_VALUE_CHARS: usize = 80;
/// Operands of `&&`/`||` described one by one before the rest is summarised.
const MAX_LISTED: usize = 4;

pub(crate) fn explain<'a>(ev: &Evaluator<'a>, expr: &'a Expr, value: Val<'a>, out: &mut String) {
    if !matches!(value, Val::Bool(_)) {
        out.push_str("the expression's value is ");
        write_val(out, value);
        out.push_str(", not true or false: a verify expression must be a condition");
        return;
    }
    Explainer { ev, out }.why(expr, value, 0);
    if out.len() > MAX_EXPLANATION_BYTES {
        let mut cut = MAX_EXPLANATION_BYTES;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
        out.push('…');
    }
}

struct Explainer<'e, 'a> {
    ev: &'e Evaluator<'a>,
    out: &'e mut String,
}

impl<'a> Explainer<'_, 'a> {
    fn eval(&self, e: &'a Expr) -> Val<'a> {
        // The whole tree was evaluated within the depth bound already, so this cannot
        // fail; should it, null is a safe thing to describe.
        self.ev.eval(e, 0).unwrap_or(Val::Null)
    }

    fn full(&self) -> bool {
        self.out.len() > MAX_EXPLANATION_BYTES
    }

    /// Says why `e` has the value `v`.
    fn why(&mut self, e: &'a Expr, v: Val<'a>, depth: usize) {
        if self.full() || depth > MAX_EVAL_DEPTH {
            return;
        }
        match e {
            Expr::Compare { op, lhs, rhs } => self.why_compare(e, *op, lhs, rhs, v),
            Expr::Call(Function::Changed, path) => self.why_changed(path),
            Expr::Call(Function::Exists, path) => self.why_exists(path, v),
            Expr::Method {
                receiver,
                method,
                argument,
            } => self.why_method(e, *method, receiver, argument, v),
            Expr::Not(inner) => {
                let inner_value = self.eval(inner);
                let _ = write!(self.out, "{e} is {}: ", bool_word(v));
                if matches!(inner_value, Val::Bool(_)) {
                    self.why(inner, inner_value, depth + 1);
                } else {
                    self.fact(inner, inner_value);
                    self.out.push_str(", not true or false");
                }
            }
            Expr::And(items) => self.why_chain(items, v, true, depth),
            Expr::Or(items) => self.why_chain(items, v, false, depth),
            Expr::Literal(Literal::Bool(b)) => {
                let _ = write!(self.out, "the constant {b}");
            }
            Expr::Literal(_) | Expr::Path(_) | Expr::Length(_) | Expr::Call(Function::Len, _) => {
                self.fact(e, v);
                if !matches!(v, Val::Bool(_)) {
                    self.out.push_str(", which is not true or false");
                }
            }
        }
    }

    fn why_chain(&mut self, items: &'a [Expr], v: Val<'a>, is_and: bool, depth: usize) {
        let n = items.len();
        let passed = matches!(v, Val::Bool(true));
        // `&&` is decided by its first non-true operand when false, `||` by its first
        // true one when true; otherwise every operand counts.
        let decisive = if is_and != passed {
            items
                .iter()
                .enumerate()
                .map(|(i, item)| (i, item, self.eval(item)))
                .find(|&(_, _, value)| matches!(value, Val::Bool(true)) == passed)
        } else {
            None
        };
        if let Some((i, item, value)) = decisive {
            let verb = if passed { "holds" } else { "is false" };
            let _ = write!(self.out, "condition {} of {n} {verb}: ", i + 1);
            self.why_operand(item, value, depth);
            return;
        }
        let summary = match (is_and, n) {
            (true, 2) => "both conditions hold".to_string(),
            (true, _) => format!("all {n} conditions hold"),
            (false, 2) => "neither alternative holds".to_string(),
            (false, _) => format!("none of the {n} alternatives holds"),
        };
        self.out.push_str(&summary);
        for (i, item) in items.iter().enumerate() {
            if self.full() {
                return;
            }
            if i == MAX_LISTED {
                let _ = write!(self.out, "; and {} more", n - MAX_LISTED);
                return;
            }
            self.out.push_str(if i == 0 { ": " } else { "; " });
            let value = self.eval(item);
            self.why_operand(item, value, depth);
        }
    }

    fn why_operand(&mut self, item: &'a Expr, value: Val<'a>, depth: usize) {
        if matches!(value, Val::Bool(_)) {
            self.why(item, value, depth + 1);
        } else {
            self.fact(item, value);
            self.out.push_str(", which is not true or false");
        }
    }

    fn why_compare(
        &mut self,
        e: &'a Expr,
        op: crate::CompareOp,
        lhs: &'a Expr,
        rhs: &'a Expr,
        v: Val<'a>,
    ) {
        let l = self.eval(lhs);
        let r = self.eval(rhs);
        let null_literal = is_null_literal(lhs) || is_null_literal(rhs);
        let passed = matches!(v, Val::Bool(true));
        if let Some((path, before, after)) = prev_and_current(lhs, rhs, l, r) {
            let changed = !same_value(before, after);
            if changed && passed && op == crate::CompareOp::Ne {
                self.changed_from(path, before, after);
                return;
            }
            let _ = write!(self.out, "{e} is {}: ", bool_word(v));
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
            let _ = write!(self.out, "{e} is {}", bool_word(v));
            let mut first = true;
            for (operand, value) in [(lhs, l), (rhs, r)] {
                if matches!(operand, Expr::Literal(_)) {
                    continue;
                }
                self.out.push_str(if first { ": " } else { " and " });
                first = false;
                self.fact(operand, value);
            }
        }
        if !passed {
            if let Some(reason) = compare_mismatch(op, l, r, null_literal) {
                let _ = write!(self.out, "; {reason}");
            }
        }
        debug_assert_eq!(compare(op, l, r, null_literal), passed);
    }

    fn changed_from(&mut self, path: &Path, before: Val<'_>, after: Val<'_>) {
        let _ = write!(self.out, "{} changed from ", PlainKey(path));
        write_val(self.out, before);
        self.out.push_str(" to ");
        write_val(self.out, after);
    }

    fn why_changed(&mut self, path: &'a Path) {
        let Some(prev) = self.ev.prev else {
            let _ = write!(
                self.out,
                "changed({path}) is false: there is no previous state to compare with"
            );
            return;
        };
        let before = lookup(prev, path);
        let after = lookup(self.ev.current, path);
        if !same_value(before, after) {
            self.changed_from(path, before, after);
            return;
        }
        if path.target() == Target::Object {
            let (old, new) = (&prev.objects, &self.ev.current.objects);
            let difference = first_difference(old, new, path.dot_prefix())
                .or_else(|| first_difference(old, new, path.bracket_prefix()));
            if let Some(difference) = difference {
                let _ = write!(self.out, "{path} changed: ");
                self.difference(difference);
                return;
            }
        }
        let _ = write!(self.out, "changed({path}) is false: {path} is ");
        write_val(self.out, after);
        self.out.push_str(" before and after");
        if path.target() == Target::Object {
            self.out.push_str(", and no key under it changed");
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

    fn why_exists(&mut self, path: &'a Path, v: Val<'a>) {
        let Some(state) = self.ev.state(path.scope()) else {
            let _ = write!(
                self.out,
                "exists({path}) is false: there is no previous state"
            );
            return;
        };
        let value = lookup(state, path);
        if matches!(v, Val::Bool(true)) {
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
        match path.target() {
            Target::Object => {
                let key = path.key();
                let _ = write!(
                    self.out,
                    "exists({path}) is false: no key {key}, {key}.… or {key}[N] in the {which} state"
                );
            }
            _ => {
                let _ = write!(self.out, "exists({path}) is false: {path} is null");
            }
        }
    }

    fn why_method(
        &mut self,
        e: &'a Expr,
        method: Method,
        receiver: &'a Expr,
        argument: &'a Expr,
        v: Val<'a>,
    ) {
        let r = self.eval(receiver);
        let a = self.eval(argument);
        let _ = write!(self.out, "{e} is {}", bool_word(v));
        let mut first = true;
        for (operand, value) in [(receiver, r), (argument, a)] {
            if matches!(operand, Expr::Literal(_)) {
                continue;
            }
            self.out.push_str(if first { ": " } else { " and " });
            first = false;
            self.fact(operand, value);
        }
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
        debug_assert_eq!(apply_method(method, r, a), matches!(v, Val::Bool(true)));
    }

    /// "`operand` is `value`", with the reason when a length came out null.
    fn fact(&mut self, operand: &'a Expr, value: Val<'a>) {
        let _ = write!(self.out, "{operand} is ");
        let measured = match operand {
            Expr::Length(inner) => match &**inner {
                Expr::Path(path) => Some((path.to_string(), Some(path))),
                other => Some((other.to_string(), None)),
            },
            Expr::Call(Function::Len, path) => Some((path.to_string(), Some(path))),
            _ => None,
        };
        let Some((text, path)) = measured else {
            write_val(self.out, value);
            return;
        };
        match (value, path) {
            (Val::Missing, Some(path)) => {
                let key = path.key();
                let _ = write!(
                    self.out,
                    "null: there is no key {key} and no {key}[N] entry (to check that a list is empty, use !exists({text}[0]))"
                );
            }
            (Val::Null, _) => {
                self.out.push_str("null");
                let inner = match (operand, path) {
                    (_, Some(path)) => self.ev.value(path),
                    (Expr::Length(inner), None) => self.eval(inner),
                    _ => Val::Null,
                };
                let _ = write!(
                    self.out,
                    ": {text} is {}, which has no length",
                    inner.type_name()
                );
            }
            _ => write_val(self.out, value),
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

/// A path without its `prev.`, for "x changed from a to b".
struct PlainKey<'p>(&'p Path);

impl std::fmt::Display for PlainKey<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.key())
    }
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

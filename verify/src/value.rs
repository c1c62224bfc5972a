//! Values during evaluation, borrowed from the expression or the state so a look-up
//! never copies, and the comparison rules of the language.

use std::cmp::Ordering;

use serde_json::{Map, Number, Value};

use crate::ast::CompareOp;

#[derive(Debug, Clone, Copy)]
pub(crate) enum Val<'a> {
    /// No such key: behaves as null, explained as missing.
    Missing,
    /// A `prev.` value when there is no previous state: behaves as null.
    NoPrev,
    Null,
    Bool(bool),
    /// Wide enough for every i64 and u64 a JSON number can hold.
    Int(i128),
    Float(f64),
    Str(&'a str),
    List(&'a Vec<Value>),
    Object(&'a Map<String, Value>),
}

impl<'a> Val<'a> {
    pub fn from_json(v: &'a Value) -> Val<'a> {
        match v {
            Value::Null => Val::Null,
            Value::Bool(b) => Val::Bool(*b),
            Value::Number(n) => from_number(n),
            Value::String(s) => Val::Str(s),
            Value::Array(a) => Val::List(a),
            Value::Object(o) => Val::Object(o),
        }
    }

    pub fn is_null(self) -> bool {
        matches!(self, Val::Missing | Val::NoPrev | Val::Null)
    }

    pub fn type_name(self) -> &'static str {
        match self {
            Val::Missing | Val::NoPrev | Val::Null => "null",
            Val::Bool(_) => "a boolean",
            Val::Int(_) | Val::Float(_) => "a number",
            Val::Str(_) => "a string",
            Val::List(_) => "a list",
            Val::Object(_) => "an object",
        }
    }

    fn kind(self) -> u8 {
        match self {
            Val::Missing | Val::NoPrev | Val::Null => 0,
            Val::Bool(_) => 1,
            Val::Int(_) | Val::Float(_) => 2,
            Val::Str(_) => 3,
            Val::List(_) => 4,
            Val::Object(_) => 5,
        }
    }

    pub fn to_json(self) -> Value {
        match self {
            Val::Missing | Val::NoPrev | Val::Null => Value::Null,
            Val::Bool(b) => Value::Bool(b),
            Val::Int(n) => match (i64::try_from(n), u64::try_from(n)) {
                (Ok(i), _) => Value::from(i),
                (_, Ok(u)) => Value::from(u),
                _ => Number::from_f64(n as f64).map_or(Value::Null, Value::Number),
            },
            Val::Float(x) => Number::from_f64(x).map_or(Value::Null, Value::Number),
            Val::Str(s) => Value::String(s.to_string()),
            Val::List(a) => Value::Array(a.clone()),
            Val::Object(o) => Value::Object(o.clone()),
        }
    }
}

fn from_number(n: &Number) -> Val<'_> {
    if let Some(i) = n.as_i64() {
        Val::Int(i128::from(i))
    } else if let Some(u) = n.as_u64() {
        Val::Int(i128::from(u))
    } else {
        Val::Float(n.as_f64().unwrap_or(f64::NAN))
    }
}

pub(crate) fn same_type(a: Val<'_>, b: Val<'_>) -> bool {
    a.kind() == b.kind()
}

fn number_cmp(a: Val<'_>, b: Val<'_>) -> Option<Ordering> {
    match (a, b) {
        (Val::Int(x), Val::Int(y)) => Some(x.cmp(&y)),
        (Val::Float(x), Val::Float(y)) => x.partial_cmp(&y),
        (Val::Int(i), Val::Float(f)) => int_float_cmp(i, f),
        (Val::Float(f), Val::Int(i)) => int_float_cmp(i, f).map(Ordering::reverse),
        _ => None,
    }
}

/// Exact where it matters: a whole float is compared as an integer, so large ids
/// stored once as `3` and once as `3.0` still compare equal.
fn int_float_cmp(i: i128, f: f64) -> Option<Ordering> {
    if f.fract() == 0.0 && f.abs() < 1.0e38 {
        Some(i.cmp(&(f as i128)))
    } else {
        (i as f64).partial_cmp(&f)
    }
}

/// Equality of two values of the same type (3 == 3.0); values of different types are
/// never equal, except that every null is equal to every null.
pub(crate) fn equal(a: Val<'_>, b: Val<'_>) -> bool {
    match (a, b) {
        _ if a.is_null() && b.is_null() => true,
        (Val::Bool(x), Val::Bool(y)) => x == y,
        (Val::Str(x), Val::Str(y)) => x == y,
        (Val::List(x), Val::List(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_equal(p, q))
        }
        (Val::Object(x), Val::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, p)| y.get(k).is_some_and(|q| json_equal(p, q)))
        }
        _ => number_cmp(a, b) == Some(Ordering::Equal),
    }
}

/// Deep equality of JSON values with numeric equality for numbers. Iterative: a state
/// value can be nested deeper than any stack should follow.
pub fn json_equal(a: &Value, b: &Value) -> bool {
    let mut pending: Vec<(&Value, &Value)> = Vec::new();
    let mut pair = (a, b);
    loop {
        match pair {
            (Value::Array(x), Value::Array(y)) => {
                if x.len() != y.len() {
                    return false;
                }
                pending.extend(x.iter().zip(y));
            }
            (Value::Object(x), Value::Object(y)) => {
                if x.len() != y.len() {
                    return false;
                }
                for (k, p) in x {
                    match y.get(k) {
                        Some(q) => pending.push((p, q)),
                        None => return false,
                    }
                }
            }
            (Value::Array(_) | Value::Object(_), _) | (_, Value::Array(_) | Value::Object(_)) => {
                return false
            }
            (x, y) => {
                if !equal(Val::from_json(x), Val::from_json(y)) {
                    return false;
                }
            }
        }
        match pending.pop() {
            Some(next) => pair = next,
            None => return true,
        }
    }
}

/// Order of two numbers or two strings (by code point); anything else has none.
pub(crate) fn order(a: Val<'_>, b: Val<'_>) -> Option<Ordering> {
    match (a, b) {
        (Val::Str(x), Val::Str(y)) => Some(x.cmp(y)),
        _ => number_cmp(a, b),
    }
}

/// The comparison rule. A literal `null` on either side turns `==`/`!=` into a null
/// test; otherwise values of different types compare false under every operator,
/// `!=` included, so a missing key or a type confusion never makes a check pass.
pub(crate) fn compare(op: CompareOp, l: Val<'_>, r: Val<'_>, null_literal: bool) -> bool {
    match op {
        CompareOp::Eq | CompareOp::Ne => {
            let comparable = null_literal || same_type(l, r);
            let eq = equal(l, r);
            comparable && (eq == (op == CompareOp::Eq))
        }
        CompareOp::Gt => order(l, r) == Some(Ordering::Greater),
        CompareOp::Ge => matches!(order(l, r), Some(Ordering::Greater | Ordering::Equal)),
        CompareOp::Lt => order(l, r) == Some(Ordering::Less),
        CompareOp::Le => matches!(order(l, r), Some(Ordering::Less | Ordering::Equal)),
    }
}

/// Why a comparison is false for a reason other than the values themselves, if it is.
pub(crate) fn compare_mismatch(
    op: CompareOp,
    l: Val<'_>,
    r: Val<'_>,
    null_literal: bool,
) -> Option<String> {
    match op {
        CompareOp::Eq | CompareOp::Ne => {
            if null_literal || same_type(l, r) {
                return None;
            }
            let hint = if l.is_null() || r.is_null() {
                "; to test for a missing key, use exists(x) or x == null"
            } else {
                ""
            };
            Some(format!(
                "{} and {} do not compare, so == and != are both false{hint}",
                l.type_name(),
                r.type_name()
            ))
        }
        _ => {
            if order(l, r).is_some() {
                return None;
            }
            if same_type(l, r) && !l.is_null() {
                if matches!(l, Val::Float(_)) || matches!(r, Val::Float(_)) {
                    return None;
                }
                return Some(format!("{} cannot be ordered", plural(l)));
            }
            Some(format!(
                "{} and {} cannot be ordered, so the comparison is false",
                l.type_name(),
                r.type_name()
            ))
        }
    }
}

fn plural(v: Val<'_>) -> &'static str {
    match v {
        Val::Bool(_) => "booleans",
        Val::List(_) => "lists",
        Val::Object(_) => "objects",
        _ => "these values",
    }
}

/// Chars of a string, entries of a list; anything else has no length.
pub(crate) fn length_of(v: Val<'_>) -> Val<'_> {
    match v {
        Val::Str(s) => Val::Int(s.chars().count() as i128),
        Val::List(a) => Val::Int(a.len() as i128),
        Val::Missing | Val::NoPrev => v,
        _ => Val::Null,
    }
}

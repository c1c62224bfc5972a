//! Properties over generated input: printed trees parse back to themselves, and no
//! input, however broken, makes the parser or the evaluator panic or hang.

mod support;

use nsp_verify::{
    evaluate, parse, parse_with_limits, CompareOp, Expr, Function, Limits, Literal, Method, Path,
    Scope, Segment,
};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::strategy::ValueTree;

/// Bytes and nodes unlimited, so a printed form (which adds spaces) is never refused
/// for a size its source passed.
fn roomy() -> Limits {
    Limits {
        max_bytes: usize::MAX,
        max_nodes: usize::MAX,
        ..Limits::default()
    }
}

#[derive(Debug, Clone)]
enum Step {
    Field(String),
    Index(u64),
}

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => "[a-z_][a-z0-9_]{0,6}",
        1 => "[a-zé_][a-zé0-9_-]{0,4}",
        1 => prop::sample::select(vec!["length", "includes", "startsWith", "prev", "true", "null", "changed", "len", "context", "url", "confidence"])
            .prop_map(str::to_string),
    ]
}

fn path() -> impl Strategy<Value = Path> {
    let step = prop_oneof![
        3 => name().prop_map(Step::Field),
        1 => (0u64..1000).prop_map(Step::Index),
    ];
    (any::<bool>(), name(), vec(step, 0..4)).prop_filter_map(
        "not a valid path",
        |(prev, head, steps)| {
            let mut segments = vec![Segment::Field(&head)];
            segments.extend(steps.iter().map(|s| match s {
                Step::Field(f) => Segment::Field(f),
                Step::Index(i) => Segment::Index(*i),
            }));
            let scope = if prev { Scope::Prev } else { Scope::Current };
            Path::new(scope, &segments).ok()
        },
    )
}

fn literal() -> impl Strategy<Value = Literal> {
    let float = prop_oneof![
        prop::num::f64::NORMAL,
        prop::num::f64::SUBNORMAL,
        prop::num::f64::ZERO,
        (-1000i32..1000).prop_map(|n| f64::from(n) / 8.0),
    ];
    prop_oneof![
        Just(Literal::Null),
        any::<bool>().prop_map(Literal::Bool),
        any::<i64>().prop_map(Literal::Int),
        float.prop_map(Literal::Float),
        any::<String>().prop_map(Literal::Str),
        "[a-z 'é\"\\\\()]{0,8}".prop_map(Literal::Str),
    ]
}

fn compare_op() -> impl Strategy<Value = CompareOp> {
    prop::sample::select(vec![
        CompareOp::Eq,
        CompareOp::Ne,
        CompareOp::Gt,
        CompareOp::Ge,
        CompareOp::Lt,
        CompareOp::Le,
    ])
}

fn method() -> impl Strategy<Value = Method> {
    prop::sample::select(vec![Method::Includes, Method::StartsWith, Method::EndsWith])
}

fn function() -> impl Strategy<Value = Function> {
    prop::sample::select(vec![Function::Changed, Function::Exists, Function::Len])
}

/// Any tree, well-formed or not; [`well_formed`] makes it one the parser could produce.
fn raw_expr() -> impl Strategy<Value = Expr> {
    let leaf = prop_oneof![
        literal().prop_map(Expr::Literal),
        path().prop_map(Expr::Path),
        (function(), path()).prop_map(|(f, p)| Expr::Call(f, p)),
    ];
    leaf.prop_recursive(6, 80, 4, |inner| {
        prop_oneof![
            inner.clone().prop_map(|e| Expr::Length(Box::new(e))),
            (inner.clone(), method(), inner.clone()).prop_map(|(r, method, a)| Expr::Method {
                receiver: Box::new(r),
                method,
                argument: Box::new(a),
            }),
            inner.clone().prop_map(|e| Expr::Not(Box::new(e))),
            (compare_op(), inner.clone(), inner.clone()).prop_map(|(op, l, r)| Expr::Compare {
                op,
                lhs: Box::new(l),
                rhs: Box::new(r),
            }),
            vec(inner.clone(), 2..5).prop_map(Expr::And),
            vec(inner, 2..5).prop_map(Expr::Or),
        ]
    })
}

/// Turns a value standing where a condition is needed into `value == true`, and
/// `changed(prev.x)` (refused by the parser) into `exists(prev.x)`.
fn well_formed(e: Expr) -> Expr {
    fn condition(e: Expr) -> Expr {
        let e = well_formed(e);
        if e.is_condition() || matches!(e, Expr::Path(_)) {
            e
        } else {
            Expr::Compare {
                op: CompareOp::Eq,
                lhs: Box::new(e),
                rhs: Box::new(Expr::Literal(Literal::Bool(true))),
            }
        }
    }
    match e {
        Expr::Call(Function::Changed, p) if p.scope() == Scope::Prev => {
            Expr::Call(Function::Exists, p)
        }
        Expr::Length(inner) => Expr::Length(Box::new(well_formed(*inner))),
        Expr::Method {
            receiver,
            method,
            argument,
        } => Expr::Method {
            receiver: Box::new(well_formed(*receiver)),
            method,
            argument: Box::new(well_formed(*argument)),
        },
        Expr::Not(inner) => Expr::Not(Box::new(condition(*inner))),
        Expr::Compare { op, lhs, rhs } => Expr::Compare {
            op,
            lhs: Box::new(well_formed(*lhs)),
            rhs: Box::new(well_formed(*rhs)),
        },
        Expr::And(items) => Expr::And(items.into_iter().map(condition).collect()),
        Expr::Or(items) => Expr::Or(items.into_iter().map(condition).collect()),
        other => other,
    }
}

fn expr() -> impl Strategy<Value = Expr> {
    raw_expr().prop_map(|e| {
        let e = well_formed(e);
        if e.is_condition() {
            e
        } else {
            Expr::Compare {
                op: CompareOp::Ne,
                lhs: Box::new(e),
                rhs: Box::new(Expr::Literal(Literal::Null)),
            }
        }
    })
}

/// Pieces that make near-valid expressions, so a soup of them reaches deep into the
/// parser instead of failing at the first byte.
const TOKENS: [&str; 40] = [
    "(",
    ")",
    "!",
    "&&",
    "||",
    "==",
    "!=",
    ">",
    ">=",
    "<",
    "<=",
    "a",
    "inbox",
    "prev",
    ".",
    "[0]",
    "[",
    "]",
    "'s'",
    "\"d\"",
    "1",
    "-2.5e3",
    "3.0",
    "changed(",
    "exists(",
    "len(",
    ".length",
    ".includes(",
    ".startsWith(",
    ",",
    " ",
    "true",
    "false",
    "null",
    "'\\u{41}'",
    "fetch",
    "context.url",
    "confidence",
    "score",
    "labels",
];

/// Parses, and on success evaluates against both states and checks the printed form.
fn exercise(src: &str) {
    let Ok(expr) = parse(src) else {
        return;
    };
    let printed = expr.to_string();
    let reparsed = parse_with_limits(&printed, &roomy());
    assert_eq!(
        reparsed.as_ref(),
        Ok(&expr),
        "{src:?} printed as {printed:?}"
    );
    let (after, before) = (support::after(), support::before());
    let with_prev = evaluate(&expr, &after, Some(&before));
    assert_eq!(
        with_prev.passed,
        with_prev.value == serde_json::Value::Bool(true)
    );
    assert!(!with_prev.explanation.is_empty());
    assert!(with_prev.explanation.len() <= 2048 + '…'.len_utf8());
    let _ = evaluate(&expr, &after, None);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn printed_trees_parse_back_to_themselves(e in expr()) {
        let printed = e.to_string();
        let reparsed = parse_with_limits(&printed, &roomy());
        prop_assert_eq!(reparsed.as_ref(), Ok(&e), "printed as {}", printed);
        // Evaluating a generated tree is as safe as evaluating a parsed one.
        let result = evaluate(&e, &support::after(), Some(&support::before()));
        prop_assert_eq!(result.passed, result.value == serde_json::Value::Bool(true));
    }

    #[test]
    fn arbitrary_text_never_panics(src in any::<String>()) {
        exercise(&src);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in vec(any::<u8>(), 0..300)) {
        exercise(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn token_soup_never_panics(tokens in vec(prop::sample::select(TOKENS.to_vec()), 0..60)) {
        exercise(&tokens.concat());
    }

    #[test]
    fn spaced_token_soup_never_panics(tokens in vec(prop::sample::select(TOKENS.to_vec()), 1..10)) {
        exercise(&tokens.join(" "));
    }

    #[test]
    fn mutated_expressions_never_panic(
        e in expr(),
        edits in vec((any::<prop::sample::Index>(), 0usize..4, prop::sample::select(TOKENS.to_vec())), 1..4),
    ) {
        let mut src = e.to_string();
        for (at, len, token) in edits {
            let mut start = at.index(src.len() + 1);
            while !src.is_char_boundary(start) {
                start -= 1;
            }
            let mut end = (start + len).min(src.len());
            while !src.is_char_boundary(end) {
                end += 1;
            }
            src.replace_range(start..end, token);
        }
        exercise(&src);
    }
}

#[test]
fn some_token_soups_do_parse() {
    // Guards the soup test against testing nothing but the first error path.
    let runner_cases = 2000;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = vec(prop::sample::select(TOKENS.to_vec()), 1..12);
    let mut parsed = 0;
    for _ in 0..runner_cases {
        let tokens = strategy.new_tree(&mut runner).unwrap().current();
        if parse(&tokens.join(" ")).is_ok() {
            parsed += 1;
        }
    }
    assert!(parsed > 10, "only {parsed} of {runner_cases} soups parsed");
}

//! Every way an expression is refused: the kind, the API code, the byte position and
//! the message, and the limits at, below and above their values.

use expect_test::{expect, Expect};
use nsp_verify::{parse, parse_with_limits, ErrorKind, Limits};

fn check(src: &str, expected: Expect) {
    check_with(src, &Limits::default(), expected);
}

fn check_with(src: &str, limits: &Limits, expected: Expect) {
    match parse_with_limits(src, limits) {
        Ok(expr) => panic!("{src:?} should not parse, but gave {expr}"),
        Err(e) => expected.assert_eq(&format!("{} {e}", e.code())),
    }
}

#[test]
fn syntax_errors_say_where_and_what_was_expected() {
    check("", expect!["invalid_verify_expression at byte 0: expected a value (path, number, string, true/false/null), found the end of the expression"]);
    check("   ", expect!["invalid_verify_expression at byte 3: expected a value (path, number, string, true/false/null), found the end of the expression"]);
    check("(a == 1 && )", expect!["invalid_verify_expression at byte 11: expected a value (path, number, string, true/false/null) after '&&', found ')'"]);
    check("a ==", expect!["invalid_verify_expression at byte 4: expected a value (path, number, string, true/false/null) after '==', found the end of the expression"]);
    check("(a == 1", expect!["invalid_verify_expression at byte 7: expected ')' to close the '(' at byte 0, found the end of the expression"]);
    check("a == 1)", expect!["invalid_verify_expression at byte 6: expected an operator (== != < <= > >= && ||) or the end, found ')'"]);
    check("a == 1 b", expect!["invalid_verify_expression at byte 7: expected an operator (== != < <= > >= && ||) or the end, found the name 'b'"]);
    check("a = 1", expect!["invalid_verify_expression at byte 2: a single '=' is not an operator: write '==' to compare"]);
    check("a === 1", expect!["invalid_verify_expression at byte 4: a single '=' is not an operator: write '==' to compare"]);
    check(
        "a & b",
        expect!["invalid_verify_expression at byte 2: expected '&&', found a single '&'"],
    );
    check(
        "a | b",
        expect!["invalid_verify_expression at byte 2: expected '||', found a single '|'"],
    );
    check("a == 1 == 2", expect!["invalid_verify_expression at byte 7: comparisons cannot be chained: join them with && (e.g. a < b && b < c)"]);
    check("a < b < c", expect!["invalid_verify_expression at byte 6: comparisons cannot be chained: join them with && (e.g. a < b && b < c)"]);
    check(
        "a + 1 == 2",
        expect![
            "invalid_verify_expression at byte 2: unexpected '+': this language has no arithmetic"
        ],
    );
    check("a == - 1", expect!["invalid_verify_expression at byte 5: expected a digit after '-': only numbers can be negative, and there is no subtraction"]);
    check(
        "a @ 1",
        expect!["invalid_verify_expression at byte 2: unexpected character '@'"],
    );
    check("foo(x)", expect!["invalid_verify_expression at byte 0: unknown function 'foo': the functions are changed(path), exists(path) and len(path)"]);
    check("x.contains('a')", expect!["invalid_verify_expression at byte 2: unknown method 'contains': the methods are includes, startsWith and endsWith"]);
    check("x.length() > 1", expect!["invalid_verify_expression at byte 2: length is a property, not a method: write x.length without ()"]);
    check("x.includes()", expect!["invalid_verify_expression at byte 11: includes() takes one argument, e.g. includes('text')"]);
    check("x.includes('a', 'b')", expect!["invalid_verify_expression at byte 14: expected ')' to close includes( at byte 10, found ','"]);
    check("x.includes('a'", expect!["invalid_verify_expression at byte 14: expected ')' to close includes( at byte 10, found the end of the expression"]);
    check("(x).foo == 1", expect!["invalid_verify_expression at byte 4: expected includes(...), startsWith(...), endsWith(...) or length after '.', found 'foo'"]);
    check(
        "'abc'[0] == 'a'",
        expect!["invalid_verify_expression at byte 5: '[N]' can only follow a name in a path"],
    );
    check("changed(prev.x)", expect!["invalid_verify_expression at byte 8: changed() already compares with the previous state: write changed(path) without prev."]);
    check("changed(x.length)", expect!["invalid_verify_expression at byte 9: changed() takes a path, not a computed value; compare lengths with prev.x.length != x.length"]);
    check(
        "len('abc') == 3",
        expect![[
            r#"invalid_verify_expression at byte 4: len() takes a path, e.g. len(inbox.unread_count); found the string "abc""#
        ]],
    );
    check("exists(true)", expect!["invalid_verify_expression at byte 7: exists() takes a path, e.g. exists(inbox.unread_count); found the name 'true'"]);
    check("exists()", expect!["invalid_verify_expression at byte 7: exists() takes a path, e.g. exists(inbox.unread_count); found ')'"]);
    check("exists(a b)", expect!["invalid_verify_expression at byte 9: expected ')' to close exists( at byte 6, found the name 'b'"]);
    check("prev == 1", expect!["invalid_verify_expression at byte 5: prev must be followed by '.' and a path, e.g. prev.inbox.unread_count"]);
    check("prev. x == 1", expect!["invalid_verify_expression at byte 4: prev must be followed by '.' and a path, e.g. prev.inbox.unread_count"]);
    check(
        "a .b == 1",
        expect!["invalid_verify_expression at byte 2: unexpected space before '.' in a path"],
    );
    check(
        "a. b == 1",
        expect!["invalid_verify_expression at byte 3: unexpected space after '.' in a path"],
    );
    check("a.1 == 1", expect!["invalid_verify_expression at byte 2: expected a name right after '.', found the number 1"]);
    check(
        "a [0] == 1",
        expect!["invalid_verify_expression at byte 2: unexpected space before '[' in a path"],
    );
    check("a[-1] == 1", expect!["invalid_verify_expression at byte 2: expected an index (a whole number from 0) inside '[ ]', found the number -1"]);
    check("a[1.5] == 1", expect!["invalid_verify_expression at byte 2: expected an index (a whole number from 0) inside '[ ]', found the number 1.5"]);
    check("a[0 == 1", expect!["invalid_verify_expression at byte 4: expected ']' to close the '[' at byte 1, found '=='"]);
    check("a[] == 1", expect!["invalid_verify_expression at byte 2: expected an index (a whole number from 0) inside '[ ]', found ']'"]);
}

#[test]
fn literal_errors() {
    check("a == 'unterminated", expect!["invalid_verify_expression at byte 18: expected ' to close the string that starts at byte 5, found the end of the expression"]);
    check(
        r#"a == "mixed'"#,
        expect![[
            r#"invalid_verify_expression at byte 12: expected " to close the string that starts at byte 5, found the end of the expression"#
        ]],
    );
    check(
        r"a == '\q'",
        expect![[
            r#"invalid_verify_expression at byte 6: unknown escape '\q': the escapes are \\ \' \" \n \t \r \u{hex} and \uXXXX"#
        ]],
    );
    check(
        r"a == '\u{110000}'",
        expect![[
            r#"invalid_verify_expression at byte 6: \u{110000} is not a Unicode scalar value"#
        ]],
    );
    check(
        r"a == '\u{}'",
        expect![[
            r#"invalid_verify_expression at byte 6: expected 1 to 6 hex digits then '}' in a \u{...} escape"#
        ]],
    );
    check(
        r"a == '\u{1234567}'",
        expect![[
            r#"invalid_verify_expression at byte 6: expected 1 to 6 hex digits then '}' in a \u{...} escape"#
        ]],
    );
    check(
        r"a == '\uD800'",
        expect![[
            r#"invalid_verify_expression at byte 6: a high surrogate \uD800-\uDBFF must be followed by a low surrogate \uDC00-\uDFFF"#
        ]],
    );
    check(
        r"a == '\uDC00'",
        expect![[
            r#"invalid_verify_expression at byte 6: a low surrogate \uDC00-\uDFFF must follow a high surrogate"#
        ]],
    );
    check(
        r"a == '\u12'",
        expect![[
            r#"invalid_verify_expression at byte 6: expected 4 hex digits after \u (or \u{...})"#
        ]],
    );
    check(
        r"a == '\",
        expect![[r#"invalid_verify_expression at byte 6: a string cannot end with a lone '\'"#]],
    );
    check(
        "a == 1e",
        expect![
            "invalid_verify_expression at byte 7: expected the digits of the exponent after 'e'"
        ],
    );
    check(
        "a == 1e+",
        expect![
            "invalid_verify_expression at byte 8: expected the digits of the exponent after 'e'"
        ],
    );
    check(
        "a == 12abc",
        expect![
            "invalid_verify_expression at byte 7: a number cannot be followed directly by a letter"
        ],
    );
    check(
        "a == 0x10",
        expect![
            "invalid_verify_expression at byte 6: a number cannot be followed directly by a letter"
        ],
    );
    check(
        "a == 1e999",
        expect!["invalid_verify_expression at byte 5: the number 1e999 is out of range"],
    );
    check("a == .5", expect!["invalid_verify_expression at byte 5: expected a value (path, number, string, true/false/null) after '==', found '.'"]);
}

#[test]
fn values_where_a_condition_is_needed() {
    check("inbox.unread_count", expect!["invalid_verify_expression at byte 0: the expression must be a condition (true or false), but `inbox.unread_count` is a value: compare it, e.g. `inbox.unread_count == true`"]);
    check("(compose.is_open)", expect!["invalid_verify_expression at byte 0: the expression must be a condition (true or false), but `compose.is_open` is a value: compare it, e.g. `compose.is_open == true`"]);
    check("3", expect!["invalid_verify_expression at byte 0: the expression must be a condition (true or false), but the number 3 is not a condition"]);
    check(
        "'yes'",
        expect![[
            r#"invalid_verify_expression at byte 0: the expression must be a condition (true or false), but the string "yes" is not a condition"#
        ]],
    );
    check("null", expect!["invalid_verify_expression at byte 0: the expression must be a condition (true or false), but `null` is not a condition"]);
    check("len(inbox.emails)", expect!["invalid_verify_expression at byte 0: the expression must be a condition (true or false), but `len(inbox.emails)` is a number: compare it, e.g. `len(inbox.emails) > 0`"]);
    check("inbox.emails.length", expect!["invalid_verify_expression at byte 0: the expression must be a condition (true or false), but `inbox.emails.length` is a number: compare it, e.g. `inbox.emails.length > 0`"]);
    check("a == 1 && 3", expect!["invalid_verify_expression at byte 10: each side of '&&' must be a condition, but the number 3 is not a condition"]);
    check(
        "'x' || a == 1",
        expect![[
            r#"invalid_verify_expression at byte 0: each side of '||' must be a condition, but the string "x" is not a condition"#
        ]],
    );
    check("!3", expect!["invalid_verify_expression at byte 1: '!' must be followed by a condition, but the number 3 is not a condition"]);
    check("!x.length", expect!["invalid_verify_expression at byte 1: '!' must be followed by a condition, but `x.length` is a number: compare it, e.g. `x.length > 0`"]);
    // A path may stand alone inside a chain or after `!`; only its value decides.
    assert!(parse("compose.is_open && !compose.is_sending").is_ok());
}

#[test]
fn forbidden_tokens_are_refused_wherever_they_are() {
    check(
        "fetch('https://evil.example') == 1",
        expect![
            "invalid_verify_expression at byte 0: 'fetch(' is forbidden in a verify expression"
        ],
    );
    check(
        "fetch ('x') == 1",
        expect![
            "invalid_verify_expression at byte 0: 'fetch(' is forbidden in a verify expression"
        ],
    );
    check(
        "a == 1 && fetch\t\n('x')",
        expect![
            "invalid_verify_expression at byte 10: 'fetch(' is forbidden in a verify expression"
        ],
    );
    check(
        "eval('1') == 1",
        expect!["invalid_verify_expression at byte 0: 'eval(' is forbidden in a verify expression"],
    );
    check(
        "import('x') == 1",
        expect![
            "invalid_verify_expression at byte 0: 'import(' is forbidden in a verify expression"
        ],
    );
    check("XMLHttpRequest == null", expect!["invalid_verify_expression at byte 0: 'XMLHttpRequest' is forbidden in a verify expression"]);
    check("document.cookie == ''", expect!["invalid_verify_expression at byte 0: 'document.cookie' is forbidden in a verify expression"]);
    check("context.url.includes('document.cookie')", expect!["invalid_verify_expression at byte 22: 'document.cookie' is forbidden in a verify expression"]);
    check(
        "title == 'eval (x)'",
        expect![
            "invalid_verify_expression at byte 10: 'eval(' is forbidden in a verify expression"
        ],
    );
    // Disguises fall outside the grammar.
    check(
        "window['fe'+'tch']('x') == 1",
        expect![
            "invalid_verify_expression at byte 11: unexpected '+': this language has no arithmetic"
        ],
    );
    check(
        r"\u0066etch('x') == 1",
        expect![[
            r#"invalid_verify_expression at byte 0: unexpected '\': escapes are only allowed inside strings"#
        ]],
    );
    // The bare words are only names: looking up a key called `window.fetch` calls nothing.
    assert!(parse("fetch.count == 1 && eval == true && imports.done == true").is_ok());
    assert!(parse("window.fetch.call == 1").is_ok());
}

#[test]
fn every_error_maps_to_an_api_code() {
    let too_large = parse(&"a".repeat(2049)).unwrap_err();
    assert_eq!(too_large.code(), "verify_expression_too_large");
    assert_eq!(too_large.position(), 2048);
    assert_eq!(
        *too_large.kind(),
        ErrorKind::TooLarge {
            len: 2049,
            max: 2048
        }
    );
    for src in ["(", "fetch(", "x", &"(".repeat(40)] {
        assert_eq!(
            parse(src).unwrap_err().code(),
            "invalid_verify_expression",
            "{src}"
        );
    }
}

#[test]
fn byte_limit_at_below_and_above() {
    let clause = |n: usize| format!("a == '{}'", "x".repeat(n - 7));
    assert_eq!(clause(2047).len(), 2047);
    assert!(parse(&clause(2047)).is_ok());
    assert!(parse(&clause(2048)).is_ok());
    check(&clause(2049), expect!["verify_expression_too_large at byte 2048: the expression is 2049 bytes, over the limit of 2048 bytes"]);
    // Multi-byte text counts in bytes.
    let emoji = format!("a == '{}'", "👋".repeat(511));
    assert_eq!(emoji.len(), 2051);
    check(&emoji, expect!["verify_expression_too_large at byte 2048: the expression is 2051 bytes, over the limit of 2048 bytes"]);
    let limits = Limits {
        max_bytes: 10,
        ..Limits::default()
    };
    assert!(parse_with_limits("abcdef==1", &limits).is_ok());
    assert!(parse_with_limits("abcdefg==1", &limits).is_ok());
    check_with("abcdefgh==1", &limits, expect!["verify_expression_too_large at byte 10: the expression is 11 bytes, over the limit of 10 bytes"]);
}

/// `n` pairs of parentheses around a comparison.
fn parens(n: usize) -> String {
    format!("{}a == 1{}", "(".repeat(n), ")".repeat(n))
}

#[test]
fn depth_limit_at_below_and_above() {
    assert!(parse(&parens(31)).is_ok());
    assert!(parse(&parens(32)).is_ok());
    check(&parens(33), expect!["invalid_verify_expression at byte 32: nested deeper than 32 levels (parentheses, '!', calls and methods count)"]);

    let bangs = |n: usize| format!("{}(a == 1)", "!".repeat(n));
    assert!(parse(&bangs(30)).is_ok());
    assert!(parse(&bangs(31)).is_ok());
    check(&bangs(32), expect!["invalid_verify_expression at byte 32: nested deeper than 32 levels (parentheses, '!', calls and methods count)"]);

    // Calls and methods count too.
    let limits = Limits {
        max_depth: 3,
        ..Limits::default()
    };
    assert!(parse_with_limits("!(exists(a))", &limits).is_ok());
    assert!(parse_with_limits("!(a.includes(b))", &limits).is_ok());
    check_with("!(a.includes(b.length == 1))", &limits, expect!["invalid_verify_expression at byte 15: nested deeper than 3 levels (parentheses, '!', calls and methods count)"]);
    check_with("((exists(a) == true) == true) == true || (((exists(b))))", &limits, expect!["invalid_verify_expression at byte 44: nested deeper than 3 levels (parentheses, '!', calls and methods count)"]);
}

#[test]
fn thousands_of_openers_fail_fast_without_overflowing() {
    let big = Limits {
        max_bytes: 1 << 20,
        ..Limits::default()
    };
    for src in [
        "(".repeat(4096),
        "!".repeat(4096),
        "a.includes(".repeat(4096),
        "(!".repeat(2048),
    ] {
        assert_eq!(
            parse(&src).unwrap_err().code(),
            "verify_expression_too_large"
        );
        let e = parse_with_limits(&src, &big).unwrap_err();
        assert_eq!(*e.kind(), ErrorKind::TooDeep { max: 32 }, "{e}");
    }
    check_with(&"(".repeat(4096), &big, expect!["invalid_verify_expression at byte 32: nested deeper than 32 levels (parentheses, '!', calls and methods count)"]);
    check_with(&"!".repeat(4096), &big, expect!["invalid_verify_expression at byte 32: nested deeper than 32 levels (parentheses, '!', calls and methods count)"]);

    // A depth limit set absurdly high is capped, so a modest stack survives anything.
    // Unoptimised code takes about 10 KiB of stack per level, optimised under 2 KiB.
    let reckless = Limits {
        max_bytes: 1 << 20,
        max_depth: usize::MAX,
        max_nodes: usize::MAX,
    };
    let worker = std::thread::Builder::new()
        .stack_size(1024 * 1024)
        .spawn(move || {
            for n in [4096, 100_000] {
                let e = parse_with_limits(&parens(n), &reckless).unwrap_err();
                assert_eq!(
                    *e.kind(),
                    ErrorKind::TooDeep {
                        max: nsp_verify::HARD_MAX_DEPTH
                    }
                );
                let e = parse_with_limits(&"!".repeat(n), &reckless).unwrap_err();
                assert_eq!(
                    *e.kind(),
                    ErrorKind::TooDeep {
                        max: nsp_verify::HARD_MAX_DEPTH
                    }
                );
            }
            let deepest = parse_with_limits(&parens(64), &reckless).unwrap();
            let state = nsp_protocol::SubstrateState {
                pid: 1,
                app_id: String::new(),
                app_name: String::new(),
                runtime: String::new(),
                confidence: 1.0,
                capture_id: String::new(),
                schema_version: String::new(),
                captured_at: String::new(),
                context: Default::default(),
                objects: Default::default(),
                actions: Default::default(),
                probe_metadata: Default::default(),
            };
            let result = nsp_verify::evaluate(&deepest, &state, Some(&state));
            assert!(!result.passed);
            assert_eq!(deepest.to_string(), "a == 1");
        })
        .unwrap();
    worker.join().unwrap();
}

#[test]
fn node_limit_at_below_and_above() {
    // `a == 1` is three nodes; a chain of k of them is 3k + 1.
    let chain = |k: usize| vec!["a == 1"; k].join(" && ");
    let limits = Limits {
        max_nodes: 10,
        ..Limits::default()
    };
    assert!(parse_with_limits(&chain(3), &limits).is_ok());
    let limits_9 = Limits {
        max_nodes: 9,
        ..Limits::default()
    };
    check_with(&chain(3), &limits_9, expect!["invalid_verify_expression at byte 26: the expression has more than 9 parts; split it or simplify it"]);
    let limits_11 = Limits {
        max_nodes: 11,
        ..Limits::default()
    };
    assert!(parse_with_limits(&chain(3), &limits_11).is_ok());
    // With the defaults: 341 clauses are 1024 nodes in 1703 bytes, 342 are too many.
    assert!(parse(&vec!["a<1"; 341].join("||")).is_ok());
    check(&vec!["a<1"; 342].join("||"), expect!["invalid_verify_expression at byte 1708: the expression has more than 1024 parts; split it or simplify it"]);
}

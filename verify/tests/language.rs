//! The language, pattern by pattern: each expression evaluated against the mail states
//! in `support`, with its result and explanation as a snapshot.

mod support;

use expect_test::{expect, Expect};
use nsp_verify::{changed_fields, evaluate, parse};

/// Parses `src`, evaluates it after/before the action, and compares
/// `passed | value | explanation` with the snapshot.
fn check(src: &str, expected: Expect) {
    let expr = parse(src).unwrap_or_else(|e| panic!("{src:?} should parse: {e}"));
    let result = evaluate(&expr, &support::after(), Some(&support::before()));
    assert_eq!(result.passed, result.value == serde_json::Value::Bool(true));
    expected.assert_eq(&format!("{} | {}", result.passed, result.explanation));
}

/// Same, with no previous state.
fn check_without_prev(src: &str, expected: Expect) {
    let expr = parse(src).unwrap_or_else(|e| panic!("{src:?} should parse: {e}"));
    let result = evaluate(&expr, &support::after(), None);
    expected.assert_eq(&format!("{} | {}", result.passed, result.explanation));
}

#[test]
fn patterns_agents_write() {
    check(
        "inbox.unread_count == 0",
        expect!["true | inbox.unread_count == 0 is true: inbox.unread_count is 0"],
    );
    check(
        "compose.is_open != false",
        expect!["false | compose.is_open != false is false: compose.is_open is false"],
    );
    check(
        "inbox.sent_count > 5",
        expect!["true | inbox.sent_count > 5 is true: inbox.sent_count is 15"],
    );
    check(
        "inbox.sent_count > 15",
        expect!["false | inbox.sent_count > 15 is false: inbox.sent_count is 15"],
    );
    check(
        "confidence >= 0.95",
        expect!["true | confidence >= 0.95 is true: confidence is 0.96"],
    );
    check(
        "changed(inbox.unread_count)",
        expect!["true | inbox.unread_count changed from 3 to 0"],
    );
    check(
        "exists(compose.draft_id)",
        expect![[r#"true | compose.draft_id exists: it is "d-17""#]],
    );
    check(
        "context.url == \"https://mail.google.com/sent\"",
        expect![[
            r#"true | context.url == "https://mail.google.com/sent" is true: context.url is "https://mail.google.com/sent""#
        ]],
    );
    check(
        "prev.inbox.sent_count != inbox.sent_count",
        expect!["true | inbox.sent_count changed from 14 to 15"],
    );
    check("flight.is_armed == true && flight.altitude_m > 10.0", expect!["true | both conditions hold: flight.is_armed == true is true: flight.is_armed is true; flight.altitude_m > 10.0 is true: flight.altitude_m is 12.5"]);
    check(
        "context.url.includes('inbox')",
        expect![[
            r#"false | context.url.includes("inbox") is false: context.url is "https://mail.google.com/sent""#
        ]],
    );
    check(
        "context.url.includes('sent')",
        expect![[
            r#"true | context.url.includes("sent") is true: context.url is "https://mail.google.com/sent""#
        ]],
    );
}

#[test]
fn failures_say_which_part_and_which_values() {
    check("flight.is_armed == true && flight.altitude_m > 100", expect!["false | condition 2 of 2 is false: flight.altitude_m > 100 is false: flight.altitude_m is 12.5"]);
    check("inbox.unread_count == 1 || inbox.sent_count == 99 || compose.is_open == true", expect!["false | none of the 3 alternatives holds: inbox.unread_count == 1 is false: inbox.unread_count is 0; inbox.sent_count == 99 is false: inbox.sent_count is 15; compose.is_open == true is false: compose.is_open is false"]);
    check("prev.inbox.sent_count == inbox.sent_count", expect!["false | prev.inbox.sent_count == inbox.sent_count is false: inbox.sent_count changed from 14 to 15"]);
    check(
        "prev.compose.subject != compose.subject",
        expect![[
            r#"false | prev.compose.subject != compose.subject is false: compose.subject is "Hello" before and after"#
        ]],
    );
    check("!(inbox.unread_count == 0)", expect!["false | !(inbox.unread_count == 0) is false: inbox.unread_count == 0 is true: inbox.unread_count is 0"]);
    check("!(inbox.unread_count == 5)", expect!["true | !(inbox.unread_count == 5) is true: inbox.unread_count == 5 is false: inbox.unread_count is 0"]);
    check(
        "changed(compose.subject)",
        expect![[
            r#"false | changed(compose.subject) is false: compose.subject is "Hello" before and after, and no key under it changed"#
        ]],
    );
    check("exists(compose.attachment)", expect!["false | exists(compose.attachment) is false: no key compose.attachment, compose.attachment.… or compose.attachment[N] in the current state"]);
    check("exists(prev.compose.draft_id)", expect!["false | exists(prev.compose.draft_id) is false: no key compose.draft_id, compose.draft_id.… or compose.draft_id[N] in the previous state"]);
}

#[test]
fn precedence() {
    // `&&` binds tighter than `||`: true || (false && false).
    check(
        "score == 3 || score == 4 && score == 5",
        expect!["true | condition 1 of 2 holds: score == 3 is true: score is 3.0"],
    );
    // Parentheses override it: (true || false) && false.
    check(
        "(score == 3 || score == 4) && score == 5",
        expect!["false | condition 2 of 2 is false: score == 5 is false: score is 3.0"],
    );
    // `!` binds tighter than `&&`.
    check("!(score == 4) && score == 3", expect!["true | both conditions hold: !(score == 4) is true: score == 4 is false: score is 3.0; score == 3 is true: score is 3.0"]);
    check("!!(score == 3)", expect!["true | !!(score == 3) is true: !(score == 3) is false: score == 3 is true: score is 3.0"]);
    // A comparison between two conditions.
    check("(score == 3) == (inbox.unread_count == 0)", expect!["true | (score == 3) == (inbox.unread_count == 0) is true: score == 3 is true and inbox.unread_count == 0 is true"]);
    // Printed back with the fewest parentheses.
    let printed = parse("((a == 1) || ((b == 2) && !(c == 3)))")
        .unwrap()
        .to_string();
    assert_eq!(printed, "a == 1 || b == 2 && !(c == 3)");
    let printed = parse("(a == 1 || b == 2) && (c == 3 && d == 4)")
        .unwrap()
        .to_string();
    assert_eq!(printed, "(a == 1 || b == 2) && (c == 3 && d == 4)");
}

#[test]
fn nulls_and_type_mismatches() {
    check("compose.attachment > 3", expect!["false | compose.attachment > 3 is false: compose.attachment is null (no such key); null and a number cannot be ordered, so the comparison is false"]);
    check("compose.attachment == 3", expect!["false | compose.attachment == 3 is false: compose.attachment is null (no such key); null and a number do not compare, so == and != are both false; to test for a missing key, use exists(x) or x == null"]);
    check("compose.attachment != 3", expect!["false | compose.attachment != 3 is false: compose.attachment is null (no such key); null and a number do not compare, so == and != are both false; to test for a missing key, use exists(x) or x == null"]);
    check(
        "compose.attachment == null",
        expect![
            "true | compose.attachment == null is true: compose.attachment is null (no such key)"
        ],
    );
    check(
        "compose.draft_id != null",
        expect![[r#"true | compose.draft_id != null is true: compose.draft_id is "d-17""#]],
    );
    check(
        "nothing == null",
        expect!["true | nothing == null is true: nothing is null"],
    );
    check(
        "nothing != null",
        expect!["false | nothing != null is false: nothing is null"],
    );
    check(
        "compose.draft_id > 3",
        expect![[
            r#"false | compose.draft_id > 3 is false: compose.draft_id is "d-17"; a string and a number cannot be ordered, so the comparison is false"#
        ]],
    );
    check(
        "compose.draft_id == 17",
        expect![[
            r#"false | compose.draft_id == 17 is false: compose.draft_id is "d-17"; a string and a number do not compare, so == and != are both false"#
        ]],
    );
    check(
        "compose.draft_id != 17",
        expect![[
            r#"false | compose.draft_id != 17 is false: compose.draft_id is "d-17"; a string and a number do not compare, so == and != are both false"#
        ]],
    );
    check("flight.is_armed > false", expect!["false | flight.is_armed > false is false: flight.is_armed is true; booleans cannot be ordered"]);
    check("flight.is_armed == 1", expect!["false | flight.is_armed == 1 is false: flight.is_armed is true; a boolean and a number do not compare, so == and != are both false"]);
    check(
        "prev.compose.draft_id != compose.draft_id",
        expect![[
            r#"false | prev.compose.draft_id != compose.draft_id is false: compose.draft_id changed from null (no such key) to "d-17"; null does not compare with a value, but changed(compose.draft_id) counts a key that appears or disappears"#
        ]],
    );
    check(
        "compose.is_open.includes('x')",
        expect![[
            r#"false | compose.is_open.includes("x") is false: compose.is_open is false; includes() needs a string receiver and a string argument, or a list receiver, not a boolean and a string"#
        ]],
    );
}

#[test]
fn numbers() {
    check(
        "score == 3",
        expect!["true | score == 3 is true: score is 3.0"],
    );
    check(
        "score == 3.0",
        expect!["true | score == 3.0 is true: score is 3.0"],
    );
    check(
        "prev.score == score",
        expect!["true | prev.score == score is true: score is 3.0 before and after"],
    );
    check("changed(score)", expect!["false | changed(score) is false: score is 3.0 before and after, and no key under it changed"]);
    check(
        "inbox.unread_count > -1",
        expect!["true | inbox.unread_count > -1 is true: inbox.unread_count is 0"],
    );
    check(
        "flight.altitude_m == 1.25e1",
        expect!["true | flight.altitude_m == 12.5 is true: flight.altitude_m is 12.5"],
    );
    check("flight.altitude_m < 1E2 && flight.altitude_m >= 125e-1", expect!["true | both conditions hold: flight.altitude_m < 100.0 is true: flight.altitude_m is 12.5; flight.altitude_m >= 12.5 is true: flight.altitude_m is 12.5"]);
    check(
        "big == 9007199254740993",
        expect!["true | big == 9007199254740993 is true: big is 9007199254740993"],
    );
    check(
        "big != 9007199254740992",
        expect!["true | big != 9007199254740992 is true: big is 9007199254740993"],
    );
    check(
        "big > 99999999999999999999",
        expect!["false | big > 1e20 is false: big is 9007199254740993"],
    );
    check("-0.0 == 0", expect!["true | -0.0 == 0 is true"]);
    check("confidence < 1 && confidence > 0.959", expect!["true | both conditions hold: confidence < 1 is true: confidence is 0.96; confidence > 0.959 is true: confidence is 0.96"]);
}

#[test]
fn strings_escapes_and_unicode() {
    check(
        r#"quote == 'it\'s "quoted"\n'"#,
        expect![[r#"true | quote == "it's \"quoted\"\n" is true: quote is "it's \"quoted\"\n""#]],
    );
    check(
        r#"quote == "it's \"quoted\"\u{a}""#,
        expect![[r#"true | quote == "it's \"quoted\"\n" is true: quote is "it's \"quoted\"\n""#]],
    );
    check(
        r#"greeting == "h\u00e9llo w\u{f6}rld \uD83D\uDC4B""#,
        expect![[r#"true | greeting == "héllo wörld 👋" is true: greeting is "héllo wörld 👋""#]],
    );
    check(
        "greeting == 'héllo wörld 👋'",
        expect![[r#"true | greeting == "héllo wörld 👋" is true: greeting is "héllo wörld 👋""#]],
    );
    check(
        "greeting.startsWith('héllo')",
        expect![[r#"true | greeting.startsWith("héllo") is true: greeting is "héllo wörld 👋""#]],
    );
    check(
        "greeting.endsWith('👋')",
        expect![[r#"true | greeting.endsWith("👋") is true: greeting is "héllo wörld 👋""#]],
    );
    check(
        "greeting.length == 13",
        expect!["true | greeting.length == 13 is true: greeting.length is 13"],
    );
    check(
        r"'a\\b'.length == 3",
        expect![[r#"true | "a\\b".length == 3 is true: "a\\b".length is 3"#]],
    );
    check("'' == \"\"", expect![[r#"true | "" == "" is true"#]]);
}

#[test]
fn lengths_and_lists() {
    check(
        "inbox.emails.length == 4",
        expect!["true | inbox.emails.length == 4 is true: inbox.emails.length is 4"],
    );
    check("len(inbox.emails) > prev.inbox.emails.length", expect!["true | len(inbox.emails) > prev.inbox.emails.length is true: len(inbox.emails) is 4 and prev.inbox.emails.length is 2"]);
    check(
        "len(compose.subject) == 5",
        expect!["true | len(compose.subject) == 5 is true: len(compose.subject) is 5"],
    );
    check(
        "labels.length == 2 && labels.includes('family')",
        expect![[
            r#"true | both conditions hold: labels.length == 2 is true: labels.length is 2; labels.includes("family") is true: labels is ["work","family"] (a list of 2)"#
        ]],
    );
    check(
        "labels[1] == 'family'",
        expect![[r#"true | labels[1] == "family" is true: labels[1] is "family""#]],
    );
    check(
        "labels.includes(3)",
        expect![[
            r#"false | labels.includes(3) is false: labels is ["work","family"] (a list of 2)"#
        ]],
    );
    check("outbox.items.length == 0", expect!["false | outbox.items.length == 0 is false: outbox.items.length is null: there is no key outbox.items and no outbox.items[N] entry (to check that a list is empty, use !exists(outbox.items[0])); null and a number do not compare, so == and != are both false; to test for a missing key, use exists(x) or x == null"]);
    check("score.length > 0", expect!["false | score.length > 0 is false: score.length is null: score is a number, which has no length; null and a number cannot be ordered, so the comparison is false"]);
    check(
        "inbox.emails[2].subject.startsWith('Re:')",
        expect![[
            r#"true | inbox.emails[2].subject.startsWith("Re:") is true: inbox.emails[2].subject is "Re: Hello""#
        ]],
    );
    check(
        "context.url.length > 10",
        expect!["true | context.url.length > 10 is true: context.url.length is 28"],
    );
}

#[test]
fn values_stored_whole_are_walked_into() {
    check(
        "meta.owner.name == 'Ada'",
        expect![[r#"true | meta.owner.name == "Ada" is true: meta.owner.name is "Ada""#]],
    );
    check(
        "meta.count == 3",
        expect!["true | meta.count == 3 is true: meta.count is 3.0"],
    );
    check(
        "meta.missing == null",
        expect!["true | meta.missing == null is true: meta.missing is null (no such key)"],
    );
    check(
        "exists(meta.owner)",
        expect!["true | meta.owner exists: it is an object with 1 key"],
    );
    check(
        "labels[5] == null",
        expect!["true | labels[5] == null is true: labels[5] is null (no such key)"],
    );
}

#[test]
fn changed_and_exists_see_whole_subtrees() {
    check(
        "changed(inbox.emails)",
        expect!["true | inbox.emails changed: inbox.emails[0].is_read changed from false to true"],
    );
    check("changed(inbox.emails[1])", expect!["false | changed(inbox.emails[1]) is false: inbox.emails[1] is null (no such key) before and after, and no key under it changed"]);
    // A key written without its namespace: the keys that end in it are named.
    check("changed(subject)", expect!["false | changed(subject) is false: subject is null (no such key) before and after, and no key under it changed (keys that end in it: compose.subject, inbox.emails[0].subject, inbox.emails[1].subject)"]);
    check(
        "changed(compose)",
        expect![[r#"true | compose changed: compose.draft_id was added ("d-17")"#]],
    );
    check(
        "exists(inbox.emails)",
        expect!["true | inbox.emails exists: inbox.emails[0].id is present"],
    );
    check(
        "exists(inbox)",
        expect!["true | inbox exists: inbox.emails[0].id is present"],
    );
    check(
        "exists(context.location)",
        expect!["false | exists(context.location) is false: context.location is null"],
    );
    check(
        "exists(confidence)",
        expect!["true | confidence exists: it is 0.96"],
    );
    check(
        "changed(context.url)",
        expect![[
            r#"true | context.url changed from "https://mail.google.com/inbox" to "https://mail.google.com/sent""#
        ]],
    );
}

#[test]
fn context_fields() {
    check(
        "context.view == 'sent' && context.window_id == '7'",
        expect![[
            r#"true | both conditions hold: context.view == "sent" is true: context.view is "sent"; context.window_id == "7" is true: context.window_id is "7""#
        ]],
    );
    check(
        "context.location == null",
        expect!["true | context.location == null is true: context.location is null"],
    );
    check(
        "context.window_title.includes('Mail')",
        expect![[
            r#"true | context.window_title.includes("Mail") is true: context.window_title is "Sent – Mail""#
        ]],
    );
    check(
        "prev.context.url.endsWith('/inbox')",
        expect![[
            r#"true | prev.context.url.endsWith("/inbox") is true: prev.context.url is "https://mail.google.com/inbox""#
        ]],
    );
}

#[test]
fn without_a_previous_state() {
    check_without_prev("changed(inbox.sent_count)", expect!["false | changed(inbox.sent_count) is false: there is no previous state to compare with"]);
    check_without_prev("prev.inbox.sent_count != inbox.sent_count", expect!["false | prev.inbox.sent_count != inbox.sent_count is false: prev.inbox.sent_count is null (there is no previous state) and inbox.sent_count is 15; null and a number do not compare, so == and != are both false; to test for a missing key, use exists(x) or x == null"]);
    check_without_prev("prev.inbox.sent_count < 15", expect!["false | prev.inbox.sent_count < 15 is false: prev.inbox.sent_count is null (there is no previous state); null and a number cannot be ordered, so the comparison is false"]);
    check_without_prev(
        "exists(prev.inbox)",
        expect!["false | exists(prev.inbox) is false: there is no previous state"],
    );
}

#[test]
fn long_flat_chains_are_fine() {
    // 500 clauses under the default limits: a chain costs no depth.
    let src = vec!["f"; 500].join("&&");
    assert!(src.len() <= 2048, "{}", src.len());
    let expr = parse(&src).unwrap();
    let result = evaluate(&expr, &support::after(), None);
    assert!(!result.passed);
    assert_eq!(
        result.explanation,
        "condition 1 of 500 is false: f is null (no such key), which is not true or false"
    );

    // 500 comparisons need more bytes and nodes than the defaults allow, but no depth.
    let src = (0..500)
        .map(|i| format!("n{i}==0"))
        .collect::<Vec<_>>()
        .join("&&");
    let limits = nsp_verify::Limits {
        max_bytes: 8192,
        max_nodes: 2048,
        ..Default::default()
    };
    let expr = nsp_verify::parse_with_limits(&src, &limits).unwrap();
    let result = evaluate(&expr, &support::after(), None);
    assert!(result.explanation.starts_with(
        "condition 1 of 500 is false: n0 == 0 is false: n0 is null (no such key); null and a number do not compare"
    ), "{}", result.explanation);

    // The longest chain of this clause that fits the default byte limit.
    let src = vec!["score==3"; 205].join("&&");
    assert!(src.len() <= 2048);
    let result = evaluate(&parse(&src).unwrap(), &support::after(), None);
    assert!(result.passed);
    assert_eq!(
        result.explanation,
        "all 205 conditions hold: score == 3 is true: score is 3.0; score == 3 is true: score is 3.0; \
         score == 3 is true: score is 3.0; score == 3 is true: score is 3.0; and 201 more"
    );
}

#[test]
fn changed_fields_lists_added_removed_and_changed_keys() {
    let mut prev = support::before();
    let mut current = support::after();
    prev.objects
        .retain(|k, _| k.starts_with("inbox.emails") || k.starts_with("compose") || k == "score");
    current.objects.retain(|k, _| {
        k.starts_with("inbox.emails[2]") || k.starts_with("compose") || k == "score"
    });
    let changes: Vec<String> = changed_fields(&prev, &current)
        .iter()
        .map(|c| format!("{}: {} -> {}", c.path, c.before, c.after))
        .collect();
    expect![[r#"
        [
            "compose.draft_id: null -> \"d-17\"",
            "compose.is_open: true -> false",
            "inbox.emails[0].id: \"m1\" -> null",
            "inbox.emails[0].is_read: false -> null",
            "inbox.emails[0].subject: \"Hi\" -> null",
            "inbox.emails[1].id: \"m2\" -> null",
            "inbox.emails[1].is_read: true -> null",
            "inbox.emails[1].subject: \"Lunch?\" -> null",
            "inbox.emails[2].id: null -> \"m3\"",
            "inbox.emails[2].is_read: null -> false",
            "inbox.emails[2].subject: null -> \"Re: Hello\"",
        ]
    "#]]
    .assert_debug_eq(&changes);
    assert!(changed_fields(&current, &current).is_empty());
}

#[test]
fn printing_is_stable() {
    let sources = [
        "prev.inbox.sent_count != inbox.sent_count",
        "inbox.emails[0].is_read == true && !exists(compose.draft_id) || len(inbox.emails) >= 2",
        "context.url.includes('inbox') && \"a\\\"b\".length == 3",
        "(a.length).length == 1 && (a == 1) == (b == 2)",
        "x.includes(y.length == 2) == false",
        "flight.altitude_m > -1.5e-7 && n == -9223372036854775808",
    ];
    let printed: Vec<String> = sources
        .iter()
        .map(|s| parse(s).unwrap().to_string())
        .collect();
    expect![[r#"
        [
            "prev.inbox.sent_count != inbox.sent_count",
            "inbox.emails[0].is_read == true && !exists(compose.draft_id) || len(inbox.emails) >= 2",
            "context.url.includes(\"inbox\") && \"a\\\"b\".length == 3",
            "(a.length).length == 1 && (a == 1) == (b == 2)",
            "x.includes(y.length == 2) == false",
            "flight.altitude_m > -1.5e-7 && n == -9223372036854775808",
        ]
    "#]].assert_debug_eq(&printed);
    for p in &printed {
        assert_eq!(parse(p).unwrap().to_string(), *p);
    }
}

#[test]
fn hand_built_trees() {
    use nsp_verify::{Expr, Literal, Path, PathError, Scope, Segment};

    let path = Path::new(
        Scope::Prev,
        &[
            Segment::Field("inbox"),
            Segment::Field("emails"),
            Segment::Index(3),
            Segment::Field("id"),
        ],
    )
    .unwrap();
    assert_eq!(path.key(), "inbox.emails[3].id");
    assert_eq!(path.to_string(), "prev.inbox.emails[3].id");
    assert_eq!(
        path.segments().collect::<Vec<_>>(),
        [
            Segment::Field("inbox"),
            Segment::Field("emails"),
            Segment::Index(3),
            Segment::Field("id")
        ]
    );
    let refused = |scope, segments: &[Segment<'_>]| Path::new(scope, segments).unwrap_err();
    let expected: [(Scope, &[Segment<'_>], &str); 6] = [
        (
            Scope::Current,
            &[],
            "invalid path: a path starts with a name",
        ),
        (
            Scope::Current,
            &[Segment::Index(0)],
            "invalid path: a path starts with a name",
        ),
        (
            Scope::Current,
            &[Segment::Field("prev"), Segment::Field("x")],
            "invalid path: a path cannot start with true, false, null or prev",
        ),
        (
            Scope::Current,
            &[Segment::Field("a b")],
            "invalid path: a name is a letter or _ then letters, digits, _ or -",
        ),
        (
            Scope::Current,
            &[Segment::Field("a"), Segment::Field("length")],
            "invalid path: a path cannot end in .length",
        ),
        (
            Scope::Current,
            &[Segment::Field("document"), Segment::Field("cookie")],
            "invalid path: a path cannot spell a forbidden token",
        ),
    ];
    for (scope, segments, message) in expected {
        let e: PathError = refused(scope, segments);
        assert_eq!(e.to_string(), message);
    }
    // `prev.true` is fine: after `prev.` every word is a name.
    assert!(Path::new(Scope::Prev, &[Segment::Field("true")]).is_ok());

    // A tree deeper than any parse could produce is refused, not overflowed.
    let mut deep = Expr::Literal(Literal::Bool(true));
    for _ in 0..5000 {
        deep = Expr::Not(Box::new(deep));
    }
    let result = evaluate(&deep, &support::after(), None);
    assert!(!result.passed);
    assert_eq!(result.value, serde_json::Value::Null);
    assert_eq!(
        result.explanation,
        "the expression is nested more than 272 levels deep and was not evaluated"
    );
    // Dropping it iteratively keeps the test itself off the stack limit.
    while let Expr::Not(inner) = deep {
        deep = *inner;
    }

    // A value at the top (which `parse` refuses) fails with its reason.
    let bare = Expr::Path(Path::new(Scope::Current, &[Segment::Field("score")]).unwrap());
    let result = evaluate(&bare, &support::after(), None);
    assert!(!result.passed);
    assert_eq!(result.value, serde_json::json!(3.0));
    assert_eq!(
        result.explanation,
        "the expression's value is 3.0, not true or false: a verify expression must be a condition"
    );
}

/// Only an expression that reads the state after the action can tell whether it did
/// anything: literals and the previous state alone cannot (nspd refuses them).
#[test]
fn which_expressions_read_the_state() {
    let reads = |src: &str| parse(src).expect(src).reads_state();
    for src in [
        "inbox.unread_count == 0",
        "changed(inbox.unread_count)",
        "prev.x != x",
        "true && !compose.is_open",
        "context.url.includes(\"/sent\")",
        "confidence > 0.5",
        "exists(toast)",
        "len(inbox.emails) == 2 || false",
        "\"abc\".includes(title)",
    ] {
        assert!(reads(src), "{src} reads the state");
    }
    for src in [
        "true",
        "1 == 1",
        "!false",
        "\"a\".includes(\"a\")",
        "prev.inbox.unread_count == 3",
        "exists(prev.toast) || (1 < 2 && null == null)",
    ] {
        assert!(!reads(src), "{src} reads no state after the action");
    }
}

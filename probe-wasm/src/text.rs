//! Turning page text into names, descriptions and values. Page text is data written by
//! whoever controls the page: everything that leaves the probe is cleaned of control
//! characters and bounded here, so a 100 KB label cannot inflate a state.

/// Longest action name or key segment the probe makes from page text.
pub const MAX_NAME_LEN: usize = 48;
/// Longest description built from page text.
pub const MAX_DESCRIPTION_LEN: usize = 160;
/// Longest string value put into `objects`.
pub const MAX_VALUE_LEN: usize = 200;

/// snake_case ASCII slug of page text, bounded. Letters outside ASCII are dropped, so
/// the result may be empty; callers fall back to another source of names.
pub fn slug(text: &str) -> String {
    // Byte by byte: the output is ASCII, and a non-ASCII character is one separator
    // (its continuation bytes are skipped). One allocation; this runs for every cell.
    let mut out: Vec<u8> = Vec::with_capacity(text.len().min(MAX_NAME_LEN + 1));
    let mut prev_lower = false;
    let mut chars = 0usize;
    for &b in text.as_bytes() {
        if b & 0xC0 == 0x80 {
            continue;
        }
        chars += 1;
        if chars > 4 * MAX_NAME_LEN {
            break;
        }
        if b.is_ascii_alphanumeric() {
            if out.len() >= MAX_NAME_LEN {
                break;
            }
            // camelCase → camel_case, so tool and id names read like the rest.
            if b.is_ascii_uppercase() && prev_lower && out.last() != Some(&b'_') {
                out.push(b'_');
            }
            prev_lower = b.is_ascii_lowercase() || b.is_ascii_digit();
            out.push(b.to_ascii_lowercase());
        } else {
            prev_lower = false;
            if !out.is_empty() && out.last() != Some(&b'_') {
                out.push(b'_');
            }
        }
    }
    if out.len() > MAX_NAME_LEN {
        out.truncate(MAX_NAME_LEN);
    }
    while out.last() == Some(&b'_') {
        out.pop();
    }
    // Only ASCII was pushed.
    String::from_utf8(out).unwrap_or_default()
}

/// An action name from a control's label: its slug without number tokens, so "Cart (3)"
/// stays `cart` when the count changes. Labels that are only numbers keep them ("2").
pub fn name_slug(label: &str) -> String {
    let full = slug(label);
    let kept: Vec<&str> = full
        .split('_')
        .filter(|t| !t.is_empty() && !t.chars().all(|c| c.is_ascii_digit()))
        .collect();
    if kept.is_empty() {
        full
    } else {
        kept.join("_")
    }
}

/// The count a label shows: the first token that is only digits ("Inbox 2",
/// "Inbox (2)", "1,204 Sent"), or `None`. Paired with [`name_slug`], which drops the same
/// tokens from the name, so the key stays put while the number changes.
pub fn count_in(label: &str) -> Option<serde_json::Value> {
    // The number parser the probe already has: the wasm pays for one.
    for token in label.split_whitespace() {
        let t = token.trim_start_matches('(').trim_end_matches(')');
        if t.bytes().all(|b| b.is_ascii_digit() || b == b',') {
            if let Some(n) = parse_number(t) {
                return Some(n);
            }
        }
    }
    None
}

/// The name of the state a toggle control sets, from its label: "Star" and "Unstar"
/// both give `starred`, so the key stays the same when the page flips the label along
/// with the state. A label whose first word is not a known toggle verb is its
/// [`name_slug`] as is ("Bold" → `bold`).
pub fn state_name(label: &str) -> String {
    let name = name_slug(label);
    let (first, rest) = name.split_once('_').unwrap_or((&name, ""));
    let state = match toggle_state(first) {
        None => first.strip_prefix("un").and_then(toggle_state),
        found => found,
    };
    match state {
        Some(s) if rest.is_empty() => s.to_owned(),
        Some(s) => s.to_owned() + "_" + rest,
        None => name,
    }
}

/// Toggle verbs and the state each sets, `verb:state` pairs in one string: a `match` or
/// a table of string pairs costs the probe's wasm (which has a size budget) more.
const TOGGLE_VERBS: &str = "star:starred pin:pinned like:liked mute:muted follow:following \
    bookmark:bookmarked flag:flagged save:saved subscribe:subscribed watch:watching \
    favorite:favorited upvote:upvoted lock:locked select:selected check:checked";

/// The state a toggle verb sets (star → starred), also for the state itself.
fn toggle_state(word: &str) -> Option<&'static str> {
    for pair in TOGGLE_VERBS.split_whitespace() {
        let (verb, state) = pair.split_once(':')?;
        if verb == word || state == word {
            return Some(state);
        }
    }
    None
}

/// Whether `name` is already a clean identifier we can keep as the page wrote it.
pub fn is_identifier(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.')
}

/// Whitespace collapsed, control characters removed, at most `max_chars` characters
/// (an ellipsis marks a cut).
pub fn clip(text: &str, max_chars: usize) -> String {
    if is_clean(text, max_chars) {
        return text.to_owned();
    }
    clip_slow(text, max_chars)
}

fn clip_slow(text: &str, max_chars: usize) -> String {
    let mut out = String::new();
    let mut count = 0usize;
    let mut pending_space = false;
    // Bounded input scan: a huge text is never walked in full.
    for ch in text.chars().take(max_chars * 8 + 64) {
        if ch.is_whitespace() || ch.is_control() {
            pending_space = !out.is_empty();
            continue;
        }
        if pending_space {
            if count >= max_chars {
                out.push('…');
                return out;
            }
            out.push(' ');
            count += 1;
            pending_space = false;
        }
        if count >= max_chars {
            out.push('…');
            return out;
        }
        out.push(ch);
        count += 1;
    }
    out
}

/// Whether `clip` would return `text` unchanged, decided in one pass over the bytes: the
/// common case (short printable ASCII with single spaces) then costs one copy.
fn is_clean(text: &str, max_chars: usize) -> bool {
    let bytes = text.as_bytes();
    if bytes.len() > max_chars || bytes.first() == Some(&b' ') || bytes.last() == Some(&b' ') {
        return false;
    }
    let mut prev_space = false;
    for &b in bytes {
        let space = b == b' ';
        if !(space || (0x21..0x7f).contains(&b)) || (space && prev_space) {
            return false;
        }
        prev_space = space;
    }
    true
}

/// "email_id" → "Email id".
pub fn humanize(name: &str) -> String {
    let spaced = name.replace(['_', '-'], " ");
    let mut chars = spaced.trim().chars();
    match chars.next() {
        // Names are ASCII slugs; Unicode case tables would cost the wasm kilobytes.
        Some(first) => std::iter::once(first.to_ascii_uppercase())
            .chain(chars)
            .collect(),
        None => String::new(),
    }
}

/// Lowercase words of a label, for the classifier.
pub fn words(text: &str) -> Vec<String> {
    // ASCII word characters only: the lexicon is English, and Unicode letter tables
    // would cost the wasm kilobytes.
    text.split(|c: char| !c.is_ascii_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .take(24)
        // The lexicon is ASCII: ASCII lowercasing is enough and keeps Unicode case
        // tables out of the wasm.
        .map(|w| w.trim_matches('\'').to_ascii_lowercase())
        .collect()
}

/// A JSON value for display text: plain numbers become numbers (thousands separators
/// allowed), everything else a bounded string. `None` for empty text.
pub fn typed_value(text: &str) -> Option<serde_json::Value> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    if let Some(n) = parse_number(text) {
        return Some(n);
    }
    Some(serde_json::Value::String(clip(text, MAX_VALUE_LEN)))
}

/// "3", "-4.5", "1,234" → numbers; "3 unread", "$4", "1.2.3" → not.
pub fn parse_number(text: &str) -> Option<serde_json::Value> {
    // Most page text is words: out before any allocation.
    let starts_like_a_number = |t: &str| t.starts_with(|c: char| c.is_ascii_digit());
    if text.is_empty()
        || text.len() > 24
        || !starts_like_a_number(text.strip_prefix('-').unwrap_or(text))
    {
        return None;
    }
    let grouped = text.contains(',');
    let cleaned: String = if grouped {
        text.chars().filter(|c| *c != ',').collect()
    } else {
        text.to_owned()
    };
    if grouped {
        // Thousands separators only in groups of three before any decimal point.
        let int_part = text.trim_start_matches('-').split('.').next().unwrap_or("");
        let mut groups = int_part.split(',');
        let first = groups.next().unwrap_or("");
        if first.is_empty() || first.len() > 3 || groups.any(|g| g.len() != 3) {
            return None;
        }
    }
    let valid = cleaned
        .trim_start_matches('-')
        .chars()
        .all(|c| c.is_ascii_digit() || c == '.')
        && cleaned.chars().filter(|c| *c == '.').count() <= 1
        && cleaned
            .trim_start_matches('-')
            .starts_with(|c: char| c.is_ascii_digit());
    if !valid {
        return None;
    }
    if !cleaned.contains('.') {
        if let Ok(i) = cleaned.parse::<i64>() {
            return Some(serde_json::Value::from(i));
        }
    }
    // serde_json's own number parser, already in the wasm for the snapshot: core's
    // `str::parse::<f64>` would add ~25 KB of tables and code. JSON wants no leading
    // zeros and a digit after the point.
    let (sign, digits) = match cleaned.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", cleaned.as_str()),
    };
    let (int_part, frac) = digits.split_once('.').unwrap_or((digits, ""));
    if frac.is_empty() {
        return None;
    }
    let int_part = int_part.trim_start_matches('0');
    let int_part = if int_part.is_empty() { "0" } else { int_part };
    let f: f64 = serde_json::from_str(&format!("{sign}{int_part}.{frac}")).ok()?;
    serde_json::Number::from_f64(f).map(serde_json::Value::Number)
}

/// Typed value of a declared `name=value` pair: JSON literals and numbers keep their
/// type, anything else is a string.
pub fn declared_value(raw: &str) -> serde_json::Value {
    let raw = raw.trim();
    match raw {
        "true" => serde_json::Value::Bool(true),
        "false" => serde_json::Value::Bool(false),
        "null" => serde_json::Value::Null,
        _ => {
            parse_number(raw).unwrap_or_else(|| serde_json::Value::String(clip(raw, MAX_VALUE_LEN)))
        }
    }
}

/// Parses `a=1; b=two` into pairs (order kept, empty names dropped).
pub fn name_value_pairs(raw: &str) -> Vec<(String, String)> {
    raw.split(';')
        .filter_map(|pair| {
            let (name, value) = pair.split_once('=')?;
            let name = name.trim();
            if name.is_empty() {
                return None;
            }
            Some((name.to_owned(), value.trim().to_owned()))
        })
        .take(16)
        .collect()
}

/// The host of a URL, or "" for something that is not one.
pub fn host(url: &str) -> &str {
    url.split_once("://")
        .map(|(_, rest)| rest.split(['/', '?', '#']).next().unwrap_or(""))
        .unwrap_or("")
}

/// The view: path plus hash route, without the query.
pub fn view_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let path_start = rest.find('/').unwrap_or(rest.len());
    let path_and_more = &rest[path_start..];
    let (before_hash, hash) = path_and_more
        .split_once('#')
        .map_or((path_and_more, ""), |(a, b)| (a, b));
    let path = before_hash.split('?').next().unwrap_or("");
    let path = if path.is_empty() { "/" } else { path };
    if hash.is_empty() {
        path.to_owned()
    } else {
        format!("{path}#{hash}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn counts_come_from_digit_tokens_and_names_leave_them_out() {
        for (label, count, name) in [
            ("Inbox 2", Some(json!(2)), "inbox"),
            ("Inbox (13)", Some(json!(13)), "inbox"),
            ("1,204 Sent", Some(json!(1204)), "sent"),
            ("Drafts", None, "drafts"),
            ("Release 4.2", None, "release"),
        ] {
            assert_eq!(count_in(label), count, "{label}");
            assert_eq!(name_slug(label), name, "{label}");
        }
    }

    #[test]
    fn toggle_labels_name_the_state_they_set() {
        for (label, name) in [
            ("Star", "starred"),
            ("Unstar", "starred"),
            ("Starred", "starred"),
            ("Unmute notifications", "muted_notifications"),
            ("Follow", "following"),
            ("Bold", "bold"),
            ("Dark mode", "dark_mode"),
            ("Unknown", "unknown"),
        ] {
            assert_eq!(state_name(label), name, "{label}");
        }
    }

    #[test]
    fn slugs_are_bounded_identifiers() {
        assert_eq!(slug("Delete forever"), "delete_forever");
        assert_eq!(slug("  Move to Inbox!! "), "move_to_inbox");
        assert_eq!(slug("getOrderStatus"), "get_order_status");
        assert_eq!(slug("unread-count"), "unread_count");
        assert_eq!(slug("日本語"), "");
        assert!(slug(&"ab ".repeat(10_000)).len() <= MAX_NAME_LEN);
        assert_eq!(name_slug("Cart (3)"), "cart");
        assert_eq!(name_slug("Inbox 12 new"), "inbox_new");
        assert_eq!(name_slug("2"), "2");
    }

    #[test]
    fn clip_cleans_and_bounds() {
        assert_eq!(clip("  a \n\t b\u{0}c ", 10), "a b c");
        assert_eq!(clip("abcdef", 3), "abc…");
        let huge = "x".repeat(100_000);
        assert_eq!(clip(&huge, 5).chars().count(), 6);
    }

    // The character-by-character slug the byte version replaced, kept as its reference.
    fn slug_by_chars(text: &str) -> String {
        let mut out = String::new();
        let mut prev_lower = false;
        for ch in text.chars().take(4 * MAX_NAME_LEN) {
            if ch.is_ascii_alphanumeric() {
                if out.len() >= MAX_NAME_LEN {
                    break;
                }
                if ch.is_ascii_uppercase() && prev_lower && !out.ends_with('_') {
                    out.push('_');
                }
                prev_lower = ch.is_ascii_lowercase() || ch.is_ascii_digit();
                out.push(ch.to_ascii_lowercase());
            } else {
                prev_lower = false;
                if !out.is_empty() && !out.ends_with('_') {
                    out.push('_');
                }
            }
        }
        let trimmed = out.trim_end_matches('_');
        if trimmed.len() > MAX_NAME_LEN {
            trimmed[..MAX_NAME_LEN].trim_end_matches('_').to_owned()
        } else {
            trimmed.to_owned()
        }
    }

    const SAMPLES: &[&str] = &[
        "",
        " ",
        "Send email",
        "sendEmail",
        "  Archive   all\tread ",
        "Größe ändern",
        "日本語のラベル",
        "Cart (3)",
        "a_b-c.d",
        "__x__",
        "ALLCAPS Word",
        "x\u{0}y\u{7f}z",
        "trailing ",
        "é",
        "a\u{200b}b",
    ];

    #[test]
    fn byte_slug_matches_the_char_slug() {
        let long = "Word ".repeat(60);
        let long_mb = "ü".repeat(300) + "tail";
        let long_id = "a".repeat(47) + "_bc";
        for text in
            SAMPLES
                .iter()
                .copied()
                .chain([long.as_str(), long_mb.as_str(), long_id.as_str()])
        {
            assert_eq!(slug(text), slug_by_chars(text), "{text:?}");
        }
    }

    #[test]
    fn clip_fast_path_matches_the_slow_path() {
        let long = "Word ".repeat(60);
        for text in SAMPLES
            .iter()
            .copied()
            .chain([long.as_str(), "exactly10!", "a  b"])
        {
            for max in [1, 5, 10, 80, 160] {
                assert_eq!(clip(text, max), clip_slow(text, max), "{text:?} {max}");
            }
        }
    }

    #[test]
    fn numbers_are_recognised_strictly() {
        assert_eq!(parse_number("3"), Some(json!(3)));
        assert_eq!(parse_number("1,234"), Some(json!(1234)));
        assert_eq!(parse_number("-2.5"), Some(json!(-2.5)));
        assert_eq!(parse_number("1,234.50"), Some(json!(1234.5)));
        assert_eq!(parse_number("007.25"), Some(json!(7.25)));
        assert_eq!(parse_number("-0.1"), Some(json!(-0.1)));
        // Correctly rounded, as core's parser would have it.
        for text in [
            "0.1",
            "19.99",
            "123456.789",
            "3.141592653589793",
            "0.000001",
        ] {
            let want: f64 = text.parse().unwrap();
            assert_eq!(
                parse_number(text).and_then(|v| v.as_f64()),
                Some(want),
                "{text}"
            );
        }
        for not in [
            "3 unread", "$4", "1.2.3", "12,34", "", "-", ".5", "1e9", "1.", "-.",
        ] {
            assert_eq!(parse_number(not), None, "{not}");
        }
    }

    #[test]
    fn declared_pairs() {
        assert_eq!(
            name_value_pairs("email_id=e1; is_read = false;; =x"),
            [
                ("email_id".to_owned(), "e1".to_owned()),
                ("is_read".to_owned(), "false".to_owned())
            ]
        );
        assert_eq!(declared_value("false"), json!(false));
        assert_eq!(declared_value("e1"), json!("e1"));
        assert_eq!(declared_value("42"), json!(42));
    }

    #[test]
    fn views() {
        assert_eq!(view_of("http://a:1/mail?x=1#inbox"), "/mail#inbox");
        assert_eq!(view_of("http://a:1"), "/");
        assert_eq!(host("https://a.example:8/x"), "a.example:8");
    }
}

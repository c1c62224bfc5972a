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
    let mut out = String::new();
    let mut prev_lower = false;
    for ch in text.chars().take(4 * MAX_NAME_LEN) {
        if ch.is_ascii_alphanumeric() {
            if out.len() >= MAX_NAME_LEN {
                break;
            }
            // camelCase → camel_case, so tool and id names read like the rest.
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
    if text.is_empty() || text.len() > 24 {
        return None;
    }
    let grouped = text.contains(',');
    let cleaned: String = text.chars().filter(|c| *c != ',').collect();
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
    let f: f64 = cleaned.parse().ok()?;
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

    #[test]
    fn numbers_are_recognised_strictly() {
        assert_eq!(parse_number("3"), Some(json!(3)));
        assert_eq!(parse_number("1,234"), Some(json!(1234)));
        assert_eq!(parse_number("-2.5"), Some(json!(-2.5)));
        for not in ["3 unread", "$4", "1.2.3", "12,34", "", "-", ".5", "1e9"] {
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

//! The deny list, checked on the raw text of an expression (strings included) before it
//! is tokenized, and used again to keep denied words out of the echo of a bad key. It
//! depends on nothing else of the crate, so the parser and the tree can both use it.

/// Tokens refused wherever they appear. The grammar already has no way to call
/// anything; this list is a second wall, and a clear message for the obvious attempts.
const FORBIDDEN_ANYWHERE: [&str; 2] = ["XMLHttpRequest", "document.cookie"];
/// Names refused when a `(` follows, with or without whitespace between.
const FORBIDDEN_CALLS: [(&str, &str); 3] = [
    ("fetch", "fetch("),
    ("eval", "eval("),
    ("import", "import("),
];

/// The forbidden token that starts at byte `i` of `s`, if one does.
pub(crate) fn forbidden_at(s: &str, i: usize) -> Option<&'static str> {
    let rest = s.as_bytes().get(i..)?;
    match rest.first()? {
        b'X' | b'd' => FORBIDDEN_ANYWHERE
            .into_iter()
            .find(|token| rest.starts_with(token.as_bytes())),
        // `i` starts an ASCII letter, so `i + name.len()` is a char boundary.
        b'f' | b'e' | b'i' => FORBIDDEN_CALLS
            .into_iter()
            .find(|(name, _)| {
                rest.starts_with(name.as_bytes())
                    && s[i + name.len()..].trim_start().starts_with('(')
            })
            .map(|(_, token)| token),
        _ => None,
    }
}

/// The first forbidden token in `s`, if any: one pass over the bytes.
pub(crate) fn find_forbidden(s: &str) -> Option<(usize, &'static str)> {
    s.bytes().enumerate().find_map(|(i, b)| match b {
        b'X' | b'd' | b'f' | b'e' | b'i' => forbidden_at(s, i).map(|token| (i, token)),
        _ => None,
    })
}

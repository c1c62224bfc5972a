//! State keys a page may not take: names the product itself gives meaning to. A page
//! chooses most of its `objects` keys (a `data-nsp-key`, an id, a label), and a key
//! named `confidence`, `context.url` or `gate.approved` would read, to an agent or in a
//! verify expression, like the state's own confidence, the tab's URL or a word from the
//! gate. The probe renames such keys under [`PAGE_PREFIX`] (`page.confidence`), and
//! nspd can apply the same rule to anything else a page names: this is the one list.

use std::borrow::Cow;

/// First segments (ASCII case ignored) a page's key may not start with:
///
/// - `confidence`, `context`: fields of the state itself, which the verify language
///   reads as `confidence` and `context.url`, `context.view`… (`nsp_verify`'s paths);
///   the rest of `context.*` would resolve to objects, indistinguishable from them;
/// - `prev`: the verify language's previous state (`prev.inbox.count`);
/// - `nsp`, `gate`: the product's own namespaces, for anything nspd may add.
pub const RESERVED_HEADS: &[&str] = &["confidence", "context", "prev", "nsp", "gate"];

/// Where a page's key that would shadow a reserved name goes: `page.<key>`.
pub const PAGE_PREFIX: &str = "page";

/// Whether `key`'s first segment (up to the first `.` or `[`) is reserved.
pub fn is_reserved(key: &str) -> bool {
    let head = key.split(['.', '[']).next().unwrap_or("").trim();
    RESERVED_HEADS.iter().any(|r| r.eq_ignore_ascii_case(head))
}

/// `key` as a page may have it: unchanged, or under [`PAGE_PREFIX`] when its first
/// segment is reserved.
pub fn page_key(key: &str) -> Cow<'_, str> {
    if is_reserved(key) {
        Cow::Owned(format!("{PAGE_PREFIX}.{key}"))
    } else {
        Cow::Borrowed(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_that_shadow_the_products_names_move_under_page() {
        for (key, want) in [
            ("confidence", "page.confidence"),
            ("Confidence", "page.Confidence"),
            ("context.url", "page.context.url"),
            ("context", "page.context"),
            ("context[0].x", "page.context[0].x"),
            ("gate.approved", "page.gate.approved"),
            ("prev.inbox.count", "page.prev.inbox.count"),
            ("nsp.verdict", "page.nsp.verdict"),
            // Not reserved: a longer first segment, or a reserved word further in.
            ("confidence_score", "confidence_score"),
            ("contextual.help", "contextual.help"),
            ("inbox.context", "inbox.context"),
            ("page.confidence", "page.confidence"),
            ("gates.count", "gates.count"),
        ] {
            assert_eq!(page_key(key), want, "{key}");
        }
        // A renamed key is not reserved again.
        assert!(!is_reserved(&page_key("confidence")));
    }
}

//! Which fields and parameters hold secrets (passwords, one-time codes, payment
//! details): the one Rust copy of the rule. The probe (`page::is_secret`) keeps such
//! values out of the state, and nspd's audit log redacts parameters so named
//! (`audit::redact`, which adds a few words of its own). The extension's extractor
//! (`extension/extract.js`, `isSecret`) applies the same rule in JavaScript before a
//! value leaves the page; `probe-wasm/src/page.rs` has a test that runs both on the
//! same fields.

/// `autocomplete` tokens of secret fields. A token counts where it stands as a whole
/// word (ASCII letters, digits and `_` on neither side), so `cc-exp-month` is one too.
pub const SECRET_AUTOCOMPLETE: &[&str] = &[
    "cc-number",
    "cc-csc",
    "cc-exp",
    "current-password",
    "new-password",
    "one-time-code",
];

/// Parts of a field's `name` or `id` that mark a credential or payment field even
/// without autocomplete hints (ASCII case ignored). A card holder's name is caught too:
/// stricter is the safe side.
pub const SECRET_NAME_PARTS: &[&str] = &[
    "password",
    "passwd",
    "cvv",
    "cvc",
    "csc",
    "card",
    "ccnum",
    "cc-num",
    "securitycode",
    "security-code",
    "security_code",
    "security code",
    "one-time",
    "otp",
    "ssn",
];

/// Whole names (ASCII case ignored) that mark a secret field; as parts they would
/// catch too much (`passenger`, `shipping`).
pub const SECRET_NAMES: &[&str] = &["pass", "pin"];

/// What a secret field holds, as a name for its key and parameter when the page gave
/// it no `name` or `id` (`password`, `card_number`, `one_time_code`…), from its type,
/// `autocomplete` and `name`/`id` alone. Never from its label or value attributes
/// (`aria-label`, `title`, `placeholder`, `<label>`, `value`): a page that mirrors what
/// is typed into one of those would otherwise put the secret into a key.
pub fn secret_kind(input_type: &str, autocomplete: &str, name: &str) -> &'static str {
    let ac = autocomplete.to_ascii_lowercase();
    let name = name.to_ascii_lowercase();
    let named = |parts: &[&str]| {
        parts
            .iter()
            .any(|p| find(name.as_bytes(), p.as_bytes(), 0).is_some())
    };
    if contains_word(&ac, "new-password") {
        "new_password"
    } else if input_type.eq_ignore_ascii_case("password") || contains_word(&ac, "current-password")
    {
        "password"
    } else if contains_word(&ac, "one-time-code") || named(&["one-time", "otp"]) {
        "one_time_code"
    } else if contains_word(&ac, "cc-csc") || named(&["cvv", "cvc", "csc", "security"]) {
        "card_security_code"
    } else if contains_word(&ac, "cc-exp") {
        "card_expiry"
    } else if contains_word(&ac, "cc-number") || named(&["card", "ccnum", "cc-num"]) {
        "card_number"
    } else if named(&["pass"]) {
        "password"
    } else if named(&["ssn"]) {
        "ssn"
    } else if name == "pin" {
        "pin"
    } else {
        "secret"
    }
}

/// Input types that hold nothing a person types: a box, a button, a slider, a colour, a
/// file chosen. Such an input is never a secret field, whatever it is called (a
/// "passwd_role" checkbox that lets a user change passwords): its state is a choice on
/// the page, not text. A password field whose type a page switches to one of these
/// stays secret (the extractor remembers it).
pub const UNTYPED_INPUTS: &[&str] = &[
    "checkbox", "radio", "submit", "button", "reset", "image", "range", "color", "file",
];

/// Whether a field's `name` or `id` marks it as secret.
pub fn is_secret_name(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    SECRET_NAME_PARTS
        .iter()
        .any(|p| find(name.as_bytes(), p.as_bytes(), 0).is_some())
        || SECRET_NAMES.contains(&name.as_str())
}

/// Whether an `autocomplete` attribute's value names a secret field.
pub fn is_secret_autocomplete(value: &str) -> bool {
    let value = value.to_ascii_lowercase();
    SECRET_AUTOCOMPLETE
        .iter()
        .any(|token| contains_word(&value, token))
}

/// Whether `word` occurs in `text` with no ASCII word character (letter, digit, `_`)
/// right before or after it.
fn contains_word(text: &str, word: &str) -> bool {
    let is_word = |b: Option<&u8>| b.is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_');
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(at) = find(bytes, word.as_bytes(), from) {
        if !is_word(at.checked_sub(1).and_then(|i| bytes.get(i)))
            && !is_word(bytes.get(at + word.len()))
        {
            return true;
        }
        from = at + 1;
    }
    false
}

/// The first place at or after `from` where `needle` occurs in `hay`. A plain window
/// scan: the names and attribute values it reads are short, and `str::contains` would
/// bring core's two-way searcher into the probe's size-budgeted wasm.
fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    if needle.is_empty() {
        return Some(from.min(hay.len()));
    }
    hay.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|i| i + from)
}

/// 13–19 digits (spaces and dashes allowed) passing the Luhn check: a card number,
/// whatever the field is called.
pub fn looks_like_card_number(value: &str) -> bool {
    if value.len() < 13
        || value.len() > 25
        || !value
            .chars()
            .all(|c| c.is_ascii_digit() || c == ' ' || c == '-')
    {
        return false;
    }
    let digits: Vec<u32> = value.chars().filter_map(|c| c.to_digit(10)).collect();
    if digits.len() < 13 || digits.len() > 19 {
        return false;
    }
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, d)| match (i % 2 == 1, d * 2) {
            (true, x) if x > 9 => x - 9,
            (true, x) => x,
            (false, _) => *d,
        })
        .sum();
    sum % 10 == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_autocomplete_and_card_numbers() {
        for name in [
            "Password",
            "user_passwd",
            "cvv2",
            "card_holder",
            "SSN",
            "pin",
            "PASS",
            "security code",
            "otp",
        ] {
            assert!(is_secret_name(name), "{name}");
        }
        for name in ["email", "passenger", "shipping", "pinned", "subject", ""] {
            assert!(!is_secret_name(name), "{name}");
        }
        for ac in [
            "cc-number",
            "section-pay cc-exp-month",
            "NEW-PASSWORD",
            "one-time-code",
        ] {
            assert!(is_secret_autocomplete(ac), "{ac}");
        }
        for ac in ["email", "username", "cc-name", "xcc-number", "cc-number_x"] {
            assert!(!is_secret_autocomplete(ac), "{ac}");
        }
        for ((ty, ac, name), want) in [
            (("password", "", ""), "password"),
            (("text", "current-password", ""), "password"),
            (("password", "new-password", "x"), "new_password"),
            (("text", "one-time-code", ""), "one_time_code"),
            (("text", "", "otp"), "one_time_code"),
            (("text", "cc-csc", ""), "card_security_code"),
            (("text", "", "cvv2"), "card_security_code"),
            (("text", "section-pay cc-exp-month", ""), "card_expiry"),
            (("text", "cc-number", ""), "card_number"),
            (("text", "", "card_holder"), "card_number"),
            (("text", "", "user_passwd"), "password"),
            (("text", "", "SSN"), "ssn"),
            (("text", "", "pin"), "pin"),
            (("text", "", ""), "secret"),
        ] {
            assert_eq!(secret_kind(ty, ac, name), want, "{ty} {ac} {name}");
        }
        assert!(looks_like_card_number("4111 1111 1111 1111"));
        assert!(!looks_like_card_number("4111 1111 1111 1112"));
        assert!(!looks_like_card_number("12345"));
    }
}

//! Turning page text into names, descriptions and values. Page text is data written by
//! whoever controls the page: everything that leaves the probe is cleaned of control
//! characters and bounded here, so a 100 KB label cannot inflate a state.

/// Longest action name or key segment the probe makes from page text.
pub const MAX_NAME_LEN: usize = 48;
/// Longest description built from page text.
pub const MAX_DESCRIPTION_LEN: usize = 160;
/// Longest string value put into `objects`.
pub const MAX_VALUE_LEN: usize = 200;
/// Longest value of a text area or an editable region put into `objects`, its lines
/// kept ([`clip_lines`]): an agent that edits such a text writes all of it back.
pub const MAX_FIELD_TEXT_LEN: usize = 2000;

/// `base` when `taken` says it is free, else `base_2`, `base_3`… from where the last
/// numbering of `base` stopped (`next`): every number below that is taken, since names
/// are never given back, so thousands of one name cost no n².
pub fn number_on(
    base: String,
    next: &mut crate::HashMap<String, usize>,
    taken: &dyn Fn(&str) -> bool,
) -> String {
    if !taken(&base) {
        return base;
    }
    // A new count starts at 2: `base` itself is the first.
    let n = crate::slot(next, base.clone());
    *n = (*n).max(2);
    loop {
        let name = format!("{base}_{n}");
        *n += 1;
        if !taken(&name) {
            return name;
        }
    }
}

/// `texts` sorted, each once: what a `BTreeSet<&str>` of them would hold, in its order.
/// Sorted as `(text, 0)` pairs, the type the lexicon sorts: the wasm holds a sort's code
/// once per element type, and a `BTreeSet<&str>` brought a stable sort of its own and the
/// tree's bulk build (3.5 KB of the wasm gzipped).
pub fn sorted_distinct<'a>(texts: &[&'a str]) -> Vec<&'a str> {
    let mut pairs: Vec<(&str, usize)> = texts.iter().map(|t| (*t, 0)).collect();
    pairs.sort_unstable();
    pairs.dedup();
    pairs.into_iter().map(|(t, _)| t).collect()
}

/// `v` sorted, through the `(text, index)` pairs [`sorted_distinct`] and the lexicon
/// sort: a sort of indices of its own was 1 KB more of the wasm gzipped.
pub fn sort_indices(v: &mut [usize]) {
    if v.len() < 2 {
        return;
    }
    let mut pairs: Vec<(&str, usize)> = v.iter().map(|&i| ("", i)).collect();
    pairs.sort_unstable();
    for (slot, (_, i)) in v.iter_mut().zip(pairs) {
        *slot = i;
    }
}

/// snake_case ASCII slug of page text, bounded. Letters outside ASCII are dropped, so
/// the result may be empty; callers fall back to another source of names.
pub fn slug(text: &str) -> String {
    // Byte by byte: the output is ASCII, and a non-ASCII character is one separator
    // (its continuation bytes are skipped). One allocation; this runs for every cell.
    let mut out: Vec<u8> = Vec::with_capacity(text.len().min(MAX_NAME_LEN + 1));
    let mut prev_lower = false;
    let mut chars = 0usize;
    let bytes = text.as_bytes();
    let mut skip = 0usize;
    for (at, &b) in bytes.iter().enumerate() {
        if skip > 0 {
            skip -= 1;
            continue;
        }
        if b & 0xC0 == 0x80 {
            continue;
        }
        if b == b'#' {
            // A colour value (`#1f272d`) names nothing: left out, even glued to a word.
            skip = colour_len(&bytes[at + 1..]);
        }
        chars += 1;
        if chars > 4 * MAX_NAME_LEN {
            break;
        }
        if b.is_ascii_alphanumeric() {
            if out.len() >= MAX_NAME_LEN {
                // Cut inside a word: the name ends at the word before it (unless that
                // leaves less than half the length: one long word is cut where it is).
                let new_word = out.last() == Some(&b'_') || (b.is_ascii_uppercase() && prev_lower);
                if !new_word {
                    if let Some(at) = out.iter().rposition(|c| *c == b'_') {
                        if at >= MAX_NAME_LEN / 2 {
                            out.truncate(at);
                        }
                    }
                }
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

/// The length of a hex colour at the start of `rest` (what follows a `#`): 3, 4, 6 or 8
/// hex digits with at least one letter among them (`#123` is a number), ending the
/// text or followed by something else than a hex digit; 0 when there is none. A run of
/// more than 8 hex digits is an id, not a colour.
fn colour_len(rest: &[u8]) -> usize {
    let run = rest.iter().take_while(|b| b.is_ascii_hexdigit()).count();
    let len = match run {
        3 | 4 | 6 | 8 => run,
        // Glued to a word that starts with a hex letter (`#1f272dbeige`): the colour's
        // usual six.
        7 | 9..
            if rest[6..]
                .iter()
                .take_while(|b| b.is_ascii_hexdigit())
                .count()
                < 3 =>
        {
            6
        }
        _ => 0,
    };
    if len > 0 && rest[..len].iter().any(|b| b.is_ascii_alphabetic()) {
        len
    } else {
        0
    }
}

/// Whether a class or attribute value was made by a tool rather than written as a
/// name: it holds a digit (`css-1o4wo1x`, `jsx-123`, `col-md-6`), or a part of it
/// switches from lower to upper case twice (`sc-bdVaJa`). Such values change from build
/// to build and say nothing of what they mark, so no key or name is built from them.
pub fn generated_name(value: &str) -> bool {
    if value.bytes().any(|b| b.is_ascii_digit()) {
        return true;
    }
    value.split(['-', '_']).any(|part| {
        let b = part.as_bytes();
        b.windows(2)
            .filter(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
            .count()
            >= 2
    })
}

/// Whether a text is a tally ("0 of 3 selected", "2 of 10"): a count the page keeps
/// up to date, which names nothing.
pub fn tally(text: &str) -> bool {
    let w = words(text);
    let number = |x: &String| !x.is_empty() && x.bytes().all(|b| b.is_ascii_digit());
    w.len() >= 3 && w.len() <= 5 && number(&w[0]) && w[1] == "of" && number(&w[2])
}

/// Whether a label is a live value rather than a name: a relative or clock time ("15
/// seconds ago", "in 3 hours", "just now", "14:05", "2d") or a date ("2024-03-01", "Mar
/// 5"). It changes by itself from capture to capture, so it names no action.
pub fn live_text(label: &str) -> bool {
    // Word lists as slices: a capture asks this for every row control's label, and a
    // substring search per word (with a formatted needle) was a tenth of the analysis.
    const UNITS: &[&str] = &[
        "s", "sec", "secs", "second", "seconds", "m", "min", "mins", "minute", "minutes", "h",
        "hr", "hrs", "hour", "hours", "d", "day", "days", "w", "wk", "wks", "week", "weeks", "mo",
        "month", "months", "y", "yr", "yrs", "year", "years",
    ];
    const MONTHS: &[&str] = &[
        "jan",
        "feb",
        "mar",
        "apr",
        "may",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
        "january",
        "february",
        "march",
        "april",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    const FILLER: &[&str] = &[
        "ago",
        "in",
        "about",
        "over",
        "almost",
        "a",
        "an",
        "few",
        "just",
        "now",
        "at",
        "yesterday",
        "today",
        "am",
        "pm",
        "on",
        "updated",
        "edited",
        "created",
        "posted",
    ];
    let w = words(label);
    if w.is_empty() || w.len() > 6 {
        return false;
    }
    let unit = |x: &str| UNITS.contains(&x);
    let month = |x: &str| MONTHS.contains(&x);
    let number = |x: &str| x.bytes().all(|b| b.is_ascii_digit());
    // "15s", "3h", "2d": a number glued to a unit.
    let glued = |x: &str| {
        let digits = x.bytes().take_while(u8::is_ascii_digit).count();
        digits > 0 && digits < x.len() && unit(&x[digits..])
    };
    // Every word is a time word (checked first: most labels fail on their first word).
    let all_time = w
        .iter()
        .all(|x| number(x) || unit(x) || month(x) || glued(x) || FILLER.contains(&x.as_str()));
    if !all_time {
        return false;
    }
    let clock = label
        .as_bytes()
        .windows(3)
        .any(|t| t[0].is_ascii_digit() && t[1] == b':' && t[2].is_ascii_digit());
    // One of them says the value moves.
    clock
        || w.iter().any(|x| {
            matches!(x.as_str(), "ago" | "now" | "yesterday")
                || glued(x)
                || (number(x) && w.iter().any(|y| unit(y) || month(y)))
                || (number(x) && x.len() == 4 && w.len() >= 3)
        })
}

/// An action name from a control's label: its slug without number tokens, so "Cart (3)"
/// stays `cart` when the count changes, and without a keyboard shortcut it shows
/// ([`without_shortcut`]). Labels that are only numbers keep them ("2").
pub fn name_slug(label: &str) -> String {
    let full = slug(without_shortcut(label));
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

/// `label` without the keyboard shortcut a tooltip adds at its end, in brackets: "Bold
/// (Ctrl+B)", "Insert picture - [ctrl-shift-I]", "Send (⌘Enter)". What the control does
/// is the rest, which names its action and its description; the label itself stays
/// whole wherever it is compared with the page. A bracket that is no key combination
/// ("Save (draft)", "Delete (3)") stays.
pub fn without_shortcut(label: &str) -> &str {
    let t = label.trim_end();
    let open = match t.as_bytes().last() {
        Some(b')') => '(',
        Some(b']') => '[',
        _ => return label,
    };
    let Some(at) = t.rfind(open) else {
        return label;
    };
    if !is_key_combination(&t[at + 1..t.len() - 1]) {
        return label;
    }
    let rest = t[..at]
        .trim_end()
        .trim_end_matches(['-', '\u{2013}', '\u{2014}', ':', '\u{b7}'])
        .trim_end();
    if rest.is_empty() {
        label
    } else {
        rest
    }
}

/// "Ctrl+B", "ctrl-shift-I", "Alt P", "⌘⇧K", "Cmd+Enter": modifiers, then one key.
fn is_key_combination(s: &str) -> bool {
    const SYMBOLS: [char; 4] = ['\u{2318}', '\u{21e7}', '\u{2325}', '\u{2303}'];
    let mut modifiers = 0;
    let mut key = None;
    for token in s.split(['-', '+', ' ']).filter(|t| !t.is_empty()) {
        if key.is_some() {
            return false;
        }
        let bare = token.trim_start_matches(SYMBOLS);
        modifiers += token[..token.len() - bare.len()].chars().count();
        if bare.is_empty() {
            continue;
        }
        let lower = bare.to_ascii_lowercase();
        if matches!(
            lower.as_str(),
            "ctrl"
                | "control"
                | "alt"
                | "option"
                | "opt"
                | "shift"
                | "cmd"
                | "command"
                | "meta"
                | "super"
                | "win"
                | "mod"
        ) {
            modifiers += 1;
        } else if bare.chars().count() == 1
            || matches!(
                lower.as_str(),
                "enter"
                    | "return"
                    | "esc"
                    | "escape"
                    | "tab"
                    | "space"
                    | "del"
                    | "delete"
                    | "backspace"
                    | "up"
                    | "down"
                    | "left"
                    | "right"
                    | "home"
                    | "end"
                    | "pageup"
                    | "pagedown"
                    | "insert"
                    | "ins"
            )
            || (lower.len() <= 3
                && lower.starts_with('f')
                && lower[1..].bytes().all(|b| b.is_ascii_digit())
                && lower.len() > 1)
        {
            key = Some(lower);
        } else {
            return false;
        }
    }
    modifiers > 0 && key.is_some()
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

/// A text a person edits as lines (a text area's, an editable region's), kept as it is
/// but for its line breaks written `\n` and other control characters left out, cut
/// after `max_chars` characters with `…`.
pub fn clip_lines(text: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max_chars * 4));
    let mut count = 0usize;
    let mut chars = text.chars().peekable();
    while let Some(ch) = chars.next() {
        let ch = match ch {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                '\n'
            }
            '\n' | '\t' => ch,
            c if c.is_control() => continue,
            c => c,
        };
        if !push_within(&mut out, &mut count, max_chars, ch) {
            return out;
        }
    }
    out
}

/// Appends `ch` to `out`, which holds `count` characters, unless `max_chars` are there
/// already: then it ends `out` with `…` and says so (false).
fn push_within(out: &mut String, count: &mut usize, max_chars: usize, ch: char) -> bool {
    if *count >= max_chars {
        out.push('…');
        return false;
    }
    out.push(ch);
    *count += 1;
    true
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
            if !push_within(&mut out, &mut count, max_chars, ' ') {
                return out;
            }
            pending_space = false;
        }
        if !push_within(&mut out, &mut count, max_chars, ch) {
            return out;
        }
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
    // Char by char, not `replace(['_', '-'], …)`: one pattern type of `replace` in the
    // wasm, not two.
    let spaced: String = name
        .chars()
        .map(|c| if c == '_' || c == '-' { ' ' } else { c })
        .collect();
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
    // A loop, not an iterator chain: each chain is code of its own in the wasm.
    let mut out = Vec::new();
    for w in text.split(|c: char| !c.is_ascii_alphanumeric() && c != '\'') {
        if out.len() == 24 {
            break;
        }
        if !w.is_empty() {
            // The lexicon is ASCII: ASCII lowercasing is enough and keeps Unicode case
            // tables out of the wasm.
            out.push(w.trim_matches('\'').to_ascii_lowercase());
        }
    }
    out
}

/// A JSON value for display text: plain numbers become numbers (thousands separators
/// allowed), everything else a bounded string. `None` for empty text.
pub fn typed_value(text: &str) -> Option<serde_json::Value> {
    let text = text.trim();
    if text.is_empty() || is_code(text) {
        return None;
    }
    if let Some(n) = parse_number(text) {
        return Some(n);
    }
    Some(serde_json::Value::String(clip(text, MAX_VALUE_LEN)))
}

/// Whether display text is style rules or script (`.pane { display: flex; }`, a
/// `<div>` a page keeps its CSS in): a block in braces holding a `;`, or a `:` after
/// something that reads as a selector (`.a{color:red}`). Prose seldom has braces, and a
/// JSON value (`{"a": 1}`) has no selector before them; style and script are no value
/// for an agent, and no key is made of them.
pub fn is_code(text: &str) -> bool {
    let Some(open) = text.find('{') else {
        return false;
    };
    let Some(close) = text[open..].find('}') else {
        return false;
    };
    let inside = &text[open..open + close];
    if inside.contains(';') {
        return true;
    }
    // The rule's prelude: what follows the previous block (`.pane`, `@media (…)`).
    let before = text[..open].rsplit('}').next().unwrap_or("").trim();
    let selector = before.starts_with(|c: char| {
        c.is_ascii_alphabetic() || matches!(c, '.' | '#' | '@' | '*' | '[' | ':')
    }) && before
        .ends_with(|c: char| c.is_ascii_alphanumeric() || matches!(c, ']' | ')' | '*'));
    selector && inside.contains(':')
}

/// "3", "-4.5", "1,234" → numbers; "3 unread", "$4", "1.2.3" → not.
pub fn parse_number(text: &str) -> Option<serde_json::Value> {
    // A sign a balance or a difference shows ("+70.00" beside "-27.25") is the number's.
    let text = match text.strip_prefix('+') {
        Some(rest) if !rest.starts_with(['+', '-']) => rest,
        _ => text,
    };
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
    fn tallies_are_counts_not_names() {
        for t in ["0 of 3 selected", "2 of 10", "1 of 12 items selected"] {
            assert!(tally(t), "{t}");
        }
        for t in [
            "Page of 3",
            "Select all 3",
            "1 of a kind",
            "2 of 10 more words here today",
        ] {
            assert!(!tally(t), "{t}");
        }
    }

    /// A keyboard shortcut a tooltip appends names nothing and is no part of what the
    /// control does; other brackets stay.
    #[test]
    fn a_labels_keyboard_shortcut_is_no_part_of_its_name() {
        for (label, name) in [
            ("Bold (Ctrl+B)", "bold"),
            (
                "Apply bold formatting to selection - [ctrl-B]",
                "apply_bold_formatting_to_selection",
            ),
            ("Insert picture - [ctrl-shift-I]", "insert_picture"),
            ("Send (\u{2318}Enter)", "send"),
            ("Search (\u{2318}\u{21e7} F)", "search"),
            ("Refresh (Alt F5)", "refresh"),
            ("Save (draft)", "save_draft"),
            ("Delete (D)", "delete_d"),
            ("Undo (Ctrl-Z then Y)", "undo_ctrl_z_then_y"),
            ("(Ctrl+B)", "ctrl_b"),
        ] {
            assert_eq!(name_slug(label), name, "{label}");
        }
        assert_eq!(without_shortcut("Bold (Ctrl+B)"), "Bold");
        assert_eq!(without_shortcut("Save (draft)"), "Save (draft)");
    }

    /// A name too long for [`MAX_NAME_LEN`] ends with a whole word; one word longer than
    /// half of it is cut where it must be.
    #[test]
    fn long_names_end_with_a_whole_word() {
        let name = slug("Apply bulleted list formatting to lines containing selection");
        assert_eq!(name, "apply_bulleted_list_formatting_to_lines");
        let name = slug("applyBulletedListFormattingToLinesContainingSelection");
        assert_eq!(name, "apply_bulleted_list_formatting_to_lines");
        let word = "x".repeat(100);
        assert_eq!(slug(&format!("ab {word}")).len(), MAX_NAME_LEN);
        // Exactly at a word's end: nothing more is cut.
        let exact = format!("{} tail", "a".repeat(MAX_NAME_LEN));
        assert_eq!(slug(&exact), "a".repeat(MAX_NAME_LEN));
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
    fn style_and_script_are_code_and_data_is_not() {
        for code in [
            ".pane { display: flex; }",
            ".a{color:red}",
            "@media (max-width: 600px) { .x { top: 0 } }",
            "function f() { return 1; }",
        ] {
            assert!(is_code(code), "{code}");
        }
        for data in [
            "{\"status\": \"ok\"}",
            "Saved {just now}",
            "Use {name} for the user's name",
            "Ratio 3:1",
        ] {
            assert!(!is_code(data), "{data}");
        }
    }

    #[test]
    fn colours_never_name_anything() {
        assert_eq!(slug("#1f272dsaffron otter"), "saffron_otter");
        assert_eq!(slug("Accent #fff"), "accent");
        assert_eq!(slug("#1F272D"), "");
        // Numbers after a hash are numbers: an issue stays named.
        assert_eq!(slug("Issue #123"), "issue_123");
        assert_eq!(slug("#1234567890ab"), "1234567890ab");
    }

    #[test]
    fn generated_classes_are_not_names() {
        for generated in ["css-1o4wo1x", "sc-bdVaJa", "jsx-123", "col-md-6", "kVbLuW"] {
            assert!(generated_name(generated), "{generated}");
        }
        for word in [
            "subject",
            "ticket-title",
            "row_select",
            "userName",
            "status",
        ] {
            assert!(!generated_name(word), "{word}");
        }
    }

    #[test]
    fn live_values_are_not_names() {
        for live in [
            "15 seconds ago",
            "a minute ago",
            "in 3 hours",
            "just now",
            "2d",
            "14:05",
            "Yesterday at 9:30 PM",
            "2024-03-01",
            "Mar 5",
            "Updated 3 hours ago",
        ] {
            assert!(live_text(live), "{live}");
        }
        for name in [
            "Archive",
            "Today",
            "Last 7 days",
            "2",
            "Page 3",
            "Move to Inbox",
            "Schedule send",
        ] {
            assert!(!live_text(name), "{name}");
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
    fn clip_lines_keeps_lines_and_indentation_and_marks_a_cut() {
        assert_eq!(
            clip_lines("a\r\n  b\rc\u{0}\td\n\n", 100),
            "a\n  b\nc\td\n\n"
        );
        assert_eq!(clip_lines("abcdef", 3), "abc…");
        assert_eq!(clip_lines("abc", 3), "abc");
        assert_eq!(clip_lines("", 3), "");
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
                    let new_word = out.ends_with('_') || (ch.is_ascii_uppercase() && prev_lower);
                    match out.rfind('_') {
                        Some(at) if !new_word && at >= MAX_NAME_LEN / 2 => out.truncate(at),
                        _ => {}
                    }
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
        let long_camel = "applyBulletedListFormattingToLinesContainingSelection";
        for text in SAMPLES.iter().copied().chain([
            long.as_str(),
            long_mb.as_str(),
            long_id.as_str(),
            long_camel,
        ]) {
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
        assert_eq!(parse_number("+70.00"), Some(json!(70.0)));
        assert_eq!(parse_number("+3"), Some(json!(3)));
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
            "3 unread", "$4", "1.2.3", "12,34", "", "-", ".5", "1e9", "1.", "-.", "+", "++1",
            "+-1", "-+1", "+ 1",
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

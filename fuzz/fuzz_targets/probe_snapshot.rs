//! The probe on what a page can write: a recorded page of the corpus
//! (`fixtures/{real,pages}/snapshots`), changed where a page decides (texts, labels,
//! attributes, tags, flags, structure, nesting, width, tools, JSON-LD), then analysed
//! and patched as the extension's worker does. The fuzzer's bytes are the decisions, so
//! its mutations change one choice at a time. Nothing may panic (a panic is a trap in
//! the wasm, which stops the worker's probe instance for every tab); an analysis that
//! takes seconds is a timeout (run with `-timeout`, as `cargo xtask fuzz` does).

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use nsp_probe::Probe;
use nsp_protocol::ProbeTier;
use serde_json::{json, Map, Value};

/// The corpus pages, read once.
fn pages() -> &'static [Value] {
    static PAGES: OnceLock<Vec<Value>> = OnceLock::new();
    PAGES.get_or_init(|| {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut files = Vec::new();
        for dir in ["fixtures/real/snapshots", "fixtures/pages/snapshots"] {
            for entry in std::fs::read_dir(root.join(dir)).expect("the corpus's snapshots") {
                let path = entry.expect("a snapshot").path();
                if path.extension().is_some_and(|e| e == "json") {
                    files.push(path);
                }
            }
        }
        files.sort();
        files
            .iter()
            .map(|p| {
                serde_json::from_str(&std::fs::read_to_string(p).expect("read"))
                    .expect("a snapshot")
            })
            .collect()
    })
}

/// The fuzzer's bytes as a stream of choices; 0 once they run out.
struct Choices<'a>(&'a [u8]);

impl Choices<'_> {
    fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }
    fn below(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        let v = if n <= 256 {
            usize::from(self.byte())
        } else {
            usize::from(self.byte()) << 8 | usize::from(self.byte())
        };
        v % n
    }
    /// Below `n`, mostly small: a few copies are as telling as thousands and cost a
    /// thousandth of the time, so thousands come now and then.
    fn skewed(&mut self, n: usize) -> usize {
        let bound = self.below(n.max(1)) + 1;
        self.below(bound)
    }
    fn pick<'s>(&mut self, from: &'s [&'s str]) -> &'s str {
        from[self.below(from.len())]
    }
    fn text(&mut self) -> String {
        let mut s = String::new();
        for _ in 0..1 + self.below(4) {
            match self.below(4) {
                // Raw bytes, as text: whatever a page can put in a string.
                0 => {
                    let n = self.below(24);
                    let raw: Vec<u8> = (0..n).map(|_| self.byte()).collect();
                    s.push_str(&String::from_utf8_lossy(&raw));
                }
                _ => s.push_str(self.pick(WORDS)),
            }
            if self.below(3) == 0 {
                s.push(' ');
            }
        }
        if self.below(16) == 0 {
            s = s.repeat(1 + self.below(400));
        }
        s
    }
}

/// Words the probe reads meaning into, and strings that break naive code.
const WORDS: &[&str] = &[
    "",
    " ",
    "Delete",
    "delete all",
    "Send",
    "Save",
    "Cancel",
    "Remove",
    "Pay",
    "Archive",
    "Undo",
    "Edit",
    "Search",
    "Next",
    "(required)",
    "()",
    "[0]",
    "a.b[3].c",
    ".",
    "\"",
    "\\",
    "\n",
    "\t",
    "\u{0301}",
    "e\u{0301}",
    "ß",
    "İ",
    "ﬃ",
    "…",
    "👩‍👩‍👧",
    "\u{200b}",
    "\u{202e}",
    "日本語",
    "١٢٣",
    "1,234.56",
    "-0",
    "1e309",
    "99999999999999999999",
    "NaN",
    "€12",
    "100%",
    "3 minutes ago",
    "2026-13-45",
    "#",
    "javascript:",
    "mailto:x",
    "?q=1",
    "Ｄｅｌｅｔｅ",
    "ǰ",
    "\u{feff}",
    "-mt-2",
    "-",
    "--",
    "true",
    "null",
    "yes",
    "x",
];
const TAGS: &[&str] = &[
    "div",
    "span",
    "button",
    "a",
    "input",
    "select",
    "option",
    "form",
    "table",
    "tr",
    "td",
    "th",
    "li",
    "ul",
    "label",
    "h2",
    "dialog",
    "details",
    "summary",
    "textarea",
    "my-widget",
    "img",
    "tbody",
    "thead",
    "nav",
    "main",
    "section",
    "fieldset",
    "legend",
    "output",
    "time",
    "p",
    "iframe",
    "optgroup",
    "datalist",
];
const ATTRS: &[&str] = &[
    "data-nsp-key",
    "data-nsp-action",
    "data-nsp-reversibility",
    "data-nsp-description",
    "aria-label",
    "aria-labelledby",
    "aria-describedby",
    "aria-expanded",
    "aria-controls",
    "aria-checked",
    "aria-selected",
    "aria-haspopup",
    "aria-valuenow",
    "name",
    "type",
    "value",
    "href",
    "role",
    "placeholder",
    "title",
    "datetime",
    "min",
    "max",
    "step",
    "pattern",
    "maxlength",
    "id",
    "class",
    "data-method",
    "data-confirm",
    "toolname",
    "action",
    "method",
    "for",
    "list",
    "autocomplete",
    "inputmode",
    "form",
    "checked",
    "selected",
    "multiple",
    "required",
    "formaction",
    "onclick",
    "tabindex",
    "alt",
];

/// The most records a mutation grows a page to: past the worker's 4,000 a page moves to
/// a probe of its own, and the sanitizer's build is tens of times slower than the
/// wasm, so a bigger page would time out at a cost that only grows with its size.
const MAX_RECORDS: usize = 8_000;

fn mutate(page: &mut Value, c: &mut Choices) {
    let Some(els) = page["elements"].as_array_mut() else {
        return;
    };
    for _ in 0..1 + c.below(12) {
        let n = els.len();
        if n == 0 {
            break;
        }
        let i = c.below(n);
        match c.below(12) {
            0 => els[i]["x"] = json!(c.text()),
            1 => els[i]["l"] = json!(c.text()),
            2 => {
                if !els[i]["a"].is_object() {
                    els[i]["a"] = json!({});
                }
                let name = c.pick(ATTRS).to_owned();
                let value = c.text();
                els[i]["a"][name] = json!(value);
            }
            3 => els[i]["t"] = json!(c.pick(TAGS)),
            4 => {
                let flag = c.pick(&["v", "d", "c", "r"]).to_owned();
                els[i][flag] = json!(c.below(2) == 0);
            }
            // Another parent, before the record (records come parent first).
            5 if i > 0 => els[i]["p"] = json!(c.below(i)),
            6 => els[i]["n"] = json!(c.below(40)),
            // Copies of a record, side by side: a wide list, a form of many fields.
            7 if i > 0 && n < MAX_RECORDS => {
                let copies = 1 + c.skewed(MAX_RECORDS - n);
                let changed = c.below(2) == 0;
                for _ in 0..copies {
                    let mut copy = els[i].clone();
                    if changed {
                        copy["x"] = json!(c.text());
                    }
                    els.push(copy);
                }
            }
            // A chain nested deep, a control at its end.
            8 if n + 2 < MAX_RECORDS => {
                let depth = 1 + c.skewed(MAX_RECORDS - n - 2);
                let base = els.len();
                els.push(json!({"t": "div", "p": i, "n": 1}));
                for d in 1..depth {
                    els.push(json!({"t": c.pick(TAGS), "p": base + d - 1, "n": 1}));
                }
                els.push(json!({"t": "button", "p": base + depth - 1, "n": 1, "x": c.text()}));
            }
            9 => {
                if let Some(a) = els[i]["a"].as_object_mut() {
                    a.clear();
                }
            }
            10 => {
                if let Some(o) = els[i].as_object_mut() {
                    o.remove(c.pick(&["x", "l", "a", "s", "p", "n"]));
                }
            }
            _ => els[i]["s"] = json!(c.text()),
        }
    }
    match c.below(6) {
        0 => page["title"] = json!(c.text()),
        1 => page["site_name"] = json!(c.text()),
        2 => page["url"] = json!(format!("http://fuzz.test/{}", c.text())),
        3 => {
            page["json_ld"] = json!([{"@type": c.text(), "name": c.text(),
                "potentialAction": {"@type": "SearchAction", "target": c.text()}}]);
        }
        4 => {
            let mut props = Map::new();
            props.insert(
                c.text(),
                json!({"type": c.pick(&["string", "number", "integer", "boolean", "object"]),
                "enum": [c.text()]}),
            );
            page["tools"] = json!([{"name": c.text(), "description": c.text(),
                "input_schema": {"type": "object", "properties": props, "required": [c.text()]}}]);
        }
        _ => {}
    }
}

fuzz_target!(|data: &[u8]| {
    let mut c = Choices(data);
    let all = pages();
    let mut page = all[c.below(all.len())].clone();
    mutate(&mut page, &mut c);
    let text = page.to_string();
    let mut probe = Probe::with_tier(ProbeTier::WasmExtension);
    if probe.analyze_json(&text).is_err() {
        return;
    }
    // Then a change, as the page's next batch: the patch path (text only, or a full
    // analysis of the patched page).
    let mut next = page.clone();
    mutate(&mut next, &mut c);
    let Some(els) = next["elements"].as_array() else {
        return;
    };
    let old = page["elements"].as_array().map_or(0, Vec::len);
    let keep = c.below(old.min(els.len()) + 1);
    let patch = json!({
        "url": next["url"], "title": next["title"],
        "splices": [{"start": keep, "delete": old - keep, "insert": &els[keep..]}],
    });
    let _ = probe.update_json(&patch.to_string());
});

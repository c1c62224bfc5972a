//! The compact snapshot of a page that the content script extracts in one DOM pass and
//! hands to the probe in one call: a flat table of elements with parent links, plus the
//! WebMCP tools the page registered. Later DOM changes travel as [`SnapshotPatch`]es
//! that splice whole subtrees of that table, so the probe never needs the DOM itself.
//!
//! The table is in document order (shadow roots and same-origin iframes inlined where
//! their host sits), so every element's subtree is one contiguous run of records and
//! `parent` always points backwards.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One page, as the content script saw it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PageSnapshot {
    pub url: String,
    pub title: String,
    /// `application-name` or `og:site_name` meta, when present.
    #[serde(default)]
    pub site_name: Option<String>,
    /// Elements in document order; `parent` indexes into this list.
    pub elements: Vec<ElementRecord>,
    /// Tools the page registered through WebMCP (`navigator.modelContext` /
    /// `document.modelContext`), as the extension's main-world shim recorded them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<DeclaredTool>,
    /// `<script type="application/ld+json">` blocks, parsed, bounded in size.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub json_ld: Vec<Value>,
    /// Milliseconds the content script spent extracting.
    #[serde(default)]
    pub extract_ms: f64,
    /// The DOM was still loading or mutating when this was taken.
    #[serde(default)]
    pub unsettled: bool,
    /// The extraction stopped at its element cap: the table is incomplete.
    #[serde(default)]
    pub truncated: bool,
    /// Controls that raised a `confirm()` when NSP dispatched an action to them (and NSP
    /// declined it), since the page was loaded. The content script keeps the list until
    /// the page navigates and sends it with every full snapshot; a patch leaves it as it
    /// is. The probe treats these controls as irreversible.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub confirmed_controls: Vec<ConfirmSeen>,
}

/// A control that asked for confirmation when an action was dispatched to it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfirmSeen {
    /// The control's selector now (the extractor's own form, so it matches a record's),
    /// or as it was when the dialog came if the element has left the page.
    #[serde(default)]
    pub selector: String,
    /// The `internal_target` of the action that was dispatched, when it was a discovered
    /// one (it identifies row and WebMCP actions, whose elements vary).
    #[serde(default)]
    pub target: String,
    /// What the page asked.
    pub text: String,
}

/// One element worth the probe's attention.
///
/// On the wire a record is an array, positional: a 5,000-element page has thousands of
/// records, and as objects their keys were a quarter of the bytes to stringify and
/// parse. The array is `[tag, parent, where, flags, text, attrs?, label?]`:
///
/// - `parent`: the parent record's index, or `null`;
/// - `where`: a number is [`ElementRecord::nth`], a string is
///   [`ElementRecord::selector`];
/// - `flags`: bit 1 `relative`, 2 hidden (not `visible`), 4 `disabled`, 8 `clickable`;
/// - `attrs`: an object of attributes, or `null`; it and `label` may be left off.
///
/// An object with one-letter keys (`t`, `p`, `s`, `n`, `r`, `x`, `a`, `v`, `d`, `l`, `c`)
/// or the long field names is accepted too, for snapshots written by hand; records
/// serialize as such objects.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ElementRecord {
    /// Lowercase tag name.
    #[serde(rename = "t")]
    pub tag: String,
    /// Index of the nearest recorded ancestor (always lower than this record's own).
    #[serde(rename = "p", skip_serializing_if = "Option::is_none")]
    pub parent: Option<u32>,
    /// A selector that finds this element at extraction time: CSS, with ` >>> `
    /// stepping into a shadow root or a same-origin iframe's document. When `relative`
    /// is set it continues the parent record's selector (`parent > selector`), which
    /// keeps the snapshot small: most selectors share a long prefix.
    #[serde(rename = "s", skip_serializing_if = "String::is_empty")]
    pub selector: String,
    /// The commonest relative selector, as a number: the element is the `nth` (1-based)
    /// of its tag among the children of the parent record's element, that is
    /// `parent > tag:nth-of-type(nth)`. Zero when `selector` says where it is. Most
    /// records of a big page are table cells and list items; as a number their
    /// selectors cost a quarter of the bytes to stringify and parse.
    #[serde(rename = "n", skip_serializing_if = "is_zero")]
    pub nth: u32,
    #[serde(rename = "r", skip_serializing_if = "is_false")]
    pub relative: bool,
    /// The text of the element's subtree, whitespace-collapsed and length-limited, for
    /// elements of at most three child elements; the text of lists, tables, landmarks
    /// and forms inside it is left out (their own records carry it). Empty for those
    /// containers themselves, for larger ones and for secret fields. A control's text
    /// leaves out what nobody perceives (parts not rendered or `visibility: hidden`);
    /// when what a sighted person sees on it is less (a screen reader's label, a
    /// transparent or clipped part), that is the attribute `seen_text`.
    #[serde(rename = "x", skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// Relevant attributes (id, name, type, role, href, aria-*, data-nsp-*, data-*-id,
    /// class, method, action, required, placeholder, autocomplete, value for non-secret
    /// fields, `value_filled` ("true"/"false") for secret ones — never their length;
    /// snapshots recorded before carry `value_length`, which the probe reads only as
    /// filled or not — `checked`, `options`, `option_labels`, `seen_text`, a
    /// control's text as a sighted person sees it, only when it differs from `text`,
    /// and `enabled_by`, on a disabled field a box of its form enables, that box's
    /// label).
    #[serde(rename = "a", skip_serializing_if = "Attrs::is_empty")]
    pub attrs: Attrs,
    /// Rendered (checkVisibility, inside a visible frame). Absent means visible.
    #[serde(rename = "v", skip_serializing_if = "is_true")]
    pub visible: bool,
    #[serde(rename = "d", skip_serializing_if = "is_false")]
    pub disabled: bool,
    /// Accessible name of a form field or labelled control from `<label>`s or
    /// `aria-labelledby`, which the probe cannot resolve from the table alone.
    #[serde(rename = "l", skip_serializing_if = "String::is_empty")]
    pub label: String,
    /// The page attached a click handler (listener or `onclick`), so a non-semantic
    /// element may still be an action.
    #[serde(rename = "c", skip_serializing_if = "is_false")]
    pub clickable: bool,
}

const RELATIVE: u64 = 1;
const HIDDEN: u64 = 2;
const DISABLED: u64 = 4;
const CLICKABLE: u64 = 8;

impl<'de> Deserialize<'de> for ElementRecord {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(RecordVisitor)
    }
}

struct RecordVisitor;

impl<'de> serde::de::Visitor<'de> for RecordVisitor {
    type Value = ElementRecord;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an element record: [tag, parent, where, flags, text, attrs?, label?]")
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> Result<ElementRecord, A::Error> {
        use serde::de::Error;
        let missing = |what: &str| A::Error::custom(format!("an element record lacks its {what}"));
        let tag: String = seq.next_element()?.ok_or_else(|| missing("tag"))?;
        let parent: Option<u32> = seq.next_element()?.ok_or_else(|| missing("parent"))?;
        let place: Place = seq.next_element()?.ok_or_else(|| missing("selector"))?;
        let flags: u64 = seq.next_element()?.ok_or_else(|| missing("flags"))?;
        let text: String = seq.next_element()?.unwrap_or_default();
        let attrs: Option<Attrs> = seq.next_element()?.flatten();
        let label: String = seq
            .next_element::<Option<String>>()?
            .flatten()
            .unwrap_or_default();
        // Fields a later extension may add are skipped, not refused.
        while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
        let (selector, nth) = match place {
            Place::Nth(n) => (String::new(), n),
            Place::Selector(s) => (s, 0),
        };
        Ok(ElementRecord {
            tag,
            parent,
            selector,
            nth,
            relative: flags & RELATIVE != 0,
            text,
            attrs: attrs.unwrap_or_default(),
            visible: flags & HIDDEN == 0,
            disabled: flags & DISABLED != 0,
            label,
            clickable: flags & CLICKABLE != 0,
        })
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> Result<ElementRecord, A::Error> {
        let mut rec = ElementRecord {
            visible: true,
            ..ElementRecord::default()
        };
        let mut tag = false;
        while let Some(field) = map.next_key::<Field>()? {
            match field {
                Field::Tag => {
                    rec.tag = map.next_value()?;
                    tag = true;
                }
                Field::Parent => rec.parent = map.next_value()?,
                Field::Selector => rec.selector = map.next_value()?,
                Field::Nth => rec.nth = map.next_value()?,
                Field::Relative => rec.relative = map.next_value()?,
                Field::Text => rec.text = map.next_value()?,
                Field::Attrs => rec.attrs = map.next_value()?,
                Field::Visible => rec.visible = map.next_value()?,
                Field::Disabled => rec.disabled = map.next_value()?,
                Field::Label => rec.label = map.next_value()?,
                Field::Clickable => rec.clickable = map.next_value()?,
                Field::Other => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        if !tag {
            return Err(serde::de::Error::missing_field("t"));
        }
        Ok(rec)
    }
}

/// The third element of a record array: a number for `nth`, a string for `selector`.
enum Place {
    Nth(u32),
    Selector(String),
}

impl<'de> Deserialize<'de> for Place {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl serde::de::Visitor<'_> for Visit {
            type Value = Place;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a selector string or an nth-of-type number")
            }

            fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<Place, E> {
                u32::try_from(n)
                    .map(Place::Nth)
                    .map_err(|_| E::custom("nth-of-type number out of range"))
            }

            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Place, E> {
                Ok(Place::Selector(s.to_owned()))
            }

            fn visit_string<E: serde::de::Error>(self, s: String) -> Result<Place, E> {
                Ok(Place::Selector(s))
            }
        }
        deserializer.deserialize_any(Visit)
    }
}

/// A record object's key: one letter on the wire, the field's name when written by hand.
enum Field {
    Tag,
    Parent,
    Selector,
    Nth,
    Relative,
    Text,
    Attrs,
    Visible,
    Disabled,
    Label,
    Clickable,
    Other,
}

impl<'de> Deserialize<'de> for Field {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl serde::de::Visitor<'_> for Visit {
            type Value = Field;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an element record field")
            }

            fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<Field, E> {
                Ok(match key {
                    "t" | "tag" => Field::Tag,
                    "p" | "parent" => Field::Parent,
                    "s" | "selector" => Field::Selector,
                    "n" | "nth" => Field::Nth,
                    "r" | "relative" => Field::Relative,
                    "x" | "text" => Field::Text,
                    "a" | "attrs" => Field::Attrs,
                    "v" | "visible" => Field::Visible,
                    "d" | "disabled" => Field::Disabled,
                    "l" | "label" => Field::Label,
                    "c" | "clickable" => Field::Clickable,
                    _ => Field::Other,
                })
            }
        }
        deserializer.deserialize_identifier(Visit)
    }
}

fn is_true(b: &bool) -> bool {
    *b
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// An element's attributes in document order. A handful per element, so a vector
/// searched linearly beats a map (the probe reads attributes in every pass); on the
/// wire it is a JSON object.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Attrs(pub Vec<(String, String)>);

impl Attrs {
    pub fn get(&self, name: &str) -> Option<&String> {
        self.0
            .iter()
            .find(|(k, _)| same_name(k, name))
            .map(|(_, v)| v)
    }

    pub fn contains_key(&self, name: &str) -> bool {
        self.0.iter().any(|(k, _)| same_name(k, name))
    }

    pub fn insert(&mut self, name: String, value: String) {
        match self.0.iter_mut().find(|(k, _)| *k == name) {
            Some(slot) => slot.1 = value,
            None => self.0.push((name, value)),
        }
    }

    pub fn remove(&mut self, name: &str) -> Option<String> {
        let pos = self.0.iter().position(|(k, _)| k == name)?;
        Some(self.0.remove(pos).1)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&String, &String)> {
        self.0.iter().map(|(k, v)| (k, v))
    }
}

/// Attribute names compared length and first byte first: most names an element carries
/// differ from the one asked for right there, and the probe asks tens of thousands of times a
/// capture, where a full compare is a call into `memcmp` in the wasm.
#[inline]
fn same_name(k: &str, name: &str) -> bool {
    k.len() == name.len() && k.as_bytes().first() == name.as_bytes().first() && k == name
}

impl<'a> IntoIterator for &'a Attrs {
    type Item = (&'a String, &'a String);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (String, String)>,
        fn(&'a (String, String)) -> (&'a String, &'a String),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(k, v)| (k, v))
    }
}

impl FromIterator<(String, String)> for Attrs {
    fn from_iter<I: IntoIterator<Item = (String, String)>>(iter: I) -> Attrs {
        let mut attrs = Attrs::default();
        for (k, v) in iter {
            attrs.insert(k, v);
        }
        attrs
    }
}

impl Serialize for Attrs {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Attrs {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Attrs, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Attrs;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object of string attributes")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Attrs, A::Error> {
                let mut attrs = Vec::with_capacity(map.size_hint().unwrap_or(4).min(64));
                while let Some((k, v)) = map.next_entry::<String, String>()? {
                    attrs.push((k, v));
                }
                Ok(Attrs(attrs))
            }
        }
        deserializer.deserialize_map(Visit)
    }
}

/// A tool registered with WebMCP.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DeclaredTool {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// JSON Schema of the tool's input (an object schema), as registered.
    #[serde(default)]
    pub input_schema: Value,
    /// `annotations.readOnlyHint`.
    #[serde(default)]
    pub read_only: Option<bool>,
    /// `annotations.destructiveHint` (MCP's name; some pages send it).
    #[serde(default)]
    pub destructive: Option<bool>,
}

/// An incremental change to the last snapshot: whole subtrees replaced in place.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SnapshotPatch {
    /// Applied in order; indexes of each splice refer to the table as the previous
    /// splices left it.
    #[serde(default)]
    pub splices: Vec<Splice>,
    pub url: String,
    pub title: String,
    /// Replaces the tool list when present.
    #[serde(default)]
    pub tools: Option<Vec<DeclaredTool>>,
    #[serde(default)]
    pub extract_ms: f64,
    #[serde(default)]
    pub unsettled: bool,
}

/// Replace `delete` records starting at `start` with `insert`. The replaced run is
/// always one complete subtree, so no record outside it has a parent inside it.
/// `parent` indexes of inserted records are absolute in the table after the splice.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Splice {
    pub start: u32,
    pub delete: u32,
    #[serde(default)]
    pub insert: Vec<ElementRecord>,
}

/// Why a patch could not be applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchError(pub String);

impl std::fmt::Display for PatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PatchError {}

impl PageSnapshot {
    /// Applies a patch in place. On error the table is in an unspecified state (it is
    /// not copied first: this runs on every DOM change) and the caller must get a full
    /// snapshot before the next patch.
    pub fn apply(&mut self, patch: SnapshotPatch) -> Result<(), PatchError> {
        let elements = &mut self.elements;
        for splice in patch.splices {
            let start = splice.start as usize;
            let end = start
                .checked_add(splice.delete as usize)
                .filter(|end| *end <= elements.len())
                .ok_or_else(|| {
                    PatchError(format!(
                        "splice {}+{} is outside a table of {}",
                        splice.start,
                        splice.delete,
                        elements.len()
                    ))
                })?;
            let inserted = splice.insert.len();
            let new_len = elements.len() - splice.delete as usize + inserted;
            for (offset, record) in splice.insert.iter().enumerate() {
                if record
                    .parent
                    .is_some_and(|p| p as usize >= start + offset || p as usize >= new_len)
                {
                    return Err(PatchError(
                        "an inserted record points at a parent after itself".into(),
                    ));
                }
            }
            let shift = inserted as i64 - splice.delete as i64;
            for record in elements.iter_mut().skip(end) {
                if let Some(p) = record.parent {
                    if (p as usize) >= start && (p as usize) < end {
                        return Err(PatchError(
                            "a record outside the splice has its parent inside it".into(),
                        ));
                    }
                    if (p as usize) >= end {
                        record.parent = Some((p as i64 + shift) as u32);
                    }
                }
            }
            elements.splice(start..end, splice.insert);
        }
        self.url = patch.url;
        self.title = patch.title;
        if let Some(tools) = patch.tools {
            self.tools = tools;
        }
        self.extract_ms = patch.extract_ms;
        self.unsettled = patch.unsettled;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(tag: &str, parent: Option<u32>) -> ElementRecord {
        ElementRecord {
            tag: tag.into(),
            parent,
            ..ElementRecord::default()
        }
    }

    #[test]
    fn record_arrays_objects_and_long_names_agree() {
        let arrays: Vec<ElementRecord> = serde_json::from_str(
            r##"[["main",null,"#app",0,""],
                ["a",0,2,9,"Open",{"href":"/x","class":"btn"}],
                ["input",0,"form > input",7,"",null,"Email"],
                ["td",1,1,0,"x",null,null,"later field"]]"##,
        )
        .expect("arrays parse");
        let objects: Vec<ElementRecord> = serde_json::from_str(
            r##"[{"t":"main","s":"#app"},
                {"t":"a","p":0,"n":2,"r":true,"c":true,"x":"Open","a":{"href":"/x","class":"btn"}},
                {"tag":"input","parent":0,"selector":"form > input","relative":true,
                 "visible":false,"disabled":true,"label":"Email","unknown":[1]},
                {"t":"td","p":1,"n":1,"x":"x"}]"##,
        )
        .expect("objects parse");
        assert_eq!(arrays, objects);
        assert_eq!(arrays[1].nth, 2);
        assert!(arrays[1].relative && arrays[1].clickable && arrays[1].visible);
        assert_eq!(
            arrays[1].attrs.get("class").map(String::as_str),
            Some("btn")
        );
        assert!(!arrays[2].visible && arrays[2].disabled && arrays[2].relative);
        // What a record serializes to reads back the same.
        let text = serde_json::to_string(&arrays).expect("serializes");
        let again: Vec<ElementRecord> = serde_json::from_str(&text).expect("reads back");
        assert_eq!(again, arrays);
    }

    #[test]
    fn broken_records_say_what_is_missing() {
        for (bad, says) in [
            (r#"[["td",null]]"#, "selector"),
            (r#"[{"x":"no tag"}]"#, "t"),
            (
                r#"[["td",null,-1,0]]"#,
                "selector string or an nth-of-type number",
            ),
            (r#"[["td",null,"a","0"]]"#, "u64"),
        ] {
            let err = serde_json::from_str::<Vec<ElementRecord>>(bad)
                .expect_err(bad)
                .to_string();
            assert!(err.contains(says), "{bad}: {err}");
        }
    }

    #[test]
    fn splices_shift_later_parents() {
        // 0 main, 1 ul (parent 0), 2 li (parent 1), 3 footer (parent 0), 4 a (parent 3)
        let mut snap = PageSnapshot {
            elements: vec![
                rec("main", None),
                rec("ul", Some(0)),
                rec("li", Some(1)),
                rec("footer", Some(0)),
                rec("a", Some(3)),
            ],
            ..PageSnapshot::default()
        };
        let patch = SnapshotPatch {
            splices: vec![Splice {
                start: 1,
                delete: 2,
                insert: vec![rec("ul", Some(0)), rec("li", Some(1)), rec("li", Some(1))],
            }],
            url: "u".into(),
            title: "t".into(),
            ..SnapshotPatch::default()
        };
        snap.apply(patch).expect("applies");
        let tags: Vec<_> = snap.elements.iter().map(|e| e.tag.as_str()).collect();
        assert_eq!(tags, ["main", "ul", "li", "li", "footer", "a"]);
        assert_eq!(snap.elements[5].parent, Some(4));
        assert_eq!(snap.elements[4].parent, Some(0));
    }

    #[test]
    fn bad_splices_are_refused() {
        let mut snap = PageSnapshot {
            elements: vec![rec("main", None), rec("p", Some(0))],
            ..PageSnapshot::default()
        };
        let outside = SnapshotPatch {
            splices: vec![Splice {
                start: 1,
                delete: 5,
                insert: vec![],
            }],
            ..SnapshotPatch::default()
        };
        assert!(snap.apply(outside).is_err());
        let orphaning = SnapshotPatch {
            splices: vec![Splice {
                start: 0,
                delete: 1,
                insert: vec![],
            }],
            ..SnapshotPatch::default()
        };
        assert!(snap.apply(orphaning).is_err());
    }
}

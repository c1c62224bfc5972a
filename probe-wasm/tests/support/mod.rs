//! Building blocks for the native tests' hand-built snapshots, shared so that every
//! test file builds element records the same way the extraction does.

#![allow(dead_code)]

use nsp_protocol::snapshot::{Attrs, ElementRecord, PageSnapshot};

/// A visible element record whose selector is `tag:nth-of-type(parent + 1)`.
pub fn el(tag: &str, parent: Option<u32>, text: &str, attrs: &[(&str, &str)]) -> ElementRecord {
    let selector = format!("{tag}:nth-of-type({})", parent.map_or(0, |p| p + 1));
    el_at(tag, parent, &selector, text, attrs)
}

/// A visible element record with the given selector.
pub fn el_at(
    tag: &str,
    parent: Option<u32>,
    selector: &str,
    text: &str,
    attrs: &[(&str, &str)],
) -> ElementRecord {
    ElementRecord {
        tag: tag.into(),
        parent,
        selector: selector.into(),
        text: text.into(),
        attrs: attrs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<Attrs>(),
        visible: true,
        ..ElementRecord::default()
    }
}

/// A snapshot of `url` with these records and nothing else.
pub fn snapshot(url: &str, title: &str, elements: Vec<ElementRecord>) -> PageSnapshot {
    PageSnapshot {
        url: url.into(),
        title: title.into(),
        elements,
        ..PageSnapshot::default()
    }
}

/// A snapshot of `url` whose element records are written as the extraction writes them
/// (`[tag, parent, where, flags, text, attrs?, label?]`), for cases whose shape depends
/// on the wire form (relative `nth-of-type` steps as numbers).
pub fn recorded(url: &str, title: &str, elements: serde_json::Value) -> PageSnapshot {
    serde_json::from_value(serde_json::json!({"url": url, "title": title, "elements": elements}))
        .expect("a snapshot")
}

/// Node for the tests that check a rule `extract.js` shares with the probe: the unit
/// tests' helper (`run_json`, `extension_script`).
#[path = "../../src/node.rs"]
pub mod node;

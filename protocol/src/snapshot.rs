//! The compact snapshot of a page that the content script extracts in one DOM pass and
//! hands to the probe in one call: a flat table of elements with parent links.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

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
    /// Milliseconds the content script spent extracting.
    #[serde(default)]
    pub extract_ms: f64,
    /// The DOM was still mutating when this was taken.
    #[serde(default)]
    pub unsettled: bool,
}

/// One element worth the probe's attention.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ElementRecord {
    /// Lowercase tag name.
    pub tag: String,
    /// Index of the nearest recorded ancestor.
    #[serde(default)]
    pub parent: Option<u32>,
    /// A CSS selector unique in the document at extraction time.
    pub selector: String,
    /// Visible text, trimmed and length-limited.
    #[serde(default)]
    pub text: String,
    /// Relevant attributes (id, name, type, role, href, aria-*, data-nsp-*, method,
    /// action, required, placeholder, autocomplete, value for non-secret fields).
    #[serde(default)]
    pub attrs: BTreeMap<String, String>,
    #[serde(default)]
    pub visible: bool,
    #[serde(default)]
    pub disabled: bool,
}

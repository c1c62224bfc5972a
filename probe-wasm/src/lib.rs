//! The probe: turns a page snapshot into a [`PageCapture`] (actions with tiers and
//! confidence, objects, context), and later snapshot patches into deltas of it. Pure
//! Rust in [`discover`] and the modules it drives; this file is the narrow WebAssembly
//! boundary the extension calls.
//!
//! The boundary is one opaque handle, [`Probe`], configured with one serde value. A
//! snapshot crosses as one JSON string and the capture comes back as one: strings are
//! copied once in each direction, where walking a JS object graph from wasm costs a
//! call per property. The probe never touches the network and never reads the DOM: the
//! content script extracts the snapshot in one pass.

mod builtins;
mod classify;
mod confidence;
mod confirms;
mod context;
mod controls;
mod corrections;
mod declared;
pub mod discover;
mod facts;
mod forms;
pub mod found;
mod lists;
#[cfg(test)]
mod node;
mod objects;
mod page;
mod rows;
pub mod text;
mod words;

use std::collections::BTreeMap;

use nsp_protocol::channel::TabDelta;
use nsp_protocol::snapshot::{PageSnapshot, SnapshotPatch};
use nsp_protocol::{PageCapture, ProbeMetadata, ProbeTier};
use serde_json::Value;
use wasm_bindgen::prelude::*;

// The wasm's allocator. A capture allocates tens of thousands of small strings (the
// snapshot's, then the state's); dlmalloc spent a fifth of a capture in malloc and free.
#[cfg(all(target_family = "wasm", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// The probe's hash map: foldhash instead of SipHash, which cost a twentieth of a capture.
/// Seeded per process, so a page cannot precompute collisions.
pub type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// The count kept under `key` (0 when new). Every count by name goes through here, so
/// the wasm holds the hash map's insertion once instead of once per call site.
#[inline(never)]
pub fn slot(map: &mut HashMap<String, usize>, key: String) -> &mut usize {
    map.entry(key).or_insert(0)
}

/// What is kept under `key`, if anything; see [`slot`].
#[inline(never)]
pub fn kept(map: &HashMap<String, usize>, key: &str) -> Option<usize> {
    map.get(key).copied()
}

/// The indices kept under `key` (none when new); see [`slot`].
#[inline(never)]
pub fn members(map: &mut HashMap<String, Vec<usize>>, key: String) -> &mut Vec<usize> {
    map.entry(key).or_default()
}

pub use classify::raised_by_confirm;
pub use classify::{classify, Declared, Evidence, FormFacts, Kind, Verdict};

pub use objects::{Limits, KEYED_INSIDE, MAX_OBJECTS_CEILING};
pub use page::{REGION_ROLES, REGION_TAGS};

/// How the extension configures a probe (JSON text): `tier` (`wasm_in_page` or
/// `wasm_extension`), and the caps on `objects` that nspd's `[probe]` settings set,
/// `max_objects` and `max_list_records` (absent or null: the defaults of [`Limits`];
/// out of range: clamped to 1..=[`MAX_OBJECTS_CEILING`]), and `corrections`, the page
/// origin's stored corrections (see `corrections.rs`; absent: none). Read through `serde_json::Value`
/// by hand rather than a derived struct: the wasm already holds that parser, and every
/// derived deserializer is code of its own in a wasm with a size budget.
/// The one error: what a configuration looks like (one string, no formatting code).
/// A JSON error as its kind and position. serde_json's own text (`Display`) brings a
/// table of messages into a size-budgeted wasm for errors only a developer reads: the
/// extractor and the probe come from one build, so a mismatch is a bug, found from the
/// line and column.
fn json_error(what: &str, e: &serde_json::Error) -> String {
    use serde_json::error::Category;
    let kind = match e.classify() {
        Category::Io => "i/o",
        Category::Syntax => "syntax",
        Category::Data => "data",
        Category::Eof => "end of input",
    };
    let mut out = String::from(what);
    out.push_str(": ");
    out.push_str(kind);
    out.push_str(" error at line ");
    out.push_str(&e.line().to_string());
    out.push_str(" column ");
    out.push_str(&e.column().to_string());
    out
}

const CONFIG_HELP: &str = "bad probe config: want {tier: wasm_in_page|wasm_extension, max_objects?, max_list_records?, corrections?}";

fn parse_config(config: &str) -> Option<(ProbeTier, Limits, Vec<corrections::Fix>)> {
    let v: Value = serde_json::from_str(config).ok()?;
    let tier = match v.get("tier")?.as_str()? {
        "wasm_in_page" => ProbeTier::WasmInPage,
        "wasm_extension" => ProbeTier::WasmExtension,
        _ => return None,
    };
    let cap = |name: &str, default: usize| match v.get(name) {
        None | Some(Value::Null) => Some(default),
        // `as` saturates (a negative number is 0); `clamped` bounds the result.
        Some(n) => n.as_f64().map(|n| n as usize),
    };
    let d = Limits::default();
    let limits = Limits {
        max_objects: cap("max_objects", d.max_objects)?,
        max_list_records: cap("max_list_records", d.max_list_records)?,
    };
    let fixes = corrections::parse(v.get("corrections"))?;
    Some((tier, limits, fixes))
}

/// A probe instance, one per page (in-page tier) or one per tab in the extension's
/// service worker (extension tier). It keeps the last snapshot and capture, so a DOM
/// change costs a patch and a delta instead of a full round trip.
#[wasm_bindgen]
#[derive(Debug)]
pub struct Probe {
    tier: ProbeTier,
    limits: Limits,
    snapshot: Option<PageSnapshot>,
    last: Option<PageCapture>,
    reuse: discover::Reuse,
    /// The page origin's corrections, applied to every analysis.
    fixes: Vec<corrections::Fix>,
}

#[wasm_bindgen]
impl Probe {
    /// `config` is JSON text: `{"tier": "wasm_in_page" | "wasm_extension",
    /// "max_objects"?: n, "max_list_records"?: n}`.
    #[wasm_bindgen(constructor)]
    pub fn new(config: &str) -> Result<Probe, JsError> {
        Probe::from_config(config).map_err(|e| JsError::new(&e))
    }

    /// Analyses a snapshot (JSON text of a `PageSnapshot`) and returns the capture as
    /// JSON text.
    pub fn analyze(&mut self, snapshot_json: &str) -> Result<String, JsError> {
        self.analyze_json(snapshot_json)
            .map_err(|e| JsError::new(&e))
    }

    /// Applies a patch (JSON text of a `SnapshotPatch`) to the last snapshot and returns
    /// what changed as JSON text of a `tab_delta` body, or "" when nothing an agent sees
    /// changed. Throws when there is no snapshot or the patch does not fit; the caller
    /// then sends a full snapshot.
    pub fn update(&mut self, patch_json: &str) -> Result<String, JsError> {
        self.update_json(patch_json).map_err(|e| JsError::new(&e))
    }

    /// The probe's version.
    pub fn version() -> String {
        env!("CARGO_PKG_VERSION").to_owned()
    }
}

/// What [`warm`] analyses: the checkout page of the probe's own corpus
/// (`fixtures/pages/checkout.html`: an address form, a payment form with card fields, a
/// select, radios, a terms checkbox and links), as the extension's extraction records it;
/// `tests/tests/probe_corpus.rs` keeps the recording true to today's extraction. Chosen by
/// what it compiles for other pages, measured on the real-app corpus (BENCHMARKS.md), not
/// by the bench's generated page.
const WARM_SNAPSHOT: &str = include_str!("../../fixtures/pages/snapshots/checkout.json");

/// Analyses a small built-in page with a throwaway probe and drops the result: the first
/// capture of a page load is then not the one that compiles the wasm's functions (V8
/// compiles them lazily, on their first call) or grows its memory. The content script
/// calls it when, having loaded the probe, it is still waiting for the page to be quiet
/// before its first capture, so the page's first state arrives sooner. Changes nothing
/// any probe produces.
#[wasm_bindgen]
pub fn warm() {
    let mut probe = Probe::with_tier(ProbeTier::WasmInPage);
    let _ = probe.analyze_json(WARM_SNAPSHOT);
}

impl Probe {
    /// A probe from the JSON text of its configuration (see [`Probe::new`]).
    pub fn from_config(config: &str) -> Result<Probe, String> {
        let (tier, limits, fixes) = parse_config(config).ok_or_else(|| CONFIG_HELP.to_owned())?;
        let mut probe = Probe::with_limits(tier, limits);
        probe.fixes = fixes;
        Ok(probe)
    }

    pub fn with_tier(tier: ProbeTier) -> Probe {
        Probe::with_limits(tier, Limits::default())
    }

    pub fn with_limits(tier: ProbeTier, limits: Limits) -> Probe {
        Probe {
            tier,
            limits: limits.clamped(),
            snapshot: None,
            last: None,
            reuse: discover::Reuse::default(),
            fixes: Vec::new(),
        }
    }

    pub fn analyze_json(&mut self, snapshot_json: &str) -> Result<String, String> {
        self.forget();
        let mut snapshot: PageSnapshot =
            serde_json::from_str(snapshot_json).map_err(|e| json_error("bad snapshot", &e))?;
        let started = now_ms();
        // A page nested deeper than anyone reads is read to that depth; its records are
        // then not the page's, so no patch applies: every change is a full snapshot.
        let trimmed = page::trim_deep(&mut snapshot);
        let (mut capture, reuse) =
            discover::analyze_with_reuse(&snapshot, self.tier, self.limits, &self.fixes);
        stamp(&mut capture.probe_metadata, started);
        let text =
            serde_json::to_string(&capture).map_err(|e| json_error("cannot encode capture", &e))?;
        self.snapshot = (!trimmed).then_some(snapshot);
        self.last = Some(capture);
        self.reuse = reuse;
        Ok(text)
    }

    /// Drops the last snapshot and capture before a new one is parsed: the analysis reads
    /// neither, and two generations of a big page (with the new one's text) must not be
    /// in the wasm's memory at once: its high-water mark is what a tab pays (issue 23).
    /// A patch after a snapshot that failed to parse then asks for a full one.
    fn forget(&mut self) {
        self.snapshot = None;
        self.last = None;
        self.reuse = discover::Reuse::default();
    }

    pub fn update_json(&mut self, patch_json: &str) -> Result<String, String> {
        let patch: SnapshotPatch =
            serde_json::from_str(patch_json).map_err(|e| json_error("bad patch", &e))?;
        let (Some(snapshot), Some(last)) = (self.snapshot.as_mut(), self.last.as_ref()) else {
            return Err("no snapshot to patch: send a full one".into());
        };
        let started = now_ms();
        let text_only = text_only_changes(snapshot, &patch)
            .filter(|changed| changed.iter().all(|i| self.reuse.text_keys.has(*i)));
        if let Err(e) = snapshot.apply(patch) {
            self.snapshot = None;
            self.last = None;
            return Err(format!("patch does not fit: {e}"));
        }
        let mut capture = match text_only {
            // Only values changed: re-read them, keep everything else.
            Some(changed) => {
                let mut capture = last.clone();
                for i in changed {
                    for (key, how) in self.reuse.text_keys.of(i) {
                        match objects::text_value(&snapshot.elements[i], how) {
                            Some(v) => capture.objects.insert(key.to_owned(), v),
                            None => capture.objects.remove(key),
                        };
                    }
                }
                let state = confidence::state(snapshot, &self.reuse.coverage);
                capture.confidence = state.value;
                capture.probe_metadata.confidence_reason = Some(state.reason);
                capture.probe_metadata.settled = !snapshot.unsettled;
                capture.probe_metadata.capture_latency_ms = snapshot.extract_ms;
                capture.probe_metadata.cache_hit = true;
                capture.probe_metadata.filtered_object_count = capture.objects.len() as u64;
                capture
            }
            None => {
                let trimmed = page::trim_deep(snapshot);
                let (capture, reuse) =
                    discover::analyze_with_reuse(snapshot, self.tier, self.limits, &self.fixes);
                self.reuse = reuse;
                if trimmed {
                    self.snapshot = None;
                }
                capture
            }
        };
        stamp(&mut capture.probe_metadata, started);
        let delta = diff(last, &capture);
        self.last = Some(capture);
        match delta {
            Some(delta) => {
                serde_json::to_string(&delta).map_err(|e| json_error("cannot encode delta", &e))
            }
            None => Ok(String::new()),
        }
    }
}

/// The records whose text alone a patch changes, or `None` when it changes anything
/// else (structure, attributes, visibility, the URL or title): those need the full
/// analysis.
fn text_only_changes(snapshot: &PageSnapshot, patch: &SnapshotPatch) -> Option<Vec<usize>> {
    if patch.url != snapshot.url || patch.title != snapshot.title || patch.tools.is_some() {
        return None;
    }
    let mut changed = Vec::new();
    for splice in &patch.splices {
        if splice.delete as usize != splice.insert.len() {
            return None;
        }
        let start = splice.start as usize;
        for (k, new) in splice.insert.iter().enumerate() {
            let old = snapshot.elements.get(start + k)?;
            let same_but_text = old.tag == new.tag
                && old.parent == new.parent
                && old.selector == new.selector
                && old.nth == new.nth
                && old.relative == new.relative
                && old.attrs == new.attrs
                && old.visible == new.visible
                && old.disabled == new.disabled
                && old.label == new.label
                && old.clickable == new.clickable;
            if !same_but_text {
                return None;
            }
            if old.text != new.text {
                changed.push(start + k);
            }
        }
    }
    Some(changed)
}

fn stamp(meta: &mut ProbeMetadata, started: f64) {
    meta.labeling_latency_ms = round4(now_ms() - started);
    meta.total_latency_ms = round4(meta.capture_latency_ms + meta.labeling_latency_ms);
    meta.capture_latency_ms = round4(meta.capture_latency_ms);
}

/// What differs between two captures, or `None` when nothing an agent sees changed
/// (latencies alone do not make a new capture).
pub fn diff(prev: &PageCapture, next: &PageCapture) -> Option<TabDelta> {
    let mut changed = BTreeMap::new();
    for (k, v) in &next.objects {
        if prev.objects.get(k) != Some(v) {
            changed.insert(k.clone(), v.clone());
        }
    }
    let removed: Vec<String> = prev
        .objects
        .keys()
        .filter(|k| !next.objects.contains_key(*k))
        .cloned()
        .collect();
    let actions_changed = prev.actions != next.actions;
    let explain_changed = prev.explain != next.explain;
    let confidence_changed = prev.confidence != next.confidence;
    let context_changed = prev.context != next.context;
    let settled_changed = prev.probe_metadata.settled != next.probe_metadata.settled;
    if changed.is_empty()
        && removed.is_empty()
        && !actions_changed
        && !explain_changed
        && !confidence_changed
        && !context_changed
        && !settled_changed
    {
        return None;
    }
    Some(TabDelta {
        changed,
        removed,
        actions: (actions_changed || explain_changed).then(|| next.actions.clone()),
        confidence: confidence_changed.then_some(next.confidence),
        context: context_changed.then(|| next.context.clone()),
        probe_metadata: Some(next.probe_metadata.clone()),
        explain: (actions_changed || explain_changed).then(|| next.explain.clone()),
    })
}

/// Rounds to the 4 decimals the API promises.
pub fn round4(x: f64) -> f64 {
    if x.is_finite() {
        (x * 10_000.0).round() / 10_000.0
    } else {
        0.0
    }
}

#[cfg(target_arch = "wasm32")]
#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;
}

#[cfg(target_arch = "wasm32")]
fn now_ms() -> f64 {
    performance_now()
}

#[cfg(not(target_arch = "wasm32"))]
fn now_ms() -> f64 {
    use std::time::{SystemTime, UNIX_EPOCH};
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or(0.0)
}

/// Natively callable analysis, for tests and tools.
pub fn analyze_snapshot(snapshot: &PageSnapshot, tier: ProbeTier) -> PageCapture {
    analyze_snapshot_with(snapshot, tier, Limits::default())
}

/// [`analyze_snapshot`] with caps on `objects` other than the defaults.
pub fn analyze_snapshot_with(
    snapshot: &PageSnapshot,
    tier: ProbeTier,
    limits: Limits,
) -> PageCapture {
    // As a `Probe` reads it (see `Probe::analyze_json`).
    if page::too_deep(snapshot) {
        let mut trimmed = snapshot.clone();
        page::trim_deep(&mut trimmed);
        return discover::analyze(&trimmed, tier, limits.clamped());
    }
    discover::analyze(snapshot, tier, limits.clamped())
}

#[cfg(test)]
mod warm_tests {
    use super::{Probe, WARM_SNAPSHOT};
    use nsp_protocol::ProbeTier;

    /// The warm-up page still parses and exercises the analysis (forms, lists, rows,
    /// actions), so a change to the snapshot format cannot quietly turn it into a no-op.
    #[test]
    fn the_warm_up_page_is_a_real_page() {
        let mut probe = Probe::with_tier(ProbeTier::WasmInPage);
        let text = probe
            .analyze_json(WARM_SNAPSHOT)
            .expect("the warm-up page parses");
        let capture: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        let actions = capture["actions"].as_object().expect("actions");
        assert!(actions.len() >= 5, "{text}");
        assert!(
            !capture["objects"].as_object().expect("objects").is_empty(),
            "{text}"
        );
        super::warm();
    }
}

#[cfg(test)]
mod json_error_tests {
    use super::Probe;
    use nsp_protocol::ProbeTier;

    #[test]
    fn a_bad_snapshot_says_what_kind_of_error_and_where() {
        let mut probe = Probe::with_tier(ProbeTier::WasmExtension);
        let err = probe
            .analyze_json("{\"url\": 5}")
            .expect_err("not a snapshot");
        assert_eq!(err, "bad snapshot: data error at line 1 column 9");
        let err = probe.analyze_json("{\"url\": ").expect_err("cut short");
        assert!(
            err.starts_with("bad snapshot: end of input error at line 1"),
            "{err}"
        );
    }

    // The last snapshot goes before a new one is parsed (the wasm's high-water mark): a
    // patch after a snapshot that did not parse must ask for a full one, never apply to
    // the page before.
    #[test]
    fn a_patch_after_a_bad_snapshot_asks_for_a_full_one() {
        let mut probe = Probe::with_tier(ProbeTier::WasmInPage);
        probe
            .analyze_json(super::WARM_SNAPSHOT)
            .expect("the warm-up page parses");
        let patch = r#"{"url": "https://warm.invalid/", "title": "t"}"#;
        probe
            .update_json(patch)
            .expect("a patch of the page it has");
        probe
            .analyze_json("{\"url\": 5}")
            .expect_err("not a snapshot");
        let err = probe.update_json(patch).expect_err("no snapshot left");
        assert!(err.contains("send a full one"), "{err}");
    }
}

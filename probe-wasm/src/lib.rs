//! The probe: turns a page snapshot into a [`PageCapture`] (actions with tiers and
//! confidence, objects, context). Pure Rust in [`discover`]; this file is the narrow
//! WebAssembly boundary the extension calls.
//!
//! The boundary is one opaque handle, [`Probe`], configured with one serde value; a
//! snapshot goes in as one JS value and a capture comes out as one. The probe never
//! touches the network and never reads the DOM itself: the content script extracts the
//! snapshot in one pass (crossing into wasm per node costs about 3× plain JS).

pub mod discover;

use nsp_protocol::snapshot::PageSnapshot;
use nsp_protocol::{PageCapture, ProbeTier};
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

/// How the extension configures a probe.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "snake_case")]
struct ProbeConfig {
    tier: ProbeTier,
}

/// A probe instance, one per page (in-page tier) or one per extension (extension tier).
#[wasm_bindgen]
#[derive(Debug)]
pub struct Probe {
    tier: ProbeTier,
}

#[wasm_bindgen]
impl Probe {
    /// `config` is `{tier: "wasm_in_page" | "wasm_extension"}`.
    #[wasm_bindgen(constructor)]
    pub fn new(config: JsValue) -> Result<Probe, JsError> {
        let config: ProbeConfig = serde_wasm_bindgen::from_value(config)
            .map_err(|e| JsError::new(&format!("bad probe config: {e}")))?;
        Ok(Probe { tier: config.tier })
    }

    /// Analyses one snapshot and returns the capture as a plain JS object.
    pub fn analyze(&self, snapshot: JsValue) -> Result<JsValue, JsError> {
        let snapshot: PageSnapshot = serde_wasm_bindgen::from_value(snapshot)
            .map_err(|e| JsError::new(&format!("bad snapshot: {e}")))?;
        let started = js_sys::Date::now();
        let mut capture = discover::analyze(&snapshot, self.tier);
        capture.probe_metadata.labeling_latency_ms = js_sys::Date::now() - started;
        capture.probe_metadata.total_latency_ms =
            capture.probe_metadata.capture_latency_ms + capture.probe_metadata.labeling_latency_ms;
        to_js(&capture)
    }

    /// The probe's version.
    pub fn version() -> String {
        env!("CARGO_PKG_VERSION").to_owned()
    }
}

/// Maps become plain objects (not JS `Map`s), so the capture is ordinary JSON.
fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsError> {
    let serializer = serde_wasm_bindgen::Serializer::json_compatible();
    value
        .serialize(&serializer)
        .map_err(|e| JsError::new(&format!("cannot encode capture: {e}")))
}

/// Natively callable form of [`Probe::analyze`], for tests and tools.
pub fn analyze_snapshot(snapshot: &PageSnapshot, tier: ProbeTier) -> PageCapture {
    discover::analyze(snapshot, tier)
}

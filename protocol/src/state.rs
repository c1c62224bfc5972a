//! The state of one tab as the agent API returns it, and the probe's capture it is built from.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How much damage an action can do, from the agent's point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Reversibility {
    /// Changes nothing.
    Read,
    /// Can be undone (archive, star, draft, label).
    ReversibleWrite,
    /// Permanent (send, delete forever, pay, submit).
    IrreversibleWrite,
}

impl Reversibility {
    /// Every tier, from the least to the most consequential (the extension's
    /// `contract.js` lists them in this order).
    pub const ALL: [Reversibility; 3] = [
        Reversibility::Read,
        Reversibility::ReversibleWrite,
        Reversibility::IrreversibleWrite,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Reversibility::Read => "read",
            Reversibility::ReversibleWrite => "reversible_write",
            Reversibility::IrreversibleWrite => "irreversible_write",
        }
    }

    /// The least effective confidence the gate accepts for an action of this tier. The
    /// extension colours its badge and popup by the same numbers (`cargo xtask dist`
    /// writes them into its `contract.js`).
    pub fn confidence_floor(self) -> f64 {
        match self {
            Reversibility::Read => 0.0,
            Reversibility::ReversibleWrite => 0.80,
            Reversibility::IrreversibleWrite => 0.95,
        }
    }
}

/// Where a tab's probe is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum ProbeStatus {
    Detecting,
    Attaching,
    ColdProbe,
    Active,
    Error,
    Detached,
}

impl ProbeStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ProbeStatus::Detecting => "detecting",
            ProbeStatus::Attaching => "attaching",
            ProbeStatus::ColdProbe => "cold_probe",
            ProbeStatus::Active => "active",
            ProbeStatus::Error => "error",
            ProbeStatus::Detached => "detached",
        }
    }
}

/// Where the probe's WebAssembly ran for a capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum ProbeTier {
    /// In the page, from the content script.
    WasmInPage,
    /// In the extension's own context, fed by a snapshot (pages whose CSP forbids wasm).
    WasmExtension,
}

/// Where the tab is.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Context {
    pub url: Option<String>,
    pub location: Option<String>,
    pub view: Option<String>,
    pub window_title: Option<String>,
    /// The browser window id, as a string (the SDK types it so).
    pub window_id: Option<String>,
}

/// One parameter of an action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ActionParameter {
    pub name: String,
    /// `string`, `number`, `boolean`, `object` or `array`.
    pub type_name: String,
    pub required: bool,
    /// Where a valid value comes from, e.g. "Email id from inbox.emails[N].id".
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_values: Option<Vec<Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_value: Option<Value>,
    /// The parameter fills a secret field (a password, a card number, a one-time code:
    /// `nsp_protocol::secrets`). Its value is never written to the audit log, nspd's log,
    /// the popup or an error message. Absent means not secret.
    #[serde(default, skip_serializing_if = "is_false")]
    pub secret: bool,
}

/// One action the page offers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ActionSchema {
    /// e.g. `fn(thread_id: string, body: string, cc?: string[]) -> bool`.
    pub signature: String,
    pub reversibility: Reversibility,
    pub description: String,
    /// This mapping's own certainty, 0..1.
    #[cfg_attr(feature = "schema", schemars(range(min = 0.0, max = 1.0)))]
    pub confidence: f64,
    /// What the probe acts on, e.g. `dom:#compose button[type=submit]`.
    pub internal_target: String,
    #[serde(default)]
    pub parameters: Vec<ActionParameter>,
}

/// How a capture was made.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ProbeMetadata {
    pub capture_latency_ms: f64,
    pub labeling_latency_ms: f64,
    pub total_latency_ms: f64,
    pub raw_object_count: u64,
    pub filtered_object_count: u64,
    pub cache_hit: bool,
    pub probe_tier: Option<ProbeTier>,
    /// Number of elements in the snapshot the probe analysed.
    #[serde(default)]
    pub element_count: u64,
    /// Version of the probe that made the capture.
    #[serde(default)]
    pub probe_version: String,
    /// The DOM had stopped changing when the capture was taken.
    #[serde(default)]
    pub settled: bool,
    /// Share of the page's visible interactive elements that confident actions cover
    /// (0..1), the main input of the state's confidence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage: Option<f64>,
    /// Why the state's confidence is what it is, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence_reason: Option<String>,
    /// A cap left objects out: the probe's `max_objects` or `max_list_records` (a list
    /// past its cap also reports `<list>_total`), or the `limit` of a `/state` read.
    /// Sent only when true, so clients that predate it read the same document.
    #[serde(default, skip_serializing_if = "is_false")]
    pub objects_truncated: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// Why the probe decided what it did about one action (`nspd inspect --explain`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ActionExplain {
    /// The elements the action is bound to.
    pub elements: Vec<ExplainElement>,
    /// Evidence that was weighed, one line each: the signal's name, its weight (log-odds
    /// for or against a tier) and what was seen, e.g. `label_verb (+3.00
    /// irreversible_write): word "send" in the label points to irreversible_write`. The
    /// last line gives the tier scores and the resulting probability.
    pub signals: Vec<String>,
    pub tier_reason: String,
    pub confidence_reason: String,
    /// Per parameter, the selector of the field it fills (what the page's dispatcher
    /// uses; empty for parameters that select a row or go to a WebMCP tool).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub parameters: BTreeMap<String, String>,
    /// For a row action: the cells of each row it can act on, in page order (the order of
    /// its row parameter's `allowed_values`, or of `index`): the non-empty texts of the
    /// row's recorded elements, whitespace-collapsed as the snapshot has them. nspd
    /// fingerprints them and sends the named row's cells with the dispatch, and the
    /// dispatcher refuses when the live row does not contain each of them: a row that
    /// moved or was replaced is not the row the gate saw.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rows: Vec<Vec<String>>,
}

/// One element an action is bound to.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ExplainElement {
    pub tag: String,
    pub id: Option<String>,
    /// A CSS selector unique in the document at capture time.
    pub selector: String,
    pub text: String,
}

/// What the probe produces for a page: everything of a [`SubstrateState`] that the page
/// knows. The daemon adds the identity (`pid`, `app_id`), the capture id and the time.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PageCapture {
    /// Human name from `application-name` / `og:site_name`, else the title, else the host.
    pub app_name: String,
    pub confidence: f64,
    pub context: Context,
    pub objects: BTreeMap<String, Value>,
    pub actions: BTreeMap<String, ActionSchema>,
    pub probe_metadata: ProbeMetadata,
    /// Per action, why it was classified so. Kept by the daemon for `nspd inspect`,
    /// never part of the agent-facing state.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub explain: BTreeMap<String, ActionExplain>,
}

/// The state of one tab, as `GET /substrate/v1/state/{pid}` returns it (flat).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SubstrateState {
    #[cfg_attr(feature = "schema", schemars(range(min = 1)))]
    pub pid: u64,
    pub app_id: String,
    pub app_name: String,
    pub runtime: String,
    /// How well the probe understood the page, 0..1, 4 decimals.
    #[cfg_attr(feature = "schema", schemars(range(min = 0.0, max = 1.0)))]
    pub confidence: f64,
    /// A UUIDv7 naming this capture (an action's `expected_capture_id`).
    pub capture_id: String,
    pub schema_version: String,
    #[cfg_attr(feature = "schema", schemars(extend("format" = "date-time")))]
    pub captured_at: String,
    pub context: Context,
    pub objects: BTreeMap<String, Value>,
    pub actions: BTreeMap<String, ActionSchema>,
    pub probe_metadata: ProbeMetadata,
}

/// Rounds a confidence to the 4 decimals the API promises.
pub fn round_confidence(c: f64) -> f64 {
    if !c.is_finite() {
        return 0.0;
    }
    (c.clamp(0.0, 1.0) * 10_000.0).round() / 10_000.0
}

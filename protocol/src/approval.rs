//! Asking the person, and corrections: the messages that carry a held action to the
//! browser and the person's answer back, and the per-origin corrections the probe
//! applies as declared-level evidence.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::state::Reversibility;

/// `"approval"` in an action request: whether nspd may hold a request that only a
/// confidence floor refuses and ask the person instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum ApprovalMode {
    /// Ask the person, whatever `[gate] ask_person` says.
    Ask,
    /// Refuse as usual, whatever `[gate] ask_person` says.
    Never,
}

/// A held action put to the person (daemon → extension). Everything the approval card
/// shows is here, so the card never has to ask the page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApprovalQuestion {
    pub approval_id: String,
    pub tab_id: i64,
    /// The tab's pid in the agent API.
    pub pid: u64,
    /// `scheme://host[:port]` of the page; "always allow" is stored for it.
    #[serde(default)]
    pub origin: Option<String>,
    #[serde(default)]
    pub url: Option<String>,
    pub action: String,
    pub tier: Reversibility,
    /// The effective confidence the gate computed, and the floor it is under.
    pub confidence: f64,
    pub floor: f64,
    /// The parameters, secrets masked.
    #[serde(default)]
    pub parameters: Map<String, Value>,
    /// The `--explain` signal lines of the action (empty for a builtin on an element the
    /// probe did not classify).
    #[serde(default)]
    pub signals: Vec<String>,
    /// Why the gate asks rather than acts, in words.
    pub reason: String,
    #[serde(default)]
    pub verify_expression: Option<String>,
    /// The id of the agent key that asked (never the key itself).
    pub key_id: String,
    /// The name of the agent that asks (`default` for agent.key's), for the card.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The element to outline in the page (the schema's `internal_target`, or the
    /// builtin's selector).
    #[serde(default)]
    pub target: Option<String>,
    /// RFC 3339.
    pub asked_at: String,
    /// RFC 3339; after it nspd answers `approval_timeout` and the card is withdrawn.
    pub expires_at: String,
}

/// The person's answer to an [`ApprovalQuestion`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalDecision {
    ApproveOnce,
    Deny,
    /// Approve, and store a "trusted" correction for this action on this origin.
    Always,
}

/// Why a question is no longer open (daemon → extension), so every card showing it
/// goes away.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalClosedReason {
    Answered,
    TimedOut,
    /// The agent's request went away (its connection closed) or the tab did.
    Withdrawn,
}

/// Who made a correction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum CorrectionSource {
    /// From the extension's own pages (the popup, an approval card).
    Person,
    /// From `POST /substrate/v1/learn`: only ever stricter.
    Agent,
}

/// One correction of one action on one origin, stored in nspd's data dir and applied by
/// the probe as declared-level evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Correction {
    pub id: String,
    /// `scheme://host[:port]`.
    pub origin: String,
    /// The action's name as the probe reports it.
    pub action: String,
    /// The tier the action has on this origin.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier: Option<Reversibility>,
    /// Treated like a declaration by the site: the probe's tier at declared confidence.
    #[serde(default)]
    pub trusted: bool,
    /// A ceiling on the action's confidence (agents may lower it, never raise it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_confidence: Option<f64>,
    pub by: CorrectionSource,
    /// The agent key's id, for agent corrections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_id: Option<String>,
    /// RFC 3339.
    pub created_at: String,
}

/// `POST /substrate/v1/learn`: a correction from an agent. It may only make the action
/// stricter (a higher tier, a lower confidence); anything looser is 403 `forbidden`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LearnRequest {
    #[serde(default)]
    pub pid: Option<u64>,
    #[serde(default)]
    pub app_id: Option<String>,
    pub action: String,
    #[serde(default)]
    pub reversibility: Option<Reversibility>,
    #[serde(default)]
    pub confidence: Option<f64>,
}

/// `POST /substrate/v1/learn` answered 200.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LearnResponse {
    pub success: bool,
    pub correction: Correction,
    pub message: String,
}

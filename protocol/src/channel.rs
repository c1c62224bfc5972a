//! Messages of the extension channel: the WebSocket between the extension's service
//! worker and nspd. JSON text frames, one tagged object each (`{"type": ...}`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::approval::{ApprovalClosedReason, ApprovalDecision, ApprovalQuestion, Correction};
use crate::state::{
    ActionExplain, ActionSchema, Context, PageCapture, ProbeMetadata, ProbeStatus, Reversibility,
};

/// Sent by the extension.
// Messages are parsed once and handled at once, never stored in bulk, so the size of
// the largest variant costs nothing worth boxing for.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ExtensionMessage {
    /// First message on a new connection.
    Hello {
        channel_version: u32,
        extension_version: String,
        /// `navigator.userAgent` of the browser.
        user_agent: String,
        /// Browser name and major version from the UA client hints, e.g. `Chromium 156`.
        browser: String,
        /// Random id of this browser session, kept across service-worker restarts (in
        /// `chrome.storage.session`), so a reconnecting worker can reclaim its own tabs
        /// and nobody else's.
        instance_id: String,
    },
    /// Sent at least every 20 s; the daemon answers with [`DaemonMessage::KeepaliveAck`].
    Keepalive,
    /// A tab's probe status and, when it has one, a full capture.
    TabState {
        tab_id: i64,
        #[serde(default)]
        window_id: Option<i64>,
        status: ProbeStatus,
        /// The page's URL and title, known even before the probe has a capture.
        #[serde(default)]
        url: Option<String>,
        #[serde(default)]
        title: Option<String>,
        /// Why the probe is in this status, in words.
        #[serde(default)]
        message: Option<String>,
        #[serde(default)]
        capture: Option<Box<PageCapture>>,
        /// Set when this capture answers a [`DaemonMessage::Capture`].
        #[serde(default)]
        request_id: Option<String>,
    },
    /// An incremental update after a DOM change: only what differs from the tab's last
    /// capture (full or incremental). The daemon applies it and makes a new capture id.
    TabDelta {
        tab_id: i64,
        /// The delta's body, as the probe makes it (its fields sit beside `tab_id`).
        #[serde(flatten)]
        delta: TabDelta,
    },
    /// The tab was closed or navigated away from an http(s) page.
    TabClosed { tab_id: i64 },
    /// The person took the tab out of its agent's tab group (or closed the group): the
    /// agent's claim on it ends.
    TabUngrouped { tab_id: i64 },
    /// The person shared a tab with an agent from the popup (`share`), or took it back.
    ShareTab {
        tab_id: i64,
        agent: String,
        share: bool,
    },
    /// The person revoked an agent from the popup.
    RevokeAgent { name: String },
    /// The person's answer to a [`DaemonMessage::Approval`], sent only on behalf of the
    /// extension's own pages.
    ApprovalAnswer {
        approval_id: String,
        decision: ApprovalDecision,
    },
    /// A person's correction made in the popup (`tier` or `trusted`).
    Correct {
        origin: String,
        action: String,
        #[serde(default)]
        tier: Option<Reversibility>,
        #[serde(default)]
        trusted: bool,
    },
    /// The person removed a correction in the popup.
    RemoveCorrection { id: String },
    /// The answer to a [`DaemonMessage::OpenTab`] or [`DaemonMessage::CloseTab`]: the
    /// tab's id, or why it could not be done.
    TabOpResult {
        request_id: String,
        #[serde(default)]
        tab_id: Option<i64>,
        #[serde(default)]
        error: Option<String>,
    },
    /// The answer to a [`DaemonMessage::Resolve`].
    Resolved {
        request_id: String,
        tab_id: i64,
        resolution: Resolution,
    },
    /// The answer to a [`DaemonMessage::Dispatch`].
    ActionResult {
        action_id: String,
        tab_id: i64,
        outcome: DispatchOutcome,
    },
}

/// The body of a `tab_delta` message: what differs from the tab's last capture. The one
/// shape of a delta: the probe makes it (`nsp_probe::diff`), the extension applies it to
/// its copies of the capture (`extension/delta.js`, tied to this type by
/// protocol/tests/extension_contract.rs) and the daemon to the tab's state.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TabDelta {
    /// Object keys added or changed, with their new values.
    #[serde(default)]
    pub changed: BTreeMap<String, Value>,
    /// Object keys that disappeared. Applied before `changed`: a key in both keeps its
    /// new value.
    #[serde(default)]
    pub removed: Vec<String>,
    /// The complete action map, when any action (or its explanation) changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actions: Option<BTreeMap<String, ActionSchema>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<Context>,
    /// The probe always sends it (latencies, `settled`); absent from hand-made deltas.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe_metadata: Option<ProbeMetadata>,
    /// Explanations of the actions, when `actions` is present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explain: Option<BTreeMap<String, ActionExplain>>,
}

/// Sent by the daemon.
// A question to the person is the largest message, and rare; each message is
// serialized once and dropped, so the size of the enum costs nothing worth a Box.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum DaemonMessage {
    Welcome {
        channel_version: u32,
        daemon_version: String,
        /// The probe settings of this daemon (`[probe]` in nspd.toml). Absent from older
        /// daemons; the extension then keeps the probe's defaults.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        probe: Option<ProbeSettings>,
    },
    KeepaliveAck,
    /// Run one action in a tab. The extension executes an `action_id` at most once.
    Dispatch {
        action_id: String,
        tab_id: i64,
        action: String,
        parameters: Map<String, Value>,
        /// The schema's `internal_target`, when the action is a discovered one.
        #[serde(default)]
        internal_target: Option<String>,
        /// The page may answer yes to one `confirm()` that the action raises
        /// synchronously: set only when the gate let an `irreversible_write` through with
        /// a verify expression, for which that dialog is the action's own confirmation.
        /// Every other dialog is declined. Absent (old daemons) means no.
        #[serde(default)]
        accept_confirm: bool,
        /// What the gate saw when it let the action through. The dispatcher compares
        /// the live element with it right before each event it fires (also after filling
        /// a form's fields and before submitting it) and refuses with `target_changed`
        /// on any difference. Absent (old daemons): the dispatcher compares with its own
        /// newest capture only.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        expect: Option<DispatchExpect>,
    },
    /// Which element a CSS selector finds in a tab, answered by a `resolved`. nspd asks
    /// before gating a builtin aimed by selector, so the gate rates the element the page
    /// really has there, never the selector's text.
    Resolve {
        request_id: String,
        tab_id: i64,
        selector: String,
    },
    /// Ask a tab for a fresh full capture, answered by a `tab_state` with this id.
    Capture {
        request_id: String,
        tab_id: i64,
    },
    /// Open `url` (http or https only) in a new tab of this browser, through
    /// `chrome.tabs`; answered by a `tab_op_result` with the new tab's id.
    OpenTab {
        request_id: String,
        url: String,
        /// The agent that opens it owns it: put the tab in this tab group (made if there
        /// is none of this title in the window). Absent for the default agent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        group: Option<TabGroup>,
    },
    /// Close one of this browser's tabs; answered by a `tab_op_result`.
    CloseTab {
        request_id: String,
        tab_id: i64,
    },
    /// Put a held action to the person; answered by an `approval_answer`.
    Approval(ApprovalQuestion),
    /// A question is no longer open; withdraw its card.
    ApprovalClosed {
        approval_id: String,
        reason: ApprovalClosedReason,
    },
    /// Every stored correction, sent after the welcome and whenever they change.
    Corrections {
        corrections: Vec<Correction>,
    },
    /// The agents other than the default one, with their tabs and last actions, for the
    /// popup; sent after the welcome and whenever they change.
    Agents {
        agents: Vec<AgentView>,
    },
}

/// A Chrome tab group for an agent's tabs (`chrome.tabGroups`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TabGroup {
    /// The agent's name.
    pub title: String,
    /// One of `chrome.tabGroups.Color`: grey, blue, red, yellow, green, pink, purple,
    /// cyan, orange.
    pub color: String,
}

/// One agent as the popup shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentView {
    pub name: String,
    pub group: TabGroup,
    /// Its scope in words: origins, max tier, tabs, ask.
    pub scope: String,
    /// The browser tab ids it owns in this browser session.
    pub owned_tabs: Vec<i64>,
    /// The browser tab ids the person shared with it.
    pub shared_tabs: Vec<i64>,
    /// Its last actions, newest first: `"<action> on <host>: <decision>"`.
    pub last_actions: Vec<String>,
}

/// What the gate saw of a dispatched action (see [`DaemonMessage::Dispatch`]).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct DispatchExpect {
    /// The tier the gate let through.
    pub tier: Option<Reversibility>,
    /// The labels of the elements bound to the action as the gate's capture explained
    /// them (`ExplainElement::text`, read by extract.js' `explainLabel`), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<String>,
    /// For a row action: the cells of the row the request names, as the gate saw them
    /// (`ActionExplain::rows`). The live row must contain each of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub row: Option<Vec<String>>,
    /// For a builtin aimed by selector: the element the selector resolved to when the
    /// gate rated it. The dispatcher resolves the selector again and refuses unless it
    /// finds exactly one element with this tag and label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element: Option<ResolvedElement>,
}

/// What a selector found in the page (the answer to a [`DaemonMessage::Resolve`]).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Resolution {
    /// How many elements the selector matches (shadow roots and same-origin frames
    /// included, ` >>> ` as in every selector of NSP). Only exactly one can be acted on.
    pub count: u32,
    /// The one element, when `count` is 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub element: Option<ResolvedElement>,
    /// Why the selector could not be resolved (it does not parse), in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One element as the dispatcher identifies it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ResolvedElement {
    /// Lowercase tag name.
    pub tag: String,
    /// Its label by extract.js' `explainLabel`, the rule `ExplainElement::text` uses.
    #[serde(default)]
    pub label: String,
    /// The discovered actions of the content script's newest capture whose bound
    /// elements are this element or contain it (a control inside a form belongs to the
    /// form's action too). Empty: no action explains it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<String>,
    /// It is a secret field (a password, a card number: `nsp_protocol::secrets`, or a
    /// field that was ever `type=password`). What is typed into it is redacted everywhere.
    #[serde(default, skip_serializing_if = "is_false")]
    pub secret: bool,
    /// A person can see and reach it now (extract.js' perceivability rule). nspd refuses
    /// a builtin that writes to an element nobody can see, as the dispatcher would.
    #[serde(default)]
    pub perceivable: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// Settings of the probe that nspd passes to the extension in its welcome. The
/// extension adds them to every probe's configuration (beside the tier), so they reach
/// the probe as its one configuration value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProbeSettings {
    /// Most keys one capture reports in `objects`.
    pub max_objects: u64,
    /// Most records one list contributes to `objects` (the rest are counted in
    /// `<list>_total`).
    pub max_list_records: u64,
}

/// What happened when the page ran an action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum DispatchOutcome {
    /// The action ran; `value` is what it returned (e.g. the text for `read_text`).
    Done {
        value: Value,
        /// Dialogs the page raised while the action ran, and how NSP answered them.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        dialogs: Vec<PageDialog>,
    },
    /// The action did not run, or threw.
    Failed {
        code: DispatchFailure,
        message: String,
    },
}

/// A `window.confirm`/`alert`/`prompt` the page raised during a dispatched action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PageDialog {
    pub kind: DialogKind,
    /// The dialog's text as the page passed it (clipped to 500 characters).
    pub message: String,
    /// NSP answered yes (`confirm`), or dismissed it (`alert`, which has no other
    /// answer). A `prompt` is never accepted.
    pub accepted: bool,
}

/// Which of the page's blocking dialogs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum DialogKind {
    Confirm,
    Alert,
    Prompt,
}

/// Why a dispatched action did not complete.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DispatchFailure {
    /// The selector or target matched nothing.
    TargetNotFound,
    /// The target no longer is what the schema described.
    TargetChanged,
    /// The page threw while running the action.
    Threw,
    /// The action id was already executed; it was not run again.
    Duplicate,
    /// The tab has no live probe to run it.
    NoProbe,
    /// Parameters the page could not use.
    BadParameters,
    /// The extension does not know this action.
    Unsupported,
    /// The action raised a `confirm()`/`prompt()` dialog and NSP answered no (always,
    /// unless the dispatch said `accept_confirm`), so the action most likely did not
    /// complete.
    DialogDeclined,
    /// A person could not see or reach the target right before the event: it is not
    /// connected, not visible (hidden, transparent, zero-sized, clipped, off-screen,
    /// inside a closed `<details>`, `inert` or `aria-hidden`), disabled, or another
    /// element is on top of its click point after scrolling it into view.
    TargetHidden,
}

impl DispatchFailure {
    /// Every code, in declaration order: `cargo xtask dist` writes their wire names into
    /// the extension's `contract.js`, and protocol/tests/extension_contract.rs checks
    /// that every code the extension's scripts report is one of them.
    pub const ALL: [DispatchFailure; 9] = [
        DispatchFailure::TargetNotFound,
        DispatchFailure::TargetChanged,
        DispatchFailure::Threw,
        DispatchFailure::Duplicate,
        DispatchFailure::NoProbe,
        DispatchFailure::BadParameters,
        DispatchFailure::Unsupported,
        DispatchFailure::DialogDeclined,
        DispatchFailure::TargetHidden,
    ];

    /// The code's wire name.
    pub fn as_str(self) -> &'static str {
        // A new variant fails to compile here until it has a name; add it to `ALL` too
        // (the test below counts).
        match self {
            DispatchFailure::TargetNotFound => "target_not_found",
            DispatchFailure::TargetChanged => "target_changed",
            DispatchFailure::Threw => "threw",
            DispatchFailure::Duplicate => "duplicate",
            DispatchFailure::NoProbe => "no_probe",
            DispatchFailure::BadParameters => "bad_parameters",
            DispatchFailure::Unsupported => "unsupported",
            DispatchFailure::DialogDeclined => "dialog_declined",
            DispatchFailure::TargetHidden => "target_hidden",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn dialog_fields_are_optional_both_ways() {
        // A daemon or extension from before the fields: a dispatch without
        // accept_confirm declines, a result without dialogs has none.
        let old = json!({"type": "dispatch", "action_id": "a", "tab_id": 1, "action": "x", "parameters": {}});
        match serde_json::from_value::<DaemonMessage>(old).expect("old dispatch") {
            DaemonMessage::Dispatch { accept_confirm, .. } => assert!(!accept_confirm),
            other => panic!("{other:?}"),
        }
        let done: DispatchOutcome =
            serde_json::from_value(json!({"status": "done", "value": 1})).expect("old done");
        assert_eq!(
            done,
            DispatchOutcome::Done {
                value: json!(1),
                dialogs: Vec::new()
            }
        );
        // And none is written when there is none.
        assert_eq!(
            serde_json::to_value(&done).expect("json"),
            json!({"status": "done", "value": 1})
        );
        let with: DispatchOutcome = serde_json::from_value(json!({"status": "done", "value": null, "dialogs": [{"kind": "confirm", "message": "Sure?", "accepted": true}]})).expect("done with dialogs");
        let DispatchOutcome::Done { dialogs, .. } = with else {
            panic!("done")
        };
        assert_eq!(dialogs[0].kind, DialogKind::Confirm);
        assert!(dialogs[0].accepted);
    }

    #[test]
    fn failure_names_are_the_wire_names() {
        for code in DispatchFailure::ALL {
            assert_eq!(
                serde_json::to_value(code).expect("json"),
                json!(code.as_str())
            );
        }
        let names: std::collections::BTreeSet<_> =
            DispatchFailure::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(
            names.len(),
            DispatchFailure::ALL.len(),
            "ALL lists each code once"
        );
    }

    #[test]
    fn a_tab_delta_keeps_its_wire_shape() {
        // The delta's fields sit beside `type` and `tab_id`, as the extension sends them.
        let wire = json!({"type": "tab_delta", "tab_id": 7, "changed": {"a": 1}, "removed": ["b"], "confidence": 0.5});
        let msg: ExtensionMessage = serde_json::from_value(wire.clone()).expect("tab_delta");
        let ExtensionMessage::TabDelta { tab_id, delta } = &msg else {
            panic!("{msg:?}")
        };
        assert_eq!(*tab_id, 7);
        assert_eq!(delta.changed["a"], json!(1));
        assert_eq!(delta.removed, vec!["b".to_string()]);
        assert_eq!(delta.confidence, Some(0.5));
        assert!(delta.actions.is_none() && delta.probe_metadata.is_none());
        assert_eq!(serde_json::to_value(&msg).expect("json"), wire);
        // A bare delta (hand-made, e.g. by the benchmark's fake tabs) needs no body.
        let bare: ExtensionMessage =
            serde_json::from_value(json!({"type": "tab_delta", "tab_id": 1})).expect("bare");
        assert_eq!(
            bare,
            ExtensionMessage::TabDelta {
                tab_id: 1,
                delta: TabDelta::default()
            }
        );
    }

    #[test]
    fn tab_operations_have_their_wire_names() {
        let open = DaemonMessage::OpenTab {
            request_id: "r1".into(),
            url: "http://127.0.0.1:1/".into(),
            group: None,
        };
        assert_eq!(
            serde_json::to_value(&open).expect("json"),
            json!({"type": "open_tab", "request_id": "r1", "url": "http://127.0.0.1:1/"})
        );
        let close = DaemonMessage::CloseTab {
            request_id: "r2".into(),
            tab_id: 7,
        };
        assert_eq!(
            serde_json::to_value(&close).expect("json"),
            json!({"type": "close_tab", "request_id": "r2", "tab_id": 7})
        );
        let failed: ExtensionMessage = serde_json::from_value(
            json!({"type": "tab_op_result", "request_id": "r1", "error": "no"}),
        )
        .expect("result without a tab");
        assert_eq!(
            failed,
            ExtensionMessage::TabOpResult {
                request_id: "r1".into(),
                tab_id: None,
                error: Some("no".into())
            }
        );
    }
}

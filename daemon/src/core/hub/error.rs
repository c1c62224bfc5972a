//! Why the hub could not answer: domain errors, without words for agents. The agent
//! API turns them into its errors (`impl From<HubError> for CoreError` in `error.rs`),
//! where every message an agent reads is written.

use std::time::Duration;

use nsp_protocol::ProbeStatus;

/// A question about a tab the hub could not answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HubError {
    /// No tab has this pid.
    #[error("no tab has pid {0}")]
    UnknownPid(u64),
    /// No tab has this app_id.
    #[error("no tab has app_id {0:?}")]
    UnknownAppId(String),
    /// A pid and an app_id were given and name different tabs.
    #[error("pid {pid} is the tab {actual:?}, not app_id {app_id:?}")]
    AppIdMismatch {
        pid: u64,
        actual: String,
        app_id: String,
    },
    /// Neither a pid nor an app_id was given.
    #[error("no tab named")]
    NoTabNamed,
    /// The tab's connection is gone (the browser or the extension went away).
    #[error("the probe of tab {0} is not connected")]
    Detached(u64),
    /// The tab is connected but has sent no capture yet.
    #[error("tab {pid} has no capture yet (probe status {status:?})")]
    NotReady {
        pid: u64,
        status: ProbeStatus,
        /// What the extension said about the tab's probe, if anything.
        why: Option<String>,
    },
    /// A fresh capture was asked for and did not arrive in time.
    #[error("no fresh capture within {0:?}")]
    CaptureTimeout(Duration),
}

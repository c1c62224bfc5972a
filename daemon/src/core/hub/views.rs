//! What the agent API reads from the hub: tab summaries, a tab's current state (and
//! the cached JSON body `GET /state` sends), the last two captures and the probe's
//! explanations.

use std::collections::BTreeMap;
use std::sync::Arc;

use bytes::Bytes;
use nsp_protocol::api::AppSummary;
use nsp_protocol::{ActionExplain, SubstrateState};

use super::registry::Tab;
use super::{Hub, HubError};
use crate::core::util::host_of;

impl Hub {
    /// Summaries of every known tab, by pid.
    pub fn list(&self) -> Vec<AppSummary> {
        let inner = self.lock();
        inner.tabs.values().map(summarize).collect()
    }

    /// One tab's summary.
    pub fn summary(&self, pid: u64) -> Option<AppSummary> {
        self.lock().tabs.get(&pid).map(summarize)
    }

    /// The tab's current state, or the reason there is none.
    pub fn state(&self, pid: u64) -> Result<SubstrateState, HubError> {
        let shared = self.shared_state(pid)?;
        Ok(SubstrateState::clone(&shared))
    }

    /// The tab's current state by reference (copied by the caller, outside the lock).
    pub fn shared_state(&self, pid: u64) -> Result<Arc<SubstrateState>, HubError> {
        let inner = self.lock();
        let tab = inner.tabs.get(&pid).ok_or(HubError::UnknownPid(pid))?;
        current(tab).cloned()
    }

    /// The tab's current state as the JSON body `GET /state` sends (the bytes of
    /// [`crate::door::http::json_bytes`] of [`Hub::state`]), or the same error. Serialized
    /// once per capture: under 1,000 readers and a stream of deltas, reads then cost a
    /// lookup and a reference count instead of a clone and a serialization each.
    pub fn state_json(&self, pid: u64) -> Result<Bytes, HubError> {
        let (state, generation) = {
            let inner = self.lock();
            let tab = inner.tabs.get(&pid).ok_or(HubError::UnknownPid(pid))?;
            let state = current(tab)?;
            if let Some(bytes) = &tab.current_json {
                return Ok(bytes.clone());
            }
            (state.clone(), tab.generation)
        };
        // Serialized outside the lock: other tabs' readers and deltas need not wait.
        let bytes = crate::core::util::json_bytes(&*state);
        if let Some(tab) = self.lock().tabs.get_mut(&pid) {
            if tab.generation == generation {
                tab.current_json = Some(bytes.clone());
            }
        }
        Ok(bytes)
    }

    /// The tab's previous and current state, when there are two captures.
    pub fn last_two(&self, pid: u64) -> Option<(SubstrateState, SubstrateState)> {
        let inner = self.lock();
        let tab = inner.tabs.get(&pid)?;
        let (previous, current) = (tab.previous.clone()?, tab.current.clone()?);
        drop(inner);
        Some((
            SubstrateState::clone(&previous),
            SubstrateState::clone(&current),
        ))
    }

    /// Why the probe classified each action of the tab's current capture.
    pub fn explain(&self, pid: u64) -> Option<Arc<BTreeMap<String, ActionExplain>>> {
        self.lock().tabs.get(&pid).map(|t| t.explain.clone())
    }
}

/// The tab's current state, if it is connected and has one.
fn current(tab: &Tab) -> Result<&Arc<SubstrateState>, HubError> {
    if tab.conn.is_none() {
        return Err(HubError::Detached(tab.pid));
    }
    tab.current.as_ref().ok_or_else(|| HubError::NotReady {
        pid: tab.pid,
        status: tab.status,
        why: tab.message.clone(),
    })
}

fn summarize(tab: &Tab) -> AppSummary {
    let state = tab.current.as_ref();
    AppSummary {
        pid: tab.pid,
        app_id: tab.app_id.clone(),
        app_name: state
            .map(|s| s.app_name.clone())
            .or_else(|| tab.title.clone().filter(|t| !t.is_empty()))
            .or_else(|| tab.url.as_deref().and_then(host_of).map(str::to_owned))
            .unwrap_or_else(|| format!("tab {}", tab.tab_id)),
        runtime: "v8".into(),
        runtime_name: tab.browser.clone(),
        probe_status: tab.status,
        probe_message: tab.message.clone(),
        confidence: state.map_or(0.0, |s| s.confidence),
        object_count: state.map_or(0, |s| s.objects.len() as u64),
        action_count: state.map_or(0, |s| s.actions.len() as u64),
        last_captured_at: state.map(|s| s.captured_at.clone()),
        has_state: state.is_some(),
        current_view: state.and_then(|s| s.context.view.clone()),
        current_url: tab.url.clone(),
    }
}

//! What the person sees of the agents (the popup): each agent other than the default
//! one, its tab group, its scope in words, the tabs it owns or was shared in one browser
//! session, and its last actions ([`crate::core::agents::LastActions`]).

use nsp_protocol::channel::AgentView;

use crate::core::agents::{AgentAsk, TabsScope};
use crate::core::app::AppState;

/// The agents as the popup of browser session `instance_id` shows them.
pub fn views(state: &AppState, instance_id: &str) -> Vec<AgentView> {
    let claims = state.owners.all();
    let prefix = format!("{instance_id}/");
    state
        .agents
        .list()
        .into_iter()
        .map(|r| {
            let mut owned_tabs = Vec::new();
            let mut shared_tabs = Vec::new();
            for (key, c) in &claims {
                let Some(tab_id) = key
                    .strip_prefix(&prefix)
                    .and_then(|t| t.parse::<i64>().ok())
                else {
                    continue;
                };
                if c.owner.as_deref() == Some(r.name.as_str()) {
                    owned_tabs.push(tab_id);
                }
                if c.shared_with.contains(&r.name) {
                    shared_tabs.push(tab_id);
                }
            }
            let s = &r.scope;
            let origins = if s.origins.is_empty() {
                "every origin".to_owned()
            } else {
                s.origins
                    .iter()
                    .map(|o| o.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let tabs = match s.tabs {
                TabsScope::Own => "its own tabs",
                TabsScope::Shared => "its own and shared tabs",
                TabsScope::All => "every tab",
            };
            let ask = match s.ask {
                AgentAsk::BelowFloor => "asks you below the floor",
                AgentAsk::Always => "asks you before every write",
                AgentAsk::Never => "never asks you",
            };
            AgentView {
                group: crate::core::agents::group_of(&r.name),
                scope: format!("{origins}; up to {}; {tabs}; {ask}", s.max_tier.as_str()),
                last_actions: state.last_actions.of(&r.name),
                name: r.name,
                owned_tabs,
                shared_tabs,
            }
        })
        .collect()
}

//! The first step of every request's trip, whichever door it came through: the key
//! names an agent ([`crate::core::agents`]), the agent's rate limits apply, and its scope
//! decides what exists for it (tabs outside it are not there: the same answer as a tab
//! that does not exist), what it may run, where it may go, and whether another agent's
//! lease keeps it off a tab. Every door calls these, so a scope holds for HTTP, `/watch`
//! and MCP alike (docs/safety.md, "Several agents").

use std::sync::Arc;

use nsp_protocol::api::AppSummary;
use nsp_protocol::Reversibility;

use crate::core::agents::{Agent, TabsScope};
use crate::core::app::AppState;
use crate::core::codes;
use crate::core::error::CoreError;
use crate::core::hub::HubError;
use crate::core::ratelimit::Bucket;

/// The key, then the agent's rate limit for `bucket`.
pub fn guard(
    state: &AppState,
    presented: Option<&str>,
    bucket: Bucket,
) -> Result<Arc<Agent>, CoreError> {
    let agent = authenticate(state, presented)?;
    limit(state, &agent, bucket)?;
    Ok(agent)
}

/// The agent's rate limits for `bucket` (MCP checks them per tool call: one HTTP
/// request there may be any tool): the daemon's per-key limit, then for actions the
/// agent's own `--actions-per-minute`.
pub fn limit(state: &AppState, agent: &Agent, bucket: Bucket) -> Result<(), CoreError> {
    let mut checked = state.limits.check(bucket, &agent.key_id);
    if let (Ok(()), Bucket::Actions, Some(n)) = (&checked, bucket, agent.scope.actions_per_minute) {
        checked = state.limits.check_own(&agent.key_id, n);
    }
    if let Err(wait) = checked {
        let secs = wait.as_secs_f64().ceil().max(1.0) as u64;
        return Err(CoreError::new(
            codes::RATE_LIMITED,
            format!(
                "Too many {} for this key. Retry in {} ms.",
                if bucket == Bucket::Actions {
                    "actions"
                } else {
                    "reads"
                },
                wait.as_millis()
            ),
        )
        .with("retry_after_ms", wait.as_millis() as u64)
        .retry_after(secs));
    }
    Ok(())
}

/// The agent whose key the request presented (each door knows where it travels). With
/// `[auth] require_key` off, a request without a known key is the default agent's.
pub fn authenticate(state: &AppState, presented: Option<&str>) -> Result<Arc<Agent>, CoreError> {
    let presented = presented.filter(|k| !k.is_empty());
    if let Some(key) = presented {
        if state.key.matches(key) {
            return Ok(state.agents.default_agent());
        }
        if let Some(agent) = state.agents.by_key(key) {
            return Ok(agent);
        }
    }
    if !state.settings.require_key {
        return Ok(state.agents.default_agent());
    }
    Err(match presented {
        None => CoreError::new(codes::MISSING_KEY,
            "This route needs the agent key in the X-Substrate-Key header (or Authorization: Bearer). `nspd token` prints it.",
        ),
        Some(_) => CoreError::new(codes::INVALID_KEY,
            "The agent key is wrong or was revoked. `nspd token` prints the default one; `nspd agents list` shows the others.",
        ),
    })
}

/// Refuses an agent revoked since its request came in (checked again before anything
/// is sent to a page, and after a person answered).
pub fn still_current(state: &AppState, agent: &Agent) -> Result<(), CoreError> {
    if state.agents.is_current(agent) {
        return Ok(());
    }
    Err(CoreError::new(
        codes::INVALID_KEY,
        format!(
            "The agent {:?} was revoked while this request waited; nothing was sent to the page.",
            agent.name
        ),
    ))
}

/// Whether tab `pid` exists for `agent`: in its origins, and its own, shared with it or
/// any tab, as its `tabs` scope says.
pub fn sees(state: &AppState, agent: &Agent, pid: u64) -> bool {
    let scope = &agent.scope;
    if scope.origins.is_empty() && scope.tabs == TabsScope::All {
        return state.hub.identity(pid).is_some();
    }
    let Some((instance_id, tab_id, url)) = state.hub.identity(pid) else {
        return false;
    };
    if !scope.allows_url(url.as_deref()) {
        return false;
    }
    match scope.tabs {
        TabsScope::All => true,
        TabsScope::Own => state.owners.holds(&instance_id, tab_id, &agent.name, false),
        TabsScope::Shared => state.owners.holds(&instance_id, tab_id, &agent.name, true),
    }
}

/// Tab `pid`, if it exists for `agent`; otherwise the answer for a tab that does not
/// exist, so a scope tells nothing about the tabs outside it.
pub fn tab(state: &AppState, agent: &Agent, pid: u64) -> Result<u64, CoreError> {
    if sees(state, agent, pid) {
        Ok(pid)
    } else {
        Err(HubError::UnknownPid(pid).into())
    }
}

/// The tab a request names by pid or app_id, among those that exist for `agent`.
pub fn resolve(
    state: &AppState,
    agent: &Agent,
    pid: Option<u64>,
    app_id: Option<&str>,
) -> Result<u64, CoreError> {
    match (pid, app_id) {
        (None, Some(app_id)) => state
            .hub
            .list()
            .into_iter()
            .find(|t| t.app_id == app_id && sees(state, agent, t.pid))
            .map(|t| t.pid)
            .ok_or_else(|| HubError::UnknownAppId(app_id.to_owned()).into()),
        _ => {
            let pid = state.hub.resolve(pid, app_id)?;
            tab(state, agent, pid)
        }
    }
}

/// The tabs that exist for `agent`.
pub fn tabs(state: &AppState, agent: &Agent) -> Vec<AppSummary> {
    let mut list = state.hub.list();
    list.retain(|t| sees(state, agent, t.pid));
    list
}

/// Whether `agent` may run an action of `tier` on tab `pid`: its `max-tier`, then
/// another agent's lease on the tab (reads pass a lease). A person's approval cannot
/// lift either: this runs before anyone is asked.
pub fn may_run(
    state: &AppState,
    agent: &Agent,
    pid: u64,
    action: &str,
    tier: Reversibility,
) -> Result<(), CoreError> {
    if !agent.scope.allows_tier(tier) {
        return Err(CoreError::new(
            codes::SCOPE_DENIED,
            format!(
                "{action} is {} and the agent {:?} may run at most {} (its max-tier scope). A person's approval cannot lift a scope; `nspd agents` sets it.",
                tier.as_str(),
                agent.name,
                agent.scope.max_tier.as_str()
            ),
        )
        .with("scope", "max_tier")
        .with("max_tier", agent.scope.max_tier.as_str())
        .with("reversibility", tier.as_str()));
    }
    if tier != Reversibility::Read {
        state.leases.check(&state.agents, agent, pid)?;
    }
    Ok(())
}

/// Whether `agent` may send a tab to `url` (navigating, or opening a tab there).
pub fn may_go(agent: &Agent, url: &str) -> Result<(), CoreError> {
    if agent.scope.allows_url(Some(url)) {
        return Ok(());
    }
    Err(CoreError::new(
        codes::SCOPE_DENIED,
        format!(
            "{url:?} is outside the origins of the agent {:?} ({}). `nspd agents` sets them.",
            agent.name,
            agent
                .scope
                .origins
                .iter()
                .map(|o| o.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    )
    .with("scope", "origins"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::pipeline::tests::state;

    #[test]
    fn the_guard_limits_each_bucket_and_says_when_to_retry() {
        let dir = tempfile::tempdir().expect("tempdir");
        let s = state(dir.path(), false, 1);
        let none: Option<&str> = None;
        // No key needed when [auth] require_key is off.
        guard(&s, none, Bucket::Actions).expect("the first action passes");
        let err = guard(&s, none, Bucket::Actions).expect_err("the second is over the limit");
        assert_eq!(err.code, codes::RATE_LIMITED);
        assert!(
            err.details["retry_after_ms"].as_u64().is_some(),
            "{:?}",
            err.details
        );
        assert!(err.retry_after_secs.is_some());
        // Reads have their own bucket.
        guard(&s, none, Bucket::StateReads).expect("a read still passes");
        let default = s.agents.default_agent();
        assert_eq!(
            limit(&s, &default, Bucket::Actions).err().map(|e| e.code),
            Some(codes::RATE_LIMITED)
        );
    }

    #[test]
    fn keys_name_agents_and_each_agent_has_its_own_bucket() {
        use crate::core::agents::{AgentAsk, Scope};
        let dir = tempfile::tempdir().expect("tempdir");
        let s = state(dir.path(), true, 1);
        let path = s
            .agents
            .add(
                "reader",
                Scope {
                    origins: vec!["http://127.0.0.1:9".parse().expect("origin")],
                    max_tier: Reversibility::Read,
                    tabs: TabsScope::All,
                    ask: AgentAsk::Never,
                    actions_per_minute: None,
                },
            )
            .expect("add");
        let key = std::fs::read_to_string(path).expect("key");
        let reader = guard(&s, Some(key.trim()), Bucket::Actions).expect("the reader's key");
        assert_eq!(reader.name, "reader");
        let default = guard(&s, Some(s.key.reveal()), Bucket::Actions).expect("default key");
        assert!(
            default.is_default(),
            "its own bucket: not limited by the reader's"
        );
        assert_eq!(
            authenticate(&s, Some("nope")).err().map(|e| e.code),
            Some(codes::INVALID_KEY)
        );
        assert_eq!(
            authenticate(&s, None).err().map(|e| e.code),
            Some(codes::MISSING_KEY)
        );
        let denied = may_run(&s, &reader, 1, "save", Reversibility::ReversibleWrite)
            .expect_err("above its tier");
        assert_eq!(denied.code, codes::SCOPE_DENIED);
        assert!(denied.message.contains("max-tier"), "{}", denied.message);
        assert!(may_go(&reader, "http://127.0.0.1:9/x").is_ok());
        assert_eq!(
            may_go(&reader, "http://127.0.0.1:10/x")
                .err()
                .map(|e| e.code),
            Some(codes::SCOPE_DENIED)
        );
        assert!(s.agents.revoke("reader").expect("revoke"));
        assert_eq!(
            still_current(&s, &reader).err().map(|e| e.code),
            Some(codes::INVALID_KEY)
        );
        assert!(still_current(&s, &default).is_ok());
    }
}

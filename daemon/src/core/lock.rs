//! The step of an action's trip that takes the tab's action lock: one action at a time
//! per tab (the person is asked, when they are, with the lock already held).

use tokio::sync::OwnedMutexGuard;

use crate::core::app::AppState;
use crate::core::codes;
use crate::core::error::CoreError;

/// Takes tab `pid`'s action lock: one action at a time per tab. Waits at most
/// `action_lock_timeout` for an action already running there.
pub async fn lock_tab(state: &AppState, pid: u64) -> Result<OwnedMutexGuard<()>, CoreError> {
    let lock = state
        .hub
        .action_lock(pid)
        .ok_or_else(|| CoreError::pid_not_found(&format!("pid {pid}")))?;
    let limit = state.settings.action_lock_timeout;
    tokio::time::timeout(limit, lock.lock_owned())
        .await
        .map_err(|_| {
            CoreError::new(
                codes::PROBE_TIMEOUT,
                format!(
                    "Another action on tab {pid} has been running for over {} ms; this one was not sent. Retry later.",
                    limit.as_millis()
                ),
            )
        })
}

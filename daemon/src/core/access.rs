//! The first step of a request's trip: the agent key, then the key's rate limit.

use crate::core::app::AppState;
use crate::core::codes;
use crate::core::error::CoreError;
use crate::core::ratelimit::Bucket;

/// The first step of every authenticated request, whichever door it came through: the
/// agent key, then the key's rate limit for `bucket`.
pub fn guard(state: &AppState, presented: Option<&str>, bucket: Bucket) -> Result<(), CoreError> {
    authenticate(state, presented)?;
    limit(state, bucket)
}

/// The key's rate limit for `bucket` (MCP checks it per tool call: one HTTP request
/// there may be any tool).
pub fn limit(state: &AppState, bucket: Bucket) -> Result<(), CoreError> {
    if let Err(wait) = state.limits.check(bucket, &state.key_id) {
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

/// Checks the agent key the request presented (each door knows where it travels).
pub fn authenticate(state: &AppState, presented: Option<&str>) -> Result<(), CoreError> {
    if !state.settings.require_key {
        return Ok(());
    }
    match presented {
        None | Some("") => Err(CoreError::new(codes::MISSING_KEY,
            "This route needs the agent key in the X-Substrate-Key header (or Authorization: Bearer). `nspd token` prints it.",
        )),
        Some(key) if state.key.matches(key) => Ok(()),
        Some(_) => Err(CoreError::new(codes::INVALID_KEY,
            "The agent key is wrong. `nspd token` prints the current one.",
        )),
    }
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
        assert_eq!(
            limit(&s, Bucket::Actions).err().map(|e| e.code),
            Some(codes::RATE_LIMITED)
        );
    }
}

//! Per-key token buckets (governor): actions and state reads are limited separately.

use std::num::NonZeroU32;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultDirectRateLimiter, DefaultKeyedRateLimiter, Quota, RateLimiter};

/// Which bucket a request draws from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bucket {
    Actions,
    StateReads,
}

/// The limiters.
#[derive(Debug)]
pub struct Limits {
    actions: DefaultKeyedRateLimiter<String>,
    reads: DefaultKeyedRateLimiter<String>,
    /// Agents with their own `--actions-per-minute`: one bucket each, by key id, with
    /// the quota it was made for (a changed quota makes a new bucket).
    own: std::sync::Mutex<std::collections::HashMap<String, (u32, DefaultDirectRateLimiter)>>,
    clock: DefaultClock,
}

impl Limits {
    pub fn new(actions_per_sec: u32, reads_per_sec: u32) -> Limits {
        let quota =
            |n: u32| Quota::per_second(NonZeroU32::new(n.max(1)).unwrap_or(NonZeroU32::MIN));
        Limits {
            actions: RateLimiter::keyed(quota(actions_per_sec)),
            reads: RateLimiter::keyed(quota(reads_per_sec)),
            own: Default::default(),
            clock: DefaultClock::default(),
        }
    }

    /// `Ok` when the request may go on, else how long to wait.
    pub fn check(&self, bucket: Bucket, key_id: &str) -> Result<(), Duration> {
        let limiter = match bucket {
            Bucket::Actions => &self.actions,
            Bucket::StateReads => &self.reads,
        };
        limiter.check_key(&key_id.to_owned()).map_err(|not_until| {
            not_until
                .wait_time_from(self.clock.now())
                .max(Duration::from_millis(1))
        })
    }
}

impl Limits {
    /// An agent's own ceiling of `per_minute` actions (besides [`Limits::check`]'s).
    pub fn check_own(&self, key_id: &str, per_minute: u32) -> Result<(), Duration> {
        let mut own = self.own.lock().unwrap_or_else(|e| e.into_inner());
        let fresh = || {
            let n = NonZeroU32::new(per_minute.max(1)).unwrap_or(NonZeroU32::MIN);
            (per_minute, RateLimiter::direct(Quota::per_minute(n)))
        };
        let entry = own.entry(key_id.to_owned()).or_insert_with(fresh);
        if entry.0 != per_minute {
            *entry = fresh();
        }
        entry.1.check().map_err(|not_until| {
            not_until
                .wait_time_from(self.clock.now())
                .max(Duration::from_millis(1))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_over_the_quota_is_refused_with_a_wait() {
        let limits = Limits::new(3, 100);
        for _ in 0..3 {
            assert!(limits.check(Bucket::Actions, "k").is_ok());
        }
        let wait = limits.check(Bucket::Actions, "k").expect_err("limited");
        assert!(
            wait > Duration::ZERO && wait <= Duration::from_secs(1),
            "{wait:?}"
        );
        // Reads and other keys have their own buckets.
        assert!(limits.check(Bucket::StateReads, "k").is_ok());
        assert!(limits.check(Bucket::Actions, "other").is_ok());
    }

    #[test]
    fn an_agents_own_ceiling_is_per_minute_and_its_own() {
        let limits = Limits::new(100, 100);
        assert!(limits.check_own("a", 2).is_ok());
        assert!(limits.check_own("a", 2).is_ok());
        let wait = limits.check_own("a", 2).expect_err("third in a minute");
        assert!(wait > Duration::from_secs(1), "{wait:?}");
        assert!(limits.check_own("b", 2).is_ok(), "another agent's bucket");
    }
}

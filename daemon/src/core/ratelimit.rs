//! Per-key token buckets (governor): actions and state reads are limited separately.

use std::num::NonZeroU32;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

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
    clock: DefaultClock,
}

impl Limits {
    pub fn new(actions_per_sec: u32, reads_per_sec: u32) -> Limits {
        let quota =
            |n: u32| Quota::per_second(NonZeroU32::new(n.max(1)).unwrap_or(NonZeroU32::MIN));
        Limits {
            actions: RateLimiter::keyed(quota(actions_per_sec)),
            reads: RateLimiter::keyed(quota(reads_per_sec)),
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
}

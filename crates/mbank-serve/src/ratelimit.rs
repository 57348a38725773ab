//! The Memory Bank MCP spec's rate limits: so many operations (REST requests, MCP tool
//! calls) per minute and per hour for each caller (its API key, or its address without
//! keys), in fixed windows aligned to the clock, with the `X-RateLimit-*` figures.
use std::collections::HashMap;
use std::net::IpAddr;

use parking_lot::Mutex;

/// What one request may do, and the figures for its headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verdict {
    pub allowed: bool,
    /// `X-RateLimit-Limit`: requests per minute.
    pub limit: u32,
    /// `X-RateLimit-Remaining`: what is left in the tighter of the two windows.
    pub remaining: u32,
    /// `X-RateLimit-Reset`: Unix time when the window that limits next starts over.
    pub reset: u64,
    /// Seconds to wait before retrying, when refused.
    pub retry_after: u64,
}

#[derive(Debug, Clone, Copy, Default)]
struct Windows {
    minute: u64,
    minute_count: u32,
    hour: u64,
    hour_count: u32,
}

/// Counts per caller. Callers idle for an hour are forgotten, so the map stays bounded.
#[derive(Debug)]
pub(crate) struct RateLimiter {
    per_minute: u32,
    per_hour: u32,
    callers: Mutex<HashMap<String, Windows>>,
}

/// Callers remembered before idle ones are dropped.
const PRUNE_AT: usize = 10_000;

impl RateLimiter {
    pub fn new(per_minute: u32, per_hour: u32) -> RateLimiter {
        RateLimiter {
            per_minute,
            per_hour,
            callers: Mutex::new(HashMap::new()),
        }
    }

    /// Counts one request of `caller` at Unix time `now` (seconds).
    pub fn check(&self, caller: &str, now: u64) -> Verdict {
        self.check_n(caller, now, 1)
    }

    /// Counts `n` operations of `caller` at once: all are allowed or none is. With `n` = 0
    /// nothing is counted, and the verdict gives the figures for the headers.
    pub(crate) fn check_n(&self, caller: &str, now: u64, n: u32) -> Verdict {
        let minute = now / 60;
        let hour = now / 3600;
        let mut callers = self.callers.lock();
        if callers.len() >= PRUNE_AT && !callers.contains_key(caller) {
            callers.retain(|_, w| w.hour == hour);
        }
        let windows = callers.entry(caller.to_string()).or_default();
        if windows.minute != minute {
            windows.minute = minute;
            windows.minute_count = 0;
        }
        if windows.hour != hour {
            windows.hour = hour;
            windows.hour_count = 0;
        }
        let minute_reset = (minute + 1) * 60;
        let hour_reset = (hour + 1) * 3600;
        let fits = |count: u32, limit: u32| count.saturating_add(n) <= limit;
        let minute_fits = fits(windows.minute_count, self.per_minute);
        let hour_fits = fits(windows.hour_count, self.per_hour);
        let allowed = minute_fits && hour_fits;
        if allowed {
            windows.minute_count += n;
            windows.hour_count += n;
        }
        let minute_left = self.per_minute.saturating_sub(windows.minute_count);
        let hour_left = self.per_hour.saturating_sub(windows.hour_count);
        // The window that limits next: the hour once it is used up (or is what refused).
        let reset = if hour_left == 0 || (!allowed && !hour_fits) {
            hour_reset
        } else {
            minute_reset
        };
        Verdict {
            allowed,
            limit: self.per_minute,
            remaining: minute_left.min(hour_left),
            reset,
            retry_after: if allowed {
                0
            } else {
                reset.saturating_sub(now).max(1)
            },
        }
    }
}

/// Failed authentications per client address: after `limit` failures within a window of
/// `window` seconds (counted from the first), every request of that address is refused
/// until the window ends, so keys cannot be guessed at speed.
#[derive(Debug)]
pub(crate) struct AuthFailures {
    limit: u32,
    window: u64,
    clients: Mutex<HashMap<IpAddr, (u64, u32)>>,
}

impl AuthFailures {
    pub fn new(limit: u32, window: u64) -> AuthFailures {
        AuthFailures {
            limit: limit.max(1),
            window: window.max(1),
            clients: Mutex::new(HashMap::new()),
        }
    }

    /// Seconds `client` must wait at Unix time `now`, when it is locked out.
    pub(crate) fn locked_out(&self, client: IpAddr, now: u64) -> Option<u64> {
        let clients = self.clients.lock();
        let (start, count) = *clients.get(&client)?;
        let end = start + self.window;
        (count >= self.limit && now < end).then(|| (end - now).max(1))
    }

    /// Counts one failed authentication of `client` at `now`.
    pub fn failed(&self, client: IpAddr, now: u64) {
        let mut clients = self.clients.lock();
        if clients.len() >= PRUNE_AT && !clients.contains_key(&client) {
            let window = self.window;
            clients.retain(|_, (start, _)| *start + window > now);
        }
        let entry = clients.entry(client).or_insert((now, 0));
        if now >= entry.0 + self.window {
            *entry = (now, 0);
        }
        entry.1 = entry.1.saturating_add(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failed_authentications_lock_an_address_out_until_the_window_ends() {
        let failures = AuthFailures::new(3, 60);
        let (a, b): (IpAddr, IpAddr) = ("127.0.0.1".parse().unwrap(), "::1".parse().unwrap());
        for t in 0..3 {
            assert_eq!(failures.locked_out(a, 1000 + t), None);
            failures.failed(a, 1000 + t);
        }
        assert_eq!(failures.locked_out(a, 1003), Some(57));
        assert_eq!(failures.locked_out(b, 1003), None);
        assert_eq!(failures.locked_out(a, 1060), None);
        failures.failed(a, 1060);
        assert_eq!(failures.locked_out(a, 1061), None);
    }

    #[test]
    fn a_request_that_panics_holding_the_counts_leaves_them_usable() {
        let limiter = RateLimiter::new(2, 100);
        let failures = AuthFailures::new(1, 60);
        let a: IpAddr = "127.0.0.1".parse().unwrap();
        let t = 1_700_000_000 / 3600 * 3600;
        assert!(limiter.check("k", t).allowed);
        let request = std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    let _callers = limiter.callers.lock();
                    let _clients = failures.clients.lock();
                    panic!("a request fails while holding the counts");
                })
                .join()
        });
        assert!(request.is_err());
        // The counts made before the panic still hold.
        let last = limiter.check("k", t + 1);
        assert!(last.allowed && last.remaining == 0);
        assert!(!limiter.check("k", t + 2).allowed);
        failures.failed(a, t);
        assert_eq!(failures.locked_out(a, t + 1), Some(59));
    }

    #[test]
    fn minute_and_hour_windows() {
        let limiter = RateLimiter::new(3, 5);
        let t = 1_700_000_000 / 3600 * 3600; // the start of an hour
        let remaining: Vec<u32> = (0..3).map(|_| limiter.check("k", t).remaining).collect();
        assert_eq!(remaining, [2, 1, 0]);
        let refused = limiter.check("k", t + 1);
        assert!(!refused.allowed);
        assert_eq!(refused.reset, t + 60);
        assert_eq!(refused.retry_after, 59);
        // Another caller has its own count.
        assert!(limiter.check("other", t).allowed);
        // The next minute allows two more, then the hour is used up.
        assert!(limiter.check("k", t + 60).allowed);
        let last = limiter.check("k", t + 61);
        assert!(last.allowed && last.remaining == 0);
        assert_eq!(last.reset, t + 3600);
        let refused = limiter.check("k", t + 130);
        assert!(!refused.allowed);
        assert_eq!(refused.retry_after, 3600 - 130);
        assert!(limiter.check("k", t + 3600).allowed);
    }

    #[test]
    fn several_operations_count_together_and_zero_only_reports() {
        let limiter = RateLimiter::new(3, 100);
        let t = 1_700_000_000 / 3600 * 3600;
        let peek = limiter.check_n("k", t, 0);
        assert!(peek.allowed && peek.remaining == 3);
        assert!(limiter.check_n("k", t, 2).allowed);
        // Two more do not fit in the one left: neither is counted.
        let refused = limiter.check_n("k", t + 5, 2);
        assert!(!refused.allowed);
        assert_eq!((refused.remaining, refused.retry_after), (1, 55));
        assert!(limiter.check_n("k", t + 5, 1).allowed);
        assert_eq!(limiter.check_n("k", t + 6, 0).remaining, 0);
    }
}

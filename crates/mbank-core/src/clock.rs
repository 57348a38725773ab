//! The time, as an input. Whatever judges or stamps by the time (staleness, "written … ago",
//! rate-limit windows, history retention, proposal times, the demo's ages) asks a [`Clock`]
//! its caller passes: the binary passes the system clock, or one moved to the instant
//! `MBANK_NOW` names; tests pass a fixed one, so no result depends on the day a test runs.
use std::time::{Duration, SystemTime};

use chrono::{DateTime, Local, NaiveDate, Utc};

/// The environment variable that moves the binary's clock: an RFC 3339 instant
/// (`2027-06-01T09:00:00Z`) or a day (`2027-06-01`, midnight UTC). The clock then runs on
/// from that instant at the real rate.
pub const NOW_VARIABLE: &str = "MBANK_NOW";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum ClockKind {
    #[default]
    System,
    /// Always the same instant.
    Fixed(SystemTime),
    /// The system clock moved forward (`ahead`) or back by `by`.
    Shifted { by: Duration, ahead: bool },
}

/// Where the time comes from. Cheap to copy: pass it by value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Clock {
    kind: ClockKind,
}

impl Clock {
    pub fn system() -> Clock {
        Clock {
            kind: ClockKind::System,
        }
    }

    /// A clock that always says `at`.
    pub fn fixed(at: SystemTime) -> Clock {
        Clock {
            kind: ClockKind::Fixed(at),
        }
    }

    /// A clock fixed at midnight UTC of a day; `None` for a day that does not exist.
    pub fn fixed_on(year: i32, month: u32, day: u32) -> Option<Clock> {
        let date = NaiveDate::from_ymd_opt(year, month, day)?;
        let at = date.and_hms_opt(0, 0, 0)?.and_utc();
        Some(Clock::fixed(at.into()))
    }

    /// The system clock moved so that it says `at` now, and runs on from there.
    pub fn starting_at(at: SystemTime) -> Clock {
        let real = SystemTime::now();
        let kind = match at.duration_since(real) {
            Ok(by) => ClockKind::Shifted { by, ahead: true },
            Err(behind) => ClockKind::Shifted {
                by: behind.duration(),
                ahead: false,
            },
        };
        Clock { kind }
    }

    /// The clock [`NOW_VARIABLE`] asks for, or the system clock where it is unset.
    pub fn from_environment() -> Result<Clock, String> {
        match std::env::var(NOW_VARIABLE) {
            Ok(value) => parse_instant(&value)
                .map(Clock::starting_at)
                .ok_or_else(|| {
                    format!(
                        "{NOW_VARIABLE}={value:?} is not a time: give an RFC 3339 instant \
                         (2027-06-01T09:00:00Z) or a day (2027-06-01)"
                    )
                }),
            Err(std::env::VarError::NotPresent) => Ok(Clock::system()),
            Err(std::env::VarError::NotUnicode(_)) => {
                Err(format!("{NOW_VARIABLE} is not valid UTF-8"))
            }
        }
    }

    pub fn now(&self) -> SystemTime {
        match self.kind {
            ClockKind::System => SystemTime::now(),
            ClockKind::Fixed(at) => at,
            ClockKind::Shifted { by, ahead: true } => SystemTime::now()
                .checked_add(by)
                .unwrap_or_else(SystemTime::now),
            ClockKind::Shifted { by, ahead: false } => SystemTime::now()
                .checked_sub(by)
                .unwrap_or_else(SystemTime::now),
        }
    }

    pub fn utc(&self) -> DateTime<Utc> {
        self.now().into()
    }

    pub fn local(&self) -> DateTime<Local> {
        self.now().into()
    }

    /// Today's date in UTC.
    pub fn today(&self) -> NaiveDate {
        self.utc().date_naive()
    }

    /// Seconds since the Unix epoch (0 before it).
    pub fn epoch_seconds(&self) -> u64 {
        self.now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |since| since.as_secs())
    }
}

/// An RFC 3339 instant or a `YYYY-MM-DD` day (midnight UTC).
fn parse_instant(value: &str) -> Option<SystemTime> {
    let value = value.trim();
    if let Ok(instant) = DateTime::parse_from_rfc3339(value) {
        return Some(instant.with_timezone(&Utc).into());
    }
    let day = NaiveDate::parse_from_str(value, "%Y-%m-%d").ok()?;
    Some(day.and_hms_opt(0, 0, 0)?.and_utc().into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fixed_clock_says_its_day() {
        let clock = Clock::fixed_on(2030, 1, 1).unwrap();
        assert_eq!(clock.today(), NaiveDate::from_ymd_opt(2030, 1, 1).unwrap());
        assert_eq!(clock.epoch_seconds(), 1_893_456_000);
        assert_eq!(clock.now(), clock.now());
        assert!(Clock::fixed_on(2026, 2, 30).is_none());
    }

    #[test]
    fn a_clock_started_at_an_instant_runs_on_from_it() {
        let target = parse_instant("2031-03-04T05:06:07Z").unwrap();
        let clock = Clock::starting_at(target);
        let first = clock.now();
        assert!(first >= target);
        assert!(first.duration_since(target).unwrap() < Duration::from_secs(3600));
        assert!(clock.now() >= first);
        let past = parse_instant("2001-01-01").unwrap();
        let behind = Clock::starting_at(past).now();
        assert!(behind >= past && behind.duration_since(past).unwrap() < Duration::from_secs(3600));
    }

    #[test]
    fn instants_and_days_parse_and_nonsense_does_not() {
        assert_eq!(
            parse_instant("2027-06-01"),
            Clock::fixed_on(2027, 6, 1).map(|clock| clock.now())
        );
        assert_eq!(
            parse_instant("2027-06-01T02:00:00+02:00"),
            Clock::fixed_on(2027, 6, 1).map(|clock| clock.now())
        );
        assert_eq!(parse_instant("next tuesday"), None);
        assert_eq!(parse_instant("2027-02-30"), None);
    }
}

//! Dates written in memory files ("Last updated: 2026-11-02", dated entries): found once
//! per file version, when its tokens are counted, and remembered with its figures, so a
//! warm run judges staleness by them without reading the file.
use std::sync::LazyLock;

use chrono::{Datelike, NaiveDate, Utc};
use regex::Regex;
use serde::Serialize;

static DATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(\d{4})[-/](\d{1,2})[-/](\d{1,2})\b|\b(\d{1,2})/(\d{1,2})/(\d{4})\b")
        .unwrap_or_else(|_| unreachable!("the date pattern is a valid constant regex"))
});

/// The newest plausible date written in a text (ISO, `YYYY/MM/DD` or `M/D/YYYY`),
/// ignoring dates after `today` (templates and typos) and before 2000.
pub fn newest_date_in(text: &str, today: NaiveDate) -> Option<NaiveDate> {
    dates_in(text).filter(|d| *d <= today).max()
}

/// Every valid date from 2000 on written in a text (ISO, `YYYY/MM/DD`, `M/D/YYYY`).
fn dates_in(text: &str) -> impl Iterator<Item = NaiveDate> + '_ {
    DATE.captures_iter(text)
        .filter_map(|c| {
            let num = |i: usize| c.get(i).and_then(|m| m.as_str().parse::<u32>().ok());
            let (y, m, d) = match (num(1), num(2), num(3)) {
                (Some(y), Some(m), Some(d)) => (y, m, d),
                _ => (num(6)?, num(4)?, num(5)?),
            };
            NaiveDate::from_ymd_opt(i32::try_from(y).ok()?, m, d)
        })
        .filter(|d| d.year_ce().1 >= 2000)
}

/// Dates written in a text that name no day of the calendar (`2026-30-05`, `2025-02-30`),
/// with their 1-based line: a typo, or a month and day swapped.
pub fn impossible_dates(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if !line.bytes().any(|b| b.is_ascii_digit()) {
            continue;
        }
        for c in DATE.captures_iter(line) {
            let num = |i: usize| c.get(i).and_then(|m| m.as_str().parse::<u32>().ok());
            let (y, m, d) = match (num(1), num(2), num(3)) {
                (Some(y), Some(m), Some(d)) => (y, m, d),
                _ => match (num(6), num(4), num(5)) {
                    (Some(y), Some(m), Some(d)) => (y, m, d),
                    _ => continue,
                },
            };
            if !(2000..=2100).contains(&y) {
                continue;
            }
            let valid = i32::try_from(y)
                .ok()
                .and_then(|y| NaiveDate::from_ymd_opt(y, m, d))
                .is_some();
            if !valid && let Some(whole) = c.get(0) {
                found.push((index + 1, whole.as_str().to_string()));
            }
        }
    }
    found
}

/// Most future dates a file's [`WrittenDates`] remember.
pub const FUTURE_DATES_KEPT: usize = 8;

/// The dates written in a text, in a form that stays right on later days: the newest
/// date up to the day it was read, and the (few) dates after it, which become the
/// newest once their day comes. Cached per file version.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct WrittenDates {
    /// Days since 0001-01-01 (`num_days_from_ce`).
    newest_past: Option<i32>,
    future: Vec<i32>,
}

impl WrittenDates {
    pub fn of(text: &str, today: NaiveDate) -> WrittenDates {
        let mut future: Vec<i32> = dates_in(text)
            .filter(|d| *d > today)
            .map(|d| d.num_days_from_ce())
            .collect();
        future.sort_unstable();
        future.dedup();
        future.truncate(FUTURE_DATES_KEPT);
        WrittenDates {
            newest_past: newest_date_in(text, today).map(|d| d.num_days_from_ce()),
            future,
        }
    }

    /// Days since 0001-01-01 of the newest date up to the day of reading, and of the
    /// (sorted, at most [`FUTURE_DATES_KEPT`]) later ones: how a cache stores them.
    pub fn days(&self) -> (Option<i32>, &[i32]) {
        (self.newest_past, &self.future)
    }

    /// Dates as [`WrittenDates::days`] gave them.
    pub fn from_days(newest_past: Option<i32>, future: &[i32]) -> WrittenDates {
        let mut future = future.to_vec();
        future.truncate(FUTURE_DATES_KEPT);
        WrittenDates {
            newest_past,
            future,
        }
    }

    /// The newest date written that is not after `today`.
    pub fn newest_by(&self, today: NaiveDate) -> Option<NaiveDate> {
        let today = today.num_days_from_ce();
        self.future
            .iter()
            .copied()
            .filter(|d| *d <= today)
            .chain(self.newest_past)
            .max()
            .and_then(NaiveDate::from_num_days_from_ce_opt)
    }
}

/// Today's date in UTC, for `newest_date_in`.
pub fn today() -> NaiveDate {
    Utc::now().date_naive()
}

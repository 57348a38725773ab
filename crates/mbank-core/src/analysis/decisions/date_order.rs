//! The order a file writes its slashed dates in. `a/b/YYYY` alone is read month first
//! where it can be (`3/7/2025` is the 7th of March), but a file that writes `23/06/2026`
//! writes days first, so its `12/06/2026` is the 12th of June too.
use chrono::{Datelike, NaiveDate};

use super::Decision;

/// Each `a/b/YYYY` in `text`, as (a, b).
fn slashed_dates(text: &str) -> impl Iterator<Item = (u32, u32)> + '_ {
    let bytes = text.as_bytes();
    let number_before = move |end: usize| -> Option<(u32, usize)> {
        let start = (0..end)
            .rev()
            .take_while(|&i| bytes[i].is_ascii_digit())
            .last()?;
        if end - start > 2 || (start > 0 && bytes[start - 1].is_ascii_alphanumeric()) {
            return None;
        }
        Some((text[start..end].parse().ok()?, start))
    };
    text.match_indices('/').filter_map(move |(slash, _)| {
        // `b` ends at this slash; the year follows it, `a` and its slash come before.
        let year = bytes.get(slash + 1..slash + 5)?;
        if !year.iter().all(u8::is_ascii_digit)
            || bytes.get(slash + 5).is_some_and(u8::is_ascii_digit)
        {
            return None;
        }
        let (b, b_start) = number_before(slash)?;
        let first_slash = b_start.checked_sub(1).filter(|&i| bytes[i] == b'/')?;
        let (a, _) = number_before(first_slash)?;
        Some((a, b))
    })
}

/// Whether the file writes its slashed dates day first: one has a first part over 12,
/// and none a second part over 12.
pub(super) fn writes_days_first(text: &str) -> bool {
    if !text.contains('/') {
        return false;
    }
    let (mut day_first, mut month_first) = (false, false);
    for (a, b) in slashed_dates(text) {
        day_first |= a > 12 && b <= 12;
        month_first |= b > 12 && a <= 12;
    }
    day_first && !month_first
}

/// Re-reads, day first, the dates of `decisions` that were read month first from a
/// slashed date on their lines (`12/06/2026` read as the 6th of December).
pub(super) fn read_days_first(decisions: &mut [Decision], lines: &[&str]) {
    for decision in decisions {
        let Some(date) = decision.date else {
            continue;
        };
        let (month, day) = (date.month(), date.day());
        if day > 12 || day == month {
            continue;
        }
        let written = [
            format!("{month}/{day}/{}", date.year()),
            format!("{month:02}/{day:02}/{}", date.year()),
        ];
        let from = decision.line.saturating_sub(1);
        let to = decision.end_line.min(lines.len());
        let slashed = lines.get(from..to).is_some_and(|span| {
            span.iter()
                .any(|line| written.iter().any(|w| line.contains(w.as_str())))
        });
        if slashed && let Some(swapped) = NaiveDate::from_ymd_opt(date.year(), day, month) {
            decision.date = Some(swapped);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_day_over_twelve_in_front_makes_the_file_write_days_first() {
        assert!(writes_days_first(
            "| 23/06/2026 | a |\n| 12/06/2026 | b |\n"
        ));
        assert!(!writes_days_first("| 3/7/2025 | a |\n| 12/06/2026 | b |\n"));
        // Both orders in one file: no order is safe to assume.
        assert!(!writes_days_first("23/06/2026 and 06/23/2026"));
        assert!(!writes_days_first(
            "see a/b/2026 and 123/06/2026 and 23/06/20261"
        ));
        assert!(!writes_days_first("no dates"));
    }
}

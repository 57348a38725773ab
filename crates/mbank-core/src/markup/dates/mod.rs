//! Dates written in memory files ("Last updated: 2026-11-02", dated entries): found once
//! per file version, when its tokens are counted, and remembered with its figures, so a
//! warm run judges staleness by them without reading the file.
//!
//! [`plans`] tells which of them name a plan (a due date, a milestone) rather than a write.
use chrono::{Datelike, NaiveDate};
use serde::Serialize;
use std::borrow::Cow;

use crate::markup::markdown;

pub mod named;
pub mod plans;

/// One date-shaped run of digits in a text: `YYYY-MM-DD` or `YYYY/MM/DD` (either
/// separator at either place), or `M/D/YYYY` (`D/M/YYYY` in a text that writes its days
/// first), standing as a word of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct DateMatch {
    start: usize,
    end: usize,
    year: u32,
    month: u32,
    day: u32,
    /// Written `a/b/YYYY`: month first as read, or day first where the text writes its
    /// days first ([`in_the_texts_order`]).
    slashed: bool,
}

impl DateMatch {
    fn is_valid(&self) -> bool {
        i32::try_from(self.year)
            .ok()
            .and_then(|y| NaiveDate::from_ymd_opt(y, self.month, self.day))
            .is_some()
    }

    /// The same date read day first (`16/01/2025`).
    fn day_first(self) -> DateMatch {
        DateMatch {
            month: self.day,
            day: self.month,
            ..self
        }
    }
}

/// `matches` read in the order the text writes its `a/b/YYYY` dates: day first when one
/// of them can only be read that way (`16/01/2025`) and none only month first
/// (`01/16/2025`), as most of the world writes them; month first otherwise.
fn in_the_texts_order(mut matches: Vec<DateMatch>) -> Vec<DateMatch> {
    let slashed = || matches.iter().filter(|m| m.slashed);
    let only_day_first = slashed().any(|m| !m.is_valid() && m.day_first().is_valid());
    let only_month_first = slashed().any(|m| m.is_valid() && !m.day_first().is_valid());
    if only_day_first && !only_month_first {
        for m in matches.iter_mut().filter(|m| m.slashed) {
            *m = m.day_first();
        }
    }
    matches
}

/// Whether a character is part of a word (Unicode's `\w`, save marks): the neighbours a
/// date must not touch.
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The character before byte `at` of `text` (`at` is a char boundary).
fn char_before(text: &str, at: usize) -> Option<char> {
    text[..at].chars().next_back()
}

/// The run of ASCII digits starting at `at`: its end and value (`None` past 9 digits).
fn digit_run(bytes: &[u8], at: usize) -> (usize, Option<u32>) {
    let end = bytes[at..]
        .iter()
        .position(|b| !b.is_ascii_digit())
        .map_or(bytes.len(), |n| at + n);
    let value = (end - at <= 9).then(|| {
        bytes[at..end]
            .iter()
            .fold(0u32, |v, b| v * 10 + u32::from(b - b'0'))
    });
    (end, value)
}

/// Reads `digits sep digits sep digits` from `at`, with the run lengths each part may
/// have and the separators allowed; the end and the three values.
fn date_shape(
    text: &str,
    at: usize,
    lengths: [std::ops::RangeInclusive<usize>; 3],
    separators: &[u8],
) -> Option<(usize, [u32; 3])> {
    let bytes = text.as_bytes();
    let mut values = [0u32; 3];
    let mut position = at;
    for (index, allowed) in lengths.into_iter().enumerate() {
        if index > 0 {
            if !separators.contains(bytes.get(position)?) {
                return None;
            }
            position += 1;
        }
        if !bytes.get(position)?.is_ascii_digit() {
            return None;
        }
        let (end, value) = digit_run(bytes, position);
        if !allowed.contains(&(end - position)) {
            return None;
        }
        values[index] = value?;
        position = end;
    }
    // The last run ends a word: no letter, digit or underscore right after it.
    if text[position..].chars().next().is_some_and(is_word_char) {
        return None;
    }
    Some((position, values))
}

/// Where the first ASCII digit at or after `from` is. Eight bytes are tested at a time:
/// most of a text has no digit, and this runs over every text counted.
fn next_digit(bytes: &[u8], from: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let mut at = from;
    while let Some(chunk) = bytes.get(at..at + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        // A digit becomes a byte below 10; of the bytes the test flags, the lowest is
        // always a true one (a borrow only runs upwards from a byte that is below 10).
        let offsets = u64::from_le_bytes(word) ^ (ONES * u64::from(b'0'));
        let below_ten = offsets.wrapping_sub(ONES * 10) & !offsets & HIGHS;
        if below_ten != 0 {
            return Some(at + (below_ten.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    bytes
        .get(at..)?
        .iter()
        .position(u8::is_ascii_digit)
        .map(|offset| at + offset)
}

/// Every date-shaped word in a text, left to right, without overlaps. A byte scan: the
/// text is walked once, and only a digit that starts a word is looked at more closely.
fn date_matches(text: &str) -> impl Iterator<Item = DateMatch> + '_ {
    let bytes = text.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        while let Some(start) = next_digit(bytes, at) {
            at = start + 1;
            if char_before(text, start).is_some_and(is_word_char) {
                continue;
            }
            let iso = date_shape(text, start, [4..=4, 1..=2, 1..=2], b"-/")
                .map(|(end, [year, month, day])| (end, year, month, day, false));
            let slashed = || {
                date_shape(text, start, [1..=2, 1..=2, 4..=4], b"/")
                    .map(|(end, [month, day, year])| (end, year, month, day, true))
            };
            if let Some((end, year, month, day, slashed)) = iso.or_else(slashed) {
                at = end;
                return Some(DateMatch {
                    start,
                    end,
                    year,
                    month,
                    day,
                    slashed,
                });
            }
        }
        None
    })
}

/// Whether a text is a JSON document (a Memory Bank MCP `.json` bank file): data, whose
/// strings may quote markdown but whose dates are all data.
fn is_json_document(text: &str) -> bool {
    text.trim_start().starts_with(['{', '['])
        && serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
}

/// The text whose dates count, with the same offsets and lines: its prose
/// (`markdown::prose_only`), as dates in code blocks, code spans and HTML comments are
/// examples, not data; all of a JSON document. Borrowed when that is the whole text.
pub fn dated_text(text: &str) -> Cow<'_, str> {
    if !markdown::may_hold_non_prose(text) || is_json_document(text) {
        return Cow::Borrowed(text);
    }
    markdown::prose_only(text)
}

/// The date-shaped words of [`dated_text`], with the text they were found in: its prose,
/// or the text itself where that is the same on every line the plan check reads. The
/// text is parsed only when it holds a date and a code marker before those lines end, so
/// plain prose costs one scan.
fn prose_date_matches(text: &str) -> (Cow<'_, str>, Vec<DateMatch>) {
    let all: Vec<DateMatch> = date_matches(text).collect();
    if all.is_empty() || plans_read_only_prose(text, &all) {
        return (Cow::Borrowed(text), all);
    }
    parsed_prose_date_matches(text, all)
}

/// [`prose_date_matches`] by a parse of the text, `all` being every date-shaped word in it.
fn parsed_prose_date_matches(text: &str, all: Vec<DateMatch>) -> (Cow<'_, str>, Vec<DateMatch>) {
    if let Some((prose, matches)) = remembered_prose(text) {
        return (prose.map_or(Cow::Borrowed(text), Cow::Owned), matches);
    }
    let (prose, matches) = match dated_text(text) {
        Cow::Borrowed(_) => (None, all),
        // Code turned to spaces keeps a date's neighbours non-word characters, as the
        // backticks, fences and `-->` were, so prose dates match as they did.
        Cow::Owned(prose) => {
            let matches = date_matches(&prose).collect();
            (Some(prose), matches)
        }
    };
    remember_prose(text, prose.as_deref(), &matches);
    (prose.map_or(Cow::Borrowed(text), Cow::Owned), matches)
}

/// Whether every date comes before anything that may be code, and so does every line
/// [`plans::planned_at`] reads for them (up to the line after the last date's): the text
/// is its own prose there, and needs no parse. Typical of a file dated at its top.
fn plans_read_only_prose(text: &str, dates: &[DateMatch]) -> bool {
    let Some(last) = dates.last() else {
        return true;
    };
    let line_end = |from: usize| {
        text.get(from..)
            .and_then(|rest| rest.find('\n'))
            .map_or(text.len(), |newline| from + newline + 1)
    };
    line_end(line_end(last.end)) <= markdown::prose_up_to(text)
}

/// The prose of texts with dates (`None`: the text is all prose) and the dates in it,
/// by text, while [`remembering_prose`] runs on this thread.
type ProseMemo = std::collections::HashMap<String, (Option<String>, Vec<DateMatch>)>;

thread_local! {
    static PROSE: std::cell::RefCell<Option<ProseMemo>> = const { std::cell::RefCell::new(None) };
}

/// Runs `work` with the prose of each text with dates worked out once: counting a file
/// finds the dates written in it and validation the impossible ones, and one project's
/// analysis does both on the same text.
pub(crate) fn remembering_prose<T>(work: impl FnOnce() -> T) -> T {
    let outer = PROSE.with(|memo| memo.borrow_mut().replace(ProseMemo::new()));
    let result = work();
    PROSE.with(|memo| *memo.borrow_mut() = outer);
    result
}

fn remembered_prose(text: &str) -> Option<(Option<String>, Vec<DateMatch>)> {
    PROSE.with(|memo| memo.borrow().as_ref()?.get(text).cloned())
}

fn remember_prose(text: &str, prose: Option<&str>, matches: &[DateMatch]) {
    PROSE.with(|memo| {
        if let Some(memo) = memo.borrow_mut().as_mut() {
            memo.insert(
                text.to_string(),
                (prose.map(str::to_string), matches.to_vec()),
            );
        }
    });
}

/// The prose dates that tell when the text was written: those that name a plan (a due
/// date, a milestone ahead) are left out. Judged on the prose, so a `#` line in a code
/// block is no heading.
fn written_date_matches(text: &str) -> Vec<DateMatch> {
    let (prose, matches) = prose_date_matches(text);
    let matches = in_the_texts_order(matches);
    let spans: Vec<(usize, usize)> = matches.iter().map(|m| (m.start, m.end)).collect();
    let planned = plans::planned_at(&prose, &spans);
    matches
        .into_iter()
        .zip(planned)
        .filter_map(|(date, planned)| (!planned).then_some(date))
        .collect()
}

/// The newest plausible date written in a text's prose (ISO, `YYYY/MM/DD`, `M/D/YYYY` or
/// `D/M/YYYY`), ignoring dates after `today` (templates and typos), before 2000, and those
/// that name a plan rather than a write ([`plans`]).
#[cfg(test)]
pub(crate) fn newest_date_in(text: &str, today: NaiveDate) -> Option<NaiveDate> {
    dates_in(text).filter(|d| *d <= today).max()
}

/// The plausible dates of [`newest_date_in`] (on or before `today`, from 2000 on, not a
/// plan's), each with its 1-based line, in the order they are written.
pub(crate) fn dated_lines(text: &str, today: NaiveDate) -> Vec<(usize, NaiveDate)> {
    let mut found = Vec::new();
    let (mut line, mut counted_to) = (1, 0);
    for m in written_date_matches(text) {
        let Some(date) = i32::try_from(m.year)
            .ok()
            .and_then(|y| NaiveDate::from_ymd_opt(y, m.month, m.day))
            .filter(|d| d.year_ce().1 >= 2000 && *d <= today)
        else {
            continue;
        };
        line += text.as_bytes()[counted_to..m.start.max(counted_to)]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        counted_to = counted_to.max(m.start);
        found.push((line, date));
    }
    found
}

/// Every valid date from 2000 on written in a text's prose (ISO, `YYYY/MM/DD`, `M/D/YYYY`)
/// that is evidence of a write.
fn dates_in(text: &str) -> impl Iterator<Item = NaiveDate> {
    written_date_matches(text)
        .into_iter()
        .filter_map(|m| NaiveDate::from_ymd_opt(i32::try_from(m.year).ok()?, m.month, m.day))
        .filter(|d| d.year_ce().1 >= 2000)
}

/// Dates written in a text's prose that name no day of the calendar (`2026-30-05`,
/// `2025-02-30`), with their 1-based line: a typo, or a month and day swapped.
pub fn impossible_dates(text: &str) -> Vec<(usize, String)> {
    // `a/b/YYYY` names a day when either order does: `16/01/2025` is the 16th of January.
    let impossible = |m: &DateMatch| {
        (2000..=2100).contains(&m.year) && !m.is_valid() && !(m.slashed && m.day_first().is_valid())
    };
    // Every date of the prose is one of the text's own (see `parsed_prose_date_matches`):
    // a text without an impossible date-shaped word anywhere needs no prose.
    if !date_matches(text).any(|m| impossible(&m)) {
        return Vec::new();
    }
    let mut found = Vec::new();
    let mut line = 1;
    let mut counted_to = 0;
    for m in prose_date_matches(text).1 {
        if impossible(&m) {
            line += text.as_bytes()[counted_to..m.start]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            counted_to = m.start;
            found.push((
                line,
                text.get(m.start..m.end).unwrap_or_default().to_string(),
            ));
        }
    }
    found
}

/// Most future dates a file's [`WrittenDates`] remember.
pub const FUTURE_DATES_KEPT: usize = 8;

/// The dates written in a text's prose, in a form that stays right on later days: the newest
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
        let mut newest_past = None;
        let mut future = Vec::new();
        for date in dates_in(text) {
            if date > today {
                future.push(date.num_days_from_ce());
            } else {
                newest_past = newest_past.max(Some(date.num_days_from_ce()));
            }
        }
        future.sort_unstable();
        future.dedup();
        future.truncate(FUTURE_DATES_KEPT);
        WrittenDates {
            newest_past,
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
    pub(crate) fn newest_by(&self, today: NaiveDate) -> Option<NaiveDate> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use regex::Regex;

    #[test]
    fn dates_before_any_code_are_judged_as_a_parse_of_the_prose_would() {
        let parts = [
            "# Progress\n",
            "## Next steps\n",
            "## Done\n",
            "Updated 2026-07-17.\n",
            "- Due: 2026-12-01 ship it\n",
            "- [x] 2025-03-04 released\n",
            "Deployed 2025-05-06 10:30 to production\n",
            "| Milestone | Date |\n",
            "|---|---|\n",
            "| Launch | 2027-01-01 |\n",
            "- keeps `src/api.rs` and 2024-02-29\n",
            "```\n",
            "2023-01-02 in a fence\n",
            "~~~\n",
            "    indented 2022-03-04\n",
            "<!-- 2021-05-06 -->\n",
            "a `code span\n",
            "continued` 2020-07-08\n",
            "\n",
            "---\n",
            "plain words\n",
        ];
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut shortcuts = 0;
        for _ in 0..4000 {
            let mut text = String::new();
            for _ in 0..(seed % 9 + 1) {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                text.push_str(parts[(seed % parts.len() as u64) as usize]);
            }
            let all: Vec<DateMatch> = date_matches(&text).collect();
            if all.is_empty() || !plans_read_only_prose(&text, &all) {
                continue;
            }
            shortcuts += 1;
            let (prose, parsed) = parsed_prose_date_matches(&text, all.clone());
            assert_eq!(parsed, all, "{text}");
            let spans: Vec<(usize, usize)> = all.iter().map(|m| (m.start, m.end)).collect();
            assert_eq!(
                plans::planned_at(&prose, &spans),
                plans::planned_at(&text, &spans),
                "{text}"
            );
        }
        // The shortcut was taken often enough for the comparison to mean something.
        assert!(shortcuts > 200, "{shortcuts}");
    }

    #[test]
    fn dates_found_with_the_prose_remembered_are_those_found_without() {
        let today = NaiveDate::from_ymd_opt(2026, 1, 1).unwrap();
        let found = |text: &str| {
            let (prose, matches) = prose_date_matches(text);
            (
                prose.into_owned(),
                matches,
                impossible_dates(text),
                WrittenDates::of(text, today),
            )
        };
        for text in [
            "# Log\n`2024-01-02` in code\n2024-03-04 done\n",
            "plain 2025-02-30 and 2024-02-29\n",
            "no dates at all\n",
            "```\n2024-05-06\n```\n2023-01-01, due 2027-01-01\n",
            "",
        ] {
            let alone = found(text);
            let (first, again) = remembering_prose(|| (found(text), found(text)));
            assert_eq!(first, alone, "{text:?}");
            assert_eq!(again, alone, "{text:?}");
        }
        // Outside an analysis nothing is kept.
        assert!(remembered_prose("plain 2025-02-30 and 2024-02-29\n").is_none());
    }

    /// The pattern the scan replaces (Unicode `\b` and `\d`): the reference it must agree with.
    fn reference(text: &str) -> Vec<(usize, usize, u32, u32, u32)> {
        let pattern =
            Regex::new(r"\b(\d{4})[-/](\d{1,2})[-/](\d{1,2})\b|\b(\d{1,2})/(\d{1,2})/(\d{4})\b")
                .unwrap();
        pattern
            .captures_iter(text)
            .filter_map(|c| {
                let num = |i: usize| c.get(i).and_then(|m| m.as_str().parse::<u32>().ok());
                let (y, m, d) = match (num(1), num(2), num(3)) {
                    (Some(y), Some(m), Some(d)) => (y, m, d),
                    _ => (num(6)?, num(4)?, num(5)?),
                };
                let whole = c.get(0)?;
                Some((whole.start(), whole.end(), y, m, d))
            })
            .collect()
    }

    fn scanned(text: &str) -> Vec<(usize, usize, u32, u32, u32)> {
        date_matches(text)
            .map(|m| (m.start, m.end, m.year, m.month, m.day))
            .collect()
    }

    #[test]
    fn the_word_at_a_time_digit_search_finds_the_first_digit() {
        // Every byte value at every place of a word, and the bytes around the digits.
        let mut texts: Vec<Vec<u8>> = Vec::new();
        for value in 0..=255u8 {
            for at in 0..19 {
                let mut text = vec![b'x'; 19];
                text[at] = value;
                texts.push(text);
            }
        }
        texts.push(b"/:/:\xb0\xb9\x30\x39 9".to_vec());
        texts.push(Vec::new());
        for text in &texts {
            for from in 0..=text.len() {
                let naive = text[from..]
                    .iter()
                    .position(u8::is_ascii_digit)
                    .map(|offset| from + offset);
                assert_eq!(next_digit(text, from), naive, "{text:?} from {from}");
            }
        }
        assert_eq!(next_digit(b"abc", 7), None);
    }

    #[test]
    fn the_scan_finds_what_the_date_pattern_found() {
        let texts = [
            "Last updated: 2026-11-02.",
            "2024/1/5 and 12/31/2025, 3/4/2024",
            "2024-01/05 mixed separators, 2024/01-05 too",
            "v2024-01-05 glued to a word, 2024-01-05x after, _2024-01-05",
            "12024-01-05 five digits, 2024-001-05 three, 2024-01-055, 1/2/20245",
            "2024-1-123 then 2024-12-31",
            "éé2024-01-05 after a letter, 2024-01-05é before one, «2024-01-05»",
            "(2024-02-30) impossible, [1/32/2024], 2026-30-05",
            "10/10/2024/10/10/2024 chained",
            "٢٠٢٤-01-05 Arabic digits, 2024-01-0٥",
            "a 1/2/2024-01-05 overlap and 2024-01-05/2024",
            "",
            "no digits at all",
            "99999999999999999999-01-01 and 2024-01-01",
        ];
        for text in texts {
            assert_eq!(scanned(text), reference(text), "{text:?}");
        }
    }

    #[test]
    fn written_dates_keep_the_newest_past_and_the_future_ones() {
        let today = NaiveDate::from_ymd_opt(2026, 1, 10).unwrap();
        let dates = WrittenDates::of("2025-12-01, 2026-01-09, 2026-02-01, 1999-01-01", today);
        assert_eq!(dates.newest_by(today), NaiveDate::from_ymd_opt(2026, 1, 9));
        let later = NaiveDate::from_ymd_opt(2026, 3, 1).unwrap();
        assert_eq!(dates.newest_by(later), NaiveDate::from_ymd_opt(2026, 2, 1));
    }

    #[test]
    fn dates_in_a_gantt_chart_or_a_json_sample_do_not_make_a_file_fresh() {
        let today = NaiveDate::from_ymd_opt(2026, 11, 25).unwrap();
        let text = "# Progress\nLast updated: 2025-03-01\n\n\
            ```mermaid\ngantt\n    dateFormat YYYY-MM-DD\n    Build :a1, 2026-11-20, 3d\n```\n\n\
            ````json\n{\"created\": \"2026-11-24\", \"due\": \"2026-12-01\"}\n````\n\n\
            Run `touch log-2026-11-23.md` first.\n<!-- template: 2026-11-22 -->\n";
        let dates = WrittenDates::of(text, today);
        assert_eq!(dates.newest_by(today), NaiveDate::from_ymd_opt(2025, 3, 1));
        assert_eq!(dates.days().1, &[] as &[i32]);
        assert_eq!(
            newest_date_in(text, today),
            NaiveDate::from_ymd_opt(2025, 3, 1)
        );
        // The same dates written as prose do count.
        let prose = "Last updated: 2025-03-01, built 2026-11-20\n";
        assert_eq!(
            WrittenDates::of(prose, today).newest_by(today),
            NaiveDate::from_ymd_opt(2026, 11, 20)
        );
    }

    #[test]
    fn every_date_of_a_json_document_counts_though_its_strings_quote_code() {
        let today = NaiveDate::from_ymd_opt(2026, 11, 25).unwrap();
        let text = "{\n    \"content\": \"Run `a` then\",\n\n    \"updated\": \"2026-11-20\",\n\
            \"note\": \"`b`\"\n}\n";
        assert_eq!(
            WrittenDates::of(text, today).newest_by(today),
            NaiveDate::from_ymd_opt(2026, 11, 20)
        );
    }

    #[test]
    fn an_impossible_date_in_a_code_sample_is_not_reported() {
        let text = "# Log\n```\nparse(\"2025-02-30\") // rejected\n```\n\
            Use `2026-13-01` to test.\n\n    2025-99-99 indented\n\nreal typo 2025-02-31\n";
        assert_eq!(impossible_dates(text), vec![(9, "2025-02-31".to_string())]);
    }

    #[test]
    fn impossible_dates_name_their_line() {
        let text = "# Log\n2025-02-30 swapped\nfine 2025-02-28\n\n13/13/2025 and 2026-30-05\n";
        assert_eq!(
            impossible_dates(text),
            vec![
                (2, "2025-02-30".to_string()),
                (5, "13/13/2025".to_string()),
                (5, "2026-30-05".to_string()),
            ]
        );
        // Day first is a day of the calendar; 31/02 is one in neither order.
        assert!(impossible_dates("Updated 16/01/2025, then 25/06/2025.\n").is_empty());
        assert_eq!(
            impossible_dates("Due 31/02/2025\n"),
            vec![(1, "31/02/2025".to_string())]
        );
    }

    #[test]
    fn a_text_writing_its_days_first_has_each_of_its_slashed_dates_read_so() {
        let day = |s: &str| NaiveDate::parse_from_str(s, "%Y-%m-%d").ok();
        let today = NaiveDate::from_ymd_opt(2025, 12, 31).expect("a day");
        // `06/01/2025` is the 6th of January here, since `16/01/2025` can only be day first.
        let text = "Ngày cập nhật: 16/01/2025\n\nRelease on 06/01/2025 went out.\n";
        assert_eq!(
            dated_lines(text, today),
            vec![
                (1, day("2025-01-16").unwrap()),
                (3, day("2025-01-06").unwrap())
            ]
        );
        // With nothing that settles it, month first as before.
        assert_eq!(
            newest_date_in("Shipped 06/01/2025.\n", today),
            day("2025-06-01")
        );
        // A text holding both orders keeps month first; the one read neither way is dropped.
        let mixed = "On 01/16/2025 and 16/01/2025.\n";
        assert_eq!(
            dated_lines(mixed, today),
            vec![(1, day("2025-01-16").unwrap())]
        );
    }

    #[test]
    fn impossible_dates_in_code_are_examples_and_a_text_without_any_is_not_parsed_for_prose() {
        let code = "# Log\n`2026-13-01` in a span\n\n```\n2025-02-30\n```\n";
        assert!(impossible_dates(code).is_empty());
        let both = format!("{code}typo 2025-02-30 here\n");
        assert_eq!(impossible_dates(&both), vec![(7, "2025-02-30".to_string())]);
        // Possible dates only, code or not: nothing, whatever the prose.
        assert!(impossible_dates("`x` 2025-02-28\n<!-- 2026-01-01 -->\n").is_empty());
    }
}

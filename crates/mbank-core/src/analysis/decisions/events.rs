//! The lines of a decision log that may open, close or group entries: headings, Roo log
//! lines and their footer, RooFlow list items, and rows of tables of decisions, found in
//! one pass over the log's content lines.
use std::borrow::Cow;
use std::sync::LazyLock;

use chrono::{NaiveDate, NaiveTime};
use regex::Regex;

use super::entry::{
    bullet_title, canonical_key, is_decision_section_heading, is_field_label, read_fields,
    read_heading,
};
use super::tables::{TableRow, is_separator_row, row_of, table_cells, table_columns};
use super::text::{DATE_TIME, clean_title, date_from_captures, is_ascii_space, may_match, regex};
use crate::markup::markdown;

/// Roo log line: `[2025-05-22 14:03:11] - summary`, also as a list item.
static LOG_LINE: LazyLock<Regex> = LazyLock::new(|| {
    regex(&format!(
        r"^\s*(?:[-*+]\s+)?\[{DATE_TIME}\]\s*(?:[-–—:|]\s*)?(?P<rest>.*)$"
    ))
});
/// RooFlow's bare timestamp, `2025-05-22 14:03:11 - summary` (a list marker allowed): a
/// log line when it opens a line, the date of a bullet in a `## Decision` list. The time
/// is required on a line of its own, so a sentence opening with a date stays prose.
static BARE_STAMP: LazyLock<Regex> = LazyLock::new(|| {
    regex(&format!(
        r"^\s*(?P<bullet>[-*+]\s+)?{DATE_TIME}\s*(?:[-–—:|]\s*)(?P<rest>.*)$"
    ))
});
/// A line that opens with its date and goes on without a separator
/// (`2026-03-09 [portfolio] Move cards to deep links | done`): a log's line when the lines
/// around it open the same way ([`date_led_lines`]).
static DATE_LED: LazyLock<Regex> =
    LazyLock::new(|| regex(&format!(r"^{DATE_TIME}\s+(?P<rest>[^\s\d\-–—:|].*)$")));

/// Which content lines open with their date in a run of two or more such lines: a log
/// kept one dated line per decision, which a single sentence opening with a date is not.
/// Each entry is the line's date and its text.
fn date_led_lines(lines: &[&str], mask: &[bool]) -> Vec<Option<(DateStamp, String)>> {
    let led: Vec<Option<(DateStamp, String)>> = lines
        .iter()
        .zip(mask)
        .map(|(line, &content)| {
            let opens = content && line.as_bytes().first().is_some_and(u8::is_ascii_digit);
            let c = opens.then(|| DATE_LED.captures(line)).flatten()?;
            let date = date_from_captures(&c)?;
            // A last column after ` | ` (a status, tags) is no part of the title.
            let text = c.name("rest").map_or("", |m| m.as_str());
            let text = text.rsplit_once(" | ").map_or(text, |(title, _)| title);
            Some((date, clean_title(text)))
        })
        .collect();
    // Content lines only, so a blank line between two dated lines keeps the run.
    let content: Vec<usize> = (0..lines.len())
        .filter(|&i| mask[i] && !lines[i].trim().is_empty())
        .collect();
    let mut out = vec![None; lines.len()];
    for (n, &i) in content.iter().enumerate() {
        let neighbour_led = |j: Option<&usize>| j.is_some_and(|&j| led[j].is_some());
        if led[i].is_some()
            && (neighbour_led(n.checked_sub(1).and_then(|p| content.get(p)))
                || neighbour_led(content.get(n + 1)))
        {
            out[i].clone_from(&led[i]);
        }
    }
    out
}

/// Roo's footer `2025-05-22 14:03:11 - Log of updates made.`: not a decision.
static LOG_FOOTER: LazyLock<Regex> = LazyLock::new(|| {
    regex(&format!(
        r"(?i)^\s*\[?{DATE_TIME}\]?\s*[-–—:]\s*log of updates made\.?\s*$"
    ))
});

/// A bare `Decision` / `Decisions` heading, in any language (`## Решение`): RooFlow
/// writes its log as bullets below one.
fn is_bare_list_heading(text: &str) -> bool {
    let cleaned = clean_title(text).to_lowercase();
    canonical_key(&cleaned) == "decision"
        || cleaned == "decisions"
        || super::meaning::is_decisions_word(&cleaned)
}

/// A date with the time of day when one is written.
pub(super) type DateStamp = (NaiveDate, Option<NaiveTime>);

/// A RooFlow timestamp opening `text`, `[2025-05-22 14:03:11] - X` or
/// `2025-05-22 14:03:11 - X` (a bare date needs a separator after it): the date and time
/// and the text after it.
pub(super) fn leading_stamp(text: &str) -> Option<(DateStamp, &str)> {
    if let Some(found) = quick_log_line(text) {
        return Some(found);
    }
    let bytes = text.trim_start().as_bytes();
    if !matches!(bytes.first(), Some(b'[' | b'0'..=b'9')) {
        return None;
    }
    let c = LOG_LINE.captures(text).or_else(|| {
        BARE_STAMP
            .captures(text)
            .filter(|c| c.name("bullet").is_none())
    })?;
    let date = date_from_captures(&c)?;
    let rest = c.name("rest")?;
    Some((date, &text[rest.start()..]))
}

/// A top-level bullet: its title (the bold part when the bullet opens with one, else the
/// whole text) and the date of a RooFlow timestamp opening it. `None` for an indented
/// bullet (a detail of the entry above), an empty bullet (RooFlow's template `*`) or a
/// placeholder.
fn list_item(line: &str) -> Option<(String, Option<DateStamp>)> {
    let rest = line
        .strip_prefix("* ")
        .or_else(|| line.strip_prefix("- "))
        .or_else(|| line.strip_prefix("+ "))?;
    // A task still open (`- [ ] Analytics: Plausible vs Mixpanel`) is no decision yet; a
    // ticked one reads without its box and its struck first wording
    // (`- [x] ~~Push: FCM vs OneSignal~~ → FCM`).
    let trimmed = rest.trim_start();
    let ticked_title;
    let rest = if trimmed.starts_with("[ ]") {
        return None;
    } else if let Some(ticked) = trimmed
        .strip_prefix("[x]")
        .or_else(|| trimmed.strip_prefix("[X]"))
    {
        ticked_title = ticked.replace("~~", "");
        ticked_title.as_str()
    } else {
        rest
    };
    let (date, rest) = match leading_stamp(rest.trim()) {
        // A dated line kept in columns (`- 2026-02-15 | Decision | Why | Impact`): the
        // decision is the first.
        Some((date, after)) => (Some(date), after.split(" | ").next().unwrap_or(after)),
        None => (None, rest),
    };
    bullet_title(rest).map(|title| (title, date))
}

/// List item `at` with the lines its writer wrapped it onto ([`wrapped_lines`]).
fn with_continuation<'t>(lines: &[&'t str], mask: &[bool], at: usize) -> Cow<'t, str> {
    let wrapped = super::text::wrapped_lines(lines, mask, at + 1);
    if wrapped.is_empty() {
        return Cow::Borrowed(lines[at]);
    }
    Cow::Owned(format!("{} {}", lines[at].trim_end(), wrapped.join(" ")))
}

/// Whether the heading `text` on line `at` is a day over a plain list of that day's decisions:
/// dated, titled by nothing else than the date or a name for decisions (`## 2026-04-20`,
/// `## 2026-04-15 Kararları`), over two or more top-level bullets and no fields (where a
/// `**Decision:**` label stands, the bullets are its details).
fn is_day_of_bullets(lines: &[&str], mask: &[bool], at: usize, text: &str) -> bool {
    let heading = read_heading(text);
    if (heading.date.is_none() && heading.month.is_none())
        || !(heading.title.is_empty() || super::meaning::only_names_decisions(&heading.title))
    {
        return false;
    }
    let body = || {
        lines[at + 1..]
            .iter()
            .zip(&mask[at + 1..])
            .take_while(|(line, _)| markdown::heading(line).is_none())
            .filter(|(_, content)| **content)
            .map(|(line, _)| *line)
    };
    let bullets = body().filter(|line| list_item(line).is_some()).count();
    // Bullets led by labels (`- **决策概述**：…`) are one entry's fields.
    let labelled = body()
        .filter(|line| list_item(line).is_some() && opens_with_label(line))
        .count();
    bullets >= 2 && labelled * 2 < bullets && !read_fields(body()).has_marker
}

/// Whether a bullet opens with a bold label and its colon (`- **Context:** …`).
fn opens_with_label(line: &str) -> bool {
    let rest = line[2..].trim_start();
    rest.strip_prefix("**").is_some_and(|rest| {
        rest.find("**").is_some_and(|end| {
            let label = &rest[..end];
            let after = rest[end + 2..].trim_start();
            label.ends_with([':', '：']) || after.starts_with([':', '：'])
        })
    })
}

/// A line that may open an entry, close one, or group dated entries.
#[derive(Debug, Clone)]
pub(super) enum Event {
    Heading {
        level: usize,
        text: String,
    },
    LogLine {
        date: (NaiveDate, Option<NaiveTime>),
        title: String,
    },
    Footer,
    TableRow(TableRow),
    /// A top-level bullet in a `## Decision` section (RooFlow's list format).
    ListItem {
        title: String,
        date: Option<DateStamp>,
    },
}

/// The usual Roo log line, `[2025-05-22 14:03:11] - summary` (also as a list item), read
/// without the regex: its date and time and the summary. `None` for any other shape
/// (another date format, a time zone, a non-ASCII line), which then goes to
/// [`LOG_LINE`]: where this reads a line, the regex reads it the same way, and the regex
/// costs more than the rest of a 100k-entry log together.
fn quick_log_line(line: &str) -> Option<((NaiveDate, Option<NaiveTime>), &str)> {
    let bytes = line.as_bytes();
    let mut i = 0;
    let skip_spaces = |i: &mut usize| {
        while *i < bytes.len() && is_ascii_space(bytes[*i]) {
            *i += 1;
        }
    };
    // Up to `max` digits (at least `min`) as a number.
    let number = |i: &mut usize, min: usize, max: usize| -> Option<u32> {
        let start = *i;
        let mut value = 0u32;
        while *i < bytes.len() && *i - start < max && bytes[*i].is_ascii_digit() {
            value = value * 10 + u32::from(bytes[*i] - b'0');
            *i += 1;
        }
        (*i - start >= min).then_some(value)
    };
    skip_spaces(&mut i);
    if matches!(bytes.get(i), Some(b'-' | b'*' | b'+'))
        && bytes.get(i + 1).is_some_and(|&b| is_ascii_space(b))
    {
        i += 1;
        skip_spaces(&mut i);
    }
    if bytes.get(i) != Some(&b'[') {
        return None;
    }
    i += 1;
    let year = number(&mut i, 4, 4)?;
    let separator = |i: &mut usize| -> Option<()> {
        matches!(bytes.get(*i), Some(b'-' | b'/' | b'.')).then(|| *i += 1)
    };
    separator(&mut i)?;
    let month = number(&mut i, 1, 2)?;
    separator(&mut i)?;
    let day = number(&mut i, 1, 2)?;
    let mut time = None;
    if matches!(bytes.get(i), Some(b' ' | b'T')) {
        while matches!(bytes.get(i), Some(b' ' | b'T')) {
            i += 1;
        }
        let hour = number(&mut i, 1, 2)?;
        (bytes.get(i) == Some(&b':')).then_some(())?;
        i += 1;
        let minute = number(&mut i, 2, 2)?;
        let mut second = 0;
        if bytes.get(i) == Some(&b':') {
            i += 1;
            second = number(&mut i, 2, 2)?;
        }
        time = Some(NaiveTime::from_hms_opt(hour, minute, second));
    }
    if bytes.get(i) != Some(&b']') {
        return None;
    }
    i += 1;
    let date = NaiveDate::from_ymd_opt(i32::try_from(year).ok()?, month, day)?;
    skip_spaces(&mut i);
    if matches!(bytes.get(i), Some(b'-' | b':' | b'|')) {
        i += 1;
        skip_spaces(&mut i);
    }
    Some(((date, time.flatten()), &line[i..]))
}

/// Whether an ASCII line may be a log line or a footer: they start with a date or `[`,
/// and a log line may be a list item opening with `[` ([`LOG_LINE`], [`BARE_STAMP`]
/// without a bullet, [`LOG_FOOTER`] match nothing else).
fn may_open_log_line(bytes: &[u8]) -> bool {
    let start = bytes.iter().take_while(|&&b| is_ascii_space(b)).count();
    match bytes.get(start..) {
        Some([b'[' | b'0'..=b'9', ..]) => true,
        Some([b'-' | b'*' | b'+', after @ ..])
            if after.first().is_some_and(|&b| is_ascii_space(b)) =>
        {
            // `- [2025-05-22 14:03] …` or `- 2026-03-30 — …`.
            after
                .iter()
                .find(|&&b| !is_ascii_space(b))
                .is_some_and(|b| *b == b'[' || b.is_ascii_digit())
        }
        _ => false,
    }
}

/// `ascii`: the whole text is ASCII (checked once, not per line).
pub(super) fn scan_events(lines: &[&str], mask: &[bool], ascii: bool) -> Vec<(usize, Event)> {
    let mut events = Vec::new();
    let mut index = 0;
    // Level of the `## Decision` heading whose list we are in (RooFlow), and whether its
    // list ends at a sub-heading: under "## Key Decisions" only the bullets before the
    // first sub-heading are entries (later ones are details of `### X` entries).
    let mut list_section: Option<(usize, bool)> = None;
    // RooFlow's template opens with "This file records … decisions.\n<stamp> - Log of
    // updates made.": stamped lines that continue the opening paragraph (before any
    // section) note updates of the file, not decisions.
    let mut in_opening_paragraph = false;
    let mut seen_section = false;
    let date_led = date_led_lines(lines, mask);
    // A log with no sections below its title and no dated lines (a lead-in, then one
    // bullet per decision): its top-level bullets are its entries. Where lines are dated,
    // bullets below them are their details.
    let unsectioned = !lines
        .iter()
        .zip(mask)
        .enumerate()
        .any(|(i, (line, &content))| {
            content
                && (markdown::heading(line).is_some_and(|(l, _)| l > 1)
                    || date_led[i].is_some()
                    || leading_stamp(line.trim_start_matches(['-', '*', '+', ' '])).is_some())
        });
    while index < lines.len() {
        let line = lines[index];
        if !mask[index] {
            index += 1;
            continue;
        }
        let continues_opening = in_opening_paragraph;
        if line.trim().is_empty() {
            in_opening_paragraph = false;
        } else if !seen_section && !in_opening_paragraph && !line.starts_with('#') {
            in_opening_paragraph = !matches!(
                line.trim_start().as_bytes().first(),
                Some(b'0'..=b'9' | b'[' | b'-' | b'*' | b'+')
            );
        }
        let bytes = line.as_bytes();
        let may_be_log = may_match(ascii, line, may_open_log_line);
        // A footer ends with "log of updates made".
        let may_be_footer = may_be_log
            && may_match(ascii, line, |_| {
                let mut end = bytes.len();
                while end > 0 && is_ascii_space(bytes[end - 1]) {
                    end -= 1;
                }
                if end > 0 && bytes[end - 1] == b'.' {
                    end -= 1;
                }
                end >= 4 && bytes[end - 4..end].eq_ignore_ascii_case(b"made")
            });
        if may_be_footer && LOG_FOOTER.is_match(line) {
            events.push((index, Event::Footer));
        } else if let Some((date, rest)) = (ascii && may_be_log)
            .then(|| quick_log_line(line))
            .flatten()
        {
            let title = clean_title(rest);
            events.push((index, Event::LogLine { date, title }));
        } else if may_be_log
            && let Some(c) = LOG_LINE.captures(line)
            && let Some(date) = date_from_captures(&c)
        {
            let title = clean_title(c.name("rest").map_or("", |m| m.as_str()));
            events.push((index, Event::LogLine { date, title }));
        } else if may_be_log
            && let Some(c) = BARE_STAMP.captures(line)
            && c.name("bullet").is_none()
            && c.name("hh").is_some()
            && let Some(date) = date_from_captures(&c)
        {
            if continues_opening {
                index += 1;
                continue;
            }
            let title = clean_title(c.name("rest").map_or("", |m| m.as_str()));
            events.push((index, Event::LogLine { date, title }));
        } else if let Some((date, title)) = date_led[index].clone() {
            events.push((index, Event::LogLine { date, title }));
        } else if let Some((level, text)) = markdown::heading(line) {
            seen_section |= level > 1;
            in_opening_paragraph = false;
            // A level-1 "Decisions" is the file's title, not a section.
            if level > 1 && is_bare_list_heading(&text) {
                list_section = Some((level, false));
            } else if level > 1
                && (is_decision_section_heading(&text)
                    || is_day_of_bullets(lines, mask, index, &text))
            {
                list_section = Some((level, true));
            } else if list_section.is_some_and(|(l, strict)| {
                // A sub-heading with a title of its own (`### DEC-010 - Use X`) is an
                // entry whose bullets are its fields; a day heading only dates bullets.
                level <= l || strict || !read_heading(&text).title.is_empty()
            }) {
                list_section = None;
            }
            events.push((index, Event::Heading { level, text }));
        } else if (list_section.is_some() || unsectioned)
            && let Some((title, date)) = list_item(&with_continuation(lines, mask, index))
        {
            events.push((index, Event::ListItem { title, date }));
        } else if may_be_log && let Some((title, Some(date))) = list_item(line) {
            // A top-level bullet opening with its date (`- 2026-03-30 — Use Vitest`) is
            // an entry of the log wherever it stands, unless it is a detail of an entry
            // above it (which the log's reading decides).
            events.push((
                index,
                Event::ListItem {
                    title,
                    date: Some(date),
                },
            ));
        } else if let Some(header) = table_cells(line)
            && lines.get(index + 1).is_some_and(|l| is_separator_row(l))
            && let Some(columns) = table_columns(&header)
        {
            index += 2;
            let mut rows = Vec::new();
            let (mut read, mut labelled) = (0, 0);
            while index < lines.len() && mask[index] {
                let Some(cells) = table_cells(lines[index]) else {
                    break;
                };
                read += 1;
                labelled += usize::from(cells.first().is_some_and(|c| is_field_label(c)));
                if let Some(row) = row_of(&cells, &columns) {
                    rows.push((index, Event::TableRow(row)));
                }
                index += 1;
            }
            // A table of one record's fields (`| Decision ID | … |`, `| Context | … |`,
            // `| Status | … |` down its first column) holds no entries.
            if labelled < 2 || labelled * 2 < read {
                events.extend(rows);
            }
            continue;
        }
        index += 1;
    }
    events
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line the quick check passes over is one no log line or footer pattern reads.
    #[test]
    fn a_line_passed_over_matches_no_log_pattern() {
        let mut lines = Vec::new();
        for lead in [
            "", " ", "\t", "- ", "-  ", "* ", "+ ", "-", "*", "1. ", "> ", "-\t",
        ] {
            for body in [
                "[2025-05-22 14:03:11] - summary",
                "[2025-05-22] summary",
                "2025-05-22 14:03:11 - summary",
                "2025-05-22 14:03 | summary",
                "5/22/2025 14:03 - summary",
                "2025-05-22 14:03:11 - Log of updates made.",
                "[2025-05-22 14:03:11] - Log of updates made",
                "Item 4.1: the service keeps handlers",
                "**Date**: 2025-05-22",
                " [x] done",
                "(2025-05-22) - x",
            ] {
                lines.push(format!("{lead}{body}"));
            }
        }
        let mut passed_over = 0;
        for line in &lines {
            if may_open_log_line(line.as_bytes()) {
                continue;
            }
            passed_over += 1;
            assert!(!LOG_LINE.is_match(line), "{line:?}");
            assert!(!LOG_FOOTER.is_match(line), "{line:?}");
            let bare = BARE_STAMP.captures(line);
            assert!(bare.is_none_or(|c| c.name("bullet").is_some()), "{line:?}");
        }
        assert!(
            passed_over > lines.len() / 3,
            "{passed_over} of {}",
            lines.len()
        );
        assert!(may_open_log_line(b"  - [2025-05-22] x"));
        assert!(!may_open_log_line(b"- Item 4.1: x"));
    }
}

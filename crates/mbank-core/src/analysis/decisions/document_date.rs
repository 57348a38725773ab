//! The date a document gives once for all it records: a date field at its head, under
//! its title and before its first section or entry (`> **Дата:** 2026-02-18`,
//! `**Date:** 2026-01-29`), or else a whole date in its file name
//! (`sessions/2026-01-02-api.md`, `review_20260119.md`). An entry of the document that
//! gives no day or month of its own was recorded then. A field of when the document was
//! last updated is no such date: its entries may be older.
use std::path::Path;

use chrono::NaiveDate;

use super::Decision;
use super::entry::{EntryFields, content_mask, read_fields};
use crate::markup::markdown;

/// The fields of a document's head: the lines under its title (front matter and all)
/// before its first section and before line `first_entry` (1-based), each read as it
/// would be if set off as a quote (`> **Status**: …`).
pub(super) fn head_fields(text: &str, first_entry: usize) -> EntryFields {
    read_fields(
        text.lines()
            .take(first_entry.saturating_sub(1))
            .skip_while(|line| markdown::heading(line).is_some_and(|(level, _)| level == 1))
            .take_while(|line| markdown::heading(line).is_none_or(|(level, _)| level == 1))
            .map(|line| line.trim_start().trim_start_matches('>')),
    )
}

/// Dates the entries of the document at `path` that give no date or month of their own
/// with the one the document gives, if it gives one.
pub(super) fn date_undated(path: &Path, text: &str, entries: &mut [Decision]) {
    if entries.iter().all(Decision::dated) {
        return;
    }
    let first_entry = entries.iter().map(|d| d.line).min().unwrap_or(usize::MAX);
    let mut head = head_fields(text, first_entry);
    if head.date.is_none()
        && head.month.is_none()
        && let Some(metadata) = metadata_fields(text)
    {
        head = metadata;
    }
    let (date, month) = match (head.date, head.month, date_in_name(path)) {
        (Some(date), _, _) => (Some(date), None),
        (None, Some(month), _) => (None, Some(month)),
        (None, None, Some(date)) => (Some((date, None)), None),
        (None, None, None) => return,
    };
    for entry in entries.iter_mut().filter(|d| !d.dated()) {
        entry.date_by(date, month);
    }
}

/// Headings of a section that describes the document rather than records anything
/// (`## Metadata` over `- **Date Completed:** 2026-02-12`), in the languages the bank
/// files are written in.
const METADATA_TITLES: &[&str] = &[
    "metadata",
    "meta",
    "document metadata",
    "метаданные",
    "метадані",
    "metadaten",
    "metadatos",
    "metadados",
    "métadonnées",
    "metadati",
    "メタデータ",
    "元数据",
    "元資料",
    "메타데이터",
];

/// Whether a heading's text names a metadata section ([`METADATA_TITLES`]).
pub(super) fn is_metadata_heading(title: &str) -> bool {
    let title = title.trim().trim_end_matches([':', '：']).trim();
    METADATA_TITLES.contains(&title.to_lowercase().as_str())
}

/// The fields of the document's first metadata section ([`METADATA_TITLES`]), up to
/// the next heading, code blocks left out (a template shown in a fence dates nothing);
/// `None` when it has none.
fn metadata_fields(text: &str) -> Option<EntryFields> {
    let lines: Vec<&str> = text.lines().collect();
    let mask = content_mask(text, lines.len());
    let is_heading = |i: usize| mask[i] && markdown::heading(lines[i]).is_some();
    let start = (0..lines.len()).find(|&i| {
        mask[i] && markdown::heading(lines[i]).is_some_and(|(_, title)| is_metadata_heading(&title))
    })?;
    Some(read_fields(
        (start + 1..lines.len())
            .take_while(|&i| !is_heading(i))
            .filter(|&i| mask[i])
            .map(|i| lines[i]),
    ))
}

/// A whole date in a file's name, year first: `2026-01-02`, `2026_01_02` or `20260102`,
/// standing apart from other digits.
fn date_in_name(path: &Path) -> Option<NaiveDate> {
    let stem = path.file_stem()?.to_str()?;
    let bytes = stem.as_bytes();
    let digit_at = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_digit);
    let number = |from: usize, len: usize| -> Option<u32> {
        stem.get(from..from + len)
            .filter(|part| part.bytes().all(|b| b.is_ascii_digit()))?
            .parse()
            .ok()
    };
    (0..bytes.len()).find_map(|start| {
        if !digit_at(start) || (start > 0 && digit_at(start - 1)) {
            return None;
        }
        let year = number(start, 4)?;
        let (month_at, separated) = match bytes.get(start + 4) {
            Some(b'-' | b'_') => (start + 5, true),
            _ => (start + 4, false),
        };
        let month = number(month_at, 2)?;
        let day_at = month_at + 2 + usize::from(separated);
        if separated && bytes.get(month_at + 2) != bytes.get(start + 4) {
            return None;
        }
        let day = number(day_at, 2)?;
        if digit_at(day_at + 2) || !(1990..=2100).contains(&year) {
            return None;
        }
        NaiveDate::from_ymd_opt(i32::try_from(year).ok()?, month, day)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::decisions::parse_file;
    use crate::analysis::decisions::tests::date;
    use crate::model::Role;

    fn dates(path: &str, text: &str) -> Vec<(String, Option<NaiveDate>)> {
        parse_file(Path::new(path), Role::Decisions, text)
            .into_iter()
            .map(|d| (d.title, d.date))
            .collect()
    }

    #[test]
    fn a_date_under_the_title_dates_the_entries_that_give_none() {
        let text = "# Theming: creative phase\n\n> **Дата:** 2026-02-18\n> **Статус:** done\n\n\
## Decisions\n\n### Decision: CSS variables for themes\n**Rationale:** one source\n\n\
### 2026-03-01 Decision: Dark mode by default\n**Rationale:** users asked\n";
        assert_eq!(
            dates("memory-bank/creative/theming.md", text),
            [
                ("CSS variables for themes".to_string(), date("2026-02-18")),
                ("Dark mode by default".to_string(), date("2026-03-01")),
            ]
        );
    }

    #[test]
    fn a_metadata_section_dates_the_entries_that_give_none() {
        let text = "# Archive: app redesign\n\n## Metadata\n\n- **Task ID:** app-redesign-001\n\
- **Date Completed:** 2026-02-12\n\n## Summary\n\nDone.\n\n### Design Decisions\n\n\
### Decision: Tokens in CSS variables\n**Rationale:** one source\n";
        assert_eq!(
            dates("memory-bank/archive/archive-app-redesign-001.md", text),
            [("Tokens in CSS variables".to_string(), date("2026-02-12"))]
        );
        let russian = text.replace("## Metadata", "## Метаданные");
        assert_eq!(
            dates("memory-bank/archive/archive-app-redesign-001.md", &russian),
            [("Tokens in CSS variables".to_string(), date("2026-02-12"))]
        );
        // Nor does one shown as a template in a code block.
        let shown = "# Archive: app redesign\n\n```markdown\n## Metadata\n\
- **Date Completed:** 2026-02-12\n```\n\n### Decision: Tokens in CSS variables\n\
**Rationale:** one source\n";
        let dated = dates("memory-bank/archive/archive-app-redesign-001.md", shown);
        assert!(
            dated.contains(&("Tokens in CSS variables".to_string(), None)),
            "{dated:?}"
        );
        // A section of another name says nothing of the document.
        let other = text.replace("## Metadata", "## Follow-up");
        let dated = dates("memory-bank/archive/archive-app-redesign-001.md", &other);
        assert!(
            dated.contains(&("Tokens in CSS variables".to_string(), None)),
            "{dated:?}"
        );
    }

    #[test]
    fn the_date_the_document_was_last_updated_dates_no_entry() {
        let updated = "# Decisions\n\nLast updated: 2026-05-18\n\n## Decision: Use Postgres\n\
**Rationale:** joins\n";
        assert_eq!(
            dates("memory-bank/decisionLog.md", updated),
            [("Use Postgres".to_string(), None)]
        );
    }

    #[test]
    fn a_whole_date_in_the_file_name_dates_the_entries_that_give_none() {
        let text = "# Session\n\n## Decision: Retry with backoff\n**Rationale:** flaky API\n";
        for (path, want) in [
            ("sessions/2026-01-02-api.md", date("2026-01-02")),
            ("archive/review_20260119.md", date("2026-01-19")),
            ("notes/2026_01_20.md", date("2026-01-20")),
            ("notes/build-202601021.md", None),
            ("notes/2026-13-02.md", None),
            ("notes/2026-01_02.md", None),
            ("notes/v1234-5678.md", None),
        ] {
            assert_eq!(
                dates(path, text),
                [("Retry with backoff".to_string(), want)],
                "{path}"
            );
        }
    }

    #[test]
    fn decisions_in_a_section_take_the_date_the_document_gives() {
        let text = "# Drag and drop: archive

- **Date:** 2026-02-17

## Key decisions

- **Pointer events over HTML5 drag** — touch support
- **Order kept in state** — one source
";
        let got: Vec<(String, Option<NaiveDate>)> =
            crate::analysis::decisions::sections::parse_sections(
                Path::new("memory-bank/archive/drag-drop.md"),
                "memory-bank/archive/drag-drop.md",
                text,
            )
            .into_iter()
            .map(|d| (d.title, d.date))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "Pointer events over HTML5 drag".to_string(),
                    date("2026-02-17")
                ),
                ("Order kept in state".to_string(), date("2026-02-17")),
            ]
        );
    }
}

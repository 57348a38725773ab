//! ADR files (`ADR-NNN-title.md`, ConKeeper's `ADR-NNN-YYYYMMDD-HHMM-title.md`): one
//! decision each, from the first heading, the frontmatter, the body fields and the name.
use std::path::Path;
use std::sync::LazyLock;

use chrono::{NaiveDate, NaiveTime};
use regex::Regex;

use super::entry::{
    EntryFields, adr_title, canonical_key, content_mask, first_word_key, names_a_field,
    read_fields, read_heading,
};
use super::text::{clean_title, find_date, links_in, regex};
use super::{Decision, DecisionStatus, DecisionStyle};
use crate::formats;
use crate::markup::markdown;

/// The most words a line standing alone in a section may have and still be a status.
const STATUS_LINE_MAX_WORDS: usize = 8;
/// `decision_20260204123036.md`: a record named by its moment.
static DECISION_FILE_STAMP: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)^decision[-_](?P<y>\d{4})(?P<m>\d{2})(?P<d>\d{2})(?:[-_T]?(?P<hh>\d{2})(?P<mm>\d{2})(?:\d{2})?)?(?:[-_]|\.md$|$)",
    )
});

/// The value of a record's title field (`- Topic: Project structure`, `Title: …`,
/// `Тема: …`), read where the content mask shows text.
fn title_field(lines: &[&str], mask: &[bool]) -> Option<String> {
    lines
        .iter()
        .zip(mask)
        .filter(|(_, shown)| **shown)
        .find_map(|(line, _)| {
            let line = line.trim_start().trim_start_matches(['-', '*', '+']).trim();
            let (key, value) = line.split_once([':', '：'])?;
            let key = key.trim().trim_matches('*').trim().to_lowercase();
            let names_title = canonical_key(&key) == "title"
                || matches!(
                    key.as_str(),
                    "title"
                        | "topic"
                        | "subject"
                        | "тема"
                        | "tema"
                        | "thème"
                        | "主题"
                        | "主題"
                        | "テーマ"
                        | "주제"
                );
            let value = clean_title(value.trim().trim_start_matches('*').trim());
            (names_title && !value.is_empty()).then_some(value)
        })
}

/// A line up to where a dash, semicolon or full stop opens another clause.
fn first_clause(line: &str) -> &str {
    [" — ", " – ", " - ", "; ", ". "]
        .iter()
        .filter_map(|separator| line.find(separator))
        .min()
        .map_or(line, |end| &line[..end])
}

/// The text of a quoted line (`> **Status**: Accepted`, `>> …`), without its markers.
fn unquoted(line: &str) -> Option<&str> {
    let inner = line.trim_start().strip_prefix('>')?;
    Some(inner.trim_start_matches(['>', ' ', '\t']))
}

/// `ADR-012-20250522-1403-title.md`: the timestamp ConKeeper adds for concurrent sessions.
static ADR_FILE_STAMP: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)^adr[-_ ]?\d+[-_](?P<y>\d{4})(?P<m>\d{2})(?P<d>\d{2})(?:[-_T](?P<hh>\d{2})(?P<mm>\d{2}))?(?:[-_]|\.md$|$)",
    )
});

/// The one decision an ADR file records. Title from its first heading (without the
/// `ADR-NNN:` prefix), else the frontmatter's `title`, else the file name; date from the
/// file name's timestamp, the frontmatter (`date`, `created`) or a `Date:` line.
pub(crate) fn parse_adr(path: &Path, text: &str) -> Option<Decision> {
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    if lines.iter().all(|l| l.trim().is_empty()) {
        return None;
    }
    let mask = content_mask(text, lines.len());
    let mut front = EntryFields::default();
    let mut front_title = None;
    if let Some(fm) = markdown::frontmatter(text) {
        for line in fm.yaml.lines() {
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            let value = value.trim().trim_matches(['"', '\'']);
            match canonical_key(&key.trim().to_lowercase()) {
                "status" => front.status = DecisionStatus::parse(value),
                "date" | "created" | "decided" | "timestamp" | "decision-date"
                | "decision_date"
                    if front.date.is_none() =>
                {
                    front.date = find_date(value);
                    front.month = super::text::find_month(value);
                }
                "title" if !value.is_empty() => front_title = Some(clean_title(value)),
                "supersedes" => front.supersedes.extend(links_in(value)),
                "superseded_by" | "superseded-by" | "supersededby" => {
                    front.superseded_by.extend(links_in(value))
                }
                _ => {}
            }
        }
    }
    let first_heading = (0..lines.len())
        .filter(|i| mask[*i])
        .find_map(|i| markdown::heading(lines[i]).map(|(_, t)| (i, t)));
    // The record's header: the lines from its title to its first section.
    let header_end = first_heading.as_ref().map_or(0, |(title, _)| {
        (title + 1..lines.len())
            .find(|i| mask[*i] && markdown::heading(lines[*i]).is_some())
            .unwrap_or(lines.len())
    });
    // A record's fields may stand in a table of two columns (`| Status | Akzeptiert |`),
    // or in a quote under its title (`> **Status**: Accepted`): a quote there sets the
    // record's header apart, as a quote further down cites something else.
    let body_lines: Vec<std::borrow::Cow<'_, str>> = (0..lines.len())
        .filter(|i| mask[*i])
        .map(|i| match unquoted(lines[i]) {
            Some(inner) if i < header_end => std::borrow::Cow::Borrowed(inner),
            _ => super::entry::field_of_row(lines[i]),
        })
        .collect();
    let body = read_fields(body_lines.iter().map(|line| line.as_ref()));

    let file_id = formats::adr_number(&file_name).map(|_| {
        let lower = file_name.to_ascii_lowercase();
        let digits: String = lower
            .trim_start_matches("adr")
            .trim_start_matches(['-', '_'])
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        format!("ADR-{digits}")
    });
    // A record with no title of its own opens with one of its sections (`## Status`).
    let (heading_id, heading_title, heading_date, heading_month) = match &first_heading {
        Some((_, text)) if !names_a_field(text) => {
            let read = read_heading(text);
            let title = without_record_number(&read.title, &file_name);
            (
                read.id,
                Some(title.to_string()).filter(|t| !t.is_empty()),
                read.date,
                read.month,
            )
        }
        _ => (None, None, None, None),
    };
    // Nygard's template (and adr-tools') gives the status a section of its own line.
    // Sections follow the title, or start at the top of a record with none.
    let title_line = first_heading
        .as_ref()
        .filter(|(_, text)| !names_a_field(text))
        .map(|(i, _)| *i);
    let sections = one_line_sections(&lines, &mask, title_line);
    // A section named for the status or the date (`## Estado`, `## Дата создания`)
    // opens with it, whatever follows.
    let named = |key: &str| {
        first_lines_of_sections(&lines, &mask, title_line)
            .into_iter()
            .find(|(heading, _)| first_word_key(heading) == key)
            .map(|(_, line)| line)
    };
    let stamp = ADR_FILE_STAMP
        .captures(&file_name)
        .or_else(|| DECISION_FILE_STAMP.captures(&file_name))
        .and_then(|c| {
            let num = |n: &str| c.name(n).and_then(|m| m.as_str().parse::<u32>().ok());
            let date =
                NaiveDate::from_ymd_opt(i32::try_from(num("y")?).ok()?, num("m")?, num("d")?)?;
            let time = match (num("hh"), num("mm")) {
                (Some(h), Some(m)) => NaiveTime::from_hms_opt(h, m, 0),
                _ => None,
            };
            Some((date, time))
        });
    // A heading that only says what the file is ("# Decision Record") leaves the title
    // to a field of the body (`- Topic: Project structure`).
    let heading_title = heading_title.filter(|t| !formats::adr_records::is_record_folder_name(t));
    let title = heading_title
        .or(front_title)
        .or_else(|| title_field(&lines, &mask))
        .unwrap_or_else(|| {
            let stem = file_name.trim_end_matches(".md");
            let words = adr_title(stem)
                .map(|c| c["rest"].to_string())
                .unwrap_or_else(|| stem.to_string());
            let words =
                words.trim_start_matches(|c: char| c.is_ascii_digit() || c == '-' || c == '_');
            clean_title(&words.replace(['-', '_'], " "))
        });
    // A record named or titled by its day (`2025-10-11-pick-a-queue.md`,
    // `# 2025-10-11: Pick a queue`).
    let named_day = file_name
        .get(..10)
        .filter(|head| head.as_bytes().iter().filter(|b| **b == b'-').count() == 2)
        .and_then(find_date);
    let date = stamp
        .or(front.date)
        .or(heading_date)
        .or(body.date)
        .or(named_day)
        .or_else(|| named("date").and_then(find_date))
        // "Accepted (2026-04-18) — revised 2026-05-31": the day the status was given,
        // written with it; a later clause tells of other days.
        .or_else(|| named("status").and_then(|line| find_date(first_clause(line))))
        .or_else(|| {
            sections
                .iter()
                .find(|line| !line.chars().any(char::is_alphabetic))
                .and_then(|line| find_date(line))
        });
    let month = front
        .month
        .or(heading_month)
        .or(body.month)
        .or_else(|| named("date").and_then(super::text::find_month));
    let mut superseded_by = front.superseded_by;
    superseded_by.extend(body.superseded_by);
    superseded_by.dedup();
    let mut supersedes = front.supersedes;
    supersedes.extend(body.supersedes);
    supersedes.dedup();
    let status = body
        .status
        .filter(|s| *s != DecisionStatus::Unknown)
        .or(front.status)
        .or_else(|| named("status").and_then(DecisionStatus::parse))
        .or_else(|| {
            // A status is a few words ("Superseded by ADR-5", "Accepted 2026-04-18"); a
            // sentence of a section that happens to be one line ("Considering we stick
            // to the LTS versions, …" under `## Context`) says no status.
            sections
                .iter()
                .filter(|line| line.split_whitespace().count() <= STATUS_LINE_MAX_WORDS)
                .filter_map(|line| DecisionStatus::parse(line))
                .find(|status| *status != DecisionStatus::Unknown)
        })
        .or_else(|| (!superseded_by.is_empty()).then_some(DecisionStatus::Superseded))
        .unwrap_or(DecisionStatus::Unknown);
    let start = first_heading.map_or(0, |(i, _)| i);
    let end = (0..lines.len())
        .rev()
        .find(|i| !lines[*i].trim().is_empty())
        .unwrap_or(start);
    Some(Decision {
        id: heading_id.or(file_id),
        title: if title.is_empty() {
            file_name.clone()
        } else {
            title
        },
        date: date.map(|d| d.0),
        time: date.and_then(|d| d.1),
        month: date.is_none().then_some(month).flatten(),
        status,
        supersedes,
        superseded_by,
        file: path.to_path_buf(),
        display: file_name,
        line: start + 1,
        end_line: end.max(start) + 1,
        style: DecisionStyle::Adr,
        group: None,
        kind: super::DecisionKind::Decision,
    })
}

/// `title` without the record's number in front (`1. Use SQLite` in `0001-use-sqlite.md`,
/// as Nygard's template and adr-tools write it): only the file's own number is dropped.
fn without_record_number<'t>(title: &'t str, file_name: &str) -> &'t str {
    let leading_number = |text: &str| -> Option<(u32, usize)> {
        let digits = text.bytes().take_while(u8::is_ascii_digit).count();
        Some((text.get(..digits)?.parse().ok()?, digits))
    };
    let lower = file_name.to_ascii_lowercase();
    let name = lower.strip_prefix("adr").unwrap_or(&lower);
    let name = name.trim_start_matches(['-', '_']);
    let (Some((number, _)), Some((heading_number, digits))) =
        (leading_number(name), leading_number(title))
    else {
        return title;
    };
    let rest = &title[digits..];
    // `1. Title`, `1: Title`, `0001 — Title`, `0001-Title`: a separator after the number.
    let after = match rest.strip_prefix(['.', ':', ')']) {
        Some(after) if after.starts_with(char::is_whitespace) => Some(after),
        Some(_) => None,
        None => rest.trim_start().strip_prefix(['-', '–', '—']),
    };
    match after.map(str::trim_start) {
        Some(after) if number == heading_number && !after.is_empty() => after,
        _ => title,
    }
}

/// The text of each section after `first` (the record's title) whose body is one line:
/// where a record gives its status or date a heading of its own (`## Status` above
/// `Accepted`), in whatever language the heading is written.
fn one_line_sections<'t>(lines: &[&'t str], mask: &[bool], first: Option<usize>) -> Vec<&'t str> {
    let headings: Vec<usize> = (first.map_or(0, |i| i + 1)..lines.len())
        .filter(|i| mask[*i] && markdown::heading(lines[*i]).is_some())
        .collect();
    let mut found = Vec::new();
    for (n, &at) in headings.iter().enumerate() {
        let end = headings.get(n + 1).copied().unwrap_or(lines.len());
        let mut body = (at + 1..end)
            .filter(|i| mask[*i])
            .map(|i| lines[i].trim())
            .filter(|line| !line.is_empty());
        if let (Some(line), None) = (body.next(), body.next()) {
            found.push(line);
        }
    }
    found
}

/// Each section after `first` (the record's title) that has a body: its heading's text
/// and the first line of its body.
fn first_lines_of_sections<'t>(
    lines: &[&'t str],
    mask: &[bool],
    first: Option<usize>,
) -> Vec<(String, &'t str)> {
    let mut found = Vec::new();
    let mut heading: Option<String> = None;
    for i in first.map_or(0, |i| i + 1)..lines.len() {
        if !mask[i] {
            continue;
        }
        if let Some((_, text)) = markdown::heading(lines[i]) {
            heading = Some(text);
        } else if !lines[i].trim().is_empty()
            && let Some(open) = heading.take()
        {
            found.push((open, lines[i].trim()));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::super::tests::date;
    use super::*;

    #[test]
    fn adr_files_with_status_line_and_superseded_by() {
        let text = "# ADR-003: Use tokio for IO\n\n\
**Status:** Superseded by ADR-007\n**Date:** 2025-05-02\n**Tags:** io\n\n## Context\nblocking reads\n";
        let d = parse_adr(Path::new("decisions/ADR-003-use-tokio.md"), text).unwrap();
        assert_eq!(d.id.as_deref(), Some("ADR-003"));
        assert_eq!(d.title, "Use tokio for IO");
        assert_eq!(d.status, DecisionStatus::Superseded);
        assert_eq!(d.superseded_by, vec!["ADR-007"]);
        assert_eq!(d.date, date("2025-05-02"));
        assert_eq!((d.line, d.end_line), (1, 8));

        let stamped = parse_adr(
            Path::new("ADR-012-20250522-1403-split-crates.md"),
            "# ADR-012: Split crates\n\n**Status:** Proposed\n",
        )
        .unwrap();
        assert_eq!(stamped.date, date("2025-05-22"));
        assert_eq!(stamped.time, NaiveTime::from_hms_opt(14, 3, 0));
        assert_eq!(stamped.status, DecisionStatus::Proposed);
    }

    #[test]
    fn chinese_records_give_their_acceptance_day_and_who_replaced_whom() {
        let replaced = "# ADR-0008：回测复用 Domain API\n\n- 状态：已被 [ADR-0009](0009-research.md) 取代\n- 首次接受：2026-07-20\n- 决策者：核心组\n\n## 背景\n\n回测。\n";
        let d = parse_adr(Path::new("docs/adr/0008-backtest.md"), replaced).unwrap();
        assert_eq!(d.status, DecisionStatus::Superseded);
        assert_eq!(d.superseded_by, vec!["ADR-0009"]);
        assert_eq!(d.date, date("2026-07-20"));
        let replacing = "# ADR-0009：分级模拟\n\n- 状态：已接受\n- 首次接受：2026-07-21\n- 取代：[ADR-0008](0008-backtest.md)\n\n## 背景\n\n模拟。\n";
        let d = parse_adr(Path::new("docs/adr/0009-research.md"), replacing).unwrap();
        assert_eq!(d.status, DecisionStatus::Accepted);
        assert_eq!(d.supersedes, vec!["ADR-0008"]);
        assert_eq!(d.date, date("2026-07-21"));
    }

    #[test]
    fn a_superseded_by_field_left_empty_supersedes_nothing() {
        for empty in [
            "_n/a_",
            "n/a",
            "—",
            "None",
            "нет",
            "TBD (when the SPA tests land)",
        ] {
            let text = format!(
                "# ADR-0001: Adopt C4\n\n**Status:** Accepted\n**Superseded by:** {empty}\n"
            );
            let d = parse_adr(Path::new("docs/adr/ADR-0001-c4.md"), &text).unwrap();
            assert_eq!(d.status, DecisionStatus::Accepted, "{empty}");
            assert!(d.superseded_by.is_empty(), "{empty}: {:?}", d.superseded_by);
        }
    }

    #[test]
    fn a_record_titled_by_its_kind_takes_its_topic_and_the_moment_its_name_gives() {
        let text = "# Decision Record\n\n- Date: 04-02-2026 12:30:36\n- Topic: Project structure\n\n\
                    ## Decision\nAll code lives under `src`.\n";
        let d = parse_adr(Path::new("decisions/decision_20260204123036.md"), text).unwrap();
        assert_eq!(d.title, "Project structure");
        assert_eq!(d.date, chrono::NaiveDate::from_ymd_opt(2026, 2, 4));
        assert_eq!(d.time, chrono::NaiveTime::from_hms_opt(12, 30, 0));
        // A title of its own wins over the field.
        let titled = "# Use Rust\n\n- Topic: Languages\n";
        let d = parse_adr(Path::new("docs/adr/0001-use-rust.md"), titled).unwrap();
        assert_eq!(d.title, "Use Rust");
    }

    #[test]
    fn a_record_dated_after_adr_has_no_number_and_chinese_statuses_read() {
        let text = "# ADR 2025-11-21: MCP 集成策略\n\n## 状态\n\n✅ 已实施\n";
        let d = parse_adr(Path::new("docs/adr/2025-11-21-mcp.md"), text).unwrap();
        assert_eq!(d.id, None);
        assert!(d.title.ends_with("MCP 集成策略"), "{}", d.title);
        assert_eq!(d.date, chrono::NaiveDate::from_ymd_opt(2025, 11, 21));
        assert_eq!(d.status, DecisionStatus::Accepted);
        let designing = "# ADR-0004: 缓存分层\n\n## 状态\n\n📋 设计阶段\n";
        let d = parse_adr(Path::new("docs/adr/0004-cache.md"), designing).unwrap();
        assert_eq!(d.id.as_deref(), Some("ADR-0004"));
        assert_eq!(d.status, DecisionStatus::Proposed);
    }

    #[test]
    fn records_in_nygards_template_give_status_and_date_their_own_lines() {
        let text = "# 1. Use SQLite for the index\n\nDate: 2026-03-02\n\n## Status\n\nAccepted\n\n\
## Context\n\nThe index is rebuilt on every start.\n\n## Decision\n\nKeep it in SQLite.\n";
        let d = parse_adr(Path::new("docs/adr/0001-use-sqlite-for-the-index.md"), text).unwrap();
        assert_eq!(d.title, "Use SQLite for the index");
        assert_eq!(d.status, DecisionStatus::Accepted);
        assert_eq!(d.date, date("2026-03-02"));
        // In another language, with the date a section of its own: the same structure.
        let text = "# 2. Usar Postgres\n\n## Estado\n\nProposed\n\n## Fecha\n\n2025-11-04\n\n\
## Contexto\n\nVarias líneas.\nY otra más.\n";
        let d = parse_adr(Path::new("doc/adr/0002-usar-postgres.md"), text).unwrap();
        assert_eq!(d.title, "Usar Postgres");
        assert_eq!(
            (d.status, d.date),
            (DecisionStatus::Proposed, date("2025-11-04"))
        );
        // A number that is not the record's own stays in the title.
        let d = parse_adr(
            Path::new("docs/adr/0003-limits.md"),
            "# 2. Limits and 3. more\n\n## Context\n\nWhy.\n",
        )
        .unwrap();
        assert_eq!(d.title, "2. Limits and 3. more");
        assert_eq!(d.status, DecisionStatus::Unknown);
        // A one-line section that is a sentence opening with a status-like word says
        // none; MADR's outcome, an option chosen, says the record was accepted.
        let d = parse_adr(
            Path::new("docs/decisions/0002-read-only-interface.md"),
            "# Read-only interface\n\n## Context and Problem Statement\n\n\
Considering we stick to the latest LTS versions we get records for read-only types.\n\n\
## Decision Outcome\n\nChosen option: records\n",
        )
        .unwrap();
        assert_eq!(d.status, DecisionStatus::Accepted);
        assert_eq!(
            d.date, None,
            "one-line sections that are not dates give none"
        );
    }

    #[test]
    fn a_status_or_date_section_opens_with_it_and_a_dash_may_follow_the_number() {
        // A status section with a note below it, the title's number set off by a dash.
        let text = "# 0002 — Diseño simplificado\n\n## Estado\n**Anulado**\n\n\
**Nota:** reemplazado por [ADR 0005](0005-x.md).\n\n## Contexto\nPor qué.\n";
        let d = parse_adr(Path::new("docs/adr/0002-simplified.md"), text).unwrap();
        assert_eq!(
            (d.title.as_str(), d.status),
            ("Diseño simplificado", DecisionStatus::Deprecated)
        );
        // A date written day first with dots under a section named for it.
        let text = "# 0004-Дата создания решения\n\n## Статус\nОтменено (0005)\n\n\
## Дата создания\n12.01.2020\n\n## Контекст\nТекст.\n";
        let d = parse_adr(Path::new("docs/decisions/0004-date.md"), text).unwrap();
        assert_eq!(d.title, "Дата создания решения");
        assert_eq!(
            (d.status, d.date),
            (DecisionStatus::Deprecated, date("2020-01-12"))
        );
        // The date a frontmatter timestamp gives.
        let text = "---\ntimestamp: 2026-05-17\nstatus: accepted\n---\n# Score contract\n";
        let d = parse_adr(Path::new("docs/decisions/0002-score.md"), text).unwrap();
        assert_eq!(
            (d.status, d.date),
            (DecisionStatus::Accepted, date("2026-05-17"))
        );
        // The day a heading or the file name gives; a qualified date key.
        let d = parse_adr(
            Path::new("docs/adr/0003-q.md"),
            "# 2025-10-11: キューを使う\n",
        )
        .unwrap();
        assert_eq!(
            (d.title.as_str(), d.date),
            ("キューを使う", date("2025-10-11"))
        );
        let d = parse_adr(
            Path::new("docs/adr/2025-10-12-use-a-queue.md"),
            "# Use a queue\n",
        )
        .unwrap();
        assert_eq!(d.date, date("2025-10-12"));
        let d = parse_adr(
            Path::new("docs/adr/0004-x.md"),
            "# Use X\n\n- Date (MSK): 2026-02-05 19:57 MSK\n- Status: Accepted\n\n\
## Related\n\n- **ADR-0016**: OAuth over HTTP (superseded by ADR-0019)\n",
        )
        .unwrap();
        assert_eq!(
            (d.date, d.status, d.superseded_by.len()),
            (date("2026-02-05"), DecisionStatus::Accepted, 0)
        );
        // No title of its own: the file names it, and its status section still counts.
        let d = parse_adr(
            Path::new("docs/adr/0007-cache-layer.md"),
            "## Status\n\nProposto\n\n## Contexto\n\nLento.\n",
        )
        .unwrap();
        assert_eq!(
            (d.title.as_str(), d.status),
            ("cache layer", DecisionStatus::Proposed)
        );
        // The id in brackets, before a full-width colon or a middle dot is no part of the
        // title.
        for heading in [
            "# [ADR-001] 协调计划",
            "# ADR-001：协调计划",
            "# ADR-001 · 协调计划",
        ] {
            let d = parse_adr(Path::new("docs/adr/ADR-001.md"), heading).unwrap();
            assert_eq!(
                (d.id.as_deref(), d.title.as_str()),
                (Some("ADR-001"), "协调计划"),
                "{heading}"
            );
        }
        // Another number before the dash stays in the title.
        let d = parse_adr(Path::new("docs/adr/0007-x.md"), "# 2024 — the year\n").unwrap();
        assert_eq!(d.title, "2024 — the year");
    }

    #[test]
    fn adr_files_with_frontmatter_and_wikilinks() {
        let text = "---\ntype: decision\nstatus: Superseded\ncreated: 2026-02-01\n---\n\
# ADR-0010: Vendor the graph tool\n\n**SUPERSEDED by [[ADR-0011]]**: now external.\n";
        let d = parse_adr(Path::new("ADR-0010.md"), text).unwrap();
        assert_eq!(d.status, DecisionStatus::Superseded);
        assert_eq!(d.superseded_by, vec!["ADR-0011"]);
        assert_eq!(d.date, date("2026-02-01"));
        assert_eq!(d.line, 6);
        let later = parse_adr(
            Path::new("ADR-0011.md"),
            "# ADR-0011: Graph tool stays external\n\n**Status:** Accepted\n**Supersedes:** [[ADR-0010]]\n",
        )
        .unwrap();
        assert_eq!(later.supersedes, vec!["ADR-0010"]);
        // No heading: the title comes from the file name.
        let bare = parse_adr(Path::new("ADR-004-pick-a-licence.md"), "Status: Rejected\n").unwrap();
        assert_eq!(bare.title, "pick a licence");
        assert_eq!(bare.status, DecisionStatus::Rejected);
        assert!(parse_adr(Path::new("ADR-005.md"), "\n  \n").is_none());
    }

    #[test]
    fn fields_in_a_table_of_two_columns_give_status_and_date() {
        let text = "# ADR-005: KI-Algorithmus\n\n| Attribut | Wert |\n|----------|------|\n\
| Status | Akzeptiert |\n| Datum | 21.03.2025 |\n| Entscheider | Team |\n\n## Kontext\n\nText.\n";
        let d = parse_adr(Path::new("ADR-005-ki.md"), text).unwrap();
        assert_eq!(
            (d.status, d.date),
            (DecisionStatus::Accepted, date("2025-03-21"))
        );
        // A table of other things (options weighed) sets neither.
        let text = "# ADR-006: Cache\n\n| Option | Why |\n|---|---|\n| Redis | fast |\n";
        let d = parse_adr(Path::new("ADR-006-cache.md"), text).unwrap();
        assert_eq!((d.status, d.date), (DecisionStatus::Unknown, None));
    }

    #[test]
    fn a_header_quoted_under_the_title_gives_status_and_date_before_later_lines() {
        let text = "# ADR-0014: FFI artifact groups\n\n> **Status**: Accepted\n> **Date**: 2026-01-21\n\
> **Authors**: a, b\n\n## Context\n\nText.\n\n## Alternatives\n\n> Status: Rejected, as the \
vendor said.\n\n### Static bundles\n\nRejected: too large.\n";
        let d = parse_adr(Path::new("ADR-0014-ffi.md"), text).unwrap();
        assert_eq!(
            (d.status, d.date),
            (DecisionStatus::Accepted, date("2026-01-21"))
        );
    }

    #[test]
    fn a_status_section_dates_the_record_with_the_day_it_gives_beside_the_status() {
        let record = |status: &str| {
            let text = format!(
                "# ADR-0002: Pricing in the catalog\n\n## Status\n\n{status}\n\n## Context\n\nText.\n"
            );
            let d = parse_adr(Path::new("0002-pricing.md"), &text).unwrap();
            (d.status, d.date)
        };
        assert_eq!(
            record("Accepted (2026-04-18)"),
            (DecisionStatus::Accepted, date("2026-04-18"))
        );
        assert_eq!(
            record("Accepted (2026-04-18) — revised 2026-05-31 for the new topology"),
            (DecisionStatus::Accepted, date("2026-04-18"))
        );
        // A day told of in a later clause is another event's, not the record's.
        assert_eq!(
            record("Accepted — revised 2026-05-30 after the cleanup"),
            (DecisionStatus::Accepted, None)
        );
    }

    #[test]
    fn fields_set_side_by_side_on_one_line_are_each_read() {
        let text = "# ADR 0002 — Synchronous SQLAlchemy\n\n**Date:** 2026-07-08 · **Status:** Accepted\n\n## Context\n\nText.\n";
        let d = parse_adr(Path::new("0002-sync-sqlalchemy.md"), text).unwrap();
        assert_eq!(
            (d.status, d.date),
            (DecisionStatus::Accepted, date("2026-07-08"))
        );
        let text = "# ADR 0003 — Tokens\n\nStatus: Superseded | Date: 2026-07-09 | Superseded by: ADR-0004\n";
        let d = parse_adr(Path::new("0003-tokens.md"), text).unwrap();
        assert_eq!(
            (d.status, d.date, d.superseded_by),
            (
                DecisionStatus::Superseded,
                date("2026-07-09"),
                vec!["ADR-0004".to_string()]
            )
        );
    }
}

//! A decision log's entries: the events of its lines turned into entries with their
//! line spans, body fields, inherited day dates and statuses, in file order.
use std::path::Path;

use chrono::{NaiveDate, NaiveTime};

use super::entry::{
    EntryFields, SUPERSEDED_BY, SUPERSEDED_WORDS, content_mask, decision_of_fields,
    is_block_section, names_a_field, read_fields, read_heading,
};
use super::entry::{is_decision_section_heading, is_field_label};
use super::events::{Event, scan_events};
use super::meaning::{
    is_open_question, is_pointer, kind_of_title, names_an_option_not_taken, status_from_title,
};
use super::text::{clean_title, is_placeholder, may_contain_word, strip_markup};
use super::{Decision, DecisionKind, DecisionStatus, DecisionStyle};
use crate::markup::markdown;

/// Headings that organise a log rather than record a decision.
fn is_structural_heading(text: &str) -> bool {
    let lower = text.trim().trim_end_matches(':').to_lowercase();
    matches!(
        lower.as_str(),
        "table of contents" | "contents" | "toc" | "index" | "decision log" | "decisions"
    ) || lower.starts_with("template")
        || lower.ends_with("template")
}

/// A heading that is only the word "Decision", in any language.
fn is_bare_decision_heading(text: &str) -> bool {
    let heading = read_heading(text);
    !heading.certain
        && heading.id.is_none()
        && heading.date.is_none()
        && super::entry::is_block_section(text)
        && super::entry::names_a_decision(text)
}

/// `---`, `***` or `___`: a line that separates entries.
fn is_thematic_break(line: &str) -> bool {
    let t = line.trim();
    t.len() >= 3
        && (t.bytes().all(|b| b == b'-')
            || t.bytes().all(|b| b == b'*')
            || t.bytes().all(|b| b == b'_'))
}

/// The first value in sorted `values` greater than `after`.
fn first_after(values: &[usize], after: usize) -> Option<usize> {
    values.get(values.partition_point(|&v| v <= after)).copied()
}

/// [`first_after`] for positions that never decrease: a cursor that only moves forward.
struct Cursor<'a> {
    values: &'a [usize],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn new(values: &'a [usize]) -> Self {
        Cursor { values, at: 0 }
    }

    fn after(&mut self, position: usize) -> Option<usize> {
        while self.at < self.values.len() && self.values[self.at] <= position {
            self.at += 1;
        }
        self.values.get(self.at).copied()
    }
}

/// Entries of a decision log, in file order. Time is O(n log n) in the lines.
pub fn parse_log(path: &Path, text: &str) -> Vec<Decision> {
    let lines: Vec<&str> = text.lines().collect();
    let mask = content_mask(text, lines.len());
    let events = scan_events(&lines, &mask, text.is_ascii());
    let display = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();

    // Start line, end-exclusive bound, draft.
    struct Draft {
        start: usize,
        level: usize,
        title: String,
        id: Option<String>,
        date: Option<(NaiveDate, Option<NaiveTime>)>,
        month: Option<super::Month>,
        status: Option<DecisionStatus>,
        style: DecisionStyle,
        /// A dated heading with no title: a day grouping entries below it.
        group: bool,
        /// Title of the heading that groups this entry with others.
        category: Option<String>,
    }
    let mut drafts: Vec<Draft> = Vec::new();
    // Where the body of the heading at `events[position]` (of `level`) ends: at the next
    // heading of the same or a higher level, at a heading that is surely an entry, or at
    // a log line, list item, table row or footer.
    let body_end = |position: usize, level: usize| -> usize {
        events[position + 1..]
            .iter()
            .find(|(_, e)| match e {
                Event::Heading { level: l, text } => *l <= level || read_heading(text).certain,
                Event::LogLine { .. }
                | Event::ListItem { .. }
                | Event::TableRow(_)
                | Event::Footer => true,
            })
            .map_or(lines.len(), |(l, _)| *l)
    };
    // A plain heading is a decision when its own body carries decision fields; a
    // thematic break (`---`) ends the body, as it ends an entry in a log.
    let body_has_fields = |position: usize, level: usize| -> bool {
        let start = events[position].0;
        read_fields(
            (start + 1..body_end(position, level))
                .take_while(|i| !is_thematic_break(lines[*i]))
                .filter(|i| mask[*i])
                .map(|i| lines[i]),
        )
        .has_marker
    };
    // Whether a section says something of its own: a line of text that is not a heading
    // and not only a link (a "Related links" list records nothing).
    let body_has_prose = |position: usize, level: usize| -> bool {
        let start = events[position].0;
        let end = body_end(position, level);
        // A section showing a template (`# ADR-XXX: Title` in a code block) is its form.
        let shows_a_form = (start + 1..end).any(|i| {
            markdown::heading(lines[i].trim_start()).is_some_and(|(_, t)| is_placeholder(&t))
        });
        !shows_a_form
            && (start + 1..end)
                .filter(|i| mask[*i])
                .map(|i| lines[i].trim())
                .any(|line| {
                    let item = line.trim_start_matches(['-', '*', '+', ' ']);
                    !line.is_empty()
                        && markdown::heading(line).is_none()
                        && !(item.starts_with('[') && item.trim_end().ends_with(')'))
                })
    };
    // A log written as sections of prose, one per decision ("## Why PostGIS" over its
    // reasons): no line, bullet or row is an entry, and at most one heading is dated,
    // numbered or holds fields. Each section below the title is then an entry.
    let prose_log = {
        let sections = || {
            events
                .iter()
                .enumerate()
                .filter_map(|(position, (_, e))| match e {
                    Event::Heading { level, text } if *level >= 2 => Some((position, *level, text)),
                    _ => None,
                })
        };
        let kept_otherwise = events.iter().any(|(_, e)| {
            matches!(
                e,
                Event::LogLine { .. } | Event::ListItem { .. } | Event::TableRow(_)
            )
        });
        let recorded = sections()
            .filter(|(position, level, text)| {
                read_heading(text).certain || body_has_fields(*position, *level)
            })
            .count();
        let prose = sections()
            .filter(|(_, level, text)| *level == 2 && !is_structural_heading(text))
            .count();
        !kept_otherwise && recorded <= 1 && prose >= 2
    };
    // Whether a heading's own text, up to the next heading, dates it with a field of its
    // own (`- **Date:** 2025-04-19`): a part of a record carries no date of its own.
    let dated_by_own_field = |position: usize| -> bool {
        let start = events[position].0;
        let next = events[position + 1..]
            .iter()
            .find(|(_, e)| matches!(e, Event::Heading { .. } | Event::Footer))
            .map_or(lines.len(), |(l, _)| *l);
        read_fields(
            (start + 1..next)
                .take_while(|i| !is_thematic_break(lines[*i]))
                .filter(|i| mask[*i])
                .map(|i| lines[i]),
        )
        .date
        .is_some()
    };
    // Whether the bullet on `line` follows a lead-in (`**Implications:**`): a list of
    // details of the entry above, not entries.
    let after_lead_in = |line: usize| -> bool {
        (0..line)
            .rev()
            .find(|i| !lines[*i].trim().is_empty())
            .is_some_and(|i| {
                let text = strip_markup(lines[i]);
                let text = text.trim();
                mask[i]
                    && markdown::heading(lines[i]).is_none()
                    && !["- ", "* ", "+ "]
                        .iter()
                        .any(|marker| lines[i].trim_start().starts_with(marker))
                    && (text.ends_with(':') || text.ends_with('：'))
            })
    };
    // Whether bullets read now are details of the entry above (see `after_lead_in`).
    let mut in_details = false;
    // A heading that only groups entries ("Phase 2 decisions" over `### Use X` blocks):
    // no fields before its first sub-heading, and a sub-heading that is an entry itself
    // (surely one, or a plain one with fields of its own). Sections of a block
    // (`### Context`, `### Decision`) are not entries.
    let only_groups = |position: usize, level: usize| -> bool {
        let start = events[position].0;
        let first_sub = events.get(position + 1).map_or(lines.len(), |(l, _)| *l);
        let own = read_fields(
            (start + 1..first_sub)
                .filter(|i| mask[*i])
                .map(|i| lines[i]),
        );
        if own.has_marker {
            return false;
        }
        for (offset, (_, event)) in events[position + 1..].iter().enumerate() {
            let Event::Heading { level: l, text } = event else {
                if matches!(event, Event::Footer) {
                    return false;
                }
                continue;
            };
            if *l <= level {
                return false;
            }
            if is_block_section(text) {
                continue;
            }
            let child = read_heading(text);
            if child.certain
                || (!child.title.is_empty() && body_has_fields(position + 1 + offset, *l))
            {
                return true;
            }
        }
        false
    };
    // Headings that group the entries below them, innermost last: (level, title).
    let mut groups: Vec<(usize, String)> = Vec::new();
    // Level of the entry whose body we are in: a plain heading below it is one of its
    // sections (`### Option 1` under a log line), not a decision of its own.
    let mut open: Option<usize> = None;
    // Whether that entry is a log line or a list bullet (whose peers are more bullets).
    let mut open_by_line = false;
    for (position, (line, event)) in events.iter().enumerate() {
        if !matches!(event, Event::ListItem { .. }) {
            in_details = false;
        }
        if let Event::Heading { level, .. } = event {
            if open.is_some_and(|l| *level <= l) {
                open = None;
            }
            while groups.last().is_some_and(|(l, _)| *level <= *l) {
                groups.pop();
            }
        }
        let category = groups.last().map(|(_, title)| title.clone());
        match event {
            Event::Footer => {}
            Event::LogLine { date, title } => {
                if title.is_empty() || is_placeholder(title) {
                    continue;
                }
                open = Some(2);
                open_by_line = true;
                drafts.push(Draft {
                    start: *line,
                    level: 7,
                    title: decision_of_fields(title).unwrap_or_else(|| title.clone()),
                    id: None,
                    date: Some(*date),
                    month: None,
                    status: None,
                    style: DecisionStyle::LogLine,
                    group: false,
                    category,
                });
            }
            Event::ListItem { title, date } => {
                // Inside another entry's body a bullet is a detail of it.
                if open.is_some() && !open_by_line {
                    continue;
                }
                // A pointer to another record or an open question records no decision.
                if is_pointer(title) || is_open_question(title) || is_field_label(title) {
                    continue;
                }
                // So is a bullet under a lead-in of a logged entry, and the bullets after it.
                if open.is_some() && date.is_none() && (in_details || after_lead_in(*line)) {
                    in_details = true;
                    continue;
                }
                open = Some(2);
                open_by_line = true;
                drafts.push(Draft {
                    start: *line,
                    level: 7,
                    title: decision_of_fields(title).unwrap_or_else(|| title.clone()),
                    id: None,
                    date: *date,
                    month: None,
                    status: None,
                    style: DecisionStyle::ListItem,
                    group: false,
                    category,
                });
            }
            Event::TableRow(row) => drafts.push(Draft {
                start: *line,
                level: 8,
                title: row.title.clone(),
                id: row.id.clone(),
                date: row.date,
                month: None,
                status: row.status,
                style: DecisionStyle::TableRow,
                group: false,
                category,
            }),
            Event::Heading { level, text } => {
                if is_structural_heading(text) || is_placeholder(text) {
                    continue;
                }
                let heading = read_heading(text);
                if is_placeholder(&heading.title)
                    || is_open_question(&heading.title)
                    || names_an_option_not_taken(&heading.title)
                {
                    continue;
                }
                if !heading.certain && *level > 1 && is_decision_section_heading(text) {
                    // "## Architecture Decisions": names the entries below it.
                    groups.push((*level, clean_title(text)));
                    continue;
                }
                // A dated heading over entries of its own ("## 2026-04-17: Setup" over
                // `### Decision: X` blocks, "## v1.1 (2026-02-23 to 2026-02-24)") only
                // groups them and dates them.
                let titled_group = heading.certain
                    && heading.style == DecisionStyle::DatedHeading
                    && !heading.title.is_empty()
                    && open.is_none()
                    && only_groups(position, *level);
                if titled_group {
                    groups.push((*level, heading.title.clone()));
                }
                let group = heading.date.is_some() && (heading.title.is_empty() || titled_group);
                let accept = if heading.certain {
                    *level > 1 || heading.style == DecisionStyle::Adr
                } else if open.is_some() {
                    // A deeper heading dated by a field of its own is a record beside the
                    // open one, not a section of it.
                    open.is_some_and(|open| *level > open)
                        && !heading.title.is_empty()
                        && !is_block_section(text)
                        && !names_a_field(text)
                        && dated_by_own_field(position)
                } else if *level > 1 && !heading.title.is_empty() {
                    if only_groups(position, *level) {
                        groups.push((*level, heading.title.clone()));
                        false
                    } else {
                        (prose_log
                            && *level == 2
                            && !names_a_field(text)
                            && body_has_prose(position, *level))
                            || body_has_fields(position, *level)
                    }
                } else {
                    false
                };
                if accept {
                    if !group {
                        open = Some(*level);
                        open_by_line = false;
                    }
                    drafts.push(Draft {
                        start: *line,
                        level: *level,
                        title: heading.title,
                        id: heading.id,
                        date: heading.date,
                        month: heading.month,
                        status: None,
                        style: heading.style,
                        group,
                        category,
                    });
                }
            }
        }
    }

    // Ends: the line before the next entry, the next heading at the same or a higher
    // level, or a footer. `enders[level]` holds the lines of the headings of that level or
    // higher and of footers, in order, and a forward cursor over it finds each end: a log
    // of 100k entries must not cost 100k² steps.
    let mut enders: [Vec<usize>; 7] = Default::default();
    for (line, event) in &events {
        let from = match event {
            Event::Heading { level, .. } => (*level).clamp(1, 6),
            Event::Footer => 1,
            _ => continue,
        };
        for list in &mut enders[from..] {
            list.push(*line);
        }
    }
    let starts: Vec<usize> = drafts
        .iter()
        .filter(|d| !d.group)
        .map(|d| d.start)
        .collect();
    // Drafts come in line order, so each "next line after" is a cursor that only moves
    // forward: linear over the whole log.
    let mut next_start = Cursor::new(&starts);
    let mut next_ender: Vec<Cursor<'_>> = enders.iter().map(|e| Cursor::new(e)).collect();
    let mut boundary_after = |start: usize, level: usize, entries: bool| -> usize {
        let next_entry = if entries {
            next_start.after(start)
        } else {
            None
        };
        let next_heading = next_ender[level.clamp(1, 6)].after(start);
        match (next_entry, next_heading) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => a.or(b).unwrap_or(lines.len()),
        }
    };
    let mut out = Vec::new();
    let mut group_date: Option<(usize, usize, (NaiveDate, Option<NaiveTime>))> = None;
    for draft in &drafts {
        // Log lines end at the next section (level 2 or higher), tables at their own line.
        let level = match draft.style {
            DecisionStyle::LogLine | DecisionStyle::ListItem => 2,
            _ => draft.level,
        };
        let mut bound = if draft.style == DecisionStyle::TableRow {
            draft.start + 1
        } else if draft.group {
            // A day heading spans its section, entries included.
            boundary_after(draft.start, level, false)
        } else {
            boundary_after(draft.start, level, true)
        };
        if draft.group
            && let Some(child) = first_after(&starts, draft.start).filter(|s| *s < bound)
        {
            if let Some(date) = draft.date {
                group_date = Some((draft.start, bound, date));
            }
            // What it says above its first entry may be a decision of its own.
            let own = read_fields(
                (draft.start + 1..child)
                    .take_while(|i| !is_thematic_break(lines[*i]))
                    .filter(|i| mask[*i])
                    .map(|i| lines[i]),
            );
            if !own.decided {
                continue;
            }
            bound = (draft.start + 1..child)
                .find(|i| is_thematic_break(lines[*i]))
                .unwrap_or(child);
        }
        let mut end = bound.saturating_sub(1).max(draft.start);
        while end > draft.start {
            let t = lines[end].trim();
            if t.is_empty() || t == "---" || t == "***" || t == "___" {
                end -= 1;
            } else {
                break;
            }
        }
        let fields = if draft.style == DecisionStyle::TableRow {
            EntryFields::default()
        } else {
            read_fields(
                (draft.start + 1..=end)
                    .take_while(|i| !is_thematic_break(lines[*i]))
                    .filter(|i| mask[*i])
                    .map(|i| lines[i]),
            )
        };
        // A log line right under a bare "Decision" heading (RooFlow) records what was
        // decided.
        let under_decision_heading = matches!(
            draft.style,
            DecisionStyle::LogLine | DecisionStyle::ListItem
        ) && (0..draft.start)
            .rev()
            .find(|i| !lines[*i].trim().is_empty())
            .and_then(|i| markdown::heading(lines[i]))
            .is_some_and(|(_, text)| is_bare_decision_heading(&text));
        let decided = fields.decided || under_decision_heading;
        let inherited = group_date
            .filter(|(s, b, _)| draft.start > *s && draft.start < *b)
            .map(|(_, _, d)| d);
        let date = draft.date.or(fields.date).or(inherited);
        let month = date
            .is_none()
            .then_some(draft.month.or(fields.month))
            .flatten();
        let mut title = draft.title.clone();
        if title.is_empty() {
            title = fields
                .decision
                .clone()
                .unwrap_or_else(|| "untitled decision".to_string());
        }
        let status = draft
            .status
            .or(fields.status)
            .or_else(|| {
                (may_contain_word(&draft.title, SUPERSEDED_WORDS)
                    && SUPERSEDED_BY.is_match(&draft.title))
                .then_some(DecisionStatus::Superseded)
            })
            .or_else(|| status_from_title(&title))
            .or(decided.then_some(DecisionStatus::Accepted))
            .unwrap_or(DecisionStatus::Unknown);
        let kind = if decided {
            DecisionKind::Decision
        } else {
            kind_of_title(&title)
        };
        out.push(Decision {
            id: draft.id.clone(),
            title,
            date: date.map(|d| d.0),
            time: date.and_then(|d| d.1),
            month,
            status,
            supersedes: fields.supersedes,
            superseded_by: fields.superseded_by,
            file: path.to_path_buf(),
            display: display.clone(),
            line: draft.start + 1,
            end_line: end + 1,
            style: draft.style,
            group: draft.category.clone(),
            kind,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::tests::{date, log, time};
    use super::*;

    #[test]
    fn cline_blocks_with_date_and_status_bullets() {
        let text = "# Decision Log\n\n\
## Decision: Store sessions in Redis\n\
- **Date**: 2024-03-02\n\
- **Status**: Superseded by Decision: Move sessions to Postgres\n\
- **Context**: the cache was already there\n\
\n\
---\n\
\n\
## Decision: Move sessions to Postgres\n\
- **Date**: 2024-06-10\n\
- **Status**: Accepted\n\
- **Rationale**: one fewer service\n";
        let d = log(text);
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].title, "Store sessions in Redis");
        assert_eq!(d[0].date, date("2024-03-02"));
        assert_eq!(d[0].status, DecisionStatus::Superseded);
        assert_eq!(
            d[0].superseded_by,
            vec!["Decision: Move sessions to Postgres"]
        );
        assert_eq!((d[0].line, d[0].end_line), (3, 6));
        assert_eq!(d[0].style, DecisionStyle::ClineBlock);
        assert_eq!(d[1].title, "Move sessions to Postgres");
        assert_eq!(d[1].status, DecisionStatus::Accepted);
        assert_eq!((d[1].line, d[1].end_line), (10, 13));
    }

    #[test]
    fn spec_template_placeholders_are_not_decisions() {
        let text = "# Decision Log\n\n## Decision: [Decision Title]\n- **Date**: [YYYY-MM-DD]\n\
- **Status**: [Accepted / Superseded / Deprecated]\n\n## [Date] - [Decision Topic]\n";
        assert!(log(text).is_empty());
    }

    #[test]
    fn open_questions_and_pointers_in_a_log_are_not_entries() {
        let text = "# Decision Log\n\n## Decision\n\n* Use Redis for the cache\n\
* Full rationale in ADR-077\n* Decision needed: which queue to use\n\n\
## Decision needed: Kafka or NATS?\n**Context:** both fit\n";
        let titles: Vec<String> = log(text).into_iter().map(|d| d.title).collect();
        assert_eq!(titles, ["Use Redis for the cache"]);
    }

    #[test]
    fn rooflow_template_sections_and_detail_bullets_are_not_entries() {
        let text = "# Decision Log\n\n## Decision\n\n*\n\n## Implementation Details\n\n*\n---\n\
### Decision\n[2025-08-30 10:49:40] - Refactored the notes hook to fix stale state.\n\n\
**Implications/Details:**\n- saveNotes now sorts\n- saveNote returns the array\n---\n\
### Decision\n[2025-08-30 15:33:30] - Adopt an SEO architecture\n";
        let d = log(text);
        let got: Vec<(&str, DecisionStatus)> =
            d.iter().map(|d| (d.title.as_str(), d.status)).collect();
        assert_eq!(
            got,
            [
                // Each is logged right under a "Decision" heading.
                (
                    "Refactored the notes hook to fix stale state.",
                    DecisionStatus::Accepted
                ),
                ("Adopt an SEO architecture", DecisionStatus::Accepted),
            ],
            "{d:#?}"
        );
    }

    #[test]
    fn dated_headings_over_decision_blocks_only_group_them() {
        let text = "# Журнал решений\n\n## 2026-04-17: Инициализация\n\n\
### Решение: Копейки для сумм\n**Почему:** точность\n\n\
### Решение: Zustand + React Query\n**Почему:** просто\n\n\
## v1.1 — Ball Tracking (2026-02-23 to 2026-02-24)\n\n\
### Decision: Track the ball with YOLO\n- **Status**: Applied to staging. Disabled same session\n\n\
## 2026-05-01 - Merged the tracking branch into main\n**Context:** release\n";
        let d = log(text);
        let got: Vec<(&str, Option<&str>, DecisionStatus, DecisionKind)> = d
            .iter()
            .map(|d| (d.title.as_str(), d.group.as_deref(), d.status, d.kind))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "Копейки для сумм",
                    Some("Инициализация"),
                    DecisionStatus::Unknown,
                    DecisionKind::Decision
                ),
                (
                    "Zustand + React Query",
                    Some("Инициализация"),
                    DecisionStatus::Unknown,
                    DecisionKind::Decision
                ),
                (
                    "Track the ball with YOLO",
                    Some("v1.1 — Ball Tracking"),
                    DecisionStatus::Reverted,
                    DecisionKind::Decision
                ),
                (
                    "Merged the tracking branch into main",
                    None,
                    DecisionStatus::Unknown,
                    DecisionKind::Event
                ),
            ],
            "{d:#?}"
        );
        // The group's date dates its entries; a span's first date is the group's.
        assert_eq!(d[0].date, date("2026-04-17"));
        assert_eq!(d[2].date, date("2026-02-23"));
    }

    #[test]
    fn memory_bank_mcp_blocks_need_decision_fields() {
        let text = "# Decision Log\n\n## Overview\nWhy this file exists.\n\n\
## Use SQLite for the index\n- **Date:** 2025-02-11 14:05\n\
**Context:** need local search\n**Decision:** SQLite with FTS5\n\
**Alternatives Considered:** Postgres\n**Consequences:** one file per workspace\n\n\
## Cache embeddings on disk\n### Context\nslow start\n### Decision\ndisk cache\n";
        let d = log(text);
        assert_eq!(d.len(), 2, "{d:#?}");
        assert_eq!(d[0].title, "Use SQLite for the index");
        assert_eq!(d[0].date, date("2025-02-11"));
        assert_eq!(d[0].time, NaiveTime::from_hms_opt(14, 5, 0));
        assert_eq!(d[0].style, DecisionStyle::Block);
        // Its Decision field says what was decided: taken, though no status is written.
        assert_eq!(d[0].status, DecisionStatus::Accepted);
        assert_eq!(d[1].title, "Cache embeddings on disk");
        assert_eq!(d[1].date, None);
        assert_eq!((d[1].line, d[1].end_line), (13, 17));
    }

    #[test]
    fn a_log_line_of_fields_is_titled_by_its_decision() {
        let text = "# Decisions\n\n[2026-04-07] **Décision** : Astro 6 | **Raison** : SSG | \
**Alternative** : Next.js\n\n[2026-04-08] Keep the CLI | because: users\n";
        let titles: Vec<String> = log(text).into_iter().map(|d| d.title).collect();
        assert_eq!(titles, ["Astro 6", "Keep the CLI | because: users"]);
    }

    #[test]
    fn a_day_heading_says_what_was_decided_in_the_list_under_its_field() {
        let text = "# 决策日志\n\n## 2025-07-31\n\n**决策:**\n- **确认重构方向:** 迁移到 BLoC\n\
- 规划 HomeScreen\n\n## 2025-08-01\n\n**Decision:**\n- Build the release APK\n\n---\n\
### Decision (code)\n[2025-08-01 06:42:29] - Fix the compile errors\n";
        let d = log(text);
        let got: Vec<(&str, Option<NaiveDate>, DecisionStatus)> = d
            .iter()
            .map(|d| (d.title.as_str(), d.date, d.status))
            .collect();
        assert_eq!(
            got,
            [
                ("确认重构方向", date("2025-07-31"), DecisionStatus::Accepted),
                (
                    "Build the release APK",
                    date("2025-08-01"),
                    DecisionStatus::Accepted
                ),
                (
                    "Fix the compile errors",
                    date("2025-08-01"),
                    DecisionStatus::Unknown
                ),
            ]
        );
        assert_eq!((d[1].line, d[1].end_line), (9, 12));
    }

    #[test]
    fn roo_log_lines_and_footer() {
        let text = "# Decision Log\n\n\
[2025-08-02 12:51:30] - Keep the bank in English\n- why: shared team\n\n\
[2025-08-03 09:00:01] - Switch to pnpm\n\
* [2025-08-04 10:00:00] - Bullet form also counts\n\n\
2025-08-04 10:00:05 - Log of updates made.\n";
        let d = log(text);
        assert_eq!(d.len(), 3);
        assert_eq!(d[0].title, "Keep the bank in English");
        assert_eq!(d[0].time, time("12:51:30"));
        assert_eq!((d[0].line, d[0].end_line), (3, 4));
        assert_eq!(d[1].title, "Switch to pnpm");
        assert_eq!((d[1].line, d[1].end_line), (6, 6));
        assert_eq!(d[2].date, date("2025-08-04"));
        assert_eq!(d[2].end_line, 7);
        assert!(d.iter().all(|d| d.style == DecisionStyle::LogLine));
    }

    #[test]
    fn rooflow_list_logs_give_one_entry_per_bullet_dated_or_not() {
        let text = "# Decision Log\n\n\
This file records architectural and implementation decisions using a list format.\n\
2025-03-02 12:00:00 - Log of updates made.\n\n*\n\n## Decision\n\n\
* **Use SQLite for the local cache**\n  * Small footprint, no server.\n\
* [2025-03-04 10:15:00] - Adopt React Query\n\
- Switch the build to Vite\n\n## Rationale\n\n* Faster local builds.\n\n\
## Implementation Details\n\n*\n";
        let d = log(text);
        let titles: Vec<&str> = d.iter().map(|d| d.title.as_str()).collect();
        assert_eq!(
            titles,
            [
                "Use SQLite for the local cache",
                "Adopt React Query",
                "Switch the build to Vite"
            ]
        );
        assert_eq!((d[0].line, d[0].end_line, d[0].date), (10, 11, None));
        assert_eq!(d[0].style, DecisionStyle::ListItem);
        assert_eq!(d[1].date, date("2025-03-04"));
        assert_eq!((d[2].style, d[2].date), (DecisionStyle::ListItem, None));
    }

    #[test]
    fn a_rooflow_log_and_a_log_of_fields_read_the_same_in_other_languages() {
        let text = "# Журнал решений\n\n## Решение\n\n* Использовать MongoDB\n\n\
## Обоснование\n\n* Гибкая схема\n\n## Решение\n\n* REST API для проектов\n";
        let titles: Vec<String> = log(text).into_iter().map(|d| d.title).collect();
        assert_eq!(titles, ["Использовать MongoDB", "REST API для проектов"]);
        // A Thai label (its vowel signs are marks, not letters) marks each block.
        let text = "# Decision Log\n\n## 1. ใช้ Google Sheets\n- **การตัดสินใจ**: ใช้ Sheets\n\
- **เหตุผล**: ง่าย\n\n## 2. ใช้ Vanilla CSS\n- **การตัดสินใจ**: ไม่ใช้ Tailwind\n";
        assert_eq!(log(text).len(), 2);
    }

    #[test]
    fn a_deeper_heading_dated_by_its_own_field_is_a_record_beside_the_open_one() {
        let text = "# ログ\n\n## ドキュメント削減の決定 (2025-04-18)\n**決定:** 統合する\n\n\
#### [設計変更] logger の明示的初期化\n- **発生日:** 2025-04-19\n- **理由:** テスト\n\n\
#### 背景\n長い説明。\n\n#### Data da decisão\n2025-04-20\n";
        let d = log(text);
        let got: Vec<(&str, Option<NaiveDate>)> =
            d.iter().map(|d| (d.title.as_str(), d.date)).collect();
        assert_eq!(
            got,
            [
                ("ドキュメント削減の決定", date("2025-04-18")),
                ("[設計変更] logger の明示的初期化", date("2025-04-19")),
            ]
        );
        assert_eq!((d[0].line, d[0].end_line), (3, 4));
    }

    #[test]
    fn a_fence_never_closed_ends_at_the_next_section_heading() {
        let text = "# Decision Log\n\n## Plan\n```mermaid\ngraph TD\n## not a heading in a closed fence\n\
```\n\n```mermaid\ngraph LR\n# a comment, not a section\n\n## 2025-04-18 - Merge the docs\n\
**Decision:** one guide\n";
        let d = log(text);
        let titles: Vec<&str> = d.iter().map(|d| d.title.as_str()).collect();
        assert_eq!(titles, ["Merge the docs"]);
        // Closed on the last line, a fence hides all it holds.
        let closed = "# Decision Log\n\n```md\n## 2025-04-18 - An example entry\n```";
        assert!(log(closed).is_empty());
    }

    #[test]
    fn a_decision_section_inside_a_block_keeps_its_bullets() {
        let text = "# Decisions\n\n## Use Postgres\n- **Date:** 2025-01-02\n\
### Decision\n- We use Postgres everywhere\n- **Context:** scale\n";
        let d = log(text);
        let titles: Vec<&str> = d.iter().map(|d| d.title.as_str()).collect();
        assert_eq!(titles, ["Use Postgres"]);
        assert_eq!(d[0].end_line, 7);
    }

    #[test]
    fn sections_under_an_entry_are_not_entries() {
        let text = "# Decision Log\n\n[2025-05-05 19:05:48] - Design the parser\n\n\
### Option 1: Regex\n- **Rationale**: simple\n\n### Option 2: PEG\n- **Rationale**: strict\n\n\
## Decision: Use a PEG\n- **Date**: 2025-05-06\n### Notes\n- **Context**: long story\n";
        let d = log(text);
        let titles: Vec<&str> = d.iter().map(|d| d.title.as_str()).collect();
        assert_eq!(titles, ["Design the parser", "Use a PEG"]);
        assert_eq!((d[0].line, d[0].end_line), (3, 9));
        assert_eq!((d[1].line, d[1].end_line), (11, 14));
    }

    #[test]
    fn adr_headings_inside_a_log() {
        let text = "# Architecture Decisions\n\n\
## ADR-0001 — Graph layout with a layered engine\n\n- **Date:** 2026-01-10\n- **Status:** Accepted\n\n\
## ADR-0002 — Share state through the URL\n\n- **Date:** 2026-01-11\n- **Status:** Deprecated\n";
        let d = log(text);
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].id.as_deref(), Some("ADR-0001"));
        assert_eq!(d[0].title, "Graph layout with a layered engine");
        assert_eq!(d[1].status, DecisionStatus::Deprecated);
        assert_eq!(d[1].style, DecisionStyle::Adr);
    }

    #[test]
    fn tables_of_decisions() {
        let text = "# Decisions\n\n| Date | Decision | Status |\n|---|---|---|\n\
| 2025-03-01 | Use Rust | Accepted |\n| 2025-03-09 | [Drop Python](#drop) | Superseded |\n| [Date] | [Decision] | [Status] |\n\nAfter.\n";
        let d = log(text);
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].title, "Use Rust");
        assert_eq!(d[0].line, 5);
        assert_eq!(d[1].title, "Drop Python");
        assert_eq!(d[1].status, DecisionStatus::Superseded);
        assert_eq!(d[1].style, DecisionStyle::TableRow);
        // Headers in another language name the same columns.
        let text = "# 决策记录\n\n| 日期 | 决策 | 状态 |\n|---|---|---|\n\
| 2026-02-03 | 采用 SQLite | 已废弃 |\n";
        let d = log(text);
        assert_eq!(
            (d[0].title.as_str(), d[0].date, d[0].status),
            (
                "采用 SQLite",
                date("2026-02-03"),
                DecisionStatus::Deprecated
            )
        );
    }

    #[test]
    fn day_headings_group_entries_below_them() {
        let text = "# Log\n\n## 2025-04-01\n\n### Decision: Freeze the API\n- **Status**: proposed\n\n\
### Decision: Tag v1\n\n## 2025-04-02\n\n**Decision:** ship it\n";
        let d = log(text);
        assert_eq!(d.len(), 3, "{d:#?}");
        assert_eq!(
            (d[0].title.as_str(), d[0].date),
            ("Freeze the API", date("2025-04-01"))
        );
        assert_eq!(d[0].status, DecisionStatus::Proposed);
        assert_eq!(d[1].date, date("2025-04-01"));
        // A day heading with no entries below is itself the entry.
        assert_eq!(
            (d[2].title.as_str(), d[2].date),
            ("ship it", date("2025-04-02"))
        );
    }

    #[test]
    fn memory_bank_mcp_title_then_date_with_section_headings() {
        let text = "# Decision Log\n## Use JWT for auth - 2025-02-03\n### Context\nstateless API\n\
### Decision\nJWT\n### Alternatives Considered\n- sessions\n### Consequences\n- key rotation\n";
        let d = log(text);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].title, "Use JWT for auth");
        assert_eq!((d[0].line, d[0].end_line), (2, 10));
    }

    #[test]
    fn a_heading_that_groups_entries_is_not_an_entry() {
        let text = "# Decision Log\n\n## Phase 2 decisions\n\n\
### Use Postgres\n- **Date:** 2025-02-01\n- **Status:** Accepted — pending review of the pool size\n\n\
### Use Redis for sessions\n**Decision:** Redis\n**Status:** Reverted\n\n\
## Architecture Decisions\n\n### Drop the cron box\n**Status:** Superseded by ADR-7\n\n\
## Use a queue\n**Context:** slow jobs\n### Background\nnotes\n";
        let d = log(text);
        let got: Vec<(&str, DecisionStatus, Option<&str>)> = d
            .iter()
            .map(|d| (d.title.as_str(), d.status, d.group.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "Use Postgres",
                    DecisionStatus::Accepted,
                    Some("Phase 2 decisions")
                ),
                (
                    "Use Redis for sessions",
                    DecisionStatus::Reverted,
                    Some("Phase 2 decisions")
                ),
                (
                    "Drop the cron box",
                    DecisionStatus::Superseded,
                    Some("Architecture Decisions")
                ),
                ("Use a queue", DecisionStatus::Unknown, None),
            ]
        );
        assert_eq!((d[0].line, d[0].end_line), (5, 7));
        assert_eq!(d[2].superseded_by, ["ADR-7"]);
        // A block's own sub-sections do not make it a group.
        assert_eq!((d[3].line, d[3].end_line), (18, 21));
    }

    #[test]
    fn rooflow_timestamps_date_entries_with_or_without_brackets() {
        let text = "# Decision Log\n\n\
This file records architectural and implementation decisions using a list format.\n\
2025-07-31 07:01:19 - Initialized the memory bank.\n\n*\n\n## Decision\n\n\
* 2025-07-31 07:01:19 - Initialize the bank from the PRD\n\
* [2025-08-01 10:15:00] - **Use Next.js**\n\
* Undated choice\n\n## Rationale\n\n* because\n\n\
[2025-08-02 19:37:55] - Layout responsibility change\n\
2025-08-03 08:00:00 - Bare stamped decision\n\
2025-08-04 was a sunny day and this line is prose.\n";
        let d = log(text);
        let got: Vec<(&str, Option<NaiveDate>, Option<NaiveTime>)> = d
            .iter()
            .map(|d| (d.title.as_str(), d.date, d.time))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "Initialize the bank from the PRD",
                    date("2025-07-31"),
                    time("07:01:19")
                ),
                ("Use Next.js", date("2025-08-01"), time("10:15:00")),
                ("Undated choice", None, None),
                (
                    "Layout responsibility change",
                    date("2025-08-02"),
                    time("19:37:55")
                ),
                (
                    "Bare stamped decision",
                    date("2025-08-03"),
                    time("08:00:00")
                ),
            ]
        );
        assert_eq!(d[0].style, DecisionStyle::ListItem);
        assert_eq!(d[4].style, DecisionStyle::LogLine);
        assert_eq!((d[4].line, d[4].end_line), (19, 20));
    }
}

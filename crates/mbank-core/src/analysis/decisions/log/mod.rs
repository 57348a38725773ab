//! A decision log's entries: the events of its lines turned into entries with their
//! line spans, body fields, inherited day dates and statuses, in file order.
use std::collections::HashSet;
use std::path::Path;

use chrono::{NaiveDate, NaiveTime};

use super::entry::{
    EntryFields, SUPERSEDED_BY, SUPERSEDED_WORDS, content_mask, decision_of_fields,
    is_block_section, names_a_field, read_fields, read_heading,
};
use super::entry::{is_decision_section_heading, is_field_label};
use super::events::{DateStamp, Event, scan_events};
use super::meaning::{
    asks_why, is_open_question, is_pointer, kind_of_title, names_an_option_not_taken,
    names_not_made, status_from_title,
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
    ) || super::document_date::is_metadata_heading(&lower)
        || lower.starts_with("template")
        || lower.ends_with("template")
        // How the log itself is kept or read, in a few languages.
        || ["how to use", "how to add", "how to read", "usage", "como usar", "cómo usar", "使用方法", "如何使用", "사용법", "как использовать"]
            .iter()
            .any(|lead| lower.starts_with(lead))
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
/// A heading's text as its recurrences are compared.
fn label_key(text: &str) -> String {
    strip_markup(text).trim().to_lowercase()
}

/// Titles of sub-headings that recur under two or more different sections: the parts
/// every entry of a log is written in (`### Implementation`, `### Features`).
fn recurring_sub_headings(events: &[(usize, Event)]) -> std::collections::HashSet<String> {
    let mut parents: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut seen = std::collections::HashSet::new();
    // Position of the nearest heading of each level above the one read.
    let mut open: Vec<(usize, usize)> = Vec::new();
    for (position, (_, event)) in events.iter().enumerate() {
        let Event::Heading { level, text } = event else {
            continue;
        };
        while open.last().is_some_and(|(l, _)| l >= level) {
            open.pop();
        }
        if let Some((_, parent)) = open.last() {
            let key = label_key(text);
            if seen.insert((key.clone(), *parent)) {
                *parents.entry(key).or_default() += 1;
            }
        }
        open.push((*level, position));
    }
    parents
        .into_iter()
        .filter(|(_, count)| *count >= 2)
        .map(|(key, _)| key)
        .collect()
}

/// For each event, whether it sits under a title naming decisions, where the file has
/// one among several ("# Purpose and Goals" over an overview, then "# Architectural
/// Decisions" over the entries): the other titles' sections are not entries. `None`
/// where every section may be one. Worked out once, in one pass.
fn under_decision_titles(events: &[(usize, Event)]) -> Option<Vec<bool>> {
    let names_decisions = |e: &Event| match e {
        Event::Heading { level: 1, text } => Some(is_decision_section_heading(text)),
        _ => None,
    };
    let titles: Vec<bool> = events
        .iter()
        .filter_map(|(_, e)| names_decisions(e))
        .collect();
    if titles.len() < 2 || !titles.contains(&true) {
        return None;
    }
    let mut under = false;
    Some(
        events
            .iter()
            .map(|(_, e)| {
                let here = under;
                if let Some(names) = names_decisions(e) {
                    under = names;
                }
                here
            })
            .collect(),
    )
}

fn is_thematic_break(line: &str) -> bool {
    let t = line.trim();
    t.len() >= 3
        && (t.bytes().all(|b| b == b'-')
            || t.bytes().all(|b| b == b'*')
            || t.bytes().all(|b| b == b'_'))
}

/// For each line, the date of the innermost section around it that gives one: its
/// heading's (`### 디자인 결정 (2026-05-02 추가)`) or a date field in its own text before
/// its first sub-heading, quoted or not (`> **결정일**: 2026-05-01`).
fn section_dates(
    lines: &[&str],
    mask: &[bool],
    events: &[(usize, Event)],
) -> Vec<Option<DateStamp>> {
    let headings: Vec<(usize, usize, &str)> = events
        .iter()
        .filter_map(|(line, event)| match event {
            Event::Heading { level, text } => Some((*line, *level, text.as_str())),
            _ => None,
        })
        .collect();
    let mut out = vec![None; lines.len()];
    if headings.is_empty() {
        return out;
    }
    // Open sections, outermost first: (level, date).
    let mut open: Vec<(usize, Option<DateStamp>)> = Vec::new();
    for (index, &(line, level, text)) in headings.iter().enumerate() {
        while open.last().is_some_and(|(l, _)| *l >= level) {
            open.pop();
        }
        let body_end = headings.get(index + 1).map_or(lines.len(), |next| next.0);
        let own = read_heading(text).date.or_else(|| {
            read_fields(
                (line + 1..body_end)
                    .filter(|i| mask[*i])
                    .map(|i| lines[i].trim_start().trim_start_matches('>').trim_start()),
            )
            .date
        });
        open.push((level, own));
        let innermost = open.iter().rev().find_map(|(_, date)| *date);
        for slot in &mut out[line..body_end] {
            *slot = innermost;
        }
    }
    out
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
    impl Draft {
        /// An entry a line opens (a log line, a list item, a decision label): below every
        /// heading, with no id or status of its own.
        fn at_line(
            start: usize,
            title: String,
            date: Option<(NaiveDate, Option<NaiveTime>)>,
            style: DecisionStyle,
            category: Option<String>,
        ) -> Draft {
            Draft {
                start,
                level: 7,
                title,
                id: None,
                date,
                month: None,
                status: None,
                style,
                group: false,
                category,
            }
        }
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
    let body_fields = |position: usize, level: usize| -> EntryFields {
        let start = events[position].0;
        read_fields(
            (start + 1..body_end(position, level))
                .take_while(|i| !is_thematic_break(lines[*i]))
                .filter(|i| mask[*i])
                .map(|i| lines[i]),
        )
    };
    let body_has_fields =
        |position: usize, level: usize| -> bool { body_fields(position, level).has_marker };
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
                    // A fence, a rule, a heading, a link alone or an empty list item (a
                    // template's `*`) says nothing of its own.
                    let says_nothing = item.trim().is_empty()
                        || line.starts_with("```")
                        || line.starts_with("~~~")
                        || is_thematic_break(line)
                        || markdown::heading(line).is_some()
                        || (item.starts_with('[') && item.trim_end().ends_with(')'));
                    !says_nothing
                })
    };
    // "### Why SVG placeholders instead of real images" over the prose giving the reason:
    // a decision explained (a question, "Why is CI slow?", needs a record's fields).
    let explains_in_prose = |title: &str, position: usize, level: usize| -> bool {
        asks_why(title) && !is_open_question(title) && body_has_prose(position, level)
    };
    // Whether a heading's body leaves its choice empty (`**Project choice:**` with
    // nothing after it): a decision still to take.
    let undecided = |fields: &EntryFields| -> bool {
        // A proposal with its status or date is a record still.
        fields.undecided && fields.status.is_none() && fields.date.is_none()
    };
    let under_decision_titles_once = std::cell::OnceCell::new();
    let under_decision_titles =
        || under_decision_titles_once.get_or_init(|| under_decision_titles(&events));
    let part_labels = std::cell::OnceCell::new();
    let part_labels = || part_labels.get_or_init(|| recurring_sub_headings(&events));
    // Whether a heading has sections of its own below it (not a record's field
    // headings, `### Context`, `### 决策时间`).
    let has_sub_sections = |position: usize, level: usize| -> bool {
        events[position + 1..]
            .iter()
            .map_while(|(_, event)| match event {
                Event::Heading { level: l, text } if *l > level => Some(Some(text)),
                Event::Heading { .. } | Event::Footer => None,
                _ => Some(None),
            })
            .flatten()
            .try_fold(false, |sections, text| {
                // A title recurring under other sections (`### Implementation` under
                // every numbered decision) names a part of this one: it has no sections.
                if part_labels().contains(&label_key(text)) {
                    return None;
                }
                Some(sections || (!names_a_field(text) && !is_block_section(text)))
            })
            .unwrap_or(false)
    };
    // A log written as sections of prose, one per decision ("## Why PostGIS" over its
    // reasons): no line, bullet or row is an entry, and at most one heading is dated,
    // numbered or holds fields. Each section below the title is then an entry.
    let prose_log = std::cell::OnceCell::new();
    let is_prose_log = || {
        *prose_log.get_or_init(|| {
            let sections = || {
                events
                    .iter()
                    .enumerate()
                    .filter_map(|(position, (_, e))| match e {
                        Event::Heading { level, text } if *level >= 2 => {
                            Some((position, *level, text))
                        }
                        _ => None,
                    })
            };
            let kept_otherwise = events.iter().any(|(_, e)| {
                matches!(
                    e,
                    Event::LogLine { .. } | Event::ListItem { .. } | Event::TableRow(_)
                )
            });
            if kept_otherwise {
                return false;
            }
            // Two records settle it: no need to read every section.
            let recorded = sections()
                .filter(|(position, level, text)| {
                    read_heading(text).certain || body_has_fields(*position, *level)
                })
                .take(2)
                .count();
            let prose = sections()
                .filter(|(_, level, text)| *level == 2 && !is_structural_heading(text))
                .take(2)
                .count();
            recorded <= 1 && prose >= 2
        })
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
    // Whether the section of the heading at `position` lists entries as bullets.
    let lists_entries = |position: usize| -> bool {
        events[position + 1..]
            .iter()
            .take_while(|(_, e)| !matches!(e, Event::Heading { .. } | Event::Footer))
            .any(|(_, e)| matches!(e, Event::ListItem { .. }))
    };
    // Whether a table of decisions follows the heading at `position` in its own body.
    let tabulates_entries = |position: usize| -> bool {
        events[position + 1..]
            .iter()
            .take_while(|(_, e)| !matches!(e, Event::Heading { .. } | Event::Footer))
            .any(|(_, e)| matches!(e, Event::TableRow(_)))
    };
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
            let child_position = position + 1 + offset;
            if child.certain
                || (!child.title.is_empty() && body_has_fields(child_position, *l))
                || explains_in_prose(&child.title, child_position, *l)
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
    // Whether the open entry is a bullet: its body is what its item wraps onto, so the
    // list's end (a heading, a thematic break) closes it.
    let mut open_by_bullet = false;
    let mut previous_line = 0;
    // Whether the heading above is a part of a record explaining its decision (Roo
    // Code's log keeps `## Rationale` and `## Implementation Details` beside `## Decision`).
    let mut in_record_part = false;
    // The stamps (day and time) of the log lines taken as entries so far.
    let mut logged_stamps: HashSet<(NaiveDate, NaiveTime)> = HashSet::new();
    for (position, (line, event)) in events.iter().enumerate() {
        if !matches!(event, Event::ListItem { .. }) {
            in_details = false;
        }
        if let Event::Heading { text, .. } = event {
            in_record_part = super::record_parts::names_an_explaining_part(text);
        }
        let after_break = (previous_line..*line).any(|i| mask[i] && is_thematic_break(lines[i]));
        previous_line = *line;
        if open_by_line && after_break {
            open = None;
        }
        if let Event::Heading { level, .. } = event {
            if open.is_some_and(|l| *level <= l) || open_by_bullet {
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
                // Stamped as a decision logged above, under a part explaining it: that
                // decision's rationale or details. (RooFlow appends new decisions at the
                // end of the file, under whatever part comes last, each with its own stamp.)
                let stamp = date.1.map(|time| (date.0, time));
                if in_record_part && stamp.is_some_and(|stamp| logged_stamps.contains(&stamp)) {
                    continue;
                }
                logged_stamps.extend(stamp);
                open = Some(2);
                open_by_line = true;
                open_by_bullet = false;
                drafts.push(Draft::at_line(
                    *line,
                    decision_of_fields(title).unwrap_or_else(|| title.clone()),
                    Some(*date),
                    DecisionStyle::LogLine,
                    category,
                ));
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
                open_by_bullet = true;
                drafts.push(Draft::at_line(
                    *line,
                    decision_of_fields(title).unwrap_or_else(|| title.clone()),
                    *date,
                    DecisionStyle::ListItem,
                    category,
                ));
            }
            Event::TableRow(row) => drafts.push(Draft {
                start: *line,
                level: 8,
                title: row.title.clone(),
                id: row.id.clone(),
                date: row.date,
                month: row.month,
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
                // "Why Vite?" over the fields of a record explains a decision taken.
                let explained = || asks_why(&heading.title) && body_has_fields(position, *level);
                if is_placeholder(&heading.title)
                    || (is_open_question(&heading.title) && !explained())
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
                    && (only_groups(position, *level)
                        || (super::meaning::only_names_decisions(&heading.title)
                            && lists_entries(position))
                        // "### 디자인 결정 (2026-05-02)" over a table of them.
                        || (is_decision_section_heading(&heading.title)
                            && tabulates_entries(position)));
                if titled_group {
                    groups.push((*level, heading.title.clone()));
                }
                let group = (heading.date.is_some() || heading.month.is_some())
                    && (heading.title.is_empty() || titled_group);
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
                        let fields = body_fields(position, *level);
                        if fields.has_marker {
                            !undecided(&fields)
                        } else if !names_a_field(text)
                            && !is_block_section(text)
                            && is_prose_log()
                            && under_decision_titles()
                                .as_ref()
                                .is_none_or(|under| under[position])
                        {
                            // Sections of prose: the innermost are the decisions, the ones
                            // over them their categories.
                            if has_sub_sections(position, *level) {
                                groups.push((*level, heading.title.clone()));
                                false
                            } else {
                                body_has_prose(position, *level)
                            }
                        } else {
                            explains_in_prose(&heading.title, position, *level)
                        }
                    }
                } else {
                    false
                };
                if accept {
                    if !group {
                        open = Some(*level);
                        open_by_line = false;
                        open_by_bullet = false;
                    }
                    drafts.push(Draft {
                        start: *line,
                        level: *level,
                        title: heading.title,
                        id: heading.id,
                        date: heading.date,
                        month: heading.month,
                        status: heading.status,
                        style: heading.style,
                        group,
                        category,
                    });
                }
            }
        }
    }

    // A heading over several labelled decisions ("### Stack" over "**Decision:** Bash"
    // and "**Decision:** BATS", each with its reasons): every label opens an entry, and
    // the heading groups them.
    let drafts: Vec<Draft> = drafts
        .into_iter()
        .flat_map(|draft| {
            let body = (draft.start + 1..lines.len()).take_while(|i| {
                !lines[*i].trim_start().starts_with('#')
                    || !mask[*i]
                    || markdown::heading(lines[*i]).is_none()
            });
            // A record of its own (`## ADR-053: …`) keeps its title, whatever its body holds.
            let record = draft.id.is_some() || draft.style == DecisionStyle::Adr;
            let labels: Vec<(usize, String)> = if draft.group || draft.level > 6 || record {
                Vec::new()
            } else {
                let body: Vec<usize> = body.collect();
                let items = labels::section_items(&lines, &mask, &body);
                let fielded: Vec<(usize, String)> = items
                    .iter()
                    .filter_map(|(i, label)| decision_of_fields(label).map(|title| (*i, title)))
                    .collect();
                // Without a decision field, bold leads may name the decisions; not in a
                // record of one (its fields) nor under a "why" (its reasons).
                if fielded.is_empty()
                    && labels::two_leads(&items)
                    && !asks_why(&draft.title)
                    && !names_not_made(&draft.title)
                    && labels::body_is_its_leads(&lines, &mask, &body)
                    && !read_fields(body.iter().filter(|i| mask[**i]).map(|i| lines[*i])).has_marker
                {
                    labels::led_decisions(&labels::paragraph_leads(&lines, &items))
                } else {
                    fielded
                }
            };
            if labels.len() < 2 {
                return vec![draft];
            }
            // What a list says before its first label (`- Fecha: 2026-08-15.`,
            // `- Estado: aceptada.`) holds for every decision it lists; a block's fields
            // above its label are its own (see `paragraph_start`).
            let shared = if lines[labels[0].0].starts_with("**") {
                EntryFields::default()
            } else {
                read_fields(
                    (draft.start + 1..labels[0].0)
                        .filter(|i| mask[*i])
                        .map(|i| lines[i]),
                )
            };
            let category = Some(draft.title.clone());
            // A heading naming their status ("8. Rejected (so we do not go back)") gives
            // it to every decision it lists.
            let listed_as = DecisionStatus::parse(
                draft
                    .title
                    .trim_start_matches(|c: char| c.is_ascii_digit())
                    .trim_start_matches(['.', ')', ' ']),
            );
            labels
                .into_iter()
                .map(|(line, title)| Draft {
                    month: draft.month.or(shared.month),
                    status: shared.status.or(listed_as),
                    ..Draft::at_line(
                        line,
                        title,
                        draft.date.or(shared.date),
                        DecisionStyle::Block,
                        category.clone(),
                    )
                })
                .collect()
        })
        .collect();

    // Ends: the line before the next entry, the next heading at the same or a higher
    // level, or a footer. `enders[level]` holds the lines of the headings of that level or
    // higher and of footers, in order, and a forward cursor over it finds each end: a log
    // of 100k entries must not cost 100k² steps.
    // Read only where a table row lacks a date: it is a second pass over every section.
    let section_dates = if drafts
        .iter()
        .any(|d| d.style == DecisionStyle::TableRow && d.date.is_none())
    {
        section_dates(&lines, &mask, &events)
    } else {
        Vec::new()
    };
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
    // The first line of the paragraph of fields a decision label stands in (`**Date:**`
    // and `**Module:**` lines right above `**Decision:**`).
    let paragraph_start = |label: usize| -> usize {
        // A label in a list (`- Decisión: …`) stands in the section's list, no block.
        if !lines[label].starts_with("**") {
            return label;
        }
        (0..label)
            .rev()
            .take_while(|i| {
                mask[*i]
                    && !lines[*i].trim().is_empty()
                    && markdown::heading(lines[*i]).is_none()
                    && !is_thematic_break(lines[*i])
            })
            .last()
            .unwrap_or(label)
    };
    let is_labelled = |draft: &Draft| draft.level == 7 && draft.style == DecisionStyle::Block;
    let mut out = Vec::new();
    let mut group_date: Option<(usize, usize, (NaiveDate, Option<NaiveTime>))> = None;
    let mut group_month: Option<(usize, usize, super::Month)> = None;
    for (index, draft) in drafts.iter().enumerate() {
        // Log lines end at the next section (level 2 or higher), bullets at any heading
        // (their list ended), tables at their own line.
        let level = match draft.style {
            DecisionStyle::LogLine => 2,
            DecisionStyle::ListItem => 6,
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
            } else if let Some(month) = draft.month {
                group_month = Some((draft.start, bound, month));
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
        if matches!(
            draft.style,
            DecisionStyle::LogLine | DecisionStyle::ListItem
        ) && let Some(rule) =
            (draft.start + 1..bound).find(|i| mask[*i] && is_thematic_break(lines[*i]))
        {
            // A thematic break ends the list or the paragraphs a log line opened.
            bound = rule;
        }
        if draft.style == DecisionStyle::ListItem
            && let Some(peer) = (draft.start + 1..bound).find(|i| {
                mask[*i] && crate::limits::list_marker_len(lines[*i].as_bytes()).is_some()
            })
        {
            // A bullet ends where the next item of its list starts, entry or not.
            bound = peer;
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
        let labelled = is_labelled(draft);
        // The next labelled record's fields above its label are its own, not this one's.
        if labelled && let Some(next) = drafts.get(index + 1).filter(|d| is_labelled(d)) {
            end = end
                .min(paragraph_start(next.start).saturating_sub(1))
                .max(draft.start);
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
        // An entry opened by its decision label ("**Decision:** BATS") says what was decided.
        // A record written as one block of fields (`**Date:**`, `**Module:**`, then
        // `**Decision:**`): the fields above its label, in the same paragraph, are its own.
        let above = if labelled {
            read_fields((paragraph_start(draft.start)..draft.start).map(|i| lines[i]))
        } else {
            EntryFields::default()
        };
        let decided = fields.decided || under_decision_heading || labelled;
        let inherited = group_date
            .filter(|(s, b, _)| draft.start > *s && draft.start < *b)
            .map(|(_, _, d)| d);
        // A table row has no body of its own: the section it stands in may date it.
        let section_date = (draft.style == DecisionStyle::TableRow)
            .then(|| section_dates.get(draft.start).copied().flatten())
            .flatten();
        let date = draft
            .date
            .or(fields.date)
            .or(above.date)
            .or(inherited)
            .or(section_date);
        let inherited_month = group_month
            .filter(|(s, b, _)| draft.start > *s && draft.start < *b)
            .map(|(_, _, m)| m);
        let month = date
            .is_none()
            .then_some(
                draft
                    .month
                    .or(fields.month)
                    .or(above.month)
                    .or(inherited_month),
            )
            .flatten();
        let mut title = draft.title.clone();
        if title.is_empty() {
            // A day or month over prose: its first line says what was decided.
            let first_line = || {
                (draft.start + 1..=end)
                    .filter(|i| mask[*i])
                    .map(|i| clean_title(lines[i]))
                    .find(|line| !line.is_empty() && !is_thematic_break(line))
                    .map(|line| match line.char_indices().nth(100) {
                        Some((cut, _)) => format!("{}…", &line[..cut]),
                        None => line,
                    })
            };
            title = fields
                .decision
                .clone()
                .or_else(first_line)
                .unwrap_or_else(|| "untitled decision".to_string());
        }
        let status = draft
            .status
            .or(fields.status)
            .or(above.status)
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
    if super::date_order::writes_days_first(text) {
        super::date_order::read_days_first(&mut out, &lines);
    }
    out
}

mod labels;
#[cfg(test)]
mod tests;

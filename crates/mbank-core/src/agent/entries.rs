//! The text the Memory Bank MCP tools add to a bank, in the formats the timeline parses
//! (`core::analysis::decisions`), dated:
//! - `log_decision`: a Cline block (`## Decision: X` + `- **Date**: …` bullets, the Cline memory bank spec)
//!   in a Cline bank, the Memory Bank MCP spec's entry (`## X - date` with `### Context`,
//!   `### Decision`, `### Alternatives Considered`, `### Consequences`) otherwise, appended
//!   after the last entry;
//! - `track_progress`: `- [YYYY-MM-DD HH:MM:SS] - action: description` under
//!   `## Update History`, newest first (FORMATS.md, section 2);
//! - `update_active_context`: the `## Ongoing Tasks` / `## Known Issues` / `## Next Steps`
//!   sections replaced, and a dated line under `## Current Session Notes`.
use chrono::NaiveDateTime;

/// Which decision block to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DecisionFormat {
    /// `## Decision: Title` with `- **Date**: …` bullets (the Cline memory bank spec).
    Cline,
    /// `## Title - date` with `### Context` / `### Decision` / `### Alternatives
    /// Considered` / `### Consequences` sections (the Memory Bank MCP spec's `decisionLog.md`).
    MemoryBankMcp,
}

/// A decision as `log_decision` receives it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewDecision {
    pub title: String,
    pub context: String,
    pub decision: String,
    pub alternatives: Vec<String>,
    pub consequences: Vec<String>,
}

/// One line of free text: newlines and runs of spaces collapse, so an agent's text
/// cannot start a heading, a dated log line or a new entry of its own inside an entry.
pub(crate) fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A heading title: one line, leading `#` dropped.
pub(crate) fn clean_title(title: &str) -> String {
    one_line(title).trim_start_matches('#').trim().to_string()
}

fn stamp(now: NaiveDateTime) -> String {
    now.format("%Y-%m-%d %H:%M:%S").to_string()
}

/// The block one decision adds to a log (ends with a newline).
pub(crate) fn decision_block(
    format: DecisionFormat,
    now: NaiveDateTime,
    d: &NewDecision,
) -> String {
    let title = clean_title(&d.title);
    let list = |items: &[String], numbered: bool| -> String {
        items
            .iter()
            .map(|i| one_line(i))
            .filter(|i| !i.is_empty())
            .enumerate()
            .map(|(n, i)| {
                if numbered {
                    format!("\n  {}. {i}", n + 1)
                } else {
                    format!("\n  - {i}")
                }
            })
            .collect()
    };
    let mut out = String::new();
    match format {
        DecisionFormat::Cline => {
            out.push_str(&format!("## Decision: {title}\n"));
            out.push_str(&format!("- **Date**: {}\n", stamp(now)));
            out.push_str("- **Status**: Accepted\n");
            out.push_str(&format!("- **Context**: {}\n", one_line(&d.context)));
            if !d.alternatives.is_empty() {
                out.push_str(&format!(
                    "- **Options Considered**:{}\n",
                    list(&d.alternatives, true)
                ));
            }
            out.push_str(&format!("- **Selected**: {}\n", one_line(&d.decision)));
            if !d.consequences.is_empty() {
                out.push_str(&format!(
                    "- **Consequences**:{}\n",
                    list(&d.consequences, false)
                ));
            }
        }
        DecisionFormat::MemoryBankMcp => {
            out.push_str(&format!("## {title} - {}\n", stamp(now)));
            out.push_str(&format!("### Context\n{}\n", one_line(&d.context)));
            out.push_str(&format!("### Decision\n{}\n", one_line(&d.decision)));
            for (heading, items) in [
                ("Alternatives Considered", &d.alternatives),
                ("Consequences", &d.consequences),
            ] {
                let items: Vec<String> = items
                    .iter()
                    .map(|i| one_line(i))
                    .filter(|i| !i.is_empty())
                    .collect();
                if !items.is_empty() {
                    out.push_str(&format!("### {heading}\n"));
                    for item in items {
                        out.push_str(&format!("- {item}\n"));
                    }
                }
            }
        }
    }
    out
}

/// `log` with `block` appended after everything it holds, separated by a blank line
/// (a new log gets its `# Decision Log` heading).
#[cfg(test)]
pub(crate) fn append_block(log: Option<&str>, block: &str) -> String {
    let mut text = log.map(str::to_string);
    append_block_to(&mut text, block);
    text.unwrap_or_default()
}

/// [`append_block`] in place: costs the block, not a copy of the log.
pub(crate) fn append_block_to(log: &mut Option<String>, block: &str) {
    let text = log.get_or_insert_with(String::new);
    if text.trim().is_empty() {
        text.clear();
        text.push_str("# Decision Log\n");
    }
    if !text.ends_with('\n') {
        text.push('\n');
    }
    if !text.ends_with("\n\n") {
        text.push('\n');
    }
    text.push_str(block);
}

/// A progress line: `- [YYYY-MM-DD HH:MM:SS] - action: description`.
pub(crate) fn progress_line(now: NaiveDateTime, action: &str, description: &str) -> String {
    let action = one_line(action);
    let description = one_line(description);
    if action.is_empty() {
        format!("- [{}] - {description}", stamp(now))
    } else {
        format!("- [{}] - {action}: {description}", stamp(now))
    }
}

/// A session note for the active context: `- [YYYY-MM-DD HH:MM:SS] - text`.
pub(crate) fn note_line(now: NaiveDateTime, text: &str) -> String {
    format!("- [{}] - {}", stamp(now), one_line(text))
}

/// Level and title of a `#` heading line outside code.
fn heading_of(line: &str) -> Option<(usize, &str)> {
    let trimmed = line.trim_end();
    let level = trimmed.chars().take_while(|c| *c == '#').count();
    if level == 0 || level > 6 {
        return None;
    }
    let rest = &trimmed[level..];
    if !rest.is_empty() && !rest.starts_with(' ') {
        return None;
    }
    Some((level, rest.trim()))
}

/// Byte ranges of a level-2 section's body: from after its heading line to the next
/// heading of level 1 or 2 (or the end). Headings inside code fences do not count.
fn section_body(text: &str, title: &str) -> Option<(usize, usize)> {
    let fenced = crate::analysis::imports::fenced_line_mask(text);
    let mut offset = 0;
    let mut body_start = None;
    for (index, line) in text.split_inclusive('\n').enumerate() {
        let in_code = fenced.get(index).copied().unwrap_or(false);
        if !in_code && let Some((level, heading)) = heading_of(line) {
            if let Some(start) = body_start
                && level <= 2
            {
                return Some((start, offset));
            }
            if body_start.is_none() && level == 2 && heading.eq_ignore_ascii_case(title) {
                body_start = Some(offset + line.len());
            }
        }
        offset += line.len();
    }
    body_start.map(|start| (start, text.len()))
}

fn with_trailing_newline(mut text: String) -> String {
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// `text` with `line` added as the first item of section `## title` (created at the end
/// when missing): newest first, as Memory Bank MCP keeps its update history.
pub(crate) fn insert_first_in_section(text: &str, title: &str, line: &str) -> String {
    match section_body(text, title) {
        Some((start, end)) => {
            let body = &text[start..end];
            // Keep a blank line between the heading and the list when there was one.
            let lead = body.len() - body.trim_start_matches('\n').len();
            let at = start + lead;
            let mut out = String::with_capacity(text.len() + line.len() + 1);
            out.push_str(&text[..at]);
            out.push_str(line);
            out.push('\n');
            out.push_str(&text[at..]);
            out
        }
        None => {
            let mut out = with_trailing_newline(text.to_string());
            if !out.is_empty() && !out.ends_with("\n\n") {
                out.push('\n');
            }
            out.push_str(&format!("## {title}\n{line}\n"));
            out
        }
    }
}

/// `text` with `line` put last in the `## title` section, after its last line that is not
/// blank (a blank line still parts it from the next heading); the section is appended
/// when missing.
pub(crate) fn append_last_in_section(text: &str, title: &str, line: &str) -> String {
    let Some((start, end)) = section_body(text, title) else {
        return insert_first_in_section(text, title, line);
    };
    let body = &text[start..end];
    let content = body.trim_end().len();
    let at = match body[content..].find('\n') {
        _ if content == 0 => start,
        Some(newline) => start + content + newline + 1,
        None => end,
    };
    let mut out = String::with_capacity(text.len() + line.len() + 2);
    out.push_str(&text[..at]);
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(line);
    out.push('\n');
    let rest = &text[at..];
    if !rest.is_empty() && !rest.starts_with('\n') {
        out.push('\n');
    }
    out.push_str(rest);
    out
}

/// `text` with the body of `## title` replaced by `items` as a list (the section is
/// appended when missing). Other sections stay byte for byte.
pub(crate) fn replace_section(text: &str, title: &str, items: &[String]) -> String {
    let mut body: String = items
        .iter()
        .map(|i| one_line(i))
        .filter(|i| !i.is_empty())
        .map(|i| format!("- {i}\n"))
        .collect();
    match section_body(text, title) {
        Some((start, end)) => {
            if end < text.len() {
                body.push('\n');
            }
            format!("{}{body}{}", &text[..start], &text[end..])
        }
        None => {
            let mut out = with_trailing_newline(text.to_string());
            if !out.is_empty() && !out.ends_with("\n\n") {
                out.push('\n');
            }
            out.push_str(&format!("## {title}\n{body}"));
            out
        }
    }
}

/// The first text of a new active-context file (the Memory Bank MCP spec, "activeContext.md").
pub(crate) const ACTIVE_CONTEXT_HEADING: &str = "# Current Context\n";
/// The first text of a new progress file (the Memory Bank MCP spec, "progress.md").
pub(crate) const PROGRESS_HEADING: &str = "# Project Progress\n";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::decisions::{self, DecisionStyle};
    use chrono::{NaiveDate, NaiveTime};
    use std::path::Path;

    fn at(s: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S").unwrap()
    }

    fn sample() -> NewDecision {
        NewDecision {
            title: "Authentication\nMethod".into(),
            context: "We need to choose\n\n## not a heading".into(),
            decision: "Use JWT".into(),
            alternatives: vec!["Sessions".into(), "OAuth 2.0".into()],
            consequences: vec!["Stateless".into()],
        }
    }

    #[test]
    fn appended_decisions_parse_back_with_date_time_and_title() {
        for (format, file, style) in [
            (
                DecisionFormat::Cline,
                "decisionLog.md",
                DecisionStyle::ClineBlock,
            ),
            (
                DecisionFormat::MemoryBankMcp,
                "decision-log.md",
                DecisionStyle::DatedHeading,
            ),
        ] {
            let template = crate::formats::cline::TEMPLATES[6].1;
            let mut log = template.to_string();
            for (i, when) in ["2026-03-01 09:15:00", "2026-03-02 18:00:59"]
                .iter()
                .enumerate()
            {
                let mut d = sample();
                d.title = format!("{} {i}", d.title);
                log = append_block(Some(&log), &decision_block(format, at(when), &d));
            }
            let parsed = decisions::parse_log(Path::new(file), &log);
            assert_eq!(parsed.len(), 2, "{format:?}:\n{log}");
            assert_eq!(parsed[0].title, "Authentication Method 0");
            assert_eq!(parsed[1].title, "Authentication Method 1");
            assert_eq!(parsed[1].date, NaiveDate::from_ymd_opt(2026, 3, 2));
            assert_eq!(parsed[1].time, NaiveTime::from_hms_opt(18, 0, 59));
            assert_eq!(parsed[1].style, style, "{log}");
            assert!(!log.contains("\n## not a heading"), "{log}");
        }
        // A new log gets its heading.
        let fresh = append_block(None, "## X\n");
        assert!(fresh.starts_with("# Decision Log\n\n## X\n"));
    }

    #[test]
    fn a_memory_bank_mcp_decision_is_written_in_the_specs_entry_format() {
        let block = decision_block(
            DecisionFormat::MemoryBankMcp,
            at("2026-03-01 09:15:00"),
            &sample(),
        );
        assert_eq!(
            block,
            "## Authentication Method - 2026-03-01 09:15:00\n\
             ### Context\nWe need to choose ## not a heading\n\
             ### Decision\nUse JWT\n\
             ### Alternatives Considered\n- Sessions\n- OAuth 2.0\n\
             ### Consequences\n- Stateless\n"
        );
        // Empty lists leave their sections out rather than writing empty ones.
        let bare = NewDecision {
            alternatives: Vec::new(),
            consequences: vec![" ".into()],
            ..sample()
        };
        let block = decision_block(
            DecisionFormat::MemoryBankMcp,
            at("2026-03-01 09:15:00"),
            &bare,
        );
        assert!(
            !block.contains("### Alternatives") && !block.contains("### Consequences"),
            "{block}"
        );
    }

    #[test]
    fn progress_lines_go_first_under_update_history_and_parse_as_log_lines() {
        let text = "# Project Progress\n\n## Completed Milestones\n- a\n\n## Update History\n\n- [2026-01-01 10:00:00] - Setup: repo\n";
        let out = insert_first_in_section(
            text,
            "Update History",
            &progress_line(at("2026-02-03 04:05:06"), "Implementation", "Feature\nX"),
        );
        assert!(out.contains(
            "## Update History\n\n- [2026-02-03 04:05:06] - Implementation: Feature X\n- [2026-01-01"
        ));
        let parsed = decisions::parse_log(Path::new("progress.md"), &out);
        let newest = parsed
            .iter()
            .find(|d| d.title == "Implementation: Feature X")
            .unwrap();
        assert_eq!(newest.date, NaiveDate::from_ymd_opt(2026, 2, 3));
        assert_eq!(newest.time, NaiveTime::from_hms_opt(4, 5, 6));
        assert_eq!(newest.style, DecisionStyle::LogLine);

        let created = insert_first_in_section(PROGRESS_HEADING, "Update History", "- x");
        assert_eq!(created, "# Project Progress\n\n## Update History\n- x\n");
    }

    #[test]
    fn sections_are_replaced_in_place_or_added() {
        let text = "# Current Context\n\n## Ongoing Tasks\n- old\n- older\n\n## Known Issues\n- bug\n\n## Next Steps\n- s\n";
        let out = replace_section(text, "Ongoing Tasks", &["new\ntask".into(), " ".into()]);
        assert_eq!(
            out,
            "# Current Context\n\n## Ongoing Tasks\n- new task\n\n## Known Issues\n- bug\n\n## Next Steps\n- s\n"
        );
        let out = replace_section(&out, "Next Steps", &["done".into()]);
        assert!(out.ends_with("## Next Steps\n- done\n"), "{out}");
        let out = replace_section(&out, "Blockers", &["none".into()]);
        assert!(out.ends_with("- done\n\n## Blockers\n- none\n"), "{out}");
        // A heading inside a code fence is not a section.
        let fenced = "# C\n\n```\n## Known Issues\n```\n";
        let out = replace_section(fenced, "Known Issues", &["x".into()]);
        assert!(out.starts_with(fenced) && out.ends_with("## Known Issues\n- x\n"));
        let nested = "# C\n\n````md\n```\n## Known Issues\n```\n## Known Issues\n````\n";
        let out = replace_section(nested, "Known Issues", &["x".into()]);
        assert!(out.starts_with(nested) && out.ends_with("## Known Issues\n- x\n"));
    }
}

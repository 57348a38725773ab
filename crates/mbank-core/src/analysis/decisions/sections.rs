//! Decisions written outside decision logs: a section of another memory file
//! (activeContext.md, progress.md, systemPatterns.md, CLAUDE.md …) whose heading says it
//! holds decisions ("Key Decisions", "## Architecture Decisions", "Recent Decisions")
//! yields its entries: its sub-headings, the top-level bullets before them, and the rows
//! of a table of decisions in it. Prose paragraphs and code are never entries.
//!
//! A sub-heading whose own sub-headings are entries (and which says nothing of its own)
//! only groups them: its title becomes their group.
use std::path::Path;

use chrono::{NaiveDate, NaiveTime};

use super::entry::{
    content_mask, is_block_section, is_decision_section_heading, is_field_label, read_fields,
    read_heading,
};
use super::events::leading_stamp;
use super::meaning::{
    asks_why, is_consideration, is_open_question, is_pointer, kind_of_title,
    names_an_option_not_taken, names_not_made, status_from_title,
};
use super::tables::{is_separator_row, row_of, table_cells, table_columns};
use super::text::{
    ADR_REF, clean_title, is_placeholder, may_contain_word, normalize_adr_id, strip_markup,
};
use super::{Decision, DecisionStatus, DecisionStyle};
use crate::markup::markdown;

/// A line's heading, when the line is content.
fn heading_at(lines: &[&str], mask: &[bool], index: usize) -> Option<(usize, String)> {
    mask[index]
        .then(|| markdown::heading(lines[index]))
        .flatten()
}

/// Last non-blank line (0-based) in `start..end`, at least `start`.
fn last_content_line(lines: &[&str], start: usize, end: usize) -> usize {
    (start..end.min(lines.len()))
        .rev()
        .find(|i| {
            let t = lines[*i].trim();
            !(t.is_empty() || t == "---" || t == "***" || t == "___")
        })
        .unwrap_or(start)
}

/// A top-level list item's text: `- X`, `* X`, `+ X`, `1. X`, `1) X`; `None` as the
/// text for an unchecked task (`- [ ] X`), which is work to do, not a decision.
fn list_item_text(line: &str) -> Option<Option<&str>> {
    if line.starts_with([' ', '\t']) {
        return None;
    }
    let rest = if let Some(rest) = line
        .strip_prefix("- ")
        .or_else(|| line.strip_prefix("* "))
        .or_else(|| line.strip_prefix("+ "))
    {
        rest
    } else {
        let digits = line.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 || digits > 3 {
            return None;
        }
        line[digits..]
            .strip_prefix(". ")
            .or_else(|| line[digits..].strip_prefix(") "))?
    };
    let rest = rest.trim();
    if rest.starts_with("[ ]") {
        return Some(None);
    }
    Some(Some(
        rest.strip_prefix("[x]")
            .or_else(|| rest.strip_prefix("[X]"))
            .unwrap_or(rest)
            .trim(),
    ))
}

/// What a bullet names: `**Title**: rest` (the bold part), `ADR-7: Title`,
/// `[[ADR-7]] — Title`, `Title — rationale` (the part before a spaced dash), else the
/// whole text; a trailing `(Deprecated — …)` or `(Superseded by ADR-9)` is its status.
struct Bullet {
    title: String,
    id: Option<String>,
    status: Option<DecisionStatus>,
    superseded_by: Vec<String>,
}

/// `None` for a bullet that points to where the decision is recorded, asks a question,
/// names a decision still to take or weighs a possibility.
fn read_bullet(text: &str) -> Option<Bullet> {
    // "_None yet_": an empty section says so.
    let said_empty = super::text::is_none_word(strip_markup(text).trim());
    if is_pointer(text)
        || is_open_question(text)
        || is_consideration(text)
        || is_field_label(text)
        || said_empty
    {
        return None;
    }
    let mut status = None;
    let mut superseded_by = Vec::new();
    let mut referenced = None;
    let mut body = text.trim();
    if let Some(open) = body.rfind('(')
        && body.ends_with(')')
        && open > 0
    {
        let inner = &body[open + 1..body.len() - 1];
        let plain = strip_markup(inner);
        // `Use Zustand (ADR-004)`: the ADR that records this decision.
        let lower = plain.trim().to_lowercase();
        if lower.starts_with("see ") && lower.contains("decision") {
            // `X (see decisionLog.md)`: a pointer to the record, not the record.
            return None;
        }
        if let Some(m) = ADR_REF.find(plain.trim())
            && m.as_str().len() == plain.trim().len()
        {
            referenced = Some(normalize_adr_id(m.as_str()));
            body = body[..open].trim_end();
        } else if let Some(found) = DecisionStatus::parse(inner) {
            status = Some(found);
            if found == DecisionStatus::Superseded {
                superseded_by = ADR_REF
                    .find_iter(inner)
                    .map(|m| normalize_adr_id(m.as_str()))
                    .collect();
            }
            body = body[..open].trim_end();
        }
    }
    // `**Title**: rest` or `**Title:** rest`.
    if let Some(bold) = body.strip_prefix("**").or_else(|| body.strip_prefix("__"))
        && let Some(end) = bold.find("**").or_else(|| bold.find("__"))
        && end > 0
    {
        let heading = read_heading(&bold[..end]);
        let rest = bold[end + 2..].trim_start_matches([':', ' ']);
        // `**A13:** Modular goals`: a bare label, the title follows it.
        let label_only = heading.title.len() <= 5
            && heading.title.chars().any(|c| c.is_ascii_digit())
            && !rest.is_empty();
        let title = if label_only {
            split_title(rest)
        } else if heading.title.is_empty() {
            // `**ADR-7**: Title` (or `**ADR-7**: ADR-7: Title`): the id is the label.
            split_title(&read_heading(rest).title)
        } else {
            heading.title
        };
        return Some(Bullet {
            title,
            id: heading.id.or(referenced),
            status,
            superseded_by,
        });
    }
    let heading = read_heading(body);
    let heading_has_id = heading.id.is_some();
    let id = heading.id.or_else(|| {
        // `[[ADR-0001]] — Title`: the link is the id.
        let plain = strip_markup(body);
        let first = plain.split_whitespace().next().unwrap_or("");
        ADR_REF
            .find(first)
            .filter(|m| m.start() == 0 && m.end() == first.len())
            .map(|m| normalize_adr_id(m.as_str()))
    });
    let rest = match &id {
        Some(_) if !heading_has_id => {
            let plain = strip_markup(body);
            let after = plain.split_once(char::is_whitespace).map_or("", |p| p.1);
            clean_title(after)
        }
        _ => heading.title,
    };
    Some(Bullet {
        title: split_title(&rest),
        id: id.or(referenced),
        status,
        superseded_by,
    })
}

/// The title part of `Title — rationale` / `Title - rationale`, else the whole text.
fn split_title(text: &str) -> String {
    for separator in [" — ", " – ", " - "] {
        if let Some((title, rest)) = text.split_once(separator)
            && !title.trim().is_empty()
            && !rest.trim().is_empty()
        {
            return clean_title(title);
        }
    }
    clean_title(text)
}

/// The text of a line that is all bold (`**1. Use X**`), standing for a heading; a lead-in
/// to a list (`**Future types could include:**`) is not one.
fn bold_line(line: &str) -> Option<String> {
    if line.starts_with([' ', '\t']) {
        return None;
    }
    let inner = line
        .trim_end()
        .strip_prefix("**")?
        .strip_suffix("**")?
        .trim();
    if inner.is_empty() || inner.contains("**") || inner.ends_with(':') {
        return None;
    }
    Some(inner.to_string())
}

/// A title without a status marked after it (`Stateless API ✅ IMPLEMENTED`), and that
/// status: the marker opens with a symbol (an emoji, `—`, `|`) and reads as a status.
fn without_status_mark(title: &str) -> (String, Option<DecisionStatus>) {
    let marker = title.char_indices().find(|(i, c)| {
        *i > 0 && !c.is_alphanumeric() && !c.is_whitespace() && (*c as u32 >= 0x2000 || *c == '|')
    });
    if let Some((at, _)) = marker
        && let Some(status) = DecisionStatus::parse(&title[at..])
    {
        let kept = clean_title(&title[..at]);
        if !kept.is_empty() {
            return (kept, Some(status));
        }
    }
    (title.to_string(), None)
}

/// A sub-heading's title without its list number (`1. X`, `#2 X`).
fn unnumbered(title: &str) -> String {
    let trimmed = title.trim_start_matches('#');
    let digits = trimmed.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && digits <= 3 {
        let rest = &trimmed[digits..];
        if let Some(rest) = rest
            .strip_prefix(". ")
            .or_else(|| rest.strip_prefix(") "))
            .or_else(|| rest.strip_prefix(": "))
            .or_else(|| rest.strip_prefix(" "))
        {
            let rest = clean_title(rest);
            if !rest.is_empty() {
                return rest;
            }
        }
    }
    title.to_string()
}

/// The file the sections are read from, and what one section of it yields: `start` is
/// its heading's line, `end` the line past it.
struct SectionSource<'a> {
    lines: &'a [&'a str],
    mask: &'a [bool],
    path: &'a Path,
    display: &'a str,
}

impl SectionSource<'_> {
    fn decision(
        &self,
        start: usize,
        end_excl: usize,
        title: String,
        id: Option<String>,
        style: DecisionStyle,
        group: &str,
    ) -> Decision {
        let end = last_content_line(self.lines, start, end_excl);
        Decision {
            id,
            title,
            date: None,
            time: None,
            month: None,
            status: DecisionStatus::Unknown,
            supersedes: Vec::new(),
            superseded_by: Vec::new(),
            file: self.path.to_path_buf(),
            display: self.display.to_string(),
            line: start + 1,
            end_line: end + 1,
            style,
            group: Some(group.to_string()),
            kind: super::DecisionKind::Decision,
        }
    }

    fn fields(&self, from: usize, to: usize) -> super::entry::EntryFields {
        read_fields(
            (from..to.min(self.lines.len()))
                .filter(|i| self.mask[*i])
                .map(|i| self.lines[i]),
        )
    }

    /// Entries of the section body `from..to` (below a heading of `level` titled `group`).
    fn entries(
        &self,
        from: usize,
        to: usize,
        level: usize,
        group: &str,
        depth: usize,
    ) -> Vec<Decision> {
        let mut out = Vec::new();
        let mut subs: Vec<(usize, usize, String)> = (from..to)
            .filter_map(|i| heading_at(self.lines, self.mask, i).map(|(l, t)| (i, l, t)))
            .filter(|(_, l, _)| *l > level)
            .collect();
        if subs.is_empty() {
            // `**1. Use X**` on a line of its own stands for a sub-heading.
            subs = (from..to)
                .filter(|i| self.mask[*i])
                .filter_map(|i| bold_line(self.lines[i]).map(|t| (i, level + 1, t)))
                .collect();
        }
        let first_sub = subs.first().map_or(to, |(i, _, _)| *i);
        out.extend(self.list_and_table_entries(from, first_sub, group));
        let Some(child_level) = subs.iter().map(|(_, l, _)| *l).min() else {
            return out;
        };
        let children: Vec<&(usize, usize, String)> =
            subs.iter().filter(|(_, l, _)| *l == child_level).collect();
        for (n, (start, _, text)) in children.iter().enumerate() {
            let end = children.get(n + 1).map_or(to, |(next, _, _)| *next);
            if is_block_section(text) || is_placeholder(text) {
                continue;
            }
            let heading = read_heading(text);
            let (title, marked_status) = without_status_mark(&unnumbered(&heading.title));
            // "Why Vite?" over the fields of a record explains a decision taken.
            let explained = || asks_why(&title) && self.fields(start + 1, end).has_marker;
            if title.is_empty()
                || is_placeholder(&title)
                || (is_open_question(&title) && !explained())
                || names_an_option_not_taken(&title)
            {
                continue;
            }
            // "## Accepted" over a list of entries: a status that groups them, never an
            // entry (an empty one, `_None_`, yields nothing).
            let status_group = title.split_whitespace().count() <= 3
                && DecisionStatus::parse(&title).is_some()
                && heading.id.is_none()
                && heading.date.is_none();
            let grandchildren = (start + 1..end)
                .find(|i| heading_at(self.lines, self.mask, *i).is_some())
                .unwrap_or(end);
            let own = self.fields(start + 1, grandchildren);
            let has_text = (start + 1..grandchildren)
                .any(|i| self.mask[i] && !self.lines[i].trim().is_empty());
            // A heading over entries that says nothing itself only groups them.
            if depth < 4 && !has_text && !own.has_marker && grandchildren < end {
                let inner = self.entries(start + 1, end, child_level, &title, depth + 1);
                if !inner.is_empty() {
                    out.extend(inner);
                    continue;
                }
            }
            // A heading whose body is only a list of entries (ADR references, stamped
            // log lines), or a status heading, groups them too.
            if status_group || self.only_a_list(start + 1, grandchildren) {
                let mut inner = self.list_and_table_entries(start + 1, grandchildren, &title);
                let all_entries = inner.iter().all(|d| d.id.is_some() || d.date.is_some());
                if status_group || (!inner.is_empty() && all_entries) {
                    if let Some(status) = status_group
                        .then(|| DecisionStatus::parse(&title))
                        .flatten()
                    {
                        for d in inner
                            .iter_mut()
                            .filter(|d| d.status == DecisionStatus::Unknown)
                        {
                            d.status = status;
                        }
                    }
                    out.extend(inner);
                    if grandchildren < end && depth < 4 {
                        out.extend(self.entries(
                            grandchildren,
                            end,
                            child_level,
                            &title,
                            depth + 1,
                        ));
                    }
                    continue;
                }
            }
            // A heading over nothing but code (a sample of what was built) records no
            // decision of its own words.
            let only_code = !has_text
                && grandchildren == end
                && (start + 1..end).any(|i| !self.mask[i] && !self.lines[i].trim().is_empty());
            // Nor does one over nothing but template text (`{Notes go here}`, `[Date]`)
            // between markers of the template (`<!-- USER_BLOCK_START -->`).
            let only_template = has_text
                && grandchildren == end
                && (start + 1..end)
                    .filter(|i| self.mask[*i] && !self.lines[*i].trim().is_empty())
                    .all(|i| is_template_text(self.lines[i]));
            if only_code || only_template {
                continue;
            }
            let fields = self.fields(start + 1, end);
            let date = heading.date.or(fields.date);
            let mut decision = self.decision(*start, end, title, heading.id, heading.style, group);
            decision.date = date.map(|d| d.0);
            decision.time = date.and_then(|d| d.1);
            if date.is_none() {
                decision.month = heading.month.or(fields.month);
            }
            decision.status = fields
                .status
                .or(marked_status)
                .or_else(|| status_from_title(&decision.title))
                .or(fields.decided.then_some(DecisionStatus::Accepted))
                .unwrap_or(DecisionStatus::Unknown);
            if !fields.decided {
                decision.kind = kind_of_title(&decision.title);
            }
            decision.supersedes = fields.supersedes;
            decision.superseded_by = fields.superseded_by;
            out.push(decision);
        }
        out
    }

    /// Whether the content lines of `from..to` are all list items or their indented
    /// continuations (blank lines aside).
    fn only_a_list(&self, from: usize, to: usize) -> bool {
        let mut any = false;
        for i in from..to.min(self.lines.len()) {
            let line = self.lines[i];
            if !self.mask[i] || line.trim().is_empty() || line.starts_with([' ', '\t']) {
                continue;
            }
            if list_item_text(line).is_none() {
                return false;
            }
            any = true;
        }
        any
    }

    /// Top-level bullets and table rows in `from..to` (no headings in between).
    fn list_and_table_entries(&self, from: usize, to: usize, group: &str) -> Vec<Decision> {
        let mut out = Vec::new();
        // (line, text) of each top-level bullet, and where the list stops.
        let mut items: Vec<(usize, Option<&str>)> = Vec::new();
        let mut bounds: Vec<usize> = Vec::new();
        // Lines of lists whose first item names a decision log ("Record it in
        // `docs/decisions.md`", then "Add an entry even if…"): how to keep the log, so
        // none of their items is an entry.
        let mut how_to_keep_a_log: Vec<usize> = Vec::new();
        let mut list_of_how_to = false;
        let mut index = from;
        let mut in_list = false;
        let mut blank_before = false;
        while index < to {
            let line = self.lines[index];
            if !self.mask[index] {
                blank_before = false;
                index += 1;
                continue;
            }
            if let Some(header) = table_cells(line)
                && index + 1 < to
                && is_separator_row(self.lines[index + 1])
            {
                if in_list {
                    bounds.push(index);
                    in_list = false;
                }
                let columns = table_columns(&header);
                index += 2;
                while index < to && self.mask[index] {
                    let Some(cells) = table_cells(self.lines[index]) else {
                        break;
                    };
                    if let Some(columns) = &columns
                        && let Some(row) = row_of(&cells, columns)
                    {
                        let mut d = self.decision(
                            index,
                            index + 1,
                            row.title,
                            row.id,
                            DecisionStyle::TableRow,
                            group,
                        );
                        d.date = row.date.map(|d| d.0);
                        d.time = row.date.and_then(|d| d.1);
                        d.status = row.status.unwrap_or(DecisionStatus::Unknown);
                        out.push(d);
                    }
                    index += 1;
                }
                continue;
            }
            if let Some(text) = list_item_text(line) {
                if in_list {
                    bounds.push(index);
                } else {
                    list_of_how_to = text.is_some_and(super::meaning::names_a_decision_log);
                }
                if list_of_how_to {
                    how_to_keep_a_log.push(index);
                }
                items.push((index, text));
                in_list = true;
            } else if line.trim().is_empty() {
                blank_before = true;
                index += 1;
                continue;
            } else if in_list && blank_before && !line.starts_with([' ', '\t']) {
                // A paragraph after the list ends it.
                bounds.push(index);
                in_list = false;
            }
            blank_before = false;
            index += 1;
        }
        if in_list {
            bounds.push(to);
        }
        for ((start, text), end) in items.into_iter().zip(bounds) {
            let Some(text) = text.filter(|_| !how_to_keep_a_log.contains(&start)) else {
                continue;
            };
            let (date, text) = match leading_stamp(text) {
                Some((date, rest)) => (Some(date), rest),
                None => (None, text),
            };
            let Some(bullet) = read_bullet(text) else {
                continue;
            };
            if bullet.title.is_empty() || is_placeholder(&bullet.title) {
                continue;
            }
            let fields = self.fields(start + 1, end);
            let date: Option<(NaiveDate, Option<NaiveTime>)> = date.or(fields.date);
            let style = if date.is_some() {
                DecisionStyle::LogLine
            } else {
                DecisionStyle::ListItem
            };
            let mut d = self.decision(start, end, bullet.title, bullet.id, style, group);
            d.date = date.map(|d| d.0);
            d.time = date.and_then(|d| d.1);
            if date.is_none() {
                d.month = fields.month;
            }
            d.status = bullet
                .status
                .or(fields.status)
                .or_else(|| status_from_title(&d.title))
                .or(fields.decided.then_some(DecisionStatus::Accepted))
                .unwrap_or(DecisionStatus::Unknown);
            if !fields.decided {
                d.kind = kind_of_title(&d.title);
            }
            d.superseded_by = bullet.superseded_by;
            d.superseded_by.extend(fields.superseded_by);
            d.supersedes = fields.supersedes;
            out.push(d);
        }
        out
    }
}

/// A line a template leaves for the writer: a placeholder (`[Date]`, `{Notes}`) or an
/// HTML comment marking a template's block.
fn is_template_text(line: &str) -> bool {
    let line = line.trim();
    let line = line
        .strip_prefix(['-', '*', '+'])
        .map_or(line, str::trim_start);
    is_placeholder(line)
        || (line.starts_with('{') && line.ends_with('}'))
        || (line.starts_with("<!--") && line.ends_with("-->"))
}

/// Entries of the decision sections of a memory file that is not a decision log, in file
/// order; `display` is the file as shown to people. Sections in code blocks or
/// frontmatter are not read, nor is anything inside a code block within a section.
pub(crate) fn parse_sections(path: &Path, display: &str, text: &str) -> Vec<Decision> {
    if !may_contain_word(text, super::meaning::DECISION_STEMS_ASCII) {
        return Vec::new();
    }
    let lines: Vec<&str> = text.lines().collect();
    let mask = content_mask(text, lines.len());
    let source = SectionSource {
        lines: &lines,
        mask: &mask,
        path,
        display,
    };
    let mut out = Vec::new();
    let mut index = 0;
    // Headings enclosing the line reached, outermost first: (level, whether it speaks of
    // lessons, issues, questions or plans, under which no section holds decisions made).
    let mut enclosing: Vec<(usize, bool)> = Vec::new();
    while index < lines.len() {
        let Some((level, heading)) = heading_at(&lines, &mask, index) else {
            index += 1;
            continue;
        };
        while enclosing.last().is_some_and(|(l, _)| *l >= level) {
            enclosing.pop();
        }
        let under_other = enclosing.iter().any(|(_, other)| *other);
        // "### decisions/ - Technical decisions", "### Decisions (ADR-INDEX.md)": a
        // heading naming the file or folder that keeps them says what goes there.
        let names_a_place = super::meaning::names_a_place(&heading);
        if under_other || names_a_place || !is_decision_section_heading(&heading) {
            enclosing.push((level, names_not_made(&heading)));
            index += 1;
            continue;
        }
        let end = (index + 1..lines.len())
            .find(|i| heading_at(&lines, &mask, *i).is_some_and(|(l, _)| l <= level))
            .unwrap_or(lines.len());
        out.extend(source.entries(index + 1, end, level, &clean_title(&heading), 0));
        index = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::tests::date;
    use super::*;

    fn sections(text: &str) -> Vec<Decision> {
        parse_sections(
            Path::new("/p/memory-bank/activeContext.md"),
            "memory-bank/activeContext.md",
            text,
        )
    }

    #[test]
    fn a_section_named_for_where_decisions_are_kept_describes_that_place() {
        let text = "# CLAUDE.md\n\n## decisions/ - Technical decisions\n- Architectural choices\n\
- Trade-offs considered\n\n## Decisions (ADR-INDEX.md)\n- Full context of the decision\n\n\
## Key Decisions\n- Use Redis for the cache\n";
        let titles: Vec<String> = sections(text).into_iter().map(|d| d.title).collect();
        assert_eq!(titles, ["Use Redis for the cache"]);
    }

    #[test]
    fn a_why_question_under_decisions_with_fields_is_an_entry() {
        let text = "# CLAUDE.md\n\n## Key Decisions\n\n### Why SQLite?\n\n**Reason**: one file\n\n\
### Why is CI slow?\n\nWe do not know.\n\n### Should we add Redis?\n\n**Reason**: cache\n";
        let titles: Vec<String> = sections(text).into_iter().map(|d| d.title).collect();
        assert_eq!(titles, ["Why SQLite?"]);
    }

    #[test]
    fn headings_that_name_decision_sections() {
        for yes in [
            "Decisions",
            "Key Decisions",
            "Technical Decisions",
            "Architecture Decisions (Accepted)",
            "Recent Architectural Decisions",
            "Decision Log",
            "**Key technical decisions**",
        ] {
            assert!(is_decision_section_heading(yes), "{yes}");
        }
        for no in [
            "Decision",
            "Decision Engine",
            "Architecture Decision",
            "Decision: Record key decisions",
            "ADR-0007: Add decisions tools",
            "Next Steps",
        ] {
            assert!(!is_decision_section_heading(no), "{no}");
        }
    }

    #[test]
    fn a_decisions_section_in_active_context_yields_its_bullets_with_file_and_line() {
        let text = "# Active Context\n\nWe decided a lot this week.\n\n## Key Decisions\n\
- **A13:** Modular goal architecture\n\
- **Push to watch**: via python-garminconnect\n\
  continued detail line\n\
- tmux interactive mode — print mode loses state\n\
- [ ] decide on Redis\n\
- [[ADR-0010]] — Integrate the graph tool (Superseded by [[ADR-0011]])\n\
- 2025-07-31 07:01:19 - Seed the bank from the PRD\n\
- Zustand replaces Redux for app state ([[ADR-004]])\n\
- Redis cache with stale-while-revalidate (see decisionLog.md)\n\
\nA closing paragraph that is prose.\n\n## Next Steps\n- Build the VSIX\n";
        let d = sections(text);
        let got: Vec<(&str, usize, usize)> = d
            .iter()
            .map(|d| (d.title.as_str(), d.line, d.end_line))
            .collect();
        assert_eq!(
            got,
            [
                ("Modular goal architecture", 6, 6),
                ("Push to watch", 7, 8),
                ("tmux interactive mode", 9, 9),
                ("Integrate the graph tool", 11, 11),
                ("Seed the bank from the PRD", 12, 12),
                ("Zustand replaces Redux for app state", 13, 13),
            ]
        );
        assert_eq!(d[5].id.as_deref(), Some("ADR-004"));
        assert!(
            d.iter()
                .all(|d| d.display == "memory-bank/activeContext.md")
        );
        assert!(
            d.iter()
                .all(|d| d.file == Path::new("/p/memory-bank/activeContext.md"))
        );
        assert!(
            d.iter()
                .all(|d| d.group.as_deref() == Some("Key Decisions"))
        );
        assert_eq!(d[3].id.as_deref(), Some("ADR-0010"));
        assert_eq!(d[3].status, DecisionStatus::Superseded);
        assert_eq!(d[3].superseded_by, ["ADR-0011"]);
        assert_eq!(d[4].date, date("2025-07-31"));
    }

    #[test]
    fn a_decisions_section_yields_its_sub_headings_and_their_fields() {
        let text = "# System Patterns\n\n## Key Technical Decisions\n\n\
### 1. Stateless API Design\n\n**Decision**: REST\n**Status**: Accepted — pending load tests\n\n\
### 2. Pluggable LLMs ✅ IMPLEMENTED\n\n- factory pattern\n\n## Component relationships\n- a\n";
        let d = sections(text);
        let got: Vec<(&str, usize, usize, DecisionStatus)> = d
            .iter()
            .map(|d| (d.title.as_str(), d.line, d.end_line, d.status))
            .collect();
        assert_eq!(
            got,
            [
                ("Stateless API Design", 5, 8, DecisionStatus::Accepted),
                ("Pluggable LLMs", 10, 12, DecisionStatus::Accepted),
            ]
        );
    }

    #[test]
    fn a_fenced_example_inside_a_decisions_section_yields_nothing() {
        let text = "## Decisions\n\n```markdown\n- **Use X**: because\n### Use Y\n\
| Decision | Status |\n|---|---|\n| Use Z | Accepted |\n```\n\n    - indented code item\n\n\
Plain prose about decisions.\n";
        assert!(sections(text).is_empty(), "{:#?}", sections(text));
        // A section heading inside a fence is no section either.
        assert!(sections("```\n## Decisions\n- **Use X**\n```\n").is_empty());
    }

    #[test]
    fn a_sub_heading_over_nothing_but_code_is_no_entry() {
        let text = "## Technical Decisions\n\n### Security\n\n#### Input Sanitization\n\n\
```php\nfunction e($s) { return htmlspecialchars($s); }\n```\n\n\
#### Escape on output\n\nEvery template escapes with `e()`.\n\n```php\n<?= e($name) ?>\n```\n\n\
#### Use SQLite\n";
        let titles: Vec<String> = sections(text).into_iter().map(|d| d.title).collect();
        assert_eq!(titles, ["Escape on output", "Use SQLite"]);
        // Nor is one over nothing but a template's text.
        let text = "## 技术决策\n\n### 采用 SQLite\n单文件。\n\n<!-- USER_BLOCK_START -->\n\
### 用户笔记\n{用户自由编辑区}\n<!-- USER_BLOCK_END -->\n\n### Notes\n- [Decision]\n";
        let titles: Vec<String> = sections(text).into_iter().map(|d| d.title).collect();
        assert_eq!(titles, ["采用 SQLite"]);
    }

    #[test]
    fn group_headings_in_a_section_are_not_entries() {
        let text = "## Architecture Decisions\n\n### Phase 2 decisions\n\n\
#### Use Postgres\n**Status:** Reverted\n\n#### Use Redis\n- cache\n\n### Drop the cron box\nDone.\n";
        let d = sections(text);
        let got: Vec<(&str, Option<&str>)> = d
            .iter()
            .map(|d| (d.title.as_str(), d.group.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                ("Use Postgres", Some("Phase 2 decisions")),
                ("Use Redis", Some("Phase 2 decisions")),
                ("Drop the cron box", Some("Architecture Decisions")),
            ]
        );
        assert_eq!(d[0].status, DecisionStatus::Reverted);
    }

    #[test]
    fn a_table_of_decisions_in_a_section() {
        let text = "## Decisions\n\n| ADR | Decision | Status |\n|---|---|---|\n\
| ADR-7 | Use gRPC | Superseded by ADR-9 |\n| ADR-9 | Use HTTP | Accepted |\n";
        let d = sections(text);
        assert_eq!(d.len(), 2);
        assert_eq!((d[0].id.as_deref(), d[0].line), (Some("ADR-7"), 5));
        assert_eq!(d[0].status, DecisionStatus::Superseded);
        assert_eq!(d[1].style, DecisionStyle::TableRow);
        // A table of what was chosen for each concern.
        let chosen = "## Locked stack decisions\n\n| Concern | Choice |\n|---|---|\n\
| Database | PostgreSQL 16 |\n| Queue | none |\n";
        let titles: Vec<String> = sections(chosen).into_iter().map(|d| d.title).collect();
        assert_eq!(titles, ["Database: PostgreSQL 16", "Queue: none"]);
    }

    #[test]
    fn decision_sections_in_other_languages_and_what_is_no_decision() {
        let text = "# アクティブコンテキスト\n\n## アクティブな決定事項\n\
- JSONを主体とし、Markdownはそこから生成する\n\
- 採用: Vanilla JavaScript\n\n\
## Lessons Learned\n\n### Architecture Decisions\n- Caching was a mistake\n\n\
## What Is Incomplete or Needs Decisions\n- Queue choice\n\n\
## Ключевые решения\n- PostgreSQL для хранения\n- Full rationale in ADR-077\n\
- Decision needed: Kafka or NATS\n- Возможно, позже перейти на gRPC\n\n\
## Decisiones técnicas\n- Implementado: Flyway para migraciones\n";
        let d = sections(text);
        let got: Vec<(&str, DecisionStatus)> =
            d.iter().map(|d| (d.title.as_str(), d.status)).collect();
        assert_eq!(
            got,
            [
                (
                    "JSONを主体とし、Markdownはそこから生成する",
                    DecisionStatus::Unknown
                ),
                ("採用: Vanilla JavaScript", DecisionStatus::Accepted),
                ("PostgreSQL для хранения", DecisionStatus::Unknown),
                (
                    "Implementado: Flyway para migraciones",
                    DecisionStatus::Accepted
                ),
            ],
            "{d:#?}"
        );
    }

    #[test]
    fn a_list_that_opens_by_naming_the_log_says_how_to_keep_it() {
        let text = "# Agents\n\n## Decisions log\n- When making a design decision, record it in `docs/decisions.md`.\n- Add an entry even if the change is small.\n\n## Key decisions\n\nThe full record is in `docs/decisions.md`. Recent ones:\n\n- **Logical WAL**: operations, not pages.\n";
        let titles: Vec<String> = sections(text).into_iter().map(|d| d.title).collect();
        assert_eq!(titles, ["Logical WAL"]);
    }

    #[test]
    fn a_section_that_says_it_is_empty_has_no_entries() {
        for empty in ["_None yet_", "None", "*Nothing yet*", "N/A"] {
            let text = format!("# Active\n\n## Decisions\n\n- {empty}\n");
            assert!(sections(&text).is_empty(), "{empty}");
        }
    }

    #[test]
    fn a_list_of_field_names_is_a_form_not_entries() {
        let text = "# Context\n\n## Next decisions\n\nAppend in the same form:\n- **Title**\n- **Reason/Context**\n- **Date:**\n\n## 后续决策\n\n- **标题**\n- **原因/背景**\n- **日期**\n- 采用 SQLite\n";
        let titles: Vec<String> = sections(text).into_iter().map(|d| d.title).collect();
        assert_eq!(titles, ["采用 SQLite"]);
    }

    #[test]
    fn files_without_decision_sections_yield_nothing() {
        assert!(sections("# Progress\n\n## Done\n- shipped\n").is_empty());
        assert!(sections("## Decision Engine\n- routes by cost\n").is_empty());
    }

    #[test]
    fn status_headings_over_lists_of_adrs_are_groups_not_entries() {
        let text = "# Decisions Index\n\n## Proposed\n\n_None_\n\n## Accepted\n\n\
- **ADR-0001**: Eager view registration\n- [[ADR-0002]] — Restore the tree view\n\n\
## Superseded\n\n- ADR-0003: Old layout (Superseded by ADR-0004)\n";
        let d = sections(text);
        let got: Vec<(Option<&str>, &str, DecisionStatus, Option<&str>)> = d
            .iter()
            .map(|d| {
                (
                    d.id.as_deref(),
                    d.title.as_str(),
                    d.status,
                    d.group.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                (
                    Some("ADR-0001"),
                    "Eager view registration",
                    DecisionStatus::Accepted,
                    Some("Accepted")
                ),
                (
                    Some("ADR-0002"),
                    "Restore the tree view",
                    DecisionStatus::Accepted,
                    Some("Accepted")
                ),
                (
                    Some("ADR-0003"),
                    "Old layout",
                    DecisionStatus::Superseded,
                    Some("Superseded")
                ),
            ]
        );
        assert_eq!(d[2].superseded_by, ["ADR-0004"]);
    }

    #[test]
    fn bold_lines_stand_for_sub_headings_and_their_bullets_are_details() {
        let text = "### Key Design Decisions\n\n**1. Extensibility for many devices**\n\n\
Using polymorphism:\n\n**Future device types could include:**\n- Serial Modbus RTU\n- SNMP\n\n\
**2. Following established patterns**\n- **Profile-based configuration** - named profiles\n\n\
### Technical Considerations\n- not a decision\n";
        let d = sections(text);
        let got: Vec<(&str, usize, usize)> = d
            .iter()
            .map(|d| (d.title.as_str(), d.line, d.end_line))
            .collect();
        assert_eq!(
            got,
            [
                ("Extensibility for many devices", 3, 9),
                ("Following established patterns", 11, 12),
            ]
        );
    }
}

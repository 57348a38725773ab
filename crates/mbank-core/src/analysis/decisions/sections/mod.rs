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
    names_an_option_not_taken, names_not_made, status_from_title, title_names_not_made,
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

/// Whether a heading joins decisions with something else ("Design decisions & creative
/// outputs", "Decisiones y consideraciones"): one of the parts it joins is
/// not named for decisions.
fn names_more_than_decisions(heading: &str) -> bool {
    const JOINS: &[&str] = &[
        " & ", " and ", " + ", " / ", " и ", " y ", " e ", " et ", " und ", " ve ", " và ", " 및 ",
    ];
    let lower = heading.to_lowercase();
    let mut parts = vec![lower.as_str()];
    for join in JOINS {
        parts = parts
            .into_iter()
            .flat_map(|part| part.split(join))
            .collect();
    }
    parts.len() > 1
        && parts
            .iter()
            .any(|part| !super::meaning::names_decisions_made(part))
}

/// A top-level list item's text: `- X`, `* X`, `+ X`, `1. X`, `1) X`; `None` as the
/// text for an unchecked task (`- [ ] X`), which is work to do, not a decision. One
/// space before the marker is short of any item's content, so the item is still a
/// sibling of the others (` - **Y**: …` under `- **X**: …`), as Markdown reads it.
fn list_item_text(line: &str) -> Option<Option<&str>> {
    let line = line.strip_prefix(' ').unwrap_or(line);
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
    /// The date or month its title gives (`**Architecture pivot (2025-07-19)**: …`).
    date: Option<(NaiveDate, Option<NaiveTime>)>,
    month: Option<super::Month>,
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
        } else if !heading.title.contains(char::is_whitespace) && !rest.trim().is_empty() {
            // `**Language**: Go 1.25`: one word names what the choice is about, and the
            // choice follows it.
            format!("{}: {}", heading.title, split_title(rest))
        } else {
            heading.title
        };
        return Some(Bullet {
            title,
            id: heading.id.or(referenced),
            status,
            superseded_by,
            date: heading.date,
            month: heading.month,
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
        date: heading.date,
        month: heading.month,
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
        // A section of decisions and something else, in parts, one of them named for the
        // decisions ("## Design decisions & outputs" over "### Key decisions" and "###
        // Style guide"): that part holds them, and the others hold the something else.
        let in_parts = depth < 4
            && names_more_than_decisions(group)
            && children
                .iter()
                .any(|(_, _, text)| is_decision_section_heading(text));
        for (n, (start, _, text)) in children.iter().enumerate() {
            let end = children.get(n + 1).map_or(to, |(next, _, _)| *next);
            if in_parts {
                if is_decision_section_heading(text) {
                    let part = clean_title(text);
                    out.extend(self.entries(start + 1, end, child_level, &part, depth + 1));
                }
                continue;
            }
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
            decision.date_by(date, heading.month.or(fields.month));
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
            // An item its writer wrapped onto more lines is read whole.
            let wrapped = super::text::wrapped_lines(self.lines, self.mask, start + 1);
            let whole;
            let text = if wrapped.is_empty() {
                text
            } else {
                whole = format!("{text} {}", wrapped.join(" "));
                whole.as_str()
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
            let date: Option<(NaiveDate, Option<NaiveTime>)> = date.or(bullet.date).or(fields.date);
            let style = if date.is_some() {
                DecisionStyle::LogLine
            } else {
                DecisionStyle::ListItem
            };
            let mut d = self.decision(start, end, bullet.title, bullet.id, style, group);
            d.date_by(date, bullet.month.or(fields.month));
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
            let not_made = if level == 1 {
                title_names_not_made(&heading)
            } else {
                names_not_made(&heading)
            };
            enclosing.push((level, not_made));
            index += 1;
            continue;
        }
        let end = (index + 1..lines.len())
            .find(|i| heading_at(&lines, &mask, *i).is_some_and(|(l, _)| l <= level))
            .unwrap_or(lines.len());
        out.extend(source.entries(index + 1, end, level, &clean_title(&heading), 0));
        index = end;
    }
    super::document_date::date_undated(path, text, &mut out);
    out
}

/// The lines (1-based, first to last) of the decision sections of `text` that open by
/// pointing to a decision log for the record ("See `memory-bank/decisionLog.md` for
/// the detailed history." over "**Major choices:** …"): what they list sums up that log.
pub(crate) fn log_summaries(text: &str) -> Vec<(usize, usize)> {
    if !may_contain_word(text, super::meaning::DECISION_STEMS_ASCII) {
        return Vec::new();
    }
    let lines: Vec<&str> = text.lines().collect();
    let mask = content_mask(text, lines.len());
    let mut out = Vec::new();
    for index in 0..lines.len() {
        let Some((level, heading)) = heading_at(&lines, &mask, index) else {
            continue;
        };
        if !is_decision_section_heading(&heading) {
            continue;
        }
        let end = (index + 1..lines.len())
            .find(|i| heading_at(&lines, &mask, *i).is_some_and(|(l, _)| l <= level))
            .unwrap_or(lines.len());
        let opening = (index + 1..end)
            .map(|i| lines[i])
            .find(|line| !line.trim().is_empty());
        if opening
            .is_some_and(|line| is_pointer(line) && super::meaning::names_a_decision_log(line))
        {
            out.push((index + 2, end));
        }
    }
    out
}

#[cfg(test)]
mod tests;

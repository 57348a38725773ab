//! Decision logs turned into timeline entries, whatever style the agent wrote them in:
//! Cline `## Decision: X` blocks with `- **Date**:`/`- **Status**:` bullets, dated headings
//! (`## 2025-05-22 - X`, `### 2025/05/22 - X`, `## 2/27/2025 - X`, `## X - 2025-05-22`,
//! with or without a time), Memory Bank MCP blocks (`## X` + `- **Date:**`,
//! `**Context:**`, `**Decision:**` …), Roo `[YYYY-MM-DD HH:MM:SS] - summary` lines, tables
//! of decisions, and ADR files (`ADR-NNN-title.md`, `ADR-NNN-YYYYMMDD-HHMM-title.md`) with
//! their status line and "Superseded by ADR-XXX".
//!
//! Parsing is lenient and line-based: headings inside code fences, tables of contents,
//! templates and placeholders (`## [Date] - [Decision Topic]`) are not decisions.
//! Decision logs are append-only (seed 000 §3.7): `lost_entries` compares a log with its
//! committed version so a shrunk log can be reported.
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use chrono::{NaiveDate, NaiveTime};
use regex::Regex;
use serde::Serialize;

use super::findings::{Finding, Severity};
use super::formats;
use super::markdown;
use super::model::{Bank, MemoryFile, Project, Role};
use super::text;

/// Where a decision stands. `rejected` covers declined and withdrawn proposals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DecisionStatus {
    Proposed,
    Accepted,
    Superseded,
    Deprecated,
    Rejected,
    Unknown,
}

impl DecisionStatus {
    pub fn id(self) -> &'static str {
        match self {
            DecisionStatus::Proposed => "proposed",
            DecisionStatus::Accepted => "accepted",
            DecisionStatus::Superseded => "superseded",
            DecisionStatus::Deprecated => "deprecated",
            DecisionStatus::Rejected => "rejected",
            DecisionStatus::Unknown => "unknown",
        }
    }

    /// Reads a free-text status ("Accepted", "Superseded by ADR-012", "In Progress").
    /// Placeholders (`[Accepted / Superseded]`) and unknown words give `None`.
    pub fn parse(text: &str) -> Option<DecisionStatus> {
        let clean = strip_markup(text);
        let trimmed = clean.trim();
        if trimmed.is_empty() || is_placeholder(trimmed) {
            return None;
        }
        let lower = trimmed.to_lowercase();
        let has = |words: &[&str]| words.iter().any(|w| lower.contains(w));
        Some(if has(&["supersed", "replaced by", "replaced with"]) {
            DecisionStatus::Superseded
        } else if has(&["deprecat", "obsolete", "retired"]) {
            DecisionStatus::Deprecated
        } else if has(&[
            "reject",
            "declin",
            "withdrawn",
            "abandon",
            "won't do",
            "wontfix",
        ]) {
            DecisionStatus::Rejected
        } else if has(&[
            "propos",
            "draft",
            "pending",
            "in progress",
            "review",
            "discuss",
            "open",
            "consider",
        ]) {
            DecisionStatus::Proposed
        } else if has(&[
            "accept",
            "approv",
            "adopt",
            "decided",
            "implement",
            "active",
            "done",
            "complete",
            "final",
            "agreed",
        ]) {
            DecisionStatus::Accepted
        } else {
            return None;
        })
    }
}

impl std::fmt::Display for DecisionStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

/// Which way of writing decisions an entry came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DecisionStyle {
    /// `## Decision: X` with `- **Date**:` / `- **Status**:` bullets (Cline spec).
    ClineBlock,
    /// A heading carrying a date: `## 2025-05-22 - X`, `## X - 2025-05-22`.
    DatedHeading,
    /// `## X` whose body holds `**Date:**`, `**Context:**`, `**Decision:**` … (Memory Bank MCP).
    Block,
    /// `[YYYY-MM-DD HH:MM:SS] - summary` (Roo).
    LogLine,
    /// A row of a table of decisions.
    TableRow,
    /// One ADR file, or an `ADR-NNN` heading inside a log.
    Adr,
}

/// One decision on the timeline.
///
/// JSON shape (stable): `{id, title, date, time, status, supersedes, superseded_by, file,
/// display, line, end_line, style}`; `id`, `date` (`YYYY-MM-DD`) and `time` (`HH:MM:SS`)
/// are `null` when unknown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Decision {
    /// `ADR-0011` when the entry has an ADR number.
    pub id: Option<String>,
    pub title: String,
    pub date: Option<NaiveDate>,
    pub time: Option<NaiveTime>,
    pub status: DecisionStatus,
    /// Decisions this one replaces (ADR ids or titles, as written).
    pub supersedes: Vec<String>,
    /// Decisions that replace this one.
    pub superseded_by: Vec<String>,
    pub file: PathBuf,
    /// The file as shown to people (relative to the project).
    pub display: String,
    /// 1-based first and last line of the entry.
    pub line: usize,
    pub end_line: usize,
    pub style: DecisionStyle,
}

impl Decision {
    /// Identity used to tell whether an entry survived an edit: its title and date.
    /// Status is left out on purpose: marking an entry superseded is allowed.
    fn key(&self) -> (String, Option<NaiveDate>) {
        (normalize_title(&self.title), self.date)
    }
}

// ---------------------------------------------------------------------------------------
// Patterns
// ---------------------------------------------------------------------------------------

/// A date (ISO, `YYYY/MM/DD`, `YYYY.MM.DD` or US `M/D/YYYY`) with an optional time.
const DATE_TIME: &str = r"(?:(?P<y>\d{4})[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2})|(?P<m2>\d{1,2})/(?P<d2>\d{1,2})/(?P<y2>\d{4}))(?:(?:[ T]+|,\s*|\s+at\s+)(?P<hh>\d{1,2}):(?P<mm>\d{2})(?::(?P<ss>\d{2}))?(?:\s*(?:UTC|GMT|Z|[+-]\d{2}:?\d{2}|[A-Z]{3,4}\b))?)?";

fn regex(pattern: &str) -> Regex {
    Regex::new(pattern).unwrap_or_else(|e| unreachable!("constant regex {pattern}: {e}"))
}

/// Date at the start of a heading's text, optionally in brackets, then the title.
static DATE_FIRST: LazyLock<Regex> = LazyLock::new(|| {
    regex(&format!(
        r"^[\[(]?{DATE_TIME}[\])]?(?:\s*(?:[-–—:|]+|\s)\s*(?P<rest>.*))?$"
    ))
});
/// Title, then a date at the end (`X - 2025-05-22`, `X (2025-05-22)`).
static DATE_LAST: LazyLock<Regex> = LazyLock::new(|| {
    regex(&format!(
        r"^(?P<rest>.*?\S)\s*(?:[-–—:|,]\s*|\s)[\[(]?{DATE_TIME}[\])]?$"
    ))
});
/// Roo log line: `[2025-05-22 14:03:11] - summary`, also as a list item.
static LOG_LINE: LazyLock<Regex> = LazyLock::new(|| {
    regex(&format!(
        r"^\s*(?:[-*+]\s+)?\[{DATE_TIME}\]\s*(?:[-–—:|]\s*)?(?P<rest>.*)$"
    ))
});
/// Roo's footer `2025-05-22 14:03:11 - Log of updates made.`: not a decision.
static LOG_FOOTER: LazyLock<Regex> = LazyLock::new(|| {
    regex(&format!(
        r"(?i)^\s*\[?{DATE_TIME}\]?\s*[-–—:]\s*log of updates made\.?\s*$"
    ))
});
static ANY_DATE: LazyLock<Regex> = LazyLock::new(|| regex(DATE_TIME));
/// `Decision: X`, `Decision - X`, `Decision 3: X`, `Decision #3`.
static CLINE_TITLE: LazyLock<Regex> = LazyLock::new(|| {
    regex(r"(?i)^decision(?:\s*#?\s*(?P<n>\d+))?\s*(?:[:\-–—.]\s*(?P<rest>.*))?$")
});
/// `ADR-0011: X`, `ADR 12 — X`, `ADR-3.`.
static ADR_TITLE: LazyLock<Regex> =
    LazyLock::new(|| regex(r"(?i)^(?P<id>adr[-_ ]?\d+)\b\s*(?:[:\-–—.|]\s*)?(?P<rest>.*)$"));
/// `**Key:** value`, `- **Key**: value`, `Key: value` for the few keys read from bodies.
static FIELD: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"^\s*(?:[-*+]\s+)?(?:\*\*|__)?(?P<key>[A-Za-z][A-Za-z ]{1,30}?)\s*(?::\s*(?:\*\*|__)|(?:\*\*|__)\s*:|:)\s*(?P<value>.*)$",
    )
});
static ADR_REF: LazyLock<Regex> = LazyLock::new(|| regex(r"(?i)\badr[-_ ]?\d+\b"));
static SUPERSEDED_BY: LazyLock<Regex> =
    LazyLock::new(|| regex(r"(?i)\b(?:superseded|replaced)\s+(?:by|with)\b[:\s]*(?P<rest>.*)$"));
/// `ADR-012-20250522-1403-title.md`: the timestamp ConKeeper adds for concurrent sessions.
static ADR_FILE_STAMP: LazyLock<Regex> = LazyLock::new(|| {
    regex(
        r"(?i)^adr[-_ ]?\d+[-_](?P<y>\d{4})(?P<m>\d{2})(?P<d>\d{2})(?:[-_T](?P<hh>\d{2})(?P<mm>\d{2}))?(?:[-_]|\.md$|$)",
    )
});
static MD_LINK: LazyLock<Regex> =
    LazyLock::new(|| regex(r"\[\[([^\]]+)\]\]|\[([^\]]*)\]\([^)]*\)"));

/// Body keys that mark a heading as a decision block.
const MARKER_KEYS: [&str; 11] = [
    "date",
    "status",
    "context",
    "decision",
    "rationale",
    "alternatives considered",
    "alternatives",
    "consequences",
    "options considered",
    "selected",
    "decided",
];

/// Headings that organise a log rather than record a decision.
fn is_structural_heading(text: &str) -> bool {
    let lower = text.trim().trim_end_matches(':').to_lowercase();
    matches!(
        lower.as_str(),
        "table of contents" | "contents" | "toc" | "index" | "decision log" | "decisions"
    ) || lower.starts_with("template")
        || lower.ends_with("template")
}

// ---------------------------------------------------------------------------------------
// Small text helpers
// ---------------------------------------------------------------------------------------

/// `[Decision Title]`, `[YYYY-MM-DD]`, `[Date] - [Topic]`: template text, not content.
fn is_placeholder(text: &str) -> bool {
    let t = text.trim();
    if t.is_empty() {
        return false;
    }
    let mut rest = t;
    let mut saw = false;
    while let Some(start) = rest.find('[') {
        if !rest[..start]
            .chars()
            .all(|c| c.is_whitespace() || "-–—:|/".contains(c))
        {
            return false;
        }
        let Some(end) = rest[start..].find(']') else {
            return false;
        };
        if rest.as_bytes()[start..].get(end + 1) == Some(&b'(') {
            return false; // a link, not a placeholder
        }
        saw = true;
        rest = &rest[start + end + 1..];
    }
    saw && rest
        .chars()
        .all(|c| c.is_whitespace() || "-–—:|/.".contains(c))
        || matches!(t, "YYYY-MM-DD" | "[YYYY-MM-DD]" | "TBD" | "...")
}

/// Removes emphasis markers and turns links and wikilinks into their text.
fn strip_markup(text: &str) -> String {
    let linked = MD_LINK.replace_all(text, |c: &regex::Captures<'_>| {
        c.get(1)
            .or_else(|| c.get(2))
            .map(|m| m.as_str().to_string())
            .unwrap_or_default()
    });
    linked.replace("**", "").replace("__", "").replace('`', "")
}

fn clean_title(text: &str) -> String {
    let stripped = strip_markup(text);
    let trimmed = stripped
        .trim()
        .trim_start_matches(['-', '–', '—', ':', '|', ' '])
        .trim_end_matches([':', ' ', '-', '–', '—', '|']);
    trimmed.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn normalize_title(title: &str) -> String {
    title
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

fn date_from_captures(c: &regex::Captures<'_>) -> Option<(NaiveDate, Option<NaiveTime>)> {
    let num = |name: &str| c.name(name).and_then(|m| m.as_str().parse::<u32>().ok());
    let (y, m, d) = match (num("y"), num("m"), num("d")) {
        (Some(y), Some(m), Some(d)) => (y, m, d),
        _ => (num("y2")?, num("m2")?, num("d2")?),
    };
    let date = NaiveDate::from_ymd_opt(i32::try_from(y).ok()?, m, d)?;
    let time = match (num("hh"), num("mm")) {
        (Some(h), Some(min)) => NaiveTime::from_hms_opt(h, min, num("ss").unwrap_or(0)),
        _ => None,
    };
    Some((date, time))
}

/// The first date (and time) written anywhere in a value.
fn find_date(text: &str) -> Option<(NaiveDate, Option<NaiveTime>)> {
    ANY_DATE
        .captures_iter(text)
        .find_map(|c| date_from_captures(&c))
}

/// ADR ids, wikilinks or plain titles named in a "supersedes" value.
fn links_in(value: &str) -> Vec<String> {
    let ids: Vec<String> = ADR_REF
        .find_iter(value)
        .map(|m| normalize_adr_id(m.as_str()))
        .collect();
    if !ids.is_empty() {
        return ids;
    }
    let clean = clean_title(value);
    let clean = clean.trim_end_matches('.').trim();
    if clean.is_empty() || is_placeholder(clean) || is_none_word(clean) {
        Vec::new()
    } else {
        vec![clean.to_string()]
    }
}

fn is_none_word(text: &str) -> bool {
    matches!(
        text.to_lowercase().as_str(),
        "none" | "n/a" | "na" | "-" | "—" | "nothing" | "_none_"
    )
}

/// `adr_12`, `ADR 0012` → `ADR-12`, `ADR-0012` (digits kept as written).
fn normalize_adr_id(text: &str) -> String {
    let digits: String = text.chars().filter(char::is_ascii_digit).collect();
    format!("ADR-{digits}")
}

/// Numeric identity of an ADR id, so `ADR-12` and `ADR-0012` match.
fn adr_number(id: &str) -> Option<u32> {
    id.chars()
        .filter(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .ok()
}

// ---------------------------------------------------------------------------------------
// Entries of a log file
// ---------------------------------------------------------------------------------------

/// What a body says about its entry.
#[derive(Default)]
struct Fields {
    date: Option<(NaiveDate, Option<NaiveTime>)>,
    status: Option<DecisionStatus>,
    supersedes: Vec<String>,
    superseded_by: Vec<String>,
    decision: Option<String>,
    has_marker: bool,
}

fn read_fields<'a>(lines: impl Iterator<Item = &'a str>) -> Fields {
    let mut fields = Fields::default();
    for line in lines {
        if let Some((_, text)) = markdown::heading(line) {
            if MARKER_KEYS.contains(&text.trim().trim_end_matches(':').to_lowercase().as_str()) {
                fields.has_marker = true;
            }
            continue;
        }
        if let Some(c) = FIELD.captures(line) {
            let key = c["key"].trim().to_lowercase();
            let value = c["value"].trim();
            if MARKER_KEYS.contains(&key.as_str()) {
                fields.has_marker = true;
            }
            match key.as_str() {
                "date" | "created" | "decided on" | "decision date" if fields.date.is_none() => {
                    fields.date = find_date(value);
                }
                "status" if fields.status.is_none() => {
                    fields.status = DecisionStatus::parse(value);
                    if let Some(m) = SUPERSEDED_BY.captures(value) {
                        fields.superseded_by.extend(links_in(&m["rest"]));
                    }
                }
                "supersedes" | "replaces" => fields.supersedes.extend(links_in(value)),
                "superseded by" | "replaced by" => {
                    let links = links_in(value);
                    if !links.is_empty() {
                        fields.status.get_or_insert(DecisionStatus::Superseded);
                    }
                    fields.superseded_by.extend(links);
                }
                "decision" if fields.decision.is_none() && !value.is_empty() => {
                    fields.decision = Some(clean_title(value));
                }
                _ => {}
            }
            continue;
        }
        // "SUPERSEDED by [[ADR-0011]]" written as a sentence.
        if let Some(m) = SUPERSEDED_BY.captures(line) {
            let ids: Vec<String> = ADR_REF
                .find_iter(&m["rest"])
                .map(|m| normalize_adr_id(m.as_str()))
                .collect();
            if !ids.is_empty() {
                fields.status = Some(DecisionStatus::Superseded);
                fields.superseded_by.extend(ids);
            }
        }
    }
    fields.supersedes.dedup();
    fields.superseded_by.dedup();
    fields
}

/// A line that may open an entry, close one, or group dated entries.
#[derive(Debug, Clone)]
enum Event {
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
}

#[derive(Debug, Clone)]
struct TableRow {
    title: String,
    id: Option<String>,
    date: Option<(NaiveDate, Option<NaiveTime>)>,
    status: Option<DecisionStatus>,
}

/// Columns of a table of decisions, from its header row.
struct TableColumns {
    title: usize,
    date: Option<usize>,
    status: Option<usize>,
    id: Option<usize>,
}

fn table_cells(line: &str) -> Option<Vec<String>> {
    let t = line.trim();
    if !t.starts_with('|') {
        return None;
    }
    let inner = t.trim_start_matches('|').trim_end_matches('|');
    Some(inner.split('|').map(|c| c.trim().to_string()).collect())
}

fn is_separator_row(line: &str) -> bool {
    table_cells(line).is_some_and(|cells| {
        !cells.is_empty()
            && cells
                .iter()
                .all(|c| !c.is_empty() && c.chars().all(|ch| matches!(ch, '-' | ':' | ' ')))
    })
}

fn table_columns(header: &[String]) -> Option<TableColumns> {
    let names: Vec<String> = header
        .iter()
        .map(|c| strip_markup(c).trim().to_lowercase())
        .collect();
    let find = |words: &[&str]| names.iter().position(|n| words.contains(&n.as_str()));
    let title = find(&["decision", "title", "topic", "summary", "decision title"])?;
    Some(TableColumns {
        title,
        date: names.iter().position(|n| n.contains("date") || n == "when"),
        status: find(&["status", "state"]),
        id: find(&["id", "#", "adr", "no", "no.", "number"]),
    })
}

fn row_of(cells: &[String], columns: &TableColumns) -> Option<TableRow> {
    let cell = |i: Option<usize>| i.and_then(|i| cells.get(i)).map(String::as_str);
    let title = clean_title(cell(Some(columns.title))?);
    if title.is_empty() || is_placeholder(&title) {
        return None;
    }
    let id = cell(columns.id)
        .filter(|c| !c.is_empty())
        .map(|c| match ADR_REF.find(c) {
            Some(m) => normalize_adr_id(m.as_str()),
            None => clean_title(c),
        });
    Some(TableRow {
        title,
        id,
        date: cell(columns.date).and_then(find_date),
        status: cell(columns.status).and_then(DecisionStatus::parse),
    })
}

/// Lines (0-based) that are neither in code fences nor in frontmatter.
fn content_mask(text: &str, line_count: usize) -> Vec<bool> {
    let mut mask = vec![true; line_count];
    for (start, end) in markdown::fenced_lines(text) {
        for slot in mask
            .iter_mut()
            .take(end.min(line_count))
            .skip(start.saturating_sub(1))
        {
            *slot = false;
        }
    }
    if let Some(fm) = markdown::frontmatter(text) {
        let lines = text[..fm.body_start.min(text.len())].lines().count();
        for slot in mask.iter_mut().take(lines) {
            *slot = false;
        }
    }
    mask
}

fn scan_events(lines: &[&str], mask: &[bool]) -> Vec<(usize, Event)> {
    let mut events = Vec::new();
    let mut index = 0;
    while index < lines.len() {
        let line = lines[index];
        if !mask[index] {
            index += 1;
            continue;
        }
        if LOG_FOOTER.is_match(line) {
            events.push((index, Event::Footer));
        } else if let Some(c) = LOG_LINE.captures(line)
            && let Some(date) = date_from_captures(&c)
        {
            let title = clean_title(c.name("rest").map_or("", |m| m.as_str()));
            events.push((index, Event::LogLine { date, title }));
        } else if let Some((level, text)) = markdown::heading(line) {
            events.push((index, Event::Heading { level, text }));
        } else if let Some(header) = table_cells(line)
            && lines.get(index + 1).is_some_and(|l| is_separator_row(l))
            && let Some(columns) = table_columns(&header)
        {
            index += 2;
            while index < lines.len() && mask[index] {
                let Some(cells) = table_cells(lines[index]) else {
                    break;
                };
                if let Some(row) = row_of(&cells, &columns) {
                    events.push((index, Event::TableRow(row)));
                }
                index += 1;
            }
            continue;
        }
        index += 1;
    }
    events
}

/// How a heading's text reads as a decision.
struct HeadingTitle {
    title: String,
    id: Option<String>,
    date: Option<(NaiveDate, Option<NaiveTime>)>,
    style: DecisionStyle,
    /// False for a plain heading, which is a decision only when its body says so.
    certain: bool,
}

fn read_heading(text: &str) -> HeadingTitle {
    let text = strip_markup(text);
    let text = text.trim();
    let mut out = HeadingTitle {
        title: clean_title(text),
        id: None,
        date: None,
        style: DecisionStyle::Block,
        certain: false,
    };
    let mut rest = text.to_string();
    if let Some(c) = DATE_FIRST.captures(text)
        && let Some(date) = date_from_captures(&c)
    {
        out.date = Some(date);
        rest = c.name("rest").map_or("", |m| m.as_str()).to_string();
        out.style = DecisionStyle::DatedHeading;
        out.certain = true;
    } else if let Some(c) = DATE_LAST.captures(text)
        && let Some(date) = date_from_captures(&c)
    {
        out.date = Some(date);
        rest = c["rest"].to_string();
        out.style = DecisionStyle::DatedHeading;
        out.certain = true;
    }
    let rest_clean = clean_title(&rest);
    if let Some(c) = ADR_TITLE.captures(&rest_clean) {
        out.id = Some(normalize_adr_id(&c["id"]));
        out.title = clean_title(&c["rest"]);
        out.style = DecisionStyle::Adr;
        out.certain = true;
    } else if let Some(c) = CLINE_TITLE.captures(&rest_clean) {
        let named = c.name("rest").map(|m| clean_title(m.as_str()));
        out.title = match named {
            Some(t) if !t.is_empty() => t,
            _ => rest_clean.clone(),
        };
        // A bare "Decision" heading is a section of a block, not a block.
        if c.name("n").is_some() || c.name("rest").is_some_and(|m| !m.as_str().is_empty()) {
            if out.style != DecisionStyle::DatedHeading {
                out.style = DecisionStyle::ClineBlock;
            }
            out.certain = true;
        }
    } else {
        out.title = rest_clean;
    }
    out
}

/// Entries of a decision log, in file order.
pub fn parse_log(path: &Path, text: &str) -> Vec<Decision> {
    let lines: Vec<&str> = text.lines().collect();
    let mask = content_mask(text, lines.len());
    let events = scan_events(&lines, &mask);
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
        status: Option<DecisionStatus>,
        style: DecisionStyle,
        /// A dated heading with no title: a day grouping entries below it.
        group: bool,
    }
    let mut drafts: Vec<Draft> = Vec::new();
    // Level of the entry whose body we are in: a plain heading below it is one of its
    // sections (`### Option 1` under a log line), not a decision of its own.
    let mut open: Option<usize> = None;
    for (position, (line, event)) in events.iter().enumerate() {
        if let Event::Heading { level, .. } = event
            && open.is_some_and(|l| *level <= l)
        {
            open = None;
        }
        match event {
            Event::Footer => {}
            Event::LogLine { date, title } => {
                if title.is_empty() || is_placeholder(title) {
                    continue;
                }
                open = Some(2);
                drafts.push(Draft {
                    start: *line,
                    level: 7,
                    title: title.clone(),
                    id: None,
                    date: Some(*date),
                    status: None,
                    style: DecisionStyle::LogLine,
                    group: false,
                });
            }
            Event::TableRow(row) => drafts.push(Draft {
                start: *line,
                level: 8,
                title: row.title.clone(),
                id: row.id.clone(),
                date: row.date,
                status: row.status,
                style: DecisionStyle::TableRow,
                group: false,
            }),
            Event::Heading { level, text } => {
                if is_structural_heading(text) || is_placeholder(text) {
                    continue;
                }
                let heading = read_heading(text);
                if is_placeholder(&heading.title) {
                    continue;
                }
                let group = heading.date.is_some() && heading.title.is_empty();
                let accept = if heading.certain {
                    *level > 1 || heading.style == DecisionStyle::Adr
                } else if open.is_some() {
                    false
                } else {
                    // A plain heading is a decision when its own body (up to the next
                    // heading of the same or a higher level) carries decision fields.
                    *level > 1 && !heading.title.is_empty() && {
                        let end = events[position + 1..]
                            .iter()
                            .find(|(_, e)| match e {
                                Event::Heading { level: l, text } => {
                                    *l <= *level || read_heading(text).certain
                                }
                                Event::LogLine { .. } | Event::TableRow(_) => true,
                                Event::Footer => true,
                            })
                            .map_or(lines.len(), |(l, _)| *l);
                        read_fields((line + 1..end).filter(|i| mask[*i]).map(|i| lines[i]))
                            .has_marker
                    }
                };
                if accept {
                    if !group {
                        open = Some(*level);
                    }
                    drafts.push(Draft {
                        start: *line,
                        level: *level,
                        title: heading.title,
                        id: heading.id,
                        date: heading.date,
                        status: None,
                        style: heading.style,
                        group,
                    });
                }
            }
        }
    }

    // Ends: the line before the next entry, the next heading at the same or a higher
    // level, or a footer.
    let boundary_after = |start: usize, level: usize, starts: &[usize]| -> usize {
        let next_start = starts.iter().copied().find(|s| *s > start);
        let next_heading = events
            .iter()
            .find(|(l, e)| {
                *l > start
                    && match e {
                        Event::Heading { level: hl, .. } => *hl <= level.clamp(1, 6),
                        Event::Footer => true,
                        _ => false,
                    }
            })
            .map(|(l, _)| *l);
        [next_start, next_heading]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(lines.len())
    };
    let starts: Vec<usize> = drafts
        .iter()
        .filter(|d| !d.group)
        .map(|d| d.start)
        .collect();
    let mut out = Vec::new();
    let mut group_date: Option<(usize, usize, (NaiveDate, Option<NaiveTime>))> = None;
    for draft in &drafts {
        // Log lines end at the next section (level 2 or higher), tables at their own line.
        let level = match draft.style {
            DecisionStyle::LogLine => 2,
            _ => draft.level,
        };
        let bound = if draft.style == DecisionStyle::TableRow {
            draft.start + 1
        } else if draft.group {
            // A day heading spans its section, entries included.
            boundary_after(draft.start, level, &[])
        } else {
            boundary_after(draft.start, level, &starts)
        };
        if draft.group {
            let has_children = starts.iter().any(|s| *s > draft.start && *s < bound);
            if has_children {
                if let Some(date) = draft.date {
                    group_date = Some((draft.start, bound, date));
                }
                continue;
            }
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
            Fields::default()
        } else {
            read_fields(
                (draft.start + 1..=end)
                    .filter(|i| mask[*i])
                    .map(|i| lines[i]),
            )
        };
        let inherited = group_date
            .filter(|(s, b, _)| draft.start > *s && draft.start < *b)
            .map(|(_, _, d)| d);
        let date = draft.date.or(fields.date).or(inherited);
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
                SUPERSEDED_BY
                    .is_match(&draft.title)
                    .then_some(DecisionStatus::Superseded)
            })
            .unwrap_or(DecisionStatus::Unknown);
        out.push(Decision {
            id: draft.id.clone(),
            title,
            date: date.map(|d| d.0),
            time: date.and_then(|d| d.1),
            status,
            supersedes: fields.supersedes,
            superseded_by: fields.superseded_by,
            file: path.to_path_buf(),
            display: display.clone(),
            line: draft.start + 1,
            end_line: end + 1,
            style: draft.style,
        });
    }
    out
}

/// The one decision an ADR file records. Title from its first heading (without the
/// `ADR-NNN:` prefix), else the frontmatter's `title`, else the file name; date from the
/// file name's timestamp, the frontmatter (`date`, `created`) or a `Date:` line.
pub fn parse_adr(path: &Path, text: &str) -> Option<Decision> {
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    if lines.iter().all(|l| l.trim().is_empty()) {
        return None;
    }
    let mask = content_mask(text, lines.len());
    let mut front = Fields::default();
    let mut front_title = None;
    if let Some(fm) = markdown::frontmatter(text) {
        for line in fm.yaml.lines() {
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            let value = value.trim().trim_matches(['"', '\'']);
            match key.trim().to_lowercase().as_str() {
                "status" => front.status = DecisionStatus::parse(value),
                "date" | "created" | "decided" if front.date.is_none() => {
                    front.date = find_date(value)
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
    let body = read_fields((0..lines.len()).filter(|i| mask[*i]).map(|i| lines[i]));

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
    let (heading_id, heading_title) = match &first_heading {
        Some((_, text)) => {
            let read = read_heading(text);
            (read.id, Some(read.title).filter(|t| !t.is_empty()))
        }
        None => (None, None),
    };
    let stamp = ADR_FILE_STAMP.captures(&file_name).and_then(|c| {
        let num = |n: &str| c.name(n).and_then(|m| m.as_str().parse::<u32>().ok());
        let date = NaiveDate::from_ymd_opt(i32::try_from(num("y")?).ok()?, num("m")?, num("d")?)?;
        let time = match (num("hh"), num("mm")) {
            (Some(h), Some(m)) => NaiveTime::from_hms_opt(h, m, 0),
            _ => None,
        };
        Some((date, time))
    });
    let title = heading_title.or(front_title).unwrap_or_else(|| {
        let stem = file_name.trim_end_matches(".md");
        let words = ADR_TITLE
            .captures(stem)
            .map(|c| c["rest"].to_string())
            .unwrap_or_else(|| stem.to_string());
        let words = words.trim_start_matches(|c: char| c.is_ascii_digit() || c == '-' || c == '_');
        clean_title(&words.replace(['-', '_'], " "))
    });
    let date = stamp.or(front.date).or(body.date);
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
        status,
        supersedes,
        superseded_by,
        file: path.to_path_buf(),
        display: file_name,
        line: start + 1,
        end_line: end.max(start) + 1,
        style: DecisionStyle::Adr,
    })
}

/// Decisions in one file's text, by role: an ADR file holds one, a log many.
pub fn parse_file(path: &Path, role: Role, text: &str) -> Vec<Decision> {
    let is_adr_file = role == Role::Adr
        || path
            .file_name()
            .is_some_and(|n| formats::is_adr_name(&n.to_string_lossy()));
    if is_adr_file {
        parse_adr(path, text).into_iter().collect()
    } else {
        parse_log(path, text)
    }
}

/// Fills the other side of supersession links (an entry that says "Supersedes ADR-3"
/// makes ADR-3 superseded by it) and marks replaced entries superseded.
pub fn link_supersessions(decisions: &mut [Decision]) {
    let name_of = |d: &Decision| d.id.clone().unwrap_or_else(|| d.title.clone());
    let matches = |link: &str, d: &Decision| match (&d.id, adr_number(link)) {
        (Some(id), Some(n)) if ADR_REF.is_match(link) => adr_number(id) == Some(n),
        _ => normalize_title(link) == normalize_title(&d.title),
    };
    let mut additions: Vec<(usize, String)> = Vec::new();
    for (i, newer) in decisions.iter().enumerate() {
        for link in &newer.supersedes {
            for (j, older) in decisions.iter().enumerate() {
                if i != j && matches(link, older) {
                    additions.push((j, name_of(newer)));
                }
            }
        }
    }
    for (j, by) in additions {
        let older = &mut decisions[j];
        if !older.superseded_by.iter().any(|b| b == &by) {
            older.superseded_by.push(by);
        }
    }
    let mut back: Vec<(usize, String)> = Vec::new();
    for (j, older) in decisions.iter().enumerate() {
        for link in &older.superseded_by {
            for (i, newer) in decisions.iter().enumerate() {
                if i != j && matches(link, newer) {
                    back.push((i, name_of(older)));
                }
            }
        }
    }
    for (i, name) in back {
        let newer = &mut decisions[i];
        if !newer.supersedes.iter().any(|s| s == &name) {
            newer.supersedes.push(name);
        }
    }
    for decision in decisions.iter_mut() {
        if !decision.superseded_by.is_empty()
            && matches!(
                decision.status,
                DecisionStatus::Unknown | DecisionStatus::Accepted
            )
        {
            decision.status = DecisionStatus::Superseded;
        }
    }
}

/// Timeline order: dated entries oldest first (time breaks ties, then place in the
/// file); undated entries last, in file order.
pub fn sort_timeline(decisions: &mut [Decision]) {
    decisions.sort_by(|a, b| {
        let dated = |d: &Decision| d.date.is_none();
        dated(a)
            .cmp(&dated(b))
            .then(a.date.cmp(&b.date))
            .then(a.time.cmp(&b.time))
            .then(a.file.cmp(&b.file))
            .then(a.line.cmp(&b.line))
    });
}

/// Decision files of a bank are those whose role is a decision log.
fn decision_files(bank: &Bank) -> impl Iterator<Item = &MemoryFile> {
    bank.files
        .iter()
        .filter(|f| !f.is_virtual() && f.role.is_decision_log())
}

/// Largest decision log read; bigger files are skipped rather than slowing the timeline.
const MAX_LOG_BYTES: u64 = 8 * 1024 * 1024;

/// Decisions of one file as listed in a bank (display names relative to the project).
pub fn decisions_of_file(file: &MemoryFile, text: &str) -> Vec<Decision> {
    let mut found = parse_file(&file.path, file.role, text);
    for d in &mut found {
        d.display = file.display.clone();
    }
    found
}

/// Every decision of a bank, in timeline order, with supersession links filled. Files
/// that cannot be read are skipped (validation reports them).
pub fn decisions_of_bank(bank: &Bank) -> Vec<Decision> {
    let mut out = Vec::new();
    for file in decision_files(bank) {
        if let Ok(text) = text::read_text_limited(&file.path, MAX_LOG_BYTES) {
            out.extend(decisions_of_file(file, &text));
        }
    }
    link_supersessions(&mut out);
    sort_timeline(&mut out);
    out
}

/// Every decision of every bank of a project, in timeline order.
pub fn decisions_of_project(project: &Project) -> Vec<Decision> {
    let mut out = Vec::new();
    for bank in super::bank::list_banks(project) {
        for file in decision_files(&bank) {
            if let Ok(text) = text::read_text_limited(&file.path, MAX_LOG_BYTES) {
                out.extend(decisions_of_file(file, &text));
            }
        }
    }
    link_supersessions(&mut out);
    sort_timeline(&mut out);
    out
}

/// Entries of `old` that `new` no longer has (compared by title and date; a changed
/// status is fine, a deleted or rewritten entry is not).
pub fn lost_entries<'a>(old: &'a [Decision], new: &[Decision]) -> Vec<&'a Decision> {
    let mut remaining: HashMap<(String, Option<NaiveDate>), usize> = HashMap::new();
    for d in new {
        *remaining.entry(d.key()).or_default() += 1;
    }
    old.iter()
        .filter(|d| match remaining.get_mut(&d.key()) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .collect()
}

/// The append-only check: a decision log that lost entries since its committed version.
pub fn shrink_finding(
    file: &MemoryFile,
    committed_text: &str,
    current_text: &str,
) -> Option<Finding> {
    let old = parse_file(&file.path, file.role, committed_text);
    let new = parse_file(&file.path, file.role, current_text);
    let lost = lost_entries(&old, &new);
    if lost.is_empty() {
        return None;
    }
    let titles: Vec<String> = lost
        .iter()
        .take(5)
        .map(|d| match d.date {
            Some(date) => format!("\"{}\" ({date})", d.title),
            None => format!("\"{}\"", d.title),
        })
        .collect();
    let more = if lost.len() > titles.len() {
        format!(" and {} more", lost.len() - titles.len())
    } else {
        String::new()
    };
    Some(Finding::new(
        Severity::Error,
        "decision-log-shrunk",
        &file.path,
        None,
        format!(
            "{} lost {} decision(s) since the last commit: {}{more}; decision logs are \
             append-only (restore with `git show HEAD:<path>` and mark old entries superseded \
             instead of deleting them)",
            file.display,
            lost.len(),
            titles.join(", ")
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(text: &str) -> Vec<Decision> {
        parse_log(Path::new("decisionLog.md"), text)
    }

    fn date(s: &str) -> Option<NaiveDate> {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").ok()
    }

    fn time(s: &str) -> Option<NaiveTime> {
        NaiveTime::parse_from_str(s, "%H:%M:%S").ok()
    }

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
    fn dated_headings_in_every_spelling() {
        let text = "# Log\n\
## 2025-01-04 - Pick a queue\n**Context:** slow jobs\n**Decision:** use a queue\n\n\
### 2025/05/22 - Drop the cron box\n\n\
## 3/7/2025 - Adopt US dates\n\n\
## **2025-06-01 09:30 - Bold heading with time**\n\n\
## Split the monolith - 2025-07-08\n\n\
## Rename the CLI (2025-08-09)\n";
        let d = log(text);
        let got: Vec<(&str, Option<NaiveDate>)> =
            d.iter().map(|d| (d.title.as_str(), d.date)).collect();
        assert_eq!(
            got,
            vec![
                ("Pick a queue", date("2025-01-04")),
                ("Drop the cron box", date("2025-05-22")),
                ("Adopt US dates", date("2025-03-07")),
                ("Bold heading with time", date("2025-06-01")),
                ("Split the monolith", date("2025-07-08")),
                ("Rename the CLI", date("2025-08-09")),
            ]
        );
        assert!(d.iter().all(|d| d.style == DecisionStyle::DatedHeading));
        assert_eq!(d[3].time, NaiveTime::from_hms_opt(9, 30, 0));
        assert_eq!((d[0].line, d[0].end_line), (2, 4));
        // The level-3 entry ends where the next level-2 heading starts.
        assert_eq!((d[1].line, d[1].end_line), (6, 6));
    }

    #[test]
    fn headings_in_fences_and_tables_of_contents_are_skipped() {
        let text = "# Decision Log\n\n## Table of Contents\n\n\
1. [Use tabs (1/2/2025)](#122025---use-tabs)\n\n\
## 1/2/2025 - Use tabs\n\n**Decision:** tabs\n\n\
## Template for Future Decisions\n\n```\n## [Date] - [Decision Topic]\n## 2025-01-01 - Fenced example\n```\n";
        let d = log(text);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].title, "Use tabs");
        assert_eq!(d[0].date, date("2025-01-02"));
        assert_eq!((d[0].line, d[0].end_line), (7, 9));
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
        assert_eq!(d[0].status, DecisionStatus::Unknown);
        assert_eq!(d[1].title, "Cache embeddings on disk");
        assert_eq!(d[1].date, None);
        assert_eq!((d[1].line, d[1].end_line), (13, 17));
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
    fn seed_001_title_then_date_with_section_headings() {
        let text = "# Decision Log\n## Use JWT for auth - 2025-02-03\n### Context\nstateless API\n\
### Decision\nJWT\n### Alternatives Considered\n- sessions\n### Consequences\n- key rotation\n";
        let d = log(text);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].title, "Use JWT for auth");
        assert_eq!((d[0].line, d[0].end_line), (2, 10));
    }

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
    fn statuses_map_to_the_five_plus_rejected() {
        use DecisionStatus::*;
        let cases = [
            ("Accepted", Some(Accepted)),
            ("**Approved**", Some(Accepted)),
            ("In Progress", Some(Proposed)),
            ("Draft", Some(Proposed)),
            ("Superseded by ADR-9", Some(Superseded)),
            ("Deprecated", Some(Deprecated)),
            ("Rejected", Some(Rejected)),
            ("[Accepted / Superseded / Deprecated]", None),
            ("banana", None),
        ];
        for (text, want) in cases {
            assert_eq!(DecisionStatus::parse(text), want, "{text}");
        }
    }

    #[test]
    fn supersession_links_are_filled_both_ways_and_sorted() {
        let mut all = vec![
            parse_adr(
                Path::new("ADR-0002.md"),
                "# ADR-0002: New\n**Status:** Accepted\n**Supersedes:** ADR-0001\n**Date:** 2025-02-01\n",
            )
            .unwrap(),
            parse_adr(
                Path::new("ADR-0001.md"),
                "# ADR-0001: Old\n**Status:** Accepted\n**Date:** 2025-01-01\n",
            )
            .unwrap(),
            parse_adr(Path::new("ADR-0003.md"), "# ADR-0003: Undated\n").unwrap(),
        ];
        link_supersessions(&mut all);
        sort_timeline(&mut all);
        let ids: Vec<_> = all.iter().map(|d| d.id.clone().unwrap()).collect();
        assert_eq!(ids, ["ADR-0001", "ADR-0002", "ADR-0003"]);
        assert_eq!(all[0].status, DecisionStatus::Superseded);
        assert_eq!(all[0].superseded_by, vec!["ADR-0002"]);
    }

    #[test]
    fn lost_entries_ignore_status_changes_and_new_entries() {
        let before = "# Log\n## 2025-01-01 - A\n**Status:** accepted\n## 2025-01-02 - B\n## 2025-01-03 - C\n";
        let after = "# Log\n## 2025-01-01 - A\n**Status:** superseded\n## 2025-01-03 - C\n## 2025-01-04 - D\n";
        let (old, new) = (log(before), log(after));
        let lost = lost_entries(&old, &new);
        assert_eq!(lost.len(), 1);
        assert_eq!(lost[0].title, "B");
        assert!(lost_entries(&new, &new).is_empty());
    }

    #[test]
    fn shrink_finding_names_the_lost_titles() {
        let file = MemoryFile {
            path: PathBuf::from("/p/memory-bank/decisionLog.md"),
            display: "memory-bank/decisionLog.md".into(),
            role: Role::Decisions,
            layer: Some(7),
            order: 6,
            group: None,
            load: crate::core::model::LoadKind::Startup,
            size: 0,
            modified: None,
            memory: None,
            unreadable: None,
        };
        let committed = "## Decision: Keep A\n- **Date**: 2025-01-01\n## Decision: Keep B\n";
        let finding = shrink_finding(&file, committed, "## Decision: Keep B\n").unwrap();
        assert_eq!(finding.code, "decision-log-shrunk");
        assert_eq!(finding.severity, Severity::Error);
        assert!(
            finding.message.contains("\"Keep A\" (2025-01-01)"),
            "{}",
            finding.message
        );
        assert!(shrink_finding(&file, committed, committed).is_none());
    }

    #[test]
    fn hostile_text_does_not_panic() {
        for text in [
            "",
            "#",
            "## ",
            "[2025-99-99 99:99:99] - bad date\n",
            "| Decision |\n|---|\n| |\n",
            "```\n## 2025-01-01 - never closed fence",
            "## 2025-02-30 - impossible date\n",
            "---\nstatus: [\n",
            "## Décision: café ☕ 2025-01-01\n## 日本語の決定 - 2025-01-02\n",
        ] {
            let _ = log(text);
            let _ = parse_adr(Path::new("ADR-1.md"), text);
        }
        let long = "x".repeat(500_000);
        assert!(log(&long).is_empty());
        let d = log("## 2025-02-30 - impossible date\n");
        assert!(d.iter().all(|d| d.date.is_none()));
    }
}

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
//! Decision logs are append-only (the Cline memory bank spec): `lost_entries` compares a log with its
//! committed version so a shrunk log can be reported.
//!
//! Bounds: a log over `limits::DECISION_LOG_MAX_BYTES` (8 MiB) is not parsed and is a
//! `parse-limit` finding (an error when the append-only check is skipped because of it);
//! parsing, linking and sorting are O(n log n) in the entries (100k entries well under a
//! second, unoptimised), and at most 16 supersession links are filled in per entry.
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use chrono::{NaiveDate, NaiveTime};
use regex::Regex;
use serde::Serialize;

use crate::core::error::CoreError;
use crate::core::findings::{Finding, Severity};
use crate::core::formats;
use crate::core::limits;
use crate::core::markdown;
use crate::core::model::{Bank, MemoryFile, Project, Role};
use crate::core::text;

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
        // The usual single words, decided as the word lists below would decide them.
        match lower.as_str() {
            "accepted" => return Some(DecisionStatus::Accepted),
            "proposed" => return Some(DecisionStatus::Proposed),
            "superseded" => return Some(DecisionStatus::Superseded),
            "deprecated" => return Some(DecisionStatus::Deprecated),
            "rejected" => return Some(DecisionStatus::Rejected),
            _ => {}
        }
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
    /// A bullet (`* **Title**`, `* text`) under a bare `## Decision` heading (RooFlow),
    /// dated only when its body says so.
    ListItem,
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
/// Words [`SUPERSEDED_BY`] cannot match without.
const SUPERSEDED_WORDS: &[&[u8]] = &[b"superseded", b"replaced"];
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

/// A bare `Decision` / `Decisions` heading: RooFlow writes its log as bullets below one.
fn is_list_section_heading(text: &str) -> bool {
    let cleaned = clean_title(text);
    cleaned.eq_ignore_ascii_case("decision") || cleaned.eq_ignore_ascii_case("decisions")
}

/// The title of a top-level bullet (`* **Title**`, `- text`): the bold part when the
/// bullet opens with one, else the whole text. `None` for an indented bullet (a detail of
/// the entry above), an empty bullet (RooFlow's template `*`) or a placeholder.
fn list_item_title(line: &str) -> Option<String> {
    let rest = line
        .strip_prefix("* ")
        .or_else(|| line.strip_prefix("- "))
        .or_else(|| line.strip_prefix("+ "))?;
    let rest = rest.trim();
    let title = match rest.strip_prefix("**") {
        Some(bold) => match bold.find("**") {
            Some(end) if end > 0 => &bold[..end],
            _ => rest,
        },
        None => rest,
    };
    let title = clean_title(title);
    (!title.is_empty() && !is_placeholder(&title)).then_some(title)
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
    if !t.as_bytes().contains(&b'[') {
        // No bracketed part: only the bare template words.
        return matches!(t, "YYYY-MM-DD" | "TBD" | "...");
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
    // Most titles and values carry no markup: skip the regex and the rewrites (a log of
    // 100k entries passes here several times per entry).
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() && !matches!(bytes[i], b'[' | b'*' | b'_' | b'`') {
        i += 1;
    }
    if i == bytes.len() {
        return text.to_string();
    }
    let linked = if bytes.contains(&b'[') {
        MD_LINK.replace_all(text, |c: &regex::Captures<'_>| {
            c.get(1)
                .or_else(|| c.get(2))
                .map(|m| m.as_str().to_string())
                .unwrap_or_default()
        })
    } else {
        std::borrow::Cow::Borrowed(text)
    };
    linked.replace("**", "").replace("__", "").replace('`', "")
}

fn clean_title(text: &str) -> String {
    let stripped = strip_markup(text);
    let trimmed = if is_ascii(&stripped) {
        trim_title_ascii(&stripped)
    } else {
        stripped
            .trim()
            .trim_start_matches(['-', '–', '—', ':', '|', ' '])
            .trim_end_matches([':', ' ', '-', '–', '—', '|'])
    };
    collapse_whitespace(trimmed, false)
}

/// `clean_title`'s trimming for ASCII text, as a byte loop: whitespace off both ends,
/// then `-`, `:`, `|` and spaces off the start and `:`, spaces, `-` and `|` off the end.
fn trim_title_ascii(text: &str) -> &str {
    let bytes = text.as_bytes();
    let is_space = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r');
    let (mut start, mut end) = (0, bytes.len());
    while start < end && is_space(bytes[start]) {
        start += 1;
    }
    while end > start && is_space(bytes[end - 1]) {
        end -= 1;
    }
    while start < end && matches!(bytes[start], b'-' | b':' | b'|' | b' ') {
        start += 1;
    }
    while end > start && matches!(bytes[end - 1], b':' | b' ' | b'-' | b'|') {
        end -= 1;
    }
    &text[start..end]
}

/// False only when `text`, known to be ASCII (`ascii`), cannot match a pattern
/// (`possible` says whether it can): a cheap test before a regex. Text with other
/// characters always goes to the regex, whose `\d`, `\s` and case folding are
/// Unicode-aware.
fn may_match(ascii: bool, text: &str, possible: impl FnOnce(&[u8]) -> bool) -> bool {
    !ascii || possible(text.as_bytes())
}

fn normalize_title(title: &str) -> String {
    collapse_whitespace(title, true)
}

/// `str::is_ascii` as a plain loop: in unoptimised builds (where the tests run) the
/// library's version costs more than everything else done to a short title.
fn is_ascii(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] >= 0x80 {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether `text` may contain one of the ASCII `words` in any case: false only when it
/// cannot (a cheap test before a case-insensitive regex; text with other characters
/// is passed on, since Unicode case folding maps some of them to ASCII letters).
fn may_contain_word(text: &str, words: &[&[u8]]) -> bool {
    if !is_ascii(text) {
        return true;
    }
    let bytes = text.as_bytes();
    words.iter().any(|word| {
        let mut i = 0;
        while i + word.len() <= bytes.len() {
            if bytes[i..i + word.len()].eq_ignore_ascii_case(word) {
                return true;
            }
            i += 1;
        }
        false
    })
}

/// Words separated by single spaces (`split_whitespace().join(" ")`), lower-cased when
/// asked; ASCII text takes a byte loop, which matters for big logs in debug builds.
fn collapse_whitespace(text: &str, lowercase: bool) -> String {
    if !is_ascii(text) {
        let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
        return if lowercase {
            joined.to_lowercase()
        } else {
            joined
        };
    }
    let bytes = text.as_bytes();
    let is_space = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r');
    // Already single-spaced (the usual case): copy it whole. A plain loop: this runs
    // for every title and value of a log.
    let mut single_spaced =
        bytes.first().is_none_or(|&b| !is_space(b)) && bytes.last().is_none_or(|&b| !is_space(b));
    let mut i = 1;
    while single_spaced && i < bytes.len() {
        match bytes[i] {
            b' ' => single_spaced = bytes[i - 1] != b' ',
            b'\t' | b'\n' | 0x0B | 0x0C | b'\r' => single_spaced = false,
            _ => {}
        }
        i += 1;
    }
    if single_spaced {
        let mut out = bytes.to_vec();
        if lowercase {
            let letters = out.as_mut_slice();
            let mut i = 0;
            while i < letters.len() {
                if letters[i].is_ascii_uppercase() {
                    letters[i] += b'a' - b'A';
                }
                i += 1;
            }
        }
        // ASCII in, ASCII out.
        return String::from_utf8(out).unwrap_or_default();
    }
    let mut out = Vec::with_capacity(text.len());
    let mut pending_space = false;
    for &byte in text.as_bytes() {
        // char::is_whitespace on ASCII: space, \t, \n, VT, FF, \r.
        if matches!(byte, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r') {
            pending_space = !out.is_empty();
            continue;
        }
        if pending_space {
            out.push(b' ');
            pending_space = false;
        }
        out.push(if lowercase {
            byte.to_ascii_lowercase()
        } else {
            byte
        });
    }
    // Only ASCII bytes were copied.
    String::from_utf8(out).unwrap_or_default()
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
        // Nothing below matches a blank line.
        if line.trim().is_empty() {
            continue;
        }
        if let Some((_, text)) = markdown::heading(line) {
            if MARKER_KEYS.contains(&text.trim().trim_end_matches(':').to_lowercase().as_str()) {
                fields.has_marker = true;
            }
            continue;
        }
        if line.as_bytes().contains(&b':')
            && let Some(c) = FIELD.captures(line)
        {
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
                    if may_contain_word(value, SUPERSEDED_WORDS)
                        && let Some(m) = SUPERSEDED_BY.captures(value)
                    {
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
        if may_contain_word(line, SUPERSEDED_WORDS)
            && let Some(m) = SUPERSEDED_BY.captures(line)
        {
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
    /// A top-level bullet in a `## Decision` section (RooFlow's list format).
    ListItem {
        title: String,
    },
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

/// The usual Roo log line, `[2025-05-22 14:03:11] - summary` (also as a list item), read
/// without the regex: its date and time and the summary. `None` for any other shape
/// (another date format, a time zone, a non-ASCII line), which then goes to
/// [`LOG_LINE`]: where this reads a line, the regex reads it the same way, and the regex
/// costs more than the rest of a 100k-entry log together.
fn quick_log_line(line: &str) -> Option<((NaiveDate, Option<NaiveTime>), &str)> {
    let bytes = line.as_bytes();
    let is_space = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r');
    let mut i = 0;
    let skip_spaces = |i: &mut usize| {
        while *i < bytes.len() && is_space(bytes[*i]) {
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
        && bytes.get(i + 1).is_some_and(|&b| is_space(b))
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

/// `ascii`: the whole text is ASCII (checked once, not per line).
fn scan_events(lines: &[&str], mask: &[bool], ascii: bool) -> Vec<(usize, Event)> {
    let mut events = Vec::new();
    let mut index = 0;
    // Level of the bare `## Decision` heading whose list we are in (RooFlow).
    let mut list_section: Option<usize> = None;
    while index < lines.len() {
        let line = lines[index];
        if !mask[index] {
            index += 1;
            continue;
        }
        // Log lines and footers start with a date, `[` or a list marker.
        let bytes = line.as_bytes();
        let may_be_log = may_match(ascii, line, |bytes| {
            let mut i = 0;
            while i < bytes.len() && matches!(bytes[i], b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r')
            {
                i += 1;
            }
            i < bytes.len() && matches!(bytes[i], b'[' | b'0'..=b'9' | b'-' | b'*' | b'+')
        });
        // A footer ends with "log of updates made".
        let may_be_footer = may_be_log
            && may_match(ascii, line, |_| {
                let mut end = bytes.len();
                while end > 0
                    && matches!(bytes[end - 1], b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r')
                {
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
        } else if let Some((level, text)) = markdown::heading(line) {
            // A level-1 "Decisions" is the file's title, not a section.
            if level > 1 && is_list_section_heading(&text) {
                list_section = Some(level);
            } else if list_section.is_some_and(|l| level <= l) {
                list_section = None;
            }
            events.push((index, Event::Heading { level, text }));
        } else if list_section.is_some()
            && let Some(title) = list_item_title(line)
        {
            events.push((index, Event::ListItem { title }));
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
        // Every branch below sets the title.
        title: String::new(),
        id: None,
        date: None,
        style: DecisionStyle::Block,
        certain: false,
    };
    let mut rest = text.to_string();
    let ascii = is_ascii(text);
    let has_digit = may_match(ascii, text, |bytes| bytes.iter().any(u8::is_ascii_digit));
    let date_first = may_match(ascii, text, |bytes| {
        matches!(bytes.first(), Some(b'[' | b'(' | b'0'..=b'9'))
    });
    if date_first
        && let Some(c) = DATE_FIRST.captures(text)
        && let Some(date) = date_from_captures(&c)
    {
        out.date = Some(date);
        rest = c.name("rest").map_or("", |m| m.as_str()).to_string();
        out.style = DecisionStyle::DatedHeading;
        out.certain = true;
    } else if has_digit
        && let Some(c) = DATE_LAST.captures(text)
        && let Some(date) = date_from_captures(&c)
    {
        out.date = Some(date);
        rest = c["rest"].to_string();
        out.style = DecisionStyle::DatedHeading;
        out.certain = true;
    }
    let rest_clean = clean_title(&rest);
    let starts_with = |word: &[u8]| {
        // `rest_clean` is a cleaned part of `text`: ASCII when it is.
        may_match(ascii, &rest_clean, |bytes| {
            bytes.len() >= word.len() && bytes[..word.len()].eq_ignore_ascii_case(word)
        })
    };
    let (adr_prefix, decision_prefix) = (starts_with(b"adr"), starts_with(b"decision"));
    if adr_prefix && let Some(c) = ADR_TITLE.captures(&rest_clean) {
        out.id = Some(normalize_adr_id(&c["id"]));
        out.title = clean_title(&c["rest"]);
        out.style = DecisionStyle::Adr;
        out.certain = true;
    } else if decision_prefix && let Some(c) = CLINE_TITLE.captures(&rest_clean) {
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
        status: Option<DecisionStatus>,
        style: DecisionStyle,
        /// A dated heading with no title: a day grouping entries below it.
        group: bool,
    }
    let mut drafts: Vec<Draft> = Vec::new();
    // Level of the entry whose body we are in: a plain heading below it is one of its
    // sections (`### Option 1` under a log line), not a decision of its own.
    let mut open: Option<usize> = None;
    // Whether that entry is a log line or a list bullet (whose peers are more bullets).
    let mut open_by_line = false;
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
                open_by_line = true;
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
            Event::ListItem { title } => {
                // Inside another entry's body a bullet is a detail of it.
                if open.is_some() && !open_by_line {
                    continue;
                }
                open = Some(2);
                open_by_line = true;
                drafts.push(Draft {
                    start: *line,
                    level: 7,
                    title: title.clone(),
                    id: None,
                    date: None,
                    status: None,
                    style: DecisionStyle::ListItem,
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
                                Event::LogLine { .. }
                                | Event::ListItem { .. }
                                | Event::TableRow(_) => true,
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
                        open_by_line = false;
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
        let bound = if draft.style == DecisionStyle::TableRow {
            draft.start + 1
        } else if draft.group {
            // A day heading spans its section, entries included.
            boundary_after(draft.start, level, false)
        } else {
            boundary_after(draft.start, level, true)
        };
        if draft.group {
            let has_children = first_after(&starts, draft.start).is_some_and(|s| s < bound);
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
                (may_contain_word(&draft.title, SUPERSEDED_WORDS)
                    && SUPERSEDED_BY.is_match(&draft.title))
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
/// makes ADR-3 superseded by it) and marks replaced entries superseded. Links are
/// resolved through sorted indexes by ADR number and by title (binary searches), so the
/// work is O((entries + links) log entries), not entries × links; at most
/// [`MAX_LINKS`] are filled in per entry.
pub fn link_supersessions(decisions: &mut [Decision]) {
    if decisions
        .iter()
        .all(|d| d.supersedes.is_empty() && d.superseded_by.is_empty())
    {
        return;
    }
    let index = LinkIndex::new(decisions);
    let mut additions: Vec<(usize, usize)> = Vec::new();
    for (i, newer) in decisions.iter().enumerate() {
        for link in &newer.supersedes {
            for j in index.named_by(link) {
                if i != j {
                    additions.push((j, i));
                }
            }
        }
    }
    add_links(decisions, &additions, LinkList::SupersededBy);
    let mut back: Vec<(usize, usize)> = Vec::new();
    for (j, older) in decisions.iter().enumerate() {
        for link in &older.superseded_by {
            for i in index.named_by(link) {
                if i != j {
                    back.push((i, j));
                }
            }
        }
    }
    add_links(decisions, &back, LinkList::Supersedes);
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

/// Who a supersession link names: an ADR reference names the entries with that ADR
/// number and the entries without an id whose title it is; any other link names entries
/// by title (normalised). Titles are found by a hash of their text, radix-sorted, then
/// by the text itself: a lookup is two binary searches, and titles whose hashes collide
/// (even on purpose) are still told apart by comparison, never by a linear scan.
struct LinkIndex {
    /// (ADR number, entry) for entries with an id.
    by_number: Vec<(u32, usize)>,
    /// (hash of the normalised title, the title, entry has an id, entry), in that order.
    by_title: Vec<(u64, String, bool, usize)>,
}

/// FNV-1a: quick, and only groups titles (collisions are resolved by comparison).
fn title_hash(title: &str) -> u64 {
    let bytes = title.as_bytes();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < bytes.len() {
        hash = (hash ^ u64::from(bytes[i])).wrapping_mul(0x0100_0000_01b3);
        i += 1;
    }
    hash
}

impl LinkIndex {
    fn new(decisions: &[Decision]) -> LinkIndex {
        let mut by_number = Vec::new();
        let mut by_title = Vec::with_capacity(decisions.len());
        for (index, decision) in decisions.iter().enumerate() {
            if let Some(number) = decision.id.as_deref().and_then(adr_number) {
                by_number.push((number, index));
            }
            let title = normalize_title(&decision.title);
            by_title.push((title_hash(&title), title, decision.id.is_some(), index));
        }
        by_number.sort_unstable();
        let keys: Vec<u128> = by_title.iter().map(|e| u128::from(e.0)).collect();
        apply_order(&mut by_title, &radix_order(&keys));
        // Within one hash (entries still in entry order), order by title when titles
        // differ, so a lookup can binary-search them.
        let mut run = 0;
        while run < by_title.len() {
            let mut end = run + 1;
            while end < by_title.len() && by_title[end].0 == by_title[run].0 {
                end += 1;
            }
            let slice = &mut by_title[run..end];
            if slice.iter().any(|e| e.1 != slice[0].1) {
                slice.sort_by(|a, b| (&a.1, a.3).cmp(&(&b.1, b.3)));
            }
            run = end;
        }
        LinkIndex {
            by_number,
            by_title,
        }
    }

    /// Entries whose normalised title is `title`, in entry order.
    fn titled<'a>(&'a self, title: &str) -> &'a [(u64, String, bool, usize)] {
        let hash = title_hash(title);
        // The run of entries with this hash: two binary searches (a plain loop, cheap
        // in unoptimised builds), never a walk, however many titles share the hash.
        let entries = self.by_title.as_slice();
        let bound = |past_equal: bool| {
            let (mut low, mut high) = (0, entries.len());
            while low < high {
                let middle = low + (high - low) / 2;
                let key = entries[middle].0;
                if key < hash || (past_equal && key == hash) {
                    low = middle + 1;
                } else {
                    high = middle;
                }
            }
            low
        };
        let run = &entries[bound(false)..bound(true)];
        if run.len() == 1 {
            return if run[0].1 == title { run } else { &run[..0] };
        }
        let first = run.partition_point(|e| e.1.as_str() < title);
        let last = first + run[first..].partition_point(|e| e.1 == title);
        &run[first..last]
    }

    /// Entries `link` names, in entry order.
    fn named_by(&self, link: &str) -> Vec<usize> {
        let title = normalize_title(link);
        // ADR_REF needs "adr" (any case) in the text; most links are titles.
        let bytes = link.as_bytes();
        let mut has_adr = false;
        let mut i = 0;
        while !has_adr && i + 3 <= bytes.len() {
            has_adr = bytes[i..i + 3].eq_ignore_ascii_case(b"adr");
            i += 1;
        }
        let number = (has_adr && ADR_REF.is_match(link))
            .then(|| adr_number(link))
            .flatten();
        match number {
            Some(number) => {
                let from = self.by_number.partition_point(|e| e.0 < number);
                let mut found: Vec<usize> = self.by_number[from..]
                    .iter()
                    .take_while(|e| e.0 == number)
                    .take(MAX_LINKS)
                    .map(|e| e.1)
                    .chain(
                        self.titled(&title)
                            .iter()
                            .filter(|e| !e.2)
                            .take(MAX_LINKS)
                            .map(|e| e.3),
                    )
                    .collect();
                found.sort_unstable();
                found.truncate(MAX_LINKS);
                found
            }
            None => self
                .titled(&title)
                .iter()
                .take(MAX_LINKS)
                .map(|e| e.3)
                .collect(),
        }
    }
}

/// Links filled in per entry at most, and entries one link names at most: a hostile log
/// of 100k entries with one title, each superseding it, would otherwise ask for 100k²
/// links. No real log comes near either.
const MAX_LINKS: usize = 16;

/// Which list of an entry links are filled into.
#[derive(Clone, Copy)]
enum LinkList {
    SupersededBy,
    Supersedes,
}

impl LinkList {
    fn of(self, decision: &Decision) -> &Vec<String> {
        match self {
            LinkList::SupersededBy => &decision.superseded_by,
            LinkList::Supersedes => &decision.supersedes,
        }
    }

    fn of_mut(self, decision: &mut Decision) -> &mut Vec<String> {
        match self {
            LinkList::SupersededBy => &mut decision.superseded_by,
            LinkList::Supersedes => &mut decision.supersedes,
        }
    }
}

/// The name a link to `decision` is written with: its ADR id, else its title.
fn link_name(decision: &Decision) -> &str {
    decision.id.as_deref().unwrap_or(&decision.title)
}

/// For each `(target, source)`, appends the source's name to the target's `list`, once
/// per name, in order, while the list is shorter than [`MAX_LINKS`].
fn add_links(decisions: &mut [Decision], pairs: &[(usize, usize)], list: LinkList) {
    for &(target, source) in pairs {
        let name = link_name(&decisions[source]);
        let names = list.of(&decisions[target]);
        if names.len() < MAX_LINKS && !names.iter().any(|n| n == name) {
            let name = name.to_string();
            list.of_mut(&mut decisions[target]).push(name);
        }
    }
}

/// Timeline order: dated entries oldest first (time breaks ties, then place in the
/// file); undated entries last, in file order. Stable; each entry's key is computed once
/// (files ranked once, not compared path by path for every pair) and, as one number,
/// radix-sorted.
pub fn sort_timeline(decisions: &mut [Decision]) {
    let mut files: Vec<PathBuf> = Vec::new();
    for decision in decisions.iter() {
        if files.last() != Some(&decision.file) {
            files.push(decision.file.clone());
        }
    }
    files.sort();
    files.dedup();
    let rank = |d: &Decision| files.binary_search(&d.file).unwrap_or(0);
    let fits = files.len() < 1 << 20 && decisions.iter().all(|d| d.line < 1 << 24);
    if fits {
        let keys: Vec<u128> = decisions
            .iter()
            .map(|d| packed_timeline_key(d, rank(d)))
            .collect();
        let order = radix_order(&keys);
        apply_order(decisions, &order);
    } else {
        decisions.sort_by_cached_key(|d| (d.date.is_none(), d.date, d.time, rank(d), d.line));
    }
}

/// Positions of `keys` in ascending order, equal keys in their original order: an LSD
/// radix sort over the bytes in which the keys differ (a few passes of counting, far
/// cheaper than comparison sorting 100k entries).
fn radix_order(keys: &[u128]) -> Vec<usize> {
    // Nothing to order (most projects have no decisions at all): no passes.
    if keys.len() < 2 {
        return (0..keys.len()).collect();
    }
    let (mut all, mut any) = (u128::MAX, 0u128);
    for &key in keys {
        all &= key;
        any |= key;
    }
    let differing = all ^ any;
    let mut order: Vec<usize> = (0..keys.len()).collect();
    let mut next = vec![0usize; keys.len()];
    for shift in (0..128).step_by(8) {
        if (differing >> shift) & 0xFF == 0 {
            continue;
        }
        let digit = |index: usize| ((keys[index] >> shift) & 0xFF) as usize;
        let mut starts = [0usize; 257];
        for &index in &order {
            starts[digit(index) + 1] += 1;
        }
        for byte in 0..256 {
            starts[byte + 1] += starts[byte];
        }
        for &index in &order {
            let slot = &mut starts[digit(index)];
            next[*slot] = index;
            *slot += 1;
        }
        std::mem::swap(&mut order, &mut next);
    }
    order
}

/// Rearranges `items` so that position `p` holds what was at `order[p]`, by following
/// the permutation's cycles with swaps.
fn apply_order<T>(items: &mut [T], order: &[usize]) {
    let mut placed = vec![false; items.len()];
    for start in 0..items.len() {
        if placed[start] {
            continue;
        }
        let mut current = start;
        loop {
            placed[current] = true;
            let source = order[current];
            if source == start {
                break;
            }
            items.swap(current, source);
            current = source;
        }
    }
}

/// The timeline key as one number, ordered as `(undated, date, time, file, line)`:
/// comparing numbers instead of tuples keeps sorting 100k entries quick. Needs fewer
/// than 2^20 files and lines below 2^24 (a decision log is at most 8 MiB).
fn packed_timeline_key(decision: &Decision, file: usize) -> u128 {
    use chrono::{Datelike, Timelike};
    // None sorts first in each field, as `Option`'s order has it.
    let date = decision.date.map_or(0, |d| {
        (i64::from(d.num_days_from_ce()) + (1 << 31) + 1) as u128
    });
    let time = decision.time.map_or(0, |t| {
        ((u128::from(t.num_seconds_from_midnight()) << 31) | u128::from(t.nanosecond())) + 1
    });
    (u128::from(decision.date.is_none()) << 127)
        | (date << 93)
        | (time << 44)
        | ((file as u128) << 24)
        | decision.line as u128
}

/// Decision files of a bank are those whose role is a decision log.
fn decision_files(bank: &Bank) -> impl Iterator<Item = &MemoryFile> {
    bank.files
        .iter()
        .filter(|f| !f.is_virtual() && f.role.is_decision_log())
}

/// The finding for a decision log over [`limits::DECISION_LOG_MAX_BYTES`]: it is not
/// parsed, so its decisions are missing from the timeline. When git tracks the log the
/// append-only check would have compared it with its committed version and did not:
/// that is an error (fail closed), since nothing else says entries may have been lost.
pub fn too_large_finding(file: &MemoryFile, size: u64, append_only_skipped: bool) -> Finding {
    let limit = limits::LimitExceeded::Size {
        syntax: limits::Syntax::Markdown,
        found: size,
        limit: limits::DECISION_LOG_MAX_BYTES,
    };
    if append_only_skipped {
        limit.finding(
            Severity::Error,
            &file.path,
            "its decisions are missing from the timeline and the append-only check (no \
             entries lost since the last commit) did not run",
        )
    } else {
        limit.finding(
            Severity::Warning,
            &file.path,
            "its decisions are missing from the timeline",
        )
    }
}

/// A decision log's text, or why it is left out: a log over the size limit is a
/// finding; other read errors are validation's to report.
fn read_log(file: &MemoryFile, problems: &mut Vec<Finding>) -> Option<String> {
    match text::read_text_limited(&file.path, limits::DECISION_LOG_MAX_BYTES) {
        Ok(text) => Some(text),
        Err(CoreError::TooLarge { size, .. }) => {
            problems.push(too_large_finding(file, size, false));
            None
        }
        Err(_) => None,
    }
}

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
    let mut problems = Vec::new();
    for file in decision_files(bank) {
        if let Some(text) = read_log(file, &mut problems) {
            out.extend(decisions_of_file(file, &text));
        }
    }
    link_supersessions(&mut out);
    sort_timeline(&mut out);
    out
}

/// A project's decisions and the logs left out of them.
#[derive(Debug, Clone, Default)]
pub struct ProjectDecisions {
    /// Every decision of every bank, in timeline order.
    pub decisions: Vec<Decision>,
    /// Decision logs that were not parsed ([`too_large_finding`]).
    pub problems: Vec<Finding>,
}

/// Every decision of every bank of a project, in timeline order, with a finding for each
/// log too large to parse.
pub fn project_decisions(project: &Project) -> ProjectDecisions {
    let mut out = ProjectDecisions::default();
    for bank in crate::core::scan::bank::list_banks(project) {
        for file in decision_files(&bank) {
            if let Some(text) = read_log(file, &mut out.problems) {
                out.decisions.extend(decisions_of_file(file, &text));
            }
        }
    }
    link_supersessions(&mut out.decisions);
    sort_timeline(&mut out.decisions);
    out
}

/// Every decision of every bank of a project, in timeline order.
pub fn decisions_of_project(project: &Project) -> Vec<Decision> {
    project_decisions(project).decisions
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
    // The comparison cannot run on a text over the limit: fail closed.
    for (text, which) in [
        (committed_text, "its committed version"),
        (current_text, "the file"),
    ] {
        let size = text.len() as u64;
        if size > limits::DECISION_LOG_MAX_BYTES {
            return Some(Finding::new(
                Severity::Error,
                limits::PARSE_LIMIT,
                &file.path,
                None,
                format!(
                    "{}: {which} is {}, over the {} limit for decision logs, so the \
                     append-only check (no entries lost since the last commit) did not run",
                    file.display,
                    limits::size_in_words(size),
                    limits::size_in_words(limits::DECISION_LOG_MAX_BYTES)
                ),
            ));
        }
    }
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
            "{} lost {} since the last commit: {}{more}; decision logs are \
             append-only (restore with `git show HEAD:<path>` and mark old entries superseded \
             instead of deleting them)",
            file.display,
            crate::core::text::counted(lost.len(), "decision"),
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

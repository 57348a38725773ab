//! Decision logs turned into timeline entries, whatever style the agent wrote them in:
//! Cline `## Decision: X` blocks with `- **Date**:`/`- **Status**:` bullets, dated headings
//! (`## 2025-05-22 - X`, `### 2025/05/22 - X`, `## 2/27/2025 - X`, `## X - 2025-05-22`,
//! with or without a time), Memory Bank MCP blocks (`## X` + `- **Date:**`,
//! `**Context:**`, `**Decision:**` …), Roo `[YYYY-MM-DD HH:MM:SS] - summary` lines, tables
//! of decisions, and ADR files (`ADR-NNN-title.md`, `ADR-NNN-YYYYMMDD-HHMM-title.md`) with
//! their status line and "Superseded by ADR-XXX". Other memory files (activeContext.md,
//! systemPatterns.md, CLAUDE.md …) add the entries of their decision sections ("## Key
//! Decisions", "Recent Decisions"): `sections`. A heading that only groups entries
//! ("Phase 2 decisions" over `### X` blocks) is never an entry; its title is their group.
//! A status is read from the leading words of its field ("Accepted — pending X" is
//! accepted).
//!
//! This module holds the model ([`Decision`], its status and style) and the public API;
//! the work lives in one module per concern: `text` (title and date helpers), `entry`
//! (what a heading and a body say about an entry), `events` and `tables` (the lines of a
//! log that open, close or group entries), `log` and `adr` (the two kinds of file),
//! `sections` (decision sections of other files), `links` (supersession), `timeline`
//! (sorting), `project` (reading a bank's or a project's logs and sections), `pointed`
//! (the logs and folders of records the memory points to outside its banks) and
//! `append_only` (the check that no entry was lost).
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
use std::path::{Path, PathBuf};

use chrono::{NaiveDate, NaiveTime};
use serde::Serialize;

use crate::formats;
use crate::model::Role;

mod adr;
mod append_only;
mod date_order;
mod document_date;
mod entry;
mod events;
mod links;
mod log;
mod meaning;
mod pointed;
mod project;
mod record_parts;
mod records_document;
mod sections;
mod tables;
mod text;
mod timeline;

pub(crate) use adr::parse_adr;
pub(crate) use append_only::{lost_entries, shrink_finding, visible_entries};
pub use links::link_supersessions;
pub use log::parse_log;
pub(crate) use project::{
    PointedDecisions, decisions_of_parsed, pointed_decisions, section_decisions, too_large_finding,
};
pub use project::{decisions_of_file, decisions_of_project, project_decisions};
pub use timeline::sort_timeline;

use text::{is_placeholder, strip_markup};

/// Where a decision stands. `rejected` covers declined and withdrawn proposals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DecisionStatus {
    Proposed,
    Accepted,
    Superseded,
    Deprecated,
    Rejected,
    /// Taken back after being applied ("Reverted", "Rolled back").
    Reverted,
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
            DecisionStatus::Reverted => "reverted",
            DecisionStatus::Unknown => "unknown",
        }
    }

    /// Reads a free-text status ("Accepted", "Superseded by ADR-012", "In Progress") by
    /// its leading words: the first status word decides, so "Accepted — pending review of
    /// the API" is accepted and later words never override it. Emoji and markup before
    /// the word are skipped; a negation ("not accepted") or an unknown first phrase gives
    /// `None`, as do placeholders (`[Accepted / Superseded]`).
    pub fn parse(text: &str) -> Option<DecisionStatus> {
        // A status struck through and followed by the new one (`~~Accepted~~ →
        // Replaced by ADR-012`) is no longer the status.
        let unstruck = without_struck_text(text);
        let clean = strip_markup(&unstruck);
        let clean = clean.trim_start_matches(['→', '-', '>', '=', ' ']);
        let trimmed = clean.trim();
        if trimmed.is_empty() || is_placeholder(trimmed) {
            return None;
        }
        if superseded_by_passive(trimmed).is_some() {
            return Some(DecisionStatus::Superseded);
        }
        let lower = trimmed.to_lowercase();
        let words: Vec<&str> = lower
            .split(|c: char| !c.is_alphanumeric() && c != '\'')
            .filter(|w| !w.is_empty())
            .take(3)
            .collect();
        for (index, word) in words.iter().enumerate() {
            let next = words.get(index + 1).copied().unwrap_or("");
            if let Some(status) = status_word(word, next) {
                return Some(status);
            }
            // Only a leading qualifier ("fully accepted", "now deprecated") is skipped.
            if !matches!(
                *word,
                "fully"
                    | "partially"
                    | "now"
                    | "status"
                    | "currently"
                    | "finally"
                    | "mostly"
                    | "partiellement"
                    | "parcialmente"
                    | "teilweise"
                    | "parzialmente"
                    | "частично"
            ) {
                return None;
            }
        }
        None
    }
}

/// `text` without what it strikes through (`~~…~~`).
fn without_struck_text(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("~~") {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for (index, part) in text.split("~~").enumerate() {
        // Parts between an odd and an even mark are struck; an unclosed mark strikes
        // nothing.
        if index % 2 == 0 || index == text.matches("~~").count() {
            out.push_str(part);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// What a Chinese passive status names as the record that replaced this one ("已被
/// ADR-0009 取代", "被 ADR-3 替代": superseded by ADR-0009, the verb last), or `None`
/// for any other status.
pub(super) fn superseded_by_passive(status: &str) -> Option<&str> {
    let rest = status
        .strip_prefix("已被")
        .or_else(|| status.strip_prefix("被"))?;
    ["取代", "替代", "替换", "替換", "代替"]
        .iter()
        .find_map(|verb| rest.find(verb))
        .map(|at| rest[..at].trim())
}

/// The status a leading word (with the word after it, for two-word phrases) names.
fn status_word(word: &str, next: &str) -> Option<DecisionStatus> {
    use DecisionStatus::*;
    Some(match word {
        "superseded" | "supersedes" => Superseded,
        // Revised or amended by a later record.
        "revised" | "amended" if next == "by" => Superseded,
        "révisé" | "révisée" | "modifié" | "modifiée" if next == "par" => Superseded,
        "abandonné" | "abandonnée" | "abandonado" | "abandonada" | "abbandonato"
        | "abbandonata" | "aufgegeben" => Rejected,
        "replaced" => Superseded,
        "deprecated" | "obsolete" | "retired" | "sunset" => Deprecated,
        "rejected" | "declined" | "withdrawn" | "abandoned" | "dropped" | "cancelled"
        | "canceled" | "wontfix" | "won't" => Rejected,
        "reverted" | "revert" | "undone" | "disabled" => Reverted,
        "rolled" if next == "back" => Reverted,
        "proposed" | "proposal" | "draft" | "pending" | "open" | "considering" | "considered"
        | "discussing" | "discussion" | "review" | "reviewing" | "planned" | "tentative"
        | "wip" | "exploring" | "investigating" | "todo" => Proposed,
        "in" if matches!(next, "progress" | "review" | "discussion") => Proposed,
        "under" if matches!(next, "review" | "discussion" | "consideration") => Proposed,
        "accepted" | "accept" | "approved" | "adopted" | "decided" | "implemented" | "applied"
        | "active" | "done" | "complete" | "completed" | "final" | "finalized" | "finalised"
        | "agreed" | "chosen" | "shipped" | "deployed" | "enacted" | "merged" | "resolved"
        | "live" | "operational" => Accepted,
        "in" if next == "effect" => Accepted,
        // The same words in the other languages banks are written in.
        "aceita"
        | "aceito"
        | "aceptada"
        | "aceptado"
        | "aprobado"
        | "aprobada"
        | "aprovado"
        | "aprovada"
        | "validado"
        | "validada"
        | "akzeptiert"
        | "angenommen"
        | "genehmigt"
        | "beschlossen"
        | "accepté"
        | "acceptée"
        | "approuvé"
        | "approuvée"
        | "validé"
        | "validée"
        | "adopté"
        | "adoptée"
        | "accettato"
        | "accettata"
        | "approvato"
        | "approvata"
        | "принято"
        | "принят"
        | "принята"
        | "утверждено"
        | "утверждён"
        | "одобрено"
        | "прийнято"
        | "затверджено"
        | "承認"
        | "採用"
        | "採択"
        | "承認済み"
        | "采纳"
        | "已采纳"
        | "已采用"
        | "已接受"
        | "已通过"
        | "通过"
        | "已确定"
        | "已实施"
        | "实施"
        | "已实现"
        | "已落地"
        | "已完成"
        | "実装済み"
        | "実施済み"
        | "구현됨"
        | "승인"
        | "승인됨"
        | "채택"
        | "확정" => Accepted,
        "proposta"
        | "proposto"
        | "propuesta"
        | "propuesto"
        | "borrador"
        | "rascunho"
        | "vorgeschlagen"
        | "entwurf"
        | "geplant"
        | "proposé"
        | "proposée"
        | "prévu"
        | "prévue"
        | "brouillon"
        | "proposto_"
        | "предложено"
        | "предложен"
        | "черновик"
        | "запропоновано"
        | "提案"
        | "提议"
        | "草案"
        | "待定"
        | "待决策"
        | "待決策"
        | "待决定"
        | "待決定"
        | "未决"
        | "未決"
        | "検討中"
        | "审议中"
        | "设计阶段"
        | "设计中"
        | "进行中"
        | "제안"
        | "검토중" => Proposed,
        "en" if matches!(
            next,
            "revisión" | "discusión" | "révision" | "discussion" | "attente"
        ) =>
        {
            Proposed
        }
        "em" if matches!(next, "análise" | "discussão" | "revisão") => Proposed,
        "на" if matches!(next, "рассмотрении" | "обсуждении" | "согласовании") => {
            Proposed
        }
        "rejeitada"
        | "rejeitado"
        | "rechazada"
        | "rechazado"
        | "abgelehnt"
        | "verworfen"
        | "rejeté"
        | "rejetée"
        | "respinto"
        | "respinta"
        | "отклонено"
        | "отклонён"
        | "отклонена"
        | "отвергнуто"
        | "отвергнутое"
        | "отвергнутые"
        | "отвергнут"
        | "отвергнута"
        | "却下"
        | "不採用"
        | "拒绝"
        | "已拒绝"
        | "否决"
        | "거부" => Rejected,
        "substituída" | "substituído" | "reemplazada" | "reemplazado" | "sustituida"
        | "sustituido" | "ersetzt" | "abgelöst" | "remplacé" | "remplacée" | "sostituito"
        | "sostituita" | "заменено" | "заменён" | "заменена" | "取代" | "已取代" | "被取代"
        | "置換" | "대체됨" => Superseded,
        // A decision taken back, no longer in force.
        "anulado" | "anulada" | "revocado" | "revocada" | "revogado" | "revogada" | "annulé"
        | "annulée" | "révoqué" | "aufgehoben" | "annullato" | "отменено" | "отменён"
        | "отменена" | "скасовано" | "obsoleto" | "obsoleta" | "obsolète" | "veraltet"
        | "déprécié" | "устарело" | "废弃" | "已废弃" | "弃用" | "已弃用" | "廃止" | "非推奨"
        | "폐기" => Deprecated,
        _ => return None,
    })
}

impl std::fmt::Display for DecisionStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

/// Whether an entry records a choice or something that happened (a merge, a release),
/// so a timeline can show them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum DecisionKind {
    #[default]
    Decision,
    Event,
}

impl DecisionKind {
    pub fn id(self) -> &'static str {
        match self {
            DecisionKind::Decision => "decision",
            DecisionKind::Event => "event",
        }
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

/// A month, for an entry its source dates only to the month (`**Date:** 2026-02`,
/// `## X (Dec 2025)`): shown and written as `YYYY-MM`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Month {
    pub year: i32,
    /// 1 to 12.
    pub month: u32,
}

impl Month {
    pub fn new(year: i32, month: u32) -> Option<Month> {
        NaiveDate::from_ymd_opt(year, month, 1).map(|_| Month { year, month })
    }

    /// Its first day, where the timeline places it among dated entries.
    pub fn first_day(self) -> Option<NaiveDate> {
        NaiveDate::from_ymd_opt(self.year, self.month, 1)
    }
}

impl std::fmt::Display for Month {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:04}-{:02}", self.year, self.month)
    }
}

impl Serialize for Month {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// One decision on the timeline.
///
/// JSON shape (stable): `{id, title, date, time, month, status, supersedes,
/// superseded_by, file, display, line, end_line, style, group, kind}`; `id`, `date`
/// (`YYYY-MM-DD`), `time` (`HH:MM:SS`), `month` (`YYYY-MM`, only when the source dates
/// the entry to its month alone, `date` then being `null`) and `group` are `null` when
/// unknown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Decision {
    /// `ADR-0011` when the entry has an ADR number.
    pub id: Option<String>,
    pub title: String,
    pub date: Option<NaiveDate>,
    pub time: Option<NaiveTime>,
    /// The month, when the source gives no day (`date` is `None` then).
    pub month: Option<Month>,
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
    /// The heading that groups this entry with others ("Phase 2 decisions", "Key
    /// Decisions" in activeContext.md), when one does.
    pub group: Option<String>,
    /// A decision, or an event recorded among them.
    pub kind: DecisionKind,
}

impl Decision {
    /// Whether the entry carries what records a decision beyond its place under a
    /// heading: a date, an id, or a status it states.
    pub(crate) fn is_recorded(&self) -> bool {
        self.dated() || self.id.is_some() || self.status != DecisionStatus::Unknown
    }

    /// Dates it to the day (and time) `date` gives, else to `month`.
    pub(super) fn date_by(
        &mut self,
        date: Option<(NaiveDate, Option<NaiveTime>)>,
        month: Option<Month>,
    ) {
        self.date = date.map(|d| d.0);
        self.time = date.and_then(|d| d.1);
        self.month = if date.is_none() { month } else { None };
    }

    /// Whether its source says when it was taken, to the day or to the month.
    pub fn dated(&self) -> bool {
        self.date.is_some() || self.month.is_some()
    }

    /// The day it sorts by: its date, or the first of its month.
    pub fn sort_date(&self) -> Option<NaiveDate> {
        self.date.or_else(|| self.month.and_then(Month::first_day))
    }

    /// When it was taken as people read it: `2025-06-10 14:03`, `2025-06-10`, `2025-06`;
    /// `None` when undated.
    pub fn when(&self) -> Option<String> {
        match (self.date, self.time, self.month) {
            (Some(date), Some(time), _) => Some(format!("{date} {}", time.format("%H:%M"))),
            (Some(date), None, _) => Some(date.to_string()),
            (None, _, Some(month)) => Some(month.to_string()),
            (None, _, None) => None,
        }
    }
}

/// Decisions in one file's text, by role: an ADR file holds one, a log many.
pub(crate) fn parse_file(path: &Path, role: Role, text: &str) -> Vec<Decision> {
    if is_adr_file(path, role) {
        parse_adr(path, text).into_iter().collect()
    } else if role == Role::Decisions && records_document::is_records_document(path) {
        records_document::parse_records_document(path, text)
    } else {
        let mut entries = parse_log(path, text);
        document_date::date_undated(path, text, &mut entries);
        entries
    }
}

/// Whether [`parse_file`] reads the file as one ADR rather than as a log
/// ([`parse_log`]).
pub(crate) fn is_adr_file(path: &Path, role: Role) -> bool {
    role == Role::Adr
        || path
            .file_name()
            .is_some_and(|n| formats::is_adr_name(&n.to_string_lossy()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses `text` as a file named `decisionLog.md`.
    pub(super) fn log(text: &str) -> Vec<Decision> {
        parse_log(Path::new("decisionLog.md"), text)
    }

    /// Each entry of `text` as a log: its title, date and status.
    pub(super) fn titled(text: &str) -> Vec<(String, Option<NaiveDate>, DecisionStatus)> {
        log(text)
            .into_iter()
            .map(|d| (d.title, d.date, d.status))
            .collect()
    }

    pub(super) fn date(s: &str) -> Option<NaiveDate> {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").ok()
    }

    pub(super) fn time(s: &str) -> Option<NaiveTime> {
        NaiveTime::parse_from_str(s, "%H:%M:%S").ok()
    }

    #[test]
    fn an_entry_dated_to_its_month_keeps_the_month() {
        let text = "# Decisions\n\n## Event-driven state (Dec 2025)\n**Decision:** events\n\n\
## ADR-001: Nano model\n- **Date:** 2026-02 (project inception)\n- **Status:** Accepted\n";
        let got: Vec<(String, Option<String>, Option<NaiveDate>)> = log(text)
            .into_iter()
            .map(|d| (d.title, d.month.map(|m| m.to_string()), d.date))
            .collect();
        assert_eq!(
            got,
            [
                ("Event-driven state".into(), Some("2025-12".into()), None),
                ("Nano model".into(), Some("2026-02".into()), None),
            ]
        );
    }

    #[test]
    fn options_weighed_beside_a_decision_are_not_entries() {
        let text = "# Architecture Decisions\n\n## Payments\n\n### Decision: Stripe\nCards.\n\n\
### Alternative: PayPal\nFees.\n\n### Future Consideration: Adyen\n";
        let d = log(text);
        assert_eq!(
            d.iter().map(|d| d.title.as_str()).collect::<Vec<_>>(),
            ["Stripe"]
        );
    }

    #[test]
    fn a_log_of_prose_sections_has_one_entry_per_section() {
        let text = "# Ключевые решения\n\n## Почему PostGIS\nГеометрия хранится в PostGIS.\n\n\
## Почему два запроса\nAPI отдаёт 400.\nРешение: два запроса.\n\n\
## Имя компонента VisaMap\nMap — встроенный объект.\n\n\
## Related links\n- [ADR-001](./ADR-001.md)\n\n\
## Form\n```markdown\n# ADR-XXX: Title\n```\nDescribe the problem.\n";
        let titles: Vec<String> = log(text).into_iter().map(|d| d.title).collect();
        assert_eq!(
            titles,
            [
                "Почему PostGIS",
                "Почему два запроса",
                "Имя компонента VisaMap"
            ]
        );
        // Where headings are kept as records, a plain section is no entry.
        let kept = "# Log\n\n## How to use this log\nAdd one below.\n\n\
## 2025-03-02 - Use SQLite\n**Decision:** SQLite\n\n## 2025-03-09 - Drop the API\nGone.\n";
        let titles: Vec<String> = log(kept).into_iter().map(|d| d.title).collect();
        assert_eq!(titles, ["Use SQLite", "Drop the API"]);
    }

    #[test]
    fn dated_headings_in_every_spelling() {
        let text = "# Log\n\
## 2025-01-04 - Pick a queue\n**Context:** slow jobs\n**Decision:** use a queue\n\n\
### 2025/05/22 - Drop the cron box\n\n\
## 3/7/2025 - Adopt US dates\n\n\
## **2025-06-01 09:30 - Bold heading with time**\n\n\
## Split the monolith - 2025-07-08\n\n\
## Rename the CLI (2025-08-09)\n\n\
## 默认启用 Doc-First（2026-02-03）\n\n\
## Разделить сервис 12.03.2025\n\n\
## Export architecture (2026-07-06, Epic #39)\n\n\
## Palette = Slate  `[2026-05-19 — superseded by Cold 2026-05-29]`\n\n\
## 2026-06-01：学生评语独立建表\n\n\
## 接口统一返回 Result：2026-06-02\n";
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
                ("默认启用 Doc-First", date("2026-02-03")),
                ("Разделить сервис", date("2025-03-12")),
                ("Export architecture", date("2026-07-06")),
                ("Palette = Slate", date("2026-05-19")),
                ("学生评语独立建表", date("2026-06-01")),
                ("接口统一返回 Result", date("2026-06-02")),
            ]
        );
        assert!(d.iter().all(|d| d.style == DecisionStyle::DatedHeading));
        assert_eq!(d[3].time, NaiveTime::from_hms_opt(9, 30, 0));
        // The note beside a date gives its status.
        assert_eq!(d[9].status, DecisionStatus::Superseded);
        assert_eq!(d[8].status, DecisionStatus::Unknown);
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
    fn fields_kept_as_sub_headings_date_and_state_the_entry() {
        let text = "# 架构决策\n\n## 微服务架构\n\n### 决策时间\n2026-01-27（项目启动）\n\n\
### 决策内容\n采用微服务架构。\n\n## 数据库：MySQL\n\n### 决策时间\n2026-02-11\n\n\
### 决策内容\n使用 MySQL 8.4。\n";
        let got = titled(text);
        assert_eq!(
            got,
            [
                (
                    "微服务架构".into(),
                    date("2026-01-27"),
                    DecisionStatus::Accepted
                ),
                (
                    "数据库：MySQL".into(),
                    date("2026-02-11"),
                    DecisionStatus::Accepted
                ),
            ]
        );
    }

    #[test]
    fn a_heading_over_several_labelled_decisions_groups_them() {
        let text = "# Log\n\n## 2026-01-18 - Initial architecture\n\n### Stack\n\n\
**Decisión:** Mantener Bash\n- **Razón:** sin dependencias\n\n\
**Decisión:** BATS para pruebas\n- **Razón:** hecho para Bash\n\n\
## ADR-053: Habits by frequency\n**Date:** 2026-06-25\n**Decision:** weekly habits\n\
**Decision:** a second label inside one record\n";
        let got: Vec<(String, Option<String>, DecisionStatus)> = log(text)
            .into_iter()
            .map(|d| (d.title, d.group, d.status))
            .collect();
        let stack = Some("Stack".to_string());
        assert_eq!(
            got,
            [
                (
                    "Mantener Bash".into(),
                    stack.clone(),
                    DecisionStatus::Accepted
                ),
                ("BATS para pruebas".into(), stack, DecisionStatus::Accepted),
                ("Habits by frequency".into(), None, DecisionStatus::Accepted),
            ]
        );
    }

    #[test]
    fn a_struck_status_gives_way_and_revised_or_abandoned_records_say_so() {
        use DecisionStatus::*;
        for (text, status) in [
            ("~~Принято~~ → Заменено ADR-012", Some(Superseded)),
            (
                "~~Принято~~ → Частично заменено ADR-012 (скоринг)",
                Some(Superseded),
            ),
            (
                "révisé par BDR-016 (Pierre a donné une valeur exacte)",
                Some(Superseded),
            ),
            ("révisé — Pierre a signalé le même symptôme", None),
            ("abandonné (trop lent)", Some(Rejected)),
            ("Revised by ADR-9", Some(Superseded)),
            ("Accepted ~~draft", Some(Accepted)),
        ] {
            assert_eq!(DecisionStatus::parse(text), status, "{text}");
        }
    }

    #[test]
    fn a_status_is_read_from_its_leading_words_only() {
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
            (
                "Accepted — pending review of the storage API",
                Some(Accepted),
            ),
            ("Accepted (pending benchmarks)", Some(Accepted)),
            ("✅ **IMPLEMENTED** and deployed", Some(Accepted)),
            ("Applied", Some(Accepted)),
            ("Pending — will be accepted after review", Some(Proposed)),
            ("Reverted", Some(Reverted)),
            ("Rolled back after the outage", Some(Reverted)),
            ("Superseded by ADR-7", Some(Superseded)),
            (
                "Deprecated in favour of the accepted ADR-9",
                Some(Deprecated),
            ),
            ("Rejected; superseded proposal", Some(Rejected)),
            ("Not accepted", None),
            ("We discussed it and it was accepted", None),
            // The same words in other languages, emoji and markup before them.
            ("✅ Validé — Sprint 1", Some(Accepted)),
            ("🔜 Prévu", Some(Proposed)),
            ("**Anulado**", Some(Deprecated)),
            ("Aceptado", Some(Accepted)),
            ("已废弃", Some(Deprecated)),
            ("Отменено (0005)", Some(Deprecated)),
            ("На рассмотрении", Some(Proposed)),
            ("Abgelöst (Superseded)", Some(Superseded)),
            ("Принято", Some(Accepted)),
        ];
        for (text, want) in cases {
            assert_eq!(DecisionStatus::parse(text), want, "{text}");
        }
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

    #[test]
    fn a_log_s_list_of_field_names_is_a_form_not_entries() {
        let text = "# 决策记录\n\n## 2026-04-01: 采用 MySQL\n\n**决策**：MySQL\n\n---\n\n## 后续决策\n\n按相同格式追加：\n- **标题**\n- **原因/背景**\n- **日期**\n";
        let titles: Vec<String> = log(text).into_iter().map(|d| d.title).collect();
        assert_eq!(titles, ["采用 MySQL"]);
    }

    #[test]
    fn titled_sub_headings_under_a_bare_decisions_heading_are_entries_with_fields() {
        let text = "# Decision Log\n\n## Decisions\n\n### DEC-010 - Flat module files\n\
- **Date:** 2025-03-03\n- **Status:** Implemented\n- **Decision:** One file per module.\n\
- **References:** the style guide\n\n### DEC-001 - Use Tauri\n- **Date:** 2025-03-02\n\
- **Status:** Accepted\n- **Decision:** Tauri over Electron.\n";
        let found: Vec<(String, Option<NaiveDate>)> =
            log(text).into_iter().map(|d| (d.title, d.date)).collect();
        assert_eq!(
            found,
            [
                (
                    "DEC-010 - Flat module files".to_string(),
                    NaiveDate::from_ymd_opt(2025, 3, 3)
                ),
                (
                    "DEC-001 - Use Tauri".to_string(),
                    NaiveDate::from_ymd_opt(2025, 3, 2)
                ),
            ]
        );
        // A day heading under it still only dates the bullets below it.
        let days = "# Decision Log\n\n## Decision\n\n### 2025-04-01\n\
* Use SQLite for the cache\n* Drop the HTTP API\n";
        let titles: Vec<String> = log(days).into_iter().map(|d| d.title).collect();
        assert_eq!(titles, ["Use SQLite for the cache", "Drop the HTTP API"]);
    }

    #[test]
    fn a_bullet_opening_with_its_date_is_an_entry_unless_it_details_one() {
        let text = "# Decisions\n<!-- Format: YYYY-MM-DD — Decision: [what] — Rationale: [why] -->\n\
- 2026-03-30 — Decision: **Vitest over Jest** — Rationale: fast startup\n\
- 2026-04-20 — Drop the HTTP API\n\n## 2026-05-01 - Use SQLite\n**Decision**: SQLite.\n\
- 2026-05-02 — reviewed by the team\n";
        let found: Vec<(String, Option<NaiveDate>)> =
            log(text).into_iter().map(|d| (d.title, d.date)).collect();
        assert_eq!(
            found,
            [
                (
                    "Vitest over Jest".to_string(),
                    NaiveDate::from_ymd_opt(2026, 3, 30)
                ),
                (
                    "Drop the HTTP API".to_string(),
                    NaiveDate::from_ymd_opt(2026, 4, 20)
                ),
                (
                    "Use SQLite".to_string(),
                    NaiveDate::from_ymd_opt(2026, 5, 1)
                ),
            ]
        );
    }

    #[test]
    fn a_run_of_lines_opening_with_their_dates_is_a_log() {
        let text = "# Decisions Log\n\n> Updated 2026-03-03\n\n## Open\n\n\
2026-03-09 [portfolio] Cards link to the review page | pf:✅\n\
2026-03-08 [review] Drop the Twitter job | tr:✅\n\n\
## Notes\n\n2026-03-01 was the day we started; nothing else is dated here.\n";
        let found: Vec<(String, Option<NaiveDate>)> =
            log(text).into_iter().map(|d| (d.title, d.date)).collect();
        assert_eq!(
            found,
            [
                (
                    "[portfolio] Cards link to the review page".to_string(),
                    NaiveDate::from_ymd_opt(2026, 3, 9)
                ),
                (
                    "[review] Drop the Twitter job".to_string(),
                    NaiveDate::from_ymd_opt(2026, 3, 8)
                ),
            ]
        );
    }

    #[test]
    fn the_day_a_status_was_reached_dates_an_entry_without_a_date_of_its_own() {
        let text = "# Decisions\n\n## ADR-005: Budgets per household\n\n\
**Status:** Decided 2026-03-02\n**Decision:** one budget per household.\n\n\
## ADR-006: Monthly rollover\n\n**Status:** Accepted\n**Date:** 2026-03-05\n";
        let found: Vec<Option<NaiveDate>> = log(text).into_iter().map(|d| d.date).collect();
        assert_eq!(
            found,
            [
                NaiveDate::from_ymd_opt(2026, 3, 2),
                NaiveDate::from_ymd_opt(2026, 3, 5)
            ]
        );
    }

    #[test]
    fn a_log_without_sections_or_dated_lines_is_one_bullet_per_decision() {
        let text = "---\nname: decisions\n---\n\nDecisions locked in during planning:\n\n\
- **Keep the strings module**: it grows, it is not removed.\n  Details on a second line.\n\
- **Parquet reader goal:** read almost any file.\n";
        let titles: Vec<String> = log(text).into_iter().map(|d| d.title).collect();
        assert_eq!(titles, ["Keep the strings module", "Parquet reader goal"]);
        // Dated lines make the bullets below them their details.
        let dated = "# Decision Log\n\n[2025-08-02 12:57:20] - Create the bank\n\
- Why: keep context across sessions\n";
        let titles: Vec<String> = log(dated).into_iter().map(|d| d.title).collect();
        assert_eq!(titles, ["Create the bank"]);
    }

    #[test]
    fn what_an_html_comment_holds_records_nothing() {
        let text = "# Decisions\n\nNewest first.\n\n<!-- Example:\n\
## 2026-06-12 — Memory lives in the repo\n**Decision:** keep it committed.\n-->\n\n\
<!-- a note -->\n## 2026-07-01 — Use SQLite\n**Decision:** SQLite.\n";
        let titles: Vec<String> = log(text).into_iter().map(|d| d.title).collect();
        assert_eq!(titles, ["Use SQLite"]);
    }
}

//! Tables of decisions in a log: a header naming a decision/title column (and maybe
//! date, status and id columns), a separator row, then one entry per row.
use chrono::{NaiveDate, NaiveTime};

use super::DecisionStatus;
use super::entry::canonical_key;
use super::text::{
    ADR_REF, clean_title, find_date, is_placeholder, normalize_adr_id, strip_markup,
};

#[derive(Debug, Clone)]
pub(super) struct TableRow {
    pub(super) title: String,
    pub(super) id: Option<String>,
    pub(super) date: Option<(NaiveDate, Option<NaiveTime>)>,
    /// Its month, where the date cell names no whole day (`Maggio 2026`).
    pub(super) month: Option<super::Month>,
    pub(super) status: Option<DecisionStatus>,
}

/// Columns of a table of decisions, from its header row.
pub(super) struct TableColumns {
    title: usize,
    /// What a choice was made for (`| Concern | Choice |`): the first column, which names
    /// the title.
    subject: Option<usize>,
    /// The subject column states the problem the decision answers (`| 문제 | 결정 |`): its
    /// cell leads to the decision (`CORS * 허용 → 허용 도메인 제한`) rather than naming
    /// what it is about.
    subject_is_problem: bool,
    date: Option<usize>,
    status: Option<usize>,
    id: Option<usize>,
}

pub(super) fn table_cells(line: &str) -> Option<Vec<String>> {
    let t = line.trim();
    if !t.starts_with('|') {
        return None;
    }
    let inner = t.trim_start_matches('|').trim_end_matches('|');
    Some(inner.split('|').map(|c| c.trim().to_string()).collect())
}

pub(super) fn is_separator_row(line: &str) -> bool {
    table_cells(line).is_some_and(|cells| {
        !cells.is_empty()
            && cells
                .iter()
                .all(|c| !c.is_empty() && c.chars().all(|ch| matches!(ch, '-' | ':' | ' ')))
    })
}

/// Headers of a column stating the problem or question a decision answers, in the
/// languages memory is written in.
const PROBLEM_HEADERS: &[&str] = &[
    "problem",
    "issue",
    "question",
    "problema",
    "pregunta",
    "questão",
    "problème",
    "question",
    "frage",
    "проблема",
    "вопрос",
    "sorun",
    "soru",
    "vấn đề",
    "masalah",
    "問題",
    "问题",
    "課題",
    "课题",
    "문제",
    "질문",
    "이슈",
];

pub(super) fn table_columns(header: &[String]) -> Option<TableColumns> {
    // Each header as the English key it stands for, in any language (`决策`, `Дата`).
    let names: Vec<String> = header
        .iter()
        .map(|c| canonical_key(&strip_markup(c).trim().to_lowercase()).to_string())
        .collect();
    let find = |words: &[&str]| names.iter().position(|n| words.contains(&n.as_str()));
    let title = find(&[
        "decision",
        "title",
        "topic",
        "summary",
        "decision title",
        "choice",
        "chosen",
    ])?;
    let date = names.iter().position(|n| n.contains("date") || n == "when");
    let status = find(&["status", "state"]);
    let id = find(&["id", "#", "adr", "no", "no.", "number"]);
    // What the decision was made about (`| Concern | Choice |`, `| # | 항목 | 결정 |`): the
    // first column before the decision's that is no date, status or id names its subject.
    let subject = (0..title).find(|&i| ![date, status, id].contains(&Some(i)));
    let subject_is_problem = subject.is_some_and(|i| {
        let header = strip_markup(&header[i]).trim().to_lowercase();
        PROBLEM_HEADERS.iter().any(|word| header.contains(word))
    });
    Some(TableColumns {
        title,
        subject,
        subject_is_problem,
        date,
        status,
        id,
    })
}

pub(super) fn row_of(cells: &[String], columns: &TableColumns) -> Option<TableRow> {
    let cell = |i: Option<usize>| i.and_then(|i| cells.get(i)).map(String::as_str);
    let title = clean_title(cell(Some(columns.title))?);
    if title.is_empty() || is_placeholder(&title) {
        return None;
    }
    let title = match cell(columns.subject).map(clean_title) {
        Some(subject) if !subject.is_empty() && columns.subject_is_problem => {
            format!("{subject} → {title}")
        }
        Some(subject) if !subject.is_empty() => format!("{subject}: {title}"),
        _ => title,
    };
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
        month: cell(columns.date).and_then(super::text::find_month),
        status: cell(columns.status).and_then(DecisionStatus::parse),
    })
}

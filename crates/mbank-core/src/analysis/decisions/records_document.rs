//! A document kept among a project's decision records under a name of its own (a
//! meeting's record, `design-drift.md` holding several records): its records are read as
//! a log's, but only those it marks surely (`## ADR-014: …`, `### Decision 2: …`), each
//! dated by the document where it gives no date of its own. A document whose own status
//! is still to decide ("Status: pending") records nothing yet.
use std::path::Path;

use super::{Decision, DecisionStatus, DecisionStyle, document_date, parse_log};

/// Whether `path` is such a document: read as a decision log, kept in a folder of
/// records, and not named as a log itself (`docs/decisions/decision-log.md` is one).
pub(super) fn is_records_document(path: &Path) -> bool {
    let folder = path
        .parent()
        .and_then(Path::file_name)
        .and_then(|name| name.to_str());
    let name = path.file_name().and_then(|name| name.to_str());
    match (folder, name) {
        (Some(folder), Some(name)) => {
            crate::formats::adr_records::is_record_folder_name(folder)
                && !super::meaning::names_decision_log(name)
        }
        _ => false,
    }
}

/// The records of such a document.
pub(super) fn parse_records_document(path: &Path, text: &str) -> Vec<Decision> {
    if document_date::head_fields(text, usize::MAX).status == Some(DecisionStatus::Proposed) {
        return Vec::new();
    }
    let mut records: Vec<Decision> = parse_log(path, text)
        .into_iter()
        .filter(|d| matches!(d.style, DecisionStyle::Adr | DecisionStyle::ClineBlock))
        .collect();
    document_date::date_undated(path, text, &mut records);
    records
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::decisions::tests::date;

    #[test]
    fn a_meeting_among_the_records_gives_its_numbered_decisions_dated_by_it() {
        let path = Path::new("docs/decisions/sprint-6-meeting.md");
        assert!(is_records_document(path));
        let text = "# Sprint 6 meeting\n\n**Date:** 2026-01-29\n\n---\n\n## Context\n\nWe met.\n\n\
## Key decisions\n\n### Decision 1: Email through Graph\n**Decision:** Graph API\n\n\
### Decision 2: Teams through Graph\n**Decision:** Graph API\n\n## Out of scope\n\n\
### OUT OF SCOPE (Sprint 7)\n**Reason:** time\n";
        let got: Vec<(String, Option<chrono::NaiveDate>)> = parse_records_document(path, text)
            .into_iter()
            .map(|d| (d.title, d.date))
            .collect();
        assert_eq!(
            got,
            [
                ("Email through Graph".to_string(), date("2026-01-29")),
                ("Teams through Graph".to_string(), date("2026-01-29"))
            ]
        );
    }

    #[test]
    fn a_discussion_still_to_decide_records_nothing_and_a_log_is_no_such_document() {
        let path = Path::new("docs/decisions/privacy-discussion.md");
        let text = "# Privacy discussion\n\n> **状态**: 待决策 — 需与安全部门讨论\n\n\
## ADR-1: Thin identity store\n**Decision:** keep ids only\n";
        assert!(parse_records_document(path, text).is_empty());
        assert!(!is_records_document(Path::new(
            "docs/decisions/decision-log.md"
        )));
        assert!(!is_records_document(Path::new("memory-bank/progress.md")));
    }
}

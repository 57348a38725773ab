//! Decisions of a bank or a project: its decision logs read (within the size limit,
//! else a finding), parsed, linked and put in timeline order.
use super::links::link_supersessions;
use super::timeline::sort_timeline;
use super::{Decision, parse_file};
use crate::core::error::CoreError;
use crate::core::findings::{Finding, Severity};
use crate::core::limits;
use crate::core::model::{Bank, MemoryFile, Project};
use crate::core::text;

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

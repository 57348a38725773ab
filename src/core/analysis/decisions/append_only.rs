//! The append-only check: decision logs only grow (the Cline memory bank spec), so an
//! entry present in the committed version and missing now is reported.
use std::collections::HashMap;

use chrono::NaiveDate;

use super::text::normalize_title;
use super::{Decision, parse_file};
use crate::core::findings::{Finding, Severity};
use crate::core::limits;
use crate::core::model::MemoryFile;

impl Decision {
    /// Identity used to tell whether an entry survived an edit: its title and date.
    /// Status is left out on purpose: marking an entry superseded is allowed.
    fn key(&self) -> (String, Option<NaiveDate>) {
        (normalize_title(&self.title), self.date)
    }
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
    use std::path::PathBuf;

    use super::super::tests::log;
    use super::*;
    use crate::core::model::Role;

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
}

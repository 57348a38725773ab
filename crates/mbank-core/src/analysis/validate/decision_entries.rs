//! What a format's guidelines ask of each decision log entry
//! ([`formats::FormatRules::decision_entry_rules`]): a date, and a size far from which an
//! entry no longer reads as a log line. One finding per file, each entry in its details.

use crate::analysis::decisions::{self, Decision, DecisionKind, DecisionStyle};
use crate::findings::{Finding, FindingCode, Severity};
use crate::formats::DecisionEntryRules;
use crate::model::MemoryFile;
use crate::tokens::{self, Encoding};

/// How many times the guideline's size an entry must reach to be reported: the guideline
/// is an approximation ("~100 tokens"), so only an entry far over it is.
const FAR_OVER: u64 = 3;

pub(super) fn check(
    file: &MemoryFile,
    text: &str,
    parsed: Option<&[Decision]>,
    rules: DecisionEntryRules,
    bank_proven: bool,
    out: &mut Vec<Finding>,
) {
    let parsed_now;
    let parsed = match parsed {
        Some(parsed) => parsed,
        None => {
            parsed_now = decisions::parse_log(&file.path, text);
            &parsed_now
        }
    };
    let entries: Vec<Decision> = parsed
        .iter()
        .filter(|d| d.kind == DecisionKind::Decision)
        .cloned()
        .collect();
    if rules.dated {
        undated(file, &entries, rules, bank_proven, out);
    }
    too_long(file, text, &entries, rules, out);
}

/// Entries written as blocks of fields (`## Decision: X` with `- **Status**:` …) that
/// carry no date. A bullet or table row is left alone: its date may sit in a column or a
/// heading the parser cannot tie to it.
fn undated(
    file: &MemoryFile,
    entries: &[Decision],
    rules: DecisionEntryRules,
    bank_proven: bool,
    out: &mut Vec<Finding>,
) {
    let missing: Vec<&Decision> = entries
        .iter()
        .filter(|d| !d.dated())
        .filter(|d| matches!(d.style, DecisionStyle::ClineBlock | DecisionStyle::Block))
        .collect();
    let Some(first) = missing.first() else {
        return;
    };
    let severity = if bank_proven {
        Severity::Warning
    } else {
        Severity::Info
    };
    let count = match missing.len() {
        1 => "1 decision has".to_string(),
        n => format!("{n} decisions have"),
    };
    let finding = Finding::new(
        severity,
        FindingCode::DecisionUndated,
        &file.path,
        Some(first.line),
        format!(
            "{count} no date (first: {:?} on line {}): {} ask for a date in every entry \
             (`- **Date**: YYYY-MM-DD`)",
            first.title, first.line, rules.source
        ),
    );
    out.push(
        finding.with_details(
            missing
                .iter()
                .map(|d| format!("line {}: {}", d.line, d.title))
                .collect(),
        ),
    );
}

fn too_long(
    file: &MemoryFile,
    text: &str,
    entries: &[Decision],
    rules: DecisionEntryRules,
    out: &mut Vec<Finding>,
) {
    let limit = rules.tokens.saturating_mul(FAR_OVER);
    let lines: Vec<&str> = text.lines().collect();
    let long: Vec<(&Decision, u64)> = entries
        .iter()
        .filter_map(|d| {
            let start = d.line.saturating_sub(1);
            let end = d.end_line.min(lines.len());
            let body_lines = lines.get(start..end)?;
            // Every token covers at least a byte: an entry of no more bytes than the limit
            // is within it, uncounted.
            let bytes = body_lines.iter().map(|line| line.len() + 1).sum::<usize>();
            if bytes.saturating_sub(1) as u64 <= limit {
                return None;
            }
            let count = tokens::count(Encoding::default(), &body_lines.join("\n")) as u64;
            (count > limit).then_some((d, count))
        })
        .collect();
    let Some((first, first_count)) = long.first() else {
        return;
    };
    let count = match long.len() {
        1 => "1 decision entry is".to_string(),
        n => format!("{n} decision entries are"),
    };
    let finding = Finding::new(
        Severity::Info,
        FindingCode::DecisionTooLong,
        &file.path,
        Some(first.line),
        format!(
            "{count} over {limit} tokens (first: {:?} on line {}, {first_count} tokens): {} \
             keep each entry to about {} tokens",
            first.title, first.line, rules.source, rules.tokens
        ),
    );
    out.push(
        finding.with_details(
            long.iter()
                .map(|(d, n)| format!("line {}: {} ({n} tokens)", d.line, d.title))
                .collect(),
        ),
    );
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::findings::RuleSource;
    use crate::model::Role;
    use std::path::PathBuf;

    pub(in crate::analysis::validate) fn core_file(path: &str, role: Role) -> MemoryFile {
        MemoryFile::for_test(PathBuf::from(path), path, role)
    }

    fn log_file() -> MemoryFile {
        core_file("bank/log.md", Role::Decisions)
    }

    const RULES: DecisionEntryRules = DecisionEntryRules {
        dated: true,
        tokens: 100,
        source: RuleSource::ClineMemoryBank,
    };

    #[test]
    fn an_undated_block_entry_is_reported_once_per_file() {
        let text = "# Decision Log\n\n## Decision: Use Postgres\n- **Date**: 2025-01-02\n\
                    - **Status**: Accepted\n\n## Decision: Use Redis\n- **Status**: Accepted\n\
                    - **Rationale**: speed\n\n## Decision: Use Kafka\n- **Status**: Proposed\n";
        let mut out = Vec::new();
        check(&log_file(), text, None, RULES, true, &mut out);
        assert_eq!(out.len(), 1, "{out:?}");
        let finding = &out[0];
        assert_eq!(finding.code, FindingCode::DecisionUndated);
        assert_eq!(finding.severity, Severity::Warning);
        assert_eq!(finding.line, Some(7));
        assert!(
            finding.message.contains("2 decisions have no date"),
            "{}",
            finding.message
        );
        assert_eq!(finding.details.len(), 2);
    }

    #[test]
    fn a_dated_log_and_a_short_entry_are_quiet_and_a_long_one_is_not() {
        let dated = "## Decision: Use Postgres\n- **Date**: 2025-01-02\n- **Status**: Accepted\n";
        let mut out = Vec::new();
        check(&log_file(), dated, None, RULES, true, &mut out);
        assert!(out.is_empty(), "{out:?}");

        let long = format!(
            "## Decision: Use Postgres\n- **Date**: 2025-01-02\n- **Context**: {}\n",
            "the team weighed many storage engines for the ledger service ".repeat(40)
        );
        check(&log_file(), &long, None, RULES, false, &mut out);
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(out[0].code, FindingCode::DecisionTooLong);
        assert_eq!(out[0].severity, Severity::Info);
        assert!(
            out[0].message.contains("over 300 tokens"),
            "{}",
            out[0].message
        );
    }

    /// Entries parsed beforehand (by the decisions of the same analysis) give the
    /// findings parsing the text here gives.
    #[test]
    fn entries_parsed_beforehand_give_the_same_findings() {
        let long = format!(
            "## Decision: Use Postgres\n- **Context**: {}\n\n## Decision: Use Redis\n- **Date**: 2025-01-02\n",
            "the team weighed many storage engines for the ledger service ".repeat(40)
        );
        let file = log_file();
        let parsed = decisions::parse_log(&file.path, &long);
        let (mut fresh, mut given) = (Vec::new(), Vec::new());
        check(&file, &long, None, RULES, true, &mut fresh);
        check(&file, &long, Some(&parsed), RULES, true, &mut given);
        assert_eq!(fresh.len(), 2, "{fresh:?}");
        assert_eq!(format!("{given:?}"), format!("{fresh:?}"));
    }
}

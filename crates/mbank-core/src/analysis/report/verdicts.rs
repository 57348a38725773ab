//! Budget and staleness verdicts, and files that could not be read, as findings.
use std::path::Path;

use super::FileReport;
use crate::analysis::budgets::{BudgetCheck, BudgetStatus};
use crate::analysis::staleness::Freshness;
use crate::findings::{Finding, FindingCode, Severity};
use crate::model::{Format, LoadKind};

/// Per-file budget verdicts of one status: one finding for a single file, else one
/// finding for the bank ("37 files over their budget, largest …") whose details list
/// every file.
fn grouped_budget_findings(
    format: Format,
    files: &[FileReport],
    bank_budget: &[BudgetCheck],
    status: BudgetStatus,
    borrowed: bool,
    bank_root: &Path,
    out: &mut Vec<Finding>,
) {
    let Some((severity, code, word)) = budget_verdict(status, borrowed) else {
        return;
    };
    // A file that is all the bank loads, over a looser limit of the same unit than the
    // bank's own budget it also crosses, says nothing the bank's finding does not.
    let said_by_the_bank = |check: &BudgetCheck| {
        bank_budget.iter().any(|bank| {
            bank.unit == check.unit
                && bank.value == check.value
                && bank.limit <= check.limit
                && bank.status == BudgetStatus::Over
        })
    };
    let cases: Vec<(&FileReport, &BudgetCheck)> = files
        .iter()
        .flat_map(|f| f.budget.iter().map(move |c| (f, c)))
        .filter(|(_, c)| c.status == status && c.borrowed == borrowed && !said_by_the_bank(c))
        .collect();
    let describe = |check: &BudgetCheck| describe_budget(check, format);
    match cases.as_slice() {
        [] => {}
        [(file, check)] => out.push(Finding::new(
            severity,
            code,
            &file.file.path,
            None,
            format!("{word} budget: {}", describe(check)),
        )),
        _ => {
            let mut files_seen: Vec<&Path> =
                cases.iter().map(|(f, _)| f.file.path.as_path()).collect();
            files_seen.dedup();
            let largest = cases
                .iter()
                .max_by_key(|(_, c)| c.value.saturating_mul(1000) / c.limit.max(1));
            // Named by its largest case's file: a finding always names a file.
            let subject = largest.map_or(bank_root, |(f, _)| f.file.path.as_path());
            let largest = largest
                .map(|(f, c)| format!("{}: {}", f.file.display, describe(c)))
                .unwrap_or_default();
            out.push(
                Finding::new(
                    severity,
                    code,
                    subject,
                    None,
                    format!(
                        "{} {word} their budget, largest {largest}",
                        crate::io::text::counted(files_seen.len(), "file")
                    ),
                )
                .with_details(
                    cases
                        .iter()
                        .map(|(f, c)| format!("{}: {}", f.file.display, describe(c)))
                        .collect(),
                ),
            );
        }
    }
}

/// How a budget verdict is reported: its severity, code and word ("over", "near"); `None`
/// when within budget. A borrowed rule is information only.
fn budget_verdict(
    status: BudgetStatus,
    borrowed: bool,
) -> Option<(Severity, FindingCode, &'static str)> {
    Some(match (status, borrowed) {
        (BudgetStatus::Over, false) => (Severity::Warning, FindingCode::BudgetOver, "over"),
        (BudgetStatus::Over, true) => (Severity::Info, FindingCode::BudgetBorrowedOver, "over"),
        (BudgetStatus::Near, _) => (Severity::Info, FindingCode::BudgetNear, "near"),
        (BudgetStatus::Ok, _) => return None,
    })
}

/// "214 of 200 lines (rule; source)", saying when the rule is borrowed from another format.
fn describe_budget(check: &BudgetCheck, format: Format) -> String {
    let source = match (check.borrowed, check.by_folder_name) {
        (false, _) => check.source.name().to_string(),
        (true, false) => format!(
            "{}, borrowed: not a limit {} sets, so information only",
            check.source,
            format.label()
        ),
        (true, true) => format!(
            "{}, applied by the folder's name only: the bank's files do not prove a {}, so \
             information only",
            check.source,
            format.label()
        ),
    };
    format!(
        "{} of {} {} ({}; {source})",
        check.value,
        check.limit,
        check.unit.label(),
        check.rule,
    )
}

/// Budget and staleness verdicts as findings, next to the validator's own.
pub(super) fn verdict_findings(
    format: Format,
    files: &[FileReport],
    bank_budget: &[BudgetCheck],
    bank_root: &Path,
    out: &mut Vec<Finding>,
) {
    for borrowed in [false, true] {
        for status in [BudgetStatus::Over, BudgetStatus::Near] {
            grouped_budget_findings(format, files, bank_budget, status, borrowed, bank_root, out);
        }
    }
    // A file the validator already found unreadable is reported once, by it. Looked up in
    // a set: a store of many memories is as many files, each with its findings.
    let unreadable: std::collections::HashSet<std::path::PathBuf> = out
        .iter()
        .filter(|f| f.code == FindingCode::UnreadableFile || f.code == FindingCode::InfinityJson)
        .map(|f| f.file.clone())
        .collect();
    for report in files {
        if let Some(s) = &report.staleness {
            let verdict = match s.level {
                Freshness::Stale => Some((Severity::Warning, FindingCode::Stale)),
                Freshness::Aging => Some((Severity::Info, FindingCode::Aging)),
                // Unknown because git failed: that is its own error finding.
                Freshness::Fresh | Freshness::Unknown => None,
            };
            if let Some((severity, code)) = verdict {
                out.push(Finding::new(
                    severity,
                    code,
                    &report.file.path,
                    None,
                    format!("{} is {}: {}", report.file.role, s.level.id(), s.reason),
                ));
            }
        }
        let reported = unreadable.contains(&report.file.path);
        if let Some(error) = report.error.as_ref().filter(|_| !reported) {
            out.push(Finding::new(
                Severity::Error,
                FindingCode::Unreadable,
                &report.file.path,
                None,
                error.clone(),
            ));
        }
    }
    // The whole bank's load, named by the file the agent reads first, and said to be the
    // total of every file read at session start where there are more.
    let subject = super::total_subject(files, bank_root);
    let others = files
        .iter()
        .filter(|f| f.file.load == LoadKind::Startup)
        .count()
        .saturating_sub(1);
    for check in bank_budget {
        let Some((severity, code, word)) = budget_verdict(check.status, check.borrowed) else {
            continue;
        };
        let with = match others {
            0 => String::new(),
            n => format!(
                ", with the {} read at session start",
                crate::io::text::counted(n, "other file")
            ),
        };
        out.push(Finding::new(
            severity,
            code,
            subject,
            None,
            format!("{word} budget{with}: {}", describe_budget(check, format)),
        ));
    }
}

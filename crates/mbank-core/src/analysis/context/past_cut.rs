//! `mbank check`'s `entries-past-load-cut` findings: every cut a session start makes
//! (each file as its agent loads it, the chain of Codex's files included), judged by
//! [`load_cut::past`] for new entries written below it.
use chrono::NaiveDate;

use super::{BankContext, ContextOptions, CutOff, project_context};
use crate::analysis::load_cut::Cut;
use crate::analysis::load_cut::past::{NewPastCut, written_past};
use crate::findings::{Finding, FindingCode, Severity};
use crate::formats;
use crate::history::History;
use crate::io::confine::{self, ProjectFolder};
use crate::model::{Bank, Project};

/// The `entries-past-load-cut` findings of a project: for every cut `mbank context` shows
/// (each file as its agent loads it, the chain of Codex's files included), whether new
/// entries were written below it.
pub fn entries_past_cut(
    project: &Project,
    banks: &[&Bank],
    history: Option<&History>,
    today: NaiveDate,
) -> Vec<Finding> {
    let options = ContextOptions {
        include_user_files: false,
        ..ContextOptions::from_env()
    };
    for bank in banks {
        // A limit on the files of a chain counts files above the project, up to the top
        // of its repository: a folder there gaining or losing one moves the cut.
        if formats::rules(bank.format).combined_limit().is_some()
            && !project.path.join(".git").exists()
        {
            for folder in project.path.ancestors().skip(1) {
                crate::io::reads::folder(folder);
                if folder.join(".git").exists() {
                    break;
                }
            }
        }
    }
    // Only a limit on one file or on a chain of them makes a cut: banks with neither have
    // no cut to judge, and their files are not read again to find none.
    let can_cut = banks.iter().any(|bank| {
        let rules = formats::rules(bank.format);
        rules.combined_limit().is_some()
            || bank.files.iter().any(|file| {
                let rel =
                    crate::io::paths::relative_to(&file.path, &bank.root).unwrap_or(&file.path);
                rules.file_limit(rel).is_some()
            })
    });
    if !can_cut {
        return Vec::new();
    }
    let contexts = project_context(project, banks, &|_| 0, &options, None);
    let cuts: Vec<(&BankContext, &CutOff)> = contexts
        .iter()
        .flat_map(|bank| bank.cutoffs.iter().map(move |cut| (bank, cut)))
        .collect();
    if let Some(history) = history {
        // Whether lines were written past a cut is judged from the file's versions in
        // mbank's history: its index is noted before it is read, so a version recorded
        // meanwhile shows as a change next time.
        for (_, cut) in &cuts {
            crate::io::reads::looked_at(&history.index_path(&cut.file));
        }
    }
    cuts.into_iter()
        .filter_map(|(bank, cut)| finding(project, bank, cut, history, today))
        .collect()
}

fn finding(
    project: &Project,
    bank: &BankContext,
    cutoff: &CutOff,
    history: Option<&History>,
    today: NaiveDate,
) -> Option<Finding> {
    // Read again whole, confined as the session read it: a file above the project (an
    // ancestor's AGENTS.md) is not the project's to judge.
    let allowed = formats::rules(bank.format)
        .outside_project(&bank.root)
        .map_or_else(|| project.path.clone(), |o| o.allowed_root);
    let text = confine::read_text(&ProjectFolder::new(&allowed), &cutoff.file).ok()?;
    let cut = Cut::at(&text, cutoff.kept_bytes)?;
    let written = written_past(&cutoff.file, &text, &cut, history, today)?;
    let agent = &cutoff.agent;
    let past = format!(
        "past {agent}'s {}, which leaves out {}",
        cutoff.limit,
        cut.lines_in_words()
    );
    let (line, what) = match &written {
        NewPastCut::Since { lines, version, at } => (
            lines[0],
            format!(
                "{} written since version {version} ({at}) {} {past}",
                crate::io::text::counted(lines.len(), "line"),
                if lines.len() == 1 { "is" } else { "are" }
            ),
        ),
        NewPastCut::Dated { date, line } => (
            *line,
            format!("the newest dated entry ({date}, line {line}) is {past}"),
        ),
    };
    Some(Finding::new(
        Severity::Warning,
        FindingCode::EntriesPastLoadCut,
        &cutoff.file,
        Some(line),
        format!(
            "{}: {what}: the newest entries are the ones {agent} never reads",
            cutoff.display
        ),
    ))
}

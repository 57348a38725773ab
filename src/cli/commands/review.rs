//! `mbank review [PATH]`: memory files changed since git HEAD (or since the last review
//! outside git) with lines added and removed, token change and review signals. Exit 1
//! when a signal is at or above `--fail-on` (default: warning) or a project could not be
//! reviewed, 0 when nothing changed or all is clean, 2 on usage or I/O errors, so it
//! works as a git pre-commit hook:
//!
//! ```sh
//! mbank review . || exit 1
//! ```
//!
//! `mbank review --mark-reviewed [PATH]` takes the current state as reviewed for banks
//! outside git.
//!
//! # JSON (`--json`, schema `mbank.review/1`)
//!
//! ```text
//! {
//!   "schema": "mbank.review/1",
//!   "encoding": "o200k_base",          // token figures' encoding
//!   "fail_on": "warning",
//!   "failed": false,                     // a signal at or above fail_on
//!   "summary": { "files", "added", "removed", "tokens_before", "tokens_after",
//!                "error", "warning", "info" },        // counts over every project
//!   "projects": [{
//!     "name", "path",
//!     "baseline": { "kind": "git", "head": "<sha>" | null }
//!               | { "kind": "snapshot", "exists": bool, "reviewed_at": <epoch s> | null, "folder" }
//!               | null,                // when the project could not be reviewed
//!     "error": { "code", "message" } | null,   // why it could not be reviewed at all
//!     "problems": [string],
//!     "banks": [{ "format", "root", "files", "added", "removed", "tokens_before", "tokens_after" }],
//!     "files": [{
//!       "path", "display",
//!       "change": "added" | "modified" | "deleted" | "renamed",
//!       "renamed_from": string | null,     // project-relative
//!       "format", "role",
//!       "added", "removed",                // lines since the baseline
//!       "accepted_added", "accepted_removed",  // already staged / in the snapshot
//!       "pending_hunks": n,                // hunks still to review
//!       "tokens_before", "tokens_after", "token_delta",
//!       "error": string | null,
//!       "signals": [{ "severity": "error" | "warning" | "info", "code", "message",
//!                     "new_line": n | null, "old_line": n | null, "hunk": "<id>" | null }]
//!     }]
//!   }]
//! }
//! ```
//!
//! Signal codes: `decision-removed`, `decision-rewritten`, `stable-layer-changed`,
//! `budget-crossed`, `secret-added`, `hidden-unicode`, `placeholder-added`,
//! `import-outside-project`, `import-sensitive`, `claim-missing-path|script|symbol|dependency`
//! (an added line names what the work tree contradicts); and errors for a changed file that could
//! not be reviewed: `unreadable` (binary, invalid UTF-8, too large, permission denied),
//! `snapshot-lost`, `snapshot-unreadable`, `git-failed`. Project error codes:
//! `git-refused`, `git-failed`, `snapshot-corrupt`, `snapshot-lost` (the snapshot folder
//! of a project marked reviewed is gone), `review-failed`.
use std::path::{Path, PathBuf};

use color_eyre::eyre::{Result, eyre};
use serde::Serialize;

use crate::cli::args::SeverityArg;
use crate::cli::commands::check::severity;
use crate::cli::style::{Span, line, pad, println};
use crate::cli::{Context, EXIT_FINDINGS, json};
use crate::core::error::CoreError;
use crate::core::findings::Severity;
use crate::core::guard::refusals::RefusalRecord;
use crate::core::model::{Format, Project, Role};
use crate::core::review::{
    self, BankTotals, Baseline, ChangeKind, FileReview, Review, ReviewOptions, ReviewSession,
    Signal,
};
use crate::core::tokens::Encoding;

#[derive(Serialize)]
struct ReviewOutput {
    schema: &'static str,
    encoding: Encoding,
    fail_on: Severity,
    failed: bool,
    summary: ReviewSummary,
    projects: Vec<ProjectOutput>,
}

#[derive(Serialize, Default)]
struct ReviewSummary {
    files: usize,
    added: usize,
    removed: usize,
    tokens_before: u64,
    tokens_after: u64,
    error: usize,
    warning: usize,
    info: usize,
}

#[derive(Serialize)]
struct ProjectOutput {
    name: String,
    path: PathBuf,
    baseline: Option<Baseline>,
    error: Option<ProjectError>,
    problems: Vec<String>,
    banks: Vec<BankTotals>,
    files: Vec<FileOutput>,
    /// Writes the agent servers refused since the baseline (nothing changed on disk).
    refused: Vec<RefusalRecord>,
}

/// Why a project could not be reviewed at all (an error: the review cannot pass).
#[derive(Serialize)]
struct ProjectError {
    code: &'static str,
    message: String,
}

impl ProjectError {
    fn of(error: &CoreError) -> ProjectError {
        ProjectError {
            code: review::failure_code(error),
            message: error.to_string(),
        }
    }
}

/// One project's review, or why there is none.
struct Reviewed {
    name: String,
    path: PathBuf,
    review: std::result::Result<Review, CoreError>,
}

fn review_project(context: &Context, project: &Project) -> Reviewed {
    let review = ReviewSession::open(project, options(context)).and_then(|s| s.review());
    Reviewed {
        name: project.name.clone(),
        path: project.path.clone(),
        review,
    }
}

#[derive(Serialize)]
struct FileOutput {
    path: PathBuf,
    display: String,
    change: ChangeKind,
    renamed_from: Option<String>,
    format: Format,
    role: Role,
    added: usize,
    removed: usize,
    accepted_added: usize,
    accepted_removed: usize,
    pending_hunks: usize,
    tokens_before: u64,
    tokens_after: u64,
    token_delta: i64,
    error: Option<String>,
    signals: Vec<Signal>,
}

impl FileOutput {
    fn of(file: &FileReview) -> FileOutput {
        FileOutput {
            path: file.path.clone(),
            display: file.display.clone(),
            change: file.change,
            renamed_from: file.renamed_from_display.clone(),
            format: file.format,
            role: file.role,
            added: file.added,
            removed: file.removed,
            accepted_added: file.accepted_added,
            accepted_removed: file.accepted_removed,
            pending_hunks: file.diff.hunks.len(),
            tokens_before: file.tokens_before,
            tokens_after: file.tokens_after,
            token_delta: file.token_delta(),
            error: file.error.clone(),
            signals: file.signals.clone(),
        }
    }
}

fn options(context: &Context) -> ReviewOptions {
    ReviewOptions {
        encoding: context.encoding,
        budgets: context.config.budgets.clone(),
        disk_token_cache: true,
        clock: context.clock,
        history: context.history.clone(),
        ..ReviewOptions::default()
    }
}

fn signed(value: i64) -> String {
    if value > 0 {
        format!("+{value}")
    } else {
        value.to_string()
    }
}

fn baseline_label(baseline: &Baseline) -> String {
    match baseline {
        Baseline::Git { head: Some(head), .. } => {
            format!("since git HEAD {}", head.get(..8).unwrap_or(head))
        }
        Baseline::Git { head: None, .. } => "in a repository with no commits yet".to_string(),
        Baseline::Snapshot { exists: true, .. } => "since the last review".to_string(),
        Baseline::Snapshot { exists: false, .. } => {
            "never reviewed (every file counts as new; `mbank review --mark-reviewed` takes a snapshot)"
                .to_string()
        }
    }
}

fn mark_reviewed(context: &Context, path: Option<&Path>) -> Result<u8> {
    let projects = context.projects_at(path)?;
    for project in &projects {
        let mut session = ReviewSession::open(project, options(context))?;
        if session.is_git() {
            return Err(eyre!(
                "{} is in a git repository: its baseline is HEAD, commit the memory changes instead",
                project.path.display()
            ));
        }
        let count = session.mark_reviewed()?;
        println(line![
            context.style.bold(&project.name),
            format!(
                ": marked {} reviewed",
                crate::core::io::text::counted(count, "memory file")
            )
        ]);
    }
    Ok(0)
}

/// Reviews `projects` one at a time and hands each review to `each` before the next is
/// computed: a review holds the texts of its changed files (three versions each), so over
/// a root the peak is the largest project's texts, not every project's together.
fn for_each_review<T>(
    projects: &[Project],
    mut review: impl FnMut(&Project) -> T,
    mut each: impl FnMut(T),
) {
    for project in projects {
        each(review(project));
    }
}

impl ReviewSummary {
    /// Adds one project's figures: a project that could not be reviewed counts as an error.
    fn add(&mut self, reviewed: &Reviewed) {
        let review = match &reviewed.review {
            Ok(review) => review,
            Err(_) => {
                self.error += 1;
                return;
            }
        };
        for file in &review.files {
            self.files += 1;
            self.added += file.added;
            self.removed += file.removed;
            self.tokens_before += file.tokens_before;
            self.tokens_after += file.tokens_after;
            for signal in &file.signals {
                match signal.severity {
                    Severity::Error => self.error += 1,
                    Severity::Warning => self.warning += 1,
                    Severity::Info => self.info += 1,
                }
            }
        }
    }
}

impl Reviewed {
    /// A signal at or above `fail_on`; a project that could not be reviewed fails the run
    /// whatever the threshold.
    fn fails(&self, fail_on: Severity) -> bool {
        match &self.review {
            Ok(review) => review.worst_signal().is_some_and(|s| s >= fail_on),
            Err(_) => true,
        }
    }
}

impl ProjectOutput {
    /// The JSON of one project: figures and signals only, the texts left behind.
    fn of(reviewed: Reviewed) -> ProjectOutput {
        match reviewed.review {
            Ok(review) => ProjectOutput {
                name: reviewed.name,
                path: review.project.clone(),
                files: review.files.iter().map(FileOutput::of).collect(),
                baseline: Some(review.baseline),
                error: None,
                problems: review.problems,
                banks: review.banks,
                refused: review.refused,
            },
            Err(error) => ProjectOutput {
                name: reviewed.name,
                path: reviewed.path,
                baseline: None,
                error: Some(ProjectError::of(&error)),
                problems: Vec::new(),
                banks: Vec::new(),
                refused: Vec::new(),
                files: Vec::new(),
            },
        }
    }
}

pub fn run(
    context: &Context,
    path: Option<&Path>,
    as_json: bool,
    fail_on: SeverityArg,
    mark: bool,
) -> Result<u8> {
    if mark {
        return mark_reviewed(context, path);
    }
    let fail_on = severity(fail_on);
    let projects = context.projects_at(path)?;
    let mut summary = ReviewSummary::default();
    let mut failed = false;
    // JSON keeps each project's figures (no texts) for the one document printed at the
    // end; text prints each project as soon as it is reviewed.
    let mut outputs = Vec::new();
    for_each_review(
        &projects,
        |project| review_project(context, project),
        |reviewed| {
            summary.add(&reviewed);
            failed |= reviewed.fails(fail_on);
            if as_json {
                outputs.push(ProjectOutput::of(reviewed));
            } else {
                print_project(context, &reviewed);
            }
        },
    );
    if as_json {
        json::print(&ReviewOutput {
            schema: "mbank.review/1",
            encoding: context.encoding,
            fail_on,
            failed,
            projects: outputs,
            summary,
        })?;
    } else {
        print_summary(context, &summary, fail_on, failed);
    }
    Ok(if failed { EXIT_FINDINGS } else { 0 })
}

/// How many refused writes the text output lists (the newest); `--json` has them all.
const REFUSED_SHOWN: usize = 10;

/// The writes the servers refused since the baseline: what an agent tried, and why it was
/// stopped.
fn print_refused(context: &Context, refused: &[RefusalRecord]) {
    if refused.is_empty() {
        return;
    }
    let style = &context.style;
    let hidden = refused.len().saturating_sub(REFUSED_SHOWN);
    println(line![
        "  ",
        style.yellow(format!(
            "{} refused by the agent servers since the baseline{}",
            crate::core::io::text::counted(refused.len(), "write"),
            if hidden > 0 {
                format!(" ({hidden} older not shown; --json lists every one)")
            } else {
                String::new()
            }
        ))
    ]);
    for record in &refused[hidden..] {
        println(line![
            "    ",
            style.dim(&record.at),
            " ",
            &record.file,
            " ",
            style.dim(format!("[{}] via {}", record.rule, record.via)),
        ]);
        println(line!["      ", &record.message]);
    }
}

/// One project's part of the text output.
fn print_project(context: &Context, reviewed: &Reviewed) {
    let style = &context.style;
    let name = &reviewed.name;
    let review = match &reviewed.review {
        Ok(review) => review,
        Err(error) => {
            let problem = ProjectError::of(error);
            println(line![
                style.bold(name),
                " ",
                style.dim(reviewed.path.display().to_string())
            ]);
            println(line![
                "  ",
                pad(style.status("error"), 7),
                " not reviewed: ",
                &problem.message,
                " ",
                style.dim(format!("[{}]", problem.code))
            ]);
            return;
        }
    };
    if review.is_empty() {
        println(line![
            style.bold(name),
            " ",
            style.green("no memory changes"),
            " ",
            style.dim(baseline_label(&review.baseline))
        ]);
        print_refused(context, &review.refused);
        return;
    }
    println(line![
        style.bold(name),
        " ",
        style.dim(baseline_label(&review.baseline))
    ]);
    let names: Vec<Span> = review
        .files
        .iter()
        .map(|file| match &file.renamed_from_display {
            Some(from) => Span::from(format!("{} (from {from})", file.display)),
            None => Span::from(&file.display),
        })
        .collect();
    let width = names.iter().map(Span::width).max().unwrap_or(0);
    for (file, name) in review.files.iter().zip(names) {
        println(line![
            format!("  {} ", file.change.letter()),
            pad(name, width),
            "  ",
            style.green(format!("+{}", file.added)),
            " ",
            style.red(format!("-{}", file.removed)),
            format!("  {} tokens", signed(file.token_delta())),
        ]);
        // A file that could not be read carries its reason as an error signal.
        for signal in &file.signals {
            println(line![
                "      ",
                pad(style.status(signal.severity.id()), 7),
                " ",
                &signal.message,
                " ",
                style.dim(format!("[{}]", signal.code))
            ]);
        }
    }
    print_refused(context, &review.refused);
    for problem in &review.problems {
        println(line!["  ", style.yellow("note"), " ", problem]);
    }
}

/// The last line of the text output: totals over every project and the verdict.
fn print_summary(context: &Context, summary: &ReviewSummary, fail_on: Severity, failed: bool) {
    let style = &context.style;
    println(line![
        format!(
            "{} changed, +{} -{} lines, tokens {} → {} ({}) · {}, {}, {} info · failing on {} and above: ",
            crate::core::io::text::counted(summary.files, "file"),
            summary.added,
            summary.removed,
            summary.tokens_before,
            summary.tokens_after,
            signed(summary.tokens_after as i64 - summary.tokens_before as i64),
            crate::core::io::text::counted(summary.error, "error"),
            crate::core::io::text::counted(summary.warning, "warning"),
            summary.info,
            fail_on,
        ),
        if failed {
            style.red("FAIL")
        } else {
            style.green("ok")
        }
    ]);
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::path::PathBuf;

    use super::*;

    /// Stands for one project's review: counts how many are alive at once.
    struct Held<'a> {
        alive: &'a Cell<usize>,
    }

    impl Drop for Held<'_> {
        fn drop(&mut self) {
            self.alive.set(self.alive.get() - 1);
        }
    }

    fn project(name: &str) -> Project {
        Project {
            name: name.to_string(),
            path: PathBuf::from("/banks").join(name),
            banks: Vec::new(),
            last_write: None,
            real: None,
        }
    }

    #[test]
    fn a_root_review_holds_one_projects_texts_at_a_time() {
        let projects: Vec<Project> = ["a", "b", "c", "d"].map(project).into();
        let alive = Cell::new(0);
        let most = Cell::new(0);
        let mut order = Vec::new();
        for_each_review(
            &projects,
            |project| {
                alive.set(alive.get() + 1);
                most.set(most.get().max(alive.get()));
                (project.name.clone(), Held { alive: &alive })
            },
            |(name, _held)| order.push(name),
        );
        assert_eq!(order, ["a", "b", "c", "d"], "every project, in order");
        assert_eq!(
            most.get(),
            1,
            "a review is released before the next is computed"
        );
        assert_eq!(alive.get(), 0);
    }
}

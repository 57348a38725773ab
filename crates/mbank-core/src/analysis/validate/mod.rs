//! Bank validation: the format rules as [`Finding`]s, each with a severity, a stable code,
//! a file and (where it points into the file) a line.
//!
//! Severity: *error* when the agent will load something wrong or nothing at all (a
//! required file missing from a bank whose contents prove its format — a folder's name
//! alone makes it information — a broken store, an import cycle, a sensitive import, an
//! unparsable structured rule file); *warning* for a likely mistake (placeholders left in,
//! an unclosed `<private>`, ADR gaps, a tracked `*.local.md`); *info* for style.
//!
//! Every file is read defensively (`text::read_text`); a file that cannot be read
//! becomes one finding with the reason, never a panic. All checks are linear in the file
//! size, so a 500 KB single-line file is as quick as a normal one. Structured text over
//! the parse limits (`limits`: frontmatter, JSON documents, the Infinity store, mode
//! files, decision logs, markdown nesting for the preview) is not parsed; it is a
//! `parse-limit` finding instead.
//!
//! This module is the driver: [`validate_bank`] runs the bank-wide checks (required
//! files, the Infinity store, ADRs, mode files) and each file's content checks, and
//! [`ValidationContext`] carries what the caller knows (git, the home folder).

mod adrs;
mod conkeeper_tags;
mod decision_entries;
mod file_text;
mod infinity_store;
mod memory_config;
mod purpose;
mod required;
mod syntax;
mod unusable;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::analysis::decisions;
use crate::analysis::imports::{self, Expander, ImportPolicy};
use crate::findings::{Finding, FindingCode, Severity};
use crate::formats;
use crate::formats::roo_rules::modes;
use crate::io::paths;
use crate::io::text;
use crate::limits;
use crate::model::{Bank, LoadKind, MemoryFile, Project, Role};

pub use crate::analysis::placeholders::placeholder_lines;
pub(crate) use memory_config::parse_memory_config;
pub use memory_config::parse_memory_config_detailed;

use adrs::check_adrs;
use file_text::{check_file_text, is_markdown_path, wants_content_checks};
use infinity_store::check_infinity;
pub use required::DeclaringRules;
use required::check_required;

/// What the caller knows that validation needs but does not compute itself.
#[derive(Debug, Clone, Default)]
pub struct ValidationContext {
    /// Files git tracks (absolute, or relative to the project folder); `None` when the
    /// project is not a git repository.
    pub tracked_by_git: Option<HashSet<PathBuf>>,
    /// Which of the files the bank's format keeps out of git
    /// ([`formats::FormatRules::git_private_files`]) the ignore rules cover; `None` when
    /// the project is not a git repository (nothing to commit them to).
    pub ignored_by_git: Option<HashSet<PathBuf>>,
    /// The home folder and its memory folders, for `~/` imports (empty when unknown).
    pub home: crate::analysis::imports::HomeRoots,
    /// Decision logs already parsed by [`crate::analysis::decisions::parse_log`] for the
    /// same analysis: a log whose text is the same is not parsed again.
    pub parsed_logs: Vec<ParsedLog>,
    /// The project's rule files that may declare its banks' files, read at the first
    /// bank that asks and shared by the contexts of its other banks.
    pub declaring_rules: std::sync::Arc<DeclaringRules>,
}

/// A decision log as it was parsed: its path, its text and the entries found in it.
#[derive(Debug, Clone)]
pub struct ParsedLog {
    pub path: PathBuf,
    pub text: String,
    pub entries: Vec<crate::analysis::decisions::Decision>,
}

impl ValidationContext {
    /// No git information, the home folder from the environment.
    pub fn from_env() -> Self {
        ValidationContext {
            tracked_by_git: None,
            ignored_by_git: None,
            home: crate::analysis::imports::HomeRoots::resolve(paths::home_dir().as_deref()),
            parsed_logs: Vec::new(),
            declaring_rules: Default::default(),
        }
    }
}

/// Whether a file sits directly in the bank folder (where the core files and rule files live).
fn at_bank_top(bank: &Bank, file: &MemoryFile) -> bool {
    file.path.parent() == Some(bank.root.as_path())
}

fn is_tracked(ctx: &ValidationContext, project: &Path, path: &Path) -> bool {
    let Some(tracked) = &ctx.tracked_by_git else {
        return false;
    };
    tracked.contains(path)
        || path
            .strip_prefix(project)
            .is_ok_and(|rel| tracked.contains(rel))
}

/// Validates one bank. Never panics on bad input; every problem is a finding.
pub fn validate_bank(project: &Project, bank: &Bank, ctx: &ValidationContext) -> Vec<Finding> {
    let mut out = Vec::new();
    let is_store = crate::formats::rules(bank.format).is_store();
    if !is_store {
        for problem in &bank.problems {
            out.push(Finding::new(
                Severity::Warning,
                FindingCode::ListingProblem,
                &bank.root,
                None,
                problem.to_string(),
            ));
        }
    }
    // A bank folder leading out of the project is reported as such, not as empty.
    if bank.reaches_outside(&bank.root) {
        return out;
    }
    if let Some(first) = formats::rules(bank.format).read_instead(&bank.root) {
        let shown = |path: &Path| {
            path.strip_prefix(&project.path)
                .unwrap_or(path)
                .display()
                .to_string()
        };
        out.push(Finding::new(
            Severity::Warning,
            FindingCode::SecondMemoryFolder,
            &bank.root,
            None,
            format!(
                "{}/ is never read: ConKeeper reads {}/ first and only one memory folder; \
                 merge the two into {}/",
                shown(&bank.root),
                shown(&first),
                shown(&first)
            ),
        ));
        return out;
    }
    let bank_proven = formats::rules(bank.format).contents_prove_format(bank);
    check_required(project, bank, (&ctx.declaring_rules, bank_proven), &mut out);
    if is_store {
        check_infinity(bank, &mut out);
    }

    let expands = imports::format_expands_imports(bank.format);
    let mut expander = expands.then(|| {
        Expander::new(ImportPolicy::of_project(project, &ctx.home).for_format(bank.format))
    });
    let rules = formats::rules(bank.format);
    for file in &bank.files {
        out.extend(formats::instruction_files::local_ignored_finding(
            bank.format,
            file,
        ));
        if !file.is_virtual() {
            let rel = paths::relative_to(&file.path, &bank.root).unwrap_or(&file.path);
            out.extend(rules.name_finding(file, rel));
            let in_project = paths::relative_to(&file.path, &project.path).unwrap_or(&file.path);
            out.extend(formats::roo_rules::misplaced_clinerules(file, in_project));
        }
        if !file.is_virtual()
            && file.file_name().ends_with(".local.md")
            && is_tracked(ctx, &project.path, &file.path)
        {
            out.push(Finding::new(
                Severity::Warning,
                FindingCode::LocalFileTracked,
                &file.path,
                None,
                format!(
                    "{} is private memory but git tracks it: add it to .gitignore and \
                     `git rm --cached` it",
                    file.display
                ),
            ));
        }
        if !file.is_virtual()
            && file.role.is_decision_log()
            && file.size > limits::DECISION_LOG_MAX_BYTES
        {
            let tracked = is_tracked(ctx, &project.path, &file.path);
            out.push(decisions::too_large_finding(&file.path, file.size, tracked));
        }
        if !wants_content_checks(bank, file) {
            continue;
        }
        let text = match text::read_text(&file.path) {
            Ok(text) => text,
            Err(e) => {
                let severity = if file.load == LoadKind::Startup {
                    Severity::Error
                } else {
                    Severity::Warning
                };
                out.push(Finding::new(
                    severity,
                    FindingCode::UnreadableFile,
                    &file.path,
                    None,
                    format!("cannot be loaded: {e}"),
                ));
                continue;
            }
        };
        check_file_text(bank, file, &text, bank_proven, &mut out);
        if at_bank_top(bank, file) {
            purpose::check(bank, file, &text, &mut out);
            if file.role == Role::Decisions
                && let Some(entry_rules) = rules.decision_entry_rules()
                && file.size <= limits::DECISION_LOG_MAX_BYTES
            {
                let parsed = ctx
                    .parsed_logs
                    .iter()
                    .find(|log| log.path == file.path && log.text == text)
                    .map(|log| log.entries.as_slice());
                decision_entries::check(file, &text, parsed, entry_rules, bank_proven, &mut out);
            }
        }
        if let Some(expander) = expander.as_mut()
            && is_markdown_path(&file.path)
            && let Some(expansion) = expander.expand_unless_loaded(&file.path, &text)
        {
            out.extend(expansion.findings);
        }
    }
    check_adrs(bank, &mut out);
    check_git_private(project, bank, ctx, &mut out);
    out.extend(modes::modes_of_bank(bank).1);
    out.sort_by(|a, b| (&a.file, a.line, a.code).cmp(&(&b.file, b.line, b.code)));
    out
}

/// Files the format keeps out of git that no ignore rule covers: one `git add .` commits
/// them. A tracked `.local.md` is `local-file-tracked`'s already.
fn check_git_private(
    project: &Project,
    bank: &Bank,
    ctx: &ValidationContext,
    out: &mut Vec<Finding>,
) {
    let Some(ignored) = &ctx.ignored_by_git else {
        return;
    };
    let rules = formats::rules(bank.format);
    let exposed: Vec<PathBuf> = rules
        .git_private_files(bank)
        .into_iter()
        .filter(|path| !ignored.contains(path))
        .collect();
    if exposed.is_empty() {
        return;
    }
    if rules.is_store() {
        let folder = bank
            .root
            .strip_prefix(&project.path)
            .unwrap_or(&bank.root)
            .display()
            .to_string();
        out.push(Finding::new(
            Severity::Warning,
            FindingCode::InfinityNotIgnored,
            &bank.root,
            None,
            format!(
                "{folder}/ is not in .gitignore: Infinity keeps its store out of git; add \
                 `{folder}/` to .gitignore (and `git rm -r --cached {folder}` if git tracks it)"
            ),
        ));
        return;
    }
    for path in exposed {
        if is_tracked(ctx, &project.path, &path) {
            continue;
        }
        let shown = path
            .strip_prefix(&project.path)
            .unwrap_or(&path)
            .display()
            .to_string();
        out.push(Finding::new(
            Severity::Warning,
            FindingCode::LocalFileNotIgnored,
            &path,
            None,
            format!(
                "{shown} is private memory but .gitignore does not cover it: the next \
                 `git add .` commits it; add it to .gitignore"
            ),
        ));
    }
}

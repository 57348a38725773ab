//! One bank's report: its files' figures, budgets, staleness, decisions and, when
//! validating, its findings.
use std::path::{Path, PathBuf};

use super::verdicts::verdict_findings;
use super::{Analyzer, BankReport, Depth, FileReport, ImportedTokens, epoch_seconds};
use crate::analysis::budgets::{self, Measure};
use crate::analysis::decisions::{self, Decision};
use crate::analysis::git_evidence::{Evidence, GitEvidence, GitFacts};
use crate::analysis::imports::{self, Expander, HomeRoots, ImportPolicy};
use crate::analysis::membership;
use crate::analysis::staleness::{self, FileActivity, ProjectActivity, StalenessSettings};
use crate::findings::{Finding, FindingCode, Severity};
use crate::formats::roo_rules::{self, modes};
use crate::model::{Bank, LoadKind, MemoryFile, Project, Role};
use crate::scan::listings::Listings;
use crate::tokens::{self, Encoding};

/// Remembered per file version in the listing cache.
const CONKEEPER_FACT: &str = "conkeeper-settings";

/// Reads a ConKeeper bank's `token_budget` preset and `staleness_commits`; with
/// `listings`, remembered for this version of `.memory-config.md`.
fn conkeeper_settings(bank: &Bank, listings: Option<&Listings>) -> (Option<String>, Option<u32>) {
    let Some(settings) = crate::formats::rules(bank.format).settings_file() else {
        return (None, None);
    };
    let path = bank.root.join(settings);
    // The listing already knows whether the file exists and which version it is, and
    // only what it lists is confined to the project: nothing else is read.
    let Some(file) = bank
        .files
        .iter()
        .find(|f| f.path == path && !f.is_virtual())
    else {
        return (None, None);
    };
    if let Some(listings) = listings
        && let Some(known) = listings.fact(
            CONKEEPER_FACT,
            &path,
            file.size,
            file.modified,
            file.changed,
        )
    {
        return known;
    }
    let Ok(text) = crate::io::text::read_text_limited(&path, 256 * 1024) else {
        return (None, None);
    };
    let (config, _) = crate::analysis::validate::parse_memory_config(&text);
    let settings = (config.token_budget, config.staleness_commits);
    if let Some(listings) = listings {
        listings.put_fact(
            CONKEEPER_FACT,
            &path,
            file.size,
            file.modified,
            file.changed,
            &settings,
        );
    }
    settings
}

/// Remembered per version of `.roomodes`, under the session it was counted for.
const ROOMODES_SENT_FACT: &str = "roomodes-sent";

/// What Roo Code sends of a rules bank's `.roomodes` in a session of the format's default
/// mode (see [`modes::roomodes_as_sent`]), in tokens, so the loaded figures count that
/// rather than the whole file, as `mbank context` does; `None` when the bank has no
/// `.roomodes` loading at start. A file Roo Code cannot parse sends nothing. With `store`,
/// remembered for this version of the file.
fn roomodes_sent_tokens(
    project: &Project,
    bank: &Bank,
    encoding: Encoding,
    store: &Listings,
) -> Option<(PathBuf, usize)> {
    let rules = crate::formats::rules(bank.format);
    if !rules.holds_mode_rules() {
        return None;
    }
    let mode = rules.default_mode()?;
    let rel = |file: &MemoryFile| {
        file.path
            .strip_prefix(&project.path)
            .map(Path::to_path_buf)
            .unwrap_or_default()
    };
    let file = bank.files.iter().find(|f| {
        roo_rules::is_roomodes(&rel(f)) && f.load == LoadKind::Startup && !f.is_virtual()
    })?;
    let overridden = bank.files.iter().any(|f| {
        roo_rules::system_prompt_override(&rel(f)) == Some(mode)
            && f.size > 0
            && crate::io::text::read_text_limited(&f.path, MAX_READ_BYTES)
                .is_ok_and(|t| !t.trim().is_empty())
    });
    let kind = format!("{ROOMODES_SENT_FACT}:{}:{mode}:{overridden}", encoding.id());
    if let Some(known) = store.fact(&kind, &file.path, file.size, file.modified, file.changed) {
        return Some((file.path.clone(), known));
    }
    let sent = crate::io::text::read_text_limited(&file.path, MAX_READ_BYTES)
        .ok()
        .and_then(|text| modes::parse_mode_definitions(&file.path, &text).ok())
        .map(|defined| {
            tokens::count(
                encoding,
                &modes::roomodes_as_sent(&defined, mode, overridden),
            )
        })
        .unwrap_or(0);
    store.put_fact(
        &kind,
        &file.path,
        file.size,
        file.modified,
        file.changed,
        &sent,
    );
    Some((file.path.clone(), sent))
}

/// Largest file read for dates and decisions.
const MAX_READ_BYTES: u64 = 4 * 1024 * 1024;

/// What every bank of one project is judged against, worked out once for the project.
#[derive(Clone, Copy)]
pub(super) struct ProjectShared<'a> {
    pub git: Option<&'a GitFacts>,
    pub evidence: &'a Evidence,
    pub declaring_rules: &'a std::sync::Arc<crate::analysis::validate::DeclaringRules>,
    /// Decisions of the logs and records the project's memory points to: a bank's
    /// decision section that restates one of them is left out.
    pub pointed_decisions: &'a [Decision],
}

impl Analyzer<'_> {
    pub(super) fn bank_report(
        &mut self,
        project: &Project,
        bank: Bank,
        depth: Depth,
        shared: &ProjectShared<'_>,
        findings: &mut Vec<Finding>,
        decisions_out: &mut Vec<Decision>,
    ) -> BankReport {
        let ProjectShared {
            git,
            evidence: evidence_of_project,
            declaring_rules,
            pointed_decisions,
        } = *shared;
        let evidence = evidence_of_project.known();
        let (files, store) = (&bank.files, bank.parsed_store.as_deref());
        let mut results = match &self.count_ahead {
            Some(ahead) => ahead.stats_for_files(files, store, &mut self.cache),
            None if self.written_dates => {
                tokens::stats_for_files(files, store, self.encoding, &mut self.cache, self.today)
            }
            None => tokens::figures_for_files(files, store, self.encoding, &mut self.cache),
        };
        let store = self.listings.unwrap_or(&self.own_facts);
        if let Some((roomodes, sent)) = roomodes_sent_tokens(project, &bank, self.encoding, store) {
            for (file, result) in bank.files.iter().zip(results.iter_mut()) {
                if let (true, Ok(stats)) = (file.path == roomodes, result) {
                    stats.loaded_tokens = sent;
                    stats.private_tokens = 0;
                }
            }
        }
        // Texts read once for decisions and the append-only check; token figures and
        // the dates written in files usually come from the caches and read nothing.
        let texts: Vec<Option<String>> = bank
            .files
            .iter()
            .map(|file| {
                let for_decisions = file.role.is_decision_log()
                    && (depth.decisions || (depth.validate && git.is_some()));
                if file.is_virtual() || !for_decisions {
                    return None;
                }
                // Decision logs up to their own limit; a bigger one is a finding of
                // validation's (`parse-limit`), never silently left out.
                let limit = if file.role.is_decision_log() {
                    crate::limits::DECISION_LOG_MAX_BYTES
                } else {
                    MAX_READ_BYTES
                };
                crate::io::text::read_text_limited(&file.path, limit).ok()
            })
            .collect();
        let measures: Vec<Measure> = bank
            .files
            .iter()
            .zip(&results)
            .map(|(file, result)| match result {
                Ok(stats) => Measure {
                    tokens: Some(stats.loaded_tokens as u64),
                    lines: stats.lines as u64,
                    chars: stats.chars as u64,
                    bytes: stats.bytes,
                },
                Err(_) => Measure {
                    tokens: None,
                    lines: 0,
                    chars: 0,
                    bytes: file.size,
                },
            })
            .collect();
        let (preset, bank_commits) = conkeeper_settings(&bank, self.listings);
        let mut budget =
            budgets::evaluate(&bank, &measures, preset.as_deref(), &self.config.budgets);

        let activity: Vec<FileActivity> = bank
            .files
            .iter()
            .zip(&texts)
            .zip(&results)
            .map(|((file, text), result)| {
                let own_time = file
                    .memory
                    .as_ref()
                    .and_then(|m| m.updated_at.as_deref().or(m.created_at.as_deref()))
                    .and_then(staleness::parse_timestamp)
                    .or(file.modified);
                let commit = evidence.and_then(|e| e.file(&file.path));
                let updated = match commit {
                    Some(c) if c.clean => Some(c.time()),
                    _ => own_time,
                };
                // Uncommitted edits mean the file was just updated: no commits behind.
                let commits_since = commit.map(|c| if c.clean { c.commits_since } else { 0 });
                let committed = commit.filter(|c| c.clean);
                // Whatever the depth: `list`, `check` and the TUI judge from the same
                // evidence, so they never disagree on a file's staleness.
                let content_date = self
                    .content_date(file, text.as_deref(), result.as_ref().ok())
                    // A file unchanged since its commit cannot record a later update: a
                    // date after it is a plan ("expected completion: …").
                    .filter(|date| {
                        committed.is_none_or(|c| {
                            chrono::DateTime::from_timestamp(c.committed, 0).is_none_or(|at| {
                                *date <= at.date_naive() + chrono::Duration::days(1)
                            })
                        })
                    });
                FileActivity {
                    updated,
                    content_date,
                    commits_since,
                    committed: committed.is_some(),
                }
            })
            .collect();
        let settings =
            StalenessSettings::default().with_overrides(&self.config.staleness, bank_commits);
        let project_activity = ProjectActivity {
            latest_commit: evidence.and_then(GitEvidence::latest_commit),
        };
        let mut staleness = staleness::assess_bank(&bank, &activity, &project_activity, &settings);
        if let Evidence::Failed { reason, .. } = evidence_of_project {
            // Git's times are what this would be judged by; a verdict from the files'
            // own times (which a checkout resets) would be a guess.
            staleness::unknown_because(&mut staleness, reason);
        }

        let logged_from = decisions_out.len();
        // Logs parsed here are handed to validation, which checks their entries.
        let mut parsed_logs = Vec::new();
        for (file, text) in bank.files.iter().zip(&texts) {
            let Some(text) = text.as_deref().filter(|_| file.role.is_decision_log()) else {
                continue;
            };
            // Validation checks a decision log's entries; the timeline takes every log's.
            let validated_log = depth.validate
                && file.role == Role::Decisions
                && !decisions::is_adr_file(&file.path, file.role);
            if depth.decisions || validated_log {
                let parsed = decisions::parse_file(&file.path, file.role, text);
                // Copied only when both want the entries.
                let timeline = if validated_log {
                    let timeline = depth.decisions.then(|| parsed.clone());
                    parsed_logs.push(crate::analysis::validate::ParsedLog {
                        path: file.path.clone(),
                        text: text.to_string(),
                        entries: parsed,
                    });
                    timeline
                } else {
                    Some(parsed)
                };
                if let Some(parsed) = timeline {
                    decisions_out.extend(decisions::decisions_of_parsed(
                        &file.display,
                        text,
                        parsed,
                    ));
                }
            }
            // Only a file changed since HEAD can have lost entries since HEAD.
            if depth.validate
                && let Some(git) = git
                && git.facts.changed.contains(&file.path)
                && let Some(entry) = git.facts.head.get(&file.path)
            {
                match git.repo.blob_text(entry) {
                    Ok(Some(committed)) => {
                        findings.extend(decisions::shrink_finding(file, &committed, text));
                    }
                    // Committed as binary or oversized: nothing to compare entries with.
                    Ok(None) => {}
                    Err(e) => findings.push(Finding::new(
                        Severity::Error,
                        FindingCode::GitFailed,
                        &file.path,
                        None,
                        format!(
                            "the committed version could not be read, so the append-only check did not run: {e}"
                        ),
                    )),
                }
            }
        }
        if depth.decisions {
            let sections = decisions::section_decisions(
                &bank,
                decisions_out[logged_from..].iter().chain(pointed_decisions),
            );
            decisions_out.extend(sections);
        }
        // Validation needs the bank whole; the files then move into the report.
        let mut bank_findings = if depth.validate {
            let private = crate::formats::rules(bank.format).git_private_files(&bank);
            let validation = crate::analysis::validate::ValidationContext {
                tracked_by_git: git.map(|g| g.facts.tracked.clone()),
                // Unknown when git cannot say: no finding rather than a false one.
                ignored_by_git: git.and_then(|g| g.repo.ignored(&private).ok()),
                home: self.home.clone(),
                parsed_logs,
                declaring_rules: std::sync::Arc::clone(declaring_rules),
            };
            crate::analysis::validate::validate_bank(project, &bank, &validation)
        } else {
            Vec::new()
        };
        // A secret kept in a bank is a security signal whatever the depth (like a link
        // out of the project); the summary of backups and foreign files is validation's.
        let membership = membership::findings(&bank, &project.path);
        if depth.validate {
            // A folder judged not to be a memory bank at all gets no summary of what in
            // it is not memory; a secret is still reported.
            let not_a_bank = bank_findings
                .iter()
                .any(|f| f.code == FindingCode::NotAMemoryBank);
            bank_findings.extend(
                membership
                    .into_iter()
                    .filter(|f| !not_a_bank || f.code == FindingCode::SecretInBank),
            );
            bank_findings.extend(crate::analysis::rule_files::findings(&bank));
        } else {
            findings.extend(
                membership
                    .into_iter()
                    .filter(|f| f.code == FindingCode::SecretInBank),
            );
        }
        let modes = crate::formats::roo_rules::modes::modes_of_bank(&bank).0;
        let mut loaded_tokens = 0;
        let mut private_tokens = 0;
        let mut complete = true;
        let mut files = Vec::with_capacity(bank.files.len());
        let mut file_checks = std::mem::take(&mut budget.files).into_iter();
        let mut file_staleness = staleness.into_iter();
        let mut file_imports =
            imported_figures(project, &bank, &self.home, self.encoding).into_iter();
        for (file, result) in bank.files.into_iter().zip(results) {
            let (stats, error) = match result {
                Ok(stats) => (Some(stats), None),
                Err(e) => (None, Some(e.to_string())),
            };
            match &stats {
                Some(s) if file.load == LoadKind::Startup => {
                    loaded_tokens += s.loaded_tokens as u64;
                    private_tokens += s.private_tokens as u64;
                }
                Some(_) => {}
                None => complete = false,
            }
            let checks = file_checks.next().unwrap_or_default();
            let class = membership::class_in(&bank.root, &project.path, &file.path);
            files.push(FileReport {
                class,
                budget_status: budgets::worst(&checks),
                budget: checks,
                staleness: file_staleness.next().flatten(),
                modified: file.modified.and_then(epoch_seconds),
                last_commit: evidence
                    .and_then(|e| e.file(&file.path))
                    .and_then(|c| epoch_seconds(c.time())),
                stats,
                error,
                imports: file_imports.next().unwrap_or_default(),
                file,
            });
        }
        if depth.validate {
            verdict_findings(
                bank.format,
                &files,
                &budget.bank,
                &bank.root,
                &mut bank_findings,
            );
            findings.extend(bank_findings);
        }
        BankReport {
            format: bank.format,
            label: bank.format.label(),
            root: bank.root,
            project_id: bank.project_id,
            modes,
            budget_status: budgets::worst(&budget.bank),
            budget: budget.bank,
            files,
            loaded_tokens,
            private_tokens,
            complete,
            problems: bank.problems,
        }
    }
}

/// What the `@` imports of each start-up file of `bank` load with it, for the agent that
/// expands them, read and counted here so every view's session figure holds them; an
/// empty list for each file of a format whose imports load nothing.
fn imported_figures(
    project: &Project,
    bank: &Bank,
    home: &HomeRoots,
    encoding: Encoding,
) -> Vec<Vec<ImportedTokens>> {
    let mut out = vec![Vec::new(); bank.files.len()];
    if !imports::format_expands_imports(bank.format) {
        return out;
    }
    let mut expander =
        Expander::new(ImportPolicy::of_project(project, home).for_format(bank.format));
    // Imports resolve to where files really are: so is the project, once it is needed.
    let mut real_project: Option<PathBuf> = project.real.clone();
    for (file, imported) in bank.files.iter().zip(&mut out) {
        let markdown = crate::formats::names::is_markdown(&file.file_name());
        if file.is_virtual() || file.load != LoadKind::Startup || !markdown {
            continue;
        }
        let Ok(text) = crate::io::text::read_text_limited(&file.path, MAX_READ_BYTES) else {
            continue;
        };
        // Most files import nothing: only one naming an `@` is expanded.
        if !text.contains('@') {
            continue;
        }
        let real_project = real_project.get_or_insert_with(|| {
            std::fs::canonicalize(&project.path).unwrap_or_else(|_| project.path.clone())
        });
        for loaded in expander.expand(&file.path, &text).files {
            let stats = tokens::measure(&loaded.text, encoding);
            let path = match loaded.path.strip_prefix(&*real_project) {
                Ok(inside) => inside.to_path_buf(),
                Err(_) => loaded.path,
            };
            imported.push(ImportedTokens {
                path,
                loaded_tokens: stats.loaded_tokens as u64,
                private_tokens: stats.private_tokens as u64,
            });
        }
    }
    out
}

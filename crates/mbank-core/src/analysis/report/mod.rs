//! One project's full picture, computed from the core modules: banks and files in read
//! order, token figures, budgets, staleness, and on request validation findings and
//! decisions. The CLI prints it; the TUI builds it off the drawing thread. Each bank's
//! part is built in `bank_report`; each agent's session start is summed in `session`; the
//! evidence staleness is judged by is gathered in `evidence`; verdicts become findings in
//! `verdicts`.
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::Serialize;

use crate::analysis::budgets::{BudgetCheck, BudgetStatus};
use crate::analysis::decisions::{self, Decision};
use crate::analysis::git_evidence::{Evidence, GitEvidence, GitState, RepoStamps, gather_git};
use crate::analysis::imports::HomeRoots;
use crate::analysis::membership::FileClass;
use crate::analysis::staleness::{Freshness, Staleness};
use crate::config::Config;
use crate::findings::{Finding, Severity};
use crate::git::GitRepo;
use crate::io::reads;
use crate::model::{Bank, BankProblem, Format, LoadKind, MemoryFile, ModeRule, Project};
use crate::scan::bank;
use crate::scan::listings::Listings;
use crate::tokens::{self, Encoding, TextStats, TokenCache};

mod bank_report;
mod evidence;
mod many;
mod session;
mod verdicts;
pub use many::Analyzed;
pub use session::SessionTokens;

/// What to compute beyond the listing, figures, budgets and staleness.
#[derive(Debug, Clone, Copy, Default)]
pub struct Depth {
    pub validate: bool,
    /// Parse decision logs into `ProjectReport::decisions`.
    pub decisions: bool,
    /// Ask git (last commits, commits since, tracked and changed files, the append-only
    /// check) and read dates written in the files, for staleness judged against the
    /// project's activity. Runs git and reads every file: `list` leaves it off to stay
    /// fast; `check`, `timeline`, `context` and `tokens` turn it on where it helps.
    pub git: bool,
}

impl Depth {
    /// Everything: findings, git and the decision timeline (what the TUI shows).
    pub fn full() -> Depth {
        Depth {
            validate: true,
            decisions: true,
            git: true,
        }
    }

    /// Every finding [`Depth::full`] gives, without the decision timeline: what `check`
    /// asks for. Decision logs are still parsed where validation checks their entries.
    pub fn findings() -> Depth {
        Depth {
            decisions: false,
            ..Depth::full()
        }
    }
}

/// Everything about one file.
#[derive(Debug, Clone, Serialize)]
pub struct FileReport {
    #[serde(flatten)]
    pub file: MemoryFile,
    /// Memory, a backup copy or a foreign file (source code, `.env`): only memory is
    /// loaded and counted.
    pub class: FileClass,
    pub stats: Option<TextStats>,
    /// Why there are no figures (unreadable, binary, too large, vanished).
    pub error: Option<String>,
    pub budget: Vec<BudgetCheck>,
    pub budget_status: Option<BudgetStatus>,
    pub staleness: Option<Staleness>,
    /// Seconds since the Unix epoch.
    pub modified: Option<u64>,
    /// Time of the last git commit that touched the file (seconds since the epoch).
    pub last_commit: Option<u64>,
    /// What its `@` imports load with it at session start, for the agent that expands
    /// them (Claude Code for CLAUDE.md, Gemini CLI for GEMINI.md): each file once, in
    /// the order they load. Empty for a file of another format or not loaded at start.
    #[serde(skip)]
    pub imports: Vec<ImportedTokens>,
}

/// A file an import loads at session start, and its figures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportedTokens {
    /// Relative to the project where it lies inside it, else where it really is.
    pub path: PathBuf,
    pub loaded_tokens: u64,
    pub private_tokens: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct BankReport {
    pub format: Format,
    pub label: &'static str,
    pub root: PathBuf,
    pub project_id: Option<String>,
    pub modes: Vec<ModeRule>,
    pub files: Vec<FileReport>,
    pub budget: Vec<BudgetCheck>,
    pub budget_status: Option<BudgetStatus>,
    pub loaded_tokens: u64,
    pub private_tokens: u64,
    /// Every file counted (false while figures are missing for some).
    pub complete: bool,
    pub problems: Vec<BankProblem>,
}

impl BankReport {
    pub fn worst_staleness(&self) -> Option<Freshness> {
        self.files
            .iter()
            .filter_map(|f| f.staleness.as_ref().map(|s| s.level))
            .max()
    }

    /// The worst budget status of the bank and its files.
    pub fn worst_budget(&self) -> Option<BudgetStatus> {
        self.files
            .iter()
            .filter_map(|f| f.budget_status)
            .chain(self.budget_status)
            .max()
    }

    /// The file a finding about the bank's total names (see `total_subject`).
    pub fn total_subject(&self) -> &Path {
        total_subject(&self.files, &self.root)
    }
}

/// The file a finding about a bank's whole start-up load names: its first memory file
/// loaded at start, in read order (the one the agent reads first), else the bank's
/// folder. A finding always names a file a user can open, never the project's folder.
pub(crate) fn total_subject<'a>(files: &'a [FileReport], root: &'a Path) -> &'a Path {
    files
        .iter()
        .find(|f| f.class == FileClass::Memory && f.file.load == LoadKind::Startup)
        .map_or(root, |f| f.file.path.as_path())
}

#[derive(Debug, Clone, Serialize)]
pub struct ProjectReport {
    pub name: String,
    pub path: PathBuf,
    pub encoding: Encoding,
    pub banks: Vec<BankReport>,
    /// Newest modification among the project's memory files (seconds since the epoch).
    pub last_write: Option<u64>,
    /// Newest commit of the project's git repository (seconds since the epoch), when
    /// `Depth::git` was asked and the project is in a repository.
    pub last_commit: Option<u64>,
    pub findings: Vec<Finding>,
    /// Decisions of every bank in timeline order (with `Depth::decisions`).
    pub decisions: Vec<Decision>,
    /// [`ProjectReport::session_tokens`], worked out from the banks once when the report
    /// is built: the TUI draws it on every frame, and sets a new report on every change.
    #[serde(skip)]
    session: SessionTokens,
    /// [`ProjectReport::file_count`], counted once when the report is built, for the
    /// same reason.
    #[serde(skip)]
    memory_files: usize,
}

impl ProjectReport {
    /// The report of the project `name` at `path` whose banks are `banks`, with no dates,
    /// findings or decisions yet; its session figure is worked out here, from the banks.
    pub fn new(name: String, path: PathBuf, encoding: Encoding, banks: Vec<BankReport>) -> Self {
        let mut report = ProjectReport {
            name,
            path,
            encoding,
            banks,
            last_write: None,
            last_commit: None,
            findings: Vec::new(),
            decisions: Vec::new(),
            session: SessionTokens::empty(None),
            memory_files: 0,
        };
        report.session = report.work_out_session();
        report.memory_files = report.count_memory_files();
        report
    }

    /// Each format once, in bank order (a project may hold two banks of one format).
    pub fn formats(&self) -> Vec<Format> {
        let mut formats: Vec<Format> = Vec::with_capacity(self.banks.len());
        for bank in &self.banks {
            if !formats.contains(&bank.format) {
                formats.push(bank.format);
            }
        }
        formats
    }

    /// Memory files only: backups and foreign files kept in a bank are not memory.
    pub fn file_count(&self) -> usize {
        self.memory_files
    }

    fn count_memory_files(&self) -> usize {
        // A file two banks list (a CLAUDE.md that Beans-Code's `fileNames` also names) is
        // one file; each memory of a store file (Infinity's) is one of its own.
        let mut files: Vec<(&Path, Option<&str>)> = self
            .banks
            .iter()
            .flat_map(|b| &b.files)
            .filter(|f| f.class == FileClass::Memory)
            .map(|f| {
                let memory = f.file.memory.as_ref().map(|m| m.id.as_str());
                (f.file.path.as_path(), memory)
            })
            .collect();
        files.sort_unstable();
        files.dedup();
        files.len()
    }

    /// Backup copies and foreign files kept inside banks, by class.
    pub fn non_memory_files(&self) -> impl Iterator<Item = &FileReport> {
        self.banks
            .iter()
            .flat_map(|b| &b.files)
            .filter(|f| f.class != FileClass::Memory)
    }

    pub fn worst_budget(&self) -> Option<BudgetStatus> {
        self.banks.iter().filter_map(BankReport::worst_budget).max()
    }

    pub fn worst_staleness(&self) -> Option<Freshness> {
        self.banks
            .iter()
            .filter_map(BankReport::worst_staleness)
            .max()
    }
}

pub fn epoch_seconds(time: SystemTime) -> Option<u64> {
    time.duration_since(SystemTime::UNIX_EPOCH)
        .ok()
        .map(|d| d.as_secs())
}

/// Builds reports for projects; owns the token cache so many projects share one load.
pub struct Analyzer<'a> {
    pub config: &'a Config,
    pub encoding: Encoding,
    pub cache: TokenCache,
    /// What judges time; [`Analyzer::analyze`] takes the day from it.
    clock: crate::clock::Clock,
    /// The day staleness is judged on in the analysis under way.
    today: chrono::NaiveDate,
    /// Folder listings and small facts shared with discovery (and remembered between
    /// runs by `list`); without them each analysis reads what it needs afresh.
    listings: Option<&'a Listings>,
    /// Where facts go without shared listings (check, the TUI): remembered for the
    /// analyzer's life, so analysing a project again reads only files that changed.
    own_facts: Listings,
    /// Which repository each project is in and its state, for git evidence.
    repo_stamps: RepoStamps,
    /// Git evidence found by [`Analyzer::prefetch_git_evidence`] for projects about to
    /// be analysed, taken by their analysis.
    prefetched: HashMap<PathBuf, Evidence>,
    /// Each repository's code, listed once for the claims of all its projects (shared
    /// with the analyzers of other threads of the same run).
    claims: std::sync::Arc<crate::claims::ClaimChecker>,
    /// Where git's history walks are remembered between runs (nowhere unless the caller
    /// says: [`Analyzer::remembering_history`]).
    history: std::sync::Arc<crate::git::HistoryMemo>,
    /// The home folder's memory folders, resolved for the imports of every project
    /// analysed (again when the home folder changes: [`HomeRoots::refresh`]).
    home: HomeRoots,
    /// Whether `home` is checked before each project: a long-lived analyzer (the TUI's)
    /// does; one serving a single run of a command resolves it once ([`Analyzer::for_one_run`]).
    refresh_home: bool,
    /// Whether files counted for their figures are also searched for the dates written
    /// in them; off for a caller that shows no staleness.
    written_dates: bool,
    /// Whether [`Analyzer::analyze`] counts files while it lists them.
    count_while_listing: bool,
    /// The counter doing it, made at the first analysis and kept for the next.
    count_ahead: Option<tokens::CountAhead>,
}

impl<'a> Analyzer<'a> {
    /// An analyzer judging time by `clock`.
    pub fn new(
        config: &'a Config,
        encoding: Encoding,
        cache: TokenCache,
        clock: &crate::clock::Clock,
    ) -> Self {
        Analyzer {
            config,
            encoding,
            cache,
            clock: *clock,
            today: clock.today(),
            listings: None,
            own_facts: Listings::in_memory(),
            repo_stamps: RepoStamps::new(),
            prefetched: HashMap::new(),
            claims: std::sync::Arc::default(),
            history: std::sync::Arc::default(),
            home: HomeRoots::resolve(crate::io::paths::home_dir().as_deref()),
            refresh_home: true,
            written_dates: true,
            count_while_listing: false,
            count_ahead: None,
        }
    }

    /// Counts files without looking for the dates written in them, for a caller that
    /// shows figures and no staleness (`mbank tokens`): the date search parses the
    /// markdown and costs more than the count. Staleness is then judged by file times
    /// alone.
    pub fn figures_only(mut self) -> Self {
        self.written_dates = false;
        self
    }

    /// [`Analyzer::analyze`] counts the files the token cache does not hold while the
    /// banks are still being listed, on the machine's cores (for a caller counting many
    /// files cold, `mbank tokens`), rather than after the listing.
    pub fn counting_while_listing(mut self) -> Self {
        self.count_while_listing = true;
        self
    }

    /// Remembers git's history walks in `memo` (see `core::git::HistoryMemo`): a run after
    /// an edit or a `git add`, with HEAD where it was, walks no history.
    pub fn remembering_history(mut self, memo: std::sync::Arc<crate::git::HistoryMemo>) -> Self {
        self.claims = std::sync::Arc::new(crate::claims::ClaimChecker::remembering(memo.clone()));
        self.history = memo;
        self
    }

    /// An analyzer serving one run of a command: the home folder's memory folders are
    /// resolved once, when it is made, as the run's listings are read once.
    pub fn for_one_run(mut self) -> Self {
        self.refresh_home = false;
        self
    }

    /// Reads folders and small facts through `listings` (see `core::scan::listings`).
    pub fn with_listings(mut self, listings: &'a Listings) -> Self {
        self.listings = Some(listings);
        self
    }

    /// Saves newly counted figures; failures only cost a recount next time.
    pub fn finish(&mut self) -> Option<String> {
        self.cache.save().err().map(|e| e.to_string())
    }

    pub fn analyze(&mut self, project: &Project, depth: Depth) -> ProjectReport {
        // A long-lived analyzer (the TUI's) goes on judging by the day it is.
        self.today = self.clock.today();
        let banks = if self.count_while_listing {
            self.list_counting(project)
        } else {
            self.list(project)
        };
        self.analyze_listed(project, banks, depth)
    }

    /// [`Analyzer::list`], each listed file handed to the counter as it is found.
    fn list_counting(&mut self, project: &Project) -> Vec<Bank> {
        let (encoding, with_dates) = (self.encoding, self.written_dates.then_some(self.today));
        let ahead = self
            .count_ahead
            .get_or_insert_with(|| tokens::CountAhead::new(encoding, with_dates));
        let cache = &self.cache;
        let feed = |file: &MemoryFile| ahead.offer(file, cache);
        match self.listings {
            Some(listings) => bank::list_banks_feeding(listings, project, &feed),
            None => bank::list_banks_feeding(&Listings::in_memory(), project, &feed),
        }
    }

    /// The banks of `project`, through the shared listings when there are some.
    pub fn list(&self, project: &Project) -> Vec<Bank> {
        match self.listings {
            Some(listings) => bank::list_banks_with(listings, project),
            None => bank::list_banks(project),
        }
    }

    /// [`Analyzer::analyze`] of banks already listed (`bank::list_banks`), so listing
    /// can run on other threads than the analysis. The banks' files move into the
    /// report.
    pub(crate) fn analyze_listed(
        &mut self,
        project: &Project,
        banks: Vec<Bank>,
        depth: Depth,
    ) -> ProjectReport {
        let state = if depth.git {
            gather_git(&[(project, &banks)], &self.history)
                .pop()
                .unwrap_or(GitState::Absent)
        } else {
            GitState::Absent
        };
        self.analyze_with(project, banks, depth, state)
    }

    /// `Analyzer::analyze_listed` without git facts (`depth.git` is not asked), with the
    /// git evidence [`Analyzer::git_evidence_of`] found for the project.
    pub fn analyze_listed_with(
        &mut self,
        project: &Project,
        banks: Vec<Bank>,
        depth: Depth,
        evidence: Evidence,
    ) -> ProjectReport {
        let depth = Depth {
            git: false,
            ..depth
        };
        self.analyze_known(project, banks, depth, GitState::Absent, evidence)
    }

    fn analyze_with(
        &mut self,
        project: &Project,
        banks: Vec<Bank>,
        depth: Depth,
        state: GitState,
    ) -> ProjectReport {
        let evidence = self.git_evidence(project, &banks, &state, depth.git);
        self.analyze_known(project, banks, depth, state, evidence)
    }

    fn analyze_known(
        &mut self,
        project: &Project,
        banks: Vec<Bank>,
        depth: Depth,
        state: GitState,
        evidence: Evidence,
    ) -> ProjectReport {
        // One stamp read: the memory folders are resolved again only if the home
        // folder changed since (a long-lived analyzer's).
        if self.refresh_home {
            self.home.refresh();
        }
        let mut reports = Vec::with_capacity(banks.len());
        let mut findings = Vec::new();
        let git = state.facts();
        let last_write = banks
            .iter()
            .flat_map(|b| b.files.iter())
            .filter_map(|f| f.modified)
            .max()
            .or(project.last_write)
            .and_then(epoch_seconds);
        // Whatever the depth: a memory path leading out of the project is a security signal.
        findings.extend(crate::io::confine::findings(
            banks.iter().flat_map(|b| &b.outside),
            &project.path,
        ));
        let mut decisions = Vec::new();
        // The project's rule files, read for the first of its banks validation asks about.
        let declaring_rules = std::sync::Arc::new(
            crate::analysis::validate::DeclaringRules::in_listed_project(
                self.listings
                    .filter(|_| depth.validate)
                    .and_then(|listings| listings.listed(&project.path)),
            ),
        );
        // Read before the banks move into their reports; added after their own.
        let pointed = if depth.decisions {
            decisions::pointed_decisions(&project.path, &banks, &mut findings)
        } else {
            decisions::PointedDecisions::default()
        };
        let shared = bank_report::ProjectShared {
            git,
            evidence: &evidence,
            declaring_rules: &declaring_rules,
            pointed_decisions: &pointed.records,
        };
        for bank in banks {
            reports.push(self.bank_report(
                project,
                bank,
                depth,
                &shared,
                &mut findings,
                &mut decisions,
            ));
        }
        pointed.append_to(&mut decisions);
        if depth.validate
            && let Some(git) = git
        {
            findings.extend(claim_findings(&self.claims, project, &git.repo, &reports));
        }
        // Whatever the depth: staleness said "unknown" because of it, and a check that
        // could not run is never a silent pass.
        if let Evidence::Failed { code, reason } = &evidence {
            // Git may answer next time with nothing on disk changed.
            reads::unstampable();
            findings.push(Finding::new(
                Severity::Error,
                *code,
                &project.path,
                None,
                format!(
                    "{reason} (git history, staleness by commits and the append-only check did not run)"
                ),
            ));
        }
        decisions::link_supersessions(&mut decisions);
        decisions::sort_timeline(&mut decisions);
        self.config.apply_rule_levels(&mut findings);
        findings.sort_by(|a, b| {
            b.severity
                .cmp(&a.severity)
                .then(a.file.cmp(&b.file))
                .then(a.line.cmp(&b.line))
        });
        // A file reached twice (on its own and through another's `@import`) says each
        // thing once.
        let mut said = std::collections::HashSet::new();
        findings.retain(|f| said.insert((f.code, f.file.clone(), f.line, f.message.clone())));
        one_per_linked_file(&mut findings);
        ProjectReport {
            last_write,
            last_commit: evidence
                .known()
                .and_then(GitEvidence::latest_commit)
                .and_then(epoch_seconds),
            findings,
            decisions,
            ..ProjectReport::new(
                project.name.clone(),
                project.path.clone(),
                self.encoding,
                reports,
            )
        }
    }
}

/// A file reached through links as several (`.claude/rules` and `.cursor/rules` both
/// linked to `.agents/rules`; `CLAUDE.md` linked to `AGENTS.md`) ages once: its staleness
/// is said once, of the file itself where it is listed as itself. Only findings saying
/// the same thing are resolved, so a project without such repeats reads no link.
fn one_per_linked_file(findings: &mut Vec<Finding>) {
    use crate::findings::FindingCode;
    let ages = |f: &Finding| matches!(f.code, FindingCode::Aging | FindingCode::Stale);
    // "rules is aging: older than … by 93 days": the reason, whatever role the file has
    // where it is listed.
    let reason = |f: &Finding| -> String {
        let why = f
            .message
            .split_once(": ")
            .map_or(f.message.as_str(), |(_, why)| why);
        format!("{}:{why}", f.code.id())
    };
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for f in findings.iter().filter(|f| ages(f)) {
        *seen.entry(reason(f)).or_default() += 1;
    }
    if seen.values().all(|&n| n < 2) {
        return;
    }
    // Per file (device and inode, links followed: one `stat` each) and reason: the
    // finding to keep, the file listed as itself (no link) rather than through a link.
    let is_link = |path: &std::path::Path| {
        std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
    };
    let mut keep: std::collections::HashMap<(u64, u64, String), usize> =
        std::collections::HashMap::new();
    let mut key_of = vec![None; findings.len()];
    for (index, f) in findings.iter().enumerate() {
        let why = reason(f);
        if !ages(f) || seen.get(&why).is_none_or(|&n| n < 2) {
            continue;
        }
        let Some((device, inode)) = std::fs::metadata(&f.file)
            .ok()
            .and_then(|m| crate::io::paths::device_and_inode(&m))
        else {
            continue;
        };
        let key = (device, inode, why);
        match keep.get(&key) {
            // Kept already, unless that one is a link and this one the file itself.
            Some(&kept) if !is_link(&findings[kept].file) || is_link(&f.file) => {}
            _ => {
                keep.insert(key.clone(), index);
            }
        }
        key_of[index] = Some(key);
    }
    let mut index = 0;
    findings.retain(|_| {
        let at = index;
        index += 1;
        key_of[at]
            .as_ref()
            .is_none_or(|key| keep.get(key) == Some(&at))
    });
}

/// What the memory of `project` claims about its code that the code contradicts.
fn claim_findings(
    checker: &crate::claims::ClaimChecker,
    project: &Project,
    repo: &GitRepo,
    reports: &[BankReport],
) -> Vec<Finding> {
    let roots: Vec<&Path> = reports.iter().map(|b| b.root.as_path()).collect();
    let docs: Vec<crate::claims::MemoryDoc<'_>> = reports
        .iter()
        .flat_map(|b| &b.files)
        .filter(|f| f.class == FileClass::Memory && !f.file.is_virtual())
        .map(|f| crate::claims::MemoryDoc {
            path: &f.file.path,
            role: f.file.role,
        })
        .collect();
    checker.check_project(&project.path, Some(repo), &roots, &docs)
}

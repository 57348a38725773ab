//! One project's full picture, computed from the core modules: banks and files in read
//! order, token figures, budgets, staleness, and on request validation findings and
//! decisions. The CLI prints it; the TUI builds it off the drawing thread. The evidence
//! staleness is judged by is gathered in `evidence`; verdicts become findings in `verdicts`.
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::Serialize;

use crate::analysis::budgets::{self, BudgetCheck, BudgetStatus, Measure};
use crate::analysis::decisions::{self, Decision};
use crate::analysis::git_evidence::{
    Evidence, GitEvidence, GitFacts, GitState, RepoStamps, gather_git,
};
use crate::analysis::membership::{self, FileClass};
use crate::analysis::staleness::{
    self, FileActivity, Freshness, ProjectActivity, Staleness, StalenessSettings,
};
use crate::config::Config;
use crate::findings::{Finding, FindingCode, Severity};
use crate::formats::agents::{Agent, ProjectFacts};
use crate::formats::roo_rules::{self, modes};
use crate::git::GitRepo;
use crate::io::reads::{self, Reads};
use crate::model::{Bank, BankProblem, Format, LoadKind, MemoryFile, ModeRule, Project};
use crate::scan::bank;
use crate::scan::listings::Listings;
use crate::tokens::{self, Encoding, TextStats, TokenCache};

mod evidence;
mod verdicts;
use verdicts::verdict_findings;

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
    /// Everything: what `check` asks for.
    pub fn full() -> Depth {
        Depth {
            validate: true,
            decisions: true,
            git: true,
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

    /// The file a finding about the bank's total names (see [`total_subject`]).
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
}

impl ProjectReport {
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
        self.banks
            .iter()
            .flat_map(|b| &b.files)
            .filter(|f| f.class == FileClass::Memory)
            .count()
    }

    /// Backup copies and foreign files kept inside banks, by class.
    pub fn non_memory_files(&self) -> impl Iterator<Item = &FileReport> {
        self.banks
            .iter()
            .flat_map(|b| &b.files)
            .filter(|f| f.class != FileClass::Memory)
    }

    /// The start-up files of each agent's session that loads any here, in [`Agent::ALL`]
    /// order: each agent counts only the files it reads ([`Agent::reads`]), each start-up
    /// file as the token cache counted it (`.roomodes` as Roo Code sends it in the default
    /// mode), each with its budget ([`SessionTokens::budget`]). Imports, the user's own
    /// files, the agents' cut-offs and a bank an agent's instructions direct it to read
    /// (Copilot given Cline's instructions) are `mbank context`'s, which reads the texts.
    pub fn agent_tokens(&self) -> Vec<SessionTokens> {
        // One pass over the files, each asked only of the agents loading its format.
        let mut sessions: [Option<SessionTokens>; Agent::ALL.len()] = [None; Agent::ALL.len()];
        let facts = ProjectFacts::of(self.banks.iter().flat_map(|bank| {
            bank.files.iter().map(|file| {
                let rel = file
                    .file
                    .path
                    .strip_prefix(&self.path)
                    .unwrap_or(&file.file.path);
                (rel, file.file.size, file.file.load)
            })
        }));
        for (bank_index, bank) in self.banks.iter().enumerate() {
            let loading = Agent::ALL.map(|agent| agent.formats().contains(&bank.format));
            if !loading.contains(&true) {
                continue;
            }
            for file in &bank.files {
                // A counted file that does not load at start adds nothing to any session.
                if file.stats.is_some() && file.file.load != LoadKind::Startup {
                    continue;
                }
                let rel = file
                    .file
                    .path
                    .strip_prefix(&self.path)
                    .unwrap_or(&file.file.path);
                for (index, agent) in Agent::ALL.into_iter().enumerate() {
                    if loading[index] && agent.reads(bank.format, rel, &facts) {
                        sessions[index]
                            .get_or_insert(SessionTokens::empty(Some(agent)))
                            .add(file, bank_index);
                    }
                }
            }
        }
        sessions
            .into_iter()
            .flatten()
            .map(|session| self.with_budget(session))
            .collect()
    }

    /// The one session-start figure of the project, the definition every view shows
    /// (`mbank list`'s token and budget columns, `mbank tokens`' session line, the TUI's
    /// picker gauge and header), so they agree: the heaviest agent's session start
    /// ([`ProjectReport::agent_tokens`]; on a tie, the first in [`Agent::ALL`] order),
    /// naming that agent, with its budget. A project whose banks no agent loads (BEANS.md,
    /// Infinity: read through their own tools) gets their start-up files' figure with no
    /// agent. Never a sum of several agents' loads.
    pub fn session_tokens(&self) -> SessionTokens {
        self.session_of(&self.agent_tokens())
    }

    /// [`ProjectReport::session_tokens`] from the sessions
    /// [`ProjectReport::agent_tokens`] gave, for a caller that shows both.
    pub fn session_of(&self, sessions: &[SessionTokens]) -> SessionTokens {
        let mut heaviest: Option<SessionTokens> = None;
        for &session in sessions {
            if heaviest.is_none_or(|h| session.tokens > h.tokens) {
                heaviest = Some(session);
            }
        }
        heaviest
            .or_else(|| self.own_tools_tokens())
            .unwrap_or(SessionTokens {
                complete: self.banks.iter().all(|b| b.complete),
                ..SessionTokens::empty(None)
            })
    }

    /// The file `mbank check`'s finding on a session's budget names: the budget is a
    /// bank's total, and its finding names [`BankReport::total_subject`]. `None` when the
    /// session has no budget.
    pub fn budget_file(&self, session: &SessionTokens) -> Option<&Path> {
        session.budget?;
        let bank = self.banks.get(session.deciding_bank?)?;
        Some(bank.total_subject())
    }

    /// The session with its budget: the token totals of the banks it loads (the
    /// format's own, a ConKeeper preset's or config.toml's; a rule borrowed from another
    /// format is information, never a budget). Its verdict is the worst of them, each a
    /// check `mbank check` reports on the same figure (`budget-over`, `budget-near`); its
    /// limit is shown beside the figure only when it limits that very figure (the
    /// session loads one bank's start-up files, all of them).
    fn with_budget(&self, session: SessionTokens) -> SessionTokens {
        let mut deciding: Option<(usize, &BudgetCheck)> = None;
        for (index, bank) in self.banks.iter().enumerate() {
            if !session.reads_bank(index) {
                continue;
            }
            let totals = bank
                .budget
                .iter()
                .filter(|c| c.unit == budgets::Unit::Tokens && !c.borrowed);
            for check in totals {
                if deciding
                    .is_none_or(|(_, d)| (check.status, check.percent()) > (d.status, d.percent()))
                {
                    deciding = Some((index, check));
                }
            }
        }
        let limit = deciding
            .filter(|(index, check)| session.bank == Some(*index) && check.value == session.tokens)
            .map(|(_, check)| check.limit);
        SessionTokens {
            budget: deciding.map(|(_, c)| c.status),
            budget_limit: limit,
            deciding_bank: deciding.map(|(index, _)| index),
            ..session
        }
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

    /// What the banks no agent loads (BEANS.md, Infinity) load at start, by their own
    /// tools; `None` when there are none.
    fn own_tools_tokens(&self) -> Option<SessionTokens> {
        let mut session: Option<SessionTokens> = None;
        for (index, bank) in self.banks.iter().enumerate() {
            if Agent::any_loads(bank.format) {
                continue;
            }
            for file in &bank.files {
                session
                    .get_or_insert(SessionTokens::empty(None))
                    .add(file, index);
            }
        }
        session.map(|session| self.with_budget(session))
    }
}

/// One agent's session start in a project (see [`ProjectReport::session_tokens`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SessionTokens {
    /// Whose session it is; `None` for banks no agent loads (read through their own tools).
    pub agent: Option<Agent>,
    /// Tokens of the start-up files the agent reads, private blocks excluded.
    pub tokens: u64,
    /// Tokens inside `<private>` blocks of those files.
    pub private_tokens: u64,
    /// False when some of those files could not be counted.
    pub complete: bool,
    /// The figure against its budget (ok / near / over); `None` when nothing limits the
    /// session's whole start (see [`ProjectReport::agent_tokens`]).
    pub budget: Option<BudgetStatus>,
    /// The budget's limit, in tokens.
    pub budget_limit: Option<u64>,
    /// The one bank the start-up files come from; `None` for several (or none).
    #[serde(skip)]
    bank: Option<usize>,
    /// The banks the files come from, by index (the first 128).
    #[serde(skip)]
    banks: u128,
    /// The bank whose total decides the verdict.
    #[serde(skip)]
    deciding_bank: Option<usize>,
}

impl SessionTokens {
    fn empty(agent: Option<Agent>) -> SessionTokens {
        SessionTokens {
            agent,
            tokens: 0,
            private_tokens: 0,
            complete: true,
            budget: None,
            budget_limit: None,
            bank: None,
            banks: 0,
            deciding_bank: None,
        }
    }

    fn reads_bank(&self, index: usize) -> bool {
        index < 128 && self.banks & (1 << index) != 0
    }

    /// Counts a file the session reads, of the bank at `bank`: its figures when it
    /// loads at start.
    fn add(&mut self, file: &FileReport, bank: usize) {
        match &file.stats {
            Some(stats) if file.file.load == LoadKind::Startup => {
                self.tokens += stats.loaded_tokens as u64;
                self.private_tokens += stats.private_tokens as u64;
            }
            Some(_) => return,
            None => self.complete = false,
        }
        self.bank = match self.banks {
            0 => Some(bank),
            _ if self.bank == Some(bank) => self.bank,
            _ => None,
        };
        if bank < 128 {
            self.banks |= 1 << bank;
        }
    }

    /// `used/budget` as the views write it ("3,812/5,000"), or the figure alone.
    pub fn used_of_budget(&self, figure: impl Fn(u64) -> String) -> String {
        let suffix = if self.complete { "" } else { "+" };
        match self.budget_limit {
            Some(limit) => format!("{}{suffix}/{}", figure(self.tokens), figure(limit)),
            None => format!("{}{suffix}", figure(self.tokens)),
        }
    }
}

pub fn epoch_seconds(time: SystemTime) -> Option<u64> {
    time.duration_since(SystemTime::UNIX_EPOCH)
        .ok()
        .map(|d| d.as_secs())
}

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
    /// Each repository's code, listed once for the claims of all its projects.
    claims: crate::claims::ClaimChecker,
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
            claims: crate::claims::ClaimChecker::new(),
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

    /// [`Analyzer::analyze`] of many projects (what `check` runs over a root): with
    /// `Depth::git`, git runs only for projects inside a repository, once per repository
    /// for all its projects, not once per project.
    pub fn analyze_all(&mut self, projects: &[Project], depth: Depth) -> Vec<ProjectReport> {
        self.analyze_all_reading(projects, depth)
            .into_iter()
            .map(|(report, _)| report)
            .collect()
    }

    /// [`Analyzer::analyze_all`], each report with what its listing and analysis read
    /// (see [`crate::io::reads`]), for a caller that remembers it.
    pub fn analyze_all_reading(
        &mut self,
        projects: &[Project],
        depth: Depth,
    ) -> Vec<(ProjectReport, Reads)> {
        let (listed, reads): (Vec<Vec<Bank>>, Vec<Reads>) = projects
            .iter()
            .map(|p| reads::recording(|| self.list(p)))
            .unzip();
        let states = if depth.git {
            let pairs: Vec<(&Project, &[Bank])> = projects
                .iter()
                .zip(&listed)
                .map(|(p, b)| (p, b.as_slice()))
                .collect();
            gather_git(&pairs)
        } else {
            projects.iter().map(|_| GitState::Absent).collect()
        };
        projects
            .iter()
            .zip(listed)
            .zip(states)
            .zip(reads)
            .map(|(((project, banks), state), mut read)| {
                let (report, analysis) =
                    reads::recording(|| self.analyze_with(project, banks, depth, state));
                read.absorb(analysis);
                (report, read)
            })
            .collect()
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
            gather_git(&[(project, &banks)])
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
        for bank in banks {
            reports.push(self.bank_report(
                project,
                bank,
                depth,
                (git, &evidence),
                &mut findings,
                &mut decisions,
            ));
        }
        if depth.validate
            && let Some(git) = git
        {
            findings.extend(claim_findings(
                &mut self.claims,
                project,
                &git.repo,
                &reports,
            ));
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
        ProjectReport {
            name: project.name.clone(),
            path: project.path.clone(),
            encoding: self.encoding,
            banks: reports,
            last_write,
            last_commit: evidence
                .known()
                .and_then(GitEvidence::latest_commit)
                .and_then(epoch_seconds),
            findings,
            decisions,
        }
    }

    fn bank_report(
        &mut self,
        project: &Project,
        bank: Bank,
        depth: Depth,
        (git, evidence_of_project): (Option<&GitFacts>, &Evidence),
        findings: &mut Vec<Finding>,
        decisions_out: &mut Vec<Decision>,
    ) -> BankReport {
        let evidence = evidence_of_project.known();
        let mut results = match &self.count_ahead {
            Some(ahead) => ahead.stats_for_files(&bank.files, &mut self.cache),
            None if self.written_dates => {
                tokens::stats_for_files(&bank.files, self.encoding, &mut self.cache, self.today)
            }
            None => tokens::figures_for_files(&bank.files, self.encoding, &mut self.cache),
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
                FileActivity {
                    updated,
                    // Whatever the depth: `list`, `check` and the TUI judge from the same
                    // evidence, so they never disagree on a file's staleness.
                    content_date: self.content_date(file, text.as_deref(), result.as_ref().ok()),
                    commits_since,
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
        for (file, text) in bank.files.iter().zip(&texts) {
            let Some(text) = text.as_deref().filter(|_| file.role.is_decision_log()) else {
                continue;
            };
            if depth.decisions {
                decisions_out.extend(decisions::decisions_of_file(file, text));
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
            let sections = decisions::section_decisions(&bank, &decisions_out[logged_from..]);
            decisions_out.extend(sections);
        }
        // Validation needs the bank whole; the files then move into the report.
        let mut bank_findings = if depth.validate {
            let private = crate::formats::rules(bank.format).git_private_files(&bank);
            let validation = crate::analysis::validate::ValidationContext {
                tracked_by_git: git.map(|g| g.facts.tracked.clone()),
                // Unknown when git cannot say: no finding rather than a false one.
                ignored_by_git: git.and_then(|g| g.repo.ignored(&private).ok()),
                home: crate::io::paths::home_dir(),
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

/// What the memory of `project` claims about its code that the code contradicts.
fn claim_findings(
    checker: &mut crate::claims::ClaimChecker,
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

//! Review of what agents wrote: every memory file changed since a baseline, diffed into
//! hunks with review signals, and actions to accept or reject hunks, lines and files,
//! with undo, plus a commit of the accepted memory changes only.
//!
//! **Baselines.** In a git repository the baseline is HEAD and the index holds what was
//! accepted: the diff shown is index → work tree, "accept" stages a hunk (the index entry
//! becomes the accepted text, through `git hash-object -w` + `git update-index
//! --cacheinfo`), "reject" reverts it in the work tree, and [`ReviewSession::commit`]
//! commits the accepted memory files only. Outside git the baseline is a "last
//! reviewed" snapshot kept under `<data dir>/snapshots/<hash of the project path>/`
//! (a manifest plus one copy per file, written atomically): "accept" moves a hunk into
//! the snapshot, "reject" reverts the work tree, [`ReviewSession::mark_reviewed`] moves
//! the whole snapshot to the current state. Before the first "mark reviewed", every
//! memory file counts as new.
//!
//! Only memory files count (the bank listing's files, plus deleted files where a bank
//! keeps them); other changes in the work tree are never read or touched.
//!
//! **Staleness.** Every action names the [`FileReview`] it was computed from and checks
//! the work tree and the accepted side still hold exactly those texts; otherwise it
//! returns [`CoreError::Conflict`] and writes nothing, so the caller re-diffs
//! ([`ReviewSession::refresh_file`]) instead of applying a stale hunk. Every work-tree
//! write goes through [`write::write_guarded`] / [`write::remove_guarded`].
//!
//! **Threads.** [`diff::diff_texts`] is pure and fast (a 1 MB file in well under 100 ms,
//! see `benches/review_diff.rs`); a session holds no borrowed state and is `Send`, so a
//! UI computes [`ReviewSession::review`] on a worker thread.
mod actions;
mod commit;
pub mod diff;
pub mod signals;
mod store;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::core::analysis::budgets::Measure;
use crate::core::config::BudgetOverrides;
use crate::core::confine::{self, ProjectFolder};
use crate::core::error::{CoreError, Result};
use crate::core::findings::Severity;
use crate::core::formats;
use crate::core::git::{GitRepo, Policy};
use crate::core::model::{Bank, Format, Project, Role};
use crate::core::refusals::{self, RefusalRecord};
use crate::core::scan::bank;
use crate::core::text;
use crate::core::tokens::{self, Encoding, TokenCache};
use crate::core::write::{self, Expected};

pub use actions::ReviewAction;
pub use commit::{CommitError, CommitOutcome};
pub use diff::{
    DiffLine, FileDiff, Hunk, HunkId, LineKind, LineRange, Selection, apply_to_old, diff_texts,
    revert_in_new,
};
pub use signals::Signal;
pub use store::IndexEntry;
use store::{Git, Snapshot, SnapshotFile};

/// How a review is computed.
#[derive(Debug, Clone, Default)]
pub struct ReviewOptions {
    pub encoding: Encoding,
    pub budgets: BudgetOverrides,
    /// For `~/` imports; `None` reads `$HOME`.
    pub home: Option<PathBuf>,
    /// Extra environment for every git command (tests pin identity and config here).
    pub git_env: Vec<(OsString, OsString)>,
    /// Where snapshots and the log of refused writes live instead of `paths::data_dir()`
    /// (tests).
    pub data_dir: Option<PathBuf>,
    /// Read and save token figures in the on-disk cache (the CLI does); otherwise a
    /// cache in memory only.
    pub disk_token_cache: bool,
    /// Make the review commit with `git commit`, running the user's hooks and signing
    /// (`[review] run_git_hooks = true`). Off: the commit runs nothing the repository
    /// configures. Every other git command runs nothing configured either way.
    pub run_git_hooks: bool,
}

/// What a review compares against.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Baseline {
    /// HEAD of the repository (`None` in a repository without commits) and its commit
    /// time (seconds since the epoch).
    Git {
        head: Option<String>,
        committed_at: Option<u64>,
    },
    /// The "last reviewed" snapshot; `exists` is false before the first "mark reviewed".
    Snapshot {
        exists: bool,
        reviewed_at: Option<u64>,
        folder: PathBuf,
    },
}

impl Baseline {
    /// When the baseline was made (HEAD's commit, the last "mark reviewed"); `None`
    /// when there is none yet.
    pub fn time(&self) -> Option<u64> {
        match self {
            Baseline::Git { committed_at, .. } => *committed_at,
            Baseline::Snapshot { reviewed_at, .. } => *reviewed_at,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    Added,
    Modified,
    Deleted,
    Renamed,
}

impl ChangeKind {
    /// One letter, as `git status` shows it.
    pub fn letter(self) -> char {
        match self {
            ChangeKind::Added => 'A',
            ChangeKind::Modified => 'M',
            ChangeKind::Deleted => 'D',
            ChangeKind::Renamed => 'R',
        }
    }
}

/// One changed memory file.
#[derive(Debug, Clone, Serialize)]
pub struct FileReview {
    /// Where the file is (or was, when deleted).
    pub path: PathBuf,
    /// Relative to the project.
    pub display: String,
    pub change: ChangeKind,
    /// The old name of a renamed file.
    pub renamed_from: Option<PathBuf>,
    pub renamed_from_display: Option<String>,
    pub format: Format,
    pub role: Role,
    /// Text at the baseline (HEAD or snapshot); `None` when the file is new.
    #[serde(skip)]
    pub baseline: Option<String>,
    /// Text accepted so far (the index, or the snapshot); the diff's old side.
    #[serde(skip)]
    pub accepted: Option<String>,
    /// Text in the work tree; `None` when deleted.
    #[serde(skip)]
    pub current: Option<String>,
    /// Accepted → current: the hunks still to review (what the actions act on).
    pub diff: FileDiff,
    /// Lines added and removed since the baseline (accepted hunks included).
    pub added: usize,
    pub removed: usize,
    /// Lines added and removed by what was accepted so far (baseline → accepted).
    pub accepted_added: usize,
    pub accepted_removed: usize,
    /// Loaded tokens at the baseline and now.
    pub tokens_before: u64,
    pub tokens_after: u64,
    pub signals: Vec<Signal>,
    /// Why the file could not be diffed (binary, invalid UTF-8, unreadable).
    pub error: Option<String>,
}

impl FileReview {
    pub fn token_delta(&self) -> i64 {
        self.tokens_after as i64 - self.tokens_before as i64
    }

    pub fn worst_signal(&self) -> Option<Severity> {
        self.signals.iter().map(|s| s.severity).max()
    }

    /// Signals raised by one hunk.
    pub fn signals_of(&self, hunk: HunkId) -> impl Iterator<Item = &Signal> {
        self.signals.iter().filter(move |s| s.hunk == Some(hunk))
    }

    /// Whether everything the change did has been accepted.
    pub fn fully_accepted(&self) -> bool {
        self.diff.is_empty()
    }
}

/// Figures of one bank over its changed files.
#[derive(Debug, Clone, Serialize)]
pub struct BankTotals {
    pub format: Format,
    pub root: PathBuf,
    pub files: usize,
    pub added: usize,
    pub removed: usize,
    pub tokens_before: u64,
    pub tokens_after: u64,
}

/// Everything that changed in a project's memory.
#[derive(Debug, Clone, Serialize)]
pub struct Review {
    pub project: PathBuf,
    pub baseline: Baseline,
    pub encoding: Encoding,
    pub files: Vec<FileReview>,
    pub banks: Vec<BankTotals>,
    /// Writes the agent servers refused for this project since the baseline, oldest
    /// first: nothing changed on disk, but they show what an agent tried.
    pub refused: Vec<RefusalRecord>,
    /// Things that kept part of the review from being computed.
    pub problems: Vec<String>,
}

impl Review {
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    pub fn worst_signal(&self) -> Option<Severity> {
        self.files.iter().filter_map(FileReview::worst_signal).max()
    }

    pub fn file(&self, path: &Path) -> Option<&FileReview> {
        self.files.iter().find(|f| f.path == path)
    }
}

/// What rejecting a whole file would throw away, for the confirmation prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Loss {
    pub display: String,
    /// The file is new since the baseline and would be deleted.
    pub deletes_file: bool,
    /// Lines the change added that would be gone.
    pub lines_lost: usize,
    pub bytes: usize,
}

/// The outcome of [`ReviewSession::reject_file`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RejectOutcome {
    Done,
    /// Nothing was changed: the file would be deleted, confirm first.
    NeedsConfirmation(Loss),
}

/// The accepted side of one path, exactly, for undo.
#[derive(Debug, Clone, PartialEq, Eq)]
enum AcceptedState {
    Index(Option<IndexEntry>),
    Snapshot(Option<String>),
}

#[derive(Debug, Clone)]
enum Step {
    Worktree {
        path: PathBuf,
        before: Option<String>,
        after: Option<String>,
    },
    Accepted {
        path: PathBuf,
        before: AcceptedState,
        after: AcceptedState,
    },
}

#[derive(Debug, Clone)]
struct UndoEntry {
    label: String,
    steps: Vec<Step>,
}

#[derive(Debug)]
enum Store {
    Git(Git),
    Snapshot(Snapshot),
}

/// A review of one project: computes the changes and carries out actions, keeping an
/// undo history for the session.
#[derive(Debug)]
pub struct ReviewSession {
    project: Project,
    options: ReviewOptions,
    store: Store,
    undo: Vec<UndoEntry>,
}

fn rel_string(project: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(project).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// The work-tree text of a memory path, `None` when nothing is there. Read through the
/// project's confinement: a file swapped for a symlink out of the project since it was
/// listed (or named by git or a snapshot, never listed) is refused, not read.
fn read_worktree(project: &Path, path: &Path) -> Result<Option<String>> {
    match std::fs::symlink_metadata(path) {
        Ok(_) => confine::read_text(&ProjectFolder::new(project), path).map(Some),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(CoreError::io(path, e)),
    }
}

/// What an action on `hunk` took, for its undo message: `the hunk @@ -3,2 +3,3 @@`,
/// `line 12`, `lines 12, 14`.
fn chosen(hunk: &Hunk, selection: &Selection) -> String {
    match selection {
        Selection::All => format!("the hunk {}", hunk.header()),
        Selection::Lines(indexes) => {
            let numbers: Vec<String> = indexes
                .iter()
                .filter_map(|&i| hunk.lines.get(i))
                .filter(|l| l.kind != LineKind::Context)
                .filter_map(|l| l.new_line.or(l.old_line))
                .map(|n| n.to_string())
                .collect();
            match numbers.len() {
                0 => format!("lines of the hunk {}", hunk.header()),
                1 => format!("line {}", numbers[0]),
                _ => format!("lines {}", numbers.join(", ")),
            }
        }
    }
}

/// The refused writes logged at or after `since` (seconds since the epoch; all of them
/// without a baseline time). A record whose time does not parse is kept: hiding a refusal
/// would be the wrong way to fail.
fn refused_since(records: Vec<RefusalRecord>, since: Option<u64>) -> Vec<RefusalRecord> {
    let Some(since) = since else {
        return records;
    };
    records
        .into_iter()
        .filter(|r| {
            chrono::DateTime::parse_from_rfc3339(&r.at)
                .map_or(true, |at| at.timestamp() >= since as i64)
        })
        .collect()
}

fn expected_of(text: Option<&str>) -> Expected {
    text.map_or(Expected::Missing, Expected::text)
}

fn measure_of(text: Option<&str>, encoding: Encoding) -> Measure {
    match text {
        Some(text) => {
            let stats = tokens::analyze(text, encoding);
            Measure {
                tokens: Some(stats.loaded_tokens as u64),
                lines: stats.lines as u64,
                chars: stats.chars as u64,
                bytes: stats.bytes,
            }
        }
        None => Measure {
            tokens: Some(0),
            ..Measure::default()
        },
    }
}

/// Where a memory file sits: its bank and, when listed, its index in the bank.
#[derive(Debug, Clone, Copy)]
struct Placement {
    bank: usize,
    file: Option<usize>,
    role: Role,
    format: Format,
}

/// Whether a path that is not in the listing (a deleted file) is where `bank` keeps
/// memory, and with which role.
fn place_unlisted(bank: &Bank, path: &Path) -> Option<Role> {
    let rel = path.strip_prefix(&bank.root).ok()?;
    rel.file_name()?;
    let rules = formats::rules(bank.format);
    rules.keeps(rel).then(|| rules.place(rel).role)
}

struct Listing {
    banks: Vec<Bank>,
    places: HashMap<PathBuf, Placement>,
}

impl Listing {
    fn new(project: &Project) -> Listing {
        let banks = bank::list_banks(project);
        let mut places = HashMap::new();
        for (b, bank) in banks.iter().enumerate() {
            for (f, file) in bank.files.iter().enumerate() {
                let role = if file.is_virtual() {
                    Role::Other
                } else {
                    file.role
                };
                places.entry(file.path.clone()).or_insert(Placement {
                    bank: b,
                    file: (!file.is_virtual()).then_some(f),
                    role,
                    format: bank.format,
                });
            }
        }
        Listing { banks, places }
    }

    fn place(&self, path: &Path) -> Option<Placement> {
        if let Some(place) = self.places.get(path) {
            return Some(*place);
        }
        self.banks.iter().enumerate().find_map(|(b, bank)| {
            place_unlisted(bank, path).map(|role| Placement {
                bank: b,
                file: None,
                role,
                format: bank.format,
            })
        })
    }
}

/// A changed path as found: where it sits and its texts (or why they cannot be read).
type Found = (PathBuf, Placement, std::result::Result<Texts, Unreadable>);

/// Why a changed path's texts cannot be read, with the stable code of the error signal
/// the review reports for it (`unreadable`, `snapshot-lost`, `snapshot-unreadable`,
/// `git-failed`).
#[derive(Debug)]
struct Unreadable {
    code: &'static str,
    error: CoreError,
}

impl Unreadable {
    fn new(code: &'static str, error: CoreError) -> Unreadable {
        Unreadable { code, error }
    }
}

/// A committed or staged blob that is not text is unreadable like a work-tree file;
/// git failing to produce it is a git failure.
fn committed_code(error: &CoreError) -> &'static str {
    match error {
        CoreError::Git(_) | CoreError::GitRefused { .. } => "git-failed",
        _ => "unreadable",
    }
}

/// The stable code under which a project that could not be reviewed at all is reported
/// (`mbank review`'s project `error`): `git-refused`, `git-failed`, `snapshot-corrupt`,
/// or `review-failed` for anything else.
pub fn failure_code(error: &CoreError) -> &'static str {
    match error {
        CoreError::GitRefused { .. } => "git-refused",
        CoreError::Git(_) => "git-failed",
        CoreError::Snapshot { .. } => "snapshot-corrupt",
        _ => "review-failed",
    }
}

/// The three texts of one path.
struct Texts {
    baseline: Option<String>,
    accepted: Option<String>,
    current: Option<String>,
}

impl ReviewSession {
    /// Opens a review of `project`: against git HEAD when the project is in a git
    /// repository, else against its snapshot. A repository git refuses (or cannot be
    /// run on) is an error ([`CoreError::GitRefused`], [`CoreError::Git`]), never a
    /// bank outside git; a broken snapshot store still opens (so "mark reviewed" can
    /// replace it) but [`ReviewSession::review`] reports it.
    pub fn open(project: &Project, options: ReviewOptions) -> Result<ReviewSession> {
        let store = match GitRepo::find(&project.path)? {
            Some(repo) => Store::Git(Git {
                repo,
                env: options.git_env.clone(),
                commit_policy: if options.run_git_hooks {
                    Policy::CommitHooks
                } else {
                    Policy::Hardened
                },
            }),
            None => Store::Snapshot(Snapshot::open(&project.path, options.data_dir.as_deref())?),
        };
        Ok(ReviewSession {
            project: project.clone(),
            options,
            store,
            undo: Vec::new(),
        })
    }

    pub fn project(&self) -> &Project {
        &self.project
    }

    pub fn is_git(&self) -> bool {
        matches!(self.store, Store::Git(_))
    }

    fn baseline(&self) -> Result<Baseline> {
        Ok(match &self.store {
            Store::Git(git) => {
                // One call for the commit and its time; it fails in a repository without
                // commits, which has no HEAD.
                let out = git.run(&crate::core::git::os(&[
                    "log",
                    "-1",
                    "--no-show-signature",
                    "--format=%H %ct",
                    "HEAD",
                    "--",
                ]))?;
                let text = String::from_utf8_lossy(&out.stdout);
                let mut fields = text.split_whitespace();
                let head = fields.next().filter(|_| out.success).map(str::to_string);
                let committed_at = fields.next().and_then(|t| t.parse().ok());
                Baseline::Git { head, committed_at }
            }
            Store::Snapshot(snapshot) => Baseline::Snapshot {
                exists: snapshot.exists(),
                reviewed_at: snapshot.reviewed_at(),
                folder: snapshot.folder().to_path_buf(),
            },
        })
    }

    fn texts(&self, path: &Path) -> std::result::Result<Texts, Unreadable> {
        let current = read_worktree(&self.project.path, path).map_err(|e| {
            let code = match e {
                CoreError::NotConfined { .. } => confine::SYMLINK_OUTSIDE,
                _ => "unreadable",
            };
            Unreadable::new(code, e)
        })?;
        match &self.store {
            Store::Git(git) => {
                let failed = |e| Unreadable::new("git-failed", e);
                let head = git.head_entry(path).map_err(failed)?;
                let index = git.index_entry(path).map_err(failed)?;
                let baseline = git
                    .text_of(path, head.as_ref())
                    .map_err(|e| Unreadable::new(committed_code(&e), e))?;
                let accepted = if index == head {
                    baseline.clone()
                } else {
                    git.text_of(path, index.as_ref())
                        .map_err(|e| Unreadable::new(committed_code(&e), e))?
                };
                Ok(Texts {
                    baseline,
                    accepted,
                    current,
                })
            }
            Store::Snapshot(snapshot) => {
                let rel = rel_string(&self.project.path, path);
                let text = snapshot
                    .text(&rel)
                    .map_err(|e| Unreadable::new(snapshot.failure_code(&rel), e))?;
                Ok(Texts {
                    baseline: text.clone(),
                    accepted: text,
                    current,
                })
            }
        }
    }

    fn candidates(&self, listing: &Listing) -> Result<Vec<PathBuf>> {
        let mut paths: Vec<PathBuf> = match &self.store {
            Store::Git(git) => {
                let listed: Vec<PathBuf> = listing.places.keys().cloned().collect();
                git.changed_paths(&listed, |p| listing.place(p).is_some())?
            }
            Store::Snapshot(snapshot) => {
                let mut all: Vec<PathBuf> = snapshot
                    .paths()
                    .iter()
                    .map(|rel| self.project.path.join(rel))
                    .collect();
                all.extend(listing.places.keys().cloned());
                all
            }
        };
        paths.retain(|p| listing.place(p).is_some());
        paths.sort();
        paths.dedup();
        Ok(paths)
    }

    /// Every changed memory file of the project, with diffs, signals and totals.
    pub fn review(&self) -> Result<Review> {
        if let Store::Snapshot(snapshot) = &self.store
            && let Some(error) = snapshot.broken()
        {
            return Err(error);
        }
        let listing = Listing::new(&self.project);
        let mut problems: Vec<String> = listing
            .banks
            .iter()
            .flat_map(|b| b.problems.iter().cloned())
            .collect();
        let mut raw = Vec::new();
        for path in self.candidates(&listing)? {
            let Some(place) = listing.place(&path) else {
                continue;
            };
            match self.texts(&path) {
                Ok(texts) => {
                    if texts.baseline == texts.current && texts.accepted == texts.current {
                        continue;
                    }
                    raw.push((path, place, Ok(texts)));
                }
                Err(e) => raw.push((path, place, Err(e))),
            }
        }
        let mut files = self.pair_and_build(raw);
        self.add_budget_signals(&listing, &mut files, &mut problems);
        for file in &mut files {
            attach_signals_to_hunks(file);
        }
        let banks = bank_totals(&listing, &files);
        let baseline = self.baseline()?;
        let logged = match &self.options.data_dir {
            Some(data_dir) => refusals::read_in(data_dir, &self.project.path),
            None => refusals::read(&self.project.path),
        };
        let refused = match logged {
            Ok(records) => refused_since(records, baseline.time()),
            Err(e) => {
                problems.push(format!("the log of refused writes cannot be read: {e}"));
                Vec::new()
            }
        };
        Ok(Review {
            project: self.project.path.clone(),
            baseline,
            encoding: self.options.encoding,
            files,
            banks,
            refused,
            problems,
        })
    }

    /// Re-diffs one file (after the watcher reported a change). `None` when the file no
    /// longer differs from the baseline, or is not a memory file. Budget signals are
    /// left to the next full [`review`](Self::review).
    pub fn refresh_file(&self, path: &Path) -> Result<Option<FileReview>> {
        let listing = Listing::new(&self.project);
        let Some(place) = listing.place(path) else {
            return Ok(None);
        };
        let texts = self.texts(path).map_err(|e| e.error)?;
        if texts.baseline == texts.current && texts.accepted == texts.current {
            return Ok(None);
        }
        let mut file = self.build(path.to_path_buf(), None, place, texts);
        attach_signals_to_hunks(&mut file);
        Ok(Some(file))
    }

    /// Pairs deleted and added files with similar content into renames, then builds each.
    fn pair_and_build(&self, raw: Vec<Found>) -> Vec<FileReview> {
        let mut deleted: Vec<usize> = Vec::new();
        let mut added: Vec<usize> = Vec::new();
        for (i, (_, _, texts)) in raw.iter().enumerate() {
            if let Ok(t) = texts {
                match (&t.baseline, &t.current) {
                    (Some(_), None) => deleted.push(i),
                    (None, Some(_)) => added.push(i),
                    _ => {}
                }
            }
        }
        let mut renamed: HashMap<usize, usize> = HashMap::new(); // added → deleted
        let mut used: HashSet<usize> = HashSet::new();
        for &a in &added {
            let Ok(new) = &raw[a].2 else { continue };
            let new_text = new.current.as_deref().unwrap_or("");
            let best = deleted
                .iter()
                .filter(|d| !used.contains(*d) && raw[**d].1.bank == raw[a].1.bank)
                .filter_map(|&d| {
                    let Ok(old) = &raw[d].2 else { return None };
                    let old_text = old.baseline.as_deref().unwrap_or("");
                    if old_text.len().max(new_text.len()) > 2 * 1024 * 1024 {
                        return None;
                    }
                    let ratio = similar::TextDiff::from_lines(old_text, new_text).ratio();
                    (ratio >= 0.5).then_some((d, ratio))
                })
                .max_by(|x, y| x.1.total_cmp(&y.1));
            if let Some((d, _)) = best {
                used.insert(d);
                renamed.insert(a, d);
            }
        }
        let mut slots: Vec<Option<Found>> = raw.into_iter().map(Some).collect();
        let mut files = Vec::new();
        for i in 0..slots.len() {
            if used.contains(&i) {
                continue;
            }
            let Some((path, place, texts)) = slots[i].take() else {
                continue;
            };
            match texts {
                Err(unreadable) => files.push(self.unreadable(path, place, unreadable)),
                Ok(mut texts) => {
                    let from = match renamed.get(&i).and_then(|&d| slots[d].take()) {
                        Some((old_path, _, Ok(old))) => {
                            texts.baseline = old.baseline;
                            if texts.accepted.is_none() {
                                texts.accepted = old.accepted;
                            }
                            Some(old_path)
                        }
                        _ => None,
                    };
                    files.push(self.build(path, from, place, texts));
                }
            }
        }
        files.sort_by(|a, b| a.display.cmp(&b.display));
        files
    }

    /// A changed file that cannot be diffed: an error signal says why, so the review
    /// fails instead of passing over a file it never scanned.
    fn unreadable(&self, path: PathBuf, place: Placement, unreadable: Unreadable) -> FileReview {
        let error = unreadable.error.to_string();
        FileReview {
            display: rel_string(&self.project.path, &path),
            path,
            change: ChangeKind::Modified,
            renamed_from: None,
            renamed_from_display: None,
            format: place.format,
            role: place.role,
            baseline: None,
            accepted: None,
            current: None,
            diff: FileDiff::default(),
            added: 0,
            removed: 0,
            accepted_added: 0,
            accepted_removed: 0,
            tokens_before: 0,
            tokens_after: 0,
            signals: vec![Signal::error(
                unreadable.code,
                format!("not reviewed: {error}"),
            )],
            error: Some(error),
        }
    }

    fn build(
        &self,
        path: PathBuf,
        renamed_from: Option<PathBuf>,
        place: Placement,
        texts: Texts,
    ) -> FileReview {
        let Texts {
            baseline,
            accepted,
            current,
        } = texts;
        let change = match (&renamed_from, &baseline, &current) {
            (Some(_), _, _) => ChangeKind::Renamed,
            (None, None, _) => ChangeKind::Added,
            (None, Some(_), None) => ChangeKind::Deleted,
            (None, Some(_), Some(_)) => ChangeKind::Modified,
        };
        let old = baseline.as_deref().unwrap_or("");
        let new = current.as_deref().unwrap_or("");
        let pending = diff_texts(accepted.as_deref().unwrap_or(""), new);
        let full = if accepted == baseline {
            pending.clone()
        } else {
            diff_texts(old, new)
        };
        let staged = if accepted == baseline {
            FileDiff::default()
        } else {
            diff_texts(old, accepted.as_deref().unwrap_or(""))
        };
        let display = rel_string(&self.project.path, &path);
        let home = self
            .options
            .home
            .clone()
            .or_else(crate::core::paths::home_dir);
        let mut found = signals::content_signals(&signals::ChangeContext {
            project: &self.project.path,
            path: &path,
            display: &display,
            format: place.format,
            role: place.role,
            baseline: baseline.as_deref(),
            current: current.as_deref(),
            diff: &full,
            home: home.as_deref(),
        });
        found.sort_by(|a, b| {
            b.severity
                .cmp(&a.severity)
                .then(a.new_line.cmp(&b.new_line))
                .then(a.old_line.cmp(&b.old_line))
        });
        let encoding = self.options.encoding;
        FileReview {
            renamed_from_display: renamed_from
                .as_deref()
                .map(|p| rel_string(&self.project.path, p)),
            renamed_from,
            display,
            path,
            change,
            format: place.format,
            role: place.role,
            added: full.added,
            removed: full.removed,
            accepted_added: staged.added,
            accepted_removed: staged.removed,
            tokens_before: measure_of(baseline.as_deref(), encoding)
                .tokens
                .unwrap_or(0),
            tokens_after: measure_of(current.as_deref(), encoding).tokens.unwrap_or(0),
            diff: pending,
            baseline,
            accepted,
            current,
            signals: found,
            error: None,
        }
    }

    fn add_budget_signals(
        &self,
        listing: &Listing,
        files: &mut [FileReview],
        problems: &mut Vec<String>,
    ) {
        let encoding = self.options.encoding;
        let mut cache = if self.options.disk_token_cache {
            TokenCache::open_default(encoding)
        } else {
            TokenCache::in_memory(encoding)
        };
        let mut by_bank: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (i, file) in files.iter().enumerate() {
            if file.error.is_none()
                && let Some(place) = listing.places.get(&file.path)
                && place.file.is_some()
            {
                by_bank.entry(place.bank).or_default().push(i);
            }
        }
        for (b, changed) in by_bank {
            let bank = &listing.banks[b];
            let now: Vec<Measure> = tokens::stats_for_files(&bank.files, encoding, &mut cache)
                .into_iter()
                .map(|r| match r {
                    Ok(s) => Measure {
                        tokens: Some(s.loaded_tokens as u64),
                        lines: s.lines as u64,
                        chars: s.chars as u64,
                        bytes: s.bytes,
                    },
                    Err(_) => Measure::default(),
                })
                .collect();
            let mut before = now.clone();
            let mut after = now;
            for &i in &changed {
                let file = &files[i];
                if let Some(index) = listing.places.get(&file.path).and_then(|p| p.file) {
                    before[index] = measure_of(file.baseline.as_deref(), encoding);
                    after[index] = measure_of(file.current.as_deref(), encoding);
                }
            }
            let preset = conkeeper_preset(bank);
            for &i in &changed {
                let Some(index) = listing.places.get(&files[i].path).and_then(|p| p.file) else {
                    continue;
                };
                let found = signals::budget_signals(
                    bank,
                    index,
                    &before,
                    &after,
                    preset.as_deref(),
                    &self.options.budgets,
                );
                files[i].signals.extend(found);
            }
        }
        if let Err(e) = cache.save() {
            problems.push(format!("token cache not saved: {e}"));
        }
    }
}

fn conkeeper_preset(bank: &Bank) -> Option<String> {
    if bank.format != Format::ConKeeper {
        return None;
    }
    // Only what the (confined) listing shows is read: a config linked out is never opened.
    let path = bank.root.join(".memory-config.md");
    if !bank.files.iter().any(|f| f.path == path) {
        return None;
    }
    let text = text::read_text_limited(&path, 256 * 1024).ok()?;
    crate::core::analysis::validate::parse_memory_config(&text)
        .0
        .token_budget
}

/// Points each signal at the pending hunk it comes from: the hunk that adds its line,
/// else the one that removes its baseline line (when nothing was accepted yet), else the
/// hunk whose range holds it. A budget signal goes to the hunk adding the most lines.
fn attach_signals_to_hunks(file: &mut FileReview) {
    let same_old_side = file.accepted == file.baseline;
    let diff = &mut file.diff;
    for (index, signal) in file.signals.iter_mut().enumerate() {
        let by_new = signal.new_line.and_then(|n| diff.hunk_at_new_line(n));
        let by_old = signal
            .old_line
            .filter(|_| same_old_side)
            .and_then(|o| diff.hunk_at_old_line(o));
        let by_range = || {
            diff.hunks.iter().position(|h| {
                signal.new_line.is_some_and(|n| h.new.contains(n))
                    || (same_old_side && signal.old_line.is_some_and(|o| h.old.contains(o)))
            })
        };
        let by_size = || {
            (signal.code == "budget-crossed")
                .then(|| {
                    diff.hunks
                        .iter()
                        .enumerate()
                        .filter(|(_, h)| h.added > 0)
                        .max_by_key(|(_, h)| h.added)
                        .map(|(i, _)| i)
                })
                .flatten()
        };
        let hunk = by_new.or(by_old).or_else(by_range).or_else(by_size);
        signal.hunk = hunk.map(|h| diff.hunks[h].id);
        if let Some(h) = hunk {
            diff.hunks[h].signals.push(index);
        }
    }
}

fn bank_totals(listing: &Listing, files: &[FileReview]) -> Vec<BankTotals> {
    let mut totals: BTreeMap<usize, BankTotals> = BTreeMap::new();
    for file in files {
        let Some(place) = listing.place(&file.path) else {
            continue;
        };
        let bank = &listing.banks[place.bank];
        let entry = totals.entry(place.bank).or_insert_with(|| BankTotals {
            format: bank.format,
            root: bank.root.clone(),
            files: 0,
            added: 0,
            removed: 0,
            tokens_before: 0,
            tokens_after: 0,
        });
        entry.files += 1;
        entry.added += file.added;
        entry.removed += file.removed;
        entry.tokens_before += file.tokens_before;
        entry.tokens_after += file.tokens_after;
    }
    totals.into_values().collect()
}

// ---------------------------------------------------------------------------------------
// Actions
// ---------------------------------------------------------------------------------------

impl ReviewSession {
    fn accepted_state(&self, path: &Path) -> Result<AcceptedState> {
        Ok(match &self.store {
            Store::Git(git) => AcceptedState::Index(git.index_entry(path)?),
            Store::Snapshot(snapshot) => {
                AcceptedState::Snapshot(snapshot.text(&rel_string(&self.project.path, path))?)
            }
        })
    }

    fn accepted_text(&self, path: &Path, state: &AcceptedState) -> Result<Option<String>> {
        match (&self.store, state) {
            (Store::Git(git), AcceptedState::Index(entry)) => git.text_of(path, entry.as_ref()),
            (_, AcceptedState::Snapshot(text)) => Ok(text.clone()),
            _ => Err(CoreError::Git("review store changed kind".into())),
        }
    }

    /// Sets the accepted text of `path`, if it still is `expected`.
    fn set_accepted(
        &mut self,
        path: &Path,
        expected: Option<&str>,
        new: Option<&str>,
    ) -> Result<Step> {
        let before = self.accepted_state(path)?;
        if self.accepted_text(path, &before)?.as_deref() != expected {
            return Err(CoreError::Conflict {
                path: path.to_path_buf(),
            });
        }
        let after = match &mut self.store {
            Store::Git(git) => {
                let entry = match new {
                    Some(text) => {
                        let sha = git.hash_object(text)?;
                        let mode = match &before {
                            AcceptedState::Index(Some(e)) => e.mode.clone(),
                            _ => git
                                .head_entry(path)?
                                .map_or_else(|| "100644".to_string(), |e| e.mode),
                        };
                        Some(IndexEntry { mode, sha })
                    }
                    None => None,
                };
                git.set_index(path, entry.as_ref())?;
                AcceptedState::Index(entry)
            }
            Store::Snapshot(snapshot) => {
                let rel = rel_string(&self.project.path, path);
                snapshot.set(&rel, expected, new, store::mode_of(path))?;
                AcceptedState::Snapshot(new.map(str::to_string))
            }
        };
        Ok(Step::Accepted {
            path: path.to_path_buf(),
            before,
            after,
        })
    }

    fn restore_accepted(
        &mut self,
        path: &Path,
        expect: &AcceptedState,
        to: &AcceptedState,
    ) -> Result<()> {
        if self.accepted_state(path)? != *expect {
            return Err(CoreError::Conflict {
                path: path.to_path_buf(),
            });
        }
        match (&mut self.store, to) {
            (Store::Git(git), AcceptedState::Index(entry)) => git.set_index(path, entry.as_ref()),
            (Store::Snapshot(snapshot), AcceptedState::Snapshot(text)) => {
                let rel = rel_string(&self.project.path, path);
                let now = match expect {
                    AcceptedState::Snapshot(t) => t.clone(),
                    AcceptedState::Index(_) => None,
                };
                snapshot.set(&rel, now.as_deref(), text.as_deref(), store::mode_of(path))
            }
            _ => Err(CoreError::Git("review store changed kind".into())),
        }
    }

    fn write_worktree(path: &Path, expected: Option<&str>, new: Option<&str>) -> Result<Step> {
        // One writer at a time in this folder, with the servers and the editor.
        let _lock = crate::core::lock::for_file(path)?;
        match new {
            Some(text) => {
                if expected.is_none()
                    && let Some(parent) = path.parent()
                {
                    std::fs::create_dir_all(parent).map_err(|e| CoreError::io(parent, e))?;
                }
                write::write_guarded(path, text, expected_of(expected))?;
            }
            None => write::remove_guarded(path, expected_of(expected))?,
        }
        Ok(Step::Worktree {
            path: path.to_path_buf(),
            before: expected.map(str::to_string),
            after: new.map(str::to_string),
        })
    }

    /// Refuses to act on a review that no longer matches the disk or the accepted side.
    fn check_fresh(&self, file: &FileReview) -> Result<()> {
        let conflict = || CoreError::Conflict {
            path: file.path.clone(),
        };
        if file.error.is_some() {
            return Err(conflict());
        }
        if read_worktree(&self.project.path, &file.path)? != file.current {
            return Err(conflict());
        }
        let state = self.accepted_state(&file.path)?;
        let mut accepted = self.accepted_text(&file.path, &state)?;
        if accepted.is_none()
            && let Some(from) = &file.renamed_from
        {
            let state = self.accepted_state(from)?;
            accepted = self.accepted_text(from, &state)?;
        }
        if accepted != file.accepted {
            return Err(conflict());
        }
        Ok(())
    }

    /// The accepted side of a renamed file's old name goes away once any of it is accepted.
    fn drop_old_name(&mut self, file: &FileReview, steps: &mut Vec<Step>) -> Result<()> {
        if let Some(from) = &file.renamed_from {
            let state = self.accepted_state(from)?;
            let text = self.accepted_text(from, &state)?;
            if text.is_some() {
                steps.push(self.set_accepted(from, text.as_deref(), None)?);
            }
        }
        Ok(())
    }

    fn record(&mut self, label: String, steps: Vec<Step>) {
        if !steps.is_empty() {
            self.undo.push(UndoEntry { label, steps });
        }
    }

    /// Accepts the selected lines of one hunk: the git index (or the snapshot) takes them.
    pub fn accept(&mut self, file: &FileReview, hunk: HunkId, selection: &Selection) -> Result<()> {
        self.check_fresh(file)?;
        let h = file.diff.hunk(hunk).ok_or_else(|| CoreError::Conflict {
            path: file.path.clone(),
        })?;
        let old = file.accepted.as_deref().unwrap_or("");
        let new = file.current.as_deref().unwrap_or("");
        let mut accepted = apply_to_old(old, new, h, selection);
        let result = if file.current.is_none() && accepted.is_empty() {
            None // the whole deletion is accepted: the path leaves the index
        } else {
            Some(std::mem::take(&mut accepted))
        };
        let expected = self.expected_accepted(file);
        let mut steps = Vec::new();
        let outcome = self
            .set_accepted(&file.path, expected.as_deref(), result.as_deref())
            .map(|s| steps.push(s))
            .and_then(|()| self.drop_old_name(file, &mut steps));
        self.record(
            format!("accept {} in {}", chosen(h, selection), file.display),
            steps,
        );
        outcome
    }

    /// What the accepted side of `file.path` itself holds (a rename's new name may have
    /// nothing yet: its accepted text came from the old name).
    fn expected_accepted(&self, file: &FileReview) -> Option<String> {
        match &file.renamed_from {
            Some(_) => self
                .accepted_state(&file.path)
                .ok()
                .and_then(|s| self.accepted_text(&file.path, &s).ok())
                .flatten(),
            None => file.accepted.clone(),
        }
    }

    /// Rejects the selected lines of one hunk: the work tree file loses them.
    pub fn reject(&mut self, file: &FileReview, hunk: HunkId, selection: &Selection) -> Result<()> {
        self.check_fresh(file)?;
        let h = file.diff.hunk(hunk).ok_or_else(|| CoreError::Conflict {
            path: file.path.clone(),
        })?;
        let old = file.accepted.as_deref().unwrap_or("");
        let new = file.current.as_deref().unwrap_or("");
        let reverted = revert_in_new(old, new, h, selection);
        let step = Self::write_worktree(&file.path, file.current.as_deref(), Some(&reverted))?;
        self.record(
            format!("reject {} in {}", chosen(h, selection), file.display),
            vec![step],
        );
        Ok(())
    }

    pub fn accept_hunk(&mut self, file: &FileReview, hunk: HunkId) -> Result<()> {
        self.accept(file, hunk, &Selection::All)
    }

    pub fn reject_hunk(&mut self, file: &FileReview, hunk: HunkId) -> Result<()> {
        self.reject(file, hunk, &Selection::All)
    }

    /// Accepts one line (an index into `Hunk::lines`).
    pub fn accept_line(&mut self, file: &FileReview, hunk: HunkId, line: usize) -> Result<()> {
        self.accept(file, hunk, &Selection::Lines(vec![line]))
    }

    pub fn reject_line(&mut self, file: &FileReview, hunk: HunkId, line: usize) -> Result<()> {
        self.reject(file, hunk, &Selection::Lines(vec![line]))
    }

    /// Accepts the whole file as it is now (a deletion removes it from the index).
    pub fn accept_file(&mut self, file: &FileReview) -> Result<()> {
        self.check_fresh(file)?;
        let expected = self.expected_accepted(file);
        let mut steps = Vec::new();
        let outcome = self
            .set_accepted(&file.path, expected.as_deref(), file.current.as_deref())
            .map(|s| steps.push(s))
            .and_then(|()| self.drop_old_name(file, &mut steps));
        self.record(format!("accept {}", file.display), steps);
        outcome
    }

    /// What rejecting the whole file would throw away.
    pub fn reject_file_loss(&self, file: &FileReview) -> Loss {
        Loss {
            display: file.display.clone(),
            deletes_file: file.current.is_some()
                && (file.baseline.is_none() || file.renamed_from.is_some()),
            lines_lost: file.added,
            bytes: file.current.as_ref().map_or(0, String::len),
        }
    }

    /// Restores the baseline: the work tree file (re-created when deleted; a new file is
    /// deleted only with `confirmed`) and the accepted side both go back to it. A renamed
    /// file comes back under its old name.
    pub fn reject_file(&mut self, file: &FileReview, confirmed: bool) -> Result<RejectOutcome> {
        self.check_fresh(file)?;
        let loss = self.reject_file_loss(file);
        if loss.deletes_file && !confirmed {
            return Ok(RejectOutcome::NeedsConfirmation(loss));
        }
        let mut steps = Vec::new();
        let outcome = self.reject_file_steps(file, &mut steps);
        self.record(format!("reject {}", file.display), steps);
        outcome.map(|()| RejectOutcome::Done)
    }

    fn reject_file_steps(&mut self, file: &FileReview, steps: &mut Vec<Step>) -> Result<()> {
        let baseline = file.baseline.as_deref();
        match &file.renamed_from {
            Some(from) => {
                let old_now = read_worktree(&self.project.path, from)?;
                if old_now.is_some() {
                    return Err(CoreError::Conflict { path: from.clone() });
                }
                steps.push(Self::write_worktree(from, None, baseline)?);
                steps.push(Self::write_worktree(
                    &file.path,
                    file.current.as_deref(),
                    None,
                )?);
                let state = self.accepted_state(from)?;
                let from_accepted = self.accepted_text(from, &state)?;
                if from_accepted.as_deref() != baseline {
                    steps.push(self.set_accepted(from, from_accepted.as_deref(), baseline)?);
                }
                let state = self.accepted_state(&file.path)?;
                let new_accepted = self.accepted_text(&file.path, &state)?;
                if new_accepted.is_some() {
                    steps.push(self.set_accepted(&file.path, new_accepted.as_deref(), None)?);
                }
            }
            None => {
                if file.current.as_deref() != baseline {
                    steps.push(Self::write_worktree(
                        &file.path,
                        file.current.as_deref(),
                        baseline,
                    )?);
                }
                if file.accepted.as_deref() != baseline {
                    steps.push(self.set_accepted(
                        &file.path,
                        file.accepted.as_deref(),
                        baseline,
                    )?);
                }
            }
        }
        Ok(())
    }

    /// How many actions can be undone.
    pub fn undo_depth(&self) -> usize {
        self.undo.len()
    }

    /// What the next undo would revert, e.g. "accept hunk in memory-bank/progress.md".
    pub fn next_undo(&self) -> Option<&str> {
        self.undo.last().map(|e| e.label.as_str())
    }

    /// Reverts the last action, if the files it wrote still hold what it wrote
    /// (otherwise a conflict, and the action stays on the undo stack).
    pub fn undo(&mut self) -> Result<Option<String>> {
        let Some(entry) = self.undo.last().cloned() else {
            return Ok(None);
        };
        for (done, step) in entry.steps.iter().rev().enumerate() {
            let result = match step {
                Step::Worktree {
                    path,
                    before,
                    after,
                } => Self::write_worktree(path, after.as_deref(), before.as_deref()).map(|_| ()),
                Step::Accepted {
                    path,
                    before,
                    after,
                } => self.restore_accepted(path, after, before),
            };
            if let Err(e) = result {
                // Keep what is still to undo on the stack.
                if let Some(last) = self.undo.last_mut() {
                    let remaining = last.steps.len() - done;
                    last.steps.truncate(remaining);
                }
                return Err(e);
            }
        }
        self.undo.pop();
        Ok(Some(entry.label))
    }

    /// Outside git: takes the current state of every memory file as the new baseline.
    /// Returns how many files the snapshot holds.
    pub fn mark_reviewed(&mut self) -> Result<usize> {
        let Store::Snapshot(snapshot) = &mut self.store else {
            return Err(CoreError::Git(
                "this project is in a git repository: commit the accepted changes instead of marking it reviewed".into(),
            ));
        };
        let listing = Listing::new(&self.project);
        let mut files = BTreeMap::new();
        for path in listing.places.keys() {
            if let Some(text) = read_worktree(&self.project.path, path)? {
                let mode = store::mode_of(path);
                files.insert(
                    rel_string(&self.project.path, path),
                    SnapshotFile { text, mode },
                );
            }
        }
        snapshot.replace_all(&files)?;
        self.undo.clear();
        Ok(files.len())
    }

    /// A commit message naming the accepted memory changes and the decisions they add.
    pub fn commit_message(&self) -> Result<String> {
        match &self.store {
            Store::Git(git) => commit::summary(git, &self.accepted_paths(git)?),
            Store::Snapshot(_) => Err(CoreError::Git("not a git repository".into())),
        }
    }

    fn accepted_paths(&self, git: &Git) -> Result<Vec<commit::Accepted>> {
        let listing = Listing::new(&self.project);
        commit::accepted(git, &self.project.path, |path| {
            listing.place(path).map(|p| p.role)
        })
    }

    /// Commits the accepted memory changes (and nothing else) with `message`, with the
    /// user's identity; hooks and signing run only with
    /// [`ReviewOptions::run_git_hooks`].
    pub fn commit(&mut self, message: &str) -> std::result::Result<CommitOutcome, CommitError> {
        let Store::Git(git) = &self.store else {
            return Err(CommitError::NotGit);
        };
        let accepted = self.accepted_paths(git).map_err(CommitError::Core)?;
        let outcome = commit::commit(git, &accepted, message)?;
        self.undo.clear();
        Ok(outcome)
    }
}

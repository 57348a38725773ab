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
//! write goes through [`crate::write::apply`] (writer `review`, the replaced text
//! kept in [`ReviewOptions::history`]), a guarded write or removal.
//!
//! **Threads.** [`diff::diff_texts`] is pure and fast (a 1 MB file in well under 100 ms,
//! see `benches/review_diff.rs`); a session holds no borrowed state and is `Send`, so a
//! UI computes [`ReviewSession::review`] on a worker thread.
//!
//! **Where things are.** `model` holds the review as data ([`Review`], [`FileReview`]);
//! `session` opens a session on its store and reads a path's texts; `listing` says which
//! paths are memory; `changes` finds and builds the changed files, `budget` adds their
//! budget signals; `accept_reject` and `undo` carry out actions; `finish` marks reviewed
//! or commits (through `commit`); `store` is the git index and the snapshot; [`diff`]
//! and [`signals`] are pure.
mod accept_reject;
mod actions;
mod budget;
mod changes;
mod commit;
pub mod diff;
mod finish;
mod ledger;
mod listing;
mod model;
mod session;
pub mod signals;
mod store;
mod undo;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::config::BudgetOverrides;
use crate::error::CoreError;
use crate::findings::FindingCode;
use crate::model::Project;
use crate::tokens::Encoding;

pub use actions::ReviewAction;
pub use commit::{CommitError, CommitOutcome};
pub use diff::{DiffLine, FileDiff, Hunk, HunkId, LineKind, LineRange, Selection, diff_texts};
pub(crate) use diff::{apply_to_old, revert_in_new};
pub use model::{BankTotals, Baseline, ChangeKind, FileReview, Loss, RejectOutcome, Review};
pub use signals::Signal;
use store::{Git, Snapshot};
use undo::UndoEntry;

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
    /// What dates a review (the time a snapshot is marked reviewed).
    pub clock: crate::clock::Clock,
    /// Where the texts the review's writes replace are kept (`None`: nowhere).
    pub history: Option<crate::history::History>,
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

/// The stable code under which a project that could not be reviewed at all is reported
/// (`mbank review`'s project `error`): `git-refused`, `git-failed`, `snapshot-corrupt`,
/// `snapshot-lost`, or `review-failed` for anything else.
pub fn failure_code(error: &CoreError) -> &'static str {
    match error {
        CoreError::GitRefused { .. } => FindingCode::GitRefused.id(),
        CoreError::Git(_) => FindingCode::GitFailed.id(),
        CoreError::Snapshot { .. } => "snapshot-corrupt",
        CoreError::SnapshotLost { .. } => "snapshot-lost",
        _ => "review-failed",
    }
}

/// The text of `file` (in `project`) as the person last marked it reviewed, in the
/// snapshot kept in `data_dir` outside git (`None`: never marked, not in it, or the
/// snapshot cannot be trusted).
pub(crate) fn reviewed_text(project: &Path, data_dir: &Path, file: &Path) -> Option<String> {
    let snapshot = store::Snapshot::open(project, Some(data_dir)).ok()?;
    if !snapshot.exists() {
        return None;
    }
    snapshot
        .text(&session::rel_string(project, file))
        .ok()
        .flatten()
}

/// Marks `texts` (project-relative path, text) reviewed in `project`'s snapshot kept in
/// `data_dir`, as "mark reviewed" would.
#[cfg(test)]
pub(crate) fn mark_reviewed_texts(project: &Path, data_dir: &Path, texts: &[(&str, &str)]) {
    let mut snapshot = store::Snapshot::open(project, Some(data_dir)).unwrap();
    let files = texts
        .iter()
        .map(|(rel, text)| {
            let file = store::SnapshotFile {
                text: text.to_string(),
                mode: 0o644,
            };
            (rel.to_string(), file)
        })
        .collect();
    snapshot
        .replace_all(&files, std::time::SystemTime::now())
        .unwrap();
}

//! The review as data: what it compares against ([`Baseline`]), each changed file
//! ([`FileReview`]) with its diff and signals, the totals per bank, and what rejecting a
//! whole file would lose. `mbank review --json` serializes these as they are.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{FileDiff, HunkId, Signal};
use crate::findings::Severity;
use crate::guard::refusals::RefusalRecord;
use crate::model::{Format, Role};
use crate::tokens::Encoding;

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

    /// As a sentence says it.
    pub fn word(self) -> &'static str {
        match self {
            ChangeKind::Added => "added",
            ChangeKind::Modified => "modified",
            ChangeKind::Deleted => "deleted",
            ChangeKind::Renamed => "renamed",
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

/// The outcome of [`ReviewSession::reject_file`](super::ReviewSession::reject_file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RejectOutcome {
    Done,
    /// Nothing was changed: the file would be deleted, confirm first.
    NeedsConfirmation(Loss),
}

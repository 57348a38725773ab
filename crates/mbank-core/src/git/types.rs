//! What git answers, as mbank keeps it.
use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use serde::Serialize;

/// What the index holds for some names: stage-0 entries, and the names in a merge
/// conflict (stages 1–3).
#[derive(Debug, Clone, Default)]
pub(crate) struct IndexEntries {
    pub(crate) entries: HashMap<Vec<u8>, IndexEntry>,
    pub(crate) unmerged: HashSet<Vec<u8>>,
}

/// History keyed by root-relative name (see [`GitRepo::history`]).
#[derive(Debug, Clone, Default)]
pub(super) struct NamedHistory {
    pub(super) latest: Option<SystemTime>,
    /// Commits walked, newest first: all of HEAD's history, or down to the oldest last
    /// change of a name HEAD's tree holds.
    pub(super) commits: u32,
    pub(super) files: HashMap<Vec<u8>, FileCommit>,
    /// The names' entries in the tree walked from (files and links), when known.
    pub(super) tree: Option<TreeBlobs>,
    /// For each folder asked about (a project below the repository's top, `/`-ended), the
    /// walk's commits that changed something in it.
    pub(super) folders: HashMap<Vec<u8>, FolderCommits>,
}

/// The commits of a walk that changed a file in one folder: their positions (0 is the
/// newest commit walked), in order, and the newest one's time.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct FolderCommits {
    pub(super) positions: Vec<u32>,
    pub(super) latest: Option<SystemTime>,
}

impl FolderCommits {
    /// Counts the commit at `position` when it is not counted yet (positions come in
    /// order).
    pub(super) fn count(&mut self, position: u32, time: SystemTime) {
        if self.positions.last() != Some(&position) {
            self.positions.push(position);
        }
        self.latest = Some(self.latest.map_or(time, |t| t.max(time)));
    }

    /// How many of these commits are newer than the one at `position`.
    pub(super) fn newer_than(&self, position: u32) -> u32 {
        let newer = self.positions.partition_point(|p| *p < position);
        u32::try_from(newer).unwrap_or(u32::MAX)
    }
}

/// One index or tree entry: file mode and blob id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IndexEntry {
    pub mode: String,
    pub sha: String,
}

/// The entries of a tree that are files or links, by name.
pub(crate) type TreeBlobs = HashMap<Vec<u8>, IndexEntry>;

impl IndexEntry {
    /// A submodule (gitlink) rather than a file.
    pub(super) fn is_gitlink(&self) -> bool {
        self.mode == "160000"
    }
}

/// When one file last changed in git.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileCommit {
    /// Committer time of the newest commit touching the file.
    pub time: SystemTime,
    /// Commits in the repository's history (from HEAD) newer than that one: those that
    /// changed the folder asked about, when it is below the repository's top.
    pub commits_since: u32,
}

/// The answer of `GitRepo::history`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileHistory {
    /// Time of the newest commit in the repository (HEAD's history, as far as it was
    /// walked), or of the newest that changed the folder asked about when it is below
    /// the repository's top (a project of a monorepo); `None` when empty.
    pub latest_commit: Option<SystemTime>,
    /// Commits walked from HEAD: its whole history, or down to the oldest last change
    /// of the files asked about that HEAD's tree holds.
    pub commits_walked: u32,
    /// Keyed by the paths given to `history`; files never committed are absent.
    pub files: HashMap<PathBuf, FileCommit>,
}

impl FileHistory {
    pub fn of(&self, path: &Path) -> Option<FileCommit> {
        self.files.get(path).copied()
    }
}

/// What git says about a set of files, gathered in one pass per repository
/// (`gather_facts`). Keyed by the paths the caller gave.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    pub history: FileHistory,
    /// Files in the index.
    pub tracked: HashSet<PathBuf>,
    /// Tracked files whose content differs from HEAD (staged or not), or that could not
    /// be compared (unreadable, not a regular file, in a merge conflict).
    pub changed: HashSet<PathBuf>,
    /// Each file's entry in HEAD.
    pub head: HashMap<PathBuf, IndexEntry>,
}

impl Facts {
    /// Committed and unchanged since: git's time is the file's time.
    pub(crate) fn is_clean(&self, path: &Path) -> bool {
        self.tracked.contains(path) && !self.changed.contains(path)
    }
}

/// A repository's own driver overrides (see the module comment), shared by every
/// [`GitRepo`] view of it.
pub(super) type Overrides = Arc<[(OsString, OsString)]>;

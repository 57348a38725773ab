//! What the event loop can be told: input, worker results and file-system events all
//! arrive as one [`Message`] type on one channel. Workers depend on this module, never
//! on the app, so data flows one way: worker -> message -> app.
use std::path::PathBuf;

use crossterm::event::{KeyEvent, MouseEvent};

use mbank_core::analysis::context::BankContext;
use mbank_core::analysis::report::ProjectReport;
use mbank_core::edit::{Editable, Saved};
use mbank_core::model::Project;
use mbank_core::review::{CommitOutcome, FileReview, Loss, Review, ReviewAction};
use mbank_core::tokens::TextStats;

use super::highlight::HighlightDone;
use super::markdown_view::Rendered;
use super::protocol::{DiffKey, RenderKey};
use super::theme::Theme;

/// Everything the event loop can be told.
#[derive(Debug)]
pub enum Message {
    Key(KeyEvent),
    Mouse(MouseEvent),
    Paste(String),
    Resize,
    Scanned {
        generation: u64,
        projects: Vec<Project>,
    },
    Summary {
        generation: u64,
        index: usize,
        total: usize,
        report: Box<ProjectReport>,
        /// The project's memory folders, for the watcher.
        folders: Vec<PathBuf>,
    },
    /// Everything about the open project (its banks found again first).
    Analyzed {
        project: Project,
        report: Box<ProjectReport>,
        contexts: Vec<BankContext>,
        folders: Vec<PathBuf>,
    },
    /// A listed project's figures again, after a write inside it (its banks found again
    /// first).
    Refreshed {
        project: Project,
        report: Box<ProjectReport>,
        folders: Vec<PathBuf>,
    },
    /// A project asked about holds no memory bank any more.
    ProjectGone(PathBuf),
    FileLoaded(LoadedFile),
    Saved {
        path: PathBuf,
        version: u64,
        text: String,
        result: Result<Box<Saved>, SaveError>,
    },
    /// A finding's fix was applied to `path` and saved, or why not.
    FixApplied {
        path: PathBuf,
        fix: mbank_core::findings::Fix,
        result: Result<Box<Saved>, String>,
    },
    BufferCounted {
        document: u64,
        version: u64,
        stats: TextStats,
    },
    Highlighted(HighlightDone),
    PreviewRendered {
        key: RenderKey,
        rendered: Box<Rendered>,
    },
    FilesChanged(Vec<PathBuf>),
    /// The search worker's answer to search number `generation`.
    SearchResults {
        generation: u64,
        result: Result<Vec<mbank_core::search::Hit>, String>,
    },
    /// The system dropped file events (its queue overflowed): anything may have changed.
    WatchOverflow,
    WatchProblem(String),
    /// How many of the wanted folders are watched, when not all are (or all are again).
    WatchCoverage(Coverage),
    /// An answer of the review worker.
    Review(ReviewEvent),
    /// What the agent servers staged or were refused, or a decision on a proposal.
    Agent(super::agent_worker::AgentEvent),
    /// A side of a conflict was saved as a backup (or could not be).
    BackedUp {
        side: BackupSide,
        result: Result<PathBuf, String>,
    },
    /// The next theme, read (a user's theme file may override a bundled one).
    ThemeLoaded {
        name: String,
        result: Result<Box<Theme>, String>,
    },
    /// A fresh copy of the demo banks, to become the root (removed when dropped).
    DemoReady(Result<mbank_core::demo::DemoRoot, String>),
    /// A bank was created in this folder (or why not).
    BankCreated {
        path: PathBuf,
        result: Result<(), String>,
    },
    /// The next decision record was written here (or why not).
    AdrCreated(Result<PathBuf, String>),
    /// An answer of a file history job.
    History(HistoryEvent),
    /// What the journal worker recorded, found or did.
    Journal(JournalEvent),
}

/// Whether this session records every version of every memory file into the history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Recording {
    /// Not asked to (no history, live refresh off, a demo copy), or not started yet.
    #[default]
    Off,
    On,
    /// Another recorder holds the recorder lock and records: the one it said it is.
    ByAnother(Option<mbank_core::journal::lock::Holder>),
}

/// What the journal worker reports.
#[derive(Debug)]
pub enum JournalEvent {
    Recording(Recording),
    /// The agents' own stores outside every project (in the home folder): folders to
    /// watch, so their changes are recorded too.
    Folders(Vec<PathBuf>),
    /// Files that could not be read or recorded, as sentences.
    Problems(Vec<String>),
    /// What changed since it was last marked reviewed, survey number `generation`.
    Surveyed {
        generation: u64,
        result: Result<std::sync::Arc<mbank_core::journal::changes::Survey>, String>,
    },
    /// A hunk or a file taken back (or why not).
    Reverted {
        path: PathBuf,
        display: String,
        result: Result<mbank_core::journal::revert::Reverted, ActError>,
    },
    /// How many files were marked reviewed.
    MarkedReviewed(Result<usize, String>),
}

/// What the file history jobs report, each about the file at `path`.
#[derive(Debug)]
pub enum HistoryEvent {
    /// The file's versions, or why they cannot be read.
    Listed {
        path: PathBuf,
        result: Result<HistoryListing, String>,
    },
    /// What the writes that replaced the listed versions changed: version number, lines
    /// added and removed (after [`HistoryEvent::Listed`]; the versions not named have
    /// no figures).
    Counted {
        path: PathBuf,
        changes: Vec<(u64, (usize, usize))>,
    },
    /// One comparison the overlay asked for.
    Diffed {
        path: PathBuf,
        key: DiffKey,
        result: Result<Box<VersionCompare>, String>,
    },
    /// A version was brought back (or why not).
    Restored {
        path: PathBuf,
        version: u64,
        result: Result<(), String>,
    },
}

/// A file's history as the overlay lists it.
#[derive(Debug, Clone)]
pub struct HistoryListing {
    /// Newest first.
    pub versions: Vec<ListedVersion>,
    /// The file's size now (`None`: it is gone).
    pub current_size: Option<u64>,
}

/// One version, with what the write that replaced it changed.
#[derive(Debug, Clone)]
pub struct ListedVersion {
    pub version: mbank_core::history::Version,
    /// Lines added and removed by the write that replaced it (`None`: not worked out
    /// yet, its text or the next one's could not be read, or the list is long).
    pub lines: Option<(usize, usize)>,
}

/// Two texts of a file compared, for the history overlay.
#[derive(Debug, Clone)]
pub struct VersionCompare {
    pub diff: mbank_core::review::FileDiff,
    /// What each side is ("version 3", "now").
    pub old_label: String,
    pub new_label: String,
    /// Something to say above the diff (the file is gone now).
    pub note: Option<String>,
}

/// Which side of a conflict a backup holds, and why it was saved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackupSide {
    /// Their version, before "keep mine" replaces it at the next save.
    Theirs,
    /// The buffer, before "take theirs" replaced it.
    MineBeforeTakingTheirs,
    /// The buffer, before the merge replaced it.
    MineBeforeMerging,
}

/// Why a save did not happen.
#[derive(Debug, Clone)]
pub enum SaveError {
    /// The file changed on disk since it was read: nothing was written.
    Conflict,
    Other(String),
}

/// A file (or one Infinity memory) read for the editor, and why it was read.
#[derive(Debug, Clone)]
pub struct LoadedFile {
    pub path: PathBuf,
    /// For an Infinity memory: its id inside the store.
    pub memory_id: Option<String>,
    pub purpose: LoadPurpose,
    /// The file as read: the editor shows `edit.text` (an Infinity memory's content),
    /// a save expects `edit.expected` and re-applies its line endings and BOM.
    pub result: Result<Editable, LoadError>,
}

/// Why a file was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadPurpose {
    /// To show it in the editor.
    Open,
    /// The open file changed on disk: reload a clean buffer, ask about a dirty one.
    Reload,
    /// A save was refused because the file changed: show what changed.
    Conflict,
}

/// Why a file could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadError {
    /// It is not there (deleted, or renamed away).
    Gone(String),
    /// It is a folder.
    Folder,
    Unreadable(String),
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadError::Gone(problem) | LoadError::Unreadable(problem) => f.write_str(problem),
            LoadError::Folder => f.write_str("it is a folder"),
        }
    }
}

/// Why a review action did not apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ActError {
    /// The file changed on disk (or in the index) since the view was computed: nothing
    /// was written, and a fresh review follows.
    Conflict,
    Other(String),
}

/// What the review worker reports.
#[derive(Debug)]
pub enum ReviewEvent {
    /// A whole review of `project`.
    Computed {
        project: PathBuf,
        is_git: bool,
        result: Result<Box<Review>, String>,
    },
    /// One file re-diffed; `None` when it no longer differs from the baseline.
    FileRefreshed {
        project: PathBuf,
        path: PathBuf,
        result: Result<Option<Box<FileReview>>, String>,
    },
    Acted {
        project: PathBuf,
        action: ReviewAction,
        display: String,
        result: Result<(), ActError>,
    },
    /// What rejecting `file` would lose.
    RejectLoss {
        file: Box<FileReview>,
        loss: Loss,
    },
    /// The label of the undone action, `None` when there was nothing to undo.
    Undone(Result<Option<String>, String>),
    CommitMessage(Result<String, String>),
    Committed(Result<CommitOutcome, String>),
    /// How many files the new snapshot holds.
    MarkedReviewed(Result<usize, String>),
}

/// At most this many folders are watched.
pub(crate) const MAX_WATCHES: usize = 16_384;

/// How many folders are watched of how many were asked for, and why not all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Coverage {
    pub watched: usize,
    pub wanted: usize,
    /// The system's limit on watches, when known (Linux: `max_user_watches`).
    pub system_limit: Option<usize>,
    /// The kernel refused a watch: the user's watches are used up (by us and others).
    pub exhausted: bool,
}

impl Coverage {
    pub(crate) fn is_complete(&self) -> bool {
        self.watched >= self.wanted
    }

    /// The note the picker shows while not every folder is watched.
    pub fn note(&self) -> Option<String> {
        if self.is_complete() {
            return None;
        }
        let why = match (self.exhausted, self.system_limit) {
            (true, Some(limit)) => {
                format!("the system's limit, fs.inotify.max_user_watches = {limit}, is used up")
            }
            (true, None) => "the system's watch limit is used up".to_string(),
            (false, Some(limit)) => {
                format!("mbank keeps to 3/4 of fs.inotify.max_user_watches = {limit}")
            }
            (false, None) => format!("mbank watches at most {MAX_WATCHES}"),
        };
        Some(format!(
            "live refresh watches {} of {} folders ({why}); the others refresh when opened",
            self.watched, self.wanted
        ))
    }
}

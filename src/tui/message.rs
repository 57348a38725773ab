//! What the event loop can be told: input, worker results and file-system events all
//! arrive as one [`Message`] type on one channel. Workers depend on this module, never
//! on the app, so data flows one way: worker -> message -> app.
use std::path::PathBuf;

use crossterm::event::{KeyEvent, MouseEvent};

use crate::core::context::BankContext;
use crate::core::model::Project;
use crate::core::report::ProjectReport;
use crate::core::tokens::TextStats;

use super::highlight::HighlightDone;
use super::markdown_view::Rendered;
use super::panes::preview::RenderKey;

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
    },
    Analyzed {
        report: Box<ProjectReport>,
        contexts: Vec<BankContext>,
    },
    FileLoaded(LoadedFile),
    Saved {
        path: PathBuf,
        version: u64,
        text: String,
        result: Result<String, SaveError>,
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
    WatchProblem(String),
}

/// Why a save did not happen.
#[derive(Debug, Clone)]
pub enum SaveError {
    /// The file changed on disk since it was read: nothing was written.
    Conflict,
    Other(String),
}

/// What a file's editor needs: its text as read, or why it cannot be edited.
#[derive(Debug, Clone)]
pub struct LoadedFile {
    pub path: PathBuf,
    /// For an Infinity memory: its id inside the store.
    pub memory_id: Option<String>,
    pub result: Result<LoadedText, String>,
}

#[derive(Debug, Clone)]
pub struct LoadedText {
    /// The text shown in the editor (an Infinity memory's content).
    pub text: String,
    /// Exactly what was read from disk: the write guard compares against it.
    pub disk_text: String,
    pub read_only: Option<String>,
}

//! The protocol between the panes and the app: what a pane is told ([`Input`]), what it
//! answers (`Outcome` carrying [`Effect`]s), where the keyboard is ([`Focus`]), the
//! commands a context declares ([`KeyCommand`]) and the data-only requests effects carry
//! (questions to ask, review requests, conflict choices). Panes, overlays, the app and
//! the workers all import it; it imports none of them, only the keymap's vocabulary and
//! the core's data.
use std::path::PathBuf;

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Position;

use mbank_core::edit::EditText;
use mbank_core::journal::changes::FileChange;
use mbank_core::journal::revert::Revert;
use mbank_core::model::Project;
use mbank_core::review::{FileReview, ReviewAction};

use super::keymap::{Action, KeyChord};

/// What a pane or overlay is told.
#[derive(Debug, Clone)]
pub enum Input {
    Key(KeyInput),
    /// Text pasted into the terminal.
    Paste(String),
    /// A left click at this screen position (inside the pane's last area).
    Click(Position),
    /// The mouse wheel over the pane, in rows (positive: down).
    Scroll(i32),
}

/// A key, resolved once by the app where it was pressed.
#[derive(Debug, Clone, Copy)]
pub struct KeyInput {
    pub event: KeyEvent,
    /// What the keymap says the key does in the layer that has the keyboard: its own
    /// table first, then the global one (typed characters stay text where the layer
    /// takes text). `None`: an unbound key, typed text in an editor or a filter.
    pub action: Option<Action>,
}

impl KeyInput {
    /// The character this key types, when it types one (no ctrl or alt).
    pub fn typed(&self) -> Option<char> {
        match self.event.code {
            KeyCode::Char(c) if KeyChord::from_event(&self.event).is_printable() => Some(c),
            _ => None,
        }
    }
}

/// What a layer did with an input.
#[must_use]
#[derive(Debug)]
pub(crate) enum Outcome {
    /// Not for this layer: the key goes on down (to the global keys).
    Ignored,
    /// Taken, with what the app must now do.
    Consumed(Vec<Effect>),
}

impl Outcome {
    /// Taken, nothing more to do.
    pub fn done() -> Outcome {
        Outcome::Consumed(Vec::new())
    }

    pub fn effect(effect: Effect) -> Outcome {
        Outcome::Consumed(vec![effect])
    }

    /// Taken, with `effect` when there is one.
    pub fn maybe(effect: Option<Effect>) -> Outcome {
        Outcome::Consumed(effect.into_iter().collect())
    }
}

/// The panes of the project screen (the picker is a screen of its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    Tree,
    Editor,
    Preview,
    Timeline,
    Findings,
    Review,
}

/// Everything a pane or overlay can ask of the app.
#[derive(Debug)]
pub enum Effect {
    /// A short message in the corner.
    Toast(String),
    ToastError(String),
    /// Open this project (asks first over unsaved edits).
    OpenProject(PathBuf),
    /// Leave the picker for the project already open.
    BackToProject,
    /// Make a fresh copy of the demo banks the root.
    OpenDemo,
    /// Ask whether to create a bank in the root, in the folder `name`.
    AskInitBank(String),
    /// Offer a memory bank to the open project, which has none.
    AskInitProject(PathBuf),
    /// Ask for the title of the open project's next decision record.
    AskNewAdr,
    /// Write the open project's next decision record with this title.
    CreateAdr(String),
    /// Show a file in the editor (asks first over unsaved edits when `focus`).
    ShowFile {
        path: PathBuf,
        memory_id: Option<String>,
        /// Move the keyboard to it too; browsing the tree shows files without.
        focus: bool,
    },
    /// Search every project's memory for `query` (search number `generation`).
    Search {
        generation: u64,
        query: String,
    },
    /// Open `path` at `line` in `project` (a search result): the project first, when
    /// another is open (asking over unsaved edits), then the file.
    OpenAt {
        project: PathBuf,
        path: PathBuf,
        line: usize,
    },
    /// Go to a file and a line in it (findings, timeline): select it in the tree, open
    /// it and move the keyboard there.
    GoTo {
        path: PathBuf,
        line: Option<usize>,
    },
    /// The editor's buffer changed: count and highlight it again.
    BufferChanged,
    /// Save the editor's buffer.
    Save,
    /// Move the keyboard to this pane.
    Focus(Focus),
    /// Close this pane (the timeline or the review give the main area back to the
    /// document; the findings panel hides).
    Close(Focus),
    /// Ask the review worker.
    Review(ReviewRequest),
    /// Commit the accepted memory (git) or mark it reviewed (outside git): asks first.
    AskCommit,
    /// Ask something in an overlay above everything.
    Ask(Ask),
    /// Close the top overlay (the one that returned this).
    CloseOverlay,
    /// The user said yes to a confirm prompt.
    Confirmed(Confirmed),
    /// How the user settled a conflict between the buffer and the disk.
    Resolve(Choice),
    /// Apply a finding's fix to `path` and save it like an edit.
    ApplyFix {
        path: PathBuf,
        fix: mbank_core::findings::Fix,
    },
    /// The open project changed (a save): analyse it again.
    Reanalyse,
    /// Something for the file history overlay (a diff to compute, a restore to ask).
    History(HistoryRequest),
    /// A person's decision on an agent's proposal, for the agent worker.
    Decide(ProposalDecision),
    /// Ask the journal worker (the Changes view).
    Changes(ChangesRequest),
    /// Leave the Changes view for the screen it was opened from.
    CloseChanges,
    /// Open a proposal's text for editing; saving it accepts it as edited.
    EditProposal {
        id: u64,
        file: String,
        text: String,
    },
    /// Quit (asks first over unsaved edits).
    Quit,
}

/// One thing a key does in a context, in the order the status bar and help show them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyCommand {
    pub action: Action,
    /// Named in the status bar (navigation keys are only listed in help).
    pub hint: bool,
}

/// A command the status bar names.
pub const fn hint(action: Action) -> KeyCommand {
    KeyCommand { action, hint: true }
}

/// A command only help lists (moving around).
pub const fn quiet(action: Action) -> KeyCommand {
    KeyCommand {
        action,
        hint: false,
    }
}

/// What "yes" does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Confirmed {
    Quit,
    /// Leave the open project (unsaved edits dropped) for another.
    SwitchProject(std::path::PathBuf),
    /// Open another file in the editor, dropping the unsaved buffer (and go to `line`).
    OpenFile {
        path: std::path::PathBuf,
        memory_id: Option<String>,
        line: Option<usize>,
    },
    /// Create a bank in this folder.
    InitBank(std::path::PathBuf),
    /// `mbank init` of this project, in this format.
    InitProject {
        path: std::path::PathBuf,
        format: mbank_core::init::InitFormat,
    },
    /// Reject the whole file the review showed at this path (the prompt named the loss).
    RejectFile(std::path::PathBuf),
    /// Outside git: take the current memory as reviewed.
    MarkReviewed,
    /// Save the buffer (at this version) although it holds conflict markers.
    SaveWithMarkers {
        version: u64,
    },
    /// Bring version `version` of the file at `path` back from its history.
    RestoreVersion {
        path: std::path::PathBuf,
        version: u64,
    },
    RejectProposal(u64),
    /// Revert the whole file the Changes view showed at this path (the prompt named the
    /// loss).
    RevertChangedFile(std::path::PathBuf),
    /// Take every change the Changes view showed (survey `generation`) as reviewed.
    MarkChangesReviewed {
        generation: u64,
    },
}

impl Confirmed {
    /// The prompt's two answers in words: what "yes" does, and what the safe answer
    /// (the one enter gives) keeps.
    pub fn answers(&self) -> (&'static str, &'static str) {
        match self {
            Confirmed::Quit => ("quit, losing the edits", "keep editing"),
            Confirmed::SwitchProject(_) => ("switch, losing the edits", "stay"),
            Confirmed::OpenFile { .. } => ("open it, losing the edits", "keep editing"),
            Confirmed::InitBank(_) => ("create it", "cancel"),
            Confirmed::InitProject { .. } => ("create it", "not now"),
            Confirmed::RejectFile(_) => ("reject the file", "keep it"),
            Confirmed::MarkReviewed | Confirmed::MarkChangesReviewed { .. } => {
                ("mark reviewed", "cancel")
            }
            Confirmed::SaveWithMarkers { .. } => ("save anyway", "don't save"),
            Confirmed::RestoreVersion { .. } => ("restore it", "keep the file as it is"),
            Confirmed::RejectProposal(_) => ("reject it", "keep it waiting"),
            Confirmed::RevertChangedFile(_) => ("revert the file", "keep it"),
        }
    }
}

/// What a history diff compares the chosen version with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffBase {
    /// The file as it is on disk now.
    Now,
    /// An older version (the one before it in the history).
    Version(u64),
}

/// One diff the history overlay shows: `base` on the old side, or version `version` on
/// the old side and the file now on the new side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiffKey {
    pub version: u64,
    pub base: DiffBase,
}

/// What the history overlay asks of the app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HistoryRequest {
    /// Compute this diff of the file at `path` (off the drawing thread).
    Diff { path: PathBuf, key: DiffKey },
    /// Ask whether to restore `version` of the file at `path` (refused over unsaved edits).
    AskRestore {
        path: PathBuf,
        version: u64,
        /// What the prompt says about the version (its time and writer).
        label: String,
    },
}

/// What a person decided about a proposal an agent staged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProposalDecision {
    /// Accept it whole (`None`), or only the hunks numbered (from 1).
    Accept {
        id: u64,
        hunks: Option<Vec<usize>>,
    },
    /// Accept it as the person edited it.
    AcceptEdited {
        id: u64,
        text: String,
    },
    Reject {
        id: u64,
    },
}

impl ProposalDecision {
    pub fn id(&self) -> u64 {
        match self {
            ProposalDecision::Accept { id, .. }
            | ProposalDecision::AcceptEdited { id, .. }
            | ProposalDecision::Reject { id } => *id,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    KeepMine {
        theirs_disk: Box<EditText>,
    },
    TakeTheirs {
        theirs_disk: Box<EditText>,
    },
    Merge {
        merged: String,
        theirs_disk: Box<EditText>,
        conflicts: usize,
    },
}

/// What the worker is asked to do.
#[derive(Debug)]
pub enum ReviewRequest {
    /// Opens a session for `project` (replacing any other) and computes its review.
    Open {
        project: Project,
    },
    /// Recomputes the whole review (files appeared or vanished).
    Compute,
    /// Re-diffs one file after the watcher reported a change.
    Refresh(PathBuf),
    /// The watcher saw these paths change (`true`: the review lists it): re-diff the
    /// listed files that are still files, or recompute it all when one appeared or
    /// vanished.
    FilesChanged(Vec<(PathBuf, bool)>),
    /// An action on the file as the view last showed it (the session refuses it when
    /// the disk no longer matches).
    Act {
        action: ReviewAction,
        file: Box<FileReview>,
    },
    /// What rejecting the whole file would lose, for the confirm prompt.
    RejectLoss(Box<FileReview>),
    Undo,
    CommitMessage,
    Commit(String),
    MarkReviewed,
}

impl ReviewRequest {
    /// Whether the request changes files or the accepted side: the view waits for the
    /// fresh review that follows before taking another action.
    pub(crate) fn changes_files(&self) -> bool {
        matches!(
            self,
            ReviewRequest::Act { .. }
                | ReviewRequest::Undo
                | ReviewRequest::Commit(_)
                | ReviewRequest::MarkReviewed
        )
    }
}

/// What the Changes view asks of the journal worker.
#[derive(Debug)]
pub enum ChangesRequest {
    /// What changed in every project since it was last marked reviewed; `fresh`: list
    /// the projects and stores again first.
    Survey { fresh: bool },
    /// Take back a hunk or the whole file, as the view showed it (refused when the file
    /// changed since).
    Revert {
        change: Box<FileChange>,
        what: Revert,
    },
    /// Mark reviewed exactly what survey `generation` found (refused when a newer one
    /// found more).
    MarkReviewed { generation: u64 },
}

/// Which buffer, at which version, for which width and theme a rendering is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderKey {
    pub document: u64,
    pub version: u64,
    pub width: u16,
    pub theme: String,
}

/// An overlay a pane or controller asks for, as data: the app builds the overlay.
#[derive(Debug)]
pub enum Ask {
    /// A yes/no prompt; `on_yes` is what "yes" does.
    Confirm {
        title: String,
        body: String,
        on_yes: Confirmed,
    },
    /// The buffer against the file on disk now (`theirs`): keep mine, take theirs, merge.
    Conflict {
        path: PathBuf,
        /// What the buffer was loaded from.
        base: String,
        mine: String,
        theirs: EditText,
    },
}

//! The open file's cycle, in one controller: open (read by a job), show, save (written by
//! a job through the core's guarded write), a conflict when the disk moved on under
//! unsaved edits (backed up by a job, whichever side is kept), reload when it moved on
//! under a clean buffer; and after each frame, what the workers should prepare for the
//! next one (highlighting of the lines on screen, the preview). The editor and preview
//! panes are its views. Nothing here waits on the disk.
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};

use crate::highlight::{DocId, HighlightCache, HighlightDone, HighlightWorker};
use crate::jobs::{self, SaveJob};
use crate::message::{BackupSide, LoadError, LoadPurpose, LoadedFile, Message, SaveError};
use crate::pane::{Pane, ViewContext};
use crate::panes::editor::{self, Document, Editor};
use crate::panes::preview::{self, Preview};
use crate::panes::tree::Tree;
use crate::protocol::Focus;
use crate::protocol::{Ask, Choice, Confirmed, Effect};
use crate::theme::Theme;
use crate::widgets;
use crate::workers::{BufferCounter, Outbox, PreviewWorker};
use mbank_core::edit::Saved;
use mbank_core::findings::Fix;
use mbank_core::merge::conflict_markers;
use mbank_core::model::Project;
use mbank_core::tokens::{Encoding, TextStats};
use mbank_core::write::WriteContext;

/// How the open file is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewMode {
    Editor,
    /// Editor and preview side by side.
    Split,
    Preview,
}

/// Buffers with more lines than this are handed to the highlighter and the preview only
/// after a pause in typing.
const BIG_BUFFER_LINES: usize = 5_000;
/// How long typing must pause before a big buffer is re-highlighted.
const TYPING_PAUSE: Duration = Duration::from_millis(150);

/// The open buffer's lines at (document id, version).
type BufferSnapshot = ((u64, u64), Arc<Vec<String>>);

/// Where the user was in a project, kept for the session.
#[derive(Debug, Clone)]
struct ProjectPlace {
    path: PathBuf,
    memory_id: Option<String>,
    cursor: (usize, usize),
    top: usize,
}

/// A file asked for and not read yet.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PendingRead {
    path: PathBuf,
    memory_id: Option<String>,
    /// Move the keyboard to it once shown.
    focus: bool,
    /// Put the cursor on this line once shown.
    line: Option<usize>,
}

pub struct DocumentController {
    pub editor: Editor,
    pub preview: Preview,
    outbox: Outbox,
    counter: BufferCounter,
    previews: PreviewWorker,
    highlighter: Option<HighlightWorker>,
    /// Where the side not kept in a conflict is saved.
    backup_dir: PathBuf,
    /// How a save writes: writer `tui`, the session's history and clock.
    writes: WriteContext,
    /// The file asked for last, while it loads.
    pending: Option<PendingRead>,
    /// The file the editor shows as unreadable: read again when it changes on disk.
    unreadable: Option<(PathBuf, Option<String>)>,
    /// Reads of the open file (reload, conflict) and backups not answered yet.
    jobs: usize,
    sessions: HashMap<PathBuf, ProjectPlace>,
    /// The open buffer's lines as last handed to the workers, by (document, version).
    snapshot: Option<BufferSnapshot>,
    /// The last highlight request: document, version, visible lines.
    highlight_asked: Option<(u64, u64, std::ops::Range<usize>)>,
    /// When the buffer last changed, and when deferred worker requests are due.
    last_edit: Option<Instant>,
    work_due: Option<Instant>,
    /// What the next reload of this file says instead of "changed on disk" (a version
    /// brought back from its history names itself).
    reload_note: Option<(PathBuf, String)>,
}

/// The open file as titles name it: its file name, and an Infinity memory's id.
fn shown_name(doc: &Document) -> String {
    let name = doc
        .path
        .file_name()
        .map(mbank_core::markup::sanitize::os_str)
        .unwrap_or_default();
    match &doc.memory_id {
        Some(id) => format!("{name}#{}", widgets::shown(id)),
        None => name.to_string(),
    }
}

impl DocumentController {
    /// `modal_editor`: the editor has vim's modes (the keymap's choice).
    pub fn new(
        encoding: Encoding,
        backup_dir: PathBuf,
        modal_editor: bool,
        writes: WriteContext,
        outbox: Outbox,
    ) -> DocumentController {
        DocumentController {
            editor: Editor::new(modal_editor),
            preview: Preview::default(),
            counter: BufferCounter::spawn(encoding, outbox.clone()),
            previews: PreviewWorker::spawn(outbox.clone()),
            outbox,
            highlighter: None,
            backup_dir,
            writes,
            pending: None,
            unreadable: None,
            jobs: 0,
            sessions: HashMap::new(),
            snapshot: None,
            highlight_asked: None,
            last_edit: None,
            work_due: None,
            reload_note: None,
        }
    }

    pub fn doc(&self) -> Option<&Document> {
        self.editor.doc.as_ref()
    }

    pub fn path(&self) -> Option<&Path> {
        self.doc().map(|d| d.path.as_path())
    }

    pub fn is_dirty(&self) -> bool {
        self.editor.is_dirty()
    }

    /// Nothing shown, asked for, or failed to show.
    pub fn is_empty(&self) -> bool {
        self.editor.doc.is_none() && self.pending.is_none() && self.editor.problem.is_none()
    }

    /// No read, save or backup of the open file is outstanding.
    #[cfg(any(test, feature = "test-support"))]
    pub(crate) fn is_idle(&self) -> bool {
        self.pending.is_none() && self.jobs == 0 && self.doc().is_none_or(|d| !d.saving)
    }

    pub(crate) fn is_open(&self, path: &Path, memory_id: Option<&str>) -> bool {
        self.doc()
            .is_some_and(|d| d.path == path && d.memory_id.as_deref() == memory_id)
    }

    /// The open file's name, for prompts and toasts.
    pub fn file_name(&self) -> String {
        self.doc()
            .and_then(|d| d.path.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// Starts reading a file for the editor; the buffer is replaced once it arrives.
    pub fn open(
        &mut self,
        path: PathBuf,
        memory_id: Option<String>,
        focus: bool,
        line: Option<usize>,
    ) {
        self.pending = Some(PendingRead {
            path: path.clone(),
            memory_id: memory_id.clone(),
            focus,
            line,
        });
        jobs::load_file(path, memory_id, LoadPurpose::Open, self.outbox.clone());
    }

    /// Drops the buffer (its unsaved edits too: the user said so).
    pub fn discard(&mut self) {
        self.editor.doc = None;
    }

    /// Another project: nothing open, nothing pending.
    pub fn reset(&mut self) {
        self.editor.reset();
        self.pending = None;
        self.reload_note = None;
    }

    /// The next reload of `path`, if it is the open file, says `note`.
    pub(crate) fn note_next_reload(&mut self, path: &Path, note: String) {
        self.reload_note = self
            .doc()
            .is_some_and(|d| d.path == path)
            .then(|| (path.to_path_buf(), note));
    }

    /// Remembers where the user is in `project`'s open file, for coming back.
    pub fn remember(&mut self, project: &Path) {
        if let Some(doc) = self.doc() {
            let session = ProjectPlace {
                path: doc.path.clone(),
                memory_id: doc.memory_id.clone(),
                cursor: doc.cursor(),
                top: doc.top,
            };
            self.sessions.insert(project.to_path_buf(), session);
        }
    }

    /// Opens the file `project` had open when the user left it.
    pub fn restore(&mut self, project: &Path) {
        if let Some(session) = self.sessions.get(project).cloned() {
            self.open(session.path, session.memory_id, false, None);
        }
    }

    /// A read for the editor answered.
    pub(crate) fn on_loaded(
        &mut self,
        loaded: LoadedFile,
        tree: &mut Tree,
        mode: ViewMode,
    ) -> Vec<Effect> {
        match loaded.purpose {
            LoadPurpose::Open => self.on_opened(loaded, tree, mode),
            LoadPurpose::Reload | LoadPurpose::Conflict => {
                self.jobs = self.jobs.saturating_sub(1);
                if !self.is_open(&loaded.path, loaded.memory_id.as_deref()) {
                    return Vec::new();
                }
                match loaded.purpose {
                    LoadPurpose::Reload => self.on_reloaded(loaded),
                    _ => self.on_conflict_read(loaded),
                }
            }
        }
    }

    fn on_opened(&mut self, loaded: LoadedFile, tree: &mut Tree, mode: ViewMode) -> Vec<Effect> {
        let Some(pending) = self.pending.clone() else {
            return Vec::new();
        };
        if pending.path != loaded.path || pending.memory_id != loaded.memory_id {
            return Vec::new();
        }
        self.pending = None;
        let path = pending.path;
        let editable = match loaded.result {
            Ok(editable) => editable,
            Err(LoadError::Folder) => {
                return vec![Effect::Toast(format!("{} (a folder)", path.display()))];
            }
            Err(problem) => {
                tree.open = Some(path.clone());
                tree.changed.remove(&path);
                self.editor.doc = None;
                self.editor.problem = Some(problem.to_string());
                self.unreadable = Some((path, pending.memory_id));
                return Vec::new();
            }
        };
        self.unreadable = None;
        tree.open = Some(path.clone());
        tree.changed.remove(&path);
        let mut doc = Document::new(path.clone(), pending.memory_id.clone(), editable.edit);
        doc.read_only = editable.read_only;
        if pending.memory_id.is_some() {
            doc.locked_header = tree
                .file_report(&path, pending.memory_id.as_deref())
                .and_then(|f| f.file.memory.as_ref())
                .map(|m| {
                    format!(
                        "{} · {} (type and title are locked by the Infinity spec)",
                        widgets::shown(&m.kind),
                        widgets::shown(&m.title)
                    )
                });
        }
        let session = self
            .sessions
            .values()
            .find(|s| s.path == path && s.memory_id == pending.memory_id)
            .cloned();
        if let Some(session) = session {
            doc.buffer.set_cursor(session.cursor);
            doc.top = session.top;
        }
        if let Some(line) = pending.line {
            doc.jump_to_line(line);
        }
        self.editor.problem = None;
        self.editor.highlights = Some(HighlightCache::new(DocId(doc.id)));
        if let Some(old) = &self.editor.doc
            && let Some(highlighter) = &self.highlighter
        {
            highlighter.forget(DocId(old.id));
        }
        self.preview.pinned = false;
        self.preview.scroll = 0;
        self.editor.doc = Some(doc);
        self.refresh_budget(tree);
        self.request_count();
        if pending.focus {
            let focus = match mode {
                ViewMode::Preview => Focus::Preview,
                ViewMode::Editor | ViewMode::Split => Focus::Editor,
            };
            return vec![Effect::Focus(focus)];
        }
        Vec::new()
    }

    /// The open file changed on disk: read it again (a job), then reload a clean buffer
    /// in place or ask about a dirty one.
    /// Files changed on disk: the open file is read again when it or a folder above it
    /// changed (a deleted bank folder); a file shown as unreadable is opened again.
    pub(crate) fn on_disk_changed(&mut self, paths: &[PathBuf]) {
        let touches = |file: &Path| paths.iter().any(|p| file.starts_with(p));
        if let Some((path, memory_id)) = self.unreadable.clone()
            && touches(&path)
            && self.pending.is_none()
        {
            self.open(path, memory_id, false, None);
            return;
        }
        if self.doc().is_some_and(|d| touches(&d.path)) {
            self.reload_from_disk();
        }
    }

    pub(crate) fn reload_from_disk(&mut self) {
        if let Some((path, id)) = self.doc().map(|d| (d.path.clone(), d.memory_id.clone())) {
            self.jobs += 1;
            jobs::load_file(path, id, LoadPurpose::Reload, self.outbox.clone());
        }
    }

    fn on_reloaded(&mut self, loaded: LoadedFile) -> Vec<Effect> {
        // A note is for the one reload that follows it, whatever that finds.
        let note = self.reload_note.take();
        let Some(doc) = self.doc() else {
            return Vec::new();
        };
        let note = note
            .filter(|(path, _)| *path == doc.path)
            .map(|(_, note)| note);
        let current = match loaded.result {
            Ok(current) => current,
            Err(LoadError::Gone(_)) => {
                return vec![Effect::ToastError(format!(
                    "{} was deleted on disk; your buffer is kept (save to recreate it)",
                    doc.path.display()
                ))];
            }
            Err(problem) if doc.is_dirty() => {
                return vec![Effect::ToastError(format!(
                    "{} changed on disk and cannot be read now ({problem}); your edits stay in the editor",
                    doc.path.display()
                ))];
            }
            Err(problem) => return vec![Effect::ToastError(problem.to_string())],
        };
        if current.edit.expected == doc.disk.expected {
            return Vec::new();
        }
        if doc.is_dirty() {
            return self.conflict_with(current.edit).into_iter().collect();
        }
        let name = self.file_name();
        if let Some(doc) = &mut self.editor.doc {
            doc.reload(current.edit);
        }
        self.request_count();
        vec![Effect::Toast(note.unwrap_or_else(|| {
            format!("{name} changed on disk: reloaded")
        }))]
    }

    /// The prompt for the buffer against `theirs`, the file as it is on disk now.
    fn conflict_with(&self, theirs: mbank_core::edit::EditText) -> Option<Effect> {
        let doc = self.doc()?;
        Some(Effect::Ask(Ask::Conflict {
            path: doc.path.clone(),
            base: doc.base_text.clone(),
            mine: doc.text(),
            theirs,
        }))
    }

    fn on_conflict_read(&mut self, loaded: LoadedFile) -> Vec<Effect> {
        match loaded.result {
            Ok(theirs) => self.conflict_with(theirs.edit).into_iter().collect(),
            Err(problem) => vec![Effect::ToastError(format!(
                "{} changed on disk and cannot be read now ({problem}); your edits stay in the editor",
                loaded.path.display()
            ))],
        }
    }

    /// The budget the open file's gauge shows, from the project's report.
    pub(crate) fn refresh_budget(&mut self, tree: &Tree) {
        let Some(doc) = &mut self.editor.doc else {
            return;
        };
        if let Some(report) = tree.file_report(&doc.path, doc.memory_id.as_deref()) {
            doc.budget = report.budget.clone();
        }
        if let Some(report) = &tree.report {
            doc.set_finding_lines(&report.findings);
        }
        doc.cut = tree
            .cut_of(&doc.path)
            .filter(|_| doc.memory_id.is_none())
            .map(crate::panes::editor::LoadCutMark::of);
    }

    fn request_count(&mut self) {
        if let Some(doc) = &self.editor.doc {
            self.counter
                .count(doc.id, doc.version, editor::shared_text(doc));
        }
    }

    /// The buffer changed: count it again; highlighting follows after the frame.
    pub(crate) fn on_edited(&mut self) {
        self.last_edit = Some(Instant::now());
        self.request_count();
    }

    pub(crate) fn on_counted(&mut self, document: u64, version: u64, stats: TextStats) {
        if let Some(doc) = &mut self.editor.doc
            && doc.id == document
            && version <= doc.version
        {
            doc.stats = Some((version, stats));
        }
    }

    pub(crate) fn on_highlighted(&mut self, done: HighlightDone) {
        if let Some(cache) = &mut self.editor.highlights {
            cache.apply(done);
        }
    }

    /// Saves the buffer through the core's guarded atomic write, off this thread; a
    /// buffer that still holds conflict markers (`<<<<<<<` … `>>>>>>>`) asks first.
    pub fn save(&mut self, project: Option<&Project>) -> Vec<Effect> {
        if let Some(doc) = self.doc() {
            let markers =
                conflict_markers::find_in_lines(doc.buffer.lines().iter().map(String::as_str));
            if !markers.is_empty() {
                let line = markers
                    .first_line
                    .map(|l| format!(", the first at line {l}"))
                    .unwrap_or_default();
                return vec![Effect::Ask(Ask::Confirm {
                    title: "Save with conflict markers?".into(),
                    body: format!(
                        "{} still holds {} (<<<<<<< … ======= … >>>>>>> lines{line}). An agent would read both sides as memory. Save it anyway?",
                        self.file_name(),
                        markers.describe()
                    ),
                    on_yes: Confirmed::SaveWithMarkers {
                        version: doc.version,
                    },
                })];
            }
        }
        self.save_now(project)
    }

    /// "Yes" to saving with conflict markers: saves the buffer if it is still the one the
    /// prompt was about (else asks again).
    pub(crate) fn save_with_markers(
        &mut self,
        project: Option<&Project>,
        version: u64,
    ) -> Vec<Effect> {
        match self.doc() {
            Some(doc) if doc.version == version => self.save_now(project),
            _ => self.save(project),
        }
    }

    fn save_now(&mut self, project: Option<&Project>) -> Vec<Effect> {
        let Some(project) = project else {
            return match self.doc() {
                Some(_) => vec![Effect::ToastError("not saved: no project is open".into())],
                None => Vec::new(),
            };
        };
        let Some(doc) = &mut self.editor.doc else {
            return Vec::new();
        };
        if doc.saving {
            return Vec::new();
        }
        doc.saving = true;
        let job = SaveJob {
            project: project.clone(),
            path: doc.path.clone(),
            disk: doc.disk.clone(),
            text: doc.text(),
            version: doc.version,
            ctx: self.writes.clone(),
        };
        jobs::save(job, self.outbox.clone());
        Vec::new()
    }

    /// Applies a finding's fix to the file at `path`, saved by a job like the editor's
    /// save. Refused while the editor holds unsaved edits of that file (the fix would
    /// turn them into a conflict).
    pub(crate) fn apply_fix(
        &mut self,
        project: Option<&Project>,
        path: PathBuf,
        fix: Fix,
    ) -> Vec<Effect> {
        let Some(project) = project else {
            return vec![Effect::ToastError("not fixed: no project is open".into())];
        };
        if let Some(doc) = self.doc()
            && doc.path == path
            && (doc.is_dirty() || doc.saving)
        {
            return vec![Effect::ToastError(format!(
                "not fixed: {} has unsaved edits in the editor; save or undo them first",
                self.file_name()
            ))];
        }
        self.jobs += 1;
        let ctx = self.writes.clone();
        jobs::apply_fix(ctx, project.clone(), path, fix, self.outbox.clone());
        Vec::new()
    }

    /// A fix was saved (the open file, if it is the one, shows it) or refused.
    pub(crate) fn on_fix_applied(
        &mut self,
        path: PathBuf,
        fix: Fix,
        result: Result<Box<Saved>, String>,
    ) -> Vec<Effect> {
        self.jobs = self.jobs.saturating_sub(1);
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        match result {
            Ok(saved) => {
                if let Some(doc) = &mut self.editor.doc
                    && doc.path == path
                    && doc.memory_id.is_none()
                    && !doc.is_dirty()
                {
                    doc.reload(saved.now);
                    self.request_count();
                }
                vec![
                    Effect::Toast(format!(
                        "fixed {name}:{}: `{}` is now `{}`",
                        fix.line, fix.replace, fix.with
                    )),
                    Effect::Reanalyse,
                ]
            }
            Err(problem) => vec![Effect::ToastError(format!("{name} not fixed: {problem}"))],
        }
    }

    pub(crate) fn on_saved(
        &mut self,
        path: PathBuf,
        version: u64,
        text: String,
        result: Result<Box<Saved>, SaveError>,
    ) -> Vec<Effect> {
        let Some(doc) = &mut self.editor.doc else {
            return Vec::new();
        };
        if doc.path != path {
            return Vec::new();
        }
        doc.saving = false;
        match result {
            Ok(saved) => {
                let ownership_kept = saved.outcome.ownership_kept;
                doc.mark_saved(text, saved.now, version);
                let name = self.file_name();
                let toast = if ownership_kept {
                    format!("saved {name}")
                } else {
                    format!("saved {name}; it is now yours: its owner or group could not be kept")
                };
                vec![Effect::Toast(toast), Effect::Reanalyse]
            }
            Err(SaveError::Conflict) => {
                // Read what is on disk now, then ask.
                self.jobs += 1;
                let (path, id) = (doc.path.clone(), doc.memory_id.clone());
                jobs::load_file(path, id, LoadPurpose::Conflict, self.outbox.clone());
                Vec::new()
            }
            Err(SaveError::Other(problem)) => {
                vec![Effect::ToastError(format!("not saved: {problem}"))]
            }
        }
    }

    /// Applies the user's choice in a conflict; the side not kept is backed up by a job.
    pub(crate) fn resolve_conflict(
        &mut self,
        choice: Choice,
        project: Option<&Project>,
    ) -> Vec<Effect> {
        let Some(doc) = &mut self.editor.doc else {
            return Vec::new();
        };
        let path = doc.path.clone();
        let (side, bytes, effects) = match choice {
            Choice::KeepMine { theirs_disk } => {
                // The next save replaces their version, which is kept as a backup first.
                let bytes = theirs_disk.disk_bytes();
                doc.disk = *theirs_disk;
                doc.version += 1;
                (BackupSide::Theirs, bytes, Vec::new())
            }
            Choice::TakeTheirs { theirs_disk } => {
                let mine = doc.disk.encode(&doc.text()).into_bytes();
                doc.reload(*theirs_disk);
                (BackupSide::MineBeforeTakingTheirs, mine, Vec::new())
            }
            Choice::Merge {
                merged,
                theirs_disk,
                conflicts,
            } => {
                let mine = doc.disk.encode(&doc.text()).into_bytes();
                // One undo step takes the merge back to the buffer as it was.
                doc.replace_text(&merged);
                doc.disk = *theirs_disk;
                // Start where there is something to resolve, not at the top.
                if let Some(row) = merged.lines().position(|l| l.starts_with("<<<<<<<")) {
                    doc.jump_to_line(row + 1);
                }
                let toast = if conflicts > 0 {
                    format!(
                        "merged with {} marked <<<<<<< … >>>>>>>: resolve them, then save",
                        mbank_core::io::text::counted(conflicts, "conflict")
                    )
                } else {
                    "merged cleanly: review, then save".to_string()
                };
                let effects = vec![Effect::Focus(Focus::Editor), Effect::Toast(toast)];
                (BackupSide::MineBeforeMerging, mine, effects)
            }
        };
        self.jobs += 1;
        jobs::back_up(
            self.backup_dir.clone(),
            project.map(|p| p.name.clone()).unwrap_or_default(),
            path,
            bytes,
            side,
            self.writes.clock,
            self.outbox.clone(),
        );
        if side != BackupSide::Theirs {
            self.request_count();
        }
        effects
    }

    pub(crate) fn on_backed_up(
        &mut self,
        side: BackupSide,
        result: Result<PathBuf, String>,
    ) -> Vec<Effect> {
        self.jobs = self.jobs.saturating_sub(1);
        let toast = match (side, result) {
            (BackupSide::Theirs, Ok(path)) => Effect::Toast(format!(
                "kept your edits; their version is saved in {}",
                path.display()
            )),
            (BackupSide::Theirs, Err(e)) => {
                Effect::ToastError(format!("kept your edits; could not back up theirs: {e}"))
            }
            (BackupSide::MineBeforeTakingTheirs, Ok(path)) => Effect::Toast(format!(
                "took their version; your edits are saved in {}",
                path.display()
            )),
            (BackupSide::MineBeforeTakingTheirs, Err(e)) => {
                Effect::ToastError(format!("took their version; could not back up yours: {e}"))
            }
            // The merge said what it did; only a failed backup needs saying.
            (BackupSide::MineBeforeMerging, Ok(_)) => return Vec::new(),
            (BackupSide::MineBeforeMerging, Err(e)) => {
                Effect::ToastError(format!("could not back up your edits before merging: {e}"))
            }
        };
        vec![toast]
    }

    /// Where `$EDITOR` may edit the open file, or why not.
    pub(crate) fn external_target(&self) -> Result<PathBuf, &'static str> {
        let Some(doc) = self.doc() else {
            return Err("open a file first");
        };
        if doc.memory_id.is_some() {
            return Err("Infinity memories are edited here, not in $EDITOR (the store is JSON)");
        }
        if doc.is_dirty() {
            return Err("save your edits before opening $EDITOR");
        }
        Ok(doc.path.clone())
    }

    /// A new theme: highlighting starts over in its colours.
    pub(crate) fn set_theme(&mut self, theme: &Theme) {
        if let Some(highlighter) = &self.highlighter {
            highlighter.set_syntax_theme(&theme.syntax);
        }
        if let Some(cache) = &mut self.editor.highlights {
            cache.clear();
        }
        self.highlight_asked = None;
    }

    pub(crate) fn work_due(&self) -> Option<Instant> {
        self.work_due
    }

    pub fn take_due_work(&mut self, now: Instant) -> bool {
        match self.work_due {
            Some(due) if due <= now => {
                self.work_due = None;
                true
            }
            _ => false,
        }
    }

    /// Draws the document as `mode` says: the editor, the preview, or both side by side.
    /// `focus` is the pane with the keyboard (none under an overlay); `base` gives the
    /// theme, keys and clock.
    pub fn view(
        &mut self,
        frame: &mut Frame,
        area: Rect,
        mode: ViewMode,
        base: &ViewContext,
        focus: Option<Focus>,
    ) {
        let (editor_area, preview_area) = match mode {
            ViewMode::Editor => (Some(area), None),
            ViewMode::Preview => (None, Some(area)),
            ViewMode::Split => {
                let [left, right] =
                    Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
                        .areas(area);
                (Some(left), Some(right))
            }
        };
        let cx = |pane| ViewContext {
            focused: focus == Some(pane),
            ..*base
        };
        if let Some(part) = editor_area {
            self.editor.view(frame, part, &cx(Focus::Editor));
        }
        if let Some(part) = preview_area {
            // Beside the editor, the preview follows its cursor.
            let follow = (mode == ViewMode::Split)
                .then(|| self.doc().map(|d| d.cursor().0 + 1))
                .flatten();
            self.preview.source = self.doc().map(|d| preview::PreviewSource {
                document: d.id,
                version: d.version,
                follow,
            });
            self.preview.name = self.doc().map(shown_name).unwrap_or_default();
            self.preview.problem = self.editor.problem.clone();
            self.preview.finding_lines = self
                .doc()
                .map(|d| d.finding_lines.clone())
                .unwrap_or_default();
            self.preview.cut_line = self
                .doc()
                .and_then(|d| d.cut.as_ref())
                .map(|c| c.first_line);
            self.preview.view(frame, part, &cx(Focus::Preview));
        }
    }

    /// The highlight worker, started with the first file shown: loading syntect's
    /// grammars is slow, and nothing needs them before a file is open.
    fn highlighter(&mut self, theme: &Theme) -> Option<&HighlightWorker> {
        if self.highlighter.is_none() {
            let outbox = self.outbox.clone();
            self.highlighter = HighlightWorker::spawn(&theme.syntax, move |done| {
                let _ = outbox.send(Message::Highlighted(done));
            })
            .ok();
        }
        self.highlighter.as_ref()
    }

    /// The open buffer's lines, shared with the workers; cloned once per version.
    fn snapshot(&mut self) -> Option<Arc<Vec<String>>> {
        let doc = self.editor.doc.as_ref()?;
        let key = (doc.id, doc.version);
        match &self.snapshot {
            Some((k, lines)) if *k == key => Some(lines.clone()),
            _ => {
                let lines = Arc::new(doc.buffer.lines().to_vec());
                self.snapshot = Some((key, lines.clone()));
                Some(lines)
            }
        }
    }

    /// After a draw that showed the document as `showing` (none: it was not shown), ask
    /// the workers for what the next frame will want.
    pub fn after_draw(&mut self, showing: Option<ViewMode>, theme: &Theme, now: Instant) {
        let Some(mode) = showing else {
            return;
        };
        let Some((id, version, lines)) = self
            .doc()
            .map(|d| (d.id, d.version, d.buffer.lines().len()))
        else {
            return;
        };
        // Copying a big buffer for the workers on every keystroke would slow typing; wait
        // for a pause (unchanged lines keep their colours meanwhile).
        if let Some(edited) = self.last_edit
            && lines > BIG_BUFFER_LINES
            && now.saturating_duration_since(edited) < TYPING_PAUSE
            && self
                .highlight_asked
                .as_ref()
                .is_some_and(|(d, v, _)| *d == id && *v != version)
        {
            self.work_due = Some(edited + TYPING_PAUSE);
            return;
        }
        if mode != ViewMode::Preview
            && let Some(visible) = self.editor.visible_range()
        {
            let asked = Some((id, version, visible.clone()));
            if self.highlight_asked != asked
                && let Some(lines) = self.snapshot()
                && let Some(highlighter) = self.highlighter(theme)
            {
                highlighter.request(DocId(id), version, lines, visible);
                self.highlight_asked = asked;
            }
        }
        if mode != ViewMode::Editor
            && self.preview.width > 0
            && let Some(key) = self.preview.render_key(self.preview.width, &theme.name)
            && self.preview.wanted(&key)
            && let Some(lines) = self.snapshot()
        {
            self.preview.requested = Some(key.clone());
            let text = Arc::new(editor::join_lines(&lines));
            self.previews.render(key, text, theme.clone());
        }
    }
}

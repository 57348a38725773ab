//! The application: one state, one message type, one `update`, one `view`.
//!
//! Input, worker results and file-system events all arrive as [`Message`]s on one
//! channel. `update` changes state and starts background jobs; `view` only draws.
//! Overlays sit on a stack above the panes and get keys first; then the focused pane's
//! keymap context, then the global one.
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossterm::event::{KeyEvent, KeyEventKind, MouseButton, MouseEvent, MouseEventKind};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

use crate::core::config::Config;
use crate::core::edit;
use crate::core::model::Project;
use crate::core::review::{FileReview, ReviewOptions};
use crate::core::tokens::Encoding;

use super::highlight::{DocId, HighlightCache, HighlightWorker};
use super::keymap::{Action, KeyChord, KeyContext, Keymap};
use super::message::{ActError, LoadedFile, Message, ReviewEvent, SaveError};
use super::overlays::commit::{self, CommitEditor};
use super::overlays::confirm::{Answer, Confirm, Confirmed};
use super::overlays::help::Help;
use super::overlays::{Overlay, conflict};
use super::panes::preview::{self, RenderKey};
use super::panes::{editor, findings, picker, review, timeline, tree};
use super::review_worker::{ReviewRequest, ReviewWorker};
use super::theme::Theme;
use super::watcher::Watcher;
use super::widgets;
use super::workers::{self, AnalysisWorker, BufferCounter, Outbox, PreviewWorker};

/// What the right-hand area shows for the open file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewMode {
    Editor,
    /// Editor and preview side by side.
    Split,
    Preview,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    Picker,
    Project,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    Tree,
    Editor,
    Preview,
    Timeline,
    Findings,
    Review,
}

/// What the TUI starts with.
pub struct Options {
    pub root: PathBuf,
    /// Why the root cannot be used, when it cannot (shown in the picker).
    pub root_problem: Option<String>,
    pub config: Arc<Config>,
    pub encoding: Encoding,
    pub theme: Theme,
    pub keymap: Keymap,
    /// The demo copy's folder, shown in the status bar.
    pub demo_path: Option<PathBuf>,
    /// Watch the file system (tests switch it off to stay deterministic).
    pub watch: bool,
    /// Where the config lives (for user themes).
    pub config_dir: Option<PathBuf>,
    /// Where the side not kept in a conflict is saved.
    pub backup_dir: PathBuf,
    /// What review sessions open with (encoding and budgets come from the config; tests
    /// give a hermetic git environment and data folder).
    pub review: ReviewOptions,
}

/// A transient message in the corner.
pub struct Toast {
    pub text: String,
    pub error: bool,
    pub until: Instant,
}

/// Where the user was in a project, kept for the session.
#[derive(Debug, Clone)]
struct Session {
    path: PathBuf,
    memory_id: Option<String>,
    cursor: (usize, usize),
    top: usize,
}

/// Buffers with more lines than this are handed to the highlighter and the preview only
/// after a pause in typing.
const BIG_BUFFER_LINES: usize = 5_000;
/// How long typing must pause before a big buffer is re-highlighted.
const TYPING_PAUSE: Duration = Duration::from_millis(150);

/// The open buffer's lines at (document id, version).
type Snapshot = ((u64, u64), Arc<Vec<String>>);

/// What the loop must do outside `update` (it needs the terminal).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum External {
    /// Suspend the UI and open this file in `$EDITOR`.
    Edit(PathBuf),
}

pub struct App {
    pub theme: Theme,
    pub keymap: Keymap,
    config_dir: Option<PathBuf>,
    backup_dir: PathBuf,
    pub root: PathBuf,
    pub demo_path: Option<PathBuf>,
    pub encoding: Encoding,
    pub screen: Screen,
    pub focus: Focus,
    pub show_findings: bool,
    pub picker: picker::Picker,
    pub project: Option<Project>,
    pub tree: tree::Tree,
    pub editor: editor::Editor,
    pub findings: findings::Findings,
    pub timeline: timeline::Timeline,
    pub preview: preview::Preview,
    pub view_mode: ViewMode,
    /// The right-hand area shows the decision timeline instead of the open file.
    pub show_timeline: bool,
    pub review: review::ReviewPane,
    /// The right-hand area shows the review of the open project.
    pub show_review: bool,
    review_worker: ReviewWorker,
    /// The file a "reject file" prompt is about, as it was shown.
    pending_reject: Option<Box<FileReview>>,
    pub overlays: Vec<Overlay>,
    pub toasts: Vec<Toast>,
    pub quit: bool,
    pub external: Option<External>,
    sessions: HashMap<PathBuf, Session>,
    /// The file the tree asked for last, while it loads.
    pending_open: Option<(PathBuf, Option<String>, bool)>,
    /// Line to jump to once the pending file is loaded.
    pending_line: Option<usize>,
    scan_generation: u64,
    outbox: Outbox,
    analysis: AnalysisWorker,
    counter: BufferCounter,
    previews: PreviewWorker,
    highlighter: Option<HighlightWorker>,
    /// The open buffer's lines as last handed to the workers, by (document, version).
    snapshot: Option<Snapshot>,
    /// The last highlight request: document, version, visible lines.
    highlight_asked: Option<(u64, u64, std::ops::Range<usize>)>,
    /// When the buffer last changed, and when deferred worker requests are due.
    last_edit: Option<Instant>,
    work_due: Option<Instant>,
    watcher: Option<Watcher>,
    /// Areas at the last draw, for the mouse.
    areas: Areas,
    config: Arc<Config>,
}

#[derive(Default, Clone, Copy)]
struct Areas {
    picker: Rect,
    tree: Rect,
    editor: Rect,
    preview: Rect,
    findings: Rect,
}

impl App {
    pub fn new(options: Options, outbox: Outbox) -> App {
        let analysis =
            AnalysisWorker::spawn(options.config.clone(), options.encoding, outbox.clone());
        Self::with_worker(options, outbox, analysis)
    }

    /// With a given analysis worker (tests give one with an in-memory cache).
    pub fn with_worker(options: Options, outbox: Outbox, analysis: AnalysisWorker) -> App {
        let counter = BufferCounter::spawn(options.encoding, outbox.clone());
        let previews = PreviewWorker::spawn(outbox.clone());

        let watcher = if options.watch {
            match Watcher::spawn(outbox.clone()) {
                Ok(w) => Some(w),
                Err(e) => {
                    let _ = outbox.send(Message::WatchProblem(e));
                    None
                }
            }
        } else {
            None
        };
        let review_options = ReviewOptions {
            encoding: options.encoding,
            budgets: options.config.budgets.clone(),
            ..options.review
        };
        let review_worker = ReviewWorker::spawn(review_options, outbox.clone());
        let mut picker = picker::Picker::new(options.root.clone());
        picker.root_problem = options.root_problem.clone();
        picker.scanning = options.root_problem.is_none();
        App {
            theme: options.theme,
            keymap: options.keymap,
            config_dir: options.config_dir,
            backup_dir: options.backup_dir,
            root: options.root,
            demo_path: options.demo_path,
            encoding: options.encoding,
            screen: Screen::Picker,
            focus: Focus::Tree,
            show_findings: false,
            picker,
            project: None,
            tree: tree::Tree::default(),
            editor: editor::Editor::default(),
            findings: findings::Findings::default(),
            timeline: timeline::Timeline::default(),
            show_timeline: false,
            review: review::ReviewPane::default(),
            show_review: false,
            review_worker,
            pending_reject: None,
            preview: preview::Preview::default(),
            view_mode: ViewMode::Editor,
            overlays: Vec::new(),
            toasts: Vec::new(),
            quit: false,
            external: None,
            sessions: HashMap::new(),
            pending_open: None,
            pending_line: None,
            scan_generation: 0,
            outbox,
            analysis,
            counter,
            previews,
            highlighter: None,
            snapshot: None,
            highlight_asked: None,
            last_edit: None,
            work_due: None,
            watcher,
            areas: Areas::default(),
            config: options.config,
        }
    }

    /// True once the picker shows the scan's result (projects, or why there are none).
    pub fn shows_projects(&self) -> bool {
        !self.picker.scanning
    }

    /// True when live refresh is off or watches every folder asked for so far.
    pub fn watches_settled(&self) -> bool {
        self.watcher.as_ref().is_none_or(Watcher::is_settled)
    }

    /// Starts the first scan (unless the root is unusable).
    pub fn start(&mut self) {
        if self.picker.root_problem.is_none() {
            self.rescan();
        }
    }

    fn rescan(&mut self) {
        self.scan_generation += 1;
        let options = crate::core::discovery::ScanOptions {
            depth: self.config.scan_depth,
            ignore: self.config.ignore_set.clone(),
        };
        workers::scan(
            self.root.clone(),
            options,
            self.scan_generation,
            self.outbox.clone(),
        );
    }

    /// A short message in the corner; names in it are drawn with their hidden characters
    /// shown (every toast passes [`widgets::shown`] here).
    pub fn toast(&mut self, text: impl Into<String>) {
        self.toasts.push(Toast {
            text: widgets::shown(&text.into()).into_owned(),
            error: false,
            until: Instant::now() + Duration::from_secs(4),
        });
    }

    pub fn toast_error(&mut self, text: impl Into<String>) {
        self.toasts.push(Toast {
            text: widgets::shown(&text.into()).into_owned(),
            error: true,
            until: Instant::now() + Duration::from_secs(8),
        });
    }

    /// When the loop must wake up without input (a toast to expire).
    pub fn next_deadline(&self) -> Option<Instant> {
        self.toasts
            .iter()
            .map(|t| t.until)
            .chain(self.work_due)
            .min()
    }

    /// True once deferred work (highlighting and preview of a big buffer after a burst of
    /// typing) is due: the loop then draws, and `after_draw` asks the workers.
    pub fn take_due_work(&mut self, now: Instant) -> bool {
        match self.work_due {
            Some(due) if due <= now => {
                self.work_due = None;
                true
            }
            _ => false,
        }
    }

    /// Drops expired toasts; true when something changed on screen.
    pub fn expire_toasts(&mut self, now: Instant) -> bool {
        let before = self.toasts.len();
        self.toasts.retain(|t| t.until > now);
        before != self.toasts.len()
    }

    /// The keymap context that has the keyboard now.
    pub fn key_context(&self) -> KeyContext {
        if let Some(overlay) = self.overlays.last() {
            return overlay.context();
        }
        match self.screen {
            Screen::Picker => KeyContext::Picker,
            Screen::Project => match self.focus {
                Focus::Tree => KeyContext::Tree,
                Focus::Editor => KeyContext::Editor,
                Focus::Preview => KeyContext::Preview,
                Focus::Timeline => KeyContext::Timeline,
                Focus::Findings => KeyContext::Findings,
                Focus::Review => KeyContext::Review,
            },
        }
    }

    pub fn update(&mut self, message: Message) {
        match message {
            Message::Key(key) => {
                if key.kind != KeyEventKind::Release {
                    self.on_key(key);
                }
            }
            Message::Mouse(mouse) => self.on_mouse(mouse),
            Message::Paste(text) => {
                if self.overlays.is_empty()
                    && self.screen == Screen::Project
                    && self.focus == Focus::Editor
                {
                    let command = self.editor.update(editor::Msg::Paste(text));
                    self.on_editor_command(command);
                }
            }
            Message::Resize => {}
            Message::Scanned {
                generation,
                projects,
            } => {
                if generation != self.scan_generation {
                    return;
                }
                self.analysis.summaries(generation, projects.clone());
                // A project that vanished closes; one whose banks changed is refreshed.
                if let Some(open) = &self.project {
                    match projects.iter().find(|p| p.path == open.path) {
                        Some(fresh) => {
                            if fresh.banks != open.banks {
                                self.project = Some(fresh.clone());
                                self.analysis.full(fresh.clone());
                            }
                        }
                        None => {
                            self.toast_error(format!("{} is gone from the root", open.name));
                        }
                    }
                }
                self.picker.set_projects(projects);
                self.update_watches();
            }
            Message::Summary {
                generation,
                index,
                report,
                ..
            } => {
                if generation == self.scan_generation {
                    self.picker.set_report(index, report);
                }
            }
            Message::Analyzed { report, contexts } => {
                if self.project.as_ref().is_some_and(|p| p.path == report.path) {
                    self.picker.update_report(&report);
                    self.findings.set(&report.path, report.findings.clone());
                    self.timeline
                        .set(report.decisions.clone(), &report.findings);
                    self.tree.set_report(*report, contexts);
                    self.refresh_document_budget();
                    // Show the selected file straight away, so the project opens on content.
                    if self.editor.doc.is_none()
                        && self.pending_open.is_none()
                        && self.editor.problem.is_none()
                        && let Some((path, memory_id)) = self.tree.selected_file()
                    {
                        self.open_file(path, memory_id, false);
                    }
                    self.update_watches();
                }
            }
            Message::FileLoaded(loaded) => self.on_file_loaded(loaded),
            Message::Saved {
                path,
                version,
                text,
                result,
            } => self.on_saved(path, version, text, result),
            Message::BufferCounted {
                document,
                version,
                stats,
            } => {
                if let Some(doc) = &mut self.editor.doc
                    && doc.id == document
                    && version <= doc.version
                {
                    doc.stats = Some((version, stats));
                }
            }
            Message::Highlighted(done) => {
                if let Some(cache) = &mut self.editor.highlights {
                    cache.apply(done);
                }
            }
            Message::PreviewRendered { key, rendered } => self.preview.accept(key, *rendered),
            Message::FilesChanged(paths) => self.on_files_changed(paths),
            Message::WatchProblem(problem) => {
                self.toast_error(format!("live refresh is off: {problem}"));
            }
            Message::Review(event) => self.on_review_event(event),
        }
    }

    fn on_key(&mut self, key: KeyEvent) {
        let chord = KeyChord::from_event(&key);
        let context = self.key_context();
        let action = self.keymap.resolve(context, &chord);
        if !self.overlays.is_empty() {
            self.on_overlay_key(key, action);
            return;
        }
        match self.screen {
            Screen::Picker => self.on_picker_key(key, action),
            Screen::Project => self.on_project_key(key, action),
        }
    }

    fn on_overlay_key(&mut self, key: KeyEvent, action: Option<Action>) {
        let Some(overlay) = self.overlays.last_mut() else {
            return;
        };
        match overlay {
            Overlay::Help(help) => {
                if let Some(action) = action
                    && help.update(action)
                {
                    self.overlays.pop();
                }
            }
            Overlay::Confirm(confirm) => {
                if let Some(answer) = action.and_then(|a| confirm.update(a)) {
                    self.overlays.pop();
                    if let Answer::Yes(confirmed) = answer {
                        self.on_confirmed(confirmed);
                    }
                }
            }
            Overlay::Conflict(conflict) => {
                if let Some(choice) = action.and_then(|a| conflict.update(a)) {
                    self.overlays.pop();
                    self.on_conflict_choice(choice);
                }
            }
            Overlay::Commit(editor) => {
                let own = self
                    .keymap
                    .lookup(KeyContext::CommitMessage, &KeyChord::from_event(&key));
                match editor.update(own, key) {
                    Some(commit::Outcome::Commit(message)) => {
                        self.review.busy = true;
                        self.review_worker.send(ReviewRequest::Commit(message));
                    }
                    Some(commit::Outcome::Cancel) => {
                        self.overlays.pop();
                    }
                    None => {}
                }
            }
        }
    }

    /// Global actions, whatever pane is focused.
    fn on_global(&mut self, action: Action) -> bool {
        match action {
            Action::Quit => self.request_quit(),
            Action::Help => self
                .overlays
                .push(Overlay::Help(Help::new(self.key_context()))),
            Action::OpenPicker => {
                if self.screen == Screen::Project {
                    self.screen = Screen::Picker;
                    self.picker.clear_filter();
                    if let Some(project) = &self.project {
                        self.picker.select_path(&project.path.clone());
                    }
                }
            }
            Action::NextTheme => self.next_theme(),
            Action::FocusNext | Action::FocusPrev if self.screen == Screen::Project => {
                self.cycle_focus(action == Action::FocusNext);
            }
            Action::ToggleFindings if self.screen == Screen::Project => {
                self.show_findings = !self.show_findings;
                self.focus = if self.show_findings {
                    Focus::Findings
                } else {
                    Focus::Tree
                };
            }
            Action::OpenExternal if self.screen == Screen::Project => self.open_external(),
            Action::ShowReview if self.screen == Screen::Project => {
                if self.show_review {
                    self.show_review = false;
                    self.focus = Focus::Tree;
                } else {
                    self.open_review();
                }
            }
            Action::CycleView if self.screen == Screen::Project => {
                self.show_review = false;
                self.view_mode = match self.view_mode {
                    ViewMode::Editor => ViewMode::Split,
                    ViewMode::Split => ViewMode::Preview,
                    ViewMode::Preview => ViewMode::Editor,
                };
                self.show_timeline = false;
                self.preview.pinned = false;
                self.focus = match (self.view_mode, self.focus) {
                    (ViewMode::Preview, Focus::Editor) => Focus::Preview,
                    (ViewMode::Editor, Focus::Preview) => Focus::Editor,
                    (_, focus) => focus,
                };
            }
            Action::ShowTimeline if self.screen == Screen::Project => {
                self.show_review = false;
                self.show_timeline = !self.show_timeline;
                self.focus = if self.show_timeline {
                    Focus::Timeline
                } else {
                    Focus::Tree
                };
            }
            _ => return false,
        }
        true
    }

    fn cycle_focus(&mut self, forward: bool) {
        let mut order = vec![Focus::Tree];
        if self.show_review {
            order.push(Focus::Review);
        } else if self.show_timeline {
            order.push(Focus::Timeline);
        } else {
            match self.view_mode {
                ViewMode::Editor => order.push(Focus::Editor),
                ViewMode::Split => order.extend([Focus::Editor, Focus::Preview]),
                ViewMode::Preview => order.push(Focus::Preview),
            }
        }
        if self.show_findings {
            order.push(Focus::Findings);
        }
        let position = order.iter().position(|f| *f == self.focus).unwrap_or(0);
        let next = if forward {
            (position + 1) % order.len()
        } else {
            (position + order.len() - 1) % order.len()
        };
        self.focus = order[next];
    }

    fn next_theme(&mut self) {
        let name = Theme::next_bundled(&self.theme.name);
        match Theme::load(name, self.config_dir.as_deref()) {
            Ok(theme) => {
                if let Some(highlighter) = &self.highlighter {
                    highlighter.set_syntax_theme(&theme.syntax);
                }
                if let Some(cache) = &mut self.editor.highlights {
                    cache.clear();
                }
                self.highlight_asked = None;
                self.theme = theme;
                self.toast(format!("theme: {name}"));
            }
            Err(e) => self.toast_error(e.to_string()),
        }
    }

    fn request_quit(&mut self) {
        if self.editor.is_dirty() {
            let name = self.open_file_name();
            self.overlays.push(Overlay::Confirm(Confirm {
                title: "Quit?".into(),
                message: format!("Your unsaved edits to {name} will be lost."),
                on_yes: Confirmed::Quit,
            }));
        } else {
            self.quit = true;
        }
    }

    fn open_file_name(&self) -> String {
        self.editor
            .doc
            .as_ref()
            .and_then(|d| d.path.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    fn on_picker_key(&mut self, key: KeyEvent, action: Option<Action>) {
        use crossterm::event::KeyCode;
        let command = match action {
            Some(action)
                if self
                    .keymap
                    .lookup(KeyContext::Picker, &KeyChord::from_event(&key))
                    .is_some() =>
            {
                self.picker.update(picker::Msg::Action(action))
            }
            Some(action) => {
                self.on_global(action);
                None
            }
            None => match key.code {
                KeyCode::Char(c) if KeyChord::from_event(&key).is_printable() => {
                    self.picker.update(picker::Msg::Type(c))
                }
                KeyCode::Backspace => self.picker.update(picker::Msg::Erase),
                _ => None,
            },
        };
        self.on_picker_command(command);
    }

    fn on_picker_command(&mut self, command: Option<picker::Command>) {
        match command {
            Some(picker::Command::Open(path)) => self.open_project(&path),
            Some(picker::Command::Back) if self.project.is_some() => {
                self.screen = Screen::Project;
            }
            Some(picker::Command::Back) => {}

            Some(picker::Command::OpenDemo) => self.open_demo(),
            Some(picker::Command::InitBank) => self.ask_init_bank(),
            None => {}
        }
    }

    fn open_demo(&mut self) {
        match crate::core::demo::create() {
            Ok(demo) => {
                // The copy lives until the user deletes it: they may keep editing it.
                let path = demo.keep();
                self.root = path.clone();
                self.demo_path = Some(path.clone());
                self.picker = picker::Picker::new(path);
                self.project = None;
                self.rescan();
                self.toast("opened a fresh copy of the demo banks");
            }
            Err(e) => self.toast_error(format!("cannot create the demo: {e}")),
        }
    }

    fn ask_init_bank(&mut self) {
        let name = if self.picker.filter.trim().is_empty() {
            "my-project".to_string()
        } else {
            self.picker.filter.trim().replace(['/', '\\'], "-")
        };
        let path = self.root.join(&name);
        self.overlays.push(Overlay::Confirm(Confirm {
            title: "Create a memory bank?".into(),
            message: format!(
                "Create a Cline memory bank (seven template files) in {}? Existing files are never overwritten. (Type a name in the filter first to choose the folder.)",
                path.display()
            ),
            on_yes: Confirmed::InitBank(path),
        }));
    }

    fn on_confirmed(&mut self, confirmed: Confirmed) {
        match confirmed {
            Confirmed::Quit => self.quit = true,
            Confirmed::SwitchProject(path) => {
                self.editor.doc = None;
                self.open_project(&path);
            }
            Confirmed::OpenFile {
                path,
                memory_id,
                focus,
            } => {
                self.editor.doc = None;
                self.open_file(path, memory_id, focus);
            }
            Confirmed::RejectFile(path) => match self.pending_reject.take() {
                Some(file) if file.path == path => {
                    self.review.busy = true;
                    self.review_worker.send(ReviewRequest::Act {
                        action: super::message::ReviewAction::RejectFile,
                        file,
                    });
                }
                _ => self
                    .toast_error("the review changed since you were asked; nothing was rejected"),
            },
            Confirmed::MarkReviewed => {
                self.review.busy = true;
                self.review_worker.send(ReviewRequest::MarkReviewed);
            }
            Confirmed::InitBank(path) => {
                match crate::core::init::init_bank(
                    &path,
                    crate::core::init::InitFormat::Cline,
                    None,
                ) {
                    Ok(_) => {
                        self.toast(format!("created a memory bank in {}", path.display()));
                        self.rescan();
                    }
                    Err(e) => self.toast_error(format!("cannot create the bank: {e}")),
                }
            }
        }
    }

    /// Opens a project, asking first when the editor holds unsaved edits.
    pub fn open_project(&mut self, path: &Path) {
        if self.project.as_ref().is_some_and(|p| p.path == path) {
            self.screen = Screen::Project;
            return;
        }
        if self.editor.is_dirty() {
            let name = self.open_file_name();
            self.overlays.push(Overlay::Confirm(Confirm {
                title: "Switch project?".into(),
                message: format!("Your unsaved edits to {name} will be lost."),
                on_yes: Confirmed::SwitchProject(path.to_path_buf()),
            }));
            return;
        }
        let Some(project) = self.picker.project(path).cloned() else {
            return;
        };
        self.remember_session();
        self.picker.current = Some(project.path.clone());
        self.tree = tree::Tree::default();
        self.editor = editor::Editor::default();
        self.findings = findings::Findings::default();
        self.timeline = timeline::Timeline::default();
        self.show_timeline = false;
        self.show_review = false;
        self.review = review::ReviewPane::default();
        self.pending_open = None;
        if let Some(session) = self.sessions.get(&project.path).cloned() {
            self.pending_open = Some((session.path.clone(), session.memory_id.clone(), false));
            self.pending_line = None;
            workers::load_file(session.path, session.memory_id, self.outbox.clone());
        }
        self.analysis.full(project.clone());
        self.project = Some(project);
        self.screen = Screen::Project;
        self.focus = Focus::Tree;
        self.update_watches();
    }

    fn remember_session(&mut self) {
        if let (Some(project), Some(doc)) = (&self.project, &self.editor.doc) {
            self.sessions.insert(
                project.path.clone(),
                Session {
                    path: doc.path.clone(),
                    memory_id: doc.memory_id.clone(),
                    cursor: doc.cursor(),
                    top: doc.top,
                },
            );
        }
    }

    fn on_project_key(&mut self, key: KeyEvent, action: Option<Action>) {
        let chord = KeyChord::from_event(&key);
        let context = self.key_context();
        let own = self.keymap.lookup(context, &chord);
        match self.focus {
            Focus::Editor => {
                // The search prompt takes every key while it is open.
                if self.editor.search.is_some() {
                    let command = self.editor.update(editor::Msg::Key(key));
                    self.on_editor_command(command);
                    return;
                }
                if let Some(action) = own {
                    let command = self.editor.update(editor::Msg::Action(action));
                    self.on_editor_command(command);
                } else if let Some(action) = action
                    && self.on_global(action)
                {
                } else {
                    let command = self.editor.update(editor::Msg::Key(key));
                    self.on_editor_command(command);
                }
            }
            Focus::Tree => {
                if let Some(action) = own {
                    let command = self.tree.update(tree::Msg::Action(action));
                    self.on_tree_command(command);
                } else if let Some(action) = action {
                    self.on_global(action);
                }
            }
            Focus::Findings => {
                if let Some(action) = own {
                    let command = self.findings.update(findings::Msg::Action(action));
                    self.on_findings_command(command);
                } else if let Some(action) = action {
                    self.on_global(action);
                }
            }
            Focus::Preview => {
                if let Some(action) = own {
                    self.preview.update(preview::Msg::Action(action));
                } else if let Some(action) = action {
                    self.on_global(action);
                }
            }
            Focus::Review => {
                if let Some(action) = own {
                    let command = self.review.update(review::Msg::Action(action));
                    self.on_review_command(command);
                } else if let Some(action) = action {
                    self.on_global(action);
                }
            }
            Focus::Timeline => {
                use crossterm::event::KeyCode;
                let command = if self.timeline.typing
                    && (chord.is_printable() || key.code == KeyCode::Backspace)
                {
                    match key.code {
                        KeyCode::Char(c) => self.timeline.update(timeline::Msg::Type(c)),
                        _ => self.timeline.update(timeline::Msg::Erase),
                    }
                } else if let Some(action) = own {
                    self.timeline.update(timeline::Msg::Action(action))
                } else {
                    if let Some(action) = action {
                        self.on_global(action);
                    }
                    None
                };
                self.on_timeline_command(command);
            }
        }
    }

    /// Shows the review of the open project in the right-hand area and asks for it.
    fn open_review(&mut self) {
        let Some(project) = self.project.clone() else {
            return;
        };
        self.show_timeline = false;
        self.show_review = true;
        self.focus = Focus::Review;
        let same = self.review.project.as_deref() == Some(project.path.as_path());
        self.review.expect(&project.path);
        if same {
            self.review_worker.send(ReviewRequest::Compute);
        } else {
            // A new session: its undo history starts empty.
            self.review_worker.send(ReviewRequest::Open { project });
        }
    }

    /// The watcher saw `paths` change while the review shows `project`: re-diff the
    /// files it lists, or recompute it all when files appeared or vanished.
    fn refresh_review(&mut self, project: PathBuf, paths: &[PathBuf]) {
        let mut whole = false;
        let mut files = Vec::new();
        for path in paths.iter().filter(|p| p.starts_with(&project)) {
            let listed = self
                .review
                .review
                .as_ref()
                .is_some_and(|r| r.file(path).is_some());
            if listed && path.is_file() {
                files.push(path.clone());
            } else {
                whole = true;
            }
        }
        if whole {
            self.review_worker.send(ReviewRequest::Compute);
        } else {
            for path in files {
                self.review_worker.send(ReviewRequest::Refresh(path));
            }
        }
    }

    fn on_review_command(&mut self, command: Option<review::Command>) {
        match command {
            Some(review::Command::Act(action, file)) => {
                self.review_worker.send(ReviewRequest::Act { action, file });
            }
            Some(review::Command::AskRejectFile(file)) => {
                self.review_worker.send(ReviewRequest::RejectLoss(file));
            }
            Some(review::Command::Undo) => {
                self.review.busy = true;
                self.review_worker.send(ReviewRequest::Undo);
            }
            Some(review::Command::Commit) => {
                if self.review.is_git {
                    self.review_worker.send(ReviewRequest::CommitMessage);
                } else {
                    self.ask_mark_reviewed();
                }
            }
            Some(review::Command::Close) => {
                self.show_review = false;
                self.focus = Focus::Tree;
            }
            Some(review::Command::Toast(text)) => self.toast(text),
            None => {}
        }
    }

    fn ask_mark_reviewed(&mut self) {
        let Some(review) = &self.review.review else {
            return;
        };
        let name = self
            .project
            .as_ref()
            .map(|p| p.name.clone())
            .unwrap_or_default();
        let added: usize = review.files.iter().map(|f| f.added).sum();
        let removed: usize = review.files.iter().map(|f| f.removed).sum();
        self.overlays.push(Overlay::Confirm(Confirm {
            title: "Mark reviewed?".into(),
            message: format!(
                "Take the memory of {name} as it is now as reviewed? The {} changed file(s) (+{added} −{removed} lines) stop showing here, and the review's undo history is cleared. The files themselves are not touched.",
                review.files.len()
            ),
            on_yes: Confirmed::MarkReviewed,
        }));
    }

    fn on_review_event(&mut self, event: ReviewEvent) {
        let ours = |app: &App, project: &Path| app.review.project.as_deref() == Some(project);
        match event {
            ReviewEvent::Computed {
                project,
                is_git,
                result,
            } => {
                if !ours(self, &project) {
                    return;
                }
                match result {
                    Ok(review) => self.review.set_review(review, is_git),
                    Err(problem) => {
                        self.review.loading = false;
                        self.review.busy = false;
                        self.review.problem = Some(problem);
                    }
                }
            }
            ReviewEvent::FileRefreshed {
                project,
                path,
                result,
            } => {
                if !ours(self, &project) {
                    return;
                }
                match result {
                    Ok(file) => self.review.set_file(&path, file.map(|f| *f)),
                    Err(problem) => self.toast_error(format!("cannot re-diff: {problem}")),
                }
            }
            ReviewEvent::Acted {
                project,
                action,
                display,
                result,
            } => {
                if !ours(self, &project) {
                    return;
                }
                match result {
                    Ok(()) => self.toast(format!("{display}: {}", action.done())),
                    Err(ActError::Conflict) => self.toast_error(format!(
                        "{display} changed on disk: re-diffed, nothing applied"
                    )),
                    Err(ActError::Other(problem)) => {
                        self.toast_error(format!("not applied: {problem}"))
                    }
                }
            }
            ReviewEvent::RejectLoss { file, loss } => {
                let message = if loss.deletes_file {
                    format!(
                        "{} is new since the baseline: rejecting it deletes the file, and its {} line(s) ({} bytes) are lost.",
                        loss.display, loss.lines_lost, loss.bytes
                    )
                } else if loss.lines_lost > 0 {
                    format!(
                        "{} goes back to the baseline: the {} line(s) the change added are lost (accepted ones too).",
                        loss.display, loss.lines_lost
                    )
                } else {
                    format!(
                        "{} goes back to the baseline: the change only removed lines, which come back; nothing is lost.",
                        loss.display
                    )
                };
                let path = file.path.clone();
                self.pending_reject = Some(file);
                self.overlays.push(Overlay::Confirm(Confirm {
                    title: "Reject the whole file?".into(),
                    message,
                    on_yes: Confirmed::RejectFile(path),
                }));
            }
            ReviewEvent::Undone(result) => match result {
                Ok(Some(label)) => self.toast(format!("undid: {label}")),
                Ok(None) => self.toast("nothing to undo"),
                Err(problem) => self.toast_error(problem),
            },
            ReviewEvent::CommitMessage(result) => match result {
                Ok(message) => self
                    .overlays
                    .push(Overlay::Commit(Box::new(CommitEditor::new(&message)))),
                Err(problem) => self.toast_error(format!("cannot commit: {problem}")),
            },
            ReviewEvent::Committed(result) => {
                let editor = match self.overlays.last_mut() {
                    Some(Overlay::Commit(editor)) => Some(editor),
                    _ => None,
                };
                match (result, editor) {
                    (Ok(outcome), editor) => {
                        if editor.is_some() {
                            self.overlays.pop();
                        }
                        let short = outcome.commit.get(..8).unwrap_or(&outcome.commit);
                        self.toast(format!("committed {short}: {}", outcome.files.join(", ")));
                    }
                    (Err(problem), Some(editor)) => {
                        editor.busy = false;
                        editor.error = Some(problem);
                    }
                    (Err(problem), None) => self.toast_error(format!("not committed: {problem}")),
                }
            }
            ReviewEvent::MarkedReviewed(result) => match result {
                Ok(count) => self.toast(format!(
                    "marked reviewed: the snapshot holds {count} memory file(s)"
                )),
                Err(problem) => self.toast_error(format!("not marked reviewed: {problem}")),
            },
        }
    }

    fn on_timeline_command(&mut self, command: Option<timeline::Command>) {
        match command {
            Some(timeline::Command::Jump { path, line }) => {
                self.show_timeline = false;
                self.on_findings_command(Some(findings::Command::Jump {
                    path,
                    line: Some(line),
                }));
            }
            Some(timeline::Command::Close) => {
                self.show_timeline = false;
                self.focus = Focus::Tree;
            }
            None => {}
        }
    }

    fn on_tree_command(&mut self, command: Option<tree::Command>) {
        if let Some(tree::Command::Open {
            path,
            memory_id,
            focus,
        }) = command
        {
            let same = self
                .editor
                .doc
                .as_ref()
                .is_some_and(|d| d.path == path && d.memory_id == memory_id);
            if same {
                if focus {
                    self.focus = Focus::Editor;
                }
                return;
            }
            if self.editor.is_dirty() {
                if focus {
                    let name = self.open_file_name();
                    self.overlays.push(Overlay::Confirm(Confirm {
                        title: "Open another file?".into(),
                        message: format!("Your unsaved edits to {name} will be lost."),
                        on_yes: Confirmed::OpenFile {
                            path,
                            memory_id,
                            focus,
                        },
                    }));
                }
                // Browsing past files keeps the dirty buffer on screen.
                return;
            }
            self.open_file(path, memory_id, focus);
        }
    }

    fn on_findings_command(&mut self, command: Option<findings::Command>) {
        match command {
            Some(findings::Command::Jump { path, line }) => {
                if path.is_dir() {
                    self.toast(format!("{} (a folder)", path.display()));
                    return;
                }
                self.tree.select_path(&path);
                let already_open = self.editor.doc.as_ref().is_some_and(|d| d.path == path);
                if already_open {
                    if let (Some(doc), Some(line)) = (&mut self.editor.doc, line) {
                        doc.jump_to_line(line);
                    }
                    self.focus = Focus::Editor;
                } else {
                    self.pending_line = line;
                    self.on_tree_command(Some(tree::Command::Open {
                        path,
                        memory_id: None,
                        focus: true,
                    }));
                }
            }
            Some(findings::Command::Close) => {
                self.show_findings = false;
                self.focus = Focus::Tree;
            }
            None => {}
        }
    }

    fn open_file(&mut self, path: PathBuf, memory_id: Option<String>, focus: bool) {
        self.tree.changed.remove(&path);
        self.pending_open = Some((path.clone(), memory_id.clone(), focus));
        workers::load_file(path, memory_id, self.outbox.clone());
    }

    fn on_file_loaded(&mut self, loaded: LoadedFile) {
        let Some((path, memory_id, focus)) = self.pending_open.clone() else {
            return;
        };
        if path != loaded.path || memory_id != loaded.memory_id {
            return;
        }
        self.pending_open = None;
        self.tree.open = Some(path.clone());
        self.tree.changed.remove(&path);
        match loaded.result {
            Ok(text) => {
                let mut doc = editor::Document::new(path.clone(), memory_id.clone(), text.edit);
                doc.read_only = text.read_only;
                if memory_id.is_some() {
                    let header = self
                        .tree
                        .file_report(&path, memory_id.as_deref())
                        .and_then(|f| f.file.memory.as_ref())
                        .map(|m| {
                            format!(
                                "{} · {} (type and title are locked by the Infinity spec)",
                                widgets::shown(&m.kind),
                                widgets::shown(&m.title)
                            )
                        });
                    doc.locked_header = header;
                }
                let session = self
                    .project
                    .as_ref()
                    .and_then(|p| self.sessions.get(&p.path))
                    .filter(|s| s.path == path && s.memory_id == memory_id)
                    .cloned();
                if let Some(session) = session {
                    doc.textarea.move_cursor(ratatui_textarea::CursorMove::Jump(
                        session.cursor.0.min(u16::MAX as usize) as u16,
                        session.cursor.1.min(u16::MAX as usize) as u16,
                    ));
                    doc.top = session.top;
                }
                if let Some(line) = self.pending_line.take() {
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
                self.refresh_document_budget();
                self.request_count();
                if focus {
                    self.focus = if self.view_mode == ViewMode::Preview {
                        Focus::Preview
                    } else {
                        Focus::Editor
                    };
                }
            }
            Err(problem) => {
                self.editor.doc = None;
                self.editor.problem = Some(problem);
            }
        }
    }

    fn refresh_document_budget(&mut self) {
        let Some(doc) = &mut self.editor.doc else {
            return;
        };
        if let Some(report) = self.tree.file_report(&doc.path, doc.memory_id.as_deref()) {
            doc.budget = report.budget.clone();
        }
    }

    fn request_count(&mut self) {
        if let Some(doc) = &self.editor.doc {
            self.counter
                .count(doc.id, doc.version, editor::shared_text(doc));
        }
    }

    fn on_editor_command(&mut self, command: Option<editor::Command>) {
        match command {
            Some(editor::Command::Save) => self.save(),
            Some(editor::Command::Changed) => {
                self.last_edit = Some(Instant::now());
                self.request_count();
            }
            Some(editor::Command::Leave) => self.focus = Focus::Tree,
            Some(editor::Command::Toast(text)) => self.toast(text),
            None => {}
        }
    }

    /// Saves the buffer through the core's guarded atomic write, off this thread.
    fn save(&mut self) {
        let Some(project) = self.project.clone() else {
            if self.editor.doc.is_some() {
                self.toast_error("not saved: no project is open");
            }
            return;
        };
        let Some(doc) = &mut self.editor.doc else {
            return;
        };
        if doc.saving {
            return;
        }
        doc.saving = true;
        let path = doc.path.clone();
        let text = doc.text();
        let disk = doc.disk.clone();
        let version = doc.version;
        let outbox = self.outbox.clone();
        std::thread::spawn(move || {
            // Confined to the bank that lists the file; the file's line endings, BOM,
            // permissions and owner are kept (an Infinity memory: its id, type, title).
            let result = edit::save_in_project(&project, &path, &disk, &text).map(Box::new);
            let result = result.map_err(|e| match e {
                crate::core::error::CoreError::Conflict { .. } => SaveError::Conflict,
                other => SaveError::Other(other.to_string()),
            });
            let _ = outbox.send(Message::Saved {
                path,
                version,
                text,
                result,
            });
        });
    }

    fn on_saved(
        &mut self,
        path: PathBuf,
        version: u64,
        text: String,
        result: Result<Box<edit::Saved>, SaveError>,
    ) {
        let Some(doc) = &mut self.editor.doc else {
            return;
        };
        if doc.path != path {
            return;
        }
        doc.saving = false;
        match result {
            Ok(saved) => {
                let ownership_kept = saved.outcome.ownership_kept;
                doc.mark_saved(text, saved.now, version);
                let name = self.open_file_name();
                if ownership_kept {
                    self.toast(format!("saved {name}"));
                } else {
                    self.toast(format!(
                        "saved {name}; it is now yours: its owner or group could not be kept"
                    ));
                }
                if let Some(project) = self.project.clone() {
                    self.analysis.full(project);
                }
            }
            Err(SaveError::Conflict) => self.open_conflict(),
            Err(SaveError::Other(problem)) => self.toast_error(format!("not saved: {problem}")),
        }
    }

    /// The open file changed on disk under unsaved edits: ask what to do.
    fn open_conflict(&mut self) {
        let Some(doc) = &self.editor.doc else {
            return;
        };
        if self
            .overlays
            .iter()
            .any(|o| matches!(o, Overlay::Conflict(_)))
        {
            return;
        }
        match workers::read_for_editing(&doc.path, doc.memory_id.as_deref()) {
            Ok(theirs) => {
                self.overlays.push(Overlay::Conflict(conflict::Conflict::new(
                    doc.path.clone(),
                    doc.base_text.clone(),
                    doc.text(),
                    theirs.edit,
                )));
            }
            Err(problem) => self.toast_error(format!(
                "{} changed on disk and cannot be read now ({problem}); your edits stay in the editor",
                doc.path.display()
            )),
        }
    }

    fn on_conflict_choice(&mut self, choice: conflict::Choice) {
        let Some(doc) = &mut self.editor.doc else {
            return;
        };
        match choice {
            conflict::Choice::KeepMine { theirs_disk } => {
                // The next save replaces their version, which is kept as a backup first.
                let backup = crate::core::backup::save(
                    &self.backup_dir,
                    &doc.path,
                    &theirs_disk.disk_bytes(),
                    "theirs",
                );
                doc.disk = *theirs_disk;
                doc.version += 1;
                match backup {
                    Ok(path) => self.toast(format!(
                        "kept your edits; their version is saved in {}",
                        path.display()
                    )),
                    Err(e) => {
                        self.toast_error(format!("kept your edits; could not back up theirs: {e}"))
                    }
                }
            }
            conflict::Choice::TakeTheirs { theirs_disk } => {
                let mine = doc.disk.encode(&doc.text());
                let backup =
                    crate::core::backup::save(&self.backup_dir, &doc.path, mine.as_bytes(), "mine");
                doc.reload(*theirs_disk);
                match backup {
                    Ok(path) => self.toast(format!(
                        "took their version; your edits are saved in {}",
                        path.display()
                    )),
                    Err(e) => self
                        .toast_error(format!("took their version; could not back up yours: {e}")),
                }
                self.request_count();
            }
            conflict::Choice::Merge {
                merged,
                theirs_disk,
                conflicts,
            } => {
                let mine = doc.disk.encode(&doc.text());
                let backup =
                    crate::core::backup::save(&self.backup_dir, &doc.path, mine.as_bytes(), "mine");
                doc.textarea = ratatui_textarea::TextArea::new(editor::split_lines(&merged));
                doc.disk = *theirs_disk;
                doc.version += 1;
                self.focus = Focus::Editor;
                if let Err(e) = backup {
                    self.toast_error(format!("could not back up your edits before merging: {e}"));
                }
                if conflicts > 0 {
                    self.toast(format!("merged with {conflicts} conflict(s) marked <<<<<<< … >>>>>>>: resolve them, then save"));
                } else {
                    self.toast("merged cleanly: review, then save");
                }
                self.request_count();
            }
        }
    }

    fn on_files_changed(&mut self, paths: Vec<PathBuf>) {
        let mut rescan = false;
        let mut touched: Vec<PathBuf> = Vec::new();
        for path in &paths {
            let parent = path.parent();
            if parent == Some(self.root.as_path())
                || self
                    .picker
                    .projects()
                    .any(|p| parent == Some(p.path.as_path()))
            {
                rescan = true;
            }
            if let Some(project) =
                workers::project_of(&self.picker.projects().cloned().collect::<Vec<_>>(), path)
                && !touched.contains(&project.path)
            {
                touched.push(project.path.clone());
            }
        }
        if rescan {
            self.rescan();
        }
        let open_project = self.project.as_ref().map(|p| p.path.clone());
        for project_path in touched {
            if Some(&project_path) == open_project.as_ref() {
                if let Some(project) = self.project.clone() {
                    self.analysis.full(project);
                }
            } else if let Some(project) = self.picker.project(&project_path).cloned() {
                self.analysis.full(project);
            }
        }
        if self.show_review
            && let Some(project) = &open_project
        {
            self.refresh_review(project.clone(), &paths);
        }
        let open_path = self.editor.doc.as_ref().map(|d| d.path.clone());
        for path in paths {
            if Some(&path) == open_path.as_ref() {
                self.on_open_file_changed();
            } else if open_project.as_ref().is_some_and(|p| path.starts_with(p)) && path.is_file() {
                self.tree.changed.insert(path);
            }
        }
    }

    /// The open file changed on disk: reload a clean buffer in place, ask about a dirty one.
    fn on_open_file_changed(&mut self) {
        let Some(doc) = &self.editor.doc else {
            return;
        };
        let Ok(current) = edit::load_for_edit(&doc.path) else {
            if !doc.path.exists() {
                self.toast_error(format!(
                    "{} was deleted on disk; your buffer is kept (save to recreate it)",
                    doc.path.display()
                ));
            }
            return;
        };
        if current.expected == doc.disk.expected {
            return;
        }
        if doc.is_dirty() {
            self.open_conflict();
            return;
        }
        match workers::read_for_editing(&doc.path, doc.memory_id.as_deref()) {
            Ok(loaded) => {
                let name = self.open_file_name();
                if let Some(doc) = &mut self.editor.doc {
                    doc.reload(loaded.edit);
                }
                self.toast(format!("{name} changed on disk: reloaded"));
                self.request_count();
            }
            Err(problem) => self.toast_error(problem),
        }
    }

    fn open_external(&mut self) {
        let Some(doc) = &self.editor.doc else {
            self.toast("open a file first");
            return;
        };
        if doc.memory_id.is_some() {
            self.toast("Infinity memories are edited here, not in $EDITOR (the store is JSON)");
            return;
        }
        if doc.is_dirty() {
            self.toast("save your edits before opening $EDITOR");
            return;
        }
        self.external = Some(External::Edit(doc.path.clone()));
    }

    /// After `$EDITOR` returns: pick up what it wrote.
    pub fn after_external_edit(&mut self, result: Result<(), String>) {
        if let Err(problem) = result {
            self.toast_error(problem);
        }
        self.on_open_file_changed();
        if let Some(project) = self.project.clone() {
            self.analysis.full(project);
        }
    }

    /// Folders to watch: the root, each project, and each memory folder of the open project.
    fn update_watches(&mut self) {
        let Some(watcher) = &self.watcher else {
            return;
        };
        let mut folders = std::collections::BTreeSet::new();
        folders.insert(self.root.clone());
        for project in self.picker.projects() {
            folders.insert(project.path.clone());
            for bank in &project.banks {
                folders.insert(bank.root.clone());
            }
        }
        if let Some(report) = &self.tree.report {
            for bank in &report.banks {
                for file in &bank.files {
                    if let Some(parent) = file.file.path.parent() {
                        folders.insert(parent.to_path_buf());
                    }
                }
            }
        }
        watcher.watch_exactly(folders);
    }

    fn on_mouse(&mut self, mouse: MouseEvent) {
        if !self.overlays.is_empty() {
            return;
        }
        let position = Position::new(mouse.column, mouse.row);
        let scroll = match mouse.kind {
            MouseEventKind::ScrollDown => 3,
            MouseEventKind::ScrollUp => -3,
            MouseEventKind::Down(MouseButton::Left) => 0,
            _ => return,
        };
        let row_in = |area: Rect| mouse.row.saturating_sub(area.y + 1) as usize;
        match self.screen {
            Screen::Picker => {
                let area = self.areas.picker;
                if scroll != 0 {
                    self.picker.update(picker::Msg::Scroll(scroll));
                } else if area.contains(position) && mouse.row >= area.y + 3 {
                    let command = self
                        .picker
                        .update(picker::Msg::Click((mouse.row - area.y - 3) as usize));
                    self.on_picker_command(command);
                }
            }
            Screen::Project => {
                if self.areas.tree.contains(position) {
                    if scroll != 0 {
                        let command = self.tree.update(tree::Msg::Scroll(scroll));
                        self.on_tree_command(command);
                    } else {
                        self.focus = Focus::Tree;
                        let command = self.tree.update(tree::Msg::Click(row_in(self.areas.tree)));
                        self.on_tree_command(command);
                    }
                } else if self.show_review && self.areas.editor.contains(position) {
                    if scroll != 0 {
                        self.review.update(review::Msg::Scroll(scroll));
                    } else {
                        self.focus = Focus::Review;
                        self.review.update(review::Msg::Click(position));
                    }
                } else if self.show_timeline && self.areas.editor.contains(position) {
                    if scroll != 0 {
                        self.timeline.update(timeline::Msg::Scroll(scroll));
                    } else {
                        self.focus = Focus::Timeline;
                        let command = self
                            .timeline
                            .update(timeline::Msg::Click(row_in(self.areas.editor)));
                        self.on_timeline_command(command);
                    }
                } else if self.areas.preview.contains(position) {
                    if scroll != 0 {
                        self.preview.update(preview::Msg::Scroll(scroll));
                    } else {
                        self.focus = Focus::Preview;
                    }
                } else if self.areas.editor.contains(position) {
                    if scroll != 0 {
                        self.editor.update(editor::Msg::Scroll(scroll));
                    } else {
                        self.focus = Focus::Editor;
                        let inner = self.editor.area();
                        if inner.contains(position) {
                            self.editor.update(editor::Msg::Click {
                                row: mouse.row - inner.y,
                                col: mouse.column - inner.x,
                            });
                        }
                    }
                } else if self.show_findings && self.areas.findings.contains(position) {
                    if scroll != 0 {
                        self.findings.update(findings::Msg::Scroll(scroll));
                    } else {
                        self.focus = Focus::Findings;
                        let command = self
                            .findings
                            .update(findings::Msg::Click(row_in(self.areas.findings)));
                        self.on_findings_command(command);
                    }
                }
            }
        }
    }

    pub fn view(&mut self, frame: &mut Frame) {
        let area = frame.area();
        frame.render_widget(Block::default().style(self.theme.base()), area);
        let [header, body, status] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Min(3),
            Constraint::Length(1),
        ])
        .areas(area);
        self.view_header(frame, header);
        match self.screen {
            Screen::Picker => {
                self.areas.picker = body;
                self.picker.view(frame, body, &self.theme, &self.keymap);
            }
            Screen::Project => self.view_project(frame, body),
        }
        self.view_status(frame, status);
        for index in 0..self.overlays.len() {
            match &mut self.overlays[index] {
                Overlay::Help(help) => help.view(frame, area, &self.theme, &self.keymap),
                Overlay::Confirm(confirm) => confirm.view(frame, area, &self.theme, &self.keymap),
                Overlay::Conflict(conflict) => {
                    conflict.view(frame, area, &self.theme, &self.keymap)
                }
                Overlay::Commit(editor) => editor.view(frame, area, &self.theme, &self.keymap),
            }
        }
        self.view_toasts(frame, area);
    }

    /// The highlight worker, started with the first file shown: loading syntect's
    /// grammars is slow, and nothing needs them before a file is open.
    fn highlighter(&mut self) -> Option<&HighlightWorker> {
        if self.highlighter.is_none() {
            let outbox = self.outbox.clone();
            self.highlighter = HighlightWorker::spawn(&self.theme.syntax, move |done| {
                let _ = outbox.send(Message::Highlighted(done));
            })
            .ok();
        }
        self.highlighter.as_ref()
    }

    /// The preview rendering the open buffer needs at this width and theme.
    fn render_key(&self, width: u16) -> Option<RenderKey> {
        let doc = self.editor.doc.as_ref()?;
        Some(RenderKey {
            document: doc.id,
            version: doc.version,
            width,
            theme: self.theme.name.clone(),
        })
    }

    /// The open buffer's lines, shared with the workers; cloned once per version.
    fn snapshot(&mut self) -> Option<Arc<Vec<String>>> {
        let doc = self.editor.doc.as_ref()?;
        let key = (doc.id, doc.version);
        match &self.snapshot {
            Some((k, lines)) if *k == key => Some(lines.clone()),
            _ => {
                let lines = Arc::new(doc.textarea.lines().to_vec());
                self.snapshot = Some((key, lines.clone()));
                Some(lines)
            }
        }
    }

    /// After a draw, when the visible region is known: ask the workers for what the
    /// next frame will want (highlighting of the lines on screen, the preview).
    pub fn after_draw(&mut self) {
        if self.screen != Screen::Project || self.show_timeline || self.show_review {
            return;
        }
        let Some((id, version)) = self.editor.doc.as_ref().map(|d| (d.id, d.version)) else {
            return;
        };
        // Copying a big buffer for the workers on every keystroke would slow typing; wait
        // for a pause (unchanged lines keep their colours meanwhile).
        let big = self
            .editor
            .doc
            .as_ref()
            .is_some_and(|d| d.textarea.lines().len() > BIG_BUFFER_LINES);
        if let Some(edited) = self.last_edit
            && big
            && edited.elapsed() < TYPING_PAUSE
            && self
                .highlight_asked
                .as_ref()
                .is_some_and(|(d, v, _)| *d == id && *v != version)
        {
            self.work_due = Some(edited + TYPING_PAUSE);
            return;
        }
        if self.view_mode != ViewMode::Preview
            && let Some(visible) = self.editor.visible_range()
        {
            let asked = Some((id, version, visible.clone()));
            if self.highlight_asked != asked
                && let Some(lines) = self.snapshot()
                && let Some(highlighter) = self.highlighter()
            {
                highlighter.request(DocId(id), version, lines, visible);
                self.highlight_asked = asked;
            }
        }
        if self.view_mode != ViewMode::Editor
            && let Some(key) = self.render_key(self.preview.width)
            && self.preview.width > 0
            && self.preview.wanted(&key)
            && let Some(lines) = self.snapshot()
        {
            self.preview.requested = Some(key.clone());
            let text = Arc::new(editor::join_lines(&lines));
            self.previews.render(key, text, self.theme.clone());
        }
    }

    fn view_header(&self, frame: &mut Frame, area: Rect) {
        let theme = &self.theme;
        let mut spans = vec![Span::styled(" mbank ", theme.key().bg(theme.status_bg))];
        match (&self.screen, &self.tree.report) {
            (Screen::Project, Some(report)) => {
                spans.push(Span::styled(
                    format!(" {} ", widgets::shown(&report.name)),
                    theme.title(),
                ));
                let formats: Vec<&str> = report.formats().iter().map(|f| f.id()).collect();
                spans.push(Span::styled(
                    format!("{}  ", formats.join(" · ")),
                    theme.fg(theme.accent),
                ));
                spans.push(Span::styled(
                    format!("{} tok loaded", widgets::compact(report.loaded_tokens())),
                    widgets::budget_color(theme, report.worst_budget()),
                ));
                if report.private_tokens() > 0 {
                    spans.push(Span::styled(
                        format!(" +{} private", widgets::compact(report.private_tokens())),
                        theme.fg(theme.private),
                    ));
                }
                spans.push(Span::styled(
                    format!(" ({})", report.encoding),
                    theme.muted(),
                ));
            }
            (Screen::Project, None) => {
                if let Some(project) = &self.project {
                    spans.push(Span::styled(
                        format!(" {} ", widgets::shown(&project.name)),
                        theme.title(),
                    ));
                    spans.push(Span::styled("reading…", theme.muted()));
                }
            }
            (Screen::Picker, _) => {
                spans.push(Span::styled(
                    " memory banks of your AI coding agents",
                    theme.muted(),
                ));
            }
        }
        frame.render_widget(
            Paragraph::new(Line::from(spans)).style(theme.status()),
            area,
        );
    }

    fn view_project(&mut self, frame: &mut Frame, area: Rect) {
        let (main, findings_area) = if self.show_findings {
            let [main, findings] =
                Layout::vertical([Constraint::Min(5), Constraint::Length(10)]).areas(area);
            (main, Some(findings))
        } else {
            (area, None)
        };
        let tree_width = (main.width * 2 / 5).clamp(30, 70).min(main.width);
        let [tree_area, editor_area] =
            Layout::horizontal([Constraint::Length(tree_width), Constraint::Min(10)]).areas(main);
        self.areas.tree = tree_area;
        self.areas.editor = editor_area;
        self.tree
            .view(frame, tree_area, &self.theme, self.focus == Focus::Tree);
        if self.show_review {
            let focused = self.focus == Focus::Review && self.overlays.is_empty();
            self.review.view(frame, editor_area, &self.theme, focused);
        } else if self.show_timeline {
            let focused = self.focus == Focus::Timeline;
            self.timeline.view(frame, editor_area, &self.theme, focused);
        } else {
            let (editor_part, preview_part) = match self.view_mode {
                ViewMode::Editor => (Some(editor_area), None),
                ViewMode::Preview => (None, Some(editor_area)),
                ViewMode::Split => {
                    let [left, right] = Layout::horizontal([
                        Constraint::Percentage(50),
                        Constraint::Percentage(50),
                    ])
                    .areas(editor_area);
                    (Some(left), Some(right))
                }
            };
            self.areas.editor = editor_part.unwrap_or_default();
            self.areas.preview = preview_part.unwrap_or_default();
            if let Some(part) = editor_part {
                let focused = self.focus == Focus::Editor && self.overlays.is_empty();
                self.editor.view(frame, part, &self.theme, focused);
            }
            if let Some(part) = preview_part {
                let current = self.render_key(part.width.saturating_sub(2));
                let follow = (self.view_mode == ViewMode::Split)
                    .then(|| self.editor.doc.as_ref().map(|d| d.cursor().0 + 1))
                    .flatten();
                let focused = self.focus == Focus::Preview;
                self.preview
                    .view(frame, part, &self.theme, focused, current.as_ref(), follow);
            }
        }
        if let Some(findings_area) = findings_area {
            self.areas.findings = findings_area;
            self.findings.view(
                frame,
                findings_area,
                &self.theme,
                self.focus == Focus::Findings,
            );
        }
    }

    fn view_status(&self, frame: &mut Frame, area: Rect) {
        let theme = &self.theme;
        let context = self.key_context();
        let global: &[Action] = match self.screen {
            Screen::Picker => &[Action::Help, Action::Quit, Action::NextTheme],
            Screen::Project => &[
                Action::Help,
                Action::Quit,
                Action::OpenPicker,
                Action::FocusNext,
                Action::CycleView,
                Action::ShowTimeline,
                Action::ShowReview,
                Action::ToggleFindings,
                Action::NextTheme,
            ],
        };
        let mut spans = Vec::new();
        for (key, word) in self.keymap.hints(context, global) {
            spans.push(Span::styled(
                format!(" {key}"),
                theme.key().bg(theme.status_bg),
            ));
            spans.push(Span::styled(format!(" {word} "), theme.status()));
        }
        let right = match &self.demo_path {
            Some(path) => format!(" demo: {} ", widgets::shown_path(path)),
            None => format!(" {} ", widgets::shown_path(&self.root)),
        };
        let [left_area, right_area] = Layout::horizontal([
            Constraint::Min(10),
            Constraint::Length((right.chars().count() as u16).min(area.width / 2)),
        ])
        .areas(area);
        frame.render_widget(
            Paragraph::new(Line::from(spans)).style(theme.status()),
            left_area,
        );
        frame.render_widget(
            Paragraph::new(Span::styled(right, theme.muted().bg(theme.status_bg))),
            right_area,
        );
    }

    fn view_toasts(&self, frame: &mut Frame, area: Rect) {
        let theme = &self.theme;
        for (index, toast) in self.toasts.iter().rev().take(3).enumerate() {
            let width = (toast.text.chars().count() as u16 + 4).min(area.width.saturating_sub(2));
            let rect = Rect {
                x: area.right().saturating_sub(width + 1),
                y: area.y + 1 + index as u16,
                width,
                height: 1,
            };
            let style = if toast.error {
                theme.fg(theme.background).bg(theme.error)
            } else {
                theme.fg(theme.background).bg(theme.accent)
            };
            frame.render_widget(Clear, rect);
            frame.render_widget(
                Paragraph::new(Span::styled(
                    format!(" {} ", widgets::truncate(&toast.text, width as usize - 2)),
                    style,
                )),
                rect,
            );
        }
    }
}

//! The application: one state, one message type, one `update`, one `view`.
//!
//! Input, worker results and file-system events all arrive as [`Message`]s on one
//! channel. `update` routes each to the part of the app whose job it is; panes and
//! controllers answer with [`Effect`]s, which [`App::apply`] carries out; slow work goes
//! to workers and jobs, never the disk here. `view` only draws.
//!
//! The jobs, one file each:
//! - `keys`: the compositor (overlays, then the focused pane, then the global keys),
//!   the global keys themselves, focus and what the main area shows;
//! - `mouse`: clicks and the wheel, to the pane under them;
//! - `document`: the open file's cycle (open, load, save, conflict, reload) and the
//!   worker requests each frame needs (highlighting, preview);
//! - `projects`: scanning, opening and switching projects, live refresh;
//! - `review`: the review worker's requests and answers;
//! - `history`: a file's history overlay, its jobs and restoring a version;
//! - `changes`: the journal worker (recording while the app runs) and the Changes view;
//! - `agent`: the proposals and refusals of the agent servers, live, and decisions on them;
//! - `chrome`: header, status bar and toasts.
mod agent;
mod changes;
mod chrome;
mod controllers;
mod document;
mod history;
mod keys;
mod mouse;
mod projects;
mod review;
mod search;
mod toast;

use mbank_core::clock::Clock;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use crossterm::event::KeyEventKind;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::widgets::Block;

use mbank_core::config::Config;

use mbank_core::review::ReviewOptions;
use mbank_core::tokens::Encoding;

use super::agent_worker::AgentWorker;
use super::keymap::{KeyContext, Keymap};
use super::message::Message;
use super::overlays::Overlay;
use super::overlays::confirm::{Confirm, Confirmed};
use super::overlays::conflict::Conflict;
use super::pane::{Ask, Effect, Input, Pane, ViewContext};
use super::panes::{findings, timeline, tree};
use super::review_worker::{ReviewRequest, ReviewWorker};
use super::theme::Theme;
use super::watcher::Watcher;
use super::workers::{AnalysisWorker, Outbox};

pub(crate) use super::overlays::help::Logged;
pub use super::pane::Focus;
pub use controllers::ViewMode;
pub(crate) use controllers::{DocumentController, ProjectsController, ReviewController};
pub(crate) use toast::Toast;

/// What the right-hand area of the project screen shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Main {
    /// The open file, as `ViewMode` says.
    Document(ViewMode),
    /// The decision timeline; closing it shows the document as `back` says.
    Timeline { back: ViewMode },
    /// The review of the open project; closing it shows the document as `back` says.
    Review { back: ViewMode },
}

impl Main {
    /// How the document is shown, or will be once the timeline or review closes.
    pub(crate) fn view_mode(self) -> ViewMode {
        match self {
            Main::Document(mode) | Main::Timeline { back: mode } | Main::Review { back: mode } => {
                mode
            }
        }
    }

    pub fn is_timeline(self) -> bool {
        matches!(self, Main::Timeline { .. })
    }

    pub fn is_review(self) -> bool {
        matches!(self, Main::Review { .. })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    Picker,
    Project,
    /// What changed in every project since it was last marked reviewed.
    Changes,
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
    /// Paths under this folder are shown as `~/…`.
    pub home: Option<PathBuf>,
    /// Watch the file system (tests switch it off to stay deterministic).
    pub watch: bool,
    /// Where the config lives (for user themes).
    pub config_dir: Option<PathBuf>,
    /// Where the side not kept in a conflict is saved.
    pub backup_dir: PathBuf,
    /// What review sessions open with (encoding and budgets come from the config; tests
    /// give a hermetic git environment and data folder).
    pub review: ReviewOptions,
    /// What every judgement of time asks (tests fix it).
    pub clock: Clock,
    /// Where saves, restores and accepted proposals keep the text they replace (`None`:
    /// nowhere, and the history overlay says there is none).
    pub history: Option<mbank_core::history::History>,
    /// Record every version of every memory file into the history while the app runs
    /// (when no `mbank watch` does).
    pub record: bool,
    /// Where the search index is kept (mbank's cache folder); `None`: in memory for the
    /// session (the demo, tests).
    pub search_cache_dir: Option<PathBuf>,
}

/// What the loop must do outside `update` (it needs the terminal).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum External {
    /// Suspend the UI and open this file in `$EDITOR`.
    Edit(PathBuf),
}

pub struct App {
    pub theme: Theme,
    pub keymap: Keymap,
    config: Arc<Config>,
    config_dir: Option<PathBuf>,
    /// The root, its projects and the open one, and the workers that keep them fresh.
    pub projects: ProjectsController,
    pub encoding: Encoding,
    pub screen: Screen,
    pub main: Main,
    pub focus: Focus,
    pub show_findings: bool,
    /// The focused pane (the tree, or what the main area shows) takes the whole width.
    pub zoomed: bool,
    /// The focus moved by a navigation key (tab, the view key) during this update: the
    /// editor, if that is where it went, shows its file read-only.
    navigated: bool,
    pub tree: tree::Tree,
    /// The open file: the editor and preview panes and their cycle.
    pub document: DocumentController,
    pub findings: findings::Findings,
    pub timeline: timeline::Timeline,
    /// The review pane, its worker, and the agent writes it lists.
    pub review: ReviewController,
    pub overlays: Vec<Overlay>,
    pub toasts: Vec<Toast>,
    /// Every message shown this session, whole (the message history).
    pub messages: Vec<Logged>,
    pub quit: bool,
    pub external: Option<External>,
    /// One-shot jobs the app waits on besides the document's (theme, demo, new bank).
    jobs: usize,
    /// The theme asked for last, while it loads.
    theme_asked: Option<String>,
    outbox: Outbox,
    history_jobs: history::HistoryJobs,
    pub clock: Clock,
    /// Where this session's writes keep the text they replace.
    file_history: Option<mbank_core::history::History>,
    /// The Changes view (every project).
    pub changes: crate::panes::changes::ChangesPane,
    /// Where the Changes view goes back to.
    changes_back: Screen,
    /// Records while the app runs and answers the Changes view (`None`: no history).
    journal: Option<crate::journal_worker::JournalWorker>,
    /// Whether this session records every version.
    pub recording: crate::message::Recording,
    /// The agents' stores outside every project, watched while recording.
    journal_folders: Vec<PathBuf>,
    /// Answers the search overlay's queries off the drawing thread.
    search_worker: crate::search_worker::SearchWorker,
    search_cache_dir: Option<PathBuf>,
    /// Files changed since the search worker last read the projects.
    search_stale: bool,
}

impl App {
    pub fn new(options: Options, outbox: Outbox) -> App {
        let analysis = AnalysisWorker::spawn(
            options.config.clone(),
            options.encoding,
            options.clock,
            outbox.clone(),
        );
        Self::with_worker(options, outbox, analysis)
    }

    /// With a given analysis worker (tests give one with an in-memory cache).
    pub(crate) fn with_worker(options: Options, outbox: Outbox, analysis: AnalysisWorker) -> App {
        let watcher = if options.watch {
            match Watcher::spawn(outbox.clone()) {
                Ok(w) => Some(w),
                Err(e) => {
                    let _ = outbox.send(Message::WatchProblem(format!("it is off ({e})")));
                    None
                }
            }
        } else {
            None
        };
        let journal = Self::spawn_journal(
            &options,
            options
                .review
                .data_dir
                .clone()
                .or_else(mbank_core::io::paths::data_dir),
            &outbox,
        );
        let review_options = ReviewOptions {
            encoding: options.encoding,
            budgets: options.config.budgets.clone(),
            clock: options.clock,
            history: options.history.clone(),
            ..options.review
        };
        let data_dir = review_options
            .data_dir
            .clone()
            .or_else(mbank_core::io::paths::data_dir);
        let review_worker = ReviewWorker::spawn(review_options, outbox.clone());
        let agent_outbox = outbox.clone();
        let agent_worker = AgentWorker::spawn(
            data_dir,
            options.root.clone(),
            mbank_core::write::WriteContext::new("accept", options.clock)
                .with_history(options.history.clone())
                .with_policy(options.config.serve.guard),
            move |event| agent_outbox.send(Message::Agent(event)).is_ok(),
        );
        let modal_editor = options.keymap.is_modal();
        let search_worker = crate::search_worker::SearchWorker::spawn(outbox.clone());
        let search_cache_dir = options.search_cache_dir.clone();
        let projects = ProjectsController::new(
            options.root,
            options.root_problem,
            options.demo_path,
            options.home,
            analysis,
            watcher,
            options.clock,
        );
        App {
            theme: options.theme,
            keymap: options.keymap,
            config: options.config,
            config_dir: options.config_dir,
            projects,
            encoding: options.encoding,
            screen: Screen::Picker,
            main: Main::Document(ViewMode::Editor),
            focus: Focus::Tree,
            show_findings: false,
            zoomed: false,
            navigated: false,
            tree: tree::Tree::default(),
            document: DocumentController::new(
                options.encoding,
                options.backup_dir,
                modal_editor,
                mbank_core::write::WriteContext::new("tui", options.clock)
                    .with_history(options.history.clone()),
                outbox.clone(),
            ),
            findings: findings::Findings::default(),
            timeline: timeline::Timeline::default(),
            review: ReviewController::new(review_worker, agent_worker),
            overlays: Vec::new(),
            toasts: Vec::new(),
            messages: Vec::new(),
            quit: false,
            external: None,
            jobs: 0,
            theme_asked: None,
            outbox,
            history_jobs: history::HistoryJobs::default(),
            clock: options.clock,
            file_history: options.history,
            changes: crate::panes::changes::ChangesPane::default(),
            changes_back: Screen::Picker,
            journal,
            recording: crate::message::Recording::Off,
            journal_folders: Vec::new(),
            search_worker,
            search_cache_dir,
            search_stale: true,
        }
    }

    /// Starts the first scan (unless the root is unusable).
    pub fn start(&mut self) {
        if self.projects.picker.root_problem.is_none() {
            self.rescan();
        }
    }

    /// True once the picker shows the scan's result (projects, or why there are none).
    pub fn shows_projects(&self) -> bool {
        !self.projects.picker.scanning
    }

    /// True when live refresh is off or watches every folder asked for so far.
    pub fn watches_settled(&self) -> bool {
        self.projects.watches_settled()
    }

    /// True when no answer the next key depends on is outstanding: the scan, the open
    /// project's report, a file being read or saved, a backup, a theme, the review, a
    /// file's history, a search.
    #[cfg(any(test, feature = "test-support"))]
    pub(crate) fn is_idle(&self) -> bool {
        let searching = self.overlays.iter().any(|overlay| {
            matches!(overlay, Overlay::Search(search)
                if search.state == crate::overlays::search::SearchState::Searching)
        });
        !searching
            && self.shows_projects()
            && self.jobs == 0
            && (self.projects.open.is_none() || self.tree.report.is_some())
            && self.document.is_idle()
            && self.history_jobs.is_idle()
            && !(self.screen == Screen::Changes && (self.changes.loading || self.changes.busy))
            && !(self.main.is_review()
                && (self.review.pane.loading
                    || self.review.pane.busy
                    || self.review.pane.deciding.is_some()))
    }

    /// When the loop must wake up without input (a toast to expire, deferred work due).
    pub fn next_deadline(&self) -> Option<Instant> {
        self.toasts
            .iter()
            .map(|t| t.until)
            .chain(self.document.work_due())
            .min()
    }

    /// True once deferred work (highlighting and preview of a big buffer after a burst of
    /// typing) is due: the loop then draws, and `after_draw` asks the workers.
    pub fn take_due_work(&mut self, now: Instant) -> bool {
        self.document.take_due_work(now)
    }

    pub fn update(&mut self, message: Message) {
        let focus_before = self.focus;
        self.navigated = false;
        self.route(message);
        if self.focus == Focus::Editor && focus_before != Focus::Editor {
            if self.navigated {
                self.document.editor.arrive_viewing();
            } else {
                self.document.editor.arrive_editing();
            }
        }
        // Zoom is not carried into the editor: there typed letters are text, so the
        // letter that zoomed would type into the file. Arriving there shows the tree
        // again; the editor zooms by its own (non-text) key.
        if self.zoomed && self.focus == Focus::Editor && focus_before != Focus::Editor {
            self.zoomed = false;
        }
    }

    fn route(&mut self, message: Message) {
        match message {
            Message::Key(key) => {
                if key.kind != KeyEventKind::Release {
                    self.on_key(key);
                }
            }
            Message::Mouse(mouse) => self.on_mouse(mouse),
            Message::Paste(text) => {
                if self.overlays.is_empty() {
                    let outcome = self.active_pane().handle(Input::Paste(text));
                    if matches!(outcome, crate::pane::Outcome::Ignored) {
                        self.say_shown_read_only();
                    }
                    self.apply_outcome(outcome);
                }
            }
            Message::Resize => {}
            Message::Scanned {
                generation,
                projects,
            } => self.on_scanned(generation, projects),
            Message::Summary {
                generation,
                index,
                report,
                folders,
                ..
            } => self.on_summary(generation, index, report, folders),
            Message::Analyzed {
                project,
                report,
                contexts,
                folders,
            } => self.on_analyzed(project, *report, contexts, folders),
            Message::Refreshed {
                project,
                report,
                folders,
            } => self.on_refreshed(project, report, folders),
            Message::ProjectGone(_) => self.rescan(),
            Message::FileLoaded(loaded) => {
                let mode = self.main.view_mode();
                let effects = self.document.on_loaded(loaded, &mut self.tree, mode);
                self.apply(effects);
            }
            Message::Saved {
                path,
                version,
                text,
                result,
            } => {
                let effects = self.document.on_saved(path, version, text, result);
                self.apply(effects);
            }
            Message::FixApplied { path, fix, result } => {
                let effects = self.document.on_fix_applied(path, fix, result);
                self.apply(effects);
            }
            Message::BufferCounted {
                document,
                version,
                stats,
            } => self.document.on_counted(document, version, stats),
            Message::Highlighted(done) => self.document.on_highlighted(done),
            Message::PreviewRendered { key, rendered } => {
                self.document.preview.accept(key, *rendered)
            }
            Message::BackedUp { side, result } => {
                let effects = self.document.on_backed_up(side, result);
                self.apply(effects);
            }
            Message::SearchResults { generation, result } => {
                for overlay in &mut self.overlays {
                    if let Overlay::Search(search) = overlay {
                        search.on_results(generation, result);
                        break;
                    }
                }
            }
            Message::FilesChanged(paths) => {
                self.search_stale = true;
                self.journal_files_changed(&paths);
                self.refresh_history(&paths);
                self.on_files_changed(paths);
            }
            Message::WatchOverflow => {
                self.search_stale = true;
                self.journal_overflow();
                self.on_watch_overflow();
            }
            Message::Journal(event) => self.on_journal_event(event),
            Message::WatchProblem(problem) => {
                self.toast_error(format!("live refresh: {problem}"));
            }
            Message::WatchCoverage(coverage) => {
                self.projects.picker.watch_note = coverage.note();
                if let Some(note) = &self.projects.picker.watch_note {
                    self.toast_error(note.clone());
                }
            }
            Message::Review(event) => self.on_review_event(event),
            Message::Agent(event) => self.on_agent_event(event),
            Message::ThemeLoaded { name, result } => {
                self.jobs = self.jobs.saturating_sub(1);
                if self.theme_asked.as_deref() == Some(name.as_str()) {
                    self.theme_asked = None;
                }
                match result {
                    Ok(theme) => {
                        self.document.set_theme(&theme);
                        self.theme = *theme;
                        self.toast(format!("theme: {name}"));
                    }
                    Err(problem) => self.toast_error(problem),
                }
            }
            Message::DemoReady(result) => {
                self.jobs = self.jobs.saturating_sub(1);
                self.on_demo_ready(result);
            }
            Message::History(event) => self.on_history_event(event),
            Message::BankCreated { path, result } => {
                self.jobs = self.jobs.saturating_sub(1);
                match result {
                    Ok(()) => {
                        self.toast(format!("created a memory bank in {}", path.display()));
                        self.rescan();
                    }
                    Err(e) => self.toast_error(format!("cannot create the bank: {e}")),
                }
            }
            Message::AdrCreated(result) => {
                self.jobs = self.jobs.saturating_sub(1);
                self.on_adr_created(result);
            }
        }
    }

    /// Carries out what a pane, an overlay or a controller asked for.
    pub fn apply(&mut self, effects: Vec<Effect>) {
        for effect in effects {
            self.apply_one(effect);
        }
    }

    fn apply_outcome(&mut self, outcome: super::pane::Outcome) {
        if let super::pane::Outcome::Consumed(effects) = outcome {
            self.apply(effects);
        }
    }

    fn apply_one(&mut self, effect: Effect) {
        match effect {
            Effect::Toast(text) => self.toast(text),
            Effect::ToastError(text) => self.toast_error(text),
            Effect::OpenProject(path) => self.open_project(&path),
            Effect::BackToProject => {
                if self.projects.open.is_some() {
                    self.screen = Screen::Project;
                }
            }
            Effect::OpenDemo => {
                self.jobs += 1;
                super::jobs::create_demo(self.clock, self.outbox.clone());
            }
            Effect::AskInitBank(name) => self.ask_init_bank(&name),
            Effect::AskInitProject(path) => self.ask_init_project(&path),
            Effect::AskNewAdr => self.ask_new_adr(),
            Effect::CreateAdr(title) => self.create_adr(title),
            Effect::ShowFile {
                path,
                memory_id,
                focus,
            } => self.show_file(path, memory_id, focus, None),
            Effect::GoTo { path, line } => self.go_to(path, line),
            Effect::Search { generation, query } => self.search(generation, query),
            Effect::OpenAt {
                project,
                path,
                line,
            } => self.open_at(&project, path, line),
            Effect::BufferChanged => self.document.on_edited(),
            Effect::Save => {
                let effects = self.document.save(self.projects.open.as_ref());
                self.apply(effects);
            }
            Effect::Focus(focus) => self.focus = focus,
            Effect::Close(pane) => self.close(pane),
            Effect::Review(request) => self.review.ask(request),
            Effect::AskCommit => self.ask_commit(),
            Effect::Ask(ask) => self.push_overlay(match ask {
                Ask::Confirm {
                    title,
                    body,
                    on_yes,
                } => Overlay::Confirm(Confirm::new(title, body, on_yes)),
                Ask::Conflict {
                    path,
                    base,
                    mine,
                    theirs,
                } => Overlay::Conflict(Box::new(Conflict::new(path, base, mine, theirs))),
            }),
            Effect::CloseOverlay => {
                self.overlays.pop();
            }
            Effect::Confirmed(confirmed) => match confirmed {
                Confirmed::Quit => self.quit = true,
                Confirmed::SwitchProject(path) => {
                    self.document.discard();
                    self.open_project(&path);
                }
                Confirmed::OpenFile {
                    path,
                    memory_id,
                    line,
                } => {
                    self.document.discard();
                    self.show_file(path, memory_id, true, line);
                }
                Confirmed::RejectFile(path) => self.reject_file(&path),
                Confirmed::MarkReviewed => self.review.ask(ReviewRequest::MarkReviewed),
                Confirmed::RejectProposal(id) => self
                    .review
                    .decide(super::protocol::ProposalDecision::Reject { id }),
                Confirmed::SaveWithMarkers { version } => {
                    let effects = self
                        .document
                        .save_with_markers(self.projects.open.as_ref(), version);
                    self.apply(effects);
                }
                Confirmed::InitBank(path) => {
                    self.jobs += 1;
                    super::jobs::create_bank(path, self.outbox.clone());
                }
                Confirmed::InitProject { path, format } => {
                    self.jobs += 1;
                    let ctx = mbank_core::write::WriteContext::new("tui", self.clock)
                        .with_history(self.file_history.clone());
                    super::jobs::init_project(path, format, ctx, self.outbox.clone());
                }
                Confirmed::RestoreVersion { path, version } => self.restore_version(path, version),
                Confirmed::RevertChangedFile(path) => self.revert_changed_file(&path),
                Confirmed::MarkChangesReviewed { generation } => {
                    self.changes.busy = true;
                    self.ask_changes(super::protocol::ChangesRequest::MarkReviewed { generation });
                }
            },
            Effect::Resolve(choice) => {
                let effects = self
                    .document
                    .resolve_conflict(choice, self.projects.open.as_ref());
                self.apply(effects);
            }
            Effect::Quit => self.request_quit(),
            Effect::ApplyFix { path, fix } => {
                let effects = self
                    .document
                    .apply_fix(self.projects.open.as_ref(), path, fix);
                self.apply(effects);
            }
            Effect::Decide(decision) => self.review.decide(decision),
            Effect::Changes(request) => self.ask_changes(request),
            Effect::CloseChanges => self.close_changes(),
            Effect::EditProposal { id, file, text } => self.edit_proposal(id, file, text),
            Effect::Reanalyse => {
                if let Some(project) = self.projects.open.clone() {
                    self.projects.analysis.full(project);
                }
            }
            Effect::History(request) => self.on_history_request(request),
        }
    }

    fn push_overlay(&mut self, overlay: Overlay) {
        // One conflict prompt at a time: a second report of the same change adds nothing.
        let conflict_open = self
            .overlays
            .iter()
            .any(|o| matches!(o, Overlay::Conflict(_)));
        if !(conflict_open && matches!(overlay, Overlay::Conflict(_))) {
            self.overlays.push(overlay);
        }
    }

    /// The keymap context that has the keyboard now.
    pub fn key_context(&self) -> KeyContext {
        match self.overlays.last() {
            Some(overlay) => overlay.context(),
            None => match self.screen {
                Screen::Picker => KeyContext::Picker,
                Screen::Project => self.pane(self.focus).context(),
                Screen::Changes => KeyContext::Changes,
            },
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
        let keyboard = self.overlays.is_empty();
        match self.screen {
            Screen::Picker => {
                let cx = ViewContext {
                    theme: &self.theme,
                    keymap: &self.keymap,
                    focused: keyboard,
                    clock: self.clock,
                };
                self.projects.picker.view(frame, body, &cx);
            }
            Screen::Project => self.view_project(frame, body),
            Screen::Changes => {
                let cx = ViewContext {
                    theme: &self.theme,
                    keymap: &self.keymap,
                    focused: keyboard,
                    clock: self.clock,
                };
                self.changes.view(frame, body, &cx);
            }
        }
        self.view_status(frame, status);
        let cx = ViewContext {
            theme: &self.theme,
            keymap: &self.keymap,
            focused: true,
            clock: self.clock,
        };
        for overlay in &mut self.overlays {
            overlay.view(frame, area, &cx);
        }
    }

    /// The tree on the left, the main area on the right, the findings panel below.
    fn view_project(&mut self, frame: &mut Frame, area: Rect) {
        let (top, findings_area) = if self.show_findings {
            let [top, findings] =
                Layout::vertical([Constraint::Min(5), Constraint::Length(10)]).areas(area);
            (top, Some(findings))
        } else {
            (area, None)
        };
        let tree_width = match (self.zoomed, self.focus) {
            (true, Focus::Tree) => top.width,
            (true, focus) if focus != Focus::Findings => 0,
            _ => (top.width * 2 / 5).clamp(30, 70).min(top.width),
        };
        let [tree_area, main_area] =
            Layout::horizontal([Constraint::Length(tree_width), Constraint::Fill(1)]).areas(top);
        let keyboard = self.overlays.is_empty();
        let cx = |focus| ViewContext {
            theme: &self.theme,
            keymap: &self.keymap,
            focused: keyboard && self.focus == focus,
            clock: self.clock,
        };
        self.tree.view(frame, tree_area, &cx(Focus::Tree));
        match self.main {
            Main::Review { .. } => self.review.pane.view(frame, main_area, &cx(Focus::Review)),
            Main::Timeline { .. } => self.timeline.view(frame, main_area, &cx(Focus::Timeline)),
            Main::Document(mode) => {
                let focus = keyboard.then_some(self.focus);
                let base = ViewContext {
                    theme: &self.theme,
                    keymap: &self.keymap,
                    focused: false,
                    clock: self.clock,
                };
                self.document.view(frame, main_area, mode, &base, focus);
            }
        }
        if let Some(findings_area) = findings_area {
            self.findings
                .view(frame, findings_area, &cx(Focus::Findings));
        }
    }

    /// After a draw at `now`, when the visible region is known: ask the workers for what
    /// the next frame will want (highlighting of the lines on screen, the preview).
    pub fn after_draw(&mut self, now: std::time::Instant) {
        let showing = match (self.screen, self.main) {
            (Screen::Project, Main::Document(mode)) => Some(mode),
            _ => None,
        };
        self.document.after_draw(showing, &self.theme, now);
    }
}

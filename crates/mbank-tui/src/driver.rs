//! Drives the app without a terminal: keys in, worker messages pumped, frames drawn on
//! ratatui's TestBackend. The UI tests, the screenshot generator and the benchmarks all
//! use it, so they exercise the same loop a person does, minus the terminal.
use mbank_core::clock::Clock;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;

use mbank_core::config::Config;
use mbank_core::tokens::{Encoding, TokenCache};

use super::app::{App, Options};
use super::keymap::{KeyChord, Keymap};
use super::message::Message;
use super::panes::tree::RowKind;
use super::theme::Theme;
use super::workers::AnalysisWorker;

/// How long a wait may take before it counts as stuck.
pub(crate) const DEFAULT_WAIT: Duration = Duration::from_secs(20);

#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    #[error("timed out after {0:?} waiting for {1}")]
    Timeout(Duration, String),
    #[error("{0} is not in the tree")]
    NoSuchFile(String),
    #[error("cannot draw: {0}")]
    Draw(String),
    #[error("{0}")]
    Key(String),
}

pub struct Driver {
    pub app: App,
    inbox: Receiver<Message>,
    pub terminal: Terminal<TestBackend>,
    pub wait: Duration,
    /// How far the app's time is ahead of the real one ([`Driver::pass_time`]).
    time_passed: Duration,
}

/// What a driven app starts with; defaults suit tests (no watcher, in-memory cache).
pub struct DriverOptions {
    pub root: PathBuf,
    pub width: u16,
    pub height: u16,
    pub watch: bool,
    pub theme: Theme,
    pub backup_dir: PathBuf,
    pub demo_path: Option<PathBuf>,
    /// Paths under it are drawn as `~/…` (snapshots set it, so no temp path shows).
    pub home: Option<PathBuf>,
    pub keymap: Keymap,
    /// Review sessions open with this (tests set a hermetic git environment).
    pub review: mbank_core::review::ReviewOptions,
    /// What the app judges time by: fixed, so a test draws the same on every day.
    pub clock: Clock,
    /// Where the app's writes keep the text they replace (`None`: nowhere).
    pub history: Option<mbank_core::history::History>,
    /// Record every version into `history` while running (when the lock is free).
    pub record: bool,
}

impl DriverOptions {
    pub fn new(root: &Path, backup_dir: &Path) -> DriverOptions {
        DriverOptions {
            root: root.to_path_buf(),
            width: 140,
            height: 36,
            watch: false,
            theme: Theme::default(),
            backup_dir: backup_dir.to_path_buf(),
            demo_path: None,
            home: None,
            keymap: Keymap::load(None, None).unwrap_or_default(),
            review: mbank_core::review::ReviewOptions::default(),
            clock: mbank_core::demo::clock_of_writing().unwrap_or_default(),
            history: None,
            record: false,
        }
    }
}

impl Driver {
    pub fn start(options: DriverOptions) -> Driver {
        let (outbox, inbox) = mpsc::channel();
        let config = Arc::new(Config::default());
        let encoding = Encoding::O200k;
        let app_options = Options {
            root: options.root,
            root_problem: None,
            config: config.clone(),
            encoding,
            theme: options.theme,
            keymap: options.keymap,
            demo_path: options.demo_path,
            home: options.home,
            watch: options.watch,
            config_dir: None,
            backup_dir: options.backup_dir,
            review: options.review,
            clock: options.clock,
            history: options.history,
            record: options.record,
            search_cache_dir: None,
        };
        let worker = AnalysisWorker::spawn_with_cache(
            config,
            encoding,
            options.clock,
            TokenCache::in_memory(encoding),
            outbox.clone(),
        );
        let mut app = App::with_worker(app_options, outbox, worker);
        app.start();
        let backend = TestBackend::new(options.width.max(20), options.height.max(10));
        Driver {
            app,
            inbox,
            // A TestBackend cannot fail to open.
            terminal: Terminal::new(backend).unwrap_or_else(|e| match e {}),
            wait: DEFAULT_WAIT,
            time_passed: Duration::ZERO,
        }
    }

    /// Lets `by` pass for the app without waiting for it: what it does after a draw (a
    /// pause in typing, say) is judged that much later from now on.
    pub fn pass_time(&mut self, by: Duration) {
        self.time_passed += by;
    }

    /// Feeds worker messages to the app until `done` holds.
    pub fn pump_until(
        &mut self,
        what: &str,
        done: impl Fn(&App) -> bool,
    ) -> Result<(), DriverError> {
        let deadline = Instant::now() + self.wait;
        while !done(&self.app) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(DriverError::Timeout(self.wait, what.to_string()));
            }
            if let Ok(message) = self.inbox.recv_timeout(left.min(Duration::from_millis(20))) {
                self.app.update(message);
            }
        }
        Ok(())
    }

    /// Draws and takes worker answers until none arrives for `quiet`, a few times over,
    /// so highlighting and the preview are in place (benchmarks measure settled frames).
    pub fn settle(&mut self, quiet: Duration) -> Result<(), DriverError> {
        for _ in 0..3 {
            self.draw()?;
            while let Ok(message) = self.inbox.recv_timeout(quiet) {
                self.app.update(message);
            }
        }
        Ok(())
    }

    /// Takes whatever is waiting, without blocking.
    pub fn drain(&mut self) {
        while let Ok(message) = self.inbox.try_recv() {
            self.app.update(message);
        }
    }

    pub fn key(&mut self, code: KeyCode) {
        self.app
            .update(Message::Key(KeyEvent::new(code, KeyModifiers::NONE)));
    }

    pub fn press(&mut self, code: KeyCode, modifiers: KeyModifiers) {
        self.app
            .update(Message::Key(KeyEvent::new(code, modifiers)));
    }

    pub fn ctrl(&mut self, c: char) {
        self.app.update(Message::Key(KeyEvent::new(
            KeyCode::Char(c),
            KeyModifiers::CONTROL,
        )));
    }

    pub fn type_text(&mut self, text: &str) {
        for c in text.chars() {
            self.key(KeyCode::Char(c));
        }
    }

    /// Presses keys written as the keymap writes them, space-separated: `"tab down
    /// enter ctrl-s"`, `"?"`, `"space"`, `"shift-f6"`. Each goes through the loop as a
    /// person's would: the key, the workers' answers until the app is idle (so a key
    /// never races the file the previous one opened), then a frame.
    pub fn keys(&mut self, sequence: &str) -> Result<(), DriverError> {
        for name in sequence.split_whitespace() {
            let chord = KeyChord::parse(name).map_err(DriverError::Key)?;
            self.app
                .update(Message::Key(KeyEvent::new(chord.code, chord.modifiers)));
            self.idle()?;
            self.draw()?;
        }
        Ok(())
    }

    /// Takes the workers' answers until nothing the next key depends on is outstanding.
    pub fn idle(&mut self) -> Result<(), DriverError> {
        self.pump_until("the app to be idle", App::is_idle)
    }

    /// Draws a frame (and lets the app ask its workers for the next one).
    pub fn draw(&mut self) -> Result<&Buffer, DriverError> {
        self.terminal
            .draw(|frame| self.app.view(frame))
            .map_err(|e| DriverError::Draw(e.to_string()))?;
        self.app.after_draw(Instant::now() + self.time_passed);
        Ok(self.terminal.backend().buffer())
    }

    /// Draws a frame and returns it as text, one line per row.
    pub fn screen(&mut self) -> Result<String, DriverError> {
        let buffer = self.draw()?;
        Ok(buffer_text(buffer))
    }

    /// Waits for the scan, filters the picker by `filter`, opens the first match and
    /// waits until its report and first file are shown.
    pub fn open_project(&mut self, filter: &str) -> Result<(), DriverError> {
        self.pump_until("the scan", |app| app.projects.picker.visible_len() > 0)?;
        self.type_text(filter);
        self.key(KeyCode::Enter);
        self.pump_until("the project's report", |app| app.tree.report.is_some())?;
        self.pump_until("the first file", |app| app.document.doc().is_some())
    }

    /// Selects a file row by file name and opens it in the editor (focus moves there).
    pub fn open_file(&mut self, file_name: &str) -> Result<(), DriverError> {
        let index = self
            .app
            .tree
            .rows
            .iter()
            .position(|row| match &row.kind {
                RowKind::File { bank, file } => self
                    .app
                    .tree
                    .file(*bank, *file)
                    .is_some_and(|f| f.file.file_name() == file_name),
                _ => false,
            })
            .ok_or_else(|| DriverError::NoSuchFile(file_name.to_string()))?;
        self.app.tree.cursor.selected = index;
        self.key(KeyCode::Enter);
        let wanted = file_name.to_string();
        self.pump_until(&format!("{file_name} to load"), move |app| {
            app.document
                .doc()
                .is_some_and(|d| d.path.file_name().is_some_and(|n| n == wanted.as_str()))
        })
    }
}

/// A buffer's text, one line per row.
pub fn buffer_text(buffer: &Buffer) -> String {
    let mut out = String::new();
    for y in 0..buffer.area.height {
        for x in 0..buffer.area.width {
            out.push_str(buffer[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

//! The TUI harness every UI test uses: the app's real loop (workers, jobs, review
//! worker) on ratatui's TestBackend through [`Driver`], with waits that fail the test
//! instead of returning errors, and roots that draw the same on every machine.
use std::path::{Path, PathBuf};

use mbank::core::clock::Clock;
use mbank::core::review::ReviewOptions;
use mbank::tui::App;
use mbank::tui::driver::{Driver, DriverOptions};
use mbank::tui::keymap::Keymap;
use mbank::tui::panes::editor::Document;

/// A copy of the demo banks at `<temp>/demo`, dated and aged as of a clock (the dates and
/// ages `assets/demo/ages.toml` gives, by default). The harness names `<temp>` the home
/// folder, so the root draws as `~/demo` whatever the machine's temp folder is.
pub struct DemoBanks {
    temp: tempfile::TempDir,
    root: PathBuf,
    clock: Clock,
}

impl DemoBanks {
    /// The demo as written, judged on the day it was written as of.
    pub fn new() -> DemoBanks {
        DemoBanks::as_of(super::test_clock())
    }

    /// The demo as a copy made at `clock`'s now holds it (its dates moved to that day).
    pub fn as_of(clock: Clock) -> DemoBanks {
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path().join("demo");
        mbank::core::demo::copy_to(&root, &clock).unwrap();
        DemoBanks { temp, root, clock }
    }

    /// The clock the copy was made at: a harness over it judges time by it.
    pub fn clock(&self) -> Clock {
        self.clock
    }

    /// How many days this copy moved the demo's dates.
    pub fn days_moved(&self) -> i64 {
        mbank::core::demo::days_moved(&self.clock).unwrap()
    }

    /// Writes `text` to `path` as an agent would at this copy's clock: the file's
    /// modification time is the clock's now, not the real one.
    pub fn write(&self, path: &Path, text: &str) {
        std::fs::write(path, text).unwrap();
        std::fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(self.clock.now())
            .unwrap();
    }

    /// `text` (dated as the demo is written) with its dates moved as this copy's are.
    pub fn dated(&self, text: &str) -> String {
        mbank::core::demo::shift_dates(text, self.days_moved())
    }

    pub fn path(&self) -> &Path {
        &self.root
    }

    /// The folder the root is drawn from (`~`).
    pub fn home(&self) -> &Path {
        self.temp.path()
    }

    /// A file of the demo, by its path under the root.
    pub fn file(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }
}

/// How a harness starts; the defaults suit tests (no watcher, 140x36, default keys).
pub struct TuiOptions {
    root: PathBuf,
    home: Option<PathBuf>,
    watch: bool,
    size: (u16, u16),
    review: Option<ReviewOptions>,
    keymap: Option<Keymap>,
    clock: Option<Clock>,
    history: Option<mbank::core::history::History>,
    record: bool,
}

impl TuiOptions {
    /// Watch the file system (live refresh on).
    pub fn watch(mut self) -> Self {
        self.watch = true;
        self
    }

    pub fn size(mut self, width: u16, height: u16) -> Self {
        self.size = (width, height);
        self
    }

    /// Paths under `home` draw as `~/…`.
    pub fn home(mut self, home: &Path) -> Self {
        self.home = Some(home.to_path_buf());
        self
    }

    pub fn review(mut self, review: ReviewOptions) -> Self {
        self.review = Some(review);
        self
    }

    /// Judge time by `clock` (the default: the day the demo was written as of).
    pub fn clock(mut self, clock: Clock) -> Self {
        self.clock = Some(clock);
        self
    }

    /// Keep what the app's writes replace in `history`.
    pub fn history(mut self, history: mbank::core::history::History) -> Self {
        self.history = Some(history);
        self
    }

    /// Record every version into the history while running (when the lock is free).
    pub fn record(mut self) -> Self {
        self.record = true;
        self
    }

    /// The vim preset's keys.
    pub fn vim(mut self) -> Self {
        self.keymap = Some(Keymap::load(Some("vim"), None).unwrap());
        self
    }

    pub fn start(self) -> Tui {
        let backups = tempfile::tempdir().unwrap();
        let backup_dir = backups.path().join("conflicts");
        let mut options = DriverOptions::new(&self.root, &backup_dir);
        options.watch = self.watch;
        options.width = self.size.0;
        options.height = self.size.1;
        options.home = self.home;
        // Review snapshots of a folder outside git stay in the test's temp folder.
        options.review = self.review.unwrap_or_else(|| ReviewOptions {
            data_dir: Some(backups.path().join("data")),
            ..ReviewOptions::default()
        });
        if let Some(keymap) = self.keymap {
            options.keymap = keymap;
        }
        if let Some(clock) = self.clock {
            options.clock = clock;
        }
        options.history = self.history;
        options.record = self.record;
        Tui {
            driver: Driver::start(options),
            _backups: backups,
            backup_dir,
        }
    }
}

/// The app driven through its loop.
pub struct Tui {
    pub driver: Driver,
    _backups: tempfile::TempDir,
    /// Where conflict backups go.
    pub backup_dir: PathBuf,
}

impl std::ops::Deref for Tui {
    type Target = Driver;
    fn deref(&self) -> &Driver {
        &self.driver
    }
}

impl std::ops::DerefMut for Tui {
    fn deref_mut(&mut self) -> &mut Driver {
        &mut self.driver
    }
}

impl Tui {
    pub fn options(root: &Path) -> TuiOptions {
        TuiOptions {
            root: root.to_path_buf(),
            home: None,
            watch: false,
            size: (140, 36),
            review: None,
            keymap: None,
            clock: None,
            history: None,
            record: false,
        }
    }

    pub fn start(root: &Path) -> Tui {
        Tui::options(root).start()
    }

    /// Over the demo banks, drawn the same on every machine.
    pub fn demo(demo: &DemoBanks) -> TuiOptions {
        Tui::options(demo.path())
            .home(demo.home())
            .clock(demo.clock())
    }

    pub fn pump_until(&mut self, what: &str, done: impl Fn(&App) -> bool) {
        self.driver.pump_until(what, done).unwrap();
    }

    /// Waits until nothing the next key depends on is outstanding.
    pub fn idle(&mut self) {
        self.driver.idle().unwrap();
    }

    pub fn screen(&mut self) -> String {
        self.driver.screen().unwrap()
    }

    /// Presses keys as the keymap names them: `"tab down enter ctrl-s"`.
    pub fn keys(&mut self, sequence: &str) {
        self.driver.keys(sequence).unwrap();
    }

    /// Opens a project by filtering the picker, then waits for its first file and for
    /// the watcher (writes a test makes after this are seen).
    pub fn open_project(&mut self, filter: &str) {
        self.driver.open_project(filter).unwrap();
        assert_eq!(self.app.screen, mbank::tui::app::Screen::Project);
        self.pump_until("the watches", |app| app.watches_settled());
    }

    pub fn open_file(&mut self, file_name: &str) {
        self.driver.open_file(file_name).unwrap();
    }

    /// The open document.
    pub fn doc(&self) -> &Document {
        self.app.document.doc().expect("a file is open")
    }

    pub fn is_dirty(&self) -> bool {
        self.app.document.is_dirty()
    }

    pub fn toasts(&self) -> String {
        self.app
            .toasts
            .iter()
            .map(|t| t.text.clone())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The screen as text once every worker has answered (figures, highlighting, the
    /// preview) and with no toast: what a snapshot holds.
    pub fn settled_screen(&mut self) -> String {
        self.idle();
        self.driver
            .settle(std::time::Duration::from_millis(150))
            .unwrap();
        self.idle();
        self.app.toasts.clear();
        self.screen()
    }
}

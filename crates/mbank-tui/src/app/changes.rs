//! The journal while the app runs, and the Changes view: the journal worker records every
//! version the watcher reports (when no `mbank watch` holds the recorder lock) and
//! answers the view; the view fills the screen, over every project, and goes back to the
//! screen it was opened from.
use std::path::{Path, PathBuf};

use super::{App, Options, Screen};
use crate::journal_worker::{JournalSetup, JournalWorker};
use crate::message::{ActError, JournalEvent};
use crate::protocol::ChangesRequest;
use crate::workers::Outbox;
use mbank_core::journal::ScopeOptions;
use mbank_core::journal::revert::Reverted;
use mbank_core::scan::discovery::ScanOptions;

impl App {
    /// The journal worker, when this session keeps a history (and its root is usable).
    pub(super) fn spawn_journal(
        options: &Options,
        data_dir: Option<PathBuf>,
        outbox: &Outbox,
    ) -> Option<JournalWorker> {
        let history = options.history.clone()?;
        let data_dir = data_dir?;
        if options.root_problem.is_some() {
            return None;
        }
        let setup = JournalSetup {
            history,
            data_dir,
            scope: ScopeOptions {
                root: options.root.clone(),
                scan: ScanOptions {
                    depth: options.config.scan_depth,
                    ignore: options.config.ignore_set.clone(),
                    home: options.home.clone(),
                },
                config: options.config.journal.clone(),
            },
            record: options.record,
            guard: options.config.serve.guard,
        };
        Some(JournalWorker::spawn(setup, outbox.clone()))
    }

    /// The watcher saw these paths change: recorded, and the Changes view listed again.
    pub(super) fn journal_files_changed(&mut self, paths: &[PathBuf]) {
        if let Some(journal) = &self.journal {
            journal.files_changed(paths.to_vec());
        }
        self.refresh_changes();
    }

    pub(super) fn journal_overflow(&mut self) {
        if let Some(journal) = &self.journal {
            journal.overflow();
        }
        self.refresh_changes();
    }

    fn refresh_changes(&mut self) {
        if self.screen == Screen::Changes {
            self.ask_changes(ChangesRequest::Survey { fresh: false });
        }
    }

    pub(super) fn open_changes(&mut self) {
        if self.screen == Screen::Changes {
            return;
        }
        self.changes_back = self.screen;
        self.screen = Screen::Changes;
        self.changes.home = self.projects.home.clone();
        if self.journal.is_none() {
            self.changes.unavailable = Some(
                "mbank keeps no history in this session (it has no data folder: set MBANK_DATA_DIR or HOME), so it has no changes to show."
                    .to_string(),
            );
            return;
        }
        self.ask_changes(ChangesRequest::Survey { fresh: true });
    }

    pub(super) fn close_changes(&mut self) {
        self.screen = match self.changes_back {
            Screen::Project if self.projects.open.is_some() => Screen::Project,
            _ => Screen::Picker,
        };
    }

    pub(super) fn ask_changes(&mut self, request: ChangesRequest) {
        let Some(journal) = &self.journal else {
            self.changes.busy = false;
            self.toast_error("mbank keeps no history in this session: nothing to do");
            return;
        };
        if let ChangesRequest::Revert { change, .. } = &request
            && let Some(refusal) = self.unsaved_edits_of(&change.path)
        {
            self.changes.busy = false;
            self.toast_error(refusal.replace("not restored", "not reverted"));
            return;
        }
        if matches!(request, ChangesRequest::Survey { .. }) {
            self.changes.expect();
        }
        journal.ask(request);
    }

    /// "Yes" to reverting the whole file at `path`, as the view still shows it.
    pub(super) fn revert_changed_file(&mut self, path: &Path) {
        match self.changes.revert_confirmed(path) {
            Some(request) => self.ask_changes(request),
            None => self.toast_error("the list changed since you were asked; nothing was reverted"),
        }
    }

    pub(super) fn on_journal_event(&mut self, event: JournalEvent) {
        match event {
            JournalEvent::Recording(recording) => self.recording = recording,
            JournalEvent::Folders(folders) => {
                self.journal_folders = folders;
                self.update_watches();
            }
            JournalEvent::Problems(problems) => {
                let more = match problems.len() {
                    0 | 1 => String::new(),
                    n => format!(" (and {} more)", n - 1),
                };
                if let Some(first) = problems.first() {
                    self.toast_error(format!("recording: {first}{more}"));
                }
            }
            JournalEvent::Surveyed { generation, result } => {
                self.changes.set_survey(generation, result)
            }
            JournalEvent::Reverted {
                path,
                display,
                result,
            } => {
                self.changes.answered(result.is_ok());
                match result {
                    Ok(done) => {
                        let what = match done {
                            Reverted::Written => "reverted",
                            Reverted::Restored => "restored",
                            Reverted::Removed => "removed (its text is kept in the history)",
                        };
                        self.toast(format!("{display}: {what}"));
                        // The editor (a clean buffer), the tree and the gauges read it again.
                        self.on_files_changed(vec![path]);
                    }
                    Err(ActError::Conflict) => self.toast_error(format!(
                        "{display} changed on disk since it was shown: listed again, nothing reverted"
                    )),
                    Err(ActError::Other(problem)) => {
                        self.toast_error(format!("{display} not reverted: {problem}"))
                    }
                }
            }
            JournalEvent::MarkedReviewed(result) => match result {
                Ok(count) => self.toast(format!(
                    "marked reviewed: {}",
                    mbank_core::io::text::counted(count, "memory file")
                )),
                Err(problem) => {
                    self.changes.busy = false;
                    self.toast_error(format!("not marked reviewed: {problem}"))
                }
            },
        }
    }
}

//! A file's history: the overlay opened on the selected (or open) file, its versions and
//! diffs read by jobs (one diff at a time; while one runs only the newest wish waits),
//! and restoring a version: refused while the editor holds unsaved edits of the file,
//! confirmed, then carried out by a job through the history's guarded restore. After a
//! restore the open file, the tree and its gauges are read again at once (the watcher's
//! own report of the write may come later, or not at all when it is off).
use std::path::{Path, PathBuf};

use super::{App, Focus};
use crate::jobs;
use crate::message::HistoryEvent;
use crate::overlays::Overlay;
use crate::overlays::confirm::{Confirm, Confirmed};
use crate::overlays::history::HistoryView;
use crate::protocol::{DiffKey, HistoryRequest};

/// The history jobs the app waits on.
#[derive(Debug, Default)]
pub(crate) struct HistoryJobs {
    /// Listings (until their line counts arrive) and restores not answered yet.
    running: usize,
    /// A diff is being computed.
    diffing: bool,
    /// The diff wanted next, asked for while another was computed.
    queued: Option<(PathBuf, DiffKey)>,
    /// The diff being computed was asked for before the file or its history changed:
    /// its answer is not shown.
    stale: bool,
}

impl HistoryJobs {
    #[cfg(any(test, feature = "test-support"))]
    pub(crate) fn is_idle(&self) -> bool {
        self.running == 0 && !self.diffing && self.queued.is_none()
    }
}

impl App {
    /// Opens the history of the file selected in the tree or the review (when it has the
    /// keyboard), or else of the open file.
    pub(super) fn open_history(&mut self) {
        let selected = match self.focus {
            Focus::Tree => self.tree.selected_file(),
            Focus::Review => self.review.pane.file().map(|f| (f.path.clone(), None)),
            _ => None,
        };
        let Some((path, memory_id)) = selected.or_else(|| {
            self.document
                .doc()
                .map(|d| (d.path.clone(), d.memory_id.clone()))
        }) else {
            self.toast("choose a file first: its history opens");
            return;
        };
        let file_name = path
            .file_name()
            .map(mbank_core::markup::sanitize::os_str)
            .unwrap_or_default();
        // An Infinity memory lives in its store, which the history keeps whole.
        let (name, refusal) = match memory_id {
            Some(_) => (
                format!("{file_name} (the whole store)"),
                Some(format!(
                    "an Infinity memory is restored with its whole store: `mbank restore {} VERSION`",
                    path.display()
                )),
            ),
            None => (file_name, None),
        };
        self.overlays
            .push(Overlay::History(Box::new(HistoryView::new(
                path.clone(),
                name,
                refusal,
            ))));
        self.list_history(path);
    }

    /// The watcher saw these paths change: a history open on one of them is read again
    /// (a write adds a version, and the file now is what diffs compare with).
    pub(super) fn refresh_history(&mut self, paths: &[PathBuf]) {
        let open: Vec<PathBuf> = self
            .overlays
            .iter()
            .filter_map(|o| match o {
                Overlay::History(view) if paths.iter().any(|p| view.path.starts_with(p)) => {
                    Some(view.path.clone())
                }
                _ => None,
            })
            .collect();
        for path in open {
            self.list_history(path);
        }
    }

    fn list_history(&mut self, path: PathBuf) {
        self.history_jobs.running += 1;
        jobs::list_history(path, self.file_history.clone(), self.outbox.clone());
    }

    /// The history overlay open on `path`, if one is.
    fn history_view(&mut self, path: &Path) -> Option<&mut HistoryView> {
        self.overlays.iter_mut().rev().find_map(|o| match o {
            Overlay::History(view) if view.path == path => Some(view.as_mut()),
            _ => None,
        })
    }

    /// Why `path` cannot be restored now: the editor holds unsaved edits of it.
    pub(super) fn unsaved_edits_of(&self, path: &Path) -> Option<String> {
        let doc = self.document.doc()?;
        (doc.path == path && (doc.is_dirty() || doc.saving)).then(|| {
            format!(
                "not restored: {} has unsaved edits in the editor; save or undo them first",
                self.document.file_name()
            )
        })
    }

    pub(super) fn on_history_request(&mut self, request: HistoryRequest) {
        match request {
            HistoryRequest::Diff { path, key } => self.ask_history_diff(path, key),
            HistoryRequest::AskRestore {
                path,
                version,
                label,
            } => {
                if let Some(refusal) = self.unsaved_edits_of(&path) {
                    self.toast_error(refusal);
                    return;
                }
                let name = path
                    .file_name()
                    .map(mbank_core::markup::sanitize::os_str)
                    .unwrap_or_default();
                let body = format!(
                    "Restore {label} of {name}? The file as it is now is replaced by it, and kept in the history as a new version (so this can be undone the same way)."
                );
                self.overlays.push(Overlay::Confirm(Confirm::new(
                    "Restore an earlier version?",
                    body,
                    Confirmed::RestoreVersion { path, version },
                )));
            }
        }
    }

    fn ask_history_diff(&mut self, path: PathBuf, key: DiffKey) {
        if self.history_jobs.diffing {
            self.history_jobs.queued = Some((path, key));
        } else {
            self.history_jobs.diffing = true;
            jobs::diff_history(path, key, self.file_history.clone(), self.outbox.clone());
        }
    }

    /// "Yes" to a restore: asked again about unsaved edits (the prompt may be old), then
    /// carried out by a job.
    pub(super) fn restore_version(&mut self, path: PathBuf, version: u64) {
        if let Some(refusal) = self.unsaved_edits_of(&path) {
            self.toast_error(refusal);
            return;
        }
        let Some(project) = self.projects.open.clone() else {
            self.toast_error("not restored: no project is open".to_string());
            return;
        };
        self.history_jobs.running += 1;
        let history = self.file_history.clone();
        let ctx = mbank_core::write::WriteContext::new("restore", self.clock)
            .with_policy(self.config.serve.guard);
        jobs::restore_version(project, path, version, history, ctx, self.outbox.clone());
    }

    pub(super) fn on_history_event(&mut self, event: HistoryEvent) {
        match event {
            HistoryEvent::Listed { path, result } => {
                self.history_jobs.stale |= self.history_jobs.diffing;
                if let Some(effect) = self
                    .history_view(&path)
                    .and_then(|view| view.on_listed(result))
                {
                    self.apply_one(effect);
                }
            }
            HistoryEvent::Counted { path, changes } => {
                self.history_jobs.running = self.history_jobs.running.saturating_sub(1);
                if let Some(view) = self.history_view(&path) {
                    view.on_counted(&changes);
                }
            }
            HistoryEvent::Diffed { path, key, result } => {
                self.history_jobs.diffing = false;
                if std::mem::take(&mut self.history_jobs.stale) {
                    // Computed from texts that may have changed since: ask again.
                    if self.history_jobs.queued.is_none()
                        && let Some(wanted) = self.history_view(&path).and_then(|v| v.wanted())
                    {
                        self.history_jobs.queued = Some((path.clone(), wanted));
                    }
                } else if let Some(effect) = self
                    .history_view(&path)
                    .and_then(|view| view.on_diffed(key, result))
                {
                    self.apply_one(effect);
                }
                // The newest wish, if the overlay still has it and it is not under way.
                if let Some((path, key)) = self.history_jobs.queued.take()
                    && !self.history_jobs.diffing
                    && self.history_view(&path).is_some_and(|view| {
                        view.wanted() == Some(key)
                            && view.diff.as_ref().is_none_or(|(shown, _)| *shown != key)
                    })
                {
                    self.ask_history_diff(path, key);
                }
            }
            HistoryEvent::Restored {
                path,
                version,
                result,
            } => {
                self.history_jobs.running = self.history_jobs.running.saturating_sub(1);
                let name = path
                    .file_name()
                    .map(mbank_core::markup::sanitize::os_str)
                    .unwrap_or_default();
                match result {
                    Ok(()) => {
                        let note = format!(
                            "restored version {version} of {name}; the text it replaced is kept in the history"
                        );
                        // The open file's reload says it too, not just "changed on disk".
                        self.document.note_next_reload(&path, note.clone());
                        self.toast(note);
                        // The editor (a clean buffer), the tree and the gauges read it again.
                        self.on_files_changed(vec![path.clone()]);
                        if self.history_view(&path).is_some() {
                            self.list_history(path);
                        }
                    }
                    Err(problem) => {
                        self.toast_error(format!("{name} not restored: {problem}"));
                    }
                }
            }
        }
    }
}

//! Review orchestration: the review pane asks, the review worker (which owns the
//! session, [`crate::core::review`]) acts, and its answers come back here as toasts,
//! prompts and fresh reviews. Everything that can lose work is confirmed first, naming
//! what is lost.
use std::path::{Path, PathBuf};

use super::{App, Focus, Main};
use crate::tui::message::{ActError, ReviewEvent};
use crate::tui::overlays::Overlay;
use crate::tui::overlays::commit::CommitEditor;
use crate::tui::overlays::confirm::{Confirm, Confirmed};
use crate::tui::review_worker::ReviewRequest;

impl App {
    /// Shows the review of the open project in the main area and asks for it.
    pub(super) fn open_review(&mut self) {
        let Some(project) = self.project.clone() else {
            return;
        };
        self.main = Main::Review {
            back: self.main.view_mode(),
        };
        self.focus = Focus::Review;
        let same = self.review.project.as_deref() == Some(project.path.as_path());
        self.review.expect(&project.path);
        self.show_agent_writes_in_review();
        self.mark_refusals_seen(&project.path);
        if same {
            self.ask_review(ReviewRequest::Compute);
        } else {
            // A new session: its undo history starts empty.
            self.ask_review(ReviewRequest::Open { project });
        }
    }

    /// Sends the review worker a request; one that changes files holds further actions
    /// until the fresh review it is followed by arrives.
    pub(super) fn ask_review(&mut self, request: ReviewRequest) {
        if request.changes_files() {
            self.review.busy = true;
        }
        self.review_worker.send(request);
    }

    /// The watcher saw `paths` change while the review shows `project`: the worker
    /// re-diffs the files the view lists, or recomputes it all when files appeared or
    /// vanished.
    pub(super) fn refresh_review(&mut self, project: &Path, paths: &[PathBuf]) {
        let changed: Vec<(PathBuf, bool)> = paths
            .iter()
            .filter(|p| p.starts_with(project))
            .map(|path| {
                let listed = self
                    .review
                    .review
                    .as_ref()
                    .is_some_and(|r| r.file(path).is_some());
                (path.clone(), listed)
            })
            .collect();
        if !changed.is_empty() {
            self.ask_review(ReviewRequest::FilesChanged(changed));
        }
    }

    /// Commit (git) or mark reviewed (outside git).
    pub(super) fn ask_commit(&mut self) {
        if self.review.is_git {
            // A commit of nothing would open an editor for an empty commit.
            let accepted = self.review.review.as_ref().is_some_and(|review| {
                review
                    .files
                    .iter()
                    .any(|f| f.accepted_added + f.accepted_removed > 0 || f.accepted != f.baseline)
            });
            if !accepted {
                let key = |action| {
                    self.keymap
                        .key_for(crate::tui::keymap::KeyContext::Review, action)
                        .map(|k| k.to_string())
                        .unwrap_or_default()
                };
                let text = format!(
                    "nothing accepted to commit yet: {} accepts a hunk, {} a whole file",
                    key(crate::tui::keymap::Action::AcceptHunk),
                    key(crate::tui::keymap::Action::AcceptFile)
                );
                self.toast(text);
                return;
            }
            self.ask_review(ReviewRequest::CommitMessage);
            return;
        }
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
        self.overlays.push(Overlay::Confirm(Confirm::new(
            "Mark reviewed?",
            format!(
                "Take the memory of {name} as it is now as reviewed? The {} (+{added} −{removed} lines) stop showing here, and the review's undo history is cleared. The files themselves are not touched.",
                crate::core::io::text::counted(review.files.len(), "changed file")
            ),
            Confirmed::MarkReviewed,
        )));
    }

    /// "Yes" to rejecting the file at `path`: sent as the prompt showed it.
    pub(super) fn reject_file(&mut self, path: &Path) {
        match self.pending_reject.take() {
            Some(file) if file.path == path => self.ask_review(ReviewRequest::Act {
                action: crate::core::review::ReviewAction::RejectFile,
                file,
            }),
            _ => self.toast_error("the review changed since you were asked; nothing was rejected"),
        }
    }

    pub(super) fn on_review_event(&mut self, event: ReviewEvent) {
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
                        "{} is new since the baseline: rejecting it deletes the file, and its {} ({} bytes) are lost.",
                        loss.display,
                        crate::core::io::text::counted(loss.lines_lost, "line"),
                        loss.bytes
                    )
                } else if loss.lines_lost > 0 {
                    format!(
                        "{} goes back to the baseline: the {} the change added are lost (accepted ones too).",
                        loss.display,
                        crate::core::io::text::counted(loss.lines_lost, "line")
                    )
                } else {
                    format!(
                        "{} goes back to the baseline: the change only removed lines, which come back; nothing is lost.",
                        loss.display
                    )
                };
                let path = file.path.clone();
                self.pending_reject = Some(file);
                self.overlays.push(Overlay::Confirm(Confirm::new(
                    "Reject the whole file?",
                    message,
                    Confirmed::RejectFile(path),
                )));
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
                    "marked reviewed: the snapshot holds {}",
                    crate::core::io::text::counted(count, "memory file")
                )),
                Err(problem) => self.toast_error(format!("not marked reviewed: {problem}")),
            },
        }
    }
}

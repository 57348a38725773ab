//! Review orchestration: the review pane asks, the review worker (which owns the
//! session, [`mbank_core::review`]) acts, and its answers come back here as toasts,
//! prompts and fresh reviews. Everything that can lose work is confirmed first, naming
//! what is lost.
use std::path::Path;

use super::{App, Focus, Main};
use crate::message::{ActError, ReviewEvent};
use crate::overlays::Overlay;
use crate::overlays::commit::CommitEditor;
use crate::overlays::confirm::{Confirm, Confirmed};
use crate::review_worker::ReviewRequest;

impl App {
    /// Shows the review of the open project in the main area and asks for it.
    pub(super) fn open_review(&mut self) {
        let Some(project) = self.projects.open.clone() else {
            return;
        };
        self.main = Main::Review {
            back: self.main.view_mode(),
        };
        self.focus = Focus::Review;
        let same = self.review.pane.project.as_deref() == Some(project.path.as_path());
        self.review.pane.expect(&project.path);
        self.show_agent_writes_in_review();
        self.mark_refusals_seen(&project.path);
        if same {
            self.review.ask(ReviewRequest::Compute);
        } else {
            // A new session: its undo history starts empty.
            self.review.ask(ReviewRequest::Open { project });
        }
    }

    /// Commit (git) or mark reviewed (outside git).
    pub(super) fn ask_commit(&mut self) {
        if self.review.pane.is_git {
            // A commit of nothing would open an editor for an empty commit.
            if !self.review.anything_accepted() {
                let key = |action| {
                    self.keymap
                        .key_for(crate::keymap::KeyContext::Review, action)
                        .map(|k| k.to_string())
                        .unwrap_or_default()
                };
                let text = format!(
                    "nothing accepted to commit yet: {} accepts a hunk, {} a whole file",
                    key(crate::keymap::Action::AcceptHunk),
                    key(crate::keymap::Action::AcceptFile)
                );
                self.toast(text);
                return;
            }
            self.review.ask(ReviewRequest::CommitMessage);
            return;
        }
        let Some(review) = &self.review.pane.review else {
            return;
        };
        let name = self
            .projects
            .open
            .as_ref()
            .map(|p| p.name.clone())
            .unwrap_or_default();
        let added: usize = review.files.iter().map(|f| f.added).sum();
        let removed: usize = review.files.iter().map(|f| f.removed).sum();
        self.overlays.push(Overlay::Confirm(Confirm::new(
            "Mark reviewed?",
            format!(
                "Take the memory of {name} as it is now as reviewed? The {} (+{added} −{removed} lines) stop showing here, and the review's undo history is cleared. The files themselves are not touched.",
                mbank_core::io::text::counted(review.files.len(), "changed file")
            ),
            Confirmed::MarkReviewed,
        )));
    }

    /// "Yes" to rejecting the file at `path`: sent as the prompt showed it.
    pub(super) fn reject_file(&mut self, path: &Path) {
        if !self.review.reject_file(path) {
            self.toast_error("the review changed since you were asked; nothing was rejected");
        }
    }

    pub(super) fn on_review_event(&mut self, event: ReviewEvent) {
        match event {
            ReviewEvent::Computed {
                project,
                is_git,
                result,
            } => {
                if !self.review.shows(&project) {
                    return;
                }
                match result {
                    Ok(review) => self.review.pane.set_review(review, is_git),
                    Err(problem) => {
                        self.review.pane.loading = false;
                        self.review.pane.busy = false;
                        self.review.pane.problem = Some(problem);
                    }
                }
            }
            ReviewEvent::FileRefreshed {
                project,
                path,
                result,
            } => {
                if !self.review.shows(&project) {
                    return;
                }
                match result {
                    Ok(file) => self.review.pane.set_file(&path, file.map(|f| *f)),
                    Err(problem) => self.toast_error(format!("cannot re-diff: {problem}")),
                }
            }
            ReviewEvent::Acted {
                project,
                action,
                display,
                result,
            } => {
                if !self.review.shows(&project) {
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
                        mbank_core::io::text::counted(loss.lines_lost, "line"),
                        loss.bytes
                    )
                } else if loss.lines_lost > 0 {
                    format!(
                        "{} goes back to the baseline: the {} the change added are lost (accepted ones too).",
                        loss.display,
                        mbank_core::io::text::counted(loss.lines_lost, "line")
                    )
                } else {
                    format!(
                        "{} goes back to the baseline: the change only removed lines, which come back; nothing is lost.",
                        loss.display
                    )
                };
                let path = file.path.clone();
                self.review.hold_reject(file);
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
                        editor.form.failed(problem);
                    }
                    (Err(problem), None) => self.toast_error(format!("not committed: {problem}")),
                }
            }
            ReviewEvent::MarkedReviewed(result) => match result {
                Ok(count) => self.toast(format!(
                    "marked reviewed: the snapshot holds {}",
                    mbank_core::io::text::counted(count, "memory file")
                )),
                Err(problem) => self.toast_error(format!("not marked reviewed: {problem}")),
            },
        }
    }
}

//! The writes an action makes, as undoable steps: the accepted side of a path (git index
//! entry or snapshot copy) and the work-tree file, each set only if it still holds what
//! was expected, and the session's undo history that reverts them.

use std::path::{Path, PathBuf};

use super::ledger;
use super::session::rel_string;
use super::store::{self, IndexEntry};
use super::{ReviewSession, Store};
use crate::error::{CoreError, Result};
use crate::write::{self, Expected};

/// The accepted side of one path, exactly, for undo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum AcceptedState {
    Index(Option<IndexEntry>),
    Snapshot(Option<String>),
}

#[derive(Debug, Clone)]
pub(super) enum Step {
    Worktree {
        path: PathBuf,
        before: Option<String>,
        after: Option<String>,
    },
    Accepted {
        path: PathBuf,
        before: AcceptedState,
        after: AcceptedState,
    },
}

#[derive(Debug, Clone)]
pub(super) struct UndoEntry {
    label: String,
    steps: Vec<Step>,
}

fn expected_of(text: Option<&str>) -> Expected {
    text.map_or(Expected::Missing, Expected::text)
}

impl ReviewSession {
    pub(super) fn accepted_state(&self, path: &Path) -> Result<AcceptedState> {
        Ok(match &self.store {
            Store::Git(git) => AcceptedState::Index(git.index_entry(path)?),
            Store::Snapshot(snapshot) => {
                AcceptedState::Snapshot(snapshot.text(&rel_string(&self.project.path, path))?)
            }
        })
    }

    pub(super) fn accepted_text(
        &self,
        path: &Path,
        state: &AcceptedState,
    ) -> Result<Option<String>> {
        match (&self.store, state) {
            (Store::Git(git), AcceptedState::Index(entry)) => git.text_of(path, entry.as_ref()),
            (_, AcceptedState::Snapshot(text)) => Ok(text.clone()),
            _ => Err(CoreError::Git("review store changed kind".into())),
        }
    }

    /// Sets the accepted text of `path`, if it still is `expected`.
    pub(super) fn set_accepted(
        &mut self,
        path: &Path,
        expected: Option<&str>,
        new: Option<&str>,
    ) -> Result<Step> {
        let before = self.accepted_state(path)?;
        if self.accepted_text(path, &before)?.as_deref() != expected {
            return Err(CoreError::Conflict {
                path: path.to_path_buf(),
            });
        }
        let after = match &mut self.store {
            Store::Git(git) => {
                let entry = match new {
                    Some(text) => {
                        let sha = git.hash_object(text)?;
                        let mode = match &before {
                            AcceptedState::Index(Some(e)) => e.mode.clone(),
                            _ => git
                                .head_entry(path)?
                                .map_or_else(|| "100644".to_string(), |e| e.mode),
                        };
                        Some(IndexEntry { mode, sha })
                    }
                    None => None,
                };
                git.set_index(path, entry.as_ref())?;
                AcceptedState::Index(entry)
            }
            Store::Snapshot(snapshot) => {
                let rel = rel_string(&self.project.path, path);
                snapshot.set(&rel, expected, new, store::mode_of(path))?;
                // The snapshot exists now: its loss must not pass as "never reviewed".
                let _ = ledger::record(snapshot.folder(), &self.project.path);
                AcceptedState::Snapshot(new.map(str::to_string))
            }
        };
        Ok(Step::Accepted {
            path: path.to_path_buf(),
            before,
            after,
        })
    }

    fn restore_accepted(
        &mut self,
        path: &Path,
        expect: &AcceptedState,
        to: &AcceptedState,
    ) -> Result<()> {
        if self.accepted_state(path)? != *expect {
            return Err(CoreError::Conflict {
                path: path.to_path_buf(),
            });
        }
        match (&mut self.store, to) {
            (Store::Git(git), AcceptedState::Index(entry)) => git.set_index(path, entry.as_ref()),
            (Store::Snapshot(snapshot), AcceptedState::Snapshot(text)) => {
                let rel = rel_string(&self.project.path, path);
                let now = match expect {
                    AcceptedState::Snapshot(t) => t.clone(),
                    AcceptedState::Index(_) => None,
                };
                snapshot.set(&rel, now.as_deref(), text.as_deref(), store::mode_of(path))
            }
            _ => Err(CoreError::Git("review store changed kind".into())),
        }
    }

    pub(super) fn write_worktree(
        &self,
        path: &Path,
        expected: Option<&str>,
        new: Option<&str>,
    ) -> Result<Step> {
        // One writer at a time in this folder, with the servers and the editor.
        let _lock = crate::io::lock::for_file(path)?;
        if new.is_some()
            && expected.is_none()
            && let Some(parent) = path.parent()
        {
            std::fs::create_dir_all(parent).map_err(|e| CoreError::io(parent, e))?;
        }
        let ctx = write::WriteContext::new("review", self.options.clock)
            .with_history(self.options.history.clone());
        // What the review replaces or removes is kept in the history first.
        write::apply(
            &ctx,
            write::WriteRequest {
                key: &crate::history::key_of(path),
                target: write::Target::Path(path),
                replaced: expected,
                expected: expected_of(expected),
                change: new.map_or(write::Change::Remove, write::Change::Write),
            },
        )?;
        Ok(Step::Worktree {
            path: path.to_path_buf(),
            before: expected.map(str::to_string),
            after: new.map(str::to_string),
        })
    }

    pub(super) fn record(&mut self, label: String, steps: Vec<Step>) {
        if !steps.is_empty() {
            self.undo.push(UndoEntry { label, steps });
        }
    }

    /// How many actions can be undone.
    pub fn undo_depth(&self) -> usize {
        self.undo.len()
    }

    /// What the next undo would revert, e.g. "accept hunk in memory-bank/progress.md".
    pub fn next_undo(&self) -> Option<&str> {
        self.undo.last().map(|e| e.label.as_str())
    }

    /// Reverts the last action, if the files it wrote still hold what it wrote
    /// (otherwise a conflict, and the action stays on the undo stack).
    pub fn undo(&mut self) -> Result<Option<String>> {
        let Some(entry) = self.undo.last().cloned() else {
            return Ok(None);
        };
        for (done, step) in entry.steps.iter().rev().enumerate() {
            let result = match step {
                Step::Worktree {
                    path,
                    before,
                    after,
                } => self
                    .write_worktree(path, after.as_deref(), before.as_deref())
                    .map(|_| ()),
                Step::Accepted {
                    path,
                    before,
                    after,
                } => self.restore_accepted(path, after, before),
            };
            if let Err(e) = result {
                // Keep what is still to undo on the stack.
                if let Some(last) = self.undo.last_mut() {
                    let remaining = last.steps.len() - done;
                    last.steps.truncate(remaining);
                }
                return Err(e);
            }
        }
        self.undo.pop();
        Ok(Some(entry.label))
    }
}

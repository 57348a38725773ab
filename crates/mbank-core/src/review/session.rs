//! Opening a review session on its store (the git index, or the snapshot outside git),
//! the baseline it compares against, and the three texts of one memory path: baseline,
//! accepted and work tree.

use std::path::Path;

use super::store::{Git, Snapshot};
use super::{Baseline, ReviewOptions, ReviewSession, Store};
use crate::error::{CoreError, Result};
use crate::findings::FindingCode;
use crate::git::{GitRepo, Policy};
use crate::io::confine::{self, ProjectFolder};
use crate::model::Project;

pub(super) fn rel_string(project: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(project).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// The work-tree text of a memory path, `None` when nothing is there. Read through the
/// project's confinement: a file swapped for a symlink out of the project since it was
/// listed (or named by git or a snapshot, never listed) is refused, not read.
pub(super) fn read_worktree(project: &Path, path: &Path) -> Result<Option<String>> {
    match std::fs::symlink_metadata(path) {
        Ok(_) => confine::read_text(&ProjectFolder::new(project), path).map(Some),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(CoreError::io(path, e)),
    }
}

/// The three texts of one path.
pub(super) struct Texts {
    pub(super) baseline: Option<String>,
    pub(super) accepted: Option<String>,
    pub(super) current: Option<String>,
}

/// Why a changed path's texts cannot be read, with the stable code of the error signal
/// the review reports for it (`unreadable`, `snapshot-lost`, `snapshot-unreadable`,
/// `git-failed`).
#[derive(Debug)]
pub(super) struct UnreadableChange {
    pub(super) code: &'static str,
    pub(super) error: CoreError,
}

impl UnreadableChange {
    fn new(code: &'static str, error: CoreError) -> UnreadableChange {
        UnreadableChange { code, error }
    }
}

/// A committed or staged blob that is not text is unreadable like a work-tree file;
/// git failing to produce it is a git failure.
fn committed_code(error: &CoreError) -> &'static str {
    match error {
        CoreError::Git(_) | CoreError::GitRefused { .. } => FindingCode::GitFailed.id(),
        _ => FindingCode::Unreadable.id(),
    }
}

impl ReviewSession {
    /// Opens a review of `project`: against git HEAD when the project is in a git
    /// repository, else against its snapshot. A repository git refuses (or cannot be
    /// run on) is an error ([`CoreError::GitRefused`], [`CoreError::Git`]), never a
    /// bank outside git; a broken snapshot store still opens (so "mark reviewed" can
    /// replace it) but [`ReviewSession::review`] reports it.
    pub fn open(project: &Project, options: ReviewOptions) -> Result<ReviewSession> {
        let store = match GitRepo::find(&project.path)? {
            Some(repo) => Store::Git(Git {
                repo,
                env: options.git_env.clone(),
                commit_policy: if options.run_git_hooks {
                    Policy::CommitHooks
                } else {
                    Policy::Hardened
                },
            }),
            None => Store::Snapshot(Snapshot::open(&project.path, options.data_dir.as_deref())?),
        };
        Ok(ReviewSession {
            project: project.clone(),
            options,
            store,
            undo: Vec::new(),
        })
    }

    pub fn project(&self) -> &Project {
        &self.project
    }

    pub fn is_git(&self) -> bool {
        matches!(self.store, Store::Git(_))
    }

    pub(super) fn baseline(&self) -> Result<Baseline> {
        Ok(match &self.store {
            Store::Git(git) => {
                // One call for the commit and its time; it fails in a repository without
                // commits, which has no HEAD.
                let out = git.run(&crate::git::os(&[
                    "log",
                    "-1",
                    "--no-show-signature",
                    "--format=%H %ct",
                    "HEAD",
                    "--",
                ]))?;
                let text = String::from_utf8_lossy(&out.stdout);
                let mut fields = text.split_whitespace();
                let head = fields.next().filter(|_| out.success).map(str::to_string);
                let committed_at = fields.next().and_then(|t| t.parse().ok());
                Baseline::Git { head, committed_at }
            }
            Store::Snapshot(snapshot) => Baseline::Snapshot {
                exists: snapshot.exists(),
                reviewed_at: snapshot.reviewed_at(),
                folder: snapshot.folder().to_path_buf(),
            },
        })
    }

    pub(super) fn texts(&self, path: &Path) -> std::result::Result<Texts, UnreadableChange> {
        let current = read_worktree(&self.project.path, path).map_err(|e| {
            let code = match e {
                CoreError::NotConfined { .. } => FindingCode::SymlinkOutside.id(),
                _ => FindingCode::Unreadable.id(),
            };
            UnreadableChange::new(code, e)
        })?;
        match &self.store {
            Store::Git(git) => {
                let failed = |e| UnreadableChange::new(FindingCode::GitFailed.id(), e);
                let head = git.head_entry(path).map_err(failed)?;
                let index = git.index_entry(path).map_err(failed)?;
                let baseline = git
                    .text_of(path, head.as_ref())
                    .map_err(|e| UnreadableChange::new(committed_code(&e), e))?;
                let accepted = if index == head {
                    baseline.clone()
                } else {
                    git.text_of(path, index.as_ref())
                        .map_err(|e| UnreadableChange::new(committed_code(&e), e))?
                };
                Ok(Texts {
                    baseline,
                    accepted,
                    current,
                })
            }
            Store::Snapshot(snapshot) => {
                let rel = rel_string(&self.project.path, path);
                let text = snapshot
                    .text(&rel)
                    .map_err(|e| UnreadableChange::new(snapshot.failure_code(&rel), e))?;
                Ok(Texts {
                    baseline: text.clone(),
                    accepted: text,
                    current,
                })
            }
        }
    }
}

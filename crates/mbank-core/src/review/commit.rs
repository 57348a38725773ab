//! Committing the accepted memory changes, and nothing else.
//!
//! The commit is built from a temporary index (`GIT_INDEX_FILE`) holding HEAD plus the
//! accepted memory blobs. By default it is made with git's plumbing (`write-tree`,
//! `commit-tree`, `update-ref`, the message cleaned by `stripspace`), with the user's
//! identity and nothing the repository configures: no hook, no signing program. With
//! `[review] run_git_hooks = true` it is made by `git commit`, so the user's hooks and
//! signing apply as they would to a plain commit. Other staged or unstaged changes
//! never enter it; afterwards only the committed paths are set in the real index, to
//! what the new HEAD holds (`update-index --cacheinfo`, which reads no work-tree file).
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::diff::diff_texts;
use super::store::{Git, IndexEntry};
use crate::analysis::decisions;
use crate::error::{CoreError, Result};
use crate::git;
use crate::git::Policy;
use crate::model::Role;

/// Why the repository cannot commit.
#[derive(Debug, thiserror::Error)]
pub enum CommitError {
    #[error("this bank is not in a git repository; use \"mark reviewed\" instead")]
    NotGit,
    #[error("a merge is in progress; finish or abort it before committing memory")]
    MergeInProgress,
    #[error("a rebase is in progress; finish or abort it before committing memory")]
    RebaseInProgress,
    #[error("a cherry-pick or revert is in progress; finish or abort it first")]
    SequencerInProgress,
    #[error("HEAD is detached (no branch checked out); check out a branch to commit memory")]
    DetachedHead,
    #[error(
        "git has no identity to commit with; set user.name and user.email (git config --global user.email you@example.com): {0}"
    )]
    NoIdentity(String),
    #[error("nothing accepted to commit: accept hunks or files first")]
    NothingAccepted,
    #[error("a git hook refused the commit:\n{output}")]
    HookFailed { output: String },
    #[error("git commit failed:\n{output}")]
    Failed { output: String },
    #[error(transparent)]
    Core(#[from] CoreError),
}

/// A commit made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitOutcome {
    pub commit: String,
    /// Project-relative paths committed.
    pub files: Vec<String>,
}

/// One memory path whose index entry differs from HEAD.
#[derive(Debug, Clone)]
pub(crate) struct Accepted {
    pub(crate) path: PathBuf,
    pub(crate) display: String,
    pub(crate) role: Role,
    pub(crate) head: Option<IndexEntry>,
    pub(crate) index: Option<IndexEntry>,
}

/// Memory paths (those `classify` places) whose staged content differs from HEAD.
pub(crate) fn accepted(
    git: &Git,
    project: &Path,
    classify: impl Fn(&Path) -> Option<Role>,
) -> Result<Vec<Accepted>> {
    let mut found = Vec::new();
    for staged in git.staged()? {
        let Some(role) = classify(&staged.path) else {
            continue;
        };
        if staged.unmerged {
            return Err(CoreError::Git(format!(
                "{} has unresolved merge conflicts in the index",
                staged.path.display()
            )));
        }
        found.push(Accepted {
            display: super::session::rel_string(project, &staged.path),
            head: staged.head,
            index: staged.index,
            role,
            path: staged.path,
        });
    }
    Ok(found)
}

/// The prefilled commit message: a title naming the files, each file with its line
/// counts, and the decisions the accepted changes add.
pub(crate) fn summary(git: &Git, accepted: &[Accepted]) -> Result<String> {
    let names: Vec<String> = accepted
        .iter()
        .map(|a| {
            Path::new(&a.display)
                .file_name()
                .map_or(a.display.clone(), |n| n.to_string_lossy().into_owned())
        })
        .collect();
    let title = match names.len() {
        0 => "memory: no accepted changes".to_string(),
        1..=3 => format!("memory: update {}", names.join(", ")),
        n => format!("memory: update {n} files"),
    };
    let mut files = Vec::new();
    let mut added_decisions = Vec::new();
    for a in accepted {
        let old = git.text_of(&a.path, a.head.as_ref())?;
        let new = git.text_of(&a.path, a.index.as_ref())?;
        let diff = diff_texts(old.as_deref().unwrap_or(""), new.as_deref().unwrap_or(""));
        let letter = match (&a.head, &a.index) {
            (None, _) => 'A',
            (_, None) => 'D',
            _ => 'M',
        };
        files.push(format!(
            "- {letter} {} (+{} -{})",
            a.display, diff.added, diff.removed
        ));
        if a.role.is_decision_log() {
            let before = decisions::parse_file(&a.path, a.role, old.as_deref().unwrap_or(""));
            let after = decisions::parse_file(&a.path, a.role, new.as_deref().unwrap_or(""));
            for d in decisions::lost_entries(&after, &before) {
                added_decisions.push(match d.date {
                    Some(date) => format!("- {} ({date})", d.title),
                    None => format!("- {}", d.title),
                });
            }
        }
    }
    let mut message = format!("{title}\n\nFiles:\n{}\n", files.join("\n"));
    if !added_decisions.is_empty() {
        message.push_str(&format!(
            "\nDecisions added:\n{}\n",
            added_decisions.join("\n")
        ));
    }
    Ok(message)
}

fn git_dir(git: &Git) -> Result<PathBuf> {
    let out = git.run(&git::os(&["rev-parse", "--absolute-git-dir"]))?;
    if !out.success {
        return Err(CoreError::Git(format!(
            "git rev-parse failed: {}",
            out.stderr
        )));
    }
    Ok(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

/// Refusals that do not depend on what was accepted.
fn check_can_commit(git: &Git, dir: &Path) -> std::result::Result<(), CommitError> {
    if dir.join("MERGE_HEAD").exists() {
        return Err(CommitError::MergeInProgress);
    }
    if dir.join("rebase-merge").exists() || dir.join("rebase-apply").exists() {
        return Err(CommitError::RebaseInProgress);
    }
    if dir.join("CHERRY_PICK_HEAD").exists() || dir.join("REVERT_HEAD").exists() {
        return Err(CommitError::SequencerInProgress);
    }
    let branch = git.run(&git::os(&["symbolic-ref", "-q", "HEAD"]))?;
    if !branch.success {
        return Err(CommitError::DetachedHead);
    }
    for variable in ["GIT_AUTHOR_IDENT", "GIT_COMMITTER_IDENT"] {
        let ident = git.run(&git::os(&["var", variable]))?;
        if !ident.success {
            return Err(CommitError::NoIdentity(ident.stderr));
        }
    }
    Ok(())
}

fn hooks_present(git: &Git, dir: &Path) -> bool {
    // Asked without mbank's own `core.hooksPath`, which names no folder.
    let configured = git
        .run_policy(
            &git::os(&["config", "core.hooksPath"]),
            &[],
            None,
            Policy::CommitHooks,
        )
        .ok()
        .filter(|o| o.success)
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    let hooks = match configured {
        Some(path) if path.is_absolute() => path,
        Some(path) => git.repo.root().join(path),
        None => dir.join("hooks"),
    };
    ["pre-commit", "prepare-commit-msg", "commit-msg"]
        .iter()
        .any(|name| hooks.join(name).is_file())
}

pub(crate) fn commit(
    git: &Git,
    accepted: &[Accepted],
    message: &str,
) -> std::result::Result<CommitOutcome, CommitError> {
    let dir = git_dir(git)?;
    check_can_commit(git, &dir)?;
    if accepted.is_empty() {
        return Err(CommitError::NothingAccepted);
    }
    let temp = tempfile::Builder::new()
        .prefix("mbank-commit-")
        .tempdir_in(&dir)
        .map_err(|e| CoreError::io(&dir, e))?;
    let index_file = temp.path().join("index");
    let env = [(
        OsString::from("GIT_INDEX_FILE"),
        index_file.into_os_string(),
    )];
    let has_head = git
        .run(&git::os(&["rev-parse", "-q", "--verify", "HEAD"]))?
        .success;
    let read_tree = if has_head {
        git::os(&["read-tree", "HEAD"])
    } else {
        git::os(&["read-tree", "--empty"])
    };
    let out = git.run_env(&read_tree, &env, None)?;
    if !out.success {
        return Err(CoreError::Git(format!("git read-tree failed: {}", out.stderr)).into());
    }
    for a in accepted {
        git.set_index_with(&a.path, a.index.as_ref(), &env)?;
    }
    let commit = match git.commit_policy {
        Policy::CommitHooks => porcelain_commit(git, &dir, &env, message)?,
        Policy::Hardened => plumbing_commit(git, &env, message, has_head)?,
    };
    // The real index already holds the accepted blobs; a hook may have changed what was
    // committed, so each committed path is set to what the new HEAD holds.
    for a in accepted {
        let committed = git.head_entry(&a.path)?;
        if git.index_entry(&a.path)? != committed {
            git.set_index(&a.path, committed.as_ref()).map_err(|e| {
                CoreError::Git(format!(
                    "committed {commit}, but updating the index failed: {e}"
                ))
            })?;
        }
    }
    Ok(CommitOutcome {
        commit,
        files: accepted.iter().map(|a| a.display.clone()).collect(),
    })
}

/// `git commit` with the user's hooks and signing (`[review] run_git_hooks = true`).
fn porcelain_commit(
    git: &Git,
    dir: &Path,
    env: &[(OsString, OsString)],
    message: &str,
) -> std::result::Result<String, CommitError> {
    let out = git.run_policy(
        &git::os(&["commit", "-q", "-F", "-"]),
        env,
        Some(message.as_bytes()),
        Policy::CommitHooks,
    )?;
    if !out.success {
        let output = format!("{}\n{}", String::from_utf8_lossy(&out.stdout), out.stderr)
            .trim()
            .to_string();
        return Err(if hooks_present(git, dir) {
            CommitError::HookFailed { output }
        } else {
            CommitError::Failed { output }
        });
    }
    let head = git.run(&git::os(&["rev-parse", "HEAD"]))?;
    Ok(String::from_utf8_lossy(&head.stdout).trim().to_string())
}

/// The commit from git's plumbing: the temporary index's tree, a commit object with the
/// cleaned message, and HEAD's branch moved to it only if it still is where it was.
/// Runs no hook and no signing program.
fn plumbing_commit(
    git: &Git,
    env: &[(OsString, OsString)],
    message: &str,
    has_head: bool,
) -> std::result::Result<String, CommitError> {
    let failed = |what: &str, out: &git::Output| CommitError::Failed {
        output: format!("git {what}: {}", out.stderr),
    };
    let cleaned = git.run_env(&git::os(&["stripspace"]), &[], Some(message.as_bytes()))?;
    if !cleaned.success {
        return Err(failed("stripspace", &cleaned));
    }
    let message = cleaned.stdout;
    if message.iter().all(u8::is_ascii_whitespace) {
        return Err(CommitError::Failed {
            output: "the commit message is empty".into(),
        });
    }
    let tree = git.run_env(&git::os(&["write-tree"]), env, None)?;
    if !tree.success {
        return Err(failed("write-tree", &tree));
    }
    let tree = String::from_utf8_lossy(&tree.stdout).trim().to_string();
    let old_head = if has_head {
        let head = git.run(&git::os(&["rev-parse", "-q", "--verify", "HEAD"]))?;
        String::from_utf8_lossy(&head.stdout).trim().to_string()
    } else {
        String::new()
    };
    let mut args = git::os(&["commit-tree", "--no-gpg-sign", &tree]);
    if has_head {
        args.extend(git::os(&["-p", &old_head]));
    }
    args.extend(git::os(&["-F", "-"]));
    let made = git.run_env(&args, &[], Some(&message))?;
    if !made.success {
        return Err(failed("commit-tree", &made));
    }
    let commit = String::from_utf8_lossy(&made.stdout).trim().to_string();
    let subject = String::from_utf8_lossy(&message)
        .lines()
        .next()
        .unwrap_or("")
        .to_string();
    let reason = if has_head {
        format!("commit: {subject}")
    } else {
        format!("commit (initial): {subject}")
    };
    // The old value makes the move fail if someone committed in between.
    let moved = git.run(&git::os(&[
        "update-ref",
        "-m",
        &reason,
        "HEAD",
        &commit,
        &old_head,
    ]))?;
    if !moved.success {
        return Err(failed("update-ref", &moved));
    }
    Ok(commit)
}

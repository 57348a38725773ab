//! Ending a review: outside git "mark reviewed" makes the current memory the new
//! snapshot; in git the accepted memory changes are committed (see `commit`).

use std::collections::BTreeMap;

use super::ledger;
use super::listing::ProjectListing;
use super::session::{read_worktree, rel_string};
use super::store::{self, Git, SnapshotFile};
use super::{CommitError, CommitOutcome, ReviewSession, Store, commit};
use crate::error::{CoreError, Result};

impl ReviewSession {
    /// Outside git: takes the current state of every memory file as the new baseline.
    /// Returns how many files the snapshot holds.
    pub fn mark_reviewed(&mut self) -> Result<usize> {
        let Store::Snapshot(snapshot) = &mut self.store else {
            return Err(CoreError::Git(
                "this project is in a git repository: commit the accepted changes instead of marking it reviewed".into(),
            ));
        };
        let listing = ProjectListing::new(&self.project);
        let mut files = BTreeMap::new();
        for path in listing.places.keys() {
            if let Some(text) = read_worktree(&self.project.path, path)? {
                let mode = store::mode_of(path);
                files.insert(
                    rel_string(&self.project.path, path),
                    SnapshotFile { text, mode },
                );
            }
        }
        snapshot.replace_all(&files, self.options.clock.now())?;
        // Best effort (see `ledger`): the next review records it again if this fails.
        let _ = ledger::record(snapshot.folder(), &self.project.path);
        self.undo.clear();
        Ok(files.len())
    }

    /// A commit message naming the accepted memory changes and the decisions they add.
    pub fn commit_message(&self) -> Result<String> {
        match &self.store {
            Store::Git(git) => commit::summary(git, &self.accepted_paths(git)?),
            Store::Snapshot(_) => Err(CoreError::Git("not a git repository".into())),
        }
    }

    fn accepted_paths(&self, git: &Git) -> Result<Vec<commit::Accepted>> {
        let listing = ProjectListing::new(&self.project);
        commit::accepted(git, &self.project.path, |path| {
            listing.place(path).map(|p| p.role)
        })
    }

    /// Commits the accepted memory changes (and nothing else) with `message`, with the
    /// user's identity; hooks and signing run only with
    /// [`ReviewOptions::run_git_hooks`](super::ReviewOptions::run_git_hooks).
    pub fn commit(&mut self, message: &str) -> std::result::Result<CommitOutcome, CommitError> {
        let Store::Git(git) = &self.store else {
            return Err(CommitError::NotGit);
        };
        let accepted = self.accepted_paths(git).map_err(CommitError::Core)?;
        let outcome = commit::commit(git, &accepted, message)?;
        self.undo.clear();
        Ok(outcome)
    }
}

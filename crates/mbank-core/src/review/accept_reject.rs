//! Accepting and rejecting changes: a hunk, selected lines or a whole file, each refused
//! when the review it was chosen from no longer matches the disk, and recorded for undo.

use super::session::read_worktree;
use super::undo::Step;
use super::{
    FileReview, Hunk, HunkId, LineKind, Loss, RejectOutcome, ReviewSession, Selection,
    apply_to_old, revert_in_new,
};
use crate::error::{CoreError, Result};

/// What an action on `hunk` took, for its undo message: `the hunk @@ -3,2 +3,3 @@`,
/// `line 12`, `lines 12, 14`.
fn chosen(hunk: &Hunk, selection: &Selection) -> String {
    match selection {
        Selection::All => format!("the hunk {}", hunk.header()),
        Selection::Lines(indexes) => {
            let numbers: Vec<String> = indexes
                .iter()
                .filter_map(|&i| hunk.lines.get(i))
                .filter(|l| l.kind != LineKind::Context)
                .filter_map(|l| l.new_line.or(l.old_line))
                .map(|n| n.to_string())
                .collect();
            match numbers.len() {
                0 => format!("lines of the hunk {}", hunk.header()),
                1 => format!("line {}", numbers[0]),
                _ => format!("lines {}", numbers.join(", ")),
            }
        }
    }
}

impl ReviewSession {
    /// Refuses to act on a review that no longer matches the disk or the accepted side.
    fn check_fresh(&self, file: &FileReview) -> Result<()> {
        let conflict = || CoreError::Conflict {
            path: file.path.clone(),
        };
        if file.error.is_some() {
            return Err(conflict());
        }
        if read_worktree(&self.project.path, &file.path)? != file.current {
            return Err(conflict());
        }
        let state = self.accepted_state(&file.path)?;
        let mut accepted = self.accepted_text(&file.path, &state)?;
        if accepted.is_none()
            && let Some(from) = &file.renamed_from
        {
            let state = self.accepted_state(from)?;
            accepted = self.accepted_text(from, &state)?;
        }
        if accepted != file.accepted {
            return Err(conflict());
        }
        Ok(())
    }

    /// The accepted side of a renamed file's old name goes away once any of it is accepted.
    fn drop_old_name(&mut self, file: &FileReview, steps: &mut Vec<Step>) -> Result<()> {
        if let Some(from) = &file.renamed_from {
            let state = self.accepted_state(from)?;
            let text = self.accepted_text(from, &state)?;
            if text.is_some() {
                steps.push(self.set_accepted(from, text.as_deref(), None)?);
            }
        }
        Ok(())
    }

    /// Accepts the selected lines of one hunk: the git index (or the snapshot) takes them.
    pub fn accept(&mut self, file: &FileReview, hunk: HunkId, selection: &Selection) -> Result<()> {
        self.check_fresh(file)?;
        let h = file.diff.hunk(hunk).ok_or_else(|| CoreError::Conflict {
            path: file.path.clone(),
        })?;
        let old = file.accepted.as_deref().unwrap_or("");
        let new = file.current.as_deref().unwrap_or("");
        let mut accepted = apply_to_old(old, new, h, selection);
        let result = if file.current.is_none() && accepted.is_empty() {
            None // the whole deletion is accepted: the path leaves the index
        } else {
            Some(std::mem::take(&mut accepted))
        };
        let expected = self.expected_accepted(file);
        let mut steps = Vec::new();
        let outcome = self
            .set_accepted(&file.path, expected.as_deref(), result.as_deref())
            .map(|s| steps.push(s))
            .and_then(|()| self.drop_old_name(file, &mut steps));
        self.record(
            format!("accept {} in {}", chosen(h, selection), file.display),
            steps,
        );
        outcome
    }

    /// What the accepted side of `file.path` itself holds (a rename's new name may have
    /// nothing yet: its accepted text came from the old name).
    fn expected_accepted(&self, file: &FileReview) -> Option<String> {
        match &file.renamed_from {
            Some(_) => self
                .accepted_state(&file.path)
                .ok()
                .and_then(|s| self.accepted_text(&file.path, &s).ok())
                .flatten(),
            None => file.accepted.clone(),
        }
    }

    /// Rejects the selected lines of one hunk: the work tree file loses them.
    pub fn reject(&mut self, file: &FileReview, hunk: HunkId, selection: &Selection) -> Result<()> {
        self.check_fresh(file)?;
        let h = file.diff.hunk(hunk).ok_or_else(|| CoreError::Conflict {
            path: file.path.clone(),
        })?;
        let old = file.accepted.as_deref().unwrap_or("");
        let new = file.current.as_deref().unwrap_or("");
        let reverted = revert_in_new(old, new, h, selection);
        let step = self.write_worktree(&file.path, file.current.as_deref(), Some(&reverted))?;
        self.record(
            format!("reject {} in {}", chosen(h, selection), file.display),
            vec![step],
        );
        Ok(())
    }

    pub fn accept_hunk(&mut self, file: &FileReview, hunk: HunkId) -> Result<()> {
        self.accept(file, hunk, &Selection::All)
    }

    pub fn reject_hunk(&mut self, file: &FileReview, hunk: HunkId) -> Result<()> {
        self.reject(file, hunk, &Selection::All)
    }

    /// Accepts one line (an index into `Hunk::lines`).
    pub fn accept_line(&mut self, file: &FileReview, hunk: HunkId, line: usize) -> Result<()> {
        self.accept(file, hunk, &Selection::Lines(vec![line]))
    }

    pub fn reject_line(&mut self, file: &FileReview, hunk: HunkId, line: usize) -> Result<()> {
        self.reject(file, hunk, &Selection::Lines(vec![line]))
    }

    /// Accepts the whole file as it is now (a deletion removes it from the index).
    pub fn accept_file(&mut self, file: &FileReview) -> Result<()> {
        self.check_fresh(file)?;
        let expected = self.expected_accepted(file);
        let mut steps = Vec::new();
        let outcome = self
            .set_accepted(&file.path, expected.as_deref(), file.current.as_deref())
            .map(|s| steps.push(s))
            .and_then(|()| self.drop_old_name(file, &mut steps));
        self.record(format!("accept {}", file.display), steps);
        outcome
    }

    /// What rejecting the whole file would throw away.
    pub fn reject_file_loss(&self, file: &FileReview) -> Loss {
        Loss {
            display: file.display.clone(),
            deletes_file: file.current.is_some()
                && (file.baseline.is_none() || file.renamed_from.is_some()),
            lines_lost: file.added,
            bytes: file.current.as_ref().map_or(0, String::len),
        }
    }

    /// Restores the baseline: the work tree file (re-created when deleted; a new file is
    /// deleted only with `confirmed`) and the accepted side both go back to it. A renamed
    /// file comes back under its old name.
    pub fn reject_file(&mut self, file: &FileReview, confirmed: bool) -> Result<RejectOutcome> {
        self.check_fresh(file)?;
        let loss = self.reject_file_loss(file);
        if loss.deletes_file && !confirmed {
            return Ok(RejectOutcome::NeedsConfirmation(loss));
        }
        let mut steps = Vec::new();
        let outcome = self.reject_file_steps(file, &mut steps);
        self.record(format!("reject {}", file.display), steps);
        outcome.map(|()| RejectOutcome::Done)
    }

    fn reject_file_steps(&mut self, file: &FileReview, steps: &mut Vec<Step>) -> Result<()> {
        let baseline = file.baseline.as_deref();
        match &file.renamed_from {
            Some(from) => {
                let old_now = read_worktree(&self.project.path, from)?;
                if old_now.is_some() {
                    return Err(CoreError::Conflict { path: from.clone() });
                }
                steps.push(self.write_worktree(from, None, baseline)?);
                steps.push(self.write_worktree(&file.path, file.current.as_deref(), None)?);
                let state = self.accepted_state(from)?;
                let from_accepted = self.accepted_text(from, &state)?;
                if from_accepted.as_deref() != baseline {
                    steps.push(self.set_accepted(from, from_accepted.as_deref(), baseline)?);
                }
                let state = self.accepted_state(&file.path)?;
                let new_accepted = self.accepted_text(&file.path, &state)?;
                if new_accepted.is_some() {
                    steps.push(self.set_accepted(&file.path, new_accepted.as_deref(), None)?);
                }
            }
            None => {
                if file.current.as_deref() != baseline {
                    steps.push(self.write_worktree(
                        &file.path,
                        file.current.as_deref(),
                        baseline,
                    )?);
                }
                if file.accepted.as_deref() != baseline {
                    steps.push(self.set_accepted(
                        &file.path,
                        file.accepted.as_deref(),
                        baseline,
                    )?);
                }
            }
        }
        Ok(())
    }
}

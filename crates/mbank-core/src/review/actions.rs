//! One review action as a value: what a UI sends to the session that owns the review
//! (a worker thread in the TUI), and the session carrying it out.
use super::{FileReview, HunkId, RejectOutcome, ReviewSession};
use crate::error::Result;

/// An action on the hunk or line the cursor was on, or on the whole file, always with
/// the [`FileReview`] it was chosen from (the session refuses it when the disk moved on).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReviewAction {
    AcceptHunk(HunkId),
    RejectHunk(HunkId),
    /// A line: an index into the hunk's lines.
    AcceptLine(HunkId, usize),
    RejectLine(HunkId, usize),
    AcceptFile,
    /// Rejecting a whole file can delete it: send it only once the user confirmed
    /// ([`ReviewSession::reject_file_loss`] says what is lost).
    RejectFile,
}

impl ReviewAction {
    /// What was done, in words: "accepted the hunk".
    pub fn done(self) -> &'static str {
        match self {
            ReviewAction::AcceptHunk(_) => "accepted the hunk",
            ReviewAction::RejectHunk(_) => "rejected the hunk",
            ReviewAction::AcceptLine(..) => "accepted the line",
            ReviewAction::RejectLine(..) => "rejected the line",
            ReviewAction::AcceptFile => "accepted the file",
            ReviewAction::RejectFile => "restored the file",
        }
    }
}

impl ReviewSession {
    /// Carries out `action` on `file` as it was shown. [`ReviewAction::RejectFile`] counts
    /// as confirmed.
    pub fn apply(&mut self, action: ReviewAction, file: &FileReview) -> Result<()> {
        match action {
            ReviewAction::AcceptHunk(id) => self.accept_hunk(file, id),
            ReviewAction::RejectHunk(id) => self.reject_hunk(file, id),
            ReviewAction::AcceptLine(id, line) => self.accept_line(file, id, line),
            ReviewAction::RejectLine(id, line) => self.reject_line(file, id, line),
            ReviewAction::AcceptFile => self.accept_file(file),
            ReviewAction::RejectFile => match self.reject_file(file, true)? {
                // Confirmed already: the session asks only when unconfirmed.
                RejectOutcome::Done | RejectOutcome::NeedsConfirmation(_) => Ok(()),
            },
        }
    }
}

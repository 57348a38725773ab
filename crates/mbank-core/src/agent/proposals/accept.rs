//! Accepting a proposal: the one step of the store that writes through the bank's and the
//! Infinity store's guarded write paths. It sits above them (they stage into the store
//! below), so the store itself imports neither.
use super::{
    AcceptedPart, Proposal, ProposalError, ProposalResult, ProposalStore, ProposedChange, State,
    chosen_text, files,
};
use crate::agent::WriteReport;
use crate::agent::bank::MarkdownBank;
use crate::agent::infinity::apply_store_change;
use crate::write::WriteContext;

impl ProposalStore {
    /// Accepts a pending proposal, whole or only the hunks numbered in `hunks`, through
    /// the bank's guarded write path with `ctx`'s rules and history (writer `accept`).
    /// Returns the decided proposal and the write's report.
    pub fn accept(
        &self,
        ctx: &WriteContext,
        id: u64,
        hunks: Option<&[usize]>,
    ) -> ProposalResult<(Proposal, WriteReport)> {
        let choice = match hunks {
            Some(hunks) => AcceptedPart::Hunks(hunks),
            None => AcceptedPart::Whole,
        };
        self.accept_choice(ctx, id, choice)
    }

    /// Accepts a pending proposal as a person edited it: `edited` is the text they made
    /// of the proposed one (merged three-way like the proposal when the file changed
    /// since), through the same guarded write path.
    pub fn accept_edited(
        &self,
        ctx: &WriteContext,
        id: u64,
        edited: &str,
    ) -> ProposalResult<(Proposal, WriteReport)> {
        self.accept_choice(ctx, id, AcceptedPart::Edited(edited))
    }

    fn accept_choice(
        &self,
        ctx: &WriteContext,
        id: u64,
        choice: AcceptedPart<'_>,
    ) -> ProposalResult<(Proposal, WriteReport)> {
        let dir = self.folder(false)?.ok_or(ProposalError::NotFound(id))?;
        let _lock = files::lock(&dir)?;
        let proposal = Self::pending(&dir, id)?;
        if let AcceptedPart::Hunks(hunks) = choice {
            let count = proposal.hunks().len();
            if let Some(given) = hunks.iter().find(|n| **n == 0 || **n > count) {
                return Err(ProposalError::NoSuchHunk {
                    id,
                    count,
                    given: *given,
                });
            }
        }
        // The bank and the store are opened afresh here: written, never staged again.
        let ctx = ctx.for_writer("accept");
        let report = if let ProposedChange::Memory(edit) = &proposal.change {
            apply_store_change(&ctx, &proposal.project, |current, project| match choice {
                AcceptedPart::Whole => edit
                    .apply(current, &project.project_id, &ctx.stamp())
                    .map(Some)
                    .map_err(|message| ProposalError::Conflict {
                        id: proposal.id,
                        file: proposal.file.clone(),
                        conflicts: 1,
                        merged: message,
                    }),
                _ => chosen_text(&proposal, choice, current),
            })?
        } else {
            let bank = MarkdownBank::open(&proposal.project)?;
            bank.apply_change(&ctx, &proposal.file, |current| {
                chosen_text(&proposal, choice, current)
            })?
        };
        let hunks = match choice {
            AcceptedPart::Hunks(hunks) => Some(hunks.to_vec()),
            _ => None,
        };
        let decided = self.decide(&dir, proposal, State::Accepted, hunks)?;
        Ok((decided, report))
    }
}

//! Accepting a proposal: the one step of the store that writes through the bank's and the
//! Infinity store's guarded write paths. It sits above them (they stage into the store
//! below), so the store itself imports neither.
use super::{
    AcceptedPart, Proposal, ProposalError, ProposalResult, ProposalStore, ProposedChange, State,
    chosen_text, files,
};
use std::path::Path;

use crate::agent::WriteReport;
use crate::agent::bank::MarkdownBank;
use crate::agent::infinity::apply_store_change;
use crate::agent::saved_memory::{self, SavedScope};
use crate::formats;
use crate::formats::beans_md::saved::SavedMemoryFile;
use crate::write::WriteContext;

/// Where an accepted proposal may write, checked again when it is accepted: a proposal
/// file is data anyone who can write the data folder could have forged.
///
/// - a memory-bank change: a project inside `root` (symlinks resolved), as the server that
///   staged it confined it;
/// - an Infinity memory: a folder that already is an Infinity project (a real
///   `.infinity/project_id`, which the server's `activate_project` made); accepting
///   never creates one;
/// - a saved memory of the global scope: the home folder, and only its global memory
///   file ([`saved_memory_file`]).
fn confine(proposal: &Proposal, root: &Path) -> ProposalResult<()> {
    let outside = |reason: String| ProposalError::Outside {
        id: proposal.id,
        reason,
    };
    let project = std::fs::canonicalize(&proposal.project).map_err(|e| {
        outside(format!(
            "its project {} cannot be resolved ({e})",
            proposal.project.display()
        ))
    })?;
    if let ProposedChange::Memory(_) = proposal.change {
        let id_file = project.join(formats::infinity::PROJECT_ID_PATH);
        let real_file = std::fs::symlink_metadata(&id_file).is_ok_and(|m| m.is_file());
        return if real_file && !proposal.project.join(formats::infinity::DIR).is_symlink() {
            Ok(())
        } else {
            Err(outside(format!(
                "{} is not an Infinity project (no {})",
                project.display(),
                formats::infinity::PROJECT_ID_PATH
            )))
        };
    }
    if let ProposedChange::SavedMemory {
        scope: SavedScope::Global,
        ..
    } = proposal.change
    {
        let home = crate::io::paths::home_dir().and_then(|h| std::fs::canonicalize(h).ok());
        return if home.as_deref() == Some(project.as_path()) {
            Ok(())
        } else {
            Err(outside(format!(
                "{} is not the home folder, where the global memory is",
                project.display()
            )))
        };
    }
    // A real path begins with real folders only: when it begins with `root` as given,
    // `root` is real already and resolving it would give it back.
    if project.starts_with(root) {
        return Ok(());
    }
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    if project.starts_with(&root) {
        Ok(())
    } else {
        Err(outside(format!(
            "its project {} is outside the memory bank root {}",
            project.display(),
            root.display()
        )))
    }
}

/// The file a saved memory may be accepted into: the one the format names for its scope
/// and folder (whatever path the proposal file says), and only when that is the file the
/// proposal names.
fn saved_memory_file(proposal: &Proposal, scope: SavedScope) -> ProposalResult<SavedMemoryFile> {
    let file = match scope {
        SavedScope::Global => saved_memory::global_file(&proposal.project),
        SavedScope::Project => saved_memory::project_file(&proposal.project),
    };
    if file.rel != Path::new(&proposal.file) {
        return Err(ProposalError::Outside {
            id: proposal.id,
            reason: format!(
                "{} is not where Beans-Code's {} memory is saved ({})",
                proposal.file,
                scope.as_str(),
                file.rel.display()
            ),
        });
    }
    Ok(file)
}

impl ProposalStore {
    /// Accepts a pending proposal, whole or only the hunks numbered in `hunks`, through
    /// the bank's guarded write path with `ctx`'s rules and history (writer `accept`).
    /// Returns the decided proposal and the write's report. A proposal whose target is
    /// not inside `root` (or, for a memory, not an Infinity project) is refused.
    pub fn accept(
        &self,
        ctx: &WriteContext,
        root: &Path,
        id: u64,
        hunks: Option<&[usize]>,
    ) -> ProposalResult<(Proposal, WriteReport)> {
        let choice = match hunks {
            Some(hunks) => AcceptedPart::Hunks(hunks),
            None => AcceptedPart::Whole,
        };
        self.accept_choice(ctx, root, id, choice)
    }

    /// Accepts a pending proposal as a person edited it: `edited` is the text they made
    /// of the proposed one (merged three-way like the proposal when the file changed
    /// since), through the same guarded write path.
    pub fn accept_edited(
        &self,
        ctx: &WriteContext,
        root: &Path,
        id: u64,
        edited: &str,
    ) -> ProposalResult<(Proposal, WriteReport)> {
        self.accept_choice(ctx, root, id, AcceptedPart::Edited(edited))
    }

    fn accept_choice(
        &self,
        ctx: &WriteContext,
        root: &Path,
        id: u64,
        choice: AcceptedPart<'_>,
    ) -> ProposalResult<(Proposal, WriteReport)> {
        let dir = self.folder(false)?.ok_or(ProposalError::NotFound(id))?;
        let _lock = files::lock(&dir)?;
        let proposal = Self::pending(&dir, id)?;
        confine(&proposal, root)?;
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
        } else if let ProposedChange::SavedMemory { scope, .. } = &proposal.change {
            let file = saved_memory_file(&proposal, *scope)?;
            saved_memory::apply_change(&ctx, &file, |current| {
                chosen_text(&proposal, choice, current)
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

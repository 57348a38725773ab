//! The one way a change reaches a memory file: whoever writes (an agent's tool, the
//! editor, an accepted proposal, a restore, a review's undo) hands [`apply`] its
//! [`WriteContext`] and the change. The text the change replaces goes to the context's
//! history first (the write does not go ahead if that fails), then the guarded write or
//! removal runs, and the history is told what the file holds now and who made it hold
//! that (the journal, `crate::journal`, names that writer for the version it finds).
use std::path::Path;

use super::context::WriteContext;
use super::{
    Expected, WriteOutcome, folder_beneath, remove_guarded, remove_in, resolve_target,
    write_guarded,
};
use crate::error::{CoreError, Result};
use crate::history::{self, FileFolder, History};
use crate::io::dir_handle::{Dir, FileId};
use crate::model::Bank;

/// Where the file is.
#[derive(Debug, Clone, Copy)]
pub enum Target<'a> {
    /// The file `name` directly in the open folder `dir` (no link followed), and with
    /// `same_file` still the very file read.
    In {
        dir: &'a Dir,
        name: &'a str,
        same_file: Option<FileId>,
    },
    /// A path the caller confined already (a symlink there is followed).
    Path(&'a Path),
    /// The clean relative path `rel` below `anchor`, every folder opened with no link
    /// followed.
    Beneath { anchor: &'a Path, rel: &'a Path },
}

/// What becomes of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change<'a> {
    /// It holds this text.
    Write(&'a str),
    /// It is removed.
    Remove,
}

/// One change of one file.
#[derive(Debug, Clone, Copy)]
pub struct WriteRequest<'a> {
    /// The file's key in the history: its real path ([`history::key_of`], or what
    /// [`super::resolve_target`] returned for it).
    pub key: &'a Path,
    pub target: Target<'a>,
    /// The text the file holds now, kept in the history before it is replaced (`None`:
    /// nothing to keep).
    pub replaced: Option<&'a str>,
    /// What must be on disk for the change to go ahead.
    pub expected: Expected,
    pub change: Change<'a>,
}

/// What a change did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Applied {
    /// The file was written; `hash` is the SHA-256 of the text written, in hex
    /// ([`history::content_hash`]; its first 32 digits are the agent's version).
    Written {
        outcome: WriteOutcome,
        hash: String,
    },
    Removed,
}

/// Applies `request` as `ctx` says: the replaced text kept in the context's history,
/// then the guarded write or removal. The caller holds the folder lock and has judged
/// the change by the guard rules (or, for a person's write, needs none); the `size`
/// rule holds for every writer (a text mbank could not read back is refused here).
pub fn apply(ctx: &WriteContext, request: WriteRequest<'_>) -> Result<Applied> {
    if let Change::Write(text) = request.change {
        // Before the history keeps anything for a write that cannot happen.
        super::refuse_too_large(request.key, text.len() as u64)?;
    }
    let folder = match (&ctx.history, request.replaced) {
        (Some(history), Some(replaced)) => {
            history.record_resolved(request.key, replaced, &ctx.writer)?
        }
        _ => None,
    };
    let text = match request.change {
        Change::Write(text) => text,
        Change::Remove => {
            remove(request.target, request.expected)?;
            note_written(ctx, request.key, folder.as_ref(), None);
            return Ok(Applied::Removed);
        }
    };
    let outcome = match request.target {
        Target::In {
            dir,
            name,
            same_file,
        } => super::write_in(dir, name, text, request.expected, same_file)?,
        Target::Path(path) => write_guarded(path, text, request.expected)?,
        Target::Beneath { anchor, rel } => {
            super::write_beneath(anchor, rel, text, request.expected)?
        }
    };
    // One SHA-256 for the agent's version and the history's next record.
    let hash = history::content_hash(text);
    if let Some(history) = &ctx.history {
        history.remember_written(request.key, text, &hash);
    }
    note_written(ctx, request.key, folder.as_ref(), Some(&hash));
    Ok(Applied::Written { outcome, hash })
}

/// Leaves the note of who made this change beside the file's history, so the journal
/// names the writer of the text it finds rather than "on disk". The change is made: a
/// note that cannot be written only costs that name. `folder`: the file's history
/// folder, when recording the replaced text opened it.
fn note_written(ctx: &WriteContext, key: &Path, folder: Option<&FileFolder>, hash: Option<&str>) {
    let Some(history) = &ctx.history else {
        return;
    };
    let client = ctx.client.as_deref();
    let _ = match folder {
        Some(folder) => history.note_written_in(folder, hash, &ctx.writer, client),
        None => history.note_written(key, hash, &ctx.writer, client),
    };
}

fn remove(target: Target<'_>, expected: Expected) -> Result<()> {
    match target {
        Target::In {
            dir,
            name,
            same_file,
        } => remove_in(dir, name, expected, same_file),
        Target::Path(path) => remove_guarded(path, expected),
        Target::Beneath { anchor, rel } => {
            let (dir, name) = folder_beneath(anchor, rel)?;
            remove_in(&dir, &name, expected, None)
        }
    }
}

/// Brings version `number` of the file `relative_name` of `bank` back from `history`, at
/// a person's word: confined like any write ([`resolve_target`]), under the folder lock,
/// judged by the guard rules of `ctx` as text taken back
/// (`crate::guard::check_taking_back`: a secret, an elided text or a decision log's
/// lost entries brought back are refused, naming the file), guarded against a change
/// made meanwhile, and the text it replaces recorded first (writer: `ctx`'s).
pub fn restore(
    ctx: &WriteContext,
    history: &History,
    bank: &Bank,
    relative_name: &str,
    number: u64,
) -> Result<WriteOutcome> {
    let target = resolve_target(bank, relative_name)?;
    let (_, old) = history.version(&target, number)?;
    let _lock = crate::io::lock::for_file(&target)?;
    let current = match crate::io::text::read_text(&target) {
        Ok(text) => Some(text),
        Err(e) if crate::io::text::is_not_found(&e) => None,
        Err(e) => return Err(e),
    };
    let role = bank
        .files
        .iter()
        .find(|file| file.path == target)
        .map(|file| file.role)
        .or_else(|| crate::formats::names::role_for_name(relative_name))
        .unwrap_or(crate::model::Role::Other);
    crate::guard::check_taking_back(
        &ctx.guard,
        relative_name,
        &target,
        role,
        current.as_deref(),
        Some(&old),
    )
    .map_err(|refusal| CoreError::Refused {
        path: target.clone(),
        rule: refusal.rule(),
        message: refusal.message(),
    })?;
    let expected = match &current {
        Some(_) => Expected::current(&target)?,
        None => Expected::Missing,
    };
    let ctx = ctx.clone().with_history(Some(history.clone()));
    let applied = apply(
        &ctx,
        WriteRequest {
            key: &history::key_of(&target),
            target: Target::Path(&target),
            replaced: current.as_deref(),
            expected,
            change: Change::Write(&old),
        },
    )?;
    match applied {
        Applied::Written { outcome, .. } => Ok(outcome),
        Applied::Removed => Err(CoreError::Conflict { path: target }),
    }
}

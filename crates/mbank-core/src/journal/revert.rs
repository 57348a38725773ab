//! Taking back what changed since a file was last marked reviewed: one hunk, or the whole
//! file back to its baseline (a deleted file is restored, a file new since then removed).
//! Every change is judged by the guard rules of the write's context (`guard::check`: a
//! secret brought back, an elision placeholder standing for most of the file, a decision
//! log losing entries are refused, naming the file; a secret already exposed in the file
//! as it is does not stop taking back another hunk), then goes through the one write
//! pipeline (`write::apply`), confined below the folder of the store the file belongs to
//! with no link followed, under the file's lock, and refused when the file no longer
//! holds the text the change was shown against; the text it replaces is recorded first,
//! and the journal names the writer of the new one.
use std::path::{Component, Path, PathBuf};

use super::changes::FileChange;
use super::scope::{JournalScope, Store};
use crate::error::{CoreError, Result};
use crate::guard;
use crate::io::confine::ProjectFolder;
use crate::model::Role;
use crate::review::{HunkId, Selection, revert_in_new};
use crate::write::{Applied, Change, Expected, Target, WriteContext, WriteRequest};

/// What to take back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Revert {
    /// One hunk of the file's diff against its baseline.
    Hunk(HunkId),
    /// The whole file: back to its baseline.
    File,
}

/// What a revert did to the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reverted {
    /// It holds the reverted text.
    Written,
    /// It was deleted and holds its baseline again.
    Restored,
    /// It was new since the baseline and is removed.
    Removed,
}

/// Takes back `what` of `change` (as a survey of `scope` found it), writing as `ctx`
/// says. Refused with [`CoreError::Conflict`] when the file changed since the survey,
/// and with [`CoreError::Refused`] when the result breaks the context's guard rules.
pub fn revert(
    ctx: &WriteContext,
    scope: &JournalScope,
    change: &FileChange,
    what: Revert,
) -> Result<Reverted> {
    let key = &change.path;
    let file = scope.file(key);
    let store = file
        .map(|file| scope.store_of(file))
        .or_else(|| scope.store_holding(key))
        .ok_or_else(|| {
            CoreError::Config(format!(
                "{} belongs to no memory bank or agent's store under the root",
                key.display()
            ))
        })?;
    let _lock = crate::io::lock::for_file(key)?;
    let current = super::read_if_there(&ProjectFolder::new(&store.allowed_root), key)?;
    if current != change.current_text {
        return Err(CoreError::Conflict { path: key.clone() });
    }
    let baseline = change.baseline_text.as_deref();
    let wanted = match what {
        Revert::File => baseline.map(str::to_string),
        Revert::Hunk(id) => {
            let Some(now) = current.as_deref() else {
                return Err(CoreError::Config(format!(
                    "{} is deleted: restore the whole file",
                    change.display
                )));
            };
            let hunk = change
                .diff
                .hunk(id)
                .ok_or_else(|| CoreError::Conflict { path: key.clone() })?;
            Some(revert_in_new(
                baseline.unwrap_or(""),
                now,
                hunk,
                &Selection::All,
            ))
        }
    };
    let guarded = Guarded {
        key,
        name: &change.display,
        role: file.map_or(Role::Other, |file| file.role),
    };
    let applied = write_in_store(ctx, store, &guarded, current.as_deref(), wanted.as_deref())?;
    Ok(match (applied, current.is_some()) {
        (Some(Applied::Removed), _) => Reverted::Removed,
        (_, false) => Reverted::Restored,
        _ => Reverted::Written,
    })
}

/// The file a revert or restore writes, as the guard rules judge it.
pub(crate) struct Guarded<'a> {
    /// Its key in the history.
    pub key: &'a Path,
    /// As a person reads it (the refusal names it so).
    pub name: &'a str,
    /// Its role (a decision log only grows).
    pub role: Role,
}

/// Writes `wanted` (`None`: removes the file) to `file`, a file of `store` holding
/// `current` now (the caller holds its lock and read it): judged by the guard rules of
/// `ctx` as a person's write (no `expectedVersion`: the caller compared the text), then
/// opened below the store's real folder with no link followed, through the one write
/// pipeline. `None` when there was nothing to do (a file gone that is wanted gone).
pub(crate) fn write_in_store(
    ctx: &WriteContext,
    store: &Store,
    file: &Guarded<'_>,
    current: Option<&str>,
    wanted: Option<&str>,
) -> Result<Option<Applied>> {
    let key = file.key;
    if wanted.is_none() && current.is_none() {
        return Ok(None);
    }
    guard::check_taking_back(&ctx.guard, file.name, key, file.role, current, wanted).map_err(
        |refusal| CoreError::Refused {
            path: key.to_path_buf(),
            rule: refusal.rule(),
            message: refusal.message(),
        },
    )?;
    let real_root =
        std::fs::canonicalize(&store.root).map_err(|e| CoreError::io(&store.root, e))?;
    let rel = relative_below(key, &real_root).ok_or_else(|| {
        CoreError::Config(format!(
            "{} is not a file of {} ({})",
            key.display(),
            store.label,
            store.root.display()
        ))
    })?;
    let expected = match current {
        Some(text) => Expected::text(text),
        None => Expected::Missing,
    };
    let change = match wanted {
        Some(text) => Change::Write(text),
        None => Change::Remove,
    };
    crate::write::apply(
        ctx,
        WriteRequest {
            key,
            target: Target::Beneath {
                anchor: &real_root,
                rel: &rel,
            },
            replaced: current,
            expected,
            change,
        },
    )
    .map(Some)
}

/// `key` below `root`, as plain names (no `..`, not empty).
fn relative_below(key: &Path, root: &Path) -> Option<PathBuf> {
    key.strip_prefix(root)
        .ok()
        .filter(|rel| {
            !rel.as_os_str().is_empty()
                && rel.components().all(|c| matches!(c, Component::Normal(_)))
        })
        .map(Path::to_path_buf)
}

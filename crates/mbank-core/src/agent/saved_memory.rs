//! `save_memory` (and `mbank remember`): a fact kept in Beans-Code's memory, one list
//! item put last under the section the format names, in the file the format names for
//! the scope (`formats::beans_md::saved`). The fact is one line: newlines and runs of
//! spaces in it are joined into single spaces, so it can neither start a heading nor end
//! the section. Like every write it is judged by the guard rules, then staged as a
//! proposal (when `staging` is given) or written through `write::apply`, under the folder
//! lock, with every folder opened without following a link.
use std::path::{Path, PathBuf};

use super::entries;
use super::proposals::{NewProposal, ProposalError, ProposalStore, ProposedChange};
use super::{AgentError, AgentResult, WriteReport};
use crate::error::CoreError;
use crate::formats::beans_md::saved::SavedMemoryFile;
use crate::guard::{self, GuardKind, GuardRequest};
use crate::io::dir_handle::Dir;
use crate::io::lock;
use crate::write::{
    self, Applied, Change, Expected, HandleRead, Target, WriteContext, WriteRequest,
};

pub use crate::formats::beans_md::saved::{
    SAVED_SECTION, SavedScope, file_for, global_file, project_file,
};

/// The list item a fact becomes (`InvalidRequest` when it holds no words).
pub(crate) fn fact_line(fact: &str) -> AgentResult<String> {
    let line = entries::one_line(fact);
    if line.is_empty() {
        return Err(AgentError::InvalidRequest(
            "save_memory needs a fact: it was empty".into(),
        ));
    }
    Ok(format!("- {line}"))
}

/// `text` (`None`: no file yet) with `line` last under the saved-memories section.
pub(crate) fn with_fact(text: Option<&str>, line: &str) -> String {
    entries::append_last_in_section(text.unwrap_or(""), SAVED_SECTION, line)
}

/// How the file is named in messages and proposals: its path below its folder.
fn shown(file: &SavedMemoryFile) -> String {
    file.rel.to_string_lossy().replace('\\', "/")
}

fn core_error(name: &str, error: CoreError) -> AgentError {
    match error {
        CoreError::Confined { reason, .. } => AgentError::Forbidden {
            name: name.to_string(),
            reason,
        },
        CoreError::Conflict { .. } => AgentError::Conflict {
            name: name.to_string(),
        },
        other => AgentError::Core(other),
    }
}

/// The folder holding the file, opened below its anchor with no link followed (created
/// when `create`; `None`: missing) and the file's name in it.
fn open_folder(file: &SavedMemoryFile, create: bool) -> AgentResult<(Option<Dir>, String)> {
    let name_shown = shown(file);
    let fail = |e: crate::io::dir_handle::HandleError| core_error(&name_shown, e.into());
    let name = file
        .rel
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| AgentError::InvalidRequest(format!("{name_shown:?} names no file")))?
        .to_string();
    let anchor = Dir::open_anchor(&file.anchor).map_err(fail)?;
    let Some(folder) = file.rel.parent().filter(|p| !p.as_os_str().is_empty()) else {
        return Ok((Some(anchor), name));
    };
    let folder_name = folder.to_str().unwrap_or_default();
    if create {
        return Ok((
            Some(anchor.create_dir(folder_name, 0o755).map_err(fail)?),
            name,
        ));
    }
    match anchor.entry_meta(folder.as_os_str()).map_err(fail)? {
        Some(_) => Ok((Some(anchor.open_dir(folder).map_err(fail)?), name)),
        None => Ok((None, name)),
    }
}

fn read_current(dir: Option<&Dir>, name: &str, shown: &str) -> AgentResult<Option<HandleRead>> {
    match dir {
        Some(dir) => write::read_text_in(dir, Path::new(name)).map_err(|e| core_error(shown, e)),
        None => Ok(None),
    }
}

/// Saves `fact` to `file` as `ctx`'s write: staged into `staging` (when given) for a
/// person to accept, with `project` as the proposal's folder, else written.
pub fn save(
    ctx: &WriteContext,
    scope: SavedScope,
    file: &SavedMemoryFile,
    project: &Path,
    fact: &str,
    staging: Option<&ProposalStore>,
) -> AgentResult<WriteReport> {
    let line = fact_line(fact)?;
    let name = shown(file);
    guard::check(
        &ctx.guard,
        &GuardRequest {
            file: &name,
            kind: GuardKind::Entry { added: &line },
        },
    )?;
    let path = file.path();
    let (dir, file_name) = open_folder(file, staging.is_none())?;
    let _lock = match &dir {
        Some(_) => Some(lock::for_file(&path).map_err(AgentError::Core)?),
        None => None,
    };
    let current = read_current(dir.as_ref(), &file_name, &name)?;
    let current_text = current.as_ref().map(|c| c.text.as_str());
    let new = with_fact(current_text, &line);
    guard::check(
        &ctx.guard,
        &GuardRequest {
            file: &name,
            kind: GuardKind::Append {
                path: &path,
                old: current_text,
                new: &new,
            },
        },
    )?;
    if let Some(store) = staging {
        return stage(ctx, store, scope, file, project, current_text, new, line);
    }
    let dir = dir.ok_or_else(|| AgentError::Storage(format!("{name}: no folder to write in")))?;
    commit(ctx, &dir, &file_name, &name, &path, current.as_ref(), &new)
}

#[allow(clippy::too_many_arguments)]
fn stage(
    ctx: &WriteContext,
    store: &ProposalStore,
    scope: SavedScope,
    file: &SavedMemoryFile,
    project: &Path,
    current: Option<&str>,
    proposed: String,
    line: String,
) -> AgentResult<WriteReport> {
    let name = shown(file);
    let path = file.path();
    let proposal = store
        .stage(NewProposal {
            project: project.to_path_buf(),
            file: name.clone(),
            path: path.clone(),
            via: ctx.writer.clone(),
            client: ctx.client.clone(),
            base: current.map(str::to_string),
            proposed: Some(proposed),
            change: ProposedChange::SavedMemory { scope, line },
        })
        .map_err(|e| match e {
            ProposalError::Full(message) => AgentError::ProposalLimit(message),
            ProposalError::Agent(e) => e,
            ProposalError::Core(e) => core_error(&name, e),
            other => AgentError::Storage(other.to_string()),
        })?;
    Ok(WriteReport {
        path,
        name,
        created: false,
        version: current.map(guard::content_version).unwrap_or_default(),
        proposal: Some(proposal.id),
    })
}

fn commit(
    ctx: &WriteContext,
    dir: &Dir,
    file_name: &str,
    name: &str,
    path: &Path,
    current: Option<&HandleRead>,
    new: &str,
) -> AgentResult<WriteReport> {
    let key: PathBuf = crate::history::key_of(path);
    let applied = write::apply(
        ctx,
        WriteRequest {
            key: &key,
            target: Target::In {
                dir,
                name: file_name,
                same_file: current.map(|c| c.id),
            },
            replaced: current.map(|c| c.text.as_str()),
            expected: current.map_or(Expected::Missing, HandleRead::expected),
            change: Change::Write(new),
        },
    )
    .map_err(|e| core_error(name, e))?;
    match applied {
        Applied::Written { outcome, hash } => Ok(WriteReport {
            path: outcome.path,
            name: name.to_string(),
            created: outcome.created,
            version: hash[..32].to_string(),
            proposal: None,
        }),
        Applied::Removed => Err(AgentError::Storage(format!("{name} was removed"))),
    }
}

/// Changes `file` under the folder lock to what `change` makes of its current text
/// (`None` in: no file yet), judged as an append by the guard rules and never staged:
/// how an accepted saved memory lands.
pub(crate) fn apply_change<E: From<AgentError>>(
    ctx: &WriteContext,
    file: &SavedMemoryFile,
    change: impl FnOnce(Option<&str>) -> Result<Option<String>, E>,
) -> Result<WriteReport, E> {
    let name = shown(file);
    let path = file.path();
    let (dir, file_name) = open_folder(file, true)?;
    let dir = dir.ok_or_else(|| AgentError::Storage(format!("{name}: no folder to write in")))?;
    let _lock = lock::for_file(&path).map_err(AgentError::Core)?;
    let current = read_current(Some(&dir), &file_name, &name)?;
    let current_text = current.as_ref().map(|c| c.text.as_str());
    let Some(new) = change(current_text)? else {
        return Err(
            AgentError::InvalidRequest(format!("a saved memory never removes {name}")).into(),
        );
    };
    guard::check(
        &ctx.guard,
        &GuardRequest {
            file: &name,
            kind: GuardKind::Append {
                path: &path,
                old: current_text,
                new: &new,
            },
        },
    )
    .map_err(AgentError::from)?;
    Ok(commit(
        ctx,
        &dir,
        &file_name,
        &name,
        &path,
        current.as_ref(),
        &new,
    )?)
}

#[cfg(test)]
mod tests;

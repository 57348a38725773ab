//! Staged writes as agents see them: the answer a staged write gets (the proposal's id,
//! and that the file does not hold the change yet), and `list_proposals`, so an agent can
//! tell its user what waits for review and what became of its earlier writes.
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::args::ToolArgs;
use super::reply::{ToolError, ToolResult};
use super::{Session, Shared};
use mbank_core::agent::bank::WriteReport;
use mbank_core::agent::proposals::{Proposal, ProposalStore, State};

/// `list_proposals`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListProposalsArgs {
    #[schemars(description = "Only this project's proposals (a project under the root)")]
    pub project_path: Option<String>,
    #[schemars(
        description = "Only proposals in this state",
        extend("enum" = [State::Pending.as_str(), State::Accepted.as_str(), State::Rejected.as_str()])
    )]
    pub state: Option<String>,
}

impl ToolArgs for ListProposalsArgs {
    const SPELLINGS: &'static [(&'static str, &'static [&'static str])] =
        &[("projectPath", &["projectName", "path"])];
}

/// What a staged write answers instead of its usual success: structured, so an agent can
/// tell its user that the change waits for review.
pub fn staged(report: &WriteReport, id: u64) -> Value {
    json!({
        "status": "staged",
        "success": true,
        "staged": true,
        "applied": false,
        "proposal": {"id": id, "state": "pending", "file": report.name},
        "message": format!(
            "The write was staged as proposal {id} and is not yet in {}: a person accepts or rejects it (`mbank proposals`, `mbank accept {id}`). list_proposals shows its state.",
            report.name
        ),
    })
}

/// The answer of a write: [`staged`] when the bank staged it, else `written()`.
pub fn answer(report: &WriteReport, written: impl FnOnce() -> Value) -> Value {
    match report.proposal {
        Some(id) => staged(report, id),
        None => written(),
    }
}

/// The answer of writes made by one call (an entry tool touching two files).
pub(crate) fn answer_all(reports: &[WriteReport], written: impl FnOnce() -> Value) -> Value {
    let ids: Vec<u64> = reports.iter().filter_map(|r| r.proposal).collect();
    match reports {
        [one] if one.proposal.is_some() => staged(one, ids[0]),
        _ if !ids.is_empty() => json!({
            "status": "staged",
            "success": true,
            "staged": true,
            "applied": false,
            "proposals": reports
                .iter()
                .filter_map(|r| r.proposal.map(|id| json!({"id": id, "state": "pending", "file": r.name})))
                .collect::<Vec<_>>(),
            "message": format!(
                "The writes were staged as proposals {} and are not yet in the files: a person accepts or rejects them (`mbank proposals`). list_proposals shows their state.",
                ids.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
            ),
        }),
        _ => written(),
    }
}

fn summary(shared: &Shared, proposal: &Proposal) -> Value {
    let hunks = proposal.hunks();
    json!({
        "id": proposal.id,
        "project": shared.root.name_of(&proposal.project),
        "file": proposal.file,
        "tool": proposal.via,
        "created": proposal.created,
        "state": proposal.state.as_str(),
        "decided": proposal.decided,
        "acceptedHunks": proposal.accepted_hunks,
        "kind": proposal.kind(),
        "hunks": hunks.len(),
        "linesAdded": hunks.iter().map(|h| h.added.len()).sum::<usize>(),
        "linesRemoved": hunks.iter().map(|h| h.removed.len()).sum::<usize>(),
    })
}

/// The project `list_proposals` names must exist: said before a problem with `state`.
pub fn check_project(shared: &Shared, args: &ListProposalsArgs) -> Result<(), ToolError> {
    if let Some(spec) = &args.project_path {
        shared.root.existing_project_dir(spec)?;
    }
    Ok(())
}

pub fn list(shared: &Shared, _: &Session, args: ListProposalsArgs) -> ToolResult {
    let project = match args.project_path {
        Some(spec) => Some(shared.root.existing_project_dir(&spec)?),
        None => None,
    };
    let state = args.state;
    let store = shared
        .options
        .staging
        .store
        .clone()
        .or_else(|| ProposalStore::in_data_dir(shared.options.clock));
    let proposals = match store {
        Some(store) => store
            .list()
            .map_err(|e| mbank_core::agent::AgentError::Storage(e.to_string()))?,
        None => Vec::new(),
    };
    // This server's: projects under its root, and its Infinity project.
    let ours = |p: &&Proposal| {
        p.project.starts_with(&shared.root.real) || p.project == shared.options.infinity_project
    };
    let listed: Vec<Value> = proposals
        .iter()
        .filter(ours)
        .filter(|p| project.as_ref().is_none_or(|dir| &p.project == dir))
        .filter(|p| state.as_deref().is_none_or(|s| p.state.as_str() == s))
        .map(|p| summary(shared, p))
        .collect();
    let pending = proposals
        .iter()
        .filter(ours)
        .filter(|p| p.state == State::Pending)
        .count();
    Ok(json!({
        "status": "success",
        "staging": shared.options.staging.any(),
        "pending": pending,
        "proposals": listed,
    }))
}

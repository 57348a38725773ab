//! `save_memory` (Beans-Code's tool; also `POST /memory-bank/saveMemory`): a fact saved
//! to the user's global memory in the home folder or to a project's, staged for a person
//! to approve when the server stages writes. Where it goes and under which heading is the
//! format's; this only maps the arguments.
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::args::ToolArgs;
use super::reply::{ToolError, ToolResult};
use super::{Caller, Session, Shared, memory_bank_mcp};
use mbank_core::agent::AgentError;
use mbank_core::agent::saved_memory::{self, SavedScope};

pub(crate) const SAVE_MEMORY: &str = "save_memory";

/// `save_memory`, and the body of `POST /memory-bank/saveMemory`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SaveMemoryArgs {
    #[schemars(
        description = "The fact to remember, one line (newlines are joined into spaces), e.g. \"The database port is 5432\""
    )]
    pub fact: String,
    #[schemars(
        description = "global: the user's own memory in the home folder, loaded in every project; project: the project's memory file",
        extend("enum" = ["global", "project"])
    )]
    pub scope: String,
    #[schemars(
        description = "With scope project: a project under the memory bank root (its name, or a path inside the root); without it, the session's project, else the root's only project"
    )]
    pub project_path: Option<String>,
}

impl ToolArgs for SaveMemoryArgs {
    const SPELLINGS: &'static [(&'static str, &'static [&'static str])] =
        &[("projectPath", &["projectName"])];
}

pub(crate) fn scope_of(scope: &str) -> Result<SavedScope, AgentError> {
    match scope.trim().to_ascii_lowercase().as_str() {
        "global" => Ok(SavedScope::Global),
        "project" => Ok(SavedScope::Project),
        other => Err(AgentError::InvalidRequest(format!(
            "scope {other:?} is not one save_memory knows: global or project"
        ))),
    }
}

/// The home folder, found as the server finds every home-folder place.
fn home() -> Result<PathBuf, AgentError> {
    mbank_core::io::paths::home_dir().ok_or_else(|| {
        AgentError::InvalidRequest(
            "no home folder is known to this server (HOME is not set): use scope project".into(),
        )
    })
}

/// The tool.
pub(crate) fn save_memory(shared: &Shared, session: &Session, args: SaveMemoryArgs) -> ToolResult {
    shared.writable()?;
    let scope = scope_of(&args.scope)?;
    let project = match scope {
        SavedScope::Project => Some(memory_bank_mcp::current_project(
            shared,
            session,
            args.project_path.as_deref(),
        )?),
        SavedScope::Global => None,
    };
    let caller = session.caller(&format!("mcp:{SAVE_MEMORY}"));
    save_in(shared, scope, project.as_deref(), &args.fact, &caller)
}

/// Saves `fact` for `caller`: to `project`'s memory, or with no project to the global one.
pub(crate) fn save_in(
    shared: &Shared,
    scope: SavedScope,
    project: Option<&Path>,
    fact: &str,
    caller: &Caller,
) -> ToolResult {
    shared.writable()?;
    let home = match scope {
        SavedScope::Global => home()?,
        SavedScope::Project => PathBuf::new(),
    };
    let (folder, file, staging) = match (scope, project) {
        (SavedScope::Project, Some(dir)) => {
            let staging = shared.options.staging.store_for(&shared.root.name_of(dir));
            (dir, saved_memory::project_file(dir), staging)
        }
        (SavedScope::Project, None) => {
            return Err(ToolError::from(AgentError::InvalidRequest(
                "save_memory with scope project needs a project".into(),
            )));
        }
        // Everyone's memory: staged whenever this server stages any project's writes.
        (SavedScope::Global, _) => {
            let staging = &shared.options.staging;
            let store = staging.store.as_ref().filter(|_| staging.any());
            (home.as_path(), saved_memory::global_file(&home), store)
        }
    };
    let ctx = shared.write_context(caller);
    match saved_memory::save(&ctx, scope, &file, folder, fact, staging) {
        Ok(report) => Ok(super::proposals::answer(&report, || {
            json!({
                "status": "success",
                "message": format!("Saved to {} under ## {}", report.path.display(), saved_memory::SAVED_SECTION),
                "scope": scope.as_str(),
                "path": report.path,
                "version": report.version,
                "created": report.created,
            })
        })),
        Err(e) => {
            shared.log_refusal(&ctx, folder, &file.rel.to_string_lossy(), &e);
            Err(e.into())
        }
    }
}

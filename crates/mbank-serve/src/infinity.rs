//! The Infinity tools (the Infinity store spec): six tools over `.infinity/` in the server's project
//! folder, every answer a JSON object, every error `{"error": code}` (as the spec says).
use mbank_core::formats::infinity as store_format;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::args::{NoArgs, ToolArgs};
use super::reply::{ToolError, ToolResult};
use super::{Caller, Session, Shared};
use mbank_core::agent::infinity::{self, InfinityError, InfinityProject};
use mbank_core::formats::infinity::store::MEMORY_TYPES;
use mbank_core::write::WriteContext;

const MEMORY_ID: &str = "The memory's UUID";

/// The tool that loads (or creates) the project every other Infinity tool works in.
pub(crate) const ACTIVATE_PROJECT: &str = "activate_project";

/// `store_memory`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct StoreArgs {
    pub title: String,
    #[serde(rename = "type")]
    #[schemars(extend("enum" = MEMORY_TYPES))]
    pub kind: String,
    #[schemars(description = "Markdown; may be empty")]
    pub content: String,
}

impl ToolArgs for StoreArgs {}

/// `get_memory`, `delete_memory`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct MemoryArgs {
    #[schemars(description = MEMORY_ID)]
    pub memory_id: String,
}

impl ToolArgs for MemoryArgs {}

/// `list_memories`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListMemoriesArgs {
    #[serde(rename = "type")]
    #[schemars(extend("enum" = MEMORY_TYPES))]
    pub kind: Option<String>,
}

impl ToolArgs for ListMemoriesArgs {}

/// `update_memory`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct UpdateMemoryArgs {
    #[schemars(description = MEMORY_ID)]
    pub memory_id: String,
    pub content: String,
    #[serde(rename = "expectedVersion")]
    pub expected_version: Option<String>,
}

impl ToolArgs for UpdateMemoryArgs {}

/// The project an Infinity tool may name: the id `activate_project` returned.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ProjectIdArg {
    #[schemars(
        description = "The project_id activate_project returned. MCP protocol 2026-07-28 keeps no session: there, pass it to every tool"
    )]
    pub project_id: Option<String>,
}

impl ToolArgs for ProjectIdArg {}

/// What a request that stands alone is told when it names no project.
const STATELESS_HINT: &str = "this MCP protocol version (2026-07-28 or later) keeps no session, \
so an activation is not remembered: call activate_project, then pass the project_id it \
returns to every other tool";

/// The project a tool works in: the one its `project_id` names (which must be this
/// server's, activated before), else the session's activated one. Every tool but
/// `activate_project` needs one, and says so before it looks at its other arguments.
pub fn active(
    shared: &Shared,
    session: &Session,
    project_id: Option<&str>,
) -> Result<InfinityProject, ToolError> {
    let Some(wanted) = project_id else {
        return match session.infinity.lock().clone() {
            Some(project) => Ok(project),
            None if session.stateless => {
                let mut error = ToolError::from(InfinityError::ProjectNotActivated);
                error.message = STATELESS_HINT.to_string();
                Err(error)
            }
            None => Err(InfinityError::ProjectNotActivated.into()),
        };
    };
    let session_project = session.infinity.lock().clone();
    let project = match session_project {
        Some(project) => project,
        // Naming a project loads it; creating one is activate_project's.
        None if shared
            .options
            .infinity_project
            .join(store_format::PROJECT_ID_PATH)
            .is_file() =>
        {
            infinity::activate(&shared.options.infinity_project)?
        }
        None => return Err(InfinityError::ProjectNotActivated.into()),
    };
    if project.project_id != wanted.trim() {
        let mut error = ToolError::from(InfinityError::ProjectNotActivated);
        error.message = format!(
            "project_id {:?} is not this server's project: activate_project returns the one to pass",
            wanted.chars().take(80).collect::<String>()
        );
        return Err(error);
    }
    Ok(project)
}

fn writable(shared: &Shared) -> Result<(), ToolError> {
    if shared.options.read_only {
        Err(InfinityError::ReadOnly.into())
    } else {
        Ok(())
    }
}

/// The session's project, its writes staged when the server stages this project's.
fn staging(shared: &Shared, project: InfinityProject) -> InfinityProject {
    let name = shared.root.name_of(&shared.options.infinity_project);
    let store = shared.options.staging.store_for(&name).cloned();
    project.with_staging(store)
}

/// A staged write's answer in this surface's shape: its usual fields, and the
/// proposal's beside them.
fn staged(mut answer: Value, proposal: Option<u64>) -> Value {
    if let (Some(id), Value::Object(map)) = (proposal, &mut answer) {
        let report = mbank_core::agent::bank::WriteReport {
            path: Default::default(),
            name: store_format::STORE_PATH.into(),
            created: false,
            version: String::new(),
            proposal: Some(id),
        };
        if let Value::Object(extra) = super::proposals::staged(&report, id) {
            map.extend(extra);
        }
    }
    answer
}

fn logged(shared: &Shared, ctx: &WriteContext, id: &str, error: InfinityError) -> ToolError {
    if let InfinityError::Refused(refusal) = &error {
        shared.log_refusal_rule(
            ctx,
            &shared.options.infinity_project,
            &format!("{}#{id}", store_format::STORE_PATH),
            refusal.rule(),
            &refusal.message(),
        );
    }
    error.into()
}

pub fn activate(shared: &Shared, session: &Session, _: NoArgs) -> ToolResult {
    // Activation writes `.infinity/` only when it is missing; a read-only server may
    // still load an existing project.
    let id_file = shared
        .options
        .infinity_project
        .join(store_format::PROJECT_ID_PATH);
    if shared.options.read_only && !id_file.is_file() {
        return Err(InfinityError::ReadOnly.into());
    }
    let project = infinity::activate(&shared.options.infinity_project)?;
    let id = project.project_id.clone();
    if session.stateless {
        return Ok(json!({
            "success": true,
            "project_id": id,
            "remembered": false,
            "message": "the activation is not remembered: this MCP protocol version (2026-07-28 or later) keeps no session and every request stands alone; pass this project_id to every other tool",
        }));
    }
    *session.infinity.lock() = Some(project);
    Ok(json!({"success": true, "project_id": id}))
}

pub fn store(
    shared: &Shared,
    caller: &Caller,
    project: InfinityProject,
    args: StoreArgs,
) -> ToolResult {
    writable(shared)?;
    let ctx = shared.write_context(caller);
    let stored = staging(shared, project)
        .store(&ctx, &args.title, &args.kind, &args.content)
        .map_err(|e| logged(shared, &ctx, "new", e))?;
    Ok(staged(
        json!({"success": true, "memory_id": stored.id}),
        stored.proposal,
    ))
}

pub fn get(_: &Shared, _: &Caller, project: InfinityProject, args: MemoryArgs) -> ToolResult {
    let memory = project.get(&args.memory_id)?;
    Ok(json!({"success": true, "memory": memory}))
}

pub fn list(
    _: &Shared,
    _: &Caller,
    project: InfinityProject,
    args: ListMemoriesArgs,
) -> ToolResult {
    let memories = project.list(args.kind.as_deref())?;
    Ok(json!({"success": true, "memories": memories}))
}

pub fn update(
    shared: &Shared,
    caller: &Caller,
    project: InfinityProject,
    args: UpdateMemoryArgs,
) -> ToolResult {
    let UpdateMemoryArgs {
        memory_id: id,
        content,
        expected_version: expected,
    } = args;
    writable(shared)?;
    let ctx = shared.write_context(caller);
    let proposal = staging(shared, project)
        .update(&ctx, &id, &content, expected.as_deref())
        .map_err(|e| logged(shared, &ctx, &id, e))?;
    Ok(staged(json!({"success": true}), proposal))
}

pub fn delete(
    shared: &Shared,
    caller: &Caller,
    project: InfinityProject,
    args: MemoryArgs,
) -> ToolResult {
    writable(shared)?;
    let ctx = shared.write_context(caller);
    let proposal = staging(shared, project).delete(&ctx, &args.memory_id)?;
    Ok(staged(json!({"success": true}), proposal))
}

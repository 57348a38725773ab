//! The Infinity tools (the Infinity store spec): six tools over `.infinity/` in the server's project
//! folder, every answer a JSON object, every error `{"error": code}` (as the spec says).
use mbank_core::formats::infinity as store_format;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::args::{NoArgs, ToolArgs};
use super::reply::{ToolError, ToolResult};
use super::{Session, Shared};
use mbank_core::agent::infinity::{self, InfinityError, InfinityProject};
use mbank_core::formats::infinity::store::MEMORY_TYPES;
use mbank_core::history::as_writer;

const MEMORY_ID: &str = "The memory's UUID";

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
pub struct ListArgs {
    #[serde(rename = "type")]
    #[schemars(extend("enum" = MEMORY_TYPES))]
    pub kind: Option<String>,
}

impl ToolArgs for ListArgs {}

/// `update_memory`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct UpdateArgs {
    #[schemars(description = MEMORY_ID)]
    pub memory_id: String,
    pub content: String,
    #[serde(rename = "expectedVersion")]
    pub expected_version: Option<String>,
}

impl ToolArgs for UpdateArgs {}

/// The session's activated project: every tool but `activate_project` needs one, and
/// says so before it looks at its arguments.
pub fn active(session: &Session) -> Result<InfinityProject, ToolError> {
    session
        .infinity
        .lock()
        .clone()
        .ok_or_else(|| InfinityError::ProjectNotActivated.into())
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

fn logged(shared: &Shared, tool: &str, id: &str, error: InfinityError) -> ToolError {
    if let InfinityError::Refused(refusal) = &error {
        shared.log_refusal_rule(
            &shared.options.infinity_project,
            &format!("{}#{id}", store_format::STORE_PATH),
            refusal.rule(),
            &refusal.message(),
            &format!("mcp:{tool}"),
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
    *session.infinity.lock() = Some(project);
    Ok(json!({"success": true, "project_id": id}))
}

pub fn store(shared: &Shared, project: InfinityProject, args: StoreArgs) -> ToolResult {
    writable(shared)?;
    let stored = as_writer("mcp:store_memory", || {
        staging(shared, project).store(
            &shared.options.policy,
            &args.title,
            &args.kind,
            &args.content,
        )
    })
    .map_err(|e| logged(shared, "store_memory", "new", e))?;
    Ok(staged(
        json!({"success": true, "memory_id": stored.id}),
        stored.proposal,
    ))
}

pub fn get(_: &Shared, project: InfinityProject, args: MemoryArgs) -> ToolResult {
    let memory = project.get(&args.memory_id)?;
    Ok(json!({"success": true, "memory": memory}))
}

pub fn list(_: &Shared, project: InfinityProject, args: ListArgs) -> ToolResult {
    let memories = project.list(args.kind.as_deref())?;
    Ok(json!({"success": true, "memories": memories}))
}

pub fn update(shared: &Shared, project: InfinityProject, args: UpdateArgs) -> ToolResult {
    let UpdateArgs {
        memory_id: id,
        content,
        expected_version: expected,
    } = args;
    writable(shared)?;
    let proposal = as_writer("mcp:update_memory", || {
        staging(shared, project).update(&shared.options.policy, &id, &content, expected.as_deref())
    })
    .map_err(|e| logged(shared, "update_memory", &id, e))?;
    Ok(staged(json!({"success": true}), proposal))
}

pub fn delete(shared: &Shared, project: InfinityProject, args: MemoryArgs) -> ToolResult {
    writable(shared)?;
    let proposal = as_writer("mcp:delete_memory", || {
        staging(shared, project).delete(&args.memory_id)
    })?;
    Ok(staged(json!({"success": true}), proposal))
}

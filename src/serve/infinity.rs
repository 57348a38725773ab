//! The Infinity tools (the Infinity store spec): six tools over `.infinity/` in the server's project
//! folder, every answer a JSON object, every error `{"error": code}` (as the spec says).
use crate::core::formats::infinity as store_format;
use serde_json::{Value, json};

use super::args::Args;
use super::reply::{Flavor, ToolError, ToolResult};
use super::{Session, Shared};
use crate::core::agent::infinity::{self, InfinityError, InfinityProject};
use crate::core::formats::infinity::store::MEMORY_TYPES;
use crate::core::history::as_writer;

pub fn tools() -> Vec<(&'static str, &'static str, Value)> {
    let types: Vec<&str> = MEMORY_TYPES.to_vec();
    let id = json!({"type": "string", "description": "The memory's UUID"});
    vec![
        (
            "activate_project",
            "Scope every other tool to this project (the server's working folder). Call it first in every session.",
            json!({"type": "object", "properties": {}}),
        ),
        (
            "store_memory",
            "Create a memory. Returns its memory_id.",
            json!({"type": "object", "properties": {
                "title": {"type": "string"},
                "type": {"type": "string", "enum": types},
                "content": {"type": "string", "description": "Markdown; may be empty"}
            }, "required": ["title", "type", "content"]}),
        ),
        (
            "get_memory",
            "Get one memory, content included.",
            json!({"type": "object", "properties": {"memory_id": id}, "required": ["memory_id"]}),
        ),
        (
            "list_memories",
            "List memories (id, title, type; no content), optionally of one type.",
            json!({"type": "object", "properties": {"type": {"type": "string", "enum": types}}}),
        ),
        (
            "update_memory",
            "Replace a memory's content (title and type never change). expectedVersion (from get_memory) refuses the update if the memory changed since.",
            json!({"type": "object", "properties": {
                "memory_id": id,
                "content": {"type": "string"},
                "expectedVersion": {"type": "string"}
            }, "required": ["memory_id", "content"]}),
        ),
        (
            "delete_memory",
            "Remove a memory permanently.",
            json!({"type": "object", "properties": {"memory_id": id}, "required": ["memory_id"]}),
        ),
    ]
}

fn active(session: &Session) -> Result<InfinityProject, ToolError> {
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
        let report = crate::core::agent::bank::WriteReport {
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

pub fn call(
    shared: &Shared,
    session: &Session,
    name: &str,
    map: serde_json::Map<String, Value>,
) -> Option<ToolResult> {
    let args = Args::new(map, Flavor::Infinity);
    let result = match name {
        "activate_project" => activate(shared, session),
        "store_memory" => as_writer("mcp:store_memory", || store(shared, session, &args)),
        "get_memory" => get(session, &args),
        "list_memories" => list(session, &args),
        "update_memory" => as_writer("mcp:update_memory", || update(shared, session, &args)),
        "delete_memory" => as_writer("mcp:delete_memory", || delete(shared, session, &args)),
        _ => return None,
    };
    Some(result)
}

fn activate(shared: &Shared, session: &Session) -> ToolResult {
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

fn store(shared: &Shared, session: &Session, args: &Args) -> ToolResult {
    let project = active(session)?;
    let title = args.str(&["title"])?;
    let kind = args.str(&["type"])?;
    let content = args.str(&["content"])?;
    writable(shared)?;
    let stored = staging(shared, project)
        .store(&shared.options.policy, &title, &kind, &content)
        .map_err(|e| logged(shared, "store_memory", "new", e))?;
    Ok(staged(
        json!({"success": true, "memory_id": stored.id}),
        stored.proposal,
    ))
}

fn get(session: &Session, args: &Args) -> ToolResult {
    let project = active(session)?;
    let id = args.str(&["memory_id"])?;
    let memory = project.get(&id)?;
    Ok(json!({"success": true, "memory": memory}))
}

fn list(session: &Session, args: &Args) -> ToolResult {
    let project = active(session)?;
    let kind = args.opt_str(&["type"])?;
    let memories = project.list(kind.as_deref())?;
    Ok(json!({"success": true, "memories": memories}))
}

fn update(shared: &Shared, session: &Session, args: &Args) -> ToolResult {
    let project = active(session)?;
    let id = args.str(&["memory_id"])?;
    let content = args.str(&["content"])?;
    let expected = args.opt_str(&["expectedVersion"])?;
    writable(shared)?;
    let proposal = staging(shared, project)
        .update(&shared.options.policy, &id, &content, expected.as_deref())
        .map_err(|e| logged(shared, "update_memory", &id, e))?;
    Ok(staged(json!({"success": true}), proposal))
}

fn delete(shared: &Shared, session: &Session, args: &Args) -> ToolResult {
    let project = active(session)?;
    let id = args.str(&["memory_id"])?;
    writable(shared)?;
    let proposal = staging(shared, project).delete(&id)?;
    Ok(staged(json!({"success": true}), proposal))
}

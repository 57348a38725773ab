//! The Memory Bank MCP tools (the Memory Bank MCP spec, "MCP Tools") and its five resources. The session
//! has a current project: set by `set_memory_bank_path` or `initialize_memory_bank`, else
//! the root's default project (the root itself, or its only project with a bank).
use std::path::PathBuf;

use serde_json::{Value, json};

use super::args::Args;
use super::reply::{ToolError, ToolResult};
use super::{Session, Shared};
use crate::core::agent::bank::{MarkdownBank, WriteMode, WriteReport};
use crate::core::agent::entries::NewDecision;
use crate::core::agent::{AgentError, rfc3339};
use crate::core::model::Role;

pub fn tools() -> Vec<(&'static str, &'static str, Value)> {
    let none = json!({"type": "object", "properties": {}});
    let list =
        |what: &str| json!({"type": "array", "items": {"type": "string"}, "description": what});
    vec![
        (
            "set_memory_bank_path",
            "Choose the project whose memory bank the other tools use (a project under the root); without path, the default project.",
            json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        ),
        (
            "read_memory_bank_file",
            "Read a file of the current memory bank. Returns content, lastModified and version.",
            json!({"type": "object", "properties": {"filename": {"type": "string"}}, "required": ["filename"]}),
        ),
        (
            "write_memory_bank_file",
            "Create or replace a file of the current memory bank with its complete content. Decision logs are append-only; pass expectedVersion from your read to avoid overwriting a change.",
            json!({"type": "object", "properties": {
                "filename": {"type": "string"},
                "content": {"type": "string"},
                "expectedVersion": {"type": "string"}
            }, "required": ["filename", "content"]}),
        ),
        (
            "list_memory_bank_files",
            "List the files of the current memory bank.",
            none.clone(),
        ),
        (
            "get_memory_bank_status",
            "The current memory bank: its path, whether it is initialized, its files and the mode.",
            none.clone(),
        ),
        (
            "track_progress",
            "Add a dated line to progress.md's Update History (and, with updateActiveContext, a session note to the active context).",
            json!({"type": "object", "properties": {
                "action": {"type": "string", "description": "What kind of work, e.g. Implementation"},
                "description": {"type": "string"},
                "updateActiveContext": {"type": "boolean"}
            }, "required": ["action", "description"]}),
        ),
        (
            "update_active_context",
            "Replace the Ongoing Tasks, Known Issues and/or Next Steps sections of the active context.",
            json!({"type": "object", "properties": {
                "tasks": list("Ongoing tasks"),
                "issues": list("Known issues"),
                "nextSteps": list("Next steps")
            }}),
        ),
        (
            "log_decision",
            "Append a dated decision to the decision log (never rewrites old entries).",
            json!({"type": "object", "properties": {
                "title": {"type": "string"},
                "context": {"type": "string"},
                "decision": {"type": "string"},
                "alternatives": list("Alternatives considered"),
                "consequences": list("Consequences")
            }, "required": ["title", "context", "decision"]}),
        ),
        (
            "switch_mode",
            "Switch to a mode declared by the project's rule files (.clinerules-*, .roomodes), or architect/code/ask/debug/test.",
            json!({"type": "object", "properties": {"mode": {"type": "string"}}, "required": ["mode"]}),
        ),
        (
            "get_current_mode",
            "The current mode and the modes available.",
            none,
        ),
    ]
}

/// The five resources: URI, name, the role of the file they show.
pub const RESOURCES: [(&str, &str, Role); 5] = [
    (
        "memory-bank://product-context",
        "Product_Context",
        Role::Product,
    ),
    (
        "memory-bank://active-context",
        "Active_Context",
        Role::Active,
    ),
    ("memory-bank://progress", "Progress", Role::Progress),
    (
        "memory-bank://decision-log",
        "Decision_Log",
        Role::Decisions,
    ),
    (
        "memory-bank://system-patterns",
        "System_Patterns",
        Role::Patterns,
    ),
];

/// The session's project, or the default one.
pub fn current_project(shared: &Shared, session: &Session) -> Result<PathBuf, AgentError> {
    if let Some(dir) = session.project.lock().clone() {
        return Ok(dir);
    }
    shared.default_project()
}

fn current_bank(
    shared: &Shared,
    session: &Session,
) -> Result<(PathBuf, std::sync::Arc<MarkdownBank>), AgentError> {
    let dir = current_project(shared, session)?;
    let bank = shared.bank(&dir)?;
    Ok((dir, bank))
}

pub fn call(shared: &Shared, session: &Session, name: &str, args: &Args) -> Option<ToolResult> {
    let result = match name {
        "set_memory_bank_path" => set_path(shared, session, args),
        "read_memory_bank_file" => read(shared, session, args),
        "write_memory_bank_file" => write(shared, session, args),
        "list_memory_bank_files" => list(shared, session),
        "get_memory_bank_status" => status(shared, session),
        "track_progress" => track_progress(shared, session, args, "mcp:track_progress"),
        "update_active_context" => {
            update_active_context(shared, session, args, "mcp:update_active_context")
        }
        "log_decision" => log_decision(shared, session, args, "mcp:log_decision"),
        "switch_mode" => switch_mode(shared, session, args),
        "get_current_mode" => current_mode(shared, session),
        _ => return None,
    };
    Some(result)
}

fn set_path(shared: &Shared, session: &Session, args: &Args) -> ToolResult {
    let dir = match args.opt_str(&["path", "projectPath", "projectName"])? {
        Some(spec) => shared.root.existing_project_dir(&spec)?,
        None => shared.default_project()?,
    };
    let initialized = shared.bank(&dir).is_ok();
    *session.project.lock() = Some(dir.clone());
    Ok(json!({
        "success": true,
        "path": dir,
        "project": shared.root.name_of(&dir),
        "memoryBankStatus": if initialized { "initialized" } else { "not_initialized" },
    }))
}

fn read(shared: &Shared, session: &Session, args: &Args) -> ToolResult {
    let file = args.str(&["filename", "fileName"])?;
    let (_, bank) = current_bank(shared, session)?;
    let cached = shared.read(&bank, &file)?;
    let read = &cached.read;
    Ok(json!({
        "content": read.content,
        "lastModified": rfc3339(read.modified),
        "version": read.version,
        "status": "success",
    }))
}

fn write(shared: &Shared, session: &Session, args: &Args) -> ToolResult {
    let file = args.str(&["filename", "fileName"])?;
    let content = args.str(&["content"])?;
    let expected = args.opt_str(&["expectedVersion"])?;
    shared.writable()?;
    let (dir, bank) = current_bank(shared, session)?;
    write_file(
        shared,
        &dir,
        &bank,
        &file,
        &content,
        expected.as_deref(),
        "mcp:write_memory_bank_file",
    )
}

/// Creates or replaces a file (the tool and `POST /memory-bank/file`), logging a refusal.
pub fn write_file(
    shared: &Shared,
    dir: &std::path::Path,
    bank: &MarkdownBank,
    file: &str,
    content: &str,
    expected: Option<&str>,
    via: &str,
) -> ToolResult {
    let written = crate::core::history::as_writer(via, || {
        bank.write(
            &shared.options.policy,
            file,
            content,
            WriteMode::Upsert,
            expected,
        )
    });
    match written {
        Ok(report) => Ok(super::proposals::answer(&report, || {
            json!({
                "status": "success",
                "message": "File written successfully",
                "path": report.path,
                "version": report.version,
                "created": report.created,
            })
        })),
        Err(e) => {
            shared.log_refusal(dir, file, &e, via);
            Err(e.into())
        }
    }
}

fn list(shared: &Shared, session: &Session) -> ToolResult {
    let (_, bank) = current_bank(shared, session)?;
    let files: Vec<String> = bank.list().into_iter().map(|f| f.name).collect();
    Ok(json!({"files": files, "status": "success"}))
}

fn status(shared: &Shared, session: &Session) -> ToolResult {
    let dir = current_project(shared, session)?;
    let mode = session.mode.lock().clone();
    match shared.bank(&dir) {
        Ok(bank) => Ok(json!({
            "status": "ok",
            "memoryBankStatus": "initialized",
            "path": bank.root,
            "project": shared.root.name_of(&dir),
            "format": bank.format.id(),
            "files": bank.list().into_iter().map(|f| f.name).collect::<Vec<_>>(),
            "mode": mode,
            "readOnly": shared.options.read_only,
        })),
        Err(AgentError::NotInitialized { .. }) => Ok(json!({
            "status": "ok",
            "memoryBankStatus": "not_initialized",
            "path": dir,
            "project": shared.root.name_of(&dir),
            "files": [],
            "mode": mode,
            "readOnly": shared.options.read_only,
        })),
        Err(e) => Err(e.into()),
    }
}

fn entry_result(
    shared: &Shared,
    dir: &std::path::Path,
    result: Result<Vec<WriteReport>, AgentError>,
    message: &str,
    via: &str,
) -> ToolResult {
    match result {
        Ok(reports) => Ok(super::proposals::answer_all(&reports, || {
            json!({
                "status": "success",
                "message": message,
                "files": reports.iter().map(|r| json!({"name": r.name, "version": r.version})).collect::<Vec<_>>(),
            })
        })),
        Err(e) => {
            shared.log_refusal(dir, "", &e, via);
            Err(e.into())
        }
    }
}

/// `track_progress` (also `POST /memory-bank/trackProgress`).
pub fn track_progress_in(
    shared: &Shared,
    dir: &std::path::Path,
    args: &Args,
    via: &str,
) -> ToolResult {
    let action = args.str(&["action"])?;
    let description = args.str(&["description"])?;
    let update = args.opt_bool("updateActiveContext")?.unwrap_or(false);
    shared.writable()?;
    let bank = shared.bank(dir)?;
    let now = shared.options.clock.local().naive_local();
    let result = crate::core::history::as_writer(via, || {
        bank.track_progress(&shared.options.policy, now, &action, &description, update)
    });
    entry_result(shared, dir, result, "Progress tracked successfully", via)
}

fn track_progress(shared: &Shared, session: &Session, args: &Args, via: &str) -> ToolResult {
    let dir = current_project(shared, session)?;
    track_progress_in(shared, &dir, args, via)
}

/// The items that replace a section: a list of strings. A single string is refused
/// rather than taken as a list of one: the section it replaces would lose every other
/// item, when the caller most likely meant several lines.
fn section_items(args: &Args, key: &str) -> Result<Option<Vec<String>>, ToolError> {
    if let Ok(Some(_)) = args.opt_str(&[key]) {
        return Err(ToolError::memory_bank(
            "invalid_request",
            format!(
                "argument {key:?} must be a list of strings, e.g. [\"first\", \"second\"], not a string"
            ),
        ));
    }
    args.opt_list(key)
}

/// `update_active_context` (also `POST /memory-bank/updateActiveContext`).
pub fn update_active_context_in(
    shared: &Shared,
    dir: &std::path::Path,
    args: &Args,
    via: &str,
) -> ToolResult {
    let tasks = section_items(args, "tasks")?;
    let issues = section_items(args, "issues")?;
    let next_steps = section_items(args, "nextSteps")?;
    shared.writable()?;
    let bank = shared.bank(dir)?;
    let now = shared.options.clock.local().naive_local();
    let result = crate::core::history::as_writer(via, || {
        bank.update_active_context(
            &shared.options.policy,
            now,
            tasks.as_deref(),
            issues.as_deref(),
            next_steps.as_deref(),
        )
    })
    .map(|r| vec![r]);
    entry_result(
        shared,
        dir,
        result,
        "Active context updated successfully",
        via,
    )
}

fn update_active_context(shared: &Shared, session: &Session, args: &Args, via: &str) -> ToolResult {
    let dir = current_project(shared, session)?;
    update_active_context_in(shared, &dir, args, via)
}

/// `log_decision` (also `POST /memory-bank/logDecision`).
pub fn log_decision_in(
    shared: &Shared,
    dir: &std::path::Path,
    args: &Args,
    via: &str,
) -> ToolResult {
    let decision = NewDecision {
        title: args.str(&["title"])?,
        context: args.str(&["context"])?,
        decision: args.str(&["decision"])?,
        alternatives: args.opt_list("alternatives")?.unwrap_or_default(),
        consequences: args.opt_list("consequences")?.unwrap_or_default(),
    };
    shared.writable()?;
    let bank = shared.bank(dir)?;
    let now = shared.options.clock.local().naive_local();
    let result = crate::core::history::as_writer(via, || {
        bank.log_decision(&shared.options.policy, now, &decision)
    })
    .map(|r| vec![r]);
    entry_result(shared, dir, result, "Decision logged successfully", via)
}

fn log_decision(shared: &Shared, session: &Session, args: &Args, via: &str) -> ToolResult {
    let dir = current_project(shared, session)?;
    log_decision_in(shared, &dir, args, via)
}

fn switch_mode(shared: &Shared, session: &Session, args: &Args) -> ToolResult {
    let mode = args.str(&["mode"])?;
    let dir = current_project(shared, session)?;
    let modes = super::modes_of(&dir);
    let Some(found) = modes.iter().find(|m| m.eq_ignore_ascii_case(mode.trim())) else {
        return Err(ToolError::from(AgentError::ModeNotFound {
            mode,
            available: modes.join(", "),
        }));
    };
    *session.mode.lock() = Some(found.clone());
    Ok(json!({"status": "success", "mode": found, "message": format!("Switched to {found} mode")}))
}

fn current_mode(shared: &Shared, session: &Session) -> ToolResult {
    let dir = current_project(shared, session)?;
    Ok(json!({
        "mode": session.mode.lock().clone(),
        "available": super::modes_of(&dir),
    }))
}

/// The text of resource `uri` in the session's project (`None`: not one of ours).
pub fn read_resource(
    shared: &Shared,
    session: &Session,
    uri: &str,
) -> Option<Result<String, ToolError>> {
    let (_, _, role) = RESOURCES.iter().find(|(u, _, _)| *u == uri)?;
    let result = (|| {
        let (_, bank) = current_bank(shared, session)?;
        let name = bank.file_for(*role);
        Ok(bank.read(&name)?.content)
    })();
    Some(result.map_err(|e: AgentError| ToolError::from(e)))
}

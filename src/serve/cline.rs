//! The Cline memory bank tools (the Cline memory bank spec), with their exact names and parameters.
//! `projectPath` may also be sent as `projectName` (the widely used memory-bank server's
//! key); either is a project under the root. Reads return `version` beside the spec's
//! fields; writes take an optional `expectedVersion`.
use serde_json::{Value, json};

use super::args::Args;
use super::reply::{ToolError, ToolResult};
use super::{Session, Shared};
use crate::core::agent::bank::{self, WriteMode};
use crate::core::agent::{AgentError, rfc3339};
use crate::core::formats;
use crate::core::model::Role;

/// The tools of this surface: name, description, input schema.
pub fn tools() -> Vec<(&'static str, &'static str, Value)> {
    let project = json!({
        "type": "string",
        "description": "A project under the memory bank root: its name, a path relative to the root, or an absolute path inside it (projectName is accepted too)"
    });
    let file_name = json!({
        "type": "string",
        "description": "A .md file in the project's memory-bank/ folder, e.g. activeContext.md (no .., no absolute paths)"
    });
    let version = json!({
        "type": "string",
        "description": "Optional: the version a read returned; the write is refused if the file changed since"
    });
    vec![
        (
            "initialize_memory_bank",
            "Create memory-bank/ with the seven template files in a project (existing files are kept). Takes projectPath (Cline) or path (Memory Bank MCP); brief fills projectBrief.md.",
            json!({"type": "object", "properties": {
                "projectPath": project,
                "path": {"type": "string", "description": "Same as projectPath (Memory Bank MCP spelling)"},
                "brief": {"type": "string", "description": "Optional one-paragraph project brief"}
            }}),
        ),
        (
            "list_projects",
            "List the projects under the memory bank root that have a memory-bank/ folder.",
            json!({"type": "object", "properties": {}}),
        ),
        (
            "memory_bank_read",
            "Read a file of a project's memory bank. Returns content, lastModified and version.",
            json!({"type": "object", "properties": {"projectPath": project, "fileName": file_name}, "required": ["fileName"]}),
        ),
        (
            "memory_bank_write",
            "Create a new file in a project's memory bank (fails if it exists). Decision logs are append-only; secrets outside <private> blocks are refused.",
            json!({"type": "object", "properties": {"projectPath": project, "fileName": file_name, "content": {"type": "string"}}, "required": ["fileName", "content"]}),
        ),
        (
            "memory_bank_update",
            "Replace an existing file of a project's memory bank with the complete new content (no \"[... rest unchanged ...]\" placeholders). Pass expectedVersion from your read to avoid overwriting someone else's change.",
            json!({"type": "object", "properties": {"projectPath": project, "fileName": file_name, "content": {"type": "string"}, "expectedVersion": version}, "required": ["fileName", "content"]}),
        ),
        (
            "list_project_files",
            "List the files of a project's memory bank with size and lastModified.",
            json!({"type": "object", "properties": {"projectPath": project}}),
        ),
        (
            "validate_project",
            "Check a project's memory bank for the required and recommended files (the Cline memory bank spec).",
            json!({"type": "object", "properties": {"projectPath": project}}),
        ),
    ]
}

const PROJECT_KEYS: [&str; 2] = ["projectPath", "projectName"];

fn project_spec(args: &Args) -> Result<Option<String>, ToolError> {
    args.opt_str(&PROJECT_KEYS)
}

/// Runs one tool of this surface (`None`: not one of its tools).
pub fn call(shared: &Shared, session: &Session, name: &str, args: &Args) -> Option<ToolResult> {
    let result = match name {
        "initialize_memory_bank" => initialize(shared, session, args),
        "list_projects" => Ok(list_projects(shared)),
        "memory_bank_read" => read(shared, args),
        "memory_bank_write" => write(shared, args, WriteMode::Create, name),
        "memory_bank_update" => write(shared, args, WriteMode::Update, name),
        "list_project_files" => list_files(shared, args),
        "validate_project" => validate(shared, args),
        _ => return None,
    };
    Some(result)
}

/// `initialize_memory_bank`, shared with the Memory Bank MCP surface (`path`), which also
/// makes the project the session's current one.
pub fn initialize(shared: &Shared, session: &Session, args: &Args) -> ToolResult {
    let spec = args.str(&["projectPath", "path", "projectName"])?;
    let brief = args.opt_str(&["brief"])?;
    shared.writable()?;
    let dir = shared.root.project_dir(&spec)?;
    if shared
        .options
        .staging
        .store_for(&shared.root.name_of(&dir))
        .is_some()
    {
        return Err(AgentError::InvalidRequest(
            "this server stages writes for a person to review, and a new memory bank cannot be staged: ask the person to run `mbank init` for this project".into(),
        )
        .into());
    }
    let report =
        bank::initialize(&shared.options.policy, &dir, brief.as_deref()).inspect_err(|e| {
            shared.log_refusal(&dir, "projectBrief.md", e, "mcp:initialize_memory_bank");
        })?;
    shared.forget(&dir);
    *session.project.lock() = Some(dir.clone());
    Ok(json!({
        "success": true,
        "path": report.bank,
        "project": shared.root.name_of(&dir),
        "created": report.created,
        "kept": report.kept,
    }))
}

fn list_projects(shared: &Shared) -> Value {
    let projects: Vec<Value> = shared
        .root
        .memory_bank_projects()
        .iter()
        .map(|p| {
            let real = std::fs::canonicalize(&p.path).unwrap_or_else(|_| p.path.clone());
            json!({"name": shared.root.name_of(&real), "path": real})
        })
        .collect();
    Value::Array(projects)
}

fn read(shared: &Shared, args: &Args) -> ToolResult {
    let file = args.str(&["fileName", "filename"])?;
    let dir = shared.project(project_spec(args)?.as_deref())?;
    let bank = shared.bank(&dir)?;
    let cached = shared.read(&bank, &file)?;
    let read = &cached.read;
    Ok(json!({
        "content": read.content,
        "lastModified": rfc3339(read.modified),
        "version": read.version,
    }))
}

fn write(shared: &Shared, args: &Args, mode: WriteMode, tool: &str) -> ToolResult {
    let file = args.str(&["fileName", "filename"])?;
    let content = args.str(&["content"])?;
    let expected = args.opt_str(&["expectedVersion"])?;
    shared.writable()?;
    let dir = shared.project(project_spec(args)?.as_deref())?;
    let bank = shared.bank(&dir)?;
    let written = crate::core::history::as_writer(&format!("mcp:{tool}"), || {
        bank.write(
            &shared.options.policy,
            &file,
            &content,
            mode,
            expected.as_deref(),
        )
    });
    match written {
        Ok(report) => Ok(super::proposals::answer(&report, || {
            json!({
                "success": true,
                "path": report.path,
                "version": report.version,
                "created": report.created,
            })
        })),
        Err(e) => {
            shared.log_refusal(&dir, &file, &e, &format!("mcp:{tool}"));
            Err(e.into())
        }
    }
}

fn list_files(shared: &Shared, args: &Args) -> ToolResult {
    let dir = shared.project(project_spec(args)?.as_deref())?;
    let files: Vec<Value> = shared
        .bank(&dir)?
        .list()
        .into_iter()
        .map(|f| json!({"name": f.name, "size": f.size, "lastModified": rfc3339(f.modified)}))
        .collect();
    Ok(Value::Array(files))
}

/// the Cline memory bank spec: required and recommended files, by role (any spelling counts).
const REQUIRED: [(Role, &str, &str); 3] = formats::cline::TOOL_REQUIRED;
const RECOMMENDED: [(Role, &str, &str); 4] = formats::cline::TOOL_RECOMMENDED;

fn validate(shared: &Shared, args: &Args) -> ToolResult {
    let dir = shared.project(project_spec(args)?.as_deref())?;
    let bank = match shared.bank(&dir) {
        Ok(bank) => bank,
        Err(AgentError::NotInitialized { .. }) => {
            fn names(list: &[(Role, &'static str, &'static str)]) -> Vec<&'static str> {
                list.iter().map(|(_, n, _)| *n).collect()
            }
            return Ok(json!({
                "valid": false,
                "missingRequired": names(&REQUIRED),
                "missingRecommended": names(&RECOMMENDED),
                "problems": [format!("the project has no {}/ folder", formats::cline::BANK_DIR)],
            }));
        }
        Err(e) => return Err(e.into()),
    };
    let files = bank.list();
    let kebab = formats::rules(bank.format).entry_style() == formats::EntryStyle::MemoryBankMcp;
    let found = |role: Role| {
        files
            .iter()
            .find(|f| !f.name.contains('/') && formats::role_for_name(&f.name) == Some(role))
    };
    let missing = |list: &[(Role, &str, &str)]| -> Vec<String> {
        list.iter()
            .filter(|(role, _, _)| found(*role).is_none())
            .map(|(_, camel, kebab_name)| if kebab { kebab_name } else { camel }.to_string())
            .collect()
    };
    let missing_required = missing(&REQUIRED);
    let missing_recommended = missing(&RECOMMENDED);
    // The spec: every file of the bank has at least one markdown heading.
    let mut problems = Vec::new();
    for file in &files {
        if let Ok(read) = bank.read(&file.name) {
            if read.content.trim().is_empty() {
                problems.push(format!("{} is empty", file.name));
            } else if !crate::core::markup::markdown::has_heading(&read.content) {
                problems.push(format!("{} has no markdown heading", file.name));
            }
        }
    }
    Ok(json!({
        "valid": missing_required.is_empty() && problems.is_empty(),
        "missingRequired": missing_required,
        "missingRecommended": missing_recommended,
        "problems": problems,
    }))
}

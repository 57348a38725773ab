//! The Memory Bank MCP tools (the Memory Bank MCP spec, "MCP Tools") and its five resources. The session
//! has a current project: set by `set_memory_bank_path` or `initialize_memory_bank`, else
//! the root's default project (the root itself, or its only project with a bank).
use std::path::PathBuf;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::args::{Flag, Items, NoArgs, ToolArgs};
use super::reply::{ToolError, ToolResult};
use super::{Caller, Session, Shared};
use mbank_core::agent::bank::{MarkdownBank, WriteMode, WriteReport};
use mbank_core::agent::entries::NewDecision;
use mbank_core::agent::{AgentError, rfc3339};
use mbank_core::model::Role;
use mbank_core::write::WriteContext;

const FILE_SPELLINGS: (&str, &[&str]) = ("filename", &["fileName"]);

/// The project every tool of this surface may name; read before its other arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ProjectArg {
    #[schemars(
        description = "A project under the memory bank root (its name, or a path inside the root); without it, the project chosen with set_memory_bank_path, else the root's only project. MCP protocol 2026-07-28 keeps no session: there, pass it to every tool on a root of several projects (projectName is accepted too)"
    )]
    pub project_path: Option<String>,
}

impl ToolArgs for ProjectArg {
    const SPELLINGS: &'static [(&'static str, &'static [&'static str])] =
        &[("projectPath", &["projectName"])];
}

/// `set_memory_bank_path`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct SetPathArgs {
    pub path: Option<String>,
}

impl ToolArgs for SetPathArgs {
    const SPELLINGS: &'static [(&'static str, &'static [&'static str])] =
        &[("path", &["projectPath", "projectName"])];
}

/// `read_memory_bank_file`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadFileArgs {
    pub filename: String,
}

impl ToolArgs for ReadFileArgs {
    const SPELLINGS: &'static [(&'static str, &'static [&'static str])] = &[FILE_SPELLINGS];
}

/// `write_memory_bank_file`, and the body of `POST /memory-bank/file`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WriteArgs {
    pub filename: String,
    pub content: String,
    pub expected_version: Option<String>,
}

impl ToolArgs for WriteArgs {
    const SPELLINGS: &'static [(&'static str, &'static [&'static str])] = &[FILE_SPELLINGS];
}

/// `track_progress`, and the body of `POST /memory-bank/trackProgress`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TrackProgressArgs {
    #[schemars(description = "What kind of work, e.g. Implementation")]
    pub action: String,
    pub description: String,
    pub update_active_context: Option<Flag>,
}

impl ToolArgs for TrackProgressArgs {}

/// `update_active_context`, and the body of `POST /memory-bank/updateActiveContext`: each
/// list replaces its section.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ActiveContextArgs {
    #[schemars(description = "Ongoing tasks")]
    pub tasks: Option<Items>,
    #[schemars(description = "Known issues")]
    pub issues: Option<Items>,
    #[schemars(description = "Next steps")]
    pub next_steps: Option<Items>,
}

impl ToolArgs for ActiveContextArgs {}

/// `log_decision`, and the body of `POST /memory-bank/logDecision`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct DecisionArgs {
    pub title: String,
    pub context: String,
    pub decision: String,
    #[schemars(description = "Alternatives considered")]
    pub alternatives: Option<Items>,
    #[schemars(description = "Consequences")]
    pub consequences: Option<Items>,
}

impl ToolArgs for DecisionArgs {}

/// `switch_mode`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SwitchModeArgs {
    pub mode: String,
}

impl ToolArgs for SwitchModeArgs {}

/// The five resources: URI, name, the role of the file they show.
pub(crate) const RESOURCES: [(&str, &str, Role); 5] = [
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

/// The project a call names (`spec`), else the session's, else the default one.
pub(crate) fn current_project(
    shared: &Shared,
    session: &Session,
    spec: Option<&str>,
) -> Result<PathBuf, AgentError> {
    if let Some(spec) = spec {
        return shared.root.existing_project_dir(spec);
    }
    if let Some(dir) = session.project.lock().clone() {
        return Ok(dir);
    }
    shared.default_project_for(session.stateless)
}

fn current_bank(
    shared: &Shared,
    session: &Session,
    spec: Option<&str>,
) -> Result<(PathBuf, std::sync::Arc<MarkdownBank>), AgentError> {
    let dir = current_project(shared, session, spec)?;
    let bank = shared.bank(&dir)?;
    Ok((dir, bank))
}

/// What a choice answers in a request that stands alone: it was checked, not kept.
fn not_remembered(answer: &mut serde_json::Value, what: &str, how: &str) {
    if let serde_json::Value::Object(map) = answer {
        map.insert("remembered".into(), json!(false));
        let note = format!(
            "{what} is not remembered: this MCP protocol version (2026-07-28 or later) keeps no session and every request stands alone; {how}"
        );
        let message = match map.get("message").and_then(serde_json::Value::as_str) {
            Some(said) => format!("{said}. {note}"),
            None => note,
        };
        map.insert("message".into(), json!(message));
    }
}

pub(crate) fn set_path(shared: &Shared, session: &Session, args: SetPathArgs) -> ToolResult {
    let dir = match args.path {
        Some(spec) => shared.root.existing_project_dir(&spec)?,
        None => shared.default_project()?,
    };
    let initialized = shared.bank(&dir).is_ok();
    let mut answer = json!({
        "success": true,
        "path": dir,
        "project": shared.root.name_of(&dir),
        "memoryBankStatus": if initialized { "initialized" } else { "not_initialized" },
    });
    if session.stateless {
        not_remembered(
            &mut answer,
            "the project",
            "pass projectPath to every tool instead",
        );
    } else {
        *session.project.lock() = Some(dir);
    }
    Ok(answer)
}

pub fn read(
    shared: &Shared,
    session: &Session,
    spec: Option<&str>,
    args: ReadFileArgs,
) -> ToolResult {
    let (_, bank) = current_bank(shared, session, spec)?;
    let cached = shared.read(&bank, &args.filename)?;
    let read = &cached.read;
    Ok(json!({
        "content": read.content,
        "lastModified": rfc3339(read.modified),
        "version": read.version,
        "status": "success",
    }))
}

pub fn write(
    shared: &Shared,
    session: &Session,
    spec: Option<&str>,
    args: WriteArgs,
) -> ToolResult {
    shared.writable()?;
    let (dir, bank) = current_bank(shared, session, spec)?;
    write_file(
        shared,
        &dir,
        &bank,
        &args.filename,
        &args.content,
        args.expected_version.as_deref(),
        &session.caller("mcp:write_memory_bank_file"),
    )
}

/// Creates or replaces a file (the tool and `POST /memory-bank/file`), logging a refusal.
pub(crate) fn write_file(
    shared: &Shared,
    dir: &std::path::Path,
    bank: &MarkdownBank,
    file: &str,
    content: &str,
    expected: Option<&str>,
    caller: &Caller,
) -> ToolResult {
    let ctx = shared.write_context(caller);
    let written = bank.write(&ctx, file, content, WriteMode::Upsert, expected);
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
            shared.log_refusal(&ctx, dir, file, &e);
            Err(e.into())
        }
    }
}

pub fn list(shared: &Shared, session: &Session, spec: Option<&str>, _: NoArgs) -> ToolResult {
    let (_, bank) = current_bank(shared, session, spec)?;
    let files: Vec<String> = bank.list().into_iter().map(|f| f.name).collect();
    Ok(json!({"files": files, "status": "success"}))
}

pub fn status(shared: &Shared, session: &Session, spec: Option<&str>, _: NoArgs) -> ToolResult {
    let dir = current_project(shared, session, spec)?;
    let mode = session.mode.lock().clone();
    let read_only =
        shared.options.read_only || mode.as_deref().is_some_and(|m| shared.is_read_only_mode(m));
    match shared.bank(&dir) {
        Ok(bank) => Ok(json!({
            "status": "ok",
            "memoryBankStatus": "initialized",
            "path": bank.root,
            "project": shared.root.name_of(&dir),
            "format": bank.format.id(),
            "files": bank.list().into_iter().map(|f| f.name).collect::<Vec<_>>(),
            "mode": mode,
            "readOnly": read_only,
        })),
        Err(AgentError::NotInitialized { .. }) => Ok(json!({
            "status": "ok",
            "memoryBankStatus": "not_initialized",
            "path": dir,
            "project": shared.root.name_of(&dir),
            "files": [],
            "mode": mode,
            "readOnly": read_only,
        })),
        Err(e) => Err(e.into()),
    }
}

fn entry_result(
    shared: &Shared,
    ctx: &WriteContext,
    dir: &std::path::Path,
    result: Result<Vec<WriteReport>, AgentError>,
    message: &str,
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
            shared.log_refusal(ctx, dir, "", &e);
            Err(e.into())
        }
    }
}

/// `track_progress` (also `POST /memory-bank/trackProgress`).
pub(crate) fn track_progress_in(
    shared: &Shared,
    dir: &std::path::Path,
    args: TrackProgressArgs,
    caller: &Caller,
) -> ToolResult {
    let TrackProgressArgs {
        action,
        description,
        update_active_context,
    } = args;
    let update = update_active_context.is_some_and(|flag| flag.0);
    shared.writable()?;
    let bank = shared.bank(dir)?;
    let now = shared.options.clock.local().naive_local();
    let ctx = shared.write_context(caller);
    let result = bank.track_progress(&ctx, now, &action, &description, update);
    entry_result(shared, &ctx, dir, result, "Progress tracked successfully")
}

/// `update_active_context` (also `POST /memory-bank/updateActiveContext`).
pub(crate) fn update_active_context_in(
    shared: &Shared,
    dir: &std::path::Path,
    args: ActiveContextArgs,
    caller: &Caller,
) -> ToolResult {
    let items = |list: Option<Items>| list.map(|items| items.0);
    let tasks = items(args.tasks);
    let issues = items(args.issues);
    let next_steps = items(args.next_steps);
    shared.writable()?;
    let bank = shared.bank(dir)?;
    let now = shared.options.clock.local().naive_local();
    let ctx = shared.write_context(caller);
    let result = bank
        .update_active_context(
            &ctx,
            now,
            tasks.as_deref(),
            issues.as_deref(),
            next_steps.as_deref(),
        )
        .map(|r| vec![r]);
    entry_result(
        shared,
        &ctx,
        dir,
        result,
        "Active context updated successfully",
    )
}

/// `log_decision` (also `POST /memory-bank/logDecision`).
pub(crate) fn log_decision_in(
    shared: &Shared,
    dir: &std::path::Path,
    args: DecisionArgs,
    caller: &Caller,
) -> ToolResult {
    let list = |list: Option<Items>| list.map(|list| list.0).unwrap_or_default();
    let decision = NewDecision {
        title: args.title,
        context: args.context,
        decision: args.decision,
        alternatives: list(args.alternatives),
        consequences: list(args.consequences),
    };
    shared.writable()?;
    let bank = shared.bank(dir)?;
    let now = shared.options.clock.local().naive_local();
    let ctx = shared.write_context(caller);
    let result = bank.log_decision(&ctx, now, &decision).map(|r| vec![r]);
    entry_result(shared, &ctx, dir, result, "Decision logged successfully")
}

pub fn switch_mode(
    shared: &Shared,
    session: &Session,
    spec: Option<&str>,
    args: SwitchModeArgs,
) -> ToolResult {
    let mode = args.mode;
    let dir = current_project(shared, session, spec)?;
    let modes = super::modes_of(&dir);
    let Some(found) = modes.iter().find(|m| m.eq_ignore_ascii_case(mode.trim())) else {
        return Err(ToolError::from(AgentError::ModeNotFound {
            mode,
            available: modes.join(", "),
        }));
    };
    let read_only = shared.is_read_only_mode(found);
    let message = if read_only {
        format!(
            "Switched to {found} mode, which only reads the memory bank: write tools are refused until another mode is chosen"
        )
    } else {
        format!("Switched to {found} mode")
    };
    let mut answer =
        json!({"status": "success", "mode": found, "readOnly": read_only, "message": message});
    if session.stateless {
        not_remembered(
            &mut answer,
            "the mode",
            "follow the mode's rules without asking the server for it",
        );
    } else {
        *session.mode.lock() = Some(found.clone());
    }
    Ok(answer)
}

pub(crate) fn current_mode(
    shared: &Shared,
    session: &Session,
    spec: Option<&str>,
    _: NoArgs,
) -> ToolResult {
    let dir = current_project(shared, session, spec)?;
    Ok(json!({
        "mode": session.mode.lock().clone(),
        "available": super::modes_of(&dir),
    }))
}

/// The text of resource `uri` in the session's project, or the one its `?project=NAME`
/// names (`None`: not one of ours).
pub fn read_resource(
    shared: &Shared,
    session: &Session,
    uri: &str,
) -> Option<Result<String, ToolError>> {
    let (base, query) = match uri.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (uri, None),
    };
    let (_, _, role) = RESOURCES.iter().find(|(u, _, _)| *u == base)?;
    let spec = match query.map(|q| q.strip_prefix("project=")) {
        None => None,
        Some(Some(name)) if !name.is_empty() && !name.contains('&') => Some(name),
        Some(_) => {
            return Some(Err(ToolError::from(AgentError::InvalidRequest(format!(
                "{base} takes one query, ?project=NAME (a project under the root)"
            )))));
        }
    };
    let result = (|| {
        let (_, bank) = current_bank(shared, session, spec)?;
        let name = bank.file_for(*role);
        Ok(bank.read(&name)?.content)
    })();
    Some(result.map_err(|e: AgentError| ToolError::from(e)))
}

//! The Cline memory bank tools (the Cline memory bank spec), with their exact names and parameters.
//! `projectPath` may also be sent as `projectName` (the widely used memory-bank server's
//! key); either is a project under the root. Reads return `version` beside the spec's
//! fields; writes take an optional `expectedVersion`.
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::args::{NoArgs, ToolArgs};
use super::reply::ToolResult;
use super::{Session, Shared};
use mbank_core::agent::bank::{self, WriteMode};
use mbank_core::agent::{AgentError, rfc3339};
use mbank_core::formats;
use mbank_core::model::Role;

/// What `projectPath` names, in every tool of this surface.
const PROJECT: &str = "A project under the memory bank root: its name, a path relative to the root, or an absolute path inside it (projectName is accepted too)";
const FILE_NAME: &str = "A .md file in the project's memory-bank/ folder, e.g. activeContext.md (no .., no absolute paths)";
const VERSION: &str =
    "Optional: the version a read returned; the write is refused if the file changed since";

/// `initialize_memory_bank`, which the Memory Bank MCP surface shares.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InitializeArgs {
    // Needed, but sent as projectPath (Cline), path (Memory Bank MCP) or projectName: the
    // schema cannot require one of them (some clients refuse a top-level anyOf), the
    // description says which.
    #[schemars(with = "Option<String>", description = PROJECT)]
    pub project_path: String,
    // Advertised for Memory Bank MCP clients; read as a spelling of projectPath.
    #[schemars(
        description = "The project as the Memory Bank MCP spec names it (instead of projectPath): creates that spec's five files"
    )]
    pub path: Option<String>,
    #[schemars(description = "Optional one-paragraph project brief")]
    pub brief: Option<String>,
}

impl ToolArgs for InitializeArgs {
    const SPELLINGS: &'static [(&'static str, &'static [&'static str])] =
        &[("projectPath", &["path", "projectName"])];
}

const PROJECT_SPELLINGS: (&str, &[&str]) = ("projectPath", &["projectName"]);
const FILE_SPELLINGS: (&str, &[&str]) = ("fileName", &["filename"]);

/// `list_project_files`, `validate_project`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProjectArgs {
    #[schemars(description = PROJECT)]
    pub project_path: Option<String>,
}

impl ToolArgs for ProjectArgs {
    const SPELLINGS: &'static [(&'static str, &'static [&'static str])] = &[PROJECT_SPELLINGS];
}

/// `memory_bank_read`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReadArgs {
    #[schemars(description = FILE_NAME)]
    pub file_name: String,
    #[schemars(description = PROJECT)]
    pub project_path: Option<String>,
}

impl ToolArgs for ReadArgs {
    const SPELLINGS: &'static [(&'static str, &'static [&'static str])] =
        &[FILE_SPELLINGS, PROJECT_SPELLINGS];
}

/// `memory_bank_write`: creates a file, so a version is not advertised (one sent is still
/// checked).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateArgs {
    #[schemars(description = FILE_NAME)]
    pub file_name: String,
    pub content: String,
    #[schemars(skip)]
    pub expected_version: Option<String>,
    #[schemars(description = PROJECT)]
    pub project_path: Option<String>,
}

impl ToolArgs for CreateArgs {
    const SPELLINGS: &'static [(&'static str, &'static [&'static str])] =
        &[FILE_SPELLINGS, PROJECT_SPELLINGS];
}

/// `memory_bank_update`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateArgs {
    #[schemars(description = FILE_NAME)]
    pub file_name: String,
    pub content: String,
    #[schemars(description = VERSION)]
    pub expected_version: Option<String>,
    #[schemars(description = PROJECT)]
    pub project_path: Option<String>,
}

impl ToolArgs for UpdateArgs {
    const SPELLINGS: &'static [(&'static str, &'static [&'static str])] =
        &[FILE_SPELLINGS, PROJECT_SPELLINGS];
}

/// The bank `initialize_memory_bank` creates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// The Cline memory bank spec's seven files.
    Cline,
    /// The Memory Bank MCP spec's five files.
    MemoryBankMcp,
}

impl Layout {
    /// The Memory Bank MCP spec's bank for a call that names its project as that spec does
    /// (`path`, without Cline's `projectPath` or `projectName`), or on a server offering
    /// no Cline tools; else Cline's.
    pub(crate) fn asked_by(shared: &Shared, arguments: &serde_json::Map<String, Value>) -> Layout {
        let sent = |key: &str| arguments.get(key).is_some_and(|v| !v.is_null());
        let memory_bank_mcp_spelling = sent("path") && !sent("projectPath") && !sent("projectName");
        if memory_bank_mcp_spelling || !shared.options.surfaces.cline {
            Layout::MemoryBankMcp
        } else {
            Layout::Cline
        }
    }
}

/// `initialize_memory_bank`, shared with the Memory Bank MCP surface (`path`), which also
/// makes the project the session's current one.
pub fn initialize(
    shared: &Shared,
    session: &Session,
    args: InitializeArgs,
    layout: Layout,
) -> ToolResult {
    let InitializeArgs {
        project_path: spec,
        brief,
        ..
    } = args;
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
    let ctx = shared.write_context(&session.caller("mcp:initialize_memory_bank"));
    let (report, brief_file) = match layout {
        Layout::Cline => (
            bank::initialize(&ctx, &dir, brief.as_deref()),
            "projectBrief.md",
        ),
        Layout::MemoryBankMcp => (
            bank::initialize_memory_bank_mcp(&ctx, &dir, brief.as_deref()),
            formats::memory_bank_mcp::BRIEF_FILE,
        ),
    };
    let report = report.inspect_err(|e| {
        shared.log_refusal(&ctx, &dir, brief_file, e);
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

pub fn list_projects(shared: &Shared, _: &Session, _: NoArgs) -> ToolResult {
    let projects: Vec<Value> = shared
        .root
        .memory_bank_projects()
        .iter()
        .map(|p| {
            let real = std::fs::canonicalize(&p.path).unwrap_or_else(|_| p.path.clone());
            json!({"name": shared.root.name_of(&real), "path": real})
        })
        .collect();
    Ok(Value::Array(projects))
}

pub fn read(shared: &Shared, session: &Session, args: ReadArgs) -> ToolResult {
    let dir = shared.project_in(session, args.project_path.as_deref())?;
    let bank = shared.bank(&dir)?;
    let cached = shared.read(&bank, &args.file_name)?;
    let read = &cached.read;
    Ok(json!({
        "content": read.content,
        "lastModified": rfc3339(read.modified),
        "version": read.version,
    }))
}

pub fn create(shared: &Shared, session: &Session, args: CreateArgs) -> ToolResult {
    let args = UpdateArgs {
        file_name: args.file_name,
        content: args.content,
        expected_version: args.expected_version,
        project_path: args.project_path,
    };
    write(
        shared,
        session,
        args,
        WriteMode::Create,
        "memory_bank_write",
    )
}

pub fn update(shared: &Shared, session: &Session, args: UpdateArgs) -> ToolResult {
    write(
        shared,
        session,
        args,
        WriteMode::Update,
        "memory_bank_update",
    )
}

fn write(
    shared: &Shared,
    session: &Session,
    args: UpdateArgs,
    mode: WriteMode,
    tool: &str,
) -> ToolResult {
    let UpdateArgs {
        file_name: file,
        content,
        expected_version: expected,
        project_path: project,
    } = args;
    shared.writable()?;
    let dir = shared.project_in(session, project.as_deref())?;
    let bank = shared.bank(&dir)?;
    let ctx = shared.write_context(&session.caller(&format!("mcp:{tool}")));
    let written = bank.write(&ctx, &file, &content, mode, expected.as_deref());
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
            shared.log_refusal(&ctx, &dir, &file, &e);
            Err(e.into())
        }
    }
}

pub(crate) fn list_files(shared: &Shared, session: &Session, args: ProjectArgs) -> ToolResult {
    let dir = shared.project_in(session, args.project_path.as_deref())?;
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

pub fn validate(shared: &Shared, session: &Session, args: ProjectArgs) -> ToolResult {
    let dir = shared.project_in(session, args.project_path.as_deref())?;
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
            } else if !mbank_core::markup::markdown::has_heading(&read.content) {
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

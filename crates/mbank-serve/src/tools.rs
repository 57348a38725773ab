//! Every tool the MCP server offers, in one table: the surface it belongs to, its name and
//! description, what it does to the files (its annotations), and its handler, typed by the
//! struct of its arguments (which also gives its input schema). A call finds its row by
//! name and reads its arguments with [`args::parse`], so every argument problem gets the
//! spec's own error object (rmcp's `Parameters` would answer it with a protocol error).
use std::path::Path;
use std::sync::{Arc, LazyLock, OnceLock};

use rmcp::model::{Tool, ToolAnnotations};
use serde_json::{Map, Value};

use super::args::{self, ToolArgs};
use super::reply::{Flavor, ToolError, ToolResult};
use super::{
    Caller, Session, Shared, cline, context, infinity, memory_bank_mcp, proposals, saved_memory,
    search,
};
use mbank_core::agent::infinity::InfinityProject;

/// Which tool surface a tool belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Surface {
    /// `initialize_memory_bank`: offered once by either memory-bank surface.
    MemoryBanks,
    Cline,
    MemoryBankMcp,
    /// `list_proposals`: with a memory-bank surface, on a server that stages writes.
    Proposals,
    Infinity,
}

impl Surface {
    pub(crate) fn offered_by(self, shared: &Shared) -> bool {
        let surfaces = shared.options.surfaces;
        let banks = surfaces.cline || surfaces.memory_bank_mcp;
        match self {
            Surface::MemoryBanks => banks,
            Surface::Cline => surfaces.cline,
            Surface::MemoryBankMcp => surfaces.memory_bank_mcp,
            Surface::Proposals => banks && shared.options.staging.any(),
            Surface::Infinity => surfaces.infinity,
        }
    }

    /// Whose spec's error objects the surface answers with.
    fn flavor(self) -> Flavor {
        match self {
            Surface::Infinity => Flavor::Infinity,
            _ => Flavor::MemoryBank,
        }
    }
}

/// What a tool does to the files, for its annotations: a client may run a read-only tool
/// without asking, so only tools that change nothing on disk say so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolEffect {
    pub read_only: bool,
    /// May replace or remove what is there (not only add).
    pub destructive: bool,
    /// Repeating the same call changes nothing more.
    pub idempotent: bool,
}

/// Reads, and tools that only change the session's own choice (project, mode).
const READS: ToolEffect = ToolEffect {
    read_only: true,
    destructive: false,
    idempotent: true,
};

const fn writes(destructive: bool, idempotent: bool) -> ToolEffect {
    ToolEffect {
        read_only: false,
        destructive,
        idempotent,
    }
}

/// Creates memory-bank/ (or .infinity/) and its files, keeping what exists.
const CREATES_KEEPING: ToolEffect = writes(false, true);
/// Creates a file, and fails if it exists.
const CREATES_NEW: ToolEffect = writes(false, false);
/// Replaces a whole file, a memory or sections with what is sent, or removes a memory.
const REPLACES: ToolEffect = writes(true, true);
/// Replaces sections, and adds a dated session note each time.
const REPLACES_AND_NOTES: ToolEffect = writes(true, false);
/// Appends a new entry each call; nothing is replaced.
const APPENDS: ToolEffect = writes(false, false);

/// What a tool checks in its first arguments before it reads the rest.
type Check<A> = fn(&Shared, &A) -> Result<(), ToolError>;

type Handler = Box<dyn Fn(&Shared, &Session, Map<String, Value>) -> ToolResult + Send + Sync>;

/// One tool: a row of `TOOLS`.
pub struct ToolDef {
    pub surface: Surface,
    pub name: &'static str,
    pub description: &'static str,
    pub effect: ToolEffect,
    input_schema: fn() -> Map<String, Value>,
    listed: OnceLock<Tool>,
    handler: Handler,
}

impl ToolDef {
    /// A tool that reads its arguments first, then works with the session at hand.
    fn new<A: ToolArgs>(
        surface: Surface,
        name: &'static str,
        effect: ToolEffect,
        description: &'static str,
        handler: fn(&Shared, &Session, A) -> ToolResult,
    ) -> ToolDef {
        let flavor = surface.flavor();
        ToolDef::with_handler::<A>(
            surface,
            name,
            effect,
            description,
            Box::new(move |shared, session, arguments| {
                handler(shared, session, args::parse(arguments, flavor)?)
            }),
        )
    }

    /// A tool that reads its arguments before `key` first and checks them with `check`,
    /// then reads the rest: a problem `check` finds comes before one in a later argument.
    fn checked_before<A: ToolArgs>(
        surface: Surface,
        name: &'static str,
        effect: ToolEffect,
        description: &'static str,
        (key, check): (&'static str, Check<A>),
        handler: fn(&Shared, &Session, A) -> ToolResult,
    ) -> ToolDef {
        let flavor = surface.flavor();
        ToolDef::with_handler::<A>(
            surface,
            name,
            effect,
            description,
            Box::new(move |shared, session, arguments| {
                if let Some(first) = args::parse_before(&arguments, key, flavor)? {
                    check(shared, &first)?;
                }
                handler(shared, session, args::parse(arguments, flavor)?)
            }),
        )
    }

    /// A Memory Bank MCP tool that may name its project (`projectPath`, read before its
    /// other arguments), else works on the session's.
    fn with_project<A: ToolArgs>(
        name: &'static str,
        effect: ToolEffect,
        description: &'static str,
        handler: fn(&Shared, &Session, Option<&str>, A) -> ToolResult,
    ) -> ToolDef {
        let flavor = Surface::MemoryBankMcp.flavor();
        ToolDef::with_schema(
            Surface::MemoryBankMcp,
            name,
            effect,
            description,
            args::input_schema_with::<A, memory_bank_mcp::ProjectArg>,
            Box::new(move |shared, session, arguments| {
                let project: memory_bank_mcp::ProjectArg = args::parse(arguments.clone(), flavor)?;
                let spec = project.project_path.as_deref();
                handler(shared, session, spec, args::parse(arguments, flavor)?)
            }),
        )
    }

    /// A Memory Bank MCP tool on the project it names or the session's, which is found
    /// before the other arguments are read (the handler is the REST endpoint's too).
    fn in_current_project<A: ToolArgs>(
        name: &'static str,
        effect: ToolEffect,
        description: &'static str,
        handler: fn(&Shared, &Path, A, &Caller) -> ToolResult,
    ) -> ToolDef {
        let surface = Surface::MemoryBankMcp;
        let flavor = surface.flavor();
        let via = format!("mcp:{name}");
        ToolDef::with_schema(
            surface,
            name,
            effect,
            description,
            args::input_schema_with::<A, memory_bank_mcp::ProjectArg>,
            Box::new(move |shared, session, arguments| {
                let project: memory_bank_mcp::ProjectArg = args::parse(arguments.clone(), flavor)?;
                let spec = project.project_path.as_deref();
                let dir = memory_bank_mcp::current_project(shared, session, spec)?;
                let caller = session.caller(&via);
                handler(shared, &dir, args::parse(arguments, flavor)?, &caller)
            }),
        )
    }

    /// An Infinity tool on the activated project (or the one its `project_id` names),
    /// which it needs before its other arguments.
    fn in_infinity_project<A: ToolArgs>(
        name: &'static str,
        effect: ToolEffect,
        description: &'static str,
        handler: fn(&Shared, &Caller, InfinityProject, A) -> ToolResult,
    ) -> ToolDef {
        let surface = Surface::Infinity;
        let flavor = surface.flavor();
        let via = format!("mcp:{name}");
        ToolDef::with_schema(
            surface,
            name,
            effect,
            description,
            args::input_schema_with::<A, infinity::ProjectIdArg>,
            Box::new(move |shared, session, arguments| {
                let named: infinity::ProjectIdArg = args::parse(arguments.clone(), flavor)?;
                let project = infinity::active(shared, session, named.project_id.as_deref())?;
                let caller = session.caller(&via);
                handler(shared, &caller, project, args::parse(arguments, flavor)?)
            }),
        )
    }

    fn with_handler<A: ToolArgs>(
        surface: Surface,
        name: &'static str,
        effect: ToolEffect,
        description: &'static str,
        handler: Handler,
    ) -> ToolDef {
        ToolDef::with_schema(
            surface,
            name,
            effect,
            description,
            args::input_schema::<A>,
            handler,
        )
    }

    fn with_schema(
        surface: Surface,
        name: &'static str,
        effect: ToolEffect,
        description: &'static str,
        input_schema: fn() -> Map<String, Value>,
        handler: Handler,
    ) -> ToolDef {
        ToolDef {
            surface,
            name,
            description,
            effect,
            input_schema,
            listed: OnceLock::new(),
            handler,
        }
    }

    /// The tool as `tools/list` shows it (built once).
    pub fn listed(&self) -> &Tool {
        self.listed.get_or_init(|| {
            let effect = self.effect;
            // Every tool works on local files only: a closed world.
            let annotations = ToolAnnotations::new()
                .read_only(effect.read_only)
                .destructive(effect.destructive)
                .idempotent(effect.idempotent)
                .open_world(false);
            Tool::new(self.name, self.description, Arc::new((self.input_schema)()))
                .annotate(annotations)
        })
    }

    /// Runs the tool on the calling thread (blocking).
    pub fn call(
        &self,
        shared: &Shared,
        session: &Session,
        arguments: Map<String, Value>,
    ) -> ToolResult {
        // A session in a read-only mode writes nothing; Infinity's activation of an
        // existing project is what its reads need, as on a read-only server.
        if !self.effect.read_only && self.name != infinity::ACTIVATE_PROJECT {
            let mode = session.mode.lock().clone();
            if let Some(mode) = mode.filter(|m| shared.is_read_only_mode(m)) {
                return Err(ToolError::memory_bank(
                    "read_only",
                    format!(
                        "this session is in {mode} mode, which only reads the memory bank \
                         (read_only_modes under [serve] in config.toml): {} writes nothing \
                         here; switch_mode to another mode to write",
                        self.name
                    ),
                ));
            }
        }
        (self.handler)(shared, session, arguments)
    }
}

/// The tools a server offers, in the order it lists them.
pub fn offered(shared: &Shared) -> impl Iterator<Item = &'static ToolDef> {
    TOOLS.iter().filter(|tool| tool.surface.offered_by(shared))
}

/// The tools `tools/list` shows: on a read-only server, only those that write nothing, and
/// `activate_project`, which Infinity's reads need (it only loads an existing project
/// there). A write tool called anyway still answers that the server is read-only.
pub fn shown(shared: &Shared) -> impl Iterator<Item = &'static ToolDef> {
    let read_only = shared.options.read_only;
    offered(shared).filter(move |tool| {
        !read_only || tool.effect.read_only || tool.name == infinity::ACTIVATE_PROJECT
    })
}

/// The tool `name`, if the server offers it.
pub fn find(shared: &Shared, name: &str) -> Option<&'static ToolDef> {
    offered(shared).find(|tool| tool.name == name)
}

/// Every tool, in the order they are listed: the memory-bank surfaces' (Cline's, then
/// Memory Bank MCP's), `list_proposals`, then Infinity's.
pub(crate) static TOOLS: LazyLock<Vec<ToolDef>> = LazyLock::new(|| {
    use Surface::{Cline, MemoryBankMcp, MemoryBanks, Proposals};
    vec![
        ToolDef::with_handler::<cline::InitializeArgs>(
            MemoryBanks,
            "initialize_memory_bank",
            CREATES_KEEPING,
            "Create memory-bank/ in a project, keeping existing files. With projectPath (Cline): the seven Cline template files, brief filling projectBrief.md. With path (Memory Bank MCP): the spec's five files (activeContext, productContext, progress, decisionLog, systemPatterns), brief filling productContext.md's overview.",
            Box::new(|shared, session, arguments| {
                let layout = cline::Layout::asked_by(shared, &arguments);
                let args = args::parse(arguments, Flavor::MemoryBank)?;
                cline::initialize(shared, session, args, layout)
            }),
        ),
        ToolDef::new(
            Cline,
            "list_projects",
            READS,
            "List the projects under the memory bank root that have a memory-bank/ folder.",
            cline::list_projects,
        ),
        ToolDef::new(
            Cline,
            "memory_bank_read",
            READS,
            "Read a file of a project's memory bank. Returns content, lastModified and version.",
            cline::read,
        ),
        ToolDef::checked_before(
            Cline,
            "memory_bank_write",
            CREATES_NEW,
            "Create a new file in a project's memory bank (fails if it exists). Decision logs are append-only; secrets outside <private> blocks are refused.",
            ("projectPath", |shared, _| Ok(shared.writable()?)),
            cline::create,
        ),
        ToolDef::checked_before(
            Cline,
            "memory_bank_update",
            REPLACES,
            "Replace an existing file of a project's memory bank with the complete new content (no \"[... rest unchanged ...]\" placeholders). Pass expectedVersion from your read to avoid overwriting someone else's change.",
            ("projectPath", |shared, _| Ok(shared.writable()?)),
            cline::update,
        ),
        ToolDef::new(
            Cline,
            "list_project_files",
            READS,
            "List the files of a project's memory bank with size and lastModified.",
            cline::list_files,
        ),
        ToolDef::new(
            Cline,
            "validate_project",
            READS,
            "Check a project's memory bank for the required and recommended files (the Cline memory bank spec).",
            cline::validate,
        ),
        ToolDef::new(
            MemoryBankMcp,
            "set_memory_bank_path",
            READS,
            "Choose the project whose memory bank the other tools use (a project under the root); without path, the default project.",
            memory_bank_mcp::set_path,
        ),
        ToolDef::with_project(
            "read_memory_bank_file",
            READS,
            "Read a file of the current memory bank. Returns content, lastModified and version.",
            memory_bank_mcp::read,
        ),
        ToolDef::with_project(
            "write_memory_bank_file",
            REPLACES,
            "Create or replace a file of the current memory bank with its complete content. Decision logs are append-only; pass expectedVersion from your read to avoid overwriting a change.",
            memory_bank_mcp::write,
        ),
        ToolDef::with_project(
            "list_memory_bank_files",
            READS,
            "List the files of the current memory bank.",
            memory_bank_mcp::list,
        ),
        ToolDef::with_project(
            "get_memory_bank_status",
            READS,
            "The current memory bank: its path, whether it is initialized, its files and the mode.",
            memory_bank_mcp::status,
        ),
        ToolDef::in_current_project(
            "track_progress",
            APPENDS,
            "Add a dated line to progress.md's Update History (and, with updateActiveContext, a session note to the active context).",
            memory_bank_mcp::track_progress_in,
        ),
        ToolDef::in_current_project(
            "update_active_context",
            REPLACES_AND_NOTES,
            "Replace the Ongoing Tasks, Known Issues and/or Next Steps sections of the active context.",
            memory_bank_mcp::update_active_context_in,
        ),
        ToolDef::in_current_project(
            "log_decision",
            APPENDS,
            "Append a dated decision to the decision log (never rewrites old entries).",
            memory_bank_mcp::log_decision_in,
        ),
        ToolDef::with_project(
            "switch_mode",
            READS,
            "Switch to a mode declared by the project's rule files (.clinerules-*, .roomodes), or architect/code/ask/debug/test.",
            memory_bank_mcp::switch_mode,
        ),
        ToolDef::with_project(
            "get_current_mode",
            READS,
            "The current mode and the modes available.",
            memory_bank_mcp::current_mode,
        ),
        ToolDef::new(
            MemoryBanks,
            context::GET_CONTEXT,
            READS,
            "What an agent loads from a project's memory at session start, in load order, cut to fit maxTokens (counted exactly): whole files first, the first that does not fit cut after its last whole line. Lists what was left out and why (the budget, the agent's own load limit, not loaded at start, private).",
            context::get_context,
        ),
        ToolDef::new(
            MemoryBanks,
            search::SEARCH_MEMORY,
            READS,
            "Search the memory of every project under the root (or one project): the passages that best answer the query, best first, each with its project, file, line range, heading path and a snippet (byte ranges of matches in `marks`); decisions carry their status and date. With maxTokens, the snippets returned together fit that many tokens and `omitted` counts the results left out.",
            search::search_memory,
        ),
        ToolDef::new(
            MemoryBanks,
            saved_memory::SAVE_MEMORY,
            APPENDS,
            "Save a fact to Beans-Code's persistent memory: appended to the saved-memories section of the user's global memory in the home folder (scope global) or of the project's memory file (scope project), file and section created when missing. One line; secrets are refused. On a server that stages writes it waits for a person to approve the diff.",
            saved_memory::save_memory,
        ),
        ToolDef::checked_before(
            Proposals,
            "list_proposals",
            READS,
            "List the writes this server staged for a person to review: each one's id, file, tool, time and state (pending, accepted, rejected). A staged write is not in the file until a person accepts it.",
            ("state", proposals::check_project),
            proposals::list,
        ),
        ToolDef::new(
            Surface::Infinity,
            infinity::ACTIVATE_PROJECT,
            CREATES_KEEPING,
            "Scope every other tool to this project (the server's working folder). Call it first in every session.",
            infinity::activate,
        ),
        ToolDef::in_infinity_project(
            "store_memory",
            APPENDS,
            "Create a memory. Returns its memory_id.",
            infinity::store,
        ),
        ToolDef::in_infinity_project(
            "get_memory",
            READS,
            "Get one memory, content included.",
            infinity::get,
        ),
        ToolDef::in_infinity_project(
            "list_memories",
            READS,
            "List memories (id, title, type; no content), optionally of one type.",
            infinity::list,
        ),
        ToolDef::in_infinity_project(
            "update_memory",
            REPLACES,
            "Replace a memory's content (title and type never change). expectedVersion (from get_memory) refuses the update if the memory changed since.",
            infinity::update,
        ),
        ToolDef::in_infinity_project(
            "delete_memory",
            REPLACES,
            "Remove a memory permanently.",
            infinity::delete,
        ),
    ]
});

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_are_unique_and_every_schema_is_valid_for_the_drafts_clients_use() {
        for (i, tool) in TOOLS.iter().enumerate() {
            assert!(
                TOOLS[..i].iter().all(|t| t.name != tool.name),
                "{} twice",
                tool.name
            );
            let schema = Value::Object(tool.listed().input_schema.as_ref().clone());
            assert_eq!(schema["type"], "object", "{}", tool.name);
            assert!(schema["properties"].is_object(), "{}", tool.name);
            // The TypeScript SDK validates with draft-07, the spec's default is 2020-12.
            jsonschema::draft7::meta::validate(&schema)
                .unwrap_or_else(|e| panic!("{}: {e}", tool.name));
            jsonschema::draft202012::meta::validate(&schema)
                .unwrap_or_else(|e| panic!("{}: {e}", tool.name));
            let text = schema.to_string();
            for form in ["\"null\"", "$schema", "$defs", "$ref", "anyOf"] {
                assert!(!text.contains(form), "{}: {form} in {text}", tool.name);
            }
            let properties = schema["properties"].as_object().unwrap();
            assert!(
                std::iter::once(&schema)
                    .chain(properties.values())
                    .all(|s| s.get("title").is_none()),
                "{}: a title in {text}",
                tool.name
            );
        }
    }

    #[test]
    fn schemas_accept_the_arguments_the_tools_read_and_refuse_wrong_types() {
        let schema = |name: &str| {
            let tool = TOOLS.iter().find(|t| t.name == name).unwrap();
            jsonschema::draft202012::new(&Value::Object(
                tool.listed().input_schema.as_ref().clone(),
            ))
            .unwrap()
        };
        let decision = schema("log_decision");
        assert!(
            decision.is_valid(&json!({"title": "t", "context": "c", "decision": "d",
            "alternatives": ["a"], "consequences": []}))
        );
        assert!(!decision.is_valid(&json!({"title": "t", "context": "c"})));
        assert!(!decision.is_valid(&json!({"title": "t", "context": "c", "decision": 1})));
        let store = schema("store_memory");
        assert!(store.is_valid(&json!({"title": "t", "type": "design_doc", "content": ""})));
        assert!(!store.is_valid(&json!({"title": "t", "type": "poem", "content": ""})));
        let progress = schema("track_progress");
        assert!(progress.is_valid(&json!({"action": "a", "description": "d",
            "updateActiveContext": true})));
        assert!(
            !progress.is_valid(&json!({"action": "a", "description": "d",
            "updateActiveContext": []}))
        );
        let proposals = schema("list_proposals");
        assert!(proposals.is_valid(&json!({"state": "pending"})));
        assert!(!proposals.is_valid(&json!({"state": "maybe"})));
        assert!(schema("initialize_memory_bank").is_valid(&json!({"path": "p"})));
        assert!(schema("list_projects").is_valid(&json!({"random_string": "x"})));
    }
}

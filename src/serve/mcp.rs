//! The MCP server: the tools of the chosen surfaces, dispatched by hand so every argument
//! problem gets the spec's own error object, the five `memory-bank://` resources, and the
//! stdio runner (`mbank mcp`). The same handler serves `/mcp` over Streamable HTTP.
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, ServerCapabilities,
    ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;

use super::args::Args;
use super::reply::{Flavor, ToolError, ToolResult};
use super::{Session, Shared, cline, infinity, memory_bank_mcp};

/// One MCP session over the shared server state.
#[derive(Clone)]
pub struct McpServer {
    shared: Arc<Shared>,
    session: Arc<Session>,
    tools: Arc<Vec<Tool>>,
}

/// What a tool does to the files, for its annotations: a client may run a read-only tool
/// without asking, so only tools that change nothing on disk say so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Effect {
    read_only: bool,
    /// May replace or remove what is there (not only add).
    destructive: bool,
    /// Repeating the same call changes nothing more.
    idempotent: bool,
}

const READS: Effect = Effect {
    read_only: true,
    destructive: false,
    idempotent: true,
};

/// Every tool's effect (`None`: a tool this table forgot, which a test catches).
fn effect_of(name: &str) -> Option<Effect> {
    let effect = |destructive, idempotent| Effect {
        read_only: false,
        destructive,
        idempotent,
    };
    Some(match name {
        // Reads, and tools that only change the session's own choice (project, mode).
        "list_projects"
        | "memory_bank_read"
        | "list_project_files"
        | "validate_project"
        | "set_memory_bank_path"
        | "read_memory_bank_file"
        | "list_memory_bank_files"
        | "get_memory_bank_status"
        | "switch_mode"
        | "get_current_mode"
        | "get_memory"
        | "list_memories"
        | "list_proposals" => READS,
        // Creates memory-bank/ (or .infinity/) and its files, keeping what exists.
        "initialize_memory_bank" | "activate_project" => effect(false, true),
        // Creates a file and fails if it exists.
        "memory_bank_write" => effect(false, false),
        // Replace a whole file, a memory or sections with what is sent.
        "memory_bank_update" | "write_memory_bank_file" | "update_memory" => effect(true, true),
        // Replaces its sections, and adds a dated session note each time.
        "update_active_context" => effect(true, false),
        "delete_memory" => effect(true, true),
        // Append a new entry each call; nothing is replaced.
        "track_progress" | "log_decision" | "store_memory" => effect(false, false),
        _ => return None,
    })
}

fn annotations_of(name: &str) -> ToolAnnotations {
    // An unknown tool is annotated as the most careful client would assume.
    let effect = effect_of(name).unwrap_or(Effect {
        read_only: false,
        destructive: true,
        idempotent: false,
    });
    // Every tool works on local files only: a closed world.
    ToolAnnotations::new()
        .read_only(effect.read_only)
        .destructive(effect.destructive)
        .idempotent(effect.idempotent)
        .open_world(false)
}

/// The tool list of the surfaces `shared` offers (`initialize_memory_bank` once).
pub fn tool_list(shared: &Shared) -> Vec<Tool> {
    let surfaces = shared.options.surfaces;
    let mut specs = Vec::new();
    if surfaces.cline {
        specs.extend(cline::tools());
    } else if surfaces.memory_bank_mcp {
        specs.extend(
            cline::tools()
                .into_iter()
                .filter(|(name, _, _)| *name == "initialize_memory_bank"),
        );
    }
    if surfaces.memory_bank_mcp {
        specs.extend(memory_bank_mcp::tools());
    }
    if (surfaces.cline || surfaces.memory_bank_mcp) && shared.options.staging.any() {
        specs.extend(super::proposals::tools());
    }
    if surfaces.infinity {
        specs.extend(infinity::tools());
    }
    specs
        .into_iter()
        .map(|(name, description, schema)| {
            let schema = match schema {
                Value::Object(map) => map,
                _ => serde_json::Map::new(),
            };
            Tool::new(name, description, Arc::new(schema)).annotate(annotations_of(name))
        })
        .collect()
}

/// Runs one tool call on the calling thread (blocking); `None` for an unknown tool.
pub fn dispatch(
    shared: &Shared,
    session: &Session,
    name: &str,
    arguments: serde_json::Map<String, Value>,
) -> Option<ToolResult> {
    let surfaces = shared.options.surfaces;
    if name == "initialize_memory_bank" && (surfaces.cline || surfaces.memory_bank_mcp) {
        let args = Args::new(arguments, Flavor::MemoryBank);
        return Some(cline::initialize(shared, session, &args));
    }
    if surfaces.cline {
        let args = Args::new(arguments.clone(), Flavor::MemoryBank);
        if let Some(result) = cline::call(shared, session, name, &args) {
            return Some(result);
        }
    }
    if surfaces.memory_bank_mcp {
        let args = Args::new(arguments.clone(), Flavor::MemoryBank);
        if let Some(result) = memory_bank_mcp::call(shared, session, name, &args) {
            return Some(result);
        }
    }
    if (surfaces.cline || surfaces.memory_bank_mcp) && shared.options.staging.any() {
        let args = Args::new(arguments.clone(), Flavor::MemoryBank);
        if let Some(result) = super::proposals::call(shared, session, name, &args) {
            return Some(result);
        }
    }
    if surfaces.infinity {
        return infinity::call(shared, session, name, arguments);
    }
    None
}

/// A tool's answer as MCP carries it: the JSON as text (the spec's shape, arrays
/// included), and as structured content when it is an object.
pub fn to_call_result(result: ToolResult) -> CallToolResult {
    match result {
        Ok(value) => {
            let text = value.to_string();
            let mut out = CallToolResult::success(vec![ContentBlock::text(text)]);
            if value.is_object() {
                out.structured_content = Some(value);
            }
            out
        }
        Err(error) => {
            let value = error.to_json();
            let mut out = CallToolResult::error(vec![ContentBlock::text(value.to_string())]);
            out.structured_content = Some(value);
            out
        }
    }
}

impl McpServer {
    pub fn new(shared: Arc<Shared>) -> McpServer {
        let tools = Arc::new(tool_list(&shared));
        McpServer {
            shared,
            session: Arc::new(Session::default()),
            tools,
        }
    }
}

fn task_failed(e: tokio::task::JoinError) -> McpError {
    McpError::internal_error(format!("the tool stopped unexpectedly: {e}"), None)
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder().enable_tools();
        let capabilities = if self.shared.options.surfaces.memory_bank_mcp {
            capabilities.enable_resources().build()
        } else {
            capabilities.build()
        };
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("mbank", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Memory banks served by mbank. Every write is guarded: confined to the \
                 project's memory bank, markdown only, decision logs append-only, no secrets \
                 outside <private> blocks, no \"[... rest unchanged ...]\" placeholders, and \
                 expectedVersion (returned by every read) refuses stale overwrites.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        let arguments = request.arguments.unwrap_or_default();
        let (shared, session) = (self.shared.clone(), self.session.clone());
        let tool = name.clone();
        // Proposals and refusals name the client, so a person can tell agents apart.
        let client = context.peer.peer_info().map(|info| {
            let client = &info.client_info;
            crate::core::markup::sanitize::line(&format!("{} {}", client.name, client.version))
                .chars()
                .take(80)
                .collect::<String>()
        });
        let result = tokio::task::spawn_blocking(move || {
            crate::core::history::as_client(client, || {
                dispatch(&shared, &session, &tool, arguments)
            })
        })
        .await
        .map_err(task_failed)?;
        match result {
            Some(result) => Ok(to_call_result(result).into()),
            None => Err(McpError::invalid_params(
                format!("unknown tool {name:?}"),
                None,
            )),
        }
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        if !self.shared.options.surfaces.memory_bank_mcp {
            return Ok(ListResourcesResult::with_all_items(Vec::new()));
        }
        let resources = memory_bank_mcp::RESOURCES
            .iter()
            .map(|(uri, name, role)| {
                Resource::new(*uri, *name)
                    .with_description(format!("The memory bank's {role} file"))
                    .with_mime_type("text/markdown")
            })
            .collect();
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let uri = request.uri;
        let (shared, session) = (self.shared.clone(), self.session.clone());
        let wanted = uri.clone();
        let result = tokio::task::spawn_blocking(move || {
            if !shared.options.surfaces.memory_bank_mcp {
                return None;
            }
            memory_bank_mcp::read_resource(&shared, &session, &wanted)
        })
        .await
        .map_err(task_failed)?;
        match result {
            Some(Ok(text)) => Ok(ReadResourceResult::new(vec![
                ResourceContents::text(text, uri).with_mime_type("text/markdown"),
            ])
            .into()),
            Some(Err(error)) => Err(resource_error(&error)),
            None => Err(McpError::resource_not_found(
                format!("no resource {uri:?}"),
                None,
            )),
        }
    }
}

fn resource_error(error: &ToolError) -> McpError {
    McpError::resource_not_found(error.message.clone(), Some(error.to_json()))
}

/// `mbank mcp`: serves MCP on stdin/stdout until the client closes it. The runtime lives
/// only for this call.
pub fn run_stdio(shared: Arc<Shared>) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let (transport, writer) = super::stdio::transport(
            tokio::io::stdin(),
            tokio::io::stdout(),
            super::stdio::MAX_MESSAGE_BYTES,
        );
        let service = McpServer::new(shared)
            .serve(transport)
            .await
            .map_err(|e| std::io::Error::other(format!("MCP start-up failed: {e}")))?;
        let ended = service.waiting().await;
        // The transport is gone: the writer finishes what is queued, then stops.
        let _ = writer.await;
        ended.map_err(|e| std::io::Error::other(format!("MCP session failed: {e}")))?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::guard::GuardPolicy;
    use crate::serve::{Options, Surfaces};

    fn shared_over(root: &std::path::Path) -> Arc<Shared> {
        Shared::new(Options {
            root: root.to_path_buf(),
            surfaces: Surfaces::default(),
            read_only: false,
            policy: GuardPolicy::default(),
            infinity_project: root.to_path_buf(),
            log_refusals: false,
            staging: Default::default(),
            clock: crate::core::clock::Clock::fixed_on(2026, 11, 28).unwrap(),
        })
        .unwrap()
    }

    #[test]
    fn every_tool_states_what_it_does_to_the_files() {
        let dir = tempfile::tempdir().unwrap();
        let tools = tool_list(&shared_over(dir.path()));
        assert_eq!(tools.len(), 23);
        for tool in &tools {
            assert!(
                effect_of(&tool.name).is_some(),
                "{} has no effect",
                tool.name
            );
            let hints = tool.annotations.as_ref().unwrap();
            assert_eq!(hints.open_world_hint, Some(false), "{}", tool.name);
        }
        let hints = |name: &str| {
            let tool = tools.iter().find(|t| t.name == name).unwrap();
            let a = tool.annotations.clone().unwrap();
            (a.read_only_hint, a.destructive_hint, a.idempotent_hint)
        };
        // activate_project creates .infinity/: a client auto-approving read-only tools
        // must not run it unasked.
        assert_eq!(
            hints("activate_project"),
            (Some(false), Some(false), Some(true))
        );
        assert_eq!(
            hints("initialize_memory_bank"),
            (Some(false), Some(false), Some(true))
        );
        assert_eq!(
            hints("log_decision"),
            (Some(false), Some(false), Some(false))
        );
        assert_eq!(
            hints("delete_memory"),
            (Some(false), Some(true), Some(true))
        );
        assert_eq!(
            hints("memory_bank_read"),
            (Some(true), Some(false), Some(true))
        );
    }

    /// Calls every tool without arguments: each argument a tool reports missing must be
    /// `required` in its schema (alternatives, "a or b", are spelled out in the
    /// description instead: a top-level anyOf is refused by some clients).
    #[test]
    fn every_argument_a_tool_cannot_do_without_is_marked_required() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        crate::core::agent::bank::initialize(&GuardPolicy::default(), &root.join("p"), None)
            .unwrap();
        let shared = shared_over(root);
        let session = Session::default();
        let tools = tool_list(&shared);
        assert!(
            dispatch(&shared, &session, "activate_project", Default::default())
                .unwrap()
                .is_ok()
        );
        let mut checked = 0;
        for tool in &tools {
            let Some(Err(error)) = dispatch(&shared, &session, &tool.name, Default::default())
            else {
                continue;
            };
            let Some(named) = error
                .message
                .strip_prefix("missing argument ")
                .or_else(|| error.message.strip_prefix("missing required field "))
            else {
                continue;
            };
            let required: Vec<&str> = tool
                .input_schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let keys: Vec<&str> = named.split(" or ").map(|k| k.trim_matches('"')).collect();
            // Spellings of one key (`fileName`, `filename`): the schema's must be required.
            let spellings = keys.iter().all(|k| k.eq_ignore_ascii_case(keys[0]));
            if spellings {
                assert!(
                    keys.iter().any(|k| required.contains(k)),
                    "{}: {keys:?} is needed but not required in {:?}",
                    tool.name,
                    tool.input_schema
                );
                checked += 1;
            } else {
                let description = tool.description.as_deref().unwrap_or("");
                assert!(
                    keys.iter().any(|k| description.contains(k)),
                    "{}: the description does not say which of {keys:?} to send",
                    tool.name
                );
            }
        }
        assert!(checked >= 10, "only {checked} tools checked");
    }
}

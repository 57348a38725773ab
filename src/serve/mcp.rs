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

/// Tools that only read, for the `readOnlyHint` annotation.
const READ_ONLY_TOOLS: [&str; 13] = [
    "list_projects",
    "memory_bank_read",
    "list_project_files",
    "validate_project",
    "set_memory_bank_path",
    "read_memory_bank_file",
    "list_memory_bank_files",
    "get_memory_bank_status",
    "switch_mode",
    "get_current_mode",
    "activate_project",
    "get_memory",
    "list_memories",
];

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
            let read_only = READ_ONLY_TOOLS.contains(&name) || name == "list_proposals";
            Tool::new(name, description, Arc::new(schema)).annotate(
                ToolAnnotations::new()
                    .read_only(read_only)
                    .destructive(matches!(
                        name,
                        "memory_bank_update"
                            | "write_memory_bank_file"
                            | "delete_memory"
                            | "update_memory"
                    )),
            )
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
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        let arguments = request.arguments.unwrap_or_default();
        let (shared, session) = (self.shared.clone(), self.session.clone());
        let tool = name.clone();
        let result =
            tokio::task::spawn_blocking(move || dispatch(&shared, &session, &tool, arguments))
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

//! The MCP server: the tools of the chosen surfaces (their table is [`super::tools`]), the
//! five `memory-bank://` resources, and the stdio runner (`mbank mcp`). The same handler
//! serves `/mcp` over Streamable HTTP.
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;

use super::reply::{ToolError, ToolResult};
use super::{Session, Shared, memory_bank_mcp, tools};

/// One MCP session over the shared server state.
#[derive(Clone)]
pub(crate) struct McpServer {
    shared: Arc<Shared>,
    session: Arc<Session>,
    tools: Arc<Vec<Tool>>,
}

/// The tool list of the surfaces `shared` offers.
pub(crate) fn tool_list(shared: &Shared) -> Vec<Tool> {
    tools::offered(shared)
        .map(|tool| tool.listed().clone())
        .collect()
}

/// Runs one tool call on the calling thread (blocking); `None` for a tool the server does
/// not offer.
pub fn dispatch(
    shared: &Shared,
    session: &Session,
    name: &str,
    arguments: serde_json::Map<String, Value>,
) -> Option<ToolResult> {
    tools::find(shared, name).map(|tool| tool.call(shared, session, arguments))
}

/// A tool's answer as MCP carries it: the JSON as text (the spec's shape, arrays
/// included), and as structured content when it is an object.
pub(crate) fn to_call_result(result: ToolResult) -> CallToolResult {
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
            mbank_core::markup::sanitize::line(&format!("{} {}", client.name, client.version))
                .chars()
                .take(80)
                .collect::<String>()
        });
        *session.client.lock() = client;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ServeOptions, Surfaces};
    use mbank_core::guard::GuardPolicy;

    fn shared_over(root: &std::path::Path) -> Arc<Shared> {
        Shared::new(ServeOptions {
            root: root.to_path_buf(),
            surfaces: Surfaces::default(),
            read_only: false,
            policy: GuardPolicy::default(),
            infinity_project: root.to_path_buf(),
            log_refusals: false,
            staging: Default::default(),
            clock: mbank_core::clock::Clock::fixed_on(2026, 11, 28).unwrap(),
            history: None,
        })
        .unwrap()
    }

    #[test]
    fn every_tool_states_what_it_does_to_the_files() {
        let dir = tempfile::tempdir().unwrap();
        let tools = tool_list(&shared_over(dir.path()));
        assert_eq!(tools.len(), 23);
        for tool in &tools {
            let rows: Vec<_> = tools::TOOLS
                .iter()
                .filter(|t| t.name == tool.name)
                .collect();
            assert_eq!(rows.len(), 1, "{} has one row", tool.name);
            let effect = rows[0].effect;
            let hints = tool.annotations.as_ref().unwrap();
            assert_eq!(
                (hints.read_only_hint, hints.destructive_hint),
                (Some(effect.read_only), Some(effect.destructive)),
                "{}",
                tool.name
            );
            assert_eq!(
                hints.idempotent_hint,
                Some(effect.idempotent),
                "{}",
                tool.name
            );
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
        let ctx = mbank_core::write::WriteContext::new(
            "mcp:initialize_memory_bank",
            mbank_core::clock::Clock::fixed_on(2026, 11, 28).unwrap(),
        );
        mbank_core::agent::bank::initialize(&ctx, &root.join("p"), None).unwrap();
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

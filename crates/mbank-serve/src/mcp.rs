//! The MCP server: the tools of the chosen surfaces (their table is [`super::tools`]), the
//! five `memory-bank://` resources, and the stdio runner (`mbank mcp`). The same handler
//! serves `/mcp` over Streamable HTTP.
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ProtocolVersion,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ServerCapabilities, ServerConfig, Tool,
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
    tools::shown(shared)
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

/// [`dispatch`], unless the request was cancelled before the tool started: a cancelled
/// call writes nothing. One that has started runs to its end (a write is never left
/// half-done), and its outcome can be read back (the file's version, `list_proposals`).
pub(crate) fn dispatch_unless_cancelled(
    shared: &Shared,
    session: &Session,
    name: &str,
    arguments: serde_json::Map<String, Value>,
    cancelled: impl Fn() -> bool,
) -> Result<Option<ToolResult>, McpError> {
    if cancelled() {
        return Err(McpError::new(
            REQUEST_CANCELLED,
            format!("the {name} call was cancelled before it started: nothing was done"),
            None,
        ));
    }
    Ok(dispatch(shared, session, name, arguments))
}

/// The JSON-RPC code of a request cancelled by its client (as LSP names it).
const REQUEST_CANCELLED: rmcp::model::ErrorCode = rmcp::model::ErrorCode(-32800);

/// The protocol versions mbank answers, oldest first: those whose semantics it honours.
/// In 2026-07-28 every request stands alone, so a request of that version gets a
/// session of its own ([`Session::stateless`]) and must name its project.
pub(crate) static PROTOCOL_VERSIONS: [ProtocolVersion; 5] = [
    ProtocolVersion::V_2024_11_05,
    ProtocolVersion::V_2025_03_26,
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_11_25,
    ProtocolVersion::V_2026_07_28,
];

/// Whether a request belongs to a protocol version without sessions.
fn stands_alone(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|version| !version.has_initialize())
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

/// Every list fits in one page, so no cursor is ever handed out: one sent is not ours,
/// and the spec answers an invalid cursor with -32602 rather than the first page again.
fn no_cursor(request: Option<&PaginatedRequestParams>) -> Result<(), McpError> {
    match request.and_then(|r| r.cursor.as_deref()) {
        Some(cursor) => Err(McpError::invalid_params(
            format!(
                "invalid cursor {:?}: this server lists everything in one page and hands out no cursors",
                cursor.chars().take(80).collect::<String>()
            ),
            None,
        )),
        None => Ok(()),
    }
}

fn task_failed(e: tokio::task::JoinError) -> McpError {
    McpError::internal_error(format!("the tool stopped unexpectedly: {e}"), None)
}

impl McpServer {
    /// The session a request works in: this connection's, or one of its own for a
    /// request that stands alone.
    fn session_for(&self, context: &RequestContext<RoleServer>) -> Arc<Session> {
        let client = context.client_info().map(|client| {
            mbank_core::markup::sanitize::line(&format!("{} {}", client.name, client.version))
                .chars()
                .take(80)
                .collect::<String>()
        });
        if stands_alone(context) {
            return Arc::new(Session::stateless(client));
        }
        // Proposals and refusals name the client, so a person can tell agents apart.
        *self.session.client.lock() = client;
        self.session.clone()
    }
}

impl ServerHandler for McpServer {
    fn supported_protocol_versions(&self) -> std::borrow::Cow<'static, [ProtocolVersion]> {
        std::borrow::Cow::Borrowed(&PROTOCOL_VERSIONS)
    }

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
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        no_cursor(request.as_ref())?;
        Ok(ListToolsResult::with_all_items(self.tools.as_ref().clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        let arguments = request.arguments.unwrap_or_default();
        let (shared, session) = (self.shared.clone(), self.session_for(&context));
        let tool = name.clone();
        let cancelled = context.ct.clone();
        let result = tokio::task::spawn_blocking(move || {
            dispatch_unless_cancelled(&shared, &session, &tool, arguments, || {
                cancelled.is_cancelled()
            })
        })
        .await
        .map_err(task_failed)??;
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
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        no_cursor(request.as_ref())?;
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
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let uri = request.uri;
        let (shared, session) = (self.shared.clone(), self.session_for(&context));
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
    use serde_json::json;

    fn shared_over(root: &std::path::Path) -> Arc<Shared> {
        Shared::new(ServeOptions {
            root: root.to_path_buf(),
            surfaces: Surfaces::default(),
            read_only: false,
            read_only_modes: vec!["ask".into()],
            policy: GuardPolicy::default(),
            infinity_project: root.to_path_buf(),
            log_refusals: false,
            staging: Default::default(),
            clock: mbank_core::clock::Clock::fixed_on(2026, 11, 28).unwrap(),
            history: None,
            encoding: mbank_core::tokens::Encoding::default(),
        })
        .unwrap()
    }

    #[test]
    fn every_tool_states_what_it_does_to_the_files() {
        let dir = tempfile::tempdir().unwrap();
        let tools = tool_list(&shared_over(dir.path()));
        assert_eq!(tools.len(), 26);
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
            hints("save_memory"),
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

    fn args(value: Value) -> serde_json::Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => unreachable!(),
        }
    }

    /// A root of two projects with memory banks.
    fn two_projects() -> (tempfile::TempDir, Arc<Shared>) {
        let dir = tempfile::tempdir().unwrap();
        let ctx = mbank_core::write::WriteContext::new(
            "mcp:initialize_memory_bank",
            mbank_core::clock::Clock::fixed_on(2026, 11, 28).unwrap(),
        );
        for name in ["alpha", "beta"] {
            mbank_core::agent::bank::initialize(&ctx, &dir.path().join(name), None).unwrap();
        }
        let shared = shared_over(dir.path());
        (dir, shared)
    }

    #[test]
    fn a_request_that_stands_alone_names_its_project_or_is_told_how() {
        let (_dir, shared) = two_projects();
        let session = Session::stateless(None);
        let read = json!({"filename": "progress.md"});
        let error = dispatch(
            &shared,
            &session,
            "read_memory_bank_file",
            args(read.clone()),
        )
        .unwrap()
        .unwrap_err();
        assert_eq!(error.code, "invalid_request");
        assert!(
            error.message.contains("keeps no session") && error.message.contains("projectPath"),
            "{}",
            error.message
        );
        let named = json!({"filename": "progress.md", "projectPath": "beta"});
        assert!(
            dispatch(&shared, &session, "read_memory_bank_file", args(named))
                .unwrap()
                .is_ok()
        );
        for (tool, arguments) in [
            (
                "track_progress",
                json!({"action": "a", "description": "d", "projectName": "alpha"}),
            ),
            ("get_memory_bank_status", json!({"projectPath": "alpha"})),
            ("list_memory_bank_files", json!({"projectPath": "alpha"})),
            (
                "memory_bank_read",
                json!({"fileName": "progress.md", "projectPath": "alpha"}),
            ),
        ] {
            let answer = dispatch(&shared, &session, tool, args(arguments)).unwrap();
            assert!(answer.is_ok(), "{tool}: {answer:?}");
        }
        // Choosing a project is checked and answered, but not kept.
        let chosen = dispatch(
            &shared,
            &session,
            "set_memory_bank_path",
            args(json!({"path": "beta"})),
        )
        .unwrap()
        .unwrap();
        assert_eq!(chosen["remembered"], false);
        assert!(session.project.lock().is_none());
        // In a session, the choice is kept and a named project still wins.
        let session = Session::default();
        dispatch(
            &shared,
            &session,
            "set_memory_bank_path",
            args(json!({"path": "beta"})),
        )
        .unwrap()
        .unwrap();
        let status = dispatch(
            &shared,
            &session,
            "get_memory_bank_status",
            Default::default(),
        )
        .unwrap()
        .unwrap();
        assert_eq!(status["project"], "beta");
        let status = dispatch(
            &shared,
            &session,
            "get_memory_bank_status",
            args(json!({"projectPath": "alpha"})),
        )
        .unwrap()
        .unwrap();
        assert_eq!(status["project"], "alpha");
        // Every Memory Bank MCP tool advertises projectPath.
        for tool in tool_list(&shared) {
            let row = tools::TOOLS.iter().find(|t| t.name == tool.name).unwrap();
            if row.surface == tools::Surface::MemoryBankMcp && tool.name != "set_memory_bank_path" {
                assert!(
                    tool.input_schema["properties"].get("projectPath").is_some(),
                    "{}",
                    tool.name
                );
            }
        }
    }

    #[test]
    fn infinity_tools_take_the_project_id_activate_project_returned() {
        let (_dir, shared) = two_projects();
        let session = Session::stateless(None);
        let error = dispatch(&shared, &session, "list_memories", Default::default())
            .unwrap()
            .unwrap_err();
        assert_eq!(error.code, "project_not_activated");
        assert!(error.message.contains("project_id"), "{}", error.message);
        let activated = dispatch(&shared, &session, "activate_project", Default::default())
            .unwrap()
            .unwrap();
        assert_eq!(activated["remembered"], false);
        assert!(session.infinity.lock().is_none());
        let id = activated["project_id"].as_str().unwrap();
        let stored = dispatch(
            &shared,
            &Session::stateless(None),
            "store_memory",
            args(json!({"project_id": id, "title": "t", "type": "design_doc", "content": "c"})),
        )
        .unwrap()
        .unwrap();
        assert_eq!(stored["success"], true);
        let wrong = dispatch(
            &shared,
            &Session::default(),
            "list_memories",
            args(json!({"project_id": "another"})),
        )
        .unwrap()
        .unwrap_err();
        assert_eq!(wrong.code, "project_not_activated");
        for tool in tool_list(&shared) {
            let row = tools::TOOLS.iter().find(|t| t.name == tool.name).unwrap();
            if row.surface == tools::Surface::Infinity && tool.name != "activate_project" {
                assert!(
                    tool.input_schema["properties"].get("project_id").is_some(),
                    "{}",
                    tool.name
                );
            }
        }
    }

    #[test]
    fn a_call_cancelled_before_it_starts_writes_nothing() {
        let (dir, shared) = two_projects();
        let session = Session::default();
        let file = dir.path().join("alpha/memory-bank/notes.md");
        let write = json!({"projectPath": "alpha", "fileName": "notes.md", "content": "# Notes\n"});
        let cancelled = dispatch_unless_cancelled(
            &shared,
            &session,
            "memory_bank_write",
            args(write.clone()),
            || true,
        );
        let error = cancelled.expect_err("refused");
        assert_eq!(error.code, REQUEST_CANCELLED);
        assert!(!file.exists());
        let done =
            dispatch_unless_cancelled(&shared, &session, "memory_bank_write", args(write), || {
                false
            });
        assert!(matches!(done, Ok(Some(Ok(_)))));
        assert!(file.is_file());
    }

    #[test]
    fn a_lone_string_for_a_list_is_refused_not_wrapped() {
        let (dir, shared) = two_projects();
        let log = dir.path().join("alpha/memory-bank/decisionLog.md");
        let before = std::fs::read_to_string(&log).unwrap();
        let decision = json!({"projectPath": "alpha", "title": "t", "context": "c",
            "decision": "d", "alternatives": "notalist"});
        let error = dispatch(&shared, &Session::default(), "log_decision", args(decision))
            .unwrap()
            .unwrap_err();
        assert_eq!(error.code, "invalid_request");
        assert!(
            error
                .message
                .contains("\"alternatives\" must be a list of strings"),
            "{}",
            error.message
        );
        assert_eq!(std::fs::read_to_string(&log).unwrap(), before);
    }

    #[test]
    fn a_read_only_server_lists_no_write_tool() {
        let dir = tempfile::tempdir().unwrap();
        let shared = Shared::new(ServeOptions {
            read_only: true,
            ..shared_over(dir.path()).options.clone()
        })
        .unwrap();
        let listed: Vec<String> = tool_list(&shared)
            .iter()
            .map(|t| t.name.to_string())
            .collect();
        for tool in tools::TOOLS.iter() {
            let shown = listed.iter().any(|name| name == tool.name);
            let expected = tool.effect.read_only || tool.name == "activate_project";
            if tool.surface != tools::Surface::Proposals {
                assert_eq!(shown, expected, "{}", tool.name);
            }
        }
        assert!(listed.contains(&"memory_bank_read".to_string()));
        assert!(!listed.contains(&"log_decision".to_string()));
    }

    #[test]
    fn a_cursor_is_refused_since_none_is_handed_out() {
        assert!(no_cursor(None).is_ok());
        let mut params = PaginatedRequestParams::default();
        assert!(no_cursor(Some(&params)).is_ok());
        params.cursor = Some("bogus".into());
        let error = no_cursor(Some(&params)).unwrap_err();
        assert_eq!(error.code, rmcp::model::ErrorCode::INVALID_PARAMS);
    }

    #[test]
    fn the_protocol_versions_answered_are_the_ones_handled() {
        // A version without sessions is handled by giving each request its own session;
        // one newer than mbank knows is not answered until it is.
        assert!(PROTOCOL_VERSIONS.iter().all(|v| v.as_str() <= "2026-07-28"));
        assert!(PROTOCOL_VERSIONS.contains(&ProtocolVersion::V_2026_07_28));
        assert!(PROTOCOL_VERSIONS.contains(&ProtocolVersion::V_2025_11_25));
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

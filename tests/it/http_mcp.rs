//! The MCP tools over Streamable HTTP (`mbank serve`'s `/mcp`), end to end with the MCP
//! SDK's client and raw requests: sessions closed with 204, a hundred calls in a row, the
//! rate limit answered as a JSON-RPC error with Retry-After, large writes, malformed
//! arguments and messages over the shared limit.
use crate::http_serve::{Server, client, error_code, tls};

use std::process::Stdio;
use std::time::Duration;

use mbank::core::analysis::decisions;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};

/// Closing an MCP session answers 204, what MCP clients (the Python SDK among them) expect;
/// the SDK's own 202 made them log a failed termination on every close.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_an_mcp_session_is_answered_no_content() {
    let server = Server::start("[serve]\nrate_limit_per_minute = 1000\n", &[]);
    let client = client();
    let initialize = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}
        }
    });
    let response = client
        .post(server.url("/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .json(&initialize)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let session = response
        .headers()
        .get("mcp-session-id")
        .expect("a session id")
        .to_str()
        .unwrap()
        .to_string();
    let closed = client
        .delete(server.url("/mcp"))
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(closed.status().as_u16(), 204);
    assert!(closed.bytes().await.unwrap().is_empty());
}

type HttpClient = rmcp::service::RunningService<rmcp::RoleClient, ()>;

/// The SDK's client over Streamable HTTP at `/mcp`, with `key` as its bearer token.
async fn mcp_client(server: &Server, key: Option<&str>) -> HttpClient {
    tls();
    let mut config = StreamableHttpClientTransportConfig::with_uri(server.url("/mcp"));
    if let Some(key) = key {
        config = config.auth_header(key);
    }
    let transport = StreamableHttpClientTransport::from_config(config);
    tokio::time::timeout(Duration::from_secs(30), ().serve(transport))
        .await
        .unwrap()
        .unwrap()
}

fn tool(name: &str, args: Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name.to_string()).with_arguments(args.as_object().unwrap().clone())
}

/// An agent's session is a stream of tool calls: with the default configuration on
/// loopback none of them is refused (the limit once counted every JSON-RPC message and
/// stopped an agent at its 56th call).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_sequential_tool_calls_over_mcp_with_the_default_config_all_succeed() {
    let server = Server::start("", &[]);
    let client = mcp_client(&server, None).await;
    let mut failures = Vec::new();
    for i in 0..100 {
        let call = match i % 4 {
            0 => tool("set_memory_bank_path", json!({"path": "alpha"})),
            1 => tool(
                "read_memory_bank_file",
                json!({"filename": "projectBrief.md"}),
            ),
            2 => tool(
                "log_decision",
                json!({"title": format!("Decision number {i}"), "context": "c", "decision": "d"}),
            ),
            _ => tool(
                "track_progress",
                json!({"action": "Implementation", "description": format!("step {i}")}),
            ),
        };
        match tokio::time::timeout(Duration::from_secs(30), client.call_tool(call)).await {
            Ok(Ok(result)) if result.is_error != Some(true) => {}
            other => failures.push(format!("call {i}: {other:?}")),
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    let log_path = server.bank("alpha").join("decisionLog.md");
    let log = std::fs::read_to_string(&log_path).unwrap();
    assert_eq!(decisions::parse_log(&log_path, &log).len(), 25);
    client.cancel().await.unwrap();
    // No limit applies, so no limit is announced.
    let response = client_get(&server, "/memory-bank/files?project=alpha").await;
    assert_eq!(response.status().as_u16(), 200);
    assert!(!response.headers().contains_key("x-ratelimit-limit"));
}

async fn client_get(server: &Server, path: &str) -> reqwest::Response {
    client().get(server.url(path)).send().await.unwrap()
}

/// Over the limit, a tool call gets a JSON-RPC error the client reads: a code, and the
/// seconds to wait in `data.retryAfter` (HTTP's Retry-After too). The session's own
/// messages (initialize, tools/list) are not counted, and each key has its own budget.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_calls_over_the_rate_limit_get_a_json_rpc_error_with_retry_after() {
    let server = Server::start(
        "[serve]\napi_keys = [\"limit-key-of-16-chars\", \"other-key-of-16-chars\"]\nrate_limit_per_minute = 3\n",
        // The server's clock starts on a whole minute: the test has the window to itself.
        &[("MBANK_NOW", "2026-11-28T10:00:00Z")],
    );
    let client = mcp_client(&server, Some("limit-key-of-16-chars")).await;
    for _ in 0..3 {
        assert_eq!(client.list_all_tools().await.unwrap().len(), 26);
    }
    let read = || {
        tool(
            "memory_bank_read",
            json!({"projectPath": "alpha", "fileName": "projectBrief.md"}),
        )
    };
    for _ in 0..3 {
        let result = client.call_tool(read()).await.unwrap();
        assert_eq!(result.is_error, Some(false), "{result:?}");
    }
    let refused = client.call_tool(read()).await.unwrap_err();
    let rmcp::ServiceError::McpError(error) = refused else {
        panic!("not a JSON-RPC error: {refused:?}");
    };
    assert_eq!(error.code.0, -32029, "{error:?}");
    assert!(
        error.message.contains("3 tool calls per minute"),
        "{error:?}"
    );
    let data = error.data.unwrap();
    assert_eq!(data["code"], "rate_limited");
    let wait = data["retryAfter"].as_u64().unwrap();
    assert!((1..=60).contains(&wait), "{data}");
    assert_eq!(data["limitPerMinute"], 3);
    // Listing is not an operation: still answered.
    assert_eq!(client.list_all_tools().await.unwrap().len(), 26);
    client.cancel().await.unwrap();
    let other = mcp_client(&server, Some("other-key-of-16-chars")).await;
    let result = other.call_tool(read()).await.unwrap();
    assert_eq!(result.is_error, Some(false));
    other.cancel().await.unwrap();
}

/// A write over 1 MiB reaches the tool over HTTP as it does over stdio (one message
/// limit for both transports), and lands in the file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_over_one_mib_succeeds_over_http_as_over_stdio() {
    let server = Server::start("", &[]);
    let content = format!("# Big\n{}", "- a line of a long history\n".repeat(60_000));
    assert!(content.len() > 1024 * 1024);
    let write = |file: &str| {
        tool(
            "memory_bank_write",
            json!({"projectPath": "alpha", "fileName": file, "content": content}),
        )
    };
    let http = mcp_client(&server, None).await;
    let result = http.call_tool(write("over-http.md")).await.unwrap();
    assert_eq!(result.is_error, Some(false), "{result:?}");
    http.cancel().await.unwrap();

    let mut command = server._sandbox.mbank();
    command
        .arg("--root")
        .arg(&server.root)
        .arg("mcp")
        .env("MBANK_DATA_DIR", &server.data_dir)
        .current_dir(&server.root);
    let (transport, _) =
        rmcp::transport::TokioChildProcess::builder(tokio::process::Command::from(command))
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
    let stdio = tokio::time::timeout(Duration::from_secs(30), ().serve(transport))
        .await
        .unwrap()
        .unwrap();
    let result = stdio.call_tool(write("over-stdio.md")).await.unwrap();
    assert_eq!(result.is_error, Some(false), "{result:?}");
    stdio.cancel().await.unwrap();
    for file in ["over-http.md", "over-stdio.md"] {
        assert_eq!(
            std::fs::read_to_string(server.bank("alpha").join(file)).unwrap(),
            content
        );
    }
}

/// Raw JSON-RPC over `/mcp`, as a client that builds its own messages sends it.
async fn raw_mcp(
    c: &reqwest::Client,
    server: &Server,
    session: Option<&str>,
    body: &Value,
) -> reqwest::Response {
    let mut request = c
        .post(server.url("/mcp"))
        .header("accept", "application/json, text/event-stream")
        .json(body);
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    request.send().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_tool_arguments_over_http_get_invalid_params_and_the_rest_api_answers_in_json() {
    let server = Server::start("", &[]);
    let c = client();
    let initialized = raw_mcp(&c, &server, None, &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}})).await;
    let session = initialized.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_string();
    for (id, arguments) in [
        (2, json!("{\"projectPath\": \"alpha\"}")),
        (3, json!(["alpha"])),
    ] {
        let response = raw_mcp(&c, &server, Some(&session), &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "memory_bank_read", "arguments": arguments}})).await;
        assert_eq!(response.status().as_u16(), 200);
        let reply: Value = response.json().await.unwrap();
        assert_eq!(
            (reply["id"].as_i64(), reply["error"]["code"].as_i64()),
            (Some(id), Some(-32602)),
            "{reply}"
        );
    }
    let response = c
        .post(server.url("/mcp"))
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .header("mcp-session-id", &session)
        .body("{\"jsonrpc\": \"2.0\", \"id\": 4, \"method\": \"tools/li")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 400);
    let reply: Value = response.json().await.unwrap();
    assert_eq!(reply["error"]["code"], -32700, "{reply}");

    // /status: a root of initialised projects is initialised; an unknown project is 404.
    let (code, status) = json_body(client_get(&server, "/status").await).await;
    assert_eq!(
        (code, status["memoryBankStatus"].as_str()),
        (200, Some("initialized"))
    );
    let (code, body) = json_body(client_get(&server, "/status?project=gamma").await).await;
    assert_eq!((code, error_code(&body)), (404, "project_not_found"));
    // A method a route does not take: 405 with the spec's JSON error and Allow.
    let response = c
        .put(server.url("/status"))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert!(
        response.headers()["allow"]
            .to_str()
            .unwrap()
            .contains("GET")
    );
    let (code, body) = json_body(response).await;
    assert_eq!((code, error_code(&body)), (405, "method_not_allowed"));
    // Without a project, the REST API says how to name one, for REST.
    let (code, body) = json_body(client_get(&server, "/memory-bank/files").await).await;
    assert_eq!((code, error_code(&body)), (400, "invalid_request"));
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("over the REST API with ?project=NAME"),
        "{message}"
    );
    // A string where a section's list belongs.
    let response = c
        .post(server.url("/memory-bank/updateActiveContext?project=alpha"))
        .json(&json!({"tasks": "Implement auth"}))
        .send()
        .await
        .unwrap();
    let (code, body) = json_body(response).await;
    assert_eq!((code, error_code(&body)), (400, "invalid_request"));
}

/// Status and JSON body, for a server without a rate limit (no rate headers to check).
pub(crate) async fn json_body(response: reqwest::Response) -> (u16, Value) {
    let status = response.status().as_u16();
    assert_eq!(response.headers()["x-api-version"], "1.0.0");
    assert_eq!(response.headers()["content-type"], "application/json");
    (status, response.json().await.unwrap())
}

/// A message over the limit both transports share is answered with the same JSON-RPC
/// error as on stdio (-32600 naming the limit), at once, without reading the body.
#[test]
fn an_mcp_message_over_the_shared_limit_gets_a_json_rpc_error() {
    use std::io::{Read, Write};
    let server = Server::start("", &[]);
    let address = server.base.trim_start_matches("http://").to_string();
    let limit = mbank::serve::stdio::MAX_MESSAGE_BYTES;
    let mut stream = std::net::TcpStream::connect(&address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nhost: {address}\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\ncontent-length: {}\r\n\r\n{{",
        limit + 1
    )
    .unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let text = String::from_utf8_lossy(&answer);
    assert!(text.starts_with("HTTP/1.1 413"), "{text}");
    let body = text.split("\r\n\r\n").nth(1).unwrap_or_default();
    let reply: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains(&limit.to_string()),
        "{reply}"
    );
}

//! `mbank serve` end to end: the real binary on 127.0.0.1 (an ephemeral port), a real
//! HTTP client for every endpoint of the Memory Bank MCP spec's REST API, keys, rate limits, the body
//! limit, one MCP tool call over Streamable HTTP with the SDK's client, and `/chat` against
//! a fake OpenAI-compatible endpoint on 127.0.0.1. The MCP transport in depth: `http_mcp`.
use crate::common;

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::http_mcp::json_body;
use common::Sandbox;
use mbank::core::analysis::decisions;
use mbank::core::guard::refusals;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};

/// A running `mbank serve`, killed on drop; its stdout lines are collected.
pub(crate) struct Server {
    pub(crate) child: Child,
    pub(crate) base: String,
    pub(crate) log: Arc<Mutex<Vec<String>>>,
    pub(crate) _sandbox: Sandbox,
    pub(crate) root: PathBuf,
    pub(crate) data_dir: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// Starts a server over a root holding `alpha` and `beta`, with `config` as
    /// config.toml and extra environment.
    pub(crate) fn start(config: &str, env: &[(&str, &str)]) -> Server {
        let sandbox = Sandbox::new();
        let root = sandbox.home().join("banks");
        for project in ["alpha", "beta"] {
            sandbox
                .run(&[
                    "init",
                    root.join(project).to_str().unwrap(),
                    "--brief",
                    &format!("The {project} todo API"),
                ])
                .expect_code(0);
        }
        let config_path = sandbox.home().join("serve.toml");
        std::fs::write(&config_path, config).unwrap();
        let data_dir = sandbox.home().join("data-mbank");
        let mut command = sandbox.mbank();
        command
            .args([
                "--root",
                root.to_str().unwrap(),
                "--config",
                config_path.to_str().unwrap(),
            ])
            .args(["serve", "--listen", "127.0.0.1:0"])
            .env("MBANK_DATA_DIR", &data_dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        for (k, v) in env {
            command.env(k, v);
        }
        let mut child = command.spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut lines = BufReader::new(stdout).lines();
        let first = common::within(
            Duration::from_secs(30),
            "the server start-up line",
            move || {
                let first = lines.next().unwrap().unwrap();
                (first, lines)
            },
        );
        let (first, rest) = first;
        let address = first
            .split("listening on http://")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .unwrap_or_else(|| panic!("no address in {first:?}"))
            .to_string();
        let log = Arc::new(Mutex::new(Vec::new()));
        let sink = log.clone();
        std::thread::spawn(move || {
            for line in rest.map_while(Result::ok) {
                sink.lock().unwrap().push(line);
            }
        });
        Server {
            child,
            base: format!("http://{address}"),
            log,
            _sandbox: sandbox,
            root,
            data_dir,
        }
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub(crate) fn bank(&self, project: &str) -> PathBuf {
        self.root.join(project).join("memory-bank")
    }
}

/// reqwest is built without a default TLS provider (the server installs ring at start).
pub(crate) fn tls() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

pub(crate) fn client() -> reqwest::Client {
    tls();
    reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap()
}

/// Status and JSON body of a response (checking the headers every response carries).
pub(crate) async fn json_of(response: reqwest::Response) -> (u16, Value) {
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    assert_eq!(headers["x-api-version"], "1.0.0");
    if status != 401 {
        for name in [
            "x-ratelimit-limit",
            "x-ratelimit-remaining",
            "x-ratelimit-reset",
        ] {
            assert!(headers.contains_key(name), "{name} missing");
        }
    }
    let body: Value = response.json().await.unwrap();
    (status, body)
}

pub(crate) fn error_code(body: &Value) -> &str {
    assert_eq!(body["status"], "error", "{body}");
    body["error"]["code"].as_str().unwrap()
}

pub(crate) async fn get(c: &reqwest::Client, url: String) -> (u16, Value) {
    json_of(c.get(url).send().await.unwrap()).await
}

pub(crate) async fn post(c: &reqwest::Client, url: String, body: Value) -> (u16, Value) {
    json_of(c.post(url).json(&body).send().await.unwrap()).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_rest_endpoint_with_its_errors() {
    // A limit set, so every response carries the spec's rate headers.
    let server = Server::start(LIMITED, &[]);
    let c = client();

    let (code, status) = get(&c, server.url("/status")).await;
    assert_eq!(code, 200);
    assert_eq!(
        (status["status"].as_str(), status["version"].as_str()),
        (Some("ok"), Some("1.0.0"))
    );
    assert_eq!(status["projects"], json!(["alpha", "beta"]));
    // Two initialised projects and none named: the root is initialised, and the file
    // endpoints ask for a project.
    assert_eq!(status["memoryBankStatus"], "initialized");
    let (code, body) = get(&c, server.url("/memory-bank/files")).await;
    assert_eq!((code, error_code(&body)), (400, "invalid_request"));
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("?project=NAME")
    );
    let (_, status) = get(&c, server.url("/status?project=alpha")).await;
    assert_eq!(status["memoryBankStatus"], "initialized");

    let (code, files) = get(&c, server.url("/memory-bank/files?project=alpha")).await;
    assert_eq!(code, 200);
    assert_eq!(files["status"], "success");
    assert!(
        files["files"]
            .as_array()
            .unwrap()
            .contains(&json!("projectBrief.md"))
    );

    // GET a file: content, version (also as ETag); ?project picks the project.
    let response = c
        .get(server.url("/memory-bank/file/projectBrief.md?project=beta"))
        .send()
        .await
        .unwrap();
    let etag = response.headers()["etag"].to_str().unwrap().to_string();
    let (code, brief) = json_of(response).await;
    assert_eq!(code, 200);
    assert!(
        brief["content"]
            .as_str()
            .unwrap()
            .contains("The beta todo API")
    );
    assert_eq!(etag, format!("\"{}\"", brief["version"].as_str().unwrap()));
    let (code, body) = get(&c, server.url("/memory-bank/file/nope.md?project=alpha")).await;
    assert_eq!((code, error_code(&body)), (404, "file_not_found"));
    let (code, body) = get(&c, server.url("/memory-bank/file/x.md?project=gamma")).await;
    assert_eq!((code, error_code(&body)), (404, "project_not_found"));
    let (code, body) = get(
        &c,
        server.url(
            "/memory-bank/file/%2E%2E%2F%2E%2E%2Fbeta%2Fmemory-bank%2Fprogress.md?project=alpha",
        ),
    )
    .await;
    assert_eq!((code, error_code(&body)), (403, "forbidden_path"));
    let (code, body) = get(
        &c,
        server.url("/memory-bank/file/progress.md?project=..%2F.."),
    )
    .await;
    assert_eq!((code, error_code(&body)), (403, "forbidden_path"));

    // POST creates or replaces; a stale expectedVersion (or If-Match) is a conflict.
    let (code, written) = post(
        &c,
        server.url("/memory-bank/file?project=alpha"),
        json!({"filename": "example.md", "content": "# Example File\n"}),
    )
    .await;
    assert_eq!(code, 200);
    assert_eq!(written["message"], "File written successfully");
    let first = written["version"].as_str().unwrap().to_string();
    let (code, _) = post(
        &c,
        server.url("/memory-bank/file?project=alpha"),
        json!({"filename": "example.md", "content": "# Example 2\n", "expectedVersion": first}),
    )
    .await;
    assert_eq!(code, 200);
    let (code, body) = post(
        &c,
        server.url("/memory-bank/file?project=alpha"),
        json!({"filename": "example.md", "content": "# Stale\n", "expectedVersion": first}),
    )
    .await;
    assert_eq!((code, error_code(&body)), (409, "version_conflict"));
    let response = c
        .post(server.url("/memory-bank/file?project=alpha"))
        .header("If-Match", format!("\"{first}\""))
        .json(&json!({"filename": "example.md", "content": "# Stale\n"}))
        .send()
        .await
        .unwrap();
    assert_eq!(json_of(response).await.0, 409);
    let (code, body) = post(
        &c,
        server.url("/memory-bank/file?project=alpha"),
        json!({"filename": "run.sh", "content": "x"}),
    )
    .await;
    assert_eq!((code, error_code(&body)), (400, "invalid_format"));
    let (code, body) = post(
        &c,
        server.url("/memory-bank/file?project=alpha"),
        json!({"filename": "example.md"}),
    )
    .await;
    assert_eq!((code, error_code(&body)), (400, "invalid_request"));
    let response = c
        .post(server.url("/memory-bank/file?project=alpha"))
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    let (code, body) = json_of(response).await;
    assert_eq!((code, error_code(&body)), (400, "invalid_request"));
    let (code, body) = post(
        &c,
        server.url("/memory-bank/file?project=alpha"),
        json!({"filename": "leak.md", "content": "key: AKIAIOSFODNN7REALKEY\n"}),
    )
    .await;
    assert_eq!((code, error_code(&body)), (422, "secret_detected"));

    // DELETE: an ordinary file goes; a decision log with entries is append-only.
    let response = c
        .delete(server.url("/memory-bank/file/example.md?project=alpha"))
        .send()
        .await
        .unwrap();
    let (code, body) = json_of(response).await;
    assert_eq!(
        (code, body["message"].as_str()),
        (200, Some("File deleted successfully"))
    );
    assert!(!server.bank("alpha").join("example.md").exists());

    let (code, body) = get(&c, server.url("/memory-bank/modes?project=alpha")).await;
    assert_eq!(code, 200);
    assert_eq!(
        body["modes"],
        json!(["architect", "code", "ask", "debug", "test"])
    );

    // The three entry endpoints write dated entries the timeline parses.
    let (code, body) = post(&c, server.url("/memory-bank/trackProgress?project=alpha"), json!({"action": "Implementation", "description": "Implemented feature X", "updateActiveContext": true})).await;
    assert_eq!(
        (code, body["message"].as_str()),
        (200, Some("Progress tracked successfully"))
    );
    let (code, body) = post(&c, server.url("/memory-bank/logDecision?project=alpha"), json!({
        "title": "Authentication Method",
        "context": "We need to choose an authentication method for our API",
        "decision": "Use JWT for authentication",
        "alternatives": ["Session-based authentication", "OAuth 2.0", "API keys"],
        "consequences": ["Stateless authentication", "Need to handle token expiration and refresh"]
    })).await;
    assert_eq!(
        (code, body["message"].as_str()),
        (200, Some("Decision logged successfully"))
    );
    let (code, body) = post(&c, server.url("/memory-bank/updateActiveContext?project=alpha"), json!({"tasks": ["Implement authentication"], "issues": ["UI not responsive on mobile"], "nextSteps": ["Fix performance issues"]})).await;
    assert_eq!(
        (code, body["message"].as_str()),
        (200, Some("Active context updated successfully"))
    );
    let (code, body) = post(
        &c,
        server.url("/memory-bank/updateActiveContext?project=alpha"),
        json!({}),
    )
    .await;
    assert_eq!((code, error_code(&body)), (400, "invalid_request"));
    let log_path = server.bank("alpha").join("decisionLog.md");
    let log = std::fs::read_to_string(&log_path).unwrap();
    let parsed = decisions::parse_log(&log_path, &log);
    assert_eq!(parsed.len(), 1);
    assert_eq!(parsed[0].title, "Authentication Method");
    let active = std::fs::read_to_string(server.bank("alpha").join("activeContext.md")).unwrap();
    assert!(
        active.contains("## Known Issues\n- UI not responsive on mobile\n"),
        "{active}"
    );

    let response = c
        .delete(server.url("/memory-bank/file/decisionLog.md?project=alpha"))
        .send()
        .await
        .unwrap();
    let (code, body) = json_of(response).await;
    assert_eq!((code, error_code(&body)), (422, "append_only_violation"));
    assert!(log_path.exists());
    let logged = refusals::read_in(&server.data_dir, &server.root.join("alpha")).unwrap();
    assert!(
        logged
            .iter()
            .any(|r| r.rule == "append-only" && r.via == "http:DELETE /memory-bank/file"),
        "{logged:?}"
    );
    assert!(logged.iter().any(|r| r.rule == "secret"));

    let (code, body) = post(
        &c,
        server.url("/chat?project=alpha"),
        json!({"messages": [{"role": "user", "content": "hi"}]}),
    )
    .await;
    assert_eq!((code, error_code(&body)), (500, "server_error"));
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("[serve.chat]")
    );
    let (code, body) = get(&c, server.url("/nowhere")).await;
    assert_eq!((code, error_code(&body)), (404, "not_found"));

    // One log line per request, with method, path and status: the last is printed after
    // its response is sent, so it is waited for.
    let log = common::poll_until(Duration::from_secs(10), "every request's log line", || {
        let lines = server.log.lock().unwrap().clone();
        (lines.len() >= 26).then_some(lines)
    });
    assert!(
        log.iter().any(|l| l.contains(" GET /status 200 ")),
        "{log:?}"
    );
    assert!(
        log.iter()
            .any(|l| l.contains(" DELETE /memory-bank/file/decisionLog.md?project=alpha 422 "))
    );
    assert_eq!(log.len(), 26, "one line per request: {log:#?}");
}

/// A rate limit high enough never to refuse these tests, so the headers are sent.
const LIMITED: &str = "[serve]\nrate_limit_per_minute = 1000\n";

const KEYED: &str = r#"
[serve]
require_key = true
api_keys = ["test-key-number-1", "test-key-number-2"]
rate_limit_per_minute = 5
max_body_bytes = 4096
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_rate_limits_and_the_body_limit() {
    let server = Server::start(KEYED, &[]);
    let c = client();
    let files = server.url("/memory-bank/files?project=alpha");

    let response = c.get(&files).send().await.unwrap();
    assert_eq!(response.headers()["www-authenticate"], "Bearer");
    let (code, body) = json_of(response).await;
    assert_eq!((code, error_code(&body)), (401, "unauthorized"));
    let (code, body) = json_of(c.get(&files).bearer_auth("wrong").send().await.unwrap()).await;
    assert_eq!((code, error_code(&body)), (401, "unauthorized"));

    // Five a minute for this key, counted down in the headers; the sixth is refused.
    for left in (0..5).rev() {
        let response = c
            .get(&files)
            .bearer_auth("test-key-number-1")
            .send()
            .await
            .unwrap();
        assert_eq!(response.headers()["x-ratelimit-limit"], "5");
        assert_eq!(
            response.headers()["x-ratelimit-remaining"],
            left.to_string().as_str()
        );
        assert_eq!(json_of(response).await.0, 200);
    }
    let response = c
        .get(&files)
        .bearer_auth("test-key-number-1")
        .send()
        .await
        .unwrap();
    assert!(response.headers().contains_key("retry-after"));
    assert_eq!(response.headers()["x-ratelimit-remaining"], "0");
    let reset: u64 = response.headers()["x-ratelimit-reset"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(reset % 60, 0);
    let (code, body) = json_of(response).await;
    assert_eq!((code, error_code(&body)), (429, "rate_limited"));
    // Another key has its own budget.
    let (code, _) = json_of(
        c.get(&files)
            .bearer_auth("test-key-number-2")
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(code, 200);

    // Over max_body_bytes: refused before anything is read or written.
    let big = json!({"filename": "big.md", "content": "x".repeat(5000)});
    let response = c
        .post(server.url("/memory-bank/file?project=alpha"))
        .bearer_auth("test-key-number-2")
        .json(&big)
        .send()
        .await
        .unwrap();
    let (code, body) = json_of(response).await;
    assert_eq!((code, error_code(&body)), (413, "payload_too_large"));
    assert!(!server.bank("alpha").join("big.md").exists());
}

#[test]
fn serve_refuses_to_start_when_a_key_is_required_but_none_is_set() {
    let sandbox = Sandbox::new();
    let root = sandbox.home().join("banks");
    std::fs::create_dir_all(&root).unwrap();
    let config = sandbox.home().join("serve.toml");
    std::fs::write(&config, "[serve]\nrequire_key = true\n").unwrap();
    let run = sandbox.run(&[
        "--root",
        root.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
        "serve",
        "--listen",
        "127.0.0.1:0",
    ]);
    run.expect_code(2);
    assert!(run.stderr.contains("without an API key"), "{}", run.stderr);
    assert!(run.stderr.contains("MBANK_API_KEY"), "{}", run.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_tools_over_streamable_http() {
    let server = Server::start(
        "[serve]\napi_keys = [\"mcp-key-of-16-chars\"]\nrate_limit_per_minute = 1000\n",
        &[],
    );
    tls();
    let config = StreamableHttpClientTransportConfig::with_uri(server.url("/mcp"))
        .auth_header("mcp-key-of-16-chars");
    let transport = StreamableHttpClientTransport::from_config(config);
    let client = tokio::time::timeout(Duration::from_secs(30), ().serve(transport))
        .await
        .unwrap()
        .unwrap();
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 26);
    let call = |name: &str, args: Value| {
        CallToolRequestParams::new(name.to_string())
            .with_arguments(args.as_object().unwrap().clone())
    };
    let read = client
        .call_tool(call(
            "memory_bank_read",
            json!({"projectPath": "alpha", "fileName": "projectBrief.md"}),
        ))
        .await
        .unwrap();
    let value = read.structured_content.unwrap();
    assert!(
        value["content"]
            .as_str()
            .unwrap()
            .contains("The alpha todo API")
    );
    let logged = client
        .call_tool(call(
            "log_decision",
            json!({"title": "Over HTTP", "context": "c", "decision": "d"}),
        ))
        .await
        .unwrap();
    // Two projects and no current one: the session must choose first, the MCP way
    // (/mcp has no ?project).
    assert_eq!(logged.is_error, Some(true));
    let message = logged.structured_content.unwrap()["error"]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        message.contains("over MCP with set_memory_bank_path or a tool's projectPath"),
        "{message}"
    );
    client
        .call_tool(call("set_memory_bank_path", json!({"path": "beta"})))
        .await
        .unwrap();
    let logged = client
        .call_tool(call(
            "log_decision",
            json!({"title": "Over HTTP", "context": "c", "decision": "d"}),
        ))
        .await
        .unwrap();
    assert_eq!(logged.is_error, Some(false), "{logged:?}");
    assert!(
        std::fs::read_to_string(server.bank("beta").join("decisionLog.md"))
            .unwrap()
            .contains("## Decision: Over HTTP")
    );
    client.cancel().await.unwrap();

    // A wrong key is refused at /mcp like at every endpoint.
    let response = post_with_wrong_key(&server.url("/mcp")).await;
    assert_eq!(response, 401);
}

async fn post_with_wrong_key(url: &str) -> u16 {
    client()
        .post(url)
        .bearer_auth("not-the-key")
        .header("accept", "application/json, text/event-stream")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}))
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

/// What the fake endpoint received: the Authorization header and the body, per request.
type Seen = Arc<Mutex<Vec<(Option<String>, Value)>>>;

/// A fake OpenAI-compatible endpoint on 127.0.0.1 recording what it receives.
async fn fake_openai(seen: Seen) -> String {
    use axum::routing::post;
    let app = axum::Router::new().route(
        "/v1/chat/completions",
        post(move |headers: axum::http::HeaderMap, body: axum::Json<Value>| {
            let seen = seen.clone();
            async move {
                let auth = headers
                    .get("authorization")
                    .map(|v| v.to_str().unwrap().to_string());
                seen.lock().unwrap().push((auth, body.0));
                axum::Json(json!({"choices": [{"message": {"role": "assistant", "content": "fake answer"}}]}))
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    format!("http://{address}/v1/chat/completions")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_forwards_with_the_session_context_first() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let url = fake_openai(seen.clone()).await;
    let config = format!(
        "{LIMITED}[serve.chat]\nurl = \"{url}\"\nmodel = \"test-model\"\napi_key_env = \"FAKE_OPENAI_KEY\"\n"
    );
    let server = Server::start(&config, &[("FAKE_OPENAI_KEY", "sk-fake")]);
    let c = client();
    let (code, body) = post(&c, server.url("/chat?project=alpha"), json!({
        "messages": [
            {"role": "system", "content": "You are an AI assistant with access to the project Memory Bank."},
            {"role": "user", "content": "What is the current status of our project?"}
        ],
        "mode": "ask",
        "useMemoryBank": true
    })).await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["response"], "fake answer");
    assert_eq!(body["status"], "success");
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1);
    let (auth, upstream) = &seen[0];
    assert_eq!(auth.as_deref(), Some("Bearer sk-fake"));
    assert_eq!(upstream["model"], "test-model");
    let messages = upstream["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3);
    assert_eq!(messages[0]["role"], "system");
    let memory = messages[0]["content"].as_str().unwrap();
    assert!(
        memory.contains("The alpha todo API") && !memory.contains("The beta todo API"),
        "{memory}"
    );
    assert_eq!(
        messages[2]["content"],
        "What is the current status of our project?"
    );

    let (code, body) = post(
        &c,
        server.url("/chat?project=alpha"),
        json!({"messages": "hi"}),
    )
    .await;
    assert_eq!((code, error_code(&body)), (400, "invalid_request"));
}

#[test]
fn chat_reports_an_unreachable_endpoint() {
    // A port nothing listens on: bind one, note it, close it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let config = format!(
        "{LIMITED}[serve.chat]\nurl = \"http://127.0.0.1:{port}/v1/chat/completions\"\nmodel = \"m\"\n"
    );
    let server = Server::start(&config, &[]);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (code, body) = runtime.block_on(post(
        &client(),
        server.url("/chat?project=alpha"),
        json!({"messages": [{"role": "user", "content": "hi"}]}),
    ));
    assert_eq!((code, error_code(&body)), (502, "server_error"));
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("did not answer")
    );
}

/// `/chat` sends one agent's files in read order within its token budget, whole files
/// only, and says what it left out; a bank with one huge file sent it all before.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_caps_the_memory_it_sends_by_whole_files() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let url = fake_openai(seen.clone()).await;
    let config = format!("[serve.chat]\nurl = \"{url}\"\nmodel = \"m\"\ncontext_tokens = 2000\n");
    let server = Server::start(&config, &[]);
    let huge = format!(
        "# Active\n{}",
        "the current focus, at length\n".repeat(40_000)
    );
    std::fs::write(server.bank("alpha").join("activeContext.md"), &huge).unwrap();
    let response = client()
        .post(server.url("/chat?project=alpha"))
        .json(&json!({"messages": [{"role": "user", "content": "status?"}]}))
        .send()
        .await
        .unwrap();
    let (code, body) = json_body(response).await;
    assert_eq!(code, 200, "{body}");
    let seen = seen.lock().unwrap().clone();
    let memory = seen[0].1["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        memory.len() <= 2000 * 4 + 500,
        "{} bytes sent",
        memory.len()
    );
    assert!(memory.contains("The alpha todo API"), "{memory}");
    assert!(!memory.contains("the current focus"), "{memory}");
    assert!(
        memory.ends_with("]")
            && memory.contains(
                "[left out to keep the memory under 2000 tokens: memory-bank/activeContext.md"
            ),
        "{memory}"
    );
}

/// A fake chat endpoint on 127.0.0.1 that answers every request with a chunked reply of
/// `total` bytes (no declared length), in 64 KiB chunks, for as long as the reader takes it.
async fn endless_chat_endpoint(total: usize) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut request = vec![0u8; 64 * 1024];
                let _ = socket.read(&mut request).await;
                let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n";
                if socket.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                let chunk = vec![b'a'; 64 * 1024];
                let mut sent = 0;
                while sent < total {
                    let framed = [
                        format!("{:x}\r\n", chunk.len()).into_bytes(),
                        chunk.clone(),
                        b"\r\n".to_vec(),
                    ]
                    .concat();
                    if socket.write_all(&framed).await.is_err() {
                        return;
                    }
                    sent += chunk.len();
                }
                let _ = socket.write_all(b"0\r\n\r\n").await;
            });
        }
    });
    format!("http://{address}/v1/chat/completions")
}

/// `/chat` reads the upstream's reply up to a cap: a 64 MB reply is refused once the cap
/// is passed (502, saying so), not read whole into memory.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_reads_the_upstream_reply_up_to_a_cap() {
    let url = endless_chat_endpoint(64 * 1024 * 1024).await;
    let config = format!("{LIMITED}[serve.chat]\nurl = \"{url}\"\nmodel = \"m\"\n");
    let server = Server::start(&config, &[]);
    let (code, body) = post(
        &client(),
        server.url("/chat?project=alpha"),
        json!({"messages": [{"role": "user", "content": "hi"}]}),
    )
    .await;
    assert_eq!((code, error_code(&body)), (502, "server_error"), "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("over 4194304 bytes, the most mbank reads"),
        "{message}"
    );
}

//! `mbank serve` against what a web page, a slow client or a key guesser can send: the real
//! binary on 127.0.0.1 (an ephemeral port), raw HTTP where headers must be exact, the
//! MCP SDK's client for `/mcp`, and fake chat endpoints on 127.0.0.1 for `/chat`.
//! Everything stays on loopback and is bounded in count and time.
use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::Sandbox;
use rmcp::ServiceExt;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};

/// A running `mbank serve`, killed on drop.
struct Server {
    child: Child,
    address: SocketAddr,
    _sandbox: Sandbox,
    root: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// A server over a root holding the project `alpha`, with `config` as config.toml.
    fn start(config: &str) -> Server {
        let sandbox = Sandbox::new();
        let root = sandbox.home().join("banks");
        sandbox
            .run(&[
                "init",
                root.join("alpha").to_str().unwrap(),
                "--brief",
                "The alpha todo API",
            ])
            .expect_code(0);
        let config_path = sandbox.home().join("serve.toml");
        std::fs::write(&config_path, config).unwrap();
        let mut command = sandbox.mbank();
        command
            .args([
                "--root",
                root.to_str().unwrap(),
                "--config",
                config_path.to_str().unwrap(),
            ])
            .args(["serve", "--listen", "127.0.0.1:0"])
            .env("MBANK_DATA_DIR", sandbox.home().join("data-mbank"))
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = command.spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (first, rest) = common::within(
            Duration::from_secs(30),
            "the server start-up line",
            move || {
                let mut lines = BufReader::new(stdout).lines();
                let first = lines.next().unwrap().unwrap();
                (first, lines)
            },
        );
        // Keep reading the request log so the server never blocks on a full pipe.
        std::thread::spawn(move || for _ in rest.map_while(Result::ok) {});
        let address = first
            .split("listening on http://")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .unwrap_or_else(|| panic!("no address in {first:?}"))
            .parse()
            .unwrap();
        Server {
            child,
            address,
            _sandbox: sandbox,
            root,
        }
    }

    fn port(&self) -> u16 {
        self.address.port()
    }

    fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port())
    }

    fn bank(&self) -> PathBuf {
        self.root.join("alpha").join("memory-bank")
    }
}

/// One raw HTTP/1.1 exchange.
struct Answer {
    status: u16,
    /// Header lines, names lowercased.
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }

    fn error_code(&self) -> String {
        let body = self.json();
        assert_eq!(body["status"], "error", "{body}");
        body["error"]["code"].as_str().unwrap().to_string()
    }

    fn no_cors(&self) {
        for (name, _) in &self.headers {
            assert!(
                !name.starts_with("access-control-"),
                "CORS granted: {:?}",
                self.headers
            );
        }
    }
}

/// Sends `method path` with exactly `headers` (plus Content-Length and Connection:
/// close) and reads the whole answer (status 0 when the server closed without one).
fn raw(
    address: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Answer {
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut request = format!("{method} {path} HTTP/1.1\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str(&format!(
        "content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    ));
    // A connection over the cap may be reset while this writes or reads: what arrived
    // counts, and nothing at all is status 0.
    let _ = stream.write_all(request.as_bytes());
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let text = String::from_utf8_lossy(&answer).into_owned();
    if text.is_empty() {
        return Answer {
            status: 0,
            headers: Vec::new(),
            body: String::new(),
        };
    }
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {text:?}"));
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    Answer {
        status,
        headers,
        body: body.to_string(),
    }
}

const WRITE_BODY: &str = r#"{"filename": "planted.md", "content": "planted by a web page\n"}"#;

#[test]
fn a_cross_site_simple_post_writes_nothing() {
    let server = Server::start("");
    let host = server.host();
    let decision_log = std::fs::read_to_string(server.bank().join("decisionLog.md")).unwrap();
    let progress = std::fs::read_to_string(server.bank().join("progress.md")).unwrap();
    // What a page on another site can send without a preflight: text/plain or a form,
    // with its own Origin.
    for (path, content_type, body) in [
        ("/memory-bank/file?project=alpha", "text/plain", WRITE_BODY),
        (
            "/memory-bank/file?project=alpha",
            "text/plain;charset=UTF-8",
            WRITE_BODY,
        ),
        (
            "/memory-bank/logDecision?project=alpha",
            "application/x-www-form-urlencoded",
            "title=Planted&context=c&decision=d",
        ),
        (
            "/memory-bank/trackProgress?project=alpha",
            "application/x-www-form-urlencoded",
            "action=Planted&description=d",
        ),
        (
            "/chat?project=alpha",
            "multipart/form-data; boundary=x",
            "--x--",
        ),
    ] {
        let answer = raw(
            server.address,
            "POST",
            path,
            &[
                ("host", &host),
                ("origin", "http://evil.example"),
                ("content-type", content_type),
            ],
            body,
        );
        assert_eq!(answer.status, 403, "{path} {content_type}: {}", answer.body);
        assert_eq!(answer.error_code(), "forbidden_origin");
        assert!(
            answer.json()["error"]["message"]
                .as_str()
                .unwrap()
                .contains("http://evil.example")
        );
        answer.no_cors();
        // Without an Origin (an older browser, a form), the content type alone refuses it.
        let answer = raw(
            server.address,
            "POST",
            path,
            &[("host", &host), ("content-type", content_type)],
            body,
        );
        assert_eq!(answer.status, 415, "{path} {content_type}: {}", answer.body);
        assert_eq!(answer.error_code(), "unsupported_media_type");
    }
    assert!(!server.bank().join("planted.md").exists());
    assert_eq!(
        std::fs::read_to_string(server.bank().join("decisionLog.md")).unwrap(),
        decision_log
    );
    assert_eq!(
        std::fs::read_to_string(server.bank().join("progress.md")).unwrap(),
        progress
    );
}

#[test]
fn a_foreign_host_is_refused_on_rest_and_mcp() {
    let server = Server::start("");
    let rebinding = format!("attacker.example:{}", server.port());
    let answer = raw(
        server.address,
        "GET",
        "/memory-bank/file/projectBrief.md?project=alpha",
        &[("host", &rebinding)],
        "",
    );
    assert_eq!(answer.status, 403, "{}", answer.body);
    assert_eq!(answer.error_code(), "forbidden_host");
    assert!(
        !answer.body.contains("The alpha todo API"),
        "{}",
        answer.body
    );
    for host in [
        "attacker.example",
        "localhost:1",
        "[::1]:80",
        &format!("127.0.0.1:{}", server.port() + 1),
    ] {
        let answer = raw(server.address, "GET", "/status", &[("host", host)], "");
        assert_eq!(
            (answer.status, answer.error_code().as_str()),
            (403, "forbidden_host"),
            "{host}"
        );
    }
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}).to_string();
    let answer = raw(
        server.address,
        "POST",
        "/mcp",
        &[
            ("host", &rebinding),
            ("content-type", "application/json"),
            ("accept", "application/json, text/event-stream"),
        ],
        &initialize,
    );
    assert_eq!(answer.status, 403, "{}", answer.body);
    assert_eq!(answer.error_code(), "forbidden_host");
    let answer = raw(
        server.address,
        "POST",
        "/mcp",
        &[
            ("host", &server.host()),
            ("origin", "http://evil.example"),
            ("content-type", "application/json"),
            ("accept", "application/json, text/event-stream"),
        ],
        &initialize,
    );
    assert_eq!(
        (answer.status, answer.error_code().as_str()),
        (403, "forbidden_origin")
    );
}

#[test]
fn a_cross_site_fetch_is_refused_even_without_origin() {
    let server = Server::start("");
    let answer = raw(
        server.address,
        "GET",
        "/memory-bank/files?project=alpha",
        &[("host", &server.host()), ("sec-fetch-site", "cross-site")],
        "",
    );
    assert_eq!(
        (answer.status, answer.error_code().as_str()),
        (403, "forbidden_origin")
    );
    let answer = raw(
        server.address,
        "GET",
        "/memory-bank/files?project=alpha",
        &[("host", &server.host()), ("sec-fetch-site", "same-origin")],
        "",
    );
    assert_eq!(answer.status, 200, "{}", answer.body);
}

#[test]
fn options_grants_no_cors_unless_the_origin_is_configured() {
    let server = Server::start("[serve]\nallowed_origins = [\"http://localhost:5173\"]\n");
    let own = format!("http://localhost:{}", server.port());
    let preflight = |origin: &str| {
        raw(
            server.address,
            "OPTIONS",
            "/memory-bank/file",
            &[
                ("host", &server.host()),
                ("origin", origin),
                ("access-control-request-method", "POST"),
                ("access-control-request-headers", "content-type"),
            ],
            "",
        )
    };
    let answer = preflight(&own);
    assert_eq!(answer.status, 204);
    assert!(answer.header("allow").is_some_and(|a| a.contains("POST")));
    answer.no_cors();
    let answer = preflight("http://evil.example");
    assert_eq!(answer.status, 403);
    answer.no_cors();
    let answer = preflight("http://localhost:5173");
    assert_eq!(answer.status, 204);
    assert_eq!(
        answer.header("access-control-allow-origin"),
        Some("http://localhost:5173")
    );
    // The configured origin may then call with JSON, and reads the answer.
    let answer = raw(
        server.address,
        "POST",
        "/memory-bank/file?project=alpha",
        &[
            ("host", &server.host()),
            ("origin", "http://localhost:5173"),
            ("sec-fetch-site", "cross-site"),
            ("content-type", "application/json"),
        ],
        WRITE_BODY,
    );
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(
        answer.header("access-control-allow-origin"),
        Some("http://localhost:5173")
    );
}

#[test]
fn same_origin_and_originless_json_requests_still_work() {
    let server = Server::start("");
    let port = server.port();
    let cases = [
        (format!("127.0.0.1:{port}"), None),
        (format!("localhost:{port}"), None),
        (
            format!("localhost:{port}"),
            Some(format!("http://localhost:{port}")),
        ),
        (
            format!("127.0.0.1:{port}"),
            Some(format!("http://127.0.0.1:{port}")),
        ),
    ];
    for (i, (host, origin)) in cases.iter().enumerate() {
        let mut headers = vec![
            ("host", host.as_str()),
            ("content-type", "application/json; charset=utf-8"),
        ];
        if let Some(origin) = origin {
            headers.push(("origin", origin));
            headers.push(("sec-fetch-site", "same-origin"));
        }
        let body = json!({"filename": format!("note{i}.md"), "content": "# Note\n"}).to_string();
        let answer = raw(
            server.address,
            "POST",
            "/memory-bank/file?project=alpha",
            &headers,
            &body,
        );
        assert_eq!(answer.status, 200, "{host} {origin:?}: {}", answer.body);
        answer.no_cors();
        assert!(server.bank().join(format!("note{i}.md")).exists());
        let read = raw(
            server.address,
            "GET",
            &format!("/memory-bank/file/note{i}.md?project=alpha"),
            &[("host", host)],
            "",
        );
        assert_eq!(read.json()["content"], "# Note\n");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sdk_client_and_inspector_headers_reach_mcp() {
    let server = Server::start("");
    let _ = rustls::crypto::ring::default_provider().install_default();
    // What the MCP Inspector and the Python SDK send: Host localhost:PORT, and an Origin
    // of the server itself.
    let url = format!("http://localhost:{}/mcp", server.port());
    let mut config = StreamableHttpClientTransportConfig::with_uri(url);
    config.custom_headers.insert(
        reqwest::header::ORIGIN,
        reqwest::header::HeaderValue::from_str(&format!("http://localhost:{}", server.port()))
            .unwrap(),
    );
    let transport = StreamableHttpClientTransport::from_config(config);
    let client = tokio::time::timeout(Duration::from_secs(30), ().serve(transport))
        .await
        .unwrap()
        .unwrap();
    let tools = client.list_all_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "memory_bank_read"));
    client.cancel().await.unwrap();
    // The same over 127.0.0.1, as the SDK's client sends it.
    let transport =
        StreamableHttpClientTransport::from_uri(format!("http://{}/mcp", server.host()));
    let client = tokio::time::timeout(Duration::from_secs(30), ().serve(transport))
        .await
        .unwrap()
        .unwrap();
    assert!(!client.list_all_tools().await.unwrap().is_empty());
    client.cancel().await.unwrap();
}

#[test]
fn a_half_sent_header_is_closed_after_the_header_timeout() {
    let server = Server::start("[serve]\nheader_timeout_secs = 1\n");
    let mut stream = TcpStream::connect(server.address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream
        .write_all(
            format!(
                "GET /status HTTP/1.1\r\nhost: {}\r\nx-slow: ",
                server.host()
            )
            .as_bytes(),
        )
        .unwrap();
    let started = Instant::now();
    let mut buffer = [0u8; 1024];
    // Closed (maybe after an error answer): a read returns 0 or fails with a reset.
    loop {
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(_) => continue,
        }
    }
    let waited = started.elapsed();
    assert!(
        waited < Duration::from_secs(5),
        "the half header was held {waited:?}"
    );
}

#[test]
fn two_hundred_idle_connections_do_not_starve_a_request() {
    // Twice the cap in idle sockets: the excess is closed at once, the rest after the
    // header timeout, and a real request then gets through.
    let server = Server::start("[serve]\nmax_connections = 100\nheader_timeout_secs = 1\n");
    let idle: Vec<TcpStream> = (0..200)
        .map(|_| TcpStream::connect(server.address).unwrap())
        .collect();
    let started = Instant::now();
    loop {
        let answer = raw(
            server.address,
            "GET",
            "/status",
            &[("host", &server.host())],
            "",
        );
        if answer.status == 200 {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "idle connections still starve the server: {}",
            answer.status
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    drop(idle);
}

#[test]
fn connections_over_the_cap_are_closed_at_once() {
    let server = Server::start("[serve]\nmax_connections = 8\nheader_timeout_secs = 30\n");
    let held: Vec<TcpStream> = (0..8)
        .map(|_| TcpStream::connect(server.address).unwrap())
        .collect();
    // Until the server has taken all eight in, a ninth may still be served; once it has,
    // every further one is closed at once, never held.
    let text = common::poll_until(
        Duration::from_secs(10),
        "the ninth connection refused",
        || {
            let started = Instant::now();
            let mut extra = TcpStream::connect(server.address).unwrap();
            extra
                .set_read_timeout(Some(Duration::from_secs(10)))
                .unwrap();
            let _ = extra.write_all(
                format!(
                    "GET /status HTTP/1.1\r\nhost: {}\r\nconnection: close\r\n\r\n",
                    server.host()
                )
                .as_bytes(),
            );
            let mut answer = Vec::new();
            let _ = extra.read_to_end(&mut answer);
            assert!(
                started.elapsed() < Duration::from_secs(3),
                "the ninth connection was held {:?}",
                started.elapsed()
            );
            let text = String::from_utf8_lossy(&answer).into_owned();
            (!text.starts_with("HTTP/1.1 200")).then_some(text)
        },
    );
    assert!(
        text.is_empty() || text.starts_with("HTTP/1.1 503"),
        "{text}"
    );
    // Once the held ones go, the server answers again.
    drop(held);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let answer = raw(
            server.address,
            "GET",
            "/status",
            &[("host", &server.host())],
            "",
        );
        if answer.status == 200 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "still refused: {}",
            answer.status
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

const KEY: &str = "a-long-enough-test-key";

#[test]
fn failed_authentication_is_locked_out_with_retry_after() {
    let server = Server::start(&format!(
        "[serve]\napi_keys = [\"{KEY}\"]\nrequire_key = true\n"
    ));
    let request = |key: &str| {
        let bearer = format!("Bearer {key}");
        raw(
            server.address,
            "GET",
            "/memory-bank/files?project=alpha",
            &[("host", &server.host()), ("authorization", &bearer)],
            "",
        )
    };
    assert_eq!(request(KEY).status, 200);
    for guess in 0..10 {
        let answer = request(&format!("guess-number-{guess:04}-xxxxx"));
        assert_eq!(answer.status, 401, "guess {guess}");
    }
    let answer = request("guess-number-0010-xxxxx");
    assert_eq!(answer.status, 429, "{}", answer.body);
    assert_eq!(answer.error_code(), "rate_limited");
    let wait: u64 = answer.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=60).contains(&wait), "{wait}");
    // Locked out means the right key too, or guessing would go on.
    assert_eq!(request(KEY).status, 429);
}

#[test]
fn a_key_shorter_than_sixteen_characters_refuses_the_start() {
    let sandbox = Sandbox::new();
    let root = sandbox.home().join("banks");
    std::fs::create_dir_all(&root).unwrap();
    let config = sandbox.home().join("serve.toml");
    std::fs::write(&config, "[serve]\napi_keys = [\"k\"]\n").unwrap();
    let run = sandbox.run(&[
        "--root",
        root.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
        "serve",
        "--listen",
        "0.0.0.0:0",
    ]);
    run.expect_code(2);
    assert!(run.stderr.contains("at least 16"), "{}", run.stderr);
}

/// What a fake endpoint received (bodies), per request.
type Seen = Arc<Mutex<Vec<Value>>>;

/// A fake OpenAI-compatible endpoint on 127.0.0.1: records each body, and answers either
/// a chat completion or, with `redirect_to`, a 302 there.
async fn fake_endpoint(seen: Seen, redirect_to: Option<String>) -> String {
    use axum::response::IntoResponse;
    let app = axum::Router::new().route(
        "/v1/chat/completions",
        axum::routing::post(move |body: axum::Json<Value>| {
            let seen = seen.clone();
            let redirect_to = redirect_to.clone();
            async move {
                seen.lock().unwrap().push(body.0);
                match redirect_to {
                    Some(to) => (
                        axum::http::StatusCode::FOUND,
                        [(axum::http::header::LOCATION, to)],
                    )
                        .into_response(),
                    None => axum::Json(json!({"choices": [{"message": {"role": "assistant", "content": "fake answer"}}]}))
                        .into_response(),
                }
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

fn chat_config(url: &str) -> String {
    format!("[serve.chat]\nurl = \"{url}\"\nmodel = \"test-model\"\n")
}

fn chat_request(server: &Server) -> Answer {
    raw(
        server.address,
        "POST",
        "/chat?project=alpha",
        &[
            ("host", &server.host()),
            ("content-type", "application/json"),
        ],
        &json!({"messages": [{"role": "user", "content": "status?"}]}).to_string(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_sends_no_private_block_upstream() {
    let seen: Seen = Arc::new(Mutex::new(Vec::new()));
    let url = fake_endpoint(seen.clone(), None).await;
    let server = Server::start(&chat_config(&url));
    std::fs::write(
        server.bank().join("activeContext.md"),
        "# Active Context\nworking on the login form\n<private>\nthe staging password is hunter2\n</private>\nnext: tests\n",
    )
    .unwrap();
    let answer = tokio::task::block_in_place(|| chat_request(&server));
    assert_eq!(answer.status, 200, "{}", answer.body);
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 1);
    let memory = seen[0]["messages"][0]["content"].as_str().unwrap();
    assert!(
        memory.contains("working on the login form") && memory.contains("next: tests"),
        "{memory}"
    );
    assert!(!memory.contains("hunter2"), "{memory}");
    assert!(!memory.contains("<private>"), "{memory}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_does_not_follow_an_upstream_redirect() {
    let second: Seen = Arc::new(Mutex::new(Vec::new()));
    let second_url = fake_endpoint(second.clone(), None).await;
    let first: Seen = Arc::new(Mutex::new(Vec::new()));
    let first_url = fake_endpoint(first.clone(), Some(second_url)).await;
    let server = Server::start(&chat_config(&first_url));
    let answer = tokio::task::block_in_place(|| chat_request(&server));
    assert_eq!(answer.status, 502, "{}", answer.body);
    assert_eq!(answer.error_code(), "server_error");
    assert!(
        answer.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("redirect"),
        "{}",
        answer.body
    );
    assert_eq!(first.lock().unwrap().len(), 1);
    assert!(
        second.lock().unwrap().is_empty(),
        "the redirect was followed"
    );
}

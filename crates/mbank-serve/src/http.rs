//! `mbank serve`: the Memory Bank MCP spec's REST API over the same core operations as the MCP tools,
//! the MCP tools themselves over Streamable HTTP at `/mcp`, and `/chat`.
//!
//! Every response carries `X-API-Version`, and the `X-RateLimit-*` headers when a rate
//! limit applies; errors use
//! the Memory Bank MCP spec's `{"status":"error","error":{"code","message"}}`. `Authorization: Bearer KEY`
//! is required off loopback (the server refuses to start there without a key) and
//! wherever `require_key = true`; a wrong key is refused everywhere, keys are at least
//! `MIN_KEY_CHARS` long, and an address that fails to authenticate
//! `AUTH_FAILURES_PER_WINDOW` times is answered 429 for the rest of the window. The rate
//! limit ([`RateLimit`]; none on loopback unless configured) counts REST requests and MCP
//! tool calls per key, never an MCP session's own messages. REST bodies over
//! `max_body_bytes` are refused with 413; `/mcp` reads messages up to
//! `MCP_MAX_MESSAGE_BYTES`, as `mbank mcp` does on stdin. Before all that, [`browser`]
//! refuses what a web page could send (foreign Host or Origin, cross-site fetches,
//! non-JSON bodies), for every route including `/mcp`. One line per request goes to
//! stdout.
use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use axum::Router;
#[cfg(feature = "chat")]
use axum::body::Bytes;
#[cfg(feature = "chat")]
use axum::extract::rejection::BytesRejection;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};

use super::Shared;
use super::browser::{self, BrowserPolicy, Pass};
use super::chat;
use super::conn::{self, ConnLimits};
use super::jsonrpc;
use super::mcp::McpServer;
use super::ratelimit::{AuthFailures, RateLimiter, Verdict};
use mbank_core::config::{ChatConfig, ServeConfig};

mod rest;
mod session;
// What only `/chat` uses.
#[cfg(feature = "chat")]
use super::reply::ToolError;
#[cfg(feature = "chat")]
use rest::{ProjectQuery, object_body, project_of};
use rest::{error, json_response, reply};

/// The version of the Memory Bank MCP spec's API this server speaks.
pub(crate) const API_VERSION: &str = "1.0.0";

/// The shortest API key accepted: a short key is guessed in minutes.
pub(crate) const MIN_KEY_CHARS: usize = 16;

/// Failed authentications an address may make per window before it gets 429.
pub(crate) const AUTH_FAILURES_PER_WINDOW: u32 = 10;
/// The window of [`AUTH_FAILURES_PER_WINDOW`], in seconds.
pub(crate) const AUTH_FAILURE_WINDOW_SECS: u64 = 60;

/// Operations (MCP tool calls, REST requests) one caller may make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    pub per_minute: u32,
    pub per_hour: u32,
}

/// The Memory Bank MCP spec's figures: the limit off loopback when config.toml sets none.
pub(crate) const DEFAULT_RATE_LIMIT: RateLimit = RateLimit {
    per_minute: 60,
    per_hour: 1000,
};

impl RateLimit {
    /// The limit `[serve]` asks for: none on loopback unless one is set (an agent's own
    /// server should never stop it mid-session), the spec's figures elsewhere; either
    /// figure set to 0 turns it off.
    pub fn of(config: &ServeConfig, loopback: bool) -> Option<RateLimit> {
        let (minute, hour) = (config.rate_limit_per_minute, config.rate_limit_per_hour);
        if loopback && minute.is_none() && hour.is_none() {
            return None;
        }
        let limit = RateLimit {
            per_minute: minute.unwrap_or(DEFAULT_RATE_LIMIT.per_minute),
            per_hour: hour.unwrap_or(DEFAULT_RATE_LIMIT.per_hour),
        };
        (limit.per_minute > 0 && limit.per_hour > 0).then_some(limit)
    }
}

/// The largest message `/mcp` reads: the same as `mbank mcp` on stdin, so a tool call
/// behaves alike on both transports (`max_body_bytes` is the REST API's limit).
pub(crate) const MCP_MAX_MESSAGE_BYTES: usize = super::stdio::MAX_MESSAGE_BYTES;

/// How `mbank serve` was configured.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// The address to bind; once bound, the address really listened on (its port too).
    pub listen: SocketAddr,
    pub api_keys: Vec<String>,
    pub require_key: bool,
    /// `None`: no rate limit (the default on loopback).
    pub rate_limit: Option<RateLimit>,
    pub max_body_bytes: usize,
    pub chat: Option<ChatConfig>,
    pub allowed_hosts: Vec<String>,
    pub allowed_origins: Vec<String>,
    pub limits: ConnLimits,
}

impl HttpOptions {
    /// Reads `[serve]` plus `MBANK_API_KEY`, and applies the key rule: off loopback a key
    /// is required, and the server does not start without one.
    pub fn new(
        listen: SocketAddr,
        config: &ServeConfig,
        env_key: Option<String>,
    ) -> Result<HttpOptions, String> {
        let mut api_keys: Vec<String> = config
            .api_keys
            .iter()
            .filter(|k| !k.trim().is_empty())
            .cloned()
            .collect();
        if let Some(key) = env_key.filter(|k| !k.trim().is_empty()) {
            api_keys.push(key);
        }
        if let Some(short) = api_keys
            .iter()
            .map(|k| k.trim().chars().count())
            .find(|n| *n < MIN_KEY_CHARS)
        {
            return Err(format!(
                "refusing to serve with an API key of {short} characters: keys must have at \
                 least {MIN_KEY_CHARS} (MBANK_API_KEY or api_keys under [serve]; e.g. the output \
                 of `openssl rand -hex 24`)"
            ));
        }
        // A malformed name is reported now rather than refusing every request later.
        BrowserPolicy::new(listen, &config.allowed_hosts, &config.allowed_origins)?;
        let loopback = listen.ip().is_loopback();
        let require_key = match config.require_key {
            Some(false) if !loopback => {
                return Err(format!(
                    "require_key = false is only allowed on loopback, and {listen} is not"
                ));
            }
            Some(required) => required,
            None => !loopback,
        };
        if require_key && api_keys.is_empty() {
            return Err(format!(
                "refusing to serve on {listen} without an API key: set MBANK_API_KEY or \
                 api_keys = [\"…\"] under [serve] in config.toml (clients then send \
                 Authorization: Bearer KEY)"
            ));
        }
        Ok(HttpOptions {
            listen,
            api_keys,
            require_key,
            rate_limit: RateLimit::of(config, loopback),
            max_body_bytes: config.max_body_bytes.max(1024),
            chat: config.chat.clone(),
            allowed_hosts: config.allowed_hosts.clone(),
            allowed_origins: config.allowed_origins.clone(),
            limits: ConnLimits {
                max_connections: config.max_connections.max(1),
                // An HTTP MCP client may hold a stream open beside its requests: a few
                // connections each, whatever the cap.
                max_per_client: config
                    .max_connections_per_client
                    .unwrap_or((config.max_connections / 8).max(8))
                    .clamp(1, config.max_connections.max(1)),
                header_timeout: std::time::Duration::from_secs(config.header_timeout_secs.max(1)),
                idle_timeout: std::time::Duration::from_secs(config.idle_timeout_secs.max(1)),
                body_timeout: std::time::Duration::from_secs(config.body_timeout_secs.max(1)),
            },
        })
    }
}

/// What the handlers share.
struct HttpApp {
    shared: Arc<Shared>,
    options: HttpOptions,
    /// `None`: no rate limit.
    limiter: Option<RateLimiter>,
    auth_failures: AuthFailures,
    sessions: session::Sessions,
    policy: BrowserPolicy,
    #[cfg(feature = "chat")]
    client: reqwest::Client,
}

/// How a request was authenticated, for the handlers that care (`/session`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Credential {
    /// No key was needed and none was sent.
    None,
    /// `Authorization: Bearer` with the key at this index of `api_keys`.
    Key(usize),
    /// A session cookie opened with the key at this index.
    Session(usize),
}

type AppState = Arc<HttpApp>;

/// Without the `chat` feature the route stays, behind the same guards, and says why it
/// cannot answer.
#[cfg(not(feature = "chat"))]
async fn chat_handler() -> Response {
    reply(Err(chat::not_built_in()))
}

#[cfg(feature = "chat")]
async fn chat_handler(
    State(app): State<AppState>,
    query: ProjectQuery,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    use chat::updates::{self, Updates};
    let Some(config) = app.options.chat.clone() else {
        return error("server_error", chat::NOT_CONFIGURED);
    };
    let (project, map) = match (project_of(query), object_body(body)) {
        (Ok(p), Ok(m)) => (p, m),
        (Err(e), _) | (_, Err(e)) => return reply(Err(e)),
    };
    let request = Value::Object(map);
    let shared = app.shared.clone();
    let budget = config
        .context_tokens
        .unwrap_or(chat::DEFAULT_CONTEXT_TOKENS);
    let asked = request.clone();
    let prepared = tokio::task::spawn_blocking(move || {
        let dir = shared.project(project.as_deref())?;
        let plan = chat::updates::ChatPlan::of(&shared, &dir, &asked)?;
        let memory = if plan.use_memory_bank {
            chat::session_text(&dir, budget)
        } else {
            String::new()
        };
        Ok::<_, ToolError>((dir, plan, memory))
    })
    .await
    .unwrap_or_else(|e| Err(stopped(e)));
    let (dir, plan, memory) = match prepared {
        Ok(prepared) => prepared,
        Err(e) => return reply(Err(e)),
    };
    let upstream = match chat::upstream_body(&config, &request, &memory, &plan) {
        Ok(body) => body,
        Err(e) => return reply(Err(e)),
    };
    let first = match chat::ask(&app.client, &config, &upstream).await {
        Ok(message) => message,
        Err(e) => return reply(Err(e)),
    };
    let said = first["content"].as_str().unwrap_or_default().to_string();
    let calls = updates::calls_of(&first);
    if calls.is_empty() {
        return reply(Ok(updates::answer(&said, &plan, &[])));
    }
    let shared = app.shared.clone();
    let caller = super::Caller {
        via: updates::VIA.to_string(),
        client: Some(config.model.clone()),
    };
    let allowed = plan.updates.clone();
    let outcomes = tokio::task::spawn_blocking(move || {
        updates::apply(&shared, &dir, &calls, &allowed, &caller)
    })
    .await;
    let outcomes = match outcomes {
        Ok(outcomes) => outcomes,
        Err(e) => return reply(Err(stopped(e))),
    };
    if plan.updates != Updates::Allowed {
        return reply(Ok(updates::answer(&said, &plan, &outcomes)));
    }
    // The writes are done whatever the model says next: a failed follow-up still
    // reports them, with the model's first words.
    let follow_up = updates::follow_up(&upstream, &first, &outcomes);
    let answer = match chat::ask(&app.client, &config, &follow_up).await {
        Ok(second) => {
            let text = second["content"].as_str().unwrap_or(&said).to_string();
            updates::answer(&text, &plan, &outcomes)
        }
        Err(e) => {
            let mut answer = updates::answer(&said, &plan, &outcomes);
            answer["warning"] = json!(format!(
                "the memory bank updates were made, but the chat endpoint's answer to their \
                 outcome failed: {}",
                e.message
            ));
            answer
        }
    };
    reply(Ok(answer))
}

/// A blocking task that did not finish, as the Memory Bank MCP spec's error.
#[cfg(feature = "chat")]
fn stopped(e: tokio::task::JoinError) -> ToolError {
    ToolError::memory_bank(
        "server_error",
        format!("the request stopped unexpectedly: {e}"),
    )
}

/// `POST /session`: exchanges the key of `Authorization: Bearer` for a session cookie.
async fn open_session(
    State(app): State<AppState>,
    credential: Option<axum::Extension<Credential>>,
) -> Response {
    let key = match credential.map(|c| c.0) {
        Some(Credential::Key(key)) => key,
        Some(Credential::Session(_)) => {
            return error(
                "unauthorized",
                "a session is opened with the API key (Authorization: Bearer <api key>), not \
                 with another session",
            );
        }
        _ if app.options.api_keys.is_empty() => {
            return error(
                "invalid_request",
                "this server has no API key, so there is nothing for a session to stand for: \
                 set MBANK_API_KEY or api_keys under [serve] to use sessions",
            );
        }
        _ => {
            return error(
                "unauthorized",
                "POST /session needs Authorization: Bearer <api key>",
            );
        }
    };
    let now = app.shared.options.clock.epoch_seconds();
    let token = app.sessions.open(key, now);
    let mut response = json_response(
        200,
        &json!({
            "status": "success",
            "message": format!(
                "Session opened: the {} cookie authenticates requests for {} hours",
                session::COOKIE,
                session::LIFETIME_SECS / 3600
            ),
            "expiresIn": session::LIFETIME_SECS,
        }),
    );
    if let Some(cookie) = session::set_cookie(&token) {
        response.headers_mut().insert(header::SET_COOKIE, cookie);
    }
    response
}

/// `DELETE /session`: ends the session of the request's cookie and clears it.
async fn close_session(State(app): State<AppState>, headers: axum::http::HeaderMap) -> Response {
    if let Some(token) = session::cookie_of(&headers) {
        app.sessions.close(&token);
    }
    let mut response = json_response(
        200,
        &json!({"status": "success", "message": "Session closed"}),
    );
    response
        .headers_mut()
        .insert(header::SET_COOKIE, session::cleared_cookie());
    response
}

async fn not_found(request: Request) -> Response {
    error(
        "not_found",
        format!("no endpoint {} {}", request.method(), request.uri().path()),
    )
}

/// Constant-time comparison, so a key cannot be guessed byte by byte from timings.
fn same_key(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// Auth, rate limits, the size limit, version and rate headers, and the request log.
async fn guard_requests(
    State(app): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    request: Request,
    next: Next,
) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let uri = request.uri().clone();
    let mut response = match app.policy.check(&method, request.headers()) {
        Err(refusal) => error(refusal.code, refusal.message),
        Ok(Pass::Options { cors_origin }) => {
            let mut response = StatusCode::NO_CONTENT.into_response();
            browser::options_headers(response.headers_mut(), cors_origin);
            response
        }
        Ok(Pass::Serve { cors_origin }) => {
            let mut response = authorized(&app, peer, request, next).await;
            if let Some(origin) = cors_origin {
                browser::cors_headers(response.headers_mut(), origin);
            }
            response
        }
    };
    if response.status() == StatusCode::METHOD_NOT_ALLOWED
        && !response.headers().contains_key(header::CONTENT_TYPE)
    {
        response = method_not_allowed(response, &method, uri.path());
    }
    response
        .headers_mut()
        .insert("x-api-version", HeaderValue::from_static(API_VERSION));
    // A closed stdout must not stop the server (println! would panic); what a client
    // sent reaches the terminal only through the sanitiser.
    let _ = writeln!(
        std::io::stdout().lock(),
        "{} {peer} {method} {} {} {:.1}ms",
        app.shared
            .options
            .clock
            .utc()
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        mbank_core::markup::sanitize::line(&uri.to_string()),
        response.status().as_u16(),
        started.elapsed().as_secs_f64() * 1000.0
    );
    response
}

/// The router's bare 405 as the spec's JSON error, keeping its headers (`Allow`).
fn method_not_allowed(bare: Response, method: &axum::http::Method, path: &str) -> Response {
    let (parts, _) = bare.into_parts();
    let allowed = parts
        .headers
        .get(header::ALLOW)
        .and_then(|v| v.to_str().ok())
        .filter(|v| !v.is_empty())
        .map(|v| format!("; it takes {v}"))
        .unwrap_or_default();
    let mut response = error(
        "method_not_allowed",
        format!(
            "{path} does not take {method}{allowed}",
            path = mbank_core::markup::sanitize::line(path)
        ),
    );
    let status = response.status();
    let headers = std::mem::take(response.headers_mut());
    let (mut out, body) = response.into_parts();
    out.headers = parts.headers;
    out.headers.extend(headers);
    out.status = status;
    Response::from_parts(out, body)
}

/// Auth (with failed attempts limited per address), rate limits and the size limit.
async fn authorized(app: &HttpApp, peer: SocketAddr, mut request: Request, next: Next) -> Response {
    let bearer = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        })
        .map(|k| k.trim().to_string());
    // A cookie counts only on a server with keys, and only without a key sent.
    let cookie = match (&bearer, app.options.api_keys.is_empty()) {
        (None, false) => session::cookie_of(request.headers()),
        _ => None,
    };
    let now = app.shared.options.clock.epoch_seconds();
    if (bearer.is_some() || cookie.is_some() || app.options.require_key)
        && let Some(wait) = app.auth_failures.locked_out(peer.ip(), now)
    {
        let mut response = error(
            "rate_limited",
            format!(
                "over {AUTH_FAILURES_PER_WINDOW} failed authentications from this address; \
                 retry in {wait} s"
            ),
        );
        if let Ok(v) = HeaderValue::from_str(&wait.to_string()) {
            response.headers_mut().insert(header::RETRY_AFTER, v);
        }
        return response;
    }
    let by_key = bearer
        .as_deref()
        .map(|given| app.options.api_keys.iter().position(|k| same_key(k, given)));
    let by_session = cookie
        .as_deref()
        .map(|token| app.sessions.key_of(token, now));
    let credential = match (by_key, by_session) {
        (Some(Some(key)), _) => Some(Credential::Key(key)),
        (_, Some(Some(key))) => Some(Credential::Session(key)),
        // A wrong key is refused everywhere; a cookie the server does not hold (expired,
        // or from before a restart) only where a key is needed.
        (Some(None), _) => None,
        (None, _) if app.options.require_key => None,
        (None, _) => Some(Credential::None),
    };
    let Some(credential) = credential else {
        app.auth_failures.failed(peer.ip(), now);
        let message = if bearer.is_some() {
            "the API key is not valid"
        } else if cookie.is_some() {
            "the session has ended or is not valid: open a new one with POST /session and \
             Authorization: Bearer <api key>"
        } else {
            "this server needs Authorization: Bearer <api key>"
        };
        let mut response = error("unauthorized", message);
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        return response;
    };
    request.extensions_mut().insert(credential);
    // A session counts against its key's limit.
    let caller = match credential {
        Credential::Key(key) | Credential::Session(key) => match app.options.api_keys.get(key) {
            Some(key) => format!("key:{key}"),
            None => format!("ip:{}", peer.ip()),
        },
        Credential::None => format!("ip:{}", peer.ip()),
    };
    let path = request.uri().path();
    if path == "/mcp" || path.starts_with("/mcp/") {
        return mcp_request(app, &caller, now, request, next).await;
    }
    let verdict = app.limiter.as_ref().map(|l| l.check(&caller, now));
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    let mut response = match verdict {
        Some(verdict) if !verdict.allowed => {
            let mut response = error("rate_limited", over_the_limit(app, &verdict, "requests"));
            retry_after(&mut response, verdict.retry_after);
            response
        }
        _ if declared.is_some_and(|n| n > app.options.max_body_bytes) => error(
            "payload_too_large",
            format!(
                "the body is over {} bytes (max_body_bytes under [serve])",
                app.options.max_body_bytes
            ),
        ),
        _ => next.run(request).await,
    };
    rate_headers(&mut response, verdict);
    response
}

fn over_the_limit(app: &HttpApp, verdict: &Verdict, what: &str) -> String {
    let limit = app.options.rate_limit.unwrap_or(DEFAULT_RATE_LIMIT);
    format!(
        "rate limited: over {} {what} per minute or {} per hour for this caller; retry in {} s \
         (rate_limit_per_minute / rate_limit_per_hour under [serve])",
        limit.per_minute, limit.per_hour, verdict.retry_after
    )
}

fn retry_after(response: &mut Response, seconds: u64) {
    if let Ok(v) = HeaderValue::from_str(&seconds.to_string()) {
        response.headers_mut().insert(header::RETRY_AFTER, v);
    }
}

/// The `X-RateLimit-*` headers, when there is a limit to report.
fn rate_headers(response: &mut Response, verdict: Option<Verdict>) {
    let Some(verdict) = verdict else {
        return;
    };
    let headers = response.headers_mut();
    for (name, value) in [
        ("x-ratelimit-limit", verdict.limit.to_string()),
        ("x-ratelimit-remaining", verdict.remaining.to_string()),
        ("x-ratelimit-reset", verdict.reset.to_string()),
    ] {
        if let Ok(value) = HeaderValue::from_str(&value) {
            headers.insert(name, value);
        }
    }
}

/// A JSON-RPC answer to an `/mcp` request that mbank gives itself.
fn jsonrpc_response(status: StatusCode, value: &Value) -> Response {
    json_response(status.as_u16(), value)
}

/// `/mcp`: only tool calls count against the rate limit (an MCP session's handshake,
/// listings, notifications and streams are not operations), and one over it is answered
/// with a JSON-RPC error the client reads ([`jsonrpc::RATE_LIMITED`], the wait in
/// `data.retryAfter`); a tool call whose arguments are not an object gets -32602, a body
/// that is not JSON -32700, and one over [`MCP_MAX_MESSAGE_BYTES`] -32600, as on stdio.
async fn mcp_request(
    app: &HttpApp,
    caller: &str,
    now: u64,
    request: Request,
    next: Next,
) -> Response {
    let figures = |n: u32| app.limiter.as_ref().map(|l| l.check_n(caller, now, n));
    if request.method() != axum::http::Method::POST {
        let mut response = next.run(request).await;
        rate_headers(&mut response, figures(0));
        return response;
    }
    let too_large = || {
        jsonrpc_response(
            StatusCode::PAYLOAD_TOO_LARGE,
            &jsonrpc::error(
                Value::Null,
                jsonrpc::INVALID_REQUEST,
                format!(
                    "Invalid request: the message is over {MCP_MAX_MESSAGE_BYTES} bytes, the \
                     most mbank reads from an MCP client (on stdio too)"
                ),
                None,
            ),
        )
    };
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > MCP_MAX_MESSAGE_BYTES) {
        return too_large();
    }
    let (parts, body) = request.into_parts();
    let bytes = match axum::body::to_bytes(body, MCP_MAX_MESSAGE_BYTES).await {
        Ok(bytes) => bytes,
        Err(e) => {
            return match conn::BodyNotInTime::cause_of(&e) {
                Some(cut_off) => jsonrpc_response(
                    StatusCode::REQUEST_TIMEOUT,
                    &jsonrpc::error(
                        Value::Null,
                        jsonrpc::INVALID_REQUEST,
                        format!(
                            "Invalid request: {cut_off} (body_timeout_secs and \
                             idle_timeout_secs under [serve])"
                        ),
                        None,
                    ),
                ),
                None => too_large(),
            };
        }
    };
    let message = match serde_json::from_slice::<Value>(&bytes) {
        Ok(message) => message,
        Err(e) => {
            return jsonrpc_response(
                StatusCode::BAD_REQUEST,
                &jsonrpc::error(
                    Value::Null,
                    jsonrpc::PARSE_ERROR,
                    format!("Parse error: the body is not JSON ({e})"),
                    None,
                ),
            );
        }
    };
    if let Some(reply) = jsonrpc::invalid_tool_call(&message) {
        return jsonrpc_response(StatusCode::OK, &reply);
    }
    let calls = jsonrpc::tool_call_ids(&message);
    let verdict = figures(u32::try_from(calls.len()).unwrap_or(u32::MAX));
    if let Some(verdict) = verdict
        && !verdict.allowed
    {
        let limit = app.options.rate_limit.unwrap_or(DEFAULT_RATE_LIMIT);
        let refusals: Vec<Value> = calls
            .into_iter()
            .map(|id| {
                jsonrpc::error(
                    id,
                    jsonrpc::RATE_LIMITED,
                    over_the_limit(app, &verdict, "tool calls"),
                    Some(json!({
                        "code": "rate_limited",
                        "retryAfter": verdict.retry_after,
                        "limitPerMinute": limit.per_minute,
                        "limitPerHour": limit.per_hour,
                        "reset": verdict.reset,
                    })),
                )
            })
            .collect();
        let body = match (message.is_array(), refusals.len()) {
            (false, 1) => refusals.into_iter().next().unwrap_or(Value::Null),
            _ => Value::Array(refusals),
        };
        let mut response = jsonrpc_response(StatusCode::OK, &body);
        retry_after(&mut response, verdict.retry_after);
        rate_headers(&mut response, Some(verdict));
        return response;
    }
    let mut response = next
        .run(Request::from_parts(parts, axum::body::Body::from(bytes)))
        .await;
    rate_headers(&mut response, verdict);
    response
}

/// The whole application: REST API, `/mcp`, `/chat`, behind `guard_requests`.
/// `options.listen` must be the bound address: its port is part of every allowed Host.
pub fn router(shared: Arc<Shared>, options: HttpOptions) -> Result<Router, String> {
    let mcp_shared = shared.clone();
    let policy = BrowserPolicy::new(
        options.listen,
        &options.allowed_hosts,
        &options.allowed_origins,
    )?;
    // Host and Origin are checked for every route, /mcp included, by guard_requests
    // (with the listening port, which rmcp's own check does not know).
    let mcp_config = StreamableHttpServerConfig::default()
        .with_max_request_body_bytes(MCP_MAX_MESSAGE_BYTES)
        .disable_allowed_hosts();
    let mcp = StreamableHttpService::new(
        move || Ok(McpServer::new(mcp_shared.clone())),
        LocalSessionManager::default().into(),
        mcp_config,
    );
    let app = Arc::new(HttpApp {
        shared,
        limiter: options
            .rate_limit
            .map(|l| RateLimiter::new(l.per_minute, l.per_hour)),
        auth_failures: AuthFailures::new(AUTH_FAILURES_PER_WINDOW, AUTH_FAILURE_WINDOW_SECS),
        sessions: session::Sessions::default(),
        policy,
        #[cfg(feature = "chat")]
        client: chat::client()?,
        options,
    });
    let router = Router::new()
        .route("/status", get(rest::status))
        .route("/memory-bank/file", post(rest::write_file))
        .route(
            "/memory-bank/file/{*filename}",
            get(rest::read_file).delete(rest::delete_file),
        )
        .route("/memory-bank/files", get(rest::list_files))
        .route("/memory-bank/modes", get(rest::list_modes))
        .route("/memory-bank/context", get(rest::context))
        .route("/memory-bank/search", get(rest::search))
        .route("/memory-bank/trackProgress", post(rest::track_progress))
        .route("/memory-bank/logDecision", post(rest::log_decision))
        .route("/memory-bank/saveMemory", post(rest::save_memory))
        .route(
            "/memory-bank/updateActiveContext",
            post(rest::update_active_context),
        )
        .route("/chat", post(chat_handler))
        .route("/session", post(open_session).delete(close_session))
        .merge(
            Router::new()
                .nest_service("/mcp", mcp)
                .layer(middleware::from_fn(session_closed_status)),
        )
        .fallback(not_found)
        .layer(axum::extract::DefaultBodyLimit::max(
            app.options.max_body_bytes,
        ))
        .layer(middleware::from_fn_with_state(app.clone(), guard_requests))
        .with_state(app);
    Ok(router)
}

/// A closed MCP session is answered 204 No Content: the SDK answers DELETE with 202, and
/// clients (the Python SDK among them) expect 200 or 204 and log a failure otherwise.
async fn session_closed_status(request: Request, next: Next) -> Response {
    let closing = request.method() == axum::http::Method::DELETE;
    let response = next.run(request).await;
    if closing && response.status() == StatusCode::ACCEPTED {
        let (mut parts, _) = response.into_parts();
        parts.status = StatusCode::NO_CONTENT;
        return Response::from_parts(parts, axum::body::Body::empty());
    }
    response
}

/// `mbank serve`: binds, says where, and serves until Ctrl-C. The runtime lives only for
/// this call.
pub fn run(shared: Arc<Shared>, mut options: HttpOptions) -> std::io::Result<()> {
    // reqwest is built without a default TLS provider; ring is the one compiled in.
    #[cfg(feature = "chat")]
    let _ = rustls::crypto::ring::default_provider().install_default();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(options.listen).await?;
        let address = listener.local_addr()?;
        options.listen = address;
        let limits = options.limits;
        let root = mbank_core::markup::sanitize::path(&shared.root.path);
        let key = if options.require_key { "required" } else { "not required (loopback)" };
        let limit = match options.rate_limit {
            Some(l) => format!("{} tool calls or requests a minute, {} an hour, per key", l.per_minute, l.per_hour),
            None => "none".to_string(),
        };
        let app = router(shared, options).map_err(std::io::Error::other)?;
        let _ = writeln!(
            std::io::stdout().lock(),
            "mbank serve: listening on http://{address} (REST API; MCP at http://{address}/mcp); root {root}; API key {key}; rate limit {limit}",
        );
        conn::serve(listener, app, limits, async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr(s: &str) -> SocketAddr {
        s.parse().unwrap()
    }

    const KEY: &str = "a-key-of-24-characters!!";

    #[test]
    fn keys_are_required_off_loopback() {
        let config = ServeConfig::default();
        let local = HttpOptions::new(addr("127.0.0.1:3000"), &config, None).unwrap();
        assert!(!local.require_key);
        let err = HttpOptions::new(addr("0.0.0.0:3000"), &config, None).unwrap_err();
        assert!(err.contains("without an API key"), "{err}");
        let err =
            HttpOptions::new(addr("192.168.1.5:3000"), &config, Some(" ".into())).unwrap_err();
        assert!(err.contains("MBANK_API_KEY"), "{err}");
        let public = HttpOptions::new(addr("0.0.0.0:3000"), &config, Some(KEY.into())).unwrap();
        assert!(public.require_key);
        assert_eq!(public.api_keys, [KEY]);
        let forced_off = ServeConfig {
            require_key: Some(false),
            api_keys: vec![KEY.into()],
            ..ServeConfig::default()
        };
        assert!(HttpOptions::new(addr("0.0.0.0:3000"), &forced_off, None).is_err());
        assert!(
            !HttpOptions::new(addr("[::1]:3000"), &forced_off, None)
                .unwrap()
                .require_key
        );
        let forced_on = ServeConfig {
            require_key: Some(true),
            ..ServeConfig::default()
        };
        assert!(HttpOptions::new(addr("127.0.0.1:3000"), &forced_on, None).is_err());
        assert!(
            HttpOptions::new(addr("127.0.0.1:3000"), &forced_on, Some(KEY.into()))
                .unwrap()
                .require_key
        );
    }

    #[test]
    fn a_key_shorter_than_sixteen_characters_refuses_the_start() {
        let err = HttpOptions::new(
            addr("0.0.0.0:3000"),
            &ServeConfig::default(),
            Some("k".into()),
        )
        .unwrap_err();
        assert!(err.contains("at least 16"), "{err}");
        let configured = ServeConfig {
            api_keys: vec!["fifteen-chars-k".into()],
            ..ServeConfig::default()
        };
        let err = HttpOptions::new(addr("127.0.0.1:3000"), &configured, None).unwrap_err();
        assert!(err.contains("15 characters"), "{err}");
        assert!(
            !err.contains("fifteen-chars-k"),
            "the key is not shown: {err}"
        );
    }

    #[test]
    fn the_rate_limit_is_off_on_loopback_unless_set_and_the_specs_elsewhere() {
        let config = ServeConfig::default();
        let local = HttpOptions::new(addr("127.0.0.1:3000"), &config, None).unwrap();
        assert_eq!(local.rate_limit, None);
        let public = HttpOptions::new(addr("0.0.0.0:3000"), &config, Some(KEY.into())).unwrap();
        assert_eq!(public.rate_limit, Some(DEFAULT_RATE_LIMIT));
        assert_eq!(
            (DEFAULT_RATE_LIMIT.per_minute, DEFAULT_RATE_LIMIT.per_hour),
            (60, 1000)
        );
        let minute_only = ServeConfig {
            rate_limit_per_minute: Some(5),
            ..ServeConfig::default()
        };
        assert_eq!(
            RateLimit::of(&minute_only, true),
            Some(RateLimit {
                per_minute: 5,
                per_hour: 1000
            })
        );
        let off = ServeConfig {
            rate_limit_per_hour: Some(0),
            ..ServeConfig::default()
        };
        assert_eq!(RateLimit::of(&off, false), None);
    }

    #[test]
    fn keys_compare_whole() {
        assert!(same_key("abc", "abc"));
        assert!(!same_key("abc", "abd") && !same_key("abc", "ab") && !same_key("", "a"));
    }
}

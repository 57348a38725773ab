//! The REST API of the Memory Bank MCP spec: a memory bank's files, modes and entries,
//! over the same core operations (and, for entries, the same handlers) as the MCP tools.
use std::collections::HashMap;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::{API_VERSION, AppState};
use crate::args::{self, ToolArgs};
use crate::conn::BodyNotInTime;
use crate::memory_bank_mcp::{self, WriteArgs};
use crate::reply::{Flavor, ToolError, ToolResult};
use crate::saved_memory;
use crate::{Caller, Shared};
use mbank_core::agent::rfc3339;
use mbank_core::agent::saved_memory::SavedScope;

pub(super) fn json_response(status: u16, value: &Value) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = (status, value.to_string()).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

pub(super) fn reply(result: ToolResult) -> Response {
    match result {
        Ok(value) => json_response(200, &value),
        Err(error) => json_response(error.status, &error.to_json()),
    }
}

pub(super) fn error(code: &'static str, message: impl Into<String>) -> Response {
    reply(Err(ToolError::memory_bank(code, message)))
}

/// Runs blocking core work off the async workers.
pub(super) async fn blocking(work: impl FnOnce() -> ToolResult + Send + 'static) -> ToolResult {
    tokio::task::spawn_blocking(work).await.unwrap_or_else(|e| {
        Err(ToolError::memory_bank(
            "server_error",
            format!("the request stopped unexpectedly: {e}"),
        ))
    })
}

pub(super) type ProjectQuery =
    Result<Query<HashMap<String, String>>, axum::extract::rejection::QueryRejection>;

pub(super) fn project_of(query: ProjectQuery) -> Result<Option<String>, ToolError> {
    match query {
        Ok(Query(map)) => Ok(map.get("project").cloned().filter(|p| !p.is_empty())),
        Err(e) => Err(ToolError::memory_bank("invalid_request", e.body_text())),
    }
}

/// A JSON object body, or the Memory Bank MCP spec's error for what is wrong with it.
pub(super) fn object_body(
    body: Result<Bytes, BytesRejection>,
) -> Result<serde_json::Map<String, Value>, ToolError> {
    let bytes = body.map_err(|e| {
        let mut error = ToolError::memory_bank("invalid_request", e.body_text());
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            error.code = "payload_too_large";
            error.status = 413;
        } else if let Some(cut_off) = BodyNotInTime::cause_of(&e) {
            error.message =
                format!("{cut_off} (body_timeout_secs and idle_timeout_secs under [serve])");
            error.status = StatusCode::REQUEST_TIMEOUT.as_u16();
        }
        error
    })?;
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(ToolError::memory_bank(
            "invalid_request",
            "the body must be a JSON object",
        )),
        Err(e) => Err(ToolError::memory_bank(
            "invalid_request",
            format!("the body is not valid JSON: {e}"),
        )),
    }
}

/// `If-Match: "VERSION"` as the expected version.
pub(super) fn if_match(headers: &HeaderMap) -> Option<String> {
    headers
        .get(header::IF_MATCH)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().trim_matches('"').to_string())
        .filter(|v| !v.is_empty() && v != "*")
}

pub(super) async fn status(State(app): State<AppState>, query: ProjectQuery) -> Response {
    let project = match project_of(query) {
        Ok(p) => p,
        Err(e) => return reply(Err(e)),
    };
    let shared = app.shared.clone();
    reply(
        blocking(move || {
            let listed = shared.root.memory_bank_projects();
            // A named project must exist (404 otherwise); without one, a root whose
            // projects have banks is initialized even when no single default stands out.
            let initialized = match project.as_deref() {
                Some(spec) => shared.bank(&shared.project(Some(spec))?).is_ok(),
                None => match shared.default_project() {
                    Ok(dir) => shared.bank(&dir).is_ok(),
                    Err(_) => !listed.is_empty(),
                },
            };
            let projects: Vec<String> = listed
                .iter()
                .map(|p| {
                    let real = std::fs::canonicalize(&p.path).unwrap_or_else(|_| p.path.clone());
                    shared.root.name_of(&real)
                })
                .collect();
            Ok(json!({
                "status": "ok",
                "version": API_VERSION,
                "memoryBankStatus": if initialized { "initialized" } else { "not_initialized" },
                "projects": projects,
                "readOnly": shared.options.read_only,
            }))
        })
        .await,
    )
}

pub(super) async fn read_file(
    State(app): State<AppState>,
    path: Result<UrlPath<String>, axum::extract::rejection::PathRejection>,
    query: ProjectQuery,
) -> Response {
    let (file, project) = match (path, project_of(query)) {
        (Ok(UrlPath(file)), Ok(project)) => (file, project),
        (Err(e), _) => return error("invalid_request", e.body_text()),
        (_, Err(e)) => return reply(Err(e)),
    };
    // The hot path: a few stats, and for a file unchanged since the last request a body
    // built then. Done in place: a hand-off to the blocking pool costs more than this.
    let file_result = app
        .shared
        .project(project.as_deref())
        .and_then(|dir| app.shared.bank(&dir))
        .and_then(|bank| app.shared.read(&bank, &file));
    let cached = match file_result {
        Ok(cached) => cached,
        Err(e) => return reply(Err(e.into())),
    };
    let read = &cached.read;
    let body = cached.http_body.get_or_init(|| {
        json!({
            "content": read.content,
            "status": "success",
            "lastModified": rfc3339(read.modified),
            "version": read.version,
        })
        .to_string()
        .into()
    });
    let mut response = (StatusCode::OK, body.clone()).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    if let Ok(etag) = HeaderValue::from_str(&format!("\"{}\"", read.version)) {
        headers.insert(header::ETAG, etag);
    }
    response
}

pub(super) async fn write_file(
    State(app): State<AppState>,
    query: ProjectQuery,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let (project, map) = match (project_of(query), object_body(body)) {
        (Ok(p), Ok(m)) => (p, m),
        (Err(e), _) | (_, Err(e)) => return reply(Err(e)),
    };
    let shared = app.shared.clone();
    reply(
        blocking(move || {
            let args: WriteArgs = args::parse(map, Flavor::MemoryBank)?;
            let expected = args.expected_version.or_else(|| if_match(&headers));
            shared.writable()?;
            let dir = shared.project(project.as_deref())?;
            let bank = shared.bank(&dir)?;
            memory_bank_mcp::write_file(
                &shared,
                &dir,
                &bank,
                &args.filename,
                &args.content,
                expected.as_deref(),
                &Caller::anonymous("http:POST /memory-bank/file"),
            )
        })
        .await,
    )
}

pub(super) async fn delete_file(
    State(app): State<AppState>,
    path: Result<UrlPath<String>, axum::extract::rejection::PathRejection>,
    query: ProjectQuery,
    headers: HeaderMap,
) -> Response {
    let (file, project) = match (path, project_of(query)) {
        (Ok(UrlPath(file)), Ok(project)) => (file, project),
        (Err(e), _) => return error("invalid_request", e.body_text()),
        (_, Err(e)) => return reply(Err(e)),
    };
    let shared = app.shared.clone();
    reply(
        blocking(move || {
            shared.writable()?;
            let dir = shared.project(project.as_deref())?;
            let bank = shared.bank(&dir)?;
            let ctx = shared.write_context(&Caller::anonymous("http:DELETE /memory-bank/file"));
            let deleted = bank.delete(&ctx, &file, if_match(&headers).as_deref());
            match deleted {
                Ok(None) => {
                    Ok(json!({"status": "success", "message": "File deleted successfully"}))
                }
                Ok(Some(id)) => {
                    let report = mbank_core::agent::bank::WriteReport {
                        path: bank.root.join(&file),
                        name: file.clone(),
                        created: false,
                        version: String::new(),
                        proposal: Some(id),
                    };
                    Ok(crate::proposals::staged(&report, id))
                }
                Err(e) => {
                    shared.log_refusal(&ctx, &dir, &file, &e);
                    Err(e.into())
                }
            }
        })
        .await,
    )
}

pub(super) async fn list_files(State(app): State<AppState>, query: ProjectQuery) -> Response {
    let project = match project_of(query) {
        Ok(p) => p,
        Err(e) => return reply(Err(e)),
    };
    let shared = app.shared.clone();
    reply(
        blocking(move || {
            let dir = shared.project(project.as_deref())?;
            let files: Vec<String> = shared
                .bank(&dir)?
                .list()
                .into_iter()
                .map(|f| f.name)
                .collect();
            Ok(json!({"files": files, "status": "success"}))
        })
        .await,
    )
}

/// `GET /memory-bank/context?project=…&maxTokens=…[&agent=…][&includeUserFiles=true]`: the
/// `get_context` tool's answer.
pub(super) async fn context(State(app): State<AppState>, query: ProjectQuery) -> Response {
    let query = match query {
        Ok(Query(map)) => map,
        Err(e) => {
            return reply(Err(ToolError::memory_bank(
                "invalid_request",
                e.body_text(),
            )));
        }
    };
    let shared = app.shared.clone();
    reply(blocking(move || crate::context::from_query(&shared, &query)).await)
}

/// `GET /memory-bank/search?query=…[&project=…][&limit=…][&maxTokens=…]`: the
/// `search_memory` tool's answer.
pub(super) async fn search(State(app): State<AppState>, query: ProjectQuery) -> Response {
    let query = match query {
        Ok(Query(map)) => map,
        Err(e) => {
            return reply(Err(ToolError::memory_bank(
                "invalid_request",
                e.body_text(),
            )));
        }
    };
    let shared = app.shared.clone();
    reply(blocking(move || crate::search::from_query(&shared, &query)).await)
}

pub(super) async fn list_modes(State(app): State<AppState>, query: ProjectQuery) -> Response {
    let project = match project_of(query) {
        Ok(p) => p,
        Err(e) => return reply(Err(e)),
    };
    let shared = app.shared.clone();
    reply(
        blocking(move || {
            let dir = shared.project(project.as_deref())?;
            Ok(json!({"modes": crate::modes_of(&dir), "status": "success"}))
        })
        .await,
    )
}

/// The three entry endpoints share their tools' code: the project first, then the body
/// read as the tool's arguments.
async fn entry<A: ToolArgs>(
    app: AppState,
    query: ProjectQuery,
    body: Result<Bytes, BytesRejection>,
    tool: fn(&Shared, &std::path::Path, A, &Caller) -> ToolResult,
    via: &'static str,
) -> Response {
    let (project, map) = match (project_of(query), object_body(body)) {
        (Ok(p), Ok(m)) => (p, m),
        (Err(e), _) | (_, Err(e)) => return reply(Err(e)),
    };
    let shared = app.shared.clone();
    reply(
        blocking(move || {
            let dir = shared.project(project.as_deref())?;
            tool(
                &shared,
                &dir,
                args::parse(map, Flavor::MemoryBank)?,
                &Caller::anonymous(via),
            )
        })
        .await,
    )
}

pub(super) async fn track_progress(
    State(app): State<AppState>,
    query: ProjectQuery,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    entry(
        app,
        query,
        body,
        memory_bank_mcp::track_progress_in,
        "http:POST /memory-bank/trackProgress",
    )
    .await
}

pub(super) async fn log_decision(
    State(app): State<AppState>,
    query: ProjectQuery,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    entry(
        app,
        query,
        body,
        memory_bank_mcp::log_decision_in,
        "http:POST /memory-bank/logDecision",
    )
    .await
}

pub(super) async fn update_active_context(
    State(app): State<AppState>,
    query: ProjectQuery,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    entry(
        app,
        query,
        body,
        memory_bank_mcp::update_active_context_in,
        "http:POST /memory-bank/updateActiveContext",
    )
    .await
}

/// `POST /memory-bank/saveMemory` (`save_memory`): `?project=NAME` names the project of
/// scope project; scope global needs none.
pub(super) async fn save_memory(
    State(app): State<AppState>,
    query: ProjectQuery,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let (project, map) = match (project_of(query), object_body(body)) {
        (Ok(p), Ok(m)) => (p, m),
        (Err(e), _) | (_, Err(e)) => return reply(Err(e)),
    };
    let shared = app.shared.clone();
    reply(
        blocking(move || {
            let args: saved_memory::SaveMemoryArgs = args::parse(map, Flavor::MemoryBank)?;
            let scope = saved_memory::scope_of(&args.scope)?;
            let dir = match scope {
                SavedScope::Project => Some(shared.project(project.as_deref())?),
                SavedScope::Global => None,
            };
            saved_memory::save_in(
                &shared,
                scope,
                dir.as_deref(),
                &args.fact,
                &Caller::anonymous("http:POST /memory-bank/saveMemory"),
            )
        })
        .await,
    )
}

//! `mbank mcp` end to end: the real binary as a child, driven by the official MCP SDK's
//! client over its stdin/stdout. Every tool of the three surfaces, each error object,
//! the Infinity store spec's acceptance tests TC1–TC10 and read-only mode. The guard's
//! refusals: `mcp_guard`; many writers at once and kill -9: `mcp_concurrent_writers`.
use crate::common;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use common::Sandbox;
use mbank::core::analysis::decisions;
use mbank::core::guard::refusals;
use rmcp::model::{CallToolRequestParams, ReadResourceRequestParams};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

pub(crate) type Client = RunningService<RoleClient, ()>;

/// A sandboxed HOME with a root of projects.
pub(crate) struct Setup {
    pub(crate) sandbox: Sandbox,
    pub(crate) root: PathBuf,
}

impl Setup {
    pub(crate) fn new() -> Setup {
        let sandbox = Sandbox::new();
        let root = sandbox.home().join("banks");
        std::fs::create_dir_all(&root).unwrap();
        Setup { sandbox, root }
    }

    pub(crate) fn data_dir(&self) -> PathBuf {
        self.sandbox.home().join("data-mbank")
    }

    /// `mbank mcp` over the root, in `cwd`, with extra flags.
    fn command(&self, cwd: &Path, flags: &[&str]) -> tokio::process::Command {
        let mut command = self.sandbox.mbank();
        command
            .arg("--root")
            .arg(&self.root)
            .arg("mcp")
            .args(flags)
            .env("MBANK_DATA_DIR", self.data_dir())
            .current_dir(cwd);
        tokio::process::Command::from(command)
    }

    pub(crate) async fn connect_in(&self, cwd: &Path, flags: &[&str]) -> (Client, u32) {
        let (transport, _) = TokioChildProcess::builder(self.command(cwd, flags))
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let pid = transport.id().unwrap();
        let client = bounded(().serve(transport)).await.unwrap();
        (client, pid)
    }

    pub(crate) async fn connect(&self, flags: &[&str]) -> Client {
        self.connect_in(&self.root, flags).await.0
    }

    pub(crate) fn init(&self, project: &str) {
        self.sandbox
            .run(&[
                "--root",
                self.root.to_str().unwrap(),
                "init",
                self.root.join(project).to_str().unwrap(),
            ])
            .expect_code(0);
    }
}

pub(crate) async fn bounded<T>(future: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(60), future)
        .await
        .expect("the server did not answer within 60 s")
}

/// Calls a tool: (is the result an error, the JSON it carries).
pub(crate) async fn call(client: &Client, name: &str, args: Value) -> (bool, Value) {
    let args = match args {
        Value::Object(map) => map,
        _ => serde_json::Map::new(),
    };
    let params = CallToolRequestParams::new(name.to_string()).with_arguments(args);
    let result = bounded(client.call_tool(params)).await.unwrap();
    let text = result.content[0].as_text().unwrap().text.clone();
    (
        result.is_error == Some(true),
        serde_json::from_str(&text).unwrap(),
    )
}

pub(crate) async fn ok(client: &Client, name: &str, args: Value) -> Value {
    let (is_error, value) = call(client, name, args.clone()).await;
    assert!(!is_error, "{name} {args} failed: {value}");
    value
}

/// Calls a tool that must fail with the Memory Bank MCP spec's error `code`; returns the message.
pub(crate) async fn fails(client: &Client, name: &str, args: Value, code: &str) -> String {
    let (is_error, value) = call(client, name, args.clone()).await;
    assert!(is_error, "{name} {args} should fail: {value}");
    assert_eq!(value["status"], "error", "{value}");
    assert_eq!(value["error"]["code"], code, "{name} {args}: {value}");
    value["error"]["message"].as_str().unwrap().to_string()
}

/// Calls an Infinity tool that must fail with the Infinity store spec's `error` value.
pub(crate) async fn infinity_fails(client: &Client, name: &str, args: Value, code: &str) {
    let (is_error, value) = call(client, name, args.clone()).await;
    assert!(is_error, "{name} {args} should fail: {value}");
    assert_eq!(value["error"], code, "{name} {args}: {value}");
}

pub(crate) const LOG_WITH_TWO: &str = "# Decision Log\n\n\
## Decision: Use Postgres\n- **Date**: 2025-01-02\n- **Status**: Accepted\n\n\
## Decision: Cache in Redis\n- **Date**: 2025-02-03\n- **Status**: Accepted\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cline_tools_read_write_and_refuse() {
    let setup = Setup::new();
    std::fs::create_dir_all(setup.root.join("beta/memory-bank")).unwrap();
    std::fs::write(setup.root.join("beta/memory-bank/progress.md"), "").unwrap();
    std::fs::create_dir_all(setup.sandbox.home().join("outside/memory-bank")).unwrap();
    let client = setup.connect(&[]).await;

    let init = ok(
        &client,
        "initialize_memory_bank",
        json!({"projectPath": "alpha", "brief": "A todo API"}),
    )
    .await;
    assert_eq!(init["created"].as_array().unwrap().len(), 8, "{init}");
    // Existing files are kept, never overwritten.
    let again = ok(
        &client,
        "initialize_memory_bank",
        json!({"projectPath": "alpha"}),
    )
    .await;
    assert!(again["created"].as_array().unwrap().is_empty(), "{again}");

    let projects = ok(&client, "list_projects", json!({"random_string": "dummy"})).await;
    let names: Vec<&str> = projects
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["alpha", "beta"]);

    let files = ok(
        &client,
        "list_project_files",
        json!({"projectPath": "alpha"}),
    )
    .await;
    let brief = files
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "projectBrief.md")
        .unwrap();
    assert!(brief["size"].as_u64().unwrap() > 0 && brief["lastModified"].is_string());

    let valid = ok(&client, "validate_project", json!({"projectPath": "alpha"})).await;
    assert_eq!(valid["valid"], true, "{valid}");
    let beta = ok(&client, "validate_project", json!({"projectName": "beta"})).await;
    assert_eq!(beta["valid"], false);
    assert_eq!(
        beta["missingRequired"],
        json!(["projectBrief.md", "activeContext.md"])
    );
    assert_eq!(beta["missingRecommended"].as_array().unwrap().len(), 4);
    assert!(
        beta["problems"][0]
            .as_str()
            .unwrap()
            .contains("progress.md is empty")
    );

    let read = ok(
        &client,
        "memory_bank_read",
        json!({"projectPath": "alpha", "fileName": "projectBrief.md"}),
    )
    .await;
    assert!(read["content"].as_str().unwrap().contains("A todo API"));
    assert!(read["lastModified"].as_str().unwrap().ends_with('Z'));
    let version = read["version"].as_str().unwrap().to_string();
    assert_eq!(version.len(), 32);

    // memory_bank_write creates only; memory_bank_update replaces only.
    let created = ok(
        &client,
        "memory_bank_write",
        json!({"projectPath": "alpha", "fileName": "notes.md", "content": "# Notes\n"}),
    )
    .await;
    assert_eq!(created["success"], true);
    fails(
        &client,
        "memory_bank_write",
        json!({"projectPath": "alpha", "fileName": "notes.md", "content": "# Again\n"}),
        "file_exists",
    )
    .await;
    fails(
        &client,
        "memory_bank_update",
        json!({"projectPath": "alpha", "fileName": "nope.md", "content": "# x\n"}),
        "file_not_found",
    )
    .await;
    fails(
        &client,
        "memory_bank_read",
        json!({"projectPath": "alpha", "fileName": "nope.md"}),
        "file_not_found",
    )
    .await;
    fails(
        &client,
        "memory_bank_read",
        json!({"projectPath": "alpha"}),
        "invalid_request",
    )
    .await;
    fails(
        &client,
        "memory_bank_read",
        json!({"projectPath": "alpha", "fileName": 7}),
        "invalid_request",
    )
    .await;
    fails(
        &client,
        "memory_bank_read",
        json!({"projectPath": "gamma", "fileName": "x.md"}),
        "project_not_found",
    )
    .await;

    // Version conflicts: a stale expectedVersion is refused and names the current one.
    let updated = ok(&client, "memory_bank_update", json!({"projectPath": "alpha", "fileName": "projectBrief.md", "content": "# Brief\n\nv2\n", "expectedVersion": version})).await;
    let message = fails(&client, "memory_bank_update", json!({"projectPath": "alpha", "fileName": "projectBrief.md", "content": "# Brief\n\nmine\n", "expectedVersion": version}), "version_conflict").await;
    assert!(
        message.contains(updated["version"].as_str().unwrap()),
        "{message}"
    );
    let now = ok(
        &client,
        "memory_bank_read",
        json!({"projectPath": "alpha", "fileName": "projectBrief.md"}),
    )
    .await;
    assert_eq!(now["content"], "# Brief\n\nv2\n");

    // Path traversal, absolute names, other projects, other file types (the Cline memory bank spec).
    for name in [
        "../../etc/passwd",
        "/etc/passwd",
        "../../beta/memory-bank/progress.md",
        "sub/../../x.md",
    ] {
        fails(
            &client,
            "memory_bank_read",
            json!({"projectPath": "alpha", "fileName": name}),
            "forbidden_path",
        )
        .await;
        fails(
            &client,
            "memory_bank_write",
            json!({"projectPath": "alpha", "fileName": name, "content": "x"}),
            "forbidden_path",
        )
        .await;
    }
    fails(
        &client,
        "memory_bank_write",
        json!({"projectPath": "alpha", "fileName": "script.sh", "content": "rm -rf /"}),
        "invalid_format",
    )
    .await;
    for project in [
        "../outside",
        "/etc",
        setup.sandbox.home().join("outside").to_str().unwrap(),
    ] {
        fails(
            &client,
            "memory_bank_read",
            json!({"projectPath": project, "fileName": "progress.md"}),
            "forbidden_path",
        )
        .await;
    }
    #[cfg(unix)]
    {
        let secret = setup.sandbox.home().join("secret.md");
        std::fs::write(&secret, "# secret\n").unwrap();
        std::os::unix::fs::symlink(&secret, setup.root.join("alpha/memory-bank/leak.md")).unwrap();
        fails(
            &client,
            "memory_bank_read",
            json!({"projectPath": "alpha", "fileName": "leak.md"}),
            "forbidden_path",
        )
        .await;
    }
    assert!(!setup.root.join("alpha/memory-bank/script.sh").exists());

    // The decision log is append-only: the refusal names the dropped entry.
    ok(
        &client,
        "memory_bank_update",
        json!({"projectPath": "alpha", "fileName": "decisionLog.md", "content": LOG_WITH_TWO}),
    )
    .await;
    let dropped = "# Decision Log\n\n## Decision: Use Postgres\n- **Date**: 2025-01-02\n- **Status**: Accepted\n";
    let message = fails(
        &client,
        "memory_bank_update",
        json!({"projectPath": "alpha", "fileName": "decisionLog.md", "content": dropped}),
        "append_only_violation",
    )
    .await;
    assert!(
        message.contains("\"Cache in Redis\" (2025-02-03"),
        "{message}"
    );
    let retitled = LOG_WITH_TWO.replace("Use Postgres", "Use MySQL");
    let message = fails(
        &client,
        "memory_bank_update",
        json!({"projectPath": "alpha", "fileName": "decisionLog.md", "content": retitled}),
        "append_only_violation",
    )
    .await;
    assert!(message.contains("Use Postgres"), "{message}");
    let (_, value) = call(
        &client,
        "memory_bank_update",
        json!({"projectPath": "alpha", "fileName": "decisionLog.md", "content": dropped}),
    )
    .await;
    assert_eq!(
        value["error"]["details"]["lost"][0]["title"],
        "Cache in Redis"
    );

    // Secrets outside <private> are refused by line and kind, and never echoed.
    let key = "ghp_abcdefghijklmnopqrstuvwxyz0123456789AB";
    let message = fails(&client, "memory_bank_update", json!({"projectPath": "alpha", "fileName": "notes.md", "content": format!("# Notes\n\ntoken: {key}\n")}), "secret_detected").await;
    assert!(message.contains("line 3 (a GitHub token)"), "{message}");
    assert!(!message.contains(key));
    ok(&client, "memory_bank_update", json!({"projectPath": "alpha", "fileName": "notes.md", "content": format!("# Notes\n\n<private>\ntoken: {key}\n</private>\n")})).await;

    // An elision placeholder in place of most of the file is refused.
    let active = ok(
        &client,
        "memory_bank_read",
        json!({"projectPath": "alpha", "fileName": "activeContext.md"}),
    )
    .await;
    let message = fails(&client, "memory_bank_update", json!({"projectPath": "alpha", "fileName": "activeContext.md", "content": "# Active Context\n\n## Current Focus\nPayments\n\n[... rest unchanged ...]\n"}), "elision_detected").await;
    assert!(message.contains("[... rest unchanged ...]"), "{message}");
    let still = ok(
        &client,
        "memory_bank_read",
        json!({"projectPath": "alpha", "fileName": "activeContext.md"}),
    )
    .await;
    assert_eq!(still["content"], active["content"]);

    // Every refusal was logged where review and the TUI read it.
    let logged = refusals::read_in(&setup.data_dir(), &setup.root.join("alpha")).unwrap();
    let rules: Vec<&str> = logged.iter().map(|r| r.rule.as_str()).collect();
    for rule in [
        "version",
        "path",
        "format",
        "append-only",
        "secret",
        "elision",
    ] {
        assert!(rules.contains(&rule), "{rule} not in {rules:?}");
    }
    assert!(logged.iter().all(|r| !r.message.contains(key)));
    bounded(client.cancel()).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_bank_mcp_tools_entries_modes_and_resources() {
    let setup = Setup::new();
    let client = setup.connect(&[]).await;
    // No bank under the root yet: the tools say how to start.
    fails(
        &client,
        "get_memory_bank_status",
        json!({}),
        "not_initialized",
    )
    .await;
    ok(&client, "initialize_memory_bank", json!({"path": "webapp"})).await;

    let status = ok(
        &client,
        "get_memory_bank_status",
        json!({"random_string": ""}),
    )
    .await;
    assert_eq!(status["memoryBankStatus"], "initialized");
    assert_eq!(status["project"], "webapp");
    let set = ok(&client, "set_memory_bank_path", json!({"path": "webapp"})).await;
    assert_eq!(set["memoryBankStatus"], "initialized");
    fails(
        &client,
        "set_memory_bank_path",
        json!({"path": "../elsewhere"}),
        "forbidden_path",
    )
    .await;

    let files = ok(
        &client,
        "list_memory_bank_files",
        json!({"random_string": "x"}),
    )
    .await;
    assert!(
        files["files"]
            .as_array()
            .unwrap()
            .contains(&json!("activeContext.md"))
    );
    let written = ok(
        &client,
        "write_memory_bank_file",
        json!({"filename": "sessionLog.md", "content": "# Sessions\n"}),
    )
    .await;
    assert_eq!(written["status"], "success");
    let read = ok(
        &client,
        "read_memory_bank_file",
        json!({"filename": "sessionLog.md"}),
    )
    .await;
    assert_eq!(read["content"], "# Sessions\n");
    ok(&client, "write_memory_bank_file", json!({"filename": "sessionLog.md", "content": "# Sessions\n\n- one\n", "expectedVersion": read["version"]})).await;
    fails(&client, "write_memory_bank_file", json!({"filename": "sessionLog.md", "content": "# Stale\n", "expectedVersion": read["version"]}), "version_conflict").await;

    ok(&client, "track_progress", json!({"action": "Implementation", "description": "Implemented feature X", "updateActiveContext": true})).await;
    ok(
        &client,
        "update_active_context",
        json!({"tasks": ["Auth"], "issues": ["Slow CI"], "nextSteps": ["Ship"]}),
    )
    .await;
    let logged = ok(
        &client,
        "log_decision",
        json!({
            "title": "Authentication Method",
            "context": "We need an auth method",
            "decision": "Use JWT",
            "alternatives": ["Sessions", "OAuth 2.0"],
            "consequences": ["Stateless"]
        }),
    )
    .await;
    assert_eq!(logged["message"], "Decision logged successfully");
    fails(
        &client,
        "log_decision",
        json!({"title": "x", "context": "c"}),
        "invalid_request",
    )
    .await;

    // What the tools appended comes back from the timeline with its date and title.
    let bank = setup.root.join("webapp/memory-bank");
    let log = std::fs::read_to_string(bank.join("decisionLog.md")).unwrap();
    let parsed = decisions::parse_log(&bank.join("decisionLog.md"), &log);
    assert_eq!(parsed.len(), 1, "{log}");
    assert_eq!(parsed[0].title, "Authentication Method");
    assert!(parsed[0].date.is_some() && parsed[0].time.is_some());
    let progress = std::fs::read_to_string(bank.join("progress.md")).unwrap();
    let lines = decisions::parse_log(&bank.join("progress.md"), &progress);
    assert!(
        lines
            .iter()
            .any(|d| d.title == "Implementation: Implemented feature X" && d.date.is_some()),
        "{progress}"
    );
    let timeline = setup.sandbox.run(&[
        "--root",
        setup.root.to_str().unwrap(),
        "timeline",
        "webapp",
        "--json",
    ]);
    assert!(
        timeline.stdout.contains("Authentication Method"),
        "{}",
        timeline.stdout
    );

    // Resources show the files the tools wrote.
    let resources = bounded(client.list_all_resources()).await.unwrap();
    let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(
        uris,
        [
            "memory-bank://product-context",
            "memory-bank://active-context",
            "memory-bank://progress",
            "memory-bank://decision-log",
            "memory-bank://system-patterns"
        ]
    );
    for uri in &uris {
        let read = bounded(client.read_resource(ReadResourceRequestParams::new(*uri)))
            .await
            .unwrap();
        assert_eq!(read.contents.len(), 1, "{uri}");
    }
    let active = bounded(client.read_resource(ReadResourceRequestParams::new(
        "memory-bank://active-context",
    )))
    .await
    .unwrap();
    let text = serde_json::to_value(&active.contents[0]).unwrap();
    assert!(
        text["text"]
            .as_str()
            .unwrap()
            .contains("## Ongoing Tasks\n- Auth"),
        "{text}"
    );
    assert!(
        bounded(client.read_resource(ReadResourceRequestParams::new("memory-bank://nope")))
            .await
            .is_err()
    );

    // Modes: the five defaults without rule files, the project's own with them.
    let mode = ok(&client, "get_current_mode", json!({"random_string": "x"})).await;
    assert_eq!(
        mode["available"],
        json!(["architect", "code", "ask", "debug", "test"])
    );
    assert_eq!(mode["mode"], Value::Null);
    ok(&client, "switch_mode", json!({"mode": "architect"})).await;
    assert_eq!(
        ok(&client, "get_current_mode", json!({})).await["mode"],
        "architect"
    );
    fails(
        &client,
        "switch_mode",
        json!({"mode": "poet"}),
        "mode_not_found",
    )
    .await;
    std::fs::write(
        setup.root.join("webapp/.clinerules-reviewer"),
        "mode: reviewer\ninstructions:\n  general:\n    - Review\n",
    )
    .unwrap();
    let mode = ok(&client, "get_current_mode", json!({})).await;
    assert_eq!(mode["available"], json!(["reviewer"]), "{mode}");
    ok(&client, "switch_mode", json!({"mode": "reviewer"})).await;
    bounded(client.cancel()).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn infinity_acceptance_tc1_to_tc10() {
    let setup = Setup::new();
    let project_a = setup.sandbox.home().join("project-a");
    let project_b = setup.sandbox.home().join("project-b");
    std::fs::create_dir_all(&project_a).unwrap();
    std::fs::create_dir_all(&project_b).unwrap();
    // The project is the server's working folder.
    let (a, _) = setup.connect_in(&project_a, &["--tools", "infinity"]).await;

    infinity_fails(&a, "list_memories", json!({}), "project_not_activated").await;
    infinity_fails(
        &a,
        "store_memory",
        json!({"title": "t", "type": "design_doc", "content": ""}),
        "project_not_activated",
    )
    .await;
    // TC1: the first activation creates .infinity/project_id.
    let first = ok(&a, "activate_project", json!({"random_string": "x"})).await;
    assert_eq!(first["success"], true);
    let id = first["project_id"].as_str().unwrap().to_string();
    assert_eq!(
        std::fs::read_to_string(project_a.join(".infinity/project_id"))
            .unwrap()
            .trim(),
        id
    );
    // TC2: the second loads it.
    assert_eq!(
        ok(&a, "activate_project", json!({})).await["project_id"],
        id.as_str()
    );

    // TC3: a valid type stores and returns a UUID, saved to memories.json.
    let stored = ok(
        &a,
        "store_memory",
        json!({"title": "API Design", "type": "design_doc", "content": "# API\n"}),
    )
    .await;
    let design = stored["memory_id"].as_str().unwrap().to_string();
    assert!(uuid::Uuid::parse_str(&design).is_ok());
    let store_text = std::fs::read_to_string(project_a.join(".infinity/memories.json")).unwrap();
    assert!(store_text.contains(&design) && store_text.contains(&id));
    let plan = ok(
        &a,
        "store_memory",
        json!({"title": "Plan", "type": "implementation_plan", "content": ""}),
    )
    .await["memory_id"]
        .as_str()
        .unwrap()
        .to_string();
    // TC4: an invalid type is rejected.
    infinity_fails(
        &a,
        "store_memory",
        json!({"title": "x", "type": "wishlist", "content": "y"}),
        "invalid_memory_type",
    )
    .await;
    infinity_fails(
        &a,
        "store_memory",
        json!({"type": "analysis", "content": "y"}),
        "missing_required_field",
    )
    .await;
    infinity_fails(
        &a,
        "store_memory",
        json!({"title": "x", "type": "analysis", "content": null}),
        "missing_required_field",
    )
    .await;
    infinity_fails(
        &a,
        "store_memory",
        json!({"title": "", "type": "analysis", "content": "y"}),
        "missing_required_field",
    )
    .await;
    infinity_fails(
        &a,
        "store_memory",
        json!({"title": ["x"], "type": "analysis", "content": "y"}),
        "invalid_json",
    )
    .await;

    // TC5: get by id; an unknown id is an error.
    let got = ok(&a, "get_memory", json!({"memory_id": design})).await;
    assert_eq!(got["memory"]["content"], "# API\n");
    assert_eq!(got["memory"]["type"], "design_doc");
    assert!(got["memory"]["created_at"].is_string());
    infinity_fails(
        &a,
        "get_memory",
        json!({"memory_id": "00000000-0000-4000-8000-000000000000"}),
        "memory_not_found",
    )
    .await;
    infinity_fails(&a, "get_memory", json!({}), "missing_required_field").await;

    // TC6: the listing has id, title and type only.
    let listed = ok(&a, "list_memories", json!({})).await;
    let memories = listed["memories"].as_array().unwrap();
    assert_eq!(memories.len(), 2);
    for m in memories {
        let mut keys: Vec<&String> = m.as_object().unwrap().keys().collect();
        keys.sort();
        assert_eq!(keys, ["id", "title", "type"]);
    }
    // TC7: filtered by type.
    let designs = ok(&a, "list_memories", json!({"type": "design_doc"})).await;
    assert_eq!(
        designs["memories"],
        json!([{"id": design, "title": "API Design", "type": "design_doc"}])
    );

    // TC8: content changes, title and type do not; a missing id is an error.
    ok(
        &a,
        "update_memory",
        json!({"memory_id": plan, "content": "1. build", "title": "Renamed", "type": "rules"}),
    )
    .await;
    let updated = ok(&a, "get_memory", json!({"memory_id": plan})).await["memory"].clone();
    assert_eq!(
        (
            updated["title"].as_str(),
            updated["type"].as_str(),
            updated["content"].as_str()
        ),
        (Some("Plan"), Some("implementation_plan"), Some("1. build"))
    );
    infinity_fails(
        &a,
        "update_memory",
        json!({"memory_id": "missing", "content": "x"}),
        "memory_not_found",
    )
    .await;
    infinity_fails(
        &a,
        "update_memory",
        json!({"content": "x"}),
        "missing_required_field",
    )
    .await;
    infinity_fails(
        &a,
        "update_memory",
        json!({"memory_id": plan, "content": "x", "expectedVersion": "0000"}),
        "version_conflict",
    )
    .await;
    infinity_fails(
        &a,
        "store_memory",
        json!({"title": "keys", "type": "rules", "content": "aws AKIAIOSFODNN7REALKEY"}),
        "secret_detected",
    )
    .await;

    // TC9: delete removes the entry from memories.json.
    ok(&a, "delete_memory", json!({"memory_id": design})).await;
    assert!(
        !std::fs::read_to_string(project_a.join(".infinity/memories.json"))
            .unwrap()
            .contains(&design)
    );
    infinity_fails(
        &a,
        "delete_memory",
        json!({"memory_id": design}),
        "memory_not_found",
    )
    .await;

    // TC10: a server in another folder is another project and sees none of these.
    let (b, _) = setup.connect_in(&project_b, &["--tools", "infinity"]).await;
    let other = ok(&b, "activate_project", json!({})).await;
    assert_ne!(other["project_id"], id.as_str());
    assert_eq!(
        ok(&b, "list_memories", json!({})).await["memories"],
        json!([])
    );
    infinity_fails(
        &b,
        "get_memory",
        json!({"memory_id": plan}),
        "memory_not_found",
    )
    .await;
    // Nothing was written anywhere but the two project folders.
    assert!(
        !setup.root.join(".infinity").exists() && !setup.sandbox.home().join(".infinity").exists()
    );

    // A broken store is a storage error and is left as it was.
    std::fs::write(project_b.join(".infinity/memories.json"), "{ nope").unwrap();
    infinity_fails(&b, "list_memories", json!({}), "storage_error").await;
    infinity_fails(
        &b,
        "store_memory",
        json!({"title": "t", "type": "rules", "content": ""}),
        "storage_error",
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(project_b.join(".infinity/memories.json")).unwrap(),
        "{ nope"
    );
    bounded(a.cancel()).await.unwrap();
    bounded(b.cancel()).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_only_refuses_every_write_and_tools_pick_surfaces() {
    let setup = Setup::new();
    setup.init("alpha");
    let infinity_dir = setup.sandbox.home().join("inf");
    std::fs::create_dir_all(&infinity_dir).unwrap();
    let (client, _) = setup.connect_in(&infinity_dir, &["--read-only"]).await;
    let before =
        std::fs::read_to_string(setup.root.join("alpha/memory-bank/activeContext.md")).unwrap();
    ok(
        &client,
        "memory_bank_read",
        json!({"projectPath": "alpha", "fileName": "activeContext.md"}),
    )
    .await;
    for (tool, args) in [
        ("initialize_memory_bank", json!({"projectPath": "beta"})),
        (
            "memory_bank_write",
            json!({"projectPath": "alpha", "fileName": "n.md", "content": "x"}),
        ),
        (
            "memory_bank_update",
            json!({"projectPath": "alpha", "fileName": "activeContext.md", "content": "x"}),
        ),
        (
            "write_memory_bank_file",
            json!({"filename": "activeContext.md", "content": "x"}),
        ),
        ("track_progress", json!({"action": "a", "description": "d"})),
        ("update_active_context", json!({"tasks": ["t"]})),
        (
            "log_decision",
            json!({"title": "t", "context": "c", "decision": "d"}),
        ),
    ] {
        fails(&client, tool, args, "read_only").await;
    }
    infinity_fails(&client, "activate_project", json!({}), "read_only").await;
    assert_eq!(
        std::fs::read_to_string(setup.root.join("alpha/memory-bank/activeContext.md")).unwrap(),
        before
    );
    assert!(!setup.root.join("beta").exists() && !infinity_dir.join(".infinity").exists());
    bounded(client.cancel()).await.unwrap();

    let client = setup.connect(&["--tools", "infinity"]).await;
    let tools: Vec<String> = bounded(client.list_all_tools())
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(
        tools,
        [
            "activate_project",
            "store_memory",
            "get_memory",
            "list_memories",
            "update_memory",
            "delete_memory"
        ]
    );
    let params =
        CallToolRequestParams::new("memory_bank_read").with_arguments(serde_json::Map::new());
    assert!(bounded(client.call_tool(params)).await.is_err());
    bounded(client.cancel()).await.unwrap();

    let client = setup.connect(&["--tools", "cline,memory-bank-mcp"]).await;
    let tools = bounded(client.list_all_tools()).await.unwrap();
    assert_eq!(tools.len(), 20);
    assert_eq!(
        tools
            .iter()
            .filter(|t| t.name == "initialize_memory_bank")
            .count(),
        1
    );
    bounded(client.cancel()).await.unwrap();
}

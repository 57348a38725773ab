//! The Infinity store at scale and at its size limit, end to end: `mbank check` on a store
//! of 20,000 memories names each problem's own line, and `mbank mcp` refuses a write that
//! would make the store bigger than mbank reads back (`storage_error`), quickly even for a
//! 50 MB memory, leaving the store as it was.
use crate::common;

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use common::{Sandbox, within};
use mbank::core::formats::infinity::store::{self, MAX_STORE_BYTES};
use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

type Client = RunningService<RoleClient, ()>;

/// A pretty-printed store of `count` memories (7 lines each, the first on line 4), each
/// naming the next one's id in a field of its own, with memory `broken` given an empty title and
/// memory `repeat` the id of memory 0.
fn store_text(count: usize, broken: usize, repeat: usize) -> String {
    let mut text = String::from("{\n  \"project_id\": \"p-1\",\n  \"memories\": [\n");
    for i in 0..count {
        let id = if i == repeat { 0 } else { i };
        let title = if i == broken {
            String::new()
        } else {
            format!("Memory {i}")
        };
        let next = (i + 1) % count;
        text.push_str(&format!(
            "    {{\n      \"id\": \"m-{id}\",\n      \"title\": \"{title}\",\n      \
             \"type\": \"design_doc\",\n      \"content\": \"# Memory {i}\\n\\nSee m-{next}.\\n\", \"next\": \"m-{next}\",\n      \
             \"created_at\": \"2026-01-01T00:00:00Z\"\n    }}{}\n",
            if i + 1 == count { "" } else { "," }
        ));
    }
    text.push_str("  ]\n}\n");
    text
}

fn line_of_memory(index: usize) -> u64 {
    4 + 7 * index as u64
}

#[test]
fn check_on_a_20k_memory_store_names_each_problem_on_its_memorys_own_line() {
    let sandbox = Sandbox::new();
    let project = sandbox.home().join("big");
    let dir = project.join(".infinity");
    std::fs::create_dir_all(&dir).unwrap();
    let (count, broken, repeat) = (20_000, 12_345, 19_998);
    std::fs::write(dir.join("memories.json"), store_text(count, broken, repeat)).unwrap();
    std::fs::write(dir.join("project_id"), "p-1\n").unwrap();

    let run = sandbox.run(&["check", project.to_str().unwrap(), "--json"]);
    let output = run.json();
    let findings = output["projects"][0]["findings"].as_array().unwrap();
    let schema: Vec<(u64, &str)> = findings
        .iter()
        .filter(|f| f["code"] == "infinity-schema")
        .map(|f| (f["line"].as_u64().unwrap(), f["message"].as_str().unwrap()))
        .collect();
    // Errors come before warnings.
    assert_eq!(
        schema,
        [
            (line_of_memory(repeat), "duplicate memory id m-0"),
            (
                line_of_memory(broken),
                "memory \"m-12345\" has an empty or missing \"title\""
            ),
        ],
        "{}",
        run.stdout
    );
    run.expect_code(1);
}

#[test]
fn a_parsed_20k_memory_store_keeps_every_memory_in_order() {
    let text = store_text(20_000, usize::MAX, usize::MAX);
    let (parsed, issues) = store::parse_store(&text).unwrap();
    assert!(issues.is_empty(), "{:?}", &issues[..issues.len().min(3)]);
    assert_eq!(parsed.memories.len(), 20_000);
    for (i, memory) in parsed.memories.iter().enumerate() {
        assert_eq!(memory.id, format!("m-{i}"));
        assert_eq!(memory.line as u64, line_of_memory(i));
        assert_eq!(
            memory.content,
            format!("# Memory {i}\n\nSee m-{}.\n", (i + 1) % 20_000)
        );
    }
}

/// `mbank mcp --tools infinity` in `project`, with the SDK's client.
async fn connect(sandbox: &Sandbox, project: &Path) -> Client {
    let mut command = sandbox.mbank();
    command
        .arg("--root")
        .arg(sandbox.home())
        .args(["mcp", "--tools", "infinity"])
        .env("MBANK_DATA_DIR", sandbox.home().join("data-mbank"))
        .current_dir(project);
    let (transport, _) = TokioChildProcess::builder(tokio::process::Command::from(command))
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    bounded(().serve(transport)).await.unwrap()
}

/// Generous: a hang must fail the test, not stall it.
async fn bounded<T>(future: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(120), future)
        .await
        .expect("the server did not answer within 120 s (hang?)")
}

/// Calls a tool: (is the result an error, the JSON it carries).
async fn call(client: &Client, name: &str, args: Value) -> (bool, Value) {
    let Value::Object(args) = args else {
        panic!("arguments must be an object");
    };
    let params = CallToolRequestParams::new(name.to_string()).with_arguments(args);
    let result = bounded(client.call_tool(params)).await.unwrap();
    let text = result.content[0].as_text().unwrap().text.clone();
    (
        result.is_error == Some(true),
        serde_json::from_str(&text).unwrap(),
    )
}

async fn storage_error(client: &Client, name: &str, args: Value) -> String {
    let (is_error, value) = call(client, name, args).await;
    assert!(is_error, "{name} should fail: {value}");
    assert_eq!(value["error"], "storage_error", "{value}");
    value["message"].as_str().unwrap().to_string()
}

/// Markdown of about `bytes` bytes, in short lines.
fn markdown_of(bytes: usize) -> String {
    "- a note of some length for the store\n".repeat(bytes / 38 + 1)
}

#[test]
fn store_memory_past_the_size_cap_is_refused_and_the_store_stays_readable_and_unchanged() {
    within(Duration::from_secs(300), "writes at the size cap", || {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
            .block_on(async {
                let sandbox = Sandbox::new();
                let project = sandbox.home().join("capped");
                std::fs::create_dir_all(&project).unwrap();
                let client = connect(&sandbox, &project).await;
                assert_eq!(
                    call(&client, "activate_project", json!({})).await.1["success"],
                    true
                );
                let half = markdown_of(MAX_STORE_BYTES / 2 + 4096);
                let (failed, first) = call(
                    &client,
                    "store_memory",
                    json!({"title": "Half", "type": "analysis", "content": half}),
                )
                .await;
                assert!(!failed, "{first}");
                let path = project.join(".infinity/memories.json");
                let before = std::fs::read(&path).unwrap();

                let message = storage_error(
                    &client,
                    "store_memory",
                    json!({"title": "Half again", "type": "analysis", "content": half}),
                )
                .await;
                assert!(message.contains("the limit is 16 MiB"), "{message}");
                let id = first["memory_id"].as_str().unwrap();
                let message = storage_error(
                    &client,
                    "update_memory",
                    json!({"memory_id": id, "content": format!("{half}{half}")}),
                )
                .await;
                assert!(message.contains("the limit is 16 MiB"), "{message}");

                assert_eq!(std::fs::read(&path).unwrap(), before, "the store changed");
                let (failed, listed) = call(&client, "list_memories", json!({})).await;
                assert!(!failed, "{listed}");
                assert_eq!(listed["memories"].as_array().unwrap().len(), 1);
                let (failed, small) = call(
                    &client,
                    "store_memory",
                    json!({"title": "Small", "type": "rules", "content": "fits"}),
                )
                .await;
                assert!(!failed, "a write that fits is still accepted: {small}");
                client.cancel().await.unwrap();
            })
    });
}

#[test]
fn a_50_mb_memory_is_refused_promptly_with_storage_error() {
    within(Duration::from_secs(300), "a 50 MB store_memory", || {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
            .block_on(async {
                let sandbox = Sandbox::new();
                let project = sandbox.home().join("huge");
                std::fs::create_dir_all(&project).unwrap();
                let client = connect(&sandbox, &project).await;
                call(&client, "activate_project", json!({})).await;
                let (failed, _) = call(
                    &client,
                    "store_memory",
                    json!({"title": "Small", "type": "rules", "content": "first"}),
                )
                .await;
                assert!(!failed);
                let path = project.join(".infinity/memories.json");
                let before = std::fs::read(&path).unwrap();
                let huge = "x".repeat(50 * 1_000_000);
                let message = storage_error(
                    &client,
                    "store_memory",
                    json!({"title": "Huge", "type": "analysis", "content": huge}),
                )
                .await;
                assert!(
                    message.contains("at least 47.6 MiB; the limit is 16 MiB"),
                    "{message}"
                );
                assert_eq!(std::fs::read(&path).unwrap(), before);
                let (failed, listed) = call(&client, "list_memories", json!({})).await;
                assert!(!failed, "{listed}");
                assert_eq!(listed["memories"].as_array().unwrap().len(), 1);
                client.cancel().await.unwrap();
            })
    });
}

/// The setup the README gives for Infinity alone, `mbank mcp --tools infinity` with no
/// root configured: it starts although the default root (~/memory-banks) does not exist,
/// since Infinity keeps its store in the project folder, and its tools work.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn infinity_alone_starts_without_the_default_root() {
    let sandbox = Sandbox::new();
    assert!(!sandbox.home().join("memory-banks").exists());
    let project = sandbox.home().join("app");
    std::fs::create_dir_all(&project).unwrap();
    let mut command = sandbox.mbank();
    command
        .args(["mcp", "--tools", "infinity"])
        .env("MBANK_DATA_DIR", sandbox.home().join("data-mbank"))
        .current_dir(&project);
    let (transport, _) = TokioChildProcess::builder(tokio::process::Command::from(command))
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let client = bounded(().serve(transport))
        .await
        .expect("mbank mcp --tools infinity starts without ~/memory-banks");
    let (failed, activated) = call(&client, "activate_project", json!({})).await;
    assert!(!failed, "{activated}");
    let (failed, stored) = call(
        &client,
        "store_memory",
        json!({"title": "t", "type": "design_doc", "content": "c"}),
    )
    .await;
    assert!(!failed, "{stored}");
    assert!(project.join(".infinity/memories.json").is_file());
    assert!(!sandbox.home().join("memory-banks").exists());
    bounded(client.cancel()).await.unwrap();
    // A surface that needs the root still says it is missing.
    let run = sandbox.run(&["mcp", "--tools", "cline"]);
    run.expect_code(2);
    assert!(run.stderr.contains("does not exist"), "{}", run.stderr);
}

/// `mbank check` on a hostile store of 40,000 memories that all share one id: each is
/// reported as a duplicate, and the check finishes within the command watchdog (it was
/// quadratic in the memories: every memory's file was compared with every finding,
/// 30 s for 40,000 in a release build). Speed itself: `benches/infinity_check.sh`.
#[test]
fn check_of_memories_sharing_one_id_reports_each_and_finishes() {
    let sandbox = Sandbox::new();
    let project = sandbox.home().join("shared");
    let dir = project.join(".infinity");
    std::fs::create_dir_all(&dir).unwrap();
    let count = 40_000;
    let mut text = String::from("{\"project_id\": \"p-1\", \"memories\": [\n");
    for i in 0..count {
        text.push_str(&format!(
            "{{\"id\":\"m-shared\",\"title\":\"Memory {i}\",\"type\":\"design_doc\",\"content\":\"# M {i}\",\"created_at\":\"2026-01-01T00:00:00Z\"}}{}\n",
            if i + 1 == count { "" } else { "," }
        ));
    }
    text.push_str("]}\n");
    std::fs::write(dir.join("memories.json"), text).unwrap();
    std::fs::write(dir.join("project_id"), "p-1\n").unwrap();
    let run = sandbox.run(&["check", project.to_str().unwrap(), "--json"]);
    run.expect_code(1);
    let output = run.json();
    let duplicates = output["projects"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["message"] == "duplicate memory id m-shared")
        .count();
    assert_eq!(duplicates, count - 1);
}

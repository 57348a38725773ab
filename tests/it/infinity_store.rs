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

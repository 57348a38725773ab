//! The tools `mbank mcp` offers, as a real MCP client meets them through the SDK over the
//! real binary's stdin/stdout: the annotations a client decides approval on, the
//! required arguments, writes into the bank's `archive/`, the Memory Bank MCP spec's
//! decision entry, the heading rule of `validate_project`, and section lists.

use mbank::core::analysis::decisions;
use serde_json::json;

use crate::mcp_stdio::{Setup, bounded, fails, ok};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn annotations_say_which_tools_write_and_schemas_mark_what_is_required() {
    let setup = Setup::new();
    let client = setup.connect(&[]).await;
    let tools = bounded(client.list_all_tools()).await.unwrap();
    let find = |name: &str| tools.iter().find(|t| t.name == name).unwrap().clone();
    // activate_project creates .infinity/: a client that runs read-only tools without
    // asking must ask for it.
    let activate = find("activate_project").annotations.unwrap();
    assert_eq!(activate.read_only_hint, Some(false));
    assert_eq!(activate.destructive_hint, Some(false));
    ok(&client, "activate_project", json!({})).await;
    assert!(setup.root.join(".infinity").is_dir());
    for tool in &tools {
        let hints = tool.annotations.clone().unwrap();
        assert_eq!(hints.open_world_hint, Some(false), "{}", tool.name);
        let writes = [
            "initialize_memory_bank",
            "memory_bank_write",
            "memory_bank_update",
            "write_memory_bank_file",
            "track_progress",
            "update_active_context",
            "log_decision",
            "save_memory",
            "activate_project",
            "store_memory",
            "update_memory",
            "delete_memory",
        ]
        .contains(&tool.name.as_ref());
        assert_eq!(hints.read_only_hint, Some(!writes), "{}", tool.name);
    }
    let required = |name: &str| -> Vec<String> {
        find(name).input_schema["required"]
            .as_array()
            .map(|r| r.iter().map(|k| k.as_str().unwrap().to_string()).collect())
            .unwrap_or_default()
    };
    assert_eq!(required("memory_bank_update"), ["fileName", "content"]);
    assert_eq!(required("log_decision"), ["title", "context", "decision"]);
    assert_eq!(required("store_memory"), ["title", "type", "content"]);
    assert_eq!(required("switch_mode"), ["mode"]);
    assert_eq!(required("save_memory"), ["fact", "scope"]);
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agents_archive_into_the_banks_archive_folder_and_deeper_paths_are_refused() {
    let setup = Setup::new();
    let client = setup.connect(&[]).await;
    ok(
        &client,
        "initialize_memory_bank",
        json!({"projectPath": "shop"}),
    )
    .await;
    let bank = setup.root.join("shop/memory-bank");
    ok(
        &client,
        "memory_bank_write",
        json!({"projectPath": "shop", "fileName": "archive/progress-2025-q3.md", "content": "# Done in Q3\n- Cart\n"}),
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(bank.join("archive/progress-2025-q3.md")).unwrap(),
        "# Done in Q3\n- Cart\n"
    );
    let read = ok(
        &client,
        "memory_bank_read",
        json!({"projectPath": "shop", "fileName": "archive/progress-2025-q3.md"}),
    )
    .await;
    assert_eq!(read["content"], "# Done in Q3\n- Cart\n");
    ok(
        &client,
        "write_memory_bank_file",
        json!({"filename": "archive/progress-2025-q4.md", "content": "# Done in Q4\n"}),
    )
    .await;
    let message = fails(
        &client,
        "memory_bank_write",
        json!({"projectPath": "shop", "fileName": "archive/2025/q3.md", "content": "# Q3\n"}),
        "forbidden_path",
    )
    .await;
    assert!(message.contains("Cline memory bank format"), "{message}");
    assert!(!message.contains("bank bank"), "{message}");
    assert!(!bank.join("archive/2025").exists());
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn log_decision_writes_the_memory_bank_mcp_entry_format_in_such_a_bank() {
    let setup = Setup::new();
    let bank = setup.root.join("mcp/memory-bank");
    std::fs::create_dir_all(&bank).unwrap();
    std::fs::write(bank.join("active-context.md"), "# Current Context\n").unwrap();
    std::fs::write(bank.join("product-context.md"), "# Shop\n").unwrap();
    std::fs::write(
        bank.join("decision-log.md"),
        "# Decision Log\n\n## Use Postgres - 2026-01-02\n### Context\nWe need a database.\n### Decision\nPostgres.\n",
    )
    .unwrap();
    let client = setup.connect(&[]).await;
    ok(&client, "set_memory_bank_path", json!({"path": "mcp"})).await;
    ok(
        &client,
        "log_decision",
        json!({
            "title": "Authentication Method",
            "context": "We need to choose an authentication method for our API",
            "decision": "Use JWT for authentication",
            "alternatives": ["Session-based authentication", "OAuth 2.0"],
            "consequences": ["Stateless authentication"]
        }),
    )
    .await;
    let log = std::fs::read_to_string(bank.join("decision-log.md")).unwrap();
    let entry = log
        .split("\n\n## ")
        .nth(2)
        .expect("the new entry after the old one");
    let (heading, body) = entry.split_once('\n').unwrap();
    let date = heading
        .strip_prefix("Authentication Method - ")
        .unwrap_or_else(|| panic!("{heading:?}"));
    assert!(
        chrono::NaiveDateTime::parse_from_str(date, "%Y-%m-%d %H:%M:%S").is_ok(),
        "{date}"
    );
    assert_eq!(
        body,
        "### Context\nWe need to choose an authentication method for our API\n\
         ### Decision\nUse JWT for authentication\n\
         ### Alternatives Considered\n- Session-based authentication\n- OAuth 2.0\n\
         ### Consequences\n- Stateless authentication\n"
    );
    let parsed = decisions::parse_log(&bank.join("decision-log.md"), &log);
    let titles: Vec<&str> = parsed.iter().map(|d| d.title.as_str()).collect();
    assert_eq!(titles, ["Use Postgres", "Authentication Method"]);
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn validate_project_wants_a_heading_in_every_file_and_sections_want_lists() {
    let setup = Setup::new();
    let client = setup.connect(&[]).await;
    ok(
        &client,
        "initialize_memory_bank",
        json!({"projectPath": "shop"}),
    )
    .await;
    let checked = ok(&client, "validate_project", json!({"projectPath": "shop"})).await;
    assert_eq!(checked["valid"], true, "{checked}");
    let bank = setup.root.join("shop/memory-bank");
    // A recommended file and an extra one without a heading break the spec's rule.
    std::fs::write(bank.join("productContext.md"), "just prose, no heading\n").unwrap();
    std::fs::write(bank.join("notes.md"), "").unwrap();
    let checked = ok(&client, "validate_project", json!({"projectPath": "shop"})).await;
    assert_eq!(checked["valid"], false, "{checked}");
    assert_eq!(
        checked["problems"],
        json!([
            "productContext.md has no markdown heading",
            "notes.md is empty"
        ]),
        "{checked}"
    );

    // A string where a section's list belongs is refused, the file left alone.
    let active = std::fs::read_to_string(bank.join("activeContext.md")).unwrap();
    let message = fails(
        &client,
        "update_active_context",
        json!({"tasks": "Implement auth, then tests"}),
        "invalid_request",
    )
    .await;
    assert!(
        message.contains("\"tasks\" must be a list of strings"),
        "{message}"
    );
    assert_eq!(
        std::fs::read_to_string(bank.join("activeContext.md")).unwrap(),
        active
    );
    ok(
        &client,
        "update_active_context",
        json!({"tasks": ["Implement auth", "Then tests"]}),
    )
    .await;
    client.cancel().await.unwrap();
}

/// The tool list as clients know it (every surface, and `list_proposals` of a staging
/// server): names, descriptions, annotations and input schemas, pinned whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_advertised_tool_list_is_pinned() {
    let setup = Setup::new();
    let client = setup.connect(&["--stage"]).await;
    let tools = bounded(client.list_all_tools()).await.unwrap();
    let listed: Vec<serde_json::Value> = tools
        .iter()
        .map(|tool| {
            json!({
                "name": tool.name,
                "description": tool.description,
                "annotations": tool.annotations,
                "inputSchema": tool.input_schema,
            })
        })
        .collect();
    insta::assert_snapshot!(
        "mcp_tool_list",
        serde_json::to_string_pretty(&listed).unwrap()
    );
    client.cancel().await.unwrap();
}

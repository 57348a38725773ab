//! `mbank mcp` through the MCP SDK's client: a session switched to a read-only mode
//! (`read_only_modes`, Ask by default) writes nothing until it leaves it, and
//! `initialize_memory_bank` called as the Memory Bank MCP spec calls it (`path`) creates
//! that spec's five files through the write pipeline, keeping what exists.
use crate::mcp_stdio::{Setup, fails, ok};

use mbank::core::guard::refusals;
use serde_json::json;

/// An AWS key id of the real shape (not the documented example).
const LEAKED_KEY: &str = "AKIAZ7QWERTYUIOPASDF";

const SPEC_FILES: [&str; 5] = [
    "activeContext.md",
    "productContext.md",
    "progress.md",
    "decisionLog.md",
    "systemPatterns.md",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_in_a_read_only_mode_writes_nothing_until_it_leaves_it() {
    let setup = Setup::new();
    setup.init("alpha");
    let bank = setup.root.join("alpha/memory-bank");
    let client = setup.connect(&[]).await;
    let switched = ok(&client, "switch_mode", json!({"mode": "Ask"})).await;
    assert_eq!(switched["mode"], "ask");
    assert_eq!(switched["readOnly"], true, "{switched}");
    let status = ok(&client, "get_memory_bank_status", json!({})).await;
    assert_eq!(status["readOnly"], true, "{status}");
    let before = std::fs::read_to_string(bank.join("activeContext.md")).unwrap();
    for (tool, args) in [
        (
            "write_memory_bank_file",
            json!({"filename": "activeContext.md", "content": "# Active\n"}),
        ),
        (
            "memory_bank_update",
            json!({"projectPath": "alpha", "fileName": "activeContext.md", "content": "# Active\n"}),
        ),
        (
            "log_decision",
            json!({"title": "t", "context": "c", "decision": "d"}),
        ),
        ("initialize_memory_bank", json!({"path": "beta"})),
    ] {
        let message = fails(&client, tool, args, "read_only").await;
        assert!(
            message.contains("ask mode") && message.contains("switch_mode"),
            "{message}"
        );
    }
    assert!(!setup.root.join("beta").exists());
    assert_eq!(
        std::fs::read_to_string(bank.join("activeContext.md")).unwrap(),
        before
    );
    // Reads go on.
    ok(
        &client,
        "read_memory_bank_file",
        json!({"filename": "activeContext.md"}),
    )
    .await;
    // Debug mode writes unless the configuration says otherwise.
    let switched = ok(&client, "switch_mode", json!({"mode": "debug"})).await;
    assert_eq!(switched["readOnly"], false, "{switched}");
    ok(
        &client,
        "write_memory_bank_file",
        json!({"filename": "activeContext.md", "content": "# Active\n\nDebugging the login\n"}),
    )
    .await;
    client.cancel().await.unwrap();

    // Each session has its own mode: a second one, in code mode, writes.
    std::fs::create_dir_all(setup.sandbox.config_dir()).unwrap();
    std::fs::write(
        setup.sandbox.config_dir().join("config.toml"),
        "[serve]\nread_only_modes = [\"ask\", \"debug\"]\n",
    )
    .unwrap();
    let debug = setup.connect(&[]).await;
    let code = setup.connect(&[]).await;
    ok(&debug, "switch_mode", json!({"mode": "debug"})).await;
    ok(&code, "switch_mode", json!({"mode": "code"})).await;
    fails(
        &debug,
        "track_progress",
        json!({"action": "Fix", "description": "login"}),
        "read_only",
    )
    .await;
    ok(
        &code,
        "track_progress",
        json!({"action": "Fix", "description": "login"}),
    )
    .await;
    let progress = std::fs::read_to_string(bank.join("progress.md")).unwrap();
    assert_eq!(progress.matches("Fix: login").count(), 1, "{progress}");
    debug.cancel().await.unwrap();
    code.cancel().await.unwrap();
}

/// A mode rule file that does not parse still declares its mode by its name: with a
/// broken `.clinerules-ask` beside a good `.clinerules-code`, Ask can still be chosen and
/// still holds the session read-only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mode_whose_rule_file_does_not_parse_can_still_be_chosen() {
    let setup = Setup::new();
    setup.init("alpha");
    let project = setup.root.join("alpha");
    std::fs::write(project.join(".clinerules-code"), "Write the test first.\n").unwrap();
    std::fs::write(project.join(".clinerules-ask"), "{ \"mode\": ").unwrap();
    let client = setup.connect(&[]).await;
    let switched = ok(&client, "switch_mode", json!({"mode": "ask"})).await;
    assert_eq!(switched["mode"], "ask");
    assert_eq!(switched["readOnly"], true, "{switched}");
    fails(
        &client,
        "write_memory_bank_file",
        json!({"filename": "activeContext.md", "content": "# Active\n"}),
        "read_only",
    )
    .await;
    // Modes neither file declares are unknown, as before.
    let message = fails(
        &client,
        "switch_mode",
        json!({"mode": "debug"}),
        "mode_not_found",
    )
    .await;
    assert!(message.contains("debug"), "{message}");
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn initialize_with_path_creates_the_memory_bank_mcp_specs_five_files() {
    let setup = Setup::new();
    let client = setup.connect(&[]).await;
    // A brief holding a secret: refused before anything is created.
    fails(
        &client,
        "initialize_memory_bank",
        json!({"path": "webapp", "brief": format!("A todo API. Key {LEAKED_KEY}")}),
        "secret_detected",
    )
    .await;
    assert!(!setup.root.join("webapp/memory-bank").exists());
    let made = ok(
        &client,
        "initialize_memory_bank",
        json!({"path": "webapp", "brief": "A todo API for teams"}),
    )
    .await;
    let mut expected = vec!["memory-bank/".to_string()];
    expected.extend(SPEC_FILES.iter().map(|f| format!("memory-bank/{f}")));
    assert_eq!(made["created"], json!(expected), "{made}");
    let bank = setup.root.join("webapp/memory-bank");
    let mut names: Vec<String> = std::fs::read_dir(&bank)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut spec: Vec<&str> = SPEC_FILES.to_vec();
    spec.sort();
    assert_eq!(names, spec, "no projectBrief.md, no techContext.md");
    let product = std::fs::read_to_string(bank.join("productContext.md")).unwrap();
    assert!(
        product.starts_with("# webapp\n\n## Overview\nA todo API for teams\n"),
        "{product}"
    );
    let active = std::fs::read_to_string(bank.join("activeContext.md")).unwrap();
    for section in [
        "# Current Context",
        "## Ongoing Tasks",
        "## Known Issues",
        "## Next Steps",
        "## Current Session Notes",
    ] {
        assert!(active.contains(section), "{section}: {active}");
    }
    let progress = std::fs::read_to_string(bank.join("progress.md")).unwrap();
    assert!(
        progress.contains("## Update History\n- ") && !progress.contains("YYYY-MM-DD"),
        "{progress}"
    );
    // The bank is the Memory Bank MCP spec's, and its tools work on it.
    let status = ok(&client, "get_memory_bank_status", json!({})).await;
    assert_eq!(status["format"], "memory-bank-mcp", "{status}");
    ok(
        &client,
        "update_active_context",
        json!({"tasks": ["Auth"], "nextSteps": ["Ship"]}),
    )
    .await;
    let active = std::fs::read_to_string(bank.join("activeContext.md")).unwrap();
    assert!(active.contains("## Ongoing Tasks\n- Auth"), "{active}");

    // Existing files are never overwritten: a person's file stays, the missing one returns.
    std::fs::write(bank.join("productContext.md"), "# Mine\n").unwrap();
    std::fs::remove_file(bank.join("systemPatterns.md")).unwrap();
    let again = ok(&client, "initialize_memory_bank", json!({"path": "webapp"})).await;
    assert_eq!(
        again["created"],
        json!(["memory-bank/systemPatterns.md"]),
        "{again}"
    );
    assert!(
        again["kept"]
            .as_array()
            .unwrap()
            .contains(&json!("memory-bank/productContext.md"))
    );
    assert_eq!(
        std::fs::read_to_string(bank.join("productContext.md")).unwrap(),
        "# Mine\n"
    );
    // The refused brief was logged under the file it would have filled.
    let logged = refusals::read_in(&setup.data_dir(), &setup.root.join("webapp")).unwrap();
    assert!(
        logged
            .iter()
            .any(|r| r.file == "productContext.md" && r.via == "mcp:initialize_memory_bank"),
        "{logged:?}"
    );
    client.cancel().await.unwrap();

    // A server offering only the Memory Bank MCP tools creates its bank whatever the key.
    let only = setup.connect(&["--tools", "memory-bank-mcp"]).await;
    let made = ok(
        &only,
        "initialize_memory_bank",
        json!({"projectPath": "second"}),
    )
    .await;
    assert_eq!(made["created"].as_array().unwrap().len(), 6, "{made}");
    assert!(
        setup
            .root
            .join("second/memory-bank/decisionLog.md")
            .exists()
    );
    assert!(
        !setup
            .root
            .join("second/memory-bank/projectBrief.md")
            .exists()
    );
    only.cancel().await.unwrap();
}

//! `mbank mcp`'s write guard, end to end through the MCP SDK's client: secrets (in
//! briefs, names, unwrapped private blocks, entries, Infinity titles), elision
//! placeholders in any wording, and decision entries hidden from the log are refused,
//! never written and never logged.
use crate::mcp_stdio::{LOG_WITH_TWO, Setup, bounded, fails, infinity_fails, ok};

use mbank::core::guard::refusals;
use serde_json::json;

/// An AWS key id of the real shape (not the documented example).
const LEAKED_KEY: &str = "AKIAZ7QWERTYUIOPASDF";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_in_briefs_names_unwrapped_blocks_and_entries_are_refused_and_never_logged() {
    let setup = Setup::new();
    let client = setup.connect(&[]).await;
    let key = LEAKED_KEY;

    // A brief becomes projectBrief.md: refused before anything is created.
    let message = fails(
        &client,
        "initialize_memory_bank",
        json!({"projectPath": "alpha", "brief": format!("A todo API.\nStaging: {key}")}),
        "secret_detected",
    )
    .await;
    assert!(message.contains("the project brief holds"), "{message}");
    assert!(!setup.root.join("alpha/memory-bank").exists());
    ok(
        &client,
        "initialize_memory_bank",
        json!({"projectPath": "alpha", "brief": "A todo API"}),
    )
    .await;
    let bank = setup.root.join("alpha/memory-bank");

    // A key in a file name: refused, and the name is echoed nowhere.
    let message = fails(
        &client,
        "memory_bank_write",
        json!({"projectPath": "alpha", "fileName": format!("awskey{key}.md"), "content": "# x\n"}),
        "secret_detected",
    )
    .await;
    assert!(message.contains("an AWS access key id"), "{message}");
    assert!(!message.contains(key), "{message}");

    // Written inside <private>, then unwrapped by a second write.
    let wrapped = format!("# Notes\n\n<private>\ndeploy {key}_prod\n</private>\n");
    ok(
        &client,
        "memory_bank_write",
        json!({"projectPath": "alpha", "fileName": "notes.md", "content": wrapped}),
    )
    .await;
    let message = fails(
        &client,
        "memory_bank_update",
        json!({"projectPath": "alpha", "fileName": "notes.md", "content": format!("# Notes\n\ndeploy {key}_prod\n")}),
        "secret_detected",
    )
    .await;
    assert!(
        message.contains("line 3 (an AWS access key id)"),
        "{message}"
    );
    // A <private> inside a code fence protects nothing.
    let fenced = format!("# Notes\n\n```\n<private>\n{key}\n</private>\n```\n");
    fails(
        &client,
        "memory_bank_update",
        json!({"projectPath": "alpha", "fileName": "notes.md", "content": fenced}),
        "secret_detected",
    )
    .await;
    // What a real client sent.
    for line in [
        "AWS_SECRET_ACCESS_KEY=Zx8yW7vU6tS5rQ4pO3nM2lK1jI0hG9fE8dC7bA6z",
        "DB_PASSWORD=hunter2hunter2",
        "maps: AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW",
    ] {
        fails(
            &client,
            "memory_bank_update",
            json!({"projectPath": "alpha", "fileName": "notes.md", "content": format!("# Notes\n\n{line}\n")}),
            "secret_detected",
        )
        .await;
    }
    // AWS's documented example keys and ordinary prose pass.
    ok(&client, "memory_bank_update", json!({"projectPath": "alpha", "fileName": "notes.md", "content": "# Notes\n\nAWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n- password reset flow\n- DATABASE_URL=\"file:../app.db\"\n"})).await;

    // Entries the server appends are checked too.
    ok(&client, "set_memory_bank_path", json!({"path": "alpha"})).await;
    fails(
        &client,
        "log_decision",
        json!({"title": "Deploy", "context": format!("key{key}"), "decision": "ship"}),
        "secret_detected",
    )
    .await;
    fails(
        &client,
        "track_progress",
        json!({"action": "Setup", "description": "MY_API_TOKEN=a1b2c3d4e5f6g7h8"}),
        "secret_detected",
    )
    .await;

    // Nothing holding the key reached the bank or the refusal log.
    for entry in std::fs::read_dir(&bank).unwrap() {
        let entry = entry.unwrap();
        assert!(!entry.file_name().to_string_lossy().contains(key));
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        assert!(!text.contains(key), "{}", entry.path().display());
    }
    let logged = refusals::read_in(&setup.data_dir(), &setup.root.join("alpha")).unwrap();
    assert!(logged.iter().filter(|r| r.rule == "secret").count() >= 8);
    assert!(
        logged
            .iter()
            .any(|r| r.file == "projectBrief.md" && r.via == "mcp:initialize_memory_bank"),
        "{logged:?}"
    );
    assert!(
        logged
            .iter()
            .all(|r| !r.file.contains(key) && !r.message.contains(key)),
        "{logged:?}"
    );
    bounded(client.cancel()).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elision_placeholders_in_any_wording_are_refused_and_a_genuine_rewrite_passes() {
    let setup = Setup::new();
    let client = setup.connect(&[]).await;
    ok(
        &client,
        "initialize_memory_bank",
        json!({"projectPath": "alpha"}),
    )
    .await;
    let thirteen = "# Active Context\n\n## Current Focus\n- auth rewrite\n- token refresh\n\n\
## Recent Changes\n- sessions in Redis\n- rate limits\n- login redirect\n\n## Next Steps\n- audit log\n- admin panel\n";
    ok(
        &client,
        "memory_bank_update",
        json!({"projectPath": "alpha", "fileName": "activeContext.md", "content": thirteen}),
    )
    .await;
    for placeholder in ["<!-- unchanged -->", "[truncated]", "// rest of code"] {
        fails(&client, "memory_bank_update", json!({"projectPath": "alpha", "fileName": "activeContext.md", "content": format!("# Active Context\n\n## Current Focus\n- payments\n\n{placeholder}\n")}), "elision_detected").await;
    }
    // A genuine rewrite without placeholders passes.
    ok(&client, "memory_bank_update", json!({"projectPath": "alpha", "fileName": "activeContext.md", "content": "# Active Context\n\n## Current Focus\n- payments\n"})).await;

    bounded(client.cancel()).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hiding_decision_entries_in_details_a_comment_or_a_private_file_is_refused() {
    let setup = Setup::new();
    let client = setup.connect(&[]).await;
    ok(
        &client,
        "initialize_memory_bank",
        json!({"projectPath": "alpha"}),
    )
    .await;
    let bank = setup.root.join("alpha/memory-bank");
    ok(
        &client,
        "memory_bank_update",
        json!({"projectPath": "alpha", "fileName": "decisionLog.md", "content": LOG_WITH_TWO}),
    )
    .await;
    let body = LOG_WITH_TWO.trim_start_matches("# Decision Log\n");
    for hidden in [
        format!("# Decision Log\n\n<details>\n<summary>old</summary>\n{body}\n</details>\n"),
        format!("# Decision Log\n<!--\n{body}-->\n"),
        format!("---\nprivate: true\n---\n{LOG_WITH_TWO}"),
    ] {
        let message = fails(
            &client,
            "memory_bank_update",
            json!({"projectPath": "alpha", "fileName": "decisionLog.md", "content": hidden}),
            "append_only_violation",
        )
        .await;
        assert!(message.contains("Cache in Redis"), "{message}");
    }

    let log = std::fs::read_to_string(bank.join("decisionLog.md")).unwrap();
    assert_eq!(log, LOG_WITH_TWO);
    bounded(client.cancel()).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_in_an_infinity_memory_title_is_refused() {
    let setup = Setup::new();
    let key = LEAKED_KEY;
    let project = setup.sandbox.home().join("project-i");
    std::fs::create_dir_all(&project).unwrap();
    let (infinity, _) = setup.connect_in(&project, &["--tools", "infinity"]).await;
    ok(&infinity, "activate_project", json!({})).await;
    infinity_fails(
        &infinity,
        "store_memory",
        json!({"title": format!("Deploy {key}"), "type": "design_doc", "content": "# Deploy\n"}),
        "secret_detected",
    )
    .await;
    ok(
        &infinity,
        "store_memory",
        json!({"title": "Deploy", "type": "design_doc", "content": "# Deploy\n"}),
    )
    .await;
    let store = std::fs::read_to_string(project.join(".infinity/memories.json")).unwrap();
    assert!(!store.contains(key));
    bounded(infinity.cancel()).await.unwrap();
}

//! `search_memory` (over stdio, as an agent calls it) and `GET /memory-bank/search`: the
//! results `mbank search --json` gives, read-only, and snippets that together never count
//! more than `maxTokens`.
use crate::http_serve::{Server, tls};
use crate::mcp_stdio::{Setup, fails, ok};

use mbank::core::tokens::{self, Encoding};
use serde_json::{Value, json};

fn snippet_tokens(answer: &Value) -> usize {
    answer["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| tokens::count(Encoding::O200k, r["snippet"]["text"].as_str().unwrap()))
        .sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_memory_ranks_what_the_command_ranks_within_the_budget() {
    let setup = Setup::new();
    for project in ["shop", "blog"] {
        setup.init(project);
    }
    std::fs::write(
        setup.root.join("shop/memory-bank/progress.md"),
        "# Progress\n\n".to_string()
            + &(1..=30)
                .map(|n| format!("## Step {n}\nRetried the payment webhook, attempt {n}.\n\n"))
                .collect::<String>(),
    )
    .unwrap();
    let client = setup.connect(&[]).await;
    let listed = client.list_all_tools().await.unwrap();
    let tool = listed.iter().find(|t| t.name == "search_memory").unwrap();
    let annotations = tool.annotations.as_ref().unwrap();
    assert_eq!(annotations.read_only_hint, Some(true));
    assert_eq!(annotations.destructive_hint, Some(false));

    let whole = ok(
        &client,
        "search_memory",
        json!({"query": "payment webhook retries", "limit": 20}),
    )
    .await;
    assert_eq!(whole["schema"], "mbank.search/1");
    let results = whole["results"].as_array().unwrap();
    assert_eq!(results.len(), 20);
    assert!(results.iter().all(|r| r["project"] == "shop"));
    assert_eq!(whole["omitted"], 0);
    let printed = setup.sandbox.run(&[
        "--root",
        setup.root.to_str().unwrap(),
        "search",
        "payment webhook retries",
        "--limit",
        "20",
        "--json",
    ]);
    printed.expect_code(0);
    assert_eq!(whole["results"], printed.json()["results"]);

    for budget in [0usize, 15, 60, 400] {
        let answer = ok(
            &client,
            "search_memory",
            json!({"query": "payment webhook retries", "limit": 20, "maxTokens": budget}),
        )
        .await;
        let used = snippet_tokens(&answer);
        assert!(used <= budget, "{used} tokens for a budget of {budget}");
        assert_eq!(answer["tokens"].as_u64(), Some(used as u64));
        let kept = answer["results"].as_array().unwrap().len();
        assert_eq!(
            kept + answer["omitted"].as_u64().unwrap() as usize,
            20,
            "{answer}"
        );
    }
    let only_blog = ok(
        &client,
        "search_memory",
        json!({"query": "payment webhook", "project": "blog"}),
    )
    .await;
    assert!(
        only_blog["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["project"] == "blog")
    );
    fails(
        &client,
        "search_memory",
        json!({"query": "  "}),
        "invalid_request",
    )
    .await;
    fails(
        &client,
        "search_memory",
        json!({"query": "x", "project": "nowhere"}),
        "project_not_found",
    )
    .await;
    client.cancel().await.unwrap();

    tls();
    let server = Server::start("", &[]);
    let http = reqwest::Client::new();
    let answer: Value = http
        .get(server.url("/memory-bank/search?query=todo%20API&maxTokens=40"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(answer["schema"], "mbank.search/1", "{answer}");
    assert!(snippet_tokens(&answer) <= 40);
    assert!(
        !answer["results"].as_array().unwrap().is_empty(),
        "{answer}"
    );
    let refused = http
        .get(server.url("/memory-bank/search?query=x&limit=many"))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status().as_u16(), 400);
}

/// `search_memory` searches the home folder's own stores as `mbank search` does, and
/// takes a store's name as its project.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_memory_searches_the_home_folders_stores_as_the_command_does() {
    let setup = Setup::new();
    setup.init("shop");
    let home = setup.sandbox.home();
    crate::common::write(
        &home.join(".codex/memories/MEMORY.md"),
        "# Tooling\nCross-compile with cargo-zigbuild.\n<private>\nzigbuild passphrase\n</private>\n",
    );
    crate::common::write(
        &home.join(".gemini/GEMINI.md"),
        "## Gemini Added Memories\n- Prefers zigbuild for releases.\n",
    );
    let client = setup.connect(&[]).await;
    let answer = ok(&client, "search_memory", json!({"query": "zigbuild"})).await;
    let printed = setup.sandbox.run(&[
        "--root",
        setup.root.to_str().unwrap(),
        "search",
        "zigbuild",
        "--json",
    ]);
    printed.expect_code(0);
    assert_eq!(answer["results"], printed.json()["results"]);
    let projects: Vec<&str> = answer["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["project"].as_str().unwrap())
        .collect();
    assert_eq!(projects.len(), 2, "{answer}");
    assert!(projects.contains(&"Codex memories (~/.codex/memories)"));
    assert!(projects.contains(&"Gemini CLI memory (~/.gemini/GEMINI.md)"));
    assert!(!answer.to_string().contains("passphrase"), "{answer}");
    let only_codex = ok(
        &client,
        "search_memory",
        json!({"query": "zigbuild", "project": "Codex memories"}),
    )
    .await;
    let results = only_codex["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{only_codex}");
    assert_eq!(results[0]["display"], "~/.codex/memories/MEMORY.md");
    assert_eq!(results[0]["home_store"], true);
    fails(
        &client,
        "search_memory",
        json!({"query": "x", "project": "Cursor memories"}),
        "project_not_found",
    )
    .await;
    client.cancel().await.unwrap();
}

//! Beans-Code's `save_memory` over `mbank mcp` (stdio, the SDK's client) and its `/memory
//! add` as `mbank remember`: a fact appended under `## Auto-saved Memories` of the global
//! `~/.beans/BEANS.md` (the sandbox's HOME) or the project's `BEANS.md`, refused on a
//! read-only server and staged for a person on a staging one.
use serde_json::json;

use crate::mcp_stdio::{Setup, bounded, fails, ok};

const SECRET: &str = "token ghp_abcdefghijklmnopqrstuvwxyz0123456789AB";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn save_memory_appends_to_the_global_and_the_project_memory() {
    let setup = Setup::new();
    let project = setup.root.join("shop");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join("BEANS.md"),
        "# Shop\n\n## Auto-saved Memories\n- Uses pnpm\n\n## Testing\n- Vitest\n",
    )
    .unwrap();
    let client = setup.connect(&[]).await;
    let saved = ok(
        &client,
        "save_memory",
        json!({"fact": "Prefers\ntabs", "scope": "global"}),
    )
    .await;
    assert_eq!(saved["status"], "success", "{saved}");
    let global = setup.sandbox.home().join(".beans/BEANS.md");
    assert_eq!(
        std::fs::read_to_string(&global).unwrap(),
        "## Auto-saved Memories\n- Prefers tabs\n"
    );
    ok(
        &client,
        "save_memory",
        json!({"fact": "The database port is 5432", "scope": "project", "projectPath": "shop"}),
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(project.join("BEANS.md")).unwrap(),
        "# Shop\n\n## Auto-saved Memories\n- Uses pnpm\n- The database port is 5432\n\n## Testing\n- Vitest\n"
    );
    let message = fails(
        &client,
        "save_memory",
        json!({"fact": SECRET, "scope": "global"}),
        "secret_detected",
    )
    .await;
    assert!(!message.contains("ghp_"), "{message}");
    fails(
        &client,
        "save_memory",
        json!({"fact": "x", "scope": "everywhere"}),
        "invalid_request",
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(&global).unwrap(),
        "## Auto-saved Memories\n- Prefers tabs\n"
    );
    bounded(client.cancel()).await.unwrap();

    let client = setup.connect(&["--read-only"]).await;
    let tools = bounded(client.list_all_tools()).await.unwrap();
    assert!(tools.iter().all(|t| t.name != "save_memory"));
    fails(
        &client,
        "save_memory",
        json!({"fact": "x", "scope": "global"}),
        "read_only",
    )
    .await;
    bounded(client.cancel()).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_staged_fact_waits_for_a_person_to_accept_it() {
    let setup = Setup::new();
    setup.init("shop");
    let client = setup.connect(&["--stage"]).await;
    let answer = ok(
        &client,
        "save_memory",
        json!({"fact": "Deploys on Fridays", "scope": "global"}),
    )
    .await;
    assert_eq!(answer["status"], "staged", "{answer}");
    let id = answer["proposal"]["id"].as_u64().unwrap();
    let global = setup.sandbox.home().join(".beans/BEANS.md");
    assert!(!global.exists(), "nothing lands before a person accepts");
    bounded(client.cancel()).await.unwrap();

    let data = setup.data_dir();
    let listed = setup
        .sandbox
        .run_env(&["proposals", "--json"], "MBANK_DATA_DIR", &data);
    let proposals = listed.json()["proposals"].as_array().unwrap().clone();
    assert_eq!(proposals.len(), 1, "{}", listed.stdout);
    assert_eq!(proposals[0]["file"], ".beans/BEANS.md", "{}", listed.stdout);
    let root = setup.root.to_str().unwrap().to_string();
    setup
        .sandbox
        .run_env(
            &["--root", &root, "accept", &id.to_string()],
            "MBANK_DATA_DIR",
            &data,
        )
        .expect_code(0);
    assert_eq!(
        std::fs::read_to_string(&global).unwrap(),
        "## Auto-saved Memories\n- Deploys on Fridays\n"
    );
}

#[test]
fn remember_appends_to_the_project_or_with_global_to_the_home_folder() {
    let setup = Setup::new();
    let project = setup.root.join("shop");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join("BEANS.md"), "# Shop\n").unwrap();
    let shop = project.to_str().unwrap();
    let run = setup.sandbox.run(&["remember", "Uses pnpm", shop]);
    run.expect_code(0);
    assert!(run.stdout.contains("BEANS.md"), "{}", run.stdout);
    assert_eq!(
        std::fs::read_to_string(project.join("BEANS.md")).unwrap(),
        "# Shop\n\n## Auto-saved Memories\n- Uses pnpm\n"
    );
    setup
        .sandbox
        .run(&["remember", "--global", "Prefers tabs"])
        .expect_code(0);
    assert_eq!(
        std::fs::read_to_string(setup.sandbox.home().join(".beans/BEANS.md")).unwrap(),
        "## Auto-saved Memories\n- Prefers tabs\n"
    );
    let refused = setup.sandbox.run(&["remember", SECRET, shop]);
    refused.expect_code(2);
    assert!(!refused.stderr.contains("ghp_"), "{}", refused.stderr);
    setup.sandbox.run(&["remember", " \n", shop]).expect_code(2);
    assert_eq!(
        std::fs::read_to_string(project.join("BEANS.md")).unwrap(),
        "# Shop\n\n## Auto-saved Memories\n- Uses pnpm\n"
    );
}

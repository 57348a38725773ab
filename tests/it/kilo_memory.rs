//! Kilo Code's per-project memory in its data folder (read-only, shown under its project
//! and in Kilo's session) and its per-mode system prompt overrides.
use crate::common;

use std::path::Path;

use common::context::{bank, displays};
use common::{Sandbox, write};

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// A Kilo project and its memory where the sandbox's `XDG_DATA_HOME` puts Kilo's data.
fn kilo_fixture(sandbox: &Sandbox, root: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let project = root.join("my-app");
    write(
        &project.join(".kilocode/rules/memory-bank/brief.md"),
        "# Brief\nA weather app.\n",
    );
    write(
        &project.join(".kilocode/system-prompt-architect"),
        "You are the architect.\n",
    );
    let data = sandbox
        .env()
        .into_iter()
        .find(|(var, _)| *var == "XDG_DATA_HOME")
        .map(|(_, dir)| dir)
        .unwrap();
    let memory = data.join("kilo/memory/my-app-0123456789ab");
    write(
        &memory.join("project.md"),
        "# Project\n- uses PostgreSQL 16\n",
    );
    write(
        &memory.join("environment.md"),
        "# Environment\n- cargo test\n",
    );
    write(&memory.join("corrections.md"), "# Corrections\n");
    write(
        &memory.join("sessions/2026-05-01.md"),
        "# Session\nmoved the cache\n",
    );
    write(&memory.join("index.json"), "{}");
    (project, memory)
}

#[test]
fn kilo_memory_in_the_data_folder_loads_in_kilos_session_and_digests_on_demand() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("work");
    let (project, memory) = kilo_fixture(&sandbox, &root);

    let list = sandbox.run(&["list", "--json", "--root", s(&root)]);
    list.expect_code(0);
    let json = list.json();
    assert_eq!(
        json["projects"][0]["formats"],
        serde_json::json!(["kilo-code", "kilo-memory"])
    );

    let run = sandbox.run(&["context", s(&project), "--agent", "kilo", "--json"]);
    run.expect_code(0);
    let json = run.json();
    let kilo = bank(&json, "kilo-memory");
    assert_eq!(kilo["root"], s(&memory));
    // Shown from the home folder it sits in.
    let shown: Vec<String> = ["project.md", "environment.md", "corrections.md"]
        .iter()
        .map(|f| format!("~/data/kilo/memory/my-app-0123456789ab/{f}"))
        .collect();
    assert_eq!(displays(kilo), shown);
    let piece = &kilo["pieces"][0];
    assert_eq!(piece["text"], "# Project\n- uses PostgreSQL 16\n");
    assert_eq!(piece["scope"], "user");
    let notes = kilo["notes"].as_array().unwrap();
    assert!(
        notes.iter().any(|n| n
            .as_str()
            .unwrap()
            .contains("1 session digest(s) are read on demand")),
        "{notes:?}"
    );
    // Kilo's own bank in the project is there too; the override of another mode is not loaded.
    let rules = bank(&json, "kilo-code");
    assert!(displays(rules).iter().any(|d| d.ends_with("brief.md")));
    assert!(!displays(rules).iter().any(|d| d.contains("system-prompt")));

    // Another agent's session does not load it.
    let claude = sandbox.run(&["context", s(&project), "--agent", "claude-code", "--json"]);
    assert!(!claude.stdout.contains("kilo-memory"), "{}", claude.stdout);
}

#[test]
fn kilo_memory_is_never_written() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("work");
    let (project, memory) = kilo_fixture(&sandbox, &root);
    let list = mbank::core::scan::discovery::project_at_home(
        &project,
        "my-app".into(),
        Some(sandbox.home()),
    );
    // Without the sandbox's XDG_DATA_HOME in this process, the default place is looked at.
    assert!(list.is_some_and(|p| p.banks.iter().all(|b| b.root != memory)));
    let default_memory = sandbox
        .home()
        .join(".local/share/kilo/memory/my-app-0123456789ab");
    write(&default_memory.join("project.md"), "# Project\n");
    let project_found = mbank::core::scan::discovery::project_at_home(
        &project,
        "my-app".into(),
        Some(sandbox.home()),
    )
    .unwrap();
    let location = project_found
        .banks
        .iter()
        .find(|b| b.root == default_memory)
        .unwrap()
        .clone();
    let bank = mbank::core::scan::bank::list_bank(&project_found, &location);
    let refused = mbank::core::write::resolve_target(&bank, "project.md").unwrap_err();
    assert!(refused.to_string().contains("never writes it"), "{refused}");
    let shown = mbank::core::write::resolve_target(&bank, "new.md").unwrap_err();
    assert!(
        shown.to_string().contains("Kilo Memory belongs to Kilo"),
        "{shown}"
    );
}

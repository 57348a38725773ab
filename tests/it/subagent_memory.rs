//! Claude Code subagents' own memory (`.claude/agent-memory/<name>/`, and the git-ignored
//! `.claude/agent-memory-local/<name>/`): listed with the project's CLAUDE.md bank, read
//! when that subagent runs, never at the session's start, and its index's load limit told.
use std::path::Path;

use crate::common;
use common::context::{bank, displays};
use common::{Sandbox, write};

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn subagent_memory_is_listed_loads_only_with_its_subagent_and_its_index_is_cut() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("work");
    let project = root.join("app");
    write(&project.join("CLAUDE.md"), "# App\nRun `cargo test`.\n");
    let long: String = (1..=250).map(|n| format!("- lesson {n}\n")).collect();
    write(
        &project.join(".claude/agent-memory/reviewer/MEMORY.md"),
        &format!("# Reviewer memory\n{long}"),
    );
    write(
        &project.join(".claude/agent-memory/reviewer/style.md"),
        "# House style\nShort functions.\n",
    );
    write(
        &project.join(".claude/agent-memory/reviewer/seen.json"),
        "{}",
    );
    write(
        &project.join(".claude/agent-memory-local/scout/MEMORY.md"),
        "# Scout memory\n- the slow test is in ci\n",
    );
    let sandbox = Sandbox::new();

    let list = sandbox.run(&["list", "--json", "--root", s(&root)]);
    list.expect_code(0);
    assert_eq!(list.json()["projects"][0]["files"], 5, "{}", list.stdout);

    // The session loads CLAUDE.md alone: a subagent's memory is its own.
    let context = sandbox.run(&["context", s(&project), "--agent", "claude-code", "--json"]);
    context.expect_code(0);
    let json = context.json();
    assert_eq!(displays(bank(&json, "claude-md")), ["CLAUDE.md"]);

    let check = sandbox.run(&["check", "--json", s(&project)]);
    let json = check.json();
    let findings = json["projects"][0]["findings"].as_array().unwrap();
    let about = |file: &str| -> Vec<String> {
        findings
            .iter()
            .filter(|f| f["file"].as_str().is_some_and(|p| p.ends_with(file)))
            .map(|f| f["message"].as_str().unwrap().to_string())
            .collect()
    };
    let reviewer = about("agent-memory/reviewer/MEMORY.md");
    assert!(
        reviewer.iter().any(|m| m.contains("first 200 lines")),
        "{reviewer:?}"
    );
    assert!(about("agent-memory-local/scout/MEMORY.md").is_empty());
}

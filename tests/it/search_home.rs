//! `mbank search` over the agents' stores in the home folder that belong to no project
//! (Codex memories, Gemini CLI's memory file, Claude Code's user memory), in the sandbox's
//! home: each result names its store as its project, with its file and lines; the
//! filters apply; private text is never found; the index follows their changes on each
//! run and through `mbank watch`; `search_memory` answers the same.
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common::{Sandbox, poll_until, rewrite_keeping_size_and_modification_time, write};

/// A root with one project, and the three home stores in the sandbox's home.
fn setup(sandbox: &Sandbox) -> PathBuf {
    let home = sandbox.home();
    let root = home.join("banks");
    write(
        &root.join("shop/CLAUDE.md"),
        "# Shop\n\n## Deploys\nDeployed with Nomad from CI.\n",
    );
    write_stores(home);
    root
}

fn write_stores(home: &Path) {
    let codex = home.join(".codex/memories");
    write(
        &codex.join("memory_summary.md"),
        "# Summary\nThe user prefers Nomad over Kubernetes.\n",
    );
    write(
        &codex.join("MEMORY.md"),
        "# Tooling\n\n## Builds\nCross-compile with cargo-zigbuild.\n\n<private>\nThe signing passphrase is kept in pass.\n</private>\n",
    );
    write(
        &home.join(".gemini/GEMINI.md"),
        "## Gemini Added Memories\n- Prefers tabs over spaces.\n",
    );
    write(
        &home.join(".claude/CLAUDE.md"),
        "# Preferences\nAnswer in British English.\n",
    );
}

fn search(sandbox: &Sandbox, root: &Path, args: &[&str]) -> Value {
    let mut all = vec!["--root", root.to_str().unwrap(), "search", "--json"];
    all.extend_from_slice(args);
    let run = sandbox.run(&all);
    assert!(run.code == 0 || run.code == 1, "{run:?}");
    run.json()
}

fn places(found: &Value) -> Vec<String> {
    found["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            format!(
                "{} {}:{}",
                r["project"].as_str().unwrap(),
                r["display"].as_str().unwrap(),
                r["start_line"]
            )
        })
        .collect()
}

#[test]
fn home_stores_are_found_named_by_store_with_file_and_lines() {
    let sandbox = Sandbox::new();
    let root = setup(&sandbox);
    let found = search(&sandbox, &root, &["zigbuild"]);
    let first = &found["results"][0];
    assert_eq!(first["project"], "Codex memories (~/.codex/memories)");
    assert_eq!(
        first["project_path"],
        sandbox.home().join(".codex/memories").to_str().unwrap()
    );
    assert_eq!(first["display"], "~/.codex/memories/MEMORY.md");
    assert_eq!(first["format"], "codex-memories");
    assert_eq!(first["headings"], json!(["Tooling", "Builds"]));
    assert_eq!(
        (first["start_line"].as_u64(), first["end_line"].as_u64()),
        (Some(3), Some(7))
    );
    assert_eq!(first["home_store"], true);
    // Over both: the project's result and the store's, each named.
    let nomad = places(&search(&sandbox, &root, &["nomad"]));
    assert_eq!(nomad.len(), 2, "{nomad:?}");
    assert!(nomad.contains(&"shop CLAUDE.md:3".to_string()), "{nomad:?}");
    assert!(
        nomad.contains(
            &"Codex memories (~/.codex/memories) ~/.codex/memories/memory_summary.md:1".to_string()
        ),
        "{nomad:?}"
    );
    let project_hit = search(&sandbox, &root, &["deployed"]);
    assert!(
        project_hit["results"][0].get("home_store").is_none(),
        "{project_hit}"
    );
    assert_eq!(
        places(&search(&sandbox, &root, &["tabs"])),
        ["Gemini CLI memory (~/.gemini/GEMINI.md) ~/.gemini/GEMINI.md:1"]
    );
    assert_eq!(
        places(&search(&sandbox, &root, &["british"])),
        ["Claude Code user memory (~/.claude/CLAUDE.md) ~/.claude/CLAUDE.md:1"]
    );
    // Printed, the store's name leads its results as a project's does.
    let run = sandbox.run(&["--root", root.to_str().unwrap(), "search", "zigbuild"]);
    run.expect_code(0);
    assert!(
        run.stdout
            .contains("Codex memories (~/.codex/memories) ~/.codex/memories/MEMORY.md:3-7"),
        "{}",
        run.stdout
    );
}

#[test]
fn private_text_of_a_home_store_is_never_found() {
    let sandbox = Sandbox::new();
    let root = setup(&sandbox);
    let none = sandbox.run(&["--root", root.to_str().unwrap(), "search", "passphrase"]);
    none.expect_code(1);
    let found = search(&sandbox, &root, &["zigbuild"]);
    let text = found["results"][0]["snippet"]["text"].as_str().unwrap();
    assert!(!text.contains("passphrase"), "{text}");
    // A whole file marked private is left out.
    write(
        &sandbox.home().join(".claude/CLAUDE.md"),
        "---\nprivate: true\n---\n# Preferences\nAnswer in British English.\n",
    );
    sandbox
        .run(&["--root", root.to_str().unwrap(), "search", "british"])
        .expect_code(1);
}

#[test]
fn project_agent_and_format_filters_apply_to_home_stores() {
    let sandbox = Sandbox::new();
    let root = setup(&sandbox);
    let codex = "Codex memories (~/.codex/memories) ~/.codex/memories/memory_summary.md:1";
    for name in [
        "Codex memories (~/.codex/memories)",
        "Codex memories",
        "~/.codex/memories",
    ] {
        assert_eq!(
            places(&search(&sandbox, &root, &["nomad", "--project", name])),
            [codex],
            "--project {name}"
        );
    }
    assert_eq!(
        places(&search(&sandbox, &root, &["nomad", "--project", "shop"])),
        ["shop CLAUDE.md:3"]
    );
    assert_eq!(
        places(&search(
            &sandbox,
            &root,
            &["nomad", "--format", "codex-memories"]
        )),
        [codex]
    );
    assert_eq!(
        places(&search(
            &sandbox,
            &root,
            &["nomad", "--format", "claude-md"]
        )),
        ["shop CLAUDE.md:3"]
    );
    // Codex loads its memory summary at session start, not the rest of its notes.
    assert_eq!(
        places(&search(
            &sandbox,
            &root,
            &["nomad zigbuild", "--agent", "codex"]
        )),
        [codex]
    );
    assert_eq!(
        places(&search(
            &sandbox,
            &root,
            &["british", "--agent", "claude-code"]
        )),
        ["Claude Code user memory (~/.claude/CLAUDE.md) ~/.claude/CLAUDE.md:1"]
    );
    assert!(places(&search(&sandbox, &root, &["british", "--agent", "gemini"])).is_empty());
    let unknown = sandbox.run(&[
        "--root",
        root.to_str().unwrap(),
        "search",
        "nomad",
        "--project",
        "Cursor memories",
    ]);
    unknown.expect_code(2);
    assert!(
        unknown
            .stderr
            .contains("Codex memories, Gemini CLI memory, Claude Code user memory"),
        "{}",
        unknown.stderr
    );
}

#[test]
fn the_index_follows_a_home_store_on_each_run_and_reads_it_alone() {
    let sandbox = Sandbox::new();
    let root = setup(&sandbox);
    assert_eq!(
        search(&sandbox, &root, &["nomad"])["results"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let unchanged = search(&sandbox, &root, &["nomad"]);
    assert_eq!(unchanged["indexed"]["projects_read"], 0, "{unchanged}");
    // Same size, same modification time: the change time tells.
    rewrite_keeping_size_and_modification_time(
        &sandbox.home().join(".codex/memories/memory_summary.md"),
        "# Summary\nThe user prefers Swarm over Kubernetes.\n",
    );
    let found = search(&sandbox, &root, &["swarm"]);
    assert_eq!(found["indexed"]["projects_read"], 1, "{found}");
    assert_eq!(
        places(&found),
        ["Codex memories (~/.codex/memories) ~/.codex/memories/memory_summary.md:1"]
    );
    assert_eq!(
        places(&search(&sandbox, &root, &["nomad"])),
        ["shop CLAUDE.md:3"]
    );
    // A store removed is no longer found.
    std::fs::remove_dir_all(sandbox.home().join(".codex")).unwrap();
    assert!(places(&search(&sandbox, &root, &["swarm"])).is_empty());
}

/// `mbank watch` keeps a home store in the index current as it does a project.
#[test]
fn the_watch_keeps_home_stores_in_the_index_current() {
    let sandbox = Sandbox::new();
    let root = setup(&sandbox);
    let watch = crate::journal::Watch::start(&sandbox, &root);
    write(
        &sandbox.home().join(".codex/memories/MEMORY.md"),
        "# Tooling\nThe heliograph relay signs releases.\n",
    );
    poll_until(
        crate::journal::WAIT,
        "the watch writing the index's changes",
        || {
            std::fs::read_dir(sandbox.cache_dir())
                .ok()?
                .flatten()
                .any(|e| e.file_name().to_string_lossy().ends_with("-changes.bin"))
                .then_some(())
        },
    );
    let found = search(&sandbox, &root, &["heliograph"]);
    assert_eq!(found["indexed"]["projects_read"], 0, "{found}");
    assert_eq!(
        found["results"][0]["display"],
        "~/.codex/memories/MEMORY.md"
    );
    let (code, _) = watch.terminate();
    assert_eq!(code, 0);
}

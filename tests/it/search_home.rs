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

/// The agents' other user-level files, each with "hyperspace" in it, and beside them
/// files that are no memory: Claude Code's user rules (a sub-folder's too), Codex's
/// global instructions, opencode's user rules, a Gemini CLI extension's context file and
/// Beans-Code's global memory and an auto-saved memory.
fn write_user_level_files(home: &Path) {
    write(
        &home.join(".claude/rules/style.md"),
        "# Style\nIndent hyperspace tables with tabs.\n",
    );
    write(
        &home.join(".claude/rules/lang/rust.md"),
        "# Rust\nPrefer hyperspace iterators.\n",
    );
    write(
        &home.join(".claude/rules/lang/notes.txt"),
        "hyperspace notes, no rule\n",
    );
    write(
        &home.join(".codex/AGENTS.md"),
        "# Global\nRun the hyperspace checks before every commit.\n",
    );
    write(&home.join(".codex/config.toml"), "# hyperspace = true\n");
    write(
        &home.join(".config/opencode/AGENTS.md"),
        "# opencode\nLog hyperspace jumps.\n",
    );
    write(
        &home.join(".config/opencode/opencode.json"),
        "{\"hyperspace\": 1}",
    );
    let jira = home.join(".gemini/extensions/jira");
    write(
        &jira.join("gemini-extension.json"),
        r#"{"name":"jira","contextFileName":"JIRA.md","hyperspace":true}"#,
    );
    write(&jira.join("JIRA.md"), "# Jira\nFile hyperspace tickets.\n");
    write(
        &jira.join("README.md"),
        "# Jira\nhyperspace readme, not named\n",
    );
    write(
        &home.join(".beans/BEANS.md"),
        "# Beans\nKeep hyperspace notes short.\n",
    );
    write(&home.join(".beans/settings.json"), "{\"hyperspace\": 1}");
    write(
        &home.join(".beans/memories/db.md"),
        "The hyperspace database listens on 5432.\n",
    );
}

const CLAUDE_RULES: [&str; 2] = [
    "Claude Code user rules (~/.claude/rules) ~/.claude/rules/lang/rust.md:1",
    "Claude Code user rules (~/.claude/rules) ~/.claude/rules/style.md:1",
];
const CODEX_GLOBAL: &str = "Codex global instructions (~/.codex) ~/.codex/AGENTS.md:1";
const OPENCODE: &str =
    "opencode user rules (~/.config/opencode/AGENTS.md) ~/.config/opencode/AGENTS.md:1";
const GEMINI_EXTENSION: &str =
    "Gemini CLI extension context (~/.gemini/extensions) ~/.gemini/extensions/jira/JIRA.md:1";
const BEANS: [&str; 2] = [
    "Beans-Code auto-saved memories (~/.beans/memories) ~/.beans/memories/db.md:1",
    "Beans-Code global memory (~/.beans) ~/.beans/BEANS.md:1",
];

fn sorted(mut places: Vec<String>) -> Vec<String> {
    places.sort();
    places
}

#[test]
fn the_agents_user_level_files_are_found_each_under_its_store_and_agent() {
    let sandbox = Sandbox::new();
    let root = setup(&sandbox);
    write_user_level_files(sandbox.home());
    let mut everything: Vec<String> = CLAUDE_RULES.iter().map(|s| s.to_string()).collect();
    everything.extend([CODEX_GLOBAL, OPENCODE, GEMINI_EXTENSION].map(String::from));
    everything.extend(BEANS.map(String::from));
    assert_eq!(
        sorted(places(&search(&sandbox, &root, &["hyperspace"]))),
        sorted(everything)
    );
    let found = search(&sandbox, &root, &["hyperspace", "--project", "~/.codex"]);
    assert_eq!(found["results"][0]["format"], "agents-md");
    assert_eq!(found["results"][0]["home_store"], true);
    // Each agent finds the files it loads from the home folder, and no other agent's.
    let by_agent = |agent: &str| {
        sorted(places(&search(
            &sandbox,
            &root,
            &["hyperspace", "--agent", agent],
        )))
    };
    assert_eq!(by_agent("claude-code"), CLAUDE_RULES);
    assert_eq!(by_agent("codex"), [CODEX_GLOBAL]);
    assert_eq!(by_agent("opencode"), [OPENCODE]);
    assert_eq!(by_agent("gemini"), [GEMINI_EXTENSION]);
    assert!(by_agent("cursor").is_empty());
    // A store by its name alone, its place or its format.
    assert_eq!(
        sorted(places(&search(
            &sandbox,
            &root,
            &["hyperspace", "--project", "Claude Code user rules"]
        ))),
        CLAUDE_RULES
    );
    assert_eq!(
        places(&search(
            &sandbox,
            &root,
            &["hyperspace", "--project", "~/.gemini/extensions"]
        )),
        [GEMINI_EXTENSION]
    );
    assert_eq!(
        places(&search(
            &sandbox,
            &root,
            &["hyperspace", "--format", "opencode"]
        )),
        [OPENCODE]
    );
    assert_eq!(
        sorted(places(&search(
            &sandbox,
            &root,
            &["hyperspace", "--format", "beans-md"]
        ))),
        BEANS
    );
    // An override beside Codex's AGENTS.md is found too, and takes Codex's load from it.
    write(
        &sandbox.home().join(".codex/AGENTS.override.md"),
        "# Override\nSkip the hyperspace checks this week.\n",
    );
    assert_eq!(
        by_agent("codex"),
        ["Codex global instructions (~/.codex) ~/.codex/AGENTS.override.md:1"]
    );
    assert_eq!(
        places(&search(
            &sandbox,
            &root,
            &["hyperspace", "--project", "~/.codex"]
        ))
        .len(),
        2
    );
}

/// `mbank watch` records the user-level files as they appear and change: a new rule in a
/// new sub-folder of `~/.claude/rules`, Codex's global AGENTS.md written beside its
/// settings; what else their folders hold is never recorded.
#[test]
fn the_watch_records_the_agents_user_level_files_as_they_appear() {
    let sandbox = Sandbox::new();
    let root = setup(&sandbox);
    write_user_level_files(sandbox.home());
    let home = sandbox.home().to_path_buf();
    let watch = crate::journal::Watch::start(&sandbox, &root);
    let rule = home.join(".claude/rules/team/review.md");
    write(&rule, "# Review\nAsk for two approvals.\n");
    let settings = home.join(".codex/config.toml");
    write(&settings, "model = \"o3\"\n");
    let codex = home.join(".codex/AGENTS.md");
    write(&codex, "# Global\nRun the checks before every push.\n");
    let writers = |file: &Path| -> Option<Vec<String>> {
        let run = sandbox.run(&["history", file.to_str().unwrap(), "--json"]);
        if run.code != 0 {
            return None;
        }
        let versions: Vec<String> = run.json()["versions"]
            .as_array()?
            .iter()
            .map(|v| v["writer"].as_str().unwrap_or_default().to_string())
            .collect();
        (versions.len() >= 2 || file == rule && !versions.is_empty()).then_some(versions)
    };
    let recorded = poll_until(crate::journal::WAIT, "the new rule recorded", || {
        writers(&rule)
    });
    assert_eq!(recorded, ["on disk (Claude Code user rules)"]);
    let recorded = poll_until(crate::journal::WAIT, "Codex's AGENTS.md recorded", || {
        writers(&codex)
    });
    assert!(
        recorded
            .iter()
            .all(|w| w == "on disk (Codex global instructions)"),
        "{recorded:?}"
    );
    let (code, log) = watch.terminate();
    assert_eq!(code, 0, "{log}");
    let history = sandbox.run(&["history", settings.to_str().unwrap(), "--json"]);
    let never = history.code != 0
        || history.json()["versions"]
            .as_array()
            .is_none_or(|v| v.is_empty());
    assert!(never, "{}", history.stdout);
}

/// A store `[journal] leave_out` knows is one a person can find the id of.
#[test]
fn the_configuration_and_the_guide_name_every_home_store_id() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for doc in ["docs/CONFIGURATION.md", "docs/GUIDE.md"] {
        let text = std::fs::read_to_string(root.join(doc)).unwrap();
        for id in mbank::core::journal::scope::home_store_ids() {
            assert!(text.contains(id), "{doc} does not name {id}");
        }
    }
}

/// Codex loads its global instructions whole: `mbank changes` puts no line of them past
/// the 32 KiB its project files stop at, as it does a project's AGENTS.md.
#[test]
fn codex_global_instructions_are_never_past_the_project_files_cut() {
    let sandbox = Sandbox::new();
    let root = setup(&sandbox);
    let long: String = (0..2_000)
        .map(|n| format!("- Rule {n}: keep the build green.\n"))
        .collect();
    assert!(long.len() > 40 * 1024);
    let global = sandbox.home().join(".codex/AGENTS.md");
    let project = root.join("shop/AGENTS.md");
    let changes = || sandbox.run(&["changes", "--json", "--root", root.to_str().unwrap()]);
    // Recorded short first, then grown past 32 KiB.
    write(&global, "# Global\n");
    write(&project, "# Shop\n");
    changes().expect_code(0);
    write(&global, &format!("# Global\n{long}"));
    write(&project, &format!("# Shop\n{long}"));
    let run = changes();
    run.expect_code(0);
    let json = run.json();
    let change = |path: &Path| -> Value {
        json["changes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["path"] == path.to_str().unwrap())
            .cloned()
            .unwrap_or_else(|| panic!("{} not among {json:#}", path.display()))
    };
    assert_eq!(change(&global)["store"], "Codex global instructions");
    assert!(change(&global).get("past_cut").is_none(), "{json:#}");
    assert!(change(&project).get("past_cut").is_some(), "{json:#}");
}

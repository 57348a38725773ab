//! What an agent loads beyond the project's own bank files, as `mbank context` shows it:
//! Codex's AGENTS.md chain (override per folder, empty files, the 32 KiB cut-off), the
//! user-level layer under a temporary HOME (`--no-user`), and Claude Code's import limits.
use crate::common;

use std::path::Path;

use common::context::{bank, displays};
use common::{Sandbox, write};
use serde_json::Value;

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn codes(list: &Value) -> Vec<&str> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect()
}

// ---------------------------------------------------------------- Codex

#[test]
fn codex_reads_the_override_of_a_folder_skips_empty_files_and_cuts_at_32_kib() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("app");
    // The top folder: an override beside AGENTS.md takes its place.
    write(&p.join("AGENTS.md"), "# Shared\nNEVER-LOADED\n");
    write(
        &p.join("AGENTS.override.md"),
        "# Override\nuse the override\n",
    );
    // A sub-folder's files load only when Codex starts there.
    write(&p.join("api/AGENTS.md"), "# API\n");
    // User level: an empty override is passed over for the first non-empty file.
    write(&sandbox.home().join(".codex/AGENTS.override.md"), "\n  \n");
    write(&sandbox.home().join(".codex/AGENTS.md"), "# Mine\n");

    let run = sandbox.run(&["context", s(&p), "--json"]);
    run.expect_code(0);
    let json = run.json();
    let codex = bank(&json, "agents-md");
    assert_eq!(
        displays(codex),
        vec!["~/.codex/AGENTS.md", "AGENTS.override.md"]
    );
    assert_eq!(codex["pieces"][0]["scope"], "user");
    assert_eq!(codex["pieces"][1]["scope"], "project");
    let skipped = &codex["skipped"][0];
    assert!(skipped["file"].as_str().unwrap().ends_with("app/AGENTS.md"));
    assert!(
        skipped["reason"]
            .as_str()
            .unwrap()
            .contains("AGENTS.override.md in the same folder takes its place"),
        "{skipped}"
    );
    // Codex never loads it; Claude Code and Kilo Code, which know no override, do.
    assert!(!codex.to_string().contains("NEVER-LOADED"), "{codex:#}");

    // An empty override still holds its folder: nothing loads from it, AGENTS.md neither.
    write(&p.join("AGENTS.override.md"), "   \n");
    let run = sandbox.run(&["context", s(&p), "--json", "--no-user"]);
    let json = run.json();
    let codex = bank(&json, "agents-md");
    assert!(displays(codex).is_empty(), "{codex:#}");
    let reasons: Vec<&str> = codex["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["reason"].as_str().unwrap())
        .collect();
    assert!(
        reasons
            .iter()
            .any(|r| r.contains("Codex skips empty files"))
    );
    assert!(reasons.iter().any(|r| r.contains("takes its place")));
}

#[test]
fn codex_cut_off_is_a_finding_naming_the_file_and_the_place() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("big");
    // 400 lines of 100 bytes: 40,000 bytes, 7,232 past the 32 KiB budget.
    let line = "x".repeat(99) + "\n";
    write(&p.join("AGENTS.md"), &line.repeat(400));

    let run = sandbox.run(&["context", s(&p), "--json"]);
    run.expect_code(0);
    let json = run.json();
    let codex = bank(&json, "agents-md");
    assert_eq!(codex["pieces"][0]["bytes"], 32 * 1024);
    let cut = &codex["cutoffs"][0];
    assert_eq!(cut["kept_bytes"], 32_768);
    assert_eq!(cut["dropped_bytes"], 40_000 - 32_768);
    assert_eq!(codes(&codex["findings"]), vec!["codex-cutoff"]);
    let finding = &codex["findings"][0];
    // Byte 32,768 falls in line 328 (327 whole lines are 32,700 bytes).
    assert_eq!(finding["line"], 328);
    let message = finding["message"].as_str().unwrap();
    assert!(
        message.contains("AGENTS.md is cut in line 328"),
        "{message}"
    );
    assert!(message.contains("7232 bytes dropped"), "{message}");

    let text = sandbox.run(&["context", s(&p)]);
    assert!(
        text.stdout
            .contains("Codex stops AGENTS.md files at 32 KiB")
    );
}

// ---------------------------------------------------------------- user layer

#[test]
fn the_user_layer_loads_first_marked_user_level_and_no_user_leaves_it_out() {
    let sandbox = Sandbox::new();
    let home = sandbox.home();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("app");
    write(&p.join("CLAUDE.md"), "# Project\n");
    write(&p.join("GEMINI.md"), "# Gemini project\n");
    write(&home.join(".claude/CLAUDE.md"), "# My Claude habits\n");
    write(
        &home.join(".claude/rules/style.md"),
        "# Style\nshort names\n",
    );
    write(
        &home.join(".claude/rules/scoped.md"),
        "---\npaths: src/**\n---\n# Only for src\n",
    );
    write(&home.join(".gemini/GEMINI.md"), "# My Gemini habits\n");

    let run = sandbox.run(&["context", s(&p), "--json"]);
    run.expect_code(0);
    let json = run.json();
    assert_eq!(json["user_layer"], true);
    let claude = bank(&json, "claude-md");
    assert_eq!(
        displays(claude),
        vec![
            "~/.claude/CLAUDE.md",
            "~/.claude/rules/style.md",
            "CLAUDE.md"
        ]
    );
    let scopes: Vec<&str> = claude["pieces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["scope"].as_str().unwrap())
        .collect();
    assert_eq!(scopes, vec!["user", "user", "project"]);
    let gemini = bank(&json, "gemini-md");
    assert_eq!(displays(gemini), vec!["~/.gemini/GEMINI.md", "GEMINI.md"]);

    let text = sandbox.run(&["context", s(&p)]);
    assert!(
        text.stdout
            .contains("──── ~/.claude/CLAUDE.md [user-level] · "),
        "{}",
        text.stdout
    );
    assert!(text.stdout.contains("My Gemini habits"));

    let without = sandbox.run(&["context", s(&p), "--json", "--no-user"]);
    without.expect_code(0);
    let json = without.json();
    assert_eq!(json["user_layer"], false);
    assert_eq!(displays(bank(&json, "claude-md")), vec!["CLAUDE.md"]);
    assert_eq!(displays(bank(&json, "gemini-md")), vec!["GEMINI.md"]);
    let text = sandbox.run(&["context", s(&p), "--no-user"]);
    assert!(!text.stdout.contains("user-level"), "{}", text.stdout);
    assert!(!text.stdout.contains("habits"));
}

// ---------------------------------------------------------------- Claude imports

#[test]
fn claude_follows_four_import_hops_and_names_the_chain_beyond() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("app");
    write(&p.join("CLAUDE.md"), "# Top\n@h1.md\n");
    for n in 1..=5 {
        write(
            &p.join(format!("h{n}.md")),
            &format!("# Hop {n}\n@h{}.md\n", n + 1),
        );
    }
    write(&p.join("h6.md"), "# Hop 6\n");

    let run = sandbox.run(&["context", s(&p), "--json", "--no-user"]);
    run.expect_code(0);
    let json = run.json();
    let claude = bank(&json, "claude-md");
    assert_eq!(
        displays(claude),
        vec!["CLAUDE.md", "h1.md", "h2.md", "h3.md", "h4.md"]
    );
    let deep = claude["import_findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "import-too-deep")
        .unwrap();
    let message = deep["message"].as_str().unwrap();
    assert!(
        message.contains("CLAUDE.md → h1.md → h2.md → h3.md → h4.md → h5.md"),
        "{message}"
    );
    assert!(message.contains("limit of 4"), "{message}");
}

#[test]
fn an_agents_md_bridge_in_claude_md_is_noted_as_not_expanded_from_sub_folders() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("app");
    write(&p.join("CLAUDE.md"), "# Claude\n@AGENTS.md\n");
    write(&p.join("AGENTS.md"), "# Shared rules\n");

    let run = sandbox.run(&["context", s(&p), "--json", "--no-user"]);
    run.expect_code(0);
    let json = run.json();
    let claude = bank(&json, "claude-md");
    assert_eq!(displays(claude), vec!["CLAUDE.md", "AGENTS.md"]);
    let note = claude["import_findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "import-not-expanded-in-subfolders")
        .unwrap_or_else(|| panic!("{claude:#}"));
    assert_eq!(note["severity"], "info");
    assert_eq!(note["line"], 2);
    assert!(
        note["message"]
            .as_str()
            .unwrap()
            .contains("as an ancestor without expanding its imports")
    );

    // Without the bridge there is nothing to say.
    write(&p.join("CLAUDE.md"), "# Claude\n");
    let json = sandbox
        .run(&["context", s(&p), "--json", "--no-user"])
        .json();
    assert!(
        codes(&bank(&json, "claude-md")["import_findings"]).is_empty(),
        "{json:#}"
    );
}

// ---------------------------------------------------------------- Claude Code auto memory

/// Claude Code's folder name for a path: every character that is not an ASCII letter or
/// digit becomes `-` (written out here, not taken from mbank).
fn claude_folder_name(path: &Path) -> String {
    s(path)
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

fn auto_memory_fixture(sandbox: &Sandbox, project: &Path) -> std::path::PathBuf {
    let memory = sandbox
        .home()
        .join(".claude/projects")
        .join(claude_folder_name(project))
        .join("memory");
    let index: String = (1..=250).map(|n| format!("- note {n}\n")).collect();
    write(&memory.join("MEMORY.md"), &index);
    write(
        &memory.join("debugging.md"),
        "# Debugging\nrun with RUST_LOG\n",
    );
    memory
}

#[test]
fn auto_memory_shows_under_its_project_cut_at_200_lines_with_topics_on_demand() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("work");
    // Underscore and dot: both become '-' in Claude Code's folder name.
    let p = root.join("my_app.v2");
    write(&p.join("CLAUDE.md"), "# App\n");
    let memory = auto_memory_fixture(&sandbox, &p);
    let index_text = std::fs::read_to_string(memory.join("MEMORY.md")).unwrap();

    let list = sandbox.run(&["list", "--json", "--root", s(&root)]);
    list.expect_code(0);
    let json = list.json();
    let project = &json["projects"][0];
    assert_eq!(project["name"], "my_app.v2");
    assert_eq!(
        project["formats"],
        serde_json::json!(["claude-md", "claude-auto-memory"])
    );

    let run = sandbox.run(&["context", s(&p), "--json"]);
    run.expect_code(0);
    let json = run.json();
    let auto = bank(&json, "claude-auto-memory");
    assert_eq!(auto["root"], s(&memory));
    let folder = claude_folder_name(&p);
    assert!(folder.ends_with("-work-my-app-v2"), "{folder}");
    assert_eq!(
        displays(auto),
        vec![format!("~/.claude/projects/{folder}/memory/MEMORY.md").as_str()]
    );
    let piece = &auto["pieces"][0];
    assert_eq!(piece["scope"], "user");
    assert_eq!(piece["lines"], 200);
    let cut = &auto["cutoffs"][0];
    assert_eq!(
        (cut["kept_lines"].as_u64(), cut["dropped_lines"].as_u64()),
        (Some(200), Some(50))
    );
    assert_eq!(
        cut["dropped_bytes"].as_u64().unwrap() + cut["kept_bytes"].as_u64().unwrap(),
        index_text.len() as u64
    );
    let notes = auto["notes"].as_array().unwrap();
    assert!(
        notes.iter().any(|n| n
            .as_str()
            .unwrap()
            .contains("1 topic file(s) are read on demand")),
        "{notes:?}"
    );
    assert!(!run.stdout.contains("RUST_LOG"));

    // The check judges the index by Claude Code's cut-off.
    let check = sandbox.run(&["check", s(&p), "--json"]);
    assert!(
        check
            .stdout
            .contains("auto memory loads only the first 200 lines"),
        "{}",
        check.stdout
    );
}

#[test]
fn a_folder_whose_only_memory_is_its_auto_memory_is_a_project_and_hides_none_below_it() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("work");
    // No bank in the folder itself: only the notes Claude Code keeps for it.
    let notes_only = root.join("scratch");
    std::fs::create_dir_all(notes_only.join("src")).unwrap();
    auto_memory_fixture(&sandbox, &notes_only);
    // Claude Code was started in the root too; the projects below it stay projects.
    auto_memory_fixture(&sandbox, &root);
    write(&root.join("app/CLAUDE.md"), "# App\n");
    // A folder Claude Code never saw is no project.
    std::fs::create_dir_all(root.join("plain")).unwrap();

    let list = sandbox.run(&["list", "--json", "--root", s(&root)]);
    list.expect_code(0);
    let json = list.json();
    let formats_of = |name: &str| {
        json["projects"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .map(|p| p["formats"].clone())
            .unwrap_or_else(|| panic!("no project {name} in {json:#}"))
    };
    assert_eq!(
        formats_of("scratch"),
        serde_json::json!(["claude-auto-memory"])
    );
    assert_eq!(
        formats_of("work"),
        serde_json::json!(["claude-auto-memory"])
    );
    assert_eq!(formats_of("app"), serde_json::json!(["claude-md"]));
    assert_eq!(json["projects"].as_array().unwrap().len(), 3, "{json:#}");

    // Without a home folder's auto memory the same root holds one project.
    let other = Sandbox::new();
    let list = other.run(&["list", "--json", "--root", s(&root)]);
    assert_eq!(list.json()["projects"].as_array().unwrap().len(), 1);
}

#[test]
fn a_memory_md_in_a_project_bank_is_not_judged_as_auto_memory() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("app");
    let long: String = (1..=250).map(|n| format!("- item {n}\n")).collect();
    write(&p.join(".claude/memory/MEMORY.md"), &long);
    write(&p.join(".claude/memory/active-context.md"), "# Active\n");

    let check = sandbox.run(&["check", s(&p), "--json"]);
    assert!(!check.stdout.contains("auto memory"), "{}", check.stdout);
    let json = sandbox.run(&["context", s(&p), "--json"]).json();
    let keeper = bank(&json, "conkeeper");
    assert!(
        keeper["cutoffs"].as_array().unwrap().is_empty(),
        "{keeper:#}"
    );
}

#[cfg(unix)]
#[test]
fn auto_memory_links_out_of_the_home_folder_are_refused() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("app");
    write(&p.join("CLAUDE.md"), "# App\n");
    write(&dir.path().join("elsewhere/secret.md"), "OUTSIDE-HOME\n");
    let memory = auto_memory_fixture(&sandbox, &p);
    std::fs::remove_file(memory.join("MEMORY.md")).unwrap();
    std::os::unix::fs::symlink(
        dir.path().join("elsewhere/secret.md"),
        memory.join("MEMORY.md"),
    )
    .unwrap();

    let run = sandbox.run(&["context", s(&p), "--json"]);
    run.expect_code(0);
    assert!(!run.stdout.contains("OUTSIDE-HOME"), "{}", run.stdout);
    let json = run.json();
    let auto = bank(&json, "claude-auto-memory");
    assert!(displays(auto).is_empty(), "{auto:#}");
    assert_eq!(codes(&auto["findings"]), vec!["symlink-outside"]);
}

// ---------------------------------------------------------------- names in another case

#[test]
fn an_instruction_file_named_in_another_case_is_found_and_said_to_be_missed() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("app");
    write(&p.join("agents.md"), "# Agents\nMISSED-ON-LINUX\n");
    write(&p.join("Claude.md"), "# Claude\n");

    let check = sandbox.run(&["check", s(&p), "--json"]);
    check.expect_code(0);
    let check = check.json();
    let messages: Vec<&str> = check["projects"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "instructions-misnamed")
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert_eq!(messages.len(), 2, "{check:#}");
    assert!(
        messages.iter().any(|m| m
            .starts_with("agents.md is never read where file names are case-sensitive")
            && m.ends_with("Codex looks for AGENTS.md by that exact name; rename it to AGENTS.md")),
        "{messages:?}"
    );
    assert!(
        messages
            .iter()
            .any(|m| m.contains("Claude Code looks for CLAUDE.md")),
        "{messages:?}"
    );
    // Nothing of it is counted as loaded at session start.
    let context = sandbox.run(&["context", s(&p), "--json", "--no-user"]);
    assert!(!context.stdout.contains("MISSED-ON-LINUX"));
}

// ---------------------------------------------------------------- private `.local.md` files

#[test]
fn agents_local_md_is_never_loaded_and_says_why_while_claude_local_md_loads() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("app");
    write(&p.join("AGENTS.md"), "# Shared\n");
    write(
        &p.join("AGENTS.local.md"),
        "# Mine\nCODEX-NEVER-SEES-THIS\n",
    );
    write(&p.join("GEMINI.md"), "# Gemini\n");
    write(
        &p.join("GEMINI.local.md"),
        "# Mine\nGEMINI-NEVER-SEES-THIS\n",
    );
    write(&p.join("CLAUDE.md"), "# Claude\n");
    write(&p.join("CLAUDE.local.md"), "# Mine\nCLAUDE-LOCAL-LOADS\n");

    let run = sandbox.run(&["context", s(&p), "--json", "--no-user"]);
    run.expect_code(0);
    let json = run.json();
    assert_eq!(displays(bank(&json, "agents-md")), vec!["AGENTS.md"]);
    assert_eq!(displays(bank(&json, "gemini-md")), vec!["GEMINI.md"]);
    assert_eq!(
        displays(bank(&json, "claude-md")),
        vec!["CLAUDE.md", "CLAUDE.local.md"]
    );
    assert!(!run.stdout.contains("NEVER-SEES-THIS"));

    let check = sandbox.run(&["check", s(&p), "--json"]);
    let check = check.json();
    let messages: Vec<&str> = check["projects"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "local-file-not-loaded")
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert_eq!(messages.len(), 2, "{check:#}");
    assert!(
        messages.iter().any(|m| m.starts_with(
            "AGENTS.local.md is never loaded: Codex reads AGENTS.override.md and AGENTS.md only"
        )),
        "{messages:?}"
    );
    assert!(
        messages
            .iter()
            .any(|m| m.contains("Gemini CLI reads GEMINI.md only")),
        "{messages:?}"
    );

    let tokens = sandbox.run(&["tokens", s(&p), "--json"]).json();
    let codex = tokens["banks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["format"] == "agents-md")
        .unwrap();
    let local = codex["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["display"] == "AGENTS.local.md")
        .expect("AGENTS.local.md is listed");
    assert_eq!(local["load"], "never");
    assert_eq!(codex["loaded_tokens"], codex["files"][0]["loaded_tokens"]);
}

// ---------------------------------------------------------------- folders above the project

#[test]
fn gemini_reads_the_gemini_md_of_the_folders_above_up_to_the_project_root() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("outside");
    let repo = outside.join("repo");
    let p = repo.join("packages/web");
    // Above the repository's top: not read (the project root ends the walk).
    write(&outside.join("GEMINI.md"), "# OUTSIDE-THE-REPO\n");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    write(&repo.join("GEMINI.md"), "# Repo-wide\n");
    write(&repo.join("packages/GEMINI.md"), "# Packages\n");
    write(&p.join("GEMINI.md"), "# Web\n");

    let run = sandbox.run(&["context", s(&p), "--json", "--no-user"]);
    run.expect_code(0);
    let json = run.json();
    let gemini = bank(&json, "gemini-md");
    assert_eq!(
        displays(gemini),
        vec!["../../GEMINI.md", "../GEMINI.md", "GEMINI.md"]
    );
    assert!(!run.stdout.contains("OUTSIDE-THE-REPO"), "{}", run.stdout);

    // At the repository's top there is nothing above to inherit; Gemini CLI's discovery
    // reads the sub-folders' GEMINI.md below it at start.
    let top = sandbox
        .run(&["context", s(&repo), "--json", "--no-user"])
        .json();
    assert_eq!(
        displays(bank(&top, "gemini-md")),
        vec!["GEMINI.md", "packages/GEMINI.md", "packages/web/GEMINI.md"]
    );
}

#[test]
fn instruction_files_of_the_folders_above_load_as_ancestors_up_to_home() {
    let sandbox = Sandbox::new();
    let home = sandbox.home();
    let work = home.join("work");
    let p = work.join("app");
    // The home folder's own CLAUDE.md is not an ancestor file (the walk stops below HOME).
    write(&home.join("CLAUDE.md"), "# HOME-FOLDER-FILE\n");
    write(&home.join(".claude/CLAUDE.md"), "# My habits\n");
    write(
        &work.join("CLAUDE.md"),
        "# Team rules\n@imported.md\nANCESTOR-TEXT\n",
    );
    write(&work.join("imported.md"), "# NOT-EXPANDED\n");
    write(&work.join("CLAUDE.local.md"), "# Mine, above\n");
    write(&p.join("CLAUDE.md"), "# Project\n");
    // Codex: from the git root (work/) down to the project.
    std::fs::create_dir_all(work.join(".git")).unwrap();
    write(&work.join("AGENTS.md"), "# Repo-wide\n");
    write(&p.join("AGENTS.md"), "# App\n");

    let run = sandbox.run(&["context", s(&p), "--json"]);
    run.expect_code(0);
    let json = run.json();
    let claude = bank(&json, "claude-md");
    assert_eq!(
        displays(claude),
        vec![
            "~/.claude/CLAUDE.md",
            "../CLAUDE.md",
            "../CLAUDE.local.md",
            "CLAUDE.md"
        ]
    );
    let scopes: Vec<&str> = claude["pieces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["scope"].as_str().unwrap())
        .collect();
    assert_eq!(scopes, vec!["user", "ancestor", "ancestor", "project"]);
    assert!(run.stdout.contains("ANCESTOR-TEXT"));
    assert!(!run.stdout.contains("NOT-EXPANDED"), "{}", run.stdout);
    assert!(!run.stdout.contains("HOME-FOLDER-FILE"));
    let codex = bank(&json, "agents-md");
    assert_eq!(displays(codex), vec!["../AGENTS.md", "AGENTS.md"]);
    // Counted in the totals.
    let sum: u64 = claude["pieces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["tokens"].as_u64().unwrap())
        .sum();
    assert_eq!(claude["total_tokens"].as_u64(), Some(sum));

    // --no-user leaves out the user layer only.
    let without = sandbox
        .run(&["context", s(&p), "--json", "--no-user"])
        .json();
    assert_eq!(
        displays(bank(&without, "claude-md")),
        vec!["../CLAUDE.md", "../CLAUDE.local.md", "CLAUDE.md"]
    );
    let text = sandbox.run(&["context", s(&p), "--summary"]);
    assert!(
        text.stdout.contains("../CLAUDE.md [ancestor]"),
        "{}",
        text.stdout
    );
}

// ---------------------------------------------------------------- CODEX_HOME, autoMemoryDirectory

#[test]
fn codex_home_holds_codex_user_layer() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("app");
    write(&p.join("AGENTS.md"), "# App\n");
    write(
        &sandbox.home().join(".codex/AGENTS.md"),
        "# DEFAULT-CODEX-FOLDER\n",
    );
    let codex_home = dir.path().join("codex-config");
    write(&codex_home.join("AGENTS.md"), "# From CODEX_HOME\n");

    let run = sandbox.run_env(&["context", s(&p), "--json"], "CODEX_HOME", &codex_home);
    run.expect_code(0);
    let json = run.json();
    let codex = bank(&json, "agents-md");
    let shown = displays(codex);
    assert_eq!(shown.len(), 2, "{shown:?}");
    assert!(shown[0].ends_with("codex-config/AGENTS.md"), "{shown:?}");
    assert_eq!(codex["pieces"][0]["scope"], "user");
    assert!(!run.stdout.contains("DEFAULT-CODEX-FOLDER"));

    // Without CODEX_HOME: ~/.codex.
    let default = sandbox.run(&["context", s(&p), "--json"]).json();
    assert_eq!(
        displays(bank(&default, "agents-md")),
        vec!["~/.codex/AGENTS.md", "AGENTS.md"]
    );
}

#[test]
fn auto_memory_directory_setting_moves_auto_memory_and_broken_settings_are_a_finding() {
    let sandbox = Sandbox::new();
    let home = sandbox.home();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("app");
    write(&p.join("CLAUDE.md"), "# App\n");
    let default_place = home
        .join(".claude/projects")
        .join(claude_folder_name(&p))
        .join("memory");
    write(&default_place.join("MEMORY.md"), "- DEFAULT-PLACE\n");
    write(
        &home.join("notes/claude-memory/MEMORY.md"),
        "- kept where I said\n",
    );
    write(
        &home.join(".claude/settings.json"),
        r#"{"autoMemoryDirectory": "~/notes/claude-memory"}"#,
    );

    let run = sandbox.run(&["context", s(&p), "--json"]);
    run.expect_code(0);
    let json = run.json();
    let auto = bank(&json, "claude-auto-memory");
    assert_eq!(displays(auto), vec!["~/notes/claude-memory/MEMORY.md"]);
    assert!(run.stdout.contains("kept where I said"));
    assert!(!run.stdout.contains("DEFAULT-PLACE"));

    // Broken settings: the default place, and a finding naming the file — no panic.
    write(
        &home.join(".claude/settings.json"),
        "{\"autoMemoryDirectory\": ",
    );
    let run = sandbox.run(&["context", s(&p), "--json"]);
    run.expect_code(0);
    assert!(run.stdout.contains("DEFAULT-PLACE"));
    let check = sandbox.run(&["check", s(&p), "--json"]);
    check.expect_code(0);
    let json = check.json();
    let problem = json["projects"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "listing-problem")
        .unwrap_or_else(|| panic!("no finding for the broken settings: {json:#}"));
    let message = problem["message"].as_str().unwrap();
    assert!(
        message.contains("~/.claude/settings.json is not valid JSON (line 1"),
        "{message}"
    );
    assert!(
        message.contains("autoMemoryDirectory is not read"),
        "{message}"
    );
}

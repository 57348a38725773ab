//! The agents' loading rules of 2026 over temp folders, through the binary: Claude Code
//! reading AGENTS.md where the project has no CLAUDE.md of its own, Roo Code's and Kilo
//! Code's legacy rule files, instruction files found only in sub-folders, and the findings
//! on files an agent cannot use as they stand (template forms, paths stored as text,
//! misnamed Copilot instructions, a `.clinerules` below the workspace root, slots and
//! copies in a templates/ folder left alone).
use crate::common;

use std::path::Path;

use common::{Sandbox, write};
use serde_json::Value;

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn context(sandbox: &Sandbox, p: &Path, agent: &str) -> Value {
    sandbox
        .run(&["context", s(p), "--json", "--no-user", "--agent", agent])
        .expect_code(0)
        .json()
}

/// The files a session loads, bank by bank in load order.
fn loaded(json: &Value) -> Vec<String> {
    json["projects"][0]["sessions"][0]["banks"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|b| b["pieces"].as_array().unwrap().iter())
        .map(|p| p["display"].as_str().unwrap().to_string())
        .collect()
}

fn deferred(json: &Value) -> Vec<String> {
    json["projects"][0]["sessions"][0]["banks"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|b| b["deferred"].as_array().unwrap().iter())
        .map(|p| p["display"].as_str().unwrap().to_string())
        .collect()
}

/// The `list --json` session figures of the one project: agent id → tokens.
fn list_sessions(sandbox: &Sandbox, root: &Path) -> Vec<(String, u64)> {
    let json = sandbox
        .run(&["list", "--root", s(root), "--json"])
        .expect_code(0)
        .json();
    let project = &json.as_array().map_or(&json["projects"][0], |a| &a[0]);
    project["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["agent"].as_str().unwrap_or("").to_string(),
                s["tokens"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn claude_code_reads_agents_md_as_claude_md_until_a_claude_md_stands() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("app");
    write(&p.join("AGENTS.md"), "# Rules\n\n@docs/style.md\n");
    write(&p.join("docs/style.md"), "# Style\n\nShort functions.\n");
    write(&p.join("AGENTS.override.md.txt"), "not a rule\n");
    write(&p.join("api/AGENTS.md"), "# API rules\n");
    let json = context(&sandbox, &p, "claude-code");
    let session = &json["projects"][0]["sessions"][0];
    assert_eq!(session["agent"], "claude-code");
    // Read as Claude Code reads CLAUDE.md: its import expanded, the sub-folder's later.
    assert_eq!(loaded(&json), ["AGENTS.md", "docs/style.md"]);
    assert_eq!(deferred(&json), ["api/AGENTS.md"]);
    let claude = list_sessions(&sandbox, dir.path());
    assert!(
        claude
            .iter()
            .any(|(agent, tokens)| agent == "claude-code" && *tokens > 0),
        "{claude:?}"
    );

    // A CLAUDE.md of the project's own leaves AGENTS.md to the other agents.
    write(&p.join("CLAUDE.md"), "# Claude\n");
    let json = context(&sandbox, &p, "claude-code");
    assert_eq!(loaded(&json), ["CLAUDE.md"]);
    assert!(deferred(&json).iter().all(|d| !d.ends_with("AGENTS.md")));
    let codex = context(&sandbox, &p, "codex");
    assert_eq!(loaded(&codex), ["AGENTS.md"]);
}

#[test]
fn roo_and_kilo_fall_back_to_the_first_non_empty_legacy_rule_file() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("app");
    write(&p.join(".roorules"), "# Roo rules\n");
    write(&p.join(".clinerules"), "# Cline rules\n");
    write(&p.join(".kilocoderules"), "");
    write(&p.join("AGENTS.md"), "# Agents\n");
    assert_eq!(loaded(&context(&sandbox, &p, "roo")), [".roorules"]);
    assert_eq!(loaded(&context(&sandbox, &p, "cline")), [".clinerules"]);
    let kilo = loaded(&context(&sandbox, &p, "kilo"));
    assert!(kilo.contains(&"AGENTS.md".to_string()), "{kilo:?}");
    assert!(kilo.contains(&".roorules".to_string()), "{kilo:?}");
    assert!(!kilo.contains(&".clinerules".to_string()), "{kilo:?}");

    // A rules folder with a file takes the place of every legacy file.
    write(&p.join(".roo/rules/a.md"), "# Folder rule\n");
    write(&p.join(".kilocode/rules/b.md"), "# Kilo rule\n");
    assert_eq!(loaded(&context(&sandbox, &p, "roo")), [".roo/rules/a.md"]);
    let kilo = loaded(&context(&sandbox, &p, "kilo"));
    assert!(
        kilo.contains(&".kilocode/rules/b.md".to_string()),
        "{kilo:?}"
    );
    assert!(!kilo.iter().any(|f| f.starts_with(".roorules")), "{kilo:?}");
}

#[test]
fn kilo_reads_its_mode_rules_first_then_the_rules_folder_by_file_name() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("app");
    for (rel, text) in [
        (
            ".kilocode/rules/memory-bank/brief.md",
            "# Brief\n\nA shop.\n",
        ),
        (
            ".kilocode/rules/memory-bank/context.md",
            "# Context\n\nCarts.\n",
        ),
        (
            ".kilocode/rules/memory-bank/architecture.md",
            "# Architecture\n\nOne service.\n",
        ),
        (
            ".kilocode/rules/Coding-Style.md",
            "# Style\n\nShort functions.\n",
        ),
        (".kilocode/rules/api/zz-errors.md", "# Errors\n\nTyped.\n"),
        (".kilocode/rules/api/Auth.md", "# Auth\n\nTokens.\n"),
        (".kilocode/rules-code/tests.md", "# Tests\n\nFirst.\n"),
    ] {
        write(&p.join(rel), text);
    }
    let kilo = loaded(&context(&sandbox, &p, "kilo"));
    // Kilo's rule loader: the active mode's rules, then every file below .kilocode/rules/
    // sorted by its own name, case aside, whatever folder it sits in.
    assert_eq!(
        kilo,
        [
            ".kilocode/rules-code/tests.md",
            ".kilocode/rules/memory-bank/architecture.md",
            ".kilocode/rules/api/Auth.md",
            ".kilocode/rules/memory-bank/brief.md",
            ".kilocode/rules/Coding-Style.md",
            ".kilocode/rules/memory-bank/context.md",
            ".kilocode/rules/api/zz-errors.md",
        ]
    );
}

#[test]
fn a_sub_folders_instruction_file_is_found_without_one_at_the_top() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("app");
    write(
        &p.join("memory-bank/projectbrief.md"),
        "# Brief\n\nA shop.\n",
    );
    write(&p.join("packages/web/GEMINI.md"), "# Web\n\nUse Vue.\n");
    write(&p.join("services/api/CLAUDE.md"), "# API\n");
    let gemini = context(&sandbox, &p, "gemini");
    assert_eq!(loaded(&gemini), ["packages/web/GEMINI.md"]);
    let claude = context(&sandbox, &p, "claude-code");
    assert_eq!(deferred(&claude), ["services/api/CLAUDE.md"]);
}

#[test]
fn junie_trae_and_zed_read_their_own_files_and_zed_the_first_of_its_list() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("app");
    write(
        &p.join(".junie/guidelines.md"),
        "# Guidelines\n\nUse Kotlin.\n",
    );
    write(&p.join(".trae/rules/project_rules.md"), "# Rules\n");
    write(
        &p.join(".trae/rules/db.md"),
        "---\nalwaysApply: false\nglobs: db/**\n---\n# Database\n",
    );
    write(&p.join("AGENTS.md"), "# Agents\n");
    write(&p.join("CLAUDE.md"), "# Claude\n");
    write(&p.join(".github/copilot-instructions.md"), "# Copilot\n");
    assert_eq!(
        loaded(&context(&sandbox, &p, "junie")),
        [".junie/guidelines.md"]
    );
    let trae = context(&sandbox, &p, "trae");
    assert_eq!(loaded(&trae), [".trae/rules/project_rules.md"]);
    assert_eq!(deferred(&trae), [".trae/rules/db.md"]);
    // Zed: the first of its list that is present, whole, whichever agent's it is.
    let zed = context(&sandbox, &p, "zed");
    assert_eq!(loaded(&zed), [".github/copilot-instructions.md"]);
    write(&p.join(".rules"), "# Zed rules\n");
    assert_eq!(loaded(&context(&sandbox, &p, "zed")), [".rules"]);
    // AGENT.md alone makes a project Zed reads.
    let other = dir.path().join("other");
    write(&other.join("AGENT.md"), "# One agent\n");
    assert_eq!(loaded(&context(&sandbox, &other, "zed")), ["AGENT.md"]);
}

#[test]
fn opencode_reads_agents_md_else_claude_md_after_the_users_own_file() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("app");
    write(&p.join("CLAUDE.md"), "# Claude\n\n@docs/style.md\n");
    write(&p.join("docs/style.md"), "# Style\n");
    // Without an AGENTS.md, the CLAUDE.md, whole: its import is not followed.
    assert_eq!(loaded(&context(&sandbox, &p, "opencode")), ["CLAUDE.md"]);
    write(&p.join("AGENTS.md"), "# Agents\n");
    assert_eq!(loaded(&context(&sandbox, &p, "opencode")), ["AGENTS.md"]);
    // The user's file first: Claude Code's when opencode has none of its own.
    write(&sandbox.home().join(".claude/CLAUDE.md"), "# Mine\n");
    let with_user = |sandbox: &Sandbox| {
        sandbox
            .run(&["context", s(&p), "--json", "--agent", "opencode"])
            .expect_code(0)
            .json()
    };
    assert_eq!(
        loaded(&with_user(&sandbox)),
        ["~/.claude/CLAUDE.md", "AGENTS.md"]
    );
    write(
        &sandbox.home().join(".config/opencode/AGENTS.md"),
        "# Mine too\n",
    );
    assert_eq!(
        loaded(&with_user(&sandbox)),
        ["~/.config/opencode/AGENTS.md", "AGENTS.md"]
    );
}

/// `check --json`'s findings: (code, severity, file relative to the project).
fn findings(sandbox: &Sandbox, p: &Path) -> Vec<(String, String, String)> {
    let run = sandbox.run(&["check", s(p), "--json"]);
    let json = run.json();
    let base = std::fs::canonicalize(p).unwrap();
    let mut found = Vec::new();
    let projects = json["projects"].as_array().cloned().unwrap_or_default();
    for project in projects {
        for finding in project["findings"].as_array().cloned().unwrap_or_default() {
            let file = Path::new(finding["file"].as_str().unwrap()).to_path_buf();
            let file = std::fs::canonicalize(&file).unwrap_or(file);
            let rel = file
                .strip_prefix(&base)
                .map(|r| r.display().to_string())
                .unwrap_or_else(|_| file.display().to_string());
            found.push((
                finding["code"].as_str().unwrap().to_string(),
                finding["severity"].as_str().unwrap().to_string(),
                rel,
            ));
        }
    }
    found
}

fn has(found: &[(String, String, String)], code: &str, severity: &str, file: &str) -> bool {
    found
        .iter()
        .any(|(c, s, f)| c == code && s == severity && f == file)
}

#[test]
fn files_an_agent_cannot_use_are_findings_that_name_them() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("app");
    write(&p.join("AGENTS.md"), "# Rules\n\nBe brief.\n");
    // A link git wrote as text, beside the file it names.
    write(&p.join("CLAUDE.md"), "AGENTS.md\n");
    // A form nobody filled in, in any language.
    write(
        &p.join("memory-bank/activeContext.md"),
        "# 現在の作業\n\n{CURRENT_WORK}\n\n## 次\n- {NEXT_STEPS}\n",
    );
    write(
        &p.join("memory-bank/projectbrief.md"),
        "# Brief\n\nA shop.\n",
    );
    // Templates keep their slots and copies.
    write(
        &p.join("memory-bank/templates/task.md"),
        "# [Task name]\n\n{LIST}\n",
    );
    write(
        &p.join("memory-bank/templates/copy.md"),
        "# [Task name]\n\n{LIST}\n",
    );
    // A .clinerules inside the bank is none of Cline's rules.
    write(&p.join("memory-bank/.clinerules"), "# Rules\n");
    // Copilot's files by their wrong names and a misspelled key.
    write(&p.join(".github/copilot-instruction.md"), "# Copilot\n");
    write(
        &p.join(".github/instructions/py.instructions.md"),
        "---\napplyto: \"**/*.py\"\n---\n# Python\n",
    );
    write(&p.join(".github/instructions/notes.md"), "# Notes\n");
    let found = findings(&sandbox, &p);
    for (code, severity, file) in [
        ("path-as-content", "error", "CLAUDE.md"),
        (
            "template-slots-only",
            "warning",
            "memory-bank/activeContext.md",
        ),
        (
            "instructions-misnamed",
            "warning",
            "memory-bank/.clinerules",
        ),
        (
            "instructions-misnamed",
            "warning",
            ".github/copilot-instruction.md",
        ),
        (
            "instructions-misnamed",
            "warning",
            ".github/instructions/notes.md",
        ),
        (
            "frontmatter-key-misspelled",
            "warning",
            ".github/instructions/py.instructions.md",
        ),
    ] {
        assert!(
            has(&found, code, severity, file),
            "{code} {file}: {found:#?}"
        );
    }
    assert!(
        !found.iter().any(|(_, _, f)| f.contains("templates/")),
        "{found:#?}"
    );
    // A rule that never applies is said once, by its misspelled key.
    assert!(
        !has(
            &found,
            "rule-never-picked",
            "warning",
            ".github/instructions/py.instructions.md"
        ),
        "{found:#?}"
    );
}

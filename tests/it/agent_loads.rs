//! What each agent loads at session start, as its own documentation says: Roo Code's
//! `.roomodes` as Roo sends it and its per-mode system prompt overrides, Cursor's `.md`
//! rules, Gemini CLI's sub-folder and extension context files, Copilot memory banks
//! under `.github/instructions/`, a Cline bank read whole.
use crate::common;

use std::path::Path;

use common::{Sandbox, write};
use serde_json::Value;

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn session(sandbox: &Sandbox, project: &Path, agent: &str, more: &[&str]) -> Value {
    let mut args = vec!["context", s(project), "--json", "--agent", agent];
    args.extend_from_slice(more);
    let json = sandbox.run(&args).expect_code(0).json();
    json["projects"][0]["sessions"][0].clone()
}

/// Each piece loaded: its display path and text.
fn pieces(session: &Value) -> Vec<(String, String)> {
    session["banks"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|b| b["pieces"].as_array().unwrap().iter())
        .map(|p| {
            (
                p["display"].as_str().unwrap().to_string(),
                p["text"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn shown(session: &Value) -> Vec<String> {
    pieces(session).into_iter().map(|(d, _)| d).collect()
}

const ROOMODES: &str = r#"{"customModes": [
  {"slug": "docs", "name": "Docs Writer", "roleDefinition": "You write docs. Carefully.",
   "customInstructions": "Keep it short.", "groups": ["read"]},
  {"slug": "review", "name": "Reviewer", "roleDefinition": "You review code. Strictly.",
   "whenToUse": "Use for reviews.", "customInstructions": "LONG REVIEW INSTRUCTIONS", "groups": ["read"]}
]}"#;

#[test]
fn roomodes_counts_what_roo_sends_and_a_system_prompt_override_loads_in_its_mode() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("app");
    write(&p.join(".roomodes"), ROOMODES);
    write(&p.join(".roo/rules/style.md"), "# Style\n\nTabs.\n");
    write(
        &p.join(".roo/system-prompt-docs"),
        "\n  You are the docs prompt.  \n\n",
    );
    write(&p.join(".roo/system-prompt-review"), "  \n");

    // Code mode (the default): the list of custom modes only; no override of its own.
    let code = session(&sandbox, &p, "roo", &["--no-user"]);
    let list = "  * \"Docs Writer\" mode (docs) - You write docs\n  * \"Reviewer\" mode (review) - Use for reviews.";
    let loaded = pieces(&code);
    assert_eq!(shown(&code), [".roo/rules/style.md", ".roomodes"]);
    assert_eq!(loaded[1].1, list);
    let deferred: Vec<&str> = code["banks"][0]["deferred"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["display"].as_str().unwrap())
        .collect();
    assert!(
        deferred.contains(&".roo/system-prompt-docs"),
        "{deferred:?}"
    );

    // Review mode: its definition in full, the list, and no override (the file is blank).
    let review = session(&sandbox, &p, "roo", &["--no-user", "--mode", "review"]);
    let loaded = pieces(&review);
    assert_eq!(
        loaded[1].1,
        format!("You review code. Strictly.\n\n{list}\n\nLONG REVIEW INSTRUCTIONS")
    );
    let skipped = review["banks"][0]["skipped"].to_string();
    assert!(skipped.contains("system-prompt-review"), "{skipped}");
    assert!(skipped.contains("keeps its own system prompt"), "{skipped}");

    // Docs mode: the override loads, trimmed, and leaves the list of modes out.
    let docs = session(&sandbox, &p, "roo", &["--no-user", "--mode", "docs"]);
    let loaded = pieces(&docs);
    assert_eq!(
        shown(&docs),
        [
            ".roo/rules/style.md",
            ".roomodes",
            ".roo/system-prompt-docs"
        ]
    );
    assert_eq!(loaded[1].1, "You write docs. Carefully.\n\nKeep it short.");
    assert_eq!(loaded[2].1, "You are the docs prompt.");
    assert!(!loaded.iter().any(|(_, t)| t.contains("LONG REVIEW")));
}

#[test]
fn an_unreadable_roomodes_loads_nothing_and_says_why() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("app");
    write(&p.join(".roomodes"), "{\"customModes\": [\n");
    write(&p.join(".clinerules"), "# Rules\n");
    let roo = session(&sandbox, &p, "roo", &["--no-user"]);
    assert_eq!(shown(&roo), [".clinerules"]);
    let skipped = roo["banks"][0]["skipped"].to_string();
    assert!(
        skipped.contains("cannot read its custom modes"),
        "{skipped}"
    );
}

#[test]
fn cursor_md_rules_load_by_their_frontmatter_like_mdc_rules() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("app");
    write(
        &p.join(".cursor/rules/always.md"),
        "---\nalwaysApply: true\n---\n# Always\n",
    );
    write(
        &p.join(".cursor/rules/scoped.md"),
        "---\nglobs: src/**/*.ts\nalwaysApply: false\n---\n# Scoped\n",
    );
    write(
        &p.join(".cursor/rules/old.mdc"),
        "---\nalwaysApply: true\n---\n# Old\n",
    );
    let cursor = session(&sandbox, &p, "cursor", &["--no-user"]);
    assert_eq!(
        shown(&cursor),
        [".cursor/rules/always.md", ".cursor/rules/old.mdc"]
    );
    let deferred = cursor["banks"][0]["deferred"].to_string();
    assert!(deferred.contains(".cursor/rules/scoped.md"), "{deferred}");
}

#[test]
fn gemini_loads_sub_folder_gemini_md_and_extension_context_files_at_start() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("app");
    write(&p.join("GEMINI.md"), "# Top\n");
    write(&p.join("packages/api/GEMINI.md"), "# Api\n");
    write(&p.join("CLAUDE.md"), "# Claude\n");
    write(&p.join("packages/api/CLAUDE.md"), "# Claude api\n");
    let ext = sandbox.home().join(".gemini/extensions/helper");
    write(
        &ext.join("gemini-extension.json"),
        r#"{"name": "helper", "contextFileName": "HELPER.md"}"#,
    );
    write(&ext.join("HELPER.md"), "# Helper extension\n");
    let gemini = session(&sandbox, &p, "gemini", &[]);
    assert_eq!(
        shown(&gemini),
        [
            "~/.gemini/extensions/helper/HELPER.md",
            "GEMINI.md",
            "packages/api/GEMINI.md"
        ]
    );
    // Without the user layer, the extension is left out; Claude Code's sub-folder file waits.
    let gemini = session(&sandbox, &p, "gemini", &["--no-user"]);
    assert_eq!(shown(&gemini), ["GEMINI.md", "packages/api/GEMINI.md"]);
    let claude = session(&sandbox, &p, "claude-code", &["--no-user"]);
    assert_eq!(shown(&claude), ["CLAUDE.md"]);
}

#[test]
fn copilot_reads_the_cline_bank_its_memory_bank_instructions_point_to() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("app");
    write(
        &p.join(".github/instructions/memory-bank.instructions.md"),
        "---\napplyTo: '**'\n---\n# Memory Bank\n\nI MUST read ALL memory bank files at the start of EVERY task.\n",
    );
    write(
        &p.join("memory-bank/projectbrief.md"),
        "# Brief\n\nA shop.\n",
    );
    write(
        &p.join("memory-bank/activeContext.md"),
        "# Active\n\nCheckout.\n",
    );
    let copilot = session(&sandbox, &p, "copilot", &["--no-user"]);
    assert_eq!(
        shown(&copilot),
        [
            "memory-bank/projectbrief.md",
            "memory-bank/activeContext.md",
            ".github/instructions/memory-bank.instructions.md"
        ]
    );
    let notes = copilot["banks"].to_string();
    assert!(
        notes.contains("tells it to read all memory bank files"),
        "{notes}"
    );
    // Cline reads its bank as before.
    let cline = session(&sandbox, &p, "cline", &["--no-user"]);
    assert_eq!(
        shown(&cline),
        [
            "memory-bank/projectbrief.md",
            "memory-bank/activeContext.md"
        ]
    );

    // Instructions that only mention the bank do not make Copilot read it.
    write(
        &p.join(".github/instructions/memory-bank.instructions.md"),
        "---\napplyTo: '**'\n---\n# Memory Bank\n\nNotes live in memory-bank/.\n",
    );
    let copilot = session(&sandbox, &p, "copilot", &["--no-user"]);
    assert_eq!(
        shown(&copilot),
        [".github/instructions/memory-bank.instructions.md"]
    );
}

#[test]
fn cline_reads_every_markdown_file_of_its_bank_at_start_sub_folders_included() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("app");
    write(&p.join("memory-bank/projectbrief.md"), "# Brief\n");
    write(&p.join("memory-bank/tasks/_index.md"), "# Tasks\n");
    write(&p.join("memory-bank/tasks/TASK001.md"), "# Task one\n");
    write(&p.join("memory-bank/tasks/board.json"), "{}\n");
    write(
        &p.join("memory-bank/backup-2025/projectbrief.md"),
        "# Old\n",
    );
    let cline = session(&sandbox, &p, "cline", &["--no-user"]);
    // The core files first, then the sub-folders' files; backups and JSON never.
    let loaded = shown(&cline);
    assert_eq!(loaded[0], "memory-bank/projectbrief.md");
    let mut rest = loaded[1..].to_vec();
    rest.sort();
    assert_eq!(
        rest,
        [
            "memory-bank/tasks/TASK001.md",
            "memory-bank/tasks/_index.md"
        ]
    );
}

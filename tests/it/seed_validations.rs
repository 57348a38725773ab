//! The format rules of the Cline memory bank, ConKeeper, Beans-Code and Infinity that
//! `mbank check` enforces as findings: each through the binary, on a bank that breaks the
//! rule and on one that keeps it.
use std::path::Path;

use serde_json::Value;

use crate::common::git::GitRepo;
use crate::common::{Sandbox, write};

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Every finding of `mbank check --json` on `dir`: (code, file relative to `dir`, line,
/// severity, message).
fn findings(dir: &Path) -> Vec<(String, String, Option<u64>, String, String)> {
    findings_in(&Sandbox::new(), dir)
}

/// The findings of `check` run in `sandbox`, whose cache a second run finds warm.
fn findings_in(
    sandbox: &Sandbox,
    dir: &Path,
) -> Vec<(String, String, Option<u64>, String, String)> {
    let json = sandbox.run(&["check", "--json", s(dir)]).json();
    let mut out = Vec::new();
    for project in json["projects"].as_array().unwrap() {
        for finding in project["findings"].as_array().unwrap() {
            let file = finding["file"].as_str().unwrap();
            let rel = Path::new(file)
                .strip_prefix(dir)
                .map(|p| p.display().to_string())
                .unwrap_or_else(|_| file.to_string());
            out.push((
                finding["code"].as_str().unwrap().to_string(),
                rel,
                finding["line"].as_u64(),
                finding["severity"].as_str().unwrap().to_string(),
                finding["message"].as_str().unwrap().to_string(),
            ));
        }
    }
    out
}

fn of_code<'a>(
    all: &'a [(String, String, Option<u64>, String, String)],
    code: &str,
) -> Vec<&'a (String, String, Option<u64>, String, String)> {
    all.iter().filter(|f| f.0 == code).collect()
}

const CLINE_CORE: [(&str, &str); 6] = [
    (
        "projectbrief.md",
        "# Project Brief\n\n## Mission Statement\nA shop.\n",
    ),
    (
        "productContext.md",
        "# Product Context\n\n## Target Users\nShoppers.\n",
    ),
    (
        "systemPatterns.md",
        "# System Patterns\n\n## Architecture Overview\nOne service.\n",
    ),
    (
        "techContext.md",
        "# Tech Context\n\n## Technology Stack\n- Rust\n",
    ),
    (
        "activeContext.md",
        "# Active Context\n\n## Current Focus\nRefunds.\n",
    ),
    (
        "progress.md",
        "# Progress\n\n## Completed\n- [x] Checkout — 2025-01-02\n",
    ),
];

fn cline_bank(dir: &Path, replace: &[(&str, &str)]) {
    for (name, text) in CLINE_CORE {
        let text = replace
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(text, |(_, t)| *t);
        write(&dir.join("memory-bank").join(name), text);
    }
    for (name, text) in replace {
        if !CLINE_CORE.iter().any(|(n, _)| n == name) {
            write(&dir.join("memory-bank").join(name), text);
        }
    }
}

#[test]
fn a_cline_decision_without_a_date_is_a_warning_naming_it() {
    let temp = tempfile::tempdir().unwrap();
    let log = "# Decision Log\n\n## Decision: Use Postgres\n- **Date**: 2025-01-02\n\
               - **Status**: Accepted\n- **Rationale**: joins\n\n---\n\n\
               ## Decision: Cache with Redis\n- **Status**: Accepted\n- **Rationale**: speed\n";
    cline_bank(temp.path(), &[("decisionLog.md", log)]);
    let all = findings(temp.path());
    let undated = of_code(&all, "decision-undated");
    assert_eq!(undated.len(), 1, "{all:#?}");
    let (_, file, line, severity, message) = undated[0];
    assert_eq!(
        (file.as_str(), *line, severity.as_str()),
        ("memory-bank/decisionLog.md", Some(10), "warning")
    );
    assert!(
        message.contains("Cache with Redis") && message.contains("Cline's memory bank"),
        "{message}"
    );

    // Dated everywhere: nothing to say.
    let dated = log.replace(
        "## Decision: Cache with Redis\n",
        "## Decision: Cache with Redis\n- **Date**: 2025-02-01\n",
    );
    cline_bank(temp.path(), &[("decisionLog.md", &dated)]);
    assert!(of_code(&findings(temp.path()), "decision-undated").is_empty());
}

#[test]
fn a_cline_decision_far_over_its_hundred_tokens_is_information() {
    let temp = tempfile::tempdir().unwrap();
    let long = format!(
        "# Decision Log\n\n## Decision: Use Postgres\n- **Date**: 2025-01-02\n\
         - **Status**: Accepted\n- **Context**: {}\n\n## Decision: Short one\n\
         - **Date**: 2025-01-03\n- **Status**: Accepted\n",
        "We compared every storage engine the team had used before, weighing \
         operations cost, replication and the reporting queries finance runs monthly. "
            .repeat(15)
    );
    cline_bank(temp.path(), &[("decisionLog.md", &long)]);
    let all = findings(temp.path());
    let long_ones = of_code(&all, "decision-too-long");
    assert_eq!(long_ones.len(), 1, "{all:#?}");
    let (_, file, line, severity, message) = long_ones[0];
    assert_eq!(
        (file.as_str(), *line, severity.as_str()),
        ("memory-bank/decisionLog.md", Some(3), "info")
    );
    assert!(
        message.contains("1 decision entry is over 300 tokens")
            && message.contains("Use Postgres")
            && message.contains("about 100 tokens"),
        "{message}"
    );
}

#[test]
fn a_cline_progress_file_holding_only_the_tech_stack_is_information() {
    let temp = tempfile::tempdir().unwrap();
    let stack = "# Progress\n\n## Technology Stack\n### Languages\n- Rust 1.80\n\
                 ### Frameworks\n- axum\n## Build Commands\n- cargo build\n";
    cline_bank(temp.path(), &[("progress.md", stack)]);
    let all = findings(temp.path());
    let off = of_code(&all, "off-purpose");
    assert_eq!(off.len(), 1, "{all:#?}");
    let (_, file, _, severity, message) = off[0];
    assert_eq!(
        (file.as_str(), severity.as_str()),
        ("memory-bank/progress.md", "info")
    );
    assert!(
        message.contains("techContext.md") && message.contains("Technology Stack"),
        "{message}"
    );
    // Every other core file keeps to its purpose.
    assert!(off.iter().all(|f| f.1 == "memory-bank/progress.md"));
}

fn conkeeper_bank(dir: &Path) {
    let memory = dir.join(".claude/memory");
    write(
        &memory.join("active-context.md"),
        "# Active Context\n\n## Current Focus\nRefunds.\n",
    );
    write(
        &memory.join("product-context.md"),
        "# Product Context\n\n## Project Overview\nA shop.\n",
    );
    write(
        &memory.join(".memory-config.md"),
        "---\nauto_load: true\n---\n",
    );
    std::fs::create_dir_all(memory.join("decisions")).unwrap();
    std::fs::create_dir_all(memory.join("sessions")).unwrap();
}

fn adr(status: &str) -> String {
    format!(
        "# ADR-001: Use Postgres\n\n**Status:** {status}\n**Date:** 2025-01-02\n\
         **Tags:** db\n\n## Context\nWe need a store.\n\n## Decision\nPostgres.\n"
    )
}

#[test]
fn conkeeper_adr_status_outside_its_set_is_a_warning() {
    let temp = tempfile::tempdir().unwrap();
    conkeeper_bank(temp.path());
    let decisions = temp.path().join(".claude/memory/decisions");
    write(&decisions.join("ADR-001-use-postgres.md"), &adr("Maybe"));
    write(
        &decisions.join("ADR-002-use-redis.md"),
        &adr("Superseded by ADR-003").replace("ADR-001", "ADR-002"),
    );
    write(
        &decisions.join("ADR-003-use-valkey.md"),
        &adr("Accepted").replace("ADR-001", "ADR-003"),
    );
    let all = findings(temp.path());
    let status = of_code(&all, "adr-status");
    assert_eq!(status.len(), 1, "{all:#?}");
    let (_, file, line, severity, message) = status[0];
    assert_eq!(
        (file.as_str(), *line, severity.as_str()),
        (
            ".claude/memory/decisions/ADR-001-use-postgres.md",
            Some(3),
            "warning"
        )
    );
    assert!(
        message.contains("\"Maybe\"") && message.contains("ConKeeper"),
        "{message}"
    );
}

#[test]
fn conkeeper_sessions_not_named_by_date_are_information() {
    let temp = tempfile::tempdir().unwrap();
    conkeeper_bank(temp.path());
    let sessions = temp.path().join(".claude/memory/sessions");
    write(
        &sessions.join("2025-01-02-refunds.md"),
        "# Session: 2025-01-02\n",
    );
    write(
        &sessions.join("2025-01-03-1430.md"),
        "# Session: 2025-01-03\n",
    );
    write(&sessions.join("refunds-notes.md"), "# Session: refunds\n");
    let all = findings(temp.path());
    let named = of_code(&all, "session-naming");
    assert_eq!(named.len(), 1, "{all:#?}");
    let (_, file, _, severity, message) = named[0];
    assert_eq!(
        (file.as_str(), severity.as_str()),
        (".claude/memory/sessions/refunds-notes.md", "info")
    );
    assert!(message.contains("YYYY-MM-DD-topic.md"), "{message}");
}

#[test]
fn a_conkeeper_tag_away_from_its_heading_or_bullet_is_a_warning() {
    let temp = tempfile::tempdir().unwrap();
    conkeeper_bank(temp.path());
    write(
        &temp.path().join(".claude/memory/patterns.md"),
        "# Project Patterns\n\n## Code Conventions\n- Use snake_case\n\
         <!-- @category: convention -->\n<!-- @tag: naming -->\n\n\
         <!-- @category: pattern -->\nErrors are values.\n",
    );
    let all = findings(temp.path());
    let placed = of_code(&all, "tag-placement");
    assert_eq!(placed.len(), 1, "{all:#?}");
    let (_, file, line, severity, _) = placed[0];
    assert_eq!(
        (file.as_str(), *line, severity.as_str()),
        (".claude/memory/patterns.md", Some(8), "warning")
    );
}

#[test]
fn with_both_conkeeper_folders_only_the_claude_one_loads_and_the_other_is_reported() {
    let temp = tempfile::tempdir().unwrap();
    conkeeper_bank(temp.path());
    let ai = temp.path().join(".ai/memory");
    write(
        &ai.join("active-context.md"),
        "# Active Context\n\n## Current Focus\nSomething else entirely.\n",
    );
    write(&ai.join(".memory-config.md"), "---\nauto_load: true\n---\n");
    let all = findings(temp.path());
    let second = of_code(&all, "second-memory-folder");
    assert_eq!(second.len(), 1, "{all:#?}");
    let (_, file, _, severity, message) = second[0];
    assert_eq!(
        (file.as_str(), severity.as_str()),
        (".ai/memory", "warning")
    );
    assert!(
        message.contains(".claude/memory/") && message.contains("never read"),
        "{message}"
    );
    // The second folder is not judged as a bank of its own (its missing files, say).
    assert!(
        all.iter()
            .filter(|f| f.1.starts_with(".ai/"))
            .all(|f| f.0 == "second-memory-folder"),
        "{all:#?}"
    );
    // Its files load never, so they cost nothing at session start.
    let sandbox = Sandbox::new();
    let json = sandbox
        .run(&["tokens", "--json", s(temp.path())])
        .json()
        .to_string();
    let listed: Value = serde_json::from_str(&json).unwrap();
    let mut ai_loads = Vec::new();
    collect_loads(&listed, &mut ai_loads);
    assert!(!ai_loads.is_empty(), "{json}");
    assert!(ai_loads.iter().all(|load| load == "never"), "{ai_loads:?}");

    // Alone, `.ai/memory/` is the bank and loads.
    std::fs::remove_dir_all(temp.path().join(".claude")).unwrap();
    let all = findings(temp.path());
    assert!(of_code(&all, "second-memory-folder").is_empty(), "{all:#?}");
}

/// The load kinds of the files under `.ai/memory/` in `mbank tokens --json`.
fn collect_loads(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            let path = map
                .get("path")
                .or_else(|| map.get("display"))
                .and_then(Value::as_str);
            if let (Some(path), Some(load)) = (path, map.get("load").and_then(Value::as_str))
                && path.contains(".ai/memory/")
            {
                out.push(load.to_string());
            }
            for v in map.values() {
                collect_loads(v, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_loads(v, out)),
        _ => {}
    }
}

/// A chain `BEANS.md → a1.md → … → aN.md` of `depth` imports.
fn import_chain(dir: &Path, main: &str, depth: usize) {
    write(&dir.join(main), "# Rules\n\n@./chain/a1.md\n");
    for hop in 1..=depth {
        let next = if hop < depth {
            format!("@./a{}.md\n", hop + 1)
        } else {
            String::new()
        };
        write(
            &dir.join(format!("chain/a{hop}.md")),
            &format!("# Part {hop}\n\n{next}"),
        );
    }
}

#[test]
fn beans_follows_imports_five_deep_and_claude_code_four() {
    let temp = tempfile::tempdir().unwrap();
    import_chain(temp.path(), "BEANS.md", 5);
    let all = findings(temp.path());
    assert!(of_code(&all, "import-too-deep").is_empty(), "{all:#?}");

    let temp = tempfile::tempdir().unwrap();
    import_chain(temp.path(), "BEANS.md", 6);
    let all = findings(temp.path());
    let deep = of_code(&all, "import-too-deep");
    assert_eq!(deep.len(), 1, "{all:#?}");
    assert!(deep[0].4.contains("limit of 5"), "{}", deep[0].4);

    let temp = tempfile::tempdir().unwrap();
    import_chain(temp.path(), "CLAUDE.md", 5);
    let all = findings(temp.path());
    let deep = of_code(&all, "import-too-deep");
    assert_eq!(deep.len(), 1, "{all:#?}");
    assert!(deep[0].4.contains("limit of 4"), "{}", deep[0].4);
}

#[test]
fn a_beans_local_file_git_does_not_ignore_is_a_warning() {
    let repo = GitRepo::folder("beans");
    repo.init();
    repo.write("BEANS.md", "# Rules\n\n- Use Vitest.\n");
    repo.write("BEANS.local.md", "# Mine\n\n- Short answers.\n");
    repo.write("src/main.ts", "export {};\n");
    repo.write(".gitignore", "node_modules/\n");
    repo.git(&["add", "BEANS.md", "src/main.ts", ".gitignore"]);
    repo.git(&["commit", "-q", "-m", "first"]);
    // One sandbox for both runs: the second check finds the first one's results stored,
    // and a .gitignore changed since must still count.
    let sandbox = Sandbox::new();
    let all = findings_in(&sandbox, &repo.dir);
    let exposed = of_code(&all, "local-file-not-ignored");
    assert_eq!(exposed.len(), 1, "{all:#?}");
    let (_, file, _, severity, message) = exposed[0];
    assert_eq!(
        (file.as_str(), severity.as_str()),
        ("BEANS.local.md", "warning")
    );
    assert!(message.contains(".gitignore"), "{message}");

    // The repository's own exclude file, rewritten in place: no file of the project and
    // no folder above one changes, and git's status stays as it was.
    let exclude = repo.dir.join(".git/info/exclude");
    let before = std::fs::read_to_string(&exclude).unwrap_or_default();
    std::fs::write(&exclude, before + "*.local.md\n").unwrap();
    let all = findings_in(&sandbox, &repo.dir);
    assert!(
        of_code(&all, "local-file-not-ignored").is_empty(),
        "{all:#?}"
    );
    assert!(of_code(&all, "local-file-tracked").is_empty(), "{all:#?}");
}

#[test]
fn an_infinity_store_git_does_not_ignore_is_a_warning() {
    let repo = GitRepo::folder("inf");
    repo.init();
    repo.write(
        ".infinity/memories.json",
        "{\"project_id\": \"6f1c2a4e-8b7d-4c3a-9e2f-1a2b3c4d5e6f\", \"memories\": []}\n",
    );
    repo.write(
        ".infinity/project_id",
        "6f1c2a4e-8b7d-4c3a-9e2f-1a2b3c4d5e6f\n",
    );
    repo.write("src/main.py", "print('hi')\n");
    repo.commit_all("first");
    let all = findings(&repo.dir);
    let exposed = of_code(&all, "infinity-not-ignored");
    assert_eq!(exposed.len(), 1, "{all:#?}");
    let (_, file, _, severity, message) = exposed[0];
    assert_eq!((file.as_str(), severity.as_str()), (".infinity", "warning"));
    assert!(
        message.contains(".gitignore") && message.contains("git rm -r --cached .infinity"),
        "{message}"
    );

    repo.write(".gitignore", ".infinity/\n");
    let all = findings(&repo.dir);
    assert!(of_code(&all, "infinity-not-ignored").is_empty(), "{all:#?}");
}

#[test]
fn beans_rules_are_picked_by_triggers_or_globs_and_name_a_known_priority() {
    let temp = tempfile::tempdir().unwrap();
    write(&temp.path().join("BEANS.md"), "# Rules\n\n- Be brief.\n");
    let rules = temp.path().join(".beans/rules");
    write(
        &rules.join("testing.md"),
        "---\nname: testing-rules\ntriggers:\n  - write tests\npriority: high\n---\n\n# Testing\n",
    );
    write(
        &rules.join("security.md"),
        "---\ntriggers: [secrets]\npriority: urgent\n---\n\n# Security\n",
    );
    write(&rules.join("style.md"), "# Style\n\n- Tabs.\n");
    let all = findings(temp.path());
    let values = of_code(&all, "rule-frontmatter-value");
    assert_eq!(values.len(), 1, "{all:#?}");
    assert_eq!(values[0].1, ".beans/rules/security.md");
    assert!(values[0].4.contains("urgent"), "{}", values[0].4);
    let never = of_code(&all, "rule-never-picked");
    assert_eq!(never.len(), 1, "{all:#?}");
    assert_eq!(
        (never[0].1.as_str(), never[0].3.as_str()),
        (".beans/rules/style.md", "info")
    );
    assert!(
        all.iter().all(|f| f.1 != ".beans/rules/testing.md"),
        "{all:#?}"
    );
}

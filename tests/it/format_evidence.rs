//! Format evidence defects on fixtures of their shape: a RooFlow / Memory Bank MCP bank
//! next to `.clinerules-{mode}` files is judged by its own format (no Cline "required
//! projectBrief.md" error) and read in its modes' `files_to_read` order; RooFlow decision
//! logs (`## Decision` + bullets) give entries, undated ones undated; Roo rule files are not
//! measured against the Cline memory bank budget; variant file names (`progress-log.md`)
//! hold their role or are named as lookalikes, as information; the default mode's rule
//! files and `.roomodes` load at session start, and `context --mode` shows another mode.
use crate::common;

use std::path::Path;

use common::{Sandbox, write};
use mbank::core::model::{Format, LoadKind};
use mbank::core::scan::bank::list_banks;
use mbank::core::scan::discovery;
use serde_json::Value;

const MODES: [&str; 5] = ["architect", "ask", "code", "debug", "test"];

/// A RooFlow project: the five Memory Bank MCP files (camelCase, no brief, no tech
/// context) and YAML mode rules whose `files_to_read` list the bank in their own order.
fn rooflow(dir: &Path) {
    for mode in MODES {
        write(
            &dir.join(format!(".clinerules-{mode}")),
            &format!(
                "mode: {mode}\ninstructions:\n  general:\n    - Work in {mode} mode.\n  \
                 memory_bank:\n    files_to_read:\n      - progress.md\n      - decisionLog.md\n      \
                 - productContext.md\n      - activeContext.md\n      - systemPatterns.md\n"
            ),
        );
    }
    for name in [
        "activeContext",
        "productContext",
        "progress",
        "systemPatterns",
    ] {
        write(
            &dir.join(format!("memory-bank/{name}.md")),
            &format!("# {name}\n\nWhat the {name} file says.\n"),
        );
    }
    write(
        &dir.join("memory-bank/decisionLog.md"),
        "# Decision Log\n\nThis file records architectural and implementation decisions using a list format.\n\
2025-03-02 12:00:00 - Log of updates made.\n\n*\n\n## Decision\n\n\
* **Use SQLite for the local cache**\n  * Small footprint, no server.\n\
* [2025-03-04 10:15:00] - Adopt React Query for data fetching\n\
* Switch the build to Vite\n\n## Rationale\n\n* Faster local builds.\n\n\
## Implementation Details\n\n*\n",
    );
}

fn findings(check: &Value) -> Vec<&Value> {
    check["projects"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["findings"].as_array().unwrap())
        .collect()
}

fn codes(check: &Value) -> Vec<String> {
    findings(check)
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_rooflow_bank_is_memory_bank_mcp_judged_by_its_own_rules_and_read_in_mode_order() {
    let sandbox = Sandbox::new();
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("rooflow");
    rooflow(&dir);
    let root_arg = root.path().to_str().unwrap();

    let list = sandbox
        .run(&["--root", root_arg, "list", "--json"])
        .expect_code(0)
        .json();
    assert_eq!(
        list["projects"][0]["formats"],
        serde_json::json!(["memory-bank-mcp", "roo-rules"])
    );
    let check = sandbox.run(&["--root", root_arg, "check", "--json"]);
    let check_json = check.json();
    check.expect_code(0);
    let codes = codes(&check_json);
    assert!(
        !codes.iter().any(|c| c.starts_with("missing-")),
        "{codes:?}"
    );

    // The read order is the code mode's files_to_read.
    let project = discovery::project_at(&dir, "rooflow".into()).unwrap();
    let bank = list_banks(&project)
        .into_iter()
        .find(|b| b.format == Format::MemoryBankMcp)
        .unwrap();
    let order: Vec<String> = bank
        .files
        .iter()
        .map(|f| f.file_name().into_owned())
        .collect();
    assert_eq!(
        order,
        [
            "progress.md",
            "decisionLog.md",
            "productContext.md",
            "activeContext.md",
            "systemPatterns.md"
        ]
    );
}

#[test]
fn the_same_files_with_a_project_brief_stay_a_cline_bank() {
    let sandbox = Sandbox::new();
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("cline");
    rooflow(&dir);
    write(
        &dir.join("memory-bank/projectbrief.md"),
        "# Brief\n\nThe project.\n",
    );
    let list = sandbox
        .run(&["--root", root.path().to_str().unwrap(), "list", "--json"])
        .expect_code(0)
        .json();
    assert_eq!(list["projects"][0]["formats"][0], "cline");
}

#[test]
fn rooflow_decision_bullets_are_on_the_timeline_undated_ones_undated() {
    let sandbox = Sandbox::new();
    let root = tempfile::tempdir().unwrap();
    rooflow(&root.path().join("rooflow"));
    let timeline = sandbox
        .run(&[
            "--root",
            root.path().to_str().unwrap(),
            "timeline",
            "--json",
        ])
        .expect_code(0)
        .json();
    let decisions = timeline["projects"][0]["decisions"].as_array().unwrap();
    let mut entries: Vec<(String, Value)> = decisions
        .iter()
        .map(|d| (d["title"].as_str().unwrap().to_string(), d["date"].clone()))
        .collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        entries,
        [
            (
                "Adopt React Query for data fetching".to_string(),
                Value::from("2025-03-04")
            ),
            ("Switch the build to Vite".to_string(), Value::Null),
            ("Use SQLite for the local cache".to_string(), Value::Null),
        ]
    );
}

#[test]
fn roo_rule_files_are_not_measured_against_the_cline_memory_bank_budget() {
    let sandbox = Sandbox::new();
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("rules-only");
    // One rule file of about 8,000 tokens, over the Cline bank's 5,000.
    let rule = "Always write tests before code and keep functions small. ".repeat(800);
    write(&dir.join(".clinerules"), &format!("# Rules\n\n{rule}\n"));
    write(
        &dir.join(".roo/rules/style.md"),
        &format!("# Style\n\n{rule}\n"),
    );
    let check = sandbox.run(&["--root", root.path().to_str().unwrap(), "check", "--json"]);
    let json = check.json();
    for finding in findings(&json) {
        let message = finding["message"].as_str().unwrap();
        assert!(
            !message.contains("Cline's memory bank guidelines"),
            "a rule file judged by the memory bank's budget: {message}"
        );
    }
    let list = sandbox
        .run(&["--root", root.path().to_str().unwrap(), "list", "--json"])
        .json();
    // Roo Code documents no size rule for rule files: no budget, so never "over".
    assert_ne!(list["projects"][0]["budget"], "over");
    // Each session loads one of the two files whole: Roo Code its rules folder (which
    // takes the place of .clinerules), Cline its .clinerules.
    assert!(list["projects"][0]["loaded_tokens"].as_u64().unwrap() > 5_000);
}

#[test]
fn variant_file_names_hold_their_role_or_are_named_as_lookalikes_never_errors() {
    let sandbox = Sandbox::new();
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("variants");
    write(
        &dir.join("memory-bank/project-summary.md"),
        "# Summary\n\nWhat we build.\n",
    );
    write(
        &dir.join("memory-bank/activeContext.md"),
        "# Active\n\nNow.\n",
    );
    write(
        &dir.join("memory-bank/progress-log.md"),
        "# Progress\n\nDone.\n",
    );
    write(&dir.join("memory-bank/techContext.md"), "# Tech\n\nRust.\n");
    let check = sandbox.run(&["--root", root.path().to_str().unwrap(), "check", "--json"]);
    let json = check.json();
    check.expect_code(0);
    let found = findings(&json);
    assert!(
        !found.iter().any(|f| f["code"] == "missing-required-file"),
        "{found:?}"
    );
    let variant: Vec<(&str, &str)> = found
        .iter()
        .filter(|f| f["code"] == "variant-file-name")
        .map(|f| {
            (
                f["severity"].as_str().unwrap(),
                f["message"].as_str().unwrap(),
            )
        })
        .collect();
    assert!(
        variant.iter().any(|(severity, message)| *severity == "info"
            && message.starts_with("progress.md not found; progress-log.md looks like it")),
        "{variant:?}"
    );
    assert!(
        variant.iter().any(
            |(_, message)| message.starts_with("projectBrief.md not found; project-summary.md")
        ),
        "{variant:?}"
    );

    // A stem alone (progress-report.md) gives no role, but is named instead of an error.
    std::fs::rename(
        dir.join("memory-bank/progress-log.md"),
        dir.join("memory-bank/progress-report.md"),
    )
    .unwrap();
    let check = sandbox.run(&["--root", root.path().to_str().unwrap(), "check", "--json"]);
    let json = check.json();
    check.expect_code(0);
    assert!(findings(&json).iter().any(|f| {
        f["severity"] == "info"
            && f["message"]
                .as_str()
                .unwrap()
                .starts_with("progress.md not found; progress-report.md looks like it")
    }));
}

#[test]
fn a_memory_bank_folder_with_no_markdown_at_its_top_is_not_judged_as_cline() {
    let sandbox = Sandbox::new();
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("workflow-store");
    write(
        &dir.join(".cursor/memory-bank/workflow/tasks.json"),
        "{\"tasks\": []}\n",
    );
    write(
        &dir.join(".cursor/memory-bank/context/activeContext.md"),
        "# Active\n",
    );
    write(
        &dir.join(".cursor/memory-bank/download_model.py"),
        "print('x')\n",
    );
    let check = sandbox.run(&["--root", root.path().to_str().unwrap(), "check", "--json"]);
    let json = check.json();
    check.expect_code(0);
    assert_eq!(codes(&json), ["not-a-memory-bank"]);
}

#[test]
fn the_active_modes_rule_files_load_at_start_and_context_mode_picks_another() {
    let sandbox = Sandbox::new();
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("modes");
    rooflow(&dir);
    write(
        &dir.join(".roo/rules-debug/trace.md"),
        "# Debug\n\nTrace everything.\n",
    );
    write(
        &dir.join(".roomodes"),
        "{\"customModes\": [{\"slug\": \"docs\", \"name\": \"Docs\"}]}\n",
    );
    let root_arg = root.path().to_str().unwrap();

    let project = discovery::project_at(&dir, "modes".into()).unwrap();
    let rules = list_banks(&project)
        .into_iter()
        .find(|b| b.format == Format::RooRules)
        .unwrap();
    let startup: Vec<String> = rules
        .files
        .iter()
        .filter(|f| f.load == LoadKind::Startup)
        .map(|f| f.display.clone())
        .collect();
    assert_eq!(startup, [".roomodes", ".clinerules-code"]);

    let pieces = |args: &[&str]| -> Vec<String> {
        let mut all = vec![
            "--root",
            root_arg,
            "context",
            "--json",
            "--bank",
            "roo-rules",
        ];
        all.extend_from_slice(args);
        let json = sandbox.run(&all).expect_code(0).json();
        json["projects"][0]["banks"][0]["pieces"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["display"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(pieces(&[]), [".roomodes", ".clinerules-code"]);
    assert_eq!(
        pieces(&["--mode", "debug"]),
        [
            ".roomodes",
            ".clinerules-debug",
            ".roo/rules-debug/trace.md"
        ]
    );

    // list's loaded total follows the default mode: the same as context's.
    let list = sandbox.run(&["--root", root_arg, "list", "--json"]).json();
    let context = sandbox
        .run(&["--root", root_arg, "context", "--json"])
        .expect_code(0)
        .json();
    assert_eq!(
        list["projects"][0]["loaded_tokens"].as_u64(),
        context["projects"][0]["sessions"][0]["total_tokens"].as_u64()
    );
}

#[test]
fn context_mode_reads_the_bank_in_that_modes_order_and_an_unknown_mode_is_reported() {
    let sandbox = Sandbox::new();
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("rooflow");
    rooflow(&dir);
    // The architect reads two files first; the other modes keep the shared order.
    write(
        &dir.join(".clinerules-architect"),
        "mode: architect\ninstructions:\n  memory_bank:\n    files_to_read:\n      \
         - memory-bank/systemPatterns.md\n      - activeContext.md\n",
    );
    let dir_arg = dir.to_str().unwrap();
    let pieces = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["context", dir_arg, "--json", "--bank", "memory-bank-mcp"];
        all.extend_from_slice(args);
        let json = sandbox.run(&all).expect_code(0).json();
        json["projects"][0]["banks"][0]["pieces"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                p["display"]
                    .as_str()
                    .unwrap()
                    .trim_start_matches("memory-bank/")
                    .to_string()
            })
            .collect()
    };
    let code_order = [
        "progress.md",
        "decisionLog.md",
        "productContext.md",
        "activeContext.md",
        "systemPatterns.md",
    ];
    assert_eq!(pieces(&[]), code_order);
    assert_eq!(pieces(&["--mode", "code"]), code_order);
    // The architect's two first, then the format's own order (product, decisions, progress).
    assert_eq!(
        pieces(&["--mode", "architect"]),
        [
            "systemPatterns.md",
            "activeContext.md",
            "productContext.md",
            "decisionLog.md",
            "progress.md"
        ]
    );
    let text = sandbox.run(&["context", dir_arg, "--summary", "--mode", "architect"]);
    text.expect_code(0);
    assert!(
        text.stdout
            .contains("session in mode architect (chosen with --mode): read in the order of files_to_read in .clinerules-architect"),
        "{}",
        text.stdout
    );

    // No such mode: exit 2 naming the project's modes, the name sanitised.
    let unknown = sandbox.run(&["context", dir_arg, "--mode", "re\u{1b}[31mview"]);
    unknown.expect_code(2);
    assert!(
        unknown
            .stderr
            .contains("; modes: architect, ask, code, debug, orchestrator, test"),
        "{}",
        unknown.stderr
    );
    assert!(unknown.stderr.contains("no mode re"), "{}", unknown.stderr);
    assert!(!unknown.stderr.contains('\u{1b}'), "{:?}", unknown.stderr);
    assert!(unknown.stdout.is_empty(), "{}", unknown.stdout);
    let json = sandbox.run(&["context", dir_arg, "--json", "--mode", "review"]);
    json.expect_code(2);
    let error = &json.json()["error"];
    assert_eq!(error["code"], "unknown-mode");
    assert_eq!(error["mode"], "review");
    assert_eq!(
        error["modes"],
        serde_json::json!(["architect", "ask", "code", "debug", "orchestrator", "test"])
    );
    assert_eq!(
        error["message"],
        "no mode review in this project; modes: architect, ask, code, debug, orchestrator, test"
    );
}

#[test]
fn budgets_name_their_own_formats_source_in_words() {
    let sandbox = Sandbox::new();
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("rooflow");
    rooflow(&dir);
    // Over the family's 1,000 tokens per file.
    write(
        &dir.join("memory-bank/activeContext.md"),
        &format!("# Active\n\n{}\n", "current focus item ".repeat(600)),
    );
    // Over Claude Code's own 200 lines per CLAUDE.md, beside a rule that loads with it;
    // AGENTS.md over the family's 500 lines per file, which Codex does not set.
    write(&dir.join("CLAUDE.md"), &"- a rule\n".repeat(600));
    write(&dir.join("AGENTS.md"), &"- a rule\n".repeat(600));
    write(
        &dir.join(".claude/rules/style.md"),
        "# Style\n\nShort lines.\n",
    );
    let dir_arg = dir.to_str().unwrap();

    let check = sandbox.run(&["check", dir_arg, "--json"]);
    let json = check.json();
    // Both rules are borrowed from another format: over them is information, and says so.
    let borrowed: Vec<&Value> = findings(&json)
        .into_iter()
        .filter(|f| f["code"] == "budget-borrowed-over")
        .collect();
    assert!(
        borrowed
            .iter()
            .all(|f| f["severity"] == "info" && f["message"].as_str().unwrap().contains("borrowed")),
        "{borrowed:?}"
    );
    let budget_messages: Vec<String> = borrowed
        .iter()
        .map(|f| f["message"].as_str().unwrap().to_string())
        .collect();
    let about = |file: &str| {
        budget_messages
            .iter()
            .find(|m| m.contains(file))
            .unwrap_or_else(|| panic!("no budget finding for {file}: {budget_messages:?}"))
            .clone()
    };
    let active = about("tokens per file");
    assert!(
        active.contains("not a limit Memory Bank MCP / Roo sets"),
        "{active}"
    );
    // mbank's own sizes for a memory bank (Cline's documentation gives none), named as
    // such and said to be borrowed.
    assert!(
        active.contains("mbank's recommended sizes for memory banks, borrowed"),
        "{active}"
    );
    let agents = about("lines per file");
    assert!(agents.contains("not a limit AGENTS.md sets"), "{agents}");
    assert!(!agents.contains("for Beans-Code"), "{agents}");
    // Claude Code's own target is a warning in its words, and no borrowed line figure
    // is said beside it.
    let own: Vec<String> = findings(&json)
        .into_iter()
        .filter(|f| {
            f["code"] == "budget-over" && f["file"].as_str().unwrap().ends_with("CLAUDE.md")
        })
        .map(|f| f["message"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(own.len(), 1, "{own:?}");
    assert!(
        own[0].starts_with("over budget: 600 of 200 lines")
            && own[0].contains("Claude Code's documentation"),
        "{own:?}"
    );
    assert!(
        !budget_messages
            .iter()
            .any(|m| m.contains("loaded at start-up")),
        "{budget_messages:?}"
    );

    let verbose = sandbox.run(&["check", dir_arg, "--verbose"]);
    assert!(
        verbose
            .stdout
            .contains("not a limit Memory Bank MCP / Roo sets"),
        "{}",
        verbose.stdout
    );
    assert!(!verbose.stdout.contains("spec)"), "{}", verbose.stdout);
}

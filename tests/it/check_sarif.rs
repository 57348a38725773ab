//! `check --format sarif`: every finding as a SARIF 2.1.0 result, valid against the
//! official schema (vendored in tests/sarif/), with rule ids, help text, file, line and
//! level; a rule with its own help for every finding code.
use std::fs;
use std::path::Path;

use mbank::core::findings::RULES;
use serde_json::Value;

use crate::common::{self, Sandbox};

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn schema() -> jsonschema::Validator {
    let text = fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sarif/sarif-schema-2.1.0.json"),
    )
    .unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft4)
        .build(&schema)
        .unwrap()
}

/// Asserts `log` is valid SARIF 2.1.0, listing every schema error when it is not.
pub fn assert_valid_sarif(log: &Value) {
    let validator = schema();
    let errors: Vec<String> = validator
        .iter_errors(log)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "invalid SARIF:\n{}\n{log:#}",
        errors.join("\n")
    );
}

/// Asserts the log's rules are every declared finding code, in the table's order, each
/// with its own summary and help.
fn assert_a_rule_per_code(log: &Value) {
    let rules = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    let ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
    let declared: Vec<&str> = RULES.iter().map(|r| r.id).collect();
    assert_eq!(ids, declared);
    for (rule, declared) in rules.iter().zip(RULES) {
        assert_eq!(rule["name"], declared.id);
        assert_eq!(rule["shortDescription"]["text"], declared.summary);
        assert_eq!(rule["fullDescription"]["text"], declared.help);
        assert_eq!(rule["help"]["text"], declared.help);
    }
    // No generic fallback: the import codes each say what is wrong with the import.
    let help_of = |id: &str| {
        rules.iter().find(|r| r["id"] == id).unwrap()["help"]["text"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_ne!(help_of("import-cycle"), help_of("import-missing"));
    assert!(help_of("import-cycle").contains("cycle"));
    assert!(help_of("parse-limit").contains("too large"));
}

/// A Cline bank with an error (no brief), a warning on a line (a placeholder) and a
/// file without a heading.
fn bank_with_findings(project: &Path) {
    for (name, text) in [
        ("activeContext.md", "# Active\n\nWorking on the parser.\n"),
        ("progress.md", "# Progress\n\nDone: the lexer.\n"),
        ("systemPatterns.md", "# Patterns\n\nOne module per area.\n"),
        (
            "productContext.md",
            "# Product\n\nWhy it exists.\n\nOwner: [Name]\nDue: [Date]\n",
        ),
        ("techContext.md", "Rust, no heading here.\n"),
    ] {
        common::write(&project.join("memory-bank").join(name), text);
    }
}

#[test]
fn check_format_sarif_is_valid_sarif_2_1_0_with_every_finding() {
    let sandbox = Sandbox::new();
    let root = tempfile::tempdir().unwrap();
    let project = root.path().join("shop");
    bank_with_findings(&project);

    let json = sandbox.run(&["check", "--json", s(&project)]).json();
    let findings = json["projects"][0]["findings"].as_array().unwrap().clone();
    assert!(findings.len() >= 3, "{findings:#?}");

    let mut command = sandbox.mbank();
    command
        .args(["check", "--format", "sarif", s(&project)])
        .current_dir(root.path());
    let run = common::run_command(command);
    run.expect_code(1);
    let log = run.json();
    assert_valid_sarif(&log);
    assert_eq!(log["version"], "2.1.0");
    let sarif_run = &log["runs"][0];
    assert_eq!(sarif_run["tool"]["driver"]["name"], "mbank");
    let results = sarif_run["results"].as_array().unwrap();
    assert_eq!(results.len(), findings.len());
    let rules = sarif_run["tool"]["driver"]["rules"].as_array().unwrap();
    for (finding, result) in findings.iter().zip(results) {
        assert_eq!(result["ruleId"], finding["code"]);
        let level = match finding["severity"].as_str().unwrap() {
            "error" => "error",
            "warning" => "warning",
            _ => "note",
        };
        assert_eq!(result["level"], level, "{result}");
        assert!(
            result["message"]["text"]
                .as_str()
                .unwrap()
                .starts_with(finding["message"].as_str().unwrap())
        );
        let rule = &rules[result["ruleIndex"].as_u64().unwrap() as usize];
        assert_eq!(rule["id"], finding["code"]);
        assert!(!rule["help"]["text"].as_str().unwrap().is_empty());
        let location = &result["locations"][0]["physicalLocation"];
        let file = Path::new(finding["file"].as_str().unwrap());
        let relative = file.strip_prefix(root.path()).unwrap();
        assert_eq!(location["artifactLocation"]["uri"], s(relative));
        assert_eq!(location["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        if let Some(line) = finding["line"].as_u64() {
            assert_eq!(location["region"]["startLine"], line);
        }
    }
    let placeholder = results
        .iter()
        .find(|r| r["ruleId"] == "unfilled-placeholder")
        .expect("an unfilled-placeholder result");
    assert_eq!(
        placeholder["locations"][0]["physicalLocation"]["region"]["startLine"],
        5
    );
    assert_eq!(placeholder["level"], "warning");
    let missing = results
        .iter()
        .find(|r| r["ruleId"] == "missing-required-file")
        .expect("a missing-required-file result");
    assert_eq!(missing["level"], "error");
    // Rules are listed once each, one per finding code.
    let mut ids: Vec<&str> = rules.iter().map(|r| r["id"].as_str().unwrap()).collect();
    ids.sort_unstable();
    let count = ids.len();
    ids.dedup();
    assert_eq!(ids.len(), count);
    assert_a_rule_per_code(&log);
}

#[test]
fn an_import_cycle_has_its_own_rule() {
    let sandbox = Sandbox::new();
    let root = tempfile::tempdir().unwrap();
    let project = root.path().join("app");
    common::write(&project.join("CLAUDE.md"), "# App\n\n@notes.md\n");
    common::write(&project.join("notes.md"), "# Notes\n\n@CLAUDE.md\n");
    let mut command = sandbox.mbank();
    command
        .args(["check", "--format", "sarif", s(&project)])
        .current_dir(root.path());
    let log = common::run_command(command).json();
    assert_valid_sarif(&log);
    let sarif_run = &log["runs"][0];
    let cycle = sarif_run["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ruleId"] == "import-cycle")
        .unwrap_or_else(|| panic!("an import-cycle result: {log:#}"));
    assert_eq!(cycle["level"], "error");
    let rule = &sarif_run["tool"]["driver"]["rules"][cycle["ruleIndex"].as_u64().unwrap() as usize];
    assert_eq!(rule["id"], "import-cycle");
    assert!(rule["help"]["text"].as_str().unwrap().contains("cycle"));
}

#[test]
fn a_clean_check_is_a_valid_sarif_log_with_no_results() {
    let sandbox = Sandbox::new();
    let root = tempfile::tempdir().unwrap();
    let project = root.path().join("clean");
    for name in [
        "projectbrief.md",
        "productContext.md",
        "activeContext.md",
        "systemPatterns.md",
        "techContext.md",
        "progress.md",
        "decisionLog.md",
    ] {
        common::write(
            &project.join("memory-bank").join(name),
            &format!("# {name}\n\nFilled in: see [docs](https://example.org).\n- [ ] a task\n"),
        );
    }
    let run = sandbox.run(&["check", "--format", "sarif", s(&project)]);
    run.expect_code(0);
    let log = run.json();
    assert_valid_sarif(&log);
    assert_eq!(log["runs"][0]["results"].as_array().unwrap().len(), 0);
    assert_a_rule_per_code(&log);
}

#[test]
fn json_and_format_are_one_choice() {
    let sandbox = Sandbox::new();
    let run = sandbox.run(&["check", "--json", "--format", "sarif"]);
    run.expect_code(2);
}

#[test]
fn a_schema_violation_is_caught_by_the_validator() {
    // The validator is live: a log without `version` is refused.
    let log: Value = serde_json::json!({ "runs": [] });
    assert!(!schema().is_valid(&log));
}

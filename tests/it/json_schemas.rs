//! Every read command's `--json` output, on the demo banks, is valid against its JSON
//! Schema in docs/schemas/, the files docs/JSON.md describes.
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::common::Sandbox;

fn validator(command: &str) -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("docs/schemas/{command}.json"));
    let text = std::fs::read_to_string(&path).unwrap();
    let schema: Value = serde_json::from_str(&text).unwrap();
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(&schema)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Asserts `output` is valid against docs/schemas/COMMAND.json, listing every error.
fn assert_valid(command: &str, output: &Value) {
    let errors: Vec<String> = validator(command)
        .iter_errors(output)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "mbank {command} --json does not match docs/schemas/{command}.json:\n{}\n{output:#}",
        errors.join("\n")
    );
}

fn demo_json(sandbox: &Sandbox, args: &[&str]) -> Value {
    let mut all = vec!["--demo"];
    all.extend_from_slice(args);
    all.push("--json");
    sandbox.run(&all).json()
}

#[test]
fn the_read_commands_match_their_schemas_on_the_demo() {
    let sandbox = Sandbox::new();
    let cases: [(&str, &[&str]); 9] = [
        ("list", &["list"]),
        ("check", &["check"]),
        ("tokens", &["tokens", "mobile-app"]),
        ("tokens", &["tokens", "weather-api"]),
        ("context", &["context"]),
        ("timeline", &["timeline"]),
        ("review", &["review"]),
        (
            "search",
            &["search", "why", "did", "we", "choose", "postgres"],
        ),
        ("search", &["search", "decision", "--kind", "decision"]),
    ];
    for (command, args) in cases {
        let output = demo_json(&sandbox, args);
        assert_eq!(output["schema"], format!("mbank.{command}/1"), "{args:?}");
        assert_valid(command, &output);
    }
    // Shapes only some runs have: one agent's session, the summary of one project.
    let one_agent = demo_json(
        &sandbox,
        &["context", "storefront", "--agent", "claude-code"],
    );
    assert_valid("context", &one_agent);
    let found = demo_json(&sandbox, &["search", "decision", "--kind", "decision"]);
    assert!(
        found["results"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| !r["decision"].is_null()),
        "{found:#}"
    );
    let decisions = demo_json(&sandbox, &["timeline", "mobile-app"]);
    assert!(decisions["total"].as_u64().unwrap() > 0, "{decisions:#}");
    assert_valid("timeline", &decisions);
}

#[test]
fn a_review_against_git_head_matches_its_schema() {
    let sandbox = Sandbox::new();
    let project = sandbox.home().join("shop");
    let bank = project.join("memory-bank");
    std::fs::create_dir_all(&bank).unwrap();
    for (name, text) in [
        ("projectBrief.md", "# Brief\n\nA shop.\n"),
        ("activeContext.md", "# Active\n\nWorking on checkout.\n"),
        ("progress.md", "# Progress\n\n- [x] cart\n"),
    ] {
        std::fs::write(bank.join(name), text).unwrap();
    }
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args([
                "-c",
                "commit.gpgsign=false",
                "-c",
                "init.defaultBranch=main",
            ])
            .args(args)
            .current_dir(&project)
            .envs(sandbox.env())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "Test")
            .env("GIT_AUTHOR_EMAIL", "test@example.invalid")
            .env("GIT_COMMITTER_NAME", "Test")
            .env("GIT_COMMITTER_EMAIL", "test@example.invalid")
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "bank"]);
    std::fs::write(
        bank.join("activeContext.md"),
        "# Active\n\nWorking on payments.\n",
    )
    .unwrap();
    std::fs::remove_file(bank.join("progress.md")).unwrap();
    let run = sandbox.run(&["review", project.to_str().unwrap(), "--json"]);
    let output = run.json();
    assert_eq!(
        output["projects"][0]["baseline"]["kind"], "git",
        "{output:#}"
    );
    assert_eq!(output["summary"]["files"], 2, "{output:#}");
    assert_valid("review", &output);
}

//! `mbank adr new TITLE`: the next record of the project's ADR folder, numbered after the
//! highest, in the folder's own naming and template, its path printed.
use crate::common;

use std::fs;
use std::path::Path;

use common::Sandbox;

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn adr_new_numbers_after_the_highest_in_the_folders_style() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("shop");
    let adr = project.join("docs/adr");
    common::write(
        &adr.join("0001-record-architecture-decisions.md"),
        "# 1. Record\n\n## Status\n\nAccepted\n",
    );
    common::write(
        &adr.join("0009-use-redis.md"),
        "# 9. Use Redis\n\n## Status\n\nAccepted\n",
    );
    let run = sandbox.run(&["adr", "new", "Move sessions to Postgres", s(&project)]);
    run.expect_code(0);
    let path = adr.join("0010-move-sessions-to-postgres.md");
    assert_eq!(run.stdout.trim(), s(&path));
    let text = fs::read_to_string(&path).unwrap();
    assert!(
        text.starts_with("# 10. Move sessions to Postgres\n\nDate: "),
        "{text}"
    );
    assert!(text.contains("## Status\n\nProposed\n") && text.contains("## Consequences\n"));

    // A MADR folder stays MADR.
    let madr = project.join("docs/decisions");
    common::write(
        &madr.join("0003-pick-a-queue.md"),
        "# Pick a queue\n\n## Context and Problem Statement\n\n## Considered Options\n",
    );
    let run = sandbox.run(&[
        "adr",
        "new",
        "Cache the catalogue",
        s(&project),
        "--dir",
        "docs/decisions",
    ]);
    run.expect_code(0);
    let text = fs::read_to_string(madr.join("0004-cache-the-catalogue.md")).unwrap();
    assert!(
        text.contains("status: proposed") && text.contains("## Considered Options"),
        "{text}"
    );
}

#[test]
fn adr_new_in_a_conkeeper_bank_uses_its_schema_and_its_folder_first() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("app");
    sandbox
        .run(&[
            "init",
            s(&project),
            "--format",
            "conkeeper",
            "--no-instructions",
        ])
        .expect_code(0);
    common::write(&project.join("docs/adr/0001-x.md"), "# 1. X\n");
    let decisions = project.join(".claude/memory/decisions");
    common::write(
        &decisions.join("ADR-007-offline-cache.md"),
        "# ADR-007: Offline cache\n",
    );
    let run = sandbox.run(&["adr", "new", "Split the sync worker", s(&project)]);
    run.expect_code(0);
    let path = decisions.join("ADR-008-split-the-sync-worker.md");
    assert_eq!(run.stdout.trim(), s(&path));
    let text = fs::read_to_string(&path).unwrap();
    assert!(
        text.starts_with("# ADR-008: Split the sync worker\n\n**Status:** Proposed\n**Date:** "),
        "{text}"
    );
    for section in [
        "## Context",
        "## Decision",
        "## Rationale",
        "## Consequences",
        "## Alternatives Considered",
        "- Positive: ",
        "- Negative: ",
        "- Neutral: ",
    ] {
        assert!(text.contains(section), "{section}: {text}");
    }
    // mbank's timeline reads the record as a proposed decision of the bank.
    let timeline = sandbox.run(&["timeline", s(&project), "--json"]);
    timeline.expect_code(0);
    let json = timeline.json();
    let decision = json["projects"][0]["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["id"] == "ADR-008")
        .cloned()
        .unwrap_or_else(|| panic!("{json}"));
    assert_eq!(decision["title"], "Split the sync worker");
    assert_eq!(decision["status"], "proposed");
}

#[test]
fn adr_new_without_an_adr_folder_says_where_records_go() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let run = sandbox.run(&["adr", "new", "Anything", s(dir.path())]);
    run.expect_code(2);
    assert!(
        run.stderr.contains("no ADR folder") && run.stderr.contains("docs/adr/"),
        "{}",
        run.stderr
    );
    let run = sandbox.run(&["adr", "new", "Anything", s(dir.path()), "--dir", "docs/adr"]);
    run.expect_code(2);
    assert!(
        run.stderr.contains("has no folder docs/adr"),
        "{}",
        run.stderr
    );
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn records_beside_the_code_are_a_bank_the_timeline_reads_and_check_leaves_alone() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    // A project whose only memory is its ADR folder, with an index and a diagram beside
    // the records.
    let project = dir.path().join("billing");
    let adr = project.join("docs/adr");
    common::write(
        &adr.join("0001-record-architecture-decisions.md"),
        "# 1. Record architecture decisions\n\nDate: 2025-04-02\n\n## Status\n\nAccepted\n\n\
         ## Context\n\nWe need to record the decisions made on this project.\n",
    );
    common::write(
        &adr.join("README.md"),
        "# Architecture decisions\n\n## Rules\n\nOne record per decision, never edited once \
         accepted.\n\n## Index\n\n- [1. Record architecture decisions](0001-record-architecture-decisions.md)\n",
    );
    fs::write(adr.join("context.png"), b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
    common::write(&project.join("src/main.rs"), "fn main() {}\n");
    sandbox
        .run(&["adr", "new", "Bill in arrears", s(&project)])
        .expect_code(0);

    let json = sandbox
        .run(&["timeline", "--json", "--root", s(dir.path())])
        .json();
    let projects = json["projects"].as_array().unwrap();
    assert_eq!(projects.len(), 1, "{json:#}");
    let decisions: Vec<(&str, &str, &str)> = projects[0]["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["title"].as_str().unwrap(),
                d["status"].as_str().unwrap(),
                d["file"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    // Sorted by title: the new record is dated by the clock, the first by its text.
    let mut titles: Vec<(&str, &str)> = decisions.iter().map(|d| (d.0, d.1)).collect();
    titles.sort_unstable();
    assert_eq!(
        titles,
        [
            ("Bill in arrears", "proposed"),
            ("Record architecture decisions", "accepted")
        ],
        "{json:#}"
    );
    assert!(decisions.iter().all(|d| !d.2.ends_with("README.md")));

    let list = sandbox
        .run(&["list", "--json", "--root", s(dir.path())])
        .json();
    let formats = list["projects"][0]["formats"].to_string();
    assert!(formats.contains("adr-records"), "{list:#}");
    // Nobody loads the records, and neither the index nor the diagram is a finding.
    let check = sandbox.run(&["check", "--json", s(&project)]);
    let found = check.json()["projects"][0]["findings"].to_string();
    assert!(!found.contains("docs/adr"), "{found}");
}

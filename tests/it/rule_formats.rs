//! The editor and agent rule formats users keep in 2026 — Cursor, GitHub Copilot,
//! Windsurf and Kiro — on projects written into temp folders: each is discovered, listed
//! under its id by `list --json`, listed in read-order layers (what the TUI tree shows),
//! loaded by `context` as its frontmatter says (session start / on demand /
//! agent-requested / manual), and checked by `check` for rules that can never load.
use crate::common;

use std::path::Path;

use common::{Sandbox, write};
use mbank::core::model::{Format, LoadKind};
use mbank::core::scan::{bank, discovery};
use serde_json::Value;

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// A root holding one project, `proj`, made of `files` (path, text).
fn root_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    for (rel, text) in files {
        write(&root.path().join("proj").join(rel), text);
    }
    root
}

/// The format ids `list --json` gives the project `proj`.
fn listed_formats(sandbox: &Sandbox, root: &Path) -> Vec<String> {
    let list = sandbox
        .run(&["list", "--root", s(root), "--json"])
        .expect_code(0)
        .json();
    let projects = list["projects"].as_array().unwrap();
    let names: Vec<&str> = projects
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["proj"], "{list}");
    projects[0]["formats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().to_string())
        .collect()
}

/// `(file, when it loads)` for the bank of `id`, from `context --json`: the pieces loaded
/// at session start, then the files that load later with their kind.
fn context_loads(sandbox: &Sandbox, project: &Path, id: &str) -> Vec<(String, String)> {
    let context = sandbox
        .run(&["context", s(project), "--json"])
        .expect_code(0)
        .json();
    let banks = context["projects"][0]["banks"].as_array().unwrap();
    let bank = banks
        .iter()
        .find(|b| b["format"] == id)
        .unwrap_or_else(|| panic!("no {id} bank in {context}"));
    let started = bank["pieces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (text(&p["display"]), "session-start".to_string()));
    let later = bank["deferred"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (text(&d["display"]), text(&d["load"])));
    started.chain(later).collect()
}

fn text(value: &Value) -> String {
    value.as_str().unwrap().to_string()
}

/// `(code, file name)` of every finding `check --json` reports for the project.
fn findings(sandbox: &Sandbox, project: &Path) -> Vec<(String, String)> {
    let check = sandbox.run(&["check", s(project), "--json"]).json();
    check["projects"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let file = text(&f["file"]);
            let name = Path::new(&file)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            (text(&f["code"]), name)
        })
        .collect()
}

/// `(file, layer, load)` of the bank of `format`, as the TUI tree lists it.
fn layers(project: &Path, format: Format) -> Vec<(String, Option<u8>, LoadKind)> {
    let found = discovery::project_at(project, "proj".into()).unwrap();
    let banks = bank::list_banks(&found);
    let bank = banks.iter().find(|b| b.format == format).unwrap();
    bank.files
        .iter()
        .map(|f| (f.display.clone(), f.layer, f.load))
        .collect()
}

fn pair(file: &str, kind: &str) -> (String, String) {
    (file.to_string(), kind.to_string())
}

#[test]
fn cursor_rules_load_by_their_frontmatter() {
    let root = root_with(&[
        (".cursorrules", "Use bun, never npm.\n"),
        (
            ".cursor/rules/core.mdc",
            "---\ndescription: core\nglobs:\nalwaysApply: true\n---\n# Core\n",
        ),
        (
            // A bare glob, which strict YAML rejects, as Cursor's own examples write it.
            ".cursor/rules/ts.mdc",
            "---\nglobs: **/*.ts\nalwaysApply: false\n---\n# TypeScript\n",
        ),
        (
            ".cursor/rules/migrations.mdc",
            "---\ndescription: Writing database migrations\nalwaysApply: false\n---\n# Migrations\n",
        ),
        (
            ".cursor/rules/lost.mdc",
            "---\ndescription:\nglobs:\nalwaysApply: false\n---\n# Lost\n",
        ),
        (".cursor/rules/notes.txt", "not a rule\n"),
        (".cursor/mcp.json", "{}\n"),
    ]);
    let project = root.path().join("proj");
    let sandbox = Sandbox::new();
    assert_eq!(listed_formats(&sandbox, root.path()), vec!["cursor-rules"]);
    assert_eq!(
        context_loads(&sandbox, &project, "cursor-rules"),
        vec![
            pair(".cursorrules", "session-start"),
            pair(".cursor/rules/core.mdc", "session-start"),
            pair(".cursor/rules/ts.mdc", "on-demand"),
            pair(".cursor/rules/migrations.mdc", "agent-requested"),
            pair(".cursor/rules/lost.mdc", "manual"),
        ]
    );
    assert_eq!(
        layers(&project, Format::CursorRules)
            .iter()
            .map(|(f, layer, _)| (f.as_str(), *layer))
            .collect::<Vec<_>>(),
        vec![
            (".cursorrules", Some(1)),
            (".cursor/rules/core.mdc", Some(2)),
            (".cursor/rules/ts.mdc", Some(2)),
            (".cursor/rules/migrations.mdc", Some(2)),
            (".cursor/rules/lost.mdc", Some(2)),
            (".cursor/rules/notes.txt", None),
        ]
    );
    // The rule nothing can pick is the one finding; the bare glob is not one.
    assert_eq!(
        findings(&sandbox, &project),
        vec![("rule-never-picked".to_string(), "lost.mdc".to_string())]
    );
}

#[test]
fn cursor_reads_rule_subfolders_and_nested_rule_folders_a_few_levels_down() {
    let always = "---\nalwaysApply: true\n---\n";
    let root = root_with(&[
        (
            ".cursor/rules/core.mdc",
            "---\nalwaysApply: true\n---\n# Core\n",
        ),
        // A sub-folder of the rules folder: read like its top.
        (
            ".cursor/rules/frontend/react.mdc",
            "---\nalwaysApply: true\n---\n# React\n",
        ),
        // Nested rules folders apply where they sit: on demand, even when always applied.
        (
            "packages/api/.cursor/rules/api.mdc",
            &format!("{always}# API\n"),
        ),
        (
            "packages/api/.cursor/rules/sql/queries.mdc",
            "---\ndescription: SQL queries\n---\n# SQL\n",
        ),
        // Past the depth bound, and in skipped folders: not read.
        (
            "a/b/c/d/e/f/g/h/i/.cursor/rules/deep.mdc",
            &format!("{always}# Deep\n"),
        ),
        (
            "node_modules/pkg/.cursor/rules/vendored.mdc",
            &format!("{always}# Vendored\n"),
        ),
    ]);
    let project = root.path().join("proj");
    let sandbox = Sandbox::new();
    assert_eq!(listed_formats(&sandbox, root.path()), vec!["cursor-rules"]);
    assert_eq!(
        context_loads(&sandbox, &project, "cursor-rules"),
        vec![
            pair(".cursor/rules/core.mdc", "session-start"),
            pair(".cursor/rules/frontend/react.mdc", "session-start"),
            pair("packages/api/.cursor/rules/api.mdc", "on-demand"),
            pair(
                "packages/api/.cursor/rules/sql/queries.mdc",
                "agent-requested"
            ),
        ]
    );
    assert_eq!(
        layers(&project, Format::CursorRules)
            .iter()
            .map(|(f, layer, _)| (f.as_str(), *layer))
            .collect::<Vec<_>>(),
        vec![
            (".cursor/rules/core.mdc", Some(2)),
            (".cursor/rules/frontend/react.mdc", Some(2)),
            ("packages/api/.cursor/rules/api.mdc", Some(3)),
            ("packages/api/.cursor/rules/sql/queries.mdc", Some(3)),
        ]
    );
}

#[cfg(unix)]
#[test]
fn a_nested_cursor_rules_folder_linked_out_of_the_project_is_not_read() {
    let root = root_with(&[(
        ".cursor/rules/core.mdc",
        "---\nalwaysApply: true\n---\n# Core\n",
    )]);
    let outside = tempfile::tempdir().unwrap();
    write(
        &outside.path().join("rules/secret.mdc"),
        "---\nalwaysApply: true\n---\nOUTSIDE-RULE\n",
    );
    let project = root.path().join("proj");
    std::fs::create_dir_all(project.join("web/.cursor")).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("rules"),
        project.join("web/.cursor/rules"),
    )
    .unwrap();
    let sandbox = Sandbox::new();
    let run = sandbox.run(&["context", s(&project), "--json"]);
    run.expect_code(0);
    assert!(!run.stdout.contains("OUTSIDE-RULE"));
    assert!(
        !run.stdout.contains("web/.cursor/rules/secret.mdc"),
        "{}",
        run.stdout
    );
}

#[test]
fn broken_cursor_frontmatter_is_a_finding() {
    let root = root_with(&[
        (
            ".cursor/rules/open.mdc",
            "---\nalwaysApply: true\n# never closed\n",
        ),
        (
            ".cursor/rules/odd.mdc",
            "---\nalwaysApply: yes\nthis line is no setting\nglobs: src/**\n---\n# Odd\n",
        ),
    ]);
    let project = root.path().join("proj");
    let sandbox = Sandbox::new();
    let mut found = findings(&sandbox, &project);
    found.sort();
    assert_eq!(
        found,
        vec![
            ("frontmatter-invalid".to_string(), "odd.mdc".to_string()),
            ("frontmatter-unclosed".to_string(), "open.mdc".to_string()),
            ("rule-frontmatter-value".to_string(), "odd.mdc".to_string()),
        ]
    );
    // An unclosed frontmatter is an error: check fails.
    sandbox.run(&["check", s(&project)]).expect_code(1);
}

#[test]
fn copilot_instructions_load_by_apply_to() {
    let root = root_with(&[
        (
            ".github/copilot-instructions.md",
            "# Repository\nRun make test.\n",
        ),
        (
            ".github/instructions/everywhere.instructions.md",
            "---\napplyTo: \"**\"\n---\n# Everywhere\n",
        ),
        (
            ".github/instructions/python.instructions.md",
            "---\napplyTo: \"**/*.py,scripts/**\"\n---\n# Python\n",
        ),
        (
            ".github/instructions/attached.instructions.md",
            "---\ndescription: only when attached\n---\n# Attached\n",
        ),
        (".github/workflows/ci.yml", "on: push\n"),
    ]);
    let project = root.path().join("proj");
    let sandbox = Sandbox::new();
    assert_eq!(listed_formats(&sandbox, root.path()), vec!["copilot"]);
    assert_eq!(
        context_loads(&sandbox, &project, "copilot"),
        vec![
            pair(".github/copilot-instructions.md", "session-start"),
            pair(
                ".github/instructions/everywhere.instructions.md",
                "session-start"
            ),
            pair(".github/instructions/python.instructions.md", "on-demand"),
            pair(".github/instructions/attached.instructions.md", "manual"),
        ]
    );
    let tree = layers(&project, Format::Copilot);
    assert_eq!(tree[0].1, Some(1));
    assert!(tree[1..].iter().all(|(_, layer, _)| *layer == Some(2)));
    assert_eq!(
        findings(&sandbox, &project),
        vec![(
            "rule-never-picked".to_string(),
            "attached.instructions.md".to_string()
        )]
    );
}

#[test]
fn copilot_code_review_budget_counts_characters() {
    let long = format!("# Long\n{}\n", "word ".repeat(1_000));
    let root = root_with(&[(".github/copilot-instructions.md", long.as_str())]);
    let sandbox = Sandbox::new();
    let tokens = sandbox
        .run(&["check", s(&root.path().join("proj")), "--json"])
        .json();
    let text = tokens.to_string();
    assert!(text.contains("4,000 characters"), "{text}");
}

#[test]
fn windsurf_rules_load_by_trigger() {
    let root = root_with(&[
        (".windsurfrules", "# Legacy\nKeep it short.\n"),
        (
            ".windsurf/rules/style.md",
            "---\ntrigger: always_on\n---\n# Style\n",
        ),
        (
            ".windsurf/rules/js.md",
            "---\ntrigger: glob\nglobs: *.js\n---\n# JavaScript\n",
        ),
        (
            ".windsurf/rules/db.md",
            "---\ntrigger: model_decision\ndescription: database work\n---\n# Database\n",
        ),
        (
            ".windsurf/rules/release.md",
            "---\ntrigger: manual\n---\n# Release\n",
        ),
        (
            ".windsurf/rules/broken.md",
            "---\ntrigger: glob\n---\n# Broken\n",
        ),
    ]);
    let project = root.path().join("proj");
    let sandbox = Sandbox::new();
    assert_eq!(listed_formats(&sandbox, root.path()), vec!["windsurf"]);
    assert_eq!(
        context_loads(&sandbox, &project, "windsurf"),
        vec![
            pair(".windsurfrules", "session-start"),
            pair(".windsurf/rules/style.md", "session-start"),
            pair(".windsurf/rules/js.md", "on-demand"),
            pair(".windsurf/rules/db.md", "agent-requested"),
            pair(".windsurf/rules/broken.md", "manual"),
            pair(".windsurf/rules/release.md", "manual"),
        ]
    );
    assert_eq!(layers(&project, Format::Windsurf)[0].1, Some(1));
    assert_eq!(
        findings(&sandbox, &project),
        vec![("rule-never-picked".to_string(), "broken.md".to_string())]
    );
}

#[test]
fn windsurf_rules_past_12000_characters_are_cut() {
    let long = format!("# Long\n{}\n", "x".repeat(12_500));
    let root = root_with(&[(".windsurf/rules/long.md", long.as_str())]);
    let sandbox = Sandbox::new();
    let check = sandbox
        .run(&["check", s(&root.path().join("proj")), "--json"])
        .json()
        .to_string();
    assert!(check.contains("12,000 characters"), "{check}");
}

#[test]
fn kiro_steering_loads_by_inclusion() {
    let root = root_with(&[
        (".kiro/steering/product.md", "# Product\nA shop.\n"),
        (
            ".kiro/steering/tech.md",
            "---\ninclusion: always\n---\n# Tech\n",
        ),
        (
            ".kiro/steering/components.md",
            "---\ninclusion: fileMatch\nfileMatchPattern: \"components/**/*.tsx\"\n---\n# Components\n",
        ),
        (
            ".kiro/steering/deploy.md",
            "---\ninclusion: manual\n---\n# Deploy\n",
        ),
        (
            ".kiro/steering/api.md",
            "---\ninclusion: fileMatch\n---\n# API\n",
        ),
        (".kiro/specs/feature/requirements.md", "# Not steering\n"),
    ]);
    let project = root.path().join("proj");
    let sandbox = Sandbox::new();
    assert_eq!(listed_formats(&sandbox, root.path()), vec!["kiro"]);
    assert_eq!(
        context_loads(&sandbox, &project, "kiro"),
        vec![
            pair(".kiro/steering/product.md", "session-start"),
            pair(".kiro/steering/tech.md", "session-start"),
            pair(".kiro/steering/components.md", "on-demand"),
            pair(".kiro/steering/api.md", "manual"),
            pair(".kiro/steering/deploy.md", "manual"),
        ]
    );
    assert!(
        layers(&project, Format::Kiro)
            .iter()
            .all(|(f, layer, _)| f.starts_with(".kiro/steering/") && *layer == Some(1))
    );
    assert_eq!(
        findings(&sandbox, &project),
        vec![("rule-never-picked".to_string(), "api.md".to_string())]
    );
}

#[test]
fn tool_folders_without_rules_make_no_project() {
    let root = tempfile::tempdir().unwrap();
    let r = root.path();
    write(&r.join("ci/.github/workflows/ci.yml"), "on: push\n");
    write(&r.join("editor/.cursor/mcp.json"), "{}\n");
    write(&r.join("kiro/.kiro/specs/a/design.md"), "# Design\n");
    write(
        &r.join("windsurf/.windsurf/workflows/deploy.md"),
        "# Deploy\n",
    );
    // A sub-folder's own rules are a layer of the project around it, not a project.
    write(&r.join("mono/.cursorrules"), "root rules\n");
    write(
        &r.join("mono/web/.cursor/rules/web.mdc"),
        "---\nalwaysApply: true\n---\n",
    );
    let sandbox = Sandbox::new();
    let list = sandbox
        .run(&["list", "--root", s(r), "--json"])
        .expect_code(0)
        .json();
    let names: Vec<&str> = list["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["mono"]);
}

#[test]
fn every_rule_format_of_one_project_is_its_own_bank() {
    let root = root_with(&[
        ("memory-bank/progress.md", "# Progress\n"),
        (".cursor/rules/a.mdc", "---\nalwaysApply: true\n---\n# A\n"),
        (".github/copilot-instructions.md", "# Copilot\n"),
        (".windsurfrules", "# Windsurf\n"),
        (".kiro/steering/product.md", "# Product\n"),
    ]);
    let sandbox = Sandbox::new();
    assert_eq!(
        listed_formats(&sandbox, root.path()),
        vec!["cline", "cursor-rules", "copilot", "windsurf", "kiro"]
    );
}

#[cfg(unix)]
#[test]
fn rule_files_linked_out_of_the_project_are_reported_never_read() {
    use std::os::unix::fs::symlink;
    let root = root_with(&[(
        ".cursor/rules/ok.mdc",
        "---\nalwaysApply: true\n---\n# Ok\n",
    )]);
    let outside = tempfile::tempdir().unwrap();
    write(&outside.path().join("secret.md"), "SECRET RULE\n");
    let project = root.path().join("proj");
    symlink(
        outside.path().join("secret.md"),
        project.join(".cursorrules"),
    )
    .unwrap();
    symlink(outside.path(), project.join(".cursor/rules/linked")).unwrap();
    let sandbox = Sandbox::new();
    let context = sandbox
        .run(&["context", s(&project), "--json"])
        .expect_code(0)
        .json();
    let text = context.to_string();
    assert!(!text.contains("SECRET RULE"), "{text}");
    let check = sandbox.run(&["check", s(&project), "--json"]).json();
    let outside_links: Vec<&str> = check["projects"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "symlink-outside")
        .map(|f| f["file"].as_str().unwrap())
        .collect();
    assert!(
        outside_links.iter().any(|f| f.ends_with(".cursorrules")),
        "{check}"
    );
}

#[test]
fn cline_rules_with_paths_load_on_demand() {
    let root = root_with(&[
        (".clinerules/01-style.md", "# Style\n- Tabs\n"),
        (
            ".clinerules/02-react.md",
            "---\npaths:\n  - \"src/components/**\"\n  - \"src/hooks/**\"\n---\n# React\n",
        ),
        (
            ".clinerules/03-described.md",
            "---\ndescription: no paths here\n---\n# Described\n",
        ),
    ]);
    let project = root.path().join("proj");
    let loads: Vec<(String, LoadKind)> = layers(&project, Format::RooRules)
        .into_iter()
        .map(|(display, _, load)| (display, load))
        .collect();
    assert_eq!(
        loads,
        vec![
            (".clinerules/01-style.md".to_string(), LoadKind::Startup),
            (".clinerules/03-described.md".to_string(), LoadKind::Startup),
            (".clinerules/02-react.md".to_string(), LoadKind::OnDemand),
        ]
    );
    let sandbox = Sandbox::new();
    let id = Format::RooRules.id();
    let loaded = context_loads(&sandbox, &project, id);
    assert!(
        loaded.contains(&pair(".clinerules/01-style.md", "session-start")),
        "{loaded:?}"
    );
    assert!(
        !loaded.contains(&pair(".clinerules/02-react.md", "session-start")),
        "{loaded:?}"
    );
}

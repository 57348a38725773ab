//! Beans-Code's memory as its configuration shapes it: the `memory` object of
//! `~/.beans/settings.json` and `.beans/settings.json` (file names such as `CONTEXT.md`,
//! `searchParents`, `searchChildren`, `maxLines`, `imports`, folder trust), the BEANS.md
//! files of the folders above the project up to the git root, and rules ordered by
//! `priority`.
use crate::common;

use std::path::Path;
use std::process::Command;

use common::context::{bank, displays};
use common::{Sandbox, write};
use serde_json::Value;

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// The findings `mbank check` reports for the project, as (code, message).
fn findings(sandbox: &Sandbox, project: &Path) -> Vec<(String, String)> {
    let run = sandbox.run(&["check", s(project), "--json"]);
    let json = run.json();
    json["projects"][0]["findings"]
        .as_array()
        .unwrap_or_else(|| panic!("no findings in {json:#}"))
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_string(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The Beans-Code bank's files as `mbank tokens` lists them: (display, load), in read
/// order.
fn listed(sandbox: &Sandbox, project: &Path) -> Vec<(String, String)> {
    let run = sandbox.run(&["tokens", s(project), "--json"]);
    run.expect_code(0);
    let json = run.json();
    let banks = json["banks"]
        .as_array()
        .unwrap_or_else(|| panic!("no banks in {json:#}"));
    let beans = banks
        .iter()
        .find(|b| b["format"] == "beans-md")
        .unwrap_or_else(|| panic!("no beans-md bank in {json:#}"));
    beans["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["display"].as_str().unwrap().to_string(),
                f["load"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

fn beans_context(sandbox: &Sandbox, project: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["context", s(project), "--json"];
    args.extend_from_slice(extra);
    let run = sandbox.run(&args);
    run.expect_code(0);
    run.json()
}

#[test]
fn a_root_holding_only_context_md_is_found_and_loads_once_file_names_name_it() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("app");
    write(&p.join("CONTEXT.md"), "# Context\nCONTEXT-TEXT\n");

    // Found and listed where BEANS.md sits; Beans-Code's default names only BEANS.md.
    assert_eq!(listed(&sandbox, &p), pairs(&[("CONTEXT.md", "never")]));
    // Nothing else shows Beans-Code: a CONTEXT.md is as likely a glossary, never called
    // a misnamed memory file.
    assert!(
        !findings(&sandbox, &p)
            .iter()
            .any(|(code, _)| code == "instructions-misnamed")
    );
    // The user has Beans-Code: its default reads BEANS.md only.
    std::fs::create_dir_all(sandbox.home().join(".beans")).unwrap();
    let found = findings(&sandbox, &p);
    let misnamed = found
        .iter()
        .find(|(code, _)| code == "instructions-misnamed")
        .unwrap_or_else(|| panic!("{found:?}"));
    assert!(
        misnamed
            .1
            .contains("Beans-Code never reads CONTEXT.md: it reads memory files named BEANS.md"),
        "{}",
        misnamed.1
    );

    // The user's settings name it: it loads at start-up, counted, before BEANS.md as the
    // list orders them.
    write(
        &sandbox.home().join(".beans/settings.json"),
        r#"{"memory": {"fileNames": ["CONTEXT.md", "BEANS.md"]}}"#,
    );
    write(&p.join("BEANS.md"), "# Beans\n");
    assert_eq!(
        listed(&sandbox, &p),
        pairs(&[("CONTEXT.md", "startup"), ("BEANS.md", "startup")])
    );
    let json = beans_context(&sandbox, &p, &["--no-user"]);
    let beans = bank(&json, "beans-md");
    assert_eq!(displays(beans), vec!["CONTEXT.md", "BEANS.md"]);
    assert!(beans["total_tokens"].as_u64().unwrap() > 0);
    assert!(json.to_string().contains("CONTEXT-TEXT"));
    assert!(
        !findings(&sandbox, &p)
            .iter()
            .any(|(code, _)| code == "instructions-misnamed")
    );

    // A name the configuration drops is no longer read.
    write(
        &p.join(".beans/settings.json"),
        r#"{"memory": {"fileNames": ["TEAM.md"]}}"#,
    );
    write(&p.join("TEAM.md"), "# Team\n");
    write(&p.join("docs/TEAM.md"), "# Docs team\n");
    assert_eq!(
        listed(&sandbox, &p),
        pairs(&[
            ("TEAM.md", "startup"),
            ("BEANS.md", "never"),
            ("CONTEXT.md", "never"),
            ("docs/TEAM.md", "on-demand"),
        ])
    );
}

#[test]
fn parents_up_to_the_git_root_load_outermost_first_unless_search_parents_is_off() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("outside/repo");
    let p = repo.join("packages/web");
    // Above the repository's top: never read.
    write(&dir.path().join("outside/BEANS.md"), "# OUTSIDE-THE-REPO\n");
    write(&repo.join("BEANS.md"), "# Repo-wide\nREPO-TEXT\n");
    write(&repo.join("packages/BEANS.md"), "# Packages\n");
    write(&p.join("BEANS.md"), "# Web\n");
    write(&sandbox.home().join(".beans/BEANS.md"), "# Mine\n");
    let init = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&repo)
        .status()
        .unwrap();
    assert!(init.success());

    let json = beans_context(&sandbox, &p, &[]);
    let beans = bank(&json, "beans-md");
    assert_eq!(
        displays(beans),
        vec![
            "~/.beans/BEANS.md",
            "../../BEANS.md",
            "../BEANS.md",
            "BEANS.md"
        ]
    );
    let scopes: Vec<&str> = beans["pieces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["scope"].as_str().unwrap())
        .collect();
    assert_eq!(scopes, vec!["user", "ancestor", "ancestor", "project"]);
    let sum: u64 = beans["pieces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["tokens"].as_u64().unwrap())
        .sum();
    assert_eq!(beans["total_tokens"].as_u64(), Some(sum));
    let text = json.to_string();
    assert!(text.contains("REPO-TEXT"));
    assert!(!text.contains("OUTSIDE-THE-REPO"), "{text}");

    // The configured names are the parents' too.
    write(
        &sandbox.home().join(".beans/settings.json"),
        r#"{"memory": {"fileNames": ["BEANS.md", "CONTEXT.md"]}}"#,
    );
    write(&repo.join("CONTEXT.md"), "# Repo context\n");
    let json = beans_context(&sandbox, &p, &["--no-user"]);
    assert_eq!(
        displays(bank(&json, "beans-md")),
        vec![
            "../../BEANS.md",
            "../../CONTEXT.md",
            "../BEANS.md",
            "BEANS.md"
        ]
    );

    // searchParents: false in the project's settings.
    write(
        &p.join(".beans/settings.json"),
        r#"{"memory": {"searchParents": false}}"#,
    );
    let json = beans_context(&sandbox, &p, &["--no-user"]);
    assert_eq!(displays(bank(&json, "beans-md")), vec!["BEANS.md"]);

    // At the repository's top there is nothing above to inherit.
    let json = beans_context(&sandbox, &repo, &["--no-user"]);
    assert_eq!(
        displays(bank(&json, "beans-md")),
        vec!["BEANS.md", "CONTEXT.md"]
    );
}

#[test]
fn max_lines_and_the_import_settings_judge_and_shape_what_loads() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("app");
    let body: String = (0..30).map(|i| format!("- rule {i}\n")).collect();
    write(&p.join("BEANS.md"), &format!("# App\n@a.md\n{body}"));
    write(&p.join("a.md"), "A-TEXT\n@b.md\n");
    write(&p.join("b.md"), "B-TEXT\n");

    // Defaults: 200 lines, five hops.
    let found = findings(&sandbox, &p);
    assert!(
        !found.iter().any(|(code, _)| code == "budget-over"),
        "{found:?}"
    );
    let text = beans_context(&sandbox, &p, &["--no-user"]).to_string();
    assert!(text.contains("A-TEXT") && text.contains("B-TEXT"));

    write(
        &p.join(".beans/settings.json"),
        r#"{"memory": {"maxLines": 10, "imports": {"maxDepth": 1}}}"#,
    );
    let found = findings(&sandbox, &p);
    let over = found
        .iter()
        .find(|(code, message)| code == "budget-over" && message.contains("maxLines"))
        .unwrap_or_else(|| panic!("{found:?}"));
    assert!(
        over.1
            .contains("≤ 10 lines loaded at start-up (maxLines in .beans/settings.json)"),
        "{}",
        over.1
    );
    assert!(
        found.iter().any(|(code, _)| code == "import-too-deep"),
        "{found:?}"
    );
    let text = beans_context(&sandbox, &p, &["--no-user"]).to_string();
    assert!(
        text.contains("A-TEXT") && !text.contains("B-TEXT"),
        "{text}"
    );

    write(
        &p.join(".beans/settings.json"),
        r#"{"memory": {"imports": {"enabled": false}}}"#,
    );
    let text = beans_context(&sandbox, &p, &["--no-user"]).to_string();
    assert!(!text.contains("A-TEXT"), "{text}");
    let found = findings(&sandbox, &p);
    assert!(
        !found.iter().any(|(code, _)| code.starts_with("import-")),
        "{found:?}"
    );
}

#[test]
fn unknown_or_ill_typed_keys_are_findings_naming_the_file_and_defaults_apply() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("app");
    write(&p.join("BEANS.md"), "# App\n");
    write(
        &p.join(".beans/settings.json"),
        r#"{"memory": {"maxLine": 3, "searchChildren": "yes", "fileNames": []}}"#,
    );
    let found = findings(&sandbox, &p);
    let problems: Vec<&str> = found
        .iter()
        .filter(|(code, _)| code == "listing-problem")
        .map(|(_, message)| message.as_str())
        .collect();
    assert_eq!(problems.len(), 3, "{found:?}");
    for part in [
        "maxLine in .beans/settings.json is not a Beans-Code memory setting",
        "searchChildren in .beans/settings.json is not true or false",
        "fileNames in .beans/settings.json is not a non-empty list",
    ] {
        assert!(
            problems.iter().any(|m| m.contains(part)),
            "{part}: {problems:?}"
        );
    }
    assert_eq!(listed(&sandbox, &p), pairs(&[("BEANS.md", "startup")]));

    write(
        &sandbox.home().join(".beans/settings.json"),
        "{\"memory\": ",
    );
    let found = findings(&sandbox, &p);
    assert!(
        found.iter().any(|(code, message)| code == "listing-problem"
            && message.contains("~/.beans/settings.json is not valid JSON (line 1")),
        "{found:?}"
    );
}

#[test]
fn an_untrusted_folder_loads_only_the_global_memory() {
    let sandbox = Sandbox::new();
    let home = sandbox.home();
    let dir = tempfile::tempdir().unwrap();
    let untrusted = dir.path().join("app");
    let trusted = home.join("work/app");
    for p in [&untrusted, &trusted] {
        write(&p.join("BEANS.md"), "# PROJECT-TEXT\n");
        write(
            &p.join(".beans/rules/testing.md"),
            "---\ntriggers: [test]\n---\n# T\n",
        );
    }
    write(&home.join(".beans/BEANS.md"), "# GLOBAL-TEXT\n");
    write(
        &home.join(".beans/settings.json"),
        r#"{"memory": {"folderTrust": {"enabled": true, "trustedFolders": ["~/work"]}}}"#,
    );

    let json = beans_context(&sandbox, &untrusted, &[]);
    assert_eq!(displays(bank(&json, "beans-md")), vec!["~/.beans/BEANS.md"]);
    assert!(!json.to_string().contains("PROJECT-TEXT"));
    assert_eq!(
        listed(&sandbox, &untrusted),
        pairs(&[("BEANS.md", "never"), (".beans/rules/testing.md", "never")])
    );
    let found = findings(&sandbox, &untrusted);
    assert!(
        found.iter().any(|(code, message)| code == "listing-problem"
            && message
                .contains("is not in a trusted folder (folderTrust in ~/.beans/settings.json)")),
        "{found:?}"
    );

    let json = beans_context(&sandbox, &trusted, &[]);
    assert_eq!(
        displays(bank(&json, "beans-md")),
        vec!["~/.beans/BEANS.md", "BEANS.md"]
    );
}

#[test]
fn rules_are_read_lower_priority_first_and_search_children_loads_sub_folders_at_start() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("app");
    write(&p.join("BEANS.md"), "# App\n");
    for (name, priority) in [
        ("a-high", "priority: high\n"),
        ("b-low", "priority: low\n"),
        ("c-none", ""),
        ("d-odd", "priority: urgent\n"),
        ("e-medium", "priority: Medium\n"),
    ] {
        write(
            &p.join(format!(".beans/rules/{name}.md")),
            &format!("---\ntriggers: [x]\n{priority}---\n# {name}\n"),
        );
    }
    write(&p.join("api/BEANS.md"), "# Api\n");
    write(&p.join("api/v1/deep/BEANS.md"), "# Deep\n");
    let rules = |list: Vec<(String, String)>| -> Vec<String> {
        list.into_iter()
            .filter(|(d, _)| d.starts_with(".beans/rules/"))
            .map(|(d, _)| d)
            .collect()
    };
    assert_eq!(
        rules(listed(&sandbox, &p)),
        vec![
            ".beans/rules/d-odd.md",
            ".beans/rules/b-low.md",
            ".beans/rules/c-none.md",
            ".beans/rules/e-medium.md",
            ".beans/rules/a-high.md",
        ]
    );
    let sub_folders = |list: Vec<(String, String)>| -> Vec<(String, String)> {
        list.into_iter()
            .filter(|(d, _)| d.starts_with("api/"))
            .collect()
    };
    assert_eq!(
        sub_folders(listed(&sandbox, &p)),
        pairs(&[
            ("api/BEANS.md", "on-demand"),
            ("api/v1/deep/BEANS.md", "on-demand")
        ])
    );
    write(
        &p.join(".beans/settings.json"),
        r#"{"memory": {"searchChildren": true, "maxDepth": 2}}"#,
    );
    let listed_now = listed(&sandbox, &p);
    assert_eq!(
        sub_folders(listed_now),
        pairs(&[
            ("api/BEANS.md", "startup"),
            ("api/v1/deep/BEANS.md", "on-demand")
        ])
    );
    let json = beans_context(&sandbox, &p, &["--no-user"]);
    assert_eq!(
        displays(bank(&json, "beans-md")),
        vec!["BEANS.md", "api/BEANS.md"]
    );
}

/// A file Beans-Code's `fileNames` shares with another agent (CLAUDE.md) is listed by
/// both agents' banks but counted once in the project's files.
#[test]
fn a_file_two_agents_read_counts_once_in_the_projects_files() {
    let sandbox = Sandbox::new();
    let root = tempfile::tempdir().unwrap();
    let p = root.path().join("app");
    write(&p.join("CLAUDE.md"), "# Claude\nShared memory.\n");
    write(&p.join("BEANS.md"), "# Beans\n");
    write(
        &p.join(".beans/settings.json"),
        r#"{"memory": {"fileNames": ["CLAUDE.md", "BEANS.md"]}}"#,
    );
    assert_eq!(
        listed(&sandbox, &p),
        pairs(&[("CLAUDE.md", "startup"), ("BEANS.md", "startup")])
    );
    let run = sandbox.run(&["list", "--json", "--root", s(root.path())]);
    run.expect_code(0);
    let json = run.json();
    let projects = json["projects"].as_array().unwrap();
    assert_eq!(projects.len(), 1, "{json:#}");
    assert_eq!(projects[0]["files"], 2, "{json:#}");
}

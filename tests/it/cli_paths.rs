//! A relative PATH is resolved against the current folder before anything is built on
//! it: `mbank review .` — the guide's own pre-commit hook —
//! and `check .` / `context .` see imports that leave the project exactly as an
//! absolute PATH does.
use crate::common;

use std::path::Path;

use common::{Sandbox, run_command, write};

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// `mbank ARGS` run from `cwd`.
fn run_in(sandbox: &Sandbox, cwd: &Path, args: &[&str]) -> common::Run {
    let mut command = sandbox.mbank();
    command.args(args).current_dir(cwd);
    run_command(command)
}

#[test]
fn a_relative_path_sees_imports_leave_the_project_as_an_absolute_one_does() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("a/proj");
    // One import that leaves the project to a file that does not exist, one two levels up.
    write(
        &project.join("CLAUDE.md"),
        "# Main\n@../outside.md\n@../../far.md\n",
    );
    let data = dir.path().join("data");
    let review = |path: &str| {
        let mut command = sandbox.mbank();
        command
            .args(["review", path, "--json"])
            .current_dir(&project)
            .env("MBANK_DATA_DIR", &data);
        run_command(command)
    };
    let signals = |run: &common::Run| -> Vec<String> {
        run.json()["projects"][0]["files"][0]["signals"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| format!("{} {}", s["code"], s["message"]))
            .collect()
    };
    let relative = review(".");
    let absolute = review(s(&project));
    assert_eq!(signals(&relative), signals(&absolute));
    assert_eq!(
        signals(&absolute)
            .iter()
            .filter(|s| s.contains("import-outside-project"))
            .count(),
        2,
        "{:?}",
        signals(&absolute)
    );
    for command in ["check", "context"] {
        let findings = |path: &str| {
            let run = run_in(&sandbox, &project, &[command, path, "--json"]);
            let json = run.json();
            let list = if command == "check" {
                json["projects"][0]["findings"].clone()
            } else {
                json["projects"][0]["banks"][0]["import_findings"].clone()
            };
            list.as_array()
                .unwrap()
                .iter()
                .map(|f| f["message"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        };
        let relative = findings(".");
        assert_eq!(relative, findings(s(&project)), "{command}");
        assert!(
            relative
                .iter()
                .any(|m| m.contains(s(&dir.path().join("far.md")))),
            "{command}: {relative:?}"
        );
    }
}

#[test]
fn check_of_a_project_checks_the_projects_in_its_sub_folders_too() {
    let sandbox = Sandbox::new();
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("mono");
    write(&repo.join("CLAUDE.md"), "# Mono\n\nUse pnpm.\n");
    let web = repo.join("apps/web");
    for name in [
        "projectbrief",
        "productContext",
        "systemPatterns",
        "techContext",
        "activeContext",
    ] {
        write(
            &web.join(format!("memory-bank/{name}.md")),
            &format!("# {name}\n\nThe web app.\n"),
        );
    }
    // `progress.md` is missing from the app's Cline bank: a finding of the app's.
    let names = |run: &common::Run| -> Vec<(String, usize)> {
        run.json()["projects"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p["name"].as_str().unwrap().to_string(),
                    p["findings"].as_array().map_or(0, Vec::len),
                )
            })
            .collect()
    };
    for path in [".".to_string(), s(&repo).to_string()] {
        let run = run_in(&sandbox, &repo, &["check", &path, "--json"]);
        let found = names(&run);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].0, "mono");
        assert_eq!(found[1].0, "apps/web");
        assert!(found[1].1 >= 1, "{found:?}");
    }
    // A folder of the app's bank names the app alone.
    let run = run_in(
        &sandbox,
        &repo,
        &["check", "apps/web/memory-bank", "--json"],
    );
    let found = names(&run);
    assert_eq!(found.len(), 1, "{found:?}");
}

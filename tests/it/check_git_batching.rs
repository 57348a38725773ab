//! `mbank check` runs git only where there is a repository, and once per repository for
//! all the projects inside it (not once per project); `mbank list` likewise (per batch
//! of projects), and not at all when warm. Counted, not timed: a `git` on
//! PATH in front of the real one logs every invocation. The facts stay right per
//! project: the append-only check, commit times, files touched but unchanged.
#![cfg(unix)]

use crate::common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

const LOG: &str = "# Decision Log\n\n## 2025-01-10 - Use SQLite\n\nSmall data.\n\n## 2025-02-01 - Ship weekly\n\nSmall batches.\n";
const PROJECTS: usize = 30;

struct Counted {
    temp: tempfile::TempDir,
    sandbox: common::Sandbox,
}

impl Counted {
    fn new() -> Counted {
        let temp = tempfile::tempdir().unwrap();
        let real = Command::new("sh")
            .args(["-c", "command -v git"])
            .output()
            .unwrap();
        let real = String::from_utf8_lossy(&real.stdout).trim().to_string();
        assert!(!real.is_empty(), "git is on PATH");
        let wrapper = temp.path().join("bin/git");
        fs::create_dir_all(wrapper.parent().unwrap()).unwrap();
        fs::write(
            &wrapper,
            format!(
                "#!/bin/sh\necho \"$*\" >> '{}'\nexec '{real}' \"$@\"\n",
                temp.path().join("git.log").display()
            ),
        )
        .unwrap();
        fs::set_permissions(&wrapper, fs::Permissions::from_mode(0o755)).unwrap();
        Counted {
            temp,
            sandbox: common::Sandbox::new(),
        }
    }

    fn root(&self) -> PathBuf {
        self.temp.path().join("root")
    }

    fn project(&self, name: &str) -> PathBuf {
        let dir = self.root().join(name);
        common::write(&dir.join("memory-bank/projectbrief.md"), "# Brief\n\nA.\n");
        common::write(
            &dir.join("memory-bank/activeContext.md"),
            "# Active\n\nB.\n",
        );
        common::write(&dir.join("memory-bank/progress.md"), "# Progress\n\nC.\n");
        common::write(&dir.join("memory-bank/decisionLog.md"), LOG);
        dir
    }

    fn git(&self, dir: &Path, args: &[&str]) {
        let home = self.temp.path().join("home");
        fs::create_dir_all(&home).unwrap();
        common::git_stdout(args, common::git_output(dir, &home, &[], args));
    }

    fn commit_all(&self, dir: &Path) {
        self.git(dir, &["init", "-q", "-b", "main"]);
        self.git(dir, &["add", "-A"]);
        self.git(dir, &["commit", "-q", "-m", "start"]);
    }

    /// Runs mbank with the counting git first on PATH; the git invocations logged.
    fn run(&self, dir: &Path, args: &[&str]) -> (common::Run, Vec<String>) {
        self.run_with(dir, &[], args)
    }

    /// [`Counted::run`] with more variables in mbank's environment.
    fn run_with(
        &self,
        dir: &Path,
        vars: &[(&str, &str)],
        args: &[&str],
    ) -> (common::Run, Vec<String>) {
        let log = self.temp.path().join("git.log");
        let _ = fs::remove_file(&log);
        let mut command = self.sandbox.mbank();
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut paths = vec![self.temp.path().join("bin")];
        paths.extend(std::env::split_paths(&path));
        command
            .env("PATH", std::env::join_paths(paths).unwrap())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .envs(vars.iter().copied())
            .current_dir(dir)
            .args(["--encoding", "bytes4"])
            .args(args);
        let run = common::run_command(command);
        let calls = fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect();
        (run, calls)
    }
}

fn codes(json: &serde_json::Value, name: &str) -> Vec<String> {
    json["projects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("no project {name}"))["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_string())
        .collect()
}

fn outside_any_repository(dir: &Path) -> bool {
    let inside = Command::new("git")
        .args(["rev-parse", "--show-toplevel"])
        .current_dir(dir)
        .output()
        .is_ok_and(|o| o.status.success());
    if inside {
        eprintln!("the temp folder is inside a git repository; skipping");
    }
    !inside
}

#[test]
fn check_runs_no_git_where_there_is_no_repository() {
    let counted = Counted::new();
    for i in 0..PROJECTS {
        counted.project(&format!("p{i:02}"));
    }
    if !outside_any_repository(&counted.root()) {
        return;
    }
    let root = counted.root();
    let (run, calls) = counted.run(&root, &["check", "--root", root.to_str().unwrap()]);
    assert!(run.code == 0 || run.code == 1, "{run:?}");
    assert!(
        calls.is_empty(),
        "git ran outside any repository: {calls:#?}"
    );
}

#[test]
fn check_runs_git_once_per_repository() {
    let counted = Counted::new();
    for i in 0..PROJECTS {
        counted.project(&format!("p{i:02}"));
    }
    // The whole root is one repository; one project is a repository of its own inside.
    let nested = counted.project("nested");
    counted.commit_all(&nested);
    counted.commit_all(&counted.root());
    // Edits: one project loses a decision, another is only touched (same bytes).
    let shrunk = LOG.replace("## 2025-02-01 - Ship weekly\n\nSmall batches.\n", "");
    fs::write(
        counted.root().join("p03/memory-bank/decisionLog.md"),
        &shrunk,
    )
    .unwrap();
    fs::write(nested.join("memory-bank/decisionLog.md"), &shrunk).unwrap();
    let touched = counted.root().join("p04/memory-bank/decisionLog.md");
    fs::write(&touched, LOG).unwrap();

    let root = counted.root();
    let (run, calls) = counted.run(
        &root,
        &["check", "--json", "--root", root.to_str().unwrap()],
    );
    run.expect_code(1);
    let json = run.json();
    assert!(codes(&json, "p03").contains(&"decision-log-shrunk".to_string()));
    assert!(codes(&json, "nested").contains(&"decision-log-shrunk".to_string()));
    for name in ["p04", "p05"] {
        let found = codes(&json, name);
        assert!(
            !found
                .iter()
                .any(|c| c.starts_with("decision") || c.starts_with("git")),
            "{name}: {found:?}"
        );
    }
    // Two repositories: a handful of commands each, whatever the number of projects (one
    // of them the walk of where paths went, started ahead on a repository's first check).
    assert!(
        calls.len() <= 2 * 9,
        "{} git commands for 2 repositories and {} projects: {calls:#?}",
        calls.len(),
        PROJECTS + 1
    );
    // `ls-tree` twice a repository: the entries HEAD holds, and (`--name-only`, of the
    // commit walked) which memory files the history walk may stop at. `log` twice: the
    // memory files' history, and where paths went.
    for (verb, most) in [("log", 4), ("ls-files", 2), ("ls-tree", 4)] {
        let n = calls
            .iter()
            .filter(|c| c.split(' ').any(|w| w == verb))
            .count();
        assert!(n <= most, "{n} × git {verb}: {calls:#?}");
    }
    let tree_names = calls
        .iter()
        .filter(|c| c.contains(" ls-tree ") && c.contains(" --name-only "))
        .count();
    assert!(
        tree_names <= 2,
        "{tree_names} × git ls-tree --name-only: {calls:#?}"
    );
    assert!(
        !calls.iter().any(|c| c.split(' ').any(|w| w == "status")),
        "git status runs configured filters: {calls:#?}"
    );
}

#[test]
fn a_relative_path_and_a_project_below_the_repository_root() {
    let counted = Counted::new();
    let project = counted.project("apps/web");
    counted.commit_all(&counted.root());
    let shrunk = LOG.replace("## 2025-01-10 - Use SQLite\n\nSmall data.\n\n", "");
    fs::write(project.join("memory-bank/decisionLog.md"), shrunk).unwrap();
    // Run from inside the project with `.`: every path mbank hands git is relative.
    let (run, _) = counted.run(&project, &["check", "--json", "."]);
    run.expect_code(1);
    let json = run.json();
    let found: Vec<String> = json["projects"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_string())
        .collect();
    assert!(
        found.contains(&"decision-log-shrunk".to_string()),
        "{found:?}"
    );
}

fn log_calls(calls: &[String]) -> usize {
    calls
        .iter()
        .filter(|c| c.split(' ').any(|w| w == "log"))
        .count()
}

#[test]
fn list_asks_git_once_per_repository_and_batch_and_a_warm_list_not_at_all() {
    let counted = Counted::new();
    for i in 0..PROJECTS {
        counted.project(&format!("p{i:02}"));
    }
    let nested = counted.project("nested");
    counted.commit_all(&nested);
    counted.commit_all(&counted.root());
    let root = counted.root();
    let list = ["list", "--json", "--root", root.to_str().unwrap()];

    // Cold: git runs for every repository, a few times at most (the projects are taken
    // in batches), never once per project.
    let (run, calls) = counted.run(&root, &list);
    run.expect_code(0);
    assert_eq!(
        run.json()["projects"].as_array().unwrap().len(),
        PROJECTS + 1
    );
    let logs = log_calls(&calls);
    assert!(
        (2..=4).contains(&logs),
        "{logs} × git log for 2 repositories and {} projects: {calls:#?}",
        PROJECTS + 1
    );
    // Warm: the evidence is remembered under the repositories' state.
    let (run, calls) = counted.run(&root, &list);
    run.expect_code(0);
    assert!(calls.is_empty(), "a warm list ran git: {calls:#?}");
    // A new commit moves a branch: git is asked again, for that repository only.
    common::write(
        &nested.join("memory-bank/progress.md"),
        "# Progress\n\nD.\n",
    );
    counted.git(&nested, &["add", "-A"]);
    counted.git(&nested, &["commit", "-q", "-m", "progress"]);
    let (run, calls) = counted.run(&root, &list);
    run.expect_code(0);
    assert!(log_calls(&calls) >= 1, "{calls:#?}");
    let nested_path = format!("-C {} ", nested.display());
    assert!(
        calls.iter().all(|c| c.contains(&nested_path)),
        "the root's repository did not change: {calls:#?}"
    );
}

#[test]
fn list_runs_no_git_where_there_is_no_repository() {
    let counted = Counted::new();
    for i in 0..4 {
        counted.project(&format!("p{i:02}"));
    }
    if !outside_any_repository(&counted.root()) {
        return;
    }
    let root = counted.root();
    let (run, calls) = counted.run(&root, &["list", "--root", root.to_str().unwrap()]);
    run.expect_code(0);
    assert!(
        calls.is_empty(),
        "git ran outside any repository: {calls:#?}"
    );
}

#[test]
fn check_asks_git_about_ignored_paths_once_per_repository() {
    let counted = Counted::new();
    let root = counted.root();
    // Every project names a path that is gone and one the repository ignores, and keeps
    // a private `CLAUDE.local.md` out of git, ignored in every other project.
    for i in 0..PROJECTS {
        let dir = counted.project(&format!("p{i:02}"));
        common::write(&dir.join("src/main.rs"), "fn main() {}\n");
        common::write(
            &dir.join("memory-bank/systemPatterns.md"),
            "# Patterns\n\n- The server starts in `src/gone.rs`.\n- The parser is generated into `src/generated.rs`.\n",
        );
        common::write(&dir.join("CLAUDE.md"), "# Project\n\nRules.\n");
        if i % 2 == 0 {
            common::write(&dir.join(".gitignore"), "CLAUDE.local.md\n");
        }
    }
    common::write(&root.join(".gitignore"), "generated.rs\n");
    counted.commit_all(&root);
    for i in 0..PROJECTS {
        let dir = root.join(format!("p{i:02}"));
        common::write(&dir.join("CLAUDE.local.md"), "# Mine\n\nNotes.\n");
    }
    counted.sandbox.settle();

    let (run, calls) = counted.run(
        &root,
        &["check", "--json", "--root", root.to_str().unwrap()],
    );
    assert!(run.code == 0 || run.code == 1, "{run:?}");
    let json = run.json();
    for i in 0..PROJECTS {
        let name = format!("p{i:02}");
        let project = json["projects"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name.as_str())
            .unwrap();
        let messages: Vec<(&str, &str)> = project["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| (f["code"].as_str().unwrap(), f["message"].as_str().unwrap()))
            .collect();
        let missing: Vec<&str> = messages
            .iter()
            .filter(|(code, _)| *code == "claim-missing-path")
            .map(|(_, message)| *message)
            .collect();
        assert!(
            missing.len() == 1 && missing[0].contains("src/gone.rs"),
            "{name}: only the gone path is missing, the ignored one is not: {messages:#?}"
        );
        let exposed = messages.iter().any(|(_, message)| {
            message.contains("CLAUDE.local.md") && message.contains(".gitignore")
        });
        assert_eq!(exposed, i % 2 == 1, "{name}: {messages:#?}");
    }
    let asked = calls
        .iter()
        .filter(|c| c.split(' ').any(|w| w == "check-ignore"))
        .count();
    assert_eq!(
        asked, 1,
        "git check-ignore for {PROJECTS} projects of one repository: {calls:#?}"
    );
    // Warm: the claims and private files' answers are remembered under the repository's
    // state, the files they read and the ignore rules.
    let (warm, calls) = counted.run(
        &root,
        &["check", "--json", "--root", root.to_str().unwrap()],
    );
    assert_eq!((warm.code, &warm.stdout), (run.code, &run.stdout));
    assert!(calls.is_empty(), "a warm check ran git: {calls:#?}");
    // The user's git settings kept out with the null device, whose times change with
    // every write to it: the answers are remembered all the same.
    let null_global = [("GIT_CONFIG_GLOBAL", "/dev/null")];
    let args = ["check", "--json", "--root", root.to_str().unwrap()];
    let (cold, _) = counted.run_with(&root, &null_global, &args);
    assert_eq!(cold.stdout, run.stdout);
    let (warm, calls) = counted.run_with(&root, &null_global, &args);
    assert_eq!(warm.stdout, run.stdout);
    assert!(calls.is_empty(), "a warm check ran git: {calls:#?}");
}

/// The `git log` calls among `calls`, each with the range it walked.
fn walks(calls: &[String]) -> Vec<&String> {
    calls
        .iter()
        .filter(|c| c.split(' ').any(|w| w == "log"))
        .collect()
}

#[test]
fn history_is_walked_once_per_head_and_only_over_new_commits_after_a_commit() {
    let counted = Counted::new();
    let dir = counted.project("app");
    let server = "pub fn serve() {}\n".repeat(20);
    common::write(&dir.join("src/server.rs"), &server);
    common::write(&dir.join("src/old_name.rs"), "pub fn moved() {}\n");
    counted.commit_all(&dir);
    counted.git(&dir, &["mv", "src/old_name.rs", "src/new_name.rs"]);
    counted.git(&dir, &["commit", "-q", "-m", "rename"]);
    common::write(
        &dir.join("memory-bank/systemPatterns.md"),
        "# Patterns\n\n- Serving is `serve()` in `src/server.rs`.\n- Moving is in `src/old_name.rs`.\n- Nothing is in `src/gone.rs`.\n",
    );
    counted.git(&dir, &["add", "-A"]);
    counted.git(&dir, &["commit", "-q", "-m", "patterns"]);
    counted.sandbox.settle();
    let check = ["check", "--json", dir.to_str().unwrap()];
    // What a check with nothing remembered says, for each state below.
    let afresh = || {
        let cache = counted.temp.path().join("fresh-cache");
        let _ = fs::remove_dir_all(&cache);
        let vars = [("MBANK_CACHE_DIR", cache.to_str().unwrap())];
        counted.run_with(&dir, &vars, &check).0
    };

    let (cold, calls) = counted.run(&dir, &check);
    assert!(cold.code == 0 || cold.code == 1, "{cold:?}");
    assert!(
        cold.stdout.contains("was renamed to `src/new_name.rs`"),
        "{}",
        cold.stdout
    );
    assert_eq!(walks(&calls).len(), 2, "file history and moves: {calls:#?}");

    // An edit to the code: the memory's findings are checked again, history is not.
    common::write(
        &dir.join("src/server.rs"),
        &format!("{server}// and more\n"),
    );
    counted.sandbox.settle();
    let (edited, calls) = counted.run(&dir, &check);
    assert!(
        walks(&calls).is_empty(),
        "same HEAD, walked again: {calls:#?}"
    );
    assert_eq!(edited.stdout, afresh().stdout);
    assert_eq!(edited.stdout, cold.stdout);

    // Staged, then committed with a rename of its own: only the new commit is walked.
    counted.git(&dir, &["add", "-A"]);
    let (staged, calls) = counted.run(&dir, &check);
    assert!(walks(&calls).is_empty(), "{calls:#?}");
    assert_eq!(staged.stdout, cold.stdout);
    counted.git(&dir, &["mv", "src/server.rs", "src/http.rs"]);
    counted.git(&dir, &["commit", "-q", "-m", "serve over http"]);
    counted.sandbox.settle();
    let (committed, calls) = counted.run(&dir, &check);
    // One log of the new commit and what it changed serves both walks.
    let walked = walks(&calls);
    assert_eq!(walked.len(), 1, "{calls:#?}");
    assert!(
        walked.iter().all(|c| c.contains("..")),
        "only the new commit is walked: {walked:#?}"
    );
    assert!(
        !calls.iter().any(|c| c.contains(" rev-list ")),
        "the log says the commits are a line: {calls:#?}"
    );
    assert!(
        committed
            .stdout
            .contains("`src/server.rs` was renamed to `src/http.rs`"),
        "{}",
        committed.stdout
    );
    assert_eq!(committed.stdout, afresh().stdout);

    // Reset to before that commit: not a line on from any remembered HEAD.
    counted.git(&dir, &["reset", "-q", "--hard", "HEAD~1"]);
    counted.sandbox.settle();
    let (reset, calls) = counted.run(&dir, &check);
    assert!(
        walks(&calls).iter().all(|c| !c.contains("..")),
        "{calls:#?}"
    );
    assert_eq!(reset.stdout, afresh().stdout);
}

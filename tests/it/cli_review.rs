//! `mbank review` end to end: text and `--json` output, exit codes (0 clean or nothing
//! changed, 1 at or above `--fail-on`, 2 on errors), use as a pre-commit hook from the
//! repository root, and `--mark-reviewed` outside git.
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

struct Env {
    temp: tempfile::TempDir,
}

impl Env {
    fn new() -> Env {
        let env = Env {
            temp: tempfile::tempdir().unwrap(),
        };
        fs::create_dir_all(env.home()).unwrap();
        env
    }

    fn home(&self) -> PathBuf {
        self.temp.path().join("home")
    }

    fn root(&self) -> PathBuf {
        self.temp.path().join("root")
    }

    fn apply(&self, command: &mut Command) {
        command
            .env("HOME", self.home())
            .env("XDG_CONFIG_HOME", self.home().join("config"))
            .env("XDG_CACHE_HOME", self.home().join("cache"))
            .env("MBANK_DATA_DIR", self.home().join("data"))
            .env("MBANK_CACHE_DIR", self.home().join("cache"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "Test")
            .env("GIT_AUTHOR_EMAIL", "test@example.invalid")
            .env("GIT_COMMITTER_NAME", "Test")
            .env("GIT_COMMITTER_EMAIL", "test@example.invalid")
            .env("NO_COLOR", "1")
            .env_remove("MEMORY_BANK_ROOT")
            .env_remove("GIT_DIR")
            .env_remove("GIT_INDEX_FILE");
    }

    fn mbank_in(&self, dir: &Path, args: &[&str]) -> Output {
        let mut command = Command::new(env!("CARGO_BIN_EXE_mbank"));
        command
            .args(["--root"])
            .arg(self.root())
            .args(["--config"])
            .arg("/dev/null")
            .args(args)
            .current_dir(dir);
        self.apply(&mut command);
        command.output().unwrap()
    }

    fn mbank(&self, args: &[&str]) -> Output {
        self.mbank_in(self.temp.path(), args)
    }

    fn git(&self, dir: &Path, args: &[&str]) {
        let mut command = Command::new("git");
        command
            .args(["-c", "commit.gpgsign=false"])
            .args(args)
            .current_dir(dir);
        self.apply(&mut command);
        let out = command.output().unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// A project `shop` in git with a committed Cline bank.
    fn git_project(&self) -> PathBuf {
        let project = self.root().join("shop");
        write(
            &project.join("memory-bank/activeContext.md"),
            "# Active\n\nCheckout.\n",
        );
        write(
            &project.join("memory-bank/progress.md"),
            "# Progress\n\n- Cart\n",
        );
        self.git(&project, &["init", "-q", "-b", "main"]);
        self.git(&project, &["add", "-A"]);
        self.git(&project, &["commit", "-q", "-m", "start"]);
        project
    }
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn nothing_changed_exits_zero() {
    let env = Env::new();
    let project = env.git_project();
    let out = env.mbank(&["review", project.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("no memory changes"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn clean_changes_exit_zero_and_are_listed() {
    let env = Env::new();
    let project = env.git_project();
    write(
        &project.join("memory-bank/progress.md"),
        "# Progress\n\n- Cart\n- Checkout\n",
    );
    write(&project.join("src/main.rs"), "fn main() {}\n");
    let out = env.mbank(&["review", project.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("M memory-bank/progress.md  +1 -0"), "{text}");
    assert!(!text.contains("main.rs"), "{text}");
    assert!(text.contains("1 file changed, +1 -0 lines"), "{text}");
}

#[test]
fn signals_fail_at_the_threshold() {
    let env = Env::new();
    let project = env.git_project();
    write(
        &project.join("memory-bank/activeContext.md"),
        "# Active\n\nCheckout.\n[Describe the current focus]\n",
    );
    let path = project.to_str().unwrap();
    // A placeholder is a warning: fails by default and with --fail-on info …
    for args in [
        vec!["review", path],
        vec!["review", path, "--fail-on", "info"],
    ] {
        let out = env.mbank(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stdout(&out));
    }
    let out = env.mbank(&["review", path]);
    assert!(
        stdout(&out).contains("[placeholder-added]"),
        "{}",
        stdout(&out)
    );
    assert!(stdout(&out).contains("FAIL"));
    // … but not when only errors fail.
    let out = env.mbank(&["review", path, "--fail-on", "error"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    // A secret is an error.
    write(
        &project.join("memory-bank/techContext.md"),
        "# Tech\n\napi_key: 9f8e7d6c5b4a39281706\n",
    );
    let out = env.mbank(&["review", path, "--fail-on", "error"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(stdout(&out).contains("[secret-added]"));
}

#[test]
fn json_follows_the_schema() {
    let env = Env::new();
    let project = env.git_project();
    write(
        &project.join("memory-bank/progress.md"),
        "# Progress\n\n- Cart\n- Checkout \u{202E}evil\n",
    );
    let out = env.mbank(&["review", project.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["schema"], "mbank.review/1");
    assert_eq!(json["fail_on"], "warning");
    assert_eq!(json["failed"], true);
    assert_eq!(json["summary"]["files"], 1);
    assert_eq!(json["summary"]["error"], 1);
    let project_json = &json["projects"][0];
    assert_eq!(project_json["baseline"]["kind"], "git");
    assert_eq!(project_json["baseline"]["head"].as_str().unwrap().len(), 40);
    let file = &project_json["files"][0];
    assert_eq!(file["display"], "memory-bank/progress.md");
    assert_eq!(file["change"], "modified");
    assert_eq!(file["role"], "progress");
    assert_eq!(
        (file["added"].as_u64(), file["removed"].as_u64()),
        (Some(1), Some(0))
    );
    assert_eq!(file["pending_hunks"], 1);
    assert!(file["token_delta"].as_i64().unwrap() > 0);
    let signal = &file["signals"][0];
    assert_eq!(signal["code"], "hidden-unicode");
    assert_eq!(signal["severity"], "error");
    assert_eq!(signal["new_line"], 4);
    assert_eq!(signal["hunk"].as_str().unwrap().len(), 16);
    assert_eq!(project_json["banks"][0]["files"], 1);
}

#[test]
fn works_as_a_pre_commit_hook_from_the_repository_root() {
    let env = Env::new();
    let project = env.git_project();
    write(
        &project.join("memory-bank/progress.md"),
        "# Progress\n\n- Cart\n- password = hunter2hunter2\n",
    );
    let out = env.mbank_in(&project, &["review", "."]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stdout(&out).contains("[secret-added]"), "{}", stdout(&out));
}

#[test]
fn mark_reviewed_outside_git() {
    let env = Env::new();
    let project = env.root().join("notes");
    write(
        &project.join("memory-bank/progress.md"),
        "# Progress\n\n- Cart\n",
    );
    if Command::new("git")
        .args(["rev-parse", "--git-dir"])
        .current_dir(&project)
        .output()
        .is_ok_and(|o| o.status.success())
    {
        eprintln!("temp folder is inside a git repository; skipped");
        return;
    }
    let path = project.to_str().unwrap();
    let out = env.mbank(&["review", path, "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["projects"][0]["baseline"]["kind"], "snapshot");
    assert_eq!(json["projects"][0]["baseline"]["exists"], false);
    assert_eq!(json["projects"][0]["files"][0]["change"], "added");

    let out = env.mbank(&["review", "--mark-reviewed", path]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("marked 1 memory file reviewed"));
    assert!(env.home().join("data/snapshots").is_dir());
    let out = env.mbank(&["review", path]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout(&out).contains("no memory changes"),
        "{}",
        stdout(&out)
    );

    write(
        &project.join("memory-bank/progress.md"),
        "# Progress\n\n- Cart\n- Till\n",
    );
    let out = env.mbank(&["review", path]);
    assert!(
        stdout(&out).contains("M memory-bank/progress.md  +1 -0"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn usage_and_io_errors_exit_two() {
    let env = Env::new();
    let project = env.git_project();
    let out = env.mbank(&["review", "--mark-reviewed", project.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("git repository"), "{}", stderr(&out));
    let out = env.mbank(&["review", "--fail-on", "fatal"]);
    assert_eq!(out.status.code(), Some(2));
    let out = env.mbank(&["review", env.temp.path().join("missing").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
}

/// Everything but the last line (the totals over every project reviewed).
fn without_summary(text: &str) -> String {
    let mut lines: Vec<&str> = text.lines().collect();
    lines.pop();
    lines.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
fn a_whole_root_review_reports_each_project_as_its_own_review_does() {
    let env = Env::new();
    let root = env.root();
    // Four projects outside git: changed since the last review, never reviewed, with a
    // broken snapshot, and unchanged.
    let bank = |name: &str| {
        let project = root.join(name);
        write(
            &project.join("memory-bank/activeContext.md"),
            &format!("# Active\n\nWorking on {name}.\n"),
        );
        write(
            &project.join("memory-bank/progress.md"),
            "# Progress\n\n- Cart\n",
        );
        project
    };
    let mark = |project: &Path| {
        let out = env.mbank(&["review", "--mark-reviewed", project.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    };
    let changed = bank("a-changed");
    mark(&changed);
    write(
        &changed.join("memory-bank/progress.md"),
        "# Progress\n\n- Cart\n- Checkout\n",
    );
    bank("b-new");
    let broken = bank("c-broken");
    mark(&broken);
    let snapshots = env.home().join("data/snapshots");
    for entry in fs::read_dir(&snapshots).unwrap().flatten() {
        let manifest = entry.path().join("manifest.json");
        if fs::read_to_string(&manifest).unwrap().contains("c-broken") {
            fs::write(&manifest, "{ not json").unwrap();
        }
    }
    let unchanged = bank("d-unchanged");
    mark(&unchanged);
    let names = ["a-changed", "b-new", "c-broken", "d-unchanged"];

    let whole = env.mbank(&["review"]);
    assert_eq!(whole.status.code(), Some(1), "{}", stderr(&whole));
    let whole_json = env.mbank(&["review", "--json"]);
    assert_eq!(whole_json.status.code(), Some(1), "{}", stderr(&whole_json));
    let json: serde_json::Value = serde_json::from_slice(&whole_json.stdout).unwrap();
    let projects = json["projects"].as_array().unwrap();
    assert_eq!(projects.len(), names.len(), "{json}");

    let mut expected_text = String::new();
    let mut totals = [0_u64; 8];
    let keys = [
        "files",
        "added",
        "removed",
        "tokens_before",
        "tokens_after",
        "error",
        "warning",
        "info",
    ];
    for (index, name) in names.iter().enumerate() {
        let path = root.join(name);
        let single = env.mbank(&["review", path.to_str().unwrap()]);
        expected_text.push_str(&without_summary(&stdout(&single)));
        let single_json = env.mbank(&["review", "--json", path.to_str().unwrap()]);
        let single: serde_json::Value = serde_json::from_slice(&single_json.stdout).unwrap();
        assert_eq!(
            projects[index], single["projects"][0],
            "{name}: as reviewed alone"
        );
        for (total, key) in totals.iter_mut().zip(keys) {
            *total += single["summary"][key].as_u64().unwrap();
        }
    }
    let whole_text = stdout(&whole);
    assert_eq!(without_summary(&whole_text), expected_text);
    for (total, key) in totals.iter().zip(keys) {
        assert_eq!(json["summary"][key].as_u64(), Some(*total), "{key}: {json}");
    }
    assert_eq!(json["summary"]["error"], 1, "the broken snapshot: {json}");
    assert_eq!(json["failed"], true);
    let last = whole_text.lines().last().unwrap();
    assert!(
        last.starts_with(&format!(
            "{} changed, +{} -{} lines",
            if totals[0] == 1 {
                "1 file".to_string()
            } else {
                format!("{} files", totals[0])
            },
            totals[1],
            totals[2]
        )) && last.ends_with("FAIL"),
        "{last}"
    );
}

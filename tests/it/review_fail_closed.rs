//! Checks fail closed: what mbank cannot check is an error, never a pass.
//!
//! - A repository git refuses ("detected dubious ownership", simulated with git's
//!   `GIT_TEST_ASSUME_DIFFERENT_OWNER=1`) is a `git-refused` error in `check` and in
//!   `review` (not a silently skipped append-only check, not "never reviewed"), and the
//!   exit code says so; a folder outside any repository still has no git facts and no
//!   error. `list` and `tokens` say the same: the git-refused finding, and staleness
//!   "unknown", never "fresh".
//! - `review` counts an unreadable memory file (binary, invalid UTF-8, too large) and a
//!   lost, corrupt or tampered snapshot (a FIFO or a `/dev/zero` link in the store, the
//!   whole snapshot folder deleted) as errors, finishing quickly.
//! - Concurrent `review --mark-reviewed` runs leave a consistent snapshot store.
//! - Snapshot copies keep the source file's permissions, in 0700 folders.
use crate::common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const BRIEF: &str = "# Project Brief\n\nA shop.\n";
const ACTIVE: &str = "# Active Context\n\nWorking on checkout.\n";
const PROGRESS: &str = "# Progress\n\n## Done\n\n- Cart\n";
const LOG: &str = "# Decision Log\n\n## 2025-01-10 - Use SQLite\n\nSmall data.\n\n## 2025-02-01 - Ship weekly\n\nSmall batches.\n";

struct Env {
    temp: tempfile::TempDir,
    sandbox: common::Sandbox,
}

impl Env {
    fn new() -> Env {
        Env {
            temp: tempfile::tempdir().unwrap(),
            sandbox: common::Sandbox::new(),
        }
    }

    fn data(&self) -> PathBuf {
        self.temp.path().join("data")
    }

    fn home(&self) -> PathBuf {
        self.sandbox.home().to_path_buf()
    }

    /// A project folder with a Cline bank (outside git unless `git` is called).
    fn project(&self, name: &str) -> PathBuf {
        let dir = self.temp.path().join("root").join(name);
        common::write(&dir.join("memory-bank/projectbrief.md"), BRIEF);
        common::write(&dir.join("memory-bank/activeContext.md"), ACTIVE);
        common::write(&dir.join("memory-bank/progress.md"), PROGRESS);
        common::write(&dir.join("memory-bank/decisionLog.md"), LOG);
        dir
    }

    fn git(&self, dir: &Path, args: &[&str]) -> String {
        common::git_stdout(args, common::git_output(dir, &self.home(), &[], args))
    }

    fn git_project(&self, name: &str) -> PathBuf {
        let dir = self.project(name);
        self.git(&dir, &["init", "-q", "-b", "main"]);
        self.git(&dir, &["add", "-A"]);
        self.git(&dir, &["commit", "-q", "-m", "start"]);
        dir
    }

    fn mbank(&self, args: &[&str], env: &[(&str, &str)]) -> common::Run {
        let mut command: Command = self.sandbox.mbank();
        command
            .env("MBANK_DATA_DIR", self.data())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .args(["--encoding", "bytes4"])
            .args(args);
        for (key, value) in env {
            command.env(key, value);
        }
        common::run_command(command)
    }

    fn review_json(&self, project: &Path) -> (i32, Value) {
        let run = self.mbank(&["review", "--json", project.to_str().unwrap()], &[]);
        (run.code, run.json())
    }

    fn mark_reviewed(&self, project: &Path) {
        self.mbank(
            &["review", "--mark-reviewed", project.to_str().unwrap()],
            &[],
        )
        .expect_code(0);
    }

    /// The one project snapshot folder under the data folder.
    fn snapshot_dir(&self) -> PathBuf {
        let snapshots = self.data().join("snapshots");
        let mut dirs: Vec<PathBuf> = fs::read_dir(&snapshots)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        assert_eq!(dirs.len(), 1, "{dirs:?}");
        dirs.pop().unwrap()
    }

    fn manifest(&self) -> Value {
        let text = fs::read_to_string(self.snapshot_dir().join("manifest.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    }

    /// The snapshot copy of a project-relative file.
    fn copy_of(&self, rel: &str) -> PathBuf {
        let manifest = self.manifest();
        let name = manifest["files"][rel].as_str().unwrap().to_string();
        let generation = manifest["generation"].as_u64().unwrap();
        self.snapshot_dir()
            .join(format!("gen-{generation}"))
            .join(name)
    }
}

/// Every error of a review's JSON: file signals and project errors.
fn error_codes(json: &Value) -> Vec<String> {
    let mut codes = Vec::new();
    for project in json["projects"].as_array().unwrap() {
        if let Some(error) = project.get("error").filter(|e| !e.is_null()) {
            codes.push(error["code"].as_str().unwrap().to_string());
        }
        for file in project["files"].as_array().into_iter().flatten() {
            for signal in file["signals"].as_array().unwrap() {
                if signal["severity"] == "error" {
                    codes.push(signal["code"].as_str().unwrap().to_string());
                }
            }
        }
    }
    codes
}

fn finding_codes(json: &Value) -> Vec<(String, String, String)> {
    json["projects"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["findings"].as_array().unwrap().iter())
        .map(|f| {
            (
                f["severity"].as_str().unwrap().to_string(),
                f["code"].as_str().unwrap().to_string(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

const DUBIOUS: (&str, &str) = ("GIT_TEST_ASSUME_DIFFERENT_OWNER", "1");

fn git_understands_the_ownership_switch(env: &Env, dir: &Path) -> bool {
    let out = common::git_output(dir, &env.home(), &[DUBIOUS], &["rev-parse", "HEAD"]);
    let refused = String::from_utf8_lossy(&out.stderr).contains("dubious ownership");
    if !refused {
        eprintln!("NOTICE: this git ignores {}; skipping", DUBIOUS.0);
    }
    refused
}

#[test]
fn check_reports_a_refused_repository_as_an_error() {
    let env = Env::new();
    let dir = env.git_project("shop");
    if !git_understands_the_ownership_switch(&env, &dir) {
        return;
    }
    // The decision log lost an entry: the append-only check would catch it, if it ran.
    common::write(
        &dir.join("memory-bank/decisionLog.md"),
        &LOG.replace("## 2025-02-01 - Ship weekly\n\nSmall batches.\n", ""),
    );
    let path = dir.to_str().unwrap();
    let trusted = env.mbank(&["check", "--json", path], &[]);
    trusted.expect_code(1);
    assert!(
        finding_codes(&trusted.json())
            .iter()
            .any(|(_, code, _)| code == "decision-log-shrunk"),
        "{}",
        trusted.stdout
    );

    let refused = env.mbank(&["check", "--json", path], &[DUBIOUS]);
    refused.expect_code(1);
    let json = refused.json();
    let findings = finding_codes(&json);
    let git = findings
        .iter()
        .find(|(_, code, _)| code == "git-refused")
        .unwrap_or_else(|| panic!("no git-refused finding: {findings:?}"));
    assert_eq!(git.0, "error");
    assert!(git.2.contains("dubious ownership"), "{}", git.2);
    assert_eq!(json["failed"], true);
    // Even failing only on errors, the run fails.
    env.mbank(&["check", "--fail-on", "error", path], &[DUBIOUS])
        .expect_code(1);
}

#[test]
fn review_reports_a_refused_repository_as_an_error() {
    let env = Env::new();
    let dir = env.git_project("shop");
    if !git_understands_the_ownership_switch(&env, &dir) {
        return;
    }
    let path = dir.to_str().unwrap();
    env.mbank(&["review", path], &[]).expect_code(0);
    let run = env.mbank(&["review", "--json", path], &[DUBIOUS]);
    run.expect_code(1);
    let json = run.json();
    let project = &json["projects"][0];
    assert_ne!(
        project["baseline"]["kind"], "snapshot",
        "a refused repository is not a bank outside git: {project}"
    );
    assert_eq!(project["error"]["code"], "git-refused", "{project}");
    assert!(
        project["error"]["message"]
            .as_str()
            .unwrap()
            .contains("dubious ownership"),
        "{project}"
    );
    assert_eq!(json["summary"]["error"], 1);
    let text = env.mbank(&["review", path], &[DUBIOUS]);
    text.expect_code(1);
    assert!(text.stdout.contains("dubious ownership"), "{}", text.stdout);
    // --mark-reviewed must not take a snapshot of a repository it cannot see.
    let mark = env.mbank(&["review", "--mark-reviewed", path], &[DUBIOUS]);
    assert_ne!(mark.code, 0, "{mark:?}");
    assert!(!env.data().join("snapshots").exists());
}

#[test]
fn list_and_tokens_call_a_refused_repositorys_staleness_unknown_never_fresh() {
    let env = Env::new();
    let dir = env.git_project("shop");
    if !git_understands_the_ownership_switch(&env, &dir) {
        return;
    }
    let root = dir.parent().unwrap().to_str().unwrap().to_string();
    let path = dir.to_str().unwrap();
    let git_refused = |findings: &Value| {
        findings
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["code"] == "git-refused" && f["severity"] == "error")
    };

    let run = env.mbank(&["--root", &root, "list", "--json"], &[DUBIOUS]);
    run.expect_code(0);
    let json = run.json();
    let row = &json["projects"][0];
    assert_eq!(row["staleness"], "unknown", "{row}");
    assert!(git_refused(&row["findings"]), "as check says: {row}");
    let text = env.mbank(&["--root", &root, "list"], &[DUBIOUS]);
    text.expect_code(0);
    assert!(
        text.stdout.contains("unknown") && !text.stdout.contains("fresh"),
        "{}",
        text.stdout
    );
    assert!(text.stdout.contains("[git-refused]"), "{}", text.stdout);

    let run = env.mbank(&["tokens", "--json", path], &[DUBIOUS]);
    run.expect_code(0);
    assert!(git_refused(&run.json()["findings"]), "{}", run.stdout);

    // The same repository, trusted: git's evidence judges it, and it is fresh.
    let run = env.mbank(&["--root", &root, "list", "--json"], &[]);
    run.expect_code(0);
    let json = run.json();
    let row = &json["projects"][0];
    assert_eq!(row["staleness"], "fresh", "{row}");
    assert!(!git_refused(&row["findings"]), "{row}");
}

#[test]
fn a_folder_outside_git_is_no_error() {
    let env = Env::new();
    let dir = env.project("plain");
    let inside_some_repo = Command::new("git")
        .args(["rev-parse", "--show-toplevel"])
        .current_dir(&dir)
        .output()
        .is_ok_and(|o| o.status.success());
    if inside_some_repo {
        eprintln!("the temp folder is inside a git repository; skipping");
        return;
    }
    let run = env.mbank(&["check", "--json", dir.to_str().unwrap()], &[DUBIOUS]);
    run.expect_code(0);
    assert!(
        !finding_codes(&run.json())
            .iter()
            .any(|(_, code, _)| code.starts_with("git")),
        "{}",
        run.stdout
    );
    env.mark_reviewed(&dir);
    let (code, json) = env.review_json(&dir);
    assert_eq!(code, 0, "{json}");
}

#[test]
fn review_counts_unreadable_memory_files_as_errors() {
    let env = Env::new();
    let dir = env.project("shop");
    env.mark_reviewed(&dir);
    let (code, json) = env.review_json(&dir);
    assert_eq!(code, 0, "{json}");

    let too_large = vec![b'a'; 16 * 1024 * 1024 + 1];
    let cases: [(&str, Vec<u8>); 3] = [
        ("binary", b"# Progress\n\0\0\0".to_vec()),
        ("invalid UTF-8", b"# Progress\n\xff\xfe caf\xe9\n".to_vec()),
        ("too large", too_large),
    ];
    for (what, bytes) in cases {
        fs::write(dir.join("memory-bank/progress.md"), &bytes).unwrap();
        let (code, json) = env.review_json(&dir);
        assert_eq!(code, 1, "{what}: {json}");
        assert_eq!(error_codes(&json), vec!["unreadable"], "{what}: {json}");
        assert_eq!(json["summary"]["error"], 1, "{what}");
        // The text output says it too, and fails even on --fail-on error.
        let run = env.mbank(
            &["review", "--fail-on", "error", dir.to_str().unwrap()],
            &[],
        );
        run.expect_code(1);
        assert!(run.stdout.contains("1 error,"), "{what}: {}", run.stdout);
    }
    // An unreadable file that is new since the snapshot counts too.
    fs::write(dir.join("memory-bank/progress.md"), PROGRESS).unwrap();
    fs::write(dir.join("memory-bank/techContext.md"), b"\0\0binary").unwrap();
    let (code, json) = env.review_json(&dir);
    assert_eq!(code, 1, "{json}");
    assert_eq!(error_codes(&json), vec!["unreadable"], "{json}");
}

#[test]
fn review_counts_unreadable_files_in_git_as_errors() {
    let env = Env::new();
    let dir = env.git_project("shop");
    fs::write(dir.join("memory-bank/progress.md"), b"# Progress\n\0\0").unwrap();
    let (code, json) = env.review_json(&dir);
    assert_eq!(code, 1, "{json}");
    assert_eq!(error_codes(&json), vec!["unreadable"], "{json}");
}

#[test]
fn a_lost_or_corrupt_snapshot_is_an_error() {
    let env = Env::new();
    let dir = env.project("shop");
    env.mark_reviewed(&dir);

    // One copy lost.
    let copy = env.copy_of("memory-bank/progress.md");
    fs::remove_file(&copy).unwrap();
    let (code, json) = env.review_json(&dir);
    assert_eq!(code, 1, "{json}");
    assert_eq!(error_codes(&json), vec!["snapshot-lost"], "{json}");
    env.mark_reviewed(&dir);
    let (code, json) = env.review_json(&dir);
    assert_eq!(code, 0, "marking reviewed again repairs it: {json}");

    // The manifest broken.
    let manifest = env.snapshot_dir().join("manifest.json");
    fs::write(&manifest, "{ not json").unwrap();
    let (code, json) = env.review_json(&dir);
    assert_eq!(code, 1, "{json}");
    assert_eq!(json["projects"][0]["error"]["code"], "snapshot-corrupt");
    assert_eq!(json["summary"]["error"], 1);

    // The manifest lost while copies remain: not "never reviewed".
    fs::remove_file(&manifest).unwrap();
    let (code, json) = env.review_json(&dir);
    assert_eq!(code, 1, "{json}");
    assert_eq!(json["projects"][0]["error"]["code"], "snapshot-corrupt");
}

#[test]
fn a_deleted_snapshot_folder_is_an_error_not_a_bank_never_reviewed() {
    let env = Env::new();
    let dir = env.project("shop");
    let path = dir.to_str().unwrap();
    env.mark_reviewed(&dir);
    common::write(
        &dir.join("memory-bank/progress.md"),
        &format!("{PROGRESS}- Checkout\n"),
    );
    // A plain change is no error.
    env.mbank(&["review", "--fail-on", "error", path], &[])
        .expect_code(0);

    fs::remove_dir_all(env.snapshot_dir()).unwrap();
    let run = env.mbank(&["review", "--json", "--fail-on", "error", path], &[]);
    run.expect_code(1);
    let json = run.json();
    let project = &json["projects"][0];
    assert_eq!(project["error"]["code"], "snapshot-lost", "{project}");
    assert!(
        project["error"]["message"]
            .as_str()
            .unwrap()
            .contains("mark the bank reviewed again"),
        "{project}"
    );
    assert_eq!(json["summary"]["error"], 1);
    assert_eq!(json["failed"], true);
    let text = env.mbank(&["review", "--fail-on", "error", path], &[]);
    text.expect_code(1);
    assert!(text.stdout.contains("[snapshot-lost]"), "{}", text.stdout);

    // Marking reviewed again repairs it.
    env.mark_reviewed(&dir);
    let (code, json) = env.review_json(&dir);
    assert_eq!(code, 0, "{json}");

    // Every snapshot gone at once, too.
    fs::remove_dir_all(env.data().join("snapshots")).unwrap();
    let (code, json) = env.review_json(&dir);
    assert_eq!(code, 1, "{json}");
    assert_eq!(error_codes(&json), vec!["snapshot-lost"], "{json}");
    env.mark_reviewed(&dir);

    // A snapshot taken before its record existed is recorded by the next review.
    fs::remove_dir_all(env.data().join("reviewed")).unwrap();
    let (code, json) = env.review_json(&dir);
    assert_eq!(code, 0, "{json}");
    fs::remove_dir_all(env.snapshot_dir()).unwrap();
    let (code, json) = env.review_json(&dir);
    assert_eq!(code, 1, "{json}");
    assert_eq!(error_codes(&json), vec!["snapshot-lost"], "{json}");

    // A project never reviewed is still just that.
    let other = env.project("fresh");
    let run = env.mbank(
        &["review", "--fail-on", "error", other.to_str().unwrap()],
        &[],
    );
    run.expect_code(0);
    assert!(run.stdout.contains("never reviewed"), "{}", run.stdout);
}

#[cfg(unix)]
#[test]
fn special_files_in_the_snapshot_store_neither_hang_nor_pass() {
    let env = Env::new();
    let dir = env.project("shop");
    env.mark_reviewed(&dir);
    let copy = env.copy_of("memory-bank/progress.md");

    // A FIFO instead of a copy: opening it would block forever.
    fs::remove_file(&copy).unwrap();
    let made = Command::new("mkfifo").arg(&copy).status();
    if made.is_ok_and(|s| s.success()) {
        let (code, json) = env.review_json(&dir);
        assert_eq!(code, 1, "{json}");
        assert_eq!(error_codes(&json), vec!["snapshot-unreadable"], "{json}");
        fs::remove_file(&copy).unwrap();
    }

    // A link to /dev/zero (or to a file elsewhere) instead of a copy.
    for target in ["/dev/zero", "/etc/hostname"] {
        let _ = fs::remove_file(&copy);
        std::os::unix::fs::symlink(target, &copy).unwrap();
        let (code, json) = env.review_json(&dir);
        assert_eq!(code, 1, "{target}: {json}");
        assert_eq!(
            error_codes(&json),
            vec!["snapshot-unreadable"],
            "{target}: {json}"
        );
    }

    // The manifest itself a link to /dev/zero.
    let manifest = env.snapshot_dir().join("manifest.json");
    fs::remove_file(&manifest).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &manifest).unwrap();
    let (code, json) = env.review_json(&dir);
    assert_eq!(code, 1, "{json}");
    assert_eq!(json["projects"][0]["error"]["code"], "snapshot-corrupt");
}

#[cfg(unix)]
#[test]
fn snapshot_copies_keep_permissions_in_private_folders() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    let dir = env.project("shop");
    let secret = dir.join("memory-bank/activeContext.md");
    fs::set_permissions(&secret, fs::Permissions::from_mode(0o600)).unwrap();
    env.mark_reviewed(&dir);
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&env.copy_of("memory-bank/activeContext.md")), 0o600);
    assert_eq!(mode(&env.copy_of("memory-bank/progress.md")), 0o644);
    let copy = env.copy_of("memory-bank/activeContext.md");
    let mut folder = copy.parent().unwrap().to_path_buf();
    while folder != env.data() {
        assert_eq!(mode(&folder), 0o700, "{}", folder.display());
        folder = folder.parent().unwrap().to_path_buf();
    }
    assert_eq!(mode(&env.snapshot_dir().join("manifest.json")) & 0o077, 0);
}

/// N processes marking the same project reviewed at once, over several rounds of edits:
/// every run succeeds and the store is whole afterwards (the manifest's generation holds
/// exactly its copies, each equal to the work tree).
#[test]
fn concurrent_mark_reviewed_keeps_the_store_consistent() {
    const PROCESSES: usize = 8;
    const ROUNDS: usize = 4;
    let env = Env::new();
    let dir = env.project("shop");
    for round in 0..ROUNDS {
        common::write(
            &dir.join("memory-bank/progress.md"),
            &format!("{PROGRESS}- Round {round}\n"),
        );
        common::write(
            &dir.join(format!("memory-bank/round-{round}.md")),
            "# Round\n",
        );
        let children: Vec<_> = (0..PROCESSES)
            .map(|_| {
                let mut command = env.sandbox.mbank();
                command
                    .env("MBANK_DATA_DIR", env.data())
                    .args(["--encoding", "bytes4", "review", "--mark-reviewed"])
                    .arg(&dir)
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::piped());
                command.spawn().unwrap()
            })
            .collect();
        for child in children {
            let out = child.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "round {round}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let manifest = env.manifest();
        let generation = manifest["generation"].as_u64().unwrap();
        let generations: Vec<String> = fs::read_dir(env.snapshot_dir())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("gen-"))
            .collect();
        assert_eq!(
            generations,
            vec![format!("gen-{generation}")],
            "round {round}"
        );
        let files = manifest["files"].as_object().unwrap();
        assert_eq!(files.len(), 4 + round + 1, "round {round}: {manifest}");
        let mut copies: Vec<String> = fs::read_dir(env.snapshot_dir().join(&generations[0]))
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        copies.sort();
        let mut named: Vec<String> = files
            .values()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        named.sort();
        assert_eq!(copies, named, "round {round}");
        for (rel, _) in files {
            assert_eq!(
                fs::read_to_string(env.copy_of(rel)).unwrap(),
                fs::read_to_string(dir.join(rel)).unwrap(),
                "round {round}: {rel}"
            );
        }
        let (code, json) = env.review_json(&dir);
        assert_eq!(code, 0, "round {round}: {json}");
        assert_eq!(json["summary"]["files"], 0, "round {round}: {json}");
    }
}

//! A repository's own configuration never makes mbank run a program. Each hostile key git
//! knows — `core.fsmonitor`, clean/smudge and long-running `process` filters named by
//! `.gitattributes`, `diff.<driver>.textconv`/`command`, `diff.external`, hooks (through
//! `core.hooksPath` and in `.git/hooks`), `core.pager`, `credential.helper`,
//! `core.sshCommand` (reached through a partial clone's lazy fetch), `core.askPass`,
//! `gpg.program` with `commit.gpgSign` — points at a script that leaves a marker file;
//! then `mbank check`, `mbank review` (plain and `--mark-reviewed`), the TUI's project
//! analysis and a review commit through the core API run over the repositories, and no
//! marker may exist afterwards.
#![cfg(unix)]

use crate::common;

use std::ffi::OsString;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use mbank::core::config::Config;
use mbank::core::review::{ReviewOptions, ReviewSession};
use mbank::core::scan::discovery;
use mbank::core::tokens::Encoding;

const BRIEF: &str = "# Project Brief\n\nA shop.\n";
const ACTIVE: &str = "# Active Context\n\nWorking on checkout.\n";
const PROGRESS: &str = "# Progress\n\n## Done\n\n- Cart\n";
const LOG: &str = "# Decision Log\n\n## 2025-01-10 - Use SQLite\n\nSmall data.\n\n## 2025-02-01 - Ship weekly\n\nSmall batches.\n";

/// Every hook name git runs for the commands a review or a commit could use.
const HOOKS: [&str; 12] = [
    "pre-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "post-index-change",
    "reference-transaction",
    "pre-auto-gc",
    "post-checkout",
    "post-rewrite",
    "pre-push",
    "fsmonitor-watchman",
    "push-to-checkout",
];

struct Hostile {
    temp: tempfile::TempDir,
    /// Where the scripts leave their markers.
    marks: PathBuf,
    /// The root holding the hostile repositories.
    root: PathBuf,
    /// A test-only HOME for the git commands that set the repositories up.
    home: PathBuf,
}

fn git_in(dir: &Path, home: &Path, args: &[&str]) -> String {
    common::git_stdout(args, common::git_output(dir, home, &[], args))
}

fn executable(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
}

impl Hostile {
    fn new() -> Hostile {
        let temp = tempfile::tempdir().unwrap();
        let marks = temp.path().join("marks");
        let root = temp.path().join("root");
        let home = temp.path().join("home");
        for dir in [&marks, &root, &home] {
            fs::create_dir_all(dir).unwrap();
        }
        let hostile = Hostile {
            temp,
            marks,
            root,
            home,
        };
        // `mark NAME ARGS…` (through a shell, as git runs most configured commands)
        // records NAME; it passes stdin through so a filter "works" if git lets it.
        executable(
            &hostile.mark_script(),
            &format!(
                "#!/bin/sh\nname=$1\nshift\necho \"$name $*\" >> '{}'/\"$name\"\ncat\n",
                hostile.marks.display()
            ),
        );
        // gpg.program is run without a shell, so it gets a script of its own.
        executable(
            &hostile.temp.path().join("bin/gpg"),
            &format!(
                "#!/bin/sh\necho \"gpg $*\" >> '{}'/gpg\nexit 1\n",
                hostile.marks.display()
            ),
        );
        // The hooks, once in a folder core.hooksPath names and once in .git/hooks.
        for hook in HOOKS {
            let body = format!(
                "#!/bin/sh\necho \"{hook} $*\" >> '{}'/hook-{hook}\nexit 0\n",
                hostile.marks.display()
            );
            executable(&hostile.temp.path().join("hooks").join(hook), &body);
        }
        hostile
    }

    fn mark_script(&self) -> PathBuf {
        self.temp.path().join("bin/mark")
    }

    fn mark(&self, name: &str) -> String {
        format!("{} {name}", self.mark_script().display())
    }

    /// Which markers exist (none may).
    fn markers(&self) -> Vec<String> {
        let mut found: Vec<String> = fs::read_dir(&self.marks)
            .unwrap()
            .flatten()
            .map(|e| {
                let text = fs::read_to_string(e.path()).unwrap_or_default();
                format!("{}: {}", e.file_name().to_string_lossy(), text.trim())
            })
            .collect();
        found.sort();
        found
    }

    fn assert_nothing_ran(&self, after: &str) {
        let found = self.markers();
        assert!(
            found.is_empty(),
            "after {after}, repository-configured commands ran:\n{}",
            found.join("\n")
        );
    }

    fn git(&self, dir: &Path, args: &[&str]) -> String {
        git_in(dir, &self.home, args)
    }

    fn write(&self, dir: &Path, rel: &str, text: &str) {
        common::write(&dir.join(rel), text);
    }

    /// Sets every hostile key in `dir`'s repository configuration.
    fn arm(&self, dir: &Path, hooks_path: bool) {
        let set = |key: &str, value: &str| {
            self.git(dir, &["config", key, value]);
        };
        set("core.fsmonitor", &self.mark("fsmonitor"));
        set("filter.evil.clean", &self.mark("filter-clean"));
        set("filter.evil.smudge", &self.mark("filter-smudge"));
        set("filter.long.process", &self.mark("filter-process"));
        set("diff.evil.textconv", &self.mark("textconv"));
        set("diff.evil.command", &self.mark("diff-command"));
        set("diff.external", &self.mark("diff-external"));
        set("merge.evil.driver", &self.mark("merge-driver"));
        set("core.pager", &self.mark("pager"));
        set("pager.log", &self.mark("pager-log"));
        set("credential.helper", &self.mark("credential"));
        set("core.askPass", &self.mark("askpass"));
        set("core.sshCommand", &self.mark("ssh"));
        set("core.editor", &self.mark("editor"));
        set("sequence.editor", &self.mark("sequence-editor"));
        set(
            "gpg.program",
            &self.temp.path().join("bin/gpg").display().to_string(),
        );
        set("gpg.ssh.program", &self.mark("gpg-ssh"));
        set("commit.gpgSign", "true");
        set("log.showSignature", "true");
        set("protocol.ssh.allow", "always");
        set("gc.auto", "1");
        if hooks_path {
            set(
                "core.hooksPath",
                &self.temp.path().join("hooks").display().to_string(),
            );
        } else {
            for hook in HOOKS {
                let from = self.temp.path().join("hooks").join(hook);
                let to = dir.join(".git/hooks").join(hook);
                fs::create_dir_all(to.parent().unwrap()).unwrap();
                fs::copy(&from, &to).unwrap();
                fs::set_permissions(&to, fs::Permissions::from_mode(0o755)).unwrap();
            }
        }
    }

    /// A repository with a committed Cline bank whose memory files carry the hostile
    /// filter and diff drivers, then armed; afterwards the work tree is edited (the
    /// decision log loses an entry, everything is touched so git must re-read it).
    fn repository(&self, name: &str, hooks_path: bool) -> PathBuf {
        let dir = self.root.join(name);
        fs::create_dir_all(&dir).unwrap();
        self.git(&dir, &["init", "-q", "-b", "main"]);
        self.bank(&dir);
        self.write(
            &dir,
            ".gitattributes",
            "memory-bank/*.md filter=evil diff=evil merge=evil\nmemory-bank/activeContext.md filter=long\n",
        );
        self.git(&dir, &["add", "-A"]);
        self.git(&dir, &["commit", "-q", "-m", "start"]);
        self.arm(&dir, hooks_path);
        self.edit(&dir);
        dir
    }

    fn bank(&self, dir: &Path) {
        self.write(dir, "memory-bank/projectbrief.md", BRIEF);
        self.write(dir, "memory-bank/activeContext.md", ACTIVE);
        self.write(dir, "memory-bank/progress.md", PROGRESS);
        self.write(dir, "memory-bank/decisionLog.md", LOG);
        self.write(dir, "src/lib.rs", "pub fn a() {}\n");
    }

    /// Agent-like edits, and new times on every file, so git cannot trust its index.
    fn edit(&self, dir: &Path) {
        let shrunk = LOG.replace("## 2025-02-01 - Ship weekly\n\nSmall batches.\n", "");
        self.write(dir, "memory-bank/decisionLog.md", &shrunk);
        // Same size, other bytes: only hashing the content tells them apart.
        self.write(
            dir,
            "memory-bank/progress.md",
            &PROGRESS.replace("Cart", "Cort"),
        );
        let later = SystemTime::now() + Duration::from_secs(3600);
        for rel in [
            "memory-bank/projectbrief.md",
            "memory-bank/activeContext.md",
            "memory-bank/progress.md",
            "memory-bank/decisionLog.md",
        ] {
            let file = fs::File::options().write(true).open(dir.join(rel)).unwrap();
            file.set_modified(later).unwrap();
        }
    }

    /// A partial clone (no blobs) of a repository whose promisor remote is reached over
    /// ssh: reading any committed text would start `core.sshCommand` to fetch it.
    fn partial_clone(&self, name: &str) -> PathBuf {
        let source = self.temp.path().join("source");
        fs::create_dir_all(&source).unwrap();
        self.git(&source, &["init", "-q", "-b", "main"]);
        self.bank(&source);
        self.git(&source, &["add", "-A"]);
        self.git(&source, &["commit", "-q", "-m", "start"]);
        self.git(&source, &["config", "uploadpack.allowFilter", "true"]);
        let dir = self.root.join(name);
        let url = format!("file://{}", source.display());
        self.git(
            &self.root,
            &[
                "clone",
                "-q",
                "--no-checkout",
                "--filter=blob:none",
                &url,
                dir.to_str().unwrap(),
            ],
        );
        self.git(&dir, &["read-tree", "HEAD"]);
        self.git(
            &dir,
            &["config", "remote.origin.url", "ssh://example.invalid/x"],
        );
        self.arm(&dir, true);
        // The work tree is written by hand (a checkout would fetch the blobs).
        self.bank(&dir);
        self.edit(&dir);
        dir
    }

    /// The review options of the core API, with git's identity but none of the test
    /// helpers' `commit.gpgsign=false` (the repository's own signing must be ignored).
    fn review_options(&self) -> ReviewOptions {
        let env: Vec<(OsString, OsString)> = common::git_env(&self.home)
            .into_iter()
            .filter(|(key, _)| !key.to_string_lossy().starts_with("GIT_CONFIG_"))
            .collect();
        ReviewOptions {
            git_env: env,
            home: Some(self.home.clone()),
            data_dir: Some(self.temp.path().join("data")),
            encoding: Encoding::Bytes4,
            ..ReviewOptions::default()
        }
    }
}

#[test]
fn hostile_repository_configuration_never_runs() {
    let hostile = Hostile::new();
    let alpha = hostile.repository("alpha", true);
    let beta = hostile.repository("beta", false);
    let gamma = hostile.partial_clone("gamma");
    // Setting up (commits, the clone) ran no hostile command yet: the keys were set after.
    hostile.assert_nothing_ran("setting up");

    let sandbox = common::Sandbox::new();
    let root = hostile.root.to_str().unwrap();
    let check = sandbox.run(&["--encoding", "bytes4", "check", "--root", root, "--json"]);
    assert!(check.code == 0 || check.code == 1, "{check:?}");
    hostile.assert_nothing_ran("mbank check");
    // The checks still ran: the lost decision is caught through the hashed work tree,
    // and the partial clone, whose committed text git may not fetch, fails closed.
    let json = check.json();
    let codes = |name: &str| -> Vec<String> {
        json["projects"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .unwrap_or_else(|| panic!("no project {name}: {json}"))["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["code"].as_str().unwrap().to_string())
            .collect()
    };
    for name in ["alpha", "beta"] {
        assert!(
            codes(name).contains(&"decision-log-shrunk".to_string()),
            "{name}: {:?}",
            codes(name)
        );
    }
    assert!(
        codes("gamma").contains(&"git-failed".to_string()),
        "{:?}",
        codes("gamma")
    );

    let review = sandbox.run(&["--encoding", "bytes4", "review", "--root", root, "--json"]);
    assert!(review.code == 0 || review.code == 1, "{review:?}");
    hostile.assert_nothing_ran("mbank review");
    let json = review.json();
    let alpha_files: Vec<&str> = json["projects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "alpha")
        .unwrap()["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["display"].as_str().unwrap())
        .collect();
    assert_eq!(
        alpha_files,
        vec!["memory-bank/decisionLog.md", "memory-bank/progress.md"],
        "only the edited files changed (touched ones did not)"
    );
    for dir in [&alpha, &beta] {
        let review = sandbox.run(&["review", dir.to_str().unwrap()]);
        assert!(review.code == 0 || review.code == 1, "{review:?}");
    }
    hostile.assert_nothing_ran("mbank review PATH");

    let mark = sandbox.run(&["review", "--mark-reviewed", alpha.to_str().unwrap()]);
    assert_eq!(mark.code, 2, "a git project is refused: {mark:?}");
    hostile.assert_nothing_ran("mbank review --mark-reviewed");

    // The TUI's analysis of an opened project (everything, git included).
    let config = Config::default();
    for dir in [&alpha, &beta, &gamma] {
        let project = discovery::project_at(dir, "p".into()).unwrap();
        let report = mbank::tui::workers::analyze_now(
            &config,
            Encoding::Bytes4,
            &project,
            &common::test_clock(),
        );
        assert!(!report.banks.is_empty());
    }
    hostile.assert_nothing_ran("the TUI's project analysis");

    // A review in the core API: review, accept, commit.
    for dir in [&alpha, &beta] {
        let project = discovery::project_at(dir, "p".into()).unwrap();
        let mut session = ReviewSession::open(&project, hostile.review_options()).unwrap();
        let review = session.review().unwrap();
        let progress = review
            .files
            .iter()
            .find(|f| f.display == "memory-bank/progress.md")
            .unwrap_or_else(|| panic!("progress.md is changed: {:?}", review.files));
        session.accept_file(progress).unwrap();
        let outcome = session.commit("memory: progress").unwrap();
        assert_eq!(outcome.files, vec!["memory-bank/progress.md".to_string()]);
        hostile.assert_nothing_ran("a review commit");
        // The commit is real: HEAD moved and holds the accepted text.
        let committed = hostile.git(dir, &["show", "HEAD:memory-bank/progress.md"]);
        assert_eq!(committed, PROGRESS.replace("Cart", "Cort"));
        assert_eq!(
            hostile.git(dir, &["log", "--format=%s", "-1"]).trim(),
            "memory: progress"
        );
    }
    let project = discovery::project_at(&gamma, "p".into()).unwrap();
    let session = ReviewSession::open(&project, hostile.review_options()).unwrap();
    let _ = session.review();
    hostile.assert_nothing_ran("a review of the partial clone");
}

/// With `[review] run_git_hooks = true` the commit (and only the commit) runs the
/// user's hooks, as a plain `git commit` would.
#[test]
fn hooks_run_for_the_review_commit_only_when_asked() {
    let hostile = Hostile::new();
    let dir = hostile.root.join("shop");
    fs::create_dir_all(&dir).unwrap();
    hostile.git(&dir, &["init", "-q", "-b", "main"]);
    hostile.bank(&dir);
    hostile.git(&dir, &["add", "-A"]);
    hostile.git(&dir, &["commit", "-q", "-m", "start"]);
    hostile.git(
        &dir,
        &[
            "config",
            "core.hooksPath",
            &hostile.temp.path().join("hooks").display().to_string(),
        ],
    );
    hostile.write(
        &dir,
        "memory-bank/progress.md",
        &format!("{PROGRESS}- Tax\n"),
    );
    let project = discovery::project_at(&dir, "shop".into()).unwrap();
    let options = ReviewOptions {
        run_git_hooks: true,
        ..hostile.review_options()
    };
    let mut session = ReviewSession::open(&project, options).unwrap();
    let review = session.review().unwrap();
    hostile.assert_nothing_ran("the review");
    session.accept_file(&review.files[0]).unwrap();
    hostile.assert_nothing_ran("accepting a file");
    session.commit("memory: tax").unwrap();
    let found = hostile.markers();
    assert!(
        found.iter().any(|m| m.starts_with("hook-pre-commit")),
        "the pre-commit hook ran: {found:?}"
    );
}

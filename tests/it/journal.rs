//! The journal through the real binary: `mbank watch` records what a script writes,
//! deletes and renames directly (no mbank server), in a project's bank and in Claude
//! Code's auto memory in a fake HOME; `mbank changes` lists it; `mbank restore` brings
//! an earlier text and a deleted file back; a watch killed with SIGKILL catches up when
//! started again.
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::common::{Sandbox, poll_until, write};

pub(crate) const WAIT: Duration = Duration::from_secs(30);

/// A running `mbank watch`, its stderr gathered as it comes; killed on drop.
pub(crate) struct Watch {
    child: Child,
    log: Arc<Mutex<String>>,
}

impl Watch {
    pub(crate) fn start(sandbox: &Sandbox, root: &Path) -> Watch {
        let mut command = sandbox.mbank();
        command
            .args(["watch", "--root", root.to_str().unwrap()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = command.spawn().unwrap();
        let mut stderr = child.stderr.take().unwrap();
        let log = Arc::new(Mutex::new(String::new()));
        let gathered = log.clone();
        std::thread::spawn(move || {
            let mut buffer = [0u8; 4096];
            while let Ok(n) = stderr.read(&mut buffer) {
                if n == 0 {
                    break;
                }
                gathered
                    .lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buffer[..n]));
            }
        });
        let watch = Watch { child, log };
        watch.wait_for("watching for changes");
        watch
    }

    fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// Waits until the log holds `text` (`count` times).
    fn wait_for_count(&self, text: &str, count: usize) {
        let deadline = std::time::Instant::now() + WAIT;
        while self.log().matches(text).count() < count {
            assert!(
                std::time::Instant::now() < deadline,
                "the watch log did not say {text:?} within {WAIT:?}:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    fn wait_for(&self, text: &str) {
        self.wait_for_count(text, 1);
    }

    /// Sends SIGTERM and waits for a clean exit.
    pub(crate) fn terminate(mut self) -> (i32, String) {
        let pid = self.child.id().to_string();
        let status = std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap();
        assert!(status.success());
        let code = poll_until(WAIT, "mbank watch exiting on SIGTERM", || {
            self.child.try_wait().unwrap()
        });
        // The log's last lines are read once the pipe closes.
        poll_until(WAIT, "the log's end", || {
            self.log().contains("stopped").then_some(())
        });
        (code.code().unwrap_or(-1), self.log())
    }

    fn kill_hard(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    project: PathBuf,
    memory: PathBuf,
}

/// A project with a Cline bank under the root, and its Claude Code auto memory in the
/// sandbox's HOME.
fn fixture(sandbox: &Sandbox) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap().join("work");
    let project = root.join("app");
    write(
        &project.join("memory-bank/projectbrief.md"),
        "# Brief\nA weather app.\n",
    );
    write(
        &project.join("memory-bank/progress.md"),
        "# Progress\n- first\n",
    );
    write(
        &project.join("memory-bank/activeContext.md"),
        "# Active\nnow\n",
    );
    write(
        &project.join("memory-bank/techContext.md"),
        "# Tech\nRust\n",
    );
    let memory = mbank::core::formats::claude_auto_memory::memory_folder(sandbox.home(), &project);
    write(&memory.join("MEMORY.md"), "- [Testing](testing.md)\n");
    write(
        &memory.join("testing.md"),
        "Run cargo test before pushing.\n",
    );
    Fixture {
        _dir: dir,
        root,
        project,
        memory,
    }
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn changes(sandbox: &Sandbox, root: &Path) -> serde_json::Value {
    let run = sandbox.run(&["changes", "--json", "--root", s(root)]);
    run.expect_code(0);
    run.json()
}

fn change_of<'a>(json: &'a serde_json::Value, path: &Path) -> &'a serde_json::Value {
    json["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["path"] == s(path))
        .unwrap_or_else(|| panic!("{} not among the changes: {json:#}", path.display()))
}

#[test]
fn direct_writes_deletes_and_renames_are_recorded_listed_and_brought_back() {
    let sandbox = Sandbox::new();
    let f = fixture(&sandbox);
    let progress = f.project.join("memory-bank/progress.md");
    let active = f.project.join("memory-bank/activeContext.md");
    let tech = f.project.join("memory-bank/techContext.md");
    let renamed = f.project.join("memory-bank/tech-notes.md");
    let topic = f.memory.join("testing.md");

    let watch = Watch::start(&sandbox, &f.root);
    watch.wait_for("caught up: 6 recorded");
    // An agent's script writes directly, with its own file tools.
    std::fs::write(&progress, "# Progress\n- first\n- second, by the agent\n").unwrap();
    watch.wait_for("progress.md: version 2, by on disk (Cline memory bank)");
    std::fs::remove_file(&topic).unwrap();
    watch.wait_for("testing.md deleted: version 2, by on disk (Claude Code auto memory)");
    std::fs::rename(&tech, &renamed).unwrap();
    watch.wait_for("renamed to");
    std::fs::remove_file(&active).unwrap();
    watch.wait_for("activeContext.md deleted");
    let (code, log) = watch.terminate();
    assert_eq!(code, 0, "{log}");

    let json = changes(&sandbox, &f.root);
    assert_eq!(json["schema"], "mbank.changes/1");
    let change = change_of(&json, &progress);
    assert_eq!(change["change"], "modified");
    assert_eq!(
        (change["added"].as_u64(), change["removed"].as_u64()),
        (Some(1), Some(0))
    );
    assert_eq!(change["writers"][0], "on disk (Cline memory bank)");
    let gone = change_of(&json, &topic);
    assert_eq!(gone["change"], "deleted");
    assert_eq!(gone["store"], "Claude Code auto memory");
    assert_eq!(change_of(&json, &renamed)["change"], "renamed");
    assert_eq!(change_of(&json, &tech)["change"], "deleted");
    let text = sandbox.run(&["changes", "--root", s(&f.root)]);
    text.expect_code(0);
    assert!(
        text.stdout.contains("mbank restore FILE VERSION"),
        "{}",
        text.stdout
    );

    // A revert brings the earlier text back, through mbank's write (itself recorded).
    sandbox
        .run(&["restore", s(&progress), "1", "--root", s(&f.root)])
        .expect_code(0);
    assert_eq!(
        std::fs::read_to_string(&progress).unwrap(),
        "# Progress\n- first\n"
    );
    // A deleted file of the bank and one of Claude Code's auto memory come back.
    sandbox
        .run(&["restore", s(&active), "1", "--root", s(&f.root)])
        .expect_code(0);
    assert_eq!(std::fs::read_to_string(&active).unwrap(), "# Active\nnow\n");
    let restored = sandbox.run(&["restore", s(&topic), "1", "--root", s(&f.root)]);
    restored.expect_code(0);
    assert!(
        restored.stdout.contains("Claude Code auto memory"),
        "{}",
        restored.stdout
    );
    assert_eq!(
        std::fs::read_to_string(&topic).unwrap(),
        "Run cargo test before pushing.\n"
    );
    // The deletion itself has no text to bring back.
    let refused = sandbox.run(&["restore", s(&topic), "2", "--root", s(&f.root)]);
    refused.expect_code(2);
    assert!(refused.stderr.contains("deleted"), "{}", refused.stderr);

    let history = sandbox.run(&["history", s(&progress), "--json"]);
    history.expect_code(0);
    let writers: Vec<String> = history.json()["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["writer"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        writers,
        vec!["on disk (Cline memory bank)", "on disk (Cline memory bank)"],
        "the revert replaced version 2, which the journal held already"
    );

    sandbox
        .run(&["changes", "--mark-reviewed", "--root", s(&f.root)])
        .expect_code(0);
    let json = changes(&sandbox, &f.root);
    assert_eq!(json["changes"].as_array().unwrap().len(), 0, "{json:#}");

    let stats = sandbox.run(&["history", "--stats", "--json"]);
    stats.expect_code(0);
    let stats = stats.json();
    assert!(stats["files"].as_u64().unwrap() >= 7, "{stats}");
    assert!(stats["bytes"].as_u64().unwrap() > 0, "{stats}");
}

#[test]
fn a_watch_killed_and_started_again_catches_up_on_what_it_missed() {
    let sandbox = Sandbox::new();
    let f = fixture(&sandbox);
    let progress = f.project.join("memory-bank/progress.md");
    let active = f.project.join("memory-bank/activeContext.md");
    let watch = Watch::start(&sandbox, &f.root);
    std::fs::write(&progress, "# Progress\n- two\n").unwrap();
    watch.wait_for("progress.md: version 2");
    watch.kill_hard();

    // While nothing watches.
    std::fs::write(&progress, "# Progress\n- three\n").unwrap();
    std::fs::remove_file(&active).unwrap();

    let watch = Watch::start(&sandbox, &f.root);
    let log = watch.log();
    assert!(log.contains("caught up: 1 recorded, 1 deleted"), "{log}");
    // One recorder at a time.
    let second = sandbox.run(&["watch", "--root", s(&f.root)]);
    second.expect_code(2);
    assert!(
        second
            .stderr
            .contains("mbank watch is recording already: one recorder at a time"),
        "{}",
        second.stderr
    );
    let (code, _) = watch.terminate();
    assert_eq!(code, 0);

    let history = sandbox.run(&["history", s(&progress), "--diff", "3"]);
    history.expect_code(0);
    assert!(
        history.stdout.contains("is the same as version 3"),
        "{}",
        history.stdout
    );
    let old = sandbox.run(&["history", s(&progress), "--json"]);
    let versions = old.json()["versions"].as_array().unwrap().len();
    assert_eq!(versions, 3);
}

#[test]
fn a_restore_passes_the_guard_a_version_holding_a_secret_is_refused_naming_the_file() {
    let sandbox = Sandbox::new();
    let f = fixture(&sandbox);
    let tech = f.project.join("memory-bank/techContext.md");
    let watch = Watch::start(&sandbox, &f.root);
    // An agent put a credential in, then took it out again: version 2 holds it.
    std::fs::write(
        &tech,
        "# Tech\nRust\nStaging DB: postgres://app:tr0ub4dor-staging@db.internal/app\n",
    )
    .unwrap();
    watch.wait_for("techContext.md: version 2");
    std::fs::write(&tech, "# Tech\nRust\nStaging DB: ask the team\n").unwrap();
    watch.wait_for("techContext.md: version 3");
    let (code, _) = watch.terminate();
    assert_eq!(code, 0);

    let refused = sandbox.run(&["restore", s(&tech), "2", "--root", s(&f.root)]);
    refused.expect_code(2);
    assert!(
        refused.stderr.contains("techContext.md") && refused.stderr.contains("password"),
        "{}",
        refused.stderr
    );
    assert_eq!(
        std::fs::read_to_string(&tech).unwrap(),
        "# Tech\nRust\nStaging DB: ask the team\n"
    );
    // The version before it passes.
    sandbox
        .run(&["restore", s(&tech), "1", "--root", s(&f.root)])
        .expect_code(0);
    assert_eq!(std::fs::read_to_string(&tech).unwrap(), "# Tech\nRust\n");
}

/// `mbank watch` keeps the search index current: after an agent's write, a search reads
/// no project again and finds the new text.
#[test]
fn the_watch_keeps_the_search_index_current() {
    let sandbox = Sandbox::new();
    let root = sandbox.home().join("banks");
    let bank = root.join("shop/memory-bank");
    write(
        &bank.join("projectbrief.md"),
        "# Brief\nA shop for bicycles.\n",
    );
    write(
        &bank.join("activeContext.md"),
        "# Active\nWorking on checkout.\n",
    );
    let watch = Watch::start(&sandbox, &root);
    write(
        &bank.join("activeContext.md"),
        "# Active\nWorking on the heliograph relay.\n",
    );
    poll_until(WAIT, "the watch writing the index's changes", || {
        std::fs::read_dir(sandbox.cache_dir())
            .ok()?
            .flatten()
            .any(|e| e.file_name().to_string_lossy().ends_with("-changes.bin"))
            .then_some(())
    });
    let found = sandbox.run(&[
        "--root",
        root.to_str().unwrap(),
        "search",
        "heliograph",
        "--json",
    ]);
    found.expect_code(0);
    let found = found.json();
    assert_eq!(found["indexed"]["projects_read"], 0, "{found}");
    assert_eq!(
        found["results"][0]["display"],
        "memory-bank/activeContext.md"
    );
    let (code, _) = watch.terminate();
    assert_eq!(code, 0);
}

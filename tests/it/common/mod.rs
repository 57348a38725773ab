//! Helpers shared by the integration tests: a hermetic way to run the `mbank` binary (its
//! own HOME, XDG folders and cache, so the user's configuration never leaks in), a
//! bounded wait so a hang fails a test instead of stalling CI, a git repository fixture
//! ([`git`]) and the TUI harness ([`tui`]).
#![allow(dead_code)]

pub mod context;
pub mod decision_labels;
pub mod git;
pub mod tui;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

/// Environment variables that would let the caller's setup change what mbank does.
const LEAKY_VARS: [&str; 9] = [
    "MBANK_NOW",
    "MEMORY_BANK_ROOT",
    "MBANK_CONFIG_DIR",
    "MBANK_CACHE_DIR",
    "MBANK_DATA_DIR",
    "NO_COLOR",
    "XDG_RUNTIME_DIR",
    "XDG_CONFIG_DIRS",
    "XDG_DATA_DIRS",
];

/// The clock tests judge time by unless they say otherwise: noon of the day the demo banks
/// were written as of (what the TUI harness uses too), so no result depends on today.
pub fn test_clock() -> mbank::core::clock::Clock {
    mbank::core::demo::clock_of_writing().unwrap()
}

/// A private HOME with its XDG folders; every command run through it sees only these.
/// Its runs' clocks can be moved ahead of the real one ([`Sandbox::settle`]).
pub struct Sandbox {
    dir: tempfile::TempDir,
    /// When [`Sandbox::settle`] was last called.
    settled_at: std::sync::Mutex<Option<std::time::SystemTime>>,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        let dir = tempfile::Builder::new()
            .prefix("mbank-test-home-")
            .tempdir()
            .unwrap();
        for sub in ["config", "cache", "data", "state"] {
            fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        Sandbox {
            dir,
            settled_at: std::sync::Mutex::new(None),
        }
    }

    /// Runs here from now on start as if what was written so far had aged past the
    /// caches' racy window, while what is written later is as new as it is: their clocks
    /// start no earlier than the window after this call. What a test would otherwise
    /// sleep for, so that a run trusts the files' times.
    pub fn settle(&self) {
        *self.settled_at.lock().unwrap() = Some(std::time::SystemTime::now());
    }

    /// The instant a run started now begins at: the real one, or the end of the racy
    /// window after [`Sandbox::settle`] when that is later. Just past the window, so what
    /// was written before the call is trusted and anything written after it is not yet.
    fn start_of_run(&self) -> Option<std::time::SystemTime> {
        let window = mbank::core::scan::listings::RACY_WINDOW + Duration::from_millis(1);
        let settled = (*self.settled_at.lock().unwrap())?;
        Some((settled + window).max(std::time::SystemTime::now()))
    }

    /// The clock a run here starts with ([`Sandbox::settle`]).
    pub fn clock(&self) -> mbank::core::clock::Clock {
        match self.start_of_run() {
            Some(start) => mbank::core::clock::Clock::starting_at(start),
            None => mbank::core::clock::Clock::system(),
        }
    }

    pub fn home(&self) -> &Path {
        self.dir.path()
    }

    /// Where mbank's platform config folder is under this sandbox (`$XDG_CONFIG_HOME/mbank`).
    pub fn config_dir(&self) -> PathBuf {
        self.home().join("config").join("mbank")
    }

    pub fn cache_dir(&self) -> PathBuf {
        self.home().join("cache").join("mbank")
    }

    /// The variables every run here is given (and [`LEAKY_VARS`] are removed).
    pub fn env(&self) -> Vec<(&'static str, PathBuf)> {
        vec![
            ("HOME", self.home().to_path_buf()),
            ("XDG_CONFIG_HOME", self.home().join("config")),
            ("XDG_CACHE_HOME", self.home().join("cache")),
            ("XDG_DATA_HOME", self.home().join("data")),
            ("XDG_STATE_HOME", self.home().join("state")),
            ("TMPDIR", std::env::temp_dir()),
        ]
    }

    /// The variables that must not reach a run here.
    pub fn removed_env(&self) -> &'static [&'static str] {
        &LEAKY_VARS
    }

    /// `mbank` with this sandbox's environment.
    pub fn mbank(&self) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_mbank"));
        for var in LEAKY_VARS {
            command.env_remove(var);
        }
        command.envs(self.env()).current_dir(self.home());
        if let Some(start) = self.start_of_run() {
            let start: chrono::DateTime<chrono::Utc> = start.into();
            command.env(
                mbank::core::clock::NOW_VARIABLE,
                start.to_rfc3339_opts(chrono::SecondsFormat::Nanos, true),
            );
        }
        command
    }

    /// Runs `mbank ARGS` to completion (bounded: 60 s) and returns its output.
    pub fn run(&self, args: &[&str]) -> Run {
        let mut command = self.mbank();
        command.args(args);
        run_command(command)
    }

    /// Runs with one extra environment variable.
    pub fn run_env(&self, args: &[&str], var: &str, value: &Path) -> Run {
        let mut command = self.mbank();
        command.args(args).env(var, value);
        run_command(command)
    }
}

/// Output of one run, decoded.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        })
    }

    /// Asserts the exit code, showing both streams when it differs.
    pub fn expect_code(&self, code: i32) -> &Run {
        assert_eq!(
            self.code, code,
            "exit code {} (wanted {code})\nstdout:\n{}\nstderr:\n{}",
            self.code, self.stdout, self.stderr
        );
        self
    }
}

/// How long one command may run before the test calls it a hang.
pub const COMMAND_LIMIT: Duration = Duration::from_secs(60);
/// How long work in the test process may take before it counts as a hang: a watchdog,
/// not a speed check (benches/ measure speed), so generous for a loaded machine.
pub const HANG_LIMIT: Duration = Duration::from_secs(120);

/// Asks `check` until it answers, at most for `limit` (a condition that never holds fails
/// the test, naming `what`); between asks the thread rests a few milliseconds.
pub fn poll_until<T>(limit: Duration, what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let deadline = std::time::Instant::now() + limit;
    loop {
        if let Some(value) = check() {
            return value;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{what} did not happen within {limit:?}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Runs a command to completion; a command still running after [`COMMAND_LIMIT`] is
/// killed and the test fails (a hang must fail, not stall CI).
pub fn run_command(mut command: Command) -> Run {
    use std::io::Read;
    use std::process::Stdio;
    use std::time::Instant;

    let description = format!("{command:?}");
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {description}: {e}"));
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out_reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = stdout.read_to_end(&mut bytes);
        bytes
    });
    let err_reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = stderr.read_to_end(&mut bytes);
        bytes
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > COMMAND_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{description} did not finish within {COMMAND_LIMIT:?} (hang?)");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Run {
        code: status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out_reader.join().unwrap()).into_owned(),
        stderr: String::from_utf8_lossy(&err_reader.join().unwrap()).into_owned(),
    }
}

/// Runs `work` on its own thread and fails the test if it takes longer than `limit`
/// (a hang must fail, not stall CI). A panic inside `work` is re-raised here.
pub fn within<T: Send + 'static>(
    limit: Duration,
    what: &str,
    work: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (sender, receiver) = mpsc::channel();
    let handle = std::thread::spawn(move || {
        let value = work();
        let _ = sender.send(());
        value
    });
    match receiver.recv_timeout(limit) {
        Ok(()) => handle.join().unwrap(),
        Err(mpsc::RecvTimeoutError::Disconnected) => match handle.join() {
            Ok(value) => value,
            Err(panic) => std::panic::resume_unwind(panic),
        },
        Err(mpsc::RecvTimeoutError::Timeout) => {
            panic!("{what} did not finish within {limit:?} (hang?)")
        }
    }
}

pub fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// Rewrites an existing file with as many bytes and sets its modification time back, as
/// `rsync -t`, `touch -r` or an editor keeping times does: only its change time moves.
pub fn rewrite_keeping_size_and_modification_time(path: &Path, text: &str) {
    let before = fs::metadata(path).unwrap();
    assert_eq!(text.len() as u64, before.len(), "not as many bytes");
    let time = before.modified().unwrap();
    fs::write(path, text).unwrap();
    fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(time)
        .unwrap();
    assert_eq!(fs::metadata(path).unwrap().modified().unwrap(), time);
}

/// Sets a file's modification time `by` into the past.
pub fn age(path: &Path, by: std::time::Duration) {
    fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(std::time::SystemTime::now() - by)
        .unwrap();
}

/// The shared corpus of real banks, or `None` (with a printed notice) when it is absent.
pub fn corpus_root() -> Option<PathBuf> {
    let root = std::env::var_os("MBANK_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"));
    if root.is_dir() {
        Some(root)
    } else {
        eprintln!(
            "NOTICE: corpus not found at {} (set MBANK_CORPUS to run the corpus tests); skipping",
            root.display()
        );
        None
    }
}

/// Banks this project fetched into its copy of the corpus beyond the shared one (public
/// repositories in other languages and styles, labelled here). A corpus without them is
/// still whole: their labels are skipped with a notice, where a missing shared bank fails.
pub const ADDED_BANKS: [&str; 3] = [
    "nublu1234+nublu1234.github.io",
    "RADESH626+black-noise-nextjs",
    "89780012+online-notepad",
];

/// Whether labels of `project` (a corpus folder, or `folder/sub-project`) apply to the
/// corpus at `root`: false only for an added bank that is not there.
pub fn labels_apply(root: &Path, project: &str) -> bool {
    let folder = project.split('/').next().unwrap_or(project);
    !ADDED_BANKS.contains(&folder) || root.join(folder).is_dir()
}

/// Prints which added banks are absent from the corpus at `root`, whose labels `what`
/// leaves out.
pub fn notice_absent_added_banks(root: &Path, what: &str) {
    let absent: Vec<&str> = ADDED_BANKS
        .iter()
        .copied()
        .filter(|b| !root.join(b).is_dir())
        .collect();
    if !absent.is_empty() {
        eprintln!(
            "NOTICE: {what}: the labels of {} skipped, not in this corpus ({})",
            absent.len(),
            absent.join(", ")
        );
    }
}

/// The environment for git in tests: no system or user configuration (HOME is the
/// test's own), a fixed identity, and no signing, so commits work on any machine.
pub fn git_env(home: &Path) -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    [
        ("GIT_CONFIG_NOSYSTEM", "1".into()),
        ("HOME", home.as_os_str().to_owned()),
        ("XDG_CONFIG_HOME", home.as_os_str().to_owned()),
        ("GIT_AUTHOR_NAME", "Test".into()),
        ("GIT_AUTHOR_EMAIL", "test@example.invalid".into()),
        ("GIT_COMMITTER_NAME", "Test".into()),
        ("GIT_COMMITTER_EMAIL", "test@example.invalid".into()),
        ("GIT_CONFIG_COUNT", "1".into()),
        ("GIT_CONFIG_KEY_0", "commit.gpgsign".into()),
        ("GIT_CONFIG_VALUE_0", "false".into()),
    ]
    .into_iter()
    .map(|(k, v)| (k.into(), v))
    .collect()
}

/// Runs git in `dir` with [`git_env`] plus `extra`, outside any hook's repository.
pub fn git_output(
    dir: &Path,
    home: &Path,
    extra: &[(&str, &str)],
    args: &[&str],
) -> std::process::Output {
    Command::new("git")
        .args(args)
        .current_dir(dir)
        .envs(git_env(home))
        .envs(extra.iter().copied())
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .output()
        .expect("git runs")
}

/// The standard output of a git command that must succeed (its stderr in the failure).
pub fn git_stdout(args: &[&str], output: std::process::Output) -> String {
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// What git's index holds for `rel` (`git show :rel`), `None` when it holds nothing.
pub fn staged_text(output: std::process::Output) -> Option<String> {
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).into_owned())
}

/// Every `.rs` file below `dir`, in a stable order (for the tests that read the sources).
pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The claim findings (`claim-…`) of every project of `check --json`'s output.
pub fn claim_findings(output: &serde_json::Value) -> impl Iterator<Item = &serde_json::Value> {
    output["projects"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["findings"].as_array().unwrap())
        .filter(|f| f["code"].as_str().unwrap().starts_with("claim"))
}

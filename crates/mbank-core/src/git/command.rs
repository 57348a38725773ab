//! Building and running one git command with nothing the repository configures able to
//! run (see the module comment of `git`), bounded in time, with its output read whole.
use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use crate::error::{CoreError, Result};

/// Longest a single git command may run before it is killed.
pub(super) const TIME_LIMIT: Duration = Duration::from_secs(30);

/// Environment variables a git hook sets that would point every command at the hook's
/// repository instead of the folder we ask about.
pub(super) const HOOK_VARIABLES: [&str; 6] = [
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_PREFIX",
    "GIT_COMMON_DIR",
    "GIT_OBJECT_DIRECTORY",
];

/// Environment variables naming programs git would run.
pub(super) const PROGRAM_VARIABLES: [&str; 6] = [
    "GIT_EXTERNAL_DIFF",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "GIT_PROXY_COMMAND",
];

/// Where hooks are looked up: a file, so no hook can exist below it.
#[cfg(unix)]
pub(super) const NO_HOOKS: &str = "/dev/null";
#[cfg(not(unix))]
pub(super) const NO_HOOKS: &str = "NUL";

/// `-c` settings every command gets (the command line wins over any config file).
pub(super) const ALWAYS: [(&str, &str); 16] = [
    ("core.quotepath", "off"),
    ("log.showSignature", "false"),
    ("core.fsmonitor", "false"),
    ("core.pager", "cat"),
    ("diff.external", ""),
    ("core.sshCommand", ""),
    ("core.askPass", ""),
    // An empty value empties the list of helpers.
    ("credential.helper", ""),
    ("core.editor", ":"),
    ("sequence.editor", ":"),
    // No transport at all: a partial clone's lazy fetch would start one.
    ("protocol.allow", "never"),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
    ("submodule.recurse", "false"),
    ("core.alternateRefsCommand", ""),
    ("tag.gpgSign", "false"),
];

/// `-c` settings every command gets unless the user asked for their hooks and signing
/// on a review commit.
pub(super) const NO_HOOKS_OR_SIGNING: [(&str, &str); 5] = [
    ("core.hooksPath", NO_HOOKS),
    ("commit.gpgSign", "false"),
    ("gpg.program", ""),
    ("gpg.ssh.program", ""),
    ("gpg.x509.program", ""),
];

/// How much a command may run of what the user configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Policy {
    /// Nothing configured runs (every command but an opted-in commit).
    #[default]
    Hardened,
    /// The user's hooks and commit signing run (`[review] run_git_hooks = true`, for the
    /// review commit only); filters, fsmonitor, transports and the rest stay off.
    CommitHooks,
}

/// What a finished git command left behind.
pub(crate) struct Output {
    pub(crate) success: bool,
    /// The exit code (`None` when killed by a signal).
    pub(crate) code: Option<i32>,
    pub(crate) stdout: Vec<u8>,
    pub(crate) stderr: String,
}

pub(super) fn read_all(pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    read_all_telling(pipe, None)
}

/// [`read_all`], dropping `closed` once the pipe has ended: when every reader has
/// dropped its sender, the receiver knows git has closed its output.
fn read_all_telling(
    mut pipe: impl Read + Send + 'static,
    closed: Option<mpsc::Sender<()>>,
) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut buffer = Vec::new();
        let _ = pipe.read_to_end(&mut buffer);
        drop(closed);
        buffer
    })
}

/// The `GIT_CONFIG_COUNT` entries already in `env` (or else in mbank's own
/// environment), so overrides are added after them instead of replacing them.
pub(super) fn inherited_config_entries(env: &[(OsString, OsString)]) -> Vec<(OsString, OsString)> {
    let from_env = |key: &str| -> Option<OsString> {
        env.iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
    };
    let given = from_env("GIT_CONFIG_COUNT").is_some();
    let lookup = |key: String| -> Option<OsString> {
        if given {
            from_env(&key)
        } else {
            std::env::var_os(key)
        }
    };
    let count: usize = lookup("GIT_CONFIG_COUNT".to_string())
        .and_then(|c| c.to_str().and_then(|c| c.trim().parse().ok()))
        .unwrap_or(0);
    (0..count)
        .filter_map(|i| {
            Some((
                lookup(format!("GIT_CONFIG_KEY_{i}"))?,
                lookup(format!("GIT_CONFIG_VALUE_{i}")).unwrap_or_default(),
            ))
        })
        .collect()
}

/// The one builder of every git command: `git -C dir` with the hardening settings, the
/// repository's own driver overrides (`overrides`, through `GIT_CONFIG_*` so names
/// holding `=` or dots survive), then `env` (set after the hook variables are removed,
/// so `GIT_INDEX_FILE` may be given on purpose).
pub(super) fn build(
    dir: &Path,
    args: &[OsString],
    overrides: &[(OsString, OsString)],
    env: &[(OsString, OsString)],
    policy: Policy,
) -> Command {
    let mut command = Command::new("git");
    command.arg("--no-pager").arg("-C").arg(dir);
    let mut settings: Vec<(&str, &str)> = ALWAYS.to_vec();
    if policy == Policy::Hardened {
        settings.extend(NO_HOOKS_OR_SIGNING);
    }
    for (key, value) in settings {
        command.arg("-c").arg(format!("{key}={value}"));
    }
    command
        .args(args)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_PAGER", "cat")
        .env("GIT_EDITOR", ":")
        .env("GIT_SEQUENCE_EDITOR", ":")
        .env("GIT_NO_LAZY_FETCH", "1")
        // Names are names: `*` or `[` in a file name is not a glob.
        .env("GIT_LITERAL_PATHSPECS", "1")
        .env("LC_ALL", "C");
    for variable in HOOK_VARIABLES.iter().chain(&PROGRAM_VARIABLES) {
        command.env_remove(variable);
    }
    for (key, value) in env {
        command.env(key, value);
    }
    if !overrides.is_empty() {
        let mut entries = inherited_config_entries(env);
        entries.extend(overrides.iter().cloned());
        command.env("GIT_CONFIG_COUNT", entries.len().to_string());
        for (i, (key, value)) in entries.into_iter().enumerate() {
            command.env(format!("GIT_CONFIG_KEY_{i}"), key);
            command.env(format!("GIT_CONFIG_VALUE_{i}"), value);
        }
    }
    command
}

/// Runs a built command with a time limit. Errors only when git cannot be started or
/// overruns; a non-zero exit is reported in `Output::success`.
pub(super) fn execute(
    command: Command,
    stdin: Option<&[u8]>,
    what: &str,
    dir: &Path,
) -> Result<Output> {
    execute_until(command, stdin, what, dir, None)
}

/// [`execute`], git stopped (and an error answered) once `stop` is set: for a walk
/// started before anyone asked, whose answer may never be wanted.
pub(super) fn execute_until(
    mut command: Command,
    stdin: Option<&[u8]>,
    what: &str,
    dir: &Path,
    stop: Option<&AtomicBool>,
) -> Result<Output> {
    command
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command
        .spawn()
        .map_err(|e| CoreError::Git(format!("cannot run git: {e}")))?;
    // Fed on its own thread: git may fill its output pipes before reading all of stdin.
    let feeder = match (stdin, child.stdin.take()) {
        (Some(bytes), Some(mut pipe)) => {
            let bytes = bytes.to_vec();
            Some(std::thread::spawn(move || {
                use std::io::Write;
                let _ = pipe.write_all(&bytes);
            }))
        }
        _ => None,
    };
    // Drain both pipes on their own threads so a large answer cannot block git; their
    // end tells the wait that git is done.
    let (closed, outputs) = mpsc::channel();
    let stdout = (child.stdout.take()).map(|pipe| read_all_telling(pipe, Some(closed.clone())));
    let stderr = (child.stderr.take()).map(|pipe| read_all_telling(pipe, Some(closed.clone())));
    drop(closed);
    let status = wait_within(&mut child, Instant::now(), what, dir, stop, Some(&outputs))?;
    if let Some(feeder) = feeder {
        let _ = feeder.join();
    }
    let collect = |handle: Option<std::thread::JoinHandle<Vec<u8>>>| {
        handle.and_then(|h| h.join().ok()).unwrap_or_default()
    };
    Ok(Output {
        success: status.success(),
        code: status.code(),
        stdout: collect(stdout),
        stderr: String::from_utf8_lossy(&collect(stderr)).trim().to_string(),
    })
}

/// Waits for `child` until [`TIME_LIMIT`] after `started` or until `stop` is set, then
/// stops it. `outputs` is disconnected once git has closed its output, which it does as
/// it exits.
fn wait_within(
    child: &mut Child,
    started: Instant,
    what: &str,
    dir: &Path,
    stop: Option<&AtomicBool>,
    mut outputs: Option<&mpsc::Receiver<()>>,
) -> Result<ExitStatus> {
    // Once its output has closed, git ends within microseconds: looked at often at first,
    // then less, so a quick answer is not held up by a long sleep.
    let mut pause = Duration::from_micros(50);
    // A stop is looked for at least this often.
    let stop_every = Duration::from_millis(2);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status),
            Ok(None) if started.elapsed() > TIME_LIMIT => return Err(overran(child, what, dir)),
            Ok(None) if stop.is_some_and(|stop| stop.load(Ordering::Relaxed)) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(CoreError::Git(format!(
                    "git {what} in {} was stopped: its answer was no longer wanted",
                    dir.display()
                )));
            }
            Ok(None) => match outputs {
                // Blocked on the end of its output rather than sleeping between looks:
                // a sleep would hold every answer up by up to its length.
                Some(open) => {
                    let left = TIME_LIMIT.saturating_sub(started.elapsed());
                    let wait = if stop.is_some() {
                        left.min(stop_every)
                    } else {
                        left
                    };
                    if let Err(RecvTimeoutError::Disconnected) = open.recv_timeout(wait) {
                        outputs = None;
                    }
                }
                None => {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(stop_every);
                }
            },
            Err(e) => return Err(CoreError::Git(format!("waiting for git: {e}"))),
        }
    }
}

fn overran(child: &mut Child, what: &str, dir: &Path) -> CoreError {
    let _ = child.kill();
    let _ = child.wait();
    CoreError::Git(format!(
        "git {what} took longer than {}s in {}; stopped",
        TIME_LIMIT.as_secs(),
        dir.display()
    ))
}

/// Whether the reader of a streamed command wants more of its output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Flow {
    More,
    Enough,
}

/// How a streamed command ended.
#[derive(Debug)]
pub(super) struct Streamed {
    /// Git exited with success, or was stopped because its reader had enough.
    pub(super) success: bool,
    pub(super) stderr: String,
}

/// Runs a built command (no stdin) within the same time limit, handing its output to
/// `take` piece by piece as git writes it; once `take` has had enough, git is stopped,
/// so a walk of history ends where its reader's question is answered.
pub(super) fn execute_streaming(
    mut command: Command,
    what: &str,
    dir: &Path,
    mut take: impl FnMut(&[u8]) -> Flow,
) -> Result<Streamed> {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command
        .spawn()
        .map_err(|e| CoreError::Git(format!("cannot run git: {e}")))?;
    let stderr = child.stderr.take().map(read_all);
    let (sender, pieces) = std::sync::mpsc::sync_channel::<Vec<u8>>(8);
    // Read on its own thread, so the time limit holds while git writes nothing.
    let reader = child.stdout.take().map(|mut pipe| {
        std::thread::spawn(move || {
            let mut buffer = vec![0u8; 64 * 1024];
            loop {
                match pipe.read(&mut buffer) {
                    Ok(0) => break,
                    Ok(n) => {
                        if sender.send(buffer[..n].to_vec()).is_err() {
                            break;
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
        })
    });
    let started = Instant::now();
    let mut enough = false;
    loop {
        let Some(left) = TIME_LIMIT.checked_sub(started.elapsed()) else {
            return Err(overran(&mut child, what, dir));
        };
        match pieces.recv_timeout(left) {
            Ok(piece) => {
                if take(&piece) == Flow::Enough {
                    enough = true;
                    break;
                }
            }
            Err(RecvTimeoutError::Timeout) => return Err(overran(&mut child, what, dir)),
            Err(RecvTimeoutError::Disconnected) => break,
        }
    }
    if enough {
        let _ = child.kill();
    }
    // The reader ends at the end of git's output or at its next piece, now unwanted.
    drop(pieces);
    let status = wait_within(&mut child, started, what, dir, None, None)?;
    if let Some(reader) = reader {
        let _ = reader.join();
    }
    let stderr = stderr.and_then(|h| h.join().ok()).unwrap_or_default();
    Ok(Streamed {
        success: enough || status.success(),
        stderr: String::from_utf8_lossy(&stderr).trim().to_string(),
    })
}

pub(super) fn first_arg(args: &[OsString]) -> String {
    args.first()
        .map(|a| a.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// A hardened command where no repository is known yet (finding one, reading its
/// config): these commands execute nothing a repository configures.
pub(super) fn run_bare(dir: &Path, args: &[OsString]) -> Result<Output> {
    let command = build(dir, args, &[], &[], Policy::Hardened);
    execute(command, None, &first_arg(args), dir)
}

/// The environment for `git check-ignore`, which refuses literal pathspecs outright (the
/// builder's default); the paths it is given on stdin hold no magic either way.
pub(crate) fn check_ignore_env() -> [(OsString, OsString); 1] {
    [(OsString::from("GIT_LITERAL_PATHSPECS"), OsString::from("0"))]
}

pub(crate) fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

#[cfg(unix)]
pub(super) fn path_from_bytes(bytes: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(OsStr::from_bytes(bytes))
}

#[cfg(not(unix))]
pub(super) fn path_from_bytes(bytes: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
}

#[cfg(unix)]
pub(super) fn os_bytes(text: &OsStr) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    text.as_bytes().to_vec()
}

#[cfg(not(unix))]
pub(super) fn os_bytes(text: &OsStr) -> Vec<u8> {
    text.to_string_lossy().into_owned().into_bytes()
}

/// Git's spelling of a relative path: `/`-separated.
pub(crate) fn git_path(rel: &Path) -> OsString {
    let mut out = OsString::new();
    for (i, part) in rel.components().enumerate() {
        if i > 0 {
            out.push("/");
        }
        out.push(part.as_os_str());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn a_command_whose_answer_is_no_longer_wanted_is_stopped() {
        let temp = tempfile::tempdir().expect("temp");
        // Were it not stopped, it would run out its time and answer success.
        let mut command = Command::new("sh");
        command.args(["-c", "exec sleep 60"]);
        let stop = AtomicBool::new(true);
        let answer = execute_until(command, None, "sleep", temp.path(), Some(&stop));
        match answer {
            Err(CoreError::Git(message)) => assert!(message.contains("was stopped"), "{message}"),
            Err(other) => panic!("another error: {other}"),
            Ok(out) => panic!("not stopped: it ended, success {}", out.success),
        }
    }

    #[test]
    fn a_command_is_awaited_to_its_exit_with_all_it_wrote() {
        let temp = tempfile::tempdir().expect("temp");
        let mut command = Command::new("sh");
        command.args(["-c", "printf out; printf err >&2; exit 4"]);
        let answer = execute(command, None, "sh", temp.path()).expect("ran");
        assert_eq!(
            (
                answer.success,
                answer.code,
                answer.stdout.as_slice(),
                answer.stderr.as_str()
            ),
            (false, Some(4), b"out".as_slice(), "err")
        );
    }

    #[test]
    fn a_command_that_closes_its_output_before_it_ends_is_awaited_to_its_end() {
        let temp = tempfile::tempdir().expect("temp");
        // Its output ends first; its exit code comes only after the pause.
        let mut command = Command::new("sh");
        command.args(["-c", "printf early; exec >&- 2>&-; sleep 0.2; exit 3"]);
        let answer = execute(command, None, "sh", temp.path()).expect("ran");
        assert_eq!(
            (answer.code, answer.stdout.as_slice()),
            (Some(3), b"early".as_slice())
        );
    }

    #[test]
    fn git_paths_use_forward_slashes() {
        assert_eq!(
            git_path(Path::new("a/b c/ä.md")),
            OsString::from("a/b c/ä.md")
        );
    }

    #[test]
    fn overrides_follow_the_callers_config_entries() {
        let env = vec![
            (OsString::from("GIT_CONFIG_COUNT"), OsString::from("1")),
            (
                OsString::from("GIT_CONFIG_KEY_0"),
                OsString::from("commit.gpgsign"),
            ),
            (
                OsString::from("GIT_CONFIG_VALUE_0"),
                OsString::from("false"),
            ),
        ];
        let overrides = vec![(OsString::from("filter.a=b.clean"), OsString::new())];
        let command = build(
            Path::new("."),
            &os(&["status"]),
            &overrides,
            &env,
            Policy::Hardened,
        );
        let envs: HashMap<&OsStr, Option<&OsStr>> = command.get_envs().collect();
        let get = |k: &str| envs.get(OsStr::new(k)).copied().flatten();
        assert_eq!(get("GIT_CONFIG_COUNT"), Some(OsStr::new("2")));
        assert_eq!(get("GIT_CONFIG_KEY_0"), Some(OsStr::new("commit.gpgsign")));
        assert_eq!(
            get("GIT_CONFIG_KEY_1"),
            Some(OsStr::new("filter.a=b.clean"))
        );
        assert_eq!(get("GIT_CONFIG_VALUE_1"), Some(OsStr::new("")));
        let args: Vec<String> = command
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert!(args.contains(&format!("core.hooksPath={NO_HOOKS}")));
        assert!(args.contains(&"core.fsmonitor=false".to_string()));
        let hooks = build(Path::new("."), &[], &[], &[], Policy::CommitHooks);
        let args: Vec<String> = hooks
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert!(!args.iter().any(|a| a.starts_with("core.hooksPath")));
        assert!(args.contains(&"core.fsmonitor=false".to_string()));
    }
}

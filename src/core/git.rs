//! Git facts through the `git` command line (no git library): where a project's
//! repository is, when each memory file was last committed and how many commits landed
//! since, which files git tracks or has uncommitted changes in, and a file's committed
//! text (for the append-only check on decision logs).
//!
//! Every call is bounded: stdin is closed, prompts and optional locks are off, paths are
//! read from `-z` output without quoting, and a command that runs past its time limit is
//! killed. Git missing, a folder outside any repository, or an empty repository give
//! `None` or empty answers, never a panic.
use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use super::error::{CoreError, Result};

/// Longest a single git command may run before it is killed.
const TIME_LIMIT: Duration = Duration::from_secs(30);
/// Above this many files, `history` asks git about their folders instead (argument
/// lists stay short) and filters the answer.
const MAX_PATHSPECS: usize = 200;
/// Committed text larger than this is not fetched for comparisons.
const MAX_BLOB_BYTES: usize = 8 * 1024 * 1024;

/// Environment variables a git hook sets that would point every command at the hook's
/// repository instead of the folder we ask about.
const HOOK_VARIABLES: [&str; 6] = [
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_PREFIX",
    "GIT_COMMON_DIR",
    "GIT_OBJECT_DIRECTORY",
];

/// What a finished git command left behind.
pub(crate) struct Output {
    pub(crate) success: bool,
    pub(crate) stdout: Vec<u8>,
    pub(crate) stderr: String,
}

fn read_all(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut buffer = Vec::new();
        let _ = pipe.read_to_end(&mut buffer);
        buffer
    })
}

/// Runs `git -C dir <args>` with a time limit. Errors only when git cannot be started
/// or overruns; a non-zero exit is reported in `Output::success`.
fn run(dir: &Path, args: &[OsString]) -> Result<Output> {
    run_with(dir, args, &[], None)
}

/// [`run`] with extra environment variables (set after the hook variables are removed,
/// so `GIT_INDEX_FILE` may be given on purpose) and optional bytes on stdin.
pub(crate) fn run_with(
    dir: &Path,
    args: &[OsString],
    env: &[(OsString, OsString)],
    stdin: Option<&[u8]>,
) -> Result<Output> {
    let mut command = Command::new("git");
    command
        .arg("-C")
        .arg(dir)
        .args(["-c", "core.quotepath=off", "-c", "log.showSignature=false"])
        .args(args)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_PAGER", "cat")
        // Names are names: `*` or `[` in a file name is not a glob.
        .env("GIT_LITERAL_PATHSPECS", "1")
        .env("LC_ALL", "C")
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for variable in HOOK_VARIABLES {
        command.env_remove(variable);
    }
    for (key, value) in env {
        command.env(key, value);
    }
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
    // Drain both pipes on their own threads so a large answer cannot block git.
    let stdout = child.stdout.take().map(read_all);
    let stderr = child.stderr.take().map(read_all);
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() > TIME_LIMIT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(CoreError::Git(format!(
                    "git {} took longer than {}s in {}; stopped",
                    args.first()
                        .map(|a| a.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                    TIME_LIMIT.as_secs(),
                    dir.display()
                )));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(e) => return Err(CoreError::Git(format!("waiting for git: {e}"))),
        }
    };
    if let Some(feeder) = feeder {
        let _ = feeder.join();
    }
    let collect = |handle: Option<std::thread::JoinHandle<Vec<u8>>>| {
        handle.and_then(|h| h.join().ok()).unwrap_or_default()
    };
    Ok(Output {
        success: status.success(),
        stdout: collect(stdout),
        stderr: String::from_utf8_lossy(&collect(stderr)).trim().to_string(),
    })
}

pub(crate) fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

#[cfg(unix)]
fn path_from_bytes(bytes: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
}

#[cfg(not(unix))]
fn path_from_bytes(bytes: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
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

/// When one file last changed in git.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileCommit {
    /// Committer time of the newest commit touching the file.
    pub time: SystemTime,
    /// Commits in the repository's history (from HEAD) newer than that one.
    pub commits_since: u32,
}

/// The answer of `GitRepo::history`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileHistory {
    /// Time of the newest commit in the repository (HEAD's history); `None` when empty.
    pub latest_commit: Option<SystemTime>,
    /// Commits in HEAD's history.
    pub commits: u32,
    /// Keyed by the paths given to `history`; files never committed are absent.
    pub files: HashMap<PathBuf, FileCommit>,
}

impl FileHistory {
    pub fn of(&self, path: &Path) -> Option<FileCommit> {
        self.files.get(path).copied()
    }
}

/// A repository as seen from one folder inside it (usually a project folder). Paths given
/// to and returned by its methods are spelled like that folder (`base`), so they match
/// the paths discovery produced even when the folder is reached through a symlink.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitRepo {
    root: PathBuf,
    base: PathBuf,
    /// `base` relative to the repository root, `/`-separated, with a trailing `/`.
    prefix: String,
}

impl GitRepo {
    /// The repository containing `path`; `None` when git is missing, `path` is not in a
    /// repository, or git refuses it (e.g. an unsafe owner).
    pub fn discover(path: &Path) -> Option<GitRepo> {
        let out = run(
            path,
            &os(&["rev-parse", "--show-toplevel", "--show-prefix"]),
        )
        .ok()?;
        if !out.success {
            return None;
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let mut lines = text.lines();
        let root = PathBuf::from(lines.next()?.trim_end());
        if root.as_os_str().is_empty() {
            return None; // a bare repository has no work tree
        }
        let prefix = lines.next().unwrap_or("").to_string();
        Some(GitRepo {
            root,
            base: path.to_path_buf(),
            prefix,
        })
    }

    /// The repository's top folder, as git spells it.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The folder the repository was discovered from.
    pub fn base(&self) -> &Path {
        &self.base
    }

    /// A path under `base`, relative to `base`; `None` for paths elsewhere.
    fn relative<'p>(&self, path: &'p Path) -> Option<&'p Path> {
        path.strip_prefix(&self.base)
            .ok()
            .filter(|rel| !rel.as_os_str().is_empty())
    }

    /// Whether HEAD exists (false in a repository with no commits yet).
    pub fn has_commits(&self) -> bool {
        run(&self.base, &os(&["rev-parse", "-q", "--verify", "HEAD"])).is_ok_and(|o| o.success)
    }

    /// For every file in `files` (paths under `base`): when it was last committed and how
    /// many commits followed, plus the repository's newest commit — from one `git log`
    /// that lists every commit of HEAD's history with only these files' names.
    pub fn history(&self, files: &[&Path]) -> Result<FileHistory> {
        // Root-relative name (as git log prints it) → the caller's path.
        let mut wanted: HashMap<PathBuf, PathBuf> = HashMap::new();
        let mut specs: Vec<OsString> = Vec::new();
        for file in files {
            let Some(rel) = self.relative(file) else {
                continue;
            };
            let mut rooted = OsString::from(&self.prefix);
            rooted.push(git_path(rel));
            wanted.insert(PathBuf::from(rooted), file.to_path_buf());
            specs.push(git_path(rel));
        }
        if specs.len() > MAX_PATHSPECS {
            let mut folders: Vec<OsString> = files
                .iter()
                .filter_map(|f| self.relative(f))
                .map(|rel| match rel.parent() {
                    Some(parent) if !parent.as_os_str().is_empty() => git_path(parent),
                    _ => OsString::from("."),
                })
                .collect();
            folders.sort();
            folders.dedup();
            specs = folders;
        }
        // `--full-history --sparse` keeps every commit in the walk (so positions count
        // all commits), while the pathspec limits the names printed to memory files.
        let mut args = os(&[
            "log",
            "--full-history",
            "--sparse",
            "--no-renames",
            "--no-color",
            "--format=%x00%x01%ct",
            "--name-only",
            "-z",
            "HEAD",
            "--",
        ]);
        if specs.is_empty() {
            // Still walk every commit for the totals, printing no names.
            args.push(OsString::from(".git/mbank-no-such-file"));
        } else {
            args.extend(specs);
        }
        let out = run(&self.base, &args)?;
        if !out.success {
            if !self.has_commits() {
                return Ok(FileHistory::default());
            }
            return Err(CoreError::Git(format!(
                "git log failed in {}: {}",
                self.base.display(),
                out.stderr
            )));
        }
        let mut history = FileHistory::default();
        let mut current: Option<(u32, SystemTime)> = None;
        let mut count: u32 = 0;
        for token in out.stdout.split(|b| *b == 0) {
            let start = token.iter().take_while(|b| **b == b'\n').count();
            let token = &token[start..];
            if token.is_empty() {
                continue;
            }
            if let Some(stamp) = token.strip_prefix(&[1u8]) {
                let seconds: u64 = std::str::from_utf8(stamp)
                    .ok()
                    .and_then(|s| s.trim().parse().ok())
                    .unwrap_or(0);
                let time = SystemTime::UNIX_EPOCH + Duration::from_secs(seconds);
                current = Some((count, time));
                count = count.saturating_add(1);
                history.latest_commit = Some(history.latest_commit.map_or(time, |t| t.max(time)));
                continue;
            }
            let Some((index, time)) = current else {
                continue;
            };
            let name = path_from_bytes(token);
            if let Some(path) = wanted.get(&name)
                && !history.files.contains_key(path)
            {
                history.files.insert(
                    path.clone(),
                    FileCommit {
                        time,
                        commits_since: index,
                    },
                );
            }
        }
        history.commits = count;
        Ok(history)
    }

    /// Files under `base` that git tracks (in the index), spelled as `base.join(..)`.
    pub fn tracked(&self) -> Result<HashSet<PathBuf>> {
        let out = run(&self.base, &os(&["ls-files", "-z", "--full-name"]))?;
        if !out.success {
            return Err(CoreError::Git(format!(
                "git ls-files failed in {}: {}",
                self.base.display(),
                out.stderr
            )));
        }
        Ok(out
            .stdout
            .split(|b| *b == 0)
            .filter(|t| !t.is_empty())
            .filter_map(|name| self.under_base(name))
            .collect())
    }

    /// `file` (a path under `base`) as the index names it: relative to the repository
    /// root, `/`-separated.
    pub fn root_relative(&self, file: &Path) -> Option<OsString> {
        let rel = self.relative(file)?;
        let mut rooted = OsString::from(&self.prefix);
        rooted.push(git_path(rel));
        Some(rooted)
    }

    /// `base` as a pathspec relative to the repository root (`.` at the root).
    pub fn root_relative_base(&self) -> OsString {
        if self.prefix.is_empty() {
            OsString::from(".")
        } else {
            OsString::from(&self.prefix)
        }
    }

    /// A root-relative name from git, as a path under `base`; `None` outside `base`.
    pub(crate) fn under_base(&self, name: &[u8]) -> Option<PathBuf> {
        let rest = name.strip_prefix(self.prefix.as_bytes())?;
        Some(self.base.join(path_from_bytes(rest)))
    }

    /// Tracked files under `base` whose content differs from HEAD (staged or not).
    /// Untracked files are not listed: they have no commit to compare with.
    pub fn changed(&self) -> Result<HashSet<PathBuf>> {
        let out = run(
            &self.base,
            &os(&[
                "status",
                "--porcelain=v1",
                "-z",
                "--untracked-files=no",
                "--ignore-submodules",
                "--",
                ".",
            ]),
        )?;
        if !out.success {
            return Err(CoreError::Git(format!(
                "git status failed in {}: {}",
                self.base.display(),
                out.stderr
            )));
        }
        let mut changed = HashSet::new();
        let mut tokens = out.stdout.split(|b| *b == 0);
        while let Some(entry) = tokens.next() {
            if entry.len() < 4 {
                continue;
            }
            let (code, name) = entry.split_at(3);
            if let Some(path) = self.under_base(name) {
                changed.insert(path);
            }
            // Renames and copies carry their original name as the next token.
            if code.first().is_some_and(|c| matches!(c, b'R' | b'C')) {
                tokens.next();
            }
        }
        Ok(changed)
    }

    /// The text of `file` (a path under `base`) in the HEAD commit; `None` when the file
    /// is not in HEAD, the repository has no commits, or the committed blob is not
    /// readable text.
    pub fn head_content(&self, file: &Path) -> Result<Option<String>> {
        let Some(rel) = self.relative(file) else {
            return Ok(None);
        };
        let mut spec = OsString::from("HEAD:");
        spec.push(&self.prefix);
        spec.push(git_path(rel));
        let out = run(
            &self.base,
            &[OsString::from("cat-file"), "blob".into(), spec],
        )?;
        if !out.success || out.stdout.len() > MAX_BLOB_BYTES || out.stdout.contains(&0) {
            return Ok(None);
        }
        Ok(String::from_utf8(out.stdout).ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_paths_use_forward_slashes() {
        assert_eq!(
            git_path(Path::new("a/b c/ä.md")),
            OsString::from("a/b c/ä.md")
        );
    }

    #[test]
    fn a_folder_outside_any_repository_has_no_repo() {
        let dir = tempfile::tempdir().unwrap();
        // GIT_CEILING_DIRECTORIES cannot be set per call here, so only assert no panic
        // when the temp folder happens to be inside a repository.
        if let Some(repo) = GitRepo::discover(dir.path()) {
            assert!(dir.path().starts_with(repo.root()) || repo.root().exists());
        }
        assert!(GitRepo::discover(&dir.path().join("missing")).is_none());
    }
}

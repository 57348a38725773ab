//! Git facts through the `git` command line (no git library): where a project's
//! repository is, when each memory file was last committed and how many commits landed
//! since, which files git tracks or has uncommitted changes in, and a file's committed
//! text (for the append-only check on decision logs).
//!
//! **Nothing the repository configures runs.** Every git command mbank starts is built
//! by [`GitRepo::command`] (or, before a repository is known, by the same builder without
//! its per-repository part), which switches off everything a repository's config could
//! make git execute: `core.fsmonitor`, hooks (`core.hooksPath` points at a file, so no
//! hook exists), the pager, `diff.external`, credential helpers, askpass, the ssh
//! command, every transport (`protocol.allow=never`, so a partial clone's lazy fetch
//! cannot start one), signing programs, editors, automatic gc. Filter, diff and merge
//! drivers cannot be switched off by one key: the drivers the configuration defines are
//! listed once per repository (`git config --get-regexp` executes nothing) and each of
//! their commands is overridden with an empty one. On top of that mbank avoids the
//! commands that would run them: whether a file changed since HEAD is decided by hashing
//! the work-tree bytes as they are (`hash-object --no-filters`) and comparing blob ids
//! from `ls-files -s` and `ls-tree`, never by `git status` or `git diff`. The only
//! exception is a review commit with `[review] run_git_hooks = true`, which runs the
//! user's hooks and signing as a plain `git commit` would ([`Policy::CommitHooks`]).
//!
//! Every call is bounded: stdin is closed, prompts and optional locks are off, paths are
//! read from `-z` output without quoting, and a command that runs past its time limit is
//! killed.
//!
//! **Finding repositories.** [`RepoFinder`] looks for a `.git` entry in a folder and its
//! ancestors before asking git anything, so a folder outside any repository costs a few
//! `stat`s and no process; where there is a `.git`, git is asked once per repository.
//! A folder outside any repository is `Ok(None)`; a repository git refuses (an unsafe
//! owner, a broken config) or cannot be run on is an error, never "no repository".
use std::collections::{HashMap, HashSet};
use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use serde::Serialize;

use super::error::{CoreError, Result};

/// Longest a single git command may run before it is killed.
const TIME_LIMIT: Duration = Duration::from_secs(30);
/// Above this many files, commands ask git about their folders instead (argument
/// lists stay short) and filter the answer.
const MAX_PATHSPECS: usize = 200;
/// Most folder pathspecs one command gets (see `specs_for`).
const MAX_FOLDER_SPECS: usize = 1000;
/// Committed text larger than this is not fetched for comparisons.
const MAX_BLOB_BYTES: usize = 8 * 1024 * 1024;
/// Work-tree files larger than this are not hashed: they count as changed.
const MAX_HASHED_BYTES: u64 = 64 * 1024 * 1024;

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

/// Environment variables naming programs git would run.
const PROGRAM_VARIABLES: [&str; 6] = [
    "GIT_EXTERNAL_DIFF",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "GIT_PROXY_COMMAND",
];

/// Where hooks are looked up: a file, so no hook can exist below it.
#[cfg(unix)]
const NO_HOOKS: &str = "/dev/null";
#[cfg(not(unix))]
const NO_HOOKS: &str = "NUL";

/// `-c` settings every command gets (the command line wins over any config file).
const ALWAYS: [(&str, &str); 16] = [
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
const NO_HOOKS_OR_SIGNING: [(&str, &str); 5] = [
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

fn read_all(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut buffer = Vec::new();
        let _ = pipe.read_to_end(&mut buffer);
        buffer
    })
}

/// The `GIT_CONFIG_COUNT` entries already in `env` (or else in mbank's own
/// environment), so overrides are added after them instead of replacing them.
fn inherited_config_entries(env: &[(OsString, OsString)]) -> Vec<(OsString, OsString)> {
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
fn build(
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
fn execute(mut command: Command, stdin: Option<&[u8]>, what: &str, dir: &Path) -> Result<Output> {
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
                    "git {what} took longer than {}s in {}; stopped",
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
        code: status.code(),
        stdout: collect(stdout),
        stderr: String::from_utf8_lossy(&collect(stderr)).trim().to_string(),
    })
}

fn first_arg(args: &[OsString]) -> String {
    args.first()
        .map(|a| a.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// A hardened command where no repository is known yet (finding one, reading its
/// config): these commands execute nothing a repository configures.
fn run_bare(dir: &Path, args: &[OsString]) -> Result<Output> {
    let command = build(dir, args, &[], &[], Policy::Hardened);
    execute(command, None, &first_arg(args), dir)
}

pub(crate) fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

#[cfg(unix)]
fn path_from_bytes(bytes: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(OsStr::from_bytes(bytes))
}

#[cfg(not(unix))]
fn path_from_bytes(bytes: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(bytes).into_owned())
}

#[cfg(unix)]
fn os_bytes(text: &OsStr) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    text.as_bytes().to_vec()
}

#[cfg(not(unix))]
fn os_bytes(text: &OsStr) -> Vec<u8> {
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

/// What the index holds for some names: stage-0 entries, and the names in a merge
/// conflict (stages 1–3).
#[derive(Debug, Clone, Default)]
pub(crate) struct IndexEntries {
    pub(crate) entries: HashMap<Vec<u8>, IndexEntry>,
    pub(crate) unmerged: HashSet<Vec<u8>>,
}

/// History keyed by root-relative name (see [`GitRepo::history`]).
#[derive(Debug, Clone, Default)]
struct NamedHistory {
    latest: Option<SystemTime>,
    commits: u32,
    files: HashMap<Vec<u8>, FileCommit>,
}

/// One index or tree entry: file mode and blob id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IndexEntry {
    pub mode: String,
    pub sha: String,
}

impl IndexEntry {
    /// A submodule (gitlink) rather than a file.
    fn is_gitlink(&self) -> bool {
        self.mode == "160000"
    }
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

/// What git says about a set of files, gathered in one pass per repository
/// ([`gather_facts`]). Keyed by the paths the caller gave.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    pub history: FileHistory,
    /// Files in the index.
    pub tracked: HashSet<PathBuf>,
    /// Tracked files whose content differs from HEAD (staged or not), or that could not
    /// be compared (unreadable, not a regular file, in a merge conflict).
    pub changed: HashSet<PathBuf>,
    /// Each file's entry in HEAD.
    pub head: HashMap<PathBuf, IndexEntry>,
}

impl Facts {
    /// Committed and unchanged since: git's time is the file's time.
    pub fn is_clean(&self, path: &Path) -> bool {
        self.tracked.contains(path) && !self.changed.contains(path)
    }
}

/// A repository's own driver overrides (see the module comment), shared by every
/// [`GitRepo`] view of it.
type Overrides = Arc<[(OsString, OsString)]>;

/// A repository as seen from one folder inside it (usually a project folder). Paths given
/// to and returned by its methods are spelled like that folder (`base`), so they match
/// the paths discovery produced even when the folder is reached through a symlink.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitRepo {
    root: PathBuf,
    base: PathBuf,
    /// `base` relative to the repository root, `/`-separated, with a trailing `/`.
    prefix: String,
    overrides: Overrides,
}

/// What git answered about one repository (shared by the folders inside it).
#[derive(Debug, Clone)]
struct RepoInfo {
    /// The top folder as git spells it.
    root: PathBuf,
    /// The same, resolved, to place folders inside it.
    canonical_root: PathBuf,
    overrides: Overrides,
}

/// Why a repository could not be used, kept so every folder inside it gets the same.
#[derive(Debug, Clone)]
enum Refusal {
    Refused { path: PathBuf, reason: String },
    Failed(String),
}

impl Refusal {
    fn error(&self) -> CoreError {
        match self {
            Refusal::Refused { path, reason } => CoreError::GitRefused {
                path: path.clone(),
                reason: reason.clone(),
            },
            Refusal::Failed(message) => CoreError::Git(message.clone()),
        }
    }
}

/// Finds the repositories of many folders cheaply: `.git` entries are looked up with
/// `stat` (each folder once), and git is asked once per repository found.
#[derive(Debug, Default)]
pub struct RepoFinder {
    /// Resolved folder → the nearest folder at or above it holding a `.git` entry.
    markers: HashMap<PathBuf, Option<PathBuf>>,
    /// Folder holding a `.git` entry → git's answer there.
    repos: HashMap<PathBuf, std::result::Result<Option<RepoInfo>, Refusal>>,
}

impl RepoFinder {
    pub fn new() -> RepoFinder {
        RepoFinder::default()
    }

    /// The nearest folder at or above `dir` (resolved) with a `.git` entry.
    fn marker(&mut self, dir: &Path) -> Option<PathBuf> {
        nearest_marker(&mut self.markers, dir, |folder| {
            std::fs::symlink_metadata(folder.join(".git")).is_ok()
        })
    }

    /// Asks git about the repository whose `.git` entry is in `marker`.
    fn ask(marker: &Path) -> std::result::Result<Option<RepoInfo>, Refusal> {
        let out = run_bare(marker, &os(&["rev-parse", "--show-toplevel"]))
            .map_err(|e| Refusal::Failed(e.to_string()))?;
        if !out.success {
            let reason = out.stderr;
            // git skips a `.git` that is no repository and found none above it either;
            // a repository without a work tree has no memory files in it.
            if reason.contains("not a git repository (or any")
                || reason.contains("must be run in a work tree")
            {
                return Ok(None);
            }
            return Err(Refusal::Refused {
                path: marker.to_path_buf(),
                reason: if reason.is_empty() {
                    format!("git rev-parse exited with {:?}", out.code)
                } else {
                    reason
                },
            });
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let root = PathBuf::from(text.lines().next().unwrap_or("").trim_end());
        if root.as_os_str().is_empty() {
            return Ok(None);
        }
        let canonical_root = std::fs::canonicalize(&root).unwrap_or_else(|_| root.clone());
        let overrides = driver_overrides(&root).map_err(|e| match e {
            CoreError::GitRefused { path, reason } => Refusal::Refused { path, reason },
            other => Refusal::Failed(other.to_string()),
        })?;
        Ok(Some(RepoInfo {
            root,
            canonical_root,
            overrides,
        }))
    }

    /// The repository containing `folder`: `Ok(None)` when there is none (or `folder`
    /// does not exist), an error when git refuses the repository or cannot be run.
    pub fn find(&mut self, folder: &Path) -> Result<Option<GitRepo>> {
        let canonical = match std::fs::canonicalize(folder) {
            Ok(path) => path,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(CoreError::io(folder, e)),
        };
        let Some(marker) = self.marker(&canonical) else {
            return Ok(None);
        };
        let answer = self
            .repos
            .entry(marker.clone())
            .or_insert_with(|| Self::ask(&marker))
            .clone();
        let info = match answer {
            Ok(Some(info)) => info,
            Ok(None) => return Ok(None),
            Err(refusal) => return Err(refusal.error()),
        };
        let prefix = match canonical.strip_prefix(&info.canonical_root) {
            Ok(rel) if rel.as_os_str().is_empty() => String::new(),
            Ok(rel) => format!("{}/", git_path(rel).to_string_lossy()),
            // Not inside the top folder git named: let git place the folder itself.
            Err(_) => return GitRepo::ask_prefix(folder, info),
        };
        Ok(Some(GitRepo {
            root: info.root,
            base: folder.to_path_buf(),
            prefix,
            overrides: info.overrides,
        }))
    }
}

/// The nearest folder at or above `dir` for which `has_git` holds (a `.git` entry in it),
/// every folder walked remembered in `markers` with the answer, so projects that share
/// parents look each parent up once.
pub(crate) fn nearest_marker(
    markers: &mut HashMap<PathBuf, Option<PathBuf>>,
    dir: &Path,
    mut has_git: impl FnMut(&Path) -> bool,
) -> Option<PathBuf> {
    let mut walked = Vec::new();
    let mut found = None;
    let mut current = Some(dir);
    while let Some(folder) = current {
        if let Some(known) = markers.get(folder) {
            found = known.clone();
            break;
        }
        walked.push(folder.to_path_buf());
        if has_git(folder) {
            found = Some(folder.to_path_buf());
            break;
        }
        current = folder.parent();
    }
    for folder in walked {
        markers.insert(folder, found.clone());
    }
    found
}

/// `git config --get-regexp` of the sections that name programs per driver, turned into
/// overrides that empty each command (see the module comment).
fn driver_overrides(root: &Path) -> Result<Overrides> {
    let out = run_bare(
        root,
        &os(&[
            "config",
            "-z",
            "--get-regexp",
            r"^(filter|diff|merge|protocol|credential|remote)\.",
        ]),
    )?;
    // 1: no such key, which is the usual answer.
    if !out.success && out.code != Some(1) {
        return Err(CoreError::GitRefused {
            path: root.to_path_buf(),
            reason: out.stderr,
        });
    }
    let mut overrides: Vec<(OsString, OsString)> = Vec::new();
    for record in out.stdout.split(|b| *b == 0).filter(|r| !r.is_empty()) {
        let key_bytes = record.split(|b| *b == b'\n').next().unwrap_or(record);
        let key = path_from_bytes(key_bytes).into_os_string();
        let text = String::from_utf8_lossy(key_bytes);
        let (Some(first), Some(last)) = (text.find('.'), text.rfind('.')) else {
            continue;
        };
        if first == last {
            continue; // no subsection: covered by the fixed settings
        }
        let section = text[..first].to_ascii_lowercase();
        let variable = text[last + 1..].to_ascii_lowercase();
        let value = match (section.as_str(), variable.as_str()) {
            ("filter", "clean" | "smudge" | "process") => "",
            ("diff", "textconv" | "command") => "",
            ("merge", "driver") => "",
            ("credential", "helper") => "",
            ("protocol", "allow") => "never",
            ("remote", "uploadpack") => "git-upload-pack",
            ("remote", "receivepack") => "git-receive-pack",
            _ => continue,
        };
        if section == "filter" {
            // An emptied driver marked required would fail every command.
            let mut required = OsString::from(&text[..last]);
            required.push(".required");
            overrides.push((required, OsString::from("false")));
        }
        overrides.push((key, OsString::from(value)));
    }
    overrides.sort();
    overrides.dedup();
    Ok(overrides.into())
}

impl GitRepo {
    /// The repository containing `path`: `Ok(None)` when `path` is in no repository,
    /// an error when git refuses the repository (e.g. "detected dubious ownership") or
    /// cannot be run. Use a [`RepoFinder`] for many folders.
    pub fn find(path: &Path) -> Result<Option<GitRepo>> {
        RepoFinder::new().find(path)
    }

    /// [`GitRepo::find`] without the difference between "no repository" and "a
    /// repository git refuses": both are `None`. Only for callers to whom that
    /// difference cannot matter (a check that must not pass on a refusal uses `find`).
    pub fn discover(path: &Path) -> Option<GitRepo> {
        Self::find(path).ok().flatten()
    }

    /// Asks git where `folder` sits in its repository (when paths cannot tell).
    fn ask_prefix(folder: &Path, info: RepoInfo) -> Result<Option<GitRepo>> {
        let command = build(
            folder,
            &os(&["rev-parse", "--show-prefix"]),
            &info.overrides,
            &[],
            Policy::Hardened,
        );
        let out = execute(command, None, "rev-parse", folder)?;
        if !out.success {
            return Err(CoreError::GitRefused {
                path: folder.to_path_buf(),
                reason: out.stderr,
            });
        }
        let prefix = String::from_utf8_lossy(&out.stdout).trim_end().to_string();
        Ok(Some(GitRepo {
            root: info.root,
            base: folder.to_path_buf(),
            prefix,
            overrides: info.overrides,
        }))
    }

    /// The repository's top folder, as git spells it.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The folder the repository was discovered from.
    pub fn base(&self) -> &Path {
        &self.base
    }

    /// Builds a git command run in `dir` (the root or `base`) for this repository:
    /// every setting of the module comment plus this repository's driver overrides.
    fn command(
        &self,
        dir: &Path,
        args: &[OsString],
        env: &[(OsString, OsString)],
        policy: Policy,
    ) -> Command {
        build(dir, args, &self.overrides, env, policy)
    }

    /// Runs git at the repository root with extra environment and optional stdin.
    pub(crate) fn run_at_root(
        &self,
        args: &[OsString],
        env: &[(OsString, OsString)],
        stdin: Option<&[u8]>,
        policy: Policy,
    ) -> Result<Output> {
        let command = self.command(&self.root, args, env, policy);
        execute(command, stdin, &first_arg(args), &self.root)
    }

    /// Runs git in `base`.
    fn run(&self, args: &[OsString]) -> Result<Output> {
        let command = self.command(&self.base, args, &[], Policy::Hardened);
        execute(command, None, &first_arg(args), &self.base)
    }

    /// Runs git at the root, hardened, with no extra environment.
    fn run_root(&self, args: &[OsString]) -> Result<Output> {
        self.run_at_root(args, &[], None, Policy::Hardened)
    }

    /// A path under `base`, relative to `base`; `None` for paths elsewhere.
    fn relative<'p>(&self, path: &'p Path) -> Option<&'p Path> {
        path.strip_prefix(&self.base)
            .ok()
            .filter(|rel| !rel.as_os_str().is_empty())
    }

    /// Whether HEAD exists (false in a repository with no commits yet).
    pub fn has_commits(&self) -> bool {
        self.run(&os(&["rev-parse", "-q", "--verify", "HEAD"]))
            .is_ok_and(|o| o.success)
    }

    /// For every file in `files` (paths under `base`): when it was last committed and how
    /// many commits followed, plus the repository's newest commit — from one `git log`
    /// that lists every commit of HEAD's history with only these files' names.
    pub fn history(&self, files: &[&Path]) -> Result<FileHistory> {
        let named = self.named(files);
        let names: Vec<&[u8]> = named.iter().map(|(name, _)| name.as_slice()).collect();
        let history = history_by_name(self, &names)?;
        Ok(spread_history(&history, &named))
    }

    /// `files` under `base` with their root-relative names.
    fn named<'f>(&self, files: &[&'f Path]) -> Vec<(Vec<u8>, &'f Path)> {
        files
            .iter()
            .filter_map(|file| {
                self.root_relative(file)
                    .map(|name| (os_bytes(&name), *file))
            })
            .collect()
    }

    /// Files under `base` that git tracks (in the index), spelled as `base.join(..)`.
    pub fn tracked(&self) -> Result<HashSet<PathBuf>> {
        let out = self.run(&os(&["ls-files", "-z", "--full-name"]))?;
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

    /// Index entries at or under `specs` (root-relative), by name.
    pub(crate) fn index_entries(&self, specs: &[OsString]) -> Result<IndexEntries> {
        let mut args = os(&["ls-files", "-s", "-z", "--full-name", "--"]);
        args.extend(specs.iter().cloned());
        let out = self.run_root(&args)?;
        if !out.success {
            return Err(CoreError::Git(format!(
                "git ls-files failed in {}: {}",
                self.root.display(),
                out.stderr
            )));
        }
        let mut entries = HashMap::new();
        let mut unmerged = HashSet::new();
        for record in out.stdout.split(|b| *b == 0).filter(|r| !r.is_empty()) {
            let Some((head, name)) = split_entry(record) else {
                continue;
            };
            // `<mode> <sha> <stage>`
            let fields: Vec<&str> = head.split(' ').collect();
            match fields.as_slice() {
                [mode, sha, "0"] => {
                    entries.insert(
                        name.to_vec(),
                        IndexEntry {
                            mode: mode.to_string(),
                            sha: sha.to_string(),
                        },
                    );
                }
                [_, _, _] => {
                    unmerged.insert(name.to_vec());
                }
                _ => {}
            }
        }
        Ok(IndexEntries { entries, unmerged })
    }

    /// HEAD's entries (files and links, recursively) at or under `specs`, by name;
    /// empty when there is no HEAD yet.
    pub(crate) fn head_entries(&self, specs: &[OsString]) -> Result<HashMap<Vec<u8>, IndexEntry>> {
        let mut args = os(&["ls-tree", "-r", "-z", "--full-tree", "HEAD", "--"]);
        args.extend(specs.iter().cloned());
        let out = self.run_root(&args)?;
        if !out.success {
            if !self.has_commits() {
                return Ok(HashMap::new());
            }
            return Err(CoreError::Git(format!(
                "git ls-tree failed in {}: {}",
                self.root.display(),
                out.stderr
            )));
        }
        let mut entries = HashMap::new();
        for record in out.stdout.split(|b| *b == 0).filter(|r| !r.is_empty()) {
            let Some((head, name)) = split_entry(record) else {
                continue;
            };
            // `<mode> <type> <sha>`
            let fields: Vec<&str> = head.split(' ').collect();
            if let [mode, "blob", sha] = fields.as_slice() {
                entries.insert(
                    name.to_vec(),
                    IndexEntry {
                        mode: mode.to_string(),
                        sha: sha.to_string(),
                    },
                );
            }
        }
        Ok(entries)
    }

    /// Blob ids of work-tree files as they are on disk (no filter, no conversion),
    /// `None` for a file that is missing, not a regular file or a link, too large or
    /// unreadable. One `hash-object` for all of them (one per file only if that fails).
    pub(crate) fn worktree_blobs(&self, files: &[&Path]) -> Vec<Option<String>> {
        let mut out: Vec<Option<String>> = vec![None; files.len()];
        // git runs in the root: relative paths must not be read from there.
        let absolute: Vec<PathBuf> = files
            .iter()
            .map(|f| std::path::absolute(f).unwrap_or_else(|_| f.to_path_buf()))
            .collect();
        let mut listed: Vec<usize> = Vec::new();
        for (i, path) in absolute.iter().enumerate() {
            let Ok(meta) = std::fs::symlink_metadata(path) else {
                continue;
            };
            if meta.file_type().is_symlink() {
                // Git stores a link as a blob of its target's name.
                out[i] = std::fs::read_link(path)
                    .ok()
                    .and_then(|target| self.hash_bytes(&os_bytes(target.as_os_str())));
            } else if meta.is_file() && meta.len() <= MAX_HASHED_BYTES {
                listed.push(i);
            }
        }
        // `--stdin-paths` reads one path per line and unquotes a leading `"`: other
        // names go one at a time.
        let (lined, odd): (Vec<usize>, Vec<usize>) = listed.into_iter().partition(|&i| {
            let bytes = os_bytes(absolute[i].as_os_str());
            !bytes.contains(&b'\n') && !bytes.starts_with(b"\"")
        });
        let batch = self.hash_paths(&lined.iter().map(|&i| &absolute[i]).collect::<Vec<_>>());
        let singles = match batch {
            Some(ids) => {
                for (&i, id) in lined.iter().zip(ids) {
                    out[i] = Some(id);
                }
                odd
            }
            // One file vanished or is unreadable: hash one at a time.
            None => lined.into_iter().chain(odd).collect(),
        };
        for i in singles {
            out[i] = self.hash_file(&absolute[i]);
        }
        out
    }

    /// `git hash-object --no-filters --stdin-paths`: one id per path, `None` on failure.
    fn hash_paths(&self, paths: &[&PathBuf]) -> Option<Vec<String>> {
        if paths.is_empty() {
            return Some(Vec::new());
        }
        let mut input = Vec::new();
        for path in paths {
            input.extend(os_bytes(path.as_os_str()));
            input.push(b'\n');
        }
        let out = self
            .run_at_root(
                &os(&["hash-object", "--no-filters", "--stdin-paths"]),
                &[],
                Some(&input),
                Policy::Hardened,
            )
            .ok()
            .filter(|o| o.success)?;
        let ids: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| l.trim().to_string())
            .collect();
        (ids.len() == paths.len()).then_some(ids)
    }

    /// `git hash-object --no-filters -- path`.
    fn hash_file(&self, path: &Path) -> Option<String> {
        let mut args = os(&["hash-object", "--no-filters", "--"]);
        args.push(path.as_os_str().to_owned());
        let out = self.run_root(&args).ok().filter(|o| o.success)?;
        Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
    }

    /// The blob id of `bytes`.
    fn hash_bytes(&self, bytes: &[u8]) -> Option<String> {
        let out = self
            .run_at_root(
                &os(&["hash-object", "--no-filters", "--stdin"]),
                &[],
                Some(bytes),
                Policy::Hardened,
            )
            .ok()
            .filter(|o| o.success)?;
        Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
    }

    /// The text of a blob, `None` when it is too large or not text; an error when git
    /// cannot produce it (a blob the repository should hold and does not).
    pub fn blob_text(&self, entry: &IndexEntry) -> Result<Option<String>> {
        let out = self.run_root(&os(&["cat-file", "blob", &entry.sha]))?;
        if !out.success {
            return Err(CoreError::Git(format!(
                "git cat-file blob {} failed in {}: {}",
                entry.sha,
                self.root.display(),
                out.stderr
            )));
        }
        if out.stdout.len() > MAX_BLOB_BYTES || out.stdout.contains(&0) {
            return Ok(None);
        }
        Ok(String::from_utf8(out.stdout).ok())
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
        let out = self.run(&[OsString::from("cat-file"), "blob".into(), spec])?;
        if !out.success || out.stdout.len() > MAX_BLOB_BYTES || out.stdout.contains(&0) {
            return Ok(None);
        }
        Ok(String::from_utf8(out.stdout).ok())
    }
}

/// Splits an `ls-files -s` / `ls-tree` record at its tab: the fields, and the name.
fn split_entry(record: &[u8]) -> Option<(&str, &[u8])> {
    let tab = record.iter().position(|b| *b == b'\t')?;
    let head = std::str::from_utf8(&record[..tab]).ok()?;
    Some((head, &record[tab + 1..]))
}

/// Pathspecs for root-relative `names`: the names themselves, or their folders when
/// there are too many for one command line (and those folders' parents, level by level,
/// while they are still too many; the whole repository at worst). Answers are filtered.
fn specs_for(names: &[&[u8]]) -> Vec<OsString> {
    if names.len() <= MAX_PATHSPECS {
        return names
            .iter()
            .map(|n| path_from_bytes(n).into_os_string())
            .collect();
    }
    let parent = |n: &[u8]| -> Vec<u8> {
        n.iter()
            .rposition(|b| *b == b'/')
            .map_or_else(Vec::new, |slash| n[..slash].to_vec())
    };
    let mut folders: Vec<Vec<u8>> = names.iter().map(|n| parent(n)).collect();
    loop {
        folders.sort();
        folders.dedup();
        if folders.iter().any(Vec::is_empty) {
            return vec![OsString::from(".")];
        }
        if folders.len() <= MAX_FOLDER_SPECS {
            return folders
                .iter()
                .map(|f| path_from_bytes(f).into_os_string())
                .collect();
        }
        folders = folders.iter().map(|f| parent(f)).collect();
    }
}

/// History of root-relative `names` (see [`GitRepo::history`]), keyed by name.
fn history_by_name(repo: &GitRepo, names: &[&[u8]]) -> Result<NamedHistory> {
    let wanted: HashSet<&[u8]> = names.iter().copied().collect();
    let specs = specs_for(names);
    // `--full-history --sparse` keeps every commit in the walk (so positions count
    // all commits), while the pathspec limits the names printed to memory files.
    let mut args = os(&[
        "log",
        "--full-history",
        "--sparse",
        "--no-renames",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        "--no-show-signature",
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
    let out = repo.run_root(&args)?;
    if !out.success {
        if !repo.has_commits() {
            return Ok(NamedHistory::default());
        }
        return Err(CoreError::Git(format!(
            "git log failed in {}: {}",
            repo.root.display(),
            out.stderr
        )));
    }
    let mut latest: Option<SystemTime> = None;
    let mut files: HashMap<Vec<u8>, FileCommit> = HashMap::new();
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
            latest = Some(latest.map_or(time, |t| t.max(time)));
            continue;
        }
        let Some((index, time)) = current else {
            continue;
        };
        if wanted.contains(token) && !files.contains_key(token) {
            files.insert(
                token.to_vec(),
                FileCommit {
                    time,
                    commits_since: index,
                },
            );
        }
    }
    Ok(NamedHistory {
        latest,
        commits: count,
        files,
    })
}

fn spread_history(history: &NamedHistory, named: &[(Vec<u8>, &Path)]) -> FileHistory {
    FileHistory {
        latest_commit: history.latest,
        commits: history.commits,
        files: named
            .iter()
            .filter_map(|(name, path)| history.files.get(name).map(|c| (path.to_path_buf(), *c)))
            .collect(),
    }
}

/// Git facts for the files of several folders of one repository (views sharing one
/// root, e.g. the projects of a monorepo), in one pass: one `git log`, one `ls-files`,
/// one `ls-tree`, and `hash-object` over the tracked files, however many folders.
/// The answer has one [`Facts`] per request, keyed by that request's paths.
pub fn gather_facts(requests: &[(&GitRepo, Vec<&Path>)]) -> Result<Vec<Facts>> {
    let Some((repo, _)) = requests.first() else {
        return Ok(Vec::new());
    };
    if requests.iter().any(|(r, _)| r.root != repo.root) {
        return Err(CoreError::Git(
            "facts asked for folders of different repositories at once".into(),
        ));
    }
    let named: Vec<Vec<(Vec<u8>, &Path)>> = requests
        .iter()
        .map(|(view, files)| view.named(files))
        .collect();
    let mut names: Vec<&[u8]> = named
        .iter()
        .flatten()
        .map(|(name, _)| name.as_slice())
        .collect();
    names.sort();
    names.dedup();
    let wanted: HashSet<&[u8]> = names.iter().copied().collect();
    let history = history_by_name(repo, &names)?;
    let specs = specs_for(&names);
    let mut listed = IndexEntries::default();
    let mut head = HashMap::new();
    if !specs.is_empty() {
        listed = repo.index_entries(&specs)?;
        if history.latest.is_some() {
            head = repo.head_entries(&specs)?;
        }
    }
    let IndexEntries {
        entries: mut index,
        unmerged,
    } = listed;
    index.retain(|name, entry| wanted.contains(name.as_slice()) && !entry.is_gitlink());
    head.retain(|name, _| wanted.contains(name.as_slice()));
    // Hash each tracked file once, through the first path that names it.
    let mut to_hash: Vec<(&[u8], &Path)> = Vec::new();
    let mut seen: HashSet<&[u8]> = HashSet::new();
    for (name, path) in named.iter().flatten() {
        if index.contains_key(name) && seen.insert(name.as_slice()) {
            to_hash.push((name.as_slice(), path));
        }
    }
    let paths: Vec<&Path> = to_hash.iter().map(|(_, p)| *p).collect();
    let blobs: HashMap<&[u8], Option<String>> = to_hash
        .iter()
        .map(|(n, _)| *n)
        .zip(repo.worktree_blobs(&paths))
        .collect();
    let changed_names: HashSet<&[u8]> = wanted
        .iter()
        .copied()
        .filter(|name| {
            if unmerged.contains(*name) {
                return true;
            }
            let Some(staged) = index.get(*name) else {
                return false; // untracked: not "changed since HEAD"
            };
            let committed = head.get(*name);
            let worktree = blobs.get(name).cloned().flatten();
            committed != Some(staged) || worktree.as_deref() != Some(staged.sha.as_str())
        })
        .collect();
    Ok(named
        .iter()
        .map(|files| {
            let mut facts = Facts {
                history: spread_history(&history, files),
                ..Facts::default()
            };
            for (name, path) in files {
                let path = path.to_path_buf();
                if index.contains_key(name) || unmerged.contains(name) {
                    facts.tracked.insert(path.clone());
                }
                if changed_names.contains(name.as_slice()) {
                    facts.changed.insert(path.clone());
                }
                if let Some(entry) = head.get(name) {
                    facts.head.insert(path, entry.clone());
                }
            }
            facts
        })
        .collect())
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
        if let Ok(Some(repo)) = GitRepo::find(dir.path()) {
            assert!(dir.path().starts_with(repo.root()) || repo.root().exists());
        }
        assert!(matches!(
            GitRepo::find(&dir.path().join("missing")),
            Ok(None)
        ));
    }

    #[test]
    fn many_names_become_fewer_folders() {
        let names: Vec<Vec<u8>> = (0..300)
            .map(|i| format!("p{i}/memory-bank/n.md").into_bytes())
            .collect();
        let refs: Vec<&[u8]> = names.iter().map(Vec::as_slice).collect();
        let specs = specs_for(&refs);
        assert_eq!(specs.len(), 300);
        assert!(specs.contains(&OsString::from("p7/memory-bank")));
        let many: Vec<Vec<u8>> = (0..1500)
            .map(|i| format!("p{i}/memory-bank/n.md").into_bytes())
            .collect();
        let refs: Vec<&[u8]> = many.iter().map(Vec::as_slice).collect();
        // 1500 folders, 1500 parents: the whole repository.
        assert_eq!(specs_for(&refs), vec![OsString::from(".")]);
        let nested: Vec<Vec<u8>> = (0..1500)
            .map(|i| format!("apps/p{}/m{i}/n.md", i % 10).into_bytes())
            .collect();
        let refs: Vec<&[u8]> = nested.iter().map(Vec::as_slice).collect();
        assert_eq!(specs_for(&refs).len(), 10);
        let top: Vec<Vec<u8>> = (0..250).map(|i| format!("n{i}.md").into_bytes()).collect();
        let refs: Vec<&[u8]> = top.iter().map(Vec::as_slice).collect();
        assert_eq!(specs_for(&refs), vec![OsString::from(".")]);
    }

    #[test]
    fn the_finder_stats_each_folder_once() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        let b = dir.path().join("b");
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        let mut finder = RepoFinder::new();
        let canonical = std::fs::canonicalize(&a).unwrap();
        let first = finder.marker(&canonical);
        let known = finder.markers.len();
        let canonical_b = std::fs::canonicalize(&b).unwrap();
        assert_eq!(finder.marker(&canonical_b), first);
        // Only `b` itself was new: its parents were known from `a`.
        assert_eq!(finder.markers.len(), known + 1);
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

//! Which paths a repository's ignore rules cover, asked of one `git check-ignore --stdin`
//! kept running for every project of the repository in one run, rather than one git
//! process per question. The process answers each path as it reads it (`--verbose
//! --non-matching`: one record per path, ignored or not), so a batch ends with a marker
//! path whose answer says every path before it was answered.
use std::collections::{HashMap, HashSet};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::time::Instant;

use parking_lot::Mutex;

use super::command::{Policy, TIME_LIMIT, build, check_ignore_env, os, path_from_bytes};
use super::types::Overrides;
use crate::error::{CoreError, Result};
use crate::io::reads;

/// The path that closes a batch: no memory names it, and it holds no pathspec magic.
const END_OF_BATCH: &[u8] = b"\x01mbank-end-of-batch\x01";

/// A repository's `git check-ignore`, shared by the clones of the repositories of one
/// run (see [`crate::git::RepoFinder`]); started at the first question, stopped when the
/// last clone goes. Unshared, each question starts and ends its own process.
#[derive(Debug, Clone, Default)]
pub(crate) struct IgnoreRules {
    running: Option<Arc<Mutex<Option<Running>>>>,
}

/// How a repository is spelled and asked is all a repository compares; the process it
/// asks about ignores is not part of it.
impl PartialEq for IgnoreRules {
    fn eq(&self, _: &IgnoreRules) -> bool {
        true
    }
}

impl Eq for IgnoreRules {}

impl IgnoreRules {
    /// Rules asked of one process for as long as a clone of this value lives.
    pub(crate) fn shared() -> IgnoreRules {
        IgnoreRules {
            running: Some(Arc::new(Mutex::new(None))),
        }
    }

    /// Which of `names` (relative to `dir`, `/`-separated) the ignore rules cover, as
    /// `git check-ignore --no-index` run in `dir` with the repository's `overrides` says.
    /// A shared process answers in the folder of its first question (the repository's
    /// top, for every caller); elsewhere a question gets a process of its own. A path git
    /// refuses to judge (one beyond a symbolic link, or outside the work tree) ends its
    /// process: such paths are left out beforehand, and one refused all the same is
    /// passed over, the paths after it asked of a new process.
    pub(crate) fn ignored(
        &self,
        overrides: &Overrides,
        dir: &Path,
        names: &[Vec<u8>],
    ) -> Result<HashSet<Vec<u8>>> {
        let mut links = HashMap::new();
        let judged: Vec<&[u8]> = names
            .iter()
            .map(Vec::as_slice)
            .filter(|name| judged_by_git(dir, name, &mut links))
            .collect();
        self.ignored_passing_over(overrides, dir, &judged)
    }

    /// [`IgnoreRules::ignored`] of `names` as they are: a path git refuses is passed over.
    fn ignored_passing_over(
        &self,
        overrides: &Overrides,
        dir: &Path,
        names: &[&[u8]],
    ) -> Result<HashSet<Vec<u8>>> {
        let mut ignored = HashSet::new();
        let mut rest = names;
        for _ in 0..=MOST_PASSED_OVER {
            if rest.is_empty() {
                break;
            }
            let (answer, answered) = self.ask_batch(overrides, dir, rest)?;
            ignored.extend(answer);
            rest = rest.get(answered + 1..).unwrap_or_default();
        }
        Ok(ignored)
    }

    /// The ignored ones of `names` and how many of them git answered before it stopped.
    fn ask_batch(&self, overrides: &Overrides, dir: &Path, names: &[&[u8]]) -> Result<Answered> {
        if let Some(running) = &self.running {
            let mut running = running.lock();
            if running.as_ref().is_none_or(|process| process.dir == dir) {
                let process = match running.as_mut() {
                    Some(process) => process,
                    None => running.insert(Running::start(overrides, dir)?),
                };
                let (answer, alive) = process.ask(names);
                if !alive && let Some(stopped) = running.take() {
                    stopped.stop();
                }
                return answer;
            }
        }
        let mut process = Running::start(overrides, dir)?;
        let (answer, _) = process.ask(names);
        process.stop();
        answer
    }
}

/// The ignored paths of a batch, and how many of its paths git answered.
type Answered = (HashSet<Vec<u8>>, usize);

/// Paths git refused in one question past which the rest are still asked; past them the
/// rest count as not ignored.
const MOST_PASSED_OVER: usize = 8;

/// Whether git judges `name` (relative to `dir`) at all: not when it climbs out of `dir`
/// or passes through a symbolic link (git stops with "beyond a symbolic link"). Whether
/// each folder on the way is a link is remembered in `links`.
fn judged_by_git(dir: &Path, name: &[u8], links: &mut HashMap<Vec<u8>, bool>) -> bool {
    if name.is_empty() || name.starts_with(b"/") {
        return false;
    }
    let parts: Vec<&[u8]> = name.split(|b| *b == b'/').collect();
    if parts.iter().any(|part| *part == b"..") {
        return false;
    }
    // Every folder on the way, not the path itself (a link is judged as a path).
    let folders = parts.len().saturating_sub(1);
    let mut end = 0;
    for part in &parts[..folders] {
        end += part.len();
        let folder = &name[..end];
        end += 1;
        if part.is_empty() || *part == b"." {
            continue;
        }
        let is_link = *links.entry(folder.to_vec()).or_insert_with(|| {
            std::fs::symlink_metadata(dir.join(path_from_bytes(folder)))
                .is_ok_and(|meta| meta.file_type().is_symlink())
        });
        if is_link {
            return false;
        }
    }
    true
}

/// A running `git check-ignore --stdin` and the fields it has written.
#[derive(Debug)]
struct Running {
    /// Where git runs: the paths it is given are relative to it.
    dir: PathBuf,
    child: Child,
    stdin: Option<ChildStdin>,
    fields: Receiver<Vec<u8>>,
}

impl Running {
    fn start(overrides: &Overrides, dir: &Path) -> Result<Running> {
        let args = os(&[
            "check-ignore",
            "--no-index",
            "--verbose",
            "--non-matching",
            "-z",
            "--stdin",
        ]);
        let mut command = build(dir, &args, overrides, &check_ignore_env(), Policy::Hardened);
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = command
            .spawn()
            .map_err(|e| CoreError::Git(format!("cannot run git: {e}")))?;
        let stdin = child.stdin.take();
        let (sender, fields) = channel();
        if let Some(stdout) = child.stdout.take() {
            // Read on its own thread, always: git never waits for us to take its answers
            // while we are still writing it paths.
            std::thread::spawn(move || split_fields(stdout, sender));
        }
        Ok(Running {
            dir: dir.to_path_buf(),
            child,
            stdin,
            fields,
        })
    }

    /// The ignored ones of `names` with how many of them git answered, and whether the
    /// process can be asked again.
    fn ask(&mut self, names: &[&[u8]]) -> (Result<Answered>, bool) {
        let mut input = Vec::new();
        for name in names {
            input.extend_from_slice(name);
            input.push(0);
        }
        input.extend_from_slice(END_OF_BATCH);
        input.push(0);
        let written = self
            .stdin
            .as_mut()
            .is_some_and(|stdin| stdin.write_all(&input).and_then(|()| stdin.flush()).is_ok());
        let started = Instant::now();
        let mut ignored = HashSet::new();
        let mut answered = 0;
        let mut record: Vec<Vec<u8>> = Vec::with_capacity(4);
        loop {
            let left = TIME_LIMIT.saturating_sub(started.elapsed());
            match self.fields.recv_timeout(left) {
                Ok(field) => record.push(field),
                // git stopped: what it answered before is the answer.
                Err(RecvTimeoutError::Disconnected) => return (Ok((ignored, answered)), false),
                Err(RecvTimeoutError::Timeout) => {
                    return (
                        Err(CoreError::Git(format!(
                            "git check-ignore took longer than {}s; stopped",
                            TIME_LIMIT.as_secs()
                        ))),
                        false,
                    );
                }
            }
            if record.len() < 4 {
                continue;
            }
            let path = record.pop().unwrap_or_default();
            let pattern = record.pop().unwrap_or_default();
            record.clear();
            if path == END_OF_BATCH {
                return (Ok((ignored, answered)), written);
            }
            answered += 1;
            // A negated pattern matching means the path is not ignored.
            if !pattern.is_empty() && !pattern.starts_with(b"!") {
                ignored.insert(path);
            }
        }
    }

    fn stop(mut self) {
        // Closing its input ends git; one that does not end is stopped.
        drop(self.stdin.take());
        let started = Instant::now();
        loop {
            match self.child.try_wait() {
                Ok(Some(_)) | Err(_) => return,
                Ok(None) if started.elapsed() > TIME_LIMIT => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    return;
                }
                Ok(None) => std::thread::sleep(std::time::Duration::from_micros(200)),
            }
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if self.stdin.take().is_some() {
            // Dropped while still open (the last clone went): git holds nothing to save.
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Sends every NUL-terminated field git writes, until it closes its output.
fn split_fields(mut stdout: impl Read, fields: Sender<Vec<u8>>) {
    let mut buffer = [0u8; 8192];
    let mut field = Vec::new();
    loop {
        let read = match stdout.read(&mut buffer) {
            Ok(0) | Err(_) => return,
            Ok(read) => read,
        };
        for &byte in &buffer[..read] {
            if byte == 0 {
                if fields.send(std::mem::take(&mut field)).is_err() {
                    return;
                }
            } else {
                field.push(byte);
            }
        }
    }
}

/// Largest git configuration file read to see whether it can be followed.
const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// Notes, for a result remembered across runs, every file whose change may change which
/// of `names` (relative to the repository's top, `root`) the ignore rules cover: the
/// `.gitignore` of each folder from the top down to each name's, the repository's
/// exclude file, git's configuration files and the user's default excludes file. A
/// configuration that includes other files or names an excludes file of its own, or a
/// repository whose `.git` is not a folder, is not followed: the answer is then not
/// vouched for at all.
pub(crate) fn note_sources(root: &Path, names: &[Vec<u8>]) {
    if !reads::is_recording() {
        return;
    }
    let mut folders: HashSet<PathBuf> = HashSet::new();
    for name in names {
        let mut folder = root.to_path_buf();
        let mut parts = name.split(|b| *b == b'/').peekable();
        while let Some(part) = parts.next() {
            folders.insert(folder.clone());
            if parts.peek().is_none() {
                break;
            }
            folder.push(super::command::path_from_bytes(part));
        }
    }
    for folder in &folders {
        reads::looked_at(&folder.join(".gitignore"));
    }
    let git_dir = root.join(".git");
    if !git_dir.is_dir() {
        reads::unstampable();
        return;
    }
    reads::looked_at(&git_dir.join("info").join("exclude"));
    let env = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
    let (configs, xdg) = config_files(&git_dir, env);
    if let Some(xdg) = &xdg {
        reads::looked_at(&xdg.join("git").join("ignore"));
    }
    for config in &configs {
        reads::looked_at(config);
        if !followable(config) {
            reads::unstampable();
        }
    }
}

/// The configuration files git reads in the repository whose `.git` folder is `git_dir`,
/// with `env` the process's environment, and the user's configuration folder. The null
/// device (`GIT_CONFIG_GLOBAL=/dev/null`, the usual way to keep a user's settings out)
/// holds no configuration, and its times change with every write to it: it is left out.
pub(super) fn config_files(
    git_dir: &Path,
    env: impl Fn(&str) -> Option<std::ffi::OsString>,
) -> (Vec<PathBuf>, Option<PathBuf>) {
    let mut configs = vec![git_dir.join("config"), git_dir.join("config.worktree")];
    let home = env("HOME").map(PathBuf::from);
    let xdg = env("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|home| home.join(".config")));
    match env("GIT_CONFIG_GLOBAL") {
        Some(global) => configs.push(PathBuf::from(global)),
        None => {
            configs.extend(home.as_ref().map(|home| home.join(".gitconfig")));
            configs.extend(xdg.as_ref().map(|xdg| xdg.join("git").join("config")));
        }
    }
    if env("GIT_CONFIG_NOSYSTEM").is_none() {
        match env("GIT_CONFIG_SYSTEM") {
            Some(system) => configs.push(PathBuf::from(system)),
            // Where git installed by the system or by hand keeps it.
            None => {
                configs.extend(["/etc/gitconfig", "/usr/local/etc/gitconfig"].map(PathBuf::from))
            }
        }
    }
    configs.retain(|config| !is_null_device(config));
    (configs, xdg)
}

fn is_null_device(path: &Path) -> bool {
    if cfg!(windows) {
        path.as_os_str().eq_ignore_ascii_case("nul")
    } else {
        path == Path::new("/dev/null")
    }
}

/// Whether the ignore rules a configuration file sets are all in the files noted: it
/// includes no other file and names no excludes file. Absent is followable.
pub(super) fn followable(config: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(config) else {
        return true;
    };
    if !meta.is_file() || meta.len() > MAX_CONFIG_BYTES {
        return false;
    }
    match std::fs::read(config) {
        Ok(bytes) => {
            let text = String::from_utf8_lossy(&bytes).to_ascii_lowercase();
            !text.contains("include") && !text.contains("excludesfile")
        }
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<Vec<u8>> {
        list.iter().map(|n| n.as_bytes().to_vec()).collect()
    }

    fn sorted(set: HashSet<Vec<u8>>) -> Vec<String> {
        let mut out: Vec<String> = set
            .into_iter()
            .map(|n| String::from_utf8(n).unwrap())
            .collect();
        out.sort();
        out
    }

    #[test]
    fn the_null_device_is_no_configuration_file_to_follow() {
        let git_dir = Path::new("/r/.git");
        let vars = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(key, _)| *key == name)
                    .map(|(_, value)| std::ffi::OsString::from(value))
            }
        };
        let (configs, _) = config_files(
            git_dir,
            vars(&[
                ("HOME", "/h"),
                ("GIT_CONFIG_GLOBAL", "/dev/null"),
                ("GIT_CONFIG_SYSTEM", "/dev/null"),
            ]),
        );
        assert_eq!(
            configs,
            [git_dir.join("config"), git_dir.join("config.worktree")]
        );
        let (configs, xdg) = config_files(
            git_dir,
            vars(&[("HOME", "/h"), ("GIT_CONFIG_NOSYSTEM", "1")]),
        );
        assert_eq!(
            configs,
            [
                git_dir.join("config"),
                git_dir.join("config.worktree"),
                PathBuf::from("/h/.gitconfig"),
                PathBuf::from("/h/.config/git/config"),
            ]
        );
        assert_eq!(xdg, Some(PathBuf::from("/h/.config")));
        let (configs, _) = config_files(git_dir, vars(&[("GIT_CONFIG_GLOBAL", "/g")]));
        assert!(configs.contains(&PathBuf::from("/g")));
        assert!(configs.contains(&PathBuf::from("/etc/gitconfig")));
    }

    /// The shared process answers as a fresh `git check-ignore` per question would,
    /// negated patterns included; a path git refuses to judge is passed over, the paths
    /// after it still answered.
    #[test]
    fn one_process_answers_every_question_as_fresh_ones_would() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let init = std::process::Command::new("git")
            .args(["init", "-q"])
            .current_dir(root)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .status();
        if !init.is_ok_and(|s| s.success()) {
            eprintln!("git is not available; skipping");
            return;
        }
        std::fs::write(root.join(".gitignore"), "*.log\n!keep.log\nbuild/\n").unwrap();
        std::fs::create_dir_all(root.join("a")).unwrap();
        std::fs::write(root.join("a/.gitignore"), "local.md\n").unwrap();
        let overrides = Overrides::from([]);
        let shared = IgnoreRules::shared();
        let fresh = IgnoreRules::default();
        let questions = [
            names(&["x.log", "keep.log", "a/local.md", "b/local.md", "src/x.rs"]),
            names(&["build/out/x", "a/b.log", "notes.md"]),
            names(&["y.log", "../outside.log", "z.log"]),
            names(&["q.log", "keep.log"]),
        ];
        let expected = [
            vec!["a/local.md", "x.log"],
            vec!["a/b.log", "build/out/x"],
            vec!["y.log", "z.log"],
            vec!["q.log"],
        ];
        for (question, expected) in questions.iter().zip(expected) {
            let from_shared = shared.ignored(&overrides, root, question).unwrap();
            let from_fresh = fresh.ignored(&overrides, root, question).unwrap();
            assert_eq!(sorted(from_shared.clone()), expected, "{question:?}");
            assert_eq!(from_shared, from_fresh, "{question:?}");
        }
        // Asked as they are, git stops at the path it refuses; the paths after it are
        // still answered, by a new process.
        let refused: [&[u8]; 4] = [b"y.log", b"../outside.log", b"../other.log", b"z.log"];
        for rules in [&shared, &fresh] {
            let answer = rules
                .ignored_passing_over(&overrides, root, &refused)
                .unwrap();
            assert_eq!(sorted(answer), vec!["y.log", "z.log"]);
        }
        // A path through a linked folder is one git refuses: it is not asked at all.
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("a", root.join("linked")).unwrap();
            let question = names(&["linked/x.log", "linked/sub/y.log", "w.log"]);
            let answer = shared.ignored(&overrides, root, &question).unwrap();
            assert_eq!(sorted(answer), vec!["w.log"]);
            let mut links = HashMap::new();
            assert!(!judged_by_git(root, b"linked/x.log", &mut links));
            assert!(
                judged_by_git(root, b"linked", &mut links),
                "the link itself"
            );
            assert!(judged_by_git(root, b"a/local.md", &mut links));
            assert!(!judged_by_git(root, b"a/../x.log", &mut links));
        }
    }
}

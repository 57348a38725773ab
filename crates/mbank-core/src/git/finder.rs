//! Finding the repositories of many folders with few processes.
use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::command::{Policy, build, execute, git_path, os, path_from_bytes, run_bare};
use super::finder_memo::FinderMemo;
use super::ignores::IgnoreRules;
use super::repo::GitRepo;
use super::types::Overrides;
use crate::error::{CoreError, Result};

/// What git answered about one repository (shared by the folders inside it).
#[derive(Debug, Clone)]
pub(super) struct RepoInfo {
    /// The top folder as git spells it.
    root: PathBuf,
    /// The same, resolved, to place folders inside it.
    canonical_root: PathBuf,
    overrides: Overrides,
    /// One `check-ignore` for every folder of the repository this finder places.
    ignores: IgnoreRules,
}

/// Why a repository could not be used, kept so every folder inside it gets the same.
#[derive(Debug, Clone)]
pub(super) enum RepoRefusal {
    Refused { path: PathBuf, reason: String },
    Failed(String),
}

impl RepoRefusal {
    fn error(&self) -> CoreError {
        match self {
            RepoRefusal::Refused { path, reason } => CoreError::GitRefused {
                path: path.clone(),
                reason: reason.clone(),
            },
            RepoRefusal::Failed(message) => CoreError::Git(message.clone()),
        }
    }
}

/// Finds the repositories of many folders cheaply: `.git` entries are looked up with
/// `stat` (each folder once), and git is asked once per repository found.
#[derive(Debug, Default)]
pub(crate) struct RepoFinder {
    /// Resolved folder → the nearest folder at or above it holding a `.git` entry.
    markers: HashMap<PathBuf, Option<PathBuf>>,
    /// Folder holding a `.git` entry → git's answer there.
    repos: HashMap<PathBuf, std::result::Result<Option<RepoInfo>, RepoRefusal>>,
    /// Where git's answers are remembered between runs.
    memo: FinderMemo,
}

impl RepoFinder {
    pub fn new() -> RepoFinder {
        RepoFinder::default()
    }

    /// A finder remembering git's answers in the cache folder `folder` (when there is
    /// one), for a run that began at `started` (nanoseconds since the epoch).
    pub(crate) fn remembering(folder: Option<&Path>, started: i128) -> RepoFinder {
        RepoFinder::with_memo(
            folder
                .map(|folder| FinderMemo::in_folder(folder, started))
                .unwrap_or_default(),
        )
    }

    pub(super) fn with_memo(memo: FinderMemo) -> RepoFinder {
        RepoFinder {
            memo,
            ..RepoFinder::default()
        }
    }

    /// The nearest folder at or above `dir` (resolved) with a `.git` entry.
    fn marker(&mut self, dir: &Path) -> Option<PathBuf> {
        nearest_marker(&mut self.markers, dir, |folder| {
            std::fs::symlink_metadata(folder.join(".git")).is_ok()
        })
    }

    /// Git's answer about the repository whose `.git` entry is in `marker`: remembered
    /// from an earlier run while nothing it depends on changed, else asked.
    fn answer(
        memo: &FinderMemo,
        marker: &Path,
    ) -> std::result::Result<Option<RepoInfo>, RepoRefusal> {
        let key = memo.key(marker);
        if let Some((root, overrides)) = key.and_then(|key| memo.recall(marker, key)) {
            let canonical_root = std::fs::canonicalize(&root).unwrap_or_else(|_| root.clone());
            return Ok(Some(RepoInfo {
                root,
                canonical_root,
                overrides,
                ignores: IgnoreRules::shared(),
            }));
        }
        let answer = Self::ask(marker);
        if let (Some(key), Ok(Some(info))) = (key, &answer) {
            memo.keep(marker, key, &info.root, &info.overrides);
        }
        answer
    }

    /// Asks git about the repository whose `.git` entry is in `marker`.
    fn ask(marker: &Path) -> std::result::Result<Option<RepoInfo>, RepoRefusal> {
        // The drivers are the repository's configuration, the same from any folder in
        // it: listed while git names the top folder, each a process of its own.
        let (out, overrides) = std::thread::scope(|scope| {
            let overrides = scope.spawn(|| driver_overrides(marker));
            let out = run_bare(marker, &os(&["rev-parse", "--show-toplevel"]));
            let overrides = overrides
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (out, overrides)
        });
        let out = out.map_err(|e| RepoRefusal::Failed(e.to_string()))?;
        if !out.success {
            let reason = out.stderr;
            // git skips a `.git` that is no repository and found none above it either;
            // a repository without a work tree has no memory files in it.
            if reason.contains("not a git repository (or any")
                || reason.contains("must be run in a work tree")
            {
                return Ok(None);
            }
            return Err(RepoRefusal::Refused {
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
        let overrides = overrides.map_err(|e| match e {
            CoreError::GitRefused { path, reason } => RepoRefusal::Refused { path, reason },
            other => RepoRefusal::Failed(other.to_string()),
        })?;
        Ok(Some(RepoInfo {
            root,
            canonical_root,
            overrides,
            ignores: IgnoreRules::shared(),
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
            .or_insert_with(|| Self::answer(&self.memo, &marker))
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
            ignores: info.ignores,
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
pub(super) fn driver_overrides(root: &Path) -> Result<Overrides> {
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
    /// cannot be run. Use a `RepoFinder` for many folders.
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
            ignores: info.ignores,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}

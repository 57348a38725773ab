//! A repository as seen from one folder inside it, and what mbank asks it.
use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::AtomicBool;

use super::blob_id::ObjectFormat;
use super::command::{
    Flow, Output, Policy, Streamed, build, execute, execute_streaming, execute_until, first_arg,
    git_path, os, os_bytes, path_from_bytes,
};
use super::ignores::IgnoreRules;
use super::ignores_memo::IgnoresMemo;
use super::specs::split_entry;
use super::types::{IndexEntries, IndexEntry, Overrides, TreeBlobs};
use crate::error::{CoreError, Result};

/// Committed text larger than this is not fetched for comparisons.
pub(super) const MAX_BLOB_BYTES: usize = 8 * 1024 * 1024;

/// A repository as seen from one folder inside it (usually a project folder). Paths given
/// to and returned by its methods are spelled like that folder (`base`), so they match
/// the paths discovery produced even when the folder is reached through a symlink.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitRepo {
    pub(super) root: PathBuf,
    pub(super) base: PathBuf,
    /// `base` relative to the repository root, `/`-separated, with a trailing `/`.
    pub(super) prefix: String,
    pub(super) overrides: Overrides,
    /// Who answers which paths the ignore rules cover.
    pub(super) ignores: IgnoreRules,
}
impl GitRepo {
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
    pub(super) fn command(
        &self,
        dir: &Path,
        args: &[OsString],
        env: &[(OsString, OsString)],
        policy: Policy,
    ) -> Command {
        build(dir, args, &self.overrides, env, policy)
    }

    /// Which of `paths` (spelled like `base`) the ignore rules (.gitignore, the
    /// repository's exclude file, the user's excludes) cover, whether tracked or not.
    pub(crate) fn ignored(&self, paths: &[PathBuf]) -> Result<HashSet<PathBuf>> {
        let mut names = Vec::new();
        let mut by_name: HashMap<Vec<u8>, &PathBuf> = HashMap::new();
        let at_top = self.base.to_str().is_some();
        for path in paths {
            let Ok(rel) = path.strip_prefix(&self.base) else {
                continue;
            };
            let spelled = os_bytes(&git_path(rel));
            if spelled.is_empty() {
                continue;
            }
            // Asked at the repository's top, where `base` is `prefix` (unless `prefix`
            // could not spell it: then in `base`, by its own process).
            let mut name = if at_top {
                self.prefix.as_bytes().to_vec()
            } else {
                Vec::new()
            };
            name.extend_from_slice(&spelled);
            by_name.insert(name.clone(), path);
            names.push(name);
        }
        if names.is_empty() {
            return Ok(HashSet::new());
        }
        let ignored = if at_top {
            self.ignored_names(&names)?
        } else {
            // Rules from the top down to `base` and below it: not followed.
            crate::io::reads::unstampable();
            IgnoreRules::default().ignored(&self.overrides, &self.base, &names)?
        };
        Ok(ignored
            .iter()
            .filter_map(|name| by_name.get(name).map(|path| (*path).clone()))
            .collect())
    }

    /// Which of `names` (repository-relative, `/`-separated) the ignore rules cover: one
    /// `git check-ignore` answers every folder of the repository a run asks about.
    pub(crate) fn ignored_names(&self, names: &[Vec<u8>]) -> Result<HashSet<Vec<u8>>> {
        super::ignores::note_sources(&self.root, names);
        let ignored = self.ignores.ignored(&self.overrides, &self.root, names);
        if ignored.is_err() {
            // Git may answer next time with nothing on disk changed.
            crate::io::reads::unstampable();
        }
        ignored
    }

    /// [`GitRepo::ignored_names`], remembered in `memo` between runs while the files the
    /// rules come from are unchanged.
    pub(crate) fn ignored_names_in(
        &self,
        names: &[Vec<u8>],
        memo: &IgnoresMemo<'_>,
    ) -> Result<HashSet<Vec<u8>>> {
        let key = memo.key(&self.root, names);
        if let Some(known) = key.and_then(|key| memo.recall(&self.root, key)) {
            super::ignores::note_sources(&self.root, names);
            return Ok(known);
        }
        let ignored = self.ignored_names(names)?;
        if let Some(key) = key {
            memo.keep(&self.root, key, &ignored);
        }
        Ok(ignored)
    }

    /// This repository asking its own `check-ignore` for each question, for a value
    /// kept past the run that found it.
    pub(crate) fn unshared(&self) -> GitRepo {
        GitRepo {
            ignores: IgnoreRules::default(),
            ..self.clone()
        }
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

    /// The lines git prints for `args` followed by `ids` (commits, say), run at the root
    /// hardened; `None` when git fails or prints what is not text.
    pub(crate) fn lines_about(&self, args: &[&str], ids: &[&str]) -> Option<Vec<String>> {
        let mut args = os(args);
        args.extend(ids.iter().map(OsString::from));
        let out = self
            .run_at_root(&args, &[], None, Policy::Hardened)
            .ok()
            .filter(|out| out.success)?;
        let text = String::from_utf8(out.stdout).ok()?;
        Some(text.lines().map(str::to_string).collect())
    }

    /// [`GitRepo::run_at_root`] hardened, with no extra environment or input, git stopped
    /// once `stop` is set.
    pub(crate) fn run_at_root_until(
        &self,
        args: &[OsString],
        stop: Option<&AtomicBool>,
    ) -> Result<Output> {
        let command = self.command(&self.root, args, &[], Policy::Hardened);
        execute_until(command, None, &first_arg(args), &self.root, stop)
    }

    /// Runs git at the repository root, its output handed to `take` as it comes
    /// (see [`execute_streaming`]).
    pub(super) fn stream_root(
        &self,
        args: &[OsString],
        take: impl FnMut(&[u8]) -> Flow,
    ) -> Result<Streamed> {
        let command = self.command(&self.root, args, &[], Policy::Hardened);
        execute_streaming(command, &first_arg(args), &self.root, take)
    }

    /// Runs git in `base`.
    pub(super) fn run(&self, args: &[OsString]) -> Result<Output> {
        let command = self.command(&self.base, args, &[], Policy::Hardened);
        execute(command, None, &first_arg(args), &self.base)
    }

    /// Runs git at the root, hardened, with no extra environment.
    pub(super) fn run_root(&self, args: &[OsString]) -> Result<Output> {
        self.run_at_root(args, &[], None, Policy::Hardened)
    }

    /// A path under `base`, relative to `base`; `None` for paths elsewhere.
    pub(super) fn relative<'p>(&self, path: &'p Path) -> Option<&'p Path> {
        path.strip_prefix(&self.base)
            .ok()
            .filter(|rel| !rel.as_os_str().is_empty())
    }

    /// Whether HEAD exists (false in a repository with no commits yet).
    pub fn has_commits(&self) -> bool {
        self.run(&os(&["rev-parse", "-q", "--verify", "HEAD"]))
            .is_ok_and(|o| o.success)
    }

    /// `files` under `base` with their root-relative names.
    pub(super) fn named<'f>(&self, files: &[&'f Path]) -> Vec<(Vec<u8>, &'f Path)> {
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
    pub(crate) fn root_relative(&self, file: &Path) -> Option<OsString> {
        let rel = self.relative(file)?;
        let mut rooted = OsString::from(&self.prefix);
        rooted.push(git_path(rel));
        Some(rooted)
    }

    /// `base` as a pathspec relative to the repository root (`.` at the root).
    pub(crate) fn root_relative_base(&self) -> OsString {
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
        self.list_index(specs, None, None)
    }

    /// Index entries at or under `specs` (root-relative; the whole index when empty), by
    /// name; with `names`, every name the index lists is also pushed there in the
    /// index's order, once per stage of a merge conflict (as `git ls-files` lists them).
    /// With `keep`, only the entries of the names it holds are kept.
    pub(crate) fn list_index(
        &self,
        specs: &[OsString],
        mut names: Option<&mut Vec<Vec<u8>>>,
        keep: Option<&HashSet<&[u8]>>,
    ) -> Result<IndexEntries> {
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
            if let Some(names) = names.as_deref_mut() {
                names.push(name.to_vec());
            }
            if keep.is_some_and(|keep| !keep.contains(name)) {
                continue;
            }
            // `<mode> <sha> <stage>`
            let mut fields = head.split(' ');
            match (fields.next(), fields.next(), fields.next(), fields.next()) {
                (Some(mode), Some(sha), Some("0"), None) => {
                    entries.insert(
                        name.to_vec(),
                        IndexEntry {
                            mode: mode.to_string(),
                            sha: sha.to_string(),
                        },
                    );
                }
                (Some(_), Some(_), Some(_), None) => {
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
        match self.tree_entries("HEAD", specs) {
            Ok((_, entries)) => Ok(entries),
            Err(_) if !self.has_commits() => Ok(HashMap::new()),
            Err(error) => Err(error),
        }
    }

    /// Every name the tree of `commit` holds at or under `specs` (recursively), and the
    /// entries among them that are files or links, by name.
    pub(crate) fn tree_entries(
        &self,
        commit: &str,
        specs: &[OsString],
    ) -> Result<(Vec<Vec<u8>>, TreeBlobs)> {
        let mut args = os(&["ls-tree", "-r", "-z", "--full-tree", commit, "--"]);
        args.extend(specs.iter().cloned());
        let out = self.run_root(&args)?;
        if !out.success {
            return Err(CoreError::Git(format!(
                "git ls-tree failed in {}: {}",
                self.root.display(),
                out.stderr
            )));
        }
        let mut names = Vec::new();
        let mut entries = HashMap::new();
        for record in out.stdout.split(|b| *b == 0).filter(|r| !r.is_empty()) {
            let Some((head, name)) = split_entry(record) else {
                continue;
            };
            names.push(name.to_vec());
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
        Ok((names, entries))
    }

    /// Blob ids of work-tree files as they are on disk (no filter, no conversion), in
    /// `format`, `None` for a file that is missing, not a regular file or a link, too
    /// large or unreadable.
    pub(crate) fn worktree_blobs(
        &self,
        files: &[&Path],
        format: ObjectFormat,
    ) -> Vec<Option<String>> {
        files
            .iter()
            .map(|file| format.worktree_blob(file))
            .collect()
    }

    /// The text of a blob, `None` when it is too large or not text; an error when git
    /// cannot produce it (a blob the repository should hold and does not).
    pub(crate) fn blob_text(&self, entry: &IndexEntry) -> Result<Option<String>> {
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

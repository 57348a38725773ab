//! What the code of one repository holds, for checking claims: git's file list (the
//! work tree as `.gitignore` leaves it), the scripts and dependencies its manifests
//! declare, where a path went in history, and which names occur in its files. Built
//! once per repository and analysis; the costly parts (manifests, history, the symbol
//! search) only when a claim needs them.
use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;

use super::names_memo::NamesMemo;
use super::removals::{Commit, Removals};
use crate::error::CoreError;
use crate::git::{GitRepo, HistoryMemo, IgnoresMemo, Policy, os};
use crate::io::reads::{self, Reads};

use super::names::MAX_FILE_BYTES;

/// Where a path went: renamed to another (`to`) or removed (`None`), in `commit`; when it
/// took more than one step (renamed, then renamed again or removed), the commit of the
/// last step too.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Move {
    pub to: Option<String>,
    pub commit: String,
    pub then: Option<String>,
}

/// Scripts and dependencies the repository's manifests declare.
#[derive(Debug, Default)]
pub(crate) struct Manifests {
    pub package_json: usize,
    pub package_scripts: HashSet<String>,
    pub makefiles: usize,
    pub make_targets: HashSet<String>,
    /// A pattern rule (`%.o: %.c`) makes any target possible.
    pub make_patterns: bool,
    pub justfiles: usize,
    pub just_recipes: HashSet<String>,
    pub cargo_manifests: usize,
    pub cargo_aliases: HashSet<String>,
    pub pyprojects: usize,
    pub python_scripts: HashSet<String>,
    /// Every manifest and lock file's text, lowercased, `_` read as `-`.
    pub dependency_text: String,
    pub dependency_files: Vec<String>,
    /// The whole names of `dependency_text` (its runs of name characters), made once a
    /// name is asked for: a lock file runs to megabytes, and every section heading of
    /// every memory file asks for its words.
    names: std::sync::OnceLock<HashSet<String>>,
}

/// One repository's code, as git tracks it.
#[derive(Debug)]
pub(crate) struct CodeIndex {
    repo: GitRepo,
    root: PathBuf,
    /// Tracked files, root-relative and `/`-separated.
    files: Vec<String>,
    file_set: PathSet,
    /// Every folder holding a tracked file.
    dirs: PathSet,
    /// Every trailing run of components of a tracked file or folder, lowercased: a claim
    /// written relative to some folder (`api/refunds.rs`) is found by its tail.
    suffixes: PathSet,
    /// Every tracked file's path without its extension (`src/lib/env.ts` → `src/lib/env`):
    /// a module is named the way code imports it. Made at the first question.
    stems: OnceLock<PathSet>,
    /// The manifests and what reading them read: noted again for every project whose
    /// result uses them.
    manifests: OnceLock<(Manifests, Reads)>,
    /// Each path history shows renamed or removed, with the newest commit that did:
    /// perhaps walked before this index was built ([`super::ClaimChecker::walk_ahead`]).
    removals: Arc<Removals>,
    /// The paths of `removals` in order, and by file name: every missing path a memory
    /// claims asks which of them lay in a folder or ended as it does.
    removed_paths: OnceLock<RemovedPaths>,
    /// The renames of the commits asked about, worked out once each (`None`: git failed).
    renames: Mutex<HashMap<String, Option<Arc<Renames>>>>,
    /// Where the history walk for `removals` is remembered between runs.
    memo: Arc<HistoryMemo>,
    /// Where what the name search found in each file is remembered between runs.
    names_memo: NamesMemo,
}

/// The paths of a repository's removals, sorted (for the ones below a folder) and by
/// file name (for the ones ending as a claim does).
#[derive(Debug, Default)]
struct RemovedPaths {
    sorted: Vec<String>,
    by_name: HashMap<String, Vec<usize>>,
}

/// A set of a repository's paths: tens of thousands are hashed as an index is built,
/// faster with foldhash than SipHash, and seeded per process all the same.
type PathSet = HashSet<String, foldhash::fast::RandomState>;

/// The renames of one commit: old path → new.
type Renames = HashMap<String, String>;

impl CodeIndex {
    /// Git's list of tracked files of the repository of `repo`.
    pub fn build(repo: &GitRepo, memo: Arc<HistoryMemo>) -> Result<CodeIndex, CoreError> {
        let out = repo.run_at_root(&os(&["ls-files", "-z"]), &[], None, Policy::Hardened)?;
        if !out.success {
            return Err(CoreError::Git(format!(
                "git ls-files failed in {}: {}",
                repo.root().display(),
                out.stderr
            )));
        }
        let files: Vec<String> = out
            .stdout
            .split(|b| *b == 0)
            .filter(|name| !name.is_empty())
            .filter_map(|name| std::str::from_utf8(name).ok().map(str::to_string))
            .collect();
        Ok(CodeIndex::from_files(repo.clone(), files, memo))
    }

    /// The index of `repo`'s repository from the names `git ls-files` listed (see
    /// [`crate::git::GitRepo::list_index`]), as [`CodeIndex::build`] would list them.
    pub(crate) fn listed(repo: GitRepo, names: Vec<Vec<u8>>, memo: Arc<HistoryMemo>) -> CodeIndex {
        let files: Vec<String> = names
            .into_iter()
            .filter(|name| !name.is_empty())
            .filter_map(|name| String::from_utf8(name).ok())
            .collect();
        CodeIndex::from_files(repo, files, memo)
    }

    fn from_files(repo: GitRepo, files: Vec<String>, memo: Arc<HistoryMemo>) -> CodeIndex {
        let mut dirs = PathSet::default();
        let mut suffixes = PathSet::default();
        for file in &files {
            let lower = file.to_lowercase();
            let mut rest = lower.as_str();
            loop {
                suffixes.insert(rest.to_string());
                match rest.split_once('/') {
                    Some((_, tail)) => rest = tail,
                    None => break,
                }
            }
            let mut dir = file.as_str();
            while let Some((parent, _)) = dir.rsplit_once('/') {
                if !dirs.insert(parent.to_string()) {
                    break;
                }
                let lower = parent.to_lowercase();
                let mut rest = lower.as_str();
                loop {
                    suffixes.insert(rest.to_string());
                    match rest.split_once('/') {
                        Some((_, tail)) => rest = tail,
                        None => break,
                    }
                }
                dir = parent;
            }
        }
        CodeIndex {
            root: repo.root().to_path_buf(),
            // Kept past the run: its questions about ignores go through the caller's.
            repo: repo.unshared(),
            file_set: files.iter().cloned().collect(),
            files,
            dirs,
            suffixes,
            stems: OnceLock::new(),
            manifests: OnceLock::new(),
            removals: Arc::default(),
            removed_paths: OnceLock::new(),
            renames: Mutex::new(HashMap::new()),
            names_memo: match memo.folder() {
                Some(folder) => NamesMemo::in_folder(folder, repo.root(), memo.started()),
                None => NamesMemo::off(),
            },
            memo,
        }
    }

    /// This index answering where paths went with `removals`, which a walk started
    /// before it was built may be filling.
    pub(crate) fn sharing_removals(mut self, removals: Arc<Removals>) -> CodeIndex {
        self.removals = removals;
        self
    }

    /// Where [`CodeIndex::removals`] comes from, for a walk started ahead to fill.
    pub(crate) fn removals_cell(&self) -> Arc<Removals> {
        Arc::clone(&self.removals)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn files(&self) -> &[String] {
        &self.files
    }

    pub(crate) fn is_tracked(&self, rel: &str) -> bool {
        self.file_set.contains(rel)
    }

    /// A tracked file or a folder holding one at exactly `rel` (root-relative).
    pub fn exists(&self, rel: &str) -> bool {
        let rel = rel.trim_end_matches('/');
        self.file_set.contains(rel) || self.dirs.contains(rel)
    }

    /// Whether `rel` lies below a path git tracks as one file: a submodule (a gitlink),
    /// whose own files this repository's index does not list, so nothing can be said of
    /// them.
    pub(crate) fn in_submodule(&self, rel: &str) -> bool {
        rel.match_indices('/')
            .any(|(at, _)| self.file_set.contains(&rel[..at]))
    }

    /// A tracked file at `rel` with an extension added, where `rel`'s last part has none:
    /// the way an import names a module (`src/lib/env-sync` for `src/lib/env-sync.ts`).
    pub(crate) fn exists_as_module(&self, rel: &str) -> bool {
        let name = rel.rsplit('/').next().unwrap_or(rel);
        if name.is_empty() || name.contains('.') {
            return false;
        }
        self.stems
            .get_or_init(|| {
                self.files
                    .iter()
                    .filter_map(|file| {
                        let (stem, _) = file.rsplit_once('.')?;
                        let stem_name = stem.rsplit('/').next().unwrap_or(stem);
                        (!stem_name.is_empty()).then(|| stem.to_string())
                    })
                    .collect()
            })
            .contains(rel)
    }

    /// A tracked file or folder whose path ends with `tail` (any case).
    pub(crate) fn exists_as_suffix(&self, tail: &str) -> bool {
        self.suffixes
            .contains(&tail.trim_end_matches('/').to_lowercase())
    }

    /// Which of `rels` (root-relative) `.gitignore` ignores: claims about ignored files
    /// are about a local setup, not the code. Asked through `repo` (a folder of this
    /// index's repository), whose run shares one `check-ignore` across its projects.
    pub fn ignored(&self, repo: &GitRepo, rels: &[String]) -> HashSet<String> {
        if rels.is_empty() {
            return HashSet::new();
        }
        let names: Vec<Vec<u8>> = rels.iter().map(|rel| rel.as_bytes().to_vec()).collect();
        let asked = match self.memo.folder() {
            Some(folder) => {
                repo.ignored_names_in(&names, &IgnoresMemo::in_folder(folder, self.memo.started()))
            }
            None => repo.ignored_names(&names),
        };
        match asked {
            Ok(ignored) => ignored
                .into_iter()
                .filter(|name| !name.is_empty())
                .filter_map(|name| String::from_utf8(name).ok())
                .collect(),
            Err(_) => HashSet::new(),
        }
    }

    /// Each path the newest commits that renamed or removed a file took out of the tree
    /// (as many as [`super::removals::HISTORY_COMMITS`]), with the newest commit that
    /// did. Empty when git cannot tell.
    pub(crate) fn removals(&self) -> &HashMap<String, Commit> {
        self.removals.get(&self.repo, &self.memo)
    }

    fn removed_paths(&self) -> &RemovedPaths {
        self.removed_paths.get_or_init(|| {
            let mut sorted: Vec<String> = self.removals().keys().cloned().collect();
            sorted.sort_unstable();
            let mut by_name: HashMap<String, Vec<usize>> = HashMap::new();
            for (index, path) in sorted.iter().enumerate() {
                let name = path.rsplit('/').next().unwrap_or(path);
                by_name.entry(name.to_string()).or_default().push(index);
            }
            RemovedPaths { sorted, by_name }
        })
    }

    /// The paths history renamed or removed below `prefix` (ending in `/`), in order.
    pub(crate) fn removed_below(&self, prefix: &str) -> impl Iterator<Item = (&String, &Commit)> {
        let removed = self.removed_paths();
        let from = removed
            .sorted
            .partition_point(|path| path.as_str() < prefix);
        removed.sorted[from..]
            .iter()
            .take_while(move |path| path.starts_with(prefix))
            .filter_map(|path| self.removals().get_key_value(path))
    }

    /// The paths history renamed or removed that end with `tail` (`/`-led), in order.
    pub(crate) fn removed_ending(&self, tail: &str) -> Vec<&String> {
        let removed = self.removed_paths();
        let name = tail.rsplit('/').next().unwrap_or(tail);
        removed
            .by_name
            .get(name)
            .map(|indices| {
                indices
                    .iter()
                    .map(|&index| &removed.sorted[index])
                    .filter(|path| path.ends_with(tail))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The renames (old path → new) `git log -M` shows in `commit`; `None` when git
    /// cannot tell. Asked of git once per commit and run, for all of `also` at once.
    pub(super) fn renames_in(&self, commit: &str, also: &[&str]) -> Option<Arc<Renames>> {
        let mut known = self.renames.lock();
        if !known.contains_key(commit) {
            let mut asked: Vec<&str> = vec![commit];
            asked.extend(also.iter().copied().filter(|c| !known.contains_key(*c)));
            asked.sort_unstable();
            asked.dedup();
            let found = self.detect_renames(&asked);
            for asked in asked {
                let renames = found
                    .as_ref()
                    .map(|found| Arc::new(found.get(asked).cloned().unwrap_or_default()));
                known.insert(asked.to_string(), renames);
            }
        }
        known.get(commit).cloned().flatten()
    }

    /// Each of `commits`' renames, from one `git diff-tree -M` over them all (each
    /// against its first parent, as `git log` shows a commit).
    fn detect_renames(&self, commits: &[&str]) -> Option<HashMap<String, Renames>> {
        let args: Vec<OsString> = os(&[
            "-c",
            "core.quotePath=false",
            "diff-tree",
            "--stdin",
            "-r",
            "-M",
            "--raw",
            "--diff-filter=R",
        ]);
        let input: String = commits.iter().map(|c| format!("{c}\n")).collect();
        let out = self
            .repo
            .run_at_root(&args, &[], Some(input.as_bytes()), Policy::Hardened)
            .ok()?;
        if !out.success {
            return None;
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let mut found: HashMap<String, Renames> = HashMap::new();
        let mut current: Option<&str> = None;
        for line in text.lines() {
            let mut parts = line.split('\t');
            let (Some(raw), Some(from), Some(to)) = (parts.next(), parts.next(), parts.next())
            else {
                // A commit's id, then its renames.
                let id = line.trim();
                current = commits.iter().copied().find(|asked| *asked == id);
                continue;
            };
            // `:100644 100644 <old blob> <new blob> R100`
            let fields: Vec<&str> = raw.split(' ').collect();
            let (Some(blob), Some(status)) = (fields.get(2), fields.get(4)) else {
                continue;
            };
            // Quoted names (unusual bytes) are left out rather than misread.
            if !status.starts_with('R') || from.starts_with('"') || to.starts_with('"') {
                continue;
            }
            // Empty files are all alike: git pairs a removed empty `__init__.py` with any
            // empty file added beside it, which says nothing of where the folder went.
            if is_empty_blob(blob) {
                continue;
            }
            if let Some(commit) = current {
                found
                    .entry(commit.to_string())
                    .or_default()
                    .insert(from.to_string(), to.to_string());
            }
        }
        Some(found)
    }

    /// What the newest commit that took `from` out of the tree did with it: renamed it
    /// (`to`) or removed it. `also` are commits worth asking git about at the same time.
    fn step(&self, from: &str, also: &[&str]) -> Option<Move> {
        let commit = self.removals().get(from)?;
        let renames = self.renames_in(&commit.id, also)?;
        Some(Move {
            to: renames.get(from).cloned(),
            commit: commit.short.clone(),
            then: None,
        })
    }

    /// Where `rel` went: its last name that is still tracked (renames followed), or its
    /// removal.
    pub fn moved(&self, rel: &str) -> Option<Move> {
        let first = self.step(rel, &[])?;
        let mut current = first.clone();
        for _ in 0..16 {
            match &current.to {
                Some(to) if self.is_tracked(to) => break,
                Some(to) => match self.step(to, &[]) {
                    Some(next) => current = next,
                    None => break,
                },
                None => break,
            }
        }
        // A rename whose end is not tracked either says nothing sure.
        if let Some(to) = &current.to
            && !self.is_tracked(to)
        {
            return first.to.is_none().then_some(first);
        }
        // The commit that took `rel` away, and the one that made its last move.
        let then = (current.commit != first.commit).then_some(current.commit);
        Some(Move {
            to: current.to,
            commit: first.commit,
            then,
        })
    }

    /// Where the files of a folder went: the folder its files were renamed into, when
    /// history shows it.
    pub(crate) fn moved_dir(&self, dir: &str) -> Option<Move> {
        let prefix = format!("{}/", dir.trim_end_matches('/'));
        let inside: Vec<(&String, &Commit)> = self.removed_below(&prefix).collect();
        // Their commits' renames worked out in one go.
        let commits: Vec<&str> = inside
            .iter()
            .map(|(_, commit)| commit.id.as_str())
            .collect();
        // The newest commit's move wins when several files of the folder went apart.
        let mut found: Vec<Move> = Vec::new();
        for (from, _) in inside {
            let rest = &from[prefix.len()..];
            if let Some(step) = self.step(from, &commits)
                && let Some(to) = &step.to
                && let Some(new_dir) = to.strip_suffix(rest)
                && self.dirs.contains(new_dir.trim_end_matches('/'))
            {
                found.push(Move {
                    to: Some(new_dir.trim_end_matches('/').to_string()),
                    commit: step.commit.clone(),
                    then: None,
                });
            }
        }
        found.sort_by(|a, b| a.to.cmp(&b.to).then(a.commit.cmp(&b.commit)));
        found.into_iter().next()
    }

    /// What became of a folder history emptied: removed in the newest commit that took
    /// one of its files out (the folder left the tree then). `None` when one of its files
    /// was renamed (it went somewhere, not away), when history removed none, or when git
    /// cannot tell.
    pub(crate) fn removed_dir(&self, dir: &str) -> Option<Move> {
        let prefix = format!("{}/", dir.trim_end_matches('/'));
        let inside: Vec<(&String, &Commit)> = self.removed_below(&prefix).collect();
        let mut commits: Vec<&str> = inside.iter().map(|(_, c)| c.id.as_str()).collect();
        commits.sort_unstable();
        commits.dedup();
        if commits.is_empty() {
            return None;
        }
        for (from, _) in &inside {
            if self.step(from, &commits)?.to.is_some() {
                return None;
            }
        }
        let newest = self.newest_of(&commits)?;
        let (_, commit) = inside.iter().find(|(_, c)| c.id == newest)?;
        Some(Move {
            to: None,
            commit: commit.short.clone(),
            then: None,
        })
    }

    /// The newest of `commits` by commit time, as `git log --no-walk` lists them.
    fn newest_of(&self, commits: &[&str]) -> Option<String> {
        self.repo
            .lines_about(&["log", "--no-walk", "--format=%H"], commits)?
            .into_iter()
            .next()
    }

    /// A tracked file with the same name but another extension, or the same name in
    /// another folder: a hint when history says nothing.
    pub fn similar(&self, rel: &str) -> Option<&str> {
        let name = rel.rsplit('/').next()?;
        let stem = name.split('.').next()?;
        if stem.len() < 3 {
            return None;
        }
        let dir = rel.rsplit_once('/').map(|(d, _)| d);
        // Of the files of that name, the one nearest the path: most folders in common
        // (a module's own test, not another module's of the same name).
        let shared = |file: &str| {
            rel.split('/')
                .zip(file.split('/'))
                .take_while(|(a, b)| a == b)
                .count()
        };
        let mut same_name: Option<(&str, usize)> = None;
        for file in &self.files {
            let (file_dir, file_name) = match file.rsplit_once('/') {
                Some((d, n)) => (Some(d), n),
                None => (None, file.as_str()),
            };
            if file_name == name {
                let nearness = shared(file);
                if same_name.is_none_or(|(_, best)| nearness > best) {
                    same_name = Some((file.as_str(), nearness));
                }
            }
            if file_dir == dir && file_name.split('.').next() == Some(stem) && file_name != name {
                return Some(file);
            }
        }
        same_name.map(|(file, _)| file)
    }

    pub(crate) fn manifests(&self) -> &Manifests {
        let (manifests, read) = self
            .manifests
            .get_or_init(|| reads::unrecorded(|| reads::recording(|| self.read_manifests())));
        reads::replay(read);
        manifests
    }

    fn read(&self, rel: &str) -> Option<String> {
        crate::io::text::read_text_limited(&self.root.join(rel), MAX_FILE_BYTES).ok()
    }

    fn read_manifests(&self) -> Manifests {
        let mut m = Manifests::default();
        for rel in &self.files {
            let name = rel.rsplit('/').next().unwrap_or(rel);
            let lower = name.to_ascii_lowercase();
            match lower.as_str() {
                "package.json" => {
                    let Some(text) = self.read(rel) else { continue };
                    m.package_json += 1;
                    if let Ok(value) = serde_json::from_str::<serde_json::Value>(&text)
                        && let Some(scripts) = value.get("scripts").and_then(|s| s.as_object())
                    {
                        m.package_scripts.extend(scripts.keys().cloned());
                    }
                    m.add_dependency_text(rel, &text);
                }
                "makefile" | "gnumakefile" => {
                    if let Some(text) = self.read(rel) {
                        m.makefiles += 1;
                        make_targets(&text, &mut m);
                    }
                }
                "justfile" | ".justfile" => {
                    if let Some(text) = self.read(rel) {
                        m.justfiles += 1;
                        just_recipes(&text, &mut m.just_recipes);
                    }
                }
                "cargo.toml" => {
                    if let Some(text) = self.read(rel) {
                        m.cargo_manifests += 1;
                        m.add_dependency_text(rel, &text);
                    }
                }
                "pyproject.toml" => {
                    if let Some(text) = self.read(rel) {
                        m.pyprojects += 1;
                        python_scripts(&text, &mut m.python_scripts);
                        m.add_dependency_text(rel, &text);
                    }
                }
                // What a justfile imports (`import 'justfiles/basic.just'`) or loads as a
                // module, by just's convention a `.just` file.
                _ if lower.ends_with(".just") => {
                    if let Some(text) = self.read(rel) {
                        just_recipes(&text, &mut m.just_recipes);
                    }
                }
                _ if lower.ends_with(".mk") => {
                    if let Some(text) = self.read(rel) {
                        make_targets(&text, &mut m);
                    }
                }
                _ if is_dependency_file(&lower) => {
                    if let Some(text) = self.read(rel) {
                        m.add_dependency_text(rel, &text);
                    }
                }
                _ => {}
            }
            if (rel.ends_with(".cargo/config.toml") || rel.ends_with(".cargo/config"))
                && let Some(text) = self.read(rel)
                && let Ok(value) = toml::from_str::<toml::Table>(&text)
                && let Some(aliases) = value.get("alias").and_then(|a| a.as_table())
            {
                m.cargo_aliases.extend(aliases.keys().cloned());
            }
        }
        m
    }

    /// Which of `names` occur as whole words (any case) in the tracked files (but those
    /// in `skip`, root-relative: the memory itself) or in their paths.
    pub(crate) fn find_names(&self, names: &[String], skip: &HashSet<String>) -> HashSet<String> {
        super::names::find_names(&self.root, &self.files, names, skip, &self.names_memo)
    }
}

impl Manifests {
    fn add_dependency_text(&mut self, rel: &str, text: &str) {
        self.dependency_files.push(rel.to_string());
        self.dependency_text
            .push_str(&text.to_lowercase().replace('_', "-"));
        self.dependency_text.push('\n');
    }

    /// Whether a manifest or lock file names `name` as a whole package name.
    pub fn declares(&self, name: &str) -> bool {
        let needle = name.to_lowercase().replace('_', "-");
        let text = self.dependency_text.as_bytes();
        let is_name_byte = |b: u8| b.is_ascii_alphanumeric() || b == b'-' || b == b'.';
        if !needle.is_empty() && needle.bytes().all(is_name_byte) {
            // A name of name characters only is found whole exactly where it is a run.
            let names = self.names.get_or_init(|| {
                self.dependency_text
                    .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '.'))
                    .filter(|run| !run.is_empty())
                    .map(str::to_string)
                    .collect()
            });
            return names.contains(&needle);
        }
        let mut from = 0;
        while let Some(at) = self.dependency_text[from..].find(&needle) {
            let start = from + at;
            let end = start + needle.len();
            let before = start.checked_sub(1).map(|i| text[i]);
            let after = text.get(end).copied();
            if !before.is_some_and(is_name_byte) && !after.is_some_and(is_name_byte) {
                return true;
            }
            from = start + 1;
            while !self.dependency_text.is_char_boundary(from) {
                from += 1;
            }
        }
        false
    }
}

/// Whether `id` is the id of the empty blob (in the repository's hash).
fn is_empty_blob(id: &str) -> bool {
    crate::git::ObjectFormat::of_id(id).is_some_and(|format| format.blob_id(b"") == id)
}

fn is_dependency_file(lower_name: &str) -> bool {
    matches!(
        lower_name,
        "package-lock.json"
            | "yarn.lock"
            | "pnpm-lock.yaml"
            | "cargo.lock"
            | "poetry.lock"
            | "uv.lock"
            | "pdm.lock"
            | "pipfile"
            | "pipfile.lock"
            | "go.mod"
            | "go.sum"
            | "gemfile"
            | "gemfile.lock"
            | "composer.json"
            | "composer.lock"
            | "setup.py"
            | "setup.cfg"
            | "environment.yml"
            | "build.gradle"
            | "build.gradle.kts"
            | "pom.xml"
            | "pubspec.yaml"
            | "package.swift"
            | "deno.json"
            | "deno.jsonc"
            | "mix.exs"
    ) || (lower_name.starts_with("requirements") && lower_name.ends_with(".txt"))
}

/// Targets of a Makefile: `name:` rules and `.PHONY` lists.
fn make_targets(text: &str, m: &mut Manifests) {
    for line in text.lines() {
        if line.starts_with(['\t', ' ', '#']) {
            continue;
        }
        let Some((head, rest)) = line.split_once(':') else {
            continue;
        };
        if rest.starts_with('=') || head.contains('=') {
            continue;
        }
        for target in head.split_whitespace() {
            if target.contains('%') {
                m.make_patterns = true;
            }
            if target == ".PHONY" {
                m.make_targets
                    .extend(rest.split_whitespace().map(str::to_string));
            } else if !target.contains('$') {
                m.make_targets.insert(target.to_string());
            }
        }
    }
}

/// Recipes of a justfile: `name args…:` lines at the left margin, aliases too.
fn just_recipes(text: &str, out: &mut HashSet<String>) {
    for line in text.lines() {
        if line.starts_with([' ', '\t', '#']) {
            continue;
        }
        if let Some(rest) = line.strip_prefix("alias ")
            && let Some((name, _)) = rest.split_once(":=")
        {
            out.insert(name.trim().to_string());
            continue;
        }
        let Some((head, rest)) = line.split_once(':') else {
            continue;
        };
        if rest.starts_with('=') {
            continue;
        }
        if let Some(name) = head.trim_start_matches('@').split_whitespace().next() {
            out.insert(name.to_string());
        }
    }
}

/// Script names a pyproject declares (`[project.scripts]`, Poetry's and PDM's).
fn python_scripts(text: &str, out: &mut HashSet<String>) {
    let Ok(value) = toml::from_str::<toml::Table>(text) else {
        return;
    };
    let tables = [
        value.get("project").and_then(|p| p.get("scripts")),
        value.get("project").and_then(|p| p.get("gui-scripts")),
        value
            .get("tool")
            .and_then(|t| t.get("poetry"))
            .and_then(|p| p.get("scripts")),
        value
            .get("tool")
            .and_then(|t| t.get("pdm"))
            .and_then(|p| p.get("scripts")),
    ];
    for table in tables.into_iter().flatten() {
        if let Some(table) = table.as_table() {
            out.extend(table.keys().cloned());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::test_repo::git;

    #[test]
    fn makefile_targets_and_phony_lists_are_read() {
        let mut m = Manifests::default();
        make_targets(
            ".PHONY: lint\nbuild: deps\n\tcc x\nCC := gcc\nVAR=a:b\n%.o: %.c\n",
            &mut m,
        );
        assert!(m.make_targets.contains("lint"));
        assert!(m.make_targets.contains("build"));
        assert!(!m.make_targets.contains("CC"));
        assert!(m.make_patterns);
    }

    #[test]
    fn justfile_recipes_and_aliases_are_read() {
        let mut out = HashSet::new();
        just_recipes(
            "set shell := [\"bash\"]\n@test *args:\n    cargo test\nalias t := test\nrelease version: build\n",
            &mut out,
        );
        for name in ["test", "t", "release"] {
            assert!(out.contains(name), "{name}: {out:?}");
        }
        assert!(!out.contains("set"));
    }

    #[test]
    fn dependencies_are_found_by_whole_package_name() {
        let mut m = Manifests::default();
        m.add_dependency_text(
            "package.json",
            r#"{"dependencies": {"react-dom": "18", "@tanstack/react-query": "5"}}"#,
        );
        m.add_dependency_text("pyproject.toml", "dependencies = [\"python_dotenv>=1\"]");
        assert!(m.declares("@tanstack/react-query"));
        assert!(m.declares("react-dom"));
        assert!(!m.declares("react"));
        assert!(m.declares("python-dotenv"));
        assert!(m.declares("python_dotenv"));
    }

    fn commit(dir: &Path, message: &str) {
        git(dir, &["add", "-A"]);
        git(dir, &["commit", "-q", "-m", message]);
    }

    #[test]
    fn moves_carried_forward_over_new_commits_are_the_moves_walked_afresh() {
        let temp = tempfile::tempdir().expect("temp");
        let (dir, cache) = (temp.path().join("repo"), temp.path().join("cache"));
        std::fs::create_dir_all(dir.join("src")).expect("mkdir");
        git(&dir, &["init", "-q"]);
        for name in ["a", "b", "c", "d"] {
            let text = format!("pub fn {name}() {{ /* {name} */ }}\n").repeat(20);
            std::fs::write(dir.join(format!("src/{name}.rs")), text).expect("write");
        }
        commit(&dir, "first");
        git(&dir, &["mv", "src/a.rs", "src/a2.rs"]);
        commit(&dir, "rename a");
        let repo = GitRepo::discover(&dir).expect("a repository");
        let moves = |memo: HistoryMemo| {
            let index = CodeIndex::build(&repo, Arc::new(memo)).expect("listed");
            let mut removed: Vec<&String> = index.removals().keys().collect();
            removed.sort();
            let mut moves: Vec<(String, Move)> = Vec::new();
            for from in removed {
                let step = index.step(from, &[]).expect("a commit");
                moves.push((from.clone(), step));
            }
            moves
        };
        let first = moves(HistoryMemo::in_folder(&cache, 0));
        assert_eq!(first.len(), 1, "{first:?}");

        // On from there: a second rename of the same file, a removal, a rename.
        git(&dir, &["mv", "src/a2.rs", "src/a3.rs"]);
        commit(&dir, "rename a again");
        git(&dir, &["rm", "-q", "src/b.rs"]);
        commit(&dir, "remove b");
        git(&dir, &["mv", "src/c.rs", "src/c2.rs"]);
        commit(&dir, "rename c");
        let carried = moves(HistoryMemo::in_folder(&cache, 0));
        let fresh = moves(HistoryMemo::off());
        assert_eq!(carried, fresh);
        let went: Vec<(&str, Option<&str>)> = carried
            .iter()
            .map(|(from, m)| (from.as_str(), m.to.as_deref()))
            .collect();
        assert_eq!(
            went,
            [
                ("src/a.rs", Some("src/a2.rs")),
                ("src/a2.rs", Some("src/a3.rs")),
                ("src/b.rs", None),
                ("src/c.rs", Some("src/c2.rs")),
            ]
        );
    }

    #[test]
    fn renames_worked_out_per_commit_are_those_of_a_walk_detecting_renames_throughout() {
        let temp = tempfile::tempdir().expect("temp");
        let dir = temp.path();
        git(dir, &["init", "-q"]);
        let write = |rel: &str, text: &str| {
            let path = dir.join(rel);
            std::fs::create_dir_all(path.parent().expect("a folder")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        };
        let body = |name: &str| format!("pub fn {name}() {{ /* the {name} body */ }}\n").repeat(30);
        for name in ["a", "b", "c", "d", "e"] {
            write(&format!("src/{name}.rs"), &body(name));
        }
        write("old/x.rs", &body("x"));
        write("old/y.rs", &body("y"));
        commit(dir, "first");
        git(dir, &["mv", "src/a.rs", "src/a2.rs"]);
        commit(dir, "rename a");
        git(dir, &["rm", "-q", "src/b.rs"]);
        write("src/unrelated.rs", "fn other() {}\n");
        commit(dir, "remove b, add something else");
        git(dir, &["mv", "old", "new"]);
        commit(dir, "move a folder");
        // Renamed and edited a little: still a rename.
        std::fs::remove_file(dir.join("src/c.rs")).expect("remove");
        write("src/c_renamed.rs", &format!("{}// edited\n", body("c")));
        commit(dir, "rename c with an edit");
        git(dir, &["rm", "-q", "src/a2.rs"]);
        commit(dir, "remove a2");
        write("src/b.rs", &body("b again"));
        commit(dir, "b comes back");
        git(dir, &["rm", "-q", "src/d.rs"]);
        commit(dir, "remove d");
        let repo = GitRepo::discover(dir).expect("a repository");

        // What one `git log -M` over all of history says.
        let log = git(
            dir,
            &[
                "log",
                "-M",
                "--name-status",
                "--diff-filter=RD",
                "--format=%x01%h",
            ],
        );
        let mut expected: Vec<(String, Move)> = Vec::new();
        let mut commit_id = String::new();
        for line in log.lines() {
            if let Some(id) = line.strip_prefix('\u{1}') {
                commit_id = id.to_string();
                continue;
            }
            let parts: Vec<&str> = line.split('\t').collect();
            let step = match parts.as_slice() {
                [status, from, to] if status.starts_with('R') => {
                    (from.to_string(), Some(to.to_string()))
                }
                ["D", from] => (from.to_string(), None),
                _ => continue,
            };
            if !expected.iter().any(|(from, _)| *from == step.0) {
                let commit = commit_id.clone();
                expected.push((
                    step.0,
                    Move {
                        to: step.1,
                        commit,
                        then: None,
                    },
                ));
            }
        }
        expected.sort_by(|x, y| x.0.cmp(&y.0));
        let index = CodeIndex::build(&repo, Arc::new(HistoryMemo::off())).expect("listed");
        let mut removed: Vec<&String> = index.removals().keys().collect();
        removed.sort();
        let found: Vec<(String, Move)> = removed
            .into_iter()
            .map(|from| (from.clone(), index.step(from, &[]).expect("a commit")))
            .collect();
        assert_eq!(found, expected);
        assert_eq!(expected.len(), 7, "{expected:?}");
        assert_eq!(
            index.moved_dir("old").and_then(|m| m.to),
            Some("new".to_string())
        );
        assert_eq!(
            index.moved("src/c.rs").and_then(|m| m.to),
            Some("src/c_renamed.rs".to_string())
        );
        // Renamed, then removed: gone.
        assert_eq!(index.moved("src/a.rs").map(|m| m.to), Some(None));
    }
}

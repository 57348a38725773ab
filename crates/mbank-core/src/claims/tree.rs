//! What the code of one repository holds, for checking claims: git's file list (the
//! work tree as `.gitignore` leaves it), the scripts and dependencies its manifests
//! declare, where a path went in history, and which names occur in its files. Built
//! once per repository and analysis; the costly parts (manifests, history, the symbol
//! search) only when a claim needs them.
use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use super::names_memo::NamesMemo;
use crate::error::CoreError;
use crate::git::{GitRepo, HistoryMemo, HistoryWalk, Policy, Walk, os};
use crate::io::reads::{self, Reads};

use super::names::MAX_FILE_BYTES;

/// Commits of history searched for renames and removals.
pub(crate) const HISTORY_COMMITS: usize = 2000;

/// Where a path went: renamed to another (`to`) or removed (`None`), in `commit`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Move {
    pub to: Option<String>,
    pub commit: String,
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
    /// The manifests and what reading them read: noted again for every project whose
    /// result uses them.
    manifests: OnceLock<(Manifests, Reads)>,
    moves: OnceLock<HashMap<String, Move>>,
    /// Where the history walk for `moves` is remembered between runs.
    memo: Arc<HistoryMemo>,
    /// Where what the name search found in each file is remembered between runs.
    names_memo: NamesMemo,
}

/// A set of a repository's paths: tens of thousands are hashed as an index is built,
/// faster with foldhash than SipHash, and seeded per process all the same.
type PathSet = HashSet<String, foldhash::fast::RandomState>;

/// Moves as the history memo keeps them: (from, to, commit, shown commits before it),
/// sorted by `from`.
type StoredMoves<'a> = Vec<(&'a str, Option<&'a str>, &'a str, u32)>;

/// Where paths went as a walk of history found it: each path's newest move with how many
/// shown commits (those renaming or removing a file) came before it, and how many
/// commits the walk showed.
#[derive(Debug, Default)]
struct WalkedMoves {
    moves: HashMap<String, (Move, u32)>,
    shown: u32,
}

/// The walk behind [`CodeIndex::moves`].
struct MovesWalk<'a> {
    repo: &'a GitRepo,
}

impl MovesWalk<'_> {
    /// The moves in the newest [`HISTORY_COMMITS`] commits of `range` that rename or
    /// remove a file; `None` when git could not tell (not remembered).
    fn read(&self, range: &str) -> Option<WalkedMoves> {
        let limit = format!("-n{HISTORY_COMMITS}");
        let args: Vec<OsString> = os(&[
            "-c",
            "core.quotePath=false",
            "log",
            "-M",
            "--name-status",
            "--diff-filter=RD",
            "--format=%x01%h",
            &limit,
            range,
            "--",
        ]);
        let out = self
            .repo
            .run_at_root(&args, &[], None, Policy::Hardened)
            .ok()?;
        if !out.success {
            return None;
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let mut walked = WalkedMoves::default();
        let mut commit = String::new();
        for line in text.lines() {
            if let Some(hash) = line.strip_prefix('\u{1}') {
                commit = hash.trim().to_string();
                walked.shown += 1;
                continue;
            }
            let mut parts = line.split('\t');
            let (Some(status), Some(from)) = (parts.next(), parts.next()) else {
                continue;
            };
            // Quoted names (unusual bytes) are left out rather than misread.
            if from.starts_with('"') {
                continue;
            }
            let to = if status.starts_with('R') {
                match parts.next() {
                    Some(to) if !to.starts_with('"') => Some(to.to_string()),
                    _ => continue,
                }
            } else if status == "D" {
                None
            } else {
                continue;
            };
            // Newest first: the first word on a path is the last thing that happened.
            let step = Move {
                to,
                commit: commit.clone(),
            };
            let before = walked.shown.saturating_sub(1);
            walked
                .moves
                .entry(from.to_string())
                .or_insert((step, before));
        }
        Some(walked)
    }
}

impl HistoryWalk for MovesWalk<'_> {
    type Answer = WalkedMoves;

    fn walk(&self) -> Walk {
        Walk::Moves {
            commits: HISTORY_COMMITS,
        }
    }

    fn encode(walked: &WalkedMoves) -> Option<Vec<u8>> {
        let mut moves: StoredMoves<'_> = walked
            .moves
            .iter()
            .map(|(from, (step, before))| {
                let to = step.to.as_deref();
                (from.as_str(), to, step.commit.as_str(), *before)
            })
            .collect();
        moves.sort_unstable();
        crate::cache_store::encode(&(walked.shown, moves))
    }

    fn decode(bytes: &[u8]) -> Option<WalkedMoves> {
        let (shown, moves): (u32, StoredMoves<'_>) = crate::cache_store::decode(bytes)?;
        let moves = moves
            .into_iter()
            .map(|(from, to, commit, before)| {
                let step = Move {
                    to: to.map(str::to_string),
                    commit: commit.to_string(),
                };
                (from.to_string(), (step, before))
            })
            .collect();
        Some(WalkedMoves { moves, shown })
    }

    fn ask(&self, tip: &str) -> Option<WalkedMoves> {
        self.read(tip)
    }

    /// The new commits' moves, then the earlier ones still within the newest
    /// [`HISTORY_COMMITS`] shown commits.
    fn extend(
        &self,
        earlier: WalkedMoves,
        base: &str,
        tip: &str,
        _commits: usize,
    ) -> Option<WalkedMoves> {
        let mut walked = self.read(&format!("{base}..{tip}"))?;
        let newer = walked.shown;
        for (from, (step, before)) in earlier.moves {
            let before = before.checked_add(newer)?;
            if (before as usize) < HISTORY_COMMITS {
                walked.moves.entry(from).or_insert((step, before));
            }
        }
        walked.shown = earlier
            .shown
            .checked_add(newer)?
            .min(HISTORY_COMMITS as u32);
        Some(walked)
    }
}

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
            manifests: OnceLock::new(),
            moves: OnceLock::new(),
            names_memo: match memo.folder() {
                Some(folder) => NamesMemo::in_folder(folder, repo.root(), memo.started()),
                None => NamesMemo::off(),
            },
            memo,
        }
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
        match repo.ignored_names(&names) {
            Ok(ignored) => ignored
                .into_iter()
                .filter(|name| !name.is_empty())
                .filter_map(|name| String::from_utf8(name).ok())
                .collect(),
            Err(_) => HashSet::new(),
        }
    }

    /// Where paths went, from the newest [`HISTORY_COMMITS`] commits that renamed or
    /// removed a file (renames followed to their last name). Empty when git cannot tell.
    pub fn moves(&self) -> &HashMap<String, Move> {
        self.moves.get_or_init(|| {
            let walk = MovesWalk { repo: &self.repo };
            self.memo
                .answer(&self.repo, &walk)
                .map(|walked| {
                    walked
                        .moves
                        .into_iter()
                        .map(|(from, (step, _))| (from, step))
                        .collect()
                })
                .unwrap_or_default()
        })
    }

    /// Where `rel` went: its last name that is still tracked (renames followed), or its
    /// removal.
    pub fn moved(&self, rel: &str) -> Option<Move> {
        let moves = self.moves();
        let first = moves.get(rel)?.clone();
        let mut current = first.clone();
        for _ in 0..16 {
            match &current.to {
                Some(to) if self.is_tracked(to) => break,
                Some(to) => match moves.get(to) {
                    Some(next) => {
                        current = Move {
                            to: next.to.clone(),
                            commit: next.commit.clone(),
                        }
                    }
                    None => break,
                },
                None => break,
            }
        }
        // A rename whose end is not tracked either says nothing sure.
        match &current.to {
            Some(to) if !self.is_tracked(to) => Some(Move {
                to: None,
                commit: current.commit,
            })
            .filter(|_| first.to.is_none()),
            _ => Some(current),
        }
    }

    /// Where the files of a folder went: the folder its files were renamed into, when
    /// history shows it.
    pub(crate) fn moved_dir(&self, dir: &str) -> Option<Move> {
        let prefix = format!("{}/", dir.trim_end_matches('/'));
        // The newest commit's move wins when several files of the folder went apart.
        let mut found: Vec<Move> = Vec::new();
        for (from, step) in self.moves() {
            if let Some(rest) = from.strip_prefix(&prefix)
                && let Some(to) = &step.to
                && let Some(new_dir) = to.strip_suffix(rest)
                && self.dirs.contains(new_dir.trim_end_matches('/'))
            {
                found.push(Move {
                    to: Some(new_dir.trim_end_matches('/').to_string()),
                    commit: step.commit.clone(),
                });
            }
        }
        found.sort_by(|a, b| a.to.cmp(&b.to).then(a.commit.cmp(&b.commit)));
        found.into_iter().next()
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
        let mut same_name = None;
        for file in &self.files {
            let (file_dir, file_name) = match file.rsplit_once('/') {
                Some((d, n)) => (Some(d), n),
                None => (None, file.as_str()),
            };
            if file_name == name && same_name.is_none() {
                same_name = Some(file.as_str());
            }
            if file_dir == dir && file_name.split('.').next() == Some(stem) && file_name != name {
                return Some(file);
            }
        }
        same_name
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
            let mut moves: Vec<(String, Move)> = index.moves().clone().into_iter().collect();
            moves.sort_by(|x, y| x.0.cmp(&y.0));
            moves
        };
        let first = moves(HistoryMemo::in_folder(&cache));
        assert_eq!(first.len(), 1, "{first:?}");

        // On from there: a second rename of the same file, a removal, a rename.
        git(&dir, &["mv", "src/a2.rs", "src/a3.rs"]);
        commit(&dir, "rename a again");
        git(&dir, &["rm", "-q", "src/b.rs"]);
        commit(&dir, "remove b");
        git(&dir, &["mv", "src/c.rs", "src/c2.rs"]);
        commit(&dir, "rename c");
        let carried = moves(HistoryMemo::in_folder(&cache));
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
}

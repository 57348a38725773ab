//! What staleness needs from git, for every command: when each memory file was last
//! committed, how many commits came after, whether it changed since, and the
//! repository's latest commit. `check` gathers it with everything else git says; `list`
//! and the picker take it from the listing cache while the repository and the files are
//! as they were, so all of them judge a file by the same evidence and never disagree.
//!
//! "As they were" is a stamp: `HEAD`, the ref it names (loose or packed), the index,
//! and each memory file's size and modification time. Anything that moves history, the
//! index or a file changes the stamp and git is asked again. Reading the stamp costs a
//! few `stat`s per repository and none per project outside any repository.
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::claims::ClaimChecker;
use crate::error::CoreError;
use crate::findings::FindingCode;
use crate::git::{self, Facts, GitRepo, HistoryMemo, RepoFinder};
use crate::io::hash_index::StableHasher;
use crate::model::{Bank, Project};
use crate::scan::listings::Listings;

/// Remembered per project in the listing cache, under the project's stamp.
pub(crate) const GIT_EVIDENCE_FACT: &str = "git-evidence";

/// What git says about one file, as staleness uses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEvidence {
    /// Committer time of the newest commit touching the file, in seconds since the epoch.
    pub committed: i64,
    /// Commits in HEAD's history newer than that one.
    pub commits_since: u32,
    /// Tracked and unchanged since that commit: git's time is the file's time.
    pub clean: bool,
}

impl FileEvidence {
    pub fn time(&self) -> SystemTime {
        from_seconds(self.committed)
    }
}

/// Git's side of one project's staleness.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GitEvidence {
    /// Time of the newest commit in HEAD's history, in seconds since the epoch.
    pub latest_commit: Option<i64>,
    /// Committed files only; a file never committed has no git evidence.
    pub files: HashMap<PathBuf, FileEvidence>,
}

impl GitEvidence {
    /// The part of `facts` staleness uses, for `paths`.
    pub(crate) fn from_facts(facts: &Facts, banks: &[Bank]) -> Self {
        let files = dated_files(banks)
            .into_iter()
            .filter_map(|(path, dated_by)| {
                // A link to a file git does not track (outside the repository) is
                // dated by its own commits.
                let (commit, dated_by) = match facts.history.of(&dated_by) {
                    Some(commit) => (commit, dated_by.as_ref()),
                    None => (facts.history.of(path)?, path),
                };
                Some((
                    path.to_path_buf(),
                    FileEvidence {
                        committed: seconds(commit.time),
                        commits_since: commit.commits_since,
                        clean: facts.is_clean(dated_by),
                    },
                ))
            })
            .collect();
        GitEvidence {
            latest_commit: facts.history.latest_commit.map(seconds),
            files,
        }
    }

    pub fn latest_commit(&self) -> Option<SystemTime> {
        self.latest_commit.map(from_seconds)
    }

    pub fn file(&self, path: &Path) -> Option<FileEvidence> {
        self.files.get(path).copied()
    }
}

/// Git's side of one project's staleness, or why there is none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Evidence {
    /// Outside any repository: staleness goes by the files' times and dates alone.
    #[default]
    Outside,
    Known(GitEvidence),
    /// In a repository git refuses ("detected dubious ownership") or fails on: when the
    /// files last changed cannot be told, so their staleness is unknown (never "fresh"
    /// by default), and `code` (`git-refused`, `git-failed`) with `reason` is reported
    /// as an error finding, as `check` does.
    Failed {
        code: FindingCode,
        reason: String,
    },
}

impl Evidence {
    pub fn known(&self) -> Option<&GitEvidence> {
        match self {
            Evidence::Known(evidence) => Some(evidence),
            _ => None,
        }
    }
}

fn seconds(time: SystemTime) -> i64 {
    match time.duration_since(UNIX_EPOCH) {
        Ok(after) => i64::try_from(after.as_secs()).unwrap_or(i64::MAX),
        Err(before) => -i64::try_from(before.duration().as_secs()).unwrap_or(i64::MAX),
    }
}

fn from_seconds(seconds: i64) -> SystemTime {
    if seconds >= 0 {
        UNIX_EPOCH + Duration::from_secs(seconds.unsigned_abs())
    } else {
        UNIX_EPOCH - Duration::from_secs(seconds.unsigned_abs())
    }
}

/// Where a project stands in git, as far as can be told without running it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RepoPlace {
    /// No `.git` entry at or above the project: no git evidence, nothing to ask.
    Outside,
    /// In a repository whose state this cannot stamp: git is asked every time.
    Unstamped,
    /// In a repository, in the state this stamp sums up.
    Stamped(u64),
}

/// The repository a project is in, as far as can be told without running git.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Repository {
    /// No `.git` entry at or above the project.
    Outside,
    /// `marker` holds the `.git` entry; `state` is `repository_state` of it.
    At { marker: PathBuf, state: Option<u64> },
}

/// The stamp of the state of the repository whose `.git` entry is in `marker`: `HEAD`,
/// the ref it names, `packed-refs`, the index and `shallow`, each by size, times and
/// inode. `None` when the layout is not one this reads (then git is asked every time).
pub(crate) fn repository_state(marker: &Path) -> Option<u64> {
    repo_stamp(marker)
}

/// Finds the folder holding the `.git` entry above a project without asking git, and
/// stamps that repository's state; both remembered for the finder's life, so a root of
/// many projects costs a lookup per project and a few `stat`s per repository.
#[derive(Default)]
pub(crate) struct RepoStamps {
    /// Folder (resolved) → the nearest folder at or above it with a `.git` entry.
    markers: HashMap<PathBuf, Option<PathBuf>>,
    /// Parent folder of projects → its resolved path and which entries are links.
    parents: HashMap<PathBuf, Option<ResolvedParent>>,
    /// Folder with a `.git` entry → the repository's stamp (`None`: cannot be stamped).
    stamps: HashMap<PathBuf, Option<u64>>,
}

/// A folder holding projects, resolved once.
struct ResolvedParent {
    path: PathBuf,
    /// Entries that are links (or of unknown type), from this run's listing of the
    /// folder; `None` when it was not listed.
    links: Option<Vec<std::ffi::OsString>>,
}

impl ResolvedParent {
    fn of(parent: &Path, listings: &Listings) -> Option<ResolvedParent> {
        let path = std::fs::canonicalize(parent).ok()?;
        let links = listings.listed(parent).map(|entries| {
            entries
                .iter()
                .filter(|e| e.is_symlink() || e.kind == crate::scan::listings::Kind::Unknown)
                .map(|e| e.name.clone())
                .collect()
        });
        Some(ResolvedParent { path, links })
    }
}

impl RepoStamps {
    pub fn new() -> Self {
        RepoStamps::default()
    }

    /// Where `project` stands in git, with the stamp of its state when it is in a
    /// repository whose state can be read without git.
    pub fn place(&mut self, project: &Path, banks: &[Bank], listings: &Listings) -> RepoPlace {
        let (marker, repo) = match self.repository(project, listings) {
            Repository::Outside => return RepoPlace::Outside,
            Repository::At { state: None, .. } => return RepoPlace::Unstamped,
            Repository::At {
                marker,
                state: Some(repo),
            } => (marker, repo),
        };
        let mut hasher = StableHasher::default();
        repo.hash(&mut hasher);
        marker.hash(&mut hasher);
        for file in banks.iter().flat_map(|b| b.files.iter()) {
            if file.is_virtual() {
                continue;
            }
            file.path.hash(&mut hasher);
            file.size.hash(&mut hasher);
            file.modified.map(nanos).hash(&mut hasher);
        }
        RepoPlace::Stamped(hasher.finish())
    }

    /// The repository `project` is in and the stamp of its state, before the project's
    /// own files are summed into it (see [`RepoStamps::place`]).
    pub fn repository(&mut self, project: &Path, listings: &Listings) -> Repository {
        let Some(folder) = self.resolve(project, listings) else {
            return Repository::Outside;
        };
        let Some(marker) = self.marker_of_project(&folder, listings) else {
            return Repository::Outside;
        };
        let state = *self
            .stamps
            .entry(marker.clone())
            .or_insert_with(|| repo_stamp(&marker));
        Repository::At { marker, state }
    }

    /// Whether `project` is surely in no repository: its folder was listed in this run
    /// (so it can be reached), its path resolves, and neither it nor a folder above it
    /// holds a `.git` entry. Where git would be looked for, nothing is found.
    pub fn surely_outside(&mut self, project: &Path, listings: &Listings) -> bool {
        if listings.listed(project).is_none() {
            return false;
        }
        let Some(folder) = self.resolve(project, listings) else {
            return false;
        };
        self.marker_of_project(&folder, listings).is_none()
    }

    /// `project` with its folders resolved as git sees them: the parent resolved once for
    /// all its projects, the project itself only when it is a link.
    fn resolve(&mut self, project: &Path, listings: &Listings) -> Option<PathBuf> {
        let (Some(parent), Some(name)) = (project.parent(), project.file_name()) else {
            return std::fs::canonicalize(project).ok();
        };
        if !self.parents.contains_key(parent) {
            let resolved = ResolvedParent::of(parent, listings);
            self.parents.insert(parent.to_path_buf(), resolved);
        }
        let known = self.parents.get(parent)?;
        match known {
            Some(ResolvedParent {
                path,
                links: Some(links),
            }) if !links.iter().any(|l| l == name) => Some(path.join(name)),
            // A link (or a parent not listed in this run): resolved on its own.
            Some(_) => std::fs::canonicalize(project).ok(),
            None => None,
        }
    }

    /// [`RepoStamps::marker`] of a project folder: its own listing answers for it, and
    /// only its parent's answer is remembered (projects are not revisited; parents are).
    fn marker_of_project(&mut self, folder: &Path, listings: &Listings) -> Option<PathBuf> {
        match listings.listed(folder) {
            Some(entries) if entries.iter().any(|e| e.name == ".git") => Some(folder.to_path_buf()),
            Some(_) => self.marker(folder.parent()?, listings),
            None => self.marker(folder, listings),
        }
    }

    fn marker(&mut self, dir: &Path, listings: &Listings) -> Option<PathBuf> {
        crate::git::nearest_marker(&mut self.markers, dir, |folder| {
            match listings.listed(folder) {
                Some(entries) => entries.iter().any(|e| e.name == ".git"),
                None => std::fs::symlink_metadata(folder.join(".git")).is_ok(),
            }
        })
    }
}

fn nanos(time: SystemTime) -> i128 {
    match time.duration_since(UNIX_EPOCH) {
        Ok(after) => after.as_nanos() as i128,
        Err(before) => -(before.duration().as_nanos() as i128),
    }
}

/// Largest `HEAD`, `.git` file or `commondir` read for the stamp.
const SMALL_FILE: u64 = 4096;

fn read_small(path: &Path) -> Option<String> {
    // Git's own files: what they say is summed up in the repository's stamp, and git
    // rewrites them (and their folder) as it runs.
    crate::io::reads::unrecorded(|| crate::io::text::read_text_limited(path, SMALL_FILE).ok())
}

/// The state of the repository whose `.git` entry is in `marker`: `HEAD`'s text, the
/// ref it names, `packed-refs` and the index, each by size, times and inode. `None`
/// when the layout is not one this reads (then git is asked every time).
fn repo_stamp(marker: &Path) -> Option<u64> {
    let dot_git = marker.join(".git");
    let meta = std::fs::symlink_metadata(&dot_git).ok()?;
    // A work tree of another repository, or a submodule: `.git` is a file naming the
    // folder that holds HEAD and the index; refs live in its common folder.
    let git_dir = if meta.is_dir() {
        dot_git
    } else if meta.is_file() {
        let text = read_small(&dot_git)?;
        let target = text.strip_prefix("gitdir:")?.trim();
        marker.join(target)
    } else {
        return None;
    };
    let common_dir = match read_small(&git_dir.join("commondir")) {
        Some(text) => git_dir.join(text.trim()),
        None => git_dir.clone(),
    };
    let head = read_small(&git_dir.join("HEAD"))?;
    let mut hasher = StableHasher::default();
    head.hash(&mut hasher);
    if let Some(name) = head.strip_prefix("ref:").map(str::trim) {
        // A ref name leads nowhere outside the repository.
        if name
            .split('/')
            .any(|part| part.is_empty() || part == "." || part == "..")
        {
            return None;
        }
        file_stamp(&common_dir.join(name)).hash(&mut hasher);
        // Per-work-tree refs (`refs/bisect`, …) are rare; the common folder's are the rule.
        file_stamp(&git_dir.join(name)).hash(&mut hasher);
    }
    file_stamp(&common_dir.join("packed-refs")).hash(&mut hasher);
    file_stamp(&git_dir.join("index")).hash(&mut hasher);
    // Grafts and a shallow boundary change history without moving a ref.
    file_stamp(&common_dir.join("shallow")).hash(&mut hasher);
    Some(hasher.finish())
}

/// Size, modification and change times and inode of a file; `None` when it is absent.
fn file_stamp(path: &Path) -> Option<(u64, i128, i128, u64)> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    #[cfg(unix)]
    let (ctime, ino) = {
        use std::os::unix::fs::MetadataExt;
        (
            i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec()),
            meta.ino(),
        )
    };
    #[cfg(not(unix))]
    let (ctime, ino) = (0, 0);
    Some((
        meta.len(),
        meta.modified().map(nanos).unwrap_or(0),
        ctime,
        ino,
    ))
}

/// What git says about one project, gathered once for all its banks.
pub(crate) struct GitFacts {
    pub(crate) repo: GitRepo,
    pub(crate) facts: Facts,
}

/// A project's git side for one analysis.
pub(crate) enum GitState {
    /// Not in a repository (or git not asked): no git facts, nothing wrong.
    Absent,
    Ready(Box<GitFacts>),
    /// A repository git refuses or fails on: an error finding instead of facts, so a
    /// check that could not run never passes silently.
    Failed {
        code: FindingCode,
        reason: String,
    },
}

impl GitState {
    fn failed(error: &CoreError) -> GitState {
        GitState::Failed {
            code: match error {
                CoreError::GitRefused { .. } => FindingCode::GitRefused,
                _ => FindingCode::GitFailed,
            },
            reason: error.to_string(),
        }
    }

    /// The evidence of a repository git refused or failed on.
    pub(crate) fn failure(&self) -> Option<Evidence> {
        match self {
            GitState::Failed { code, reason } => Some(Evidence::Failed {
                code: *code,
                reason: reason.clone(),
            }),
            _ => None,
        }
    }

    pub(crate) fn facts(&self) -> Option<&GitFacts> {
        match self {
            GitState::Ready(facts) => Some(facts),
            _ => None,
        }
    }
}

/// Every listed file on disk, with the file whose history dates it: itself, or where
/// it is a link, the file it links to (an `AGENTS.md` linked to `CLAUDE.md` is written
/// whenever `CLAUDE.md` is; the link's own commit only says when it was made), or where
/// a folder on its way from the bank's root is a link (`.claude/rules` →
/// `../.agents/rules`, and so `.claude/rules/rust/rust.md`), the file in the folder
/// linked to, which is all git tracks of it.
fn dated_files(banks: &[Bank]) -> Vec<(&Path, Cow<'_, Path>)> {
    // Where each folder leads, looked up once per folder.
    let mut folders: HashMap<&Path, Option<PathBuf>> = HashMap::new();
    banks
        .iter()
        .flat_map(|b| b.files.iter().map(move |f| (b.root.as_path(), f)))
        .filter(|(_, f)| !f.is_virtual())
        .map(|(root, f)| {
            let by = link_target(&f.path).or_else(|| {
                f.path
                    .ancestors()
                    .skip(1)
                    .take_while(|folder| folder.starts_with(root))
                    .find_map(|folder| {
                        let linked = folders
                            .entry(folder)
                            .or_insert_with(|| link_target(folder))
                            .as_ref()?;
                        Some(linked.join(f.path.strip_prefix(folder).ok()?))
                    })
            });
            (
                f.path.as_path(),
                by.map_or(Cow::Borrowed(f.path.as_path()), Cow::Owned),
            )
        })
        .collect()
}

/// Where the link at `path` leads (one link followed, its target spelled lexically: git
/// names the target, whatever links lie on the way); `None` when `path` is no link.
fn link_target(path: &Path) -> Option<PathBuf> {
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    let target = is_link.then(|| std::fs::read_link(path).ok()).flatten()?;
    Some(crate::analysis::imports::normalize_lexically(
        &path.parent()?.join(target),
    ))
}

/// The files git is asked about: every listed file on disk, and what a link among them
/// links to.
pub(crate) fn git_files(banks: &[Bank]) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = Vec::new();
    for (path, dated_by) in dated_files(banks) {
        files.push(path.to_path_buf());
        if let Cow::Owned(target) = dated_by {
            files.push(target);
        }
    }
    files
}

/// Finds the repositories of `projects` (a `stat` per folder; git only where a `.git`
/// entry is) and gathers each repository's facts in one pass for all its projects.
pub(crate) fn gather_git(projects: &[(&Project, &[Bank])], memo: &HistoryMemo) -> Vec<GitState> {
    gather_git_listing(projects, None, memo)
}

/// [`gather_git`]; with `claims`, the one `ls-files` of each repository lists all of it
/// and hands the list to `claims`, so checking the projects' claims lists it no more.
pub(crate) fn gather_git_listing(
    projects: &[(&Project, &[Bank])],
    claims: Option<&ClaimChecker>,
    memo: &HistoryMemo,
) -> Vec<GitState> {
    let folders: Vec<&Path> = projects.iter().map(|(p, _)| p.path.as_path()).collect();
    let found = find_repositories(&folders, claims, memo);
    gather_found(found, projects, claims, memo)
}

/// The repositories of some projects' folders, each with the projects in it (by index)
/// and their views of it; a project whose repository git refuses has its error.
pub(crate) struct FoundRepositories {
    states: Vec<GitState>,
    repositories: BTreeMap<PathBuf, Vec<(usize, GitRepo)>>,
}

/// Finds the repositories of `folders` (a `stat` per folder; git only where a `.git`
/// entry is). With `claims`, each repository's walk of history starts now, beside
/// whatever the caller does next: where paths went is the slowest question of a
/// repository's first check.
pub(crate) fn find_repositories(
    folders: &[&Path],
    claims: Option<&ClaimChecker>,
    memo: &HistoryMemo,
) -> FoundRepositories {
    let mut finder = RepoFinder::remembering(memo.folder(), memo.started());
    let mut states: Vec<GitState> = folders.iter().map(|_| GitState::Absent).collect();
    let mut repositories: BTreeMap<PathBuf, Vec<(usize, GitRepo)>> = BTreeMap::new();
    for (i, folder) in folders.iter().enumerate() {
        match finder.find(folder) {
            Ok(None) => {}
            Ok(Some(repo)) => repositories
                .entry(repo.root().to_path_buf())
                .or_default()
                .push((i, repo)),
            Err(e) => states[i] = GitState::failed(&e),
        }
    }
    if let Some(claims) = claims {
        let first: Vec<&GitRepo> = repositories
            .values()
            .filter_map(|members| members.first().map(|(_, repo)| repo))
            .collect();
        claims.walk_ahead(&first);
    }
    FoundRepositories {
        states,
        repositories,
    }
}

/// Each repository's facts in one pass for all its projects (`projects` in the order
/// their folders were found); with `claims`, as [`gather_git_listing`].
pub(crate) fn gather_found(
    found: FoundRepositories,
    projects: &[(&Project, &[Bank])],
    claims: Option<&ClaimChecker>,
    memo: &HistoryMemo,
) -> Vec<GitState> {
    let FoundRepositories {
        mut states,
        repositories,
    } = found;
    for members in repositories.into_values() {
        let files: Vec<Vec<PathBuf>> = members
            .iter()
            .map(|(i, _)| git_files(projects[*i].1))
            .collect();
        let requests: Vec<(&GitRepo, Vec<&Path>)> = members
            .iter()
            .zip(&files)
            .map(|((_, repo), files)| (repo, files.iter().map(PathBuf::as_path).collect()))
            .collect();
        let mut names = Vec::new();
        let gathered = git::gather_facts(&requests, claims.map(|_| &mut names), memo);
        drop(requests);
        if let (Some(claims), Ok(_), Some((_, repo))) = (claims, &gathered, members.first()) {
            claims.listed(repo, names);
        }
        match gathered {
            Ok(all) => {
                for ((i, repo), facts) in members.into_iter().zip(all) {
                    states[i] = GitState::Ready(Box::new(GitFacts { repo, facts }));
                }
            }
            Err(e) => {
                for (i, _) in members {
                    states[i] = GitState::failed(&e);
                }
            }
        }
    }
    states
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_round_trip_both_sides_of_the_epoch() {
        for s in [0_i64, 1, 1_700_000_000, -86_400] {
            assert_eq!(seconds(from_seconds(s)), s);
        }
    }

    #[test]
    fn a_project_is_surely_outside_only_when_listed_and_no_git_entry_is_at_or_above_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for folder in ["repo/.git", "repo/inner", "plain/p", "unlisted"] {
            std::fs::create_dir_all(root.join(folder)).unwrap();
        }
        let listings = Listings::in_memory();
        for folder in ["", "repo", "repo/inner", "plain", "plain/p"] {
            listings.list(&root.join(folder)).unwrap();
        }
        let mut stamps = RepoStamps::new();
        assert!(!stamps.surely_outside(&root.join("repo"), &listings));
        assert!(!stamps.surely_outside(&root.join("repo/inner"), &listings));
        // Never listed in this run: left to the repository finder.
        assert!(!stamps.surely_outside(&root.join("unlisted"), &listings));
        // Outside unless the temp folder itself sits in a repository.
        let mut finder = crate::git::RepoFinder::new();
        let plain = root.join("plain/p");
        let outside = std::process::Command::new("git")
            .args(["-C", root.to_str().unwrap(), "rev-parse"])
            .output()
            .is_ok_and(|o| !o.status.success());
        if outside {
            assert!(stamps.surely_outside(&plain, &listings));
            assert!(finder.find(&plain).unwrap().is_none());
        }
    }

    #[test]
    fn a_folder_without_git_above_it_has_no_stamp_and_asks_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("p");
        std::fs::create_dir_all(&project).unwrap();
        let listings = Listings::in_memory();
        let mut stamps = RepoStamps::new();
        // The temp folder may sit inside a repository on a developer's machine; only
        // assert when it does not.
        if std::process::Command::new("git")
            .args(["-C", dir.path().to_str().unwrap(), "rev-parse"])
            .output()
            .is_ok_and(|o| !o.status.success())
        {
            assert_eq!(stamps.place(&project, &[], &listings), RepoPlace::Outside);
        }
    }

    #[test]
    fn the_stamp_moves_with_head_the_index_and_the_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let git = root.join(".git");
        std::fs::create_dir_all(git.join("refs/heads")).unwrap();
        std::fs::write(git.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(git.join("refs/heads/main"), "a".repeat(40)).unwrap();
        let first = repo_stamp(root).unwrap();
        assert_eq!(repo_stamp(root), Some(first), "unchanged state, same stamp");
        std::fs::write(git.join("refs/heads/main"), "b".repeat(41)).unwrap();
        let second = repo_stamp(root).unwrap();
        assert_ne!(first, second, "a new commit on the branch");
        std::fs::write(git.join("index"), "DIRC").unwrap();
        assert_ne!(repo_stamp(root), Some(second), "the index changed");
        std::fs::write(git.join("HEAD"), "ref: ../../outside\n").unwrap();
        assert_eq!(repo_stamp(root), None, "a ref name leading out is not read");
    }
}

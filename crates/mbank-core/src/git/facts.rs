//! What git says about a set of files (history, tracking, changes since HEAD), gathered
//! in one pass per repository.
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::path::Path;
use std::time::{Duration, SystemTime};

use super::blob_id::ObjectFormat;
use super::command::{Flow, os};
use super::line::Line;
use super::memo::{HistoryMemo, HistoryWalk, Walk, names_digest};
use super::repo::GitRepo;
use super::specs::specs_for;
use super::types::{
    Facts, FileCommit, FileHistory, FolderCommits, IndexEntries, IndexEntry, NamedHistory,
    TreeBlobs,
};
use crate::cache_store::Raw;
use crate::error::{CoreError, Result};

impl GitRepo {
    /// For every file in `files` (paths under `base`) that HEAD's tree holds: when it was
    /// last committed and how many commits followed, plus the repository's newest commit,
    /// from one `git log` of HEAD's history printing only these files' names, stopped
    /// once every one of them has been met.
    pub fn history(&self, files: &[&Path]) -> Result<FileHistory> {
        let named = self.named(files);
        let names: Vec<&[u8]> = named.iter().map(|(name, _)| name.as_slice()).collect();
        let folders = self.folder_asked();
        let history = history_by_name(self, &names, &folders, &HistoryMemo::off())?;
        Ok(spread_history(&history, &named, self.prefix.as_bytes()))
    }

    /// The folder this view's questions are about, when it is below the repository's
    /// top: its commits are the ones that count for its files.
    fn folder_asked(&self) -> Vec<&[u8]> {
        (!self.prefix.is_empty())
            .then_some(self.prefix.as_bytes())
            .into_iter()
            .collect()
    }
}

/// History of root-relative `names` (see [`GitRepo::history`]), keyed by name, with the
/// commits that changed each of `folders` (root-relative, `/`-ended): read back from
/// `memo` when HEAD is where it was when the same names were walked, or carried forward
/// from there over the commits since.
pub(super) fn history_by_name(
    repo: &GitRepo,
    names: &[&[u8]],
    folders: &[&[u8]],
    memo: &HistoryMemo,
) -> Result<NamedHistory> {
    history_and_tree(repo, names, folders, memo).map(|(history, _)| history)
}

/// [`history_by_name`], with the entries of `names` in the tree of the commit walked
/// from (files and links, by name) when known: the walk reads that tree to know where to
/// stop, and a walk carried forward over new commits carries it forward with them.
fn history_and_tree(
    repo: &GitRepo,
    names: &[&[u8]],
    folders: &[&[u8]],
    memo: &HistoryMemo,
) -> Result<(NamedHistory, Option<TreeBlobs>)> {
    let walker = FilesWalk {
        repo,
        names,
        folders,
        failure: RefCell::new(None),
    };
    match memo.answer(repo, &walker) {
        Some(mut history) => {
            let tree = history.tree.take();
            Ok((history, tree))
        }
        None => Err(walker.failure.take().unwrap_or_else(|| {
            CoreError::Git(format!(
                "git log gave no history in {}",
                repo.root.display()
            ))
        })),
    }
}

/// The walk behind [`history_by_name`], keeping git's error for its caller.
struct FilesWalk<'a> {
    repo: &'a GitRepo,
    names: &'a [&'a [u8]],
    folders: &'a [&'a [u8]],
    failure: RefCell<Option<CoreError>>,
}

impl FilesWalk<'_> {
    fn walked(&self, range: &str, until: Option<&HashSet<Vec<u8>>>) -> Option<NamedHistory> {
        walk_history(self.repo, self.names, self.folders, range, until)
            .map_err(|e| *self.failure.borrow_mut() = Some(e))
            .ok()
    }
}

impl HistoryWalk for FilesWalk<'_> {
    type Answer = NamedHistory;

    fn walk(&self) -> Walk {
        // No name holds a NUL: it parts the names from the folders.
        let asked: Vec<&[u8]> = self
            .names
            .iter()
            .copied()
            .chain([b"\0".as_slice()])
            .chain(self.folders.iter().copied())
            .collect();
        Walk::FileHistory {
            names: names_digest(&asked),
        }
    }

    fn encode(history: &NamedHistory) -> Option<Vec<u8>> {
        encode_history(history)
    }

    fn decode(bytes: &[u8]) -> Option<NamedHistory> {
        decode_history(bytes)
    }

    /// The walk from `tip` down to the oldest last change of a name `tip`'s tree holds.
    fn ask(&self, tip: &str) -> Option<NamedHistory> {
        let (until, tree) = names_in_tree(self.repo, self.names, tip).unzip();
        let mut history = self.walked(tip, until.as_ref())?;
        history.tree = tree;
        Some(history)
    }

    /// The new commits' walk, then the earlier one with every position moved down by
    /// as many commits.
    fn extend(&self, earlier: NamedHistory, line: &Line) -> Option<NamedHistory> {
        let newer = history_of_line(self.names, self.folders, line)?;
        let tree = earlier.tree.map(|tree| tree_after(tree, self.names, line));
        let mut files = newer.files;
        for (name, commit) in earlier.files {
            files.entry(name).or_insert(FileCommit {
                time: commit.time,
                commits_since: commit.commits_since.checked_add(newer.commits)?,
            });
        }
        let mut folders = newer.folders;
        for (folder, earlier) in earlier.folders {
            let commits = folders.entry(folder).or_default();
            for position in earlier.positions {
                commits.positions.push(position.checked_add(newer.commits)?);
            }
            commits.latest = commits.latest.max(earlier.latest);
        }
        Some(NamedHistory {
            latest: newer.latest.max(earlier.latest),
            commits: earlier.commits.checked_add(newer.commits)?,
            files,
            tree,
            folders,
        })
    }
}

/// `tree`, the entries of `names` in the tree of the commit `line` starts from, as the
/// commits of `line` left them.
fn tree_after(mut tree: TreeBlobs, names: &[&[u8]], line: &Line) -> TreeBlobs {
    let wanted: HashSet<&[u8]> = names.iter().copied().collect();
    // Oldest first: each change applies over the ones before it.
    for commit in line.commits.iter().rev() {
        for change in &commit.changes {
            if !wanted.contains(change.path.as_slice()) {
                continue;
            }
            match change.status {
                b'D' => {
                    tree.remove(&change.path);
                }
                // A submodule is no file: not among a tree's files and links.
                _ if change.mode == "160000" => {
                    tree.remove(&change.path);
                }
                _ => {
                    tree.insert(
                        change.path.clone(),
                        IndexEntry {
                            mode: change.mode.clone(),
                            sha: change.object.clone(),
                        },
                    );
                }
            }
        }
    }
    tree
}

/// The walk of [`walk_history`] over the commits of `line` alone: each of `names` with
/// the newest of them that changed it, and the commits that changed each of `folders`.
fn history_of_line(names: &[&[u8]], folders: &[&[u8]], line: &Line) -> Option<NamedHistory> {
    let wanted: HashSet<&[u8]> = names.iter().copied().collect();
    let mut history = NamedHistory {
        commits: u32::try_from(line.commits.len()).ok()?,
        folders: folders_asked(folders),
        ..NamedHistory::default()
    };
    for (position, commit) in line.commits.iter().enumerate() {
        history.latest = Some(history.latest.map_or(commit.time, |t| t.max(commit.time)));
        for change in &commit.changes {
            let name = &change.path;
            count_in_folders(
                &mut history.folders,
                name,
                u32::try_from(position).ok()?,
                commit.time,
            );
            if wanted.contains(name.as_slice()) && !history.files.contains_key(name) {
                history.files.insert(
                    name.clone(),
                    FileCommit {
                        time: commit.time,
                        commits_since: u32::try_from(position).ok()?,
                    },
                );
            }
        }
    }
    Some(history)
}

/// An empty count of commits for each of `folders`.
fn folders_asked(folders: &[&[u8]]) -> HashMap<Vec<u8>, FolderCommits> {
    folders
        .iter()
        .map(|folder| (folder.to_vec(), FolderCommits::default()))
        .collect()
}

/// Counts the commit at `position` for every folder asked about that holds `name`.
fn count_in_folders(
    folders: &mut HashMap<Vec<u8>, FolderCommits>,
    name: &[u8],
    position: u32,
    time: SystemTime,
) {
    if folders.is_empty() {
        return;
    }
    for (at, byte) in name.iter().enumerate() {
        if *byte == b'/'
            && let Some(commits) = folders.get_mut(&name[..=at])
        {
            commits.count(position, time);
        }
    }
}

/// The stored form of a [`NamedHistory`]: times in whole seconds (as `%ct` gives them),
/// the tree's entries as (name, mode, id), and each folder's commits as (folder,
/// positions, newest time).
type StoredHistory<'a> = (
    Option<u64>,
    u32,
    Vec<(Raw<'a>, u64, u32)>,
    Option<Vec<(Raw<'a>, &'a str, &'a str)>>,
    Vec<(Raw<'a>, Vec<u32>, Option<u64>)>,
);

fn seconds_of(time: SystemTime) -> Option<u64> {
    time.duration_since(SystemTime::UNIX_EPOCH)
        .ok()
        .map(|d| d.as_secs())
}

fn encode_history(history: &NamedHistory) -> Option<Vec<u8>> {
    let latest = match history.latest {
        Some(time) => Some(seconds_of(time)?),
        None => None,
    };
    let mut files = Vec::with_capacity(history.files.len());
    for (name, commit) in &history.files {
        files.push((Raw(name), seconds_of(commit.time)?, commit.commits_since));
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    let tree = history.tree.as_ref().map(|tree| {
        let mut entries: Vec<(Raw<'_>, &str, &str)> = tree
            .iter()
            .map(|(name, entry)| (Raw(name), entry.mode.as_str(), entry.sha.as_str()))
            .collect();
        entries.sort_unstable();
        entries
    });
    let mut folders = Vec::with_capacity(history.folders.len());
    for (folder, commits) in &history.folders {
        let latest = match commits.latest {
            Some(time) => Some(seconds_of(time)?),
            None => None,
        };
        folders.push((Raw(folder), commits.positions.clone(), latest));
    }
    folders.sort_by(|a, b| a.0.cmp(&b.0));
    let stored: StoredHistory<'_> = (latest, history.commits, files, tree, folders);
    crate::cache_store::encode(&stored)
}

fn decode_history(bytes: &[u8]) -> Option<NamedHistory> {
    let (latest, commits, files, tree, folders): StoredHistory<'_> =
        crate::cache_store::decode(bytes)?;
    let time = |seconds: u64| SystemTime::UNIX_EPOCH + Duration::from_secs(seconds);
    Some(NamedHistory {
        latest: latest.map(time),
        commits,
        files: files
            .into_iter()
            .map(|(name, seconds, commits_since)| {
                (
                    name.0.to_vec(),
                    FileCommit {
                        time: time(seconds),
                        commits_since,
                    },
                )
            })
            .collect(),
        tree: tree.map(|entries| {
            entries
                .into_iter()
                .map(|(name, mode, sha)| {
                    let entry = IndexEntry {
                        mode: mode.to_string(),
                        sha: sha.to_string(),
                    };
                    (name.0.to_vec(), entry)
                })
                .collect()
        }),
        folders: folders
            .into_iter()
            .map(|(folder, positions, latest)| {
                let commits = FolderCommits {
                    positions,
                    latest: latest.map(time),
                };
                (folder.0.to_vec(), commits)
            })
            .collect(),
    })
}

/// [`history_by_name`] from git, of the commits of `range` (a commit and its history, or
/// `base..tip`). With `until` (the names the tip's tree holds, each last changed by some
/// commit of the walk), git is stopped once every one of them has been met: positions
/// count from the top, so what was found stands, only those names are kept, and
/// `commits` counts the commits walked. A memory file changed a hundred commits ago
/// then costs a hundred commits, not the repository's whole history.
fn walk_history(
    repo: &GitRepo,
    names: &[&[u8]],
    folders: &[&[u8]],
    range: &str,
    until: Option<&HashSet<Vec<u8>>>,
) -> Result<NamedHistory> {
    // A folder asked about is asked of git whole (every file it holds is printed), and
    // covers the names inside it.
    let outside: Vec<&[u8]> = names
        .iter()
        .copied()
        .filter(|name| !folders.iter().any(|folder| name.starts_with(folder)))
        .chain(
            folders
                .iter()
                .map(|folder| folder.strip_suffix(b"/").unwrap_or(folder)),
        )
        .collect();
    let specs = specs_for(&outside);
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
        // A merge shows the names it changed against every parent (a conflict resolved,
        // a file added in the merge itself): without, a file last changed that way is
        // never met, and is dated by its time on disk.
        "-c",
        "-z",
        range,
        "--",
    ]);
    if specs.is_empty() {
        // Still walk every commit for the totals, printing no names.
        args.push(OsString::from(".git/mbank-no-such-file"));
    } else {
        args.extend(specs);
    }
    let mut reader = HistoryReader {
        wanted: names.iter().copied().collect(),
        until,
        carry: Vec::new(),
        history: NamedHistory {
            folders: folders_asked(folders),
            ..NamedHistory::default()
        },
        current: None,
        met: 0,
    };
    let out = repo.stream_root(&args, |piece| reader.take(piece))?;
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
    reader.finish();
    Ok(reader.history)
}

/// Reads the `git log` of [`walk_history`] as git writes it: records separated by NUL,
/// a commit's being `\x01` and its committer time, the others the names it changed.
struct HistoryReader<'a> {
    wanted: HashSet<&'a [u8]>,
    until: Option<&'a HashSet<Vec<u8>>>,
    /// The start of a record whose end has not come yet.
    carry: Vec<u8>,
    history: NamedHistory,
    /// The commit being read: its position and time.
    current: Option<(u32, SystemTime)>,
    /// Names of `until` met so far.
    met: usize,
}

impl HistoryReader<'_> {
    fn take(&mut self, piece: &[u8]) -> Flow {
        let mut rest = piece;
        while let Some(end) = rest.iter().position(|b| *b == 0) {
            let flow = if self.carry.is_empty() {
                self.record(&rest[..end])
            } else {
                let mut record = std::mem::take(&mut self.carry);
                record.extend_from_slice(&rest[..end]);
                self.record(&record)
            };
            rest = &rest[end + 1..];
            if flow == Flow::Enough {
                return Flow::Enough;
            }
        }
        self.carry.extend_from_slice(rest);
        Flow::More
    }

    /// The last record, which git need not end with a NUL.
    fn finish(&mut self) {
        let record = std::mem::take(&mut self.carry);
        self.record(&record);
    }

    fn record(&mut self, record: &[u8]) -> Flow {
        let start = record.iter().take_while(|b| **b == b'\n').count();
        let record = &record[start..];
        if let Some(stamp) = record.strip_prefix(&[1u8]) {
            let seconds: u64 = std::str::from_utf8(stamp)
                .ok()
                .and_then(|s| s.trim().parse().ok())
                .unwrap_or(0);
            let time = SystemTime::UNIX_EPOCH + Duration::from_secs(seconds);
            self.current = Some((self.history.commits, time));
            self.history.commits = self.history.commits.saturating_add(1);
            self.history.latest = Some(self.history.latest.map_or(time, |t| t.max(time)));
        } else if let Some((index, time)) = self.current
            && !record.is_empty()
        {
            count_in_folders(&mut self.history.folders, record, index, time);
            if self.wanted.contains(record)
                && self.until.is_none_or(|until| until.contains(record))
                && !self.history.files.contains_key(record)
            {
                self.history.files.insert(
                    record.to_vec(),
                    FileCommit {
                        time,
                        commits_since: index,
                    },
                );
                self.met += 1;
            }
        }
        match self.until {
            Some(until) if self.history.commits > 0 && self.met >= until.len() => Flow::Enough,
            _ => Flow::More,
        }
    }
}

/// Which of `names` the tree of `commit` holds, and their entries there that are files
/// or links (see [`GitRepo::tree_entries`]); `None` when git cannot tell.
fn names_in_tree(repo: &GitRepo, names: &[&[u8]], commit: &str) -> Option<TreeNames> {
    let specs = specs_for(names);
    if specs.is_empty() {
        return Some((HashSet::new(), HashMap::new()));
    }
    let (listed, mut blobs) = repo.tree_entries(commit, &specs).ok()?;
    let wanted: HashSet<&[u8]> = names.iter().copied().collect();
    blobs.retain(|name, _| wanted.contains(name.as_slice()));
    let held = listed
        .into_iter()
        .filter(|name| wanted.contains(name.as_slice()))
        .collect();
    Some((held, blobs))
}

/// The names a tree holds, and the entries among them that are files or links.
type TreeNames = (HashSet<Vec<u8>>, TreeBlobs);

/// The history of the files `named`, asked about from `folder` (root-relative,
/// `/`-ended, empty at the repository's top): below the top, the commits that count are
/// the ones that changed the folder (a project of a monorepo is not behind for commits
/// to the others).
pub(super) fn spread_history(
    history: &NamedHistory,
    named: &[(Vec<u8>, &Path)],
    folder: &[u8],
) -> FileHistory {
    let own = history
        .folders
        .get(folder)
        .filter(|commits| !commits.positions.is_empty());
    FileHistory {
        latest_commit: own.map_or(history.latest, |commits| commits.latest),
        commits_walked: history.commits,
        files: named
            .iter()
            .filter_map(|(name, path)| {
                let mut commit = *history.files.get(name)?;
                if let Some(own) = own {
                    commit.commits_since = own.newer_than(commit.commits_since);
                }
                Some((path.to_path_buf(), commit))
            })
            .collect(),
    }
}

/// What the index says of the wanted files, and the blob each tracked one holds in the
/// work tree (`None`: unreadable).
struct Indexed<'a> {
    index: HashMap<Vec<u8>, IndexEntry>,
    unmerged: HashSet<Vec<u8>>,
    blobs: HashMap<&'a [u8], Option<String>>,
}

/// The index's entries for `wanted` (from one listing of the whole index when
/// `whole_index` asks for its names too), then the work tree's blob of each tracked file,
/// hashed once through the first path that names it.
fn index_and_blobs<'a>(
    repo: &GitRepo,
    named: &'a [Vec<(Vec<u8>, &Path)>],
    wanted: &HashSet<&[u8]>,
    specs: &[OsString],
    whole_index: Option<&mut Vec<Vec<u8>>>,
) -> Result<Indexed<'a>> {
    let mut listed = IndexEntries::default();
    let listed_whole = whole_index.is_some();
    if let Some(names) = whole_index {
        // Only the requested files' entries are kept: a repository's may be thousands.
        listed = repo.list_index(&[], Some(names), Some(wanted))?;
    }
    if !specs.is_empty() && !listed_whole {
        listed = repo.index_entries(specs)?;
    }
    let IndexEntries {
        entries: mut index,
        unmerged,
    } = listed;
    index.retain(|name, entry| wanted.contains(name.as_slice()) && !entry.is_gitlink());
    let mut to_hash: Vec<(&[u8], &Path)> = Vec::new();
    let mut seen: HashSet<&[u8]> = HashSet::new();
    for (name, path) in named.iter().flatten() {
        if index.contains_key(name) && seen.insert(name.as_slice()) {
            to_hash.push((name.as_slice(), path));
        }
    }
    let paths: Vec<&Path> = to_hash.iter().map(|(_, p)| *p).collect();
    let blobs = match index
        .values()
        .find_map(|entry| ObjectFormat::of_id(&entry.sha))
    {
        Some(format) => to_hash
            .iter()
            .map(|(n, _)| *n)
            .zip(repo.worktree_blobs(&paths, format))
            .collect(),
        // Ids of no format this knows: every file counts as changed.
        None => HashMap::new(),
    };
    Ok(Indexed {
        index,
        unmerged,
        blobs,
    })
}

/// Git facts for the files of several folders of one repository (views sharing one
/// root, e.g. the projects of a monorepo), in one pass: one `git log`, one `ls-files`,
/// one `ls-tree`, and the blob ids of the tracked files, however many folders.
/// The answer has one [`Facts`] per request, keyed by that request's paths. With
/// `whole_index`, the one `ls-files` lists the whole index and pushes every name there
/// (see [`GitRepo::list_index`]), for a caller that needs the repository's file list too.
pub(crate) fn gather_facts(
    requests: &[(&GitRepo, Vec<&Path>)],
    whole_index: Option<&mut Vec<Vec<u8>>>,
    memo: &HistoryMemo,
) -> Result<Vec<Facts>> {
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
    let specs = specs_for(&names);
    let mut folders: Vec<&[u8]> = requests
        .iter()
        .map(|(view, _)| view.prefix.as_bytes())
        .filter(|prefix| !prefix.is_empty())
        .collect();
    folders.sort();
    folders.dedup();
    // The history walk is the slow question, and what the index holds and the work
    // tree's blobs do not depend on it: git answers them meanwhile. Its error still
    // comes first, as when the walk ran before them.
    let (history, indexed) = std::thread::scope(|scope| {
        let walk = scope.spawn(|| history_and_tree(repo, &names, &folders, memo));
        let indexed = index_and_blobs(repo, &named, &wanted, &specs, whole_index);
        let history = walk
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (history, indexed)
    });
    let (history, tree) = history?;
    let Indexed {
        index,
        unmerged,
        blobs,
    } = indexed?;
    let mut head = HashMap::new();
    if !specs.is_empty() && history.latest.is_some() {
        // The walk from HEAD read HEAD's tree already, unless history was remembered.
        head = match tree {
            Some(tree) => tree,
            None => repo.head_entries(&specs)?,
        };
        head.retain(|name, _| wanted.contains(name.as_slice()));
    }
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
        .zip(requests)
        .map(|(files, (view, _))| {
            let mut facts = Facts {
                history: spread_history(&history, files, view.prefix.as_bytes()),
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
    use crate::git::test_repo::{commit_file, git, git_with};

    #[test]
    fn the_walk_ends_at_the_oldest_last_change_of_a_file_the_tree_holds() {
        let temp = tempfile::tempdir().expect("temp");
        let dir = temp.path();
        git(dir, &["init", "-q"]);
        commit_file(dir, "old.rs", "first");
        commit_file(dir, "gone.md", "second");
        commit_file(dir, "memory.md", "third");
        git(dir, &["rm", "-q", "gone.md"]);
        git(dir, &["commit", "-q", "-m", "fourth"]);
        for n in 0..20 {
            commit_file(dir, "code.rs", &format!("code {n}"));
        }
        commit_file(dir, "notes.md", "newest");
        let repo = GitRepo::discover(dir).expect("a repository");
        let names: [&[u8]; 4] = [b"gone.md", b"memory.md", b"never.md", b"notes.md"];
        let whole = walk_history(&repo, &names, &[], "HEAD", None).expect("whole");
        let (until, blobs) = names_in_tree(&repo, &names, "HEAD").expect("tree");
        assert_eq!(
            blobs.keys().collect::<HashSet<_>>(),
            until.iter().collect::<HashSet<_>>(),
            "both files are blobs of the tree"
        );
        assert_eq!(
            until,
            HashSet::from([b"memory.md".to_vec(), b"notes.md".to_vec()])
        );
        let stopped = walk_history(&repo, &names, &[], "HEAD", Some(&until)).expect("stopped");
        assert_eq!(whole.commits, 25);
        assert_eq!(
            stopped.commits, 23,
            "down to memory.md's commit, not the root"
        );
        assert_eq!(stopped.latest, whole.latest);
        for name in [b"memory.md".as_slice(), b"notes.md"] {
            assert_eq!(stopped.files.get(name), whole.files.get(name));
        }
        assert_eq!(stopped.files[b"memory.md".as_slice()].commits_since, 22);
        assert!(whole.files.contains_key(b"gone.md".as_slice()));
        assert!(
            !stopped.files.contains_key(b"gone.md".as_slice()),
            "only names the tree holds are kept"
        );
        // No file of the tree asked about: HEAD's commit alone gives the newest time.
        let none = walk_history(&repo, &[b"never.md"], &[], "HEAD", Some(&HashSet::new()))
            .expect("no names");
        assert_eq!((none.commits, none.latest), (1, whole.latest));
        // The public answer is the stopped walk's.
        let history = repo
            .history(&[&dir.join("memory.md"), &dir.join("gone.md")])
            .expect("history");
        assert_eq!(history.commits_walked, 23);
        assert!(history.of(&dir.join("gone.md")).is_none());
    }

    #[test]
    fn a_file_a_merge_itself_added_is_dated_by_that_merge() {
        let temp = tempfile::tempdir().expect("temp");
        let dir = temp.path();
        git(dir, &["init", "-q", "-b", "main"]);
        commit_file(dir, "notes.md", "first");
        git(dir, &["checkout", "-q", "-b", "side"]);
        commit_file(dir, "side.rs", "side");
        git(dir, &["checkout", "-q", "main"]);
        commit_file(dir, "main.rs", "main");
        // The merge adds a file neither parent holds, as a resolved conflict can.
        git(dir, &["merge", "-q", "--no-commit", "--no-ff", "side"]);
        std::fs::write(dir.join("architecture.md"), "added in the merge").expect("write");
        git(dir, &["add", "architecture.md"]);
        git(dir, &["commit", "-q", "--no-edit"]);
        commit_file(dir, "notes.md", "newest");
        let repo = GitRepo::discover(dir).expect("a repository");
        let names: [&[u8]; 2] = [b"architecture.md", b"notes.md"];
        let (until, _) = names_in_tree(&repo, &names, "HEAD").expect("tree");
        let history = walk_history(&repo, &names, &[], "HEAD", Some(&until)).expect("walk");
        let merged = history.files.get(b"architecture.md".as_slice());
        assert_eq!(merged.map(|c| c.commits_since), Some(1), "{history:?}");
        // Met, the walk stops at the merge rather than walking to the root.
        assert_eq!(history.commits, 2);
    }

    /// Writes `file` in `dir` and commits everything, dated `seconds` after the epoch.
    fn commit_at(dir: &Path, file: &str, seconds: u64) {
        let path = dir.join(file);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("mkdir");
        std::fs::write(&path, format!("{file} at {seconds}")).expect("write");
        git(dir, &["add", "-A"]);
        let date = format!("@{seconds} +0000");
        let dates = [
            ("GIT_AUTHOR_DATE", date.as_str()),
            ("GIT_COMMITTER_DATE", &date),
        ];
        git_with(dir, &["commit", "-q", "-m", file], &dates);
    }

    #[test]
    fn a_project_below_the_top_counts_only_the_commits_that_changed_its_folder() {
        let temp = tempfile::tempdir().expect("temp");
        let (dir, cache) = (temp.path().join("repo"), temp.path().join("cache"));
        std::fs::create_dir_all(&dir).expect("mkdir");
        git(&dir, &["init", "-q"]);
        commit_at(&dir, "app/memory-bank/progress.md", 1_000);
        commit_at(&dir, "other/a.rs", 2_000);
        commit_at(&dir, "other/b.rs", 3_000);
        commit_at(&dir, "app/src/main.rs", 4_000);
        commit_at(&dir, "other/c.rs", 5_000);
        let top = GitRepo::discover(&dir).expect("a repository");
        let app = GitRepo::discover(&dir.join("app")).expect("a repository");
        let progress = dir.join("app/memory-bank/progress.md");
        let at = |seconds| Some(SystemTime::UNIX_EPOCH + Duration::from_secs(seconds));
        let since = |facts: &Facts| facts.history.of(&progress).map(|c| c.commits_since);
        let memo = || HistoryMemo::in_folder(&cache, 0);
        let asked = [
            (&top, vec![progress.as_path()]),
            (&app, vec![progress.as_path()]),
        ];
        let facts = gather_facts(&asked, None, &memo()).expect("facts");
        // From the top, every commit counts; from the project, the one to its code.
        assert_eq!(since(&facts[0]), Some(4));
        assert_eq!(facts[0].history.latest_commit, at(5_000));
        assert_eq!(since(&facts[1]), Some(1));
        assert_eq!(facts[1].history.latest_commit, at(4_000));
        // Carried forward over new commits, as a walk afresh counts them.
        commit_at(&dir, "other/d.rs", 6_000);
        commit_at(&dir, "app/src/lib.rs", 7_000);
        commit_at(&dir, "other/e.rs", 8_000);
        let carried = gather_facts(&asked, None, &memo()).expect("carried");
        let fresh = gather_facts(&asked, None, &HistoryMemo::off()).expect("fresh");
        for (carried, fresh) in carried.iter().zip(&fresh) {
            assert_eq!(carried.history, fresh.history);
        }
        assert_eq!(since(&carried[1]), Some(2));
        assert_eq!(carried[1].history.latest_commit, at(7_000));
        assert_eq!(since(&carried[0]), Some(7));
        // The project asked alone is the same answer.
        let alone = app.history(&[progress.as_path()]).expect("history");
        assert_eq!(alone, fresh[1].history);
    }

    #[test]
    fn a_file_is_changed_when_its_bytes_differ_from_the_index_in_either_object_format() {
        for format in ["sha1", "sha256"] {
            let temp = tempfile::tempdir().expect("temp");
            let dir = temp.path();
            git(dir, &["init", "-q", &format!("--object-format={format}")]);
            commit_file(dir, "kept.md", "# Kept\n");
            commit_file(dir, "edited.md", "# Edited\n");
            #[cfg(unix)]
            std::os::unix::fs::symlink("kept.md", dir.join("link.md")).expect("link");
            git(dir, &["add", "-A"]);
            git(dir, &["commit", "-q", "-m", "link"]);
            std::fs::write(dir.join("edited.md"), "# Edited\nsince\n").expect("write");
            let repo = GitRepo::discover(dir).expect("a repository");
            let files = [
                dir.join("kept.md"),
                dir.join("edited.md"),
                dir.join("link.md"),
            ];
            let paths: Vec<&Path> = files.iter().map(std::path::PathBuf::as_path).collect();
            let facts = gather_facts(&[(&repo, paths)], None, &HistoryMemo::off())
                .expect("facts")
                .remove(0);
            assert!(facts.is_clean(&files[0]), "{format}: unchanged");
            assert!(
                !facts.is_clean(&files[1]),
                "{format}: edited since the commit"
            );
            if cfg!(unix) {
                assert!(facts.is_clean(&files[2]), "{format}: an unchanged link");
            }
        }
    }

    #[test]
    fn head_s_entries_carried_forward_over_new_commits_are_the_tree_s() {
        let temp = tempfile::tempdir().expect("temp");
        let (dir, cache) = (temp.path().join("repo"), temp.path().join("cache"));
        std::fs::create_dir_all(&dir).expect("mkdir");
        git(&dir, &["init", "-q"]);
        commit_file(&dir, "edited.md", "one");
        commit_file(&dir, "removed.md", "two");
        commit_file(&dir, "run.md", "three");
        commit_file(&dir, "kept.md", "four");
        let repo = GitRepo::discover(&dir).expect("a repository");
        let names: [&[u8]; 6] = [
            b"edited.md",
            b"removed.md",
            b"run.md",
            b"kept.md",
            b"added.md",
            b"link.md",
        ];
        let memo = || HistoryMemo::in_folder(&cache, 0);
        let (_, first) = history_and_tree(&repo, &names, &[], &memo()).expect("first walk");
        assert_eq!(
            first.map(|tree| tree.len()),
            Some(4),
            "the walk read HEAD's tree"
        );
        commit_file(&dir, "edited.md", "one, edited");
        git(&dir, &["rm", "-q", "removed.md"]);
        git(&dir, &["commit", "-q", "-m", "remove"]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let run = dir.join("run.md");
            std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o755)).expect("chmod");
            std::os::unix::fs::symlink("kept.md", dir.join("link.md")).expect("link");
        }
        commit_file(&dir, "added.md", "five");
        let (_, carried) = history_and_tree(&repo, &names, &[], &memo()).expect("carried");
        let specs = specs_for(&names);
        let (_, mut listed) = repo.tree_entries("HEAD", &specs).expect("ls-tree");
        let wanted: HashSet<&[u8]> = names.iter().copied().collect();
        listed.retain(|name, _| wanted.contains(name.as_slice()));
        assert_eq!(carried, Some(listed));
    }

    #[test]
    fn records_split_anywhere_by_the_pipe_read_the_same() {
        // As git writes it: a NUL, the commit's record, a NUL, then a newline and its names.
        let output = b"\0\x011700000300\0\nb.md\0a.md\0\0\x011700000200\0\na.md\0\0\x011700000100\0\0\x011700000050\0\nc.md";
        let names: [&[u8]; 3] = [b"a.md", b"b.md", b"c.md"];
        let read = |split: usize| {
            let mut reader = HistoryReader {
                wanted: names.iter().copied().collect(),
                until: None,
                carry: Vec::new(),
                history: NamedHistory::default(),
                current: None,
                met: 0,
            };
            for piece in output.chunks(split) {
                assert_eq!(reader.take(piece), Flow::More);
            }
            reader.finish();
            reader.history
        };
        let whole = read(output.len());
        assert_eq!(whole.commits, 4);
        assert_eq!(whole.files[b"a.md".as_slice()].commits_since, 0);
        assert_eq!(whole.files[b"c.md".as_slice()].commits_since, 3);
        for split in 1..output.len() {
            let pieces = read(split);
            assert_eq!(
                (pieces.commits, pieces.latest, &pieces.files),
                (whole.commits, whole.latest, &whole.files),
                "pieces of {split} bytes"
            );
        }
    }
}

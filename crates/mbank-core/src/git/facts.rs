//! What git says about a set of files (history, tracking, changes since HEAD), gathered
//! in one pass per repository.
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::path::Path;
use std::time::{Duration, SystemTime};

use super::command::os;
use super::memo::{HistoryMemo, HistoryWalk, Walk, names_digest};
use super::repo::GitRepo;
use super::specs::specs_for;
use super::types::{Facts, FileCommit, FileHistory, IndexEntries, NamedHistory};
use crate::cache_store::Raw;
use crate::error::{CoreError, Result};

impl GitRepo {
    /// For every file in `files` (paths under `base`): when it was last committed and how
    /// many commits followed, plus the repository's newest commit — from one `git log`
    /// that lists every commit of HEAD's history with only these files' names.
    pub fn history(&self, files: &[&Path]) -> Result<FileHistory> {
        let named = self.named(files);
        let names: Vec<&[u8]> = named.iter().map(|(name, _)| name.as_slice()).collect();
        let history = history_by_name(self, &names, &HistoryMemo::off())?;
        Ok(spread_history(&history, &named))
    }
}

/// History of root-relative `names` (see [`GitRepo::history`]), keyed by name: read back
/// from `memo` when HEAD is where it was when the same names were walked, or carried
/// forward from there over the commits since.
pub(super) fn history_by_name(
    repo: &GitRepo,
    names: &[&[u8]],
    memo: &HistoryMemo,
) -> Result<NamedHistory> {
    let walker = FilesWalk {
        repo,
        names,
        failure: RefCell::new(None),
    };
    match memo.answer(repo, &walker) {
        Some(history) => Ok(history),
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
    failure: RefCell<Option<CoreError>>,
}

impl FilesWalk<'_> {
    fn walked(&self, range: &str) -> Option<NamedHistory> {
        walk_history(self.repo, self.names, range)
            .map_err(|e| *self.failure.borrow_mut() = Some(e))
            .ok()
    }
}

impl HistoryWalk for FilesWalk<'_> {
    type Answer = NamedHistory;

    fn walk(&self) -> Walk {
        Walk::FileHistory {
            names: names_digest(self.names),
        }
    }

    fn encode(history: &NamedHistory) -> Option<Vec<u8>> {
        encode_history(history)
    }

    fn decode(bytes: &[u8]) -> Option<NamedHistory> {
        decode_history(bytes)
    }

    fn ask(&self, tip: &str) -> Option<NamedHistory> {
        self.walked(tip)
    }

    /// The new commits' walk, then the earlier one with every position moved down by
    /// as many commits.
    fn extend(
        &self,
        earlier: NamedHistory,
        base: &str,
        tip: &str,
        commits: usize,
    ) -> Option<NamedHistory> {
        let newer = self.walked(&format!("{base}..{tip}"))?;
        if newer.commits as usize != commits {
            return None;
        }
        let mut files = newer.files;
        for (name, commit) in earlier.files {
            files.entry(name).or_insert(FileCommit {
                time: commit.time,
                commits_since: commit.commits_since.checked_add(newer.commits)?,
            });
        }
        Some(NamedHistory {
            latest: newer.latest.max(earlier.latest),
            commits: earlier.commits.checked_add(newer.commits)?,
            files,
        })
    }
}

/// The stored form of a [`NamedHistory`]: times in whole seconds (as `%ct` gives them).
type StoredHistory<'a> = (Option<u64>, u32, Vec<(Raw<'a>, u64, u32)>);

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
    let stored: StoredHistory<'_> = (latest, history.commits, files);
    crate::cache_store::encode(&stored)
}

fn decode_history(bytes: &[u8]) -> Option<NamedHistory> {
    let (latest, commits, files): StoredHistory<'_> = crate::cache_store::decode(bytes)?;
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
    })
}

/// [`history_by_name`] from git, of the commits of `range` (a commit and its history, or
/// `base..tip`).
fn walk_history(repo: &GitRepo, names: &[&[u8]], range: &str) -> Result<NamedHistory> {
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
        range,
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

pub(super) fn spread_history(history: &NamedHistory, named: &[(Vec<u8>, &Path)]) -> FileHistory {
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
    let history = history_by_name(repo, &names, memo)?;
    let specs = specs_for(&names);
    let mut listed = IndexEntries::default();
    let mut head = HashMap::new();
    let listed_whole = whole_index.is_some();
    if let Some(names) = whole_index {
        // Only the requested files' entries are kept: a repository's may be thousands.
        listed = repo.list_index(&[], Some(names), Some(&wanted))?;
    }
    if !specs.is_empty() {
        if !listed_whole {
            listed = repo.index_entries(&specs)?;
        }
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

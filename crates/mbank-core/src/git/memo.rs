//! What `git log` says of a repository's history, remembered between runs keyed by the
//! commit HEAD names. A walk from HEAD prints the same whatever the work tree and the
//! index hold, so a check after an edit or a `git add` reads the answer back instead of
//! walking thousands of commits again. New commits on top of a remembered HEAD, in a line,
//! are walked alone and the earlier answer carried forward; a merge, a rebase, a reset or
//! a deepened shallow clone asks git for the whole history. Kept in the cache store, one
//! file per repository holding its newest answers.
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;
use serde::{Deserialize, Serialize};

use super::command::os;
use super::line::{Line, line_between};
use super::repo::GitRepo;
use crate::cache_store::{self, Loaded, Raw, Section};
use crate::io::hash_index::{StableHasher, stable_hash};
use crate::io::reads;
use crate::io::text::{is_not_found, read_bytes_limited, read_text_limited};

/// Answers kept per repository: a few branches' worth, newest first.
const KEPT: usize = 8;
/// Largest shallow boundary read (a line per boundary commit); past it git walks every
/// time.
const SHALLOW_MAX_BYTES: u64 = 16 * 1024 * 1024;

/// A walk of the history behind a commit whose answer the memo keeps.
pub(crate) trait HistoryWalk {
    type Answer;
    /// Which walk this is, with its question.
    fn walk(&self) -> Walk;
    fn encode(answer: &Self::Answer) -> Option<Vec<u8>>;
    fn decode(bytes: &[u8]) -> Option<Self::Answer>;
    /// The answer of the whole history behind `tip` (a commit, or `HEAD`); `None` when
    /// git could not tell (nothing is remembered then).
    fn ask(&self, tip: &str) -> Option<Self::Answer>;
    /// The answer for `tip` from `earlier`, the answer for `base`, where `line` holds the
    /// commits from `tip` back to `base` (each the only parent of the one before), so
    /// its walk is those commits, newest first, then `base`'s walk.
    fn extend(&self, earlier: Self::Answer, line: &Line) -> Option<Self::Answer>;
}

/// The commits in a line from one commit to another, `None` when they are none.
type KnownLine = Option<Arc<Line>>;

/// Which walk an answer is of, and the question that shaped it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Walk {
    /// When each of some files was last committed (their names' digest).
    FileHistory { names: u64 },
    /// Paths renamed or removed in the newest `commits` commits doing either, and where.
    Removals { commits: usize },
}

impl Walk {
    fn tag(self) -> (u8, u64) {
        match self {
            // 1 was the walk that kept no entries of HEAD's tree, 4 the one that read no
            // merge's own changes.
            Walk::FileHistory { names } => (5, names),
            // 2 was the walk that worked out every rename as it went.
            Walk::Removals { commits } => (3, commits as u64),
        }
    }
}

/// Where history stands: HEAD's commit and the shallow boundary (a deepened clone shows
/// more history behind the same commit).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Head {
    commit: String,
    shallow: u64,
}

/// One remembered answer as the cache file keeps it.
#[derive(Serialize, Deserialize)]
struct Record<'a> {
    #[serde(borrow)]
    commit: &'a str,
    shallow: u64,
    walk: u8,
    question: u64,
    #[serde(borrow)]
    answer: Raw<'a>,
}

/// Answers of history walks, remembered in a cache folder (or nowhere).
#[derive(Debug, Default)]
pub struct HistoryMemo {
    folder: Option<PathBuf>,
    /// When the run began, in nanoseconds since the epoch: what changed within the racy
    /// window before it is not remembered by the answers kept beside these.
    started: i128,
    /// Each repository's HEAD, asked once per run (`None`: no commit, or git would not say).
    heads: Mutex<HashMap<PathBuf, Option<Head>>>,
    /// The commits in a line that led from one commit to another, asked once per run.
    lines: Mutex<HashMap<(String, String), KnownLine>>,
    /// Held while a repository's file is read and rewritten, so two walks finishing
    /// at once both keep their answers.
    saving: Mutex<()>,
}

impl HistoryMemo {
    /// Remembers nothing: every walk asks git.
    pub fn off() -> HistoryMemo {
        HistoryMemo::default()
    }

    /// Remembers in `folder` (mbank's cache folder), for a run that began at `started`
    /// (nanoseconds since the epoch, as the run's listings count it).
    pub fn in_folder(folder: &Path, started: i128) -> HistoryMemo {
        HistoryMemo {
            folder: Some(folder.to_path_buf()),
            started,
            ..HistoryMemo::default()
        }
    }

    /// The cache folder, where other answers about a repository are remembered too
    /// (what the search for a memory's names found in each file).
    pub(crate) fn folder(&self) -> Option<&Path> {
        self.folder.as_deref()
    }

    /// Whether this memo is kept in a folder and holds nothing yet for the repository
    /// at `root`: its first walk there will be of the whole history.
    pub(crate) fn is_new_to(&self, root: &Path) -> bool {
        self.file(root)
            .is_some_and(|file| std::fs::symlink_metadata(file).is_err())
    }

    pub(crate) fn started(&self) -> i128 {
        self.started
    }

    /// The answer of `walker` for `repo`'s history as it stands: remembered for HEAD's
    /// commit; else made from the answer remembered for an earlier commit when HEAD has
    /// only moved on from it in a line; else asked of git. Remembered when there is one.
    pub(crate) fn answer<W: HistoryWalk>(&self, repo: &GitRepo, walker: &W) -> Option<W::Answer> {
        let (Some(file), Some(head)) = (self.file(repo.root()), self.head(repo)) else {
            return walker.ask("HEAD");
        };
        let (tag, question) = walker.walk().tag();
        let scope = repo.root().as_os_str().as_encoded_bytes();
        let mut earlier: Option<(String, Vec<u8>)> = None;
        if let Some(loaded) = Loaded::read(&file, Section::History).filter(|l| l.scope() == scope) {
            let same_walk = loaded
                .records(0)
                .filter_map(cache_store::decode::<Record<'_>>)
                .filter(|r| r.walk == tag && r.question == question && r.shallow == head.shallow);
            for record in same_walk {
                if record.commit == head.commit {
                    if let Some(found) = W::decode(record.answer.0) {
                        return Some(found);
                    }
                } else if earlier.is_none() {
                    earlier = Some((record.commit.to_string(), record.answer.0.to_vec()));
                }
            }
        }
        let extended = earlier.and_then(|(base, bytes)| {
            let line = self.line(repo, &base, &head.commit)?;
            walker.extend(W::decode(&bytes)?, &line)
        });
        let answer = match extended {
            Some(answer) => answer,
            None => walker.ask(&head.commit)?,
        };
        if let Some(bytes) = W::encode(&answer) {
            self.keep(&file, scope, &head, tag, question, &bytes);
        }
        Some(answer)
    }

    fn file(&self, root: &Path) -> Option<PathBuf> {
        let folder = self.folder.as_ref()?;
        let root = root.as_os_str().as_encoded_bytes();
        Some(folder.join(format!("history-{:016x}.bin", stable_hash(root))))
    }

    fn line(&self, repo: &GitRepo, base: &str, tip: &str) -> Option<Arc<Line>> {
        self.lines
            .lock()
            .entry((base.to_string(), tip.to_string()))
            .or_insert_with(|| line_between(repo, base, tip).map(Arc::new))
            .clone()
    }

    fn head(&self, repo: &GitRepo) -> Option<Head> {
        self.heads
            .lock()
            .entry(repo.root().to_path_buf())
            .or_insert_with(|| head_from_files(repo.root()).or_else(|| read_head(repo)))
            .clone()
    }

    /// Puts a new answer first in the repository's file, keeping its newest others.
    fn keep(&self, file: &Path, scope: &[u8], head: &Head, tag: u8, question: u64, answer: &[u8]) {
        let _saving = self.saving.lock();
        let old = Loaded::read(file, Section::History).filter(|l| l.scope() == scope);
        let fresh = Record {
            commit: &head.commit,
            shallow: head.shallow,
            walk: tag,
            question,
            answer: Raw(answer),
        };
        let Some(fresh) = cache_store::encode(&fresh) else {
            return;
        };
        let mut records = vec![Raw(&fresh)];
        if let Some(old) = &old {
            records.extend(
                old.records(0)
                    .filter(|bytes| {
                        cache_store::decode::<Record<'_>>(bytes).is_some_and(|r| {
                            !(r.walk == tag && r.question == question && r.commit == head.commit)
                        })
                    })
                    .take(KEPT - 1)
                    .map(Raw),
            );
        }
        // A cache: failing to keep it costs the walk next time.
        let _ = cache_store::save(file, Section::History, scope, &[records]);
    }
}

/// HEAD's commit and the stamp of the shallow boundary read from the repository's files
/// in the common case (a `.git` folder, HEAD a loose branch ref or a commit), which saves
/// starting git for it; `None` for anything else (packed refs, a linked work tree, a
/// submodule), asked of git instead.
fn head_from_files(root: &Path) -> Option<Head> {
    let git_dir = root.join(".git");
    if !std::fs::symlink_metadata(&git_dir).ok()?.is_dir() {
        return None;
    }
    // Git's own files, read within a size cap (a pipe or a device in their place, even
    // behind a link, is refused), and not noted as inputs: the repository's stamp stands
    // for them.
    let small = |path: &Path| reads::unrecorded(|| read_text_limited(path, 4096).ok());
    let head = small(&git_dir.join("HEAD"))?;
    let commit = match head.trim().strip_prefix("ref:") {
        Some(name) => {
            let name = name.trim();
            // A ref name leads nowhere outside the repository.
            if !name.starts_with("refs/")
                || name
                    .split('/')
                    .any(|part| part.is_empty() || part == "." || part == "..")
            {
                return None;
            }
            small(&git_dir.join(name))?
        }
        None => head,
    };
    head_at(&commit, &git_dir.join("shallow"))
}

/// HEAD's commit and the stamp of the shallow boundary, from one `git rev-parse`.
fn read_head(repo: &GitRepo) -> Option<Head> {
    let out = repo
        .run_root(&os(&[
            "rev-parse",
            "--git-path",
            "shallow",
            "--verify",
            "-q",
            "HEAD",
        ]))
        .ok()?;
    if !out.success {
        return None;
    }
    let text = std::str::from_utf8(&out.stdout).ok()?;
    let mut lines = text.lines();
    let shallow_path = repo.root().join(lines.next()?);
    head_at(lines.next()?, &shallow_path)
}

/// The [`Head`] of `commit` (a full object id) with the shallow boundary in `shallow`.
fn head_at(commit: &str, shallow: &Path) -> Option<Head> {
    let commit = commit.trim();
    if !matches!(commit.len(), 40 | 64) || !commit.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let shallow = match reads::unrecorded(|| read_bytes_limited(shallow, SHALLOW_MAX_BYTES)) {
        Ok(bytes) => stable_hash(&bytes) | 1,
        Err(e) if is_not_found(&e) => 0,
        Err(_) => return None,
    };
    Some(Head {
        commit: commit.to_string(),
        shallow,
    })
}

/// The digest of a walk's names, in the order given.
pub(crate) fn names_digest(names: &[&[u8]]) -> u64 {
    let mut hasher = StableHasher::default();
    for name in names {
        hasher.write(&(name.len() as u64).to_le_bytes());
        hasher.write(name);
    }
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;
    use crate::git::test_repo::{commit_file, git};

    /// Counts the commits behind a tip, saying which way it found the answer.
    #[derive(Default)]
    struct Counting<'a> {
        repo: Option<&'a GitRepo>,
        asked: Cell<usize>,
        extended: Cell<usize>,
    }

    impl Counting<'_> {
        fn count(&self, range: &str) -> Option<u32> {
            let out = self
                .repo?
                .run_root(&os(&["rev-list", "--count", range]))
                .ok()?;
            std::str::from_utf8(&out.stdout).ok()?.trim().parse().ok()
        }

        fn calls(&self) -> (usize, usize) {
            (self.asked.take(), self.extended.take())
        }
    }

    impl HistoryWalk for Counting<'_> {
        type Answer = u32;

        fn walk(&self) -> Walk {
            Walk::FileHistory { names: 7 }
        }

        fn encode(answer: &u32) -> Option<Vec<u8>> {
            Some(answer.to_le_bytes().to_vec())
        }

        fn decode(bytes: &[u8]) -> Option<u32> {
            Some(u32::from_le_bytes(bytes.try_into().ok()?))
        }

        fn ask(&self, tip: &str) -> Option<u32> {
            self.asked.set(self.asked.get() + 1);
            self.count(tip)
        }

        fn extend(&self, earlier: u32, line: &Line) -> Option<u32> {
            self.extended.set(self.extended.get() + 1);
            let (tip, base) = (&line.commits.first()?.id, &line.commits.last()?.parent);
            let commits = line.commits.len() as u32;
            assert_eq!(self.count(&format!("{base}..{tip}")), Some(commits));
            Some(earlier + commits)
        }
    }

    #[test]
    fn a_walk_is_read_back_for_the_same_head_and_carried_forward_over_new_commits() {
        let temp = tempfile::tempdir().expect("temp");
        let (dir, cache) = (temp.path().join("repo"), temp.path().join("cache"));
        std::fs::create_dir_all(&dir).expect("mkdir");
        git(&dir, &["init", "-q"]);
        for n in 0..3 {
            commit_file(&dir, "a.txt", &format!("first {n}"));
        }
        let repo = GitRepo::discover(&dir).expect("a repository");
        let walker = Counting {
            repo: Some(&repo),
            ..Counting::default()
        };
        let answer = |memo: &HistoryMemo| memo.answer(&repo, &walker);

        assert_eq!(answer(&HistoryMemo::in_folder(&cache, 0)), Some(3));
        assert_eq!(walker.calls(), (1, 0), "nothing remembered yet: git walks");
        assert_eq!(answer(&HistoryMemo::in_folder(&cache, 0)), Some(3));
        assert_eq!(walker.calls(), (0, 0), "the same HEAD: read back");

        commit_file(&dir, "a.txt", "second");
        commit_file(&dir, "b.txt", "third");
        assert_eq!(answer(&HistoryMemo::in_folder(&cache, 0)), Some(5));
        assert_eq!(walker.calls(), (0, 1), "two commits on: carried forward");

        // Back two commits and on another way: not a line from any remembered head.
        git(&dir, &["reset", "-q", "--hard", "HEAD~3"]);
        commit_file(&dir, "c.txt", "elsewhere");
        assert_eq!(answer(&HistoryMemo::in_folder(&cache, 0)), Some(3));
        assert_eq!(walker.calls(), (1, 0), "a reset: walked again");

        // A merge is not a line either.
        git(&dir, &["checkout", "-q", "-b", "side", "HEAD~1"]);
        commit_file(&dir, "d.txt", "side");
        git(&dir, &["checkout", "-q", "-"]);
        git(&dir, &["merge", "-q", "--no-edit", "side"]);
        assert_eq!(answer(&HistoryMemo::in_folder(&cache, 0)), Some(5));
        assert_eq!(walker.calls(), (1, 0), "a merge: walked again");

        assert_eq!(answer(&HistoryMemo::off()), Some(5));
        assert_eq!(walker.calls(), (1, 0), "a memo that is off asks every time");
    }

    #[test]
    fn head_read_from_files_is_what_git_says_or_nothing() {
        let temp = tempfile::tempdir().expect("temp");
        let dir = temp.path().join("repo");
        std::fs::create_dir_all(&dir).expect("mkdir");
        git(&dir, &["init", "-q"]);
        commit_file(&dir, "a.txt", "one");
        let repo = GitRepo::discover(&dir).expect("a repository");
        let asked = read_head(&repo).expect("git names HEAD");
        assert_eq!(asked.commit, git(&dir, &["rev-parse", "HEAD"]));
        assert_eq!(
            head_from_files(&dir),
            Some(asked.clone()),
            "a loose branch ref"
        );
        git(&dir, &["checkout", "-q", "--detach"]);
        assert_eq!(
            head_from_files(&dir),
            Some(asked.clone()),
            "a detached HEAD"
        );
        git(&dir, &["checkout", "-q", "-"]);
        git(&dir, &["pack-refs", "--all"]);
        assert_eq!(head_from_files(&dir), None, "a packed ref: asked of git");
        assert_eq!(read_head(&repo), Some(asked));
        std::fs::write(dir.join(".git/HEAD"), "ref: refs/../../outside\n").expect("write");
        assert_eq!(
            head_from_files(&dir),
            None,
            "a ref name leading out is not read"
        );
        // A pipe in place of HEAD is refused, not waited on.
        std::fs::remove_file(dir.join(".git/HEAD")).expect("remove");
        let made = std::process::Command::new("mkfifo")
            .arg(dir.join(".git/HEAD"))
            .status()
            .is_ok_and(|s| s.success());
        if made {
            assert_eq!(head_from_files(&dir), None, "a pipe is not read");
        }
    }

    #[test]
    fn a_deepened_shallow_clone_is_walked_again() {
        let temp = tempfile::tempdir().expect("temp");
        let (origin, clone) = (temp.path().join("origin"), temp.path().join("clone"));
        let cache = temp.path().join("cache");
        std::fs::create_dir_all(&origin).expect("mkdir");
        git(&origin, &["init", "-q"]);
        for n in 0..4 {
            commit_file(&origin, "a.txt", &format!("commit {n}"));
        }
        let url = format!("file://{}", origin.display());
        let path = clone.display().to_string();
        git(temp.path(), &["clone", "-q", "--depth", "1", &url, &path]);
        let repo = GitRepo::discover(&clone).expect("a repository");
        let walker = Counting {
            repo: Some(&repo),
            ..Counting::default()
        };
        assert_eq!(
            HistoryMemo::in_folder(&cache, 0).answer(&repo, &walker),
            Some(1)
        );
        git(&clone, &["fetch", "-q", "--deepen", "2"]);
        assert_eq!(
            HistoryMemo::in_folder(&cache, 0).answer(&repo, &walker),
            Some(3)
        );
        assert_eq!(
            walker.calls(),
            (2, 0),
            "same HEAD, more history: walked again"
        );
    }

    #[test]
    fn file_history_carried_forward_is_the_history_walked_afresh() {
        let temp = tempfile::tempdir().expect("temp");
        let (dir, cache) = (temp.path().join("repo"), temp.path().join("cache"));
        std::fs::create_dir_all(&dir).expect("mkdir");
        git(&dir, &["init", "-q"]);
        commit_file(&dir, "kept.md", "one");
        commit_file(&dir, "edited.md", "two");
        commit_file(&dir, "other.rs", "three");
        let repo = GitRepo::discover(&dir).expect("a repository");
        let names: [&[u8]; 3] = [b"edited.md", b"kept.md", b"never.md"];
        let walked = |memo: &HistoryMemo| {
            super::super::facts::history_by_name(&repo, &names, &[], memo).expect("history")
        };
        let first = walked(&HistoryMemo::in_folder(&cache, 0));
        assert_eq!(first.commits, 3);
        commit_file(&dir, "edited.md", "four");
        commit_file(&dir, "other.rs", "five");
        let carried = walked(&HistoryMemo::in_folder(&cache, 0));
        let fresh = walked(&HistoryMemo::off());
        assert_eq!(carried.commits, 5);
        assert_eq!(carried.latest, fresh.latest);
        assert_eq!(carried.files, fresh.files);
        assert_eq!(carried.files[b"kept.md".as_slice()].commits_since, 4);
        assert_eq!(carried.files[b"edited.md".as_slice()].commits_since, 1);
        assert!(!carried.files.contains_key(b"never.md".as_slice()));
    }

    #[test]
    fn a_damaged_memo_file_is_walked_again_and_rewritten() {
        let temp = tempfile::tempdir().expect("temp");
        let (dir, cache) = (temp.path().join("repo"), temp.path().join("cache"));
        std::fs::create_dir_all(&dir).expect("mkdir");
        git(&dir, &["init", "-q"]);
        commit_file(&dir, "a.txt", "one");
        let repo = GitRepo::discover(&dir).expect("a repository");
        let walker = Counting {
            repo: Some(&repo),
            ..Counting::default()
        };
        let memo = HistoryMemo::in_folder(&cache, 0);
        assert_eq!(memo.answer(&repo, &walker), Some(1));
        let file = memo.file(repo.root()).expect("a file");
        let mut bytes = std::fs::read(&file).expect("kept");
        let last = bytes.len() - 1;
        bytes[last] ^= 0xff;
        std::fs::write(&file, bytes).expect("write");
        assert_eq!(
            HistoryMemo::in_folder(&cache, 0).answer(&repo, &walker),
            Some(1)
        );
        assert_eq!(walker.calls(), (2, 0), "a damaged file: walked again");
        assert_eq!(
            HistoryMemo::in_folder(&cache, 0).answer(&repo, &walker),
            Some(1)
        );
        assert_eq!(walker.calls(), (0, 0), "and kept again");
    }
}

//! Where paths went: the walk of history that finds each path renamed or removed, and
//! the one answer per repository every claim about it shares.
//!
//! On a repository's first check the walk is the slowest question (all of its history,
//! which a fresh clone has no commit-graph to speed up), and a claim only asks it once
//! the memory has been read and a path found missing from the tree. So `check` starts it
//! beside git's answers for staleness ([`WalksAhead`]) when nothing is remembered of the
//! repository's history yet; whichever asks first walks, and anyone asking meanwhile
//! waits for that walk rather than starting another. A walk nobody asked for by the end
//! of the run is stopped with git, and later runs walk only when a claim asks, as the
//! history remembered by then makes their walks short.
use std::collections::HashMap;
use std::ffi::OsString;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;

use parking_lot::{Condvar, Mutex};

use crate::git::{GitRepo, HistoryMemo, HistoryWalk, Line, Walk, os};

/// Commits of history searched for renames and removals.
pub(crate) const HISTORY_COMMITS: usize = 2000;

/// A commit: its full id (what git is asked about) and as `git log` abbreviates it (what
/// a finding names).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Commit {
    pub(crate) id: String,
    pub(crate) short: String,
}

/// Removals as the history memo keeps them: (path, commit, abbreviated commit, shown
/// commits before it), sorted by path.
type StoredRemovals<'a> = Vec<(&'a str, &'a str, &'a str, u32)>;

/// Paths a walk of history found renamed or removed: each path's newest such commit with
/// how many shown commits (those renaming or removing a file) came before it, and how
/// many commits the walk showed.
#[derive(Debug, Default)]
struct WalkedRemovals {
    removed: HashMap<String, (Commit, u32)>,
    shown: u32,
}

/// The walk behind `CodeIndex::moved`: which paths left the tree, and in which commit.
/// Whether one was renamed, and to what, is worked out for its commit alone when a claim
/// asks: rename detection over every commit of a long history took most of the walk's
/// time, for answers most checks never need.
struct MovesWalk<'a> {
    repo: &'a GitRepo,
    /// Set when the answer is no longer wanted: git is stopped and nothing is answered.
    stop: Option<&'a AtomicBool>,
}

impl MovesWalk<'_> {
    /// The paths removed (renamed ones among them) in the newest [`HISTORY_COMMITS`]
    /// commits of `range` that remove a file; `None` when git could not tell (not
    /// remembered). Without rename detection a rename is the removal of its old path, so
    /// these are the commits `git log -M --diff-filter=RD` shows.
    fn read(&self, range: &str) -> Option<WalkedRemovals> {
        let limit = format!("-n{HISTORY_COMMITS}");
        let args: Vec<OsString> = os(&[
            "-c",
            "core.quotePath=false",
            "log",
            "--no-renames",
            "--name-only",
            "--diff-filter=D",
            "--format=%x01%H %h",
            &limit,
            range,
            "--",
        ]);
        let out = self.repo.run_at_root_until(&args, self.stop).ok()?;
        if !out.success {
            return None;
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let mut walked = WalkedRemovals::default();
        let mut commit = Commit {
            id: String::new(),
            short: String::new(),
        };
        for line in text.lines() {
            if let Some(ids) = line.strip_prefix('\u{1}') {
                let (id, short) = ids.trim().split_once(' ')?;
                commit = Commit {
                    id: id.to_string(),
                    short: short.to_string(),
                };
                walked.shown += 1;
                continue;
            }
            // Quoted names (unusual bytes) are left out rather than misread.
            if line.is_empty() || line.starts_with('"') {
                continue;
            }
            // Newest first: the first commit on a path is the last thing that happened.
            let before = walked.shown.saturating_sub(1);
            walked
                .removed
                .entry(line.to_string())
                .or_insert_with(|| (commit.clone(), before));
        }
        Some(walked)
    }
}

impl MovesWalk<'_> {
    /// `ids` as `git log` abbreviates them, in order; `None` when git cannot tell.
    fn abbreviated(&self, ids: &[&str]) -> Option<Vec<String>> {
        self.repo.lines_about(&["rev-parse", "--short"], ids)
    }
}

impl HistoryWalk for MovesWalk<'_> {
    type Answer = WalkedRemovals;

    fn walk(&self) -> Walk {
        Walk::Removals {
            commits: HISTORY_COMMITS,
        }
    }

    fn encode(walked: &WalkedRemovals) -> Option<Vec<u8>> {
        let mut removed: StoredRemovals<'_> = walked
            .removed
            .iter()
            .map(|(path, (commit, before))| {
                (
                    path.as_str(),
                    commit.id.as_str(),
                    commit.short.as_str(),
                    *before,
                )
            })
            .collect();
        removed.sort_unstable();
        crate::cache_store::encode(&(walked.shown, removed))
    }

    fn decode(bytes: &[u8]) -> Option<WalkedRemovals> {
        let (shown, removed): (u32, StoredRemovals<'_>) = crate::cache_store::decode(bytes)?;
        let removed = removed
            .into_iter()
            .map(|(path, id, short, before)| {
                let commit = Commit {
                    id: id.to_string(),
                    short: short.to_string(),
                };
                (path.to_string(), (commit, before))
            })
            .collect();
        Some(WalkedRemovals { removed, shown })
    }

    fn ask(&self, tip: &str) -> Option<WalkedRemovals> {
        self.read(tip)
    }

    /// The new commits' removals, then the earlier ones still within the newest
    /// [`HISTORY_COMMITS`] shown commits.
    fn extend(&self, earlier: WalkedRemovals, line: &Line) -> Option<WalkedRemovals> {
        let mut walked = removals_of_line(line, |ids| self.abbreviated(ids))?;
        let newer = walked.shown;
        for (path, (commit, before)) in earlier.removed {
            let before = before.checked_add(newer)?;
            if (before as usize) < HISTORY_COMMITS {
                walked.removed.entry(path).or_insert((commit, before));
            }
        }
        walked.shown = earlier
            .shown
            .checked_add(newer)?
            .min(HISTORY_COMMITS as u32);
        Some(walked)
    }
}

/// What [`MovesWalk::read`] finds in the commits of `line` alone: the paths each commit
/// that removes one removed, newest first, within the newest [`HISTORY_COMMITS`] such
/// commits, each commit as `abbreviate` (given their ids) spells it; `None` when it
/// cannot.
fn removals_of_line(
    line: &Line,
    abbreviate: impl FnOnce(&[&str]) -> Option<Vec<String>>,
) -> Option<WalkedRemovals> {
    let removing: Vec<_> = line
        .commits
        .iter()
        .filter(|commit| commit.changes.iter().any(|c| c.status == b'D'))
        .take(HISTORY_COMMITS)
        .collect();
    let mut walked = WalkedRemovals::default();
    if removing.is_empty() {
        return Some(walked);
    }
    let ids: Vec<&str> = removing.iter().map(|c| c.id.as_str()).collect();
    let shorts = abbreviate(&ids)?;
    if shorts.len() != removing.len() {
        return None;
    }
    for (commit, short) in removing.into_iter().zip(shorts) {
        let removed = commit
            .changes
            .iter()
            .filter(|change| change.status == b'D')
            .map(|change| &change.path);
        let shown = Commit {
            id: commit.id.clone(),
            short,
        };
        let before = walked.shown;
        walked.shown += 1;
        for path in removed {
            // Names git would quote (unusual bytes) are left out, as the walk leaves them.
            if path.iter().any(|b| *b < 0x20 || *b == b'"' || *b == b'\\') {
                continue;
            }
            walked
                .removed
                .entry(String::from_utf8_lossy(path).into_owned())
                .or_insert_with(|| (shown.clone(), before));
        }
    }
    Some(walked)
}

/// The paths history shows renamed or removed in one repository, each with the newest
/// commit that did: walked once, by the first to ask.
#[derive(Debug, Default)]
pub(crate) struct Removals {
    found: OnceLock<HashMap<String, Commit>>,
    /// Whether a walk for `found` is under way.
    walking: Mutex<bool>,
    walked: Condvar,
}

impl Removals {
    /// Whether the answer is in (nothing left to walk).
    pub(crate) fn is_found(&self) -> bool {
        self.found.get().is_some()
    }

    /// The answer: walked now, or waited for when a walk is under way. Empty when git
    /// cannot tell.
    pub(crate) fn get(&self, repo: &GitRepo, memo: &HistoryMemo) -> &HashMap<String, Commit> {
        self.get_walking(|| Some(walk(repo, memo, None).unwrap_or_default()))
    }

    /// [`Removals::get`] with `walk` as the walk (`None`: stopped, nothing answered).
    fn get_walking(
        &self,
        mut walk: impl FnMut() -> Option<HashMap<String, Commit>>,
    ) -> &HashMap<String, Commit> {
        loop {
            if let Some(found) = self.found.get() {
                return found;
            }
            self.settle(&mut walk);
        }
    }

    /// Walks for `self` ahead of anyone asking, unless found or walking already: an
    /// answer `stop` cuts short is not kept, and whoever asks walks again.
    fn walk_ahead(&self, repo: &GitRepo, memo: &HistoryMemo, stop: &AtomicBool) {
        if self.found.get().is_none() {
            self.settle(&mut || {
                let answer = walk(repo, memo, Some(stop));
                (!stop.load(Ordering::Relaxed)).then(|| answer.unwrap_or_default())
            });
        }
    }

    /// One turn: walks when no one is walking, else waits for the walk under way to end
    /// (which may have been stopped without an answer).
    fn settle(&self, walk: &mut dyn FnMut() -> Option<HashMap<String, Commit>>) {
        let mut walking = self.walking.lock();
        if self.found.get().is_some() {
            return;
        }
        if *walking {
            self.walked.wait(&mut walking);
            return;
        }
        *walking = true;
        drop(walking);
        // Whatever happens to the walk, those waiting are woken to look again.
        let _done = Done(self);
        if let Some(found) = walk() {
            let _ = self.found.set(found);
        }
    }
}

/// Ends a walk of [`Removals::settle`]: no longer walking, everyone waiting woken.
struct Done<'r>(&'r Removals);

impl Drop for Done<'_> {
    fn drop(&mut self) {
        *self.0.walking.lock() = false;
        self.0.walked.notify_all();
    }
}

/// Each path the newest [`HISTORY_COMMITS`] commits that renamed or removed a file took
/// out of the tree, with the newest commit that did; `None` when git could not tell or
/// `stop` was set.
fn walk(
    repo: &GitRepo,
    memo: &HistoryMemo,
    stop: Option<&AtomicBool>,
) -> Option<HashMap<String, Commit>> {
    let walk = MovesWalk { repo, stop };
    memo.answer(repo, &walk).map(|walked| {
        walked
            .removed
            .into_iter()
            .map(|(path, (commit, _))| (path, commit))
            .collect()
    })
}

/// Walks started before any claim asks ([`WalksAhead::start`]), each run's on a thread
/// of its own, and stopped, git with them, when the checker holding them is dropped.
#[derive(Debug, Default)]
pub(crate) struct WalksAhead {
    stop: Arc<AtomicBool>,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

impl WalksAhead {
    /// Walks each of `walks` in turn on a thread of its own (each repository's answer
    /// remembered in `memo` as when a claim asks).
    pub(crate) fn start(&self, walks: Vec<(GitRepo, Arc<Removals>)>, memo: Arc<HistoryMemo>) {
        if walks.is_empty() {
            return;
        }
        let stop = Arc::clone(&self.stop);
        let thread = std::thread::Builder::new()
            .name("mbank-history".into())
            .spawn(move || {
                for (repo, removals) in walks {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    removals.walk_ahead(&repo, &memo, &stop);
                }
            });
        // Without a thread, the first claim to ask walks, as it would anyway.
        if let Ok(thread) = thread {
            let mut threads = self.threads.lock();
            threads.retain(|thread| !thread.is_finished());
            threads.push(thread);
        }
    }
}

impl Drop for WalksAhead {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for thread in self.threads.get_mut().drain(..) {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::mpsc;

    use super::*;
    use crate::claims::ClaimChecker;
    use crate::claims::tree::CodeIndex;
    use crate::git::test_repo::git;

    fn commit(dir: &Path, message: &str) {
        git(dir, &["add", "-A"]);
        git(dir, &["commit", "-q", "-m", message]);
    }

    /// A repository (in `repo` of `temp`) whose history renames one file and removes
    /// another, and a cache folder beside it.
    fn repository_with_moves(temp: &Path) -> (GitRepo, std::path::PathBuf) {
        let dir = temp.join("repo");
        std::fs::create_dir_all(dir.join("src")).expect("mkdir");
        git(&dir, &["init", "-q"]);
        for name in ["a", "b", "c"] {
            let text = format!("pub fn {name}() {{ /* {name} */ }}\n").repeat(20);
            std::fs::write(dir.join(format!("src/{name}.rs")), text).expect("write");
        }
        commit(&dir, "first");
        git(&dir, &["mv", "src/a.rs", "src/a2.rs"]);
        commit(&dir, "rename a");
        git(&dir, &["rm", "-q", "src/b.rs"]);
        commit(&dir, "remove b");
        let repo = GitRepo::discover(&dir).expect("a repository");
        (repo, temp.join("cache"))
    }

    fn sorted(removals: &HashMap<String, Commit>) -> Vec<(String, Commit)> {
        let mut all: Vec<(String, Commit)> = removals
            .iter()
            .map(|(path, commit)| (path.clone(), commit.clone()))
            .collect();
        all.sort_by(|x, y| x.0.cmp(&y.0));
        all
    }

    #[test]
    fn a_walk_started_ahead_answers_as_a_walk_a_claim_asks_for() {
        let temp = tempfile::tempdir().expect("temp");
        let (repo, cache) = repository_with_moves(temp.path());
        let asked = CodeIndex::build(&repo, Arc::new(HistoryMemo::off())).expect("listed");
        let asked = sorted(asked.removals());
        let paths: Vec<&str> = asked.iter().map(|(path, _)| path.as_str()).collect();
        assert_eq!(paths, ["src/a.rs", "src/b.rs"]);

        let memo = Arc::new(HistoryMemo::in_folder(&cache, 0));
        assert!(memo.is_new_to(repo.root()));
        let checker = ClaimChecker::remembering(Arc::clone(&memo));
        checker.walk_ahead(&[&repo]);
        assert_eq!(checker.removals_ahead.lock().len(), 1);
        let index = checker.index(&repo).expect("listed");
        // The index took the walk started ahead, and its answer is the same.
        assert!(checker.removals_ahead.lock().is_empty());
        assert_eq!(sorted(index.removals()), asked);
        // Remembered as a claim's walk is: a later run starts none ahead.
        assert!(!memo.is_new_to(repo.root()));
        let later = ClaimChecker::remembering(Arc::new(HistoryMemo::in_folder(&cache, 0)));
        later.walk_ahead(&[&repo]);
        assert!(later.removals_ahead.lock().is_empty());
        let index = later.index(&repo).expect("listed");
        assert_eq!(sorted(index.removals()), asked);
    }

    #[test]
    fn nothing_is_walked_ahead_without_a_memo_to_keep_the_answer() {
        let temp = tempfile::tempdir().expect("temp");
        let (repo, _) = repository_with_moves(temp.path());
        let checker = ClaimChecker::remembering(Arc::new(HistoryMemo::off()));
        checker.walk_ahead(&[&repo]);
        assert!(checker.removals_ahead.lock().is_empty());
        assert!(checker.walks.threads.lock().is_empty());
    }

    fn answer(path: &str) -> HashMap<String, Commit> {
        let commit = Commit {
            id: "0123456789abcdef".into(),
            short: "0123456".into(),
        };
        HashMap::from([(path.to_string(), commit)])
    }

    #[test]
    fn asking_while_a_walk_is_under_way_waits_for_that_walk() {
        let removals = Removals::default();
        let (started_tx, started) = mpsc::channel();
        let (go, go_rx) = mpsc::channel::<()>();
        let removals = &removals;
        std::thread::scope(|scope| {
            let first = scope.spawn(move || {
                removals.get_walking(|| {
                    started_tx.send(()).expect("send");
                    go_rx.recv().expect("go");
                    Some(answer("src/first.rs"))
                })
            });
            started.recv().expect("the first walk started");
            let second = scope.spawn(move || {
                removals.get_walking(|| panic!("a second walk while the first was under way"))
            });
            go.send(()).expect("send");
            let first = first.join().expect("first");
            let second = second.join().expect("second: waited, never walked");
            assert_eq!(first, &answer("src/first.rs"));
            assert_eq!(second, &answer("src/first.rs"));
        });
    }

    #[test]
    fn a_walk_stopped_before_its_answer_leaves_the_asking_to_walk_again() {
        let removals = Removals::default();
        removals.settle(&mut || None);
        assert!(!removals.is_found());
        let mut walks = 0;
        let found = removals.get_walking(|| {
            walks += 1;
            Some(answer("src/gone.rs"))
        });
        assert_eq!(found, &answer("src/gone.rs"));
        assert_eq!(walks, 1);
        // Found: a walk ahead finds nothing left to do.
        removals.settle(&mut || panic!("walked again"));
    }

    #[test]
    fn a_stopped_walk_ahead_keeps_no_answer() {
        let temp = tempfile::tempdir().expect("temp");
        let (repo, cache) = repository_with_moves(temp.path());
        let memo = HistoryMemo::in_folder(&cache, 0);
        let removals = Removals::default();
        removals.walk_ahead(&repo, &memo, &AtomicBool::new(true));
        // Git may have answered before it was stopped (then the answer is remembered,
        // being true); the walk ahead keeps none all the same.
        assert!(!removals.is_found());
        let found = sorted(removals.get(&repo, &memo));
        assert_eq!(found.len(), 2, "{found:?}");
    }

    #[test]
    fn history_is_walked_only_for_a_missing_path_gitignore_does_not_cover() {
        let temp = tempfile::tempdir().expect("temp");
        let (repo, _) = repository_with_moves(temp.path());
        let dir = repo.root().to_path_buf();
        std::fs::write(dir.join(".gitignore"), "local/\n").expect("write");
        let checked = |memory: &str| {
            std::fs::create_dir_all(dir.join("memory-bank")).expect("mkdir");
            let doc_path = dir.join("memory-bank/systemPatterns.md");
            std::fs::write(&doc_path, memory).expect("write");
            let docs = [crate::claims::MemoryDoc {
                path: &doc_path,
                role: crate::model::Role::Patterns,
            }];
            let bank = dir.join("memory-bank");
            let checker = ClaimChecker::new();
            let found = checker.check_project(&dir, Some(&repo), &[&bank], &docs);
            let walked = checker
                .index(&repo)
                .is_some_and(|index| index.removals_cell().is_found());
            let codes: Vec<&str> = found.iter().map(|f| f.code.id()).collect();
            (codes, walked)
        };
        let (codes, walked) = checked("# Patterns\n\nSettings live in `local/settings.toml`.\n");
        assert!(codes.is_empty(), "{codes:?}");
        assert!(!walked, "history walked for an ignored path");
        let (codes, walked) = checked("# Patterns\n\nThe parser is `src/b.rs`.\n");
        assert_eq!(codes, ["claim-missing-path"]);
        assert!(walked);
    }
}

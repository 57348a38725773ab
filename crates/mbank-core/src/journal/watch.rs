//! Following the journal's scope: notify watching each folder of the [`JournalScope`]
//! non-recursively (never whole trees), events gathered into batches (a batch goes once
//! writes pause for [`QUIET`], or [`MAX_DELAY`] after its first event), and each batch
//! recorded. Between events the thread blocks on its channel: no polling while the
//! kernel's watches cover everything.
//!
//! Events alone can miss a version: a folder listed while an agent renames in it, a
//! file the scope did not hold yet when its event came. So [`SETTLE`] after the first
//! batch of a spell of writes, every folder those batches touched is read again and each
//! memory file in it compared with its newest version (a settle pass); what differs is
//! recorded, and the log says no event reported it.
//!
//! Watches are a per-user resource (inotify's `max_user_watches` on Linux) shared with
//! editors and other tools: at most three quarters of the system's limit is asked for.
//! When that is not enough, or the kernel says no, the folders left unwatched are caught
//! by a full scan every `FALLBACK_SCAN`, and the log says so.
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use notify::{RecommendedWatcher, RecursiveMode};

use super::scope::{self, JournalScope, ScopeOptions};
use super::{PassReport, Recorder};

/// A batch goes once no event came for this long…
pub const QUIET: Duration = Duration::from_millis(30);
/// …or this long after its first event, whichever is first: a version that stands this
/// long is read before it is overwritten.
pub const MAX_DELAY: Duration = Duration::from_millis(100);
/// How often everything is scanned when not every folder can be watched.
pub(crate) const FALLBACK_SCAN: Duration = Duration::from_secs(60);
/// How long after the first batch of a spell of writes the folders it touched are read
/// again (the settle pass).
pub const SETTLE: Duration = Duration::from_secs(1);

/// Whether a changed path is worth a look: not a temp file of mbank or an editor, not
/// inside `.git`.
pub fn is_interesting(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    !(name.ends_with(".mbank-tmp")
        || name.ends_with(".swp")
        || name.ends_with('~')
        || name == ".git"
        || path.components().any(|c| c.as_os_str() == ".git"))
}

/// Whether an event changes content or names. Reads (mbank opens every file it
/// records) and access-time updates are not changes, or watching would feed itself.
pub fn is_write(kind: &notify::EventKind) -> bool {
    use notify::EventKind;
    use notify::event::{AccessKind, AccessMode, MetadataKind, ModifyKind};
    match kind {
        EventKind::Create(_) | EventKind::Remove(_) => true,
        EventKind::Modify(ModifyKind::Metadata(MetadataKind::AccessTime)) => false,
        EventKind::Modify(_) => true,
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) | EventKind::Any | EventKind::Other => false,
    }
}

/// A limit on the watches of one user, and the setting it comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    pub watches: usize,
    /// `fs.inotify.max_user_watches`, or `user.max_inotify_watches` (the user
    /// namespace's, in a container) when that one is lower.
    pub setting: &'static str,
}

/// The limit on watches per user, where there is one to read: the lower of the system's
/// and the user namespace's.
pub fn system_limit() -> Option<Limit> {
    #[cfg(target_os = "linux")]
    {
        let read = |path: &str, setting: &'static str| {
            std::fs::read_to_string(path)
                .ok()
                .and_then(|text| text.trim().parse().ok())
                .map(|watches| Limit { watches, setting })
        };
        [
            read(
                "/proc/sys/fs/inotify/max_user_watches",
                "fs.inotify.max_user_watches",
            ),
            read(
                "/proc/sys/user/max_inotify_watches",
                "user.max_inotify_watches",
            ),
        ]
        .into_iter()
        .flatten()
        .min_by_key(|limit| limit.watches)
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// What reaches the follower's thread.
pub(crate) enum FollowerInput {
    Event(notify::Result<notify::Event>),
    Stop,
}

/// Stops a [`Follower`] from another thread (a signal handler's).
#[derive(Clone)]
pub struct Stopper(Sender<FollowerInput>);

impl Stopper {
    pub fn stop(&self) {
        let _ = self.0.send(FollowerInput::Stop);
    }
}

/// How many folders are watched of how many wanted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FollowCoverage {
    pub watched: usize,
    pub wanted: usize,
    pub system_limit: Option<Limit>,
    /// The kernel refused a watch: the user's watches are used up.
    pub exhausted: bool,
}

impl FollowCoverage {
    pub fn is_complete(&self) -> bool {
        self.watched >= self.wanted
    }

    /// What the log says when not every folder is watched.
    pub fn note(&self) -> Option<String> {
        if self.is_complete() {
            return None;
        }
        let why = match (self.exhausted, self.system_limit) {
            (true, Some(limit)) => format!(
                "the system's inotify watches ({} = {}) are used up",
                limit.setting, limit.watches
            ),
            (true, None) => "the system's file watches are used up".to_string(),
            (false, Some(limit)) => format!(
                "mbank keeps to 3/4 of the system's inotify watches ({} = {})",
                limit.setting, limit.watches
            ),
            (false, None) => "the watch budget is spent".to_string(),
        };
        Some(format!(
            "watching {} of {} folders: {why}; falling back to a periodic scan of everything \
             every {} s for the rest (raise the limit to avoid it)",
            self.watched,
            self.wanted,
            FALLBACK_SCAN.as_secs()
        ))
    }
}

/// What the follower waited for.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Batch {
    /// These paths changed; `lost`: the kernel dropped events, or the watcher failed
    /// (rescan).
    Changed {
        paths: Vec<PathBuf>,
        lost: bool,
    },
    /// The instant waited for came with no event.
    Due,
    Stopped,
}

/// The notify watcher and the batches it gathers.
pub struct Follower {
    watcher: RecommendedWatcher,
    inbox: Receiver<FollowerInput>,
    inputs: Sender<FollowerInput>,
    watched: HashSet<PathBuf>,
    budget: usize,
    system_limit: Option<Limit>,
    problems: Vec<String>,
}

impl Follower {
    pub fn new() -> Result<Follower, String> {
        let (inputs, inbox) = mpsc::channel::<FollowerInput>();
        let events = inputs.clone();
        let watcher = notify::recommended_watcher(move |event| {
            let _ = events.send(FollowerInput::Event(event));
        })
        .map_err(|e| e.to_string())?;
        let system_limit = system_limit();
        Ok(Follower {
            watcher,
            inbox,
            inputs,
            watched: HashSet::new(),
            budget: system_limit.map_or(usize::MAX, |limit| limit.watches - limit.watches / 4),
            system_limit,
            problems: Vec::new(),
        })
    }

    /// Watches at most `budget` folders (tests; the system's limit still applies).
    pub fn limit(&mut self, budget: usize) {
        self.budget = self.budget.min(budget);
    }

    pub fn stopper(&self) -> Stopper {
        Stopper(self.inputs.clone())
    }

    /// Hands the follower an event as if the kernel had reported it (tests).
    #[cfg(test)]
    pub(crate) fn reporter(&self) -> impl Fn(notify::Event) + Send + 'static {
        let inputs = self.inputs.clone();
        move |event| {
            let _ = inputs.send(FollowerInput::Event(Ok(event)));
        }
    }

    /// Problems met since last asked (a folder that could not be watched, an error of
    /// the watcher), as sentences.
    pub(crate) fn take_problems(&mut self) -> Vec<String> {
        std::mem::take(&mut self.problems)
    }

    /// Watches exactly `wanted` (the first ones first when not all can be).
    pub fn watch(&mut self, wanted: &[PathBuf]) -> FollowCoverage {
        let WatchSync {
            exhausted,
            problems,
        } = watch_exactly(&mut self.watcher, &mut self.watched, wanted, self.budget);
        self.problems.extend(problems);
        FollowCoverage {
            watched: self.watched.len(),
            wanted: if exhausted || wanted.len() > self.budget {
                wanted.len()
            } else {
                self.watched.len()
            },
            system_limit: self.system_limit,
            exhausted,
        }
    }

    /// Waits for the next batch of changes, or until `wake_at` when no event comes
    /// before it (for ever without one).
    pub(crate) fn next_batch(&mut self, wake_at: Option<Instant>) -> Batch {
        let mut paths: Vec<PathBuf> = Vec::new();
        let mut lost = false;
        let mut started: Option<Instant> = None;
        // The last event that counts: reads (mbank's own among them) neither open a batch
        // nor keep it open.
        let mut latest = Instant::now();
        loop {
            let input = match (started, wake_at) {
                (Some(first), _) => {
                    let left = MAX_DELAY
                        .saturating_sub(first.elapsed())
                        .min(QUIET.saturating_sub(latest.elapsed()));
                    match self.inbox.recv_timeout(left) {
                        Ok(input) => input,
                        Err(RecvTimeoutError::Timeout) => {
                            paths.sort();
                            paths.dedup();
                            return Batch::Changed { paths, lost };
                        }
                        Err(RecvTimeoutError::Disconnected) => return Batch::Stopped,
                    }
                }
                (None, Some(deadline)) => {
                    match self
                        .inbox
                        .recv_timeout(deadline.saturating_duration_since(Instant::now()))
                    {
                        Ok(input) => input,
                        Err(RecvTimeoutError::Timeout) => return Batch::Due,
                        Err(RecvTimeoutError::Disconnected) => return Batch::Stopped,
                    }
                }
                (None, None) => match self.inbox.recv() {
                    Ok(input) => input,
                    Err(_) => return Batch::Stopped,
                },
            };
            let event = match input {
                FollowerInput::Stop => return Batch::Stopped,
                FollowerInput::Event(Ok(event)) => event,
                FollowerInput::Event(Err(error)) => {
                    // What failed may have carried events: everything is looked at again.
                    self.problems.push(format!("the file watcher: {error}"));
                    lost = true;
                    latest = Instant::now();
                    started.get_or_insert(latest);
                    continue;
                }
            };
            if event.need_rescan() {
                lost = true;
            } else if !is_write(&event.kind) {
                continue;
            }
            if matches!(event.kind, notify::EventKind::Remove(_)) {
                // A watched folder that went away is watched again if it comes back.
                for path in &event.paths {
                    self.watched.remove(path);
                }
            }
            // Activity inside `.git` (a checkout in progress) keeps the batch open
            // without being recorded.
            paths.extend(event.paths.into_iter().filter(|p| is_interesting(p)));
            latest = Instant::now();
            started.get_or_insert(latest);
        }
    }
}

/// What [`follow`] tells its caller as it goes.
pub trait Log {
    fn line(&mut self, line: &str);
}

impl<F: FnMut(&str)> Log for F {
    fn line(&mut self, line: &str) {
        self(line)
    }
}

fn log_report(log: &mut dyn Log, what: &str, report: &PassReport) {
    for line in &report.lines {
        log.line(line);
    }
    for problem in &report.problems {
        log.line(&format!("problem: {problem}"));
    }
    if !what.is_empty() {
        log.line(&format!(
            "{what}: {} recorded, {} deleted ({} renamed)",
            report.recorded, report.deleted, report.renamed
        ));
    }
}

/// Watches `options`' scope and catches up on it, then records every batch the follower
/// reports until it is stopped, settling the folders each spell of writes touched.
pub fn follow(
    recorder: &mut Recorder,
    options: &ScopeOptions,
    follower: &mut Follower,
    log: &mut dyn Log,
    after_changes: &mut dyn FnMut(),
) {
    let mut scope = scope::build(options);
    log.line(&format!(
        "following {} memory files in {} stores ({} projects under {})",
        scope.files.len(),
        scope.stores.len(),
        scope.projects.len(),
        options.root.display()
    ));
    // When the fallback scan is due; kept across batches, so a busy folder never puts
    // off the scan of unwatched ones.
    let mut scan_at = None;
    // Watched before the catch-up reads anything: a version written while it runs is
    // reported then, not lost between the two.
    rewatch(follower, &scope, log, &mut scan_at);
    let report = recorder.catch_up(&scope);
    log_report(log, "caught up", &report);
    after_changes();
    log.line("watching for changes");
    let mut spell = Spell::default();
    loop {
        let wake_at = [scan_at, spell.due_at()].into_iter().flatten().min();
        // What is due goes before the next batch, so writes that never pause cannot put
        // off the fallback scan or a settle pass.
        let batch = if wake_at.is_some_and(|at| at <= Instant::now()) {
            Batch::Due
        } else {
            follower.next_batch(wake_at)
        };
        match batch {
            Batch::Stopped => {
                log.line("stopped");
                return;
            }
            Batch::Due if scan_at.is_some_and(|at| at <= Instant::now()) => {
                scope = scope::build(options);
                let report = recorder.catch_up(&scope);
                log_report(log, "", &report);
                scan_at = None;
                rewatch(follower, &scope, log, &mut scan_at);
                // Everything was read: nothing is left to settle.
                spell = Spell::default();
                after_changes();
            }
            Batch::Due => {
                let spell = std::mem::take(&mut spell);
                let mut paths = spell.paths(&scope);
                if spell.finds_unknown(&scope, options) {
                    relist(&mut scope, options, follower, log, &mut scan_at, false);
                    paths.extend(spell.paths(&scope));
                }
                let report = recorder.record_paths(&scope, &paths);
                log_report(log, "", &report);
                if let Some(note) = settled_note(&report) {
                    log.line(&note);
                    after_changes();
                }
            }
            Batch::Changed { mut paths, lost } => {
                let new = paths
                    .iter()
                    .any(|p| scope.file(p).is_none() && could_be_new(&scope, options, p));
                if lost || new {
                    // A new memory file or folder, or events lost: the scope is listed again.
                    let before = relist(&mut scope, options, follower, log, &mut scan_at, lost);
                    // A file written into a new folder before its watch began sent no event.
                    paths.extend(
                        scope
                            .files
                            .iter()
                            .filter(|f| {
                                f.path
                                    .parent()
                                    .is_some_and(|p| !before.iter().any(|b| b == p))
                            })
                            .map(|f| f.path.clone()),
                    );
                }
                let report = if lost {
                    log.line("the kernel dropped file events: catching up on everything");
                    spell = Spell::default();
                    recorder.catch_up(&scope)
                } else {
                    spell.add(&paths, Instant::now());
                    recorder.record_paths(&scope, &paths)
                };
                log_report(log, "", &report);
                // A batch that recorded nothing (a project's own file, a text written
                // again as it was) changed no memory.
                if report.recorded + report.deleted > 0 {
                    after_changes();
                }
            }
        }
    }
}

/// The paths a spell of batches reported and their folders, waiting for the settle pass.
#[derive(Debug, Default)]
pub struct Spell {
    paths: std::collections::BTreeSet<PathBuf>,
    folders: std::collections::BTreeSet<PathBuf>,
    /// When the pass is due: [`SETTLE`] after the spell's first batch (later batches do
    /// not put it off, so a steady writer is settled too).
    due_at: Option<Instant>,
}

impl Spell {
    /// Notes a batch's paths (reported at `now`).
    pub fn add(&mut self, paths: &[PathBuf], now: Instant) {
        for path in paths {
            if let Some(folder) = path.parent() {
                self.folders.insert(folder.to_path_buf());
            }
            self.paths.insert(path.clone());
        }
        if !paths.is_empty() {
            self.due_at.get_or_insert(now + SETTLE);
        }
    }

    pub fn due_at(&self) -> Option<Instant> {
        self.due_at
    }

    /// Whether a folder of the spell holds a memory file `scope` lacks: the scope is to
    /// be listed again before settling. Sub-folders are left to their own events (a
    /// project's `src/` is no news), and the files of one folder cost one probe of its
    /// project.
    pub fn finds_unknown(&self, scope: &JournalScope, options: &ScopeOptions) -> bool {
        self.folders.iter().any(|folder| {
            let Ok(entries) = std::fs::read_dir(folder) else {
                return false;
            };
            let mut unknown = Vec::new();
            for entry in entries.flatten() {
                let path = entry.path();
                if entry.file_type().is_ok_and(|t| t.is_dir())
                    || !is_interesting(&path)
                    || scope.file(&path).is_some()
                {
                    continue;
                }
                match scope.named_file(&path) {
                    Some(true) => return true,
                    Some(false) => {}
                    None => unknown.push(path),
                }
            }
            listed_by_their_project(scope, options, &unknown)
        })
    }

    /// What a settle pass compares with its newest version, as `scope` lists the files:
    /// every path the spell reported, and every memory file of its folders. Asked before
    /// and after listing the scope again, so a file gone meanwhile is compared too.
    pub fn paths(&self, scope: &JournalScope) -> Vec<PathBuf> {
        self.paths
            .iter()
            .cloned()
            .chain(
                scope
                    .files
                    .iter()
                    .filter(|f| f.path.parent().is_some_and(|p| self.folders.contains(p)))
                    .map(|f| f.path.clone()),
            )
            .collect()
    }
}

/// What a settle pass found that no event had reported, as the log says it.
pub fn settled_note(report: &PassReport) -> Option<String> {
    let missed = report.recorded + report.deleted;
    (missed > 0).then(|| format!("settled: {missed} change(s) no file event reported"))
}

/// Whether `path`, changed in a watched folder though the scope lists no file there, may
/// be memory that appeared, so the scope must be listed again: a new folder (a bank, a
/// sub-folder of one), or a file the bank listing of its project names now. Anything
/// else in a watched folder (a project's README or build file, an editor's temp file) is
/// not memory: it costs one project's probe, not a scan of the root.
pub(super) fn could_be_new(scope: &JournalScope, options: &ScopeOptions, path: &Path) -> bool {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        // Gone again: nothing to add (a file with a history is recorded gone).
        return false;
    };
    if meta.is_dir() {
        return true;
    }
    if let Some(named) = scope.named_file(path) {
        return named;
    }
    listed_by_their_project(scope, options, &[path.to_path_buf()])
}

/// Whether one of `files`, all in one folder, is a file the bank listing of its project
/// names now: one probe of that project for them all.
fn listed_by_their_project(
    scope: &JournalScope,
    options: &ScopeOptions,
    files: &[PathBuf],
) -> bool {
    let Some(first) = files.first() else {
        return false;
    };
    let key = crate::history::key_of(first);
    let project = scope
        .projects
        .iter()
        .filter(|project| first.starts_with(project))
        .max_by_key(|project| project.components().count())
        .or_else(|| {
            scope
                .store_holding(&key)
                .and_then(|store| store.project.as_ref())
        });
    // Outside every project (Codex memories, a home folder's place): listed again.
    let Some(project) = project else {
        return true;
    };
    let name = project
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let Some(found) =
        crate::scan::discovery::project_at_home(project, name, options.scan.home.as_deref())
    else {
        return false;
    };
    let keys: Vec<PathBuf> = files.iter().map(|f| crate::history::key_of(f)).collect();
    crate::scan::bank::list_banks(&found)
        .iter()
        .flat_map(|bank| &bank.files)
        .any(|listed| files.contains(&listed.path) || keys.contains(&listed.path))
}

/// Lists the scope again, and watches its folders again when they changed (or always,
/// with `rewatch_anyway`); the folders it had before.
fn relist(
    scope: &mut JournalScope,
    options: &ScopeOptions,
    follower: &mut Follower,
    log: &mut dyn Log,
    scan_at: &mut Option<Instant>,
    rewatch_anyway: bool,
) -> Vec<PathBuf> {
    let before = std::mem::take(&mut scope.folders);
    *scope = scope::build(options);
    if scope.folders != before || rewatch_anyway {
        rewatch(follower, scope, log, scan_at);
    }
    before
}

/// Watches the scope's folders; when not all could be, the fallback scan is due a period
/// from now (unless it is due already), else never.
fn rewatch(
    follower: &mut Follower,
    scope: &JournalScope,
    log: &mut dyn Log,
    scan_at: &mut Option<Instant>,
) {
    *scan_at = watch_scope(follower, scope, log)
        .map(|every| scan_at.unwrap_or_else(|| Instant::now() + every));
}

/// Watches the scope's folders; the fallback period when not all could be.
fn watch_scope(
    follower: &mut Follower,
    scope: &JournalScope,
    log: &mut dyn Log,
) -> Option<Duration> {
    let coverage = follower.watch(&scope.folders);
    for problem in follower.take_problems() {
        log.line(&format!("problem: {problem}"));
    }
    match coverage.note() {
        Some(note) => {
            log.line(&note);
            Some(FALLBACK_SCAN)
        }
        None => None,
    }
}

/// What [`watch_exactly`] did: whether the system's limit on watches stopped it, and
/// each folder it could not watch, with why.
pub struct WatchSync {
    pub exhausted: bool,
    pub problems: Vec<String>,
}

/// Makes `watched` exactly the first `budget` folders of `wanted` on `watcher` (the
/// journal's and the TUI's watchers both keep one watch per folder). Stale watches go
/// first, so their budget is free for the new ones; a folder that vanished meanwhile is
/// simply not watched.
pub fn watch_exactly(
    watcher: &mut impl notify::Watcher,
    watched: &mut HashSet<PathBuf>,
    wanted: &[PathBuf],
    budget: usize,
) -> WatchSync {
    let within: HashSet<&PathBuf> = wanted.iter().take(budget).collect();
    let stale: Vec<PathBuf> = watched
        .iter()
        .filter(|p| !within.contains(p))
        .cloned()
        .collect();
    for path in stale {
        let _ = watcher.unwatch(&path);
        watched.remove(&path);
    }
    let mut sync = WatchSync {
        exhausted: false,
        problems: Vec::new(),
    };
    for path in wanted.iter().take(budget) {
        if watched.contains(path) {
            continue;
        }
        match watcher.watch(path, RecursiveMode::NonRecursive) {
            Ok(()) => {
                watched.insert(path.clone());
            }
            Err(e) if matches!(e.kind, notify::ErrorKind::MaxFilesWatch) => {
                sync.exhausted = true;
                break;
            }
            Err(e) if path.exists() => {
                sync.problems
                    .push(format!("cannot watch {}: {e}", path.display()));
            }
            Err(_) => {}
        }
    }
    sync
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_not_writes_and_git_internals_are_passed_over() {
        use notify::EventKind;
        use notify::event::{AccessKind, AccessMode, CreateKind};
        assert!(!is_write(&EventKind::Access(AccessKind::Close(
            AccessMode::Read
        ))));
        assert!(is_write(&EventKind::Create(CreateKind::File)));
        assert!(!is_interesting(Path::new("/p/.git/HEAD")));
        assert!(!is_interesting(Path::new(
            "/p/memory-bank/.a.md.x.mbank-tmp"
        )));
        assert!(is_interesting(Path::new("/p/memory-bank/progress.md")));
    }

    #[test]
    fn a_partial_coverage_names_the_limit_and_the_fallback() {
        let coverage = FollowCoverage {
            watched: 10,
            wanted: 20,
            system_limit: Some(Limit {
                watches: 8192,
                setting: "fs.inotify.max_user_watches",
            }),
            exhausted: true,
        };
        let note = coverage.note().unwrap();
        assert!(note.contains("10 of 20 folders"), "{note}");
        assert!(note.contains("max_user_watches = 8192"), "{note}");
        assert!(note.contains("periodic scan"), "{note}");
        let full = FollowCoverage {
            watched: 20,
            wanted: 20,
            system_limit: None,
            exhausted: false,
        };
        assert_eq!(full.note(), None);
    }

    #[test]
    fn only_a_new_folder_or_a_file_its_project_lists_as_memory_asks_for_a_new_scope() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let project = root.join("app");
        std::fs::create_dir_all(project.join("memory-bank")).unwrap();
        std::fs::write(project.join("memory-bank/progress.md"), "# Progress\n").unwrap();
        let options = ScopeOptions {
            root: root.clone(),
            scan: Default::default(),
            config: Default::default(),
        };
        let scope = scope::build(&options);
        assert!(scope.folders.contains(&project));
        let readme = project.join("README.md");
        std::fs::write(&readme, "# App\n").unwrap();
        assert!(!could_be_new(&scope, &options, &readme));
        assert!(!could_be_new(&scope, &options, &project.join("gone.md")));
        let notes = project.join("memory-bank/notes.md");
        std::fs::write(&notes, "# Notes\n").unwrap();
        assert!(could_be_new(&scope, &options, &notes));
        let claude = project.join("CLAUDE.md");
        std::fs::write(&claude, "# Instructions\n").unwrap();
        assert!(could_be_new(&scope, &options, &claude));
        std::fs::create_dir(project.join("memory-bank/archive")).unwrap();
        assert!(could_be_new(
            &scope,
            &options,
            &project.join("memory-bank/archive")
        ));
    }

    #[test]
    fn a_stopper_ends_the_wait() {
        let mut follower = Follower::new().unwrap();
        let stopper = follower.stopper();
        stopper.stop();
        assert_eq!(follower.next_batch(None), Batch::Stopped);
    }
}

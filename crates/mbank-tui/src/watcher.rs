//! Live refresh: notify watching the root, each project folder and every memory folder
//! of every listed project ([`mbank_core::analysis::memory_folders`]), each non-recursively —
//! never whole trees. Paths are filtered (our own temp files, `.git`) and de-duplicated
//! before anything reaches the event loop.
//!
//! One thread owns the notify watcher: it registers the folders the app asks for and
//! gathers events into batches (a batch goes out once writes pause for `QUIET`, or
//! `MAX_DELAY` after its first event). Between events it blocks on its channel, so an
//! idle app with thousands of folders watched wakes up for nothing (no timer ticks).
//!
//! Watches are a per-user resource (inotify's `max_user_watches` on Linux) shared with
//! editors and other tools: the app asks in priority order (the open project first, then
//! the picker's order), at most `MAX_WATCHES` and never more than three quarters of the
//! system's limit; when the budget or the kernel says no, the rest go unwatched and
//! [`Message::WatchCoverage`] says how many folders are watched of how many.
use std::collections::{BTreeSet, HashSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread;
use std::time::{Duration, Instant};

use notify::RecommendedWatcher;

use super::message::Message;
pub(crate) use super::message::{Coverage, MAX_WATCHES};
use super::workers::Outbox;
use mbank_core::journal::watch::{WatchSync, watch_exactly};

/// A batch goes out once no event came for this long…
const QUIET: Duration = Duration::from_millis(30);
/// …or this long after its first event, whichever is first.
const MAX_DELAY: Duration = Duration::from_millis(200);

/// What the watcher's thread is told.
enum WatcherCommand {
    /// Watch exactly these folders, the most wanted first.
    Watch(Vec<PathBuf>),
    /// Watch at most this many folders (tests; the system's limit applies too).
    Budget(usize),
    /// An event from notify.
    Event(notify::Result<notify::Event>),
}

/// The handle the app keeps; the watching happens on a thread of its own (registering
/// thousands of folders takes the better part of a second, which must not hold up the
/// first frame or the keyboard). The app hands it the wanted list and hears back through
/// messages.
pub struct Watcher {
    inputs: Sender<WatcherCommand>,
    /// Lists sent and not yet registered.
    pending: Arc<AtomicUsize>,
}

// Which events and paths count: the same as for the journal's recorder.
pub(crate) use mbank_core::journal::watch::{is_interesting, is_write};

/// The system's limit on watches per user, where there is one to read.
fn system_limit() -> Option<usize> {
    #[cfg(target_os = "linux")]
    {
        std::fs::read_to_string("/proc/sys/fs/inotify/max_user_watches")
            .ok()
            .and_then(|text| text.trim().parse().ok())
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// How many folders the app may watch: [`MAX_WATCHES`], and three quarters of the
/// system's limit at most.
fn budget_for(system_limit: Option<usize>) -> usize {
    match system_limit {
        Some(limit) => MAX_WATCHES.min(limit - limit / 4),
        None => MAX_WATCHES,
    }
}

impl Watcher {
    pub fn spawn(outbox: Outbox) -> Result<Watcher, String> {
        let (inputs, inbox) = mpsc::channel::<WatcherCommand>();
        let events = inputs.clone();
        let watcher = notify::recommended_watcher(move |event| {
            let _ = events.send(WatcherCommand::Event(event));
        })
        .map_err(|e| e.to_string())?;
        let pending = Arc::new(AtomicUsize::new(0));
        let done = pending.clone();
        let limit = system_limit();
        thread::spawn(move || {
            let mut state = WatcherState {
                watcher,
                watched: HashSet::new(),
                budget: budget_for(limit),
                system_limit: limit,
                wanted: Vec::new(),
                coverage: None,
                outbox,
                done,
            };
            state.run(&inbox);
        });
        Ok(Watcher { inputs, pending })
    }

    /// Watches exactly these folders (non-recursively), the first ones first when not
    /// all can be, on the watcher's thread; how many are watched comes back as
    /// [`Message::WatchCoverage`] when not all are (or all are again).
    pub(crate) fn watch_exactly(&self, folders: Vec<PathBuf>) {
        self.pending.fetch_add(1, Ordering::AcqRel);
        if self.inputs.send(WatcherCommand::Watch(folders)).is_err() {
            self.pending.fetch_sub(1, Ordering::AcqRel);
        }
    }

    /// Watches at most `budget` folders from now on (the system's limit still applies).
    pub fn limit(&self, budget: usize) {
        self.pending.fetch_add(1, Ordering::AcqRel);
        if self.inputs.send(WatcherCommand::Budget(budget)).is_err() {
            self.pending.fetch_sub(1, Ordering::AcqRel);
        }
    }

    /// True once every folder list asked for so far is being watched.
    pub(crate) fn is_settled(&self) -> bool {
        self.pending.load(Ordering::Acquire) == 0
    }
}

/// The watcher's thread: what it watches and what it is gathering.
struct WatcherState {
    watcher: RecommendedWatcher,
    watched: HashSet<PathBuf>,
    budget: usize,
    system_limit: Option<usize>,
    /// The last list asked for (re-applied when the budget changes).
    wanted: Vec<PathBuf>,
    /// The coverage last reported.
    coverage: Option<Coverage>,
    outbox: Outbox,
    done: Arc<AtomicUsize>,
}

impl WatcherState {
    fn run(&mut self, inbox: &Receiver<WatcherCommand>) {
        // Paths changed in the batch being gathered, and when its first event came.
        let mut batch: BTreeSet<PathBuf> = BTreeSet::new();
        let mut rescan = false;
        let mut started: Option<Instant> = None;
        loop {
            let input = match started {
                // Nothing gathered: sleep until something happens.
                None => match inbox.recv() {
                    Ok(input) => input,
                    Err(_) => return,
                },
                Some(first) => {
                    let left = MAX_DELAY.saturating_sub(first.elapsed()).min(QUIET);
                    match inbox.recv_timeout(left) {
                        Ok(input) => input,
                        Err(RecvTimeoutError::Timeout) => {
                            started = None;
                            if !self.flush(&mut batch, std::mem::take(&mut rescan)) {
                                return;
                            }
                            continue;
                        }
                        Err(RecvTimeoutError::Disconnected) => return,
                    }
                }
            };
            match input {
                WatcherCommand::Watch(wanted) => {
                    // Only the newest list matters.
                    let mut wanted = wanted;
                    let mut taken = 1;
                    while let Ok(newer) = inbox.try_recv() {
                        match newer {
                            WatcherCommand::Watch(newer) => {
                                wanted = newer;
                                taken += 1;
                            }
                            WatcherCommand::Budget(budget) => {
                                self.budget = budget.min(budget_for(self.system_limit));
                                taken += 1;
                            }
                            WatcherCommand::Event(event) => {
                                rescan |= self.take_event(event, &mut batch);
                            }
                        }
                    }
                    self.wanted = wanted;
                    let alive = self.apply();
                    self.done.fetch_sub(taken, Ordering::AcqRel);
                    if !alive {
                        return;
                    }
                }
                WatcherCommand::Budget(budget) => {
                    self.budget = budget.min(budget_for(self.system_limit));
                    let alive = self.apply();
                    self.done.fetch_sub(1, Ordering::AcqRel);
                    if !alive {
                        return;
                    }
                }
                WatcherCommand::Event(event) => rescan |= self.take_event(event, &mut batch),
            }
            if (!batch.is_empty() || rescan) && started.is_none() {
                started = Some(Instant::now());
            }
        }
    }

    /// Adds an event's paths to the batch; true when events were lost (rescan).
    fn take_event(
        &mut self,
        event: notify::Result<notify::Event>,
        batch: &mut BTreeSet<PathBuf>,
    ) -> bool {
        let event = match event {
            Ok(event) => event,
            Err(error) => {
                let _ = self.outbox.send(Message::WatchProblem(error.to_string()));
                return false;
            }
        };
        if event.need_rescan() {
            return true;
        }
        if matches!(event.kind, notify::EventKind::Remove(_)) {
            // A watched folder that went away is watched again if it comes back.
            for path in &event.paths {
                self.watched.remove(path);
            }
        }
        if is_write(&event.kind) {
            batch.extend(event.paths.into_iter().filter(|p| is_interesting(p)));
        }
        false
    }

    /// Sends the batch; false when the app is gone.
    fn flush(&mut self, batch: &mut BTreeSet<PathBuf>, rescan: bool) -> bool {
        if rescan && self.outbox.send(Message::WatchOverflow).is_err() {
            return false;
        }
        let paths: Vec<PathBuf> = std::mem::take(batch).into_iter().collect();
        paths.is_empty() || self.outbox.send(Message::FilesChanged(paths)).is_ok()
    }

    /// Watches the wanted list within the budget; false when the app is gone.
    fn apply(&mut self) -> bool {
        let mut seen = HashSet::with_capacity(self.wanted.len());
        let wanted: Vec<PathBuf> = self
            .wanted
            .iter()
            .filter(|p| seen.insert(p.as_path()))
            .cloned()
            .collect();
        let WatchSync {
            exhausted,
            problems,
        } = watch_exactly(&mut self.watcher, &mut self.watched, &wanted, self.budget);
        let problem = problems.into_iter().next();
        // Folders that do not exist are not counted as missing coverage.
        let coverage = Coverage {
            watched: self.watched.len(),
            wanted: if exhausted || wanted.len() > self.budget {
                wanted.len()
            } else {
                self.watched.len()
            },
            system_limit: self.system_limit,
            exhausted,
        };
        if let Some(problem) = problem
            && self.outbox.send(Message::WatchProblem(problem)).is_err()
        {
            return false;
        }
        let changed = self.coverage.as_ref() != Some(&coverage);
        let worth_saying =
            !coverage.is_complete() || self.coverage.as_ref().is_some_and(|old| !old.is_complete());
        self.coverage = Some(coverage.clone());
        !(changed && worth_saying) || self.outbox.send(Message::WatchCoverage(coverage)).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn reads_do_not_count_as_writes() {
        use notify::EventKind;
        use notify::event::{AccessKind, AccessMode, CreateKind, ModifyKind, RenameMode};
        assert!(!is_write(&EventKind::Access(AccessKind::Open(
            AccessMode::Read
        ))));
        assert!(!is_write(&EventKind::Access(AccessKind::Close(
            AccessMode::Read
        ))));
        assert!(is_write(&EventKind::Access(AccessKind::Close(
            AccessMode::Write
        ))));
        assert!(is_write(&EventKind::Create(CreateKind::File)));
        assert!(is_write(&EventKind::Modify(ModifyKind::Name(
            RenameMode::Both
        ))));
    }

    #[test]
    fn temp_files_and_git_internals_are_ignored() {
        assert!(!is_interesting(Path::new(
            "/p/memory-bank/.progress.md.abc.mbank-tmp"
        )));
        assert!(!is_interesting(Path::new("/p/.git/index")));
        assert!(is_interesting(Path::new("/p/memory-bank/progress.md")));
    }

    #[test]
    fn the_budget_leaves_a_quarter_of_the_system_limit() {
        assert_eq!(budget_for(Some(8_192)), 6_144);
        assert_eq!(budget_for(Some(1_000_000)), MAX_WATCHES);
        assert_eq!(budget_for(None), MAX_WATCHES);
    }

    #[test]
    fn coverage_notes_say_why_and_vanish_when_complete() {
        let mut coverage = Coverage {
            watched: 6_144,
            wanted: 9_000,
            system_limit: Some(8_192),
            exhausted: true,
        };
        let note = coverage.note().unwrap();
        assert!(note.contains("6144 of 9000 folders"), "{note}");
        assert!(
            note.contains("max_user_watches = 8192, is used up"),
            "{note}"
        );
        coverage.exhausted = false;
        assert!(coverage.note().unwrap().contains("3/4 of"));
        coverage.watched = 9_000;
        assert_eq!(coverage.note(), None);
    }
}

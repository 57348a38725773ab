//! Live refresh: notify with a short debouncer, watching the root, each project folder
//! and each memory folder — never whole trees recursively. Paths are filtered (our own
//! temp files, `.git`) and de-duplicated before anything reaches the event loop.
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Sender};
use std::thread;
use std::time::Duration;

use notify::RecursiveMode;
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache, new_debouncer};

use super::message::Message;
use super::workers::Outbox;

/// How long writes settle before the UI hears of them.
const DEBOUNCE: Duration = Duration::from_millis(50);
/// How often the debouncer looks for settled events.
const TICK: Duration = Duration::from_millis(20);
/// Beyond this many folders, the rest are not watched (and the user is told).
const MAX_WATCHES: usize = 8_000;

/// The debouncer lives on a thread of its own: registering thousands of folders (a
/// 2,000-project root) takes the better part of a second, which must not hold up the
/// first frame or the keyboard. The loop hands it the wanted set and hears back through
/// messages.
pub struct Watcher {
    requests: Sender<BTreeSet<PathBuf>>,
    /// Sets sent and not yet registered.
    pending: Arc<AtomicUsize>,
}

/// Whether a changed path is worth a refresh.
pub fn is_interesting(path: &std::path::Path) -> bool {
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

/// Whether an event changes content or names. Reads (our own analysis opens every file)
/// and access-time updates must not trigger a refresh, or refreshing would feed itself.
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

impl Watcher {
    pub fn spawn(outbox: Outbox) -> Result<Watcher, String> {
        let events = outbox.clone();
        let handler = move |result: DebounceEventResult| {
            let message = match result {
                Ok(events) => {
                    let paths: BTreeSet<PathBuf> = events
                        .iter()
                        .filter(|e| is_write(&e.event.kind))
                        .flat_map(|e| e.paths.iter())
                        .filter(|p| is_interesting(p))
                        .cloned()
                        .collect();
                    if paths.is_empty() {
                        return;
                    }
                    Message::FilesChanged(paths.into_iter().collect())
                }
                Err(errors) => Message::WatchProblem(
                    errors
                        .first()
                        .map(|e| e.to_string())
                        .unwrap_or_else(|| "unknown watcher error".into()),
                ),
            };
            let _ = events.send(message);
        };
        let debouncer = new_debouncer(DEBOUNCE, Some(TICK), handler).map_err(|e| e.to_string())?;
        let (requests, inbox) = mpsc::channel::<BTreeSet<PathBuf>>();
        let pending = Arc::new(AtomicUsize::new(0));
        let done = pending.clone();
        thread::spawn(move || {
            let mut folders = Folders {
                debouncer,
                watched: BTreeSet::new(),
            };
            while let Ok(mut wanted) = inbox.recv() {
                let mut taken = 1;
                // Only the newest set matters.
                while let Ok(newer) = inbox.try_recv() {
                    wanted = newer;
                    taken += 1;
                }
                let problem = folders.watch_exactly(wanted);
                done.fetch_sub(taken, Ordering::AcqRel);
                if let Some(problem) = problem
                    && outbox.send(Message::WatchProblem(problem)).is_err()
                {
                    return;
                }
            }
        });
        Ok(Watcher { requests, pending })
    }

    /// Watches exactly these folders (non-recursively), on the watcher's thread; a
    /// problem comes back as [`Message::WatchProblem`].
    pub fn watch_exactly(&self, folders: BTreeSet<PathBuf>) {
        self.pending.fetch_add(1, Ordering::AcqRel);
        if self.requests.send(folders).is_err() {
            self.pending.fetch_sub(1, Ordering::AcqRel);
        }
    }

    /// True once every folder set asked for so far is being watched.
    pub fn is_settled(&self) -> bool {
        self.pending.load(Ordering::Acquire) == 0
    }
}

/// The debouncer and what it watches, owned by the watcher's thread.
struct Folders {
    debouncer: Debouncer<notify::RecommendedWatcher, RecommendedCache>,
    watched: BTreeSet<PathBuf>,
}

impl Folders {
    fn watch_exactly(&mut self, folders: BTreeSet<PathBuf>) -> Option<String> {
        let wanted: BTreeSet<PathBuf> = folders.into_iter().take(MAX_WATCHES).collect();
        let stale: Vec<PathBuf> = self.watched.difference(&wanted).cloned().collect();
        for path in stale {
            let _ = self.debouncer.unwatch(&path);
            self.watched.remove(&path);
        }
        let mut problem = None;
        for path in wanted {
            if self.watched.contains(&path) {
                continue;
            }
            match self.debouncer.watch(&path, RecursiveMode::NonRecursive) {
                Ok(()) => {
                    self.watched.insert(path);
                }
                // A folder that vanished meanwhile is simply not watched.
                Err(e) if path.exists() => {
                    problem.get_or_insert_with(|| format!("cannot watch {}: {e}", path.display()));
                }
                Err(_) => {}
            }
        }
        problem
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(!is_interesting(std::path::Path::new(
            "/p/memory-bank/.progress.md.abc.mbank-tmp"
        )));
        assert!(!is_interesting(std::path::Path::new("/p/.git/index")));
        assert!(is_interesting(std::path::Path::new(
            "/p/memory-bank/progress.md"
        )));
    }
}

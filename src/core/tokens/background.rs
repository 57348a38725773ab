//! Counting off the caller's thread, so a listing is shown at once and figures arrive as
//! they are ready: cache hits first (they cost nothing), then each counted file, then
//! `Done`. Dropping or cancelling the handle stops the work at the next file, which is
//! what the TUI does when the user moves to another project.
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

use super::cache::{FileKey, TokenCache};
use super::files::Batch;
use super::{Encoding, TextStats};
use crate::core::error::CoreError;
use crate::core::model::MemoryFile;

/// One message from a background counter.
#[derive(Debug)]
pub enum CountEvent {
    /// Figures (or the reason there are none) for `files[index]` of the job list.
    File {
        index: usize,
        result: Result<TextStats, CoreError>,
    },
    /// The last message. `cancelled` when stopped early; `problem` when the counter could
    /// not start or the cache could not be saved (the figures sent are still right).
    Done {
        hits: usize,
        misses: usize,
        cancelled: bool,
        problem: Option<String>,
    },
}

/// A running counter. Dropping it cancels the work.
pub struct CounterHandle {
    pub events: Receiver<CountEvent>,
    cancelled: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl CounterHandle {
    /// Asks the counter to stop after the file it is on; it still sends `Done`.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }

    /// Waits for the counter thread to end (after `Done` or a cancellation).
    pub fn join(mut self) {
        if let Some(thread) = self.thread.take() {
            // A panic inside the counter already ended its work; nothing to recover.
            let _ = thread.join();
        }
    }
}

impl Drop for CounterHandle {
    fn drop(&mut self) {
        self.cancel();
    }
}

fn lock(cache: &Mutex<TokenCache>) -> MutexGuard<'_, TokenCache> {
    // A panic elsewhere while holding the lock leaves entries that are each complete.
    cache.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Counts `files` on a new thread, sending one `CountEvent::File` per file and then
/// `Done`. The cache is locked only briefly per file, never while counting, and saved
/// at the end when anything new was counted (also after a cancellation). It is used only
/// if it is `encoding`'s cache.
pub fn spawn_counter(
    files: Vec<MemoryFile>,
    encoding: Encoding,
    cache: Arc<Mutex<TokenCache>>,
) -> CounterHandle {
    let (sender, events) = mpsc::channel();
    let cancelled = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&cancelled);
    let worker_sender = sender.clone();
    let spawned = std::thread::Builder::new()
        .name("mbank-token-counter".into())
        .spawn(move || run(&files, encoding, &cache, &flag, &worker_sender));
    let thread = match spawned {
        Ok(thread) => Some(thread),
        Err(e) => {
            let _ = sender.send(CountEvent::Done {
                hits: 0,
                misses: 0,
                cancelled: false,
                problem: Some(format!("cannot start the token counter: {e}")),
            });
            None
        }
    };
    CounterHandle {
        events,
        cancelled,
        thread,
    }
}

fn run(
    files: &[MemoryFile],
    encoding: Encoding,
    cache: &Mutex<TokenCache>,
    cancelled: &AtomicBool,
    events: &Sender<CountEvent>,
) {
    let use_cache = lock(cache).encoding() == encoding;
    let is_cancelled = || cancelled.load(Ordering::Relaxed);
    let mut hits = 0;
    let mut misses = Vec::new();
    if use_cache {
        let mut cache = lock(cache);
        for (index, file) in files.iter().enumerate() {
            match cache.get(&FileKey::of(file)) {
                Some(stats) => {
                    hits += 1;
                    // A closed receiver means nobody listens any more: stop.
                    if events
                        .send(CountEvent::File {
                            index,
                            result: Ok(stats),
                        })
                        .is_err()
                    {
                        return;
                    }
                }
                None => misses.push(index),
            }
        }
    } else {
        misses.extend(0..files.len());
    }

    let mut batch = Batch::default();
    let mut counted = 0;
    let mut stopped_early = false;
    for &index in &misses {
        if is_cancelled() {
            stopped_early = true;
            break;
        }
        let file = &files[index];
        let result = batch.measure(file, encoding);
        counted += 1;
        if use_cache && let Ok(stats) = &result {
            lock(cache).insert(&FileKey::of(file), stats);
        }
        if events.send(CountEvent::File { index, result }).is_err() {
            stopped_early = true;
            break;
        }
    }

    let problem = if use_cache {
        lock(cache)
            .save()
            .err()
            .map(|e| format!("token cache not saved: {e}"))
    } else {
        None
    };
    let _ = events.send(CountEvent::Done {
        hits,
        misses: counted,
        cancelled: stopped_early || is_cancelled(),
        problem,
    });
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};
    use std::time::Duration;

    use super::*;
    use crate::core::model::{LoadKind, Role};
    use crate::core::tokens::count;

    fn file(path: &Path) -> MemoryFile {
        let meta = std::fs::metadata(path).ok();
        MemoryFile {
            path: path.to_path_buf(),
            display: path.display().to_string(),
            role: Role::Other,
            layer: None,
            order: 0,
            group: None,
            load: LoadKind::Startup,
            size: meta.as_ref().map_or(0, |m| m.len()),
            modified: meta.and_then(|m| m.modified().ok()),
            memory: None,
            unreadable: None,
        }
    }

    type Counted = Vec<(usize, Result<TextStats, CoreError>)>;

    /// Collects every event until `Done`, failing rather than hanging.
    fn drain(handle: &CounterHandle) -> (Counted, CountEvent) {
        let mut files = Vec::new();
        loop {
            match handle.events.recv_timeout(Duration::from_secs(60)).unwrap() {
                CountEvent::File { index, result } => files.push((index, result)),
                done @ CountEvent::Done { .. } => return (files, done),
            }
        }
    }

    fn write_files(dir: &Path, count: usize) -> Vec<PathBuf> {
        (0..count)
            .map(|i| {
                let path = dir.join(format!("f{i}.md"));
                std::fs::write(&path, format!("# File {i}\nsome words about file {i}\n")).unwrap();
                path
            })
            .collect()
    }

    #[test]
    fn sends_one_event_per_file_then_done_and_saves() {
        let dir = tempfile::tempdir().unwrap();
        let cache_dir = dir.path().join("cache");
        let mut paths = write_files(dir.path(), 3);
        paths.push(dir.path().join("missing.md"));
        let files: Vec<MemoryFile> = paths.iter().map(|p| file(p)).collect();
        let cache = Arc::new(Mutex::new(TokenCache::open_at(&cache_dir, Encoding::O200k)));

        let handle = spawn_counter(files.clone(), Encoding::O200k, Arc::clone(&cache));
        let (mut events, done) = drain(&handle);
        handle.join();
        events.sort_by_key(|(index, _)| *index);
        assert_eq!(
            events.iter().map(|(i, _)| *i).collect::<Vec<_>>(),
            vec![0, 1, 2, 3]
        );
        assert_eq!(
            events[1].1.as_ref().unwrap().loaded_tokens,
            count(Encoding::O200k, "# File 1\nsome words about file 1\n")
        );
        assert!(events[3].1.is_err());
        match done {
            CountEvent::Done {
                hits,
                misses,
                cancelled,
                problem,
            } => assert_eq!((hits, misses, cancelled, problem), (0, 4, false, None)),
            other => panic!("unexpected {other:?}"),
        }

        // A new start (new cache object from disk): every readable file is a hit, sent
        // before any counted file.
        let reopened = Arc::new(Mutex::new(TokenCache::open_at(&cache_dir, Encoding::O200k)));
        let handle = spawn_counter(files, Encoding::O200k, Arc::clone(&reopened));
        let (events, done) = drain(&handle);
        let order: Vec<usize> = events.iter().map(|(i, _)| *i).collect();
        assert_eq!(order, vec![0, 1, 2, 3]);
        assert!(matches!(
            done,
            CountEvent::Done {
                hits: 3,
                misses: 1,
                ..
            }
        ));
        let cache = lock(&reopened);
        assert_eq!((cache.hits(), cache.misses()), (3, 1));
    }

    #[test]
    fn hits_come_before_counted_files() {
        let dir = tempfile::tempdir().unwrap();
        let paths = write_files(dir.path(), 4);
        let files: Vec<MemoryFile> = paths.iter().map(|p| file(p)).collect();
        let mut warm = TokenCache::in_memory(Encoding::Bytes4);
        // Files 1 and 3 are already known.
        for index in [1, 3] {
            let stats = super::super::analyze("cached", Encoding::Bytes4);
            warm.insert(&FileKey::of(&files[index]), &stats);
        }
        let cache = Arc::new(Mutex::new(warm));
        let handle = spawn_counter(files, Encoding::Bytes4, cache);
        let (events, _) = drain(&handle);
        let order: Vec<usize> = events.iter().map(|(i, _)| *i).collect();
        assert_eq!(order, vec![1, 3, 0, 2]);
        assert_eq!(events[0].1.as_ref().unwrap().bytes, 6);
    }

    #[test]
    fn cancelling_stops_the_work_and_still_says_done() {
        let dir = tempfile::tempdir().unwrap();
        let paths = write_files(dir.path(), 200);
        let files: Vec<MemoryFile> = paths.iter().map(|p| file(p)).collect();
        let cache = Arc::new(Mutex::new(TokenCache::in_memory(Encoding::O200k)));
        let handle = spawn_counter(files, Encoding::O200k, cache);
        handle.cancel();
        let (events, done) = drain(&handle);
        assert!(handle.is_cancelled());
        // Cancelled before or soon after it started: it cannot have gone through all.
        match done {
            CountEvent::Done {
                cancelled, misses, ..
            } => {
                assert!(cancelled);
                assert_eq!(misses, events.len());
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(events.len() < 200, "{} files were counted", events.len());
    }

    #[test]
    fn dropping_the_handle_cancels() {
        let dir = tempfile::tempdir().unwrap();
        let paths = write_files(dir.path(), 50);
        let files: Vec<MemoryFile> = paths.iter().map(|p| file(p)).collect();
        let cache = Arc::new(Mutex::new(TokenCache::in_memory(Encoding::Bytes4)));
        let handle = spawn_counter(files, Encoding::Bytes4, Arc::clone(&cache));
        let flag = Arc::clone(&handle.cancelled);
        drop(handle);
        assert!(flag.load(Ordering::Relaxed));
    }
}

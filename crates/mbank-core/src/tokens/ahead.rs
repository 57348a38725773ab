//! Counting while a bank is still being listed: the lister offers each real file as it
//! finds it, and worker threads read and count the files the cache does not hold, so
//! counting starts with the listing's first file instead of after its last. The batch
//! ([`CountAhead::stats_for_files`]) then takes the figures counted ahead and counts
//! only what was not offered.
use chrono::NaiveDate;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::ffi::OsString;
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::SystemTime;

use super::cache::{FileKey, TokenCache};
use super::files::{Detail, PARALLEL_MIN_BYTES, measure_listed, stats_for_files_as};
use super::{Encoding, TextStats};
use crate::error::Result;
use crate::formats::infinity::store::ParsedStore;
use crate::model::MemoryFile;
use mbank_tokens::{FastMap, SPLIT_MIN_BYTES, worker_count};

/// One version of one listed file, as the listing saw it. Its path is kept as bytes:
/// hashing a `Path` walks its components, which cost more than the rest of this
/// bookkeeping; two spellings of one path are then two files, each counted for itself.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct FileVersion {
    path: OsString,
    size: u64,
    modified: Option<SystemTime>,
}

fn version_of(file: &MemoryFile) -> FileVersion {
    FileVersion {
        path: file.path.as_os_str().to_owned(),
        size: file.size,
        modified: file.modified,
    }
}

/// A queued file: the largest is counted first, so no worker is left counting a big
/// file at the end while the others idle; among equals, the first listed.
type Queued = (u64, Reverse<u64>, FileVersion);

/// The counter's queue and results, under its lock.
#[derive(Default)]
struct CounterState {
    /// Offered files not yet picked up by a worker.
    queue: BinaryHeap<Queued>,
    /// How many files were queued so far (the listing order of the next).
    queued_count: u64,
    /// The bytes of every file queued so far.
    queued_bytes: u64,
    /// Every offered file not yet taken: its figures once counted.
    offered: FastMap<FileVersion, Option<Result<TextStats>>>,
    /// Set when the counter is dropped: workers stop.
    closed: bool,
    /// Workers waiting for a file, and the files whose figures the batch waits for: a
    /// wake-up is a system call and a woken thread contends for this state, so only a
    /// thread that waits, and only for what it waits for, is woken.
    idle_workers: usize,
    awaited: Vec<FileVersion>,
    /// Workers started and not stopped.
    live_workers: usize,
}

/// What the counter and its workers share.
struct CounterShared {
    state: Mutex<CounterState>,
    /// Signalled when a file is queued or the counter closes.
    queued: Condvar,
    /// Signalled when a file's figures are in.
    counted: Condvar,
}

impl CounterShared {
    fn lock(&self) -> MutexGuard<'_, CounterState> {
        // A worker never panics while holding the lock (counting runs outside it), so
        // the state is whole even if a lock was poisoned.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Counts listed files on worker threads while the listing goes on (see the module).
/// Workers start with the first file offered; dropping the counter tells them to stop.
pub(crate) struct CountAhead {
    encoding: Encoding,
    detail: Detail,
    shared: Arc<CounterShared>,
    workers: Mutex<Vec<JoinHandle<()>>>,
}

impl CountAhead {
    /// A counter of `encoding` figures, with the dates written in the files judged on
    /// the day `with_dates` gives (as [`super::stats_for_files`]), else figures alone (as
    /// [`super::figures_for_files`]).
    pub fn new(encoding: Encoding, with_dates: Option<NaiveDate>) -> Self {
        CountAhead {
            encoding,
            detail: match with_dates {
                Some(today) => Detail::WithDates(today),
                None => Detail::Figures,
            },
            shared: Arc::new(CounterShared {
                state: Mutex::new(CounterState::default()),
                queued: Condvar::new(),
                counted: Condvar::new(),
            }),
            workers: Mutex::new(Vec::new()),
        }
    }

    /// Queues a listed file for counting, unless `cache` already holds its figures, it
    /// is an Infinity memory (its store is parsed once, by the batch), or it is large
    /// enough to be cut across the cores by the batch itself.
    pub fn offer(&self, file: &MemoryFile, cache: &TokenCache) {
        if file.is_virtual()
            || file.size >= SPLIT_MIN_BYTES as u64
            || (cache.encoding() == self.encoding
                && cache.holds(
                    &FileKey::of(file),
                    matches!(self.detail, Detail::WithDates(_)),
                ))
        {
            return;
        }
        let version = version_of(file);
        let (wake, enough_to_share) = {
            let mut state = self.shared.lock();
            if state.offered.contains_key(&version) {
                return;
            }
            state.offered.insert(version.clone(), None);
            let order = Reverse(state.queued_count);
            state.queued_count += 1;
            state.queue.push((file.size, order, version));
            state.queued_bytes += file.size;
            (
                state.idle_workers > 0,
                state.queued_bytes >= PARALLEL_MIN_BYTES,
            )
        };
        if wake {
            self.shared.queued.notify_one();
        }
        if enough_to_share {
            self.start_workers();
        }
    }

    /// Starts the workers, once, on a machine with cores to share the count. Until they
    /// start (below `PARALLEL_MIN_BYTES` queued, where starting threads costs more than
    /// it saves), or should none start, the batch counts what was offered itself.
    fn start_workers(&self) {
        let mut workers = self.workers.lock().unwrap_or_else(PoisonError::into_inner);
        if !workers.is_empty() || worker_count() < 2 {
            return;
        }
        for _ in 0..worker_count() {
            let shared = Arc::clone(&self.shared);
            let (encoding, detail) = (self.encoding, self.detail);
            self.shared.lock().live_workers += 1;
            let spawned = std::thread::Builder::new()
                .name("mbank-count".into())
                .spawn(move || {
                    let _stopping = Stopping(&shared);
                    work(&shared, encoding, detail);
                });
            match spawned {
                Ok(handle) => workers.push(handle),
                Err(_) => self.shared.lock().live_workers -= 1,
            }
        }
    }

    /// The figures counted ahead for this version of `file`, waiting for them when they
    /// are still being counted; `None` when it was not offered, or its count failed to
    /// finish. With no worker running, the calling thread counts what is queued: a
    /// worker's memo has learnt the pieces of the files it counted, and a memo starting
    /// empty on this thread would learn them all again.
    fn take(&self, file: &MemoryFile) -> Option<Result<TextStats>> {
        let version = version_of(file);
        let mut state = self.shared.lock();
        loop {
            match state.offered.get(&version) {
                None => return None,
                Some(Some(_)) => return state.offered.remove(&version).flatten(),
                Some(None) => {}
            }
            let queued = match state.live_workers {
                0 => state.queue.pop(),
                _ => None,
            };
            state = match queued {
                Some((_, _, queued)) => {
                    drop(state);
                    count_one(&self.shared, queued, self.encoding, self.detail)
                }
                None => {
                    state.awaited.push(version.clone());
                    let mut state = self
                        .shared
                        .counted
                        .wait(state)
                        .unwrap_or_else(PoisonError::into_inner);
                    if let Some(at) = state.awaited.iter().position(|v| *v == version) {
                        state.awaited.swap_remove(at);
                    }
                    state
                }
            };
        }
    }

    /// [`super::stats_for_files`] (or [`super::figures_for_files`], as this counter was
    /// made) taking the figures counted ahead.
    pub fn stats_for_files(
        &self,
        files: &[MemoryFile],
        listed_store: Option<&ParsedStore>,
        cache: &mut TokenCache,
    ) -> Vec<Result<TextStats>> {
        let counted_ahead = |file: &MemoryFile| self.take(file);
        stats_for_files_as(
            files,
            listed_store,
            self.encoding,
            cache,
            self.detail,
            Some(&counted_ahead),
        )
    }
}

impl Drop for CountAhead {
    /// Tells the workers to stop without waiting for them: each is idle or finishing a
    /// file nobody will take, and waiting while each frees its memo on the way out
    /// would only hold the caller up (a process that exits meanwhile ends them).
    fn drop(&mut self) {
        self.shared.lock().closed = true;
        self.shared.queued.notify_all();
    }
}

/// Marks a worker stopped however it stops, so the batch never waits on a worker that
/// is gone.
struct Stopping<'a>(&'a CounterShared);

impl Drop for Stopping<'_> {
    fn drop(&mut self) {
        self.0.lock().live_workers -= 1;
        self.0.counted.notify_all();
    }
}

/// A worker: counts queued files until the counter closes.
fn work(shared: &CounterShared, encoding: Encoding, detail: Detail) {
    super::reserve_for_bulk(encoding);
    let mut state = shared.lock();
    loop {
        if state.closed {
            return;
        }
        state = match state.queue.pop() {
            Some((_, _, queued)) => {
                drop(state);
                count_one(shared, queued, encoding, detail)
            }
            None => {
                state.idle_workers += 1;
                let mut state = shared
                    .queued
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
                state.idle_workers -= 1;
                state
            }
        };
    }
}

/// Counts one queued file and hands its figures over; returns the lock, taken again.
/// A count that panics withdraws the file, so the batch counts it itself (and meets the
/// same panic where it would have without counting ahead) rather than waiting forever.
fn count_one<'a>(
    shared: &'a CounterShared,
    version: FileVersion,
    encoding: Encoding,
    detail: Detail,
) -> MutexGuard<'a, CounterState> {
    let path = Path::new(&version.path);
    let measured = std::panic::catch_unwind(|| measure_listed(path, encoding, detail)).ok();
    let mut state = shared.lock();
    match measured {
        Some(measured) => {
            if let Some(slot) = state.offered.get_mut(&version) {
                *slot = Some(measured);
            }
        }
        None => {
            state.offered.remove(&version);
        }
    }
    if state.awaited.contains(&version) {
        shared.counted.notify_all();
    }
    state
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::CoreError;
    use crate::tokens::files::tests::{real_file, test_day, virtual_file};
    use crate::tokens::{count, figures_for_files, stats_for_files};

    /// The figures or the error, as a caller shows them.
    fn shown(results: &[Result<TextStats>]) -> Vec<std::result::Result<TextStats, String>> {
        results
            .iter()
            .map(|r| match r {
                Ok(stats) => Ok(stats.clone()),
                Err(error) => Err(error.to_string()),
            })
            .collect()
    }

    fn offered(ahead: &CountAhead) -> usize {
        ahead.shared.lock().offered.len()
    }

    fn workers(ahead: &CountAhead) -> usize {
        ahead.workers.lock().unwrap().len()
    }

    #[test]
    fn files_counted_while_listed_equal_the_batch_counted_after_errors_included() {
        let dir = tempfile::tempdir().unwrap();
        let mut files = Vec::new();
        for i in 0..40 {
            let path = dir.path().join(format!("f{i}.md"));
            std::fs::write(&path, format!("# File {i}\n").repeat(i * 50 + 1)).unwrap();
            files.push(real_file(&path));
        }
        let binary = dir.path().join("binary.md");
        std::fs::write(&binary, b"ab\0cd").unwrap();
        let latin1 = dir.path().join("latin1.md");
        std::fs::write(&latin1, b"caf\xE9\n").unwrap();
        let bom = dir.path().join("bom.md");
        std::fs::write(&bom, "\u{feff}# Title\nbody\n").unwrap();
        let folder = dir.path().join("folder.md");
        std::fs::create_dir(&folder).unwrap();
        let store = dir.path().join("store.json");
        std::fs::write(
            &store,
            r#"{"memories": [{"id": "m-1", "title": "One", "type": "rules", "content": "first memory"}]}"#,
        )
        .unwrap();
        files.extend([
            real_file(&binary),
            real_file(&latin1),
            real_file(&bom),
            real_file(&dir.path().join("vanished.md")),
            real_file(&folder),
            virtual_file(&store, "m-1", 12),
        ]);
        for with_dates in [true, false] {
            let mut plain = TokenCache::in_memory(Encoding::O200k);
            let expected = if with_dates {
                stats_for_files(&files, None, Encoding::O200k, &mut plain, test_day())
            } else {
                figures_for_files(&files, None, Encoding::O200k, &mut plain)
            };
            let ahead = CountAhead::new(Encoding::O200k, with_dates.then(test_day));
            let mut cache = TokenCache::in_memory(Encoding::O200k);
            for file in &files {
                ahead.offer(file, &cache);
            }
            // Enough bytes to share: workers count them, on a machine with cores to share.
            assert_eq!(workers(&ahead) > 0, worker_count() > 1);
            // Every real file is offered; the memory is left to the batch.
            assert_eq!(offered(&ahead), files.len() - 1);
            let results = ahead.stats_for_files(&files, None, &mut cache);
            assert_eq!(shown(&results), shown(&expected));
            assert_eq!(offered(&ahead), 0, "every offered file was taken");
            assert_eq!(
                (cache.hits(), cache.misses(), cache.len()),
                (plain.hits(), plain.misses(), plain.len())
            );
        }
        let mut cache = TokenCache::in_memory(Encoding::O200k);
        let results =
            CountAhead::new(Encoding::O200k, None).stats_for_files(&files, None, &mut cache);
        assert!(matches!(results[40], Err(CoreError::Binary { .. })));
        assert!(matches!(results[41], Err(CoreError::InvalidUtf8 { .. })));
        assert_eq!(
            results[42].as_ref().unwrap().loaded_tokens,
            count(Encoding::O200k, "# Title\nbody\n")
        );
        assert!(matches!(results[43], Err(CoreError::Io { .. })));
        assert!(matches!(results[44], Err(CoreError::Io { .. })));
    }

    #[test]
    fn a_file_the_cache_holds_is_not_counted_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");
        std::fs::write(&path, "# A\nShipped on 2024-05-06.\n").unwrap();
        let files = [real_file(&path)];
        let mut cache = TokenCache::in_memory(Encoding::O200k);
        let figures = figures_for_files(&files, None, Encoding::O200k, &mut cache);

        // Figures alone are held: a counter of figures has nothing to do.
        let figures_ahead = CountAhead::new(Encoding::O200k, None);
        figures_ahead.offer(&files[0], &cache);
        assert_eq!(offered(&figures_ahead), 0);
        let again = figures_ahead.stats_for_files(&files, None, &mut cache);
        assert_eq!(shown(&again), shown(&figures));
        // A counter needing the dates counts the file, which the cache held without them.
        let dates_ahead = CountAhead::new(Encoding::O200k, Some(test_day()));
        dates_ahead.offer(&files[0], &cache);
        assert_eq!(offered(&dates_ahead), 1);
        // A cache of another encoding holds nothing for this counter.
        let other = TokenCache::in_memory(Encoding::Cl100k);
        let cl100k_ahead = CountAhead::new(Encoding::O200k, None);
        cl100k_ahead.offer(&files[0], &other);
        assert_eq!(offered(&cl100k_ahead), 1);
    }

    #[test]
    fn a_file_listed_twice_is_counted_for_each_listing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("shared.md");
        std::fs::write(&path, "# Shared\nread by two banks\n").unwrap();
        let file = real_file(&path);
        let ahead = CountAhead::new(Encoding::O200k, None);
        let cache = TokenCache::in_memory(Encoding::O200k);
        ahead.offer(&file, &cache);
        ahead.offer(&file, &cache);
        assert_eq!(offered(&ahead), 1);
        // Too little to share: no thread starts, the batch counts it.
        assert_eq!(workers(&ahead), 0);
        let expected = count(Encoding::O200k, "# Shared\nread by two banks\n");
        for _ in 0..2 {
            let mut cache = TokenCache::in_memory(Encoding::O200k);
            let results = ahead.stats_for_files(std::slice::from_ref(&file), None, &mut cache);
            assert_eq!(results[0].as_ref().unwrap().loaded_tokens, expected);
        }
    }

    #[test]
    fn a_file_changed_after_it_was_offered_is_counted_as_listed_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");
        std::fs::write(&path, "one").unwrap();
        let listed = real_file(&path);
        let ahead = CountAhead::new(Encoding::O200k, None);
        ahead.offer(&listed, &TokenCache::in_memory(Encoding::O200k));
        // Listed again with another version: what was counted for the first is not it.
        let mut relisted = listed.clone();
        relisted.size += 1;
        assert!(ahead.take(&relisted).is_none());
        assert!(ahead.take(&listed).is_some());
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_listed_as_a_file_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe.md");
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::Mode::from_raw_mode(0o644),
        )
        .unwrap();
        let file = real_file(&fifo);
        let ahead = CountAhead::new(Encoding::O200k, None);
        let mut cache = TokenCache::in_memory(Encoding::O200k);
        ahead.offer(&file, &cache);
        let results = ahead.stats_for_files(std::slice::from_ref(&file), None, &mut cache);
        let error = results[0].as_ref().unwrap_err().to_string();
        assert!(error.contains("not a regular file"), "{error}");
        assert_eq!(
            error,
            crate::io::text::read_text(&fifo).unwrap_err().to_string()
        );
    }
}

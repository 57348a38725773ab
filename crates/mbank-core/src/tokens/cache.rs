//! The on-disk token cache: one small binary file per encoding in the platform cache
//! folder, so a second start recounts nothing that did not change.
//!
//! An entry is keyed by path, Infinity memory id (for virtual files), size and
//! modification time in nanoseconds; the encoding is the file's. The file is a section
//! of mbank's cache store (`tokens::stored`), because a warm `mbank list` over
//! thousands of projects must load it in a few milliseconds: opening reads the file,
//! checks it and indexes the records where they lie, and a record is decoded only when it
//! is looked up. Threads
//! share one loaded file ([`TokenCache::fork`]) and each keeps what it counts to itself
//! until [`TokenCache::absorb`] gathers it. A record counted for its figures alone
//! (`mbank tokens`) says it holds no dates, and only answers callers that need none.
//! A file that is truncated, corrupt, from another version or for another encoding is
//! ignored and the cache starts empty.
//! Saving writes a temporary file in the same folder and renames it over the old one.
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use super::stored::{self as section, Figures, RECORDS, Record};
use super::unsaved::Unsaved;
use super::{Encoding, TextStats};
use crate::cache_store::{self, Loaded, MAX_PAYLOAD, Section};
use crate::error::Result;
use crate::io::hash_index::{HashIndex, key_hash};
use crate::io::paths;
use crate::model::MemoryFile;

/// Above this many entries, saving keeps only those used since opening, so entries of
/// deleted or renamed files cannot grow the file forever.
const MAX_SAVED_ENTRIES: usize = 200_000;

/// What identifies one version of one file: path (and memory id for an Infinity
/// memory), size, modification time and change time (an edit can keep the first two).
#[derive(Debug, Clone, Copy)]
pub struct FileKey<'a> {
    pub path: &'a Path,
    pub memory_id: Option<&'a str>,
    pub size: u64,
    pub modified: Option<SystemTime>,
    pub changed: Option<SystemTime>,
}

impl<'a> FileKey<'a> {
    /// The key of a listed file, from the metadata the listing already read.
    pub fn of(file: &'a MemoryFile) -> Self {
        FileKey {
            path: &file.path,
            memory_id: file.memory.as_ref().map(|m| m.id.as_str()),
            size: file.size,
            modified: file.modified,
            changed: file.changed,
        }
    }
}

/// The version of a file a key names, as records hold it: size, modification time and
/// change time in nanoseconds since the epoch (`NO_CHANGE_TIME` where the platform
/// keeps none). `None` without a modification time: such a file is never cached.
fn version_of(key: &FileKey<'_>) -> Option<(u64, i128, i128)> {
    let changed = key.changed.map_or(NO_CHANGE_TIME, nanos_since_epoch);
    Some((key.size, nanos_since_epoch(key.modified?), changed))
}

/// A change time no file has: the platform keeps none.
const NO_CHANGE_TIME: i128 = i128::MIN;

/// Nanoseconds since the Unix epoch (negative before it).
fn nanos_since_epoch(time: SystemTime) -> i128 {
    match time.duration_since(UNIX_EPOCH) {
        Ok(after) => after.as_nanos() as i128,
        Err(before) => -(before.duration().as_nanos() as i128),
    }
}

/// Hash of (path, memory id): the map key. Collisions are resolved by comparing both.
fn identity_hash(path: &str, memory_id: Option<&str>) -> u64 {
    match memory_id {
        // 0xFF never occurs in UTF-8, so "a" + id "b" differs from path "ab" + no id.
        Some(id) => key_hash(&[path.as_bytes(), &[0xFF], id.as_bytes()]),
        None => key_hash(&[path.as_bytes()]),
    }
}

type KeyHash = fn(&str, Option<&str>) -> u64;

/// Whether figures for a key (its hash, path and memory id) this process has not counted
/// change what `stored` holds. A record holding the same figures is marked used instead,
/// so pruning keeps it; `len` counts a key `stored` does not hold.
fn changes_stored(
    stored: &SavedEntries,
    len: &mut usize,
    (hash, path, memory_id): (u64, &str, Option<&str>),
    figures: Figures,
) -> bool {
    match stored.find_hashed(hash, path, memory_id) {
        Some((number, held)) if held == figures => {
            stored.mark_used(number);
            false
        }
        Some(_) => true,
        None => {
            *len += 1;
            true
        }
    }
}

/// The cache file as it was read, shared read-only by every fork of a cache. Records
/// stay in the file's bytes; only their places are indexed.
struct SavedEntries {
    file: Loaded,
    /// Hash of (path, memory id) to the records with that hash.
    index: HashIndex,
    /// Which records were looked up or confirmed since opening, by any fork.
    used: Vec<AtomicBool>,
    key_hash: KeyHash,
}

impl std::fmt::Debug for SavedEntries {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SavedEntries")
            .field("records", &self.len())
            .field("bytes", &self.file.size())
            .finish()
    }
}

impl SavedEntries {
    fn empty() -> SavedEntries {
        SavedEntries {
            file: Loaded::default(),
            index: HashIndex::default(),
            used: Vec::new(),
            key_hash: identity_hash,
        }
    }

    /// Checks a cache file and indexes its records by key; `None` for anything that is
    /// not a valid cache of `encoding`.
    #[cfg(test)]
    fn parse(bytes: Vec<u8>, encoding: Encoding, key_hash: KeyHash) -> Option<SavedEntries> {
        Self::index(section::parse(bytes, encoding)?, key_hash)
    }

    fn index(file: Loaded, key_hash: KeyHash) -> Option<SavedEntries> {
        let count = file.len(RECORDS);
        let mut index = HashIndex::with_capacity(count);
        for (number, record) in file.records(RECORDS).enumerate() {
            let (path, memory_id) = section::key(record)?;
            index.insert(key_hash(path, memory_id), number as u32);
        }
        let used = (0..count).map(|_| AtomicBool::new(false)).collect();
        Some(SavedEntries {
            file,
            index,
            used,
            key_hash,
        })
    }

    fn len(&self) -> usize {
        self.file.len(RECORDS)
    }

    fn raw(&self, number: usize) -> &[u8] {
        self.file.record(RECORDS, number)
    }

    fn record(&self, number: usize) -> Option<Record<'_>> {
        section::record(self.raw(number))
    }

    /// The number and figures of the record for (path, memory id).
    #[cfg(test)]
    fn find(&self, path: &str, memory_id: Option<&str>) -> Option<(usize, Figures)> {
        self.find_hashed((self.key_hash)(path, memory_id), path, memory_id)
    }

    /// [`SavedEntries::find`] with the key's hash already known.
    fn find_hashed(
        &self,
        hash: u64,
        path: &str,
        memory_id: Option<&str>,
    ) -> Option<(usize, Figures)> {
        self.index.candidates(hash).find_map(|number| {
            let number = number as usize;
            let record = self.record(number)?;
            (record.path == path && record.memory_id == memory_id)
                .then_some((number, record.figures))
        })
    }

    fn mark_used(&self, number: usize) {
        if let Some(flag) = self.used.get(number) {
            flag.store(true, Ordering::Relaxed);
        }
    }

    fn is_used(&self, number: usize) -> bool {
        self.used
            .get(number)
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
    }
}

/// Token counts remembered across runs for one encoding.
#[derive(Debug)]
pub struct TokenCache {
    encoding: Encoding,
    /// Where `save` writes; `None` for a cache that lives in memory only.
    file: Option<PathBuf>,
    stored: Arc<SavedEntries>,
    /// Figures counted in this process; they replace `stored` records of the same key.
    added: Unsaved,
    len: usize,
    dirty: bool,
    hits: usize,
    misses: usize,
}

impl TokenCache {
    /// A cache that is never read from or written to disk.
    pub fn in_memory(encoding: Encoding) -> Self {
        TokenCache {
            encoding,
            file: None,
            stored: Arc::new(SavedEntries::empty()),
            added: Unsaved::default(),
            len: 0,
            dirty: false,
            hits: 0,
            misses: 0,
        }
    }

    /// The cache in mbank's cache folder (`paths::cache_dir`), or an in-memory one when
    /// the platform has no cache folder.
    pub fn open_default(encoding: Encoding) -> Self {
        match paths::cache_dir() {
            Some(dir) => Self::open_at(&dir, encoding),
            None => Self::in_memory(encoding),
        }
    }

    /// The cache file for `encoding` in `dir`. A missing, unreadable or invalid file
    /// gives an empty cache; so does anything but a regular file (a FIFO, a device such
    /// as `/dev/zero`, a folder) or a file over `crate::limits::CACHE_MAX_BYTES`, which are
    /// refused before reading. `save` replaces such a file; the folder is created there.
    pub fn open_at(dir: &Path, encoding: Encoding) -> Self {
        let file = dir.join(Self::file_name(encoding));
        let mut cache = Self::in_memory(encoding);
        if let Some(loaded) = section::read(&file, encoding)
            && let Some(stored) = SavedEntries::index(loaded, identity_hash)
        {
            cache.len = stored.len();
            cache.stored = Arc::new(stored);
        }
        cache.file = Some(file);
        cache
    }

    /// A cache for another thread: it shares the figures loaded from disk (no copy) and
    /// counts on its own; [`TokenCache::absorb`] brings what it learned back.
    pub fn fork(&self) -> TokenCache {
        TokenCache {
            encoding: self.encoding,
            file: self.file.clone(),
            stored: Arc::clone(&self.stored),
            added: self.added.clone(),
            len: self.len,
            dirty: false,
            hits: 0,
            misses: 0,
        }
    }

    /// File name of an encoding's cache, e.g. `tokens-o200k_base.bin`.
    pub fn file_name(encoding: Encoding) -> String {
        let id = match encoding {
            Encoding::Bytes4 => "bytes4",
            other => other.id(),
        };
        format!("tokens-{id}.bin")
    }

    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// Where `save` writes, if anywhere.
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Lookups answered from the cache since it was opened.
    pub fn hits(&self) -> usize {
        self.hits
    }

    /// Lookups that found nothing valid (a new or changed file).
    pub fn misses(&self) -> usize {
        self.misses
    }

    /// The remembered figures and written dates for this exact version of the file. A
    /// file without a modification time or with a non-UTF-8 path is never cached.
    pub fn get(&mut self, key: &FileKey<'_>) -> Option<TextStats> {
        self.get_as(key, true)
    }

    /// [`TokenCache::get`] for a caller that uses no dates (`mbank tokens`): figures
    /// counted without looking for dates are found too, with no dates.
    pub(crate) fn get_figures(&mut self, key: &FileKey<'_>) -> Option<TextStats> {
        self.get_as(key, false)
    }

    /// Whether [`TokenCache::get`] (`with_dates`) or `TokenCache::get_figures` would
    /// find figures for this version of the file; not counted as a hit or a miss.
    pub fn holds(&self, key: &FileKey<'_>, with_dates: bool) -> bool {
        self.lookup(key)
            .is_some_and(|figures| figures.dates_known || !with_dates)
    }

    fn get_as(&mut self, key: &FileKey<'_>, with_dates: bool) -> Option<TextStats> {
        let found = self
            .lookup(key)
            .filter(|figures| figures.dates_known || !with_dates)
            .map(|figures| figures.stats(self.encoding));
        if found.is_some() {
            self.hits += 1;
        } else {
            self.misses += 1;
        }
        found
    }

    /// The key hash of (path, memory id); the loaded file's, so one hash serves both the
    /// figures counted here and the records read from disk.
    fn hash(&self, path: &str, memory_id: Option<&str>) -> u64 {
        (self.stored.key_hash)(path, memory_id)
    }

    /// The figures counted in this process for (path, memory id).
    fn added_figures(&self, path: &str, memory_id: Option<&str>) -> Option<Figures> {
        self.added
            .figures(self.hash(path, memory_id), path, memory_id)
    }

    fn lookup(&self, key: &FileKey<'_>) -> Option<Figures> {
        let path = key.path.to_str()?;
        let version = version_of(key)?;
        let hash = self.hash(path, key.memory_id);
        // Figures counted in this process replace whatever the file held.
        if let Some(figures) = self.added.figures(hash, path, key.memory_id) {
            return figures.is_version(version).then_some(figures);
        }
        let (number, figures) = self.stored.find_hashed(hash, path, key.memory_id)?;
        if !figures.is_version(version) {
            return None;
        }
        self.stored.mark_used(number);
        Some(figures)
    }

    /// Remembers the figures and written dates of a file version, replacing those of
    /// older versions. Figures of another encoding are refused (they would poison this
    /// file).
    pub fn insert(&mut self, key: &FileKey<'_>, stats: &TextStats) {
        self.insert_as(key, stats, true);
    }

    /// Remembers figures counted without looking for dates ([`super::measure`]); what
    /// the cache holds for the same version with its dates is kept instead.
    pub(crate) fn insert_figures(&mut self, key: &FileKey<'_>, stats: &TextStats) {
        if self.lookup(key).is_some_and(|figures| figures.dates_known) {
            return;
        }
        self.insert_as(key, stats, false);
    }

    fn insert_as(&mut self, key: &FileKey<'_>, stats: &TextStats, dates_known: bool) {
        if stats.encoding != self.encoding {
            return;
        }
        let (Some(path), Some(version)) = (key.path.to_str(), version_of(key)) else {
            return;
        };
        self.remember(
            path,
            key.memory_id,
            Figures::of(version, stats, dates_known),
        );
    }

    fn remember(&mut self, path: &str, memory_id: Option<&str>, figures: Figures) {
        let hash = self.hash(path, memory_id);
        if let Some(old) = self.added.figures(hash, path, memory_id) {
            if old != figures {
                self.added.put(hash, path, memory_id, figures);
                self.dirty = true;
            }
            return;
        }
        if !changes_stored(
            &self.stored,
            &mut self.len,
            (hash, path, memory_id),
            figures,
        ) {
            return;
        }
        self.added.put(hash, path, memory_id, figures);
        self.dirty = true;
    }

    /// Takes over what another cache of the same encoding learned (figures counted or
    /// entries used), so work split across threads is saved once. Figures of another
    /// encoding are ignored.
    pub fn absorb(&mut self, other: TokenCache) {
        if other.encoding != self.encoding {
            return;
        }
        self.hits += other.hits;
        self.misses += other.misses;
        // A fork marks what it used in the shared records itself; a cache opened apart
        // passes on the records it used.
        if !Arc::ptr_eq(&self.stored, &other.stored) {
            for number in 0..other.stored.len() {
                if !other.stored.is_used(number) {
                    continue;
                }
                let Some(record) = other.stored.record(number) else {
                    continue;
                };
                if other.added_figures(record.path, record.memory_id).is_none() {
                    self.remember(record.path, record.memory_id, record.figures);
                }
            }
        }
        // The other cache's records are taken over where they lie, not copied: when
        // workers' caches are gathered, each holds the figures of thousands of files.
        let key_hash = self.stored.key_hash;
        let stored = Arc::clone(&self.stored);
        let (len, dirty) = (&mut self.len, &mut self.dirty);
        self.added.absorb(other.added, |record, held| {
            let taken = match held {
                Some(held) => held != record.figures,
                None => {
                    let key = (record.path, record.memory_id);
                    let hash = key_hash(key.0, key.1);
                    changes_stored(&stored, len, (hash, key.0, key.1), record.figures)
                }
            };
            *dirty |= taken;
            taken
        });
    }

    /// True when there is something `save` would write.
    pub fn is_dirty(&self) -> bool {
        self.dirty
    }

    /// Writes the cache if it changed: to a temporary file in the same folder, renamed
    /// over the old one, so a crash or a concurrent reader never sees half a file.
    pub fn save(&mut self) -> Result<()> {
        let Some(file) = self.file.clone() else {
            self.dirty = false;
            return Ok(());
        };
        if !self.dirty {
            return Ok(());
        }
        self.write_to(&file)?;
        self.dirty = false;
        Ok(())
    }

    /// Writes the file's one table of records: records from disk that nothing replaced
    /// (copied as they are), then the figures counted in this process, each encoded as it
    /// is written. Records are sorted by path: a run looks files up in about that order,
    /// so its lookups walk the loaded file front to back instead of jumping around it.
    fn write_to(&self, file: &Path) -> Result<()> {
        /// A record of the loaded file, or one counted in this process, by number.
        enum Source {
            Stored(usize),
            Added(u32),
        }
        type Listed<'e> = (&'e str, Option<&'e str>, Source);
        fn encoded<'s>(
            cache: &'s TokenCache,
            &(path, memory_id, ref source): &Listed<'_>,
            scratch: &'s mut Vec<u8>,
        ) -> Option<&'s [u8]> {
            match *source {
                Source::Stored(number) => Some(cache.stored.raw(number)),
                Source::Added(number) => {
                    scratch.clear();
                    let record = Record {
                        path,
                        memory_id,
                        figures: cache.added.record(number)?.figures,
                    };
                    record.write_to(scratch).then_some(&scratch[..])
                }
            }
        }
        let mut records: Vec<Listed<'_>> = Vec::with_capacity(self.len);
        for (number, held) in self.added.records() {
            records.push((held.path, held.memory_id, Source::Added(number)));
        }
        let keep_unused = self.len <= MAX_SAVED_ENTRIES;
        for number in 0..self.stored.len() {
            if !keep_unused && !self.stored.is_used(number) {
                continue;
            }
            let Some((path, memory_id)) = section::key(self.stored.raw(number)) else {
                continue;
            };
            if self.added_figures(path, memory_id).is_none() {
                records.push((path, memory_id, Source::Stored(number)));
            }
        }
        records.sort_unstable_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)));
        // A file over the size limit would be ignored when read back: stop short of it
        // (each record also takes its length, at most ten bytes). Figures that cannot be
        // encoded are left out.
        let mut scratch = Vec::new();
        let mut size = 64;
        let mut kept = 0;
        records.retain(|listed| {
            let Some(record) = encoded(self, listed, &mut scratch) else {
                return false;
            };
            size += record.len() + 10;
            kept += usize::from(size <= MAX_PAYLOAD);
            true
        });
        records.truncate(kept);
        let scope = section::scope(self.encoding);
        cache_store::save_tables(file, Section::Tokens, scope, 1, |out| {
            out.table(records.len());
            records.iter().all(|listed| {
                encoded(self, listed, &mut scratch).is_some_and(|record| {
                    out.record(record);
                    true
                })
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::cache_store::HEADER_LEN;
    use crate::markup::dates::WrittenDates;

    fn stats(tokens: usize, encoding: Encoding) -> TextStats {
        TextStats {
            bytes: 40,
            lines: 3,
            chars: 38,
            loaded_tokens: tokens,
            private_tokens: 2,
            private_blocks: 1,
            private_file: false,
            encoding,
            dates: WrittenDates::default(),
        }
    }

    /// A key whose file changed (ctime) when it was last modified.
    fn key<'a>(path: &'a Path, id: Option<&'a str>, size: u64, nanos: u64) -> FileKey<'a> {
        FileKey {
            path,
            memory_id: id,
            size,
            modified: Some(UNIX_EPOCH + Duration::from_nanos(nanos)),
            changed: Some(UNIX_EPOCH + Duration::from_nanos(nanos)),
        }
    }

    #[test]
    fn absorb_merges_what_another_thread_counted_and_saves_once() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.md");
        let b = dir.path().join("b.md");
        let mut main = TokenCache::open_at(dir.path(), Encoding::O200k);
        main.insert(&key(&a, None, 40, 1), &stats(5, Encoding::O200k));
        main.save().unwrap();

        let mut main = TokenCache::open_at(dir.path(), Encoding::O200k);
        let mut helper = TokenCache::open_at(dir.path(), Encoding::O200k);
        assert!(helper.get(&key(&a, None, 40, 1)).is_some());
        helper.insert(&key(&b, None, 40, 2), &stats(7, Encoding::O200k));
        // A newer version of a.md, counted by the helper, replaces the old figures.
        helper.insert(&key(&a, None, 41, 3), &stats(6, Encoding::O200k));
        main.absorb(helper);
        assert!(main.is_dirty());
        assert_eq!(main.len(), 2);
        main.save().unwrap();

        let mut reopened = TokenCache::open_at(dir.path(), Encoding::O200k);
        assert_eq!(
            reopened.get(&key(&b, None, 40, 2)).map(|s| s.loaded_tokens),
            Some(7)
        );
        assert_eq!(
            reopened.get(&key(&a, None, 41, 3)).map(|s| s.loaded_tokens),
            Some(6)
        );
        assert!(reopened.get(&key(&a, None, 40, 1)).is_none());

        // Only lookups, nothing new: absorbing changes nothing on disk.
        let mut helper = TokenCache::open_at(dir.path(), Encoding::O200k);
        assert!(helper.get(&key(&b, None, 40, 2)).is_some());
        reopened.absorb(helper);
        assert!(!reopened.is_dirty());
        // Another encoding's figures are ignored.
        let mut other = TokenCache::in_memory(Encoding::Cl100k);
        other.insert(&key(&b, None, 99, 9), &stats(1, Encoding::Cl100k));
        reopened.absorb(other);
        assert!(!reopened.is_dirty());
    }

    #[test]
    fn forks_share_the_loaded_file_and_their_counts_are_gathered() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b, c) = (
            dir.path().join("a.md"),
            dir.path().join("b.md"),
            dir.path().join("c.md"),
        );
        let mut first = TokenCache::open_at(dir.path(), Encoding::O200k);
        first.insert(&key(&a, None, 40, 1), &stats(5, Encoding::O200k));
        first.insert(&key(&b, None, 40, 1), &stats(6, Encoding::O200k));
        first.save().unwrap();

        let mut main = TokenCache::open_at(dir.path(), Encoding::O200k);
        let mut left = main.fork();
        let mut right = main.fork();
        assert_eq!(
            left.get(&key(&a, None, 40, 1)).map(|s| s.loaded_tokens),
            Some(5)
        );
        right.insert(&key(&c, None, 40, 1), &stats(7, Encoding::O200k));
        // Re-inserting what the file holds is not a change.
        left.insert(&key(&b, None, 40, 1), &stats(6, Encoding::O200k));
        assert!(!left.is_dirty());
        main.absorb(left);
        assert!(!main.is_dirty());
        main.absorb(right);
        assert!(main.is_dirty());
        assert_eq!((main.len(), main.hits()), (3, 1));
        main.save().unwrap();
        let mut reopened = TokenCache::open_at(dir.path(), Encoding::O200k);
        assert_eq!(reopened.len(), 3);
        for (path, tokens) in [(&a, 5), (&b, 6), (&c, 7)] {
            let found = reopened.get(&key(path, None, 40, 1));
            assert_eq!(found.map(|s| s.loaded_tokens), Some(tokens));
        }
    }

    #[test]
    fn records_whose_hashes_collide_are_all_found() {
        let dir = tempfile::tempdir().unwrap();
        let mut cache = TokenCache::open_at(dir.path(), Encoding::O200k);
        let paths: Vec<PathBuf> = (0..5).map(|i| dir.path().join(format!("{i}.md"))).collect();
        for (i, path) in paths.iter().enumerate() {
            cache.insert(&key(path, None, 1, 1), &stats(i, Encoding::O200k));
        }
        cache.insert(&key(&paths[0], Some("m"), 1, 1), &stats(9, Encoding::O200k));
        cache.save().unwrap();
        let bytes = std::fs::read(cache.file().unwrap()).unwrap();
        let stored = SavedEntries::parse(bytes, Encoding::O200k, |_, _| 7).unwrap();
        assert_eq!((stored.index.hashes(), stored.index.collisions()), (1, 5));
        for (i, path) in paths.iter().enumerate() {
            let (_, figures) = stored.find(path.to_str().unwrap(), None).unwrap();
            assert_eq!(figures.loaded_tokens, i as u64);
        }
        let (_, figures) = stored.find(paths[0].to_str().unwrap(), Some("m")).unwrap();
        assert_eq!(figures.loaded_tokens, 9);
        assert!(stored.find("/elsewhere.md", None).is_none());
    }

    #[test]
    fn round_trip_through_disk() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.md");
        let store = dir.path().join("memories.json");
        let mut cache = TokenCache::open_at(dir.path(), Encoding::O200k);
        assert!(cache.is_empty());
        cache.insert(
            &key(&a, None, 40, 1_700_000_000_123_456_789),
            &stats(10, Encoding::O200k),
        );
        cache.insert(&key(&store, Some("m-1"), 7, 5), &stats(11, Encoding::O200k));
        cache.insert(&key(&store, Some("m-2"), 7, 5), &stats(12, Encoding::O200k));
        cache.save().unwrap();
        assert!(!cache.is_dirty());

        let mut reopened = TokenCache::open_at(dir.path(), Encoding::O200k);
        assert_eq!(reopened.len(), 3);
        assert_eq!(
            reopened.get(&key(&a, None, 40, 1_700_000_000_123_456_789)),
            Some(stats(10, Encoding::O200k))
        );
        assert_eq!(
            reopened
                .get(&key(&store, Some("m-2"), 7, 5))
                .unwrap()
                .loaded_tokens,
            12
        );
        // The memory id is part of the key.
        assert_eq!(reopened.get(&key(&store, Some("m-3"), 7, 5)), None);
        assert_eq!(reopened.get(&key(&store, None, 7, 5)), None);
        assert_eq!((reopened.hits(), reopened.misses()), (2, 2));
        // Another encoding's cache is another file.
        assert!(TokenCache::open_at(dir.path(), Encoding::Cl100k).is_empty());
    }

    #[test]
    fn a_change_of_size_or_mtime_is_a_miss_and_replaces_the_entry() {
        let mut cache = TokenCache::in_memory(Encoding::Cl100k);
        let path = Path::new("/p/a.md");
        cache.insert(&key(path, None, 40, 1000), &stats(10, Encoding::Cl100k));
        assert!(cache.get(&key(path, None, 41, 1000)).is_none());
        // One nanosecond is a change.
        assert!(cache.get(&key(path, None, 40, 1001)).is_none());
        assert!(cache.get(&key(path, None, 40, 1000)).is_some());
        cache.insert(&key(path, None, 41, 2000), &stats(11, Encoding::Cl100k));
        assert_eq!(cache.len(), 1);
        assert!(cache.get(&key(path, None, 40, 1000)).is_none());
        assert_eq!(
            cache.get(&key(path, None, 41, 2000)).unwrap().loaded_tokens,
            11
        );
        assert_eq!((cache.hits(), cache.misses()), (2, 3));
    }

    #[test]
    fn a_change_that_keeps_size_and_mtime_is_a_miss_through_the_change_time() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");
        let mut cache = TokenCache::open_at(dir.path(), Encoding::O200k);
        let before = key(&path, None, 40, 1000);
        cache.insert(&before, &stats(10, Encoding::O200k));
        cache.save().unwrap();
        let mut reopened = TokenCache::open_at(dir.path(), Encoding::O200k);
        assert!(reopened.get(&before).is_some());
        // Rewritten with the same size, its modification time set back: only the
        // change time moved.
        let after = FileKey {
            changed: Some(UNIX_EPOCH + Duration::from_nanos(5000)),
            ..before
        };
        assert!(reopened.get(&after).is_none());
        // A platform without change times is a version of its own, never a match.
        let timeless = FileKey {
            changed: None,
            ..before
        };
        assert!(reopened.get(&timeless).is_none());
        reopened.insert(&timeless, &stats(12, Encoding::O200k));
        assert_eq!(reopened.get(&timeless).unwrap().loaded_tokens, 12);
    }

    #[test]
    fn files_without_mtime_and_foreign_stats_are_not_cached() {
        let mut cache = TokenCache::in_memory(Encoding::O200k);
        let path = Path::new("/p/a.md");
        let no_time = FileKey {
            path,
            memory_id: None,
            size: 1,
            modified: None,
            changed: None,
        };
        cache.insert(&no_time, &stats(1, Encoding::O200k));
        cache.insert(&key(path, None, 1, 1), &stats(1, Encoding::Bytes4));
        assert!(cache.is_empty());
        assert!(!cache.is_dirty());
        assert!(cache.get(&no_time).is_none());
    }

    #[test]
    fn figures_counted_without_dates_never_answer_a_caller_that_needs_dates() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.md"), dir.path().join("b.md"));
        let today = chrono::NaiveDate::from_ymd_opt(2026, 11, 25).unwrap();
        let dated = TextStats {
            dates: WrittenDates::of("Updated 2026-11-02", today),
            ..stats(5, Encoding::O200k)
        };
        let mut cache = TokenCache::open_at(dir.path(), Encoding::O200k);
        cache.insert_figures(&key(&a, None, 40, 1), &stats(5, Encoding::O200k));
        cache.insert(&key(&b, None, 40, 1), &dated);
        // What has its dates is kept over the same figures without them.
        cache.insert_figures(&key(&b, None, 40, 1), &stats(5, Encoding::O200k));
        cache.save().unwrap();

        let mut reopened = TokenCache::open_at(dir.path(), Encoding::O200k);
        assert_eq!(reopened.get(&key(&a, None, 40, 1)), None);
        assert_eq!(
            reopened.get_figures(&key(&a, None, 40, 1)),
            Some(stats(5, Encoding::O200k))
        );
        assert_eq!(reopened.get(&key(&b, None, 40, 1)), Some(dated.clone()));
        assert_eq!(reopened.get_figures(&key(&b, None, 40, 1)), Some(dated));
        assert_eq!((reopened.hits(), reopened.misses()), (3, 1));
        // Counted again with its dates, the file answers both.
        reopened.insert(&key(&a, None, 40, 1), &stats(5, Encoding::O200k));
        assert!(reopened.get(&key(&a, None, 40, 1)).is_some());
        // Another version without dates is not the dated one.
        assert_eq!(reopened.get_figures(&key(&a, None, 41, 1)), None);
    }

    #[test]
    fn pre_epoch_times_are_kept_apart() {
        let before = UNIX_EPOCH - Duration::from_nanos(5);
        let after = UNIX_EPOCH + Duration::from_nanos(5);
        assert_eq!(nanos_since_epoch(before), -5);
        assert_eq!(nanos_since_epoch(after), 5);
    }

    #[test]
    fn corrupt_truncated_or_foreign_files_start_empty() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.md");
        let mut cache = TokenCache::open_at(dir.path(), Encoding::O200k);
        for i in 0..20u64 {
            let path = dir.path().join(format!("f{i}.md"));
            cache.insert(&key(&path, None, i, i), &stats(i as usize, Encoding::O200k));
        }
        cache.insert(&key(&a, None, 1, 1), &stats(1, Encoding::O200k));
        cache.save().unwrap();
        let file = cache.file().unwrap().to_path_buf();
        let good = std::fs::read(&file).unwrap();
        assert_eq!(TokenCache::open_at(dir.path(), Encoding::O200k).len(), 21);

        let mut flipped = good.clone();
        let middle = flipped.len() / 2;
        flipped[middle] ^= 0x40;
        let mut wrong_version = good.clone();
        wrong_version[8] = 99;
        let mut huge_count = good.clone();
        huge_count[16..20].copy_from_slice(&u32::MAX.to_le_bytes());
        let variants: Vec<Vec<u8>> = vec![
            good[..good.len() - 1].to_vec(),
            good[..HEADER_LEN].to_vec(),
            good[..5].to_vec(),
            Vec::new(),
            flipped,
            wrong_version,
            huge_count,
            b"{\"not\": \"a cache\"}".to_vec(),
            [good.clone(), b"trailing".to_vec()].concat(),
        ];
        for (index, bytes) in variants.iter().enumerate() {
            std::fs::write(&file, bytes).unwrap();
            let mut cache = TokenCache::open_at(dir.path(), Encoding::O200k);
            assert!(cache.is_empty(), "variant {index} was accepted");
            assert!(cache.get(&key(&a, None, 1, 1)).is_none());
        }
        // A corrupt file is replaced by the next save.
        let mut cache = TokenCache::open_at(dir.path(), Encoding::O200k);
        cache.insert(&key(&a, None, 1, 1), &stats(1, Encoding::O200k));
        cache.save().unwrap();
        assert_eq!(TokenCache::open_at(dir.path(), Encoding::O200k).len(), 1);
    }

    #[test]
    fn saving_creates_the_folder_and_leaves_no_temporary_files() {
        let dir = tempfile::tempdir().unwrap();
        let cache_dir = dir.path().join("nested").join("cache");
        let mut cache = TokenCache::open_at(&cache_dir, Encoding::Bytes4);
        // Nothing to write: no file appears.
        cache.save().unwrap();
        assert!(!cache_dir.exists());
        cache.insert(
            &key(Path::new("/x.md"), None, 1, 1),
            &stats(1, Encoding::Bytes4),
        );
        cache.save().unwrap();
        let names: Vec<String> = std::fs::read_dir(&cache_dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec!["tokens-bytes4.bin".to_string()]);
    }

    #[test]
    fn many_entries_survive_a_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let mut cache = TokenCache::open_at(dir.path(), Encoding::O200k);
        let paths: Vec<PathBuf> = (0..14_000)
            .map(|i| {
                PathBuf::from(format!(
                    "/home/someone/memory-banks/project-{:04}/memory-bank/file{}.md",
                    i / 7,
                    i % 7
                ))
            })
            .collect();
        for (i, path) in paths.iter().enumerate().rev() {
            cache.insert(
                &key(path, None, i as u64, i as u64),
                &stats(i, Encoding::O200k),
            );
        }
        cache.save().unwrap();
        let mut reopened = TokenCache::open_at(dir.path(), Encoding::O200k);
        assert_eq!(reopened.len(), 14_000);
        for (i, path) in paths.iter().enumerate() {
            let found = reopened.get(&key(path, None, i as u64, i as u64)).unwrap();
            assert_eq!(found.loaded_tokens, i);
        }
        assert_eq!((reopened.hits(), reopened.misses()), (14_000, 0));
        // Saved in path order, whatever order they were counted in.
        let saved: Vec<&str> = (0..reopened.stored.len())
            .map(|n| reopened.stored.record(n).unwrap().path)
            .collect();
        assert!(saved.windows(2).all(|pair| pair[0] < pair[1]));
    }
}

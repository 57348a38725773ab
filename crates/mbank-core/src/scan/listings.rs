//! Folder listings read once per run, and remembered between runs of `mbank list`.
//!
//! Discovery and bank listing ask this module for a folder's entries (names and types
//! from the listing itself, no `stat` per name), so a folder is read at most once per
//! run and marker probes are answered from the listing of their parent.
//!
//! With a cache file, listings also survive the process, validated like git's untracked
//! cache: each remembered folder keeps the inode, size, modification and change times it
//! had when it was read; on the next run the folder is `stat`ed and its entries are
//! reused only when all four are unchanged. A folder changed within [`RACY_WINDOW`] of
//! the run that read it is not remembered, because a change made in the same clock tick
//! would leave its times unchanged. Files are never taken from the cache (callers `stat`
//! them), so an edit in place is always seen. The cache also holds small facts parsed
//! from file contents (a rule's `paths:`, a store's memories), keyed by the file's size
//! and modification time under the same racy rule. Cached facts are raw observations of
//! the file system, so configuration (depth, ignore globs) does not invalidate them.
//!
//! The file is a section of mbank's cache store (`scan::listing_store`); a missing,
//! truncated, corrupt or foreign file is ignored, and deleting it is always safe.
use std::collections::HashMap;
use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use dashmap::DashMap;
use dashmap::mapref::entry::Entry as MapEntry;
use parking_lot::{Mutex, MutexGuard};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::listing_store::{self as section, FACTS, FOLDERS};
use crate::cache_store::{self, Loaded, Raw, Section};
use crate::clock::Clock;
use crate::error::Result;
use crate::io::bytes::{os_bytes, os_str, os_string};
use crate::io::hash_index::{BuildPathHasher, HashIndex, key_hash, stable_hash};

pub(crate) use super::open_folder::FileStat;
use super::open_folder::OpenFolder;
use super::stamp::nanos;
pub use super::stamp::{RACY_WINDOW, Stamp};
pub(crate) use super::stamp::{time_nanos, time_of_nanos};

pub use super::entry::Entry;
pub(crate) use super::entry::Kind;

/// A folder's entries, shared between the walkers that ask for it.
pub type Entries = Arc<[Entry]>;

/// The version slot of a stamped fact: no file time is this value (`i128::MIN`
/// nanoseconds is long before any clock), so a stamp never matches a file version.
const STAMPED: i128 = i128::MIN;
/// The change time of a fact whose file has none (a platform without `ctime`), or of a
/// stamped fact.
const NO_CHANGE_TIME: i128 = i128::MIN;

/// A folder this run consulted (listed, or found unchanged), for a caller that remembers
/// what it derived from folders and checks them again later.
#[derive(Debug, Clone)]
pub(crate) struct Consulted {
    pub path: OsString,
    /// [`Stamp::digest`] of the folder when it was read; `None` without a stamp (no cache
    /// file) or when it changed within the racy window of this run.
    pub digest: Option<u64>,
    /// The folder's links, by path: what each leads to can change without this folder
    /// changing, so a caller remembering what it derived from the folder stamps that too.
    pub links: Vec<PathBuf>,
    /// Some entry is of a type the listing could not say.
    pub unknown: bool,
}

/// A remembered listing.
#[derive(Debug, Clone)]
struct FolderListing {
    /// `None` without a cache file (unless stamping): nothing is validated or saved.
    stamp: Option<Stamp>,
    modified: Option<SystemTime>,
    entries: Entries,
}

/// A remembered fact about a file's content, as JSON, keyed by the file's version.
#[derive(Debug, Clone)]
struct Fact {
    len: u64,
    mtime: i128,
    /// The file's change time: an edit can keep its size and set its modification time
    /// back, never this.
    ctime: i128,
    /// Shared: a fact used in a run is copied from the previous facts to this run's.
    json: Arc<str>,
}

type FactKey = (String, OsString);

/// Paths are hashed as bytes, eight at a time (a `Path` hashes component by component,
/// several times slower).
type Map<K, V> = HashMap<K, V, BuildPathHasher>;

/// A map that threads share, locked in shards: the walkers list folders at once, and the
/// workers of `list` look up every memory file's facts at once.
type SharedMap<K, V> = DashMap<K, V, BuildPathHasher>;

/// What this run found while listing.
#[derive(Default)]
struct RunState {
    /// Something was read from disk that the cache file did not hold.
    changed: bool,
    /// Folders read from disk in this run (the rest came from the cache).
    read: usize,
}

/// Folder listings and small content facts for one run; see the module comment.
pub struct Listings {
    /// The cache file; `None` keeps everything in memory for this run only.
    file: Option<PathBuf>,
    /// The root the cache file belongs to (recorded in it and checked on load).
    root: PathBuf,
    /// When this run began, in nanoseconds since the epoch (for the racy check).
    started: i128,
    previous_dirs: PreviousDirs,
    previous_facts: Map<FactKey, Fact>,
    /// Facts looked up or computed in this run.
    facts: SharedMap<FactKey, Fact>,
    /// Folders listed (or found unchanged) in this run.
    dirs: SharedMap<OsString, FolderListing>,
    state: Mutex<RunState>,
    /// Saving keeps the previous file's folders and facts this run did not consult.
    keep_unvisited: bool,
    /// Folders are `stat`ed when listed even without a cache file (see
    /// [`Listings::stamping`]).
    stamps: bool,
}

/// The folders of the cache file, indexed by path where they lie in its bytes: a
/// folder's entries are decoded only when this run lists it (on whichever thread asks),
/// so opening the cache costs one read, one checksum and one pass over the paths.
#[derive(Default)]
struct PreviousDirs {
    file: Loaded,
    /// Hash of a folder's path to its record number.
    index: HashIndex,
    count: usize,
}

impl PreviousDirs {
    fn index(file: Loaded) -> Option<PreviousDirs> {
        let count = file.len(FOLDERS);
        let mut index = HashIndex::with_capacity(count);
        for (number, record) in file.records(FOLDERS).enumerate() {
            index.insert(key_hash(&[section::folder_path(record)?.0]), number as u32);
        }
        Some(PreviousDirs { file, index, count })
    }

    /// The record number and stamp of folder `path`.
    fn find(&self, path: &[u8]) -> Option<(usize, Stamp)> {
        self.index.candidates(key_hash(&[path])).find_map(|number| {
            let (stored, stamp) = section::folder_head(self.file.record(FOLDERS, number as usize))?;
            (stored.0 == path).then_some((number as usize, stamp))
        })
    }

    /// The entries of `path` when it was remembered with this very stamp.
    fn listing(&self, path: &[u8], stamp: Stamp) -> Option<Vec<Entry>> {
        let (number, remembered) = self.find(path)?;
        if remembered != stamp {
            return None;
        }
        entries_of(&section::folder(self.file.record(FOLDERS, number))?)
    }
}

fn entries_of(folder: &section::StoredFolder<'_>) -> Option<Vec<Entry>> {
    folder
        .entries
        .iter()
        .map(|&(kind, name)| {
            Some(Entry {
                name: os_string(name.0)?,
                kind,
            })
        })
        .collect()
}

impl Listings {
    /// Listings remembered for this run only: each folder is read once. What is racy is
    /// judged by the system clock; a caller that keeps what it derived passes its clock to
    /// [`Listings::in_memory_as_of`].
    pub fn in_memory() -> Listings {
        Self::in_memory_as_of(&Clock::system())
    }

    /// [`Listings::in_memory`] for a run that began at `clock`'s now: a folder or file
    /// changed within [`RACY_WINDOW`] before it is not vouched for by its times.
    pub fn in_memory_as_of(clock: &Clock) -> Listings {
        Listings {
            file: None,
            root: PathBuf::new(),
            started: nanos(clock.now()),
            previous_dirs: PreviousDirs::default(),
            previous_facts: Map::default(),
            facts: SharedMap::default(),
            dirs: SharedMap::default(),
            state: Mutex::new(RunState::default()),
            keep_unvisited: false,
            stamps: false,
        }
    }

    /// Listings for this run only that still stamp every folder they list, for a caller
    /// that remembers what it derived from them (`Listings::consulted`) without the
    /// cost of the cache file (a few projects analysed again).
    pub fn stamping(clock: &Clock) -> Listings {
        Listings {
            stamps: true,
            ..Self::in_memory_as_of(clock)
        }
    }

    /// The listing cache of `root` in mbank's cache folder (`paths::cache_dir`), or an
    /// in-memory one when the platform has no cache folder.
    pub fn open_default(root: &Path, clock: &Clock) -> Listings {
        match crate::io::paths::cache_dir() {
            Some(dir) => Self::open_at(&dir, root, clock),
            None => Self::in_memory_as_of(clock),
        }
    }

    /// The listing cache of `root` in `dir`. A missing or invalid file gives an empty
    /// cache; so does anything but a regular file (a FIFO, a device such as `/dev/zero`,
    /// a folder) or a file over `crate::limits::CACHE_MAX_BYTES`, refused before reading.
    /// `save` replaces such a file; the folder is created there.
    pub fn open_at(dir: &Path, root: &Path, clock: &Clock) -> Listings {
        let file = dir.join(Self::file_name(root));
        let mut listings = Self::in_memory_as_of(clock);
        if let Some(loaded) = section::read(&file, &path_bytes(root))
            && let Some((dirs, facts)) = decode(loaded)
        {
            // This run will most likely list the same folders again.
            listings.dirs = SharedMap::with_capacity_and_hasher(dirs.count, Default::default());
            listings.previous_dirs = dirs;
            listings.previous_facts = facts;
        }
        listings.file = Some(file);
        listings.root = root.to_path_buf();
        listings
    }

    /// `listing-<hash of the root>.bin`: one file per root, so roots do not evict each
    /// other.
    pub fn file_name(root: &Path) -> String {
        format!("listing-{:016x}.bin", stable_hash(&path_bytes(root)))
    }

    /// How many folders this run has read from disk rather than the cache.
    pub fn folders_read(&self) -> usize {
        self.state().read
    }

    /// Whether the cache file held a listing of `dir` when it was opened.
    pub fn remembers(&self, dir: &Path) -> bool {
        os_bytes(dir.as_os_str()).is_some_and(|path| self.previous_dirs.find(path).is_some())
    }

    /// The cache file, when there is one.
    pub fn file(&self) -> Option<&Path> {
        self.file.as_deref()
    }

    fn state(&self) -> MutexGuard<'_, RunState> {
        self.state.lock()
    }

    /// A folder's entries in the order the platform returned them: from this run's
    /// memory, else from the cache when the folder is unchanged, else read now.
    pub fn list(&self, dir: &Path) -> io::Result<Entries> {
        self.list_reading(dir).map(|(entries, _)| entries)
    }

    /// [`Listings::list`], with the folder still open when it was read now.
    pub(super) fn list_reading(&self, dir: &Path) -> io::Result<(Entries, Option<OpenFolder>)> {
        if let Some(known) = self.dirs.get(dir.as_os_str()) {
            return Ok((known.entries.clone(), None));
        }
        let stamped = self.file.is_some() || self.stamps;
        // A folder the cache file remembers is most likely unchanged: a `stat` by path
        // settles that without opening it. Any other is opened, `stat`ed and read
        // through one handle.
        let remembered = stamped
            && os_bytes(dir.as_os_str())
                .is_some_and(|path| self.previous_dirs.find(path).is_some());
        let mut open = None;
        let (stamp, modified) = if remembered {
            let meta = fs::metadata(dir)?;
            (Stamp::of(&meta), meta.modified().ok())
        } else {
            let folder = OpenFolder::open(dir)?;
            let stamp = if stamped {
                folder.stamp()?
            } else {
                (None, None)
            };
            open = Some(folder);
            stamp
        };
        let reusable = stamp
            .zip(os_bytes(dir.as_os_str()))
            .and_then(|(stamp, path)| {
                let entries = self.previous_dirs.listing(path, stamp)?;
                Some(FolderListing {
                    stamp: Some(stamp),
                    modified,
                    entries: entries.into(),
                })
            });
        let (dir_entry, fresh) = match reusable {
            Some(remembered) => (remembered, false),
            None => {
                let mut folder = match open.take() {
                    Some(folder) => folder,
                    None => OpenFolder::open(dir)?,
                };
                let entries = folder.entries()?;
                open = Some(folder);
                let dir_entry = FolderListing {
                    stamp,
                    modified,
                    entries: entries.into(),
                };
                (dir_entry, true)
            }
        };
        let entries = dir_entry.entries.clone();
        if fresh {
            let mut state = self.state();
            state.changed = true;
            state.read += 1;
        }
        self.dirs.insert(dir.as_os_str().to_os_string(), dir_entry);
        Ok((entries, open))
    }

    /// The entry `name` of folder `parent`: `Some(Some(_))` when listed, `Some(None)`
    /// when the listing has no such name, `None` when the folder cannot be listed (the
    /// caller then asks the file system directly: a folder may be searchable but not
    /// readable).
    pub fn child(&self, parent: &Path, name: &str) -> Option<Option<Entry>> {
        let entries = self.list(parent).ok()?;
        Some(entries.iter().find(|e| e.name == name).cloned())
    }

    /// The entries of `dir` when this run has listed it already (never reads a folder).
    pub fn listed(&self, dir: &Path) -> Option<Entries> {
        self.dirs
            .get(dir.as_os_str())
            .map(|known| known.entries.clone())
    }

    /// Whether `parent/name` exists, from `parent`'s listing when it can be read.
    pub fn exists(&self, parent: &Path, name: &str) -> bool {
        match self.child(parent, name) {
            Some(found) => found.is_some(),
            None => fs::symlink_metadata(parent.join(name)).is_ok(),
        }
    }

    /// Whether `parent/name` is a folder (or a symlink to one), from `parent`'s listing.
    pub fn is_dir(&self, parent: &Path, name: &str) -> bool {
        match self.child(parent, name) {
            Some(found) => found.is_some_and(|e| e.is_dir(parent)),
            None => fs::metadata(parent.join(name)).is_ok_and(|m| m.is_dir()),
        }
    }

    /// Modification time of a folder that is read later anyway (a bank): listing it now
    /// lets one `stat` serve both.
    pub(crate) fn folder_modified(&self, dir: &Path) -> Option<SystemTime> {
        // A folder that cannot be listed still has a modification time.
        let _ = self.list(dir);
        self.modified(dir)
    }

    /// Modification time of a path; a folder listed in this run answers without a
    /// `stat`.
    pub fn modified(&self, path: &Path) -> Option<SystemTime> {
        if let Some(known) = self.dirs.get(path.as_os_str())
            && known.modified.is_some()
        {
            return known.modified;
        }
        fs::metadata(path).and_then(|m| m.modified()).ok()
    }

    /// A fact of kind `kind` about the version (`size`, `modified`) of the file `path`,
    /// remembered by an earlier `Listings::put_fact` in this run or a previous one.
    pub fn fact<T: DeserializeOwned>(
        &self,
        kind: &str,
        path: &Path,
        size: u64,
        modified: Option<SystemTime>,
        changed: Option<SystemTime>,
    ) -> Option<T> {
        let changed = changed.map_or(NO_CHANGE_TIME, nanos);
        self.versioned_fact(kind, path, size, (nanos(modified?), changed))
    }

    /// Remembers a fact derived from a file's content; only facts read from the file
    /// itself belong here (never an I/O error, which may go away without the file
    /// changing).
    pub(crate) fn put_fact<T: Serialize>(
        &self,
        kind: &str,
        path: &Path,
        size: u64,
        modified: Option<SystemTime>,
        changed: Option<SystemTime>,
        value: &T,
    ) {
        if let Some(modified) = modified {
            let changed = changed.map_or(NO_CHANGE_TIME, nanos);
            self.put_versioned_fact(kind, path, size, (nanos(modified), changed), value);
        }
    }

    /// A fact about `path` that holds while the things it was derived from are as they
    /// were, summed up by the caller in `stamp` (e.g. a repository's refs and index and
    /// the files asked about): remembered by [`Listings::put_stamped_fact`].
    pub(crate) fn stamped_fact<T: DeserializeOwned>(
        &self,
        kind: &str,
        path: &Path,
        stamp: u64,
    ) -> Option<T> {
        self.versioned_fact(kind, path, stamp, (STAMPED, NO_CHANGE_TIME))
    }

    /// Remembers a fact under a caller's `stamp` (see [`Listings::stamped_fact`]).
    pub(crate) fn put_stamped_fact<T: Serialize>(
        &self,
        kind: &str,
        path: &Path,
        stamp: u64,
        value: &T,
    ) {
        self.put_versioned_fact(kind, path, stamp, (STAMPED, NO_CHANGE_TIME), value);
    }

    fn versioned_fact<T: DeserializeOwned>(
        &self,
        kind: &str,
        path: &Path,
        len: u64,
        (mtime, ctime): (i128, i128),
    ) -> Option<T> {
        let key = (kind.to_string(), path.as_os_str().to_os_string());
        let fact = match self.facts.entry(key) {
            MapEntry::Occupied(known) => known.get().clone(),
            MapEntry::Vacant(unknown) => {
                let fact = self.previous_facts.get(unknown.key())?.clone();
                if fact.len != len || fact.mtime != mtime || fact.ctime != ctime {
                    return None;
                }
                unknown.insert(fact).clone()
            }
        };
        if fact.len != len || fact.mtime != mtime || fact.ctime != ctime {
            return None;
        }
        serde_json::from_str(&fact.json).ok()
    }

    fn put_versioned_fact<T: Serialize>(
        &self,
        kind: &str,
        path: &Path,
        len: u64,
        (mtime, ctime): (i128, i128),
        value: &T,
    ) {
        let Ok(json) = serde_json::to_string(value) else {
            return;
        };
        let fact = Fact {
            len,
            mtime,
            ctime,
            json: json.into(),
        };
        self.facts
            .insert((kind.to_string(), path.as_os_str().to_os_string()), fact);
        self.state().changed = true;
    }

    /// The cache file as a run that began at `started` would write it.
    #[cfg(test)]
    fn encode_as_of(&self, started: i128) -> Vec<u8> {
        self.tables_as_of(started, |scope, tables| {
            cache_store::frame(Section::Listing, scope, tables)
        })
    }

    /// What `out` makes of the cache file's scope and tables as a run that began at
    /// `started` would write them.
    #[cfg(test)]
    fn tables_as_of<R>(&self, started: i128, out: impl FnOnce(&[u8], &[Vec<Raw<'_>>]) -> R) -> R {
        let dirs: Vec<_> = self.dirs.iter().collect();
        let facts: Vec<_> = self.facts.iter().collect();
        encode(
            &self.root,
            dirs.iter().map(|dir| dir.pair()),
            facts.iter().map(|fact| fact.pair()),
            started,
            out,
        )
    }

    /// When this run began, in nanoseconds since the epoch.
    pub fn started(&self) -> i128 {
        self.started
    }

    /// Every folder consulted in this run, with the stamp it had when it was read.
    pub(crate) fn consulted(&self) -> Vec<Consulted> {
        self.dirs
            .iter()
            .map(|dir| Consulted {
                path: dir.key().clone(),
                digest: dir
                    .stamp
                    .filter(|stamp| !stamp.is_racy(self.started))
                    .map(|stamp| stamp.digest()),
                links: dir
                    .entries
                    .iter()
                    .filter(|e| e.kind == Kind::Symlink)
                    .map(|e| Path::new(dir.key()).join(&e.name))
                    .collect(),
                unknown: dir.entries.iter().any(|e| e.kind == Kind::Unknown),
            })
            .collect()
    }

    /// The files whose content facts this run used, with the size and modification time
    /// (nanoseconds) each fact holds for.
    pub(crate) fn fact_files(&self) -> Vec<(OsString, u64, i128)> {
        self.facts
            .iter()
            .filter(|fact| fact.mtime != STAMPED)
            .map(|fact| (fact.key().1.clone(), fact.len, fact.mtime))
            .collect()
    }

    /// Keeps, when saving, the folders and facts of the cache file that this run did not
    /// consult: a run that took most answers from elsewhere (remembered rows) would
    /// otherwise leave them out, and the next run that needs them would read every one of
    /// those folders again. A folder kept so that no longer exists is dropped by the next
    /// run that consults the whole root.
    pub fn keep_unvisited(&mut self) {
        self.keep_unvisited = true;
    }

    /// Brings the previous file's unconsulted folders and facts into this run's (see
    /// [`Listings::keep_unvisited`]).
    fn take_in_unvisited(&self) {
        for record in self.previous_dirs.file.records(FOLDERS) {
            let Some(folder) = section::folder(record) else {
                continue;
            };
            let Some(path) = os_str(folder.path.0) else {
                continue;
            };
            if self.dirs.contains_key(path) {
                continue;
            }
            let Some(entries) = entries_of(&folder) else {
                continue;
            };
            self.dirs.insert(
                path.to_os_string(),
                FolderListing {
                    stamp: Some(folder.stamp),
                    modified: None,
                    entries: entries.into(),
                },
            );
        }
        for (key, fact) in &self.previous_facts {
            if !self.facts.contains_key(key) {
                self.facts.insert(key.clone(), fact.clone());
            }
        }
    }

    /// Writes what this run saw, when it differs from what the cache file held: folders
    /// and facts not used in this run are dropped (unless [`Listings::keep_unvisited`]),
    /// racy ones are left out. Failures only cost a re-read next time.
    pub fn save(&self) -> Result<()> {
        let Some(file) = &self.file else {
            return Ok(());
        };
        if self.keep_unvisited {
            // Nothing new: the file already holds all it would keep.
            if !self.state().changed {
                return Ok(());
            }
            self.take_in_unvisited();
        }
        let changed = self.state().changed;
        let unchanged = !changed
            && self.dirs.len() == self.previous_dirs.count
            && self.facts.len() == self.previous_facts.len();
        if unchanged {
            return Ok(());
        }
        // Over the size cap it is not written: the next run lists folders again.
        let dirs: Vec<_> = self.dirs.iter().collect();
        let facts: Vec<_> = self.facts.iter().collect();
        let dirs = || dirs.iter().map(|dir| dir.pair());
        let facts = || facts.iter().map(|fact| fact.pair());
        let started = self.started;
        // Counted first, each record is then encoded as it is written: saving holds no
        // copy of every folder's listing.
        let mut scratch = Vec::new();
        let (mut folders, mut fact_count) = (0, 0);
        folder_records(dirs(), started, &mut scratch, |_| folders += 1);
        fact_records(facts(), started, &mut scratch, |_| fact_count += 1);
        cache_store::save_tables(file, Section::Listing, &path_bytes(&self.root), 2, |out| {
            out.table(folders);
            folder_records(dirs(), started, &mut scratch, |record| out.record(record));
            out.table(fact_count);
            fact_records(facts(), started, &mut scratch, |record| out.record(record));
            true
        })
    }
}

fn path_bytes(path: &Path) -> Vec<u8> {
    os_bytes(path.as_os_str())
        .map(<[u8]>::to_vec)
        .unwrap_or_else(|| path.to_string_lossy().into_owned().into_bytes())
}

/// What `out` makes of the cache file of `root`: its folders (path, stamp, entries), then
/// its facts, as `Listings::save` writes them.
#[cfg(test)]
fn encode<'a, R>(
    root: &Path,
    dirs: impl Iterator<Item = (&'a OsString, &'a FolderListing)>,
    facts: impl Iterator<Item = (&'a FactKey, &'a Fact)>,
    started: i128,
    out: impl FnOnce(&[u8], &[Vec<Raw<'_>>]) -> R,
) -> R {
    let mut records = Vec::new();
    let mut scratch = Vec::new();
    let mut spans = [Vec::new(), Vec::new()];
    let mut keep = |table: usize, record: &[u8]| {
        let start = records.len();
        records.extend_from_slice(record);
        spans[table].push((start, records.len()));
    };
    folder_records(dirs, started, &mut scratch, |record| keep(0, record));
    fact_records(facts, started, &mut scratch, |record| keep(1, record));
    let table = |spans: &[(usize, usize)]| -> Vec<Raw<'_>> {
        spans.iter().map(|&(a, b)| Raw(&records[a..b])).collect()
    };
    let tables = [table(&spans[0]), table(&spans[1])];
    out(&path_bytes(root), &tables)
}

/// Hands `record` the record of each folder the cache file keeps, encoded in `scratch`:
/// those stamped, whose names can be kept as bytes, unchanged within the racy window of
/// the run that began at `started`.
fn folder_records<'a>(
    dirs: impl Iterator<Item = (&'a OsString, &'a FolderListing)>,
    started: i128,
    scratch: &mut Vec<u8>,
    mut record: impl FnMut(&[u8]),
) {
    for (path, dir) in dirs {
        let (Some(stamp), Some(path)) = (dir.stamp.as_ref(), os_bytes(path)) else {
            continue;
        };
        let names_ok = dir.entries.iter().all(|e| os_bytes(&e.name).is_some());
        scratch.clear();
        if names_ok
            && !stamp.is_racy(started)
            && section::write_folder(path, stamp, &dir.entries, scratch)
        {
            record(scratch);
        }
    }
}

/// Hands `record` the record of each fact the cache file keeps, encoded in `scratch`:
/// those whose file did not change within the racy window of the run that began at
/// `started`.
fn fact_records<'a>(
    facts: impl Iterator<Item = (&'a FactKey, &'a Fact)>,
    started: i128,
    scratch: &mut Vec<u8>,
    mut record: impl FnMut(&[u8]),
) {
    for ((kind, path), fact) in facts {
        let Some(path) = os_bytes(path) else {
            continue;
        };
        // A file changed this close to the run may change again within its tick.
        if fact.mtime.max(fact.ctime) >= started - RACY_WINDOW.as_nanos() as i128 {
            continue;
        }
        let stored = section::StoredFact {
            kind,
            path: Raw(path),
            len: fact.len,
            mtime: fact.mtime,
            ctime: fact.ctime,
            json: &fact.json,
        };
        scratch.clear();
        if stored.write_to(scratch) {
            record(scratch);
        }
    }
}

type Decoded = (PreviousDirs, Map<FactKey, Fact>);

/// Indexes a cache file's folders (see [`PreviousDirs`]); facts, few and small, are
/// decoded at once. `None` when a record does not read back.
fn decode(loaded: Loaded) -> Option<Decoded> {
    let mut facts = Map::with_capacity_and_hasher(loaded.len(FACTS), Default::default());
    for record in loaded.records(FACTS) {
        let fact = section::fact(record)?;
        facts.insert(
            (fact.kind.to_string(), os_string(fact.path.0)?),
            Fact {
                len: fact.len,
                mtime: fact.mtime,
                ctime: fact.ctime,
                json: fact.json.into(),
            },
        );
    }
    Some((PreviousDirs::index(loaded)?, facts))
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, UNIX_EPOCH};

    use super::*;
    use crate::cache_store::HEADER_LEN;

    /// The cache of `root` these bytes hold.
    fn decode_bytes(bytes: Vec<u8>, root: &Path) -> Option<Decoded> {
        let loaded = Loaded::parse(bytes, Section::Listing)?;
        (loaded.scope() == path_bytes(root)).then_some(())?;
        decode(loaded)
    }

    fn names(entries: &Entries) -> Vec<String> {
        let mut names: Vec<String> = entries
            .iter()
            .map(|e| e.name.to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn folder_modified_lists_the_folder_once_and_answers_for_files_too() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        let bank = root.join("memory-bank");
        fs::create_dir_all(&bank).unwrap();
        fs::write(bank.join("progress.md"), "x").unwrap();
        let listings = Listings::open_at(&dir.path().join("cache"), &root, &Clock::system());
        let expected = fs::metadata(&bank).unwrap().modified().ok();
        assert!(expected.is_some());
        assert_eq!(listings.folder_modified(&bank), expected);
        assert_eq!(listings.folders_read(), 1);
        assert_eq!(names(&listings.list(&bank).unwrap()), vec!["progress.md"]);
        assert_eq!(listings.folders_read(), 1, "the listing was kept");
        // A file cannot be listed; its own modification time is still given.
        let file = bank.join("progress.md");
        assert_eq!(
            listings.folder_modified(&file),
            fs::metadata(&file).unwrap().modified().ok()
        );
        assert_eq!(listings.folder_modified(&root.join("missing")), None);
    }

    #[test]
    fn round_trips_and_rejects_corruption_and_other_roots() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        fs::create_dir_all(root.join("sub")).unwrap();
        fs::write(root.join("a.md"), "x").unwrap();
        let listings = Listings::open_at(&dir.path().join("cache"), &root, &Clock::system());
        listings.list(&root).unwrap();
        // As if the run started long after the folder changed, so nothing is racy.
        let bytes = listings.encode_as_of(listings.started + 10_000_000_000);
        let (dirs, _) = decode_bytes(bytes.clone(), &root).unwrap();
        let stamp = Stamp::of(&fs::metadata(&root).unwrap()).unwrap();
        let entries: Entries = dirs.listing(&path_bytes(&root), stamp).unwrap().into();
        assert_eq!(names(&entries), vec!["a.md", "sub"]);
        // Another stamp (the folder changed) or another folder: nothing to reuse.
        let changed = Stamp {
            mtime: stamp.mtime + 1,
            ..stamp
        };
        assert!(dirs.listing(&path_bytes(&root), changed).is_none());
        assert!(
            dirs.listing(&path_bytes(&root.join("sub")), stamp)
                .is_none()
        );
        assert!(decode_bytes(bytes.clone(), &dir.path().join("other")).is_none());
        for cut in [0, 10, HEADER_LEN, bytes.len() - 1] {
            assert!(
                decode_bytes(bytes[..cut].to_vec(), &root).is_none(),
                "cut at {cut}"
            );
        }
        let mut flipped = bytes.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 0xff;
        assert!(decode_bytes(flipped, &root).is_none());
    }

    #[test]
    fn racy_folders_and_facts_are_not_saved() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        let root = dir.path().join("root");
        fs::create_dir_all(&root).unwrap();
        fs::write(root.join("a.md"), "x").unwrap();
        let listings = Listings::open_at(&cache, &root, &Clock::system());
        listings.list(&root).unwrap();
        let meta = fs::metadata(root.join("a.md")).unwrap();
        listings.put_fact(
            "t",
            &root.join("a.md"),
            meta.len(),
            meta.modified().ok(),
            crate::io::paths::change_time(&meta),
            &1,
        );
        // Modified long ago by its times, but changed a moment ago: as racy.
        let old = UNIX_EPOCH + Duration::from_secs(1_000);
        listings.put_fact(
            "t",
            &root.join("b.md"),
            1,
            Some(old),
            Some(SystemTime::now()),
            &2,
        );
        listings.save().unwrap();
        // Everything was changed a moment ago: nothing is trusted next time.
        let reopened = Listings::open_at(&cache, &root, &Clock::system());
        assert_eq!(reopened.previous_dirs.count, 0);
        assert!(reopened.previous_facts.is_empty());
    }

    #[test]
    fn a_fact_holds_for_its_files_size_and_both_times_alone() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("cache");
        let root = dir.path().join("root");
        fs::create_dir_all(&root).unwrap();
        let path = root.join("a.md");
        let (modified, changed) = (
            UNIX_EPOCH + Duration::from_secs(1_000),
            UNIX_EPOCH + Duration::from_secs(2_000),
        );
        let listings = Listings::open_at(&cache, &root, &Clock::system());
        listings.put_fact("rule", &path, 1, Some(modified), Some(changed), &true);
        listings.save().unwrap();
        assert_eq!(
            fs::read(cache.join(Listings::file_name(&root))).unwrap(),
            listings.encode_as_of(listings.started),
            "saved record by record, the file is the one framed whole"
        );
        let reopened = Listings::open_at(&cache, &root, &Clock::system());
        assert_eq!(
            reopened.fact::<bool>("rule", &path, 1, Some(modified), Some(changed)),
            Some(true)
        );
        // Rewritten with the same size and its modification time set back: only the
        // change time says so.
        let later = changed + Duration::from_secs(1);
        assert_eq!(
            reopened.fact::<bool>("rule", &path, 1, Some(modified), Some(later)),
            None
        );
        assert_eq!(
            reopened.fact::<bool>("rule", &path, 1, Some(modified), None),
            None
        );
        assert_eq!(
            reopened.fact::<bool>("rule", &path, 2, Some(modified), Some(changed)),
            None
        );
    }

    #[test]
    fn a_thread_that_panics_holding_the_locks_leaves_the_listings_usable() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        fs::create_dir_all(&root).unwrap();
        fs::write(root.join("a.md"), "x").unwrap();
        let listings = Listings::open_at(&dir.path().join("cache"), &root, &Clock::system());
        listings.list(&root).unwrap();
        let path = root.join("a.md");
        let t = UNIX_EPOCH + Duration::from_secs(1_000);
        listings.put_fact("rule", &path, 1, Some(t), Some(t), &true);
        let walker = std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    let _dir = listings.dirs.get_mut(root.as_os_str());
                    let key = ("rule".to_string(), path.as_os_str().to_os_string());
                    let _fact = listings.facts.get_mut(&key);
                    let _state = listings.state();
                    panic!("a walker fails while holding every lock");
                })
                .join()
        });
        assert!(walker.is_err());
        // The other walkers carry on with what was there.
        assert_eq!(names(&listings.list(&root).unwrap()), vec!["a.md"]);
        assert_eq!(
            listings.fact::<bool>("rule", &path, 1, Some(t), Some(t)),
            Some(true)
        );
        listings.put_fact("rule", &path, 2, Some(t), Some(t), &false);
        assert_eq!(
            listings.fact::<bool>("rule", &path, 2, Some(t), Some(t)),
            Some(false)
        );
        assert_eq!(listings.folders_read(), 1);
        listings.save().unwrap();
    }

    #[test]
    fn facts_follow_the_file_version() {
        let listings = Listings::in_memory();
        let path = Path::new("/x/rule.md");
        let t = UNIX_EPOCH + Duration::from_secs(1_000);
        listings.put_fact("rule", path, 10, Some(t), Some(t), &true);
        assert_eq!(
            listings.fact::<bool>("rule", path, 10, Some(t), Some(t)),
            Some(true)
        );
        assert_eq!(
            listings.fact::<bool>("rule", path, 11, Some(t), Some(t)),
            None
        );
        let later = t + Duration::from_nanos(1);
        assert_eq!(
            listings.fact::<bool>("rule", path, 10, Some(later), Some(t)),
            None
        );
        assert_eq!(
            listings.fact::<bool>("rule", path, 10, Some(t), Some(later)),
            None
        );
        assert_eq!(
            listings.fact::<bool>("other", path, 10, Some(t), Some(t)),
            None
        );
    }
}

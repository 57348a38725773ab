//! Per-file history: before mbank replaces or removes a memory file (an agent's write, a
//! TUI save, an accepted proposal, a restore), the text it replaces is kept here, so a
//! person can always go back.
//!
//! `<data dir>/history/<hash of the file's real path>/` holds `index.jsonl` (one line a
//! version: number, time, writer, size, content hash, where its text is) and the texts,
//! appended one after the other to one pack file (`texts-<generation>.pack`, see
//! `pack`), each distinct text stored once, so a text that comes back is not stored
//! again and a version equal to the newest one is not recorded again. Histories written
//! by older builds keep a `<content hash>.txt` per text, still read. Retention: a version
//! goes once it is beyond the newest [`Retention::keep_versions`] *and* older than
//! [`Retention::keep_days`] or past the file's [`Retention::max_mib_per_file`]; never more
//! than [`MAX_VERSIONS`] are kept; dropped texts leave the pack when it is compacted.
//! Everything is opened from the data folder with no link followed, owner-only, under
//! the folder's lock. A text is appended to the pack before its index line is appended,
//! and every read checks it against its hash: one torn by a crash is never restored, and
//! a fresh copy is appended when the same text is recorded again. The index is appended
//! to, and rewritten atomically when retention drops versions.
//!
//! Versions are written without an fsync: they are copies of text that was on disk a
//! moment ago, and an fsync each would double the cost of every agent write. The file
//! itself is fsynced by its write as always. A crash of mbank loses nothing (a torn
//! text is detected, a torn index line skipped, and the next line appended starts a
//! line of its own rather than joining it); a power cut right after a write may
//! lose that write's history entry (or leave it listed with a text that fails its
//! check and is refused), never the file.
pub mod files;
mod journal_marks;
mod pack;
mod written;

pub use journal_marks::{Seen, Stats, WrittenNote};

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::error::{CoreError, Result};

/// The history's folder in mbank's data folder.
const FOLDER: &str = "history";
const INDEX: &str = "index.jsonl";
/// An index never grows past this (a line is ~200 bytes, [`MAX_VERSIONS`] lines).
const INDEX_LIMIT: u64 = 4 * 1024 * 1024;

/// No file keeps more versions than this, whatever the retention says.
pub const MAX_VERSIONS: usize = 1000;
/// Versions dropped at once beyond [`MAX_VERSIONS`].
const CAP_SLACK: usize = 50;

/// How long versions are kept: `[history]` in config.toml.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Retention {
    /// The newest versions of each file always kept.
    pub keep_versions: usize,
    /// Versions younger than this are kept too, while the file's versions stay within
    /// `max_mib_per_file`.
    pub keep_days: u32,
    /// MiB of text one file's versions may hold (its newest `keep_versions` are kept even
    /// past it).
    pub max_mib_per_file: u64,
    /// MiB the whole history may hold (the journal keeps it within this by dropping the
    /// older half of the biggest files' versions).
    pub max_mib_total: u64,
}

impl Default for Retention {
    fn default() -> Self {
        Retention {
            keep_versions: 50,
            keep_days: 30,
            max_mib_per_file: 64,
            max_mib_total: 1024,
        }
    }
}

impl Retention {
    fn max_bytes(&self) -> u64 {
        self.max_mib_per_file.saturating_mul(1024 * 1024)
    }

    /// The cap on the whole history, in bytes.
    pub(crate) fn max_total_bytes(&self) -> u64 {
        self.max_mib_total.saturating_mul(1024 * 1024)
    }
}

/// The `size` of an index line without parsing it whole (0 when there is none).
fn size_of_line(line: &str) -> u64 {
    line.split_once("\"size\":")
        .map(|(_, rest)| {
            rest.bytes()
                .take_while(u8::is_ascii_digit)
                .fold(0u64, |n, d| {
                    n.saturating_mul(10).saturating_add(u64::from(d - b'0'))
                })
        })
        .unwrap_or(0)
}

/// One version of a file: the text a write replaced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Version {
    /// 1 for the first version recorded, then one more each time.
    pub version: u64,
    /// When it was replaced (RFC 3339, UTC).
    pub at: String,
    /// Who replaced it: the tool (`mcp:memory_bank_update`), `tui`, `accept`, `restore`.
    pub writer: String,
    /// Its size in bytes.
    pub size: u64,
    /// SHA-256 of its text.
    pub hash: String,
    /// The file (its real path).
    pub path: PathBuf,
    /// The generation of the pack its text is in (see `text_at`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pack: u64,
    /// Where its text starts in the history folder's pack (`size` bytes long); `None`:
    /// in its own `<hash>.txt`, as older builds stored it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_at: Option<u64>,
    /// `None`: the text a write replaced (`writer` replaced it). Otherwise a version the
    /// journal found on disk (`writer` wrote it, where that is known) or the file found
    /// gone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seen: Option<Seen>,
    /// The file's other name in a rename: where it came from (a version found on disk) or
    /// where it went (a deletion).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub renamed: Option<PathBuf>,
}

impl Version {
    /// Whether this version records the file's deletion (it has no text).
    pub fn is_deletion(&self) -> bool {
        self.seen == Some(Seen::Deleted)
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A file compared with one of its versions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionDiff {
    pub version: Version,
    /// The version's text.
    pub old: String,
    /// The file's text now (`None`: the file is gone).
    pub current: Option<String>,
    /// A unified diff from the version to the file now (empty when they are equal).
    pub unified: String,
}

/// What one record adds: the text, who wrote or replaced it, and what the journal saw.
struct Entry<'a> {
    text: &'a str,
    writer: &'a str,
    seen: Option<Seen>,
    renamed: Option<&'a Path>,
}

/// One file's folder in the history, open and locked: a write records the text it
/// replaces there and then leaves its note there, without opening or locking the folder
/// a second time (the lock is held until the write's note is left).
pub(crate) struct FileFolder {
    dir: crate::io::dir_handle::Dir,
    _lock: files::PrivateFolderLock,
}

/// The history kept in one data folder. Clones share what they remember of the files
/// written (see `Memo`), so a server hands one to every request.
#[derive(Debug, Clone)]
pub struct History {
    data_dir: PathBuf,
    retention: Retention,
    /// What dates each version and judges retention.
    clock: crate::clock::Clock,
    memo: Arc<Memo>,
}

/// What one history remembers between writes so a file written again and again costs
/// neither a parse of its index nor a second hash of its text.
#[derive(Debug, Default)]
struct Memo {
    summaries: summaries::Summaries,
    written: written::Written,
}

/// The file's key: its real path (a file not there yet: its real folder and its name).
pub fn key_of(file: &Path) -> PathBuf {
    if let Ok(real) = fs::canonicalize(file) {
        return real;
    }
    match (file.parent(), file.file_name()) {
        (Some(parent), Some(name)) => fs::canonicalize(parent)
            .map(|p| p.join(name))
            .unwrap_or_else(|_| file.to_path_buf()),
        _ => file.to_path_buf(),
    }
}

fn blob_name(hash: &str) -> String {
    format!("{hash}.txt")
}

fn parse_time(at: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(at)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// One line of an index as a version of `key` (`None`: torn, or another file's).
fn parse_line(line: &str, key: &Path) -> Option<Version> {
    serde_json::from_str::<Version>(line)
        .ok()
        .filter(|v| v.path == key)
}

/// An index file as it is on disk now: which file (a rewrite renames a new one in) and how
/// long (an append grows it). `None` where the filesystem gives no identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct IndexStamp {
    inode: u64,
    len: u64,
}

impl IndexStamp {
    fn of(dir: &crate::io::dir_handle::Dir) -> Result<Option<IndexStamp>> {
        Ok(dir
            .entry_meta(std::ffi::OsStr::new(INDEX))?
            .filter(|meta| meta.is_file && meta.inode != 0)
            .map(|meta| IndexStamp {
                inode: meta.inode,
                len: meta.len,
            }))
    }

    fn grown_by(self, bytes: u64) -> IndexStamp {
        IndexStamp {
            len: self.len + bytes,
            ..self
        }
    }
}

/// What recording needs of a file's index: its newest version (the next number, and
/// whether the text is new), its oldest (retention), how many lines and their sizes, the
/// pack texts are appended to, and where each text is in it (to store a text once).
#[derive(Debug, Clone, Default)]
struct IndexSummary {
    lines: usize,
    sizes: u64,
    newest: Option<Version>,
    oldest: Option<Version>,
    /// The newest pack generation the index names (texts are appended to it).
    pack: u64,
    /// Content hash → (pack generation, offset) of its newest copy.
    texts: HashMap<String, (u64, u64)>,
}

impl IndexSummary {
    /// Reads the index and sums it up.
    fn read(dir: &crate::io::dir_handle::Dir, key: &Path) -> Result<IndexSummary> {
        let Some(bytes) = files::read(dir, INDEX, INDEX_LIMIT)? else {
            return Ok(IndexSummary::default());
        };
        let text = String::from_utf8_lossy(&bytes);
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        let versions: Vec<Version> = lines.iter().filter_map(|l| parse_line(l, key)).collect();
        let mut texts = HashMap::new();
        for v in &versions {
            if let Some(at) = v.text_at {
                texts.insert(v.hash.clone(), (v.pack, at));
            }
        }
        Ok(IndexSummary {
            lines: lines.len(),
            sizes: lines.iter().map(|l| size_of_line(l)).sum(),
            pack: versions.iter().map(|v| v.pack).max().unwrap_or(0),
            newest: versions.last().cloned(),
            oldest: versions.first().cloned(),
            texts,
        })
    }

    fn appended(mut self, version: Version) -> IndexSummary {
        if let Some(at) = version.text_at {
            self.texts.insert(version.hash.clone(), (version.pack, at));
        }
        IndexSummary {
            lines: self.lines + 1,
            sizes: self.sizes + version.size,
            oldest: self.oldest.or_else(|| Some(version.clone())),
            pack: self.pack.max(version.pack),
            newest: Some(version),
            texts: self.texts,
        }
    }
}

/// The summaries of the indexes a history wrote last, so an agent writing the same
/// file again and again neither reads nor parses its index each time: one is used only
/// while the index on disk is still the very file, of the very length, it was left at.
mod summaries {
    use std::collections::HashMap;
    use std::path::{Path, PathBuf};

    use parking_lot::Mutex;

    use super::{IndexStamp, IndexSummary};

    /// Summaries kept at most (past it, all are dropped and built again as needed).
    const MAX: usize = 256;

    #[derive(Debug, Default)]
    pub(super) struct Summaries {
        kept: Mutex<HashMap<PathBuf, (IndexStamp, IndexSummary)>>,
    }

    impl Summaries {
        /// The summary kept for `folder` when its index is still at `stamp`, taken out
        /// (the caller holds the folder's lock and puts the updated one back).
        pub(super) fn take(&self, folder: &Path, stamp: IndexStamp) -> Option<IndexSummary> {
            match self.kept.lock().remove(folder) {
                Some((kept_stamp, summary)) if kept_stamp == stamp => Some(summary),
                _ => None,
            }
        }

        pub(super) fn put(&self, folder: PathBuf, stamp: IndexStamp, summary: IndexSummary) {
            let mut map = self.kept.lock();
            if map.len() >= MAX && !map.contains_key(&folder) {
                map.clear();
            }
            map.insert(folder, (stamp, summary));
        }

        pub(super) fn forget(&self, folder: &Path) {
            self.kept.lock().remove(folder);
        }
    }
}

impl History {
    pub fn new(
        data_dir: impl Into<PathBuf>,
        retention: Retention,
        clock: crate::clock::Clock,
    ) -> History {
        History {
            data_dir: data_dir.into(),
            retention,
            clock,
            memo: Arc::default(),
        }
    }

    /// The data folder it keeps its files in.
    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    pub fn retention(&self) -> Retention {
        self.retention
    }

    /// What dates the versions it records.
    pub fn clock(&self) -> crate::clock::Clock {
        self.clock
    }

    /// Where the versions of `file` are listed: a result judged from them depends on
    /// this file (appended to, or renamed over when retention rewrites it).
    pub(crate) fn index_path(&self, file: &Path) -> PathBuf {
        self.data_dir
            .join(FOLDER)
            .join(Self::folder_name(&key_of(file)))
            .join(INDEX)
    }

    fn folder_name(key: &Path) -> String {
        files::short_hash(key.to_string_lossy().as_bytes())
    }

    fn file_folder(&self, key: &Path, create: bool) -> Result<Option<crate::io::dir_handle::Dir>> {
        files::folder(&self.data_dir, &[FOLDER, &Self::folder_name(key)], create)
    }

    fn read_index(dir: &crate::io::dir_handle::Dir, key: &Path) -> Result<Vec<Version>> {
        let Some(bytes) = files::read(dir, INDEX, INDEX_LIMIT)? else {
            return Ok(Vec::new());
        };
        let text = String::from_utf8_lossy(&bytes);
        // A torn last line (a crash mid-append) is skipped; so is another file's line
        // (two paths whose hashes collide never mix).
        Ok(text
            .lines()
            .filter_map(|l| serde_json::from_str::<Version>(l).ok())
            .filter(|v| v.path == key)
            .collect())
    }

    /// Records `replaced`, the text `file` held before a write by `writer`. Returns the
    /// version number, or `None` when it equals the newest version (nothing recorded).
    pub fn record(&self, file: &Path, replaced: &str, writer: &str) -> Result<Option<u64>> {
        self.record_at(file, replaced, writer, self.clock.utc())
    }

    /// [`History::record`] at a given time (retention is judged against it).
    pub fn record_at(
        &self,
        file: &Path,
        replaced: &str,
        writer: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<u64>> {
        self.record_key_at(key_of(file), replaced, writer, now)
    }

    /// [`History::record_at`] for the file whose key ([`key_of`]) is `key`.
    fn record_key_at(
        &self,
        key: PathBuf,
        replaced: &str,
        writer: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<u64>> {
        self.record_entry(
            key,
            Entry {
                text: replaced,
                writer,
                seen: None,
                renamed: None,
            },
            now,
        )
    }

    /// Records one entry for the file whose key is `key`, unless the newest version is
    /// the same (same text, both present or both deletions).
    fn record_entry(
        &self,
        key: PathBuf,
        entry: Entry<'_>,
        now: DateTime<Utc>,
    ) -> Result<Option<u64>> {
        let Some(dir) = self.file_folder(&key, true)? else {
            return Ok(None);
        };
        self.record_entry_in(&dir, key, entry, now)
    }

    /// [`History::record_entry`] in the file's folder `dir`, open already.
    fn record_entry_in(
        &self,
        dir: &crate::io::dir_handle::Dir,
        key: PathBuf,
        entry: Entry<'_>,
        now: DateTime<Utc>,
    ) -> Result<Option<u64>> {
        let _lock = files::lock(dir)?;
        self.record_entry_locked(dir, key, entry, now)
    }

    /// [`History::record_entry_in`] with the folder's lock held by the caller.
    fn record_entry_locked(
        &self,
        dir: &crate::io::dir_handle::Dir,
        key: PathBuf,
        entry: Entry<'_>,
        now: DateTime<Utc>,
    ) -> Result<Option<u64>> {
        let Entry {
            text: replaced,
            writer,
            seen,
            renamed,
        } = entry;
        let deletion = seen == Some(Seen::Deleted);
        let folder = dir.path().to_path_buf();
        let stamp = IndexStamp::of(dir)?;
        let summary = match stamp.and_then(|stamp| self.memo.summaries.take(&folder, stamp)) {
            Some(summary) => summary,
            None => IndexSummary::read(dir, &key)?,
        };
        let hash = self
            .memo
            .written
            .hash_of(&key, replaced)
            .unwrap_or_else(|| files::content_hash(replaced.as_bytes()));
        if summary
            .newest
            .as_ref()
            .is_some_and(|v| v.hash == hash && v.is_deletion() == deletion)
        {
            return Ok(None);
        }
        let size = replaced.len() as u64;
        let generation = summary.pack;
        // A copy there already is reused only when its bytes still hash right: a torn
        // one gets a fresh copy after it.
        let reusable = match summary.texts.get(&hash) {
            Some(&(g, at)) if g == generation && pack::holds(dir, g, at, size, &hash)? => Some(at),
            _ => None,
        };
        let text_at = match (deletion, reusable) {
            (true, _) => None,
            (false, Some(at)) => Some(at),
            (false, None) => Some(pack::append(dir, generation, replaced.as_bytes())?),
        };
        let number = summary.newest.as_ref().map_or(1, |v| v.version + 1);
        let version = Version {
            version: number,
            at: now.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            writer: writer.to_string(),
            size,
            hash,
            path: key.clone(),
            pack: generation,
            text_at,
            seen,
            renamed: renamed.map(Path::to_path_buf),
        };
        let line = serde_json::to_string(&version).map_err(|e| CoreError::Parse {
            path: dir.path().join(INDEX),
            message: e.to_string(),
        })?;
        let count = summary.lines + 1;
        let oldest_expired = summary.oldest.as_ref().is_none_or(|v| !self.young(v, now));
        let within_budget = summary.sizes + version.size <= self.retention.max_bytes();
        if count <= MAX_VERSIONS
            && (count <= self.retention.keep_versions || (!oldest_expired && within_budget))
        {
            let appended = format!("{line}\n");
            let grown = files::append(dir, INDEX, appended.as_bytes())?;
            // Under the folder's lock nothing else wrote the index meanwhile, so its stamp
            // after this append is known without asking again.
            if let Some(stamp) = stamp {
                self.memo
                    .summaries
                    .put(folder, stamp.grown_by(grown), summary.appended(version));
            }
            return Ok(Some(number));
        }
        self.memo.summaries.forget(&folder);
        let index = files::read(dir, INDEX, INDEX_LIMIT)?.unwrap_or_default();
        let index = String::from_utf8_lossy(&index);
        let mut versions: Vec<Version> = index
            .lines()
            .filter_map(|line| parse_line(line, &key))
            .collect();
        versions.push(version);
        let kept = self.kept(&versions, now);
        let dropped: Vec<Version> = versions.drain(..versions.len() - kept).collect();
        let compacted = Self::compact_if_mostly_dead(dir, generation, &mut versions)?;
        let mut text = String::new();
        for v in &versions {
            if let Ok(line) = serde_json::to_string(v) {
                text.push_str(&line);
                text.push('\n');
            }
        }
        files::write_atomic(dir, INDEX, text.as_bytes(), false)?;
        if let Some(new_generation) = compacted {
            // The index names only the new pack now: one left over is removed at the next
            // compaction, so failing to remove it does not fail the write.
            let _ = pack::remove_all_but(dir, new_generation);
        }
        // Texts older builds stored in their own files.
        for old in dropped
            .iter()
            .filter(|v| v.text_at.is_none() && !v.is_deletion())
        {
            if !versions
                .iter()
                .any(|v| v.text_at.is_none() && !v.is_deletion() && v.hash == old.hash)
            {
                let _ = dir.remove_file(std::ffi::OsStr::new(&blob_name(&old.hash)));
            }
        }
        Ok(Some(number))
    }

    /// When the dropped texts in the pack of `generation` outweigh the kept ones, copies
    /// the kept ones (each once) to a new pack of the next generation and points
    /// `versions` at it; returns that generation. Amortised: a pack is copied only once
    /// it is more than half dead, so each byte is copied a bounded number of times.
    fn compact_if_mostly_dead(
        dir: &crate::io::dir_handle::Dir,
        generation: u64,
        versions: &mut [Version],
    ) -> Result<Option<u64>> {
        let mut live = 0u64;
        let mut seen = std::collections::HashSet::new();
        for v in versions.iter() {
            if let Some(at) = v.text_at
                && seen.insert((v.pack, at))
            {
                live += v.size;
            }
        }
        let total = pack::len(dir, generation)?;
        if total.saturating_sub(live) <= live {
            return Ok(None);
        }
        Self::compact_into_next(dir, generation, versions).map(Some)
    }

    /// Copies the texts `versions` name (each once) to a new pack of the next generation
    /// and points `versions` at it; returns that generation.
    fn compact_into_next(
        dir: &crate::io::dir_handle::Dir,
        generation: u64,
        versions: &mut [Version],
    ) -> Result<u64> {
        let live: u64 = versions.iter().map(|v| v.size).sum();
        let next = versions
            .iter()
            .map(|v| v.pack)
            .max()
            .unwrap_or(0)
            .max(generation)
            + 1;
        let mut bytes = Vec::with_capacity(usize::try_from(live).unwrap_or(0).min(1 << 26));
        let mut moved: HashMap<(u64, u64), u64> = HashMap::new();
        for v in versions.iter_mut() {
            let Some(at) = v.text_at else { continue };
            let new_at = match moved.get(&(v.pack, at)) {
                Some(&new_at) => new_at,
                None => {
                    // Copied as it is: a torn copy stays torn (and refused when read).
                    let text = pack::read(dir, v.pack, at, v.size)?.unwrap_or_default();
                    let new_at = bytes.len() as u64;
                    bytes.extend_from_slice(&text);
                    moved.insert((v.pack, at), new_at);
                    new_at
                }
            };
            v.pack = next;
            v.text_at = Some(new_at);
        }
        pack::write_new(dir, next, &bytes)?;
        Ok(next)
    }

    /// Whether `version` is younger than the retention's days at `now`.
    fn young(&self, version: &Version, now: DateTime<Utc>) -> bool {
        let max_age = chrono::Duration::days(i64::from(self.retention.keep_days));
        parse_time(&version.at).is_some_and(|at| now - at <= max_age)
    }

    /// How many of the newest `versions` (oldest first) the retention keeps at `now`.
    /// Past the cap, [`CAP_SLACK`] more go at once, so a file at the cap does not
    /// rewrite its index on every write.
    fn kept(&self, versions: &[Version], now: DateTime<Utc>) -> usize {
        let total = versions.len();
        let cap = if total > MAX_VERSIONS {
            MAX_VERSIONS - CAP_SLACK
        } else {
            MAX_VERSIONS
        };
        let (mut kept, mut bytes) = (0, 0u64);
        for (i, v) in versions.iter().enumerate().rev() {
            let newest_n = total - i <= self.retention.keep_versions;
            let young = self.young(v, now) && bytes + v.size <= self.retention.max_bytes();
            if !(newest_n || young) || kept >= cap {
                break;
            }
            kept += 1;
            bytes += v.size;
        }
        kept
    }

    /// The versions of `file`, oldest first.
    pub fn list(&self, file: &Path) -> Result<Vec<Version>> {
        let key = key_of(file);
        let Some(dir) = self.file_folder(&key, false)? else {
            return Ok(Vec::new());
        };
        Self::read_index(&dir, &key)
    }

    /// Version `number` of `file` and its text.
    pub fn version(&self, file: &Path, number: u64) -> Result<(Version, String)> {
        let key = key_of(file);
        let missing = || {
            CoreError::Config(format!(
                "{} has no version {number} in mbank's history (`mbank history {}` lists them)",
                key.display(),
                key.display()
            ))
        };
        let dir = self.file_folder(&key, false)?.ok_or_else(missing)?;
        let versions = Self::read_index(&dir, &key)?;
        let version = versions
            .iter()
            .find(|v| v.version == number)
            .cloned()
            .ok_or_else(missing)?;
        if version.is_deletion() {
            return Err(CoreError::Config(format!(
                "version {number} of {} records that the file was deleted: it has no text \
                 (`mbank history {}` lists the versions before it)",
                key.display(),
                key.display()
            )));
        }
        if let Some(at) = version.text_at {
            return Self::packed_text(&dir, &versions, version, at);
        }
        let blob = blob_name(&version.hash);
        let bytes =
            files::read(&dir, &blob, crate::io::text::MAX_READ_BYTES)?.ok_or_else(|| {
                CoreError::Parse {
                    path: dir.path().join(&blob),
                    message: "the version's text is missing from mbank's history".into(),
                }
            })?;
        let text = files::text_of(&dir.path().join(&blob), bytes)?;
        if files::content_hash(text.as_bytes()) != version.hash {
            return Err(CoreError::Parse {
                path: dir.path().join(&blob),
                message: "the version's text does not match its hash (changed on disk)".into(),
            });
        }
        Ok((version, text))
    }

    /// The text of `version`, which starts at `at` in its pack. When that copy no longer
    /// hashes right, another copy of the same text the index names (recorded again after
    /// a crash tore the first) is read instead; none right: refused.
    fn packed_text(
        dir: &crate::io::dir_handle::Dir,
        versions: &[Version],
        version: Version,
        at: u64,
    ) -> Result<(Version, String)> {
        let path = dir.path().join(pack::name(version.pack));
        if version.size > crate::io::text::MAX_READ_BYTES {
            return Err(CoreError::Parse {
                path,
                message: "the version's text is larger than mbank reads".into(),
            });
        }
        let copies = std::iter::once((version.pack, at)).chain(
            versions
                .iter()
                .filter(|v| v.hash == version.hash && v.size == version.size)
                .filter_map(|v| v.text_at.map(|other| (v.pack, other)))
                .filter(|&copy| copy != (version.pack, at)),
        );
        let mut tried = std::collections::HashSet::new();
        for (generation, offset) in copies {
            if !tried.insert((generation, offset)) {
                continue;
            }
            let Some(bytes) = pack::read(dir, generation, offset, version.size)? else {
                continue;
            };
            if bytes.len() as u64 == version.size && files::content_hash(&bytes) == version.hash {
                let text = files::text_of(&path, bytes)?;
                return Ok((version, text));
            }
        }
        Err(CoreError::Parse {
            path,
            message: "the version's text does not match its hash (changed on disk)".into(),
        })
    }

    /// `file` now compared with version `number`.
    pub fn diff(&self, file: &Path, number: u64) -> Result<VersionDiff> {
        let (version, old) = self.version(file, number)?;
        let current = match crate::io::text::read_text(&key_of(file)) {
            Ok(text) => Some(text),
            Err(e) if crate::io::text::is_not_found(&e) => None,
            Err(e) => return Err(e),
        };
        let new = current.as_deref().unwrap_or("");
        let unified = if old == new {
            String::new()
        } else {
            similar::TextDiff::from_lines(old.as_str(), new)
                .unified_diff()
                .context_radius(3)
                .header(&format!("version {number}"), "now")
                .to_string()
        };
        Ok(VersionDiff {
            version,
            old,
            current,
            unified,
        })
    }

    /// Records `replaced` for the file whose key ([`key_of`]) is `key`, now, before a
    /// write replaces it: the write does not go ahead if this fails.
    /// Returns the file's folder, open and still locked, for the note the write leaves
    /// once it is made ([`History::note_written_in`]): a write opens and locks it once.
    pub(crate) fn record_resolved(
        &self,
        key: &Path,
        replaced: &str,
        writer: &str,
    ) -> Result<Option<FileFolder>> {
        let Some(dir) = self.file_folder(key, true)? else {
            return Ok(None);
        };
        let entry = Entry {
            text: replaced,
            writer,
            seen: None,
            renamed: None,
        };
        let lock = files::lock(&dir)?;
        self.record_entry_locked(&dir, key.to_path_buf(), entry, self.clock.utc())?;
        Ok(Some(FileFolder { dir, _lock: lock }))
    }

    /// Tells the history that the file whose key is `key` now holds `text`, whose
    /// [`content_hash`] is `hash`: the next write of the file records that text without
    /// hashing it again.
    pub(crate) fn remember_written(&self, key: &Path, text: &str, hash: &str) {
        self.memo.written.put(key, text, hash);
    }
}

/// The SHA-256 of `text` in hex: a version's identity by content. Its first 32 digits are
/// `crate::guard::content_version`, so a write that needs both hashes once.
pub fn content_hash(text: &str) -> String {
    files::content_hash(text.as_bytes())
}

#[cfg(test)]
mod tests;

//! What the journal (`crate::journal`) keeps in the history besides the texts writes
//! replaced: versions it found on disk and deletions ([`Seen`]), the note a write through
//! mbank leaves of the text it wrote (so the journal names that writer rather than "on
//! disk", and records the version once), the list of every file kept, the size of it
//! all, and the cap on that size.
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Entry, FOLDER, History, INDEX, INDEX_LIMIT, IndexSummary, Version, files, pack};
use crate::error::{CoreError, Result};

/// How a version the journal recorded came to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Seen {
    /// The file held this text on disk.
    OnDisk,
    /// The file was gone.
    Deleted,
}

/// What a write through mbank last did to a file: the text's SHA-256 (`None`: it removed
/// the file), who wrote it and for which client.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WrittenNote {
    pub hash: Option<String>,
    pub writer: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
}

impl WrittenNote {
    /// The writer as a version names it: the tool, and the client when one is known.
    pub fn who(&self) -> String {
        match &self.client {
            Some(client) => format!("{} ({client})", self.writer),
            None => self.writer.clone(),
        }
    }
}

/// The notes of one file's writes: one line a write, cut back to the newest when longer.
const WRITTEN: &str = "written.jsonl";
const WRITTEN_LIMIT: u64 = 64 * 1024;

/// How big the history is.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Stats {
    /// Files with a history.
    pub files: usize,
    /// Versions over all of them.
    pub versions: usize,
    /// Bytes on disk (indexes, texts, notes).
    pub bytes: u64,
    /// The cap on `bytes` (`[history] max_mib_total`).
    pub cap_bytes: u64,
}

impl History {
    /// Records what the journal found of the file whose key is `key`: its text, or its
    /// deletion (`None`). `renamed`: its other name, when it was renamed. Nothing is
    /// recorded when the newest version is the same; returns the new version's number.
    pub(crate) fn record_seen(
        &self,
        key: &Path,
        text: Option<&str>,
        writer: &str,
        renamed: Option<&Path>,
    ) -> Result<Option<u64>> {
        let (text, seen) = match text {
            Some(text) => (text, Seen::OnDisk),
            None => ("", Seen::Deleted),
        };
        self.record_entry(
            key.to_path_buf(),
            Entry {
                text,
                writer,
                seen: Some(seen),
                renamed,
            },
            self.clock.utc(),
        )
    }

    /// The newest version of the file whose key is `key`.
    pub fn newest(&self, key: &Path) -> Result<Option<Version>> {
        let Some(dir) = self.file_folder(key, false)? else {
            return Ok(None);
        };
        Ok(IndexSummary::read(&dir, key)?.newest)
    }

    /// Notes that a write through mbank (`writer`, for `client`) left the file whose key
    /// is `key` holding the text whose SHA-256 is `hash` (`None`: removed it).
    pub(crate) fn note_written(
        &self,
        key: &Path,
        hash: Option<&str>,
        writer: &str,
        client: Option<&str>,
    ) -> Result<()> {
        let Some(dir) = self.file_folder(key, true)? else {
            return Ok(());
        };
        let _lock = files::lock(&dir)?;
        Self::note_in(&dir, hash, writer, client)
    }

    /// [`History::note_written`] in the file's folder, open and locked since its write
    /// recorded the text it replaced.
    pub(crate) fn note_written_in(
        &self,
        folder: &super::FileFolder,
        hash: Option<&str>,
        writer: &str,
        client: Option<&str>,
    ) -> Result<()> {
        Self::note_in(&folder.dir, hash, writer, client)
    }

    /// Leaves the note in `dir`, whose lock the caller holds.
    fn note_in(
        dir: &crate::io::dir_handle::Dir,
        hash: Option<&str>,
        writer: &str,
        client: Option<&str>,
    ) -> Result<()> {
        let note = WrittenNote {
            hash: hash.map(str::to_string),
            writer: writer.to_string(),
            client: client.map(str::to_string),
        };
        let line = serde_json::to_string(&note).map_err(|e| CoreError::Parse {
            path: dir.path().join(WRITTEN),
            message: e.to_string(),
        })? + "\n";
        // The open that appends tells the length too: one look at the file, not two.
        let (file, len) = dir.open_append(WRITTEN, files::PRIVATE_FILE)?;
        if len > WRITTEN_LIMIT {
            drop(file);
            // The newer half stays: who made the recent texts is how the guard finds the
            // last text a person made.
            let kept = Self::read_notes(dir)?;
            let mut text: String = kept[kept.len() / 2..]
                .iter()
                .filter_map(|note| serde_json::to_string(note).ok())
                .map(|l| l + "\n")
                .collect();
            text.push_str(&line);
            files::write_atomic(dir, WRITTEN, text.as_bytes(), false)
        } else {
            files::append_to(file, len, dir, WRITTEN, line.as_bytes()).map(|_| ())
        }
    }

    /// Every note of `dir`'s file, oldest first (torn lines skipped).
    fn read_notes(dir: &crate::io::dir_handle::Dir) -> Result<Vec<WrittenNote>> {
        let Some(bytes) = files::read(dir, WRITTEN, WRITTEN_LIMIT * 2)? else {
            return Ok(Vec::new());
        };
        Ok(String::from_utf8_lossy(&bytes)
            .lines()
            .filter_map(|line| serde_json::from_str::<WrittenNote>(line).ok())
            .collect())
    }

    /// The newest text of the file whose key is `key` that `by_agent` did not make, when
    /// agents made `current` (what it holds now) and every version since: the version
    /// and its text. `None` when `current` is not an agent's, when no such version is
    /// kept (agents made every one, or the file was deleted on the way), or when the
    /// file has no history. Who made a text is what the journal saw for a version it
    /// found on disk, else the note of the write through mbank that left that text; a
    /// text no write through mbank left was made on disk, by a person's editor, git or
    /// a tool mbank does not see, and counts as not an agent's. So does the text whose
    /// SHA-256 is `approved` (the one a person marked reviewed).
    pub(crate) fn last_text_not_by(
        &self,
        key: &Path,
        current: &str,
        approved: Option<&str>,
        by_agent: impl Fn(&str) -> bool,
    ) -> Result<Option<(Version, String)>> {
        let Some(dir) = self.file_folder(key, false)? else {
            return Ok(None);
        };
        let notes = Self::read_notes(&dir)?;
        let author = |hash: &str| {
            notes
                .iter()
                .rev()
                .find(|note| note.hash.as_deref() == Some(hash))
                .map(WrittenNote::who)
        };
        let current_hash = self
            .memo
            .written
            .hash_of(key, current)
            .unwrap_or_else(|| files::content_hash(current.as_bytes()));
        if approved == Some(current_hash.as_str())
            || !author(&current_hash).is_some_and(|who| by_agent(&who))
        {
            return Ok(None);
        }
        let versions = super::History::read_index(&dir, key)?;
        for version in versions.iter().rev() {
            if version.is_deletion() {
                return Ok(None);
            }
            let made_by = match version.seen {
                Some(_) => Some(version.writer.clone()),
                None => author(&version.hash),
            };
            if approved != Some(version.hash.as_str()) && made_by.is_some_and(|who| by_agent(&who))
            {
                continue;
            }
            let number = version.version;
            return self.version(key, number).map(Some);
        }
        Ok(None)
    }

    /// The note of the last write through mbank to the file whose key is `key`.
    pub(crate) fn written_note(&self, key: &Path) -> Result<Option<WrittenNote>> {
        let Some(dir) = self.file_folder(key, false)? else {
            return Ok(None);
        };
        let Some(bytes) = files::read(&dir, WRITTEN, WRITTEN_LIMIT * 2)? else {
            return Ok(None);
        };
        Ok(String::from_utf8_lossy(&bytes)
            .lines()
            .rev()
            .find_map(|line| serde_json::from_str::<WrittenNote>(line).ok()))
    }

    /// The names of the history's file folders.
    fn folder_names(&self) -> Result<Vec<String>> {
        let Some(dir) = files::folder(&self.data_dir, &[FOLDER], false)? else {
            return Ok(Vec::new());
        };
        let mut names: Vec<String> = dir
            .names()?
            .into_iter()
            .filter_map(|n| n.into_string().ok())
            .filter(|n| !n.starts_with('.'))
            .collect();
        names.sort();
        Ok(names)
    }

    /// The newest version of every file with a history (torn or empty indexes passed
    /// over), in no particular order.
    pub(crate) fn newest_of_all(&self) -> Result<Vec<Version>> {
        let mut out = Vec::new();
        for name in self.folder_names()? {
            let Some(dir) = files::folder(&self.data_dir, &[FOLDER, &name], false)? else {
                continue;
            };
            let Some(bytes) = files::read(&dir, INDEX, INDEX_LIMIT)? else {
                continue;
            };
            let newest = String::from_utf8_lossy(&bytes)
                .lines()
                .rev()
                .find_map(|line| serde_json::from_str::<Version>(line).ok());
            // A folder is named after its file: a line naming another file is not its.
            out.extend(newest.filter(|v| Self::folder_name(&v.path) == name));
        }
        Ok(out)
    }

    /// The history's size: files, versions and bytes on disk.
    pub fn stats(&self) -> Result<Stats> {
        let mut stats = Stats {
            cap_bytes: self.retention.max_total_bytes(),
            ..Stats::default()
        };
        for (name, bytes) in self.folder_sizes()? {
            stats.bytes += bytes;
            let Some(dir) = files::folder(&self.data_dir, &[FOLDER, &name], false)? else {
                continue;
            };
            let Some(index) = files::read(&dir, INDEX, INDEX_LIMIT)? else {
                continue;
            };
            let count = String::from_utf8_lossy(&index)
                .lines()
                .filter(|line| serde_json::from_str::<Version>(line).is_ok())
                .count();
            if count > 0 {
                stats.files += 1;
                stats.versions += count;
            }
        }
        Ok(stats)
    }

    /// Each file folder with the bytes of the regular files in it.
    fn folder_sizes(&self) -> Result<Vec<(String, u64)>> {
        let mut out = Vec::new();
        for name in self.folder_names()? {
            let Some(dir) = files::folder(&self.data_dir, &[FOLDER, &name], false)? else {
                continue;
            };
            let mut bytes = 0;
            for entry in dir.names()? {
                if let Some(meta) = dir.entry_meta(&entry)?
                    && meta.is_file
                {
                    bytes += meta.len;
                }
            }
            out.push((name, bytes));
        }
        Ok(out)
    }

    /// Keeps the whole history within `[history] max_mib_total`: while it is over, the
    /// file whose history is biggest loses its older half (its newest version always
    /// stays). Returns how many versions went.
    pub(crate) fn enforce_total_cap(&self) -> Result<usize> {
        let cap = self.retention.max_total_bytes();
        let mut sizes = self.folder_sizes()?;
        let mut total: u64 = sizes.iter().map(|(_, b)| b).sum();
        let mut dropped = 0;
        // Each round halves one file's versions: bounded by the files times the log of
        // their versions.
        for _ in 0..sizes.len().saturating_mul(12) {
            if total <= cap {
                break;
            }
            sizes.sort_by_key(|(_, bytes)| std::cmp::Reverse(*bytes));
            let Some((name, bytes)) = sizes.first().cloned() else {
                break;
            };
            let (went, now) = self.halve(&name)?;
            if went == 0 {
                // Nothing more to take from the biggest: the cap cannot be met this way.
                break;
            }
            dropped += went;
            total = total - bytes + now;
            sizes[0].1 = now;
        }
        Ok(dropped)
    }

    /// Drops the older half of one file folder's versions (its newest stays) and copies
    /// the texts still named to a fresh pack. Returns how many went and the folder's
    /// bytes after.
    fn halve(&self, name: &str) -> Result<(usize, u64)> {
        let Some(dir) = files::folder(&self.data_dir, &[FOLDER, name], false)? else {
            return Ok((0, 0));
        };
        let _lock = files::lock(&dir)?;
        self.memo.summaries.forget(dir.path());
        let Some(index) = files::read(&dir, INDEX, INDEX_LIMIT)? else {
            return Ok((0, 0));
        };
        let mut versions: Vec<Version> = String::from_utf8_lossy(&index)
            .lines()
            .filter_map(|line| serde_json::from_str::<Version>(line).ok())
            .filter(|v| Self::folder_name(&v.path) == name)
            .collect();
        if versions.len() < 2 {
            return Ok((0, folder_bytes(&dir)?));
        }
        let went = versions.len() / 2;
        versions.drain(..went);
        let generation = versions.iter().map(|v| v.pack).max().unwrap_or(0);
        let next = Self::compact_into_next(&dir, generation, &mut versions)?;
        write_index(&dir, &versions)?;
        let _ = pack::remove_all_but(&dir, next);
        Ok((went, folder_bytes(&dir)?))
    }

    /// Every file with a history whose key is below one of `folders` (real paths).
    pub(crate) fn files_below(&self, folders: &[PathBuf]) -> Result<Vec<Version>> {
        Ok(self
            .newest_of_all()?
            .into_iter()
            .filter(|v| folders.iter().any(|f| v.path.starts_with(f)))
            .collect())
    }
}

fn folder_bytes(dir: &crate::io::dir_handle::Dir) -> Result<u64> {
    let mut bytes = 0;
    for entry in dir.names()? {
        if let Some(meta) = dir.entry_meta(&entry)?
            && meta.is_file
        {
            bytes += meta.len;
        }
    }
    Ok(bytes)
}

fn write_index(dir: &crate::io::dir_handle::Dir, versions: &[Version]) -> Result<()> {
    let mut text = String::new();
    for v in versions {
        if let Ok(line) = serde_json::to_string(v) {
            text.push_str(&line);
            text.push('\n');
        }
    }
    files::write_atomic(dir, INDEX, text.as_bytes(), false)
}

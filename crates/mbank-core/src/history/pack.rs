//! The texts of one file's versions, appended one after the other to a pack file in its
//! history folder (`texts-<generation>.pack`): recording a version appends to a file that
//! is there already instead of creating one, which on a journaling filesystem is most of
//! what a new file costs at the write's flush. An index line says where its text starts
//! (`text_at`) and its `size` how long it is; every read checks the text against its hash.
//! Dropped versions' texts leave by compaction: the kept texts are copied to a pack of the
//! next generation, the index naming it is renamed in, and only then are older packs
//! removed, so a crash at any point leaves an index whose pack is there.
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::files;
use crate::error::{CoreError, Result};
use crate::io::dir_handle::{Dir, HandleError};

const PREFIX: &str = "texts-";
const SUFFIX: &str = ".pack";

/// The pack of `generation`.
pub(super) fn name(generation: u64) -> String {
    format!("{PREFIX}{generation}{SUFFIX}")
}

fn not_a_file(path: PathBuf) -> CoreError {
    CoreError::io(
        path,
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file in mbank's data folder; mbank does not write through it",
        ),
    )
}

/// Appends `bytes` to the pack of `generation` (created owner-only) and returns the
/// offset they start at: the pack's length before the append. The caller holds the
/// folder's lock, so nothing else appends meanwhile; a torn earlier append only leaves
/// dead bytes before the offset.
pub(super) fn append(dir: &Dir, generation: u64, bytes: &[u8]) -> Result<u64> {
    let name = name(generation);
    let path = dir.path().join(&name);
    // The open follows no link and refuses anything but a regular file without waiting.
    let (mut file, offset) = dir.open_append(&name, files::PRIVATE_FILE)?;
    file.write_all(bytes).map_err(|e| CoreError::io(&path, e))?;
    Ok(offset)
}

/// Up to `size` bytes at `offset` in the pack of `generation` (fewer when the pack ends
/// first, as after a crash; `None`: no pack).
pub(super) fn read(dir: &Dir, generation: u64, offset: u64, size: u64) -> Result<Option<Vec<u8>>> {
    let name = name(generation);
    let path = dir.path().join(&name);
    let (mut file, _) = match dir.open_file(Path::new(&name)) {
        Ok(opened) => opened,
        Err(e) if e.is_not_found() => return Ok(None),
        Err(HandleError::Symlink { .. }) => return Err(not_a_file(path)),
        Err(e) => return Err(e.into()),
    };
    file.seek(SeekFrom::Start(offset))
        .map_err(|e| CoreError::io(&path, e))?;
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0).min(1 << 20));
    file.take(size)
        .read_to_end(&mut bytes)
        .map_err(|e| CoreError::io(&path, e))?;
    Ok(Some(bytes))
}

/// Whether the pack of `generation` holds, at `offset`, `size` bytes whose SHA-256 is
/// `hash` (a torn or altered copy does not).
pub(super) fn holds(
    dir: &Dir,
    generation: u64,
    offset: u64,
    size: u64,
    hash: &str,
) -> Result<bool> {
    Ok(read(dir, generation, offset, size)?
        .is_some_and(|bytes| bytes.len() as u64 == size && files::content_hash(&bytes) == hash))
}

/// The length of the pack of `generation` (0 when there is none).
pub(super) fn len(dir: &Dir, generation: u64) -> Result<u64> {
    Ok(dir
        .entry_meta(std::ffi::OsStr::new(&name(generation)))?
        .filter(|meta| meta.is_file)
        .map_or(0, |meta| meta.len))
}

/// Writes `bytes` as the pack of `generation`, atomically and flushed: the index that
/// names it is renamed in after this returns.
pub(super) fn write_new(dir: &Dir, generation: u64, bytes: &[u8]) -> Result<()> {
    files::write_atomic(dir, &name(generation), bytes, true)
}

/// Removes every pack but the one of `keep` (older generations, and one a crash left
/// before its index was renamed in).
pub(super) fn remove_all_but(dir: &Dir, keep: u64) -> Result<()> {
    let keep = name(keep);
    for entry in dir.names()? {
        let name = entry.to_string_lossy();
        if name.starts_with(PREFIX) && name.ends_with(SUFFIX) && name != keep {
            dir.remove_file(&entry)?;
        }
    }
    Ok(())
}

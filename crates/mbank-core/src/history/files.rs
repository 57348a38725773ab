//! mbank's private files in its data folder (history and proposals): folders opened from
//! the data folder with no link followed and made owner-only, files written atomically
//! (an owner-only temp file in the same folder, then a rename), and a lock file per
//! folder so concurrent servers and the CLI take turns.
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{CoreError, Result};
use crate::io::dir_handle::{Dir, HandleError};

pub(crate) const PRIVATE_FILE: u32 = 0o600;
const PRIVATE_FOLDER: u32 = 0o700;
const LOCK: &str = ".lock";

/// Opens `names` below `data_dir`, one folder after the other, no link followed; with
/// `create`, missing ones are created owner-only (`None`: absent and not created). Each
/// folder is opened first and created only when missing: every write of an agent passes
/// here, and the folders exist after the first.
pub fn folder(data_dir: &Path, names: &[&str], create: bool) -> Result<Option<Dir>> {
    let mut dir = match Dir::open_anchor(data_dir) {
        Ok(dir) => dir,
        Err(e) if e.is_not_found() && create => {
            fs::create_dir_all(data_dir).map_err(|e| CoreError::io(data_dir, e))?;
            Dir::open_anchor(data_dir)?
        }
        Err(e) if e.is_not_found() => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    // The whole chain in one open (no link followed at any step) when it is there.
    let chain: PathBuf = names.iter().collect();
    if names.len() > 1 {
        match dir.open_dir(&chain) {
            Ok(opened) => return Ok(Some(opened)),
            Err(e) if e.is_not_found() => {}
            Err(e) => return Err(e.into()),
        }
    }
    for name in names {
        dir = match dir.open_dir(Path::new(name)) {
            Ok(sub) => sub,
            Err(e) if e.is_not_found() && create => {
                let sub = dir.create_dir(name, PRIVATE_FOLDER)?;
                #[cfg(unix)]
                sub.ensure_mode(PRIVATE_FOLDER)?;
                sub
            }
            Err(e) if e.is_not_found() => return Ok(None),
            Err(e) => return Err(e.into()),
        };
    }
    Ok(Some(dir))
}

/// An exclusive lock on one private folder, held until dropped.
pub(crate) struct PrivateFolderLock {
    _file: fs::File,
}

/// Takes the folder's lock (waiting for another holder: each holds it for one small
/// read-modify-write).
pub(crate) fn lock(dir: &Dir) -> Result<PrivateFolderLock> {
    let file = dir.open_lock_file(LOCK, PRIVATE_FILE)?;
    file.lock()
        .map_err(|e| CoreError::io(dir.path().join(LOCK), e))?;
    Ok(PrivateFolderLock { _file: file })
}

/// Writes `bytes` to `name` in `dir` atomically; `sync` flushes the file before the
/// rename (for what must survive a power cut, not only a crash of mbank).
pub fn write_atomic(dir: &Dir, name: &str, bytes: &[u8], sync: bool) -> Result<()> {
    let temp = dir.create_temp(".mbank-", ".tmp", PRIVATE_FILE)?;
    let path = dir.path().join(name);
    let mut file = temp.file();
    file.write_all(bytes).map_err(|e| CoreError::io(&path, e))?;
    if sync {
        file.sync_all().map_err(|e| CoreError::io(&path, e))?;
    }
    temp.commit(name, true)?;
    Ok(())
}

/// Reads the regular file `name` in `dir` whole, up to `limit` bytes (`None`: absent).
/// A link, FIFO or device there is an error, never followed or waited on.
pub fn read(dir: &Dir, name: &str, limit: u64) -> Result<Option<Vec<u8>>> {
    match dir.read(Path::new(name), limit) {
        Ok(read) => Ok(read.map(|r| r.bytes)),
        Err(HandleError::Symlink { .. }) => Err(CoreError::io(
            dir.path().join(name),
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "a symbolic link in mbank's data folder; mbank does not follow it",
            ),
        )),
        Err(e) => Err(e.into()),
    }
}

/// Appends the line `bytes` to `name` in `dir` with one write (created owner-only);
/// returns how many bytes went in (see [`append_to`]).
pub(crate) fn append(dir: &Dir, name: &str, bytes: &[u8]) -> Result<u64> {
    let (file, len) = dir.open_append(name, PRIVATE_FILE)?;
    append_to(file, len, dir, name, bytes)
}

/// Appends the line `bytes` with one write to `file`, the file `name` in `dir` opened for
/// appending and `len` bytes long, after ending a torn last line
/// ([`crate::io::lines::append_line`]). Returns how many bytes went in.
pub(crate) fn append_to(
    mut file: fs::File,
    len: u64,
    dir: &Dir,
    name: &str,
    bytes: &[u8],
) -> Result<u64> {
    crate::io::lines::append_line(&mut file, len, bytes)
        .map_err(|e| CoreError::io(dir.path().join(name), e))
}

/// `bytes` read from `path` as UTF-8 text.
pub(crate) fn text_of(path: &Path, bytes: Vec<u8>) -> Result<String> {
    String::from_utf8(bytes).map_err(|e| CoreError::InvalidUtf8 {
        path: path.to_path_buf(),
        offset: e.utf8_error().valid_up_to(),
    })
}

/// The first 16 hex digits of the SHA-256 of `bytes`: a stable name on disk.
pub(crate) fn short_hash(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The full SHA-256 of `bytes` in hex: a version's identity by content.
pub(crate) fn content_hash(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

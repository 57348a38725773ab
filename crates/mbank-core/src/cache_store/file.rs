//! Where a cache file meets the disk: it is read only when it is a regular file under
//! `limits::CACHE_MAX_BYTES` (anything else is an empty cache), and saved to a
//! temporary file in the same folder renamed over the old one, so a crash or a concurrent
//! reader never sees half a file.
use std::fs;
use std::io::Write;
use std::path::Path;

use crate::error::{CoreError, Result};
use crate::io::dir_handle::Dir;
use crate::limits;

/// The folder of `file`, opened without following a link in its place, and the file's
/// name in it.
fn folder_of(file: &Path) -> Option<(Dir, &str)> {
    let dir = file.parent().filter(|d| !d.as_os_str().is_empty())?;
    let name = file.file_name()?.to_str()?;
    Some((Dir::open_unlinked(dir).ok()?, name))
}

/// The bytes of a cache file, when it is a regular file within the size cap (a symlink
/// in place of the file or its folder is not followed).
pub fn read(file: &Path) -> Option<Vec<u8>> {
    let (dir, name) = folder_of(file)?;
    let read = dir.read(Path::new(name), limits::CACHE_MAX_BYTES).ok()??;
    Some(read.bytes)
}

/// Writes `bytes` atomically over `file`, creating its folder. Contents over the size
/// cap are not written (they would be refused when read back); failures only cost a
/// recount or a re-read next time. The temp file and the rename stay inside the folder's
/// handle: a symlink planted in place of the folder is refused, one in place of the file
/// is replaced, never written through.
pub fn save(file: &Path, bytes: &[u8]) -> Result<()> {
    if bytes.len() as u64 > limits::CACHE_MAX_BYTES {
        return Ok(());
    }
    save_with(file, |mut out| {
        out.write_all(bytes)?;
        Ok(true)
    })
}

/// [`save`] of what `write` writes to the temporary file, for contents written as they
/// are made rather than held whole; `write` answers false to leave the file as it was
/// (contents over the size cap).
pub fn save_with(
    file: &Path,
    write: impl FnOnce(&fs::File) -> std::io::Result<bool>,
) -> Result<()> {
    let dir = file.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|e| CoreError::io(dir, e))?;
    let (dir, name) = folder_of(file).ok_or_else(|| {
        CoreError::io(
            file,
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a cache file path"),
        )
    })?;
    let temp = dir.create_temp(&format!(".{name}."), ".tmp", 0o600)?;
    let mut out = temp.file();
    let whole = write(out)
        .and_then(|whole| out.flush().map(|()| whole))
        .map_err(|e| CoreError::io(temp.path(), e))?;
    if whole {
        temp.commit(name, true)?;
    }
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_cache_folder_or_file_replaced_by_a_link_is_never_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        fs::create_dir_all(&outside).unwrap();
        fs::write(outside.join("tokens.bin"), "theirs").unwrap();
        let cache = dir.path().join("cache");
        std::os::unix::fs::symlink(&outside, &cache).unwrap();
        assert!(save(&cache.join("tokens.bin"), b"mine").is_err());
        assert!(read(&cache.join("tokens.bin")).is_none());
        assert_eq!(fs::read(outside.join("tokens.bin")).unwrap(), b"theirs");
        assert_eq!(fs::read_dir(&outside).unwrap().count(), 1);
        // A link in place of the file is replaced, not followed.
        fs::remove_file(&cache).unwrap();
        fs::create_dir_all(&cache).unwrap();
        std::os::unix::fs::symlink(outside.join("tokens.bin"), cache.join("tokens.bin")).unwrap();
        assert!(read(&cache.join("tokens.bin")).is_none());
        save(&cache.join("tokens.bin"), b"mine").unwrap();
        assert_eq!(read(&cache.join("tokens.bin")).unwrap(), b"mine");
        assert_eq!(fs::read(outside.join("tokens.bin")).unwrap(), b"theirs");
        assert_eq!(fs::read_dir(&cache).unwrap().count(), 1);
    }
}

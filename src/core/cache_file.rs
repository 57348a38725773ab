//! What both disk caches (token counts, folder listings) share: a cache file is read
//! only when it is a regular file under [`limits::CACHE_MAX_BYTES`] (anything else, or a
//! file that does not check out, is an empty cache), and saved to a temporary file in the
//! same folder renamed over the old one, so a crash or a concurrent reader never sees
//! half a file. Each cache frames its contents with a magic, a version and a
//! [`checksum`](crate::core::hash_index::checksum).
use std::fs;
use std::io::Write;
use std::path::Path;

use crate::core::error::{CoreError, Result};
use crate::core::{limits, text};

/// The bytes of a cache file, when it is a regular file within the size cap.
pub fn read(file: &Path) -> Option<Vec<u8>> {
    text::read_bytes_limited(file, limits::CACHE_MAX_BYTES).ok()
}

/// Writes `bytes` atomically over `file`, creating its folder. Contents over the size
/// cap are not written (they would be refused when read back); failures only cost a
/// recount or a re-read next time.
pub fn save(file: &Path, bytes: &[u8]) -> Result<()> {
    if bytes.len() as u64 > limits::CACHE_MAX_BYTES {
        return Ok(());
    }
    let dir = file.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|e| CoreError::io(dir, e))?;
    let mut temp = tempfile::NamedTempFile::new_in(dir).map_err(|e| CoreError::io(dir, e))?;
    temp.write_all(bytes)
        .and_then(|()| temp.flush())
        .map_err(|e| CoreError::io(temp.path(), e))?;
    temp.persist(file)
        .map_err(|e| CoreError::io(file, e.error))?;
    Ok(())
}

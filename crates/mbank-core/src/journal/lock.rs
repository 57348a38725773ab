//! One recorder at a time: the recorder lock is a file lock in the data folder's
//! `journal/`, held for as long as a recorder lives (`mbank watch` holds it; the TUI
//! records only when it can take it). The kernel drops it when its holder dies, so a
//! recorder killed with SIGKILL never leaves it stuck.
use std::path::Path;

use crate::error::{CoreError, Result};
use crate::history::files;

/// The journal's folder in the data folder.
pub(crate) const FOLDER: &str = "journal";
const LOCK: &str = "recorder.lock";

/// The recorder lock, held until dropped.
#[derive(Debug)]
pub struct RecorderLock {
    _file: std::fs::File,
}

/// Takes the recorder lock in `data_dir` when no other recorder holds it (`None`: one
/// does).
pub fn try_take(data_dir: &Path) -> Result<Option<RecorderLock>> {
    let Some(dir) = files::folder(data_dir, &[FOLDER], true)? else {
        return Ok(None);
    };
    let file = dir.open_lock_file(LOCK, files::PRIVATE_FILE)?;
    match file.try_lock() {
        Ok(()) => Ok(Some(RecorderLock { _file: file })),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => Err(CoreError::io(dir.path().join(LOCK), e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_one_recorder_holds_the_lock_and_dropping_it_frees_it() {
        let dir = tempfile::tempdir().unwrap();
        let first = try_take(dir.path()).unwrap();
        assert!(first.is_some());
        assert!(try_take(dir.path()).unwrap().is_none());
        drop(first);
        assert!(try_take(dir.path()).unwrap().is_some());
    }
}

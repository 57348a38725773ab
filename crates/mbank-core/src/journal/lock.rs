//! One recorder at a time: the recorder lock is a file lock in the data folder's
//! `journal/`, held for as long as a recorder lives (`mbank watch` holds it; the TUI
//! records only when it can take it). The kernel drops it when its holder dies, so a
//! recorder killed with SIGKILL never leaves it stuck. The holder writes who it is beside
//! the lock, so the others can say who records.
use std::path::Path;

use crate::error::{CoreError, Result};
use crate::history::files;

/// The journal's folder in the data folder.
pub(crate) const FOLDER: &str = "journal";
const LOCK: &str = "recorder.lock";
const HOLDER: &str = "recorder.holder";

/// Who holds the recorder lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holder {
    /// `mbank watch`.
    Watch,
    /// The terminal app.
    App,
    /// A command catching up before it answers (`mbank changes`).
    Command,
}

impl Holder {
    fn id(self) -> &'static str {
        match self {
            Holder::Watch => "watch",
            Holder::App => "app",
            Holder::Command => "command",
        }
    }

    fn of_id(id: &str) -> Option<Holder> {
        [Holder::Watch, Holder::App, Holder::Command]
            .into_iter()
            .find(|holder| holder.id() == id)
    }

    /// As a person reads it: "mbank watch", "another mbank window".
    pub fn described(self) -> &'static str {
        match self {
            Holder::Watch => "mbank watch",
            Holder::App => "another mbank window",
            Holder::Command => "an mbank command",
        }
    }
}

/// The recorder lock, held until dropped.
#[derive(Debug)]
pub struct RecorderLock {
    _file: std::fs::File,
}

/// Takes the recorder lock in `data_dir` as `holder` when no other recorder holds it
/// (`None`: one does).
pub fn try_take(data_dir: &Path, holder: Holder) -> Result<Option<RecorderLock>> {
    let Some(dir) = files::folder(data_dir, &[FOLDER], true)? else {
        return Ok(None);
    };
    let file = dir.open_lock_file(LOCK, files::PRIVATE_FILE)?;
    match file.try_lock() {
        Ok(()) => {
            let note = format!("{} {}\n", holder.id(), std::process::id());
            files::write_atomic(&dir, HOLDER, note.as_bytes(), false)?;
            Ok(Some(RecorderLock { _file: file }))
        }
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => Err(CoreError::io(dir.path().join(LOCK), e)),
    }
}

/// Who took the recorder lock last, as it wrote (`None`: nobody said, or unreadable).
/// Read while another holds the lock, it names the recorder at work.
pub fn holder(data_dir: &Path) -> Option<Holder> {
    let dir = files::folder(data_dir, &[FOLDER], false).ok()??;
    let bytes = files::read(&dir, HOLDER, 256).ok()??;
    let text = String::from_utf8(bytes).ok()?;
    Holder::of_id(text.split_whitespace().next()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_one_recorder_holds_the_lock_and_dropping_it_frees_it() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(holder(dir.path()), None);
        let first = try_take(dir.path(), Holder::Watch).unwrap();
        assert!(first.is_some());
        assert!(try_take(dir.path(), Holder::App).unwrap().is_none());
        assert_eq!(holder(dir.path()), Some(Holder::Watch));
        drop(first);
        // A child another test forks at that moment shares the lock's open file until it
        // runs its program, which closes it: the lock is free once that child has.
        let again = (0..10_000).find_map(|_| {
            let taken = try_take(dir.path(), Holder::App).unwrap();
            if taken.is_none() {
                std::thread::yield_now();
            }
            taken
        });
        assert!(again.is_some());
        assert_eq!(holder(dir.path()), Some(Holder::App));
    }
}

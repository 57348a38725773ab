//! One writer at a time per memory folder, across threads and processes.
//!
//! Every mbank writer (the servers, the TUI save, `mbank review`) takes an exclusive
//! advisory lock on the folder that holds the file before it reads what it will replace
//! and until its rename is done. On Unix the lock is a `flock` on the folder itself, so
//! there is no lock file to leave behind or to agree on a place for, and the kernel drops
//! the lock when a holder dies (kill -9 included). Elsewhere it is a lock file in the
//! system temp folder named after the folder's path.
//!
//! The lock is per folder, not per file: a bank's files are few and small, and a
//! folder lock also covers the temp files `write_guarded` creates beside its target.
//! Agents writing files directly take no lock; `write_guarded`'s content check still
//! catches them.
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::error::{CoreError, Result};

/// How long a writer waits for another before giving up with an error (a holder only
/// keeps the lock for one read-check-rename, a few milliseconds).
pub(crate) const WAIT_LIMIT: Duration = Duration::from_secs(30);

/// An exclusive lock on one folder; released on drop.
#[derive(Debug)]
pub struct FolderLock {
    file: File,
    folder: PathBuf,
}

impl FolderLock {
    /// The folder this lock holds.
    pub fn folder(&self) -> &Path {
        &self.folder
    }
}

impl Drop for FolderLock {
    fn drop(&mut self) {
        // Closing the descriptor would release it too; unlocking first says so.
        let _ = self.file.unlock();
    }
}

/// Takes the lock of the folder holding `file` (the file need not exist).
pub fn for_file(file: &Path) -> Result<FolderLock> {
    let folder = match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    for_folder(folder)
}

/// Takes the lock of `folder`, waiting up to [`WAIT_LIMIT`] for another writer.
pub(crate) fn for_folder(folder: &Path) -> Result<FolderLock> {
    for_folder_within(folder, WAIT_LIMIT)
}

/// [`for_folder`] with the wait given.
pub(crate) fn for_folder_within(folder: &Path, limit: Duration) -> Result<FolderLock> {
    let file = open_lock_target(folder)?;
    let started = Instant::now();
    let mut pause = Duration::from_micros(20);
    loop {
        match file.try_lock() {
            Ok(()) => {
                return Ok(FolderLock {
                    file,
                    folder: folder.to_path_buf(),
                });
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                if started.elapsed() >= limit {
                    return Err(CoreError::io(
                        folder,
                        io::Error::new(
                            io::ErrorKind::TimedOut,
                            format!(
                                "another mbank writer has held this folder's lock for over {} s",
                                limit.as_secs()
                            ),
                        ),
                    ));
                }
                std::thread::sleep(pause);
                // Short waits first: a holder is usually done within a millisecond.
                pause = (pause * 2).min(Duration::from_millis(2));
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(CoreError::io(folder, e)),
        }
    }
}

#[cfg(unix)]
fn open_lock_target(folder: &Path) -> Result<File> {
    let file = File::open(folder).map_err(|e| CoreError::io(folder, e))?;
    let is_dir = file
        .metadata()
        .map_err(|e| CoreError::io(folder, e))?
        .is_dir();
    if !is_dir {
        return Err(CoreError::io(
            folder,
            io::Error::new(io::ErrorKind::NotADirectory, "is not a folder"),
        ));
    }
    Ok(file)
}

#[cfg(not(unix))]
fn open_lock_target(folder: &Path) -> Result<File> {
    use sha2::Digest;
    let real = std::fs::canonicalize(folder).map_err(|e| CoreError::io(folder, e))?;
    let digest = sha2::Sha256::digest(real.to_string_lossy().as_bytes());
    let name: String = digest[..12].iter().map(|b| format!("{b:02x}")).collect();
    let path = std::env::temp_dir().join(format!("mbank-{name}.lock"));
    std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| CoreError::io(&path, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn one_holder_at_a_time_across_threads() {
        let dir = tempfile::tempdir().unwrap();
        let inside = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..6)
            .map(|_| {
                let (dir, inside, most) = (dir.path().to_path_buf(), inside.clone(), most.clone());
                std::thread::spawn(move || {
                    for _ in 0..50 {
                        let _lock = for_file(&dir.join("x.md")).unwrap();
                        let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(now, Ordering::SeqCst);
                        std::thread::yield_now();
                        inside.fetch_sub(1, Ordering::SeqCst);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(most.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_held_lock_times_out_with_a_clear_error_and_frees_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let held = for_folder(dir.path()).unwrap();
        assert_eq!(held.folder(), dir.path());
        let err = for_folder_within(dir.path(), Duration::from_millis(30)).unwrap_err();
        assert!(err.to_string().contains("held this folder's lock"), "{err}");
        drop(held);
        for_folder_within(dir.path(), Duration::from_millis(30)).unwrap();
    }

    #[test]
    fn a_missing_folder_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let err = for_file(&dir.path().join("gone/x.md")).unwrap_err();
        assert!(matches!(err, CoreError::Io { .. }), "{err}");
    }
}

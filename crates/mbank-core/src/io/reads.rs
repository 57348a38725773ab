//! What a piece of work read from disk beyond the banks it was given, noted while it runs
//! on this thread, so a result derived from it can be remembered with every input that
//! could change it (`mbank check`'s remembered findings): files read, folders whose
//! contents were probed, and whether it depended on something no stamp can vouch for (a
//! file that was missing, a link followed, git failing). Noting costs one
//! thread-local lookup when nothing is being recorded.
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// What was read while recording.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Reads {
    /// Files read, each as it was when read.
    pub files: Vec<FileRead>,
    /// Folders whose entries were probed (a file there may appear or vanish).
    pub folders: Vec<PathBuf>,
    /// Something was read that no stamp of a file or folder can vouch for.
    pub unstampable: bool,
}

/// A file read, with its size, modification time and (where the system keeps them) its
/// inode and change time when it was read: all a stamp of that version needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRead {
    pub path: PathBuf,
    pub len: u64,
    pub modified: Option<SystemTime>,
    pub inode_and_change: Option<(u64, i128)>,
}

impl FileRead {
    fn of(path: &Path, meta: &std::fs::Metadata) -> FileRead {
        FileRead::owning(path.to_path_buf(), meta)
    }

    fn owning(path: PathBuf, meta: &std::fs::Metadata) -> FileRead {
        FileRead {
            path,
            len: meta.len(),
            modified: meta.modified().ok(),
            inode_and_change: super::paths::inode_and_change(meta),
        }
    }
}

impl Reads {
    /// Adds what `other` read.
    pub fn absorb(&mut self, other: Reads) {
        self.files.extend(other.files);
        self.folders.extend(other.folders);
        self.unstampable |= other.unstampable;
    }
}

thread_local! {
    static RECORDING: RefCell<Option<Reads>> = const { RefCell::new(None) };
}

/// Runs `work`, returning what it read on this thread (nested recordings each see their
/// own reads, and the outer one sees them too).
pub fn recording<T>(work: impl FnOnce() -> T) -> (T, Reads) {
    let outer = RECORDING.with(|r| r.borrow_mut().replace(Reads::default()));
    let result = work();
    let reads = RECORDING.with(|r| {
        let mut slot = r.borrow_mut();
        let reads = slot.take().unwrap_or_default();
        if let Some(mut outer) = outer {
            outer.absorb(reads.clone());
            *slot = Some(outer);
        }
        reads
    });
    (result, reads)
}

/// Runs `work` with nothing it reads noted: for reads whose answer a result's other
/// inputs already vouch for.
pub(crate) fn unrecorded<T>(work: impl FnOnce() -> T) -> T {
    let outer = RECORDING.with(|r| r.borrow_mut().take());
    let result = work();
    RECORDING.with(|r| *r.borrow_mut() = outer);
    result
}

fn note(add: impl FnOnce(&mut Reads)) {
    RECORDING.with(|r| {
        if let Some(reads) = r.borrow_mut().as_mut() {
            add(reads);
        }
    });
}

/// A file was read whole, at this size and modification time.
pub(crate) fn file(path: &Path, meta: &std::fs::Metadata) {
    note(|reads| reads.files.push(FileRead::of(path, meta)));
}

/// [`file`], for a caller done with the path: a search over every file of a repository
/// notes ten thousand.
pub(crate) fn file_owned(path: PathBuf, meta: &std::fs::Metadata) {
    note(|reads| reads.files.push(FileRead::owning(path, meta)));
}

/// A file was read; its stamp is taken now (a change since shows in its times).
pub(crate) fn file_at(path: &Path) {
    note(|reads| match std::fs::metadata(path) {
        Ok(meta) => reads.files.push(FileRead::of(path, &meta)),
        Err(_) => reads.unstampable = true,
    });
}

/// The entries of a folder were probed.
pub(crate) fn folder(path: &Path) {
    note(|reads| reads.folders.push(path.to_path_buf()));
}

/// A path was looked for and is not there: it can only appear by a change to the nearest
/// folder above it that exists, whose stamp is noted.
pub(crate) fn absent(path: &Path) {
    note(
        |reads| match path.ancestors().skip(1).find(|folder| folder.is_dir()) {
            Some(folder) => reads.folders.push(folder.to_path_buf()),
            None => reads.unstampable = true,
        },
    );
}

/// A path was looked at, whether it is there or not: its own stamp when it is (links
/// followed), else the folder it would appear in ([`absent`]).
pub(crate) fn looked_at(path: &Path) {
    note(|reads| match std::fs::metadata(path) {
        Ok(meta) => reads.files.push(FileRead::of(path, &meta)),
        Err(_) => match path.ancestors().skip(1).find(|folder| folder.is_dir()) {
            Some(folder) => reads.folders.push(folder.to_path_buf()),
            None => reads.unstampable = true,
        },
    });
}

/// Notes again what an earlier piece of work read, for a result that reuses its answer.
pub(crate) fn replay(earlier: &Reads) {
    note(|reads| reads.absorb(earlier.clone()));
}

/// [`replay`] of reads the caller is done with (another thread's, noted here).
pub(crate) fn replay_owned(earlier: Reads) {
    note(|reads| reads.absorb(earlier));
}

/// Whether reads are being noted on this thread: work that only notes may be skipped.
pub(crate) fn is_recording() -> bool {
    RECORDING.with(|r| r.borrow().is_some())
}

/// The work depended on something no stamp vouches for.
pub(crate) fn unstampable() {
    note(|reads| reads.unstampable = true);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_noted_only_while_recording_and_nested_ones_reach_the_outer() {
        unstampable();
        let ((), outer) = recording(|| {
            folder(Path::new("/a"));
            let ((), inner) = recording(|| {
                folder(Path::new("/b"));
                unstampable();
            });
            assert_eq!(inner.folders, [PathBuf::from("/b")]);
            assert!(inner.unstampable);
        });
        assert_eq!(outer.folders, [PathBuf::from("/a"), PathBuf::from("/b")]);
        assert!(outer.unstampable);
        let ((), none) = recording(|| unrecorded(|| folder(Path::new("/c"))));
        assert_eq!(none, Reads::default());
    }
}

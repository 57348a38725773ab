//! Handles, not names: files of a memory folder (and of mbank's own data folder) are
//! opened relative to a folder opened once, never by a path looked up again.
//!
//! A path checked and then opened by name can be swapped for a symlink in between (a
//! process writing in a bank flips `memory-bank/x.md`, or `memory-bank/` itself, to a link
//! out of the project). Here the folder is opened once ([`Dir`]) and every later step
//! is relative to that descriptor, with no symlink followed anywhere below it: Linux's
//! `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`, else one `openat(O_NOFOLLOW)` per
//! component. A link met on the way is [`HandleError::Symlink`]. Temp files are created
//! with `O_EXCL | O_NOFOLLOW` and renamed within the same folder handle (`TempFile`),
//! and removed on every path that does not commit them.
//!
//! Only the anchor (the project folder, mbank's data folder: places the caller names
//! itself) is opened by path, following links.
//!
//! [`Dir`] is `descriptors` on Unix; without descriptor-relative calls (Windows) it is
//! `by_path`, which checks each step for links by name: that narrows the race but cannot
//! close it.
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};

use crate::error::CoreError;

/// Why a handle-relative operation did not happen.
#[derive(Debug, thiserror::Error)]
pub enum HandleError {
    /// A symbolic link is at the path or on the way to it: never followed.
    #[error("{} is, or passes through, a symbolic link; mbank refuses it", rel.display())]
    Symlink { rel: PathBuf },
    /// The path is empty, absolute or holds `..`.
    #[error("{} does not name a place inside its folder", rel.display())]
    Escape { rel: PathBuf },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

impl HandleError {
    /// True when nothing is at the path.
    pub fn is_not_found(&self) -> bool {
        matches!(self, HandleError::Io { source, .. } if source.kind() == io::ErrorKind::NotFound)
    }

    /// The I/O error kind, `None` for a refusal.
    pub fn kind(&self) -> Option<io::ErrorKind> {
        match self {
            HandleError::Io { source, .. } => Some(source.kind()),
            _ => None,
        }
    }
}

impl From<HandleError> for CoreError {
    fn from(error: HandleError) -> CoreError {
        let reason = error.to_string();
        match error {
            HandleError::Io { path, source } => CoreError::io(path, source),
            HandleError::Symlink { rel } | HandleError::Escape { rel } => CoreError::Confined {
                name: rel.display().to_string(),
                reason,
            },
        }
    }
}

pub(crate) type HandleResult<T> = std::result::Result<T, HandleError>;

/// A file's identity (device and inode): a write compares it with the file it read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileId {
    pub dev: u64,
    pub ino: u64,
}

impl FileId {
    #[cfg(unix)]
    pub fn of(meta: &std::fs::Metadata) -> FileId {
        use std::os::unix::fs::MetadataExt;
        FileId {
            dev: meta.dev(),
            ino: meta.ino(),
        }
    }

    /// Stable std has no file identity here: every file looks the same, and writes rely
    /// on their content checks alone.
    #[cfg(not(unix))]
    pub fn of(_meta: &std::fs::Metadata) -> FileId {
        FileId { dev: 0, ino: 0 }
    }
}

/// What is at a name in a folder, links not followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EntryMeta {
    pub is_symlink: bool,
    pub is_file: bool,
    pub modified: Option<std::time::SystemTime>,
    /// Size in bytes.
    pub len: u64,
    /// The file's identity on its filesystem (inode; 0 where there is none), to tell a
    /// file replaced by a rename from the same file grown.
    pub inode: u64,
}

/// A regular file's bytes and metadata, read through a handle.
#[derive(Debug)]
pub struct FileBytes {
    pub bytes: Vec<u8>,
    pub meta: std::fs::Metadata,
}

impl FileBytes {
    pub fn id(&self) -> FileId {
        FileId::of(&self.meta)
    }
}

/// The names of `rel`, each a plain component; an error for `..`, roots and emptiness.
fn plain_components(rel: &Path) -> HandleResult<Vec<&OsStr>> {
    let mut parts = Vec::new();
    for component in rel.components() {
        match component {
            Component::Normal(part) => parts.push(part),
            Component::CurDir => {}
            _ => {
                return Err(HandleError::Escape {
                    rel: rel.to_path_buf(),
                });
            }
        }
    }
    if parts.is_empty() {
        return Err(HandleError::Escape {
            rel: rel.to_path_buf(),
        });
    }
    Ok(parts)
}

#[cfg(unix)]
mod descriptors;
#[cfg(unix)]
pub use descriptors::Dir;

#[cfg(not(unix))]
mod by_path;
#[cfg(not(unix))]
pub use by_path::Dir;

/// Eight random letters and digits for a temp file's name.
fn random_name() -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    uuid::Uuid::new_v4().as_bytes()[..8]
        .iter()
        .map(|b| ALPHABET[*b as usize % ALPHABET.len()] as char)
        .collect()
}

impl Dir {
    /// Reads the regular file `rel` below this folder whole, refusing files over `limit`
    /// (the read stops at `limit + 1` bytes). `None` when nothing is there.
    pub fn read(&self, rel: &Path, limit: u64) -> HandleResult<Option<FileBytes>> {
        let (file, meta) = match self.open_file(rel) {
            Ok(opened) => opened,
            Err(e) if e.is_not_found() => return Ok(None),
            Err(e) => return Err(e),
        };
        let too_large = |size: u64| HandleError::Io {
            path: self.path().join(rel),
            source: io::Error::new(
                io::ErrorKind::FileTooLarge,
                format!("{size} bytes, over the limit of {limit}"),
            ),
        };
        if meta.len() > limit {
            return Err(too_large(meta.len()));
        }
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        file.take(limit + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| HandleError::Io {
                path: self.path().join(rel),
                source: e,
            })?;
        if bytes.len() as u64 > limit {
            return Err(too_large(bytes.len() as u64));
        }
        Ok(Some(FileBytes { bytes, meta }))
    }

    /// The metadata of the regular file `rel` (`None`: nothing there).
    pub(crate) fn file_meta(&self, rel: &Path) -> HandleResult<Option<std::fs::Metadata>> {
        match self.open_file(rel) {
            Ok((_, meta)) => Ok(Some(meta)),
            Err(e) if e.is_not_found() => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// A temp file in a [`Dir`], removed when dropped unless committed by a rename.
#[derive(Debug)]
pub(crate) struct TempFile<'d> {
    dir: &'d Dir,
    name: String,
    file: File,
    committed: bool,
}

impl TempFile<'_> {
    pub fn file(&self) -> &File {
        &self.file
    }

    /// Where it is (for messages).
    pub fn path(&self) -> PathBuf {
        self.dir.path().join(&self.name)
    }

    /// Renames it over `target` (directly in the same folder). With `replace` false,
    /// fails with `AlreadyExists` when something is at `target`. On failure the temp
    /// file is removed.
    pub fn commit(mut self, target: &str, replace: bool) -> HandleResult<()> {
        if replace {
            self.dir.rename(&self.name, target)?;
        } else {
            self.dir.rename_noreplace(&self.name, target)?;
        }
        self.committed = true;
        Ok(())
    }
}

impl Drop for TempFile<'_> {
    fn drop(&mut self) {
        if !self.committed {
            let _ = self.dir.remove_file(OsStr::new(&self.name));
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::fs;
    use std::io::Write;
    use std::os::unix::fs::symlink;

    fn setup() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let bank = dir.path().join("bank");
        let outside = dir.path().join("outside");
        fs::create_dir_all(bank.join("sub")).unwrap();
        fs::create_dir_all(&outside).unwrap();
        fs::write(outside.join("secret.md"), "secret").unwrap();
        fs::write(bank.join("sub/a.md"), "inside").unwrap();
        (dir, bank, outside)
    }

    fn temp_names(dir: &Path) -> Vec<String> {
        fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect()
    }

    #[test]
    fn a_symlink_in_the_last_component_is_refused() {
        let (_dir, bank, outside) = setup();
        symlink(outside.join("secret.md"), bank.join("link.md")).unwrap();
        // Even a link that stays inside is refused: links are never followed here.
        symlink("sub/a.md", bank.join("inner.md")).unwrap();
        let dir = Dir::open_anchor(&bank).unwrap();
        for name in ["link.md", "inner.md"] {
            let err = dir.read(Path::new(name), 1024).unwrap_err();
            assert!(matches!(err, HandleError::Symlink { .. }), "{name}: {err}");
        }
        assert_eq!(
            dir.read(Path::new("sub/a.md"), 1024)
                .unwrap()
                .unwrap()
                .bytes,
            b"inside"
        );
        assert!(dir.read(Path::new("missing.md"), 1024).unwrap().is_none());
    }

    #[test]
    fn a_symlink_in_an_intermediate_component_is_refused() {
        let (_dir, bank, outside) = setup();
        symlink(&outside, bank.join("out")).unwrap();
        let dir = Dir::open_anchor(&bank).unwrap();
        let err = dir.read(Path::new("out/secret.md"), 1024).unwrap_err();
        assert!(matches!(err, HandleError::Symlink { .. }), "{err}");
        let err = dir.open_dir(Path::new("out")).unwrap_err();
        assert!(matches!(err, HandleError::Symlink { .. }), "{err}");
        // A folder whose own last component is a link is refused too.
        let err = Dir::open_unlinked(&bank.join("out")).unwrap_err();
        assert!(matches!(err, HandleError::Symlink { .. }), "{err}");
        // The message names the relative path only, never where the link leads.
        assert!(
            !err.to_string().contains(outside.to_str().unwrap()),
            "{err}"
        );
    }

    #[test]
    fn the_component_walk_refuses_links_like_openat2() {
        descriptors::FORCE_WALK.with(|force| force.set(true));
        a_symlink_in_the_last_component_is_refused();
        a_symlink_in_an_intermediate_component_is_refused();
        dot_dot_and_absolute_paths_are_refused();
        let (_dir, bank, _outside) = setup();
        fs::create_dir_all(bank.join("x/y")).unwrap();
        fs::write(bank.join("x/y/z.md"), "deep").unwrap();
        let dir = Dir::open_anchor(&bank).unwrap();
        assert_eq!(
            dir.read(Path::new("x/y/z.md"), 1024)
                .unwrap()
                .unwrap()
                .bytes,
            b"deep"
        );
        symlink(bank.join("x/y"), bank.join("x/link")).unwrap();
        let err = dir.read(Path::new("x/link/z.md"), 1024).unwrap_err();
        assert!(matches!(err, HandleError::Symlink { .. }), "{err}");
        descriptors::FORCE_WALK.with(|force| force.set(false));
    }

    #[test]
    fn dot_dot_and_absolute_paths_are_refused() {
        let (_dir, bank, _outside) = setup();
        let dir = Dir::open_anchor(&bank).unwrap();
        for rel in [
            "../outside/secret.md",
            "sub/../../outside/secret.md",
            "/etc/passwd",
            "",
        ] {
            let err = dir.read(Path::new(rel), 1024).unwrap_err();
            assert!(matches!(err, HandleError::Escape { .. }), "{rel}: {err}");
        }
    }

    #[test]
    fn the_handle_keeps_its_folder_when_the_name_is_swapped_for_a_link() {
        let (_dir, bank, outside) = setup();
        let dir = Dir::open_anchor(&bank).unwrap();
        let moved = bank.with_file_name("moved");
        fs::rename(&bank, &moved).unwrap();
        symlink(&outside, &bank).unwrap();
        let temp = dir.create_temp(".x.", ".tmp", 0o600).unwrap();
        temp.commit("new.md", false).unwrap();
        assert!(moved.join("new.md").exists());
        assert!(!outside.join("new.md").exists());
    }

    #[test]
    fn an_identity_change_between_read_and_write_is_seen() {
        let (_dir, bank, _outside) = setup();
        let dir = Dir::open_anchor(&bank).unwrap();
        let first = dir.read(Path::new("sub/a.md"), 1024).unwrap().unwrap();
        // Same content, another file: a replacement by rename.
        fs::write(bank.join("sub/b.md"), "inside").unwrap();
        fs::rename(bank.join("sub/b.md"), bank.join("sub/a.md")).unwrap();
        let second = dir.read(Path::new("sub/a.md"), 1024).unwrap().unwrap();
        assert_eq!(first.bytes, second.bytes);
        assert_ne!(first.id(), second.id());
    }

    #[test]
    fn a_temp_file_is_removed_when_not_committed_or_when_its_commit_fails() {
        let (_dir, bank, _outside) = setup();
        let dir = Dir::open_anchor(&bank).unwrap();
        {
            let mut temp = dir.create_temp(".x.", ".tmp", 0o600).unwrap();
            temp.file.write_all(b"half").unwrap();
            assert_eq!(temp_names(&bank).len(), 1);
        }
        assert!(temp_names(&bank).is_empty());
        // Commit without replacing over an existing file fails, and cleans up.
        fs::write(bank.join("taken.md"), "keep").unwrap();
        let temp = dir.create_temp(".x.", ".tmp", 0o600).unwrap();
        let err = temp.commit("taken.md", false).unwrap_err();
        assert_eq!(err.kind(), Some(io::ErrorKind::AlreadyExists), "{err}");
        assert_eq!(fs::read(bank.join("taken.md")).unwrap(), b"keep");
        assert!(temp_names(&bank).is_empty());
        // A commit into a folder entry fails too, and cleans up.
        let temp = dir.create_temp(".x.", ".tmp", 0o600).unwrap();
        assert!(temp.commit("sub", true).is_err());
        assert!(temp_names(&bank).is_empty());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn fifos_are_refused_without_waiting() {
        let (_dir, bank, _outside) = setup();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            bank.join("pipe.md"),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        let dir = Dir::open_anchor(&bank).unwrap();
        let err = dir.read(Path::new("pipe.md"), 1024).unwrap_err();
        assert_eq!(err.kind(), Some(io::ErrorKind::InvalidInput), "{err}");
        // Appending (a log, a history pack): refused at once, never waited on.
        assert!(dir.open_append("pipe.md", 0o600).is_err());
        // With a reader holding it open the open succeeds, and is then refused.
        use std::os::unix::fs::OpenOptionsExt;
        let reader = fs::OpenOptions::new()
            .read(true)
            .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
            .open(bank.join("pipe.md"))
            .unwrap();
        let err = dir.open_append("pipe.md", 0o600).unwrap_err();
        assert_eq!(err.kind(), Some(io::ErrorKind::InvalidInput), "{err}");
        drop(reader);
        // A folder is no file to append to either.
        fs::create_dir(bank.join("folder.md")).unwrap();
        assert!(dir.open_append("folder.md", 0o600).is_err());
    }
}

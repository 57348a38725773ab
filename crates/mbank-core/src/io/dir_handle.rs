//! Handles, not names: files of a memory folder (and of mbank's own data folder) are
//! opened relative to a folder opened once, never by a path looked up again.
//!
//! A path checked and then opened by name can be swapped for a symlink in between (a
//! process writing in a bank flips `memory-bank/x.md`, or `memory-bank/` itself, to a link
//! out of the project). Here the folder is opened once ([`Dir`]) and every later step
//! is relative to that descriptor, with no symlink followed anywhere below it: Linux's
//! `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`, else one `openat(O_NOFOLLOW)` per
//! component. A link met on the way is [`HandleError::Symlink`]. Temp files are created
//! with `O_EXCL | O_NOFOLLOW` and renamed within the same folder handle ([`TempFile`]),
//! and removed on every path that does not commit them.
//!
//! Only the anchor (the project folder, mbank's data folder: places the caller names
//! itself) is opened by path, following links.
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

/// A regular file read through a handle.
#[derive(Debug)]
pub struct FileRead {
    pub bytes: Vec<u8>,
    pub meta: std::fs::Metadata,
}

impl FileRead {
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
mod imp {
    use super::*;
    use rustix::fs::{AtFlags, Mode, OFlags};
    use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

    /// An open folder: every path given to its methods is relative to it.
    #[derive(Debug)]
    pub struct Dir {
        fd: OwnedFd,
        /// Where it was opened, for messages only (never opened again).
        path: PathBuf,
    }

    /// Whether `errno` says a symlink stopped the lookup (`O_NOFOLLOW` answers ELOOP on
    /// Linux and macOS, EMLINK on FreeBSD, EFTYPE on NetBSD).
    fn is_link_refusal(errno: rustix::io::Errno) -> bool {
        if errno == rustix::io::Errno::LOOP {
            return true;
        }
        #[cfg(any(target_os = "freebsd", target_os = "dragonfly"))]
        if errno == rustix::io::Errno::MLINK {
            return true;
        }
        #[cfg(target_os = "netbsd")]
        if errno == rustix::io::Errno::FTYPE {
            return true;
        }
        false
    }

    impl Dir {
        /// Opens the anchor folder `path` (links on the way to it are followed: it is the
        /// place the caller names, e.g. the project folder).
        pub fn open_anchor(path: &Path) -> HandleResult<Dir> {
            let fd = rustix::fs::open(
                path,
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
                Mode::empty(),
            )
            .map_err(|e| HandleError::Io {
                path: path.to_path_buf(),
                source: e.into(),
            })?;
            Ok(Dir {
                fd,
                path: path.to_path_buf(),
            })
        }

        /// Opens the folder `path`, refusing a symlink in its last component (its parent
        /// is the anchor), for callers that know no project folder.
        pub(crate) fn open_unlinked(path: &Path) -> HandleResult<Dir> {
            match (path.parent(), path.file_name()) {
                (Some(parent), Some(name)) => {
                    let parent = if parent.as_os_str().is_empty() {
                        Path::new(".")
                    } else {
                        parent
                    };
                    let mut dir = Dir::open_anchor(parent)?.open_dir(Path::new(name))?;
                    dir.path = path.to_path_buf();
                    Ok(dir)
                }
                _ => Dir::open_anchor(path),
            }
        }

        /// Where this folder was opened (for messages).
        pub fn path(&self) -> &Path {
            &self.path
        }

        fn io(&self, rel: &Path, error: rustix::io::Errno) -> HandleError {
            self.io_at(self.fd.as_fd(), rel, rel, error)
        }

        /// The error of opening `at_rel` relative to `at` (`rel` from this folder).
        /// `O_DIRECTORY | O_NOFOLLOW` on a link answers ENOTDIR, so that one is looked at.
        fn io_at(
            &self,
            at: BorrowedFd<'_>,
            at_rel: &Path,
            rel: &Path,
            error: rustix::io::Errno,
        ) -> HandleError {
            let is_link = || {
                rustix::fs::statat(at, at_rel, AtFlags::SYMLINK_NOFOLLOW).is_ok_and(|stat| {
                    rustix::fs::FileType::from_raw_mode(stat.st_mode as _)
                        == rustix::fs::FileType::Symlink
                })
            };
            if is_link_refusal(error) || (error == rustix::io::Errno::NOTDIR && is_link()) {
                HandleError::Symlink {
                    rel: rel.to_path_buf(),
                }
            } else {
                HandleError::Io {
                    path: self.path.join(rel),
                    source: error.into(),
                }
            }
        }

        /// Opens `rel` below this folder with no symlink followed at any step.
        fn open_beneath(&self, rel: &Path, flags: OFlags, mode: Mode) -> HandleResult<OwnedFd> {
            let parts = plain_components(rel)?;
            let flags = flags | OFlags::NOFOLLOW | OFlags::CLOEXEC;
            if let [name] = parts.as_slice() {
                return rustix::fs::openat(&self.fd, *name, flags, mode)
                    .map_err(|e| self.io(rel, e));
            }
            #[cfg(any(target_os = "linux", target_os = "android"))]
            {
                use rustix::fs::ResolveFlags;
                use std::sync::atomic::{AtomicBool, Ordering};
                // Kernels before 5.6 (or a seccomp filter) lack openat2: walk instead.
                static NO_OPENAT2: AtomicBool = AtomicBool::new(false);
                if !NO_OPENAT2.load(Ordering::Relaxed) && !tests_walk() {
                    let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS;
                    match rustix::fs::openat2(&self.fd, rel, flags, mode, resolve) {
                        Err(e) if e == rustix::io::Errno::NOSYS || e == rustix::io::Errno::PERM => {
                            NO_OPENAT2.store(true, Ordering::Relaxed);
                        }
                        // A `..` race (none here: `..` is refused above); try the walk.
                        Err(e) if e == rustix::io::Errno::AGAIN => {}
                        other => return other.map_err(|e| self.io(rel, e)),
                    }
                }
            }
            let (last, folders) = parts.split_last().ok_or_else(|| HandleError::Escape {
                rel: rel.to_path_buf(),
            })?;
            let mut current: Option<OwnedFd> = None;
            for folder in folders {
                let at = current.as_ref().map_or(self.fd.as_fd(), |fd| fd.as_fd());
                let next = rustix::fs::openat(
                    at,
                    *folder,
                    OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                    Mode::empty(),
                )
                .map_err(|e| self.io_at(at, Path::new(folder), rel, e))?;
                current = Some(next);
            }
            let at = current.as_ref().map_or(self.fd.as_fd(), |fd| fd.as_fd());
            rustix::fs::openat(at, *last, flags, mode)
                .map_err(|e| self.io_at(at, Path::new(last), rel, e))
        }

        /// Opens the folder `rel` below this one.
        pub fn open_dir(&self, rel: &Path) -> HandleResult<Dir> {
            let fd = self.open_beneath(rel, OFlags::RDONLY | OFlags::DIRECTORY, Mode::empty())?;
            Ok(Dir {
                fd,
                path: self.path.join(rel),
            })
        }

        /// Opens the folder `name` directly below this one, creating it (with `mode`,
        /// less the umask) when missing.
        pub fn create_dir(&self, name: &str, mode: u32) -> HandleResult<Dir> {
            let rel = Path::new(name);
            plain_components(rel)?;
            match rustix::fs::mkdirat(&self.fd, name, Mode::from_raw_mode(mode as _)) {
                Ok(()) => {}
                Err(e) if e == rustix::io::Errno::EXIST => {}
                Err(e) => return Err(self.io(rel, e)),
            }
            self.open_dir(rel)
        }

        /// Opens the regular file `rel` for reading. A FIFO or device is never waited on
        /// (opened non-blocking, then refused as not a regular file).
        pub fn open_file(&self, rel: &Path) -> HandleResult<(File, std::fs::Metadata)> {
            let fd = self.open_beneath(rel, OFlags::RDONLY | OFlags::NONBLOCK, Mode::empty())?;
            let file = File::from(fd);
            let meta = file.metadata().map_err(|e| HandleError::Io {
                path: self.path.join(rel),
                source: e,
            })?;
            if !meta.is_file() {
                let what = if meta.is_dir() {
                    "is a folder, not a file"
                } else {
                    "not a regular file (a FIFO, socket or device); mbank does not read those"
                };
                return Err(HandleError::Io {
                    path: self.path.join(rel),
                    source: io::Error::new(io::ErrorKind::InvalidInput, what),
                });
            }
            Ok((file, meta))
        }

        /// Opens the regular file `name` directly below this folder for appending,
        /// creating it with `mode` when missing. A FIFO or device there is never waited
        /// on (opened non-blocking, which a regular file's writes ignore) and is refused.
        pub(crate) fn open_append(&self, name: &str, mode: u32) -> HandleResult<File> {
            let rel = Path::new(name);
            let flags = OFlags::WRONLY | OFlags::APPEND | OFlags::CREATE | OFlags::NONBLOCK;
            let file = File::from(self.open_beneath(rel, flags, Mode::from_raw_mode(mode as _))?);
            let meta = file.metadata().map_err(|e| HandleError::Io {
                path: self.path.join(rel),
                source: e,
            })?;
            if !meta.is_file() {
                return Err(HandleError::Io {
                    path: self.path.join(rel),
                    source: io::Error::new(
                        io::ErrorKind::InvalidInput,
                        "not a regular file (a FIFO, socket, device or folder); mbank does not \
                         write through those",
                    ),
                });
            }
            Ok(file)
        }

        /// Opens (creating, never truncating) `name` directly below this folder for
        /// reading and writing: a lock file.
        pub(crate) fn open_lock_file(&self, name: &str, mode: u32) -> HandleResult<File> {
            // Non-blocking: a FIFO planted there is refused below, never waited on.
            let flags = OFlags::RDWR | OFlags::CREATE | OFlags::NONBLOCK;
            let fd = self.open_beneath(Path::new(name), flags, Mode::from_raw_mode(mode as _))?;
            let file = File::from(fd);
            match file.metadata() {
                Ok(meta) if meta.is_file() => Ok(file),
                Ok(_) => Err(HandleError::Io {
                    path: self.path.join(name),
                    source: io::Error::new(io::ErrorKind::InvalidInput, "not a regular file"),
                }),
                Err(e) => Err(HandleError::Io {
                    path: self.path.join(name),
                    source: e,
                }),
            }
        }

        /// What is at `name` directly below this folder, links not followed (`None`:
        /// nothing).
        pub(crate) fn entry_meta(&self, name: &OsStr) -> HandleResult<Option<EntryMeta>> {
            match rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
                Ok(stat) => {
                    let kind = rustix::fs::FileType::from_raw_mode(stat.st_mode as _);
                    let modified = u64::try_from(stat.st_mtime)
                        .ok()
                        .map(|secs| std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs));
                    Ok(Some(EntryMeta {
                        is_symlink: kind == rustix::fs::FileType::Symlink,
                        is_file: kind == rustix::fs::FileType::RegularFile,
                        modified,
                        len: u64::try_from(stat.st_size).unwrap_or(0),
                        inode: stat.st_ino,
                    }))
                }
                Err(e) if e == rustix::io::Errno::NOENT => Ok(None),
                Err(e) => Err(self.io(Path::new(name), e)),
            }
        }

        /// The names in this folder (`.` and `..` left out).
        pub fn names(&self) -> HandleResult<Vec<OsString>> {
            let io_error = |e: rustix::io::Errno| HandleError::Io {
                path: self.path.clone(),
                source: e.into(),
            };
            let mut names = Vec::new();
            for entry in rustix::fs::Dir::read_from(&self.fd).map_err(io_error)? {
                let entry = entry.map_err(io_error)?;
                let name = entry.file_name().to_bytes();
                if name != b"." && name != b".." {
                    use std::os::unix::ffi::OsStrExt;
                    names.push(OsStr::from_bytes(name).to_os_string());
                }
            }
            Ok(names)
        }

        /// Removes the file (or symlink: never followed) `name` directly below.
        pub fn remove_file(&self, name: &OsStr) -> HandleResult<()> {
            rustix::fs::unlinkat(&self.fd, name, AtFlags::empty())
                .map_err(|e| self.io(Path::new(name), e))
        }

        /// Removes the empty folder `name` directly below.
        pub(crate) fn remove_dir(&self, name: &OsStr) -> HandleResult<()> {
            rustix::fs::unlinkat(&self.fd, name, AtFlags::REMOVEDIR)
                .map_err(|e| self.io(Path::new(name), e))
        }

        /// Gives this folder the permission bits `mode` when it has others.
        pub(crate) fn ensure_mode(&self, mode: u32) -> HandleResult<()> {
            let io_error = |e: rustix::io::Errno| HandleError::Io {
                path: self.path.clone(),
                source: e.into(),
            };
            let stat = rustix::fs::fstat(&self.fd).map_err(io_error)?;
            if (stat.st_mode as u32) & 0o7777 != mode {
                rustix::fs::fchmod(&self.fd, Mode::from_raw_mode(mode as _)).map_err(io_error)?;
            }
            Ok(())
        }

        /// Flushes the folder itself (a rename in it) to disk; false when the filesystem
        /// cannot.
        pub fn sync(&self) -> bool {
            rustix::fs::fsync(&self.fd).is_ok()
        }

        /// Creates a temp file `{prefix}{8 random}{suffix}` in this folder, `O_EXCL` and
        /// no link followed, with `mode` (less the umask).
        pub(crate) fn create_temp(
            &self,
            prefix: &str,
            suffix: &str,
            mode: u32,
        ) -> HandleResult<TempFile<'_>> {
            let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL;
            let mut last = None;
            for _ in 0..16 {
                let name = format!("{prefix}{}{suffix}", random_name());
                match self.open_beneath(Path::new(&name), flags, Mode::from_raw_mode(mode as _)) {
                    Ok(fd) => {
                        return Ok(TempFile {
                            dir: self,
                            name,
                            file: File::from(fd),
                            committed: false,
                        });
                    }
                    Err(e) if e.kind() == Some(io::ErrorKind::AlreadyExists) => last = Some(e),
                    Err(e) => return Err(e),
                }
            }
            Err(last.unwrap_or_else(|| HandleError::Io {
                path: self.path.clone(),
                source: io::Error::other("no free temp file name"),
            }))
        }

        /// Moves `from` to `to`, both directly below this folder (replacing `to`; a
        /// symlink at `to` is replaced, never followed).
        pub fn rename(&self, from: &str, to: &str) -> HandleResult<()> {
            rustix::fs::renameat(&self.fd, from, &self.fd, to)
                .map_err(|e| self.io(Path::new(to), e))
        }

        /// Moves `from` to `to` only if nothing is at `to` (`AlreadyExists` otherwise).
        pub(crate) fn rename_noreplace(&self, from: &str, to: &str) -> HandleResult<()> {
            #[cfg(any(target_os = "linux", target_os = "android"))]
            {
                use rustix::fs::RenameFlags;
                match rustix::fs::renameat_with(
                    &self.fd,
                    from,
                    &self.fd,
                    to,
                    RenameFlags::NOREPLACE,
                ) {
                    // Filesystems without RENAME_NOREPLACE: link and unlink instead.
                    Err(e) if e == rustix::io::Errno::INVAL || e == rustix::io::Errno::NOSYS => {}
                    other => return other.map_err(|e| self.io(Path::new(to), e)),
                }
            }
            rustix::fs::linkat(&self.fd, from, &self.fd, to, AtFlags::empty())
                .map_err(|e| self.io(Path::new(to), e))?;
            // The file is in place; a leftover name of the temp file is only clutter.
            let _ = rustix::fs::unlinkat(&self.fd, from, AtFlags::empty());
            Ok(())
        }
    }

    #[cfg(test)]
    thread_local! {
        /// Tests set it to exercise the component walk of kernels without openat2.
        pub(super) static FORCE_WALK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }

    #[cfg(all(test, any(target_os = "linux", target_os = "android")))]
    fn tests_walk() -> bool {
        FORCE_WALK.with(|force| force.get())
    }

    #[cfg(all(not(test), any(target_os = "linux", target_os = "android")))]
    fn tests_walk() -> bool {
        false
    }
}

/// Without descriptor-relative calls (Windows), a folder is its path: each step looks
/// for links by name and refuses what it sees, which narrows the race but cannot close it.
#[cfg(not(unix))]
mod imp {
    use super::*;
    use std::fs;

    #[derive(Debug)]
    pub struct Dir {
        path: PathBuf,
    }

    fn io_error(path: &Path, source: io::Error) -> HandleError {
        HandleError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    fn is_link(path: &Path) -> bool {
        fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
    }

    impl Dir {
        pub fn open_anchor(path: &Path) -> HandleResult<Dir> {
            let meta = fs::metadata(path).map_err(|e| io_error(path, e))?;
            if !meta.is_dir() {
                return Err(io_error(
                    path,
                    io::Error::new(io::ErrorKind::NotADirectory, "not a folder"),
                ));
            }
            Ok(Dir {
                path: path.to_path_buf(),
            })
        }

        pub(crate) fn open_unlinked(path: &Path) -> HandleResult<Dir> {
            if is_link(path) {
                return Err(HandleError::Symlink {
                    rel: PathBuf::from(path.file_name().unwrap_or_default()),
                });
            }
            Dir::open_anchor(path)
        }

        pub fn path(&self) -> &Path {
            &self.path
        }

        /// `rel` below this folder, refused when a step of it is a link now.
        fn beneath(&self, rel: &Path) -> HandleResult<PathBuf> {
            let mut path = self.path.clone();
            for part in plain_components(rel)? {
                path.push(part);
                if is_link(&path) {
                    return Err(HandleError::Symlink {
                        rel: rel.to_path_buf(),
                    });
                }
            }
            Ok(path)
        }

        pub fn open_dir(&self, rel: &Path) -> HandleResult<Dir> {
            let path = self.beneath(rel)?;
            Dir::open_anchor(&path)
        }

        pub fn create_dir(&self, name: &str, _mode: u32) -> HandleResult<Dir> {
            let path = self.beneath(Path::new(name))?;
            match fs::create_dir(&path) {
                Err(e) if e.kind() != io::ErrorKind::AlreadyExists => {
                    return Err(io_error(&path, e));
                }
                _ => {}
            }
            self.open_dir(Path::new(name))
        }

        pub fn open_file(&self, rel: &Path) -> HandleResult<(File, std::fs::Metadata)> {
            let path = self.beneath(rel)?;
            let before = fs::symlink_metadata(&path).map_err(|e| io_error(&path, e))?;
            if !before.is_file() {
                return Err(io_error(
                    &path,
                    io::Error::new(io::ErrorKind::InvalidInput, "not a regular file"),
                ));
            }
            let file = File::open(&path).map_err(|e| io_error(&path, e))?;
            let meta = file.metadata().map_err(|e| io_error(&path, e))?;
            Ok((file, meta))
        }

        pub(crate) fn open_append(&self, name: &str, _mode: u32) -> HandleResult<File> {
            let path = self.beneath(Path::new(name))?;
            fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
                .map_err(|e| io_error(&path, e))
        }

        pub(crate) fn open_lock_file(&self, name: &str, _mode: u32) -> HandleResult<File> {
            let path = self.beneath(Path::new(name))?;
            fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(|e| io_error(&path, e))
        }

        pub(crate) fn entry_meta(&self, name: &OsStr) -> HandleResult<Option<EntryMeta>> {
            let path = self.path.join(name);
            match fs::symlink_metadata(&path) {
                Ok(meta) => Ok(Some(EntryMeta {
                    is_symlink: meta.file_type().is_symlink(),
                    is_file: meta.is_file(),
                    modified: meta.modified().ok(),
                    len: meta.len(),
                    inode: 0,
                })),
                Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(io_error(&path, e)),
            }
        }

        pub fn names(&self) -> HandleResult<Vec<OsString>> {
            let entries = fs::read_dir(&self.path).map_err(|e| io_error(&self.path, e))?;
            Ok(entries.flatten().map(|e| e.file_name()).collect())
        }

        pub fn remove_file(&self, name: &OsStr) -> HandleResult<()> {
            let path = self.path.join(name);
            fs::remove_file(&path).map_err(|e| io_error(&path, e))
        }

        pub(crate) fn remove_dir(&self, name: &OsStr) -> HandleResult<()> {
            let path = self.path.join(name);
            fs::remove_dir(&path).map_err(|e| io_error(&path, e))
        }

        pub fn sync(&self) -> bool {
            // A folder cannot be opened as a file here; NTFS journals the rename itself.
            true
        }

        pub(crate) fn create_temp(
            &self,
            prefix: &str,
            suffix: &str,
            _mode: u32,
        ) -> HandleResult<TempFile<'_>> {
            let mut last = None;
            for _ in 0..16 {
                let name = format!("{prefix}{}{suffix}", random_name());
                let path = self.beneath(Path::new(&name))?;
                match fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&path)
                {
                    Ok(file) => {
                        return Ok(TempFile {
                            dir: self,
                            name,
                            file,
                            committed: false,
                        });
                    }
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                        last = Some(io_error(&path, e));
                    }
                    Err(e) => return Err(io_error(&path, e)),
                }
            }
            Err(last.unwrap_or_else(|| {
                io_error(&self.path, io::Error::other("no free temp file name"))
            }))
        }

        pub fn rename(&self, from: &str, to: &str) -> HandleResult<()> {
            let target = self.path.join(to);
            fs::rename(self.path.join(from), &target).map_err(|e| io_error(&target, e))
        }

        pub(crate) fn rename_noreplace(&self, from: &str, to: &str) -> HandleResult<()> {
            let target = self.path.join(to);
            fs::hard_link(self.path.join(from), &target).map_err(|e| io_error(&target, e))?;
            let _ = fs::remove_file(self.path.join(from));
            Ok(())
        }
    }
}

pub use imp::Dir;

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
    pub fn read(&self, rel: &Path, limit: u64) -> HandleResult<Option<FileRead>> {
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
        Ok(Some(FileRead { bytes, meta }))
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
pub struct TempFile<'d> {
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
        imp::FORCE_WALK.with(|force| force.set(true));
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
        imp::FORCE_WALK.with(|force| force.set(false));
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
        // Appending (a log, a history pack): no reader, so the open itself fails at once.
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

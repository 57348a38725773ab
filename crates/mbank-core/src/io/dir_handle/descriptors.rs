//! Folders as descriptors (Unix): every step is relative to the folder's descriptor,
//! through `openat2` on Linux where the kernel has it, else one `openat(O_NOFOLLOW)` per
//! path component.
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
            return rustix::fs::openat(&self.fd, *name, flags, mode).map_err(|e| self.io(rel, e));
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
    /// creating it with `mode` when missing, with its length as opened (where an append
    /// lands while the caller holds the file's lock). A FIFO or device there is never
    /// waited on (opened non-blocking, which a regular file's writes ignore) and is
    /// refused.
    pub(crate) fn open_append(&self, name: &str, mode: u32) -> HandleResult<(File, u64)> {
        let rel = Path::new(name);
        // Read too: an append looks at the last byte first (a line a crash cut short).
        let flags = OFlags::RDWR | OFlags::APPEND | OFlags::CREATE | OFlags::NONBLOCK;
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
        Ok((file, meta.len()))
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
        rustix::fs::renameat(&self.fd, from, &self.fd, to).map_err(|e| self.io(Path::new(to), e))
    }

    /// Moves `from` to `to` only if nothing is at `to` (`AlreadyExists` otherwise).
    pub(crate) fn rename_noreplace(&self, from: &str, to: &str) -> HandleResult<()> {
        #[cfg(any(target_os = "linux", target_os = "android"))]
        {
            use rustix::fs::RenameFlags;
            match rustix::fs::renameat_with(&self.fd, from, &self.fd, to, RenameFlags::NOREPLACE) {
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

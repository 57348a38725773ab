//! A folder read through one open descriptor: its own stamp (`fstat`), its entries, and
//! the files in it `stat`ed relative to it (`fstatat`), so a path is resolved from the
//! root once per folder rather than once per file. Elsewhere than Unix, by path.
use std::ffi::OsStr;
use std::fs;
use std::io;
use std::path::Path;
#[cfg(not(unix))]
use std::path::PathBuf;
use std::time::SystemTime;

use super::entry::{Entry, Kind};
use super::stamp::Stamp;
#[cfg(unix)]
use super::stamp::time_of_nanos;

/// What a `stat` of an entry says, links not followed, as a bank's listing keeps it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileStat {
    pub is_file: bool,
    pub len: u64,
    pub modified: Option<SystemTime>,
    /// When the inode last changed (see `crate::io::paths::change_time`).
    pub changed: Option<SystemTime>,
    pub inode: Option<u64>,
}

impl FileStat {
    pub fn of(meta: &fs::Metadata) -> FileStat {
        FileStat {
            is_file: meta.is_file(),
            len: meta.len(),
            modified: meta.modified().ok(),
            changed: crate::io::paths::change_time(meta),
            inode: crate::io::paths::inode_and_change(meta).map(|(inode, _)| inode),
        }
    }
}

/// A folder open for reading its entries and `stat`ing what is in it.
pub(crate) struct OpenFolder {
    #[cfg(unix)]
    dir: rustix::fs::Dir,
    #[cfg(not(unix))]
    path: PathBuf,
}

impl OpenFolder {
    /// Opens `dir` (links on the way followed, as `read_dir` does).
    pub fn open(dir: &Path) -> io::Result<OpenFolder> {
        #[cfg(unix)]
        {
            use rustix::fs::{Mode, OFlags};
            let fd = rustix::fs::open(
                dir,
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
                Mode::empty(),
            )?;
            Ok(OpenFolder {
                dir: rustix::fs::Dir::new(fd)?,
            })
        }
        #[cfg(not(unix))]
        {
            if !fs::metadata(dir)?.is_dir() {
                return Err(io::Error::other(format!(
                    "{} is not a folder",
                    dir.display()
                )));
            }
            Ok(OpenFolder {
                path: dir.to_path_buf(),
            })
        }
    }

    /// The folder's stamp and modification time.
    pub fn stamp(&self) -> io::Result<(Option<Stamp>, Option<SystemTime>)> {
        #[cfg(unix)]
        {
            let stat = rustix::fs::fstat(self.dir.fd()?)?;
            let times = Times::of(&stat);
            Ok((
                Some(Stamp::from_parts(
                    stat.st_ino,
                    u64::try_from(stat.st_size).unwrap_or(0),
                    times.modified,
                    times.changed,
                )),
                Some(time_of_nanos(times.modified)),
            ))
        }
        #[cfg(not(unix))]
        {
            let meta = fs::metadata(&self.path)?;
            Ok((Stamp::of(&meta), meta.modified().ok()))
        }
    }

    /// The folder's entries, `.` and `..` left out, in the order the platform gives them.
    /// Call once: the listing reads the folder to its end.
    pub fn entries(&mut self) -> io::Result<Vec<Entry>> {
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let mut entries = Vec::new();
            while let Some(entry) = self.dir.read() {
                let entry = entry?;
                let name = entry.file_name().to_bytes();
                if name == b"." || name == b".." {
                    continue;
                }
                let name = OsStr::from_bytes(name);
                let kind = match entry.file_type() {
                    rustix::fs::FileType::Directory => Kind::Dir,
                    rustix::fs::FileType::RegularFile => Kind::File,
                    rustix::fs::FileType::Symlink => Kind::Symlink,
                    rustix::fs::FileType::Unknown => self.kind_of(name),
                    _ => Kind::Other,
                };
                entries.push(Entry {
                    name: name.to_os_string(),
                    kind,
                });
            }
            Ok(entries)
        }
        #[cfg(not(unix))]
        {
            Ok(fs::read_dir(&self.path)?
                .flatten()
                .map(|e| Entry {
                    kind: Kind::of(e.file_type()),
                    name: e.file_name(),
                })
                .collect())
        }
    }

    /// What a file system that keeps no type in its listing says `name` is.
    #[cfg(unix)]
    fn kind_of(&self, name: &OsStr) -> Kind {
        match self.stat_at(name) {
            Ok(stat) => match rustix::fs::FileType::from_raw_mode(stat.st_mode as _) {
                rustix::fs::FileType::Directory => Kind::Dir,
                rustix::fs::FileType::RegularFile => Kind::File,
                rustix::fs::FileType::Symlink => Kind::Symlink,
                _ => Kind::Other,
            },
            Err(_) => Kind::Unknown,
        }
    }

    #[cfg(unix)]
    fn stat_at(&self, name: &OsStr) -> io::Result<rustix::fs::Stat> {
        Ok(rustix::fs::statat(
            self.dir.fd()?,
            name,
            rustix::fs::AtFlags::SYMLINK_NOFOLLOW,
        )?)
    }

    /// What is at `name` in this folder, a link not followed.
    pub fn stat(&self, name: &OsStr) -> io::Result<FileStat> {
        #[cfg(unix)]
        {
            let stat = self.stat_at(name)?;
            let times = Times::of(&stat);
            Ok(FileStat {
                is_file: rustix::fs::FileType::from_raw_mode(stat.st_mode as _)
                    == rustix::fs::FileType::RegularFile,
                len: u64::try_from(stat.st_size).unwrap_or(0),
                modified: Some(time_of_nanos(times.modified)),
                changed: Some(time_of_nanos(times.changed)),
                inode: Some(stat.st_ino),
            })
        }
        #[cfg(not(unix))]
        {
            fs::symlink_metadata(self.path.join(name)).map(|meta| FileStat::of(&meta))
        }
    }
}

/// A `stat`'s modification and change times, in nanoseconds since the epoch.
#[cfg(unix)]
struct Times {
    modified: i128,
    changed: i128,
}

#[cfg(unix)]
impl Times {
    fn of(stat: &rustix::fs::Stat) -> Times {
        // The fields' integer types differ between platforms; each fits an i128.
        let nanos = |seconds: i128, nanos: i128| seconds * 1_000_000_000 + nanos;
        Times {
            modified: nanos(i128::from(stat.st_mtime), i128::from(stat.st_mtime_nsec)),
            changed: nanos(i128::from(stat.st_ctime), i128::from(stat.st_ctime_nsec)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_read_through_its_handle_says_what_reading_it_by_path_says() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        fs::write(dir.join("a.md"), "# A\n").unwrap();
        fs::create_dir(dir.join("sub")).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink("a.md", dir.join("link.md")).unwrap();
        let mut folder = OpenFolder::open(dir).unwrap();
        let (stamp, modified) = folder.stamp().unwrap();
        let meta = fs::metadata(dir).unwrap();
        assert_eq!(stamp, Stamp::of(&meta));
        assert_eq!(modified, meta.modified().ok());

        let mut entries: Vec<(String, Kind)> = folder
            .entries()
            .unwrap()
            .into_iter()
            .map(|e| (e.name.to_string_lossy().into_owned(), e.kind))
            .collect();
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let mut by_path: Vec<(String, Kind)> = fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| {
                (
                    e.file_name().to_string_lossy().into_owned(),
                    Kind::of(e.file_type()),
                )
            })
            .collect();
        by_path.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(entries, by_path);

        for name in ["a.md", "sub"] {
            let stat = folder.stat(OsStr::new(name)).unwrap();
            let meta = fs::symlink_metadata(dir.join(name)).unwrap();
            assert_eq!(stat, FileStat::of(&meta), "{name}");
        }
        #[cfg(unix)]
        assert!(!folder.stat(OsStr::new("link.md")).unwrap().is_file);
        assert!(folder.stat(OsStr::new("gone.md")).is_err());
    }

    #[test]
    fn a_file_is_not_opened_as_a_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("a.md");
        fs::write(&file, "x").unwrap();
        assert!(OpenFolder::open(&file).is_err());
        assert!(OpenFolder::open(&tmp.path().join("missing")).is_err());
    }
}

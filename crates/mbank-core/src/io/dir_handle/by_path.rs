//! Folders as paths, where there are no descriptor-relative calls (Windows): each step
//! looks for links by name and refuses what it sees, which narrows the race but cannot
//! close it.
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

    pub(crate) fn open_append(&self, name: &str, _mode: u32) -> HandleResult<(File, u64)> {
        let path = self.beneath(Path::new(name))?;
        let file = fs::OpenOptions::new()
            .read(true)
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| io_error(&path, e))?;
        let len = file.metadata().map_err(|e| io_error(&path, e))?.len();
        Ok((file, len))
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
        Err(last
            .unwrap_or_else(|| io_error(&self.path, io::Error::other("no free temp file name"))))
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

//! Where mbank keeps its own files. Each folder can be redirected by an environment
//! variable, which tests and sandboxed CI use to stay hermetic.
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

fn project_dirs() -> Option<directories::ProjectDirs> {
    directories::ProjectDirs::from("", "", "mbank")
}

fn from_env(var: &str) -> Option<PathBuf> {
    std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// Codex's own folder, `$CODEX_HOME` when set (Codex defaults it to `~/.codex`).
pub fn codex_home() -> Option<PathBuf> {
    from_env("CODEX_HOME")
}

/// Token and git caches: `$MBANK_CACHE_DIR`, else the platform cache folder.
pub fn cache_dir() -> Option<PathBuf> {
    from_env("MBANK_CACHE_DIR").or_else(|| project_dirs().map(|d| d.cache_dir().to_path_buf()))
}

/// `config.toml`, keymaps and user themes: `$MBANK_CONFIG_DIR`, else the platform config folder.
pub fn config_dir() -> Option<PathBuf> {
    from_env("MBANK_CONFIG_DIR").or_else(|| project_dirs().map(|d| d.config_dir().to_path_buf()))
}

/// Review snapshots and other state: `$MBANK_DATA_DIR`, else the platform data folder.
pub fn data_dir() -> Option<PathBuf> {
    from_env("MBANK_DATA_DIR").or_else(|| project_dirs().map(|d| d.data_dir().to_path_buf()))
}

/// The user's home folder, for `~` in imports and global memory files.
pub fn home_dir() -> Option<PathBuf> {
    from_env("HOME").or_else(|| directories::BaseDirs::new().map(|d| d.home_dir().to_path_buf()))
}

/// `path` below `base`, as `Path::strip_prefix` gives it. Listing a root visits tens of
/// thousands of paths built by joining names onto a folder, and `strip_prefix` walks
/// both paths component by component; on Unix such paths are compared as bytes, and
/// anything unusual (`.` or empty components) takes the exact way.
pub(crate) fn relative_to<'a>(path: &'a Path, base: &Path) -> Option<&'a Path> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let base_bytes = base.as_os_str().as_bytes();
        let rest = path
            .as_os_str()
            .as_bytes()
            .strip_prefix(base_bytes)
            .and_then(|rest| rest.strip_prefix(b"/"));
        if let Some(rest) = rest
            && !base_bytes.is_empty()
            && !base_bytes.ends_with(b"/")
            && rest
                .split(|&b| b == b'/')
                .all(|part| !part.is_empty() && part != b".")
        {
            return Some(Path::new(std::ffi::OsStr::from_bytes(rest)));
        }
    }
    path.strip_prefix(base).ok()
}

/// The last component of `path`, as `Path::file_name` gives it, without parsing every
/// component on Unix (see `relative_to`).
pub fn file_name(path: &Path) -> Option<&OsStr> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let bytes = path.as_os_str().as_bytes();
        let last = bytes
            .iter()
            .rposition(|&b| b == b'/')
            .map_or(bytes, |slash| &bytes[slash + 1..]);
        if !last.is_empty() && last != b"." && last != b".." {
            return Some(OsStr::from_bytes(last));
        }
    }
    path.file_name()
}

/// A file's inode and change time (nanoseconds since the epoch): with its size and
/// modification time, what tells one version of it from the next; `None` where the
/// system keeps no inodes.
/// The device and inode of a file: what tells one file from another, whatever path
/// reaches it (`None` where the platform gives none).
pub(crate) fn device_and_inode(meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

pub(crate) fn inode_and_change(meta: &std::fs::Metadata) -> Option<(u64, i128)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let change = i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec());
        Some((meta.ino(), change))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

/// When a file's inode last changed (unix `ctime`). Unlike the modification time, no
/// program can set it back, so an edit that keeps a file's size and restores its
/// modification time still moves it. `None` where the platform keeps no such time.
pub(crate) fn change_time(meta: &std::fs::Metadata) -> Option<SystemTime> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        use std::time::{Duration, UNIX_EPOCH};
        let nanos = Duration::from_nanos(u64::try_from(meta.ctime_nsec()).ok()?);
        let seconds = Duration::from_secs(meta.ctime().unsigned_abs());
        let whole = if meta.ctime() >= 0 {
            UNIX_EPOCH.checked_add(seconds)
        } else {
            UNIX_EPOCH.checked_sub(seconds)
        };
        whole?.checked_add(nanos)
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_paths_agree_with_the_standard_library() {
        let cases = [
            ("/r/p/memory-bank/a.md", "/r/p"),
            ("/r/p/memory-bank/a.md", "/r/p/memory-bank"),
            ("/r/p/a.md", "/r/p/"),
            ("/r/p/./a.md", "/r/p"),
            ("/r/p//a.md", "/r/p"),
            ("/r/p/a/", "/r/p"),
            ("/r/p/a/.", "/r/p"),
            ("/r/p/../a.md", "/r/p"),
            ("/r/pp/a.md", "/r/p"),
            ("/r/p", "/r/p"),
            ("r/p/a.md", "r"),
            ("/r/p/a.md", ""),
            ("/r/p/a.md", "/"),
            ("/r/p/a.md", "/elsewhere"),
            ("a.md", "a"),
        ];
        for (path, base) in cases {
            let (path, base) = (Path::new(path), Path::new(base));
            assert_eq!(
                relative_to(path, base),
                path.strip_prefix(base).ok(),
                "{path:?} below {base:?}"
            );
        }
        for path in [
            "/r/p/a.md",
            "a.md",
            "/",
            "",
            "/r/p/",
            "/r/p/.",
            "/r/p/..",
            "..",
            ".",
            "/r//a",
        ] {
            let path = Path::new(path);
            assert_eq!(file_name(path), path.file_name(), "{path:?}");
        }
    }
    #[cfg(unix)]
    #[test]
    fn the_change_time_is_the_inodes_and_moves_when_the_modification_time_is_set_back() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");
        std::fs::write(&path, "one").unwrap();
        let meta = std::fs::metadata(&path).unwrap();
        let changed = change_time(&meta).unwrap();
        let since_epoch = changed.duration_since(std::time::UNIX_EPOCH).unwrap();
        assert_eq!(since_epoch.as_secs() as i64, meta.ctime());
        assert_eq!(i64::from(since_epoch.subsec_nanos()), meta.ctime_nsec());
        let modified = meta.modified().unwrap();
        // Past the coarsest tick a file system keeps times in.
        std::thread::sleep(std::time::Duration::from_millis(50));
        std::fs::write(&path, "two").unwrap();
        let file = std::fs::File::options().write(true).open(&path).unwrap();
        file.set_modified(modified).unwrap();
        let after = std::fs::metadata(&path).unwrap();
        assert_eq!(after.modified().unwrap(), modified);
        assert!(change_time(&after).unwrap() > changed);
    }
}

//! Backups of the side a person did not keep when an edit met a change on disk (keep
//! mine / take theirs / merge): saved outside the project, in mbank's data folder, so
//! nothing is lost either way. A backup keeps the source file's permissions (no
//! world-readable copy of a private file), in a folder only its owner can open (0700),
//! and never replaces or follows anything already there.
use std::path::{Path, PathBuf};

/// Saves `bytes` outside the project, in `dir` (mbank's data folder, made 0700), named
/// after the project, the file `source`, the side and the time
/// (`weather-api.progress.md.mine.20261123-151200`: two projects' `progress.md` are told
/// apart), with `source`'s permissions (0600 when it is gone), the time `clock`'s local
/// time. Returns the backup's path.
pub fn save(
    dir: &Path,
    project: &str,
    source: &Path,
    bytes: &[u8],
    side: &str,
    clock: &crate::clock::Clock,
) -> std::io::Result<PathBuf> {
    create_private_dir(dir)?;
    let file = source
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "memory".into());
    let project = name_part(project);
    let name = if project.is_empty() {
        file
    } else {
        format!("{project}.{file}")
    };
    let stamp = clock.local().format("%Y%m%d-%H%M%S");
    let mut n = 1;
    loop {
        let target = match n {
            1 => dir.join(format!("{name}.{side}.{stamp}")),
            _ => dir.join(format!("{name}.{side}.{stamp}-{n}")),
        };
        // Never replaces (or follows a link at) an existing name.
        match create_like(&target, source) {
            Ok(mut file) => {
                use std::io::Write;
                file.write_all(bytes)?;
                file.sync_all()?;
                return Ok(target);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 1000 => n += 1,
            Err(e) => return Err(e),
        }
    }
}

/// A project name as part of a file name: no separators, controls or leading dots.
fn name_part(name: &str) -> String {
    let part: String = name
        .chars()
        .map(|c| {
            if c == '/' || c == '\\' || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect();
    part.trim_start_matches('.').to_string()
}

/// Creates `dir` (and its parents) readable by its owner only.
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        builder.mode(0o700);
        builder.create(dir)?;
        // A folder made by an older version may be wider: narrow it. The backups carry
        // their own permissions either way, so a folder mbank cannot change is no reason
        // to lose a backup.
        let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700));
        Ok(())
    }
    #[cfg(not(unix))]
    builder.create(dir)
}

/// A new file at `target` with the permissions of `source`.
fn create_like(target: &Path, source: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        let mode = std::fs::metadata(source).map_or(0o600, |m| m.permissions().mode() & 0o777);
        options.mode(mode);
        let file = options.open(target)?;
        // The umask narrowed the mode at creation: give the source's exactly.
        file.set_permissions(std::fs::Permissions::from_mode(mode))?;
        Ok(file)
    }
    #[cfg(not(unix))]
    {
        let _ = source;
        options.open(target)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn backups_keep_the_source_permissions_in_a_private_folder() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let source = dir.path().join("secrets.md");
        std::fs::write(&source, "x").unwrap();
        std::fs::set_permissions(&source, std::fs::Permissions::from_mode(0o600)).unwrap();
        let backups = dir.path().join("data/conflicts");
        let first = save(
            &backups,
            "shop",
            &source,
            b"theirs\r\n",
            "theirs",
            &crate::clock::Clock::system(),
        )
        .unwrap();
        let second = save(
            &backups,
            "shop",
            &source,
            b"again",
            "theirs",
            &crate::clock::Clock::system(),
        )
        .unwrap();
        assert_ne!(first, second);
        let name = first.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with("shop.secrets.md.theirs."), "{name}");
        assert_eq!(name_part("../x/y\u{1b}"), "_x_y_");
        assert_eq!(std::fs::read(&first).unwrap(), b"theirs\r\n");
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&first), 0o600);
        assert_eq!(mode(&backups), 0o700);
        // A readable source gives a readable backup; the folder stays private.
        std::fs::set_permissions(&source, std::fs::Permissions::from_mode(0o644)).unwrap();
        let open = save(
            &backups,
            "shop",
            &source,
            b"x",
            "mine",
            &crate::clock::Clock::system(),
        )
        .unwrap();
        assert_eq!(mode(&open), 0o644);
        // A source that is gone gives a private backup.
        let gone = dir.path().join("gone.md");
        assert_eq!(
            mode(
                &save(
                    &backups,
                    "shop",
                    &gone,
                    b"x",
                    "mine",
                    &crate::clock::Clock::system()
                )
                .unwrap()
            ),
            0o600
        );
    }
}

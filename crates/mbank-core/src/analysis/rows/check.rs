//! Whether what a remembered row was derived from is still as it was: its folders and
//! files (by the digest of their stamps), the folders outside its project, and its place
//! in git, checked without running git.
use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::analysis::git_evidence::repository_state;
use crate::cache_store::Raw;
use crate::cache_store::rows::Inputs;
use crate::io::bytes::os_str;
use crate::scan::listings::Stamp;

/// What checking one remembered row found.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct RowVerdict {
    /// The folders it remembers (in the project and outside it) are unchanged.
    pub(super) folders: bool,
    /// Its row still holds.
    pub(super) row: bool,
}

/// Whether every input of the list has the digest remembered for it.
pub(super) fn inputs_hold(inputs: &Inputs<'_>, base: &Base) -> bool {
    inputs.iter().all(|(rel, digest)| {
        os_str(rel.0).is_some_and(|rel| base.digest(Path::new(rel)) == Some(*digest))
    })
}

/// A project's folder, where its inputs are checked from: on Unix an open handle, so
/// each name is resolved from the folder rather than from `/` (walking the same leading
/// folders again for every file took a third of the kernel's time).
#[cfg(unix)]
pub(super) struct Base(rustix::fd::OwnedFd);

#[cfg(unix)]
impl Base {
    pub(super) fn open(project: &Path) -> Option<Base> {
        use rustix::fs::{CWD, Mode, OFlags, openat};
        // Links followed, as listing and reading follow them.
        let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
        openat(CWD, project, flags, Mode::empty()).ok().map(Base)
    }

    /// The digest of `rel` (the folder itself when empty), links followed.
    fn digest(&self, rel: &Path) -> Option<u64> {
        use rustix::fs::{AtFlags, fstat, statat};
        let stat = if rel.as_os_str().is_empty() {
            fstat(&self.0)
        } else {
            statat(&self.0, rel, AtFlags::empty())
        }
        .ok()?;
        let nanos =
            |seconds: i64, nanos: i64| i128::from(seconds) * 1_000_000_000 + i128::from(nanos);
        #[allow(clippy::unnecessary_cast, clippy::useless_conversion)]
        let stamp = Stamp::from_parts(
            stat.st_ino as u64,
            stat.st_size as u64,
            nanos(stat.st_mtime as i64, stat.st_mtime_nsec as i64),
            nanos(stat.st_ctime as i64, stat.st_ctime_nsec as i64),
        );
        Some(stamp.digest())
    }
}

#[cfg(not(unix))]
pub(super) struct Base(PathBuf);

#[cfg(not(unix))]
impl Base {
    pub(super) fn open(project: &Path) -> Option<Base> {
        Some(Base(project.to_path_buf()))
    }

    fn digest(&self, rel: &Path) -> Option<u64> {
        let path = if rel.as_os_str().is_empty() {
            self.0.clone()
        } else {
            self.0.join(rel)
        };
        digest_of(&path)
    }
}

/// Whether every absolute input of the list has its remembered digest.
pub(super) fn outside_holds(inputs: &Inputs<'_>) -> bool {
    inputs.iter().all(|(path, digest)| {
        os_str(path.0).is_some_and(|path| digest_of(Path::new(path)) == Some(*digest))
    })
}

/// The digest of a file or folder (links followed, as listing and reading follow them).
pub(super) fn digest_of(path: &Path) -> Option<u64> {
    Stamp::of(&fs::metadata(path).ok()?).map(|stamp| stamp.digest())
}

/// Finds repositories without git, remembering each folder's answer for the check.
#[derive(Default)]
pub(super) struct RepoProbe {
    parents: HashMap<PathBuf, Option<PathBuf>>,
    markers: HashMap<PathBuf, Option<PathBuf>>,
    states: HashMap<PathBuf, Option<u64>>,
}

impl RepoProbe {
    /// The project's parent folder with its links resolved, once per parent.
    fn resolved_parent(&mut self, project: &Path) -> Option<PathBuf> {
        let parent = project.parent()?;
        self.parents
            .entry(parent.to_path_buf())
            .or_insert_with(|| fs::canonicalize(parent).ok())
            .clone()
    }

    /// The nearest folder above `project` holding a `.git` entry, its parent resolved.
    fn marker_above(&mut self, project: &Path) -> Option<PathBuf> {
        let resolved = self.resolved_parent(project)?;
        crate::git::nearest_marker(&mut self.markers, &resolved, |folder| {
            fs::symlink_metadata(folder.join(".git")).is_ok()
        })
    }

    /// The project's folder as git sees it (its parent resolved).
    fn resolved(&mut self, project: &Path) -> Option<PathBuf> {
        Some(self.resolved_parent(project)?.join(project.file_name()?))
    }

    fn state(&mut self, marker: &Path) -> Option<u64> {
        *self
            .states
            .entry(marker.to_path_buf())
            .or_insert_with(|| repository_state(marker))
    }
}

/// Whether the project is still where it was in git: outside any repository, or in the
/// same one in the same state. The project's own `.git` entry is vouched for by its own
/// folder, which every remembered row checks.
pub(super) fn git_holds(
    git: Option<(Raw<'_>, u64)>,
    project: &Path,
    probe: &mut RepoProbe,
) -> bool {
    let Some((marker, state)) = git else {
        return probe.marker_above(project).is_none();
    };
    let Some(marker) = os_str(marker.0).map(Path::new) else {
        return false;
    };
    let found = if probe.resolved(project).as_deref() == Some(marker) {
        true
    } else {
        probe.marker_above(project).as_deref() == Some(marker)
    };
    found && probe.state(marker) == Some(state)
}

//! Judging a marker found in a folder's listing against the folder being recognised:
//! a symlink is resolved once, and one leading out of the folder is never looked through.
use std::fs;
use std::path::Path;

use crate::io::confine::{Confinement, ProjectFolder};
use crate::scan::listings::{Kind, Listings};

/// What a marker is, judged against the folder being recognised (see `confine`).
pub(super) enum Probe {
    /// A real file or folder, or a symlink whose real location is inside the folder.
    Inside { is_dir: bool },
    /// A symlink leading out of the folder: still a marker (listing reports the link),
    /// but nothing behind it is listed or `stat`ed.
    Outside,
    /// A dangling or looping symlink: no marker.
    Broken,
}

/// Judges `path`, of listing type `kind`: plain entries from the listing alone, links
/// resolved once.
pub(super) fn probe(folder: &ProjectFolder<'_>, path: &Path, kind: Kind) -> Probe {
    match kind {
        Kind::Dir => Probe::Inside { is_dir: true },
        Kind::File | Kind::Other => Probe::Inside { is_dir: false },
        Kind::Symlink | Kind::Unknown => match folder.check(path) {
            Confinement::Inside(real) => Probe::Inside {
                is_dir: real.is_dir(),
            },
            Confinement::Outside(_) => Probe::Outside,
            _ => Probe::Broken,
        },
    }
}

/// [`probe`] of `parent/name`, from `parent`'s listing; `None` when absent.
pub(super) fn probe_child(
    listings: &Listings,
    folder: &ProjectFolder<'_>,
    parent: &Path,
    name: &str,
) -> Option<Probe> {
    let path = parent.join(name);
    let kind = match listings.child(parent, name) {
        Some(found) => found?.kind,
        None => {
            let meta = fs::symlink_metadata(&path).ok()?;
            if meta.file_type().is_symlink() {
                Kind::Symlink
            } else if meta.is_dir() {
                Kind::Dir
            } else {
                Kind::File
            }
        }
    };
    Some(probe(folder, &path, kind))
}

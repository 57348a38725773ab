//! Finding projects under the root from directory listings and metadata alone, so a
//! picker can appear before any file is read.
//!
//! The walk never enters `.git`, `node_modules`, `target`, hidden folders or folders
//! matching the configured ignore globs, never follows a symlink out of the root, and
//! treats every I/O error (permissions, loops, folders vanishing mid-scan) as "skip".
//!
//! What a folder's listing says (`markers`), judged against the folder (`probe`); the
//! instruction files of a project's sub-folders (`nested`); memory kept for a project in
//! the home folder (`outside`); and the walk of the root (`walk`).
use std::path::{Path, PathBuf};

use globset::GlobSet;

use crate::model::Project;
use crate::scan::listings::Listings;

mod markers;
mod nested;
mod outside;
mod probe;
mod walk;

use markers::markers_of;
use nested::add_nested_banks;
pub use outside::{OutsideFolders, outside_places};
use outside::{add_auto_memory, add_kilo_memory, auto_memory_place, kilo_memory_place};
pub use walk::{scan, scan_with};

/// Folders never descended into, whatever the configuration says.
pub(crate) const ALWAYS_SKIPPED: [&str; 6] = [
    ".git",
    "node_modules",
    "target",
    ".venv",
    "__pycache__",
    ".hg",
];

/// How many folder levels below a project its sub-folders' instruction files are looked
/// for (`sub/` is one, `sub/sub/` two), by discovery and bank listing alike. Claude Code
/// reads a `CLAUDE.md` at any depth once it works there, and monorepos keep them as deep
/// as `apps/web/src/features/billing/components/`; the bound only keeps a walk of generated
/// trees finite.
pub(crate) const MAX_NESTED_DEPTH: usize = 8;

#[derive(Debug, Clone)]
pub struct ScanOptions {
    /// How many folder levels below the root may hold a project (the root itself is 0).
    pub depth: usize,
    /// Extra globs (matched against paths relative to the root and against folder names).
    pub ignore: GlobSet,
    /// The home folder whose Claude Code auto memory is shown under the projects it
    /// belongs to; `None` (the default, and what tests use unless they pass a temporary
    /// one) looks at no home folder at all.
    pub home: Option<PathBuf>,
}

impl Default for ScanOptions {
    fn default() -> Self {
        ScanOptions {
            depth: 2,
            ignore: GlobSet::empty(),
            home: None,
        }
    }
}

/// Recognises one folder as a project, whatever its depth, from the folder alone: no
/// home folder is looked at, so the user's Claude Code auto memory is not among its banks
/// (see [`project_at_home`]). `None` when it holds no memory format.
pub fn project_at(path: &Path, name: String) -> Option<Project> {
    project_at_with(&Listings::in_memory(), path, name, None)
}

/// [`project_at`] with the auto memory `home` keeps for the project (used for folders
/// named on the command line, with the user's home folder).
pub fn project_at_home(path: &Path, name: String, home: Option<&Path>) -> Option<Project> {
    project_at_with(&Listings::in_memory(), path, name, home)
}

/// [`project_at_home`] with listings shared with the rest of the run.
pub fn project_at_with(
    listings: &Listings,
    path: &Path,
    name: String,
    home: Option<&Path>,
) -> Option<Project> {
    let mut markers = markers_of(listings, path);
    // As the walk does: a project, or a repository's top, holds its sub-folders'
    // instruction files; any other folder is a root of projects.
    let repository_top = listings.child(path, ".git").is_some_and(|e| e.is_some());
    if !markers.banks.is_empty() || repository_top {
        add_nested_banks(listings, path, &mut markers);
        markers.banks.sort_by_key(|b| b.format);
    }
    add_auto_memory(&mut markers, path, auto_memory_place(home).as_ref());
    if !markers.banks.is_empty() {
        add_kilo_memory(&mut markers, path, kilo_memory_place(home).as_ref());
    }
    (!markers.banks.is_empty()).then(|| Project {
        name,
        path: path.to_path_buf(),
        banks: markers.banks,
        last_write: markers.last_write,
        real: None,
    })
}

#[cfg(test)]
mod tests;

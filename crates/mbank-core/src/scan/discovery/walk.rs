//! The walk of the root: folder by folder to the configured depth, split across threads
//! for large roots, recognising each folder from its listing.
use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use super::markers::markers_in;
use super::nested::add_nested_banks;
use super::outside::{add_kilo_memory, auto_memory_place, kilo_memory_place};
use super::{ALWAYS_SKIPPED, ScanOptions};
use crate::formats;
use crate::formats::claude_auto_memory::AutoMemoryPlace;
use crate::formats::cline;
use crate::formats::kilo_code::KiloMemoryPlace;
use crate::io::confine::ProjectFolder;
use crate::model::{Format, Project};
use crate::scan::listings::{Entry, Kind, Listings};

/// Folders the walk never enters, by name alone: hidden, vendored, build output, and
/// banks themselves.
fn is_skipped_name(name: &str) -> bool {
    name.starts_with('.')
        || ALWAYS_SKIPPED.contains(&name)
        || name == cline::BANK_DIR
        || formats::DOCUMENT_BANK_DIRS.contains(&name)
}

/// Whether the walk may enter this folder.
fn may_descend(name: &str, rel: &Path, options: &ScanOptions) -> bool {
    !(is_skipped_name(name) || options.ignore.is_match(name) || options.ignore.is_match(rel))
}

/// A folder waiting to be scanned.
struct PendingFolder {
    dir: PathBuf,
    /// Its real path: the root's canonical path plus real folder names, or a resolved
    /// symlink. Carried along so the walk never calls `canonicalize` per folder.
    real: PathBuf,
    depth: usize,
    inside_project: bool,
}

/// Folders reached through more than one path (symlinks), shared by the walkers.
type Visited = parking_lot::Mutex<HashSet<PathBuf>>;

/// What one walker needs to know about the whole scan.
struct Walk<'a> {
    root: &'a Path,
    canonical_root: &'a Path,
    options: &'a ScanOptions,
    visited: &'a Visited,
    listings: &'a Listings,
    auto_memory: Option<&'a AutoMemoryPlace>,
    kilo_memory: Option<&'a KiloMemoryPlace>,
}

impl Walk<'_> {
    /// First visit of a real folder?
    fn first_visit(&self, real: PathBuf) -> bool {
        self.visited.lock().insert(real)
    }

    /// Scans `stack` depth-first; returns the projects found and pushes nothing outside.
    /// `claimed` holds bank folders already reported by an enclosing project
    /// (docs/global-memory-bank), which only matters below that project.
    fn run(&self, mut stack: Vec<PendingFolder>, mut claimed: HashSet<PathBuf>) -> Vec<Project> {
        let mut projects = Vec::new();
        while let Some(pending) = stack.pop() {
            self.visit(pending, &mut stack, &mut claimed, &mut projects);
        }
        projects
    }

    fn visit(
        &self,
        pending: PendingFolder,
        stack: &mut Vec<PendingFolder>,
        claimed: &mut HashSet<PathBuf>,
        projects: &mut Vec<Project>,
    ) {
        let PendingFolder {
            dir,
            real,
            depth,
            inside_project,
        } = pending;
        let Ok(entries) = self.listings.list(&dir) else {
            return;
        };
        let folder = ProjectFolder::with_real(&dir, &real);
        let mut markers = markers_in(self.listings, &folder, &entries);
        markers.banks.retain(|b| !claimed.contains(&b.root));
        let mut is_project = if inside_project {
            markers.has_memory_folder()
        } else {
            !markers.banks.is_empty()
        };
        // A project (or a repository's top) also holds the instruction files of its
        // sub-folders, which its agents read there, though none stands at its top.
        let repository_top = entries.iter().any(|e| e.name == ".git");
        if !inside_project && (is_project || repository_top) {
            add_nested_banks(self.listings, &dir, &mut markers);
            markers.banks.retain(|b| !claimed.contains(&b.root));
            markers.banks.sort_by_key(|b| b.format);
            is_project = !markers.banks.is_empty();
        }
        // A folder whose only memory is the auto memory Claude Code keeps for it in the
        // home folder is a project too; it claims nothing below it, so projects inside
        // it are found as if it were none.
        let mut auto_memory_only = false;
        if !is_project
            && !inside_project
            && let Some(folder) = self
                .auto_memory
                .and_then(|place| place.find_own(&dir, &real))
        {
            markers.add(Format::ClaudeAutoMemory, folder, None);
            is_project = true;
            auto_memory_only = true;
        }
        if is_project && !auto_memory_only {
            claimed.extend(markers.banks.iter().map(|b| b.root.clone()));
            if let Some(folder) = self
                .auto_memory
                .and_then(|place| place.find_own(&dir, &real))
            {
                markers.add(Format::ClaudeAutoMemory, folder, None);
            }
        }
        if is_project {
            // Kilo Memory is matched by the folder's name alone: it joins a project found
            // by its own memory, never makes one.
            add_kilo_memory(&mut markers, &dir, self.kilo_memory);
            let rel = dir.strip_prefix(self.root).unwrap_or(&dir);
            let name = if rel.as_os_str().is_empty() {
                self.root
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| self.root.display().to_string())
            } else {
                rel.to_string_lossy().into_owned()
            };
            projects.push(Project {
                name,
                path: dir.clone(),
                banks: markers.banks,
                last_write: markers.last_write,
                // The root could not be resolved when it is not absolute here.
                real: real.is_absolute().then(|| real.clone()),
            });
        }
        if depth >= self.options.depth {
            return;
        }
        let mut entries: Vec<&Entry> = entries.iter().collect();
        // Real folders claim their place before symlinks to them, so a project is
        // reported under its own name, not an alias's.
        entries.sort_by_key(|e| e.is_symlink());
        for entry in entries {
            // Only folders and links (which may point at one) can be walked into.
            let name = entry.name.to_string_lossy();
            if !matches!(entry.kind, Kind::Dir | Kind::Symlink) || is_skipped_name(&name) {
                continue;
            }
            let path = dir.join(&entry.name);
            let rel = crate::io::paths::relative_to(&path, self.root).unwrap_or(&path);
            if !may_descend(&name, rel, self.options) {
                continue;
            }
            let real_path = if entry.kind == Kind::Symlink {
                // Follow a link only when it stays inside the root and was not seen before.
                let Ok(target) = fs::canonicalize(&path) else {
                    continue;
                };
                if !target.starts_with(self.canonical_root) || !target.is_dir() {
                    continue;
                }
                target
            } else if entry.kind == Kind::Dir {
                real.join(&entry.name)
            } else {
                continue;
            };
            if !self.first_visit(real_path.clone()) {
                continue;
            }
            stack.push(PendingFolder {
                dir: path,
                real: real_path,
                depth: depth + 1,
                inside_project: inside_project || (is_project && !auto_memory_only),
            });
        }
    }
}

/// Below this many top-level folders a scan stays on one thread.
const PARALLEL_SCAN_MIN: usize = 64;

/// Walks the root to `options.depth` and returns every project found, sorted by name.
///
/// Each folder is listed once; the listing's file types decide what is a folder, so
/// only markers and symlinks cost a `stat`. Loops are impossible without symlinks, and a
/// symlink is followed only when its target is inside the root and not seen before.
/// Large roots are split across the machine's cores after the root's own listing.
pub fn scan(root: &Path, options: &ScanOptions) -> Vec<Project> {
    scan_with(root, options, &Listings::in_memory())
}

/// [`scan`] reading folders through `listings`, which the run then shares with bank
/// listing (and which may hold listings remembered from an earlier run).
pub fn scan_with(root: &Path, options: &ScanOptions, listings: &Listings) -> Vec<Project> {
    let canonical_root = fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let visited = Visited::new(HashSet::from([canonical_root.clone()]));
    let auto_memory = auto_memory_place(options.home.as_deref());
    let kilo_memory = kilo_memory_place(options.home.as_deref());
    let walk = Walk {
        root,
        canonical_root: &canonical_root,
        options,
        visited: &visited,
        listings,
        auto_memory: auto_memory.as_ref(),
        kilo_memory: kilo_memory.as_ref(),
    };
    let mut top = Vec::new();
    let mut claimed = HashSet::new();
    let mut projects = Vec::new();
    walk.visit(
        PendingFolder {
            dir: root.to_path_buf(),
            real: canonical_root.clone(),
            depth: 0,
            inside_project: false,
        },
        &mut top,
        &mut claimed,
        &mut projects,
    );
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    if threads < 2 || top.len() < PARALLEL_SCAN_MIN {
        projects.extend(walk.run(top, claimed));
    } else {
        // Workers take one top-level folder at a time, so a worker on a busy core does
        // less instead of holding everyone up.
        let queue = parking_lot::Mutex::new(top);
        let next = || queue.lock().pop();
        let found: Vec<Vec<Project>> = std::thread::scope(|scope| {
            let walk = &walk;
            let next = &next;
            let handles: Vec<_> = (0..threads)
                .map(|_| {
                    let claimed = claimed.clone();
                    scope.spawn(move || {
                        let mut found = Vec::new();
                        while let Some(pending) = next() {
                            found.extend(walk.run(vec![pending], claimed.clone()));
                        }
                        found
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                })
                .collect()
        });
        projects.extend(found.into_iter().flatten());
    }
    projects.sort_by(|a, b| a.name.cmp(&b.name));
    projects
}

//! Finding projects under the root from directory listings and metadata alone, so a
//! picker can appear before any file is read.
//!
//! The walk never enters `.git`, `node_modules`, `target`, hidden folders or folders
//! matching the configured ignore globs, never follows a symlink out of the root, and
//! treats every I/O error (permissions, loops, folders vanishing mid-scan) as "skip".
use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use globset::GlobSet;

use super::formats;
use super::listings::{Entry, Kind, Listings};
use super::model::{BankLocation, Format, Project};

/// Folders never descended into, whatever the configuration says.
pub const ALWAYS_SKIPPED: [&str; 6] = [
    ".git",
    "node_modules",
    "target",
    ".venv",
    "__pycache__",
    ".hg",
];

#[derive(Debug, Clone)]
pub struct ScanOptions {
    /// How many folder levels below the root may hold a project (the root itself is 0).
    pub depth: usize,
    /// Extra globs (matched against paths relative to the root and against folder names).
    pub ignore: GlobSet,
}

impl Default for ScanOptions {
    fn default() -> Self {
        ScanOptions {
            depth: 2,
            ignore: GlobSet::empty(),
        }
    }
}

/// What a folder's own listing says about the memory it holds.
#[derive(Debug, Default)]
struct Markers {
    banks: Vec<BankLocation>,
    last_write: Option<SystemTime>,
}

impl Markers {
    fn add(&mut self, format: Format, root: PathBuf, modified: Option<SystemTime>) {
        if !self
            .banks
            .iter()
            .any(|b| b.format == format && b.root == root)
        {
            self.banks.push(BankLocation { format, root });
        }
        self.touch(modified);
    }

    fn touch(&mut self, modified: Option<SystemTime>) {
        if let Some(m) = modified {
            self.last_write = Some(self.last_write.map_or(m, |old| old.max(m)));
        }
    }

    /// A folder holding only instruction files (CLAUDE.md …) inside another project is a
    /// just-in-time layer of that project, not a project of its own.
    fn has_memory_folder(&self) -> bool {
        self.banks.iter().any(|b| !b.format.is_hierarchical())
    }
}

/// True when `memory-bank/` uses Memory Bank MCP / Roo kebab-case names.
fn looks_kebab_case(listings: &Listings, bank: &Path) -> bool {
    const KEBAB: [&str; 6] = [
        "active-context.md",
        "product-context.md",
        "decision-log.md",
        "system-patterns.md",
        "project-brief.md",
        "tech-context.md",
    ];
    const CAMEL: [&str; 7] = [
        "activeContext.md",
        "productContext.md",
        "decisionLog.md",
        "systemPatterns.md",
        "projectBrief.md",
        "projectbrief.md",
        "techContext.md",
    ];
    let Ok(entries) = listings.list(bank) else {
        return false;
    };
    let (mut kebab, mut camel) = (0, 0);
    for entry in entries.iter() {
        let Some(name) = entry.name.to_str() else {
            continue;
        };
        if KEBAB.contains(&name) {
            kebab += 1;
        } else if CAMEL.contains(&name) {
            camel += 1;
        }
    }
    kebab > camel
}

/// Reads one folder's listing and recognises every memory format it holds.
fn markers_of(listings: &Listings, dir: &Path) -> Markers {
    match listings.list(dir) {
        Ok(entries) => markers_in(listings, dir, &entries),
        Err(_) => Markers::default(),
    }
}

/// Recognises every memory format in a folder from its listing; only the markers found
/// are looked at more closely, and sub-folder markers (`.claude/memory`) are answered
/// from the listing of their parent.
fn markers_in(listings: &Listings, dir: &Path, entries: &[Entry]) -> Markers {
    let mut markers = Markers::default();
    let has = |n: &str| entries.iter().any(|e| e.name == n);
    let modified = |path: &Path| listings.modified(path);
    // Banks are listed right after discovery: one `stat` serves both.
    let bank_modified = |path: &Path| listings.folder_modified(path);

    for entry in entries {
        let Some(name) = entry.name.to_str() else {
            continue;
        };
        let path = || dir.join(name);
        match name {
            "memory-bank" if entry.is_dir(dir) => {
                let path = path();
                let format = if looks_kebab_case(listings, &path) {
                    Format::MemoryBankMcp
                } else {
                    Format::Cline
                };
                let when = modified(&path);
                markers.add(format, path, when);
            }
            n if formats::DOCUMENT_BANK_DIRS.contains(&n) && entry.is_dir(dir) => {
                let path = path();
                let when = bank_modified(&path);
                markers.add(Format::MemoryBankMcp, path, when)
            }
            "CLAUDE.md" | "CLAUDE.local.md" => {
                markers.add(Format::ClaudeMd, dir.to_path_buf(), modified(&path()))
            }
            "AGENTS.md" => markers.add(Format::AgentsMd, dir.to_path_buf(), modified(&path())),
            "GEMINI.md" => markers.add(Format::GeminiMd, dir.to_path_buf(), modified(&path())),
            "BEANS.md" | "BEANS.local.md" | ".beans" => {
                markers.add(Format::BeansMd, dir.to_path_buf(), modified(&path()))
            }
            ".roomodes" | ".roo" | ".clinerules" => {
                markers.add(Format::RooRules, dir.to_path_buf(), modified(&path()))
            }
            n if n.starts_with(".clinerules-") || n.starts_with(".roorules-") => {
                markers.add(Format::RooRules, dir.to_path_buf(), modified(&path()))
            }
            _ => {}
        }
    }
    if has(".cursor") {
        let cursor = dir.join(".cursor");
        if listings.is_dir(&cursor, "memory-bank") {
            let bank = cursor.join("memory-bank");
            markers.add(Format::Cline, bank.clone(), bank_modified(&bank));
        }
    }
    if has(".claude") {
        let claude = dir.join(".claude");
        if listings.is_dir(&claude, "memory") {
            let memory = claude.join("memory");
            markers.add(Format::ConKeeper, memory.clone(), bank_modified(&memory));
        }
        for marker in ["CLAUDE.md", "CLAUDE.local.md", "rules"] {
            if !listings.exists(&claude, marker) {
                continue;
            }
            let path = claude.join(marker);
            let when = if listings.is_dir(&claude, marker) {
                bank_modified(&path)
            } else {
                match fs::metadata(&path) {
                    Ok(meta) => meta.modified().ok(),
                    // A dangling symlink is no marker.
                    Err(_) => continue,
                }
            };
            markers.add(Format::ClaudeMd, dir.to_path_buf(), when);
        }
    }
    if has("docs") {
        // memory-bank-mcp-server keeps its document banks under docs/ by default.
        let docs = dir.join("docs");
        for name in formats::DOCUMENT_BANK_DIRS {
            if listings.is_dir(&docs, name) {
                let bank = docs.join(name);
                markers.add(Format::MemoryBankMcp, bank.clone(), bank_modified(&bank));
            }
        }
    }
    if has(".ai") {
        let ai = dir.join(".ai");
        if listings.is_dir(&ai, "memory") {
            let memory = ai.join("memory");
            markers.add(Format::ConKeeper, memory.clone(), bank_modified(&memory));
        }
    }
    if has(".infinity") {
        let infinity = dir.join(".infinity");
        if listings.exists(&infinity, "memories.json")
            && let Ok(meta) = fs::metadata(infinity.join("memories.json"))
            && meta.is_file()
        {
            markers.add(Format::Infinity, infinity, meta.modified().ok());
        }
    }
    markers.banks.sort_by_key(|b| b.format);
    markers
}

/// Folders the walk never enters, by name alone: hidden, vendored, build output, and
/// banks themselves.
fn is_skipped_name(name: &str) -> bool {
    name.starts_with('.')
        || ALWAYS_SKIPPED.contains(&name)
        || name == "memory-bank"
        || formats::DOCUMENT_BANK_DIRS.contains(&name)
}

/// Whether the walk may enter this folder.
fn may_descend(name: &str, rel: &Path, options: &ScanOptions) -> bool {
    !(is_skipped_name(name) || options.ignore.is_match(name) || options.ignore.is_match(rel))
}

/// Recognises one folder as a project, whatever its depth (used for folders named on the
/// command line). `None` when it holds no memory format.
pub fn project_at(path: &Path, name: String) -> Option<Project> {
    project_at_with(&Listings::in_memory(), path, name)
}

/// [`project_at`] with listings shared with the rest of the run.
pub fn project_at_with(listings: &Listings, path: &Path, name: String) -> Option<Project> {
    let markers = markers_of(listings, path);
    (!markers.banks.is_empty()).then(|| Project {
        name,
        path: path.to_path_buf(),
        banks: markers.banks,
        last_write: markers.last_write,
    })
}

/// A folder waiting to be scanned.
struct Pending {
    dir: PathBuf,
    /// Its real path: the root's canonical path plus real folder names, or a resolved
    /// symlink. Carried along so the walk never calls `canonicalize` per folder.
    real: PathBuf,
    depth: usize,
    inside_project: bool,
}

/// Folders reached through more than one path (symlinks), shared by the walkers.
type Visited = std::sync::Mutex<HashSet<PathBuf>>;

/// What one walker needs to know about the whole scan.
struct Walk<'a> {
    root: &'a Path,
    canonical_root: &'a Path,
    options: &'a ScanOptions,
    visited: &'a Visited,
    listings: &'a Listings,
}

impl Walk<'_> {
    /// First visit of a real folder? (A poisoned lock only means another walker
    /// panicked; its set is still valid.)
    fn first_visit(&self, real: PathBuf) -> bool {
        let mut visited = self
            .visited
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        visited.insert(real)
    }

    /// Scans `stack` depth-first; returns the projects found and pushes nothing outside.
    /// `claimed` holds bank folders already reported by an enclosing project
    /// (docs/global-memory-bank), which only matters below that project.
    fn run(&self, mut stack: Vec<Pending>, mut claimed: HashSet<PathBuf>) -> Vec<Project> {
        let mut projects = Vec::new();
        while let Some(pending) = stack.pop() {
            self.visit(pending, &mut stack, &mut claimed, &mut projects);
        }
        projects
    }

    fn visit(
        &self,
        pending: Pending,
        stack: &mut Vec<Pending>,
        claimed: &mut HashSet<PathBuf>,
        projects: &mut Vec<Project>,
    ) {
        let Pending {
            dir,
            real,
            depth,
            inside_project,
        } = pending;
        let Ok(entries) = self.listings.list(&dir) else {
            return;
        };
        let mut markers = markers_in(self.listings, &dir, &entries);
        markers.banks.retain(|b| !claimed.contains(&b.root));
        let is_project = if inside_project {
            markers.has_memory_folder()
        } else {
            !markers.banks.is_empty()
        };
        if is_project {
            claimed.extend(markers.banks.iter().map(|b| b.root.clone()));
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
            let rel = super::paths::relative_to(&path, self.root).unwrap_or(&path);
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
            stack.push(Pending {
                dir: path,
                real: real_path,
                depth: depth + 1,
                inside_project: inside_project || is_project,
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
    let walk = Walk {
        root,
        canonical_root: &canonical_root,
        options,
        visited: &visited,
        listings,
    };
    let mut top = Vec::new();
    let mut claimed = HashSet::new();
    let mut projects = Vec::new();
    walk.visit(
        Pending {
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
        let queue = std::sync::Mutex::new(top);
        let next = || {
            queue
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .pop()
        };
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

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(path: &Path) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, "# x\n").unwrap();
    }

    #[test]
    fn finds_every_format_and_reports_each_bank() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        touch(&r.join("cline/memory-bank/projectbrief.md"));
        touch(&r.join("mcp/memory-bank/active-context.md"));
        touch(&r.join("mcp/memory-bank/product-context.md"));
        touch(&r.join("multi/CLAUDE.md"));
        touch(&r.join("multi/AGENTS.md"));
        touch(&r.join("multi/.claude/memory/active-context.md"));
        touch(&r.join("inf/.infinity/memories.json"));
        touch(&r.join("roo/.clinerules-code"));
        touch(&r.join("cursor/.cursor/memory-bank/activeContext.md"));
        touch(&r.join("plain/README.md"));
        touch(&r.join("docbanks/docs/global-memory-bank/core/glossary.json"));
        touch(&r.join("docbanks/docs/branch-memory-bank/feature-x/activeContext.json"));
        let projects = scan(r, &ScanOptions::default());
        let summary: Vec<(String, Vec<Format>)> = projects
            .iter()
            .map(|p| (p.name.clone(), p.formats()))
            .collect();
        assert_eq!(
            summary,
            vec![
                ("cline".into(), vec![Format::Cline]),
                ("cursor".into(), vec![Format::Cline]),
                ("docbanks".into(), vec![Format::MemoryBankMcp]),
                ("inf".into(), vec![Format::Infinity]),
                ("mcp".into(), vec![Format::MemoryBankMcp]),
                (
                    "multi".into(),
                    vec![Format::ClaudeMd, Format::AgentsMd, Format::ConKeeper]
                ),
                ("roo".into(), vec![Format::RooRules]),
            ]
        );
    }

    #[test]
    fn respects_depth_and_skips_ignored_folders() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        touch(&r.join("a/b/memory-bank/progress.md"));
        touch(&r.join("a/b/c/memory-bank/progress.md"));
        touch(&r.join("node_modules/x/memory-bank/progress.md"));
        touch(&r.join("skipme/memory-bank/progress.md"));
        let mut builder = globset::GlobSetBuilder::new();
        builder.add(globset::Glob::new("skip*").unwrap());
        let options = ScanOptions {
            depth: 2,
            ignore: builder.build().unwrap(),
        };
        let names: Vec<String> = scan(r, &options).into_iter().map(|p| p.name).collect();
        assert_eq!(names, vec!["a/b".to_string()]);
    }

    #[test]
    fn nested_instruction_files_belong_to_their_project() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        touch(&r.join("p/CLAUDE.md"));
        touch(&r.join("p/sub/CLAUDE.md"));
        touch(&r.join("p/nested/memory-bank/progress.md"));
        let names: Vec<String> = scan(r, &ScanOptions::default())
            .into_iter()
            .map(|p| p.name)
            .collect();
        assert_eq!(names, vec!["p".to_string(), "p/nested".to_string()]);
    }

    #[test]
    fn large_roots_scanned_in_parallel_find_everything_once() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        let mut wanted = Vec::new();
        for n in 0..150 {
            let name = format!("p{n:03}");
            touch(&r.join(&name).join("memory-bank/progress.md"));
            // Nested projects and plain folders at depth 2 too.
            if n % 10 == 0 {
                touch(&r.join(&name).join("sub/memory-bank/progress.md"));
                wanted.push(format!("{name}/sub"));
            }
            touch(&r.join(&name).join("src/main.rs"));
            wanted.push(name);
        }
        #[cfg(unix)]
        std::os::unix::fs::symlink(r.join("p000"), r.join("alias")).unwrap();
        wanted.sort();
        // The alias of p000 is not a second project.
        let names: Vec<String> = scan(r, &ScanOptions::default())
            .into_iter()
            .map(|p| p.name)
            .collect();
        assert_eq!(names, wanted);
    }

    #[cfg(unix)]
    #[test]
    fn survives_symlink_loops_and_never_leaves_the_root() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let r = root.path();
        touch(&r.join("p/memory-bank/progress.md"));
        touch(&outside.path().join("o/memory-bank/progress.md"));
        std::os::unix::fs::symlink(r, r.join("p/loop")).unwrap();
        std::os::unix::fs::symlink(outside.path(), r.join("escape")).unwrap();
        let names: Vec<String> = scan(
            r,
            &ScanOptions {
                depth: 6,
                ..Default::default()
            },
        )
        .into_iter()
        .map(|p| p.name)
        .collect();
        assert_eq!(names, vec!["p".to_string()]);
    }
}

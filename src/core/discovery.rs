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

fn modified(path: &Path) -> Option<SystemTime> {
    fs::metadata(path).and_then(|m| m.modified()).ok()
}

fn is_dir(path: &Path) -> bool {
    fs::metadata(path).map(|m| m.is_dir()).unwrap_or(false)
}

/// True when `memory-bank/` uses Memory Bank MCP / Roo kebab-case names.
fn looks_kebab_case(bank: &Path) -> bool {
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
    let Ok(entries) = fs::read_dir(bank) else {
        return false;
    };
    let names: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let kebab = names.iter().filter(|n| KEBAB.contains(&n.as_str())).count();
    let camel = names.iter().filter(|n| CAMEL.contains(&n.as_str())).count();
    kebab > camel
}

/// Reads one folder's listing and recognises every memory format it holds.
fn markers_of(dir: &Path) -> Markers {
    let Ok(entries) = fs::read_dir(dir) else {
        return Markers::default();
    };
    let names: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    markers_in(dir, &names)
}

/// Recognises the memory formats of a folder whose listing is `names`.
fn markers_in(dir: &Path, names: &[String]) -> Markers {
    let mut markers = Markers::default();
    let has = |n: &str| names.iter().any(|x| x == n);

    for name in names {
        let path = dir.join(name);
        match name.as_str() {
            "memory-bank" if is_dir(&path) => {
                let format = if looks_kebab_case(&path) {
                    Format::MemoryBankMcp
                } else {
                    Format::Cline
                };
                markers.add(format, path.clone(), modified(&path));
            }
            n if formats::DOCUMENT_BANK_DIRS.contains(&n) && is_dir(&path) => {
                markers.add(Format::MemoryBankMcp, path.clone(), modified(&path))
            }
            "CLAUDE.md" | "CLAUDE.local.md" => {
                markers.add(Format::ClaudeMd, dir.to_path_buf(), modified(&path))
            }
            "AGENTS.md" => markers.add(Format::AgentsMd, dir.to_path_buf(), modified(&path)),
            "GEMINI.md" => markers.add(Format::GeminiMd, dir.to_path_buf(), modified(&path)),
            "BEANS.md" | "BEANS.local.md" | ".beans" => {
                markers.add(Format::BeansMd, dir.to_path_buf(), modified(&path))
            }
            ".roomodes" | ".roo" | ".clinerules" => {
                markers.add(Format::RooRules, dir.to_path_buf(), modified(&path))
            }
            n if n.starts_with(".clinerules-") || n.starts_with(".roorules-") => {
                markers.add(Format::RooRules, dir.to_path_buf(), modified(&path))
            }
            _ => {}
        }
    }
    if has(".cursor") {
        let bank = dir.join(".cursor").join("memory-bank");
        if is_dir(&bank) {
            markers.add(Format::Cline, bank.clone(), modified(&bank));
        }
    }
    if has(".claude") {
        let claude = dir.join(".claude");
        let memory = claude.join("memory");
        if is_dir(&memory) {
            markers.add(Format::ConKeeper, memory.clone(), modified(&memory));
        }
        for marker in ["CLAUDE.md", "CLAUDE.local.md", "rules"] {
            let p = claude.join(marker);
            if p.exists() {
                markers.add(Format::ClaudeMd, dir.to_path_buf(), modified(&p));
            }
        }
    }
    if has("docs") {
        // memory-bank-mcp-server keeps its document banks under docs/ by default.
        for name in formats::DOCUMENT_BANK_DIRS {
            let bank = dir.join("docs").join(name);
            if is_dir(&bank) {
                markers.add(Format::MemoryBankMcp, bank.clone(), modified(&bank));
            }
        }
    }
    if has(".ai") {
        let memory = dir.join(".ai").join("memory");
        if is_dir(&memory) {
            markers.add(Format::ConKeeper, memory.clone(), modified(&memory));
        }
    }
    if has(".infinity") {
        let store = dir.join(".infinity").join("memories.json");
        if store.is_file() {
            markers.add(Format::Infinity, dir.join(".infinity"), modified(&store));
        }
    }
    markers.banks.sort_by_key(|b| b.format);
    markers
}

/// Whether the walk may enter this folder.
fn may_descend(name: &str, rel: &Path, options: &ScanOptions) -> bool {
    if name.starts_with('.')
        || ALWAYS_SKIPPED.contains(&name)
        || name == "memory-bank"
        || formats::DOCUMENT_BANK_DIRS.contains(&name)
    {
        return false;
    }
    !(options.ignore.is_match(name) || options.ignore.is_match(rel))
}

/// Recognises one folder as a project, whatever its depth (used for folders named on the
/// command line). `None` when it holds no memory format.
pub fn project_at(path: &Path, name: String) -> Option<Project> {
    let markers = markers_of(path);
    (!markers.banks.is_empty()).then(|| Project {
        name,
        path: path.to_path_buf(),
        banks: markers.banks,
        last_write: markers.last_write,
    })
}

/// A folder's identity on disk (device and inode), following symlinks.
#[cfg(unix)]
fn folder_id(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// A folder's identity on disk: its resolved path where inodes are not at hand.
#[cfg(not(unix))]
fn folder_id(path: &Path) -> Option<PathBuf> {
    fs::canonicalize(path).ok()
}

/// Walks the root to `options.depth` and returns every project found, sorted by name.
pub fn scan(root: &Path, options: &ScanOptions) -> Vec<Project> {
    let canonical_root = fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let mut projects = Vec::new();
    // Folders entered, by (device, inode): one stat per folder instead of a full path
    // resolution (canonicalize costs a readlink per path component, ~20,000 of them on
    // a 2,000-project root), and the same loop protection.
    let mut visited = HashSet::new();
    if let Some(id) = folder_id(root) {
        visited.insert(id);
    }
    // Bank folders already reported by an enclosing project (docs/global-memory-bank).
    let mut claimed: HashSet<PathBuf> = HashSet::new();
    let mut stack = vec![(root.to_path_buf(), 0usize, false)];
    while let Some((dir, depth, inside_project)) = stack.pop() {
        // One listing per folder serves both the format markers and the walk.
        let entries: Vec<fs::DirEntry> = match fs::read_dir(&dir) {
            Ok(entries) => entries.flatten().collect(),
            Err(_) => Vec::new(),
        };
        let names: Vec<String> = entries
            .iter()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        let mut markers = markers_in(&dir, &names);
        markers.banks.retain(|b| !claimed.contains(&b.root));
        let is_project = if inside_project {
            markers.has_memory_folder()
        } else {
            !markers.banks.is_empty()
        };
        if is_project {
            claimed.extend(markers.banks.iter().map(|b| b.root.clone()));
            let rel = dir.strip_prefix(root).unwrap_or(&dir);
            let name = if rel.as_os_str().is_empty() {
                root.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| root.display().to_string())
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
        if depth >= options.depth {
            continue;
        }
        for (entry, name) in entries.iter().zip(names) {
            let path = entry.path();
            let rel = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
            if !may_descend(&name, &rel, options) {
                continue;
            }
            let Ok(file_type) = entry.file_type() else {
                continue;
            };
            if file_type.is_symlink() {
                // Follow a link only when it stays inside the root and was not seen before.
                let Ok(target) = fs::canonicalize(&path) else {
                    continue;
                };
                if !target.starts_with(&canonical_root) || !target.is_dir() {
                    continue;
                }
                match folder_id(&target) {
                    Some(id) if !visited.insert(id) => continue,
                    _ => {}
                }
            } else if !file_type.is_dir() {
                continue;
            } else if let Some(id) = folder_id(&path)
                && !visited.insert(id)
            {
                continue;
            }
            stack.push((path, depth + 1, inside_project || is_project));
        }
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

//! Memory files that are links to another memory file: one text, checked once.
use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::MemoryDoc;

/// The memory files that are links to another one of `docs` (`CLAUDE.md` and
/// `GEMINI.md` → `AGENTS.md`), or to a file an earlier link of them already stands for:
/// the same text makes the same claims, checked and reported once, on the file itself.
/// Only links are resolved, one `lstat` per file.
pub(super) fn aliases<'d>(project: &Path, docs: &[MemoryDoc<'d>]) -> HashSet<&'d Path> {
    let is_link = |path: &Path| {
        std::fs::symlink_metadata(path).is_ok_and(|meta| meta.file_type().is_symlink())
    };
    let links: Vec<&Path> = docs.iter().map(|d| d.path).filter(|p| is_link(p)).collect();
    if links.is_empty() {
        return HashSet::new();
    }
    let real_project = std::fs::canonicalize(project).unwrap_or_else(|_| project.to_path_buf());
    let listed: HashSet<&Path> = docs.iter().map(|d| d.path).collect();
    let mut stood_for: HashSet<PathBuf> = HashSet::new();
    let mut out = HashSet::new();
    for link in links {
        let Ok(real) = std::fs::canonicalize(link) else {
            continue;
        };
        // The target as the project lists it, when it lies inside the project.
        let as_listed = real
            .strip_prefix(&real_project)
            .map(|rel| project.join(rel))
            .ok();
        let target_listed = as_listed
            .as_deref()
            .is_some_and(|target| target != link && listed.contains(target));
        if target_listed || !stood_for.insert(real) {
            out.insert(link);
        }
    }
    out
}

//! Claude Code's auto memory: the notes Claude Code writes for itself in
//! `~/.claude/projects/<project folder name>/memory/`. `MEMORY.md` is the index: its first
//! 200 lines or 25 KB (whichever comes first) load at every session start; the rest of it
//! and the topic files beside it (`debugging.md`, …) are read on demand.
//!
//! The folder name is the project's absolute path with every character that is not an
//! ASCII letter or digit replaced by `-` (Claude Code's `[^a-zA-Z0-9]` replacement, one
//! `-` per UTF-16 unit). The encoding loses information, so mbank never decodes a folder
//! name: it encodes each project's path and looks for that folder.
//!
//! The bank lives in the home folder, which is its allowed root: a link out of it is
//! refused like a link out of a project. mbank never writes there.
use std::path::{Path, PathBuf};

use super::{Budget, FormatRules, Placement, split_rel};
use crate::core::analysis::budgets::Unit;
use crate::core::model::{Format, LoadKind, MemoryFile, Role};

/// Claude Code loads only this many lines of `MEMORY.md`…
pub const MAX_LINES: u64 = 200;
/// …and at most this many bytes of it, whichever limit comes first.
pub const MAX_BYTES: u64 = 25 * 1024;
/// The index file, loaded (cut) at session start.
pub const INDEX: &str = "MEMORY.md";
/// Where the project folders sit, below the home folder.
pub const PROJECTS_DIR: &str = ".claude/projects";

/// Claude Code's folder name for a project path.
pub fn project_folder_name(project: &Path) -> String {
    let mut name = String::new();
    for c in project.to_string_lossy().chars() {
        if c.is_ascii_alphanumeric() {
            name.push(c);
        } else {
            // JavaScript replaces per UTF-16 unit: a character outside the BMP gives two.
            for _ in 0..c.len_utf16() {
                name.push('-');
            }
        }
    }
    name
}

/// The auto memory folder of a project, whether or not it exists.
pub fn memory_folder(home: &Path, project: &Path) -> PathBuf {
    home.join(PROJECTS_DIR)
        .join(project_folder_name(project))
        .join("memory")
}

/// The home folder of an auto memory folder (`<home>/.claude/projects/<name>/memory`).
pub fn home_of(memory_folder: &Path) -> Option<&Path> {
    memory_folder.ancestors().nth(4)
}

/// The project's auto memory folder when it exists: under the path as given, else under
/// its real path (Claude Code names the folder after the path it was started in).
pub fn find_memory_folder(home: &Path, project: &Path) -> Option<PathBuf> {
    // Most homes hold no auto memory at all: one look per project, no path resolving.
    if !home.join(PROJECTS_DIR).is_dir() {
        return None;
    }
    let given = memory_folder(home, project);
    if given.is_dir() {
        return Some(given);
    }
    let real = std::fs::canonicalize(project).ok()?;
    let real_folder = memory_folder(home, &real);
    (real != project && real_folder.is_dir()).then_some(real_folder)
}

pub struct ClaudeAutoMemory;

impl FormatRules for ClaudeAutoMemory {
    fn format(&self) -> Format {
        Format::ClaudeAutoMemory
    }

    fn place(&self, rel: &Path) -> Placement {
        let (file_name, parents) = split_rel(rel);
        let is_md = file_name.ends_with(".md");
        let (role, layer, group, load) = if parents.is_empty() && file_name == INDEX {
            (Role::Active, Some(1), None, LoadKind::Startup)
        } else if is_md {
            (
                Role::Other,
                Some(2),
                Some("topics".into()),
                LoadKind::OnDemand,
            )
        } else {
            (Role::Other, None, None, LoadKind::Never)
        };
        Placement {
            role,
            layer,
            group,
            load,
        }
    }

    fn keeps(&self, rel: &Path) -> bool {
        rel.extension().is_some_and(|e| e == "md")
    }

    fn file_budgets(&self, file: &MemoryFile, _preset: Option<&str>) -> Vec<Budget> {
        if file.load != LoadKind::Startup || file.file_name() != INDEX {
            return Vec::new();
        }
        vec![
            Budget::new(
                "auto memory loads only the first 200 lines",
                "Claude Code auto memory",
                Unit::Lines,
                MAX_LINES,
            )
            .cutting_off(),
            Budget::new(
                "auto memory loads only the first 25 KB",
                "Claude Code auto memory",
                Unit::Bytes,
                MAX_BYTES,
            )
            .cutting_off(),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_names_replace_every_non_alphanumeric_character() {
        assert_eq!(
            project_folder_name(Path::new("/Users/me/my_app.v2/web site")),
            "-Users-me-my-app-v2-web-site"
        );
        // Non-ASCII letters too, one dash per UTF-16 unit.
        assert_eq!(project_folder_name(Path::new("/p/Проект")), "-p-------");
        assert_eq!(project_folder_name(Path::new("/p/🦀")), "-p---");
        let folder = memory_folder(Path::new("/home/me"), Path::new("/w/app"));
        assert_eq!(folder, Path::new("/home/me/.claude/projects/-w-app/memory"));
        assert_eq!(home_of(&folder), Some(Path::new("/home/me")));
    }

    #[test]
    fn memory_md_loads_at_start_and_topic_files_on_demand() {
        let index = ClaudeAutoMemory.place(Path::new("MEMORY.md"));
        assert_eq!((index.layer, index.load), (Some(1), LoadKind::Startup));
        let topic = ClaudeAutoMemory.place(Path::new("debugging.md"));
        assert_eq!(topic.load, LoadKind::OnDemand);
        let nested = ClaudeAutoMemory.place(Path::new("old/MEMORY.md"));
        assert_eq!(nested.load, LoadKind::OnDemand);
    }
}

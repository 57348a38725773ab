//! The folders a project's memory lives in, for a watcher that must see every write to it
//! without watching whole trees: the project folder, each bank's root, the folders under
//! a bank that is a folder of files (Cline, Memory Bank MCP, ConKeeper: empty ones too, so
//! the first file an agent puts in `sessions/` is seen), and the folder of every memory
//! file listed elsewhere (`.claude/rules/`, nested `CLAUDE.md`, `.infinity/`) and of
//! every decision log the memory points to (`docs/decisions.md`).
//!
//! The walk reads folders only (no file is opened), never follows a symlink, skips
//! `.git`, and is bounded in depth and count like the bank listing.
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use crate::analysis::report::ProjectReport;
use crate::model::{Format, Project};

/// How deep the walk goes below a bank's root (the bank listing's own bound).
const MAX_DEPTH: usize = 6;
/// At most this many folders per bank.
const MAX_FOLDERS_PER_BANK: usize = 256;

/// The memory folders of `project`, the project folder first, then its banks' roots, then
/// the rest in path order; `report` (when there is one) adds the folder of every file it
/// lists.
pub fn of(project: &Project, report: Option<&ProjectReport>) -> Vec<PathBuf> {
    let mut first = vec![project.path.clone()];
    for bank in &project.banks {
        if !first.contains(&bank.root) {
            first.push(bank.root.clone());
        }
    }
    let mut rest = BTreeSet::new();
    for bank in &project.banks {
        if is_folder_of_files(bank.format) && bank.root.starts_with(&project.path) {
            let mut budget = MAX_FOLDERS_PER_BANK;
            walk(&bank.root, 0, &mut budget, &mut rest);
        }
    }
    if let Some(report) = report {
        // The logs and records the memory points to are files of no bank.
        let files = report
            .banks
            .iter()
            .flat_map(|b| &b.files)
            .map(|f| &f.file.path);
        for path in files.chain(report.decisions.iter().map(|d| &d.file)) {
            if let Some(parent) = path.parent()
                && parent.starts_with(&project.path)
            {
                rest.insert(parent.to_path_buf());
            }
        }
    }
    rest.retain(|folder| !first.contains(folder));
    first.extend(rest);
    first
}

/// Banks whose every file lives in one folder tree.
fn is_folder_of_files(format: Format) -> bool {
    crate::formats::rules(format).is_memory_folder()
}

fn walk(dir: &Path, depth: usize, budget: &mut usize, out: &mut BTreeSet<PathBuf>) {
    if depth >= MAX_DEPTH {
        return;
    }
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut folders: Vec<PathBuf> = entries
        .flatten()
        // The entry's own type: a symlink to a folder is not entered.
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()) && e.file_name() != ".git")
        .map(|e| e.path())
        .collect();
    folders.sort();
    for folder in folders {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        out.insert(folder.clone());
        walk(&folder, depth + 1, budget, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::discovery;

    fn analyze(
        project: &crate::model::Project,
        depth: crate::analysis::report::Depth,
    ) -> crate::analysis::report::ProjectReport {
        crate::analysis::report::Analyzer::new(
            &crate::config::Config::default(),
            crate::tokens::Encoding::O200k,
            crate::tokens::TokenCache::in_memory(crate::tokens::Encoding::O200k),
            &crate::clock::Clock::fixed_on(2026, 11, 28).unwrap(),
        )
        .analyze(project, depth)
    }

    fn write(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    #[test]
    fn a_bank_folder_and_its_sub_folders_empty_ones_too_but_not_git_or_links() {
        let dir = tempfile::tempdir().unwrap();
        let memory = dir.path().join(".claude/memory");
        write(&memory.join("active-context.md"), "# a\n");
        write(&memory.join("decisions/ADR-001-x.md"), "# ADR-001: x\n");
        fs::create_dir_all(memory.join("sessions")).unwrap();
        fs::create_dir_all(memory.join(".git/objects")).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(dir.path(), memory.join("loop")).unwrap();
        let project = discovery::project_at(dir.path(), "p".into()).unwrap();
        let folders = of(&project, None);
        assert_eq!(folders[0], dir.path());
        assert!(folders.contains(&memory));
        assert!(folders.contains(&memory.join("decisions")));
        assert!(folders.contains(&memory.join("sessions")));
        assert!(
            !folders
                .iter()
                .any(|f| f.ends_with(".git") || f.ends_with("objects"))
        );
        assert!(!folders.contains(&memory.join("loop")));
        let unique: BTreeSet<&PathBuf> = folders.iter().collect();
        assert_eq!(unique.len(), folders.len(), "{folders:?}");
    }

    #[test]
    fn instruction_files_add_their_folders_from_the_report() {
        let dir = tempfile::tempdir().unwrap();
        write(&dir.path().join("CLAUDE.md"), "# Project\n");
        write(&dir.path().join(".claude/rules/rust.md"), "# Rust\n");
        write(&dir.path().join("src/unrelated.rs"), "fn main() {}\n");
        let project = discovery::project_at(dir.path(), "p".into()).unwrap();
        let report = analyze(&project, crate::analysis::report::Depth::default());
        let folders = of(&project, Some(&report));
        assert!(
            folders.contains(&dir.path().join(".claude/rules")),
            "{folders:?}"
        );
        assert!(!folders.contains(&dir.path().join("src")), "{folders:?}");
    }

    #[test]
    fn a_decision_log_the_memory_points_to_is_in_the_timeline_and_watched() {
        let dir = tempfile::tempdir().unwrap();
        write(
            &dir.path().join("CLAUDE.md"),
            "# Project\n\n@docs/ai/decisions.md\n",
        );
        write(
            &dir.path().join("docs/ai/decisions.md"),
            "# Decisions\n\n## 2025-04-02: Keep one binary\n**Decision**: one binary.\n",
        );
        let project = discovery::project_at(dir.path(), "p".into()).unwrap();
        let report = analyze(&project, crate::analysis::report::Depth::full());
        let titles: Vec<(&str, &str)> = report
            .decisions
            .iter()
            .map(|d| (d.display.as_str(), d.title.as_str()))
            .collect();
        assert_eq!(titles, [("docs/ai/decisions.md", "Keep one binary")]);
        let folders = of(&project, Some(&report));
        assert!(folders.contains(&dir.path().join("docs/ai")), "{folders:?}");
    }
}

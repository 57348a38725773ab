//! Files a bank holds in the project's sub-folders, a few levels down: nested
//! instruction files, nested rule folders, and entries read only at the workspace root
//! left in a sub-folder (`.clinerules`).
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use super::{Admit, Lister, kind_of};
use crate::formats;
use crate::scan::discovery::{ALWAYS_SKIPPED, MAX_NESTED_DEPTH};
use crate::scan::listings::Kind;

/// Finds `sub/**/CLAUDE.md` (etc.) below the project, skipping hidden, vendored and
/// memory folders, to `MAX_NESTED_DEPTH` levels. Each folder's listing answers whether
/// it holds the file; only real folders are entered, and a file that is a symlink must
/// stay inside the project.
pub(super) fn nested_instruction_files(lister: &mut Lister<'_>, dir: &Path, file_name: &str) {
    for sub in nested_folders(lister, dir) {
        lister.push_child_if_file(&sub, file_name);
    }
}

/// The sub-folders of `dir` that may hold nested instruction files or rule folders, to
/// `MAX_NESTED_DEPTH` levels: not hidden, not dependencies or build output, not a memory
/// bank. Each folder comes before its own sub-folders, names sorted, so files are listed
/// in the order a reader of the tree meets them.
fn nested_folders(lister: &Lister<'_>, dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    // A stack of (folder, depth), sub-folders pushed in reverse so the smallest name pops first.
    let mut pending: Vec<(PathBuf, usize)> = sub_folders(lister, dir)
        .into_iter()
        .rev()
        .map(|sub| (sub, 1))
        .collect();
    while let Some((folder, depth)) = pending.pop() {
        if depth < MAX_NESTED_DEPTH {
            pending.extend(
                sub_folders(lister, &folder)
                    .into_iter()
                    .rev()
                    .map(|sub| (sub, depth + 1)),
            );
        }
        found.push(folder);
    }
    found
}

/// The sub-folders of `dir` that may hold nested instruction files or rule folders: not
/// hidden, not dependencies or build output, not a memory bank; sorted.
fn sub_folders(lister: &Lister<'_>, dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = lister.listings.list(dir) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .iter()
        .filter(|e| e.kind == Kind::Dir)
        .filter(|e| {
            let name = e.name.to_string_lossy();
            !name.starts_with('.')
                && !ALWAYS_SKIPPED.contains(&name.as_ref())
                && name != formats::cline::BANK_DIR
        })
        .map(|e| dir.join(&e.name))
        .collect();
    dirs.sort();
    dirs
}

/// Lists the rule folder `rel` (`.cursor/rules`) wherever it sits in the sub-folders of
/// `dir`, to `MAX_NESTED_DEPTH` levels; every folder on the way is confined.
pub(super) fn nested_rule_folders(lister: &mut Lister<'_>, dir: &Path, rel: &str) {
    for sub in nested_folders(lister, dir) {
        let mut folder = Some(sub);
        for part in rel.split('/') {
            folder = folder.and_then(|f| lister.child_dir(&f, part));
        }
        if let Some(folder) = folder {
            lister.walk(&folder, 1);
        }
    }
}

/// Lists the top-only entry `name` (`.clinerules`, see `FormatRules::top_only_entries`)
/// wherever it sits in the sub-folders of `dir`, to `MAX_NESTED_DEPTH` levels: a file as
/// it is, a folder whole. The format places them as files that never load.
pub(super) fn nested_top_only_entries(lister: &mut Lister<'_>, dir: &Path, name: &str) {
    for sub in nested_folders(lister, dir) {
        if let Some(kind) = kind_of(lister.listings, &sub, OsStr::new(name)) {
            let path = sub.join(name);
            match lister.admit(&path, kind) {
                Admit::Plain if kind == Kind::Dir => lister.walk(&path, 1),
                Admit::Link(real) if real.is_dir() => lister.walk(&path, 1),
                Admit::Plain | Admit::Link(_) => lister.push_if_file(path),
                Admit::Refused => {}
            }
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use std::fs;

    use crate::model::{Format, LoadKind};
    use crate::scan::bank::list_banks;
    use crate::scan::discovery;

    #[test]
    fn a_nested_top_only_entry_is_listed_inside_the_project_only() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let p = dir.path();
        fs::write(outside.path().join("rules.md"), "# Outside\n").unwrap();
        fs::write(p.join("CLAUDE.md"), "# P\n").unwrap();
        fs::create_dir_all(p.join("a/.clinerules")).unwrap();
        fs::write(p.join("a/.clinerules/one.md"), "# One\n").unwrap();
        fs::create_dir_all(p.join("b")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("rules.md"), p.join("b/.clinerules"))
            .unwrap();
        let project = discovery::project_at(p, "p".into()).unwrap();
        let banks = list_banks(&project);
        let rules = banks.iter().find(|b| b.format == Format::RooRules).unwrap();
        let listed: Vec<(&str, LoadKind)> = rules
            .files
            .iter()
            .map(|f| (f.display.as_str(), f.load))
            .collect();
        assert_eq!(listed, [("a/.clinerules/one.md", LoadKind::Never)]);
        let outside_links: Vec<_> = rules.outside.iter().map(|l| l.link.clone()).collect();
        assert_eq!(outside_links, [p.join("b/.clinerules")]);
    }

    #[test]
    fn instruction_files_are_found_as_deep_as_monorepos_keep_them_and_no_deeper() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        fs::create_dir_all(p.join(".git")).unwrap();
        let deep = "apps/web/src/features/billing/ui/CLAUDE.md";
        let too_deep = "a/b/c/d/e/f/g/h/i/CLAUDE.md";
        for rel in [deep, too_deep, "apps/CLAUDE.md"] {
            fs::create_dir_all(p.join(rel).parent().unwrap()).unwrap();
            fs::write(p.join(rel), "# Here\n").unwrap();
        }
        let project = discovery::project_at(p, "p".into()).unwrap();
        let banks = list_banks(&project);
        let listed: Vec<&str> = banks
            .iter()
            .filter(|b| b.format == Format::ClaudeMd)
            .flat_map(|b| b.files.iter().map(|f| f.display.as_str()))
            .collect();
        // Each folder before its sub-folders, as a reader of the tree meets them.
        assert_eq!(listed, ["apps/CLAUDE.md", deep]);
    }
}

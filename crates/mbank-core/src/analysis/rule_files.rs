//! Checks over a bank's rule files as a set: two identical files that both load at
//! session start (the agent reads the same text twice), and Roo rule folders
//! (`.roo/rules-{mode}/`) for a mode that neither Roo Code's built-in modes nor the
//! project's `.roomodes` define (their rules never load).
use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use crate::findings::{Finding, FindingCode, Severity};
use crate::formats::roo_rules::{self, BUILT_IN_MODES as BUILT_IN_ROO_MODES, modes};
use crate::io::text;
use crate::model::{Bank, LoadKind};

/// Largest file compared for duplicates.
const MAX_COMPARED_BYTES: u64 = 1024 * 1024;

/// Both checks, for one bank.
pub fn findings(bank: &Bank) -> Vec<Finding> {
    let mut out = duplicate_findings(bank);
    out.extend(unknown_mode_folders(bank));
    out
}

/// Start-up files of the bank with the same content: one finding per extra copy.
fn duplicate_findings(bank: &Bank) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut by_size: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    for (index, file) in bank.files.iter().enumerate() {
        // Copies of one form in a templates/ folder are what it is for.
        let in_templates = file
            .path
            .strip_prefix(&bank.root)
            .is_ok_and(crate::formats::names::in_templates_folder);
        if file.load == LoadKind::Startup
            && !file.is_virtual()
            && file.size > 0
            && file.size <= MAX_COMPARED_BYTES
            && !in_templates
        {
            by_size.entry(file.size).or_default().push(index);
        }
    }
    for indexes in by_size.values().filter(|v| v.len() > 1) {
        let texts: Vec<(usize, String)> = indexes
            .iter()
            .filter_map(|&i| {
                text::read_text_limited(&bank.files[i].path, MAX_COMPARED_BYTES)
                    .ok()
                    .map(|t| (i, t))
            })
            .collect();
        // Each text's first file is the original, every later one with that text a copy:
        // found by hashing, not by comparing every pair (a bank of many files of one
        // size would make that quadratic). Whitespace alone is no copy of anything.
        let mut first_with: HashMap<&str, usize> = HashMap::new();
        let mut copies: Vec<(usize, usize)> = Vec::new();
        for (position, (_, text)) in texts.iter().enumerate() {
            if text.trim().is_empty() {
                continue;
            }
            match first_with.entry(text.as_str()) {
                Entry::Occupied(first) => copies.push((*first.get(), position)),
                Entry::Vacant(slot) => {
                    slot.insert(position);
                }
            }
        }
        // Reported by original, then copy, in the files' order.
        copies.sort_unstable();
        for (first, second) in copies {
            let (first, first_text) = &texts[first];
            let second = texts[second].0;
            let (original, copy) = (&bank.files[*first], &bank.files[second]);
            out.push(Finding::new(
                Severity::Warning,
                FindingCode::DuplicateLoaded,
                &copy.path,
                None,
                format!(
                    "{} is identical to {} and both load at session start: the agent reads \
                     the same {} twice; keep one",
                    copy.display,
                    original.display,
                    text::counted(first_text.len(), "byte")
                ),
            ));
        }
    }
    out
}

/// `.roo/rules-{mode}/` folders whose mode is neither built in nor in `.roomodes`.
fn unknown_mode_folders(bank: &Bank) -> Vec<Finding> {
    let mut out = Vec::new();
    if !crate::formats::rules(bank.format).holds_mode_rules() {
        return out;
    }
    let custom: Vec<String> = bank
        .files
        .iter()
        .filter(|f| f.path == bank.root.join(roo_rules::ROOMODES))
        .filter_map(|f| text::read_text_limited(&f.path, MAX_COMPARED_BYTES).ok())
        .filter_map(|t| modes::parse_roomodes(&bank.root.join(roo_rules::ROOMODES), &t).ok())
        .flatten()
        .map(|m| m.slug)
        .collect();
    let mut seen: Vec<&str> = Vec::new();
    for file in &bank.files {
        let Ok(rel) = file.path.strip_prefix(&bank.root) else {
            continue;
        };
        let mut parts = rel
            .components()
            .map(|c| c.as_os_str().to_str().unwrap_or_default());
        let (Some(roo_rules::ROO_DIR), Some(folder)) = (parts.next(), parts.next()) else {
            continue;
        };
        let Some(mode) = folder.strip_prefix("rules-").filter(|m| !m.is_empty()) else {
            continue;
        };
        if rel.components().count() < 3
            || seen.contains(&folder)
            || BUILT_IN_ROO_MODES.contains(&mode)
            || custom.iter().any(|c| c == mode)
        {
            continue;
        }
        seen.push(folder);
        let shown = Path::new(roo_rules::ROO_DIR).join(folder);
        out.push(Finding::new(
            Severity::Warning,
            FindingCode::UnknownModeRules,
            bank.root.join(&shown),
            None,
            format!(
                "{}/ holds rules for mode \"{mode}\", which neither Roo Code's built-in modes \
                 ({}) nor {} define: they load only if a mode with that slug exists in \
                 your global settings",
                shown.display(),
                BUILT_IN_ROO_MODES.join(", "),
                roo_rules::ROOMODES
            ),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::{bank, discovery};
    use std::fs;

    fn write(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    /// The bank of the project at `root` that holds Roo's mode rules.
    fn roo_bank(root: &Path) -> Bank {
        let project = discovery::project_at(root, "p".into()).unwrap();
        bank::list_banks(&project)
            .into_iter()
            .find(|b| crate::formats::rules(b.format).holds_mode_rules())
            .unwrap()
    }

    #[test]
    fn identical_startup_rules_and_unknown_mode_folders_are_reported() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(&root.join(".roo/rules/a.md"), "# Rules\nAlways test.\n");
        write(&root.join(".roo/rules/b.md"), "# Rules\nAlways test.\n");
        write(&root.join(".roo/rules/c.md"), "# Rules\nAlways lint.\n");
        write(&root.join(".roo/rules-code/x.md"), "# Code\n");
        write(&root.join(".roo/rules-docs/x.md"), "# Docs\n");
        write(&root.join(".roo/rules-ghost/x.md"), "# Ghost\n");
        write(
            &root.join(".roomodes"),
            r#"{"customModes":[{"slug":"docs","name":"Docs"}]}"#,
        );
        let roo = roo_bank(root);
        let found: Vec<(&str, String)> = findings(&roo)
            .into_iter()
            .map(|f| {
                let rel = f.file.strip_prefix(root).unwrap().display().to_string();
                (f.code.id(), rel)
            })
            .collect();
        assert_eq!(
            found,
            vec![
                ("duplicate-loaded", ".roo/rules/b.md".to_string()),
                ("unknown-mode-rules", ".roo/rules-ghost".to_string()),
            ]
        );
    }

    #[test]
    fn each_copy_is_reported_once_against_the_first_file_with_its_text() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        // All of one size: copies of two texts interleaved, and whitespace alone twice.
        for (name, text) in [
            ("a.md", "# One\n"),
            ("b.md", "# Two\n"),
            ("c.md", "# One\n"),
            ("d.md", "      \n"),
            ("e.md", "# Two\n"),
            ("f.md", "# One\n"),
            ("g.md", "      \n"),
        ] {
            write(&root.join(".roo/rules").join(name), text);
        }
        let roo = roo_bank(root);
        let found: Vec<String> = findings(&roo)
            .into_iter()
            .map(|f| f.message.split(" and both").next().unwrap().to_string())
            .collect();
        assert_eq!(
            found,
            [
                ".roo/rules/c.md is identical to .roo/rules/a.md",
                ".roo/rules/f.md is identical to .roo/rules/a.md",
                ".roo/rules/e.md is identical to .roo/rules/b.md",
            ]
        );
    }
}

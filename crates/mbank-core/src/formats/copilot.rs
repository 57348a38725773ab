//! GitHub Copilot's repository instructions: `.github/copilot-instructions.md`, read with
//! every request, and path-specific `.github/instructions/**/*.instructions.md`, each
//! applied to the files its `applyTo` globs match (`applyTo: "**"`: always). Without
//! `applyTo`, Copilot applies a path-specific file only when the user attaches it.
use std::path::Path;

use super::rule_frontmatter::{self, RuleFrontmatter};
use super::{Budget, FormatRules, Placement, ProjectPaths};
use crate::findings::Finding;
use crate::findings::RuleSource;
use crate::formats::Unit;
use crate::model::{Format, LoadKind, MemoryFile, Role};

pub(crate) const MAIN_FILE: &str = ".github/copilot-instructions.md";
pub(crate) const INSTRUCTIONS_DIR: &str = ".github/instructions";
const SUFFIX: &str = ".instructions.md";
const PATHS: ProjectPaths = ProjectPaths {
    files: &[MAIN_FILE],
    folders: &[INSTRUCTIONS_DIR],
};

/// Copilot code review reads only this many characters of an instruction file.
pub(crate) const CODE_REVIEW_MAX_CHARS: u64 = 4_000;

pub struct Copilot;

/// A path-specific instructions file Copilot reads.
fn is_path_specific(rel: &Path) -> bool {
    rel.starts_with(INSTRUCTIONS_DIR)
        && rel
            .file_name()
            .is_some_and(|n| n.to_string_lossy().ends_with(SUFFIX))
}

/// Globs that match every file: the instructions apply to every request.
fn matches_everything(glob: &str) -> bool {
    matches!(glob, "**" | "**/*" | "*" | "/**")
}

fn load_of(fm: &RuleFrontmatter) -> LoadKind {
    let globs = fm.list("applyTo");
    if globs.iter().any(|g| matches_everything(g)) {
        LoadKind::Startup
    } else if !globs.is_empty() {
        LoadKind::OnDemand
    } else {
        LoadKind::Manual
    }
}

impl FormatRules for Copilot {
    fn format(&self) -> Format {
        Format::Copilot
    }

    fn place(&self, rel: &Path) -> Placement {
        let (role, layer, group, load) = if rel == Path::new(MAIN_FILE) {
            (Role::Instructions, Some(1), None, LoadKind::Startup)
        } else if is_path_specific(rel) {
            // Listing reads `applyTo`; without it the file is attached by hand.
            (
                Role::Instructions,
                Some(2),
                Some("instructions".into()),
                LoadKind::Manual,
            )
        } else {
            (
                Role::Other,
                None,
                Some("instructions".into()),
                LoadKind::Never,
            )
        };
        Placement {
            role,
            layer,
            group,
            load,
        }
    }

    fn keeps(&self, rel: &Path) -> bool {
        PATHS.contains(rel)
    }

    fn file_budgets(&self, file: &MemoryFile, _preset: Option<&str>) -> Vec<Budget> {
        if file.load == LoadKind::Never {
            return Vec::new();
        }
        vec![
            Budget::new(
                "Copilot code review reads only the first 4,000 characters of an instruction file",
                RuleSource::Copilot,
                Unit::Characters,
                CODE_REVIEW_MAX_CHARS,
            )
            .cutting_off(),
        ]
    }

    fn project_paths(&self) -> ProjectPaths {
        PATHS
    }

    fn reads_frontmatter(&self, rel: &Path) -> bool {
        is_path_specific(rel)
    }

    fn frontmatter_load(&self, _rel: &Path, text: &str) -> Option<LoadKind> {
        Some(load_of(&rule_frontmatter::read(text)))
    }

    fn check_text(&self, file: &MemoryFile, text: &str) -> Vec<Finding> {
        rule_frontmatter::check_rule(file, text, is_path_specific, "Copilot", |fm, out| {
            if load_of(fm) == LoadKind::Manual {
                out.push(rule_frontmatter::never_picked(
                    &file.path,
                    None,
                    "no applyTo globs: Copilot never applies these instructions by itself; they \
                     load only when you attach them"
                        .to_string(),
                ));
            }
        })
    }

    fn lenient_frontmatter(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> LoadKind {
        load_of(&rule_frontmatter::read(text))
    }

    #[test]
    fn apply_to_decides_when_instructions_load() {
        assert_eq!(load("---\napplyTo: \"**\"\n---\n"), LoadKind::Startup);
        assert_eq!(
            load("---\napplyTo: \"**/*.ts,**/*.tsx\"\n---\n"),
            LoadKind::OnDemand
        );
        assert_eq!(load("# no frontmatter\n"), LoadKind::Manual);
        let main = Copilot.place(Path::new(MAIN_FILE));
        assert_eq!((main.layer, main.load), (Some(1), LoadKind::Startup));
        let stray = Copilot.place(Path::new(".github/instructions/notes.md"));
        assert_eq!(stray.load, LoadKind::Never);
    }
}

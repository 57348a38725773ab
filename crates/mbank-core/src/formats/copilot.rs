//! GitHub Copilot's repository instructions: `.github/copilot-instructions.md`, read with
//! every request, and path-specific `.github/instructions/**/*.instructions.md`, each
//! applied to the files its `applyTo` globs match (`applyTo: "**"`: always). Without
//! `applyTo`, Copilot applies a path-specific file only when the user attaches it.
//! ("Adding repository custom instructions for GitHub Copilot",
//! docs.github.com/en/copilot/customizing-copilot/adding-repository-custom-instructions-for-github-copilot.)
//! Copilot finds these files by their exact names and reads the frontmatter key `applyTo`
//! as written: a file named otherwise in `.github/` (`copilot-instruction.md`,
//! `x.instruction.md`) or a key spelled otherwise (`applyto`, `apply_to`) is ignored, and
//! mbank lists such files to say so.
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
    lookalikes: &[super::Lookalike {
        folder: ".github",
        name: is_lookalike_name,
    }],
};

/// The frontmatter key naming the files path-specific instructions apply to.
const APPLY_TO: &str = "applyTo";

/// A name's letters and digits, lower case: what tells a lookalike from another file.
fn letters(name: &str) -> String {
    name.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// A file in `.github/` named like Copilot's instruction files but not as Copilot needs:
/// the main file with another case, separator or number (`copilot_instruction.md`), or a
/// path-specific file outside `.github/instructions/` or without the plural
/// (`x.instruction.md`).
fn is_lookalike_name(name: &str) -> bool {
    let main = MAIN_FILE.trim_start_matches(".github/");
    if name == main {
        return false;
    }
    let key = letters(name);
    let lower = name.to_ascii_lowercase();
    key == letters(main)
        || key == letters(&main.replacen("instructions", "instruction", 1))
        || lower.ends_with(SUFFIX)
        || lower.ends_with(".instruction.md")
}

/// Whether a frontmatter key is `applyTo` written otherwise: another case or separators
/// (`applyto`, `apply_to`, `Apply-To`), or a slip of a letter or two (`aplyTo`, `appliesTo`).
fn misspells_apply_to(key: &str) -> bool {
    if key == APPLY_TO {
        return false;
    }
    let key = letters(key);
    let wanted = letters(APPLY_TO);
    key == wanted
        || (key.starts_with("appl") && key.ends_with("to") && key.len() <= wanted.len() + 3)
        || crate::io::text::edit_distance_at_most(&key, &wanted, 1)
}

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

/// Whether `path` (absolute, or relative to any folder above it) is a path-specific
/// instructions file: Copilot attaches it where its globs match, as Cursor does a rule.
pub(crate) fn is_path_specific_anywhere(path: &Path) -> bool {
    let parts: Vec<_> = path.components().map(|c| c.as_os_str()).collect();
    path.file_name()
        .is_some_and(|n| n.to_string_lossy().ends_with(SUFFIX))
        && parts
            .windows(2)
            .any(|pair| pair[0] == ".github" && pair[1] == "instructions")
}

/// Globs that match every file: the instructions apply to every request.
fn matches_everything(glob: &str) -> bool {
    matches!(glob, "**" | "**/*" | "*" | "/**")
}

fn load_of(fm: &RuleFrontmatter) -> LoadKind {
    // Copilot reads the key as written: `applyto` applies nothing.
    let spelled = fm.entries.iter().any(|e| e.key == APPLY_TO);
    let globs = if spelled {
        fm.list(APPLY_TO)
    } else {
        Vec::new()
    };
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

    fn name_finding(&self, file: &MemoryFile, rel: &Path) -> Option<Finding> {
        let name = rel.file_name()?.to_str()?;
        let in_github = rel.parent() == Some(Path::new(".github"));
        // A README there tells people what the folder holds; it was never meant for Copilot.
        let stray_instruction = rel.starts_with(INSTRUCTIONS_DIR)
            && !is_path_specific(rel)
            && super::names::is_markdown(name)
            && !super::names::name_key(name).starts_with("readme");
        let why = if in_github && is_lookalike_name(name) {
            format!(
                "GitHub Copilot never reads {}: it reads its repository instructions from \
                 {MAIN_FILE} and path-specific ones from {INSTRUCTIONS_DIR}/NAME{SUFFIX} only",
                file.display
            )
        } else if stray_instruction {
            format!(
                "GitHub Copilot never reads {}: in {INSTRUCTIONS_DIR}/ it reads only files \
                 whose names end in {SUFFIX}",
                file.display
            )
        } else {
            return None;
        };
        Some(Finding::new(
            crate::findings::Severity::Warning,
            crate::findings::FindingCode::InstructionsMisnamed,
            &file.path,
            None,
            why,
        ))
    }

    fn check_text(&self, file: &MemoryFile, text: &str) -> Vec<Finding> {
        rule_frontmatter::check_rule(file, text, is_path_specific, "Copilot", |fm, out| {
            if let Some(entry) = fm.entries.iter().find(|e| misspells_apply_to(&e.key)) {
                out.push(Finding::new(
                    crate::findings::Severity::Warning,
                    crate::findings::FindingCode::FrontmatterKeyMisspelled,
                    &file.path,
                    Some(entry.line),
                    format!(
                        "{}: the frontmatter key `{}` is not `{APPLY_TO}`, which GitHub \
                         Copilot reads as written, so it applies these instructions to no \
                         file by itself",
                        file.display, entry.key
                    ),
                ));
            } else if load_of(fm) == LoadKind::Manual {
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
    fn path_specific_instructions_are_known_by_their_folder_and_suffix_anywhere() {
        for yes in [
            "/home/a/app/.github/instructions/ui.instructions.md",
            ".github/instructions/deep/qa.instructions.md",
        ] {
            assert!(is_path_specific_anywhere(Path::new(yes)), "{yes}");
        }
        for no in [
            "/home/a/app/.github/copilot-instructions.md",
            "/home/a/app/.github/instructions/notes.md",
            "/home/a/app/docs/instructions/ui.instructions.md",
        ] {
            assert!(!is_path_specific_anywhere(Path::new(no)), "{no}");
        }
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
        // Copilot reads the key as written.
        assert_eq!(load("---\napplyto: \"**\"\n---\n"), LoadKind::Manual);
    }

    #[test]
    fn lookalike_names_and_keys_are_told_from_the_real_ones() {
        for name in [
            "copilot-instruction.md",
            "copilot_instructions.md",
            "Copilot-Instructions.md",
            "copilot-instructions.MD",
            "python.instructions.md",
            "python.instruction.md",
        ] {
            assert!(is_lookalike_name(name), "{name}");
        }
        for name in [
            "copilot-instructions.md",
            "CODEOWNERS",
            "dependabot.yml",
            "README.md",
        ] {
            assert!(!is_lookalike_name(name), "{name}");
        }
        for key in [
            "applyto",
            "apply_to",
            "Apply-To",
            "aplyTo",
            "appliesTo",
            "applyTO",
        ] {
            assert!(misspells_apply_to(key), "{key}");
        }
        for key in ["applyTo", "description", "excludeAgent", "name"] {
            assert!(!misspells_apply_to(key), "{key}");
        }
    }

    fn file(rel: &str) -> MemoryFile {
        MemoryFile {
            path: Path::new("/p").join(rel),
            display: rel.to_string(),
            role: Role::Instructions,
            layer: None,
            order: 0,
            group: None,
            load: LoadKind::Never,
            size: 0,
            modified: None,
            changed: None,
            inode: None,
            memory: None,
            unreadable: None,
        }
    }

    #[test]
    fn misnamed_files_and_misspelled_keys_are_findings_that_name_the_file() {
        let named = |rel: &str| Copilot.name_finding(&file(rel), Path::new(rel));
        for rel in [
            ".github/copilot-instruction.md",
            ".github/python.instructions.md",
            ".github/instructions/python.instruction.md",
            ".github/instructions/notes.md",
        ] {
            let finding = named(rel).expect(rel);
            assert_eq!(
                finding.code,
                crate::findings::FindingCode::InstructionsMisnamed
            );
            assert!(finding.message.contains(rel), "{}", finding.message);
        }
        for rel in [
            MAIN_FILE,
            ".github/instructions/python.instructions.md",
            ".github/instructions/logo.png",
            ".github/instructions/README.md",
        ] {
            assert!(named(rel).is_none(), "{rel}");
        }
        let rule = file(".github/instructions/py.instructions.md");
        let found = Copilot.check_text(&rule, "---\napply_to: \"**/*.py\"\n---\n# Python\n");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            found[0].code,
            crate::findings::FindingCode::FrontmatterKeyMisspelled
        );
        assert_eq!(found[0].line, Some(2));
        assert!(found[0].message.contains("apply_to"));
        let right = Copilot.check_text(&rule, "---\napplyTo: \"**/*.py\"\n---\n# Python\n");
        assert!(right.is_empty(), "{right:?}");
    }
}

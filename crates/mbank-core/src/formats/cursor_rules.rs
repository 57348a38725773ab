//! Cursor's rules: `.cursor/rules/**/*.mdc` and `*.md` (Cursor's rules documentation takes
//! both extensions; a `.md` rule carries the same frontmatter), each loaded as its frontmatter says
//! (`alwaysApply: true` at every session start, `globs` when a matching file is in play,
//! a `description` alone when the agent asks for it, nothing at all only when the user
//! @-mentions it), and the legacy `.cursorrules` at the project's top, read at every start.
//! Nested `.cursor/rules/` folders in the project's sub-folders (`packages/api/.cursor/rules/`)
//! hold rules Cursor attaches when files of that sub-folder are in play: an always-applied
//! one there loads on demand, not at session start.
use std::path::Path;

use super::rule_frontmatter::{self, RuleFrontmatter};
use super::{Budget, FormatRules, Placement, ProjectPaths};
use crate::findings::RuleSource;
use crate::findings::{Finding, FindingCode, Severity};
use crate::formats::Unit;
use crate::model::{Format, LoadKind, MemoryFile, Role};

pub(crate) const LEGACY_FILE: &str = ".cursorrules";
pub(crate) const RULES_DIR: &str = ".cursor/rules";
const PATHS: ProjectPaths = ProjectPaths {
    files: &[LEGACY_FILE],
    folders: &[RULES_DIR],
    lookalikes: &[],
};

pub struct CursorRules;

/// The extensions of the rule files Cursor reads.
const RULE_EXTENSIONS: [&str; 2] = ["mdc", "md"];

/// A rule file Cursor reads: `.mdc` or `.md` under `.cursor/rules/`, at the project's top
/// or in a sub-folder. A `README.md` there tells people what the rules are (a rule
/// written for Cursor under that name is a `README.mdc`, in Cursor's own format).
fn is_rule(rel: &Path) -> bool {
    let Some(extension) = rel.extension() else {
        return false;
    };
    let readme_for_people = extension == "md"
        && rel
            .file_stem()
            .is_some_and(|stem| stem.eq_ignore_ascii_case("readme"));
    rules_folder_depth(rel).is_some()
        && RULE_EXTENSIONS.iter().any(|x| extension == *x)
        && !readme_for_people
}

/// How many folders above the `.cursor/rules/` folder holding `rel` are: 0 at the project's
/// top, more for a nested one; `None` outside any.
fn rules_folder_depth(rel: &Path) -> Option<usize> {
    let parts: Vec<_> = rel.components().map(|c| c.as_os_str()).collect();
    // The folder is never the file itself: at least one part follows `rules`.
    (0..parts.len().saturating_sub(2)).find(|&i| parts[i] == ".cursor" && parts[i + 1] == "rules")
}

fn is_nested(rel: &Path) -> bool {
    rules_folder_depth(rel).is_some_and(|depth| depth > 0)
}

/// Whether the rule at `path` (absolute) sits in a sub-folder of a folder of the rules
/// that holds a skill's `SKILL.md` (an Agent Skills package copied among the rules: its
/// `rules/` or `references/`). Files beside the index are judged as rules.
fn is_skill_resource(path: &Path) -> bool {
    let own = path.parent();
    let mut folder = own;
    while let Some(current) = folder {
        let parent = current.parent();
        let is_rules_folder = current.file_name().is_some_and(|name| name == "rules")
            && parent
                .and_then(Path::file_name)
                .is_some_and(|name| name == ".cursor");
        if is_rules_folder {
            return false;
        }
        if Some(current) != own && current.join("SKILL.md").is_file() {
            return true;
        }
        folder = parent;
    }
    false
}

/// When a rule loads, from its frontmatter.
fn load_of(fm: &RuleFrontmatter) -> LoadKind {
    if fm.flag("alwaysApply") == Some(Ok(true)) {
        LoadKind::Startup
    } else if !fm.list("globs").is_empty() {
        LoadKind::OnDemand
    } else if fm.text("description").is_some() {
        LoadKind::AgentRequested
    } else {
        LoadKind::Manual
    }
}

impl FormatRules for CursorRules {
    fn format(&self) -> Format {
        Format::CursorRules
    }

    fn place(&self, rel: &Path) -> Placement {
        let (role, layer, group, load) = if rel == Path::new(LEGACY_FILE) {
            (Role::Rules, Some(1), None, LoadKind::Startup)
        } else if is_rule(rel) && is_nested(rel) {
            (
                Role::Rules,
                Some(3),
                Some("nested rules".into()),
                LoadKind::Manual,
            )
        } else if is_rule(rel) {
            // Without frontmatter a rule loads only when @-mentioned; listing reads it.
            (Role::Rules, Some(2), Some("rules".into()), LoadKind::Manual)
        } else {
            (Role::Other, None, Some("rules".into()), LoadKind::Never)
        };
        Placement {
            role,
            layer,
            group,
            load,
        }
    }

    fn keeps(&self, rel: &Path) -> bool {
        PATHS.contains(rel) || is_rule(rel)
    }

    fn file_budgets(&self, file: &MemoryFile, _preset: Option<&str>) -> Vec<Budget> {
        if file.load == LoadKind::Never {
            return Vec::new();
        }
        vec![Budget::new(
            "≤ 500 lines per rule",
            RuleSource::CursorRules,
            Unit::Lines,
            500,
        )]
    }

    fn project_paths(&self) -> ProjectPaths {
        PATHS
    }

    fn nested_folders(&self) -> &'static [&'static str] {
        &[RULES_DIR]
    }

    fn reads_frontmatter(&self, rel: &Path) -> bool {
        is_rule(rel)
    }

    fn frontmatter_load(&self, rel: &Path, text: &str) -> Option<LoadKind> {
        match load_of(&rule_frontmatter::read(text)) {
            // A nested rule applies only where its folder's files are in play.
            LoadKind::Startup if is_nested(rel) => Some(LoadKind::OnDemand),
            load => Some(load),
        }
    }

    fn check_text(&self, file: &MemoryFile, text: &str) -> Vec<Finding> {
        rule_frontmatter::check_rule(file, text, is_rule, "Cursor", |fm, out| {
            out.extend(rule_frontmatter::misspelled_keys(
                fm,
                &["description", "globs", "alwaysApply"],
                &file.path,
                "Cursor",
            ));
            if let Some(Err(value)) = fm.flag("alwaysApply") {
                out.push(Finding::new(
                    Severity::Warning,
                    FindingCode::RuleFrontmatterValue,
                    &file.path,
                    fm.get("alwaysApply").map(|e| e.line),
                    format!(
                        "alwaysApply: {value} is neither true nor false: Cursor does not apply the \
                     rule always"
                    ),
                ));
            }
            // A skill's reference files (`<skill>/rules/*.md` beside its SKILL.md) are
            // reached through the skill's index, which is judged as a rule of its own.
            if load_of(fm) == LoadKind::Manual && !is_skill_resource(&file.path) {
                let line = fm.get("alwaysApply").map(|e| e.line);
                if fm.flag("alwaysApply") == Some(Ok(false)) {
                    // `alwaysApply: false` with nothing else is Cursor's documented Manual
                    // rule type: a choice, so only said, not warned about.
                    out.push(Finding::new(
                        Severity::Info,
                        FindingCode::RuleNeverPicked,
                        &file.path,
                        line,
                        "a Manual rule (alwaysApply: false, no globs, no description): Cursor \
                         loads it only when you @-mention it",
                    ));
                } else if let Some((number, key_line)) =
                    fm.entries.is_empty().then(|| misplaced_key(text)).flatten()
                {
                    // Keys written where Cursor does not look for them (text before the
                    // opening `---`): the cause is where the block stands.
                    out.push(rule_frontmatter::never_picked(
                        &file.path,
                        Some(number),
                        format!(
                            "line {number} holds `{key_line}`, but Cursor reads a rule's \
                             frontmatter only when `---` alone opens the file's first line: \
                             as written the rule has no globs, no description and is not \
                             always applied, so Cursor never picks it by itself"
                        ),
                    ));
                } else {
                    out.push(rule_frontmatter::never_picked(
                        &file.path,
                        line,
                        "the rule is not always applied and has no globs and no description: \
                         Cursor never picks it by itself; it loads only when you @-mention it"
                            .to_string(),
                    ));
                }
            }
        })
    }

    fn lenient_frontmatter(&self) -> bool {
        true
    }
}

/// The first of a rule's opening lines (before any heading) that sets one of Cursor's
/// keys, with its number: frontmatter that does not open the file.
fn misplaced_key(text: &str) -> Option<(usize, &str)> {
    text.lines()
        .take(12)
        .take_while(|line| !line.starts_with('#'))
        .enumerate()
        .find(|(_, line)| {
            ["alwaysApply:", "globs:", "description:"]
                .iter()
                .any(|key| line.trim_start().starts_with(key))
        })
        .map(|(index, line)| (index + 1, line.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_below_text_that_hides_the_opening_marker_are_named_as_the_cause() {
        assert_eq!(
            misplaced_key("notes---\nalwaysApply: true\n---\n\n# Guide\n"),
            Some((2, "alwaysApply: true"))
        );
        assert_eq!(misplaced_key("# Guide\n\nalwaysApply: true\n"), None);
        assert_eq!(misplaced_key("Plain text.\n"), None);
        let temp = tempfile::tempdir().unwrap();
        let path = temp.path().join(".cursor/rules/guide.mdc");
        let file = MemoryFile::for_test(path, ".cursor/rules/guide.mdc", Role::Rules);
        let found = CursorRules.check_text(&file, "notes---\nalwaysApply: true\n---\n\n# Guide\n");
        let picked: Vec<_> = found
            .iter()
            .filter(|f| f.code == FindingCode::RuleNeverPicked)
            .collect();
        assert_eq!(picked.len(), 1, "{found:?}");
        assert_eq!(picked[0].line, Some(2));
        assert!(
            picked[0]
                .message
                .starts_with("line 2 holds `alwaysApply: true`"),
            "{found:?}"
        );
    }

    fn load(text: &str) -> LoadKind {
        load_of(&rule_frontmatter::read(text))
    }

    #[test]
    fn frontmatter_decides_when_a_rule_loads() {
        assert_eq!(load("---\nalwaysApply: true\n---\n"), LoadKind::Startup);
        assert_eq!(
            load("---\nglobs: **/*.ts\nalwaysApply: false\n---\n"),
            LoadKind::OnDemand
        );
        assert_eq!(
            load("---\ndescription: Migrations\nglobs:\nalwaysApply: false\n---\n"),
            LoadKind::AgentRequested
        );
        assert_eq!(load("---\nalwaysApply: false\n---\n"), LoadKind::Manual);
        assert_eq!(load("# no frontmatter\n"), LoadKind::Manual);
        let legacy = CursorRules.place(Path::new(".cursorrules"));
        assert_eq!((legacy.layer, legacy.load), (Some(1), LoadKind::Startup));
        let stray = CursorRules.place(Path::new(".cursor/rules/notes.txt"));
        assert_eq!(stray.load, LoadKind::Never);
    }

    #[test]
    fn a_skill_s_reference_files_among_the_rules_are_reached_through_its_index() {
        let temp = tempfile::tempdir().unwrap();
        let write = |rel: &str, text: &str| {
            let path = temp.path().join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
            path
        };
        let reference = "---\ntitle: Parallel fetches\nimpact: HIGH\n---\n# Parallel\n";
        let files = [
            write(".cursor/rules/react/SKILL.md", "# React best practices\n"),
            write(".cursor/rules/react/rules/async-parallel.md", reference),
            // Beside the index, a file is a rule like any other.
            write(".cursor/rules/react/AGENTS.md", "# Compiled guide\n"),
            write(".cursor/rules/plain.md", "# Plain\n"),
            // A SKILL.md outside the rules folder has no say.
            write("SKILL.md", "# Not a rule\n"),
            write(".cursor/rules/other/a.md", reference),
        ];
        let never_picked: Vec<bool> = files
            .iter()
            .map(|path| {
                let rel = path.strip_prefix(temp.path()).unwrap();
                let file = MemoryFile::for_test(path.clone(), &rel.to_string_lossy(), Role::Rules);
                let text = std::fs::read_to_string(path).unwrap();
                CursorRules
                    .check_text(&file, &text)
                    .iter()
                    .any(|f| f.code == FindingCode::RuleNeverPicked)
            })
            .collect();
        assert_eq!(never_picked, [true, false, true, true, false, true]);
    }

    #[test]
    fn a_md_rule_is_a_rule_like_a_mdc_one() {
        let md = Path::new(".cursor/rules/style.md");
        assert!(is_rule(md) && CursorRules.reads_frontmatter(md));
        assert_eq!(CursorRules.place(md).role, Role::Rules);
        assert_eq!(
            CursorRules.frontmatter_load(md, "---\nalwaysApply: true\n---\n# Style\n"),
            Some(LoadKind::Startup)
        );
        assert!(CursorRules.keeps(md));
        assert!(!is_rule(Path::new(".cursor/rules/notes.txt")));
        // What the folder's rules are, told to people.
        assert!(!is_rule(Path::new(".cursor/rules/README.md")));
        let readme = CursorRules.place(Path::new(".cursor/rules/README.md"));
        assert_eq!((readme.role, readme.load), (Role::Other, LoadKind::Never));
        assert!(is_rule(Path::new(".cursor/rules/README.mdc")));
    }

    #[test]
    fn nested_rule_folders_hold_rules_that_apply_where_they_sit() {
        let always = "---\nalwaysApply: true\n---\n";
        let top = Path::new(".cursor/rules/deep/er/a.mdc");
        let nested = Path::new("packages/api/.cursor/rules/b.mdc");
        assert!(is_rule(top) && !is_nested(top));
        assert!(is_rule(nested) && is_nested(nested));
        assert!(!is_rule(Path::new(".cursor/rules.mdc")));
        assert_eq!(
            CursorRules.frontmatter_load(top, always),
            Some(LoadKind::Startup)
        );
        assert_eq!(
            CursorRules.frontmatter_load(nested, always),
            Some(LoadKind::OnDemand)
        );
        assert!(CursorRules.keeps(nested));
        assert_eq!(
            CursorRules.place(nested).group.as_deref(),
            Some("nested rules")
        );
    }
}

//! Beans-code's `BEANS.md`: `BEANS.md` and `BEANS.local.md` at the project's top or in
//! `.beans/`, rules in `.beans/rules/` (on demand), sub-folders' files just in time.
//!
//! Its memory configuration ([`settings`]) renames the memory files (`fileNames`, read in
//! that order in each folder; `CONTEXT.md`, one of the names it is meant to support, marks
//! a project too and is listed even when not configured, loading only when named), loads
//! the sub-folders' files at start-up (`searchChildren`, `maxDepth`), sets the start-up
//! line and token limits (`maxLines`, `maxTokens`), the imports (`imports.enabled`,
//! `imports.maxDepth`), whether the folders above the project up to the git root load
//! (`searchParents`, see `layers.rs`), and which folders are trusted: in an untrusted
//! one only the global memory loads. A modular rule's `priority` orders the rules: lower
//! priority first, so that a higher one wins a conflict.
use std::path::{Path, PathBuf};

use super::instruction_files::{InstructionFiles, RULES_FOLDER};
use super::{Budget, FormatRules, Placement, rule_frontmatter};
use crate::findings::{Finding, FindingCode, RuleSource, Severity};
use crate::formats::Unit;
use crate::model::{BankProblem, Format, LoadKind, MemoryFile, Role};

pub mod saved;
pub(crate) mod settings;

/// A memory file name Beans-Code's configuration is meant to support besides its own and
/// that no other agent claims: it marks a project of Beans-Code like `BEANS.md`, and loads
/// when `fileNames` names it.
pub(crate) const CONTEXT_FILE: &str = "CONTEXT.md";

/// The priorities a rule may name ("YAML Frontmatter Fields").
const PRIORITIES: [&str; 3] = ["low", "medium", "high"];

pub const FILES: InstructionFiles = InstructionFiles {
    agent: "Beans-Code",
    main: "BEANS.md",
    local: "BEANS.local.md",
    override_file: None,
    top_markers: &["BEANS.md", "BEANS.local.md", ".beans", CONTEXT_FILE],
    dot_dir: ".beans",
    reads_dot_dir: true,
    reads_dot_dir_main: false,
    rules_load: LoadKind::OnDemand,
    subfolders_load: LoadKind::OnDemand,
    budgets_borrowed: false,
    local_ignored: None,
    memory_folders: &[],
};

/// Beans-Code's global tier: `~/.beans/BEANS.md` and the private `~/.beans/BEANS.local.md`,
/// loaded first in every project, and where a memory saved with the global scope goes.
/// They belong to the home folder, not to a project.
pub mod global_memory {
    use std::path::{Path, PathBuf};

    /// What the store is called where a person reads it.
    pub(crate) const LABEL: &str = "Beans-Code global memory";

    /// The id `[journal] leave_out` knows it by.
    pub const ID: &str = "beans-global-memory";

    /// The global memory files for `home`, whether or not they exist.
    pub fn files(home: &Path) -> Vec<PathBuf> {
        let folder = home.join(super::FILES.dot_dir);
        vec![
            folder.join(super::FILES.main),
            folder.join(super::FILES.local),
        ]
    }
}

/// Beans-Code's auto-saved memories: the markdown files of `~/.beans/memories/`, the global
/// tier's third place. They belong to the home folder, not to a project.
pub mod saved_memories {
    use std::path::{Path, PathBuf};

    /// What the store is called where a person reads it.
    pub(crate) const LABEL: &str = "Beans-Code auto-saved memories";

    /// The id `[journal] leave_out` knows it by.
    pub const ID: &str = "beans-saved-memories";

    /// The memories folder for `home`, whether or not it exists.
    pub fn folder(home: &Path) -> PathBuf {
        home.join(super::FILES.dot_dir).join("memories")
    }

    /// Whether a file of the folder, by its name, is a memory (markdown, not hidden).
    pub(crate) fn is_memory_file(name: &str) -> bool {
        !name.starts_with('.') && Path::new(name).extension().is_some_and(|e| e == "md")
    }

    /// The folder's own files only: the layout names no sub-folder.
    pub(crate) fn enters(_rel: &Path) -> bool {
        false
    }
}

/// How deep Beans-Code follows `@imports` by default.
pub(crate) const IMPORT_DEPTH: usize = settings::DEFAULT_DEPTH;

pub(crate) struct BeansMd;

impl FormatRules for BeansMd {
    fn format(&self) -> Format {
        Format::BeansMd
    }

    fn expands_imports(&self) -> bool {
        true
    }

    /// "Maximum import depth (default: 5)" (the Beans-Code memory recommendations,
    /// "Import Syntax").
    fn import_depth(&self) -> Option<usize> {
        Some(IMPORT_DEPTH)
    }

    fn place(&self, rel: &Path) -> Placement {
        place(rel)
    }

    /// The names `fileNames` adds, and `CONTEXT.md`, looked for wherever `BEANS.md` is.
    fn extra_names(&self, project: &Path) -> Vec<String> {
        let loaded = settings_of(project);
        let mut names: Vec<String> = loaded
            .settings
            .file_names
            .into_iter()
            .filter(|n| n != FILES.main && n != FILES.local)
            .collect();
        if !names.iter().any(|n| n == CONTEXT_FILE) {
            names.push(CONTEXT_FILE.to_string());
        }
        names
    }

    /// What the memory configuration decides once the bank is listed: which names load,
    /// whether the sub-folders' files load at start-up, the order of the names in a folder
    /// and of the rules by priority, and nothing of an untrusted project.
    fn settle_loads(&self, bank_root: &Path, files: &mut [MemoryFile]) {
        settle(&settings_of(bank_root).settings, bank_root, files);
    }

    fn listing_problems(&self, bank_root: &Path) -> Vec<BankProblem> {
        let loaded = settings_of(bank_root);
        let mut problems: Vec<BankProblem> = loaded
            .problems
            .into_iter()
            .map(BankProblem::Settings)
            .collect();
        if !loaded.settings.trusted {
            problems.push(BankProblem::Settings(format!(
                "{} is not in a trusted folder (folderTrust in {}): Beans-Code loads only the \
                 global memory here, none of the project's files",
                bank_root.display(),
                loaded
                    .settings
                    .source_of("folderTrust")
                    .unwrap_or("the user's settings")
            )));
        }
        problems
    }

    fn import_depth_at(&self, project: &Path, home: Option<&Path>) -> Option<usize> {
        Some(settings::for_project(project, home).settings.import_depth())
    }

    /// A modular rule's frontmatter (the Beans-Code memory recommendations, "YAML
    /// Frontmatter Fields"): `priority` is low, medium or high; `triggers` (keywords) or
    /// `globs` (file patterns) are what load the rule on demand.
    fn check_text(&self, file: &MemoryFile, text: &str) -> Vec<Finding> {
        if file.role != Role::Rules {
            return Vec::new();
        }
        rule_frontmatter::check_rule(
            file,
            text,
            |_| true,
            "Beans-Code",
            |fm, out| {
                if let Some(priority) = fm.text("priority")
                    && !PRIORITIES.contains(&priority.to_ascii_lowercase().as_str())
                {
                    out.push(Finding::new(
                        Severity::Warning,
                        FindingCode::RuleFrontmatterValue,
                        &file.path,
                        fm.get("priority").map(|e| e.line),
                        format!(
                            "priority: {priority} is not one Beans-Code knows (low, medium, \
                         high): the rule loses conflicts and is cut first when memory is \
                         truncated"
                        ),
                    ));
                }
                if fm.list("triggers").is_empty() && fm.list("globs").is_empty() {
                    out.push(Finding::new(
                        Severity::Info,
                        FindingCode::RuleNeverPicked,
                        &file.path,
                        fm.get("triggers").map(|e| e.line),
                        "no triggers or globs: Beans-Code loads modular rules when their \
                     trigger keywords or file patterns match, so this one loads only when \
                     named"
                            .to_string(),
                    ));
                }
            },
        )
    }

    fn keeps(&self, rel: &Path) -> bool {
        FILES.keeps(rel) || rel.file_name().is_some_and(|n| n == CONTEXT_FILE)
    }

    /// `CONTEXT.md` where the configuration does not name it (and any memory file it no
    /// longer names) is never read.
    fn name_finding(&self, file: &MemoryFile, rel: &Path) -> Option<Finding> {
        let name = rel.file_name()?.to_str()?;
        if in_rules(rel) || (name != FILES.main && name != CONTEXT_FILE) {
            return None;
        }
        let project = bank_root_of(&file.path, rel)?;
        // `CONTEXT.md` is a common name for other documents (a glossary, a domain's
        // context): it is Beans-Code's misnamed memory only where Beans-Code is in use.
        if name == CONTEXT_FILE && !uses_beans(&project) {
            return None;
        }
        let loaded = settings_of(&project);
        if loaded.settings.reads_name(name) || !loaded.settings.trusted {
            return None;
        }
        let set_in = loaded
            .settings
            .source_of("fileNames")
            .map_or("its default".to_string(), |file| {
                format!("fileNames in {file}")
            });
        Some(Finding::new(
            Severity::Warning,
            FindingCode::InstructionsMisnamed,
            &file.path,
            None,
            format!(
                "Beans-Code never reads {}: it reads memory files named {} ({set_in}); add \
                 \"{name}\" to memory.fileNames in .beans/settings.json or \
                 ~/.beans/settings.json to load it",
                file.display,
                loaded.settings.file_names.join(", "),
            ),
        ))
    }

    fn file_budgets(&self, file: &MemoryFile, _preset: Option<&str>) -> Vec<Budget> {
        FILES.file_budgets(file)
    }

    fn bank_budgets(&self, _preset: Option<&str>) -> Vec<Budget> {
        FILES.bank_budgets()
    }

    /// `maxTokens` and `maxLines` of the configuration replace the start-up limits.
    fn bank_budgets_at(&self, bank_root: &Path, preset: Option<&str>) -> Vec<Budget> {
        let loaded = settings_of(bank_root);
        let settings = &loaded.settings;
        self.bank_budgets(preset)
            .into_iter()
            .map(|budget| {
                let (key, configured) = match budget.unit {
                    Unit::Tokens => ("maxTokens", settings.max_tokens),
                    Unit::Lines => ("maxLines", settings.max_lines),
                    _ => return budget,
                };
                let Some(limit) = configured else {
                    return budget;
                };
                let unit_words = if budget.unit == Unit::Lines {
                    "lines"
                } else {
                    "tokens"
                };
                Budget::new(
                    format!(
                        "≤ {limit} {unit_words} loaded at start-up ({key} in {})",
                        settings.source_of(key).unwrap_or("Beans-Code's settings")
                    ),
                    RuleSource::ProjectRules,
                    budget.unit,
                    limit,
                )
            })
            .collect()
    }
}

/// The memory configuration for the project at `project`, with the user's from the home
/// folder.
fn settings_of(project: &Path) -> settings::LoadedSettings {
    settings::for_project(project, crate::io::paths::home_dir().as_deref())
}

/// Whether the project or the user's home shows Beans-Code: its memory file, its local
/// file or its folder.
fn uses_beans(project: &Path) -> bool {
    let home = crate::io::paths::home_dir();
    [FILES.main, FILES.local, FILES.dot_dir]
        .iter()
        .any(|name| std::fs::symlink_metadata(project.join(name)).is_ok())
        || home.is_some_and(|home| std::fs::symlink_metadata(home.join(FILES.dot_dir)).is_ok())
}

/// Whether `rel` is inside `.beans/rules/`.
fn in_rules(rel: &Path) -> bool {
    rel.starts_with(Path::new(FILES.dot_dir).join(RULES_FOLDER))
}

/// The folder `rel` is relative to, given the file's full `path`.
fn bank_root_of(path: &Path, rel: &Path) -> Option<PathBuf> {
    let mut root = path;
    for _ in rel.components() {
        root = root.parent()?;
    }
    Some(root.to_path_buf())
}

/// Places a file: `CONTEXT.md` sits where `BEANS.md` would and loads only when the
/// configuration names it ([`settle`] decides).
fn place(rel: &Path) -> Placement {
    let is_context = rel.file_name().is_some_and(|n| n == CONTEXT_FILE);
    if is_context && !in_rules(rel) {
        let placement = FILES.place(&rel.with_file_name(FILES.main));
        return Placement {
            load: LoadKind::Never,
            ..placement
        };
    }
    FILES.place(rel)
}

/// A rule's place among the rules by its `priority`: lower first, so that a higher
/// priority wins a conflict; a value Beans-Code does not know loses to every other, and a
/// rule naming none sits with the medium ones.
fn priority_rank(text: &str) -> usize {
    match rule_frontmatter::read(text).text("priority") {
        None => 2,
        Some(priority) => PRIORITIES
            .iter()
            .position(|p| p.eq_ignore_ascii_case(priority.trim()))
            .map_or(0, |i| i + 1),
    }
}

/// The group the family gives the sub-folders' files.
const SUBFOLDERS_GROUP: &str = "subfolders";

/// The largest rule file whose priority is read.
const RULE_MAX_BYTES: u64 = 1024 * 1024;

/// Applies the memory configuration to a listed bank (see
/// [`FormatRules::settle_loads`]): the read order within a layer is set through each
/// file's `order`, which sorting takes after the layer, the load and the group.
fn settle(settings: &settings::MemorySettings, bank_root: &Path, files: &mut [MemoryFile]) {
    for file in files.iter_mut() {
        let Ok(rel) = file.path.strip_prefix(bank_root) else {
            continue;
        };
        let rel = rel.to_path_buf();
        if !settings.trusted {
            file.load = LoadKind::Never;
            continue;
        }
        if in_rules(&rel) {
            if file.role == Role::Rules
                && let Ok(text) = crate::io::text::read_text_limited(&file.path, RULE_MAX_BYTES)
            {
                file.order = priority_rank(&text);
            }
            continue;
        }
        let name = file.file_name();
        if name == FILES.local {
            continue;
        }
        let named = settings.file_names.iter().position(|n| *n == name);
        if name != FILES.main && name != CONTEXT_FILE && named.is_none() {
            continue;
        }
        let placement = FILES.place(&rel.with_file_name(FILES.main));
        let in_sub_folder = placement.group.as_deref() == Some(SUBFOLDERS_GROUP);
        let folders = rel.components().count().saturating_sub(1);
        file.role = placement.role;
        file.layer = placement.layer;
        file.group = placement.group;
        file.order = named.unwrap_or(settings.file_names.len());
        file.load = match named {
            None => LoadKind::Never,
            Some(_) if !in_sub_folder => LoadKind::Startup,
            Some(_) if settings.search_children && folders <= settings.max_depth => {
                LoadKind::Startup
            }
            Some(_) => FILES.subfolders_load,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn rule(text: &str) -> Vec<(&'static str, Severity)> {
        let file = MemoryFile {
            path: PathBuf::from(".beans/rules/testing.md"),
            display: ".beans/rules/testing.md".into(),
            role: Role::Rules,
            layer: Some(2),
            order: 0,
            group: Some("rules".into()),
            load: LoadKind::OnDemand,
            size: text.len() as u64,
            modified: None,
            changed: None,
            inode: None,
            memory: None,
            unreadable: None,
        };
        BeansMd
            .check_text(&file, text)
            .into_iter()
            .map(|f| (f.code.id(), f.severity))
            .collect()
    }

    #[test]
    fn a_rule_needs_a_known_priority_and_a_trigger_or_glob() {
        let good = "---\nname: testing\ntriggers:\n  - write tests\npriority: high\n---\n# T\n";
        assert!(rule(good).is_empty());
        let globbed = "---\nglobs: [\"**/*.test.ts\"]\npriority: Low\n---\n# T\n";
        assert!(rule(globbed).is_empty());
        let bad = "---\ntriggers:\n  - coverage\npriority: urgent\n---\n# T\n";
        assert_eq!(
            rule(bad),
            vec![("rule-frontmatter-value", Severity::Warning)]
        );
        assert_eq!(
            rule("# Testing\n- Use Vitest\n"),
            vec![("rule-never-picked", Severity::Info)]
        );
    }

    #[test]
    fn beans_follows_imports_five_deep() {
        assert_eq!(BeansMd.import_depth(), Some(5));
    }

    /// The files below `root` at `rels`, placed and settled under `settings`, in read
    /// order: (path, load).
    fn settled(
        root: &Path,
        rels: &[(&str, &str)],
        settings: &settings::MemorySettings,
    ) -> Vec<(String, LoadKind)> {
        let mut files: Vec<MemoryFile> = rels
            .iter()
            .map(|(rel, text)| {
                let path = root.join(rel);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, text).unwrap();
                let placement = place(Path::new(rel));
                MemoryFile {
                    path,
                    display: rel.to_string(),
                    role: placement.role,
                    layer: placement.layer,
                    order: 0,
                    group: placement.group,
                    load: placement.load,
                    size: text.len() as u64,
                    modified: None,
                    changed: None,
                    inode: None,
                    memory: None,
                    unreadable: None,
                }
            })
            .collect();
        settle(settings, root, &mut files);
        files.sort_by_key(|f| {
            (
                f.layer,
                f.load != LoadKind::Startup,
                f.group.clone(),
                f.order,
                f.display.clone(),
            )
        });
        files.into_iter().map(|f| (f.display, f.load)).collect()
    }

    #[test]
    fn context_md_sits_where_beans_md_does_and_loads_only_when_named() {
        assert_eq!(place(Path::new("CONTEXT.md")).layer, Some(1));
        assert_eq!(place(Path::new("CONTEXT.md")).load, LoadKind::Never);
        assert_eq!(
            place(Path::new(".beans/rules/CONTEXT.md")).role,
            Role::Rules
        );
        assert!(BeansMd.keeps(Path::new("api/CONTEXT.md")));
        let dir = tempfile::tempdir().unwrap();
        let files = [
            ("BEANS.md", "# B\n"),
            ("CONTEXT.md", "# C\n"),
            ("api/CONTEXT.md", ""),
        ];
        let default = settings::MemorySettings::default();
        assert_eq!(
            settled(dir.path(), &files, &default),
            [
                ("BEANS.md".to_string(), LoadKind::Startup),
                ("CONTEXT.md".to_string(), LoadKind::Never),
                ("api/CONTEXT.md".to_string(), LoadKind::Never),
            ]
        );
        let named = settings::MemorySettings {
            file_names: vec!["CONTEXT.md".into(), "BEANS.md".into()],
            search_children: true,
            ..default
        };
        assert_eq!(
            settled(dir.path(), &files, &named),
            [
                ("CONTEXT.md".to_string(), LoadKind::Startup),
                ("BEANS.md".to_string(), LoadKind::Startup),
                ("api/CONTEXT.md".to_string(), LoadKind::Startup),
            ]
        );
    }

    #[test]
    fn rules_go_lower_priority_first_and_an_untrusted_project_loads_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let rule = |priority: &str| format!("---\ntriggers: [x]\n{priority}---\n# R\n");
        let (high, low, none, odd) = (
            rule("priority: HIGH\n"),
            rule("priority: low\n"),
            rule(""),
            rule("priority: 3\n"),
        );
        let files = [
            (".beans/rules/a.md", high.as_str()),
            (".beans/rules/b.md", low.as_str()),
            (".beans/rules/c.md", none.as_str()),
            (".beans/rules/d.md", odd.as_str()),
        ];
        let order: Vec<String> = settled(dir.path(), &files, &Default::default())
            .into_iter()
            .map(|(rel, _)| rel)
            .collect();
        assert_eq!(
            order,
            [
                ".beans/rules/d.md",
                ".beans/rules/b.md",
                ".beans/rules/c.md",
                ".beans/rules/a.md"
            ]
        );
        let untrusted = settings::MemorySettings {
            trusted: false,
            ..Default::default()
        };
        let files = [("BEANS.md", "# B\n"), (".beans/rules/a.md", high.as_str())];
        assert!(
            settled(dir.path(), &files, &untrusted)
                .iter()
                .all(|(_, load)| *load == LoadKind::Never)
        );
    }
}

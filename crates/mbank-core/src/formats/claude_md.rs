//! Claude Code's instruction memory: `CLAUDE.md` and `CLAUDE.local.md` at the project's
//! top or in `.claude/`, rules in `.claude/rules/` (scoped ones load on demand),
//! `sub/CLAUDE.md` just in time.
use std::path::Path;

use super::instruction_files::InstructionFiles;
use super::{Budget, FormatRules, Placement};
use crate::findings::RuleSource;
use crate::formats::Unit;
use crate::model::{Format, LoadKind, MemoryFile};

/// Claude Code warns when one CLAUDE.md exceeds this many characters.
pub(crate) const CLAUDE_MD_WARN_CHARS: u64 = 40_000;

/// The lines Claude Code's memory documentation asks one CLAUDE.md to stay under.
pub(crate) const CLAUDE_MD_TARGET_LINES: u64 = 200;

/// Where a subagent with `memory: project` keeps its memory: `.claude/agent-memory/<name>/`
/// (Claude Code's subagents documentation, "Enable persistent memory").
pub(crate) const AGENT_MEMORY: &str = "agent-memory";
/// Where one with `memory: local` keeps it, git-ignored: `.claude/agent-memory-local/<name>/`.
pub(crate) const AGENT_MEMORY_LOCAL: &str = "agent-memory-local";

pub const FILES: InstructionFiles = InstructionFiles {
    agent: "Claude Code",
    main: "CLAUDE.md",
    local: "CLAUDE.local.md",
    override_file: None,
    top_markers: &["CLAUDE.md", "CLAUDE.local.md"],
    dot_dir: ".claude",
    reads_dot_dir: true,
    reads_dot_dir_main: false,
    rules_load: LoadKind::Startup,
    subfolders_load: LoadKind::OnDemand,
    budgets_borrowed: true,
    local_ignored: None,
    memory_folders: &[AGENT_MEMORY, AGENT_MEMORY_LOCAL],
};

/// Claude Code's user memory: `~/.claude/CLAUDE.md`, the instructions and preferences
/// Claude Code loads before every project's own (Claude Code's documentation, "How Claude
/// remembers your project", code.claude.com/docs/en/memory: "User memory"). It belongs to
/// the home folder, not to a project.
pub mod user_memory {
    use std::path::{Path, PathBuf};

    /// What the store is called where a person reads it.
    pub(crate) const LABEL: &str = "Claude Code user memory";

    /// The id `[journal] leave_out` knows it by.
    pub const ID: &str = "claude-user-memory";

    /// The user memory file for `home`, whether or not it exists.
    pub fn file(home: &Path) -> PathBuf {
        home.join(super::FILES.dot_dir).join(super::FILES.main)
    }
}

/// Claude Code's user rules: the markdown files of `~/.claude/rules/`, sub-folders
/// included, which Claude Code loads for every project as it loads a project's
/// `.claude/rules/` (Claude Code's documentation, "How Claude remembers your project",
/// code.claude.com/docs/en/memory: "User-level rules"; rule files are found recursively).
/// They belong to the home folder, not to a project.
pub mod user_rules {
    use std::path::{Path, PathBuf};

    use crate::formats::instruction_files::RULES_FOLDER;

    /// What the store is called where a person reads it.
    pub(crate) const LABEL: &str = "Claude Code user rules";

    /// The id `[journal] leave_out` knows it by.
    pub const ID: &str = "claude-user-rules";

    /// The user rules folder for `home`, whether or not it exists.
    pub fn folder(home: &Path) -> PathBuf {
        home.join(super::FILES.dot_dir).join(RULES_FOLDER)
    }

    /// Whether a file of the folder, by its name, is a rule (markdown).
    pub(crate) fn is_rule_file(name: &str) -> bool {
        Path::new(name).extension().is_some_and(|e| e == "md")
    }

    /// Whether a sub-folder, relative to the folder, holds rules: any but a hidden one
    /// (the `.git` of a rules repository cloned there holds no rule, and hundreds of
    /// folders).
    pub(crate) fn is_rule_folder(rel: &Path) -> bool {
        !rel.components().any(|c| {
            c.as_os_str()
                .to_str()
                .is_some_and(|name| name.starts_with('.'))
        })
    }

    /// The rule files of `home` that exist, sorted by path: those of the folder and of its
    /// rule sub-folders, a sub-folder never entered through a link.
    pub fn files(home: &Path) -> Vec<PathBuf> {
        let root = folder(home);
        let mut files = Vec::new();
        let mut pending = vec![root.clone()];
        while let Some(dir) = pending.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    if path.strip_prefix(&root).is_ok_and(is_rule_folder) {
                        pending.push(path);
                    }
                } else if path.is_file() && entry.file_name().to_str().is_some_and(is_rule_file) {
                    files.push(path);
                }
            }
        }
        files.sort();
        files
    }
}

/// Whether `path` is a subagent's memory index: `.claude/agent-memory/<name>/MEMORY.md`
/// (or `agent-memory-local/`).
fn is_subagent_index(path: &Path) -> bool {
    let names: Vec<&std::ffi::OsStr> = path.iter().rev().take(4).collect();
    matches!(
        names.as_slice(),
        [index, _, memory, dot]
            if *index == super::claude_auto_memory::INDEX
                && (*memory == AGENT_MEMORY || *memory == AGENT_MEMORY_LOCAL)
                && *dot == FILES.dot_dir
    )
}

pub struct ClaudeMd;

impl FormatRules for ClaudeMd {
    fn format(&self) -> Format {
        Format::ClaudeMd
    }

    fn size_note(&self, file_name: &str, text: &str) -> Option<String> {
        if file_name != FILES.main && file_name != FILES.local {
            return None;
        }
        let chars = text.chars().count();
        (chars as u64 > CLAUDE_MD_WARN_CHARS)
            .then(|| format!("{chars} characters: Claude Code warns above {CLAUDE_MD_WARN_CHARS}"))
    }

    /// Launched in a sub-folder, Claude Code reads a CLAUDE.md above as an ancestor
    /// without expanding its imports: an `@AGENTS.md` bridge there loads nothing.
    fn ancestor_import_note(
        &self,
        imported_name: &str,
        written: &str,
        shown: &str,
    ) -> Option<String> {
        (imported_name == super::agents_md::FILES.main).then(|| {
            format!(
                "@{written} loads only when Claude Code is launched in this folder: launched \
                 in a sub-folder, Claude Code reads {shown} as an ancestor without expanding \
                 its imports, so AGENTS.md is not loaded there"
            )
        })
    }

    fn expands_imports(&self) -> bool {
        true
    }

    fn place(&self, rel: &Path) -> Placement {
        FILES.place(rel)
    }

    fn keeps(&self, rel: &Path) -> bool {
        FILES.keeps(rel)
    }

    fn file_budgets(&self, file: &MemoryFile, _preset: Option<&str>) -> Vec<Budget> {
        if file.load != LoadKind::Never && is_subagent_index(&file.path) {
            // Claude Code's subagents documentation: the subagent's prompt holds the
            // first 200 lines or 25 KB of its MEMORY.md, as auto memory's does.
            return vec![
                Budget::new(
                    "a subagent loads only the first 200 lines of its MEMORY.md",
                    RuleSource::ClaudeCode,
                    Unit::Lines,
                    super::claude_auto_memory::MAX_LINES,
                )
                .cutting_off(),
                Budget::new(
                    "a subagent loads only the first 25 KB of its MEMORY.md",
                    RuleSource::ClaudeCode,
                    Unit::Bytes,
                    super::claude_auto_memory::MAX_BYTES,
                )
                .cutting_off(),
            ];
        }
        if file.load == LoadKind::Never || file.file_name() != FILES.main {
            return FILES.file_budgets(file);
        }
        // Claude Code's memory documentation: "target under 200 lines per CLAUDE.md
        // file", as longer files cost context and lower adherence. Its own figure, so
        // the family's borrowed 500 lines has nothing to add here.
        vec![
            Budget::new(
                "Claude Code warns above 40,000 characters per CLAUDE.md",
                RuleSource::ClaudeCode,
                Unit::Characters,
                CLAUDE_MD_WARN_CHARS,
            ),
            Budget::new(
                "Claude Code's target: under 200 lines per CLAUDE.md, for adherence",
                RuleSource::ClaudeCode,
                Unit::Lines,
                CLAUDE_MD_TARGET_LINES,
            ),
        ]
    }

    fn bank_budgets(&self, _preset: Option<&str>) -> Vec<Budget> {
        FILES.bank_budgets()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn user_rules_are_the_markdown_files_of_the_rules_folder_and_its_sub_folders() {
        let temp = tempfile::tempdir().unwrap();
        let home = temp.path();
        let rules = user_rules::folder(home);
        assert_eq!(rules, home.join(".claude/rules"));
        assert!(user_rules::files(home).is_empty());
        for rel in [
            "z.md",
            "a/b/deep.md",
            "a/notes.txt",
            ".git/info/README.md",
            "team/.drafts/idea.md",
        ] {
            let path = rules.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "# Rule\n").unwrap();
        }
        let found: Vec<PathBuf> = user_rules::files(home)
            .iter()
            .map(|f| f.strip_prefix(&rules).unwrap().to_path_buf())
            .collect();
        assert_eq!(found, [Path::new("a/b/deep.md"), Path::new("z.md")]);
    }
}

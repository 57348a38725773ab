//! Claude Code's instruction memory: `CLAUDE.md` and `CLAUDE.local.md` at the project's
//! top or in `.claude/`, rules in `.claude/rules/` (scoped ones load on demand),
//! `sub/CLAUDE.md` just in time.
use std::path::Path;

use super::instruction_files::InstructionFiles;
use super::{Budget, FormatRules, Placement};
use crate::core::formats::Unit;
use crate::core::model::{Format, LoadKind, MemoryFile};

/// Claude Code warns when one CLAUDE.md exceeds this many characters.
pub const CLAUDE_MD_WARN_CHARS: u64 = 40_000;

pub const FILES: InstructionFiles = InstructionFiles {
    main: "CLAUDE.md",
    local: "CLAUDE.local.md",
    override_file: None,
    top_markers: &["CLAUDE.md", "CLAUDE.local.md"],
    dot_dir: ".claude",
    reads_dot_dir: true,
    rules_load: LoadKind::Startup,
    subfolders_load: LoadKind::OnDemand,
    budget_source: "hierarchical memory recommendations (Beans-Code spec), applied to CLAUDE.md",
    local_ignored: None,
};

pub struct ClaudeMd;

impl FormatRules for ClaudeMd {
    fn format(&self) -> Format {
        Format::ClaudeMd
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
        let mut budgets = Vec::new();
        if file.load != LoadKind::Never && file.file_name() == FILES.main {
            budgets.push(Budget::new(
                "Claude Code warns above 40,000 characters per CLAUDE.md",
                "Claude Code",
                Unit::Characters,
                CLAUDE_MD_WARN_CHARS,
            ));
        }
        budgets.extend(FILES.file_budgets(file));
        budgets
    }

    fn bank_budgets(&self, _preset: Option<&str>) -> Vec<Budget> {
        FILES.bank_budgets()
    }
}

//! Claude Code's instruction memory: `CLAUDE.md` and `CLAUDE.local.md` at the project's
//! top or in `.claude/`, rules in `.claude/rules/` (scoped ones load on demand),
//! `sub/CLAUDE.md` just in time.
use std::path::Path;

use super::instruction_files::InstructionFiles;
use super::{Budget, FormatRules, Placement};
use crate::core::analysis::budgets::Unit;
use crate::core::model::{Format, LoadKind, MemoryFile};

/// Claude Code warns when one CLAUDE.md exceeds this many characters.
pub const CLAUDE_MD_WARN_CHARS: u64 = 40_000;

pub const FILES: InstructionFiles = InstructionFiles {
    main: "CLAUDE.md",
    local: "CLAUDE.local.md",
    dot_dir: ".claude",
    reads_dot_dir: true,
    rules_load: LoadKind::Startup,
};

pub struct ClaudeMd;

impl FormatRules for ClaudeMd {
    fn format(&self) -> Format {
        Format::ClaudeMd
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

/// Claude Code loads only this many lines of its auto memory `MEMORY.md`…
pub const AUTO_MEMORY_MAX_LINES: u64 = 200;
/// …and at most this many bytes of it, whichever limit comes first.
pub const AUTO_MEMORY_MAX_BYTES: u64 = 25 * 1024;
/// The auto memory file.
pub const AUTO_MEMORY_FILE: &str = "MEMORY.md";

/// Claude Code's cut-offs of its auto memory, for a `MEMORY.md` in any bank.
pub fn auto_memory_budgets(file: &MemoryFile) -> Vec<Budget> {
    if file.file_name() != AUTO_MEMORY_FILE {
        return Vec::new();
    }
    vec![
        Budget::new(
            "auto memory loads only the first 200 lines",
            "Claude Code MEMORY.md",
            Unit::Lines,
            AUTO_MEMORY_MAX_LINES,
        )
        .cutting_off(),
        Budget::new(
            "auto memory loads only the first 25 KB",
            "Claude Code MEMORY.md",
            Unit::Bytes,
            AUTO_MEMORY_MAX_BYTES,
        )
        .cutting_off(),
    ]
}

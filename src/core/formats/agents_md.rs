//! `AGENTS.md` as Codex and friends read it: the file at the project's top and in
//! sub-folders, project files cut at 32 KiB combined (`project_doc_max_bytes`).
use std::path::Path;

use super::instruction_files::InstructionFiles;
use super::{Budget, FormatRules, Placement};
use crate::core::analysis::budgets::Unit;
use crate::core::model::{Format, LoadKind, MemoryFile};

/// Codex's `project_doc_max_bytes`: AGENTS.md files stop here, combined.
pub const CODEX_PROJECT_DOC_MAX_BYTES: u64 = 32 * 1024;

pub const FILES: InstructionFiles = InstructionFiles {
    main: "AGENTS.md",
    local: "AGENTS.local.md",
    dot_dir: ".codex",
    reads_dot_dir: false,
    rules_load: LoadKind::Startup,
};

pub struct AgentsMd;

impl FormatRules for AgentsMd {
    fn format(&self) -> Format {
        Format::AgentsMd
    }

    fn place(&self, rel: &Path) -> Placement {
        FILES.place(rel)
    }

    fn keeps(&self, rel: &Path) -> bool {
        FILES.keeps(rel)
    }

    fn file_budgets(&self, file: &MemoryFile, _preset: Option<&str>) -> Vec<Budget> {
        FILES.file_budgets(file)
    }

    fn bank_budgets(&self, _preset: Option<&str>) -> Vec<Budget> {
        let mut budgets = FILES.bank_budgets();
        budgets.push(
            Budget::new(
                "Codex stops reading AGENTS.md at 32 KiB combined",
                "Codex project_doc_max_bytes",
                Unit::Bytes,
                CODEX_PROJECT_DOC_MAX_BYTES,
            )
            .cutting_off(),
        );
        budgets
    }
}

//! Gemini CLI's `GEMINI.md`: at the project's top and in sub-folders.
use std::path::Path;

use super::instruction_files::InstructionFiles;
use super::{Budget, FormatRules, Placement};
use crate::core::model::{Format, LoadKind, MemoryFile};

pub const FILES: InstructionFiles = InstructionFiles {
    main: "GEMINI.md",
    local: "GEMINI.local.md",
    dot_dir: ".gemini",
    reads_dot_dir: false,
    rules_load: LoadKind::Startup,
    budget_source: "hierarchical memory recommendations (Beans-Code spec), applied to GEMINI.md",
    local_ignored: Some("Gemini CLI reads GEMINI.md only, no GEMINI.local.md"),
};

pub struct GeminiMd;

impl FormatRules for GeminiMd {
    fn format(&self) -> Format {
        Format::GeminiMd
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
        FILES.bank_budgets()
    }
}

//! Beans-code's `BEANS.md`: `BEANS.md` and `BEANS.local.md` at the project's top or in
//! `.beans/`, rules in `.beans/rules/` (on demand), sub-folders' files just in time.
use std::path::Path;

use super::instruction_files::InstructionFiles;
use super::{Budget, FormatRules, Placement};
use crate::model::{Format, LoadKind, MemoryFile};

pub const FILES: InstructionFiles = InstructionFiles {
    main: "BEANS.md",
    local: "BEANS.local.md",
    override_file: None,
    top_markers: &["BEANS.md", "BEANS.local.md", ".beans"],
    dot_dir: ".beans",
    reads_dot_dir: true,
    reads_dot_dir_main: false,
    rules_load: LoadKind::OnDemand,
    subfolders_load: LoadKind::OnDemand,
    budgets_borrowed: false,
    local_ignored: None,
};

/// How deep Beans-Code follows `@imports` by default.
pub(crate) const IMPORT_DEPTH: usize = 5;

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

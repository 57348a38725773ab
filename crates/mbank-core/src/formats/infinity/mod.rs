//! The Infinity structured store: `.infinity/memories.json`, one JSON file of typed
//! memories that the agent asks for through its server (nothing loads at start).
//! `store` parses it; bank listing turns each memory into a virtual file.
use std::path::{Path, PathBuf};

use super::{Budget, FormatRules, Placement};
use crate::findings::RuleSource;
use crate::formats::Unit;
use crate::model::{Bank, Format, LoadKind, MemoryFile, Role};

pub mod store;

/// The Infinity store sets no size limit; mbank's own defaults say so.
/// The Infinity store sets no size limit: the limits are mbank's defaults.
const SOURCE: RuleSource = RuleSource::Mbank;

pub struct Infinity;

/// The role of a memory, by its type.
pub(crate) fn role_of_kind(kind: &str) -> Role {
    match kind {
        "project_overview" => Role::Brief,
        "design_doc" => Role::Patterns,
        "implementation_plan" | "progress_tracker" => Role::Progress,
        "instructions" => Role::Instructions,
        "rules" => Role::Rules,
        _ => Role::Other,
    }
}

/// The store's folder, at the project's top.
pub const DIR: &str = ".infinity";
/// The store's file, in the `.infinity/` folder.
pub(crate) const STORE_FILE: &str = "memories.json";
/// The file holding the project's id, beside the store.
pub(crate) const PROJECT_ID_FILE: &str = "project_id";
/// The store and the project's id, relative to the project folder.
pub const STORE_PATH: &str = ".infinity/memories.json";
pub const PROJECT_ID_PATH: &str = ".infinity/project_id";

impl FormatRules for Infinity {
    fn format(&self) -> Format {
        Format::Infinity
    }

    fn listing(&self) -> super::Listing {
        super::Listing::Store
    }

    /// The store's folder sits at the project's top.
    fn project_of(&self, bank_root: &Path) -> Option<PathBuf> {
        bank_root.parent().map(Path::to_path_buf)
    }

    fn place(&self, _rel: &Path) -> Placement {
        Placement {
            role: Role::Other,
            layer: None,
            group: None,
            load: LoadKind::OnDemand,
        }
    }

    /// Infinity's store folder is "hidden, ignored by git" (its PRD, "Project Scoping"):
    /// the store and the project id file in it, where they exist.
    fn git_private_files(&self, bank: &Bank) -> Vec<PathBuf> {
        [STORE_FILE, PROJECT_ID_FILE]
            .into_iter()
            .map(|name| bank.root.join(name))
            .filter(|path| path.is_file())
            .collect()
    }

    /// Only the store itself; its memories are virtual files.
    fn keeps(&self, rel: &Path) -> bool {
        rel.components().count() == 1 && rel.file_name().is_some_and(|n| n == STORE_FILE)
    }

    fn file_budgets(&self, file: &MemoryFile, _preset: Option<&str>) -> Vec<Budget> {
        file.memory
            .iter()
            .map(|memory| {
                Budget::new(
                    format!("{} memory", memory.kind),
                    SOURCE,
                    Unit::Tokens,
                    type_budget(&memory.kind),
                )
            })
            .collect()
    }
}

/// Per-type defaults that keep a memory readable in one go.
pub(crate) fn type_budget(kind: &str) -> u64 {
    match kind {
        "project_overview" => 1000,
        "design_doc" => 2000,
        "implementation_plan" => 1500,
        "progress_tracker" => 1000,
        "test_plan" => 1500,
        "instructions" => 800,
        "rules" => 500,
        _ => 1500,
    }
}

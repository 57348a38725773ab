//! Memory Bank MCP / Roo memory bank: a `memory-bank/` folder of kebab-case markdown
//! files (told apart from Cline's by its names), and the JSON document banks of the
//! `memory-bank-mcp-server` family (`global-memory-bank/`, `branch-memory-bank/<branch>/`,
//! also under `docs/`), which the server hands to the agent on request.
//!
//! Budgets and the placeholder check are the memory-bank family's (`cline.rs`).
use std::path::Path;

use super::{Budget, ExpectedFiles, FormatRules, Placement, cline, names};
use crate::core::model::{Bank, Format, LoadKind, MemoryFile, Role};

/// Folder names of the JSON document banks of the `memory-bank-mcp-server` family:
/// one global bank and one bank folder per git branch.
pub const DOCUMENT_BANK_DIRS: [&str; 2] = ["global-memory-bank", "branch-memory-bank"];

/// The five core files of the Memory Bank MCP protocol: product-context, active-context,
/// progress, decision-log and system-patterns. Product context (the overview resource),
/// active context and progress are required because the server's `track_progress` and
/// `update_active_context` tools write the last two on every update and an agent without
/// the first has no picture of the project; decision-log and system-patterns only fill up
/// when a decision or pattern is recorded, so a young bank may lack them: recommended.
const EXPECTED: ExpectedFiles = ExpectedFiles {
    required: &[
        (Role::Product, "product-context.md"),
        (Role::Active, "active-context.md"),
        (Role::Progress, "progress.md"),
    ],
    recommended: &[
        (Role::Decisions, "decision-log.md"),
        (Role::Patterns, "system-patterns.md"),
    ],
};

pub struct MemoryBankMcp;

impl FormatRules for MemoryBankMcp {
    fn format(&self) -> Format {
        Format::MemoryBankMcp
    }

    fn place(&self, rel: &Path) -> Placement {
        cline::place_memory_bank(rel, layer)
    }

    fn file_budgets(&self, file: &MemoryFile, _preset: Option<&str>) -> Vec<Budget> {
        cline::file_budgets(file)
    }

    fn bank_budgets(&self, _preset: Option<&str>) -> Vec<Budget> {
        cline::bank_budgets()
    }

    fn expected_files(&self, bank: &Bank) -> ExpectedFiles {
        // Document banks are filled document by document, on request.
        if document_bank_dir(&bank.root).is_some() {
            ExpectedFiles::default()
        } else {
            EXPECTED
        }
    }
}

/// Roo / Memory Bank MCP read order: brief, product, active, patterns, tech, decisions,
/// progress.
fn layer(role: Role) -> Option<u8> {
    Some(match role {
        Role::Brief => 1,
        Role::Product => 2,
        Role::Active => 3,
        Role::Patterns => 4,
        Role::Tech => 5,
        Role::Decisions => 6,
        Role::Progress => 7,
        _ => return None,
    })
}

/// The document-bank folder name of a bank root, when it is one.
pub fn document_bank_dir(root: &Path) -> Option<&'static str> {
    let name = root.file_name()?.to_str()?;
    DOCUMENT_BANK_DIRS.into_iter().find(|d| *d == name)
}

/// Places a file of a document bank (`global-memory-bank/`, `branch-memory-bank/<branch>/`).
/// The MCP server hands documents to the agent on request, so nothing loads at start.
pub fn place_document_bank(bank_dir_name: &str, rel: &Path) -> Placement {
    let components: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let file_name = components.last().cloned().unwrap_or_default();
    let group = components.len().gt(&1).then(|| components[0].clone());
    // In a branch bank the first folder is the branch; its own files are its core documents.
    let depth_in_group = if bank_dir_name == "branch-memory-bank" {
        components.len().saturating_sub(2)
    } else {
        components.len().saturating_sub(1)
    };
    let is_document = file_name.ends_with(".json") || names::is_markdown(&file_name);
    let role = if depth_in_group == 0 {
        names::role_for_name(&file_name).unwrap_or(Role::Other)
    } else {
        Role::Other
    };
    Placement {
        role,
        layer: if depth_in_group == 0 {
            layer(role)
        } else {
            None
        },
        group,
        load: if is_document {
            LoadKind::OnDemand
        } else {
            LoadKind::Never
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn document_banks_group_by_branch() {
        let p = place_document_bank(
            "branch-memory-bank",
            &PathBuf::from("feature-x/activeContext.json"),
        );
        assert_eq!(
            (p.role, p.group.as_deref(), p.load),
            (Role::Active, Some("feature-x"), LoadKind::OnDemand)
        );
        let p = place_document_bank(
            "branch-memory-bank",
            &PathBuf::from("feature-x/design/plan.json"),
        );
        assert_eq!(p.role, Role::Other);
        let p = place_document_bank("global-memory-bank", &PathBuf::from("core/glossary.json"));
        assert_eq!((p.role, p.group.as_deref()), (Role::Other, Some("core")));
        let p = place_document_bank("global-memory-bank", &PathBuf::from(".gitkeep"));
        assert_eq!(p.load, LoadKind::Never);
    }
}

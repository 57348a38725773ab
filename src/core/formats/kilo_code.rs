//! Kilo Code: project rules in `.kilocode/rules/` (every file, read recursively, at the
//! start of every task, after the global `~/.kilocode/rules/`), mode rules in
//! `.kilocode/rules-{mode}/` (read only in that mode), the legacy `.kilocoderules`, and the
//! memory bank Kilo's documentation describes: `.kilocode/rules/memory-bank/` with
//! `brief.md` (kept by the person), `product.md`, `context.md` (the current work),
//! `architecture.md`, `tech.md` and an optional `tasks.md`, read in full at the start of
//! every task. Kilo documents no size limit for rules or the bank, so no budget applies.
use std::ffi::OsStr;
use std::path::{Component, Path};

use super::{FormatRules, Placement, ProjectPaths, names};
use crate::core::model::{Format, LoadKind, Role};

pub const RULES_DIR: &str = ".kilocode/rules";
pub const MEMORY_BANK_DIR: &str = ".kilocode/rules/memory-bank";
pub const LEGACY_FILE: &str = ".kilocoderules";
const PATHS: ProjectPaths = ProjectPaths {
    files: &[LEGACY_FILE],
    folders: &[".kilocode"],
};

pub struct KiloCode;

/// The role of a memory-bank file by Kilo's own names; other names keep the role the
/// family's name table gives them (`projectbrief.md` in a hand-made bank).
fn memory_bank_role(file_name: &str) -> Role {
    match names::name_key(file_name).as_str() {
        "brief" => Role::Brief,
        "product" => Role::Product,
        "context" => Role::Active,
        "architecture" => Role::Patterns,
        "tech" => Role::Tech,
        _ => names::role_for_name(file_name).unwrap_or(Role::Other),
    }
}

/// Kilo's read order of its memory bank: brief, product, context, architecture, tech, tasks.
fn memory_bank_layer(file_name: &str) -> Option<u8> {
    Some(match names::name_key(file_name).as_str() {
        "brief" => 1,
        "product" => 2,
        "context" => 3,
        "architecture" => 4,
        "tech" => 5,
        "tasks" => 6,
        _ => return None,
    })
}

/// The mode of a `.kilocode/rules-{mode}/` path.
fn mode_folder(rel: &Path) -> Option<&str> {
    let mut parts = rel.components();
    if parts.next() != Some(Component::Normal(OsStr::new(".kilocode"))) {
        return None;
    }
    match parts.next() {
        Some(Component::Normal(folder)) => folder.to_str()?.strip_prefix("rules-"),
        _ => None,
    }
}

impl FormatRules for KiloCode {
    fn format(&self) -> Format {
        Format::KiloCode
    }

    fn place(&self, rel: &Path) -> Placement {
        let file_name = rel
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        let (role, layer, group, load) = if rel == Path::new(LEGACY_FILE) {
            (Role::Rules, Some(8), None, LoadKind::Startup)
        } else if rel.parent() == Some(Path::new(MEMORY_BANK_DIR)) {
            let role = memory_bank_role(&file_name);
            let load = if names::is_markdown(&file_name) {
                LoadKind::Startup
            } else {
                LoadKind::Never
            };
            (
                role,
                memory_bank_layer(&file_name),
                Some("memory-bank".to_string()),
                load,
            )
        } else if rel.starts_with(RULES_DIR) {
            // Kilo reads the rules folder recursively, archives included, but leaves out
            // the cache and backup files Roo's loader, which it shares, skips.
            let load = if super::roo_rules::skipped_by_the_rule_loader(&file_name) {
                LoadKind::Never
            } else {
                LoadKind::Startup
            };
            (Role::Rules, Some(7), Some("rules".into()), load)
        } else if let Some(mode) = mode_folder(rel) {
            (
                Role::Rules,
                None,
                Some(format!("rules-{mode}")),
                LoadKind::OnDemand,
            )
        } else {
            (Role::Other, None, None, LoadKind::Never)
        };
        Placement {
            role,
            layer,
            group,
            load,
        }
    }

    fn keeps(&self, rel: &Path) -> bool {
        PATHS.contains(rel)
    }

    fn project_paths(&self) -> ProjectPaths {
        PATHS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placed(rel: &str) -> (Role, Option<u8>, LoadKind) {
        let p = KiloCode.place(Path::new(rel));
        (p.role, p.layer, p.load)
    }

    #[test]
    fn the_memory_bank_loads_at_start_in_kilos_order_with_kilos_roles() {
        assert_eq!(
            placed(".kilocode/rules/memory-bank/brief.md"),
            (Role::Brief, Some(1), LoadKind::Startup)
        );
        assert_eq!(
            placed(".kilocode/rules/memory-bank/context.md"),
            (Role::Active, Some(3), LoadKind::Startup)
        );
        assert_eq!(
            placed(".kilocode/rules/memory-bank/architecture.md"),
            (Role::Patterns, Some(4), LoadKind::Startup)
        );
        assert_eq!(
            placed(".kilocode/rules/memory-bank/tasks.md"),
            (Role::Other, Some(6), LoadKind::Startup)
        );
        assert_eq!(
            placed(".kilocode/rules/memory-bank/implementation-status.md"),
            (Role::Other, None, LoadKind::Startup)
        );
    }

    #[test]
    fn project_rules_load_always_and_mode_rules_only_in_their_mode() {
        assert_eq!(
            placed(".kilocode/rules/memory-bank-instructions.md"),
            (Role::Rules, Some(7), LoadKind::Startup)
        );
        assert_eq!(
            placed(".kilocoderules"),
            (Role::Rules, Some(8), LoadKind::Startup)
        );
        let p = KiloCode.place(Path::new(".kilocode/rules-code/style.md"));
        assert_eq!((p.role, p.load), (Role::Rules, LoadKind::OnDemand));
        assert_eq!(p.group.as_deref(), Some("rules-code"));
        assert_eq!(
            placed(".kilocode/mcp.json"),
            (Role::Other, None, LoadKind::Never)
        );
        assert_eq!(
            placed(".kilocode/rules/old/notes.md.bak"),
            (Role::Rules, Some(7), LoadKind::Never)
        );
    }
}

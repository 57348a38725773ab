//! Rule files an agent loads at every session (`.cursor/rules/*.mdc`, `.clinerules/`,
//! `.roo/rules-*/`, `.trae/rules/`, `.windsurf/rules/`) are often written once for many
//! projects, their paths examples of a layout rather than this code's: a path they name
//! is reported only where this repository's history shows it was here and is gone
//! (removed, renamed or moved), which no template can make up.
use super::MemoryDoc;
use crate::model::Role;

/// Whether `doc` is such a rule file: markdown, or a rule file named with no extension
/// (`.cursorrules`, `.clinerules`).
pub(super) fn is_rule_file(doc: MemoryDoc<'_>) -> bool {
    doc.role == Role::Rules
        && doc.path.extension().is_none_or(|ext| {
            matches!(
                ext.to_string_lossy().to_ascii_lowercase().as_str(),
                "md" | "mdc" | "markdown"
            )
        })
}

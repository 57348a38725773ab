//! Rule files an agent loads at every session (`.cursor/rules/*.mdc`, `.clinerules/`,
//! `.roo/rules-*/`, `.trae/rules/`, `.windsurf/rules/`) are often written once for many
//! projects, their paths examples of a layout rather than this code's: a path they name
//! is reported only where this repository's history shows it was here and is gone
//! (removed, renamed or moved), which no template can make up. The code names they
//! write (`AnimatedContent`, `MockMvcRequestBuilders`) are mostly a framework's, and are
//! reported only on a line that also names a path this repository has.
use std::collections::HashSet;
use std::path::Path;

use super::extract::ClaimKind;
use super::{Made, MemoryDoc};
use crate::model::Role;

/// Whether `doc` is such a rule file: markdown, or a rule file named with no extension
/// (`.cursorrules`, `.clinerules`); or GitHub Copilot's path-specific instructions
/// (`.github/instructions/*.instructions.md`), which are rules by another name.
pub(super) fn is_rule_file(doc: MemoryDoc<'_>) -> bool {
    if crate::formats::copilot::is_path_specific_anywhere(doc.path) {
        return true;
    }
    doc.role == Role::Rules
        && doc.path.extension().is_none_or(|ext| {
            matches!(
                ext.to_string_lossy().to_ascii_lowercase().as_str(),
                "md" | "mdc" | "markdown"
            )
        })
}

/// The lines (file, line) of rule files that name a path present in the repository:
/// `missing` holds, beside each of `made`, the spellings of a path not found (`None`
/// for one found, and for claims of other kinds).
pub(super) fn lines_naming_present_paths<'m>(
    made: &'m [Made<'_>],
    missing: &[Option<Vec<String>>],
) -> HashSet<(&'m Path, usize)> {
    made.iter()
        .zip(missing)
        .filter(|(m, missing)| m.gone_only && m.claim.kind == ClaimKind::Path && missing.is_none())
        .flat_map(|(m, _)| m.lines.iter().map(move |&line| (m.doc.path, line)))
        .collect()
}

/// Whether one of the lines `m` is made on names a present path ([`lines_naming_present_paths`]).
pub(super) fn is_tied(tied: &HashSet<(&Path, usize)>, m: &Made<'_>) -> bool {
    m.lines
        .iter()
        .any(|&line| tied.contains(&(m.doc.path, line)))
}

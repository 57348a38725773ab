//! Cline/Roo rule and mode files in the project folder: `.clinerules` (a file or a
//! folder of rules) and `.roo/rules/` load at every start; `.roomodes`, the mode files
//! `.clinerules-{mode}` / `.roorules-{mode}` and `.roo/rules-{mode}/` only in their mode.
//! `modes` parses the mode files.
use std::path::Path;

use super::{Budget, FormatRules, Placement, cline, split_rel};
use crate::core::model::{Bank, Format, LoadKind, MemoryFile, Role};

pub mod modes;

pub struct RooRules;

impl FormatRules for RooRules {
    fn format(&self) -> Format {
        Format::RooRules
    }

    fn place(&self, rel: &Path) -> Placement {
        let (file_name, parents) = split_rel(rel);
        place(&file_name, &parents)
    }

    fn keeps(&self, rel: &Path) -> bool {
        let mut components = rel.components();
        let first = components.next().map(|c| c.as_os_str());
        let single = components.next().is_none();
        let name = rel
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        first.is_some_and(|f| f == ".roo" || f == ".clinerules")
            || (single && (name == ".roomodes" || mode_of_rule_file(&name).is_some()))
    }

    fn bank_budgets(&self, _preset: Option<&str>) -> Vec<Budget> {
        cline::bank_budgets()
    }
}

/// `.clinerules-code` → `code`, `.roorules-debug` → `debug`.
pub fn mode_of_rule_file(file_name: &str) -> Option<&str> {
    file_name
        .strip_prefix(".clinerules-")
        .or_else(|| file_name.strip_prefix(".roorules-"))
        .filter(|m| !m.is_empty())
}

/// `.roomodes` or a mode rule file at the top of the bank (the project folder).
pub fn is_mode_file(bank: &Bank, file: &MemoryFile) -> bool {
    let name = file.file_name();
    file.path.parent() == Some(bank.root.as_path())
        && (name == ".roomodes" || mode_of_rule_file(&name).is_some())
}

fn place(file_name: &str, parents: &[String]) -> Placement {
    let first = parents.first().map(String::as_str);
    let (role, layer, group, load) = match first {
        None if file_name == ".clinerules" => (Role::Rules, Some(1), None, LoadKind::Startup),
        None if file_name == ".roomodes" => (Role::Config, Some(2), None, LoadKind::OnDemand),
        None if mode_of_rule_file(file_name).is_some() => {
            (Role::Rules, Some(3), None, LoadKind::OnDemand)
        }
        // .clinerules/ as a folder of rule files (newer Cline).
        Some(".clinerules") => (
            Role::Rules,
            Some(1),
            Some(".clinerules".to_string()),
            LoadKind::Startup,
        ),
        Some(".roo") => {
            let sub = parents.get(1).map(String::as_str);
            match sub {
                Some("rules") => (
                    Role::Rules,
                    Some(1),
                    Some("rules".into()),
                    LoadKind::Startup,
                ),
                Some(s) if s.starts_with("rules-") => (
                    Role::Rules,
                    Some(3),
                    Some(s.to_string()),
                    LoadKind::OnDemand,
                ),
                Some(s) => (Role::Other, None, Some(s.to_string()), LoadKind::Never),
                None if file_name.starts_with("system-prompt-") => {
                    (Role::Instructions, Some(3), None, LoadKind::OnDemand)
                }
                None => (Role::Config, None, None, LoadKind::Never),
            }
        }
        _ => (Role::Other, None, parents.first().cloned(), LoadKind::Never),
    };
    Placement {
        role,
        layer,
        group,
        load,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn roo_mode_files_load_on_demand() {
        assert_eq!(
            mode_of_rule_file(".clinerules-architect"),
            Some("architect")
        );
        assert_eq!(mode_of_rule_file(".roorules-debug"), Some("debug"));
        assert_eq!(mode_of_rule_file(".clinerules"), None);
        let p = RooRules.place(&PathBuf::from(".roo/rules-code/rules.md"));
        assert_eq!(
            (p.load, p.group.as_deref()),
            (LoadKind::OnDemand, Some("rules-code"))
        );
        let p = RooRules.place(&PathBuf::from(".clinerules"));
        assert_eq!(p.load, LoadKind::Startup);
    }
}

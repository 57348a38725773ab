//! Beans-code's `BEANS.md`: `BEANS.md` and `BEANS.local.md` at the project's top or in
//! `.beans/`, rules in `.beans/rules/` (on demand), sub-folders' files just in time.
use std::path::Path;

use super::instruction_files::InstructionFiles;
use super::{Budget, FormatRules, Placement, rule_frontmatter};
use crate::findings::{Finding, FindingCode, Severity};
use crate::model::{Format, LoadKind, MemoryFile, Role};

/// The priorities a rule may name ("YAML Frontmatter Fields").
const PRIORITIES: [&str; 3] = ["low", "medium", "high"];

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

    /// A modular rule's frontmatter (the Beans-Code memory recommendations, "YAML
    /// Frontmatter Fields"): `priority` is low, medium or high; `triggers` (keywords) or
    /// `globs` (file patterns) are what load the rule on demand.
    fn check_text(&self, file: &MemoryFile, text: &str) -> Vec<Finding> {
        if file.role != Role::Rules {
            return Vec::new();
        }
        rule_frontmatter::check_rule(
            file,
            text,
            |_| true,
            "Beans-Code",
            |fm, out| {
                if let Some(priority) = fm.text("priority")
                    && !PRIORITIES.contains(&priority.to_ascii_lowercase().as_str())
                {
                    out.push(Finding::new(
                        Severity::Warning,
                        FindingCode::RuleFrontmatterValue,
                        &file.path,
                        fm.get("priority").map(|e| e.line),
                        format!(
                            "priority: {priority} is not one Beans-Code knows (low, medium, \
                         high): the rule loses conflicts and is cut first when memory is \
                         truncated"
                        ),
                    ));
                }
                if fm.list("triggers").is_empty() && fm.list("globs").is_empty() {
                    out.push(Finding::new(
                        Severity::Info,
                        FindingCode::RuleNeverPicked,
                        &file.path,
                        fm.get("triggers").map(|e| e.line),
                        "no triggers or globs: Beans-Code loads modular rules when their \
                     trigger keywords or file patterns match, so this one loads only when \
                     named"
                            .to_string(),
                    ));
                }
            },
        )
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn rule(text: &str) -> Vec<(&'static str, Severity)> {
        let file = MemoryFile {
            path: PathBuf::from(".beans/rules/testing.md"),
            display: ".beans/rules/testing.md".into(),
            role: Role::Rules,
            layer: Some(2),
            order: 0,
            group: Some("rules".into()),
            load: LoadKind::OnDemand,
            size: text.len() as u64,
            modified: None,
            changed: None,
            memory: None,
            unreadable: None,
        };
        BeansMd
            .check_text(&file, text)
            .into_iter()
            .map(|f| (f.code.id(), f.severity))
            .collect()
    }

    #[test]
    fn a_rule_needs_a_known_priority_and_a_trigger_or_glob() {
        let good = "---\nname: testing\ntriggers:\n  - write tests\npriority: high\n---\n# T\n";
        assert!(rule(good).is_empty());
        let globbed = "---\nglobs: [\"**/*.test.ts\"]\npriority: Low\n---\n# T\n";
        assert!(rule(globbed).is_empty());
        let bad = "---\ntriggers:\n  - coverage\npriority: urgent\n---\n# T\n";
        assert_eq!(
            rule(bad),
            vec![("rule-frontmatter-value", Severity::Warning)]
        );
        assert_eq!(
            rule("# Testing\n- Use Vitest\n"),
            vec![("rule-never-picked", Severity::Info)]
        );
    }

    #[test]
    fn beans_follows_imports_five_deep() {
        assert_eq!(BeansMd.import_depth(), Some(5));
    }
}

//! Trae's project rules: the Markdown files of `.trae/rules/` ("Rules", docs.trae.ai; the
//! TRAE IDE rules page): a rule applies in every chat of the project unless its
//! frontmatter says otherwise, `alwaysApply: false` with `globs` applying it to matching
//! files, with only a `description` when the agent finds it relevant, with neither when
//! the user names it. Trae documents no size limit, so no budget applies.
use std::path::Path;

use super::rule_frontmatter;
use super::{FormatRules, Placement, ProjectPaths, names};
use crate::model::{Format, LoadKind, Role};

pub(crate) const RULES_DIR: &str = ".trae/rules";
const PATHS: ProjectPaths = ProjectPaths {
    files: &[],
    folders: &[RULES_DIR],
    lookalikes: &[],
};

/// A Markdown file of the rules folder.
fn is_rule(rel: &Path) -> bool {
    rel.starts_with(RULES_DIR)
        && rel
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(names::is_markdown)
}

pub(crate) struct TraeRules;

impl FormatRules for TraeRules {
    fn format(&self) -> Format {
        Format::TraeRules
    }

    fn place(&self, rel: &Path) -> Placement {
        let (role, layer, load) = if is_rule(rel) {
            (Role::Rules, Some(1), LoadKind::Startup)
        } else {
            (Role::Other, None, LoadKind::Never)
        };
        Placement {
            role,
            layer,
            group: Some("rules".into()),
            load,
        }
    }

    fn keeps(&self, rel: &Path) -> bool {
        PATHS.contains(rel)
    }

    fn project_paths(&self) -> ProjectPaths {
        PATHS
    }

    fn reads_frontmatter(&self, rel: &Path) -> bool {
        is_rule(rel)
    }

    fn frontmatter_load(&self, _rel: &Path, text: &str) -> Option<LoadKind> {
        let fm = rule_frontmatter::read(text);
        if fm.flag("alwaysApply") != Some(Ok(false)) {
            return None;
        }
        Some(if !fm.list("globs").is_empty() {
            LoadKind::OnDemand
        } else if fm.text("description").is_some() {
            LoadKind::AgentRequested
        } else {
            LoadKind::Manual
        })
    }

    fn lenient_frontmatter(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_applies_always_unless_its_frontmatter_says_otherwise() {
        let rel = Path::new(".trae/rules/project_rules.md");
        assert_eq!(TraeRules.place(rel).load, LoadKind::Startup);
        assert_eq!(TraeRules.frontmatter_load(rel, "# Rules\n"), None);
        let load = |fm: &str| TraeRules.frontmatter_load(rel, &format!("---\n{fm}\n---\n# R\n"));
        assert_eq!(load("alwaysApply: true"), None);
        assert_eq!(
            load("alwaysApply: false\nglobs: src/**/*.ts"),
            Some(LoadKind::OnDemand)
        );
        assert_eq!(
            load("alwaysApply: false\ndescription: database work"),
            Some(LoadKind::AgentRequested)
        );
        assert_eq!(load("alwaysApply: false"), Some(LoadKind::Manual));
        assert_eq!(
            TraeRules.place(Path::new(".trae/rules/logo.png")).load,
            LoadKind::Never
        );
    }
}

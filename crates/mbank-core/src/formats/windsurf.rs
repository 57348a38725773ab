//! Windsurf's rules: `.windsurf/rules/**/*.md`, each loaded as its `trigger` says
//! (`always_on` at every session start, `glob` when a file matching its `globs` is in
//! play, `model_decision` when Cascade judges its description relevant, `manual` only when
//! @-mentioned), and the legacy `.windsurfrules` at the project's top, read at every start.
//! Windsurf cuts each rule file at 12,000 characters. Its documentation sets no limit on
//! the rules loaded together (an older one shared 12,000 characters between the global
//! rules and `.windsurfrules`), so none is judged.
use std::path::Path;

use super::rule_frontmatter::{self, RuleFrontmatter};
use super::{Budget, FormatRules, Placement, ProjectPaths};
use crate::findings::RuleSource;
use crate::findings::{Finding, FindingCode, Severity};
use crate::formats::Unit;
use crate::model::{Format, LoadKind, MemoryFile, Role};

pub(crate) const LEGACY_FILE: &str = ".windsurfrules";
pub(crate) const RULES_DIR: &str = ".windsurf/rules";
const PATHS: ProjectPaths = ProjectPaths {
    files: &[LEGACY_FILE],
    folders: &[RULES_DIR],
    lookalikes: &[],
};
const SOURCE: RuleSource = RuleSource::Windsurf;

/// Windsurf cuts one rule file here.
pub(crate) const RULE_FILE_MAX_CHARS: u64 = 12_000;

const TRIGGERS: [&str; 4] = ["always_on", "glob", "model_decision", "manual"];

pub struct Windsurf;

fn is_rule(rel: &Path) -> bool {
    rel.starts_with(RULES_DIR)
        && rel
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("md"))
}

/// When a rule loads; a rule without a trigger is taken as always on, like the rules
/// Windsurf read before triggers existed.
fn load_of(fm: &RuleFrontmatter) -> LoadKind {
    match fm.text("trigger") {
        None | Some("always_on") => LoadKind::Startup,
        Some("glob") if !fm.list("globs").is_empty() => LoadKind::OnDemand,
        Some("model_decision") => LoadKind::AgentRequested,
        _ => LoadKind::Manual,
    }
}

impl FormatRules for Windsurf {
    fn format(&self) -> Format {
        Format::Windsurf
    }

    fn file_limit(&self, rel: &Path) -> Option<super::FileLimit> {
        (rel == Path::new(LEGACY_FILE) || is_rule(rel)).then_some(super::FileLimit {
            agent: "Windsurf",
            max_lines: None,
            max_bytes: None,
            max_chars: Some(RULE_FILE_MAX_CHARS as usize),
            rule: "Windsurf: a rule file stops at 12,000 characters",
        })
    }

    fn place(&self, rel: &Path) -> Placement {
        let (role, layer, group, load) = if rel == Path::new(LEGACY_FILE) {
            (Role::Rules, Some(1), None, LoadKind::Startup)
        } else if is_rule(rel) {
            (
                Role::Rules,
                Some(2),
                Some("rules".into()),
                LoadKind::Startup,
            )
        } else {
            (Role::Other, None, Some("rules".into()), LoadKind::Never)
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

    fn file_budgets(&self, file: &MemoryFile, _preset: Option<&str>) -> Vec<Budget> {
        if file.load == LoadKind::Never {
            return Vec::new();
        }
        vec![
            Budget::new(
                "Windsurf reads at most 12,000 characters of a rule file",
                SOURCE,
                Unit::Characters,
                RULE_FILE_MAX_CHARS,
            )
            .cutting_off(),
        ]
    }

    fn project_paths(&self) -> ProjectPaths {
        PATHS
    }

    fn reads_frontmatter(&self, rel: &Path) -> bool {
        is_rule(rel)
    }

    fn frontmatter_load(&self, _rel: &Path, text: &str) -> Option<LoadKind> {
        Some(load_of(&rule_frontmatter::read(text)))
    }

    fn check_text(&self, file: &MemoryFile, text: &str) -> Vec<Finding> {
        rule_frontmatter::check_rule(file, text, is_rule, "Windsurf", |fm, out| {
            out.extend(rule_frontmatter::misspelled_keys(
                fm,
                &["trigger", "globs", "description"],
                &file.path,
                "Windsurf",
            ));
            let line = fm.get("trigger").map(|e| e.line);
            match fm.text("trigger") {
            Some(trigger) if !TRIGGERS.contains(&trigger) => out.push(Finding::new(
                Severity::Warning,
                FindingCode::RuleFrontmatterValue,
                &file.path,
                line,
                format!(
                    "trigger: {trigger} is not one Windsurf knows (always_on, glob, \
                     model_decision, manual): the rule loads only when @-mentioned"
                ),
            )),
            Some("glob") if fm.list("globs").is_empty() => {
                out.push(rule_frontmatter::never_picked(
                    &file.path,
                    line,
                    "trigger: glob without globs: Windsurf never applies the rule by itself; it \
                     loads only when @-mentioned"
                        .to_string(),
                ))
            }
            Some("model_decision") if fm.text("description").is_none() => {
                out.push(rule_frontmatter::never_picked(
                    &file.path,
                    line,
                    "trigger: model_decision without a description: Cascade has nothing to \
                     decide on, so it never picks the rule"
                        .to_string(),
                ))
            }
            _ => {}
        }
        })
    }

    fn lenient_frontmatter(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> LoadKind {
        load_of(&rule_frontmatter::read(text))
    }

    #[test]
    fn trigger_decides_when_a_rule_loads() {
        assert_eq!(load("---\ntrigger: always_on\n---\n"), LoadKind::Startup);
        assert_eq!(load("# plain rule\n"), LoadKind::Startup);
        assert_eq!(
            load("---\ntrigger: glob\nglobs: *.js, src/**/*.ts\n---\n"),
            LoadKind::OnDemand
        );
        assert_eq!(
            load("---\ntrigger: model_decision\ndescription: db work\n---\n"),
            LoadKind::AgentRequested
        );
        assert_eq!(load("---\ntrigger: manual\n---\n"), LoadKind::Manual);
        assert_eq!(load("---\ntrigger: glob\n---\n"), LoadKind::Manual);
    }
}

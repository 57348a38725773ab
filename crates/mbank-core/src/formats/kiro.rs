//! Kiro's steering: `.kiro/steering/**/*.md`, each loaded as its `inclusion` says
//! (`always`, the default, with every interaction; `fileMatch` when a file matching its
//! `fileMatchPattern` is in play; `auto` when Kiro judges its description relevant;
//! `manual` only when referenced with `#name`). Kiro documents no size limit for steering
//! files, so no budget applies.
use std::path::Path;

use super::rule_frontmatter::{self, RuleFrontmatter};
use super::{FormatRules, Placement, ProjectPaths};
use crate::findings::{Finding, FindingCode, Severity};
use crate::model::{Format, LoadKind, MemoryFile, Role};

pub(crate) const STEERING_DIR: &str = ".kiro/steering";
const PATHS: ProjectPaths = ProjectPaths {
    files: &[],
    folders: &[STEERING_DIR],
    lookalikes: &[],
};
const INCLUSIONS: [&str; 4] = ["always", "fileMatch", "auto", "manual"];

pub struct Kiro;

fn is_steering(rel: &Path) -> bool {
    rel.starts_with(STEERING_DIR)
        && rel
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("md"))
}

fn load_of(fm: &RuleFrontmatter) -> LoadKind {
    match fm.text("inclusion") {
        None | Some("always") => LoadKind::Startup,
        Some("fileMatch") if !fm.list("fileMatchPattern").is_empty() => LoadKind::OnDemand,
        Some("auto") => LoadKind::AgentRequested,
        _ => LoadKind::Manual,
    }
}

impl FormatRules for Kiro {
    fn format(&self) -> Format {
        Format::Kiro
    }

    fn place(&self, rel: &Path) -> Placement {
        let (role, layer, load) = if is_steering(rel) {
            (Role::Instructions, Some(1), LoadKind::Startup)
        } else {
            (Role::Other, None, LoadKind::Never)
        };
        Placement {
            role,
            layer,
            group: Some("steering".into()),
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
        is_steering(rel)
    }

    fn frontmatter_load(&self, _rel: &Path, text: &str) -> Option<LoadKind> {
        Some(load_of(&rule_frontmatter::read(text)))
    }

    fn check_text(&self, file: &MemoryFile, text: &str) -> Vec<Finding> {
        rule_frontmatter::check_rule(file, text, is_steering, "Kiro", |fm, out| {
            out.extend(rule_frontmatter::misspelled_keys(
                fm,
                &["inclusion", "fileMatchPattern", "name", "description"],
                &file.path,
                "Kiro",
            ));
            let line = fm.get("inclusion").map(|e| e.line);
            match fm.text("inclusion") {
            Some(inclusion) if !INCLUSIONS.contains(&inclusion) => out.push(Finding::new(
                Severity::Warning,
                FindingCode::RuleFrontmatterValue,
                &file.path,
                line,
                format!(
                    "inclusion: {inclusion} is not one Kiro knows (always, fileMatch, auto, \
                     manual): the file loads only when referenced with #"
                ),
            )),
            Some("fileMatch") if fm.list("fileMatchPattern").is_empty() => {
                out.push(rule_frontmatter::never_picked(
                    &file.path,
                    line,
                    "inclusion: fileMatch without a fileMatchPattern: Kiro never includes the \
                     file by itself; it loads only when referenced with #"
                        .to_string(),
                ))
            }
            Some("auto") if fm.text("description").is_none() => {
                out.push(rule_frontmatter::never_picked(
                    &file.path,
                    line,
                    "inclusion: auto without a description: Kiro has nothing to match requests \
                     against, so it never picks the file"
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
    fn inclusion_decides_when_steering_loads() {
        assert_eq!(load("# product\n"), LoadKind::Startup);
        assert_eq!(load("---\ninclusion: always\n---\n"), LoadKind::Startup);
        assert_eq!(
            load("---\ninclusion: fileMatch\nfileMatchPattern: 'components/**/*.tsx'\n---\n"),
            LoadKind::OnDemand
        );
        assert_eq!(load("---\ninclusion: manual\n---\n"), LoadKind::Manual);
        assert_eq!(
            load("---\ninclusion: auto\ndescription: api work\n---\n"),
            LoadKind::AgentRequested
        );
    }
}

//! The frontmatter of editor rule files (Cursor, Copilot, Windsurf, Kiro), read the way
//! those tools read it rather than as strict YAML: `key: value` lines, values bare or
//! quoted, lists as `- item` lines, `[a, b]` or one comma-separated string. A bare glob
//! (`globs: **/*.ts`), which strict YAML rejects as an alias, is read as the tools read it.
//! Linear in the text; nothing here can fail, problems are collected.
use std::path::Path;

use crate::findings::{Finding, FindingCode, Severity};
use crate::markup::markdown;
use crate::model::MemoryFile;

/// One `key: value` line, with the list items under it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FrontmatterEntry {
    pub key: String,
    /// The value on the key's line, unquoted (empty when the value is a list below).
    pub value: String,
    /// `- item` lines under the key, unquoted.
    pub items: Vec<String>,
    /// 1-based line in the file.
    pub line: usize,
}

/// What a rule file's frontmatter says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct RuleFrontmatter {
    /// The file opens with `---`.
    pub present: bool,
    /// Opened with `---` and never closed: the tool reads the whole file as metadata, or
    /// none of it.
    pub unclosed: bool,
    pub entries: Vec<FrontmatterEntry>,
    /// 1-based file lines that are neither `key: value`, a list item, a continuation, a
    /// comment nor blank.
    pub unreadable: Vec<usize>,
    /// 1-based line of the first frontmatter line (the one after `---`).
    pub first_line: usize,
}

fn unquote(value: &str) -> &str {
    let value = value.trim();
    for quote in ['"', '\''] {
        if let Some(inner) = value
            .strip_prefix(quote)
            .and_then(|v| v.strip_suffix(quote))
        {
            return inner;
        }
    }
    value
}

fn is_key(key: &str) -> bool {
    !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// Reads the frontmatter of a rule file.
pub fn read(text: &str) -> RuleFrontmatter {
    if markdown::has_unclosed_frontmatter(text) {
        return RuleFrontmatter {
            present: true,
            unclosed: true,
            first_line: 2,
            ..RuleFrontmatter::default()
        };
    }
    let Some(fm) = markdown::frontmatter(text) else {
        return RuleFrontmatter::default();
    };
    let mut out = RuleFrontmatter {
        present: true,
        first_line: fm.first_line,
        ..RuleFrontmatter::default()
    };
    // YAML lets the whole mapping sit indented (`    applyTo: '**'` under `---`): what
    // counts as indented is what is deeper than its first key.
    let indent_of = |raw: &str| raw.len() - raw.trim_start_matches([' ', '\t']).len();
    let base = fm
        .yaml
        .lines()
        .find(|raw| {
            let trimmed = raw.trim();
            !trimmed.is_empty() && !trimmed.starts_with('#')
        })
        .map_or(0, indent_of);
    for (index, raw) in fm.yaml.lines().enumerate() {
        let line = fm.first_line + index;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let indented = indent_of(raw) > base;
        if let Some(item) = trimmed
            .strip_prefix('-')
            .filter(|_| indented || indent_of(raw) == base)
        {
            match out.entries.last_mut() {
                Some(entry) if entry.value.is_empty() || !entry.items.is_empty() => {
                    entry.items.push(unquote(item).to_string());
                }
                _ => out.unreadable.push(line),
            }
            continue;
        }
        if indented {
            // A folded continuation of the value above.
            match out.entries.last_mut() {
                Some(entry) if entry.items.is_empty() => {
                    if !entry.value.is_empty() {
                        entry.value.push(' ');
                    }
                    entry.value.push_str(unquote(trimmed));
                }
                _ => out.unreadable.push(line),
            }
            continue;
        }
        match trimmed.split_once(':') {
            Some((key, value)) if is_key(key.trim()) => out.entries.push(FrontmatterEntry {
                key: key.trim().to_string(),
                value: unquote(value).to_string(),
                items: Vec::new(),
                line,
            }),
            _ => out.unreadable.push(line),
        }
    }
    out
}

impl RuleFrontmatter {
    /// The entry of `key` (the first one; keys are matched without regard to case).
    pub fn get(&self, key: &str) -> Option<&FrontmatterEntry> {
        self.entries
            .iter()
            .find(|e| e.key.eq_ignore_ascii_case(key))
    }

    /// The non-empty value of `key`.
    pub fn text(&self, key: &str) -> Option<&str> {
        self.get(key)
            .map(|e| e.value.as_str())
            .filter(|v| !v.is_empty())
    }

    /// The items of `key`: `- a` lines, `[a, b]`, or `"a, b"`; empty items left out.
    pub fn list(&self, key: &str) -> Vec<String> {
        let Some(entry) = self.get(key) else {
            return Vec::new();
        };
        let items: Vec<&str> = if entry.items.is_empty() {
            let value = entry.value.trim();
            let value = value
                .strip_prefix('[')
                .and_then(|v| v.strip_suffix(']'))
                .unwrap_or(value);
            value.split(',').collect()
        } else {
            entry.items.iter().map(String::as_str).collect()
        };
        items
            .into_iter()
            .map(|item| unquote(item).to_string())
            .filter(|item| !item.is_empty())
            .collect()
    }

    /// `key` as a boolean: `Some(Ok(b))` for `true`/`false` (any case), `Some(Err(value))`
    /// for anything else, `None` when absent or empty.
    pub fn flag(&self, key: &str) -> Option<Result<bool, &str>> {
        let value = self.text(key)?;
        Some(match value.to_ascii_lowercase().as_str() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(value),
        })
    }
}

/// Findings about frontmatter `tool` cannot read: never closed, or lines that are not
/// `key: value`.
pub(crate) fn structure_findings(fm: &RuleFrontmatter, path: &Path, tool: &str) -> Vec<Finding> {
    if fm.unclosed {
        return vec![Finding::new(
            Severity::Error,
            FindingCode::FrontmatterUnclosed,
            path,
            Some(1),
            format!(
                "frontmatter opened with --- is never closed: {tool} cannot read when this \
                 rule applies"
            ),
        )];
    }
    fm.unreadable
        .iter()
        .map(|&line| {
            Finding::new(
                Severity::Warning,
                FindingCode::FrontmatterInvalid,
                path,
                Some(line),
                format!(
                    "frontmatter line {line} is not `key: value` or a list item: {tool} may \
                     ignore the rule's settings"
                ),
            )
        })
        .collect()
}

/// What every rule format's `check_text` does first: nothing for a file that is not one
/// of its rules (`is_rule`, given the project-relative path); else the findings about
/// frontmatter `tool` cannot read, then, when the frontmatter is closed, what the
/// format's own `checks` add from it.
pub(crate) fn check_rule(
    file: &MemoryFile,
    text: &str,
    is_rule: impl Fn(&Path) -> bool,
    tool: &str,
    checks: impl FnOnce(&RuleFrontmatter, &mut Vec<Finding>),
) -> Vec<Finding> {
    if !is_rule(Path::new(&file.display)) {
        return Vec::new();
    }
    let fm = read(text);
    let mut out = structure_findings(&fm, &file.path, tool);
    if !fm.unclosed {
        checks(&fm, &mut out);
    }
    out
}

/// Keys of `fm` that misspell one of the keys `tool` reads (`known`): `glob` for `globs`,
/// `always_apply` for `alwaysApply`, `descripton` for `description`. The tool ignores
/// them, so what they say is lost. Keys far from every known one (another tool's
/// metadata, `name:`, `tags:`) are left alone, as is a misspelling beside the right key.
pub(crate) fn misspelled_keys(
    fm: &RuleFrontmatter,
    known: &[&str],
    path: &Path,
    tool: &str,
) -> Vec<Finding> {
    let squash = |key: &str| -> String {
        key.chars()
            .filter(|c| !matches!(c, '_' | '-'))
            .flat_map(char::to_lowercase)
            .collect()
    };
    fm.entries
        .iter()
        .filter(|entry| !known.iter().any(|k| k.eq_ignore_ascii_case(&entry.key)))
        .filter_map(|entry| {
            let key = squash(&entry.key);
            let meant = known.iter().find(|k| {
                let k = squash(k);
                k == key
                    || (k.chars().count() >= 5
                        && crate::io::text::edit_distance_at_most(&k, &key, 1))
            })?;
            if fm.get(meant).is_some() {
                return None;
            }
            Some(Finding::new(
                Severity::Warning,
                FindingCode::FrontmatterKeyMisspelled,
                path,
                Some(entry.line),
                format!(
                    "`{}:` is not a key {tool} reads: did you mean `{meant}:`? {tool} ignores \
                     it as written",
                    entry.key
                ),
            ))
        })
        .collect()
}

/// A rule that loads only when named, because nothing lets the agent pick it.
pub fn never_picked(path: &Path, line: Option<usize>, why: String) -> Finding {
    Finding::new(
        Severity::Warning,
        FindingCode::RuleNeverPicked,
        path,
        line,
        why,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_rule_reads_only_rules_and_checks_only_closed_frontmatter() {
        let file = |display: &str| MemoryFile {
            path: Path::new("/p").join(display),
            display: display.into(),
            role: crate::model::Role::Rules,
            layer: None,
            order: 0,
            group: None,
            load: crate::model::LoadKind::Manual,
            size: 0,
            modified: None,
            changed: None,
            inode: None,
            memory: None,
            unreadable: None,
        };
        let is_rule = |rel: &Path| rel.starts_with("rules");
        let check = |display: &str, text: &str| {
            check_rule(&file(display), text, is_rule, "Tool", |fm, out| {
                out.push(never_picked(
                    Path::new("x"),
                    None,
                    fm.text("k").unwrap_or("none").to_string(),
                ))
            })
            .into_iter()
            .map(|f| (f.code.id(), f.message))
            .collect::<Vec<_>>()
        };
        assert!(check("notes.md", "---\nk: v\n---\n").is_empty());
        assert_eq!(
            check("rules/a.md", "---\nk: v\n---\n"),
            vec![("rule-never-picked", "v".to_string())]
        );
        let unclosed = check("rules/a.md", "---\nk: v\n");
        assert_eq!(unclosed.len(), 1);
        assert_eq!(unclosed[0].0, "frontmatter-unclosed");
        assert!(unclosed[0].1.contains("Tool cannot read"));
        let odd = check("rules/a.md", "---\nnot a pair\nk: v\n---\n");
        let codes: Vec<&str> = odd.iter().map(|(c, _)| *c).collect();
        assert_eq!(codes, ["frontmatter-invalid", "rule-never-picked"]);
    }

    #[test]
    fn reads_bare_globs_lists_and_quotes_like_the_tools() {
        let text = "---\ndescription: \"API rules\"\nglobs: **/*.ts, src/**\nalwaysApply: false\n\
                    paths:\n  - 'a/**'\n  - b/**\ntags: [x, \"y\"]\n---\n# Body\n";
        let fm = read(text);
        assert!(fm.present && !fm.unclosed && fm.unreadable.is_empty());
        assert_eq!(fm.text("description"), Some("API rules"));
        assert_eq!(fm.list("globs"), vec!["**/*.ts", "src/**"]);
        assert_eq!(fm.flag("alwaysApply"), Some(Ok(false)));
        assert_eq!(fm.list("paths"), vec!["a/**", "b/**"]);
        assert_eq!(fm.list("tags"), vec!["x", "y"]);
        assert_eq!(fm.get("globs").unwrap().line, 3);
    }

    #[test]
    fn a_mapping_indented_as_a_whole_reads_as_one_that_is_not() {
        let fm = read(
            "---\n    description: Codacy rules\n    applyTo: '**'\n    globs:\n      - src/**\n---\n# Rules\n",
        );
        assert_eq!(fm.text("applyTo"), Some("**"));
        assert_eq!(fm.text("description"), Some("Codacy rules"));
        assert_eq!(fm.list("globs"), ["src/**"]);
        assert!(fm.unreadable.is_empty(), "{:?}", fm.unreadable);
    }

    #[test]
    fn a_key_one_letter_or_a_separator_from_a_known_one_is_a_misspelling() {
        let known = ["description", "globs", "alwaysApply"];
        let keys = |text: &str| -> Vec<(Option<usize>, String)> {
            misspelled_keys(&read(text), &known, Path::new("r.mdc"), "Cursor")
                .into_iter()
                .map(|f| (f.line, f.message))
                .collect()
        };
        let text = "---\nglob: \"**/*.ts\"\nalways_apply: false\ndescripton: Tests\n\
                    version: 1.0\nname: tests\nglobal: yes\n---\n# Tests\n";
        let found = keys(text);
        assert_eq!(
            found.iter().map(|(line, _)| *line).collect::<Vec<_>>(),
            [Some(2), Some(3), Some(4)],
            "{found:?}"
        );
        assert_eq!(
            found[0].1,
            "`glob:` is not a key Cursor reads: did you mean `globs:`? Cursor ignores it as written"
        );
        // Written right, or beside the right key, in any case: nothing to say.
        assert!(keys("---\nGlobs: a\nalwaysapply: true\n---\n").is_empty());
        assert!(keys("---\nglobs: a\nglob: b\n---\n").is_empty());
    }

    #[test]
    fn broken_and_missing_frontmatter_are_told_apart() {
        assert!(!read("# no frontmatter\n").present);
        let unclosed = read("---\nalwaysApply: true\n# never closed\n");
        assert!(unclosed.present && unclosed.unclosed);
        let garbage = read("---\nthis line has no key\nalwaysApply: yes\n---\n");
        assert_eq!(garbage.unreadable, vec![2]);
        assert_eq!(garbage.flag("alwaysApply"), Some(Err("yes")));
        assert_eq!(read("---\n---\nbody\n").entries, Vec::new());
    }
}

//! ConKeeper's `.memory-config.md`: its settings parsed into a [`MemoryConfig`], and each
//! problem (syntax, unknown keys, bad values) as a [`ConfigIssue`] with a line and severity.
//! Read by validation, by the report (the staleness threshold) and by review.

use std::collections::HashMap;

use serde_norway::Value as YamlValue;

use crate::findings::Severity;
use crate::limits::{self, Syntax};
use crate::markup::markdown;

/// ConKeeper's token presets (the ConKeeper schema); the schema's config comment also names `compact`.
pub(crate) const TOKEN_BUDGET_PRESETS: [&str; 5] =
    ["economy", "light", "standard", "detailed", "compact"];
const OUTPUT_STYLES: [&str; 3] = ["quiet", "normal", "explanatory"];
const MEMORY_CONFIG_KEYS: [&str; 8] = [
    "suggest_memories",
    "auto_load",
    "output_style",
    "token_budget",
    "auto_sync_threshold",
    "hard_block_threshold",
    "context_window_tokens",
    "staleness_commits",
];

/// Settings of a ConKeeper `.memory-config.md`; `None` means "not set, use the default".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemoryConfig {
    pub suggest_memories: Option<bool>,
    pub auto_load: Option<bool>,
    pub output_style: Option<String>,
    /// economy / light / standard / detailed (or compact).
    pub token_budget: Option<String>,
    /// Context usage percent (0–100) that triggers an automatic memory sync.
    pub auto_sync_threshold: Option<u8>,
    /// Context usage percent (0–100) at which prompts are blocked until a sync.
    pub hard_block_threshold: Option<u8>,
    pub context_window_tokens: Option<u64>,
    /// Commits since a file last changed before it counts as stale (users add this).
    pub staleness_commits: Option<u32>,
}

/// A problem in `.memory-config.md`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigIssue {
    /// 1-based line in the file.
    pub line: usize,
    pub severity: Severity,
    pub message: String,
}

/// Parses `.memory-config.md`: the settings that are valid, and `(line, message)` for
/// each problem (unclosed frontmatter, invalid YAML, unknown keys, bad values).
pub(crate) fn parse_memory_config(text: &str) -> (MemoryConfig, Vec<(usize, String)>) {
    let (config, issues) = parse_memory_config_detailed(text);
    (
        config,
        issues.into_iter().map(|i| (i.line, i.message)).collect(),
    )
}

/// The file line of a limit found in the frontmatter.
pub(super) fn frontmatter_line(
    fm: &markdown::Frontmatter<'_>,
    limit: &limits::LimitExceeded,
) -> usize {
    limit
        .line()
        .map_or(fm.first_line, |l| fm.first_line + l - 1)
}

pub(super) fn yaml_error_line(error: &serde_norway::Error, first_line: usize) -> usize {
    error
        .location()
        .map_or(first_line, |l| first_line + l.line() - 1)
}

/// Like `parse_memory_config`, with a severity per problem: syntax errors (the file is
/// ignored) are errors, unknown keys and bad values (the default is used) warnings.
pub fn parse_memory_config_detailed(text: &str) -> (MemoryConfig, Vec<ConfigIssue>) {
    let mut config = MemoryConfig::default();
    let mut issues = Vec::new();
    let mut issue = |line, severity, message: String| {
        issues.push(ConfigIssue {
            line,
            severity,
            message,
        })
    };
    if text.trim().is_empty() {
        return (config, issues);
    }
    if markdown::has_unclosed_frontmatter(text) {
        issue(
            1,
            Severity::Error,
            "frontmatter opened with --- is never closed; ConKeeper ignores every setting".into(),
        );
        return (config, issues);
    }
    let Some(fm) = markdown::frontmatter(text) else {
        issue(
            1,
            Severity::Warning,
            "no YAML frontmatter (--- … ---) at the top; ConKeeper reads settings only from there"
                .into(),
        );
        return (config, issues);
    };
    if let Err(limit) = limits::check(fm.yaml, Syntax::Yaml, limits::FRONTMATTER) {
        issue(
            frontmatter_line(&fm, &limit),
            Severity::Error,
            format!("frontmatter was not parsed: {limit}; every setting is ignored"),
        );
        return (config, issues);
    }
    let value: YamlValue = match serde_norway::from_str(fm.yaml) {
        Ok(v) => v,
        Err(e) => {
            issue(
                yaml_error_line(&e, fm.first_line),
                Severity::Error,
                format!("invalid YAML, every setting is ignored: {e}"),
            );
            return (config, issues);
        }
    };
    let mapping = match value {
        YamlValue::Mapping(m) => m,
        YamlValue::Null => return (config, issues),
        _ => {
            issue(
                fm.first_line,
                Severity::Error,
                "frontmatter must be `key: value` lines".into(),
            );
            return (config, issues);
        }
    };
    let key_lines: HashMap<&str, usize> = fm
        .yaml
        .lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let key = l.split(':').next()?;
            (!l.starts_with([' ', '\t', '#']) && l.contains(':'))
                .then(|| (key.trim().trim_matches(['"', '\'']), fm.first_line + i))
        })
        .collect();
    for (key, value) in &mapping {
        let key_text = match key {
            YamlValue::String(s) => s.clone(),
            other => format!("{other:?}"),
        };
        let line = key_lines
            .get(key_text.as_str())
            .copied()
            .unwrap_or(fm.first_line);
        let bad = |what: &str| format!("{key_text}: {what}; the default is used");
        if value.is_null() {
            issue(line, Severity::Warning, bad("has no value"));
            continue;
        }
        match key_text.as_str() {
            "suggest_memories" | "auto_load" => match value.as_bool() {
                Some(b) if key_text == "auto_load" => config.auto_load = Some(b),
                Some(b) => config.suggest_memories = Some(b),
                None => issue(line, Severity::Warning, bad("must be true or false")),
            },
            "output_style" => match value.as_str() {
                Some(s) if OUTPUT_STYLES.contains(&s) => config.output_style = Some(s.into()),
                _ => issue(
                    line,
                    Severity::Warning,
                    bad(&format!("must be one of {}", OUTPUT_STYLES.join(", "))),
                ),
            },
            "token_budget" => match value.as_str() {
                Some(s) if TOKEN_BUDGET_PRESETS.contains(&s) => {
                    config.token_budget = Some(s.into())
                }
                _ => issue(
                    line,
                    Severity::Warning,
                    bad(&format!(
                        "must be a preset: {}",
                        TOKEN_BUDGET_PRESETS[..4].join(", ")
                    )),
                ),
            },
            "auto_sync_threshold" | "hard_block_threshold" => {
                match value.as_u64().filter(|n| *n <= 100) {
                    Some(n) if key_text == "auto_sync_threshold" => {
                        config.auto_sync_threshold = Some(n as u8)
                    }
                    Some(n) => config.hard_block_threshold = Some(n as u8),
                    None => issue(
                        line,
                        Severity::Warning,
                        bad("must be a whole percentage from 0 to 100"),
                    ),
                }
            }
            "context_window_tokens" => match value.as_u64().filter(|n| *n > 0) {
                Some(n) => config.context_window_tokens = Some(n),
                None => issue(
                    line,
                    Severity::Warning,
                    bad("must be a positive whole number"),
                ),
            },
            "staleness_commits" => {
                match value
                    .as_u64()
                    .filter(|n| *n > 0)
                    .and_then(|n| u32::try_from(n).ok())
                {
                    Some(n) => config.staleness_commits = Some(n),
                    None => issue(
                        line,
                        Severity::Warning,
                        bad("must be a positive whole number"),
                    ),
                }
            }
            _ => {
                let normalized = key_text.replace('-', "_").to_ascii_lowercase();
                let hint = MEMORY_CONFIG_KEYS
                    .iter()
                    .find(|k| **k == normalized)
                    .map(|k| format!(" (did you mean {k}?)"))
                    .unwrap_or_default();
                issue(
                    line,
                    Severity::Warning,
                    format!(
                        "unknown key {key_text}{hint}; known keys: {}",
                        MEMORY_CONFIG_KEYS.join(", ")
                    ),
                );
            }
        }
    }
    if let (Some(auto), Some(hard)) = (config.auto_sync_threshold, config.hard_block_threshold)
        && auto >= hard
    {
        let line = key_lines
            .get("hard_block_threshold")
            .copied()
            .unwrap_or(fm.first_line);
        issue(
            line,
            Severity::Warning,
            format!(
                "hard_block_threshold ({hard}) is not above auto_sync_threshold ({auto}): \
                 prompts are blocked before an automatic sync can run"
            ),
        );
    }
    (config, issues)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_config_values_and_errors() {
        let text = "---\ntoken_budget: light\nstaleness_commits: 12\nauto_sync_threshold: 70\n\
                    hard_block_threshold: 101\nauto_load: yes\ntoken-budget: x\nmystery: 1\n---\n";
        let (config, issues) = parse_memory_config(text);
        assert_eq!(config.token_budget.as_deref(), Some("light"));
        assert_eq!(config.staleness_commits, Some(12));
        assert_eq!(config.auto_sync_threshold, Some(70));
        assert_eq!(config.hard_block_threshold, None);
        assert_eq!(config.auto_load, None);
        let lines: Vec<usize> = issues.iter().map(|(l, _)| *l).collect();
        assert_eq!(lines, vec![5, 6, 7, 8]);
        assert!(issues[0].1.contains("0 to 100"), "{}", issues[0].1);
        assert!(issues[1].1.contains("true or false"));
        assert!(issues[2].1.contains("did you mean token_budget?"));
        assert!(issues[3].1.starts_with("unknown key mystery"));
    }

    #[test]
    fn memory_config_syntax_errors_have_lines() {
        let (_, issues) = parse_memory_config_detailed("---\ntoken_budget: standard\n");
        assert_eq!(issues[0].line, 1);
        assert_eq!(issues[0].severity, Severity::Error);
        let (_, issues) = parse_memory_config_detailed("---\na: 1\nb: [x\nc: 2\n---\n");
        assert_eq!(issues.len(), 1);
        assert_eq!((issues[0].line, issues[0].severity), (4, Severity::Error));
        let (config, issues) = parse_memory_config_detailed(
            "---\ntoken_budget: compact\nauto_sync_threshold: 80\nhard_block_threshold: 60\n---\n",
        );
        assert_eq!(config.token_budget.as_deref(), Some("compact"));
        assert_eq!(issues.len(), 1);
        assert_eq!(issues[0].line, 4);
        let (config, issues) = parse_memory_config_detailed("");
        assert_eq!((config, issues.len()), (MemoryConfig::default(), 0));
    }
}

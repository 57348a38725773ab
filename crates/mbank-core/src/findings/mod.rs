//! Findings: what validation, budgets, staleness and review report, with a severity,
//! a place and a message a person can act on.
use std::path::PathBuf;

use serde::Serialize;

mod codes;
mod reference;

pub use codes::{FindingCode, RULES, Rule, RuleSource};
pub use reference::{REFERENCE_PATH, reference_markdown};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn id(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }

    pub fn parse(text: &str) -> Option<Severity> {
        match text.to_ascii_lowercase().as_str() {
            "info" => Some(Severity::Info),
            "warning" | "warn" => Some(Severity::Warning),
            "error" => Some(Severity::Error),
            _ => None,
        }
    }
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub severity: Severity,
    /// Which check reported it; printed and serialized as its id, e.g.
    /// `missing-required-file`.
    pub code: FindingCode,
    /// The file the finding is about (the bank folder when it is about a missing file).
    pub file: PathBuf,
    /// 1-based line, when the finding points into the file.
    pub line: Option<usize>,
    pub message: String,
    /// The single cases a grouped finding stands for ("memory-bank/x.md: 1,400 of
    /// 1,000 tokens"), shown by `check --verbose` and always in JSON.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<String>,
    /// An edit of the finding's file that resolves it, offered to the user to apply.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<Fix>,
}

/// Replace `replace` with `with` on one line of the finding's file: each occurrence on
/// that line that stands alone (not part of a longer name or path), none elsewhere.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fix {
    /// 1-based line.
    pub line: usize,
    pub replace: String,
    pub with: String,
}

impl Fix {
    /// `text` with the fix applied, or `None` when its line is not there or no longer
    /// holds `replace` (the file changed since the finding).
    pub fn apply(&self, text: &str) -> Option<String> {
        if self.replace.is_empty() || self.line == 0 {
            return None;
        }
        let mut out = String::with_capacity(text.len() + self.with.len());
        let mut applied = false;
        for (index, line) in text.split_inclusive('\n').enumerate() {
            if index + 1 == self.line {
                let mut rest = 0;
                for (at, _) in line.match_indices(&self.replace) {
                    let end = at + self.replace.len();
                    if at < rest || !stands_alone(line, at, end) {
                        continue;
                    }
                    out.push_str(&line[rest..at]);
                    out.push_str(&self.with);
                    rest = end;
                    applied = true;
                }
                if !applied {
                    return None;
                }
                out.push_str(&line[rest..]);
            } else {
                out.push_str(line);
            }
        }
        applied.then_some(out)
    }
}

/// Whether `line[start..end]` is a whole name: not continued by a name or path character
/// on either side (a leading `./` and a trailing sentence dot are not continuations).
fn stands_alone(line: &str, start: usize, end: usize) -> bool {
    let continues = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '/' | '.');
    let before = &line[..start];
    let left_alone = match before.chars().next_back() {
        None => true,
        Some('/') => before
            .strip_suffix("./")
            .is_some_and(|head| head.chars().next_back().is_none_or(|c| !continues(c))),
        Some(c) => !continues(c),
    };
    let mut after = line[end..].chars();
    let right_alone = match after.next() {
        None => true,
        Some('.') => after.next().is_none_or(|c| !c.is_alphanumeric()),
        Some(c) => !continues(c),
    };
    left_alone && right_alone
}

impl Finding {
    pub fn new(
        severity: Severity,
        code: FindingCode,
        file: impl Into<PathBuf>,
        line: Option<usize>,
        message: impl Into<String>,
    ) -> Self {
        debug_assert!(
            code.allows(severity),
            "{code} is declared from {} to {}, reported at {severity}",
            code.rule().lowest,
            code.rule().highest
        );
        Finding {
            severity,
            code,
            file: file.into(),
            line,
            message: message.into(),
            details: Vec::new(),
            fix: None,
        }
    }

    /// The same finding standing for these single cases.
    pub(crate) fn with_details(self, details: Vec<String>) -> Self {
        Finding { details, ..self }
    }

    /// The same finding offering `fix`.
    pub(crate) fn with_fix(self, fix: Fix) -> Self {
        Finding {
            fix: Some(fix),
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fix(line: usize, replace: &str, with: &str) -> Fix {
        Fix {
            line,
            replace: replace.into(),
            with: with.into(),
        }
    }

    #[test]
    fn a_fix_replaces_only_on_its_own_line() {
        let text = "a `x.rs`\nb `x.rs` and `x.rs`\r\nc `x.rs`";
        assert_eq!(
            fix(2, "x.rs", "y.rs").apply(text).as_deref(),
            Some("a `x.rs`\nb `y.rs` and `y.rs`\r\nc `x.rs`")
        );
    }

    #[test]
    fn a_fix_replaces_whole_paths_not_parts_of_longer_ones() {
        let text = "`x.rs`, ./x.rs. lib/x.rs x.rsx x.rs.bak my_x.rs (x.rs)\n";
        assert_eq!(
            fix(1, "x.rs", "y.rs").apply(text).as_deref(),
            Some("`y.rs`, ./y.rs. lib/x.rs x.rsx x.rs.bak my_x.rs (y.rs)\n")
        );
        assert_eq!(fix(1, "x.rs", "y.rs").apply("lib/x.rs and x.rsx\n"), None);
    }

    #[test]
    fn a_fix_whose_line_no_longer_holds_the_text_applies_nothing() {
        assert_eq!(fix(1, "x.rs", "y.rs").apply("z.rs\nx.rs\n"), None);
        assert_eq!(fix(3, "x.rs", "y.rs").apply("x.rs\nx.rs\n"), None);
        assert_eq!(fix(1, "", "y.rs").apply("x.rs\n"), None);
    }
}

//! Findings: what validation, budgets, staleness and review report, with a severity,
//! a place and a message a person can act on.
use std::path::PathBuf;

use serde::Serialize;

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
    /// Stable machine name of the check, e.g. `missing-required-file`, `import-cycle`.
    pub code: &'static str,
    /// The file the finding is about (the bank folder when it is about a missing file).
    pub file: PathBuf,
    /// 1-based line, when the finding points into the file.
    pub line: Option<usize>,
    pub message: String,
    /// The single cases a grouped finding stands for ("memory-bank/x.md: 1,400 of
    /// 1,000 tokens"), shown by `check --verbose` and always in JSON.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<String>,
}

impl Finding {
    pub fn new(
        severity: Severity,
        code: &'static str,
        file: impl Into<PathBuf>,
        line: Option<usize>,
        message: impl Into<String>,
    ) -> Self {
        Finding {
            severity,
            code,
            file: file.into(),
            line,
            message: message.into(),
            details: Vec::new(),
        }
    }

    /// The same finding standing for these single cases.
    pub fn with_details(self, details: Vec<String>) -> Self {
        Finding { details, ..self }
    }
}

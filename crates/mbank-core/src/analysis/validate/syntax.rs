//! Whether a file's structured text is well formed: YAML frontmatter (closed, parsable,
//! within the parse limits), a JSON document, and leftover merge-conflict markers.

use std::path::Path;

use serde_norway::Value as YamlValue;

use super::memory_config::{frontmatter_line, yaml_error_line};
use crate::findings::{Finding, FindingCode, Severity};
use crate::limits::{self, Syntax};
use crate::markup::markdown;
use crate::merge::conflict_markers;

/// Cursor-style `globs: **/*` is the usual culprit: YAML reads a leading `*` as an alias.
fn yaml_hint(error: &serde_norway::Error) -> &'static str {
    if error.to_string().contains("alias") {
        " (a value starting with * must be quoted, e.g. globs: \"**/*\")"
    } else {
        ""
    }
}

pub(super) fn check_frontmatter(path: &Path, text: &str, out: &mut Vec<Finding>) {
    if markdown::has_unclosed_frontmatter(text) {
        out.push(Finding::new(
            Severity::Error,
            FindingCode::FrontmatterUnclosed,
            path,
            Some(1),
            "frontmatter opened with --- is never closed: the whole file reads as metadata",
        ));
        return;
    }
    let Some(fm) = markdown::frontmatter(text) else {
        return;
    };
    if let Err(limit) = limits::check(fm.yaml, Syntax::Yaml, limits::FRONTMATTER) {
        let mut finding = limit.finding(
            Severity::Warning,
            path,
            "its frontmatter (metadata such as a rule's paths:) is not checked",
        );
        finding.line = Some(frontmatter_line(&fm, &limit));
        out.push(finding);
        return;
    }
    if let Err(e) = serde_norway::from_str::<YamlValue>(fm.yaml) {
        out.push(Finding::new(
            Severity::Warning,
            FindingCode::FrontmatterInvalid,
            path,
            Some(yaml_error_line(&e, fm.first_line)),
            format!("frontmatter is not valid YAML: {e}{}", yaml_hint(&e)),
        ));
    }
}

pub(super) fn check_json_document(path: &Path, text: &str, out: &mut Vec<Finding>) {
    if let Err(limit) = limits::check(text, Syntax::Json, limits::JSON_STORE) {
        out.push(limit.finding(
            Severity::Error,
            path,
            "whether it is well-formed JSON is not checked",
        ));
        return;
    }
    if let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(text) {
        out.push(Finding::new(
            Severity::Error,
            FindingCode::JsonMalformed,
            path,
            Some(e.line()),
            format!(
                "malformed JSON at line {}, column {}: {e}",
                e.line(),
                e.column()
            ),
        ));
    }
}

/// Unresolved merge-conflict markers: an agent would load both sides as memory.
pub(super) fn check_conflict_markers(path: &Path, text: &str, out: &mut Vec<Finding>) {
    let markers = conflict_markers::find(text);
    if markers.is_empty() {
        return;
    }
    let severity = if markers.conflicts > 0 {
        Severity::Error
    } else {
        Severity::Warning
    };
    let first = markers
        .first_line
        .map(|line| format!(" (first on line {line})"))
        .unwrap_or_default();
    out.push(Finding::new(
        severity,
        FindingCode::ConflictMarkers,
        path,
        markers.first_line,
        format!(
            "{}{first}: <<<<<<< / ======= / >>>>>>> lines an agent would read as memory; \
             keep one side and delete the markers",
            markers.describe()
        ),
    ));
}

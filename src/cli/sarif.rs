//! SARIF 2.1.0 output of `check --format sarif`: one run, one rule per finding code mbank
//! declares (with its help text), one result per finding with its file and line. Paths
//! inside the working folder are relative to it under `%SRCROOT%`, which is how GitHub
//! code scanning places them when the check runs at the repository's top.
use std::path::{Component, Path};

use serde_json::{Value, json};

use crate::core::findings::{Finding, RULES, Severity};

/// The schema the log names (the OASIS errata 01 text, vendored in tests/sarif/).
pub const SCHEMA_URI: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// SARIF's three result levels; `info` is a `note`.
pub fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// `path` as a URI: relative to `base` (with `%SRCROOT%`) when inside it, else a
/// `file://` URI of the absolute path.
fn location_uri(path: &Path, base: &Path) -> (String, bool) {
    match path.strip_prefix(base) {
        Ok(rel) if !rel.as_os_str().is_empty() => (encode_path(rel), true),
        _ => (file_uri(path), false),
    }
}

fn file_uri(path: &Path) -> String {
    let encoded = encode_path(path);
    if encoded.starts_with('/') {
        format!("file://{encoded}")
    } else {
        format!("file:///{encoded}")
    }
}

/// Percent-encodes a path for a URI, `/`-separated whatever the platform.
fn encode_path(path: &Path) -> String {
    let mut out = String::new();
    for (i, component) in path.components().enumerate() {
        match component {
            Component::RootDir => {
                out.push('/');
                continue;
            }
            Component::Prefix(prefix) => {
                out.push_str(&encode_segment(&prefix.as_os_str().to_string_lossy()));
                continue;
            }
            _ => {}
        }
        if i > 0 && !out.ends_with('/') {
            out.push('/');
        }
        out.push_str(&encode_segment(&component.as_os_str().to_string_lossy()));
    }
    out
}

fn encode_segment(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for byte in segment.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The SARIF log of `findings`, paths relative to `base` where they are inside it.
pub fn log<'f>(findings: impl IntoIterator<Item = &'f Finding>, base: &Path) -> Value {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|rule| {
            json!({
                "id": rule.id,
                "name": rule.id,
                "shortDescription": { "text": rule.summary },
                "fullDescription": { "text": rule.help },
                "help": { "text": rule.help },
            })
        })
        .collect();
    let results: Vec<Value> = findings
        .into_iter()
        .map(|finding| {
            let (uri, relative) = location_uri(&finding.file, base);
            let mut artifact = json!({ "uri": uri });
            if relative {
                artifact["uriBaseId"] = json!("%SRCROOT%");
            }
            let mut physical = json!({ "artifactLocation": artifact });
            if let Some(line) = finding.line.filter(|l| *l > 0) {
                physical["region"] = json!({ "startLine": line });
            } else if !finding.file.is_dir() {
                // Code scanning places a result on a line; a file finding without one
                // is about the whole file, shown at its top.
                physical["region"] = json!({ "startLine": 1 });
            }
            let mut message = finding.message.clone();
            for detail in &finding.details {
                message.push_str("\n- ");
                message.push_str(detail);
            }
            json!({
                "ruleId": finding.code,
                // The rules are the declaration table, in its order.
                "ruleIndex": finding.code.index(),
                "level": level(finding.severity),
                "message": { "text": message },
                "locations": [{ "physicalLocation": physical }],
            })
        })
        .collect();
    let mut base_uri = file_uri(base);
    if !base_uri.ends_with('/') {
        base_uri.push('/');
    }
    json!({
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "mbank",
                    "version": env!("CARGO_PKG_VERSION"),
                    "rules": rules,
                }
            },
            "originalUriBaseIds": { "%SRCROOT%": { "uri": base_uri } },
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_inside_the_base_are_relative_and_percent_encoded() {
        let (uri, relative) =
            location_uri(Path::new("/repo/memory bank/a#b.md"), Path::new("/repo"));
        assert_eq!(uri, "memory%20bank/a%23b.md");
        assert!(relative);
        let (uri, relative) = location_uri(Path::new("/elsewhere/x.md"), Path::new("/repo"));
        assert_eq!(uri, "file:///elsewhere/x.md");
        assert!(!relative);
    }

    #[test]
    fn every_severity_maps_to_a_sarif_level() {
        assert_eq!(level(Severity::Error), "error");
        assert_eq!(level(Severity::Warning), "warning");
        assert_eq!(level(Severity::Info), "note");
    }
}

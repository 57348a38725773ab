//! SARIF 2.1.0 output of `check --format sarif`: one run, one rule per finding code mbank
//! declares (with its help text), one result per finding with its file and line. Paths
//! inside the working folder are relative to it under `%SRCROOT%`, which is how GitHub
//! code scanning places them when the check runs at the repository's top.
use std::path::{Component, Path};

use std::cell::RefCell;

use serde::ser::{Serialize, SerializeMap, Serializer};
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

/// The SARIF log of `findings`, paths relative to `base` where they are inside it; each
/// finding becomes its result as the log is written, so the log is never held whole.
pub fn log<'a, I: Iterator<Item = Finding>>(findings: I, base: &'a Path) -> Log<'a, I> {
    Log {
        base,
        findings: RefCell::new(Some(findings)),
    }
}

/// A SARIF log being written: see [`log`]. Its objects' keys are written in the order
/// the same log held as one JSON value would print them (sorted).
pub struct Log<'a, I> {
    base: &'a Path,
    findings: RefCell<Option<I>>,
}

fn rules() -> Value {
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
    json!({
        "driver": {
            "name": "mbank",
            "version": env!("CARGO_PKG_VERSION"),
            "rules": rules,
        }
    })
}

/// A finding's SARIF result.
fn result(finding: &Finding, base: &Path) -> Value {
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
}

/// The results of a [`Log`], made as they are written.
struct Results<'l, 'a, I>(&'l Log<'a, I>);

impl<I: Iterator<Item = Finding>> Serialize for Results<'_, '_, I> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let findings = self.0.findings.borrow_mut().take();
        let base = self.0.base;
        serializer.collect_seq(
            findings
                .into_iter()
                .flatten()
                .map(|finding| result(&finding, base)),
        )
    }
}

/// The one run of a [`Log`].
struct Run<'l, 'a, I>(&'l Log<'a, I>);

impl<I: Iterator<Item = Finding>> Serialize for Run<'_, '_, I> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut base_uri = file_uri(self.0.base);
        if !base_uri.ends_with('/') {
            base_uri.push('/');
        }
        let mut run = serializer.serialize_map(Some(5))?;
        run.serialize_entry("columnKind", "unicodeCodePoints")?;
        run.serialize_entry(
            "originalUriBaseIds",
            &json!({ "%SRCROOT%": { "uri": base_uri } }),
        )?;
        run.serialize_entry("results", &Results(self.0))?;
        run.serialize_entry("tool", &rules())?;
        run.end()
    }
}

impl<I: Iterator<Item = Finding>> Serialize for Log<'_, I> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut log = serializer.serialize_map(Some(3))?;
        log.serialize_entry("$schema", SCHEMA_URI)?;
        log.serialize_entry("runs", &[Run(self)])?;
        log.serialize_entry("version", "2.1.0")?;
        log.end()
    }
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
    fn the_log_written_as_it_goes_is_the_log_held_as_one_value() {
        let findings = || {
            RULES.iter().take(3).enumerate().map(|(i, rule)| {
                let mut finding = Finding::new(
                    rule.lowest,
                    rule.code,
                    format!("/repo/memory bank/{i}.md"),
                    (i > 0).then_some(i),
                    "a message",
                );
                finding.details = vec![format!("detail {i}")];
                finding
            })
        };
        let base = Path::new("/repo");
        let written = serde_json::to_string_pretty(&log(findings(), base)).unwrap();
        // A JSON value's objects print their keys sorted, as the log once held whole did.
        let value = serde_json::to_value(log(findings(), base)).unwrap();
        assert_eq!(written, serde_json::to_string_pretty(&value).unwrap());
        assert_eq!(value["runs"][0]["results"].as_array().unwrap().len(), 3);
        let empty = serde_json::to_string_pretty(&log(std::iter::empty(), base)).unwrap();
        assert!(empty.contains("\"results\": [],"), "{empty}");
    }

    #[test]
    fn every_severity_maps_to_a_sarif_level() {
        assert_eq!(level(Severity::Error), "error");
        assert_eq!(level(Severity::Warning), "warning");
        assert_eq!(level(Severity::Info), "note");
    }
}

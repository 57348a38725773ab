//! SARIF 2.1.0 output of `check --format sarif`: one run, one rule per finding code that
//! occurs (with its help text), one result per finding with its file and line. Paths
//! inside the working folder are relative to it under `%SRCROOT%`, which is how GitHub
//! code scanning places them when the check runs at the repository's top.
use std::path::{Component, Path};

use serde_json::{Value, json};

use crate::core::findings::{Finding, Severity};

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

/// What a finding code checks and what to do about it: (short description, help).
/// A code missing here still gets a rule, with a generic help text.
pub fn rule_text(code: &str) -> (&'static str, &'static str) {
    match code {
        "claim-missing-path" => (
            "Memory names a file or folder that is not in the work tree",
            "A memory file names a path that git does not track and that is not on disk. Where git history shows it was renamed or removed, the message says to what and in which commit. Correct the memory (or restore the file) so agents do not act on a path that is gone.",
        ),
        "claim-missing-script" => (
            "Memory names a script or task that no manifest defines",
            "A command in a memory file (npm/pnpm/yarn/bun run, make, just, cargo, poetry/uv/pdm run) names a script, target or recipe that package.json, the Makefile, the justfile, Cargo aliases or pyproject.toml do not define. Update the memory to the script's current name.",
        ),
        "claim-missing-symbol" => (
            "Memory names a code symbol or environment variable found nowhere in the code",
            "A function, type, constant or environment variable named in backticks in a memory file occurs in no tracked source or configuration file. It was probably renamed or removed: update the memory.",
        ),
        "claim-missing-dependency" => (
            "Tech context names a dependency no manifest declares",
            "A dependency named in the tech context is declared in no manifest or lock file (package.json, Cargo.toml, pyproject.toml, requirements, go.mod, Gemfile, composer.json). Remove it from the memory or declare it.",
        ),
        "claims-not-checked" => (
            "Claims about code were not checked",
            "The bank has no code beside it (no git work tree holding source outside the memory files), so the paths, scripts and symbols it names could not be checked.",
        ),
        "missing-required-file" => (
            "A file the bank's format requires is missing",
            "Create the file from the format's template (`mbank init` never overwrites) or remove the format's markers if the folder is not that kind of bank.",
        ),
        "missing-recommended-file" => (
            "A file the bank's format recommends is missing",
            "Agents of this format expect the file; create it when the project needs it.",
        ),
        "missing-declared-file" => (
            "A file the project's rules list is missing",
            "The project's agent rules name this memory file, but it does not exist: create it or drop it from the rules.",
        ),
        "missing-required-dir" => (
            "A folder the bank's format requires is missing",
            "Create the folder the format expects.",
        ),
        "empty-file" => (
            "A memory file is empty",
            "Fill the file or delete it; an empty file costs a read and tells the agent nothing.",
        ),
        "no-heading" => (
            "A memory file has no heading",
            "Start the file with a heading that names its role so agents and people can tell what it holds.",
        ),
        "unfilled-placeholder" => (
            "Template placeholders were never filled",
            "Replace the placeholders ([Date], [Task 1]…) with real content or remove them.",
        ),
        "budget-over" => (
            "A memory file or bank is over its size budget",
            "Agents load this at every session start: summarise, archive old entries or split the file.",
        ),
        "budget-borrowed-over" => (
            "Over a budget borrowed from another format",
            "Information only: the limit comes from another format's guideline.",
        ),
        "budget-near" => (
            "Near the size budget",
            "The file or bank is close to its budget; plan a summary before it grows past it.",
        ),
        "stale" => (
            "A memory file is stale",
            "The file is far behind the project's activity; update it before agents rely on it.",
        ),
        "aging" => (
            "A memory file is aging",
            "The file lags behind the rest of the bank; check that it still holds.",
        ),
        "unreadable" | "unreadable-file" => (
            "A memory file cannot be read",
            "Fix the file's permissions, encoding or size so agents and mbank can read it.",
        ),
        "git-refused" => (
            "Git refused the repository",
            "Git's checks (history, staleness by commits, the append-only check) did not run. Fix what git names, e.g. mark the folder safe with `git config --global --add safe.directory`.",
        ),
        "git-failed" => (
            "Git failed in the repository",
            "Git's checks did not run; the message has git's reason.",
        ),
        "secret-in-bank" => (
            "A secret is kept inside a memory folder",
            "Agents read memory folders: move the secret out and rotate it.",
        ),
        "symlink-outside" => (
            "A memory path leads out of the project",
            "A symlink in the bank points outside the project; agents following it read files they should not.",
        ),
        "conflict-markers" => (
            "Unresolved merge-conflict markers",
            "Resolve the conflict: agents read both sides as memory.",
        ),
        "decision-log-shrunk" => (
            "Entries were removed from an append-only decision log",
            "Decision logs are append-only: restore the removed entries or mark them superseded.",
        ),
        "impossible-date" => (
            "A date that cannot exist",
            "Correct the date so staleness and timelines read it.",
        ),
        "duplicate-loaded" => (
            "Two identical files both load at session start",
            "Remove one copy: the agent pays for the same text twice.",
        ),
        "import-cycle"
        | "import-missing"
        | "import-outside-project"
        | "import-unreadable"
        | "import-too-deep"
        | "import-no-home"
        | "import-limit"
        | "import-sensitive" => (
            "An @import cannot be followed as intended",
            "Fix the @import so the agent loads what the file means it to load.",
        ),
        _ => (
            "An mbank check",
            "See `mbank check` in mbank's README for what this finding means.",
        ),
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
    let findings: Vec<&Finding> = findings.into_iter().collect();
    let mut codes: Vec<&'static str> = findings.iter().map(|f| f.code).collect();
    codes.sort_unstable();
    codes.dedup();
    let rules: Vec<Value> = codes
        .iter()
        .map(|code| {
            let (short, help) = rule_text(code);
            json!({
                "id": code,
                "name": code,
                "shortDescription": { "text": short },
                "fullDescription": { "text": help },
                "help": { "text": help },
            })
        })
        .collect();
    let results: Vec<Value> = findings
        .iter()
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
                "ruleIndex": codes.binary_search(&finding.code).unwrap_or(0),
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

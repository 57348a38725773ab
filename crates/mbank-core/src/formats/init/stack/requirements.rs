//! pip's `requirements.txt`, statement by statement: a line ending in `\` goes on, `#`
//! starts a comment (at the start of a line or after a space), and each requirement's
//! name and version specifier are kept. Options (`-r other.txt`, `-e .`, `--index-url`)
//! are skipped, so included files are never followed; so are bare paths and URLs, which
//! name no package, and per-requirement options (`--hash=…`).
use std::path::Path;

use super::{Stack, pep508};

/// The statements of the file: continued lines joined, comments and blank ones dropped.
fn statements(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        let line = strip_comment(line);
        match line.strip_suffix('\\') {
            Some(continued) => {
                current.push_str(continued);
                current.push(' ');
            }
            None => {
                current.push_str(line);
                let statement = current.trim();
                if !statement.is_empty() {
                    out.push(statement.to_string());
                }
                current.clear();
            }
        }
    }
    let last = current.trim();
    if !last.is_empty() {
        out.push(last.to_string());
    }
    out
}

/// `line` up to a `#` that starts it or follows whitespace (pip's rule: a `#` inside a
/// URL fragment stays).
fn strip_comment(line: &str) -> &str {
    let mut previous = ' ';
    for (at, c) in line.char_indices() {
        if c == '#' && previous.is_whitespace() {
            return line[..at].trim_end();
        }
        previous = c;
    }
    line.trim_end()
}

/// A requirement's name and version specifier (`None`: an option, a path or a URL).
fn requirement(statement: &str) -> Option<(String, Option<String>)> {
    if statement.starts_with('-') || (statement.contains("://") && !statement.contains('@')) {
        return None;
    }
    if !statement.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return None;
    }
    // Options after a requirement (`--hash=sha256:…`) are not its version.
    let spec = match statement.find(" -") {
        Some(at) => &statement[..at],
        None => statement,
    };
    let (name, version) = pep508(spec);
    // `name @ https://…` installs from a URL: no version to show.
    let version = version.filter(|v| !v.starts_with('@'));
    (!name.is_empty()).then_some((name, version))
}

pub(super) fn requirements_txt(stack: &mut Stack, _project: &Path, source: &str, text: &str) {
    stack.language("Python", source);
    for statement in statements(text) {
        if let Some((name, version)) = requirement(&statement) {
            stack.dependency(false, &name, version.as_deref(), source);
        }
    }
}

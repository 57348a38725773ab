//! Files an agent loads but cannot use as they stand, judged from their structure alone
//! (in any language): a form whose every line is a heading or an unfilled template slot,
//! and a file whose whole text is a path, which is how git writes a symbolic link where
//! links are off.
use crate::findings::{Finding, FindingCode, Severity};
use crate::markup::markdown;
use crate::model::MemoryFile;

/// Longest text taken for a path stored in place of a link (a path is rarely longer).
const MAX_PATH_TEXT: usize = 1024;

/// Whether `word` is one template slot: `{LIST}`, `{{project_name}}`, `${name}`: braces
/// around one name of letters, digits, `_`, `-` or `.` in any script, nothing else.
fn is_slot(word: &str) -> bool {
    let word = word.strip_prefix('$').unwrap_or(word);
    let inner = word
        .strip_prefix("{{")
        .and_then(|w| w.strip_suffix("}}"))
        .or_else(|| word.strip_prefix('{').and_then(|w| w.strip_suffix('}')));
    inner.is_some_and(|name| {
        let name = name.trim();
        !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
    })
}

/// A line without its markdown markers: heading hashes, list bullets and numbers, quote
/// marks, table pipes, emphasis.
fn bare(line: &str) -> &str {
    line.trim()
        .trim_start_matches(['>', ' '])
        .trim_start_matches(['-', '*', '+', ' '])
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim_start_matches(['.', ')', ' '])
        .trim_matches(['|', '*', '_', ' ', ':'])
}

/// How many lines hold template slots when every line of the text (past its frontmatter)
/// is blank, a heading, a rule, or slots alone (with the punctuation between them); `None`
/// when any line holds something else, or when there is no slot.
pub(super) fn slot_lines(text: &str) -> Option<usize> {
    let body = match markdown::frontmatter(text) {
        Some(fm) => &text[fm.body_start..],
        None => text,
    };
    let mut slots = 0;
    for line in body.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty()
            || trimmed.starts_with('#')
            || trimmed
                .chars()
                .all(|c| matches!(c, '-' | '=' | '*' | '_' | '|' | ':' | ' '))
        {
            continue;
        }
        let mut words = bare(line)
            .split(|c: char| c.is_whitespace() || matches!(c, '|' | ',' | ';'))
            .map(|w| w.trim_matches(['*', '_', '`', ':', '(', ')', '[', ']']))
            .filter(|w| !w.is_empty())
            .peekable();
        if words.peek().is_none() || !words.all(is_slot) {
            return None;
        }
        slots += 1;
    }
    (slots > 0).then_some(slots)
}

/// The path a file's whole text is, when it is one: a single line with no space, no
/// markdown and no import marker, naming a file (`../AGENTS.md`, `docs/ai/rules.md`) or a
/// folder path (`../shared/CLAUDE.md`).
pub(super) fn path_text(text: &str) -> Option<&str> {
    if text.len() > MAX_PATH_TEXT {
        return None;
    }
    let target = text.trim();
    if target.is_empty() || target.contains(['\n', '\r']) {
        return None;
    }
    let plain = !target.contains(char::is_whitespace)
        && !target.starts_with(['@', '#', '-', '*', '>', '[', '!', '`', '<', '{', '|'])
        && !target.contains("://")
        && !target.ends_with(['.', ':', ','])
        && !target.contains(['(', ')', '*', '`', '"', '\'', '=', '{', '}']);
    // The last part names a file by an extension of letters (`rules.md`, not `v1.0`), or
    // the text starts the way a relative or absolute path does (not `N/A`).
    let last = target.rsplit(['/', '\\']).next().unwrap_or(target);
    let names_a_file = last.rsplit_once('.').is_some_and(|(stem, extension)| {
        !stem.is_empty()
            && (1..=8).contains(&extension.len())
            && extension.chars().all(|c| c.is_ascii_alphanumeric())
            && extension.chars().any(|c| c.is_ascii_alphabetic())
    });
    let starts_like_path = ["./", "../", "/", "~/", ".\\", "..\\"]
        .iter()
        .any(|start| target.starts_with(start));
    let looks_like_path = names_a_file || starts_like_path;
    (plain && looks_like_path).then_some(target)
}

/// The findings of one loading file's text.
pub(super) fn check(file: &MemoryFile, text: &str, out: &mut Vec<Finding>) {
    if let Some(target) = path_text(text) {
        let beside = file
            .path
            .parent()
            .map(|dir| dir.join(target.replace('\\', "/")));
        let exists = beside.as_deref().is_some_and(|p| p.exists());
        let (severity, what) = if exists {
            (
                Severity::Error,
                "the file it names is there: git stored a symbolic link as text",
            )
        } else {
            (
                Severity::Warning,
                "it reads like a symbolic link git stored as text",
            )
        };
        out.push(Finding::new(
            severity,
            FindingCode::PathAsContent,
            &file.path,
            Some(1),
            format!(
                "{}'s whole text is the path {target}; {what}, and the agent loads that one \
                 line instead of the file's content",
                file.display
            ),
        ));
        return;
    }
    if let Some(slots) = slot_lines(text) {
        out.push(Finding::new(
            Severity::Warning,
            FindingCode::TemplateSlotsOnly,
            &file.path,
            None,
            format!(
                "{} holds only headings and unfilled template slots ({}): the agent loads \
                 an empty form",
                file.display,
                crate::io::text::counted(slots, "line")
            ),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn a_form_of_slots_is_told_from_text_that_uses_braces() {
        assert_eq!(slot_lines("{LIST}\n"), Some(1));
        assert_eq!(
            slot_lines("---\ntitle: x\n---\n# {TITLE}\n\n## Aufgaben\n- {TASKS}\n| {A} | {B} |\n"),
            Some(2)
        );
        assert_eq!(slot_lines("# 進捗\n\n{{進捗一覧}}\n"), Some(1));
        assert_eq!(slot_lines("${project_name}: {DESCRIPTION}\n"), Some(1));
        // Prose, code and an empty file are no form.
        assert_eq!(slot_lines("# Tasks\n- {LIST}\n- ship the parser\n"), None);
        assert_eq!(slot_lines("fn main() {}\n"), None);
        assert_eq!(slot_lines("Use {name} in the greeting.\n"), None);
        assert_eq!(slot_lines("# Only a heading\n"), None);
        assert_eq!(slot_lines(""), None);
        assert_eq!(slot_lines("{ }\n"), None);
    }

    #[test]
    fn a_path_alone_is_told_from_a_line_of_text() {
        assert_eq!(path_text("../AGENTS.md"), Some("../AGENTS.md"));
        assert_eq!(path_text("AGENTS.md\n"), Some("AGENTS.md"));
        assert_eq!(path_text("docs/ai/rules.md"), Some("docs/ai/rules.md"));
        assert_eq!(path_text("../shared/agents"), Some("../shared/agents"));
        assert_eq!(
            path_text("..\\shared\\CLAUDE.md"),
            Some("..\\shared\\CLAUDE.md")
        );
        for text in [
            "@AGENTS.md",
            "See AGENTS.md",
            "# AGENTS.md",
            "https://example.com/a.md",
            "Done.",
            "TODO",
            "- a/b.md",
            "AGENTS.md\nmore",
            "N/A",
            "v1.0",
            "docs/notes",
            "",
        ] {
            assert_eq!(path_text(text), None, "{text}");
        }
    }

    fn file(path: &Path) -> MemoryFile {
        MemoryFile {
            path: path.to_path_buf(),
            display: path.file_name().unwrap().to_string_lossy().into_owned(),
            role: crate::model::Role::Instructions,
            layer: Some(1),
            order: 0,
            group: None,
            load: crate::model::LoadKind::Startup,
            size: 0,
            modified: None,
            changed: None,
            inode: None,
            memory: None,
            unreadable: None,
        }
    }

    #[test]
    fn a_path_to_a_file_beside_it_is_an_error_any_other_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("AGENTS.md"), "# Rules\n").unwrap();
        let claude = dir.path().join("CLAUDE.md");
        let mut out = Vec::new();
        check(&file(&claude), "AGENTS.md\n", &mut out);
        check(&file(&claude), "../elsewhere/AGENTS.md", &mut out);
        check(&file(&claude), "{LIST}\n", &mut out);
        check(&file(&claude), "# Rules\nBe kind.\n", &mut out);
        let got: Vec<(Severity, FindingCode)> = out.iter().map(|f| (f.severity, f.code)).collect();
        assert_eq!(
            got,
            [
                (Severity::Error, FindingCode::PathAsContent),
                (Severity::Warning, FindingCode::PathAsContent),
                (Severity::Warning, FindingCode::TemplateSlotsOnly),
            ]
        );
        assert!(
            out.iter()
                .all(|f| f.file == claude && f.message.contains("CLAUDE.md"))
        );
    }
}

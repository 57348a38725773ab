//! ConKeeper's category tags (`<!-- @category: x -->`, `<!-- @tag: x -->`, the ConKeeper
//! schema's "Category Tags"): syntax, known categories and line length.

use std::path::Path;
use std::sync::OnceLock;

use regex::Regex;

use crate::analysis::imports;
use crate::findings::{Finding, FindingCode, Severity};

const MEMORY_CATEGORIES: [&str; 5] = ["decision", "pattern", "bugfix", "convention", "learning"];
const RETRO_CATEGORIES: [&str; 5] = ["efficiency", "quality", "ux", "knowledge", "architecture"];
const MAX_TAG_LINE_CHARS: usize = 80;

fn tag_line_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"^\s*<!--\s*@(category|tag)\s*:\s*(.*?)\s*-->\s*$").expect("constant regex")
    })
}

fn tag_value_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"^[a-z][a-z0-9-]*$").expect("constant regex"))
}

fn is_tag_line(trimmed: &str) -> bool {
    trimmed.starts_with("<!--") && (trimmed.contains("@category") || trimmed.contains("@tag"))
}

fn is_heading(trimmed: &str) -> bool {
    let hashes = trimmed.bytes().take_while(|&b| b == b'#').count();
    (1..=6).contains(&hashes) && trimmed[hashes..].starts_with([' ', '\t'])
}

fn is_bullet(trimmed: &str) -> bool {
    if trimmed.starts_with(['-', '*', '+']) {
        return trimmed[1..].starts_with([' ', '\t']);
    }
    let digits = trimmed.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && {
        let rest = &trimmed[digits..];
        (rest.starts_with(". ") || rest.starts_with(") ")) && digits <= 9
    }
}

/// Whether the tag at `index` sits right under a heading or bullet, with only other tags
/// (and a bullet's wrapped lines or a `<private>` line) between them (the ConKeeper
/// schema, "Tag Format" and "Placement Rules").
fn follows_what_it_labels(lines: &[&str], index: usize) -> bool {
    let mut at = index;
    while at > 0 {
        at -= 1;
        let line = lines[at];
        let trimmed = line.trim();
        if is_tag_line(trimmed) || trimmed == "<private>" || trimmed == "</private>" {
            continue;
        }
        if trimmed.is_empty() {
            return false;
        }
        if is_heading(trimmed) || is_bullet(trimmed) {
            return true;
        }
        // A wrapped bullet: its indented lines lead back to the bullet.
        if line.starts_with([' ', '\t']) {
            continue;
        }
        return false;
    }
    false
}

/// `<!-- @category: x -->` and `<!-- @tag: x -->` lines (the ConKeeper schema, "Category Tags").
pub(super) fn check_tags(path: &Path, text: &str, out: &mut Vec<Finding>) {
    // Every tag line opens a comment: most files have none, and need no line mask.
    if memchr::memmem::find(text.as_bytes(), b"<!--").is_none() {
        return;
    }
    let fenced = imports::fenced_line_mask(text);
    let lines: Vec<&str> = text.lines().collect();
    for (index, line) in lines.iter().enumerate() {
        if fenced.get(index).copied().unwrap_or(false)
            || !(line.contains("<!-- @") || line.contains("<!--@"))
        {
            continue;
        }
        let number = Some(index + 1);
        let trimmed = line.trim();
        if !is_tag_line(trimmed) {
            continue;
        }
        if !follows_what_it_labels(&lines, index) {
            out.push(Finding::new(
                Severity::Warning,
                FindingCode::TagPlacement,
                path,
                number,
                "the tag is not on the line right after a heading or bullet (or another \
                 tag under one), so it labels nothing: move it up under the entry it \
                 categorizes",
            ));
        }
        if trimmed.chars().count() > MAX_TAG_LINE_CHARS {
            out.push(Finding::new(
                Severity::Warning,
                FindingCode::TagLineTooLong,
                path,
                number,
                format!(
                    "tag line is {} characters; the limit is {MAX_TAG_LINE_CHARS}",
                    trimmed.chars().count()
                ),
            ));
        }
        let Some(captures) = tag_line_regex().captures(line) else {
            out.push(Finding::new(
                Severity::Warning,
                FindingCode::TagSyntax,
                path,
                number,
                "tag line must be exactly `<!-- @category: value -->` or `<!-- @tag: value -->`, \
                 one tag per line",
            ));
            continue;
        };
        let kind = captures.get(1).map_or("", |m| m.as_str());
        let value = captures.get(2).map_or("", |m| m.as_str());
        if value.contains("-->") || !tag_value_regex().is_match(value) {
            out.push(Finding::new(
                Severity::Warning,
                FindingCode::TagSyntax,
                path,
                number,
                format!(
                    "@{kind} value {value:?} must be lower-case letters, digits and hyphens, \
                     starting with a letter"
                ),
            ));
        } else if kind == "category"
            && !MEMORY_CATEGORIES.contains(&value)
            && !RETRO_CATEGORIES.contains(&value)
        {
            out.push(Finding::new(
                Severity::Warning,
                FindingCode::UnknownCategory,
                path,
                number,
                format!(
                    "@category {value:?} is not one of {} (or {}); use @tag for free-form labels",
                    MEMORY_CATEGORIES.join(", "),
                    RETRO_CATEGORIES.join(", ")
                ),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tag_checks() {
        let text = "# P\n<!-- @category: decision -->\n<!-- @category: Decision -->\n\
                    <!-- @category: misc -->\n<!-- @tag: third-party -->\n\
                    <!-- @tag: a --> <!-- @tag: b -->\n\
                    <!-- @tag: this-is-a-very-long-tag-name-that-goes-on-and-on-and-on-and-on-and-on-forever -->\n";
        let mut out = Vec::new();
        check_tags(Path::new("p.md"), text, &mut out);
        let got: Vec<_> = out.iter().map(|f| (f.code.id(), f.line)).collect();
        assert_eq!(
            got,
            vec![
                ("tag-syntax", Some(3)),
                ("unknown-category", Some(4)),
                ("tag-syntax", Some(6)),
                ("tag-line-too-long", Some(7)),
            ]
        );
    }

    #[test]
    fn a_tag_belongs_right_under_its_heading_or_bullet() {
        let text = "# P\n<!-- @category: decision -->\n\n- Use Postgres\n<!-- @category: decision -->\n\
                    <!-- @tag: db -->\n- A long bullet\n  wrapped here\n<!-- @tag: ok -->\n\n\
                    <!-- @tag: orphan -->\nSome paragraph.\n<!-- @category: learning -->\n\
                    <private>\n- secret\n<!-- @category: convention -->\n</private>\n\n\
                    ```\ntext\n<!-- @tag: in-fence -->\n```\n";
        let mut out = Vec::new();
        check_tags(Path::new("p.md"), text, &mut out);
        let got: Vec<_> = out.iter().map(|f| (f.code.id(), f.line)).collect();
        assert_eq!(
            got,
            vec![("tag-placement", Some(11)), ("tag-placement", Some(13))]
        );
    }
}

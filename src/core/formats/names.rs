//! The file-name table every memory-bank format reads roles from.
//!
//! Names are matched leniently: `projectBrief.md`, `projectbrief.md`, `project-brief.md`
//! and `project_brief.md` all reduce to the same key.
use crate::core::model::Role;

/// Lower-case file stem with `-`, `_`, `.` and spaces removed: the key names are matched on.
pub fn name_key(file_name: &str) -> String {
    let stem = [".md", ".markdown", ".json"]
        .iter()
        .find_map(|ext| file_name.strip_suffix(ext))
        .unwrap_or(file_name);
    stem.chars()
        .filter(|c| !matches!(c, '-' | '_' | ' ' | '.'))
        .flat_map(char::to_lowercase)
        .collect()
}
/// [`name_key`] of a short ASCII name, in `buffer` (no allocation: the common case);
/// `None` for a longer or non-ASCII one.
fn short_name_key<'b>(file_name: &str, buffer: &'b mut [u8; 32]) -> Option<&'b str> {
    let stem = [".md", ".markdown", ".json"]
        .iter()
        .find_map(|ext| file_name.strip_suffix(ext))
        .unwrap_or(file_name);
    let mut len = 0;
    for c in stem.chars().filter(|c| !matches!(c, '-' | '_' | ' ' | '.')) {
        if !c.is_ascii() || len == buffer.len() {
            return None;
        }
        buffer[len] = c.to_ascii_lowercase() as u8;
        len += 1;
    }
    std::str::from_utf8(&buffer[..len]).ok()
}

/// The role a core file name stands for, whatever its spelling.
pub fn role_for_name(file_name: &str) -> Option<Role> {
    let mut buffer = [0u8; 32];
    let long_key;
    let key = match short_name_key(file_name, &mut buffer) {
        Some(key) => key,
        None => {
            long_key = name_key(file_name);
            long_key.as_str()
        }
    };
    let role = match key {
        "projectbrief" | "brief" | "projectoverview" => Role::Brief,
        "productcontext" | "product" => Role::Product,
        "systempatterns" | "patterns" | "architecture" | "systemarchitecture" => Role::Patterns,
        "techcontext" | "tech" | "techstack" | "technicalcontext" => Role::Tech,
        "activecontext" | "active" | "currentcontext" => Role::Active,
        "progress" | "progresstracker" => Role::Progress,
        "decisionlog" | "decisions" | "architecturedecisions" => Role::Decisions,
        "glossary" => Role::Glossary,
        "sessionlog" => Role::Session,
        _ if is_adr_name(file_name) => Role::Adr,
        _ => return None,
    };
    Some(role)
}

/// `ADR-001-title.md`, `ADR-0014.md`, `adr-12.md`.
pub fn is_adr_name(file_name: &str) -> bool {
    adr_number(file_name).is_some()
}

/// The number of an ADR file name, if it is one.
pub fn adr_number(file_name: &str) -> Option<u32> {
    let lower = file_name.to_ascii_lowercase();
    let rest = lower.strip_prefix("adr")?;
    let rest = rest.strip_prefix(['-', '_']).unwrap_or(rest);
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    if digits.is_empty() {
        return None;
    }
    digits.parse().ok()
}

/// Whether a file name ends in `.md` or `.markdown` (any case).
pub fn is_markdown(file_name: &str) -> bool {
    let name = file_name.as_bytes();
    let has = |suffix: &[u8]| {
        name.len() >= suffix.len() && name[name.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
    };
    has(b".md") || has(b".markdown")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_of_a_core_name_has_one_role() {
        for name in [
            "projectBrief.md",
            "projectbrief.md",
            "project-brief.md",
            "project_brief.md",
        ] {
            assert_eq!(role_for_name(name), Some(Role::Brief), "{name}");
        }
        assert_eq!(role_for_name("active-context.md"), Some(Role::Active));
        assert_eq!(role_for_name("decisionLog.md"), Some(Role::Decisions));
        assert_eq!(role_for_name("decision-log.md"), Some(Role::Decisions));
        assert_eq!(role_for_name("tech-context.md"), Some(Role::Tech));
        assert_eq!(role_for_name("ADR-0014.md"), Some(Role::Adr));
        assert_eq!(role_for_name("tasks.md"), None);
        assert_eq!(role_for_name("activeContext.json"), Some(Role::Active));
    }

    #[test]
    fn adr_numbers_parse_from_both_naming_schemes() {
        assert_eq!(adr_number("ADR-001-use-postgres.md"), Some(1));
        assert_eq!(adr_number("ADR-012-20250101-1200-x.md"), Some(12));
        assert_eq!(adr_number("adr_7.md"), Some(7));
        assert_eq!(adr_number("ADRIAN.md"), None);
    }
}

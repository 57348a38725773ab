//! A core file whose sections all belong to another core file (a progress file holding
//! only the tech stack): the format's templates say what each file is for
//! ([`formats::FormatRules::purpose_headings`]); the headings of the file say what it holds.
//!
//! Judged on section headings only, and only when the evidence is one-sided: no heading of
//! the file's own role, at least [`MIN_FOREIGN`] of one other role, and those at least half
//! of its sections. A heading that names words of two roles counts for neither.

use crate::findings::{Finding, FindingCode, Severity};
use crate::formats::{self, PurposeHeadings};
use crate::markup::markdown;
use crate::model::{Bank, MemoryFile, Role};

/// The least number of another role's headings that make the case.
const MIN_FOREIGN: usize = 3;

/// Which role's template a heading belongs to, if exactly one.
fn heading_role(heading: &str, purposes: &PurposeHeadings) -> Option<Role> {
    let text = heading.to_lowercase();
    // Its words (letters, digits and `'`), single-spaced, with a space either side.
    let mut padded = String::with_capacity(text.len() + 2);
    padded.push(' ');
    for c in text.chars() {
        if c.is_alphanumeric() || c == '\'' {
            padded.push(c);
        } else if !padded.ends_with(' ') {
            padded.push(' ');
        }
    }
    if !padded.ends_with(' ') {
        padded.push(' ');
    }
    let mut found = None;
    let mut two_roles = false;
    let mut note = |role: Role| {
        two_roles |= found.is_some_and(|r| r != role);
        found = Some(role);
    };
    let starts = text.trim_start();
    for &(role, phrases) in purposes.table() {
        if phrases
            .iter()
            .any(|phrase| phrase.ends_with(':') && starts.starts_with(phrase))
        {
            note(role);
        }
    }
    purposes.whole_word_roles(&padded, &mut note);
    if two_roles { None } else { found }
}

/// Section headings (level 2 and below) outside code blocks.
fn section_headings(text: &str) -> Vec<&str> {
    let mut headings: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .filter_map(|(index, line)| {
            let (level, heading) = markdown::heading_parts(line)?;
            (level >= 2 && !heading.is_empty()).then_some((index, heading))
        })
        .collect();
    // Code blocks are found only in a text with headings to leave out of them.
    if !headings.is_empty() {
        let fences = markdown::fenced_lines(text);
        headings.retain(|(index, _)| {
            !fences
                .iter()
                .any(|&(start, end)| (start..=end).contains(&(index + 1)))
        });
    }
    headings.into_iter().map(|(_, heading)| heading).collect()
}

pub(super) fn check(bank: &Bank, file: &MemoryFile, text: &str, out: &mut Vec<Finding>) {
    let rules = formats::rules(bank.format);
    let purposes = rules.purpose_headings();
    // A decision log's headings are its decisions' titles, which may name anything.
    if file.role == Role::Decisions || !purposes.table().iter().any(|(role, _)| *role == file.role)
    {
        return;
    }
    let headings = section_headings(text);
    // One heading of the file's own role settles it: most files stop at their first.
    let mut roles: Vec<Option<Role>> = Vec::with_capacity(headings.len());
    for heading in &headings {
        let role = heading_role(heading, purposes);
        if role == Some(file.role) {
            return;
        }
        roles.push(role);
    }
    let mut counts: Vec<(Role, usize)> = Vec::new();
    for role in roles.iter().flatten() {
        match counts.iter_mut().find(|(r, _)| r == role) {
            Some((_, n)) => *n += 1,
            None => counts.push((*role, 1)),
        }
    }
    let [(other, count)] = counts.as_slice() else {
        return;
    };
    if *count < MIN_FOREIGN || count * 2 < headings.len() {
        return;
    }
    let examples: Vec<&str> = headings
        .iter()
        .zip(&roles)
        .filter(|(_, role)| **role == Some(*other))
        .map(|(h, _)| *h)
        .take(3)
        .collect();
    let home = bank
        .files
        .iter()
        .find(|f| f.role == *other && f.path.parent() == Some(bank.root.as_path()))
        .map(|f| f.file_name().into_owned())
        .or_else(|| {
            let expected = rules.expected_files(bank);
            expected
                .required
                .iter()
                .chain(expected.recommended)
                .find(|(role, _)| role == other)
                .map(|(_, name)| (*name).to_string())
        })
        .unwrap_or_else(|| format!("the {other} file"));
    out.push(Finding::new(
        Severity::Info,
        FindingCode::OffPurpose,
        &file.path,
        None,
        format!(
            "{} holds what {home} is for: {count} of its {} sections ({}) follow {home}'s \
             template and none its own; the agent looks for them in {home}",
            file.file_name(),
            headings.len(),
            examples.join(", ")
        ),
    ));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::validate::decision_entries::tests::core_file;
    use crate::model::Format;
    use std::path::PathBuf;

    fn bank(files: Vec<MemoryFile>) -> Bank {
        Bank {
            format: Format::Cline,
            root: PathBuf::from("memory-bank"),
            files,
            project_id: None,
            modes: Vec::new(),
            problems: Vec::new(),
            outside: Vec::new(),
            parsed_store: None,
        }
    }

    fn run(role: Role, name: &str, text: &str) -> Vec<Finding> {
        let file = core_file(&format!("memory-bank/{name}"), role);
        let bank = bank(vec![
            file.clone(),
            core_file("memory-bank/techContext.md", Role::Tech),
        ]);
        let mut out = Vec::new();
        check(&bank, &file, text, &mut out);
        out
    }

    #[test]
    fn a_progress_file_holding_only_a_tech_stack_is_reported() {
        let text = "# Progress\n\n## Technology Stack\n### Languages\n- Rust\n### Frameworks\n\
                    - axum\n## Build Commands\n- cargo build\n";
        let out = run(Role::Progress, "progress.md", text);
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(out[0].code, FindingCode::OffPurpose);
        assert!(
            out[0].message.contains("techContext.md"),
            "{}",
            out[0].message
        );
    }

    #[test]
    fn ordinary_files_are_quiet() {
        // Its own sections beside the stack.
        let mixed =
            "# Progress\n## Completed\n- x\n## Technology Stack\n## Languages\n## Frameworks\n";
        assert!(run(Role::Progress, "progress.md", mixed).is_empty());
        // Too few foreign sections to tell.
        let two = "# Progress\n## Languages\n## Frameworks\n## Notes\n";
        assert!(run(Role::Progress, "progress.md", two).is_empty());
        // Sections of several other roles: a file of its own kind.
        let spread = "# Notes\n## Languages\n## Frameworks\n## Databases\n## Current Focus\n";
        assert!(run(Role::Progress, "progress.md", spread).is_empty());
        // Headings inside code blocks are not sections.
        let fenced = "# Progress\n```\n## Languages\n## Frameworks\n## Databases\n```\n";
        assert!(run(Role::Progress, "progress.md", fenced).is_empty());
        // A decision log's titles are not sections.
        let log =
            "# Decisions\n## Use Postgres databases\n## Frameworks: axum\n## Languages: Rust\n";
        assert!(run(Role::Decisions, "decisionLog.md", log).is_empty());
    }

    #[test]
    fn a_heading_of_two_roles_belongs_to_neither() {
        static PURPOSES: PurposeHeadings = PurposeHeadings::new(&[
            (Role::Tech, &["languages"]),
            (Role::Active, &["current focus"]),
        ]);
        assert_eq!(heading_role("Languages", &PURPOSES), Some(Role::Tech));
        assert_eq!(heading_role("Current focus: languages", &PURPOSES), None);
        assert_eq!(heading_role("Programming", &PURPOSES), None);
        // Words are what lies between anything but letters, digits and `'`.
        assert_eq!(
            heading_role("**Current-focus** (now)", &PURPOSES),
            Some(Role::Active)
        );
        assert_eq!(
            heading_role("  current \t focus  ", &PURPOSES),
            Some(Role::Active)
        );
        assert_eq!(heading_role("Languages' 2", &PURPOSES), None);
        assert_eq!(heading_role("", &PURPOSES), None);
    }
}

//! The file-name table every memory-bank format reads roles from.
//!
//! Names are matched leniently: `projectBrief.md`, `projectbrief.md`, `project-brief.md`
//! and `project_brief.md` all reduce to the same key (`name_key`: case, `-`, `_`, `.`
//! and spaces do not count). A key then gives a role through two tables:
//!
//! - [`role_for_name`], exact keys: each core file's own names and the synonyms real
//!   banks use for it. A file whose key is here holds that role.
//!
//!   | role | keys |
//!   |---|---|
//!   | brief | projectbrief, brief, projectoverview, projectsummary, projectcontext, projectmemory |
//!   | product | productcontext, product, productoverview |
//!   | patterns | systempatterns, patterns, architecture, systemarchitecture, designpatterns |
//!   | tech | techcontext, tech, techstack, technicalcontext, technologies |
//!   | active | activecontext, active, currentcontext, currentfocus, currentstate |
//!   | progress | progress, progresstracker, progresslog, progressnotes, projectprogress |
//!   | decisions | decisionlog, decisions, architecturedecisions, decisionrecords, decisionhistory |
//!   | glossary, session | glossary; sessionlog |
//!
//! - `lookalike_role`, stems: a name that holds a role's stem (`progress-report.md`,
//!   `progreso.md`) only *looks like* that role's file. It gets no role; when the role's
//!   file is missing, validation names the lookalike ("progress.md not found;
//!   progress-report.md looks like it") as information instead of an error. Stems are
//!   language-neutral where the word is (`progres` matches progress, progreso, progresso;
//!   `decisi` decision, decisiones, decisioni). Names marked as old copies
//!   (`deprecated`, `backup`, `archive`, `old`, `bak`) look like nothing.
use crate::model::Role;

/// Lower-case file stem with `-`, `_`, `.` and spaces removed: the key names are matched on.
pub(crate) fn name_key(file_name: &str) -> String {
    let stem = [".md", ".markdown", ".json"]
        .iter()
        .find_map(|ext| file_name.strip_suffix(ext))
        .unwrap_or(file_name);
    stem.chars()
        .filter(|c| !matches!(c, '-' | '_' | ' ' | '.'))
        .flat_map(char::to_lowercase)
        .collect()
}
/// Whether two file names have the same [`name_key`], without allocating for short
/// ASCII names (the common case).
pub(crate) fn same_name_key(a: &str, b: &str) -> bool {
    let (mut buffer_a, mut buffer_b) = ([0u8; 32], [0u8; 32]);
    match (
        short_name_key(a, &mut buffer_a),
        short_name_key(b, &mut buffer_b),
    ) {
        (Some(key_a), Some(key_b)) => key_a == key_b,
        _ => name_key(a) == name_key(b),
    }
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
        "projectbrief" | "brief" | "projectoverview" | "projectsummary" | "projectcontext"
        | "projectmemory" => Role::Brief,
        "productcontext" | "product" | "productoverview" => Role::Product,
        "systempatterns" | "patterns" | "architecture" | "systemarchitecture"
        | "designpatterns" => Role::Patterns,
        "techcontext" | "tech" | "techstack" | "technicalcontext" | "technologies" => Role::Tech,
        "activecontext" | "active" | "currentcontext" | "currentfocus" | "currentstate" => {
            Role::Active
        }
        "progress" | "progresstracker" | "progresslog" | "progressnotes" | "projectprogress" => {
            Role::Progress
        }
        "decisionlog"
        | "decisions"
        | "architecturedecisions"
        | "decisionrecords"
        | "decisionhistory"
        // The log of a project's records as one file (`adr.md`, `ADRs.md`).
        | "adr"
        | "adrs"
        | "architecturedecisionrecords" => Role::Decisions,
        "glossary" => Role::Glossary,
        "sessionlog" => Role::Session,
        _ if is_adr_name(file_name) => Role::Adr,
        _ => return None,
    };
    Some(role)
}

/// Stems whose presence in a name makes it look like a role's file (see the module doc).
const LOOKALIKE_STEMS: [(Role, &[&str]); 7] = [
    (Role::Brief, &["brief", "summar", "overview", "resum"]),
    (Role::Product, &["product", "produkt", "produit"]),
    (
        Role::Patterns,
        &["pattern", "architect", "arquitect", "architett"],
    ),
    (
        Role::Tech,
        &[
            "techcontext",
            "techstack",
            "technical",
            "technolog",
            "tecnolog",
            "techno",
        ],
    ),
    (
        Role::Active,
        &[
            "activecontext",
            "currentcontext",
            "contextoactivo",
            "aktiv",
            "currentwork",
        ],
    ),
    (Role::Progress, &["progres", "fortschritt", "avance"]),
    (Role::Decisions, &["decisi", "entscheid", "adrlog"]),
];

/// Roles whose file can stand in for a missing one: a project summary (the brief) says
/// why the project exists as a product context would, and ADR files record the decisions
/// a decision log would. Not the other way round: a product context leaves out the
/// brief's requirements and scope.
pub(crate) fn stand_in_roles(role: Role) -> &'static [Role] {
    match role {
        Role::Product => &[Role::Brief],
        Role::Decisions => &[Role::Adr],
        _ => &[],
    }
}

/// The role a markdown heading names ("# Product Context", "## System Patterns: API"),
/// read like a file name: its words before any `:`, dash or bracket.
pub(crate) fn heading_role(heading: &str) -> Option<Role> {
    let words = heading
        .trim_start_matches('#')
        .split([':', '—', '–', '(', '|'])
        .next()
        .unwrap_or_default()
        .trim();
    if words.is_empty() || words.len() > 60 {
        return None;
    }
    role_for_name(words).filter(|role| *role != Role::Adr)
}

/// Markers of an old copy: such a file looks like no role's file.
const OLD_COPY_MARKERS: [&str; 5] = ["deprecated", "backup", "archive", "old", "bak"];

/// The role a file name only looks like (a stem of it, not one of its names): the file
/// gets no role, but validation names it when that role's file is missing. Markdown
/// files only.
pub(crate) fn lookalike_role(file_name: &str) -> Option<Role> {
    if !is_markdown(file_name) {
        return None;
    }
    let key = name_key(file_name);
    if OLD_COPY_MARKERS.iter().any(|m| key.contains(m)) {
        return None;
    }
    LOOKALIKE_STEMS
        .iter()
        .find(|(role, stems)| {
            stems.iter().any(|stem| {
                key.find(stem).is_some_and(|at| {
                    // A summary or overview of a topic (`api-testing-summary.md`) is not
                    // the project's: only the whole project's scope may come before it.
                    *role != Role::Brief || at == 0 || WHOLE_PROJECT.contains(&&key[..at])
                })
            })
        })
        .map(|(role, _)| *role)
}

/// Words naming the whole project's scope, which may precede a brief's stem
/// (`executive-summary.md`, `resumen-proyecto.md` starts with its stem).
const WHOLE_PROJECT: [&str; 8] = [
    "project",
    "executive",
    "product",
    "proyecto",
    "projeto",
    "projekt",
    "projet",
    "progetto",
];

/// `ADR-001-title.md`, `ADR-0014.md`, `adr-12.md`.
pub(crate) fn is_adr_name(file_name: &str) -> bool {
    adr_number(file_name).is_some()
}

/// The number of an ADR file name, if it is one.
pub(crate) fn adr_number(file_name: &str) -> Option<u32> {
    let lower = file_name.to_ascii_lowercase();
    let rest = lower.strip_prefix("adr")?;
    let rest = rest.strip_prefix(['-', '_']).unwrap_or(rest);
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    if digits.is_empty() {
        return None;
    }
    digits.parse().ok()
}

/// A form to copy, whose slots are its own to hold: a file in a templates folder, or one
/// its name says is a template (`_template.md`, `task-template.md`).
pub(crate) fn is_template(rel: &std::path::Path) -> bool {
    in_templates_folder(rel)
        || rel
            .file_name()
            .and_then(|name| name.to_str())
            .is_some_and(|name| name.to_ascii_lowercase().contains("template"))
}

/// Whether a path relative to its bank sits in a folder of templates (`templates/`,
/// `template/`, any case): forms kept to be copied, whose slots and copies are theirs to
/// hold.
pub(crate) fn in_templates_folder(rel: &std::path::Path) -> bool {
    rel.parent().is_some_and(|dir| {
        dir.iter().any(|part| {
            part.to_str().is_some_and(|part| {
                part.eq_ignore_ascii_case("templates") || part.eq_ignore_ascii_case("template")
            })
        })
    })
}

/// Whether a file name ends in `.md` or `.markdown` (any case).
pub(crate) fn is_markdown(file_name: &str) -> bool {
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
    fn variant_names_from_real_banks_have_their_role() {
        for (name, role) in [
            ("progress-log.md", Role::Progress),
            ("Progress_Log.md", Role::Progress),
            ("project-summary.md", Role::Brief),
            ("project-context.md", Role::Brief),
            ("PROJECT_MEMORY.md", Role::Brief),
            ("current-focus.md", Role::Active),
            ("tech-stack.md", Role::Tech),
            ("decision-records.md", Role::Decisions),
        ] {
            assert_eq!(role_for_name(name), Some(role), "{name}");
        }
    }

    #[test]
    fn lookalikes_are_found_by_stem_but_old_copies_are_not() {
        assert_eq!(lookalike_role("progress-report.md"), Some(Role::Progress));
        assert_eq!(lookalike_role("progreso.md"), Some(Role::Progress));
        assert_eq!(lookalike_role("decisiones.md"), Some(Role::Decisions));
        assert_eq!(lookalike_role("executive-summary.md"), Some(Role::Brief));
        assert_eq!(lookalike_role("overview.md"), Some(Role::Brief));
        assert_eq!(lookalike_role("Projekt-Überblick-summary.md"), None);
        assert_eq!(lookalike_role("api-testing-summary.md"), None);
        assert_eq!(lookalike_role("session-overview.md"), None);
        assert_eq!(lookalike_role("systemPatterns-linux-deprecated.md"), None);
        assert_eq!(lookalike_role("progress-backup.md"), None);
        assert_eq!(lookalike_role("tasks.md"), None);
        assert_eq!(lookalike_role("progress.json"), None);
    }

    #[test]
    fn templates_are_told_by_their_folder_or_their_name() {
        use std::path::Path;
        for rel in [
            "templates/task.md",
            "Template/a.md",
            "completed-tasks/_template.md",
            "task-Template.md",
        ] {
            assert!(is_template(Path::new(rel)), "{rel}");
        }
        for rel in ["tasks/task-01.md", "contemplation.md", "progress.md"] {
            assert!(!is_template(Path::new(rel)), "{rel}");
        }
    }

    #[test]
    fn adr_numbers_parse_from_both_naming_schemes() {
        assert_eq!(adr_number("ADR-001-use-postgres.md"), Some(1));
        assert_eq!(adr_number("ADR-012-20250101-1200-x.md"), Some(12));
        assert_eq!(adr_number("adr_7.md"), Some(7));
        assert_eq!(adr_number("ADRIAN.md"), None);
    }

    #[test]
    fn names_compare_by_their_keys() {
        let names = [
            "activeContext.md",
            "active-context.md",
            "ACTIVE_CONTEXT.markdown",
            "active context",
            "progress.md",
            "progress.json",
            "Прогресс.md",
            "прогресс.md",
            "a_very_long_file_name_beyond_the_short_buffer.md",
            "averylongfilenamebeyondtheshortbuffer",
        ];
        for a in names {
            for b in names {
                assert_eq!(same_name_key(a, b), name_key(a) == name_key(b), "{a} {b}");
            }
        }
    }
}

#[cfg(test)]
mod heading_tests {
    use super::*;

    #[test]
    fn a_heading_names_a_role_by_its_words_before_a_colon() {
        assert_eq!(
            heading_role("# Product Context: the shop"),
            Some(Role::Product)
        );
        assert_eq!(heading_role("## System Architecture"), Some(Role::Patterns));
        assert_eq!(heading_role("# Notes"), None);
        assert_eq!(heading_role("#"), None);
    }
}

/// `name` spelled as a bank's own files are (`system-patterns.md` for a bank of
/// `activeContext.md` and `decisionLog.md` reads `systemPatterns.md`, and the other way
/// round): a file a bank is told it lacks should be named the way the bank names files.
/// Unchanged when the bank's names show no single style.
pub(crate) fn spelled_like<S: AsRef<str>>(name: &str, bank_names: &[S]) -> String {
    let stems = bank_names
        .iter()
        .filter_map(|n| n.as_ref().strip_suffix(".md"))
        .filter(|stem| stem.chars().any(|c| c.is_ascii_alphabetic()));
    let (mut kebab, mut camel) = (0, 0);
    for stem in stems {
        if stem.contains('-') {
            kebab += 1;
        } else if stem.chars().skip(1).any(|c| c.is_ascii_uppercase()) {
            camel += 1;
        }
    }
    let Some(stem) = name.strip_suffix(".md") else {
        return name.to_string();
    };
    if camel > 0 && kebab == 0 && stem.contains('-') {
        let mut out = String::new();
        let mut upper = false;
        for c in stem.chars() {
            if c == '-' {
                upper = true;
            } else if upper {
                out.push(c.to_ascii_uppercase());
                upper = false;
            } else {
                out.push(c);
            }
        }
        return format!("{out}.md");
    }
    if kebab > 0 && camel == 0 && stem.chars().any(|c| c.is_ascii_uppercase()) {
        let mut out = String::new();
        for c in stem.chars() {
            if c.is_ascii_uppercase() {
                out.push('-');
                out.push(c.to_ascii_lowercase());
            } else {
                out.push(c);
            }
        }
        return format!("{out}.md");
    }
    name.to_string()
}

#[cfg(test)]
mod spelling_tests {
    use super::spelled_like;

    #[test]
    fn a_missing_file_is_named_in_the_banks_own_spelling() {
        let camel = ["activeContext.md", "decisionLog.md", "README.md"];
        assert_eq!(
            spelled_like("system-patterns.md", &camel),
            "systemPatterns.md"
        );
        let kebab = ["active-context.md", "progress.md"];
        assert_eq!(
            spelled_like("systemPatterns.md", &kebab),
            "system-patterns.md"
        );
        // Mixed or no evidence: the template's own name.
        let mixed = ["activeContext.md", "decision-log.md"];
        assert_eq!(
            spelled_like("system-patterns.md", &mixed),
            "system-patterns.md"
        );
        assert_eq!(
            spelled_like("projectBrief.md", &["progress.md"]),
            "projectBrief.md"
        );
    }
}

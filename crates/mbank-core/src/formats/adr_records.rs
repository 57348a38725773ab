//! Architecture decision records kept beside the code: one markdown file per decision in
//! `docs/adr/` (the common place, log4brains' default), `doc/adr/` (where Nat Pryce's
//! adr-tools writes) or `docs/decisions/` (where MADR puts them), and in the other places
//! the tools name: `docs/adrs/` (Backstage's ADR plugin), `doc/architecture/decisions/`
//! (adr-tools' own example) and its `docs/` and `adr`/`adrs` spellings. Records are
//! numbered in the file name (`0001-title.md`, `ADR-001-title.md`), in sub-folders too
//! (`deprecated/`). No agent loads them at session start; they are the project's
//! decision history, which the timeline shows and `mbank adr new` extends. A folder's
//! `README.md`, index and template are kept there too, and record nothing.
use std::path::Path;

use super::{FormatRules, Placement, ProjectPaths};
use crate::model::{Format, LoadKind, Role};

/// Where MADR keeps its records by default.
pub(crate) const MADR_FOLDER: &str = "docs/decisions";

/// Where `mbank adr new` offers to keep records, in the order it chooses one.
pub(crate) const FOLDERS: [&str; 3] = ["docs/adr", "doc/adr", MADR_FOLDER];

/// Every place records are read from: [`FOLDERS`], then the other places the ADR tools
/// name, in the order `mbank adr new` chooses one that exists.
pub(crate) const READ_FOLDERS: [&str; 9] = [
    FOLDERS[0],
    FOLDERS[1],
    FOLDERS[2],
    "docs/adrs",
    "doc/adrs",
    "docs/architecture/decisions",
    "doc/architecture/decisions",
    "docs/architecture/adr",
    "docs/architecture/adrs",
];

/// The folders as a user reads them: "docs/adr/, doc/adr/ or docs/decisions/".
pub fn folders_in_words() -> String {
    let named: Vec<String> = FOLDERS.iter().map(|folder| format!("{folder}/")).collect();
    match named.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => named.concat(),
    }
}

const PATHS: ProjectPaths = ProjectPaths {
    files: &[],
    folders: &READ_FOLDERS,
    lookalikes: &[],
};

/// Folders of a project whose decision log (`DECISIONS.md`, `decision-log.md`) is the
/// project's own, named or not: its root, its documentation, a folder its name says
/// holds the project's memory (`memory/`, `docs/memory/`), and Claude Code's folder,
/// where its users keep the notes they point the agent to (`.claude/decisions.md`).
pub(crate) const PROJECT_LOG_FOLDERS: [&str; 6] =
    ["", "docs", "doc", "memory", "docs/memory", ".claude"];

/// The file in which adr-tools (`adr init DIR`) keeps where a project's records are,
/// relative to the folder the file is in.
pub(crate) const ADR_TOOLS_SETTING: &str = ".adr-dir";

/// The folder `.adr-dir` at the project's root names, as written (trimmed), when there is
/// one: adr-tools writes records there, whatever the folder is called.
pub(crate) fn configured_folder(project: &Path) -> Option<String> {
    let setting = project.join(ADR_TOOLS_SETTING);
    // A one-line setting: anything larger is not adr-tools'.
    if std::fs::symlink_metadata(&setting).ok()?.len() > 4 * 1024 {
        return None;
    }
    let folder = crate::io::confine::ProjectFolder::new(project);
    let text = crate::io::confine::read_text(&folder, &setting).ok()?;
    let folder = text.lines().next()?.trim();
    (!folder.is_empty()).then(|| folder.to_string())
}

/// Whether a folder's name says it holds decision records (`adr/`, `adrs/`,
/// `decisions/`, `decision-records/`, `architecture-decisions/`, numbered or not:
/// `06-decisions/`): a folder the memory names by such a name is read as the ADR tools'
/// folders are.
pub(crate) fn is_record_folder_name(folder_name: &str) -> bool {
    // A folder numbered for its place among the documents (`06-decisions`,
    // `02.adr`) is named by the rest.
    let unnumbered = folder_name
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim_start_matches(['-', '_', '.', ' ']);
    let name = if unnumbered.is_empty() {
        folder_name
    } else {
        unnumbered
    };
    matches!(
        super::name_key(name).as_str(),
        "adr"
            | "adrs"
            | "decision"
            | "decisions"
            | "decisionrecord"
            | "decisionrecords"
            | "architecturedecisions"
            | "architecturedecisionrecord"
            | "architecturedecisionrecords"
    )
}

/// Whether a path relative to the project lies in a folder of records: what is kept
/// there beside them (a README, an index, an `AGENTS.md` on writing them) is about the
/// records and records nothing itself.
pub(crate) fn in_records_folder(rel: &Path) -> bool {
    PATHS.contains(rel)
}

pub(crate) struct AdrRecords;

/// Whether a file name is a numbered record: `0001-use-postgres.md`, `12_title.md`,
/// `ADR-001-title.md`, in markdown.
pub(crate) fn is_record_name(file_name: &str) -> bool {
    let lower = file_name.to_ascii_lowercase();
    let Some(stem) = lower
        .strip_suffix(".md")
        .or_else(|| lower.strip_suffix(".markdown"))
    else {
        return false;
    };
    // The template new records are copied from (`0000-adr-template.md`,
    // `template-adr.md`) records nothing; a record about templates
    // (`0012-rules-over-template-based.md`) is one.
    let words: Vec<&str> = stem
        .split(['-', '_', '.', ' '])
        .filter(|w| !w.is_empty() && !w.bytes().all(|b| b.is_ascii_digit()))
        .collect();
    let template = |word: Option<&&str>| word.is_some_and(|w| *w == "template");
    if template(words.last()) || (template(words.first()) && words.len() <= 2) {
        return false;
    }
    if super::is_adr_name(stem) {
        return true;
    }
    let digits = stem.bytes().take_while(u8::is_ascii_digit).count();
    let numbered = digits > 0
        && matches!(
            stem.as_bytes().get(digits),
            None | Some(b'-' | b'_' | b'.' | b' ')
        );
    // `decision_20260204123036.md`, `decision-007-cache.md`: the word, then its number.
    let numbered_decision = stem
        .strip_prefix("decision")
        .and_then(|rest| rest.strip_prefix(['-', '_', ' ']))
        .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()));
    // `playbackcore-0006-lab.md`, `design-preview-0001.md`: a series named by its words,
    // then its zero-padded number.
    let segments: Vec<&str> = stem.split(['-', '_']).collect();
    let series = segments
        .iter()
        .position(|s| {
            (3..=4).contains(&s.len())
                && s.starts_with('0')
                && s.bytes().all(|b| b.is_ascii_digit())
        })
        .is_some_and(|at| {
            at > 0
                && segments[..at]
                    .iter()
                    .all(|s| !s.is_empty() && s.chars().all(char::is_alphabetic))
        });
    numbered || numbered_decision || series
}

/// Whether a file kept beside the records is about them rather than one (a README, an
/// index, a template, instructions to an agent on writing them).
fn is_companion_name(file_name: &str) -> bool {
    let stem = file_name
        .rsplit_once('.')
        .map_or(file_name, |(stem, _)| stem)
        .to_ascii_lowercase();
    matches!(
        stem.as_str(),
        "readme" | "index" | "toc" | "summary" | "contents" | "agents" | "claude" | "gemini"
    ) || stem.split(['-', '_', '.', ' ']).any(|word| {
        matches!(
            word,
            "template" | "index" | "readme" | "guide" | "guidelines" | "process"
        )
    })
}

impl FormatRules for AdrRecords {
    fn format(&self) -> Format {
        Format::AdrRecords
    }

    fn place(&self, rel: &Path) -> Placement {
        let name = rel.file_name().and_then(|name| name.to_str());
        let role = match name {
            Some(name) if is_record_name(name) => Role::Adr,
            // A document among the records under a name of its own (a meeting's record,
            // `design-drift.md` holding several) is read as a log of them.
            Some(name) if !is_companion_name(name) => Role::Decisions,
            _ => Role::Other,
        };
        Placement {
            role,
            layer: None,
            group: Some("decisions".into()),
            load: LoadKind::Never,
        }
    }

    fn keeps(&self, rel: &Path) -> bool {
        PATHS.contains(rel) && self.lists(rel)
    }

    /// Markdown only: the folders hold diagrams and other files beside the records.
    fn lists(&self, rel: &Path) -> bool {
        rel.extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("md") || e.eq_ignore_ascii_case("markdown"))
    }

    fn project_paths(&self) -> ProjectPaths {
        PATHS
    }

    fn has_decision_sections(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_files_are_records_and_the_rest_record_nothing() {
        for name in [
            "0001-record-architecture-decisions.md",
            "0012_use_postgres.md",
            "7-short.md",
            "0003.md",
            "ADR-001-title.md",
            "adr-0014.md",
            "0002-título-en-español.markdown",
            "0012-rules-over-template-based.md",
            "decision_20260204123036.md",
            "Decision-007-cache.md",
            "playbackcore-0006-lab-archived.md",
            "design-preview-0001.md",
        ] {
            assert!(is_record_name(name), "{name}");
        }
        for name in [
            "README.md",
            "index.md",
            "adr-template.md",
            "template.md",
            "0000-adr-template.md",
            "ADR-000-template.md",
            "template-adr.md",
            "2024plans.md",
            "0001-diagram.png",
            "notes.txt",
            "decisions.md",
            "decision-making.md",
            "sprint-6-meeting-2026-01-29.md",
            "m365-privacy-discussion.md",
        ] {
            assert!(!is_record_name(name), "{name}");
        }
    }

    #[test]
    fn records_are_decisions_no_agent_loads() {
        let record = AdrRecords.place(Path::new("docs/adr/0001-use-sqlite.md"));
        assert_eq!(
            (record.role, record.load, record.group.as_deref()),
            (Role::Adr, LoadKind::Never, Some("decisions"))
        );
        let readme = AdrRecords.place(Path::new("docs/adr/README.md"));
        assert_eq!((readme.role, readme.load), (Role::Other, LoadKind::Never));
        assert!(AdrRecords.keeps(Path::new("doc/adr/0002-x.md")));
        assert!(AdrRecords.keeps(Path::new("docs/adrs/0002-x.md")));
        assert!(AdrRecords.keeps(Path::new("docs/architecture/adrs/deprecated/0001-jwt.md")));
        let nested = AdrRecords.place(Path::new("docs/architecture/adrs/deprecated/0001-jwt.md"));
        assert_eq!(nested.role, Role::Adr);
        assert!(!AdrRecords.keeps(Path::new("docs/0002-x.md")));
        assert!(!AdrRecords.keeps(Path::new("docs/adr/0002-context.png")));
        assert_eq!(folders_in_words(), "docs/adr/, doc/adr/ or docs/decisions/");
    }

    #[cfg(unix)]
    #[test]
    fn the_adr_tools_setting_is_read_inside_the_project_only() {
        let temp = tempfile::tempdir().unwrap();
        let project = temp.path().join("project");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(temp.path().join("elsewhere"), "doc/records\n").unwrap();
        std::os::unix::fs::symlink(
            temp.path().join("elsewhere"),
            project.join(ADR_TOOLS_SETTING),
        )
        .unwrap();
        assert_eq!(configured_folder(&project), None);
        std::fs::remove_file(project.join(ADR_TOOLS_SETTING)).unwrap();
        std::fs::write(project.join(ADR_TOOLS_SETTING), "doc/records\n").unwrap();
        assert_eq!(configured_folder(&project).as_deref(), Some("doc/records"));
    }
}

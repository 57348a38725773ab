//! Decision records the memory points to outside every bank: a decision log a memory file
//! imports or names (`@docs/ai/decisions.md`, `[log](docs/DECISIONS.md)`, "record it in
//! `docs/decisions.md`"), a folder of numbered records it names (`docs/01-arch/adr/`),
//! and the folder adr-tools' `.adr-dir` gives. The memory says that is where the project
//! keeps its decisions, so the timeline reads them as it reads a bank's own log; the
//! project's own log at its root or in `docs/` (`DECISIONS.md`) needs no pointer. Other
//! markdown the memory imports, links or names is read for its decision sections.
//!
//! A path is taken as written, from the folder of the file that names it and then from
//! the project's root; only what exists inside the project (links resolved) is read, and
//! a file some bank lists is read there, never twice.
use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::meaning::{
    is_code_folder, names_decision_log, names_only_the_record_kind, path_tokens, record_folder_of,
};
use crate::analysis::file_class::is_memory_file;
use crate::analysis::imports::normalize_lexically;
use crate::formats::adr_records;
use crate::io::confine::{self, ProjectFolder};
use crate::io::text;
use crate::limits;
use crate::model::{Bank, Role};

/// A file the memory points to, read as text inside the project only: through its
/// folder handle, no link followed out of it (`confine`). `Err(size)` for one over the
/// decision-log limit, which is not read; `Err(0)` for one that cannot be read.
pub(super) fn read_pointed(folder: &ProjectFolder<'_>, path: &Path) -> Result<String, u64> {
    let size = std::fs::metadata(path).map_or(0, |meta| meta.len());
    if size > limits::DECISION_LOG_MAX_BYTES {
        return Err(size);
    }
    confine::read_text(folder, path).map_err(|_| 0)
}

/// Files read for pointers at most: the memory's own and the files they import.
const MAX_SOURCES: usize = 1_000;

/// Records read from one named folder at most: a folder of this many is an archive of
/// something else, and reading it would hold the timeline up.
const MAX_RECORDS_PER_FOLDER: usize = 2_000;

/// A file of decisions the memory points to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct PointedFile {
    pub path: PathBuf,
    /// Relative to the project, as the timeline shows it.
    pub display: String,
    /// A log of entries, one record, or memory an instruction file imports or names
    /// (whose decision sections count as its own).
    pub role: Role,
    /// How the memory reaches it: a log or record it names, a file it imports (loaded
    /// with it), or other markdown it only names or links.
    pub reached: Reached,
}

/// How the memory reaches a file it points to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reached {
    /// A bank lists it: the memory itself.
    Own,
    /// A decision log or record the memory names, or the project's own log.
    Record,
    /// An `@` import, loaded with the memory.
    Imported,
    /// Markdown the memory only names or links, which the agent may never open.
    Named,
}

/// What a project's banks already read, and where the project really is.
struct Known {
    /// The project as the caller names it, which the paths found keep as their start.
    given: PathBuf,
    /// The same, `..` resolved lexically, which paths are compared with.
    project: PathBuf,
    real_project: PathBuf,
    files: HashSet<PathBuf>,
    folders: HashSet<PathBuf>,
}

impl Known {
    /// `written` from `base`, when it exists inside the project as `want_folder` says and
    /// no bank reads it already.
    fn resolve(&self, base: &Path, written: &str, want_folder: bool) -> Option<PathBuf> {
        if written.starts_with('~') {
            return None;
        }
        // `/docs/DECISIONS.md` in memory means the project's `docs/`, unless it is the
        // project's own absolute path.
        if let Some(rest) = written.strip_prefix('/')
            && !Path::new(written).starts_with(&self.project)
        {
            return self.resolve(&self.project, rest, want_folder);
        }
        let path = normalize_lexically(&base.join(written));
        if !path.starts_with(&self.project) {
            return None;
        }
        let real = std::fs::canonicalize(&path).ok()?;
        let is_folder = real.is_dir();
        let fits = real.starts_with(&self.real_project)
            && if want_folder {
                is_folder
            } else {
                real.is_file()
            };
        let known = if want_folder {
            self.folders.contains(&path)
        } else {
            self.files.contains(&path)
        };
        let rel = path.strip_prefix(&self.project).ok()?;
        (fits && !known).then(|| self.given.join(rel))
    }

    fn display(&self, path: &Path) -> String {
        let rel = path
            .strip_prefix(&self.given)
            .or_else(|_| path.strip_prefix(&self.project))
            .unwrap_or(path);
        rel.components()
            .map(|part| part.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/")
    }
}

/// Files of decisions the memory of `banks` points to in `project`, each once, in the
/// order they are named.
pub(super) fn pointed_files(project: &Path, banks: &[Bank]) -> Vec<PointedFile> {
    let Ok(real_project) = std::fs::canonicalize(project) else {
        return Vec::new();
    };
    let known = Known {
        given: project.to_path_buf(),
        project: normalize_lexically(project),
        real_project,
        files: banks
            .iter()
            .flat_map(|bank| &bank.files)
            .map(|file| normalize_lexically(&file.path))
            .collect(),
        folders: banks
            .iter()
            .map(|bank| normalize_lexically(&bank.root))
            .collect(),
    };
    let mut logs = Vec::new();
    let mut folders = Vec::new();
    if let Some(folder) = adr_records::configured_folder(project)
        && let Some(path) = known.resolve(project, &folder, true)
    {
        folders.push(path);
    }
    // The project's own log, at its root or in its documentation, needs no pointer.
    for folder in adr_records::PROJECT_LOG_FOLDERS {
        for name in decision_log_names(&project.join(folder))
            .into_iter()
            .filter(|name| !names_only_the_record_kind(name))
        {
            let written = if folder.is_empty() {
                name
            } else {
                format!("{folder}/{name}")
            };
            if let Some(path) = known.resolve(project, &written, false)
                && !logs.contains(&path)
            {
                logs.push(path);
            }
        }
    }
    // The memory files, then the markdown they import (`@docs/rules/architecture.md`,
    // which the agent loads with them) or name, one step deep.
    let mut sources: Vec<(PathBuf, Reached)> = banks
        .iter()
        .flat_map(|bank| {
            bank.files
                .iter()
                .filter(|f| points_to_records(bank, f))
                .map(|f| (f.path.clone(), Reached::Own))
        })
        .collect();
    let folder = ProjectFolder::new(project);
    let mut searched: Vec<PathBuf> = Vec::new();
    let mut next = 0;
    while let Some((source, reached)) = sources.get(next).cloned() {
        next += 1;
        let own = reached == Reached::Own;
        // A bank's files as listed; what they import, only inside the project.
        let read = if own {
            text::read_text_limited(&source, limits::DECISION_LOG_MAX_BYTES).ok()
        } else {
            read_pointed(&folder, &source).ok()
        };
        let Some(text) = read else {
            continue;
        };
        let base = source.parent().unwrap_or(project);
        if own {
            for import in crate::analysis::imports::find_imports(&text) {
                let is_markdown = crate::formats::names::is_markdown(&import.target);
                if let Some(path) = is_markdown
                    .then(|| known.resolve(base, &import.target, false))
                    .flatten()
                    && sources.len() < MAX_SOURCES
                    && !sources.iter().any(|(p, _)| *p == path)
                {
                    sources.push((path, Reached::Imported));
                }
            }
        }
        for token in path_tokens(&text) {
            // A template (`templates/decisions.md`) is a form, no record.
            let template = |path: &PathBuf| {
                crate::formats::names::is_template(path.strip_prefix(&known.given).unwrap_or(path))
            };
            let (list, want_folder, token) = if names_decision_log(token) {
                (&mut logs, false, token)
            } else if let Some(folder) = record_folder_of(token) {
                (&mut folders, true, folder)
            } else if is_code_folder(&text, token) {
                (&mut folders, true, token.trim_end_matches('/'))
            } else {
                // A folder the memory keeps notes in (`memory/`, `memory/YYYY-MM-DD.md`):
                // its decision log (`memory/DECISIONS.md`) is the project's log.
                if let Some(folder) = notes_folder_of(token)
                    && let Some(path) = known
                        .resolve(base, folder, true)
                        .or_else(|| known.resolve(project, folder, true))
                    && !searched.contains(&path)
                {
                    for name in decision_log_names(&path) {
                        let log = path.join(name);
                        if !logs.contains(&log)
                            && !known.files.contains(&normalize_lexically(&log))
                            && !template(&log)
                        {
                            logs.push(log);
                        }
                    }
                    searched.push(path);
                }
                // Other markdown the memory links or names (`[notes](.claude/memory.md)`,
                // "read `docs/architecture.md` first") is read as an import is, for its
                // decision sections and what it names in turn.
                if own
                    && crate::formats::names::is_markdown(token)
                    && sources.len() < MAX_SOURCES
                    && let Some(path) = known
                        .resolve(base, token, false)
                        .or_else(|| known.resolve(project, token, false))
                    && !template(&path)
                    && !sources.iter().any(|(p, _)| *p == path)
                {
                    sources.push((path, Reached::Named));
                }
                continue;
            };
            let found = known
                .resolve(base, token, want_folder)
                .or_else(|| known.resolve(project, token, want_folder));
            if let Some(path) =
                found.filter(|path| !list.contains(path) && (want_folder || !template(path)))
            {
                list.push(path);
            }
        }
    }
    let mut out: Vec<PointedFile> = logs
        .into_iter()
        .map(|path| PointedFile {
            display: known.display(&path),
            path,
            role: Role::Decisions,
            reached: Reached::Record,
        })
        .collect();
    for folder in folders {
        for path in records_in(&folder) {
            if !known.files.contains(&normalize_lexically(&path))
                && !out.iter().any(|f| f.path == path)
            {
                out.push(PointedFile {
                    display: known.display(&path),
                    path,
                    role: Role::Adr,
                    reached: Reached::Record,
                });
            }
        }
    }
    for (path, reached) in sources.into_iter().filter(|(_, r)| *r != Reached::Own) {
        if !out.iter().any(|f| f.path == path) {
            out.push(PointedFile {
                display: known.display(&path),
                path,
                role: Role::Instructions,
                reached,
            });
        }
    }
    out
}

/// The folder a path names as the place notes are kept: written as a folder
/// (`memory/`), or as the pattern of the files in it (`memory/YYYY-MM-DD.md`,
/// `notes/*.md`).
fn notes_folder_of(token: &str) -> Option<&str> {
    if let Some(folder) = token.strip_suffix('/') {
        return (!folder.is_empty() && folder != "." && folder != "..").then_some(folder);
    }
    let (folder, name) = token.rsplit_once('/')?;
    let pattern = name.contains("YYYY") || name.contains(['*', '{', '<']);
    (pattern && !folder.is_empty()).then_some(folder)
}

/// The names of the decision logs in `folder` (`DECISIONS.md`, `decision-log.md`), in
/// name order.
fn decision_log_names(folder: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter(|entry| entry.file_type().is_ok_and(|kind| !kind.is_dir()))
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| names_decision_log(name))
        .collect();
    names.sort();
    names
}

/// Whether a file of a bank is memory that may point to where decisions are kept: its
/// markdown, not a log itself (a log's links are to other entries).
fn points_to_records(bank: &Bank, file: &crate::model::MemoryFile) -> bool {
    !file.is_virtual()
        && !file.role.is_decision_log()
        && file.unreadable.is_none()
        && {
            let name = file.file_name().to_ascii_lowercase();
            [".md", ".markdown", ".mdc", ".mdx"]
                .iter()
                .any(|ext| name.ends_with(ext))
        }
        && is_memory_file(bank, file)
}

/// The numbered records of a folder and of its sub-folders one level down
/// (`deprecated/`), in name order; templates and indexes record nothing.
fn records_in(folder: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut folders = vec![(folder.to_path_buf(), 0)];
    while let Some((current, depth)) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(&current) else {
            continue;
        };
        let mut names: Vec<(String, bool)> = entries
            .flatten()
            .filter_map(|entry| {
                let kind = entry.file_type().ok()?;
                Some((
                    entry.file_name().to_string_lossy().into_owned(),
                    kind.is_dir(),
                ))
            })
            .collect();
        names.sort();
        for (name, is_dir) in names {
            if is_dir && depth == 0 && !name.starts_with('.') {
                folders.push((current.join(&name), 1));
            } else if !is_dir
                && adr_records::is_record_name(&name)
                && out.len() < MAX_RECORDS_PER_FOLDER
            {
                out.push(current.join(&name));
            }
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Format, MemoryFile};

    fn bank(project: &Path, format: Format, files: &[(&str, Role)]) -> Bank {
        let files = files
            .iter()
            .map(|(rel, role)| MemoryFile::for_test(project.join(rel), rel, *role))
            .collect();
        Bank::for_test(format, project.to_path_buf(), files)
    }

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    const LOG: &str = "# Decisions\n\n## 2025-03-02: Use SQLite for the cache\n\
                       **Decision**: SQLite, one file per project.\n\n\
                       ## 2025-03-09: Drop the HTTP API\n**Decision**: the CLI is enough.\n";

    fn found(project: &Path, banks: &[Bank]) -> Vec<(String, Role)> {
        pointed_files(project, banks)
            .into_iter()
            .map(|file| (file.display, file.role))
            .collect()
    }

    #[test]
    fn a_log_an_instruction_file_imports_or_names_is_read_once() {
        let temp = tempfile::tempdir().unwrap();
        let project = temp.path();
        write(project, "docs/ai/memory/decisions.md", LOG);
        write(
            project,
            "CLAUDE.md",
            "# Project\n\n@docs/ai/memory/decisions.md\n",
        );
        write(
            project,
            "AGENTS.md",
            "Record each decision in `docs/ai/memory/decisions.md`.\n",
        );
        let banks = [
            bank(
                project,
                Format::ClaudeMd,
                &[("CLAUDE.md", Role::Instructions)],
            ),
            bank(
                project,
                Format::AgentsMd,
                &[("AGENTS.md", Role::Instructions)],
            ),
        ];
        assert_eq!(
            found(project, &banks),
            [("docs/ai/memory/decisions.md".to_string(), Role::Decisions)]
        );
    }

    #[test]
    fn links_relative_to_the_naming_file_and_fragments_resolve() {
        let temp = tempfile::tempdir().unwrap();
        let project = temp.path();
        write(project, "docs/DECISION-LOG.md", LOG);
        write(
            project,
            ".github/copilot-instructions.md",
            "See [the log](../docs/DECISION-LOG.md#2025) and 決定は docs/DECISION-LOG.md。\n",
        );
        let banks = [bank(
            project,
            Format::Copilot,
            &[(".github/copilot-instructions.md", Role::Instructions)],
        )];
        assert_eq!(
            found(project, &banks),
            [("docs/DECISION-LOG.md".to_string(), Role::Decisions)]
        );
    }

    #[test]
    fn what_a_bank_lists_is_outside_the_project_or_missing_is_not_read() {
        let temp = tempfile::tempdir().unwrap();
        let project = temp.path().join("project");
        write(temp.path(), "decisions.md", LOG);
        write(&project, "memory-bank/decisionLog.md", LOG);
        write(
            &project,
            "CLAUDE.md",
            "@../decisions.md\nsee memory-bank/decisionLog.md and docs/decisions.md\n\
             ~/decisions.md\n",
        );
        let banks = [
            bank(
                &project,
                Format::ClaudeMd,
                &[("CLAUDE.md", Role::Instructions)],
            ),
            bank(
                &project,
                Format::Cline,
                &[("memory-bank/decisionLog.md", Role::Decisions)],
            ),
        ];
        assert!(found(&project, &banks).is_empty());
    }

    #[cfg(unix)]
    #[test]
    fn a_link_out_of_the_project_is_not_followed() {
        let temp = tempfile::tempdir().unwrap();
        let project = temp.path().join("project");
        write(temp.path(), "elsewhere/decisions.md", LOG);
        write(&project, "CLAUDE.md", "@docs/decisions.md\n");
        std::fs::create_dir_all(project.join("docs")).unwrap();
        std::os::unix::fs::symlink(
            temp.path().join("elsewhere/decisions.md"),
            project.join("docs/decisions.md"),
        )
        .unwrap();
        let banks = [bank(
            &project,
            Format::ClaudeMd,
            &[("CLAUDE.md", Role::Instructions)],
        )];
        assert!(found(&project, &banks).is_empty());
    }

    #[test]
    fn a_log_named_in_the_projects_own_language_is_read_where_logs_are_kept() {
        let temp = tempfile::tempdir().unwrap();
        let project = temp.path();
        write(project, "CLAUDE.md", "# Claude\n");
        write(project, "docs/決定事項.md", LOG);
        write(project, "docs/quyet-dinh.md", LOG);
        // One decision's word names no log (`karar.md`).
        write(project, "docs/karar.md", LOG);
        // A number ordering a folder's documents names no role: the log is still one.
        write(project, "docs/bmad/04-decisions.md", LOG);
        write(
            project,
            "CLAUDE.md",
            "Read `docs/bmad/04-decisions.md` first.\n",
        );
        let claude = [bank(
            project,
            Format::ClaudeMd,
            &[("CLAUDE.md", Role::Instructions)],
        )];
        assert_eq!(
            found(project, &claude),
            [
                ("docs/quyet-dinh.md".to_string(), Role::Decisions),
                ("docs/決定事項.md".to_string(), Role::Decisions),
                ("docs/bmad/04-decisions.md".to_string(), Role::Decisions),
            ]
        );
    }

    #[test]
    fn a_log_named_only_by_its_records_kind_is_read_where_the_memory_names_it() {
        let temp = tempfile::tempdir().unwrap();
        let project = temp.path();
        write(
            project,
            "docs/adr.md",
            "# Architecture Decision Record\n\n## 1 · Stack\n",
        );
        write(project, "AGENTS.md", "# Agents\n");
        let agents = || {
            [bank(
                project,
                Format::AgentsMd,
                &[("AGENTS.md", Role::Instructions)],
            )]
        };
        // Found on its own, `docs/adr.md` is as likely one record written as a document.
        assert!(found(project, &agents()).is_empty());
        write(project, "agent_docs/ADRs.md", LOG);
        write(
            project,
            "AGENTS.md",
            "Если принято важное решение — добавить запись в `agent_docs/ADRs.md`.\n",
        );
        assert_eq!(
            found(project, &agents()),
            [("agent_docs/ADRs.md".to_string(), Role::Decisions)]
        );
    }

    #[test]
    fn the_project_s_own_log_at_its_root_or_in_its_docs_needs_no_pointer() {
        let temp = tempfile::tempdir().unwrap();
        let project = temp.path();
        write(project, "DECISIONS.md", LOG);
        write(project, "docs/decision-log.md", LOG);
        write(project, "docs/guide.md", "# Guide\n");
        write(project, "src/decisions.md", LOG);
        write(project, "memory-bank/decisionLog.md", LOG);
        write(project, ".claude/decisions.md", LOG);
        write(project, ".cursor/decisions.md", LOG);
        write(project, "docs/memory/decisions.md", LOG);
        let banks = [bank(
            project,
            Format::Cline,
            &[("memory-bank/decisionLog.md", Role::Decisions)],
        )];
        assert_eq!(
            found(project, &banks),
            [
                ("DECISIONS.md".to_string(), Role::Decisions),
                ("docs/decision-log.md".to_string(), Role::Decisions),
                ("docs/memory/decisions.md".to_string(), Role::Decisions),
                (".claude/decisions.md".to_string(), Role::Decisions),
            ]
        );
    }

    #[test]
    fn folders_named_in_an_imported_file_or_by_a_record_s_path_are_read() {
        let temp = tempfile::tempdir().unwrap();
        let project = temp.path();
        let record =
            |title: &str| format!("# {title}\n\nDate: 2024-05-01\n\n## Status\n\nAccepted\n");
        write(
            project,
            "docs/02.architecture/decisions/0001-one-binary.md",
            &record("1. One binary"),
        );
        write(
            project,
            "docs/06-records/ADR-001-use-rust.md",
            &record("ADR-001: Use Rust"),
        );
        write(
            project,
            ".claude/rules/architecture.md",
            "| Where | What |\n|---|---|\n| `docs/02.architecture/decisions/` | the records |\n",
        );
        write(
            project,
            "CLAUDE.md",
            "# Project\n\n@.claude/rules/architecture.md\n\nNew records: `docs/06-records/ADR-XXX-[name].md`.\n",
        );
        let banks = [bank(
            project,
            Format::ClaudeMd,
            &[("CLAUDE.md", Role::Instructions)],
        )];
        assert_eq!(
            found(project, &banks),
            [
                ("docs/06-records/ADR-001-use-rust.md".to_string(), Role::Adr),
                (
                    "docs/02.architecture/decisions/0001-one-binary.md".to_string(),
                    Role::Adr
                ),
                // Loaded with CLAUDE.md: its decision sections are read as CLAUDE.md's.
                (
                    ".claude/rules/architecture.md".to_string(),
                    Role::Instructions
                ),
            ]
        );
    }

    #[test]
    fn a_path_from_the_project_s_root_and_singular_folder_names_resolve() {
        let temp = tempfile::tempdir().unwrap();
        let project = temp.path();
        let record = "# ADR-001: Use Rust\n\nDate: 2024-05-01\n\n## Status\n\nAccepted\n";
        write(project, "docs/00_current/DECISIONS.md", LOG);
        write(
            project,
            "docs/architecture-decision-record/ADR-001-rust.md",
            record,
        );
        write(
            project,
            "CLAUDE.md",
            "- Decisions: `/docs/00_current/DECISIONS.md`\n\
             - Records: `docs/architecture-decision-record/`\n",
        );
        let banks = [bank(
            project,
            Format::ClaudeMd,
            &[("CLAUDE.md", Role::Instructions)],
        )];
        assert_eq!(
            found(project, &banks),
            [
                ("docs/00_current/DECISIONS.md".to_string(), Role::Decisions),
                (
                    "docs/architecture-decision-record/ADR-001-rust.md".to_string(),
                    Role::Adr
                ),
            ]
        );
    }

    #[test]
    fn a_records_folder_written_as_code_alone_is_read() {
        let temp = tempfile::tempdir().unwrap();
        let project = temp.path();
        let record =
            "# Decision Record\n\n- Date: 04-02-2026 12:30:36\n\n## Decision\n\nAngular.\n";
        write(project, "decisions/decision_20260204123036.md", record);
        write(project, "adr/0001-use-rust.md", record);
        write(
            project,
            "AGENTS.md",
            "## Decision Records\n- Create a decision record in the `decisions` directory.\n\
             - Keep adr notes short.\n",
        );
        let banks = [bank(
            project,
            Format::AgentsMd,
            &[("AGENTS.md", Role::Instructions)],
        )];
        // The word alone, out of code, names no folder.
        assert_eq!(
            found(project, &banks),
            [(
                "decisions/decision_20260204123036.md".to_string(),
                Role::Adr
            )]
        );
    }

    #[test]
    fn the_decision_log_of_a_folder_the_memory_keeps_notes_in_is_read() {
        let temp = tempfile::tempdir().unwrap();
        let project = temp.path();
        write(
            project,
            "memory/DECISIONS.md",
            "# DECISIONS.md\n\n- 2026-02-15 | Markdown-first memory | fast | low upkeep\n\
             - 2026-02-17 | Reset script | drift | recovery\n",
        );
        write(project, "memory/2026-02-15.md", "# Notes\n");
        write(project, "notes/decisions.md", LOG);
        write(
            project,
            "AGENTS.md",
            "- **Daily notes:** `memory/YYYY-MM-DD.md`\n- Never edit notes by hand.\n",
        );
        let banks = [bank(
            project,
            Format::AgentsMd,
            &[("AGENTS.md", Role::Instructions)],
        )];
        assert_eq!(
            found(project, &banks),
            [("memory/DECISIONS.md".to_string(), Role::Decisions)]
        );
        let titles: Vec<String> = super::super::project::decisions_of_project(project, &banks)
            .into_iter()
            .map(|d| d.title)
            .collect();
        assert_eq!(titles, ["Markdown-first memory", "Reset script"]);
    }

    #[test]
    fn a_named_folder_of_records_and_the_adr_tools_setting_are_read() {
        let temp = tempfile::tempdir().unwrap();
        let project = temp.path();
        let record =
            |title: &str| format!("# {title}\n\nDate: 2024-05-01\n\n## Status\n\nAccepted\n");
        write(
            project,
            "docs/01-arch/adr/0001-use-rust.md",
            &record("1. Use Rust"),
        );
        write(
            project,
            "docs/01-arch/adr/0000-template.md",
            &record("Title"),
        );
        write(project, "docs/01-arch/adr/README.md", "# Records\n");
        write(
            project,
            "docs/01-arch/adr/superseded/0002-use-go.md",
            &record("2. Use Go"),
        );
        write(
            project,
            "arch/records/0003-one-binary.md",
            &record("3. One binary"),
        );
        write(project, ".adr-dir", "arch/records\n");
        write(
            project,
            "AGENTS.md",
            "Decisions live in docs/01-arch/adr/; the word decisions alone names nothing.\n",
        );
        let banks = [bank(
            project,
            Format::AgentsMd,
            &[("AGENTS.md", Role::Instructions)],
        )];
        let displays: Vec<String> = found(project, &banks)
            .into_iter()
            .map(|(display, role)| {
                assert_eq!(role, Role::Adr);
                display
            })
            .collect();
        assert_eq!(
            displays,
            [
                "arch/records/0003-one-binary.md",
                "docs/01-arch/adr/0001-use-rust.md",
                "docs/01-arch/adr/superseded/0002-use-go.md",
            ]
        );
    }
}

//! `AGENTS.md` as Codex reads it.
//!
//! Codex's loading rule (its AGENTS.md documentation and `project_doc.rs`):
//! - User level: in `~/.codex` (or `$CODEX_HOME`), `AGENTS.override.md` if it exists, else
//!   `AGENTS.md`; only the first non-empty one is used. It loads before the project's files.
//! - Project level: from the project root down to the working folder, each folder gives at
//!   most one file: `AGENTS.override.md` when it exists, else `AGENTS.md`. An override
//!   takes the folder's place even when it is empty (the empty file is then skipped and the
//!   folder's `AGENTS.md` is still not read).
//! - Files join root to leaf; empty files are skipped; the combined project text stops at
//!   `project_doc_max_bytes` (32 KiB by default): the file that crosses it is cut and the
//!   files after it are dropped. Codex does not expand `@imports`.
//!
//! mbank takes the project folder as the working folder: the files at its top load at
//! session start, those in sub-folders when Codex is started there (on demand).
use std::path::{Path, PathBuf};

use super::instruction_files::InstructionFiles;
use super::{Budget, FormatRules, Placement};
use crate::findings::RuleSource;
use crate::formats::Unit;
use crate::model::{Format, LoadKind, MemoryFile};

/// Codex's `project_doc_max_bytes`: AGENTS.md files stop here, combined.
pub(crate) const CODEX_PROJECT_DOC_MAX_BYTES: u64 = 32 * 1024;

pub const FILES: InstructionFiles = InstructionFiles {
    agent: "Codex",
    main: "AGENTS.md",
    local: "AGENTS.local.md",
    override_file: Some(OVERRIDE),
    top_markers: &["AGENTS.md", OVERRIDE],
    dot_dir: ".codex",
    reads_dot_dir: false,
    reads_dot_dir_main: false,
    rules_load: LoadKind::Startup,
    subfolders_load: LoadKind::OnDemand,
    budgets_borrowed: true,
    local_ignored: Some("Codex reads AGENTS.override.md and AGENTS.md only, no AGENTS.local.md"),
    memory_folders: &[],
};

/// The per-folder override Codex reads instead of `AGENTS.md`.
pub(crate) const OVERRIDE: &str = "AGENTS.override.md";

/// Codex's global instructions: `AGENTS.override.md`, else `AGENTS.md`, in Codex's home
/// folder (`~/.codex`), the first non-empty of the two loaded before every project's
/// files (Codex's documentation, "Custom instructions with AGENTS.md",
/// developers.openai.com/codex/guides/agents-md: "Global scope"). They belong to the home
/// folder, not to a project.
pub mod global_instructions {
    use std::path::{Path, PathBuf};

    /// What the store is called where a person reads it.
    pub(crate) const LABEL: &str = "Codex global instructions";

    /// The id `[journal] leave_out` knows it by.
    pub const ID: &str = "codex-global-instructions";

    /// Codex's home folder below `home`, whether or not it exists.
    pub fn folder(home: &Path) -> PathBuf {
        home.join(super::FILES.dot_dir)
    }

    /// The two files, in the order Codex looks for them, whether or not they exist.
    pub fn files(home: &Path) -> Vec<PathBuf> {
        let folder = folder(home);
        vec![folder.join(super::OVERRIDE), folder.join(super::FILES.main)]
    }
}

/// The override beside an `AGENTS.md` that takes its folder's place, if `exists` says
/// there is one: Codex then does not read the `AGENTS.md`.
pub(crate) fn superseding_override(file: &Path, exists: impl Fn(&Path) -> bool) -> Option<PathBuf> {
    if file.file_name()? != FILES.main {
        return None;
    }
    let sibling = file.with_file_name(OVERRIDE);
    exists(&sibling).then_some(sibling)
}

/// Whether Codex skips this text as empty.
pub(crate) fn is_empty_for_codex(text: &str) -> bool {
    text.trim().is_empty()
}

/// The finding on an AGENTS.md file Codex cuts at its combined limit.
pub(crate) fn cut_message(
    shown: &str,
    line: usize,
    kept: usize,
    dropped_lines: usize,
    dropped_bytes: usize,
) -> String {
    if kept == 0 {
        format!(
            "Codex never loads {shown}: the files before it already fill the 32 KiB \
             AGENTS.md budget (project_doc_max_bytes); {dropped_lines} lines / {dropped_bytes} \
             bytes dropped"
        )
    } else {
        format!(
            "Codex stops AGENTS.md files at 32 KiB combined (project_doc_max_bytes): {shown} \
             is cut in line {line}, after byte {kept}; {dropped_lines} lines / {dropped_bytes} \
             bytes dropped"
        )
    }
}

/// Codex's `project_doc_max_bytes` as a combined limit.
pub(crate) const COMBINED_LIMIT: super::CombinedLimit = super::CombinedLimit {
    agent: "Codex",
    max_bytes: CODEX_PROJECT_DOC_MAX_BYTES as usize,
    rule: "Codex: AGENTS.md files stop at 32 KiB combined",
    used_up: "the 32 KiB AGENTS.md budget is already used up",
    note: "32 KiB combined limit",
    code: crate::findings::FindingCode::CodexCutoff,
    message: cut_message,
};

pub struct AgentsMd;

impl FormatRules for AgentsMd {
    fn format(&self) -> Format {
        Format::AgentsMd
    }

    fn combined_limit(&self) -> Option<super::CombinedLimit> {
        Some(COMBINED_LIMIT)
    }

    fn skips_text(&self, text: &str) -> Option<&'static str> {
        is_empty_for_codex(text).then_some("empty: Codex skips empty files")
    }

    fn superseded_by(
        &self,
        file: &Path,
        listed: &dyn Fn(&Path) -> bool,
    ) -> Option<(PathBuf, &'static str)> {
        superseding_override(file, listed).map(|p| (p, "Codex reads one file per folder"))
    }

    fn place(&self, rel: &Path) -> Placement {
        // An override sits where the AGENTS.md of its folder would.
        if rel.file_name().is_some_and(|n| n == OVERRIDE) {
            return FILES.place(&rel.with_file_name(FILES.main));
        }
        FILES.place(rel)
    }

    fn keeps(&self, rel: &Path) -> bool {
        rel.file_name().is_some_and(|n| n == OVERRIDE) || FILES.keeps(rel)
    }

    fn file_budgets(&self, file: &MemoryFile, _preset: Option<&str>) -> Vec<Budget> {
        FILES.file_budgets(file)
    }

    fn bank_budgets(&self, _preset: Option<&str>) -> Vec<Budget> {
        let mut budgets = FILES.bank_budgets();
        budgets.push(
            Budget::new(
                "Codex stops reading AGENTS.md at 32 KiB combined",
                RuleSource::Codex,
                Unit::Bytes,
                CODEX_PROJECT_DOC_MAX_BYTES,
            )
            .cutting_off(),
        );
        budgets
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_override_takes_the_place_of_agents_md_in_its_folder() {
        let top = AgentsMd.place(Path::new(OVERRIDE));
        assert_eq!((top.layer, top.load), (Some(1), LoadKind::Startup));
        let sub = AgentsMd.place(Path::new("api/AGENTS.override.md"));
        assert_eq!(sub.load, LoadKind::OnDemand);
        assert!(AgentsMd.keeps(Path::new("api/AGENTS.override.md")));
        let present = |p: &Path| p.ends_with("api/AGENTS.override.md");
        assert_eq!(
            superseding_override(Path::new("/p/api/AGENTS.md"), present),
            Some(PathBuf::from("/p/api/AGENTS.override.md"))
        );
        assert_eq!(
            superseding_override(Path::new("/p/AGENTS.md"), present),
            None
        );
        assert!(is_empty_for_codex(" \n\t\n"));
    }
}

//! What the instruction-file family shares (`CLAUDE.md`, `AGENTS.md`, `GEMINI.md`,
//! `BEANS.md`): a main file and a private `.local.md` beside it at the project's top (or in
//! the agent's own folder), a `rules/` folder of markdown rules there, and the same file
//! name in sub-folders, which loads just in time when the agent works in that folder.
//! Each member (`claude_md.rs` …) describes itself with an [`InstructionFiles`].
use std::path::Path;

use super::{Budget, Placement, instruction_family, split_rel};
use crate::findings::{Finding, FindingCode, RuleSource, Severity};
use crate::formats::Unit;
use crate::model::{Format, LoadKind, MemoryFile, Role};

/// The folder of rules inside a member's own folder (`.claude/rules/`).
pub(crate) const RULES_FOLDER: &str = "rules";

/// Where the family's budgets come from: mbank's recommended sizes, BEANS.md's own; the
/// other members' agents document no line or token budget of their own, so theirs are
/// borrowed ([`InstructionFiles::budgets_borrowed`]).
pub(crate) const GUIDELINES: RuleSource = RuleSource::MbankSizes;

/// One member of the family.
#[derive(Debug, Clone, Copy)]
pub struct InstructionFiles {
    /// The agent that reads the files, as a person names it: `Claude Code`.
    pub agent: &'static str,
    /// The instruction file: `CLAUDE.md`.
    pub main: &'static str,
    /// Its private counterpart: `CLAUDE.local.md`.
    pub local: &'static str,
    /// A file read before the main one in each folder (Codex's `AGENTS.override.md`).
    pub override_file: Option<&'static str>,
    /// Names at a folder's top that make it a project of this member (its folder's
    /// contents are looked into separately).
    pub top_markers: &'static [&'static str],
    /// The agent's own folder in the project: `.claude`.
    pub dot_dir: &'static str,
    /// Whether the agent reads its folder (the main and local files and `rules/` there).
    pub reads_dot_dir: bool,
    /// Whether the agent reads the main file inside its folder in the project though it
    /// reads nothing else there: Gemini CLI's scan of the sub-folders finds
    /// `.gemini/GEMINI.md` like any other sub-folder's file.
    pub reads_dot_dir_main: bool,
    /// When a rule in `<dot_dir>/rules/` without a `paths:` scope loads.
    pub rules_load: LoadKind,
    /// When the instruction file of a sub-folder loads: just in time when the agent works
    /// there (Claude Code, Codex launched there), or at session start (Gemini CLI's
    /// discovery reads those below the folder it starts in).
    pub subfolders_load: LoadKind,
    /// The family's budgets are another member's rule for this one's files.
    pub budgets_borrowed: bool,
    /// `None` when the agent loads the private `.local.md` (Claude Code, Beans-Code);
    /// else why it never does, in words ("Codex reads AGENTS.override.md and AGENTS.md
    /// only"): such a file is listed, loads never, and says so in a finding.
    pub local_ignored: Option<&'static str>,
    /// Folders in the agent's own folder where its subagents keep memory of their own, one
    /// sub-folder per subagent (Claude Code's `.claude/agent-memory/<name>/` and the
    /// git-ignored `agent-memory-local/<name>/`): read when that subagent runs, never at
    /// the session's start.
    pub memory_folders: &'static [&'static str],
}

impl InstructionFiles {
    /// Whether mbank may create a new file of the member at `rel` (relative to the
    /// project): the main or local file at the top or in the agent's folder (when the agent
    /// reads it), or a rule under that folder's `rules/`.
    pub(crate) fn may_create(&self, rel: &Path) -> bool {
        let folders: Vec<&str> = rel
            .parent()
            .map(|p| p.iter().filter_map(|c| c.to_str()).collect())
            .unwrap_or_default();
        let file_name = rel.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let dot_dir = self.reads_dot_dir.then_some(self.dot_dir);
        let known_name = file_name == self.main || file_name == self.local;
        match folders.as_slice() {
            [] => known_name,
            [dot] => Some(*dot) == dot_dir && known_name,
            [dot, rules, ..] => Some(*dot) == dot_dir && *rules == RULES_FOLDER,
        }
    }

    /// Places a file of the family, given its path relative to the project.
    pub fn place(&self, rel: &Path) -> Placement {
        let (file_name, parents) = split_rel(rel);
        let file_name = file_name.as_ref();
        let first = parents.first().map(String::as_str);
        let in_dot_dir = first == Some(self.dot_dir);
        let (role, layer, group, load) = match first {
            // The main file's name in another case (`agents.md`): the agent looks for its
            // file by its exact name, which a case-sensitive file system does not bend.
            None if self.is_miscased(file_name) => {
                (Role::Instructions, None, None, LoadKind::Never)
            }
            // A private file the agent does not read, wherever it sits.
            _ if file_name == self.local && self.local_ignored.is_some() => {
                (Role::Instructions, None, None, LoadKind::Never)
            }
            None if file_name == self.main => {
                (Role::Instructions, Some(1), None, LoadKind::Startup)
            }
            None if file_name == self.local => {
                (Role::Instructions, Some(3), None, LoadKind::Startup)
            }
            Some(_) if in_dot_dir && parents.len() == 1 && file_name == self.main => {
                (Role::Instructions, Some(1), None, LoadKind::Startup)
            }
            Some(_) if in_dot_dir && parents.len() == 1 && file_name == self.local => {
                (Role::Instructions, Some(3), None, LoadKind::Startup)
            }
            // A subagent's memory: its index when the subagent starts, the rest on demand.
            Some(_)
                if in_dot_dir
                    && parents.len() >= 3
                    && self.memory_folders.contains(&parents[1].as_str()) =>
            {
                let load = if file_name.ends_with(".md") {
                    LoadKind::OnDemand
                } else {
                    LoadKind::Never
                };
                (
                    Role::Other,
                    Some(5),
                    Some(format!("{}/{}", parents[1], parents[2])),
                    load,
                )
            }
            // Rules without `paths:` load at start; listing refines this from frontmatter.
            Some(_) if in_dot_dir && parents.get(1).map(String::as_str) == Some(RULES_FOLDER) => {
                (Role::Rules, Some(2), Some("rules".into()), self.rules_load)
            }
            // A sub-folder's instruction file: just in time or at start, as the member says.
            Some(_) => (
                Role::Instructions,
                Some(4),
                Some("subfolders".into()),
                self.subfolders_load,
            ),
            None => (Role::Other, None, None, LoadKind::Never),
        };
        Placement {
            role,
            layer,
            group,
            load,
        }
    }

    /// The member's files anywhere, and rules under any member's rules folder (a deleted
    /// rule is claimed by the first instruction bank of the project).
    pub fn keeps(&self, rel: &Path) -> bool {
        let name = rel
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        let mut components = rel.components().map(|c| c.as_os_str());
        let first = components.next();
        let second = components.next();
        let in_rules = second.is_some_and(|c| c == RULES_FOLDER)
            && instruction_family()
                .filter(|member| member.reads_dot_dir)
                .any(|member| first.is_some_and(|f| f == member.dot_dir));
        let in_memory = first.is_some_and(|f| f == self.dot_dir)
            && second.is_some_and(|c| self.memory_folders.iter().any(|m| c == *m))
            && name.ends_with(".md");
        let at_top = rel.parent().is_none_or(|p| p.as_os_str().is_empty());
        name == self.main
            || name == self.local
            || in_rules
            || in_memory
            || (at_top && self.is_miscased(&name))
    }

    /// Whether `file_name` is the main file's name in another case (`agents.md`,
    /// `Claude.md`).
    pub(crate) fn is_miscased(&self, file_name: &str) -> bool {
        file_name != self.main && file_name.eq_ignore_ascii_case(self.main)
    }

    /// The finding of a main file named in another case, at the project's top.
    pub(crate) fn miscased_finding(&self, file: &MemoryFile, rel: &Path) -> Option<Finding> {
        let at_top = rel.parent().is_none_or(|p| p.as_os_str().is_empty());
        (at_top && self.is_miscased(&file.file_name())).then(|| {
            Finding::new(
                Severity::Warning,
                FindingCode::InstructionsMisnamed,
                &file.path,
                None,
                format!(
                    "{} is never read where file names are case-sensitive (Linux, most CI \
                     runners and cloud workspaces): {} looks for {} by that exact name; \
                     rename it to {}",
                    file.display, self.agent, self.main, self.main
                ),
            )
        })
    }

    /// The finding of a private `.local.md` the agent never loads, for members whose agent
    /// reads none.
    pub(crate) fn local_ignored_finding(&self, file: &MemoryFile) -> Option<Finding> {
        let why = self.local_ignored?;
        (file.file_name() == self.local).then(|| {
            Finding::new(
                Severity::Info,
                FindingCode::LocalFileNotLoaded,
                &file.path,
                None,
                format!(
                    "{} is never loaded: {why}; put what it says in {} (or import it from \
                     a file the agent reads)",
                    file.display, self.main
                ),
            )
        })
    }

    /// The family's per-file budget, for files that load.
    pub(crate) fn file_budgets(&self, file: &MemoryFile) -> Vec<Budget> {
        if file.load == LoadKind::Never {
            return Vec::new();
        }
        vec![self.budget("≤ 500 lines per file", Unit::Lines, 500)]
    }

    /// A budget of the family: BEANS.md's own, borrowed by every other member (their
    /// agents document no such limit).
    fn budget(&self, rule: &'static str, unit: Unit, limit: u64) -> Budget {
        if self.budgets_borrowed {
            Budget::borrowed(rule, GUIDELINES, unit, limit)
        } else {
            Budget::new(rule, GUIDELINES, unit, limit)
        }
    }

    /// The family's budgets of what loads at start-up. The line figure is BEANS.md's
    /// own; other agents load their files whole whatever their lines, so it is not lent.
    pub(crate) fn bank_budgets(&self) -> Vec<Budget> {
        let mut budgets = vec![self.budget("≤ 10% of a 200K-token context", Unit::Tokens, 20_000)];
        if !self.budgets_borrowed {
            budgets.push(self.budget("≤ 200 lines loaded at start-up", Unit::Lines, 200));
        }
        budgets
    }
}

/// A bank's private `.local.md` its agent never loads, as a finding (see
/// [`InstructionFiles::local_ignored`]).
pub(crate) fn local_ignored_finding(format: Format, file: &MemoryFile) -> Option<Finding> {
    super::instruction_member(format)?.local_ignored_finding(file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::FormatRules;
    use crate::formats::claude_md::ClaudeMd;
    use std::path::PathBuf;

    #[test]
    fn hierarchical_files_get_layers() {
        let p = ClaudeMd.place(&PathBuf::from("CLAUDE.md"));
        assert_eq!((p.layer, p.load), (Some(1), LoadKind::Startup));
        let p = ClaudeMd.place(&PathBuf::from("CLAUDE.local.md"));
        assert_eq!(p.layer, Some(3));
        let p = ClaudeMd.place(&PathBuf::from(".claude/rules/py/python.md"));
        assert_eq!((p.role, p.layer), (Role::Rules, Some(2)));
        let p = ClaudeMd.place(&PathBuf::from("statusline/CLAUDE.md"));
        assert_eq!((p.layer, p.load), (Some(4), LoadKind::OnDemand));
    }

    #[test]
    fn the_main_file_in_another_case_is_kept_at_the_top_only_and_never_loads() {
        use crate::formats::agents_md::AgentsMd;
        let top = Path::new("agents.md");
        assert!(AgentsMd.keeps(top));
        assert_eq!(AgentsMd.place(top).load, LoadKind::Never);
        // Below the top, a document about agents is no instruction file of the project.
        assert!(!AgentsMd.keeps(Path::new("docs/agents.md")));
    }

    #[test]
    fn only_agents_that_read_a_local_file_load_it() {
        use crate::formats::agents_md::AgentsMd;
        for rel in ["AGENTS.local.md", "api/AGENTS.local.md"] {
            assert_eq!(
                AgentsMd.place(Path::new(rel)).load,
                LoadKind::Never,
                "{rel}"
            );
        }
        let p = ClaudeMd.place(Path::new("CLAUDE.local.md"));
        assert_eq!(p.load, LoadKind::Startup);
    }
}

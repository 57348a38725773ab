//! The agents whose session start `mbank context` shows, and which formats (and which of
//! their files) each one loads. A project may hold several agents' files (CLAUDE.md,
//! AGENTS.md, `.cursor/rules/`…); each agent reads only its own, so a session start is
//! always one agent's.
//!
//! | agent | loads |
//! |---|---|
//! | Claude Code | CLAUDE.md family (`.claude/rules/` too), its auto memory, ConKeeper (injected by its SessionStart hook); AGENTS.md where the project has no CLAUDE.md of its own |
//! | Codex | AGENTS.md |
//! | Gemini CLI | GEMINI.md (sub-folders' too, and installed extensions' context files) |
//! | Cline | the Cline memory bank at `memory-bank/` (every markdown file), and `.clinerules` (file or folder) |
//! | Roo Code | the Memory Bank MCP / Roo bank, Roo rules and modes (`.roo/`, `.roorules*`, `.roomodes` as Roo sends it, `.roo/system-prompt-{mode}`, and the `.clinerules*` it falls back to) |
//! | Kilo Code | `.kilocode/` rules, mode rules, system prompt overrides and memory bank, the AGENTS.md at the project's top, the legacy rule file it falls back to; Kilo Memory in its data folder |
//! | Cursor | Cursor rules (`.mdc` and `.md`), and a Cline-format bank kept for it in `.cursor/memory-bank/` |
//! | GitHub Copilot | Copilot instructions, a Cline-format bank kept for it in `.copilot-tracking/memory-bank/`, and the Cline bank in `memory-bank/` when its start-up instructions say to read all memory bank files |
//! | Windsurf | Windsurf rules |
//! | Kiro | Kiro steering |
//! | JetBrains Junie | its guidelines, `.junie/guidelines.md` |
//! | Zed | the first present of `.rules`, `.cursorrules`, `.windsurfrules`, `.clinerules`, `.github/copilot-instructions.md`, `AGENT.md`, `AGENTS.md`, `CLAUDE.md`, `GEMINI.md`, whole |
//! | Trae | Trae's project rules, `.trae/rules/` |
//! | opencode | the AGENTS.md at the project's top, else its CLAUDE.md, whole, after the user's own file |
//!
//! BEANS.md and Infinity belong to no agent here: they are read through their own tools.
//!
//! Some files load only when others are absent ([`ProjectFacts`]):
//! - Claude Code reads AGENTS.md (at the top at start, in a sub-folder when it works
//!   there) only when no `CLAUDE.md`, `.claude/CLAUDE.md` or `CLAUDE.local.md` stands at
//!   the project's top: its `instructionFiles` setting, default `claude-md-or-agents-md`
//!   (Claude Code's documentation, "How Claude remembers your project",
//!   code.claude.com/docs/en/memory, and its built-in `agents-md` plugin's README,
//!   github.com/anthropics/claude-code/blob/v2.1.277/mods/agents-md/README.md). It reads
//!   them as it reads CLAUDE.md: imports expanded, no AGENTS.override.md, no 32 KiB cut.
//! - Roo Code reads `.roo/rules/` when it holds files, else the first non-empty of
//!   `.roorules` and `.clinerules` (a file; a `.clinerules/` folder is Cline's) (Roo
//!   Code's documentation, "Custom Instructions", docs.roocode.com/features/custom-instructions).
//! - Kilo Code reads the AGENTS.md at the project's top by default, `.kilocode/rules/`
//!   when it holds files, else the first non-empty of `.kilocoderules`, `.roorules` and
//!   `.clinerules` (Kilo's documentation, "Custom Rules", kilo.ai/docs/customize/custom-rules,
//!   and "agents.md", kilo.ai/docs/agent-behavior/agents-md; the order of the legacy
//!   files is its rule loader's, `custom-instructions.ts`).
use std::path::{Component, Path};

use serde::Serialize;

use super::{claude_md, kilo_code, roo_rules, zed};
use crate::io::paths;
use crate::model::{Bank, Format, LoadKind};

/// An agent whose session start can be shown on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Agent {
    ClaudeCode,
    Codex,
    Gemini,
    Cline,
    Roo,
    Kilo,
    Cursor,
    Copilot,
    Windsurf,
    Kiro,
    Junie,
    Zed,
    Trae,
    // Spelled as opencode spells itself, which kebab-case would split.
    #[serde(rename = "opencode")]
    OpenCode,
}

impl Agent {
    /// In the order sessions are shown.
    pub const ALL: [Agent; 14] = [
        Agent::ClaudeCode,
        Agent::Codex,
        Agent::Gemini,
        Agent::Cline,
        Agent::Roo,
        Agent::Kilo,
        Agent::Cursor,
        Agent::Copilot,
        Agent::Windsurf,
        Agent::Kiro,
        Agent::Junie,
        Agent::Zed,
        Agent::Trae,
        Agent::OpenCode,
    ];

    /// Stable identifier, as `--agent` takes it and JSON shows it.
    pub fn id(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "claude-code",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Cline => "cline",
            Agent::Roo => "roo",
            Agent::Kilo => "kilo",
            Agent::Cursor => "cursor",
            Agent::Copilot => "copilot",
            Agent::Windsurf => "windsurf",
            Agent::Kiro => "kiro",
            Agent::Junie => "junie",
            Agent::Zed => "zed",
            Agent::Trae => "trae",
            Agent::OpenCode => "opencode",
        }
    }

    pub fn from_id(id: &str) -> Option<Agent> {
        Agent::ALL.into_iter().find(|a| a.id() == id)
    }

    /// Human name for headings.
    pub fn label(self) -> &'static str {
        match self {
            Agent::ClaudeCode => "Claude Code",
            Agent::Codex => "Codex",
            Agent::Gemini => "Gemini CLI",
            Agent::Cline => "Cline",
            Agent::Roo => "Roo Code",
            Agent::Kilo => "Kilo Code",
            Agent::Cursor => "Cursor",
            Agent::Copilot => "GitHub Copilot",
            Agent::Windsurf => "Windsurf",
            Agent::Kiro => "Kiro",
            Agent::Junie => "JetBrains Junie",
            Agent::Zed => "Zed",
            Agent::Trae => "Trae",
            Agent::OpenCode => "opencode",
        }
    }

    /// The formats whose files this agent may load at session start; [`Agent::reads`]
    /// says which of their files.
    /// Whether this agent loads what the `@` imports of a file of `format` name along
    /// with it (Claude Code in CLAUDE.md, Gemini CLI in GEMINI.md); Zed and opencode
    /// read a CLAUDE.md whole, its `@` lines as text.
    pub(crate) fn expands_imports_of(self, format: Format) -> bool {
        matches!(
            (self, format),
            (Agent::ClaudeCode, Format::ClaudeMd) | (Agent::Gemini, Format::GeminiMd)
        ) && super::rules(format).expands_imports()
    }

    pub fn formats(self) -> &'static [Format] {
        match self {
            Agent::ClaudeCode => &[
                Format::ClaudeMd,
                Format::ClaudeAutoMemory,
                Format::ConKeeper,
                Format::AgentsMd,
            ],
            Agent::Codex => &[Format::AgentsMd],
            Agent::Gemini => &[Format::GeminiMd],
            Agent::Cline => &[Format::Cline, Format::RooRules],
            Agent::Roo => &[Format::MemoryBankMcp, Format::RooRules],
            Agent::Kilo => &[
                Format::KiloCode,
                Format::KiloMemory,
                Format::AgentsMd,
                Format::RooRules,
            ],
            Agent::Cursor => &[Format::CursorRules, Format::Cline],
            Agent::Copilot => &[Format::Copilot, Format::Cline],
            Agent::Windsurf => &[Format::Windsurf, Format::Cline],
            Agent::Kiro => &[Format::Kiro],
            Agent::Junie => &[Format::Junie],
            Agent::Zed => &[
                Format::ZedRules,
                Format::CursorRules,
                Format::Windsurf,
                Format::RooRules,
                Format::Copilot,
                Format::AgentsMd,
                Format::ClaudeMd,
                Format::GeminiMd,
            ],
            Agent::Trae => &[Format::TraeRules],
            Agent::OpenCode => &[Format::AgentsMd, Format::ClaudeMd, Format::OpenCode],
        }
    }

    /// Whether this agent reads a file of `format` at `rel`, its path relative to the
    /// project (a file outside the project, such as auto memory's, is given whole), in a
    /// project whose listed files `facts` sums up.
    /// Two formats are shared: a Cline-format bank is Cursor's in `.cursor/`, Copilot's
    /// in `.copilot-tracking/`, else Cline's; of the Cline/Roo rule files Cline reads
    /// only `.clinerules` (a file or a folder), Roo Code the rest and the legacy file it
    /// falls back to, Kilo Code only that legacy file. AGENTS.md is Codex's, and Claude
    /// Code's and Kilo Code's as the module's notes say.
    pub fn reads(self, format: Format, rel: &Path, facts: &ProjectFacts) -> bool {
        if !self.formats().contains(&format) {
            return false;
        }
        // Each worked out only where the format's rule asks for it: a session start asks
        // this of every file of every bank.
        let first = || match rel.components().next() {
            Some(Component::Normal(first)) => first.to_str(),
            _ => None,
        };
        let at_top = || {
            let mut components = rel.components();
            components.next().is_some() && components.next().is_none()
        };
        let name = || paths::file_name(rel).and_then(|n| n.to_str()).unwrap_or("");
        match (self, format) {
            (_, Format::Cline) => {
                let owner = match first() {
                    Some(".cursor") => Agent::Cursor,
                    Some(".copilot-tracking") => Agent::Copilot,
                    _ => Agent::Cline,
                };
                self == owner
            }
            (Agent::Cline, Format::RooRules) => first() == Some(roo_rules::CLINERULES),
            (Agent::Roo, Format::RooRules) => match legacy_rule_file(rel) {
                Some(legacy) => {
                    !facts.roo_rules_folder
                        && facts.first_non_empty(&roo_rules::LEGACY_ORDER) == Some(legacy)
                }
                // A `.clinerules/` folder is Cline's: Roo reads `.clinerules` as a file only.
                None => first() != Some(roo_rules::CLINERULES),
            },
            (Agent::Kilo, Format::RooRules) => legacy_rule_file(rel).is_some_and(|legacy| {
                !facts.kilo_rules_folder
                    && facts.first_non_empty(&kilo_code::LEGACY_ORDER) == Some(legacy)
            }),
            (Agent::Kilo, Format::KiloCode) => match legacy_rule_file(rel) {
                Some(legacy) => {
                    !facts.kilo_rules_folder
                        && facts.first_non_empty(&kilo_code::LEGACY_ORDER) == Some(legacy)
                }
                None => true,
            },
            (Agent::Kilo, Format::AgentsMd) => at_top() && name() == super::agents_md::FILES.main,
            // Zed's first present file, whichever agent's it is.
            (Agent::Zed, _) => rel.to_str().is_some_and(|rel| facts.zed_rules == Some(rel)),
            // opencode: the AGENTS.md at the top, else the CLAUDE.md there.
            (Agent::OpenCode, Format::AgentsMd) => {
                at_top() && name() == super::agents_md::FILES.main
            }
            (Agent::OpenCode, Format::ClaudeMd) => {
                at_top() && name() == claude_md::FILES.main && !facts.agents_md
            }
            (Agent::ClaudeCode, Format::AgentsMd) => {
                !facts.claude_md
                    && name() == super::agents_md::FILES.main
                    && !rel
                        .parent()
                        .is_some_and(|dir| facts.claude_md_folders.iter().any(|d| d == dir))
            }
            _ => true,
        }
    }

    /// The format whose loading rules apply when this agent loads a file of `format`:
    /// Claude Code reads AGENTS.md as it reads CLAUDE.md, Kilo Code reads AGENTS.md and
    /// the legacy rule files as its own rules (no Codex cut, no Roo modes).
    pub(crate) fn loads_as(self, format: Format) -> Format {
        match (self, format) {
            (Agent::ClaudeCode, Format::AgentsMd) => Format::ClaudeMd,
            (Agent::Kilo, Format::AgentsMd | Format::RooRules) => Format::KiloCode,
            // Zed includes its rules file whole, whichever agent's it is.
            (Agent::Zed, _) => Format::ZedRules,
            (Agent::OpenCode, _) => Format::OpenCode,
            _ => format,
        }
    }

    /// Whether this agent also reads a memory bank it does not own at `rel` when one of its
    /// start-up instruction files tells it to ([`directs_to_memory_bank`]): GitHub Copilot
    /// given Cline's custom instructions as `.github/instructions/*.instructions.md`, or
    /// Windsurf and Cursor given them as an always-on rule, read the Cline bank in
    /// `memory-bank/` at the start of every task, as Cline would.
    pub(crate) fn reads_when_directed(self, format: Format, rel: &Path) -> bool {
        self.takes_memory_bank_directions()
            && format == Format::Cline
            && Agent::Cline.reads(format, rel, &ProjectFacts::default())
    }

    /// Whether this agent's instruction files may tell it to read a memory bank it does not
    /// own (see [`Agent::reads_when_directed`]).
    pub(crate) fn takes_memory_bank_directions(self) -> bool {
        matches!(self, Agent::Copilot | Agent::Windsurf | Agent::Cursor)
    }

    /// Whether this agent loads `file`, one of the home folder's own memory files, at
    /// every session start: a user-level file of a format it loads (`~/.claude/CLAUDE.md`,
    /// `~/.gemini/GEMINI.md` …, as [`super::layers::user_files`] lists them), or Codex's
    /// memory summary.
    pub(crate) fn loads_from_home(self, home: &Path, file: &Path) -> bool {
        if self == Agent::Codex
            && file
                == super::codex_memories::memory_folder(home).join(super::codex_memories::SUMMARY)
        {
            return true;
        }
        let non_empty = |candidate: &Path| {
            crate::io::text::read_text_limited(candidate, crate::io::text::MAX_READ_BYTES)
                .is_ok_and(|text| !super::agents_md::is_empty_for_codex(&text))
        };
        self.formats().iter().any(|&format| {
            super::layers::user_files(self.loads_as(format), home, None, &non_empty)
                .iter()
                .any(|user_file| user_file == file)
        })
    }

    /// Whether some agent loads files of `format` (BEANS.md and Infinity: none).
    pub fn any_loads(format: Format) -> bool {
        Agent::ALL.iter().any(|a| a.formats().contains(&format))
    }
}

/// What of a project's listed files decides which of them an agent reads beyond each
/// file's own path (see the module's notes): whether Claude Code's own instruction file
/// stands at the top, whether Roo Code's and Kilo Code's rule folders hold files, and
/// which legacy rule files at the top are non-empty.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProjectFacts {
    /// A `CLAUDE.md`, `.claude/CLAUDE.md` or `CLAUDE.local.md` at the project's top.
    claude_md: bool,
    /// `.roo/rules/` holds a file Roo Code loads.
    roo_rules_folder: bool,
    /// `.kilocode/rules/` holds a file Kilo Code loads.
    kilo_rules_folder: bool,
    /// The legacy rule files at the top (`.roorules` …) that are not empty.
    non_empty_legacy: Vec<&'static str>,
    /// The sub-folders holding a `CLAUDE.md`, which claims the folder from its AGENTS.md.
    claude_md_folders: Vec<std::path::PathBuf>,
    /// The first of Zed's rule files that stands at the top, its path.
    zed_rules: Option<&'static str>,
    /// An AGENTS.md at the project's top.
    agents_md: bool,
}

impl ProjectFacts {
    /// The facts of a project whose banks list these files: each one's path relative to
    /// the project, its size and when it loads.
    pub fn of<'a>(files: impl IntoIterator<Item = (&'a Path, u64, LoadKind)>) -> ProjectFacts {
        let mut facts = ProjectFacts::default();
        for (rel, size, load) in files {
            if may_decide(rel) {
                facts.add(rel, size, load);
            }
        }
        facts
    }

    /// Adds what one listed file tells (see [`ProjectFacts::of`]).
    fn add(&mut self, rel: &Path, size: u64, load: LoadKind) {
        let parts: Vec<&str> = rel.iter().filter_map(|c| c.to_str()).collect();
        let loads = load != LoadKind::Never;
        match parts.as_slice() {
            [name] if *name == claude_md::FILES.main || *name == claude_md::FILES.local => {
                self.claude_md = true;
            }
            [name] if *name == super::agents_md::FILES.main => self.agents_md = true,
            [dot, name] if *dot == claude_md::FILES.dot_dir && *name == claude_md::FILES.main => {
                self.claude_md = true;
            }
            [.., name] if *name == claude_md::FILES.main => {
                self.claude_md_folders
                    .extend(rel.parent().map(Path::to_path_buf));
            }
            _ => {}
        }
        if loads && roo_rules::in_rules_folder(rel) {
            self.roo_rules_folder = true;
        }
        if loads && rel.starts_with(kilo_code::RULES_DIR) {
            self.kilo_rules_folder = true;
        }
        if let Some(position) = zed::FIRST_MATCH.iter().position(|f| rel == Path::new(f)) {
            let earlier = self
                .zed_rules
                .and_then(|current| zed::FIRST_MATCH.iter().position(|f| *f == current));
            if earlier.is_none_or(|earlier| position < earlier) {
                self.zed_rules = Some(zed::FIRST_MATCH[position]);
            }
        }
        if let Some(legacy) = legacy_rule_file(rel)
            && size > 0
            && !self.non_empty_legacy.contains(&legacy)
        {
            self.non_empty_legacy.push(legacy);
        }
    }

    /// The facts of a project at `project` whose banks are `banks`.
    pub fn of_banks(project: &Path, banks: &[&Bank]) -> ProjectFacts {
        ProjectFacts::of(banks.iter().flat_map(|bank| {
            bank.files.iter().map(|file| {
                let rel = file.path.strip_prefix(project).unwrap_or(&file.path);
                (rel, file.size, file.load)
            })
        }))
    }

    /// The first of `order` that is a non-empty file at the project's top.
    fn first_non_empty(&self, order: &[&'static str]) -> Option<&'static str> {
        order
            .iter()
            .copied()
            .find(|name| self.non_empty_legacy.contains(name))
    }
}

/// Whether `rel`, a listed file's path relative to the project, may be one of the files
/// [`ProjectFacts::of`] looks for: its name is one of theirs, or it lies in Roo Code's or
/// Kilo Code's folder. Most files of a bank are none of them; this tells them by their
/// name's bytes, before any path is split into components.
fn may_decide(rel: &Path) -> bool {
    let Some(name) = paths::file_name(rel).and_then(|name| name.to_str()) else {
        return true;
    };
    let text = rel.as_os_str().as_encoded_bytes();
    let folders = [roo_rules::ROO_DIR, kilo_code::RULES_DIR];
    let names = [
        claude_md::FILES.main,
        claude_md::FILES.local,
        super::agents_md::FILES.main,
        roo_rules::ROORULES,
        roo_rules::CLINERULES,
        kilo_code::LEGACY_FILE,
    ];
    folders
        .iter()
        .any(|folder| text.starts_with(first_name(folder).as_bytes()))
        || names.contains(&name)
        || zed::FIRST_MATCH
            .iter()
            .any(|rules| last_name(rules) == name)
}

/// The first name of a `/`-separated path.
fn first_name(path: &str) -> &str {
    path.split('/').next().unwrap_or(path)
}

/// The last name of a `/`-separated path.
fn last_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The legacy single rule file (`.roorules`, `.clinerules`, Kilo's `.kilocoderules`) a
/// path relative to the project is, when it is one at the top.
fn legacy_rule_file(rel: &Path) -> Option<&'static str> {
    let mut parts = rel.iter();
    let name = parts.next()?;
    if parts.next().is_some() {
        return None;
    }
    [
        roo_rules::ROORULES,
        roo_rules::CLINERULES,
        kilo_code::LEGACY_FILE,
    ]
    .into_iter()
    .find(|legacy| name == *legacy)
}

/// Whether an instruction file tells its agent to read the project's memory bank at the
/// start of every task, as Cline's custom instructions do ("I MUST read ALL memory bank
/// files at the start of EVERY task"), judged from its text.
pub(crate) fn directs_to_memory_bank(text: &str) -> bool {
    let lower = text.to_lowercase();
    ["read all memory bank files", "read all memory-bank files"]
        .iter()
        .any(|phrase| lower.contains(phrase))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_are_unique() {
        for agent in Agent::ALL {
            assert_eq!(Agent::from_id(agent.id()), Some(agent));
            let json = serde_json::to_value(agent).unwrap();
            assert_eq!(json, agent.id());
        }
        assert_eq!(Agent::from_id("claude"), None);
    }

    #[test]
    fn each_instruction_file_belongs_to_one_agent() {
        let owners = |format, rel: &str| -> Vec<&str> {
            Agent::ALL
                .into_iter()
                .filter(|a| a.reads(format, Path::new(rel), &ProjectFacts::default()))
                .map(Agent::id)
                .collect()
        };
        // Zed reads nothing without the facts of a project; opencode reads CLAUDE.md where
        // no AGENTS.md stands.
        assert_eq!(
            owners(Format::ClaudeMd, "CLAUDE.md"),
            ["claude-code", "opencode"]
        );
        assert_eq!(
            owners(Format::ClaudeMd, ".claude/rules/a.md"),
            ["claude-code"]
        );
        assert_eq!(
            owners(
                Format::ClaudeAutoMemory,
                "/home/u/.claude/projects/p/memory/MEMORY.md"
            ),
            ["claude-code"]
        );
        // With no CLAUDE.md in the project, Claude Code reads AGENTS.md too; Kilo Code
        // reads the one at the top.
        assert_eq!(
            owners(Format::AgentsMd, "AGENTS.md"),
            ["claude-code", "codex", "kilo", "opencode"]
        );
        assert_eq!(
            owners(Format::AgentsMd, "api/AGENTS.md"),
            ["claude-code", "codex"]
        );
        assert_eq!(owners(Format::AgentsMd, "AGENTS.override.md"), ["codex"]);
        assert_eq!(owners(Format::GeminiMd, "GEMINI.md"), ["gemini"]);
        assert_eq!(
            owners(Format::Cline, "memory-bank/activeContext.md"),
            ["cline"]
        );
        assert_eq!(
            owners(Format::Cline, ".cursor/memory-bank/activeContext.md"),
            ["cursor"]
        );
        assert_eq!(
            owners(Format::Cline, ".copilot-tracking/memory-bank/progress.md"),
            ["copilot"]
        );
        // An empty project has no non-empty legacy rule file for Roo or Kilo to fall back to.
        assert_eq!(owners(Format::RooRules, ".clinerules"), ["cline"]);
        assert_eq!(owners(Format::RooRules, ".clinerules/style.md"), ["cline"]);
        assert_eq!(owners(Format::RooRules, ".clinerules-code"), ["roo"]);
        assert_eq!(owners(Format::RooRules, ".roo/rules/a.md"), ["roo"]);
        assert_eq!(owners(Format::RooRules, ".roomodes"), ["roo"]);
        assert_eq!(
            owners(Format::MemoryBankMcp, "memory-bank/active-context.md"),
            ["roo"]
        );
        assert_eq!(owners(Format::KiloCode, ".kilocode/rules/a.md"), ["kilo"]);
        assert_eq!(
            owners(Format::CursorRules, ".cursor/rules/a.mdc"),
            ["cursor"]
        );
        assert_eq!(
            owners(Format::Copilot, ".github/copilot-instructions.md"),
            ["copilot"]
        );
        assert_eq!(
            owners(Format::Windsurf, ".windsurf/rules/a.md"),
            ["windsurf"]
        );
        assert_eq!(owners(Format::Kiro, ".kiro/steering/a.md"), ["kiro"]);
        assert_eq!(owners(Format::Junie, ".junie/guidelines.md"), ["junie"]);
        assert_eq!(owners(Format::TraeRules, ".trae/rules/a.md"), ["trae"]);
        assert!(owners(Format::BeansMd, "BEANS.md").is_empty());
        assert!(owners(Format::Infinity, ".infinity/memories.json").is_empty());
    }

    #[test]
    fn copilot_windsurf_and_cursor_read_a_cline_bank_only_when_their_instructions_say_so() {
        let bank = Path::new("memory-bank/activeContext.md");
        for agent in [Agent::Copilot, Agent::Windsurf, Agent::Cursor] {
            assert!(agent.reads_when_directed(Format::Cline, bank), "{agent:?}");
            assert!(
                !agent.reads(Format::Cline, bank, &ProjectFacts::default()),
                "{agent:?}"
            );
        }
        for agent in [Agent::ClaudeCode, Agent::Codex, Agent::Kilo, Agent::Kiro] {
            assert!(!agent.reads_when_directed(Format::Cline, bank), "{agent:?}");
        }
        assert!(!Agent::Copilot.reads_when_directed(
            Format::Cline,
            Path::new(".cursor/memory-bank/activeContext.md")
        ));
        assert!(directs_to_memory_bank(
            "---\napplyTo: '**'\n---\nI MUST read ALL memory bank files at the start of EVERY task"
        ));
        assert!(!directs_to_memory_bank(
            "# Memory Bank\nKeep notes in memory-bank/."
        ));
    }

    #[test]
    fn only_beans_infinity_and_decision_records_belong_to_no_agent() {
        let unowned: Vec<Format> = Format::ALL
            .into_iter()
            .filter(|f| !Agent::any_loads(*f))
            .collect();
        // Records beside the code are the project's history: no agent loads them.
        assert_eq!(
            unowned,
            [Format::BeansMd, Format::Infinity, Format::AdrRecords]
        );
    }

    #[test]
    fn the_facts_let_go_by_name_only_files_that_tell_nothing() {
        let paths = [
            "CLAUDE.md",
            "CLAUDE.local.md",
            ".claude/CLAUDE.md",
            "api/CLAUDE.md",
            "./CLAUDE.md",
            "/home/u/.claude/CLAUDE.md",
            "AGENTS.md",
            "api/AGENTS.md",
            ".roo/rules/a.md",
            ".roo/rules/a.md.bak",
            ".roo/rules",
            "./.roo/rules/a.md",
            ".roo//rules/a.md",
            ".kilocode/rules/a.md",
            ".kilocode/rules",
            ".rules",
            ".cursorrules",
            ".windsurfrules",
            ".clinerules",
            ".clinerules/a.md",
            ".github/copilot-instructions.md",
            "AGENT.md",
            "GEMINI.md",
            ".roorules",
            ".roorules/",
            ".kilocoderules",
            "memory-bank/activeContext.md",
            "memory-bank/notes/area-01/note-01.md",
            ".cursor/rules/a.mdc",
            "",
            ".",
            "..",
            "/",
        ];
        for rel in paths {
            let rel = Path::new(rel);
            for load in [LoadKind::Startup, LoadKind::Never] {
                let mut told = ProjectFacts::default();
                told.add(rel, 1, load);
                if told != ProjectFacts::default() {
                    assert!(may_decide(rel), "{rel:?} tells a fact but is let go");
                }
                assert_eq!(ProjectFacts::of([(rel, 1, load)]), told, "{rel:?}");
            }
        }
        assert!(!may_decide(Path::new("memory-bank/notes/note-01.md")));
    }

    fn facts(files: &[(&str, u64)]) -> ProjectFacts {
        ProjectFacts::of(
            files
                .iter()
                .map(|(rel, size)| (Path::new(*rel), *size, LoadKind::Startup)),
        )
    }

    #[test]
    fn claude_code_reads_agents_md_only_where_no_claude_md_of_its_own_stands() {
        let reads = |facts: &ProjectFacts, rel: &str| {
            Agent::ClaudeCode.reads(Format::AgentsMd, Path::new(rel), facts)
        };
        let none = facts(&[("AGENTS.md", 10), ("api/AGENTS.md", 5)]);
        assert!(reads(&none, "AGENTS.md") && reads(&none, "api/AGENTS.md"));
        assert!(!reads(&none, "AGENTS.override.md") && !reads(&none, "AGENTS.local.md"));
        for own in ["CLAUDE.md", "CLAUDE.local.md", ".claude/CLAUDE.md"] {
            let facts = facts(&[(own, 1), ("AGENTS.md", 10)]);
            assert!(!reads(&facts, "AGENTS.md"), "{own}");
            assert!(!reads(&facts, "api/AGENTS.md"), "{own}");
        }
        // A sub-folder's CLAUDE.md claims its folder; rules and sub-folders elsewhere do not.
        let nested = facts(&[
            ("api/CLAUDE.md", 1),
            (".claude/rules/a.md", 1),
            ("AGENTS.md", 10),
        ]);
        assert!(reads(&nested, "AGENTS.md") && reads(&nested, "web/AGENTS.md"));
        assert!(!reads(&nested, "api/AGENTS.md"));
        assert_eq!(
            Agent::ClaudeCode.loads_as(Format::AgentsMd),
            Format::ClaudeMd
        );
        assert_eq!(Agent::Codex.loads_as(Format::AgentsMd), Format::AgentsMd);
    }

    #[test]
    fn roo_falls_back_to_roorules_then_clinerules_when_its_rules_folder_is_empty() {
        let roo = |facts: &ProjectFacts, rel: &str| {
            Agent::Roo.reads(Format::RooRules, Path::new(rel), facts)
        };
        let both = facts(&[(".roorules", 3), (".clinerules", 3)]);
        assert!(roo(&both, ".roorules") && !roo(&both, ".clinerules"));
        let empty_roorules = facts(&[(".roorules", 0), (".clinerules", 3)]);
        assert!(!roo(&empty_roorules, ".roorules") && roo(&empty_roorules, ".clinerules"));
        let folder = facts(&[(".roo/rules/a.md", 3), (".roorules", 3), (".clinerules", 3)]);
        assert!(roo(&folder, ".roo/rules/a.md"));
        assert!(!roo(&folder, ".roorules") && !roo(&folder, ".clinerules"));
        // A backup file in the folder is not a rule: the fallback still applies.
        let backup_only = facts(&[(".roo/rules/a.md.bak", 3), (".roorules", 3)]);
        assert!(roo(&backup_only, ".roorules"));
        // Cline reads its own `.clinerules` whatever Roo's folder holds; a `.clinerules/`
        // folder is Cline's alone.
        assert!(Agent::Cline.reads(Format::RooRules, Path::new(".clinerules"), &folder));
        assert!(!roo(&folder, ".clinerules/style.md"));
    }

    #[test]
    fn kilo_reads_agents_md_and_the_first_non_empty_legacy_file_without_a_rules_folder() {
        let kilo = |facts: &ProjectFacts, format: Format, rel: &str| {
            Agent::Kilo.reads(format, Path::new(rel), facts)
        };
        let legacy = facts(&[(".kilocoderules", 0), (".roorules", 4), (".clinerules", 4)]);
        assert!(!kilo(&legacy, Format::KiloCode, ".kilocoderules"));
        assert!(kilo(&legacy, Format::RooRules, ".roorules"));
        assert!(!kilo(&legacy, Format::RooRules, ".clinerules"));
        assert!(!kilo(&legacy, Format::RooRules, ".roo/rules/a.md"));
        assert!(!kilo(&legacy, Format::RooRules, ".clinerules-code"));
        let own = facts(&[(".kilocoderules", 2), (".roorules", 4)]);
        assert!(kilo(&own, Format::KiloCode, ".kilocoderules"));
        assert!(!kilo(&own, Format::RooRules, ".roorules"));
        let folder = facts(&[(".kilocode/rules/a.md", 2), (".kilocoderules", 2)]);
        assert!(kilo(&folder, Format::KiloCode, ".kilocode/rules/a.md"));
        assert!(!kilo(&folder, Format::KiloCode, ".kilocoderules"));
        assert!(kilo(&folder, Format::AgentsMd, "AGENTS.md"));
        assert!(!kilo(&folder, Format::AgentsMd, "api/AGENTS.md"));
        assert_eq!(Agent::Kilo.loads_as(Format::AgentsMd), Format::KiloCode);
        assert_eq!(Agent::Kilo.loads_as(Format::RooRules), Format::KiloCode);
    }

    #[test]
    fn zed_reads_the_first_present_of_its_list_whole() {
        let zed = |facts: &ProjectFacts, format: Format, rel: &str| {
            Agent::Zed.reads(format, Path::new(rel), facts)
        };
        let many = facts(&[
            ("AGENTS.md", 3),
            ("CLAUDE.md", 3),
            (".github/copilot-instructions.md", 3),
            (".cursor/rules/a.mdc", 3),
        ]);
        assert!(zed(
            &many,
            Format::Copilot,
            ".github/copilot-instructions.md"
        ));
        assert!(!zed(&many, Format::AgentsMd, "AGENTS.md"));
        assert!(!zed(&many, Format::ClaudeMd, "CLAUDE.md"));
        assert!(!zed(&many, Format::CursorRules, ".cursor/rules/a.mdc"));
        let own = facts(&[("CLAUDE.md", 3), (".rules", 0)]);
        assert!(zed(&own, Format::ZedRules, ".rules"));
        assert!(!zed(&own, Format::ClaudeMd, "CLAUDE.md"));
        let sub = facts(&[("api/AGENTS.md", 3), ("GEMINI.md", 3)]);
        assert!(zed(&sub, Format::GeminiMd, "GEMINI.md"));
        assert!(!zed(&sub, Format::AgentsMd, "api/AGENTS.md"));
        assert_eq!(Agent::Zed.loads_as(Format::AgentsMd), Format::ZedRules);
    }

    #[test]
    fn opencode_reads_agents_md_else_claude_md_at_the_top() {
        let open = |facts: &ProjectFacts, format: Format, rel: &str| {
            Agent::OpenCode.reads(format, Path::new(rel), facts)
        };
        let both = facts(&[("AGENTS.md", 3), ("CLAUDE.md", 3), ("api/AGENTS.md", 3)]);
        assert!(open(&both, Format::AgentsMd, "AGENTS.md"));
        assert!(!open(&both, Format::ClaudeMd, "CLAUDE.md"));
        assert!(!open(&both, Format::AgentsMd, "api/AGENTS.md"));
        let claude = facts(&[("CLAUDE.md", 3), (".claude/rules/a.md", 3)]);
        assert!(open(&claude, Format::ClaudeMd, "CLAUDE.md"));
        assert!(!open(&claude, Format::ClaudeMd, ".claude/rules/a.md"));
        assert_eq!(Agent::OpenCode.loads_as(Format::ClaudeMd), Format::OpenCode);
    }

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn loaders(home: &Path, rel: &str) -> Vec<Agent> {
        Agent::ALL
            .into_iter()
            .filter(|agent| agent.loads_from_home(home, &home.join(rel)))
            .collect()
    }

    #[test]
    fn the_agents_load_their_user_level_files_from_the_home_folder() {
        let temp = tempfile::tempdir().unwrap();
        let home = temp.path();
        write(&home.join(".claude/rules/style.md"), "# Style\n");
        write(&home.join(".claude/rules/lang/rust.md"), "# Rust\n");
        write(&home.join(".config/opencode/AGENTS.md"), "# opencode\n");
        write(&home.join(".codex/AGENTS.md"), "# Global\n");
        write(&home.join(".codex/AGENTS.override.md"), "  \n");
        write(
            &home.join(".gemini/extensions/jira/gemini-extension.json"),
            r#"{"name":"jira"}"#,
        );
        write(&home.join(".gemini/extensions/jira/GEMINI.md"), "# Jira\n");
        // Claude Code's user rules, sub-folders included.
        assert_eq!(loaders(home, ".claude/rules/style.md"), [Agent::ClaudeCode]);
        assert_eq!(
            loaders(home, ".claude/rules/lang/rust.md"),
            [Agent::ClaudeCode]
        );
        assert_eq!(
            loaders(home, ".config/opencode/AGENTS.md"),
            [Agent::OpenCode]
        );
        // Codex skips an empty override for the AGENTS.md beside it.
        assert_eq!(loaders(home, ".codex/AGENTS.md"), [Agent::Codex]);
        assert!(loaders(home, ".codex/AGENTS.override.md").is_empty());
        write(&home.join(".codex/AGENTS.override.md"), "# Override\n");
        assert_eq!(loaders(home, ".codex/AGENTS.override.md"), [Agent::Codex]);
        assert!(loaders(home, ".codex/AGENTS.md").is_empty());
        assert_eq!(
            loaders(home, ".gemini/extensions/jira/GEMINI.md"),
            [Agent::Gemini]
        );
    }
}

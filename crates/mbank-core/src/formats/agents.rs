//! The agents whose session start `mbank context` shows, and which formats (and which of
//! their files) each one loads. A project may hold several agents' files (CLAUDE.md,
//! AGENTS.md, `.cursor/rules/`…); each agent reads only its own, so a session start is
//! always one agent's.
//!
//! | agent | loads |
//! |---|---|
//! | Claude Code | CLAUDE.md family (`.claude/rules/` too), its auto memory, ConKeeper (injected by its SessionStart hook) |
//! | Codex | AGENTS.md |
//! | Gemini CLI | GEMINI.md (sub-folders' too, and installed extensions' context files) |
//! | Cline | the Cline memory bank at `memory-bank/` (every markdown file), and `.clinerules` (file or folder) |
//! | Roo Code | the Memory Bank MCP / Roo bank, Roo rules and modes (`.roo/`, `.roorules*`, `.roomodes` as Roo sends it, `.roo/system-prompt-{mode}`, and the `.clinerules*` it falls back to) |
//! | Kilo Code | `.kilocode/` rules, mode rules, system prompt overrides and memory bank; Kilo Memory in its data folder |
//! | Cursor | Cursor rules (`.mdc` and `.md`), and a Cline-format bank kept for it in `.cursor/memory-bank/` |
//! | GitHub Copilot | Copilot instructions, a Cline-format bank kept for it in `.copilot-tracking/memory-bank/`, and the Cline bank in `memory-bank/` when its start-up instructions say to read all memory bank files |
//! | Windsurf | Windsurf rules |
//! | Kiro | Kiro steering |
//!
//! BEANS.md and Infinity belong to no agent here: they are read through their own tools.
use std::path::{Component, Path};

use serde::Serialize;

use crate::model::Format;

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
}

impl Agent {
    /// In the order sessions are shown.
    pub const ALL: [Agent; 10] = [
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
        }
    }

    /// The formats whose files this agent may load at session start; [`Agent::reads`]
    /// says which of their files.
    pub fn formats(self) -> &'static [Format] {
        match self {
            Agent::ClaudeCode => &[
                Format::ClaudeMd,
                Format::ClaudeAutoMemory,
                Format::ConKeeper,
            ],
            Agent::Codex => &[Format::AgentsMd],
            Agent::Gemini => &[Format::GeminiMd],
            Agent::Cline => &[Format::Cline, Format::RooRules],
            Agent::Roo => &[Format::MemoryBankMcp, Format::RooRules],
            Agent::Kilo => &[Format::KiloCode, Format::KiloMemory],
            Agent::Cursor => &[Format::CursorRules, Format::Cline],
            Agent::Copilot => &[Format::Copilot, Format::Cline],
            Agent::Windsurf => &[Format::Windsurf, Format::Cline],
            Agent::Kiro => &[Format::Kiro],
        }
    }

    /// Whether this agent reads a file of `format` at `rel`, its path relative to the
    /// project (a file outside the project, such as auto memory's, is given whole).
    /// Two formats are shared: a Cline-format bank is Cursor's in `.cursor/`, Copilot's
    /// in `.copilot-tracking/`, else Cline's; of the Cline/Roo rule files Cline reads
    /// only `.clinerules` (a file or a folder), Roo Code all of them.
    pub fn reads(self, format: Format, rel: &Path) -> bool {
        if !self.formats().contains(&format) {
            return false;
        }
        let first = match rel.components().next() {
            Some(Component::Normal(first)) => first.to_str(),
            _ => None,
        };
        match format {
            Format::Cline => {
                let owner = match first {
                    Some(".cursor") => Agent::Cursor,
                    Some(".copilot-tracking") => Agent::Copilot,
                    _ => Agent::Cline,
                };
                self == owner
            }
            Format::RooRules if self == Agent::Cline => first == Some(".clinerules"),
            _ => true,
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
            && Agent::Cline.reads(format, rel)
    }

    /// Whether this agent's instruction files may tell it to read a memory bank it does not
    /// own (see [`Agent::reads_when_directed`]).
    pub(crate) fn takes_memory_bank_directions(self) -> bool {
        matches!(self, Agent::Copilot | Agent::Windsurf | Agent::Cursor)
    }

    /// Whether some agent loads files of `format` (BEANS.md and Infinity: none).
    pub fn any_loads(format: Format) -> bool {
        Agent::ALL.iter().any(|a| a.formats().contains(&format))
    }
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
                .filter(|a| a.reads(format, Path::new(rel)))
                .map(Agent::id)
                .collect()
        };
        assert_eq!(owners(Format::ClaudeMd, "CLAUDE.md"), ["claude-code"]);
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
        assert_eq!(owners(Format::AgentsMd, "AGENTS.md"), ["codex"]);
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
        assert_eq!(owners(Format::RooRules, ".clinerules"), ["cline", "roo"]);
        assert_eq!(
            owners(Format::RooRules, ".clinerules/style.md"),
            ["cline", "roo"]
        );
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
        assert!(owners(Format::BeansMd, "BEANS.md").is_empty());
        assert!(owners(Format::Infinity, ".infinity/memories.json").is_empty());
    }

    #[test]
    fn copilot_windsurf_and_cursor_read_a_cline_bank_only_when_their_instructions_say_so() {
        let bank = Path::new("memory-bank/activeContext.md");
        for agent in [Agent::Copilot, Agent::Windsurf, Agent::Cursor] {
            assert!(agent.reads_when_directed(Format::Cline, bank), "{agent:?}");
            assert!(!agent.reads(Format::Cline, bank), "{agent:?}");
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
    fn only_beans_and_infinity_belong_to_no_agent() {
        let unowned: Vec<Format> = Format::ALL
            .into_iter()
            .filter(|f| !Agent::any_loads(*f))
            .collect();
        assert_eq!(unowned, [Format::BeansMd, Format::Infinity]);
    }
}

//! Zed's project rules: of this list, the first file that stands at the top of the
//! worktree is included in every Agent Panel interaction, whole ("Using Rules",
//! zed.dev/docs/ai/rules): `.rules`, `.cursorrules`, `.windsurfrules`, `.clinerules`,
//! `.github/copilot-instructions.md`, `AGENT.md`, `AGENTS.md`, `CLAUDE.md`, `GEMINI.md`.
//! `.rules` and `AGENT.md` are no other agent's here, so this format keeps them; the
//! others are their agents' formats, and `agents::Agent::reads` picks the first present
//! for Zed's session. Zed documents no size limit, so no budget applies.
use std::path::Path;

use super::{FormatRules, Placement, ProjectPaths, TopMarkers};
use crate::model::{Format, LoadKind, Role};

/// Zed's own rule file.
const RULES: &str = ".rules";
/// The singular AGENTS.md some tools write, which Zed reads in its turn.
const AGENT_MD: &str = "AGENT.md";

/// Zed's list, in its order: the first one present is its rules.
pub(crate) const FIRST_MATCH: [&str; 9] = [
    RULES,
    ".cursorrules",
    ".windsurfrules",
    ".clinerules",
    ".github/copilot-instructions.md",
    AGENT_MD,
    "AGENTS.md",
    "CLAUDE.md",
    "GEMINI.md",
];

const PATHS: ProjectPaths = ProjectPaths {
    files: &[RULES, AGENT_MD],
    folders: &[],
    lookalikes: &[],
};

pub(crate) struct ZedRules;

impl FormatRules for ZedRules {
    fn format(&self) -> Format {
        Format::ZedRules
    }

    fn place(&self, rel: &Path) -> Placement {
        let (role, layer, load) = if PATHS.files.iter().any(|f| rel == Path::new(f)) {
            (Role::Instructions, Some(1), LoadKind::Startup)
        } else {
            (Role::Other, None, LoadKind::Never)
        };
        Placement {
            role,
            layer,
            group: None,
            load,
        }
    }

    fn keeps(&self, rel: &Path) -> bool {
        PATHS.contains(rel)
    }

    fn project_paths(&self) -> ProjectPaths {
        PATHS
    }

    /// `AGENT.md` is not hidden, so the rule files' search (which looks at hidden names)
    /// does not see it: it marks a project by its name at the top.
    fn top_markers(&self) -> TopMarkers {
        TopMarkers {
            names: &[AGENT_MD],
            prefixes: &[],
        }
    }
}

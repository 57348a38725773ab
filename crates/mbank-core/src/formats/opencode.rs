//! opencode's rules ("Rules", opencode.ai/docs/rules): the project's AGENTS.md, or its
//! CLAUDE.md when there is no AGENTS.md (Claude Code compatibility), included whole, file
//! references not followed; before them the user's `~/.config/opencode/AGENTS.md`, or
//! `~/.claude/CLAUDE.md` when there is none. opencode keeps no files of its own in a
//! project: this format is how its session reads the other agents' files
//! (`agents::Agent::loads_as`). opencode also walks up from the working folder for
//! AGENTS.md files and reads the files its `instructions` setting names; mbank takes the
//! project folder as the working folder and reads neither the folders above nor that
//! setting. opencode documents no size limit, so no budget applies.
use std::path::{Path, PathBuf};

use super::{FormatRules, Placement};
use crate::model::{Format, LoadKind, Role};

/// The user's own rules, below the home folder.
const USER_RULES: &str = ".config/opencode/AGENTS.md";
/// Claude Code's user file, which opencode reads when the user has no rules of its own.
const CLAUDE_USER_FILE: &str = ".claude/CLAUDE.md";

/// The user-level file opencode loads first, when one exists.
pub(crate) fn user_file(home: &Path) -> Option<PathBuf> {
    [user_rules::file(home), home.join(CLAUDE_USER_FILE)]
        .into_iter()
        .find(|file| file.is_file())
}

/// opencode's own user rules, `~/.config/opencode/AGENTS.md`, loaded before every
/// project's rules ("Rules", opencode.ai/docs/rules: "Global"). They belong to the home
/// folder, not to a project.
pub mod user_rules {
    use std::path::{Path, PathBuf};

    /// What the store is called where a person reads it.
    pub(crate) const LABEL: &str = "opencode user rules";

    /// The id `[journal] leave_out` knows it by.
    pub const ID: &str = "opencode-user-rules";

    /// The user rules file for `home`, whether or not it exists.
    pub fn file(home: &Path) -> PathBuf {
        home.join(super::USER_RULES)
    }
}

pub(crate) struct OpenCode;

impl FormatRules for OpenCode {
    fn format(&self) -> Format {
        Format::OpenCode
    }

    fn place(&self, _rel: &Path) -> Placement {
        Placement {
            role: Role::Instructions,
            layer: Some(1),
            group: None,
            load: LoadKind::Startup,
        }
    }

    fn keeps(&self, _rel: &Path) -> bool {
        false
    }

    fn may_create(&self, _rel: &Path) -> bool {
        false
    }
}

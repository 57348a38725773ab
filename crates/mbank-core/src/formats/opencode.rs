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
    [USER_RULES, CLAUDE_USER_FILE]
        .into_iter()
        .map(|rel| home.join(rel))
        .find(|file| file.is_file())
}

pub struct OpenCode;

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

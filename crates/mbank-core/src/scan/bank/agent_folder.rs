//! What an instruction-file agent keeps in its own folder besides its main files: its
//! rules (`.claude/rules/`) and the memory its subagents keep (`.claude/agent-memory/`).
use std::path::Path;

use super::Lister;
use super::rule_scope::rule_is_conditional;
use crate::formats::instruction_files::{self, InstructionFiles};
use crate::model::{LoadKind, Role};

/// Lists the rules folder and the subagents' memory folders of the agent's folder
/// `dot_path`. Only markdown loads; a rule scoped to paths only on demand, and a
/// subagent's memory only when that subagent runs.
pub(super) fn list_rules_and_memory(
    lister: &mut Lister<'_>,
    dot_path: &Path,
    member: &InstructionFiles,
) {
    if let Some(rules) = lister.child_dir(dot_path, instruction_files::RULES_FOLDER) {
        let before = lister.files.len();
        lister.walk(&rules, 1);
        for file in &mut lister.files[before..] {
            let is_md = file.path.extension().is_some_and(|e| e == "md");
            if !is_md {
                file.role = Role::Other;
                file.load = LoadKind::Never;
            } else if file.load == LoadKind::Startup && rule_is_conditional(lister.listings, file) {
                file.load = LoadKind::OnDemand;
            }
        }
    }
    for folder in member.memory_folders {
        if let Some(memory) = lister.child_dir(dot_path, folder) {
            lister.walk(&memory, 1);
        }
    }
}

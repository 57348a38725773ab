//! Codex memories: the notes Codex keeps for itself when memories are turned on
//! (`[features] memories = true`), in `memories/` of Codex's home folder (`~/.codex`):
//! `memory_summary.md` (put into every session), `MEMORY.md`, `raw_memories.md` and
//! `rollout_summaries/`. They belong to the home folder, not to a project. Location:
//! <https://developers.openai.com/codex/memories> (Codex's home folder is `~/.codex`,
//! <https://developers.openai.com/codex/config-basic>). mbank only reads them.
use std::path::{Path, PathBuf};

/// What the store is called where a person reads it.
pub const LABEL: &str = "Codex memories";

/// The folder below the home folder.
const FOLDER: &str = ".codex/memories";

/// Sub-folders that hold memory files too.
pub const SUB_FOLDERS: [&str; 1] = ["rollout_summaries"];

/// Codex's memories folder for `home`, whether or not it exists.
pub fn memory_folder(home: &Path) -> PathBuf {
    home.join(FOLDER)
}

/// Whether a file in the folder is one of the memory files (markdown).
pub fn is_memory_file(name: &str) -> bool {
    name.ends_with(".md")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_folder_is_in_codex_home_below_the_home_folder() {
        assert_eq!(
            memory_folder(Path::new("/home/me")),
            Path::new("/home/me/.codex/memories")
        );
        assert!(is_memory_file("memory_summary.md"));
        assert!(!is_memory_file("memories_1.sqlite"));
    }
}

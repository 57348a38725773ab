//! Where Beans-Code's `save_memory` tool (and `/memory add`) keeps a fact: appended under
//! `## Auto-saved Memories` of the global `~/.beans/BEANS.md` or of the project's
//! `BEANS.md`, each file and section created when missing.
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::FILES;

/// The level-2 heading saved facts go under.
pub const SAVED_SECTION: &str = "Auto-saved Memories";

/// Whose memory a fact goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SavedScope {
    /// The user's own memory in the home folder, loaded in every project.
    Global,
    /// The project's memory.
    Project,
}

impl SavedScope {
    pub fn as_str(self) -> &'static str {
        match self {
            SavedScope::Global => "global",
            SavedScope::Project => "project",
        }
    }
}

/// The file a fact is saved to: `rel` (a clean relative path) below the folder `anchor`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedMemoryFile {
    pub anchor: PathBuf,
    pub rel: PathBuf,
}

impl SavedMemoryFile {
    pub fn path(&self) -> PathBuf {
        self.anchor.join(&self.rel)
    }
}

/// The global memory below the home folder: `.beans/BEANS.md`.
pub fn global_file(home: &Path) -> SavedMemoryFile {
    SavedMemoryFile {
        anchor: home.to_path_buf(),
        rel: Path::new(FILES.dot_dir).join(FILES.main),
    }
}

/// The project's memory: `BEANS.md` at its top, or `.beans/BEANS.md` when only that one
/// exists (Beans-Code's other place for it); a new one is made at the top.
pub fn project_file(project: &Path) -> SavedMemoryFile {
    let top = PathBuf::from(FILES.main);
    let in_dot_dir = Path::new(FILES.dot_dir).join(FILES.main);
    let exists = |rel: &Path| std::fs::symlink_metadata(project.join(rel)).is_ok();
    let rel = if !exists(&top) && exists(&in_dot_dir) {
        in_dot_dir
    } else {
        top
    };
    SavedMemoryFile {
        anchor: project.to_path_buf(),
        rel,
    }
}

/// The file `scope` saves to, for `project` and the home folder `home`.
pub fn file_for(scope: SavedScope, project: &Path, home: &Path) -> SavedMemoryFile {
    match scope {
        SavedScope::Global => global_file(home),
        SavedScope::Project => project_file(project),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn global_goes_to_the_home_folders_beans_md_and_project_to_its_top() {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        assert_eq!(
            file_for(SavedScope::Global, project.path(), home.path()).path(),
            home.path().join(".beans/BEANS.md")
        );
        assert_eq!(
            file_for(SavedScope::Project, project.path(), home.path()).path(),
            project.path().join("BEANS.md")
        );
        std::fs::create_dir(project.path().join(".beans")).unwrap();
        std::fs::write(project.path().join(".beans/BEANS.md"), "# P\n").unwrap();
        assert_eq!(
            project_file(project.path()).rel,
            Path::new(".beans/BEANS.md")
        );
        std::fs::write(project.path().join("BEANS.md"), "# P\n").unwrap();
        assert_eq!(project_file(project.path()).rel, Path::new("BEANS.md"));
    }
}

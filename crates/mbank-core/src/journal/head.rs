//! Where each project's git HEAD points, read from `.git` directly (no git process: the
//! journal looks at it on every batch of changes), and kept between runs so a checkout
//! made while nothing watched is still recognised.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::history::files;

/// The file in the data folder's `journal/` that keeps the HEADs.
const HEADS: &str = "heads.json";
/// A ref or HEAD file is a line; packed-refs can be long.
const SMALL: u64 = 4096;
const PACKED_LIMIT: u64 = 8 * 1024 * 1024;

/// The commit `project`'s HEAD names (`None`: no repository at the project's top, or no
/// commit yet).
pub(super) fn read(project: &Path) -> Option<String> {
    let git = project.join(".git");
    if !std::fs::symlink_metadata(&git).ok()?.is_dir() {
        return None;
    }
    let head = small_text(&git.join("HEAD"), SMALL)?;
    let head = head.trim();
    let Some(name) = head.strip_prefix("ref:").map(str::trim) else {
        return Some(head.to_string());
    };
    if name.split('/').any(|part| part == ".." || part.is_empty()) {
        return None;
    }
    if let Some(id) = small_text(&git.join(name), SMALL) {
        return Some(id.trim().to_string());
    }
    let packed = small_text(&git.join("packed-refs"), PACKED_LIMIT)?;
    packed.lines().find_map(|line| {
        let (id, refname) = line.split_once(' ')?;
        (refname.trim() == name).then(|| id.to_string())
    })
}

fn small_text(path: &Path, limit: u64) -> Option<String> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_file() || meta.len() > limit {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

/// The HEAD last seen of each project, kept in the data folder.
pub(super) struct Heads {
    data_dir: PathBuf,
    seen: BTreeMap<PathBuf, Option<String>>,
    changed: bool,
}

impl Heads {
    pub(super) fn load(data_dir: &Path) -> Heads {
        let seen = files::folder(data_dir, &[super::lock::FOLDER], false)
            .ok()
            .flatten()
            .and_then(|dir| files::read(&dir, HEADS, PACKED_LIMIT).ok().flatten())
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default();
        Heads {
            data_dir: data_dir.to_path_buf(),
            seen,
            changed: false,
        }
    }

    /// Whether `project`'s HEAD moved from the one last seen to `now` (a project seen
    /// for the first time has not moved); `now` is kept.
    pub(super) fn moved(&mut self, project: &Path, now: Option<String>) -> bool {
        match self.seen.get(project) {
            Some(before) if *before == now => false,
            Some(_) => {
                self.seen.insert(project.to_path_buf(), now);
                self.changed = true;
                true
            }
            None => {
                self.seen.insert(project.to_path_buf(), now);
                self.changed = true;
                false
            }
        }
    }

    /// Writes the HEADs when one changed (a failure only costs recognising a checkout
    /// made while nothing watched).
    pub(super) fn save(&mut self) {
        if !self.changed {
            return;
        }
        if let Ok(Some(dir)) = files::folder(&self.data_dir, &[super::lock::FOLDER], true)
            && let Ok(bytes) = serde_json::to_vec(&self.seen)
            && files::write_atomic(&dir, HEADS, &bytes, false).is_ok()
        {
            self.changed = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_is_read_from_a_loose_ref_a_packed_ref_or_a_detached_id() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path();
        assert_eq!(read(project), None);
        let git = project.join(".git");
        std::fs::create_dir_all(git.join("refs/heads")).unwrap();
        std::fs::write(git.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        assert_eq!(read(project), None);
        std::fs::write(
            git.join("packed-refs"),
            "# pack-refs\naaa refs/heads/main\n",
        )
        .unwrap();
        assert_eq!(read(project).as_deref(), Some("aaa"));
        std::fs::write(git.join("refs/heads/main"), "bbb\n").unwrap();
        assert_eq!(read(project).as_deref(), Some("bbb"));
        std::fs::write(git.join("HEAD"), "ccc\n").unwrap();
        assert_eq!(read(project).as_deref(), Some("ccc"));
    }

    #[test]
    fn a_move_is_seen_once_and_remembered_across_runs() {
        let dir = tempfile::tempdir().unwrap();
        let project = Path::new("/p");
        let mut heads = Heads::load(dir.path());
        assert!(!heads.moved(project, Some("a".into())));
        assert!(!heads.moved(project, Some("a".into())));
        heads.save();
        let mut again = Heads::load(dir.path());
        assert!(again.moved(project, Some("b".into())));
        assert!(!again.moved(project, Some("b".into())));
    }
}

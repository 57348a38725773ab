//! What a person marked reviewed (`mbank changes --mark-reviewed`): for each file, the
//! SHA-256 of the text it held then (or that it was gone), and when the last mark was
//! made. Kept in the data folder's `journal/reviewed.json`.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{CoreError, Result};
use crate::history::files;

const REVIEWED: &str = "reviewed.json";
const LIMIT: u64 = 64 * 1024 * 1024;

/// A file as it was marked: its text's SHA-256, or gone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mark {
    Text(String),
    Gone,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reviewed {
    /// When the last mark was made (RFC 3339).
    pub marked_at: Option<String>,
    pub files: BTreeMap<PathBuf, Mark>,
}

impl Reviewed {
    /// The marks kept in `data_dir` (none yet: empty; unreadable: an error, so a broken
    /// file never passes for "nothing reviewed").
    pub fn load(data_dir: &Path) -> Result<Reviewed> {
        let Some(dir) = files::folder(data_dir, &[super::lock::FOLDER], false)? else {
            return Ok(Reviewed::default());
        };
        let Some(bytes) = files::read(&dir, REVIEWED, LIMIT)? else {
            return Ok(Reviewed::default());
        };
        serde_json::from_slice(&bytes).map_err(|e| CoreError::Parse {
            path: dir.path().join(REVIEWED),
            message: e.to_string(),
        })
    }

    /// When no mark was ever made, the state at `now` (the end of the journal's first
    /// catch-up) becomes the reviewed one: what changes later is what a person is shown.
    pub(crate) fn start_if_new(data_dir: &Path, now: chrono::DateTime<chrono::Utc>) -> Result<()> {
        let exists = files::folder(data_dir, &[super::lock::FOLDER], false)?
            .map(|dir| dir.entry_meta(std::ffi::OsStr::new(REVIEWED)))
            .transpose()?
            .flatten()
            .is_some();
        if exists {
            return Ok(());
        }
        Reviewed {
            marked_at: Some(stamp(now)),
            files: BTreeMap::new(),
        }
        .save(data_dir)
    }

    pub fn save(&self, data_dir: &Path) -> Result<()> {
        let Some(dir) = files::folder(data_dir, &[super::lock::FOLDER], true)? else {
            return Ok(());
        };
        let bytes = serde_json::to_vec_pretty(self).map_err(|e| CoreError::Parse {
            path: dir.path().join(REVIEWED),
            message: e.to_string(),
        })?;
        files::write_atomic(&dir, REVIEWED, &bytes, true)
    }
}

/// How marks are dated: to the millisecond, as versions are.
pub(super) fn stamp(at: chrono::DateTime<chrono::Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_survive_a_save_and_a_broken_file_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Reviewed::load(dir.path()).unwrap(), Reviewed::default());
        let mut marks = Reviewed {
            marked_at: Some("2026-01-01T00:00:00Z".into()),
            ..Reviewed::default()
        };
        marks
            .files
            .insert(PathBuf::from("/p/a.md"), Mark::Text("h".into()));
        marks.files.insert(PathBuf::from("/p/b.md"), Mark::Gone);
        marks.save(dir.path()).unwrap();
        assert_eq!(Reviewed::load(dir.path()).unwrap(), marks);
        std::fs::write(dir.path().join("journal").join(REVIEWED), "{").unwrap();
        assert!(Reviewed::load(dir.path()).is_err());
    }
}

//! Which projects outside git have a review snapshot, recorded apart from the snapshots
//! themselves (`<data dir>/reviewed/<hash>`, beside `<data dir>/snapshots/<hash>/`).
//! Without it a snapshot folder that disappears would look like a project never
//! reviewed — every file new, nothing worse than a warning — and `review --fail-on
//! error` would pass; with it the loss is an error until the bank is marked reviewed
//! again.
//!
//! Recording is best effort: a record that cannot be written costs only this check, and
//! every review of a project whose snapshot exists writes it again when it is missing.
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{CoreError, Result};

/// The folder of the records, a sibling of `snapshots/`.
const LEDGER: &str = "reviewed";

/// Where the record of the project whose snapshot folder is `snapshot_folder` lives.
fn record_path(snapshot_folder: &Path) -> Option<PathBuf> {
    let name = snapshot_folder.file_name()?;
    let data = snapshot_folder.parent()?.parent()?;
    Some(data.join(LEDGER).join(name))
}

/// Whether a snapshot was ever recorded for this snapshot folder (any entry at the
/// record's place counts: what is there is not read).
pub(super) fn was_recorded(snapshot_folder: &Path) -> bool {
    record_path(snapshot_folder).is_some_and(|path| fs::symlink_metadata(path).is_ok())
}

/// Records that the project at `project` has a snapshot in `snapshot_folder`; nothing
/// is written when the record is there already.
pub(super) fn record(snapshot_folder: &Path, project: &Path) -> Result<()> {
    let Some(path) = record_path(snapshot_folder) else {
        return Ok(());
    };
    if fs::symlink_metadata(&path).is_ok() {
        return Ok(());
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir).map_err(|e| CoreError::io(dir, e))?;
    // Owner-only temp file renamed into place: a record is whole or absent.
    let mut temp = tempfile::Builder::new()
        .prefix(".mbank-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(|e| CoreError::io(dir, e))?;
    // The project path, for a person looking at the folder.
    writeln!(temp, "{}", project.display()).map_err(|e| CoreError::io(&path, e))?;
    temp.persist(&path)
        .map_err(|e| CoreError::io(&path, e.error))?;
    Ok(())
}

/// The error of a project whose snapshot folder is gone though one was recorded.
pub(super) fn lost(snapshot_folder: &Path) -> CoreError {
    CoreError::SnapshotLost {
        path: snapshot_folder.to_path_buf(),
        message: "the snapshot folder is gone, though this project was marked reviewed; every memory file would count as new. Check the changes, then mark the bank reviewed again (`mbank review --mark-reviewed`)".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_sits_beside_the_snapshots_and_survives_their_folder() {
        let data = tempfile::tempdir().unwrap();
        let folder = data.path().join("snapshots").join("00ff");
        fs::create_dir_all(&folder).unwrap();
        assert!(!was_recorded(&folder));
        record(&folder, Path::new("/banks/shop")).unwrap();
        assert!(was_recorded(&folder));
        let text = fs::read_to_string(data.path().join("reviewed/00ff")).unwrap();
        assert_eq!(text, "/banks/shop\n");
        fs::remove_dir_all(data.path().join("snapshots")).unwrap();
        assert!(was_recorded(&folder), "the record outlives the snapshots");
        // Recording again changes nothing.
        record(&folder, Path::new("/elsewhere")).unwrap();
        let again = fs::read_to_string(data.path().join("reviewed/00ff")).unwrap();
        assert_eq!(again, text);
    }
}

//! The log of agent writes mbank refused, so `mbank review` and the TUI can show what an
//! agent tried and why it was stopped.
//!
//! One JSON object a line in `<data dir>/refusals/<hash of the project path>.jsonl`, outside
//! the bank (nothing of mbank's lands among the memory files). Each record is appended with
//! one `write` on a file opened for appending, so concurrent servers never interleave
//! halves of lines. Past `ROTATE_BYTES` the log moves to `….1.jsonl` (the previous one
//! is dropped), so it stays bounded. Records never hold the refused content: a refused
//! secret is named by line and kind only.
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{CoreError, Result};
use crate::io::dir_handle::Dir;
use crate::io::paths;

/// The log's folder in mbank's data folder.
const LOG_FOLDER: &str = "refusals";

/// Size at which the log is rotated.
pub(crate) const ROTATE_BYTES: u64 = 1024 * 1024;

/// One refused write.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefusalRecord {
    /// RFC 3339, UTC.
    pub at: String,
    /// The project folder.
    pub project: PathBuf,
    /// The file as the agent named it.
    pub file: String,
    /// `append-only`, `secret`, `elision`, `version`, `path`, `format` …
    pub rule: String,
    pub message: String,
    /// Which server and tool: `mcp:memory_bank_update`, `http:POST /memory-bank/file`.
    pub via: String,
    /// The agent's client as it named itself (`claude-code 2.1`), when the server knew.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<String>,
}

impl RefusalRecord {
    /// A refusal of a write by `via` (no client named), stamped by `clock`.
    pub fn at(
        clock: &crate::clock::Clock,
        project: &Path,
        file: &str,
        rule: &str,
        message: &str,
        via: &str,
    ) -> Self {
        RefusalRecord {
            at: clock
                .utc()
                .to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            project: project.to_path_buf(),
            file: file.to_string(),
            rule: rule.to_string(),
            message: message.to_string(),
            via: via.to_string(),
            client: None,
        }
    }
}

fn log_name(project: &Path) -> String {
    let real = fs::canonicalize(project).unwrap_or_else(|_| project.to_path_buf());
    let digest = Sha256::digest(real.to_string_lossy().as_bytes());
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// The log of `project` under `data_dir` (`None`: no data folder known).
pub fn log_path_in(data_dir: &Path, project: &Path) -> PathBuf {
    data_dir
        .join(LOG_FOLDER)
        .join(format!("{}.jsonl", log_name(project)))
}

/// The log of `project` in mbank's data folder.
pub fn log_path(project: &Path) -> Option<PathBuf> {
    paths::data_dir().map(|d| log_path_in(&d, project))
}

fn rotated(path: &Path) -> PathBuf {
    path.with_extension("1.jsonl")
}

/// Appends one record to the project's log in mbank's data folder.
pub fn append(record: &RefusalRecord) -> Result<()> {
    let Some(data_dir) = paths::data_dir() else {
        return Err(CoreError::Config(
            "no data folder for the refusal log (set MBANK_DATA_DIR)".into(),
        ));
    };
    append_in(&data_dir, record)
}

/// The log folder under `data_dir`, opened without following a link planted in its
/// place (created when `create`; `None` when absent and not created).
fn log_folder(data_dir: &Path, create: bool) -> Result<Option<Dir>> {
    if create {
        fs::create_dir_all(data_dir).map_err(|e| CoreError::io(data_dir, e))?;
    }
    let data = match Dir::open_anchor(data_dir) {
        Ok(data) => data,
        Err(e) if !create && e.is_not_found() => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let folder = if create {
        data.create_dir(LOG_FOLDER, 0o700)
    } else {
        data.open_dir(Path::new(LOG_FOLDER))
    };
    match folder {
        Ok(folder) => Ok(Some(folder)),
        Err(e) if !create && e.is_not_found() => Ok(None),
        Err(e) => Err(e.into()),
    }
}

fn file_name(path: &Path) -> &str {
    path.file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
}

/// [`append`] under an explicit data folder. The log's folder and file are opened
/// relative to the data folder with no link followed: a symlink planted in place of
/// either is refused, never appended through.
pub fn append_in(data_dir: &Path, record: &RefusalRecord) -> Result<()> {
    let path = log_path_in(data_dir, &record.project);
    let (name, rotated_path) = (file_name(&path), rotated(&path));
    let Some(folder) = log_folder(data_dir, true)? else {
        return Err(CoreError::io(
            &path,
            io::Error::new(io::ErrorKind::NotFound, "the log folder vanished"),
        ));
    };
    if folder
        .file_meta(Path::new(name))
        .ok()
        .flatten()
        .is_some_and(|m| m.len() >= ROTATE_BYTES)
    {
        // Two servers may both rotate: the second rename finds nothing or a fresh log.
        let _ = folder.rename(name, file_name(&rotated_path));
    }
    let mut line = serde_json::to_string(record).map_err(|e| CoreError::Parse {
        path: path.clone(),
        message: e.to_string(),
    })?;
    line.push('\n');
    let (mut file, len) = folder.open_append(name, 0o600)?;
    crate::io::lines::append_line(&mut file, len, line.as_bytes())
        .map(|_| ())
        .map_err(|e| CoreError::io(&path, e))
}

/// Every refusal logged for `project` (oldest first), from mbank's data folder.
pub fn read(project: &Path) -> Result<Vec<RefusalRecord>> {
    match paths::data_dir() {
        Some(data_dir) => read_in(&data_dir, project),
        None => Ok(Vec::new()),
    }
}

/// [`read`] under an explicit data folder. Lines that do not parse (a torn tail after a
/// crash, a newer schema) are skipped.
pub fn read_in(data_dir: &Path, project: &Path) -> Result<Vec<RefusalRecord>> {
    let path = log_path_in(data_dir, project);
    let mut out = Vec::new();
    let Some(folder) = log_folder(data_dir, false)? else {
        return Ok(out);
    };
    for file in [rotated(&path), path] {
        let text = match folder.open_file(Path::new(file_name(&file))) {
            Ok((f, _)) => {
                let mut text = String::new();
                // Twice the rotation size bounds a log another process keeps growing.
                f.take(2 * ROTATE_BYTES)
                    .read_to_string(&mut text)
                    .map_err(|e| CoreError::io(&file, e))?;
                text
            }
            Err(e) if e.is_not_found() => continue,
            Err(e) => return Err(e.into()),
        };
        out.extend(
            text.lines()
                .filter_map(|l| serde_json::from_str::<RefusalRecord>(l).ok())
                .filter(|r| r.project == project || same_folder(&r.project, project)),
        );
    }
    Ok(out)
}

fn same_folder(a: &Path, b: &Path) -> bool {
    match (fs::canonicalize(a), fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::OpenOptions;
    use std::io::Write as _;

    #[test]
    fn records_round_trip_per_project_and_rotate() {
        let data = tempfile::tempdir().unwrap();
        let projects = tempfile::tempdir().unwrap();
        let a = projects.path().join("a");
        let b = projects.path().join("b");
        fs::create_dir_all(&a).unwrap();
        fs::create_dir_all(&b).unwrap();
        let first = RefusalRecord::at(
            &crate::clock::Clock::system(),
            &a,
            "decisionLog.md",
            "append-only",
            "dropped X",
            "mcp:t",
        );
        append_in(data.path(), &first).unwrap();
        append_in(
            data.path(),
            &RefusalRecord::at(
                &crate::clock::Clock::system(),
                &b,
                "x.md",
                "secret",
                "line 2",
                "http:POST",
            ),
        )
        .unwrap();
        assert_eq!(read_in(data.path(), &a).unwrap(), vec![first.clone()]);
        assert_eq!(read_in(data.path(), &b).unwrap().len(), 1);

        // A torn line is skipped, the rest still reads.
        let path = log_path_in(data.path(), &a);
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"at\":\"2026").unwrap();
        drop(f);
        assert_eq!(read_in(data.path(), &a).unwrap().len(), 1);
        // The refusal logged after it is read too, not glued to the torn line.
        append_in(data.path(), &first).unwrap();
        assert_eq!(read_in(data.path(), &a).unwrap().len(), 2);

        // Past the size bound the log rotates, and both halves are read.
        let big = "m".repeat(ROTATE_BYTES as usize);
        fs::write(
            &path,
            format!("{}\n", serde_json::to_string(&first).unwrap()),
        )
        .unwrap();
        let mut padded = first.clone();
        padded.message = big;
        append_in(data.path(), &padded).unwrap();
        append_in(data.path(), &first).unwrap();
        assert!(rotated(&path).exists());
        assert_eq!(read_in(data.path(), &a).unwrap().len(), 3);
    }

    #[cfg(unix)]
    #[test]
    fn a_log_folder_or_file_replaced_by_a_link_is_not_followed() {
        use std::os::unix::fs::symlink;
        let data = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let project = outside.path().join("p");
        fs::create_dir_all(&project).unwrap();
        let record = RefusalRecord::at(
            &crate::clock::Clock::system(),
            &project,
            "x.md",
            "path",
            "refused",
            "mcp:t",
        );
        // The log file itself a link to a file elsewhere.
        let path = log_path_in(data.path(), &project);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let victim = outside.path().join("victim.txt");
        fs::write(&victim, "theirs").unwrap();
        symlink(&victim, &path).unwrap();
        assert!(append_in(data.path(), &record).is_err());
        assert!(read_in(data.path(), &project).is_err());
        assert_eq!(fs::read_to_string(&victim).unwrap(), "theirs");
        // The log folder a link to a folder elsewhere.
        fs::remove_dir_all(data.path().join(LOG_FOLDER)).unwrap();
        let elsewhere = outside.path().join("logs");
        fs::create_dir_all(&elsewhere).unwrap();
        symlink(&elsewhere, data.path().join(LOG_FOLDER)).unwrap();
        let err = append_in(data.path(), &record).unwrap_err();
        assert!(err.to_string().contains("symbolic link"), "{err}");
        assert!(
            !err.to_string().contains(elsewhere.to_str().unwrap()),
            "{err}"
        );
        assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);
    }
}

//! The log of agent writes mbank refused, so `mbank review` and the TUI can show what an
//! agent tried and why it was stopped.
//!
//! One JSON object a line in `<data dir>/refusals/<hash of the project path>.jsonl`, outside
//! the bank (nothing of mbank's lands among the memory files). Each record is appended with
//! one `write` on a file opened for appending, so concurrent servers never interleave
//! halves of lines. Past [`ROTATE_BYTES`] the log moves to `….1.jsonl` (the previous one
//! is dropped), so it stays bounded. Records never hold the refused content: a refused
//! secret is named by line and kind only.
use std::fs::{self, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::error::{CoreError, Result};
use super::paths;

/// Size at which the log is rotated.
pub const ROTATE_BYTES: u64 = 1024 * 1024;

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
}

impl RefusalRecord {
    pub fn now(project: &Path, file: &str, rule: &str, message: &str, via: &str) -> Self {
        RefusalRecord {
            at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            project: project.to_path_buf(),
            file: file.to_string(),
            rule: rule.to_string(),
            message: message.to_string(),
            via: via.to_string(),
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
        .join("refusals")
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

/// [`append`] under an explicit data folder.
pub fn append_in(data_dir: &Path, record: &RefusalRecord) -> Result<()> {
    let path = log_path_in(data_dir, &record.project);
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(|e| CoreError::io(dir, e))?;
    }
    if fs::metadata(&path).is_ok_and(|m| m.len() >= ROTATE_BYTES) {
        // Two servers may both rotate: the second rename finds nothing or a fresh log.
        let _ = fs::rename(&path, rotated(&path));
    }
    let mut line = serde_json::to_string(record).map_err(|e| CoreError::Parse {
        path: path.clone(),
        message: e.to_string(),
    })?;
    line.push('\n');
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|e| CoreError::io(&path, e))?;
    file.write_all(line.as_bytes())
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
    for file in [rotated(&path), path] {
        let text = match fs::File::open(&file) {
            Ok(f) => {
                let mut text = String::new();
                // Twice the rotation size bounds a log another process keeps growing.
                f.take(2 * ROTATE_BYTES)
                    .read_to_string(&mut text)
                    .map_err(|e| CoreError::io(&file, e))?;
                text
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(CoreError::io(&file, e)),
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

    #[test]
    fn records_round_trip_per_project_and_rotate() {
        let data = tempfile::tempdir().unwrap();
        let projects = tempfile::tempdir().unwrap();
        let a = projects.path().join("a");
        let b = projects.path().join("b");
        fs::create_dir_all(&a).unwrap();
        fs::create_dir_all(&b).unwrap();
        let first = RefusalRecord::now(&a, "decisionLog.md", "append-only", "dropped X", "mcp:t");
        append_in(data.path(), &first).unwrap();
        append_in(
            data.path(),
            &RefusalRecord::now(&b, "x.md", "secret", "line 2", "http:POST"),
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
}

//! Typed errors of the core. Every variant names the path it is about, so a message
//! shown in the CLI or the TUI tells the user where to look.
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum CoreError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} is not valid UTF-8 (first bad byte at offset {offset})")]
    InvalidUtf8 { path: PathBuf, offset: usize },
    #[error("{path} looks binary (it contains NUL bytes), not a text memory file")]
    Binary { path: PathBuf },
    #[error("{path} is {size} bytes, over the {limit}-byte limit mbank reads")]
    TooLarge {
        path: PathBuf,
        size: u64,
        limit: u64,
    },
    #[error("{path}: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("refused to write {name:?}: {reason}")]
    Confined { name: String, reason: String },
    /// A memory path whose real location is not inside its project (`confine`).
    #[error("{path}: {reason}")]
    NotConfined { path: PathBuf, reason: String },
    #[error(
        "{path} changed on disk since it was read; nothing was written (reload or merge first)"
    )]
    Conflict { path: PathBuf },
    /// A write the guard rules refuse (a secret, an elision placeholder, a decision log
    /// losing entries): the rule's id (`secret`, `elision`, `append-only`), and the
    /// refusal's message, which names the file and says what to do instead.
    #[error("{message}")]
    Refused {
        path: PathBuf,
        rule: &'static str,
        message: String,
    },
    #[error("{0}")]
    Config(String),
    #[error("{0}")]
    Root(String),
    #[error("git: {0}")]
    Git(String),
    /// A repository git will not work in ("detected dubious ownership", a broken config):
    /// its checks cannot run, which is an error, not "no repository".
    #[error("git refused the repository at {path}: {reason}")]
    GitRefused { path: PathBuf, reason: String },
    /// mbank's own review snapshot store is broken (lost, unreadable or tampered with).
    #[error("review snapshot {path}: {message}")]
    Snapshot { path: PathBuf, message: String },
    /// A project's review snapshot folder is gone though one was taken: reviewing
    /// against nothing would pass every change off as new.
    #[error("review snapshot {path}: {message}")]
    SnapshotLost { path: PathBuf, message: String },
}

impl CoreError {
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        CoreError::Io {
            path: path.into(),
            source,
        }
    }
}

pub type Result<T, E = CoreError> = std::result::Result<T, E>;

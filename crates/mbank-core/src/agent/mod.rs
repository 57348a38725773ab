//! What agents may do to memory through mbank's servers, as plain blocking functions:
//! reads that return a content version, writes that pass the guard rules and take the
//! folder lock, and the dated entries of the Memory Bank MCP tools. The servers in
//! `mbank-serve` only translate arguments and errors; every rule lives here.
//!
//! - [`projects`]: which project folder a `projectPath` / `path` / `?project=` names.
//! - [`bank`]: a project's `memory-bank/` (Cline or Memory Bank MCP names).
//! - [`entries`]: the text of decisions, progress lines and active-context sections.
//! - [`infinity`]: the `.infinity/` store of the Infinity store spec.
pub mod bank;
pub mod batch;
pub mod entries;
pub mod infinity;
mod infinity_error;
pub mod projects;
pub mod proposals;
pub mod saved_memory;

use std::path::PathBuf;

use crate::error::CoreError;
use crate::guard::Refusal;

/// What a successful write did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteReport {
    pub path: PathBuf,
    /// The name relative to the bank folder.
    pub name: String,
    pub created: bool,
    /// The new content's version (for a staged write: the file's version, unchanged).
    pub version: String,
    /// The proposal the write was staged as, when the bank stages writes: nothing was
    /// written to the file.
    pub proposal: Option<u64>,
}

/// Why an agent operation did not happen. `code()` is the Memory Bank MCP spec's error code the
/// servers answer with.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("{0}")]
    InvalidRequest(String),
    #[error("no project {name:?} under the root {root}; list_projects shows the projects there")]
    ProjectNotFound { name: String, root: PathBuf },
    #[error(
        "{project} has no {dir}/ folder yet; call initialize_memory_bank first",
        dir = crate::formats::cline::BANK_DIR
    )]
    NotInitialized { project: PathBuf },
    #[error("{name} does not exist in the memory bank")]
    FileNotFound { name: String },
    #[error("{name} already exists; use the update tool to change it")]
    FileExists { name: String },
    /// The name leaves the bank (`..`, absolute, a symlink out) or the root.
    #[error("refused {name:?}: {reason}")]
    Forbidden { name: String, reason: String },
    /// Not a markdown file where only markdown is allowed (the Cline memory bank spec).
    #[error("refused {name:?}: only .md files may be read or written in a memory bank")]
    InvalidFormat { name: String },
    #[error("{0}")]
    Refused(Refusal),
    /// Another writer changed the file between the check and the rename.
    #[error(
        "{name} changed on disk while this write was in progress; nothing was written, read it again and retry"
    )]
    Conflict { name: String },
    #[error("this server is read-only (--read-only): nothing may be written")]
    ReadOnly,
    /// A staged write past the proposal store's bounds: nothing was staged.
    #[error("{0}")]
    ProposalLimit(String),
    #[error("mode {mode:?} not found; available modes: {available}")]
    ModeNotFound { mode: String, available: String },
    #[error(transparent)]
    Core(CoreError),
    /// A write shared with other appends failed (the message of the underlying error).
    #[error("the write failed: {0}")]
    Storage(String),
}

impl AgentError {
    /// The machine-readable code (the Memory Bank MCP spec's table, plus the guard's own).
    pub fn code(&self) -> &'static str {
        match self {
            AgentError::InvalidRequest(_) => "invalid_request",
            AgentError::ProjectNotFound { .. } => "project_not_found",
            AgentError::NotInitialized { .. } => "not_initialized",
            AgentError::FileNotFound { .. } => "file_not_found",
            AgentError::FileExists { .. } => "file_exists",
            AgentError::Forbidden { .. } => "forbidden_path",
            AgentError::InvalidFormat { .. } => "invalid_format",
            AgentError::Refused(refusal) => match refusal {
                Refusal::AppendOnly { .. } => "append_only_violation",
                Refusal::Secret { .. } => "secret_detected",
                Refusal::Elision { .. } => "elision_detected",
                Refusal::Shrinkage { .. } => "shrinkage_detected",
                Refusal::Version { .. } => "version_conflict",
                Refusal::MissingVersion { .. } => "version_required",
                Refusal::TooLarge { .. } => "file_too_large",
            },
            AgentError::Conflict { .. } => "version_conflict",
            AgentError::ReadOnly => "read_only",
            AgentError::ProposalLimit(_) => "proposal_limit",
            AgentError::ModeNotFound { .. } => "mode_not_found",
            AgentError::Core(_) | AgentError::Storage(_) => "server_error",
        }
    }

    /// The rule a refused write broke, for the refusal log (`None`: not a refusal).
    pub fn refusal_rule(&self) -> Option<&'static str> {
        match self {
            AgentError::Refused(refusal) => Some(refusal.rule()),
            AgentError::Forbidden { .. } => Some("path"),
            AgentError::InvalidFormat { .. } => Some("format"),
            AgentError::Conflict { .. } => Some("version"),
            _ => None,
        }
    }
}

impl From<Refusal> for AgentError {
    fn from(refusal: Refusal) -> Self {
        AgentError::Refused(refusal)
    }
}

pub type AgentResult<T> = std::result::Result<T, AgentError>;

/// RFC 3339 time of a file's modification, as the tools report `lastModified`.
pub fn rfc3339(time: Option<std::time::SystemTime>) -> Option<String> {
    time.map(|t| {
        chrono::DateTime::<chrono::Utc>::from(t)
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
    })
}

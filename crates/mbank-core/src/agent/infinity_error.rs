//! The errors of the Infinity store's operations, below both the store and the proposals
//! that stage its changes.
use crate::formats::infinity::store::{MEMORY_TYPES, StoreTooLarge};
use crate::guard::Refusal;

/// The errors of the Infinity store spec (plus the guard's refusals), by their `error` code.
#[derive(Debug, thiserror::Error)]
pub enum InfinityError {
    #[error("cannot create the {dir} folder: {0}", dir = crate::formats::infinity::DIR)]
    CannotCreateProjectDir(String),
    #[error("call activate_project first: it scopes every other tool to this project")]
    ProjectNotActivated,
    #[error("type {0:?} is not one of {types}", types = MEMORY_TYPES.join(", "))]
    InvalidMemoryType(String),
    #[error("missing required field {0:?}")]
    MissingRequiredField(&'static str),
    #[error("no memory with id {0:?} in this project")]
    MemoryNotFound(String),
    #[error("storage error: {0}")]
    Storage(String),
    /// The change would make the store bigger than mbank reads back; nothing was written.
    #[error("storage error: {0}; nothing was written")]
    TooLarge(StoreTooLarge),
    #[error("malformed input: {0}")]
    InvalidJson(String),
    #[error("{0}")]
    Refused(Refusal),
    #[error("this server is read-only (--read-only): nothing may be written")]
    ReadOnly,
}

impl InfinityError {
    /// The machine-readable `error` value.
    pub fn code(&self) -> &'static str {
        match self {
            InfinityError::CannotCreateProjectDir(_) => "cannot_create_project_dir",
            InfinityError::ProjectNotActivated => "project_not_activated",
            InfinityError::InvalidMemoryType(_) => "invalid_memory_type",
            InfinityError::MissingRequiredField(_) => "missing_required_field",
            InfinityError::MemoryNotFound(_) => "memory_not_found",
            InfinityError::Storage(_) | InfinityError::TooLarge(_) => "storage_error",
            InfinityError::InvalidJson(_) => "invalid_json",
            InfinityError::Refused(r) => match r {
                Refusal::Secret { .. } => "secret_detected",
                Refusal::Elision { .. } => "elision_detected",
                Refusal::Shrinkage { .. } => "shrinkage_detected",
                Refusal::Version { .. } => "version_conflict",
                Refusal::MissingVersion { .. } => "version_required",
                // As the store's own size limit answers.
                Refusal::TooLarge { .. } => "storage_error",
                Refusal::AppendOnly { .. } => "append_only_violation",
            },
            InfinityError::ReadOnly => "read_only",
        }
    }
}

impl From<StoreTooLarge> for InfinityError {
    fn from(too_large: StoreTooLarge) -> Self {
        InfinityError::TooLarge(too_large)
    }
}

impl From<Refusal> for InfinityError {
    fn from(refusal: Refusal) -> Self {
        InfinityError::Refused(refusal)
    }
}

//! Files on disk, read and written defensively: folder handles (nothing reopened by
//! name), confinement to a project, per-folder locks, capped text reads, where mbank keeps
//! its own files and the backups of conflicts, and what a piece of work read (`reads`).
pub mod backup;
pub mod bytes;
pub mod confine;
pub mod dir_handle;
pub(crate) mod hash_index;
pub(crate) mod lines;
pub mod lock;
pub mod paths;
pub mod reads;
pub mod text;

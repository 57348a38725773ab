//! The UI-free core. Nothing here imports ratatui or crossterm: every view (CLI, TUI)
//! is computed from these modules and can be tested without a terminal.
pub mod analysis;
pub mod backup;
pub mod cache_file;
pub mod claims;
pub mod config;
pub mod confine;
pub mod conflict_markers;
pub mod dates;
pub mod demo;
pub mod dir_handle;
pub mod edit;
pub mod error;
pub mod findings;
pub mod formats;
pub mod git;
pub mod hash_index;
pub mod history;
pub mod init;
pub mod limits;
pub mod markdown;
pub mod memory_folders;
pub mod merge;
pub mod model;
pub mod paths;
pub mod review;
pub mod sanitize;
pub mod scan;
pub mod text;
pub mod tokens;
pub mod write;
// Serving agents (`mbank mcp`, `mbank serve`): the rules and operations, UI- and async-free.
pub mod agent;
pub mod guard;
pub mod lock;
pub mod refusals;

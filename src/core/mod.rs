//! The UI-free core. Nothing here imports ratatui or crossterm: every view (CLI, TUI)
//! is computed from these modules and can be tested without a terminal.
pub mod bank;
pub mod budgets;
pub mod config;
pub mod confine;
pub mod context;
pub mod decisions;
pub mod demo;
pub mod discovery;
pub mod edit;
pub mod error;
pub mod findings;
pub mod formats;
pub mod git;
pub mod hash_index;
pub mod imports;
pub mod infinity;
pub mod init;
pub mod listings;
pub mod markdown;
pub mod merge;
pub mod model;
pub mod modes;
pub mod paths;
pub mod report;
pub mod review;
pub mod sanitize;
pub mod staleness;
pub mod text;
pub mod tokens;
pub mod validate;
pub mod write;
// Serving agents (`mbank mcp`, `mbank serve`): the rules and operations, UI- and async-free.
pub mod agent;
pub mod guard;
pub mod lock;
pub mod refusals;

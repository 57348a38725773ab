//! The UI-free core. Nothing here imports ratatui or crossterm: every view (CLI, TUI)
//! is computed from these modules and can be tested without a terminal.
pub mod bank;
pub mod discovery;
pub mod error;
pub mod formats;
pub mod infinity;
pub mod markdown;
pub mod model;
pub mod text;

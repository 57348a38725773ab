//! mbank: see, curate and trust the memory banks AI coding agents keep.
//!
//! `core` is UI-free (formats, discovery, tokens, budgets, staleness, validation,
//! decisions, safe writes, git); `cli` is the headless command line on top of it; `serve`
//! the MCP and HTTP servers; `tui` the terminal interface. Each but `cli` is a crate of
//! the workspace (`crates/`), re-exported here under its old name.
pub mod cli;
pub use mbank_core as core;
pub use mbank_serve as serve;
pub use mbank_tui as tui;

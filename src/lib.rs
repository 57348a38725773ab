//! mbank: see, curate and trust the memory banks AI coding agents keep.
//!
//! `core` is UI-free (formats, discovery, tokens, budgets, staleness, validation,
//! decisions, safe writes, git); `cli` is the headless command line on top of it.
pub mod cli;
pub mod core;
pub mod serve;
pub mod tui;

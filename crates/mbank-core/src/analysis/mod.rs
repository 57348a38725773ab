//! Judging what was found: budgets, staleness, validation, decisions, what a session
//! loads and what of it fits a token budget (`context`, `imports`), and the report that
//! gathers them for `list`, `check`
//! and the TUI, with the folders a watcher must see to follow it (`memory_folders`) and
//! `list`'s rows and `check`'s findings remembered between runs with what they were
//! derived from (`rows`).
pub mod budgets;
pub mod context;
pub mod decisions;
pub(crate) mod file_class;
pub mod git_evidence;
pub mod imports;
pub mod load_cut;
pub mod membership;
pub mod memory_folders;
pub mod placeholders;
pub mod report;
pub mod rows;
pub(crate) mod rule_files;
pub mod staleness;
pub mod validate;

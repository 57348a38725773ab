//! Cline/Roo rule and mode files.
pub mod modes;

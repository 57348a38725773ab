//! The terminal UI: `mbank` with no subcommand. One message/update loop (`app`), one
//! module per pane (`panes`), overlays on a stack that gets keys first (`overlays`),
//! and background workers that talk to the loop only through messages (`workers`).
//! Everything it shows is computed by `crate::core`, which knows nothing of terminals.
pub mod highlight;
pub mod keymap;
pub mod markdown_view;
pub mod svg;
pub mod theme;

//! The terminal UI: `mbank` with no subcommand. One message/update loop (`app`, a thin
//! router over its jobs), one module per pane (`panes`), overlays on a stack that gets
//! keys first (`overlays`), all behind one interface (`pane`: context, `handle` ->
//! effects, `view`); background workers and one-shot jobs that talk to the loop only
//! through messages (`workers`, `jobs`, `watcher`, `highlight`, `review_worker`,
//! `agent_worker`, `journal_worker`).
//! Everything it shows is computed by `mbank_core`, which knows nothing of terminals.
pub mod agent_worker;
pub mod app;
pub mod commands;
pub mod highlight;
pub mod jobs;
pub mod journal_worker;
pub mod keymap;
pub mod list;
pub mod markdown_view;
pub mod message;
pub mod overlays;
pub mod pane;
pub mod panes;
pub mod protocol;
pub(crate) mod review_worker;
pub(crate) mod search_worker;
pub mod terminal;
pub mod theme;
pub mod watcher;
pub mod widgets;
pub mod workers;

// For tests, benches and the screenshot example only (the `test-support` feature, which
// the crate's dev-dependency on itself turns on): not part of what ships.
#[cfg(any(test, feature = "test-support"))]
pub mod driver;
#[cfg(any(test, feature = "test-support"))]
pub mod svg;

pub use app::{App, Options};
pub use message::Message;
pub use terminal::{RunMode, run};

//! One module per pane, each with its own state, message type, `update` and `view`.
pub mod changes;
pub mod editor;
pub mod findings;
pub mod picker;
pub mod preview;
pub mod review;
pub mod timeline;
pub mod tree;

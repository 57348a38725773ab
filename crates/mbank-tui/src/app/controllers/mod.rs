//! The parts of the app that own their state: the projects, the open document and the
//! review. Each knows nothing of the app; the app passes in what they need and turns
//! what they report into messages, prompts and focus.
mod document;
mod projects;
mod review;

pub(crate) use document::DocumentController;
pub use document::ViewMode;
pub(crate) use projects::ProjectsController;
pub(crate) use review::{AgentNews, ReviewController};

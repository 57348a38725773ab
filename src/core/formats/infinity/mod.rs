//! The Infinity structured JSON store.
pub mod store;

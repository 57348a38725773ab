//! Finding what is on disk: projects under the root (`discovery`), their banks' files in
//! read order (`bank`), and the folder listings both read once per run and remember
//! between runs (`listings`). A folder is read through one open handle (`open_folder`),
//! and a bank's files are `stat`ed relative to it. Metadata and the few bytes that decide
//! placement only.
pub mod bank;
pub mod discovery;
mod entry;
mod listing_store;
pub mod listings;
mod open_folder;
mod stamp;
mod stated_listing;

//! Search over every memory file of every project under the root, and the agents' own
//! stores in the home folder that belong to no project: passages (a heading's
//! section, a decision) ranked by BM25F on their headings, text and place, with the
//! query's words matched in any language and through related words.
//!
//! | file | what it holds |
//! |---|---|
//! | `text.rs` | text as terms: stems, and character pairs for Chinese, Japanese and Korean |
//! | `concepts.rs` | the groups of related words a query also matches |
//! | `extract.rs` | a project's memory files cut into passages, private text left out |
//! | `home.rs` | the home folder's own stores (Codex memories …), each searched as a place |
//! | `segment.rs` | one file of the index in the cache store's format |
//! | `index.rs` | the index of a root, refreshed from the files' stamps |
//! | `query.rs` | ranking and filters |
//! | `snippet.rs` | the lines that show a match, marked |
mod concepts;
pub mod extract;
mod home;
mod index;
mod query;
pub mod segment;
mod snippet;
pub mod text;

pub use extract::{DecisionFacts, PassageKind};
pub use home::{HomeStore, home_stores};
pub use index::{ProjectBanks, Refreshed, SearchIndex};
pub use query::{Hit, KindFilter, Query};
pub use snippet::Snippet;

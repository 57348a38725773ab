//! Memory text read as markdown: its structure (frontmatter, code and prose, headings),
//! the dates written in its prose and which of them name plans rather than writes, and
//! text made safe for a terminal.
pub mod dates;
pub mod markdown;
pub mod sanitize;

// The paths the parser limits and the three-way merge had when they lived here, kept for
// the token cache and the proposals, which are being reworked and move to the new paths
// with that work.
pub use crate::{limits, merge};

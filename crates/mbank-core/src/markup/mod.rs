//! Reading what memory files say: markdown (frontmatter, code and prose, headings), dates
//! (and which of them name plans rather than writes),
//! parser limits, conflict markers and three-way merges, and text made safe for a terminal.
pub mod conflict_markers;
pub mod dates;
pub mod limits;
pub mod markdown;
pub mod merge;
pub mod plans;
pub mod sanitize;

//! Memory text read as markdown: its structure (frontmatter, code and prose, headings),
//! the dates written in its prose and which of them name plans rather than writes, and
//! text made safe for a terminal.
pub mod dates;
pub mod markdown;
pub mod sanitize;

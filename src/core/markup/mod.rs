//! Text as markup: markdown (frontmatter, code and prose, headings) as agents and readers
//! see it, and the characters a terminal would act on, made visible (`sanitize`).
pub mod markdown;
pub mod sanitize;

// The paths these modules had when they lived here, kept for the token cache and the
// proposals, which are being reworked and move to the new paths with that work.
pub use crate::core::{dates, limits, merge};

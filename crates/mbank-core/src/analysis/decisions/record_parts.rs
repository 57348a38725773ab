//! The parts of a decision record beside its decision, as headings name them.
use super::entry::canonical_key;
use super::text::clean_title;

/// A heading that is a part of a block explaining its decision (Context, Rationale,
/// Alternatives, Consequences, Implementation Details), in any language.
pub(super) fn names_an_explaining_part(heading: &str) -> bool {
    matches!(
        canonical_key(&clean_title(heading).to_lowercase()),
        "context"
            | "implementation details"
            | "implementation notes"
            | "rationale"
            | "alternatives considered"
            | "alternatives"
            | "consequences"
            | "options considered"
    )
}

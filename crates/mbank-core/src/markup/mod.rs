//! Memory text read as markdown: its structure (frontmatter, code and prose, headings),
//! the dates written in its prose and which of them name plans rather than writes, and
//! text made safe for a terminal.
pub mod dates;
pub mod markdown;
pub mod sanitize;

use std::sync::OnceLock;

use aho_corasick::AhoCorasick;

/// A list of phrases looked for anywhere in a text, found by one pass of an automaton
/// (built at first use) rather than a search per phrase: every line of every memory file
/// may be searched.
pub(crate) struct PhraseSearch {
    phrases: &'static [&'static str],
    automaton: OnceLock<Option<AhoCorasick>>,
}

impl PhraseSearch {
    pub(crate) const fn new(phrases: &'static [&'static str]) -> PhraseSearch {
        PhraseSearch {
            phrases,
            automaton: OnceLock::new(),
        }
    }

    /// Whether `text` holds any of the phrases (a plain search per phrase should the
    /// automaton not build).
    pub(crate) fn in_text(&self, text: &str) -> bool {
        let automaton = self
            .automaton
            .get_or_init(|| AhoCorasick::new(self.phrases).ok());
        match automaton {
            Some(automaton) => automaton.is_match(text),
            None => self.phrases.iter().any(|phrase| text.contains(phrase)),
        }
    }
}

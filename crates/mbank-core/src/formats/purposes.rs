//! What each core file of a format is for ([`super::FormatRules::purpose_headings`]): the
//! section headings of its templates by the role of the file they belong in.
use std::sync::OnceLock;

use aho_corasick::AhoCorasick;

use crate::model::Role;

/// A format's purpose headings, with one automaton over every phrase built at first use:
/// each section heading of each core file is looked up in all of them, and a search per
/// phrase cost more than the rest of checking the file.
pub struct PurposeHeadings {
    table: &'static [(Role, &'static [&'static str])],
    /// `" phrase "` for every phrase not ending in `:`, and the role of each.
    spaced: OnceLock<Option<(AhoCorasick, Vec<Role>)>>,
}

/// A format whose files have no fixed purpose.
pub static NO_PURPOSES: PurposeHeadings = PurposeHeadings::new(&[]);

impl PurposeHeadings {
    /// `table`: each role and the words, lower case, of its headings; a phrase ending in
    /// `:` is a prefix of the heading, any other is looked for as whole words.
    pub const fn new(table: &'static [(Role, &'static [&'static str])]) -> PurposeHeadings {
        PurposeHeadings {
            table,
            spaced: OnceLock::new(),
        }
    }

    pub fn table(&self) -> &'static [(Role, &'static [&'static str])] {
        self.table
    }

    /// Calls `found` with the role of every whole-word phrase in `padded`: a heading's
    /// words, lower case, single-spaced, with one space either side.
    pub fn whole_word_roles(&self, padded: &str, mut found: impl FnMut(Role)) {
        let spaced = self.spaced.get_or_init(|| {
            let (patterns, roles): (Vec<String>, Vec<Role>) = self
                .whole_word_phrases()
                .map(|(role, phrase)| (format!(" {phrase} "), role))
                .unzip();
            AhoCorasick::new(patterns)
                .ok()
                .map(|automaton| (automaton, roles))
        });
        match spaced {
            Some((automaton, roles)) => {
                for hit in automaton.find_overlapping_iter(padded) {
                    if let Some(&role) = roles.get(hit.pattern().as_usize()) {
                        found(role);
                    }
                }
            }
            // An automaton that cannot be built: a search per phrase finds the same.
            None => {
                for (role, phrase) in self.whole_word_phrases() {
                    if padded.contains(&format!(" {phrase} ")) {
                        found(role);
                    }
                }
            }
        }
    }

    fn whole_word_phrases(&self) -> impl Iterator<Item = (Role, &'static str)> {
        self.table.iter().flat_map(|&(role, phrases)| {
            phrases
                .iter()
                .filter(|phrase| !phrase.ends_with(':'))
                .map(move |&phrase| (role, phrase))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static PURPOSES: PurposeHeadings = PurposeHeadings::new(&[
        (Role::Tech, &["languages", "build commands", "decision:"]),
        (Role::Active, &["current focus", "focus"]),
    ]);

    fn roles_in(padded: &str) -> Vec<Role> {
        let mut roles = Vec::new();
        PURPOSES.whole_word_roles(padded, |role| roles.push(role));
        roles
    }

    #[test]
    fn phrases_are_found_as_whole_words_overlapping_or_not() {
        assert_eq!(roles_in(" languages "), vec![Role::Tech]);
        assert_eq!(roles_in(" our build commands "), vec![Role::Tech]);
        // "current focus" and "focus" end at the same word: both are found.
        let both = roles_in(" current focus ");
        assert_eq!(both.len(), 2, "{both:?}");
        assert!(both.iter().all(|r| *r == Role::Active));
        assert!(roles_in(" languageserver ").is_empty());
        assert!(roles_in(" refocus ").is_empty());
        // A prefix phrase is not looked for as words.
        assert!(roles_in(" decision: x ").is_empty());
    }
}

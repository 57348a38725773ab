//! Words that mean the same thing to a search, so a question finds a passage that answers
//! it in other words ("which database" finds "PostgreSQL 15"). The groups are written from
//! the vocabulary of software projects in several languages (`assets/search/concepts.txt`).
use std::collections::{HashMap, HashSet};

use super::text::{TermAnalyzer, is_unspaced};

const GROUPS: &str = include_str!("../../../../assets/search/concepts.txt");

/// The related words of a query's terms.
pub(crate) struct Concepts {
    /// Each group's terms (stems, or character pairs of an unspaced word).
    groups: Vec<Vec<String>>,
    /// The groups a stem belongs to.
    by_term: HashMap<String, Vec<usize>>,
    /// Unspaced words (whole), with their groups: found in a query's text as written.
    unspaced: Vec<(String, usize)>,
}

impl Concepts {
    pub fn built_in(analyzer: &TermAnalyzer) -> Concepts {
        Self::parse(GROUPS, analyzer)
    }

    pub fn parse(source: &str, analyzer: &TermAnalyzer) -> Concepts {
        let mut concepts = Concepts {
            groups: Vec::new(),
            by_term: HashMap::new(),
            unspaced: Vec::new(),
        };
        for line in source.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let group = concepts.groups.len();
            let mut terms: Vec<String> = Vec::new();
            for word in line.split_whitespace() {
                if word.chars().any(is_unspaced) {
                    concepts.unspaced.push((word.to_string(), group));
                    terms.extend(analyzer.term_texts(word));
                    continue;
                }
                for term in analyzer.term_texts(word) {
                    let groups = concepts.by_term.entry(term.clone()).or_default();
                    if !groups.contains(&group) {
                        groups.push(group);
                    }
                    terms.push(term);
                }
            }
            let mut seen = HashSet::new();
            terms.retain(|t| seen.insert(t.clone()));
            concepts.groups.push(terms);
        }
        concepts
    }

    /// The terms related to a query, none of them among its own terms: the other members
    /// of every group one of its terms (or, for Chinese, Japanese and Korean, one of its
    /// words as written) belongs to. Each comes with the query term it stands in for, so
    /// a passage is credited once per query word however many relatives it holds.
    pub fn related(&self, query: &str, terms: &[String]) -> Vec<(String, usize)> {
        let own: HashSet<&str> = terms.iter().map(String::as_str).collect();
        let mut out: Vec<(String, usize)> = Vec::new();
        let mut seen: HashSet<String> = HashSet::new();
        let mut add_group = |group: usize, slot: usize, out: &mut Vec<(String, usize)>| {
            for member in &self.groups[group] {
                if !own.contains(member.as_str()) && seen.insert(member.clone()) {
                    out.push((member.clone(), slot));
                }
            }
        };
        for (slot, term) in terms.iter().enumerate() {
            for &group in self.by_term.get(term).into_iter().flatten() {
                add_group(group, slot, &mut out);
            }
        }
        for (word, group) in &self.unspaced {
            if query.contains(word.as_str()) {
                // Stands in for the query's first character pair of that word.
                let first = word.chars().take(2).collect::<String>();
                let slot = terms.iter().position(|t| *t == first).unwrap_or(0);
                add_group(*group, slot, &mut out);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_brings_its_group_and_never_itself() {
        let analyzer = TermAnalyzer::default();
        let concepts = Concepts::parse(
            "database postgres sqlite データベース\ncache redis",
            &analyzer,
        );
        let terms = analyzer.term_texts("which database");
        let related: Vec<String> = concepts
            .related("which database", &terms)
            .into_iter()
            .map(|(t, _)| t)
            .collect();
        assert!(related.contains(&"postgr".to_string()), "{related:?}");
        assert!(related.contains(&"sqlite".to_string()));
        assert!(!related.contains(&"databas".to_string()));
        assert!(!related.contains(&"redi".to_string()));
    }

    #[test]
    fn an_unspaced_word_is_found_inside_the_query_as_written() {
        let analyzer = TermAnalyzer::default();
        let concepts = Concepts::parse("database postgres データベース", &analyzer);
        let query = "どのデータベースを使う";
        let terms = analyzer.term_texts(query);
        let related: Vec<String> = concepts
            .related(query, &terms)
            .into_iter()
            .map(|(t, _)| t)
            .collect();
        assert!(related.contains(&"postgr".to_string()), "{related:?}");
    }

    #[test]
    fn the_built_in_groups_parse() {
        let analyzer = TermAnalyzer::default();
        let concepts = Concepts::built_in(&analyzer);
        assert!(concepts.groups.len() > 40);
        assert!(concepts.groups.iter().all(|g| g.len() >= 2));
    }
}

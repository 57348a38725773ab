//! Memory text as search terms, in any language: words folded to lower case and to their
//! stem (Snowball English for Latin script, Russian for Cyrillic), and text in scripts
//! written without spaces (Chinese, Japanese, Korean) as overlapping pairs of characters,
//! so a query finds a word inside a longer run without a dictionary.
use rust_stemmers::{Algorithm, Stemmer};

/// Words longer than this are identifiers, hashes or URLs run together: not terms.
const MAX_WORD_CHARS: usize = 40;

/// Function words of English that every passage holds: they only add noise to a score.
const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "can", "could", "did", "do",
    "does", "for", "from", "had", "has", "have", "how", "i", "if", "in", "into", "is", "it", "its",
    "me", "my", "no", "not", "of", "on", "or", "our", "should", "so", "than", "that", "the",
    "their", "them", "then", "there", "these", "they", "this", "those", "to", "us", "was", "we",
    "were", "what", "when", "where", "which", "while", "who", "why", "will", "with", "would",
    "you", "your", "и", "в", "во", "на", "с", "со", "по", "к", "о", "об", "из", "за", "для", "не",
    "что", "как", "это", "или", "а", "но", "у",
];

/// Whether a character belongs to a script written without spaces between words.
pub(crate) fn is_unspaced(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x31F0..=0x31FF    // Katakana extensions
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
        | 0x20000..=0x2FA1F  // CJK extensions B and on
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0x1100..=0x11FF    // Hangul jamo
        | 0x3130..=0x318F) // Hangul compatibility jamo
}

fn is_cyrillic(c: char) -> bool {
    matches!(c as u32, 0x0400..=0x052F)
}

/// Turns text into terms. Holds the stemmers, which are built once per index.
pub struct TermAnalyzer {
    english: Stemmer,
    russian: Stemmer,
}

impl Default for TermAnalyzer {
    fn default() -> Self {
        TermAnalyzer {
            english: Stemmer::create(Algorithm::English),
            russian: Stemmer::create(Algorithm::Russian),
        }
    }
}

/// One term of a text and the byte range of the word it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Term {
    pub text: String,
    pub start: usize,
    pub end: usize,
}

impl TermAnalyzer {
    /// The terms of `text`, in order, each with where its word lies.
    pub fn terms(&self, text: &str) -> Vec<Term> {
        let mut out = Vec::new();
        let mut run_start: Option<usize> = None;
        let mut run_unspaced = false;
        let flush = |start: usize, end: usize, unspaced: bool, out: &mut Vec<Term>| {
            let word = &text[start..end];
            if unspaced {
                self.pairs(word, start, out);
            } else {
                self.word(word, start, end, out);
            }
        };
        for (at, c) in text.char_indices() {
            let in_word = c.is_alphanumeric();
            let unspaced = in_word && is_unspaced(c);
            match run_start {
                Some(_) if in_word && unspaced == run_unspaced => {}
                Some(start) => {
                    flush(start, at, run_unspaced, &mut out);
                    run_start = in_word.then_some(at);
                    run_unspaced = unspaced;
                }
                None if in_word => {
                    run_start = Some(at);
                    run_unspaced = unspaced;
                }
                None => {}
            }
        }
        if let Some(start) = run_start {
            flush(start, text.len(), run_unspaced, &mut out);
        }
        out
    }

    /// Just the terms' text.
    pub(crate) fn term_texts(&self, text: &str) -> Vec<String> {
        self.terms(text).into_iter().map(|t| t.text).collect()
    }

    fn word(&self, word: &str, start: usize, end: usize, out: &mut Vec<Term>) {
        if word.chars().count() > MAX_WORD_CHARS {
            return;
        }
        let lower = word.to_lowercase();
        if STOPWORDS.contains(&lower.as_str()) {
            return;
        }
        let stemmed = if lower.chars().any(is_cyrillic) {
            self.russian.stem(&lower).into_owned()
        } else if lower.chars().all(|c| c.is_ascii_digit()) {
            lower
        } else {
            self.english.stem(&lower).into_owned()
        };
        if stemmed.is_empty() {
            return;
        }
        out.push(Term {
            text: stemmed,
            start,
            end,
        });
    }

    /// A run of Chinese, Japanese or Korean: each pair of neighbouring characters, or the
    /// one character of a run of one.
    fn pairs(&self, run: &str, start: usize, out: &mut Vec<Term>) {
        let chars: Vec<(usize, char)> = run.char_indices().collect();
        if chars.len() == 1 {
            let (at, c) = chars[0];
            out.push(Term {
                text: c.to_string(),
                start: start + at,
                end: start + at + c.len_utf8(),
            });
            return;
        }
        for pair in chars.windows(2) {
            let (at, first) = pair[0];
            let (next, second) = pair[1];
            let mut text = String::with_capacity(first.len_utf8() + second.len_utf8());
            text.push(first);
            text.push(second);
            out.push(Term {
                text,
                start: start + at,
                end: start + next + second.len_utf8(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_fold_to_stems_and_function_words_drop() {
        let analyzer = TermAnalyzer::default();
        assert_eq!(
            analyzer.term_texts("The payment Retries were retried"),
            ["payment", "retri", "retri"]
        );
        assert_eq!(
            analyzer.term_texts("ADR-077: Use Postgres"),
            ["adr", "077", "use", "postgr"]
        );
    }

    #[test]
    fn russian_words_are_stemmed_as_russian() {
        let analyzer = TermAnalyzer::default();
        let terms = analyzer.term_texts("решения решение");
        assert_eq!(terms.len(), 2);
        assert_eq!(terms[0], terms[1]);
    }

    #[test]
    fn unspaced_scripts_become_character_pairs_with_their_byte_ranges() {
        let analyzer = TermAnalyzer::default();
        let text = "使用データベース";
        let terms = analyzer.terms(text);
        assert_eq!(terms.len(), text.chars().count() - 1);
        assert_eq!(terms[0].text, "使用");
        assert_eq!(&text[terms[0].start..terms[0].end], "使用");
        let mixed = analyzer.terms("Redisキャッシュ");
        assert_eq!(mixed[0].text, "redi");
        assert_eq!(mixed[1].text, "キャ");
        assert_eq!(analyzer.term_texts("決"), ["決"]);
    }

    #[test]
    fn overlong_runs_and_punctuation_yield_nothing() {
        let analyzer = TermAnalyzer::default();
        assert!(analyzer.term_texts(&"x".repeat(200)).is_empty());
        assert!(analyzer.term_texts("--- *** !!!").is_empty());
    }
}

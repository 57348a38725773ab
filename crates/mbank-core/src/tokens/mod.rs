//! Token counts of memory files, labelled with the encoding that produced them.
//!
//! The counting itself is the `mbank-tokens` crate (OpenAI's BPE encodings, exact, and the
//! `bytes/4` estimate); here are the figures of a file built on it.
//!
//! ConKeeper `<private>` blocks and `private: true` files are counted apart from what
//! agents load. Counts are cached on disk (`cache`); callers count off the drawing thread
//! (the TUI's workers), so listing a bank never waits for a tokenizer.
mod ahead;
mod cache;
mod files;
mod stored;
mod unsaved;

use serde::Serialize;

use crate::io::text;
use crate::markup::markdown;

pub(crate) use ahead::CountAhead;
pub use cache::{FileKey, TokenCache};
pub(crate) use files::figures_for_files;
pub use files::stats_for_files;
use mbank_tokens::reserve_for_bulk;
pub use mbank_tokens::{Encoding, EncodingError, UnknownEncoding, count};

/// Size and token figures of one text.
#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
pub struct TextStats {
    pub bytes: u64,
    pub lines: usize,
    pub chars: usize,
    /// Tokens an agent loads: everything outside `<private>` blocks (tag lines excluded);
    /// zero for a `private: true` file.
    pub loaded_tokens: usize,
    /// Tokens hidden from automation: inside `<private>` blocks, or the whole file when
    /// its frontmatter says `private: true`.
    pub private_tokens: usize,
    pub private_blocks: usize,
    pub private_file: bool,
    pub encoding: Encoding,
    /// The dates written in the text, for staleness: found with the figures and cached
    /// with them, so a warm run reads no file for them. Empty when the text was counted
    /// for its figures alone ([`measure`]).
    #[serde(skip)]
    pub dates: crate::markup::dates::WrittenDates,
}

impl TextStats {
    /// Loaded plus private tokens (the `<private>` tag lines are in neither).
    pub fn total_tokens(&self) -> usize {
        self.loaded_tokens + self.private_tokens
    }
}

/// Measures a text and finds the dates written in it (for staleness), judged on `today`.
pub fn analyze(text: &str, encoding: Encoding, today: chrono::NaiveDate) -> TextStats {
    TextStats {
        dates: crate::markup::dates::WrittenDates::of(text, today),
        ..measure(text, encoding)
    }
}

/// Size and token figures of a text, without looking for dates: what the editor's
/// counter needs on every edit. ConKeeper's privacy markers are honoured wherever they
/// appear: a `private: true` file counts as private whole, `<private>` blocks apart.
pub fn measure(text: &str, encoding: Encoding) -> TextStats {
    let (lines, chars) = text::line_and_char_counts(text);
    let private_file = markdown::is_private_file(text);
    // An opening tag is a line reading `<private>`: a text without the word has no
    // block, and one substring search is far cheaper than walking its lines.
    let private_blocks = if text.contains("<private>") {
        markdown::private_blocks(text).len()
    } else {
        0
    };
    let (loaded_tokens, private_tokens) = if private_file {
        (0, count(encoding, text))
    } else if private_blocks == 0 {
        (count(encoding, text), 0)
    } else {
        let (loaded, hidden) = markdown::split_private(text);
        (count(encoding, &loaded), count(encoding, &hidden))
    };
    TextStats {
        bytes: text.len() as u64,
        lines,
        chars,
        loaded_tokens,
        private_tokens,
        private_blocks,
        private_file,
        encoding,
        dates: crate::markup::dates::WrittenDates::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_blocks_are_counted_apart() {
        let text =
            "# Patterns\nshared line\n<private>\nsecret key material here\n</private>\nmore\n";
        let stats = analyze(text, Encoding::O200k, chrono::NaiveDate::default());
        assert_eq!(stats.private_blocks, 1);
        assert!(!stats.private_file);
        assert_eq!(
            stats.loaded_tokens,
            count(Encoding::O200k, "# Patterns\nshared line\nmore\n")
        );
        assert_eq!(
            stats.private_tokens,
            count(Encoding::O200k, "secret key material here\n")
        );
        assert!(stats.private_tokens > 0);
        assert_eq!(stats.lines, 6);
        assert_eq!(stats.bytes, text.len() as u64);
        assert_eq!(stats.encoding, Encoding::O200k);
    }

    #[test]
    fn unclosed_private_block_hides_to_the_end() {
        let text = "visible\n<private>\nhidden one\nhidden two\n";
        let stats = analyze(text, Encoding::Bytes4, chrono::NaiveDate::default());
        assert_eq!(stats.loaded_tokens, count(Encoding::Bytes4, "visible\n"));
        assert_eq!(
            stats.private_tokens,
            count(Encoding::Bytes4, "hidden one\nhidden two\n")
        );
    }

    #[test]
    fn private_file_loads_nothing() {
        let text = "---\nprivate: true\n---\n# Secrets\nthe whole file is private\n";
        let stats = analyze(text, Encoding::Cl100k, chrono::NaiveDate::default());
        assert!(stats.private_file);
        assert_eq!(stats.loaded_tokens, 0);
        assert_eq!(stats.private_tokens, count(Encoding::Cl100k, text));
        assert_eq!(stats.total_tokens(), stats.private_tokens);
    }

    #[test]
    fn plain_text_is_all_loaded() {
        let stats = analyze(
            "# Title\nbody\n",
            Encoding::O200k,
            chrono::NaiveDate::default(),
        );
        assert_eq!(stats.private_tokens, 0);
        assert_eq!(stats.private_blocks, 0);
        assert_eq!(
            stats.loaded_tokens,
            count(Encoding::O200k, "# Title\nbody\n")
        );
        assert_eq!((stats.lines, stats.chars), (2, 13));
    }
}

//! Token counts of memory files, labelled with the encoding that produced them.
//!
//! No tokenizer for current Claude models is published, so mbank offers OpenAI's BPE
//! encodings (exact: `o200k_base` by default, `cl100k_base` with the `cl100k` feature) and
//! the common `bytes/4` estimate. BPE counts are identical to OpenAI's reference tokenizer: a hand-written
//! pre-tokenizer (`pretokenize`) feeds a byte-pair encoder over tables built into the
//! binary (`bpe`, laid out by build.rs), through a per-thread memo (`counter`).
//!
//! ConKeeper `<private>` blocks and `private: true` files are counted apart from what
//! agents load. Counts are cached on disk (`cache`); callers count off the drawing thread
//! (the TUI's workers), so listing a bank never waits for a tokenizer.
mod ahead;
mod bpe;
mod cache;
mod counter;
mod files;
mod pretokenize;
mod stored;
mod table_hash;

use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::core::io::text;
use crate::core::markup::markdown;

pub use ahead::CountAhead;
pub use cache::{FileKey, TokenCache};
pub use files::{figures_for_files, stats_for_file, stats_for_files};

/// How tokens are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Encoding {
    /// OpenAI `o200k_base` (GPT-4o and later), exact.
    #[default]
    O200k,
    /// OpenAI `cl100k_base` (GPT-4, GPT-3.5), exact.
    Cl100k,
    /// `ceil(bytes / 4)`: the rough estimate many tools use.
    Bytes4,
}

impl Encoding {
    pub const ALL: [Encoding; 3] = [Encoding::O200k, Encoding::Cl100k, Encoding::Bytes4];

    /// Stable identifier, shown next to every figure and used in JSON and configuration.
    pub fn id(self) -> &'static str {
        match self {
            Encoding::O200k => "o200k_base",
            Encoding::Cl100k => "cl100k_base",
            Encoding::Bytes4 => "bytes/4",
        }
    }

    /// What the figures mean, for help texts and the TUI.
    pub fn label(self) -> &'static str {
        match self {
            Encoding::O200k => "o200k_base (OpenAI GPT-4o tokenizer, exact)",
            Encoding::Cl100k => "cl100k_base (OpenAI GPT-4 tokenizer, exact)",
            Encoding::Bytes4 => "bytes/4 (rough estimate)",
        }
    }
}

impl std::fmt::Display for Encoding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

/// An encoding name that is none of those mbank knows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown token encoding {0:?} (use o200k_base, cl100k_base or bytes/4)")]
pub struct UnknownEncoding(pub String);

/// Why an encoding name cannot be counted with by this build.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodingError {
    #[error(transparent)]
    Unknown(#[from] UnknownEncoding),
    /// A known encoding whose tables this build left out (`cl100k_base` without the
    /// `cl100k` cargo feature).
    #[error(
        "{} is not built into this mbank: it was built without the `cl100k` cargo feature \
         (rebuild with default features, or use o200k or bytes4)",
        .0.id()
    )]
    NotBuiltIn(Encoding),
}

impl Encoding {
    /// Whether this build holds what counting with it needs: `cl100k_base`'s tables come
    /// with the `cl100k` feature.
    pub fn is_built_in(self) -> bool {
        match self {
            Encoding::Cl100k => cfg!(feature = "cl100k"),
            Encoding::O200k | Encoding::Bytes4 => true,
        }
    }

    /// This encoding when the build can count with it, else why not.
    pub fn built_in(self) -> Result<Encoding, EncodingError> {
        if self.is_built_in() {
            Ok(self)
        } else {
            Err(EncodingError::NotBuiltIn(self))
        }
    }
}

impl FromStr for Encoding {
    type Err = EncodingError;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        let encoding = match name.trim().to_ascii_lowercase().as_str() {
            "o200k" | "o200k_base" => Encoding::O200k,
            "cl100k" | "cl100k_base" => Encoding::Cl100k,
            "bytes4" | "bytes/4" => Encoding::Bytes4,
            _ => return Err(UnknownEncoding(name.to_string()).into()),
        };
        encoding.built_in()
    }
}

impl Serialize for Encoding {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.id())
    }
}

impl<'de> Deserialize<'de> for Encoding {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

/// Number of tokens of `text` under `encoding`.
///
/// In a build without the `cl100k` feature, `cl100k_base` is refused wherever a user or a
/// file names it ([`Encoding::built_in`]), so it never reaches here; should it, the count
/// is the `bytes/4` estimate rather than a panic.
pub fn count(encoding: Encoding, text: &str) -> usize {
    match encoding {
        Encoding::O200k => counter::count_bpe(pretokenize::Grammar::O200k, text),
        #[cfg(feature = "cl100k")]
        Encoding::Cl100k => counter::count_bpe(pretokenize::Grammar::Cl100k, text),
        #[cfg(not(feature = "cl100k"))]
        Encoding::Cl100k => text.len().div_ceil(4),
        Encoding::Bytes4 => text.len().div_ceil(4),
    }
}

/// Readies this thread to count many texts under `encoding` (see
/// [`counter::reserve_for_bulk`]).
fn reserve_for_bulk(encoding: Encoding) {
    match encoding {
        Encoding::O200k => counter::reserve_for_bulk(pretokenize::Grammar::O200k),
        #[cfg(feature = "cl100k")]
        Encoding::Cl100k => counter::reserve_for_bulk(pretokenize::Grammar::Cl100k),
        #[cfg(not(feature = "cl100k"))]
        Encoding::Cl100k => {}
        Encoding::Bytes4 => {}
    }
}

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
    pub dates: crate::core::markup::dates::WrittenDates,
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
        dates: crate::core::markup::dates::WrittenDates::of(text, today),
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
        dates: crate::core::markup::dates::WrittenDates::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoding_names_round_trip() {
        for encoding in Encoding::ALL {
            assert_eq!(encoding.id().parse::<Encoding>().unwrap(), encoding);
            assert_eq!(encoding.to_string(), encoding.id());
            let json = serde_json::to_string(&encoding).unwrap();
            assert_eq!(json, format!("\"{}\"", encoding.id()));
            assert_eq!(serde_json::from_str::<Encoding>(&json).unwrap(), encoding);
        }
        assert_eq!("o200k".parse::<Encoding>().unwrap(), Encoding::O200k);
        assert_eq!("CL100K".parse::<Encoding>().unwrap(), Encoding::Cl100k);
        assert_eq!("bytes4".parse::<Encoding>().unwrap(), Encoding::Bytes4);
        assert_eq!(Encoding::default(), Encoding::O200k);
        let err = "gpt2".parse::<Encoding>().unwrap_err();
        assert!(err.to_string().contains("gpt2"), "{err}");
    }

    #[test]
    fn an_encoding_left_out_of_the_build_is_refused_by_name() {
        assert!(Encoding::O200k.is_built_in() && Encoding::Bytes4.is_built_in());
        assert_eq!(Encoding::Cl100k.is_built_in(), cfg!(feature = "cl100k"));
        let message = EncodingError::NotBuiltIn(Encoding::Cl100k).to_string();
        assert!(
            message.starts_with("cl100k_base is not built into this mbank")
                && message.contains("`cl100k` cargo feature"),
            "{message}"
        );
    }

    #[test]
    fn bytes4_is_ceil_of_bytes_over_four() {
        assert_eq!(count(Encoding::Bytes4, ""), 0);
        assert_eq!(count(Encoding::Bytes4, "a"), 1);
        assert_eq!(count(Encoding::Bytes4, "abcd"), 1);
        assert_eq!(count(Encoding::Bytes4, "abcde"), 2);
        // Bytes, not characters: "é" is two bytes, "日本" six.
        assert_eq!(count(Encoding::Bytes4, "日本"), 2);
        assert_eq!(count(Encoding::Bytes4, "éé"), 1);
    }

    #[test]
    fn known_counts() {
        assert_eq!(count(Encoding::O200k, ""), 0);
        assert_eq!(count(Encoding::O200k, "hello world"), 2);
        assert_eq!(count(Encoding::Cl100k, "hello world"), 2);
    }

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

//! Exact token counts of text under OpenAI's BPE encodings (`o200k_base`, and
//! `cl100k_base` with the `cl100k` feature), and the common `bytes/4` estimate.
//!
//! No tokenizer for current Claude models is published, so these are the counts offered.
//! BPE counts are identical to OpenAI's reference tokenizer: a hand-written
//! pre-tokenizer (`pretokenize`) feeds a byte-pair encoder over tables built into the
//! binary (`bpe`, laid out by build.rs), through a per-thread memo (`counter`).
mod bpe;
mod counter;
mod pretokenize;
mod table_hash;

use std::str::FromStr;

use serde::{Deserialize, Serialize};

pub use counter::{FastMap, SPLIT_MIN_BYTES, worker_count};

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
    pub(crate) fn is_built_in(self) -> bool {
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
/// `counter::reserve_for_bulk`).
pub fn reserve_for_bulk(encoding: Encoding) {
    match encoding {
        Encoding::O200k => counter::reserve_for_bulk(pretokenize::Grammar::O200k),
        #[cfg(feature = "cl100k")]
        Encoding::Cl100k => counter::reserve_for_bulk(pretokenize::Grammar::Cl100k),
        #[cfg(not(feature = "cl100k"))]
        Encoding::Cl100k => {}
        Encoding::Bytes4 => {}
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
}

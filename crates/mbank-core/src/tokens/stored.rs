//! The token section of the cache store: one file per encoding (its scope is the encoding's id), one table
//! of records, each a file version's key (path, Infinity memory id) and the figures
//! counted in it. The key comes first, so opening a file reads only the keys to index
//! them; the figures are decoded when a lookup finds their record. They are stored at
//! fixed widths, little-endian ([`Figures::LEN`] bytes), not as postcard's varints: a
//! lookup then reads them in place, which keeps opening and looking up a large cache as
//! fast as the format before the cache store.
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{Encoding, TextStats};
use crate::cache_store::{Loaded, Section, decode, decode_prefix, encode_into};
use crate::markup::dates::{FUTURE_DATES_KEPT, WrittenDates};

/// The one table of the section.
pub(crate) const RECORDS: usize = 0;

/// What a file of `encoding` is for.
pub fn scope(encoding: Encoding) -> &'static [u8] {
    match encoding {
        Encoding::O200k => b"o200k_base",
        Encoding::Cl100k => b"cl100k_base",
        Encoding::Bytes4 => b"bytes4",
    }
}

/// The token cache of `encoding` these bytes hold, when they are one.
#[cfg(test)]
pub fn parse(bytes: Vec<u8>, encoding: Encoding) -> Option<Loaded> {
    Loaded::parse(bytes, Section::Tokens).filter(|loaded| loaded.scope() == scope(encoding))
}

/// The token cache of `encoding` at `file`, when it is one.
pub fn read(file: &Path, encoding: Encoding) -> Option<Loaded> {
    Loaded::read(file, Section::Tokens).filter(|loaded| loaded.scope() == scope(encoding))
}

/// No date written.
const NO_DAY: i32 = i32::MIN;

/// The file version a record is for (size, modification and change times in nanoseconds
/// since the epoch), and what was counted in it. Files hold them at fixed widths
/// ([`Record`]); the serde encoding (postcard's varints) is the compact one the unsaved
/// figures of a run are held in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Figures {
    pub size: u64,
    pub modified_nanos: i128,
    pub changed_nanos: i128,
    pub bytes: u64,
    pub lines: u64,
    pub chars: u64,
    pub loaded_tokens: u64,
    pub private_tokens: u64,
    pub private_blocks: u32,
    pub private_file: bool,
    /// Whether the dates below were looked for: figures counted for `mbank tokens` skip
    /// the date search, and a caller that needs dates counts such a file again.
    pub dates_known: bool,
    /// The text's written dates ([`WrittenDates::days`]): the newest up to the day of
    /// counting (`NO_DAY` for none) and up to [`FUTURE_DATES_KEPT`] later ones.
    newest_past_day: i32,
    future_days: [i32; FUTURE_DATES_KEPT],
    future_count: u8,
}

impl Figures {
    /// The bytes one record's figures take.
    pub(crate) const LEN: usize = 8 + 16 + 16 + 5 * 8 + 4 + 1 + 1 + 4 + 4 * FUTURE_DATES_KEPT + 1;

    fn to_bytes(self) -> [u8; Self::LEN] {
        let mut out = [0u8; Self::LEN];
        let mut at = 0;
        let mut put = |bytes: &[u8]| {
            out[at..at + bytes.len()].copy_from_slice(bytes);
            at += bytes.len();
        };
        put(&self.size.to_le_bytes());
        put(&self.modified_nanos.to_le_bytes());
        put(&self.changed_nanos.to_le_bytes());
        for n in [
            self.bytes,
            self.lines,
            self.chars,
            self.loaded_tokens,
            self.private_tokens,
        ] {
            put(&n.to_le_bytes());
        }
        put(&self.private_blocks.to_le_bytes());
        put(&[u8::from(self.private_file), u8::from(self.dates_known)]);
        put(&self.newest_past_day.to_le_bytes());
        for day in self.future_days {
            put(&day.to_le_bytes());
        }
        put(&[self.future_count]);
        out
    }

    /// The figures `bytes` hold; `None` for bytes of another length or flags that are
    /// not 0 or 1.
    fn from_bytes(bytes: &[u8]) -> Option<Figures> {
        let bytes: &[u8; Self::LEN] = bytes.try_into().ok()?;
        let mut at = 0;
        let mut take = |len: usize| {
            let part = &bytes[at..at + len];
            at += len;
            part
        };
        let u64_of = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap_or_default());
        let i128_of = |b: &[u8]| i128::from_le_bytes(b.try_into().unwrap_or_default());
        let i32_of = |b: &[u8]| i32::from_le_bytes(b.try_into().unwrap_or_default());
        let flag = |b: u8| match b {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        };
        let size = u64_of(take(8));
        let modified_nanos = i128_of(take(16));
        let changed_nanos = i128_of(take(16));
        let counts: [u64; 5] = std::array::from_fn(|_| u64_of(take(8)));
        let private_blocks = u32::from_le_bytes(take(4).try_into().unwrap_or_default());
        let flags = take(2);
        let private_file = flag(flags[0])?;
        let dates_known = flag(flags[1])?;
        let newest_past_day = i32_of(take(4));
        let future_days: [i32; FUTURE_DATES_KEPT] = std::array::from_fn(|_| i32_of(take(4)));
        let future_count = take(1)[0];
        Some(Figures {
            size,
            modified_nanos,
            changed_nanos,
            bytes: counts[0],
            lines: counts[1],
            chars: counts[2],
            loaded_tokens: counts[3],
            private_tokens: counts[4],
            private_blocks,
            private_file,
            dates_known,
            newest_past_day,
            future_days,
            future_count,
        })
    }

    /// The figures of `stats` for the file version `(size, modified, changed)`.
    pub fn of(
        (size, modified_nanos, changed_nanos): (u64, i128, i128),
        stats: &TextStats,
        dates_known: bool,
    ) -> Figures {
        let (newest_past, future) = stats.dates.days();
        let future = &future[..future.len().min(FUTURE_DATES_KEPT)];
        let mut future_days = [0; FUTURE_DATES_KEPT];
        future_days[..future.len()].copy_from_slice(future);
        Figures {
            size,
            modified_nanos,
            changed_nanos,
            bytes: stats.bytes,
            lines: stats.lines as u64,
            chars: stats.chars as u64,
            loaded_tokens: stats.loaded_tokens as u64,
            private_tokens: stats.private_tokens as u64,
            private_blocks: u32::try_from(stats.private_blocks).unwrap_or(u32::MAX),
            private_file: stats.private_file,
            dates_known,
            newest_past_day: newest_past.unwrap_or(NO_DAY),
            future_days,
            future_count: future.len() as u8,
        }
    }

    pub(crate) fn is_version(
        &self,
        (size, modified_nanos, changed_nanos): (u64, i128, i128),
    ) -> bool {
        self.size == size
            && self.modified_nanos == modified_nanos
            && self.changed_nanos == changed_nanos
    }

    pub fn stats(&self, encoding: Encoding) -> TextStats {
        TextStats {
            bytes: self.bytes,
            lines: self.lines as usize,
            chars: self.chars as usize,
            loaded_tokens: self.loaded_tokens as usize,
            private_tokens: self.private_tokens as usize,
            private_blocks: self.private_blocks as usize,
            private_file: self.private_file,
            encoding,
            dates: WrittenDates::from_days(
                (self.newest_past_day != NO_DAY).then_some(self.newest_past_day),
                &self.future_days[..usize::from(self.future_count)],
            ),
        }
    }
}

/// One record, borrowing its text from the file.
#[derive(Serialize, Deserialize)]
pub(crate) struct Record<'a> {
    pub path: &'a str,
    #[serde(borrow)]
    pub memory_id: Option<&'a str>,
    #[serde(with = "fixed_width")]
    pub figures: Figures,
}

/// [`Figures`] as one byte string of [`Figures::LEN`] bytes.
mod fixed_width {
    use serde::de::Error;
    use serde::{Deserialize, Deserializer, Serializer};

    use super::Figures;

    pub fn serialize<S: Serializer>(figures: &Figures, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(&figures.to_bytes())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Figures, D::Error> {
        let bytes = <&'de [u8]>::deserialize(deserializer)?;
        Figures::from_bytes(bytes).ok_or_else(|| D::Error::custom("not a token cache record"))
    }
}

impl Record<'_> {
    /// Appends the record to `out`; false (nothing appended) when it cannot be encoded.
    pub fn write_to(&self, out: &mut Vec<u8>) -> bool {
        encode_into(self, out)
    }
}

/// The record these bytes hold; `None` for anything this section did not write.
pub fn record(bytes: &[u8]) -> Option<Record<'_>> {
    decode::<Record<'_>>(bytes)
        .filter(|record| usize::from(record.figures.future_count) <= FUTURE_DATES_KEPT)
}

/// The key (path, memory id) a record starts with.
pub fn key(bytes: &[u8]) -> Option<(&str, Option<&str>)> {
    decode_prefix(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figures() -> Figures {
        Figures {
            size: 12_345,
            modified_nanos: 1_764_000_000_123_456_789,
            changed_nanos: -5,
            bytes: 12_345,
            lines: 300,
            chars: 12_000,
            loaded_tokens: 3_210,
            private_tokens: 40,
            private_blocks: 2,
            private_file: false,
            dates_known: true,
            newest_past_day: 20_400,
            future_days: [20_401, 20_402, 0, 0, 0, 0, 0, 0],
            future_count: 2,
        }
    }

    #[test]
    fn figures_read_back_as_written_at_their_fixed_width() {
        let figures = figures();
        let bytes = figures.to_bytes();
        assert_eq!(bytes.len(), Figures::LEN);
        assert_eq!(Figures::from_bytes(&bytes), Some(figures));
        let record = Record {
            path: "/p/memory-bank/progress.md",
            memory_id: Some("m-1"),
            figures,
        };
        let mut out = Vec::new();
        assert!(record.write_to(&mut out));
        let back = super::record(&out).unwrap();
        assert_eq!(
            (back.path, back.memory_id, back.figures),
            (record.path, record.memory_id, figures)
        );
        assert_eq!(key(&out), Some((record.path, record.memory_id)));
    }

    #[test]
    fn figures_of_another_width_or_with_a_bad_flag_are_not_read() {
        let bytes = figures().to_bytes();
        assert_eq!(Figures::from_bytes(&bytes[1..]), None);
        assert_eq!(
            Figures::from_bytes(&[bytes.as_slice(), &[0]].concat()),
            None
        );
        let mut flag = bytes;
        flag[8 + 16 + 16 + 40 + 4] = 2;
        assert_eq!(Figures::from_bytes(&flag), None);
    }
}

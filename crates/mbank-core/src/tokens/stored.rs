//! The token section of the cache store: one file per encoding (its scope is the encoding's id), one table
//! of records, each a file version's key (path, Infinity memory id) and the figures
//! counted in it. The key comes first, so opening a file reads only the keys to index
//! them; the figures are decoded when a lookup finds their record.
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
/// since the epoch), and what was counted in it.
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
    pub figures: Figures,
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

//! mbank's one cache store: the on-disk format of every cache (token counts, folder
//! listings and content facts, remembered list rows, the search index, history walks,
//! what git said of each repository's top folder, drivers and ignore rules),
//! so there is one header, one format version, one checksum, one atomic save and one
//! size cap to get right. The remembered findings of `check` share the rows' layout in a
//! section of their own.
//!
//! A cache file is a fixed header (magic, `FORMAT_VERSION`, the [`Section`] it holds,
//! the payload's length and a checksum) and a payload in postcard, serde's compact
//! binary format: the section's scope (the token encoding, or the root the file is for)
//! and its tables, each a list of records. A record is itself postcard of the section's
//! record type (`tokens::stored`, `scan::listing_store`, [`rows`], `search::segment`,
//! `git::memo`, `git::finder_memo`, `git::ignores_memo`), kept as a byte string, so opening a file checks it and finds where its records lie without decoding them: a
//! record is decoded when it is looked up, and one kept from the previous run is copied
//! as it is. A file that is not a regular file, is over `limits::CACHE_MAX_BYTES`, is
//! truncated, corrupt, of another version or section or for another scope is an empty
//! cache; deleting any of them is always safe.
pub mod file;
pub mod rows;

use std::path::Path;

use serde::de::{Deserialize, Deserializer};
use serde::{Serialize, Serializer};

use crate::error::Result;
use crate::io::hash_index::{Checksum, checksum};
use crate::limits;

const MAGIC: &[u8; 8] = b"MBCACHE\0";
/// The version of every cache file. Bump it when any section's records change meaning
/// or shape: every cache then starts empty once. 1: one store for the token, listing
/// and rows caches (they were token 8, listing 4, rows 2). 2: token figures at fixed
/// widths. 3: banks of decision records in the listings, and the dates read from a text
/// that writes its days first (the token cache's written dates, the findings remembered).
/// 4: listings without the files the operating system leaves in folders (`.DS_Store`),
/// with the other places decision records are kept; the findings remembered with the
/// staleness of linked files and the claims' new rules. 5: records whose name is about
/// templates listed as records; the findings remembered with the claims' rules for
/// dated sections, linked copies and submodules. 6: git's evidence with files a merge
/// changed dated by that merge, and a project below its repository's top judged by the
/// commits to its folder.
pub(crate) const FORMAT_VERSION: u32 = 6;
/// magic, format version, section, payload length, checksum.
pub(crate) const HEADER_LEN: usize = 8 + 4 + 4 + 8 + 8;

/// What a cache file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    /// Token counts of one encoding.
    Tokens,
    /// Folder listings and content facts of one root.
    Listing,
    /// The remembered rows of one root.
    Rows,
    /// A part of the search index of one root.
    Search,
    /// The remembered findings of `mbank check` of one root (records as [`rows`] lays
    /// them out, each holding a project's findings).
    Checks,
    /// The answers of history walks of one repository (`git::HistoryMemo`).
    History,
    /// What the search of one repository's files for a memory's names found in each
    /// file (`claims::names_memo`).
    Names,
    /// What git said of one repository's top folder and configured drivers.
    Repositories,
    /// Which paths one repository's ignore rules cover.
    Ignores,
}

impl Section {
    fn code(self) -> u32 {
        match self {
            Section::Tokens => 1,
            Section::Listing => 2,
            Section::Rows => 3,
            Section::Search => 4,
            Section::Checks => 5,
            Section::History => 6,
            Section::Names => 7,
            Section::Repositories => 8,
            Section::Ignores => 9,
        }
    }
}

/// A byte string in a record (a path, a name), borrowed from the file's bytes when read.
/// Serialized as bytes, not as a sequence of numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Raw<'a>(pub &'a [u8]);

impl Serialize for Raw<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_bytes(self.0)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Raw<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        <&'a [u8]>::deserialize(deserializer).map(Raw)
    }
}

/// Appends to a buffer in place, so a failed encoding leaves the buffer to its caller.
struct Sink<'a>(&'a mut Vec<u8>);

impl Extend<u8> for Sink<'_> {
    fn extend<I: IntoIterator<Item = u8>>(&mut self, bytes: I) {
        self.0.extend(bytes);
    }
}

/// Appends the postcard encoding of `value` to `out`; false (and `out` as it was) when it
/// cannot be encoded.
pub(crate) fn encode_into<T: Serialize + ?Sized>(value: &T, out: &mut Vec<u8>) -> bool {
    let before = out.len();
    if postcard::to_extend(value, Sink(out)).is_ok() {
        return true;
    }
    out.truncate(before);
    false
}

/// The postcard encoding of `value`.
pub fn encode<T: Serialize + ?Sized>(value: &T) -> Option<Vec<u8>> {
    postcard::to_allocvec(value).ok()
}

/// The value `bytes` encode, all of them.
pub fn decode<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Option<T> {
    match postcard::take_from_bytes(bytes) {
        Ok((value, [])) => Some(value),
        _ => None,
    }
}

/// The value at the start of `bytes` (a record's leading fields, such as its key).
pub(crate) fn decode_prefix<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Option<T> {
    postcard::take_from_bytes(bytes)
        .ok()
        .map(|(value, _)| value)
}

/// The payload as it is written.
#[derive(Serialize)]
struct PayloadOut<'a> {
    scope: Raw<'a>,
    tables: &'a [Vec<Raw<'a>>],
}

/// The payload as it is read, borrowing the file's bytes.
#[derive(serde::Deserialize)]
struct PayloadIn<'a> {
    #[serde(borrow)]
    scope: Raw<'a>,
    #[serde(borrow)]
    tables: Vec<Vec<Raw<'a>>>,
}

/// Where a byte string lies in the file: start and end offsets.
type ByteSpan = (u32, u32);

/// A cache file as it was read: its bytes, checked, with where its scope and records lie.
#[derive(Default)]
pub struct Loaded {
    bytes: Vec<u8>,
    scope: ByteSpan,
    tables: Vec<Vec<ByteSpan>>,
}

impl std::fmt::Debug for Loaded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loaded")
            .field("bytes", &self.bytes.len())
            .field(
                "tables",
                &self.tables.iter().map(Vec::len).collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl Loaded {
    /// Checks the bytes of a cache file of `section`; `None` for anything else.
    pub fn parse(bytes: Vec<u8>, section: Section) -> Option<Loaded> {
        let header = bytes.get(..HEADER_LEN)?;
        let field = |at: usize, len: usize| header.get(at..at + len);
        let u32_at = |at| Some(u32::from_le_bytes(field(at, 4)?.try_into().ok()?));
        let u64_at = |at| Some(u64::from_le_bytes(field(at, 8)?.try_into().ok()?));
        // Spans are u32 offsets: a larger file is not one this store wrote.
        if field(0, 8)? != MAGIC
            || u32_at(8)? != FORMAT_VERSION
            || u32_at(12)? != section.code()
            || u32::try_from(bytes.len()).is_err()
        {
            return None;
        }
        let payload = &bytes[HEADER_LEN..];
        if u64_at(16)? != payload.len() as u64 || u64_at(24)? != checksum(payload) {
            return None;
        }
        let read: PayloadIn<'_> = decode(payload)?;
        let base = bytes.as_ptr() as usize;
        let span = |raw: Raw<'_>| {
            let start = (raw.0.as_ptr() as usize - base) as u32;
            (start, start + raw.0.len() as u32)
        };
        let scope = span(read.scope);
        let tables = read
            .tables
            .into_iter()
            .map(|table| table.into_iter().map(span).collect())
            .collect();
        Some(Loaded {
            bytes,
            scope,
            tables,
        })
    }

    /// The file at `path`, when it is a valid cache file of `section`.
    pub fn read(path: &Path, section: Section) -> Option<Loaded> {
        Self::parse(file::read(path)?, section)
    }

    /// What the file is for (an encoding, a root), as its section wrote it.
    pub fn scope(&self) -> &[u8] {
        self.at(self.scope)
    }

    fn at(&self, (start, end): ByteSpan) -> &[u8] {
        self.bytes
            .get(start as usize..end as usize)
            .unwrap_or_default()
    }

    /// How many records table `table` holds.
    pub fn len(&self, table: usize) -> usize {
        self.tables.get(table).map_or(0, Vec::len)
    }

    /// Record `number` of table `table`, as stored.
    pub fn record(&self, table: usize, number: usize) -> &[u8] {
        match self.tables.get(table).and_then(|t| t.get(number)) {
            Some(&span) => self.at(span),
            None => &[],
        }
    }

    /// The records of table `table`, in file order.
    pub fn records(&self, table: usize) -> impl Iterator<Item = &[u8]> + '_ {
        self.tables
            .get(table)
            .into_iter()
            .flatten()
            .map(|&span| self.at(span))
    }

    /// The size of the file's bytes (a hint for the next save).
    pub fn size(&self) -> usize {
        self.bytes.len()
    }
}

/// The largest payload a file may hold: one over the cap would be refused when read.
pub(crate) const MAX_PAYLOAD: usize = limits::CACHE_MAX_BYTES as usize - HEADER_LEN;

/// A whole cache file of `section` for `scope` holding `tables` of records.
pub fn frame(section: Section, scope: &[u8], tables: &[Vec<Raw<'_>>]) -> Vec<u8> {
    let size: usize = tables
        .iter()
        .flatten()
        .map(|record| record.0.len() + 5)
        .sum();
    let mut out = Vec::with_capacity(HEADER_LEN + scope.len() + size + 16);
    out.resize(HEADER_LEN, 0);
    let payload = PayloadOut {
        scope: Raw(scope),
        tables,
    };
    if !encode_into(&payload, &mut out) {
        out.truncate(HEADER_LEN);
    }
    let payload_len = (out.len() - HEADER_LEN) as u64;
    let sum = checksum(&out[HEADER_LEN..]);
    out[..8].copy_from_slice(MAGIC);
    out[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    out[12..16].copy_from_slice(&section.code().to_le_bytes());
    out[16..24].copy_from_slice(&payload_len.to_le_bytes());
    out[24..32].copy_from_slice(&sum.to_le_bytes());
    out
}

/// Writes a cache file of `section` atomically over `path`, creating its folder (see
/// [`file::save`]): nothing is written over the size cap. The file is written as it is
/// encoded, so saving costs no copy of its records in memory.
pub fn save(path: &Path, section: Section, scope: &[u8], tables: &[Vec<Raw<'_>>]) -> Result<()> {
    file::save_with(path, |out| write_frame(out, section, scope, tables))
}

/// What [`frame`] makes, written to `out` (a new file) as it is encoded; false when the
/// payload is over the size cap or cannot be encoded (the file is then not kept).
fn write_frame(
    out: &std::fs::File,
    section: Section,
    scope: &[u8],
    tables: &[Vec<Raw<'_>>],
) -> std::io::Result<bool> {
    write_payload(out, section, |sink| {
        let payload = PayloadOut {
            scope: Raw(scope),
            tables,
        };
        postcard::to_extend(&payload, sink).ok()
    })
}

/// Writes a cache file of `section` atomically over `path` as [`save`] does, its
/// records given one at a time by `write` rather than held together: `write` starts
/// each of `tables` tables with [`Tables::table`] and gives its records with
/// [`Tables::record`]. Nothing is written when `write` answers false, when the tables
/// or records given are not as many as announced, or over the size cap.
pub fn save_tables(
    path: &Path,
    section: Section,
    scope: &[u8],
    tables: usize,
    write: impl FnOnce(&mut Tables<'_>) -> bool,
) -> Result<()> {
    file::save_with(path, |out| {
        write_payload(out, section, |sink| {
            let mut writer = Tables {
                sink,
                tables_left: tables,
                records_left: 0,
                scratch: Vec::new(),
            };
            writer.put(&Raw(scope));
            writer.put(&tables);
            let whole = write(&mut writer);
            let Tables {
                sink,
                tables_left,
                records_left,
                ..
            } = writer;
            (whole && tables_left == 0 && records_left == 0).then_some(sink)
        })
    })
}

/// The tables of a cache file being saved by [`save_tables`].
pub struct Tables<'a> {
    sink: FileSink<'a>,
    tables_left: usize,
    records_left: usize,
    scratch: Vec<u8>,
}

impl Tables<'_> {
    /// Starts the next table, of `records` records.
    pub fn table(&mut self, records: usize) {
        if self.tables_left == 0 || self.records_left != 0 {
            // More tables than announced, or a table cut short: the file is not kept.
            self.records_left = usize::MAX;
            return;
        }
        self.tables_left -= 1;
        self.records_left = records;
        self.put(&records);
    }

    /// The next record of the current table, as stored.
    pub fn record(&mut self, bytes: &[u8]) {
        match self.records_left.checked_sub(1) {
            Some(left) if self.records_left != usize::MAX => self.records_left = left,
            // A record past the table's count: the file is not kept.
            _ => self.records_left = usize::MAX,
        }
        self.put(&Raw(bytes));
    }

    /// Appends the postcard encoding of a length or a byte string, as the payload's own
    /// encoding writes it.
    fn put<T: Serialize + ?Sized>(&mut self, value: &T) {
        self.scratch.clear();
        if encode_into(value, &mut self.scratch) {
            self.sink.extend(self.scratch.iter().copied());
        } else {
            self.records_left = usize::MAX;
        }
    }
}

/// Writes a new cache file of `section` to `out`: a blank header, the payload `encode`
/// writes to the sink it is given (it gives the sink back when done, `None` when the
/// payload cannot be encoded), then the header with the payload's length and checksum.
/// False (the file is not to be kept) when the payload is over the size cap or was not
/// encoded.
fn write_payload<'a>(
    mut out: &'a std::fs::File,
    section: Section,
    encode: impl FnOnce(FileSink<'a>) -> Option<FileSink<'a>>,
) -> std::io::Result<bool> {
    use std::io::{Seek, SeekFrom, Write};

    out.write_all(&[0; HEADER_LEN])?;
    let sink = FileSink {
        out,
        buffer: Vec::with_capacity(FileSink::BUFFER),
        checksum: Checksum::default(),
        len: 0,
        failed: None,
    };
    let Some(mut sink) = encode(sink) else {
        return Ok(false);
    };
    sink.drain();
    if let Some(problem) = sink.failed {
        return Err(problem);
    }
    if sink.len > MAX_PAYLOAD as u64 {
        return Ok(false);
    }
    let mut header = [0; HEADER_LEN];
    header[..8].copy_from_slice(MAGIC);
    header[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    header[12..16].copy_from_slice(&section.code().to_le_bytes());
    header[16..24].copy_from_slice(&sink.len.to_le_bytes());
    header[24..32].copy_from_slice(&sink.checksum.finish().to_le_bytes());
    out.seek(SeekFrom::Start(0))?;
    out.write_all(&header)?;
    Ok(true)
}

/// Where postcard writes a payload being saved: through a buffer to the file, summed
/// and counted on the way; past the size cap, nothing more is written (the file will
/// not be kept).
struct FileSink<'a> {
    out: &'a std::fs::File,
    buffer: Vec<u8>,
    checksum: Checksum,
    len: u64,
    failed: Option<std::io::Error>,
}

impl FileSink<'_> {
    const BUFFER: usize = 256 * 1024;

    fn drain(&mut self) {
        use std::io::Write;

        self.checksum.update(&self.buffer);
        self.len += self.buffer.len() as u64;
        if self.failed.is_none()
            && self.len <= MAX_PAYLOAD as u64
            && let Err(problem) = self.out.write_all(&self.buffer)
        {
            self.failed = Some(problem);
        }
        self.buffer.clear();
    }
}

impl Extend<u8> for FileSink<'_> {
    fn extend<I: IntoIterator<Item = u8>>(&mut self, bytes: I) {
        self.buffer.extend(bytes);
        if self.buffer.len() >= Self::BUFFER {
            self.drain();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_reads_back_as_written_and_nothing_else_does() {
        let tables = vec![vec![Raw(b"one"), Raw(b""), Raw(b"three")], vec![Raw(b"x")]];
        let bytes = frame(Section::Rows, b"/root", &tables);
        let loaded = Loaded::parse(bytes.clone(), Section::Rows).unwrap();
        assert_eq!(loaded.scope(), b"/root");
        assert_eq!((loaded.len(0), loaded.len(1), loaded.len(2)), (3, 1, 0));
        assert_eq!(
            loaded.records(0).collect::<Vec<_>>(),
            [&b"one"[..], b"", b"three"]
        );
        assert_eq!(loaded.record(1, 0), b"x");
        assert_eq!(loaded.record(1, 1), b"");
        assert!(Loaded::parse(bytes.clone(), Section::Listing).is_none());
        for cut in [0, 8, HEADER_LEN, bytes.len() - 1] {
            assert!(Loaded::parse(bytes[..cut].to_vec(), Section::Rows).is_none());
        }
        for at in 0..bytes.len() {
            let mut flipped = bytes.clone();
            flipped[at] ^= 0x10;
            assert!(
                Loaded::parse(flipped, Section::Rows).is_none(),
                "byte {at} flipped"
            );
        }
        let longer = [bytes, b"x".to_vec()].concat();
        assert!(Loaded::parse(longer, Section::Rows).is_none());
    }

    #[test]
    fn a_saved_file_holds_the_bytes_frame_makes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cache/rows.bin");
        let big = vec![7u8; FileSink::BUFFER + 3];
        let tables = vec![
            vec![Raw(b"one"), Raw(&big), Raw(b"")],
            vec![],
            vec![Raw(&big[..FileSink::BUFFER - 1])],
        ];
        save(&path, Section::Rows, b"/root", &tables).unwrap();
        let written = std::fs::read(&path).unwrap();
        assert_eq!(written, frame(Section::Rows, b"/root", &tables));
        assert!(Loaded::parse(written, Section::Rows).is_some());
        save(&path, Section::Rows, b"/root", &[]).unwrap();
        assert_eq!(
            std::fs::read(&path).unwrap(),
            frame(Section::Rows, b"/root", &[])
        );
    }

    #[test]
    fn tables_saved_record_by_record_are_the_file_frame_makes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rows.bin");
        let big = vec![3u8; 300];
        let tables = vec![vec![Raw(b"one"), Raw(&big), Raw(b"")], vec![Raw(b"x")]];
        save_tables(&path, Section::Rows, b"/root", 2, |out| {
            for table in &tables {
                out.table(table.len());
                for record in table {
                    out.record(record.0);
                }
            }
            true
        })
        .unwrap();
        let expected = frame(Section::Rows, b"/root", &tables);
        assert_eq!(std::fs::read(&path).unwrap(), expected);
        // Refused, the file stays as it was: a table short of a record, one too many,
        // a table missing, or the writer giving up.
        type Writer<'w> = &'w dyn Fn(&mut Tables<'_>) -> bool;
        let wrong: [(usize, Writer<'_>); 4] = [
            (1, &|out| {
                out.table(2);
                out.record(b"a");
                true
            }),
            (1, &|out| {
                out.table(1);
                out.record(b"a");
                out.record(b"b");
                true
            }),
            (2, &|out| {
                out.table(0);
                true
            }),
            (1, &|out| {
                out.table(0);
                false
            }),
        ];
        for (count, write) in wrong {
            save_tables(&path, Section::Rows, b"/other", count, write).unwrap();
            assert_eq!(std::fs::read(&path).unwrap(), expected);
        }
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temp file left"
        );
    }

    #[test]
    fn records_encode_and_decode_whole_or_by_their_leading_fields() {
        #[derive(Serialize, serde::Deserialize, PartialEq, Debug)]
        struct Record<'a> {
            #[serde(borrow)]
            path: Raw<'a>,
            size: u64,
            time: i128,
        }
        let record = Record {
            path: Raw(b"/a/b.md"),
            size: 7,
            time: -5,
        };
        let mut bytes = b"kept".to_vec();
        assert!(encode_into(&record, &mut bytes));
        assert_eq!(&bytes[..4], b"kept");
        assert_eq!(decode::<Record<'_>>(&bytes[4..]), Some(record));
        assert_eq!(decode_prefix::<Raw<'_>>(&bytes[4..]), Some(Raw(b"/a/b.md")));
        assert_eq!(decode::<Record<'_>>(&bytes[4..bytes.len() - 1]), None);
        assert_eq!(decode::<Raw<'_>>(&bytes[4..]), None, "trailing fields");
    }
}

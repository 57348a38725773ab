//! The listing section of the cache store: one file per root (its scope is the root's path), with two
//! tables: folders (path, the stamp the folder had when it was listed, its entries) and
//! content facts (kind, path, the file version it holds for, the fact as JSON). A
//! folder's path comes first, so opening a file indexes folders by path without decoding
//! their entries.
use std::path::Path;

use serde::{Deserialize, Serialize, Serializer};

use super::entry::{Entry, Kind};
use super::stamp::Stamp;
use crate::cache_store::{Loaded, Raw, Section, decode, decode_prefix, encode_into};
use crate::io::bytes::os_bytes;

/// The table of folders.
pub(crate) const FOLDERS: usize = 0;
/// The table of content facts.
pub(crate) const FACTS: usize = 1;

/// The listing cache of the root whose path is `scope` at `file`, when it is one.
pub fn read(file: &Path, scope: &[u8]) -> Option<Loaded> {
    Loaded::read(file, Section::Listing).filter(|loaded| loaded.scope() == scope)
}

/// A folder as it is read back.
#[derive(Deserialize)]
pub(crate) struct StoredFolder<'a> {
    #[serde(borrow)]
    pub path: Raw<'a>,
    pub stamp: Stamp,
    #[serde(borrow)]
    pub entries: Vec<(Kind, Raw<'a>)>,
}

/// A folder's entries as they are written, straight from the listing.
struct EntriesOut<'a>(&'a [Entry]);

impl Serialize for EntriesOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(
            self.0
                .iter()
                .map(|e| (e.kind, Raw(os_bytes(&e.name).unwrap_or_default()))),
        )
    }
}

#[derive(Serialize)]
struct FolderOut<'a> {
    path: Raw<'a>,
    stamp: &'a Stamp,
    entries: EntriesOut<'a>,
}

/// Appends the record of folder `path` to `out`; false (nothing appended) when it cannot
/// be encoded.
pub(crate) fn write_folder(
    path: &[u8],
    stamp: &Stamp,
    entries: &[Entry],
    out: &mut Vec<u8>,
) -> bool {
    let folder = FolderOut {
        path: Raw(path),
        stamp,
        entries: EntriesOut(entries),
    };
    encode_into(&folder, out)
}

/// The folder these bytes hold.
pub fn folder(bytes: &[u8]) -> Option<StoredFolder<'_>> {
    decode(bytes)
}

/// The path and stamp a folder's record starts with.
pub(crate) fn folder_head(bytes: &[u8]) -> Option<(Raw<'_>, Stamp)> {
    decode_prefix(bytes)
}

/// The path a folder's record starts with.
pub fn folder_path(bytes: &[u8]) -> Option<Raw<'_>> {
    decode_prefix(bytes)
}

/// A content fact, as written and read back.
#[derive(Serialize, Deserialize)]
pub(crate) struct StoredFact<'a> {
    pub kind: &'a str,
    #[serde(borrow)]
    pub path: Raw<'a>,
    pub len: u64,
    pub mtime: i128,
    pub ctime: i128,
    pub json: &'a str,
}

impl StoredFact<'_> {
    /// Appends the record to `out`; false (nothing appended) when it cannot be encoded.
    pub fn write_to(&self, out: &mut Vec<u8>) -> bool {
        encode_into(self, out)
    }
}

/// The fact these bytes hold.
pub fn fact(bytes: &[u8]) -> Option<StoredFact<'_>> {
    decode(bytes)
}

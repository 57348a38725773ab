//! The rows section: one file per root, its scope the root's path and the key of the
//! build and settings the rows were made under. Two tables: the projects discovery found,
//! in its order, each with what its row was derived from and the row itself (when it can
//! be remembered); and one record saying whether discovery's answer may be reused, with
//! the folders it listed outside every project.
use std::path::Path;

use serde::{Deserialize, Serialize, Serializer};

use super::{Loaded, Raw, Section, decode, decode_prefix, encode, encode_into};

/// The table of projects.
pub const PROJECTS: usize = 0;
/// The table holding the one [`Discovery`] record.
pub(crate) const DISCOVERY: usize = 1;

/// What a file for `root` made under `key` is for.
pub fn scope(root: &[u8], key: u64) -> Option<Vec<u8>> {
    encode(&(Raw(root), key))
}

/// The root and key a file's scope names.
pub(crate) fn scope_of(scope: &[u8]) -> Option<(Raw<'_>, u64)> {
    decode(scope)
}

/// The rows file of `section` (rows or checks) at `path`, whatever its scope.
pub fn read(path: &Path, section: Section) -> Option<Loaded> {
    Loaded::read(path, section)
}

/// Paths (relative to the project, or absolute outside it) with the digest of the stamp
/// each had.
pub type Inputs<'a> = Vec<(Raw<'a>, u64)>;

/// One remembered project, as read back.
#[derive(Deserialize)]
pub struct StoredProject<'a> {
    #[serde(borrow)]
    pub path: Raw<'a>,
    pub name: &'a str,
    /// Nanoseconds since the epoch.
    pub last_write: Option<i128>,
    /// Each bank's format id and root.
    #[serde(borrow)]
    pub banks: Vec<(&'a str, Raw<'a>)>,
    /// The project's folders that were listed.
    #[serde(borrow)]
    pub dirs: Inputs<'a>,
    /// The files its row was derived from.
    #[serde(borrow)]
    pub files: Inputs<'a>,
    /// Folders outside the project where its memory may be kept.
    #[serde(borrow)]
    pub outside: Inputs<'a>,
    /// The repository it is in (the marker folder and its state), `None` outside any.
    #[serde(borrow)]
    pub git: Option<(Raw<'a>, u64)>,
    /// The row, when it can be remembered.
    #[serde(borrow)]
    pub row: Option<Raw<'a>>,
}

/// The path a project's record starts with.
pub fn project_path(bytes: &[u8]) -> Option<Raw<'_>> {
    decode_prefix(bytes)
}

/// The project these bytes hold.
pub fn project(bytes: &[u8]) -> Option<StoredProject<'_>> {
    decode(bytes)
}

/// Inputs to be written as [`Inputs`]: pairs of a path and its digest, or the same
/// packed (the paths one after another, with where each ends and its digest).
#[derive(Clone, Copy)]
pub(crate) enum InputsOut<'a> {
    Pairs(&'a [(Vec<u8>, u64)]),
    Packed {
        paths: &'a [u8],
        ends: &'a [(u32, u64)],
    },
}

impl InputsOut<'_> {
    pub const NONE: InputsOut<'static> = InputsOut::Pairs(&[]);
}

impl Serialize for InputsOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match *self {
            InputsOut::Pairs(pairs) => {
                serializer.collect_seq(pairs.iter().map(|(path, digest)| (Raw(path), *digest)))
            }
            InputsOut::Packed { paths, ends } => {
                let mut start = 0;
                serializer.collect_seq(ends.iter().map(|&(end, digest)| {
                    let end = end as usize;
                    let path = paths.get(start..end).unwrap_or_default();
                    start = end;
                    (Raw(path), digest)
                }))
            }
        }
    }
}

/// A project as it is written: the same fields as [`StoredProject`].
#[derive(Serialize)]
struct ProjectOut<'a> {
    path: Raw<'a>,
    name: &'a str,
    last_write: Option<i128>,
    banks: &'a [(&'a str, Raw<'a>)],
    dirs: InputsOut<'a>,
    files: InputsOut<'a>,
    outside: InputsOut<'a>,
    git: Option<(Raw<'a>, u64)>,
    row: Option<Raw<'a>>,
}

/// What a project's record says besides its own fields: its folder, file and outside
/// inputs, its place in git and its row.
pub(crate) struct Derived<'a> {
    pub inputs: [InputsOut<'a>; 3],
    pub git: Option<(&'a [u8], u64)>,
    pub row: Option<&'a [u8]>,
}

/// Appends a project's record to `out`; false (nothing appended) when it cannot be
/// encoded.
pub(crate) fn write_project(
    path: &[u8],
    name: &str,
    last_write: Option<i128>,
    banks: &[(&str, Raw<'_>)],
    derived: Derived<'_>,
    out: &mut Vec<u8>,
) -> bool {
    let [dirs, files, outside] = derived.inputs;
    let record = ProjectOut {
        path: Raw(path),
        name,
        last_write,
        banks,
        dirs,
        files,
        outside,
        git: derived.git.map(|(marker, state)| (Raw(marker), state)),
        row: derived.row.map(Raw),
    };
    encode_into(&record, out)
}

/// Whether discovery's answer may be reused, and the folders it listed outside every
/// project.
#[derive(Deserialize)]
pub struct Discovery<'a> {
    pub trusted: bool,
    #[serde(borrow)]
    pub folders: Inputs<'a>,
}

/// The [`Discovery`] record.
pub(crate) fn write_discovery(trusted: bool, folders: &[(Vec<u8>, u64)]) -> Option<Vec<u8>> {
    encode(&(trusted, InputsOut::Pairs(folders)))
}

/// The discovery record these bytes hold.
pub fn discovery(bytes: &[u8]) -> Option<Discovery<'_>> {
    decode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_inputs_are_written_as_the_same_pairs() {
        let pairs = vec![
            (Vec::new(), 7),
            (b"src/a.rs".to_vec(), u64::MAX),
            (b"b".to_vec(), 0),
        ];
        let ends = [(0, 7), (8, u64::MAX), (9, 0)];
        let packed = InputsOut::Packed {
            paths: b"src/a.rsb",
            ends: &ends,
        };
        let written = encode(&packed);
        assert!(written.is_some());
        assert_eq!(written, encode(&InputsOut::Pairs(&pairs)));
        assert_ne!(written, encode(&InputsOut::NONE));
    }
}

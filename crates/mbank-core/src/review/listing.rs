//! Which paths are memory files and where each sits: the project's bank listing, plus the
//! places a bank keeps memory for paths no longer listed (deleted files).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::formats;
use crate::model::{Bank, Format, Project, Role};
use crate::scan::bank;

/// Where a memory file sits: its bank and, when listed, its index in the bank.
#[derive(Debug, Clone, Copy)]
pub(super) struct FilePlace {
    pub(super) bank: usize,
    pub(super) file: Option<usize>,
    pub(super) role: Role,
    pub(super) format: Format,
}

/// Whether a path that is not in the listing (a deleted file) is where `bank` keeps
/// memory, and with which role.
fn place_unlisted(bank: &Bank, path: &Path) -> Option<Role> {
    let rel = path.strip_prefix(&bank.root).ok()?;
    rel.file_name()?;
    let rules = formats::rules(bank.format);
    rules.keeps(rel).then(|| rules.place(rel).role)
}

pub(super) struct ProjectListing {
    pub(super) banks: Vec<Bank>,
    pub(super) places: HashMap<PathBuf, FilePlace>,
}

impl ProjectListing {
    pub(super) fn new(project: &Project) -> ProjectListing {
        let banks = bank::list_banks(project);
        let mut places = HashMap::new();
        for (b, bank) in banks.iter().enumerate() {
            for (f, file) in bank.files.iter().enumerate() {
                let role = if file.is_virtual() {
                    Role::Other
                } else {
                    file.role
                };
                places.entry(file.path.clone()).or_insert(FilePlace {
                    bank: b,
                    file: (!file.is_virtual()).then_some(f),
                    role,
                    format: bank.format,
                });
            }
        }
        ProjectListing { banks, places }
    }

    pub(super) fn place(&self, path: &Path) -> Option<FilePlace> {
        if let Some(place) = self.places.get(path) {
            return Some(*place);
        }
        self.banks.iter().enumerate().find_map(|(b, bank)| {
            place_unlisted(bank, path).map(|role| FilePlace {
                bank: b,
                file: None,
                role,
                format: bank.format,
            })
        })
    }
}

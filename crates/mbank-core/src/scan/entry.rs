//! What a folder listing says of each of its entries: its name and kind, from the
//! listing itself (no `stat` per name).
use std::ffi::OsString;
use std::fs;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// What a folder listing says an entry is, without following symlinks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Kind {
    Dir,
    File,
    Symlink,
    /// A fifo, socket or device.
    Other,
    /// The platform could not say.
    Unknown,
}

impl Kind {
    #[cfg(any(not(unix), test))]
    pub(super) fn of(file_type: std::io::Result<fs::FileType>) -> Kind {
        match file_type {
            Ok(t) if t.is_dir() => Kind::Dir,
            Ok(t) if t.is_file() => Kind::File,
            Ok(t) if t.is_symlink() => Kind::Symlink,
            Ok(_) => Kind::Other,
            Err(_) => Kind::Unknown,
        }
    }
}

/// One entry of a folder listing.
#[derive(Debug, Clone)]
pub struct Entry {
    pub name: OsString,
    pub kind: Kind,
}

impl Entry {
    /// A real folder, or a symlink to one (the link is resolved only then).
    pub fn is_dir(&self, parent: &Path) -> bool {
        match self.kind {
            Kind::Dir => true,
            Kind::File | Kind::Other => false,
            Kind::Symlink | Kind::Unknown => fs::metadata(parent.join(&self.name))
                .map(|m| m.is_dir())
                .unwrap_or(false),
        }
    }

    pub fn is_symlink(&self) -> bool {
        self.kind == Kind::Symlink
    }
}

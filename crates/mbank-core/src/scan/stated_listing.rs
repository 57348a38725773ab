//! A bank folder's listing with each of its files `stat`ed, relative to the open folder
//! where that saves resolving every file's path from the root.
use std::fs;
use std::io;
use std::path::Path;

use super::entry::{Entry, Kind};
use super::listings::{Entries, Listings};
use super::open_folder::{FileStat, OpenFolder};

impl Listings {
    /// [`Listings::list`], and what a `stat` says of each of its plain files and other
    /// non-folders (`None` for the rest, and for one that vanished), each `stat`ed
    /// relative to the open folder where that saves resolving its path.
    pub(crate) fn list_stating_files(
        &self,
        dir: &Path,
    ) -> io::Result<(Entries, Vec<Option<FileStat>>)> {
        let (entries, open) = self.list_reading(dir)?;
        let stated = |entry: &Entry| matches!(entry.kind, Kind::File | Kind::Other);
        // Opening a folder read earlier costs two calls: worth it from two files on.
        let folder = open.or_else(|| {
            (entries.iter().filter(|e| stated(e)).nth(1).is_some())
                .then(|| OpenFolder::open(dir).ok())
                .flatten()
        });
        let stats = entries
            .iter()
            .map(|entry| {
                if !stated(entry) {
                    return None;
                }
                match &folder {
                    Some(folder) => folder.stat(&entry.name).ok(),
                    None => fs::symlink_metadata(dir.join(&entry.name))
                        .ok()
                        .map(|meta| FileStat::of(&meta)),
                }
            })
            .collect();
        Ok((entries, stats))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_listed_now_or_earlier_states_its_files_as_a_stat_by_path_does() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        for name in ["a.md", "b.md", "c.md"] {
            fs::write(dir.join(name), name).unwrap();
        }
        fs::create_dir(dir.join("sub")).unwrap();
        let listings = Listings::in_memory();
        let by_path = |entries: &Entries| -> Vec<Option<FileStat>> {
            entries
                .iter()
                .map(|e| {
                    (e.kind == Kind::File)
                        .then(|| FileStat::of(&fs::symlink_metadata(dir.join(&e.name)).unwrap()))
                })
                .collect()
        };
        // Read now, through the handle the listing opened.
        let (entries, stats) = listings.list_stating_files(dir).unwrap();
        assert_eq!(stats, by_path(&entries));
        // Listed earlier in the run: the folder is opened again for its three files.
        fs::write(dir.join("b.md"), "longer now").unwrap();
        let (again, stats) = listings.list_stating_files(dir).unwrap();
        assert_eq!(stats, by_path(&again));
        assert_eq!(stats.iter().flatten().count(), 3);
    }
}

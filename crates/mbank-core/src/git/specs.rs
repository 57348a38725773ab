//! Index and tree records, and the pathspecs that ask git about many names at once.
use std::ffi::OsString;

use super::command::path_from_bytes;

/// Above this many files, commands ask git about their folders instead (argument
/// lists stay short) and filter the answer.
pub(super) const MAX_PATHSPECS: usize = 200;
/// Most folder pathspecs one command gets (see `specs_for`).
pub(super) const MAX_FOLDER_SPECS: usize = 1000;

/// Splits an `ls-files -s` / `ls-tree` record at its tab: the fields, and the name.
pub(super) fn split_entry(record: &[u8]) -> Option<(&str, &[u8])> {
    let tab = record.iter().position(|b| *b == b'\t')?;
    let head = std::str::from_utf8(&record[..tab]).ok()?;
    Some((head, &record[tab + 1..]))
}

/// Pathspecs for root-relative `names`: the names themselves, or their folders when
/// there are too many for one command line (and those folders' parents, level by level,
/// while they are still too many; the whole repository at worst). Answers are filtered.
pub(super) fn specs_for(names: &[&[u8]]) -> Vec<OsString> {
    if names.len() <= MAX_PATHSPECS {
        return names
            .iter()
            .map(|n| path_from_bytes(n).into_os_string())
            .collect();
    }
    let parent = |n: &[u8]| -> Vec<u8> {
        n.iter()
            .rposition(|b| *b == b'/')
            .map_or_else(Vec::new, |slash| n[..slash].to_vec())
    };
    let mut folders: Vec<Vec<u8>> = names.iter().map(|n| parent(n)).collect();
    loop {
        folders.sort();
        folders.dedup();
        if folders.iter().any(Vec::is_empty) {
            return vec![OsString::from(".")];
        }
        if folders.len() <= MAX_FOLDER_SPECS {
            return folders
                .iter()
                .map(|f| path_from_bytes(f).into_os_string())
                .collect();
        }
        folders = folders.iter().map(|f| parent(f)).collect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn many_names_become_fewer_folders() {
        let names: Vec<Vec<u8>> = (0..300)
            .map(|i| format!("p{i}/memory-bank/n.md").into_bytes())
            .collect();
        let refs: Vec<&[u8]> = names.iter().map(Vec::as_slice).collect();
        let specs = specs_for(&refs);
        assert_eq!(specs.len(), 300);
        assert!(specs.contains(&OsString::from("p7/memory-bank")));
        let many: Vec<Vec<u8>> = (0..1500)
            .map(|i| format!("p{i}/memory-bank/n.md").into_bytes())
            .collect();
        let refs: Vec<&[u8]> = many.iter().map(Vec::as_slice).collect();
        // 1500 folders, 1500 parents: the whole repository.
        assert_eq!(specs_for(&refs), vec![OsString::from(".")]);
        let nested: Vec<Vec<u8>> = (0..1500)
            .map(|i| format!("apps/p{}/m{i}/n.md", i % 10).into_bytes())
            .collect();
        let refs: Vec<&[u8]> = nested.iter().map(Vec::as_slice).collect();
        assert_eq!(specs_for(&refs).len(), 10);
        let top: Vec<Vec<u8>> = (0..250).map(|i| format!("n{i}.md").into_bytes()).collect();
        let refs: Vec<&[u8]> = top.iter().map(Vec::as_slice).collect();
        assert_eq!(specs_for(&refs), vec![OsString::from(".")]);
    }
}

//! What the search of a repository's tracked files for a memory's names found in each
//! file, remembered between runs: a file with the stamp it had then (inode, size,
//! modification and change times) is not read again, so a check after an edit, a `git
//! add` or a commit reads the files that changed, not every file. Kept per question (the
//! names in their order and the files left out), the newest few per repository; a run
//! asking more questions than that of one repository (a root whose projects share one)
//! remembers no more past them, rather than rewrite the file for each. A file changed
//! within the racy window before the run began is read again next time. Kept in the cache
//! store; deleting the file is always safe.
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use parking_lot::Mutex;
use serde::{Deserialize, Serialize};

use crate::cache_store::{self, Loaded, Raw, Section};
use crate::io::hash_index::{StableHasher, stable_hash};

/// Questions kept per repository, newest first.
const KEPT: usize = 4;

/// What an earlier search found in each file it read whole: the file's stamp digest then,
/// and the indices of the names it holds.
#[derive(Debug, Default)]
pub(crate) struct FoundBefore {
    files: HashMap<Box<str>, (u64, Box<[u32]>)>,
}

impl FoundBefore {
    /// The names `rel` held when it had the stamp whose digest is `digest`.
    pub(crate) fn names_in(&self, rel: &str, digest: u64) -> Option<&[u32]> {
        self.files
            .get(rel)
            .filter(|(known, _)| *known == digest)
            .map(|(_, names)| &names[..])
    }
}

/// A file this search read whole: its path, its stamp's digest and the names it holds.
pub(crate) type FoundNow = (String, u64, Vec<u32>);

/// One question's answer as the cache file keeps it.
#[derive(Serialize, Deserialize)]
struct Record<'a> {
    question: u64,
    #[serde(borrow)]
    files: Vec<(Raw<'a>, u64, Vec<u32>)>,
}

/// Where one repository's searches are remembered (or nowhere).
#[derive(Debug, Default)]
pub(crate) struct NamesMemo {
    file: Option<PathBuf>,
    scope: Vec<u8>,
    /// When the run began, in nanoseconds since the epoch.
    started: i128,
    /// The questions this run asked.
    asked: Mutex<Vec<u64>>,
    /// Held while the file is read and rewritten.
    saving: Mutex<()>,
}

impl NamesMemo {
    /// Remembers nothing: every search reads every file it needs.
    pub(crate) fn off() -> NamesMemo {
        NamesMemo::default()
    }

    /// Remembers the searches of the repository at `root` in `folder` (mbank's cache
    /// folder), for a run that began at `started`.
    pub(crate) fn in_folder(folder: &Path, root: &Path, started: i128) -> NamesMemo {
        let scope = root.as_os_str().as_encoded_bytes().to_vec();
        NamesMemo {
            file: Some(folder.join(format!("names-{:016x}.bin", stable_hash(&scope)))),
            scope,
            started,
            ..NamesMemo::default()
        }
    }

    pub(crate) fn started(&self) -> i128 {
        self.started
    }

    /// The question `names` (in their order) and `skip` make, in one number.
    pub(crate) fn question(names: &[String], skip: &HashSet<String>) -> u64 {
        let mut hasher = StableHasher::default();
        let mut part = |bytes: &[u8]| {
            hasher.write(&(bytes.len() as u64).to_le_bytes());
            hasher.write(bytes);
        };
        for name in names {
            part(name.as_bytes());
        }
        part(b"skip");
        let mut skipped: Vec<&String> = skip.iter().collect();
        skipped.sort();
        for rel in skipped {
            part(rel.as_bytes());
        }
        // How a file is said to hold a name: answers kept under another rule differ.
        part(b"words, prefixes and camel-case parts");
        hasher.finish()
    }

    /// Whether the answer to `question` is remembered in this run: noted as asked, and
    /// true while the run has asked no more than the file keeps.
    pub(crate) fn remembering(&self, question: u64) -> bool {
        if self.file.is_none() {
            return false;
        }
        let mut asked = self.asked.lock();
        if !asked.contains(&question) {
            asked.push(question);
        }
        asked.len() <= KEPT
    }

    /// What was found for `question` before, if anything.
    pub(crate) fn before(&self, question: u64) -> Option<FoundBefore> {
        let loaded = self.loaded()?;
        let record = loaded
            .records(0)
            .filter_map(cache_store::decode::<Record<'_>>)
            .find(|record| record.question == question)?;
        let files = record
            .files
            .into_iter()
            .filter_map(|(rel, digest, names)| {
                let rel = std::str::from_utf8(rel.0).ok()?;
                Some((rel.into(), (digest, names.into_boxed_slice())))
            })
            .collect();
        Some(FoundBefore { files })
    }

    /// Remembers for `question` the files this search read whole (`fresh`) and, for the
    /// files of `searched` it did not read again, what was remembered before.
    pub(crate) fn keep(
        &self,
        question: u64,
        before: Option<FoundBefore>,
        fresh: Vec<FoundNow>,
        searched: &[&String],
    ) {
        let Some(file) = &self.file else {
            return;
        };
        let still: HashSet<&str> = searched.iter().map(|rel| rel.as_str()).collect();
        let earlier = before.unwrap_or_default();
        let mut files: HashMap<&str, (u64, &[u32])> = earlier
            .files
            .iter()
            .filter(|(rel, _)| still.contains(&***rel))
            .map(|(rel, (digest, names))| (&**rel, (*digest, &names[..])))
            .collect();
        let dropped = earlier.files.len() - files.len();
        if fresh.is_empty() && dropped == 0 {
            return;
        }
        for (rel, digest, names) in &fresh {
            files.insert(rel.as_str(), (*digest, names.as_slice()));
        }
        let mut entries: Vec<(Raw<'_>, u64, Vec<u32>)> = files
            .into_iter()
            .map(|(rel, (digest, names))| (Raw(rel.as_bytes()), digest, names.to_vec()))
            .collect();
        entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let Some(record) = cache_store::encode(&Record {
            question,
            files: entries,
        }) else {
            return;
        };
        let _saving = self.saving.lock();
        let old = self.loaded();
        let mut records = vec![Raw(&record[..])];
        if let Some(old) = &old {
            records.extend(
                old.records(0)
                    .filter(|bytes| {
                        cache_store::decode::<Record<'_>>(bytes)
                            .is_some_and(|r| r.question != question)
                    })
                    .take(KEPT - 1)
                    .map(Raw),
            );
        }
        // A cache: failing to keep it costs the reads next time.
        let _ = cache_store::save(file, Section::Names, &self.scope, &[records]);
    }

    fn loaded(&self) -> Option<Loaded> {
        let file = self.file.as_ref()?;
        Loaded::read(file, Section::Names).filter(|loaded| loaded.scope() == self.scope)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn questions_differ_by_the_names_their_order_and_the_files_left_out() {
        let none = HashSet::new();
        let ab = NamesMemo::question(&names(&["a", "b"]), &none);
        assert_eq!(ab, NamesMemo::question(&names(&["a", "b"]), &none));
        assert_ne!(ab, NamesMemo::question(&names(&["b", "a"]), &none));
        assert_ne!(ab, NamesMemo::question(&names(&["ab"]), &none));
        let skip = HashSet::from(["CLAUDE.md".to_string()]);
        assert_ne!(ab, NamesMemo::question(&names(&["a", "b"]), &skip));
    }

    #[test]
    fn answers_are_kept_per_question_and_files_no_longer_searched_are_dropped() {
        let dir = tempfile::tempdir().expect("temp");
        let memo = || NamesMemo::in_folder(dir.path(), Path::new("/repo"), 0);
        let (a, b) = ("a.rs".to_string(), "b.rs".to_string());
        let first = memo();
        assert!(first.remembering(1));
        assert!(first.before(1).is_none());
        first.keep(
            1,
            None,
            vec![(a.clone(), 10, vec![0]), (b.clone(), 20, vec![])],
            &[&a, &b],
        );
        first.keep(2, None, vec![(a.clone(), 10, vec![1])], &[&a]);
        let again = memo();
        let one = again.before(1).expect("kept");
        assert_eq!(one.names_in("a.rs", 10), Some(&[0u32][..]));
        assert_eq!(one.names_in("a.rs", 11), None, "another stamp");
        assert_eq!(one.names_in("b.rs", 20), Some(&[][..]));
        assert_eq!(
            again.before(2).expect("kept").names_in("a.rs", 10),
            Some(&[1u32][..])
        );
        // b.rs is no longer tracked.
        again.keep(1, Some(one), Vec::new(), &[&a]);
        let one = memo().before(1).expect("kept");
        assert_eq!(one.names_in("b.rs", 20), None);
        assert_eq!(one.names_in("a.rs", 10), Some(&[0u32][..]));
        // Another repository's file is not read as this one's.
        let other = NamesMemo::in_folder(dir.path(), Path::new("/other"), 0);
        assert!(other.before(1).is_none());
    }

    #[test]
    fn a_run_asking_more_questions_than_are_kept_remembers_none_past_them() {
        let dir = tempfile::tempdir().expect("temp");
        let memo = NamesMemo::in_folder(dir.path(), Path::new("/repo"), 0);
        for question in 0..KEPT as u64 {
            assert!(memo.remembering(question));
        }
        assert!(memo.remembering(0), "asked again");
        assert!(!memo.remembering(KEPT as u64));
        assert!(!NamesMemo::off().remembering(0));
    }
}

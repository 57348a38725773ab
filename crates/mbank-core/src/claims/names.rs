//! The search of a repository's tracked files for the names its memory claims: each name
//! as a whole word, in any case. Files are read on every core in blocks taken in order,
//! and the search stops once every name is found; what each block read is noted on the
//! caller's thread in block order, as one thread reading them in turn would have.
use std::collections::HashSet;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

use crate::io::reads::{self, Reads};

/// Largest file searched.
pub(super) const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// Extensions never searched: binary or generated data.
const NOT_SEARCHED: &[&str] = &[
    "png", "jpg", "jpeg", "gif", "ico", "webp", "bmp", "pdf", "zip", "gz", "tgz", "xz", "bz2",
    "7z", "jar", "woff", "woff2", "ttf", "otf", "eot", "mp3", "mp4", "wav", "ogg", "webm", "mov",
    "avi", "so", "dylib", "dll", "exe", "bin", "wasm", "pyc", "class", "o", "a", "lock", "lockb",
    "sqlite", "db", "psd", "ai", "sketch", "fig", "map",
];
/// Files a thread takes at a time.
const BLOCK: usize = 64;
/// Fewer files than this are searched on the caller's thread alone.
const PARALLEL_FROM: usize = 4 * BLOCK;
/// Most threads searching at once.
const MOST_THREADS: usize = 8;

/// Which of `names` occur as whole words (any case) in the files `files` (root-relative,
/// under `root`; those in `skip`, the memory itself, left out) or in their paths.
pub(super) fn find_names(
    root: &Path,
    files: &[String],
    names: &[String],
    skip: &HashSet<String>,
) -> HashSet<String> {
    if names.is_empty() {
        return HashSet::new();
    }
    let Ok(matcher) = AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::Standard)
        .build(names)
    else {
        return HashSet::new();
    };
    let hits = Hits::new(names.len());
    hits.search(&matcher, files.join("\n").as_bytes());
    let searched: Vec<&String> = files
        .iter()
        .filter(|rel| !skip.contains(*rel) && searchable(rel))
        .collect();
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .min(MOST_THREADS);
    if threads < 2 || searched.len() < PARALLEL_FROM {
        search_files(root, &searched, &matcher, &hits);
    } else {
        search_on_threads(root, &searched, &matcher, &hits, threads);
    }
    names
        .iter()
        .enumerate()
        .filter(|(i, _)| hits.has(*i))
        .map(|(_, name)| name.clone())
        .collect()
}

/// Which names were found, shared by the threads searching.
struct Hits {
    found: Vec<AtomicBool>,
    count: AtomicUsize,
}

impl Hits {
    fn new(names: usize) -> Hits {
        Hits {
            found: (0..names).map(|_| AtomicBool::new(false)).collect(),
            count: AtomicUsize::new(0),
        }
    }

    fn has(&self, name: usize) -> bool {
        self.found[name].load(Ordering::Relaxed)
    }

    fn all(&self) -> bool {
        self.count.load(Ordering::Relaxed) == self.found.len()
    }

    fn add(&self, name: usize) {
        if !self.found[name].swap(true, Ordering::Relaxed) {
            self.count.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Notes the names `haystack` holds as whole words.
    fn search(&self, matcher: &AhoCorasick, haystack: &[u8]) {
        for m in matcher.find_overlapping_iter(haystack) {
            let name = m.pattern().as_usize();
            if self.has(name) {
                continue;
            }
            let before = m.start().checked_sub(1).map(|i| haystack[i]);
            let after = haystack.get(m.end()).copied();
            if before.is_some_and(is_word_byte) || after.is_some_and(is_word_byte) {
                continue;
            }
            self.add(name);
            if self.all() {
                return;
            }
        }
    }
}

/// Searches `files` in turn on this thread, noting each file read.
fn search_files(root: &Path, files: &[&String], matcher: &AhoCorasick, hits: &Hits) {
    for rel in files {
        if hits.all() {
            return;
        }
        let path = root.join(rel);
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            reads::absent(&path);
            continue;
        };
        if !meta.is_file() {
            // A link or folder becomes a file only by a change to its folder.
            if let Some(folder) = path.parent() {
                reads::folder(folder);
            }
            continue;
        }
        if meta.len() > MAX_FILE_BYTES {
            reads::file_owned(path, &meta);
            continue;
        }
        let read = std::fs::read(&path);
        // Its stamp from before the read: a change while it is read shows next time.
        reads::file_owned(path, &meta);
        let Ok(bytes) = read else {
            reads::unstampable();
            continue;
        };
        hits.search(matcher, &bytes);
    }
}

/// [`search_files`] on `threads` threads, each taking the next block of files; what the
/// blocks read is noted here afterwards, in block order.
fn search_on_threads(
    root: &Path,
    files: &[&String],
    matcher: &AhoCorasick,
    hits: &Hits,
    threads: usize,
) {
    let recording = reads::is_recording();
    let next = AtomicUsize::new(0);
    let work = || {
        let mut noted: Vec<(usize, Reads)> = Vec::new();
        while !hits.all() {
            let start = next.fetch_add(BLOCK, Ordering::Relaxed);
            let Some(block) = files.get(start..files.len().min(start + BLOCK)) else {
                break;
            };
            if recording {
                // Kept apart from this thread's own recording, noted once in order below.
                let ((), read) = reads::unrecorded(|| {
                    reads::recording(|| search_files(root, block, matcher, hits))
                });
                noted.push((start, read));
            } else {
                search_files(root, block, matcher, hits);
            }
        }
        noted
    };
    let (mut noted, lost) = std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
        let mut noted = work();
        let mut lost = false;
        for helper in helpers {
            match helper.join() {
                Ok(more) => noted.extend(more),
                Err(_) => lost = true,
            }
        }
        (noted, lost)
    });
    noted.sort_by_key(|(start, _)| *start);
    for (_, read) in noted {
        reads::replay_owned(read);
    }
    if lost {
        // A thread that failed took what it read with it: nothing vouches for the answer.
        reads::unstampable();
    }
}

fn searchable(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    match name.rsplit_once('.') {
        Some((_, ext)) => !NOT_SEARCHED.contains(&ext.to_ascii_lowercase().as_str()),
        None => true,
    }
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matcher(names: &[String]) -> AhoCorasick {
        AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(names)
            .expect("a matcher")
    }

    fn strings(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn names_match_as_whole_words_in_any_case_even_where_they_overlap() {
        let names = strings(&["Widget", "WidgetService", "widget_id", "Gone"]);
        let hits = Hits::new(names.len());
        hits.search(
            &matcher(&names),
            b"let s = WIDGETSERVICE::new(); s.widget(); // Gone_",
        );
        let found: Vec<bool> = (0..names.len()).map(|i| hits.has(i)).collect();
        assert_eq!(found, [true, true, false, false]);
    }

    #[test]
    fn spellings_that_differ_in_case_are_all_found_and_longer_words_hide_nothing() {
        let names = strings(&["Widget", "WIDGET", "ab", "abc", "Foo::new", "x.y"]);
        let hits = Hits::new(names.len());
        hits.search(&matcher(&names), b"abd abc widget; Foo::new(); x.yz");
        let found: Vec<bool> = (0..names.len()).map(|i| hits.has(i)).collect();
        assert_eq!(found, [true, true, false, true, true, false]);
    }

    /// A folder of `count` files, each naming `Name{i}`; the last names `Last` too.
    fn tree(count: usize) -> (tempfile::TempDir, Vec<String>) {
        let dir = tempfile::tempdir().expect("temp");
        let mut files = Vec::new();
        for i in 0..count {
            let rel = format!("src/m{}/f{i}.rs", i / 50);
            let path = dir.path().join(&rel);
            std::fs::create_dir_all(path.parent().expect("a folder")).expect("mkdir");
            let last = if i + 1 == count { "Last" } else { "" };
            std::fs::write(&path, format!("pub struct Name{i}; {last}\n")).expect("write");
            files.push(rel);
        }
        files.push("src/missing.rs".to_string());
        (dir, files)
    }

    #[test]
    fn threads_find_what_one_thread_finds_and_note_the_same_reads_in_the_same_order() {
        let (dir, files) = tree(700);
        let names = strings(&["Name3", "Name650", "Last", "Absent", "m2"]);
        let matcher = matcher(&names);
        let searched: Vec<&String> = files.iter().collect();
        let run = |threads: usize| {
            let hits = Hits::new(names.len());
            let ((), read) = reads::recording(|| {
                if threads == 1 {
                    search_files(dir.path(), &searched, &matcher, &hits);
                } else {
                    search_on_threads(dir.path(), &searched, &matcher, &hits, threads);
                }
            });
            let found: Vec<bool> = (0..names.len()).map(|i| hits.has(i)).collect();
            let paths: Vec<_> = read.files.iter().map(|f| f.path.clone()).collect();
            (found, paths, read.folders, read.unstampable)
        };
        let alone = run(1);
        // "m2" is only in paths, searched before the files by `find_names`.
        assert_eq!(alone.0, [true, true, true, false, false]);
        assert_eq!(alone.1.len(), 700, "every file read: one name is nowhere");
        assert_eq!(
            alone.2,
            [dir.path().join("src")],
            "the missing file's folder"
        );
        for threads in [2, 3, 8] {
            assert_eq!(run(threads), alone, "{threads} threads");
        }
    }

    #[test]
    fn the_search_stops_once_every_name_is_found() {
        let (dir, files) = tree(700);
        let names = strings(&["Name1", "Name2"]);
        for threads in [1, 4] {
            let hits = Hits::new(names.len());
            let searched: Vec<&String> = files.iter().collect();
            let ((), read) = reads::recording(|| {
                if threads == 1 {
                    search_files(dir.path(), &searched, &matcher(&names), &hits);
                } else {
                    search_on_threads(dir.path(), &searched, &matcher(&names), &hits, threads);
                }
            });
            assert!(hits.all());
            assert!(
                read.files.len() <= threads * BLOCK,
                "{threads} threads read {} files for names in the first three",
                read.files.len()
            );
        }
        let found = find_names(dir.path(), &files, &names, &HashSet::new());
        assert_eq!(found, names.iter().cloned().collect());
    }
}

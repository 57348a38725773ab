//! The search of a repository's tracked files for the names its memory claims: each name
//! as a whole word, in any case. Files are read on every core in blocks taken in order,
//! and the search stops once every name is found; what each block read is noted on the
//! caller's thread in block order, as one thread reading them in turn would have. A file
//! whose names an earlier run found, with the stamp it has now, is not read again (see
//! `names_memo`): it is noted all the same, so the reads a result depends on are those
//! of a search with nothing remembered.
use std::collections::HashSet;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

use super::names_memo::{FoundBefore, FoundNow, NamesMemo};
use crate::io::reads::{self, Reads};
use crate::scan::listings::Stamp;

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
    memo: &NamesMemo,
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
    let hits = Hits::new(names);
    hits.search(&matcher, files.join("\n").as_bytes());
    let searched: Vec<&String> = files
        .iter()
        .filter(|rel| !skip.contains(*rel) && searchable(rel))
        .collect();
    let question = NamesMemo::question(names, skip);
    let remembering = memo.remembering(question);
    let before = remembering.then(|| memo.before(question)).flatten();
    let known = Known {
        before: before.as_ref(),
        remembering,
        started: memo.started(),
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .min(MOST_THREADS);
    let fresh = if threads < 2 || searched.len() < PARALLEL_FROM {
        search_files(root, &searched, &matcher, &hits, &known)
    } else {
        search_on_threads(root, &searched, &matcher, &hits, &known, threads)
    };
    if remembering {
        memo.keep(question, before, fresh, &searched);
    }
    names
        .iter()
        .enumerate()
        .filter(|(i, _)| hits.has(*i))
        .map(|(_, name)| name.clone())
        .collect()
}

/// What a search knows of the files before reading them.
struct Known<'a> {
    /// What an earlier search found in each file.
    before: Option<&'a FoundBefore>,
    /// Whether what each file holds is to be remembered: every name it holds is then
    /// looked for, not only those not found yet.
    remembering: bool,
    /// When the run began: a file changed just before it is not remembered.
    started: i128,
}

/// Which names were found, shared by the threads searching.
struct Hits {
    found: Vec<AtomicBool>,
    count: AtomicUsize,
    /// How each name may sit in a word, and its spelling.
    shapes: Vec<(Shape, Box<[u8]>)>,
}

/// How a name is found in the text around it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// A whole word.
    Word,
    /// A prefix (`STRIPE_`): at the start of a word.
    Prefix,
    /// A name of several camel-case parts (`PriceUpdated`): a whole word, or whole parts
    /// of a longer camel-case word spelled as the name is (`PriceUpdatedEvent`,
    /// `onPriceUpdated`), where the code derives its names from the one the memory gives.
    CamelParts,
}

impl Shape {
    fn of(name: &str) -> Shape {
        if name.ends_with('_') {
            return Shape::Prefix;
        }
        let bytes = name.as_bytes();
        let humps = bytes.windows(2).any(|pair| {
            (pair[0].is_ascii_lowercase() || pair[0].is_ascii_digit())
                && pair[1].is_ascii_uppercase()
        });
        if humps && bytes.iter().all(|b| b.is_ascii_alphanumeric()) {
            Shape::CamelParts
        } else {
            Shape::Word
        }
    }
}

impl Hits {
    fn new(names: &[String]) -> Hits {
        Hits {
            found: names.iter().map(|_| AtomicBool::new(false)).collect(),
            count: AtomicUsize::new(0),
            shapes: names
                .iter()
                .map(|name| (Shape::of(name), name.as_bytes().into()))
                .collect(),
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

    /// Notes every name `haystack` holds as a whole word, and answers their indices.
    fn search_whole(&self, matcher: &AhoCorasick, haystack: &[u8]) -> Vec<u32> {
        let mut held: Vec<u32> = Vec::new();
        for name in whole_words(matcher, haystack, &self.shapes) {
            if !held.contains(&name) {
                held.push(name);
                self.add(name as usize);
            }
        }
        held.sort_unstable();
        held
    }

    /// Notes the names `haystack` holds as whole words, until every name is found.
    fn search(&self, matcher: &AhoCorasick, haystack: &[u8]) {
        for name in whole_words(matcher, haystack, &self.shapes) {
            self.add(name as usize);
            if self.all() {
                return;
            }
        }
    }
}

/// The names (their indices) matched as whole words in `haystack` (or as their
/// [`Shape`] allows), overlapping matches included, as often as they occur.
fn whole_words<'h>(
    matcher: &'h AhoCorasick,
    haystack: &'h [u8],
    shapes: &'h [(Shape, Box<[u8]>)],
) -> impl Iterator<Item = u32> + 'h {
    matcher
        .find_overlapping_iter(haystack)
        .filter(|m| {
            let before = m.start().checked_sub(1).map(|i| haystack[i]);
            let after = haystack.get(m.end()).copied();
            let starts_word = before.is_none_or(|b| !is_word_byte(b));
            let ends_word = after.is_none_or(|b| !is_word_byte(b));
            let (shape, spelling) = &shapes[m.pattern().as_usize()];
            match shape {
                Shape::Word => starts_word && ends_word,
                Shape::Prefix => starts_word,
                Shape::CamelParts if starts_word && ends_word => true,
                Shape::CamelParts => {
                    if haystack[m.range()] != **spelling {
                        return false;
                    }
                    let first = haystack[m.start()];
                    let last = haystack[m.end() - 1];
                    let starts_part = starts_word
                        || (first.is_ascii_uppercase() && before.is_some_and(is_lower_or_digit));
                    let ends_part = ends_word
                        || (is_lower_or_digit(last)
                            && after.is_some_and(|b| b.is_ascii_uppercase()));
                    starts_part && ends_part
                }
            }
        })
        .map(|m| m.pattern().as_u32())
}

fn is_lower_or_digit(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit()
}

/// Searches `files` in turn on this thread, noting each file read (or known from before);
/// answers the files read whole whose names are to be remembered.
fn search_files(
    root: &Path,
    files: &[&String],
    matcher: &AhoCorasick,
    hits: &Hits,
    known: &Known<'_>,
) -> Vec<FoundNow> {
    let mut fresh = Vec::new();
    for rel in files {
        if hits.all() {
            return fresh;
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
        let stamp = Stamp::of(&meta);
        if let (Some(before), Some(stamp)) = (known.before, stamp)
            && let Some(held) = before.names_in(rel, stamp.digest())
        {
            reads::file_owned(path, &meta);
            for &name in held {
                if (name as usize) < hits.found.len() {
                    hits.add(name as usize);
                }
            }
            continue;
        }
        let read = std::fs::read(&path);
        // Its stamp from before the read: a change while it is read shows next time.
        reads::file_owned(path, &meta);
        let Ok(bytes) = read else {
            reads::unstampable();
            continue;
        };
        if !known.remembering {
            hits.search(matcher, &bytes);
            continue;
        }
        let held = hits.search_whole(matcher, &bytes);
        if let Some(stamp) = stamp.filter(|stamp| !stamp.is_racy(known.started)) {
            fresh.push(((*rel).clone(), stamp.digest(), held));
        }
    }
    fresh
}

/// [`search_files`] on `threads` threads, each taking the next block of files; what the
/// blocks read is noted here afterwards, in block order.
fn search_on_threads(
    root: &Path,
    files: &[&String],
    matcher: &AhoCorasick,
    hits: &Hits,
    known: &Known<'_>,
    threads: usize,
) -> Vec<FoundNow> {
    let recording = reads::is_recording();
    let next = AtomicUsize::new(0);
    let work = || {
        let mut noted: Vec<(usize, Reads)> = Vec::new();
        let mut fresh = Vec::new();
        while !hits.all() {
            let start = next.fetch_add(BLOCK, Ordering::Relaxed);
            let Some(block) = files.get(start..files.len().min(start + BLOCK)) else {
                break;
            };
            if recording {
                // Kept apart from this thread's own recording, noted once in order below.
                let (found, read) = reads::unrecorded(|| {
                    reads::recording(|| search_files(root, block, matcher, hits, known))
                });
                noted.push((start, read));
                fresh.extend(found);
            } else {
                fresh.extend(search_files(root, block, matcher, hits, known));
            }
        }
        (noted, fresh)
    };
    let (mut noted, fresh, lost) = std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
        let (mut noted, mut fresh) = work();
        let mut lost = false;
        for helper in helpers {
            match helper.join() {
                Ok((more, found)) => {
                    noted.extend(more);
                    fresh.extend(found);
                }
                Err(_) => lost = true,
            }
        }
        (noted, fresh, lost)
    });
    noted.sort_by_key(|(start, _)| *start);
    for (_, read) in noted {
        reads::replay_owned(read);
    }
    if lost {
        // A thread that failed took what it read with it: nothing vouches for the answer.
        reads::unstampable();
    }
    fresh
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

    const NOTHING_KNOWN: Known<'static> = Known {
        before: None,
        remembering: false,
        started: 0,
    };

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
        let hits = Hits::new(&names);
        hits.search(
            &matcher(&names),
            b"let s = WIDGETSERVICE::new(); s.widget(); // Gone_",
        );
        let found: Vec<bool> = (0..names.len()).map(|i| hits.has(i)).collect();
        assert_eq!(found, [true, true, false, false]);
    }

    #[test]
    fn a_camel_case_name_is_found_as_whole_parts_of_a_longer_word() {
        let names = strings(&[
            "PriceUpdated",
            "OrderPlaced",
            "Widget",
            "userId",
            "TradeDone",
        ]);
        let hits = Hits::new(&names);
        hits.search(
            &matcher(&names),
            b"type PriceUpdatedEventData; onOrderPlaced(); WidgetService; userIdentity; tradedoneX",
        );
        let found: Vec<bool> = (0..names.len()).map(|i| hits.has(i)).collect();
        // One word is no camel-case name; a part must end where the next begins.
        assert_eq!(found, [true, true, false, false, false]);
    }

    #[test]
    fn a_prefix_is_found_at_the_start_of_a_word_only() {
        let names = strings(&["STRIPE_", "ABQPY_", "KEY_"]);
        let hits = Hits::new(&names);
        hits.search(
            &matcher(&names),
            b"os.environ['STRIPE_SECRET_KEY'] MY_ABQPY_DEBUG=1 KEY_",
        );
        let found: Vec<bool> = (0..names.len()).map(|i| hits.has(i)).collect();
        assert_eq!(found, [true, false, true]);
    }

    #[test]
    fn spellings_that_differ_in_case_are_all_found_and_longer_words_hide_nothing() {
        let names = strings(&["Widget", "WIDGET", "ab", "abc", "Foo::new", "x.y"]);
        let hits = Hits::new(&names);
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
            let hits = Hits::new(&names);
            let ((), read) = reads::recording(|| {
                if threads == 1 {
                    search_files(dir.path(), &searched, &matcher, &hits, &NOTHING_KNOWN);
                } else {
                    search_on_threads(
                        dir.path(),
                        &searched,
                        &matcher,
                        &hits,
                        &NOTHING_KNOWN,
                        threads,
                    );
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
        let searched: Vec<&String> = files.iter().collect();
        // One thread reads up to the file holding the last name found, and no further.
        let hits = Hits::new(&names);
        let (_, read) = reads::recording(|| {
            search_files(
                dir.path(),
                &searched,
                &matcher(&names),
                &hits,
                &NOTHING_KNOWN,
            )
        });
        assert!(hits.all());
        assert_eq!(read.files.len(), 3, "f0, then Name1 in f1 and Name2 in f2");
        // Threads start no file once every name is found. How many they have begun before
        // the names turn up depends on the scheduler, so that is not counted.
        for threads in [2, 4] {
            let search = |hits: &Hits| {
                reads::recording(|| {
                    search_on_threads(
                        dir.path(),
                        &searched,
                        &matcher(&names),
                        hits,
                        &NOTHING_KNOWN,
                        threads,
                    )
                })
                .1
            };
            let hits = Hits::new(&names);
            assert!(!search(&hits).files.is_empty());
            assert!(hits.all(), "{threads} threads");
            let found_before = Hits::new(&names);
            (0..names.len()).for_each(|name| found_before.add(name));
            let read = search(&found_before);
            assert!(
                read.files.is_empty(),
                "{threads} threads read {:?}",
                read.files
            );
        }
        let found = find_names(
            dir.path(),
            &files,
            &names,
            &HashSet::new(),
            &NamesMemo::off(),
        );
        assert_eq!(found, names.iter().cloned().collect());
    }

    /// Answers what `find_names` finds and the files it notes, in order.
    fn found_and_read(
        dir: &Path,
        files: &[String],
        names: &[String],
        memo: &NamesMemo,
    ) -> (Vec<String>, Vec<std::path::PathBuf>, bool) {
        let skip = HashSet::from(["CLAUDE.md".to_string()]);
        let (found, read) = reads::recording(|| find_names(dir, files, names, &skip, memo));
        let mut found: Vec<String> = found.into_iter().collect();
        found.sort();
        let paths = read.files.into_iter().map(|f| f.path).collect();
        (found, paths, read.unstampable)
    }

    #[test]
    fn a_search_remembering_what_each_file_held_finds_and_notes_what_a_fresh_one_does() {
        let dir = tempfile::tempdir().expect("temp");
        let cache = tempfile::tempdir().expect("cache");
        let words = [
            "alpha", "Beta", "gamma_x", "Delta", "eps", "zeta", "Eta", "theta",
        ];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move |below: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % below as u64) as usize
        };
        let text = |next: &mut dyn FnMut(usize) -> usize| -> String {
            (0..6)
                .map(|_| words[next(words.len())])
                .collect::<Vec<_>>()
                .join(" ")
        };
        let mut files: Vec<String> = (0..300).map(|i| format!("src/f{i}.rs")).collect();
        files.push("CLAUDE.md".to_string());
        std::fs::create_dir_all(dir.path().join("src")).expect("mkdir");
        for rel in &files {
            std::fs::write(dir.path().join(rel), text(&mut next)).expect("write");
        }
        // "theta" is in the skipped memory alone once the files are rewritten below.
        // "rare{n}" is written in one file at a time, moving as the rounds edit them.
        let names: Vec<String> = ["alpha", "delta", "Eta", "absent", "gamma", "rare1", "rare2"]
            .iter()
            .map(|n| n.to_string())
            .collect();
        let mut rare: Option<String> = None;
        // Started long after every write here: nothing is too new to be remembered.
        let later = crate::scan::listings::time_nanos(
            std::time::SystemTime::now() + std::time::Duration::from_secs(3600),
        );
        let root = dir.path();
        for round in 0..6 {
            let remembered = NamesMemo::in_folder(cache.path(), root, later);
            let with_memo = found_and_read(root, &files, &names, &remembered);
            let fresh = found_and_read(root, &files, &names, &NamesMemo::off());
            assert_eq!(with_memo.0, fresh.0, "round {round}: names found");
            assert!(
                with_memo.1 == fresh.1,
                "round {round}: the files noted differ"
            );
            assert_eq!(with_memo.2, fresh.2, "round {round}");
            assert_eq!(
                with_memo.1.len(),
                300,
                "a name is nowhere: every file is noted"
            );
            let rare_found = with_memo.0.iter().filter(|n| n.starts_with("rare")).count();
            assert_eq!(rare_found, usize::from(round % 3 != 0), "round {round}");
            // The rare name leaves its file (kept as long, so only its times tell), and
            // every third round none is written.
            if let Some(rel) = rare.take() {
                let path = root.join(rel);
                let was = std::fs::read_to_string(&path).expect("read");
                std::fs::write(&path, was.replace("rare", "tame")).expect("edit");
            }
            if round % 3 != 2 {
                let rel = files[next(files.len())].clone();
                let rel = if rel == "CLAUDE.md" {
                    files[0].clone()
                } else {
                    rel
                };
                let path = root.join(&rel);
                let was = std::fs::read_to_string(&path).expect("read");
                let name = format!("rare{}", 1 + next(2));
                std::fs::write(&path, format!("{was} {name}")).expect("edit");
                rare = Some(rel);
            }
            // Edit some files (some to a text of the same length), remove one, add one.
            for _ in 0..1 + next(20) {
                let rel = &files[next(300)];
                let path = root.join(rel);
                let now = std::fs::read_to_string(&path).unwrap_or_default();
                let new = if next(2) == 0 {
                    now.replace("alpha", "omega")
                } else {
                    text(&mut next)
                };
                std::fs::write(&path, new).expect("edit");
            }
            let gone = files.remove(next(299));
            if gone == "CLAUDE.md" || Some(&gone) == rare.as_ref() {
                files.push(gone);
            } else {
                std::fs::remove_file(root.join(&gone)).expect("remove");
            }
            let added = format!("src/new{round}.rs");
            std::fs::write(root.join(&added), "alpha Eta").expect("add");
            files.insert(next(files.len()), added);
        }
        // Every file known and unchanged: none is read again.
        let remembered = NamesMemo::in_folder(cache.path(), root, later);
        let _ = found_and_read(root, &files, &names, &remembered);
        let unread = NamesMemo::in_folder(cache.path(), root, later);
        let question = NamesMemo::question(&names, &HashSet::from(["CLAUDE.md".to_string()]));
        let before = unread.before(question).expect("remembered");
        let known = files
            .iter()
            .filter(|rel| *rel != "CLAUDE.md")
            .filter(|rel| {
                let meta = std::fs::metadata(root.join(rel)).expect("there");
                let digest = Stamp::of(&meta).expect("a stamp").digest();
                before.names_in(rel, digest).is_some()
            })
            .count();
        assert_eq!(known, files.len() - 1);
        // A file written within the racy window before the run is not remembered.
        let now = crate::scan::listings::time_nanos(std::time::SystemTime::now());
        let cache_racy = tempfile::tempdir().expect("cache");
        let racy = NamesMemo::in_folder(cache_racy.path(), root, now);
        let _ = found_and_read(root, &files, &names, &racy);
        let kept = NamesMemo::in_folder(cache_racy.path(), root, now).before(question);
        let added = files
            .iter()
            .find(|rel| rel.starts_with("src/new5"))
            .expect("added");
        let digest = Stamp::of(&std::fs::metadata(root.join(added)).expect("there"))
            .expect("a stamp")
            .digest();
        assert!(kept.is_none_or(|kept| kept.names_in(added, digest).is_none()));
    }
}

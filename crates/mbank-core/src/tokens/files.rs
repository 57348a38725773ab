//! Figures for listed memory files, real or virtual, through the cache. An Infinity
//! memory is a virtual file whose text is its `content` in the store; a batch reads and
//! parses each store once, however many memories it holds.
use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use chrono::NaiveDate;

use super::cache::{FileKey, TokenCache};
use super::{Encoding, TextStats, analyze, measure};
use crate::error::{CoreError, Result};
use crate::formats::infinity;
use crate::formats::infinity::store::ParsedStore;
use crate::io::text;
use crate::model::MemoryFile;
use mbank_tokens::{SPLIT_MIN_BYTES, worker_count};

/// Why a store's memories cannot be read; kept so every memory of the store gets the
/// same error without reading the store again.
enum StoreProblem {
    Read {
        kind: std::io::ErrorKind,
        message: String,
    },
    Parse(String),
}

impl StoreProblem {
    fn from_error(error: CoreError) -> Self {
        match error {
            CoreError::Io { source, .. } => StoreProblem::Read {
                kind: source.kind(),
                message: source.to_string(),
            },
            other => StoreProblem::Parse(other.to_string()),
        }
    }

    fn to_error(&self, store: &Path) -> CoreError {
        match self {
            StoreProblem::Read { kind, message } => {
                CoreError::io(store, std::io::Error::new(*kind, message.clone()))
            }
            StoreProblem::Parse(message) => CoreError::Parse {
                path: store.to_path_buf(),
                message: message.clone(),
            },
        }
    }
}

/// Reads the texts of one batch of files, remembering parsed Infinity stores.
#[derive(Default)]
pub(super) struct StoreBatch<'a> {
    /// The store as parsed while the files were listed, when it was: its memories'
    /// texts are taken from it rather than read and parsed again.
    listed: Option<&'a ParsedStore>,
    stores: HashMap<PathBuf, std::result::Result<StoreTexts<'a>, StoreProblem>>,
}

/// One store's memory texts by id; when ids repeat, the last memory's text stands.
enum StoreTexts<'a> {
    Listed(HashMap<&'a str, &'a str>),
    Read(HashMap<String, String>),
}

impl<'a> StoreBatch<'a> {
    /// A batch whose Infinity memories come from `listed`, the store they were listed
    /// from, parsed then.
    pub(super) fn with_listed(listed: Option<&'a ParsedStore>) -> Self {
        StoreBatch {
            listed,
            stores: HashMap::new(),
        }
    }

    fn load_store(path: &Path) -> std::result::Result<StoreTexts<'a>, StoreProblem> {
        let text = text::read_text(path).map_err(StoreProblem::from_error)?;
        let (store, _schema_issues) = infinity::store::parse_store(&text)
            .map_err(|e| StoreProblem::Parse(format!("{}: {e}", path.display())))?;
        Ok(StoreTexts::Read(
            store
                .memories
                .into_iter()
                .map(|memory| (memory.id, memory.content))
                .collect(),
        ))
    }

    /// The text a file stands for: the file itself, or an Infinity memory's content.
    fn text_of(&mut self, file: &MemoryFile) -> Result<Cow<'_, str>> {
        let Some(memory) = &file.memory else {
            return text::read_text(&file.path).map(Cow::Owned);
        };
        let listed = self.listed;
        let store = self
            .stores
            .entry(file.path.clone())
            .or_insert_with(|| match listed {
                Some(parsed) => Ok(StoreTexts::Listed(
                    parsed
                        .store
                        .memories
                        .iter()
                        .map(|memory| (memory.id.as_str(), memory.content.as_str()))
                        .collect(),
                )),
                None => Self::load_store(&file.path),
            });
        let memories = store.as_ref().map_err(|p| p.to_error(&file.path))?;
        let content = match memories {
            StoreTexts::Listed(texts) => texts.get(memory.id.as_str()).copied(),
            StoreTexts::Read(texts) => texts.get(&memory.id).map(String::as_str),
        };
        content.map(Cow::Borrowed).ok_or_else(|| CoreError::Parse {
            path: file.path.clone(),
            message: format!("memory {:?} is no longer in the store", memory.id),
        })
    }

    /// Reads and measures a file, without the cache.
    pub(super) fn measure(
        &mut self,
        file: &MemoryFile,
        encoding: Encoding,
        detail: Detail,
    ) -> Result<TextStats> {
        let text = self.text_of(file)?;
        Ok(detail.measure(&text, encoding))
    }
}

/// What a batch finds in each text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Detail {
    /// Figures and the dates written (for staleness), judged on the day given: dates after
    /// it are kept apart, for the days they come.
    WithDates(NaiveDate),
    /// Figures alone: looking for dates parses the markdown, which costs more than
    /// counting its tokens.
    Figures,
}

impl Detail {
    fn measure(self, text: &str, encoding: Encoding) -> TextStats {
        match self {
            Detail::WithDates(today) => analyze(text, encoding, today),
            Detail::Figures => measure(text, encoding),
        }
    }

    fn cached(self, cache: &mut TokenCache, file: &MemoryFile) -> Option<TextStats> {
        match self {
            Detail::WithDates(_) => cache.get(&FileKey::of(file)),
            Detail::Figures => cache.get_figures(&FileKey::of(file)),
        }
    }

    fn remember(self, cache: &mut TokenCache, file: &MemoryFile, stats: &TextStats) {
        match self {
            Detail::WithDates(_) => cache.insert(&FileKey::of(file), stats),
            Detail::Figures => cache.insert_figures(&FileKey::of(file), stats),
        }
    }
}

/// Figures of many files, in input order. Cache hits cost no read and never count; the
/// files the cache does not hold are read and counted on worker threads (real files; an
/// Infinity store is parsed once, on the calling thread), and their figures enter the
/// cache on the calling thread at the end. A file that cannot be read gets its own error
/// and the batch goes on. The cache is only used when it is `encoding`'s; call
/// `TokenCache::save` afterwards to keep what was counted. Dates are judged on `today`.
/// `listed_store` is the Infinity store the files were listed from, when the listing
/// parsed it ([`crate::model::Bank::parsed_store`]): their texts are taken from it.
pub fn stats_for_files(
    files: &[MemoryFile],
    listed_store: Option<&ParsedStore>,
    encoding: Encoding,
    cache: &mut TokenCache,
    today: NaiveDate,
) -> Vec<Result<TextStats>> {
    let detail = Detail::WithDates(today);
    stats_for_files_as(files, listed_store, encoding, cache, detail, None)
}

/// [`stats_for_files`] without the dates written in the files, for a caller that shows
/// no staleness (`mbank tokens`): figures the cache holds with or without dates serve,
/// and what is counted here is cached without dates (a caller that needs them counts
/// those files again).
pub(crate) fn figures_for_files(
    files: &[MemoryFile],
    listed_store: Option<&ParsedStore>,
    encoding: Encoding,
    cache: &mut TokenCache,
) -> Vec<Result<TextStats>> {
    stats_for_files_as(files, listed_store, encoding, cache, Detail::Figures, None)
}

/// Figures a real file already has, counted elsewhere (while it was listed); `None` for a
/// file to read and count here.
pub(super) type CountedAhead<'a> = &'a dyn Fn(&MemoryFile) -> Option<Result<TextStats>>;

/// The batch behind [`stats_for_files`] and [`figures_for_files`]; real files that
/// `counted_ahead` has figures for are not read again.
pub(super) fn stats_for_files_as(
    files: &[MemoryFile],
    listed_store: Option<&ParsedStore>,
    encoding: Encoding,
    cache: &mut TokenCache,
    detail: Detail,
    counted_ahead: Option<CountedAhead<'_>>,
) -> Vec<Result<TextStats>> {
    let use_cache = cache.encoding() == encoding;
    let mut results: Vec<Option<Result<TextStats>>> = files
        .iter()
        .map(|file| {
            use_cache
                .then(|| detail.cached(cache, file))
                .flatten()
                .map(Ok)
        })
        .collect();
    let mut batch = StoreBatch::with_listed(listed_store);
    let mut real_misses = Vec::new();
    for (index, file) in files.iter().enumerate() {
        if results[index].is_some() {
            continue;
        }
        if file.is_virtual() {
            results[index] = Some(batch.measure(file, encoding, detail));
        } else if let Some(counted) = counted_ahead.and_then(|counted| counted(file)) {
            results[index] = Some(counted);
        } else {
            real_misses.push(index);
        }
    }
    for (index, measured) in measure_in_parallel(files, &real_misses, encoding, detail) {
        results[index] = Some(measured);
    }
    files
        .iter()
        .zip(results)
        .map(|(file, result)| {
            let measured = result.unwrap_or_else(|| {
                Err(CoreError::Parse {
                    path: file.path.clone(),
                    message: "no figures were computed".into(),
                })
            });
            if use_cache && let Ok(stats) = &measured {
                detail.remember(cache, file, stats);
            }
            measured
        })
        .collect()
}

/// Reads a listed file for counting, as [`text::read_text`] does with one `stat` fewer:
/// the file is opened without blocking (so a FIFO swapped in cannot make the open wait)
/// and judged by its open handle rather than by its path before opening, and the size
/// the handle reports is read in one go. A path that cannot be opened is left to
/// [`text::read_text`], so every error reads exactly as it always has.
pub(super) fn read_listed(path: &Path) -> Result<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;

        let Ok(file) = std::fs::File::options()
            .read(true)
            .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
            .open(path)
        else {
            return text::read_text(path);
        };
        text::decode_text(
            path,
            text::read_opened_once(path, file, text::MAX_READ_BYTES)?,
        )
    }
    #[cfg(not(unix))]
    text::read_text(path)
}

/// Reads and measures one listed real file.
pub(super) fn measure_listed(path: &Path, encoding: Encoding, detail: Detail) -> Result<TextStats> {
    read_listed(path).map(|text| detail.measure(&text, encoding))
}

/// Below this many bytes to count, starting threads costs more than it saves.
pub(super) const PARALLEL_MIN_BYTES: u64 = 256 * 1024;

/// Reads and measures the real files at `indices`, spread over the machine's cores:
/// each worker takes the next file, largest first, so no core idles at the end while
/// another counts a big file. Files big enough to be split are counted one at a time,
/// each cut across the cores by the counter itself.
fn measure_in_parallel(
    files: &[MemoryFile],
    indices: &[usize],
    encoding: Encoding,
    detail: Detail,
) -> Vec<(usize, Result<TextStats>)> {
    let measure_one = |index: usize| (index, measure_listed(&files[index].path, encoding, detail));
    let workers = worker_count();
    let total: u64 = indices.iter().map(|&i| files[i].size).sum();
    if workers < 2 || indices.len() < 2 || total < PARALLEL_MIN_BYTES {
        return indices.iter().map(|&i| measure_one(i)).collect();
    }
    let (large, mut small): (Vec<usize>, Vec<usize>) = indices
        .iter()
        .partition(|&&i| files[i].size >= SPLIT_MIN_BYTES as u64);
    let mut measured: Vec<(usize, Result<TextStats>)> =
        large.into_iter().map(measure_one).collect();
    small.sort_by_key(|&i| std::cmp::Reverse(files[i].size));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let small = &small;
    let next = &next;
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers.min(small.len()))
            .map(|_| {
                scope.spawn(move || {
                    let mut done = Vec::new();
                    loop {
                        let at = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(&index) = small.get(at) else {
                            return done;
                        };
                        done.push(measure_one(index));
                    }
                })
            })
            .collect();
        for handle in handles {
            // A worker that panicked leaves its files without figures: they get an
            // error of their own below rather than taking the batch down.
            if let Ok(done) = handle.join() {
                measured.extend(done);
            }
        }
    });
    measured
}

#[cfg(test)]
pub(crate) mod tests {
    /// The day dates are judged on in these tests.
    pub(crate) fn test_day() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 28).unwrap_or_default()
    }

    use std::time::SystemTime;

    use super::*;
    use crate::model::{LoadKind, Role, VirtualMemory};
    use crate::tokens::count;

    pub(crate) fn real_file(path: &Path) -> MemoryFile {
        let meta = std::fs::metadata(path).ok();
        MemoryFile {
            path: path.to_path_buf(),
            display: path.file_name().unwrap().to_string_lossy().into_owned(),
            role: Role::Other,
            layer: None,
            order: 0,
            group: None,
            load: LoadKind::Startup,
            size: meta.as_ref().map_or(0, |m| m.len()),
            modified: meta.as_ref().and_then(|m| m.modified().ok()),
            changed: meta.as_ref().and_then(crate::io::paths::change_time),
            inode: None,
            memory: None,
            unreadable: None,
        }
    }

    pub(crate) fn virtual_file(store: &Path, id: &str, size: u64) -> MemoryFile {
        let mut file = real_file(store);
        file.display = format!(".infinity/memories.json#{id}");
        file.size = size;
        file.memory = Some(VirtualMemory {
            id: id.to_string(),
            title: id.to_string(),
            kind: "design_doc".into(),
            created_at: None,
            updated_at: None,
        });
        file
    }

    const STORE: &str = r##"{"project_id": "p", "memories": [
  {"id": "m-1", "title": "One", "type": "design_doc", "content": "# One\nfirst memory", "created_at": "2025-01-01T00:00:00Z"},
  {"id": "m-2", "title": "Two", "type": "rules", "content": "second memory, longer than the first one", "created_at": "2025-01-01T00:00:00Z"}
]}"##;

    #[test]
    fn results_follow_input_order_and_errors_do_not_stop_the_batch() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("good.md");
        std::fs::write(&good, "# Good\nhello world\n").unwrap();
        let binary = dir.path().join("binary.md");
        std::fs::write(&binary, b"ab\0cd").unwrap();
        let bad_utf8 = dir.path().join("latin1.md");
        std::fs::write(&bad_utf8, b"caf\xE9\n").unwrap();
        let vanished = real_file(&dir.path().join("gone.md"));
        let store = dir.path().join("memories.json");
        std::fs::write(&store, STORE).unwrap();
        let files = vec![
            real_file(&binary),
            real_file(&good),
            vanished,
            virtual_file(&store, "m-2", 40),
            virtual_file(&store, "m-9", 1),
            real_file(&bad_utf8),
            virtual_file(&store, "m-1", 18),
        ];
        let mut cache = TokenCache::in_memory(Encoding::O200k);
        let results = stats_for_files(&files, None, Encoding::O200k, &mut cache, test_day());
        assert_eq!(results.len(), 7);
        assert!(matches!(results[0], Err(CoreError::Binary { .. })));
        assert_eq!(
            results[1].as_ref().unwrap().loaded_tokens,
            count(Encoding::O200k, "# Good\nhello world\n")
        );
        assert!(matches!(results[2], Err(CoreError::Io { .. })));
        let second = results[3].as_ref().unwrap();
        assert_eq!(second.bytes, 40);
        assert_eq!(
            second.loaded_tokens,
            count(Encoding::O200k, "second memory, longer than the first one")
        );
        match &results[4] {
            Err(CoreError::Parse { message, .. }) => assert!(message.contains("m-9"), "{message}"),
            other => panic!("unexpected {other:?}"),
        }
        assert!(matches!(results[5], Err(CoreError::InvalidUtf8 { .. })));
        assert_eq!(results[6].as_ref().unwrap().lines, 2);
        // Only successes are cached: good.md, m-1, m-2.
        assert_eq!(cache.len(), 3);
    }

    #[test]
    fn memories_listed_from_a_parsed_store_are_counted_from_it_without_reading() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("memories.json");
        std::fs::write(&store, STORE).unwrap();
        let (parsed, issues) = infinity::store::parse_store(STORE).unwrap();
        let listed = ParsedStore {
            store: parsed,
            issues,
        };
        // The store on disk is gone: only the listed parse can give the texts.
        std::fs::remove_file(&store).unwrap();
        let files = vec![
            virtual_file(&store, "m-2", 40),
            virtual_file(&store, "m-9", 1),
            virtual_file(&store, "m-1", 18),
        ];
        let mut cache = TokenCache::in_memory(Encoding::O200k);
        let results = stats_for_files(
            &files,
            Some(&listed),
            Encoding::O200k,
            &mut cache,
            test_day(),
        );
        assert_eq!(
            results[0].as_ref().unwrap().loaded_tokens,
            count(Encoding::O200k, "second memory, longer than the first one")
        );
        match &results[1] {
            Err(CoreError::Parse { message, .. }) => assert!(message.contains("m-9"), "{message}"),
            other => panic!("unexpected {other:?}"),
        }
        assert_eq!(results[2].as_ref().unwrap().lines, 2);
        // Without the parse, the same files need the store on disk.
        let mut cache = TokenCache::in_memory(Encoding::O200k);
        let unlisted = stats_for_files(&files, None, Encoding::O200k, &mut cache, test_day());
        assert!(
            unlisted
                .iter()
                .all(|r| matches!(r, Err(CoreError::Io { .. })))
        );
    }

    #[test]
    fn reading_a_listed_file_gives_what_read_text_gives_errors_included() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, bytes: &[u8]| {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            path
        };
        let mut paths = vec![
            write("plain.md", "# Plain\ncafé 日本語\n".as_bytes()),
            write("empty.md", b""),
            write("bom.md", "\u{feff}# Title\n".as_bytes()),
            write("binary.md", b"ab\0cd"),
            write("latin1.md", b"caf\xE9\n"),
            dir.path().join("vanished.md"),
            dir.path().to_path_buf(),
        ];
        #[cfg(unix)]
        {
            let link = dir.path().join("link.md");
            std::os::unix::fs::symlink(dir.path().join("plain.md"), &link).unwrap();
            paths.push(link);
            let dangling = dir.path().join("dangling.md");
            std::os::unix::fs::symlink(dir.path().join("nothing.md"), &dangling).unwrap();
            paths.push(dangling);
        }
        // A file whose size reads as zero though it holds text.
        let zero_sized = Path::new("/proc/version");
        if zero_sized.is_file() {
            paths.push(zero_sized.to_path_buf());
        }
        for path in &paths {
            let ours = read_listed(path).map_err(|e| e.to_string());
            let theirs = text::read_text(path).map_err(|e| e.to_string());
            assert_eq!(ours, theirs, "{}", path.display());
        }
        if zero_sized.is_file() {
            assert!(!read_listed(zero_sized).unwrap().is_empty());
        }
    }

    #[test]
    fn a_file_read_for_its_figures_is_not_read_again_by_the_same_analysis() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.md");
        std::fs::write(&path, "# Notes\nfirst\n").unwrap();
        let ((counted, validated), reads) = crate::io::reads::recording(|| {
            text::reading_once(|| {
                let counted = read_listed(&path).unwrap();
                // Changed on disk after the count: the analysis goes on with what it read.
                std::fs::write(&path, "# Notes\nsecond, longer\n").unwrap();
                (counted, text::read_text(&path).unwrap())
            })
        });
        assert_eq!(counted, "# Notes\nfirst\n");
        assert_eq!(validated, counted);
        // Noted with the size it had when it was read.
        assert_eq!(reads.files.len(), 1);
        assert_eq!((&reads.files[0].path, reads.files[0].len), (&path, 14));
        // Outside an analysis every read is a read.
        assert_eq!(read_listed(&path).unwrap(), "# Notes\nsecond, longer\n");
        assert_eq!(text::read_text(&path).unwrap(), "# Notes\nsecond, longer\n");
    }

    #[test]
    fn a_broken_store_fails_each_memory_and_is_read_once() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("memories.json");
        std::fs::write(&store, "{\"memories\": [").unwrap();
        let files = vec![virtual_file(&store, "a", 1), virtual_file(&store, "b", 1)];
        let mut batch = StoreBatch::default();
        for file in &files {
            let err = batch
                .measure(file, Encoding::Bytes4, Detail::WithDates(test_day()))
                .unwrap_err();
            assert!(err.to_string().contains("malformed JSON"), "{err}");
        }
        assert_eq!(batch.stores.len(), 1);
    }

    #[test]
    fn second_run_recounts_nothing_and_a_change_recounts_exactly_it() {
        let dir = tempfile::tempdir().unwrap();
        let cache_dir = dir.path().join("cache");
        let paths: Vec<PathBuf> = (0..4)
            .map(|i| dir.path().join(format!("f{i}.md")))
            .collect();
        for (i, path) in paths.iter().enumerate() {
            std::fs::write(path, format!("# File {i}\ntext {i}\n")).unwrap();
        }
        let store = dir.path().join("memories.json");
        std::fs::write(&store, STORE).unwrap();
        let listing = |paths: &[PathBuf]| {
            let mut files: Vec<MemoryFile> = paths.iter().map(|p| real_file(p)).collect();
            files.push(virtual_file(&store, "m-1", 18));
            files
        };

        let mut first = TokenCache::open_at(&cache_dir, Encoding::Cl100k);
        let results = stats_for_files(
            &listing(&paths),
            None,
            Encoding::Cl100k,
            &mut first,
            test_day(),
        );
        assert!(results.iter().all(Result::is_ok));
        assert_eq!((first.hits(), first.misses()), (0, 5));
        first.save().unwrap();

        let mut second = TokenCache::open_at(&cache_dir, Encoding::Cl100k);
        let again = stats_for_files(
            &listing(&paths),
            None,
            Encoding::Cl100k,
            &mut second,
            test_day(),
        );
        assert_eq!((second.hits(), second.misses()), (5, 0));
        let same: Vec<_> = again.into_iter().map(Result::unwrap).collect();
        let before: Vec<_> = results.into_iter().map(Result::unwrap).collect();
        assert_eq!(same, before);
        assert!(!second.is_dirty());

        // Change f2's size, and f3's mtime only (same size, same text).
        std::fs::write(&paths[2], "# File 2\ntext 2 changed\n").unwrap();
        let f3 = std::fs::File::options()
            .write(true)
            .open(&paths[3])
            .unwrap();
        f3.set_modified(SystemTime::now() + std::time::Duration::from_secs(60))
            .unwrap();
        drop(f3);
        let mut third = TokenCache::open_at(&cache_dir, Encoding::Cl100k);
        let results = stats_for_files(
            &listing(&paths),
            None,
            Encoding::Cl100k,
            &mut third,
            test_day(),
        );
        assert_eq!((third.hits(), third.misses()), (3, 2));
        assert_eq!(
            results[2].as_ref().unwrap().loaded_tokens,
            count(Encoding::Cl100k, "# File 2\ntext 2 changed\n")
        );
    }

    #[test]
    fn figures_alone_skip_the_dates_and_a_caller_needing_dates_counts_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("progress.md");
        std::fs::write(&path, "# Progress\nShipped on 2024-05-06.\n").unwrap();
        let files = [real_file(&path)];
        let mut cache = TokenCache::in_memory(Encoding::O200k);

        let figures = figures_for_files(&files, None, Encoding::O200k, &mut cache);
        let figures = figures[0].as_ref().unwrap();
        assert_eq!(figures.dates, Default::default());
        assert_eq!((cache.hits(), cache.misses()), (0, 1));
        // Figures alone come from the cache the second time.
        let again = figures_for_files(&files, None, Encoding::O200k, &mut cache);
        assert_eq!(again[0].as_ref().unwrap(), figures);
        assert_eq!((cache.hits(), cache.misses()), (1, 1));

        // Staleness needs the dates: the file is counted again, and then found with them.
        let full = stats_for_files(&files, None, Encoding::O200k, &mut cache, test_day());
        let full = full[0].as_ref().unwrap();
        assert_eq!((cache.hits(), cache.misses()), (1, 2));
        let written = chrono::NaiveDate::from_ymd_opt(2024, 5, 6);
        assert_eq!(
            full.dates
                .newest_by(chrono::NaiveDate::from_ymd_opt(2026, 1, 1).unwrap()),
            written
        );
        assert_eq!(full.loaded_tokens, figures.loaded_tokens);
        let cached = figures_for_files(&files, None, Encoding::O200k, &mut cache);
        assert_eq!(cached[0].as_ref().unwrap(), full);
        assert_eq!((cache.hits(), cache.misses()), (2, 2));
    }

    #[test]
    fn a_cache_of_another_encoding_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");
        std::fs::write(&path, "abcdefgh").unwrap();
        let mut cache = TokenCache::in_memory(Encoding::O200k);
        let results = stats_for_files(
            &[real_file(&path)],
            None,
            Encoding::Bytes4,
            &mut cache,
            test_day(),
        );
        assert_eq!(results[0].as_ref().unwrap().loaded_tokens, 2);
        assert_eq!(results[0].as_ref().unwrap().encoding, Encoding::Bytes4);
        assert!(cache.is_empty());
        assert_eq!(cache.hits() + cache.misses(), 0);
    }
}

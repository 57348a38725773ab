//! Token counting speed against OpenAI's reference tokenizer (tiktoken-rs), on the same
//! markdown text in the same run (mbank cuts a text this long across the cores, the
//! reference runs on one); the cost of opening a warm token cache
//! of 14,000 entries (the `mbank list` budget over 2,000 projects); and, as whole
//! processes with an empty token cache, `mbank tokens` over a bank of about 9 MB of real
//! markdown and over one small file against programs counting the same files with
//! goliajp's `tiktoken` (one thread, and on every core) and with tiktoken-rs.
//!
//! The text is every markdown file of the corpus (`$MBANK_CORPUS`, else
//! `../shared/corpus`) concatenated, or a generated markdown text when there is no corpus.
//! Counts must be identical; the run stops if they are not.
//!
//!     cargo bench --bench tokens
//!     cargo bench --bench tokens -- --whole-process-only   (MBANK_BENCH_BANK=DIR: another bank)
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use criterion::{Criterion, Throughput};
use mbank::core::tokens::{self, Encoding, FileKey, TextStats, TokenCache};

fn corpus_dir() -> PathBuf {
    std::env::var_os("MBANK_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"))
}

fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            markdown_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "md" || e == "mdc") {
            out.push(path);
        }
    }
}

/// A deterministic markdown text in the shape of real banks, for machines without the corpus.
fn generated_markdown() -> String {
    let words = [
        "the",
        "memory",
        "bank",
        "keeps",
        "context",
        "between",
        "sessions",
        "agent",
        "reads",
        "activeContext.md",
        "progress",
        "decision",
        "we",
        "use",
        "SQLite",
        "because",
        "it's",
        "simple",
        "API",
        "handler",
        "retries",
        "with",
        "backoff",
        "`src/api/handler.rs`",
        "2026-03-14",
        "v1.2.3",
        "TODO",
        "fixed",
        "bug",
        "in",
        "parser",
        "(see",
        "#42)",
    ];
    let mut seed: u64 = 7;
    let mut next = || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) as usize
    };
    let mut text = String::new();
    for section in 0..1_500 {
        text.push_str(&format!("## Section {section}: Decision log\n\n"));
        for _ in 0..4 {
            text.push_str("- **Status**: ");
            for _ in 0..(8 + next() % 14) {
                text.push_str(words[next() % words.len()]);
                text.push(' ');
            }
            text.push('\n');
        }
        text.push_str("\n```rust\nfn main() {\n    println!(\"hello\");\n}\n```\n\n");
    }
    text
}

fn bench_text() -> (String, String) {
    let mut files = Vec::new();
    markdown_files(&corpus_dir(), &mut files);
    files.sort();
    let mut text = String::new();
    for file in &files {
        if let Ok(content) = std::fs::read_to_string(file) {
            text.push_str(&content);
            text.push('\n');
        }
    }
    if text.is_empty() {
        (generated_markdown(), "generated markdown".into())
    } else {
        (text, format!("{} corpus markdown files", files.len()))
    }
}

fn reference(encoding: Encoding) -> &'static tiktoken_rs::CoreBPE {
    match encoding {
        Encoding::Cl100k => tiktoken_rs::cl100k_base_singleton(),
        _ => tiktoken_rs::o200k_base_singleton(),
    }
}

fn reference_count(encoding: Encoding, text: &str) -> usize {
    reference(encoding).encode_ordinary(text).len()
}

/// Counts on a new thread: its piece memo starts empty (the worst case for mbank).
fn cold_memo_count(encoding: Encoding, text: &str) -> usize {
    std::thread::scope(|scope| {
        scope
            .spawn(|| tokens::count(encoding, text))
            .join()
            .unwrap_or(0)
    })
}

/// Times counting `second` on a new thread that has first counted `first`: the memo
/// then holds what earlier files taught it, as in a long-lived counter, but not this
/// text's own pieces.
fn after_other_text(encoding: Encoding, first: &str, second: &str) -> Duration {
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                black_box(tokens::count(encoding, black_box(first)));
                let start = Instant::now();
                black_box(tokens::count(encoding, black_box(second)));
                start.elapsed()
            })
            .join()
            .unwrap_or_default()
    })
}

/// The text cut in two at the line break nearest its middle.
fn halves(text: &str) -> (&str, &str) {
    let mut middle = text.len() / 2;
    while !text.is_char_boundary(middle) {
        middle -= 1;
    }
    let cut = text[middle..]
        .find('\n')
        .map_or(middle, |at| middle + at + 1);
    text.split_at(cut)
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// Medians of interleaved runs, so both sides see the same machine load. Three ways to
/// meet the text: counted again (every piece in the thread's memo: a recount after an
/// edit), after other text (the second half of the text on a thread that has counted
/// the first half), and cold (a new thread, empty memo).
fn ratio_report(text: &str, encoding: Encoding) {
    const RUNS: usize = 15;
    let (first, second) = halves(text);
    let mut ours = Vec::new();
    let mut ours_cold = Vec::new();
    let mut theirs = Vec::new();
    let mut ours_second = Vec::new();
    let mut theirs_second = Vec::new();
    for _ in 0..RUNS {
        ours_second.push(after_other_text(encoding, first, second));
        let start = Instant::now();
        black_box(reference_count(encoding, black_box(second)));
        theirs_second.push(start.elapsed());
        let start = Instant::now();
        black_box(tokens::count(encoding, black_box(text)));
        ours.push(start.elapsed());
        let start = Instant::now();
        black_box(cold_memo_count(encoding, black_box(text)));
        ours_cold.push(start.elapsed());
        let start = Instant::now();
        black_box(reference_count(encoding, black_box(text)));
        theirs.push(start.elapsed());
    }
    let (ours, ours_cold, theirs) = (median(ours), median(ours_cold), median(theirs));
    let (ours_second, theirs_second) = (median(ours_second), median(theirs_second));
    let mib = text.len() as f64 / (1024.0 * 1024.0);
    println!(
        "{:<12} tiktoken-rs encode_ordinary {:>9.2?} ({:>5.1} MiB/s) | mbank counted again {:>9.2?} ({:>6.1} MiB/s) ratio {:.1}x | cold {:>9.2?} ratio {:.1}x",
        encoding.id(),
        theirs,
        mib / theirs.as_secs_f64(),
        ours,
        mib / ours.as_secs_f64(),
        theirs.as_secs_f64() / ours.as_secs_f64(),
        ours_cold,
        theirs.as_secs_f64() / ours_cold.as_secs_f64(),
    );
    println!(
        "{:<12} second half ({} bytes): tiktoken-rs {:>9.2?} | mbank after the first half {:>9.2?} ratio {:.1}x",
        "",
        second.len(),
        theirs_second,
        ours_second,
        theirs_second.as_secs_f64() / ours_second.as_secs_f64(),
    );
}

fn bench_counting(criterion: &mut Criterion, text: &str) {
    for encoding in [Encoding::O200k, Encoding::Cl100k] {
        let ours = tokens::count(encoding, text);
        let theirs = reference_count(encoding, text);
        assert_eq!(ours, theirs, "{encoding}: counts differ");
        println!("{encoding}: {ours} tokens, identical to tiktoken-rs");

        let mut group = criterion.benchmark_group(format!("count/{}", encoding.id()));
        group
            .throughput(Throughput::Bytes(text.len() as u64))
            .sample_size(20)
            .measurement_time(Duration::from_secs(6));
        group.bench_function("mbank", |b| {
            b.iter(|| tokens::count(encoding, black_box(text)))
        });
        group.bench_function("mbank_cold_memo", |b| {
            b.iter(|| cold_memo_count(encoding, black_box(text)))
        });
        group.bench_function("tiktoken_encode_ordinary", |b| {
            b.iter(|| reference_count(encoding, black_box(text)))
        });
        group.finish();
    }
}

/// Opening a cache of 14,000 entries and looking each one up: the warm-start path.
fn bench_cache(criterion: &mut Criterion) {
    let Ok(dir) = tempfile::tempdir() else {
        return;
    };
    let paths: Vec<PathBuf> = (0..14_000)
        .map(|i| {
            PathBuf::from(format!(
                "/home/someone/memory-banks/project-{:04}/memory-bank/activeContext{}.md",
                i / 7,
                i % 7
            ))
        })
        .collect();
    let stamp = |i: usize| {
        SystemTime::UNIX_EPOCH + Duration::from_nanos(1_700_000_000_000_000_000 + i as u64)
    };
    let key = |i: usize| FileKey {
        path: &paths[i],
        memory_id: None,
        size: 1_000 + i as u64,
        modified: Some(stamp(i)),
        changed: Some(stamp(i)),
    };
    let mut cache = TokenCache::open_at(dir.path(), Encoding::O200k);
    for i in 0..paths.len() {
        let stats = TextStats {
            bytes: 1_000,
            lines: 30,
            chars: 990,
            loaded_tokens: 250 + i,
            private_tokens: 0,
            private_blocks: 0,
            private_file: false,
            encoding: Encoding::O200k,
            dates: Default::default(),
        };
        cache.insert(&key(i), &stats);
    }
    if cache.save().is_err() {
        return;
    }
    let size = cache
        .file()
        .and_then(|f| std::fs::metadata(f).ok())
        .map_or(0, |m| m.len());
    println!("cache file of 14,000 entries: {size} bytes");
    criterion.bench_function("cache/open_and_lookup_14k", |b| {
        b.iter(|| {
            let mut cache = TokenCache::open_at(dir.path(), Encoding::O200k);
            let hits = (0..paths.len())
                .filter(|&i| cache.get(&key(i)).is_some())
                .count();
            assert_eq!(hits, paths.len());
        })
    });
}

// ---- Whole process, cold: `mbank tokens` against the peers as programs -------------
//
// The peers run as this same bench binary started again with `MBANK_TOKENS_PEER` set:
// it reads the files it is given, counts each with the peer's own API and prints the
// total. Every run is a new process (start-up, table loading, reading, counting), the
// runs of mbank and of each peer alternate, and mbank's token cache is emptied before
// each of its runs.

/// The peers, by the name `MBANK_TOKENS_PEER` takes.
const PEERS: [&str; 3] = ["tiktoken", "tiktoken-threads", "tiktoken-rs"];

/// Peer mode: `MBANK_TOKENS_PEER=NAME bench ENCODING FILE...` prints the total count.
fn run_peer(peer: &str) -> ! {
    let mut args = std::env::args().skip(1);
    let encoding = args.next().unwrap_or_default();
    let files: Vec<PathBuf> = args.map(PathBuf::from).collect();
    let read = |path: &PathBuf| -> String {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        // mbank counts a file without its byte-order mark; so must the peer.
        match text.strip_prefix('\u{feff}') {
            Some(rest) => rest.to_string(),
            None => text,
        }
    };
    let total: usize = match peer {
        "tiktoken" | "tiktoken-threads" => {
            let Some(bpe) = tiktoken::get_encoding(&encoding) else {
                std::process::exit(2)
            };
            if peer == "tiktoken" {
                files.iter().map(|f| bpe.count(&read(f))).sum()
            } else {
                // The same API on every core, files handed out in turn.
                let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
                let next = std::sync::atomic::AtomicUsize::new(0);
                std::thread::scope(|scope| {
                    let handles: Vec<_> = (0..workers)
                        .map(|_| {
                            scope.spawn(|| {
                                let mut sum = 0;
                                loop {
                                    let at =
                                        next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                                    let Some(file) = files.get(at) else {
                                        return sum;
                                    };
                                    sum += bpe.count(&read(file));
                                }
                            })
                        })
                        .collect();
                    handles.into_iter().map(|h| h.join().unwrap_or(0)).sum()
                })
            }
        }
        "tiktoken-rs" => {
            let bpe = match encoding.as_str() {
                "cl100k_base" => tiktoken_rs::cl100k_base(),
                _ => tiktoken_rs::o200k_base(),
            };
            let Ok(bpe) = bpe else { std::process::exit(2) };
            files
                .iter()
                .map(|f| bpe.encode_ordinary(&read(f)).len())
                .sum()
        }
        _ => std::process::exit(2),
    };
    println!("{total}");
    std::process::exit(0)
}

/// A bank of real markdown for the whole-process runs: `MBANK_BENCH_BANK` when set, else
/// every markdown file of the corpus copied three times (about 9 MB) into a temporary
/// project's `memory-bank/`.
fn bench_bank(scratch: &Path) -> Option<PathBuf> {
    if let Some(bank) = std::env::var_os("MBANK_BENCH_BANK") {
        return Some(PathBuf::from(bank));
    }
    let mut files = Vec::new();
    markdown_files(&corpus_dir(), &mut files);
    files.sort();
    if files.is_empty() {
        return None;
    }
    let project = scratch.join("bank");
    let corpus = corpus_dir();
    for copy in ["a", "b", "c"] {
        let folder = project.join("memory-bank").join(copy);
        std::fs::create_dir_all(&folder).ok()?;
        for file in &files {
            let name = file
                .strip_prefix(&corpus)
                .unwrap_or(file)
                .to_string_lossy()
                .replace('/', "__")
                .replace(".mdc", ".md");
            std::fs::copy(file, folder.join(name)).ok()?;
        }
    }
    Some(project)
}

/// The total mbank counts (loaded and private) from `mbank tokens --json` output.
fn mbank_total(json: &[u8]) -> Option<u64> {
    let value: serde_json::Value = serde_json::from_slice(json).ok()?;
    let totals = value.get("totals")?;
    Some(
        totals.get("loaded_tokens")?.as_u64()?
            + totals.get("private_tokens")?.as_u64()?
            + totals.get("not_loaded_tokens")?.as_u64()?,
    )
}

struct Runner {
    name: String,
    command: std::process::Command,
    /// Emptied before every run (mbank's token cache).
    cache: Option<PathBuf>,
    samples: Vec<Duration>,
}

impl Runner {
    fn run(&mut self, capture: bool) -> Option<Vec<u8>> {
        if let Some(cache) = &self.cache {
            let _ = std::fs::remove_dir_all(cache);
        }
        self.command.stdout(if capture {
            std::process::Stdio::piped()
        } else {
            std::process::Stdio::null()
        });
        let start = Instant::now();
        let output = self.command.output().ok()?;
        let elapsed = start.elapsed();
        if !output.status.success() {
            eprintln!(
                "{} failed: {}",
                self.name,
                String::from_utf8_lossy(&output.stderr)
            );
            return None;
        }
        if !capture {
            self.samples.push(elapsed);
        }
        Some(output.stdout)
    }
}

/// Runs `mbank tokens TARGET` and each peer over the same files, alternating, `runs`
/// times; checks the totals are identical, then prints medians and ratios.
fn whole_process_report(title: &str, target: &Path, files: &[PathBuf], runs: usize) {
    let Ok(scratch) = tempfile::tempdir() else {
        return;
    };
    let cache = scratch.path().join("cache");
    let me = std::env::current_exe().unwrap_or_default();
    let mut runners = Vec::new();
    let mut mbank = std::process::Command::new(env!("CARGO_BIN_EXE_mbank"));
    mbank
        .args(["tokens", "--json"])
        .arg(target)
        .env("MBANK_CACHE_DIR", &cache)
        .env("MBANK_CONFIG_DIR", scratch.path().join("config"));
    runners.push(Runner {
        name: "mbank tokens".into(),
        command: mbank,
        cache: Some(cache.clone()),
        samples: Vec::new(),
    });
    for peer in PEERS {
        let mut command = std::process::Command::new(&me);
        command
            .env("MBANK_TOKENS_PEER", peer)
            .arg("o200k_base")
            .args(files);
        runners.push(Runner {
            name: peer.into(),
            command,
            cache: None,
            samples: Vec::new(),
        });
    }
    // Identical totals first (this also warms the OS's file cache).
    let mut totals = Vec::new();
    for runner in &mut runners {
        let Some(out) = runner.run(true) else { return };
        let total = if runner.cache.is_some() {
            mbank_total(&out)
        } else {
            String::from_utf8_lossy(&out).trim().parse().ok()
        };
        totals.push(total);
    }
    assert!(
        totals.iter().all(|t| t.is_some() && *t == totals[0]),
        "{title}: totals differ: {totals:?}"
    );
    for _ in 0..runs {
        for runner in &mut runners {
            runner.run(false);
        }
    }
    let ours = median(runners[0].samples.clone());
    println!(
        "{title}: {} files, {} tokens (o200k_base), identical; medians of {runs} alternating runs, whole process",
        files.len(),
        totals[0].unwrap_or(0)
    );
    println!("  {:<22} {:>10.2?}", runners[0].name, ours);
    for runner in &runners[1..] {
        let theirs = median(runner.samples.clone());
        println!(
            "  {:<22} {:>10.2?}  mbank is {:.1}x faster",
            runner.name,
            theirs,
            theirs.as_secs_f64() / ours.as_secs_f64()
        );
    }
}

fn whole_process(runs: usize) {
    let Ok(scratch) = tempfile::tempdir() else {
        return;
    };
    let Some(bank) = bench_bank(scratch.path()) else {
        println!("whole-process runs skipped: no corpus");
        return;
    };
    let mut files = Vec::new();
    markdown_files(&bank, &mut files);
    files.sort();
    let bytes: u64 = files
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum();
    println!(
        "\nbank {} ({} files, {bytes} bytes)",
        bank.display(),
        files.len()
    );
    whole_process_report("cold bulk count of a bank", &bank, &files, runs);
    // One small file: the activeContext.md closest to 4 KB.
    let small = files
        .iter()
        .filter_map(|f| Some((f, std::fs::metadata(f).ok()?.len())))
        .min_by_key(|(_, len)| len.abs_diff(4096))
        .map(|(f, _)| f.clone());
    if let Some(small) = small {
        whole_process_report(
            "one small file, cold",
            &small,
            std::slice::from_ref(&small),
            runs * 2,
        );
    }
}

fn main() {
    if let Ok(peer) = std::env::var("MBANK_TOKENS_PEER") {
        run_peer(&peer);
    }
    // `-- --whole-process-only` skips the in-process benchmarks.
    if std::env::args().any(|a| a == "--whole-process-only") {
        whole_process(WHOLE_PROCESS_RUNS);
        return;
    }
    let (text, source) = bench_text();
    println!("bench text: {source}, {} bytes", text.len());
    let mut criterion = Criterion::default().configure_from_args();
    bench_counting(&mut criterion, &text);
    bench_cache(&mut criterion);
    criterion.final_summary();
    println!(
        "\nMedians of 15 interleaved runs, same text (mbank on every core, the reference on one):"
    );
    for encoding in [Encoding::O200k, Encoding::Cl100k] {
        ratio_report(&text, encoding);
    }
    whole_process(WHOLE_PROCESS_RUNS);
}

/// Alternating runs of each program in the whole-process comparisons: the peer on
/// every core swings by a quarter from run to run on a shared machine, so its median
/// needs more than a handful.
const WHOLE_PROCESS_RUNS: usize = 31;

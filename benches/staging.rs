//! Staged writes and history on a 10 KB memory file, through the core's write path (the
//! one the servers call), each case timed write by write:
//! - direct: `memory_bank_update` written straight to the file, history off (the peer);
//! - direct + history: the same with the per-file history on (every write records the
//!   text it replaces; every text distinct, so each one stores a new version), the two
//!   alternating write by write, each on its own 10 KB file of the same folder: with one
//!   file, every recorded write would replace the text of an unrecorded one, which no
//!   real sequence of writes does (the history takes the hash of the text a write
//!   replaces from the write that made it);
//! - staged: the write stored as a proposal (the store near its pending bound);
//! - accept: a staged proposal accepted through the guarded write path (history on).
//!
//! Targets: staged and accept p50 ≤ 2 ms; history adds ≤ 10 % to the direct p50.
//! `log_decision` throughput with history on is `cargo bench --bench serve_append`.
//!
//!     cargo bench --bench staging [-- WRITES]   (MBANK_BENCH_DIR=DIR: where the files go)
use std::path::Path;
use std::time::{Duration, Instant};

use mbank::core::agent::bank::{MarkdownBank, WriteMode};
use mbank::core::agent::proposals::{MAX_PENDING, ProposalStore};
use mbank::core::history::{History, Retention};
use mbank::core::write::WriteContext;

fn ten_kb() -> String {
    let mut text = String::from("# Active Context\n\n## Current Focus\n");
    let mut i = 0;
    while text.len() < 10 * 1024 {
        text.push_str(&format!(
            "- item {i}: the login form validates e-mail addresses before sending\n"
        ));
        i += 1;
    }
    text
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn p90(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() * 9 / 10]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

/// Times `writes` direct updates of `file`, each with distinct content.
fn direct(
    ctx: &WriteContext,
    bank: &MarkdownBank,
    file: &str,
    base: &str,
    writes: usize,
    tag: &str,
) -> Vec<Duration> {
    (0..writes)
        .map(|i| {
            let content = format!("{base}- {tag} {i}\n");
            let started = Instant::now();
            bank.write(ctx, file, &content, WriteMode::Update, None)
                .unwrap();
            started.elapsed()
        })
        .collect()
}

fn report(name: &str, samples: &[Duration]) -> Duration {
    let p50 = median(samples.to_vec());
    println!(
        "{name:<24} p50 {:>10}  p90 {:>10}  ({} writes)",
        ms(p50),
        ms(p90(samples.to_vec())),
        samples.len()
    );
    p50
}

fn main() {
    let writes: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(300)
        .clamp(20, 5000);
    // MBANK_BENCH_DIR=/dev/shm measures mbank's own work without the disk's flushes.
    let dir = match std::env::var_os("MBANK_BENCH_DIR") {
        Some(parent) => tempfile::tempdir_in(parent).unwrap(),
        None => tempfile::tempdir().unwrap(),
    };
    let project = dir.path().join("bench");
    mbank::core::init::init_bank(&project, mbank::core::init::InitFormat::Cline, None).unwrap();
    let active = project.join("memory-bank/activeContext.md");
    let base = ten_kb();
    std::fs::write(&active, &base).unwrap();
    // The unrecorded writes' file, beside it.
    let plain_file = "productContext.md";
    std::fs::write(project.join("memory-bank").join(plain_file), &base).unwrap();
    let data = dir.path().join("data");
    let bank = MarkdownBank::open(&project).unwrap();

    // History on; direct writes alternate between unrecorded and recorded, so both
    // sample sets see the same disk and the same neighbours.
    let clock = mbank::core::clock::Clock::system();
    let unrecorded = WriteContext::new("mcp:memory_bank_update", clock);
    let recorded =
        unrecorded
            .clone()
            .with_history(Some(History::new(&data, Retention::default(), clock)));
    direct(&recorded, &bank, "activeContext.md", &base, 30, "warm");
    direct(&unrecorded, &bank, plain_file, &base, 30, "warm");
    let (mut plain, mut with_history) = (Vec::new(), Vec::new());
    for i in 0..writes {
        plain.extend(direct(
            &unrecorded,
            &bank,
            plain_file,
            &base,
            1,
            &format!("plain {i}"),
        ));
        with_history.extend(direct(
            &recorded,
            &bank,
            "activeContext.md",
            &base,
            1,
            &format!("history {i}"),
        ));
    }

    // Staged: as many as the store holds (the bound), each write timed.
    let store = ProposalStore::new(&data);
    let staged_bank = MarkdownBank::open(&project)
        .unwrap()
        .with_staging(Some(store.clone()));
    let policy = recorded.clone();
    let staged_writes = writes.min(MAX_PENDING);
    let staged: Vec<Duration> = (0..staged_writes)
        .map(|i| {
            let content = format!("{base}- staged {i}\n");
            let started = Instant::now();
            staged_bank
                .write(
                    &policy,
                    "activeContext.md",
                    &content,
                    WriteMode::Update,
                    None,
                )
                .unwrap();
            started.elapsed()
        })
        .collect();
    for proposal in store.list().unwrap() {
        store.reject(proposal.id).unwrap();
    }

    // Accept: stage one (untimed), accept it (timed).
    let accepted: Vec<Duration> = (0..writes.min(MAX_PENDING))
        .map(|i| {
            let content = format!("{base}- accepted {i}\n");
            let id = staged_bank
                .write(
                    &policy,
                    "activeContext.md",
                    &content,
                    WriteMode::Update,
                    None,
                )
                .unwrap()
                .proposal
                .unwrap();
            let started = Instant::now();
            store.accept(&policy, dir.path(), id, None).unwrap();
            started.elapsed()
        })
        .collect();
    assert!(
        std::fs::read_to_string(&active)
            .unwrap()
            .ends_with(&format!("- accepted {}\n", writes.min(MAX_PENDING) - 1))
    );

    println!(
        "10 KB file in {}",
        dir.path().parent().unwrap_or(Path::new("/")).display()
    );
    let plain_p50 = report("direct (peer)", &plain);
    let history_p50 = report("direct + history", &with_history);
    let staged_p50 = report("staged write", &staged);
    let accept_p50 = report("accept", &accepted);
    let overhead = history_p50.as_secs_f64() / plain_p50.as_secs_f64() - 1.0;
    println!(
        "history adds {:+.1} % to the direct p50 (target ≤ 10 %); staged {} and accept {} (target ≤ 2 ms each)",
        overhead * 100.0,
        ms(staged_p50),
        ms(accept_p50)
    );
}

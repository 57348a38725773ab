//! Search on a generated root (`benches/gen_root.sh`, 2,000 projects by default), in
//! process, through the core the CLI and the servers call:
//! - cold build: every project read and the index written to its cache folder;
//! - warm open: the index read back and checked against every project's stamp;
//! - queries: p50 and p95 over a fixed set of questions, the index in memory;
//! - one file changed: the index brought up to date (the project's banks listed again and
//!   the change segment written), p50 and p95 over 20 edits of different files;
//! - the index's size on disk and the process's peak RSS.
//!
//! Targets: query p95 ≤ 30 ms; one file's update ≤ 50 ms.
//!
//!     cargo bench --bench search [-- N_PROJECTS]
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use mbank::core::model::{Bank, Project};
use mbank::core::scan::bank::list_banks;
use mbank::core::scan::discovery::{self, ScanOptions};
use mbank::core::search::{ProjectBanks, Query, SearchIndex};

const QUERIES: &[&str] = &[
    "retries with backoff",
    "which database do we use",
    "request handling",
    "adopt queue",
    "sqlite decision",
    "conventions for rust",
    "what is the current focus",
    "payment webhooks",
    "handler_3",
    "no such words anywhere",
];

fn percentile(samples: &mut [Duration], at: f64) -> Duration {
    samples.sort();
    let index = ((samples.len() as f64 - 1.0) * at).round() as usize;
    samples[index]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn index_size(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with("search-"))
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

fn as_input<'a>(projects: &'a [Project], banks: &'a [Vec<Bank>]) -> Vec<ProjectBanks<'a>> {
    projects
        .iter()
        .zip(banks)
        .map(|(project, banks)| ProjectBanks { project, banks })
        .collect()
}

fn main() {
    let count: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(2000);
    let work = tempfile::tempdir().expect("a temporary folder");
    let root = work.path().join("root");
    let cache = work.path().join("cache");
    let status = Command::new("bash")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/benches/gen_root.sh"))
        .arg(&root)
        .arg(count.to_string())
        .stdout(std::process::Stdio::null())
        .status()
        .expect("benches/gen_root.sh runs");
    assert!(status.success(), "gen_root.sh failed");
    let options = ScanOptions::default();
    let projects = discovery::scan(&root, &options);
    let mut banks: Vec<Vec<Bank>> = projects.iter().map(list_banks).collect();
    println!("projects: {}", projects.len());

    let mut cold = Vec::new();
    for _ in 0..3 {
        let _ = std::fs::remove_dir_all(&cache);
        let started = Instant::now();
        let mut index = SearchIndex::open_at(&cache, &root);
        index.refresh(&as_input(&projects, &banks), None);
        cold.push(started.elapsed());
    }
    println!("cold build: median {}", ms(percentile(&mut cold, 0.5)));
    println!("index on disk: {:.1} MB", index_size(&cache) as f64 / 1e6);

    let mut warm = Vec::new();
    let mut index = SearchIndex::open_at(&cache, &root);
    for _ in 0..10 {
        let started = Instant::now();
        index = SearchIndex::open_at(&cache, &root);
        let refreshed = index.refresh(&as_input(&projects, &banks), None);
        assert_eq!(refreshed.projects_read, 0);
        warm.push(started.elapsed());
    }
    println!(
        "warm open and check: median {}",
        ms(percentile(&mut warm, 0.5))
    );

    let mut latencies = Vec::new();
    for _ in 0..20 {
        for text in QUERIES {
            let started = Instant::now();
            let hits = index.search(&Query {
                text: text.to_string(),
                limit: 10,
                ..Query::default()
            });
            latencies.push(started.elapsed());
            std::hint::black_box(hits);
        }
    }
    println!(
        "query ({} questions x 20): p50 {}, p95 {}",
        QUERIES.len(),
        ms(percentile(&mut latencies, 0.5)),
        ms(percentile(&mut latencies, 0.95))
    );

    let mut updates = Vec::new();
    let step = (projects.len() / 20).max(1);
    for (edit, at) in (0..projects.len()).step_by(step).take(20).enumerate() {
        let Some(file) = banks[at]
            .iter()
            .flat_map(|b| &b.files)
            .find(|f| !f.is_virtual())
        else {
            continue;
        };
        let path = file.path.clone();
        let mut text = std::fs::read_to_string(&path).expect("a generated file");
        text.push_str(&format!(
            "\n- edit {edit}: moved the retries to the outbox\n"
        ));
        std::fs::write(&path, text).expect("the edit is written");
        let started = Instant::now();
        banks[at] = list_banks(&projects[at]);
        let refreshed = index.refresh(&as_input(&projects, &banks), None);
        updates.push(started.elapsed());
        assert_eq!(refreshed.projects_read, 1);
    }
    println!(
        "one file changed ({} edits): p50 {}, p95 {}",
        updates.len(),
        ms(percentile(&mut updates, 0.5)),
        ms(percentile(&mut updates, 0.95))
    );
    println!(
        "index on disk after the edits: {:.1} MB",
        index_size(&cache) as f64 / 1e6
    );
    if let Some(rss) = peak_rss_mb() {
        println!("peak RSS: {rss:.0} MB");
    }
}

//! `log_decision` throughput through `mbank serve`: 32 concurrent callers post
//! `/memory-bank/logDecision` for a fixed time; then the log is parsed and every entry
//! must be there exactly once. Peer in the same run: one writer appending through the
//! core's guarded write, one fsync'd write per entry (what the servers would manage
//! without group commit). Target: ≥ 1,000 appends/s sustained, nothing lost. Loopback
//! only, bounded in time.
//!
//!     cargo bench --bench serve_append [-- SECONDS]
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mbank::core::analysis::decisions;
use mbank::core::write::{self, Expected};

const CALLERS: usize = 32;

// The caller kills and waits for the child it gets back.
#[allow(clippy::zombie_processes)]
fn start_mbank(dir: &Path) -> (std::process::Child, String) {
    let config = dir.join("config.toml");
    std::fs::write(
        &config,
        "[serve]\nrate_limit_per_minute = 1000000000\nrate_limit_per_hour = 1000000000\n",
    )
    .unwrap();
    let log = dir.join("requests.log");
    let mut child = Command::new(mbank_binary())
        .arg("--root")
        .arg(dir.join("banks"))
        .arg("--config")
        .arg(&config)
        .args(["serve", "--listen", "127.0.0.1:0"])
        .env("MBANK_DATA_DIR", dir.join("data"))
        .stdout(std::fs::File::create(&log).unwrap())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok(file) = std::fs::File::open(&log)
            && let Some(Ok(first)) = BufReader::new(file).lines().next()
            && let Some(address) = first
                .split("listening on http://")
                .nth(1)
                .and_then(|r| r.split_whitespace().next())
        {
            return (child, format!("http://{address}"));
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("mbank serve did not start within 30 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn main() {
    let seconds: u64 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(10)
        .min(60);
    let _ = rustls::crypto::ring::default_provider().install_default();
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("banks/bench");
    mbank::core::init::init_bank(&project, mbank::core::init::InitFormat::Cline, None).unwrap();
    let (mut child, base) = start_mbank(dir.path());

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let done = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let stop = started + Duration::from_secs(seconds);
    let per_caller: Vec<usize> = runtime.block_on(async {
        let client = reqwest::Client::new();
        let tasks: Vec<_> = (0..CALLERS)
            .map(|c| {
                let (client, base, done) = (client.clone(), base.clone(), done.clone());
                tokio::spawn(async move {
                    let mut i = 0;
                    while Instant::now() < stop {
                        let body = serde_json::json!({
                            "title": format!("caller {c} decision {i}"),
                            "context": "load test",
                            "decision": "append",
                        });
                        let response = client
                            .post(format!("{base}/memory-bank/logDecision?project=bench"))
                            .json(&body)
                            .send()
                            .await
                            .unwrap();
                        assert_eq!(
                            response.status().as_u16(),
                            200,
                            "{:?}",
                            response.text().await
                        );
                        i += 1;
                        done.fetch_add(1, Ordering::Relaxed);
                    }
                    i
                })
            })
            .collect();
        let mut counts = Vec::new();
        for task in tasks {
            counts.push(task.await.unwrap());
        }
        counts
    });
    let elapsed = started.elapsed();
    let _ = child.kill();
    let _ = child.wait();
    let total: usize = per_caller.iter().sum();

    let log_path = project.join("memory-bank/decisionLog.md");
    let text = std::fs::read_to_string(&log_path).unwrap();
    let parsed = decisions::parse_log(&log_path, &text);
    let mut titles: Vec<&str> = parsed.iter().map(|d| d.title.as_str()).collect();
    titles.sort_unstable();
    let mut expected: Vec<String> = per_caller
        .iter()
        .enumerate()
        .flat_map(|(c, n)| (0..*n).map(move |i| format!("caller {c} decision {i}")))
        .collect();
    expected.sort_unstable();
    assert_eq!(
        titles, expected,
        "every logged decision present exactly once"
    );

    // Peer: one writer, one guarded (fsync'd) write per entry.
    let peer_file = dir.path().join("peer.md");
    std::fs::write(&peer_file, "# Decision Log\n").unwrap();
    let peer_started = Instant::now();
    let mut peer_count = 0;
    let mut current = std::fs::read_to_string(&peer_file).unwrap();
    while peer_started.elapsed() < Duration::from_secs(seconds.min(5)) {
        let next = format!(
            "{current}\n## Decision: peer {peer_count}\n- **Date**: 2026-01-01 00:00:00\n- **Selected**: append\n"
        );
        write::write_guarded(&peer_file, &next, Expected::text(&current)).unwrap();
        current = next;
        peer_count += 1;
    }
    let peer_rate = peer_count as f64 / peer_started.elapsed().as_secs_f64();
    let rate = total as f64 / elapsed.as_secs_f64();

    println!("log_decision through mbank serve, {CALLERS} concurrent callers, {seconds} s");
    println!(
        "{:<46} {:>8.0} appends/s  ({total} appends, all parsed back once; log {} KB)",
        "mbank serve: POST /memory-bank/logDecision",
        rate,
        text.len() / 1024
    );
    println!(
        "{:<46} {:>8.0} appends/s  ({peer_count} appends)",
        "peer: one writer, one guarded write each", peer_rate
    );
    println!(
        "target ≥ 1,000 appends/s: {}; {:.1}x the one-write-per-entry peer",
        if rate >= 1000.0 { "met" } else { "MISSED" },
        rate / peer_rate.max(1e-9)
    );
}

/// The binary under test: this build's, or another one named by `MBANK_BIN` (an older
/// build, to compare two versions with the same client).
fn mbank_binary() -> std::ffi::OsString {
    std::env::var_os("MBANK_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_mbank").into())
}

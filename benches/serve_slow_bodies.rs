//! `mbank serve` under a slow-body attack: a legitimate client on 127.0.0.3 reads a 10 KB
//! memory file (`GET /memory-bank/file/activeContext.md`, one keep-alive connection, one
//! request at a time) while idle, then while an attacker on 127.0.0.2 keeps 512 POSTs open,
//! each declaring a 4 KB body and sending one byte of it every 2 s (reconnecting when cut
//! off or refused, after a second). Peer: the same client with no attack, same run.
//! Targets: no 503 (nor any other error) for the client during the attack, and its p99 at
//! most twice the idle p99. Loopback only (127.0.0.x), bounded in count and time.
//!
//!     cargo bench --bench serve_slow_bodies [-- SECONDS]
use std::io::{BufRead, BufReader};
use std::net::{IpAddr, SocketAddr};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

const ATTACK_CONNECTIONS: usize = 512;

/// Starts `mbank serve` on an ephemeral loopback port with its default limits.
// The caller kills and waits for the child it gets back.
#[allow(clippy::zombie_processes)]
fn start_mbank(dir: &Path) -> (std::process::Child, SocketAddr) {
    let log = dir.join("requests.log");
    let mut child = Command::new(env!("CARGO_BIN_EXE_mbank"))
        .arg("--root")
        .arg(dir.join("banks"))
        .args(["serve", "--listen", "127.0.0.1:0"])
        .env("MBANK_DATA_DIR", dir.join("data"))
        .env("MBANK_CONFIG_DIR", dir.join("config"))
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
            return (child, address.parse().unwrap());
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("mbank serve did not start within 30 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// One attacking connection, again and again until `stop`: a POST whose body trickles.
async fn attacker(
    server: SocketAddr,
    source: IpAddr,
    stop: Arc<AtomicBool>,
    refused: Arc<AtomicUsize>,
) {
    while !stop.load(Ordering::Relaxed) {
        let Ok(socket) = tokio::net::TcpSocket::new_v4() else {
            return;
        };
        if socket.bind(SocketAddr::new(source, 0)).is_err() {
            return;
        }
        if let Ok(stream) = socket.connect(server).await {
            let (mut reader, mut writer) = stream.into_split();
            let head = format!(
                "POST /memory-bank/file?project=bench HTTP/1.1\r\nhost: {server}\r\ncontent-type: application/json\r\ncontent-length: 4096\r\n\r\n"
            );
            if writer.write_all(head.as_bytes()).await.is_ok() {
                let trickle = async {
                    while !stop.load(Ordering::Relaxed) {
                        if writer.write_all(b" ").await.is_err() {
                            return;
                        }
                        tokio::time::sleep(Duration::from_secs(2)).await;
                    }
                };
                let mut answer = [0u8; 64];
                tokio::select! {
                    read = reader.read(&mut answer) => {
                        if matches!(read, Ok(n) if answer[..n].starts_with(b"HTTP/1.1 503")) {
                            refused.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    () = trickle => {}
                }
            }
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// The legitimate client's reads for `seconds`: latencies in ms, and the failures.
async fn reads(url: &str, seconds: u64) -> (Vec<f64>, Vec<String>) {
    let client = reqwest::Client::builder()
        .local_address("127.0.0.3".parse::<IpAddr>().unwrap())
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap();
    let end = Instant::now() + Duration::from_secs(seconds);
    let (mut latencies, mut failures) = (Vec::new(), Vec::new());
    while Instant::now() < end && latencies.len() + failures.len() < 200_000 {
        let started = Instant::now();
        match client.get(url).send().await {
            Ok(response) if response.status() == 200 => {
                let _ = response.bytes().await;
                latencies.push(started.elapsed().as_secs_f64() * 1000.0);
            }
            Ok(response) => failures.push(response.status().to_string()),
            Err(e) => failures.push(e.to_string()),
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    (latencies, failures)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

fn summary(mut latencies: Vec<f64>) -> (usize, f64, f64) {
    latencies.sort_by(f64::total_cmp);
    (
        latencies.len(),
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99),
    )
}

fn main() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let seconds: u64 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(10)
        .min(60);
    let dir = tempfile::tempdir().unwrap();
    let bank = dir.path().join("banks/bench/memory-bank");
    std::fs::create_dir_all(&bank).unwrap();
    std::fs::create_dir_all(dir.path().join("config")).unwrap();
    let mut content = String::from("# Active Context\n\n");
    while content.len() < 10 * 1024 {
        content.push_str("- the agent moved request handling behind the retry policy\n");
    }
    std::fs::write(bank.join("activeContext.md"), &content).unwrap();
    let (mut child, server) = start_mbank(dir.path());
    let url = format!("http://{server}/memory-bank/file/activeContext.md?project=bench");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (idle, attacked, refused, failures) = runtime.block_on(async {
        let (idle, idle_failures) = reads(&url, seconds).await;
        assert!(
            idle_failures.is_empty(),
            "idle reads failed: {idle_failures:?}"
        );
        let stop = Arc::new(AtomicBool::new(false));
        let refused = Arc::new(AtomicUsize::new(0));
        let attacker_ip: IpAddr = "127.0.0.2".parse().unwrap();
        let attacks: Vec<_> = (0..ATTACK_CONNECTIONS)
            .map(|_| tokio::spawn(attacker(server, attacker_ip, stop.clone(), refused.clone())))
            .collect();
        // The attack in place before the client reads.
        tokio::time::sleep(Duration::from_secs(2)).await;
        let (attacked, failures) = reads(&url, seconds).await;
        stop.store(true, Ordering::Relaxed);
        for attack in attacks {
            attack.abort();
        }
        (idle, attacked, refused.load(Ordering::Relaxed), failures)
    });
    let _ = child.kill();
    let _ = child.wait();
    let (idle_n, idle_p50, idle_p99) = summary(idle);
    let (attacked_n, attacked_p50, attacked_p99) = summary(attacked);
    println!(
        "GET of a 10 KB memory file from 127.0.0.3, one keep-alive connection, {seconds} s each, loopback"
    );
    println!(
        "{:<48} {idle_n:>7} reads   p50 {idle_p50:>6.3} ms   p99 {idle_p99:>6.3} ms",
        "peer: idle"
    );
    println!(
        "{:<48} {attacked_n:>7} reads   p50 {attacked_p50:>6.3} ms   p99 {attacked_p99:>6.3} ms",
        format!("during {ATTACK_CONNECTIONS} slow POSTs from 127.0.0.2")
    );
    println!(
        "client errors during the attack: {} {:?}; attacker connections refused with 503: {refused}",
        failures.len(),
        failures.iter().take(3).collect::<Vec<_>>()
    );
    println!(
        "targets: no 503 to the client ({}), p99 ≤ 2× idle ({:.2}×, {})",
        if failures.is_empty() { "met" } else { "MISSED" },
        attacked_p99 / idle_p99,
        if attacked_p99 <= 2.0 * idle_p99 {
            "met"
        } else {
            "MISSED"
        }
    );
}

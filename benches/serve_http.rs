//! `mbank serve` under load: `GET /memory-bank/file/activeContext.md?project=bench` (a
//! 10 KB file) with 50 keep-alive connections on loopback, measured by `wrk` (Debian's
//! package; `oha` works the same way with MBANK_LOADGEN=oha). Peer in the same run: a
//! bare axum server on the same tokio/hyper stack answering the same JSON from memory,
//! so the figures say what mbank's own work (project lookup, confinement, read, hash,
//! auth, rate limit, request log) costs on top of the HTTP floor. Targets: ≥ 10,000
//! requests/s on 2 cores, p99 ≤ 5 ms. Loopback only, bounded in time.
//!
//!     cargo bench --bench serve_http [-- SECONDS]
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

struct Load {
    requests_per_second: f64,
    p50_ms: f64,
    p99_ms: f64,
}

fn ms(text: &str) -> f64 {
    let text = text.trim();
    let (number, unit) = text
        .find(|c: char| c.is_ascii_alphabetic())
        .map(|i| text.split_at(i))
        .unwrap_or((text, "ms"));
    let value: f64 = number.trim().parse().unwrap_or(f64::NAN);
    match unit.trim() {
        "us" => value / 1000.0,
        "s" => value * 1000.0,
        _ => value,
    }
}

/// Runs wrk (or oha) against `url` and reads its figures.
fn load(url: &str, seconds: u64) -> Load {
    let generator = std::env::var("MBANK_LOADGEN").unwrap_or_else(|_| "wrk".into());
    if generator == "oha" {
        let out = Command::new("oha")
            .args([
                "--no-tui",
                "-c",
                "50",
                "-z",
                &format!("{seconds}s"),
                "--output-format",
                "json",
                url,
            ])
            .output()
            .expect("oha not found: cargo install oha, or use wrk");
        let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        return Load {
            requests_per_second: value["summary"]["requestsPerSec"].as_f64().unwrap_or(0.0),
            p50_ms: value["latencyPercentiles"]["p50"]
                .as_f64()
                .unwrap_or(f64::NAN)
                * 1e3,
            p99_ms: value["latencyPercentiles"]["p99"]
                .as_f64()
                .unwrap_or(f64::NAN)
                * 1e3,
        };
    }
    let out = Command::new("wrk")
        .args(["-t1", "-c50", &format!("-d{seconds}s"), "--latency", url])
        .output()
        .expect("wrk not found: apt-get install wrk (or MBANK_LOADGEN=oha)");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut result = Load {
        requests_per_second: 0.0,
        p50_ms: f64::NAN,
        p99_ms: f64::NAN,
    };
    for line in text.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("Requests/sec:") {
            result.requests_per_second = rest.trim().parse().unwrap_or(0.0);
        } else if let Some(rest) = line.strip_prefix("50%") {
            result.p50_ms = ms(rest);
        } else if let Some(rest) = line.strip_prefix("99%") {
            result.p99_ms = ms(rest);
        } else if line.starts_with("Non-2xx") {
            panic!("the load got errors: {line}\n{text}");
        }
    }
    result
}

fn ten_kb() -> String {
    let mut text = String::from("# Active Context\n\n## Current Focus\n");
    let mut i = 0;
    while text.len() < 10 * 1024 {
        i += 1;
        text.push_str(&format!(
            "- Step {i}: the agent moved request handling for module {i} behind the retry policy.\n"
        ));
    }
    text
}

/// Starts `mbank serve` on an ephemeral loopback port; its request log goes to a file.
// The caller kills and waits for the child it gets back.
#[allow(clippy::zombie_processes)]
fn start_mbank(dir: &Path) -> (std::process::Child, SocketAddr) {
    let config = dir.join("config.toml");
    std::fs::write(
        &config,
        "[serve]\nrate_limit_per_minute = 1000000000\nrate_limit_per_hour = 1000000000\n",
    )
    .unwrap();
    let log = dir.join("requests.log");
    let mut child = Command::new(env!("CARGO_BIN_EXE_mbank"))
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

/// The peer: the same JSON from memory on the same stack, two worker threads.
fn start_peer(body: String) -> SocketAddr {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let app = axum::Router::new().route(
                "/memory-bank/file/{*name}",
                axum::routing::get(move || {
                    let body = body.clone();
                    async move { ([("content-type", "application/json")], body) }
                }),
            );
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            sender.send(listener.local_addr().unwrap()).unwrap();
            axum::serve(listener, app).await.unwrap();
        });
    });
    receiver.recv().unwrap()
}

fn main() {
    let seconds: u64 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(10)
        .min(60);
    let dir = tempfile::tempdir().unwrap();
    let bank = dir.path().join("banks/bench/memory-bank");
    std::fs::create_dir_all(&bank).unwrap();
    let content = ten_kb();
    std::fs::write(bank.join("activeContext.md"), &content).unwrap();
    let (mut child, mbank) = start_mbank(dir.path());
    let path = "/memory-bank/file/activeContext.md?project=bench";

    // Check the answer before loading it.
    let check = Command::new("curl")
        .args(["-s", &format!("http://{mbank}{path}")])
        .output()
        .map(|o| o.stdout)
        .unwrap_or_default();
    let body: serde_json::Value =
        serde_json::from_slice(&check).expect("mbank serve answered JSON");
    assert_eq!(body["content"].as_str(), Some(content.as_str()));
    let peer = start_peer(String::from_utf8(check).unwrap());

    let ours = load(&format!("http://{mbank}{path}"), seconds);
    let floor = load(&format!("http://{peer}{path}"), seconds);
    let _ = child.kill();
    let _ = child.wait();
    let logged = std::fs::read_to_string(dir.path().join("requests.log"))
        .map(|t| t.lines().count())
        .unwrap_or(0);

    println!("HTTP GET of a 10 KB memory file, 50 keep-alive connections, {seconds} s, loopback");
    for (what, load) in [
        ("mbank serve", &ours),
        ("peer: bare axum, same JSON from memory", &floor),
    ] {
        println!(
            "{what:<42} {:>9.0} req/s   p50 {:>6.2} ms   p99 {:>6.2} ms",
            load.requests_per_second, load.p50_ms, load.p99_ms
        );
    }
    println!(
        "mbank at {:.0}% of the peer's rate; targets ≥ 10,000 req/s ({}) and p99 ≤ 5 ms ({}); {logged} request lines logged",
        100.0 * ours.requests_per_second / floor.requests_per_second.max(1.0),
        if ours.requests_per_second >= 10_000.0 {
            "met"
        } else {
            "MISSED"
        },
        if ours.p99_ms <= 5.0 { "met" } else { "MISSED" },
    );
}

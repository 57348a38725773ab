//! `mbank mcp` round trip: `memory_bank_read` of a 10 KB memory file through the real
//! binary over stdio with the MCP SDK's client, one call at a time. Peer in the same run:
//! the pipe floor, a 10 KB JSON line echoed by `cat` (the same two pipes and process
//! hops with no work). Target: p50 ≤ 1 ms.
//!
//!     cargo bench --bench serve_stdio [-- CALLS]
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

fn report(what: &str, mut times: Vec<Duration>) -> Duration {
    times.sort_unstable();
    let p50 = percentile(&times, 0.5);
    println!(
        "{what:<44} n={:<6} p50 {:>8.3} ms   p90 {:>8.3} ms   p99 {:>8.3} ms",
        times.len(),
        p50.as_secs_f64() * 1e3,
        percentile(&times, 0.9).as_secs_f64() * 1e3,
        percentile(&times, 0.99).as_secs_f64() * 1e3
    );
    p50
}

/// A 10 KB active context.
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

fn main() {
    let calls: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(3000);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("banks");
    let bank = root.join("bench/memory-bank");
    std::fs::create_dir_all(&bank).unwrap();
    let content = ten_kb();
    std::fs::write(bank.join("activeContext.md"), &content).unwrap();
    std::fs::write(bank.join("projectBrief.md"), "# Brief\n").unwrap();

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mcp = runtime.block_on(async {
        let mut command = tokio::process::Command::new(mbank_binary());
        command
            .arg("--root")
            .arg(&root)
            .arg("mcp")
            .env("MBANK_DATA_DIR", dir.path().join("data"))
            .current_dir(dir.path());
        let (transport, _) = TokioChildProcess::builder(command)
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let client = ().serve(transport).await.unwrap();
        let arguments = serde_json::json!({"projectPath": "bench", "fileName": "activeContext.md"});
        let params = CallToolRequestParams::new("memory_bank_read")
            .with_arguments(arguments.as_object().unwrap().clone());
        // Warm-up, and a check that the answer is the file.
        let first = client.call_tool(params.clone()).await.unwrap();
        let value = first.structured_content.unwrap();
        assert_eq!(value["content"].as_str().unwrap(), content);
        for _ in 0..200 {
            client.call_tool(params.clone()).await.unwrap();
        }
        let mut times = Vec::with_capacity(calls);
        let deadline = Instant::now() + Duration::from_secs(60);
        for _ in 0..calls {
            let started = Instant::now();
            let result = client.call_tool(params.clone()).await.unwrap();
            times.push(started.elapsed());
            assert_ne!(result.is_error, Some(true));
            if Instant::now() > deadline {
                break;
            }
        }
        client.cancel().await.unwrap();
        times
    });

    // Peer: the same-sized JSON line through `cat` and back.
    let line =
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": {"content": content}}).to_string();
    let mut cat = Command::new("cat")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = cat.stdin.take().unwrap();
    let mut stdout = BufReader::new(cat.stdout.take().unwrap());
    let mut echoed = String::new();
    let mut echo = |n: usize| -> Vec<Duration> {
        (0..n)
            .map(|_| {
                let started = Instant::now();
                stdin.write_all(line.as_bytes()).unwrap();
                stdin.write_all(b"\n").unwrap();
                stdin.flush().unwrap();
                echoed.clear();
                stdout.read_line(&mut echoed).unwrap();
                started.elapsed()
            })
            .collect()
    };
    echo(200);
    let floor = echo(calls);
    drop(stdin);
    let _ = cat.wait();

    println!("stdio round trip, 10 KB file ({} bytes)", content.len());
    let p50 = report("mbank mcp: memory_bank_read", mcp);
    let floor_p50 = report("peer: 10 KB JSON line echoed by cat", floor);
    println!(
        "p50 {:.3} ms (target ≤ 1 ms: {}); pipe floor {:.3} ms",
        p50.as_secs_f64() * 1e3,
        if p50 <= Duration::from_millis(1) {
            "met"
        } else {
            "MISSED"
        },
        floor_p50.as_secs_f64() * 1e3
    );
}

/// The binary under test: this build's, or another one named by `MBANK_BIN` (an older
/// build, to compare two versions with the same client).
fn mbank_binary() -> std::ffi::OsString {
    std::env::var_os("MBANK_BIN").unwrap_or_else(|| env!("CARGO_BIN_EXE_mbank").into())
}

//! `mbank mcp` under concurrency, end to end: many server processes and a TUI writer
//! appending to one decision log lose nothing, and kill -9 in the middle of writes leaves
//! each file old or new, never torn.
use crate::mcp_stdio::{Setup, bounded, ok};

use std::path::Path;
use std::time::Duration;

use mbank::core::analysis::decisions;
use mbank::core::io::lock;
use mbank::core::write::{self, Expected};
use rmcp::model::CallToolRequestParams;
use serde_json::json;

/// Appends a decision the way the TUI saves: the folder lock, then the guarded write.
fn tui_append(log: &Path, title: &str) {
    let _lock = lock::for_file(log).unwrap();
    let old = std::fs::read_to_string(log).unwrap();
    let new =
        format!("{old}\n## Decision: {title}\n- **Date**: 2026-01-01\n- **Status**: Accepted\n");
    write::write_guarded(log, &new, Expected::text(&old)).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eight_servers_and_a_tui_writer_lose_no_decision() {
    const CLIENTS: usize = 8;
    const CALLS: usize = 200;
    const LANES: usize = 8;
    const TUI_WRITES: usize = 40;
    let setup = Setup::new();
    setup.init("shared");
    let mut clients = Vec::new();
    for _ in 0..CLIENTS {
        clients.push(setup.connect(&["--tools", "memory-bank-mcp"]).await);
    }
    let log = setup.root.join("shared/memory-bank/decisionLog.md");
    let tui = {
        let log = log.clone();
        std::thread::spawn(move || {
            for i in 0..TUI_WRITES {
                tui_append(&log, &format!("tui {i}"));
                std::thread::sleep(Duration::from_millis(5));
            }
        })
    };
    let mut tasks = Vec::new();
    for (c, client) in clients.iter().enumerate() {
        for lane in 0..LANES {
            let peer = client.peer().clone();
            tasks.push(tokio::spawn(async move {
                for i in (lane..CALLS).step_by(LANES) {
                    let args = json!({"title": format!("client {c} call {i}"), "context": "load", "decision": format!("d{c}-{i}")});
                    let params = CallToolRequestParams::new("log_decision").with_arguments(args.as_object().unwrap().clone());
                    let result = peer.call_tool(params).await.unwrap();
                    assert_ne!(result.is_error, Some(true), "{result:?}");
                }
            }));
        }
    }
    bounded(async {
        for task in tasks {
            task.await.unwrap();
        }
    })
    .await;
    tui.join().unwrap();
    let text = std::fs::read_to_string(&log).unwrap();
    let parsed = decisions::parse_log(&log, &text);
    let mut titles: Vec<&str> = parsed.iter().map(|d| d.title.as_str()).collect();
    titles.sort_unstable();
    let mut expected: Vec<String> = (0..CLIENTS)
        .flat_map(|c| (0..CALLS).map(move |i| format!("client {c} call {i}")))
        .chain((0..TUI_WRITES).map(|i| format!("tui {i}")))
        .collect();
    expected.sort_unstable();
    assert_eq!(titles, expected, "every entry present exactly once");
    for client in clients {
        bounded(client.cancel()).await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_during_writes_leaves_each_file_old_or_new() {
    let setup = Setup::new();
    setup.init("crash");
    let bank = setup.root.join("crash/memory-bank");
    // Two whole versions of a file big enough that a write takes a while.
    let version = |tag: &str| {
        format!(
            "# Tech Context\n\n{}",
            format!("- {tag} line of the stack\n").repeat(5_000)
        )
    };
    let (a, b) = (version("A"), version("B"));
    std::fs::write(bank.join("techContext.md"), &a).unwrap();
    for round in 0..3u64 {
        let (client, pid) = setup.connect_in(&setup.root, &[]).await;
        let peer = client.peer().clone();
        let (a2, b2) = (a.clone(), b.clone());
        let progress = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let done = progress.clone();
        let writer = tokio::spawn(async move {
            for i in 0.. {
                let content = if i % 2 == 0 { &b2 } else { &a2 };
                let args = json!({"projectPath": "crash", "fileName": "techContext.md", "content": content});
                let params = CallToolRequestParams::new("memory_bank_update")
                    .with_arguments(args.as_object().unwrap().clone());
                if peer.call_tool(params).await.is_err() {
                    break;
                }
                let args = json!({"title": format!("round {round} entry {i}"), "context": "c", "decision": "d"});
                let params = CallToolRequestParams::new("log_decision")
                    .with_arguments(args.as_object().unwrap().clone());
                if peer.call_tool(params).await.is_err() {
                    break;
                }
                done.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
        });
        // Once a round of writes is in, kill at a different point of the next one.
        bounded(async {
            while progress.load(std::sync::atomic::Ordering::SeqCst) == 0 {
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
        })
        .await;
        tokio::time::sleep(Duration::from_millis(7 + 23 * round)).await;
        let killed = std::process::Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let _ = bounded(writer).await;
        drop(client);
        let tech = std::fs::read_to_string(bank.join("techContext.md")).unwrap();
        assert!(
            tech == a || tech == b,
            "round {round}: techContext.md is torn ({} bytes)",
            tech.len()
        );
        let log_text = std::fs::read_to_string(bank.join("decisionLog.md")).unwrap();
        assert!(
            log_text.ends_with("- **Selected**: d\n") || !log_text.contains("round"),
            "round {round}: the log ends mid-entry"
        );
        let entries = decisions::parse_log(&bank.join("decisionLog.md"), &log_text);
        let mut titles: Vec<&str> = entries.iter().map(|d| d.title.as_str()).collect();
        let count = titles.len();
        titles.dedup();
        assert_eq!(titles.len(), count, "no entry twice");
        let this_round = format!("round {round} ");
        assert!(
            titles.iter().any(|t| t.starts_with(&this_round)),
            "round {round}: the server was killed before it wrote anything"
        );
    }
    // A server started after the kills reads and writes the bank as usual.
    let client = setup.connect(&[]).await;
    ok(&client, "log_decision", json!({"projectPath": "crash", "title": "after the crash", "context": "c", "decision": "d"})).await;
    bounded(client.cancel()).await.unwrap();
}

//! A process that can write inside a bank swaps a memory file (or the whole
//! `memory-bank/` folder) for a symlink out of the root, over and over, while agents read
//! and write it through the real `mbank mcp` (stdio) and `mbank serve` (HTTP on
//! 127.0.0.1). Nothing outside the root may be read, written, created or re-moded, and no
//! temp file may be left behind: the servers open files relative to the bank folder's
//! handle, never by a name looked up again.
#![cfg(target_os = "linux")]
use crate::common;

use std::io::{BufRead, BufReader};
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::Sandbox;
use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

/// How long each phase serves requests while the swapper runs: thousands of requests
/// against thousands of swaps in a debug build, with both cores busy meanwhile.
const PHASE: Duration = Duration::from_secs(5);
/// An upper bound on the requests of one client in one phase.
const MAX_REQUESTS: usize = 20_000;
const OUTSIDE_TEXT: &str = "#!/bin/sh\necho OUTSIDE-SECRET\n";
const OUTSIDE_MARK: &str = "OUTSIDE-SECRET";

struct Setup {
    sandbox: Sandbox,
    root: PathBuf,
    outside: PathBuf,
}

impl Setup {
    fn new() -> Setup {
        let sandbox = Sandbox::new();
        let root = sandbox.home().join("banks");
        sandbox
            .run(&["init", root.join("alpha").to_str().unwrap()])
            .expect_code(0);
        std::fs::write(root.join("alpha/memory-bank/victim.md"), "# inside\n").unwrap();
        // Outside the root: an executable file, and a folder shaped like a bank.
        let outside = sandbox.home().join("outside");
        std::fs::create_dir_all(outside.join("bank")).unwrap();
        for file in [outside.join("secret.sh"), outside.join("bank/victim.md")] {
            std::fs::write(&file, OUTSIDE_TEXT).unwrap();
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        Setup {
            sandbox,
            root,
            outside,
        }
    }

    fn bank(&self) -> PathBuf {
        self.root.join("alpha/memory-bank")
    }

    /// Every file outside the root with its content and mode.
    fn outside_state(&self) -> Vec<(PathBuf, String, u32)> {
        let mut state = Vec::new();
        for path in walk(&self.outside) {
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let text = if meta.is_file() {
                std::fs::read_to_string(&path).unwrap_or_default()
            } else {
                String::new()
            };
            state.push((path, text, meta.permissions().mode() & 0o7777));
        }
        state.sort();
        state
    }

    async fn mcp(&self) -> RunningService<RoleClient, ()> {
        let mut command = self.sandbox.mbank();
        command
            .arg("--root")
            .arg(&self.root)
            .arg("mcp")
            .env("MBANK_DATA_DIR", self.sandbox.home().join("data-mbank"))
            .current_dir(&self.root);
        let (transport, _) = TokioChildProcess::builder(tokio::process::Command::from(command))
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        tokio::time::timeout(Duration::from_secs(60), ().serve(transport))
            .await
            .expect("mbank mcp did not start")
            .unwrap()
    }

    /// `mbank serve` on an ephemeral port of 127.0.0.1, rate limits out of the way.
    fn serve(&self) -> (KillOnDrop, String) {
        let config = self.sandbox.home().join("serve.toml");
        std::fs::write(
            &config,
            "[serve]\nrate_limit_per_minute = 1000000\nrate_limit_per_hour = 10000000\n",
        )
        .unwrap();
        let mut command = self.sandbox.mbank();
        command
            .arg("--root")
            .arg(&self.root)
            .arg("--config")
            .arg(&config)
            .args(["serve", "--listen", "127.0.0.1:0"])
            .env("MBANK_DATA_DIR", self.sandbox.home().join("data-mbank"))
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = command.spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        let first = common::within(Duration::from_secs(30), "the start-up line", move || {
            let mut lines = BufReader::new(stdout).lines();
            let first = lines.next().unwrap().unwrap();
            // Keep reading so the server never blocks on a full pipe.
            std::thread::spawn(move || for _ in lines.map_while(Result::ok) {});
            first
        });
        let address = first
            .split("listening on http://")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .unwrap_or_else(|| panic!("no address in {first:?}"))
            .to_string();
        (KillOnDrop(child), format!("http://{address}"))
    }
}

struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Every path below `dir` (links not followed).
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        out.push(path.clone());
        if entry.file_type().unwrap().is_dir() {
            out.extend(walk(&path));
        }
    }
    out
}

fn temp_files(dir: &Path) -> Vec<PathBuf> {
    walk(dir)
        .into_iter()
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.ends_with(".mbank-tmp") || name.ends_with(".tmp")
        })
        .collect()
}

/// What the clients saw.
#[derive(Default)]
struct Tally {
    reads_ok: AtomicUsize,
    writes_ok: AtomicUsize,
    refused: AtomicUsize,
    leaked: AtomicUsize,
}

impl Tally {
    fn read(&self, content: Option<&str>) {
        match content {
            Some(text) if text.contains(OUTSIDE_MARK) => {
                self.leaked.fetch_add(1, Ordering::SeqCst);
            }
            Some(_) => {
                self.reads_ok.fetch_add(1, Ordering::SeqCst);
            }
            None => {
                self.refused.fetch_add(1, Ordering::SeqCst);
            }
        }
    }

    fn wrote(&self, ok: bool) {
        let counter = if ok { &self.writes_ok } else { &self.refused };
        counter.fetch_add(1, Ordering::SeqCst);
    }
}

async fn stdio_client(client: &RunningService<RoleClient, ()>, tally: &Tally, until: Instant) {
    let call = |name: &str, args: Value| {
        let Value::Object(args) = args else {
            unreachable!("tool arguments are an object")
        };
        client.call_tool(CallToolRequestParams::new(name.to_string()).with_arguments(args))
    };
    for i in 0..MAX_REQUESTS {
        if Instant::now() >= until {
            break;
        }
        let args = json!({"projectPath": "alpha", "fileName": "victim.md"});
        let result = call("memory_bank_read", args).await.unwrap();
        let text = &result.content[0].as_text().unwrap().text;
        let value: Value = serde_json::from_str(text).unwrap();
        assert!(!text.contains(OUTSIDE_MARK), "an MCP read leaked: {text}");
        tally.read(if result.is_error == Some(true) {
            None
        } else {
            value["content"].as_str()
        });
        let args = json!({
            "projectPath": "alpha",
            "fileName": "victim.md",
            "content": format!("# stdio {i}\n"),
        });
        let result = call("memory_bank_update", args).await.unwrap();
        tally.wrote(result.is_error != Some(true));
    }
}

async fn http_client(base: &str, tally: &Tally, until: Instant) {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap();
    for i in 0..MAX_REQUESTS {
        if Instant::now() >= until {
            break;
        }
        let response = client
            .get(format!("{base}/memory-bank/file/victim.md?project=alpha"))
            .send()
            .await
            .unwrap();
        let ok = response.status().is_success();
        let body = response.text().await.unwrap();
        assert!(!body.contains(OUTSIDE_MARK), "an HTTP read leaked: {body}");
        let value: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
        tally.read(if ok { value["content"].as_str() } else { None });
        let response = client
            .post(format!("{base}/memory-bank/file?project=alpha"))
            .json(&json!({"filename": "victim.md", "content": format!("# http {i}\n")}))
            .send()
            .await
            .unwrap();
        tally.wrote(response.status().is_success());
    }
}

/// Runs both transports for one [`PHASE`] while `swap` runs in a loop on another thread.
async fn serve_while_swapping(setup: &Setup, swap: impl Fn() + Send + 'static) -> Tally {
    let mcp = setup.mcp().await;
    let (_server, base) = setup.serve();
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut swaps = 0usize;
            while !stop.load(Ordering::SeqCst) {
                swap();
                swaps += 1;
            }
            swaps
        })
    };
    let tally = Tally::default();
    let until = Instant::now() + PHASE;
    tokio::join!(
        stdio_client(&mcp, &tally, until),
        http_client(&base, &tally, until)
    );
    stop.store(true, Ordering::SeqCst);
    let swaps = swapper.join().unwrap();
    let _ = mcp.cancel().await;
    eprintln!(
        "{swaps} swaps; reads served {}, writes done {}, refused {}, leaked {}",
        tally.reads_ok.load(Ordering::SeqCst),
        tally.writes_ok.load(Ordering::SeqCst),
        tally.refused.load(Ordering::SeqCst),
        tally.leaked.load(Ordering::SeqCst)
    );
    assert!(swaps > 100, "the swapper barely ran ({swaps} swaps)");
    tally
}

fn assert_nothing_escaped(setup: &Setup, before: &[(PathBuf, String, u32)], tally: &Tally) {
    assert_eq!(
        tally.leaked.load(Ordering::SeqCst),
        0,
        "reads returned the outside file"
    );
    let after = setup.outside_state();
    let changed: Vec<_> = after
        .iter()
        .filter(|entry| !before.contains(entry))
        .collect();
    assert!(
        after.len() == before.len() && changed.is_empty(),
        "outside the root, {} entries were written, created or re-moded; the first: {:?}",
        changed.len(),
        changed.iter().take(3).collect::<Vec<_>>()
    );
    assert!(
        temp_files(&setup.root).is_empty(),
        "{:?}",
        temp_files(&setup.root)
    );
    // Both sides were exercised: the race was real, and the bank still served.
    assert!(tally.refused.load(Ordering::SeqCst) > 0);
    assert!(tally.reads_ok.load(Ordering::SeqCst) + tally.writes_ok.load(Ordering::SeqCst) > 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_memory_file_swapped_for_a_link_out_is_never_read_or_written_through() {
    let setup = Setup::new();
    let before = setup.outside_state();
    let bank = setup.bank();
    let secret = setup.outside.join("secret.sh");
    let tally = serve_while_swapping(&setup, move || {
        // A link to the outside file takes the name, then a regular file takes it back.
        let link = bank.join("victim.md.link");
        let _ = std::fs::remove_file(&link);
        symlink(&secret, &link).unwrap();
        std::fs::rename(&link, bank.join("victim.md")).unwrap();
        std::thread::sleep(Duration::from_micros(200));
        let regular = bank.join("victim.md.regular");
        std::fs::write(&regular, "# inside\n").unwrap();
        std::fs::rename(&regular, bank.join("victim.md")).unwrap();
        std::thread::sleep(Duration::from_micros(200));
    })
    .await;
    assert_nothing_escaped(&setup, &before, &tally);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bank_folder_exchanged_with_a_link_out_never_gets_files_outside_the_root() {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    let setup = Setup::new();
    let before = setup.outside_state();
    let bank = setup.bank();
    let decoy = setup.root.join("alpha/memory-bank.decoy");
    symlink(setup.outside.join("bank"), &decoy).unwrap();
    let (a, b) = (bank.clone(), decoy.clone());
    let tally = serve_while_swapping(&setup, move || {
        // The real folder and the link trade names atomically.
        renameat_with(CWD, &a, CWD, &b, RenameFlags::EXCHANGE).unwrap();
        std::thread::sleep(Duration::from_micros(300));
    })
    .await;
    if std::fs::symlink_metadata(&bank)
        .unwrap()
        .file_type()
        .is_symlink()
    {
        renameat_with(CWD, &bank, CWD, &decoy, RenameFlags::EXCHANGE).unwrap();
    }
    assert!(bank.is_dir() && !bank.is_symlink());
    assert_nothing_escaped(&setup, &before, &tally);
}

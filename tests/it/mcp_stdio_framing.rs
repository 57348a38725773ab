//! `mbank mcp`'s line framing with raw pipes: a malformed or truncated line gets a
//! JSON-RPC parse error, an oversized one an error naming the limit, and the server goes
//! on answering the requests after them. Bounded: every read waits at most 30 s.
use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use common::Sandbox;
use serde_json::{Value, json};

/// `mbank mcp` with its stdin, and its stdout lines arriving on a channel.
struct Mcp {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    _sandbox: Sandbox,
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Mcp {
    fn start() -> Mcp {
        let sandbox = Sandbox::new();
        let root = sandbox.home().join("banks");
        std::fs::create_dir_all(&root).unwrap();
        let mut command = sandbox.mbank();
        command
            .arg("--root")
            .arg(&root)
            .arg("mcp")
            .env("MBANK_DATA_DIR", sandbox.home().join("data-mbank"))
            .current_dir(&root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = command.spawn().unwrap();
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let mut mcp = Mcp {
            child,
            stdin,
            lines,
            _sandbox: sandbox,
        };
        mcp.send(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}).to_string());
        assert_eq!(mcp.reply()["id"], 0);
        mcp.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        mcp
    }

    /// Writes `line` and its newline.
    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn reply(&self) -> Value {
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(30))
            .expect("no reply within 30 s");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    }

    fn list_tools(&mut self, id: u64) {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}).to_string());
        let reply = self.reply();
        assert_eq!(reply["id"], id, "{reply}");
        assert!(
            reply["result"]["tools"]
                .as_array()
                .is_some_and(|t| !t.is_empty()),
            "{reply}"
        );
    }
}

#[test]
fn a_truncated_json_line_gets_a_parse_error_and_the_server_keeps_serving() {
    let mut mcp = Mcp::start();
    for broken in [
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/li"#,
        "not json at all",
        r#"{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"#,
    ] {
        mcp.send(broken);
        let reply = mcp.reply();
        assert_eq!(reply["jsonrpc"], "2.0", "{reply}");
        assert_eq!(reply["error"]["code"], -32700, "{broken}: {reply}");
        assert_eq!(reply["id"], Value::Null, "{reply}");
    }
    mcp.list_tools(7);
}

#[test]
fn an_oversized_line_gets_an_error_reply_and_the_server_keeps_serving() {
    let mut mcp = Mcp::start();
    let limit = mbank::serve::stdio::MAX_MESSAGE_BYTES;
    // A request whose arguments alone are over the limit, written from another thread
    // while this one waits for the answer (the pipe holds far less than that).
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{{"name":"memory_bank_read","arguments":{{"pad":"{}"}}}}}}"#,
        "x".repeat(limit)
    );
    let mut stdin = mcp.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        stdin.write_all(big.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
        stdin
    });
    let reply = mcp.reply();
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains(&limit.to_string()),
        "{reply}"
    );
    mcp.stdin = Some(writer.join().unwrap());
    mcp.list_tools(9);
}

#[test]
fn closing_stdin_answers_the_last_line_and_ends_the_server() {
    let mut mcp = Mcp::start();
    // The last message has no newline: it is still a message.
    let mut stdin = mcp.stdin.take().unwrap();
    stdin
        .write_all(br#"{"jsonrpc":"2.0","id":11,"method":"ping"}"#)
        .unwrap();
    drop(stdin);
    let reply = mcp.reply();
    assert_eq!(reply["id"], 11, "{reply}");
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = mcp.child.try_wait().unwrap() {
            break status;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "mbank mcp still runs 20 s after its stdin closed"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status}");
}

/// A tool call whose `arguments` are a string or an array is answered -32602 (invalid
/// params), as the Python SDK's servers answer it, not -32601 (which says the method
/// `tools/call` does not exist), and the server keeps serving.
#[test]
fn tool_arguments_given_as_a_string_or_an_array_get_invalid_params() {
    let mut mcp = Mcp::start();
    for (id, arguments) in [
        (20, json!("{\"projectPath\": \"p\"}")),
        (21, json!(["p", "projectBrief.md"])),
    ] {
        mcp.send(
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "memory_bank_read", "arguments": arguments}})
            .to_string(),
        );
        let reply = mcp.reply();
        assert_eq!(reply["id"], id, "{reply}");
        assert_eq!(reply["error"]["code"], -32602, "{reply}");
        assert!(
            reply["error"]["message"]
                .as_str()
                .unwrap()
                .contains("\"arguments\" must be an object"),
            "{reply}"
        );
    }
    mcp.send(r#"{"jsonrpc":"2.0","id":22,"method":"tools/call","params":"memory_bank_read"}"#);
    let reply = mcp.reply();
    assert_eq!(
        (reply["id"].as_i64(), reply["error"]["code"].as_i64()),
        (Some(22), Some(-32602)),
        "{reply}"
    );
    mcp.list_tools(24);
}

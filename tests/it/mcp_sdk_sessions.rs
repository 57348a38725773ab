//! The official MCP Python SDK against `mbank mcp` (stdio) and `mbank serve` (`/mcp`), in
//! its default mode (which picks protocol 2026-07-28, where every request stands alone)
//! and in legacy mode (the initialize handshake), on a root of several projects: every
//! tool call succeeds when it names its project, and one that names none in 2026-07-28
//! says how to name it (`tests/it/sdk/mcp_sessions.py` drives the SDK).
//!
//! The live test makes a virtual environment and installs the SDK; where the package
//! registry or Python cannot be reached it says so and skips. The JSON-RPC messages of
//! those sessions are kept in `fixtures/mcp_sdk_sessions.json` (written again with
//! `MBANK_RECORD_SDK_SESSIONS=1`), and [`recorded_sdk_sessions_replay_alike`] replays
//! the client's messages against the server on every run, no network needed, comparing
//! each answer with the recorded one.
use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::Sandbox;
use serde_json::{Map, Value, json};

/// The SDK release the sessions were recorded with.
const SDK: &str = "mcp==2.3.0";
const FIXTURE: &str = "tests/it/fixtures/mcp_sdk_sessions.json";
/// Every session runs at this time, so dated entries and versions come out alike.
const NOW: &str = "2026-11-28T12:00:00Z";
const PROJECTS: [&str; 3] = ["alpha", "beta", "gamma"];

/// A root of three projects with memory banks, and the Infinity project beside it.
struct Setup {
    sandbox: Sandbox,
    root: PathBuf,
    infinity: PathBuf,
}

impl Setup {
    fn new() -> Setup {
        let sandbox = Sandbox::new();
        let root = sandbox.home().join("banks");
        for project in PROJECTS {
            sandbox
                // The recorded sessions hold the bank only, not the agent's instructions.
                .run(&[
                    "init",
                    root.join(project).to_str().unwrap(),
                    "--no-instructions",
                ])
                .expect_code(0);
        }
        let infinity = sandbox.home().join("app");
        std::fs::create_dir_all(&infinity).unwrap();
        Setup {
            root: std::fs::canonicalize(&root).unwrap(),
            infinity: std::fs::canonicalize(&infinity).unwrap(),
            sandbox,
        }
    }

    /// `mbank --root ROOT ARGS`, in the Infinity project, at [`NOW`].
    fn mbank(&self, args: &[&str]) -> Command {
        let mut command = self.sandbox.mbank();
        command
            .arg("--root")
            .arg(&self.root)
            .args(args)
            .env(mbank::core::clock::NOW_VARIABLE, NOW)
            .env("MBANK_DATA_DIR", self.sandbox.home().join("data-mbank"))
            .current_dir(&self.infinity);
        command
    }

    /// `mbank serve` on an ephemeral loopback port, killed when dropped; its `/mcp` URL.
    fn serve(&self) -> (KillOnDrop, String) {
        let mut child = self
            .mbank(&["serve", "--listen", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let first = common::within(Duration::from_secs(30), "the start-up line", move || {
            let mut lines = BufReader::new(stdout).lines();
            let first = lines.next().unwrap().unwrap();
            // Keep reading, so the request log never fills the pipe.
            std::thread::spawn(move || for _ in lines.map_while(Result::ok) {});
            first
        });
        let address = first
            .split("listening on http://")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .unwrap_or_else(|| panic!("no address in {first:?}"))
            .to_string();
        (KillOnDrop(child), format!("http://{address}/mcp"))
    }
}

struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The virtual environment's Python with the SDK installed, or why there is none.
fn sdk_python() -> Result<PathBuf, String> {
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("mcp-sdk-venv");
    let python = venv.join("bin/python");
    let installed = |python: &Path| {
        Command::new(python)
            .args(["-c", "import mcp, sys; from importlib.metadata import version; sys.exit(version('mcp') != '2.3.0')"])
            .status()
            .is_ok_and(|s| s.success())
    };
    if installed(&python) {
        return Ok(python);
    }
    let made = Command::new("python3")
        .args(["-m", "venv"])
        .arg(&venv)
        .status()
        .map_err(|e| format!("no python3 ({e})"))?;
    if !made.success() {
        return Err("python3 -m venv failed".into());
    }
    let pip = Command::new(&python)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            // Python compiles what it imports on first use; compiling every installed
            // module up front cost seconds of a CI runner's two cores.
            "--no-compile",
            "--timeout",
            "20",
            "--retries",
            "1",
            SDK,
        ])
        .output()
        .map_err(|e| format!("pip did not run ({e})"))?;
    if !pip.status.success() || !installed(&python) {
        return Err(format!(
            "pip install {SDK} failed (is the package registry reachable?): {}",
            String::from_utf8_lossy(&pip.stderr)
                .lines()
                .last()
                .unwrap_or("")
        ));
    }
    Ok(python)
}

/// One recorded session: how it ran, and its messages.
fn run_sdk_session(python: &Path, transport: &str, mode: &str) -> Value {
    let setup = Setup::new();
    let transcript = setup.sandbox.home().join("transcript.json");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/sdk/mcp_sessions.py");
    let mut command = Command::new(python);
    command
        .arg(&script)
        .args(["--mode", mode, "--root"])
        .arg(&setup.root)
        .arg("--transcript")
        .arg(&transcript);
    let _server;
    if transport == "http" {
        let (server, url) = setup.serve();
        _server = server;
        command.args(["--url", &url]);
    } else {
        // The SDK starts the server itself: the same command, its environment passed on.
        let mbank = setup.mbank(&["mcp"]);
        command.arg("--cwd").arg(&setup.infinity);
        command.arg("--command").arg(mbank.get_program());
        command.args(mbank.get_args());
        for (key, value) in mbank.get_envs() {
            match value {
                Some(value) => command.env(key, value),
                None => command.env_remove(key),
            };
        }
    }
    let output = common::within(Duration::from_secs(180), "the SDK session", move || {
        command.output().unwrap()
    });
    assert!(
        output.status.success(),
        "the SDK session ({transport}, {mode}) failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let mut session: Value =
        serde_json::from_str(&std::fs::read_to_string(&transcript).unwrap()).unwrap();
    session["transport"] = json!(transport);
    session
}

/// The SDK in both modes over both transports, each session on a fresh root of three
/// projects: every tool call as expected (the script checks each answer).
#[test]
fn the_python_sdk_calls_every_tool_in_default_and_legacy_mode_over_stdio_and_http() {
    let python = match sdk_python() {
        Ok(python) => python,
        Err(why) => {
            eprintln!("skipped: the MCP Python SDK is not available here: {why}");
            return;
        }
    };
    // Each session spends most of its time starting Python and importing the SDK, so the
    // four run side by side, each on its own root; they are checked in a fixed order.
    let runs = [
        ("stdio", "auto"),
        ("stdio", "legacy"),
        ("http", "auto"),
        ("http", "legacy"),
    ];
    let finished: Vec<Value> = std::thread::scope(|scope| {
        let python = &python;
        let handles: Vec<_> = runs
            .iter()
            .map(|&(transport, mode)| scope.spawn(move || run_sdk_session(python, transport, mode)))
            .collect();
        handles
            .into_iter()
            .map(|handle| {
                handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    let mut sessions = Vec::new();
    for (&(transport, mode), session) in runs.iter().zip(finished) {
        let version = session["protocolVersion"].as_str().unwrap_or("");
        if mode == "auto" {
            assert_eq!(version, "2026-07-28", "{transport}");
        } else {
            assert!(version < "2026-07-28", "{transport} legacy: {version}");
        }
        sessions.push(session);
    }
    if std::env::var_os("MBANK_RECORD_SDK_SESSIONS").is_some() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURE);
        let text =
            serde_json::to_string_pretty(&json!({"sdk": SDK, "now": NOW, "sessions": sessions}))
                .unwrap();
        std::fs::write(path, text + "\n").unwrap();
    }
}

/// Whether `text` looks like a UUID (what mbank mints for Infinity ids).
fn is_uuid(text: &str) -> bool {
    text.len() == 36
        && text.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// Times as entries and stamps write them: the clock runs on from [`NOW`], so a replay
/// writes other seconds than the recording did.
static TIMES: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?")
        .unwrap()
});

/// A message made comparable: the root written as {root}, UUIDs as {uuid}, times as
/// {time} and content versions (hashes of texts that hold times) as {hash}, file times and
/// the server's own version left out, JSON carried as text read as JSON.
fn normalized(value: &Value, root: &str) -> Value {
    match value {
        Value::String(text) => {
            if let Ok(inner @ (Value::Object(_) | Value::Array(_))) =
                serde_json::from_str::<Value>(text)
            {
                return normalized(&inner, root);
            }
            let text = text.replace(root, "{root}");
            let is_hash = text.len() == 32 && text.chars().all(|c| c.is_ascii_hexdigit());
            if is_uuid(&text) {
                json!("{uuid}")
            } else if is_hash {
                json!("{hash}")
            } else {
                Value::String(TIMES.replace_all(&text, "{time}").into_owned())
            }
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| normalized(v, root)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, value)| {
                    let value = match key.as_str() {
                        "lastModified" | "modified" => json!("{time}"),
                        // `serverInfo`, or `io.modelcontextprotocol/serverInfo` in `_meta`.
                        info if info.ends_with("serverInfo") && value.is_object() => {
                            let mut info = value.clone();
                            info["version"] = json!("{version}");
                            info
                        }
                        _ => normalized(value, root),
                    };
                    (key.clone(), value)
                })
                .collect::<Map<String, Value>>(),
        ),
        other => other.clone(),
    }
}

/// Where `recorded` (what the SDK kept of an answer) differs from `replayed`: every key
/// and item it has must be there, alike.
fn difference(recorded: &Value, replayed: &Value, at: &str) -> Option<String> {
    match (recorded, replayed) {
        (Value::Object(want), Value::Object(got)) => want.iter().find_map(|(key, value)| {
            let at = format!("{at}.{key}");
            match got.get(key) {
                Some(other) => difference(value, other, &at),
                None if value.is_null() => None,
                None => Some(format!("{at} is missing")),
            }
        }),
        (Value::Array(want), Value::Array(got)) if want.len() == got.len() => want
            .iter()
            .zip(got)
            .enumerate()
            .find_map(|(i, (w, g))| difference(w, g, &format!("{at}[{i}]"))),
        _ if recorded == replayed => None,
        _ => Some(format!("{at}: recorded {recorded}, replayed {replayed}")),
    }
}

/// Notes the UUIDs the replay minted in place of the recorded ones.
fn map_ids(recorded: &Value, replayed: &Value, ids: &mut Vec<(String, String)>) {
    match (recorded, replayed) {
        (Value::String(a), Value::String(b)) => {
            if let (Ok(a @ Value::Object(_)), Ok(b @ Value::Object(_))) = (
                serde_json::from_str::<Value>(a),
                serde_json::from_str::<Value>(b),
            ) {
                map_ids(&a, &b, ids);
            } else if is_uuid(a) && is_uuid(b) && a != b && !ids.iter().any(|(old, _)| old == a) {
                ids.push((a.clone(), b.clone()));
            }
        }
        (Value::Object(a), Value::Object(b)) => {
            for (key, value) in a {
                if let Some(other) = b.get(key) {
                    map_ids(value, other, ids);
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            for (x, y) in a.iter().zip(b) {
                map_ids(x, y, ids);
            }
        }
        _ => {}
    }
}

/// The server's answers to one session's client messages, by request id.
trait Replayer {
    /// Sends one client message; the answer when it is a request.
    fn send(&mut self, message: &Value, headers: &Map<String, Value>) -> Option<Value>;
}

struct StdioReplay {
    child: KillOnDrop,
    lines: std::io::Lines<BufReader<std::process::ChildStdout>>,
}

impl Replayer for StdioReplay {
    fn send(&mut self, message: &Value, _: &Map<String, Value>) -> Option<Value> {
        let stdin = self.child.0.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
        let id = message
            .get("id")
            .filter(|_| message.get("method").is_some())?;
        loop {
            let line = self.lines.next().expect("the server answered").unwrap();
            let answer: Value = serde_json::from_str(&line).unwrap();
            if answer.get("id") == Some(id) {
                return Some(answer);
            }
        }
    }
}

struct HttpReplay {
    url: String,
    session: Option<String>,
    version: Option<String>,
    agent: reqwest::Client,
    runtime: tokio::runtime::Runtime,
}

impl Replayer for HttpReplay {
    fn send(&mut self, message: &Value, headers: &Map<String, Value>) -> Option<Value> {
        let mut request = self
            .agent
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        for (name, value) in headers {
            if let Some(value) = value.as_str() {
                request = request.header(name.as_str(), value);
            }
        }
        if let Some(session) = &self.session {
            request = request.header("mcp-session-id", session);
        }
        if let (Some(version), false) = (
            &self.version,
            headers
                .keys()
                .any(|k| k.eq_ignore_ascii_case("mcp-protocol-version")),
        ) {
            request = request.header("mcp-protocol-version", version);
        }
        let body = message.to_string();
        let response = self
            .runtime
            .block_on(async move { request.body(body).send().await })
            .unwrap();
        if let Some(session) = response.headers().get("mcp-session-id") {
            self.session = Some(session.to_str().unwrap().to_string());
        }
        let id = message
            .get("id")
            .filter(|_| message.get("method").is_some())?;
        let sse = response
            .headers()
            .get("content-type")
            .is_some_and(|t| t.to_str().unwrap_or("").starts_with("text/event-stream"));
        let body = self.runtime.block_on(response.text()).unwrap();
        let answers: Vec<Value> = if sse {
            body.lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .filter_map(|d| serde_json::from_str(d.trim()).ok())
                .collect()
        } else {
            serde_json::from_str(&body).into_iter().collect()
        };
        let answer = answers.into_iter().find(|a| a.get("id") == Some(id))?;
        if message["method"] == "initialize"
            && let Some(version) = answer
                .pointer("/result/protocolVersion")
                .and_then(Value::as_str)
        {
            self.version = Some(version.to_string());
        }
        Some(answer)
    }
}

/// Replays one recorded session against a fresh server on a fresh root.
fn replay(session: &Value) {
    let setup = Setup::new();
    let root = setup.root.to_string_lossy().into_owned();
    let transport = session["transport"].as_str().unwrap();
    let _server;
    let mut replayer: Box<dyn Replayer> = if transport == "http" {
        let (server, url) = setup.serve();
        _server = server;
        crate::http_serve::tls();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        // The client's connection pool needs the runtime it runs in.
        let agent = runtime.block_on(async {
            reqwest::Client::builder()
                .timeout(Duration::from_secs(60))
                .build()
                .unwrap()
        });
        Box::new(HttpReplay {
            url,
            session: None,
            version: None,
            agent,
            runtime,
        })
    } else {
        let mut child = setup
            .mbank(&["mcp"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        Box::new(StdioReplay {
            child: KillOnDrop(child),
            lines,
        })
    };
    let messages = session["messages"].as_array().unwrap();
    let mut ids: Vec<(String, String)> = Vec::new();
    let mut compared = 0;
    for (i, entry) in messages.iter().enumerate() {
        if entry["from"] != "client" {
            continue;
        }
        let mut text = entry["message"].to_string().replace("{root}", &root);
        for (old, new) in &ids {
            text = text.replace(old.as_str(), new);
        }
        let message: Value = serde_json::from_str(&text).unwrap();
        let headers = entry["headers"].as_object().cloned().unwrap_or_default();
        let Some(answer) = replayer.send(&message, &headers) else {
            continue;
        };
        let recorded = messages[i..]
            .iter()
            .find(|m| m["from"] == "server" && m["message"].get("id") == entry["message"].get("id"))
            .unwrap_or_else(|| panic!("no recorded answer to {}", entry["message"]));
        map_ids(&recorded["message"], &answer, &mut ids);
        let want = normalized(&recorded["message"], "{root}");
        let got = normalized(&answer, &root);
        if let Some(problem) = difference(&want, &got, "") {
            panic!(
                "{transport} {} session, {}: {problem}",
                session["mode"], entry["message"]
            );
        }
        compared += 1;
    }
    assert!(compared >= 30, "only {compared} answers compared");
}

/// The recorded SDK sessions, replayed message by message: the server answers the SDK's
/// own messages as it did when they were recorded, in both protocol versions, over both
/// transports.
#[test]
fn recorded_sdk_sessions_replay_alike() {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURE)).unwrap();
    let fixture: Value = serde_json::from_str(&text).unwrap();
    let sessions = fixture["sessions"].as_array().unwrap();
    let kinds: Vec<(String, String)> = sessions
        .iter()
        .map(|s| (s["transport"].to_string(), s["mode"].to_string()))
        .collect();
    assert_eq!(kinds.len(), 4, "{kinds:?}");
    for session in sessions {
        replay(session);
    }
}

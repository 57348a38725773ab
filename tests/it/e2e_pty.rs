//! End to end, as a person would: the real `mbank` binary in a pseudo-terminal, keys
//! typed into it, the screen read back through a terminal emulator (vt100), and the
//! edited file checked on disk. The binary runs in the tests' hermetic sandbox
//! (`common::Sandbox`: its own HOME and XDG folders).
use crate::common;

use std::io::{Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::Sandbox;
use portable_pty::{CommandBuilder, PtySize, native_pty_system};

const ROWS: u16 = 40;
const COLS: u16 = 140;
/// How long a screen may take to show what is awaited: a watchdog against a hang, generous
/// because the whole suite shares two cores with this terminal.
const WAIT: Duration = Duration::from_secs(60);

struct Session {
    screen: Arc<Mutex<vt100::Parser>>,
    writer: Box<dyn Write + Send>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
}

impl Session {
    fn start(root: &Path, sandbox: &Sandbox) -> Session {
        Session::start_with(root, sandbox, None)
    }

    fn start_with(root: &Path, sandbox: &Sandbox, editor: Option<&Path>) -> Session {
        Session::start_env(root, sandbox, editor, &[])
    }

    /// With more variables set (`MBANK_DATA_DIR` shared with an agent server).
    fn start_env(
        root: &Path,
        sandbox: &Sandbox,
        editor: Option<&Path>,
        env: &[(&str, &Path)],
    ) -> Session {
        let pty = native_pty_system()
            .openpty(PtySize {
                rows: ROWS,
                cols: COLS,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("a pseudo-terminal");
        let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_mbank"));
        command.arg("--root");
        command.arg(root);
        for var in sandbox.removed_env() {
            command.env_remove(var);
        }
        for (var, value) in sandbox.env() {
            command.env(var, value);
        }
        command.cwd(sandbox.home());
        for (var, value) in env {
            command.env(var, value);
        }
        command.env("TERM", "xterm-256color");
        command.env_remove("VISUAL");
        match editor {
            Some(editor) => command.env("EDITOR", editor),
            None => command.env_remove("EDITOR"),
        }
        let child = pty.slave.spawn_command(command).expect("mbank starts");
        drop(pty.slave);
        let mut reader = pty.master.try_clone_reader().expect("a reader");
        let writer = pty.master.take_writer().expect("a writer");
        let size = |n: u16| std::num::NonZeroU16::new(n).expect("a terminal size is not zero");
        let screen = Arc::new(Mutex::new(vt100::Parser::new(size(ROWS), size(COLS), 0)));

        let sink = screen.clone();
        std::thread::spawn(move || {
            let _master = pty.master;
            let mut buffer = [0u8; 8192];
            loop {
                match reader.read(&mut buffer) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => sink.lock().unwrap().process(&buffer[..n]),
                }
            }
        });
        Session {
            screen,
            writer,
            child,
        }
    }

    fn contents(&self) -> String {
        self.screen.lock().unwrap().screen().contents()
    }

    fn wait_for(&self, text: &str) {
        let deadline = Instant::now() + WAIT;
        while !self.contents().contains(text) {
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {text:?}; the screen shows:\n{}",
                self.contents()
            );
            std::thread::sleep(Duration::from_millis(40));
        }
    }

    /// Waits until `text` is off the screen.
    fn wait_gone(&self, text: &str) {
        let deadline = Instant::now() + WAIT;
        while self.contents().contains(text) {
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {text:?} to go; the screen shows:\n{}",
                self.contents()
            );
            std::thread::sleep(Duration::from_millis(40));
        }
    }

    /// The screen's last row: the status bar.
    fn status_bar(&self) -> String {
        self.contents()
            .lines()
            .last()
            .unwrap_or_default()
            .to_string()
    }

    fn quit(&mut self) {
        self.send(b"\x11"); // ctrl-q
        let deadline = Instant::now() + WAIT;
        while self.child.try_wait().unwrap().is_none() {
            assert!(Instant::now() < deadline, "mbank did not quit");
            std::thread::sleep(Duration::from_millis(40));
        }
    }

    fn send(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).unwrap();
        self.writer.flush().unwrap();
        // Keys come at a typist's pace, not as one burst: an escape followed at once by a
        // letter is how a terminal spells alt+letter, so a burst would be read as other keys.
        std::thread::sleep(Duration::from_millis(60));
    }
}

#[test]
fn open_the_demo_navigate_edit_save_and_quit_in_a_real_terminal() {
    // The real binary judges by the system clock: the copy is dated as of it too.
    let demo = mbank::core::demo::create(&mbank::core::clock::Clock::system()).unwrap();
    let sandbox = Sandbox::new();
    let mut session = Session::start(demo.path(), &sandbox);

    session.wait_for("weather-api");
    session.wait_for("sorted by recent activity");
    session.send(b"weather");
    session.wait_for("1 of 6");
    session.send(b"\r");
    session.wait_for("projectBrief.md");
    session.wait_for("# Project Brief");

    // Down to progress.md (layer 6): the editor follows the selection.
    for _ in 0..5 {
        session.send(b"\x1b[B");
    }
    session.wait_for("# Progress");
    session.send(b"\r");
    session.send(b"Checked end to end. ");
    session.wait_for("progress.md ●");
    session.send(b"\x13"); // ctrl-s
    session.wait_for("saved progress.md");
    let on_disk =
        std::fs::read_to_string(demo.path().join("weather-api/memory-bank/progress.md")).unwrap();
    assert!(
        on_disk.starts_with("Checked end to end. # Progress"),
        "{on_disk}"
    );

    // Help overlay, then quit; the terminal leaves the alternate screen.
    // Each key once the one before has shown: a terminal reading Esc and the next key
    // together takes them for one Alt-chord.
    session.send(b"\x1b"); // back to the tree
    session.wait_gone("EDITING");
    session.send(b"?");
    session.wait_for("Keys");
    session.send(b"\x1b");
    session.wait_gone("Keys");
    session.send(b"q");
    let deadline = Instant::now() + WAIT;
    let status = loop {
        if let Some(status) = session.child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "mbank did not quit");
        std::thread::sleep(Duration::from_millis(40));
    };
    assert!(status.success(), "{status:?}");
    // The reader thread may still be passing on the last bytes it wrote.
    let deadline = Instant::now() + WAIT;
    while session.screen.lock().unwrap().screen().alternate_screen() {
        assert!(Instant::now() < deadline, "the terminal was not restored");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn open_in_editor_suspends_the_ui_and_picks_up_what_the_editor_wrote() {
    // The real binary judges by the system clock: the copy is dated as of it too.
    let demo = mbank::core::demo::create(&mbank::core::clock::Clock::system()).unwrap();
    let sandbox = Sandbox::new();
    // A stand-in for $EDITOR that appends a line and exits.
    let editor = sandbox.home().join("fake-editor.sh");
    std::fs::write(
        &editor,
        "#!/bin/sh\necho '- appended by the external editor' >> \"$1\"\n",
    )
    .unwrap();
    let mut permissions = std::fs::metadata(&editor).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&editor, permissions).unwrap();

    let mut session = Session::start_with(demo.path(), &sandbox, Some(&editor));
    session.wait_for("sorted by recent activity");
    session.send(b"gemini");
    session.wait_for("1 of 6");
    session.send(b"\r");
    // The file's text, not its name (which the picker shows too): the project is open
    // and its file loaded, so `e` reaches the editor, not a screen still loading.
    session.wait_for("# logslice");
    session.send(b"e");
    session.wait_for("appended by the external editor");
    let on_disk = std::fs::read_to_string(demo.path().join("gemini-cli-tool/GEMINI.md")).unwrap();
    assert!(
        on_disk.ends_with("- appended by the external editor\n"),
        "{on_disk}"
    );
    session.send(b"q");
    let deadline = Instant::now() + WAIT;
    while session.child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "mbank did not quit");
        std::thread::sleep(Duration::from_millis(40));
    }
}

#[test]
fn zoom_in_the_tree_does_not_carry_into_the_editor_in_a_real_terminal() {
    // The real binary judges by the system clock: the copy is dated as of it too.
    let demo = mbank::core::demo::create(&mbank::core::clock::Clock::system()).unwrap();
    let brief = demo.path().join("weather-api/memory-bank/projectBrief.md");
    let before = std::fs::read_to_string(&brief).unwrap();
    let sandbox = Sandbox::new();
    let mut session = Session::start(demo.path(), &sandbox);
    session.wait_for("sorted by recent activity");
    session.send(b"weather");
    session.wait_for("1 of 6");
    session.send(b"\r");
    session.wait_for("# Project Brief");
    // z: the tree takes the width (the editor's title is gone).
    session.send(b"z");
    session.wait_gone("1:1");
    // Enter: the keyboard goes to the file, and the tree shows again beside it.
    session.send(b"\r");
    session.wait_for("1:1");
    session.wait_for("techContext.md");
    session.wait_for("esc tree");
    // F8 zooms the editor and leaves it; esc goes back to the tree; nothing was typed.
    session.send(b"\x1b[19~");
    session.wait_gone("techContext.md");
    assert!(
        session.status_bar().contains("F8 zoom"),
        "{}",
        session.status_bar()
    );
    session.send(b"\x1b[19~");
    session.wait_for("techContext.md");
    session.send(b"\x1b");
    session.wait_for("enter open");
    assert!(
        !session.contents().contains("projectBrief.md ●"),
        "{}",
        session.contents()
    );
    session.quit();
    assert_eq!(std::fs::read_to_string(&brief).unwrap(), before);
}

#[test]
fn esc_on_the_conflict_prompt_goes_back_to_the_edits_in_a_real_terminal() {
    // The real binary judges by the system clock: the copy is dated as of it too.
    let demo = mbank::core::demo::create(&mbank::core::clock::Clock::system()).unwrap();
    let progress = demo.path().join("weather-api/memory-bank/progress.md");
    let sandbox = Sandbox::new();
    let mut session = Session::start(demo.path(), &sandbox);
    session.wait_for("sorted by recent activity");
    session.send(b"weather");
    session.wait_for("1 of 6");
    session.send(b"\r");
    session.wait_for("# Project Brief");
    for _ in 0..5 {
        session.send(b"\x1b[B");
    }
    session.wait_for("# Progress");
    session.send(b"\r");
    session.send(b"MINE ");
    session.wait_for("progress.md ●");
    // An agent appends to the file: the watcher brings the prompt.
    let theirs = format!(
        "{}- [x] an agent's line\n",
        std::fs::read_to_string(&progress).unwrap()
    );
    std::fs::write(&progress, &theirs).unwrap();
    session.wait_for("changed on disk while you were editing");
    session.wait_for("esc back");
    session.send(b"\x1b");
    session.wait_gone("changed on disk while you were editing");
    // Back in the edits, which are kept; the disk keeps theirs.
    session.wait_for("progress.md ●");
    session.wait_for("MINE # Progress");
    assert_eq!(std::fs::read_to_string(&progress).unwrap(), theirs);
    // Quitting asks first over the edits; say yes.
    session.send(b"\x11");
    session.wait_for("Quit?");
    session.send(b"y");
    let deadline = Instant::now() + WAIT;
    while session.child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "mbank did not quit");
        std::thread::sleep(Duration::from_millis(40));
    }
    assert_eq!(std::fs::read_to_string(&progress).unwrap(), theirs);
}

const ACTIVE: &str = "# Active Context\n\n## Focus\n- login form\n\n## Notes\n- one\n- two\n- three\n- four\n- five\n- six\n\n## Risks\n- none known\n- still none\n- really none\n- none at all\n\n## Next\n- ship it\n";
/// The agent's rewrite: three separate hunks.
const REWRITE: &str = "# Active Context\n\n## Focus\n- password reset\n\n## Notes\n- one\n- two\n- three\n- four\n- five\n- six\n\n## Risks\n- none known\n- e-mail delivery\n- really none\n- none at all\n\n## Next\n- write the e-mail template\n";
const FIRST_HUNK_ONLY: &str = "# Active Context\n\n## Focus\n- password reset\n\n## Notes\n- one\n- two\n- three\n- four\n- five\n- six\n\n## Risks\n- none known\n- still none\n- really none\n- none at all\n\n## Next\n- ship it\n";

/// An MCP session over `mbank mcp --stage` (the rmcp client): calls each tool, which
/// must answer that it staged the write.
fn agent_stages(root: &Path, sandbox: &Sandbox, data: &Path, calls: &[(&str, serde_json::Value)]) {
    use rmcp::ServiceExt;
    use rmcp::model::CallToolRequestParams;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut command = sandbox.mbank();
        command
            .arg("--root")
            .arg(root)
            .args(["mcp", "--stage"])
            .env("MBANK_DATA_DIR", data)
            .current_dir(root);
        let (transport, _) =
            rmcp::transport::TokioChildProcess::builder(tokio::process::Command::from(command))
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap();
        let client = tokio::time::timeout(WAIT, ().serve(transport))
            .await
            .unwrap()
            .unwrap();
        for (name, args) in calls {
            let serde_json::Value::Object(map) = args.clone() else {
                panic!("arguments must be an object");
            };
            let params = CallToolRequestParams::new(name.to_string()).with_arguments(map);
            let result = tokio::time::timeout(WAIT, client.call_tool(params))
                .await
                .unwrap()
                .unwrap();
            let text = result.content[0].as_text().unwrap().text.clone();
            assert_ne!(result.is_error, Some(true), "{name}: {text}");
            assert!(text.contains("\"staged\""), "{name}: {text}");
        }
        tokio::time::timeout(WAIT, client.cancel())
            .await
            .unwrap()
            .unwrap();
    });
}

#[test]
fn an_agent_stages_three_changes_while_the_tui_is_open_and_a_person_accepts_one_hunk_with_keys() {
    let sandbox = Sandbox::new();
    let root = sandbox.home().join("banks");
    let project = root.join("app");
    sandbox
        .run(&["init", project.to_str().unwrap()])
        .expect_code(0);
    let active = project.join("memory-bank/activeContext.md");
    std::fs::write(&active, ACTIVE).unwrap();
    let decisions = project.join("memory-bank/decisionLog.md");
    let decisions_before = std::fs::read_to_string(&decisions).ok();
    let data = sandbox.home().join("data-mbank");
    // As if an `mbank watch` ran: the app leaves recording to it, so the history holds
    // exactly what the proposals' writes replaced (recording is tested in tui_changes).
    std::fs::create_dir_all(&data).unwrap();
    let _watch =
        mbank::core::journal::lock::try_take(&data, mbank::core::journal::lock::Holder::Watch)
            .unwrap()
            .unwrap();
    let mut session = Session::start_env(&root, &sandbox, None, &[("MBANK_DATA_DIR", &data)]);
    session.wait_for("sorted by recent activity");
    session.wait_for("app");

    // The agent, in another process, while the TUI is open.
    agent_stages(
        &root,
        &sandbox,
        &data,
        &[
            (
                "memory_bank_update",
                serde_json::json!({"projectPath": "app", "fileName": "activeContext.md", "content": REWRITE}),
            ),
            (
                "log_decision",
                serde_json::json!({"projectPath": "app", "title": "Use signed reset links", "context": "c", "decision": "d"}),
            ),
            (
                "memory_bank_write",
                serde_json::json!({"projectPath": "app", "fileName": "ideas.md", "content": "# Ideas\n- dark mode\n"}),
            ),
        ],
    );
    // Live, without a key: the picker row's badge and the notice.
    session.wait_for("⧗3");
    session.wait_for("agent proposed a change to");
    assert_eq!(std::fs::read_to_string(&active).unwrap(), ACTIVE);

    // Into the project's review, onto the rewrite.
    session.send(b"app");
    session.send(b"\r");
    session.wait_for("activeContext.md");
    session.send(b"r");
    session.wait_for("3 proposals");
    for _ in 0..12 {
        if session.contents().contains("▶ ⧗ #1 activeContext.md") {
            break;
        }
        session.send(b"]");
    }
    session.wait_for("▶ ⧗ #1 activeContext.md");
    session.wait_for("hunk 1 of 3");
    // Its details name the tool and the agent's client.
    session.send(b"\r");
    session.wait_for("tool: mcp:memory_bank_update");
    session.wait_for("client: rmcp");
    // Take the first hunk, leave out the other two.
    session.send(b"a");
    session.wait_for("2 left to decide");
    session.send(b"x");
    session.send(b"x");
    session.wait_for("accepted hunk 1 of proposal 1 into activeContext.md");
    session.wait_for("2 proposals");
    // Reject the decision and the new file: each after its prompt.
    for id in [2, 3] {
        let row = format!("▶ ⧗ #{id} ");
        for _ in 0..12 {
            if session.contents().contains(&row) {
                break;
            }
            session.send(b"]");
        }
        session.wait_for(&row);
        session.send(b"\x18"); // ctrl-x
        session.wait_for("Reject the proposal?");
        session.send(b"y");
        session.wait_for(&format!("rejected proposal {id}"));
    }
    session.wait_gone("⧗ #");

    assert_eq!(std::fs::read_to_string(&active).unwrap(), FIRST_HUNK_ONLY);
    assert_eq!(std::fs::read_to_string(&decisions).ok(), decisions_before);
    assert!(!project.join("memory-bank/ideas.md").exists());
    // The version the accept replaced is in the history.
    let history = sandbox.run_env(
        &["history", active.to_str().unwrap(), "--json"],
        "MBANK_DATA_DIR",
        &data,
    );
    history.expect_code(0);
    let versions = history.json()["versions"].as_array().unwrap().clone();
    assert_eq!(versions.len(), 1, "{versions:?}");
    assert_eq!(versions[0]["writer"], "accept");
    assert_eq!(versions[0]["size"].as_u64(), Some(ACTIVE.len() as u64));
    // `mbank restore` brings the first version back, and keeps what it replaced.
    sandbox
        .run_env(
            &["restore", active.to_str().unwrap(), "1"],
            "MBANK_DATA_DIR",
            &data,
        )
        .expect_code(0);
    assert_eq!(std::fs::read_to_string(&active).unwrap(), ACTIVE);
    let history = sandbox.run_env(
        &["history", active.to_str().unwrap(), "--json"],
        "MBANK_DATA_DIR",
        &data,
    );
    let writers: Vec<String> = history.json()["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["writer"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(writers, ["accept", "restore"]);
    session.quit();
}

#[test]
fn an_agent_edits_and_deletes_memory_directly_and_a_person_reverts_and_restores_it_in_the_changes_view()
 {
    use mbank::core::history::{History, Retention};
    use mbank::core::journal::lock;

    let sandbox = Sandbox::new();
    let root = sandbox.home().join("banks");
    let project = root.join("app");
    sandbox
        .run(&["init", project.to_str().unwrap()])
        .expect_code(0);
    let active = project.join("memory-bank/activeContext.md");
    std::fs::write(&active, ACTIVE).unwrap();
    let progress = project.join("memory-bank/progress.md");
    let progress_text = std::fs::read_to_string(&progress).unwrap();
    let data = sandbox.home().join("data-mbank");
    let mut session = Session::start_env(&root, &sandbox, None, &[("MBANK_DATA_DIR", &data)]);
    session.wait_for("sorted by recent activity");

    // The app records (no `mbank watch` runs): it caught up once both files have a version.
    let history = History::new(&data, Retention::default(), sandbox.clock());
    common::poll_until(WAIT, "the app recording what is on disk", || {
        (lock::holder(&data) == Some(lock::Holder::App)
            && [&active, &progress]
                .iter()
                .all(|file| history.list(file).is_ok_and(|v| !v.is_empty())))
        .then_some(())
    });
    session.send(b"\x1b[21~"); // F10: the Changes view
    session.wait_for("No memory file changed since it was last marked reviewed");

    // An agent with its own file tools, in another process: no mbank server involved.
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "printf '%s' \"$1\" > '{}' && rm '{}'",
            active.display(),
            progress.display()
        ))
        .arg("agent")
        .arg(REWRITE)
        .status()
        .unwrap();
    assert!(status.success());
    session.wait_for("2 files");
    session.wait_for("activeContext.md");
    session.wait_for("progress.md");
    session.wait_for("written on disk (Cline memory bank)");

    // The rewrite first (listed first): the whole file back, after a question.
    session.send(b"\x18"); // ctrl-x
    session.wait_for("Revert the whole file?");
    session.send(b"y");
    common::poll_until(WAIT, "the earlier text back on disk", || {
        (std::fs::read_to_string(&active).ok()? == ACTIVE).then_some(())
    });
    session.wait_for("1 file");
    // The deleted file, at once: bringing it back loses nothing.
    session.send(b"\x18");
    common::poll_until(WAIT, "the deleted file restored", || {
        (std::fs::read_to_string(&progress).ok()? == progress_text).then_some(())
    });
    session.wait_for("No memory file changed since it was last marked reviewed");
    let writers: Vec<String> = [&active, &progress]
        .iter()
        .map(|file| history.list(file).unwrap().last().unwrap().writer.clone())
        .collect();
    assert_eq!(writers, ["revert", "restore"]);
    session.quit();
}

#[test]
fn two_escapes_sent_together_after_a_search_leave_the_editor_in_a_real_terminal() {
    // The real binary judges by the system clock: the copy is dated as of it too.
    let demo = mbank::core::demo::create(&mbank::core::clock::Clock::system()).unwrap();
    let brief = demo.path().join("weather-api/memory-bank/projectBrief.md");
    let before = std::fs::read_to_string(&brief).unwrap();
    let sandbox = Sandbox::new();
    let mut session = Session::start(demo.path(), &sandbox);
    session.wait_for("sorted by recent activity");
    session.send(b"weather");
    session.wait_for("1 of 6");
    session.send(b"\r");
    session.wait_for("# Project Brief");
    session.send(b"\r");
    session.wait_for("EDITING");
    session.send(b"\x06"); // ctrl-f
    session.wait_for("search:");
    // One write: the terminal reads both escapes as one key.
    session.send(b"\x1b\x1b");
    session.wait_for("enter open");
    session.send(b"zz");
    assert!(
        !session.contents().contains("projectBrief.md ●"),
        "{}",
        session.contents()
    );
    session.quit();
    assert_eq!(std::fs::read_to_string(&brief).unwrap(), before);
}

/// mbank in a detached tmux session of its own (its own server socket, no tmux
/// configuration): the screen as tmux holds it, keys and mouse reports as tmux passes
/// them on. `None`, and the test skipped, where tmux is not installed.
struct Tmux {
    socket: std::path::PathBuf,
}

impl Tmux {
    fn start(root: &Path, sandbox: &Sandbox, (width, height): (u16, u16)) -> Option<Tmux> {
        if std::process::Command::new("tmux")
            .arg("-V")
            .output()
            .is_err()
        {
            eprintln!("tmux is not installed: skipped");
            return None;
        }
        let socket = sandbox.home().join("tmux.sock");
        let mut command = std::process::Command::new("tmux");
        command
            .arg("-S")
            .arg(&socket)
            .args(["-f", "/dev/null", "new-session", "-d", "-s", "mbank"])
            .args(["-x", &width.to_string(), "-y", &height.to_string()])
            .arg(env!("CARGO_BIN_EXE_mbank"))
            .arg("--root")
            .arg(root)
            .current_dir(sandbox.home());
        for var in sandbox.removed_env() {
            command.env_remove(var);
        }
        command.envs(sandbox.env());
        command.env("TERM", "xterm-256color").env_remove("TMUX");
        let status = command.status().expect("tmux runs");
        assert!(status.success(), "tmux new-session: {status:?}");
        Some(Tmux { socket })
    }

    fn tmux(&self, args: &[&str]) -> String {
        let output = std::process::Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("tmux runs");
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    fn contents(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-t", "mbank"])
    }

    /// Waits until `done` holds for the screen; returns it.
    fn wait_until(&self, what: &str, done: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + WAIT;
        loop {
            let screen = self.contents();
            if done(&screen) {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}; the screen shows:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(40));
        }
    }

    fn wait_for(&self, text: &str) -> String {
        self.wait_until(text, |screen| screen.contains(text))
    }

    /// Keys as tmux names them (`Enter`, `p`), literally for plain text.
    fn send(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "mbank"];
        args.extend(keys);
        self.tmux(&args);
        std::thread::sleep(Duration::from_millis(60));
    }

    /// A left click at a cell (from 0), pressed and released, as an xterm SGR mouse
    /// report: what a terminal sends once the app has asked for the mouse.
    fn click(&self, column: usize, row: usize) {
        for end in ['M', 'm'] {
            let report = format!("\x1b[<0;{};{}{end}", column + 1, row + 1);
            let hex: Vec<String> = report.bytes().map(|b| format!("{b:02x}")).collect();
            let mut args = vec!["send-keys", "-t", "mbank", "-H"];
            args.extend(hex.iter().map(String::as_str));
            self.tmux(&args);
        }
        std::thread::sleep(Duration::from_millis(60));
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.tmux(&["kill-server"]);
    }
}

#[test]
fn a_mouse_click_on_a_picker_row_marks_it_and_enter_opens_it_in_tmux() {
    // The real binary judges by the system clock: the copy is dated as of it too.
    let demo = mbank::core::demo::create(&mbank::core::clock::Clock::system()).unwrap();
    let sandbox = Sandbox::new();
    let Some(tmux) = Tmux::start(demo.path(), &sandbox, (80, 24)) else {
        return;
    };
    tmux.wait_for("sorted by recent activity");
    tmux.send(&["-l", "weather"]);
    tmux.wait_for("1 of 6");
    tmux.send(&["Enter"]);
    tmux.wait_for("# Project Brief");
    // One key at a time: an escape followed at once by a letter reads as alt+letter.
    tmux.send(&["Escape"]);
    tmux.wait_for("enter open");
    tmux.send(&["p"]);
    let screen = tmux.wait_for("weather-api is open");
    assert!(screen.contains("▸ weather-api"), "{screen}");
    let row = screen
        .lines()
        .position(|line| line.contains("mobile-app"))
        .expect("the mobile-app row");
    tmux.click(10, row);
    let screen = tmux.wait_until("the marker on the clicked row", |screen| {
        screen
            .lines()
            .nth(row)
            .is_some_and(|line| line.contains("▸ mobile-app"))
    });
    assert!(screen.contains("• weather-api"), "{screen}");
    assert_eq!(
        screen.lines().filter(|line| line.contains('▸')).count(),
        1,
        "{screen}"
    );
    tmux.send(&["Enter"]);
    tmux.wait_until("the clicked project open", |screen| {
        screen
            .lines()
            .next()
            .is_some_and(|header| header.contains("mobile-app"))
    });
}

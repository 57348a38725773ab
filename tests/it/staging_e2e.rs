//! Staged writes and history end to end through the real binary: an agent session over
//! `mbank mcp --stage` (the official MCP SDK's client) proposes changes that do not touch
//! the files; `mbank proposals`, `accept --hunks` and `reject` decide them; `mbank
//! history` lists every replaced version and `mbank restore` brings one back. Then
//! `mbank serve` with `writes = "stage"` for one project only, over the REST API.
use crate::common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Duration;

use common::{Run, Sandbox};
use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

type Client = RunningService<RoleClient, ()>;

const ORIGINAL: &str = "# Active Context\n\n## Current Focus\n- login form\n\n## Notes\n- one\n- two\n- three\n- four\n\n## Next Steps\n- ship it\n";
/// The agent's rewrite: two separate hunks (the focus, and the next steps).
const REWRITE: &str = "# Active Context\n\n## Current Focus\n- password reset\n\n## Notes\n- one\n- two\n- three\n- four\n\n## Next Steps\n- write the e-mail template\n";
/// The original with only the first hunk of the rewrite.
const FIRST_HUNK_ONLY: &str = "# Active Context\n\n## Current Focus\n- password reset\n\n## Notes\n- one\n- two\n- three\n- four\n\n## Next Steps\n- ship it\n";

struct Setup {
    sandbox: Sandbox,
    root: PathBuf,
    data: PathBuf,
}

impl Setup {
    fn new(projects: &[&str]) -> Setup {
        let sandbox = Sandbox::new();
        let root = sandbox.home().join("banks");
        for project in projects {
            sandbox
                .run(&["init", root.join(project).to_str().unwrap()])
                .expect_code(0);
            std::fs::write(
                root.join(project).join("memory-bank/activeContext.md"),
                ORIGINAL,
            )
            .unwrap();
        }
        let data = sandbox.home().join("data-mbank");
        Setup {
            sandbox,
            root,
            data,
        }
    }

    fn file(&self, project: &str, name: &str) -> PathBuf {
        self.root.join(project).join("memory-bank").join(name)
    }

    /// `mbank --root ROOT ARGS` with this setup's data folder.
    fn mbank(&self, args: &[&str]) -> Run {
        let mut all = vec!["--root", self.root.to_str().unwrap()];
        all.extend_from_slice(args);
        self.sandbox.run_env(&all, "MBANK_DATA_DIR", &self.data)
    }

    async fn connect(&self, flags: &[&str]) -> Client {
        let mut command = self.sandbox.mbank();
        command
            .arg("--root")
            .arg(&self.root)
            .arg("mcp")
            .args(flags)
            .env("MBANK_DATA_DIR", &self.data)
            .current_dir(&self.root);
        let (transport, _) = TokioChildProcess::builder(tokio::process::Command::from(command))
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        bounded(().serve(transport)).await.unwrap()
    }
}

async fn bounded<T>(future: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(60), future)
        .await
        .expect("the server did not answer within 60 s")
}

/// Calls a tool that must succeed; returns its JSON.
async fn ok(client: &Client, name: &str, args: Value) -> Value {
    let Value::Object(map) = args.clone() else {
        panic!("arguments must be an object");
    };
    let params = CallToolRequestParams::new(name.to_string()).with_arguments(map);
    let result = bounded(client.call_tool(params)).await.unwrap();
    let text = result.content[0].as_text().unwrap().text.clone();
    let value: Value = serde_json::from_str(&text).unwrap();
    assert_ne!(result.is_error, Some(true), "{name} {args} failed: {value}");
    value
}

/// Checks a staged answer and returns the proposal's id.
fn staged_id(answer: &Value) -> u64 {
    assert_eq!(answer["status"], "staged", "{answer}");
    assert_eq!(answer["staged"], true, "{answer}");
    assert_eq!(answer["applied"], false, "{answer}");
    assert_eq!(answer["proposal"]["state"], "pending", "{answer}");
    let message = answer["message"].as_str().unwrap();
    assert!(message.contains("not yet in"), "{message}");
    answer["proposal"]["id"].as_u64().unwrap()
}

fn read(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_proposes_a_person_accepts_one_hunk_rejects_the_rest_and_restores_the_first_version()
 {
    let setup = Setup::new(&["app"]);
    let active = setup.file("app", "activeContext.md");
    let decisions = setup.file("app", "decisionLog.md");
    let decisions_before = read(&decisions);
    let client = setup.connect(&["--stage"]).await;

    let tools = bounded(client.list_all_tools()).await.unwrap();
    let listing = tools
        .iter()
        .find(|t| t.name == "list_proposals")
        .expect("list_proposals is offered");
    assert_eq!(
        listing.annotations.as_ref().and_then(|a| a.read_only_hint),
        Some(true)
    );

    // Three changes: a rewrite with two hunks, a decision, a new file.
    let rewrite = staged_id(
        &ok(
            &client,
            "memory_bank_update",
            json!({"projectPath": "app", "fileName": "activeContext.md", "content": REWRITE}),
        )
        .await,
    );
    ok(&client, "set_memory_bank_path", json!({"path": "app"})).await;
    let decision = staged_id(
        &ok(
            &client,
            "log_decision",
            json!({"title": "Use signed reset links", "context": "c", "decision": "d"}),
        )
        .await,
    );
    let new_file = staged_id(
        &ok(
            &client,
            "memory_bank_write",
            json!({"projectPath": "app", "fileName": "ideas.md", "content": "# Ideas\n- dark mode\n"}),
        )
        .await,
    );
    assert_eq!(read(&active).as_deref(), Some(ORIGINAL), "nothing lands");
    assert_eq!(read(&decisions), decisions_before);
    assert!(!setup.file("app", "ideas.md").exists());

    // The agent sees its proposals and their state.
    let listed = ok(&client, "list_proposals", json!({})).await;
    assert_eq!(listed["pending"], 3, "{listed}");
    assert_eq!(listed["staging"], true, "{listed}");
    let states: Vec<(u64, &str, &str)> = listed["proposals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["id"].as_u64().unwrap(),
                p["state"].as_str().unwrap(),
                p["tool"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        states,
        [
            (rewrite, "pending", "mcp:memory_bank_update"),
            (decision, "pending", "mcp:log_decision"),
            (new_file, "pending", "mcp:memory_bank_write"),
        ]
    );

    // The person's view.
    let run = setup.mbank(&["proposals", "--json"]);
    run.expect_code(0);
    let json = run.json();
    assert_eq!(json["schema"], "mbank.proposals/1");
    let proposals = json["proposals"].as_array().unwrap();
    assert_eq!(proposals.len(), 3, "{json}");
    let first = &proposals[0];
    assert_eq!(first["id"].as_u64(), Some(rewrite));
    assert_eq!(first["file"], "activeContext.md");
    assert_eq!(first["hunks"].as_array().unwrap().len(), 2, "{first}");
    assert_eq!(first["hunks"][0]["added"], json!(["- password reset"]));
    let text = setup.mbank(&["proposals"]);
    text.expect_code(0);
    assert!(text.stdout.contains("hunk 2"), "{}", text.stdout);

    // Accept one hunk of the rewrite, reject the rest.
    setup
        .mbank(&["accept", &rewrite.to_string(), "--hunks", "1"])
        .expect_code(0);
    setup
        .mbank(&["reject", &decision.to_string()])
        .expect_code(0);
    setup
        .mbank(&["reject", &new_file.to_string()])
        .expect_code(0);
    assert_eq!(read(&active).as_deref(), Some(FIRST_HUNK_ONLY));
    assert_eq!(read(&decisions), decisions_before);
    assert!(!setup.file("app", "ideas.md").exists());
    let again = setup.mbank(&["accept", &rewrite.to_string()]);
    again.expect_code(2);
    assert!(
        again.stderr.contains("already accepted"),
        "{}",
        again.stderr
    );

    // The agent sees what became of them.
    let listed = ok(&client, "list_proposals", json!({"projectPath": "app"})).await;
    assert_eq!(listed["pending"], 0, "{listed}");
    let decided: Vec<(&str, Value)> = listed["proposals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["state"].as_str().unwrap(), p["acceptedHunks"].clone()))
        .collect();
    assert_eq!(
        decided,
        [
            ("accepted", json!([1])),
            ("rejected", Value::Null),
            ("rejected", Value::Null)
        ]
    );
    bounded(client.cancel()).await.unwrap();

    // Every version in the history: the original, replaced by the accept.
    let history = setup.mbank(&["history", active.to_str().unwrap(), "--json"]);
    history.expect_code(0);
    let versions = history.json()["versions"].as_array().unwrap().clone();
    assert_eq!(versions.len(), 1, "{versions:?}");
    assert_eq!(versions[0]["writer"], "accept");
    assert_eq!(versions[0]["size"].as_u64(), Some(ORIGINAL.len() as u64));

    // Restore brings the first version back, and keeps what it replaced.
    setup
        .mbank(&["restore", active.to_str().unwrap(), "1"])
        .expect_code(0);
    assert_eq!(read(&active).as_deref(), Some(ORIGINAL));
    let history = setup.mbank(&["history", active.to_str().unwrap(), "--json"]);
    let versions = history.json()["versions"].as_array().unwrap().clone();
    let summary: Vec<(u64, &str, u64)> = versions
        .iter()
        .map(|v| {
            (
                v["version"].as_u64().unwrap(),
                v["writer"].as_str().unwrap(),
                v["size"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (1, "accept", ORIGINAL.len() as u64),
            (2, "restore", FIRST_HUNK_ONLY.len() as u64)
        ]
    );
    let diff = setup.mbank(&["history", active.to_str().unwrap(), "--diff", "2"]);
    diff.expect_code(0);
    assert!(
        diff.stdout.contains("-- password reset") && diff.stdout.contains("+- login form"),
        "{}",
        diff.stdout
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn direct_writes_keep_the_replaced_text_under_the_tool_that_replaced_it() {
    let setup = Setup::new(&["app"]);
    let active = setup.file("app", "activeContext.md");
    let client = setup.connect(&[]).await;
    let answer = ok(
        &client,
        "memory_bank_update",
        json!({"projectPath": "app", "fileName": "activeContext.md", "content": REWRITE}),
    )
    .await;
    assert_eq!(answer["success"], true, "{answer}");
    assert!(answer.get("staged").is_none(), "{answer}");
    assert_eq!(read(&active).as_deref(), Some(REWRITE));
    bounded(client.cancel()).await.unwrap();
    let history = setup.mbank(&["history", active.to_str().unwrap(), "--json"]);
    let versions = history.json()["versions"].as_array().unwrap().clone();
    assert_eq!(versions.len(), 1, "{versions:?}");
    assert_eq!(versions[0]["writer"], "mcp:memory_bank_update");
    assert_eq!(versions[0]["size"].as_u64(), Some(ORIGINAL.len() as u64));
}

/// A running `mbank serve`, killed on drop.
struct Server {
    child: Child,
    base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(setup: &Setup, config: &str) -> Server {
    let config_path = setup.sandbox.home().join("serve.toml");
    std::fs::write(&config_path, config).unwrap();
    let mut command = setup.sandbox.mbank();
    command
        .arg("--root")
        .arg(&setup.root)
        .arg("--config")
        .arg(&config_path)
        .args(["serve", "--listen", "127.0.0.1:0"])
        .env("MBANK_DATA_DIR", &setup.data)
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = command.spawn().unwrap();
    let stdout = child.stdout.take().unwrap();
    let first = common::within(
        Duration::from_secs(30),
        "the server start-up line",
        move || BufReader::new(stdout).lines().next().unwrap().unwrap(),
    );
    let address = first
        .split("listening on http://")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("no address in {first:?}"))
        .to_string();
    Server {
        child,
        base: format!("http://{address}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_stages_the_projects_its_config_names_and_writes_the_others() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let setup = Setup::new(&["staged", "direct"]);
    let server = serve(
        &setup,
        "[serve]\nwrites = \"stage\"\n[serve.projects.direct]\nwrites = \"direct\"\n",
    );
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap();
    let decision = json!({"title": "Use WAL", "context": "c", "decision": "d"});
    let mut ids = Vec::new();
    for project in ["staged", "direct"] {
        let response = client
            .post(format!(
                "{}/memory-bank/logDecision?project={project}",
                server.base
            ))
            .json(&decision)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 200);
        let body: Value = response.json().await.unwrap();
        let log = read(&setup.file(project, "decisionLog.md")).unwrap_or_default();
        if project == "staged" {
            ids.push(staged_id(&body));
            assert!(!log.contains("Use WAL"), "{log}");
        } else {
            assert_eq!(body["status"], "success", "{body}");
            assert!(log.contains("Use WAL"), "{log}");
        }
    }
    // A staged deletion over REST leaves the file until accepted.
    let response = client
        .delete(format!(
            "{}/memory-bank/file/activeContext.md?project=staged",
            server.base
        ))
        .send()
        .await
        .unwrap();
    let body: Value = response.json().await.unwrap();
    ids.push(staged_id(&body));
    assert!(setup.file("staged", "activeContext.md").exists());
    drop(server);

    // Proposals outlive the server: a person accepts both later.
    let listed = setup.mbank(&["proposals", "--json"]).json();
    assert_eq!(listed["pending"], 2, "{listed}");
    for id in &ids {
        setup.mbank(&["accept", &id.to_string()]).expect_code(0);
    }
    let log = read(&setup.file("staged", "decisionLog.md")).unwrap();
    assert_eq!(log.matches("Use WAL").count(), 1, "{log}");
    assert!(!setup.file("staged", "activeContext.md").exists());
    // The removed file's last text is in its history.
    let history = setup.mbank(&[
        "history",
        setup.file("staged", "activeContext.md").to_str().unwrap(),
        "--json",
    ]);
    let versions = history.json()["versions"].as_array().unwrap().clone();
    assert_eq!(versions.len(), 1, "{versions:?}");
    assert_eq!(versions[0]["writer"], "accept");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn staged_infinity_memories_land_once_a_person_accepts_them() {
    let setup = Setup::new(&["app"]);
    let client = setup.connect(&["--stage"]).await;
    ok(&client, "activate_project", json!({})).await;
    let answer = ok(
        &client,
        "store_memory",
        json!({"title": "Auth", "type": "design_doc", "content": "JWT in cookies"}),
    )
    .await;
    assert_eq!(answer["success"], true, "{answer}");
    let id = staged_id(&answer);
    let memory = answer["memory_id"].as_str().unwrap().to_string();
    let store = setup.root.join(".infinity/memories.json");
    assert!(!store.exists(), "nothing lands before acceptance");
    let listed = setup.mbank(&["proposals", "--json"]).json();
    assert_eq!(listed["proposals"][0]["kind"], "memory", "{listed}");
    setup.mbank(&["accept", &id.to_string()]).expect_code(0);
    let got = ok(&client, "get_memory", json!({"memory_id": memory})).await;
    assert_eq!(got["memory"]["content"], "JWT in cookies", "{got}");
    bounded(client.cancel()).await.unwrap();
}

/// One proposal file that cannot be read (corrupt JSON) is named on stderr and skipped:
/// `mbank proposals` lists the others and exits 1, where it listed nothing and exited 2.
/// And a proposal file someone forged for a bank outside the root is refused by
/// `mbank accept`, which leaves that bank alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_proposal_file_is_skipped_and_a_forged_one_is_not_accepted() {
    let setup = Setup::new(&["app"]);
    let client = setup.connect(&["--stage"]).await;
    let id = staged_id(
        &ok(
            &client,
            "memory_bank_update",
            json!({"projectPath": "app", "fileName": "activeContext.md", "content": REWRITE}),
        )
        .await,
    );
    bounded(client.cancel()).await.unwrap();
    let folder = setup.data.join("proposals");
    let corrupt = folder.join(format!("{:08}.pending.json", id + 1));
    std::fs::write(&corrupt, "{ not json").unwrap();
    let run = setup.mbank(&["proposals"]);
    run.expect_code(1);
    assert!(run.stdout.contains("memory_bank_update"), "{}", run.stdout);
    assert!(
        run.stderr.contains("skipped") && run.stderr.contains(&format!("{:08}", id + 1)),
        "{}",
        run.stderr
    );
    let json_run = setup.mbank(&["proposals", "--json"]);
    json_run.expect_code(1);
    let listed: Value = serde_json::from_str(&json_run.stdout).unwrap();
    assert_eq!(listed["proposals"].as_array().unwrap().len(), 1);
    assert_eq!(listed["unreadable"].as_array().unwrap().len(), 1);
    std::fs::remove_file(&corrupt).unwrap();

    // The same proposal pointed at a bank outside the root.
    let outside = setup.sandbox.home().join("elsewhere/victim");
    setup
        .sandbox
        .run(&["init", outside.to_str().unwrap()])
        .expect_code(0);
    let victim = outside.join("memory-bank/activeContext.md");
    let victim_before = read(&victim);
    let path = folder.join(format!("{id:08}.pending.json"));
    let mut forged: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    forged["project"] = json!(std::fs::canonicalize(&outside).unwrap());
    std::fs::write(&path, serde_json::to_vec(&forged).unwrap()).unwrap();
    let run = setup.mbank(&["accept", &id.to_string()]);
    run.expect_code(2);
    assert!(
        run.stderr.contains("outside the memory bank root"),
        "{}",
        run.stderr
    );
    assert_eq!(read(&victim), victim_before);
}

//! `/chat` changing the memory bank, end to end: the real `mbank serve` against a fake
//! OpenAI-compatible endpoint on 127.0.0.1 whose replies call the Memory Bank MCP tools
//! offered as functions. `mode` and `allowMemoryBankUpdates` decide whether anything is
//! offered or run; what runs goes through the guard and the staging setting as a write of
//! `http:POST /chat` by the configured model, and `memoryBankUpdated` says whether a file
//! changed.
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use crate::http_serve::{Server, client, error_code, post};
use mbank::core::guard::refusals;
use serde_json::{Value, json};

/// An AWS key id of the real shape (not the documented example).
const LEAKED_KEY: &str = "AKIAZ7QWERTYUIOPASDF";

/// The fake endpoint: what it received, and the replies it gives in turn (then words).
#[derive(Clone, Default)]
struct Fake {
    seen: Arc<Mutex<Vec<Value>>>,
    replies: Arc<Mutex<VecDeque<Value>>>,
}

impl Fake {
    /// Serves on 127.0.0.1; the chat completions URL.
    async fn start(&self) -> String {
        use axum::routing::post;
        let fake = self.clone();
        let app = axum::Router::new().route(
            "/v1/chat/completions",
            post(move |body: axum::Json<Value>| {
                let fake = fake.clone();
                async move {
                    fake.seen.lock().unwrap().push(body.0);
                    let message = fake
                        .replies
                        .lock()
                        .unwrap()
                        .pop_front()
                        .unwrap_or_else(|| json!({"role": "assistant", "content": "done"}));
                    axum::Json(json!({"choices": [{"message": message}]}))
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        format!("http://{address}/v1/chat/completions")
    }

    /// The next reply: calls of the tools, as OpenAI sends them (arguments as JSON text).
    fn will_call(&self, calls: &[(&str, Value)]) {
        let calls: Vec<Value> = calls
            .iter()
            .enumerate()
            .map(|(i, (name, arguments))| {
                json!({"id": format!("call_{i}"), "type": "function",
                    "function": {"name": name, "arguments": arguments.to_string()}})
            })
            .collect();
        self.replies
            .lock()
            .unwrap()
            .push_back(json!({"role": "assistant", "content": null, "tool_calls": calls}));
    }

    fn will_say(&self, text: &str) {
        self.replies
            .lock()
            .unwrap()
            .push_back(json!({"role": "assistant", "content": text}));
    }

    fn seen(&self) -> Vec<Value> {
        std::mem::take(&mut *self.seen.lock().unwrap())
    }
}

/// config.toml: `[serve]` with `serve_keys` and a rate limit (whose headers every
/// answer then carries), and the fake endpoint under `[serve.chat]`.
fn chat_config(url: &str, serve_keys: &str) -> String {
    format!(
        "[serve]\nrate_limit_per_minute = 1000\n{serve_keys}[serve.chat]\nurl = \"{url}\"\nmodel = \"test-model\"\n"
    )
}

fn decision(title: &str) -> Value {
    json!({"title": title, "context": "Sessions expire", "decision": "Use JWT",
        "alternatives": ["Cookies"], "consequences": ["Stateless"]})
}

fn user(text: &str) -> Value {
    json!([{"role": "user", "content": text}])
}

fn statuses(body: &Value) -> Vec<&str> {
    body["memoryBankUpdates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["status"].as_str().unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chat_that_may_write_runs_its_models_calls_through_the_guard() {
    let fake = Fake::default();
    let url = fake.start().await;
    let server = Server::start(&chat_config(&url, ""), &[]);
    let bank = server.bank("alpha");
    let c = client();
    fake.will_call(&[
        ("log_decision", decision("Token auth")),
        (
            "write_memory_bank_file",
            json!({"filename": "activeContext.md",
                "content": format!("# Active\n\nDeploy with {LEAKED_KEY}\n")}),
        ),
        ("forget_everything", json!({})),
    ]);
    fake.will_say("I logged the decision; the key cannot be stored.");
    let (code, body) = post(
        &c,
        server.url("/chat?project=alpha"),
        json!({"messages": user("We chose JWT."), "mode": "code", "allowMemoryBankUpdates": true}),
    )
    .await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(
        body["response"],
        "I logged the decision; the key cannot be stored."
    );
    assert_eq!(body["memoryBankUpdated"], true, "{body}");
    assert_eq!(body["memoryBankStaged"], false, "{body}");
    assert_eq!(body["mode"], "code");
    assert_eq!(statuses(&body), ["written", "refused", "refused"], "{body}");
    let updates = body["memoryBankUpdates"].as_array().unwrap();
    assert_eq!(updates[1]["error"]["code"], "secret_detected", "{body}");
    assert_eq!(updates[2]["error"]["code"], "invalid_request", "{body}");
    let log = std::fs::read_to_string(bank.join("decisionLog.md")).unwrap();
    assert!(log.contains("Token auth"), "{log}");
    let active = std::fs::read_to_string(bank.join("activeContext.md")).unwrap();
    assert!(!active.contains(LEAKED_KEY), "{active}");
    // The refused write is logged as the chat's, by the model it was configured with.
    let logged = refusals::read_in(&server.data_dir, &server.root.join("alpha")).unwrap();
    assert!(
        logged.iter().any(|r| r.via == "http:POST /chat"
            && r.client.as_deref() == Some("test-model")
            && r.file == "activeContext.md"),
        "{logged:?}"
    );

    // Upstream: the functions offered first, then the outcomes given back once.
    let seen = fake.seen();
    assert_eq!(seen.len(), 2, "{seen:?}");
    let offered: Vec<&str> = seen[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        offered,
        [
            "write_memory_bank_file",
            "track_progress",
            "update_active_context",
            "log_decision"
        ]
    );
    let system = seen[0]["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains("The alpha todo API") && system.contains("This chat is in code mode."),
        "{system}"
    );
    assert_eq!(seen[1]["tool_choice"], "none");
    let messages = seen[1]["messages"].as_array().unwrap();
    let answers: Vec<&Value> = messages.iter().filter(|m| m["role"] == "tool").collect();
    assert_eq!(answers.len(), 3);
    assert_eq!(answers[0]["tool_call_id"], "call_0");
    assert!(
        answers[1]["content"]
            .as_str()
            .unwrap()
            .contains("secret_detected")
    );

    // Writing what a file holds changes nothing, and says so.
    let current = std::fs::read_to_string(bank.join("progress.md")).unwrap();
    fake.will_call(&[(
        "write_memory_bank_file",
        json!({"filename": "progress.md", "content": current}),
    )]);
    let (code, body) = post(
        &c,
        server.url("/chat?project=alpha"),
        json!({"messages": user("Note progress."), "allowMemoryBankUpdates": true}),
    )
    .await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(statuses(&body), ["unchanged"]);
    assert_eq!(body["memoryBankUpdated"], false, "{body}");
    assert_eq!(body["response"], "done");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chat_in_a_read_only_mode_or_not_allowed_to_write_changes_nothing() {
    let fake = Fake::default();
    let url = fake.start().await;
    let server = Server::start(
        &chat_config(&url, "read_only_modes = [\"ask\", \"debug\"]\n"),
        &[],
    );
    let bank = server.bank("alpha");
    let before = std::fs::read_to_string(bank.join("decisionLog.md")).unwrap();
    let c = client();
    for (mode, allow, why) in [
        (json!("ask"), json!(true), "ask mode only reads"),
        (json!("Debug"), json!(true), "debug mode only reads"),
        (json!("code"), json!(false), "allowMemoryBankUpdates"),
        (Value::Null, Value::Null, "allowMemoryBankUpdates"),
    ] {
        // A model that calls a tool although none was offered.
        fake.will_call(&[("log_decision", decision("Sneaky"))]);
        let (code, body) = post(
            &c,
            server.url("/chat?project=alpha"),
            json!({"messages": user("Why JWT?"), "mode": mode, "allowMemoryBankUpdates": allow}),
        )
        .await;
        assert_eq!(code, 200, "{body}");
        assert_eq!(body["memoryBankUpdated"], false, "{body}");
        assert_eq!(statuses(&body), ["not_allowed"], "{body}");
        let message = body["memoryBankUpdates"][0]["error"]["message"]
            .as_str()
            .unwrap();
        assert!(message.contains(why), "{message}");
        let seen = fake.seen();
        assert_eq!(seen.len(), 1, "no follow-up: {seen:?}");
        assert!(seen[0].get("tools").is_none(), "{}", seen[0]);
    }
    assert_eq!(
        std::fs::read_to_string(bank.join("decisionLog.md")).unwrap(),
        before
    );
    // The model is told why it cannot write.
    fake.will_say("JWT is stateless.");
    let (_, body) = post(
        &c,
        server.url("/chat?project=alpha"),
        json!({"messages": user("Why JWT?"), "mode": "ask", "allowMemoryBankUpdates": true}),
    )
    .await;
    assert_eq!(body["response"], "JWT is stateless.");
    assert_eq!(body["memoryBankUpdates"], json!([]));
    let seen = fake.seen();
    let system = seen[0]["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains("This chat is in ask mode. The memory bank cannot be changed in this chat: ask mode only reads"),
        "{system}"
    );
    // A mode the project does not have is the spec's mode_not_found; nothing is sent.
    let (code, body) = post(
        &c,
        server.url("/chat?project=alpha"),
        json!({"messages": user("hi"), "mode": "poet"}),
    )
    .await;
    assert_eq!((code, error_code(&body)), (404, "mode_not_found"), "{body}");
    let (code, body) = post(
        &c,
        server.url("/chat?project=alpha"),
        json!({"messages": user("hi"), "allowMemoryBankUpdates": "yes"}),
    )
    .await;
    assert_eq!(
        (code, error_code(&body)),
        (400, "invalid_request"),
        "{body}"
    );
    assert!(fake.seen().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chat_on_a_staging_server_stages_its_updates() {
    let fake = Fake::default();
    let url = fake.start().await;
    let server = Server::start(&chat_config(&url, "writes = \"stage\"\n"), &[]);
    let bank = server.bank("alpha");
    let before = std::fs::read_to_string(bank.join("decisionLog.md")).unwrap();
    fake.will_call(&[("log_decision", decision("Token auth"))]);
    let (code, body) = post(
        &client(),
        server.url("/chat?project=alpha"),
        json!({"messages": user("We chose JWT."), "mode": "architect", "allowMemoryBankUpdates": true}),
    )
    .await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["memoryBankUpdated"], false, "{body}");
    assert_eq!(body["memoryBankStaged"], true, "{body}");
    assert_eq!(statuses(&body), ["staged"]);
    let result = &body["memoryBankUpdates"][0]["result"];
    assert!(result["proposal"]["id"].as_u64().is_some(), "{result}");
    assert_eq!(
        std::fs::read_to_string(bank.join("decisionLog.md")).unwrap(),
        before
    );
}

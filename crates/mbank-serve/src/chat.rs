//! `POST /chat` (the Memory Bank MCP spec, "Chat Endpoints"): the caller's messages, with the project's
//! session-start context (what `mbank context` shows) prepended as a system message,
//! forwarded to the OpenAI-compatible endpoint of `[serve.chat]` in config.toml. `<private>`
//! blocks and `private: true` files are never sent, and a redirect is never followed (the
//! memory would be posted to an address nobody configured).
//!
//! `mode` names one of the project's modes; in a mode of `read_only_modes`, on a read-only
//! server, or unless `allowMemoryBankUpdates` is true, the chat changes nothing. Otherwise
//! the model is offered four of the Memory Bank MCP tools as functions (OpenAI's
//! `tools`); the calls it answers with run as that tool's calls would, through the guard
//! and the staging setting, as writes of `http:POST /chat` by the configured model, and
//! their outcome goes back to the model once for its final answer. `memoryBankUpdated`
//! is true only when a file of the bank changed; `memoryBankStaged` when a change waits
//! for review; `memoryBankUpdates` says what became of each call.
//!
//! Forwarding (the HTTPS client) comes with the `chat` cargo feature; a build without it
//! answers every chat with `not_built_in`.
#[cfg(any(test, feature = "chat"))]
use std::path::Path;
#[cfg(feature = "chat")]
use std::time::Duration;

#[cfg(any(test, feature = "chat"))]
use serde_json::{Value, json};

use super::reply::ToolError;
#[cfg(any(test, feature = "chat"))]
use mbank_core::analysis::context;
#[cfg(any(test, feature = "chat"))]
use mbank_core::config::ChatConfig;
#[cfg(any(test, feature = "chat"))]
use mbank_core::markup::markdown;
#[cfg(any(test, feature = "chat"))]
use mbank_core::model::Format;
#[cfg(any(test, feature = "chat"))]
use mbank_core::scan::bank;
#[cfg(any(test, feature = "chat"))]
use mbank_core::scan::discovery;

#[cfg(any(test, feature = "chat"))]
pub(crate) mod updates;
#[cfg(any(test, feature = "chat"))]
use updates::{ChatPlan, Updates};

/// Why `/chat` cannot answer without configuration, and how to give it one.
#[cfg(feature = "chat")]
pub(crate) const NOT_CONFIGURED: &str = "no chat endpoint is configured. Add to config.toml:\n\
[serve.chat]\n\
url = \"http://127.0.0.1:11434/v1/chat/completions\"  # any OpenAI-compatible endpoint\n\
model = \"llama3.1\"\n\
api_key_env = \"OPENAI_API_KEY\"  # optional: the variable holding its key";

/// Why a build without the `chat` feature cannot answer `/chat`.
pub const NOT_BUILT_IN: &str = "POST /chat is not built into this mbank: it was built without \
the `chat` cargo feature, which forwards chats to the endpoint of [serve.chat] (rebuild with \
default features to use it)";

/// The answer of a build without the `chat` feature: 501 Not Implemented, saying why.
#[cfg(any(test, not(feature = "chat")))]
pub(crate) fn not_built_in() -> ToolError {
    let mut error = ToolError::memory_bank("not_implemented", NOT_BUILT_IN);
    error.status = 501;
    error
}

/// The most memory `/chat` sends when `[serve.chat]` sets no `context_tokens`: well
/// above the 5,000 tokens the Cline spec asks a whole memory bank to stay under, and a
/// small part of any chat model's window.
#[cfg(any(test, feature = "chat"))]
pub(crate) const DEFAULT_CONTEXT_TOKENS: usize = 8_000;

/// Tokens are estimated, not counted: a byte budget is enough to keep a request bounded.
#[cfg(any(test, feature = "chat"))]
const BYTES_PER_TOKEN: usize = 4;

#[cfg(any(test, feature = "chat"))]
fn estimated_tokens(text: &str) -> usize {
    text.len().div_ceil(BYTES_PER_TOKEN)
}

/// The session-start text of one agent's bank of a project: the memory bank mbank serves
/// (Cline, Memory Bank MCP) when the project has one, else the first bank that loads
/// anything. Whole files in read order while they fit in `budget_tokens`; the files after
/// the first that does not fit are left out and named at the end.
#[cfg(any(test, feature = "chat"))]
pub(crate) fn session_text(project_dir: &Path, budget_tokens: usize) -> String {
    let home = mbank_core::io::paths::home_dir();
    let Some(project) = discovery::project_at_home(project_dir, String::new(), home.as_deref())
    else {
        return String::new();
    };
    let banks = bank::list_banks(&project);
    // One agent's load (imports included): summing several agents' would send the same
    // memory twice over. The banks mbank serves come first, then the others in order.
    let served = |format: Format| mbank_core::formats::rules(format).serves_memory_bank_tools();
    let mut order: Vec<&_> = banks.iter().collect();
    order.sort_by_key(|bank| !served(bank.format));
    let options = context::ContextOptions::from_env();
    let chosen = order.into_iter().find_map(|bank| {
        let loaded = context::project_context(&project, &[bank], &estimated_tokens, &options, None)
            .into_iter()
            .next()?;
        (!loaded.pieces.is_empty()).then_some((bank, loaded))
    });
    let Some((bank, loaded)) = chosen else {
        return String::new();
    };
    let mut out = String::new();
    let mut used = 0;
    let mut left_out: Vec<&str> = Vec::new();
    for piece in &loaded.pieces {
        // What leaves the machine never holds what the user marked private, whatever
        // the agent of the bank would load: `private: true` files and `<private>`
        // blocks are dropped as ConKeeper drops them.
        if markdown::is_private_file(&piece.text) {
            continue;
        }
        let (text, _) = markdown::split_private(&piece.text);
        if text.trim().is_empty() {
            continue;
        }
        let section = format!("\n\n## {}\n\n{}", piece.display, text.trim_end());
        let tokens = estimated_tokens(&section);
        if !left_out.is_empty() || used + tokens > budget_tokens {
            left_out.push(&piece.display);
            continue;
        }
        used += tokens;
        out.push_str(&section);
    }
    if out.is_empty() && left_out.is_empty() {
        return out;
    }
    if !left_out.is_empty() {
        out.push_str(&format!(
            "\n\n[left out to keep the memory under {budget_tokens} tokens: {}]",
            left_out.join(", ")
        ));
    }
    format!(
        "The project's {} as the agent loads it at session start, in read order:{out}",
        bank.format.label()
    )
}

/// The request to send upstream: the caller's messages after a system message with the
/// memory bank (unless `useMemoryBank` is false) and what the model is told of its mode
/// and of what it may change, and the functions it may call when updates are allowed.
#[cfg(any(test, feature = "chat"))]
pub(crate) fn upstream_body(
    config: &ChatConfig,
    request: &Value,
    memory: &str,
    plan: &ChatPlan,
) -> Result<Value, ToolError> {
    let Some(messages) = request.get("messages").and_then(Value::as_array) else {
        return Err(ToolError::memory_bank(
            "invalid_request",
            "the body needs \"messages\": [{\"role\": \"user\", \"content\": \"…\"}]",
        ));
    };
    for message in messages {
        let ok = message.get("role").is_some_and(Value::is_string)
            && message.get("content").is_some_and(Value::is_string);
        if !ok {
            return Err(ToolError::memory_bank(
                "invalid_request",
                "every message needs a string \"role\" and \"content\"",
            ));
        }
    }
    let memory = if plan.use_memory_bank { memory } else { "" };
    let note = plan.note();
    let system = match (memory.is_empty(), note.is_empty()) {
        (true, true) => None,
        (false, true) => Some(memory.to_string()),
        (true, false) => Some(note),
        (false, false) => Some(format!("{memory}\n\n{note}")),
    };
    let mut all = Vec::with_capacity(messages.len() + 1);
    if let Some(system) = system {
        all.push(json!({"role": "system", "content": system}));
    }
    all.extend(messages.iter().cloned());
    let mut body = json!({"model": config.model, "messages": all});
    if plan.updates == Updates::Allowed {
        body["tools"] = Value::Array(updates::functions());
    }
    Ok(body)
}

/// The client `/chat` forwards with: it never follows a redirect.
#[cfg(feature = "chat")]
pub fn client() -> Result<reqwest::Client, String> {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| format!("cannot set up the chat client: {e}"))
}

/// The largest reply `/chat` reads from the chat endpoint: a chat completion is a few
/// kilobytes; more is refused before it is all in memory.
#[cfg(feature = "chat")]
pub(crate) const MAX_REPLY_BYTES: usize = 4 * 1024 * 1024;

/// Reads a reply's body as text, up to `cap` bytes: a declared or actual length over it
/// is refused without reading the rest.
#[cfg(feature = "chat")]
async fn read_capped(mut response: reqwest::Response, cap: usize) -> Result<String, String> {
    let over = || format!("its answer is over {cap} bytes, the most mbank reads; nothing was used");
    if response
        .content_length()
        .is_some_and(|declared| declared > cap as u64)
    {
        return Err(over());
    }
    let mut body: Vec<u8> = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| format!("reading its answer failed: {e}"))?
    {
        if body.len() + chunk.len() > cap {
            return Err(over());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(String::from_utf8_lossy(&body).into_owned())
}

/// Sends one request to the configured endpoint: the message of its first choice, which
/// holds words (`content`), calls (`tool_calls`) or both.
#[cfg(feature = "chat")]
pub async fn ask(
    client: &reqwest::Client,
    config: &ChatConfig,
    body: &Value,
) -> Result<Value, ToolError> {
    let mut request = client
        .post(&config.url)
        .timeout(Duration::from_secs(config.timeout_secs.unwrap_or(120)))
        .json(body);
    if let Some(var) = &config.api_key_env {
        match std::env::var(var) {
            Ok(key) if !key.is_empty() => request = request.bearer_auth(key),
            _ => {
                return Err(ToolError::memory_bank(
                    "server_error",
                    format!("[serve.chat] api_key_env names {var}, which is not set"),
                ));
            }
        }
    }
    let upstream_error = |message: String| {
        let mut error = ToolError::memory_bank("server_error", message);
        error.status = 502;
        error
    };
    let response = request.send().await.map_err(|e| {
        upstream_error(format!(
            "the chat endpoint {} did not answer: {e}",
            config.url
        ))
    })?;
    let status = response.status();
    if status.is_redirection() {
        let location = response
            .headers()
            .get(reqwest::header::LOCATION)
            .map(|l| {
                mbank_core::markup::sanitize::line(&String::from_utf8_lossy(l.as_bytes()))
                    .into_owned()
            })
            .unwrap_or_default();
        return Err(upstream_error(format!(
            "the chat endpoint {} answered {status} (a redirect to {location:?}); mbank does not \
             follow redirects: set url under [serve.chat] to the final address",
            config.url
        )));
    }
    let text = read_capped(response, MAX_REPLY_BYTES)
        .await
        .map_err(|e| upstream_error(format!("the chat endpoint {}: {e}", config.url)))?;
    if !status.is_success() {
        let excerpt: String = text.chars().take(500).collect();
        return Err(upstream_error(format!(
            "the chat endpoint {} answered {status}: {excerpt}",
            config.url
        )));
    }
    let value: Value = serde_json::from_str(&text)
        .map_err(|e| upstream_error(format!("the chat endpoint's answer is not JSON: {e}")))?;
    let Some(message) = value.pointer("/choices/0/message").filter(|message| {
        message.get("content").is_some_and(Value::is_string)
            || !updates::calls_of(message).is_empty()
    }) else {
        return Err(upstream_error(
            "the chat endpoint's answer has no choices[0].message.content".into(),
        ));
    };
    Ok(message.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> ChatConfig {
        ChatConfig {
            url: "http://127.0.0.1:1/v1/chat/completions".into(),
            model: "m".into(),
            api_key_env: None,
            timeout_secs: None,
            context_tokens: None,
        }
    }

    #[test]
    fn a_build_without_chat_says_so_with_501() {
        let error = not_built_in();
        assert_eq!((error.code, error.status), ("not_implemented", 501));
        assert!(
            error.message.contains("`chat` cargo feature"),
            "{}",
            error.message
        );
    }

    fn plan(use_memory_bank: bool, mode: Option<&str>, updates: Updates) -> ChatPlan {
        ChatPlan {
            use_memory_bank,
            mode: mode.map(str::to_string),
            updates,
        }
    }

    fn refused() -> Updates {
        Updates::Refused("not asked".into())
    }

    #[test]
    fn memory_goes_first_unless_turned_off() {
        let request = json!({"messages": [{"role": "user", "content": "status?"}]});
        let body =
            upstream_body(&config(), &request, "BANK", &plan(true, None, refused())).unwrap();
        assert_eq!(body["model"], "m");
        assert_eq!(
            body["messages"][0],
            json!({"role": "system", "content": "BANK"})
        );
        assert_eq!(body["messages"][1]["content"], "status?");
        assert!(body.get("tools").is_none(), "{body}");
        let off = json!({"messages": [{"role": "user", "content": "x"}], "useMemoryBank": false});
        assert_eq!(
            upstream_body(&config(), &off, "BANK", &plan(false, None, refused())).unwrap()
                ["messages"]
                .as_array()
                .unwrap()
                .len(),
            1
        );
        let none = plan(true, None, refused());
        assert_eq!(
            upstream_body(&config(), &json!({}), "", &none)
                .unwrap_err()
                .code,
            "invalid_request"
        );
        let bad = json!({"messages": [{"role": "user"}]});
        assert_eq!(
            upstream_body(&config(), &bad, "", &none).unwrap_err().code,
            "invalid_request"
        );
    }

    #[test]
    fn the_model_is_told_its_mode_and_offered_functions_only_when_it_may_write() {
        let request = json!({"messages": [{"role": "user", "content": "status?"}]});
        let ask = upstream_body(
            &config(),
            &request,
            "BANK",
            &plan(
                true,
                Some("ask"),
                Updates::Refused("ask mode only reads".into()),
            ),
        )
        .unwrap();
        let system = ask["messages"][0]["content"].as_str().unwrap();
        assert!(
            system.starts_with("BANK\n\nThis chat is in ask mode."),
            "{system}"
        );
        assert!(system.contains("cannot be changed in this chat: ask mode only reads"));
        assert!(ask.get("tools").is_none(), "{ask}");
        let code = upstream_body(
            &config(),
            &request,
            "",
            &plan(false, Some("code"), Updates::Allowed),
        )
        .unwrap();
        assert_eq!(code["messages"][0]["role"], "system");
        assert!(
            code["messages"][0]["content"]
                .as_str()
                .unwrap()
                .contains("calling the functions offered")
        );
        let names: Vec<&str> = code["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, updates::UPDATE_TOOLS);
        for tool in code["tools"].as_array().unwrap() {
            assert_eq!(tool["type"], "function");
            assert_eq!(tool["function"]["parameters"]["type"], "object", "{tool}");
            assert!(
                !tool["function"]["description"].as_str().unwrap().is_empty(),
                "{tool}"
            );
        }
    }

    #[test]
    fn session_text_holds_the_bank_in_read_order() {
        let dir = tempfile::tempdir().unwrap();
        mbank_core::init::init_bank(
            dir.path(),
            mbank_core::init::InitFormat::Cline,
            Some("A todo API"),
        )
        .unwrap();
        let text = session_text(dir.path(), DEFAULT_CONTEXT_TOKENS);
        let brief = text.find("memory-bank/projectBrief.md").unwrap();
        let log = text.find("memory-bank/decisionLog.md").unwrap();
        assert!(brief < log, "{text}");
        assert!(text.contains("A todo API"));
    }

    #[test]
    fn private_blocks_and_private_files_never_reach_the_session_text() {
        let dir = tempfile::tempdir().unwrap();
        mbank_core::init::init_bank(
            dir.path(),
            mbank_core::init::InitFormat::Cline,
            Some("A todo API"),
        )
        .unwrap();
        let bank = dir.path().join("memory-bank");
        std::fs::write(
            bank.join("activeContext.md"),
            "# Active\nshown line\n<private>\nthe hidden plan\n</private>\nalso shown\n",
        )
        .unwrap();
        std::fs::write(
            bank.join("productContext.md"),
            "---\nprivate: true\n---\n# Product\nwhole file hidden\n",
        )
        .unwrap();
        let text = session_text(dir.path(), DEFAULT_CONTEXT_TOKENS);
        assert!(
            text.contains("shown line") && text.contains("also shown"),
            "{text}"
        );
        assert!(!text.contains("the hidden plan"), "{text}");
        assert!(!text.contains("<private>"), "{text}");
        assert!(!text.contains("whole file hidden"), "{text}");
    }

    #[test]
    fn the_memory_is_capped_by_whole_files_in_read_order_with_what_was_left_out_named() {
        let dir = tempfile::tempdir().unwrap();
        mbank_core::init::init_bank(
            dir.path(),
            mbank_core::init::InitFormat::Cline,
            Some("A todo API"),
        )
        .unwrap();
        let bank = dir.path().join("memory-bank");
        let huge = format!("# Active\n{}", "a line of context\n".repeat(60_000));
        std::fs::write(bank.join("activeContext.md"), &huge).unwrap();
        let text = session_text(dir.path(), DEFAULT_CONTEXT_TOKENS);
        assert!(
            text.len() <= DEFAULT_CONTEXT_TOKENS * BYTES_PER_TOKEN + 1_000,
            "{} bytes",
            text.len()
        );
        assert!(text.contains("A todo API"), "{text}");
        assert!(
            !text.contains("a line of context"),
            "no file is cut in the middle"
        );
        let marker = text.rsplit("\n\n").next().unwrap();
        assert!(
            marker.starts_with("[left out to keep the memory under 8000 tokens: ")
                && marker.contains("memory-bank/activeContext.md")
                && marker.contains("memory-bank/progress.md")
                && marker.contains("memory-bank/decisionLog.md"),
            "{marker}"
        );
        // The files before the large one are all there, in read order.
        let brief = text.find("memory-bank/projectBrief.md").unwrap();
        let tech = text.find("memory-bank/techContext.md").unwrap();
        assert!(brief < tech, "{text}");
        // A small budget keeps nothing but says so.
        let tiny = session_text(dir.path(), 10);
        assert!(tiny.contains("memory-bank/projectBrief.md") && !tiny.contains("A todo API"));
    }

    #[test]
    fn one_agents_files_are_sent_not_every_agents() {
        let dir = tempfile::tempdir().unwrap();
        mbank_core::init::init_bank(
            dir.path(),
            mbank_core::init::InitFormat::Cline,
            Some("A todo API"),
        )
        .unwrap();
        std::fs::write(
            dir.path().join("CLAUDE.md"),
            "# Claude\nonly Claude Code reads this\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("AGENTS.md"),
            "# Agents\nonly Codex reads this\n",
        )
        .unwrap();
        let text = session_text(dir.path(), DEFAULT_CONTEXT_TOKENS);
        assert!(text.contains("A todo API"), "{text}");
        assert!(
            text.starts_with("The project's Cline memory bank "),
            "{text}"
        );
        assert!(!text.contains("only Claude Code reads this"), "{text}");
        assert!(!text.contains("only Codex reads this"), "{text}");
    }

    #[test]
    fn a_file_two_banks_reach_is_sent_once() {
        let dir = tempfile::tempdir().unwrap();
        let memory = dir.path().join(".claude/memory");
        std::fs::create_dir_all(&memory).unwrap();
        std::fs::write(
            dir.path().join("CLAUDE.md"),
            "# Main\n@.claude/memory/active-context.md\n",
        )
        .unwrap();
        std::fs::write(
            memory.join("active-context.md"),
            "# Active\nthe one sentence\n",
        )
        .unwrap();
        let text = session_text(dir.path(), DEFAULT_CONTEXT_TOKENS);
        assert_eq!(text.matches("the one sentence").count(), 1, "{text}");
    }
}

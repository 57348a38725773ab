//! What a chat may change in the memory bank, and the changes its model asks for: four of
//! the Memory Bank MCP tools offered as OpenAI functions, each call run through the tool's
//! own handler (the guard, the staging setting, the refusal log), and the answer the
//! caller gets, which says truly whether the bank changed.
use std::path::Path;

use serde_json::{Value, json};

use crate::args;
use crate::memory_bank_mcp::{self, ActiveContextArgs, DecisionArgs, TrackProgressArgs, WriteArgs};
use crate::reply::{Flavor, ToolError};
use crate::{Caller, Shared};
use mbank_core::agent::AgentError;

/// The tools a chat's model may call when updates are allowed: the Memory Bank MCP
/// tools that write, by the names and arguments the spec gives them.
pub(crate) const UPDATE_TOOLS: [&str; 4] = [
    "write_memory_bank_file",
    "track_progress",
    "update_active_context",
    "log_decision",
];

/// The most calls of one reply that are run: a model looping on calls cannot rewrite the
/// bank without bound.
pub(crate) const MAX_UPDATES_PER_REPLY: usize = 16;

/// Who writes what a chat's model asks for: the route, and the model as the client.
pub(crate) const VIA: &str = "http:POST /chat";

/// Whether a chat may change the memory bank.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Updates {
    Allowed,
    /// Why not, as the caller and the model are told.
    Refused(String),
}

/// What a chat request asks for besides its messages, checked against the project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ChatPlan {
    pub use_memory_bank: bool,
    /// The mode as the project spells it.
    pub mode: Option<String>,
    pub updates: Updates,
}

fn invalid(message: impl Into<String>) -> ToolError {
    ToolError::memory_bank("invalid_request", message)
}

impl ChatPlan {
    /// Reads `mode`, `useMemoryBank` (default true) and `allowMemoryBankUpdates` (default
    /// false: a chat writes only when its caller asks) from `request`. A mode must be one
    /// of the project's (`mode_not_found` otherwise).
    pub(crate) fn of(
        shared: &Shared,
        project_dir: &Path,
        request: &Value,
    ) -> Result<ChatPlan, ToolError> {
        let flag = |key: &str, default: bool| match request.get(key) {
            None | Some(Value::Null) => Ok(default),
            Some(Value::Bool(value)) => Ok(*value),
            Some(_) => Err(invalid(format!("\"{key}\" must be true or false"))),
        };
        let use_memory_bank = flag("useMemoryBank", true)?;
        let allow_updates = flag("allowMemoryBankUpdates", false)?;
        let mode = match request.get("mode") {
            None | Some(Value::Null) => None,
            Some(Value::String(asked)) if !asked.trim().is_empty() => {
                let modes = crate::modes_of(project_dir);
                let asked = asked.trim();
                match modes.iter().find(|m| m.eq_ignore_ascii_case(asked)) {
                    Some(found) => Some(found.clone()),
                    None => {
                        return Err(AgentError::ModeNotFound {
                            mode: asked.to_string(),
                            available: modes.join(", "),
                        }
                        .into());
                    }
                }
            }
            Some(_) => {
                return Err(invalid(
                    "\"mode\" must be a string naming one of the project's modes",
                ));
            }
        };
        let updates = if !allow_updates {
            Updates::Refused("the request does not set allowMemoryBankUpdates to true".into())
        } else if shared.options.read_only {
            Updates::Refused("this server is read-only (--read-only)".into())
        } else if let Some(mode) = mode.as_deref().filter(|m| shared.is_read_only_mode(m)) {
            Updates::Refused(format!(
                "{mode} mode only reads the memory bank (read_only_modes under [serve] in \
                 config.toml)"
            ))
        } else {
            Updates::Allowed
        };
        Ok(ChatPlan {
            use_memory_bank,
            mode,
            updates,
        })
    }

    /// What the model is told of its mode and of what it may change (empty: nothing to
    /// say, a chat without a mode that may not write).
    pub(crate) fn note(&self) -> String {
        let mut note = Vec::new();
        if let Some(mode) = &self.mode {
            note.push(format!("This chat is in {mode} mode."));
        }
        match &self.updates {
            Updates::Allowed => note.push(
                "You may record what should outlast this chat in the memory bank by calling \
                 the functions offered; each change is checked, and may wait for a person's \
                 review."
                    .to_string(),
            ),
            Updates::Refused(why) if self.mode.is_some() => {
                note.push(format!(
                    "The memory bank cannot be changed in this chat: {why}."
                ));
            }
            Updates::Refused(_) => {}
        }
        note.join(" ")
    }
}

/// The functions offered to the model (OpenAI's `tools`): the tools' own descriptions and
/// input schemas, without the project, which is the chat's.
pub(crate) fn functions() -> Vec<Value> {
    let schemas = [
        args::input_schema::<WriteArgs>(),
        args::input_schema::<TrackProgressArgs>(),
        args::input_schema::<ActiveContextArgs>(),
        args::input_schema::<DecisionArgs>(),
    ];
    UPDATE_TOOLS
        .iter()
        .zip(schemas)
        .map(|(name, parameters)| {
            let description = crate::tools::TOOLS
                .iter()
                .find(|tool| tool.name == *name)
                .map(|tool| tool.description)
                .unwrap_or_default();
            json!({
                "type": "function",
                "function": {"name": name, "description": description, "parameters": parameters},
            })
        })
        .collect()
}

/// The calls a reply's message asks for (`tool_calls`), if any.
pub(crate) fn calls_of(message: &Value) -> Vec<Value> {
    message
        .get("tool_calls")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

/// Runs the calls of one reply as `caller`, or refuses them all when updates are not
/// allowed: one outcome per call, in order, each with the call's `id`, the `tool` and a
/// `status` (`written`, `staged`, `unchanged`, `refused`, `not_allowed`).
pub(crate) fn apply(
    shared: &Shared,
    project_dir: &Path,
    calls: &[Value],
    updates: &Updates,
    caller: &Caller,
) -> Vec<Value> {
    calls
        .iter()
        .enumerate()
        .map(|(i, call)| {
            let id = call.get("id").cloned().unwrap_or(Value::Null);
            let tool = call
                .pointer("/function/name")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let refused = |status: &str, code: &str, message: String| {
                json!({"id": id, "tool": tool, "status": status,
                    "error": {"code": code, "message": message}})
            };
            if let Updates::Refused(why) = updates {
                return refused(
                    "not_allowed",
                    "read_only",
                    format!("nothing was written: {why}"),
                );
            }
            if i >= MAX_UPDATES_PER_REPLY {
                return refused(
                    "refused",
                    "invalid_request",
                    format!(
                        "nothing was written: over {MAX_UPDATES_PER_REPLY} updates in one reply"
                    ),
                );
            }
            match run(
                shared,
                project_dir,
                tool,
                call.pointer("/function/arguments"),
                caller,
            ) {
                Ok((status, result)) => {
                    json!({"id": id, "tool": tool, "status": status, "result": result})
                }
                Err(error) => refused("refused", error.code, error.message),
            }
        })
        .collect()
}

/// One call through its tool's handler: the status it came to and the tool's answer.
fn run(
    shared: &Shared,
    dir: &Path,
    tool: &str,
    arguments: Option<&Value>,
    caller: &Caller,
) -> Result<(&'static str, Value), ToolError> {
    // OpenAI sends the arguments as JSON text; some compatible servers send the object.
    let arguments = match arguments {
        Some(Value::String(text)) => serde_json::from_str::<Value>(text)
            .map_err(|e| invalid(format!("the arguments of {tool} are not JSON: {e}")))?,
        Some(value) => value.clone(),
        None => json!({}),
    };
    let Value::Object(map) = arguments else {
        return Err(invalid(format!(
            "the arguments of {tool} must be a JSON object"
        )));
    };
    let flavor = Flavor::MemoryBank;
    let answer = match tool {
        "write_memory_bank_file" => {
            let args: WriteArgs = args::parse(map, flavor)?;
            let bank = shared.bank(dir)?;
            // Rewriting a file with what it holds changes nothing: said so, not written.
            if bank
                .read(&args.filename)
                .is_ok_and(|read| read.content == args.content)
            {
                return Ok(("unchanged", json!({"file": args.filename})));
            }
            memory_bank_mcp::write_file(
                shared,
                dir,
                &bank,
                &args.filename,
                &args.content,
                args.expected_version.as_deref(),
                caller,
            )?
        }
        "track_progress" => {
            memory_bank_mcp::track_progress_in(shared, dir, args::parse(map, flavor)?, caller)?
        }
        "update_active_context" => memory_bank_mcp::update_active_context_in(
            shared,
            dir,
            args::parse(map, flavor)?,
            caller,
        )?,
        "log_decision" => {
            memory_bank_mcp::log_decision_in(shared, dir, args::parse(map, flavor)?, caller)?
        }
        other => {
            return Err(invalid(format!(
                "{other:?} is not one of the functions offered ({})",
                UPDATE_TOOLS.join(", ")
            )));
        }
    };
    let staged = answer.get("staged") == Some(&Value::Bool(true));
    Ok((if staged { "staged" } else { "written" }, answer))
}

/// The request that gives the model the outcome of its calls: the first request, its
/// reply and one `tool` message per call, with the functions still listed but no more
/// calls asked for (`tool_choice: none`), so it answers in words.
pub(crate) fn follow_up(first: &Value, reply: &Value, outcomes: &[Value]) -> Value {
    let mut body = first.clone();
    let mut messages = first["messages"].as_array().cloned().unwrap_or_default();
    let mut said = reply.clone();
    said["role"] = json!("assistant");
    messages.push(said);
    for outcome in outcomes {
        messages.push(json!({
            "role": "tool",
            "tool_call_id": outcome["id"],
            "content": outcome.to_string(),
        }));
    }
    body["messages"] = Value::Array(messages);
    body["tool_choice"] = json!("none");
    body
}

/// The Memory Bank MCP spec's answer, with what became of the model's calls:
/// `memoryBankUpdated` only when a file changed, `memoryBankStaged` when a change waits
/// for review.
pub(crate) fn answer(text: &str, plan: &ChatPlan, outcomes: &[Value]) -> Value {
    let with = |status: &str| outcomes.iter().any(|o| o["status"] == status);
    json!({
        "response": text,
        "status": "success",
        "memoryBankUpdated": with("written"),
        "memoryBankStaged": with("staged"),
        "memoryBankUpdates": outcomes,
        "mode": plan.mode,
    })
}

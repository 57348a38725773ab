//! `get_context` (and `GET /memory-bank/context`): what an agent loads at session start in a
//! project, in load order, cut to fit a token budget, with what was left out and why. The
//! answer is `mbank context --max-tokens N --json`'s, from the same core function
//! ([`fit_context`]), counted in the encoding config.toml names.
//!
//! Only the project's own files are read unless the caller asks for the rest: the agent
//! calling already holds its home folder's files (`~/.claude/CLAUDE.md`, auto memory), and
//! a server answers from under its root.
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::args::ToolArgs;
use super::reply::{ToolError, ToolResult};
use super::{Session, Shared};
use mbank_core::analysis::context::{ContextOptions, FitError, FitReport, FitRequest, fit_context};
use mbank_core::formats::agents::Agent;
use mbank_core::model::Bank;
use mbank_core::scan::{bank, discovery};

/// The tool's name.
pub(crate) const GET_CONTEXT: &str = "get_context";

/// `get_context`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContextArgs {
    /// The project: its name as `list_projects` gives it, a path relative to the root, or
    /// an absolute path under it.
    #[schemars(
        description = "The project: its name as list_projects gives it, or its path under the root."
    )]
    pub project: String,
    /// The returned text never counts more tokens than this.
    #[schemars(
        description = "The most tokens the returned text may count, in the encoding mbank's configuration names (o200k_base by default)."
    )]
    pub max_tokens: usize,
    /// The agent's id (every one of [`Agent::ALL`] is named in the description).
    #[schemars(
        description = "Whose session start: claude-code, codex, gemini, cline, roo, kilo, cursor, copilot, windsurf, kiro, junie, zed, trae or opencode (default: the first of them that loads the project's memory)."
    )]
    pub agent: Option<String>,
    #[schemars(
        description = "Also return what the agent loads from outside the project: the user's own files in the home folder (global instructions, auto memory) and those of the folders above the project. Default false: the agent has those already."
    )]
    pub include_user_files: Option<bool>,
}

impl ToolArgs for ContextArgs {
    const SPELLINGS: &'static [(&'static str, &'static [&'static str])] = &[
        ("project", &["projectPath", "projectName"]),
        ("maxTokens", &["max_tokens"]),
        ("includeUserFiles", &["include_user_files"]),
    ];
}

/// `get_context`: the fitted session start, as `mbank.context-fit/1`.
pub fn get_context(shared: &Shared, _session: &Session, args: ContextArgs) -> ToolResult {
    fitted(shared, args)
}

/// `GET /memory-bank/context`: `get_context` with its arguments in the query string, the
/// server's default project when none is named.
pub(crate) fn from_query(
    shared: &Shared,
    query: &std::collections::HashMap<String, String>,
) -> ToolResult {
    let mut arguments = super::args::query_arguments(
        query,
        &["maxTokens", "max_tokens"],
        &["includeUserFiles", "include_user_files"],
    );
    let named = ["project", "projectPath", "projectName"]
        .iter()
        .any(|key| arguments.contains_key(*key));
    if !named {
        let dir = shared.project(None)?;
        arguments.insert("project".into(), json!(dir.to_string_lossy()));
    }
    fitted(
        shared,
        super::args::parse(arguments, super::reply::Flavor::MemoryBank)?,
    )
}

fn fitted(shared: &Shared, args: ContextArgs) -> ToolResult {
    let agent = match args.agent.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(id) => Some(Agent::from_id(id).ok_or_else(|| unknown_agent(id))?),
    };
    let dir = shared.root.existing_project_dir(&args.project)?;
    let name = shared.root.name_of(&dir);
    let home = mbank_core::io::paths::home_dir();
    let project =
        discovery::project_at_home(&dir, name.clone(), home.as_deref()).ok_or_else(|| {
            ToolError::memory_bank(
                "project_not_found",
                format!(
                    "{name} holds no memory an agent loads (looked for {} …)",
                    mbank_core::formats::looked_for()
                ),
            )
        })?;
    let listed = bank::list_banks(&project);
    let banks: Vec<&Bank> = listed.iter().collect();
    let outside = args.include_user_files.unwrap_or(false);
    let options = ContextOptions {
        include_user_files: outside,
        include_ancestors: outside,
        ..ContextOptions::from_env()
    };
    let request = FitRequest {
        agent,
        max_tokens: args.max_tokens,
        encoding: shared.options.encoding,
        options: &options,
        mode: None,
    };
    let fitted = fit_context(&project, &banks, &request).map_err(|e| loads_nothing(&e))?;
    serde_json::to_value(FitReport::new(&project, outside, &fitted)).map_err(|e| {
        ToolError::memory_bank(
            "server_error",
            format!("the context could not be written as JSON: {e}"),
        )
    })
}

fn unknown_agent(id: &str) -> ToolError {
    let agents: Vec<&str> = Agent::ALL.iter().map(|a| a.id()).collect();
    let mut error = ToolError::memory_bank(
        "invalid_request",
        format!("unknown agent {id:?}; one of {}", agents.join(", ")),
    );
    error.details = Some(json!({ "agents": agents }));
    error
}

/// No session start to fit: the agents that do load something are in `details`, so the
/// caller can ask again for one of them.
fn loads_nothing(error: &FitError) -> ToolError {
    let agents: Vec<Value> = error.agents().iter().map(|a| json!(a.id())).collect();
    let mut answer = ToolError::memory_bank("not_found", error.to_string());
    answer.details = Some(json!({ "reason": error.code(), "agents": agents }));
    answer
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::args;
    use crate::reply::Flavor;
    use crate::{ServeOptions, Surfaces};
    use mbank_core::guard::GuardPolicy;
    use mbank_core::tokens::{self, Encoding};

    fn shared_over(root: &std::path::Path, encoding: Encoding) -> Arc<Shared> {
        Shared::new(ServeOptions {
            root: root.to_path_buf(),
            surfaces: Surfaces::default(),
            read_only: true,
            read_only_modes: Vec::new(),
            policy: GuardPolicy::default(),
            infinity_project: root.to_path_buf(),
            log_refusals: false,
            staging: Default::default(),
            clock: mbank_core::clock::Clock::fixed_on(2026, 11, 28).unwrap(),
            history: None,
            encoding,
        })
        .unwrap()
    }

    /// A root with one Cline bank whose files take a few thousand tokens.
    fn root_with_bank() -> tempfile::TempDir {
        let root = tempfile::tempdir().unwrap();
        let bank = root.path().join("shop/memory-bank");
        std::fs::create_dir_all(&bank).unwrap();
        for (name, words) in [
            ("projectbrief.md", "checkout basket"),
            ("productContext.md", "customers returns"),
            ("activeContext.md", "retries payments"),
            ("systemPatterns.md", "queues workers"),
            ("techContext.md", "rust postgres"),
            ("progress.md", "done pending"),
        ] {
            let body: String = (0..120)
                .map(|i| format!("- line {i}: {words} and what follows from it\n"))
                .collect();
            std::fs::write(bank.join(name), format!("# {name}\n\n{body}")).unwrap();
        }
        root
    }

    fn call(shared: &Shared, arguments: Value) -> ToolResult {
        let Value::Object(map) = arguments else {
            panic!("arguments must be an object")
        };
        get_context(
            shared,
            &Session::default(),
            args::parse(map, Flavor::MemoryBank)?,
        )
    }

    #[test]
    fn the_answer_never_counts_more_than_the_budget_in_the_configured_encoding() {
        let root = root_with_bank();
        for encoding in [Encoding::O200k, Encoding::Cl100k] {
            let shared = shared_over(root.path(), encoding);
            for budget in [0, 50, 700, 2_000, 100_000] {
                let answer =
                    call(&shared, json!({"project": "shop", "maxTokens": budget})).unwrap();
                let text = answer["text"].as_str().unwrap();
                assert_eq!(answer["schema"], "mbank.context-fit/1");
                assert_eq!(answer["agent"], "cline");
                assert_eq!(answer["encoding"], encoding.id());
                assert_eq!(
                    answer["tokens"].as_u64().unwrap() as usize,
                    tokens::count(encoding, text)
                );
                assert!(
                    tokens::count(encoding, text) <= budget,
                    "{budget}: {answer}"
                );
                let whole = answer["whole_tokens"].as_u64().unwrap() as usize;
                let left_for_budget = answer["left_out"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|l| l["reason"] == "budget");
                assert_eq!(left_for_budget, whole > budget, "{budget}: {answer}");
            }
        }
    }

    #[test]
    fn files_come_whole_in_load_order_and_the_cut_names_its_lines() {
        let root = root_with_bank();
        let shared = shared_over(root.path(), Encoding::O200k);
        let answer = call(&shared, json!({"project": "shop", "maxTokens": 2_000})).unwrap();
        let files = answer["files"].as_array().unwrap();
        assert!(files.len() >= 2, "{answer}");
        assert_eq!(files[0]["display"], "memory-bank/projectbrief.md");
        assert!(files[..files.len() - 1].iter().all(|f| f["whole"] == true));
        let left = &answer["left_out"][0];
        assert!(
            left["message"].as_str().unwrap().contains("budget"),
            "says why: {left}"
        );
    }

    #[test]
    fn the_project_may_be_named_as_list_projects_or_the_other_tools_name_it() {
        let root = root_with_bank();
        let shared = shared_over(root.path(), Encoding::O200k);
        let by_path = root.path().join("shop");
        for project in [json!("shop"), json!(by_path.to_string_lossy())] {
            let answer = call(&shared, json!({"projectPath": project, "max_tokens": 100})).unwrap();
            assert_eq!(answer["project"]["name"], "shop");
        }
    }

    #[test]
    fn bad_requests_get_the_reason_and_what_would_work() {
        let root = root_with_bank();
        let shared = shared_over(root.path(), Encoding::O200k);
        let unknown = call(
            &shared,
            json!({"project": "shop", "maxTokens": 10, "agent": "vim"}),
        )
        .unwrap_err();
        assert_eq!(unknown.code, "invalid_request");
        assert!(
            unknown.message.contains("claude-code"),
            "{}",
            unknown.message
        );

        let nothing = call(
            &shared,
            json!({"project": "shop", "maxTokens": 10, "agent": "claude-code"}),
        )
        .unwrap_err();
        assert_eq!(nothing.code, "not_found");
        let details = nothing.details.unwrap();
        assert_eq!(details["reason"], "agent-loads-nothing");
        assert!(
            details["agents"]
                .as_array()
                .unwrap()
                .contains(&json!("cline"))
        );

        let outside = call(&shared, json!({"project": "../..", "maxTokens": 10})).unwrap_err();
        assert_eq!(outside.code, "forbidden_path");
        let missing = call(&shared, json!({"project": "nowhere", "maxTokens": 10})).unwrap_err();
        assert_eq!(missing.code, "project_not_found");
        let no_budget = call(&shared, json!({"project": "shop"})).unwrap_err();
        assert!(
            no_budget.message.contains("maxTokens"),
            "{}",
            no_budget.message
        );
    }

    #[test]
    fn the_home_folder_is_left_out_unless_asked_for() {
        let root = root_with_bank();
        let shared = shared_over(root.path(), Encoding::O200k);
        let answer = call(&shared, json!({"project": "shop", "maxTokens": 100_000})).unwrap();
        assert_eq!(answer["user_layer"], false);
        assert!(
            answer["files"]
                .as_array()
                .unwrap()
                .iter()
                .all(|f| f["scope"] != "user"),
            "{answer}"
        );
    }

    #[test]
    fn the_agent_argument_names_every_agent() {
        let schema = args::input_schema::<ContextArgs>();
        let description = schema["properties"]["agent"]["description"]
            .as_str()
            .unwrap();
        for agent in Agent::ALL {
            assert!(description.contains(agent.id()), "{}", agent.id());
        }
    }
}

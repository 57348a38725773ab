//! `search_memory` (and `GET /memory-bank/search`): the passages of every project's memory
//! under the root, and of the agents' stores in the home folder that belong to no project
//! (Codex memories …), that best answer a query, as `mbank search --json` ranks them, trimmed so
//! their snippets together fit a token budget. The index is the CLI's (in mbank's cache
//! folder), brought up to date from the files' sizes and times before each search.
use std::collections::HashSet;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::args::ToolArgs;
use super::reply::{ToolError, ToolResult};
use super::{Session, Shared};
use mbank_core::model::Bank;
use mbank_core::scan::bank::list_banks;
use mbank_core::scan::discovery::{self, ScanOptions};
use mbank_core::search::{ProjectBanks, Query, SearchIndex, home_stores};

/// The tool's name.
pub(crate) const SEARCH_MEMORY: &str = "search_memory";

/// Results returned when the caller names no limit, and the most it may ask for.
const DEFAULT_LIMIT: usize = 10;
const MAX_LIMIT: usize = 100;

/// `search_memory`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchArgs {
    #[schemars(description = "What to look for, in any words and any language.")]
    pub query: String,
    #[schemars(
        description = "Only this project: its name as list_projects gives it, or its path under the root. Default: every project."
    )]
    pub project: Option<String>,
    #[schemars(description = "At most this many results (default 10, at most 100).")]
    pub limit: Option<usize>,
    #[schemars(
        description = "The snippets returned together count at most this many tokens, in the encoding mbank's configuration names (o200k_base by default); results past it are left out and counted in `omitted`."
    )]
    pub max_tokens: Option<usize>,
}

impl ToolArgs for SearchArgs {
    const SPELLINGS: &'static [(&'static str, &'static [&'static str])] = &[
        ("project", &["projectPath", "projectName"]),
        ("maxTokens", &["max_tokens"]),
    ];
}

/// `search_memory`: ranked passages, as `mbank.search/1` with the budget's accounting.
pub fn search_memory(shared: &Shared, _session: &Session, args: SearchArgs) -> ToolResult {
    searched(shared, args)
}

/// `GET /memory-bank/search?query=…[&project=…][&limit=…][&maxTokens=…]`.
pub(crate) fn from_query(
    shared: &Shared,
    query: &std::collections::HashMap<String, String>,
) -> ToolResult {
    let arguments = super::args::query_arguments(query, &["limit", "maxTokens", "max_tokens"], &[]);
    searched(
        shared,
        super::args::parse(arguments, super::reply::Flavor::MemoryBank)?,
    )
}

fn searched(shared: &Shared, args: SearchArgs) -> ToolResult {
    if args.query.trim().is_empty() {
        return Err(ToolError::memory_bank(
            "invalid_request",
            "query is empty: give words to search for",
        ));
    }
    let home = mbank_core::io::paths::home_dir();
    let project = match args.project.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(spec) => match shared.root.existing_project_dir(spec) {
            Ok(dir) => Some(dir.to_string_lossy().into_owned()),
            // A store of the home folder, by its name as results give it, its name alone
            // or its place ("Codex memories", "~/.codex/memories").
            Err(not_a_project) => {
                let stores = home
                    .as_deref()
                    .map(|home| home_stores(home, &HashSet::new()))
                    .unwrap_or_default();
                match stores.into_iter().find(|store| store.is_named(spec)) {
                    Some(store) => Some(store.name),
                    None => return Err(not_a_project.into()),
                }
            }
        },
    };
    let limit = args.limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT);
    let root = shared.root.real.clone();
    let options = ScanOptions {
        home: home.clone(),
        ..ScanOptions::default()
    };
    let projects = discovery::scan(&root, &options);
    let banks: Vec<Vec<Bank>> = projects.iter().map(list_banks).collect();
    let inputs: Vec<ProjectBanks<'_>> = projects
        .iter()
        .zip(&banks)
        .map(|(project, banks)| ProjectBanks { project, banks })
        .collect();
    let mut index = shared.search.lock();
    let index = index.get_or_insert_with(|| SearchIndex::open_default(&root));
    index.refresh(&inputs, home.as_deref());
    let hits = index.search(&Query {
        text: args.query.clone(),
        project,
        limit,
        ..Query::default()
    });
    let budget = args.max_tokens;
    let mut tokens = 0usize;
    let mut results = Vec::new();
    let mut omitted = 0usize;
    for hit in hits {
        let cost = mbank_core::tokens::count(shared.options.encoding, &hit.snippet.text);
        if budget.is_some_and(|b| tokens + cost > b) {
            omitted += 1;
            continue;
        }
        tokens += cost;
        results.push(hit);
    }
    Ok(json!({
        "schema": "mbank.search/1",
        "query": args.query,
        "results": results,
        "tokens": tokens,
        "maxTokens": budget,
        "omitted": omitted,
    }))
}

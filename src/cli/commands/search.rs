//! `mbank search QUERY [--project NAME] [--format ID] [--agent ID] [--since WHEN]
//! [--kind decision|section|file] [--limit N] [--json]`: the passages of every memory file
//! under the root that best answer QUERY, best first, each with its project, file, lines,
//! heading path and the lines that match, marked. Decisions carry their status and date.
//! The agents' stores and user-level files in the home folder that belong to no project
//! (Codex memories and global instructions, Gemini CLI's memory file and extensions'
//! context files, Claude Code's user memory and user rules, opencode's user rules) are
//! searched too, each named as its project: "Codex memories (~/.codex/memories)";
//! `--project` takes that name, the store's name alone or its place.
//!
//! The index lives in mbank's cache folder and is brought up to date on each run from the
//! files' sizes and times (only changed projects are read again); deleting it is always
//! safe. Exit 0 with results, 1 with none, 2 on usage or I/O errors.
//!
//! JSON (schema `mbank.search/1`, stable; additions only):
//! ```json
//! {
//!   "schema": "mbank.search/1",
//!   "query": "which database",
//!   "results": [{
//!     "project": "shop", "project_path": "/root/shop",
//!     "file": "/root/shop/memory-bank/techContext.md",
//!     "display": "memory-bank/techContext.md",
//!     "format": "cline", "role": "tech",
//!     "kind": "section",                    // section|decision
//!     "start_line": 12, "end_line": 20,     // 1-based, inclusive
//!     "headings": ["Tech", "Database"],
//!     "score": 7.31,
//!     "snippet": {"text": "…", "line": 14, "marks": [[3, 11]]},   // byte ranges of text
//!     "decision": {"title": "…", "status": "accepted", "date": "2025-06-10"},  // or null
//!     "home_store": true    // only on a home folder's store's results
//!   }],
//!   "indexed": {"passages": 1234, "projects_read": 0}
//! }
//! ```
use std::collections::HashSet;

use color_eyre::eyre::{Result, eyre};
use serde::Serialize;

use crate::cli::style::{Line, Span, eprintln, line, println};
use crate::cli::{Context, json};
use crate::core::formats::agents::Agent;
use crate::core::io::text::counted;
use crate::core::journal::scope::CODEX_ID;
use crate::core::model::{Bank, Format};
use crate::core::scan::bank::list_banks_with;
use crate::core::scan::listings::Listings;
use crate::core::search::{Hit, KindFilter, ProjectBanks, Query, SearchIndex, home_stores};

/// What `mbank search` was asked.
pub struct SearchInvocation<'a> {
    pub query: &'a str,
    pub project: Option<&'a str>,
    pub format: Option<&'a str>,
    pub agent: Option<&'a str>,
    pub since: Option<&'a str>,
    pub kind: Option<KindFilter>,
    pub limit: usize,
    pub as_json: bool,
}

#[derive(Serialize)]
struct SearchOutput<'a> {
    schema: &'static str,
    query: &'a str,
    results: &'a [Hit],
    indexed: Indexed,
}

#[derive(Serialize)]
struct Indexed {
    passages: usize,
    projects_read: usize,
}

pub fn run(context: &Context, request: &SearchInvocation<'_>) -> Result<u8> {
    if request.query.trim().is_empty() {
        return Err(eyre!("give words to search for"));
    }
    let agent = match request.agent {
        Some(id) => Some(
            Agent::ALL
                .iter()
                .position(|a| a.id() == id)
                .ok_or_else(|| {
                    eyre!(
                        "--agent {id:?} is not an agent mbank knows: {}",
                        Agent::ALL.map(|a| a.id()).join(", ")
                    )
                })?,
        ),
        None => None,
    };
    if let Some(id) = request.format
        && Format::from_id(id).is_none()
        && id != CODEX_ID
    {
        return Err(eyre!(
            "--format {id:?} is not a memory format mbank knows (see `mbank list` for the \
             formats of your projects; {CODEX_ID} for Codex memories)"
        ));
    }
    let since = request
        .since
        .map(|s| super::journal::parse_since(s, context.clock.utc()))
        .transpose()?
        .map(|at| at.date_naive());
    let listings = if context.is_demo() {
        Listings::in_memory_as_of(&context.clock)
    } else {
        Listings::open_default(&context.root, &context.clock)
    };
    let projects = context.projects_under_root_with(&listings)?;
    let banks: Vec<Vec<Bank>> = projects
        .iter()
        .map(|p| list_banks_with(&listings, p))
        .collect();
    // The demo searches its own banks only, never the home folder's stores.
    let home = if context.is_demo() {
        None
    } else {
        context.scan_options().home
    };
    let project = match request.project {
        Some(name) if projects.iter().any(|p| p.name == name) => Some(name.to_string()),
        Some(name) => {
            let stores = home
                .as_deref()
                .map(|home| home_stores(home, &HashSet::new()))
                .unwrap_or_default();
            match stores.iter().find(|store| store.is_named(name)) {
                Some(store) => Some(store.name.clone()),
                None => {
                    let named: Vec<&str> = stores.iter().map(|s| s.label.as_str()).collect();
                    return Err(eyre!(
                        "no project named {name:?} under {} (`mbank list` shows their \
                         names){}",
                        context.root.display(),
                        if named.is_empty() {
                            String::new()
                        } else {
                            format!(", nor a store of the home folder ({})", named.join(", "))
                        }
                    ));
                }
            }
        }
        None => None,
    };
    let inputs: Vec<ProjectBanks<'_>> = projects
        .iter()
        .zip(&banks)
        .map(|(project, banks)| ProjectBanks { project, banks })
        .collect();
    let mut index = if context.is_demo() {
        SearchIndex::in_memory()
    } else {
        SearchIndex::open_default(&context.root)
    };
    if index.is_empty() && inputs.len() > 1 {
        eprintln(format!(
            "mbank: building the search index of {} (the first search only)",
            counted(inputs.len(), "project")
        ));
    }
    let refreshed = index.refresh(&inputs, home.as_deref());
    for problem in &refreshed.problems {
        eprintln(format!("mbank: {problem}"));
    }
    if let Err(problem) = listings.save() {
        eprintln(format!(
            "mbank: listing cache not saved ({problem}); the next run reads every folder"
        ));
    }
    let hits = index.search(&Query {
        text: request.query.to_string(),
        project,
        format: request.format.map(str::to_string),
        agent,
        since,
        kind: request.kind,
        limit: request.limit,
    });
    if request.as_json {
        json::print(&SearchOutput {
            schema: "mbank.search/1",
            query: request.query,
            results: &hits,
            indexed: Indexed {
                passages: index.passage_count(),
                projects_read: refreshed.projects_read,
            },
        })?;
        return Ok(u8::from(hits.is_empty()));
    }
    if hits.is_empty() {
        println(format!(
            "nothing found for {:?} in {}",
            request.query,
            counted(projects.len(), "project")
        ));
        return Ok(1);
    }
    let style = &context.style;
    for (number, hit) in hits.iter().enumerate() {
        if number > 0 {
            println("");
        }
        let place = format!("{}:{}-{}", hit.display, hit.start_line, hit.end_line);
        let mut head = line![style.bold(&hit.project), " ", style.cyan(place)];
        if !hit.headings.is_empty() {
            head = head.append(style.dim(format!(" › {}", hit.headings.join(" › "))));
        }
        println(head);
        if let Some(decision) = &hit.decision {
            let when = decision.date.as_deref().unwrap_or("undated");
            println(line![
                "  decision · ",
                style.status(&decision.status),
                format!(" · {when}")
            ]);
        }
        for text_line in marked_lines(&hit.snippet, style) {
            println(line!["  "].append(text_line));
        }
    }
    println(counted(hits.len(), "result"));
    Ok(0)
}

/// The snippet's lines with its matches in bold (or between `**` without colour).
fn marked_lines(
    snippet: &crate::core::search::Snippet,
    style: &crate::cli::style::Style,
) -> Vec<Line> {
    let mut out = Vec::new();
    let mut at = 0;
    for text_line in snippet.text.split('\n') {
        let start = at;
        let end = start + text_line.len();
        at = end + 1;
        let mut pieces: Vec<Span> = Vec::new();
        let mut cursor = start;
        for &(mark_start, mark_end) in &snippet.marks {
            if mark_end <= start || mark_start >= end {
                continue;
            }
            let (from, to) = (mark_start.max(start), mark_end.min(end));
            if from > cursor {
                pieces.push(Span::line(&snippet.text[cursor..from]));
            }
            let matched = &snippet.text[from..to];
            pieces.push(if style.color {
                style.bold(matched)
            } else {
                Span::line(&format!("**{matched}**"))
            });
            cursor = to;
        }
        if cursor < end {
            pieces.push(Span::line(&snippet.text[cursor..end]));
        }
        let mut composed = Line::default();
        for piece in pieces {
            composed = composed.append(piece);
        }
        out.push(composed);
    }
    out
}

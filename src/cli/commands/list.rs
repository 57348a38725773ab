//! `mbank list`: projects with formats, file count, tokens, budget status, worst staleness.
//! The token figure is one agent's session start, named beside it: the heaviest session
//! of the project ([`ProjectReport::session_tokens`], the function the TUI's label and
//! gauge use too), never several agents' loads added up.
use std::path::PathBuf;

use color_eyre::eyre::Result;
use serde::Serialize;

use crate::cli::args::ListSort;
use crate::cli::style::{Table, eprintln, line, println, thousands};
use crate::cli::{Context, json};
use crate::core::analysis::budgets::BudgetStatus;
use crate::core::analysis::membership::FileClass;
use crate::core::analysis::report::{Analyzer, Depth, ProjectReport, SessionTokens};
use crate::core::analysis::staleness::Freshness;
use crate::core::findings::Finding;
use crate::core::formats::agents::Agent;
use crate::core::model::{Bank, Format, Project};
use crate::core::scan::listings::Listings;
use crate::core::tokens::{Encoding, TokenCache};

#[derive(Serialize)]
struct ListOutput {
    schema: &'static str,
    root: PathBuf,
    encoding: Encoding,
    projects: Vec<ProjectRow>,
}

#[derive(Serialize)]
struct ProjectRow {
    name: String,
    path: PathBuf,
    formats: Vec<Format>,
    files: usize,
    /// The agent whose session start `loaded_tokens` and `private_tokens` are (the
    /// heaviest here); `null` when no agent loads the banks (BEANS.md, Infinity).
    agent: Option<Agent>,
    loaded_tokens: u64,
    private_tokens: u64,
    /// False when some file could not be counted (its tokens are missing from the totals).
    complete: bool,
    /// Each agent's session start that loads anything here, one figure per agent.
    sessions: Vec<SessionTokens>,
    budget: Option<BudgetStatus>,
    staleness: Option<Freshness>,
    last_write: Option<u64>,
    /// What `list` finds without validating: memory paths that lead out of the project
    /// (`symlink-outside`) and secrets kept in a bank (`secret-in-bank`). `mbank check`
    /// gives every finding.
    findings: Vec<Finding>,
    /// Files kept inside banks that are not memory (backup copies, foreign files), each
    /// with its class; `files` and the token figures leave them out.
    not_memory: Vec<NotMemory>,
}

#[derive(Serialize)]
struct NotMemory {
    path: String,
    class: FileClass,
}

fn row(report: &ProjectReport) -> ProjectRow {
    let sessions = report.agent_tokens();
    let session = report.session_of(&sessions);
    ProjectRow {
        name: report.name.clone(),
        path: report.path.clone(),
        formats: report.formats(),
        files: report.file_count(),
        agent: session.agent,
        loaded_tokens: session.tokens,
        private_tokens: session.private_tokens,
        complete: session.complete,
        sessions,
        budget: report.worst_budget(),
        staleness: report.worst_staleness(),
        last_write: report.last_write,
        findings: report.findings.clone(),
        not_memory: report
            .non_memory_files()
            .map(|f| NotMemory {
                path: f.file.display.clone(),
                class: f.class,
            })
            .collect(),
    }
}

/// "3 days ago" for a Unix time.
pub fn ago(epoch: Option<u64>) -> String {
    let now =
        crate::core::analysis::report::epoch_seconds(std::time::SystemTime::now()).unwrap_or(0);
    match crate::core::io::text::age_in_words(epoch, now) {
        words if epoch.is_none() || words == "just now" => words,
        words => format!("{words} ago"),
    }
}

/// Below this many projects `list` stays on one thread.
const PARALLEL_MIN_PROJECTS: usize = 64;

/// Projects a worker takes at a time: small enough that a worker slowed down by a busy
/// core leaves the rest to the others, large enough that a monorepo's projects whose git
/// evidence is not remembered ask git few times (once per repository and batch).
const BATCH: usize = 64;

/// Rows for every project, in input order. Large roots are shared across the machine's
/// cores: each worker has its own analyzer and fork of the token cache and takes the next
/// batch of projects when it is done with one; what the workers learned is merged into
/// the cache and saved once.
fn rows_of(
    context: &Context,
    projects: &[Project],
    listings: &Listings,
    cache: &mut TokenCache,
) -> Vec<ProjectRow> {
    use std::sync::atomic::{AtomicUsize, Ordering};

    let encoding = context.encoding;
    let config = &context.config;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    let workers = if projects.len() < PARALLEL_MIN_PROJECTS {
        1
    } else {
        threads
    };
    let next = AtomicUsize::new(0);
    let shared = &*cache;
    let work = || {
        let mut analyzer = Analyzer::new(config, encoding, shared.fork()).with_listings(listings);
        let mut rows = Vec::new();
        loop {
            let start = next.fetch_add(BATCH, Ordering::Relaxed);
            let Some(batch) = projects.get(start..projects.len().min(start + BATCH)) else {
                break;
            };
            if batch.is_empty() {
                break;
            }
            // Listed first so git, where a batch needs it, runs once per repository.
            let listed: Vec<Vec<Bank>> = batch.iter().map(|p| analyzer.list(p)).collect();
            let pairs: Vec<(&Project, &[Bank])> = batch
                .iter()
                .zip(&listed)
                .map(|(p, b)| (p, b.as_slice()))
                .collect();
            let evidence = analyzer.git_evidence_of(&pairs);
            drop(pairs);
            for (offset, ((project, banks), evidence)) in
                batch.iter().zip(listed).zip(evidence).enumerate()
            {
                let report =
                    analyzer.analyze_listed_with(project, banks, Depth::default(), evidence);
                rows.push((start + offset, row(&report)));
            }
        }
        (rows, analyzer.cache)
    };
    let results: Vec<(Vec<(usize, ProjectRow)>, TokenCache)> = if workers == 1 {
        vec![work()]
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers).map(|_| scope.spawn(work)).collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                })
                .collect()
        })
    };
    let mut indexed = Vec::with_capacity(projects.len());
    for (rows, worker_cache) in results {
        indexed.extend(rows);
        cache.absorb(worker_cache);
    }
    if let Err(problem) = cache.save() {
        eprintln(format!(
            "mbank: token cache not saved ({problem}); figures are right, the next run recounts"
        ));
    }
    indexed.sort_by_key(|(index, _)| *index);
    indexed.into_iter().map(|(_, row)| row).collect()
}

pub fn run(context: &Context, as_json: bool, sort: ListSort) -> Result<u8> {
    // The token cache loads on another thread while the root is scanned.
    let encoding = context.encoding;
    let cache = std::thread::spawn(move || TokenCache::open_default(encoding));
    // One set of folder listings for discovery and bank listing, remembered between runs.
    let listings = Listings::open_default(&context.root);
    let projects = context.projects_under_root_with(&listings)?;
    let mut cache = cache
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    let mut rows = rows_of(context, &projects, &listings, &mut cache);
    if let Err(problem) = listings.save() {
        eprintln(format!(
            "mbank: listing cache not saved ({problem}); the next run reads every folder"
        ));
    }
    // The process ends once the rows are printed: freeing the run's folder listings and
    // projects (tens of thousands of small allocations, ~2 ms) would only delay its exit.
    std::mem::forget(listings);
    std::mem::forget(projects);
    match sort {
        ListSort::Name => rows.sort_by(|a, b| a.name.cmp(&b.name)),
        ListSort::Activity => {
            rows.sort_by(|a, b| b.last_write.cmp(&a.last_write).then(a.name.cmp(&b.name)))
        }
        ListSort::Tokens => rows.sort_by(|a, b| {
            b.loaded_tokens
                .cmp(&a.loaded_tokens)
                .then(a.name.cmp(&b.name))
        }),
    }
    if as_json {
        json::print(&ListOutput {
            schema: "mbank.list/1",
            root: context.root.clone(),
            encoding: context.encoding,
            projects: rows,
        })?;
        return Ok(0);
    }
    let style = &context.style;
    if rows.is_empty() {
        println(format!(
            "No memory banks under {}. Create one with `mbank init PATH`, or try `mbank --demo list`.",
            context.root.display()
        ));
        return Ok(0);
    }
    let mut table = Table::new(&[
        "project",
        "formats",
        "files",
        "tokens",
        "session",
        "budget",
        "staleness",
        "last write",
    ])
    .right(&[2, 3]);
    for r in &rows {
        let formats: Vec<&str> = r.formats.iter().map(|f| f.id()).collect();
        let tokens = if r.complete {
            thousands(r.loaded_tokens)
        } else {
            format!("{}+", thousands(r.loaded_tokens))
        };
        table.row(vec![
            style.bold(&r.name),
            formats.join(",").into(),
            r.files.to_string().into(),
            tokens.into(),
            style.dim(r.agent.map_or("own tools", Agent::id)),
            style.status(r.budget.map_or("—", BudgetStatus::id)),
            style.status(r.staleness.map_or("—", Freshness::id)),
            ago(r.last_write).into(),
        ]);
    }
    table.print(style);
    println(style.dim(format!(
        "{} under {} · tokens: {} (each the start of one session, the heaviest, named under \
         session; private excluded)",
        crate::core::io::text::counted(rows.len(), "project"),
        context.root.display(),
        context.encoding.label()
    )));
    for (row, finding) in rows
        .iter()
        .flat_map(|r| r.findings.iter().map(move |f| (r, f)))
    {
        println(line![
            style.status(finding.severity.id()),
            format!(" {}: {} [{}]", row.name, finding.message, finding.code)
        ]);
    }
    Ok(0)
}

//! `mbank list`: projects with formats, file count, tokens, budget status, worst staleness.
//! The token and budget figures are one agent's session start, named beside it: the
//! heaviest session of the project against its budget ([`ProjectReport::session_tokens`],
//! the function `mbank tokens` and the TUI's picker and header use too), never several
//! agents' loads added up.
//!
//! Rows are remembered between runs with what each was derived from
//! ([`crate::core::analysis::rows`]): a warm run checks those inputs and analyses only the
//! projects where something changed; a row printed from memory is byte for byte the row
//! an analysis would print.
use std::path::{Path, PathBuf};

use color_eyre::eyre::Result;
use serde::{Deserialize, Serialize};

use crate::cli::args::ListSort;
use crate::cli::style::{Table, eprintln, line, println, thousands};
use crate::cli::{Context, json};
use crate::core::analysis::budgets::BudgetStatus;
use crate::core::analysis::git_evidence::{Evidence, Repository};
use crate::core::analysis::membership::FileClass;
use crate::core::analysis::report::{Analyzer, Depth, ProjectReport, SessionTokens};
use crate::core::analysis::rows::{
    Checked, Observed, RememberedRows, RowSource, RowsKey, listed_inode_and_change,
};
use crate::core::analysis::staleness::Freshness;
use crate::core::cache_store;
use crate::core::findings::{Finding, FindingCode};
use crate::core::formats::agents::Agent;
use crate::core::git::HistoryMemo;
use crate::core::io::bytes::os_bytes;
use crate::core::model::{Bank, Format, Project};
use crate::core::scan::discovery::OutsideFolders;
use crate::core::scan::listings::{Listings, Stamp};
use crate::core::tokens::{Encoding, TokenCache};

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
    /// The session's figure against its budget; `null` when nothing limits the
    /// session's whole start.
    budget: Option<BudgetStatus>,
    /// The budget's limit, in tokens.
    budget_limit: Option<u64>,
    /// The file `mbank check`'s finding on that budget names.
    budget_file: Option<PathBuf>,
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
        budget: session.budget,
        budget_limit: session.budget_limit,
        budget_file: report.budget_file(&session).map(Path::to_path_buf),
        sessions,
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

/// A row ready to print as a table line or as JSON, made once from its project's report
/// and remembered as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ListedRow {
    /// The row's JSON, compact (see [`json::write_pretty`]); empty when it was not read
    /// back.
    json: String,
    name: String,
    formats: String,
    files: u64,
    loaded_tokens: u64,
    budget_limit: Option<u64>,
    complete: bool,
    /// The session's agent, or "own tools".
    agent: String,
    /// Worst budget and staleness ids, or "—".
    budget: String,
    staleness: String,
    last_write: Option<u64>,
    /// (severity, message, code) of each finding.
    findings: Vec<(String, String, String)>,
}

/// A [`ListedRow`] as the remembered rows keep it, its text borrowed from the cache file.
#[derive(Serialize, Deserialize)]
struct StoredRow<'a> {
    json: &'a str,
    name: &'a str,
    formats: &'a str,
    files: u64,
    loaded_tokens: u64,
    budget_limit: Option<u64>,
    complete: bool,
    agent: &'a str,
    budget: &'a str,
    staleness: &'a str,
    last_write: Option<u64>,
    #[serde(borrow)]
    findings: Vec<(&'a str, &'a str, &'a str)>,
}

/// Nesting depth of a row inside the output's `projects` array.
const ROW_DEPTH: usize = 2;

impl ListedRow {
    fn of(report: &ProjectReport) -> Result<ListedRow> {
        let row = row(report);
        let json = serde_json::to_string(&row)?;
        Ok(ListedRow {
            json,
            formats: row
                .formats
                .iter()
                .map(|f| f.id())
                .collect::<Vec<_>>()
                .join(","),
            files: row.files as u64,
            loaded_tokens: row.loaded_tokens,
            budget_limit: row.budget_limit,
            complete: row.complete,
            agent: row.agent.map_or("own tools", Agent::id).to_string(),
            budget: row.budget.map_or("—", BudgetStatus::id).to_string(),
            staleness: row.staleness.map_or("—", Freshness::id).to_string(),
            last_write: row.last_write,
            findings: row
                .findings
                .iter()
                .map(|f| {
                    (
                        f.severity.id().to_string(),
                        f.message.clone(),
                        f.code.to_string(),
                    )
                })
                .collect(),
            name: row.name,
        })
    }

    fn encode(&self) -> Vec<u8> {
        let findings = self.findings.iter();
        let stored = StoredRow {
            json: &self.json,
            name: &self.name,
            formats: &self.formats,
            files: self.files,
            loaded_tokens: self.loaded_tokens,
            budget_limit: self.budget_limit,
            complete: self.complete,
            agent: &self.agent,
            budget: &self.budget,
            staleness: &self.staleness,
            last_write: self.last_write,
            findings: findings.map(|(s, m, c)| (&**s, &**m, &**c)).collect(),
        };
        // An empty row is never taken back (`decode` refuses it).
        cache_store::encode(&stored).unwrap_or_default()
    }

    /// The row `encode` wrote; its JSON only `with_json` (a table does not print it).
    fn decode(bytes: &[u8], with_json: bool) -> Option<ListedRow> {
        let stored: StoredRow<'_> = cache_store::decode(bytes)?;
        let findings = stored.findings.iter();
        Some(ListedRow {
            json: if with_json {
                stored.json.to_string()
            } else {
                String::new()
            },
            name: stored.name.to_string(),
            formats: stored.formats.to_string(),
            files: stored.files,
            loaded_tokens: stored.loaded_tokens,
            budget_limit: stored.budget_limit,
            complete: stored.complete,
            agent: stored.agent.to_string(),
            budget: stored.budget.to_string(),
            staleness: stored.staleness.to_string(),
            last_write: stored.last_write,
            findings: findings
                .map(|&(s, m, c)| (s.to_string(), m.to_string(), c.to_string()))
                .collect(),
        })
    }
}

/// What a report's row was derived from, for remembering it; its files are stamped as
/// they were listed.
fn observed(
    report: &ProjectReport,
    repository: Repository,
    git_failed: bool,
    started: i128,
    outside: &OutsideFolders,
    payload: Vec<u8>,
) -> Observed {
    let inside = |path: &Path| path.starts_with(&report.path);
    let mut checkable = !git_failed
        && !report
            .findings
            .iter()
            .any(|f| f.code == FindingCode::SymlinkOutside)
        && report
            .banks
            .iter()
            .all(|b| b.problems.is_empty() && inside(&b.root));
    let files = report.banks.iter().flat_map(|b| &b.files).map(|file| {
        checkable &= file.error.is_none() && inside(&file.file.path);
        // A store of virtual memories is vouched for by the fact read from it.
        let version = (!file.file.is_virtual()).then_some((file.file.size, file.file.modified));
        (
            file.file.path.as_path(),
            version,
            // Stamped as listed, before it was read: a change since makes the row out of
            // date.
            listed_inode_and_change(&file.file),
        )
    });
    let files: Vec<_> = files.collect();
    Observed::new(
        &report.path,
        files,
        started,
        repository,
        outside.folders_of(&report.path),
        checkable,
        payload,
    )
}

/// What every row of this run shares: the build, the encoding, the configuration that
/// analysis reads, the home folder and the day (`check` adds its own parts). `None` when
/// the build cannot be stamped.
pub(crate) fn rows_key(context: &Context) -> Option<RowsKey> {
    let mut key = RowsKey::of_this_build()?;
    let config = &context.config;
    let home = crate::core::io::paths::home_dir();
    // Where memory kept outside the projects is found: a change there may give any
    // project a bank.
    for place in crate::core::scan::discovery::outside_places(home.as_deref()) {
        let digest = std::fs::metadata(&place)
            .ok()
            .and_then(|meta| Stamp::of(&meta))
            .map_or(0, |stamp| stamp.digest());
        key.part(place.as_os_str().as_encoded_bytes())
            .part(&digest.to_le_bytes());
    }
    key.part(context.encoding.label().as_bytes())
        .part(
            format!(
                "{:?}",
                (
                    &config.tokenizer,
                    config.scan_depth,
                    &config.ignore,
                    &config.budgets,
                    &config.staleness,
                    &config.rules,
                )
            )
            .as_bytes(),
        )
        .part(format!("{home:?}").as_bytes())
        .part(context.clock.today().to_string().as_bytes());
    Some(key)
}

/// "3 days ago" for a Unix time, `now` being the clock's.
pub fn ago(epoch: Option<u64>, now: u64) -> String {
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

/// A fresh row and what it was derived from, by the project's index.
type Fresh = (usize, ListedRow, Observed);

/// Rows for the projects at `wanted`, with what each was derived from, a batch at a
/// time as the workers made them. Large sets are
/// shared across the machine's cores: each worker has its own analyzer and fork of the
/// token cache and takes the next batch of projects when it is done with one; what the
/// workers learned is merged into the cache and saved once.
fn rows_of(
    context: &Context,
    projects: &[Project],
    wanted: &[usize],
    listings: &Listings,
    cache: &mut TokenCache,
    with_json: bool,
) -> Result<Vec<Vec<Fresh>>> {
    use std::sync::atomic::{AtomicUsize, Ordering};

    let encoding = context.encoding;
    let config = &context.config;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    let workers = if wanted.len() < PARALLEL_MIN_PROJECTS {
        1
    } else {
        threads
    };
    let next = AtomicUsize::new(0);
    let shared = &*cache;
    let started = listings.started();
    let home = crate::core::io::paths::home_dir();
    let outside = &OutsideFolders::of_home(home.as_deref());
    let history_memo = std::sync::Arc::new(match crate::core::io::paths::cache_dir() {
        Some(folder) => HistoryMemo::in_folder(&folder, started),
        None => HistoryMemo::off(),
    });
    let work = || -> (Result<Vec<Vec<Fresh>>>, TokenCache) {
        let mut analyzer = Analyzer::new(config, encoding, shared.fork(), &context.clock)
            .for_one_run()
            .with_listings(listings)
            .remembering_history(std::sync::Arc::clone(&history_memo));
        // A batch's rows are kept in a list of their own, made to size: one list of a
        // worker's rows would keep up to half of its room unused after it last grew.
        let mut batches = Vec::new();
        loop {
            let start = next.fetch_add(BATCH, Ordering::Relaxed);
            let Some(batch) = wanted.get(start..wanted.len().min(start + BATCH)) else {
                break;
            };
            if batch.is_empty() {
                break;
            }
            // Listed first so git, where a batch needs it, runs once per repository.
            let listed: Vec<Vec<Bank>> =
                batch.iter().map(|&i| analyzer.list(&projects[i])).collect();
            let pairs: Vec<(&Project, &[Bank])> = batch
                .iter()
                .zip(&listed)
                .map(|(&i, b)| (&projects[i], b.as_slice()))
                .collect();
            let evidence = analyzer.git_evidence_of(&pairs);
            drop(pairs);
            let mut rows = Vec::with_capacity(batch.len());
            for ((&index, banks), evidence) in batch.iter().zip(listed).zip(evidence) {
                let project = &projects[index];
                let git_failed = matches!(evidence, Evidence::Failed { .. });
                let report =
                    analyzer.analyze_listed_with(project, banks, Depth::default(), evidence);
                let repository = analyzer.repository(&project.path);
                let mut listed = match ListedRow::of(&report) {
                    Ok(listed) => listed,
                    Err(problem) => return (Err(problem), analyzer.cache),
                };
                let payload = listed.encode();
                let seen = observed(&report, repository, git_failed, started, outside, payload);
                if !with_json {
                    // Remembered with the row; a table does not print it.
                    listed.json = String::new();
                }
                rows.push((index, listed, seen));
            }
            batches.push(rows);
        }
        (Ok(batches), analyzer.cache)
    };
    let results: Vec<(Result<Vec<Vec<Fresh>>>, TokenCache)> = if workers == 1 {
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
    // Each batch's rows stay where the worker put them: gathering them in one list here
    // would hold a second copy while the token figures are merged and saved.
    let mut fresh = Vec::new();
    let mut failure = None;
    for (rows, worker_cache) in results {
        match rows {
            Ok(batches) => fresh.extend(batches),
            Err(problem) => failure = Some(problem),
        }
        cache.absorb(worker_cache);
    }
    if let Err(problem) = cache.save() {
        eprintln(format!(
            "mbank: token cache not saved ({problem}); figures are right, the next run recounts"
        ));
    }
    if let Some(problem) = failure {
        return Err(problem);
    }
    Ok(fresh)
}

/// Every project's row, in discovery's order: remembered rows that still hold, the rest
/// analysed (and remembered for the next run).
fn rows(context: &Context, with_json: bool) -> Result<Vec<ListedRow>> {
    // A demo copy's root is new on every run: caches of it would only pile up.
    let key = (!context.is_demo())
        .then(|| rows_key(context))
        .flatten()
        .map(|key| key.finish());
    let remembered = RememberedRows::open_default(&context.root, key);
    let checked = remembered.check();
    let rows = if checked.all_hold()
        && let Some(rows) = (0..remembered.len())
            .map(|i| ListedRow::decode(remembered.payload(i)?, with_json))
            .collect::<Option<Vec<_>>>()
    {
        rows
    } else {
        analysed(context, &remembered, &checked, with_json)?
    };
    // Freeing the remembered file's bytes would only delay the process's exit.
    std::mem::forget(remembered);
    Ok(rows)
}

/// At most this many projects to analyse again, with every other row remembered, are
/// analysed with caches of their own: loading and saving the root's token and listing
/// caches would cost more than counting their files afresh.
const FEW_PROJECTS: usize = 64;

fn analysed(
    context: &Context,
    remembered: &RememberedRows,
    checked: &Checked,
    with_json: bool,
) -> Result<Vec<ListedRow>> {
    let encoding = context.encoding;
    let open_listings = || {
        // One set of folder listings for discovery and bank listing, remembered between runs.
        let mut listings = if context.is_demo() {
            Listings::in_memory_as_of(&context.clock)
        } else {
            Listings::open_default(&context.root, &context.clock)
        };
        if !remembered.is_empty() {
            // Projects whose rows are kept list nothing: their folders stay in the file.
            listings.keep_unvisited();
        }
        listings
    };
    let reused = checked
        .discovery_holds
        .then(|| remembered.projects())
        .flatten();
    let discovered = reused.is_none();
    let (projects, caches) = match reused {
        Some(projects) => (projects, None),
        None => {
            // The token cache loads on another thread while the root is scanned.
            let cache = std::thread::spawn(move || TokenCache::open_default(encoding));
            let listings = open_listings();
            let projects = context.projects_under_root_with(&listings)?;
            (projects, Some((listings, cache)))
        }
    };
    let indices = remembered.indices();
    // Remembered rows by position; the rows in discovery's order are put together once
    // the token figures are saved and freed.
    let mut kept_rows = Vec::new();
    let mut wanted = Vec::new();
    for (position, project) in projects.iter().enumerate() {
        let kept = os_bytes(project.path.as_os_str())
            .and_then(|path| indices.get(path).copied())
            .filter(|&index| checked.row_holds(index))
            .and_then(|index| {
                let row = ListedRow::decode(remembered.payload(index)?, with_json)?;
                Some((index, row))
            });
        match kept {
            Some((index, row)) => kept_rows.push((position, index, row)),
            None => wanted.push(position),
        }
    }
    drop(indices);
    let (listings, mut cache) = match caches {
        Some((listings, cache)) => (
            listings,
            cache
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        ),
        None if wanted.len() <= FEW_PROJECTS => (
            Listings::stamping(&context.clock),
            TokenCache::in_memory(encoding),
        ),
        None => (open_listings(), TokenCache::open_default(encoding)),
    };
    let fresh = rows_of(
        context, &projects, &wanted, &listings, &mut cache, with_json,
    )?;
    // The token figures, one for every file of the root, are saved: what is saved next
    // reuses their memory.
    drop(cache);
    let mut rows: Vec<Option<ListedRow>> = (0..projects.len()).map(|_| None).collect();
    let mut sources: Vec<Option<RowSource>> = (0..projects.len()).map(|_| None).collect();
    for (position, index, row) in kept_rows {
        rows[position] = Some(row);
        sources[position] = Some(RowSource::Kept(index));
    }
    for (position, row, seen) in fresh.into_iter().flatten() {
        rows[position] = Some(row);
        sources[position] = Some(RowSource::Fresh(seen));
    }
    let sources: Vec<RowSource> = sources.into_iter().flatten().collect();
    if sources.len() == projects.len()
        && let Err(problem) = remembered.save(&projects, &sources, &listings, discovered)
    {
        eprintln(format!(
            "mbank: rows not remembered ({problem}); they are right, the next run analyses again"
        ));
    }
    if let Err(problem) = listings.save() {
        eprintln(format!(
            "mbank: listing cache not saved ({problem}); the next run reads every folder"
        ));
    }
    // The process ends once the rows are printed: freeing the run's folder listings and
    // projects (tens of thousands of small allocations, ~2 ms) would only delay its exit.
    std::mem::forget(listings);
    std::mem::forget(projects);
    Ok(rows.into_iter().flatten().collect())
}

/// The `mbank.list/1` envelope around the rows' own JSON: what `json::print` writes
/// for the same rows.
fn json_output(root: &Path, encoding: Encoding, rows: &[ListedRow]) -> Result<String> {
    let mut out = String::with_capacity(rows.iter().map(|r| r.json.len() * 2).sum::<usize>() + 256);
    out.push_str("{\n  \"schema\": \"mbank.list/1\",\n  \"root\": ");
    out.push_str(&serde_json::to_string(root)?);
    out.push_str(",\n  \"encoding\": ");
    out.push_str(&serde_json::to_string(&encoding)?);
    out.push_str(",\n  \"projects\": ");
    if rows.is_empty() {
        out.push_str("[]");
    } else {
        out.push_str("[\n");
        for (index, row) in rows.iter().enumerate() {
            if index > 0 {
                out.push_str(",\n");
            }
            out.push_str("    ");
            json::write_pretty(&row.json, ROW_DEPTH, &mut out);
        }
        out.push_str("\n  ]");
    }
    out.push_str("\n}\n");
    Ok(out)
}

pub fn run(context: &Context, as_json: bool, sort: ListSort) -> Result<u8> {
    let mut rows = rows(context, as_json)?;
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
        let output = json_output(&context.root, context.encoding, &rows)?;
        crate::cli::style::write_out(std::io::stdout().lock(), &output);
        std::mem::forget(rows);
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
        let suffix = if r.complete { "" } else { "+" };
        let tokens = match r.budget_limit {
            Some(limit) => format!(
                "{}{suffix}/{}",
                thousands(r.loaded_tokens),
                thousands(limit)
            ),
            None => format!("{}{suffix}", thousands(r.loaded_tokens)),
        };
        table.row(vec![
            style.bold(&r.name),
            r.formats.clone().into(),
            r.files.to_string().into(),
            tokens.into(),
            style.dim(&r.agent),
            style.status(&r.budget),
            style.status(&r.staleness),
            ago(r.last_write, context.clock.epoch_seconds()).into(),
        ]);
    }
    table.print(style);
    println(style.dim(format!(
        "{} under {} · tokens: {} (each the start of one session, the heaviest, named under \
         session, against its budget where one limits it; private excluded)",
        crate::core::io::text::counted(rows.len(), "project"),
        context.root.display(),
        context.encoding.label()
    )));
    for (row, (severity, message, code)) in rows
        .iter()
        .flat_map(|r| r.findings.iter().map(move |f| (r, f)))
    {
        println(line![
            style.status(severity),
            format!(" {}: {} [{}]", row.name, message, code)
        ]);
    }
    // Tens of thousands of small strings: freeing them would only delay the exit.
    std::mem::forget(table);
    std::mem::forget(rows);
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct ListOutput<'a> {
        schema: &'static str,
        root: &'a Path,
        encoding: Encoding,
        projects: &'a [ProjectRow],
    }

    fn demo_reports() -> (crate::core::demo::DemoRoot, Vec<ProjectReport>) {
        let clock = crate::core::demo::clock_of_writing().unwrap();
        let demo = crate::core::demo::create(&clock).unwrap();
        let root = demo.path().to_path_buf();
        let projects = crate::core::scan::discovery::scan(&root, &Default::default());
        let config = crate::core::config::Config::default();
        let mut analyzer = Analyzer::new(
            &config,
            Encoding::O200k,
            TokenCache::in_memory(Encoding::O200k),
            &clock,
        );
        let reports = projects
            .iter()
            .map(|p| analyzer.analyze(p, Depth::default()))
            .collect();
        (demo, reports)
    }

    #[test]
    fn rows_printed_from_their_own_json_equal_the_envelope_serde_prints() {
        let (_demo, reports) = demo_reports();
        assert!(reports.len() >= 2, "the demo has several projects");
        let rows: Vec<ListedRow> = reports.iter().map(|r| ListedRow::of(r).unwrap()).collect();
        let project_rows: Vec<ProjectRow> = reports.iter().map(row).collect();
        let root = PathBuf::from("/some/root \"quoted\"");
        for count in [0, 1, rows.len()] {
            let expected = serde_json::to_string_pretty(&ListOutput {
                schema: "mbank.list/1",
                root: &root,
                encoding: Encoding::Cl100k,
                projects: &project_rows[..count],
            })
            .unwrap()
                + "\n";
            let printed = json_output(&root, Encoding::Cl100k, &rows[..count]).unwrap();
            assert_eq!(printed, expected);
        }
    }

    #[test]
    fn a_row_read_back_from_its_bytes_is_the_row() {
        let (_demo, reports) = demo_reports();
        for report in &reports {
            let row = ListedRow::of(report).unwrap();
            let bytes = row.encode();
            assert_eq!(ListedRow::decode(&bytes, true), Some(row.clone()));
            let without_json = ListedRow::decode(&bytes, false).unwrap();
            assert_eq!(without_json.json, "");
            assert_eq!(
                ListedRow {
                    json: row.json.clone(),
                    ..without_json
                },
                row
            );
            assert_eq!(
                ListedRow::decode(&bytes[..bytes.len() - 1], true),
                None,
                "a cut row is refused"
            );
        }
    }
}

//! `mbank watch`, `mbank changes [--since WHEN] [--json] [--mark-reviewed]` and `mbank
//! history --stats`: the journal that keeps every version of every memory file, what
//! changed since a person last looked, and how much disk it takes.
use std::path::PathBuf;

use crate::core::scan::listings::Listings;
use chrono::{DateTime, Utc};
use color_eyre::eyre::{Result, eyre};
use serde::Serialize;

use crate::cli::Context;
use crate::cli::style::{self, Span, Table, line, println};
use crate::core::history::{History, Stats};
use crate::core::journal::changes::{self, FileChange, SurveyOptions};
use crate::core::journal::reviewed::Reviewed;
use crate::core::journal::{self, Recorder, ScopeOptions, lock, scope, watch as follow};

fn data_dir() -> Result<PathBuf> {
    crate::core::io::paths::data_dir()
        .ok_or_else(|| eyre!("no data folder for the history (set MBANK_DATA_DIR or HOME)"))
}

fn history(context: &Context) -> Result<History> {
    context
        .history
        .clone()
        .ok_or_else(|| eyre!("no data folder for the history (set MBANK_DATA_DIR or HOME)"))
}

fn scope_options(context: &Context) -> Result<ScopeOptions> {
    crate::core::config::check_root(&context.root, &context.root_source)?;
    Ok(ScopeOptions {
        root: context.root.clone(),
        scan: context.scan_options(),
        config: context.config.journal.clone(),
    })
}

/// `mbank watch`: catches up, then records every change until SIGTERM or SIGINT.
pub fn watch(context: &Context) -> Result<u8> {
    let data_dir = data_dir()?;
    let history = history(context)?;
    let options = scope_options(context)?;
    let lock = lock::try_take(&data_dir, lock::Holder::Watch)
        .map_err(|e| eyre!("{e}"))?
        .ok_or_else(|| {
            let who = lock::holder(&data_dir)
                .map_or("another recorder (an `mbank watch`, or the TUI)", |h| {
                    h.described()
                });
            eyre!("{who} is recording already: one recorder at a time")
        })?;
    let mut recorder = Recorder::new(history, &data_dir, lock);
    let mut follower = follow::Follower::new().map_err(|e| eyre!("cannot watch files: {e}"))?;
    stop_on_signals(follower.stopper())?;
    let mut log = |text: &str| style::eprintln(format!("mbank watch: {text}"));
    // The search index follows too, so a search after an agent's write reads nothing.
    let mut index = if context.is_demo() {
        crate::core::search::SearchIndex::in_memory()
    } else {
        crate::core::search::SearchIndex::open_default(&context.root)
    };
    let mut refresh_index = || {
        let listings = Listings::in_memory_as_of(&context.clock);
        let Ok(projects) = context.projects_under_root_with(&listings) else {
            return;
        };
        let banks: Vec<Vec<crate::core::model::Bank>> = projects
            .iter()
            .map(|p| crate::core::scan::bank::list_banks_with(&listings, p))
            .collect();
        let inputs: Vec<crate::core::search::ProjectBanks<'_>> = projects
            .iter()
            .zip(&banks)
            .map(|(project, banks)| crate::core::search::ProjectBanks { project, banks })
            .collect();
        let home = if context.is_demo() {
            None
        } else {
            context.scan_options().home
        };
        for problem in index.refresh(&inputs, home.as_deref()).problems {
            style::eprintln(format!("mbank watch: search index: {problem}"));
        }
    };
    // The index is brought up to date on a thread of its own: listing every project for
    // it after each batch held up the recording of the next one. Requests that pile up
    // meanwhile are served by one refresh. The catch-up's request is waited for, so the
    // index is current by the time the watch says it is watching.
    let (wanted, requests) = std::sync::mpsc::channel::<Option<std::sync::mpsc::Sender<()>>>();
    std::thread::scope(|threads| {
        threads.spawn(move || {
            while let Ok(first) = requests.recv() {
                let mut waiting: Vec<_> = first.into_iter().collect();
                waiting.extend(requests.try_iter().flatten());
                refresh_index();
                for done in waiting {
                    let _ = done.send(());
                }
            }
        });
        let mut caught_up = false;
        let mut after_changes = move || {
            if caught_up {
                let _ = wanted.send(None);
                return;
            }
            caught_up = true;
            let (done, refreshed) = std::sync::mpsc::channel();
            if wanted.send(Some(done)).is_ok() {
                let _ = refreshed.recv();
            }
        };
        follow::follow(
            &mut recorder,
            &options,
            &mut follower,
            &mut log,
            &mut after_changes,
        );
        // The sender goes with `after_changes`, so the index thread ends after its last
        // refresh.
    });
    Ok(0)
}

/// Stops the follower on SIGTERM, SIGINT or SIGHUP, from a thread of its own.
#[cfg(unix)]
fn stop_on_signals(stopper: follow::Stopper) -> Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGINT, SIGHUP])
        .map_err(|e| eyre!("cannot handle signals: {e}"))?;
    std::thread::spawn(move || {
        if signals.forever().next().is_some() {
            stopper.stop();
        }
    });
    Ok(())
}

#[cfg(not(unix))]
fn stop_on_signals(_stopper: follow::Stopper) -> Result<()> {
    Ok(())
}

/// An instant as `--since` takes it: RFC 3339, a day, or an age before now.
pub(crate) fn parse_since(text: &str, now: DateTime<Utc>) -> Result<DateTime<Utc>> {
    let text = text.trim();
    if let Ok(at) = DateTime::parse_from_rfc3339(text) {
        return Ok(at.with_timezone(&Utc));
    }
    if let Ok(day) = chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
        && let Some(midnight) = day.and_hms_opt(0, 0, 0)
    {
        return Ok(midnight.and_utc());
    }
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let seconds = match unit {
        "s" => 1,
        "m" | "min" => 60,
        "h" => 3600,
        "d" => 86_400,
        "w" => 7 * 86_400,
        _ => 0,
    };
    match number.parse::<i64>() {
        Ok(n) if seconds > 0 => Ok(now - chrono::Duration::seconds(n.saturating_mul(seconds))),
        _ => Err(eyre!(
            "--since {text:?} is not a time: give an RFC 3339 instant, a day (2026-05-01) \
             or an age (90m, 12h, 3d, 2w)"
        )),
    }
}

#[derive(Serialize)]
struct JsonChanges<'a> {
    schema: &'static str,
    /// The instant files with no mark are compared at, when there is one.
    since: Option<String>,
    changes: &'a [FileChange],
    problems: &'a [String],
}

/// `mbank changes`: catches up first (unless another recorder runs: it has), then
/// lists what changed since each file was marked reviewed.
pub fn changes(
    context: &Context,
    since: Option<&str>,
    as_json: bool,
    mark_reviewed: bool,
) -> Result<u8> {
    let data_dir = data_dir()?;
    let history = history(context)?;
    let options = scope_options(context)?;
    let scope = scope::build(&options);
    if let Some(lock) =
        lock::try_take(&data_dir, lock::Holder::Command).map_err(|e| eyre!("{e}"))?
    {
        let mut recorder = Recorder::new(history.clone(), &data_dir, lock);
        let report = recorder.catch_up(&scope);
        for problem in &report.problems {
            style::eprintln(format!("mbank: {problem}"));
        }
    }
    let mut reviewed = Reviewed::load(&data_dir).map_err(|e| eyre!("{e}"))?;
    let now = context.clock.utc();
    let since = since.map(|s| parse_since(s, now)).transpose()?;
    let survey = changes::survey(
        &history,
        &scope,
        &reviewed,
        &SurveyOptions {
            since,
            home: options.scan.home.clone(),
        },
    )
    .map_err(|e| eyre!("{e}"))?;
    if mark_reviewed {
        let count = survey.changes.len();
        changes::mark_reviewed(&survey, &mut reviewed, now);
        reviewed.save(&data_dir).map_err(|e| eyre!("{e}"))?;
        println(format!(
            "marked {} reviewed ({} changed since the last mark)",
            crate::core::io::text::counted(survey.states.len(), "memory file"),
            count
        ));
        return Ok(0);
    }
    if as_json {
        crate::cli::json::print(&JsonChanges {
            schema: "mbank.changes/1",
            since: since
                .map(|s| s.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
                .or(reviewed.marked_at.clone()),
            changes: &survey.changes,
            problems: &survey.problems,
        })?;
        return Ok(0);
    }
    for problem in &survey.problems {
        style::eprintln(format!("mbank: {problem}"));
    }
    if survey.changes.is_empty() {
        println("No memory file changed since it was last marked reviewed.");
        return Ok(0);
    }
    let mut table = Table::new(&["CHANGE", "FILE", "STORE", "LINES", "BY"]);
    for change in &survey.changes {
        let word = match change.change {
            crate::core::review::ChangeKind::Deleted => context.style.red(change.change.word()),
            crate::core::review::ChangeKind::Added => context.style.green(change.change.word()),
            _ => context.style.yellow(change.change.word()),
        };
        let file = match &change.past_cut {
            Some(_) => format!("{} ✂", change.path.display()),
            None => change.path.display().to_string(),
        };
        table.row(vec![
            word,
            Span::line(&file),
            Span::line(&change.store),
            Span::line(&format!("+{} -{}", change.added, change.removed)),
            Span::line(&change.writers.join(", ")),
        ]);
    }
    table.print(&context.style);
    for change in &survey.changes {
        for signal in &change.signals {
            println(line![
                "  ",
                &change.display,
                ": ",
                context.style.bold(signal.code),
                " ",
                signal.message.as_str(),
            ]);
        }
        if let Some(from) = &change.renamed_from {
            println(line!["  ", &change.display, " was renamed from ", from]);
        }
        if let Some(past) = &change.past_cut {
            println(line![
                "  ",
                context.style.yellow("✂ past the cut"),
                " ",
                format!(
                    "{}; {} of this change's added lines are there, unread by {}",
                    past.message, past.added_lines, past.agent
                ),
            ]);
        }
    }
    println(context.style.dim(
        "See a file's versions with `mbank history FILE` (`--diff VERSION` compares), bring one \
         back with `mbank restore FILE VERSION` (a deleted file too); take all as reviewed with \
         `mbank changes --mark-reviewed`.",
    ));
    Ok(0)
}

#[derive(Serialize)]
struct JsonStats<'a> {
    schema: &'static str,
    folder: PathBuf,
    #[serde(flatten)]
    stats: &'a Stats,
}

/// `mbank history --stats`.
pub fn stats(context: &Context, as_json: bool) -> Result<u8> {
    let history = history(context)?;
    let folder = data_dir()?.join("history");
    let stats = history.stats().map_err(|e| eyre!("{e}"))?;
    if as_json {
        crate::cli::json::print(&JsonStats {
            schema: "mbank.history-stats/1",
            folder,
            stats: &stats,
        })?;
        return Ok(0);
    }
    let mib = |bytes: u64| format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0));
    println(line![
        "mbank's history in ",
        &folder,
        format!(
            ": {} with {}, {} on disk (cap {}: [history] max_mib_total)",
            crate::core::io::text::counted(stats.files, "file"),
            crate::core::io::text::counted(stats.versions, "version"),
            mib(stats.bytes),
            mib(stats.cap_bytes)
        ),
    ]);
    Ok(0)
}

/// The agent's store holding `file`, and the scope it was found in, for `mbank restore`
/// of a file no bank of a project holds (Claude Code auto memory, Kilo Memory, Codex
/// memories).
pub fn store_holding(
    context: &Context,
    file: &std::path::Path,
) -> Result<Option<(journal::Store, journal::JournalScope)>> {
    let options = scope_options(context)?;
    let scope = scope::build(&options);
    let key = crate::core::history::key_of(file);
    let store = scope
        .store_holding(&key)
        .filter(|store| store.agent_store)
        .cloned();
    Ok(store.map(|store| (store, scope)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_takes_instants_days_and_ages() {
        let now = DateTime::parse_from_rfc3339("2026-05-10T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let at = |text| parse_since(text, now).unwrap().to_rfc3339();
        assert_eq!(at("2026-05-01"), "2026-05-01T00:00:00+00:00");
        assert_eq!(at("2026-05-09T08:00:00Z"), "2026-05-09T08:00:00+00:00");
        assert_eq!(at("90m"), "2026-05-10T10:30:00+00:00");
        assert_eq!(at("3d"), "2026-05-07T12:00:00+00:00");
        assert!(parse_since("yesterday", now).is_err());
    }
}

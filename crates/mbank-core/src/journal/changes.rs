//! What changed since a person last looked: every file of the journal's scope (and every
//! file of its folders that is gone) whose state differs from the state it had when it
//! was marked reviewed, with line counts and the review signals `mbank review` raises
//! for a git change (deleted decisions, secrets, hidden Unicode, placeholders, claims
//! the code contradicts).
//!
//! The baseline of a file is, in order: the text it held when it was marked reviewed;
//! else its state at `--since` (or at the last mark of any file); else the first version
//! the history holds of it.
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::reviewed::{Mark, Reviewed};
use super::scope::JournalScope;
use crate::error::Result;
use crate::formats::codex_memories;
use crate::history::{self, History, Version};
use crate::io::confine::ProjectFolder;
use crate::model::{Format, Role};
use crate::review::diff::diff_texts;
use crate::review::{ChangeKind, Signal};

/// One file changed since its baseline.
#[derive(Debug, Clone, Serialize)]
pub struct FileChange {
    /// The file (its real path).
    pub path: PathBuf,
    /// As a person reads it.
    pub display: String,
    /// The store it belongs to: "Cline memory bank", "Claude Code auto memory".
    pub store: String,
    pub project: Option<PathBuf>,
    pub change: ChangeKind,
    /// Where it came from, when it was renamed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub renamed_from: Option<PathBuf>,
    /// The version in the history whose text is the baseline (`None`: it did not exist,
    /// or its baseline is not in the history).
    pub baseline_version: Option<u64>,
    /// The newest version in the history (what `mbank restore` takes).
    pub newest_version: Option<u64>,
    /// Who wrote the versions since the baseline, oldest first.
    pub writers: Vec<String>,
    pub added: usize,
    pub removed: usize,
    pub signals: Vec<Signal>,
    /// The change wrote lines past where the agent that loads the file stops reading.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub past_cut: Option<PastCut>,
    /// The baseline's text (`None`: the file did not exist then, or it is not kept).
    #[serde(skip)]
    pub baseline_text: Option<String>,
    /// The file's text as the survey read it (`None`: it is gone).
    #[serde(skip)]
    pub current_text: Option<String>,
    /// The baseline against the text now, hunk by hunk.
    #[serde(skip)]
    pub diff: crate::review::FileDiff,
}

/// Lines a change added past an agent's load cut (see [`crate::analysis::load_cut`]). A
/// file of a chain (Codex's AGENTS.md files) is judged on its own: its cut is at least
/// this early.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PastCut {
    /// "Claude Code".
    pub agent: String,
    /// "200-line limit".
    pub limit: String,
    /// The lines past the cut in the file now, first to last (1-based).
    pub first_line_past: usize,
    pub last_line: usize,
    /// How many of the added lines are past it.
    pub added_lines: usize,
    /// "MEMORY.md: lines 201–312 (9.1 KiB) are past Claude Code's 200-line limit".
    pub message: String,
}

/// The lines `current` added since `baseline` past the cut its format's agent makes in it
/// (Codex memories, which have no format: the middle Codex leaves out of its summary).
fn past_cut_of(
    format: Option<Format>,
    rel: Option<&Path>,
    display: &str,
    baseline: &str,
    current: &str,
) -> Option<PastCut> {
    let Some(format) = format else {
        return (rel? == Path::new(codex_memories::SUMMARY))
            .then(|| codex_summary_past_cut(display, baseline, current))
            .flatten();
    };
    let cut = crate::analysis::load_cut::format_cut(format, rel?, current)?;
    let added = crate::analysis::load_cut::past::added_past(baseline, current, &cut.cut);
    (!added.is_empty()).then(|| PastCut {
        agent: cut.agent.to_string(),
        limit: cut.limit.clone(),
        first_line_past: cut.cut.first_line,
        last_line: cut.cut.last_line,
        added_lines: added.len(),
        message: cut.sentence(display),
    })
}

/// The lines `current` added since `baseline` in the middle Codex leaves out of its memory
/// summary ([`codex_memories::summary_unread`]).
fn codex_summary_past_cut(display: &str, baseline: &str, current: &str) -> Option<PastCut> {
    let unread = codex_memories::summary_unread(current)?;
    let line_of = |at: usize| current[..at].matches('\n').count() + 1;
    let first_line = line_of(unread.start);
    let last_line = line_of(unread.end.saturating_sub(1).max(unread.start));
    let inside = unread.start > 0 && !current[..unread.start].ends_with('\n');
    let added = crate::analysis::load_cut::past::added_where(baseline, current, |line| {
        (first_line..=last_line).contains(&line)
    })
    .len();
    let lines =
        crate::analysis::load_cut::lines_in_words(first_line..=last_line, unread.len(), inside);
    let verb = if first_line == last_line { "is" } else { "are" };
    (added > 0).then(|| PastCut {
        agent: "Codex".to_string(),
        limit: format!(
            "{}-token limit on its memory summary (it reads the start and the end)",
            codex_memories::SUMMARY_LIMIT_IN_WORDS.0
        ),
        first_line_past: first_line,
        last_line,
        added_lines: added,
        message: format!(
            "{display}: {lines} {verb} left out by Codex, which puts only the first and last \
             {} tokens of its memory summary into a session",
            codex_memories::SUMMARY_LIMIT_IN_WORDS.1
        ),
    })
}

/// Every file looked at: those changed, and the state of each (what marking them
/// reviewed keeps).
#[derive(Debug, Clone, Default)]
pub struct Survey {
    pub changes: Vec<FileChange>,
    pub states: Vec<(PathBuf, Mark)>,
    /// Files that could not be read, as sentences.
    pub problems: Vec<String>,
}

/// What [`survey`] is given besides the history and the scope.
#[derive(Debug, Clone, Default)]
pub struct SurveyOptions {
    /// Changes since this instant, for files with no mark of their own.
    pub since: Option<DateTime<Utc>>,
    /// The home folder (for `@~/…` imports in signals).
    pub home: Option<PathBuf>,
}

/// Where a file is and what it is, for its report.
struct Place {
    display: String,
    store: String,
    project: Option<PathBuf>,
    format: Option<Format>,
    role: Role,
    agent_store: bool,
    allowed_root: Option<PathBuf>,
    path: PathBuf,
    /// The file relative to its store's folder (what its format places).
    rel: Option<PathBuf>,
}

/// Looks at every file of `scope` and every file with a history in its folders.
pub fn survey(
    history: &History,
    scope: &JournalScope,
    reviewed: &Reviewed,
    options: &SurveyOptions,
) -> Result<Survey> {
    let mut places: HashMap<PathBuf, Place> = HashMap::new();
    for file in &scope.files {
        let store = scope.store_of(file);
        places.entry(file.key.clone()).or_insert(Place {
            display: file.display.clone(),
            store: store.label.clone(),
            project: store.project.clone(),
            format: store.format,
            role: file.role,
            agent_store: store.agent_store,
            allowed_root: Some(store.allowed_root.clone()),
            path: file.path.clone(),
            rel: file
                .path
                .strip_prefix(&store.root)
                .ok()
                .map(Path::to_path_buf),
        });
    }
    for newest in history.files_below(&scope.roots())? {
        if places.contains_key(&newest.path) {
            continue;
        }
        let store = scope.store_holding(&newest.path);
        let display = match store.and_then(|s| s.project.as_ref()) {
            Some(project) => newest
                .path
                .strip_prefix(history::key_of(project))
                .map(|rel| rel.display().to_string())
                .unwrap_or_else(|_| newest.path.display().to_string()),
            None => newest.path.display().to_string(),
        };
        let name = newest
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        places.insert(
            newest.path.clone(),
            Place {
                display,
                store: store.map_or_else(|| "memory".to_string(), |s| s.label.clone()),
                project: store.and_then(|s| s.project.clone()),
                format: store.and_then(|s| s.format),
                role: crate::formats::role_for_name(&name).unwrap_or(Role::Other),
                agent_store: store.is_some_and(|s| s.agent_store),
                allowed_root: None,
                rel: store.and_then(|s| {
                    let rel = newest.path.strip_prefix(history::key_of(&s.root)).ok()?;
                    Some(rel.to_path_buf())
                }),
                path: newest.path.clone(),
            },
        );
    }
    let since = options.since.or_else(|| {
        reviewed
            .marked_at
            .as_deref()
            .and_then(|at| DateTime::parse_from_rfc3339(at).ok())
            .map(|at| at.with_timezone(&Utc))
    });
    let mut keys: Vec<&PathBuf> = places.keys().collect();
    keys.sort();
    let mut survey = Survey::default();
    let mut repos: HashMap<PathBuf, Option<crate::git::GitRepo>> = HashMap::new();
    let home = crate::analysis::imports::HomeRoots::resolve(options.home.as_deref());
    for key in keys {
        let place = &places[key];
        let current = match &place.allowed_root {
            Some(root) => match super::read_if_there(&ProjectFolder::new(root), &place.path) {
                Ok(text) => text,
                Err(e) => {
                    survey
                        .problems
                        .push(format!("{}: {e}", place.path.display()));
                    continue;
                }
            },
            // Not a file of the scope now: only its absence counts.
            None if std::fs::symlink_metadata(key).is_ok() => continue,
            None => None,
        };
        let current_hash = current.as_deref().map(history::content_hash);
        survey.states.push((
            key.clone(),
            current_hash.clone().map_or(Mark::Gone, Mark::Text),
        ));
        let versions = history.list(key)?;
        let baseline = baseline_of(&versions, reviewed.files.get(key), since);
        let Some((baseline_index, baseline_hash)) = baseline else {
            continue;
        };
        if baseline_hash == current_hash {
            continue;
        }
        let baseline_version = baseline_index.map(|i| versions[i].version);
        let baseline_text = match (baseline_version, &baseline_hash) {
            (Some(number), Some(_)) => Some(history.version(key, number)?.1),
            _ => None,
        };
        let after = baseline_index.map_or(0, |i| i + 1);
        let mut writers = Vec::new();
        for v in &versions[after.min(versions.len())..] {
            if !writers.contains(&v.writer) {
                writers.push(v.writer.clone());
            }
        }
        let renamed_from = versions
            .get(after..)
            .and_then(|later| later.iter().find_map(|v| v.renamed.clone()))
            .filter(|_| baseline_text.is_none() && current.is_some());
        let change = match (&baseline_text, &current) {
            (None, Some(_)) if renamed_from.is_some() => ChangeKind::Renamed,
            (None, _) => ChangeKind::Added,
            (Some(_), None) => ChangeKind::Deleted,
            (Some(_), Some(_)) => ChangeKind::Modified,
        };
        let diff = diff_texts(
            baseline_text.as_deref().unwrap_or(""),
            current.as_deref().unwrap_or(""),
        );
        let project = place.project.clone().unwrap_or_else(|| {
            place
                .allowed_root
                .clone()
                .unwrap_or_else(|| key.parent().unwrap_or(key).to_path_buf())
        });
        // Codex memories have no format of their own; their text is plain markdown, read
        // as AGENTS.md is (no imports are followed either way).
        let format = place.format.unwrap_or(Format::AgentsMd);
        let context = crate::review::signals::ChangeContext {
            project: &project,
            path: key,
            display: &place.display,
            format,
            role: place.role,
            baseline: baseline_text.as_deref(),
            current: current.as_deref(),
            diff: &diff,
            home: &home,
        };
        let mut signals = crate::review::signals::content_signals(&context);
        if !place.agent_store
            && current.is_some()
            && let Some(project) = &place.project
        {
            let repo = repos
                .entry(project.clone())
                .or_insert_with(|| crate::git::GitRepo::discover(project));
            if let Some(repo) = repo {
                signals.extend(crate::review::signals::claim_signals(&context, repo));
            }
        }
        signals.sort_by_key(|signal| std::cmp::Reverse(signal.severity));
        // A user-level file of the home folder loads whole, before any project's files: no
        // project's combined limit cuts it.
        let user_level = place.project.is_none() && place.format.is_some();
        let past_cut = current.as_deref().filter(|_| !user_level).and_then(|now| {
            past_cut_of(
                place.format,
                place.rel.as_deref(),
                &place.display,
                baseline_text.as_deref().unwrap_or(""),
                now,
            )
        });
        survey.changes.push(FileChange {
            path: key.clone(),
            display: place.display.clone(),
            store: place.store.clone(),
            project: place.project.clone(),
            change,
            renamed_from,
            baseline_version,
            newest_version: versions.last().map(|v| v.version),
            writers,
            added: diff.added,
            removed: diff.removed,
            signals,
            past_cut,
            baseline_text,
            current_text: current,
            diff,
        });
    }
    Ok(survey)
}

/// The baseline of a file with `versions` (oldest first): the index of the version
/// holding it (`None`: not in the history) and its text's hash (`None`: the file did not
/// exist). `None` when there is nothing to compare with.
#[allow(clippy::type_complexity)]
fn baseline_of(
    versions: &[Version],
    mark: Option<&Mark>,
    since: Option<DateTime<Utc>>,
) -> Option<(Option<usize>, Option<String>)> {
    match mark {
        Some(Mark::Gone) => return Some((None, None)),
        Some(Mark::Text(hash)) => {
            if let Some(i) = versions
                .iter()
                .rposition(|v| &v.hash == hash && !v.is_deletion())
            {
                return Some((Some(i), Some(hash.clone())));
            }
        }
        None => {}
    }
    if let Some(since) = since {
        return Some(state_at(versions, since));
    }
    let first = versions.first()?;
    Some(if first.is_deletion() {
        (None, None)
    } else {
        (Some(0), Some(first.hash.clone()))
    })
}

/// The file's state at `at`: the text a write replaced after it (it stood until then),
/// else the last version found at or before it; nothing known: it did not exist.
fn state_at(versions: &[Version], at: DateTime<Utc>) -> (Option<usize>, Option<String>) {
    let time = |v: &Version| {
        DateTime::parse_from_rfc3339(&v.at)
            .ok()
            .map(|t| t.with_timezone(&Utc))
    };
    let first_after = versions.iter().position(|v| time(v).is_none_or(|t| t > at));
    if let Some(i) = first_after
        && versions[i].seen.is_none()
    {
        return (Some(i), Some(versions[i].hash.clone()));
    }
    let last_before = match first_after {
        Some(0) => None,
        Some(i) => Some(i - 1),
        None => versions.len().checked_sub(1),
    };
    match last_before {
        Some(i) if !versions[i].is_deletion() => (Some(i), Some(versions[i].hash.clone())),
        _ => (None, None),
    }
}

/// Marks every file of `survey` reviewed as it is now.
pub fn mark_reviewed(survey: &Survey, reviewed: &mut Reviewed, now: DateTime<Utc>) {
    for (key, mark) in &survey.states {
        reviewed.files.insert(key.clone(), mark.clone());
    }
    reviewed.marked_at = Some(super::reviewed::stamp(now));
}

/// Whether `path` is one of the survey's changed files.
pub fn changed(survey: &Survey, path: &Path) -> bool {
    survey.changes.iter().any(|c| c.path == path)
}

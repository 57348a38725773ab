//! New entries written below an agent's cut: the newest memories are then the ones the
//! agent never reads. Judged against the file's history when it has one (the lines added
//! since the newest recorded version whose text differs from the file now), else by the
//! dates written in it (the newest dated entries sit past the cut, none above it is as new).
//! `analysis::context` turns these into `mbank check`'s findings over a session's cuts.
use std::path::Path;

use chrono::NaiveDate;

use super::Cut;
use crate::history::{self, History};
use crate::markup::dates;
use crate::review::diff::{LineKind, diff_texts};

/// Why the entries past a cut are new.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NewPastCut {
    /// These lines (1-based, in the file now, not blank) were added since `version` of
    /// the history (recorded `at`) and fall past the cut.
    Since {
        lines: Vec<usize>,
        version: u64,
        at: String,
    },
    /// No earlier version to compare with: the newest date written in the file is past
    /// the cut, at `line`, and newer than every date above it.
    Dated { date: NaiveDate, line: usize },
}

/// The lines of `now` added since `before` that fall past `cut` (blank lines left out).
pub(crate) fn added_past(before: &str, now: &str, cut: &Cut) -> Vec<usize> {
    added_where(before, now, |line| cut.is_past(line))
}

/// The lines of `now` (1-based) added since `before` for which `unread` holds, blank lines
/// left out: a cut that is not a prefix (one that drops a file's middle) asks with its own
/// range.
pub(crate) fn added_where(before: &str, now: &str, unread: impl Fn(usize) -> bool) -> Vec<usize> {
    diff_texts(before, now)
        .hunks
        .iter()
        .flat_map(|hunk| &hunk.lines)
        .filter(|line| line.kind == LineKind::Added && !line.text.trim().is_empty())
        .filter_map(|line| line.new_line)
        .filter(|&line| unread(line))
        .collect()
}

/// The newest date written past `cut` with its line, when it is newer than every date
/// the agent reads above the cut.
pub(crate) fn newest_dated_past(
    text: &str,
    cut: &Cut,
    today: NaiveDate,
) -> Option<(NaiveDate, usize)> {
    let dated = dates::dated_lines(text, today);
    let (below, above): (Vec<_>, Vec<_>) =
        dated.into_iter().partition(|(line, _)| cut.is_past(*line));
    let newest_above = above.iter().map(|(_, d)| *d).max();
    let (line, date) = below
        .into_iter()
        .max_by_key(|(line, date)| (*date, std::cmp::Reverse(*line)))?;
    newest_above
        .is_none_or(|above| date > above)
        .then_some((date, line))
}

/// Whether new entries of `text` (the file at `file` now) are past `cut`, judged by the
/// history when it holds an earlier text of the file, else by its dates.
pub(crate) fn written_past(
    file: &Path,
    text: &str,
    cut: &Cut,
    history: Option<&History>,
    today: NaiveDate,
) -> Option<NewPastCut> {
    if let Some(history) = history
        && let Some((version, at, before)) = earlier_text(history, file, text)
    {
        let lines = added_past(&before, text, cut);
        return (!lines.is_empty()).then_some(NewPastCut::Since { lines, version, at });
    }
    newest_dated_past(text, cut, today).map(|(date, line)| NewPastCut::Dated { date, line })
}

/// The newest version in the history whose text differs from `now`: its number, when it
/// was recorded and its text.
fn earlier_text(history: &History, file: &Path, now: &str) -> Option<(u64, String, String)> {
    let hash = history::content_hash(now);
    let versions = history.list(file).ok()?;
    let version = versions
        .iter()
        .rev()
        .find(|v| !v.is_deletion() && v.hash != hash)?;
    let (_, text) = history.version(file, version.version).ok()?;
    Some((version.version, version.at.clone(), text))
}

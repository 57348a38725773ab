//! Change detection: the memory paths that differ from the baseline, renames paired by
//! content, each change built into a [`FileReview`] (diffs, content signals, token
//! figures), signals pointed at their hunks, and the totals per bank.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::budget::measure_of;
use super::ledger;
use super::listing::{FilePlace, ProjectListing};
use super::session::{Texts, UnreadableChange, rel_string};
use super::{
    BankTotals, ChangeKind, FileDiff, FileReview, Review, ReviewSession, Signal, Store, diff_texts,
    signals,
};
use crate::analysis::imports::HomeRoots;
use crate::error::Result;
use crate::guard::refusals::{self, RefusalRecord};

/// A changed path as found: where it sits and its texts (or why they cannot be read).
type Found = (
    PathBuf,
    FilePlace,
    std::result::Result<Texts, UnreadableChange>,
);

/// The refused writes logged at or after `since` (seconds since the epoch; all of them
/// without a baseline time). A record whose time does not parse is kept: hiding a refusal
/// would be the wrong way to fail.
fn refused_since(records: Vec<RefusalRecord>, since: Option<u64>) -> Vec<RefusalRecord> {
    let Some(since) = since else {
        return records;
    };
    records
        .into_iter()
        .filter(|r| {
            chrono::DateTime::parse_from_rfc3339(&r.at)
                .map_or(true, |at| at.timestamp() >= since as i64)
        })
        .collect()
}

impl ReviewSession {
    fn candidates(&self, listing: &ProjectListing) -> Result<Vec<PathBuf>> {
        let mut paths: Vec<PathBuf> = match &self.store {
            Store::Git(git) => {
                let listed: Vec<PathBuf> = listing.places.keys().cloned().collect();
                git.changed_paths(&listed, |p| listing.place(p).is_some())?
            }
            Store::Snapshot(snapshot) => {
                let mut all: Vec<PathBuf> = snapshot
                    .paths()
                    .iter()
                    .map(|rel| self.project.path.join(rel))
                    .collect();
                all.extend(listing.places.keys().cloned());
                all
            }
        };
        paths.retain(|p| listing.place(p).is_some());
        paths.sort();
        paths.dedup();
        Ok(paths)
    }

    /// Every changed memory file of the project, with diffs, signals and totals.
    pub fn review(&self) -> Result<Review> {
        if let Store::Snapshot(snapshot) = &self.store {
            if let Some(error) = snapshot.broken() {
                return Err(error);
            }
            if snapshot.exists() {
                // Best effort: snapshots taken before the ledger existed get recorded here.
                let _ = ledger::record(snapshot.folder(), &self.project.path);
            } else if ledger::was_recorded(snapshot.folder()) {
                return Err(ledger::lost(snapshot.folder()));
            }
        }
        let listing = ProjectListing::new(&self.project);
        let mut problems: Vec<String> = listing
            .banks
            .iter()
            .flat_map(|b| b.problems.iter().map(ToString::to_string))
            .collect();
        let mut raw = Vec::new();
        for path in self.candidates(&listing)? {
            let Some(place) = listing.place(&path) else {
                continue;
            };
            match self.texts(&path) {
                Ok(texts) => {
                    if texts.baseline == texts.current && texts.accepted == texts.current {
                        continue;
                    }
                    raw.push((path, place, Ok(texts)));
                }
                Err(e) => raw.push((path, place, Err(e))),
            }
        }
        let mut files = self.pair_and_build(raw);
        self.add_budget_signals(&listing, &mut files, &mut problems);
        for file in &mut files {
            attach_signals_to_hunks(file);
        }
        let banks = bank_totals(&listing, &files);
        let baseline = self.baseline()?;
        let logged = match &self.options.data_dir {
            Some(data_dir) => refusals::read_in(data_dir, &self.project.path),
            None => refusals::read(&self.project.path),
        };
        let refused = match logged {
            Ok(records) => refused_since(records, baseline.time()),
            Err(e) => {
                problems.push(format!("the log of refused writes cannot be read: {e}"));
                Vec::new()
            }
        };
        Ok(Review {
            project: self.project.path.clone(),
            baseline,
            encoding: self.options.encoding,
            files,
            banks,
            refused,
            problems,
        })
    }

    /// Re-diffs one file (after the watcher reported a change). `None` when the file no
    /// longer differs from the baseline, or is not a memory file. Budget signals are
    /// left to the next full [`review`](Self::review).
    pub fn refresh_file(&self, path: &Path) -> Result<Option<FileReview>> {
        let listing = ProjectListing::new(&self.project);
        let Some(place) = listing.place(path) else {
            return Ok(None);
        };
        let texts = self.texts(path).map_err(|e| e.error)?;
        if texts.baseline == texts.current && texts.accepted == texts.current {
            return Ok(None);
        }
        let home = self.home();
        let mut file = self.build(path.to_path_buf(), None, place, texts, &home);
        attach_signals_to_hunks(&mut file);
        Ok(Some(file))
    }

    /// Pairs deleted and added files with similar content into renames, then builds each.
    fn pair_and_build(&self, raw: Vec<Found>) -> Vec<FileReview> {
        let mut deleted: Vec<usize> = Vec::new();
        let mut added: Vec<usize> = Vec::new();
        for (i, (_, _, texts)) in raw.iter().enumerate() {
            if let Ok(t) = texts {
                match (&t.baseline, &t.current) {
                    (Some(_), None) => deleted.push(i),
                    (None, Some(_)) => added.push(i),
                    _ => {}
                }
            }
        }
        let mut renamed: HashMap<usize, usize> = HashMap::new(); // added → deleted
        let mut used: HashSet<usize> = HashSet::new();
        for &a in &added {
            let Ok(new) = &raw[a].2 else { continue };
            let new_text = new.current.as_deref().unwrap_or("");
            let best = deleted
                .iter()
                .filter(|d| !used.contains(*d) && raw[**d].1.bank == raw[a].1.bank)
                .filter_map(|&d| {
                    let Ok(old) = &raw[d].2 else { return None };
                    let old_text = old.baseline.as_deref().unwrap_or("");
                    if old_text.len().max(new_text.len()) > 2 * 1024 * 1024 {
                        return None;
                    }
                    let ratio = similar::TextDiff::from_lines(old_text, new_text).ratio();
                    (ratio >= 0.5).then_some((d, ratio))
                })
                .max_by(|x, y| x.1.total_cmp(&y.1));
            if let Some((d, _)) = best {
                used.insert(d);
                renamed.insert(a, d);
            }
        }
        let mut slots: Vec<Option<Found>> = raw.into_iter().map(Some).collect();
        let mut files = Vec::new();
        let home = self.home();
        for i in 0..slots.len() {
            if used.contains(&i) {
                continue;
            }
            let Some((path, place, texts)) = slots[i].take() else {
                continue;
            };
            match texts {
                Err(unreadable) => files.push(self.unreadable(path, place, unreadable)),
                Ok(mut texts) => {
                    let from = match renamed.get(&i).and_then(|&d| slots[d].take()) {
                        Some((old_path, _, Ok(old))) => {
                            texts.baseline = old.baseline;
                            if texts.accepted.is_none() {
                                texts.accepted = old.accepted;
                            }
                            Some(old_path)
                        }
                        _ => None,
                    };
                    files.push(self.build(path, from, place, texts, &home));
                }
            }
        }
        files.sort_by(|a, b| a.display.cmp(&b.display));
        files
    }

    /// A changed file that cannot be diffed: an error signal says why, so the review
    /// fails instead of passing over a file it never scanned.
    fn unreadable(
        &self,
        path: PathBuf,
        place: FilePlace,
        unreadable: UnreadableChange,
    ) -> FileReview {
        let error = unreadable.error.to_string();
        FileReview {
            display: rel_string(&self.project.path, &path),
            path,
            change: ChangeKind::Modified,
            renamed_from: None,
            renamed_from_display: None,
            format: place.format,
            role: place.role,
            baseline: None,
            accepted: None,
            current: None,
            diff: FileDiff::default(),
            added: 0,
            removed: 0,
            accepted_added: 0,
            accepted_removed: 0,
            tokens_before: 0,
            tokens_after: 0,
            signals: vec![Signal::error(
                unreadable.code,
                format!("not reviewed: {error}"),
            )],
            error: Some(error),
        }
    }

    /// The home folder for `~/` imports (the environment's unless the options name one),
    /// its memory folders resolved once for every file built.
    fn home(&self) -> HomeRoots {
        let home = self
            .options
            .home
            .clone()
            .or_else(crate::io::paths::home_dir);
        HomeRoots::resolve(home.as_deref())
    }

    fn build(
        &self,
        path: PathBuf,
        renamed_from: Option<PathBuf>,
        place: FilePlace,
        texts: Texts,
        home: &HomeRoots,
    ) -> FileReview {
        let Texts {
            baseline,
            accepted,
            current,
        } = texts;
        let change = match (&renamed_from, &baseline, &current) {
            (Some(_), _, _) => ChangeKind::Renamed,
            (None, None, _) => ChangeKind::Added,
            (None, Some(_), None) => ChangeKind::Deleted,
            (None, Some(_), Some(_)) => ChangeKind::Modified,
        };
        let old = baseline.as_deref().unwrap_or("");
        let new = current.as_deref().unwrap_or("");
        let pending = diff_texts(accepted.as_deref().unwrap_or(""), new);
        let full = if accepted == baseline {
            pending.clone()
        } else {
            diff_texts(old, new)
        };
        let staged = if accepted == baseline {
            FileDiff::default()
        } else {
            diff_texts(old, accepted.as_deref().unwrap_or(""))
        };
        let display = rel_string(&self.project.path, &path);
        let context = signals::ChangeContext {
            project: &self.project.path,
            path: &path,
            display: &display,
            format: place.format,
            role: place.role,
            baseline: baseline.as_deref(),
            current: current.as_deref(),
            diff: &full,
            home,
        };
        let mut found = signals::content_signals(&context);
        if let Store::Git(git) = &self.store {
            found.extend(signals::claim_signals(&context, &git.repo));
        }
        found.sort_by(|a, b| {
            b.severity
                .cmp(&a.severity)
                .then(a.new_line.cmp(&b.new_line))
                .then(a.old_line.cmp(&b.old_line))
        });
        let encoding = self.options.encoding;
        FileReview {
            renamed_from_display: renamed_from
                .as_deref()
                .map(|p| rel_string(&self.project.path, p)),
            renamed_from,
            display,
            path,
            change,
            format: place.format,
            role: place.role,
            added: full.added,
            removed: full.removed,
            accepted_added: staged.added,
            accepted_removed: staged.removed,
            tokens_before: measure_of(baseline.as_deref(), encoding)
                .tokens
                .unwrap_or(0),
            tokens_after: measure_of(current.as_deref(), encoding).tokens.unwrap_or(0),
            diff: pending,
            baseline,
            accepted,
            current,
            signals: found,
            error: None,
        }
    }
}

/// Points each signal at the pending hunk it comes from: the hunk that adds its line,
/// else the one that removes its baseline line (when nothing was accepted yet), else the
/// hunk whose range holds it. A budget signal goes to the hunk adding the most lines.
fn attach_signals_to_hunks(file: &mut FileReview) {
    let same_old_side = file.accepted == file.baseline;
    let diff = &mut file.diff;
    for (index, signal) in file.signals.iter_mut().enumerate() {
        let by_new = signal.new_line.and_then(|n| diff.hunk_at_new_line(n));
        let by_old = signal
            .old_line
            .filter(|_| same_old_side)
            .and_then(|o| diff.hunk_at_old_line(o));
        let by_range = || {
            diff.hunks.iter().position(|h| {
                signal.new_line.is_some_and(|n| h.new.contains(n))
                    || (same_old_side && signal.old_line.is_some_and(|o| h.old.contains(o)))
            })
        };
        let by_size = || {
            (signal.code == "budget-crossed")
                .then(|| {
                    diff.hunks
                        .iter()
                        .enumerate()
                        .filter(|(_, h)| h.added > 0)
                        .max_by_key(|(_, h)| h.added)
                        .map(|(i, _)| i)
                })
                .flatten()
        };
        let hunk = by_new.or(by_old).or_else(by_range).or_else(by_size);
        signal.hunk = hunk.map(|h| diff.hunks[h].id);
        if let Some(h) = hunk {
            diff.hunks[h].signals.push(index);
        }
    }
}

fn bank_totals(listing: &ProjectListing, files: &[FileReview]) -> Vec<BankTotals> {
    let mut totals: BTreeMap<usize, BankTotals> = BTreeMap::new();
    for file in files {
        let Some(place) = listing.place(&file.path) else {
            continue;
        };
        let bank = &listing.banks[place.bank];
        let entry = totals.entry(place.bank).or_insert_with(|| BankTotals {
            format: bank.format,
            root: bank.root.clone(),
            files: 0,
            added: 0,
            removed: 0,
            tokens_before: 0,
            tokens_after: 0,
        });
        entry.files += 1;
        entry.added += file.added;
        entry.removed += file.removed;
        entry.tokens_before += file.tokens_before;
        entry.tokens_after += file.tokens_after;
    }
    totals.into_values().collect()
}

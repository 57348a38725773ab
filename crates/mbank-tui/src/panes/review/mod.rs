//! The review pane: what agents changed in the open project's memory since the baseline
//! (git HEAD or the "last reviewed" snapshot). A file list grouped by bank with totals,
//! and the selected file's diff, unified or side by side, changed words highlighted,
//! signals above their hunk and file-level signals at the top. Actions name the hunk and
//! line under the cursor and the file as it was shown; the review worker applies them.
//!
//! Below the files: the agent servers' pending proposals (each selectable, its diff shown
//! hunk by hunk; a person marks each hunk taken or left out, or takes or rejects it all,
//! or edits it first, and the agent worker decides it through the core) and the writes
//! they were refused (selectable; expanding one shows its tool, time and whole reason).
mod view;

pub(crate) use view::diff_rows;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};
use unicode_width::UnicodeWidthChar;

use mbank_core::findings::Severity;
use mbank_core::guard::refusals::RefusalRecord;
use mbank_core::markup::sanitize;
use mbank_core::review::{
    Baseline, DiffLine, FileReview, HunkId, LineKind, Review, ReviewAction, Signal,
};

use crate::agent_worker::ProposalView;
use crate::keymap::{Action, KeyContext};
use crate::list::{ListCursor, ListInput};
use crate::pane::{Ask, Confirmed, Effect, Focus, Input, Outcome, Pane, ViewContext, offers};
use crate::protocol::ProposalDecision;
use crate::review_worker::ReviewRequest;
use crate::theme::Theme;
use crate::widgets;

pub(crate) use crate::commands::REVIEW as COMMANDS;

/// One row of the diff, as the cursor moves over it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReviewRow {
    /// Why the file cannot be diffed.
    Problem,
    /// A file-level signal (index into `FileReview::signals`).
    FileSignal(usize),
    /// A hunk's `@@` header.
    Header(usize),
    /// A signal of a hunk: hunk index, signal index.
    HunkSignal(usize, usize),
    /// Unified: hunk index, line index.
    Line(usize, usize),
    /// Side by side: the old line on the left, the new on the right.
    Pair {
        hunk: usize,
        left: Option<usize>,
        right: Option<usize>,
    },
}

impl ReviewRow {
    fn hunk(self) -> Option<usize> {
        match self {
            ReviewRow::Header(h) | ReviewRow::HunkSignal(h, _) | ReviewRow::Line(h, _) => Some(h),
            ReviewRow::Pair { hunk, .. } => Some(hunk),
            ReviewRow::Problem | ReviewRow::FileSignal(_) => None,
        }
    }
}

/// A row of the file list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ListRow {
    /// Nothing changed on disk (0), or a problem of the review (1 and on).
    Note(usize),
    Bank(usize),
    File(usize),
    /// "N proposals staged by the agent servers", then one row each.
    ProposalHeader,
    Proposal(usize),
    /// "N writes refused by the agent servers since the baseline", then one row each.
    RefusedHeader,
    Refused(usize),
}

/// How many refused writes the list names (the newest), as `mbank review` does.
const REFUSED_SHOWN: usize = 10;

/// A proposal or refused write, known again after the list is rebuilt.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum RowKey {
    Proposal(u64),
    /// Time, file and reason.
    Refused(String, String, String),
}

/// Where the cursor was, to find it again after a re-diff.
#[derive(Debug, Clone)]
struct CursorAnchor {
    path: PathBuf,
    position: usize,
    hunk: Option<(HunkId, usize, usize)>,
    row: usize,
}

#[derive(Default)]
pub struct ReviewPane {
    pub review: Option<Box<Review>>,
    /// The project the review is of.
    pub project: Option<PathBuf>,
    pub is_git: bool,
    /// A review was asked for and has not arrived yet.
    pub loading: bool,
    /// An action was sent and its fresh review has not arrived yet.
    pub busy: bool,
    /// Why the review could not be computed.
    pub problem: Option<String>,
    pub side_by_side: bool,
    /// Over the file list's rows (bank headers and files); always on a file row.
    list: ListCursor,
    list_rows: Vec<ListRow>,
    /// Over the selected file's diff rows.
    pub cursor: ListCursor,
    rows: Vec<ReviewRow>,
    area: Rect,
    list_area: Rect,
    diff_area: Rect,
    /// The open project's pending proposals, oldest first.
    pub proposals: Vec<Arc<ProposalView>>,
    /// A person's choice per hunk of a proposal (by id): taken (true) or left out.
    pub marks: HashMap<u64, Vec<Option<bool>>>,
    /// Proposals an accept found in conflict with the file, and why.
    pub conflicts: HashMap<u64, String>,
    /// A decision was sent to the agent worker and not answered yet.
    pub deciding: Option<u64>,
    /// The proposal or refused write shown with its details (one at a time; moving to
    /// another row closes it).
    expanded: Option<RowKey>,
    /// The row each drawn line of the list belongs to, and the first line shown.
    list_lines: Vec<usize>,
    list_scroll: usize,
    /// The clock's time at the frame being drawn (Unix seconds), for "reviewed … ago".
    drawn_at: u64,
}

fn severity_glyph(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "✖",
        Severity::Warning => "▲",
        Severity::Info => "●",
    }
}

fn signed(value: i64) -> String {
    match value {
        0 => "±0".into(),
        v if v > 0 => format!("+{v}"),
        v => format!("−{}", v.unsigned_abs()),
    }
}

/// "since git HEAD 1a2b3c4d", "since last reviewed 2 h ago", …
/// The baseline in words; `now` (Unix seconds) dates the last review.
pub fn baseline_label(baseline: &Baseline, now: u64) -> String {
    match baseline {
        Baseline::Git {
            head: Some(head), ..
        } => {
            format!("since git HEAD {}", head.get(..8).unwrap_or(head))
        }
        Baseline::Git { head: None, .. } => "git, no commit yet: every memory file is new".into(),
        Baseline::Snapshot {
            exists: true,
            reviewed_at,
            ..
        } => match widgets::ago(*reviewed_at, now).as_str() {
            "just now" => "since last reviewed (just now)".into(),
            "—" => "since last reviewed".into(),
            ago => format!("since last reviewed ({ago} ago)"),
        },
        Baseline::Snapshot { exists: false, .. } => {
            "outside git, never marked reviewed: every memory file is new".into()
        }
    }
}

impl ReviewPane {
    /// The file under the cursor.
    pub fn file(&self) -> Option<&FileReview> {
        let review = self.review.as_ref()?;
        match self.list_rows.get(self.list.selected)? {
            ListRow::File(index) => review.files.get(*index),
            ListRow::Proposal(index) => self.proposals.get(*index).map(|p| &p.review),
            _ => None,
        }
    }

    /// The changed file under the cursor (not a proposal).
    fn changed_file(&self) -> Option<&FileReview> {
        match self.list_rows.get(self.list.selected)? {
            ListRow::File(index) => self.review.as_ref()?.files.get(*index),
            _ => None,
        }
    }

    /// The proposal under the cursor.
    pub fn proposal(&self) -> Option<&ProposalView> {
        match self.list_rows.get(self.list.selected)? {
            ListRow::Proposal(index) => self.proposals.get(*index).map(|p| p.as_ref()),
            _ => None,
        }
    }

    /// The refused write under the cursor.
    pub fn refusal(&self) -> Option<&RefusalRecord> {
        match self.list_rows.get(self.list.selected)? {
            ListRow::Refused(index) => self.review.as_ref()?.refused.get(*index),
            _ => None,
        }
    }

    /// Whether the row under the cursor shows its details.
    pub fn is_expanded(&self) -> bool {
        self.selected_key()
            .is_some_and(|key| self.expanded.as_ref() == Some(&key))
    }

    fn row_key(&self, row: ListRow) -> Option<RowKey> {
        match row {
            ListRow::Proposal(i) => Some(RowKey::Proposal(self.proposals.get(i)?.proposal.id)),
            ListRow::Refused(i) => {
                let record = self.review.as_ref()?.refused.get(i)?;
                Some(RowKey::Refused(
                    record.at.clone(),
                    record.file.clone(),
                    record.message.clone(),
                ))
            }
            _ => None,
        }
    }

    fn selected_key(&self) -> Option<RowKey> {
        self.row_key(*self.list_rows.get(self.list.selected)?)
    }

    /// Shows these pending proposals (the open project's), keeping the cursor where it
    /// was when it still can.
    pub(crate) fn set_proposals(&mut self, proposals: Vec<Arc<ProposalView>>) {
        let anchor = self.anchor();
        let key = self.selected_key();
        self.proposals = proposals;
        let ids: HashSet<u64> = self.proposals.iter().map(|p| p.proposal.id).collect();
        self.marks.retain(|id, _| ids.contains(id));
        self.conflicts.retain(|id, _| ids.contains(id));
        self.restore_with(anchor, key);
    }

    /// A proposal was decided: it leaves the list at once (the store's next read agrees).
    pub(crate) fn forget_proposal(&mut self, id: u64) {
        let rest: Vec<Arc<ProposalView>> = self
            .proposals
            .iter()
            .filter(|p| p.proposal.id != id)
            .cloned()
            .collect();
        self.set_proposals(rest);
    }

    /// The rows of the selected file's diff.
    pub fn rows(&self) -> &[ReviewRow] {
        &self.rows
    }

    /// The hunk under the cursor (its index in the selected file's diff).
    pub fn hunk_index(&self) -> Option<usize> {
        self.rows.get(self.cursor.selected).and_then(|r| r.hunk())
    }

    /// A review of `project` will follow: forget one of another project.
    pub fn expect(&mut self, project: &Path) {
        if self.project.as_deref() != Some(project) {
            *self = ReviewPane {
                side_by_side: self.side_by_side,
                ..ReviewPane::default()
            };
            self.project = Some(project.to_path_buf());
        }
        self.loading = true;
    }

    fn anchor(&self) -> Option<CursorAnchor> {
        let file = self.changed_file()?;
        let position = self
            .list_rows
            .iter()
            .take(self.list.selected)
            .filter(|r| matches!(r, ListRow::File(_)))
            .count();
        let hunk = self.hunk_index().and_then(|h| {
            let id = file.diff.hunks.get(h)?.id;
            let start = self.rows.iter().position(|r| r.hunk() == Some(h))?;
            Some((id, h, self.cursor.selected.saturating_sub(start)))
        });
        Some(CursorAnchor {
            path: file.path.clone(),
            position,
            hunk,
            row: self.cursor.selected,
        })
    }

    /// Shows a fresh review, keeping the cursor on the same file and hunk when they
    /// still exist (else the nearest).
    pub(crate) fn set_review(&mut self, review: Box<Review>, is_git: bool) {
        let anchor = self.anchor();
        let key = self.selected_key();
        self.review = Some(review);
        self.is_git = is_git;
        self.loading = false;
        self.busy = false;
        self.problem = None;
        self.restore_with(anchor, key);
    }

    /// One file re-diffed (or gone from the review when `file` is `None`).
    pub(crate) fn set_file(&mut self, path: &Path, file: Option<FileReview>) {
        let anchor = self.anchor();
        let key = self.selected_key();
        let Some(review) = &mut self.review else {
            return;
        };
        let old = review.files.iter().position(|f| f.path == path);
        let delta = |f: &FileReview, sign: i64| {
            (
                sign * f.added as i64,
                sign * f.removed as i64,
                sign * f.tokens_before as i64,
                sign * f.tokens_after as i64,
            )
        };
        let mut changes = Vec::new();
        match (old, file) {
            (Some(index), Some(file)) => {
                changes.push((delta(&review.files[index], -1), 0));
                changes.push((delta(&file, 1), 0));
                review.files[index] = file;
            }
            (Some(index), None) => {
                changes.push((delta(&review.files[index], -1), -1));
                review.files.remove(index);
            }
            (None, Some(file)) => {
                changes.push((delta(&file, 1), 1));
                review.files.push(file);
                review.files.sort_by(|a, b| a.display.cmp(&b.display));
            }
            (None, None) => {}
        }
        // Keep the bank totals in step (the bank whose root holds the path, deepest first).
        if let Some(bank) = review
            .banks
            .iter_mut()
            .filter(|b| path.starts_with(&b.root))
            .max_by_key(|b| b.root.as_os_str().len())
        {
            for ((added, removed, before, after), files) in changes {
                let add = |value: usize, by: i64| (value as i64 + by).max(0) as usize;
                bank.added = add(bank.added, added);
                bank.removed = add(bank.removed, removed);
                bank.tokens_before = (bank.tokens_before as i64 + before).max(0) as u64;
                bank.tokens_after = (bank.tokens_after as i64 + after).max(0) as u64;
                bank.files = add(bank.files, files);
            }
        }
        self.restore_with(anchor, key);
    }

    fn bank_of(review: &Review, file: &FileReview) -> Option<usize> {
        review
            .banks
            .iter()
            .enumerate()
            .filter(|(_, b)| file.path.starts_with(&b.root))
            .max_by_key(|(_, b)| b.root.as_os_str().len())
            .map(|(i, _)| i)
    }

    fn rebuild_list(&mut self) {
        self.list_rows.clear();
        let Some(review) = &self.review else {
            return;
        };
        if review.files.is_empty() && !(self.proposals.is_empty() && review.refused.is_empty()) {
            self.list_rows.push(ListRow::Note(0));
            self.list_rows
                .extend((1..=review.problems.len()).map(ListRow::Note));
        }
        let mut placed = vec![false; review.files.len()];
        for (b, _) in review.banks.iter().enumerate() {
            let files: Vec<usize> = review
                .files
                .iter()
                .enumerate()
                .filter(|(_, f)| Self::bank_of(review, f) == Some(b))
                .map(|(i, _)| i)
                .collect();
            if files.is_empty() {
                continue;
            }
            self.list_rows.push(ListRow::Bank(b));
            for index in files {
                placed[index] = true;
                self.list_rows.push(ListRow::File(index));
            }
        }
        for (index, placed) in placed.into_iter().enumerate() {
            if !placed {
                self.list_rows.push(ListRow::File(index));
            }
        }
        if !self.proposals.is_empty() {
            self.list_rows.push(ListRow::ProposalHeader);
            self.list_rows
                .extend((0..self.proposals.len()).map(ListRow::Proposal));
        }
        // What the agent servers refused (nothing changed on disk): selectable, to read.
        if !review.refused.is_empty() {
            self.list_rows.push(ListRow::RefusedHeader);
            let hidden = review.refused.len().saturating_sub(REFUSED_SHOWN);
            self.list_rows
                .extend((hidden..review.refused.len()).map(ListRow::Refused));
        }
    }

    fn file_rows(&self) -> Vec<usize> {
        self.list_rows
            .iter()
            .enumerate()
            .filter(|(_, r)| matches!(r, ListRow::File(_)))
            .map(|(i, _)| i)
            .collect()
    }

    /// Rows the cursor stops on: files, proposals, refused writes.
    fn selectable_rows(&self) -> Vec<usize> {
        self.list_rows
            .iter()
            .enumerate()
            .filter(|(_, r)| {
                matches!(
                    r,
                    ListRow::File(_) | ListRow::Proposal(_) | ListRow::Refused(_)
                )
            })
            .map(|(i, _)| i)
            .collect()
    }

    /// Rebuilds the list and puts the cursor back on the proposal or refused write it
    /// was on, else on the same file (or the nearest).
    fn restore_with(&mut self, anchor: Option<CursorAnchor>, key: Option<RowKey>) {
        if let Some(key) = key {
            self.rebuild_list();
            let found = (0..self.list_rows.len())
                .find(|&i| self.row_key(self.list_rows[i]).as_ref() == Some(&key));
            if let Some(row) = found {
                let keep = self.cursor.selected;
                self.list.selected = row;
                self.rebuild_rows();
                self.cursor.selected = keep;
                self.cursor.clamp(self.rows.len());
                return;
            }
        }
        self.restore(anchor);
    }

    fn restore(&mut self, anchor: Option<CursorAnchor>) {
        self.rebuild_list();
        let file_rows = self.file_rows();
        let by_path = anchor.as_ref().and_then(|a| {
            let review = self.review.as_ref()?;
            file_rows.iter().copied().find(|&row| {
                matches!(self.list_rows[row], ListRow::File(i) if review.files[i].path == a.path)
            })
        });
        let same_file = by_path.is_some();
        self.list.selected = by_path
            .or_else(|| {
                let position = anchor.as_ref().map_or(0, |a| a.position);
                file_rows
                    .get(position.min(file_rows.len().saturating_sub(1)))
                    .copied()
            })
            .or_else(|| self.selectable_rows().first().copied())
            .unwrap_or(0);
        self.rebuild_rows();
        self.cursor.selected = match (&anchor, same_file) {
            (Some(anchor), true) => self.find_row(anchor),
            _ => self.first_hunk_row(),
        };
        self.cursor.clamp(self.rows.len());
    }

    fn find_row(&self, anchor: &CursorAnchor) -> usize {
        let Some((id, index, offset)) = anchor.hunk else {
            return anchor.row.min(self.first_hunk_row());
        };
        let Some(file) = self.file() else {
            return 0;
        };
        let hunk = file
            .diff
            .hunks
            .iter()
            .position(|h| h.id == id)
            .map(|h| (h, offset))
            .or_else(|| {
                let last = file.diff.hunks.len().checked_sub(1)?;
                Some((index.min(last), 0))
            });
        let Some((hunk, offset)) = hunk else {
            return 0;
        };
        let start = self.rows.iter().position(|r| r.hunk() == Some(hunk));
        let len = self.rows.iter().filter(|r| r.hunk() == Some(hunk)).count();
        start.map_or(0, |s| s + offset.min(len.saturating_sub(1)))
    }

    fn first_hunk_row(&self) -> usize {
        self.rows
            .iter()
            .position(|r| matches!(r, ReviewRow::Header(_)))
            .unwrap_or(0)
    }

    fn rebuild_rows(&mut self) {
        let rows = match self.file() {
            Some(file) => diff_rows(file, self.side_by_side),
            None => Vec::new(),
        };
        self.rows = rows;
        self.cursor.clamp(self.rows.len());
    }

    fn select_file(&mut self, forward: bool) {
        let file_rows = self.selectable_rows();
        let position = file_rows.iter().position(|&r| r == self.list.selected);
        let next = match (position, forward) {
            (Some(p), true) => file_rows.get(p + 1),
            (Some(p), false) => p.checked_sub(1).and_then(|p| file_rows.get(p)),
            (None, _) => file_rows.first(),
        };
        if let Some(&row) = next {
            self.list.selected = row;
            self.expanded = None;
            self.rebuild_rows();
            self.cursor.selected = self.first_hunk_row();
            self.cursor.offset = 0;
        }
    }

    fn jump_hunk(&mut self, forward: bool) {
        let current = self.hunk_index();
        let headers: Vec<(usize, usize)> = self
            .rows
            .iter()
            .enumerate()
            .filter_map(|(i, r)| match r {
                ReviewRow::Header(h) => Some((i, *h)),
                _ => None,
            })
            .collect();
        let target = if forward {
            headers
                .iter()
                .find(|(row, h)| current.is_none_or(|c| *h > c) && *row > self.cursor.selected)
        } else {
            let on_header = matches!(
                self.rows.get(self.cursor.selected),
                Some(ReviewRow::Header(_))
            );
            // From inside a hunk, go to its header first; from a header, to the previous one.
            headers.iter().rev().find(|(row, h)| {
                *row < self.cursor.selected && (!on_header || current.is_none_or(|c| *h < c))
            })
        };
        if let Some((row, _)) = target {
            self.cursor.selected = *row;
        }
    }

    /// The changed line under the cursor: (hunk index, line index).
    fn line_under_cursor(&self) -> Option<(usize, usize)> {
        let file = self.file()?;
        let changed = |h: usize, l: usize| {
            file.diff
                .hunks
                .get(h)
                .and_then(|hunk| hunk.lines.get(l))
                .is_some_and(|line| line.kind != LineKind::Context)
        };
        match *self.rows.get(self.cursor.selected)? {
            ReviewRow::Line(h, l) if changed(h, l) => Some((h, l)),
            ReviewRow::Pair { hunk, left, right } => right
                .filter(|&l| changed(hunk, l))
                .or(left.filter(|&l| changed(hunk, l)))
                .map(|l| (hunk, l)),
            _ => None,
        }
    }

    /// A click on the file list selects that file (its first hunk).
    fn click_list(&mut self, position: Position) {
        let line = self.list_scroll + (position.y - self.list_area.y) as usize;
        let row = self.list_lines.get(line).copied().unwrap_or(usize::MAX);
        if self.selectable_rows().contains(&row) && row != self.list.selected {
            self.expanded = None;
            self.list.selected = row;
            self.rebuild_rows();
            self.cursor.selected = self.first_hunk_row();
        }
    }

    fn on_action(&mut self, action: Action) -> Option<Effect> {
        let key = self.selected_key();
        let expanded = key.is_some() && self.expanded == key;
        if self.proposal().is_some()
            && matches!(
                action,
                Action::AcceptHunk
                    | Action::RejectHunk
                    | Action::AcceptLine
                    | Action::RejectLine
                    | Action::AcceptFile
                    | Action::RejectFile
                    | Action::Undo
                    | Action::EditProposal
            )
        {
            return self.act_on_proposal(action);
        }
        match action {
            Action::Back => return Some(Effect::Close(Focus::Review)),
            Action::ToggleDetails => match key {
                Some(_) => self.expanded = if expanded { None } else { key },
                None => {
                    return Some(Effect::Toast(
                        "only proposals and refused writes expand".into(),
                    ));
                }
            },
            // → opens a row's details first, ← closes them first.
            Action::NextFile if key.is_some() && !expanded => self.expanded = key,
            Action::PrevFile if expanded => self.expanded = None,
            Action::NextFile => self.select_file(true),
            Action::PrevFile => self.select_file(false),
            Action::EditProposal => {
                return Some(Effect::Toast("move onto a proposal to edit it".into()));
            }
            Action::NextHunk => self.jump_hunk(true),
            Action::PrevHunk => self.jump_hunk(false),
            Action::ToggleSideBySide => {
                let anchor = self.anchor();
                self.side_by_side = !self.side_by_side;
                self.rebuild_rows();
                if let Some(anchor) = anchor {
                    self.cursor.selected = self.find_row(&anchor);
                }
            }
            Action::Undo => return Some(Effect::Review(ReviewRequest::Undo)),
            Action::Commit => return Some(Effect::AskCommit),
            Action::AcceptHunk
            | Action::RejectHunk
            | Action::AcceptLine
            | Action::RejectLine
            | Action::AcceptFile
            | Action::RejectFile => return Some(self.act(action)),
            other => {
                self.cursor.navigate(other, self.rows.len());
            }
        }
        None
    }

    /// A decision on the proposal under the cursor: a hunk taken or left out (once every
    /// hunk has a mark the proposal is decided), all of it taken or rejected, the marks
    /// cleared, or its text opened for editing.
    fn act_on_proposal(&mut self, action: Action) -> Option<Effect> {
        let view = self.proposal()?;
        let id = view.proposal.id;
        if self.deciding.is_some() {
            return Some(Effect::Toast("still deciding the last proposal…".into()));
        }
        let count = view.review.diff.hunks.len();
        let file = view.proposal.file.clone();
        match action {
            Action::AcceptFile => {
                return Some(Effect::Decide(ProposalDecision::Accept { id, hunks: None }));
            }
            Action::RejectFile => {
                return Some(Effect::Ask(Ask::Confirm {
                    title: "Reject the proposal?".into(),
                    body: format!(
                        "Reject proposal {id} to {file}? The file stays as it is; the agent sees the proposal as rejected."
                    ),
                    on_yes: Confirmed::RejectProposal(id),
                }));
            }
            Action::EditProposal => {
                let text = match &view.proposal.proposed {
                    Some(text) => text.clone(),
                    None => {
                        return Some(Effect::Toast(format!(
                            "proposal {id} removes {file}: there is no text to edit"
                        )));
                    }
                };
                return Some(Effect::EditProposal { id, file, text });
            }
            Action::Undo => {
                self.marks.remove(&id);
                return Some(Effect::Toast(format!("proposal {id}: marks cleared")));
            }
            _ => {}
        }
        let Some(hunk) = self.hunk_index() else {
            return Some(Effect::Toast("move the cursor onto a hunk".into()));
        };
        let take = matches!(action, Action::AcceptHunk | Action::AcceptLine);
        let marks = self.marks.entry(id).or_insert_with(|| vec![None; count]);
        marks.resize(count, None);
        marks[hunk] = Some(take);
        if marks.iter().all(Option::is_some) {
            let taken: Vec<usize> = marks
                .iter()
                .enumerate()
                .filter(|(_, m)| **m == Some(true))
                .map(|(i, _)| i + 1)
                .collect();
            return Some(Effect::Decide(if taken.is_empty() {
                ProposalDecision::Reject { id }
            } else if taken.len() == count {
                ProposalDecision::Accept { id, hunks: None }
            } else {
                ProposalDecision::Accept {
                    id,
                    hunks: Some(taken),
                }
            }));
        }
        let left = marks.iter().filter(|m| m.is_none()).count();
        // On to the next hunk still to decide.
        let next = (hunk + 1..count)
            .chain(0..hunk)
            .find(|&h| marks[h].is_none());
        if let Some(next) = next
            && let Some(row) = self.rows.iter().position(|r| *r == ReviewRow::Header(next))
        {
            self.cursor.selected = row;
        }
        Some(Effect::Toast(format!(
            "proposal {id}, hunk {} of {count}: {}; {left} left to decide",
            hunk + 1,
            if take { "taken" } else { "left out" }
        )))
    }

    /// An action on the hunk, line or file under the cursor, as the worker's request.
    fn act(&self, action: Action) -> Effect {
        if self.busy {
            return Effect::Toast("still applying the last action…".into());
        }
        if self.refusal().is_some() {
            return Effect::Toast(
                "a refused write changed nothing on disk: nothing to accept or reject".into(),
            );
        }
        let Some(file) = self.changed_file() else {
            return Effect::Toast("nothing to review".into());
        };
        if let Some(error) = &file.error {
            return Effect::Toast(format!("{} cannot be reviewed here: {error}", file.display));
        }
        let hunk_id = self
            .hunk_index()
            .and_then(|h| file.diff.hunks.get(h))
            .map(|h| h.id);
        let line = self
            .line_under_cursor()
            .and_then(|(h, l)| Some((file.diff.hunks.get(h)?.id, l)));
        let action = match action {
            Action::AcceptFile => ReviewAction::AcceptFile,
            Action::RejectFile => {
                // Ask the worker what would be lost first; a confirm prompt follows.
                return Effect::Review(ReviewRequest::RejectLoss(Box::new(file.clone())));
            }
            Action::AcceptHunk | Action::RejectHunk => {
                let Some(id) = hunk_id else {
                    return Effect::Toast("move the cursor onto a hunk".into());
                };
                if action == Action::AcceptHunk {
                    ReviewAction::AcceptHunk(id)
                } else {
                    ReviewAction::RejectHunk(id)
                }
            }
            _ => {
                let Some((id, line)) = line else {
                    return Effect::Toast("move the cursor onto an added or removed line".into());
                };
                if action == Action::AcceptLine {
                    ReviewAction::AcceptLine(id, line)
                } else {
                    ReviewAction::RejectLine(id, line)
                }
            }
        };
        Effect::Review(ReviewRequest::Act {
            action,
            file: Box::new(file.clone()),
        })
    }
}

impl Pane for ReviewPane {
    fn context(&self) -> KeyContext {
        KeyContext::Review
    }

    fn handle(&mut self, input: Input) -> Outcome {
        if let Input::Click(position) = input
            && self.list_area.contains(position)
        {
            self.click_list(position);
            return Outcome::done();
        }
        // Everything else moves through the diff's rows.
        let diff_area = self.diff_area;
        let row_at = |position: Position| {
            diff_area
                .contains(position)
                .then(|| (position.y - diff_area.y) as usize)
        };
        match self.cursor.apply(input, self.rows.len(), row_at, None) {
            ListInput::Key(key) => match key.action {
                Some(action) if offers(COMMANDS, action) => Outcome::maybe(self.on_action(action)),
                _ => Outcome::Ignored,
            },
            ListInput::Selected { .. } | ListInput::Missed | ListInput::Scrolled => Outcome::done(),
            ListInput::Filtered | ListInput::Ignored => Outcome::Ignored,
        }
    }

    fn view(&mut self, frame: &mut Frame, area: Rect, cx: &ViewContext) {
        self.drawn_at = cx.clock.epoch_seconds();
        self.draw(frame, area, cx.theme, cx.focused);
    }

    fn area(&self) -> Rect {
        self.area
    }
}

#[cfg(test)]
mod tests;

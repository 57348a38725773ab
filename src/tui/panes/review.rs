//! The review pane: what agents changed in the open project's memory since the baseline
//! (git HEAD or the "last reviewed" snapshot). A file list grouped by bank with totals,
//! and the selected file's diff, unified or side by side, changed words highlighted,
//! signals above their hunk and file-level signals at the top. Actions name the hunk and
//! line under the cursor and the file as it was shown; the review worker applies them.
use std::path::{Path, PathBuf};

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};
use unicode_width::UnicodeWidthChar;

use crate::core::findings::Severity;
use crate::core::refusals::RefusalRecord;
use crate::core::review::{
    Baseline, DiffLine, FileReview, HunkId, LineKind, Review, ReviewAction, Signal,
};
use crate::core::sanitize;

use crate::tui::keymap::{Action, KeyContext};
use crate::tui::list::ListCursor;
use crate::tui::pane::{
    Command, Effect, Focus, Input, Outcome, Pane, ViewContext, hint, offers, quiet,
};
use crate::tui::review_worker::ReviewRequest;
use crate::tui::theme::Theme;
use crate::tui::widgets;

/// The review's keys.
pub const COMMANDS: &[Command] = &[
    quiet(Action::Up),
    quiet(Action::Down),
    quiet(Action::PageUp),
    quiet(Action::PageDown),
    quiet(Action::Top),
    quiet(Action::Bottom),
    hint(Action::Back),
    hint(Action::AcceptHunk),
    hint(Action::RejectHunk),
    hint(Action::NextHunk),
    quiet(Action::PrevHunk),
    hint(Action::NextFile),
    quiet(Action::PrevFile),
    hint(Action::Undo),
    hint(Action::AcceptLine),
    hint(Action::RejectLine),
    hint(Action::AcceptFile),
    hint(Action::RejectFile),
    hint(Action::ToggleSideBySide),
    hint(Action::Commit),
];

/// One row of the diff, as the cursor moves over it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Row {
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

impl Row {
    fn hunk(self) -> Option<usize> {
        match self {
            Row::Header(h) | Row::HunkSignal(h, _) | Row::Line(h, _) => Some(h),
            Row::Pair { hunk, .. } => Some(hunk),
            Row::Problem | Row::FileSignal(_) => None,
        }
    }
}

/// A row of the file list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ListRow {
    Bank(usize),
    File(usize),
    /// "N writes refused by the agent servers since the baseline", then one row each.
    RefusedHeader,
    Refused(usize),
}

/// How many refused writes the list names (the newest), as `mbank review` does.
const REFUSED_SHOWN: usize = 10;

/// Where the cursor was, to find it again after a re-diff.
#[derive(Debug, Clone)]
struct Anchor {
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
    rows: Vec<Row>,
    area: Rect,
    list_area: Rect,
    diff_area: Rect,
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
pub fn baseline_label(baseline: &Baseline) -> String {
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
        } => match widgets::ago(*reviewed_at, widgets::now_epoch()).as_str() {
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
            ListRow::Bank(_) | ListRow::RefusedHeader | ListRow::Refused(_) => None,
        }
    }

    /// The rows of the selected file's diff.
    pub fn rows(&self) -> &[Row] {
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

    fn anchor(&self) -> Option<Anchor> {
        let file = self.file()?;
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
        Some(Anchor {
            path: file.path.clone(),
            position,
            hunk,
            row: self.cursor.selected,
        })
    }

    /// Shows a fresh review, keeping the cursor on the same file and hunk when they
    /// still exist (else the nearest).
    pub fn set_review(&mut self, review: Box<Review>, is_git: bool) {
        let anchor = self.anchor();
        self.review = Some(review);
        self.is_git = is_git;
        self.loading = false;
        self.busy = false;
        self.problem = None;
        self.restore(anchor);
    }

    /// One file re-diffed (or gone from the review when `file` is `None`).
    pub fn set_file(&mut self, path: &Path, file: Option<FileReview>) {
        let anchor = self.anchor();
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
        self.restore(anchor);
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
        // What the agent servers refused: listed, never selected (nothing changed on disk).
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

    fn restore(&mut self, anchor: Option<Anchor>) {
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
            .unwrap_or(0);
        self.rebuild_rows();
        self.cursor.selected = match (&anchor, same_file) {
            (Some(anchor), true) => self.find_row(anchor),
            _ => self.first_hunk_row(),
        };
        self.cursor.clamp(self.rows.len());
    }

    fn find_row(&self, anchor: &Anchor) -> usize {
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
            .position(|r| matches!(r, Row::Header(_)))
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
        let file_rows = self.file_rows();
        let position = file_rows.iter().position(|&r| r == self.list.selected);
        let next = match (position, forward) {
            (Some(p), true) => file_rows.get(p + 1),
            (Some(p), false) => p.checked_sub(1).and_then(|p| file_rows.get(p)),
            (None, _) => file_rows.first(),
        };
        if let Some(&row) = next {
            self.list.selected = row;
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
                Row::Header(h) => Some((i, *h)),
                _ => None,
            })
            .collect();
        let target = if forward {
            headers
                .iter()
                .find(|(row, h)| current.is_none_or(|c| *h > c) && *row > self.cursor.selected)
        } else {
            let on_header = matches!(self.rows.get(self.cursor.selected), Some(Row::Header(_)));
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
            Row::Line(h, l) if changed(h, l) => Some((h, l)),
            Row::Pair { hunk, left, right } => right
                .filter(|&l| changed(hunk, l))
                .or(left.filter(|&l| changed(hunk, l)))
                .map(|l| (hunk, l)),
            _ => None,
        }
    }

    fn click(&mut self, position: Position) {
        if self.list_area.contains(position) {
            let row = self.list.offset + (position.y - self.list_area.y) as usize;
            if matches!(self.list_rows.get(row), Some(ListRow::File(_))) {
                self.list.selected = row;
                self.rebuild_rows();
                self.cursor.selected = self.first_hunk_row();
            }
        } else if self.diff_area.contains(position) {
            let row = self.cursor.offset + (position.y - self.diff_area.y) as usize;
            if row < self.rows.len() {
                self.cursor.selected = row;
            }
        }
    }

    fn on_action(&mut self, action: Action) -> Option<Effect> {
        match action {
            Action::Back => return Some(Effect::Close(Focus::Review)),
            Action::NextFile => self.select_file(true),
            Action::PrevFile => self.select_file(false),
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

    /// An action on the hunk, line or file under the cursor, as the worker's request.
    fn act(&self, action: Action) -> Effect {
        if self.busy {
            return Effect::Toast("still applying the last action…".into());
        }
        let Some(file) = self.file() else {
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

    fn draw(&mut self, frame: &mut Frame, area: Rect, theme: &Theme, focused: bool) {
        self.area = area;
        let mut title = vec![Span::styled(" Review ", theme.title())];
        if let Some(review) = &self.review {
            title.push(Span::styled(
                format!("· {} ", baseline_label(&review.baseline)),
                theme.fg(theme.accent),
            ));
            let added: usize = review.files.iter().map(|f| f.added).sum();
            let removed: usize = review.files.iter().map(|f| f.removed).sum();
            title.push(Span::styled(
                format!(
                    "· {} ",
                    crate::core::text::counted(review.files.len(), "file")
                ),
                theme.fg(theme.text),
            ));
            title.push(Span::styled(format!("+{added} "), theme.fg(theme.added)));
            title.push(Span::styled(
                format!("−{removed} "),
                theme.fg(theme.removed),
            ));
        }
        if self.side_by_side {
            title.push(Span::styled("· side by side ", theme.muted()));
        }
        if self.loading || self.busy {
            title.push(Span::styled("· working… ", theme.muted()));
        }
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border(focused))
            .title(Line::from(title));
        let inner = block.inner(area);
        frame.render_widget(block, area);
        if let Some(problem) = &self.problem {
            frame.render_widget(
                Paragraph::new(Span::styled(
                    format!(" cannot review: {problem}"),
                    theme.fg(theme.error),
                ))
                .wrap(Wrap { trim: false }),
                inner,
            );
            return;
        }
        let Some(review) = &self.review else {
            frame.render_widget(
                Paragraph::new(Span::styled(" computing the review…", theme.muted())),
                inner,
            );
            return;
        };
        if review.files.is_empty() {
            let mut lines = vec![Line::from(Span::styled(
                format!(
                    " ✔ Nothing to review: no memory file changed {}.",
                    baseline_label(&review.baseline)
                ),
                theme.fg(theme.ok),
            ))];
            for problem in &review.problems {
                lines.push(Line::from(Span::styled(
                    format!(" ▲ {problem}"),
                    theme.fg(theme.warning),
                )));
            }
            if !review.refused.is_empty() {
                lines.push(Line::from(""));
                lines.push(refused_header(review, theme));
                let hidden = review.refused.len().saturating_sub(REFUSED_SHOWN);
                for record in &review.refused[hidden..] {
                    lines.push(refused_line(record, theme));
                }
            }
            frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
            return;
        }
        let list_height = (self.list_rows.len() as u16).min(inner.height / 3).max(2);
        let [list_area, rule, diff_area] = Layout::vertical([
            Constraint::Length(list_height),
            Constraint::Length(1),
            Constraint::Min(1),
        ])
        .areas(inner);
        self.list_area = list_area;
        self.diff_area = diff_area;
        self.view_list(frame, list_area, theme, focused);
        let name = self
            .file()
            .map(|f| match &f.renamed_from_display {
                Some(from) => format!(
                    " {} → {} ",
                    widgets::shown(from),
                    widgets::shown(&f.display)
                ),
                None => format!(" {} ", widgets::shown(&f.display)),
            })
            .unwrap_or_default();
        let fill = (rule.width as usize).saturating_sub(name.chars().count() + 2);
        frame.render_widget(
            Paragraph::new(Line::from(vec![
                Span::styled("──", theme.border(false)),
                Span::styled(name, theme.title()),
                Span::styled("─".repeat(fill), theme.border(false)),
            ])),
            rule,
        );
        self.view_diff(frame, diff_area, theme, focused);
    }

    fn view_list(&mut self, frame: &mut Frame, area: Rect, theme: &Theme, focused: bool) {
        let Some(review) = &self.review else {
            return;
        };
        let range = self.list.layout(area.height as usize, self.list_rows.len());
        let width = area.width as usize;
        // Under its bank's row, a file is named from the bank's folder.
        let in_bank = |file: &crate::core::review::FileReview| -> String {
            review
                .banks
                .iter()
                .filter_map(|b| file.path.strip_prefix(&b.root).ok())
                .min_by_key(|rel| rel.as_os_str().len())
                .map(widgets::shown_path)
                .filter(|rel| !rel.is_empty())
                .unwrap_or_else(|| file.display.clone())
        };
        // Names take what the figures and the badge leave, no more than the longest needs.
        let longest = review
            .files
            .iter()
            .map(|f| {
                in_bank(f).chars().count()
                    + f.renamed_from_display
                        .as_ref()
                        .map_or(0, |from| from.chars().count() + 3)
            })
            .max()
            .unwrap_or(0);
        // Narrow (beside the tree at 80 columns), the name keeps two fifths of the width
        // and the badge at the end may be cut; `z` (zoom) gives the list the whole width.
        let name_width = longest
            .min(width.saturating_sub(48).max(width * 2 / 5))
            .max(8);
        let mut lines = Vec::new();
        for (index, row) in self
            .list_rows
            .iter()
            .enumerate()
            .skip(range.start)
            .take(range.len())
        {
            match *row {
                ListRow::Bank(b) => {
                    let bank = &review.banks[b];
                    let root = bank
                        .root
                        .strip_prefix(&review.project)
                        .map(widgets::shown_path)
                        .unwrap_or_else(|_| widgets::shown_path(&bank.root));
                    let root = if root.is_empty() { ".".into() } else { root };
                    let delta = bank.tokens_after as i64 - bank.tokens_before as i64;
                    lines.push(Line::from(vec![
                        Span::styled(
                            format!("▾ {} ", bank.format.id()),
                            theme.fg(theme.accent).add_modifier(Modifier::BOLD),
                        ),
                        Span::styled(format!("{root}  "), theme.fg(theme.text)),
                        Span::styled(
                            format!(
                                "{} file{}  ",
                                bank.files,
                                if bank.files == 1 { "" } else { "s" }
                            ),
                            theme.muted(),
                        ),
                        Span::styled(format!("+{} ", bank.added), theme.fg(theme.added)),
                        Span::styled(format!("−{}  ", bank.removed), theme.fg(theme.removed)),
                        Span::styled(format!("{} tok", signed(delta)), theme.fg(theme.changed)),
                    ]));
                }
                ListRow::RefusedHeader => lines.push(refused_header(review, theme)),
                ListRow::Refused(r) => lines.push(refused_line(&review.refused[r], theme)),
                ListRow::File(f) => {
                    let file = &review.files[f];
                    let selected = index == self.list.selected;
                    let letter_style = match file.change.letter() {
                        'A' => theme.fg(theme.added),
                        'D' => theme.fg(theme.removed),
                        _ => theme.fg(theme.changed),
                    };
                    let name = match &file.renamed_from_display {
                        Some(from) => format!("{from} → {}", in_bank(file)),
                        None => in_bank(file),
                    };
                    let mut spans = vec![
                        Span::styled(if selected { "▶ " } else { "  " }, theme.fg(theme.accent)),
                        Span::styled(format!("{} ", file.change.letter()), letter_style),
                        Span::styled(
                            format!(
                                "{:<w$} ",
                                widgets::truncate_start(&name, name_width),
                                w = name_width
                            ),
                            theme.fg(theme.text),
                        ),
                        Span::styled(
                            format!("{:>5} ", format!("+{}", file.added)),
                            theme.fg(theme.added),
                        ),
                        Span::styled(
                            format!("{:<5} ", format!("−{}", file.removed)),
                            theme.fg(theme.removed),
                        ),
                        Span::styled(
                            format!("{:>7} tok ", signed(file.token_delta())),
                            theme.fg(theme.changed),
                        ),
                    ];
                    if let Some(worst) = file.worst_signal() {
                        let count = file.signals.iter().filter(|s| s.severity == worst).count();
                        spans.push(Span::styled(
                            format!("{} {count} {}", severity_glyph(worst), severity_word(worst)),
                            widgets::severity_color(theme, worst),
                        ));
                    } else if file.error.is_some() {
                        spans.push(Span::styled("✖ unreadable", theme.fg(theme.error)));
                    } else if file.fully_accepted() {
                        spans.push(Span::styled("✔ accepted", theme.fg(theme.ok)));
                    }
                    let mut line = Line::from(spans);
                    if selected && focused {
                        line = line.patch_style(theme.selected());
                    }
                    lines.push(line);
                }
            }
        }
        frame.render_widget(Paragraph::new(lines), area);
    }

    fn view_diff(&mut self, frame: &mut Frame, area: Rect, theme: &Theme, focused: bool) {
        // Lay out first: the file is borrowed, never cloned (it holds three whole texts).
        let range = self.cursor.layout(area.height as usize, self.rows.len());
        let cursor = self.cursor.selected;
        let Some(file) = self.file() else {
            return;
        };
        if self.rows.is_empty() {
            let text = if file.fully_accepted() {
                " ✔ every change in this file is accepted"
            } else {
                " (no lines to show)"
            };
            frame.render_widget(Paragraph::new(Span::styled(text, theme.fg(theme.ok))), area);
            return;
        }
        let width = area.width as usize;
        let mut lines = Vec::new();
        for index in range {
            let selected = index == cursor;
            let marker = Span::styled(
                if selected { "▶" } else { " " },
                if selected && focused {
                    theme.selected()
                } else {
                    theme.fg(theme.accent)
                },
            );
            let mut spans = vec![marker];
            match self.rows[index] {
                Row::Problem => spans.push(Span::styled(
                    format!(
                        " cannot diff: {}",
                        file.error.as_deref().unwrap_or("unknown problem")
                    ),
                    theme.fg(theme.error),
                )),
                Row::FileSignal(s) => spans.extend(signal_spans(&file.signals[s], theme, width)),
                Row::HunkSignal(_, s) => {
                    spans.push(Span::raw("  "));
                    spans.extend(signal_spans(&file.signals[s], theme, width - 2));
                }
                Row::Header(h) => {
                    let hunk = &file.diff.hunks[h];
                    let style = theme.fg(theme.accent).add_modifier(Modifier::BOLD);
                    spans.push(Span::styled(format!(" {}", hunk.header()), style));
                    spans.push(Span::styled(
                        format!("  +{}", hunk.added),
                        theme.fg(theme.added),
                    ));
                    spans.push(Span::styled(
                        format!(" −{}", hunk.removed),
                        theme.fg(theme.removed),
                    ));
                    spans.push(Span::styled(
                        format!("  hunk {} of {}", h + 1, file.diff.hunks.len()),
                        theme.muted(),
                    ));
                }
                Row::Line(h, l) => {
                    let line = &file.diff.hunks[h].lines[l];
                    spans.extend(unified_line(line, theme, width.saturating_sub(1)));
                }
                Row::Pair { hunk, left, right } => {
                    let half = width.saturating_sub(2) / 2;
                    let lines = &file.diff.hunks[hunk].lines;
                    spans.extend(side_line(left.map(|i| &lines[i]), true, theme, half));
                    spans.push(Span::styled("│", theme.border(false)));
                    spans.extend(side_line(right.map(|i| &lines[i]), false, theme, half));
                }
            }
            lines.push(Line::from(spans));
        }
        frame.render_widget(Paragraph::new(lines), area);
    }
}

impl Pane for ReviewPane {
    fn context(&self) -> KeyContext {
        KeyContext::Review
    }

    fn handle(&mut self, input: Input) -> Outcome {
        match input {
            Input::Key(key) => match key.action {
                Some(action) if offers(COMMANDS, action) => Outcome::maybe(self.on_action(action)),
                _ => Outcome::Ignored,
            },
            Input::Scroll(delta) => {
                self.cursor.scroll(delta, self.rows.len());
                Outcome::done()
            }
            Input::Click(position) => {
                self.click(position);
                Outcome::done()
            }
            Input::Paste(_) => Outcome::Ignored,
        }
    }

    fn view(&mut self, frame: &mut Frame, area: Rect, cx: &ViewContext) {
        self.draw(frame, area, cx.theme, cx.focused);
    }

    fn area(&self) -> Rect {
        self.area
    }
}

fn severity_word(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

fn signal_spans(signal: &Signal, theme: &Theme, width: usize) -> Vec<Span<'static>> {
    let place = match (signal.new_line, signal.old_line) {
        (Some(line), _) => format!(" (line {line})"),
        (None, Some(line)) => format!(" (was line {line})"),
        _ => String::new(),
    };
    let text = format!(
        " {} {}: {}{place}",
        severity_glyph(signal.severity),
        signal.code,
        signal.message
    );
    vec![Span::styled(
        widgets::truncate(&text, width),
        widgets::severity_color(theme, signal.severity),
    )]
}

/// The rows of one file's diff.
pub fn diff_rows(file: &FileReview, side_by_side: bool) -> Vec<Row> {
    let mut rows = Vec::new();
    if file.error.is_some() {
        rows.push(Row::Problem);
    }
    for (index, signal) in file.signals.iter().enumerate() {
        if signal.hunk.is_none() {
            rows.push(Row::FileSignal(index));
        }
    }
    for (h, hunk) in file.diff.hunks.iter().enumerate() {
        rows.push(Row::Header(h));
        for (index, signal) in file.signals.iter().enumerate() {
            if signal.hunk == Some(hunk.id) {
                rows.push(Row::HunkSignal(h, index));
            }
        }
        if !side_by_side {
            rows.extend((0..hunk.lines.len()).map(|l| Row::Line(h, l)));
            continue;
        }
        // Runs of removed lines pair with the added lines that follow them, row by row.
        let mut removed: Vec<usize> = Vec::new();
        let mut added: Vec<usize> = Vec::new();
        let flush = |removed: &mut Vec<usize>, added: &mut Vec<usize>, rows: &mut Vec<Row>| {
            for k in 0..removed.len().max(added.len()) {
                rows.push(Row::Pair {
                    hunk: h,
                    left: removed.get(k).copied(),
                    right: added.get(k).copied(),
                });
            }
            removed.clear();
            added.clear();
        };
        for (l, line) in hunk.lines.iter().enumerate() {
            match line.kind {
                LineKind::Removed => {
                    if !added.is_empty() {
                        flush(&mut removed, &mut added, &mut rows);
                    }
                    removed.push(l);
                }
                LineKind::Added => added.push(l),
                LineKind::Context => {
                    flush(&mut removed, &mut added, &mut rows);
                    rows.push(Row::Pair {
                        hunk: h,
                        left: Some(l),
                        right: Some(l),
                    });
                }
            }
        }
        flush(&mut removed, &mut added, &mut rows);
    }
    rows
}

/// Styles of a diff line: the line, and its changed words.
fn line_styles(kind: LineKind, theme: &Theme) -> (Style, Style) {
    match kind {
        LineKind::Added => (
            theme.fg(theme.added),
            theme
                .fg(theme.background)
                .bg(theme.added)
                .add_modifier(Modifier::BOLD),
        ),
        LineKind::Removed => (
            theme.fg(theme.removed),
            theme
                .fg(theme.background)
                .bg(theme.removed)
                .add_modifier(Modifier::BOLD),
        ),
        LineKind::Context => (theme.fg(theme.text), theme.fg(theme.text)),
    }
}

fn unified_line(line: &DiffLine, theme: &Theme, width: usize) -> Vec<Span<'static>> {
    let number = |n: Option<usize>| n.map_or_else(|| "    ".to_string(), |n| format!("{n:>4}"));
    let sign = match line.kind {
        LineKind::Added => "+",
        LineKind::Removed => "-",
        LineKind::Context => " ",
    };
    let (base, _) = line_styles(line.kind, theme);
    let mut spans = vec![
        Span::styled(
            format!("{} {} ", number(line.old_line), number(line.new_line)),
            theme.muted(),
        ),
        Span::styled(sign.to_string(), base),
    ];
    spans.extend(text_spans(line, theme, width.saturating_sub(11)));
    spans
}

fn side_line(
    line: Option<&DiffLine>,
    left: bool,
    theme: &Theme,
    width: usize,
) -> Vec<Span<'static>> {
    let Some(line) = line else {
        return vec![Span::raw(" ".repeat(width))];
    };
    let number = if left { line.old_line } else { line.new_line };
    let sign = match line.kind {
        LineKind::Added => "+",
        LineKind::Removed => "-",
        LineKind::Context => " ",
    };
    let (base, _) = line_styles(line.kind, theme);
    let mut spans = vec![
        Span::styled(
            number.map_or_else(|| "     ".to_string(), |n| format!("{n:>4} ")),
            theme.muted(),
        ),
        Span::styled(sign.to_string(), base),
    ];
    let text_width = width.saturating_sub(6);
    let text = text_spans(line, theme, text_width);
    let used: usize = text.iter().map(|s| s.width()).sum();
    spans.extend(text);
    spans.push(Span::raw(" ".repeat(text_width.saturating_sub(used))));
    spans
}

/// A line's text cut to `width` cells, changed words highlighted, tabs as four spaces,
/// and control, bidi and invisible characters shown by the core's sanitiser's markers
/// ([`sanitize::push_marker`]), reversed so a review sees them.
fn text_spans(line: &DiffLine, theme: &Theme, width: usize) -> Vec<Span<'static>> {
    let (base, highlight) = line_styles(line.kind, theme);
    let text = line.text.as_str();
    // Split into (range, highlighted) segments.
    let mut segments: Vec<(usize, usize, bool)> = Vec::new();
    let mut at = 0;
    let mut ranges = line.changed.clone();
    ranges.sort_by_key(|r| r.start);
    for range in ranges {
        let start = range.start.clamp(at, text.len());
        let end = range.end.clamp(start, text.len());
        if !text.is_char_boundary(start) || !text.is_char_boundary(end) {
            continue;
        }
        if start > at {
            segments.push((at, start, false));
        }
        if end > start {
            segments.push((start, end, true));
        }
        at = end;
    }
    if at < text.len() {
        segments.push((at, text.len(), false));
    }
    let mut spans = Vec::new();
    let mut used = 0;
    'segments: for (start, end, marked) in segments {
        let style = if marked { highlight } else { base };
        let mut out = String::new();
        for (offset, c) in text[start..end].char_indices() {
            // Keep a cell for the "…" unless this is the line's last character.
            let last = start + offset + c.len_utf8() == text.len();
            let limit = if last { width } else { width.saturating_sub(1) };
            let (piece, piece_style) = if c == '\t' {
                ("    ".to_string(), None)
            } else if sanitize::hidden(c).is_some() {
                (
                    sanitize::marker(c),
                    Some(theme.fg(theme.error).add_modifier(Modifier::REVERSED)),
                )
            } else {
                (c.to_string(), None)
            };
            let piece_width: usize = piece.chars().map(|c| c.width().unwrap_or(0)).sum();
            if used + piece_width > limit {
                if !out.is_empty() {
                    spans.push(Span::styled(std::mem::take(&mut out), style));
                }
                if used < width {
                    spans.push(Span::styled("…", theme.muted()));
                }
                break 'segments;
            }
            used += piece_width;
            match piece_style {
                Some(s) => {
                    if !out.is_empty() {
                        spans.push(Span::styled(std::mem::take(&mut out), style));
                    }
                    spans.push(Span::styled(piece, s));
                }
                None => out.push_str(&piece),
            }
        }
        if !out.is_empty() {
            spans.push(Span::styled(out, style));
        }
    }
    // git's words, so nobody wonders what "(no final newline)" meant.
    let note = "  \\ No newline at end of file";
    if line.no_newline && used + note.chars().count() <= width {
        spans.push(Span::styled(note, theme.muted()));
    }
    spans
}

/// "⊘ 2 writes refused by the agent servers since the baseline (1 older not shown)".
fn refused_header(review: &Review, theme: &Theme) -> Line<'static> {
    let count = review.refused.len();
    let hidden = count.saturating_sub(REFUSED_SHOWN);
    Line::from(Span::styled(
        format!(
            "⊘ {count} write{} refused by the agent servers since the baseline{}",
            if count == 1 { "" } else { "s" },
            if hidden > 0 {
                format!(" ({hidden} older not shown; `mbank review --json` lists every one)")
            } else {
                String::new()
            }
        ),
        theme.fg(theme.warning).add_modifier(Modifier::BOLD),
    ))
}

/// One refused write: the file the agent named, the rule, why, through what, when.
fn refused_line(record: &RefusalRecord, theme: &Theme) -> Line<'static> {
    Line::from(vec![
        Span::styled("  ⊘ ", theme.fg(theme.warning)),
        Span::styled(
            format!("{} ", widgets::shown(&record.file)),
            theme.fg(theme.text),
        ),
        Span::styled(
            format!("[{}] ", widgets::shown(&record.rule)),
            theme.fg(theme.warning),
        ),
        Span::styled(
            format!("{} ", widgets::shown(&record.message)),
            theme.fg(theme.text),
        ),
        Span::styled(
            format!(
                "via {} · {}",
                widgets::shown(&record.via),
                widgets::shown(&record.at)
            ),
            theme.muted(),
        ),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::review::diff_texts;

    fn line_text(spans: &[Span]) -> String {
        spans.iter().map(|s| s.content.to_string()).collect()
    }

    #[test]
    fn side_by_side_pairs_removed_and_added_runs_row_by_row() {
        let diff = diff_texts("a\nb\nc\nd\n", "a\nB\nC\nX\nd\n");
        let file = FileReview {
            path: PathBuf::from("/p/f.md"),
            display: "f.md".into(),
            change: crate::core::review::ChangeKind::Modified,
            renamed_from: None,
            renamed_from_display: None,
            format: crate::core::model::Format::Cline,
            role: crate::core::model::Role::Other,
            baseline: None,
            accepted: None,
            current: None,
            diff,
            added: 3,
            removed: 2,
            accepted_added: 0,
            accepted_removed: 0,
            tokens_before: 0,
            tokens_after: 0,
            signals: Vec::new(),
            error: None,
        };
        let rows = diff_rows(&file, true);
        let pairs: Vec<(Option<LineKind>, Option<LineKind>)> = rows
            .iter()
            .filter_map(|r| match r {
                Row::Pair { hunk, left, right } => {
                    let lines = &file.diff.hunks[*hunk].lines;
                    Some((left.map(|l| lines[l].kind), right.map(|l| lines[l].kind)))
                }
                _ => None,
            })
            .collect();
        use LineKind::*;
        assert_eq!(
            pairs,
            vec![
                (Some(Context), Some(Context)),
                (Some(Removed), Some(Added)),
                (Some(Removed), Some(Added)),
                (None, Some(Added)),
                (Some(Context), Some(Context)),
            ]
        );
        let unified = diff_rows(&file, false);
        assert_eq!(unified.len(), 1 + file.diff.hunks[0].lines.len());
    }

    #[test]
    fn long_lines_are_cut_and_hidden_characters_shown() {
        let theme = Theme::default();
        let line = DiffLine {
            kind: LineKind::Added,
            old_line: None,
            new_line: Some(1),
            text: format!("safe\u{202E}txt {}", "x".repeat(500)),
            changed: std::iter::once(0..4).collect(),
            no_newline: false,
        };
        let spans = text_spans(&line, &theme, 30);
        let text = line_text(&spans);
        assert!(text.starts_with("safe⟨U+202E⟩txt"), "{text}");
        assert!(text.ends_with('…'), "{text}");
        let width: usize = spans.iter().map(|s| s.width()).sum();
        assert!(width <= 30, "{width}");
        // The changed word is highlighted, the rest is not.
        assert_eq!(spans[0].content, "safe");
        assert_ne!(spans[0].style, spans[2].style);
        // Controls show which they are (an escape sequence stays inert), not a "�".
        let line = DiffLine {
            text: "a\u{1b}[2J\u{9b}b\tc".into(),
            changed: Vec::new(),
            ..line
        };
        let text = line_text(&text_spans(&line, &theme, 40));
        assert!(text.starts_with("a␛[2J⟨U+009B⟩b    c"), "{text}");
    }

    #[test]
    fn a_last_line_without_newline_says_so_as_git_does() {
        let theme = Theme::default();
        let line = DiffLine {
            kind: LineKind::Added,
            old_line: None,
            new_line: Some(3),
            text: "- the last entry".into(),
            changed: Vec::new(),
            no_newline: true,
        };
        let text = line_text(&text_spans(&line, &theme, 60));
        assert!(text.ends_with("\\ No newline at end of file"), "{text}");
        let text = line_text(&text_spans(
            &DiffLine {
                no_newline: false,
                ..line
            },
            &theme,
            60,
        ));
        assert!(!text.contains("newline"), "{text}");
    }
}

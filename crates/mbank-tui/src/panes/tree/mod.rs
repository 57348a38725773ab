//! The layered file tree: a project's banks, each with its files in the format's read
//! order and layer numbers, token and staleness gauges on every row, bank totals on the
//! bank row, its sub-folders as a real tree of collapsible folders named by their paths
//! (archives and backups, and every sub-folder of a big bank, start folded), a `/` filter
//! on the paths, the import tree and cut-offs of instruction files, and markers for
//! findings and for files an agent changed. The selection is kept by what it stands for
//! (a file's path, a folder's key) across refreshes, folding and filtering.
mod rows;
mod view;

use rows::bank_tree;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crossterm::event::KeyCode;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use mbank_core::analysis::context::BankContext;
use mbank_core::analysis::report::{BankReport, FileReport, ProjectReport};
use mbank_core::findings::Severity;
use mbank_core::model::LoadKind;

use crate::keymap::{Action, KeyContext};
use crate::list::{ListCursor, ListInput, PasteRule, row_inside_border};
use crate::pane::{Effect, Input, KeyInput, Outcome, Pane, ViewContext, offers};
use crate::theme::Theme;
use crate::widgets::{self, compact};

/// What a row stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowKind {
    Bank {
        bank: usize,
    },
    /// A folder of the bank (or an Infinity memory type), named by its path from the
    /// row above it; a chain of folders holding only one folder is one row (`.roo/rules/`).
    Folder {
        bank: usize,
        /// What folds it (the bank, and the folder's path in it).
        key: String,
        name: String,
        /// Files under it (those the filter lets through while one is typed).
        files: usize,
        folded: bool,
    },
    File {
        bank: usize,
        file: usize,
    },
    /// A file an instruction file pulls in through `@import`.
    Import {
        path: PathBuf,
        display: String,
        tokens: usize,
        depth: usize,
    },
    /// Text an agent drops because of a size rule.
    CutOff {
        path: PathBuf,
        text: String,
    },
    Note(String),
    /// The project is empty: Open on this row offers a bank.
    OfferBank,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeRow {
    pub kind: RowKind,
    pub indent: usize,
}

pub(crate) use crate::commands::TREE as COMMANDS;

/// A bank with more files than this starts with every sub-folder folded: its top files
/// (the ones agents load) stay in view, and the rest is a folder list to open.
pub(crate) const BIG_BANK_FILES: usize = 200;

/// One folder of a bank, built once per report.
#[derive(Debug)]
struct Folder {
    key: String,
    /// Its own name (the last part of its path).
    name: String,
    parent: usize,
    /// Files right in it, in read order.
    files: Vec<usize>,
    /// Sub-folders, in the read order of their first file.
    children: Vec<usize>,
    /// Files under it, at any depth.
    total: usize,
    /// Starts folded when first seen: an archive or backup, or inside one.
    archived: bool,
}

/// A bank's files arranged by folder; folder 0 is the bank itself.
#[derive(Debug, Default)]
struct BankTree {
    folders: Vec<Folder>,
    /// Per file: the folder it is drawn in.
    folder_of: Vec<usize>,
    /// Per file: its name as drawn (from its folder; an Infinity memory's title).
    names: Vec<String>,
    /// Per file: what the filter looks in (its path in the bank, lower case).
    haystack: Vec<String>,
}

/// What the selection stands for, to find it again after the rows change.
#[derive(Debug, Clone, PartialEq, Eq)]
enum SelectionAnchor {
    Fold(String),
    File(PathBuf, Option<String>),
    Row(RowKind),
}

#[derive(Default)]
pub struct Tree {
    pub report: Option<ProjectReport>,
    pub contexts: Vec<BankContext>,
    pub rows: Vec<TreeRow>,
    pub cursor: ListCursor,
    /// Per bank of the report, its folders.
    banks: Vec<BankTree>,
    /// The project is empty: the last row offers a bank.
    offer_bank: bool,
    /// Folded banks and folders, by key (kept across refreshes).
    collapsed: HashSet<String>,
    /// Folders seen so far: a folder starts folded only the first time it shows up.
    known: HashSet<String>,
    /// The text filter (case-insensitive, on the path in the bank); empty: everything.
    pub filter: String,
    /// True while the filter is typed: characters go to it.
    pub typing: bool,
    /// Folders folded while the current filter shows (a filter opens every folder).
    filter_folded: HashSet<String>,
    /// Files a filter lets through (all files without one).
    pub matching: usize,
    /// The worst finding of each file.
    worst: HashMap<PathBuf, Severity>,
    /// Files an agent changed since the user last looked at them.
    pub changed: HashSet<PathBuf>,
    /// The file shown in the editor.
    pub open: Option<PathBuf>,
    /// Where it was drawn last.
    area: Rect,
    /// The gauges the rows were drawn with at the last draw.
    gauges: Gauges,
    /// Cells the widest file row takes up to its gauges, as of the last rebuild of the
    /// rows (every draw sizes the gauges by it).
    longest_file_row: usize,
}

impl Tree {
    /// The cut an agent makes in `file` at session start, if it makes one.
    pub fn cut_of(&self, file: &Path) -> Option<&mbank_core::analysis::context::CutOff> {
        self.contexts
            .iter()
            .flat_map(|c| &c.cutoffs)
            .find(|cut| cut.file == file)
    }

    /// [`Tree::set_report`] of the open project: an empty project (its bank folders hold
    /// no file) gets a row that offers a bank.
    pub fn set_project_report(&mut self, report: ProjectReport, contexts: Vec<BankContext>) {
        self.offer_bank = report.banks.iter().all(|bank| bank.files.is_empty());
        self.set_report(report, contexts);
    }

    pub fn set_report(&mut self, report: ProjectReport, contexts: Vec<BankContext>) {
        let anchor = self.anchor();
        let first = self.report.is_none();
        self.banks = report.banks.iter().map(bank_tree).collect();
        self.worst.clear();
        for finding in &report.findings {
            let worst = self
                .worst
                .entry(finding.file.clone())
                .or_insert(finding.severity);
            *worst = (*worst).max(finding.severity);
        }
        // Archives, backups and the sub-folders of a big bank start folded, once: what
        // the user opens stays open across refreshes.
        for (tree, bank) in self.banks.iter().zip(&report.banks) {
            let big = bank.files.len() > BIG_BANK_FILES;
            for folder in tree.folders.iter().skip(1) {
                if self.known.insert(folder.key.clone()) && (big || folder.archived) {
                    self.collapsed.insert(folder.key.clone());
                }
            }
        }
        self.report = Some(report);
        self.contexts = contexts;
        let index = self.cursor.selected;
        self.rebuild();
        if first || !self.restore(anchor) {
            if first {
                self.select_first_file();
            } else {
                self.cursor.selected = index;
                self.cursor.clamp(self.rows.len());
            }
        }
    }

    pub fn file(&self, bank: usize, file: usize) -> Option<&FileReport> {
        self.report.as_ref()?.banks.get(bank)?.files.get(file)
    }

    /// The file under the cursor, with its Infinity memory id when it is one.
    pub fn selected_file(&self) -> Option<(PathBuf, Option<String>)> {
        match &self.rows.get(self.cursor.selected)?.kind {
            RowKind::File { bank, file } => {
                let report = self.file(*bank, *file)?;
                Some((
                    report.file.path.clone(),
                    report.file.memory.as_ref().map(|m| m.id.clone()),
                ))
            }
            RowKind::Import { path, .. } | RowKind::CutOff { path, .. } => {
                Some((path.clone(), None))
            }
            _ => None,
        }
    }

    /// The report of a file by path (the first bank listing it).
    pub fn file_report(&self, path: &Path, memory_id: Option<&str>) -> Option<&FileReport> {
        self.report.as_ref()?.banks.iter().find_map(|bank| {
            bank.files.iter().find(|f| {
                f.file.path == path && f.file.memory.as_ref().map(|m| m.id.as_str()) == memory_id
            })
        })
    }

    /// Selects a file, unfolding the folders it is in.
    pub(crate) fn select_path(&mut self, path: &Path) {
        // A file the filter hides (a finding, a decision elsewhere) clears the filter.
        if !self.select_file(path, None) && self.filtering() {
            self.filter.clear();
            self.typing = false;
            self.refilter();
            self.select_file(path, None);
        }
    }

    /// Selects a file (an Infinity memory by its id), unfolding its folders; false when
    /// no row shows it (not in the report, or filtered out).
    fn select_file(&mut self, path: &Path, memory_id: Option<&str>) -> bool {
        let position = |tree: &Tree| {
            tree.rows.iter().position(|row| match &row.kind {
                RowKind::File { bank, file } => tree.file(*bank, *file).is_some_and(|f| {
                    f.file.path == path
                        && f.file.memory.as_ref().map(|m| m.id.as_str()) == memory_id
                }),
                _ => false,
            })
        };
        if let Some(index) = position(self) {
            self.cursor.selected = index;
            return true;
        }
        if !self.reveal(path, memory_id) {
            return false;
        }
        self.rebuild();
        match position(self) {
            Some(index) => {
                self.cursor.selected = index;
                true
            }
            None => false,
        }
    }

    /// Unfolds the bank and folders a file is in; false when no bank lists it.
    fn reveal(&mut self, path: &Path, memory_id: Option<&str>) -> bool {
        let Some(report) = &self.report else {
            return false;
        };
        for (b, bank) in report.banks.iter().enumerate() {
            let Some(f) = bank.files.iter().position(|f| {
                f.file.path == path && f.file.memory.as_ref().map(|m| m.id.as_str()) == memory_id
            }) else {
                continue;
            };
            let tree = &self.banks[b];
            let mut folder = tree.folder_of[f];
            loop {
                let key = &tree.folders[folder].key;
                self.collapsed.remove(key);
                self.filter_folded.remove(key);
                if folder == 0 {
                    break;
                }
                folder = tree.folders[folder].parent;
            }
            return true;
        }
        false
    }

    fn select_first_file(&mut self) {
        if let Some(index) = self
            .rows
            .iter()
            .position(|row| matches!(row.kind, RowKind::File { .. }))
        {
            self.cursor.selected = index;
        }
    }

    /// What the selected row stands for.
    fn anchor(&self) -> Option<SelectionAnchor> {
        let row = self.rows.get(self.cursor.selected)?;
        Some(match &row.kind {
            RowKind::Bank { bank } => {
                SelectionAnchor::Fold(self.banks.get(*bank)?.folders[0].key.clone())
            }
            RowKind::Folder { key, .. } => SelectionAnchor::Fold(key.clone()),
            RowKind::File { bank, file } => {
                let report = self.file(*bank, *file)?;
                SelectionAnchor::File(
                    report.file.path.clone(),
                    report.file.memory.as_ref().map(|m| m.id.clone()),
                )
            }
            other => SelectionAnchor::Row(other.clone()),
        })
    }

    /// Selects the row `anchor` stands for; false when it is gone. A file in a folded
    /// folder is revealed.
    fn restore(&mut self, anchor: Option<SelectionAnchor>) -> bool {
        match anchor {
            None => false,
            Some(SelectionAnchor::File(path, memory_id)) => {
                self.select_file(&path, memory_id.as_deref())
            }
            Some(SelectionAnchor::Fold(key)) => match self
                .rows
                .iter()
                .position(|row| self.fold_key(row).is_some_and(|k| *k == key))
            {
                Some(index) => {
                    self.cursor.selected = index;
                    true
                }
                None => false,
            },
            Some(SelectionAnchor::Row(kind)) => {
                match self.rows.iter().position(|row| row.kind == kind) {
                    Some(index) => {
                        self.cursor.selected = index;
                        true
                    }
                    None => false,
                }
            }
        }
    }

    /// The key that folds a bank or folder row.
    fn fold_key<'a>(&'a self, row: &'a TreeRow) -> Option<&'a String> {
        match &row.kind {
            RowKind::Bank { bank } => self.banks.get(*bank).map(|t| &t.folders[0].key),
            RowKind::Folder { key, .. } => Some(key),
            _ => None,
        }
    }

    fn filtering(&self) -> bool {
        !self.filter.is_empty()
    }

    fn is_folded(&self, key: &str) -> bool {
        if self.filtering() {
            self.filter_folded.contains(key)
        } else {
            self.collapsed.contains(key)
        }
    }

    /// Rebuilds the rows after the filter changed, keeping the selection when it still
    /// shows, else on the first file that does.
    fn refilter(&mut self) {
        let anchor = self.anchor();
        self.filter_folded.clear();
        self.rebuild();
        if !self.restore(anchor) {
            self.cursor.selected = 0;
            self.select_first_file();
        }
    }

    /// Folds or unfolds a bank or folder, keeping the selection on the same row.
    fn set_folded(&mut self, key: &str, folded: bool) {
        let anchor = self.anchor();
        let set = if self.filtering() {
            &mut self.filter_folded
        } else {
            &mut self.collapsed
        };
        if folded {
            set.insert(key.to_string());
        } else {
            set.remove(key);
        }
        self.rebuild();
        self.restore(anchor);
    }

    /// The bank or folder row the row at `index` sits in.
    fn parent_of(&self, index: usize) -> Option<usize> {
        let indent = self.rows.get(index)?.indent;
        (0..index).rev().find(|&i| self.rows[i].indent < indent)
    }

    fn on_action(&mut self, action: Action) -> Option<Effect> {
        match action {
            Action::Open => return self.activate(true),
            Action::Expand => return self.expand_or_enter(),
            Action::Toggle => self.toggle(),
            Action::Collapse => self.collapse_or_parent(),
            Action::Filter => self.typing = true,
            other => {
                self.cursor.navigate(other, self.rows.len());
            }
        }
        None
    }

    /// A key while the filter is typed: text goes to it, Enter keeps it, Esc clears it;
    /// keys that type nothing still move the selection.
    fn on_filter_key(&mut self, key: KeyInput) -> Outcome {
        if let Some(c) = key.typed() {
            self.filter.push(c);
            self.refilter();
            return Outcome::done();
        }
        match (key.event.code, key.action) {
            (KeyCode::Backspace, _) => {
                self.filter.pop();
                self.refilter();
            }
            (KeyCode::Esc, _) | (_, Some(Action::Back)) => {
                self.typing = false;
                self.filter.clear();
                self.refilter();
            }
            (KeyCode::Enter, _) | (_, Some(Action::Open)) => self.typing = false,
            (
                _,
                Some(
                    action @ (Action::Up
                    | Action::Down
                    | Action::PageUp
                    | Action::PageDown
                    | Action::Top
                    | Action::Bottom
                    | Action::Expand
                    | Action::Collapse),
                ),
            ) => return Outcome::maybe(self.on_action(action)),
            // Other keys (tab, ctrl-q…) are not the filter's: it is kept, as by Enter.
            _ => {
                self.typing = false;
                return Outcome::Ignored;
            }
        }
        Outcome::done()
    }

    /// Opens the selected file, or folds / unfolds the selected bank or folder.
    fn activate(&mut self, focus: bool) -> Option<Effect> {
        let row = self.rows.get(self.cursor.selected)?;
        if row.kind == RowKind::OfferBank {
            return self
                .report
                .as_ref()
                .map(|report| Effect::AskInitProject(report.path.clone()));
        }
        if let Some(key) = self.fold_key(row).cloned() {
            if focus {
                let folded = self.is_folded(&key);
                self.set_folded(&key, !folded);
            }
            return None;
        }
        self.selected_file()
            .map(|(path, memory_id)| Effect::ShowFile {
                path,
                memory_id,
                focus,
            })
    }

    /// Space: folds or unfolds the selected folder, or the one the selected file is in
    /// (the selection moves to that folder).
    fn toggle(&mut self) {
        let index = self.cursor.selected;
        let Some(row) = self.rows.get(index) else {
            return;
        };
        if self.fold_key(row).is_some() {
            self.activate(true);
            return;
        }
        if let Some(parent) = self.parent_of(index) {
            self.cursor.selected = parent;
            self.activate(true);
        }
    }

    /// Right: unfolds a folder, or goes into an open one; on a file, opens it.
    fn expand_or_enter(&mut self) -> Option<Effect> {
        let index = self.cursor.selected;
        let row = self.rows.get(index)?;
        let Some(key) = self.fold_key(row).cloned() else {
            return self.activate(true);
        };
        if self.is_folded(&key) {
            self.set_folded(&key, false);
        } else if self
            .rows
            .get(index + 1)
            .is_some_and(|next| next.indent > row.indent)
        {
            self.cursor.selected = index + 1;
        }
        None
    }

    /// Left: folds the selected folder, or goes up to the folder or bank it is in.
    fn collapse_or_parent(&mut self) {
        let index = self.cursor.selected;
        if let Some(key) = self
            .rows
            .get(index)
            .and_then(|row| self.fold_key(row))
            .cloned()
            && !self.is_folded(&key)
        {
            self.set_folded(&key, true);
            return;
        }
        if let Some(parent) = self.parent_of(index) {
            self.cursor.selected = parent;
        }
    }
}

impl Pane for Tree {
    fn context(&self) -> KeyContext {
        KeyContext::Tree
    }

    fn prompt_hints(&self) -> Option<&'static [(&'static str, &'static str)]> {
        const FILTER: &[(&str, &str)] = &[("enter", "keep filter"), ("esc", "clear filter")];
        self.typing.then_some(FILTER)
    }

    fn handle(&mut self, input: Input) -> Outcome {
        let len = self.rows.len();
        let before = self.selected_file();
        let (area, page) = (self.area, self.cursor.page);
        // Below the rows (the filter's line) is no row.
        let row_at = |position| Some(row_inside_border(area, position)).filter(|row| *row < page);
        let filter = self
            .typing
            .then_some((&mut self.filter, PasteRule::FirstLine));
        let outcome = match self.cursor.apply(input, len, row_at, filter) {
            ListInput::Key(key) if self.typing => self.on_filter_key(key),
            ListInput::Key(key) => match key.action {
                // Esc clears a kept filter; without one it is not the tree's.
                Some(Action::Back) if self.filtering() => {
                    self.filter.clear();
                    self.refilter();
                    Outcome::done()
                }
                Some(Action::Back) => return Outcome::Ignored,
                Some(action) if offers(COMMANDS, action) => Outcome::maybe(self.on_action(action)),
                _ => return Outcome::Ignored,
            },
            // A click on a bank or folder folds or unfolds it; a second click on a
            // file opens it.
            ListInput::Selected { again } => {
                let fold = self
                    .rows
                    .get(self.cursor.selected)
                    .is_some_and(|r| self.fold_key(r).is_some());
                if fold || again {
                    Outcome::maybe(self.activate(true))
                } else {
                    Outcome::done()
                }
            }
            ListInput::Missed | ListInput::Scrolled => Outcome::done(),
            ListInput::Filtered => {
                self.refilter();
                Outcome::done()
            }
            ListInput::Ignored => return Outcome::Ignored,
        };
        // Moving through the tree (or filtering it) shows each file it lands on.
        match outcome {
            Outcome::Consumed(effects) if effects.is_empty() => {
                let after = self.selected_file();
                match after {
                    Some((path, memory_id))
                        if Some((&path, &memory_id)) != before.as_ref().map(|(p, m)| (p, m)) =>
                    {
                        Outcome::effect(Effect::ShowFile {
                            path,
                            memory_id,
                            focus: false,
                        })
                    }
                    _ => Outcome::done(),
                }
            }
            other => other,
        }
    }

    fn view(&mut self, frame: &mut Frame, area: Rect, cx: &ViewContext) {
        self.draw(frame, area, cx.theme, cx.focused);
    }

    fn area(&self) -> Rect {
        self.area
    }
}

/// What the right of a row shows, by the room there is. The file names come first,
/// then the token figure (coloured by its budget's verdict), then the staleness glyph,
/// then the bar, the budget and the staleness word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Gauges {
    #[default]
    None,
    /// The figure alone.
    Figure,
    /// The figure and the staleness glyph.
    Compact,
    /// The bar, the figure against its budget, the staleness badge.
    Full,
}

impl Gauges {
    /// Where names are cut anyway, they keep at least this many cells before a figure
    /// is drawn beside them.
    const NAME_ROOM: usize = 16;

    /// The richest gauges that leave the longest row's name whole (`longest`: its
    /// cells up to the gauges); where none does, the figure alone if names keep
    /// [`Gauges::NAME_ROOM`] cells.
    pub(crate) fn for_width(width: usize, longest: usize) -> Gauges {
        [Gauges::Full, Gauges::Compact, Gauges::Figure]
            .into_iter()
            .find(|g| width >= g.cells() + longest)
            .or_else(|| {
                (width >= Gauges::Figure.cells() + Self::NAME_ROOM).then_some(Gauges::Figure)
            })
            .unwrap_or(Gauges::None)
    }

    /// Cells after the name's column: a 6-cell bar with its figure (18), a space, the
    /// staleness badge (7) and a space before the border; the figure (6), a space and
    /// the glyph; the figure.
    pub(crate) fn cells(self) -> usize {
        match self {
            Gauges::None => 0,
            Gauges::Figure => 6,
            Gauges::Compact => 8,
            Gauges::Full => 27,
        }
    }
}

#[cfg(test)]
mod tests;

//! The layered file tree: a project's banks, each with its files in the format's read
//! order and layer numbers, token and staleness gauges on every row, bank totals on the
//! bank row, its sub-folders as a real tree of collapsible folders named by their paths
//! (archives and backups, and every sub-folder of a big bank, start folded), a `/` filter
//! on the paths, the import tree and cut-offs of instruction files, and markers for
//! findings and for files an agent changed. The selection is kept by what it stands for
//! (a file's path, a folder's key) across refreshes, folding and filtering.
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crossterm::event::KeyCode;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use crate::core::analysis::context::BankContext;
use crate::core::analysis::report::{BankReport, FileReport, ProjectReport};
use crate::core::findings::Severity;
use crate::core::model::LoadKind;

use crate::tui::keymap::{Action, KeyContext};
use crate::tui::list::ListCursor;
use crate::tui::pane::{
    Command, Effect, Input, KeyInput, Outcome, Pane, ViewContext, hint, offers, quiet,
};
use crate::tui::theme::Theme;
use crate::tui::widgets::{self, compact};

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
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub kind: RowKind,
    pub indent: usize,
}

/// The tree's keys. Moving the selection shows the file under it; Enter moves the
/// keyboard into it (on a folder it folds or unfolds it). While the filter is typed,
/// characters go to it, whatever they are bound to.
pub const COMMANDS: &[Command] = &[
    quiet(Action::Up),
    quiet(Action::Down),
    quiet(Action::PageUp),
    quiet(Action::PageDown),
    quiet(Action::Top),
    quiet(Action::Bottom),
    hint(Action::Open),
    hint(Action::Filter),
    hint(Action::Toggle),
    quiet(Action::Expand),
    quiet(Action::Collapse),
    quiet(Action::Back),
];

/// A bank with more files than this starts with every sub-folder folded: its top files
/// (the ones agents load) stay in view, and the rest is a folder list to open.
pub const BIG_BANK_FILES: usize = 200;

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
enum Anchor {
    Fold(String),
    File(PathBuf, Option<String>),
    Row(RowKind),
}

#[derive(Default)]
pub struct Tree {
    pub report: Option<ProjectReport>,
    pub contexts: Vec<BankContext>,
    pub rows: Vec<Row>,
    pub cursor: ListCursor,
    /// Per bank of the report, its folders.
    banks: Vec<BankTree>,
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
}

impl Tree {
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
    pub fn select_path(&mut self, path: &Path) {
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
    fn anchor(&self) -> Option<Anchor> {
        let row = self.rows.get(self.cursor.selected)?;
        Some(match &row.kind {
            RowKind::Bank { bank } => Anchor::Fold(self.banks.get(*bank)?.folders[0].key.clone()),
            RowKind::Folder { key, .. } => Anchor::Fold(key.clone()),
            RowKind::File { bank, file } => {
                let report = self.file(*bank, *file)?;
                Anchor::File(
                    report.file.path.clone(),
                    report.file.memory.as_ref().map(|m| m.id.clone()),
                )
            }
            other => Anchor::Row(other.clone()),
        })
    }

    /// Selects the row `anchor` stands for; false when it is gone. A file in a folded
    /// folder is revealed.
    fn restore(&mut self, anchor: Option<Anchor>) -> bool {
        match anchor {
            None => false,
            Some(Anchor::File(path, memory_id)) => self.select_file(&path, memory_id.as_deref()),
            Some(Anchor::Fold(key)) => match self
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
            Some(Anchor::Row(kind)) => match self.rows.iter().position(|row| row.kind == kind) {
                Some(index) => {
                    self.cursor.selected = index;
                    true
                }
                None => false,
            },
        }
    }

    /// The key that folds a bank or folder row.
    fn fold_key<'a>(&'a self, row: &'a Row) -> Option<&'a String> {
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

    /// Rebuilds the rows from the report, honouring folded folders and the filter.
    pub fn rebuild(&mut self) {
        let mut rows = Vec::new();
        let mut matching = 0;
        let Some(report) = &self.report else {
            self.rows = rows;
            return;
        };
        let needle = self.filter.to_lowercase();
        for (b, (bank, tree)) in report.banks.iter().zip(&self.banks).enumerate() {
            let shows = |f: usize| needle.is_empty() || tree.haystack[f].contains(&needle);
            // Files under each folder that the filter lets through (children come after
            // their parent, so one backward pass adds them up).
            let counts: Vec<usize> = if needle.is_empty() {
                tree.folders.iter().map(|f| f.total).collect()
            } else {
                let mut counts: Vec<usize> = tree
                    .folders
                    .iter()
                    .map(|folder| folder.files.iter().filter(|&&f| shows(f)).count())
                    .collect();
                for i in (1..counts.len()).rev() {
                    let parent = tree.folders[i].parent;
                    counts[parent] += counts[i];
                }
                counts
            };
            matching += counts[0];
            rows.push(Row {
                kind: RowKind::Bank { bank: b },
                indent: 0,
            });
            if self.is_folded(&tree.folders[0].key) {
                continue;
            }
            let context = self
                .contexts
                .iter()
                .find(|c| c.root == bank.root && c.format == bank.format);
            let push_files = |rows: &mut Vec<Row>, folder: usize, indent: usize| {
                for &f in &tree.folders[folder].files {
                    if shows(f) {
                        rows.push(Row {
                            kind: RowKind::File { bank: b, file: f },
                            indent,
                        });
                        push_context_rows(rows, context, &bank.files[f].file.path, indent + 1);
                    }
                }
            };
            push_files(&mut rows, 0, 1);
            // Depth first without recursion (folders can nest deep).
            let mut stack: Vec<(usize, usize)> = tree.folders[0]
                .children
                .iter()
                .rev()
                .map(|&c| (c, 1))
                .collect();
            while let Some((start, indent)) = stack.pop() {
                if counts[start] == 0 {
                    continue;
                }
                let mut folder = start;
                let mut name = tree.folders[folder].name.clone();
                while tree.folders[folder].files.is_empty()
                    && tree.folders[folder].children.len() == 1
                {
                    folder = tree.folders[folder].children[0];
                    name.push('/');
                    name.push_str(&tree.folders[folder].name);
                }
                let key = &tree.folders[folder].key;
                let folded = self.is_folded(key);
                rows.push(Row {
                    kind: RowKind::Folder {
                        bank: b,
                        key: key.clone(),
                        name,
                        files: counts[folder],
                        folded,
                    },
                    indent,
                });
                if !folded {
                    push_files(&mut rows, folder, indent + 1);
                    stack.extend(
                        tree.folders[folder]
                            .children
                            .iter()
                            .rev()
                            .map(|&c| (c, indent + 1)),
                    );
                }
            }
            if needle.is_empty() {
                for problem in &bank.problems {
                    rows.push(Row {
                        kind: RowKind::Note(problem.clone()),
                        indent: 1,
                    });
                }
            }
        }
        self.rows = rows;
        self.matching = matching;
        self.cursor.clamp(self.rows.len());
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

    /// The row under a click (inside the border), when there is one.
    fn row_at(&self, position: Position) -> usize {
        position.y.saturating_sub(self.area.y + 1) as usize
    }

    /// Opens the selected file, or folds / unfolds the selected bank or folder.
    fn activate(&mut self, focus: bool) -> Option<Effect> {
        let row = self.rows.get(self.cursor.selected)?;
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

    fn draw(&mut self, frame: &mut Frame, area: Rect, theme: &Theme, focused: bool) {
        self.area = area;
        let title = self
            .report
            .as_ref()
            .map(|r| format!(" {} ", widgets::shown(&r.name)))
            .unwrap_or_else(|| " Files ".into());
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border(focused))
            .title(Span::styled(title, theme.title()));
        let inner = block.inner(area);
        frame.render_widget(block, area);
        let Some(report) = &self.report else {
            frame.render_widget(
                Paragraph::new(Span::styled(" reading the bank…", theme.muted())),
                inner,
            );
            return;
        };
        // The filter's line at the bottom, while it is typed or applied.
        let prompt = self.typing || self.filtering();
        let [list_area, prompt_area] =
            Layout::vertical([Constraint::Min(1), Constraint::Length(u16::from(prompt))])
                .areas(inner);
        if prompt {
            let room = inner.width as usize;
            let filter = widgets::truncate(&self.filter, room.saturating_sub(5));
            let mut used = 4 + filter.chars().count();
            let mut spans = vec![
                Span::styled(" / ", theme.key()),
                Span::styled(filter, theme.fg(theme.text)),
            ];
            if self.typing {
                spans.push(Span::styled("▏", theme.fg(theme.accent)));
            }
            // The count, then how to leave, as far as they fit.
            let count = format!(
                "  {} file{}",
                self.matching,
                if self.matching == 1 { "" } else { "s" }
            );
            let leave = if self.typing {
                " · enter keep · esc clear"
            } else {
                " · esc clear"
            };
            for piece in [count.as_str(), leave] {
                used += piece.chars().count();
                if used > room {
                    break;
                }
                spans.push(Span::styled(piece.to_string(), theme.muted()));
            }
            frame.render_widget(Paragraph::new(Line::from(spans)), prompt_area);
        }
        let shown = self
            .cursor
            .layout(list_area.height as usize, self.rows.len());
        let width = list_area.width as usize;
        let lines: Vec<Line> = self
            .rows
            .iter()
            .enumerate()
            .skip(shown.start)
            .take(shown.len())
            .map(|(index, row)| {
                let mut line = self.row_line(report, row, width, theme);
                if index == self.cursor.selected {
                    line = line.patch_style(if focused {
                        theme.selected()
                    } else {
                        theme.selected().remove_modifier(Modifier::BOLD)
                    });
                }
                line
            })
            .collect();
        frame.render_widget(Paragraph::new(lines), list_area);
    }

    fn row_line(
        &self,
        report: &ProjectReport,
        row: &Row,
        width: usize,
        theme: &Theme,
    ) -> Line<'static> {
        let indent = "  ".repeat(row.indent);
        // Gauges take the right-hand cells when there is room for a name too.
        let gauges = width >= GAUGE_COLUMNS + 16;
        let name_width = if gauges {
            width.saturating_sub(GAUGE_COLUMNS + indent.len())
        } else {
            width.saturating_sub(indent.len())
        };
        match &row.kind {
            RowKind::Bank { bank: b } => {
                let bank = &report.banks[*b];
                let glyph = if self.fold_key(row).is_some_and(|k| self.is_folded(k)) {
                    "▸"
                } else {
                    "▾"
                };
                let folder = bank
                    .root
                    .strip_prefix(&report.path)
                    .ok()
                    .filter(|p| !p.as_os_str().is_empty())
                    .map(|p| format!(" {}/", p.display()))
                    .unwrap_or_default();
                let mut spans = vec![Span::styled(
                    format!(
                        "{:<w$} ",
                        widgets::truncate(
                            &format!("{glyph} {}{folder}", bank.label),
                            name_width.saturating_sub(1)
                        ),
                        w = name_width.saturating_sub(1)
                    ),
                    theme.fg(theme.accent).add_modifier(Modifier::BOLD),
                )];
                if gauges {
                    let total = widgets::Total {
                        tokens: bank.loaded_tokens,
                        complete: bank.complete,
                        checks: &bank.budget,
                        worst: bank.worst_budget(),
                    };
                    spans.extend(widgets::total_gauge(&total, 6, theme));
                    spans.push(Span::raw(" "));
                    spans.push(widgets::freshness_badge(bank.worst_staleness(), theme));
                }
                Line::from(spans)
            }
            RowKind::Folder {
                name,
                files,
                folded,
                ..
            } => Line::from(vec![
                Span::raw(indent),
                Span::styled(
                    widgets::truncate(
                        &format!("{} {name}/ ({files})", if *folded { "▸" } else { "▾" }),
                        width.saturating_sub(row.indent * 2),
                    ),
                    theme.fg(theme.accent),
                ),
            ]),
            RowKind::File { bank, file } => {
                let name = self
                    .banks
                    .get(*bank)
                    .and_then(|t| t.names.get(*file))
                    .map_or("", String::as_str);
                let file = &report.banks[*bank].files[*file];
                self.file_line(file, name, indent, name_width, gauges, theme)
            }
            RowKind::Import {
                display,
                tokens,
                depth,
                ..
            } => Line::from(vec![
                Span::raw(format!("{indent}{}", "  ".repeat(*depth))),
                Span::styled(
                    widgets::truncate(&format!("↳ @{display}"), name_width),
                    theme.fg(theme.link),
                ),
                Span::styled(format!("  {} tok", compact(*tokens as u64)), theme.muted()),
            ]),
            RowKind::CutOff { text, .. } => Line::from(vec![
                Span::raw(indent),
                Span::styled(
                    widgets::truncate(&format!("✂ {text}"), width.saturating_sub(row.indent * 2)),
                    theme.fg(theme.over),
                ),
            ]),
            RowKind::Note(text) => Line::from(vec![
                Span::raw(indent),
                Span::styled(
                    widgets::truncate(&format!("! {text}"), width.saturating_sub(row.indent * 2)),
                    theme.fg(theme.warning),
                ),
            ]),
        }
    }

    fn file_line(
        &self,
        file: &FileReport,
        name: &str,
        indent: String,
        name_width: usize,
        gauges: bool,
        theme: &Theme,
    ) -> Line<'static> {
        let layer = file
            .file
            .layer
            .map(|l| format!("{l} "))
            .unwrap_or_else(|| "  ".into());
        let changed = self.changed.contains(&file.file.path);
        let open = self.open.as_deref() == Some(file.file.path.as_path());
        let finding = self.worst.get(&file.file.path).copied();
        let marker = match finding {
            Some(Severity::Error) => {
                Span::styled("✖", widgets::severity_color(theme, Severity::Error))
            }
            Some(Severity::Warning) => {
                Span::styled("▲", widgets::severity_color(theme, Severity::Warning))
            }
            Some(Severity::Info) => {
                Span::styled("i", widgets::severity_color(theme, Severity::Info))
            }
            None => Span::raw(" "),
        };
        let name_style = if file.error.is_some() {
            theme.fg(theme.error)
        } else if file.file.load == LoadKind::Never {
            theme.muted()
        } else {
            theme.fg(theme.text)
        };
        let name_style = if open {
            name_style.add_modifier(Modifier::BOLD)
        } else {
            name_style
        };
        let mut spans = vec![
            Span::raw(indent),
            Span::styled(layer, theme.muted()),
            Span::styled(
                format!(
                    "{:<w$}",
                    widgets::truncate(name, name_width.saturating_sub(5)),
                    w = name_width.saturating_sub(5)
                ),
                name_style,
            ),
            Span::styled(
                if changed { "•" } else { " " },
                theme.fg(theme.changed).add_modifier(Modifier::BOLD),
            ),
            marker,
            Span::raw(" "),
        ];
        if gauges {
            let tokens = file.stats.as_ref().map(|s| s.loaded_tokens as u64);
            if file.error.is_some() {
                spans.push(Span::styled(
                    format!("{:<15}", "unreadable"),
                    theme.fg(theme.error),
                ));
            } else {
                spans.extend(widgets::token_gauge(tokens, &file.budget, 6, theme));
            }
            spans.push(Span::raw(" "));
            spans.push(widgets::freshness_badge(
                file.staleness.as_ref().map(|s| s.level),
                theme,
            ));
        }
        Line::from(spans)
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
        let outcome = match input {
            Input::Key(key) if self.typing => self.on_filter_key(key),
            Input::Key(key) => match key.action {
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
            Input::Click(position) => {
                let row = self.row_at(position);
                // Below the rows (the filter's line) is no row.
                let clicked = if row < self.cursor.page {
                    self.cursor.click(row, len)
                } else {
                    None
                };
                match clicked {
                    // A click on a bank or folder folds or unfolds it; a second click on
                    // a file opens it.
                    Some(again) => {
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
                    None => Outcome::done(),
                }
            }
            Input::Scroll(delta) => {
                self.cursor.scroll(delta, len);
                Outcome::done()
            }
            Input::Paste(text) if self.typing => {
                self.filter.extend(
                    text.chars()
                        .take_while(|c| *c != '\n')
                        .filter(|c| !c.is_control()),
                );
                self.refilter();
                Outcome::done()
            }
            Input::Paste(_) => return Outcome::Ignored,
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

/// Cells the gauges take at the right of a row: a space, a 6-cell bar with its figure
/// (17), a space and the staleness badge (7).
const GAUGE_COLUMNS: usize = 26;

/// Import and cut-off rows under an instruction file.
fn push_context_rows(
    rows: &mut Vec<Row>,
    context: Option<&BankContext>,
    file: &Path,
    indent: usize,
) {
    let Some(context) = context else {
        return;
    };
    for piece in &context.pieces {
        if piece.via.first().map(PathBuf::as_path) == Some(file) {
            rows.push(Row {
                kind: RowKind::Import {
                    path: piece.file.clone(),
                    display: piece.display.clone(),
                    tokens: piece.tokens,
                    depth: piece.via.len().saturating_sub(1),
                },
                indent,
            });
        }
    }
    for cut in context.cutoffs.iter().filter(|c| c.file == file) {
        rows.push(Row {
            kind: RowKind::CutOff {
                path: cut.file.clone(),
                text: format!(
                    "{} / {} cut off ({})",
                    crate::core::text::counted(cut.dropped_lines, "line"),
                    crate::core::text::counted(cut.dropped_bytes, "byte"),
                    cut.rule
                ),
            },
            indent,
        });
    }
}

/// Whether a folder's name says it holds old copies: backups, archives, `*.bak`, `old`…
/// (matched on the name, case-insensitively).
pub fn looks_archived(name: &str) -> bool {
    let name = name.to_lowercase();
    let bare = name.trim_start_matches(['.', '_', '-', '~']);
    bare.starts_with("archive")
        || name.contains("backup")
        || [".bak", "-bak", "_bak", ".old", "-old", "_old", ".orig", "~"]
            .iter()
            .any(|end| name.ends_with(end))
        || ["bak-", "bak_", "bak.", "old-", "old_", "old."]
            .iter()
            .any(|start| bare.starts_with(start))
        || matches!(
            bare,
            "bak" | "old" | "history" | "sessions" | "trash" | "attic" | "deprecated" | "legacy"
        )
}

/// Arranges a bank's files by folder. A file the format puts in a group (a folder of
/// decisions, sessions, rules, an archive…) sits in its real folder; one it puts at the
/// top (it loads like the top files: `.claude/CLAUDE.md`) sits there under its path; an
/// Infinity memory sits in a folder named for its type.
fn bank_tree(bank: &BankReport) -> BankTree {
    let mut tree = BankTree {
        folders: vec![Folder {
            key: format!("{:?}:{}", bank.format, bank.root.display()),
            name: String::new(),
            parent: 0,
            files: Vec::new(),
            children: Vec::new(),
            total: 0,
            archived: false,
        }],
        ..BankTree::default()
    };
    let mut by_name: HashMap<(usize, String), usize> = HashMap::new();
    for (f, report) in bank.files.iter().enumerate() {
        let file = &report.file;
        let rel = file.path.strip_prefix(&bank.root).ok();
        let rel_text = rel.map_or_else(
            || file.display.clone(),
            |r| r.to_string_lossy().into_owned(),
        );
        let parts = |path: Option<&Path>| -> Vec<String> {
            path.map(|p| {
                p.components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default()
        };
        let (folders, name) = match (&file.memory, &file.group) {
            (Some(memory), group) => (group.iter().cloned().collect(), memory.title.clone()),
            (None, Some(group)) => {
                let real = parts(rel.and_then(Path::parent));
                let folders = if real.is_empty() {
                    vec![group.clone()]
                } else {
                    real
                };
                (folders, file.file_name().into_owned())
            }
            (None, None) => (Vec::new(), rel_text.clone()),
        };
        let mut at = 0;
        for part in folders {
            at = match by_name.get(&(at, part.clone())) {
                Some(&child) => child,
                None => {
                    let child = tree.folders.len();
                    let parent = &tree.folders[at];
                    let folder = Folder {
                        key: format!("{}/{part}", parent.key),
                        archived: parent.archived || looks_archived(&part),
                        name: part.clone(),
                        parent: at,
                        files: Vec::new(),
                        children: Vec::new(),
                        total: 0,
                    };
                    tree.folders[at].children.push(child);
                    tree.folders.push(folder);
                    by_name.insert((at, part), child);
                    child
                }
            };
        }
        tree.folders[at].files.push(f);
        tree.folder_of.push(at);
        let title = file.memory.as_ref().map(|m| m.title.as_str()).unwrap_or("");
        tree.haystack
            .push(format!("{rel_text}\n{title}").to_lowercase());
        tree.names.push(name);
    }
    // Children come after their parent: one backward pass adds up the totals.
    for i in (0..tree.folders.len()).rev() {
        tree.folders[i].total += tree.folders[i].files.len();
        if i > 0 {
            let (parent, total) = (tree.folders[i].parent, tree.folders[i].total);
            tree.folders[parent].total += total;
        }
    }
    tree
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::model::{Format, MemoryFile, Role, VirtualMemory};

    #[test]
    fn archive_and_backup_names_are_recognised() {
        for name in [
            "archive",
            "Archive-2023",
            "archived",
            "_archive",
            "backup-2025-01-01",
            "pre-migration-backups",
            "memory.bak",
            "bak",
            "old",
            "old-notes",
            ".old",
            "notes_old",
            "History",
            "sessions",
            "notes.orig",
        ] {
            assert!(looks_archived(name), "{name}");
        }
        for name in [
            "notes",
            "design",
            "decisions",
            "bakery",
            "golden",
            "rules",
            "holdings",
        ] {
            assert!(!looks_archived(name), "{name}");
        }
    }

    fn file(root: &Path, rel: &str, group: Option<&str>, memory: Option<&str>) -> FileReport {
        FileReport {
            class: crate::core::analysis::membership::FileClass::Memory,
            file: MemoryFile {
                path: root.join(rel),
                display: rel.to_string(),
                role: Role::Other,
                layer: None,
                order: 0,
                group: group.map(str::to_string),
                load: LoadKind::Never,
                size: 0,
                modified: None,
                memory: memory.map(|title| VirtualMemory {
                    id: title.to_lowercase(),
                    title: title.to_string(),
                    kind: group.unwrap_or("").to_string(),
                    created_at: None,
                    updated_at: None,
                }),
                unreadable: None,
            },
            stats: None,
            error: None,
            budget: Vec::new(),
            budget_status: None,
            staleness: None,
            modified: None,
            last_commit: None,
        }
    }

    fn bank(root: &Path, files: Vec<FileReport>) -> BankReport {
        BankReport {
            format: Format::ClaudeMd,
            label: "Claude Code",
            root: root.to_path_buf(),
            project_id: None,
            modes: Vec::new(),
            files,
            budget: Vec::new(),
            budget_status: None,
            loaded_tokens: 0,
            private_tokens: 0,
            complete: true,
            problems: Vec::new(),
        }
    }

    fn report(banks: Vec<BankReport>) -> ProjectReport {
        ProjectReport {
            name: "p".into(),
            path: PathBuf::from("/p"),
            encoding: Default::default(),
            banks,
            last_write: None,
            last_commit: None,
            findings: Vec::new(),
            decisions: Vec::new(),
        }
    }

    /// The rows as indented text.
    fn shape(tree: &Tree) -> Vec<String> {
        tree.rows
            .iter()
            .map(|row| {
                let what = match &row.kind {
                    RowKind::Bank { .. } => "bank".to_string(),
                    RowKind::Folder {
                        name,
                        files,
                        folded,
                        ..
                    } => format!("{}{name}/ ({files})", if *folded { "+" } else { "-" }),
                    RowKind::File { bank, file } => tree.banks[*bank].names[*file].clone(),
                    other => format!("{other:?}"),
                };
                format!("{}{what}", " ".repeat(row.indent))
            })
            .collect()
    }

    #[test]
    fn files_sit_in_their_folders_in_read_order_and_single_folder_chains_are_one_row() {
        let root = Path::new("/p");
        let files = vec![
            file(root, "CLAUDE.md", None, None),
            // A file the format loads like a top file stays at the top, under its path.
            file(root, ".claude/CLAUDE.md", None, None),
            file(root, ".claude/rules/api.md", Some("rules"), None),
            file(root, "packages/web/CLAUDE.md", Some("subfolders"), None),
            file(root, "packages/api/CLAUDE.md", Some("subfolders"), None),
            file(root, "docs/old/CLAUDE.md", Some("subfolders"), None),
        ];
        let mut tree = Tree::default();
        tree.set_report(report(vec![bank(root, files)]), Vec::new());
        assert_eq!(
            shape(&tree),
            [
                "bank",
                " CLAUDE.md",
                " .claude/CLAUDE.md",
                " -.claude/rules/ (1)",
                "  api.md",
                " -packages/ (2)",
                "  -web/ (1)",
                "   CLAUDE.md",
                "  -api/ (1)",
                "   CLAUDE.md",
                " +docs/old/ (1)",
            ]
        );
        assert_eq!(tree.cursor.selected, 1, "the first file is selected");
    }

    #[test]
    fn infinity_memories_sit_in_a_folder_per_type_under_their_titles() {
        let root = Path::new("/p/.infinity");
        let files = vec![
            file(
                root,
                "memories.json",
                Some("decision"),
                Some("Use Postgres"),
            ),
            file(
                root,
                "memories.json",
                Some("pattern"),
                Some("Retry with backoff"),
            ),
            file(root, "memories.json", Some("decision"), Some("Drop Redis")),
        ];
        let mut tree = Tree::default();
        tree.set_report(report(vec![bank(root, files)]), Vec::new());
        assert_eq!(
            shape(&tree),
            [
                "bank",
                " -decision/ (2)",
                "  Use Postgres",
                "  Drop Redis",
                " -pattern/ (1)",
                "  Retry with backoff",
            ]
        );
        // The filter looks in titles too.
        tree.filter = "redis".into();
        tree.refilter();
        assert_eq!(shape(&tree), ["bank", " -decision/ (1)", "  Drop Redis"]);
        assert_eq!(tree.matching, 1);
    }

    #[test]
    fn a_big_bank_opens_with_its_sub_folders_folded_and_a_refresh_keeps_what_was_opened() {
        let root = Path::new("/p");
        let mut files = vec![file(root, "CLAUDE.md", None, None)];
        for i in 0..=BIG_BANK_FILES {
            files.push(file(
                root,
                &format!("area-{}/f{i}/CLAUDE.md", i % 3),
                Some("subfolders"),
                None,
            ));
        }
        let mut tree = Tree::default();
        tree.set_report(report(vec![bank(root, files.clone())]), Vec::new());
        assert_eq!(tree.rows.len(), 5, "{:?}", shape(&tree));
        // Open one folder and select it; a refresh with a new folder keeps both.
        tree.cursor.selected = 3;
        tree.on_action(Action::Expand);
        let opened = shape(&tree)[3].clone();
        assert!(opened.starts_with(" -area-1/"), "{opened}");
        files.insert(
            1,
            file(root, "area-0/new/CLAUDE.md", Some("subfolders"), None),
        );
        tree.set_report(report(vec![bank(root, files)]), Vec::new());
        assert_eq!(shape(&tree)[tree.cursor.selected], opened);
    }
}

//! The layered file tree: a project's banks, each with its files in the format's read
//! order and layer numbers, token and staleness gauges on every row, bank totals on the
//! bank row, collapsible groups (decisions, sessions, rules…), the import tree and cut-offs
//! of instruction files, and markers for findings and for files an agent changed.
use std::collections::HashSet;
use std::path::{Path, PathBuf};

use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use crate::core::analysis::context::BankContext;
use crate::core::analysis::report::{FileReport, ProjectReport};
use crate::core::findings::Severity;
use crate::core::model::LoadKind;

use crate::tui::keymap::{Action, KeyContext};
use crate::tui::list::ListCursor;
use crate::tui::pane::{Command, Effect, Input, Outcome, Pane, ViewContext, hint, offers, quiet};
use crate::tui::theme::Theme;
use crate::tui::widgets::{self, compact};

/// What a row stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowKind {
    Bank {
        bank: usize,
    },
    Group {
        bank: usize,
        name: String,
        files: usize,
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
/// keyboard into it.
pub const COMMANDS: &[Command] = &[
    quiet(Action::Up),
    quiet(Action::Down),
    quiet(Action::PageUp),
    quiet(Action::PageDown),
    quiet(Action::Top),
    quiet(Action::Bottom),
    hint(Action::Open),
    hint(Action::Collapse),
    hint(Action::Toggle),
];

#[derive(Default)]
pub struct Tree {
    pub report: Option<ProjectReport>,
    pub contexts: Vec<BankContext>,
    pub rows: Vec<Row>,
    pub cursor: ListCursor,
    /// Collapsed groups, by "bank-index/group".
    collapsed: HashSet<String>,
    /// Files an agent changed since the user last looked at them.
    pub changed: HashSet<PathBuf>,
    /// The file shown in the editor.
    pub open: Option<PathBuf>,
    /// Where it was drawn last.
    area: Rect,
}

impl Tree {
    pub fn set_report(&mut self, report: ProjectReport, contexts: Vec<BankContext>) {
        let selected = self.selected_file().map(|(path, _)| path);
        let first = self.report.is_none();
        self.report = Some(report);
        self.contexts = contexts;
        if first {
            // Sessions and ADR folders can be long: start them folded.
            if let Some(report) = &self.report {
                for (b, bank) in report.banks.iter().enumerate() {
                    for file in &bank.files {
                        if let Some(group) = &file.file.group
                            && matches!(group.as_str(), "sessions" | "archive" | "backup")
                        {
                            self.collapsed.insert(format!("{b}/{group}"));
                        }
                    }
                }
            }
        }
        self.rebuild();
        match selected {
            Some(path) => self.select_path(&path),
            None if first => self.select_first_file(),
            None => {}
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

    pub fn select_path(&mut self, path: &Path) {
        if let Some(index) = self.rows.iter().position(|row| match &row.kind {
            RowKind::File { bank, file } => {
                self.file(*bank, *file).is_some_and(|f| f.file.path == path)
            }
            _ => false,
        }) {
            self.cursor.selected = index;
        }
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

    /// Rebuilds the rows from the report, honouring folded groups.
    pub fn rebuild(&mut self) {
        let mut rows = Vec::new();
        let Some(report) = &self.report else {
            self.rows = rows;
            return;
        };
        for (b, bank) in report.banks.iter().enumerate() {
            rows.push(Row {
                kind: RowKind::Bank { bank: b },
                indent: 0,
            });
            let context = self
                .contexts
                .iter()
                .find(|c| c.root == bank.root && c.format == bank.format);
            // Files without a group first (in read order), then each group in the order
            // its first file comes.
            let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
            let mut loose = Vec::new();
            for (f, file) in bank.files.iter().enumerate() {
                match &file.file.group {
                    Some(group) => match groups.iter_mut().find(|(name, _)| name == group) {
                        Some((_, members)) => members.push(f),
                        None => groups.push((group.clone(), vec![f])),
                    },
                    None => loose.push(f),
                }
            }
            for f in loose {
                rows.push(Row {
                    kind: RowKind::File { bank: b, file: f },
                    indent: 1,
                });
                push_context_rows(&mut rows, context, &bank.files[f].file.path);
            }
            for (name, members) in groups {
                let key = format!("{b}/{name}");
                rows.push(Row {
                    kind: RowKind::Group {
                        bank: b,
                        name: name.clone(),
                        files: members.len(),
                    },
                    indent: 1,
                });
                if !self.collapsed.contains(&key) {
                    for f in members {
                        rows.push(Row {
                            kind: RowKind::File { bank: b, file: f },
                            indent: 2,
                        });
                    }
                }
            }
            for problem in &bank.problems {
                rows.push(Row {
                    kind: RowKind::Note(problem.clone()),
                    indent: 1,
                });
            }
        }
        self.rows = rows;
        self.cursor.clamp(self.rows.len());
    }

    fn on_action(&mut self, action: Action) -> Option<Effect> {
        match action {
            Action::Open => return self.activate(true),
            Action::Toggle => {
                self.toggle_group();
                return None;
            }
            Action::Collapse => self.collapse_or_parent(),
            other => {
                self.cursor.navigate(other, self.rows.len());
            }
        }
        None
    }

    /// The row under a click (inside the border), when there is one.
    fn row_at(&self, position: Position) -> usize {
        position.y.saturating_sub(self.area.y + 1) as usize
    }

    /// Opens the selected file, or folds the selected group.
    fn activate(&mut self, focus: bool) -> Option<Effect> {
        if let Some(RowKind::Group { .. }) = self.rows.get(self.cursor.selected).map(|r| &r.kind) {
            if focus {
                self.toggle_group();
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

    fn toggle_group(&mut self) {
        let key = match self.rows.get(self.cursor.selected).map(|r| &r.kind) {
            Some(RowKind::Group { bank, name, .. }) => format!("{bank}/{name}"),
            Some(RowKind::File { bank, file }) => {
                match self.file(*bank, *file).and_then(|f| f.file.group.clone()) {
                    Some(group) => format!("{bank}/{group}"),
                    None => return,
                }
            }
            _ => return,
        };
        if !self.collapsed.remove(&key) {
            self.collapsed.insert(key.clone());
        }
        self.rebuild();
        if let Some(index) = self.rows.iter().position(|r| match &r.kind {
            RowKind::Group { bank, name, .. } => format!("{bank}/{name}") == key,
            _ => false,
        }) {
            self.cursor.selected = index;
        }
    }

    /// Left: fold the group the cursor is in, or go up to the bank row.
    fn collapse_or_parent(&mut self) {
        let indent = self.rows.get(self.cursor.selected).map_or(0, |r| r.indent);
        if let Some(RowKind::Group { bank, name, .. }) =
            self.rows.get(self.cursor.selected).map(|r| &r.kind)
        {
            let key = format!("{bank}/{name}");
            if !self.collapsed.contains(&key) {
                self.toggle_group();
                return;
            }
        }
        if let Some(parent) = (0..self.cursor.selected)
            .rev()
            .find(|&i| self.rows[i].indent < indent)
        {
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
        let shown = self.cursor.layout(inner.height as usize, self.rows.len());
        let width = inner.width as usize;
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
        frame.render_widget(Paragraph::new(lines), inner);
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
            RowKind::Bank { bank } => {
                let bank = &report.banks[*bank];
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
                            &format!("▾ {}{folder}", bank.label),
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
            RowKind::Group { bank, name, files } => {
                let folded = self.collapsed.contains(&format!("{bank}/{name}"));
                Line::from(vec![
                    Span::raw(indent),
                    Span::styled(
                        format!(
                            "{} {}/ ({files})",
                            if folded { "▸" } else { "▾" },
                            widgets::shown(name)
                        ),
                        theme.fg(theme.accent),
                    ),
                ])
            }
            RowKind::File { bank, file } => {
                let file = &report.banks[*bank].files[*file];
                self.file_line(report, file, indent, name_width, gauges, theme)
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
        report: &ProjectReport,
        file: &FileReport,
        indent: String,
        name_width: usize,
        gauges: bool,
        theme: &Theme,
    ) -> Line<'static> {
        let name = match &file.file.memory {
            Some(memory) => memory.title.clone(),
            None => file.file.file_name().into_owned(),
        };
        let layer = file
            .file
            .layer
            .map(|l| format!("{l} "))
            .unwrap_or_else(|| "  ".into());
        let changed = self.changed.contains(&file.file.path);
        let open = self.open.as_deref() == Some(file.file.path.as_path());
        let finding = report
            .findings
            .iter()
            .filter(|f| f.file == file.file.path)
            .map(|f| f.severity)
            .max();
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
                    widgets::truncate(&name, name_width.saturating_sub(5)),
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

    fn handle(&mut self, input: Input) -> Outcome {
        let len = self.rows.len();
        let before = self.cursor.selected;
        let effect = match input {
            Input::Key(key) => match key.action {
                Some(action) if offers(COMMANDS, action) => self.on_action(action),
                _ => return Outcome::Ignored,
            },
            Input::Click(position) => {
                let row = self.row_at(position);
                if self.cursor.click(row, len) == Some(true) {
                    self.activate(true)
                } else {
                    None
                }
            }
            Input::Scroll(delta) => {
                self.cursor.scroll(delta, len);
                None
            }
            Input::Paste(_) => return Outcome::Ignored,
        };
        // Moving through the tree shows each file it lands on.
        match effect {
            Some(effect) => Outcome::effect(effect),
            None if self.cursor.selected != before => Outcome::maybe(self.activate(false)),
            None => Outcome::done(),
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
fn push_context_rows(rows: &mut Vec<Row>, context: Option<&BankContext>, file: &Path) {
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
                indent: 2,
            });
        }
    }
    for cut in context.cutoffs.iter().filter(|c| c.file == file) {
        rows.push(Row {
            kind: RowKind::CutOff {
                path: cut.file.clone(),
                text: format!(
                    "{} lines / {} bytes cut off ({})",
                    cut.dropped_lines, cut.dropped_bytes, cut.rule
                ),
            },
            indent: 2,
        });
    }
}

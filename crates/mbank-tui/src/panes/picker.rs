//! The project picker: every project under the root, fuzzy-filtered as you type, with
//! formats, file count, a token gauge, staleness, findings and last write. Rows appear
//! straight from the scan; figures fill in as the analysis worker reports them.
use std::path::PathBuf;

use crossterm::event::KeyCode;
use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config as MatcherConfig, Matcher, Utf32Str};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use mbank_core::analysis::report::ProjectReport;
use mbank_core::findings::Severity;
use mbank_core::model::Project;

use crate::keymap::{Action, KeyContext, Keymap};
use crate::list::{ListCursor, ListInput};
use crate::pane::{Effect, Input, Outcome, Pane, ViewContext, offers};
use crate::theme::Theme;
use crate::widgets;

/// How the rows are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Sort {
    /// Most recently written first.
    #[default]
    Activity,
    Name,
    /// Most loaded tokens first.
    Tokens,
    /// Stalest first.
    Staleness,
}

impl Sort {
    fn next(self) -> Sort {
        match self {
            Sort::Activity => Sort::Name,
            Sort::Name => Sort::Tokens,
            Sort::Tokens => Sort::Staleness,
            Sort::Staleness => Sort::Activity,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Sort::Activity => "recent activity",
            Sort::Name => "name",
            Sort::Tokens => "tokens",
            Sort::Staleness => "staleness",
        }
    }
}

pub struct PickerRow {
    pub project: Project,
    pub report: Option<Box<ProjectReport>>,
    /// Its memory folders as last analysed (the watcher watches them).
    pub folders: Vec<PathBuf>,
}

impl PickerRow {
    fn last_write(&self) -> Option<u64> {
        self.report.as_ref().and_then(|r| r.last_write).or_else(|| {
            self.project
                .last_write
                .and_then(mbank_core::analysis::report::epoch_seconds)
        })
    }
}

pub(crate) use crate::commands::PICKER as COMMANDS;

pub struct Picker {
    pub rows: Vec<PickerRow>,
    pub filter: String,
    pub sort: Sort,
    /// Selection, an index into `visible`.
    pub cursor: ListCursor,
    /// The selection was chosen (moved, clicked, set to the open project): it stays on
    /// its project when the order changes. Until then it stays on the first row while
    /// figures arrive and re-sort the list.
    chosen: bool,
    /// Row indices that pass the filter, in display order.
    visible: Vec<usize>,
    pub scanning: bool,
    /// Figures received / projects to count.
    pub counted: usize,
    /// Why there is nothing to show: the root is missing or unreadable.
    pub root_problem: Option<String>,
    /// Why live refresh does not cover every project (the watch limit).
    pub watch_note: Option<String>,
    pub root: PathBuf,
    /// The root as the title names it (`~/…` under the home folder).
    pub root_label: String,
    /// The open project, to mark it in the list and allow "back".
    pub current: Option<PathBuf>,
    /// Per project: agent proposals waiting for a decision, and refused agent writes
    /// not looked at yet (only projects with either).
    pub agent_badges: std::collections::HashMap<PathBuf, (usize, usize)>,
    matcher: Matcher,
    /// Figures arrived since the last sort: re-sort once before the rows are next used,
    /// not once per project (2,000 sorts of 2,000 rows while figures fill in).
    order_stale: bool,
    /// Where it was drawn, and its list of rows, at the last draw.
    area: Rect,
    list_area: Rect,
}

impl Picker {
    pub fn new(root: PathBuf, root_label: String) -> Picker {
        Picker {
            rows: Vec::new(),
            filter: String::new(),
            sort: Sort::default(),
            cursor: ListCursor::default(),
            chosen: false,
            visible: Vec::new(),
            scanning: true,
            counted: 0,
            root_problem: None,
            watch_note: None,
            root,
            root_label,
            current: None,
            agent_badges: std::collections::HashMap::new(),
            matcher: Matcher::new(MatcherConfig::DEFAULT),
            order_stale: false,
            area: Rect::default(),
            list_area: Rect::default(),
        }
    }

    /// Replaces the rows with a new scan, keeping figures of projects already counted
    /// and the selection on the same project.
    pub(crate) fn set_projects(&mut self, projects: Vec<Project>) {
        let selected = self.selected_path();
        let mut old: Vec<PickerRow> = std::mem::take(&mut self.rows);
        self.rows = projects
            .into_iter()
            .map(|project| {
                let (report, folders) = old
                    .iter_mut()
                    .find(|r| r.project.path == project.path)
                    .map(|r| (r.report.take(), std::mem::take(&mut r.folders)))
                    .unwrap_or_default();
                PickerRow {
                    project,
                    report,
                    folders,
                }
            })
            .collect();
        self.scanning = false;
        self.counted = 0;
        self.refresh();
        if let Some(path) = selected.filter(|_| self.chosen) {
            self.select_row(&path);
        }
    }

    /// Figures for one project of the current scan.
    pub fn set_report(&mut self, index: usize, report: Box<ProjectReport>, folders: Vec<PathBuf>) {
        if let Some(row) = self.rows.get_mut(index)
            && row.project.path == report.path
        {
            row.report = Some(report);
            row.folders = folders;
            self.counted += 1;
            self.figures_changed();
        }
    }

    /// A project's figures again (a write inside it), its banks as found again.
    pub(crate) fn refresh_row(
        &mut self,
        project: Project,
        report: Box<ProjectReport>,
        folders: Vec<PathBuf>,
    ) {
        if let Some(row) = self
            .rows
            .iter_mut()
            .find(|r| r.project.path == project.path)
        {
            row.project = project;
            row.report = Some(report);
            row.folders = folders;
            self.figures_changed();
        }
    }

    /// Figures change the order unless it is by name: re-sort before the next use.
    fn figures_changed(&mut self) {
        if matches!(self.sort, Sort::Tokens | Sort::Staleness | Sort::Activity) {
            self.order_stale = true;
        }
    }

    /// Applies a pending re-sort, keeping the selection on the same project. Until then
    /// the old order stays consistent (rows are only filled in, never moved).
    fn settle(&mut self) {
        if std::mem::take(&mut self.order_stale) {
            let selected = self.selected_path();
            self.refresh();
            if let Some(path) = selected.filter(|_| self.chosen) {
                self.select_row(&path);
            }
        }
    }

    /// Updates the figures of a project wherever it is (after a full analysis).
    pub(crate) fn update_report(
        &mut self,
        project: &Project,
        report: &ProjectReport,
        folders: &[PathBuf],
    ) {
        if let Some(row) = self.rows.iter_mut().find(|r| r.project.path == report.path) {
            row.project = project.clone();
            row.report = Some(Box::new(report.clone()));
            row.folders = folders.to_vec();
            self.figures_changed();
        }
    }

    /// The rows as live refresh ranks them: in the order shown (the most recently
    /// active first, by default), then those the filter hides.
    pub(crate) fn rows_by_priority(&self) -> impl Iterator<Item = &PickerRow> {
        let shown: std::collections::HashSet<usize> = self.visible.iter().copied().collect();
        self.visible.iter().map(|&i| &self.rows[i]).chain(
            self.rows
                .iter()
                .enumerate()
                .filter(move |(i, _)| !shown.contains(i))
                .map(|(_, row)| row),
        )
    }

    pub fn selected_path(&self) -> Option<PathBuf> {
        self.visible
            .get(self.cursor.selected)
            .map(|&i| self.rows[i].project.path.clone())
    }

    pub(crate) fn select_path(&mut self, path: &std::path::Path) {
        self.settle();
        self.select_row(path);
        self.chosen = true;
    }

    fn select_row(&mut self, path: &std::path::Path) {
        if let Some(position) = self
            .visible
            .iter()
            .position(|&i| self.rows[i].project.path == path)
        {
            self.cursor.selected = position;
        }
    }

    pub(crate) fn clear_filter(&mut self) {
        if !self.filter.is_empty() {
            self.filter.clear();
            self.refresh();
        }
    }

    pub fn visible_len(&self) -> usize {
        self.visible.len()
    }

    pub fn project(&self, path: &std::path::Path) -> Option<&Project> {
        self.rows
            .iter()
            .find(|r| r.project.path == path)
            .map(|r| &r.project)
    }

    pub fn projects(&self) -> impl Iterator<Item = &Project> {
        self.rows.iter().map(|r| &r.project)
    }

    /// Re-applies the filter and the sort.
    fn refresh(&mut self) {
        self.order_stale = false;
        let mut scored: Vec<(usize, u32)> = if self.filter.is_empty() {
            (0..self.rows.len()).map(|i| (i, 0)).collect()
        } else {
            let pattern = Pattern::parse(&self.filter, CaseMatching::Ignore, Normalization::Smart);
            let mut buffer = Vec::new();
            self.rows
                .iter()
                .enumerate()
                .filter_map(|(i, row)| {
                    let haystack = Utf32Str::new(&row.project.name, &mut buffer);
                    pattern.score(haystack, &mut self.matcher).map(|s| (i, s))
                })
                .collect()
        };
        let rows = &self.rows;
        let sort = self.sort;
        // Each row's session figure once per sort, not once per comparison.
        let session_tokens: Vec<Option<u64>> = if sort == Sort::Tokens {
            let tokens = |r: &PickerRow| r.report.as_ref().map(|r| r.session_tokens().tokens);
            rows.iter().map(tokens).collect()
        } else {
            Vec::new()
        };
        scored.sort_by(|&(a, score_a), &(b, score_b)| {
            let (ra, rb) = (&rows[a], &rows[b]);
            let by_sort = match sort {
                Sort::Activity => rb.last_write().cmp(&ra.last_write()),
                Sort::Name => std::cmp::Ordering::Equal,
                Sort::Tokens => session_tokens[b].cmp(&session_tokens[a]),
                Sort::Staleness => {
                    let level = |r: &PickerRow| r.report.as_ref().and_then(|r| r.worst_staleness());
                    level(rb).cmp(&level(ra))
                }
            };
            score_b
                .cmp(&score_a)
                .then(by_sort)
                .then_with(|| ra.project.name.cmp(&rb.project.name))
        });
        self.visible = scored.into_iter().map(|(i, _)| i).collect();
        self.cursor.clamp(self.visible.len());
    }

    fn on_action(&mut self, action: Action) -> Option<Effect> {
        let len = self.visible.len();
        match action {
            Action::Open => return self.selected_path().map(Effect::OpenProject),
            Action::CycleSort => {
                let selected = self.selected_path();
                self.sort = self.sort.next();
                self.refresh();
                if let Some(path) = selected {
                    self.select_path(&path);
                }
            }
            Action::OpenDemo => return Some(Effect::OpenDemo),
            Action::InitBank => return Some(Effect::AskInitBank(self.folder_for_new_bank())),
            Action::Back => {
                if !self.filter.is_empty() {
                    self.filter.clear();
                    self.refresh();
                } else {
                    return Some(Effect::BackToProject);
                }
            }
            other => {
                if self.cursor.navigate(other, len) {
                    self.chosen = true;
                }
            }
        }
        None
    }

    /// The folder a new bank goes in: the filter's text, else "my-project".
    fn folder_for_new_bank(&self) -> String {
        if self.filter.trim().is_empty() {
            "my-project".to_string()
        } else {
            self.filter.trim().replace(['/', '\\'], "-")
        }
    }

    fn type_char(&mut self, c: char) {
        self.filter.push(c);
        self.cursor.selected = 0;
        // The best match is the first row, whatever the figures arriving do.
        self.chosen = false;
        self.refresh();
    }

    /// The row of `list_area` under a click, when the click is on the list.
    fn row_at(list_area: Rect, position: Position) -> Option<usize> {
        list_area
            .contains(position)
            .then(|| (position.y - list_area.y) as usize)
    }

    /// Draws the picker; `now` (Unix seconds) dates each project's last write.
    fn draw(&mut self, frame: &mut Frame, area: Rect, theme: &Theme, keymap: &Keymap, now: u64) {
        self.settle();
        self.area = area;
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border(true))
            .title(Span::styled(" Projects ", theme.title()))
            .title(
                Line::from(Span::styled(
                    format!(" {} ", widgets::shown(&self.root_label)),
                    theme.muted(),
                ))
                .right_aligned(),
            );
        let inner = block.inner(area);
        frame.render_widget(block, area);
        let [filter_area, header_area, list_area, footer_area] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Length(1),
            Constraint::Min(1),
            Constraint::Length(1),
        ])
        .areas(inner);
        self.list_area = list_area;

        let filter = Line::from(vec![
            Span::styled(" filter ", theme.key()),
            Span::styled(
                widgets::shown(&self.filter).into_owned(),
                theme.fg(theme.text),
            ),
            Span::styled("▏", theme.fg(theme.accent)),
            Span::styled(
                format!(
                    "   {} of {} · sorted by {}",
                    self.visible.len(),
                    self.rows.len(),
                    self.sort.label()
                ),
                theme.muted(),
            ),
        ]);
        // The filter's text also names a new bank's folder: say so while it is typed.
        let mut filter = filter;
        if !self.filter.trim().is_empty()
            && let Some(key) = keymap.key_for(KeyContext::Picker, Action::InitBank)
        {
            filter.spans.push(Span::styled(
                format!(
                    " · {key}: new bank in {}/",
                    widgets::shown(&self.folder_for_new_bank())
                ),
                theme.muted(),
            ));
        }
        frame.render_widget(Paragraph::new(filter), filter_area);

        if self.rows.is_empty() {
            self.view_empty(frame, list_area, theme, keymap);
            return;
        }
        let columns = Columns::fit(
            inner.width as usize,
            self.visible.iter().map(|&i| &self.rows[i]),
            now,
        );
        let header = Line::from(Span::styled(
            columns.header(),
            theme.muted().add_modifier(Modifier::UNDERLINED),
        ));
        frame.render_widget(Paragraph::new(header), header_area);

        let shown = self
            .cursor
            .layout(list_area.height as usize, self.visible.len());
        // Names cut so that two rows never read alike.
        let names = widgets::distinct_cuts(
            &self.visible[shown.clone()]
                .iter()
                .map(|&index| {
                    let row = &self.rows[index];
                    let badge = agent_badge(self.agent_badges.get(&row.project.path).copied());
                    let badge_width = unicode_width::UnicodeWidthStr::width(badge.as_str());
                    (
                        row.project.name.as_str(),
                        columns.name.saturating_sub(badge_width).max(4),
                    )
                })
                .collect::<Vec<_>>(),
        );
        let lines: Vec<Line> = self
            .visible
            .iter()
            .enumerate()
            .skip(shown.start)
            .take(shown.len())
            .zip(&names)
            .map(|((position, &index), name)| {
                let row = &self.rows[index];
                let selected = position == self.cursor.selected;
                self.row_line(row, name, selected, now, &columns, theme)
            })
            .collect();
        frame.render_widget(Paragraph::new(lines), list_area);

        let progress = if self.scanning {
            "scanning…".to_string()
        } else if self.counted < self.rows.len() {
            format!("counting tokens {}/{}", self.counted, self.rows.len())
        } else {
            String::new()
        };
        let mut footer = vec![Span::styled(progress, theme.fg(theme.accent))];
        if let Some(note) = &self.watch_note {
            let gap = if footer[0].content.is_empty() {
                ""
            } else {
                "  "
            };
            footer.push(Span::styled(
                format!("{gap}▲ {}", widgets::shown(note)),
                theme.fg(theme.warning),
            ));
        }
        if let Some(open) = self
            .current
            .as_deref()
            .and_then(|path| self.rows.iter().find(|r| r.project.path == path))
        {
            let gap = if footer.iter().all(|s| s.content.is_empty()) {
                ""
            } else {
                "  "
            };
            let back = keymap
                .key_for(KeyContext::Picker, Action::Back)
                .map(|key| format!(" ({key}: back to it)"))
                .unwrap_or_default();
            footer.push(Span::styled(
                format!(
                    "{gap}• {} is open{back}",
                    widgets::shown(&open.project.name)
                ),
                theme.muted(),
            ));
        }
        frame.render_widget(Paragraph::new(Line::from(footer)), footer_area);
    }

    fn row_line(
        &self,
        row: &PickerRow,
        name: &str,
        selected: bool,
        now: u64,
        columns: &Columns,
        theme: &Theme,
    ) -> Line<'static> {
        let report = row.report.as_deref();
        // The marker is where enter goes (keys and clicks move it alike); the open
        // project has a dot of its own, and the footer names it.
        let marker = if selected {
            "▸ "
        } else if self.current.as_deref() == Some(row.project.path.as_path()) {
            "• "
        } else {
            "  "
        };
        let formats: Vec<&str> = row.project.formats().iter().map(|f| f.id()).collect();
        // The agent badge takes the end of the name's column, so no other column moves.
        let badge = agent_badge(self.agent_badges.get(&row.project.path).copied());
        let badge_width = unicode_width::UnicodeWidthStr::width(badge.as_str());
        let name_width = columns.name.saturating_sub(badge_width).max(4);
        let mut spans = vec![
            Span::styled(marker.to_string(), theme.fg(theme.accent)),
            Span::styled(
                widgets::fit(name, name_width),
                theme.fg(theme.text).add_modifier(Modifier::BOLD),
            ),
            Span::styled(badge, theme.fg(theme.warning).add_modifier(Modifier::BOLD)),
            Span::raw(" "),
        ];
        if columns.formats > 0 {
            spans.push(Span::styled(
                widgets::fit(&formats.join(","), columns.formats),
                theme.fg(theme.accent),
            ));
            spans.push(Span::raw(" "));
        }
        match report {
            Some(report) => {
                if columns.files {
                    spans.push(Span::styled(
                        format!("{:>5}", report.file_count()),
                        theme.fg(theme.text),
                    ));
                    spans.push(Span::raw("  "));
                }
                spans.extend(widgets::session_gauge(
                    &widgets::SessionGauge::of(report),
                    columns.bar,
                    columns.agent,
                    theme,
                ));
                spans.push(Span::raw("  "));
                spans.push(if columns.stale_word {
                    widgets::freshness_badge(report.worst_staleness(), theme)
                } else {
                    widgets::freshness_glyph(report.worst_staleness(), theme)
                });
                spans.push(Span::raw("  "));
                spans.push(findings_badge(report, columns.findings(), theme));
            }
            None => {
                let files = if columns.files { "    ·  " } else { "" };
                spans.push(Span::styled(
                    format!(
                        "{files}{:<gauge$}  {:<stale$}  {:<findings$}",
                        "counting…",
                        "",
                        "",
                        gauge = columns.gauge(),
                        stale = columns.stale(),
                        findings = columns.findings(),
                    ),
                    theme.muted(),
                ));
            }
        }
        if columns.written > 0 {
            spans.push(Span::styled(
                format!(
                    " {:>width$}",
                    widgets::ago(row.last_write(), now),
                    width = columns.written
                ),
                theme.muted(),
            ));
        }
        let mut line = Line::from(spans);
        if selected {
            line = line.patch_style(theme.selected());
        }
        line
    }

    fn view_empty(&self, frame: &mut Frame, area: Rect, theme: &Theme, keymap: &Keymap) {
        let key = |action| {
            keymap
                .key_for(KeyContext::Picker, action)
                .map(|k| k.to_string())
                .unwrap_or_else(|| "?".into())
        };
        let mut lines = vec![Line::from("")];
        if self.scanning {
            lines.push(Line::from(Span::styled(
                "  Scanning for memory banks…",
                theme.muted(),
            )));
        } else {
            let headline = match &self.root_problem {
                Some(problem) => widgets::shown(problem).into_owned(),
                None if self.filter.is_empty() => format!(
                    "No memory banks under {} (looked for {}).",
                    widgets::shown(&self.root_label),
                    mbank_core::formats::looked_for()
                ),
                None => format!("No project matches {:?}.", self.filter),
            };
            lines.push(Line::from(Span::styled(
                format!("  {headline}"),
                theme.fg(theme.warning),
            )));
            lines.push(Line::from(""));
            lines.push(Line::from("  Set the root with --root DIR, the MEMORY_BANK_ROOT variable, or `root = \"…\"` in config.toml."));
            lines.push(Line::from(vec![
                Span::raw("  Press "),
                Span::styled(key(Action::OpenDemo), theme.key()),
                Span::raw(" to explore the bundled demo banks, or "),
                Span::styled(key(Action::InitBank), theme.key()),
                Span::raw(" to create a memory bank in the root."),
            ]));
        }
        frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), area);
    }
}

impl Pane for Picker {
    fn context(&self) -> KeyContext {
        KeyContext::Picker
    }

    fn handle(&mut self, input: Input) -> Outcome {
        self.settle();
        let len = self.visible.len();
        let list_area = self.list_area;
        let row_at = |position| Self::row_at(list_area, position);
        // Pastes do not go into the picker's filter.
        match self.cursor.apply(input, len, row_at, None) {
            ListInput::Key(key) => match key.action {
                Some(action) if offers(COMMANDS, action) => Outcome::maybe(self.on_action(action)),
                // A global key: not the picker's.
                Some(_) => Outcome::Ignored,
                None => match (key.typed(), key.event.code) {
                    (Some(c), _) => {
                        self.type_char(c);
                        Outcome::done()
                    }
                    (None, KeyCode::Backspace) => {
                        self.filter.pop();
                        self.refresh();
                        Outcome::done()
                    }
                    _ => Outcome::Ignored,
                },
            },
            ListInput::Selected { again: true } => {
                Outcome::maybe(self.selected_path().map(Effect::OpenProject))
            }
            ListInput::Selected { again: false } | ListInput::Scrolled => {
                self.chosen = true;
                Outcome::done()
            }
            ListInput::Missed => Outcome::done(),
            ListInput::Filtered | ListInput::Ignored => Outcome::Ignored,
        }
    }

    fn view(&mut self, frame: &mut Frame, area: Rect, cx: &ViewContext) {
        self.draw(frame, area, cx.theme, cx.keymap, cx.clock.epoch_seconds());
    }

    fn area(&self) -> Rect {
        self.area
    }
}

/// The findings' worst severity and count, padded to `width` cells.
fn findings_badge(report: &ProjectReport, width: usize, theme: &Theme) -> Span<'static> {
    let count = |severity| {
        report
            .findings
            .iter()
            .filter(|f| f.severity == severity)
            .count()
    };
    let (errors, warnings) = (count(Severity::Error), count(Severity::Warning));
    if errors > 0 {
        Span::styled(
            widgets::fit(&format!("✖ {errors}"), width),
            widgets::severity_color(theme, Severity::Error),
        )
    } else if warnings > 0 {
        Span::styled(
            widgets::fit(&format!("▲ {warnings}"), width),
            widgets::severity_color(theme, Severity::Warning),
        )
    } else {
        Span::styled(widgets::fit("✔", width), theme.fg(theme.ok))
    }
}

/// The picker's columns for a width and the rows shown. They go by priority as the
/// screen narrows: the gauge's bar first, then whose session it is, the formats, the
/// file count, the staleness word (its glyph stays), the last write, and the findings'
/// word; the name and the token figure always stay. The header is drawn from the same
/// columns, so it always sits over its data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Columns {
    pub name: usize,
    /// The formats' width (0: not shown).
    pub formats: usize,
    pub files: bool,
    /// The gauge's bar (0: the figure and verdict only).
    pub bar: usize,
    /// Whose session the figure is, after the verdict (the header names it too).
    pub agent: bool,
    /// The staleness as glyph and word (else the glyph alone).
    pub stale_word: bool,
    /// The findings as glyph and count in 9 cells (else in 4).
    pub findings_wide: bool,
    /// The last write's width (0: not shown).
    pub written: usize,
}

impl Columns {
    /// The bar a wide screen draws.
    const BAR: usize = 8;
    /// Names get at least this much (or their longest) before a lower column stays.
    const NAME_ROOM: usize = 16;

    pub fn fit<'a>(width: usize, rows: impl Iterator<Item = &'a PickerRow>, now: u64) -> Columns {
        let (mut longest_name, mut longest_formats, mut written) = (7, 7, 7);
        for row in rows {
            longest_name = longest_name.max(unicode_width::UnicodeWidthStr::width(
                widgets::shown(&row.project.name).as_ref(),
            ));
            let formats: Vec<&str> = row.project.formats().iter().map(|f| f.id()).collect();
            longest_formats = longest_formats.max(formats.join(",").chars().count());
            written = written.max(widgets::ago(row.last_write(), now).chars().count());
        }
        let mut columns = Columns {
            name: 0,
            formats: longest_formats,
            files: true,
            bar: Self::BAR,
            agent: true,
            stale_word: true,
            findings_wide: true,
            written,
        };
        // The formats count at the width a cut list of them still reads at.
        let wanted = |c: &Columns| {
            let formats = if c.formats > 0 {
                longest_formats.min(7)
            } else {
                0
            };
            c.fixed() + longest_name.min(Self::NAME_ROOM) + formats
        };
        let steps: [fn(&mut Columns); 7] = [
            |c| c.bar = 0,
            |c| c.agent = false,
            |c| c.formats = 0,
            |c| c.files = false,
            |c| c.stale_word = false,
            |c| c.written = 0,
            |c| c.findings_wide = false,
        ];
        for step in steps {
            if width >= wanted(&columns) {
                break;
            }
            step(&mut columns);
        }
        let room = width.saturating_sub(columns.fixed());
        if columns.formats == 0 {
            columns.name = room;
            return columns;
        }
        // The name first (up to its longest), then the formats, then the name again.
        let name = longest_name.min(room.saturating_sub(longest_formats.min(room / 3)));
        let name = name.max(room.min(8));
        let formats = longest_formats.min(room.saturating_sub(name));
        let name = (name + room.saturating_sub(name + formats)).min(longest_name.max(name));
        columns.name = name;
        columns.formats = formats;
        columns
    }

    /// Every column's cells but the name's and the formats' (their gaps included).
    fn fixed(&self) -> usize {
        let formats = usize::from(self.formats > 0);
        let files = if self.files { 5 + 2 } else { 0 };
        let written = if self.written > 0 {
            1 + self.written
        } else {
            0
        };
        // Marker, gaps, files, gauge, staleness, findings, written.
        2 + 1 + formats + files + self.gauge() + 2 + self.stale() + 2 + self.findings() + written
    }

    /// The gauge's width: bar, figure and verdict.
    pub fn gauge(&self) -> usize {
        widgets::session_gauge_width(self.bar, self.agent)
    }

    fn stale(&self) -> usize {
        if self.stale_word { 7 } else { 1 }
    }

    fn findings(&self) -> usize {
        if self.findings_wide { 9 } else { 4 }
    }

    pub fn header(&self) -> String {
        let mut header = format!("  {:<name$} ", "project", name = self.name);
        if self.formats > 0 {
            header.push_str(&format!("{:<w$} ", "formats", w = self.formats));
        }
        if self.files {
            header.push_str("files  ");
        }
        let gauge = if self.agent {
            "tokens · budget · session"
        } else {
            "tokens · budget"
        };
        header.push_str(&widgets::fit(gauge, self.gauge()));
        header.push_str("  ");
        header.push_str(&widgets::fit(
            if self.stale_word { "stale" } else { "s" },
            self.stale(),
        ));
        header.push_str("  ");
        header.push_str(&widgets::fit(
            if self.findings_wide {
                "findings"
            } else {
                "find"
            },
            self.findings(),
        ));
        if self.written > 0 {
            header.push_str(&format!(" {:>w$}", "written", w = self.written));
        }
        header
    }
}

/// " ⧗2 ⊘1": proposals waiting for a decision, refused writes not looked at yet.
fn agent_badge(counts: Option<(usize, usize)>) -> String {
    let Some((pending, refused)) = counts else {
        return String::new();
    };
    let mut badge = String::new();
    if pending > 0 {
        badge.push_str(&format!(" ⧗{pending}"));
    }
    if refused > 0 {
        badge.push_str(&format!(" ⊘{refused}"));
    }
    badge
}

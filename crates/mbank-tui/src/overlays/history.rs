//! The history of one memory file: the versions mbank replaced (newest first, with when,
//! by whom, their size and what the write that replaced each changed), the chosen one's
//! diff against the file now or against the version before it, and restoring it.
//!
//! Nothing here reads the disk: the app lists the history and computes each diff in jobs
//! and hands the answers in (`HistoryView::on_listed`, `HistoryView::on_diffed`);
//! the overlay asks for the diff it wants next as an [`Effect`]. A restore is asked for
//! here and confirmed and carried out by the app, which refuses it over unsaved edits.
use std::path::PathBuf;

use chrono::{DateTime, FixedOffset, Local, Utc};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};
use unicode_width::UnicodeWidthChar;

use crate::keymap::{Action, KeyContext};
use crate::message::{HistoryListing, ListedVersion, VersionCompare};
use crate::pane::{Effect, Input, Outcome, Pane, ViewContext};
use crate::protocol::{DiffBase, DiffKey, HistoryRequest};
use crate::theme::Theme;
use crate::widgets;
use mbank_core::markup::sanitize;
use mbank_core::review::{DiffLine, LineKind};

/// Visual lines of one diff drawn at most; the rest is named, with the command that
/// prints it whole (a 16 MB file rewritten must not make every frame slow).
const MAX_DIFF_ROWS: usize = 20_000;
/// The line numbers and the sign before a diff line's text: `" 12   13 + "`.
const GUTTER: usize = 12;

/// Where times are read and shown: the system's clock and time zone, unless a test fixes
/// them (a snapshot must draw the same on every machine, any day).
#[derive(Debug, Clone, Copy, Default)]
pub struct DisplayClock {
    pub now: Option<DateTime<Utc>>,
    pub utc_offset: Option<FixedOffset>,
}

impl DisplayClock {
    fn now(&self) -> DateTime<Utc> {
        self.now.unwrap_or_else(Utc::now)
    }

    /// `at` in local time, to the minute.
    fn local(&self, at: DateTime<Utc>) -> String {
        const FORMAT: &str = "%Y-%m-%d %H:%M";
        match self.utc_offset {
            Some(offset) => at.with_timezone(&offset).format(FORMAT).to_string(),
            None => at.with_timezone(&Local).format(FORMAT).to_string(),
        }
    }

    /// An RFC 3339 time as ("2026-11-25 14:05", "2 h ago"); one that does not parse is
    /// shown as written, with no age.
    fn describe(&self, at: &str) -> (String, String) {
        let Ok(time) = DateTime::parse_from_rfc3339(at) else {
            return (widgets::shown(at).into_owned(), String::new());
        };
        let time = time.with_timezone(&Utc);
        let then = u64::try_from(time.timestamp()).ok();
        let now = u64::try_from(self.now().timestamp()).unwrap_or(0);
        let ago = widgets::ago(then, now);
        let ago = if ago == "just now" {
            ago
        } else {
            format!("{ago} ago")
        };
        (self.local(time), ago)
    }
}

/// "1,234 B", "12.5 KB", "3.1 MB".
fn size_label(bytes: u64) -> String {
    match bytes {
        0..10_000 => {
            let digits = bytes.to_string();
            let mut out = String::new();
            for (i, c) in digits.chars().enumerate() {
                if i > 0 && (digits.len() - i).is_multiple_of(3) {
                    out.push(',');
                }
                out.push(c);
            }
            format!("{out} B")
        }
        10_000..1_000_000 => format!("{:.1} KB", bytes as f64 / 1_000.0),
        _ => format!("{:.1} MB", bytes as f64 / 1_000_000.0),
    }
}

/// The diff's lines as drawn last, for one comparison, width and theme.
#[derive(Debug)]
struct RenderedDiff {
    key: DiffKey,
    width: usize,
    theme: String,
    lines: Vec<Line<'static>>,
}

#[derive(Debug)]
pub struct HistoryView {
    /// The file whose history this is.
    pub path: PathBuf,
    /// Its name as titles show it.
    pub name: String,
    /// Why a restore is not offered here (`None`: it is).
    pub restore_refusal: Option<String>,
    /// The versions, or why they cannot be read (`None`: being read).
    pub listing: Option<Result<HistoryListing, String>>,
    /// Index into the versions, newest first.
    pub selected: usize,
    /// Compare with the version before the chosen one instead of the file now.
    pub against_previous: bool,
    /// The comparison shown (or why it could not be made).
    pub diff: Option<(DiffKey, Result<Box<VersionCompare>, String>)>,
    /// The first diff row on screen.
    pub scroll: usize,
    pub clock: DisplayClock,
    /// The first version row on screen.
    list_top: usize,
    page: usize,
    rendered: Option<RenderedDiff>,
    area: Rect,
    list_area: Rect,
}

impl HistoryView {
    pub fn new(path: PathBuf, name: String, restore_refusal: Option<String>) -> HistoryView {
        HistoryView {
            path,
            name,
            restore_refusal,
            listing: None,
            selected: 0,
            against_previous: false,
            diff: None,
            scroll: 0,
            clock: DisplayClock::default(),
            list_top: 0,
            page: 10,
            rendered: None,
            area: Rect::default(),
            list_area: Rect::default(),
        }
    }

    /// The versions listed, newest first (none while reading or after an error).
    pub fn versions(&self) -> &[ListedVersion] {
        match &self.listing {
            Some(Ok(listing)) => &listing.versions,
            _ => &[],
        }
    }

    fn chosen(&self) -> Option<&ListedVersion> {
        self.versions().get(self.selected)
    }

    /// The comparison the overlay wants to show now (`None`: nothing to compare, as for
    /// the oldest version against the one before it).
    pub fn wanted(&self) -> Option<DiffKey> {
        let chosen = self.chosen()?;
        let base = if self.against_previous {
            DiffBase::Version(self.versions().get(self.selected + 1)?.version.version)
        } else {
            DiffBase::Now
        };
        Some(DiffKey {
            version: chosen.version.version,
            base,
        })
    }

    /// The diff to ask for, unless it is shown already.
    fn diff_request(&self) -> Option<Effect> {
        let key = self.wanted()?;
        if self.diff.as_ref().is_some_and(|(shown, _)| *shown == key) {
            return None;
        }
        Some(Effect::History(HistoryRequest::Diff {
            path: self.path.clone(),
            key,
        }))
    }

    /// The versions arrived (again, after a restore): the chosen version stays chosen
    /// when it is still listed. Returns the diff to ask for.
    pub(crate) fn on_listed(&mut self, result: Result<HistoryListing, String>) -> Option<Effect> {
        let chosen = self.chosen().map(|v| v.version.version);
        self.listing = Some(result);
        let versions = self.versions();
        self.selected = chosen
            .and_then(|number| versions.iter().position(|v| v.version.version == number))
            .unwrap_or(0)
            .min(versions.len().saturating_sub(1));
        // The file may have changed: every comparison with it is computed again.
        self.diff = None;
        self.rendered = None;
        self.diff_request()
    }

    /// What the writes that replaced the listed versions changed, by version number.
    pub(crate) fn on_counted(&mut self, changes: &[(u64, (usize, usize))]) {
        if let Some(Ok(listing)) = &mut self.listing {
            for listed in &mut listing.versions {
                if let Some((_, lines)) = changes.iter().find(|(n, _)| *n == listed.version.version)
                {
                    listed.lines = Some(*lines);
                }
            }
        }
    }

    /// A comparison arrived; one no longer wanted is dropped. Returns the one still to
    /// ask for when it is not this one.
    pub(crate) fn on_diffed(
        &mut self,
        key: DiffKey,
        result: Result<Box<VersionCompare>, String>,
    ) -> Option<Effect> {
        if self.wanted() == Some(key) {
            self.diff = Some((key, result));
            self.rendered = None;
            None
        } else {
            self.diff_request()
        }
    }

    fn select(&mut self, index: usize) -> Outcome {
        let last = self.versions().len().saturating_sub(1);
        let index = index.min(last);
        if index != self.selected {
            self.selected = index;
            self.scroll = 0;
        }
        Outcome::maybe(self.diff_request())
    }

    fn update(&mut self, action: Action) -> Outcome {
        match action {
            Action::Back => Outcome::effect(Effect::CloseOverlay),
            Action::Up => self.select(self.selected.saturating_sub(1)),
            Action::Down => self.select(self.selected + 1),
            Action::Top => self.select(0),
            Action::Bottom => self.select(usize::MAX),
            Action::PageUp => {
                self.scroll = self.scroll.saturating_sub(self.page);
                Outcome::done()
            }
            Action::PageDown => {
                self.scroll += self.page;
                Outcome::done()
            }
            Action::ToggleDiffBase => {
                self.against_previous = !self.against_previous;
                self.scroll = 0;
                Outcome::maybe(self.diff_request())
            }
            Action::Restore => self.ask_restore(),
            _ => Outcome::done(),
        }
    }

    fn ask_restore(&self) -> Outcome {
        if let Some(why) = &self.restore_refusal {
            return Outcome::effect(Effect::ToastError(why.clone()));
        }
        let Some(chosen) = self.chosen() else {
            return Outcome::effect(Effect::Toast(format!(
                "{} has no earlier version to restore",
                self.name
            )));
        };
        let (time, _) = self.clock.describe(&chosen.version.at);
        let label = format!(
            "version {} (replaced {time} by {})",
            chosen.version.version,
            widgets::shown(&chosen.version.writer)
        );
        Outcome::effect(Effect::History(HistoryRequest::AskRestore {
            path: self.path.clone(),
            version: chosen.version.version,
            label,
        }))
    }

    /// What the diff compares, for the rule above it.
    fn comparison_label(&self) -> String {
        let Some(chosen) = self.chosen() else {
            return String::new();
        };
        let number = chosen.version.version;
        match self.wanted() {
            Some(DiffKey {
                base: DiffBase::Version(base),
                ..
            }) => format!("version {base} → version {number}"),
            Some(_) => format!("version {number} → now"),
            None => format!("version {number} (the oldest kept)"),
        }
    }

    fn draw(&mut self, frame: &mut Frame, area: Rect, cx: &ViewContext) {
        let theme = cx.theme;
        let popup = super::popup_area(frame, area, 140, area.height, 2);
        self.area = popup;
        let count = self.versions().len();
        let mut title = vec![Span::styled(
            format!(" History of {} ", widgets::shown(&self.name)),
            theme.title(),
        )];
        if let Some(Ok(listing)) = &self.listing {
            title.push(Span::styled(
                format!("· {} ", mbank_core::io::text::counted(count, "version")),
                theme.fg(theme.text),
            ));
            let now = match listing.current_size {
                Some(size) => format!("· now {} ", size_label(size)),
                None => "· gone now ".to_string(),
            };
            title.push(Span::styled(now, theme.muted()));
        }
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.fg(theme.accent))
            .style(theme.base())
            .title(Line::from(title));
        let inner = block.inner(popup);
        frame.render_widget(block, popup);
        let message = match &self.listing {
            None => Some(Line::from(Span::styled(
                " reading the history…",
                theme.muted(),
            ))),
            Some(Err(problem)) => Some(Line::from(Span::styled(
                format!(" {}", widgets::shown(problem)),
                theme.fg(theme.error),
            ))),
            Some(Ok(listing)) if listing.versions.is_empty() => Some(Line::from(Span::styled(
                format!(
                    " No earlier version of {} in mbank's history yet. Every write mbank makes (an agent's, a save here, an accepted proposal, a restore) keeps the text it replaces.",
                    widgets::shown(&self.name)
                ),
                theme.fg(theme.text),
            ))),
            Some(Ok(_)) => None,
        };
        if let Some(message) = message {
            self.list_area = Rect::default();
            frame.render_widget(Paragraph::new(message).wrap(Wrap { trim: false }), inner);
            return;
        }
        // A header row and the versions, within a third of the box.
        let list_height = (count as u16 + 1).min(inner.height / 3).max(3);
        let [list_area, rule, diff_area] = Layout::vertical([
            Constraint::Length(list_height),
            Constraint::Length(1),
            Constraint::Min(1),
        ])
        .areas(inner);
        self.view_list(frame, list_area, theme);
        self.view_rule(frame, rule, theme);
        self.view_diff(frame, diff_area, theme);
    }

    fn view_list(&mut self, frame: &mut Frame, area: Rect, theme: &Theme) {
        let width = area.width as usize;
        let rows = (area.height as usize).saturating_sub(1).max(1);
        if self.selected < self.list_top {
            self.list_top = self.selected;
        } else if self.selected >= self.list_top + rows {
            self.list_top = self.selected + 1 - rows;
        }
        self.list_area = Rect {
            y: area.y + 1,
            height: area.height.saturating_sub(1),
            ..area
        };
        let versions = self.versions();
        let number_width = versions
            .iter()
            .map(|v| v.version.version.to_string().len() + 1)
            .max()
            .unwrap_or(2)
            .max(3);
        let described: Vec<(String, String)> = versions
            .iter()
            .map(|v| self.clock.describe(&v.version.at))
            .collect();
        let time_width = described
            .iter()
            .map(|(time, ago)| time.chars().count() + ago.chars().count() + 3)
            .max()
            .unwrap_or(0);
        let sizes: Vec<String> = versions
            .iter()
            .map(|v| size_label(v.version.size))
            .collect();
        let size_width = sizes.iter().map(String::len).max().unwrap_or(0).max(4);
        let lines_width = 12;
        // The writer takes what is left (a tool's name can be long).
        let fixed = 2 + number_width + 1 + time_width + 1 + size_width + 1 + lines_width;
        let writer_width = width.saturating_sub(fixed).clamp(4, 28);
        let mut lines = vec![Line::from(Span::styled(
            format!(
                "  {:<number_width$} {:<time_width$} {:<writer_width$} {:>size_width$}  {}",
                "", "replaced", "by", "size", "lines ±"
            ),
            theme.muted(),
        ))];
        for (index, version) in versions.iter().enumerate().skip(self.list_top).take(rows) {
            let selected = index == self.selected;
            let (time, ago) = &described[index];
            let marker = if selected { "▸ " } else { "  " };
            let row_style = if selected {
                theme.fg(theme.text).add_modifier(Modifier::BOLD)
            } else {
                theme.fg(theme.text)
            };
            let mut spans = vec![
                Span::styled(marker, theme.fg(theme.accent)),
                Span::styled(
                    format!(
                        "{:<number_width$} ",
                        format!("v{}", version.version.version)
                    ),
                    theme.fg(theme.accent),
                ),
                Span::styled(time.clone(), row_style),
                Span::styled(
                    format!(
                        " · {ago}{}",
                        " ".repeat(
                            time_width
                                .saturating_sub(time.chars().count() + ago.chars().count() + 3)
                        )
                    ),
                    theme.muted(),
                ),
                Span::raw(" "),
                Span::styled(
                    widgets::fit(&version.version.writer, writer_width),
                    theme.fg(theme.heading_2),
                ),
                Span::styled(format!(" {:>size_width$}  ", sizes[index]), row_style),
            ];
            match version.lines {
                Some((added, removed)) => {
                    spans.push(Span::styled(format!("+{added}"), theme.fg(theme.added)));
                    spans.push(Span::styled(
                        format!(" −{removed}"),
                        theme.fg(theme.removed),
                    ));
                }
                None => spans.push(Span::styled("—", theme.muted())),
            }
            let mut line = Line::from(spans);
            if selected {
                line = line.style(Style::default().bg(theme.selection_bg));
            }
            lines.push(line);
        }
        frame.render_widget(Paragraph::new(lines), area);
    }

    fn view_rule(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        let mut spans = vec![
            Span::styled("── ", theme.border(false)),
            Span::styled(format!("{} ", self.comparison_label()), theme.title()),
        ];
        // The figures of the comparison shown, not of one chosen before.
        if let Some((shown, Ok(compare))) = &self.diff
            && Some(*shown) == self.wanted()
        {
            spans.push(Span::styled(
                format!("+{}", compare.diff.added),
                theme.fg(theme.added),
            ));
            spans.push(Span::styled(
                format!(" −{} ", compare.diff.removed),
                theme.fg(theme.removed),
            ));
        }
        let used: usize = spans.iter().map(|s| s.width()).sum();
        spans.push(Span::styled(
            "─".repeat((area.width as usize).saturating_sub(used)),
            theme.border(false),
        ));
        frame.render_widget(Paragraph::new(Line::from(spans)), area);
    }

    fn view_diff(&mut self, frame: &mut Frame, area: Rect, theme: &Theme) {
        self.page = (area.height as usize).max(1);
        let width = area.width as usize;
        let Some(key) = self.wanted() else {
            let text = match self.chosen() {
                Some(chosen) => format!(
                    " Version {} is the oldest kept: there is no version before it to compare with.",
                    chosen.version.version
                ),
                None => String::new(),
            };
            frame.render_widget(
                Paragraph::new(Span::styled(text, theme.muted())).wrap(Wrap { trim: false }),
                area,
            );
            return;
        };
        let compare = match &self.diff {
            Some((shown, Ok(compare))) if *shown == key => compare,
            Some((shown, Err(problem))) if *shown == key => {
                frame.render_widget(
                    Paragraph::new(Span::styled(
                        format!(" cannot compare: {}", widgets::shown(problem)),
                        theme.fg(theme.error),
                    ))
                    .wrap(Wrap { trim: false }),
                    area,
                );
                return;
            }
            _ => {
                frame.render_widget(
                    Paragraph::new(Span::styled(" comparing…", theme.muted())),
                    area,
                );
                return;
            }
        };
        let stale = self
            .rendered
            .as_ref()
            .is_none_or(|r| r.key != key || r.width != width || r.theme != theme.name);
        if stale {
            self.rendered = Some(RenderedDiff {
                key,
                width,
                theme: theme.name.clone(),
                lines: diff_lines(compare, &self.path, width, theme),
            });
        }
        let lines = self.rendered.as_ref().map_or(&[][..], |r| &r.lines[..]);
        self.scroll = self.scroll.min(lines.len().saturating_sub(self.page));
        let shown: Vec<Line> = lines
            .iter()
            .skip(self.scroll)
            .take(self.page)
            .cloned()
            .collect();
        frame.render_widget(Paragraph::new(shown), area);
    }

    /// A click on a version row chooses it.
    fn click(&mut self, at: Position) -> Outcome {
        if self.list_area.contains(at) {
            let index = self.list_top + (at.y - self.list_area.y) as usize;
            if index < self.versions().len() {
                return self.select(index);
            }
        }
        Outcome::done()
    }
}

/// The comparison as wrapped rows `width` cells wide: a note, then each hunk's header and
/// lines, changed words highlighted.
fn diff_lines(
    compare: &VersionCompare,
    path: &std::path::Path,
    width: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    if let Some(note) = &compare.note {
        lines.push(Line::from(Span::styled(
            format!(" {note}"),
            theme.fg(theme.warning),
        )));
    }
    if compare.diff.is_empty() {
        lines.push(Line::from(Span::styled(
            format!(
                " {} and {} are the same.",
                compare.old_label, compare.new_label
            ),
            theme.fg(theme.ok),
        )));
        return lines;
    }
    for hunk in &compare.diff.hunks {
        lines.push(Line::from(Span::styled(hunk.header(), theme.muted())));
        for line in &hunk.lines {
            lines.extend(wrapped_line(line, width, theme));
            if lines.len() >= MAX_DIFF_ROWS {
                lines.push(Line::from(Span::styled(
                    format!(
                        " … the rest is not drawn here; `mbank history {} --diff N` prints it all",
                        widgets::shown_path(path)
                    ),
                    theme.fg(theme.warning),
                )));
                return lines;
            }
        }
    }
    lines
}

/// Styles of a diff line: the line, and its changed words.
fn line_styles(kind: LineKind, theme: &Theme) -> (Style, Style) {
    let marked = |color| {
        theme
            .fg(theme.background)
            .bg(color)
            .add_modifier(Modifier::BOLD)
    };
    match kind {
        LineKind::Added => (theme.fg(theme.added), marked(theme.added)),
        LineKind::Removed => (theme.fg(theme.removed), marked(theme.removed)),
        LineKind::Context => (theme.fg(theme.text), theme.fg(theme.text)),
    }
}

/// One piece of a line as drawn: a character (a tab as four spaces, a hidden character
/// as its marker), its width and style.
struct DrawnPiece {
    text: String,
    width: usize,
    style: Style,
    space: bool,
}

/// One diff line as rows: the line numbers and sign, then its text wrapped under them at
/// spaces (a word longer than a row is cut); tabs as four spaces, control, bidi and
/// invisible characters as the sanitiser's markers (reversed, so a reader sees them).
pub(crate) fn wrapped_line(line: &DiffLine, width: usize, theme: &Theme) -> Vec<Line<'static>> {
    let number = |n: Option<usize>| n.map_or_else(|| "    ".to_string(), |n| format!("{n:>4}"));
    let sign = match line.kind {
        LineKind::Added => "+",
        LineKind::Removed => "-",
        LineKind::Context => " ",
    };
    let (base, highlight) = line_styles(line.kind, theme);
    let marker_style = theme.fg(theme.error).add_modifier(Modifier::REVERSED);
    let text_width = width.saturating_sub(GUTTER).max(1);
    let changed_at = |offset: usize| line.changed.iter().any(|r| r.contains(&offset));
    let pieces: Vec<DrawnPiece> = line
        .text
        .char_indices()
        .map(|(offset, c)| {
            let style = if changed_at(offset) { highlight } else { base };
            let (text, style) = if c == '\t' {
                ("    ".to_string(), style)
            } else if sanitize::hidden(c).is_some() {
                (sanitize::marker(c), marker_style)
            } else {
                (c.to_string(), style)
            };
            let width = text.chars().map(|c| c.width().unwrap_or(0)).sum();
            DrawnPiece {
                text,
                width,
                style,
                space: c == ' ' || c == '\t',
            }
        })
        .collect();

    // Where each row starts: greedy, breaking after a space when the next word does not
    // fit, inside a word only when it is longer than a row.
    let mut starts = vec![0];
    let mut used = 0;
    let mut index = 0;
    while index < pieces.len() {
        let word_end = (index..pieces.len())
            .find(|&i| pieces[i].space)
            .map_or(pieces.len(), |i| i + 1);
        let word_width: usize = pieces[index..word_end].iter().map(|p| p.width).sum();
        // Trailing spaces may hang past the edge rather than start a row.
        let visible: usize = pieces[index..word_end]
            .iter()
            .filter(|p| !p.space)
            .map(|p| p.width)
            .sum();
        if used > 0 && used + visible > text_width {
            starts.push(index);
            used = 0;
        }
        if used + word_width <= text_width || visible <= text_width.saturating_sub(used) {
            used += word_width;
            index = word_end;
            continue;
        }
        // A word longer than a row: as much as fits, then the rest on the next.
        while index < word_end {
            if used > 0 && used + pieces[index].width > text_width {
                starts.push(index);
                used = 0;
            }
            used += pieces[index].width;
            index += 1;
        }
    }
    starts.push(pieces.len());

    let mut rows = Vec::new();
    for (row, bounds) in starts.windows(2).enumerate() {
        let mut spans = if row == 0 {
            vec![
                Span::styled(
                    format!("{} {} ", number(line.old_line), number(line.new_line)),
                    theme.muted(),
                ),
                Span::styled(format!("{sign} "), base),
            ]
        } else {
            vec![Span::raw(" ".repeat(GUTTER))]
        };
        let mut run = String::new();
        let mut run_style = base;
        let mut row_width = 0;
        for piece in &pieces[bounds[0]..bounds[1]] {
            // Spaces hanging past the edge are not drawn (a row's first piece always is).
            if row_width > 0 && row_width + piece.width > text_width {
                break;
            }
            row_width += piece.width;
            if piece.style != run_style && !run.is_empty() {
                spans.push(Span::styled(std::mem::take(&mut run), run_style));
            }
            run_style = piece.style;
            run.push_str(&piece.text);
        }
        if !run.is_empty() {
            spans.push(Span::styled(run, run_style));
        }
        rows.push(spans);
    }
    if line.no_newline
        && let Some(last) = rows.last_mut()
    {
        last.push(Span::styled(
            "  \\ No newline at end of file",
            theme.muted(),
        ));
    }
    rows.into_iter().map(Line::from).collect()
}

impl Pane for HistoryView {
    fn context(&self) -> KeyContext {
        KeyContext::History
    }

    fn handle(&mut self, input: Input) -> Outcome {
        match input {
            Input::Key(key) => match key.action {
                Some(action) => self.update(action),
                None => Outcome::done(),
            },
            Input::Scroll(rows) => {
                self.scroll = if rows < 0 {
                    self.scroll.saturating_sub(rows.unsigned_abs() as usize)
                } else {
                    self.scroll + rows as usize
                };
                Outcome::done()
            }
            Input::Click(at) => self.click(at),
            Input::Paste(_) => Outcome::done(),
        }
    }

    fn view(&mut self, frame: &mut Frame, area: Rect, cx: &ViewContext) {
        self.draw(frame, area, cx);
    }

    fn area(&self) -> Rect {
        self.area
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mbank_core::history::Version;
    use mbank_core::review::diff_texts;

    fn listing(numbers: &[u64]) -> HistoryListing {
        HistoryListing {
            versions: numbers
                .iter()
                .map(|&n| ListedVersion {
                    version: Version {
                        version: n,
                        at: "2026-11-25T12:00:00.000Z".into(),
                        writer: "tui".into(),
                        size: 10,
                        hash: String::new(),
                        path: PathBuf::from("/bank/notes.md"),
                        pack: 0,
                        text_at: None,
                        seen: None,
                        renamed: None,
                    },
                    lines: Some((1, 1)),
                })
                .collect(),
            current_size: Some(10),
        }
    }

    fn view() -> HistoryView {
        HistoryView::new("/bank/notes.md".into(), "notes.md".into(), None)
    }

    fn asked(effect: Option<Effect>) -> Option<DiffKey> {
        match effect {
            Some(Effect::History(HistoryRequest::Diff { key, .. })) => Some(key),
            _ => None,
        }
    }

    #[test]
    fn the_newest_version_is_compared_with_now_and_the_previous_one_on_request() {
        let mut view = view();
        let now = |version| DiffKey {
            version,
            base: DiffBase::Now,
        };
        assert_eq!(asked(view.on_listed(Ok(listing(&[3, 2, 1])))), Some(now(3)));
        view.against_previous = true;
        assert_eq!(
            view.wanted(),
            Some(DiffKey {
                version: 3,
                base: DiffBase::Version(2)
            })
        );
        // The oldest has none before it: nothing to ask, and the view says why.
        view.selected = 2;
        assert_eq!(view.wanted(), None);
    }

    #[test]
    fn a_diff_that_arrives_after_the_choice_moved_on_is_dropped_and_the_wanted_one_asked() {
        let mut view = view();
        let _ = view.on_listed(Ok(listing(&[3, 2, 1])));
        let first = view.wanted().unwrap();
        let _ = view.select(1);
        let compare = VersionCompare {
            diff: diff_texts("a\n", "b\n"),
            old_label: "version 3".into(),
            new_label: "now".into(),
            note: None,
        };
        let again = view.on_diffed(first, Ok(Box::new(compare)));
        assert!(view.diff.is_none());
        assert_eq!(asked(again), view.wanted());
        assert_eq!(view.wanted().unwrap().version, 2);
    }

    #[test]
    fn a_new_listing_keeps_the_chosen_version_chosen() {
        let mut view = view();
        let _ = view.on_listed(Ok(listing(&[3, 2, 1])));
        let _ = view.select(2);
        let _ = view.on_listed(Ok(listing(&[4, 3, 2, 1])));
        assert_eq!(view.chosen().unwrap().version.version, 1);
        let _ = view.on_listed(Ok(listing(&[])));
        assert_eq!(view.selected, 0);
        assert!(view.wanted().is_none());
    }

    #[test]
    fn long_lines_wrap_under_their_text_and_hidden_characters_show() {
        let theme = Theme::default();
        let diff = diff_texts("short\n", &format!("{}\u{202e}end\n", "x".repeat(30)));
        let added = diff.hunks[0]
            .lines
            .iter()
            .find(|l| l.kind == LineKind::Added)
            .unwrap();
        let rows: Vec<String> = wrapped_line(added, GUTTER + 10, &theme)
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect();
        assert_eq!(rows[0], format!("        1 + {}", "x".repeat(10)));
        assert!(rows.len() >= 4, "{rows:?}");
        assert!(
            rows.iter().all(|r| r.chars().count() <= GUTTER + 10),
            "{rows:?}"
        );
        assert!(rows[1].starts_with(&" ".repeat(GUTTER)), "{rows:?}");
        // The text, rows joined again, is the line's with the marker in place.
        let text: String = rows.iter().map(|r| &r[GUTTER..]).collect();
        assert_eq!(text, format!("{}⟨U+202E⟩end", "x".repeat(30)));
    }

    /// The overlay drawn on a 100x30 screen, as text.
    fn drawn(view: &mut HistoryView) -> String {
        use ratatui::backend::TestBackend;
        let theme = Theme::default();
        let keymap = crate::keymap::Keymap::load(None, None).unwrap();
        let mut terminal = ratatui::Terminal::new(TestBackend::new(100, 30)).unwrap();
        let cx = ViewContext {
            theme: &theme,
            keymap: &keymap,
            focused: true,
            clock: mbank_core::clock::Clock::fixed_on(2026, 11, 28).unwrap(),
        };
        terminal
            .draw(|frame| view.view(frame, frame.area(), &cx))
            .unwrap();
        crate::driver::buffer_text(terminal.backend().buffer())
    }

    #[test]
    fn a_history_that_cannot_be_read_says_why_instead_of_listing() {
        let mut view = view();
        let asked = view.on_listed(Err("cannot read the history: permission denied".into()));
        assert!(asked.is_none());
        let screen = drawn(&mut view);
        assert!(
            screen.contains("cannot read the history: permission denied"),
            "{screen}"
        );
        // A restore has no version to name.
        assert!(matches!(
            view.update(Action::Restore),
            Outcome::Consumed(effects) if matches!(effects.as_slice(), [Effect::Toast(_)])
        ));
    }

    #[test]
    fn a_version_whose_diff_failed_shows_the_reason() {
        let mut view = view();
        let key = asked(view.on_listed(Ok(listing(&[2, 1])))).unwrap();
        let _ = view.on_diffed(key, Err("the version's text is missing".into()));
        let screen = drawn(&mut view);
        assert!(
            screen.contains("cannot compare: the version's text is missing"),
            "{screen}"
        );
    }

    #[test]
    fn an_infinity_store_is_not_restored_from_here_and_says_how() {
        let mut view = HistoryView::new(
            "/bank/memories.json".into(),
            "memories.json (the whole store)".into(),
            Some("restore it with `mbank restore`".into()),
        );
        let _ = view.on_listed(Ok(listing(&[1])));
        match view.update(Action::Restore) {
            Outcome::Consumed(effects) => assert!(
                matches!(effects.as_slice(), [Effect::ToastError(why)] if why.contains("mbank restore")),
                "{effects:?}"
            ),
            Outcome::Ignored => panic!("the overlay keeps its keys"),
        }
    }

    #[test]
    fn changed_words_are_marked_and_the_rest_of_the_line_is_not() {
        let theme = Theme::default();
        let diff = diff_texts("Wiring the adapter\n", "Adding the adapter\n");
        let (_, marked) = line_styles(LineKind::Added, &theme);
        let added = diff.hunks[0]
            .lines
            .iter()
            .find(|l| l.kind == LineKind::Added)
            .unwrap();
        let row = &wrapped_line(added, 80, &theme)[0];
        let marked_text: String = row
            .spans
            .iter()
            .filter(|s| s.style == marked)
            .map(|s| s.content.as_ref())
            .collect();
        assert_eq!(marked_text, "Adding");
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(size_label(0), "0 B");
        assert_eq!(size_label(1234), "1,234 B");
        assert_eq!(size_label(12_500), "12.5 KB");
        assert_eq!(size_label(3_100_000), "3.1 MB");
    }
}

//! Search over every project's memory (and the agents' stores in the home folder, each
//! named as its project: "Codex memories (~/.codex/memories)"): a query line that narrows
//! the results as it is typed (the search runs on the search worker, never on the drawing
//! thread), the best passages with their project, file, line and headings and the matching
//! words marked, and Enter to open the file at that line in its project.
use crossterm::event::KeyCode;
use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use mbank_core::search::Hit;

use crate::keymap::{Action, KeyContext};
use crate::list::{ListCursor, ListInput, PasteRule};
use crate::pane::{Effect, Input, Outcome, Pane, ViewContext};
use crate::theme::Theme;
use crate::widgets;

/// Rows one result takes: its place, then its best line.
const ROWS_PER_HIT: usize = 2;
/// The longest query kept (a paste of a whole file is not a question).
const MAX_QUERY_CHARS: usize = 200;

/// Where the search stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchState {
    /// Nothing typed yet.
    Empty,
    /// A search for the current query is running.
    Searching,
    Done,
    Failed(String),
}

#[derive(Debug)]
pub struct SearchView {
    pub query: String,
    pub hits: Vec<Hit>,
    pub state: SearchState,
    /// Which search the results must answer: older answers are dropped.
    pub generation: u64,
    pub cursor: ListCursor,
    area: Rect,
    list_area: Rect,
}

impl Default for SearchView {
    fn default() -> Self {
        SearchView {
            query: String::new(),
            hits: Vec::new(),
            state: SearchState::Empty,
            generation: 0,
            cursor: ListCursor::default(),
            area: Rect::default(),
            list_area: Rect::default(),
        }
    }
}

impl SearchView {
    /// The query changed: a new search, unless nothing is left to search for.
    fn changed(&mut self) -> Outcome {
        self.generation += 1;
        self.cursor = ListCursor::default();
        if self.query.trim().is_empty() {
            self.hits.clear();
            self.state = SearchState::Empty;
            return Outcome::done();
        }
        self.state = SearchState::Searching;
        Outcome::effect(Effect::Search {
            generation: self.generation,
            query: self.query.clone(),
        })
    }

    /// The search worker's answer for search `generation`.
    pub(crate) fn on_results(&mut self, generation: u64, result: Result<Vec<Hit>, String>) {
        if generation != self.generation {
            return;
        }
        match result {
            Ok(hits) => {
                self.hits = hits;
                self.state = SearchState::Done;
            }
            Err(problem) => {
                self.hits.clear();
                self.state = SearchState::Failed(problem);
            }
        }
        self.cursor.clamp(self.hits.len());
    }

    fn open_selected(&self) -> Outcome {
        let Some(hit) = self.hits.get(self.cursor.selected) else {
            return Outcome::done();
        };
        let line = hit.snippet.line.max(hit.start_line) as usize;
        if hit.home_store {
            // Only a project's files open here; the store's file is named for an editor.
            return Outcome::Consumed(vec![Effect::Toast(format!(
                "{}:{line} is in {}, outside every project: mbank opens projects' files only",
                hit.display, hit.project
            ))]);
        }
        Outcome::Consumed(vec![
            Effect::CloseOverlay,
            Effect::OpenAt {
                project: hit.project_path.clone().into(),
                path: hit.file.clone().into(),
                line,
            },
        ])
    }

    fn status_line(&self, theme: &Theme) -> Line<'static> {
        let text = match &self.state {
            SearchState::Empty => "type to search every project's memory".to_string(),
            SearchState::Searching => "searching…".to_string(),
            SearchState::Done if self.hits.is_empty() => "nothing found".to_string(),
            SearchState::Done => format!(
                "{} result{}",
                self.hits.len(),
                if self.hits.len() == 1 { "" } else { "s" }
            ),
            SearchState::Failed(problem) => format!("search failed: {problem}"),
        };
        let style = match self.state {
            SearchState::Failed(_) => theme.fg(theme.error),
            _ => theme.muted(),
        };
        Line::from(Span::styled(widgets::shown(&text).into_owned(), style))
    }

    /// A result's two rows, cut to `width` cells.
    fn hit_lines(hit: &Hit, selected: bool, width: usize, theme: &Theme) -> [Line<'static>; 2] {
        let mut place = format!("{}:{}", hit.display, hit.snippet.line.max(hit.start_line));
        if !hit.headings.is_empty() {
            place.push_str(" › ");
            place.push_str(&hit.headings.join(" › "));
        }
        if let Some(decision) = &hit.decision {
            place.push_str(&format!(
                "  [{} {}]",
                decision.status,
                decision.date.as_deref().unwrap_or("undated")
            ));
        }
        let project = widgets::shown(&hit.project).into_owned();
        let room = width.saturating_sub(project.chars().count() + 2);
        let head_style = if selected {
            theme.selected()
        } else {
            theme.base()
        };
        let first = Line::from(vec![
            Span::styled(project, head_style.add_modifier(Modifier::BOLD)),
            Span::styled("  ", head_style),
            Span::styled(
                widgets::truncate(&widgets::shown(&place), room),
                if selected { head_style } else { theme.muted() },
            ),
        ]);
        // The snippet's line that holds the most matches (its first, without any).
        let snippet = &hit.snippet.text;
        let mut best: Option<(usize, usize, &str)> = None;
        let mut line_start = 0;
        for line in snippet.split('\n') {
            let end = line_start + line.len();
            let marks = hit
                .snippet
                .marks
                .iter()
                .filter(|&&(s, e)| s >= line_start && e <= end)
                .count();
            if !line.trim().is_empty() && best.is_none_or(|(most, _, _)| marks > most) {
                best = Some((marks, line_start, line));
            }
            line_start = end + 1;
        }
        let (_, start, text) = best.unwrap_or((0, 0, ""));
        let mut spans = vec![Span::raw("  ")];
        let mut at = 0;
        for &(mark_start, mark_end) in &hit.snippet.marks {
            let (from, to) = (
                mark_start.saturating_sub(start).min(text.len()),
                mark_end.saturating_sub(start).min(text.len()),
            );
            if mark_end <= start || from >= text.len() || from < at {
                continue;
            }
            if !text.is_char_boundary(from) || !text.is_char_boundary(to) {
                continue;
            }
            spans.push(Span::styled(
                widgets::shown(&text[at..from]).into_owned(),
                theme.fg(theme.text),
            ));
            spans.push(Span::styled(
                widgets::shown(&text[from..to]).into_owned(),
                theme.key(),
            ));
            at = to;
        }
        spans.push(Span::styled(
            widgets::shown(&text[at..]).into_owned(),
            theme.fg(theme.text),
        ));
        [first, Line::from(spans)]
    }
}

impl Pane for SearchView {
    fn context(&self) -> KeyContext {
        KeyContext::Search
    }

    fn handle(&mut self, input: Input) -> Outcome {
        let len = self.hits.len();
        let list_area = self.list_area;
        let rows = move |position: Position| {
            list_area
                .contains(position)
                .then(|| (position.y - list_area.y) as usize / ROWS_PER_HIT)
        };
        let before = self.query.clone();
        let applied = self.cursor.apply(
            input,
            len,
            rows,
            Some((&mut self.query, PasteRule::FirstLine)),
        );
        match applied {
            ListInput::Filtered => {
                self.query = self.query.chars().take(MAX_QUERY_CHARS).collect();
                if self.query == before {
                    return Outcome::done();
                }
                self.changed()
            }
            ListInput::Selected { again: true } => self.open_selected(),
            ListInput::Selected { again: false }
            | ListInput::Scrolled
            | ListInput::Missed
            | ListInput::Ignored => Outcome::done(),
            ListInput::Key(key) => {
                if let Some(action) = key.action {
                    if self.cursor.navigate(action, len) {
                        return Outcome::done();
                    }
                    return match action {
                        Action::Open => self.open_selected(),
                        Action::Back | Action::Quit => Outcome::effect(Effect::CloseOverlay),
                        _ => Outcome::done(),
                    };
                }
                if key.event.code == KeyCode::Backspace {
                    if self.query.pop().is_none() {
                        return Outcome::done();
                    }
                    return self.changed();
                }
                match key.typed() {
                    Some(c) if self.query.chars().count() < MAX_QUERY_CHARS => {
                        self.query.push(c);
                        self.changed()
                    }
                    _ => Outcome::done(),
                }
            }
        }
    }

    fn view(&mut self, frame: &mut Frame, area: Rect, cx: &ViewContext) {
        let theme = cx.theme;
        // The whole width up to 110 columns, between the header and the status bar.
        let popup = super::popup_area(frame, area, 110, area.height.saturating_sub(2), 0);
        self.area = popup;
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border(true))
            .style(theme.base())
            .title(Span::styled(" Search every project ", theme.title()));
        let inner = block.inner(popup);
        frame.render_widget(block, popup);
        if inner.height < 3 {
            return;
        }
        let query = Line::from(vec![
            Span::styled("› ", theme.key()),
            Span::styled(
                widgets::shown(&self.query).into_owned(),
                theme.fg(theme.text),
            ),
            Span::styled("▏", theme.key()),
        ]);
        frame.render_widget(
            Paragraph::new(vec![query, self.status_line(theme)]),
            Rect { height: 2, ..inner },
        );
        self.list_area = Rect {
            y: inner.y + 2,
            height: inner.height - 2,
            ..inner
        };
        let page = (self.list_area.height as usize / ROWS_PER_HIT).max(1);
        let shown = self.cursor.layout(page, self.hits.len());
        let width = self.list_area.width as usize;
        let mut lines = Vec::new();
        for index in shown {
            let selected = index == self.cursor.selected;
            lines.extend(Self::hit_lines(&self.hits[index], selected, width, theme));
        }
        frame.render_widget(Paragraph::new(lines), self.list_area);
    }

    fn area(&self) -> Rect {
        self.area
    }

    fn prompt_hints(&self) -> Option<&'static [(&'static str, &'static str)]> {
        Some(&[("enter", "open"), ("esc", "close"), ("↑↓", "move")])
    }
}

//! The editor pane: a ratatui-textarea buffer (editing, undo/redo, search) drawn by
//! this module so that only the visible lines are styled, long lines stay plain and the
//! view scrolls sideways instead of wrapping. Saving goes through the core's guarded
//! atomic write; a file changed on disk while the buffer is dirty is never overwritten.
use std::path::PathBuf;
use std::sync::Arc;

use crossterm::event::KeyEvent;
use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use ratatui_textarea::{CursorMove, TextArea};
use unicode_width::UnicodeWidthChar;

use crate::core::analysis::budgets::BudgetCheck;
use crate::core::edit::EditText;
use crate::core::sanitize;
use crate::core::tokens::TextStats;

use crate::tui::highlight::HighlightCache;
use crate::tui::keymap::{Action, KeyContext};
use crate::tui::pane::{Command, Effect, Focus, Input, Outcome, Pane, ViewContext, hint, offers};
use crate::tui::theme::Theme;
use crate::tui::widgets;

/// Lines longer than this are drawn plain and never searched for highlights.
pub const PLAIN_LINE_CAP: usize = 2_000;

/// A file in the editor.
pub struct Document {
    /// Unique for the process: answers from workers name the document they are for.
    pub id: u64,
    pub path: PathBuf,
    /// The Infinity memory this buffer edits, inside the store at `path`.
    pub memory_id: Option<String>,
    /// Shown above the text: an Infinity memory's locked type and title.
    pub locked_header: Option<String>,
    pub textarea: TextArea<'static>,
    /// The buffer's text when it was loaded or last saved.
    pub base_text: String,
    /// The file as read from disk then: what a save expects to replace, and the line
    /// endings and byte-order mark the save re-applies.
    pub disk: EditText,
    pub read_only: Option<String>,
    /// Bumped on every change to the buffer.
    pub version: u64,
    /// `version` at load or the last save.
    pub saved_version: u64,
    pub saving: bool,
    /// Live figures of the buffer, and the version they were counted for.
    pub stats: Option<(u64, TextStats)>,
    pub budget: Vec<BudgetCheck>,
    /// First visible line and column.
    pub top: usize,
    pub left: usize,
}

impl Document {
    /// A buffer over `disk.text` (an Infinity memory's content for `memory_id`).
    pub fn new(path: PathBuf, memory_id: Option<String>, disk: EditText) -> Document {
        static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let mut textarea = TextArea::new(split_lines(&disk.text));
        textarea.set_max_histories(500);
        Document {
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            path,
            memory_id,
            locked_header: None,
            textarea,
            base_text: disk.text.clone(),
            disk,
            read_only: None,
            version: 0,
            saved_version: 0,
            saving: false,
            stats: None,
            budget: Vec::new(),
            top: 0,
            left: 0,
        }
    }

    pub fn text(&self) -> String {
        join_lines(self.textarea.lines())
    }

    /// Whether the buffer differs from what was loaded or saved.
    pub fn is_dirty(&self) -> bool {
        // Asked on every frame (the title's marker): compared in place, not by joining
        // a 1.4 MB buffer into a new string each time.
        self.version != self.saved_version && !joined_equals(self.textarea.lines(), &self.base_text)
    }

    pub fn cursor(&self) -> (usize, usize) {
        let cursor = self.textarea.cursor();
        (cursor.0, cursor.1)
    }

    /// Replaces the buffer with new text from disk, keeping the cursor and scroll where
    /// they still fit.
    pub fn reload(&mut self, disk: EditText) {
        let (row, col) = self.cursor();
        let mut textarea = TextArea::new(split_lines(&disk.text));
        textarea.set_max_histories(500);
        textarea.move_cursor(CursorMove::Jump(
            row.min(u16::MAX as usize) as u16,
            col.min(u16::MAX as usize) as u16,
        ));
        self.textarea = textarea;
        self.base_text = disk.text.clone();
        self.disk = disk;
        self.version += 1;
        self.saved_version = self.version;
        self.stats = None;
    }

    /// After a successful save of `text`; `disk` is the file as written.
    pub fn mark_saved(&mut self, text: String, disk: EditText, version: u64) {
        self.base_text = text;
        self.disk = disk;
        self.saved_version = version;
        self.saving = false;
    }

    pub fn jump_to_line(&mut self, line: usize) {
        let row = line.saturating_sub(1).min(u16::MAX as usize) as u16;
        self.textarea.move_cursor(CursorMove::Jump(row, 0));
        self.top = (row as usize).saturating_sub(3);
    }
}

/// The buffer's lines; a trailing newline is kept as a last empty line, as editors do.
/// The text comes with `\n` breaks ([`EditText::text`]; the save re-applies the file's
/// own endings), so a carriage return left in a line is content and stays.
pub fn split_lines(text: &str) -> Vec<String> {
    text.split('\n').map(str::to_string).collect()
}

/// Whether `lines` joined with newlines is exactly `text`, without building the join.
pub fn joined_equals(lines: &[String], text: &str) -> bool {
    let mut rest = text.as_bytes();
    for (index, line) in lines.iter().enumerate() {
        if index > 0 {
            match rest.split_first() {
                Some((b'\n', after)) => rest = after,
                _ => return false,
            }
        }
        match rest.strip_prefix(line.as_bytes()) {
            Some(after) => rest = after,
            None => return false,
        }
    }
    rest.is_empty()
}

pub fn join_lines(lines: &[String]) -> String {
    lines.join("\n")
}

/// The editor's own keys; every other key that is not a global one edits the buffer.
pub const COMMANDS: &[Command] = &[
    hint(Action::Save),
    hint(Action::Undo),
    hint(Action::Redo),
    hint(Action::Search),
    hint(Action::SearchNext),
    hint(Action::SearchPrev),
    hint(Action::Leave),
];

/// What the editor is told, once the app's input is sorted out.
#[derive(Debug, Clone)]
pub enum Msg {
    Action(Action),
    Key(KeyEvent),
    Paste(String),
    Click { row: u16, col: u16 },
    Scroll(i32),
}

/// A search being typed (ctrl-f), drawn on the pane's last line.
#[derive(Default)]
pub struct SearchPrompt {
    pub query: String,
}

#[derive(Default)]
pub struct Editor {
    pub doc: Option<Document>,
    pub search: Option<SearchPrompt>,
    /// Why the selected file cannot be shown.
    pub problem: Option<String>,
    /// Styles the highlight worker computed for the open document.
    pub highlights: Option<HighlightCache>,
    /// Rows and text width at the last draw.
    page: usize,
    text_width: usize,
    /// The pane and its text (inside the border) at the last draw.
    area: Rect,
    text_area: Rect,
}

impl Editor {
    pub fn is_dirty(&self) -> bool {
        self.doc.as_ref().is_some_and(Document::is_dirty)
    }

    /// Applies one message; returns what the app must do about it.
    pub fn update(&mut self, msg: Msg) -> Option<Effect> {
        if let Some(query) = self.search.as_ref().map(|p| p.query.clone()) {
            return self.update_search(msg, query);
        }
        let page = self.page.max(1);
        let doc = self.doc.as_mut()?;
        let read_only = doc.read_only.is_some();
        let changed = match msg {
            Msg::Action(Action::Save) => {
                if let Some(reason) = &doc.read_only {
                    return Some(Effect::Toast(format!("not saved: {reason}")));
                }
                return Some(Effect::Save);
            }
            Msg::Action(Action::Undo) if !read_only => doc.textarea.undo(),
            Msg::Action(Action::Redo) if !read_only => doc.textarea.redo(),
            Msg::Action(Action::Search) => {
                self.search = Some(SearchPrompt::default());
                return None;
            }
            Msg::Action(Action::SearchNext) => {
                if !doc.textarea.search_forward(false) {
                    return Some(Effect::Toast("no match".into()));
                }
                false
            }
            Msg::Action(Action::SearchPrev) => {
                if !doc.textarea.search_back(false) {
                    return Some(Effect::Toast("no match".into()));
                }
                false
            }
            Msg::Action(Action::Leave) => return Some(Effect::Focus(Focus::Tree)),
            Msg::Action(Action::PageUp) => {
                doc.textarea.move_cursor(CursorMove::Jump(
                    doc.cursor().0.saturating_sub(page).min(u16::MAX as usize) as u16,
                    0,
                ));
                false
            }
            Msg::Action(Action::PageDown) => {
                doc.textarea.move_cursor(CursorMove::Jump(
                    (doc.cursor().0 + page).min(u16::MAX as usize) as u16,
                    0,
                ));
                false
            }
            Msg::Action(_) => false,
            Msg::Key(key) => {
                if read_only {
                    // Movement only: feed keys that cannot edit.
                    use crossterm::event::KeyCode::*;
                    if matches!(
                        key.code,
                        Up | Down | Left | Right | Home | End | PageUp | PageDown
                    ) {
                        doc.textarea.input(key);
                    }
                    false
                } else {
                    doc.textarea.input(key)
                }
            }
            Msg::Paste(text) if !read_only => doc.textarea.insert_str(text),
            Msg::Paste(_) => false,
            Msg::Click { row, col } => {
                let gutter = gutter_width(doc.textarea.lines().len());
                let line = doc.top + row as usize;
                let column = (col as usize).saturating_sub(gutter) + doc.left;
                let char_index = doc
                    .textarea
                    .lines()
                    .get(line)
                    .map(|text| char_at_column(text, column))
                    .unwrap_or(0);
                doc.textarea.move_cursor(CursorMove::Jump(
                    line.min(u16::MAX as usize) as u16,
                    char_index.min(u16::MAX as usize) as u16,
                ));
                false
            }
            Msg::Scroll(delta) => {
                let last = doc.textarea.lines().len().saturating_sub(1);
                doc.top = (doc.top as i64 + i64::from(delta)).clamp(0, last as i64) as usize;
                // Keep the cursor on screen, as a scroll wheel does in editors.
                let (row, col) = doc.cursor();
                if row < doc.top || row >= doc.top + page {
                    let target = row.clamp(doc.top, doc.top + page - 1).min(last);
                    doc.textarea.move_cursor(CursorMove::Jump(
                        target.min(u16::MAX as usize) as u16,
                        col.min(u16::MAX as usize) as u16,
                    ));
                }
                return None;
            }
        };
        if changed {
            doc.version += 1;
            return Some(Effect::BufferChanged);
        }
        None
    }

    fn update_search(&mut self, msg: Msg, mut query: String) -> Option<Effect> {
        use crossterm::event::KeyCode;
        let Msg::Key(key) = msg else {
            if let Msg::Action(Action::Leave) = msg {
                self.search = None;
            }
            return None;
        };
        match key.code {
            KeyCode::Esc => {
                self.search = None;
                if let Some(doc) = &mut self.doc {
                    let _ = doc.textarea.set_search_pattern("");
                }
                return None;
            }
            KeyCode::Enter => {
                self.search = None;
                let doc = self.doc.as_mut()?;
                if query.is_empty() {
                    return None;
                }
                if !doc.textarea.search_forward(true) {
                    return Some(Effect::Toast(format!("{query:?} not found")));
                }
                return None;
            }
            KeyCode::Backspace => {
                query.pop();
            }
            KeyCode::Char(c) => query.push(c),
            _ => return None,
        }
        if let Some(prompt) = &mut self.search {
            prompt.query = query.clone();
        }
        if let Some(doc) = &mut self.doc {
            // Typed text is matched literally: people search memory for words, not regexes.
            let _ = doc.textarea.set_search_pattern(regex::escape(&query));
        }
        None
    }

    fn draw(&mut self, frame: &mut Frame, area: Rect, theme: &Theme, focused: bool) {
        self.area = area;
        let title = match &self.doc {
            Some(doc) => {
                let dirty = if doc.is_dirty() { " ●" } else { "" };
                let ro = if doc.read_only.is_some() {
                    " [read-only]"
                } else {
                    ""
                };
                let name = doc
                    .path
                    .file_name()
                    .map(sanitize::os_str)
                    .unwrap_or_default();
                let memory = doc
                    .memory_id
                    .as_ref()
                    .map(|id| format!("#{}", sanitize::line(id)))
                    .unwrap_or_default();
                format!(" {name}{memory}{dirty}{ro} ")
            }
            None => " Editor ".into(),
        };
        let mut block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border(focused))
            .title(Span::styled(title.clone(), theme.title()));
        if let Some(doc) = &self.doc {
            // The figures share the top border with the name: drop the least useful
            // parts until both fit, so the file name is never overwritten.
            let room = (area.width as usize).saturating_sub(title.chars().count() + 3);
            let mut figures = token_title(doc, theme);
            while figures.len() > 1 && Line::from(figures.clone()).width() > room {
                figures.remove(if figures.len() > 2 {
                    figures.len() - 1
                } else {
                    0
                });
            }
            if Line::from(figures.clone()).width() <= room {
                block = block.title(Line::from(figures).right_aligned());
            }
        }
        let inner = block.inner(area);
        frame.render_widget(block, area);
        self.text_area = inner;
        let Some(doc) = &mut self.doc else {
            let text = self
                .problem
                .clone()
                .unwrap_or_else(|| "Select a file in the tree.".into());
            let style = if self.problem.is_some() {
                theme.fg(theme.error)
            } else {
                theme.muted()
            };
            frame.render_widget(
                Paragraph::new(Span::styled(format!(" {text}"), style)),
                inner,
            );
            return;
        };
        let mut text_area = inner;
        if let Some(header) = &doc.locked_header {
            frame.render_widget(
                Paragraph::new(Span::styled(format!(" 🔒 {header}"), theme.muted())),
                Rect { height: 1, ..inner },
            );
            text_area.y += 1;
            text_area.height = text_area.height.saturating_sub(1);
        }
        if self.search.is_some() {
            text_area.height = text_area.height.saturating_sub(1);
        }
        let lines = doc.textarea.lines();
        let gutter = gutter_width(lines.len());
        let width = (text_area.width as usize).saturating_sub(gutter);
        let height = text_area.height as usize;
        self.page = height;
        self.text_width = width;
        // Keep the cursor in view.
        let (row, col) = doc.cursor();
        if row < doc.top {
            doc.top = row;
        } else if height > 0 && row >= doc.top + height {
            doc.top = row + 1 - height;
        }
        let cursor_column = lines.get(row).map_or(0, |l| display_column(l, col));
        if cursor_column < doc.left {
            doc.left = cursor_column;
        } else if width > 0 && cursor_column >= doc.left + width {
            doc.left = cursor_column + 1 - width;
        }
        let selection = doc.textarea.selection_range();
        let pattern = doc.textarea.search_pattern().cloned();
        let mut out = Vec::with_capacity(height);
        for (index, text) in lines.iter().enumerate().skip(doc.top).take(height) {
            let number_style = if index == row {
                theme.fg(theme.accent)
            } else {
                theme.muted()
            };
            let mut spans = vec![Span::styled(
                format!("{:>w$} ", index + 1, w = gutter - 1),
                number_style,
            )];
            let base: &[(Style, std::ops::Range<usize>)] = if text.len() > PLAIN_LINE_CAP {
                &[]
            } else {
                self.highlights
                    .as_ref()
                    .and_then(|h| h.styles_for(index, text))
                    .unwrap_or(&[])
            };
            let marks = marks_for_line(index, text, selection, pattern.as_ref(), theme);
            spans.extend(visible_spans(
                text,
                doc.left,
                width,
                base,
                &marks,
                theme.fg(theme.text),
            ));
            out.push(Line::from(spans));
        }
        frame.render_widget(Paragraph::new(out), text_area);
        if focused && self.search.is_none() && height > 0 {
            let x = text_area.x + (gutter + cursor_column.saturating_sub(doc.left)) as u16;
            let y = text_area.y + (row - doc.top) as u16;
            frame.set_cursor_position(Position::new(x.min(text_area.right().saturating_sub(1)), y));
        }
        if let Some(prompt) = &self.search {
            let y = text_area.y + text_area.height;
            let line = Line::from(vec![
                Span::styled(" search: ", theme.key()),
                Span::styled(prompt.query.clone(), theme.fg(theme.text)),
                Span::styled("▏", theme.fg(theme.accent)),
                Span::styled("  enter find · esc cancel", theme.muted()),
            ]);
            frame.render_widget(
                Paragraph::new(line),
                Rect {
                    y,
                    height: 1,
                    ..text_area
                },
            );
            let x = inner.x
                + 9
                + prompt
                    .query
                    .chars()
                    .map(|c| c.width().unwrap_or(0))
                    .sum::<usize>() as u16;
            frame.set_cursor_position(Position::new(x.min(inner.right().saturating_sub(1)), y));
        }
    }

    /// Lines the editor shows now (for the highlighter's request).
    pub fn visible_range(&self) -> Option<std::ops::Range<usize>> {
        let doc = self.doc.as_ref()?;
        let end = (doc.top + self.page.max(1)).min(doc.textarea.lines().len());
        Some(doc.top..end)
    }

    /// Where the text was drawn (inside the border).
    pub fn text_area(&self) -> Rect {
        self.text_area
    }
}

impl Pane for Editor {
    fn context(&self) -> KeyContext {
        KeyContext::Editor
    }

    fn handle(&mut self, input: Input) -> Outcome {
        let msg = match input {
            // The search prompt takes every key while it is open.
            Input::Key(key) if self.search.is_some() => Msg::Key(key.event),
            Input::Key(key) => match key.action {
                Some(action) if offers(COMMANDS, action) => Msg::Action(action),
                // Paging keys a user's keymap gives the editor (by default the text
                // area pages by itself).
                Some(action @ (Action::PageUp | Action::PageDown)) => Msg::Action(action),
                // A global key.
                Some(_) => return Outcome::Ignored,
                None => Msg::Key(key.event),
            },
            Input::Paste(text) => Msg::Paste(text),
            Input::Click(position) => {
                let inner = self.text_area;
                if !inner.contains(position) {
                    return Outcome::done();
                }
                Msg::Click {
                    row: position.y - inner.y,
                    col: position.x - inner.x,
                }
            }
            Input::Scroll(delta) => Msg::Scroll(delta),
        };
        Outcome::maybe(self.update(msg))
    }

    fn view(&mut self, frame: &mut Frame, area: Rect, cx: &ViewContext) {
        self.draw(frame, area, cx.theme, cx.focused);
    }

    fn area(&self) -> Rect {
        self.area
    }
}

/// "812 tok / 1k ▰▰▰▱▱" for the pane's title, coloured by the buffer's budget status.
fn token_title(doc: &Document, theme: &Theme) -> Vec<Span<'static>> {
    let (row, col) = doc.cursor();
    let mut spans = vec![Span::styled(
        format!(" {}:{} ", row + 1, col + 1),
        theme.muted(),
    )];
    match &doc.stats {
        Some((version, stats)) => {
            let stale = *version != doc.version;
            let tokens = stats.loaded_tokens as u64;
            let check = widgets::token_check(&doc.budget).cloned().map(|mut c| {
                if c.unit == crate::core::analysis::budgets::Unit::Tokens {
                    c.value = tokens;
                    c.status = crate::core::analysis::budgets::BudgetStatus::of(tokens, c.limit);
                }
                c
            });
            let style = widgets::budget_color(theme, check.as_ref().map(|c| c.status));
            let figure = match &check {
                Some(c) if c.unit == crate::core::analysis::budgets::Unit::Tokens => {
                    format!(
                        "{} / {} tok",
                        widgets::compact(tokens),
                        widgets::compact(c.limit)
                    )
                }
                _ => format!("{} tok", widgets::compact(tokens)),
            };
            spans.push(Span::styled(
                format!("{figure}{} ", if stale { "…" } else { "" }),
                style,
            ));
            if stats.private_tokens > 0 {
                spans.push(Span::styled(
                    format!(
                        "+{} private ",
                        widgets::compact(stats.private_tokens as u64)
                    ),
                    theme.fg(theme.private),
                ));
            }
            spans.push(Span::styled(format!("{} ", stats.encoding), theme.muted()));
        }
        None => spans.push(Span::styled("counting… ", theme.muted())),
    }
    spans
}

pub fn gutter_width(lines: usize) -> usize {
    lines.max(1).to_string().len().max(3) + 1
}

/// Cells a character takes on screen: four for a tab, one for a control, bidi or
/// invisible character (drawn as a one-cell stand-in, [`sanitize::glyph`]).
fn cells(c: char) -> usize {
    if c == '\t' {
        4
    } else if sanitize::glyph(c).is_some() {
        1
    } else {
        c.width().unwrap_or(0)
    }
}

/// Display column of the `chars`-th character of `text`.
pub fn display_column(text: &str, chars: usize) -> usize {
    text.chars().take(chars).map(cells).sum()
}

/// The character index at display column `column` of `text`.
pub fn char_at_column(text: &str, column: usize) -> usize {
    let mut used = 0;
    for (index, c) in text.chars().enumerate() {
        let w = cells(c);
        if used + w > column {
            return index;
        }
        used += w;
    }
    text.chars().count()
}

/// Selection and search-match byte ranges on one line, with their styles.
fn marks_for_line(
    index: usize,
    text: &str,
    selection: Option<((usize, usize), (usize, usize))>,
    pattern: Option<&regex::Regex>,
    theme: &Theme,
) -> Vec<(Style, std::ops::Range<usize>)> {
    let mut marks = Vec::new();
    if let Some(pattern) = pattern
        && text.len() <= PLAIN_LINE_CAP
        && !pattern.as_str().is_empty()
    {
        for found in pattern.find_iter(text).take(200) {
            marks.push((
                Style::new().bg(theme.near).fg(theme.background),
                found.range(),
            ));
        }
    }
    if let Some(((r1, c1), (r2, c2))) = selection
        && (r1..=r2).contains(&index)
    {
        let byte_of = |chars: usize| {
            text.char_indices()
                .nth(chars)
                .map_or(text.len(), |(b, _)| b)
        };
        let start = if index == r1 { byte_of(c1) } else { 0 };
        let end = if index == r2 { byte_of(c2) } else { text.len() };
        marks.push((Style::new().add_modifier(Modifier::REVERSED), start..end));
    }
    marks
}

/// The cells of `text` from display column `left`, `width` wide, styled by `base` spans
/// and then `marks` on top (both as byte ranges).
fn visible_spans(
    text: &str,
    left: usize,
    width: usize,
    base: &[(Style, std::ops::Range<usize>)],
    marks: &[(Style, std::ops::Range<usize>)],
    default: Style,
) -> Vec<Span<'static>> {
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut current = String::new();
    let mut current_style = default;
    let mut column = 0;
    let mut used = 0;
    for (byte, c) in text.char_indices() {
        let w = cells(c);
        if column + w <= left {
            column += w;
            continue;
        }
        if used + w > width {
            break;
        }
        let mut style = base
            .iter()
            .find(|(_, range)| range.contains(&byte))
            .map_or(default, |(s, _)| default.patch(*s));
        for (mark, range) in marks {
            if range.contains(&byte) {
                style = style.patch(*mark);
            }
        }
        // The buffer keeps the character; only the view shows it, reversed.
        let glyph = sanitize::glyph(c).filter(|_| c != '\t');
        if glyph.is_some() {
            style = style.add_modifier(Modifier::REVERSED);
        }
        if style != current_style && !current.is_empty() {
            spans.push(Span::styled(std::mem::take(&mut current), current_style));
        }
        current_style = style;
        match glyph {
            _ if c == '\t' => current.push_str("    "),
            Some(glyph) => current.push(glyph),
            None => current.push(c),
        }
        column += w;
        used += w;
    }
    if !current.is_empty() {
        spans.push(Span::styled(current, current_style));
    }
    spans
}

/// Shared text of a buffer for background counting.
pub fn shared_text(doc: &Document) -> Arc<String> {
    Arc::new(doc.text())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joined_equals_matches_join_exactly() {
        for (lines, text) in [
            (vec!["a", "b"], "a\nb"),
            (vec!["a", "b", ""], "a\nb\n"),
            (vec![""], ""),
            (vec!["a", "b"], "a\nb\n"),
            (vec!["a", "b"], "a\r\nb"),
            (vec!["ab"], "a\nb"),
            (vec!["a", ""], "a"),
        ] {
            let lines: Vec<String> = lines.into_iter().map(String::from).collect();
            assert_eq!(
                joined_equals(&lines, text),
                join_lines(&lines) == text,
                "{lines:?} vs {text:?}"
            );
        }
    }

    #[test]
    fn lines_round_trip_with_trailing_newline() {
        for text in ["", "a", "a\n", "a\nb", "a\rb\r\n", "\n\n"] {
            let lines = split_lines(text);
            assert_eq!(join_lines(&lines), text, "{text:?}");
        }
    }

    fn disk(text: &str) -> EditText {
        EditText::from_bytes(std::path::Path::new("/tmp/x.md"), text.as_bytes().to_vec()).unwrap()
    }

    #[test]
    fn columns_and_characters_convert_both_ways() {
        assert_eq!(display_column("日本x", 2), 4);
        assert_eq!(char_at_column("日本x", 4), 2);
        assert_eq!(char_at_column("日本x", 3), 1);
        assert_eq!(char_at_column("ab", 10), 2);
        assert_eq!(display_column("\tx", 1), 4);
    }

    #[test]
    fn visible_spans_cut_the_window_and_apply_marks() {
        let text = "hello world";
        let marks = vec![(Style::new().add_modifier(Modifier::REVERSED), 6..11)];
        let spans = visible_spans(text, 2, 7, &[], &marks, Style::new());
        let shown: String = spans.iter().map(|s| s.content.to_string()).collect();
        assert_eq!(shown, "llo wor");
        assert_eq!(spans.last().unwrap().content, "wor");
        assert!(
            spans
                .last()
                .unwrap()
                .style
                .add_modifier
                .contains(Modifier::REVERSED)
        );
    }

    #[test]
    fn hidden_characters_show_as_one_reversed_cell_and_the_cursor_agrees() {
        let text = "a\u{1b}[2J\u{202E}b";
        let spans = visible_spans(text, 0, 20, &[], &[], Style::new());
        let shown: String = spans.iter().map(|s| s.content.to_string()).collect();
        assert_eq!(shown, "a␛[2J\u{FFFD}b");
        assert!(
            spans
                .iter()
                .any(|s| s.content == "␛" && s.style.add_modifier.contains(Modifier::REVERSED))
        );
        assert_eq!(display_column(text, 6), 6);
        assert_eq!(char_at_column(text, 5), 5);
    }

    #[test]
    fn a_huge_single_line_is_cut_to_the_window() {
        let text = "x".repeat(500_000);
        let spans = visible_spans(&text, 499_990, 80, &[], &[], Style::new());
        let shown: String = spans.iter().map(|s| s.content.to_string()).collect();
        assert_eq!(shown.len(), 10);
    }

    #[test]
    fn dirty_follows_edits_and_undo() {
        let mut editor = Editor {
            doc: Some(Document::new("/tmp/x.md".into(), None, disk("abc\n"))),
            ..Editor::default()
        };
        assert!(!editor.is_dirty());
        let key = KeyEvent::new(
            crossterm::event::KeyCode::Char('z'),
            crossterm::event::KeyModifiers::NONE,
        );
        assert!(matches!(
            editor.update(Msg::Key(key)),
            Some(Effect::BufferChanged)
        ));
        assert!(editor.is_dirty());
        assert!(matches!(
            editor.update(Msg::Action(Action::Undo)),
            Some(Effect::BufferChanged)
        ));
        assert!(!editor.is_dirty(), "undo back to the saved text is clean");
    }

    #[test]
    fn read_only_documents_do_not_change() {
        let mut doc = Document::new("/tmp/x.md".into(), None, disk("abc"));
        doc.read_only = Some("read-only".into());
        let mut editor = Editor {
            doc: Some(doc),
            ..Editor::default()
        };
        let key = KeyEvent::new(
            crossterm::event::KeyCode::Char('z'),
            crossterm::event::KeyModifiers::NONE,
        );
        assert!(editor.update(Msg::Key(key)).is_none());
        assert!(matches!(
            editor.update(Msg::Action(Action::Save)),
            Some(Effect::Toast(_))
        ));
        assert_eq!(editor.doc.unwrap().text(), "abc");
    }
}

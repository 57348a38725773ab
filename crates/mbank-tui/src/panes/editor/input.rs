//! A multi-line text input over the editor's [`Buffer`], for the text popups (a commit
//! message, an agent's proposal): the same grouped undo and word motions as the editor,
//! with the emacs-style keys those popups have always had (`ctrl-a` / `ctrl-e`, `ctrl-k`
//! and `ctrl-y`, `ctrl-u` undo, `ctrl-r` redo, shift extends a selection). The text is
//! not wrapped: the view follows the cursor down and sideways.
use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::Motion;
use super::buffer::{Buffer, Pos, Undo, byte_of};
use super::view::visible_spans;
use super::wrap::{cells, char_at_column, display_column};

/// Spaces a tab key inserts up to the next multiple of.
const TAB_STOP: usize = 4;

/// The text, its cursor, what the kill keys took, and the part of it on screen.
#[derive(Debug, Clone)]
pub struct TextInput {
    buffer: Buffer,
    /// What `ctrl-k`, `ctrl-j`, the word kills, `ctrl-x` or `ctrl-c` took last, for `ctrl-y`.
    yank: String,
    /// First line and first display column on screen.
    top: usize,
    left: usize,
    /// Lines on screen when last drawn: how far the page keys go.
    height: usize,
}

impl TextInput {
    /// An input holding `text`, cursor at its start.
    pub fn new(text: &str) -> TextInput {
        TextInput {
            buffer: Buffer::new(text.lines().map(str::to_string).collect()),
            yank: String::new(),
            top: 0,
            left: 0,
            height: 1,
        }
    }

    pub fn lines(&self) -> &[String] {
        self.buffer.lines()
    }

    pub fn cursor(&self) -> Pos {
        self.buffer.cursor()
    }

    /// Types, deletes, moves or undoes as `key` says; keys it has no use for do nothing.
    pub fn key(&mut self, key: KeyEvent) {
        use KeyCode as K;
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        // Terminals report shift-tab as a key of its own.
        let shift = key.modifiers.contains(KeyModifiers::SHIFT) || key.code == K::BackTab;
        let now = Instant::now();
        let buffer = &mut self.buffer;
        match (key.code, ctrl, alt) {
            (K::Enter, ..) | (K::Char('m'), true, false) | (K::Char('\n' | '\r'), false, false) => {
                buffer.insert("\n", Undo::Typed, now)
            }
            (K::Char(c), false, false) => {
                buffer.insert(c.encode_utf8(&mut [0; 4]), Undo::Typed, now)
            }
            (K::Tab | K::BackTab, false, false) => {
                let (row, col) = buffer.cursor();
                let width = display_column(&buffer.lines()[row], col);
                let spaces = " ".repeat(TAB_STOP - width % TAB_STOP);
                buffer.insert(&spaces, Undo::Typed, now);
            }
            (K::Char('h'), true, false) | (K::Backspace, false, false) => {
                buffer.delete_back(now);
            }
            (K::Char('d'), true, false) | (K::Delete, false, false) => {
                buffer.delete_forward(now);
            }
            (K::Char('k'), true, false) => self.kill(Buffer::delete_to_line_end, now),
            (K::Char('j'), true, false) => self.kill(Buffer::delete_to_line_start, now),
            (K::Char('w'), true, false) | (K::Char('h') | K::Backspace, false, true) => {
                self.kill(Buffer::delete_word_back, now)
            }
            (K::Delete | K::Char('d'), false, true) => self.kill(Buffer::delete_word_forward, now),
            (K::Char('n'), true, false) | (K::Down, false, false) => self.go(Motion::Down, shift),
            (K::Char('p'), true, false) | (K::Up, false, false) => self.go(Motion::Up, shift),
            (K::Char('f'), true, false) | (K::Right, false, false) => self.go(Motion::Right, shift),
            (K::Char('b'), true, false) | (K::Left, false, false) => self.go(Motion::Left, shift),
            (K::Char('a'), true, false) | (K::Home, ..) | (K::Left | K::Char('b'), true, true) => {
                self.go(Motion::LineStart, shift)
            }
            (K::Char('e'), true, false) | (K::End, ..) | (K::Right | K::Char('f'), true, true) => {
                self.go(Motion::LineEnd, shift)
            }
            (K::Char('<'), false, true) | (K::Up | K::Char('p'), true, true) => {
                self.go(Motion::FileStart, shift)
            }
            (K::Char('>'), false, true) | (K::Down | K::Char('n'), true, true) => {
                self.go(Motion::FileEnd, shift)
            }
            (K::Char('f'), false, true) | (K::Right, true, false) => {
                self.go(Motion::WordRight, shift)
            }
            (K::Char('b'), false, true) | (K::Left, true, false) => {
                self.go(Motion::WordLeft, shift)
            }
            (K::Char(']' | 'n'), false, true) | (K::Down, true, false) => {
                self.go(Motion::ParagraphDown, shift)
            }
            (K::Char('[' | 'p'), false, true) | (K::Up, true, false) => {
                self.go(Motion::ParagraphUp, shift)
            }
            (K::Char('u'), true, false) => {
                buffer.undo();
            }
            (K::Char('r'), true, false) => {
                buffer.redo();
            }
            (K::Char('y'), true, false) => buffer.insert(&self.yank, Undo::Own, now),
            (K::Char('x'), true, false) => {
                if let Some(cut) = buffer.delete_selection(now) {
                    self.yank = cut;
                }
            }
            (K::Char('c'), true, false) => {
                if let Some((start, end)) = buffer.selection() {
                    self.yank = buffer.text_between(start, end);
                    buffer.cancel_selection();
                }
            }
            (K::Char('v'), true, false) | (K::PageDown, ..) => self.go(Motion::PageDown, shift),
            (K::Char('v'), false, true) | (K::PageUp, ..) => self.go(Motion::PageUp, shift),
            _ => {}
        }
    }

    /// Runs a kill: what it took within a line is kept for `ctrl-y` (a selection or a
    /// line break it deleted is not).
    fn kill(&mut self, delete: fn(&mut Buffer, Instant) -> Option<String>, now: Instant) {
        let selected = self.buffer.selection().is_some();
        if let Some(taken) = delete(&mut self.buffer, now)
            && !selected
            && !taken.contains('\n')
        {
            self.yank = taken;
        }
    }

    fn go(&mut self, motion: Motion, select: bool) {
        let buffer = &self.buffer;
        let cursor = buffer.cursor();
        let (row, col) = cursor;
        let last = buffer.last_row();
        let target = match motion {
            Motion::Left => buffer.step_back(cursor),
            Motion::Right => buffer.step_forward(cursor),
            Motion::Up => self.row_at_same_column(row.saturating_sub(1)),
            Motion::Down => self.row_at_same_column((row + 1).min(last)),
            Motion::WordLeft => buffer.word_back(cursor),
            Motion::WordRight => buffer.word_forward(cursor),
            Motion::LineStart => (row, 0),
            Motion::LineEnd => (row, buffer.line_len(row)),
            // The first and last lines keep the column, as these popups always have.
            Motion::FileStart => (0, col),
            Motion::FileEnd => (last, col),
            Motion::ParagraphUp => buffer.paragraph_back(cursor),
            Motion::ParagraphDown => buffer.paragraph_forward(cursor),
            Motion::FirstNonBlank => buffer.first_non_blank(row),
            Motion::WordEnd => buffer.word_end(cursor),
            Motion::PageDown => return self.page(true, select),
            Motion::PageUp => return self.page(false, select),
        };
        self.buffer.move_to(target, select);
    }

    /// The place on line `row` under the cursor's display column.
    fn row_at_same_column(&self, row: usize) -> Pos {
        let lines = self.buffer.lines();
        let (from, col) = self.buffer.cursor();
        let column = display_column(&lines[from], col);
        (row, char_at_column(&lines[row], column))
    }

    /// Scrolls a page down or up, taking the cursor along.
    fn page(&mut self, down: bool, select: bool) {
        let last = self.buffer.last_row();
        let (row, _) = self.buffer.cursor();
        let target = if down {
            self.top = (self.top + self.height).min(last);
            (row + self.height).min(last)
        } else {
            self.top = self.top.saturating_sub(self.height);
            row.saturating_sub(self.height)
        };
        let target = self.row_at_same_column(target);
        self.buffer.move_to(target, select);
    }

    /// Draws the lines on screen in `area`: `style` for the text, `selected` for a
    /// selection, the cursor as a reversed cell.
    pub fn draw(&mut self, frame: &mut Frame, area: Rect, style: Style, selected: Style) {
        let height = usize::from(area.height);
        let width = usize::from(area.width);
        self.height = height.max(1);
        let lines = self.buffer.lines();
        let (row, col) = self.buffer.cursor();
        let column = display_column(&lines[row], col);
        let under = lines[row].chars().nth(col).map_or(1, |c| cells(c).max(1));
        self.top = follow(self.top, row, height);
        self.left = follow(follow(self.left, column + under - 1, width), column, width);
        let selection = self.buffer.selection();
        let cursor = Style::new().add_modifier(Modifier::REVERSED);
        let shown: Vec<Line> = lines
            .iter()
            .enumerate()
            .skip(self.top)
            .take(height)
            .map(|(index, text)| {
                let mut marks = Vec::new();
                if let Some(((r1, c1), (r2, c2))) = selection
                    && (r1..=r2).contains(&index)
                {
                    let start = if index == r1 { byte_of(text, c1) } else { 0 };
                    let end = if index == r2 {
                        byte_of(text, c2)
                    } else {
                        text.len()
                    };
                    marks.push((selected, start..end));
                }
                if index == row && col < self.buffer.line_len(row) {
                    let at = byte_of(text, col);
                    let next = byte_of(text, col + 1);
                    marks.push((cursor, at..next));
                }
                let mut spans =
                    visible_spans(text, 0..text.len(), self.left, width, &[], &marks, style);
                if index == row && col >= self.buffer.line_len(row) && column - self.left < width {
                    spans.push(Span::styled(" ", style.patch(cursor)));
                }
                Line::from(spans)
            })
            .collect();
        frame.render_widget(Paragraph::new(shown).style(style), area);
    }
}

/// The first line (or column) on screen after a move to `at`, from `top`, `len` shown:
/// unchanged while `at` is on screen, else just enough to bring it there.
fn follow(top: usize, at: usize, len: usize) -> usize {
    if at < top {
        at
    } else if len > 0 && at >= top + len {
        at + 1 - len
    } else {
        top
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(input: &mut TextInput, code: KeyCode, modifiers: KeyModifiers) {
        input.key(KeyEvent::new(code, modifiers));
    }

    fn ctrl(input: &mut TextInput, c: char) {
        press(input, KeyCode::Char(c), KeyModifiers::CONTROL);
    }

    fn type_text(input: &mut TextInput, text: &str) {
        for c in text.chars() {
            press(input, KeyCode::Char(c), KeyModifiers::NONE);
        }
    }

    fn text(input: &TextInput) -> String {
        input.lines().join("\n")
    }

    #[test]
    fn typing_enter_and_tab_edit_at_the_cursor() {
        let mut input = TextInput::new("");
        type_text(&mut input, "ab");
        press(&mut input, KeyCode::Enter, KeyModifiers::NONE);
        press(&mut input, KeyCode::Tab, KeyModifiers::NONE);
        type_text(&mut input, "c");
        press(&mut input, KeyCode::Tab, KeyModifiers::NONE);
        assert_eq!(text(&input), "ab\n    c   ");
        press(&mut input, KeyCode::Backspace, KeyModifiers::NONE);
        ctrl(&mut input, 'a');
        ctrl(&mut input, 'd');
        assert_eq!(text(&input), "ab\n   c  ");
        assert_eq!(input.cursor(), (1, 0));
    }

    #[test]
    fn the_emacs_keys_move_and_shift_selects() {
        let mut input = TextInput::new("one two\nthree\n\nfour");
        ctrl(&mut input, 'e');
        assert_eq!(input.cursor(), (0, 7));
        ctrl(&mut input, 'n');
        assert_eq!(input.cursor(), (1, 5), "down keeps to the line's end");
        press(&mut input, KeyCode::Char('b'), KeyModifiers::ALT);
        assert_eq!(input.cursor(), (1, 0));
        press(&mut input, KeyCode::Char(']'), KeyModifiers::ALT);
        assert_eq!(input.cursor(), (3, 0));
        press(&mut input, KeyCode::Char('<'), KeyModifiers::ALT);
        assert_eq!(input.cursor(), (0, 0));
        press(&mut input, KeyCode::Right, KeyModifiers::CONTROL);
        assert_eq!(input.cursor(), (0, 4));
        press(&mut input, KeyCode::End, KeyModifiers::SHIFT);
        ctrl(&mut input, 'x');
        assert_eq!(text(&input), "one \nthree\n\nfour");
        press(&mut input, KeyCode::Char('>'), KeyModifiers::ALT);
        ctrl(&mut input, 'y');
        assert_eq!(text(&input), "one \nthree\n\nfourtwo");
    }

    #[test]
    fn up_and_down_keep_the_display_column_across_wide_characters() {
        let mut input = TextInput::new("日本語\nabcdef\nx");
        press(&mut input, KeyCode::Right, KeyModifiers::NONE);
        press(&mut input, KeyCode::Right, KeyModifiers::NONE);
        press(&mut input, KeyCode::Down, KeyModifiers::NONE);
        assert_eq!(input.cursor(), (1, 4));
        press(&mut input, KeyCode::Char('f'), KeyModifiers::CONTROL);
        ctrl(&mut input, 'p');
        assert_eq!(input.cursor(), (0, 2), "cell 5 is the second half of 語");
        ctrl(&mut input, 'n');
        ctrl(&mut input, 'n');
        assert_eq!(input.cursor(), (2, 1));
    }

    #[test]
    fn kills_keep_what_they_took_for_yank_and_undo_groups_words() {
        let mut input = TextInput::new("alpha beta gamma");
        ctrl(&mut input, 'e');
        ctrl(&mut input, 'w');
        assert_eq!(text(&input), "alpha beta ");
        ctrl(&mut input, 'a');
        ctrl(&mut input, 'k');
        assert_eq!(text(&input), "");
        ctrl(&mut input, 'y');
        assert_eq!(text(&input), "alpha beta ");
        ctrl(&mut input, 'u');
        ctrl(&mut input, 'u');
        ctrl(&mut input, 'u');
        assert_eq!(text(&input), "alpha beta gamma");
        ctrl(&mut input, 'r');
        assert_eq!(text(&input), "alpha beta ");

        let mut input = TextInput::new("");
        type_text(&mut input, "fix the build");
        ctrl(&mut input, 'u');
        assert_eq!(text(&input), "fix the ", "one undo takes back a word");
    }

    #[test]
    fn the_view_follows_the_cursor_and_draws_it_reversed() {
        use ratatui::Terminal;
        use ratatui::backend::TestBackend;
        let many: String = (0..20).map(|i| format!("line {i}\n")).collect();
        let mut input = TextInput::new(&many);
        let mut terminal = Terminal::new(TestBackend::new(10, 4)).unwrap();
        let draw = |input: &mut TextInput, terminal: &mut Terminal<TestBackend>| {
            terminal
                .draw(|frame| input.draw(frame, frame.area(), Style::new(), Style::new()))
                .unwrap();
            terminal.backend().buffer().clone()
        };
        draw(&mut input, &mut terminal);
        press(&mut input, KeyCode::PageDown, KeyModifiers::NONE);
        assert_eq!(input.cursor(), (4, 0));
        let shown = draw(&mut input, &mut terminal);
        assert_eq!(shown[(0, 0)].symbol(), "l");
        assert_eq!(input.top, 4);
        assert!(shown[(0, 0)].modifier.contains(Modifier::REVERSED));
        ctrl(&mut input, 'e');
        type_text(&mut input, " and more");
        let shown = draw(&mut input, &mut terminal);
        // "line 4 and more" scrolled sideways: the cursor past its end is the last cell.
        let row: String = (0..10).map(|x| shown[(x, 0)].symbol()).collect();
        assert_eq!(row, " and more ");
        assert!(shown[(9, 0)].modifier.contains(Modifier::REVERSED));
        assert!(!shown[(8, 0)].modifier.contains(Modifier::REVERSED));
    }
}

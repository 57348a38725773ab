//! Moving the cursor and the view: the motions keys name (by character, word, line,
//! paragraph, page, file), up and down by screen row with soft wrap, a click in the
//! text, and the wheel (the cursor kept on screen).
use super::*;

/// Where a movement key goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Motion {
    Left,
    Right,
    Up,
    Down,
    WordLeft,
    WordRight,
    WordEnd,
    LineStart,
    LineEnd,
    FirstNonBlank,
    FileStart,
    FileEnd,
    ParagraphUp,
    ParagraphDown,
    PageUp,
    PageDown,
}

impl Motion {
    /// The motion of a movement action, and whether it extends the selection.
    pub(super) fn of(action: Action) -> Option<(Motion, bool)> {
        use Action as A;
        use Motion as M;
        Some(match action {
            A::Left => (M::Left, false),
            A::Right => (M::Right, false),
            A::Up => (M::Up, false),
            A::Down => (M::Down, false),
            A::WordLeft => (M::WordLeft, false),
            A::WordRight => (M::WordRight, false),
            A::WordEnd => (M::WordEnd, false),
            A::LineStart => (M::LineStart, false),
            A::LineEnd => (M::LineEnd, false),
            A::FirstNonBlank => (M::FirstNonBlank, false),
            A::FileStart => (M::FileStart, false),
            A::FileEnd => (M::FileEnd, false),
            A::ParagraphUp => (M::ParagraphUp, false),
            A::ParagraphDown => (M::ParagraphDown, false),
            A::PageUp => (M::PageUp, false),
            A::PageDown => (M::PageDown, false),
            A::SelectLeft => (M::Left, true),
            A::SelectRight => (M::Right, true),
            A::SelectUp => (M::Up, true),
            A::SelectDown => (M::Down, true),
            A::SelectWordLeft => (M::WordLeft, true),
            A::SelectWordRight => (M::WordRight, true),
            A::SelectLineStart => (M::LineStart, true),
            A::SelectLineEnd => (M::LineEnd, true),
            A::SelectFileStart => (M::FileStart, true),
            A::SelectFileEnd => (M::FileEnd, true),
            _ => return None,
        })
    }

    pub(super) fn is_vertical(self) -> bool {
        matches!(
            self,
            Motion::Up | Motion::Down | Motion::PageUp | Motion::PageDown
        )
    }
}

impl Editor {
    /// Moves the cursor by `motion`; `select` extends the selection (vim's visual mode
    /// keeps its own).
    pub(super) fn go(&mut self, motion: Motion, select: bool) {
        let target = self.motion_target(motion, false);
        if let Some(doc) = self.doc.as_mut() {
            if matches!(doc.mode, Mode::Visual | Mode::VisualLine) && self.modal {
                doc.buffer.set_cursor(target);
            } else {
                doc.buffer.move_to(target, select);
            }
        }
    }

    /// Where `motion` takes the cursor. `by_line`: up and down count lines, not screen
    /// rows (for vim's operators).
    pub(super) fn motion_target(&mut self, motion: Motion, by_line: bool) -> Pos {
        let page = self.page.max(1) as isize;
        match motion {
            Motion::Up => return self.vertical(-1, by_line),
            Motion::Down => return self.vertical(1, by_line),
            Motion::PageUp => return self.vertical(-page, by_line),
            Motion::PageDown => return self.vertical(page, by_line),
            _ => {}
        }
        let Some(doc) = self.doc.as_ref() else {
            return (0, 0);
        };
        // In vim's normal and visual modes h and l stay on the line, and G / g g go to
        // a line's first character.
        let vim = self.modal && doc.mode != Mode::Insert;
        let buffer = &doc.buffer;
        let cursor = buffer.cursor();
        let (row, col) = cursor;
        let last = buffer.last_row();
        match motion {
            Motion::Left if vim => (row, col.saturating_sub(1)),
            Motion::Left => buffer.step_back(cursor),
            Motion::Right if vim => (row, (col + 1).min(buffer.line_len(row))),
            Motion::Right => buffer.step_forward(cursor),
            Motion::WordLeft => buffer.word_back(cursor),
            Motion::WordRight => buffer.word_forward(cursor),
            Motion::WordEnd => buffer.word_end(cursor),
            Motion::LineStart => (row, 0),
            Motion::LineEnd => (row, buffer.line_len(row)),
            Motion::FirstNonBlank => buffer.first_non_blank(row),
            Motion::FileStart if vim => buffer.first_non_blank(0),
            Motion::FileStart => (0, 0),
            Motion::FileEnd if vim => buffer.first_non_blank(last),
            Motion::FileEnd => (last, buffer.line_len(last)),
            Motion::ParagraphUp => buffer.paragraph_back(cursor),
            Motion::ParagraphDown => buffer.paragraph_forward(cursor),
            Motion::Up | Motion::Down | Motion::PageUp | Motion::PageDown => cursor,
        }
    }

    /// `rows` up (negative) or down from the cursor, keeping to the goal column: screen
    /// rows with soft wrap, lines without (or when `by_line`).
    pub(super) fn vertical(&mut self, rows: isize, by_line: bool) -> Pos {
        let width = if by_line { None } else { self.wrap_width() };
        let Editor { doc, wraps, .. } = self;
        let Some(doc) = doc.as_mut() else {
            return (0, 0);
        };
        let lines = doc.buffer.lines();
        let (row, col) = doc.buffer.cursor();
        let last = lines.len() - 1;
        let Some(width) = width else {
            let goal = *doc
                .goal
                .get_or_insert_with(|| display_column(&lines[row], col));
            let target = (row as isize + rows).clamp(0, last as isize) as usize;
            return (target, char_at_column(&lines[target], goal));
        };
        let key = (doc.id, doc.version, width);
        let mut line = row;
        let mut segments = wraps.rows(key, row, &lines[row]).to_vec();
        let mut segment = wrap::row_of(&segments, col);
        let goal = *doc
            .goal
            .get_or_insert_with(|| wrap::column_in_row(&lines[row], segments[segment], col));
        for _ in 0..rows.unsigned_abs() {
            if rows > 0 {
                if segment + 1 < segments.len() {
                    segment += 1;
                } else if line < last {
                    line += 1;
                    segments = wraps.rows(key, line, &lines[line]).to_vec();
                    segment = 0;
                } else {
                    break;
                }
            } else if segment > 0 {
                segment -= 1;
            } else if line > 0 {
                line -= 1;
                segments = wraps.rows(key, line, &lines[line]).to_vec();
                segment = segments.len() - 1;
            } else {
                break;
            }
        }
        (
            line,
            wrap::col_in_row(&lines[line], &segments, segment, goal),
        )
    }

    pub(super) fn click(&mut self, row: u16, col: u16) {
        let Some(doc) = self.doc.as_ref() else {
            return;
        };
        let gutter = doc.gutter_width();
        let x = (col as usize).saturating_sub(gutter);
        let target = if self.wrap_width().is_some() && !self.rows.is_empty() {
            match self.rows.get(row as usize) {
                Some(screen) => {
                    let text = &doc.buffer.lines()[screen.line];
                    let segment = screen.segment;
                    let within = char_at_column(&text[segment.start_byte..segment.end_byte], x);
                    let col = segment.start + within;
                    let col = if screen.last {
                        col.min(segment.end)
                    } else {
                        col.min(segment.end.saturating_sub(1)).max(segment.start)
                    };
                    (screen.line, col)
                }
                // Below the text: its end.
                None => {
                    let last = doc.buffer.last_row();
                    (last, doc.buffer.line_len(last))
                }
            }
        } else {
            let line = doc.top + row as usize;
            let column = x + doc.left;
            let char_index = doc
                .buffer
                .lines()
                .get(line)
                .map(|text| char_at_column(text, column))
                .unwrap_or(0);
            (line, char_index)
        };
        if let Some(doc) = self.doc.as_mut() {
            if matches!(doc.mode, Mode::Visual | Mode::VisualLine) {
                doc.mode = Mode::Normal;
            }
            doc.pending = None;
            doc.buffer.move_to(target, false);
        }
        self.clamp_to_character();
    }

    pub(super) fn scroll(&mut self, delta: i32) {
        let page = self.page.max(1);
        if let Some(width) = self.wrap_width() {
            self.scroll_wrapped(delta, width);
            self.clamp_to_character();
            return;
        }
        let Some(doc) = self.doc.as_mut() else {
            return;
        };
        let last = doc.buffer.last_row();
        doc.top = (doc.top as i64 + i64::from(delta)).clamp(0, last as i64) as usize;
        // Keep the cursor on screen, as a scroll wheel does in editors.
        let (row, col) = doc.cursor();
        if row < doc.top || row >= doc.top + page {
            let target = row.clamp(doc.top, doc.top + page - 1).min(last);
            doc.buffer.set_cursor((target, col));
        }
        self.clamp_to_character();
    }

    /// The wheel with soft wrap: by screen rows, the cursor kept on screen.
    pub(super) fn scroll_wrapped(&mut self, delta: i32, width: usize) {
        let page = self.page.max(1);
        let Editor { doc, wraps, .. } = self;
        let Some(doc) = doc.as_mut() else {
            return;
        };
        let key = (doc.id, doc.version, width);
        let lines = doc.buffer.lines();
        let last = lines.len() - 1;
        let mut rows_of = |line: usize| wraps.rows(key, line, &lines[line]).len();
        let step =
            |(line, row): (usize, usize), down: bool, rows_of: &mut dyn FnMut(usize) -> usize| {
                if down {
                    if row + 1 < rows_of(line) {
                        Some((line, row + 1))
                    } else if line < last {
                        Some((line + 1, 0))
                    } else {
                        None
                    }
                } else if row > 0 {
                    Some((line, row - 1))
                } else if line > 0 {
                    Some((line - 1, rows_of(line - 1) - 1))
                } else {
                    None
                }
            };
        let mut top = (doc.top.min(last), doc.top_row);
        for _ in 0..delta.unsigned_abs() {
            match step(top, delta > 0, &mut rows_of) {
                Some(next) => top = next,
                None => break,
            }
        }
        let mut bottom = top;
        for _ in 1..page {
            match step(bottom, true, &mut rows_of) {
                Some(next) => bottom = next,
                None => break,
            }
        }
        (doc.top, doc.top_row) = top;
        let (row, col) = doc.buffer.cursor();
        let segments = wraps.rows(key, row, &lines[row]);
        let at = (row, wrap::row_of(segments, col));
        let target = if at < top {
            Some(top)
        } else if at > bottom {
            Some(bottom)
        } else {
            None
        };
        if let Some((line, row)) = target {
            let start = wraps.rows(key, line, &lines[line])[row].start;
            doc.buffer.set_cursor((line, start));
        }
    }
}

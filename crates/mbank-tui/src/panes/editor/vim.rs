//! The vim preset's modes in the editor: normal (keys are commands), insert (keys are
//! text, as in the modeless editor) and visual (characters or whole lines), with the
//! operators `d`, `y` and `c` taking a motion or doubled for the line (`dd`, `yy`,
//! `cc`), and `g g`. The keys come from the keymap's `editor_normal`, `editor_insert`
//! and `editor_visual` tables; a keymap without them (the default) leaves the editor
//! modeless. An insert (from `i` or `c` to `esc`) is one undo step, as in vim.
use std::time::Instant;

use super::buffer::{Pos, Undo};
use super::clipboard::Register;
use super::{Editor, Motion};
use crate::keymap::Action;
use crate::pane::Effect;

/// Where vim's keys go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    #[default]
    Normal,
    Insert,
    /// Characters from where `v` was pressed to the cursor, both included.
    Visual,
    /// Whole lines from where `V` was pressed to the cursor's.
    VisualLine,
}

impl Mode {
    /// As the editor's bottom border shows it.
    pub fn label(self) -> &'static str {
        match self {
            Mode::Normal => "NORMAL",
            Mode::Insert => "INSERT",
            Mode::Visual => "VISUAL",
            Mode::VisualLine => "V-LINE",
        }
    }
}

/// An operator on text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Operator {
    Delete,
    Yank,
    Change,
}

impl Operator {
    fn of(action: Action) -> Option<Operator> {
        match action {
            Action::DeleteOp => Some(Operator::Delete),
            Action::YankOp => Some(Operator::Yank),
            Action::ChangeOp => Some(Operator::Change),
            _ => None,
        }
    }

    fn key(self) -> &'static str {
        match self {
            Operator::Delete => "d",
            Operator::Yank => "y",
            Operator::Change => "c",
        }
    }
}

/// The first key of a two-key command, waiting for the second.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pending {
    /// `g`, for `g g`.
    G,
    /// An operator, for a motion (or itself: the line).
    Operator(Operator),
    /// An operator then `g`, for `d g g`.
    OperatorG(Operator),
}

impl Pending {
    /// The keys typed so far, for the mode line.
    pub fn keys(self) -> String {
        match self {
            Pending::G => "g".into(),
            Pending::Operator(op) => op.key().into(),
            Pending::OperatorG(op) => format!("{}g", op.key()),
        }
    }
}

/// How a motion covers text when an operator takes it.
fn span(motion: Motion) -> (bool, bool) {
    // (whole lines, the target character included)
    match motion {
        Motion::Up
        | Motion::Down
        | Motion::PageUp
        | Motion::PageDown
        | Motion::FileStart
        | Motion::FileEnd => (true, false),
        Motion::WordEnd | Motion::LineEnd => (false, true),
        _ => (false, false),
    }
}

impl Editor {
    /// A key of normal mode.
    pub(super) fn normal(&mut self, action: Action, effects: &mut Vec<Effect>) {
        let now = Instant::now();
        let Some(doc) = self.doc.as_mut() else {
            return;
        };
        let pending = doc.pending.take();
        match (pending, action) {
            (Some(Pending::G), Action::GotoPrefix) => self.go(Motion::FileStart, false),
            (Some(Pending::Operator(op)), _) if Operator::of(action) == Some(op) => {
                let row = doc.buffer.cursor().0;
                self.operate_lines(op, row, row, effects);
            }
            (Some(Pending::Operator(op)), Action::GotoPrefix) => {
                doc.pending = Some(Pending::OperatorG(op));
            }
            (Some(Pending::OperatorG(op)), Action::GotoPrefix) => {
                let row = doc.buffer.cursor().0;
                self.operate_lines(op, 0, row, effects);
            }
            (Some(Pending::Operator(op)), _) => {
                if let Some((motion, false)) = Motion::of(action) {
                    self.operate(op, motion, effects);
                }
            }
            // A second key that completes nothing cancels the first.
            (Some(_), _) => {}
            (None, action) => self.normal_command(action, now, effects),
        }
        self.clamp_to_character();
    }

    fn normal_command(&mut self, action: Action, now: Instant, effects: &mut Vec<Effect>) {
        if let Some((motion, false)) = Motion::of(action) {
            self.go(motion, false);
            return;
        }
        let Some(doc) = self.doc.as_mut() else {
            return;
        };
        if let Some(op) = Operator::of(action) {
            doc.pending = Some(Pending::Operator(op));
            return;
        }
        match action {
            Action::GotoPrefix => doc.pending = Some(Pending::G),
            Action::NormalMode => {
                // Nothing pending: esc clears the search's highlight (vim's :noh).
                doc.buffer.set_search(None);
                self.found = None;
            }
            Action::DeleteForward => {
                if !self.writable(effects) {
                    return;
                }
                let Some(doc) = self.doc.as_mut() else {
                    return;
                };
                let (row, col) = doc.buffer.cursor();
                if col < doc.buffer.line_len(row) {
                    let removed =
                        doc.buffer
                            .replace((row, col), (row, col + 1), "", Undo::Own, now);
                    self.store(Register {
                        text: removed,
                        linewise: false,
                    });
                }
            }
            Action::PasteAfter | Action::PasteBefore => {
                self.put(action == Action::PasteAfter, now, effects);
            }
            Action::InsertMode
            | Action::Append
            | Action::AppendLineEnd
            | Action::InsertLineStart
            | Action::OpenBelow
            | Action::OpenAbove => self.enter_insert(action, now, effects),
            Action::VisualMode | Action::VisualLineMode => {
                doc.buffer.start_selection();
                doc.mode = if action == Action::VisualMode {
                    Mode::Visual
                } else {
                    Mode::VisualLine
                };
            }
            other => self.common(other, effects),
        }
    }

    /// A key of visual mode.
    pub(super) fn visual(&mut self, action: Action, effects: &mut Vec<Effect>) {
        let now = Instant::now();
        let Some(doc) = self.doc.as_mut() else {
            return;
        };
        let pending = doc.pending.take();
        let mode = doc.mode;
        if pending == Some(Pending::G) {
            if action == Action::GotoPrefix {
                self.go(Motion::FileStart, true);
            }
            self.clamp_to_character();
            return;
        }
        if let Some((motion, false)) = Motion::of(action) {
            self.go(motion, true);
            self.clamp_to_character();
            return;
        }
        if let Some(op) = Operator::of(action) {
            let (start, end) = self.visual_range().unwrap_or_default();
            self.leave_visual();
            if mode == Mode::VisualLine {
                self.operate_lines(op, start.0, end.0, effects);
            } else {
                self.operate_range(op, start, end, effects);
            }
            self.clamp_to_character();
            return;
        }
        match action {
            Action::GotoPrefix => doc.pending = Some(Pending::G),
            Action::NormalMode => self.leave_visual(),
            Action::VisualMode | Action::VisualLineMode => {
                let wanted = if action == Action::VisualMode {
                    Mode::Visual
                } else {
                    Mode::VisualLine
                };
                if mode == wanted {
                    self.leave_visual();
                } else {
                    doc.mode = wanted;
                }
            }
            Action::PasteAfter | Action::PasteBefore => {
                if !self.writable(effects) {
                    return;
                }
                let Some(text) = self.register.as_ref().map(|r| r.text.clone()) else {
                    return;
                };
                let (start, end) = self.visual_range().unwrap_or_default();
                self.leave_visual();
                if let Some(doc) = self.doc.as_mut() {
                    doc.buffer.replace(start, end, &text, Undo::Own, now);
                }
            }
            other => self.common(other, effects),
        }
        self.clamp_to_character();
    }

    /// The text visual mode covers, start before end (end excluded): the characters at
    /// both ends included, or whole lines.
    pub(super) fn visual_range(&self) -> Option<(Pos, Pos)> {
        let doc = self.doc.as_ref()?;
        let cursor = doc.buffer.cursor();
        let anchor = doc.buffer.anchor().unwrap_or(cursor);
        let (start, end) = if anchor <= cursor {
            (anchor, cursor)
        } else {
            (cursor, anchor)
        };
        match doc.mode {
            Mode::Visual => {
                let len = doc.buffer.line_len(end.0);
                Some((start, (end.0, (end.1 + 1).min(len))))
            }
            Mode::VisualLine => Some(((start.0, 0), (end.0, doc.buffer.line_len(end.0)))),
            Mode::Normal | Mode::Insert => None,
        }
    }

    fn leave_visual(&mut self) {
        if let Some(doc) = self.doc.as_mut() {
            doc.buffer.cancel_selection();
            doc.mode = Mode::Normal;
        }
    }

    /// `esc` in insert mode: the insert is one undo step; the cursor steps back onto
    /// the last character typed, as in vim.
    pub(super) fn leave_insert(&mut self) {
        if let Some(doc) = self.doc.as_mut() {
            doc.buffer.end_group();
            doc.buffer.cancel_selection();
            doc.mode = Mode::Normal;
            let (row, col) = doc.buffer.cursor();
            doc.buffer.set_cursor((row, col.saturating_sub(1)));
        }
    }

    fn enter_insert(&mut self, action: Action, now: Instant, effects: &mut Vec<Effect>) {
        if !self.writable(effects) {
            return;
        }
        let Some(doc) = self.doc.as_mut() else {
            return;
        };
        let buffer = &mut doc.buffer;
        let (row, col) = buffer.cursor();
        buffer.begin_group();
        match action {
            Action::Append => buffer.set_cursor((row, (col + 1).min(buffer.line_len(row)))),
            Action::AppendLineEnd => buffer.set_cursor((row, buffer.line_len(row))),
            Action::InsertLineStart => buffer.set_cursor(buffer.first_non_blank(row)),
            Action::OpenBelow => {
                let end = (row, buffer.line_len(row));
                buffer.replace(end, end, "\n", Undo::Own, now);
            }
            Action::OpenAbove => {
                buffer.replace((row, 0), (row, 0), "\n", Undo::Own, now);
                buffer.set_cursor((row, 0));
            }
            _ => {}
        }
        doc.mode = Mode::Insert;
    }

    /// `p` / `P`: the register after or before the cursor; whole lines below or above
    /// the cursor's line.
    fn put(&mut self, after: bool, now: Instant, effects: &mut Vec<Effect>) {
        if !self.writable(effects) {
            return;
        }
        let Some(register) = self.register.clone() else {
            effects.push(Effect::Toast("nothing copied yet".into()));
            return;
        };
        let Some(doc) = self.doc.as_mut() else {
            return;
        };
        let buffer = &mut doc.buffer;
        let (row, col) = buffer.cursor();
        if register.linewise {
            if after {
                let end = (row, buffer.line_len(row));
                buffer.replace(end, end, &format!("\n{}", register.text), Undo::Own, now);
                buffer.set_cursor(buffer.first_non_blank(row + 1));
            } else {
                let text = format!("{}\n", register.text);
                buffer.replace((row, 0), (row, 0), &text, Undo::Own, now);
                buffer.set_cursor(buffer.first_non_blank(row));
            }
        } else {
            let at = if after {
                (row, (col + 1).min(buffer.line_len(row)))
            } else {
                (row, col)
            };
            buffer.replace(at, at, &register.text, Undo::Own, now);
            // On the last character put, as vim leaves it.
            let end = buffer.cursor();
            buffer.set_cursor(buffer.step_back(end));
        }
    }

    /// An operator over a motion from the cursor.
    fn operate(&mut self, op: Operator, motion: Motion, effects: &mut Vec<Effect>) {
        let Some(doc) = self.doc.as_ref() else {
            return;
        };
        let from = doc.buffer.cursor();
        let (linewise, inclusive) = span(motion);
        // `cw` changes to the end of the word, as in vim.
        let (motion, inclusive) = if op == Operator::Change && motion == Motion::WordRight {
            (Motion::WordEnd, true)
        } else {
            (motion, inclusive)
        };
        let to = self.motion_target(motion, true);
        let Some(doc) = self.doc.as_ref() else {
            return;
        };
        if linewise {
            self.operate_lines(op, from.0.min(to.0), from.0.max(to.0), effects);
            return;
        }
        let (start, mut end) = if from <= to { (from, to) } else { (to, from) };
        if inclusive {
            end = (end.0, (end.1 + 1).min(doc.buffer.line_len(end.0)));
        }
        // `dw` on a line's last word stops at the line's end.
        if motion == Motion::WordRight && end.0 > start.0 {
            end = (start.0, doc.buffer.line_len(start.0));
        }
        self.operate_range(op, start, end, effects);
    }

    fn operate_range(&mut self, op: Operator, start: Pos, end: Pos, effects: &mut Vec<Effect>) {
        let now = Instant::now();
        if op != Operator::Yank && !self.writable(effects) {
            return;
        }
        let Some(doc) = self.doc.as_mut() else {
            return;
        };
        let text = doc.buffer.text_between(start, end);
        match op {
            Operator::Yank => doc.buffer.move_to(start, false),
            Operator::Delete => {
                doc.buffer.replace(start, end, "", Undo::Own, now);
            }
            Operator::Change => {
                doc.buffer.begin_group();
                doc.buffer.replace(start, end, "", Undo::Own, now);
                doc.mode = Mode::Insert;
            }
        }
        self.store(Register {
            text,
            linewise: false,
        });
    }

    /// An operator over whole lines `first..=last`.
    pub(super) fn operate_lines(
        &mut self,
        op: Operator,
        first: usize,
        last: usize,
        effects: &mut Vec<Effect>,
    ) {
        let now = Instant::now();
        if op != Operator::Yank && !self.writable(effects) {
            return;
        }
        let Some(doc) = self.doc.as_mut() else {
            return;
        };
        let buffer = &mut doc.buffer;
        let text = buffer.lines()[first..=last].join("\n");
        match op {
            Operator::Yank => {
                let col = buffer.cursor().1;
                buffer.move_to((first, col), false);
            }
            Operator::Delete => super::delete_lines(buffer, first, last, now),
            Operator::Change => {
                buffer.begin_group();
                let end = (last, buffer.line_len(last));
                buffer.replace((first, 0), end, "", Undo::Own, now);
                doc.mode = Mode::Insert;
            }
        }
        self.store(Register {
            text,
            linewise: true,
        });
    }

    /// In normal and visual mode the cursor sits on a character, never past the last.
    pub(super) fn clamp_to_character(&mut self) {
        if let Some(doc) = self.doc.as_mut()
            && matches!(doc.mode, Mode::Normal | Mode::Visual | Mode::VisualLine)
        {
            let (row, col) = doc.buffer.cursor();
            let len = doc.buffer.line_len(row);
            if len > 0 && col >= len {
                doc.buffer.set_cursor((row, len - 1));
            }
        }
    }
}

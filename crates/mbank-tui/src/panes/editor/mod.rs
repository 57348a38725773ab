//! The editor pane: a buffer of lines ([`buffer`]) drawn by this module so that only the
//! visible lines are styled and long lines stay plain. Prose (markdown) is soft-wrapped
//! ([`wrap`], `alt-z` toggles it), other files scroll sideways. Undo takes back a word
//! or a burst of typing at a time; the search ignores case unless the query has a
//! capital and counts its matches; copy, cut and paste go through the editor's register
//! and, by OSC 52, the system clipboard ([`clipboard`]). With the vim preset the editor
//! has vim's modes ([`vim`]). Saving goes through the core's guarded atomic write; a
//! file changed on disk while the buffer is dirty is never overwritten.
pub mod buffer;
pub mod clipboard;
pub mod input;
mod vim;
pub mod wrap;

mod document;
mod search;
mod view;

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use regex::Regex;
use unicode_width::UnicodeWidthChar;

use mbank_core::analysis::budgets::BudgetCheck;
use mbank_core::edit::EditText;
use mbank_core::findings::{Finding, Severity};
use mbank_core::markup::sanitize;
use mbank_core::tokens::TextStats;

use crate::highlight::HighlightCache;
use crate::keymap::{Action, KeyChord, KeyContext};
use crate::pane::{Effect, Focus, Input, Outcome, Pane, ViewContext, offers};
use crate::theme::Theme;
use crate::widgets;

pub use buffer::Undo;
pub(crate) use buffer::{Buffer, Pos};
pub use clipboard::Register;
pub(crate) use document::join_lines;
pub use document::split_lines;
#[cfg(test)]
use view::{marks_for_line, visible_spans};
pub use vim::Mode;
use wrap::{Segment, WrapCache, byte_at_column, cells};
pub(crate) use wrap::{char_at_column, display_column};

/// Lines longer than this are drawn plain (no highlighting).
pub(crate) const PLAIN_LINE_CAP: usize = 2_000;

/// A file in the editor.
pub struct Document {
    /// Unique for the process: answers from workers name the document they are for.
    pub id: u64,
    pub path: PathBuf,
    /// The Infinity memory this buffer edits, inside the store at `path`.
    pub memory_id: Option<String>,
    /// Shown above the text: an Infinity memory's locked type and title.
    pub locked_header: Option<String>,
    pub buffer: Buffer,
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
    /// 1-based lines the project's findings point at, with the worst severity on each:
    /// marked in the gutter and the preview.
    pub finding_lines: BTreeMap<usize, Severity>,
    /// Where the agent that loads the file stops reading, as the session start shows it:
    /// the gutter marks the lines past it.
    pub cut: Option<LoadCutMark>,
    /// First visible line; with soft wrap, its first visible row; without, the first
    /// visible column.
    pub top: usize,
    pub top_row: usize,
    pub left: usize,
    /// The vim mode (normal when the file opens); unused when the editor is modeless.
    pub mode: Mode,
    /// The first key of a two-key vim command.
    pending: Option<vim::Pending>,
    /// The column up and down keep aiming for (where the cursor left from, in cells).
    goal: Option<usize>,
}

/// The first line an agent no longer reads (1-based) and the cut in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadCutMark {
    pub first_line: usize,
    /// "past Claude Code's 200-line limit".
    pub label: String,
}

impl LoadCutMark {
    pub fn of(cut: &mbank_core::analysis::context::CutOff) -> LoadCutMark {
        LoadCutMark {
            first_line: cut.first_line_past,
            label: format!("past {}'s {}", cut.agent, cut.limit),
        }
    }
}

pub(crate) use crate::commands::EDITOR as COMMANDS;

pub(crate) use crate::commands::EDITOR_INSERT as INSERT_COMMANDS;

pub(crate) use crate::commands::EDITOR_NORMAL as NORMAL_COMMANDS;

pub(crate) use crate::commands::EDITOR_VISUAL as VISUAL_COMMANDS;

pub(crate) use crate::commands::EDITOR_VIEW as VIEW_COMMANDS;

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
    fn of(action: Action) -> Option<(Motion, bool)> {
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

    fn is_vertical(self) -> bool {
        matches!(
            self,
            Motion::Up | Motion::Down | Motion::PageUp | Motion::PageDown
        )
    }
}

/// What the editor is told, once the app's input is sorted out.
#[derive(Debug, Clone)]
pub enum Msg {
    Action(Action),
    Key(KeyEvent),
    Paste(String),
    Click { row: u16, col: u16 },
    Scroll(i32),
}

/// A search being typed (`ctrl-f`, vim's `/`), drawn on the pane's last line; the
/// cursor goes to the first match as you type and back when it is cancelled.
pub struct SearchPrompt {
    pub query: String,
    origin: Pos,
    /// Vim's command line (`:w`, `:q`), not a search.
    pub command: bool,
}

/// Where the last search stands: its query, the match at the cursor and the count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchStatus {
    pub query: String,
    /// Which match (from 1) starts at the cursor.
    pub current: Option<usize>,
    pub total: usize,
    /// The buffer version it was counted for (an edit makes the count stale).
    pub version: u64,
}

impl SearchStatus {
    /// "3/17", "17 matches" off a match, "no match".
    pub fn count(&self) -> String {
        match (self.current, self.total) {
            (_, 0) => "no match".into(),
            (Some(current), total) => format!("{current}/{total}"),
            (None, 1) => "1 match".into(),
            (None, total) => format!("{total} matches"),
        }
    }
}

/// The regex for a typed query: matched literally (people search memory for words, not
/// patterns), ignoring case unless the query has a capital letter (smart case).
pub(crate) fn search_regex(query: &str) -> Option<Regex> {
    let sensitive = query.chars().any(char::is_uppercase);
    regex::RegexBuilder::new(&regex::escape(query))
        .case_insensitive(!sensitive)
        .build()
        .ok()
}

/// A screen row drawn with soft wrap: a line's row `segment`, and whether it is the
/// line's last.
#[derive(Debug, Clone, Copy)]
struct ScreenRow {
    line: usize,
    segment: Segment,
    last: bool,
}

pub struct Editor {
    pub doc: Option<Document>,
    pub search: Option<SearchPrompt>,
    /// The last search's place and count.
    pub found: Option<SearchStatus>,
    /// Why the selected file cannot be shown.
    pub problem: Option<String>,
    /// Styles the highlight worker computed for the open document.
    pub highlights: Option<HighlightCache>,
    /// Vim's modes are on (the keymap has normal-mode keys).
    pub modal: bool,
    /// The modeless editor shows the file read-only until an explicit key starts
    /// editing: it was reached by a navigation key, where a letter must not type.
    pub viewing: bool,
    /// What was copied or cut last, kept across files.
    pub register: Option<Register>,
    /// A copy for the system clipboard, until the terminal loop sends it.
    clipboard_out: Option<String>,
    /// Soft wrap for prose files, and for the others (`alt-z` toggles the open file's
    /// kind for the session).
    pub wrap_prose: bool,
    pub wrap_other: bool,
    wraps: WrapCache,
    /// Rows and text width at the last draw.
    page: usize,
    text_width: usize,
    /// The pane and its text (inside the border) at the last draw.
    area: Rect,
    text_area: Rect,
    /// The rows drawn with soft wrap (for clicks), and the lines drawn.
    rows: Vec<ScreenRow>,
    visible: Option<Range<usize>>,
}

impl Default for Editor {
    fn default() -> Editor {
        Editor {
            doc: None,
            search: None,
            found: None,
            problem: None,
            highlights: None,
            modal: false,
            viewing: false,
            register: None,
            clipboard_out: None,
            wrap_prose: true,
            wrap_other: false,
            wraps: WrapCache::default(),
            page: 0,
            text_width: 0,
            area: Rect::default(),
            text_area: Rect::default(),
            rows: Vec::new(),
            visible: None,
        }
    }
}

impl Editor {
    /// An editor with vim's modes when `modal`.
    pub fn new(modal: bool) -> Editor {
        Editor {
            modal,
            ..Editor::default()
        }
    }

    /// Nothing open (another project); the register, the modes and the wrap choices
    /// stay.
    pub fn reset(&mut self) {
        *self = Editor {
            modal: self.modal,
            register: self.register.take(),
            clipboard_out: self.clipboard_out.take(),
            wrap_prose: self.wrap_prose,
            wrap_other: self.wrap_other,
            ..Editor::default()
        };
    }

    pub fn is_dirty(&self) -> bool {
        self.doc.as_ref().is_some_and(Document::is_dirty)
    }

    /// The keyboard arrives by a navigation key: nothing typed may edit the file. The
    /// modeless editor shows it read-only; vim's modes go back to normal.
    pub fn arrive_viewing(&mut self) {
        if self.modal {
            if let Some(doc) = self.doc.as_mut() {
                if doc.mode != Mode::Normal {
                    doc.buffer.cancel_selection();
                }
                doc.mode = Mode::Normal;
                doc.pending = None;
            }
        } else {
            self.viewing = true;
        }
    }

    /// The keyboard arrives to edit (a file opened with enter, a click, a finding).
    pub fn arrive_editing(&mut self) {
        self.viewing = false;
    }

    /// Typed text would go into the file now (not viewing, not in a vim command mode).
    pub fn types_text(&self) -> bool {
        if self.modal {
            self.doc.as_ref().is_some_and(|d| d.mode == Mode::Insert)
        } else {
            !self.viewing
        }
    }

    /// The text of the last copy or cut, once, for the system clipboard.
    pub fn take_clipboard(&mut self) -> Option<String> {
        self.clipboard_out.take()
    }

    /// Whether the open document is drawn soft-wrapped.
    pub fn wraps(&self) -> bool {
        self.doc.as_ref().is_some_and(|doc| self.wraps_doc(doc))
    }

    fn wraps_doc(&self, doc: &Document) -> bool {
        if doc.is_prose() {
            self.wrap_prose
        } else {
            self.wrap_other
        }
    }

    /// The width rows wrap at (one cell short of the text's, so the cursor after a
    /// full row's last character stays on screen); `None` without soft wrap or before
    /// the first draw.
    fn wrap_width(&self) -> Option<usize> {
        (self.wraps() && self.text_width > 1).then(|| self.text_width - 1)
    }

    /// Applies one message; returns what the app must do about it.
    pub fn update(&mut self, msg: Msg) -> Vec<Effect> {
        let mut effects = Vec::new();
        if self.search.is_some() {
            self.update_search(msg, &mut effects);
            return effects;
        }
        let Some(doc) = self.doc.as_ref() else {
            return effects;
        };
        let revision = doc.buffer.revision();
        let keeps_goal = match &msg {
            Msg::Action(action) => Motion::of(*action).is_some_and(|(m, _)| m.is_vertical()),
            Msg::Scroll(_) => true,
            _ => false,
        };
        match msg {
            Msg::Action(action) => self.on_action(action, &mut effects),
            Msg::Key(key) => self.on_typed(key),
            Msg::Paste(text) => self.on_paste(&text, &mut effects),
            Msg::Click { row, col } => self.click(row, col),
            Msg::Scroll(delta) => self.scroll(delta),
        }
        if let Some(doc) = self.doc.as_mut() {
            if !keeps_goal {
                doc.goal = None;
            }
            if doc.buffer.revision() != revision {
                doc.version += 1;
                effects.push(Effect::BufferChanged);
            }
        }
        effects
    }

    fn on_action(&mut self, action: Action, effects: &mut Vec<Effect>) {
        if self.modal {
            match self.doc.as_ref().map(|d| d.mode).unwrap_or_default() {
                Mode::Normal => return self.normal(action, effects),
                Mode::Visual | Mode::VisualLine => return self.visual(action, effects),
                Mode::Insert if action == Action::NormalMode => return self.leave_insert(),
                Mode::Insert => {}
            }
        }
        self.modeless(action, effects);
    }

    /// The modeless editor's actions (and vim's insert mode's).
    fn modeless(&mut self, action: Action, effects: &mut Vec<Effect>) {
        let now = Instant::now();
        if let Some((motion, select)) = Motion::of(action) {
            self.go(motion, select);
            return;
        }
        let read_only = self.doc.as_ref().is_none_or(|d| d.read_only.is_some());
        let Some(doc) = self.doc.as_mut() else {
            return;
        };
        let buffer = &mut doc.buffer;
        match action {
            Action::SelectAll => buffer.select_all(),
            Action::Newline if !read_only => buffer.insert("\n", Undo::Typed, now),
            Action::DeleteBack if !read_only => {
                buffer.delete_back(now);
            }
            Action::DeleteForward if !read_only => {
                buffer.delete_forward(now);
            }
            Action::DeleteWordBack if !read_only => {
                buffer.delete_word_back(now);
            }
            Action::DeleteWordForward if !read_only => {
                buffer.delete_word_forward(now);
            }
            Action::DeleteToLineEnd if !read_only => {
                buffer.delete_to_line_end(now);
            }
            Action::Copy => self.copy(),
            Action::Cut => self.cut(effects),
            Action::Paste => self.paste(effects),
            other => self.common(other, effects),
        }
    }

    /// Actions every mode shares.
    fn common(&mut self, action: Action, effects: &mut Vec<Effect>) {
        let Some(doc) = self.doc.as_mut() else {
            return;
        };
        match action {
            Action::Save => match &doc.read_only {
                Some(reason) => effects.push(Effect::Toast(format!("not saved: {reason}"))),
                None => effects.push(Effect::Save),
            },
            Action::Undo if doc.read_only.is_none() => {
                let done = doc.buffer.undo();
                if !done {
                    effects.push(Effect::Toast("nothing to undo".into()));
                }
            }
            Action::Redo if doc.read_only.is_none() => {
                let done = doc.buffer.redo();
                if !done {
                    effects.push(Effect::Toast("nothing to redo".into()));
                }
            }
            Action::Search => {
                self.search = Some(SearchPrompt {
                    query: String::new(),
                    origin: doc.buffer.cursor(),
                    command: false,
                });
            }
            Action::CommandLine => {
                self.search = Some(SearchPrompt {
                    query: String::new(),
                    origin: doc.buffer.cursor(),
                    command: true,
                });
            }
            Action::SearchNext | Action::SearchPrev => {
                self.search_step(action == Action::SearchNext, effects);
            }
            Action::Leave => effects.push(Effect::Focus(Focus::Tree)),
            Action::ToggleWrap => {
                let prose = doc.is_prose();
                let on = if prose {
                    self.wrap_prose = !self.wrap_prose;
                    self.wrap_prose
                } else {
                    self.wrap_other = !self.wrap_other;
                    self.wrap_other
                };
                let kind = if prose { "prose" } else { "other" };
                let state = if on { "on" } else { "off" };
                effects.push(Effect::Toast(format!("soft wrap {state} ({kind} files)")));
                if let Some(doc) = self.doc.as_mut() {
                    doc.top_row = 0;
                    doc.left = 0;
                }
            }
            _ => {}
        }
    }

    /// False (with a message) when the open document cannot be edited.
    fn writable(&self, effects: &mut Vec<Effect>) -> bool {
        match self.doc.as_ref().map(|d| d.read_only.as_ref()) {
            Some(None) => true,
            Some(Some(reason)) => {
                effects.push(Effect::Toast(format!("{reason}: not editable")));
                false
            }
            None => false,
        }
    }

    /// A typed character: text in the modeless editor and vim's insert mode.
    fn on_typed(&mut self, key: KeyEvent) {
        let Some(doc) = self.doc.as_mut() else {
            return;
        };
        if self.modal && doc.mode != Mode::Insert {
            // An unbound key ends a two-key command.
            doc.pending = None;
            return;
        }
        let KeyCode::Char(c) = key.code else {
            return;
        };
        if !KeyChord::from_event(&key).is_printable() || doc.read_only.is_some() {
            return;
        }
        doc.buffer
            .insert(c.encode_utf8(&mut [0; 4]), Undo::Typed, Instant::now());
    }

    /// Text pasted into the terminal (bracketed paste): at the cursor, over the
    /// selection; one undo step.
    fn on_paste(&mut self, text: &str, effects: &mut Vec<Effect>) {
        if !self.writable(effects) {
            return;
        }
        let Some(doc) = self.doc.as_mut() else {
            return;
        };
        if matches!(doc.mode, Mode::Visual | Mode::VisualLine) {
            doc.buffer.cancel_selection();
            doc.mode = Mode::Normal;
        }
        let text = clipboard::pasted_text(text);
        doc.buffer.insert(&text, Undo::Own, Instant::now());
    }

    /// Keeps `register` and sends it to the system clipboard.
    fn store(&mut self, register: Register) {
        self.clipboard_out = Some(register.clipboard_text());
        self.register = Some(register);
    }

    /// `ctrl-c`: the selection, or the whole line when nothing is selected.
    fn copy(&mut self) {
        let Some(doc) = self.doc.as_ref() else {
            return;
        };
        let buffer = &doc.buffer;
        let register = match buffer.selection() {
            Some((start, end)) => Register {
                text: buffer.text_between(start, end),
                linewise: false,
            },
            None => Register {
                text: buffer.lines()[buffer.cursor().0].clone(),
                linewise: true,
            },
        };
        self.store(register);
    }

    /// `ctrl-x`: the selection, or the whole line when nothing is selected.
    fn cut(&mut self, effects: &mut Vec<Effect>) {
        if !self.writable(effects) {
            return;
        }
        let Some(doc) = self.doc.as_mut() else {
            return;
        };
        let now = Instant::now();
        let buffer = &mut doc.buffer;
        let register = match buffer.delete_selection(now) {
            Some(text) => Register {
                text,
                linewise: false,
            },
            None => {
                let row = buffer.cursor().0;
                let text = buffer.lines()[row].clone();
                delete_lines(buffer, row, row, now);
                Register {
                    text,
                    linewise: true,
                }
            }
        };
        self.store(register);
    }

    /// `ctrl-v`: the register at the cursor (over the selection); whole lines above the
    /// cursor's line.
    fn paste(&mut self, effects: &mut Vec<Effect>) {
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
        let now = Instant::now();
        let buffer = &mut doc.buffer;
        if register.linewise && buffer.selection().is_none() {
            let (row, col) = buffer.cursor();
            let text = register.clipboard_text();
            buffer.replace((row, 0), (row, 0), &text, Undo::Own, now);
            buffer.set_cursor((row + text.matches('\n').count(), col));
        } else if register.linewise {
            buffer.insert(&register.clipboard_text(), Undo::Own, now);
        } else {
            buffer.insert(&register.text, Undo::Own, now);
        }
    }

    /// Moves the cursor by `motion`; `select` extends the selection (vim's visual mode
    /// keeps its own).
    fn go(&mut self, motion: Motion, select: bool) {
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
    fn motion_target(&mut self, motion: Motion, by_line: bool) -> Pos {
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
    fn vertical(&mut self, rows: isize, by_line: bool) -> Pos {
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

    fn click(&mut self, row: u16, col: u16) {
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

    fn scroll(&mut self, delta: i32) {
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
    fn scroll_wrapped(&mut self, delta: i32, width: usize) {
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

    /// Whether the pane takes `action` in its current mode.
    fn takes(&self, action: Action) -> bool {
        match self.context() {
            KeyContext::EditorInsert => offers(INSERT_COMMANDS, action) || offers(COMMANDS, action),
            KeyContext::EditorNormal => offers(NORMAL_COMMANDS, action),
            KeyContext::EditorVisual => offers(VISUAL_COMMANDS, action),
            KeyContext::EditorView => offers(VIEW_COMMANDS, action),
            _ => offers(COMMANDS, action),
        }
    }
}

/// Deletes lines `first..=last` whole (their line break too); the cursor goes to the
/// first non-blank of the line that takes their place.
fn delete_lines(buffer: &mut Buffer, first: usize, last: usize, now: Instant) {
    let end_row = buffer.last_row();
    if last < end_row {
        buffer.replace((first, 0), (last + 1, 0), "", Undo::Own, now);
    } else if first > 0 {
        let end = (last, buffer.line_len(last));
        buffer.replace(
            (first - 1, buffer.line_len(first - 1)),
            end,
            "",
            Undo::Own,
            now,
        );
    } else {
        let end = (last, buffer.line_len(last));
        buffer.replace((0, 0), end, "", Undo::Own, now);
    }
    let row = first.min(buffer.last_row());
    buffer.set_cursor(buffer.first_non_blank(row));
}

/// What vim's command line runs: `:w` saves, `:q` quits (asking over unsaved edits),
/// `:q!` quits, `:wq` / `:x` save (quitting is then `:q`); anything else says so.
fn ex_command(command: &str) -> Vec<Effect> {
    match command {
        "" => Vec::new(),
        "w" | "write" => vec![Effect::Save],
        "q" | "quit" => vec![Effect::Quit],
        "q!" | "quit!" => vec![Effect::Confirmed(crate::overlays::confirm::Confirmed::Quit)],
        "wq" | "x" => vec![
            Effect::Save,
            Effect::Toast("saving; :q quits once it is saved".into()),
        ],
        other => vec![Effect::ToastError(format!(
            "not an editor command: :{} (:w saves, :q quits, :q! quits without saving)",
            sanitize::line(other)
        ))],
    }
}

impl Pane for Editor {
    fn prompt_hints(&self) -> Option<&'static [(&'static str, &'static str)]> {
        const SEARCH: &[(&str, &str)] = &[("enter", "find"), ("esc", "cancel")];
        const COMMAND: &[(&str, &str)] = &[("enter", "run"), ("esc", "cancel")];
        let prompt = self.search.as_ref()?;
        Some(if prompt.command { COMMAND } else { SEARCH })
    }

    fn context(&self) -> KeyContext {
        if !self.modal {
            return if self.viewing {
                KeyContext::EditorView
            } else {
                KeyContext::Editor
            };
        }
        match self.doc.as_ref().map(|d| d.mode).unwrap_or_default() {
            Mode::Normal => KeyContext::EditorNormal,
            Mode::Insert => KeyContext::EditorInsert,
            Mode::Visual | Mode::VisualLine => KeyContext::EditorVisual,
        }
    }

    fn handle(&mut self, input: Input) -> Outcome {
        let msg = match input {
            // The search prompt takes every key while it is open.
            Input::Key(key) if self.search.is_some() => Msg::Key(key.event),
            Input::Key(key) if self.viewing && key.action == Some(Action::Edit) => {
                self.viewing = false;
                return Outcome::done();
            }
            Input::Key(key) => match key.action {
                Some(action) if self.takes(action) => Msg::Action(action),
                // A global key.
                Some(_) => return Outcome::Ignored,
                // Viewing, a typed key is not text: the app says how to start editing.
                None if self.viewing => return Outcome::Ignored,
                None => Msg::Key(key.event),
            },
            Input::Paste(_) if self.viewing => return Outcome::Ignored,
            Input::Paste(text) => Msg::Paste(text),
            Input::Click(position) => {
                let inner = self.text_area;
                if !inner.contains(position) {
                    return Outcome::done();
                }
                // A click in the text is as deliberate as enter: it starts editing.
                self.viewing = false;
                Msg::Click {
                    row: position.y - inner.y,
                    col: position.x - inner.x,
                }
            }
            Input::Scroll(delta) => Msg::Scroll(delta),
        };
        Outcome::Consumed(self.update(msg))
    }

    fn view(&mut self, frame: &mut Frame, area: Rect, cx: &ViewContext) {
        self.draw(frame, area, cx.theme, cx.focused);
    }

    fn area(&self) -> Rect {
        self.area
    }
}

/// Shared text of a buffer for background counting.
pub(crate) fn shared_text(doc: &Document) -> Arc<String> {
    Arc::new(doc.text())
}

#[cfg(test)]
mod tests;

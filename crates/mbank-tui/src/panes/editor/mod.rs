//! The editor pane: a buffer of lines ([`buffer`]) drawn by this module so that only the
//! visible lines are styled and long lines stay plain. Prose (markdown) is soft-wrapped
//! ([`wrap`], `alt-z` toggles it), other files scroll sideways. Undo takes back a word
//! or a burst of typing at a time; the search ignores case unless the query has a
//! capital and counts its matches; copy, cut and paste go through the editor's register
//! and, by OSC 52, the system clipboard ([`clipboard`]). With the vim preset the editor
//! has vim's modes (`vim`). Saving goes through the core's guarded atomic write; a
//! file changed on disk while the buffer is dirty is never overwritten.
//!
//! This module holds the pane's state and sorts its keys; beside it, the cursor's and
//! the view's moves (`motion`), the text's changes outside vim's operators
//! (`edits`), the search prompt and vim's command line (`search`), and drawing
//! (`view`).
pub mod buffer;
pub mod clipboard;
pub mod input;
mod vim;
pub mod wrap;

mod document;
mod edits;
mod motion;
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
use edits::delete_lines;
pub(crate) use motion::Motion;
#[cfg(test)]
use search::search_regex;
pub use search::{SearchPrompt, SearchStatus};
#[cfg(test)]
use view::{marks_for_line, visible_spans};
pub use vim::Mode;
use wrap::{WrapCache, WrapSegment, byte_at_column, cells};
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
    /// A cursor a reload could not keep (the text on disk was shorter), with where it
    /// landed instead and the buffer's version then: the next reload puts it back if it
    /// fits and neither the cursor nor the buffer changed since.
    kept_cursor: Option<(Pos, Pos, u64)>,
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

/// What the editor is told, once the app's input is sorted out.
#[derive(Debug, Clone)]
pub enum Msg {
    Action(Action),
    Key(KeyEvent),
    Paste(String),
    Click { row: u16, col: u16 },
    Scroll(i32),
}

/// A screen row drawn with soft wrap: a line's row `segment`, and whether it is the
/// line's last.
#[derive(Debug, Clone, Copy)]
struct ScreenRow {
    line: usize,
    segment: WrapSegment,
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
    pub(crate) fn arrive_viewing(&mut self) {
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
    pub(crate) fn arrive_editing(&mut self) {
        self.viewing = false;
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

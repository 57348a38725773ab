//! The editor's text: lines, a cursor and a selection, edits kept in undo groups, the
//! motions (characters, words, lines, paragraphs) and a search.
//!
//! The editor used to keep its text in a ratatui-textarea 0.9 `TextArea`. That buffer
//! undoes one character at a time and does not say how many steps an edit recorded (no
//! grouping can be built on it), places the cursor only through `Jump(u16, u16)` (no row
//! or column past 65,535: the soft-wrapped 500 KB line and 60,000-line files need both),
//! and rebuilds a map of every line on each edit (most of a keystroke's time in a 1.4 MB
//! buffer). This one is small and does exactly what the editor asks; the text popups
//! (a commit message, an agent's proposal) edit through it too ([`super::input`]).
//!
//! Positions are (row, column) with the column counted in characters.
use std::time::{Duration, Instant};

use regex::Regex;

/// A place in the text: (row, column in characters).
pub(crate) type Pos = (usize, usize);

/// How an edit joins the undo history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Undo {
    /// A typed character: joins the typing before it while the same word (and the
    /// spaces after it) is being typed, without a pause or a move in between.
    Typed,
    /// A character erased with backspace or delete: joins a burst of erasing.
    Erased,
    /// An undo step of its own (a paste, a cut, a command).
    Own,
}

/// Typing that pauses this long starts a new undo group.
pub(crate) const TYPING_PAUSE: Duration = Duration::from_secs(1);
/// How many undo groups are kept.
const MAX_GROUPS: usize = 1_000;

/// One change: `removed` was at `start` and `inserted` took its place.
#[derive(Debug, Clone, PartialEq, Eq)]
struct BufferEdit {
    start: Pos,
    removed: String,
    inserted: String,
}

/// What one undo takes back.
#[derive(Debug, Clone)]
struct Group {
    edits: Vec<BufferEdit>,
    cursor_before: Pos,
    cursor_after: Pos,
    kind: Undo,
    /// The last typed character was a space (the next letter starts a new word).
    after_space: bool,
    last_at: Instant,
}

#[derive(Debug, Clone, Default)]
struct UndoHistory {
    undo: Vec<Group>,
    redo: Vec<Group>,
    /// The last group may still take more typing.
    open: bool,
    /// An explicit group is open (a vim insert session): every edit joins it.
    session: Option<bool>,
    pause: Option<Duration>,
}

impl UndoHistory {
    fn record(&mut self, edit: BufferEdit, undo: Undo, before: Pos, after: Pos, now: Instant) {
        self.redo.clear();
        let typed_space = edit.inserted.chars().all(char::is_whitespace);
        let pause = self.pause.unwrap_or(TYPING_PAUSE);
        let join = match (self.session, self.undo.last()) {
            (Some(started), Some(_)) => started,
            (Some(_), None) => false,
            (None, Some(last)) => {
                self.open
                    && undo != Undo::Own
                    && last.kind == undo
                    && last.cursor_after == before
                    && now.saturating_duration_since(last.last_at) < pause
                    // A letter after a space starts the next word's group.
                    && !(undo == Undo::Typed && last.after_space && !typed_space)
            }
            (None, None) => false,
        };
        if join && let Some(last) = self.undo.last_mut() {
            last.edits.push(edit);
            last.cursor_after = after;
            last.last_at = now;
            last.after_space = typed_space;
            return;
        }
        self.undo.push(Group {
            edits: vec![edit],
            cursor_before: before,
            cursor_after: after,
            kind: undo,
            after_space: typed_space,
            last_at: now,
        });
        if self.undo.len() > MAX_GROUPS {
            self.undo.remove(0);
        }
        self.open = undo != Undo::Own;
        if let Some(started) = &mut self.session {
            *started = true;
        }
    }

    /// The next edit starts a group of its own.
    fn seal(&mut self) {
        self.open = false;
    }
}

/// Lines of text with a cursor, a selection anchor, undo history and a search pattern.
#[derive(Debug, Clone)]
pub struct Buffer {
    lines: Vec<String>,
    cursor: Pos,
    /// Where the selection started; the cursor is its other end.
    anchor: Option<Pos>,
    history: UndoHistory,
    search: Option<Regex>,
    /// Bumped by every change to the text.
    revision: u64,
}

impl Buffer {
    /// A buffer over `lines` (at least one, possibly empty), cursor at the start.
    pub fn new(mut lines: Vec<String>) -> Buffer {
        if lines.is_empty() {
            lines.push(String::new());
        }
        Buffer {
            lines,
            cursor: (0, 0),
            anchor: None,
            history: UndoHistory::default(),
            search: None,
            revision: 0,
        }
    }

    /// Changes with every edit, undo and redo.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    pub fn lines(&self) -> &[String] {
        &self.lines
    }

    pub fn cursor(&self) -> Pos {
        self.cursor
    }

    /// How long typing may pause and still join one undo group (tests pin it).
    pub fn set_typing_pause(&mut self, pause: Duration) {
        self.history.pause = Some(pause);
    }

    /// Characters in line `row` (0 past the end).
    pub(crate) fn line_len(&self, row: usize) -> usize {
        self.lines.get(row).map_or(0, |l| l.chars().count())
    }

    pub(crate) fn last_row(&self) -> usize {
        self.lines.len() - 1
    }

    /// `pos` moved inside the text.
    pub fn clamp(&self, (row, col): Pos) -> Pos {
        let row = row.min(self.last_row());
        (row, col.min(self.line_len(row)))
    }

    // --- the cursor and the selection -------------------------------------------------

    /// Moves the cursor; `select` extends the selection (starting one at the cursor),
    /// otherwise any selection ends.
    pub(crate) fn move_to(&mut self, pos: Pos, select: bool) {
        if select {
            self.anchor.get_or_insert(self.cursor);
        } else {
            self.anchor = None;
        }
        self.cursor = self.clamp(pos);
        self.history.seal();
    }

    /// Moves the cursor, keeping a selection as it is (its anchor stays).
    pub fn set_cursor(&mut self, pos: Pos) {
        self.cursor = self.clamp(pos);
        self.history.seal();
    }

    pub fn anchor(&self) -> Option<Pos> {
        self.anchor
    }

    /// Starts a selection at the cursor (vim's visual mode).
    pub(crate) fn start_selection(&mut self) {
        self.anchor = Some(self.cursor);
    }

    pub(crate) fn cancel_selection(&mut self) {
        self.anchor = None;
    }

    pub(crate) fn select_all(&mut self) {
        self.anchor = Some((0, 0));
        self.cursor = (self.last_row(), self.line_len(self.last_row()));
        self.history.seal();
    }

    /// The selection, start before end; `None` when nothing is selected.
    pub fn selection(&self) -> Option<(Pos, Pos)> {
        let anchor = self.anchor?;
        match anchor.cmp(&self.cursor) {
            std::cmp::Ordering::Less => Some((anchor, self.cursor)),
            std::cmp::Ordering::Equal => None,
            std::cmp::Ordering::Greater => Some((self.cursor, anchor)),
        }
    }

    /// The text between two positions (in either order).
    pub(crate) fn text_between(&self, a: Pos, b: Pos) -> String {
        let (start, end) = ordered(self.clamp(a), self.clamp(b));
        let start_byte = byte_of(&self.lines[start.0], start.1);
        let end_byte = byte_of(&self.lines[end.0], end.1);
        if start.0 == end.0 {
            return self.lines[start.0][start_byte..end_byte].to_string();
        }
        let mut text = self.lines[start.0][start_byte..].to_string();
        for line in &self.lines[start.0 + 1..end.0] {
            text.push('\n');
            text.push_str(line);
        }
        text.push('\n');
        text.push_str(&self.lines[end.0][..end_byte]);
        text
    }

    // --- editing --------------------------------------------------------------------

    /// Replaces the text between `a` and `b` with `text` (a selection is dropped); the
    /// cursor goes to the end of the new text. Returns what was removed.
    pub fn replace(&mut self, a: Pos, b: Pos, text: &str, undo: Undo, now: Instant) -> String {
        let (start, end) = ordered(self.clamp(a), self.clamp(b));
        let before = self.cursor;
        let edit = self.apply(start, end, text);
        let removed = edit.removed.clone();
        self.cursor = end_of(start, text);
        self.anchor = None;
        if !(edit.removed.is_empty() && edit.inserted.is_empty()) {
            self.history.record(edit, undo, before, self.cursor, now);
        }
        removed
    }

    /// Types or pastes `text` at the cursor, over the selection if there is one.
    pub fn insert(&mut self, text: &str, undo: Undo, now: Instant) {
        let (start, end) = self.selection().unwrap_or((self.cursor, self.cursor));
        self.replace(start, end, text, undo, now);
    }

    /// Deletes the selection; returns its text (`None`: nothing was selected).
    pub(crate) fn delete_selection(&mut self, now: Instant) -> Option<String> {
        let (start, end) = self.selection()?;
        Some(self.replace(start, end, "", Undo::Own, now))
    }

    /// Backspace: the selection, or the character before the cursor (joining lines at
    /// the start of one). False when there was nothing to delete.
    pub(crate) fn delete_back(&mut self, now: Instant) -> bool {
        if self.delete_selection(now).is_some() {
            return true;
        }
        let target = self.step_back(self.cursor);
        self.erase_to(target, now)
    }

    /// Delete: the selection, or the character under the cursor (joining the next line
    /// at the end of one).
    pub(crate) fn delete_forward(&mut self, now: Instant) -> bool {
        if self.delete_selection(now).is_some() {
            return true;
        }
        let target = self.step_forward(self.cursor);
        self.erase_to(target, now)
    }

    /// Deletes from the cursor back to the start of the word (or the line break); returns
    /// what went (`None`: nothing did).
    pub(crate) fn delete_word_back(&mut self, now: Instant) -> Option<String> {
        if let Some(selected) = self.delete_selection(now) {
            return Some(selected);
        }
        let (row, col) = self.cursor;
        let target = if col == 0 {
            self.step_back(self.cursor)
        } else {
            (row, word_start_backward(&self.lines[row], col).unwrap_or(0))
        };
        self.cut_to(target, now)
    }

    /// Deletes from the cursor to the end of the word (or the line break); returns what
    /// went.
    pub(crate) fn delete_word_forward(&mut self, now: Instant) -> Option<String> {
        if let Some(selected) = self.delete_selection(now) {
            return Some(selected);
        }
        let (row, col) = self.cursor;
        let len = self.line_len(row);
        let target = if col >= len {
            self.step_forward(self.cursor)
        } else {
            (
                row,
                word_exclusive_end_forward(&self.lines[row], col).unwrap_or(len),
            )
        };
        self.cut_to(target, now)
    }

    /// Deletes to the end of the line (joining the next line when already there); returns
    /// what went.
    pub(crate) fn delete_to_line_end(&mut self, now: Instant) -> Option<String> {
        if let Some(selected) = self.delete_selection(now) {
            return Some(selected);
        }
        let (row, col) = self.cursor;
        let len = self.line_len(row);
        let target = if col >= len {
            self.step_forward(self.cursor)
        } else {
            (row, len)
        };
        self.cut_to(target, now)
    }

    /// Deletes back to the start of the line (joining the previous line when already
    /// there); returns what went.
    pub(crate) fn delete_to_line_start(&mut self, now: Instant) -> Option<String> {
        if let Some(selected) = self.delete_selection(now) {
            return Some(selected);
        }
        let (row, col) = self.cursor;
        let target = if col == 0 {
            self.step_back(self.cursor)
        } else {
            (row, 0)
        };
        self.cut_to(target, now)
    }

    fn erase_to(&mut self, target: Pos, now: Instant) -> bool {
        if target == self.cursor {
            return false;
        }
        self.replace(self.cursor, target, "", Undo::Erased, now);
        true
    }

    fn cut_to(&mut self, target: Pos, now: Instant) -> Option<String> {
        (target != self.cursor).then(|| self.replace(self.cursor, target, "", Undo::Own, now))
    }

    /// Replaces everything (a merge result): one undo step.
    pub fn replace_all(&mut self, text: &str, now: Instant) {
        let end = (self.last_row(), self.line_len(self.last_row()));
        self.replace((0, 0), end, text, Undo::Own, now);
        self.cursor = (0, 0);
    }

    /// Every edit until [`Buffer::end_group`] is one undo step (a vim command and the
    /// text typed after it).
    pub(crate) fn begin_group(&mut self) {
        self.history.seal();
        self.history.session = Some(false);
    }

    pub(crate) fn end_group(&mut self) {
        self.history.session = None;
        self.history.seal();
    }

    /// Takes back the last undo group; false when there is none.
    pub fn undo(&mut self) -> bool {
        self.history.session = None;
        let Some(group) = self.history.undo.pop() else {
            return false;
        };
        for edit in group.edits.iter().rev() {
            let end = end_of(edit.start, &edit.inserted);
            self.apply(edit.start, end, &edit.removed);
        }
        self.cursor = self.clamp(group.cursor_before);
        self.anchor = None;
        self.history.redo.push(group);
        self.history.seal();
        true
    }

    /// Does again what the last undo took back.
    pub fn redo(&mut self) -> bool {
        let Some(group) = self.history.redo.pop() else {
            return false;
        };
        for edit in &group.edits {
            let end = end_of(edit.start, &edit.removed);
            self.apply(edit.start, end, &edit.inserted);
        }
        self.cursor = self.clamp(group.cursor_after);
        self.anchor = None;
        self.history.undo.push(group);
        self.history.seal();
        true
    }

    /// The raw change, without history or cursor: `start..end` becomes `text`.
    fn apply(&mut self, start: Pos, end: Pos, text: &str) -> BufferEdit {
        let start_byte = byte_of(&self.lines[start.0], start.1);
        let end_byte = byte_of(&self.lines[end.0], end.1);
        let removed = self.text_between(start, end);
        self.revision += 1;
        if start.0 == end.0 && !text.contains('\n') {
            self.lines[start.0].replace_range(start_byte..end_byte, text);
        } else {
            let tail = self.lines[end.0][end_byte..].to_string();
            let mut pieces = text.split('\n');
            let mut first = self.lines[start.0][..start_byte].to_string();
            first.push_str(pieces.next().unwrap_or_default());
            let mut new_lines = vec![first];
            new_lines.extend(pieces.map(str::to_string));
            if let Some(last) = new_lines.last_mut() {
                last.push_str(&tail);
            }
            self.lines.splice(start.0..=end.0, new_lines);
        }
        BufferEdit {
            start,
            removed,
            inserted: text.to_string(),
        }
    }

    // --- motions: where the cursor would go -------------------------------------------

    /// One character back, to the end of the previous line from a line's start.
    pub(crate) fn step_back(&self, (row, col): Pos) -> Pos {
        if col > 0 {
            (row, col - 1)
        } else if row > 0 {
            (row - 1, self.line_len(row - 1))
        } else {
            (0, 0)
        }
    }

    /// One character forward, to the start of the next line from a line's end.
    pub(crate) fn step_forward(&self, (row, col): Pos) -> Pos {
        if col < self.line_len(row) {
            (row, col + 1)
        } else if row < self.last_row() {
            (row + 1, 0)
        } else {
            (row, col)
        }
    }

    /// The start of the next word (vim's `w`; ctrl-right): across lines, stopping at
    /// the first non-blank of the next line.
    pub(crate) fn word_forward(&self, (row, col): Pos) -> Pos {
        if let Some(col) = word_start_forward(&self.lines[row], col) {
            return (row, col);
        }
        if row < self.last_row() {
            (row + 1, first_non_blank(&self.lines[row + 1]))
        } else {
            (row, self.line_len(row))
        }
    }

    /// The start of this or the previous word (vim's `b`; ctrl-left).
    pub(crate) fn word_back(&self, (mut row, mut col): Pos) -> Pos {
        loop {
            if let Some(found) = word_start_backward(&self.lines[row], col) {
                return (row, found);
            }
            if row == 0 {
                return (0, 0);
            }
            row -= 1;
            col = self.line_len(row);
            if col == 0 {
                return (row, 0);
            }
        }
    }

    /// The end of this or the next word (vim's `e`): on its last character.
    pub(crate) fn word_end(&self, (row, col): Pos) -> Pos {
        if let Some(found) = word_inclusive_end_forward(&self.lines[row], col + 1) {
            return (row, found);
        }
        for next in row + 1..self.lines.len() {
            if let Some(found) = word_inclusive_end_forward(&self.lines[next], 0) {
                return (next, found);
            }
        }
        let last = self.last_row();
        (last, self.line_len(last))
    }

    /// The first line of the next paragraph (after a blank line), or the last line.
    pub(crate) fn paragraph_forward(&self, (row, _): Pos) -> Pos {
        let mut previous_blank = self.lines[row].trim().is_empty();
        for next in row + 1..self.lines.len() {
            let blank = self.lines[next].trim().is_empty();
            if previous_blank && !blank {
                return (next, 0);
            }
            previous_blank = blank;
        }
        (self.last_row(), 0)
    }

    /// The first line of this paragraph, or of the previous one when already there.
    pub(crate) fn paragraph_back(&self, (row, _): Pos) -> Pos {
        let mut row = row;
        // Out of the blank lines above, then up to the paragraph's first line.
        while row > 0 && self.lines[row - 1].trim().is_empty() {
            row -= 1;
        }
        if row == 0 {
            return (0, 0);
        }
        row -= 1;
        while row > 0 && !self.lines[row - 1].trim().is_empty() {
            row -= 1;
        }
        (row, 0)
    }

    /// The first non-blank character of line `row`.
    pub(crate) fn first_non_blank(&self, row: usize) -> Pos {
        (row, self.lines.get(row).map_or(0, |l| first_non_blank(l)))
    }

    // --- search -----------------------------------------------------------------------

    pub(crate) fn set_search(&mut self, pattern: Option<Regex>) {
        self.search = pattern;
    }

    pub fn search_pattern(&self) -> Option<&Regex> {
        self.search.as_ref()
    }

    /// The next match from `from` (after it, or at it when `include_here`), going round
    /// the end of the text; backwards with `forward` false.
    pub fn find(&self, from: Pos, forward: bool, include_here: bool) -> Option<Pos> {
        let pattern = self.search.as_ref()?;
        let (row, col) = self.clamp(from);
        let count = self.lines.len();
        let starts = |line: &str| -> Vec<usize> {
            pattern
                .find_iter(line)
                .filter(|m| !m.is_empty())
                .map(|m| m.start())
                .collect()
        };
        let to_col = |line: &str, byte: usize| line[..byte].chars().count();
        let here_byte = byte_of(&self.lines[row], col);
        if forward {
            let line = &self.lines[row];
            if let Some(&byte) = starts(line)
                .iter()
                .find(|&&b| b > here_byte || (include_here && b == here_byte))
            {
                return Some((row, to_col(line, byte)));
            }
            for step in 1..=count {
                let next = (row + step) % count;
                let line = &self.lines[next];
                let found = starts(line);
                let candidate = if next == row {
                    found.into_iter().find(|&b| b <= here_byte)
                } else {
                    found.into_iter().next()
                };
                if let Some(byte) = candidate {
                    return Some((next, to_col(line, byte)));
                }
            }
        } else {
            let line = &self.lines[row];
            if let Some(&byte) = starts(line)
                .iter()
                .rev()
                .find(|&&b| b < here_byte || (include_here && b == here_byte))
            {
                return Some((row, to_col(line, byte)));
            }
            for step in 1..=count {
                let next = (row + count - step % count) % count;
                let line = &self.lines[next];
                let found = starts(line);
                let candidate = if next == row {
                    found.into_iter().rev().find(|&b| b >= here_byte)
                } else {
                    found.into_iter().last()
                };
                if let Some(byte) = candidate {
                    return Some((next, to_col(line, byte)));
                }
            }
        }
        None
    }

    /// How many matches there are, and which one (from 1) starts at `pos`.
    pub(crate) fn match_count(&self, pos: Pos) -> (Option<usize>, usize) {
        let Some(pattern) = &self.search else {
            return (None, 0);
        };
        let mut total = 0;
        let mut current = None;
        for (row, line) in self.lines.iter().enumerate() {
            if row == pos.0 {
                let here = byte_of(line, pos.1);
                for found in pattern.find_iter(line).filter(|m| !m.is_empty()) {
                    total += 1;
                    if found.start() == here {
                        current = Some(total);
                    }
                }
            } else {
                total += pattern.find_iter(line).filter(|m| !m.is_empty()).count();
            }
        }
        (current, total)
    }
}

fn ordered(a: Pos, b: Pos) -> (Pos, Pos) {
    if a <= b { (a, b) } else { (b, a) }
}

/// Where the cursor lands after `text` is inserted at `start`.
fn end_of(start: Pos, text: &str) -> Pos {
    match text.rsplit_once('\n') {
        None => (start.0, start.1 + text.chars().count()),
        Some((head, last)) => (
            start.0 + head.matches('\n').count() + 1,
            last.chars().count(),
        ),
    }
}

/// The byte offset of character `col` of `line` (its length past the end).
pub(crate) fn byte_of(line: &str, col: usize) -> usize {
    if line.is_ascii() {
        return col.min(line.len());
    }
    line.char_indices().nth(col).map_or(line.len(), |(b, _)| b)
}

fn first_non_blank(line: &str) -> usize {
    line.chars().take_while(|c| c.is_whitespace()).count()
}

/// What kind of character, for word motions: blanks, punctuation and word characters
/// make separate words (as in vim).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CharClass {
    Blank,
    Punctuation,
    Word,
}

fn kind(c: char) -> CharClass {
    if c.is_whitespace() {
        CharClass::Blank
    } else if c != '_' && c.is_ascii_punctuation() {
        CharClass::Punctuation
    } else {
        CharClass::Word
    }
}

/// The column of the next word start after `col` on `line`.
fn word_start_forward(line: &str, col: usize) -> Option<usize> {
    let mut chars = line.chars().enumerate().skip(col);
    let mut previous = kind(chars.next()?.1);
    for (index, c) in chars {
        let current = kind(c);
        if current != CharClass::Blank && current != previous {
            return Some(index);
        }
        previous = current;
    }
    None
}

/// The column just past the end of the word at or after `col`.
fn word_exclusive_end_forward(line: &str, col: usize) -> Option<usize> {
    let mut chars = line.chars().enumerate().skip(col);
    let mut previous = kind(chars.next()?.1);
    for (index, c) in chars {
        let current = kind(c);
        if previous != CharClass::Blank && current != previous {
            return Some(index);
        }
        previous = current;
    }
    None
}

/// The column of the last character of the word at or after `col`.
fn word_inclusive_end_forward(line: &str, col: usize) -> Option<usize> {
    let mut chars = line.chars().enumerate().skip(col);
    let (mut last, c) = chars.next()?;
    let mut previous = kind(c);
    for (index, c) in chars {
        let current = kind(c);
        if previous != CharClass::Blank && current != previous {
            return Some(index - 1);
        }
        previous = current;
        last = index;
    }
    (previous != CharClass::Blank).then_some(last)
}

/// The column of the start of the word before `col`.
fn word_start_backward(line: &str, col: usize) -> Option<usize> {
    let before: Vec<char> = line.chars().take(col).collect();
    let mut index = before.len();
    // Back over blanks, then over the word's own kind.
    while index > 0 && kind(before[index - 1]) == CharClass::Blank {
        index -= 1;
    }
    if index == 0 {
        return None;
    }
    let word = kind(before[index - 1]);
    while index > 0 && kind(before[index - 1]) == word {
        index -= 1;
    }
    Some(index)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buffer(text: &str) -> Buffer {
        Buffer::new(text.split('\n').map(str::to_string).collect())
    }

    fn text(buffer: &Buffer) -> String {
        buffer.lines().join("\n")
    }

    fn type_text(buffer: &mut Buffer, text: &str, now: Instant) {
        for c in text.chars() {
            buffer.insert(&c.to_string(), Undo::Typed, now);
        }
    }

    #[test]
    fn replace_spans_lines_and_undo_restores_them() {
        let now = Instant::now();
        let mut b = buffer("one\ntwo\nthree");
        let removed = b.replace((0, 1), (2, 2), "X\nY", Undo::Own, now);
        assert_eq!(removed, "ne\ntwo\nth");
        assert_eq!(text(&b), "oX\nYree");
        assert_eq!(b.cursor(), (1, 1));
        assert!(b.undo());
        assert_eq!(text(&b), "one\ntwo\nthree");
        assert_eq!(b.cursor(), (0, 0));
        assert!(b.redo());
        assert_eq!(text(&b), "oX\nYree");
        assert_eq!(b.cursor(), (1, 1));
    }

    #[test]
    fn typing_is_undone_a_word_at_a_time() {
        let now = Instant::now();
        let mut b = buffer("");
        type_text(&mut b, "hello brave world", now);
        assert!(b.undo());
        assert_eq!(text(&b), "hello brave ");
        assert!(b.undo());
        assert_eq!(text(&b), "hello ");
        assert!(b.redo());
        assert_eq!(text(&b), "hello brave ");
        assert!(b.undo() && b.undo());
        assert_eq!(text(&b), "");
        assert!(!b.undo());
    }

    #[test]
    fn a_pause_a_move_or_erasing_starts_a_new_group() {
        let start = Instant::now();
        let mut b = buffer("");
        type_text(&mut b, "abc", start);
        type_text(&mut b, "def", start + TYPING_PAUSE * 2);
        assert!(b.undo());
        assert_eq!(text(&b), "abc", "a pause splits a word");

        let mut b = buffer("");
        type_text(&mut b, "abc", start);
        b.move_to((0, 1), false);
        type_text(&mut b, "X", start);
        assert!(b.undo());
        assert_eq!(text(&b), "abc", "a move ends the group");

        let mut b = buffer("");
        type_text(&mut b, "abcd", start);
        assert!(b.delete_back(start) && b.delete_back(start));
        type_text(&mut b, "XY", start);
        assert_eq!(text(&b), "abXY");
        assert!(b.undo());
        assert_eq!(text(&b), "ab");
        assert!(b.undo());
        assert_eq!(text(&b), "abcd", "the burst of backspaces is one step");
    }

    #[test]
    fn an_explicit_group_takes_every_edit_until_it_ends() {
        let now = Instant::now();
        let mut b = buffer("keep\nline");
        b.begin_group();
        b.replace((1, 0), (1, 4), "", Undo::Own, now);
        type_text(&mut b, "new words here", now);
        b.end_group();
        type_text(&mut b, "!", now);
        assert_eq!(text(&b), "keep\nnew words here!");
        assert!(b.undo());
        assert_eq!(text(&b), "keep\nnew words here");
        assert!(b.undo());
        assert_eq!(text(&b), "keep\nline");
    }

    #[test]
    fn a_new_edit_drops_what_could_be_redone() {
        let now = Instant::now();
        let mut b = buffer("");
        type_text(&mut b, "one two", now);
        assert!(b.undo());
        type_text(&mut b, "three", now + TYPING_PAUSE * 2);
        assert!(!b.redo());
        assert_eq!(text(&b), "one three");
    }

    #[test]
    fn deleting_joins_lines_at_their_ends() {
        let now = Instant::now();
        let mut b = buffer("ab\ncd");
        b.move_to((1, 0), false);
        assert!(b.delete_back(now));
        assert_eq!(text(&b), "abcd");
        assert_eq!(b.cursor(), (0, 2));
        assert!(b.delete_forward(now) && b.delete_forward(now));
        assert_eq!(text(&b), "ab");
        assert!(!b.delete_forward(now));
        b.move_to((0, 0), false);
        assert!(!b.delete_back(now));
    }

    #[test]
    fn words_and_lines_are_deleted_whole() {
        let now = Instant::now();
        let mut b = buffer("alpha beta.gamma");
        b.move_to((0, 16), false);
        assert_eq!(b.delete_word_back(now).as_deref(), Some("gamma"));
        assert_eq!(text(&b), "alpha beta.");
        assert_eq!(b.delete_word_back(now).as_deref(), Some("."));
        assert_eq!(text(&b), "alpha beta");
        b.move_to((0, 0), false);
        assert_eq!(b.delete_word_forward(now).as_deref(), Some("alpha"));
        assert_eq!(text(&b), " beta");
        assert_eq!(b.delete_to_line_end(now).as_deref(), Some(" beta"));
        assert_eq!(text(&b), "");
        assert_eq!(b.delete_to_line_end(now), None);
    }

    #[test]
    fn deleting_to_the_line_start_joins_the_line_above_from_its_start() {
        let now = Instant::now();
        let mut b = buffer(
            "one
two three",
        );
        b.move_to((1, 4), false);
        assert_eq!(b.delete_to_line_start(now).as_deref(), Some("two "));
        assert_eq!(
            text(&b),
            "one
three"
        );
        assert_eq!(b.delete_to_line_start(now).as_deref(), Some("\n"));
        assert_eq!(text(&b), "onethree");
        assert_eq!(b.cursor(), (0, 3));
        b.move_to((0, 0), false);
        assert_eq!(b.delete_to_line_start(now), None);
    }

    #[test]
    fn selections_are_replaced_by_what_is_typed() {
        let now = Instant::now();
        let mut b = buffer("hello world");
        b.move_to((0, 6), false);
        b.move_to((0, 11), true);
        assert_eq!(b.selection(), Some(((0, 6), (0, 11))));
        assert_eq!(b.text_between((0, 6), (0, 11)), "world");
        b.insert("there", Undo::Own, now);
        assert_eq!(text(&b), "hello there");
        assert_eq!(b.selection(), None);
        b.select_all();
        assert_eq!(b.delete_selection(now).as_deref(), Some("hello there"));
        assert_eq!(text(&b), "");
    }

    #[test]
    fn word_motions_follow_vim() {
        let b = buffer("foo.bar  baz\n  next line\n\nlast");
        assert_eq!(b.word_forward((0, 0)), (0, 3));
        assert_eq!(b.word_forward((0, 3)), (0, 4));
        assert_eq!(b.word_forward((0, 4)), (0, 9));
        assert_eq!(b.word_forward((0, 9)), (1, 2));
        assert_eq!(b.word_end((0, 0)), (0, 2));
        assert_eq!(b.word_end((0, 2)), (0, 3));
        assert_eq!(b.word_end((0, 9)), (0, 11));
        assert_eq!(b.word_end((0, 11)), (1, 5));
        assert_eq!(b.word_back((0, 9)), (0, 4));
        assert_eq!(b.word_back((1, 2)), (0, 9));
        assert_eq!(b.word_back((3, 0)), (2, 0));
        assert_eq!(b.paragraph_forward((0, 0)), (3, 0));
        assert_eq!(b.paragraph_back((3, 2)), (0, 0));
        assert_eq!(b.first_non_blank(1), (1, 2));
    }

    #[test]
    fn search_goes_round_the_text_both_ways_and_counts() {
        let mut b = buffer("a cat\ncat cat\nno");
        b.set_search(Some(Regex::new("cat").unwrap()));
        assert_eq!(b.find((0, 0), true, false), Some((0, 2)));
        assert_eq!(b.find((0, 2), true, true), Some((0, 2)));
        assert_eq!(b.find((0, 2), true, false), Some((1, 0)));
        assert_eq!(b.find((1, 4), true, false), Some((0, 2)), "wraps");
        assert_eq!(b.find((0, 2), false, false), Some((1, 4)), "wraps back");
        assert_eq!(b.find((1, 4), false, false), Some((1, 0)));
        assert_eq!(b.match_count((1, 4)), (Some(3), 3));
        assert_eq!(b.match_count((2, 0)), (None, 3));
        b.set_search(Some(Regex::new("dog").unwrap()));
        assert_eq!(b.find((0, 0), true, true), None);
    }

    #[test]
    fn positions_past_u16_are_reachable() {
        let long = "word ".repeat(20_000);
        let mut b = buffer(&long);
        b.move_to((0, 99_990), false);
        assert_eq!(b.cursor(), (0, 99_990));
        let many = "x\n".repeat(70_000);
        let mut b = buffer(&many);
        b.move_to((69_999, 1), false);
        assert_eq!(b.cursor(), (69_999, 1));
    }

    #[test]
    fn wide_characters_count_as_one_column() {
        let now = Instant::now();
        let mut b = buffer("日本語");
        b.move_to((0, 1), false);
        b.insert("x", Undo::Typed, now);
        assert_eq!(text(&b), "日x本語");
        assert!(b.delete_back(now));
        assert!(b.delete_forward(now));
        assert_eq!(text(&b), "日語");
    }
}

//! The selection and scroll state every list pane shares (picker, tree, findings,
//! timeline, review): keys, wheel, clicks and pastes move it the same way everywhere.
use std::ops::Range;

use ratatui::layout::{Position, Rect};

use super::keymap::Action;
use super::protocol::{Input, KeyInput};

/// What a pane's input did to its list, once wheel, clicks and pastes are applied;
/// keys stay the pane's own.
#[derive(Debug)]
pub enum ListInput {
    /// A key, for the pane to handle.
    Key(KeyInput),
    /// A click selected a row; `again` when it was already selected (a second click
    /// activates it).
    Selected { again: bool },
    /// A click that landed on no row.
    Missed,
    /// The wheel moved the selection.
    Scrolled,
    /// Pasted text went into the filter, which must be applied again.
    Filtered,
    /// Pasted text with no filter being typed: not the list's.
    Ignored,
}

/// The row of a bordered list's `area` under `position` (0: the first row inside the border).
pub(crate) fn row_inside_border(area: Rect, position: Position) -> usize {
    position.y.saturating_sub(area.y + 1) as usize
}

/// How much of a paste a filter line keeps (control characters never go in).
#[derive(Debug, Clone, Copy)]
pub enum PasteRule {
    /// Up to the first line break.
    FirstLine,
    /// At most this many characters of the whole paste.
    UpTo(usize),
}

impl PasteRule {
    fn append(self, filter: &mut String, text: &str) {
        let printable = |c: &char| !c.is_control();
        match self {
            Self::FirstLine => {
                filter.extend(text.chars().take_while(|c| *c != '\n').filter(printable));
            }
            Self::UpTo(limit) => filter.extend(text.chars().filter(printable).take(limit)),
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ListCursor {
    pub selected: usize,
    /// First row shown.
    pub offset: usize,
    /// Rows shown at the last draw.
    pub page: usize,
}

impl ListCursor {
    /// Applies a navigation action to a list of `len` rows; false when `action` is not one.
    pub fn navigate(&mut self, action: Action, len: usize) -> bool {
        let last = len.saturating_sub(1);
        let page = self.page.max(1);
        self.selected = match action {
            Action::Up => self.selected.saturating_sub(1),
            Action::Down => (self.selected + 1).min(last),
            Action::PageUp => self.selected.saturating_sub(page),
            Action::PageDown => (self.selected + page).min(last),
            Action::Top => 0,
            Action::Bottom => last,
            _ => return false,
        };
        true
    }

    /// Moves the selection by a wheel's `delta` rows.
    pub fn scroll(&mut self, delta: i32, len: usize) {
        let last = len.saturating_sub(1) as i64;
        self.selected = (self.selected as i64 + i64::from(delta)).clamp(0, last) as usize;
    }

    /// A click on the `row`-th visible row: `Some(true)` when it was already selected
    /// (a second click activates it), `Some(false)` when it selects it, `None` past the end.
    pub fn click(&mut self, row: usize, len: usize) -> Option<bool> {
        let index = self.offset + row;
        if index >= len {
            return None;
        }
        let again = index == self.selected;
        self.selected = index;
        Some(again)
    }

    /// Applies a wheel, click or paste to a list of `len` rows. `row_at` names the
    /// visible row under a click (`None`: off the rows); `filter` is the filter line
    /// being typed, if any, which takes pastes.
    pub fn apply(
        &mut self,
        input: Input,
        len: usize,
        row_at: impl FnOnce(Position) -> Option<usize>,
        filter: Option<(&mut String, PasteRule)>,
    ) -> ListInput {
        match input {
            Input::Key(key) => ListInput::Key(key),
            Input::Click(position) => match row_at(position).and_then(|row| self.click(row, len)) {
                Some(again) => ListInput::Selected { again },
                None => ListInput::Missed,
            },
            Input::Scroll(delta) => {
                self.scroll(delta, len);
                ListInput::Scrolled
            }
            Input::Paste(text) => match filter {
                Some((filter, rule)) => {
                    rule.append(filter, &text);
                    ListInput::Filtered
                }
                None => ListInput::Ignored,
            },
        }
    }

    /// Keeps the selection inside a list that changed length.
    pub fn clamp(&mut self, len: usize) {
        self.selected = self.selected.min(len.saturating_sub(1));
    }

    /// Records the page height and scrolls so the selection shows; returns the rows to draw.
    pub fn layout(&mut self, height: usize, len: usize) -> Range<usize> {
        self.page = height.max(1);
        self.clamp(len);
        if self.selected < self.offset {
            self.offset = self.selected;
        } else if self.selected >= self.offset + self.page {
            self.offset = self.selected + 1 - self.page;
        }
        // A list that shrank (a folder folded) is not left scrolled past its end: the
        // rows above come back rather than blank rows below.
        self.offset = self.offset.min(len.saturating_sub(self.page));
        self.offset..(self.offset + self.page).min(len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_move_within_bounds() {
        let mut cursor = ListCursor {
            page: 5,
            ..ListCursor::default()
        };
        assert!(cursor.navigate(Action::Down, 3));
        assert!(cursor.navigate(Action::PageDown, 3));
        assert_eq!(cursor.selected, 2);
        assert!(cursor.navigate(Action::Top, 3));
        assert_eq!(cursor.selected, 0);
        assert!(cursor.navigate(Action::Up, 3));
        assert_eq!(cursor.selected, 0);
        assert!(!cursor.navigate(Action::Open, 3));
        cursor.scroll(10, 3);
        assert_eq!(cursor.selected, 2);
        cursor.scroll(-10, 0);
        assert_eq!(cursor.selected, 0);
    }

    #[test]
    fn layout_follows_the_selection_and_clicks_map_to_rows() {
        let mut cursor = ListCursor {
            selected: 12,
            ..ListCursor::default()
        };
        assert_eq!(cursor.layout(5, 20), 8..13);
        assert_eq!(cursor.click(0, 20), Some(false));
        assert_eq!(cursor.selected, 8);
        assert_eq!(cursor.click(0, 20), Some(true));
        assert_eq!(cursor.click(30, 20), None);
        cursor.selected = 0;
        assert_eq!(cursor.layout(5, 20), 0..5);
        assert_eq!(cursor.layout(5, 0), 0..0);
    }

    #[test]
    fn a_list_that_shrinks_below_its_scroll_shows_the_rows_above_again() {
        let mut cursor = ListCursor {
            selected: 19,
            ..ListCursor::default()
        };
        assert_eq!(cursor.layout(5, 20), 15..20);
        // Folded to 8 rows with the selection on the folder, row 6.
        cursor.selected = 6;
        assert_eq!(cursor.layout(5, 8), 3..8);
        assert_eq!(cursor.layout(5, 3), 0..3);
    }

    #[test]
    fn wheel_clicks_and_pastes_move_the_list_and_fill_only_a_typed_filter() {
        let mut cursor = ListCursor {
            page: 5,
            ..ListCursor::default()
        };
        let on_row = |position: Position| Some(usize::from(position.y));
        let at = |y| Input::Click(Position { x: 0, y });
        assert!(matches!(
            cursor.apply(Input::Scroll(3), 10, on_row, None),
            ListInput::Scrolled
        ));
        assert_eq!(cursor.selected, 3);
        assert!(matches!(
            cursor.apply(at(1), 10, on_row, None),
            ListInput::Selected { again: false }
        ));
        assert!(matches!(
            cursor.apply(at(1), 10, on_row, None),
            ListInput::Selected { again: true }
        ));
        assert!(matches!(
            cursor.apply(at(20), 10, on_row, None),
            ListInput::Missed
        ));
        assert!(matches!(
            cursor.apply(at(2), 10, |_| None, None),
            ListInput::Missed
        ));
        assert_eq!(cursor.selected, 1);

        let paste = || Input::Paste("ab\u{1b}c\nde".into());
        assert!(matches!(
            cursor.apply(paste(), 10, on_row, None),
            ListInput::Ignored
        ));
        let mut filter = String::from("x");
        let kept = Some((&mut filter, PasteRule::FirstLine));
        assert!(matches!(
            cursor.apply(paste(), 10, on_row, kept),
            ListInput::Filtered
        ));
        assert_eq!(filter, "xabc");
        let mut filter = String::new();
        let kept = Some((&mut filter, PasteRule::UpTo(4)));
        assert!(matches!(
            cursor.apply(paste(), 10, on_row, kept),
            ListInput::Filtered
        ));
        assert_eq!(filter, "abcd");
        assert_eq!(cursor.selected, 1);
    }

    #[test]
    fn rows_inside_a_border_count_from_the_first_inner_row() {
        let area = Rect::new(0, 4, 10, 6);
        assert_eq!(row_inside_border(area, Position { x: 1, y: 5 }), 0);
        assert_eq!(row_inside_border(area, Position { x: 1, y: 8 }), 3);
        assert_eq!(row_inside_border(area, Position { x: 1, y: 2 }), 0);
    }
}

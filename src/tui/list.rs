//! The selection and scroll state every list pane shares (picker, tree, findings,
//! timeline): keys, wheel and clicks move it the same way everywhere.
use std::ops::Range;

use super::keymap::Action;

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
}

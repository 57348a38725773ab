//! The mouse: a click focuses the pane under it and goes to it; the wheel scrolls the
//! pane under it without moving the focus. Panes know where they were drawn.
use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::Position;

use super::{App, Screen};
use crate::overlays::Overlay;
use crate::pane::{Input, Pane};

/// Rows one notch of the wheel scrolls.
const WHEEL_ROWS: i32 = 3;

impl App {
    pub(super) fn on_mouse(&mut self, mouse: MouseEvent) {
        let position = Position::new(mouse.column, mouse.row);
        let input = match mouse.kind {
            MouseEventKind::ScrollDown => Input::Scroll(WHEEL_ROWS),
            MouseEventKind::ScrollUp => Input::Scroll(-WHEEL_ROWS),
            MouseEventKind::Down(MouseButton::Left) => Input::Click(position),
            _ => return,
        };
        // Under an overlay the panes get nothing; the history overlay takes the wheel
        // (its diff) and clicks (its versions).
        match self.overlays.last_mut() {
            None => {}
            Some(overlay @ Overlay::History(_)) => {
                let outcome = overlay.handle(input);
                self.apply_outcome(outcome);
                return;
            }
            Some(_) => return,
        }
        let outcome = match self.screen {
            // The picker fills the screen: the wheel scrolls it wherever it turns.
            Screen::Picker => self.projects.picker.handle(input),
            Screen::Changes => self.changes.handle(input),
            Screen::Project => {
                let Some(pane) = self
                    .visible_panes()
                    .into_iter()
                    .find(|&pane| self.pane(pane).area().contains(position))
                else {
                    return;
                };
                if matches!(input, Input::Click(_)) {
                    self.focus = pane;
                }
                self.pane_mut(pane).handle(input)
            }
        };
        self.apply_outcome(outcome);
    }
}

//! Layers above the panes. The top one gets every key first; panes see keys only when
//! the stack is empty.
pub mod commit;
pub mod confirm;
pub mod conflict;
pub mod help;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::Clear;

use super::keymap::KeyContext;

/// Clears and returns a box of at most `width` x `height`, centred in `area` with a
/// `margin` of cells kept free on every side.
pub fn popup_area(frame: &mut Frame, area: Rect, width: u16, height: u16, margin: u16) -> Rect {
    let width = width.min(area.width.saturating_sub(margin * 2));
    let height = height.min(area.height.saturating_sub(margin * 2));
    let popup = Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    };
    frame.render_widget(Clear, popup);
    popup
}

pub enum Overlay {
    Help(help::Help),
    Confirm(confirm::Confirm),
    Conflict(conflict::Conflict),
    Commit(Box<commit::CommitEditor>),
}

impl Overlay {
    pub fn context(&self) -> KeyContext {
        match self {
            Overlay::Help(_) => KeyContext::Help,
            Overlay::Confirm(_) => KeyContext::Confirm,
            Overlay::Conflict(_) => KeyContext::Conflict,
            Overlay::Commit(_) => KeyContext::CommitMessage,
        }
    }
}

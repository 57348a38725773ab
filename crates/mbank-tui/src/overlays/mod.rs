//! Layers above the panes. The top one gets every key first and keeps it (overlays are
//! modal); panes see keys only when the stack is empty.
pub mod adr_title;
pub mod commit;
pub mod confirm;
pub mod conflict;
pub mod help;
pub mod history;
pub mod proposal;
pub mod search;
mod text_popup;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::Clear;

use super::keymap::KeyContext;
use super::pane::{Input, Outcome, Pane, ViewContext};

/// Clears and returns a box of at most `width` x `height`, centred in `area` with a
/// `margin` of cells kept free on every side.
pub(crate) fn popup_area(
    frame: &mut Frame,
    area: Rect,
    width: u16,
    height: u16,
    margin: u16,
) -> Rect {
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

/// An overlay on the stack; the top one has the keyboard.
#[derive(Debug)]
pub enum Overlay {
    Help(help::Help),
    Confirm(confirm::Confirm),
    Conflict(Box<conflict::Conflict>),
    Commit(Box<commit::CommitEditor>),
    History(Box<history::HistoryView>),
    Proposal(Box<proposal::ProposalEditor>),
    Search(Box<search::SearchView>),
    AdrTitle(Box<adr_title::AdrTitle>),
}

impl Overlay {
    fn pane(&mut self) -> &mut dyn Pane {
        match self {
            Overlay::Help(help) => help,
            Overlay::Confirm(confirm) => confirm,
            Overlay::Conflict(conflict) => conflict.as_mut(),
            Overlay::Commit(editor) => editor.as_mut(),
            Overlay::History(history) => history.as_mut(),
            Overlay::Proposal(editor) => editor.as_mut(),
            Overlay::Search(search) => search.as_mut(),
            Overlay::AdrTitle(title) => title.as_mut(),
        }
    }
}

impl Pane for Overlay {
    fn context(&self) -> KeyContext {
        match self {
            Overlay::Help(_) => KeyContext::Help,
            Overlay::Confirm(_) => KeyContext::Confirm,
            Overlay::Conflict(_) => KeyContext::Conflict,
            Overlay::History(_) => KeyContext::History,
            Overlay::Search(_) => KeyContext::Search,
            Overlay::Commit(_) | Overlay::Proposal(_) | Overlay::AdrTitle(_) => {
                KeyContext::CommitMessage
            }
        }
    }

    /// Overlays are modal: they take every input, whatever they do with it.
    fn handle(&mut self, input: Input) -> Outcome {
        match self.pane().handle(input) {
            Outcome::Ignored => Outcome::done(),
            consumed => consumed,
        }
    }

    fn view(&mut self, frame: &mut Frame, area: Rect, cx: &ViewContext) {
        self.pane().view(frame, area, cx);
    }

    fn area(&self) -> Rect {
        match self {
            Overlay::Help(help) => help.area(),
            Overlay::Confirm(confirm) => confirm.area(),
            Overlay::Conflict(conflict) => conflict.area(),
            Overlay::Commit(editor) => editor.area(),
            Overlay::History(history) => history.area(),
            Overlay::Proposal(editor) => editor.area(),
            Overlay::Search(search) => search.area(),
            Overlay::AdrTitle(title) => title.area(),
        }
    }

    fn prompt_hints(&self) -> Option<&'static [(&'static str, &'static str)]> {
        match self {
            Overlay::Search(search) => search.prompt_hints(),
            _ => None,
        }
    }
}

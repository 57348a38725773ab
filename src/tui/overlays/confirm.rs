//! The one confirm popup for anything that can lose work: it names what will be lost and
//! carries the action to run on "yes".
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use crate::tui::keymap::{Action, KeyContext, Keymap};
use crate::tui::theme::Theme;
use crate::tui::widgets;

/// What "yes" does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Confirmed {
    Quit,
    /// Leave the open project (unsaved edits dropped) for another.
    SwitchProject(std::path::PathBuf),
    /// Open another file in the editor, dropping the unsaved buffer.
    OpenFile {
        path: std::path::PathBuf,
        memory_id: Option<String>,
        focus: bool,
    },
    /// Create a bank in this folder.
    InitBank(std::path::PathBuf),
    /// Reject the whole file the review showed at this path (the prompt named the loss).
    RejectFile(std::path::PathBuf),
    /// Outside git: take the current memory as reviewed.
    MarkReviewed,
}

pub struct Confirm {
    pub title: String,
    /// What will happen, naming what is lost.
    pub message: String,
    pub on_yes: Confirmed,
}

pub enum Answer {
    Yes(Confirmed),
    No,
}

impl Confirm {
    pub fn update(&mut self, action: Action) -> Option<Answer> {
        match action {
            Action::Yes => Some(Answer::Yes(self.on_yes.clone())),
            Action::No | Action::Back | Action::Quit => Some(Answer::No),
            _ => None,
        }
    }

    pub fn view(&self, frame: &mut Frame, area: Rect, theme: &Theme, keymap: &Keymap) {
        let popup = super::popup_area(frame, area, 70, 8, 2);
        let key = |action| {
            keymap
                .key_for(KeyContext::Confirm, action)
                .map(|k| k.to_string())
                .unwrap_or_default()
        };
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.fg(theme.warning))
            .style(theme.base())
            .title(Span::styled(
                format!(" {} ", widgets::shown(&self.title)),
                theme.fg(theme.warning),
            ));
        let inner = block.inner(popup);
        frame.render_widget(block, popup);
        let lines = vec![
            Line::from(Span::styled(
                widgets::shown(&self.message).into_owned(),
                theme.fg(theme.text),
            )),
            Line::from(""),
            Line::from(vec![
                Span::styled(key(Action::Yes), theme.key()),
                Span::raw(" yes   "),
                Span::styled(key(Action::No), theme.key()),
                Span::raw(" no"),
            ]),
        ];
        frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
    }
}

//! The one confirm popup for anything that can lose work: it names what will be lost and
//! carries the action to run on "yes".
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use crate::keymap::{Action, KeyContext, Keymap};
use crate::pane::{Effect, Input, Outcome, Pane, ViewContext};
use crate::theme::Theme;
use crate::widgets;

pub use crate::protocol::Confirmed;

#[derive(Debug)]
pub struct Confirm {
    pub title: String,
    /// What will happen, naming what is lost.
    pub message: String,
    pub on_yes: Confirmed,
    area: Rect,
}

impl Confirm {
    pub fn new(title: impl Into<String>, message: impl Into<String>, on_yes: Confirmed) -> Confirm {
        Confirm {
            title: title.into(),
            message: message.into(),
            on_yes,
            area: Rect::default(),
        }
    }

    fn draw(&mut self, frame: &mut Frame, area: Rect, theme: &Theme, keymap: &Keymap) {
        let popup = super::popup_area(frame, area, 70, 8, 2);
        self.area = popup;
        let keys = |action| {
            keymap
                .keys_in(KeyContext::Confirm, action)
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("/")
        };
        let (yes, no) = self.on_yes.answers();
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
            // The safe answer first: it is the one enter gives.
            Line::from(vec![
                Span::styled(keys(Action::No), theme.key()),
                Span::styled(format!(" {no}   "), theme.fg(theme.text)),
                Span::styled(keys(Action::Yes), theme.key()),
                Span::styled(format!(" {yes}"), theme.fg(theme.text)),
            ]),
        ];
        frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
    }
}

impl Pane for Confirm {
    fn context(&self) -> KeyContext {
        KeyContext::Confirm
    }

    fn handle(&mut self, input: Input) -> Outcome {
        let Input::Key(key) = input else {
            return Outcome::done();
        };
        match key.action {
            Some(Action::Yes) => Outcome::Consumed(vec![
                Effect::CloseOverlay,
                Effect::Confirmed(self.on_yes.clone()),
            ]),
            Some(Action::No | Action::Back | Action::Quit) => Outcome::effect(Effect::CloseOverlay),
            _ => Outcome::done(),
        }
    }

    fn view(&mut self, frame: &mut Frame, area: Rect, cx: &ViewContext) {
        self.draw(frame, area, cx.theme, cx.keymap);
    }

    fn area(&self) -> Rect {
        self.area
    }
}

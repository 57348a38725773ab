//! The commit message editor: prefilled with the core's summary of the accepted memory
//! changes; one key commits (through the review worker), Esc cancels. When git refuses,
//! the reason stays in the overlay with the message, so nothing typed is lost.
use crossterm::event::KeyEvent;
use ratatui::Frame;
use ratatui::layout::Rect;

use crate::keymap::{Action, KeyContext, Keymap};
use crate::pane::{Effect, Input, Outcome, Pane, ViewContext};
use crate::review_worker::ReviewRequest;
use crate::theme::Theme;

use super::text_popup::{FormKey, TextForm, TextPopup};

pub struct CommitEditor {
    /// The message; its error is git's words.
    pub form: TextForm,
}

impl std::fmt::Debug for CommitEditor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CommitEditor")
            .field("message", &self.form.text())
            .field("error", &self.form.error)
            .field("busy", &self.form.busy)
            .finish()
    }
}

impl CommitEditor {
    pub fn new(message: &str) -> CommitEditor {
        CommitEditor {
            form: TextForm::new(message),
        }
    }

    fn update(&mut self, action: Option<Action>, key: KeyEvent) -> Option<Effect> {
        match self.form.key(action, key) {
            FormKey::Close => Some(Effect::CloseOverlay),
            FormKey::Submit => {
                let message = self.form.text();
                if message.trim().is_empty() {
                    self.form.error = Some("write a commit message first".into());
                    return None;
                }
                self.form.start();
                Some(Effect::Review(ReviewRequest::Commit(message)))
            }
            FormKey::Edited => None,
        }
    }

    fn draw(&mut self, frame: &mut Frame, area: Rect, theme: &Theme, keymap: &Keymap) {
        let popup = TextPopup {
            title: " Commit accepted memory changes ".to_string(),
            confirm: "commit",
            cancel: "cancel",
            busy_label: "committing…",
        };
        self.form.draw(frame, area, theme, keymap, &popup);
    }
}

impl Pane for CommitEditor {
    fn context(&self) -> KeyContext {
        KeyContext::CommitMessage
    }

    fn handle(&mut self, input: Input) -> Outcome {
        match input {
            Input::Key(key) => Outcome::maybe(self.update(key.action, key.event)),
            _ => Outcome::done(),
        }
    }

    fn view(&mut self, frame: &mut Frame, area: Rect, cx: &ViewContext) {
        self.draw(frame, area, cx.theme, cx.keymap);
    }

    fn area(&self) -> Rect {
        self.form.area()
    }
}

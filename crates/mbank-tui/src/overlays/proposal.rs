//! Editing an agent's proposal before accepting it: the proposed text in an editor; the
//! commit key (the same as the commit editor's) accepts the text as edited, through the
//! agent worker and the core's guarded write; Esc cancels and leaves the proposal
//! pending. When the accept is refused (the file changed in the same lines since), the
//! reason stays in the overlay with the text, so nothing typed is lost.
use crossterm::event::KeyEvent;
use ratatui::Frame;
use ratatui::layout::Rect;

use crate::keymap::{Action, KeyContext, Keymap};
use crate::pane::{Effect, Input, Outcome, Pane, ViewContext};
use crate::protocol::ProposalDecision;
use crate::theme::Theme;
use crate::widgets;

use super::text_popup::{FormKey, TextForm, TextPopup};

pub struct ProposalEditor {
    pub id: u64,
    file: String,
    /// The proposed text as edited; its error is why the accept was refused.
    pub form: TextForm,
}

impl std::fmt::Debug for ProposalEditor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProposalEditor")
            .field("id", &self.id)
            .field("text", &self.form.text())
            .field("error", &self.form.error)
            .field("busy", &self.form.busy)
            .finish()
    }
}

impl ProposalEditor {
    pub fn new(id: u64, file: &str, text: &str) -> ProposalEditor {
        ProposalEditor {
            id,
            file: file.to_string(),
            form: TextForm::new(text),
        }
    }

    fn update(&mut self, action: Option<Action>, key: KeyEvent) -> Option<Effect> {
        match self.form.key(action, key) {
            FormKey::Close => Some(Effect::CloseOverlay),
            FormKey::Submit => {
                self.form.start();
                Some(Effect::Decide(ProposalDecision::AcceptEdited {
                    id: self.id,
                    text: self.form.text(),
                }))
            }
            FormKey::Edited => None,
        }
    }

    fn draw(&mut self, frame: &mut Frame, area: Rect, theme: &Theme, keymap: &Keymap) {
        let popup = TextPopup {
            title: format!(
                " Proposal {} · {} · edit, then accept ",
                self.id,
                widgets::shown(&self.file)
            ),
            confirm: "accept this text",
            cancel: "cancel (it stays pending)",
            busy_label: "accepting…",
        };
        self.form.draw(frame, area, theme, keymap, &popup);
    }
}

impl Pane for ProposalEditor {
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

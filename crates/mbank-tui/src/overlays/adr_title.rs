//! The title of the project's next decision record: typed here, then written into the
//! project's ADR folder (numbered and templated by the core). When the write fails, the
//! reason stays under the title, so nothing typed is lost.
use crossterm::event::KeyEvent;
use ratatui::Frame;
use ratatui::layout::Rect;

use crate::keymap::{Action, KeyContext, Keymap};
use crate::pane::{Effect, Input, Outcome, Pane, ViewContext};
use crate::theme::Theme;

use super::text_popup::{FormKey, TextForm, TextPopup};

pub struct AdrTitle {
    /// The ADR folder it goes to, as the title bar names it.
    pub folder: String,
    pub form: TextForm,
}

impl std::fmt::Debug for AdrTitle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AdrTitle")
            .field("folder", &self.folder)
            .field("title", &self.form.text())
            .field("error", &self.form.error)
            .finish()
    }
}

impl AdrTitle {
    pub fn new(folder: String) -> AdrTitle {
        AdrTitle {
            folder,
            form: TextForm::new(""),
        }
    }

    fn update(&mut self, action: Option<Action>, key: KeyEvent) -> Option<Effect> {
        match self.form.key(action, key) {
            FormKey::Close => Some(Effect::CloseOverlay),
            FormKey::Submit => {
                let title = self.form.text();
                if title.trim().is_empty() {
                    self.form.error = Some("type the decision's title first".into());
                    return None;
                }
                self.form.start();
                Some(Effect::CreateAdr(title.trim().to_string()))
            }
            FormKey::Edited => None,
        }
    }

    fn draw(&mut self, frame: &mut Frame, area: Rect, theme: &Theme, keymap: &Keymap) {
        let popup = TextPopup {
            title: format!(" New decision record in {} ", self.folder),
            confirm: "write it",
            cancel: "cancel",
            busy_label: "writing…",
        };
        self.form.draw(frame, area, theme, keymap, &popup);
    }
}

impl Pane for AdrTitle {
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

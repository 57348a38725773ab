//! Editing an agent's proposal before accepting it: the proposed text in an editor; the
//! commit key (the same as the commit editor's) accepts the text as edited, through the
//! agent worker and the core's guarded write; Esc cancels and leaves the proposal
//! pending. When the accept is refused (the file changed in the same lines since), the
//! reason stays in the overlay with the text, so nothing typed is lost.
use crossterm::event::KeyEvent;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui_textarea::TextArea;

use crate::tui::keymap::{Action, KeyContext, Keymap};
use crate::tui::pane::{Effect, Input, Outcome, Pane, ViewContext};
use crate::tui::protocol::ProposalDecision;
use crate::tui::theme::Theme;
use crate::tui::widgets;

use super::text_popup::{self, TextPopup};

pub struct ProposalEditor {
    pub id: u64,
    file: String,
    pub textarea: TextArea<'static>,
    /// Why the last attempt failed.
    pub error: Option<String>,
    /// The accept was sent and has not been answered yet.
    pub busy: bool,
    area: Rect,
}

impl std::fmt::Debug for ProposalEditor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProposalEditor")
            .field("id", &self.id)
            .field("text", &self.text())
            .field("error", &self.error)
            .field("busy", &self.busy)
            .finish()
    }
}

impl ProposalEditor {
    pub fn new(id: u64, file: &str, text: &str) -> ProposalEditor {
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        let mut textarea = TextArea::new(if lines.is_empty() {
            vec![String::new()]
        } else {
            lines
        });
        textarea.set_max_histories(100);
        ProposalEditor {
            id,
            file: file.to_string(),
            textarea,
            error: None,
            busy: false,
            area: Rect::default(),
        }
    }

    /// The text as edited (a final newline, as memory files end).
    pub fn text(&self) -> String {
        let mut text = self.textarea.lines().join("\n");
        text.push('\n');
        text
    }

    /// `action` is what the key means here; keys that are not the editor's own are typed
    /// (a global key too: this is text).
    fn update(&mut self, action: Option<Action>, key: KeyEvent) -> Option<Effect> {
        match action {
            Some(Action::Back) => Some(Effect::CloseOverlay),
            Some(Action::CommitNow) => {
                if self.busy {
                    return None;
                }
                self.error = None;
                self.busy = true;
                Some(Effect::Decide(ProposalDecision::AcceptEdited {
                    id: self.id,
                    text: self.text(),
                }))
            }
            _ => {
                if !self.busy {
                    self.textarea.input(key);
                }
                None
            }
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
            busy: self.busy,
            error: self.error.as_deref(),
        };
        self.area = text_popup::draw(frame, area, theme, keymap, &mut self.textarea, &popup);
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
        self.area
    }
}

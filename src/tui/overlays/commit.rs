//! The commit message editor: prefilled with the core's summary of the accepted memory
//! changes; one key commits (through the review worker), Esc cancels. When git refuses,
//! the reason stays in the overlay with the message, so nothing typed is lost.
use crossterm::event::KeyEvent;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui_textarea::TextArea;

use crate::tui::keymap::{Action, KeyContext, Keymap};
use crate::tui::pane::{Effect, Input, Outcome, Pane, ViewContext};
use crate::tui::review_worker::ReviewRequest;
use crate::tui::theme::Theme;

use super::text_popup::{self, TextPopup};

pub use crate::tui::commands::COMMIT_MESSAGE as COMMANDS;

pub struct CommitEditor {
    pub textarea: TextArea<'static>,
    /// Why the last attempt failed (git's words).
    pub error: Option<String>,
    /// The commit was sent and has not been answered yet.
    pub busy: bool,
    area: Rect,
}

impl std::fmt::Debug for CommitEditor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CommitEditor")
            .field("message", &self.message())
            .field("error", &self.error)
            .field("busy", &self.busy)
            .finish()
    }
}

impl CommitEditor {
    pub fn new(message: &str) -> CommitEditor {
        let lines: Vec<String> = message.lines().map(str::to_string).collect();
        let mut textarea = TextArea::new(if lines.is_empty() {
            vec![String::new()]
        } else {
            lines
        });
        textarea.set_max_histories(100);
        CommitEditor {
            textarea,
            error: None,
            busy: false,
            area: Rect::default(),
        }
    }

    pub fn message(&self) -> String {
        let mut text = self.textarea.lines().join("\n");
        text.push('\n');
        text
    }

    /// `action` is what the key means here; keys that are not the editor's own are typed
    /// (a global key too: the message is text).
    fn update(&mut self, action: Option<Action>, key: KeyEvent) -> Option<Effect> {
        match action {
            Some(Action::Back) => Some(Effect::CloseOverlay),
            Some(Action::CommitNow) => {
                if self.busy {
                    return None;
                }
                let message = self.message();
                if message.trim().is_empty() {
                    self.error = Some("write a commit message first".into());
                    return None;
                }
                self.error = None;
                self.busy = true;
                Some(Effect::Review(ReviewRequest::Commit(message)))
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
            title: " Commit accepted memory changes ".to_string(),
            confirm: "commit",
            cancel: "cancel",
            busy_label: "committing…",
            busy: self.busy,
            error: self.error.as_deref(),
        };
        self.area = text_popup::draw(frame, area, theme, keymap, &mut self.textarea, &popup);
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
        self.area
    }
}

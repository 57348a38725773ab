//! The commit message editor: prefilled with the core's summary of the accepted memory
//! changes; one key commits (through the review worker), Esc cancels. When git refuses,
//! the reason stays in the overlay with the message, so nothing typed is lost.
use crate::pane::Effect;
use crate::review_worker::ReviewRequest;

use super::text_popup::{FormPrompt, TextForm, TextPopup};

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
}

impl FormPrompt for CommitEditor {
    fn form(&self) -> &TextForm {
        &self.form
    }

    fn form_mut(&mut self) -> &mut TextForm {
        &mut self.form
    }

    fn submit(&mut self) -> Option<Effect> {
        let message = self.form.text();
        if message.trim().is_empty() {
            self.form.error = Some("write a commit message first".into());
            return None;
        }
        self.form.start();
        Some(Effect::Review(ReviewRequest::Commit(message)))
    }

    fn popup(&self) -> TextPopup<'static> {
        TextPopup {
            title: " Commit accepted memory changes ".to_string(),
            confirm: "commit",
            cancel: "cancel",
            busy_label: "committing…",
        }
    }
}

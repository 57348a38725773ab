//! Editing an agent's proposal before accepting it: the proposed text in an editor; the
//! commit key (the same as the commit editor's) accepts the text as edited, through the
//! agent worker and the core's guarded write; Esc cancels and leaves the proposal
//! pending. When the accept is refused (the file changed in the same lines since), the
//! reason stays in the overlay with the text, so nothing typed is lost.
use crate::pane::Effect;
use crate::protocol::ProposalDecision;
use crate::widgets;

use super::text_popup::{FormPrompt, TextForm, TextPopup};

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
}

impl FormPrompt for ProposalEditor {
    fn form(&self) -> &TextForm {
        &self.form
    }

    fn form_mut(&mut self) -> &mut TextForm {
        &mut self.form
    }

    fn submit(&mut self) -> Option<Effect> {
        self.form.start();
        Some(Effect::Decide(ProposalDecision::AcceptEdited {
            id: self.id,
            text: self.form.text(),
        }))
    }

    fn popup(&self) -> TextPopup<'static> {
        TextPopup {
            title: format!(
                " Proposal {} · {} · edit, then accept ",
                self.id,
                widgets::shown(&self.file)
            ),
            confirm: "accept this text",
            cancel: "cancel (it stays pending)",
            busy_label: "accepting…",
        }
    }
}

//! The title of the project's next decision record: typed here, then written into the
//! project's ADR folder (numbered and templated by the core). When the write fails, the
//! reason stays under the title, so nothing typed is lost.
use crate::pane::Effect;

use super::text_popup::{FormPrompt, TextForm, TextPopup};

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
}

impl FormPrompt for AdrTitle {
    fn form(&self) -> &TextForm {
        &self.form
    }

    fn form_mut(&mut self) -> &mut TextForm {
        &mut self.form
    }

    fn submit(&mut self) -> Option<Effect> {
        let title = self.form.text();
        if title.trim().is_empty() {
            self.form.error = Some("type the decision's title first".into());
            return None;
        }
        self.form.start();
        Some(Effect::CreateAdr(title.trim().to_string()))
    }

    fn popup(&self) -> TextPopup<'static> {
        TextPopup {
            title: format!(" New decision record in {} ", self.folder),
            confirm: "write it",
            cancel: "cancel",
            busy_label: "writing…",
        }
    }
}

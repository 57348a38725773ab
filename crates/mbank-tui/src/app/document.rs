//! Opening files from the tree, a finding or a decision, and `$EDITOR`: the app's side
//! of the document controller, which asks first when unsaved edits would be lost.
use std::path::PathBuf;

use super::{App, Focus};
use crate::overlays::Overlay;
use crate::overlays::confirm::Confirm;
use crate::protocol::Confirmed;

impl App {
    /// Shows a file from the tree; `focus` moves the keyboard there. A dirty buffer stays
    /// on screen while browsing, and Enter on another file asks first.
    pub(super) fn show_file(
        &mut self,
        path: PathBuf,
        memory_id: Option<String>,
        focus: bool,
        line: Option<usize>,
    ) {
        if self.document.is_open(&path, memory_id.as_deref()) {
            if focus {
                self.focus = Focus::Editor;
            }
            return;
        }
        if self.document.is_dirty() {
            if focus {
                let name = self.document.file_name();
                self.overlays.push(Overlay::Confirm(Confirm::new(
                    "Open another file?",
                    format!("Your unsaved edits to {name} will be lost."),
                    Confirmed::OpenFile {
                        path,
                        memory_id,
                        line,
                    },
                )));
            }
            return;
        }
        self.document.open(path, memory_id, focus, line);
    }

    /// Goes to a file and line (a finding, a decision): selected in the tree, shown, and
    /// the keyboard in it.
    pub(super) fn go_to(&mut self, path: PathBuf, line: Option<usize>) {
        self.tree.select_path(&path);
        if self.document.path() == Some(path.as_path()) {
            if let (Some(doc), Some(line)) = (&mut self.document.editor.doc, line) {
                doc.jump_to_line(line);
            }
            self.focus = Focus::Editor;
        } else {
            self.show_file(path, None, true, line);
        }
    }

    pub(super) fn open_external(&mut self) {
        match self.document.external_target() {
            Ok(path) => self.external = Some(super::External::Edit(path)),
            Err(reason) => self.toast(reason),
        }
    }

    /// After `$EDITOR` returns: pick up what it wrote.
    pub(crate) fn after_external_edit(&mut self, result: Result<(), String>) {
        if let Err(problem) = result {
            self.toast_error(problem);
        }
        self.document.reload_from_disk();
        if let Some(project) = self.projects.open.clone() {
            self.projects.analysis.full(project);
        }
    }
}

//! The Changes view: every memory file of every project under the root, and of the
//! agents' own stores, that changed since a person last marked it reviewed (what `mbank
//! changes` lists), whoever wrote it. Up and down choose a file; its hunks against its
//! baseline (the version it held when marked reviewed) show below, one selected. A hunk
//! or the whole file is taken back, a deleted file restored, everything marked reviewed;
//! the journal worker does each (the view only asks, with the change as it showed it).
mod view;

use std::path::PathBuf;
use std::sync::Arc;

use ratatui::Frame;
use ratatui::layout::{Position, Rect};

use mbank_core::journal::changes::{FileChange, Survey};
use mbank_core::journal::revert::Revert;
use mbank_core::review::ChangeKind;

use crate::keymap::{Action, KeyContext};
use crate::list::{ListCursor, ListInput};
use crate::pane::{
    Ask, ChangesRequest, Confirmed, Effect, Input, Outcome, Pane, ViewContext, offers,
};

pub(crate) use crate::commands::CHANGES as COMMANDS;

#[derive(Default)]
pub struct ChangesPane {
    /// The last survey shown, and its number (what marking reviewed marks).
    pub survey: Option<Arc<Survey>>,
    pub generation: u64,
    /// A survey was asked for and has not arrived yet.
    pub loading: bool,
    /// A revert or a mark was sent and the survey that follows it has not arrived yet.
    pub busy: bool,
    /// Why the survey failed.
    pub problem: Option<String>,
    /// Why there is no journal in this session (no data folder).
    pub unavailable: Option<String>,
    /// Over the changed files.
    pub list: ListCursor,
    /// The selected hunk of the selected file.
    pub hunk: usize,
    /// The first diff row shown, and the rows shown at the last draw.
    scroll: usize,
    page: usize,
    /// The diff row of the selected hunk's header at the last draw (the view scrolls to
    /// it when the hunk changes).
    follow_hunk: bool,
    /// Paths under it are drawn as `~/…`.
    pub home: Option<PathBuf>,
    area: Rect,
    list_area: Rect,
}

/// The word for a change, and its letter in the list.
fn letter(kind: ChangeKind) -> &'static str {
    match kind {
        ChangeKind::Added => "A",
        ChangeKind::Modified => "M",
        ChangeKind::Deleted => "D",
        ChangeKind::Renamed => "R",
    }
}

impl ChangesPane {
    /// The changed files in the order listed.
    pub fn changes(&self) -> &[FileChange] {
        self.survey.as_ref().map_or(&[], |s| &s.changes[..])
    }

    /// The file under the cursor.
    pub fn selected(&self) -> Option<&FileChange> {
        self.changes().get(self.list.selected)
    }

    /// The changed file at `path`, as last shown.
    pub(crate) fn change_at(&self, path: &std::path::Path) -> Option<&FileChange> {
        self.changes().iter().find(|c| c.path == path)
    }

    /// A survey was asked for.
    pub fn expect(&mut self) {
        self.loading = true;
    }

    /// A survey arrived: the cursor stays on the same file (else the nearest) and hunk.
    pub(crate) fn set_survey(&mut self, generation: u64, result: Result<Arc<Survey>, String>) {
        if generation < self.generation {
            return;
        }
        self.loading = false;
        self.busy = false;
        let survey = match result {
            Ok(survey) => survey,
            Err(problem) => {
                self.problem = Some(problem);
                return;
            }
        };
        let was = self.selected().map(|c| c.path.clone());
        self.generation = generation;
        self.problem = None;
        self.survey = Some(survey);
        let again = was.and_then(|path| self.changes().iter().position(|c| c.path == path));
        match again {
            Some(index) => self.list.selected = index,
            None => {
                self.list.clamp(self.changes().len());
                self.hunk = 0;
                self.scroll = 0;
            }
        }
        let hunks = self.selected().map_or(0, |c| c.diff.hunks.len());
        self.hunk = self.hunk.min(hunks.saturating_sub(1));
        self.follow_hunk = true;
    }

    /// The revert or mark sent was answered (a fresh survey follows a success).
    pub fn answered(&mut self, success: bool) {
        if !success {
            self.busy = false;
        }
    }

    fn select(&mut self, index: usize) {
        if index != self.list.selected {
            self.list.selected = index;
            self.hunk = 0;
            self.scroll = 0;
        }
    }

    fn on_action(&mut self, action: Action) -> Option<Effect> {
        let len = self.changes().len();
        match action {
            Action::Back => return Some(Effect::CloseChanges),
            Action::Up | Action::Down | Action::Top | Action::Bottom => {
                let mut cursor = self.list;
                cursor.navigate(action, len);
                self.select(cursor.selected);
            }
            Action::PageUp => self.scroll = self.scroll.saturating_sub(self.page.max(1)),
            Action::PageDown => self.scroll += self.page.max(1),
            Action::NextHunk | Action::PrevHunk => {
                let hunks = self.selected().map_or(0, |c| c.diff.hunks.len());
                self.hunk = if action == Action::NextHunk {
                    (self.hunk + 1).min(hunks.saturating_sub(1))
                } else {
                    self.hunk.saturating_sub(1)
                };
                self.follow_hunk = true;
            }
            Action::RevertHunk => return Some(self.revert_hunk()),
            Action::RevertFile => return Some(self.revert_file()),
            Action::MarkReviewed => return Some(self.mark_reviewed()),
            _ => {}
        }
        None
    }

    fn revert_hunk(&mut self) -> Effect {
        if self.busy {
            return Effect::Toast("still taking back the last change…".into());
        }
        let Some(change) = self.selected() else {
            return Effect::Toast("nothing changed: nothing to revert".into());
        };
        if change.current_text.is_none() {
            return Effect::Toast(format!(
                "{} is deleted: restore the whole file",
                change.display
            ));
        }
        let Some(hunk) = change.diff.hunks.get(self.hunk) else {
            return Effect::Toast("move onto a hunk".into());
        };
        let request = ChangesRequest::Revert {
            change: Box::new(change.clone()),
            what: Revert::Hunk(hunk.id),
        };
        self.busy = true;
        Effect::Changes(request)
    }

    fn revert_file(&mut self) -> Effect {
        if self.busy {
            return Effect::Toast("still taking back the last change…".into());
        }
        let Some(change) = self.selected() else {
            return Effect::Toast("nothing changed: nothing to revert".into());
        };
        // Bringing a deleted file back loses nothing: no question.
        if change.current_text.is_none() {
            let request = ChangesRequest::Revert {
                change: Box::new(change.clone()),
                what: Revert::File,
            };
            self.busy = true;
            return Effect::Changes(request);
        }
        let lines = |n| mbank_core::io::text::counted(n, "line");
        let body = match change.baseline_version {
            Some(version) if change.baseline_text.is_some() => format!(
                "{} goes back to version {version}, as it was when last marked reviewed: the {} added and {} removed since are undone. The text it holds now is kept in the history.",
                change.display,
                lines(change.added),
                lines(change.removed)
            ),
            _ => format!(
                "{} is new since it was last marked reviewed: reverting removes it. Its {} are kept in the history (restore them from its history).",
                change.display,
                lines(change.added)
            ),
        };
        Effect::Ask(Ask::Confirm {
            title: "Revert the whole file?".into(),
            body,
            on_yes: Confirmed::RevertChangedFile(change.path.clone()),
        })
    }

    fn mark_reviewed(&self) -> Effect {
        if self.busy || self.loading {
            return Effect::Toast("still working…".into());
        }
        let changes = self.changes();
        if changes.is_empty() {
            return Effect::Toast("nothing changed since the last mark".into());
        }
        let added: usize = changes.iter().map(|c| c.added).sum();
        let removed: usize = changes.iter().map(|c| c.removed).sum();
        Effect::Ask(Ask::Confirm {
            title: "Mark reviewed?".into(),
            body: format!(
                "Take the {} (+{added} −{removed} lines) as reviewed? They stop showing here until they change again. The files themselves are not touched.",
                mbank_core::io::text::counted(changes.len(), "changed file")
            ),
            on_yes: Confirmed::MarkChangesReviewed {
                generation: self.generation,
            },
        })
    }

    /// "Yes" to reverting the whole file at `path`: sent as the view shows it.
    pub(crate) fn revert_confirmed(&mut self, path: &std::path::Path) -> Option<ChangesRequest> {
        let change = self.change_at(path)?.clone();
        self.busy = true;
        Some(ChangesRequest::Revert {
            change: Box::new(change),
            what: Revert::File,
        })
    }

    fn click_list(&mut self, position: Position) {
        let row = self.list.offset + (position.y - self.list_area.y) as usize;
        if row < self.changes().len() {
            self.select(row);
        }
    }
}

impl Pane for ChangesPane {
    fn context(&self) -> KeyContext {
        KeyContext::Changes
    }

    fn handle(&mut self, input: Input) -> Outcome {
        match input {
            Input::Click(position) if self.list_area.contains(position) => {
                self.click_list(position);
                Outcome::done()
            }
            Input::Scroll(delta) => {
                self.scroll = (self.scroll as i64 + i64::from(delta)).max(0) as usize;
                Outcome::done()
            }
            other => {
                let len = self.changes().len();
                match self.list.apply(other, len, |_| None, None) {
                    ListInput::Key(key) => match key.action {
                        Some(action) if offers(COMMANDS, action) => {
                            Outcome::maybe(self.on_action(action))
                        }
                        _ => Outcome::Ignored,
                    },
                    ListInput::Filtered | ListInput::Ignored => Outcome::Ignored,
                    _ => Outcome::done(),
                }
            }
        }
    }

    fn view(&mut self, frame: &mut Frame, area: Rect, cx: &ViewContext) {
        self.draw(frame, area, cx);
    }

    fn area(&self) -> Rect {
        self.area
    }
}

#[cfg(test)]
mod tests;

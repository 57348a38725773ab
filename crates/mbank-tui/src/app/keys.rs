//! Keys: the compositor, the global keys, focus, and what the main area shows.
//!
//! A key is resolved once, here, in the context of the layer that has the keyboard (its
//! own table first, then the global one). It goes to the top layer first: an overlay
//! keeps every key (overlays are modal); a pane passes on what it does not use, and what
//! it passes on reaches the global keys last.
use crossterm::event::KeyEvent;

use super::{App, Focus, Main, Screen, ViewMode};
use crate::keymap::{Action, KeyChord};
use crate::overlays::Overlay;
use crate::overlays::confirm::{Confirm, Confirmed};
use crate::overlays::help::Help;
use crate::pane::{Input, KeyCommand, KeyInput, Outcome, Pane};
use crate::theme::Theme;

use crate::commands::GLOBAL as GLOBAL_COMMANDS;

/// The global keys that do something on the picker and Changes screens.
const PICKER_GLOBALS: [Action; 6] = [
    Action::Help,
    Action::Quit,
    Action::NextTheme,
    Action::Messages,
    Action::ShowChanges,
    Action::SearchAll,
];

impl App {
    /// The global commands that work on the current screen.
    pub(super) fn global_commands(&self) -> impl Iterator<Item = &'static KeyCommand> + '_ {
        GLOBAL_COMMANDS
            .iter()
            .filter(|c| self.screen == Screen::Project || PICKER_GLOBALS.contains(&c.action))
    }

    pub(super) fn on_key(&mut self, event: KeyEvent) {
        // The one lookup, in the context of the layer that has the keyboard.
        let action = self
            .keymap
            .resolve(self.key_context(), &KeyChord::from_event(&event));
        let input = Input::Key(KeyInput { event, action });
        let outcome = match self.overlays.last_mut() {
            Some(overlay) => overlay.handle(input),
            None => self.active_pane().handle(input),
        };
        match outcome {
            Outcome::Consumed(effects) => self.apply(effects),
            Outcome::Ignored => match action {
                Some(action) => self.on_global(action),
                None => self.say_how_to_edit(&event),
            },
        }
    }

    /// The pane that has the keyboard when no overlay does.
    pub(super) fn active_pane(&mut self) -> &mut dyn Pane {
        match self.screen {
            Screen::Picker => &mut self.projects.picker,
            Screen::Project => self.pane_mut(self.focus),
            Screen::Changes => &mut self.changes,
        }
    }

    pub(super) fn pane(&self, focus: Focus) -> &dyn Pane {
        match focus {
            Focus::Tree => &self.tree,
            Focus::Editor => &self.document.editor,
            Focus::Preview => &self.document.preview,
            Focus::Timeline => &self.timeline,
            Focus::Findings => &self.findings,
            Focus::Review => &self.review.pane,
        }
    }

    pub(super) fn pane_mut(&mut self, focus: Focus) -> &mut dyn Pane {
        match focus {
            Focus::Tree => &mut self.tree,
            Focus::Editor => &mut self.document.editor,
            Focus::Preview => &mut self.document.preview,
            Focus::Timeline => &mut self.timeline,
            Focus::Findings => &mut self.findings,
            Focus::Review => &mut self.review.pane,
        }
    }

    /// The panes on the project screen, in focus order.
    pub(super) fn visible_panes(&self) -> Vec<Focus> {
        let mut order = vec![Focus::Tree];
        match self.main {
            Main::Review { .. } => order.push(Focus::Review),
            Main::Timeline { .. } => order.push(Focus::Timeline),
            Main::Document(ViewMode::Editor) => order.push(Focus::Editor),
            Main::Document(ViewMode::Split) => order.extend([Focus::Editor, Focus::Preview]),
            Main::Document(ViewMode::Preview) => order.push(Focus::Preview),
        }
        if self.show_findings {
            order.push(Focus::Findings);
        }
        order
    }

    /// Global actions, whatever pane is focused.
    fn on_global(&mut self, action: Action) {
        let project = self.screen == Screen::Project;
        match action {
            Action::Quit => self.request_quit(),
            Action::Help => self
                .overlays
                .push(Overlay::Help(Help::new(self.key_context()))),
            Action::Messages => self
                .overlays
                .push(Overlay::Help(Help::messages(self.messages.clone()))),
            Action::NextTheme => {
                // From the theme asked for last, so quick presses each move on.
                let from = self.theme_asked.as_deref().unwrap_or(&self.theme.name);
                let name = Theme::next_bundled(from).to_string();
                self.theme_asked = Some(name.clone());
                self.jobs += 1;
                crate::jobs::load_theme(name, self.config_dir.clone(), self.outbox.clone());
            }
            Action::OpenPicker if project => {
                self.screen = Screen::Picker;
                self.projects.picker.clear_filter();
                if let Some(project) = &self.projects.open {
                    self.projects.picker.select_path(&project.path.clone());
                }
            }
            Action::FocusNext | Action::FocusPrev if project => {
                self.cycle_focus(action == Action::FocusNext);
            }
            Action::ToggleFindings if project => {
                self.show_findings = !self.show_findings;
                self.focus = if self.show_findings {
                    Focus::Findings
                } else {
                    Focus::Tree
                };
            }
            Action::OpenExternal if project => self.open_external(),
            Action::History if project => self.open_history(),
            Action::Zoom if project => self.zoomed = !self.zoomed,
            Action::SearchAll => self.open_search(),
            Action::ShowChanges => {
                if self.screen == Screen::Changes {
                    self.close_changes();
                } else {
                    self.open_changes();
                }
            }
            Action::ShowReview if project => {
                if self.main.is_review() {
                    self.close(Focus::Review);
                } else {
                    self.open_review();
                }
            }
            Action::CycleView if project => {
                let mode = match self.main.view_mode() {
                    ViewMode::Editor => ViewMode::Split,
                    ViewMode::Split => ViewMode::Preview,
                    ViewMode::Preview => ViewMode::Editor,
                };
                self.main = Main::Document(mode);
                self.navigated = true;
                self.document.preview.pinned = false;
                self.focus = match (mode, self.focus) {
                    (ViewMode::Preview, Focus::Editor) => Focus::Preview,
                    (ViewMode::Editor, Focus::Preview) => Focus::Editor,
                    (_, focus) => focus,
                };
                self.keep_focus_visible();
            }
            Action::ShowTimeline if project => {
                if self.main.is_timeline() {
                    self.close(Focus::Timeline);
                } else {
                    self.main = Main::Timeline {
                        back: self.main.view_mode(),
                    };
                    self.focus = Focus::Timeline;
                }
            }
            _ => {}
        }
    }

    fn cycle_focus(&mut self, forward: bool) {
        let order = self.visible_panes();
        let position = order.iter().position(|f| *f == self.focus).unwrap_or(0);
        let next = if forward {
            (position + 1) % order.len()
        } else {
            (position + order.len() - 1) % order.len()
        };
        self.focus = order[next];
        self.navigated = true;
    }

    /// A focus on a pane no longer shown goes back to the tree.
    fn keep_focus_visible(&mut self) {
        if !self.visible_panes().contains(&self.focus) {
            self.focus = Focus::Tree;
        }
    }

    /// Closes a pane: the timeline and the review give the main area back to the
    /// document, the findings panel hides; the tree gets the keyboard.
    pub(super) fn close(&mut self, pane: Focus) {
        match pane {
            Focus::Timeline | Focus::Review => self.main = Main::Document(self.main.view_mode()),
            Focus::Findings => self.show_findings = false,
            Focus::Tree | Focus::Editor | Focus::Preview => {}
        }
        self.focus = Focus::Tree;
    }

    /// A letter typed into the editor while it shows its file read-only: say which key
    /// starts editing (the letter typed nothing).
    fn say_how_to_edit(&mut self, event: &KeyEvent) {
        if KeyChord::from_event(event).is_printable() {
            self.say_shown_read_only();
        }
    }

    /// While the editor shows its file read-only, says which key starts editing (what
    /// was typed or pasted went nowhere).
    pub(super) fn say_shown_read_only(&mut self) {
        let viewing =
            self.overlays.is_empty() && self.key_context() == crate::keymap::KeyContext::EditorView;
        if !viewing {
            return;
        }
        let keys = self
            .keymap
            .keys_in(crate::keymap::KeyContext::EditorView, Action::Edit);
        let keys: Vec<String> = keys.iter().map(ToString::to_string).collect();
        let name = self.document.file_name();
        self.toast(format!(
            "{name} is shown read-only: {} starts editing",
            keys.join(" or ")
        ));
    }

    pub(super) fn request_quit(&mut self) {
        if self.document.is_dirty() {
            let name = self.document.file_name();
            self.overlays.push(Overlay::Confirm(Confirm::new(
                "Quit?",
                format!("Your unsaved edits to {name} will be lost."),
                Confirmed::Quit,
            )));
        } else {
            self.quit = true;
        }
    }
}

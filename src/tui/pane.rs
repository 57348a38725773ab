//! What every pane and overlay is, and the one way they talk to the app.
//!
//! A pane has a keymap context, handles [`Input`] and draws itself ([`Pane`]). It never
//! reaches into the app: what it wants done beyond its own state (open a file, toast,
//! ask a question, send the review worker a request, move the focus, close itself) it
//! returns as [`Effect`]s, which the app carries out. Overlays (help, confirm, conflict,
//! commit) are panes on a stack above the screen: the top one gets every key first.
//!
//! The keys a pane offers are declared once, in its module's `COMMANDS`; [`commands`]
//! finds them by context. The status bar and the help overlay are both drawn from those
//! declarations (and the keymap's keys for them), so they cannot disagree with the keys,
//! and a test checks that every declared action has a key and every key is declared.
use std::path::PathBuf;

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::{Position, Rect};

use super::keymap::{Action, KeyChord, KeyContext, Keymap};
use super::overlays::confirm::Confirmed;
use super::overlays::{self, Overlay, conflict};
use super::panes;
use super::review_worker::ReviewRequest;
use super::theme::Theme;

/// What a pane or overlay is told.
#[derive(Debug, Clone)]
pub enum Input {
    Key(KeyInput),
    /// Text pasted into the terminal.
    Paste(String),
    /// A left click at this screen position (inside the pane's last area).
    Click(Position),
    /// The mouse wheel over the pane, in rows (positive: down).
    Scroll(i32),
}

/// A key, resolved once by the app where it was pressed.
#[derive(Debug, Clone, Copy)]
pub struct KeyInput {
    pub event: KeyEvent,
    /// What the keymap says the key does in the layer that has the keyboard: its own
    /// table first, then the global one (typed characters stay text where the layer
    /// takes text). `None`: an unbound key, typed text in an editor or a filter.
    pub action: Option<Action>,
}

impl KeyInput {
    /// The character this key types, when it types one (no ctrl or alt).
    pub fn typed(&self) -> Option<char> {
        match self.event.code {
            KeyCode::Char(c) if KeyChord::from_event(&self.event).is_printable() => Some(c),
            _ => None,
        }
    }
}

/// What a layer did with an input.
#[must_use]
#[derive(Debug)]
pub enum Outcome {
    /// Not for this layer: the key goes on down (to the global keys).
    Ignored,
    /// Taken, with what the app must now do.
    Consumed(Vec<Effect>),
}

impl Outcome {
    /// Taken, nothing more to do.
    pub fn done() -> Outcome {
        Outcome::Consumed(Vec::new())
    }

    pub fn effect(effect: Effect) -> Outcome {
        Outcome::Consumed(vec![effect])
    }

    /// Taken, with `effect` when there is one.
    pub fn maybe(effect: Option<Effect>) -> Outcome {
        Outcome::Consumed(effect.into_iter().collect())
    }
}

/// What a pane needs to draw itself.
pub struct ViewContext<'a> {
    pub theme: &'a Theme,
    pub keymap: &'a Keymap,
    /// The pane has the keyboard (no overlay above it, and it is focused).
    pub focused: bool,
}

/// A pane or an overlay.
pub trait Pane {
    /// Where its keys are looked up (and what the status bar and help list for it).
    fn context(&self) -> KeyContext;
    fn handle(&mut self, input: Input) -> Outcome;
    /// Draws into `area` (an overlay: the whole screen, and it places itself).
    fn view(&mut self, frame: &mut Frame, area: Rect, cx: &ViewContext);
    /// Where it was drawn last (for the mouse).
    fn area(&self) -> Rect;
    /// While the pane types into a prompt of its own (a filter), the prompt's keys: the
    /// status bar names only these, as every other key goes into the prompt.
    fn prompt_hints(&self) -> Option<&'static [(&'static str, &'static str)]> {
        None
    }
}

/// The panes of the project screen (the picker is a screen of its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    Tree,
    Editor,
    Preview,
    Timeline,
    Findings,
    Review,
}

/// Everything a pane or overlay can ask of the app.
#[derive(Debug)]
pub enum Effect {
    /// A short message in the corner.
    Toast(String),
    ToastError(String),
    /// Open this project (asks first over unsaved edits).
    OpenProject(PathBuf),
    /// Leave the picker for the project already open.
    BackToProject,
    /// Make a fresh copy of the demo banks the root.
    OpenDemo,
    /// Ask whether to create a bank in the root, in the folder `name`.
    AskInitBank(String),
    /// Show a file in the editor (asks first over unsaved edits when `focus`).
    ShowFile {
        path: PathBuf,
        memory_id: Option<String>,
        /// Move the keyboard to it too; browsing the tree shows files without.
        focus: bool,
    },
    /// Go to a file and a line in it (findings, timeline): select it in the tree, open
    /// it and move the keyboard there.
    GoTo {
        path: PathBuf,
        line: Option<usize>,
    },
    /// The editor's buffer changed: count and highlight it again.
    BufferChanged,
    /// Save the editor's buffer.
    Save,
    /// Move the keyboard to this pane.
    Focus(Focus),
    /// Close this pane (the timeline or the review give the main area back to the
    /// document; the findings panel hides).
    Close(Focus),
    /// Ask the review worker.
    Review(ReviewRequest),
    /// Commit the accepted memory (git) or mark it reviewed (outside git): asks first.
    AskCommit,
    /// Open an overlay above everything.
    Overlay(Overlay),
    /// Close the top overlay (the one that returned this).
    CloseOverlay,
    /// The user said yes to a confirm prompt.
    Confirmed(Confirmed),
    /// How the user settled a conflict between the buffer and the disk.
    Resolve(conflict::Choice),
    /// The open project changed (a save): analyse it again.
    Reanalyse,
    /// Quit (asks first over unsaved edits).
    Quit,
}

/// One thing a key does in a context, in the order the status bar and help show them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Command {
    pub action: Action,
    /// Named in the status bar (navigation keys are only listed in help).
    pub hint: bool,
}

/// A command the status bar names.
pub const fn hint(action: Action) -> Command {
    Command { action, hint: true }
}

/// A command only help lists (moving around).
pub const fn quiet(action: Action) -> Command {
    Command {
        action,
        hint: false,
    }
}

/// The commands of a context: each pane's and overlay's own declaration.
pub fn commands(context: KeyContext) -> &'static [Command] {
    match context {
        KeyContext::Global => super::app::GLOBAL_COMMANDS,
        KeyContext::Picker => panes::picker::COMMANDS,
        KeyContext::Tree => panes::tree::COMMANDS,
        KeyContext::Editor => panes::editor::COMMANDS,
        KeyContext::EditorNormal => panes::editor::NORMAL_COMMANDS,
        KeyContext::EditorInsert => panes::editor::INSERT_COMMANDS,
        KeyContext::EditorVisual => panes::editor::VISUAL_COMMANDS,
        KeyContext::Preview => panes::preview::COMMANDS,
        KeyContext::Timeline => panes::timeline::COMMANDS,
        KeyContext::Findings => panes::findings::COMMANDS,
        KeyContext::Review => panes::review::COMMANDS,
        KeyContext::Confirm => overlays::confirm::COMMANDS,
        KeyContext::Conflict => overlays::conflict::COMMANDS,
        KeyContext::CommitMessage => overlays::commit::COMMANDS,
        KeyContext::Help => overlays::help::COMMANDS,
    }
}

/// Whether `commands` offers `action` (a pane takes exactly the actions it declares).
pub fn offers(commands: &[Command], action: Action) -> bool {
    commands.iter().any(|c| c.action == action)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn every_declared_command_has_a_key_and_every_key_is_declared() {
        for (name, keymap) in [
            ("default", Keymap::load(None, None).unwrap()),
            ("vim", Keymap::load(Some("vim"), None).unwrap()),
        ] {
            for context in KeyContext::ALL {
                let bound: BTreeSet<Action> =
                    keymap.bindings(context).iter().map(|b| b.action).collect();
                let declared: BTreeSet<Action> =
                    commands(context).iter().map(|c| c.action).collect();
                if bound.is_empty() && !keymap.is_modal() {
                    // Vim's editor modes, which the default keymap leaves out.
                    continue;
                }
                match context.parent() {
                    None => assert_eq!(
                        bound, declared,
                        "{name} keymap, {context:?}: the keys and the pane's commands differ"
                    ),
                    // Its own keys are declared; what it declares has a key, its own
                    // or its parent's.
                    Some(_) => {
                        assert!(bound.is_subset(&declared), "{name}, {context:?}");
                        for action in &declared {
                            assert!(
                                !keymap.keys_in(context, *action).is_empty(),
                                "{name}, {context:?}: {action:?} has no key"
                            );
                        }
                    }
                }
                assert_eq!(
                    declared.len(),
                    commands(context).len(),
                    "{context:?} declares an action twice"
                );
            }
        }
    }

    #[test]
    fn only_typed_characters_count_as_text() {
        use crossterm::event::KeyModifiers;
        let key = |code, modifiers| KeyInput {
            event: KeyEvent::new(code, modifiers),
            action: None,
        };
        assert_eq!(
            key(KeyCode::Char('a'), KeyModifiers::NONE).typed(),
            Some('a')
        );
        assert_eq!(
            key(KeyCode::Char('A'), KeyModifiers::SHIFT).typed(),
            Some('A')
        );
        assert_eq!(key(KeyCode::Char('s'), KeyModifiers::CONTROL).typed(), None);
        assert_eq!(key(KeyCode::Enter, KeyModifiers::NONE).typed(), None);
    }
}

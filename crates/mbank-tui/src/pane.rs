//! What every pane and overlay is, and the one way they talk to the app.
//!
//! A pane has a keymap context, handles [`Input`] and draws itself (`Pane`). It never
//! reaches into the app: what it wants done beyond its own state (open a file, toast,
//! ask a question, send the review worker a request, move the focus, close itself) it
//! returns as [`Effect`]s, which the app carries out. Overlays (help, confirm, conflict,
//! commit) are panes on a stack above the screen: the top one gets every key first.
//!
//! The keys a pane offers are declared once, in its module's `COMMANDS`; [`commands`]
//! finds them by context. The status bar and the help overlay are both drawn from those
//! declarations (and the keymap's keys for them), so they cannot disagree with the keys,
//! and a test checks that every declared action has a key and every key is declared.
pub use super::commands::{commands, offers};
pub use super::protocol::{Ask, Confirmed, Focus, hint, quiet};
pub(crate) use super::protocol::{ChangesRequest, Effect, Input, KeyCommand, KeyInput, Outcome};
use mbank_core::clock::Clock;
use ratatui::Frame;
use ratatui::layout::Rect;

use super::keymap::{KeyContext, Keymap};
use super::theme::Theme;

/// What a pane needs to draw itself.
pub struct ViewContext<'a> {
    pub theme: &'a Theme,
    pub keymap: &'a Keymap,
    /// The pane has the keyboard (no overlay above it, and it is focused).
    pub focused: bool,
    /// What "… ago" is measured from.
    pub clock: Clock,
}

/// A pane or an overlay.
pub(crate) trait Pane {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keymap::Action;
    use crossterm::event::{KeyCode, KeyEvent};
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

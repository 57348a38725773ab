//! Layers above the panes. The top one gets every key first; panes see keys only when
//! the stack is empty.
pub mod confirm;
pub mod conflict;
pub mod help;

use super::keymap::KeyContext;

pub enum Overlay {
    Help(help::Help),
    Confirm(confirm::Confirm),
    Conflict(conflict::Conflict),
}

impl Overlay {
    pub fn context(&self) -> KeyContext {
        match self {
            Overlay::Help(_) => KeyContext::Help,
            Overlay::Confirm(_) => KeyContext::Confirm,
            Overlay::Conflict(_) => KeyContext::Conflict,
        }
    }
}

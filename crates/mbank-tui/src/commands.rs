//! The command registry: every context's commands in one table, in the order the status
//! bar and help show them. The keymap binds keys to these actions, the status bar names
//! the hints, help lists them all, and each pane takes exactly the actions its context
//! declares ([`offers`]); a test checks every declared action has a key and every key
//! is declared.
use super::keymap::{Action, KeyContext};
use super::protocol::{KeyCommand, hint, quiet};

/// The keys that work everywhere, in the order the status bar names them.
pub(crate) const GLOBAL: &[KeyCommand] = &[
    hint(Action::Help),
    hint(Action::Quit),
    hint(Action::OpenPicker),
    hint(Action::FocusNext),
    quiet(Action::FocusPrev),
    hint(Action::CycleView),
    hint(Action::ShowTimeline),
    hint(Action::ShowReview),
    quiet(Action::ShowChanges),
    quiet(Action::SearchAll),
    hint(Action::History),
    hint(Action::ToggleFindings),
    hint(Action::Zoom),
    hint(Action::NextTheme),
    quiet(Action::OpenExternal),
    quiet(Action::Messages),
];

/// The picker's keys (typed characters filter).
pub(crate) const PICKER: &[KeyCommand] = &[
    quiet(Action::Up),
    quiet(Action::Down),
    quiet(Action::PageUp),
    quiet(Action::PageDown),
    quiet(Action::Top),
    quiet(Action::Bottom),
    hint(Action::Open),
    hint(Action::Back),
    hint(Action::CycleSort),
    hint(Action::OpenDemo),
    hint(Action::InitBank),
];

/// The tree's keys. Moving the selection shows the file under it; Enter moves the
/// keyboard into it (on a folder it folds or unfolds it). While the filter is typed,
/// characters go to it, whatever they are bound to.
pub(crate) const TREE: &[KeyCommand] = &[
    quiet(Action::Up),
    quiet(Action::Down),
    quiet(Action::PageUp),
    quiet(Action::PageDown),
    quiet(Action::Top),
    quiet(Action::Bottom),
    hint(Action::Open),
    hint(Action::Filter),
    hint(Action::Toggle),
    quiet(Action::Expand),
    quiet(Action::Collapse),
    quiet(Action::Back),
];

/// The modeless editor's keys (the default keymap); with the vim preset, insert mode
/// has them too. A typed character no key is bound to is text.
pub const EDITOR: &[KeyCommand] = &[
    hint(Action::Save),
    hint(Action::Undo),
    hint(Action::Redo),
    hint(Action::Search),
    hint(Action::SearchNext),
    hint(Action::SearchPrev),
    hint(Action::Leave),
    quiet(Action::Copy),
    quiet(Action::Cut),
    quiet(Action::Paste),
    quiet(Action::ToggleWrap),
    quiet(Action::Up),
    quiet(Action::Down),
    quiet(Action::Left),
    quiet(Action::Right),
    quiet(Action::WordLeft),
    quiet(Action::WordRight),
    quiet(Action::LineStart),
    quiet(Action::LineEnd),
    quiet(Action::FileStart),
    quiet(Action::FileEnd),
    quiet(Action::PageUp),
    quiet(Action::PageDown),
    quiet(Action::ParagraphUp),
    quiet(Action::ParagraphDown),
    quiet(Action::SelectLeft),
    quiet(Action::SelectRight),
    quiet(Action::SelectUp),
    quiet(Action::SelectDown),
    quiet(Action::SelectWordLeft),
    quiet(Action::SelectWordRight),
    quiet(Action::SelectLineStart),
    quiet(Action::SelectLineEnd),
    quiet(Action::SelectFileStart),
    quiet(Action::SelectFileEnd),
    quiet(Action::SelectAll),
    quiet(Action::Newline),
    quiet(Action::DeleteBack),
    quiet(Action::DeleteForward),
    quiet(Action::DeleteWordBack),
    quiet(Action::DeleteWordForward),
    quiet(Action::DeleteToLineEnd),
];

/// Vim's normal mode: keys are commands.
pub(crate) const EDITOR_NORMAL: &[KeyCommand] = &[
    hint(Action::InsertMode),
    hint(Action::VisualMode),
    hint(Action::Search),
    hint(Action::Undo),
    hint(Action::Save),
    hint(Action::Leave),
    quiet(Action::CommandLine),
    quiet(Action::Append),
    quiet(Action::AppendLineEnd),
    quiet(Action::InsertLineStart),
    quiet(Action::OpenBelow),
    quiet(Action::OpenAbove),
    quiet(Action::VisualLineMode),
    quiet(Action::Left),
    quiet(Action::Down),
    quiet(Action::Up),
    quiet(Action::Right),
    quiet(Action::WordRight),
    quiet(Action::WordLeft),
    quiet(Action::WordEnd),
    quiet(Action::LineStart),
    quiet(Action::FirstNonBlank),
    quiet(Action::LineEnd),
    quiet(Action::GotoPrefix),
    quiet(Action::FileStart),
    quiet(Action::FileEnd),
    quiet(Action::ParagraphUp),
    quiet(Action::ParagraphDown),
    quiet(Action::PageUp),
    quiet(Action::PageDown),
    quiet(Action::DeleteForward),
    quiet(Action::DeleteOp),
    quiet(Action::YankOp),
    quiet(Action::ChangeOp),
    quiet(Action::PasteAfter),
    quiet(Action::PasteBefore),
    quiet(Action::Redo),
    quiet(Action::SearchNext),
    quiet(Action::SearchPrev),
    quiet(Action::NormalMode),
    quiet(Action::ToggleWrap),
];

/// The editor reached by tab: the file read-only until `edit`; moving, searching and
/// copying work as in the editor.
pub(crate) const EDITOR_VIEW: &[KeyCommand] = &[
    hint(Action::Edit),
    hint(Action::Search),
    hint(Action::Leave),
    quiet(Action::SearchNext),
    quiet(Action::SearchPrev),
    quiet(Action::Save),
    quiet(Action::Copy),
    quiet(Action::ToggleWrap),
    quiet(Action::Up),
    quiet(Action::Down),
    quiet(Action::Left),
    quiet(Action::Right),
    quiet(Action::WordLeft),
    quiet(Action::WordRight),
    quiet(Action::LineStart),
    quiet(Action::LineEnd),
    quiet(Action::FileStart),
    quiet(Action::FileEnd),
    quiet(Action::PageUp),
    quiet(Action::PageDown),
    quiet(Action::ParagraphUp),
    quiet(Action::ParagraphDown),
    quiet(Action::SelectLeft),
    quiet(Action::SelectRight),
    quiet(Action::SelectUp),
    quiet(Action::SelectDown),
    quiet(Action::SelectWordLeft),
    quiet(Action::SelectWordRight),
    quiet(Action::SelectLineStart),
    quiet(Action::SelectLineEnd),
    quiet(Action::SelectFileStart),
    quiet(Action::SelectFileEnd),
    quiet(Action::SelectAll),
];

/// Vim's insert mode: its own key, and the editor's keys it shares (the status bar's
/// hints; help lists the rest under the editor).
pub(crate) const EDITOR_INSERT: &[KeyCommand] = &[
    hint(Action::NormalMode),
    hint(Action::Save),
    hint(Action::Undo),
    hint(Action::Search),
];

/// Vim's visual modes: motions extend the selection, operators act on it.
pub(crate) const EDITOR_VISUAL: &[KeyCommand] = &[
    hint(Action::YankOp),
    hint(Action::DeleteOp),
    hint(Action::ChangeOp),
    hint(Action::NormalMode),
    quiet(Action::PasteAfter),
    quiet(Action::VisualMode),
    quiet(Action::VisualLineMode),
    quiet(Action::Left),
    quiet(Action::Down),
    quiet(Action::Up),
    quiet(Action::Right),
    quiet(Action::WordRight),
    quiet(Action::WordLeft),
    quiet(Action::WordEnd),
    quiet(Action::LineStart),
    quiet(Action::FirstNonBlank),
    quiet(Action::LineEnd),
    quiet(Action::GotoPrefix),
    quiet(Action::FileStart),
    quiet(Action::FileEnd),
    quiet(Action::ParagraphUp),
    quiet(Action::ParagraphDown),
    quiet(Action::PageUp),
    quiet(Action::PageDown),
    quiet(Action::Save),
];

/// The preview's keys: it scrolls.
pub(crate) const PREVIEW: &[KeyCommand] = &[
    quiet(Action::Up),
    quiet(Action::Down),
    quiet(Action::PageUp),
    quiet(Action::PageDown),
    quiet(Action::Top),
    quiet(Action::Bottom),
];

/// The timeline's keys (while the text filter is typed, characters go to it).
pub(crate) const TIMELINE: &[KeyCommand] = &[
    quiet(Action::Up),
    quiet(Action::Down),
    quiet(Action::PageUp),
    quiet(Action::PageDown),
    quiet(Action::Top),
    quiet(Action::Bottom),
    hint(Action::Open),
    hint(Action::Back),
    hint(Action::Filter),
    hint(Action::CycleStatus),
    quiet(Action::NewAdr),
];

/// The panel's keys.
pub const FINDINGS: &[KeyCommand] = &[
    quiet(Action::Up),
    quiet(Action::Down),
    hint(Action::Open),
    hint(Action::ApplyFix),
    hint(Action::Back),
];

/// The review's keys.
pub const REVIEW: &[KeyCommand] = &[
    quiet(Action::Up),
    quiet(Action::Down),
    quiet(Action::PageUp),
    quiet(Action::PageDown),
    quiet(Action::Top),
    quiet(Action::Bottom),
    hint(Action::Back),
    hint(Action::AcceptHunk),
    hint(Action::RejectHunk),
    hint(Action::NextHunk),
    quiet(Action::PrevHunk),
    hint(Action::NextFile),
    quiet(Action::PrevFile),
    hint(Action::Undo),
    hint(Action::AcceptLine),
    hint(Action::RejectLine),
    hint(Action::AcceptFile),
    hint(Action::RejectFile),
    hint(Action::ToggleSideBySide),
    hint(Action::Commit),
    hint(Action::ToggleDetails),
    hint(Action::EditProposal),
];

/// The Changes view's keys: up and down choose a file, the hunk keys a hunk of it.
pub(crate) const CHANGES: &[KeyCommand] = &[
    quiet(Action::Up),
    quiet(Action::Down),
    quiet(Action::PageUp),
    quiet(Action::PageDown),
    quiet(Action::Top),
    quiet(Action::Bottom),
    hint(Action::Back),
    hint(Action::RevertHunk),
    hint(Action::RevertFile),
    hint(Action::NextHunk),
    quiet(Action::PrevHunk),
    hint(Action::MarkReviewed),
];

/// The prompt's keys.
pub(crate) const CONFIRM: &[KeyCommand] = &[hint(Action::Yes), hint(Action::No)];

/// The prompt's keys. Esc closes it and changes nothing: the edits stay in the buffer,
/// the disk keeps theirs, and the next save (refused while they differ) asks again.
pub(crate) const CONFLICT: &[KeyCommand] = &[
    hint(Action::Back),
    hint(Action::KeepMine),
    hint(Action::TakeTheirs),
    hint(Action::MergeView),
];

/// The commit editor's keys; every other key edits the message.
pub(crate) const COMMIT_MESSAGE: &[KeyCommand] = &[hint(Action::Back), hint(Action::CommitNow)];

/// Help's keys: it scrolls and closes.
pub(crate) const HELP: &[KeyCommand] = &[
    quiet(Action::Up),
    quiet(Action::Down),
    quiet(Action::PageUp),
    quiet(Action::PageDown),
    hint(Action::Back),
];

/// The history overlay's keys: up and down choose a version, the page keys scroll its
/// diff.
pub const HISTORY: &[KeyCommand] = &[
    quiet(Action::Up),
    quiet(Action::Down),
    quiet(Action::PageUp),
    quiet(Action::PageDown),
    quiet(Action::Top),
    quiet(Action::Bottom),
    hint(Action::Back),
    hint(Action::ToggleDiffBase),
    hint(Action::Restore),
];

/// The commands of a context.
pub fn commands(context: KeyContext) -> &'static [KeyCommand] {
    match context {
        KeyContext::Global => GLOBAL,
        KeyContext::Picker => PICKER,
        KeyContext::Tree => TREE,
        KeyContext::Editor => EDITOR,
        KeyContext::EditorView => EDITOR_VIEW,
        KeyContext::EditorNormal => EDITOR_NORMAL,
        KeyContext::EditorInsert => EDITOR_INSERT,
        KeyContext::EditorVisual => EDITOR_VISUAL,
        KeyContext::Preview => PREVIEW,
        KeyContext::Timeline => TIMELINE,
        KeyContext::Findings => FINDINGS,
        KeyContext::Review => REVIEW,
        KeyContext::Confirm => CONFIRM,
        KeyContext::Conflict => CONFLICT,
        KeyContext::CommitMessage => COMMIT_MESSAGE,
        KeyContext::Help => HELP,
        KeyContext::History => HISTORY,
        KeyContext::Changes => CHANGES,
        KeyContext::Search => SEARCH,
    }
}

/// The search overlay's keys (typed characters are the query).
pub(crate) const SEARCH: &[KeyCommand] = &[
    quiet(Action::Up),
    quiet(Action::Down),
    quiet(Action::PageUp),
    quiet(Action::PageDown),
    hint(Action::Open),
    hint(Action::Back),
];

/// Whether `commands` offers `action` (a pane takes exactly the actions it declares).
pub fn offers(commands: &[KeyCommand], action: Action) -> bool {
    commands.iter().any(|c| c.action == action)
}

//! Key bindings from TOML: the bundled default, the vim preset on top when chosen, and
//! the user's `<config>/keymap.toml` last. Each action carries a description; the status
//! bar and the help overlay show the keys bound here for what each pane declares it does
//! (the command registry, `commands`), so they never drift.
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde::Deserialize;

pub(crate) const DEFAULT_KEYMAP: &str = include_str!("../../../assets/keymaps/default.toml");
pub(crate) const VIM_KEYMAP: &str = include_str!("../../../assets/keymaps/vim.toml");

/// Where a key is being pressed. Overlays and the focused pane each have one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KeyContext {
    Global,
    Picker,
    Tree,
    Editor,
    /// The modeless editor entered by a navigation key (tab): the file is shown
    /// read-only until an explicit key starts editing, so a letter never types by
    /// surprise. The editor's moving keys work here too.
    EditorView,
    /// Vim's modes in the editor (the vim preset; a keymap without `editor_normal` keys
    /// leaves the editor modeless). Insert mode falls back to the editor's own keys.
    EditorNormal,
    EditorInsert,
    EditorVisual,
    Preview,
    Timeline,
    Findings,
    Review,
    Confirm,
    Conflict,
    CommitMessage,
    Help,
    /// A file's history overlay.
    History,
    /// What changed in every project's memory since it was last marked reviewed.
    Changes,
    /// Search over every project's memory.
    Search,
}

impl KeyContext {
    pub const ALL: [KeyContext; 19] = [
        KeyContext::Global,
        KeyContext::Picker,
        KeyContext::Tree,
        KeyContext::Editor,
        KeyContext::EditorView,
        KeyContext::EditorNormal,
        KeyContext::EditorInsert,
        KeyContext::EditorVisual,
        KeyContext::Preview,
        KeyContext::Timeline,
        KeyContext::Findings,
        KeyContext::Review,
        KeyContext::Confirm,
        KeyContext::Conflict,
        KeyContext::CommitMessage,
        KeyContext::Help,
        KeyContext::History,
        KeyContext::Changes,
        KeyContext::Search,
    ];

    pub fn title(self) -> &'static str {
        match self {
            KeyContext::Global => "Everywhere",
            KeyContext::Picker => "Project picker",
            KeyContext::Tree => "File tree",
            KeyContext::Editor => "Editor",
            KeyContext::EditorView => "Editor: viewing (read-only until you start editing)",
            KeyContext::EditorNormal => "Editor: normal mode (vim)",
            KeyContext::EditorInsert => "Editor: insert mode (vim; and the editor's keys)",
            KeyContext::EditorVisual => "Editor: visual mode (vim)",
            KeyContext::Preview => "Preview",
            KeyContext::Timeline => "Decision timeline",
            KeyContext::Findings => "Findings",
            KeyContext::Review => "Review",
            KeyContext::Confirm => "Confirm",
            KeyContext::CommitMessage => "Commit message",
            KeyContext::Conflict => "Conflict",
            KeyContext::Help => "Help",
            KeyContext::History => "File history",
            KeyContext::Changes => "Changes (every project)",
            KeyContext::Search => "Search every project",
        }
    }

    /// Contexts where printable keys are typed text, not commands: a typed character
    /// never reaches the global keys there. (In vim's normal and visual modes the
    /// printable keys are commands of their own, and the others do nothing.)
    pub(crate) fn takes_text(self) -> bool {
        matches!(
            self,
            KeyContext::Picker
                | KeyContext::Editor
                | KeyContext::EditorNormal
                | KeyContext::EditorInsert
                | KeyContext::EditorVisual
                | KeyContext::CommitMessage
                | KeyContext::Search
        )
    }

    /// The context whose keys this one also has, below its own.
    pub fn parent(self) -> Option<KeyContext> {
        match self {
            KeyContext::EditorInsert | KeyContext::EditorView => Some(KeyContext::Editor),
            _ => None,
        }
    }
}

/// Everything a key can ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Quit,
    Help,
    OpenPicker,
    FocusNext,
    FocusPrev,
    CycleView,
    ShowTimeline,
    ShowReview,
    ToggleFindings,
    Zoom,
    NextTheme,
    OpenExternal,
    Messages,
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    Open,
    Back,
    CycleSort,
    OpenDemo,
    InitBank,
    Collapse,
    Expand,
    Toggle,
    Save,
    Undo,
    Redo,
    Search,
    SearchNext,
    SearchPrev,
    Leave,
    /// Starts editing a file the editor shows read-only (it was reached by tab).
    Edit,
    Copy,
    Cut,
    Paste,
    ToggleWrap,
    Left,
    Right,
    WordLeft,
    WordRight,
    WordEnd,
    LineStart,
    LineEnd,
    FirstNonBlank,
    FileStart,
    FileEnd,
    ParagraphUp,
    ParagraphDown,
    SelectLeft,
    SelectRight,
    SelectUp,
    SelectDown,
    SelectWordLeft,
    SelectWordRight,
    SelectLineStart,
    SelectLineEnd,
    SelectFileStart,
    SelectFileEnd,
    SelectAll,
    Newline,
    DeleteBack,
    DeleteForward,
    DeleteWordBack,
    DeleteWordForward,
    DeleteToLineEnd,
    NormalMode,
    InsertMode,
    Append,
    AppendLineEnd,
    InsertLineStart,
    OpenBelow,
    OpenAbove,
    VisualMode,
    VisualLineMode,
    DeleteOp,
    YankOp,
    ChangeOp,
    PasteAfter,
    PasteBefore,
    GotoPrefix,
    Filter,
    CycleStatus,
    /// Writes the open project's next architecture decision record.
    NewAdr,
    Yes,
    No,
    KeepMine,
    TakeTheirs,
    MergeView,
    NextHunk,
    PrevHunk,
    NextFile,
    PrevFile,
    AcceptHunk,
    RejectHunk,
    AcceptLine,
    RejectLine,
    AcceptFile,
    RejectFile,
    ToggleSideBySide,
    Commit,
    CommitNow,
    CommandLine,
    ApplyFix,
    History,
    ToggleDiffBase,
    Restore,
    EditProposal,
    ToggleDetails,
    ShowChanges,
    SearchAll,
    RevertHunk,
    RevertFile,
    MarkReviewed,
}

impl Action {
    /// What the action does, in the words the help overlay shows.
    pub fn describe(self) -> &'static str {
        match self {
            Action::Quit => "quit (asks first when edits are unsaved)",
            Action::Help => "show all keys",
            Action::OpenPicker => "switch project",
            Action::FocusNext => "focus next pane",
            Action::FocusPrev => "focus previous pane",
            Action::CycleView => "editor / split / preview",
            Action::ShowTimeline => "decision timeline",
            Action::ShowReview => "review what agents changed",
            Action::ToggleFindings => "findings panel",
            Action::Zoom => "zoom: the focused pane takes the whole width (again: back)",
            Action::NextTheme => "next theme",
            Action::OpenExternal => "open in $EDITOR",
            Action::Messages => "messages: every one shown this session, whole",
            Action::Up => "up",
            Action::Down => "down",
            Action::PageUp => "page up",
            Action::PageDown => "page down",
            Action::Top => "first",
            Action::Bottom => "last",
            Action::Open => "open",
            Action::Back => "back",
            Action::CycleSort => "change sort",
            Action::OpenDemo => "open the demo banks",
            Action::InitBank => "create a memory bank",
            Action::Collapse => "collapse / go to parent",
            Action::Expand => "expand / go into the folder / open the file",
            Action::Toggle => "fold / unfold group",
            Action::Save => "save",
            Action::Undo => "undo",
            Action::Redo => "redo",
            Action::Search => "search",
            Action::SearchNext => "next match",
            Action::SearchPrev => "previous match",
            Action::Leave => "back to the tree",
            Action::Edit => "start editing (after tab the file is shown read-only)",
            Action::Copy => "copy the selection (nothing selected: the line)",
            Action::Cut => "cut the selection (nothing selected: the line)",
            Action::Paste => "paste (a copied line: above the cursor's)",
            Action::ToggleWrap => "soft wrap on / off (markdown starts on)",
            Action::Left => "left",
            Action::Right => "right",
            Action::WordLeft => "start of the word (or the previous one)",
            Action::WordRight => "start of the next word",
            Action::WordEnd => "end of the word",
            Action::LineStart => "start of the line",
            Action::LineEnd => "end of the line",
            Action::FirstNonBlank => "first character of the line",
            Action::FileStart => "start of the file",
            Action::FileEnd => "end of the file",
            Action::ParagraphUp => "previous paragraph",
            Action::ParagraphDown => "next paragraph",
            Action::SelectLeft => "select left",
            Action::SelectRight => "select right",
            Action::SelectUp => "select up",
            Action::SelectDown => "select down",
            Action::SelectWordLeft => "select to the word's start",
            Action::SelectWordRight => "select to the next word",
            Action::SelectLineStart => "select to the start of the line",
            Action::SelectLineEnd => "select to the end of the line",
            Action::SelectFileStart => "select to the start of the file",
            Action::SelectFileEnd => "select to the end of the file",
            Action::SelectAll => "select all",
            Action::Newline => "new line",
            Action::DeleteBack => "delete the character before the cursor",
            Action::DeleteForward => "delete the character at the cursor",
            Action::DeleteWordBack => "delete the word before the cursor",
            Action::DeleteWordForward => "delete to the end of the word",
            Action::DeleteToLineEnd => "delete to the end of the line",
            Action::NormalMode => "normal mode (cancels a half-typed command)",
            Action::InsertMode => "insert before the cursor",
            Action::Append => "insert after the cursor",
            Action::AppendLineEnd => "insert at the end of the line",
            Action::InsertLineStart => "insert at the start of the line",
            Action::OpenBelow => "new line below, insert",
            Action::OpenAbove => "new line above, insert",
            Action::VisualMode => "select characters (visual)",
            Action::VisualLineMode => "select lines (visual line)",
            Action::DeleteOp => "delete: twice the line, or + a motion (w e b 0 $ j k G g g)",
            Action::YankOp => "copy (yank): twice the line, or + a motion",
            Action::ChangeOp => "change (delete, insert): twice the line, or + a motion",
            Action::PasteAfter => "paste after the cursor (lines: below)",
            Action::PasteBefore => "paste before the cursor (lines: above)",
            Action::GotoPrefix => "then g: start of the file",
            Action::Filter => "filter by text",
            Action::CycleStatus => "filter by status",
            Action::NewAdr => "new decision record (ADR) in the project's ADR folder",
            Action::Yes => "yes",
            Action::No => "no",
            Action::KeepMine => "keep mine",
            Action::TakeTheirs => "take theirs",
            Action::MergeView => "merge view",
            Action::NextHunk => "next hunk",
            Action::PrevHunk => "previous hunk",
            Action::NextFile => "next changed file",
            Action::PrevFile => "previous changed file",
            Action::AcceptHunk => {
                "accept the hunk (git: stage it; else: into the snapshot; a proposal's hunk: take it)"
            }
            Action::RejectHunk => {
                "reject the hunk (revert it in the file; a proposal's hunk: leave it out)"
            }
            Action::AcceptLine => "accept the line under the cursor",
            Action::RejectLine => "reject the line under the cursor",
            Action::AcceptFile => "accept the whole file (a proposal: all of it)",
            Action::RejectFile => {
                "reject the whole file (asks first, naming the loss; a proposal: reject it)"
            }
            Action::ToggleSideBySide => "unified / side by side",
            Action::Commit => "commit accepted memory (git) / mark reviewed (outside git)",
            Action::CommitNow => "commit with this message",
            Action::CommandLine => "command line: :w saves, :q quits, :q! quits without saving",
            Action::ApplyFix => "apply the finding's fix (a renamed path): saved like an edit",
            Action::History => "the file's history: its earlier versions, diffs, restore",
            Action::ToggleDiffBase => "diff against the file now / against the previous version",
            Action::Restore => "restore the selected version (asks first; the file now is kept)",
            Action::EditProposal => "edit an agent's proposal, then accept it as edited",
            Action::ToggleDetails => "show / hide a proposal's or refused write's details",
            Action::ShowChanges => {
                "changes to memory in every project since they were last marked reviewed"
            }
            Action::SearchAll => "search every project's memory; enter opens the file at the line",
            Action::RevertHunk => {
                "revert the hunk to the recorded version (the text now is kept in the history)"
            }
            Action::RevertFile => {
                "revert the whole file to the recorded version; a deleted file is restored (asks before losing text)"
            }
            Action::MarkReviewed => "mark every change shown reviewed (asks first)",
        }
    }

    /// A word for the status bar, where space is short.
    pub fn short(self) -> &'static str {
        match self {
            Action::Quit => "quit",
            Action::Help => "help",
            Action::OpenPicker => "projects",
            Action::FocusNext => "next pane",
            Action::CycleView => "view",
            Action::ShowTimeline => "timeline",
            Action::ShowReview => "review",
            Action::ToggleFindings => "findings",
            Action::Zoom => "zoom",
            Action::OpenExternal => "$EDITOR",
            Action::Messages => "messages",
            Action::Open => "open",
            Action::Back => "back",
            Action::CycleSort => "sort",
            Action::OpenDemo => "demo",
            Action::InitBank => "init",
            Action::Toggle => "fold",
            Action::Expand => "expand",
            Action::Save => "save",
            Action::Undo => "undo",
            Action::Redo => "redo",
            Action::Search => "search",
            Action::Leave => "tree",
            Action::Edit => "edit",
            Action::Copy => "copy",
            Action::Cut => "cut",
            Action::Paste => "paste",
            Action::ToggleWrap => "wrap",
            Action::NormalMode => "normal",
            Action::InsertMode => "insert",
            Action::VisualMode => "visual",
            Action::VisualLineMode => "lines",
            Action::DeleteOp => "delete",
            Action::YankOp => "yank",
            Action::ChangeOp => "change",
            Action::PasteAfter => "paste",
            Action::Filter => "filter",
            Action::CycleStatus => "status",
            Action::NewAdr => "new ADR",
            Action::Yes => "yes",
            Action::No => "no",
            Action::KeepMine => "keep mine",
            Action::TakeTheirs => "take theirs",
            Action::MergeView => "merge",
            Action::NextHunk => "hunk",
            Action::NextFile => "file",
            Action::AcceptHunk => "accept",
            Action::RejectHunk => "reject",
            Action::AcceptLine => "accept line",
            Action::RejectLine => "reject line",
            Action::AcceptFile => "accept file",
            Action::RejectFile => "reject file",
            Action::ToggleSideBySide => "side by side",
            Action::Commit => "commit",
            Action::CommitNow => "commit",
            Action::CommandLine => "command",
            Action::ApplyFix => "fix",
            Action::History => "history",
            Action::ToggleDiffBase => "now / previous",
            Action::Restore => "restore",
            Action::EditProposal => "edit proposal",
            Action::ToggleDetails => "details",
            Action::ShowChanges => "changes",
            Action::SearchAll => "search",
            Action::RevertHunk => "revert hunk",
            Action::RevertFile => "revert file",
            Action::MarkReviewed => "reviewed",
            other => other.describe(),
        }
    }
}

/// A key with its modifiers, as written in the TOML ("ctrl-s", "shift-f6", "?").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyChord {
    pub code: KeyCode,
    pub modifiers: KeyModifiers,
}

impl KeyChord {
    /// The chord of a pressed key. Shift is dropped from characters: `?` and `G` carry
    /// it in the character itself, and terminals disagree on reporting it.
    pub(crate) fn from_event(event: &KeyEvent) -> KeyChord {
        let mut modifiers = event.modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT);
        // BackTab is shift-tab already; some terminals add SHIFT, some do not.
        if !matches!(event.code, KeyCode::Char(_) | KeyCode::BackTab) {
            modifiers |= event.modifiers & KeyModifiers::SHIFT;
        }
        let code = match event.code {
            KeyCode::Char(c) if modifiers.contains(KeyModifiers::CONTROL) => {
                KeyCode::Char(c.to_ascii_lowercase())
            }
            other => other,
        };
        KeyChord { code, modifiers }
    }

    /// True for keys that type a character in a text field.
    pub(crate) fn is_printable(&self) -> bool {
        matches!(self.code, KeyCode::Char(_))
            && !self
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
    }

    pub fn parse(text: &str) -> Result<KeyChord, String> {
        let mut modifiers = KeyModifiers::NONE;
        let mut rest = text;
        loop {
            if rest.len() > 1
                && let Some((prefix, tail)) = rest.split_once('-')
            {
                let modifier = match prefix.to_ascii_lowercase().as_str() {
                    "ctrl" | "c" => KeyModifiers::CONTROL,
                    "alt" | "a" | "meta" => KeyModifiers::ALT,
                    "shift" | "s" => KeyModifiers::SHIFT,
                    _ => break,
                };
                if tail.is_empty() {
                    break;
                }
                modifiers |= modifier;
                rest = tail;
                continue;
            }
            break;
        }
        let code = match rest.to_ascii_lowercase().as_str() {
            "enter" | "return" => KeyCode::Enter,
            "esc" | "escape" => KeyCode::Esc,
            "tab" => KeyCode::Tab,
            "backtab" => KeyCode::BackTab,
            "backspace" => KeyCode::Backspace,
            "delete" | "del" => KeyCode::Delete,
            "insert" => KeyCode::Insert,
            "up" => KeyCode::Up,
            "down" => KeyCode::Down,
            "left" => KeyCode::Left,
            "right" => KeyCode::Right,
            "home" => KeyCode::Home,
            "end" => KeyCode::End,
            "pageup" | "pgup" => KeyCode::PageUp,
            "pagedown" | "pgdn" => KeyCode::PageDown,
            "space" => KeyCode::Char(' '),
            name if name.len() > 1 && name.starts_with('f') => {
                let number: u8 = name[1..]
                    .parse()
                    .map_err(|_| format!("unknown key {text:?}"))?;
                if !(1..=12).contains(&number) {
                    return Err(format!("unknown key {text:?}"));
                }
                KeyCode::F(number)
            }
            _ => {
                let mut chars = rest.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => KeyCode::Char(c),
                    _ => return Err(format!("unknown key {text:?}")),
                }
            }
        };
        let chord = KeyChord { code, modifiers };
        // Normalise the same way pressed keys are.
        Ok(KeyChord::from_event(&KeyEvent::new(
            chord.code,
            chord.modifiers,
        )))
    }
}

impl fmt::Display for KeyChord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.modifiers.contains(KeyModifiers::CONTROL) {
            f.write_str("ctrl-")?;
        }
        if self.modifiers.contains(KeyModifiers::ALT) {
            f.write_str("alt-")?;
        }
        if self.modifiers.contains(KeyModifiers::SHIFT) {
            f.write_str("shift-")?;
        }
        match self.code {
            KeyCode::Enter => f.write_str("enter"),
            KeyCode::Esc => f.write_str("esc"),
            KeyCode::Tab => f.write_str("tab"),
            KeyCode::BackTab => f.write_str("shift-tab"),
            KeyCode::Backspace => f.write_str("backspace"),
            KeyCode::Delete => f.write_str("del"),
            KeyCode::Insert => f.write_str("ins"),
            KeyCode::Up => f.write_str("↑"),
            KeyCode::Down => f.write_str("↓"),
            KeyCode::Left => f.write_str("←"),
            KeyCode::Right => f.write_str("→"),
            KeyCode::Home => f.write_str("home"),
            KeyCode::End => f.write_str("end"),
            KeyCode::PageUp => f.write_str("pgup"),
            KeyCode::PageDown => f.write_str("pgdn"),
            KeyCode::Char(' ') => f.write_str("space"),
            KeyCode::Char(c) => write!(f, "{c}"),
            KeyCode::F(n) => write!(f, "F{n}"),
            other => write!(f, "{other:?}"),
        }
    }
}

/// One binding: an action and the keys that trigger it, in the file's order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Binding {
    pub action: Action,
    pub keys: Vec<KeyChord>,
}

#[derive(Debug, thiserror::Error)]
#[error("{source_name}: {message}")]
pub struct KeymapError {
    pub source_name: String,
    pub message: String,
}

type KeymapFile = BTreeMap<KeyContext, BTreeMap<Action, Vec<String>>>;

#[derive(Debug, Clone, Default)]
pub struct Keymap {
    contexts: BTreeMap<KeyContext, Vec<Binding>>,
}

impl Keymap {
    /// The default bindings, the vim preset when `preset` is "vim", then the user's file.
    pub fn load(preset: Option<&str>, user_file: Option<&Path>) -> Result<Keymap, KeymapError> {
        let mut keymap = Keymap::default();
        keymap.apply(DEFAULT_KEYMAP, "bundled default keymap")?;
        match preset {
            None | Some("default") => {}
            Some("vim") => keymap.apply(VIM_KEYMAP, "bundled vim keymap")?,
            Some(other) => {
                return Err(KeymapError {
                    source_name: "config.toml".into(),
                    message: format!("unknown keymap preset {other:?} (use default or vim)"),
                });
            }
        }
        if let Some(path) = user_file {
            // A regular file within the settings limits; a missing file is no keymap.
            match mbank_core::config::read_settings_file(path) {
                Ok(text) => keymap.apply(&text, &path.display().to_string())?,
                Err(e) if mbank_core::io::text::is_not_found(&e) => {}
                Err(e) => {
                    return Err(KeymapError {
                        source_name: "keymap file".into(),
                        message: e.to_string(),
                    });
                }
            }
        }
        Ok(keymap)
    }

    /// Overlays a keymap file: each action it lists gets exactly the keys it gives.
    pub fn apply(&mut self, text: &str, source_name: &str) -> Result<(), KeymapError> {
        let error = |message: String| KeymapError {
            source_name: source_name.to_string(),
            message,
        };
        let file: KeymapFile = toml::from_str(text).map_err(|e| error(e.to_string()))?;
        for (context, actions) in file {
            let bindings = self.contexts.entry(context).or_default();
            for (action, key_names) in actions {
                let keys = key_names
                    .iter()
                    .map(|name| KeyChord::parse(name))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| error(format!("[{context:?}] {action:?}: {e}")))?;
                match bindings.iter_mut().find(|b| b.action == action) {
                    Some(binding) => binding.keys = keys,
                    None => bindings.push(Binding { action, keys }),
                }
            }
        }
        self.check_conflicts().map_err(error)
    }

    fn check_conflicts(&self) -> Result<(), String> {
        for (context, bindings) in &self.contexts {
            let mut seen: BTreeMap<String, Action> = BTreeMap::new();
            for binding in bindings {
                for key in &binding.keys {
                    if let Some(other) = seen.insert(key.to_string(), binding.action)
                        && other != binding.action
                    {
                        return Err(format!(
                            "[{}] key {key} is bound to both {other:?} and {:?}",
                            context.title(),
                            binding.action
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    pub(crate) fn bindings(&self, context: KeyContext) -> &[Binding] {
        self.contexts.get(&context).map_or(&[], Vec::as_slice)
    }

    /// The action `chord` triggers in `context` alone.
    pub fn lookup(&self, context: KeyContext, chord: &KeyChord) -> Option<Action> {
        self.bindings(context)
            .iter()
            .find(|b| b.keys.contains(chord))
            .map(|b| b.action)
    }

    /// The action for a key pressed in `context`: its own table first, then its
    /// parent's, then the global one, except that typed characters stay text where the
    /// context takes text.
    pub fn resolve(&self, context: KeyContext, chord: &KeyChord) -> Option<Action> {
        self.lookup(context, chord)
            .or_else(|| context.parent().and_then(|p| self.lookup(p, chord)))
            .or_else(|| {
                if context.takes_text() && chord.is_printable() {
                    None
                } else {
                    self.lookup(KeyContext::Global, chord)
                }
            })
    }

    /// The keys of `action` in `context`: its own, or its parent's when it has none.
    pub(crate) fn keys_in(&self, context: KeyContext, action: Action) -> Vec<KeyChord> {
        let own = |context: KeyContext| -> Vec<KeyChord> {
            self.bindings(context)
                .iter()
                .filter(|b| b.action == action)
                .flat_map(|b| b.keys.iter().copied())
                .collect()
        };
        let keys = own(context);
        match context.parent() {
            Some(parent) if keys.is_empty() => own(parent)
                .into_iter()
                .filter(|key| self.lookup(context, key).is_none())
                .collect(),
            _ => keys,
        }
    }

    /// The first key of `action` in `context` (or its parent, or globally) that works
    /// there, for hints like "ctrl-s save".
    pub(crate) fn key_for(&self, context: KeyContext, action: Action) -> Option<KeyChord> {
        // A global printable key is text where the context takes text.
        let global = self
            .bindings(KeyContext::Global)
            .iter()
            .filter(|b| b.action == action)
            .flat_map(|b| b.keys.iter().copied())
            .filter(|key| !(context.takes_text() && key.is_printable()));
        self.keys_in(context, action)
            .into_iter()
            .chain(global)
            .next()
    }

    /// Whether the editor has vim's modes (the keymap has normal-mode keys).
    pub(crate) fn is_modal(&self) -> bool {
        !self.bindings(KeyContext::EditorNormal).is_empty()
    }
}

/// The bindings as a markdown table (where, keys, what), for the guide: a test keeps
/// the copy in docs/GUIDE.md equal to this, so the documented keys are the real ones.
#[cfg(test)]
pub(crate) fn markdown_table(keymap: &Keymap) -> String {
    let mut out = String::from("| where | keys | does |\n|---|---|---|\n");
    for context in KeyContext::ALL {
        for binding in keymap.bindings(context) {
            let keys: Vec<String> = binding
                .keys
                .iter()
                .map(|k| format!("`{}`", k.to_string().replace('|', "\\|")))
                .collect();
            out.push_str(&format!(
                "| {} | {} | {} |\n",
                context.title(),
                keys.join(" "),
                binding.action.describe()
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guide_documents_exactly_the_default_keys() {
        let guide =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/GUIDE.md"))
                .expect("docs/GUIDE.md");
        let start =
            "<!-- keys:start (generated from assets/keymaps/default.toml; a test checks it) -->\n";
        let end = "<!-- keys:end -->";
        let expected = markdown_table(&Keymap::load(None, None).unwrap());
        let documented = guide
            .split_once(start)
            .and_then(|(_, rest)| rest.split_once(end))
            .map(|(table, _)| table);
        assert_eq!(
            documented,
            Some(expected.as_str()),
            "docs/GUIDE.md's key table is out of date; between the markers it should read:\n{start}{expected}{end}"
        );
    }

    fn chord(text: &str) -> KeyChord {
        KeyChord::parse(text).unwrap()
    }

    #[test]
    fn key_names_parse_and_print() {
        assert_eq!(
            chord("ctrl-s"),
            KeyChord {
                code: KeyCode::Char('s'),
                modifiers: KeyModifiers::CONTROL
            }
        );
        assert_eq!(chord("?").code, KeyCode::Char('?'));
        assert_eq!(chord("-").code, KeyCode::Char('-'));
        assert_eq!(chord("ctrl--").code, KeyCode::Char('-'));
        assert_eq!(chord("F6").code, KeyCode::F(6));
        assert_eq!(chord("shift-f6").modifiers, KeyModifiers::SHIFT);
        assert_eq!(chord("space").code, KeyCode::Char(' '));
        assert_eq!(chord("ctrl-s").to_string(), "ctrl-s");
        assert_eq!(chord("pagedown").to_string(), "pgdn");
        assert!(KeyChord::parse("hyper-x").is_err());
        assert!(KeyChord::parse("f13").is_err());
        assert!(KeyChord::parse("").is_err());
    }

    #[test]
    fn pressed_keys_match_their_names() {
        let shifted_question = KeyEvent::new(KeyCode::Char('?'), KeyModifiers::SHIFT);
        assert_eq!(KeyChord::from_event(&shifted_question), chord("?"));
        let upper_ctrl = KeyEvent::new(KeyCode::Char('S'), KeyModifiers::CONTROL);
        assert_eq!(KeyChord::from_event(&upper_ctrl), chord("ctrl-s"));
        let backtab = KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT);
        assert_eq!(KeyChord::from_event(&backtab), chord("backtab"));
        assert_eq!(chord("backtab").to_string(), "shift-tab");
    }

    #[test]
    fn both_presets_load_without_conflicts() {
        let default = Keymap::load(None, None).unwrap();
        let vim = Keymap::load(Some("vim"), None).unwrap();
        let modes = [
            KeyContext::EditorNormal,
            KeyContext::EditorInsert,
            KeyContext::EditorVisual,
        ];
        for keymap in [&default, &vim] {
            for context in KeyContext::ALL {
                // The default editor has no modes.
                if std::ptr::eq(keymap, &default) && modes.contains(&context) {
                    assert!(keymap.bindings(context).is_empty(), "{context:?}");
                    continue;
                }
                assert!(
                    !keymap.bindings(context).is_empty(),
                    "{context:?} has no keys"
                );
            }
        }
        assert!(!default.is_modal() && vim.is_modal());
        assert_eq!(
            vim.lookup(KeyContext::Tree, &chord("j")),
            Some(Action::Down)
        );
        assert_eq!(default.lookup(KeyContext::Tree, &chord("j")), None);
        assert!(Keymap::load(Some("emacs"), None).is_err());
    }

    #[test]
    fn typed_text_does_not_trigger_global_keys() {
        let keymap = Keymap::load(None, None).unwrap();
        assert_eq!(
            keymap.resolve(KeyContext::Tree, &chord("q")),
            Some(Action::Quit)
        );
        assert_eq!(keymap.resolve(KeyContext::Editor, &chord("q")), None);
        assert_eq!(keymap.resolve(KeyContext::Picker, &chord("q")), None);
        assert_eq!(
            keymap.resolve(KeyContext::Editor, &chord("ctrl-q")),
            Some(Action::Quit)
        );
        assert_eq!(
            keymap.resolve(KeyContext::Editor, &chord("ctrl-s")),
            Some(Action::Save)
        );
        assert_eq!(
            keymap.key_for(KeyContext::Editor, Action::Quit),
            Some(chord("ctrl-q"))
        );
    }

    #[test]
    fn vim_modes_have_their_keys_and_insert_mode_the_editors() {
        let vim = Keymap::load(Some("vim"), None).unwrap();
        assert_eq!(
            vim.resolve(KeyContext::EditorNormal, &chord("d")),
            Some(Action::DeleteOp)
        );
        // In normal mode an unbound letter does nothing: never a global key.
        assert_eq!(vim.resolve(KeyContext::EditorNormal, &chord("t")), None);
        assert_eq!(
            vim.resolve(KeyContext::EditorNormal, &chord("ctrl-q")),
            Some(Action::Quit)
        );
        // Insert mode: esc is its own, the rest the editor's; letters are text.
        assert_eq!(
            vim.resolve(KeyContext::EditorInsert, &chord("esc")),
            Some(Action::NormalMode)
        );
        assert_eq!(
            vim.resolve(KeyContext::EditorInsert, &chord("ctrl-s")),
            Some(Action::Save)
        );
        assert_eq!(vim.resolve(KeyContext::EditorInsert, &chord("d")), None);
        assert_eq!(
            vim.key_for(KeyContext::EditorInsert, Action::Undo),
            Some(chord("ctrl-z"))
        );
        // The editor's esc is insert mode's own key there: not listed for leaving.
        assert!(
            vim.keys_in(KeyContext::EditorInsert, Action::Leave)
                .is_empty()
        );
        // A printable key of the mode's own table is named in the status bar.
        assert_eq!(
            vim.key_for(KeyContext::EditorNormal, Action::InsertMode),
            Some(chord("i"))
        );
    }

    #[test]
    fn user_file_overrides_and_conflicts_are_reported() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keymap.toml");
        std::fs::write(&path, "[editor]\nsave = [\"ctrl-o\"]\n").unwrap();
        let keymap = Keymap::load(None, Some(&path)).unwrap();
        assert_eq!(
            keymap.lookup(KeyContext::Editor, &chord("ctrl-o")),
            Some(Action::Save)
        );
        assert_eq!(keymap.lookup(KeyContext::Editor, &chord("ctrl-s")), None);

        std::fs::write(&path, "[editor]\nsave = [\"ctrl-z\"]\n").unwrap();
        let err = Keymap::load(None, Some(&path)).unwrap_err().to_string();
        assert!(
            err.contains("ctrl-z") && err.contains("keymap.toml"),
            "{err}"
        );

        std::fs::write(&path, "[editor]\nfly = [\"x\"]\n").unwrap();
        assert!(Keymap::load(None, Some(&path)).is_err());
    }

    #[test]
    fn every_action_in_the_bundled_files_has_a_description_and_a_key() {
        let keymap = Keymap::load(None, None).unwrap();
        for context in KeyContext::ALL {
            for binding in keymap.bindings(context) {
                assert!(!binding.action.describe().is_empty());
                assert!(!binding.keys.is_empty(), "{context:?} {:?}", binding.action);
            }
        }
    }
}

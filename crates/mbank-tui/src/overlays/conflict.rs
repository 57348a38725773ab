//! The conflict prompt: the open file changed on disk while the buffer has unsaved
//! edits. It shows what changed on disk and offers keep mine / take theirs / merge.
//! Whichever is chosen, the side not kept is saved as a backup file
//! ([`mbank_core::io::backup`]), so nothing is lost either way.
use std::path::PathBuf;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};
use similar::{ChangeTag, TextDiff};

use crate::keymap::{Action, KeyContext, Keymap};
use crate::pane::{Effect, Input, Outcome, Pane, ViewContext};
use crate::theme::Theme;
use mbank_core::edit::EditText;
use mbank_core::markup::sanitize;
use mbank_core::merge;

pub(crate) use crate::protocol::Choice;

#[derive(Debug)]
pub struct Conflict {
    pub path: PathBuf,
    /// What the buffer was loaded from.
    pub base: String,
    pub mine: String,
    /// The editor's view of the file on disk now, and the file as read.
    pub theirs: String,
    pub theirs_disk: EditText,
    pub scroll: usize,
    page: usize,
    area: Rect,
}

impl Conflict {
    pub fn new(path: PathBuf, base: String, mine: String, theirs_disk: EditText) -> Conflict {
        Conflict {
            path,
            base,
            mine,
            theirs: theirs_disk.text.clone(),
            theirs_disk,
            scroll: 0,
            page: 10,
            area: Rect::default(),
        }
    }

    fn update(&mut self, action: Action) -> Option<Choice> {
        match action {
            Action::KeepMine => Some(Choice::KeepMine {
                theirs_disk: Box::new(self.theirs_disk.clone()),
            }),
            Action::TakeTheirs => Some(Choice::TakeTheirs {
                theirs_disk: Box::new(self.theirs_disk.clone()),
            }),
            Action::MergeView => {
                let merged = merge::three_way(&self.base, &self.mine, &self.theirs);
                Some(Choice::Merge {
                    merged: merged.text,
                    theirs_disk: Box::new(self.theirs_disk.clone()),
                    conflicts: merged.conflicts,
                })
            }
            Action::Up => {
                self.scroll = self.scroll.saturating_sub(1);
                None
            }
            Action::Down => {
                self.scroll += 1;
                None
            }
            Action::PageUp => {
                self.scroll = self.scroll.saturating_sub(self.page);
                None
            }
            Action::PageDown => {
                self.scroll += self.page;
                None
            }
            _ => None,
        }
    }

    /// What changed on disk since the buffer was loaded, as diff lines.
    pub(crate) fn disk_changes(&self, theme: &Theme) -> Vec<Line<'static>> {
        let diff = TextDiff::configure()
            .timeout(std::time::Duration::from_millis(200))
            .diff_lines(&self.base, &self.theirs);
        let mut lines = Vec::new();
        for group in diff.grouped_ops(2) {
            for op in group {
                for change in diff.iter_changes(&op) {
                    let (sign, style) = match change.tag() {
                        ChangeTag::Delete => ("-", theme.fg(theme.removed)),
                        ChangeTag::Insert => ("+", theme.fg(theme.added)),
                        ChangeTag::Equal => (" ", theme.muted()),
                    };
                    let text = change.value().trim_end_matches(['\n', '\r']);
                    let text: String = text.chars().take(400).collect();
                    let text = sanitize::line(&text);
                    lines.push(Line::from(Span::styled(format!("{sign} {text}"), style)));
                }
            }
            lines.push(Line::from(Span::styled("  ⋯", theme.muted())));
        }
        lines
    }

    fn draw(&mut self, frame: &mut Frame, area: Rect, theme: &Theme, keymap: &Keymap) {
        let popup = super::popup_area(frame, area, 110, area.height, 2);
        self.area = popup;
        let key = |action| {
            keymap
                .key_for(KeyContext::Conflict, action)
                .map(|k| k.to_string())
                .unwrap_or_default()
        };
        let name = self
            .path
            .file_name()
            .map(sanitize::os_str)
            .unwrap_or_default();
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.fg(theme.warning))
            .style(theme.base())
            .title(Span::styled(
                format!(" {name} changed on disk while you were editing "),
                theme.fg(theme.warning),
            ))
            .title_bottom(Line::from(vec![
                Span::styled(format!(" {} ", key(Action::Back)), theme.key()),
                Span::raw("back  "),
                Span::styled(format!("{} ", key(Action::KeepMine)), theme.key()),
                Span::raw("keep mine  "),
                Span::styled(format!("{} ", key(Action::TakeTheirs)), theme.key()),
                Span::raw("take theirs  "),
                Span::styled(format!("{} ", key(Action::MergeView)), theme.key()),
                Span::raw("merge view  "),
                Span::styled("(the side not kept is saved as a backup) ", theme.muted()),
            ]));
        let inner = block.inner(popup);
        frame.render_widget(block, popup);
        let mut lines = vec![
            Line::from(Span::styled(
                "What the other writer changed (since you opened the file):",
                theme.fg(theme.text),
            )),
            Line::from(""),
        ];
        lines.extend(self.disk_changes(theme));
        self.page = inner.height.max(1) as usize;
        self.scroll = self.scroll.min(lines.len().saturating_sub(1));
        // Wrapped, so a change at the end of a long line is on screen too.
        frame.render_widget(
            Paragraph::new(lines)
                .wrap(Wrap { trim: false })
                .scroll((self.scroll.min(u16::MAX as usize) as u16, 0)),
            inner,
        );
    }
}

impl Pane for Conflict {
    fn context(&self) -> KeyContext {
        KeyContext::Conflict
    }

    fn handle(&mut self, input: Input) -> Outcome {
        let Input::Key(key) = input else {
            return Outcome::done();
        };
        if key.action == Some(Action::Back) {
            let name = self
                .path
                .file_name()
                .map(sanitize::os_str)
                .unwrap_or_default();
            return Outcome::Consumed(vec![
                Effect::CloseOverlay,
                Effect::Toast(format!(
                    "your edits stay in the editor; {name} on disk is theirs until you choose (saving asks again)"
                )),
            ]);
        }
        match key.action.and_then(|action| self.update(action)) {
            Some(choice) => Outcome::Consumed(vec![Effect::CloseOverlay, Effect::Resolve(choice)]),
            None => Outcome::done(),
        }
    }

    fn view(&mut self, frame: &mut Frame, area: Rect, cx: &ViewContext) {
        self.draw(frame, area, cx.theme, cx.keymap);
    }

    fn area(&self) -> Rect {
        self.area
    }
}

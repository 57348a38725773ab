//! The help overlay: every key of every context, generated from what each pane declares
//! it does (its `COMMANDS`) and the keymap's keys for them, so it is always true. The
//! focused pane's context comes first.
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use crate::keymap::{Action, KeyContext, Keymap};
use crate::pane::{self, Effect, Input, Outcome, Pane, ViewContext};
use crate::theme::Theme;
use crate::widgets;

/// The widest the box is.
const POPUP_WIDTH: u16 = 90;

/// The widest the key column grows; longer chord lists get a line of their own.
const KEY_COLUMN_MAX: usize = 36;

/// A message as the history keeps it: whole, with when it was shown.
#[derive(Debug, Clone)]
pub struct Logged {
    pub text: String,
    pub error: bool,
    /// Seconds since the epoch.
    pub at: u64,
}

#[derive(Debug)]
pub struct Help {
    /// The context that was focused when help opened: listed first.
    pub first: KeyContext,
    /// Shows the message history (these, newest first) instead of the keys.
    pub history: Option<Vec<Logged>>,
    pub scroll: usize,
    page: usize,
    area: Rect,
}

impl Help {
    pub fn new(first: KeyContext) -> Help {
        Help {
            first,
            history: None,
            scroll: 0,
            page: 10,
            area: Rect::default(),
        }
    }

    /// The message history: every message shown this session, whole.
    pub fn messages(history: Vec<Logged>) -> Help {
        Help {
            history: Some(history),
            ..Help::new(KeyContext::Global)
        }
    }

    /// The history's lines, newest first, each message wrapped to `width` columns.
    /// `now` (Unix seconds) dates each message.
    fn history_lines(
        history: &[Logged],
        width: usize,
        theme: &Theme,
        now: u64,
    ) -> Vec<Line<'static>> {
        if history.is_empty() {
            return vec![Line::from(Span::styled("No messages yet.", theme.muted()))];
        }
        let mut lines = Vec::new();
        for message in history.iter().rev() {
            let style = if message.error {
                theme.fg(theme.error)
            } else {
                theme.fg(theme.text)
            };
            let when = widgets::ago(Some(message.at), now);
            lines.push(Line::from(Span::styled(when, theme.muted())));
            for piece in wrap_columns(&message.text, width.saturating_sub(2).max(10)) {
                lines.push(Line::from(Span::styled(format!("  {piece}"), style)));
            }
        }
        lines
    }

    /// Returns true when the overlay should close.
    fn update(&mut self, action: Action) -> bool {
        match action {
            Action::Up => self.scroll = self.scroll.saturating_sub(1),
            Action::Down => self.scroll += 1,
            Action::PageUp => self.scroll = self.scroll.saturating_sub(self.page),
            Action::PageDown => self.scroll += self.page,
            Action::Back | Action::Help | Action::Quit | Action::Messages => return true,
            _ => {}
        }
        false
    }

    pub fn lines(&self, keymap: &Keymap, theme: &Theme) -> Vec<Line<'static>> {
        self.lines_within(keymap, theme, POPUP_WIDTH as usize - 2)
    }

    /// The key list for a box `width` columns wide: the key column takes at most two
    /// fifths of it, so the descriptions keep the rest.
    pub(crate) fn lines_within(
        &self,
        keymap: &Keymap,
        theme: &Theme,
        width: usize,
    ) -> Vec<Line<'static>> {
        let column_max = (width * 2 / 5).clamp(12, KEY_COLUMN_MAX);
        let mut order = vec![self.first];
        order.extend(
            KeyContext::ALL
                .into_iter()
                .filter(|c| *c != self.first && *c != KeyContext::Global),
        );
        if self.first != KeyContext::Global {
            order.insert(1, KeyContext::Global);
        }
        // A context's key column is as wide as its longest chord list (within reason); a
        // longer one puts its description on the next line rather than into it.
        let key_text = |context: KeyContext, action: Action| -> String {
            let keys: Vec<String> = keymap
                .keys_in(context, action)
                .iter()
                .map(ToString::to_string)
                .collect();
            if keys.is_empty() {
                "(no key)".to_string()
            } else {
                keys.join(" ")
            }
        };

        let mut lines = Vec::new();
        for context in order {
            let commands = pane::commands(context);
            // A context the keymap gives no keys (vim's modes in the default) is not
            // there to list.
            if commands.is_empty() || keymap.bindings(context).is_empty() {
                continue;
            }
            lines.push(Line::from(Span::styled(
                context.title().to_string(),
                theme.fg(theme.heading_2),
            )));
            let column = commands
                .iter()
                .map(|c| key_text(context, c.action).chars().count())
                .max()
                .unwrap_or(0)
                .clamp(12, column_max)
                + 1;
            for command in commands {
                let keys = key_text(context, command.action);
                let describe =
                    Span::styled(command.action.describe().to_string(), theme.fg(theme.text));
                if keys.chars().count() < column {
                    lines.push(Line::from(vec![
                        Span::styled(format!("  {keys:<column$}"), theme.key()),
                        describe,
                    ]));
                } else {
                    lines.push(Line::from(Span::styled(format!("  {keys}"), theme.key())));
                    lines.push(Line::from(vec![
                        Span::raw(format!("  {:column$}", "")),
                        describe,
                    ]));
                }
            }
            lines.push(Line::from(""));
        }
        lines.push(Line::from(Span::styled(
            "Typed text goes to the filter and the editor; there only ctrl/alt/F-keys reach the global keys.",
            theme.muted(),
        )));
        lines.push(Line::from(Span::styled(
            "Keys come from the keymap (default or vim preset) and <config>/keymap.toml.",
            theme.muted(),
        )));
        lines
    }

    fn draw(&mut self, frame: &mut Frame, area: Rect, theme: &Theme, keymap: &Keymap, now: u64) {
        let popup = super::popup_area(frame, area, POPUP_WIDTH, area.height, 2);
        self.area = popup;
        let title = if self.history.is_some() {
            " Messages "
        } else {
            " Keys "
        };
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border(true))
            .style(theme.base())
            .title(Span::styled(title, theme.title()))
            .title_bottom(
                Line::from(Span::styled(" ↑↓ scroll · esc close ", theme.muted())).right_aligned(),
            );
        let inner = block.inner(popup);
        frame.render_widget(block, popup);
        let lines = match &self.history {
            Some(history) => Self::history_lines(history, inner.width as usize, theme, now),
            None => self.lines_within(keymap, theme, inner.width as usize),
        };
        self.page = inner.height.max(1) as usize;
        self.scroll = self.scroll.min(lines.len().saturating_sub(self.page));
        frame.render_widget(
            Paragraph::new(lines).scroll((self.scroll.min(u16::MAX as usize) as u16, 0)),
            inner,
        );
    }
}

impl Pane for Help {
    fn context(&self) -> KeyContext {
        KeyContext::Help
    }

    fn handle(&mut self, input: Input) -> Outcome {
        match input {
            Input::Key(key) => match key.action {
                Some(action) if self.update(action) => Outcome::effect(Effect::CloseOverlay),
                _ => Outcome::done(),
            },
            _ => Outcome::done(),
        }
    }

    fn view(&mut self, frame: &mut Frame, area: Rect, cx: &ViewContext) {
        self.draw(frame, area, cx.theme, cx.keymap, cx.clock.epoch_seconds());
    }

    fn area(&self) -> Rect {
        self.area
    }
}

/// `text` cut into pieces of at most `width` columns, at spaces where it can be (a long
/// path is cut anywhere): nothing of it is lost.
pub(crate) fn wrap_columns(text: &str, width: usize) -> Vec<String> {
    use unicode_width::UnicodeWidthChar;
    let width = width.max(1);
    let mut pieces = Vec::new();
    let mut line = String::new();
    let mut used = 0;
    for word in text.split_inclusive(' ') {
        let word_width: usize = word.chars().map(|c| c.width().unwrap_or(0)).sum();
        if used + word_width > width && !line.is_empty() {
            pieces.push(std::mem::take(&mut line).trim_end().to_string());
            used = 0;
        }
        for c in word.chars() {
            let w = c.width().unwrap_or(0);
            if used + w > width {
                pieces.push(std::mem::take(&mut line));
                used = 0;
            }
            line.push(c);
            used += w;
        }
    }
    if !line.trim_end().is_empty() || pieces.is_empty() {
        pieces.push(line.trim_end().to_string());
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_keeps_every_character_and_fits_the_width() {
        let text = "kept your edits; their version is saved in /home/ada/.local/share/mbank/conflicts/weather-api.progress.md.theirs.20261125";
        let pieces = wrap_columns(text, 30);
        assert!(pieces.iter().all(|p| p.chars().count() <= 30), "{pieces:?}");
        let joined: String = pieces.concat();
        assert_eq!(joined.replace(' ', ""), text.replace(' ', ""));
        assert_eq!(wrap_columns("", 10), vec![String::new()]);
    }
}

//! The help overlay: every key of every context, generated from what each pane declares
//! it does (its `COMMANDS`) and the keymap's keys for them, so it is always true. The
//! focused pane's context comes first.
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use crate::tui::keymap::{Action, KeyContext, Keymap};
use crate::tui::pane::{self, Command, Effect, Input, Outcome, Pane, ViewContext, hint, quiet};
use crate::tui::theme::Theme;

/// Help's keys: it scrolls and closes.
pub const COMMANDS: &[Command] = &[
    quiet(Action::Up),
    quiet(Action::Down),
    quiet(Action::PageUp),
    quiet(Action::PageDown),
    hint(Action::Back),
];

#[derive(Debug)]
pub struct Help {
    /// The context that was focused when help opened: listed first.
    pub first: KeyContext,
    pub scroll: usize,
    page: usize,
    area: Rect,
}

impl Help {
    pub fn new(first: KeyContext) -> Help {
        Help {
            first,
            scroll: 0,
            page: 10,
            area: Rect::default(),
        }
    }

    /// Returns true when the overlay should close.
    fn update(&mut self, action: Action) -> bool {
        match action {
            Action::Up => self.scroll = self.scroll.saturating_sub(1),
            Action::Down => self.scroll += 1,
            Action::PageUp => self.scroll = self.scroll.saturating_sub(self.page),
            Action::PageDown => self.scroll += self.page,
            Action::Back | Action::Help | Action::Quit => return true,
            _ => {}
        }
        false
    }

    pub fn lines(&self, keymap: &Keymap, theme: &Theme) -> Vec<Line<'static>> {
        let mut order = vec![self.first];
        order.extend(
            KeyContext::ALL
                .into_iter()
                .filter(|c| *c != self.first && *c != KeyContext::Global),
        );
        if self.first != KeyContext::Global {
            order.insert(1, KeyContext::Global);
        }
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
            for command in commands {
                let keys: Vec<String> = keymap
                    .keys_in(context, command.action)
                    .iter()
                    .map(ToString::to_string)
                    .collect();
                let keys = if keys.is_empty() {
                    "(no key)".to_string()
                } else {
                    keys.join(" ")
                };
                lines.push(Line::from(vec![
                    Span::styled(format!("  {keys:<22}"), theme.key()),
                    Span::styled(command.action.describe().to_string(), theme.fg(theme.text)),
                ]));
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

    fn draw(&mut self, frame: &mut Frame, area: Rect, theme: &Theme, keymap: &Keymap) {
        let popup = super::popup_area(frame, area, 90, area.height, 2);
        self.area = popup;
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border(true))
            .style(theme.base())
            .title(Span::styled(" Keys ", theme.title()))
            .title_bottom(
                Line::from(Span::styled(" ↑↓ scroll · esc close ", theme.muted())).right_aligned(),
            );
        let inner = block.inner(popup);
        frame.render_widget(block, popup);
        let lines = self.lines(keymap, theme);
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
        self.draw(frame, area, cx.theme, cx.keymap);
    }

    fn area(&self) -> Rect {
        self.area
    }
}

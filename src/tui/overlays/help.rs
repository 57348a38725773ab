//! The help overlay: every key of every context, generated from the keymap so it is
//! always true. The focused pane's context comes first.
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use crate::tui::keymap::{Action, KeyContext, Keymap};
use crate::tui::theme::Theme;

pub struct Help {
    /// The context that was focused when help opened: listed first.
    pub first: KeyContext,
    pub scroll: usize,
    page: usize,
}

impl Help {
    pub fn new(first: KeyContext) -> Help {
        Help {
            first,
            scroll: 0,
            page: 10,
        }
    }

    /// Returns true when the overlay should close.
    pub fn update(&mut self, action: Action) -> bool {
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
            let bindings = keymap.bindings(context);
            if bindings.is_empty() {
                continue;
            }
            lines.push(Line::from(Span::styled(
                context.title().to_string(),
                theme.fg(theme.heading_2),
            )));
            for binding in bindings {
                let keys: Vec<String> = binding.keys.iter().map(|k| k.to_string()).collect();
                lines.push(Line::from(vec![
                    Span::styled(format!("  {:<22}", keys.join(" ")), theme.key()),
                    Span::styled(binding.action.describe().to_string(), theme.fg(theme.text)),
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

    pub fn view(&mut self, frame: &mut Frame, area: Rect, theme: &Theme, keymap: &Keymap) {
        let popup = super::popup_area(frame, area, 90, area.height, 2);
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

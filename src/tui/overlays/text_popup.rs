//! The popup both text editors draw (the commit message, an agent's proposal): a titled
//! border with its two keys, the text, and under it what went wrong or that it is busy.
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};
use ratatui_textarea::TextArea;

use crate::tui::keymap::{Action, KeyContext, Keymap};
use crate::tui::theme::Theme;
use crate::tui::widgets;

/// What one text popup says around its text.
pub struct TextPopup<'a> {
    pub title: String,
    /// What the confirming key does ("commit", "accept this text").
    pub confirm: &'a str,
    /// What Back does.
    pub cancel: &'a str,
    /// Shown while the work runs ("committing…").
    pub busy_label: &'a str,
    pub busy: bool,
    pub error: Option<&'a str>,
}

/// Draws `textarea` in a popup over `area` as `popup` describes; returns the popup's area.
pub fn draw(
    frame: &mut Frame,
    area: Rect,
    theme: &Theme,
    keymap: &Keymap,
    textarea: &mut TextArea<'static>,
    popup: &TextPopup,
) -> Rect {
    let outer = super::popup_area(frame, area, 90, 22, 2);
    let key = |action| {
        keymap
            .key_for(KeyContext::CommitMessage, action)
            .map(|k| k.to_string())
            .unwrap_or_default()
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border(true))
        .style(theme.base())
        .title(Span::styled(popup.title.clone(), theme.title()))
        .title_bottom(
            Line::from(vec![
                Span::styled(format!(" {} ", key(Action::CommitNow)), theme.key()),
                Span::styled(format!("{}  ", popup.confirm), theme.muted()),
                Span::styled(format!("{} ", key(Action::Back)), theme.key()),
                Span::styled(format!("{} ", popup.cancel), theme.muted()),
            ])
            .right_aligned(),
        );
    let inner = block.inner(outer);
    frame.render_widget(block, outer);
    let note_height = match popup.error {
        Some(error) => (error.lines().count() as u16 + 1).min(inner.height / 2),
        None => u16::from(popup.busy),
    };
    let [text_area, note] =
        Layout::vertical([Constraint::Min(3), Constraint::Length(note_height)]).areas(inner);
    textarea.set_style(theme.fg(theme.text));
    textarea.set_cursor_line_style(theme.base());
    frame.render_widget(&*textarea, text_area);
    if let Some(error) = popup.error {
        let lines: Vec<Line> = error
            .lines()
            .map(|l| {
                Line::from(Span::styled(
                    format!("✖ {}", widgets::shown(l)),
                    theme.fg(theme.error),
                ))
            })
            .collect();
        frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), note);
    } else if popup.busy {
        frame.render_widget(
            Paragraph::new(Span::styled(popup.busy_label, theme.muted())),
            note,
        );
    }
    outer
}

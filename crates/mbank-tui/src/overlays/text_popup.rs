//! What the text prompts (the commit message, an agent's proposal, a decision record's
//! title) share: the text being edited with why its last attempt failed and whether one is
//! running, the popup they draw (a titled border with its two keys, the text, and under it
//! what went wrong or that it is busy), and their whole behaviour as a pane: each prompt
//! says only what its text does and how its popup reads ([`FormPrompt`]).
use crossterm::event::KeyEvent;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use crate::keymap::{Action, KeyContext, Keymap};
use crate::pane::{Effect, Input, Outcome, Pane, ViewContext};
use crate::panes::editor::input::TextInput;
use crate::theme::Theme;
use crate::widgets;

/// What one text popup says around its text.
pub struct TextPopup<'a> {
    pub title: String,
    /// What the confirming key does ("commit", "accept this text").
    pub confirm: &'a str,
    /// What Back does.
    pub cancel: &'a str,
    /// Shown while the work runs ("committing…").
    pub busy_label: &'a str,
}

/// The text being edited, why the last attempt failed, and whether one is running.
pub struct TextForm {
    pub input: TextInput,
    /// Why the last attempt failed, shown under the text until the next one.
    pub error: Option<String>,
    /// The text was sent and has not been answered yet: keys are not typed meanwhile.
    pub busy: bool,
    area: Rect,
}

/// What a key did to a [`TextForm`].
#[derive(Debug, PartialEq, Eq)]
pub enum FormKey {
    /// Back: leave without doing anything.
    Close,
    /// The confirming key while nothing runs: the owner decides what the text does.
    Submit,
    /// Typed into the text, or ignored while busy.
    Edited,
}

impl TextForm {
    pub fn new(text: &str) -> TextForm {
        TextForm {
            input: TextInput::new(text),
            error: None,
            busy: false,
            area: Rect::default(),
        }
    }

    /// The text as edited, with a final newline.
    pub fn text(&self) -> String {
        let mut text = self.input.lines().join("\n");
        text.push('\n');
        text
    }

    /// `action` is what the key means here; keys that are not the form's own are typed (a
    /// global key too: this is text).
    pub fn key(&mut self, action: Option<Action>, key: KeyEvent) -> FormKey {
        match action {
            Some(Action::Back) => FormKey::Close,
            Some(Action::CommitNow) if !self.busy => FormKey::Submit,
            Some(Action::CommitNow) => FormKey::Edited,
            _ => {
                if !self.busy {
                    self.input.key(key);
                }
                FormKey::Edited
            }
        }
    }

    /// The text was sent: the last error goes, keys wait for the answer.
    pub fn start(&mut self) {
        self.error = None;
        self.busy = true;
    }

    /// The answer was a refusal: the text stays, with why.
    pub fn failed(&mut self, why: String) {
        self.busy = false;
        self.error = Some(why);
    }

    /// Where the popup was last drawn.
    pub fn area(&self) -> Rect {
        self.area
    }

    /// Draws the form in a popup over `area` as `popup` describes.
    pub fn draw(
        &mut self,
        frame: &mut Frame,
        area: Rect,
        theme: &Theme,
        keymap: &Keymap,
        popup: &TextPopup,
    ) {
        self.area = draw(frame, area, theme, keymap, self, popup);
    }
}

/// A prompt that is one [`TextForm`]: Back closes it, the confirming key submits the text.
pub(crate) trait FormPrompt {
    fn form(&self) -> &TextForm;
    fn form_mut(&mut self) -> &mut TextForm;
    /// What the typed text asks for; `None` (with the form's error set) when it cannot go
    /// yet. Called only while nothing runs.
    fn submit(&mut self) -> Option<Effect>;
    /// How the popup reads around the text.
    fn popup(&self) -> TextPopup<'static>;
}

impl<P: FormPrompt> Pane for P {
    fn context(&self) -> KeyContext {
        KeyContext::CommitMessage
    }

    fn handle(&mut self, input: Input) -> Outcome {
        let Input::Key(key) = input else {
            return Outcome::done();
        };
        let effect = match self.form_mut().key(key.action, key.event) {
            FormKey::Close => Some(Effect::CloseOverlay),
            FormKey::Submit => self.submit(),
            FormKey::Edited => None,
        };
        Outcome::maybe(effect)
    }

    fn view(&mut self, frame: &mut Frame, area: Rect, cx: &ViewContext) {
        let popup = self.popup();
        self.form_mut()
            .draw(frame, area, cx.theme, cx.keymap, &popup);
    }

    fn area(&self) -> Rect {
        self.form().area()
    }
}

/// Draws `form` in a popup over `area` as `popup` describes; returns the popup's area.
fn draw(
    frame: &mut Frame,
    area: Rect,
    theme: &Theme,
    keymap: &Keymap,
    form: &mut TextForm,
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
    let note_height = match form.error.as_deref() {
        Some(error) => (error.lines().count() as u16 + 1).min(inner.height / 2),
        None => u16::from(form.busy),
    };
    let [text_area, note] =
        Layout::vertical([Constraint::Min(3), Constraint::Length(note_height)]).areas(inner);
    form.input
        .draw(frame, text_area, theme.base(), theme.selected());
    if let Some(error) = form.error.as_deref() {
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
    } else if form.busy {
        frame.render_widget(
            Paragraph::new(Span::styled(popup.busy_label, theme.muted())),
            note,
        );
    }
    outer
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::{KeyCode, KeyModifiers};

    fn typed(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
    }

    #[test]
    fn a_busy_form_neither_types_nor_submits_again_until_its_answer_comes() {
        let mut form = TextForm::new("");
        assert_eq!(form.key(Some(Action::Quit), typed('q')), FormKey::Edited);
        assert_eq!(form.text(), "q\n", "a global key is typed: this is text");
        assert_eq!(
            form.key(Some(Action::CommitNow), typed('s')),
            FormKey::Submit
        );
        form.start();
        assert_eq!(
            form.key(Some(Action::CommitNow), typed('s')),
            FormKey::Edited
        );
        assert_eq!(form.key(None, typed('x')), FormKey::Edited);
        assert_eq!(form.text(), "q\n");
        form.failed("refused".into());
        assert_eq!((form.busy, form.error.as_deref()), (false, Some("refused")));
        assert_eq!(form.key(None, typed('x')), FormKey::Edited);
        assert_eq!(form.text(), "qx\n");
        assert_eq!(form.key(Some(Action::Back), typed('q')), FormKey::Close);
    }
}

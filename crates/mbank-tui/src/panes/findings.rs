//! The findings panel: validation, budget and staleness findings of the open project,
//! worst first; Enter jumps the editor to the file and line.
use std::path::{Path, PathBuf};

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use mbank_core::findings::{Finding, Severity};

use crate::keymap::{Action, KeyContext};
use crate::list::{ListCursor, ListInput, row_inside_border};
use crate::pane::{Effect, Focus, Input, Outcome, Pane, ViewContext, offers};
use crate::theme::Theme;
use crate::widgets;

pub(crate) use crate::commands::FINDINGS as COMMANDS;

#[derive(Default)]
pub struct Findings {
    pub items: Vec<Finding>,
    pub project: PathBuf,
    pub cursor: ListCursor,
    area: Rect,
}

impl Findings {
    pub fn set(&mut self, project: &Path, items: Vec<Finding>) {
        self.project = project.to_path_buf();
        self.items = items;
        self.cursor.clamp(self.items.len());
    }

    fn jump(&self) -> Option<Effect> {
        let finding = self.items.get(self.cursor.selected)?;
        Some(Effect::GoTo {
            path: finding.file.clone(),
            line: finding.line,
        })
    }

    /// The selected finding's fix, to apply; a note when it has none.
    fn fix(&self) -> Option<Effect> {
        let finding = self.items.get(self.cursor.selected)?;
        Some(match &finding.fix {
            Some(fix) => Effect::ApplyFix {
                path: finding.file.clone(),
                fix: fix.clone(),
            },
            None => Effect::Toast("this finding offers no fix to apply".into()),
        })
    }

    fn draw(&mut self, frame: &mut Frame, area: Rect, theme: &Theme, focused: bool) {
        self.area = area;
        let count = |s| self.items.iter().filter(|f| f.severity == s).count();
        let title = format!(
            " Findings: {}, {}, {} info ",
            mbank_core::io::text::counted(count(Severity::Error), "error"),
            mbank_core::io::text::counted(count(Severity::Warning), "warning"),
            count(Severity::Info)
        );
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border(focused))
            .title(Span::styled(title, theme.title()));
        let inner = block.inner(area);
        frame.render_widget(block, area);
        if self.items.is_empty() {
            frame.render_widget(
                Paragraph::new(Span::styled(" ✔ nothing to report", theme.fg(theme.ok))),
                inner,
            );
            return;
        }
        let rows = self.cursor.layout(inner.height as usize, self.items.len());
        let lines: Vec<Line> = self
            .items
            .iter()
            .enumerate()
            .skip(rows.start)
            .take(rows.len())
            .map(|(index, finding)| {
                let place = finding
                    .file
                    .strip_prefix(&self.project)
                    .unwrap_or(&finding.file)
                    .display()
                    .to_string();
                let place = match finding.line {
                    Some(line) => format!("{place}:{line}"),
                    None => place,
                };
                let mut line = Line::from(vec![
                    Span::styled(
                        format!(" {:<8}", finding.severity.id()),
                        widgets::severity_color(theme, finding.severity),
                    ),
                    Span::styled(
                        format!("{:<32} ", widgets::truncate(&place, 32)),
                        theme.fg(theme.accent),
                    ),
                    // A fix the apply key takes, named before the message (which says
                    // what it changes) so a narrow panel still shows it.
                    Span::styled(
                        if finding.fix.is_some() {
                            "fix ▸ "
                        } else {
                            ""
                        },
                        theme.fg(theme.ok),
                    ),
                    Span::styled(
                        widgets::shown(&finding.message).into_owned(),
                        theme.fg(theme.text),
                    ),
                    Span::styled(format!("  [{}]", finding.code), theme.muted()),
                ]);
                if index == self.cursor.selected && focused {
                    line = line.patch_style(theme.selected());
                }
                line
            })
            .collect();
        frame.render_widget(Paragraph::new(lines), inner);
    }
}

impl Pane for Findings {
    fn context(&self) -> KeyContext {
        KeyContext::Findings
    }

    fn handle(&mut self, input: Input) -> Outcome {
        let len = self.items.len();
        let area = self.area;
        let row_at = |position| Some(row_inside_border(area, position));
        match self.cursor.apply(input, len, row_at, None) {
            ListInput::Key(key) => match key.action {
                Some(Action::Open) => Outcome::maybe(self.jump()),
                Some(Action::ApplyFix) => Outcome::maybe(self.fix()),
                Some(Action::Back) => Outcome::effect(Effect::Close(Focus::Findings)),
                Some(action) if offers(COMMANDS, action) => {
                    self.cursor.navigate(action, len);
                    Outcome::done()
                }
                _ => Outcome::Ignored,
            },
            ListInput::Selected { again: true } => Outcome::maybe(self.jump()),
            ListInput::Selected { again: false } | ListInput::Missed | ListInput::Scrolled => {
                Outcome::done()
            }
            ListInput::Filtered | ListInput::Ignored => Outcome::Ignored,
        }
    }

    fn view(&mut self, frame: &mut Frame, area: Rect, cx: &ViewContext) {
        self.draw(frame, area, cx.theme, cx.focused);
    }

    fn area(&self) -> Rect {
        self.area
    }
}

//! The decision timeline: every decision of the project across its files, in date
//! order, status coloured, supersession chains shown on each entry, undated entries
//! grouped at the end; filtered by status and by text; Enter opens the entry's lines.
//! A banner warns when a decision log lost entries since its committed version.
use crossterm::event::KeyCode;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use mbank_core::analysis::decisions::{Decision, DecisionStatus};
use mbank_core::findings::{Finding, FindingCode};

use crate::keymap::{Action, KeyContext};
use crate::list::{ListCursor, ListInput, PasteRule, row_inside_border};
use crate::pane::{Effect, Focus, Input, Outcome, Pane, ViewContext, offers};
use crate::theme::Theme;
use crate::widgets;

pub(crate) use crate::commands::TIMELINE as COMMANDS;

/// The status filter cycles through these; `None` shows every entry.
const STATUS_CYCLE: [Option<DecisionStatus>; 8] = [
    None,
    Some(DecisionStatus::Accepted),
    Some(DecisionStatus::Proposed),
    Some(DecisionStatus::Superseded),
    Some(DecisionStatus::Deprecated),
    Some(DecisionStatus::Rejected),
    Some(DecisionStatus::Reverted),
    Some(DecisionStatus::Unknown),
];

#[derive(Default)]
pub struct Timeline {
    pub decisions: Vec<Decision>,
    /// Findings of decision logs that shrank since HEAD (the banner).
    pub shrunk: Vec<Finding>,
    pub status: Option<DecisionStatus>,
    pub text: String,
    /// True while typing into the text filter.
    pub typing: bool,
    pub cursor: ListCursor,
    /// Indices into `decisions` that pass the filters, in display order.
    visible: Vec<usize>,
    area: Rect,
}

pub(crate) fn status_style(theme: &Theme, status: DecisionStatus) -> Style {
    match status {
        DecisionStatus::Accepted => theme.fg(theme.ok),
        DecisionStatus::Proposed => theme.fg(theme.info),
        DecisionStatus::Superseded => theme.muted().add_modifier(Modifier::CROSSED_OUT),
        DecisionStatus::Deprecated => theme.fg(theme.warning),
        DecisionStatus::Rejected => theme.fg(theme.error),
        DecisionStatus::Reverted => theme.fg(theme.warning),
        DecisionStatus::Unknown => theme.muted(),
    }
}

impl Timeline {
    pub fn set(&mut self, decisions: Vec<Decision>, findings: &[Finding]) {
        self.decisions = decisions;
        self.shrunk = findings
            .iter()
            .filter(|f| f.code == FindingCode::DecisionLogShrunk)
            .cloned()
            .collect();
        self.refresh();
    }

    pub fn visible_len(&self) -> usize {
        self.visible.len()
    }

    /// The decision enter opens.
    pub fn selected(&self) -> Option<&Decision> {
        self.visible
            .get(self.cursor.selected)
            .map(|&index| &self.decisions[index])
    }

    fn refresh(&mut self) {
        let needle = self.text.to_lowercase();
        self.visible = self
            .decisions
            .iter()
            .enumerate()
            .filter(|(_, d)| self.status.is_none_or(|s| d.status == s))
            .filter(|(_, d)| {
                needle.is_empty()
                    || d.title.to_lowercase().contains(&needle)
                    || d.id
                        .as_ref()
                        .is_some_and(|id| id.to_lowercase().contains(&needle))
                    || d.display.to_lowercase().contains(&needle)
            })
            .map(|(i, _)| i)
            .collect();
        self.cursor.clamp(self.visible.len());
    }

    fn on_action(&mut self, action: Action) -> Vec<Effect> {
        match action {
            Action::Back | Action::Open if self.typing => self.typing = false,
            Action::Back => {
                if !self.text.is_empty() || self.status.is_some() {
                    self.text.clear();
                    self.status = None;
                    self.refresh();
                } else {
                    return vec![Effect::Close(Focus::Timeline)];
                }
            }
            Action::Filter => self.typing = true,
            Action::CycleStatus => {
                let position = STATUS_CYCLE
                    .iter()
                    .position(|s| *s == self.status)
                    .unwrap_or(0);
                self.status = STATUS_CYCLE[(position + 1) % STATUS_CYCLE.len()];
                self.refresh();
            }
            Action::Open => return self.jump(),
            Action::NewAdr => return vec![Effect::AskNewAdr],
            other => {
                self.cursor.navigate(other, self.visible.len());
            }
        }
        Vec::new()
    }

    /// Opens the selected entry's lines: the timeline closes, the editor shows them.
    fn jump(&self) -> Vec<Effect> {
        let Some(&index) = self.visible.get(self.cursor.selected) else {
            return Vec::new();
        };
        let decision = &self.decisions[index];
        vec![
            Effect::Close(Focus::Timeline),
            Effect::GoTo {
                path: decision.file.clone(),
                line: Some(decision.line),
            },
        ]
    }

    /// The entry under a click: rows are two lines tall.
    /// The entry under a click: each takes two rows.
    fn entry_at(area: Rect, position: Position) -> usize {
        row_inside_border(area, position) / 2
    }

    fn draw(&mut self, frame: &mut Frame, area: Rect, theme: &Theme, focused: bool) {
        self.area = area;
        let filter = match (self.status, self.text.is_empty()) {
            (None, true) => String::new(),
            (status, _) => format!(
                " · {}{}",
                status.map_or("all".into(), |s| s.id().to_string()),
                if self.text.is_empty() {
                    String::new()
                } else {
                    format!(" · \"{}\"", self.text)
                }
            ),
        };
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border(focused))
            .title(Span::styled(
                format!(
                    " Decisions: {} of {}{filter} ",
                    self.visible.len(),
                    self.decisions.len()
                ),
                theme.title(),
            ));
        let inner = block.inner(area);
        frame.render_widget(block, area);
        // The banner wraps: a lost entry's title must be readable, not cut at the edge.
        let width = inner.width.max(1) as usize;
        let banner_height = if self.shrunk.is_empty() {
            0
        } else {
            let wrapped: usize = self
                .shrunk
                .iter()
                .take(3)
                .map(|f| (widgets::shown(&f.message).chars().count() + 3).div_ceil(width))
                .sum();
            wrapped.min(6) as u16 + 1
        };

        let prompt_height = u16::from(self.typing);
        let [banner_area, list_area, prompt_area] = Layout::vertical([
            Constraint::Length(banner_height),
            Constraint::Min(1),
            Constraint::Length(prompt_height),
        ])
        .areas(inner);
        if banner_height > 0 {
            let lines: Vec<Line> = self
                .shrunk
                .iter()
                .take(3)
                .map(|f| {
                    Line::from(Span::styled(
                        format!(" ⚠ {}", widgets::shown(&f.message)),
                        theme
                            .fg(theme.background)
                            .bg(theme.error)
                            .add_modifier(Modifier::BOLD),
                    ))
                })
                .collect();
            frame.render_widget(
                Paragraph::new(lines).wrap(Wrap { trim: false }),
                banner_area,
            );
        }
        if self.typing {
            frame.render_widget(
                Paragraph::new(Line::from(vec![
                    Span::styled(" filter: ", theme.key()),
                    Span::styled(self.text.clone(), theme.fg(theme.text)),
                    Span::styled("▏  enter/esc done", theme.muted()),
                ])),
                prompt_area,
            );
        }
        if self.decisions.is_empty() {
            frame.render_widget(
                Paragraph::new(Span::styled(
                    " No decisions found in this project's decision logs.",
                    theme.muted(),
                )),
                list_area,
            );
            return;
        }
        // Each entry takes two lines: date, status and title; then source and links.
        let rows = self
            .cursor
            .layout(list_area.height as usize / 2, self.visible.len());
        let width = list_area.width as usize;
        let mut lines = Vec::new();
        let mut previous_dated = rows
            .start
            .checked_sub(1)
            .and_then(|i| self.visible.get(i))
            .map(|&i| self.decisions[i].dated());
        for (position, &index) in self
            .visible
            .iter()
            .enumerate()
            .skip(rows.start)
            .take(rows.len())
        {
            let decision = &self.decisions[index];
            if !decision.dated()
                && previous_dated != Some(false)
                && lines.len() + 3 <= list_area.height as usize
            {
                lines.push(Line::from(Span::styled(
                    "── undated ──",
                    theme.muted().add_modifier(Modifier::BOLD),
                )));
            }
            previous_dated = Some(decision.dated());
            let selected = position == self.cursor.selected;
            let date = decision.when().unwrap_or_else(|| "—".to_string());
            let id = decision
                .id
                .as_ref()
                .map(|id| format!("{id} "))
                .unwrap_or_default();
            let mut first = Line::from(vec![
                Span::styled(if selected { "▶ " } else { "  " }, theme.fg(theme.accent)),
                Span::styled(format!("{date:<17}"), theme.fg(theme.text)),
                Span::styled(
                    format!("{:<11}", decision.status.id()),
                    status_style(theme, decision.status),
                ),
                Span::styled(
                    widgets::truncate(&format!("{id}{}", decision.title), width.saturating_sub(31)),
                    theme.fg(theme.text).add_modifier(Modifier::BOLD),
                ),
            ]);
            if selected && focused {
                first = first.patch_style(theme.selected());
            }
            lines.push(first);
            // Links first: they matter more than the place, which may be cut at the edge.
            let mut second = vec![Span::raw(format!("{:>19}", ""))];
            if !decision.superseded_by.is_empty() {
                second.push(Span::styled(
                    format!(
                        "⇢ superseded by {}  ",
                        widgets::shown(&decision.superseded_by.join(", "))
                    ),
                    theme.fg(theme.warning),
                ));
            }
            if !decision.supersedes.is_empty() {
                second.push(Span::styled(
                    format!(
                        "⇠ supersedes {}  ",
                        widgets::shown(&decision.supersedes.join(", "))
                    ),
                    theme.fg(theme.link),
                ));
            }
            second.push(Span::styled(
                format!("{}:{}", widgets::shown(&decision.display), decision.line),
                theme.muted(),
            ));
            lines.push(Line::from(second));
        }
        frame.render_widget(Paragraph::new(lines), list_area);
    }
}

impl Pane for Timeline {
    fn context(&self) -> KeyContext {
        KeyContext::Timeline
    }

    fn prompt_hints(&self) -> Option<&'static [(&'static str, &'static str)]> {
        const FILTER: &[(&str, &str)] = &[("enter", "done"), ("esc", "done")];
        self.typing.then_some(FILTER)
    }

    fn handle(&mut self, input: Input) -> Outcome {
        let len = self.visible.len();
        let area = self.area;
        let entry_at = |position| Some(Self::entry_at(area, position));
        let filter = self
            .typing
            .then_some((&mut self.text, PasteRule::UpTo(200)));
        match self.cursor.apply(input, len, entry_at, filter) {
            ListInput::Filtered => {
                self.refresh();
                Outcome::done()
            }
            // While the filter is typed, characters are text, whatever they are bound to.
            ListInput::Key(key) if self.typing && key.typed().is_some() => {
                self.text.extend(key.typed());
                self.refresh();
                Outcome::done()
            }
            ListInput::Key(key) if self.typing && key.event.code == KeyCode::Backspace => {
                self.text.pop();
                self.refresh();
                Outcome::done()
            }
            ListInput::Key(key) => match key.action {
                Some(action) if offers(COMMANDS, action) => {
                    Outcome::Consumed(self.on_action(action))
                }
                _ => Outcome::Ignored,
            },
            ListInput::Selected { again: true } => Outcome::Consumed(self.jump()),
            ListInput::Selected { again: false } | ListInput::Missed | ListInput::Scrolled => {
                Outcome::done()
            }
            ListInput::Ignored => Outcome::Ignored,
        }
    }

    fn view(&mut self, frame: &mut Frame, area: Rect, cx: &ViewContext) {
        self.draw(frame, area, cx.theme, cx.focused);
    }

    fn area(&self) -> Rect {
        self.area
    }
}

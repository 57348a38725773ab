//! The decision timeline: every decision of the project across its files, in date
//! order, status coloured, supersession chains shown on each entry, undated entries
//! grouped at the end; filtered by status and by text; Enter opens the entry's lines.
//! A banner warns when a decision log lost entries since its committed version.
use std::path::PathBuf;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use crate::core::decisions::{Decision, DecisionStatus};
use crate::core::findings::Finding;

use crate::tui::keymap::Action;
use crate::tui::list::ListCursor;
use crate::tui::theme::Theme;
use crate::tui::widgets;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Jump { path: PathBuf, line: usize },
    Close,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Msg {
    Action(Action),
    /// A character typed while the text filter is being edited.
    Type(char),
    Erase,
    Click(usize),
    Scroll(i32),
}

/// The status filter cycles through these; `None` shows every entry.
const STATUS_CYCLE: [Option<DecisionStatus>; 7] = [
    None,
    Some(DecisionStatus::Accepted),
    Some(DecisionStatus::Proposed),
    Some(DecisionStatus::Superseded),
    Some(DecisionStatus::Deprecated),
    Some(DecisionStatus::Rejected),
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
}

pub fn status_style(theme: &Theme, status: DecisionStatus) -> Style {
    match status {
        DecisionStatus::Accepted => theme.fg(theme.ok),
        DecisionStatus::Proposed => theme.fg(theme.info),
        DecisionStatus::Superseded => theme.muted().add_modifier(Modifier::CROSSED_OUT),
        DecisionStatus::Deprecated => theme.fg(theme.warning),
        DecisionStatus::Rejected => theme.fg(theme.error),
        DecisionStatus::Unknown => theme.muted(),
    }
}

impl Timeline {
    pub fn set(&mut self, decisions: Vec<Decision>, findings: &[Finding]) {
        self.decisions = decisions;
        self.shrunk = findings
            .iter()
            .filter(|f| f.code == "decision-log-shrunk")
            .cloned()
            .collect();
        self.refresh();
    }

    pub fn visible_len(&self) -> usize {
        self.visible.len()
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

    pub fn update(&mut self, msg: Msg) -> Option<Command> {
        let len = self.visible.len();
        match msg {
            Msg::Type(c) if self.typing => {
                self.text.push(c);
                self.refresh();
            }
            Msg::Erase if self.typing => {
                self.text.pop();
                self.refresh();
            }
            Msg::Type(_) | Msg::Erase => {}
            // Rows are two lines tall.
            Msg::Click(row) => {
                if self.cursor.click(row / 2, len) == Some(true) {
                    return self.jump();
                }
            }
            Msg::Scroll(delta) => self.cursor.scroll(delta, len),
            Msg::Action(action) => match action {
                Action::Back if self.typing => self.typing = false,
                Action::Open if self.typing => self.typing = false,
                Action::Back => {
                    if !self.text.is_empty() || self.status.is_some() {
                        self.text.clear();
                        self.status = None;
                        self.refresh();
                    } else {
                        return Some(Command::Close);
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
                other => {
                    self.cursor.navigate(other, len);
                }
            },
        }
        None
    }

    fn jump(&self) -> Option<Command> {
        let decision = &self.decisions[*self.visible.get(self.cursor.selected)?];
        Some(Command::Jump {
            path: decision.file.clone(),
            line: decision.line,
        })
    }

    pub fn view(&mut self, frame: &mut Frame, area: Rect, theme: &Theme, focused: bool) {
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
            .map(|&i| self.decisions[i].date.is_some());
        for (position, &index) in self
            .visible
            .iter()
            .enumerate()
            .skip(rows.start)
            .take(rows.len())
        {
            let decision = &self.decisions[index];
            if decision.date.is_none()
                && previous_dated != Some(false)
                && lines.len() + 3 <= list_area.height as usize
            {
                lines.push(Line::from(Span::styled(
                    "── undated ──",
                    theme.muted().add_modifier(Modifier::BOLD),
                )));
            }
            previous_dated = Some(decision.date.is_some());
            let selected = position == self.cursor.selected;
            let date = match (decision.date, decision.time) {
                (Some(date), Some(time)) => format!("{date} {}", time.format("%H:%M")),
                (Some(date), None) => date.to_string(),
                (None, _) => "—".to_string(),
            };
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

//! Drawing the Changes view: the changed files, then the selected one's hunks against
//! its baseline, the selected hunk marked.
use ratatui::layout::{Constraint, Layout};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use mbank_core::findings::Severity;

use super::*;
use crate::overlays::history::wrapped_line;
use crate::theme::Theme;
use crate::widgets;

/// Where a changed file is, as the list names it: its project (or store) and its path.
fn place(change: &FileChange, home: Option<&std::path::Path>) -> (String, String) {
    let owner = match &change.project {
        Some(project) => project
            .file_name()
            .map(mbank_core::markup::sanitize::os_str)
            .unwrap_or_default(),
        None => change.store.clone(),
    };
    let display = if std::path::Path::new(&change.display).is_absolute() {
        widgets::path_label(std::path::Path::new(&change.display), home)
    } else {
        widgets::shown(&change.display).into_owned()
    };
    (owner, display)
}

fn kind_style(kind: ChangeKind, theme: &Theme) -> ratatui::style::Style {
    match kind {
        ChangeKind::Added => theme.fg(theme.added),
        ChangeKind::Deleted => theme.fg(theme.removed),
        ChangeKind::Modified | ChangeKind::Renamed => theme.fg(theme.changed),
    }
}

impl ChangesPane {
    pub(super) fn draw(&mut self, frame: &mut Frame, area: Rect, cx: &ViewContext) {
        let theme = cx.theme;
        self.area = area;
        let mut title = vec![Span::styled(" Changes since last reviewed ", theme.title())];
        title.push(Span::styled("· every project ", theme.fg(theme.accent)));
        if let Some(survey) = &self.survey {
            let added: usize = survey.changes.iter().map(|c| c.added).sum();
            let removed: usize = survey.changes.iter().map(|c| c.removed).sum();
            title.push(Span::styled(
                format!(
                    "· {} ",
                    mbank_core::io::text::counted(survey.changes.len(), "file")
                ),
                theme.fg(theme.text),
            ));
            title.push(Span::styled(format!("+{added} "), theme.fg(theme.added)));
            title.push(Span::styled(
                format!("−{removed} "),
                theme.fg(theme.removed),
            ));
        }
        if self.loading || self.busy {
            title.push(Span::styled("· working… ", theme.muted()));
        }
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border(cx.focused))
            .title(Line::from(title));
        let inner = block.inner(area);
        frame.render_widget(block, area);
        let note = |text: String, style| {
            Paragraph::new(Span::styled(text, style)).wrap(Wrap { trim: false })
        };
        if let Some(why) = &self.unavailable {
            frame.render_widget(note(format!(" {why}"), theme.fg(theme.warning)), inner);
            return;
        }
        if let Some(problem) = &self.problem {
            frame.render_widget(
                note(
                    format!(" cannot list the changes: {}", widgets::shown(problem)),
                    theme.fg(theme.error),
                ),
                inner,
            );
            return;
        }
        let Some(survey) = self.survey.clone() else {
            frame.render_widget(note(" looking for changes…".into(), theme.muted()), inner);
            return;
        };
        if survey.changes.is_empty() {
            let mut lines = vec![Line::from(Span::styled(
                " ✔ No memory file changed since it was last marked reviewed.",
                theme.fg(theme.ok),
            ))];
            for problem in &survey.problems {
                lines.push(Line::from(Span::styled(
                    format!(" ▲ {}", widgets::shown(problem)),
                    theme.fg(theme.warning),
                )));
            }
            frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
            return;
        }
        let list_height = (survey.changes.len() as u16)
            .min(inner.height / 3)
            .max(2)
            .min(inner.height);
        let [list_area, rule, diff_area] = Layout::vertical([
            Constraint::Length(list_height),
            Constraint::Length(1),
            Constraint::Min(1),
        ])
        .areas(inner);
        self.list_area = list_area;
        self.view_list(frame, list_area, &survey, cx);
        let Some(change) = survey.changes.get(self.list.selected) else {
            return;
        };
        let (owner, display) = place(change, self.home.as_deref());
        let name = format!(" {owner} · {display} ");
        let fill = (rule.width as usize).saturating_sub(name.chars().count() + 2);
        frame.render_widget(
            Paragraph::new(Line::from(vec![
                Span::styled("──", theme.fg(theme.border)),
                Span::styled(widgets::truncate(&name, rule.width as usize), theme.title()),
                Span::styled("─".repeat(fill), theme.fg(theme.border)),
            ])),
            rule,
        );
        self.view_diff(frame, diff_area, change, cx);
    }

    fn view_list(&mut self, frame: &mut Frame, area: Rect, survey: &Survey, cx: &ViewContext) {
        let theme = cx.theme;
        let rows = self.list.layout(area.height as usize, survey.changes.len());
        let width = area.width as usize;
        let mut lines = Vec::new();
        for index in rows {
            let change = &survey.changes[index];
            let selected = index == self.list.selected;
            let (owner, display) = place(change, self.home.as_deref());
            let counts = format!(" +{} −{} ", change.added, change.removed);
            let writers = change.writers.join(", ");
            let marker = if selected { "▶ " } else { "  " };
            let signal = change.signals.first().map(|s| match s.severity {
                Severity::Error => ("✖", theme.fg(theme.error)),
                Severity::Warning => ("▲", theme.fg(theme.warning)),
                Severity::Info => ("●", theme.fg(theme.info)),
            });
            // Counts and the writer after the name; the name keeps its end when short of room.
            let fixed = 2 + 2 + counts.chars().count() + 2;
            let name_room = width.saturating_sub(fixed).clamp(8, 48);
            let name = widgets::truncate_start(&format!("{owner}/{display}"), name_room);
            let pad =
                name_room.saturating_sub(unicode_width::UnicodeWidthStr::width(name.as_str()));
            let used = fixed + name_room;
            let mut spans = vec![
                Span::styled(marker, theme.fg(theme.accent)),
                Span::styled(
                    format!("{} ", letter(change.change)),
                    kind_style(change.change, theme),
                ),
                Span::styled(format!("{name}{}", " ".repeat(pad)), theme.fg(theme.text)),
                Span::styled(format!(" +{}", change.added), theme.fg(theme.added)),
                Span::styled(format!(" −{} ", change.removed), theme.fg(theme.removed)),
                Span::raw(match signal {
                    Some(_) => "",
                    None => "  ",
                }),
            ];
            if let Some((glyph, style)) = signal {
                spans.push(Span::styled(format!("{glyph} "), style));
            }
            spans.push(Span::styled(
                widgets::truncate(&writers, width.saturating_sub(used)),
                theme.muted(),
            ));
            let mut line = Line::from(spans);
            if selected && cx.focused {
                line = line.style(theme.selected());
            }
            lines.push(line);
        }
        frame.render_widget(Paragraph::new(lines), area);
    }

    /// What the file's diff says: how it changed and by whom, its signals, each hunk.
    fn diff_lines(
        &self,
        change: &FileChange,
        width: usize,
        cx: &ViewContext,
    ) -> (Vec<Line<'static>>, Option<usize>) {
        let theme = cx.theme;
        let key = |action| {
            cx.keymap
                .key_for(KeyContext::Changes, action)
                .map(|k| k.to_string())
                .unwrap_or_default()
        };
        let mut lines = Vec::new();
        let since = match change.baseline_version {
            Some(version) => format!("since version {version}"),
            None => "new since the last review".to_string(),
        };
        lines.push(Line::from(vec![
            Span::styled(
                format!(" {} ", change.change.word()),
                kind_style(change.change, theme).add_modifier(Modifier::BOLD),
            ),
            Span::styled(
                {
                    let writers = credited(&change.writers);
                    // "on disk (Claude Code auto memory)" names the store already.
                    if writers.contains(&change.store) {
                        format!("{since} · {writers}")
                    } else {
                        format!("{since} · {writers} · {}", change.store)
                    }
                },
                theme.muted(),
            ),
        ]));
        if let Some(from) = &change.renamed_from {
            lines.push(Line::from(Span::styled(
                format!(
                    " renamed from {}",
                    widgets::path_label(from, self.home.as_deref())
                ),
                theme.muted(),
            )));
        }
        match change.change {
            ChangeKind::Deleted => lines.push(Line::from(Span::styled(
                format!(
                    " deleted: {} restores it as it was",
                    key(Action::RevertFile)
                ),
                theme.fg(theme.warning),
            ))),
            ChangeKind::Added | ChangeKind::Renamed => lines.push(Line::from(Span::styled(
                format!(
                    " new since it was last marked reviewed: {} removes it (asks first)",
                    key(Action::RevertFile)
                ),
                theme.muted(),
            ))),
            ChangeKind::Modified => {}
        }
        for signal in &change.signals {
            let (glyph, color) = match signal.severity {
                Severity::Error => ("✖", theme.error),
                Severity::Warning => ("▲", theme.warning),
                Severity::Info => ("●", theme.info),
            };
            lines.push(Line::from(Span::styled(
                format!(
                    " {glyph} {}: {}",
                    signal.code,
                    widgets::shown(&signal.message)
                ),
                theme.fg(color),
            )));
        }
        if let Some(past) = &change.past_cut {
            lines.push(Line::from(Span::styled(
                format!(
                    " ✂ {}; {} of this change's added lines are there, unread by {}",
                    widgets::shown(&past.message),
                    past.added_lines,
                    past.agent
                ),
                theme.fg(theme.over),
            )));
        }
        let count = change.diff.hunks.len();
        let mut selected_at = None;
        for (index, hunk) in change.diff.hunks.iter().enumerate() {
            let selected = index == self.hunk;
            if selected {
                selected_at = Some(lines.len());
            }
            let style = if selected {
                theme.fg(theme.accent).add_modifier(Modifier::BOLD)
            } else {
                theme.muted()
            };
            lines.push(Line::from(vec![
                Span::styled(if selected { "▶ " } else { "  " }, style),
                Span::styled(hunk.header(), style),
                Span::styled(
                    format!(
                        "  +{} −{}  hunk {} of {count}",
                        hunk.added,
                        hunk.removed,
                        index + 1
                    ),
                    theme.muted(),
                ),
            ]));
            for line in &hunk.lines {
                lines.extend(wrapped_line(line, width, theme));
            }
        }
        (lines, selected_at)
    }

    fn view_diff(&mut self, frame: &mut Frame, area: Rect, change: &FileChange, cx: &ViewContext) {
        self.page = (area.height as usize).max(1);
        let (lines, selected_at) = self.diff_lines(change, area.width as usize, cx);
        if std::mem::take(&mut self.follow_hunk)
            && let Some(at) = selected_at
            && (at < self.scroll || at >= self.scroll + self.page)
        {
            self.scroll = at;
        }
        self.scroll = self.scroll.min(lines.len().saturating_sub(self.page));
        let shown: Vec<Line> = lines
            .into_iter()
            .skip(self.scroll)
            .take(self.page)
            .collect();
        frame.render_widget(Paragraph::new(shown), area);
    }
}

/// Who wrote the versions, as a clause: "by mbank mcp (claude-code)", or "written on disk
/// (Cline memory bank)" for a write no mbank tool made.
fn credited(writers: &[String]) -> String {
    writers
        .iter()
        .map(|writer| {
            if writer.starts_with("on disk") {
                format!("written {writer}")
            } else {
                format!("by {writer}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

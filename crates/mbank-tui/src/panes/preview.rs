//! The preview pane: the open buffer rendered as markdown (headings, lists, checkboxes,
//! tables, code, links, `<private>` blocks, `@category`/`@tag` chips). Rendering runs on
//! a worker; the pane draws the newest result it has of the file shown (never another
//! file's) and says when it is behind; its title names the file. Beside the editor it
//! follows the cursor; scrolled by hand, it stays where it was put.
use std::collections::BTreeMap;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use crate::keymap::{Action, KeyContext};
use crate::list::{ListCursor, ListInput};
use crate::markdown_view::Rendered;
use crate::pane::{Input, Outcome, Pane, ViewContext, offers};
use mbank_core::findings::Severity;

pub(crate) use crate::commands::PREVIEW as COMMANDS;
pub(crate) use crate::protocol::RenderKey;

/// What the preview shows: a version of the open buffer, and where the editor's cursor
/// is when the preview should follow it (beside the editor).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PreviewSource {
    pub document: u64,
    pub version: u64,
    /// The editor's 1-based cursor line, to keep in view.
    pub follow: Option<usize>,
}

#[derive(Default)]
pub struct Preview {
    pub rendered: Option<(RenderKey, Rendered)>,
    /// The last rendering asked of the worker.
    pub requested: Option<RenderKey>,
    pub scroll: usize,
    /// Set when the user scrolls; cleared when the preview is shown beside a moving cursor.
    pub pinned: bool,
    /// Text width at the last draw.
    pub width: u16,
    /// The buffer to show, set by the document before each draw.
    pub source: Option<PreviewSource>,
    /// The file shown, as the title names it (set with `source`).
    pub name: String,
    /// Why no file is shown (it could not be read), set with `source`.
    pub problem: Option<String>,
    /// 1-based source lines the project's findings point at, set with `source`: the
    /// rendered block holding each is marked at the right edge.
    pub finding_lines: BTreeMap<usize, Severity>,
    /// The first source line the agent loading the file no longer reads, set with
    /// `source`: its rendered block is marked `✂` beside the findings' column.
    pub cut_line: Option<usize>,
    page: usize,
    area: Rect,
}

impl Preview {
    /// The rendering the pane wants now, when it has neither it nor a request for it.
    pub fn wanted(&self, key: &RenderKey) -> bool {
        self.rendered.as_ref().map(|(k, _)| k) != Some(key) && self.requested.as_ref() != Some(key)
    }

    pub fn accept(&mut self, key: RenderKey, rendered: Rendered) {
        let newer = self
            .rendered
            .as_ref()
            .is_none_or(|(k, _)| k.document != key.document || k.version <= key.version);
        if newer {
            if self.requested.as_ref() == Some(&key) {
                self.requested = None;
            }
            self.rendered = Some((key, rendered));
        }
    }

    /// The rendering the pane needs now: its source at this text width and theme.
    pub(crate) fn render_key(&self, width: u16, theme: &str) -> Option<RenderKey> {
        let source = self.source?;
        Some(RenderKey {
            document: source.document,
            version: source.version,
            width,
            theme: theme.to_string(),
        })
    }

    /// The furthest the view scrolls: the last page shows the last line.
    fn last_scroll(&self) -> usize {
        let total = self.rendered.as_ref().map_or(0, |(_, r)| r.lines.len());
        total.saturating_sub(self.page.max(1))
    }

    /// Scrolls by a key; the preview then stays where it was put (as by the wheel).
    fn scroll_by(&mut self, action: Action) {
        let last = self.last_scroll();
        self.pinned = true;
        self.scroll = match action {
            Action::Up => self.scroll.saturating_sub(1),
            Action::Down => (self.scroll + 1).min(last),
            Action::PageUp => self.scroll.saturating_sub(self.page),
            Action::PageDown => (self.scroll + self.page).min(last),
            Action::Top => 0,
            Action::Bottom => last,
            _ => self.scroll.min(last),
        };
    }

    fn draw(&mut self, frame: &mut Frame, area: Rect, cx: &ViewContext) {
        self.area = area;
        let (theme, focused) = (cx.theme, cx.focused);
        let current = self.render_key(area.width.saturating_sub(2), &theme.name);
        let current = current.as_ref();
        let follow = self.source.and_then(|s| s.follow);
        let behind = match (current, &self.rendered) {
            (Some(key), Some((shown, _))) => shown != key,
            (Some(_), None) => true,
            _ => false,
        };
        let title = if self.name.is_empty() {
            " Preview ".to_string()
        } else {
            format!(" Preview · {} ", self.name)
        };
        let mut block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border(focused))
            .title(Span::styled(title, theme.title()));
        if behind && current.is_some() {
            block = block
                .title(Line::from(Span::styled(" rendering… ", theme.muted())).right_aligned());
        }
        let inner = block.inner(area);
        frame.render_widget(block, area);
        self.width = inner.width;
        self.page = inner.height.max(1) as usize;
        // Only a rendering of the file shown: an older version of it while the newest
        // renders, never the file shown before.
        let rendered = match (current, &self.rendered) {
            (Some(key), Some((shown, rendered))) if shown.document == key.document => {
                Some(rendered)
            }
            _ => None,
        };
        let Some(rendered) = rendered else {
            let (text, style) = match (current, &self.problem) {
                (Some(_), _) => (" rendering…".to_string(), theme.muted()),
                (None, Some(problem)) => (
                    format!(" {}", crate::widgets::shown(problem)),
                    theme.fg(theme.error),
                ),
                (None, None) => (" Select a file in the tree.".to_string(), theme.muted()),
            };
            frame.render_widget(Paragraph::new(Span::styled(text, style)), inner);
            return;
        };
        if let (Some(line), false) = (follow, self.pinned) {
            let target = rendered.line_for_source(line);
            if target < self.scroll || target >= self.scroll + self.page {
                self.scroll = target.saturating_sub(self.page / 3);
            }
        }
        self.scroll = self.scroll.min(rendered.lines.len().saturating_sub(1));
        let lines: Vec<Line> = rendered
            .lines
            .iter()
            .skip(self.scroll)
            .take(self.page)
            .cloned()
            .collect();
        frame.render_widget(Paragraph::new(lines), inner);
        let shown = self.scroll..self.scroll + self.page;
        let cut = self
            .cut_line
            .map(|line| marked_lines(rendered, &BTreeMap::from([(line, Severity::Info)])));
        for index in cut.iter().flat_map(BTreeMap::keys) {
            if !shown.contains(index) || inner.width < 2 {
                continue;
            }
            let at = Rect {
                x: inner.right() - 2,
                y: inner.y + (index - self.scroll) as u16,
                width: 1,
                height: 1,
            };
            frame.render_widget(Paragraph::new(Span::styled("✂", theme.fg(theme.over))), at);
        }
        for (index, severity) in marked_lines(rendered, &self.finding_lines) {
            if !shown.contains(&index) || inner.width == 0 {
                continue;
            }
            let symbol = if severity == Severity::Error {
                "▲"
            } else {
                "●"
            };
            let at = Rect {
                x: inner.right() - 1,
                y: inner.y + (index - self.scroll) as u16,
                width: 1,
                height: 1,
            };
            frame.render_widget(
                Paragraph::new(Span::styled(
                    symbol,
                    crate::widgets::severity_color(theme, severity),
                )),
                at,
            );
        }
    }
}

/// The rendered lines to mark for findings on these source lines: the first rendered
/// line of the block each source line belongs to (the last one starting at or before it),
/// with the worst severity when blocks share a line.
fn marked_lines(
    rendered: &Rendered,
    finding_lines: &BTreeMap<usize, Severity>,
) -> BTreeMap<usize, Severity> {
    let mut out: BTreeMap<usize, Severity> = BTreeMap::new();
    for (&line, &severity) in finding_lines {
        let after = rendered.source_lines.partition_point(|&s| s <= line);
        let Some(&start) = after
            .checked_sub(1)
            .and_then(|last| rendered.source_lines.get(last))
        else {
            continue;
        };
        let index = rendered.source_lines.partition_point(|&s| s < start);
        let worst = out.entry(index).or_insert(severity);
        *worst = (*worst).max(severity);
    }
    out
}

impl Pane for Preview {
    fn context(&self) -> KeyContext {
        KeyContext::Preview
    }

    fn handle(&mut self, input: Input) -> Outcome {
        // The wheel moves the first line shown as it moves a list's selection, over
        // the scroll positions there are.
        let mut view = ListCursor {
            selected: self.scroll,
            ..ListCursor::default()
        };
        // A click only focuses it.
        let no_row = |_| None;
        match view.apply(input, self.last_scroll() + 1, no_row, None) {
            ListInput::Key(key) => match key.action {
                Some(action) if offers(COMMANDS, action) => {
                    self.scroll_by(action);
                    Outcome::done()
                }
                _ => Outcome::Ignored,
            },
            ListInput::Scrolled => {
                self.scroll = view.selected;
                self.pinned = true;
                Outcome::done()
            }
            ListInput::Selected { .. } | ListInput::Missed => Outcome::done(),
            ListInput::Filtered | ListInput::Ignored => Outcome::Ignored,
        }
    }

    fn view(&mut self, frame: &mut Frame, area: Rect, cx: &ViewContext) {
        self.draw(frame, area, cx);
    }

    fn area(&self) -> Rect {
        self.area
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finding_marks_the_first_rendered_line_of_its_block() {
        let rendered = Rendered {
            lines: vec![Line::from("a"); 5],
            source_lines: vec![1, 3, 3, 6, 6],
        };
        let findings = BTreeMap::from([
            (3, Severity::Warning),
            (4, Severity::Error),
            (7, Severity::Info),
        ]);
        assert_eq!(
            marked_lines(&rendered, &findings),
            BTreeMap::from([(1, Severity::Error), (3, Severity::Info)])
        );
    }
}

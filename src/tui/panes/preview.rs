//! The preview pane: the open buffer rendered as markdown (headings, lists, checkboxes,
//! tables, code, links, `<private>` blocks, `@category`/`@tag` chips). Rendering runs on
//! a worker; the pane draws the newest result it has and says when it is behind. Beside
//! the editor it follows the cursor; scrolled by hand, it stays where it was put.
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use crate::tui::keymap::Action;
use crate::tui::markdown_view::Rendered;
use crate::tui::theme::Theme;

/// Which buffer, at which version, for which width and theme a rendering is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderKey {
    pub document: u64,
    pub version: u64,
    pub width: u16,
    pub theme: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Msg {
    Action(Action),
    Scroll(i32),
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
    page: usize,
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

    pub fn update(&mut self, msg: Msg) {
        let total = self.rendered.as_ref().map_or(0, |(_, r)| r.lines.len());
        let last = total.saturating_sub(self.page.max(1));
        self.pinned = true;
        self.scroll = match msg {
            Msg::Action(Action::Up) => self.scroll.saturating_sub(1),
            Msg::Action(Action::Down) => (self.scroll + 1).min(last),
            Msg::Action(Action::PageUp) => self.scroll.saturating_sub(self.page),
            Msg::Action(Action::PageDown) => (self.scroll + self.page).min(last),
            Msg::Action(Action::Top) => 0,
            Msg::Action(Action::Bottom) => last,
            Msg::Action(_) => self.scroll,
            Msg::Scroll(delta) => {
                (self.scroll as i64 + i64::from(delta)).clamp(0, last as i64) as usize
            }
        };
    }

    /// Draws the pane. `follow` is the editor's 1-based cursor line when the preview
    /// should keep it in view.
    pub fn view(
        &mut self,
        frame: &mut Frame,
        area: Rect,
        theme: &Theme,
        focused: bool,
        current: Option<&RenderKey>,
        follow: Option<usize>,
    ) {
        let behind = match (current, &self.rendered) {
            (Some(key), Some((shown, _))) => shown != key,
            (Some(_), None) => true,
            _ => false,
        };
        let mut block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border(focused))
            .title(Span::styled(" Preview ", theme.title()));
        if behind {
            block = block
                .title(Line::from(Span::styled(" rendering… ", theme.muted())).right_aligned());
        }
        let inner = block.inner(area);
        frame.render_widget(block, area);
        self.width = inner.width;
        self.page = inner.height.max(1) as usize;
        let Some((_, rendered)) = &self.rendered else {
            let text = if current.is_some() {
                " rendering…"
            } else {
                " Select a file in the tree."
            };
            frame.render_widget(Paragraph::new(Span::styled(text, theme.muted())), inner);
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
    }
}

//! The preview: markdown rendered to styled terminal lines at a given width.
//!
//! [`render`] returns the lines plus, for each, the 1-based source line it came from, so the
//! pane can keep the preview scrolled to the editor's cursor (`Rendered::line_for_source`).
//! Besides CommonMark with tables, task lists and strikethrough it shows two ConKeeper
//! conventions that would otherwise be invisible: `<private>` … `</private>` blocks (tags on
//! their own lines; an unclosed block runs to the end) get a label and a coloured bar, and
//! `<!-- @category: x -->` / `<!-- @tag: x -->` comments become chips. YAML frontmatter is
//! shown as a muted box.
//!
//! Everything is linear in the input: wrapping is greedy, container prefixes are built from
//! the innermost containers only up to half the width, and code and table cells are
//! truncated rather than wrapped, so a 500 KB line or deep nesting cannot blow up. A text
//! over `limits::MARKDOWN` (4 MiB, or quotes and lists nested more than 64 deep) is shown as
//! plain text under a note instead of being parsed.
mod wrap;

use wrap::*;

use std::sync::OnceLock;

use pulldown_cmark::{Alignment, CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use regex::Regex;
use unicode_width::UnicodeWidthChar;

use super::theme::Theme;
use mbank_core::limits::{self, LimitExceeded, Syntax};
use mbank_core::markup::sanitize;

/// The preview of one document.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rendered {
    pub lines: Vec<Line<'static>>,
    /// `source_lines[i]` is the 1-based source line `lines[i]` came from; never decreasing.
    pub source_lines: Vec<usize>,
}

impl Rendered {
    /// The first rendered line showing source line `source_line` or a later one (the last
    /// line when the source line is past the end), for scrolling the preview to the cursor.
    pub(crate) fn line_for_source(&self, source_line: usize) -> usize {
        self.source_lines
            .partition_point(|&line| line < source_line)
            .min(self.lines.len().saturating_sub(1))
    }

    /// The rendered lines as plain text (tests and screen readers).
    pub fn plain_lines(&self) -> Vec<String> {
        self.lines
            .iter()
            .map(|line| line.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }
}

/// Renders `text` for a pane `width` cells wide (at least 1 is assumed). A text over the
/// markdown limits ([`limits::MARKDOWN`]: its size, or block quotes and lists nested past
/// the depth limit) is not parsed: it is shown as plain text under a note that says why.
pub fn render(text: &str, theme: &Theme, width: u16) -> Rendered {
    if let Err(limit) = limits::check(text, Syntax::Markdown, limits::MARKDOWN) {
        return render_plain(text, theme, usize::from(width.max(1)), &limit);
    }
    let mut renderer = Renderer::new(text, theme, usize::from(width.max(1)));
    let mut body_start = 0;
    if let Some((end_byte, lines)) = frontmatter(text) {
        renderer.frontmatter(&lines);
        body_start = end_byte;
    }
    for segment in private_segments(text, body_start) {
        if segment.private {
            renderer.begin_private(segment.tag_offset);
            renderer.markdown(segment.start, segment.end);
            renderer.end_private();
        } else {
            renderer.markdown(segment.start, segment.end);
        }
    }
    Rendered {
        lines: renderer.out,
        source_lines: renderer.sources,
    }
}

/// The fallback for text over the limits: the note, then each source line as it is
/// (control characters blanked, cut at the width), up to the size limit.
fn render_plain(text: &str, theme: &Theme, width: usize, limit: &LimitExceeded) -> Rendered {
    let note = Style::new().fg(theme.warning);
    let mut rendered = Rendered::default();
    let message = format!("Shown as plain text, not parsed as markdown: {limit}.");
    for piece in wrap_words(&message, width) {
        rendered.lines.push(Line::from(Span::styled(piece, note)));
        rendered.source_lines.push(1);
    }
    let mut shown = text;
    if shown.len() > limits::MARKDOWN.max_bytes {
        let mut end = limits::MARKDOWN.max_bytes;
        while !shown.is_char_boundary(end) {
            end -= 1;
        }
        shown = &shown[..end];
    }
    let plain = Style::new().fg(theme.text);
    for (index, line) in shown.lines().enumerate() {
        let content = truncate(&expand_tabs(line), width);
        rendered
            .lines
            .push(Line::from(Span::styled(content, plain)));
        rendered.source_lines.push(index + 1);
    }
    if shown.len() < text.len() {
        let rest = limits::size_in_words((text.len() - shown.len()) as u64);
        rendered
            .lines
            .push(Line::from(Span::styled(format!("… {rest} more"), note)));
        let last = rendered.source_lines.last().copied().unwrap_or(1);
        rendered.source_lines.push(last);
    }
    rendered
}

/// Greedy word wrap of a plain message (for the note above plain text).
fn wrap_words(message: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut current = String::new();
    for word in message.split_whitespace() {
        if !current.is_empty() && text_width(&current) + 1 + text_width(word) > width {
            lines.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(word);
    }
    if !current.is_empty() {
        lines.push(current);
    }
    lines
}

/// The frontmatter block at the very start: (byte just after its closing line, its lines
/// with their byte offsets). None when the file does not open with `---` or never closes it.
fn frontmatter(text: &str) -> Option<(usize, Vec<(usize, &str)>)> {
    let mut offset = 0;
    let mut lines = Vec::new();
    for (index, raw) in text.split_inclusive('\n').enumerate() {
        let line = raw.trim_end_matches(['\n', '\r']);
        if index == 0 {
            if line.trim_end() != "---" {
                return None;
            }
        } else if line.trim_end() == "---" || line.trim_end() == "..." {
            lines.push((offset, line));
            return Some((offset + raw.len(), lines));
        }
        lines.push((offset, line));
        offset += raw.len();
    }
    None
}

/// A run of the document that is either inside a `<private>` block or not.
struct PrivacySegment {
    private: bool,
    start: usize,
    end: usize,
    /// For a private block, the byte offset of its `<private>` line.
    tag_offset: usize,
}

/// Splits `text[from..]` at `<private>` / `</private>` lines (outside code fences). Tag lines
/// belong to no segment.
fn private_segments(text: &str, from: usize) -> Vec<PrivacySegment> {
    let mut segments = Vec::new();
    let mut start = from;
    let mut offset = from;
    let mut private_tag: Option<usize> = None;
    let mut fence: Option<(u8, usize)> = None;
    for raw in text[from..].split_inclusive('\n') {
        let line = raw.trim();
        let next = offset + raw.len();
        match fence {
            Some((marker, len)) => {
                let run = line.bytes().take_while(|&b| b == marker).count();
                if run >= len && run == line.len() {
                    fence = None;
                }
            }
            None => {
                let marker = line.bytes().next().unwrap_or(b' ');
                let run = line.bytes().take_while(|&b| b == marker).count();
                if (marker == b'`' || marker == b'~') && run >= 3 {
                    fence = Some((marker, run));
                } else if line == "<private>" && private_tag.is_none() {
                    segments.push(PrivacySegment {
                        private: false,
                        start,
                        end: offset,
                        tag_offset: 0,
                    });
                    private_tag = Some(offset);
                    start = next;
                } else if line == "</private>"
                    && let Some(tag_offset) = private_tag.take()
                {
                    segments.push(PrivacySegment {
                        private: true,
                        start,
                        end: offset,
                        tag_offset,
                    });
                    start = next;
                }
            }
        }
        offset = next;
    }
    segments.push(PrivacySegment {
        private: private_tag.is_some(),
        start,
        end: text.len(),
        tag_offset: private_tag.unwrap_or(0),
    });
    segments.retain(|s| s.private || s.start < s.end);
    segments
}

fn chip_pattern() -> &'static Regex {
    static PATTERN: OnceLock<Regex> = OnceLock::new();
    PATTERN.get_or_init(|| {
        Regex::new(r"^\s*<!--\s*@(category|tag)\s*:\s*(.*?)\s*-->\s*$").expect("constant pattern")
    })
}

/// `[category: x]` for a chip comment line.
fn chip_text(line: &str) -> Option<String> {
    let captures = chip_pattern().captures(line)?;
    Some(format!("[{}: {}]", &captures[1], &captures[2]))
}

/// A styled piece of inline text and the source line it came from.
#[derive(Debug, Clone)]
struct Frag {
    text: String,
    style: Style,
    line: usize,
}

/// Hard line breaks travel through the inline buffer as this text.
const HARD_BREAK: &str = "\n";

#[derive(Debug)]
enum Container {
    Quote,
    Private,
    Item {
        marker: String,
        marker_style: Style,
        /// The marker has been shown; later lines get blanks of its width.
        shown: bool,
    },
}

struct ListState {
    next_number: Option<u64>,
}

struct MarkdownTable {
    alignments: Vec<Alignment>,
    rows: Vec<Vec<Vec<Frag>>>,
    header_rows: usize,
    line: usize,
}

struct CodeBlock {
    language: String,
    text: String,
    /// The source line of the first code line.
    first_line: usize,
}

struct Renderer<'t> {
    text: &'t str,
    theme: &'t Theme,
    width: usize,
    line_starts: Vec<usize>,
    out: Vec<Line<'static>>,
    sources: Vec<usize>,
    containers: Vec<Container>,
    lists: Vec<ListState>,
    inline: Vec<Frag>,
    styles: Vec<Style>,
    links: Vec<String>,
    table: Option<MarkdownTable>,
    code: Option<CodeBlock>,
    html: Option<(String, usize)>,
    /// A blank line goes before the next block.
    gap: bool,
}

impl<'t> Renderer<'t> {
    fn new(text: &'t str, theme: &'t Theme, width: usize) -> Renderer<'t> {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Renderer {
            text,
            theme,
            width,
            line_starts,
            out: Vec::new(),
            sources: Vec::new(),
            containers: Vec::new(),
            lists: Vec::new(),
            inline: Vec::new(),
            styles: vec![Style::new().fg(theme.text)],
            links: Vec::new(),
            table: None,
            code: None,
            html: None,
            gap: false,
        }
    }

    /// The 1-based line of a byte offset.
    fn line_of(&self, offset: usize) -> usize {
        self.line_starts.partition_point(|&start| start <= offset)
    }

    fn style(&self) -> Style {
        self.styles.last().copied().unwrap_or_default()
    }

    fn push_style(&mut self, change: Style) {
        let style = self.style().patch(change);
        self.styles.push(style);
    }

    fn pop_style(&mut self) {
        if self.styles.len() > 1 {
            self.styles.pop();
        }
    }

    /// The container prefix for the next line, innermost containers first up to half the
    /// width (deeper nesting is shown as `…`). Consumes pending list markers.
    fn prefix(&mut self, blank: bool) -> (Vec<Span<'static>>, usize) {
        let budget = self.width / 2;
        let mut parts: Vec<Span<'static>> = Vec::new();
        let mut used = 0;
        let mut cut = false;
        for container in self.containers.iter_mut().rev() {
            let span = match container {
                Container::Quote => Span::styled("│ ", Style::new().fg(self.theme.muted)),
                Container::Private => Span::styled("▌ ", Style::new().fg(self.theme.private)),
                Container::Item {
                    marker,
                    marker_style,
                    shown,
                } => {
                    if *shown || blank {
                        Span::raw(" ".repeat(text_width(marker)))
                    } else {
                        *shown = true;
                        Span::styled(marker.clone(), *marker_style)
                    }
                }
            };
            let width = text_width(&span.content);
            if used + width > budget {
                cut = true;
                break;
            }
            used += width;
            parts.push(span);
        }
        if cut {
            parts.push(Span::styled("…", Style::new().fg(self.theme.muted)));
            used += 1;
        }
        parts.reverse();
        (parts, used)
    }

    /// Width left for content after the prefix.
    fn available(&self, prefix_width: usize) -> usize {
        self.width.saturating_sub(prefix_width).max(1)
    }

    fn emit(&mut self, prefix: Vec<Span<'static>>, content: Vec<Span<'static>>, source: usize) {
        let mut spans = prefix;
        spans.extend(content);
        let source = source.max(self.sources.last().copied().unwrap_or(1));
        self.out.push(Line::from(spans));
        self.sources.push(source);
    }

    /// Emits one line of content with the container prefix.
    fn emit_line(&mut self, content: Vec<Span<'static>>, source: usize) {
        let (prefix, _) = self.prefix(false);
        self.emit(prefix, content, source);
    }

    /// A blank line before a block, when one is due.
    fn block_start(&mut self, source: usize) {
        self.flush_inline();
        if self.gap && !self.out.is_empty() {
            let (prefix, _) = self.prefix(true);
            self.emit(prefix, Vec::new(), source);
        }
        self.gap = false;
    }

    fn block_end(&mut self) {
        self.flush_inline();
        self.gap = true;
    }

    /// Wraps and emits the inline buffer.
    fn flush_inline(&mut self) {
        if self.inline.is_empty() {
            return;
        }
        let frags = std::mem::take(&mut self.inline);
        if frags.iter().all(|f| f.text.trim().is_empty()) {
            return;
        }
        let first_line = frags[0].line;
        // The first line's prefix decides the width; continuation prefixes are as wide.
        let (prefix, prefix_width) = self.prefix(false);
        let lines = wrap(&frags, self.available(prefix_width));
        let mut prefix = Some(prefix);
        for (content, source) in lines {
            let prefix = match prefix.take() {
                Some(first) => first,
                None => self.prefix(false).0,
            };
            self.emit(prefix, content, source.unwrap_or(first_line));
        }
    }

    fn frontmatter(&mut self, lines: &[(usize, &str)]) {
        let muted = Style::new().fg(self.theme.muted);
        let inner = lines[1..lines.len().saturating_sub(1)]
            .iter()
            .map(|(_, l)| text_width(l))
            .max()
            .unwrap_or(0);
        let box_width = (inner + 4).max(16).min(self.width.max(4));
        let label = "─ frontmatter ";
        let top = format!(
            "╭{}{}╮",
            label,
            "─".repeat(box_width.saturating_sub(2 + text_width(label)))
        );
        let top_source = self.line_of(lines[0].0);
        self.emit(
            Vec::new(),
            vec![Span::styled(truncate(&top, self.width), muted)],
            top_source,
        );
        for &(offset, line) in &lines[1..lines.len().saturating_sub(1)] {
            let content = truncate(&clean(line), box_width.saturating_sub(4));
            let pad = box_width.saturating_sub(4 + text_width(&content));
            let row = format!("│ {content}{} │", " ".repeat(pad));
            let source = self.line_of(offset);
            self.emit(Vec::new(), vec![Span::styled(row, muted)], source);
        }
        let bottom = format!("╰{}╯", "─".repeat(box_width.saturating_sub(2)));
        let source = self.line_of(lines[lines.len() - 1].0);
        self.emit(Vec::new(), vec![Span::styled(bottom, muted)], source);
        self.gap = true;
    }

    fn begin_private(&mut self, tag_offset: usize) {
        let source = self.line_of(tag_offset);
        self.block_start(source);
        let style = Style::new()
            .fg(self.theme.private)
            .add_modifier(Modifier::BOLD);
        self.emit_line(vec![Span::styled("▌ private", style)], source);
        self.containers.push(Container::Private);
    }

    fn end_private(&mut self) {
        self.flush_inline();
        self.containers.retain(|c| !matches!(c, Container::Private));
        self.gap = true;
    }

    /// Renders `text[start..end]` as markdown.
    fn markdown(&mut self, start: usize, end: usize) {
        let options =
            Options::ENABLE_TABLES | Options::ENABLE_TASKLISTS | Options::ENABLE_STRIKETHROUGH;
        let source = &self.text[start..end];
        // Containers left open by a malformed segment must not leak into the next one.
        let depth = self.containers.len();
        for (event, range) in Parser::new_ext(source, options).into_offset_iter() {
            let line = self.line_of(start + range.start);
            self.event(event, line);
        }
        self.flush_inline();
        self.flush_code();
        self.containers.truncate(depth);
        self.lists.clear();
        self.styles.truncate(1);
        self.links.clear();
        self.table = None;
    }

    fn event(&mut self, event: Event<'_>, line: usize) {
        match event {
            Event::Start(tag) => self.start(tag, line),
            Event::End(tag) => self.end(tag),
            Event::Text(text) => {
                if let Some(code) = &mut self.code {
                    code.text.push_str(&mark_hidden(&text));
                } else if let Some((html, _)) = &mut self.html {
                    html.push_str(&text);
                } else {
                    self.marked_text(&text, self.style(), line);
                }
            }
            Event::Code(text) => {
                let style = self
                    .style()
                    .patch(Style::new().fg(self.theme.code).bg(self.theme.code_bg));
                self.marked_text(&text, style, line);
            }
            Event::InlineMath(text) | Event::DisplayMath(text) => {
                self.text_frag(clean(&text), self.style(), line)
            }
            Event::Html(text) => match &mut self.html {
                Some((html, _)) => html.push_str(&text),
                None => self.html = Some((text.to_string(), line)),
            },
            Event::InlineHtml(text) => {
                if let Some(chip) = chip_text(&text) {
                    let style = Style::new().fg(self.theme.chip);
                    self.text_frag(chip, style, line);
                }
            }
            Event::FootnoteReference(name) => {
                self.text_frag(format!("[^{name}]"), self.style(), line)
            }
            Event::SoftBreak => self.text_frag(" ".into(), self.style(), line),
            Event::HardBreak => self.text_frag(HARD_BREAK.into(), self.style(), line),
            Event::Rule => {
                self.block_start(line);
                let (prefix, width) = self.prefix(false);
                let rule = "─".repeat(self.available(width));
                self.emit(
                    prefix,
                    vec![Span::styled(rule, Style::new().fg(self.theme.border))],
                    line,
                );
                self.gap = true;
            }
            Event::TaskListMarker(checked) => {
                let (glyph, color) = if checked {
                    ("☑ ", self.theme.ok)
                } else {
                    ("☐ ", self.theme.muted)
                };
                if let Some(Container::Item {
                    marker,
                    marker_style,
                    shown: false,
                }) = self.containers.last_mut()
                {
                    if marker.starts_with(['•', '◦', '▪']) {
                        *marker = glyph.to_string();
                    } else {
                        marker.push_str(glyph);
                    }
                    *marker_style = Style::new().fg(color);
                } else {
                    self.text_frag(glyph.to_string(), Style::new().fg(color), line);
                }
            }
        }
    }

    /// Text with its hidden characters (bidi controls, zero-width) shown as reversed
    /// markers (`⟨U+202E⟩`), as the review shows them: never silently dropped or obeyed.
    fn marked_text(&mut self, text: &str, style: Style, line: usize) {
        for piece in sanitize::pieces(text, sanitize::Keep::LineBreaks) {
            match piece {
                sanitize::Piece::Text(text) => self.text_frag(clean(text), style, line),
                sanitize::Piece::Marker { shown, .. } => {
                    self.text_frag(shown, style.add_modifier(Modifier::REVERSED), line)
                }
            }
        }
    }

    fn text_frag(&mut self, text: String, style: Style, line: usize) {
        if text.is_empty() {
            return;
        }
        self.inline.push(Frag { text, style, line });
    }

    fn start(&mut self, tag: Tag<'_>, line: usize) {
        match tag {
            Tag::Paragraph => self.block_start(line),
            Tag::Heading { level, .. } => {
                self.block_start(line);
                let color = match level {
                    HeadingLevel::H1 => self.theme.heading_1,
                    HeadingLevel::H2 => self.theme.heading_2,
                    _ => self.theme.heading_3,
                };
                self.push_style(Style::new().fg(color).add_modifier(Modifier::BOLD));
            }
            Tag::BlockQuote(_) => {
                self.block_start(line);
                self.containers.push(Container::Quote);
            }
            Tag::CodeBlock(kind) => {
                self.block_start(line);
                let (language, first_line) = match kind {
                    CodeBlockKind::Fenced(info) => (
                        info.split_whitespace().next().unwrap_or("").to_string(),
                        line + 1,
                    ),
                    CodeBlockKind::Indented => (String::new(), line),
                };
                self.code = Some(CodeBlock {
                    language,
                    text: String::new(),
                    first_line,
                });
            }
            Tag::HtmlBlock => {
                self.flush_inline();
                self.html = None;
            }
            Tag::List(first) => {
                if self.lists.is_empty() {
                    self.block_start(line);
                } else {
                    self.flush_inline();
                }
                self.lists.push(ListState { next_number: first });
            }
            Tag::Item => {
                self.flush_inline();
                let depth = self.lists.len().saturating_sub(1);
                let marker = match self.lists.last_mut().and_then(|l| l.next_number.as_mut()) {
                    Some(number) => {
                        let marker = format!("{number}. ");
                        *number += 1;
                        marker
                    }
                    None => ["• ", "◦ ", "▪ "][depth % 3].to_string(),
                };
                self.containers.push(Container::Item {
                    marker,
                    marker_style: Style::new().fg(self.theme.accent),
                    shown: false,
                });
            }
            Tag::Table(alignments) => {
                self.block_start(line);
                self.table = Some(MarkdownTable {
                    alignments,
                    rows: Vec::new(),
                    header_rows: 0,
                    line,
                });
            }
            Tag::TableHead | Tag::TableRow => {
                if let Some(table) = &mut self.table {
                    table.rows.push(Vec::new());
                }
            }
            Tag::TableCell => self.inline.clear(),
            Tag::Emphasis => self.push_style(Style::new().add_modifier(Modifier::ITALIC)),
            Tag::Strong => self.push_style(Style::new().add_modifier(Modifier::BOLD)),
            Tag::Strikethrough => self.push_style(Style::new().add_modifier(Modifier::CROSSED_OUT)),
            Tag::Superscript | Tag::Subscript => self.push_style(Style::new()),
            Tag::Link { dest_url, .. } => {
                self.links.push(dest_url.to_string());
                self.push_style(
                    Style::new()
                        .fg(self.theme.link)
                        .add_modifier(Modifier::UNDERLINED),
                );
            }
            Tag::Image { dest_url, .. } => {
                self.links.push(dest_url.to_string());
                self.push_style(Style::new().fg(self.theme.link));
                self.text_frag("[image: ".into(), self.style(), line);
            }
            Tag::FootnoteDefinition(name) => {
                self.block_start(line);
                self.text_frag(
                    format!("[^{name}]: "),
                    Style::new().fg(self.theme.muted),
                    line,
                );
            }
            Tag::MetadataBlock(_)
            | Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition => self.block_start(line),
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph => self.block_end(),
            TagEnd::Heading(level) => {
                self.flush_inline();
                self.pop_style();
                let rule = match level {
                    HeadingLevel::H1 => Some(("━", self.theme.heading_1)),
                    HeadingLevel::H2 => Some(("─", self.theme.heading_2)),
                    _ => None,
                };
                if let Some((glyph, color)) = rule {
                    let source = self.sources.last().copied().unwrap_or(1);
                    let (prefix, width) = self.prefix(false);
                    let rule = glyph.repeat(self.available(width));
                    self.emit(
                        prefix,
                        vec![Span::styled(rule, Style::new().fg(color))],
                        source,
                    );
                }
                self.gap = true;
            }
            TagEnd::BlockQuote(_) => {
                self.flush_inline();
                if let Some(index) = self
                    .containers
                    .iter()
                    .rposition(|c| matches!(c, Container::Quote))
                {
                    self.containers.truncate(index);
                }
                self.gap = true;
            }
            TagEnd::CodeBlock => {
                self.flush_code();
                self.gap = true;
            }
            TagEnd::HtmlBlock => {
                self.flush_html();
            }
            TagEnd::List(_) => {
                self.flush_inline();
                self.lists.pop();
                self.gap = true;
            }
            TagEnd::Item => {
                self.flush_inline();
                if let Some(index) = self
                    .containers
                    .iter()
                    .rposition(|c| matches!(c, Container::Item { .. }))
                {
                    if let Some(Container::Item { shown: false, .. }) = self.containers.get(index) {
                        // An empty item still shows its marker.
                        let source = self.sources.last().copied().unwrap_or(1);
                        self.emit_line(Vec::new(), source);
                    }
                    self.containers.truncate(index);
                }
                self.gap = false;
            }
            TagEnd::Table => self.flush_table(),
            TagEnd::TableHead => {
                if let Some(table) = &mut self.table {
                    table.header_rows = table.rows.len();
                }
            }
            TagEnd::TableRow => {}
            TagEnd::TableCell => {
                let cell = std::mem::take(&mut self.inline);
                if let Some(row) = self.table.as_mut().and_then(|t| t.rows.last_mut()) {
                    row.push(cell);
                }
            }
            TagEnd::Emphasis
            | TagEnd::Strong
            | TagEnd::Strikethrough
            | TagEnd::Superscript
            | TagEnd::Subscript => self.pop_style(),
            TagEnd::Link => {
                self.pop_style();
                let url = self.links.pop().unwrap_or_default();
                let shown = self
                    .inline
                    .last()
                    .is_some_and(|f| f.text == url || url.is_empty());
                if !shown {
                    let line = self.inline.last().map_or(1, |f| f.line);
                    self.text_frag(
                        format!(" ({})", clean(&url)),
                        Style::new().fg(self.theme.muted),
                        line,
                    );
                }
            }
            TagEnd::Image => {
                self.pop_style();
                let url = self.links.pop().unwrap_or_default();
                let line = self.inline.last().map_or(1, |f| f.line);
                self.text_frag("]".into(), Style::new().fg(self.theme.link), line);
                if !url.is_empty() {
                    self.text_frag(
                        format!(" ({})", clean(&url)),
                        Style::new().fg(self.theme.muted),
                        line,
                    );
                }
            }
            TagEnd::FootnoteDefinition
            | TagEnd::MetadataBlock(_)
            | TagEnd::DefinitionList
            | TagEnd::DefinitionListTitle
            | TagEnd::DefinitionListDefinition => self.block_end(),
        }
    }

    /// Chip comments become chips, other comments vanish, other HTML is shown muted.
    fn flush_html(&mut self) {
        let Some((html, first_line)) = self.html.take() else {
            return;
        };
        let mut in_comment = false;
        for (index, line) in html.lines().enumerate() {
            let source = first_line + index;
            if let Some(chip) = chip_text(line) {
                self.block_start(source);
                let style = Style::new().fg(self.theme.chip);
                self.emit_line(vec![Span::styled(chip, style)], source);
                self.gap = true;
                continue;
            }
            let trimmed = line.trim();
            let starts_comment = trimmed.starts_with("<!--");
            if starts_comment || in_comment {
                in_comment = !trimmed.contains("-->");
                continue;
            }
            if trimmed.is_empty() {
                continue;
            }
            self.block_start(source);
            let (prefix, width) = self.prefix(false);
            let shown = truncate(&clean(line), self.available(width));
            self.emit(
                prefix,
                vec![Span::styled(shown, Style::new().fg(self.theme.muted))],
                source,
            );
            self.gap = true;
        }
    }

    fn flush_code(&mut self) {
        let Some(code) = self.code.take() else {
            return;
        };
        let background = Style::new().bg(self.theme.code_bg);
        let code_style = background.fg(self.theme.code);
        let (_, prefix_width) = self.prefix(true);
        let inner = self.available(prefix_width);
        let padded = |text: String, style: Style| -> Vec<Span<'static>> {
            let text = truncate(&text, inner);
            let pad = inner.saturating_sub(text_width(&text));
            vec![
                Span::styled(text, style),
                Span::styled(" ".repeat(pad), background),
            ]
        };
        if !code.language.is_empty() {
            let label = padded(
                format!(" {}", clean(&code.language)),
                background
                    .fg(self.theme.muted)
                    .add_modifier(Modifier::ITALIC),
            );
            self.emit_line(label, code.first_line.saturating_sub(1).max(1));
        }
        let text = code.text.strip_suffix('\n').unwrap_or(&code.text);
        for (index, line) in text.split('\n').enumerate() {
            let shown = format!(" {}", expand_tabs(line));
            self.emit_line(padded(shown, code_style), code.first_line + index);
        }
    }

    fn flush_table(&mut self) {
        let Some(table) = self.table.take() else {
            return;
        };
        let border = Style::new().fg(self.theme.border);
        let columns = table.rows.iter().map(Vec::len).max().unwrap_or(0);
        if columns == 0 {
            return;
        }
        // Each cell flattened to one line of spans.
        let cells: Vec<Vec<(Vec<Span<'static>>, usize, usize)>> = table
            .rows
            .iter()
            .map(|row| {
                (0..columns)
                    .map(|c| match row.get(c) {
                        Some(frags) => {
                            let source = frags.first().map_or(table.line, |f| f.line);
                            let spans: Vec<Span<'static>> = frags
                                .iter()
                                .map(|f| Span::styled(f.text.replace('\n', " "), f.style))
                                .collect();
                            let width = spans.iter().map(|s| text_width(&s.content)).sum();
                            (spans, width, source)
                        }
                        None => (Vec::new(), 0, table.line),
                    })
                    .collect()
            })
            .collect();
        let natural: Vec<usize> = (0..columns)
            .map(|c| cells.iter().map(|row| row[c].1).max().unwrap_or(0).max(1))
            .collect();
        let (_, prefix_width) = self.prefix(true);
        let available = self.available(prefix_width);
        let room = available.saturating_sub(3 * columns + 1);
        let widths = fit_columns(&natural, room);
        let rule = |left: &str, mid: &str, right: &str| {
            let mut text = left.to_string();
            for (i, w) in widths.iter().enumerate() {
                text.push_str(&"─".repeat(w + 2));
                text.push_str(if i + 1 == columns { right } else { mid });
            }
            vec![Span::styled(truncate(&text, available), border)]
        };
        let top = rule("┌", "┬", "┐");
        self.emit_line(top, table.line);
        for (r, row) in cells.into_iter().enumerate() {
            let source = row.first().map_or(table.line, |cell| cell.2);
            let mut spans = vec![Span::styled("│", border)];
            for (c, (cell, width, _)) in row.into_iter().enumerate() {
                let column = widths[c];
                let mut cell = truncate_spans(cell, width, column);
                if r < table.header_rows {
                    for span in &mut cell {
                        span.style = span.style.add_modifier(Modifier::BOLD);
                    }
                }
                let shown: usize = cell.iter().map(|s| text_width(&s.content)).sum();
                let pad = column.saturating_sub(shown);
                let (left, right) = match table.alignments.get(c) {
                    Some(Alignment::Right) => (pad, 0),
                    Some(Alignment::Center) => (pad / 2, pad - pad / 2),
                    _ => (0, pad),
                };
                spans.push(Span::raw(" ".repeat(left + 1)));
                spans.extend(cell);
                spans.push(Span::raw(" ".repeat(right + 1)));
                spans.push(Span::styled("│", border));
            }
            let row_width = spans.iter().map(|s| text_width(&s.content)).sum();
            let spans = truncate_spans(spans, row_width, available);
            self.emit_line(spans, source);
            if r + 1 == table.header_rows {
                let separator = rule("├", "┼", "┤");
                self.emit_line(separator, source);
            }
        }
        let bottom = rule("└", "┴", "┘");
        let source = self.sources.last().copied().unwrap_or(table.line);
        self.emit_line(bottom, source);
        self.gap = true;
    }
}

#[cfg(test)]
mod tests;

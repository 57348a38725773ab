//! Drawing the editor: the visible rows (cut or soft-wrapped), the gutter, the title's
//! figures and the prompts on its last line.
use super::*;

impl Editor {
    pub(super) fn draw(&mut self, frame: &mut Frame, area: Rect, theme: &Theme, focused: bool) {
        self.area = area;
        let title = match &self.doc {
            Some(doc) => {
                let dirty = if doc.is_dirty() { " ●" } else { "" };
                let ro = if doc.read_only.is_some() {
                    " [read-only]"
                } else {
                    ""
                };
                let name = doc
                    .path
                    .file_name()
                    .map(sanitize::os_str)
                    .unwrap_or_default();
                let memory = doc
                    .memory_id
                    .as_ref()
                    .map(|id| format!("#{}", sanitize::line(id)))
                    .unwrap_or_default();
                format!(" {name}{memory}{dirty}{ro} ")
            }
            None => " Editor ".into(),
        };
        let mut block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.border(focused))
            .title(Span::styled(title.clone(), theme.title()));
        if let Some(doc) = &self.doc {
            // The figures share the top border with the name: drop the least useful
            // parts until both fit, so the file name is never overwritten.
            let room = (area.width as usize).saturating_sub(title.chars().count() + 3);
            let mut figures = token_title(doc, theme);
            while figures.len() > 1 && Line::from(figures.clone()).width() > room {
                figures.remove(if figures.len() > 2 {
                    figures.len() - 1
                } else {
                    0
                });
            }
            if Line::from(figures.clone()).width() <= room {
                block = block.title(Line::from(figures).right_aligned());
            }
            if let Some(mode) = self.mode_line(doc, theme) {
                block = block.title_bottom(mode);
            }
            if let Some(found) = self.search_line(doc, theme) {
                block = block.title_bottom(found.right_aligned());
            } else if let Some(cut) = &doc.cut {
                block = block.title_bottom(
                    Line::from(Span::styled(
                        format!(" ✂ from line {}: {} ", cut.first_line, cut.label),
                        theme.fg(theme.over),
                    ))
                    .right_aligned(),
                );
            }
        }
        let inner = block.inner(area);
        frame.render_widget(block, area);
        self.text_area = inner;
        let Some(doc) = &self.doc else {
            let text = self
                .problem
                .clone()
                .unwrap_or_else(|| "Select a file in the tree.".into());
            let style = if self.problem.is_some() {
                theme.fg(theme.error)
            } else {
                theme.muted()
            };
            frame.render_widget(
                Paragraph::new(Span::styled(format!(" {text}"), style)),
                inner,
            );
            return;
        };
        let mut text_area = inner;
        if let Some(header) = &doc.locked_header {
            frame.render_widget(
                Paragraph::new(Span::styled(format!(" 🔒 {header}"), theme.muted())),
                Rect { height: 1, ..inner },
            );
            text_area.y += 1;
            text_area.height = text_area.height.saturating_sub(1);
        }
        if self.search.is_some() {
            text_area.height = text_area.height.saturating_sub(1);
        }
        let gutter = doc.gutter_width();
        self.page = text_area.height as usize;
        self.text_width = (text_area.width as usize).saturating_sub(gutter);
        let selection = self.drawn_selection();
        let cursor = match self.wrap_width() {
            Some(width) => self.draw_wrapped(frame, text_area, theme, width, selection),
            None => self.draw_cut(frame, text_area, theme, selection),
        };
        if let Some((x, y)) = cursor
            && focused
            && self.search.is_none()
        {
            frame.set_cursor_position(Position::new(x.min(text_area.right().saturating_sub(1)), y));
        }
        if let Some(prompt) = &self.search {
            let y = text_area.y + text_area.height;
            let label = if prompt.command { " :" } else { " search: " };
            let mut spans = vec![
                Span::styled(label, theme.key()),
                Span::styled(prompt.query.clone(), theme.fg(theme.text)),
                Span::styled("▏", theme.fg(theme.accent)),
            ];
            if let Some(found) = &self.found
                && !prompt.query.is_empty()
            {
                spans.push(Span::styled(format!(" {}", found.count()), theme.key()));
            }
            let keys = if prompt.command {
                "  enter run · esc cancel"
            } else {
                "  enter find · esc cancel"
            };
            spans.push(Span::styled(keys, theme.muted()));
            frame.render_widget(
                Paragraph::new(Line::from(spans)),
                Rect {
                    y,
                    height: 1,
                    ..text_area
                },
            );
            let x = inner.x
                + label.chars().count() as u16
                + prompt
                    .query
                    .chars()
                    .map(|c| c.width().unwrap_or(0))
                    .sum::<usize>() as u16;
            frame.set_cursor_position(Position::new(x.min(inner.right().saturating_sub(1)), y));
        }
    }

    /// Vim's mode (and a command's first key) for the bottom border.
    pub(super) fn mode_line(&self, doc: &Document, theme: &Theme) -> Option<Line<'static>> {
        if !self.modal {
            return None;
        }
        let mut spans = vec![Span::styled(
            format!(" {} ", doc.mode.label()),
            theme.fg(theme.background).bg(match doc.mode {
                Mode::Normal => theme.accent,
                Mode::Insert => theme.ok,
                Mode::Visual | Mode::VisualLine => theme.near,
            }),
        )];
        if let Some(pending) = doc.pending {
            spans.push(Span::styled(format!(" {} ", pending.keys()), theme.key()));
        }
        Some(Line::from(spans))
    }

    /// "/query 3/17" for the bottom border while a search is highlighted.
    pub(super) fn search_line(&self, doc: &Document, theme: &Theme) -> Option<Line<'static>> {
        let found = self.found.as_ref()?;
        doc.buffer.search_pattern()?;
        let query = widgets::truncate(&sanitize::line(&found.query), 30);
        let mut spans = vec![Span::styled(format!(" /{query}"), theme.muted())];
        if found.version == doc.version {
            spans.push(Span::styled(format!(" {}", found.count()), theme.key()));
        }
        spans.push(Span::raw(" "));
        Some(Line::from(spans))
    }

    /// The selection as drawn: vim's visual modes include the cursor's character, or
    /// whole lines.
    pub(super) fn drawn_selection(&self) -> Option<(Pos, Pos)> {
        let doc = self.doc.as_ref()?;
        if self.modal && matches!(doc.mode, Mode::Visual | Mode::VisualLine) {
            return self.visual_range();
        }
        doc.buffer.selection()
    }

    /// The text without soft wrap: each line one row, cut at the window, which scrolls
    /// sideways to keep the cursor in view. Returns where the cursor is on screen.
    pub(super) fn draw_cut(
        &mut self,
        frame: &mut Frame,
        text_area: Rect,
        theme: &Theme,
        selection: Option<(Pos, Pos)>,
    ) -> Option<(u16, u16)> {
        let width = self.text_width;
        let height = self.page;
        let highlights = self.highlights.as_ref();
        let doc = self.doc.as_mut()?;
        let gutter = doc.gutter_width();
        let lines = doc.buffer.lines();
        // Keep the cursor in view.
        let (row, col) = doc.buffer.cursor();
        if row < doc.top {
            doc.top = row;
        } else if height > 0 && row >= doc.top + height {
            doc.top = row + 1 - height;
        }
        let cursor_column = lines.get(row).map_or(0, |l| display_column(l, col));
        if cursor_column < doc.left {
            doc.left = cursor_column;
        } else if width > 0 && cursor_column >= doc.left + width {
            doc.left = cursor_column + 1 - width;
        }
        let pattern = doc.buffer.search_pattern();
        let mut out = Vec::with_capacity(height);
        for (index, text) in lines.iter().enumerate().skip(doc.top).take(height) {
            let mark = doc.finding_lines.get(&(index + 1)).copied();
            let mut spans = match past_cut(doc.cut.as_ref(), index, mark) {
                Some(first) => cut_line_number(index, index == row, gutter, first, theme),
                None => line_number(index, index == row, gutter, mark, theme),
            };
            // A long line is drawn from the window's first character, not walked from
            // its start again.
            let (window, window_column) = if text.len() > PLAIN_LINE_CAP {
                let (from, column) = byte_at_column(text, doc.left);
                (from..text.len().min(from + width * 4), column)
            } else {
                (0..text.len(), 0)
            };
            let base = line_styles(highlights, index, text, theme);
            let marks = marks_for_line(index, text, window.clone(), selection, pattern, theme);
            spans.extend(visible_spans(
                text,
                window.start..text.len(),
                doc.left - window_column,
                width,
                &base,
                &marks,
                theme.fg(theme.text),
            ));
            out.push(Line::from(spans));
        }
        let shown = doc.top..(doc.top + height).min(lines.len());
        frame.render_widget(Paragraph::new(out), text_area);
        self.rows.clear();
        self.visible = Some(shown);
        (height > 0).then(|| {
            (
                text_area.x + (gutter + cursor_column.saturating_sub(doc.left)) as u16,
                text_area.y + (row - doc.top) as u16,
            )
        })
    }

    /// The text soft-wrapped at `width`: only the rows on screen are wrapped. Returns
    /// where the cursor is on screen.
    pub(super) fn draw_wrapped(
        &mut self,
        frame: &mut Frame,
        text_area: Rect,
        theme: &Theme,
        width: usize,
        selection: Option<(Pos, Pos)>,
    ) -> Option<(u16, u16)> {
        let height = self.page;
        let Editor {
            doc,
            wraps,
            rows,
            highlights,
            ..
        } = self;
        let doc = doc.as_mut()?;
        let gutter = doc.gutter_width();
        let lines = doc.buffer.lines();
        let key = (doc.id, doc.version, width);
        let last = lines.len() - 1;
        // Keep the cursor in view, counting screen rows only between the top and it.
        let (row, col) = doc.buffer.cursor();
        let cursor_row = wrap::row_of(wraps.rows(key, row, &lines[row]), col);
        doc.top = doc.top.min(last);
        doc.top_row = doc
            .top_row
            .min(wraps.rows(key, doc.top, &lines[doc.top]).len() - 1);
        if (row, cursor_row) < (doc.top, doc.top_row) {
            (doc.top, doc.top_row) = (row, cursor_row);
        } else if height > 0 {
            let below = row - doc.top >= height || {
                let mut count = cursor_row + 1;
                for (offset, text) in lines[doc.top..row].iter().enumerate() {
                    count += wraps.rows(key, doc.top + offset, text).len();
                }
                count - doc.top_row > height
            };
            if below {
                // The cursor's row at the bottom: walk back up a screen.
                let (mut line, mut at) = (row, cursor_row);
                let mut left = height - 1;
                while left > 0 {
                    if at > 0 {
                        let step = at.min(left);
                        at -= step;
                        left -= step;
                    } else if line > 0 {
                        line -= 1;
                        at = wraps.rows(key, line, &lines[line]).len() - 1;
                        left -= 1;
                    } else {
                        break;
                    }
                }
                (doc.top, doc.top_row) = (line, at);
            }
        }
        rows.clear();
        let (mut line, mut first) = (doc.top, doc.top_row);
        while rows.len() < height && line <= last {
            let segments = wraps.rows(key, line, &lines[line]);
            let count = segments.len();
            for (index, segment) in segments.iter().enumerate().skip(first) {
                if rows.len() >= height {
                    break;
                }
                rows.push(ScreenRow {
                    line,
                    segment: *segment,
                    last: index + 1 == count,
                });
            }
            line += 1;
            first = 0;
        }
        let pattern = doc.buffer.search_pattern();
        let mut out = Vec::with_capacity(rows.len());
        let mut cursor = None;
        let mut marks: (usize, Vec<(Style, Range<usize>)>) = (usize::MAX, Vec::new());
        for (y, screen) in rows.iter().enumerate() {
            let text = &lines[screen.line];
            let segment = screen.segment;
            let mut spans = if segment.start == 0 {
                let mark = doc.finding_lines.get(&(screen.line + 1)).copied();
                let current = screen.line == row;
                match past_cut(doc.cut.as_ref(), screen.line, mark) {
                    Some(first) => cut_line_number(screen.line, current, gutter, first, theme),
                    None => line_number(screen.line, current, gutter, mark, theme),
                }
            } else {
                vec![Span::raw(" ".repeat(gutter))]
            };
            let window = if text.len() > PLAIN_LINE_CAP {
                segment.start_byte..segment.end_byte
            } else {
                0..text.len()
            };
            if marks.0 != screen.line || text.len() > PLAIN_LINE_CAP {
                marks = (
                    screen.line,
                    marks_for_line(screen.line, text, window, selection, pattern, theme),
                );
            }
            let base = line_styles(highlights.as_ref(), screen.line, text, theme);
            spans.extend(visible_spans(
                text,
                segment.start_byte..segment.end_byte,
                0,
                width + 1,
                &base,
                &marks.1,
                theme.fg(theme.text),
            ));
            out.push(Line::from(spans));
            if screen.line == row && segment.start <= col && (col < segment.end || screen.last) {
                let x = gutter + wrap::column_in_row(text, segment, col);
                cursor = Some((text_area.x + x as u16, text_area.y + y as u16));
            }
        }
        frame.render_widget(Paragraph::new(out), text_area);
        self.visible = self
            .rows
            .first()
            .zip(self.rows.last())
            .map(|(first, last)| first.line..last.line + 1);
        cursor
    }

    /// Lines the editor shows now (for the highlighter's request).
    pub(crate) fn visible_range(&self) -> Option<Range<usize>> {
        let doc = self.doc.as_ref()?;
        match &self.visible {
            Some(range) if range.end <= doc.buffer.lines().len() => Some(range.clone()),
            _ => {
                let end = (doc.top + self.page.max(1)).min(doc.buffer.lines().len());
                Some(doc.top..end)
            }
        }
    }

    /// Where the text was drawn (inside the border).
    pub fn text_area(&self) -> Rect {
        self.text_area
    }
}

/// "812 tok / 1k ▰▰▰▱▱" for the pane's title, coloured by the buffer's budget status.
pub(super) fn token_title(doc: &Document, theme: &Theme) -> Vec<Span<'static>> {
    let (row, col) = doc.cursor();
    let mut spans = vec![Span::styled(
        format!(" {}:{} ", row + 1, col + 1),
        theme.muted(),
    )];
    match &doc.stats {
        Some((version, stats)) => {
            let stale = *version != doc.version;
            let tokens = stats.loaded_tokens as u64;
            let check = widgets::token_check(&doc.budget).cloned().map(|mut c| {
                if c.unit == mbank_core::analysis::budgets::Unit::Tokens {
                    c.value = tokens;
                    c.status = mbank_core::analysis::budgets::BudgetStatus::of(tokens, c.limit);
                }
                c
            });
            let style = widgets::budget_color(theme, check.as_ref().map(|c| c.status));
            let figure = match &check {
                Some(c) if c.unit == mbank_core::analysis::budgets::Unit::Tokens => {
                    format!(
                        "{} / {} tok",
                        widgets::compact(tokens),
                        widgets::compact(c.limit)
                    )
                }
                _ => format!("{} tok", widgets::compact(tokens)),
            };
            spans.push(Span::styled(
                format!("{figure}{} ", if stale { "…" } else { "" }),
                style,
            ));
            if stats.private_tokens > 0 {
                spans.push(Span::styled(
                    format!(
                        "+{} private ",
                        widgets::compact(stats.private_tokens as u64)
                    ),
                    theme.fg(theme.private),
                ));
            }
            spans.push(Span::styled(format!("{} ", stats.encoding), theme.muted()));
        }
        None => spans.push(Span::styled("counting… ", theme.muted())),
    }
    spans
}

pub(crate) fn gutter_width(lines: usize) -> usize {
    lines.max(1).to_string().len().max(3) + 1
}

impl Document {
    /// The gutter's width: one column more when an agent cuts the file, for the `✂`.
    pub(crate) fn gutter_width(&self) -> usize {
        gutter_width(self.buffer.lines().len()) + usize::from(self.cut.is_some())
    }
}

/// The gutter of line `index`: its number; on a line a finding points at, `●` (or `▲`
/// for an error) in the finding's colour where the number leaves room, and the number
/// in that colour.
pub(super) fn line_number(
    index: usize,
    current: bool,
    gutter: usize,
    mark: Option<Severity>,
    theme: &Theme,
) -> Vec<Span<'static>> {
    let number = (index + 1).to_string();
    let Some(severity) = mark else {
        let style = if current {
            theme.fg(theme.accent)
        } else {
            theme.muted()
        };
        return vec![Span::styled(
            format!("{number:>w$} ", w = gutter - 1),
            style,
        )];
    };
    let style = widgets::severity_color(theme, severity);
    let style = if current {
        style.add_modifier(Modifier::BOLD)
    } else {
        style
    };
    let width = gutter - 1;
    if number.len() >= width {
        return vec![Span::styled(format!("{number} "), style)];
    }
    let symbol = if severity == Severity::Error {
        "▲"
    } else {
        "●"
    };
    vec![
        Span::styled(symbol, style),
        Span::styled(format!("{number:>w$} ", w = width - 1), style),
    ]
}

/// Whether 0-based line `index` is past the agent's cut and no finding marks it; then
/// whether it is the first line past it.
pub(super) fn past_cut(
    cut: Option<&LoadCutMark>,
    index: usize,
    finding: Option<Severity>,
) -> Option<bool> {
    let first = cut?.first_line;
    (index + 1 >= first && finding.is_none()).then_some(index + 1 == first)
}

/// The gutter of a line the agent no longer reads: its number in the cut-off colour, the
/// first one marked `✂` where the number leaves room.
pub(super) fn cut_line_number(
    index: usize,
    current: bool,
    gutter: usize,
    first: bool,
    theme: &Theme,
) -> Vec<Span<'static>> {
    let number = (index + 1).to_string();
    let style = theme.fg(theme.over);
    let style = if current {
        style.add_modifier(Modifier::BOLD)
    } else {
        style
    };
    let width = gutter - 1;
    if !first || number.len() >= width {
        return vec![Span::styled(format!("{number:>width$} "), style)];
    }
    vec![
        Span::styled("✂", style),
        Span::styled(format!("{number:>w$} ", w = width - 1), style),
    ]
}

/// The highlighter's styles for a line (none for very long lines), each readable on the
/// theme's background.
pub(super) fn line_styles(
    highlights: Option<&HighlightCache>,
    index: usize,
    text: &str,
    theme: &Theme,
) -> Vec<(Style, Range<usize>)> {
    if text.len() > PLAIN_LINE_CAP {
        return Vec::new();
    }
    highlights
        .and_then(|h| h.styles_for(index, text))
        .unwrap_or(&[])
        .iter()
        .map(|(style, range)| (theme.readable(*style), range.clone()))
        .collect()
}

/// Selection and search-match byte ranges on one line, with their styles. Matches are
/// looked for in `window` (the part of a long line on screen, widened so a match that
/// crosses its edge is still found).
pub(super) fn marks_for_line(
    index: usize,
    text: &str,
    window: Range<usize>,
    selection: Option<(Pos, Pos)>,
    pattern: Option<&Regex>,
    theme: &Theme,
) -> Vec<(Style, Range<usize>)> {
    let mut marks = Vec::new();
    if let Some(pattern) = pattern
        && !pattern.as_str().is_empty()
    {
        let reach = pattern.as_str().len() * 4 + 16;
        let mut from = window.start.saturating_sub(reach);
        while !text.is_char_boundary(from) {
            from -= 1;
        }
        let mut to = (window.end + reach).min(text.len());
        while !text.is_char_boundary(to) {
            to += 1;
        }
        for found in pattern.find_iter(&text[from..to]).take(200) {
            marks.push((
                Style::new().bg(theme.near).fg(theme.background),
                from + found.start()..from + found.end(),
            ));
        }
    }
    if let Some(((r1, c1), (r2, c2))) = selection
        && (r1..=r2).contains(&index)
    {
        let start = if index == r1 {
            buffer::byte_of(text, c1)
        } else {
            0
        };
        let end = if index == r2 {
            buffer::byte_of(text, c2)
        } else {
            text.len()
        };
        marks.push((Style::new().add_modifier(Modifier::REVERSED), start..end));
    }
    marks
}

/// The cells of `text[range]` from display column `left`, `width` wide, styled by `base`
/// spans and then `marks` on top (both as byte ranges of the whole line).
pub(super) fn visible_spans(
    text: &str,
    range: Range<usize>,
    left: usize,
    width: usize,
    base: &[(Style, Range<usize>)],
    marks: &[(Style, Range<usize>)],
    default: Style,
) -> Vec<Span<'static>> {
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut current = String::new();
    let mut current_style = default;
    let mut column = 0;
    let mut used = 0;
    let offset = range.start;
    for (at, c) in text[range].char_indices() {
        let byte = offset + at;
        let w = cells(c);
        if column + w <= left {
            column += w;
            continue;
        }
        if used + w > width {
            break;
        }
        let mut style = base
            .iter()
            .find(|(_, range)| range.contains(&byte))
            .map_or(default, |(s, _)| default.patch(*s));
        for (mark, range) in marks {
            if range.contains(&byte) {
                style = style.patch(*mark);
            }
        }
        // The buffer keeps the character; only the view shows it, reversed.
        let glyph = wrap::stand_in(c);
        if glyph.is_some() {
            style = style.add_modifier(Modifier::REVERSED);
        }
        if style != current_style && !current.is_empty() {
            spans.push(Span::styled(std::mem::take(&mut current), current_style));
        }
        current_style = style;
        match glyph {
            _ if c == '\t' => current.push_str("    "),
            Some(glyph) => current.push_str(&glyph),
            None => current.push(c),
        }
        column += w;
        used += w;
    }
    if !current.is_empty() {
        spans.push(Span::styled(current, current_style));
    }
    spans
}

//! Fitting rendered text to the width: word wrap, table columns, tabs and hidden
//! characters made visible.
use super::*;

/// Column widths that fit `room`: narrow columns keep their natural width, the wide ones
/// share what is left equally (water filling). Every column gets at least 1.
pub(super) fn fit_columns(natural: &[usize], room: usize) -> Vec<usize> {
    if natural.iter().sum::<usize>() <= room {
        return natural.to_vec();
    }
    let mut order: Vec<usize> = (0..natural.len()).collect();
    order.sort_by_key(|&i| natural[i]);
    let mut widths = vec![1; natural.len()];
    let mut left = room;
    for (rank, &i) in order.iter().enumerate() {
        let share = left / (natural.len() - rank);
        widths[i] = natural[i].min(share).max(1);
        left = left.saturating_sub(widths[i]);
    }
    widths
}

/// Wide punctuation that closes a phrase: it stays with the character before it.
const CLOSING_PUNCTUATION: &str = "、。，．：；！？）」』】〉》〕］｝ー…・";

/// Greedy word wrap of styled fragments to `width` cells. Returns each line's spans and the
/// source line of its first fragment. Words longer than a line are broken at characters.
pub(super) fn wrap(frags: &[Frag], width: usize) -> Vec<(Vec<Span<'static>>, Option<usize>)> {
    let mut wrapper = Wrapper {
        width: width.max(1),
        lines: Vec::new(),
        current: Vec::new(),
        current_width: 0,
        current_source: None,
        word: Vec::new(),
        word_width: 0,
        word_source: None,
        space: None,
    };
    for frag in frags {
        if frag.text == HARD_BREAK {
            wrapper.finish_word();
            wrapper.break_line();
            continue;
        }
        for c in frag.text.chars() {
            if c.is_whitespace() {
                wrapper.finish_word();
                wrapper.space.get_or_insert(frag.style);
            } else if c.width() == Some(2) && !CLOSING_PUNCTUATION.contains(c) {
                // CJK text needs no blanks to break: each wide character starts a word
                // of its own, so a line never breaks early leaving a lone bullet.
                wrapper.finish_word();
                wrapper.push_char(c, frag.style, frag.line);
            } else {
                wrapper.push_char(c, frag.style, frag.line);
            }
        }
    }
    wrapper.finish_word();
    if !wrapper.current.is_empty() {
        wrapper.break_line();
    }
    wrapper.lines
}

pub(super) struct Wrapper {
    width: usize,
    lines: Vec<(Vec<Span<'static>>, Option<usize>)>,
    current: Vec<Span<'static>>,
    current_width: usize,
    current_source: Option<usize>,
    /// The word being collected, as (text, style) pieces.
    word: Vec<(String, Style)>,
    word_width: usize,
    word_source: Option<usize>,
    /// A space is due before the next word (with this style).
    space: Option<Style>,
}

impl Wrapper {
    fn push_char(&mut self, c: char, style: Style, line: usize) {
        self.word_source.get_or_insert(line);
        self.word_width += c.width().unwrap_or(0);
        match self.word.last_mut() {
            Some((text, last)) if *last == style => text.push(c),
            _ => self.word.push((c.to_string(), style)),
        }
    }

    fn break_line(&mut self) {
        let spans = std::mem::take(&mut self.current);
        self.lines.push((spans, self.current_source.take()));
        self.current_width = 0;
    }

    fn append(&mut self, text: String, style: Style, width: usize, source: Option<usize>) {
        if self.current_source.is_none() {
            self.current_source = source;
        }
        self.current_width += width;
        match self.current.last_mut() {
            Some(last) if last.style == style => last.content.to_mut().push_str(&text),
            _ => self.current.push(Span::styled(text, style)),
        }
    }

    fn finish_word(&mut self) {
        if self.word.is_empty() {
            return;
        }
        let word = std::mem::take(&mut self.word);
        let word_width = std::mem::take(&mut self.word_width);
        let source = self.word_source.take();
        let space = self.space.take().filter(|_| self.current_width > 0);
        let space_width = usize::from(space.is_some());
        if self.current_width + space_width + word_width <= self.width {
            if let Some(style) = space {
                self.append(" ".into(), style, 1, source);
            }
        } else if self.current_width > 0 {
            self.break_line();
        }
        if self.current_width + word_width <= self.width {
            for (text, style) in word {
                let width = text_width(&text);
                self.append(text, style, width, source);
            }
            return;
        }
        // Longer than a line: break between characters.
        for (text, style) in word {
            let mut piece = String::new();
            let mut piece_width = 0;
            for c in text.chars() {
                let w = c.width().unwrap_or(0);
                if self.current_width + piece_width + w > self.width
                    && (self.current_width > 0 || !piece.is_empty())
                {
                    let done = std::mem::take(&mut piece);
                    if !done.is_empty() {
                        self.append(done, style, piece_width, source);
                    }
                    piece_width = 0;
                    self.break_line();
                }
                piece.push(c);
                piece_width += w;
            }
            if !piece.is_empty() {
                self.append(piece, style, piece_width, source);
            }
        }
    }
}

pub(super) fn text_width(text: &str) -> usize {
    text.chars().map(|c| c.width().unwrap_or(0)).sum()
}

/// Control characters replaced (tabs by a space) so they cannot upset the terminal.
/// Code keeps its tabs and line breaks; any other hidden character becomes its marker.
pub(super) fn mark_hidden(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c != '\n' && c != '\t' && c != '\r' && sanitize::hidden(c).is_some() {
            sanitize::push_marker(&mut out, c);
        } else {
            out.push(c);
        }
    }
    out
}

pub(super) fn clean(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() && c != '\n' { ' ' } else { c })
        .collect()
}

/// Tabs to 4-column stops and other control characters to spaces, for code lines.
pub(super) fn expand_tabs(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut column = 0;
    for c in line.chars() {
        if c == '\t' {
            let spaces = 4 - column % 4;
            out.extend(std::iter::repeat_n(' ', spaces));
            column += spaces;
        } else {
            let c = if c.is_control() { ' ' } else { c };
            out.push(c);
            column += c.width().unwrap_or(0);
        }
    }
    out
}

/// `text` cut to `max` cells, ending in `…` when cut. Stops reading at the cut, so a
/// 500 KB line costs only as much as what is shown.
pub(super) fn truncate(text: &str, max: usize) -> String {
    let mut out = String::new();
    let mut used = 0;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let w = c.width().unwrap_or(0);
        if used + w > max || (used + w == max && chars.peek().is_some()) {
            if used < max {
                out.push('…');
            }
            return out;
        }
        used += w;
        out.push(c);
    }
    out
}

/// Spans cut to `max` cells (their total width being `width`), the last ending in `…`.
pub(super) fn truncate_spans(
    spans: Vec<Span<'static>>,
    width: usize,
    max: usize,
) -> Vec<Span<'static>> {
    if width <= max {
        return spans;
    }
    let mut out = Vec::new();
    let mut used = 0;
    for span in spans {
        let w = text_width(&span.content);
        if used + w < max {
            used += w;
            out.push(span);
            continue;
        }
        let cut = truncate(&span.content, max - used);
        if !cut.is_empty() {
            out.push(Span::styled(cut, span.style));
        }
        // Always mark the cut, even when it falls between spans.
        if let Some(last) = out.last_mut()
            && !last.content.ends_with('…')
        {
            let mut text = last.content.to_string();
            text.pop();
            text.push('…');
            last.content = text.into();
        }
        break;
    }
    out
}

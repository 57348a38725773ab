//! Markdown syntax highlighting for the editor, off the drawing thread.
//!
//! Pieces, from the inside out:
//! - [`DocHighlighter`]: the engine for one document. It highlights only the lines asked for,
//!   resuming from a cached checkpoint of the parse state taken every `CHECKPOINT_EVERY`
//!   lines. An edit at line L drops only the checkpoints after L. Prose is parsed with
//!   syntect's Markdown syntax; fenced code (and YAML frontmatter) is parsed with the fence
//!   language's own syntax, because syntect's bundled Markdown does not embed languages.
//!   A line longer than `LONG_LINE_CAP` bytes is left plain and does not advance the state,
//!   so a 500 KB line can neither hang the parser nor poison the lines after it.
//! - `HighlightWorker` (`worker`): a background thread owning one engine per open document. The pane
//!   sends `HighlightWorker::request` (newest wins, stale ones are dropped) and the loop
//!   receives a `HighlightDone` through the `notify` callback.
//! - `HighlightCache` (`cache`): what the pane keeps between frames. `HighlightCache::styles_for`
//!   answers only while the cached text still equals the line on screen, so an edited line
//!   shows plain until the worker answers, never colours meant for a shifted line.
//! - `styled_line`: turns a line and its spans into a ratatui `Line`.
//!
//! Loading syntect's syntax and theme sets takes a noticeable fraction of a second, so they
//! are loaded once ([`assets`]) and the worker (or `preload_assets`) does it at start.
use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::OnceLock;

use ratatui::style::{Color, Modifier, Style};
#[cfg(test)]
use ratatui::text::{Line, Span};
use syntect::highlighting::{
    FontStyle, HighlightState, Highlighter, RangedHighlightIterator, Theme as SyntaxTheme, ThemeSet,
};
use syntect::parsing::{ParseState, Scope, ScopeStack, SyntaxReference, SyntaxSet};

mod cache;
mod worker;

pub(crate) use cache::HighlightCache;
pub(crate) use worker::{DocId, HighlightDone, HighlightWorker};

/// Lines longer than this many bytes are shown plain and skipped by the parser.
pub(crate) const LONG_LINE_CAP: usize = 2_000;
/// A parse-state checkpoint is kept before every line whose index is a multiple of this.
pub(crate) const CHECKPOINT_EVERY: usize = 32;
/// When the nearest checkpoint is further than this above the first visible line, parsing
/// restarts from a fresh state at most this many lines up, at a block boundary found by a
/// cheap scan (see [`DocHighlighter::highlight_until`]).
pub(crate) const RESYNC_LOOKBACK: usize = 100;
/// The syntect theme used when the requested one does not exist.
pub(crate) const FALLBACK_SYNTAX_THEME: &str = "base16-ocean.dark";

/// Styled byte ranges of one line, in order, not overlapping.
pub(crate) type LineSpans = Vec<(Style, Range<usize>)>;

/// syntect's bundled syntaxes and themes, loaded once.
pub struct Assets {
    pub syntaxes: SyntaxSet,
    pub themes: ThemeSet,
}

static ASSETS: OnceLock<Assets> = OnceLock::new();

/// The shared syntax and theme sets, loading them on first use (slow: call it off the drawing
/// thread, or call `preload_assets` at start).
pub fn assets() -> &'static Assets {
    ASSETS.get_or_init(|| Assets {
        syntaxes: SyntaxSet::load_defaults_newlines(),
        themes: ThemeSet::load_defaults(),
    })
}

/// The syntect syntax for a fence's info string (`rust`, `py`, `ts`, `shell`…), if any.
/// Aliases cover languages the bundled set lacks with the closest one it has.
pub(crate) fn syntax_for_fence(info: &str) -> Option<&'static SyntaxReference> {
    let lang = info
        .split(|c: char| c.is_whitespace() || c == ',' || c == '{')
        .next()
        .unwrap_or("")
        .trim_start_matches('.')
        .to_ascii_lowercase();
    if lang.is_empty() {
        return None;
    }
    let syntaxes = &assets().syntaxes;
    let alias = match lang.as_str() {
        "ts" | "typescript" | "tsx" | "jsx" | "mjs" | "cjs" | "javascript" => "js",
        "shell" | "console" | "shellscript" | "zsh" | "sh" => "bash",
        "toml" | "ini" | "cfg" | "conf" | "env" | "dotenv" => "properties",
        "jsonc" | "json5" => "json",
        "golang" => "go",
        "c++" => "cpp",
        other => other,
    };
    syntaxes.find_syntax_by_token(alias)
}

/// Converts a syntect style (foreground and font style) to ratatui. The background is left
/// to the pane so the app theme's background shows through.
/// Text in the theme's own foreground (`plain`) keeps no colour, so the app theme's text
/// colour draws it: body text comes from the app's palette, not the highlighter's.
pub(crate) fn to_ratatui_style(
    style: syntect::highlighting::Style,
    plain: syntect::highlighting::Color,
) -> Style {
    let fg = style.foreground;
    let mut out = if fg == plain {
        Style::new()
    } else {
        Style::new().fg(Color::Rgb(fg.r, fg.g, fg.b))
    };
    if style.font_style.contains(FontStyle::BOLD) {
        out = out.add_modifier(Modifier::BOLD);
    }
    if style.font_style.contains(FontStyle::ITALIC) {
        out = out.add_modifier(Modifier::ITALIC);
    }
    if style.font_style.contains(FontStyle::UNDERLINE) {
        out = out.add_modifier(Modifier::UNDERLINED);
    }
    out
}

/// Builds a line from its text and spans; bytes no span covers get `base`. Spans that do not
/// fit the text (out of range, not on a char boundary, out of order) make the line plain
/// rather than panic.
#[cfg(test)]
pub(crate) fn styled_line<'a>(
    text: &'a str,
    spans: Option<&[(Style, Range<usize>)]>,
    base: Style,
) -> Line<'a> {
    let plain = || Line::from(Span::styled(text, base));
    let Some(spans) = spans else {
        return plain();
    };
    let mut out = Vec::with_capacity(spans.len() * 2);
    let mut pos = 0;
    for (style, range) in spans {
        if range.start < pos || range.end < range.start {
            return plain();
        }
        let (Some(gap), Some(piece)) = (text.get(pos..range.start), text.get(range.clone())) else {
            return plain();
        };
        if !gap.is_empty() {
            out.push(Span::styled(gap, base));
        }
        if !piece.is_empty() {
            out.push(Span::styled(piece, base.patch(*style)));
        }
        pos = range.end;
    }
    if let Some(rest) = text.get(pos..).filter(|rest| !rest.is_empty()) {
        out.push(Span::styled(rest, base));
    }
    Line::from(out)
}

/// An open code fence (or the frontmatter block) and the parse state of its language.
#[derive(Clone, Debug)]
struct Fence {
    marker: u8,
    len: usize,
    /// YAML frontmatter closes on `---` or `...`, not on a repeat of the opening marker.
    frontmatter: bool,
    syntax: Option<&'static SyntaxReference>,
    body: Option<(ParseState, HighlightState)>,
}

/// The full state before a line: the Markdown parser's, and the open fence if any.
#[derive(Clone, Debug)]
struct LineState {
    markdown: ParseState,
    markdown_highlight: HighlightState,
    fence: Option<Fence>,
}

/// Styles for the fence lines themselves, taken from the syntax theme's Markdown scopes.
struct FenceStyles {
    punctuation: Style,
    language: Style,
    raw: Style,
}

/// Parses an opening fence: up to any indentation, three or more backticks or tildes, then
/// the info string (which for backtick fences may not contain a backtick).
fn opening_fence(line: &str) -> Option<(u8, usize, &str)> {
    let trimmed = line.trim_start();
    let marker = *trimmed.as_bytes().first()?;
    if marker != b'`' && marker != b'~' {
        return None;
    }
    let len = trimmed.bytes().take_while(|&b| b == marker).count();
    if len < 3 {
        return None;
    }
    let info = trimmed[len..].trim();
    if marker == b'`' && info.contains('`') {
        return None;
    }
    Some((marker, len, info))
}

fn closes_fence(line: &str, fence: &Fence) -> bool {
    let trimmed = line.trim();
    if fence.frontmatter {
        return trimmed == "---" || trimmed == "...";
    }
    let len = trimmed.bytes().take_while(|&b| b == fence.marker).count();
    len >= fence.len && len == trimmed.len()
}

/// The highlighting engine for one document: checkpoints plus the theme to colour with.
pub struct DocHighlighter {
    theme: SyntaxTheme,
    /// The state before line `key` (a multiple of [`CHECKPOINT_EVERY`]); key 0 always exists.
    checkpoints: BTreeMap<usize, LineState>,
    /// The state at the start of a document, for restarting.
    initial: LineState,
    fence_styles: FenceStyles,
}

impl DocHighlighter {
    /// An engine colouring with the named syntect theme (or `FALLBACK_SYNTAX_THEME`).
    pub fn new(syntax_theme: &str) -> DocHighlighter {
        let themes = &assets().themes.themes;
        let theme = themes
            .get(syntax_theme)
            .or_else(|| themes.get(FALLBACK_SYNTAX_THEME))
            .cloned()
            .unwrap_or_default();
        let highlighter = Highlighter::new(&theme);
        let style_of = |scopes: &[&str]| {
            let stack: Vec<Scope> = scopes.iter().filter_map(|s| Scope::new(s).ok()).collect();
            to_ratatui_style(
                highlighter.style_for_stack(&stack),
                highlighter.get_default().foreground,
            )
        };
        let fence_styles = FenceStyles {
            punctuation: style_of(&[
                "text.html.markdown",
                "markup.raw.code-fence.markdown",
                "punctuation.definition.raw.code-fence.begin.markdown",
            ]),
            language: style_of(&[
                "text.html.markdown",
                "markup.raw.code-fence.markdown",
                "constant.other.language-name.markdown",
            ]),
            raw: style_of(&["text.html.markdown", "markup.raw.code-fence.markdown"]),
        };
        let syntaxes = &assets().syntaxes;
        let markdown = syntaxes
            .find_syntax_by_name("Markdown")
            .unwrap_or_else(|| syntaxes.find_syntax_plain_text());
        let initial = LineState {
            markdown: ParseState::new(markdown),
            markdown_highlight: HighlightState::new(&highlighter, ScopeStack::new()),
            fence: None,
        };
        drop(highlighter);
        DocHighlighter {
            theme,
            checkpoints: BTreeMap::from([(0, initial.clone())]),
            initial,
            fence_styles,
        }
    }

    /// Forgets every checkpoint that depends on line `line` (an edit there, or a line
    /// inserted or removed there): the ones after it. Checkpoint 0 is always kept.
    pub(crate) fn invalidate_from(&mut self, line: usize) {
        self.checkpoints.split_off(&(line + 1));
    }

    /// The line indices that have a cached checkpoint (state before that line).
    #[cfg(test)]
    pub(crate) fn checkpoint_lines(&self) -> Vec<usize> {
        self.checkpoints.keys().copied().collect()
    }

    /// Highlights `visible` (clamped to the document), resuming from the nearest checkpoint
    /// at or before it and caching new checkpoints on the way. Returns one span list per
    /// visible line; a line over `LONG_LINE_CAP` gets an empty list.
    pub fn highlight(&mut self, lines: &[String], visible: Range<usize>) -> Vec<LineSpans> {
        self.highlight_until(lines, visible, &|| false)
            .unwrap_or_default()
    }

    /// [`Self::highlight`] that gives up (returning `None`) when `cancelled` says so; it is
    /// asked once per checkpoint interval. Checkpoints made before giving up are kept.
    pub(crate) fn highlight_until(
        &mut self,
        lines: &[String],
        visible: Range<usize>,
        cancelled: &dyn Fn() -> bool,
    ) -> Option<Vec<LineSpans>> {
        let end = visible.end.min(lines.len());
        let start = visible.start.min(end);
        let (mut from, state) = self
            .checkpoints
            .range(..=start)
            .next_back()
            .map_or((0, &self.initial), |(line, state)| (*line, state));
        let mut state = state.clone();
        if start > from + RESYNC_LOOKBACK {
            (from, state) = self.resync(lines, from, state, start);
        }
        let highlighter = Highlighter::new(&self.theme);
        let mut out = Vec::with_capacity(end - start);
        let mut line_buf = String::new();
        for (index, line) in lines.iter().enumerate().take(end).skip(from) {
            if index % CHECKPOINT_EVERY == 0 {
                self.checkpoints
                    .entry(index)
                    .or_insert_with(|| state.clone());
                if index < start && cancelled() {
                    return None;
                }
            }
            let want = index >= start;
            let spans = self.advance(
                &mut state,
                &highlighter,
                line,
                &mut line_buf,
                want,
                index == 0,
            );
            if index >= start {
                out.push(spans);
            }
        }
        Some(out)
    }

    /// Where to start parsing for a first visible line `start` far below the checkpoint at
    /// `from`: a cheap scan (no regexes) tracks code fences from the checkpoint to `start`,
    /// then parsing restarts with a fresh Markdown state at the last block boundary (a line
    /// after a blank line, a fence's opening line, a line after a closing fence) no more
    /// than [`RESYNC_LOOKBACK`] lines up; inside a long fence, with a fresh state of the
    /// fence's language. Markdown blocks end at blank lines and fences are tracked exactly,
    /// so this matches a full parse on ordinary documents at a fraction of the cost.
    fn resync(
        &self,
        lines: &[String],
        from: usize,
        state: LineState,
        start: usize,
    ) -> (usize, LineState) {
        let floor = start.saturating_sub(RESYNC_LOOKBACK);
        // The open fence (without its parser) and the line that opened it.
        let mut open: Option<(Fence, usize)> = state.fence.as_ref().map(|fence| {
            let mut bare = fence.clone();
            bare.body = None;
            (bare, from)
        });
        let mut last_safe = open.is_none().then_some(from);
        let mut previous_blank = false;
        for (index, line) in lines.iter().enumerate().take(start).skip(from) {
            if line.len() > LONG_LINE_CAP {
                previous_blank = false;
                continue;
            }
            match &open {
                Some((fence, _)) => {
                    if closes_fence(line, fence) {
                        open = None;
                        last_safe = Some(index + 1);
                    }
                }
                None => {
                    if previous_blank {
                        last_safe = Some(index);
                    }
                    let opening = if index == 0 && line.trim_end() == "---" {
                        Some((b'-', 3, true, "yaml"))
                    } else {
                        opening_fence(line).map(|(marker, len, info)| (marker, len, false, info))
                    };
                    if let Some((marker, len, frontmatter, info)) = opening {
                        last_safe = Some(index);
                        let fence = Fence {
                            marker,
                            len,
                            frontmatter,
                            syntax: syntax_for_fence(info),
                            body: None,
                        };
                        open = Some((fence, index));
                    }
                }
            }
            previous_blank = line.trim().is_empty();
        }
        let resume = match &open {
            Some((_, opened)) if *opened >= floor => *opened,
            Some(_) => floor,
            None => last_safe.unwrap_or(floor).max(floor),
        };
        if resume <= from {
            return (from, state);
        }
        let mut fresh = self.initial.clone();
        if let Some((mut fence, opened)) = open.filter(|(_, opened)| *opened < resume) {
            let highlighter = Highlighter::new(&self.theme);
            fence.body = fence.syntax.map(|syntax| {
                (
                    ParseState::new(syntax),
                    HighlightState::new(&highlighter, ScopeStack::new()),
                )
            });
            debug_assert!(opened < floor);
            fresh.fence = Some(fence);
        }
        (resume, fresh)
    }

    /// Moves `state` past one line; when `want` is set returns the line's spans. `first`:
    /// this is the document's first line, where `---` opens YAML frontmatter.
    fn advance(
        &self,
        state: &mut LineState,
        highlighter: &Highlighter<'_>,
        line: &str,
        buf: &mut String,
        want: bool,
        first: bool,
    ) -> LineSpans {
        if line.len() > LONG_LINE_CAP {
            return Vec::new();
        }
        let whole = |style: Style| {
            if want && !line.is_empty() {
                vec![(style, 0..line.len())]
            } else {
                Vec::new()
            }
        };
        if let Some(fence) = &mut state.fence {
            if closes_fence(line, fence) {
                state.fence = None;
                return whole(self.fence_styles.punctuation);
            }
            return match &mut fence.body {
                Some((parse, highlight)) => {
                    parse_and_style(parse, highlight, highlighter, line, buf, want)
                }
                None => whole(self.fence_styles.raw),
            };
        }
        let frontmatter_start = first && line.trim_end() == "---";
        let opening = if frontmatter_start {
            Some((b'-', 3, "yaml"))
        } else {
            opening_fence(line)
        };
        if let Some((marker, len, info)) = opening {
            let syntax = syntax_for_fence(info);
            let body = syntax.map(|syntax| {
                (
                    ParseState::new(syntax),
                    HighlightState::new(highlighter, ScopeStack::new()),
                )
            });
            state.fence = Some(Fence {
                marker,
                len,
                frontmatter: frontmatter_start,
                syntax,
                body,
            });
            if !want {
                return Vec::new();
            }
            // The marker in punctuation colour, the language name in its own.
            let indent = line.len() - line.trim_start().len();
            let info_start = line[indent + len..]
                .find(|c: char| !c.is_whitespace())
                .map_or(line.len(), |i| indent + len + i);
            let mut spans = vec![(self.fence_styles.punctuation, indent..indent + len)];
            if info_start < line.len() {
                spans.push((
                    self.fence_styles.language,
                    info_start..line.trim_end().len(),
                ));
            }
            return spans;
        }
        parse_and_style(
            &mut state.markdown,
            &mut state.markdown_highlight,
            highlighter,
            line,
            buf,
            want,
        )
    }
}

/// Runs one line through a syntect parser and highlighter. A parser error leaves the line
/// plain (and the state as far as it got) instead of failing the document.
fn parse_and_style(
    parse: &mut ParseState,
    highlight: &mut HighlightState,
    highlighter: &Highlighter<'_>,
    line: &str,
    buf: &mut String,
    want: bool,
) -> LineSpans {
    // The "newlines" syntaxes expect each line to end in '\n'.
    buf.clear();
    buf.push_str(line);
    buf.push('\n');
    let Ok(ops) = parse.parse_line(buf, &assets().syntaxes) else {
        return Vec::new();
    };
    let mut spans: LineSpans = Vec::new();
    for (style, _, range) in RangedHighlightIterator::new(highlight, &ops, buf, highlighter) {
        if !want {
            continue;
        }
        let range = range.start.min(line.len())..range.end.min(line.len());
        if range.is_empty() {
            continue;
        }
        let style = to_ratatui_style(style, highlighter.get_default().foreground);
        match spans.last_mut() {
            Some((last, last_range)) if *last == style && last_range.end == range.start => {
                last_range.end = range.end;
            }
            _ => spans.push((style, range)),
        }
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::worker::first_difference;
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_string).collect()
    }

    /// The style of the byte at `at` in a highlighted line (None: not covered).
    fn style_at(spans: &[(Style, Range<usize>)], at: usize) -> Option<Style> {
        spans.iter().find(|(_, r)| r.contains(&at)).map(|(s, _)| *s)
    }

    #[test]
    fn heading_and_emphasis_differ_from_plain_text() {
        let doc = lines("# Title\n\nplain words and *emphasis* here\n");
        let mut engine = DocHighlighter::new("base16-ocean.dark");
        let out = engine.highlight(&doc, 0..doc.len());
        assert_eq!(out.len(), 3);
        let plain = style_at(&out[2], 0).unwrap();
        let heading = style_at(&out[0], 2).unwrap();
        let emphasis_at = doc[2].find("emphasis").unwrap();
        let emphasis = style_at(&out[2], emphasis_at).unwrap();
        assert_ne!(heading, plain);
        assert_ne!(emphasis, plain);
    }

    #[test]
    fn body_text_takes_the_themes_palette_and_every_colour_reads_at_aa() {
        let doc = lines(
            "# Progress\n\nPlain words, *emphasis*, **strong** and `code`.\n\n- [x] a list item\n  1. nested\n> a quote\n\n[a link](https://example.com)\n\n```rust\nfn main() { let x = \"s\"; }\n```\n",
        );
        for (name, _) in crate::theme::BUNDLED {
            let theme = crate::theme::Theme::load(name, None).unwrap();
            let mut engine = DocHighlighter::new(&theme.syntax);
            let out = engine.highlight(&doc, 0..doc.len());
            // Plain prose carries no colour of the highlighter's: the theme's text draws it.
            let plain = style_at(&out[2], 0).unwrap();
            assert_eq!(plain.fg, None, "{name}: plain text is {plain:?}");
            for (line, spans) in out.iter().enumerate() {
                for (style, range) in spans {
                    let fg = theme.readable(*style).fg.unwrap_or(theme.text);
                    let ratio = crate::theme::contrast_ratio(fg, theme.background).unwrap();
                    assert!(
                        ratio >= crate::theme::MIN_CONTRAST,
                        "{name}: {:?} on line {} drawn at {ratio:.2}:1",
                        &doc[line][range.clone()],
                        line + 1
                    );
                }
            }
        }
    }

    #[test]
    fn rust_fence_highlights_keywords_in_rust() {
        let doc = lines("Text\n\n```rust\nfn main() { let x = 1; }\n```\n\nfn as prose\n");
        let mut engine = DocHighlighter::new("base16-ocean.dark");
        let out = engine.highlight(&doc, 0..doc.len());
        let code = &out[3];
        let keyword = style_at(code, 0).unwrap();
        let ident = style_at(code, doc[3].find("main").unwrap()).unwrap();
        assert_ne!(keyword, ident, "fn and main should differ: {code:?}");
        // After the closing fence we are back in prose: `fn` is not a keyword there.
        let prose = style_at(&out[6], 0).unwrap();
        assert_ne!(prose, keyword);
        assert_eq!(prose, style_at(&out[0], 0).unwrap());
    }

    #[test]
    fn common_fence_languages_resolve() {
        for lang in [
            "rust",
            "python",
            "py",
            "json",
            "yaml",
            "yml",
            "toml",
            "bash",
            "sh",
            "js",
            "ts",
            "typescript",
        ] {
            assert!(syntax_for_fence(lang).is_some(), "{lang}");
        }
        assert!(syntax_for_fence("no-such-language").is_none());
        assert!(syntax_for_fence("").is_none());
    }

    #[test]
    fn frontmatter_is_yaml_and_only_at_the_top() {
        let doc = lines("---\ntitle: x\n---\n# H\n\n---\n");
        let mut engine = DocHighlighter::new("base16-ocean.dark");
        let out = engine.highlight(&doc, 0..doc.len());
        let key = style_at(&out[1], 0).unwrap();
        let value = style_at(&out[1], 7).unwrap();
        assert_ne!(key, value, "yaml key and value: {:?}", out[1]);
    }

    #[test]
    fn long_line_is_plain_and_does_not_poison_the_rest() {
        let long = format!("`{}", "x*".repeat(250_000));
        let doc = vec!["# Head".to_string(), long, "# Head".to_string()];
        let mut engine = DocHighlighter::new("base16-ocean.dark");
        let out = engine.highlight(&doc, 0..3);
        assert!(out[1].is_empty());
        assert_eq!(out[0], out[2]);
        assert!(!out[2].is_empty());
    }

    #[test]
    fn big_file_highlights_at_the_end() {
        let para = "Some **bold** text, a [link](http://x.y) and `code`.\n\n```rust\nlet x = 1;\n```\n\n## Section\n\n- item\n";
        let text = para.repeat(1_400_000 / para.len());
        let doc = lines(&text);
        let mut engine = DocHighlighter::new("base16-ocean.dark");
        let n = doc.len();
        let out = engine.highlight(&doc, n - 60..n);
        assert_eq!(out.len(), 60);
        assert!(engine.checkpoint_lines().iter().any(|&l| l > n - 200));
        assert!(out.iter().any(|spans| spans.len() > 1));
        // Restarting near the end gives what a full parse from the top gives.
        let mut full = DocHighlighter::new("base16-ocean.dark");
        let everything = full.highlight(&doc, 0..n);
        assert_eq!(out, everything[n - 60..]);
    }

    #[test]
    fn restart_inside_a_long_fence_keeps_the_fence_language() {
        let mut text = String::from("# Top\n\n```python\n");
        text.push_str(&"def f(x):\n    return x  # c\n".repeat(300));
        text.push_str("```\n");
        let doc = lines(&text);
        let mut engine = DocHighlighter::new("base16-ocean.dark");
        let cold = engine.highlight(&doc, 500..560);
        let mut full = DocHighlighter::new("base16-ocean.dark");
        assert_eq!(cold, full.highlight(&doc, 0..doc.len())[500..560]);
        let def = doc
            .iter()
            .skip(500)
            .position(|l| l.starts_with("def"))
            .unwrap();
        assert_ne!(style_at(&cold[def], 0), style_at(&cold[def], 4));
    }

    #[test]
    fn edits_invalidate_only_later_checkpoints() {
        let doc = lines(&"line\n".repeat(1_000));
        let mut engine = DocHighlighter::new("base16-ocean.dark");
        engine.highlight(&doc, 0..1000);
        assert_eq!(engine.checkpoint_lines().len(), 999 / CHECKPOINT_EVERY + 1);
        engine.invalidate_from(300);
        let kept = engine.checkpoint_lines();
        assert_eq!(
            kept.last(),
            Some(&(300 / CHECKPOINT_EVERY * CHECKPOINT_EVERY))
        );
        assert!(kept.iter().all(|&l| l <= 300));
        engine.invalidate_from(0);
        assert_eq!(engine.checkpoint_lines(), vec![0]);
        assert_eq!(first_difference(&doc, &doc), None);
        let mut edited = doc.clone();
        edited[417].push('!');
        assert_eq!(first_difference(&doc, &edited), Some(417));
        assert_eq!(first_difference(&doc, &doc[..10]), Some(10));
    }

    #[test]
    fn opening_a_fence_late_changes_lines_after_it() {
        // An edit that opens a fence must recolour the lines below it, via invalidation.
        let mut doc = lines(&"# heading\n".repeat(200));
        let mut engine = DocHighlighter::new("base16-ocean.dark");
        let before = engine.highlight(&doc, 150..151);
        doc[100] = "```".to_string();
        engine.invalidate_from(100);
        let after = engine.highlight(&doc, 150..151);
        assert_ne!(before, after);
    }

    #[test]
    fn styled_line_fills_gaps_and_rejects_bad_spans() {
        let base = Style::new().fg(Color::White);
        let red = Style::new().fg(Color::Red);
        let line = styled_line("héllo world", Some(&[(red, 0..6)]), base);
        let text: Vec<_> = line.spans.iter().map(|s| s.content.to_string()).collect();
        assert_eq!(text, ["héllo", " world"]);
        assert_eq!(line.spans[0].style.fg, Some(Color::Red));
        assert_eq!(line.spans[1].style.fg, Some(Color::White));
        // 2 is inside 'é': plain, no panic.
        let line = styled_line("héllo", Some(&[(red, 0..2)]), base);
        assert_eq!(line.spans.len(), 1);
        let line = styled_line("hi", Some(&[(red, 0..9)]), base);
        assert_eq!(line.spans.len(), 1);
    }
}

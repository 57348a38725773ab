//! Screenshots: a ratatui [`Buffer`] (as drawn on a `TestBackend`) rendered to a standalone
//! SVG picture of a terminal window, colours included.
//!
//! Each row becomes background `<rect>`s and `<text>` runs, consecutive cells of the same
//! style merged into one element to keep files small. Every run is pinned to its cells with
//! `textLength`, so columns line up whatever monospace font the viewer picks; wide (CJK)
//! characters get their own two-cell run for the same reason.
use std::fmt::Write as _;

use ratatui::buffer::{Buffer, CellDiffOption};
use ratatui::style::{Color, Modifier};
use unicode_width::UnicodeWidthStr;

use super::theme::Theme;

/// Look of the picture. `default_fg`/`default_bg` stand in for [`Color::Reset`].
#[derive(Debug, Clone, PartialEq)]
pub struct SvgOptions {
    pub default_fg: Color,
    pub default_bg: Color,
    /// Font size in pixels; a cell is 0.6 of it wide and 1.25 of it tall.
    pub font_size: f32,
}

impl Default for SvgOptions {
    fn default() -> Self {
        SvgOptions {
            default_fg: Color::Rgb(0xd8, 0xde, 0xe9),
            default_bg: Color::Rgb(0x1c, 0x1f, 0x26),
            font_size: 14.0,
        }
    }
}

impl SvgOptions {
    /// Reset drawn in the theme's text and background colours (falling back to the defaults
    /// where the theme itself says Reset).
    pub fn from_theme(theme: &Theme) -> SvgOptions {
        let defaults = SvgOptions::default();
        let or = |color: Color, fallback: Color| {
            if color == Color::Reset {
                fallback
            } else {
                color
            }
        };
        SvgOptions {
            default_fg: or(theme.text, defaults.default_fg),
            default_bg: or(theme.background, defaults.default_bg),
            ..defaults
        }
    }
}

/// The buffer as an SVG terminal window titled `title`, with the default look.
#[cfg(test)]
pub(crate) fn buffer_to_svg(buffer: &Buffer, title: &str) -> String {
    buffer_to_svg_with(buffer, title, &SvgOptions::default())
}

const PAD: f32 = 12.0;
const TITLE_BAR: f32 = 30.0;

/// The resolved look of one cell's text.
#[derive(Debug, Clone, Copy, PartialEq)]
struct TextStyle {
    fg: [u8; 3],
    bold: bool,
    italic: bool,
    underline: bool,
    crossed: bool,
    dim: bool,
}

/// The buffer as an SVG terminal window titled `title`.
pub fn buffer_to_svg_with(buffer: &Buffer, title: &str, options: &SvgOptions) -> String {
    let area = buffer.area;
    let cell_w = options.font_size * 0.6;
    let cell_h = options.font_size * 1.25;
    let content_w = f32::from(area.width) * cell_w;
    let content_h = f32::from(area.height) * cell_h;
    let width = content_w + 2.0 * PAD;
    let height = content_h + 2.0 * PAD + TITLE_BAR;
    let default_fg = rgb(options.default_fg, [0xd8, 0xde, 0xe9]);
    let default_bg = rgb(options.default_bg, [0x1c, 0x1f, 0x26]);
    let origin_x = PAD;
    let origin_y = TITLE_BAR + PAD;

    let mut svg = String::with_capacity(usize::from(area.width) * usize::from(area.height) * 4);
    let _ = write!(
        svg,
        r##"<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.1} {height:.1}" font-family="'JetBrains Mono','Fira Code','DejaVu Sans Mono',Menlo,Consolas,monospace" font-size="{fs}">
<title>{title}</title>
<rect x="0.5" y="0.5" width="{fw:.1}" height="{fh:.1}" rx="8" fill="{bg}" stroke="{frame}"/>
<path d="M0.5 8.5 a8 8 0 0 1 8 -8 h{bar_w:.1} a8 8 0 0 1 8 8 v{bar_h:.1} h-{full_w:.1} z" fill="{frame}"/>
<circle cx="18" cy="15" r="6" fill="#ff5f56"/><circle cx="38" cy="15" r="6" fill="#ffbd2e"/><circle cx="58" cy="15" r="6" fill="#27c93f"/>
<text x="{mid:.1}" y="20" text-anchor="middle" fill="{title_fg}" font-size="13">{title}</text>
"##,
        fs = options.font_size,
        title = escape(title),
        fw = width - 1.0,
        fh = height - 1.0,
        bg = hex(default_bg),
        frame = hex(mix(default_bg, default_fg, 0.15)),
        bar_w = width - 17.0,
        bar_h = TITLE_BAR - 8.5,
        full_w = width - 1.0,
        mid = width / 2.0,
        title_fg = hex(mix(default_bg, default_fg, 0.75)),
    );

    let mut backgrounds = String::new();
    let mut texts = String::new();
    for y in 0..area.height {
        let top = origin_y + f32::from(y) * cell_h;
        let baseline = top + cell_h * 0.78;
        // Background runs.
        let mut run: Option<(u16, u16, [u8; 3])> = None;
        // Text runs: start column, width in cells, style, text.
        let mut text_run: Option<(u16, u16, TextStyle, String)> = None;
        let mut x = 0;
        while x < area.width {
            let Some(cell) = buffer.cell((area.x + x, area.y + y)) else {
                break;
            };
            let symbol = cell.symbol();
            let cells = u16::try_from(symbol.width().clamp(1, 2)).unwrap_or(1);
            let mut fg = rgb(cell.fg, default_fg);
            let mut bg = rgb(cell.bg, default_bg);
            if cell.modifier.contains(Modifier::REVERSED) {
                std::mem::swap(&mut fg, &mut bg);
            }
            // Backgrounds equal to the window's are left to the window.
            match &mut run {
                Some((_, len, colour)) if *colour == bg => *len += cells,
                _ => {
                    flush_rect(
                        &mut backgrounds,
                        run.take(),
                        origin_x,
                        top,
                        cell_w,
                        cell_h,
                        default_bg,
                    );
                    run = Some((x, cells, bg));
                }
            }
            let style = TextStyle {
                fg,
                bold: cell.modifier.contains(Modifier::BOLD),
                italic: cell.modifier.contains(Modifier::ITALIC),
                underline: cell.modifier.contains(Modifier::UNDERLINED),
                crossed: cell.modifier.contains(Modifier::CROSSED_OUT),
                dim: cell.modifier.contains(Modifier::DIM),
            };
            let hidden = cell.modifier.contains(Modifier::HIDDEN)
                || cell.diff_option == CellDiffOption::Skip;
            let symbol = if hidden || symbol.is_empty() {
                " "
            } else {
                symbol
            };
            let joins = cells == 1 && matches!(&text_run, Some((_, _, s, _)) if *s == style);
            if joins {
                if let Some((_, len, _, text)) = &mut text_run {
                    *len += 1;
                    text.push_str(symbol);
                }
            } else {
                flush_text(&mut texts, text_run.take(), origin_x, baseline, cell_w);
                text_run = Some((x, cells, style, symbol.to_string()));
            }
            if cells == 2 {
                // Nothing may join a wide character's run: its textLength spans two cells.
                flush_text(&mut texts, text_run.take(), origin_x, baseline, cell_w);
            }
            x += cells;
        }
        flush_rect(
            &mut backgrounds,
            run,
            origin_x,
            top,
            cell_w,
            cell_h,
            default_bg,
        );
        flush_text(&mut texts, text_run, origin_x, baseline, cell_w);
    }
    svg.push_str("<g shape-rendering=\"crispEdges\">\n");
    svg.push_str(&backgrounds);
    svg.push_str("</g>\n<g xml:space=\"preserve\">\n");
    svg.push_str(&texts);
    svg.push_str("</g>\n</svg>\n");
    svg
}

fn flush_rect(
    out: &mut String,
    run: Option<(u16, u16, [u8; 3])>,
    origin_x: f32,
    top: f32,
    cell_w: f32,
    cell_h: f32,
    default_bg: [u8; 3],
) {
    let Some((x, len, colour)) = run else {
        return;
    };
    if colour == default_bg {
        return;
    }
    let _ = writeln!(
        out,
        r#"<rect x="{:.1}" y="{top:.1}" width="{:.1}" height="{cell_h:.1}" fill="{}"/>"#,
        origin_x + f32::from(x) * cell_w,
        f32::from(len) * cell_w,
        hex(colour)
    );
}

fn flush_text(
    out: &mut String,
    run: Option<(u16, u16, TextStyle, String)>,
    origin_x: f32,
    baseline: f32,
    cell_w: f32,
) {
    let Some((x, mut len, style, mut text)) = run else {
        return;
    };
    // Trailing blanks draw nothing unless underlined or struck through.
    if !style.underline && !style.crossed {
        let kept = text.trim_end_matches(' ').len();
        len -= u16::try_from(text.len() - kept).unwrap_or(0).min(len);
        text.truncate(kept);
        if text.is_empty() {
            return;
        }
    }
    let _ = write!(
        out,
        r#"<text x="{:.1}" y="{baseline:.1}" textLength="{:.1}" lengthAdjust="spacingAndGlyphs" fill="{}""#,
        origin_x + f32::from(x) * cell_w,
        f32::from(len) * cell_w,
        hex(style.fg)
    );
    if style.bold {
        out.push_str(r#" font-weight="bold""#);
    }
    if style.italic {
        out.push_str(r#" font-style="italic""#);
    }
    match (style.underline, style.crossed) {
        (true, true) => out.push_str(r#" text-decoration="underline line-through""#),
        (true, false) => out.push_str(r#" text-decoration="underline""#),
        (false, true) => out.push_str(r#" text-decoration="line-through""#),
        (false, false) => {}
    }
    if style.dim {
        out.push_str(r#" opacity="0.6""#);
    }
    let _ = writeln!(out, ">{}</text>", escape(&text));
}

/// `#rrggbb`.
fn hex([r, g, b]: [u8; 3]) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// `a` moved `t` of the way towards `b`.
fn mix(a: [u8; 3], b: [u8; 3], t: f32) -> [u8; 3] {
    let channel = |x: u8, y: u8| (f32::from(x) + (f32::from(y) - f32::from(x)) * t).round() as u8;
    [
        channel(a[0], b[0]),
        channel(a[1], b[1]),
        channel(a[2], b[2]),
    ]
}

/// The xterm default palette for the 16 named colours.
const ANSI: [[u8; 3]; 16] = [
    [0x00, 0x00, 0x00],
    [0xcd, 0x00, 0x00],
    [0x00, 0xcd, 0x00],
    [0xcd, 0xcd, 0x00],
    [0x00, 0x00, 0xee],
    [0xcd, 0x00, 0xcd],
    [0x00, 0xcd, 0xcd],
    [0xe5, 0xe5, 0xe5],
    [0x7f, 0x7f, 0x7f],
    [0xff, 0x00, 0x00],
    [0x00, 0xff, 0x00],
    [0xff, 0xff, 0x00],
    [0x5c, 0x5c, 0xff],
    [0xff, 0x00, 0xff],
    [0x00, 0xff, 0xff],
    [0xff, 0xff, 0xff],
];

fn rgb(color: Color, reset: [u8; 3]) -> [u8; 3] {
    match color {
        Color::Reset => reset,
        Color::Black => ANSI[0],
        Color::Red => ANSI[1],
        Color::Green => ANSI[2],
        Color::Yellow => ANSI[3],
        Color::Blue => ANSI[4],
        Color::Magenta => ANSI[5],
        Color::Cyan => ANSI[6],
        Color::Gray => ANSI[7],
        Color::DarkGray => ANSI[8],
        Color::LightRed => ANSI[9],
        Color::LightGreen => ANSI[10],
        Color::LightYellow => ANSI[11],
        Color::LightBlue => ANSI[12],
        Color::LightMagenta => ANSI[13],
        Color::LightCyan => ANSI[14],
        Color::White => ANSI[15],
        Color::Rgb(r, g, b) => [r, g, b],
        Color::Indexed(index) => indexed(index),
    }
}

/// The xterm 256-colour palette: 16 named, a 6×6×6 cube, 24 greys.
fn indexed(index: u8) -> [u8; 3] {
    match index {
        0..=15 => ANSI[usize::from(index)],
        16..=231 => {
            let i = index - 16;
            let level = |v: u8| if v == 0 { 0 } else { 55 + v * 40 };
            [level(i / 36), level((i / 6) % 6), level(i % 6)]
        }
        232..=255 => {
            let grey = 8 + (index - 232) * 10;
            [grey, grey, grey]
        }
    }
}

/// Text made safe for XML: markup characters escaped, characters XML 1.0 forbids replaced.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' => out.push(' '),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::layout::Rect;
    use ratatui::style::Style;

    /// Checks that tags are balanced and properly nested; returns the element names seen.
    fn check_xml(svg: &str) -> Vec<String> {
        let mut stack: Vec<String> = Vec::new();
        let mut seen = Vec::new();
        let mut rest = svg;
        while let Some(open) = rest.find('<') {
            let close = rest[open..].find('>').expect("unterminated tag") + open;
            let tag = &rest[open + 1..close];
            rest = &rest[close + 1..];
            assert!(
                !rest[..rest.find('<').unwrap_or(rest.len())].contains('>'),
                "stray >"
            );
            if tag.starts_with('?') {
                continue;
            }
            if let Some(name) = tag.strip_prefix('/') {
                assert_eq!(
                    stack.pop().as_deref(),
                    Some(name.trim()),
                    "mismatched </{name}>"
                );
                continue;
            }
            let name: String = tag
                .chars()
                .take_while(|c| !c.is_whitespace() && *c != '/')
                .collect();
            seen.push(name.clone());
            if !tag.ends_with('/') {
                stack.push(name);
            }
        }
        assert!(stack.is_empty(), "unclosed: {stack:?}");
        seen
    }

    #[test]
    fn coloured_buffer_becomes_an_svg_with_text_and_colours() {
        let mut buffer = Buffer::empty(Rect::new(0, 0, 24, 3));
        buffer.set_string(
            0,
            0,
            "Hello <mbank> & co",
            Style::new().fg(Color::Rgb(0x12, 0xab, 0xef)),
        );
        buffer.set_string(
            0,
            1,
            "warn",
            Style::new()
                .fg(Color::Indexed(196))
                .bg(Color::Blue)
                .add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
        );
        buffer.set_string(
            6,
            1,
            "rev",
            Style::new().fg(Color::Red).add_modifier(Modifier::REVERSED),
        );
        buffer.set_string(0, 2, "漢字ok", Style::new().fg(Color::Indexed(244)));
        let svg = buffer_to_svg(&buffer, "mbank — \"demo\"");
        let elements = check_xml(&svg);
        assert_eq!(elements[0], "svg");
        assert!(svg.contains("Hello &lt;mbank&gt; &amp; co"), "{svg}");
        assert!(svg.contains("mbank — &quot;demo&quot;"));
        assert!(svg.contains("fill=\"#12abef\""));
        // Indexed 196 is pure red in the cube; Blue is xterm's #0000ee.
        assert!(svg.contains("fill=\"#ff0000\""));
        assert!(svg.contains("fill=\"#0000ee\""));
        assert!(svg.contains("font-weight=\"bold\""));
        assert!(svg.contains("text-decoration=\"underline\""));
        // Reversed: red background, default background as text colour.
        assert!(svg.contains("fill=\"#cd0000\""));
        assert!(svg.contains(">rev</text>"));
        assert!(svg.contains("fill=\"#808080\""), "indexed 244 grey");
        // Each wide character is its own two-cell run; `ok` starts at column 4.
        let cell = 14.0 * 0.6;
        assert!(svg.contains(&format!(
            "textLength=\"{:.1}\" lengthAdjust=\"spacingAndGlyphs\" fill=\"#808080\">漢</text>",
            2.0 * cell
        )));
        assert!(svg.contains(&format!("x=\"{:.1}\"", PAD + 4.0 * cell)));
        assert!(svg.contains(">ok</text>"));
        // The first row's text is one merged run, not one element per cell.
        assert_eq!(svg.matches("<text").count(), 1 + 1 + 1 + 1 + 3);
    }

    #[test]
    fn palette_and_reset_follow_xterm_and_options() {
        assert_eq!(indexed(16), [0, 0, 0]);
        assert_eq!(indexed(231), [255, 255, 255]);
        assert_eq!(indexed(232), [8, 8, 8]);
        assert_eq!(indexed(9), [0xff, 0, 0]);
        let options = SvgOptions {
            default_fg: Color::Rgb(1, 2, 3),
            default_bg: Color::Rgb(4, 5, 6),
            font_size: 10.0,
        };
        let mut buffer = Buffer::empty(Rect::new(0, 0, 4, 1));
        buffer.set_string(0, 0, "x", Style::new());
        let svg = buffer_to_svg_with(&buffer, "t", &options);
        assert!(svg.contains("fill=\"#010203\">x</text>"), "{svg}");
        assert!(svg.contains("fill=\"#040506\""));
        check_xml(&svg);
        let theme = Theme::default();
        assert_ne!(SvgOptions::from_theme(&theme).default_bg, Color::Reset);
    }

    #[test]
    fn control_characters_are_not_emitted() {
        assert_eq!(escape("a\u{1b}[0m\u{0}b"), "a [0m b");
    }
}

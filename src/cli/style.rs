//! Text output: aligned tables and optional colour (off when piped or with NO_COLOR).
//!
//! Every byte the text commands print goes through this module, and every piece of text
//! becomes a [`Span`] first, which passes the core's sanitiser
//! ([`crate::core::markup::sanitize`]): names, paths, titles, messages and file content reach the
//! terminal with control characters, escape sequences and bidi or invisible characters
//! shown as visible markers. The only escape sequences printed are the colours [`Style`]
//! adds. The commands may not print any other way (`clippy::print_stdout` and
//! `print_stderr` are denied under `src/cli/`); `--json` output is serde's, exact.
use std::borrow::Cow;
use std::io::{IsTerminal, Write};
use std::path::Path;

use unicode_width::UnicodeWidthStr;

use crate::core::markup::sanitize;

/// A run of text to print, already made safe for a terminal, with an optional colour.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    text: String,
    /// SGR parameters (`1`, `31` …) when colour is on.
    paint: Option<&'static str>,
}

impl Span {
    /// One line of text: every control character marked, line breaks included.
    pub fn line(text: &str) -> Span {
        Span {
            text: sanitize::line(text).into_owned(),
            paint: None,
        }
    }

    /// Text printed over several lines (file content): line feeds and tabs kept.
    pub fn lines(text: &str) -> Span {
        Span {
            text: sanitize::text(text).into_owned(),
            paint: None,
        }
    }

    /// A path: lossy for bytes that are not UTF-8, then sanitised.
    pub fn path(path: &Path) -> Span {
        Span {
            text: sanitize::path(path),
            paint: None,
        }
    }

    /// The text as printed without colour.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Display width in terminal cells.
    pub fn width(&self) -> usize {
        // Printable ASCII is one cell a byte; a table measures every cell twice.
        if self.text.bytes().all(|b| (b' '..=b'~').contains(&b)) {
            self.text.len()
        } else {
            UnicodeWidthStr::width(self.text.as_str())
        }
    }

    fn write_to(&self, out: &mut String) {
        match self.paint {
            Some(code) => {
                out.push_str("\x1b[");
                out.push_str(code);
                out.push('m');
                out.push_str(&self.text);
                out.push_str("\x1b[0m");
            }
            None => out.push_str(&self.text),
        }
    }
}

impl From<&str> for Span {
    fn from(text: &str) -> Span {
        Span::line(text)
    }
}

impl From<String> for Span {
    fn from(text: String) -> Span {
        Span::line(&text)
    }
}

impl From<&String> for Span {
    fn from(text: &String) -> Span {
        Span::line(text)
    }
}

impl From<Cow<'_, str>> for Span {
    fn from(text: Cow<'_, str>) -> Span {
        Span::line(&text)
    }
}

impl From<&Path> for Span {
    fn from(path: &Path) -> Span {
        Span::path(path)
    }
}

impl From<&std::path::PathBuf> for Span {
    fn from(path: &std::path::PathBuf) -> Span {
        Span::path(path)
    }
}

/// One printed line: spans side by side.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Line(Vec<Span>);

impl Line {
    /// Adds text (sanitised on the way), a span or a whole line at the end.
    pub fn append(mut self, piece: impl Into<Line>) -> Line {
        self.0.extend(piece.into().0);
        self
    }

    fn render(&self) -> String {
        let mut out = String::new();
        for span in &self.0 {
            span.write_to(&mut out);
        }
        out
    }
}

impl From<Span> for Line {
    fn from(span: Span) -> Line {
        Line(vec![span])
    }
}

impl From<Vec<Span>> for Line {
    fn from(spans: Vec<Span>) -> Line {
        Line(spans)
    }
}

/// Plain text becomes a line through [`Span::from`], so it is sanitised like any span.
macro_rules! line_from_text {
    ($($t:ty),*) => {
        $(impl From<$t> for Line {
            fn from(text: $t) -> Line {
                Line(vec![Span::from(text)])
            }
        })*
    };
}
line_from_text!(
    &str,
    String,
    &String,
    Cow<'_, str>,
    &Path,
    &std::path::PathBuf
);

/// `line![a, b, c]`: a [`Line`] of pieces, each a [`Span`], a [`Line`] or plain text
/// (sanitised on the way).
macro_rules! line {
    ($($piece:expr),* $(,)?) => {
        $crate::cli::style::Line::default()$(.append($piece))*
    };
}
pub(crate) use line;

pub(crate) fn write_out(mut target: impl Write, text: &str) {
    // A closed pipe (`mbank list | head`) ends the output, not the program with a panic.
    let _ = target.write_all(text.as_bytes());
}

/// Prints a line on stdout.
pub fn println(line: impl Into<Line>) {
    let mut text = line.into().render();
    text.push('\n');
    write_out(std::io::stdout().lock(), &text);
}

/// Writes a line to `target` as [`println`] prints it on stdout (for a caller writing many
/// lines through one buffer).
pub(crate) fn writeln_to(target: impl Write, line: impl Into<Line>) {
    let mut text = line.into().render();
    text.push('\n');
    write_out(target, &text);
}

/// Prints a line on stderr.
pub fn eprintln(line: impl Into<Line>) {
    let mut text = line.into().render();
    text.push('\n');
    write_out(std::io::stderr().lock(), &text);
}

/// Prints multi-line text (a file's content) on stdout: line breaks and tabs kept, every
/// other control marked; a newline is added when the text does not end with one.
pub fn print_text(text: &str) {
    if text.is_empty() {
        return;
    }
    let mut shown = sanitize::text(text).into_owned();
    if !shown.ends_with('\n') {
        shown.push('\n');
    }
    write_out(std::io::stdout().lock(), &shown);
}

#[derive(Debug, Clone, Copy)]
pub struct Style {
    pub color: bool,
}

impl Style {
    pub fn detect(no_color_flag: bool) -> Style {
        let no_color_env = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Style {
            color: !no_color_flag && !no_color_env && std::io::stdout().is_terminal(),
        }
    }

    fn paint(&self, code: &'static str, text: impl Into<Span>) -> Span {
        let mut span = text.into();
        if self.color {
            span.paint = Some(code);
        }
        span
    }

    pub fn bold(&self, text: impl Into<Span>) -> Span {
        self.paint("1", text)
    }
    pub fn dim(&self, text: impl Into<Span>) -> Span {
        self.paint("2", text)
    }
    pub fn red(&self, text: impl Into<Span>) -> Span {
        self.paint("31", text)
    }
    pub fn yellow(&self, text: impl Into<Span>) -> Span {
        self.paint("33", text)
    }
    pub fn green(&self, text: impl Into<Span>) -> Span {
        self.paint("32", text)
    }
    pub fn cyan(&self, text: impl Into<Span>) -> Span {
        self.paint("36", text)
    }

    /// Colours a status word by what it means: ok/fresh green, near/aging/warning
    /// yellow, over/stale/error red.
    pub fn status(&self, word: &str) -> Span {
        match word {
            "ok" | "fresh" | "clean" | "accepted" => self.green(word),
            "near" | "aging" | "warning" | "proposed" => self.yellow(word),
            "over" | "stale" | "error" | "superseded" | "deprecated" | "rejected" | "reverted" => {
                self.red(word)
            }
            _ => Span::line(word),
        }
    }
}

/// A span padded with spaces to `width` cells (left-aligned), for fixed columns.
pub fn pad(span: Span, width: usize) -> Line {
    let fill = width.saturating_sub(span.width());
    Line(vec![span, Span::line(&" ".repeat(fill))])
}

/// A table whose columns are padded to their widest cell; numeric columns align right.
/// A row may carry notes: full-width lines printed under it that never widen a column
/// (a long error message stays on its own line).
pub struct Table {
    header: Vec<Span>,
    rows: Vec<(Vec<Span>, Vec<Span>)>,
    right_aligned: Vec<bool>,
}

impl Table {
    pub fn new(header: &[&str]) -> Table {
        Table {
            header: header.iter().map(|h| Span::line(h)).collect(),
            rows: Vec::new(),
            right_aligned: vec![false; header.len()],
        }
    }

    pub fn right(mut self, columns: &[usize]) -> Table {
        for &c in columns {
            if let Some(slot) = self.right_aligned.get_mut(c) {
                *slot = true;
            }
        }
        self
    }

    pub fn row(&mut self, cells: Vec<Span>) {
        self.rows.push((cells, Vec::new()));
    }

    /// A full-width line under the last row, outside the columns.
    pub fn note(&mut self, note: impl Into<Span>) {
        if let Some((_, notes)) = self.rows.last_mut() {
            notes.push(note.into());
        }
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The table as text, colour codes included.
    pub fn render(&self, style: &Style) -> String {
        let columns = self.header.len();
        let mut widths = vec![0; columns];
        let cells = std::iter::once(&self.header).chain(self.rows.iter().map(|(cells, _)| cells));
        for row in cells {
            for (i, cell) in row.iter().enumerate().take(columns) {
                widths[i] = widths[i].max(cell.width());
            }
        }
        let mut out = String::new();
        let line = |cells: &[Span], out: &mut String| {
            let mut pending_spaces = 0;
            for (i, cell) in cells.iter().enumerate().take(columns) {
                if i > 0 {
                    pending_spaces += 2;
                }
                let pad = widths[i].saturating_sub(cell.width());
                if self.right_aligned[i] {
                    pending_spaces += pad;
                }
                // Trailing blanks are never printed: spaces wait for the next text.
                if !cell.text.is_empty() {
                    out.extend(std::iter::repeat_n(' ', pending_spaces));
                    pending_spaces = 0;
                    cell.write_to(out);
                }
                if !self.right_aligned[i] {
                    pending_spaces += pad;
                }
            }
            out.push('\n');
        };
        let header: Vec<Span> = self.header.iter().map(|h| style.bold(h.clone())).collect();
        line(&header, &mut out);
        for (row, notes) in &self.rows {
            line(row, &mut out);
            for note in notes {
                note.write_to(&mut out);
                out.push('\n');
            }
        }
        out
    }

    /// Prints the table on stdout.
    pub fn print(&self, style: &Style) {
        write_out(std::io::stdout().lock(), &self.render(style));
    }
}

/// `12345` → `12,345`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_align_and_ignore_colour_codes() {
        let style = Style { color: true };
        let mut table = Table::new(&["name", "tokens"]).right(&[1]);
        table.row(vec![style.red("a"), "5".into()]);
        table.row(vec!["long-name".into(), "1,234".into()]);
        let plain = Table {
            header: table.header.clone(),
            rows: table.rows.clone(),
            right_aligned: table.right_aligned.clone(),
        }
        .render(&Style { color: false });
        let lines: Vec<&str> = plain.lines().collect();
        assert_eq!(lines[0], "name       tokens");
        assert_eq!(lines[2], "long-name   1,234");
        assert!(lines[1].ends_with("     5"));
    }

    #[test]
    fn cells_are_sanitised_and_notes_never_widen_a_column() {
        let style = Style { color: false };
        let mut table = Table::new(&["file", "tokens"]).right(&[1]);
        table.row(vec!["evil\u{1b}[2J.md".into(), "5".into()]);
        table.note(format!("  ↳ {}", "x".repeat(300)));
        table.row(vec!["ok.md".into(), "12".into()]);
        let text = table.render(&style);
        assert!(!text.contains('\u{1b}'), "{text:?}");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[1], "evil␛[2J.md       5");
        assert_eq!(lines[2].chars().count(), 304);
        assert_eq!(lines[3], "ok.md            12");
    }

    #[test]
    fn colour_codes_wrap_sanitised_text_only() {
        let style = Style { color: true };
        let line = line![
            style.bold("a\u{9b}b"),
            " ",
            Span::path(Path::new("x\u{202E}y"))
        ];
        assert_eq!(line.render(), "\x1b[1ma⟨U+009B⟩b\x1b[0m x⟨U+202E⟩y");
        assert_eq!(Span::lines("a\nb\u{7}").text(), "a\nb␇");
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
    }
}

//! Text output: aligned tables and optional colour (off when piped or with NO_COLOR).
use std::io::IsTerminal;

use unicode_width::UnicodeWidthStr;

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

    fn paint(&self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    pub fn bold(&self, text: &str) -> String {
        self.paint("1", text)
    }
    pub fn dim(&self, text: &str) -> String {
        self.paint("2", text)
    }
    pub fn red(&self, text: &str) -> String {
        self.paint("31", text)
    }
    pub fn yellow(&self, text: &str) -> String {
        self.paint("33", text)
    }
    pub fn green(&self, text: &str) -> String {
        self.paint("32", text)
    }
    pub fn cyan(&self, text: &str) -> String {
        self.paint("36", text)
    }

    /// Colours a status word by what it means: ok/fresh green, near/aging/warning
    /// yellow, over/stale/error red.
    pub fn status(&self, word: &str) -> String {
        match word {
            "ok" | "fresh" | "clean" | "accepted" => self.green(word),
            "near" | "aging" | "warning" | "proposed" => self.yellow(word),
            "over" | "stale" | "error" | "superseded" | "deprecated" | "rejected" => self.red(word),
            _ => word.to_string(),
        }
    }
}

/// Strips ANSI colour codes, for width computations.
fn visible_width(text: &str) -> usize {
    let mut width = 0;
    let mut rest = text;
    while let Some(escape) = rest.find('\x1b') {
        width += UnicodeWidthStr::width(&rest[..escape]);
        rest = rest[escape..]
            .find('m')
            .map_or("", |end| &rest[escape + end + 1..]);
    }
    width + UnicodeWidthStr::width(rest)
}

/// A table whose columns are padded to their widest cell; numeric columns align right.
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
    right_aligned: Vec<bool>,
}

impl Table {
    pub fn new(header: &[&str]) -> Table {
        Table {
            header: header.iter().map(|h| h.to_string()).collect(),
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

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    pub fn render(&self, style: &Style) -> String {
        let columns = self.header.len();
        let mut widths = vec![0; columns];
        for row in std::iter::once(&self.header).chain(&self.rows) {
            for (i, cell) in row.iter().enumerate().take(columns) {
                widths[i] = widths[i].max(visible_width(cell));
            }
        }
        let mut out = String::new();
        let line = |cells: &[String], out: &mut String| {
            let start = out.len();
            for (i, cell) in cells.iter().enumerate().take(columns) {
                if i > 0 {
                    out.push_str("  ");
                }
                let pad = widths[i].saturating_sub(visible_width(cell));
                let last = i + 1 == columns;
                if self.right_aligned[i] {
                    out.extend(std::iter::repeat_n(' ', pad));
                    out.push_str(cell);
                } else {
                    out.push_str(cell);
                    if !last {
                        out.extend(std::iter::repeat_n(' ', pad));
                    }
                }
            }
            let kept = start + out[start..].trim_end().len();
            out.truncate(kept);
            out.push('\n');
        };
        let header: Vec<String> = self.header.iter().map(|h| style.bold(h)).collect();
        line(&header, &mut out);
        for row in &self.rows {
            line(row, &mut out);
        }
        out
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
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1234567), "1,234,567");
    }
}

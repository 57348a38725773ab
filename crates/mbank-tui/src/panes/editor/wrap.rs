//! Columns on screen, and soft wrap: how a line breaks into screen rows at a width.
//!
//! Only the lines on screen (and the cursor's) are ever wrapped, and each once per
//! buffer version and width (`WrapCache`), so a 1.4 MB buffer costs what its visible
//! lines cost; a 500 KB line is wrapped in one pass over it.
use std::collections::HashMap;

use unicode_width::UnicodeWidthChar;

use mbank_core::markup::sanitize;

/// Cells a character takes on screen: four for a tab, one for a C0 control (its Control
/// Pictures glyph), the width of its named marker for a C1 control, bidi or invisible
/// character (`⟨U+202E⟩`, as the preview names it; [`stand_in`]).
#[inline]
pub fn cells(c: char) -> usize {
    // Most text is printable ASCII: one cell, no table lookups (a 500 KB line is walked
    // for the cursor's column on every frame), and inlined into those walks.
    if (' '..='~').contains(&c) {
        1
    } else if c == '\t' {
        4
    } else {
        other_cells(c)
    }
}

/// [`cells`] for the rest: a stood-in character's marker, else its width.
fn other_cells(c: char) -> usize {
    match stand_in(c) {
        Some(shown) => shown.chars().count(),
        None => c.width().unwrap_or(0),
    }
}

/// What the editor draws for a character the terminal must not get raw (the buffer keeps
/// the character): a C0 control's one-cell glyph (`␛`), else its marker (`⟨U+202E⟩`).
/// Tabs are not stood in for: they are spaces on screen.
pub fn stand_in(c: char) -> Option<std::borrow::Cow<'static, str>> {
    let glyph = sanitize::glyph(c)?;
    if c == '\t' {
        return None;
    }
    if glyph == '\u{FFFD}' {
        Some(sanitize::marker(c).into())
    } else {
        Some(glyph.to_string().into())
    }
}

/// Display column of the `chars`-th character of `text`.
pub(crate) fn display_column(text: &str, chars: usize) -> usize {
    text.chars().take(chars).map(cells).sum()
}

/// Where display column `column` falls in `text`: the byte offset of the character
/// there and the display column that character starts at (at most `column`).
pub(crate) fn byte_at_column(text: &str, column: usize) -> (usize, usize) {
    let mut used = 0;
    for (byte, c) in text.char_indices() {
        let w = cells(c);
        if used + w > column {
            return (byte, used);
        }
        used += w;
    }
    (text.len(), used)
}

/// The character index at display column `column` of `text`.
pub(crate) fn char_at_column(text: &str, column: usize) -> usize {
    let mut used = 0;
    for (index, c) in text.chars().enumerate() {
        let w = cells(c);
        if used + w > column {
            return index;
        }
        used += w;
    }
    text.chars().count()
}

/// One screen row of a wrapped line: its characters `start..end` and their bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WrapSegment {
    pub start: usize,
    pub end: usize,
    pub start_byte: usize,
    pub end_byte: usize,
}

/// Cells of the word `text` starts with (up to its first blank).
fn word_cells(text: &str) -> usize {
    text.chars()
        .take_while(|c| *c != ' ' && *c != '\t')
        .map(cells)
        .sum()
}

/// Whether a line may break just before `c`: a wide (CJK) character, which needs no
/// blank to be broken before, unless it is punctuation that closes a phrase (`。`, `」`).
fn breaks_before(c: char) -> bool {
    cells(c) == 2 && !"、。，．：；！？）」』】〉》〕］｝ー…・".contains(c)
}

/// The rows `text` takes at `width` cells: breaks after a blank (or between two CJK
/// characters) when the next word does not fit, inside a word only when the word alone
/// is wider than a row, or when the break would leave a row of nothing but the indent
/// and markup (`# `, `  - `). Spaces at a break stay at the end of the row (past the
/// edge if need be). Always at least one row (an empty line is one empty row).
pub fn wrap(text: &str, width: usize) -> Vec<WrapSegment> {
    let width = width.max(1);
    let mut rows = Vec::new();
    let mut row = WrapSegment::default();
    let mut used = 0;
    // Where the row may break: just after the last blank (or before the last CJK
    // character), the cells since then, and whether the row holds words before it.
    let mut after_blank: Option<(usize, usize, bool)> = None;
    let mut since_blank = 0;
    // The row so far holds a letter, not just the indent and markup.
    let mut has_words = false;
    let mut index = 0;
    for (byte, c) in text.char_indices() {
        let w = cells(c);
        if breaks_before(c) && index > row.start {
            after_blank = Some((index, byte, has_words));
            since_blank = 0;
        }
        // A space that does not fit hangs past the edge: rows never start with one.
        if used + w > width && index > row.start && c != ' ' {
            // Before the break there may be only the indent and markup (`# `, `- `):
            // that row is kept only when the word after it fits a row of its own (it
            // would be cut anyway otherwise, so it fills this row instead).
            let breaks_at_blank = |&(start, _, has_words): &(usize, usize, bool)| {
                start > row.start && (has_words || since_blank + word_cells(&text[byte..]) <= width)
            };
            match after_blank.filter(breaks_at_blank) {
                Some((start, start_byte, _)) => {
                    rows.push(WrapSegment {
                        end: start,
                        end_byte: start_byte,
                        ..row
                    });
                    row = WrapSegment {
                        start,
                        start_byte,
                        ..WrapSegment::default()
                    };
                    used = since_blank;
                    has_words = since_blank > 0;
                }
                _ => {
                    rows.push(WrapSegment {
                        end: index,
                        end_byte: byte,
                        ..row
                    });
                    row = WrapSegment {
                        start: index,
                        start_byte: byte,
                        ..WrapSegment::default()
                    };
                    used = 0;
                    has_words = false;
                }
            }
            after_blank = None;
            since_blank = 0;
        }
        used += w;
        index += 1;
        if c.is_alphabetic() {
            has_words = true;
        }
        if c == ' ' || c == '\t' {
            after_blank = Some((index, byte + c.len_utf8(), has_words));
            since_blank = 0;
        } else {
            since_blank += w;
        }
    }
    rows.push(WrapSegment {
        end: index,
        end_byte: text.len(),
        ..row
    });
    rows
}

/// Which row of `rows` shows character `col`: a row holds `start..end`, the last one
/// its end too (the cursor after the line's last character).
pub fn row_of(rows: &[WrapSegment], col: usize) -> usize {
    rows.partition_point(|r| r.start <= col).saturating_sub(1)
}

/// The character of row `segment` of `text` nearest display column `column` in it; on
/// a row that is not the line's last, never past its last character (the next row
/// starts there).
pub(crate) fn col_in_row(text: &str, rows: &[WrapSegment], segment: usize, column: usize) -> usize {
    let row = rows[segment];
    let within = char_at_column(&text[row.start_byte..row.end_byte], column);
    let col = row.start + within;
    if segment + 1 < rows.len() {
        col.min(row.end.saturating_sub(1)).max(row.start)
    } else {
        col.min(row.end)
    }
}

/// Cells from the start of its row to character `col` of `text`.
pub(crate) fn column_in_row(text: &str, row: WrapSegment, col: usize) -> usize {
    text[row.start_byte..row.end_byte]
        .chars()
        .take(col.saturating_sub(row.start))
        .map(cells)
        .sum()
}

/// Wrapped lines of one buffer version at one width.
#[derive(Debug, Default)]
pub(crate) struct WrapCache {
    /// (document, version, width) the rows are for.
    key: (u64, u64, usize),
    rows: HashMap<usize, Vec<WrapSegment>>,
}

impl WrapCache {
    /// The rows of line `index` (text `text`) of document version `key`.
    pub fn rows(&mut self, key: (u64, u64, usize), index: usize, text: &str) -> &[WrapSegment] {
        if self.key != key || self.rows.len() > 4_096 {
            self.rows.clear();
            self.key = key;
        }
        let rows = self.rows.entry(index).or_insert_with(|| wrap(text, key.2));
        // A line changed without a new version is wrapped again, never sliced wrong.
        if rows.last().is_none_or(|r| r.end_byte != text.len()) {
            *rows = wrap(text, key.2);
        }
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(text: &str, width: usize) -> Vec<&str> {
        wrap(text, width)
            .iter()
            .map(|r| &text[r.start_byte..r.end_byte])
            .collect()
    }

    #[test]
    fn lines_break_after_blanks_and_inside_long_words_only() {
        assert_eq!(shown("", 10), [""]);
        assert_eq!(shown("short", 10), ["short"]);
        assert_eq!(
            shown("the quick brown fox jumps", 10),
            ["the quick ", "brown fox ", "jumps"]
        );
        assert_eq!(shown("abcdefghijkl", 5), ["abcde", "fghij", "kl"]);
        assert_eq!(shown("ab abcdefghijkl", 5), ["ab ", "abcde", "fghij", "kl"]);
        // Exactly full rows do not add an empty one; the space at a break hangs.
        assert_eq!(shown("abcde", 5), ["abcde"]);
        assert_eq!(shown("abcde fgh", 5), ["abcde ", "fgh"]);
    }

    #[test]
    fn wide_characters_and_tabs_take_their_cells() {
        assert_eq!(shown("日本語です", 4), ["日本", "語で", "す"]);
        // The tab is a blank: the word after it moves to the next row, where it fits;
        // a word too long for any row fills the indent's row instead of leaving it bare.
        assert_eq!(shown("\tab", 5), ["\t", "ab"]);
        assert_eq!(shown("\tabcdef", 5), ["\ta", "bcdef"]);
        assert_eq!(
            shown("# Project Patterns", 8),
            ["# ", "Project ", "Patterns"]
        );
        assert_eq!(
            shown("# Supercalifragilistic", 10),
            ["# Supercal", "ifragilist", "ic"]
        );
        assert_eq!(shown("\ta", 5), ["\ta"]);
        // A character wider than the row still gets a row of its own.
        assert_eq!(shown("日本", 1), ["日", "本"]);
    }

    #[test]
    fn cjk_text_breaks_between_characters_and_never_leaves_the_markup_alone() {
        // A heading or list item of CJK text: the `#` or the indent keeps its text.
        assert_eq!(
            shown("# 日本語のテキストです", 10),
            ["# 日本語の", "テキストで", "す"]
        );
        assert_eq!(
            shown("  - 中文的记忆文件内容", 12),
            ["  - 中文的记", "忆文件内容"]
        );
        // Closing punctuation stays with the character before it.
        assert_eq!(shown("日本語。です", 6), ["日本", "語。で", "す"]);
        // Latin words still break at blanks.
        assert_eq!(shown("# the heading", 8), ["# the ", "heading"]);
        for (text, width) in [
            ("# 日本語のテキストです", 10),
            ("    日本語のテキストです", 9),
            ("> 引用された長い中国語の文章です", 11),
        ] {
            for row in shown(text, width) {
                assert!(
                    row.chars().any(char::is_alphabetic),
                    "{text:?} at {width}: a row of {row:?}"
                );
            }
        }
    }

    #[test]
    fn rows_cover_every_character_once() {
        let text = "word ".repeat(1_000) + "日本語 tail";
        for width in [1, 3, 7, 80] {
            let rows = wrap(&text, width);
            assert_eq!(rows[0].start, 0);
            for pair in rows.windows(2) {
                assert_eq!(pair[0].end, pair[1].start);
                assert_eq!(pair[0].end_byte, pair[1].start_byte);
            }
            assert_eq!(rows.last().unwrap().end, text.chars().count());
            for row in &rows {
                let shown = text[row.start_byte..row.end_byte].trim_end_matches(' ');
                let cells: usize = shown.chars().map(cells).sum();
                assert!(cells <= width.max(2), "{width}: {cells}");
            }
        }
    }

    #[test]
    fn the_cursor_row_and_column_round_trip() {
        let text = "the quick brown fox";
        let rows = wrap(text, 10);
        assert_eq!(row_of(&rows, 0), 0);
        assert_eq!(row_of(&rows, 9), 0);
        assert_eq!(row_of(&rows, 10), 1, "a row's end is the next row's start");
        assert_eq!(row_of(&rows, 19), 1, "the line's end is on its last row");
        assert_eq!(column_in_row(text, rows[1], 14), 4);
        assert_eq!(col_in_row(text, &rows, 1, 4), 14);
        assert_eq!(col_in_row(text, &rows, 0, 40), 9, "not past the row");
        assert_eq!(col_in_row(text, &rows, 1, 40), 19, "the line's end");
    }

    #[test]
    fn the_cache_wraps_again_for_a_new_version_or_width() {
        let mut cache = WrapCache::default();
        assert_eq!(cache.rows((1, 1, 4), 0, "ab cd").len(), 2);
        assert_eq!(cache.rows((1, 1, 10), 0, "ab cd").len(), 1);
        assert_eq!(cache.rows((1, 2, 10), 0, "ab cd ef gh ij").len(), 2);
        // Same key, other text: never sliced with stale rows.
        assert_eq!(cache.rows((1, 2, 10), 0, "x").len(), 1);
    }
}

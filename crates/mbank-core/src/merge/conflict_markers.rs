//! Unresolved merge-conflict markers in a text: lines that start with `<<<<<<<`,
//! `|||||||` (diff3's base), `=======` or `>>>>>>>`, as git, the TUI's three-way merge and
//! most merge tools write them. Saving such a text is almost always a mistake (an agent
//! would read both sides as memory), so the editor asks first, and a check can report it.
//!
//! A marker is seven characters at the very start of a line, then the end of the line or
//! a space (the opener and closer usually name their side). `=======` alone is also a
//! setext heading underline in markdown, so it counts only inside an opened conflict.
//! A conflict is whole only with its three parts in order; a lone opener or closer is a
//! stray marker, and the search-and-replace blocks agents write are neither.

/// What [`find`] found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Markers {
    /// Conflicts opened (`<<<<<<<` lines).
    pub conflicts: usize,
    /// Marker lines of any kind.
    pub lines: usize,
    /// The 1-based line of the first marker.
    pub first_line: Option<usize>,
}

impl Markers {
    pub fn is_empty(&self) -> bool {
        self.lines == 0
    }

    /// "2 unresolved conflicts", or "1 stray conflict marker" when no conflict is opened.
    pub fn describe(&self) -> String {
        let plural = |n: usize, word: &str| {
            if n == 1 {
                format!("1 {word}")
            } else {
                format!("{n} {word}s")
            }
        };
        if self.conflicts > 0 {
            plural(self.conflicts, "unresolved conflict")
        } else {
            plural(self.lines, "stray conflict marker")
        }
    }
}

/// A marker line's kind (its repeated character) and the label after it.
fn marker_of(line: &str) -> Option<(u8, &str)> {
    let bytes = line.as_bytes();
    let first = *bytes.first()?;
    if !matches!(first, b'<' | b'|' | b'=' | b'>') {
        return None;
    }
    if bytes.len() < 7 || bytes[..7].iter().any(|&b| b != first) {
        return None;
    }
    let rest = &line[7..];
    let rest = rest.strip_suffix('\r').unwrap_or(rest);
    let ends_right = match first {
        // The separator stands alone (trailing blanks tolerated).
        b'=' => rest.trim().is_empty(),
        _ => rest.is_empty() || rest.starts_with(' ') || rest.starts_with('\t'),
    };
    ends_right.then_some((first, rest.trim()))
}

/// The labels of the search-and-replace edit blocks coding agents write (Aider, Cline,
/// Roo Code): `<<<<<<< SEARCH`, `=======`, `>>>>>>> REPLACE`. Such a block in memory
/// shows the edit format; git never labels a side so.
fn is_edit_label(label: &str) -> bool {
    label.eq_ignore_ascii_case("search") || label.eq_ignore_ascii_case("replace")
}

/// A conflict opened and not yet closed.
struct Opened {
    first_line: usize,
    /// Its marker lines so far.
    lines: usize,
    /// Whether its `=======` was seen: only then does a closer complete it.
    separated: bool,
    /// An agent's edit block, not a conflict.
    edit: bool,
}

impl Markers {
    fn count(&mut self, lines: usize, first_line: usize) {
        self.lines += lines;
        self.first_line = Some(self.first_line.map_or(first_line, |f| f.min(first_line)));
    }

    /// An opener's lines that no closer completed are stray markers.
    fn leave(&mut self, opened: Option<Opened>) {
        if let Some(opened) = opened.filter(|o| !o.edit) {
            self.count(opened.lines, opened.first_line);
        }
    }
}

/// The conflict markers in `lines`. A conflict is an opener, a separator and a closer in
/// that order; other marker lines are stray.
pub fn find_in_lines<'a>(lines: impl IntoIterator<Item = &'a str>) -> Markers {
    let mut markers = Markers::default();
    let mut open: Option<Opened> = None;
    for (index, line) in lines.into_iter().enumerate() {
        let number = index + 1;
        match marker_of(line) {
            Some((b'<', label)) => {
                markers.leave(open.take());
                open = Some(Opened {
                    first_line: number,
                    lines: 1,
                    separated: false,
                    edit: is_edit_label(label),
                });
            }
            Some((b'|', _)) => match open.as_mut() {
                Some(opened) => opened.lines += 1,
                None => markers.count(1, number),
            },
            Some((b'=', _)) => {
                if let Some(opened) = open.as_mut() {
                    opened.lines += 1;
                    opened.separated = true;
                }
            }
            Some((b'>', label)) => match open.take() {
                Some(opened) if opened.edit => {}
                Some(opened) if opened.separated => {
                    markers.conflicts += 1;
                    markers.count(opened.lines + 1, opened.first_line);
                }
                Some(opened) => {
                    markers.count(opened.lines + 1, opened.first_line);
                }
                None if is_edit_label(label) => {}
                None => markers.count(1, number),
            },
            _ => {}
        }
    }
    markers.leave(open);
    markers
}

/// The conflict markers in `text`.
pub fn find(text: &str) -> Markers {
    find_in_lines(text.lines())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_conflict_is_counted_once_with_its_three_lines() {
        let text = "# Notes\n\n<<<<<<< mine (your unsaved edits)\nA\n=======\nB\n>>>>>>> theirs (on disk now)\nend\n";
        assert_eq!(
            find(text),
            Markers {
                conflicts: 1,
                lines: 3,
                first_line: Some(3)
            }
        );
        assert_eq!(find(text).describe(), "1 unresolved conflict");
    }

    #[test]
    fn diff3_bases_and_crlf_count_and_two_conflicts_are_two() {
        let text = "<<<<<<< HEAD\r\na\r\n||||||| base\r\no\r\n=======\r\nb\r\n>>>>>>> other\r\n<<<<<<<\n=======\n>>>>>>>\n";
        let markers = find(text);
        assert_eq!((markers.conflicts, markers.lines), (2, 7));
        assert_eq!(markers.describe(), "2 unresolved conflicts");
    }

    #[test]
    fn markdown_that_only_looks_alike_is_not_a_marker() {
        // A setext heading, a longer rule, an indented or mid-line marker, a quote.
        let text = "Title\n=======\n\n========\n  <<<<<<< indented\ntext <<<<<<< here\n> quoted\n<<<<<<<<< nine\n>>>>>>>x\n";
        assert!(find(text).is_empty(), "{:?}", find(text));
    }

    #[test]
    fn a_stray_closer_is_still_reported() {
        let markers = find("a\n>>>>>>> theirs\n");
        assert_eq!((markers.conflicts, markers.lines), (0, 1));
        assert_eq!(markers.describe(), "1 stray conflict marker");
    }

    #[test]
    fn an_opener_with_no_separator_and_closer_is_no_conflict() {
        let markers = find("a\n<<<<<<< HEAD\nb\n");
        assert_eq!(
            markers,
            Markers {
                conflicts: 0,
                lines: 1,
                first_line: Some(2)
            }
        );
        // Closed without its separator: two stray markers, not a conflict.
        let markers = find("<<<<<<< HEAD\na\n>>>>>>> other\n");
        assert_eq!((markers.conflicts, markers.lines), (0, 2));
        // A second opener leaves the first one stray.
        let markers = find("<<<<<<< a\n<<<<<<< b\nx\n=======\ny\n>>>>>>> c\n");
        assert_eq!(
            (markers.conflicts, markers.lines, markers.first_line),
            (1, 4, Some(1))
        );
    }

    #[test]
    fn an_agents_search_and_replace_block_is_no_conflict() {
        let text = "Edit like this:\n\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n";
        assert!(find(text).is_empty(), "{:?}", find(text));
        // Quoted alone from an agent's error message.
        assert!(find("Expected: format\n<<<<<<< SEARCH\n:start_line: 3\n").is_empty());
    }
}

//! Unresolved merge-conflict markers in a text: lines that start with `<<<<<<<`,
//! `|||||||` (diff3's base), `=======` or `>>>>>>>`, as git, the TUI's three-way merge and
//! most merge tools write them. Saving such a text is almost always a mistake (an agent
//! would read both sides as memory), so the editor asks first, and a check can report it.
//!
//! A marker is seven characters at the very start of a line, then the end of the line or
//! a space (the opener and closer usually name their side). `=======` alone is also a
//! setext heading underline in markdown, so it counts only inside an opened conflict.

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

fn marker_of(line: &str) -> Option<u8> {
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
    ends_right.then_some(first)
}

/// The conflict markers in `lines`.
pub fn find_in_lines<'a>(lines: impl IntoIterator<Item = &'a str>) -> Markers {
    let mut markers = Markers::default();
    let mut open = false;
    for (index, line) in lines.into_iter().enumerate() {
        let counted = match marker_of(line) {
            Some(b'<') => {
                markers.conflicts += 1;
                open = true;
                true
            }
            Some(b'>') => {
                open = false;
                true
            }
            Some(b'|') => true,
            Some(b'=') => open,
            _ => false,
        };
        if counted {
            markers.lines += 1;
            markers.first_line.get_or_insert(index + 1);
        }
    }
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
}

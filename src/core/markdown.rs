//! Small markdown facts every part of the core needs: YAML frontmatter, ConKeeper
//! `<private>` blocks, code fences and headings. Lenient by design: real banks are messy.
//! Every function here is a line scan, linear in the text (memory files are read up to
//! `text::MAX_READ_BYTES`); none nests, so there is no depth to limit. The frontmatter's
//! YAML is parsed elsewhere, within `limits::FRONTMATTER`.

/// YAML frontmatter at the very top of a file, between `---` lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frontmatter<'a> {
    /// The YAML between the fences.
    pub yaml: &'a str,
    /// 1-based line of the first YAML line (the line after the opening `---`).
    pub first_line: usize,
    /// Byte offset where the body starts.
    pub body_start: usize,
}

/// Finds frontmatter; `None` when the file has none or the block is never closed.
pub fn frontmatter(text: &str) -> Option<Frontmatter<'_>> {
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))?;
    let open_len = text.len() - rest.len();
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            return Some(Frontmatter {
                yaml: &rest[..offset],
                first_line: 2,
                body_start: open_len + offset + line.len(),
            });
        }
        offset += line.len();
    }
    None
}

/// True when the text opens with `---` but never closes its frontmatter.
pub fn has_unclosed_frontmatter(text: &str) -> bool {
    (text.starts_with("---\n") || text.starts_with("---\r\n")) && frontmatter(text).is_none()
}

/// `private: true` in the frontmatter hides the whole file from automation (the ConKeeper schema).
pub fn is_private_file(text: &str) -> bool {
    frontmatter(text).is_some_and(|fm| {
        fm.yaml.lines().any(|l| {
            let l = l.trim();
            l.strip_prefix("private:").is_some_and(|v| {
                v.trim()
                    .trim_matches(['"', '\''])
                    .eq_ignore_ascii_case("true")
            })
        })
    })
}

/// A `<private>` block by 1-based line numbers; `end` is `None` when never closed,
/// in which case it hides everything to the end of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrivateBlock {
    pub start: usize,
    pub end: Option<usize>,
}

fn is_open_tag(line: &str) -> bool {
    line.trim() == "<private>"
}

fn is_close_tag(line: &str) -> bool {
    line.trim() == "</private>"
}

/// Every `<private>` block. Tags count only on their own lines; nesting is not supported,
/// so an inner `<private>` is plain content (the ConKeeper schema, "Edge cases").
pub fn private_blocks(text: &str) -> Vec<PrivateBlock> {
    let mut blocks = Vec::new();
    let mut open: Option<usize> = None;
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        match open {
            None if is_open_tag(line) => open = Some(number),
            Some(start) if is_close_tag(line) => {
                blocks.push(PrivateBlock {
                    start,
                    end: Some(number),
                });
                open = None;
            }
            _ => {}
        }
    }
    if let Some(start) = open {
        blocks.push(PrivateBlock { start, end: None });
    }
    blocks
}

/// Splits text into what automation loads and what `<private>` blocks hide.
/// The tag lines themselves are dropped from both.
pub fn split_private(text: &str) -> (String, String) {
    let mut loaded = String::with_capacity(text.len());
    let mut hidden = String::new();
    let mut inside = false;
    for line in text.split_inclusive('\n') {
        if !inside && is_open_tag(line) {
            inside = true;
        } else if inside && is_close_tag(line) {
            inside = false;
        } else if inside {
            hidden.push_str(line);
        } else {
            loaded.push_str(line);
        }
    }
    (loaded, hidden)
}

/// Line ranges (1-based, inclusive) inside fenced code blocks (``` or ~~~).
pub fn fenced_lines(text: &str) -> Vec<(usize, usize)> {
    let mut ranges = Vec::new();
    let mut open: Option<(usize, char, usize)> = None;
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        // Most lines start with a character that cannot open or close a fence.
        if line
            .as_bytes()
            .first()
            .is_some_and(|&b| b.is_ascii_graphic() && b != b'`' && b != b'~')
        {
            continue;
        }
        let trimmed = line.trim_start();
        let fence_char = trimmed.chars().next();
        let run = trimmed
            .chars()
            .take_while(|c| Some(*c) == fence_char)
            .count();
        let is_fence = matches!(fence_char, Some('`') | Some('~')) && run >= 3;
        match open {
            None if is_fence => open = Some((number, fence_char.unwrap_or('`'), run)),
            Some((start, ch, len))
                if is_fence
                    && fence_char == Some(ch)
                    && run >= len
                    && trimmed[run..].trim().is_empty() =>
            {
                ranges.push((start, number));
                open = None;
            }
            _ => {}
        }
    }
    if let Some((start, _, _)) = open {
        ranges.push((start, text.lines().count().max(start)));
    }
    ranges
}

/// ATX heading on a line: its level and its text with `#`s, bold markers and closing
/// hashes removed.
pub fn heading(line: &str) -> Option<(usize, String)> {
    let trimmed = line.trim_start();
    if line.len() - trimmed.len() > 3 {
        return None;
    }
    let level = trimmed.chars().take_while(|&c| c == '#').count();
    if level == 0 || level > 6 {
        return None;
    }
    let rest = &trimmed[level..];
    if !rest.is_empty() && !rest.starts_with([' ', '\t']) {
        return None;
    }
    let text = rest.trim().trim_end_matches('#').trim();
    let text = text
        .strip_prefix("**")
        .and_then(|t| t.strip_suffix("**"))
        .unwrap_or(text);
    Some((level, text.trim().to_string()))
}

/// Whether the file has at least one heading outside code fences. One pass over the
/// lines and the (ordered) fence ranges together: a file of 100k fences must not cost
/// lines × fences steps.
pub fn has_heading(text: &str) -> bool {
    let fences = fenced_lines(text);
    let mut next_fence = 0;
    text.lines().enumerate().any(|(i, l)| {
        let number = i + 1;
        while fences.get(next_fence).is_some_and(|&(_, end)| end < number) {
            next_fence += 1;
        }
        let fenced = fences
            .get(next_fence)
            .is_some_and(|&(start, _)| start <= number);
        !fenced && heading(l).is_some()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frontmatter_is_found_and_private_flag_read() {
        let text = "---\nprivate: true\ntitle: x\n---\n# Body\n";
        let fm = frontmatter(text).unwrap();
        assert_eq!(fm.yaml, "private: true\ntitle: x\n");
        assert_eq!(&text[fm.body_start..], "# Body\n");
        assert!(is_private_file(text));
        assert!(!is_private_file("# no frontmatter\nprivate: true\n"));
        assert!(has_unclosed_frontmatter("---\na: b\n# never closed\n"));
    }

    #[test]
    fn private_blocks_split_and_unclosed_hides_to_end() {
        let text = "a\n<private>\nsecret\n</private>\nb\n<private>\nrest\n";
        assert_eq!(
            private_blocks(text),
            vec![
                PrivateBlock {
                    start: 2,
                    end: Some(4)
                },
                PrivateBlock {
                    start: 6,
                    end: None
                }
            ]
        );
        let (loaded, hidden) = split_private(text);
        assert_eq!(loaded, "a\nb\n");
        assert_eq!(hidden, "secret\nrest\n");
    }

    #[test]
    fn nested_private_tag_is_plain_content() {
        let text = "<private>\n<private>\nx\n</private>\ny\n";
        let (loaded, hidden) = split_private(text);
        assert_eq!(hidden, "<private>\nx\n");
        assert_eq!(loaded, "y\n");
    }

    #[test]
    fn headings_after_many_fences_are_found_in_linear_time() {
        // 50k fenced blocks, then 100k plain lines: lines × fences would be 5·10⁹ steps.
        let text = "```\nx\n```\n".repeat(50_000) + &"text\n".repeat(100_000);
        let started = std::time::Instant::now();
        assert!(!has_heading(&text));
        assert!(has_heading(&(text + "# Late heading\n")));
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
    }

    #[test]
    fn fences_and_headings() {
        let text = "# Title\n```md\n# not a heading\n```\n## **Bold** ##\n";
        assert_eq!(fenced_lines(text), vec![(2, 4)]);
        assert_eq!(heading("## **Bold** ##"), Some((2, "Bold".into())));
        assert_eq!(heading("#hashtag"), None);
        assert!(has_heading(text));
        assert!(!has_heading("```\n# x\n```\n"));
    }
}

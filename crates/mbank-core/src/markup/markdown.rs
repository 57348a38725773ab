//! Small markdown facts every part of the core needs: YAML frontmatter, ConKeeper
//! `<private>` blocks, code and prose, and headings. Lenient by design: real banks are
//! messy. What is code and what is prose is CommonMark's answer (pulldown-cmark, linear in
//! the text), decided here only, and asked only of text that holds a code marker; the rest
//! are line scans, linear in the text (memory files are read up to `text::MAX_READ_BYTES`).
//! The frontmatter's YAML is parsed elsewhere, within `limits::FRONTMATTER`.
use std::borrow::Cow;
use std::ops::Range;

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
pub(crate) fn has_unclosed_frontmatter(text: &str) -> bool {
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

/// Whether a line could hold an indented code block: its leading run of blanks and
/// block-quote markers has a tab or four spaces in a row.
fn has_indented_line(text: &str) -> bool {
    first_indented_line(text).is_some()
}

/// Where the first line of [`has_indented_line`] starts.
fn first_indented_line(text: &str) -> Option<usize> {
    let mut start = 0;
    for line in text.split('\n') {
        let mut spaces = 0;
        for &b in line.as_bytes() {
            match b {
                b' ' => {
                    spaces += 1;
                    if spaces >= 4 {
                        return Some(start);
                    }
                }
                b'\t' => return Some(start),
                b'>' => spaces = 0,
                _ => break,
            }
        }
        start += line.len() + 1;
    }
    None
}

/// Whether a text may hold a code block (fenced or indented): checked before parsing, so
/// text without one costs a byte scan.
fn may_hold_code_block(text: &str) -> bool {
    // memchr's searcher: `str::contains` fell back to a slow path on these short needles,
    // and this runs for every file validated, several times.
    let bytes = text.as_bytes();
    memchr::memmem::find(bytes, b"```").is_some()
        || memchr::memmem::find(bytes, b"~~~").is_some()
        || has_indented_line(text)
}

/// Whether a text may hold anything that is not prose (see [`non_prose_ranges`]).
pub(crate) fn may_hold_non_prose(text: &str) -> bool {
    text.contains('`') || text.contains("~~~") || text.contains("<!--") || has_indented_line(text)
}

/// Where the first line that may hold something other than prose starts (a backtick,
/// `~~~`, `<!--` or an indented line: what every range of [`non_prose_ranges`] starts on),
/// or the text's length: everything before it is prose.
pub(crate) fn prose_up_to(text: &str) -> usize {
    // Each search stops where an earlier one found a marker: only the text before the
    // first is read again.
    let mut first = text.find('`').unwrap_or(text.len());
    for marker in ["~~~", "<!--"] {
        let before = text.get(..first + marker.len() - 1).unwrap_or(text);
        first = before.find(marker).map_or(first, |at| at.min(first));
    }
    let before = text.get(..first).unwrap_or(text);
    first = first_indented_line(before).map_or(first, |at| at.min(first));
    if first >= text.len() {
        return text.len();
    }
    text[..first].rfind('\n').map_or(0, |newline| newline + 1)
}

/// Whether CommonMark may read a text: within the markdown limits (`limits::MARKDOWN`, the
/// preview's: its size, and quotes and lists nested at most 64 deep). A text past them is
/// read by [`fence_line_scan`] instead.
fn within_parse_limits(text: &str) -> bool {
    crate::limits::check(
        text,
        crate::limits::Syntax::Markdown,
        crate::limits::MARKDOWN,
    )
    .is_ok()
}

/// The CommonMark reading every part of the core shares: GitHub's tables, and YAML
/// frontmatter as a metadata block (so its lines are never taken for code).
fn parse(text: &str) -> pulldown_cmark::OffsetIter<'_, pulldown_cmark::DefaultBrokenLinkCallback> {
    use pulldown_cmark::{Options, Parser};
    Parser::new_ext(
        text,
        Options::ENABLE_TABLES | Options::ENABLE_YAML_STYLE_METADATA_BLOCKS,
    )
    .into_offset_iter()
}

/// Byte ranges of fenced code blocks found line by line, for text past the parse limits:
/// a fence (three or more backticks or tildes) opens at any indentation and closes at a
/// fence of the same character at least as long with nothing after it. Linear.
fn fence_line_scan(text: &str) -> Vec<Range<usize>> {
    let mut ranges = Vec::new();
    let mut open: Option<(usize, char, usize)> = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let line_start = offset;
        offset += line.len();
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
            None if is_fence => open = Some((line_start, fence_char.unwrap_or('`'), run)),
            Some((start, ch, len))
                if is_fence
                    && fence_char == Some(ch)
                    && run >= len
                    && trimmed[run..].trim().is_empty() =>
            {
                ranges.push(start..offset);
                open = None;
            }
            _ => {}
        }
    }
    if let Some((start, _, _)) = open {
        ranges.push(start..text.len());
    }
    ranges
}

/// HTML comments (`<!--` to `-->`, or to `end` when never closed) in `text[start..end]`.
fn push_html_comments(text: &str, start: usize, end: usize, ranges: &mut Vec<Range<usize>>) {
    let mut at = start;
    while let Some(open) = text.get(at..end).and_then(|rest| rest.find("<!--")) {
        let open = at + open;
        let close = text
            .get(open + 4..end)
            .and_then(|rest| rest.find("-->"))
            .map_or(end, |close| open + 4 + close + 3);
        ranges.push(open..close);
        at = close;
    }
}

/// Sorts ranges and joins those that touch or overlap.
fn merged(mut ranges: Vec<Range<usize>>) -> Vec<Range<usize>> {
    ranges.sort_by_key(|r| r.start);
    let mut out: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for range in ranges {
        match out.last_mut() {
            Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
            _ => out.push(range),
        }
    }
    out
}

/// Byte ranges of a text that are not prose, as CommonMark reads it: code blocks (fenced
/// with any number of backticks or tildes, nested fences included, and indented), inline
/// code spans, and HTML comments. What a reader sees as text elsewhere, the text inside
/// other HTML tags included, is prose. Sorted, disjoint, on char boundaries. Text with no
/// backtick, `~~~`, `<!--` or indented line is not parsed; text past the parse limits
/// has only its fenced blocks found, line by line.
pub(crate) fn non_prose_ranges(text: &str) -> Vec<Range<usize>> {
    use pulldown_cmark::{Event, Tag};
    if !may_hold_non_prose(text) {
        return Vec::new();
    }
    if !within_parse_limits(text) {
        return fence_line_scan(text);
    }
    let mut ranges = Vec::new();
    for (event, range) in parse(text) {
        match event {
            Event::Start(Tag::CodeBlock(_)) | Event::Code(_) => ranges.push(range),
            Event::Start(Tag::HtmlBlock) => {
                push_html_comments(text, range.start, range.end, &mut ranges);
            }
            Event::InlineHtml(html) if html.starts_with("<!--") => ranges.push(range),
            _ => {}
        }
    }
    merged(ranges)
}

/// Byte ranges of code blocks, fenced or indented (fenced only past the parse limits).
fn code_block_ranges(text: &str) -> Vec<Range<usize>> {
    use pulldown_cmark::{Event, Tag};
    if !may_hold_code_block(text) {
        return Vec::new();
    }
    if !within_parse_limits(text) {
        return fence_line_scan(text);
    }
    let ranges = parse(text)
        .filter(|(event, _)| matches!(event, Event::Start(Tag::CodeBlock(_))))
        .map(|(_, range)| range)
        .collect();
    merged(ranges)
}

/// The text with every byte that is not prose ([`non_prose_ranges`]) turned into a space,
/// line breaks kept: the same length, lines and byte offsets, so what is found in it
/// points into the original text. Borrowed when everything is prose.
pub(crate) fn prose_only(text: &str) -> Cow<'_, str> {
    let ranges = non_prose_ranges(text);
    if ranges.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut bytes = text.as_bytes().to_vec();
    for range in ranges {
        for b in &mut bytes[range.start.min(text.len())..range.end.min(text.len())] {
            if *b != b'\n' && *b != b'\r' {
                *b = b' ';
            }
        }
    }
    // Ranges start and end on char boundaries, so whole chars became spaces.
    String::from_utf8(bytes).map_or(Cow::Borrowed(text), Cow::Owned)
}

/// Line ranges (1-based, inclusive) of code blocks: fenced (``` or ~~~, of any length,
/// a shorter fence inside a longer one included) and indented, the fence lines with them.
/// A fence never closed runs to the end of the text.
pub(crate) fn fenced_lines(text: &str) -> Vec<(usize, usize)> {
    let mut lines = Vec::new();
    // Ranges are sorted, so one cursor counts line breaks across all of them.
    let bytes = text.as_bytes();
    let (mut counted_to, mut line) = (0, 1);
    let mut line_at = |offset: usize| {
        let offset = offset.min(bytes.len());
        if offset > counted_to {
            line += bytes[counted_to..offset]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            counted_to = offset;
        }
        line
    };
    for range in code_block_ranges(text) {
        if range.is_empty() {
            continue;
        }
        let start = line_at(range.start);
        let end = line_at(range.end - 1);
        lines.push((start, end));
    }
    lines
}

/// ATX heading on a line: its level and its text with `#`s, bold markers and closing
/// hashes removed.
pub fn heading(line: &str) -> Option<(usize, String)> {
    heading_parts(line).map(|(level, text)| (level, text.to_string()))
}

/// [`heading`], borrowing its text.
pub(crate) fn heading_parts(line: &str) -> Option<(usize, &str)> {
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
    Some((level, text.trim()))
}

/// Whether the file has at least one heading outside code fences. One pass over the
/// lines and the (ordered) fence ranges together: a file of 100k fences must not cost
/// lines × fences steps.
pub fn has_heading(text: &str) -> bool {
    // No line before the first that may hold code is in a code block: a heading there
    // (most files open with their title) needs no parse.
    if text[..prose_up_to(text)]
        .lines()
        .any(|line| heading_parts(line).is_some())
    {
        return true;
    }
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
        !fenced && heading_parts(l).is_some()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_runs_up_to_the_line_of_the_first_possible_code() {
        assert_eq!(prose_up_to("all prose\nhere"), 14);
        assert_eq!(prose_up_to(""), 0);
        assert_eq!(prose_up_to("a\nb `c`\n~~~\n"), 2);
        assert_eq!(prose_up_to("a\nb\n~~~\n`c`\n"), 4);
        assert_eq!(prose_up_to("a\nb <!-- c -->\n`d`"), 2);
        assert_eq!(prose_up_to("a\n    code\n`d`"), 2);
        assert_eq!(prose_up_to("a\n> \tquoted code\n"), 2);
        assert_eq!(prose_up_to("a\n      `x`\n"), 2);
        assert_eq!(prose_up_to("é\n~~"), 5);
        // Every range a parse finds starts at or after it.
        for text in [
            "x\n<div>\n<!-- note -->\n</div>\n",
            "x\n- item\n\n      indented in a list\n",
            "x\n```\ncode\n```\n",
            "x\ntext `span` text\n",
        ] {
            let first = non_prose_ranges(text).first().map(|r| r.start);
            assert!(
                first.is_some_and(|start| start >= prose_up_to(text)),
                "{text}"
            );
        }
    }

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
        let (without, with) = crate::hang_guard::finishes("the heading search", move || {
            (
                has_heading(&text),
                has_heading(&(text + "# Late heading\n")),
            )
        });
        assert!(!without);
        assert!(with);
    }

    /// The non-prose parts of a text, as written.
    fn non_prose(text: &str) -> Vec<&str> {
        non_prose_ranges(text)
            .into_iter()
            .map(|r| &text[r])
            .collect()
    }

    #[test]
    fn a_shorter_fence_inside_a_longer_one_does_not_close_it() {
        let text = "# T\n````md\n```js\nlet a = 1;\n```\n[Name] 2025-01-01\n````\nafter\n";
        assert_eq!(fenced_lines(text), vec![(2, 7)]);
        assert_eq!(
            non_prose(text),
            vec!["````md\n```js\nlet a = 1;\n```\n[Name] 2025-01-01\n````"]
        );
        let prose = prose_only(text);
        assert_eq!(prose.len(), text.len());
        assert_eq!(prose.lines().count(), text.lines().count());
        assert!(prose.starts_with("# T\n") && prose.ends_with("\nafter\n"));
        assert!(!prose.contains("2025") && !prose.contains('`'));
    }

    #[test]
    fn tilde_fences_hold_backtick_fences_and_close_only_on_tildes() {
        let text = "~~~\n```\nx\n```\n~~~\nafter\n";
        assert_eq!(fenced_lines(text), vec![(1, 5)]);
        assert_eq!(non_prose(text), vec!["~~~\n```\nx\n```\n~~~"]);
    }

    #[test]
    fn indented_code_is_not_prose_but_a_list_continuation_is() {
        let text = "Para\n\n    code 2025-01-01\n\n- item\n\n    continued 2025-02-02\n";
        assert_eq!(fenced_lines(text), vec![(3, 3)]);
        let prose = prose_only(text);
        assert!(!prose.contains("2025-01-01"));
        assert!(prose.contains("continued 2025-02-02"));
    }

    #[test]
    fn inline_code_and_html_comments_are_not_prose() {
        let text = "Ran `cargo 2025-01-01` and ``a ` b`` today\n\
            <!-- block\ncomment -->\n\
            text <!-- inline\nacross lines --> end\n";
        assert_eq!(
            non_prose(text),
            vec![
                "`cargo 2025-01-01`",
                "``a ` b``",
                "<!-- block\ncomment -->",
                "<!-- inline\nacross lines -->",
            ]
        );
        assert!(fenced_lines(text).is_empty());
    }

    #[test]
    fn an_unclosed_fence_runs_to_the_end() {
        let text = "# T\ntext\n```\ncode 2025-01-01\nmore\n";
        assert_eq!(fenced_lines(text), vec![(3, 5)]);
        assert_eq!(non_prose(text), vec!["```\ncode 2025-01-01\nmore\n"]);
        assert_eq!(fenced_lines("```"), vec![(1, 1)]);
        assert_eq!(fenced_lines("a\n```\n"), vec![(2, 2)]);
    }

    #[test]
    fn private_blocks_frontmatter_and_block_quotes_stay_prose() {
        let text = "---\nupdated: 2025-01-01\nnotes: |\n    indented 2025-01-02\n---\n\
            <private>\nrotated keys 2025-01-03\n</private>\n\n\
            > quoted 2025-01-04 and `code`\n";
        assert_eq!(non_prose(text), vec!["`code`"]);
        assert!(fenced_lines(text).is_empty());
    }

    #[test]
    fn text_past_the_parse_limits_has_its_fences_found_line_by_line() {
        let deep = format!("{}x `code` 2025-01-01\n", "> ".repeat(100));
        let text = format!("{deep}````\n```\n# not a heading\n```\n````\n# Heading\n~~~\nopen\n");
        assert!(!within_parse_limits(&text));
        assert_eq!(fenced_lines(&text), vec![(2, 6), (8, 9)]);
        assert_eq!(
            non_prose(&text),
            vec!["````\n```\n# not a heading\n```\n````\n", "~~~\nopen\n"]
        );
        assert!(has_heading(&text));
    }

    #[test]
    fn plain_prose_is_borrowed_unparsed() {
        let text = "# Title\nUpdated 2025-01-01, nothing else.\n  two spaces\n";
        assert!(!may_hold_non_prose(text));
        assert!(matches!(prose_only(text), Cow::Borrowed(_)));
        assert!(may_hold_non_prose("a\n\tb"));
        assert!(may_hold_non_prose("> >     b"));
    }

    #[test]
    fn prose_only_keeps_multibyte_text_and_offsets() {
        let text = "é `ünïcødé` — «2025-01-01»\n";
        let prose = prose_only(text);
        assert_eq!(prose.len(), text.len());
        assert!(prose.starts_with("é ") && prose.ends_with(" — «2025-01-01»\n"));
    }

    #[test]
    fn fences_and_headings() {
        let text = "# Title\n```md\n# not a heading\n```\n## **Bold** ##\n";
        assert_eq!(fenced_lines(text), vec![(2, 4)]);
        assert_eq!(heading("## **Bold** ##"), Some((2, "Bold".into())));
        assert_eq!(heading("#hashtag"), None);
        assert!(has_heading(text));
        assert!(!has_heading("```\n# x\n```\n"));
        // Before any code: found without a parse; after code opens, only outside it.
        assert!(has_heading("# Title\n```\n# not one\n```\n"));
        assert!(!has_heading("prose `x`\n```\n# not one\n```\n"));
        assert!(has_heading("prose `x`\n```\ncode\n```\n## After\n"));
        assert!(!has_heading("prose\n    # indented four spaces\n"));
        assert!(!has_heading("#hashtag only\n"));
    }
}

//! The pre-scans of JSON, TOML and markdown: how deep a text nests, found in one linear
//! pass that skips strings and comments, before the real parser sees the text.
use super::{LimitExceeded, Syntax};

/// How deep a text nests, from a pre-scan.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Nesting {
    /// The deepest level seen.
    pub deepest: usize,
    /// 1-based line where the nesting first went past the limit the scan was given.
    pub over_limit_at: Option<usize>,
}

impl Nesting {
    pub(super) fn reach(&mut self, depth: usize, limit: usize, line: usize) {
        if depth > self.deepest {
            self.deepest = depth;
        }
        if depth > limit && self.over_limit_at.is_none() {
            self.over_limit_at = Some(line);
        }
    }

    pub(super) fn check(self, syntax: Syntax, limit: usize) -> Result<(), LimitExceeded> {
        match self.over_limit_at {
            Some(line) => Err(LimitExceeded::Depth {
                syntax,
                found: self.deepest,
                limit,
                line,
            }),
            None => Ok(()),
        }
    }
}

// ---------------------------------------------------------------------------------------
// JSON
// ---------------------------------------------------------------------------------------

/// Nesting of arrays and objects, brackets inside strings excluded. Exact for valid JSON.
pub(crate) fn json_nesting(text: &str, limit: usize) -> Nesting {
    let mut nesting = Nesting::default();
    let mut depth = 0usize;
    let mut line = 1;
    let mut in_string = false;
    let mut escaped = false;
    for &byte in text.as_bytes() {
        if byte == b'\n' {
            line += 1;
        }
        if in_string {
            if escaped {
                escaped = false;
            } else if byte == b'\\' {
                escaped = true;
            } else if byte == b'"' {
                in_string = false;
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                nesting.reach(depth, limit, line);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    nesting
}

// ---------------------------------------------------------------------------------------
// TOML
// ---------------------------------------------------------------------------------------

/// Nesting of TOML: the segments of the current table header (`[a.b.c]` is 3), plus the
/// segments of a dotted key (`x.y = …` is 2), plus arrays and inline tables in the value.
/// Strings (basic, literal, multi-line) and comments are skipped.
pub(crate) fn toml_nesting(text: &str, limit: usize) -> Nesting {
    #[derive(PartialEq)]
    enum Quote {
        None,
        Basic,
        Literal,
        MultiBasic,
        MultiLiteral,
    }
    let mut nesting = Nesting::default();
    let mut quote = Quote::None;
    let mut table_depth = 0usize;
    let mut key_depth = 0usize;
    let mut brackets = 0usize;
    for (index, line) in text.split('\n').enumerate() {
        let number = index + 1;
        let bytes = line.as_bytes();
        let mut i = 0;
        // A line that starts outside any value: a table header, a key, or nothing.
        let at_statement = quote == Quote::None && brackets == 0;
        let mut in_key = false;
        if at_statement {
            while i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b'\t') {
                i += 1;
            }
            if bytes.get(i) == Some(&b'[') {
                // `[a.b]` or `[[a.b]]`: count the segments outside quotes.
                let mut segments = 1;
                let mut in_quote: Option<u8> = None;
                for &byte in &bytes[i..] {
                    match in_quote {
                        Some(q) if byte == q => in_quote = None,
                        Some(_) => {}
                        None => match byte {
                            b'"' | b'\'' => in_quote = Some(byte),
                            b'.' => segments += 1,
                            b'#' => break,
                            _ => {}
                        },
                    }
                }
                table_depth = segments;
                key_depth = 0;
                nesting.reach(table_depth, limit, number);
                continue;
            }
            key_depth = 1;
            in_key = true;
        }
        while i < bytes.len() {
            let byte = bytes[i];
            match quote {
                Quote::Basic | Quote::MultiBasic => {
                    if byte == b'\\' {
                        i += 2;
                        continue;
                    }
                    if byte == b'"' {
                        if quote == Quote::Basic {
                            quote = Quote::None;
                        } else if bytes[i..].starts_with(b"\"\"\"") {
                            quote = Quote::None;
                            i += 3;
                            continue;
                        }
                    }
                }
                Quote::Literal | Quote::MultiLiteral => {
                    if byte == b'\'' {
                        if quote == Quote::Literal {
                            quote = Quote::None;
                        } else if bytes[i..].starts_with(b"'''") {
                            quote = Quote::None;
                            i += 3;
                            continue;
                        }
                    }
                }
                Quote::None => match byte {
                    b'#' => break,
                    b'"' | b'\'' => {
                        let triple = if byte == b'"' { &b"\"\"\""[..] } else { b"'''" };
                        if bytes[i..].starts_with(triple) {
                            quote = if byte == b'"' {
                                Quote::MultiBasic
                            } else {
                                Quote::MultiLiteral
                            };
                            i += 3;
                            continue;
                        }
                        quote = if byte == b'"' {
                            Quote::Basic
                        } else {
                            Quote::Literal
                        };
                    }
                    b'.' if in_key => key_depth += 1,
                    b'=' if in_key => in_key = false,
                    b'[' | b'{' if !in_key => {
                        brackets += 1;
                        nesting.reach(table_depth + key_depth + brackets, limit, number);
                    }
                    b']' | b'}' if !in_key => brackets = brackets.saturating_sub(1),
                    _ => {}
                },
            }
            i += 1;
        }
        if quote == Quote::Basic || quote == Quote::Literal {
            // Single-line strings end with their line (an unclosed one is a syntax error).
            quote = Quote::None;
        }
        nesting.reach(table_depth + key_depth, limit, number);
    }
    nesting
}

// ---------------------------------------------------------------------------------------
// Markdown
// ---------------------------------------------------------------------------------------

/// Length of a list marker (`- `, `* `, `+ `, `1. `, `12) `) at the start of `rest`,
/// without the space after it.
pub(crate) fn list_marker_len(rest: &[u8]) -> Option<usize> {
    let followed_by_space = |at: usize| matches!(rest.get(at), None | Some(b' ' | b'\t'));
    match rest.first()? {
        b'-' | b'*' | b'+' if followed_by_space(1) => Some(1),
        b'0'..=b'9' => {
            let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
            (digits <= 9
                && matches!(rest.get(digits), Some(b'.' | b')'))
                && followed_by_space(digits + 1))
            .then_some(digits + 1)
        }
        _ => None,
    }
}

/// Nesting of markdown block containers: block quotes (`>`) and list items, counted from
/// the markers at the start of each line and the indentation that keeps a line inside
/// the list items above it. Inline syntax (emphasis, links) is not counted: pulldown-cmark
/// handles long runs of `*` or `[` in linear time.
pub(crate) fn markdown_nesting(text: &str, limit: usize) -> Nesting {
    let mut nesting = Nesting::default();
    // Content columns of the open list items, outermost first.
    let mut items: Vec<usize> = Vec::new();
    for (index, line) in text.split('\n').enumerate() {
        let bytes = line.as_bytes();
        let indent = bytes.iter().take_while(|&&b| b == b' ').count();
        if indent == bytes.len() || bytes[indent] == b'\r' {
            continue;
        }
        while items.last().is_some_and(|&column| column > indent) {
            items.pop();
        }
        let mut depth = items.len();
        let mut at = indent;
        let mut quoted = false;
        loop {
            let rest = &bytes[at..];
            if rest.first() == Some(&b'>') {
                depth += 1;
                quoted = true;
                at += 1;
                if matches!(bytes.get(at), Some(b' ')) {
                    at += 1;
                }
                continue;
            }
            let Some(len) = list_marker_len(rest) else {
                break;
            };
            depth += 1;
            at += len;
            let spaces = bytes[at..]
                .iter()
                .take(4)
                .take_while(|&&b| b == b' ' || b == b'\t')
                .count()
                .max(1);
            at = (at + spaces).min(bytes.len());
            // Items inside a quote are re-marked on every line; only bare items nest by
            // indentation.
            if !quoted {
                items.push(at);
            }
        }
        nesting.reach(depth, limit, index + 1);
    }
    nesting
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_nesting_skips_strings() {
        assert_eq!(json_nesting(r#"{"a": [1, {"b": "[[[{{"}]}"#, 64).deepest, 3);
        assert_eq!(json_nesting(r#"["\"[", []]"#, 64).deepest, 2);
        let deep = json_nesting(&format!("{{\n\"a\":\n{}", "[".repeat(70)), 64);
        assert_eq!((deep.deepest, deep.over_limit_at), (71, Some(3)));
    }

    #[test]
    fn toml_nesting_counts_tables_keys_and_values() {
        let text = "title = \"[[[\" # [[[\n[a.b]\nc.d = [[1], {e = 2}]\n\
                    s = '''\n[[[[[\n'''\n[\"x.y\".z]\nm = \"\"\"\n{{{\"\"\"\n";
        // [a.b] is 2, c.d adds 2, [[1]] adds 2.
        assert_eq!(toml_nesting(text, 64).deepest, 6);
        let deep = format!("a = {}{}", "[".repeat(100), "]".repeat(100));
        assert_eq!(toml_nesting(&deep, 64).over_limit_at, Some(1));
        let dotted = format!("{} = 1", vec!["k"; 80].join("."));
        assert_eq!(toml_nesting(&dotted, 64).deepest, 80);
        let header = format!("x = 1\n[{}]\n", vec!["k"; 80].join("."));
        assert_eq!(toml_nesting(&header, 64).over_limit_at, Some(2));
    }

    #[test]
    fn markdown_nesting_counts_quotes_and_list_items() {
        assert_eq!(markdown_nesting("# Title\n\ntext *a* [b]\n", 64).deepest, 0);
        assert_eq!(markdown_nesting("> > > x\n", 64).deepest, 3);
        let list = "- a\n  - b\n    - c\n  - d\n- e\n\n1. x\n   > quoted - not a list\n";
        assert_eq!(markdown_nesting(list, 64).deepest, 3);
        assert_eq!(markdown_nesting("- - - - x\n", 64).deepest, 4);
        let deep = markdown_nesting(&">".repeat(100_000), 64);
        assert_eq!((deep.deepest, deep.over_limit_at), (100_000, Some(1)));
        let indented: String = (0..100)
            .map(|i| format!("{}- x\n", "  ".repeat(i)))
            .collect();
        assert_eq!(markdown_nesting(&indented, 64).over_limit_at, Some(65));
        // Inline runs are not nesting.
        assert_eq!(markdown_nesting(&"*[".repeat(10_000), 64).deepest, 0);
    }
}

//! JSON output: one envelope per command with a versioned `schema` name. Field names and
//! meanings are documented in docs/JSON.md (schemas in docs/schemas/); additions are
//! backwards compatible, renames and removals bump the version.
use serde::Serialize;

/// Prints a value as pretty JSON on stdout: exact, never sanitised (serde escapes every
/// control character, so the output is already safe for a terminal).
pub fn print<T: Serialize>(value: &T) -> color_eyre::Result<()> {
    let mut text = serde_json::to_string_pretty(value)?;
    text.push('\n');
    super::style::write_out(std::io::stdout().lock(), &text);
    Ok(())
}

/// [`print`] written as it is serialized, through a buffer, never held whole: for output
/// that grows with the number of projects. A closed pipe ends the output quietly.
pub fn write<T: Serialize>(value: &T) -> color_eyre::Result<()> {
    use std::io::Write;
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, std::io::stdout().lock());
    let written = serde_json::to_writer_pretty(&mut out, value);
    match written {
        Err(problem) if !problem.is_io() => return Err(problem.into()),
        _ => {}
    }
    let _ = out.write_all(b"\n").and_then(|()| out.flush());
    Ok(())
}

/// Writes compact JSON (serde_json's, with no whitespace outside strings) as serde_json's
/// pretty printer writes the same value nested `depth` levels deep (two spaces a level):
/// for values kept compact, at half the size, and printed pretty only when asked for.
pub fn write_pretty(compact: &str, depth: usize, out: &mut String) {
    fn newline(out: &mut String, level: usize) {
        out.push('\n');
        for _ in 0..level {
            out.push_str("  ");
        }
    }
    let mut level = depth;
    let mut in_string = false;
    let mut escaped = false;
    let mut chars = compact.chars().peekable();
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                let close = if c == '{' { '}' } else { ']' };
                if chars.peek() == Some(&close) {
                    chars.next();
                    out.push(close);
                } else {
                    level += 1;
                    newline(out, level);
                }
            }
            '}' | ']' => {
                level = level.saturating_sub(1);
                newline(out, level);
                out.push(c);
            }
            ',' => {
                out.push(c);
                newline(out, level);
            }
            ':' => out.push_str(": "),
            _ => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_json_is_printed_as_serde_pretty_prints_it() {
        let value = serde_json::json!({
            "name": "a \"quoted\" {name}, [with] : marks \\",
            "empty_list": [],
            "empty_object": {},
            "nested": [{"a": [1, 2, {"b": null}]}, [], "x,y"],
            "unicode": "héllo – ✓",
            "number": -1.5e3,
            "flag": true,
        });
        let compact = serde_json::to_string(&value).unwrap();
        let mut printed = String::new();
        write_pretty(&compact, 0, &mut printed);
        assert_eq!(printed, serde_json::to_string_pretty(&value).unwrap());
    }
}

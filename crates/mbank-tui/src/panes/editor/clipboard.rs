//! Copy and paste: the editor's own register (what `ctrl-v`, `p` and `P` paste, across
//! files), and the system clipboard by an OSC 52 escape the terminal loop writes —
//! no clipboard library, no helper program. Terminals that do not support OSC 52
//! ignore it; the register still works.

/// Copies longer than this stay in the register only: terminals cap OSC 52 (often
/// near 100 KB of base64) and some drop the whole sequence when it is too long.
pub(crate) const OSC52_MAX_BYTES: usize = 64 * 1024;

/// What was copied or cut last.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Register {
    pub text: String,
    /// Whole lines (vim's `yy`, `dd`, a copy with nothing selected): pasted as lines
    /// of their own, not inside the line at the cursor.
    pub linewise: bool,
}

impl Register {
    /// The text as the system clipboard gets it (whole lines end with a newline).
    pub(crate) fn clipboard_text(&self) -> String {
        if self.linewise {
            format!("{}\n", self.text)
        } else {
            self.text.clone()
        }
    }
}

/// Text pasted from the terminal, with its line breaks as the buffer keeps them:
/// terminals send a pasted newline as a carriage return (or CR LF).
pub(crate) fn pasted_text(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\r', "\n")
}

/// The escape sequence that puts `text` on the system clipboard (OSC 52), or `None`
/// when it is too long to send.
pub(crate) fn osc52(text: &str) -> Option<String> {
    (text.len() <= OSC52_MAX_BYTES).then(|| format!("\x1b]52;c;{}\x07", base64(text.as_bytes())))
}

/// Standard base64 with padding (what OSC 52 carries).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> shift) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_standard_vectors() {
        for (input, expected) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(input.as_bytes()), expected, "{input:?}");
        }
    }

    #[test]
    fn osc52_carries_only_base64_and_refuses_huge_copies() {
        let sequence = osc52("a\x1b]0;evil\x07b").unwrap();
        assert!(sequence.starts_with("\x1b]52;c;") && sequence.ends_with('\x07'));
        let body = &sequence[7..sequence.len() - 1];
        assert!(
            body.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(&b))
        );
        assert!(osc52(&"x".repeat(OSC52_MAX_BYTES + 1)).is_none());
    }

    #[test]
    fn pasted_line_breaks_become_newlines() {
        assert_eq!(pasted_text("a\r\nb\rc\nd"), "a\nb\nc\nd");
    }

    #[test]
    fn whole_lines_reach_the_clipboard_with_their_newline() {
        let line = Register {
            text: "one\ntwo".into(),
            linewise: true,
        };
        assert_eq!(line.clipboard_text(), "one\ntwo\n");
    }
}

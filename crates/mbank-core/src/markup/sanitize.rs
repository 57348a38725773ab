//! Every string bound for a terminal passes here: names, paths, titles, messages and
//! file content are shown with the characters a terminal would act on, or a reader could
//! not see, replaced by visible markers. Nothing is silently dropped: a folder named
//! `ESC ]0;pwned BEL` prints as `␛]0;pwned␇`, not as a new window title.
//!
//! | class | characters | shown as |
//! |-------|------------|----------|
//! | [`Hidden::Control`] | C0 controls U+0000–U+001F (ESC included) | the Control Pictures glyph: `␀`…`␟` (`␛`, `␇`, `␊`, `␉`, `␍`) |
//! | [`Hidden::Control`] | DEL U+007F | `␡` |
//! | [`Hidden::Control`] | C1 controls U+0080–U+009F, line and paragraph separators U+2028/U+2029 | `⟨U+009B⟩` |
//! | [`Hidden::Bidi`] | U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069 | `⟨U+202E⟩` |
//! | [`Hidden::Invisible`] | zero-width and blank-rendering characters: U+00AD, U+034F, U+115F, U+1160, U+180E, U+200B–U+200D, U+2060–U+2064, U+206A–U+206F, U+3164, U+FEFF, U+FFA0, U+FFF9–U+FFFB, U+1D173–U+1D17A, tags U+E0000–U+E007F | `⟨U+200B⟩` |
//!
//! An escape sequence is made inert by its ESC alone: `ESC [2J` prints as `␛[2J`, the
//! rest of the sequence being ordinary characters. Text printed over several lines
//! ([`text`]) keeps its line feeds, tabs and CRLF pairs; everything else is marked the
//! same way. Emoji joined with U+200D show the joiner as a marker too: a reader sees the
//! parts instead of one glyph, which is the price of never hiding a character.
//!
//! Machine output (`--json`) never passes here: serde's escapes are exact and safe.
use std::borrow::Cow;
use std::ffi::OsStr;
use std::fmt::Write as _;
use std::path::Path;

/// Why a character is not printed as itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Hidden {
    /// A terminal would act on it (move the cursor, start an escape sequence, break the
    /// line).
    Control,
    /// Bidirectional formatting: it reorders what a reader sees.
    Bidi,
    /// Present in the text but not seen: zero-width, blank-rendering or tag characters.
    Invisible,
}

impl Hidden {
    /// A stable lowercase word for messages.
    pub fn id(self) -> &'static str {
        match self {
            Hidden::Control => "control",
            Hidden::Bidi => "bidi",
            Hidden::Invisible => "invisible",
        }
    }
}

/// The class of a character that must not reach a terminal as itself, if it is one.
pub fn hidden(c: char) -> Option<Hidden> {
    match c {
        '\u{0}'..='\u{1F}' | '\u{7F}'..='\u{9F}' | '\u{2028}' | '\u{2029}' => Some(Hidden::Control),
        '\u{61C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => {
            Some(Hidden::Bidi)
        }
        '\u{AD}'
        | '\u{34F}'
        | '\u{115F}'
        | '\u{1160}'
        | '\u{180E}'
        | '\u{200B}'..='\u{200D}'
        | '\u{2060}'..='\u{2064}'
        | '\u{206A}'..='\u{206F}'
        | '\u{3164}'
        | '\u{FEFF}'
        | '\u{FFA0}'
        | '\u{FFF9}'..='\u{FFFB}'
        | '\u{1D173}'..='\u{1D17A}'
        | '\u{E0000}'..='\u{E007F}' => Some(Hidden::Invisible),
        _ => None,
    }
}

/// Appends the visible marker of a hidden character to `out` (see the module table).
/// Characters that are not hidden are appended as themselves.
pub fn push_marker(out: &mut String, c: char) {
    match c {
        '\u{0}'..='\u{1F}' => out.push(char::from_u32(0x2400 + c as u32).unwrap_or('\u{FFFD}')),
        '\u{7F}' => out.push('␡'),
        c if hidden(c).is_some() => {
            let _ = write!(out, "⟨U+{:04X}⟩", c as u32);
        }
        c => out.push(c),
    }
}

/// The visible marker of a character, as its own string.
pub fn marker(c: char) -> String {
    let mut out = String::new();
    push_marker(&mut out, c);
    out
}

/// A one-cell stand-in for a hidden character, for views where every character keeps
/// one cell (the editor, whose cursor counts cells): the Control Pictures glyph for C0
/// controls and DEL, `�` for the others. Views with room show [`marker`] instead.
pub fn glyph(c: char) -> Option<char> {
    match c {
        '\u{0}'..='\u{1F}' => char::from_u32(0x2400 + c as u32),
        '\u{7F}' => Some('␡'),
        c if hidden(c).is_some() => Some('\u{FFFD}'),
        _ => None,
    }
}

/// What a printed text may keep as itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// One line (a name, a path, a title, a table cell): every control is marked,
    /// line feeds and tabs included.
    Nothing,
    /// Text printed over several lines (file content, a multi-line message): line feeds,
    /// tabs and the carriage return of a CRLF pair stay; a lone carriage return (which
    /// would let a line overwrite itself) is marked.
    LineBreaks,
}

/// One piece of a text as it should be shown: plain text to print as is, or a marker
/// standing for one hidden character.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece<'a> {
    Text(&'a str),
    Marker { hidden: Hidden, shown: String },
}

/// `text` cut into plain runs and markers, for views that style markers (the TUI shows
/// them reversed).
pub fn pieces(text: &str, keep: Keep) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let Some(class) = hidden(c) else { continue };
        if keep == Keep::LineBreaks && kept_in_lines(c, chars.peek().map(|&(_, next)| next)) {
            continue;
        }
        if start < at {
            out.push(Piece::Text(&text[start..at]));
        }
        out.push(Piece::Marker {
            hidden: class,
            shown: marker(c),
        });
        start = at + c.len_utf8();
    }
    if start < text.len() {
        out.push(Piece::Text(&text[start..]));
    }
    out
}

fn kept_in_lines(c: char, next: Option<char>) -> bool {
    c == '\n' || c == '\t' || (c == '\r' && next == Some('\n'))
}

fn clean(text: &str, keep: Keep) -> Cow<'_, str> {
    let first = text.char_indices().find(|&(at, c)| {
        hidden(c).is_some()
            && !(keep == Keep::LineBreaks
                && kept_in_lines(c, text[at + c.len_utf8()..].chars().next()))
    });
    let Some((first, _)) = first else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len() + 16);
    out.push_str(&text[..first]);
    let mut chars = text[first..].chars().peekable();
    while let Some(c) = chars.next() {
        if hidden(c).is_some()
            && !(keep == Keep::LineBreaks && kept_in_lines(c, chars.peek().copied()))
        {
            push_marker(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// One line for a terminal: a name, a path, a title, a message, a table cell.
/// Borrowed when nothing needed marking.
pub fn line(text: &str) -> Cow<'_, str> {
    clean(text, Keep::Nothing)
}

/// Text printed over several lines (a file's content): line breaks and tabs kept.
pub fn text(text: &str) -> Cow<'_, str> {
    clean(text, Keep::LineBreaks)
}

/// A path for a terminal: bytes that are not UTF-8 become U+FFFD, then [`line()`].
pub fn path(path: &Path) -> String {
    os_str(path.as_os_str())
}

/// An OS string (a file name) for a terminal: lossy decoding, then [`line()`].
pub fn os_str(name: &OsStr) -> String {
    line(&name.to_string_lossy()).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_become_inert_and_visible() {
        assert_eq!(line("a\u{1b}]0;pwned\u{7}b"), "a␛]0;pwned␇b");
        assert_eq!(line("\u{1b}[2J"), "␛[2J");
        assert_eq!(line("x\u{9b}31m"), "x⟨U+009B⟩31m");
        assert_eq!(line("del\u{7f}"), "del␡");
        assert_eq!(line("nul\0"), "nul␀");
    }

    #[test]
    fn bidi_and_invisible_characters_are_marked_not_removed() {
        assert_eq!(line("safe\u{202E}txt.md"), "safe⟨U+202E⟩txt.md");
        assert_eq!(line("a\u{2066}b\u{2069}"), "a⟨U+2066⟩b⟨U+2069⟩");
        assert_eq!(line("rlm\u{200F}alm\u{61C}"), "rlm⟨U+200F⟩alm⟨U+061C⟩");
        assert_eq!(line("zero\u{200B}width"), "zero⟨U+200B⟩width");
        assert_eq!(line("bom\u{FEFF}"), "bom⟨U+FEFF⟩");
        assert_eq!(line("tag\u{E0041}"), "tag⟨U+E0041⟩");
        assert_eq!(line("ls\u{2028}"), "ls⟨U+2028⟩");
    }

    #[test]
    fn single_lines_mark_breaks_and_multi_line_text_keeps_them() {
        assert_eq!(line("a\nb\tc\r\n"), "a␊b␉c␍␊");
        assert_eq!(text("a\nb\tc\r\nd"), "a\nb\tc\r\nd");
        // A lone carriage return would let the line overwrite itself.
        assert_eq!(text("safe\revil\n"), "safe␍evil\n");
        assert_eq!(text("end\r"), "end␍");
        assert_eq!(text("a\u{1b}[2J\n"), "a␛[2J\n");
    }

    #[test]
    fn clean_text_is_borrowed_and_unchanged() {
        for plain in ["", "progress.md", "日本語 — ü ✓ 🚀", "tab-free"] {
            assert!(matches!(line(plain), Cow::Borrowed(p) if p == plain));
            assert!(matches!(text(plain), Cow::Borrowed(p) if p == plain));
        }
        // Variation selectors belong to emoji and stay.
        assert_eq!(line("❤\u{FE0F}"), "❤\u{FE0F}");
    }

    #[test]
    fn classes_cover_each_range_and_nothing_printable() {
        assert_eq!(hidden('\u{1b}'), Some(Hidden::Control));
        assert_eq!(hidden('\u{85}'), Some(Hidden::Control));
        assert_eq!(hidden('\u{202A}'), Some(Hidden::Bidi));
        assert_eq!(hidden('\u{200E}'), Some(Hidden::Bidi));
        assert_eq!(hidden('\u{200D}'), Some(Hidden::Invisible));
        for c in ['a', ' ', '~', '\u{A0}', 'é', '€', '␛', '⟨'] {
            assert_eq!(hidden(c), None, "{c:?}");
        }
    }

    #[test]
    fn glyphs_take_one_cell() {
        assert_eq!(glyph('\u{1b}'), Some('␛'));
        assert_eq!(glyph('\u{7f}'), Some('␡'));
        assert_eq!(glyph('\u{202E}'), Some('\u{FFFD}'));
        assert_eq!(glyph('a'), None);
    }

    #[test]
    fn pieces_split_text_and_markers() {
        let pieces = pieces("a\u{202E}b\nc", Keep::LineBreaks);
        assert_eq!(
            pieces,
            vec![
                Piece::Text("a"),
                Piece::Marker {
                    hidden: Hidden::Bidi,
                    shown: "⟨U+202E⟩".into()
                },
                Piece::Text("b\nc"),
            ]
        );
    }

    #[cfg(unix)]
    #[test]
    fn paths_decode_lossily_then_mark() {
        use std::os::unix::ffi::OsStrExt;
        let name = OsStr::from_bytes(b"bad\xff\x1b[2Jname");
        assert_eq!(os_str(name), "bad\u{FFFD}␛[2Jname");
        assert_eq!(path(Path::new("/r/x\u{9b}y")), "/r/x⟨U+009B⟩y");
    }
}

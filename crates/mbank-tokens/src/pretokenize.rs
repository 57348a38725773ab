//! Hand-written pre-tokenizers for `o200k_base` and `cl100k_base`: they cut text into
//! the same pieces as the regular expressions of OpenAI's reference tokenizer
//! (tiktoken-rs 0.12), without a regex engine. The regex engines spend most of a
//! count's time here; a direct scanner is several times faster.
//!
//! Each function below transcribes one alternation of the reference pattern with Perl
//! (leftmost-first, backtracking) semantics; the doc comment of each quotes the pattern.
//! Unit tests compare the resulting token sequences with tiktoken-rs.
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, Ordering};

/// `\p{L}`
const LETTER: u8 = 1;
/// `\p{N}`
const NUMBER: u8 = 1 << 1;
/// `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]` (o200k's "upper-ish" class)
const UPPERISH: u8 = 1 << 2;
/// `[\p{Ll}\p{Lm}\p{Lo}\p{M}]` (o200k's "lower-ish" class)
const LOWERISH: u8 = 1 << 3;
/// `\s` (Unicode White_Space)
const SPACE: u8 = 1 << 4;
/// Marks a table entry as computed (0 means "not looked up yet").
const KNOWN: u8 = 1 << 7;

/// Classes of non-ASCII characters, filled on first sight. One byte per code point in
/// zero-initialised static memory: untouched pages cost nothing.
static CLASS_TABLE: [AtomicU8; 0x11_0000] = [const { AtomicU8::new(0) }; 0x11_0000];

/// The reference patterns' Unicode classes as sorted code point ranges, in the order of
/// the class bits (`LETTER`, `NUMBER`, `UPPERISH`, `LOWERISH`, `SPACE`), looked up once
/// per distinct non-ASCII character. Parsed by `regex-syntax`, whose tables the reference
/// tokenizer's regex uses; parsing the classes is all a lookup needs (compiling them into
/// a regex cost more than a small file's whole count).
fn class_ranges() -> &'static [Vec<(char, char)>] {
    static RANGES: OnceLock<Vec<Vec<(char, char)>>> = OnceLock::new();
    RANGES.get_or_init(|| {
        [
            r"\p{L}",
            r"\p{N}",
            r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]",
            r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]",
            r"\s",
        ]
        .iter()
        .map(|pattern| unicode_ranges(pattern))
        .collect()
    })
}

/// The code point ranges of a Unicode class pattern; empty should it not parse as one
/// (the patterns are constant and valid: that would only make every non-ASCII character
/// "other", a wrong split, never a crash).
fn unicode_ranges(pattern: &str) -> Vec<(char, char)> {
    use regex_syntax::hir::{Class, HirKind};
    let Ok(hir) = regex_syntax::Parser::new().parse(pattern) else {
        return Vec::new();
    };
    match hir.kind() {
        HirKind::Class(Class::Unicode(class)) => class
            .ranges()
            .iter()
            .map(|range| (range.start(), range.end()))
            .collect(),
        _ => Vec::new(),
    }
}

fn compute_class(c: char) -> u8 {
    let mut class = KNOWN;
    for (bit, ranges) in class_ranges().iter().enumerate() {
        let within = ranges
            .binary_search_by(|&(start, end)| {
                if end < c {
                    std::cmp::Ordering::Less
                } else if start > c {
                    std::cmp::Ordering::Greater
                } else {
                    std::cmp::Ordering::Equal
                }
            })
            .is_ok();
        if within {
            class |= 1 << bit;
        }
    }
    class
}

const fn ascii_class(byte: u8) -> u8 {
    match byte {
        b'A'..=b'Z' => KNOWN | LETTER | UPPERISH,
        b'a'..=b'z' => KNOWN | LETTER | LOWERISH,
        b'0'..=b'9' => KNOWN | NUMBER,
        b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ' => KNOWN | SPACE,
        _ => KNOWN,
    }
}

static ASCII_CLASSES: [u8; 128] = {
    let mut table = [0u8; 128];
    let mut byte = 0;
    while byte < 128 {
        table[byte] = ascii_class(byte as u8);
        byte += 1;
    }
    table
};

fn char_class(c: char) -> u8 {
    let code = c as usize;
    if code < 128 {
        return ASCII_CLASSES[code];
    }
    let slot = &CLASS_TABLE[code];
    let cached = slot.load(Ordering::Relaxed);
    if cached != 0 {
        return cached;
    }
    let class = compute_class(c);
    slot.store(class, Ordering::Relaxed);
    class
}

/// A cursor over the text that decodes one character at a time.
struct Scanner<'a> {
    text: &'a str,
    bytes: &'a [u8],
}

impl<'a> Scanner<'a> {
    fn new(text: &'a str) -> Self {
        Scanner {
            text,
            bytes: text.as_bytes(),
        }
    }

    /// The character at byte offset `at` (a char boundary): (char, class, byte length).
    #[inline(always)]
    fn at(&self, at: usize) -> Option<(char, u8, usize)> {
        let byte = *self.bytes.get(at)?;
        if byte < 128 {
            return Some((byte as char, ASCII_CLASSES[byte as usize], 1));
        }
        let c = self.text.get(at..)?.chars().next()?;
        Some((c, char_class(c), c.len_utf8()))
    }

    /// End of the run of characters, starting at `at`, whose class has any of `bits`.
    #[inline(always)]
    fn run(&self, mut at: usize, bits: u8) -> usize {
        while let Some((_, class, len)) = self.at(at) {
            if class & bits == 0 {
                break;
            }
            at += len;
        }
        at
    }

    /// `\p{N}{1,3}`: up to three digits.
    fn digits(&self, mut at: usize) -> Option<usize> {
        let start = at;
        for _ in 0..3 {
            match self.at(at) {
                Some((_, class, len)) if class & NUMBER != 0 => at += len,
                _ => break,
            }
        }
        (at > start).then_some(at)
    }

    /// ` ?[^\s\p{L}\p{N}]+` followed by a run of `tail` characters.
    fn punctuation(&self, at: usize, tail: &[char]) -> Option<usize> {
        let is_other = |class: u8| class & (SPACE | LETTER | NUMBER) == 0;
        let (c, class, len) = self.at(at)?;
        let start = if c == ' ' {
            match self.at(at + len) {
                Some((_, next, _)) if is_other(next) => at + len,
                _ => return None,
            }
        } else if is_other(class) {
            at
        } else {
            return None;
        };
        let mut end = self.run_while(start, |_, class| is_other(class));
        end = self.run_while(end, |c, _| tail.contains(&c));
        Some(end)
    }

    fn run_while(&self, mut at: usize, keep: impl Fn(char, u8) -> bool) -> usize {
        while let Some((c, class, len)) = self.at(at) {
            if !keep(c, class) {
                break;
            }
            at += len;
        }
        at
    }

    /// Facts about the whitespace run starting at `at`: its end, the start of its last
    /// character, and the end of its last `\r` or `\n` if it has one.
    fn whitespace(&self, mut at: usize) -> Option<Whitespace> {
        let mut last_start = None;
        let mut newline_end = None;
        while let Some((c, class, len)) = self.at(at) {
            if class & SPACE == 0 {
                break;
            }
            if c == '\r' || c == '\n' {
                newline_end = Some(at + len);
            }
            last_start = Some(at);
            at += len;
        }
        Some(Whitespace {
            end: at,
            last_start: last_start?,
            newline_end,
        })
    }

    /// Where the optional letter prefix `[^\r\n\p{L}\p{N}]?` can end: after the character
    /// at `at` if it qualifies (tried first, the quantifier being greedy), else nowhere.
    fn prefix_end(&self, at: usize) -> Option<usize> {
        let (c, class, len) = self.at(at)?;
        let qualifies = class & (LETTER | NUMBER) == 0 && c != '\r' && c != '\n';
        qualifies.then_some(at + len)
    }

    /// `(?i:'s|'t|'re|'ve|'m|'ll|'d)?` after `at`: the end with the suffix if present.
    #[inline(always)]
    fn contraction(&self, at: usize) -> usize {
        // Nearly every word is followed by something else than an apostrophe.
        if self.bytes.get(at) != Some(&b'\'') {
            return at;
        }
        self.contraction_after_apostrophe(at)
    }

    /// [`Scanner::contraction`] where byte `at` is an apostrophe.
    fn contraction_after_apostrophe(&self, at: usize) -> usize {
        let first = at + 1;
        let Some((c1, _, len1)) = self.at(first) else {
            return at;
        };
        if ['s', 't', 'm', 'd'].iter().any(|&l| folds_to(c1, l)) {
            return first + len1;
        }
        if let Some((c2, _, len2)) = self.at(first + len1) {
            let pair_matches = [('r', 'e'), ('v', 'e'), ('l', 'l')]
                .iter()
                .any(|&(a, b)| folds_to(c1, a) && folds_to(c2, b));
            if pair_matches {
                return first + len1 + len2;
            }
        }
        at
    }

    /// `[UPPERISH]*[LOWERISH]+` at `start` (greedy with backtracking).
    fn upper_then_lower(&self, start: usize) -> Option<usize> {
        let mut at = start;
        // The [UPPERISH]* run may have to give back its last lower-ish character.
        let mut last_lowerish_end = None;
        while let Some((_, class, len)) = self.at(at) {
            if class & UPPERISH == 0 {
                break;
            }
            if class & LOWERISH != 0 {
                last_lowerish_end = Some(at + len);
            }
            at += len;
        }
        match self.at(at) {
            Some((_, class, _)) if class & LOWERISH != 0 => Some(self.run(at, LOWERISH)),
            _ => last_lowerish_end,
        }
    }

    /// `[UPPERISH]+[LOWERISH]*` at `start`.
    fn upper_then_maybe_lower(&self, start: usize) -> Option<usize> {
        let upper_end = self.run(start, UPPERISH);
        (upper_end > start).then(|| self.run(upper_end, LOWERISH))
    }
}

struct Whitespace {
    end: usize,
    last_start: usize,
    newline_end: Option<usize>,
}

/// Simple case folding as `(?i)` applies it to the contraction letters: ASCII, plus the
/// long s (U+017F) that folds to `s`.
fn folds_to(c: char, lower: char) -> bool {
    c.to_ascii_lowercase() == lower || (lower == 's' && c == '\u{17F}')
}

/// Fast dispatch for pieces that start with an ASCII character, where the first two
/// bytes already rule out most alternatives; `None` leaves the piece to the general rules.
#[inline(always)]
fn ascii_piece_end(scanner: &Scanner<'_>, at: usize, grammar: Grammar) -> Option<usize> {
    let bytes = scanner.bytes;
    let first = *bytes.get(at)?;
    if first >= 128 {
        return None;
    }
    if let Some(end) = ascii_word_end(bytes, at, grammar) {
        return Some(match grammar {
            Grammar::O200k => scanner.contraction(end),
            Grammar::Cl100k => end,
        });
    }
    if first.is_ascii_digit() {
        // No letter rule starts with a digit, and the digit rule comes next.
        return scanner.digits(at);
    }
    if first.is_ascii_alphabetic() || (grammar == Grammar::Cl100k && first == b'\'') {
        return None;
    }
    // A letter or mark after a prefix character needs the letter rules (an ASCII word
    // that `ascii_word_end` declined runs into non-ASCII letters). Otherwise no letter
    // rule can match here.
    if bytes
        .get(at + 1)
        .is_some_and(|&next| next >= 128 || next.is_ascii_alphabetic())
    {
        return None;
    }
    if first == b' ' || ASCII_CLASSES[first as usize] & SPACE == 0 {
        match ascii_punctuation_end(bytes, at, grammar) {
            AsciiRule::Matches(end) => return Some(end),
            // The run may go on into non-ASCII punctuation: only the general rules know.
            AsciiRule::Undecided => return None,
            AsciiRule::NoMatch => {}
        }
    }
    ascii_whitespace_end(scanner, at, grammar)
}

/// What a fast ASCII rule found.
enum AsciiRule {
    Matches(usize),
    NoMatch,
    /// A non-ASCII character follows the ASCII part: the general rules must decide.
    Undecided,
}

/// ` ?[^\s\p{L}\p{N}]+` then `[\r\n/]*` (o200k) or `[\r\n]*` (cl100k), over ASCII only.
#[inline(always)]
fn ascii_punctuation_end(bytes: &[u8], at: usize, grammar: Grammar) -> AsciiRule {
    let is_other = |b: &u8| *b < 128 && ASCII_CLASSES[*b as usize] & (SPACE | LETTER | NUMBER) == 0;
    let start = if bytes[at] == b' ' { at + 1 } else { at };
    let mut end = start;
    while bytes.get(end).is_some_and(is_other) {
        end += 1;
    }
    if end == start {
        return match bytes.get(start) {
            Some(&next) if next >= 128 => AsciiRule::Undecided,
            _ => AsciiRule::NoMatch,
        };
    }
    let is_tail = |b: &u8| *b == b'\r' || *b == b'\n' || (grammar == Grammar::O200k && *b == b'/');
    while bytes.get(end).is_some_and(is_tail) {
        end += 1;
    }
    // A non-ASCII character may continue the run: leave it to the general rules.
    match bytes.get(end) {
        Some(&next) if next >= 128 => AsciiRule::Undecided,
        _ => AsciiRule::Matches(end),
    }
}

/// The whitespace rules over an ASCII whitespace run; `None` when the run goes on into
/// non-ASCII characters.
#[inline(always)]
fn ascii_whitespace_end(scanner: &Scanner<'_>, at: usize, grammar: Grammar) -> Option<usize> {
    let bytes = scanner.bytes;
    let mut end = at;
    let mut newline_end = None;
    while let Some(&byte) = bytes.get(end) {
        if byte >= 128 {
            return None;
        }
        if ASCII_CLASSES[byte as usize] & SPACE == 0 {
            break;
        }
        end += 1;
        if byte == b'\r' || byte == b'\n' {
            newline_end = Some(end);
        }
    }
    if end == at {
        return None;
    }
    let space = Whitespace {
        end,
        last_start: end - 1,
        newline_end,
    };
    Some(whitespace_end(scanner, at, &space, grammar))
}

/// Bytes that are one of a few ASCII ranges.
#[derive(Clone, Copy)]
struct ByteRanges(&'static [(u8, u8)]);

const UPPER: ByteRanges = ByteRanges(&[(b'A', b'Z')]);
const LOWER: ByteRanges = ByteRanges(&[(b'a', b'z')]);
const LETTERS: ByteRanges = ByteRanges(&[(b'A', b'Z'), (b'a', b'z')]);

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

impl ByteRanges {
    /// The high bit of each of the eight bytes of `word` that is in a range, every byte
    /// tested at once: a byte's low seven bits plus a constant reach its high bit
    /// exactly when they are at least the bound, and no sum carries into the next
    /// byte. Non-ASCII bytes are in no range.
    #[inline(always)]
    fn in_word(self, word: u64) -> u64 {
        let ascii = !word & HIGHS;
        let low = word & !HIGHS;
        let mut found = 0;
        for &(first, last) in self.0 {
            let at_least_first = low + ONES * u64::from(0x80 - first);
            let above_last = low + ONES * u64::from(0x7F - last);
            found |= at_least_first & !above_last;
        }
        found & ascii
    }

    #[inline(always)]
    fn contains(self, byte: u8) -> bool {
        self.0
            .iter()
            .any(|&(first, last)| (first..=last).contains(&byte))
    }
}

/// The end of the run of bytes in `ranges` that starts at `at`: eight bytes at a time,
/// so a word costs one or two tests instead of a test (and a hard-to-predict branch)
/// per letter.
#[inline(always)]
fn byte_run(bytes: &[u8], mut at: usize, ranges: ByteRanges) -> usize {
    while let Some(chunk) = bytes.get(at..at + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let outside = !ranges.in_word(u64::from_le_bytes(word)) & HIGHS;
        if outside != 0 {
            return at + (outside.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while bytes.get(at).is_some_and(|&byte| ranges.contains(byte)) {
        at += 1;
    }
    at
}

/// Fast path for the commonest piece, an ASCII word with an optional ASCII prefix
/// (`" memory"`, `"API"`, `"(see"`). ASCII letters are upper or lower, never both, so
/// no backtracking is involved. `None` when the piece is something else or its letters
/// run into a non-ASCII character: the general rules decide then.
#[inline(always)]
fn ascii_word_end(bytes: &[u8], at: usize, grammar: Grammar) -> Option<usize> {
    let first = *bytes.get(at)?;
    let start = if first.is_ascii_alphabetic() {
        at
    } else {
        let qualifies_as_prefix = first < 128
            && !first.is_ascii_digit()
            && first != b'\r'
            && first != b'\n'
            // cl100k tries contractions (`'s`) before words.
            && !(grammar == Grammar::Cl100k && first == b'\'');
        if !qualifies_as_prefix || !bytes.get(at + 1)?.is_ascii_alphabetic() {
            return None;
        }
        at + 1
    };
    let end = match grammar {
        // `[A-Z]*[a-z]+` or else `[A-Z]+`: either way the match ends where both runs do.
        Grammar::O200k => byte_run(bytes, byte_run(bytes, start, UPPER), LOWER),
        Grammar::Cl100k => byte_run(bytes, start, LETTERS),
    };
    match bytes.get(end) {
        Some(&next) if next >= 128 => None,
        _ => Some(end),
    }
}

/// The end of the o200k_base piece that starts at `at` (`at < text.len()`).
///
/// ```text
/// [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
/// |[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
/// |\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
/// ```
#[inline(always)]
fn o200k_piece_end(scanner: &Scanner<'_>, at: usize) -> usize {
    match ascii_piece_end(scanner, at, Grammar::O200k) {
        Some(end) => end,
        None => o200k_general_piece_end(scanner, at),
    }
}

/// [`o200k_piece_end`] by the general rules, out of line so that the ASCII fast path
/// stays small enough to live in the counting loop.
#[inline(never)]
fn o200k_general_piece_end(scanner: &Scanner<'_>, at: usize) -> usize {
    let prefix = scanner.prefix_end(at);
    let starts = [prefix, Some(at)];
    for start in starts.into_iter().flatten() {
        if let Some(end) = scanner.upper_then_lower(start) {
            return scanner.contraction(end);
        }
    }
    for start in starts.into_iter().flatten() {
        if let Some(end) = scanner.upper_then_maybe_lower(start) {
            return scanner.contraction(end);
        }
    }
    if let Some(end) = scanner.digits(at) {
        return end;
    }
    if let Some(end) = scanner.punctuation(at, &['\r', '\n', '/']) {
        return end;
    }
    if let Some(space) = scanner.whitespace(at) {
        return whitespace_end(scanner, at, &space, Grammar::O200k);
    }
    next_char_end(scanner, at)
}

/// The end of the cl100k_base piece that starts at `at` (`at < text.len()`).
///
/// ```text
/// '(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+
/// |\s++$|\s*[\r\n]|\s+(?!\S)|\s
/// ```
#[inline(always)]
fn cl100k_piece_end(scanner: &Scanner<'_>, at: usize) -> usize {
    match ascii_piece_end(scanner, at, Grammar::Cl100k) {
        Some(end) => end,
        None => cl100k_general_piece_end(scanner, at),
    }
}

/// [`cl100k_piece_end`] by the general rules, out of line.
#[inline(never)]
fn cl100k_general_piece_end(scanner: &Scanner<'_>, at: usize) -> usize {
    let contraction = scanner.contraction(at);
    if contraction > at {
        return contraction;
    }
    // `?+` is possessive: a qualifying prefix is never given back.
    let letters_start = scanner.prefix_end(at).unwrap_or(at);
    let letters_end = scanner.run(letters_start, LETTER);
    if letters_end > letters_start {
        return letters_end;
    }
    if let Some(end) = scanner.digits(at) {
        return end;
    }
    if let Some(end) = scanner.punctuation(at, &['\r', '\n']) {
        return end;
    }
    if let Some(space) = scanner.whitespace(at) {
        return whitespace_end(scanner, at, &space, Grammar::Cl100k);
    }
    next_char_end(scanner, at)
}

/// The whitespace alternatives. `\s*[\r\n]+` (o200k) and `\s*[\r\n]` (cl100k) end after
/// the run's last line break; `\s+(?!\S)` takes the whole run at the end of the text and
/// otherwise leaves its last character to the next piece; `\s+` / `\s` take a lone
/// character. cl100k tries `\s++$` (the whole run, when it reaches the end of the text)
/// before the line-break rule, so `"\n  "` at the very end is one piece there and two in
/// o200k.
fn whitespace_end(scanner: &Scanner<'_>, at: usize, space: &Whitespace, grammar: Grammar) -> usize {
    let reaches_end = space.end == scanner.text.len();
    if reaches_end && grammar == Grammar::Cl100k {
        return space.end;
    }
    if let Some(end) = space.newline_end {
        return end;
    }
    if reaches_end || space.last_start == at {
        space.end
    } else {
        space.last_start
    }
}

fn next_char_end(scanner: &Scanner<'_>, at: usize) -> usize {
    scanner
        .at(at)
        .map_or(scanner.text.len(), |(_, _, len)| at + len)
}

/// Which piece grammar to apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Grammar {
    O200k,
    Cl100k,
}

/// Iterator over the pieces of a text.
pub(crate) struct Pieces<'a> {
    scanner: Scanner<'a>,
    grammar: Grammar,
    at: usize,
}

impl<'a> Pieces<'a> {
    /// The next piece's bytes: the counter needs no `str`, and slicing one checks
    /// that both ends fall on character boundaries, which every piece's ends do.
    #[inline(always)]
    pub(crate) fn next_bytes(&mut self) -> Option<&'a [u8]> {
        let (start, end) = self.next_range()?;
        self.scanner.bytes.get(start..end)
    }

    /// Where the next piece starts and ends.
    #[inline(always)]
    fn next_range(&mut self) -> Option<(usize, usize)> {
        let text = self.scanner.text;
        if self.at >= text.len() {
            return None;
        }
        let start = self.at;
        let end = match self.grammar {
            Grammar::O200k => o200k_piece_end(&self.scanner, start),
            Grammar::Cl100k => cl100k_piece_end(&self.scanner, start),
        };
        // Every alternative consumes at least one character; the guard keeps a bug from
        // ever turning into an endless loop.
        let end = if end > start {
            end
        } else {
            next_char_end(&self.scanner, start)
        };
        self.at = end;
        Some((start, end))
    }
}

impl<'a> Iterator for Pieces<'a> {
    type Item = &'a str;

    #[inline(always)]
    fn next(&mut self) -> Option<&'a str> {
        let (start, end) = self.next_range()?;
        self.scanner.text.get(start..end)
    }
}

/// Cuts `text` into the pieces the reference tokenizer's regex would produce.
pub(crate) fn pieces(grammar: Grammar, text: &str) -> Pieces<'_> {
    Pieces {
        scanner: Scanner::new(text),
        grammar,
        at: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::super::counter::{count_bpe, encode_bpe};
    use super::*;

    fn reference(grammar: Grammar, text: &str) -> Vec<u32> {
        match grammar {
            Grammar::O200k => tiktoken_rs::o200k_base_singleton().encode_ordinary(text),
            Grammar::Cl100k => tiktoken_rs::cl100k_base_singleton().encode_ordinary(text),
        }
    }

    /// The same token sequence as the reference, and the same count through the
    /// counting path (memo and encoder).
    #[track_caller]
    fn assert_same_tokens(text: &str) {
        for grammar in [Grammar::O200k, Grammar::Cl100k] {
            let ours = encode_bpe(grammar, text);
            let theirs = reference(grammar, text);
            if ours != theirs {
                let pieces: Vec<&str> = pieces(grammar, text).collect();
                panic!(
                    "{grammar:?} differs on {text:?}\n ours {ours:?}\n ref  {theirs:?}\n pieces {pieces:?}"
                );
            }
            assert_eq!(
                count_bpe(grammar, text),
                theirs.len(),
                "{grammar:?} counts {text:?} differently"
            );
        }
    }

    #[test]
    fn ascii_table_matches_the_unicode_classes() {
        for byte in 0u8..128 {
            assert_eq!(
                ASCII_CLASSES[byte as usize],
                compute_class(byte as char),
                "byte {byte:#x}"
            );
        }
    }

    #[test]
    fn every_character_has_the_classes_the_reference_patterns_match() {
        let set = regex::RegexSet::new([
            r"\A\p{L}\z",
            r"\A\p{N}\z",
            r"\A[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]\z",
            r"\A[\p{Ll}\p{Lm}\p{Lo}\p{M}]\z",
            r"\A\s\z",
        ])
        .unwrap();
        assert!(class_ranges().iter().all(|ranges| !ranges.is_empty()));
        let mut classes_met = std::collections::HashSet::new();
        for code in 0..=0x10_FFFFu32 {
            let Some(c) = char::from_u32(code) else {
                continue;
            };
            let mut buffer = [0u8; 4];
            let matched = set
                .matches(c.encode_utf8(&mut buffer))
                .iter()
                .fold(KNOWN, |class, index| class | 1 << index);
            assert_eq!(compute_class(c), matched, "{c:?} (U+{code:04X})");
            classes_met.insert(matched);
        }
        // Letters of each case, numbers, spaces and the rest all occur.
        assert!(classes_met.len() >= 5, "{classes_met:?}");
    }

    #[test]
    fn contraction_folding_matches_case_insensitive_regex() {
        for letter in ['s', 't', 'm', 'd', 'r', 'e', 'v', 'l'] {
            let pattern = regex::Regex::new(&format!(r"\A(?i:{letter})\z")).unwrap();
            for code in 0..=0x10_FFFFu32 {
                let Some(c) = char::from_u32(code) else {
                    continue;
                };
                let mut buffer = [0u8; 4];
                assert_eq!(
                    pattern.is_match(c.encode_utf8(&mut buffer)),
                    folds_to(c, letter),
                    "{c:?} vs {letter}"
                );
            }
        }
    }

    #[test]
    fn byte_runs_end_where_a_byte_by_byte_scan_ends() {
        let mut bytes: Vec<u8> = (0u8..=255).collect();
        bytes.extend_from_slice(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ@[`{");
        bytes.extend_from_slice("Wörter été ÀZaz".as_bytes());
        for ranges in [UPPER, LOWER, LETTERS] {
            for byte in 0u8..=255 {
                let expected = ranges.contains(byte);
                assert_eq!(
                    ranges.in_word(u64::from(byte)) & 0x80 != 0,
                    expected,
                    "{byte:#x}"
                );
                // Every position of the eight, whatever the neighbours.
                for shift in 0..8 {
                    let word = (u64::from(byte) << (shift * 8))
                        | (0x41_7A_80_FF_00_5B_60_7B & !(0xFF << (shift * 8)));
                    let found = ranges.in_word(word) >> (shift * 8) & 0x80 != 0;
                    assert_eq!(found, expected, "{byte:#x} at {shift}");
                }
            }
            for start in 0..bytes.len() {
                let mut end = start;
                while bytes.get(end).is_some_and(|&b| ranges.contains(b)) {
                    end += 1;
                }
                assert_eq!(byte_run(&bytes, start, ranges), end, "from {start}");
            }
        }
    }

    #[test]
    fn pieces_cover_the_text_exactly() {
        let text = "Hello, wörld!  It's 12345 \r\n\t日本語 😀\u{301}x";
        for grammar in [Grammar::O200k, Grammar::Cl100k] {
            let joined: String = pieces(grammar, text).collect();
            assert_eq!(joined, text);
            assert!(pieces(grammar, text).all(|p| !p.is_empty()));
        }
        assert_eq!(pieces(Grammar::O200k, "").count(), 0);
    }

    #[test]
    fn tricky_strings_match_the_reference() {
        let cases = [
            "",
            " ",
            "a",
            "hello world",
            "It's, they'll, WE'LL, she'D, I'm, you're, we've, don't",
            "'s 'S 'LL 'll 'Ve 're 'x ''s ſ 'ſ",
            "HTTPServer parseJSON XMLHttpRequest iPhone McDonald'S ABCdef",
            "1 12 123 1234 12345 3.14159 1,000,000 ٣٤٥٦ ⅫⅩ ½¼",
            "trailing spaces   \nand tabs\t\t\nend  ",
            "\n  ",
            "x\n  ",
            "x\n\n\n",
            "x  \n  y",
            "a\r\nb\r\n\r\nc\r",
            "   leading",
            "\t\tindented\n    code block\n",
            "/path/to//file// and http://example.com/a/b?c=d&e=f#g",
            "!!! ??? ... --- *** ### ```rust\nfn main() {}\n```",
            "Привет, мир! Это тест токенизатора. ЁЖИК ёжик",
            "日本語のテキストと漢字、カタカナ。中文也可以。한국어도",
            "emoji 😀😃 👍🏽 👨‍👩‍👧 ❤️ flags 🇫🇷",
            "e\u{301}te\u{301} combining: a\u{0308}\u{0301} \u{301}lone \u{301}",
            "ǅungla ʰaspirated ªordinal Ǆ ǅ ǆ",
            "nbsp\u{a0}here \u{2028}line\u{2029}para\u{3000}ideo\u{85}nel \u{1c}\u{1d}",
            "\u{b}\u{c} vertical\u{b}tab form\u{c}feed",
            "- [ ] task\n- [x] done\n> quote\n| a | b |\n|---|---|\n",
            "**bold** _it_ `code` [link](http://x.y) ![img](a.png)",
            "mixed123abc 123abc abc123 a1b2c3",
            "  \n\n  \n",
            " !",
            "  !",
            " \u{301}",
            "'",
            "x'",
            "x's'",
        ];
        for text in cases {
            assert_same_tokens(text);
        }
    }

    /// A tiny deterministic generator, so the test needs no extra crate.
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            self.0 >> 33
        }
    }

    #[test]
    fn random_strings_over_tricky_characters_match_the_reference() {
        let alphabet: Vec<char> = "aZ sS'LlTtDdMmRrEeVv19/.-_#\n\r\t\u{b}\u{c}é\u{301}ſ日本ДдÄ😀\u{a0}\u{2028}\u{3000}ǅʰª٣Ⅻ½\u{1c}\u{85}\u{200d}"
            .chars()
            .collect();
        let mut rng = Lcg(0x5EED);
        for _ in 0..4_000 {
            let len = 1 + (rng.next() % 24) as usize;
            let text: String = (0..len)
                .map(|_| alphabet[(rng.next() as usize) % alphabet.len()])
                .collect();
            assert_same_tokens(&text);
        }
    }
}

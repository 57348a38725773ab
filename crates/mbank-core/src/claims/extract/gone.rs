//! Sentences of a memory file that say what they name is gone ("removed `legacy.rs`",
//! "`x.h` を削除", "No `findById`"): nothing in them is claimed present, and a file they
//! name is not claimed present elsewhere in the file either.
use std::ops::Range;

use super::vocabulary::{GONE_WORDS, NONE_OPENERS};

/// Whether a sentence (in lower case) opens by saying there is none of what it names
/// (`No \`findById\` — uses \`findMany\``, `Kein \`x\``, `Нет \`x\``).
fn opens_with_none_of(sentence: &str) -> bool {
    let text = sentence
        .trim_start()
        .trim_start_matches(['-', '*', '+', ' ']);
    NONE_OPENERS.iter().any(|word| {
        text.strip_prefix(word)
            .is_some_and(|rest| rest.trim_start().starts_with('`'))
    })
}

/// The sentences of `prose` that say what they name is gone ([`GONE_WORDS`]), as byte
/// ranges: "the legacy stack (`a.ts`, `b.json`, …) was deleted." runs over several lines.
/// A sentence ends at its stop (`.`, `。`, `!`, `?` …) or where a list item, heading or
/// blank line starts; a semicolon joins its clauses ("…`x.md` held it；that file was
/// removed").
pub(super) fn gone_sentences(prose: &str, text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    let close = |from: usize, to: usize, out: &mut Vec<Range<usize>>| {
        if to > from {
            // A sentence wraps where its writer broke the line ("There is no\n`x.rs`").
            let lower = prose[from..to].to_lowercase().replace('\n', " ");
            // The code spans prose blanks out are read in the text itself, at the same place.
            let none_of = text
                .get(from..to)
                .is_some_and(|sentence| opens_with_none_of(&sentence.to_lowercase()));
            if GONE_WORDS.iter().any(|word| lower.contains(word)) || none_of {
                out.push(from..to);
            }
        }
    };
    let mut offset = 0;
    for line in prose.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let opens = trimmed.trim().is_empty()
            || trimmed.starts_with('#')
            || trimmed.starts_with("- ")
            || trimmed.starts_with("* ")
            || trimmed.starts_with("+ ")
            || trimmed
                .split_once(". ")
                .is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        if opens {
            close(start, offset, &mut out);
            start = offset;
        }
        let mut chars = line.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            let ends = match c {
                '。' | '！' | '？' => true,
                '.' | '!' | '?' => chars.peek().is_none_or(|(_, next)| next.is_whitespace()),
                _ => false,
            };
            if ends {
                let end = offset + at + c.len_utf8();
                close(start, end, &mut out);
                start = end;
            }
        }
        offset += line.len();
    }
    close(start, prose.len(), &mut out);
    out
}

/// Whether `at` lies in one of `ranges` (in order, not overlapping).
pub(super) fn within(ranges: &[Range<usize>], at: usize) -> bool {
    let next = ranges.partition_point(|range| range.start <= at);
    next.checked_sub(1).is_some_and(|i| ranges[i].contains(&at))
}

/// The last part of a path (`converter.h` of `src/old/converter.h`, `old` of `src/old/`).
pub(super) fn file_name_of(path: &str) -> &str {
    let path = path.trim_end_matches('/');
    path.rsplit('/').next().unwrap_or(path)
}

//! The lines of a passage that best show why it matched, with the matching words marked.
use serde::Serialize;

use super::text::TermAnalyzer;

/// Lines a snippet spans at most.
const SNIPPET_LINES: usize = 3;
/// Characters a snippet holds at most.
const SNIPPET_CHARS: usize = 320;

/// A few lines of a passage with its matches marked.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, Default)]
pub struct Snippet {
    /// The lines, joined by `\n`.
    pub text: String,
    /// 1-based line of the file the text starts at.
    pub line: u32,
    /// Byte ranges of `text` that match the query.
    pub marks: Vec<(usize, usize)>,
}

impl Snippet {
    /// The text with each match wrapped in `open` and `close` (`**` for markdown).
    pub fn marked(&self, open: &str, close: &str) -> String {
        let mut out = String::with_capacity(self.text.len() + self.marks.len() * 4);
        let mut at = 0;
        for &(start, end) in &self.marks {
            out.push_str(&self.text[at..start]);
            out.push_str(open);
            out.push_str(&self.text[start..end]);
            out.push_str(close);
            at = end;
        }
        out.push_str(&self.text[at..]);
        out
    }
}

/// The best window of `text` (a passage starting at file line `first_line`) for terms
/// weighted as given.
pub fn snippet(
    text: &str,
    first_line: u32,
    terms: &[(&str, f32)],
    analyzer: &TermAnalyzer,
) -> Snippet {
    let lines: Vec<&str> = text.lines().collect();
    let mut weights: std::collections::HashMap<&str, f32> = std::collections::HashMap::new();
    for &(term, weight) in terms {
        let best = weights.entry(term).or_insert(0.0);
        *best = best.max(weight);
    }
    let weight_of = |term: &str| weights.get(term).copied().unwrap_or(0.0);
    let line_scores: Vec<f32> = lines
        .iter()
        .map(|line| {
            analyzer
                .terms(line)
                .iter()
                .map(|t| weight_of(&t.text))
                .sum()
        })
        .collect();
    let mut best = (0usize, f32::MIN);
    for start in 0..lines.len() {
        if lines[start].trim().is_empty() {
            continue;
        }
        let end = (start + SNIPPET_LINES).min(lines.len());
        let score: f32 = line_scores[start..end].iter().sum();
        if score > best.1 {
            best = (start, score);
        }
    }
    let start = best.0;
    let mut chosen: Vec<&str> = Vec::new();
    let mut length = 0;
    for line in lines.iter().skip(start).take(SNIPPET_LINES) {
        let line = line.trim_end();
        if line.trim().is_empty() {
            if chosen.is_empty() {
                continue;
            }
            break;
        }
        if length + line.len() > SNIPPET_CHARS && !chosen.is_empty() {
            break;
        }
        length += line.len() + 1;
        chosen.push(line);
    }
    let mut text = chosen.join("\n");
    if text.len() > SNIPPET_CHARS {
        let mut cut = SNIPPET_CHARS;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push('…');
    }
    let marks = analyzer
        .terms(&text)
        .into_iter()
        .filter(|t| weight_of(&t.text) > 0.0)
        .map(|t| (t.start, t.end))
        .fold(Vec::new(), |mut marks: Vec<(usize, usize)>, (s, e)| {
            match marks.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => marks.push((s, e)),
            }
            marks
        });
    Snippet {
        text,
        line: first_line + start as u32,
        marks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_with_the_most_matches_is_chosen_and_marked() {
        let analyzer = TermAnalyzer::default();
        let text = "# Cache\nintro\n\nwe keep sessions\nin Redis with retries\nlast";
        let terms = [("redi", 1.0), ("retri", 1.0)];
        let found = snippet(text, 10, &terms, &analyzer);
        assert_eq!(found.line, 13);
        assert_eq!(found.text, "we keep sessions\nin Redis with retries\nlast");
        assert_eq!(
            found.marked("[", "]"),
            "we keep sessions\nin [Redis] with [retries]\nlast"
        );
    }

    #[test]
    fn a_long_line_is_cut_at_a_character_boundary() {
        let analyzer = TermAnalyzer::default();
        let text = "é".repeat(400);
        let found = snippet(&text, 1, &[("x", 1.0)], &analyzer);
        assert!(found.text.ends_with('…'));
        assert!(found.text.len() <= SNIPPET_CHARS + '…'.len_utf8());
    }

    #[test]
    fn pairs_of_unspaced_characters_merge_into_one_mark() {
        let analyzer = TermAnalyzer::default();
        let found = snippet(
            "使用データベース",
            1,
            &[("デー", 1.0), ("ータ", 1.0)],
            &analyzer,
        );
        assert_eq!(found.marked("[", "]"), "使用[データ]ベース");
    }
}

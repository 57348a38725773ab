//! What the editor pane keeps of the worker's answers between frames: spans, given only
//! for a line whose text still equals the text they were computed for.
use std::collections::HashMap;
use std::ops::Range;

use ratatui::style::Style;

use super::worker::{DocId, HighlightDone, HighlightedLine};

/// The editor pane's copy of the worker's answers for its document.
#[derive(Debug, Clone)]
pub struct HighlightCache {
    doc: DocId,
    newest_version: u64,
    lines: HashMap<usize, HighlightedLine>,
}

/// How many lines the cache keeps before trimming to the neighbourhood of the latest answer.
const CACHE_LINES: usize = 4_096;

impl HighlightCache {
    pub fn new(doc: DocId) -> HighlightCache {
        HighlightCache {
            doc,
            newest_version: 0,
            lines: HashMap::new(),
        }
    }

    pub fn doc(&self) -> DocId {
        self.doc
    }

    /// Takes in an answer. Returns false (and ignores it) when it is for another document or
    /// older than an answer already taken.
    pub fn apply(&mut self, done: HighlightDone) -> bool {
        if done.doc != self.doc || done.version < self.newest_version {
            return false;
        }
        self.newest_version = done.version;
        let range = done.first_line..done.first_line + done.lines.len();
        for (offset, line) in done.lines.into_iter().enumerate() {
            self.lines.insert(done.first_line + offset, line);
        }
        if self.lines.len() > CACHE_LINES {
            let keep = range.start.saturating_sub(CACHE_LINES / 4)..range.end + CACHE_LINES / 4;
            self.lines.retain(|index, _| keep.contains(index));
        }
        true
    }

    /// The spans for line `index`, only if they were computed for exactly `text`.
    pub fn styles_for(&self, index: usize, text: &str) -> Option<&[(Style, Range<usize>)]> {
        let cached = self.lines.get(&index)?;
        (cached.text.as_deref() == Some(text)).then_some(cached.spans.as_slice())
    }

    pub fn clear(&mut self) {
        self.lines.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::Color;

    #[test]
    fn cache_answers_only_for_matching_text() {
        let mut cache = HighlightCache::new(DocId(1));
        let red = Style::new().fg(Color::Red);
        let done = HighlightDone {
            doc: DocId(1),
            version: 2,
            first_line: 10,
            lines: vec![HighlightedLine {
                text: Some("# a".into()),
                spans: vec![(red, 0..3)],
            }],
        };
        assert!(!cache.apply(HighlightDone {
            doc: DocId(2),
            ..done.clone()
        }));
        assert!(cache.apply(done.clone()));
        assert!(cache.styles_for(10, "# a").is_some());
        assert!(cache.styles_for(10, "# ab").is_none());
        assert!(cache.styles_for(11, "# a").is_none());
        assert!(!cache.apply(HighlightDone { version: 1, ..done }));
    }
}

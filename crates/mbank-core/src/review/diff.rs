//! Line diffs with stable hunk ids and word-level highlights, plus the two edits the
//! review actions are made of: applying part of a hunk to the old text (accept) and
//! reverting part of a hunk in the new text (reject).
//!
//! Everything here works on texts in memory and never touches the disk, so the TUI can
//! diff on a worker thread and tests can check every edit exactly.
use crate::io::hash_index::StableHasher;
use std::collections::HashMap;
use std::ops::Range;
use std::time::{Duration, Instant};

use serde::Serialize;
use similar::{Algorithm, DiffOp, DiffTag};

/// Context lines around each change, as in `git diff`.
pub(crate) const CONTEXT_LINES: usize = 3;
/// Longest a line diff may search for a minimal answer before settling for a valid,
/// less minimal one (bounds pathological inputs).
const LINE_DIFF_DEADLINE: Duration = Duration::from_millis(800);
/// Lines longer than this (in bytes) get no word-level highlight: the whole line is
/// marked, which keeps a 500 KB single line from stalling the diff.
const MAX_WORD_DIFF_LINE: usize = 4_000;

/// A hunk's identity: a hash of the lines it removes and adds (not of its position), so
/// it survives re-diffs after other hunks were accepted or the agent appended elsewhere.
/// Identical hunks in one file are told apart by their order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HunkId(pub u64);

impl std::fmt::Display for HunkId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

impl Serialize for HunkId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_string())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LineKind {
    Context,
    Added,
    Removed,
}

/// One line of a hunk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DiffLine {
    pub kind: LineKind,
    /// 1-based line in the old text (context and removed lines).
    pub old_line: Option<usize>,
    /// 1-based line in the new text (context and added lines).
    pub new_line: Option<usize>,
    /// The line without its line ending.
    pub text: String,
    /// Byte ranges of `text` that changed, for word-level highlighting of a removed line
    /// paired with an added one. Empty: the whole line is new (or too long to compare).
    pub changed: Vec<Range<usize>>,
    /// The line is the last of its text and has no final newline.
    pub no_newline: bool,
}

/// A range of lines: `start` is 1-based; an empty range (`count == 0`) sits just after
/// line `start - 1` (so `start` is where the lines would be).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LineRange {
    pub start: usize,
    pub count: usize,
}

impl LineRange {
    fn from_indices(range: Range<usize>) -> LineRange {
        LineRange {
            start: range.start + 1,
            count: range.len(),
        }
    }

    /// 0-based index range.
    pub fn indices(&self) -> Range<usize> {
        self.start - 1..self.start - 1 + self.count
    }

    /// Whether the 1-based `line` lies inside the range.
    pub fn contains(&self, line: usize) -> bool {
        line >= self.start && line < self.start + self.count
    }
}

/// A group of nearby changes with context, like a `@@` block of a unified diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Hunk {
    pub id: HunkId,
    pub old: LineRange,
    pub new: LineRange,
    pub lines: Vec<DiffLine>,
    pub added: usize,
    pub removed: usize,
    /// Indexes into the file's signal list of the signals raised by this hunk.
    pub signals: Vec<usize>,
}

impl Hunk {
    /// The unified-diff header, `@@ -a,b +c,d @@`.
    pub fn header(&self) -> String {
        let side = |r: &LineRange| {
            let start = if r.count == 0 { r.start - 1 } else { r.start };
            format!("{start},{}", r.count)
        };
        format!("@@ -{} +{} @@", side(&self.old), side(&self.new))
    }
}

/// The diff of two texts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct FileDiff {
    pub hunks: Vec<Hunk>,
    pub added: usize,
    pub removed: usize,
}

impl FileDiff {
    pub fn is_empty(&self) -> bool {
        self.hunks.is_empty()
    }

    pub fn hunk(&self, id: HunkId) -> Option<&Hunk> {
        self.hunks.iter().find(|h| h.id == id)
    }

    /// The hunk whose new side holds 1-based `line` (an added or context line).
    pub(crate) fn hunk_at_new_line(&self, line: usize) -> Option<usize> {
        self.hunks.iter().position(|h| {
            h.lines
                .iter()
                .any(|l| l.kind == LineKind::Added && l.new_line == Some(line))
        })
    }

    /// The hunk that removes 1-based old `line`, or whose change sits at it.
    pub(crate) fn hunk_at_old_line(&self, line: usize) -> Option<usize> {
        self.hunks.iter().position(|h| {
            h.lines
                .iter()
                .any(|l| l.kind == LineKind::Removed && l.old_line == Some(line))
        })
    }
}

/// Lines with their endings, as the diff and the edits see them.
pub fn split_lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

fn strip_ending(line: &str) -> (&str, bool) {
    match line.strip_suffix('\n') {
        Some(rest) => (rest.strip_suffix('\r').unwrap_or(rest), false),
        None => (line, true),
    }
}

/// Diffs two texts line by line, groups changes into hunks with `CONTEXT_LINES` lines of
/// context, and marks the changed words of paired removed/added lines.
pub fn diff_texts(old: &str, new: &str) -> FileDiff {
    let old_lines = split_lines(old);
    let new_lines = split_lines(new);
    let deadline = Instant::now() + LINE_DIFF_DEADLINE;
    let ops = similar::capture_diff_slices_deadline(
        Algorithm::Myers,
        &old_lines,
        &new_lines,
        Some(deadline),
    );
    let mut diff = FileDiff::default();
    let mut seen: HashMap<u64, u64> = HashMap::new();
    for group in similar::group_diff_ops(ops, CONTEXT_LINES) {
        let hunk = build_hunk(&group, &old_lines, &new_lines, &mut seen);
        diff.added += hunk.added;
        diff.removed += hunk.removed;
        diff.hunks.push(hunk);
    }
    diff
}

fn line(kind: LineKind, old: Option<usize>, new: Option<usize>, raw: &str) -> DiffLine {
    let (text, no_newline) = strip_ending(raw);
    DiffLine {
        kind,
        old_line: old.map(|i| i + 1),
        new_line: new.map(|i| i + 1),
        text: text.to_string(),
        changed: Vec::new(),
        no_newline,
    }
}

fn build_hunk(
    group: &[DiffOp],
    old_lines: &[&str],
    new_lines: &[&str],
    seen: &mut HashMap<u64, u64>,
) -> Hunk {
    let mut lines = Vec::new();
    let (mut added, mut removed) = (0, 0);
    let mut hasher = StableHasher::default();
    let old_start = group.first().map_or(0, |op| op.old_range().start);
    let old_end = group.last().map_or(0, |op| op.old_range().end);
    let new_start = group.first().map_or(0, |op| op.new_range().start);
    let new_end = group.last().map_or(0, |op| op.new_range().end);
    for op in group {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        match tag {
            DiffTag::Equal => {
                for (o, n) in old_range.zip(new_range) {
                    lines.push(line(LineKind::Context, Some(o), Some(n), old_lines[o]));
                }
            }
            DiffTag::Delete | DiffTag::Insert | DiffTag::Replace => {
                let first_removed = lines.len();
                for o in old_range.clone() {
                    hasher.write(b"-");
                    hasher.write(old_lines[o].as_bytes());
                    lines.push(line(LineKind::Removed, Some(o), None, old_lines[o]));
                }
                let first_added = lines.len();
                for n in new_range.clone() {
                    hasher.write(b"+");
                    hasher.write(new_lines[n].as_bytes());
                    lines.push(line(LineKind::Added, None, Some(n), new_lines[n]));
                }
                removed += old_range.len();
                added += new_range.len();
                if tag == DiffTag::Replace {
                    let pairs = old_range.len().min(new_range.len());
                    for k in 0..pairs {
                        let (left, right) = lines.split_at_mut(first_added);
                        highlight_words(&mut left[first_removed + k], &mut right[k]);
                    }
                }
            }
        }
    }
    let hash = hasher.finish();
    let occurrence = seen.entry(hash).or_insert(0);
    let id = HunkId(hash.wrapping_add(*occurrence));
    *occurrence += 1;
    Hunk {
        id,
        old: LineRange::from_indices(old_start..old_end),
        new: LineRange::from_indices(new_start..new_end),
        lines,
        added,
        removed,
        signals: Vec::new(),
    }
}

/// Splits a line into words, runs of whitespace, and single other characters, as byte
/// ranges.
fn word_ranges(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start: Option<(usize, u8)> = None;
    let class = |c: char| {
        if c.is_alphanumeric() || c == '_' {
            1
        } else if c.is_whitespace() {
            2
        } else {
            0
        }
    };
    for (i, c) in text.char_indices() {
        let k = class(c);
        match start {
            Some((_, same)) if same == k && k != 0 => {}
            Some((s, _)) => {
                out.push(s..i);
                start = Some((i, k));
            }
            None => start = Some((i, k)),
        }
    }
    if let Some((s, _)) = start {
        out.push(s..text.len());
    }
    out
}

/// Marks the words that differ between a removed line and the added line replacing it.
fn highlight_words(removed: &mut DiffLine, added: &mut DiffLine) {
    if removed.text.len() > MAX_WORD_DIFF_LINE || added.text.len() > MAX_WORD_DIFF_LINE {
        return;
    }
    let old_ranges = word_ranges(&removed.text);
    let new_ranges = word_ranges(&added.text);
    let old_words: Vec<&str> = old_ranges
        .iter()
        .map(|r| &removed.text[r.clone()])
        .collect();
    let new_words: Vec<&str> = new_ranges.iter().map(|r| &added.text[r.clone()]).collect();
    let ops = similar::capture_diff_slices(Algorithm::Myers, &old_words, &new_words);
    let mut old_changed = Vec::new();
    let mut new_changed = Vec::new();
    let mut equal_bytes = 0;
    let push = |out: &mut Vec<Range<usize>>, ranges: &[Range<usize>], words: Range<usize>| {
        if words.is_empty() {
            return;
        }
        let span = ranges[words.start].start..ranges[words.end - 1].end;
        match out.last_mut() {
            Some(last) if last.end == span.start => last.end = span.end,
            _ => out.push(span),
        }
    };
    for op in &ops {
        let (tag, o, n) = op.as_tag_tuple();
        match tag {
            DiffTag::Equal => {
                equal_bytes += o.clone().map(|i| old_words[i].len()).sum::<usize>();
            }
            _ => {
                push(&mut old_changed, &old_ranges, o);
                push(&mut new_changed, &new_ranges, n);
            }
        }
    }
    // Lines sharing almost nothing are shown as wholly changed: highlighting the odd
    // common space or comma would only add noise.
    let longest = removed.text.len().max(added.text.len()).max(1);
    if equal_bytes * 4 < longest {
        return;
    }
    removed.changed = old_changed;
    added.changed = new_changed;
}

/// Which changed lines of a hunk an action covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    /// Every added and removed line.
    All,
    /// Indexes into `Hunk::lines`; context lines among them are ignored.
    Lines(Vec<usize>),
}

impl Selection {
    fn covers(&self, index: usize) -> bool {
        match self {
            Selection::All => true,
            Selection::Lines(lines) => lines.contains(&index),
        }
    }
}

/// The old text with the selected changes of `hunk` applied (what "accept" stores).
/// `old` and `new` must be the texts the hunk was computed from.
pub(crate) fn apply_to_old(old: &str, new: &str, hunk: &Hunk, selection: &Selection) -> String {
    let old_lines = split_lines(old);
    let new_lines = split_lines(new);
    let range = hunk.old.indices();
    let mut out = String::with_capacity(old.len() + new.len() / 8);
    old_lines[..range.start]
        .iter()
        .for_each(|l| out.push_str(l));
    for (index, diff_line) in hunk.lines.iter().enumerate() {
        match (diff_line.kind, diff_line.old_line, diff_line.new_line) {
            (LineKind::Context, Some(o), _) => out.push_str(old_lines[o - 1]),
            (LineKind::Removed, Some(o), _) if !selection.covers(index) => {
                out.push_str(old_lines[o - 1])
            }
            (LineKind::Added, _, Some(n)) if selection.covers(index) => {
                out.push_str(new_lines[n - 1])
            }
            _ => {}
        }
    }
    old_lines[range.end..].iter().for_each(|l| out.push_str(l));
    out
}

/// The new text with the selected changes of `hunk` undone (what "reject" writes).
pub(crate) fn revert_in_new(old: &str, new: &str, hunk: &Hunk, selection: &Selection) -> String {
    let old_lines = split_lines(old);
    let new_lines = split_lines(new);
    let range = hunk.new.indices();
    let mut out = String::with_capacity(new.len() + old.len() / 8);
    new_lines[..range.start]
        .iter()
        .for_each(|l| out.push_str(l));
    for (index, diff_line) in hunk.lines.iter().enumerate() {
        match (diff_line.kind, diff_line.old_line, diff_line.new_line) {
            (LineKind::Context, _, Some(n)) => out.push_str(new_lines[n - 1]),
            (LineKind::Added, _, Some(n)) if !selection.covers(index) => {
                out.push_str(new_lines[n - 1])
            }
            (LineKind::Removed, Some(o), _) if selection.covers(index) => {
                out.push_str(old_lines[o - 1])
            }
            _ => {}
        }
    }
    new_lines[range.end..].iter().for_each(|l| out.push_str(l));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const OLD: &str = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n";

    #[test]
    fn hunks_have_ranges_counts_and_headers() {
        let new = "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn\n";
        let diff = diff_texts(OLD, new);
        assert_eq!(diff.hunks.len(), 2);
        assert_eq!((diff.added, diff.removed), (2, 1));
        let first = &diff.hunks[0];
        assert_eq!(first.old, LineRange { start: 1, count: 5 });
        assert_eq!(first.header(), "@@ -1,5 +1,5 @@");
        let second = &diff.hunks[1];
        assert_eq!(second.header(), "@@ -11,3 +11,4 @@");
        assert_eq!(second.lines.last().unwrap().new_line, Some(14));
        assert_ne!(first.id, second.id);
    }

    #[test]
    fn ids_survive_changes_elsewhere() {
        let one = diff_texts(OLD, "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n");
        let two = diff_texts(OLD, "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nL\nm\n");
        assert_eq!(one.hunks[0].id, two.hunks[0].id);
        // Identical changes in one file still get distinct ids.
        let twin = diff_texts("x\n1\n2\n3\n4\n5\n6\n7\nx\n", "y\n1\n2\n3\n4\n5\n6\n7\ny\n");
        assert_eq!(twin.hunks.len(), 2);
        assert_ne!(twin.hunks[0].id, twin.hunks[1].id);
    }

    #[test]
    fn changed_words_are_marked() {
        let diff = diff_texts(
            "We store sessions in Redis today.\n",
            "We store sessions in Postgres today.\n",
        );
        let lines = &diff.hunks[0].lines;
        assert_eq!(lines[0].kind, LineKind::Removed);
        assert_eq!(&lines[0].text[lines[0].changed[0].clone()], "Redis");
        assert_eq!(&lines[1].text[lines[1].changed[0].clone()], "Postgres");
        // Unrelated lines: wholly changed, no partial marks.
        let other = diff_texts("alpha beta\n", "totally different words here\n");
        assert!(other.hunks[0].lines.iter().all(|l| l.changed.is_empty()));
    }

    #[test]
    fn missing_final_newline_is_a_change() {
        let diff = diff_texts("a\nb\n", "a\nb");
        assert_eq!((diff.added, diff.removed), (1, 1));
        assert!(diff.hunks[0].lines.last().unwrap().no_newline);
        assert!(diff_texts("same", "same").is_empty());
        assert_eq!(diff_texts("", "x\n").added, 1);
        assert_eq!(diff_texts("x\n", "").removed, 1);
    }

    #[test]
    fn accept_and_reject_whole_hunks_and_single_lines() {
        let old = "# Log\n\none\ntwo\n";
        let new = "# Log\n\nONE\ntwo\nthree\n";
        let diff = diff_texts(old, new);
        assert_eq!(diff.hunks.len(), 1);
        let hunk = &diff.hunks[0];
        assert_eq!(apply_to_old(old, new, hunk, &Selection::All), new);
        assert_eq!(revert_in_new(old, new, hunk, &Selection::All), old);
        let index_of = |kind: LineKind, text: &str| {
            hunk.lines
                .iter()
                .position(|l| l.kind == kind && l.text == text)
                .unwrap()
        };
        let three = Selection::Lines(vec![index_of(LineKind::Added, "three")]);
        assert_eq!(
            apply_to_old(old, new, hunk, &three),
            "# Log\n\none\ntwo\nthree\n"
        );
        assert_eq!(revert_in_new(old, new, hunk, &three), "# Log\n\nONE\ntwo\n");
        let drop_one = Selection::Lines(vec![index_of(LineKind::Removed, "one")]);
        assert_eq!(apply_to_old(old, new, hunk, &drop_one), "# Log\n\ntwo\n");
        assert_eq!(
            revert_in_new(old, new, hunk, &drop_one),
            "# Log\n\none\nONE\ntwo\nthree\n"
        );
    }

    #[test]
    fn edits_at_both_ends_and_of_empty_texts() {
        for (old, new) in [
            ("", "a\nb\n"),
            ("a\nb\n", ""),
            ("a\n", "z\na\n"),
            ("a\nb", "a\nb\nc\n"),
        ] {
            let diff = diff_texts(old, new);
            let mut accepted = old.to_string();
            // Hunks applied from the last one keep earlier ranges valid.
            for hunk in diff.hunks.iter().rev() {
                accepted = apply_to_old(&accepted, new, hunk, &Selection::All);
            }
            assert_eq!(accepted, new, "{old:?} -> {new:?}");
            let mut rejected = new.to_string();
            for hunk in diff.hunks.iter().rev() {
                rejected = revert_in_new(old, &rejected, hunk, &Selection::All);
            }
            assert_eq!(rejected, old, "{old:?} -> {new:?}");
        }
    }

    #[test]
    fn a_huge_single_line_is_diffed_without_word_marks() {
        let old = "word ".repeat(100_000);
        let new = format!("{old}more");
        let diff = diff_texts(&old, &new);
        assert_eq!((diff.added, diff.removed), (1, 1));
        assert!(diff.hunks[0].lines.iter().all(|l| l.changed.is_empty()));
    }
}

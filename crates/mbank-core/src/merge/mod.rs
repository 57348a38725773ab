//! Line-based three-way merge: the user's edits and an agent's write, both made on the
//! same base text. Changes to different lines combine; changes to the same (or
//! adjacent) lines become a conflict block with git-style markers, so nothing is lost.
//!
//! [`conflict_markers`] finds such markers, whoever wrote them, in a text about to be saved.
use similar::{DiffOp, TextDiff};

pub mod conflict_markers;

/// The merged text and how many conflict blocks it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merge {
    pub text: String,
    pub conflicts: usize,
}

pub(crate) const MINE_MARKER: &str = "<<<<<<< mine (your unsaved edits)";
pub(crate) const SEPARATOR_MARKER: &str = "=======";
pub(crate) const THEIRS_MARKER: &str = ">>>>>>> theirs (on disk now)";

/// `base[start..end]` replaced by `lines`.
#[derive(Debug, Clone)]
struct Replacement<'a> {
    start: usize,
    end: usize,
    lines: Vec<&'a str>,
}

fn lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

fn hunks<'a>(base: &[&str], other: &'a [&'a str]) -> Vec<Replacement<'a>> {
    let diff = TextDiff::configure()
        .timeout(std::time::Duration::from_secs(2))
        .diff_slices(base, other);
    diff.ops()
        .iter()
        .filter_map(|op| match *op {
            DiffOp::Equal { .. } => None,
            DiffOp::Delete {
                old_index, old_len, ..
            } => Some(Replacement {
                start: old_index,
                end: old_index + old_len,
                lines: Vec::new(),
            }),
            DiffOp::Insert {
                old_index,
                new_index,
                new_len,
            } => Some(Replacement {
                start: old_index,
                end: old_index,
                lines: other[new_index..new_index + new_len].to_vec(),
            }),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => Some(Replacement {
                start: old_index,
                end: old_index + old_len,
                lines: other[new_index..new_index + new_len].to_vec(),
            }),
        })
        .collect()
}

/// One side's version of `base[start..end]`, given its hunks inside that range.
fn side_version<'a>(
    base: &[&'a str],
    start: usize,
    end: usize,
    hunks: &[&Replacement<'a>],
) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut at = start;
    for hunk in hunks {
        out.extend_from_slice(&base[at..hunk.start]);
        out.extend_from_slice(&hunk.lines);
        at = hunk.end;
    }
    out.extend_from_slice(&base[at..end]);
    out
}

fn push_block(out: &mut String, lines: &[&str]) {
    for line in lines {
        out.push_str(line);
    }
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
}

pub fn three_way(base: &str, mine: &str, theirs: &str) -> Merge {
    if mine == theirs {
        return Merge {
            text: mine.to_string(),
            conflicts: 0,
        };
    }
    if mine == base {
        return Merge {
            text: theirs.to_string(),
            conflicts: 0,
        };
    }
    if theirs == base {
        return Merge {
            text: mine.to_string(),
            conflicts: 0,
        };
    }
    let base_lines = lines(base);
    let mine_lines = lines(mine);
    let theirs_lines = lines(theirs);
    let mine_hunks = hunks(&base_lines, &mine_lines);
    let theirs_hunks = hunks(&base_lines, &theirs_lines);

    let mut text = String::with_capacity(mine.len().max(theirs.len()));
    let mut conflicts = 0;
    let mut at = 0;
    let (mut m, mut t) = (0, 0);
    while m < mine_hunks.len() || t < theirs_hunks.len() {
        let first = match (mine_hunks.get(m), theirs_hunks.get(t)) {
            (Some(a), Some(b)) => a.start.min(b.start),
            (Some(a), None) => a.start,
            (None, Some(b)) => b.start,
            (None, None) => break,
        };
        let mut end = first;
        let mut mine_in: Vec<&Replacement> = Vec::new();
        let mut theirs_in: Vec<&Replacement> = Vec::new();
        // Grow the region while a hunk of either side starts inside it or touches it.
        loop {
            let mut grew = false;
            while let Some(h) = mine_hunks.get(m).filter(|h| h.start <= end) {
                end = end.max(h.end);
                mine_in.push(h);
                m += 1;
                grew = true;
            }
            while let Some(h) = theirs_hunks.get(t).filter(|h| h.start <= end) {
                end = end.max(h.end);
                theirs_in.push(h);
                t += 1;
                grew = true;
            }
            if !grew {
                break;
            }
        }
        text.push_str(&base_lines[at..first].concat());
        let mine_version = side_version(&base_lines, first, end, &mine_in);
        let theirs_version = side_version(&base_lines, first, end, &theirs_in);
        if theirs_in.is_empty() || mine_version == theirs_version {
            text.push_str(&mine_version.concat());
        } else if mine_in.is_empty() {
            text.push_str(&theirs_version.concat());
        } else {
            conflicts += 1;
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(MINE_MARKER);
            text.push('\n');
            push_block(&mut text, &mine_version);
            text.push_str(SEPARATOR_MARKER);
            text.push('\n');
            push_block(&mut text, &theirs_version);
            text.push_str(THEIRS_MARKER);
            text.push('\n');
        }
        at = end;
    }
    text.push_str(&base_lines[at..].concat());
    Merge { text, conflicts }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "# Active\nline one\nline two\nline three\nline four\n";

    #[test]
    fn identical_or_one_sided_changes_take_the_changed_side() {
        let changed = "# Active\nline one\nline 2\nline three\nline four\n";
        assert_eq!(three_way(BASE, BASE, changed).text, changed);
        assert_eq!(three_way(BASE, changed, BASE).text, changed);
        assert_eq!(three_way(BASE, changed, changed).text, changed);
    }

    #[test]
    fn changes_to_different_lines_combine() {
        let mine = "# Active\nline ONE\nline two\nline three\nline four\n";
        let theirs = "# Active\nline one\nline two\nline three\nline four\n- agent appended\n";
        let merged = three_way(BASE, mine, theirs);
        assert_eq!(merged.conflicts, 0);
        assert_eq!(
            merged.text,
            "# Active\nline ONE\nline two\nline three\nline four\n- agent appended\n"
        );
    }

    #[test]
    fn changes_to_the_same_line_conflict_and_keep_both() {
        let mine = "# Active\nline one\nmy two\nline three\nline four\n";
        let theirs = "# Active\nline one\ntheir two\nline three\nline four\n";
        let merged = three_way(BASE, mine, theirs);
        assert_eq!(merged.conflicts, 1);
        assert_eq!(
            merged.text,
            format!(
                "# Active\nline one\n{MINE_MARKER}\nmy two\n{SEPARATOR_MARKER}\ntheir two\n{THEIRS_MARKER}\nline three\nline four\n"
            )
        );
    }

    #[test]
    fn a_delete_against_an_edit_conflicts() {
        let mine = "# Active\nline one\nline three\nline four\n";
        let theirs = "# Active\nline one\nline two, edited\nline three\nline four\n";
        let merged = three_way(BASE, mine, theirs);
        assert_eq!(merged.conflicts, 1);
        assert!(merged.text.contains("line two, edited"));
        assert!(merged.text.contains(MINE_MARKER));
    }

    #[test]
    fn texts_without_final_newline_keep_every_line() {
        let base = "a\nb\nc";
        let mine = "a\nB\nc";
        let theirs = "a\nb\nC";
        let merged = three_way(base, mine, theirs);
        assert!(
            merged.text.contains('B') && merged.text.contains('C'),
            "{merged:?}"
        );
    }

    #[test]
    fn nothing_of_either_side_is_lost_in_a_conflict() {
        let base = "x\n";
        let mine = "mine only\n";
        let theirs = "theirs only\n";
        let merged = three_way(base, mine, theirs);
        assert_eq!(merged.conflicts, 1);
        assert!(merged.text.contains("mine only") && merged.text.contains("theirs only"));
    }
}

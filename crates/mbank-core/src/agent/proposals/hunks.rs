//! A proposal's changes as numbered hunks, and the text with only some of them applied.
use serde::Serialize;
use similar::{DiffOp, TextDiff};

/// One change of a proposal: lines of the base replaced by other lines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProposalHunk {
    /// 1 for the first change in the file, then in order.
    pub number: usize,
    /// First line of the base it replaces (1-based; for a pure insertion, the line it
    /// goes before).
    pub base_line: usize,
    pub removed: Vec<String>,
    pub added: Vec<String>,
}

fn lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

fn changes<'a>(base: &[&'a str], proposed: &[&'a str]) -> Vec<DiffOp> {
    TextDiff::configure()
        .timeout(std::time::Duration::from_secs(2))
        .diff_slices(base, proposed)
        .ops()
        .to_vec()
}

/// The hunks that turn `base` into `proposed`.
pub fn hunks(base: &str, proposed: &str) -> Vec<ProposalHunk> {
    let (old, new) = (lines(base), lines(proposed));
    let strip = |l: &&str| l.strip_suffix('\n').unwrap_or(l).to_string();
    changes(&old, &new)
        .into_iter()
        .filter(|op| !matches!(op, DiffOp::Equal { .. }))
        .enumerate()
        .map(|(i, op)| {
            let (old_range, new_range) = (op.old_range(), op.new_range());
            ProposalHunk {
                number: i + 1,
                base_line: old_range.start + 1,
                removed: old[old_range].iter().map(strip).collect(),
                added: new[new_range].iter().map(strip).collect(),
            }
        })
        .collect()
}

/// `base` with the hunks numbered in `selected` applied (the others left out).
pub fn apply(base: &str, proposed: &str, selected: &[usize]) -> String {
    let (old, new) = (lines(base), lines(proposed));
    let mut out = String::with_capacity(proposed.len().max(base.len()));
    let mut number = 0;
    for op in changes(&old, &new) {
        if let DiffOp::Equal { old_index, len, .. } = op {
            out.extend(old[old_index..old_index + len].iter().copied());
            continue;
        }
        number += 1;
        let taken = if selected.contains(&number) {
            &new[op.new_range()]
        } else {
            &old[op.old_range()]
        };
        // A kept line that lost its final newline to the other side gets it back.
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.extend(taken.iter().copied());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "# Notes\none\ntwo\nthree\nfour\nfive\n";
    const PROPOSED: &str = "# Notes\nONE\ntwo\nthree\nfour\nFIVE\nsix\n";

    #[test]
    fn hunks_are_numbered_in_file_order() {
        let hunks = hunks(BASE, PROPOSED);
        assert_eq!(hunks.len(), 2);
        assert_eq!(hunks[0].number, 1);
        assert_eq!(hunks[0].removed, ["one"]);
        assert_eq!(hunks[0].added, ["ONE"]);
        assert_eq!(hunks[1].base_line, 6);
        assert_eq!(hunks[1].added, ["FIVE", "six"]);
    }

    #[test]
    fn applying_some_hunks_keeps_the_rest_of_the_base() {
        assert_eq!(apply(BASE, PROPOSED, &[1, 2]), PROPOSED);
        assert_eq!(apply(BASE, PROPOSED, &[]), BASE);
        assert_eq!(
            apply(BASE, PROPOSED, &[1]),
            "# Notes\nONE\ntwo\nthree\nfour\nfive\n"
        );
        assert_eq!(
            apply(BASE, PROPOSED, &[2]),
            "# Notes\none\ntwo\nthree\nfour\nFIVE\nsix\n"
        );
    }

    #[test]
    fn a_text_without_final_newline_keeps_its_lines_apart() {
        let base = "a\nb";
        let proposed = "a\nb\nc\n";
        assert_eq!(apply(base, proposed, &[1]), proposed);
        assert_eq!(apply(base, proposed, &[]), base);
    }
}

//! Elision: an agent sending a file with most of it replaced by a placeholder line
//! (`[... rest unchanged ...]`, `<!-- unchanged -->`, `// rest of code`, `<snip>`).
//!
//! Judged by shape and place rather than by exact phrases: a *placeholder-shaped* line
//! (`is_placeholder_line`) is short and either wholly bracketed, a comment, a lone tag,
//! or framed by an ellipsis, and it is either only dots or says something was left out
//! (any word on the `rest`/`omit…`/`unchang…`/`keep` family). A write is an elision when
//! such a line is new, stands where at least `MIN_LINES_NEAR` non-blank lines of the old
//! file disappeared (the same changed stretch of a line diff, blank lines aside), and the
//! write drops at least a third of the old file's non-blank lines.
use std::collections::HashMap;
use std::time::{Duration, Instant};

use similar::{Algorithm, DiffOp};

/// Non-blank old lines that must disappear next to a placeholder for it to stand in
/// for them.
pub(crate) const MIN_LINES_NEAR: usize = 3;

/// How many changed stretches on each side of a placeholder still count as near it.
const NEIGHBOURS: usize = 8;

/// How long the line diff may take before it settles for a coarser answer.
const DIFF_BUDGET: Duration = Duration::from_millis(200);

/// Words that say content was left out; a word matches when it equals one of `WORDS`
/// or starts with one of `STEMS`.
const WORDS: [&str; 8] = [
    "rest", "same", "keep", "keeps", "kept", "etc", "cut", "snip",
];
const STEMS: [&str; 12] = [
    "omit", "elid", "elis", "unchang", "remain", "truncat", "snipped", "skip", "exist", "previous",
    "original", "untouch",
];

fn says_omission(text: &str) -> bool {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .any(|w| WORDS.contains(&w.as_str()) || STEMS.iter().any(|s| w.starts_with(s)))
}

fn has_ellipsis(text: &str) -> bool {
    text.contains("...") || text.contains('…') || text.contains(". . .")
}

/// The inside of a line that is wholly bracketed, a comment or a lone tag.
fn unwrap(line: &str) -> Option<&str> {
    let pairs = [
        ("[", "]"),
        ("(", ")"),
        ("{", "}"),
        ("<!--", "-->"),
        ("/*", "*/"),
    ];
    for (open, close) in pairs {
        if line.len() >= open.len() + close.len()
            && let Some(inner) = line
                .strip_prefix(open)
                .and_then(|rest| rest.strip_suffix(close))
        {
            return Some(inner);
        }
    }
    // `<snip>`, `<truncated/>`: one short tag alone.
    if let Some(inner) = line.strip_prefix('<').and_then(|r| r.strip_suffix('>'))
        && inner.len() <= 40
        && inner
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '_' | '-' | '/' | '.' | '…'))
    {
        return Some(inner);
    }
    // Line comments, and an unclosed HTML comment.
    ["//", "<!--", "--", "/*"]
        .iter()
        .find_map(|open| line.strip_prefix(open))
}

/// True when `line` has the shape of an elision placeholder: at most 100 characters and
/// a dozen words, bracketed / commented / a lone tag (a `#` line only with an ellipsis,
/// since headings are content) or starting or ending with an ellipsis, and either only
/// punctuation with an ellipsis or saying content was left out.
pub(crate) fn is_placeholder_line(line: &str) -> bool {
    let mut t = line.trim();
    if t.is_empty() || t.chars().count() > 100 {
        return false;
    }
    // A list item or quote holding only a placeholder is one too.
    for marker in ["- ", "* ", "+ ", "> "] {
        if let Some(rest) = t.strip_prefix(marker) {
            t = rest.trim_start();
            break;
        }
    }
    let dots = has_ellipsis(t);
    let inner = match unwrap(t) {
        Some(inner) => Some(inner),
        None if dots && t.starts_with('#') => Some(t.trim_start_matches('#')),
        None => None,
    };
    let framed_by_dots = ["...", "…", ". . ."]
        .iter()
        .any(|d| t.starts_with(d) || t.ends_with(d));
    let core = match inner {
        Some(inner) => inner,
        None if framed_by_dots => t,
        None => return false,
    };
    if core.split_whitespace().count() > 12 {
        return false;
    }
    let only_punctuation = !core.chars().any(char::is_alphanumeric);
    (only_punctuation && dots) || says_omission(core)
}

/// A placeholder standing in for most of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Elision {
    /// 1-based line of the placeholder in the new text.
    pub line: usize,
    pub placeholder: String,
    /// Non-blank lines of the old text the new one still holds, of how many.
    pub kept_lines: usize,
    pub old_lines: usize,
}

/// Non-blank lines of `old` that `new` still holds (as a multiset, trimmed).
pub(crate) fn kept_lines(old: &[&str], new: &[&str]) -> usize {
    let mut available: HashMap<&str, usize> = HashMap::new();
    for line in new.iter().filter(|l| !l.is_empty()) {
        *available.entry(line).or_default() += 1;
    }
    old.iter()
        .filter(|l| !l.is_empty())
        .filter(|l| match available.get_mut(*l) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        })
        .count()
}

/// The first placeholder of `new` that stands where much of `old` disappeared, if the
/// write drops a large share of `old`.
pub(crate) fn find_elision(old: &str, new: &str) -> Option<Elision> {
    let new_lines: Vec<&str> = new.lines().map(str::trim).collect();
    if !new_lines.iter().any(|l| is_placeholder_line(l)) {
        return None;
    }
    let old_lines: Vec<&str> = old.lines().map(str::trim).collect();
    let old_count = old_lines.iter().filter(|l| !l.is_empty()).count();
    let kept = kept_lines(&old_lines, &new_lines);
    let dropped = old_count - kept.min(old_count);
    if dropped < MIN_LINES_NEAR || dropped * 3 < old_count {
        return None;
    }
    let ops = similar::capture_diff_slices_deadline(
        Algorithm::Myers,
        &old_lines,
        &new_lines,
        Some(Instant::now() + DIFF_BUDGET),
    );
    let non_blank =
        |range: std::ops::Range<usize>| old_lines[range].iter().filter(|l| !l.is_empty()).count();
    let deleted = |op: &DiffOp| match *op {
        DiffOp::Delete {
            old_index, old_len, ..
        }
        | DiffOp::Replace {
            old_index, old_len, ..
        } => non_blank(old_index..old_index + old_len),
        _ => 0,
    };
    // Ops that do not separate a placeholder from a deletion: blank lines kept as they
    // were, and other inserted lines.
    let transparent = |op: &DiffOp| match *op {
        DiffOp::Equal { old_index, len, .. } => non_blank(old_index..old_index + len) == 0,
        DiffOp::Insert { .. } => true,
        _ => false,
    };
    for (i, op) in ops.iter().enumerate() {
        let new_range = match *op {
            DiffOp::Insert {
                new_index, new_len, ..
            }
            | DiffOp::Replace {
                new_index, new_len, ..
            } => new_index..new_index + new_len,
            _ => continue,
        };
        let Some(at) = new_range
            .clone()
            .find(|&n| is_placeholder_line(new_lines[n]))
        else {
            continue;
        };
        let mut near = deleted(op);
        let before = ops[..i].iter().rev().take(NEIGHBOURS);
        let after = ops[i + 1..].iter().take(NEIGHBOURS);
        for side in [before.collect::<Vec<_>>(), after.collect()] {
            for neighbour in side {
                near += deleted(neighbour);
                if !transparent(neighbour) && !matches!(neighbour, DiffOp::Delete { .. }) {
                    break;
                }
            }
        }
        if near >= MIN_LINES_NEAR {
            return Some(Elision {
                line: at + 1,
                placeholder: new_lines[at].to_string(),
                kept_lines: kept,
                old_lines: old_count,
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A thirteen-line file as agents keep them.
    const OLD: &str = "# Active Context\n\n## Current Focus\n- auth rewrite\n- token refresh\n\n\
## Recent Changes\n- moved sessions to Redis\n- added rate limits\n- fixed login redirect\n\n\
## Next Steps\n- audit logging\n- admin panel\n- docs\n- release 1.4\n- retro\n";

    fn elided_with(placeholder: &str) -> String {
        format!("# Active Context\n\n## Current Focus\n- payments\n\n{placeholder}\n")
    }

    #[test]
    fn placeholders_of_any_wording_replacing_most_of_a_file_are_found() {
        for placeholder in [
            "<!-- unchanged -->",
            "[rest of file]",
            "[... 200 lines omitted ...]",
            "[Keep existing content]",
            "// rest of code",
            "[...]",
            "[truncated]",
            "<snip>",
            "(rest omitted)",
            "# ...",
            "…",
            "- ...",
            "<!-- ... -->",
            "/* remaining sections unchanged */",
            "… everything else stays the same …",
        ] {
            let found = find_elision(OLD, &elided_with(placeholder));
            let found = found.unwrap_or_else(|| panic!("{placeholder} was not found"));
            assert_eq!(found.line, 6, "{placeholder}");
            assert_eq!(found.placeholder, placeholder);
            assert_eq!(
                (found.kept_lines, found.old_lines),
                (2, 14),
                "{placeholder}"
            );
        }
    }

    #[test]
    fn a_placeholder_eliding_one_large_section_is_found() {
        let old = format!(
            "# Notes\n\n## A\n{}\n## B\n- keep me\n",
            (1..=12)
                .map(|i| format!("- item {i}\n"))
                .collect::<String>()
        );
        let new = "# Notes\n\n## A\n[...]\n\n## B\n- keep me\n";
        assert_eq!(find_elision(&old, new).map(|e| e.line), Some(4));
    }

    #[test]
    fn a_genuinely_shortened_file_without_placeholders_passes() {
        let short = "# Active Context\n\n## Current Focus\n- payments\n";
        assert_eq!(find_elision(OLD, short), None);
    }

    #[test]
    fn a_placeholder_already_in_unchanged_prose_passes() {
        let old = format!("{OLD}\n## Quotes\n[...]\n- as the RFC says\n");
        // Shortened a lot, the old `[...]` line kept where it was.
        let new = "# Active Context\n\n## Quotes\n[...]\n- as the RFC says\n";
        assert_eq!(find_elision(&old, new), None);
    }

    #[test]
    fn a_placeholder_added_beside_the_whole_file_or_a_small_change_passes() {
        let quoted = format!("{OLD}- agents sometimes write \"[...]\"\n[... rest unchanged ...]\n");
        assert_eq!(find_elision(OLD, &quoted), None);
        // Two lines replaced by a placeholder is an edit, not most of the file.
        let small = OLD.replace("- admin panel\n- docs\n", "- [...]\n");
        assert_eq!(find_elision(OLD, &small), None);
    }

    #[test]
    fn template_placeholders_and_ordinary_lines_are_not_elision_shaped() {
        for line in [
            "## Existing entries",
            "- API unchanged since v2",
            "The rest is history.",
            "[Decision Title]",
            "[Describe the current focus]",
            "(see archive.md)",
            "// TODO: add tests",
            "<private>",
            "</details>",
            "- Then we migrated the cache...",
            "- [x] rest of the tasks",
            "",
        ] {
            assert!(!is_placeholder_line(line), "{line}");
        }
        // A template reset drops the file but holds no placeholder of omission.
        let template = "# Active Context\n\n## Current Focus\n[Describe the current focus]\n";
        assert_eq!(find_elision(OLD, template), None);
    }

    #[test]
    fn huge_unrelated_texts_finish_within_the_diff_budget() {
        let old: String = (0..20_000).map(|i| format!("old line {i}\n")).collect();
        let new: String = (0..20_000)
            .map(|i| format!("new line {i}\n"))
            .chain(std::iter::once("[...]\n".to_string()))
            .collect();
        assert!(find_elision(&old, &new).is_some());
    }
}

//! The append-only check: decision logs only grow (the Cline memory bank spec), so an
//! entry present in the committed version and missing now is reported.
//!
//! Entries are compared as a reader of the file sees them ([`visible_entries`]): an
//! entry inside an HTML comment, a `<details>` block or a `<private>` block, or in a file
//! whose frontmatter says `private: true`, is not there, so hiding a log is losing it.
use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;
use std::path::Path;

use chrono::NaiveDate;
use pulldown_cmark::{Event, Parser, Tag};

use super::text::normalize_title;
use super::{Decision, parse_file};
use crate::findings::{Finding, FindingCode, Severity};
use crate::limits;
use crate::markup::markdown;
use crate::model::{MemoryFile, Role};

impl Decision {
    /// Identity used to tell whether an entry survived an edit: its title and date.
    /// Status is left out on purpose: marking an entry superseded is allowed.
    fn key(&self) -> (String, Option<NaiveDate>) {
        (normalize_title(&self.title), self.date)
    }
}

/// Entries of `old` that `new` no longer has (compared by title and date; a changed
/// status is fine, a deleted or rewritten entry is not).
pub(crate) fn lost_entries<'a>(old: &'a [Decision], new: &[Decision]) -> Vec<&'a Decision> {
    let mut remaining: HashMap<(String, Option<NaiveDate>), usize> = HashMap::new();
    for d in new {
        *remaining.entry(d.key()).or_default() += 1;
    }
    old.iter()
        .filter(|d| match remaining.get_mut(&d.key()) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .collect()
}

/// Byte ranges of `text` a rendered view does not show: HTML comments (blocks and
/// inline, as CommonMark reads them, so `<!--` in code is text), `<details>` blocks
/// (collapsed; unclosed ones to the end), and `<private>` blocks as automation reads
/// them (tag lines, unclosed ones to the end).
fn hidden_ranges(text: &str) -> Vec<Range<usize>> {
    let mut hidden = Vec::new();
    let mut details_open: Option<usize> = None;
    let mut details_depth = 0usize;
    let mut tags = |range: Range<usize>, hidden: &mut Vec<Range<usize>>| {
        let html = text[range.clone()].to_ascii_lowercase();
        if html.trim_start().starts_with("<!--") {
            hidden.push(range);
            return;
        }
        let mut at = 0;
        while let Some(found) = html[at..].find("details") {
            let pos = at + found;
            at = pos + "details".len();
            let before = &html[..pos];
            if before.ends_with("</") {
                details_depth = details_depth.saturating_sub(1);
                if details_depth == 0
                    && let Some(start) = details_open.take()
                {
                    let end = html[at..].find('>').map_or(at, |p| at + p + 1);
                    hidden.push(start..range.start + end);
                }
            } else if before.ends_with('<') {
                if details_depth == 0 {
                    details_open = Some(range.start + pos - 1);
                }
                details_depth += 1;
            }
        }
    };
    let mut block: Option<Range<usize>> = None;
    for (event, range) in Parser::new(text).into_offset_iter() {
        match event {
            Event::Start(Tag::HtmlBlock) => block = Some(range),
            Event::End(pulldown_cmark::TagEnd::HtmlBlock) => {
                if let Some(range) = block.take() {
                    tags(range, &mut hidden);
                }
            }
            Event::InlineHtml(_) => tags(range, &mut hidden),
            _ => {}
        }
    }
    if let Some(start) = details_open {
        hidden.push(start..text.len());
    }
    let blocks = markdown::private_blocks(text);
    if !blocks.is_empty() {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        let line_start = |n: usize| starts.get(n - 1).copied().unwrap_or(text.len());
        for b in blocks {
            let end = b.end.map_or(text.len(), |e| line_start(e + 1));
            hidden.push(line_start(b.start)..end);
        }
    }
    hidden
}

/// `text` as a reader sees it: hidden parts blanked with spaces, line breaks kept so
/// line numbers still match the file.
pub(crate) fn visible_text(text: &str) -> Cow<'_, str> {
    if markdown::is_private_file(text) {
        return Cow::Owned(text.chars().filter(|c| *c == '\n').collect());
    }
    // Only markup can hide anything: a text without `<` is all visible.
    if !text.contains('<') {
        return Cow::Borrowed(text);
    }
    let mut hidden = hidden_ranges(text);
    if hidden.is_empty() {
        return Cow::Borrowed(text);
    }
    hidden.sort_by_key(|r| r.start);
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(hidden.len());
    for range in hidden {
        match merged.last_mut() {
            Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
            _ => merged.push(range),
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut next = 0;
    for (i, c) in text.char_indices() {
        while merged.get(next).is_some_and(|r| r.end <= i) {
            next += 1;
        }
        let is_hidden = merged.get(next).is_some_and(|r| r.start <= i);
        out.push(if is_hidden && c != '\n' { ' ' } else { c });
    }
    Cow::Owned(out)
}

/// The decision entries a reader of the file sees ([`visible_text`] parsed as the
/// file's role says).
pub(crate) fn visible_entries(path: &Path, role: Role, text: &str) -> Vec<Decision> {
    parse_file(path, role, &visible_text(text))
}

/// The append-only check: a decision log that lost entries since its committed version.
pub(crate) fn shrink_finding(
    file: &MemoryFile,
    committed_text: &str,
    current_text: &str,
) -> Option<Finding> {
    // The comparison cannot run on a text over the limit: fail closed.
    for (text, which) in [
        (committed_text, "its committed version"),
        (current_text, "the file"),
    ] {
        let size = text.len() as u64;
        if size > limits::DECISION_LOG_MAX_BYTES {
            return Some(Finding::new(
                Severity::Error,
                FindingCode::ParseLimit,
                &file.path,
                None,
                format!(
                    "{}: {which} is {}, over the {} limit for decision logs, so the \
                     append-only check (no entries lost since the last commit) did not run",
                    file.display,
                    limits::size_in_words(size),
                    limits::size_in_words(limits::DECISION_LOG_MAX_BYTES)
                ),
            ));
        }
    }
    let old = visible_entries(&file.path, file.role, committed_text);
    let new = visible_entries(&file.path, file.role, current_text);
    let lost = lost_entries(&old, &new);
    if lost.is_empty() {
        return None;
    }
    let titles: Vec<String> = lost
        .iter()
        .take(5)
        .map(|d| match d.date {
            Some(date) => format!("\"{}\" ({date})", d.title),
            None => format!("\"{}\"", d.title),
        })
        .collect();
    let more = if lost.len() > titles.len() {
        format!(" and {} more", lost.len() - titles.len())
    } else {
        String::new()
    };
    Some(Finding::new(
        Severity::Error,
        FindingCode::DecisionLogShrunk,
        &file.path,
        None,
        format!(
            "{} lost {} since the last commit: {}{more}; decision logs are \
             append-only (restore with `git show HEAD:<path>` and mark old entries superseded \
             instead of deleting them)",
            file.display,
            crate::io::text::counted(lost.len(), "decision"),
            titles.join(", ")
        ),
    ))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::super::tests::log;
    use super::*;
    use crate::model::Role;

    #[test]
    fn lost_entries_ignore_status_changes_and_new_entries() {
        let before = "# Log\n## 2025-01-01 - A\n**Status:** accepted\n## 2025-01-02 - B\n## 2025-01-03 - C\n";
        let after = "# Log\n## 2025-01-01 - A\n**Status:** superseded\n## 2025-01-03 - C\n## 2025-01-04 - D\n";
        let (old, new) = (log(before), log(after));
        let lost = lost_entries(&old, &new);
        assert_eq!(lost.len(), 1);
        assert_eq!(lost[0].title, "B");
        assert!(lost_entries(&new, &new).is_empty());
    }

    #[test]
    fn shrink_finding_names_the_lost_titles() {
        let file = MemoryFile {
            path: PathBuf::from("/p/memory-bank/decisionLog.md"),
            display: "memory-bank/decisionLog.md".into(),
            role: Role::Decisions,
            layer: Some(7),
            order: 6,
            group: None,
            load: crate::model::LoadKind::Startup,
            size: 0,
            modified: None,
            changed: None,
            inode: None,
            memory: None,
            unreadable: None,
        };
        let committed = "## Decision: Keep A\n- **Date**: 2025-01-01\n## Decision: Keep B\n";
        let finding = shrink_finding(&file, committed, "## Decision: Keep B\n").unwrap();
        assert_eq!(finding.code.id(), "decision-log-shrunk");
        assert_eq!(finding.severity, Severity::Error);
        assert!(
            finding.message.contains("\"Keep A\" (2025-01-01)"),
            "{}",
            finding.message
        );
        assert!(shrink_finding(&file, committed, committed).is_none());
    }

    const LOG: &str = "# Decision Log\n\n## Decision: Use Postgres\n- **Date**: 2025-01-02\n\n\
## Decision: Cache in Redis\n- **Date**: 2025-02-03\n";

    fn titles(text: &str) -> Vec<String> {
        visible_entries(&PathBuf::from("decisionLog.md"), Role::Decisions, text)
            .into_iter()
            .map(|d| d.title)
            .collect()
    }

    fn lost_when_rewritten_as(new: &str) -> Vec<String> {
        let path = PathBuf::from("decisionLog.md");
        let old = visible_entries(&path, Role::Decisions, LOG);
        let new = visible_entries(&path, Role::Decisions, new);
        lost_entries(&old, &new)
            .into_iter()
            .map(|d| d.title.clone())
            .collect()
    }

    #[test]
    fn every_entry_of_a_plain_log_is_visible() {
        assert_eq!(titles(LOG), vec!["Use Postgres", "Cache in Redis"]);
        assert!(lost_when_rewritten_as(LOG).is_empty());
    }

    #[test]
    fn entries_wrapped_in_private_blocks_count_as_dropped() {
        let body = LOG.trim_start_matches("# Decision Log\n");
        let wrapped = format!("# Decision Log\n<private>\n{body}</private>\n");
        assert_eq!(lost_when_rewritten_as(&wrapped).len(), 2);
        let unclosed = format!("# Decision Log\n<private>\n{body}");
        assert_eq!(lost_when_rewritten_as(&unclosed).len(), 2);
    }

    #[test]
    fn a_private_frontmatter_flag_counts_every_entry_as_dropped() {
        let private = format!("---\nprivate: true\n---\n{LOG}");
        assert_eq!(lost_when_rewritten_as(&private).len(), 2);
        assert!(titles(&private).is_empty());
    }

    #[test]
    fn entries_inside_an_html_comment_count_as_dropped() {
        let commented = LOG.replace(
            "## Decision: Cache in Redis",
            "<!--\n## Decision: Cache in Redis",
        ) + "-->\n";
        assert_eq!(lost_when_rewritten_as(&commented), vec!["Cache in Redis"]);
        // Only its date hidden: the entry a reader sees is not the same entry.
        let date_hidden = LOG.replace("- **Date**: 2025-02-03", "<!-- - **Date**: 2025-02-03 -->");
        assert_eq!(lost_when_rewritten_as(&date_hidden), vec!["Cache in Redis"]);
    }

    #[test]
    fn entries_inside_details_count_as_dropped() {
        let body = LOG.trim_start_matches("# Decision Log\n");
        let folded = format!(
            "# Decision Log\n\n<details>\n<summary>Old decisions</summary>\n{body}\n</details>\n"
        );
        assert_eq!(lost_when_rewritten_as(&folded).len(), 2);
        // Closed before the entries: they stay visible.
        let before = format!(
            "# Decision Log\n\n<details>\n<summary>Notes</summary>\n\nx\n\n</details>\n{body}"
        );
        assert!(lost_when_rewritten_as(&before).is_empty());
    }

    #[test]
    fn markup_inside_code_hides_nothing() {
        let quoted = format!(
            "{LOG}\nWrite `<!--` to start a comment, and:\n\n```html\n<details>\n<!--\n```\n"
        );
        assert!(lost_when_rewritten_as(&quoted).is_empty());
        assert_eq!(titles(&quoted).len(), 2);
    }
}

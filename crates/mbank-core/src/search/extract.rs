//! A project's memory as passages to search: every heading's section of every memory file
//! its banks list (the agents' stores outside the project included), and every decision
//! the timeline reads, each with its heading path and lines. Backups and foreign files in a
//! bank folder are not memory and are left out; so is everything `<private>` hides, and a
//! whole file marked `private: true`.
use crate::analysis::decisions;
use crate::analysis::membership::{FileClass, classify};
use crate::formats::agents::{Agent, ProjectFacts};
use crate::io::text::read_text_limited;
use crate::markup::markdown;
use crate::model::{Bank, MemoryFile, Project, Role};

/// Memory files over this size are not searched (a memory file an agent reads is far
/// smaller; a log this large is named by `check`).
pub(crate) const MAX_SEARCHED_BYTES: u64 = 4 * 1024 * 1024;

/// What a passage is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PassageKind {
    /// A heading's section of a memory file (or the text before its first heading).
    Section,
    /// One decision the timeline reads.
    Decision,
}

impl PassageKind {
    pub fn id(self) -> &'static str {
        match self {
            PassageKind::Section => "section",
            PassageKind::Decision => "decision",
        }
    }
}

/// A decision's facts as search shows them.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DecisionFacts {
    pub title: String,
    /// `accepted`, `superseded` … (the timeline's statuses).
    pub status: String,
    /// `2025-06-10`, when dated.
    pub date: Option<String>,
}

/// One passage of one file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Passage {
    pub kind: PassageKind,
    /// The headings above and of the passage, outermost first.
    pub headings: Vec<String>,
    /// 1-based, inclusive.
    pub start_line: u32,
    pub end_line: u32,
    /// The passage's lines, with what `<private>` hides blanked.
    pub text: String,
    pub decision: Option<DecisionFacts>,
}

/// One memory file and its passages.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SearchedFile {
    pub path: String,
    /// Relative to the project, as every view shows it.
    pub display: String,
    pub format: String,
    pub role: String,
    /// Seconds since the epoch of its last modification, when known.
    pub modified: Option<i64>,
    /// The agents that load it at session start (`Agent::ALL` positions, as bits).
    pub agents: u32,
    pub passages: Vec<Passage>,
}

/// Words that say what a file of each role holds, searched with its passages so a question
/// about "the stack" or "what is left to do" finds the file whose role that is.
pub(crate) fn role_words(role: Role) -> &'static str {
    match role {
        Role::Brief => "project brief overview scope goals requirements",
        Role::Product => "product purpose users problems experience goals why",
        Role::Patterns => "system architecture design patterns components structure",
        Role::Tech => "technology stack tools dependencies setup environment constraints",
        Role::Active => "active current focus work recent changes next steps",
        Role::Progress => "progress status done working remaining known issues",
        Role::Decisions => "decision log decisions rationale",
        Role::Rules => "rules guidelines conventions",
        Role::Instructions => "instructions guidelines conventions commands",
        Role::Session => "session notes",
        Role::Adr => "architecture decision record",
        Role::Glossary => "glossary terms definitions",
        Role::Config => "configuration",
        Role::Other => "",
    }
}

/// Every memory file of `project`'s banks, read and cut into passages. Unreadable files
/// and files over `MAX_SEARCHED_BYTES` are left out; `problems` names them.
pub fn project_files(
    project: &Project,
    banks: &[Bank],
    problems: &mut Vec<String>,
) -> Vec<SearchedFile> {
    let bank_refs: Vec<&Bank> = banks.iter().collect();
    let facts = ProjectFacts::of_banks(&project.path, &bank_refs);
    let mut decisions_by_file: std::collections::HashMap<
        std::path::PathBuf,
        Vec<decisions::Decision>,
    > = std::collections::HashMap::new();
    for decision in decisions::decisions_of_project(&project.path, banks) {
        decisions_by_file
            .entry(decision.file.clone())
            .or_default()
            .push(decision);
    }
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for bank in banks {
        for file in &bank.files {
            if file.is_virtual() || file.unreadable.is_some() || !seen.insert(file.path.clone()) {
                continue;
            }
            if !is_memory(bank, file) {
                continue;
            }
            let Some(text) = read_visible(&file.path, file.size, &file.display, problems) else {
                continue;
            };
            let rel = file.path.strip_prefix(&project.path).unwrap_or(&file.path);
            let agents = Agent::ALL
                .iter()
                .enumerate()
                .filter(|(_, agent)| agent.reads(bank.format, rel, &facts))
                .fold(0u32, |bits, (at, _)| bits | (1 << at));
            let mut passages = sections(&text);
            if let Some(found) = decisions_by_file.get(&file.path) {
                // The private blocks blanked once per file, not once per decision: a
                // log of thousands of entries would otherwise cost entries × its size.
                let visible = without_private(&text);
                let lines: Vec<&str> = visible.lines().collect();
                passages.extend(found.iter().map(|d| decision_passage(d, &lines)));
            }
            out.push(SearchedFile {
                path: file.path.to_string_lossy().into_owned(),
                display: file.display.clone(),
                format: bank.format.id().to_string(),
                role: file.role.id().to_string(),
                modified: file.modified.and_then(seconds),
                agents,
                passages,
            });
        }
    }
    out
}

/// A memory file's text to search, or `None` when none of it is: over
/// [`MAX_SEARCHED_BYTES`] or unreadable (`problems` names it), or marked `private: true`.
pub(super) fn read_visible(
    path: &std::path::Path,
    size: u64,
    display: &str,
    problems: &mut Vec<String>,
) -> Option<String> {
    if !within_search_limit(size, display, problems) {
        return None;
    }
    visible(
        read_text_limited(path, MAX_SEARCHED_BYTES),
        display,
        problems,
    )
}

/// [`read_visible`] for a file below `anchor`, opened through a handle on `anchor` with
/// no link followed below it: a file checked as no link and swapped for one since is
/// refused, not followed.
pub(super) fn read_visible_below(
    anchor: &std::path::Path,
    path: &std::path::Path,
    size: u64,
    display: &str,
    problems: &mut Vec<String>,
) -> Option<String> {
    if !within_search_limit(size, display, problems) {
        return None;
    }
    let Ok(rel) = path.strip_prefix(anchor) else {
        problems.push(format!("{display}: not below {}", anchor.display()));
        return None;
    };
    let read = crate::io::dir_handle::Dir::open_anchor(anchor)
        .map_err(crate::error::CoreError::from)
        .and_then(|dir| crate::io::text::read_text_in(&dir, rel));
    let text = match read {
        Ok(Some(read)) if read.text.len() as u64 > MAX_SEARCHED_BYTES => {
            within_search_limit(read.text.len() as u64, display, problems);
            return None;
        }
        Ok(Some(read)) => Ok(read.text),
        // Gone since it was listed: nothing to search.
        Ok(None) => return None,
        Err(error) => Err(error),
    };
    visible(text, display, problems)
}

fn within_search_limit(size: u64, display: &str, problems: &mut Vec<String>) -> bool {
    if size > MAX_SEARCHED_BYTES {
        problems.push(format!(
            "{display} is over {} MiB: not searched",
            MAX_SEARCHED_BYTES / (1024 * 1024)
        ));
        return false;
    }
    true
}

fn visible(
    read: crate::error::Result<String>,
    display: &str,
    problems: &mut Vec<String>,
) -> Option<String> {
    let text = match read {
        Ok(text) => text,
        Err(error) => {
            problems.push(format!("{display}: {error}"));
            return None;
        }
    };
    (!markdown::is_private_file(&text)).then_some(text)
}

pub(super) fn seconds(time: std::time::SystemTime) -> Option<i64> {
    time.duration_since(std::time::UNIX_EPOCH)
        .ok()
        .and_then(|d| i64::try_from(d.as_secs()).ok())
}

/// Memory, not a backup copy or a foreign file kept in the bank's folder.
fn is_memory(bank: &Bank, file: &MemoryFile) -> bool {
    match file.path.strip_prefix(&bank.root) {
        Ok(rel) if !rel.as_os_str().is_empty() => classify(rel) == FileClass::Memory,
        _ => true,
    }
}

/// The text with every line a `<private>` block hides (tags included) blanked, so line
/// numbers stay those of the file.
fn without_private(text: &str) -> String {
    let blocks = markdown::private_blocks(text);
    if blocks.is_empty() {
        return text.to_string();
    }
    text.lines()
        .enumerate()
        .map(|(index, line)| {
            let number = index + 1;
            let hidden = blocks
                .iter()
                .any(|b| number >= b.start && b.end.is_none_or(|end| number <= end));
            if hidden { "" } else { line }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The file cut at its headings (outside code fences): one passage per heading, and one
/// for the text before the first heading when it holds anything but frontmatter.
pub(crate) fn sections(text: &str) -> Vec<Passage> {
    let text = without_private(text);
    let lines: Vec<&str> = text.lines().collect();
    // Ranges come sorted: one cursor walks them with the lines, so a file of many fences
    // costs lines + fences steps, not their product.
    let fences = markdown::fenced_lines(&text);
    let mut next_fence = 0;
    let body_start = frontmatter_lines(&text);
    let mut out = Vec::new();
    let mut stack: Vec<(usize, String)> = Vec::new();
    let mut current: Option<(Vec<String>, usize)> = None;
    let mut preamble_start = body_start + 1;
    let close = |headings: Vec<String>, start: usize, end: usize, out: &mut Vec<Passage>| {
        if end < start {
            return;
        }
        let body = lines[start - 1..end].join("\n");
        // A heading with nothing under it before the next one says nothing by itself.
        let said = if headings.is_empty() {
            &lines[start - 1..end]
        } else {
            &lines[start..end]
        };
        if said.iter().all(|l| l.trim().is_empty()) {
            return;
        }
        out.push(Passage {
            kind: PassageKind::Section,
            headings,
            start_line: start as u32,
            end_line: end as u32,
            text: body,
            decision: None,
        });
    };
    for (index, line) in lines.iter().enumerate() {
        let number = index + 1;
        while fences.get(next_fence).is_some_and(|&(_, end)| end < number) {
            next_fence += 1;
        }
        let fenced = fences
            .get(next_fence)
            .is_some_and(|&(start, _)| start <= number);
        if number <= body_start || fenced {
            continue;
        }
        let Some((level, title)) = markdown::heading(line) else {
            continue;
        };
        match current.take() {
            Some((headings, start)) => close(headings, start, number - 1, &mut out),
            None => close(Vec::new(), preamble_start, number - 1, &mut out),
        }
        preamble_start = usize::MAX;
        while stack.last().is_some_and(|(l, _)| *l >= level) {
            stack.pop();
        }
        stack.push((level, title));
        current = Some((stack.iter().map(|(_, t)| t.clone()).collect(), number));
    }
    match current {
        Some((headings, start)) => close(headings, start, lines.len(), &mut out),
        None if preamble_start <= lines.len() => {
            close(Vec::new(), preamble_start, lines.len(), &mut out)
        }
        None => {}
    }
    out
}

/// How many lines a closed frontmatter block takes at the top (0 without one).
fn frontmatter_lines(text: &str) -> usize {
    match markdown::frontmatter(text) {
        Some(_) => text
            .lines()
            .enumerate()
            .skip(1)
            .find(|(_, l)| l.trim_end() == "---")
            .map_or(0, |(i, _)| i + 1),
        None => 0,
    }
}

/// A decision's passage, from its file's `lines` with the private blocks blanked.
fn decision_passage(decision: &decisions::Decision, lines: &[&str]) -> Passage {
    let start = decision.line.max(1);
    let end = decision.end_line.max(start);
    let body = lines
        .get(start - 1..end.min(lines.len()))
        .unwrap_or_default()
        .join("\n");
    let mut headings: Vec<String> = decision.group.iter().cloned().collect();
    headings.push(match &decision.id {
        Some(id) if !decision.title.starts_with(id.as_str()) => format!("{id}: {}", decision.title),
        _ => decision.title.clone(),
    });
    Passage {
        kind: PassageKind::Decision,
        headings,
        start_line: start as u32,
        end_line: end as u32,
        text: body,
        decision: Some(DecisionFacts {
            title: decision.title.clone(),
            status: decision.status.id().to_string(),
            date: decision
                .date
                .map(|d| d.to_string())
                .or_else(|| decision.month.map(|m| m.to_string())),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_follow_headings_and_keep_their_path_and_lines() {
        let text = "---\ntitle: x\n---\nintro line\n# Top\nbody\n## Child\nchild body\n```\n# not a heading\n```\n# Next\n\n# Last\nend\n";
        let found = sections(text);
        let shape: Vec<(Vec<String>, u32, u32)> = found
            .iter()
            .map(|p| (p.headings.clone(), p.start_line, p.end_line))
            .collect();
        assert_eq!(
            shape,
            [
                (vec![], 4, 4),
                (vec!["Top".to_string()], 5, 6),
                (vec!["Top".to_string(), "Child".to_string()], 7, 11),
                (vec!["Last".to_string()], 14, 15),
            ]
        );
        assert!(found[2].text.contains("# not a heading"));
    }

    #[test]
    fn private_blocks_are_never_in_a_passage() {
        let text = "# Notes\npublic\n<private>\nsecret plan\n</private>\nafter\n";
        let found = sections(text);
        assert_eq!(found.len(), 1);
        assert!(!found[0].text.contains("secret"));
        assert_eq!((found[0].start_line, found[0].end_line), (1, 6));
        let unclosed = sections("# A\n<private>\nhidden to the end\n# B\nstill hidden\n");
        assert!(
            unclosed.iter().all(|p| !p.text.contains("hidden")),
            "{unclosed:?}"
        );
    }

    #[test]
    fn many_fences_and_headings_stay_linear() {
        let text = "# Head\n```\n# in code\n```\n".repeat(60_000);
        let found =
            crate::hang_guard::finishes("sections of 60,000 fences", move || sections(&text));
        assert_eq!(found.len(), 60_000);
        assert!(found.iter().all(|p| p.headings == ["Head"]));
    }

    #[test]
    fn an_empty_preamble_is_no_passage() {
        let found = sections("\n\n# Only\ntext\n");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].headings, ["Only"]);
    }
}

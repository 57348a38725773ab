//! Decisions of a bank or a project: its decision logs read (within the size limit,
//! else a finding) and parsed, the decision sections of its other memory files read,
//! then all linked and put in timeline order.
use std::collections::HashSet;

use super::links::link_supersessions;
use super::pointed::{Reached, pointed_files, read_pointed};
use super::sections::{log_summaries, parse_sections};
use super::text::{ADR_REF, adr_number, normalize_title};
use super::timeline::sort_timeline;
use super::{Decision, parse_file};
use crate::analysis::file_class;
use crate::analysis::placeholders::placeholder_lines;
use crate::error::CoreError;
use crate::findings::{Finding, Severity};
use crate::io::text;
use crate::limits;
use crate::model::{Bank, MemoryFile, Role};

/// Whether a file of a bank is memory; none of the decisions of another file are read.
fn is_memory(bank: &Bank, file: &MemoryFile) -> bool {
    file_class::is_memory_file(bank, file)
}

/// Decision files of a bank are those whose role is a decision log, and its rules named
/// as one (`.windsurf/rules/decisions.md`, `.cursor/rules/decision-log.mdc`): a rule the
/// agent reads before choosing, holding the choices made.
fn decision_files(bank: &Bank) -> impl Iterator<Item = &MemoryFile> {
    bank.files.iter().filter(|f| {
        !f.is_virtual()
            && (f.role.is_decision_log() || (f.role == Role::Rules && rule_named_as_log(f)))
            && is_memory(bank, f)
            && !is_form(bank, f)
    })
}

fn rule_named_as_log(file: &MemoryFile) -> bool {
    let name = file.file_name();
    match name.strip_suffix(".mdc") {
        Some(stem) => super::meaning::names_decision_log(&format!("{stem}.md")),
        None => super::meaning::names_decision_log(&name),
    }
}

/// A log kept as the form new logs are copied from (`decisions.template.md`,
/// `templates/decisionLog.md`): its entries are examples. A record's name decides for
/// itself (`0012-rules-over-template-based.md` is a record).
fn is_form(bank: &Bank, file: &MemoryFile) -> bool {
    file.role != Role::Adr
        && crate::formats::names::is_template(
            file.path.strip_prefix(&bank.root).unwrap_or(&file.path),
        )
}

/// The finding for a decision log over [`limits::DECISION_LOG_MAX_BYTES`]: it is not
/// parsed, so its decisions are missing from the timeline. When git tracks the log the
/// append-only check would have compared it with its committed version and did not:
/// that is an error (fail closed), since nothing else says entries may have been lost.
pub(crate) fn too_large_finding(
    path: &std::path::Path,
    size: u64,
    append_only_skipped: bool,
) -> Finding {
    let limit = limits::LimitExceeded::Size {
        syntax: limits::Syntax::Markdown,
        found: size,
        limit: limits::DECISION_LOG_MAX_BYTES,
    };
    if append_only_skipped {
        limit.finding(
            Severity::Error,
            path,
            "its decisions are missing from the timeline and the append-only check (no \
             entries lost since the last commit) did not run",
        )
    } else {
        limit.finding(
            Severity::Warning,
            path,
            "its decisions are missing from the timeline",
        )
    }
}

/// A decision log's text, or why it is left out: a log over the size limit is a
/// finding; other read errors are validation's to report.
fn read_log(path: &std::path::Path, problems: &mut Vec<Finding>) -> Option<String> {
    match text::read_text_limited(path, limits::DECISION_LOG_MAX_BYTES) {
        Ok(text) => Some(text),
        Err(CoreError::TooLarge { size, .. }) => {
            problems.push(too_large_finding(path, size, false));
            None
        }
        Err(_) => None,
    }
}

/// Decisions of one file as listed in a bank (display names relative to the project).
pub fn decisions_of_file(file: &MemoryFile, text: &str) -> Vec<Decision> {
    decisions_of_parsed(&file.display, text, parse_file(&file.path, file.role, text))
}

/// [`decisions_of_file`] of what [`parse_file`] found in `text`, the file shown as
/// `display`.
pub(crate) fn decisions_of_parsed(
    display: &str,
    text: &str,
    mut found: Vec<Decision>,
) -> Vec<Decision> {
    let mut unfilled = placeholder_lines(text);
    unfilled.sort_unstable();
    found.retain(|d| !is_change_log_entry(d) && !is_unfilled_template(d, text, &unfilled));
    // A table row naming a record the file holds (an index of its entries, "DEC-001 |
    // Architecture") repeats it.
    let records = found
        .iter()
        .filter(|d| d.style != super::DecisionStyle::TableRow);
    // Each record by its id, the number its title opens with ("DEC-001: …"), and its title.
    let recorded: HashSet<String> = records
        .flat_map(|d| {
            let opening = d
                .title
                .split([':', ' '])
                .next()
                .map(|word| word.trim_matches(['[', ']', '(', ')', '#']))
                .filter(|word| word.chars().any(|c| c.is_ascii_digit()))
                .map(str::to_string);
            [d.id.clone(), opening, Some(normalize_title(&d.title))]
        })
        .flatten()
        .collect();
    found.retain(|d| {
        let repeats = d.id.as_ref().is_some_and(|id| recorded.contains(id))
            || recorded.contains(&normalize_title(&d.title));
        d.style != super::DecisionStyle::TableRow || !repeats
    });
    // "## ADR-068: X (continued)" goes on with the record above it, not a second one.
    let mut ids = HashSet::new();
    found.retain(|d| {
        let seen = d.id.as_ref().is_some_and(|id| !ids.insert(id.clone()));
        !(seen && continues(&d.title))
    });
    for d in &mut found {
        d.display = display.to_string();
    }
    found
}

/// Words saying a heading goes on with the record of the same id above it.
const CONTINUED: [&str; 10] = [
    "continued",
    "cont.",
    "continuation",
    "continuación",
    "continuação",
    "fortsetzung",
    "продолжение",
    "续",
    "続き",
    "계속",
];

fn continues(title: &str) -> bool {
    mentions_any(title, &CONTINUED)
}

/// Whether `text`, lower-cased, holds any of `words` (given lower-case).
fn mentions_any(text: &str, words: &[&str]) -> bool {
    let lower = text.to_lowercase();
    words.iter().any(|word| lower.contains(word))
}

/// "Change Log Entry [2025-07-05]" in a decision log records an edit of the log, not a
/// decision.
fn is_change_log_entry(decision: &Decision) -> bool {
    let title = decision.title.trim_start().to_lowercase();
    title.starts_with("change log") || title.starts_with("changelog")
}

/// A template's example entry ("## Decision 1" with `[Date]`, `[Context]` …): every line
/// of its body still holds a placeholder (`unfilled`, 1-based lines of the file).
fn is_unfilled_template(decision: &Decision, text: &str, unfilled: &[usize]) -> bool {
    let body: Vec<usize> = text
        .lines()
        .enumerate()
        .map(|(index, line)| (index + 1, line))
        .filter(|(number, line)| {
            *number > decision.line && *number <= decision.end_line && !line.trim().is_empty()
        })
        .map(|(number, _)| number)
        .collect();
    !body.is_empty() && body.iter().all(|n| unfilled.binary_search(n).is_ok())
}

/// Logs with more titles than this are matched against section entries by exact title
/// only.
const MAX_TITLES_COMPARED: usize = 2_000;

/// Whether a memory file is markdown that may hold decision sections: not a decision log
/// (those are parsed whole), not a virtual memory, readable.
fn may_hold_sections(file: &MemoryFile) -> bool {
    let name = file.file_name().to_ascii_lowercase();
    // Rule files instruct the agent; their "decision" sections are workflow, not record.
    !file.is_virtual()
        && file.role != Role::Rules
        && !file.role.is_decision_log()
        && file.unreadable.is_none()
        && [".md", ".markdown", ".mdc", ".mdx"]
            .iter()
            .any(|ext| name.ends_with(ext))
}

/// Decisions written in the decision sections ("## Key Decisions", "Recent Decisions" …)
/// of a bank's memory files other than its decision logs. An entry that repeats one of
/// `logged` (the same ADR number, the same title, or a title of three words or more
/// inside the other), is left out: the log holds the record, the section only mentions
/// it. A file over the decision-log size limit or unreadable is skipped (it is no log;
/// validation reports unreadable files).
pub(crate) fn section_decisions<'d>(
    bank: &Bank,
    logged: impl Iterator<Item = &'d Decision> + Clone,
) -> Vec<Decision> {
    if !crate::formats::rules(bank.format).has_decision_sections() {
        return Vec::new();
    }
    let logged = Logged::new(logged);
    let mut out = Vec::new();
    // Instructions kept among a folder's records (`docs/adr/AGENTS.md`) say how to write
    // them; their sections are no decisions.
    let among_records = |file: &MemoryFile| {
        file.path
            .strip_prefix(&bank.root)
            .is_ok_and(crate::formats::adr_records::in_records_folder)
    };
    for file in bank
        .files
        .iter()
        .filter(|f| may_hold_sections(f) && is_memory(bank, f) && !among_records(f))
    {
        let Ok(text) = text::read_text_limited(&file.path, limits::DECISION_LOG_MAX_BYTES) else {
            continue;
        };
        let cites = logged.citations(&text);
        // A section pointing to the log for the record sums the log up.
        let summaries = if logged.is_empty() {
            Vec::new()
        } else {
            log_summaries(&text)
        };
        let sums_up = |d: &Decision| {
            summaries
                .iter()
                .any(|&(from, to)| (from..=to).contains(&d.line))
        };
        out.extend(
            parse_sections(&file.path, &file.display, &text)
                .into_iter()
                .filter(|d| !logged.restated_by(d) && !cites.logged_record(d) && !sums_up(d)),
        );
    }
    out
}

/// What the logs hold, to leave out the section entries that repeat it.
struct Logged {
    ids: HashSet<u32>,
    titles: HashSet<String>,
    /// Titles of several words, for "PostGIS for nearest-cell lookup" against the log's
    /// "Use PostGIS for nearest-cell lookup" (padded with spaces, so whole words match).
    long_titles: Vec<String>,
}

impl Logged {
    /// Whether the logs hold nothing.
    fn is_empty(&self) -> bool {
        self.ids.is_empty() && self.titles.is_empty()
    }

    fn new<'d>(logged: impl Iterator<Item = &'d Decision> + Clone) -> Logged {
        let ids = logged
            .clone()
            .filter_map(|d| d.id.as_deref().and_then(adr_number))
            .collect();
        let titles: HashSet<String> = logged.map(|d| normalize_title(&d.title)).collect();
        let long_titles = titles
            .iter()
            .filter(|t| t.split(' ').count() >= 3)
            .map(|t| format!(" {t} "))
            .collect();
        Logged {
            ids,
            titles,
            long_titles,
        }
    }

    /// The ADR numbers `text` cites on each of its lines that the logs hold.
    fn citations(&self, text: &str) -> Citations {
        let mut lines = Vec::new();
        if !self.ids.is_empty()
            && text
                .as_bytes()
                .windows(3)
                .any(|w| w.eq_ignore_ascii_case(b"adr"))
        {
            for (index, line) in text.lines().enumerate() {
                let cited: Vec<u32> = ADR_REF
                    .find_iter(line)
                    .filter(|m| !names_a_replacement(&line[..m.start()]))
                    .filter_map(|m| adr_number(m.as_str()))
                    .filter(|n| self.ids.contains(n))
                    .collect();
                if !cited.is_empty() {
                    lines.push((index + 1, cited));
                }
            }
        }
        Citations { lines }
    }

    /// Whether `entry` repeats a logged one: the same ADR number, the same title, or a
    /// title of three words or more inside the other.
    fn restated_by(&self, entry: &Decision) -> bool {
        let repeats_id = entry
            .id
            .as_deref()
            .and_then(adr_number)
            .is_some_and(|n| self.ids.contains(&n));
        if repeats_id {
            return true;
        }
        let title = normalize_title(&entry.title);
        if self.titles.contains(&title) {
            return true;
        }
        // Compared with every logged title: bounded, so a huge log costs no more than
        // the exact match above.
        if title.split(' ').count() < 3 || self.long_titles.len() > MAX_TITLES_COMPARED {
            return false;
        }
        let padded = format!(" {title} ");
        self.long_titles
            .iter()
            .any(|t| t.contains(&padded) || padded.contains(t.as_str()))
    }
}

/// Words that say the record named after them is replaced ("superseding ADR-001",
/// "取代 ADR-3"): the entry is a decision of its own.
const REPLACING: [&str; 9] = [
    "supersed",
    "replac",
    "取代",
    "替代",
    "заменя",
    "ersetz",
    "reemplaz",
    "remplac",
    "substitu",
];

/// Whether the text before a cited record, on its line, says the record is replaced.
fn names_a_replacement(before: &str) -> bool {
    mentions_any(before, &REPLACING)
}

/// Where a memory file cites records the logs hold (`| Zone signal (ADR-063) |`, "full
/// rationale in ADR-076"): 1-based lines and the numbers cited there.
struct Citations {
    lines: Vec<(usize, Vec<u32>)>,
}

impl Citations {
    /// Whether `entry` sends the reader to a logged record for itself: a line of it cites
    /// one it does not say it supersedes. A summary of the log, not a decision of its own.
    fn logged_record(&self, entry: &Decision) -> bool {
        let superseded: Vec<u32> = entry
            .supersedes
            .iter()
            .filter_map(|id| adr_number(id))
            .collect();
        let from = self.lines.partition_point(|(line, _)| *line < entry.line);
        self.lines[from..]
            .iter()
            .take_while(|(line, _)| *line <= entry.end_line)
            .any(|(_, cited)| cited.iter().any(|n| !superseded.contains(n)))
    }
}

/// What the memory of a project's banks points to outside them ([`pointed_decisions`]).
#[derive(Debug, Default)]
pub(crate) struct PointedDecisions {
    /// Entries of the logs and records it names: records in their own right, which the
    /// banks' decision sections are compared with.
    pub records: Vec<Decision>,
    /// Decision sections of markdown it imports or names: they count where they add to
    /// what the banks and the records hold, never in place of it.
    pub sections: Vec<Decision>,
}

impl PointedDecisions {
    /// Adds them to the project's `decisions`, which hold every bank's already: the
    /// records, then the sections that repeat none of them.
    pub(crate) fn append_to(self, decisions: &mut Vec<Decision>) {
        // A log the memory names that copies a bank's own (the same title on the same
        // day) adds nothing.
        let kept: HashSet<(String, Option<chrono::NaiveDate>)> = decisions
            .iter()
            .map(|d| (normalize_title(&d.title), d.date))
            .collect();
        decisions.extend(
            self.records
                .into_iter()
                .filter(|d| !kept.contains(&(normalize_title(&d.title), d.date))),
        );
        let logged = Logged::new(decisions.iter());
        let sections: Vec<Decision> = self
            .sections
            .into_iter()
            .filter(|d| !logged.restated_by(d))
            .collect();
        decisions.extend(sections);
    }
}

/// The decisions of the logs and records the memory of `banks` points to in `project`
/// (`pointed`), and of the markdown it imports or names; a log too large to parse is a
/// finding in `problems`.
pub(crate) fn pointed_decisions(
    project: &std::path::Path,
    banks: &[Bank],
    problems: &mut Vec<Finding>,
) -> PointedDecisions {
    let mut out = PointedDecisions::default();
    let folder = crate::io::confine::ProjectFolder::new(project);
    for file in pointed_files(project, banks) {
        let text = match read_pointed(&folder, &file.path) {
            Ok(text) => text,
            Err(size) if size > 0 && file.role.is_decision_log() => {
                problems.push(too_large_finding(&file.path, size, false));
                continue;
            }
            Err(_) => continue,
        };
        if file.role.is_decision_log() {
            let parsed = parse_file(&file.path, file.role, &text);
            out.records
                .extend(decisions_of_parsed(&file.display, &text, parsed));
        } else {
            // Memory an instruction file imports: its decision sections, as the
            // importing file's own. Markdown it only names or links is not loaded with
            // it: an entry there counts where it carries what records a decision (a
            // date, an id, a status), not as any list under a "Decisions" heading.
            let named = file.reached == Reached::Named;
            out.sections.extend(
                parse_sections(&file.path, &file.display, &text)
                    .into_iter()
                    .filter(|d| !named || d.is_recorded()),
            );
        }
    }
    out
}

/// A project's decisions and the logs left out of them.
#[derive(Debug, Clone, Default)]
pub struct ProjectDecisions {
    /// Every decision of every bank, in timeline order.
    pub decisions: Vec<Decision>,
    /// Decision logs that were not parsed ([`too_large_finding`]).
    pub problems: Vec<Finding>,
}

/// Every decision of a project's banks as listed (its logs' and its decision sections'),
/// and of the logs and records their memory points to (`pointed`), in timeline order,
/// with a finding for each log too large to parse. The caller lists the banks, so the
/// analysis stays above the scan that lists them.
pub fn project_decisions(project: &std::path::Path, banks: &[Bank]) -> ProjectDecisions {
    let mut out = ProjectDecisions::default();
    let pointed = pointed_decisions(project, banks, &mut out.problems);
    for bank in banks {
        let mut logged = Vec::new();
        for file in decision_files(bank) {
            if let Some(text) = read_log(&file.path, &mut out.problems) {
                logged.extend(decisions_of_file(file, &text));
            }
        }
        let sections = section_decisions(bank, logged.iter().chain(&pointed.records));
        out.decisions.extend(logged);
        out.decisions.extend(sections);
    }
    pointed.append_to(&mut out.decisions);
    drop_record_indexes(&mut out.decisions);
    link_supersessions(&mut out.decisions);
    sort_timeline(&mut out.decisions);
    out
}

/// Leaves out the lines of a list that index records kept as files of their own
/// (`- **ADR-001**: Command-line design` beside `docs/adr/ADR-001-….md`): an undated
/// list item with a record number, in a project that keeps its records one per file,
/// names a record (the project's, or another project's it cites) rather than making one.
fn drop_record_indexes(decisions: &mut Vec<Decision>) {
    use super::DecisionStyle::{Adr, ListItem};
    // Owned, as `retain` below needs the list mutably: one path per record file.
    let record_files: HashSet<std::path::PathBuf> = decisions
        .iter()
        .filter(|d| d.style == Adr && d.line == 1)
        .map(|d| d.file.clone())
        .collect();
    if record_files.is_empty() {
        return;
    }
    decisions.retain(|d| {
        let indexes = d.style == ListItem
            && d.id.as_deref().and_then(adr_number).is_some()
            && d.date.is_none()
            && d.month.is_none()
            && !record_files.contains(&d.file);
        !indexes
    });
}

/// Every decision of a project's banks, in timeline order.
pub fn decisions_of_project(project: &std::path::Path, banks: &[Bank]) -> Vec<Decision> {
    project_decisions(project, banks).decisions
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn log_file() -> MemoryFile {
        MemoryFile::for_test(
            PathBuf::from("memory-bank/decision-log.md"),
            "memory-bank/decision-log.md",
            Role::Decisions,
        )
    }

    /// A Cline bank at `root` listing `files` (relative to it) in their roles.
    fn cline_bank(root: &std::path::Path, files: &[(&str, Role)]) -> Bank {
        let files = files
            .iter()
            .map(|(rel, role)| MemoryFile::for_test(root.join(rel), rel, *role))
            .collect();
        Bank::for_test(crate::model::Format::Cline, root.to_path_buf(), files)
    }

    fn titles(text: &str) -> Vec<String> {
        decisions_of_file(&log_file(), text)
            .into_iter()
            .map(|d| d.title)
            .collect()
    }

    #[test]
    fn a_templates_unfilled_example_entries_are_not_decisions() {
        let template = "# Decision Log\n\n## Decision 1\n- **Date:** [Date]\n- **Context:** [Context]\n\
                        - **Decision:** [Decision]\n\n## Decision 2\n- **Date:** [Date]\n- **Context:** [Context]\n";
        assert!(titles(template).is_empty(), "{:?}", titles(template));
        // One filled field makes it an entry.
        let filled = "# Decision Log\n\n## Decision 1\n- **Date:** 2025-03-02\n- **Context:** [Context]\n\
                      - **Decision:** Use SQLite for the cache\n";
        assert_eq!(titles(filled), ["Decision 1"]);
    }

    #[test]
    fn decisions_in_backup_copies_and_forms_are_not_read() {
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path().join("memory-bank");
        let log = "# Decision Log\n\n## 2025-03-02 - Use SQLite\n**Decision:** SQLite\n";
        for rel in [
            "decisionLog.md",
            "backup/decisionLog.md",
            "decisionLog.md.bak",
            "decisions.template.md",
        ] {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, log).unwrap();
        }
        let file = |rel: &str| MemoryFile {
            path: root.join(rel),
            display: format!("memory-bank/{rel}"),
            ..log_file()
        };
        let bank = Bank::for_test(
            crate::model::Format::Cline,
            root.clone(),
            vec![
                file("decisionLog.md"),
                file("backup/decisionLog.md"),
                file("decisionLog.md.bak"),
                file("decisions.template.md"),
            ],
        );
        let found = decisions_of_project(temp.path(), &[bank]);
        let where_: Vec<&str> = found.iter().map(|d| d.display.as_str()).collect();
        assert_eq!(where_, ["memory-bank/decisionLog.md"]);
    }

    #[test]
    fn a_rule_named_as_a_decision_log_is_read_as_one() {
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path().to_path_buf();
        let log = "---\ntrigger: model_decision\n---\n\n# Architecture Decision Records\n\n\
## ADR-001 — Data-only messages\n\n**Date:** 2026-04-05\n**Decision:** Data only.\n";
        for rel in [
            ".windsurf/rules/decisions.md",
            ".windsurf/rules/style.md",
            ".cursor/rules/decision-log.mdc",
        ] {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, log).unwrap();
        }
        let bank = |format, rels: &[&str]| {
            let files = rels
                .iter()
                .map(|rel| MemoryFile::for_test(root.join(rel), rel, Role::Rules))
                .collect();
            Bank::for_test(format, root.clone(), files)
        };
        let banks = [
            bank(
                crate::model::Format::Windsurf,
                &[".windsurf/rules/decisions.md", ".windsurf/rules/style.md"],
            ),
            bank(
                crate::model::Format::CursorRules,
                &[".cursor/rules/decision-log.mdc"],
            ),
        ];
        let found: Vec<(String, String)> = decisions_of_project(&root, &banks)
            .into_iter()
            .map(|d| (d.display, d.title))
            .collect();
        let entry = |file: &str| (file.to_string(), "Data-only messages".to_string());
        assert_eq!(
            found,
            [
                entry(".cursor/rules/decision-log.mdc"),
                entry(".windsurf/rules/decisions.md")
            ]
        );
    }

    #[test]
    fn a_record_continued_under_a_second_heading_is_one_entry() {
        let text = "# Decisions\n\n## ADR-068: Deduction-funded payments\n**Status:** Accepted\n\n\
## ADR-069: Ad-hoc income\n**Status:** Accepted\n\n\
## ADR-068: Deduction-funded payments (continued)\n**Status:** Accepted\n";
        assert_eq!(titles(text), ["Deduction-funded payments", "Ad-hoc income"]);
    }

    #[test]
    fn an_index_table_of_the_log_s_own_records_repeats_them() {
        let text = "# Decision Log\n\n## [DEC-001] - Use SQLite\n**Status:** Accepted\n\n\
## Decision Categories\n\n| ID | Decision | Category |\n|---|---|---|\n\
| DEC-001 | Use SQLite | Storage |\n| DEC-009 | Ship one binary | Release |\n";
        assert_eq!(titles(text), ["[DEC-001] - Use SQLite", "Ship one binary"]);
    }

    #[test]
    fn change_log_entries_of_a_decision_log_are_not_decisions() {
        let text = "# Decision Log\n\n## Architectural Decisions\n\n### AD-001: Use JOOQ\n\
                    - **Decision**: JOOQ for database access\n\n### Change Log Entry [2025-07-05]\n\
                    - **What**: Initial file creation\n- **Why**: Setting up the bank\n";
        assert_eq!(titles(text), ["AD-001: Use JOOQ"]);
    }

    #[test]
    fn the_entries_of_a_log_the_memory_points_to_are_read_once_and_not_restated() {
        let temp = tempfile::tempdir().unwrap();
        let project = temp.path();
        let write = |rel: &str, text: &str| {
            let path = project.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write(
            "docs/ai/decisions.md",
            "# Decisions\n\n## 2025-03-02: Use SQLite for the project cache\n\
             **Decision**: SQLite, one file per project.\n",
        );
        write(
            "CLAUDE.md",
            "# Project\n\n@docs/ai/decisions.md\n\n## Key Decisions\n\
             - Use SQLite for the project cache\n- Ship one binary\n",
        );
        write(
            "AGENTS.md",
            "Record decisions in `docs/ai/decisions.md`.\n@docs/ai/stack.md\n",
        );
        write(
            "docs/ai/stack.md",
            "# Stack\n\n## Approved decisions\n\n- Use SQLite for the project cache\n- Deploy on Fly\n",
        );
        let bank = |format, rel: &str| {
            let file = MemoryFile::for_test(project.join(rel), rel, Role::Instructions);
            Bank::for_test(format, project.to_path_buf(), vec![file])
        };
        let banks = [
            bank(crate::model::Format::ClaudeMd, "CLAUDE.md"),
            bank(crate::model::Format::AgentsMd, "AGENTS.md"),
        ];
        let found: Vec<(String, String)> = decisions_of_project(project, &banks)
            .into_iter()
            .map(|d| (d.display, d.title))
            .collect();
        assert_eq!(
            found,
            [
                (
                    "docs/ai/decisions.md".to_string(),
                    "Use SQLite for the project cache".to_string()
                ),
                ("CLAUDE.md".to_string(), "Ship one binary".to_string()),
                // An imported file's sections count; what the log holds is not repeated.
                ("docs/ai/stack.md".to_string(), "Deploy on Fly".to_string()),
            ]
        );
    }

    #[test]
    fn a_memory_entry_citing_a_logged_record_summarises_it() {
        let temp = tempfile::tempdir().unwrap();
        let root = temp.path().join("memory-bank");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(
            root.join("decisionLog.md"),
            "# Decision Log\n\n## ADR-001: Nano model\n**Status:** Accepted\n\n\
             ## ADR-063: Zone signal\n**Status:** Accepted\n",
        )
        .unwrap();
        std::fs::write(
            root.join("progress.md"),
            "# Progress\n\n## Key Decisions\n\n| Decision | Rationale |\n|---|---|\n\
             | Zone as primary signal (ADR-063) | fewer misses |\n\
             | Keep the nightly build | cheap |\n\
             | Drop the v1 signal, superseding ADR-001 | replaced |\n\n\
             ## Design Decisions (this session)\n\n- Retry twice on timeouts\n  \
             Full rationale in ADR-001.\n- Log every miss\n",
        )
        .unwrap();
        let bank = cline_bank(
            &root,
            &[
                ("decisionLog.md", Role::Decisions),
                ("progress.md", Role::Progress),
            ],
        );
        let titles: Vec<String> = decisions_of_project(temp.path(), &[bank])
            .into_iter()
            .filter(|d| d.display.ends_with("progress.md"))
            .map(|d| d.title)
            .collect();
        assert_eq!(
            titles,
            [
                "Keep the nightly build",
                "Drop the v1 signal, superseding ADR-001",
                "Log every miss"
            ]
        );
    }

    #[test]
    fn a_summary_the_memory_names_never_replaces_the_records_the_memory_holds() {
        let temp = tempfile::tempdir().unwrap();
        let project = temp.path();
        std::fs::write(
            project.join("CLAUDE.md"),
            "# Project\n\nSee [README.md](README.md).\n\n## Architecture Decisions\n\n\
             ### ADR-001: Use SQLite for the cache\n- **Status:** Accepted\n- **Date:** 2025-11-17\n",
        )
        .unwrap();
        std::fs::write(
            project.join("README.md"),
            "# Shop\n\n## Decisions\n\n| ID | Decision | Status |\n|---|---|---|\n\
             | ADR-001 | SQLite | Accepted |\n| ADR-009 | Ship one binary | Accepted |\n",
        )
        .unwrap();
        let file = MemoryFile::for_test(project.join("CLAUDE.md"), "CLAUDE.md", Role::Instructions);
        let bank = Bank::for_test(
            crate::model::Format::ClaudeMd,
            project.to_path_buf(),
            vec![file],
        );
        let found: Vec<(String, String, Option<String>)> = decisions_of_project(project, &[bank])
            .into_iter()
            .map(|d| (d.display, d.title, d.date.map(|d| d.to_string())))
            .collect();
        assert_eq!(
            found,
            [
                (
                    "CLAUDE.md".to_string(),
                    "Use SQLite for the cache".to_string(),
                    Some("2025-11-17".to_string())
                ),
                ("README.md".to_string(), "Ship one binary".to_string(), None),
            ]
        );
    }

    #[test]
    fn a_named_log_copying_a_bank_s_own_adds_only_what_it_has_more() {
        let temp = tempfile::tempdir().unwrap();
        let project = temp.path();
        let root = project.join("memory-bank");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(project.join(".notes")).unwrap();
        let entry = "## 2025-03-02 - Use SQLite\n**Decision:** SQLite\n\n";
        std::fs::write(
            root.join("decisionLog.md"),
            format!("# Decision Log\n\n{entry}"),
        )
        .unwrap();
        std::fs::write(
            root.join("activeContext.md"),
            "# Active\n\nDecisions are copied to `.notes/decisions.md`.\n",
        )
        .unwrap();
        std::fs::write(
            project.join(".notes/decisions.md"),
            format!("# Decisions\n\n{entry}## 2025-03-09 - Ship one binary\n**Decision:** one\n"),
        )
        .unwrap();
        let bank = cline_bank(
            &root,
            &[
                ("decisionLog.md", Role::Decisions),
                ("activeContext.md", Role::Active),
            ],
        );
        let found: Vec<(String, String)> = decisions_of_project(project, &[bank])
            .into_iter()
            .map(|d| (d.display, d.title))
            .collect();
        assert_eq!(
            found,
            [
                ("decisionLog.md".to_string(), "Use SQLite".to_string()),
                (
                    ".notes/decisions.md".to_string(),
                    "Ship one binary".to_string()
                ),
            ]
        );
    }

    #[test]
    fn decision_sections_of_markdown_the_memory_links_are_read() {
        let temp = tempfile::tempdir().unwrap();
        let project = temp.path().join("sub").join("..").join("project");
        let write = |rel: &str, text: &str| {
            let path = temp.path().join("project").join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        std::fs::create_dir_all(temp.path().join("sub")).unwrap();
        write(
            "CLAUDE.md",
            "# Project\n\nSession notes live in [.claude/memory.md](.claude/memory.md).\n",
        );
        write(
            ".claude/memory.md",
            "# Memory\n\n## Decisions Made\n\n| Date | Decision | Why |\n|---|---|---|\n\
             | 2026-01-24 | Single shared database | One place to back up |\n\
             | 2026-01-29 | Direct push workflow | Solo project |\n\n## Open Tasks\n- Fix the build\n",
        );
        let file = MemoryFile::for_test(project.join("CLAUDE.md"), "CLAUDE.md", Role::Instructions);
        let bank = Bank::for_test(crate::model::Format::ClaudeMd, project.clone(), vec![file]);
        let found: Vec<(String, String, Option<String>)> = decisions_of_project(&project, &[bank])
            .into_iter()
            .map(|d| {
                // Paths keep the project as it was named, `..` and all.
                assert!(d.file.starts_with(&project), "{}", d.file.display());
                (d.display, d.title, d.date.map(|date| date.to_string()))
            })
            .collect();
        let entry = |title: &str, date: &str| {
            (
                ".claude/memory.md".to_string(),
                title.to_string(),
                Some(date.to_string()),
            )
        };
        assert_eq!(
            found,
            [
                entry("Single shared database", "2026-01-24"),
                entry("Direct push workflow", "2026-01-29")
            ]
        );
    }

    #[test]
    fn instructions_kept_among_records_say_how_to_write_them() {
        let temp = tempfile::tempdir().unwrap();
        let project = temp.path();
        let text = "# ADRs (Architecture Decision Records)\n\n## Naming and numbering\n\n\
                    - Status: `Proposed` | `Accepted`\n- Decision: what was decided\n";
        for rel in ["docs/adr/AGENTS.md", "AGENTS.md"] {
            std::fs::create_dir_all(project.join(rel).parent().unwrap()).unwrap();
            std::fs::write(project.join(rel), text).unwrap();
        }
        let bank = |rel: &str| {
            let file = MemoryFile::for_test(project.join(rel), rel, Role::Instructions);
            Bank::for_test(
                crate::model::Format::AgentsMd,
                project.to_path_buf(),
                vec![file],
            )
        };
        let among_records = decisions_of_project(project, &[bank("docs/adr/AGENTS.md")]);
        assert!(among_records.is_empty(), "{among_records:?}");
        // The same sections at the project's top are read as they always were.
        assert!(!decisions_of_project(project, &[bank("AGENTS.md")]).is_empty());
    }

    #[test]
    fn a_pointed_log_over_the_limit_is_a_finding_and_is_not_read() {
        let temp = tempfile::tempdir().unwrap();
        let project = temp.path();
        let entry = "## 2025-03-02: Use SQLite\n**Decision**: SQLite.\n\n";
        let big = entry.repeat(limits::DECISION_LOG_MAX_BYTES as usize / entry.len() + 1);
        std::fs::write(project.join("DECISIONS.md"), big).unwrap();
        let found = project_decisions(project, &[]);
        assert!(found.decisions.is_empty());
        assert_eq!(found.problems.len(), 1, "{:?}", found.problems);
        assert!(found.problems[0].file.ends_with("DECISIONS.md"));
    }
}

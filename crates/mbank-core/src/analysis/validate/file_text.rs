//! The checks on one file's content: which files are read at all, and for those the
//! format's own text rules, syntax, headings, impossible dates, placeholders and (ConKeeper)
//! `.memory-config.md`, `<private>` blocks and tags.

use std::path::Path;

use super::at_bank_top;
use super::conkeeper_tags::check_tags;
use super::memory_config::{frontmatter_line, parse_memory_config_detailed};
use super::syntax::{check_conflict_markers, check_frontmatter, check_json_document};
use crate::analysis::placeholders::placeholder_lines;
use crate::findings::{Finding, FindingCode, Severity};
use crate::formats::{self, HeadingRule};
use crate::limits::{self, Syntax};
use crate::markup::markdown;
use crate::model::{Bank, Format, LoadKind, MemoryFile};

pub(super) fn is_markdown_path(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("md") || e.eq_ignore_ascii_case("markdown"))
}

fn is_memory_bank_format(format: Format) -> bool {
    formats::rules(format).is_memory_folder()
}

/// Files whose content validation reads: everything that loads, plus ConKeeper's
/// `.memory-config.md`. Mode rule files are modes.rs's; virtual files live in the store.
pub(super) fn wants_content_checks(bank: &Bank, file: &MemoryFile) -> bool {
    // The Infinity store is checked as a whole by `check_infinity`.
    let rules = formats::rules(bank.format);
    if file.is_virtual() || rules.is_store() {
        return false;
    }
    let name = file.file_name();
    if rules.holds_mode_rules()
        && at_bank_top(bank, file)
        && (name == formats::roo_rules::ROOMODES || formats::mode_of_rule_file(&name).is_some())
    {
        return false;
    }
    if rules.settings_file() == Some(name.as_ref()) {
        return true;
    }
    file.load != LoadKind::Never
        || (formats::memory_bank_mcp::document_bank_dir(&bank.root).is_some()
            && name.to_ascii_lowercase().ends_with(".json"))
}

/// `bank_proven`: whether the bank's contents prove its format
/// ([`formats::FormatRules::contents_prove_format`]), worked out once per bank.
pub(super) fn check_file_text(
    bank: &Bank,
    file: &MemoryFile,
    text: &str,
    bank_proven: bool,
    out: &mut Vec<Finding>,
) {
    let path = file.path.as_path();
    let name = file.file_name();
    let rules = formats::rules(bank.format);
    if rules.settings_file() == Some(name.as_ref()) && at_bank_top(bank, file) {
        if let Some(fm) = markdown::frontmatter(text)
            && let Err(limit) = limits::check(fm.yaml, Syntax::Yaml, limits::FRONTMATTER)
        {
            let mut finding = limit.finding(
                Severity::Error,
                path,
                "ConKeeper's settings in it are not read (every default applies)",
            );
            finding.line = Some(frontmatter_line(&fm, &limit));
            out.push(finding);
            return;
        }
        for issue in parse_memory_config_detailed(text).1 {
            out.push(Finding::new(
                issue.severity,
                FindingCode::MemoryConfig,
                path,
                Some(issue.line),
                issue.message,
            ));
        }
        return;
    }
    if name.to_ascii_lowercase().ends_with(".json") {
        check_json_document(path, text, out);
        return;
    }
    if text.trim().is_empty() {
        out.push(Finding::new(
            Severity::Warning,
            FindingCode::EmptyFile,
            path,
            None,
            "the file is empty: the agent loads nothing from it",
        ));
        return;
    }
    let rules = formats::rules(bank.format);
    out.extend(rules.check_text(file, text));
    if !is_markdown_path(path) {
        return;
    }
    if !rules.lenient_frontmatter() {
        check_frontmatter(path, text, out);
    }
    check_conflict_markers(path, text, out);
    if let Err(limit) = limits::check(text, Syntax::Markdown, limits::MARKDOWN) {
        out.push(limit.finding(
            Severity::Warning,
            path,
            "the preview shows it as plain text",
        ));
    }
    let heading_severity = match rules.heading_rule(file, bank_proven) {
        HeadingRule::None => None,
        HeadingRule::Borrowed => Some(Severity::Info),
        HeadingRule::Required => Some(Severity::Warning),
    };
    let body = markdown::frontmatter(text).map_or(text, |fm| &text[fm.body_start..]);
    if let Some(severity) = heading_severity
        && !markdown::has_heading(body)
    {
        let guidelines = crate::findings::RuleSource::ClineMemoryBank;
        let source = if severity == Severity::Info {
            format!("borrowed from {guidelines}, so information only")
        } else {
            format!("{guidelines} ask for one per file")
        };
        out.push(Finding::new(
            severity,
            FindingCode::NoHeading,
            path,
            None,
            format!(
                "no markdown heading (#): agents and people navigate memory files by their \
                 headings ({source})"
            ),
        ));
    }
    let impossible = crate::analysis::staleness::impossible_dates(text);
    if let Some((line, date)) = impossible.first() {
        let more = match impossible.len() - 1 {
            0 => String::new(),
            n => format!(
                " ({} more in the file)",
                crate::io::text::counted(n, "other")
            ),
        };
        out.push(Finding::new(
            Severity::Warning,
            FindingCode::ImpossibleDate,
            path,
            Some(*line),
            format!(
                "{date} is not a day of the calendar (month and day swapped?){more}: \
                 staleness and the timeline cannot use it"
            ),
        ));
    }
    // A bank's templates keep forms to copy: their slots are theirs to hold.
    let in_templates = crate::io::paths::relative_to(&file.path, &bank.root)
        .is_some_and(formats::names::is_template);
    if !in_templates {
        super::unusable::check(file, text, out);
    }
    if is_memory_bank_format(bank.format) && !in_templates {
        let lines = placeholder_lines(text);
        if let Some(&first) = lines.first() {
            out.push(Finding::new(
                Severity::Warning,
                FindingCode::UnfilledPlaceholder,
                path,
                Some(first),
                format!(
                    "{} still hold{} template placeholders like [Task 1] or [Date] \
                     (first on line {first})",
                    if lines.len() == 1 {
                        "1 line".to_string()
                    } else {
                        format!("{} lines", lines.len())
                    },
                    if lines.len() == 1 { "s" } else { "" }
                ),
            ));
        }
    }
    if rules.honours_private_blocks() {
        for block in markdown::private_blocks(text) {
            if block.end.is_none() {
                out.push(Finding::new(
                    Severity::Warning,
                    FindingCode::UnclosedPrivate,
                    path,
                    Some(block.start),
                    format!(
                        "<private> on line {} is never closed: it hides everything to the end \
                         of the file from automation",
                        block.start
                    ),
                ));
            }
        }
        check_tags(path, text, out);
    }
}

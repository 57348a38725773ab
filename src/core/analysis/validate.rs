//! Bank validation: the format rules as [`Finding`]s, each with a severity, a stable code,
//! a file and (where it points into the file) a line.
//!
//! Severity: *error* when the agent will load something wrong or nothing at all (a
//! missing required file, a broken store, an import cycle, a sensitive import, an
//! unparsable structured rule file); *warning* for a likely mistake (placeholders left in,
//! an unclosed `<private>`, ADR gaps, a tracked `*.local.md`); *info* for style.
//!
//! Every file is read defensively (`text::read_text`); a file that cannot be read
//! becomes one finding with the reason, never a panic. All checks are linear in the file
//! size, so a 500 KB single-line file is as quick as a normal one. Structured text over
//! the parse limits (`limits`: frontmatter, JSON documents, the Infinity store, mode
//! files, decision logs, markdown nesting for the preview) is not parsed; it is a
//! `parse-limit` finding instead.
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use regex::Regex;
use serde_norway::Value as YamlValue;

use crate::core::analysis::decisions;
use crate::core::analysis::imports::{self, Expander, ImportPolicy};
use crate::core::conflict_markers;
use crate::core::findings::{Finding, Severity};
use crate::core::formats::infinity;
use crate::core::formats::roo_rules::modes;
use crate::core::formats::{self, ExpectedFiles};
use crate::core::limits::{self, Syntax};
use crate::core::markdown;
use crate::core::model::{Bank, Format, LoadKind, MemoryFile, Project, Role};
use crate::core::paths;
use crate::core::text;

/// What the caller knows that validation needs but does not compute itself.
#[derive(Debug, Clone, Default)]
pub struct ValidationContext {
    /// Files git tracks (absolute, or relative to the project folder); `None` when the
    /// project is not a git repository.
    pub tracked_by_git: Option<HashSet<PathBuf>>,
    /// The home folder, for `~/` imports; `None` when unknown.
    pub home: Option<PathBuf>,
}

impl ValidationContext {
    /// No git information, the home folder from the environment.
    pub fn from_env() -> Self {
        ValidationContext {
            tracked_by_git: None,
            home: paths::home_dir(),
        }
    }
}

// ---------------------------------------------------------------------------------------
// `.memory-config.md`
// ---------------------------------------------------------------------------------------

/// ConKeeper's token presets (the ConKeeper schema); the schema's config comment also names `compact`.
pub const TOKEN_BUDGET_PRESETS: [&str; 5] = ["economy", "light", "standard", "detailed", "compact"];
const OUTPUT_STYLES: [&str; 3] = ["quiet", "normal", "explanatory"];
const MEMORY_CONFIG_KEYS: [&str; 8] = [
    "suggest_memories",
    "auto_load",
    "output_style",
    "token_budget",
    "auto_sync_threshold",
    "hard_block_threshold",
    "context_window_tokens",
    "staleness_commits",
];

/// Settings of a ConKeeper `.memory-config.md`; `None` means "not set, use the default".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemoryConfig {
    pub suggest_memories: Option<bool>,
    pub auto_load: Option<bool>,
    pub output_style: Option<String>,
    /// economy / light / standard / detailed (or compact).
    pub token_budget: Option<String>,
    /// Context usage percent (0–100) that triggers an automatic memory sync.
    pub auto_sync_threshold: Option<u8>,
    /// Context usage percent (0–100) at which prompts are blocked until a sync.
    pub hard_block_threshold: Option<u8>,
    pub context_window_tokens: Option<u64>,
    /// Commits since a file last changed before it counts as stale (users add this).
    pub staleness_commits: Option<u32>,
}

/// A problem in `.memory-config.md`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigIssue {
    /// 1-based line in the file.
    pub line: usize,
    pub severity: Severity,
    pub message: String,
}

/// Parses `.memory-config.md`: the settings that are valid, and `(line, message)` for
/// each problem (unclosed frontmatter, invalid YAML, unknown keys, bad values).
pub fn parse_memory_config(text: &str) -> (MemoryConfig, Vec<(usize, String)>) {
    let (config, issues) = parse_memory_config_detailed(text);
    (
        config,
        issues.into_iter().map(|i| (i.line, i.message)).collect(),
    )
}

/// The file line of a limit found in the frontmatter.
fn frontmatter_line(fm: &markdown::Frontmatter<'_>, limit: &limits::LimitExceeded) -> usize {
    limit
        .line()
        .map_or(fm.first_line, |l| fm.first_line + l - 1)
}

fn yaml_error_line(error: &serde_norway::Error, first_line: usize) -> usize {
    error
        .location()
        .map_or(first_line, |l| first_line + l.line() - 1)
}

/// Like [`parse_memory_config`], with a severity per problem: syntax errors (the file is
/// ignored) are errors, unknown keys and bad values (the default is used) warnings.
pub fn parse_memory_config_detailed(text: &str) -> (MemoryConfig, Vec<ConfigIssue>) {
    let mut config = MemoryConfig::default();
    let mut issues = Vec::new();
    let mut issue = |line, severity, message: String| {
        issues.push(ConfigIssue {
            line,
            severity,
            message,
        })
    };
    if text.trim().is_empty() {
        return (config, issues);
    }
    if markdown::has_unclosed_frontmatter(text) {
        issue(
            1,
            Severity::Error,
            "frontmatter opened with --- is never closed; ConKeeper ignores every setting".into(),
        );
        return (config, issues);
    }
    let Some(fm) = markdown::frontmatter(text) else {
        issue(
            1,
            Severity::Warning,
            "no YAML frontmatter (--- … ---) at the top; ConKeeper reads settings only from there"
                .into(),
        );
        return (config, issues);
    };
    if let Err(limit) = limits::check(fm.yaml, Syntax::Yaml, limits::FRONTMATTER) {
        issue(
            frontmatter_line(&fm, &limit),
            Severity::Error,
            format!("frontmatter was not parsed: {limit}; every setting is ignored"),
        );
        return (config, issues);
    }
    let value: YamlValue = match serde_norway::from_str(fm.yaml) {
        Ok(v) => v,
        Err(e) => {
            issue(
                yaml_error_line(&e, fm.first_line),
                Severity::Error,
                format!("invalid YAML, every setting is ignored: {e}"),
            );
            return (config, issues);
        }
    };
    let mapping = match value {
        YamlValue::Mapping(m) => m,
        YamlValue::Null => return (config, issues),
        _ => {
            issue(
                fm.first_line,
                Severity::Error,
                "frontmatter must be `key: value` lines".into(),
            );
            return (config, issues);
        }
    };
    let key_lines: HashMap<&str, usize> = fm
        .yaml
        .lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let key = l.split(':').next()?;
            (!l.starts_with([' ', '\t', '#']) && l.contains(':'))
                .then(|| (key.trim().trim_matches(['"', '\'']), fm.first_line + i))
        })
        .collect();
    for (key, value) in &mapping {
        let key_text = match key {
            YamlValue::String(s) => s.clone(),
            other => format!("{other:?}"),
        };
        let line = key_lines
            .get(key_text.as_str())
            .copied()
            .unwrap_or(fm.first_line);
        let bad = |what: &str| format!("{key_text}: {what}; the default is used");
        if value.is_null() {
            issue(line, Severity::Warning, bad("has no value"));
            continue;
        }
        match key_text.as_str() {
            "suggest_memories" | "auto_load" => match value.as_bool() {
                Some(b) if key_text == "auto_load" => config.auto_load = Some(b),
                Some(b) => config.suggest_memories = Some(b),
                None => issue(line, Severity::Warning, bad("must be true or false")),
            },
            "output_style" => match value.as_str() {
                Some(s) if OUTPUT_STYLES.contains(&s) => config.output_style = Some(s.into()),
                _ => issue(
                    line,
                    Severity::Warning,
                    bad(&format!("must be one of {}", OUTPUT_STYLES.join(", "))),
                ),
            },
            "token_budget" => match value.as_str() {
                Some(s) if TOKEN_BUDGET_PRESETS.contains(&s) => {
                    config.token_budget = Some(s.into())
                }
                _ => issue(
                    line,
                    Severity::Warning,
                    bad(&format!(
                        "must be a preset: {}",
                        TOKEN_BUDGET_PRESETS[..4].join(", ")
                    )),
                ),
            },
            "auto_sync_threshold" | "hard_block_threshold" => {
                match value.as_u64().filter(|n| *n <= 100) {
                    Some(n) if key_text == "auto_sync_threshold" => {
                        config.auto_sync_threshold = Some(n as u8)
                    }
                    Some(n) => config.hard_block_threshold = Some(n as u8),
                    None => issue(
                        line,
                        Severity::Warning,
                        bad("must be a whole percentage from 0 to 100"),
                    ),
                }
            }
            "context_window_tokens" => match value.as_u64().filter(|n| *n > 0) {
                Some(n) => config.context_window_tokens = Some(n),
                None => issue(
                    line,
                    Severity::Warning,
                    bad("must be a positive whole number"),
                ),
            },
            "staleness_commits" => {
                match value
                    .as_u64()
                    .filter(|n| *n > 0)
                    .and_then(|n| u32::try_from(n).ok())
                {
                    Some(n) => config.staleness_commits = Some(n),
                    None => issue(
                        line,
                        Severity::Warning,
                        bad("must be a positive whole number"),
                    ),
                }
            }
            _ => {
                let normalized = key_text.replace('-', "_").to_ascii_lowercase();
                let hint = MEMORY_CONFIG_KEYS
                    .iter()
                    .find(|k| **k == normalized)
                    .map(|k| format!(" (did you mean {k}?)"))
                    .unwrap_or_default();
                issue(
                    line,
                    Severity::Warning,
                    format!(
                        "unknown key {key_text}{hint}; known keys: {}",
                        MEMORY_CONFIG_KEYS.join(", ")
                    ),
                );
            }
        }
    }
    if let (Some(auto), Some(hard)) = (config.auto_sync_threshold, config.hard_block_threshold)
        && auto >= hard
    {
        let line = key_lines
            .get("hard_block_threshold")
            .copied()
            .unwrap_or(fm.first_line);
        issue(
            line,
            Severity::Warning,
            format!(
                "hard_block_threshold ({hard}) is not above auto_sync_threshold ({auto}): \
                 prompts are blocked before an automatic sync can run"
            ),
        );
    }
    (config, issues)
}

// ---------------------------------------------------------------------------------------
// Template placeholders
// ---------------------------------------------------------------------------------------

/// `YYYY-MM-DD`, `HH:MM`, `YYYY-MM-DD HH:MM:SS`: date-format tokens left from a template.
fn is_format_token(content: &str) -> bool {
    content.chars().all(|c| "YMDHS:-/. T".contains(c))
        && (content.contains("YYYY") || content.contains("MM") || content.contains("HH"))
}

/// Bracketed text that reads like template prose: `Task 1`, `Date`, `Name of the
/// project`, `YYYY-MM-DD`. Not checkboxes, footnotes, alerts, timestamps, numbers, code or
/// all-caps status markers (`[DONE]`, `[WIP]`).
fn is_placeholder_content(content: &str) -> bool {
    let content = content.trim();
    // `[x]` is a checkbox, however it is spaced.
    if content.chars().count() < 2 || content.chars().count() > 80 {
        return false;
    }
    if is_format_token(content) {
        return true;
    }
    if content.contains(['=', '{', '}', '<', '>', '`', '$', '\\', '|', ';', '@']) {
        return false;
    }
    let Some(first) = content.chars().next() else {
        return false;
    };
    if !first.is_alphabetic() {
        return false;
    }
    if starts_with_task_id(content) {
        // `[T19 Phase 2 Refactor]`, `[TASK-12] …`: a filled-in task reference.
        return false;
    }
    let has_lower = content.chars().any(char::is_lowercase);
    if !has_lower {
        // `[DONE]`, `[WIP]`, `[x]`-like markers.
        return false;
    }
    if first.is_uppercase() {
        return true;
    }
    // Lower-case template words (`[author]`, `[date]`): short, letters only.
    content.split_whitespace().count() <= 3
        && content
            .chars()
            .all(|c| c.is_alphabetic() || c == ' ' || c == '-')
}

/// Whether bracketed text opens with a task id: letters then digits in one word
/// (`T19`, `TASK-12`, `ABC_7`, `m3`), which a template never writes.
fn starts_with_task_id(content: &str) -> bool {
    let word = content.split_whitespace().next().unwrap_or_default();
    let letters = word.chars().take_while(|c| c.is_alphabetic()).count();
    let rest: String = word.chars().skip(letters).collect();
    let digits = rest.trim_start_matches(['-', '_', '#']);
    letters > 0
        && letters <= 8
        && !digits.is_empty()
        && digits.chars().all(|c| c.is_ascii_digit() || c == '.')
        && digits.starts_with(|c: char| c.is_ascii_digit())
}

/// Whether a line introduces a template shown as documentation: a heading or a label
/// that names a format, template or example ("## Entry format", "**Format:**", "Example:").
fn introduces_template(line: &str) -> bool {
    let words = line
        .trim()
        .trim_start_matches('#')
        .trim_matches(|c: char| c == '*' || c == '_' || c.is_whitespace())
        .to_lowercase();
    let is_heading = line.trim_start().starts_with('#');
    let label = words.trim_end_matches(['*', '_', ' ']);
    let names_one = |w: &str| {
        ["format", "template", "example", "examples"]
            .iter()
            .any(|k| w.split(|c: char| !c.is_alphanumeric()).any(|t| t == *k))
    };
    (is_heading && names_one(&words)) || (label.ends_with(':') && names_one(label))
}

/// Lines that show a template rather than fill one in: block quotes, and everything from a
/// line introducing a format, template or example to the next heading.
fn documentation_mask(text: &str) -> Vec<bool> {
    // The heading level a template section runs under (0: a label, to the next heading).
    let mut section: Option<usize> = None;
    text.lines()
        .map(|line| {
            let trimmed = line.trim_start();
            let level = trimmed.chars().take_while(|c| *c == '#').count();
            if level > 0 && trimmed[level..].starts_with([' ', '\t']) {
                if section.is_some_and(|open| open == 0 || level <= open) {
                    section = None;
                }
                if section.is_none() && introduces_template(line) {
                    section = Some(level);
                }
                return section.is_some();
            }
            if section.is_none() && introduces_template(line) {
                section = Some(0);
            }
            section.is_some() || trimmed.starts_with('>')
        })
        .collect()
}

/// Whether a line is an unfilled template line: at least one placeholder and, besides
/// placeholders and markdown decoration, at most two words (`- **Date:** [Date]`,
/// `### Phase 1: [Name] — [Status]`). Links `[x](y)`, `[x][y]`, `[x]: y`, images,
/// wikilinks `[[x]]`, checkboxes and code spans never count. Linear in the line length.
fn line_is_placeholder(line: &str) -> bool {
    if !line.contains('[') {
        return false;
    }
    let spans = imports::code_span_ranges(line);
    let bytes = line.as_bytes();
    let mut span_cursor = 0;
    let mut placeholders = 0;
    let mut residue_words = 0;
    let mut in_word = false;
    let count_text = |text: &str, residue_words: &mut usize, in_word: &mut bool| {
        for c in text.chars() {
            if c.is_alphanumeric() {
                if !*in_word {
                    *residue_words += 1;
                }
                *in_word = true;
            } else {
                *in_word = false;
            }
        }
    };
    let mut i = 0;
    let mut text_start = 0;
    while i < bytes.len() {
        while span_cursor < spans.len() && spans[span_cursor].1 <= i {
            span_cursor += 1;
        }
        if let Some(&(start, end)) = spans.get(span_cursor)
            && start <= i
        {
            i = end;
            continue;
        }
        if bytes[i] != b'[' {
            i += 1;
            continue;
        }
        if bytes.get(i + 1) == Some(&b'[') {
            // Wikilink: its text is content, not template.
            i += 2;
            continue;
        }
        // The closing `]`, unless another `[` comes first (then restart there).
        let mut j = i + 1;
        while j < bytes.len() && bytes[j] != b']' && bytes[j] != b'[' {
            j += 1;
        }
        if j >= bytes.len() || bytes[j] == b'[' {
            i = j;
            continue;
        }
        let content = &line[i + 1..j];
        let after = bytes.get(j + 1).copied();
        let is_link = matches!(after, Some(b'(') | Some(b'[') | Some(b':'))
            || (i > 0 && bytes[i - 1] == b'!');
        if !is_link && is_placeholder_content(content) {
            count_text(&line[text_start..i], &mut residue_words, &mut in_word);
            in_word = false;
            placeholders += 1;
            text_start = j + 1;
        }
        i = j + 1;
    }
    count_text(&line[text_start..], &mut residue_words, &mut in_word);
    placeholders > 0 && residue_words <= 2
}

/// 1-based lines of unfilled template placeholders, outside code fences, block quotes
/// and sections that show a format, template or example.
pub fn placeholder_lines(text: &str) -> Vec<usize> {
    let fenced = imports::fenced_line_mask(text);
    let documentation = documentation_mask(text);
    text.lines()
        .enumerate()
        .filter(|(i, line)| {
            !fenced.get(*i).copied().unwrap_or(false)
                && !documentation.get(*i).copied().unwrap_or(false)
                && line_is_placeholder(line)
        })
        .map(|(i, _)| i + 1)
        .collect()
}

// ---------------------------------------------------------------------------------------
// ConKeeper tags and ADRs
// ---------------------------------------------------------------------------------------

const MEMORY_CATEGORIES: [&str; 5] = ["decision", "pattern", "bugfix", "convention", "learning"];
const RETRO_CATEGORIES: [&str; 5] = ["efficiency", "quality", "ux", "knowledge", "architecture"];
const MAX_TAG_LINE_CHARS: usize = 80;

fn tag_line_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"^\s*<!--\s*@(category|tag)\s*:\s*(.*?)\s*-->\s*$").expect("constant regex")
    })
}

fn tag_value_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"^[a-z][a-z0-9-]*$").expect("constant regex"))
}

fn adr_name_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"^ADR-(\d{3,})-(?:(\d{8})-(\d{4})-)?[a-z0-9]+(?:-[a-z0-9]+)*\.md$")
            .expect("constant regex")
    })
}

/// `<!-- @category: x -->` and `<!-- @tag: x -->` lines (the ConKeeper schema, "Category Tags").
fn check_tags(path: &Path, text: &str, out: &mut Vec<Finding>) {
    let fenced = imports::fenced_line_mask(text);
    for (index, line) in text.lines().enumerate() {
        if fenced.get(index).copied().unwrap_or(false)
            || !(line.contains("<!-- @") || line.contains("<!--@"))
        {
            continue;
        }
        let number = Some(index + 1);
        let trimmed = line.trim();
        if !(trimmed.starts_with("<!--")
            && (trimmed.contains("@category") || trimmed.contains("@tag")))
        {
            continue;
        }
        if trimmed.chars().count() > MAX_TAG_LINE_CHARS {
            out.push(Finding::new(
                Severity::Warning,
                "tag-line-too-long",
                path,
                number,
                format!(
                    "tag line is {} characters; the limit is {MAX_TAG_LINE_CHARS}",
                    trimmed.chars().count()
                ),
            ));
        }
        let Some(captures) = tag_line_regex().captures(line) else {
            out.push(Finding::new(
                Severity::Warning,
                "tag-syntax",
                path,
                number,
                "tag line must be exactly `<!-- @category: value -->` or `<!-- @tag: value -->`, \
                 one tag per line",
            ));
            continue;
        };
        let kind = captures.get(1).map_or("", |m| m.as_str());
        let value = captures.get(2).map_or("", |m| m.as_str());
        if value.contains("-->") || !tag_value_regex().is_match(value) {
            out.push(Finding::new(
                Severity::Warning,
                "tag-syntax",
                path,
                number,
                format!(
                    "@{kind} value {value:?} must be lower-case letters, digits and hyphens, \
                     starting with a letter"
                ),
            ));
        } else if kind == "category"
            && !MEMORY_CATEGORIES.contains(&value)
            && !RETRO_CATEGORIES.contains(&value)
        {
            out.push(Finding::new(
                Severity::Warning,
                "unknown-category",
                path,
                number,
                format!(
                    "@category {value:?} is not one of {} (or {}); use @tag for free-form labels",
                    MEMORY_CATEGORIES.join(", "),
                    RETRO_CATEGORIES.join(", ")
                ),
            ));
        }
    }
}

struct AdrFile<'a> {
    number: u32,
    name: String,
    path: &'a Path,
    timestamped: bool,
}

/// ADR naming (ConKeeper), duplicate numbers and numbering gaps (any format).
fn check_adrs(bank: &Bank, out: &mut Vec<Finding>) {
    let mut adrs: Vec<AdrFile<'_>> = Vec::new();
    for file in &bank.files {
        if file.is_virtual() || file.role != Role::Adr {
            continue;
        }
        let name = file.file_name();
        let Some(number) = formats::adr_number(&name) else {
            continue;
        };
        let captures = adr_name_regex().captures(&name);
        let timestamped = captures.as_ref().is_some_and(|c| c.get(2).is_some());
        if bank.format == Format::ConKeeper && captures.is_none() {
            out.push(Finding::new(
                Severity::Info,
                "adr-naming",
                &file.path,
                None,
                format!(
                    "{name} does not follow ADR-NNN-kebab-title.md (or \
                     ADR-NNN-YYYYMMDD-HHMM-title.md)"
                ),
            ));
        }
        adrs.push(AdrFile {
            number,
            name: name.into_owned(),
            path: &file.path,
            timestamped,
        });
    }
    let mut by_number: BTreeMap<u32, Vec<&AdrFile<'_>>> = BTreeMap::new();
    for adr in &adrs {
        by_number.entry(adr.number).or_default().push(adr);
    }
    for (number, group) in &by_number {
        // Timestamped names exist precisely so concurrent sessions may share a number.
        if group.len() > 1 && !group.iter().all(|a| a.timestamped) {
            for adr in &group[1..] {
                out.push(Finding::new(
                    Severity::Warning,
                    "adr-duplicate-number",
                    adr.path,
                    None,
                    format!(
                        "{} reuses ADR number {number:03} already taken by {}",
                        adr.name, group[0].name
                    ),
                ));
            }
        }
    }
    let numbers: Vec<u32> = by_number.keys().copied().collect();
    for pair in numbers.windows(2) {
        let (low, high) = (pair[0], pair[1]);
        if high > low + 1 {
            let missing = if high - low == 2 {
                format!("{:03} is", low + 1)
            } else {
                format!("{:03}–{:03} are", low + 1, high - 1)
            };
            let next = by_number.get(&high).and_then(|g| g.first());
            out.push(Finding::new(
                Severity::Warning,
                "adr-numbering-gap",
                next.map_or(bank.root.as_path(), |a| a.path),
                None,
                format!("ADR {missing} missing between ADR-{low:03} and ADR-{high:03}"),
            ));
        }
    }
}

// ---------------------------------------------------------------------------------------
// Required files
// ---------------------------------------------------------------------------------------

fn at_bank_top(bank: &Bank, file: &MemoryFile) -> bool {
    file.path.parent() == Some(bank.root.as_path())
}

/// "1 file", "37 files".
fn files_phrase(n: usize) -> String {
    if n == 1 {
        "1 file".to_string()
    } else {
        format!("{n} files")
    }
}

fn check_required(bank: &Bank, out: &mut Vec<Finding>) {
    let ExpectedFiles {
        required,
        recommended,
    } = formats::rules(bank.format).expected_files(bank);
    let present: Vec<&MemoryFile> = bank
        .files
        .iter()
        .filter(|f| !f.is_virtual() && at_bank_top(bank, f) && f.load != LoadKind::Never)
        .collect();
    // A folder with memory files but none at its top loads nothing: whatever tool keeps it
    // (a JSON workflow store, say), it is not a bank of this format to hold core files.
    if !bank.files.is_empty()
        && !required.is_empty()
        && !bank.files.iter().any(|f| {
            !f.is_virtual() && at_bank_top(bank, f) && formats::names::is_markdown(&f.file_name())
        })
    {
        out.push(Finding::new(
            Severity::Info,
            "not-a-memory-bank",
            &bank.root,
            None,
            format!(
                "no markdown file at the top of this folder: nothing in it loads at session \
                 start, so it is not judged as a {} (its {} are another tool's data)",
                bank.format.label(),
                files_phrase(bank.files.len())
            ),
        ));
        return;
    }
    let top_files: Vec<&MemoryFile> = bank
        .files
        .iter()
        .filter(|f| !f.is_virtual() && at_bank_top(bank, f))
        .collect();
    for (list, severity, code, what) in [
        (
            required,
            Severity::Error,
            "missing-required-file",
            "required",
        ),
        (
            recommended,
            Severity::Warning,
            "missing-recommended-file",
            "recommended",
        ),
    ] {
        for &(role, name) in list {
            let holder = present.iter().find(|f| f.role == role);
            let expected_key = formats::name_key(name);
            match holder {
                // Held under another name of the name table: said, not faulted.
                Some(file) if formats::name_key(&file.file_name()) != expected_key => {
                    out.push(Finding::new(
                        Severity::Info,
                        "variant-file-name",
                        &file.path,
                        None,
                        format!(
                            "{name} not found; {} looks like it and is read as the {role} file",
                            file.file_name()
                        ),
                    ));
                }
                Some(_) => {}
                None => match top_files
                    .iter()
                    .find(|f| f.role == Role::Other && formats::names::lookalike_role(&f.file_name()) == Some(role))
                {
                    Some(lookalike) => out.push(Finding::new(
                        Severity::Info,
                        "variant-file-name",
                        &lookalike.path,
                        None,
                        format!(
                            "{name} not found; {} looks like it (rename it to {name} if it is the {role} file)",
                            lookalike.file_name()
                        ),
                    )),
                    None => out.push(Finding::new(
                        severity,
                        code,
                        &bank.root,
                        None,
                        format!(
                            "{what} file {name} ({role}) is missing from the {}",
                            bank.format.label()
                        ),
                    )),
                },
            }
        }
    }
    // Two spellings of one core file (activeContext.md and active-context.md): the agent
    // reads one and the other silently drifts.
    let mut seen: HashMap<Role, &MemoryFile> = HashMap::new();
    for file in &present {
        let core = required
            .iter()
            .chain(recommended.iter())
            .any(|(r, _)| *r == file.role);
        if !core {
            continue;
        }
        if let Some(first) = seen.get(&file.role) {
            out.push(Finding::new(
                Severity::Warning,
                "duplicate-core-file",
                &file.path,
                None,
                format!(
                    "{} and {} both hold the {} file",
                    first.file_name(),
                    file.file_name(),
                    file.role
                ),
            ));
        } else {
            seen.insert(file.role, file);
        }
    }
    if bank.format == Format::ConKeeper {
        for dir in ["decisions", "sessions"] {
            if !bank.root.join(dir).is_dir() {
                out.push(Finding::new(
                    Severity::Warning,
                    "missing-required-dir",
                    &bank.root,
                    None,
                    format!("required folder {dir}/ is missing (it may be empty, but must exist)"),
                ));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Infinity
// ---------------------------------------------------------------------------------------

fn infinity_issue_severity(message: &str) -> Severity {
    // Problems that make a memory unreachable or the store unusable are errors; cosmetic
    // schema drift (a title, a type, a timestamp) only warnings.
    let fatal = [
        "must be a JSON object",
        "missing array field",
        "is not an object",
        "has no string \"id\"",
        "duplicate memory id",
        "no string \"content\"",
    ];
    if fatal.iter().any(|f| message.contains(f)) {
        Severity::Error
    } else {
        Severity::Warning
    }
}

fn check_infinity(bank: &Bank, out: &mut Vec<Finding>) {
    let store = bank.root.join("memories.json");
    // A store behind a link out of the project is never read (its finding says so).
    if bank.reaches_outside(&store) {
        return;
    }
    if !store.exists() {
        out.push(Finding::new(
            Severity::Error,
            "infinity-store-missing",
            &bank.root,
            None,
            "memories.json is missing: the agent finds no memories",
        ));
        return;
    }
    let text = match text::read_text(&store) {
        Ok(t) => t,
        Err(e) => {
            out.push(Finding::new(
                Severity::Error,
                "unreadable-file",
                &store,
                None,
                format!("the store cannot be read: {e}"),
            ));
            return;
        }
    };
    let (parsed, issues) = match infinity::store::parse_store(&text) {
        Ok(parsed) => parsed,
        Err(infinity::store::JsonSyntaxError {
            limit: Some(limit), ..
        }) => {
            out.push(limit.finding(
                Severity::Error,
                &store,
                "its memories are not listed or checked",
            ));
            return;
        }
        Err(e) => {
            out.push(Finding::new(
                Severity::Error,
                "infinity-json",
                &store,
                Some(e.line),
                format!(
                    "malformed JSON at line {}, column {}: {}",
                    e.line, e.column, e.message
                ),
            ));
            return;
        }
    };
    for issue in issues {
        out.push(Finding::new(
            infinity_issue_severity(&issue.message),
            "infinity-schema",
            &store,
            Some(issue.line),
            issue.message,
        ));
    }
    let id_file = bank.root.join("project_id");
    if bank.reaches_outside(&id_file) {
        return;
    }
    match text::read_text_limited(&id_file, 4096) {
        Ok(id) => {
            let id = id.trim();
            if let Some(store_id) = &parsed.project_id
                && store_id != id
            {
                out.push(Finding::new(
                    Severity::Warning,
                    "infinity-project-id-mismatch",
                    &id_file,
                    Some(1),
                    format!("project_id file says {id:?} but memories.json says {store_id:?}"),
                ));
            }
        }
        Err(_) => out.push(Finding::new(
            Severity::Warning,
            "infinity-project-id-missing",
            &bank.root,
            None,
            "project_id is missing or unreadable: activate_project will mint a new project id",
        )),
    }
}

// ---------------------------------------------------------------------------------------
// Per-file content checks
// ---------------------------------------------------------------------------------------

fn is_markdown_path(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("md") || e.eq_ignore_ascii_case("markdown"))
}

fn is_memory_bank_format(format: Format) -> bool {
    matches!(
        format,
        Format::Cline | Format::MemoryBankMcp | Format::ConKeeper
    )
}

/// Files whose content validation reads: everything that loads, plus ConKeeper's
/// `.memory-config.md`. Mode rule files are modes.rs's; virtual files live in the store.
fn wants_content_checks(bank: &Bank, file: &MemoryFile) -> bool {
    // The Infinity store is checked as a whole by `check_infinity`.
    if file.is_virtual() || bank.format == Format::Infinity {
        return false;
    }
    let name = file.file_name();
    if bank.format == Format::RooRules
        && at_bank_top(bank, file)
        && (name == ".roomodes" || formats::mode_of_rule_file(&name).is_some())
    {
        return false;
    }
    if bank.format == Format::ConKeeper && name == ".memory-config.md" {
        return true;
    }
    file.load != LoadKind::Never
        || (formats::memory_bank_mcp::document_bank_dir(&bank.root).is_some()
            && name.to_ascii_lowercase().ends_with(".json"))
}

/// Cursor-style `globs: **/*` is the usual culprit: YAML reads a leading `*` as an alias.
fn yaml_hint(error: &serde_norway::Error) -> &'static str {
    if error.to_string().contains("alias") {
        " (a value starting with * must be quoted, e.g. globs: \"**/*\")"
    } else {
        ""
    }
}

fn check_frontmatter(path: &Path, text: &str, out: &mut Vec<Finding>) {
    if markdown::has_unclosed_frontmatter(text) {
        out.push(Finding::new(
            Severity::Error,
            "frontmatter-unclosed",
            path,
            Some(1),
            "frontmatter opened with --- is never closed: the whole file reads as metadata",
        ));
        return;
    }
    let Some(fm) = markdown::frontmatter(text) else {
        return;
    };
    if let Err(limit) = limits::check(fm.yaml, Syntax::Yaml, limits::FRONTMATTER) {
        let mut finding = limit.finding(
            Severity::Warning,
            path,
            "its frontmatter (metadata such as a rule's paths:) is not checked",
        );
        finding.line = Some(frontmatter_line(&fm, &limit));
        out.push(finding);
        return;
    }
    if let Err(e) = serde_norway::from_str::<YamlValue>(fm.yaml) {
        out.push(Finding::new(
            Severity::Warning,
            "frontmatter-invalid",
            path,
            Some(yaml_error_line(&e, fm.first_line)),
            format!("frontmatter is not valid YAML: {e}{}", yaml_hint(&e)),
        ));
    }
}

fn check_json_document(path: &Path, text: &str, out: &mut Vec<Finding>) {
    if let Err(limit) = limits::check(text, Syntax::Json, limits::JSON_STORE) {
        out.push(limit.finding(
            Severity::Error,
            path,
            "whether it is well-formed JSON is not checked",
        ));
        return;
    }
    if let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(text) {
        out.push(Finding::new(
            Severity::Error,
            "json-malformed",
            path,
            Some(e.line()),
            format!(
                "malformed JSON at line {}, column {}: {e}",
                e.line(),
                e.column()
            ),
        ));
    }
}

/// Unresolved merge-conflict markers: an agent would load both sides as memory.
fn check_conflict_markers(path: &Path, text: &str, out: &mut Vec<Finding>) {
    let markers = conflict_markers::find(text);
    if markers.is_empty() {
        return;
    }
    let severity = if markers.conflicts > 0 {
        Severity::Error
    } else {
        Severity::Warning
    };
    let first = markers
        .first_line
        .map(|line| format!(" (first on line {line})"))
        .unwrap_or_default();
    out.push(Finding::new(
        severity,
        "conflict-markers",
        path,
        markers.first_line,
        format!(
            "{}{first}: <<<<<<< / ======= / >>>>>>> lines an agent would read as memory; \
             keep one side and delete the markers",
            markers.describe()
        ),
    ));
}

fn check_file_text(bank: &Bank, file: &MemoryFile, text: &str, out: &mut Vec<Finding>) {
    let path = file.path.as_path();
    let name = file.file_name();
    if bank.format == Format::ConKeeper && name == ".memory-config.md" && at_bank_top(bank, file) {
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
                "memory-config",
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
            "empty-file",
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
    let body = markdown::frontmatter(text).map_or(text, |fm| &text[fm.body_start..]);
    if !markdown::has_heading(body) {
        out.push(Finding::new(
            Severity::Warning,
            "no-heading",
            path,
            None,
            "no markdown heading (#): agents and people navigate memory files by their headings",
        ));
    }
    let impossible = crate::core::analysis::staleness::impossible_dates(text);
    if let Some((line, date)) = impossible.first() {
        let more = match impossible.len() - 1 {
            0 => String::new(),
            n => format!(
                " ({} more in the file)",
                crate::core::text::counted(n, "other")
            ),
        };
        out.push(Finding::new(
            Severity::Warning,
            "impossible-date",
            path,
            Some(*line),
            format!(
                "{date} is not a day of the calendar (month and day swapped?){more}: \
                 staleness and the timeline cannot use it"
            ),
        ));
    }
    if is_memory_bank_format(bank.format) {
        let lines = placeholder_lines(text);
        if let Some(&first) = lines.first() {
            out.push(Finding::new(
                Severity::Warning,
                "unfilled-placeholder",
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
    if bank.format == Format::ConKeeper {
        for block in markdown::private_blocks(text) {
            if block.end.is_none() {
                out.push(Finding::new(
                    Severity::Warning,
                    "unclosed-private",
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

fn is_tracked(ctx: &ValidationContext, project: &Path, path: &Path) -> bool {
    let Some(tracked) = &ctx.tracked_by_git else {
        return false;
    };
    tracked.contains(path)
        || path
            .strip_prefix(project)
            .is_ok_and(|rel| tracked.contains(rel))
}

/// Validates one bank. Never panics on bad input; every problem is a finding.
pub fn validate_bank(project: &Project, bank: &Bank, ctx: &ValidationContext) -> Vec<Finding> {
    let mut out = Vec::new();
    if bank.format != Format::Infinity {
        for problem in &bank.problems {
            out.push(Finding::new(
                Severity::Warning,
                "listing-problem",
                &bank.root,
                None,
                problem.clone(),
            ));
        }
    }
    // A bank folder leading out of the project is reported as such, not as empty.
    if bank.reaches_outside(&bank.root) {
        return out;
    }
    check_required(bank, &mut out);
    if bank.format == Format::Infinity {
        check_infinity(bank, &mut out);
    }

    let expands = imports::format_expands_imports(bank.format);
    let mut expander =
        expands.then(|| Expander::new(ImportPolicy::new(&project.path, ctx.home.as_deref())));
    for file in &bank.files {
        out.extend(formats::instruction_files::local_ignored_finding(
            bank.format,
            file,
        ));
        if !file.is_virtual()
            && file.file_name().ends_with(".local.md")
            && is_tracked(ctx, &project.path, &file.path)
        {
            out.push(Finding::new(
                Severity::Warning,
                "local-file-tracked",
                &file.path,
                None,
                format!(
                    "{} is private memory but git tracks it: add it to .gitignore and \
                     `git rm --cached` it",
                    file.display
                ),
            ));
        }
        if !file.is_virtual()
            && file.role.is_decision_log()
            && file.size > limits::DECISION_LOG_MAX_BYTES
        {
            let tracked = is_tracked(ctx, &project.path, &file.path);
            out.push(decisions::too_large_finding(file, file.size, tracked));
        }
        if !wants_content_checks(bank, file) {
            continue;
        }
        let text = match text::read_text(&file.path) {
            Ok(text) => text,
            Err(e) => {
                let severity = if file.load == LoadKind::Startup {
                    Severity::Error
                } else {
                    Severity::Warning
                };
                out.push(Finding::new(
                    severity,
                    "unreadable-file",
                    &file.path,
                    None,
                    format!("cannot be loaded: {e}"),
                ));
                continue;
            }
        };
        check_file_text(bank, file, &text, &mut out);
        if let Some(expander) = expander.as_mut()
            && is_markdown_path(&file.path)
            && !expander.is_loaded(&file.path)
        {
            out.extend(expander.expand(&file.path, &text).findings);
        }
    }
    check_adrs(bank, &mut out);
    out.extend(modes::modes_of_bank(bank).1);
    out.sort_by(|a, b| (&a.file, a.line, a.code).cmp(&(&b.file, b.line, b.code)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_config_values_and_errors() {
        let text = "---\ntoken_budget: light\nstaleness_commits: 12\nauto_sync_threshold: 70\n\
                    hard_block_threshold: 101\nauto_load: yes\ntoken-budget: x\nmystery: 1\n---\n";
        let (config, issues) = parse_memory_config(text);
        assert_eq!(config.token_budget.as_deref(), Some("light"));
        assert_eq!(config.staleness_commits, Some(12));
        assert_eq!(config.auto_sync_threshold, Some(70));
        assert_eq!(config.hard_block_threshold, None);
        assert_eq!(config.auto_load, None);
        let lines: Vec<usize> = issues.iter().map(|(l, _)| *l).collect();
        assert_eq!(lines, vec![5, 6, 7, 8]);
        assert!(issues[0].1.contains("0 to 100"), "{}", issues[0].1);
        assert!(issues[1].1.contains("true or false"));
        assert!(issues[2].1.contains("did you mean token_budget?"));
        assert!(issues[3].1.starts_with("unknown key mystery"));
    }

    #[test]
    fn memory_config_syntax_errors_have_lines() {
        let (_, issues) = parse_memory_config_detailed("---\ntoken_budget: standard\n");
        assert_eq!(issues[0].line, 1);
        assert_eq!(issues[0].severity, Severity::Error);
        let (_, issues) = parse_memory_config_detailed("---\na: 1\nb: [x\nc: 2\n---\n");
        assert_eq!(issues.len(), 1);
        assert_eq!((issues[0].line, issues[0].severity), (4, Severity::Error));
        let (config, issues) = parse_memory_config_detailed(
            "---\ntoken_budget: compact\nauto_sync_threshold: 80\nhard_block_threshold: 60\n---\n",
        );
        assert_eq!(config.token_budget.as_deref(), Some("compact"));
        assert_eq!(issues.len(), 1);
        assert_eq!(issues[0].line, 4);
        let (config, issues) = parse_memory_config_detailed("");
        assert_eq!((config, issues.len()), (MemoryConfig::default(), 0));
    }

    #[test]
    fn placeholders_are_template_text_only() {
        let text = "# Active Context\n\
            - [Task 1]\n\
            - **Date:** [Date]\n\
            ## [Decision Title] - [YYYY-MM-DD]\n\
            [Name of the project]\n\
            ### Phase 1: [Name] — [Status]\n\
            - [ ] real task\n\
            - [x] done task\n\
            - [3:08:27 PM] [Unknown User] Fixed the dialog and many other things\n\
            - [2025-07-15 10:00:00] - update\n\
            See [the docs](https://x) and [[Wiki Link]]\n\
            - [DONE] shipped\n\
            [ref]: https://example.com\n\
            `[Not This]`\n\
            ```\n[Inside Fence]\n```\n\
            - [COMPLETED] Implement X\n\
            > [!NOTE]\n";
        assert_eq!(placeholder_lines(text), vec![2, 3, 4, 5, 6]);
    }

    #[test]
    fn task_ids_and_documented_templates_are_not_placeholders() {
        let text = "# Progress\n\
            - [T19 Phase 2 Refactor]\n\
            - [TASK-12] Cache layer\n\
            - [Task 1]\n\
            > - [Date] quoted example\n\
            Entry format:\n\
            - [Date] - [Summary]\n\
            ## Template\n\
            ### [Decision Title]\n\
            ## Next\n\
            - [Owner]\n\
            **Format:**\n\
            [YYYY-MM-DD] - [Change]\n";
        assert_eq!(placeholder_lines(text), vec![4, 11]);
        assert!(starts_with_task_id("T19 Phase 2"));
        assert!(starts_with_task_id("BUG-7"));
        assert!(!starts_with_task_id("Task 1"));
        assert!(!starts_with_task_id("Phase 2"));
    }

    #[test]
    fn placeholder_scan_is_linear_on_huge_lines() {
        let line = "[".repeat(300_000) + &"[Task] x ".repeat(20_000);
        let started = std::time::Instant::now();
        assert_eq!(placeholder_lines(&line), Vec::<usize>::new());
        assert!(started.elapsed().as_secs() < 3);
    }

    #[test]
    fn tag_checks() {
        let text = "# P\n<!-- @category: decision -->\n<!-- @category: Decision -->\n\
                    <!-- @category: misc -->\n<!-- @tag: third-party -->\n\
                    <!-- @tag: a --> <!-- @tag: b -->\n\
                    <!-- @tag: this-is-a-very-long-tag-name-that-goes-on-and-on-and-on-and-on-and-on-forever -->\n";
        let mut out = Vec::new();
        check_tags(Path::new("p.md"), text, &mut out);
        let got: Vec<_> = out.iter().map(|f| (f.code, f.line)).collect();
        assert_eq!(
            got,
            vec![
                ("tag-syntax", Some(3)),
                ("unknown-category", Some(4)),
                ("tag-syntax", Some(6)),
                ("tag-line-too-long", Some(7)),
            ]
        );
    }

    #[test]
    fn adr_name_pattern() {
        let re = adr_name_regex();
        assert!(re.is_match("ADR-001-use-postgres.md"));
        assert!(re.is_match("ADR-012-20250101-1200-split-api.md"));
        assert!(!re.is_match("ADR-7-x.md"));
        assert!(!re.is_match("ADR-0014.md"));
        assert!(!re.is_match("ADR-003-Use Postgres.md"));
        assert!(
            re.captures("ADR-012-20250101-1200-x.md")
                .unwrap()
                .get(2)
                .is_some()
        );
    }
}

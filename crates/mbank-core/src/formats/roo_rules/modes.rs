//! Roo/Cline mode rule files (the Memory Bank MCP spec, "Rule Files"): `.clinerules-{mode}` and
//! `.roorules-{mode}` in JSON, YAML or TOML, and the `.roomodes` list of custom modes.
//!
//! Real mode files are often plain markdown prose rather than structured data. That is
//! not an error: such a file is a mode that declares no memory-bank files to read or
//! update. A file is reported as broken only when it clearly means to be structured
//! (it opens like JSON or a TOML table, or it names the spec's keys) and nothing parses.
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::findings::{Finding, FindingCode, Severity};
use crate::io::text;
use crate::limits::{self, LimitExceeded};
use crate::model::{Bank, Format, ModeRule};

use super::{BUILT_IN_MODES as BUILT_IN_ROO_MODES, is_mode_file, mode_of_rule_file};

/// A structured mode file that none of JSON, YAML or TOML could parse, or one over the
/// parse limits (`limits::MODE_FILE`), which is not parsed at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModeParseError {
    pub path: PathBuf,
    /// The format the file looks like: "JSON", "YAML" or "TOML".
    pub format: &'static str,
    /// 1-based position of the problem, when the parser reports one.
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
    /// The limit the file exceeds, when that is why it was not parsed.
    pub limit: Option<Box<LimitExceeded>>,
}

impl std::fmt::Display for ModeParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.limit {
            Some(limit) => write!(f, "{} was not parsed: {limit}", self.path.display()),
            None => write!(
                f,
                "{} is not valid {}{}: {}",
                self.path.display(),
                self.format,
                position(self.line, self.column),
                self.message
            ),
        }
    }
}

impl std::error::Error for ModeParseError {}

impl ModeParseError {
    fn over_limit(path: &Path, syntax: limits::Syntax, limit: LimitExceeded) -> Self {
        ModeParseError {
            path: path.to_path_buf(),
            format: syntax.label(),
            line: limit.line(),
            column: None,
            message: limit.to_string(),
            limit: Some(Box::new(limit)),
        }
    }
}

fn position(line: Option<usize>, column: Option<usize>) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!(" at line {l}, column {c}"),
        (Some(l), None) => format!(" at line {l}"),
        _ => String::new(),
    }
}

/// A custom mode declared in `.roomodes`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomMode {
    pub slug: String,
    pub name: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ModeFileSyntax {
    Json,
    Yaml,
    Toml,
}

impl ModeFileSyntax {
    fn label(self) -> &'static str {
        self.limits_syntax().label()
    }

    fn limits_syntax(self) -> limits::Syntax {
        match self {
            ModeFileSyntax::Json => limits::Syntax::Json,
            ModeFileSyntax::Yaml => limits::Syntax::Yaml,
            ModeFileSyntax::Toml => limits::Syntax::Toml,
        }
    }

    /// Ok when the text is within [`limits::MODE_FILE`] for this syntax.
    fn within_limits(self, text: &str) -> Result<(), LimitExceeded> {
        limits::check(text, self.limits_syntax(), limits::MODE_FILE)
    }
}

/// What the first meaningful line suggests. Comment lines (`#`, which also covers
/// markdown headings) and blank lines are skipped; `None` means prose.
fn sniff(text: &str) -> Option<ModeFileSyntax> {
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#') && *l != "---" && !l.starts_with("//"))?;
    if is_toml_table_header(first) {
        return Some(ModeFileSyntax::Toml);
    }
    if first.starts_with('{') || first.starts_with('[') {
        return Some(ModeFileSyntax::Json);
    }
    let key_end = first
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
        .unwrap_or(first.len());
    if key_end > 0 {
        let after = first[key_end..].trim_start();
        if after.starts_with('=') {
            return Some(ModeFileSyntax::Toml);
        }
        if let Some(rest) = first[key_end..].strip_prefix(':')
            && (rest.is_empty() || rest.starts_with([' ', '\t']))
        {
            return Some(ModeFileSyntax::Yaml);
        }
    }
    None
}

fn is_toml_table_header(line: &str) -> bool {
    let line = line.split(" #").next().unwrap_or(line).trim_end();
    let inner = line
        .strip_prefix("[[")
        .and_then(|l| l.strip_suffix("]]"))
        .or_else(|| line.strip_prefix('[').and_then(|l| l.strip_suffix(']')));
    inner.is_some_and(|i| {
        !i.is_empty()
            && i.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ' ' | '"'))
            && i.chars().any(|c| c.is_ascii_alphabetic())
    })
}

/// Keys of the spec's schema: a file naming them means to be structured.
fn has_schema_keys(text: &str) -> bool {
    [
        "files_to_read",
        "files_to_update",
        "memory_bank",
        "mode_triggers",
    ]
    .iter()
    .any(|k| text.contains(k))
        || text.lines().any(|l| {
            let l = l.trim_start_matches(['"', ' ']);
            l.starts_with("mode:") || l.starts_with("mode\":") || l.starts_with("mode =")
        })
}

fn line_column_of_offset(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text.as_bytes()[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let column = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    (line, column)
}

/// A parse error's message with its line and column, when the parser gives them.
type LocatedError = (Option<usize>, Option<usize>, String);

fn parse_value(text: &str, syntax: ModeFileSyntax) -> Result<Value, LocatedError> {
    match syntax {
        ModeFileSyntax::Json => serde_json::from_str(text)
            .map_err(|e| (Some(e.line()), Some(e.column()), e.to_string())),
        ModeFileSyntax::Yaml => serde_norway::from_str(text).map_err(|e| {
            let location = e.location();
            (
                location.as_ref().map(|l| l.line()),
                location.as_ref().map(|l| l.column()),
                e.to_string(),
            )
        }),
        ModeFileSyntax::Toml => toml::from_str(text).map_err(|e| {
            let position = e.span().map(|s| line_column_of_offset(text, s.start));
            (
                position.map(|p| p.0),
                position.map(|p| p.1),
                e.message().to_string(),
            )
        }),
    }
}

fn string_list(value: Option<&Value>) -> Vec<String> {
    match value {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|v| match v {
                Value::String(s) => Some(s.clone()),
                // `- file: x.md` style entries.
                Value::Object(o) => o
                    .get("file")
                    .or_else(|| o.get("name"))
                    .and_then(Value::as_str)
                    .map(str::to_string),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn rule_from_value(path: &Path, file_mode: &str, value: &Value) -> ModeRule {
    let memory_bank = value
        .pointer("/instructions/memory_bank")
        .or_else(|| value.get("memory_bank"));
    let mode = value
        .get("mode")
        .and_then(Value::as_str)
        .filter(|m| !m.trim().is_empty())
        .unwrap_or(file_mode)
        .to_string();
    ModeRule {
        mode,
        source: path.to_path_buf(),
        reads: string_list(memory_bank.and_then(|m| m.get("files_to_read"))),
        updates: string_list(memory_bank.and_then(|m| m.get("files_to_update"))),
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Parses a mode file: `.roomodes` yields one rule per custom mode (by slug, with no
/// declared files); `.clinerules-{mode}` / `.roorules-{mode}` yield one rule.
pub fn parse_mode_file(path: &Path, text: &str) -> Result<Vec<ModeRule>, ModeParseError> {
    let name = file_name(path);
    if name == ".roomodes" {
        return Ok(parse_roomodes(path, text)?
            .into_iter()
            .map(|m| ModeRule {
                mode: m.slug,
                source: path.to_path_buf(),
                reads: Vec::new(),
                updates: Vec::new(),
            })
            .collect());
    }
    let file_mode = mode_of_rule_file(&name).unwrap_or(&name);
    let prose = || {
        vec![ModeRule {
            mode: file_mode.to_string(),
            source: path.to_path_buf(),
            reads: Vec::new(),
            updates: Vec::new(),
        }]
    };
    let sniffed = sniff(text);
    // Too big to parse: say so without scanning the whole text for schema keys first.
    if let Some(syntax) = sniffed
        && let Err(limit) =
            limits::check_size(text.len() as u64, syntax.limits_syntax(), limits::MODE_FILE)
    {
        return Err(ModeParseError::over_limit(
            path,
            syntax.limits_syntax(),
            limit,
        ));
    }
    let intends_structure = matches!(sniffed, Some(ModeFileSyntax::Json | ModeFileSyntax::Toml))
        || has_schema_keys(text);
    let Some(primary) = sniffed.or(intends_structure.then_some(ModeFileSyntax::Yaml)) else {
        return Ok(prose());
    };
    // Hostile nesting makes the YAML parser quadratic: nothing over the limits is parsed.
    if let Err(limit) = primary.within_limits(text) {
        return Err(ModeParseError::over_limit(
            path,
            primary.limits_syntax(),
            limit,
        ));
    }
    let primary_error = match parse_value(text, primary) {
        Ok(value) if value.is_object() => {
            return Ok(vec![rule_from_value(path, file_mode, &value)]);
        }
        // YAML reads most prose as one string: that is prose, not a mode schema.
        Ok(_) if !intends_structure => return Ok(prose()),
        Ok(_) => (
            Some(1),
            None,
            "expected a mapping with \"mode\" and \"instructions\"".to_string(),
        ),
        Err(located) => located,
    };
    for other in [
        ModeFileSyntax::Json,
        ModeFileSyntax::Yaml,
        ModeFileSyntax::Toml,
    ] {
        if other != primary
            && other.within_limits(text).is_ok()
            && let Ok(value) = parse_value(text, other)
            && value.is_object()
        {
            return Ok(vec![rule_from_value(path, file_mode, &value)]);
        }
    }
    if !intends_structure {
        return Ok(prose());
    }
    let (line, column, message) = primary_error;
    Err(ModeParseError {
        path: path.to_path_buf(),
        format: primary.label(),
        line,
        column,
        message,
        limit: None,
    })
}

#[derive(Deserialize, Default)]
struct RooModesFile {
    #[serde(rename = "customModes", default)]
    custom_modes: Vec<RawMode>,
}

/// Only the fields we show; serde skips the large `customInstructions` strings without
/// building values for them, so 150 KB files parse in one pass.
#[derive(Deserialize)]
struct RawMode {
    slug: Option<String>,
    name: Option<String>,
}

/// Lists the custom modes of a `.roomodes` file (JSON, or YAML as newer Roo writes it).
/// Modes without a slug are skipped: Roo cannot select them either.
pub fn parse_roomodes(path: &Path, text: &str) -> Result<Vec<CustomMode>, ModeParseError> {
    let file: RooModesFile = parse_roomodes_as(path, text)?;
    Ok(file
        .custom_modes
        .into_iter()
        .filter_map(|m| {
            let slug = m.slug.filter(|s| !s.trim().is_empty())?;
            Some(CustomMode {
                name: m.name.unwrap_or_else(|| slug.clone()),
                slug,
            })
        })
        .collect())
}

/// A custom mode of `.roomodes` with the fields Roo Code puts into the system prompt.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub(crate) struct ModeDefinition {
    pub slug: String,
    pub name: String,
    pub role_definition: String,
    pub when_to_use: String,
    pub custom_instructions: String,
}

#[derive(Deserialize, Default)]
struct RooModeDefinitions {
    #[serde(rename = "customModes", default)]
    custom_modes: Vec<ModeDefinition>,
}

/// The custom modes of a `.roomodes` file with their definitions (slug-less ones skipped).
pub(crate) fn parse_mode_definitions(
    path: &Path,
    text: &str,
) -> Result<Vec<ModeDefinition>, ModeParseError> {
    let file: RooModeDefinitions = parse_roomodes_as(path, text)?;
    Ok(file
        .custom_modes
        .into_iter()
        .filter(|m| !m.slug.trim().is_empty())
        .map(|m| ModeDefinition {
            name: if m.name.trim().is_empty() {
                m.slug.clone()
            } else {
                m.name
            },
            ..m
        })
        .collect())
}

/// What of `.roomodes` Roo Code sends in a session of `mode`: the active mode's definition
/// in full (its role definition opens the system prompt, its custom instructions close
/// it) and, in the system prompt's list of modes, one line per custom mode, `"Name" mode
/// (slug) - ` and its `whenToUse`, else the first sentence of its role definition. With a
/// `.roo/system-prompt-{mode}` override (`overridden`) the list of modes is not sent, only
/// the active mode's role definition and custom instructions. Empty when nothing is sent.
pub(crate) fn roomodes_as_sent(modes: &[ModeDefinition], mode: &str, overridden: bool) -> String {
    let active = modes.iter().find(|m| m.slug == mode);
    let mut parts: Vec<String> = Vec::new();
    if let Some(active) = active
        && !active.role_definition.trim().is_empty()
    {
        parts.push(active.role_definition.clone());
    }
    if !overridden && !modes.is_empty() {
        let lines: Vec<String> = modes
            .iter()
            .map(|m| {
                let description = if m.when_to_use.trim().is_empty() {
                    m.role_definition
                        .split('.')
                        .next()
                        .unwrap_or_default()
                        .to_string()
                } else {
                    m.when_to_use.replace('\n', "\n    ")
                };
                format!("  * \"{}\" mode ({}) - {description}", m.name, m.slug)
            })
            .collect();
        parts.push(lines.join("\n"));
    }
    if let Some(active) = active
        && !active.custom_instructions.trim().is_empty()
    {
        parts.push(active.custom_instructions.clone());
    }
    parts.join("\n\n")
}

/// Reads a `.roomodes` file (JSON, or YAML) into `T`, within the parse limits.
fn parse_roomodes_as<T: for<'de> Deserialize<'de> + Default>(
    path: &Path,
    text: &str,
) -> Result<T, ModeParseError> {
    if text.trim().is_empty() {
        return Ok(T::default());
    }
    let is_json = text.trim_start().starts_with('{');
    let syntax = if is_json {
        limits::Syntax::Json
    } else {
        limits::Syntax::Yaml
    };
    if let Err(limit) = limits::check(text, syntax, limits::MODE_FILE) {
        return Err(ModeParseError::over_limit(path, syntax, limit));
    }
    let parsed: Result<T, LocatedError> = if is_json {
        serde_json::from_str(text).map_err(|e| (Some(e.line()), Some(e.column()), e.to_string()))
    } else {
        serde_norway::from_str(text).map_err(|e| {
            let location = e.location();
            (
                location.as_ref().map(|l| l.line()),
                location.as_ref().map(|l| l.column()),
                e.to_string(),
            )
        })
    };
    parsed.map_err(|(line, column, message)| ModeParseError {
        path: path.to_path_buf(),
        format: if is_json { "JSON" } else { "YAML" },
        line,
        column,
        message,
        limit: None,
    })
}

/// The formats whose sessions start in a mode.
pub const FORMATS_WITH_MODES: [Format; 2] = [Format::RooRules, Format::MemoryBankMcp];

/// Modes every Memory Bank MCP bank has (its spec's `/memory-bank/modes`).
pub(crate) const MEMORY_BANK_MCP_MODES: [&str; 5] = ["architect", "code", "ask", "debug", "test"];

/// The modes a project's sessions can start in, sorted: Roo Code's built-in modes, every
/// mode the rule files of its banks declare, and with a Memory Bank MCP bank its spec's
/// five. `None` when no bank of the project has modes.
pub fn modes_of_project(banks: &[Bank]) -> Option<Vec<String>> {
    let with_modes = |f: Format| FORMATS_WITH_MODES.contains(&f);
    if !banks.iter().any(|b| with_modes(b.format)) {
        return None;
    }
    let mut modes: Vec<String> = banks
        .iter()
        .flat_map(|b| modes_of_bank(b).0)
        .map(|rule| rule.mode)
        .collect();
    if banks.iter().any(|b| b.format == Format::MemoryBankMcp) {
        modes.extend(MEMORY_BANK_MCP_MODES.iter().map(|m| m.to_string()));
    }
    modes.extend(BUILT_IN_ROO_MODES.iter().map(|m| m.to_string()));
    modes.sort();
    modes.dedup();
    Some(modes)
}

/// What `mode`'s rules say to read at session start (`files_to_read`), and the rule file
/// saying it: the first of the rules bank's `.clinerules-{mode}`, `.roorules-{mode}` and
/// structured files in `.roo/rules-{mode}/` that lists any. `read` reads a file (the
/// caller confines it); a file that cannot be read or parsed gives nothing here
/// (validation reports it).
pub(crate) fn reads_of_mode(
    rules_bank: &Bank,
    mode: &str,
    read: impl Fn(&Path) -> Option<String>,
) -> Option<(PathBuf, Vec<String>)> {
    if rules_bank.format != Format::RooRules {
        return None;
    }
    rules_bank.files.iter().find_map(|file| {
        let rel = file.path.strip_prefix(&rules_bank.root).ok()?;
        if super::mode_of_path(rel).as_deref() != Some(mode) {
            return None;
        }
        let text = read(&file.path)?;
        let rule = parse_mode_file(&file.path, &text)
            .ok()?
            .into_iter()
            .find(|r| !r.reads.is_empty())?;
        Some((file.path.clone(), rule.reads))
    })
}

/// The modes a Roo/Cline rules bank declares, from `.roomodes`, `.clinerules-{mode}`,
/// `.roorules-{mode}` and `.roo/rules-{mode}/` folders, with a finding for every mode file
/// that cannot be read or parsed. Other formats have no modes.
pub fn modes_of_bank(bank: &Bank) -> (Vec<ModeRule>, Vec<Finding>) {
    let mut rules = Vec::new();
    let mut findings = Vec::new();
    if bank.format != Format::RooRules {
        return (rules, findings);
    }
    for file in &bank.files {
        if is_mode_file(bank, file) {
            // A `.clinerules-{mode}` file declares its mode by its name: the mode stays
            // choosable (read-only Ask included) when its rules cannot be read.
            let named_mode = || {
                let name = file.file_name();
                super::mode_of_rule_file(&name).map(|mode| ModeRule {
                    mode: mode.to_string(),
                    source: file.path.clone(),
                    reads: Vec::new(),
                    updates: Vec::new(),
                })
            };
            let text = match text::read_text(&file.path) {
                Ok(text) => text,
                Err(e) => {
                    findings.push(Finding::new(
                        Severity::Error,
                        FindingCode::ModeFileUnreadable,
                        &file.path,
                        None,
                        format!("mode rule file cannot be read: {e}"),
                    ));
                    rules.extend(named_mode());
                    continue;
                }
            };
            match parse_mode_file(&file.path, &text) {
                Ok(mut parsed) => rules.append(&mut parsed),
                Err(ModeParseError {
                    limit: Some(limit), ..
                }) => {
                    findings.push(limit.finding(
                        Severity::Error,
                        &file.path,
                        "mbank cannot tell which memory files its modes read or update",
                    ));
                    rules.extend(named_mode());
                }
                Err(e) => {
                    findings.push(Finding::new(
                        Severity::Error,
                        FindingCode::ModeFileParse,
                        &file.path,
                        e.line,
                        format!(
                            "{} mode file does not parse{}: {}; the agent cannot use this mode's rules",
                            e.format,
                            position(e.line, e.column),
                            e.message
                        ),
                    ));
                    rules.extend(named_mode());
                }
            }
            continue;
        }
        // `.roo/rules-{mode}/…`: the folder itself declares the mode.
        if let Some(folder) = file.path.parent()
            && folder
                .parent()
                .and_then(Path::file_name)
                .is_some_and(|n| n == ".roo")
            && let Some(mode) = folder
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_prefix("rules-"))
            && !mode.is_empty()
            && !rules
                .iter()
                .any(|r: &ModeRule| r.source == folder && r.mode == mode)
        {
            rules.push(ModeRule {
                mode: mode.to_string(),
                source: folder.to_path_buf(),
                reads: Vec::new(),
                updates: Vec::new(),
            });
        }
    }
    (rules, findings)
}

#[cfg(test)]
mod tests {
    use super::*;

    const JSON: &str = r#"{
  "mode": "architect",
  "instructions": {
    "general": ["a"],
    "memory_bank": {
      "files_to_read": ["productContext.md", "activeContext.md"],
      "files_to_update": ["decisionLog.md"]
    }
  }
}"#;

    const YAML: &str = "mode: code\ninstructions:\n  memory_bank:\n    files_to_read:\n      - progress.md\n    files_to_update:\n      - progress.md\n      - activeContext.md\n";

    const TOML: &str = "mode = \"debug\"\n[instructions]\ngeneral = [\"x\"]\n[instructions.memory_bank]\nfiles_to_read = [\"activeContext.md\"]\nfiles_to_update = []\n";

    fn one(name: &str, text: &str) -> ModeRule {
        let mut rules = parse_mode_file(Path::new(name), text).unwrap();
        assert_eq!(rules.len(), 1);
        rules.remove(0)
    }

    #[test]
    fn structured_files_in_all_three_syntaxes() {
        let r = one(".clinerules-architect", JSON);
        assert_eq!(r.mode, "architect");
        assert_eq!(r.reads, vec!["productContext.md", "activeContext.md"]);
        assert_eq!(r.updates, vec!["decisionLog.md"]);
        let r = one(".clinerules-code", YAML);
        assert_eq!(
            (r.mode.as_str(), r.reads.clone(), r.updates.clone()),
            (
                "code",
                vec!["progress.md".to_string()],
                vec!["progress.md".to_string(), "activeContext.md".to_string()]
            )
        );
        let r = one(".roorules-debug", TOML);
        assert_eq!(
            (r.mode.as_str(), r.reads.len(), r.updates.len()),
            ("debug", 1, 0)
        );
    }

    #[test]
    fn prose_is_a_mode_without_declared_files() {
        for text in [
            "# Code mode\n\nAlways write tests.\nNote: keep it short.\n",
            "**Core Directives:**\n1. Be careful.\n",
            "Mode: careful\nThen some prose that is not YAML: at all, really\n- and a list\n",
            "",
        ] {
            let r = one(".roorules-code", text);
            assert_eq!((r.mode.as_str(), r.reads.len()), ("code", 0), "{text:?}");
        }
    }

    #[test]
    fn broken_structured_files_report_position() {
        let err = parse_mode_file(
            Path::new(".clinerules-code"),
            "{\n  \"mode\": \"code\",\n  ]\n",
        )
        .unwrap_err();
        assert_eq!(
            (err.format, err.line, err.column),
            ("JSON", Some(3), Some(3))
        );
        let err = parse_mode_file(
            Path::new(".clinerules-ask"),
            "mode: ask\ninstructions:\n  memory_bank: [a\n  files_to_read: x\n",
        )
        .unwrap_err();
        assert_eq!(err.format, "YAML");
        assert_eq!(err.line, Some(4));
        let err = parse_mode_file(
            Path::new(".roorules-x"),
            "[instructions]\nfiles_to_read = [\"a.md\"\nmode = 3\n",
        )
        .unwrap_err();
        assert_eq!((err.format, err.line), ("TOML", Some(3)));
        assert!(
            err.to_string().contains("not valid TOML at line 3"),
            "{err}"
        );
    }

    #[test]
    fn roo_sends_the_active_modes_definition_and_one_line_per_mode() {
        let yaml = "customModes:\n  - slug: docs\n    name: Docs Writer\n    roleDefinition: You write docs. Carefully.\n    customInstructions: Keep it short.\n    groups: [read]\n  - slug: review\n    name: Reviewer\n    roleDefinition: You review code. Strictly.\n    whenToUse: |-\n      Use for reviews.\n      Not for writing.\n    customInstructions: A very long text that only the review mode sends.\n";
        let modes = parse_mode_definitions(Path::new(".roomodes"), yaml).unwrap();
        assert_eq!(modes.len(), 2);
        let list = "  * \"Docs Writer\" mode (docs) - You write docs\n  * \"Reviewer\" mode (review) - Use for reviews.\n    Not for writing.";
        assert_eq!(
            roomodes_as_sent(&modes, "docs", false),
            format!("You write docs. Carefully.\n\n{list}\n\nKeep it short.")
        );
        // A built-in mode the file does not redefine: only the list.
        assert_eq!(roomodes_as_sent(&modes, "code", false), list);
        // An override leaves the list out; the active mode's definition stays.
        assert_eq!(
            roomodes_as_sent(&modes, "docs", true),
            "You write docs. Carefully.\n\nKeep it short."
        );
        assert_eq!(roomodes_as_sent(&modes, "code", true), "");
        // Slug-less modes cannot be chosen and are not listed; a nameless one shows its slug.
        let json = r#"{"customModes":[{"name":"x"},{"slug":"bare","roleDefinition":"Plain"}]}"#;
        let modes = parse_mode_definitions(Path::new(".roomodes"), json).unwrap();
        assert_eq!(
            roomodes_as_sent(&modes, "code", false),
            "  * \"bare\" mode (bare) - Plain"
        );
        assert!(parse_mode_definitions(Path::new(".roomodes"), "{\"customModes\": [").is_err());
    }

    #[test]
    fn roomodes_json_and_yaml() {
        let json = r#"{"customModes":[{"slug":"van","name":"🔍 VAN","roleDefinition":"r","groups":["read"],"customInstructions":"long"},{"name":"no slug"},{"slug":"plan","name":"Plan"}]}"#;
        let modes = parse_roomodes(Path::new(".roomodes"), json).unwrap();
        assert_eq!(
            modes,
            vec![
                CustomMode {
                    slug: "van".into(),
                    name: "🔍 VAN".into()
                },
                CustomMode {
                    slug: "plan".into(),
                    name: "Plan".into()
                }
            ]
        );
        let yaml = "customModes:\n  - slug: docs\n    name: Docs\n    groups: [read]\n";
        let rules = parse_mode_file(Path::new("/p/.roomodes"), yaml).unwrap();
        assert_eq!(rules.len(), 1);
        assert_eq!(rules[0].mode, "docs");
        let err = parse_roomodes(Path::new(".roomodes"), "{\"customModes\": [\n{]}").unwrap_err();
        assert_eq!((err.format, err.line), ("JSON", Some(2)));
    }

    #[test]
    fn large_roomodes_parses_quickly() {
        let instructions = "x".repeat(140_000);
        let json = format!(
            "{{\"customModes\":[{{\"slug\":\"big\",\"name\":\"Big\",\"customInstructions\":\"{instructions}\"}}]}}"
        );
        let modes = crate::hang_guard::finishes("parsing .roomodes", move || {
            parse_roomodes(Path::new(".roomodes"), &json).map(|modes| modes.len())
        });
        assert_eq!(modes.unwrap(), 1);
    }

    #[test]
    fn bank_modes_and_findings() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join(".clinerules-code"), YAML).unwrap();
        std::fs::write(d.join(".roorules-bad"), "{ \"mode\": ").unwrap();
        std::fs::write(
            d.join(".roomodes"),
            r#"{"customModes":[{"slug":"van","name":"VAN"}]}"#,
        )
        .unwrap();
        std::fs::create_dir_all(d.join(".roo/rules-test")).unwrap();
        std::fs::write(d.join(".roo/rules-test/a.md"), "# a\n").unwrap();
        std::fs::write(d.join(".roo/rules-test/b.md"), "# b\n").unwrap();
        let project = crate::scan::discovery::project_at(d, "p".into()).unwrap();
        let bank = crate::scan::bank::list_banks(&project)
            .into_iter()
            .find(|b| b.format == Format::RooRules)
            .unwrap();
        let (rules, findings) = modes_of_bank(&bank);
        let mut modes: Vec<_> = rules.iter().map(|r| r.mode.as_str()).collect();
        modes.sort();
        // `.roorules-bad` does not parse, but its name still declares the mode.
        assert_eq!(modes, vec!["bad", "code", "test", "van"]);
        assert_eq!(findings.len(), 1);
        assert_eq!(
            (
                findings[0].code.id(),
                findings[0].severity,
                findings[0].line
            ),
            ("mode-file-parse", Severity::Error, Some(1))
        );
    }
}

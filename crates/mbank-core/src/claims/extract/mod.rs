//! What a memory file's prose claims about the code: paths, scripts, symbols,
//! environment variables and (in the tech context) dependencies. Code blocks, HTML
//! comments, block quotes and template or example sections are not claims, except the
//! commands of a shell block (`commands`) and the entries of a folder tree (`trees`);
//! inline code spans are read, since that is where prose names code. Conservative by
//! design: a token that could be something else (a URL, a glob, a placeholder, a
//! product name, a plan for later, a note that something was removed) is no claim. The
//! word lists behind those judgements are in `vocabulary`.
use std::collections::HashSet;
use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

mod commands;
mod examples;
mod gone;
mod trees;
mod vocabulary;

use gone::{file_name_of, gone_sentences, within};

use commands::{PACKAGE_RUN, script_claim, shell_claims};
pub(super) use examples::is_list_item;
use examples::is_naming_example;

use vocabulary::{
    AGENT_TOOLS, BARE_FILES, DEPENDENCY_HEADINGS, EXTENSIONS, JS_LIBRARIES, NEW_FILE_MARKS,
    NOT_DEPENDENCIES, NOT_SYMBOLS, OPTIONAL_WORDS, heading_names_not_current, lists_examples,
    names_the_platform_s_own, says_not_current,
};

/// The tool that runs a named script.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Runner {
    /// `npm|pnpm|yarn|bun run X`: a package.json script.
    Package,
    /// `make X`: a Makefile target.
    Make,
    /// `just X`: a justfile recipe.
    Just,
    /// `cargo X`: a built-in command, a Cargo alias or a known subcommand.
    Cargo,
    /// `poetry|uv|pdm run X`: a pyproject script, a dependency's command or a tool.
    Python,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ClaimKind {
    Path,
    /// `command` is the whole command as written (`npm run lint`).
    Script {
        runner: Runner,
        command: String,
    },
    Symbol,
    EnvVar,
    Dependency,
}

/// One thing a memory file says exists in the code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    pub kind: ClaimKind,
    /// The path, script name, symbol, variable or package name.
    pub text: String,
    /// 1-based line in the memory file.
    pub line: usize,
    /// For a path drawn in a folder tree, the line the tree's block starts on.
    pub drawing: Option<usize>,
}

/// How a file is read for claims.
#[derive(Debug, Clone, Copy, Default)]
pub struct FileKind {
    /// The tech context: dependencies named there are claims.
    pub tech: bool,
    /// Whether backticked names are claims about the project's own code: true for the
    /// files that describe it (patterns, tech and active context, progress, agent
    /// instructions); false for the brief and product context (what the product should
    /// do) and for other notes, which often document a library's API. Paths and
    /// scripts are claims everywhere.
    pub names_code: bool,
}

static LINK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)"#).expect("static regex")
});
static PLAIN_PATH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:^|[\s(])((?:\./)?[A-Za-z0-9_.@-]+(?:/[A-Za-z0-9_.@-]+)+/?)")
        .expect("static regex")
});
static IDENT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[A-Za-z_][A-Za-z0-9_]*$").expect("static regex"));
static PACKAGE_NAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(@[a-z0-9][a-z0-9._-]*/)?[a-z0-9][a-z0-9._-]*[a-z0-9]$").expect("static regex")
});

/// A heading above the line being read, with what its words say about the lines below
/// it (read once, as it opens).
struct OpenHeading {
    level: usize,
    /// Lower case.
    title: String,
    /// It names a plan or a past ("Next steps", "Recently Completed (March 2026)").
    not_current: bool,
    /// It is about an MCP server (`### Serena MCP`).
    about_mcp: bool,
}

/// Every claim of one memory file, in line order.
pub fn claims(text: &str, kind: FileKind) -> Vec<Claim> {
    let ranges = crate::markup::markdown::non_prose_ranges(text);
    let spans: Vec<Range<usize>> = ranges
        .iter()
        .filter(|r| is_inline_code(&text[(*r).clone()]))
        .cloned()
        .collect();
    let prose = crate::markup::markdown::prose_only(text);
    let mut out = Vec::new();
    let mut line_start = 0;
    // The headings above the line, outermost first: a plan's subsections are plans too.
    let mut headings: Vec<OpenHeading> = Vec::new();
    let mut span_index = 0;
    let gone = gone_sentences(&prose, text);
    let mcp_sections = sections_naming_mcp(&prose);
    // Commands in shell blocks and paths in folder trees, taken up with their line; the
    // blocks are found once for both.
    let mut in_blocks = Vec::new();
    if text.contains("```") || text.contains("~~~") || trees::may_hold_tree(text) {
        let blocks = crate::markup::markdown::fenced_lines(text);
        if !blocks.is_empty() {
            let lines: Vec<&str> = text.lines().collect();
            in_blocks = shell_claims(&lines, &blocks);
            in_blocks.extend(trees::tree_claims(&lines, &blocks));
            in_blocks.sort_by_key(|c| c.line);
        }
    }
    let mut commands = in_blocks.into_iter().peekable();
    let mut example_list = examples::ExampleList::default();
    // The file names a sentence of the file says were removed.
    let mut recorded_gone: HashSet<&str> = HashSet::new();
    for (index, line) in prose.split_inclusive('\n').enumerate() {
        let number = index + 1;
        let range = line_start..line_start + line.len();
        line_start = range.end;
        let trimmed = line.trim_start();
        if let Some((level, title)) = crate::markup::markdown::heading(line.trim_end()) {
            while headings.last().is_some_and(|h| h.level >= level) {
                headings.pop();
            }
            let title = title.to_lowercase();
            // A section dated by its heading ("Recently Completed (March 2026)") records
            // what held then.
            let not_current = heading_names_not_current(&title) || names_a_year(&title);
            let about_mcp = names_mcp(&title) || mcp_sections.contains(&number);
            headings.push(OpenHeading {
                level,
                title,
                not_current,
                about_mcp,
            });
            // What a heading names in code (`### Tables (in `db/schema.sql`)`) is claimed
            // like a line's: read on below.
        }
        // What the line strikes through, the memory itself marks as no longer so.
        let struck = struck_through(line);
        // Code spans of this line, from the original text.
        let mut codes: Vec<&str> = Vec::new();
        // The end of the span before, when only an arrow stands between it and the next:
        // `old.js` → `new.ts` says the first became the second.
        let mut previous: Option<(usize, usize)> = None;
        while span_index < spans.len() && spans[span_index].start < range.end {
            let span = &spans[span_index];
            if within(&gone, span.start) {
                recorded_gone.insert(file_name_of(strip_ticks(&text[span.clone()])));
            }
            if span.start >= range.start
                && !within(&gone, span.start)
                && !struck
                    .iter()
                    .any(|r| r.contains(&(span.start - range.start)))
            {
                if let Some((end, at)) = previous
                    && is_arrow(&text[end..span.start])
                {
                    codes.remove(at);
                }
                previous = Some((span.end, codes.len()));
                codes.push(strip_ticks(&text[span.clone()]));
            }
            span_index += 1;
        }
        // The items of a list a label such as "**Good**:" introduces are examples.
        let shows_examples = example_list.shows_examples(line);
        if trimmed.starts_with('>') || shows_examples {
            continue;
        }
        if headings.iter().any(|h| h.not_current) {
            continue;
        }
        let lower_heading = headings.last().map_or("", |h| h.title.as_str());
        // The line's prose, code spans blanked: `legacy.rs` is no word about the past.
        let lower = line.to_lowercase();
        if says_not_current(&lower)
            || is_open_task(trimmed)
            || opens_with_a_day(trimmed)
            || lists_examples(&text[range.clone()])
        {
            continue;
        }
        let before = out.len();
        while commands.next_if(|c| c.line < number).is_some() {}
        out.extend(std::iter::from_fn(|| {
            commands.next_if(|c| c.line == number)
        }));
        // Names on a line about naming (`snake_case (calculate_risk_score)`) or marked as
        // what not to write (❌ `usrAuth`) are examples, not the code's names.
        // Names in a section or on a line about an MCP server (`### Serena MCP`, "the
        // `query_docs` MCP tool") are that server's tools and settings.
        let about_mcp = names_mcp(&lower) || headings.iter().any(|h| h.about_mcp);
        let kind = FileKind {
            names_code: kind.names_code && !is_naming_example(&lower) && !about_mcp,
            ..kind
        };
        for code in &codes {
            code_claims(code, number, kind, lower_heading, &lower, &mut out);
        }
        prose_claims(&blanked(line, &struck), number, &mut out);
        if OPTIONAL_WORDS.iter().any(|w| lower.contains(w))
            || NEW_FILE_MARKS.iter().any(|w| lower.contains(w))
        {
            let mut position = 0;
            out.retain(|claim| {
                position += 1;
                position <= before || claim.kind != ClaimKind::Path
            });
        }
        // One claim per text and kind on a line.
        let mut seen: Vec<(ClaimKind, String)> = Vec::new();
        let mut i = before;
        while i < out.len() {
            let key = (out[i].kind.clone(), out[i].text.clone());
            if seen.contains(&key) {
                out.remove(i);
            } else {
                seen.push(key);
                i += 1;
            }
        }
    }
    // A path whose file the memory itself says elsewhere was removed (a task listing
    // `src/old/converter.h`, done, then "deleted `converter.h`") is not claimed present.
    if !recorded_gone.is_empty() {
        out.retain(|c| c.kind != ClaimKind::Path || !recorded_gone.contains(file_name_of(&c.text)));
    }
    // A name the file's own examples import from a package (`import { watchEffect } from
    // 'vue'`) is the package's API, not a name of the project's code.
    if out.iter().any(|c| c.kind == ClaimKind::Symbol) {
        let imported = package_imports(text);
        out.retain(|c| c.kind != ClaimKind::Symbol || !imported.contains(c.text.as_str()));
    }
    // So is a name the file itself defines as an option, with its default, and any name
    // in what it says of the option (its properties, the values it takes).
    if out
        .iter()
        .any(|c| matches!(c.kind, ClaimKind::Symbol | ClaimKind::EnvVar))
    {
        let (defined, blocks) = defined_options(text);
        out.retain(|c| {
            !matches!(c.kind, ClaimKind::Symbol | ClaimKind::EnvVar)
                || !(defined.contains(c.text.as_str())
                    || blocks.iter().any(|block| block.contains(&c.line)))
        });
    }
    out
}

/// Whether lower-case `text` names MCP, the protocol agents reach tools through, as a
/// word of its own.
fn names_mcp(text: &str) -> bool {
    text.match_indices("mcp").any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + 3..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// The lines of the headings whose own text (up to the next heading) labels an MCP tool:
/// a section on one of an MCP server's tools (`### Parse PRD` over "**MCP Tool:**
/// `parse_prd`"), whose names and parameters are the server's.
fn sections_naming_mcp(prose: &str) -> std::collections::HashSet<usize> {
    let mut sections = std::collections::HashSet::new();
    let mut heading = None;
    for (index, line) in prose.lines().enumerate() {
        if crate::markup::markdown::heading(line).is_some() {
            heading = Some(index + 1);
        } else if let Some(at) = heading
            && labels_mcp(line)
        {
            sections.insert(at);
        }
    }
    sections
}

/// Whether a line is a field whose label names MCP (`* **MCP Tool:** …`, `MCP tool: …`).
fn labels_mcp(line: &str) -> bool {
    let item = line
        .trim_start()
        .trim_start_matches(['-', '*', '+', ' '])
        .trim_start_matches("**");
    item.split_once([':', '：'])
        .is_some_and(|(label, _)| label.chars().count() <= 30 && names_mcp(&label.to_lowercase()))
}

/// Labels of an option's default value, in the languages memory is written in.
const DEFAULT_LABELS: &[&str] = &[
    "default",
    "défaut",
    "defecto",
    "predeterminado",
    "padrão",
    "predefinito",
    "standard",
    "standaard",
    "по умолчанию",
    "varsayılan",
    "domyśln",
    "mặc định",
    "bawaan",
    "기본값",
    "默认",
    "默認",
    "預設",
    "デフォルト",
    "既定",
];

/// Names the file documents as options of something it configures: a list item that is
/// the name alone (`` * `hideTips` (boolean) ``), with an item below it giving its
/// default (`* Default: false`, `* 기본값: false`). The file defines them; it claims
/// nothing about the project's code. Also the 1-based lines each such item spans.
fn defined_options(
    text: &str,
) -> (
    std::collections::HashSet<&str>,
    Vec<std::ops::RangeInclusive<usize>>,
) {
    let mut names = std::collections::HashSet::new();
    let mut blocks = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    for (at, line) in lines.iter().enumerate() {
        let indent = line.len() - line.trim_start().len();
        let Some(marker) = crate::limits::list_marker_len(line.trim_start().as_bytes()) else {
            continue;
        };
        let item = line.trim_start()[marker..].trim().trim_start_matches("**");
        let Some(rest) = item.strip_prefix('`') else {
            continue;
        };
        let Some((name, after)) = rest.split_once('`') else {
            continue;
        };
        let after = after.trim_start_matches("**").trim();
        if name.is_empty()
            || name.contains(char::is_whitespace)
            || !(after.is_empty() || after.starts_with(['(', '（', ':', '：']))
        {
            continue;
        }
        let body = lines[at + 1..].iter().take_while(|next| {
            next.trim().is_empty() || next.len() - next.trim_start().len() > indent
        });
        let gives_default = body.clone().any(|next| {
            let lower = next.to_lowercase();
            lower
                .split_once([':', '：'])
                .is_some_and(|(label, _)| DEFAULT_LABELS.iter().any(|w| label.contains(w)))
        });
        if gives_default {
            names.insert(name.trim_end_matches("()"));
            // Line numbers are 1-based: the item is on line `at + 1`.
            blocks.push(at + 1..=at + 1 + body.count());
        }
    }
    (names, blocks)
}

static PACKAGE_IMPORT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"\bimport\s+(?:type\s+)?(?:([A-Za-z_$][\w$]*)\s*,?\s*)?(?:\{([^}]*)\})?\s*from\s*['"]([^'"]+)['"]"#,
    )
    .expect("static regex")
});

/// The names JavaScript or TypeScript in `text` imports from packages (a module named
/// neither relatively nor through a path alias of the project: `vue`, `@vueuse/core`).
fn package_imports(text: &str) -> std::collections::HashSet<&str> {
    let mut names = std::collections::HashSet::new();
    if !text.contains("import") {
        return names;
    }
    for found in PACKAGE_IMPORT.captures_iter(text) {
        let module = found.get(3).map_or("", |m| m.as_str());
        let own = module.starts_with(['.', '/', '~', '#']) || module.starts_with("@/");
        if own {
            continue;
        }
        if let Some(default) = found.get(1) {
            names.insert(default.as_str());
        }
        if let Some(list) = found.get(2) {
            for item in list.as_str().split(',') {
                let item = item.trim().trim_start_matches("type ").trim();
                let name = item.split_whitespace().next().unwrap_or("");
                if !name.is_empty() {
                    names.insert(name);
                }
            }
        }
    }
    names
}

/// The headings of a text's prose with their lines (1-based): for each, its own title
/// and its parents', innermost first, lower-cased ("data fetching (react query) / stack").
pub fn section_headings(text: &str) -> Vec<(usize, String)> {
    let prose = crate::markup::markdown::prose_only(text);
    let mut open: Vec<(usize, String)> = Vec::new();
    let mut out = Vec::new();
    for (index, line) in prose.lines().enumerate() {
        if let Some((level, title)) = crate::markup::markdown::heading(line.trim_end()) {
            while open.last().is_some_and(|(l, _)| *l >= level) {
                open.pop();
            }
            open.push((level, title.to_lowercase()));
            let chain: Vec<&str> = open.iter().rev().map(|(_, t)| t.as_str()).collect();
            out.push((index + 1, chain.join(" / ")));
        }
    }
    out
}

/// The section `line` sits in, from [`section_headings`]: its headings' titles, or "".
pub fn section_at(headings: &[(usize, String)], line: usize) -> &str {
    let at = headings.partition_point(|(l, _)| *l < line);
    at.checked_sub(1)
        .and_then(|i| headings.get(i))
        .map_or("", |(_, chain)| chain.as_str())
}

/// Whether the text between two code spans is only an arrow (`→`, `->`, `=>`, `⇒`).
fn is_arrow(between: &str) -> bool {
    matches!(between.trim(), "→" | "->" | "=>" | "⇒" | "⟶")
}

/// Whether a heading names a year of this century (`2025`, `2026-03-09`, `(July 2026)`)
/// as a number of its own, not part of a longer one.
/// Whether a line opens with the day it was written (`[2025-04-01 10:12:00] - Fixed …`,
/// `- 2025-04-01: …`): a log's entry, which records what held that day.
fn opens_with_a_day(line: &str) -> bool {
    let text = line.trim_start_matches(['-', '*', '+', ' ', '[', '(']);
    let b = text.as_bytes();
    b.len() >= 10
        && b[..4].iter().all(u8::is_ascii_digit)
        && matches!(b[4], b'-' | b'/' | b'.')
        && b[5..7].iter().all(u8::is_ascii_digit)
        && b[7] == b[4]
        && b[8..10].iter().all(u8::is_ascii_digit)
}

fn names_a_year(heading: &str) -> bool {
    heading
        .split(|c: char| !c.is_ascii_digit())
        .any(|digits| digits.len() == 4 && digits.starts_with("20"))
}

/// The parts of a line between a pair of `~~` (strikethrough), as byte ranges of it.
fn struck_through(line: &str) -> Vec<Range<usize>> {
    let marks: Vec<usize> = line.match_indices("~~").map(|(at, _)| at).collect();
    marks
        .chunks_exact(2)
        .map(|pair| pair[0]..pair[1] + 2)
        .collect()
}

/// `line` with the bytes of `ranges` turned into spaces (offsets and length kept).
fn blanked<'a>(line: &'a str, ranges: &[Range<usize>]) -> std::borrow::Cow<'a, str> {
    if ranges.is_empty() {
        return std::borrow::Cow::Borrowed(line);
    }
    let blank: String = line
        .char_indices()
        .map(|(at, c)| {
            if ranges.iter().any(|r| r.contains(&at)) {
                " ".repeat(c.len_utf8())
            } else {
                c.to_string()
            }
        })
        .collect();
    std::borrow::Cow::Owned(blank)
}

/// An inline code span rather than a code block (which spans lines behind a fence).
fn is_inline_code(range_text: &str) -> bool {
    range_text.starts_with('`') && !range_text.contains('\n')
}

fn strip_ticks(span: &str) -> &str {
    span.trim_matches('`').trim()
}

fn is_open_task(line: &str) -> bool {
    let rest = line.trim_start_matches(['-', '*', '+']).trim_start();
    rest.starts_with("[ ]")
}

/// Claims in one inline code span.
fn code_claims(
    code: &str,
    line: usize,
    kind: FileKind,
    heading: &str,
    lower_line: &str,
    out: &mut Vec<Claim>,
) {
    if code.is_empty() || code.len() > 200 {
        return;
    }
    if let Some(script) = script_claim(code) {
        out.push(Claim {
            kind: script.0,
            text: script.1,
            line,
            drawing: None,
        });
        return;
    }
    if code.contains(char::is_whitespace) {
        return;
    }
    if let Some(path) = path_candidate(code, true) {
        out.push(Claim {
            kind: ClaimKind::Path,
            text: path,
            line,
            drawing: None,
        });
        return;
    }
    if kind.tech
        && !lower_line.contains(" or ")
        && !names_the_platform_s_own(lower_line)
        && (DEPENDENCY_HEADINGS.iter().any(|w| heading.contains(w))
            || ["depend", "librar", "package", "crate"]
                .iter()
                .any(|w| lower_line.contains(w)))
        && let Some(name) = dependency_candidate(code)
    {
        out.push(Claim {
            kind: ClaimKind::Dependency,
            text: name,
            line,
            drawing: None,
        });
        return;
    }
    if !kind.names_code {
        return;
    }
    if let Some((kind, symbol)) = symbol_candidate(code) {
        out.push(Claim {
            kind,
            text: symbol,
            line,
            drawing: None,
        });
    }
}

/// Claims in the prose of a line (code spans already blanked): links, plain paths and
/// package-manager commands.
fn prose_claims(line: &str, number: usize, out: &mut Vec<Claim>) {
    for captures in PACKAGE_RUN.captures_iter(line) {
        if let (Some(tool), Some(name)) = (captures.get(1), captures.get(2)) {
            let name = name.as_str().trim_end_matches(['.', ':', ',']);
            out.push(Claim {
                kind: ClaimKind::Script {
                    runner: Runner::Package,
                    command: format!("{} run {name}", tool.as_str()),
                },
                text: name.to_string(),
                line: number,
                drawing: None,
            });
        }
    }
    let mut linked: Vec<Range<usize>> = Vec::new();
    for captures in LINK.captures_iter(line) {
        let (Some(whole), Some(target)) = (captures.get(0), captures.get(1)) else {
            continue;
        };
        linked.push(whole.range());
        if let Some(path) = link_target(target.as_str()) {
            out.push(Claim {
                kind: ClaimKind::Path,
                text: path,
                line: number,
                drawing: None,
            });
        }
    }
    for captures in PLAIN_PATH.captures_iter(line) {
        let Some(token) = captures.get(1) else {
            continue;
        };
        if linked.iter().any(|r| r.contains(&token.start())) {
            continue;
        }
        // A path with a slot for a name (`docs/features/[name].md`) names no one file.
        if line[token.end()..].starts_with(['[', '<', '{']) {
            continue;
        }
        let text = token.as_str().trim_end_matches(['.', ',', ':', ';', ')']);
        if let Some(path) = path_candidate(text, false) {
            out.push(Claim {
                kind: ClaimKind::Path,
                text: path,
                line: number,
                drawing: None,
            });
        }
    }
}

/// A link's target when it is a relative path in the repository.
fn link_target(target: &str) -> Option<String> {
    let target = target.split(['#', '?']).next()?;
    if target.is_empty() || target.contains(':') {
        return None;
    }
    let decoded = target.replace("%20", " ");
    if decoded.contains(' ') {
        // A path with a space cannot be told apart from prose elsewhere; links are
        // the one place it is unambiguous.
        return clean_path(&decoded).map(str::to_string);
    }
    path_candidate(&decoded, true)
}

/// Trims a location suffix (`:42`, `:42:7`, `#L42`) and a leading `./`.
fn clean_path(token: &str) -> Option<&str> {
    let mut token = token.trim();
    if let Some(hash) = token.find("#L") {
        token = &token[..hash];
    }
    while let Some((head, tail)) = token.rsplit_once(':') {
        if !tail.is_empty() && tail.bytes().all(|b| b.is_ascii_digit()) {
            token = head;
        } else {
            break;
        }
    }
    let token = token.strip_prefix("./").unwrap_or(token);
    (!token.is_empty()).then_some(token)
}

/// Runs of the letters date and number formats use, standing for a date or number in a
/// file name a memory describes rather than names.
const NAMING_MASKS: [&str; 5] = ["YYYY", "YYMMDD", "MMDD", "HHMM", "NNN"];

/// A path claim when `token` is unmistakably a path in the repository. In a code span a
/// bare file name counts (`package.json`); in plain prose a path needs a folder.
fn path_candidate(token: &str, in_code: bool) -> Option<String> {
    let token = clean_path(token)?;
    if token.contains("://")
        || token.starts_with("www.")
        || token.starts_with(['/', '~', '\\', '$', '@', '#', '-', '.'])
            && !token.starts_with(".github/")
            && !is_dot_path(token)
        || token.contains("..")
        || token.contains('\\')
        || token
            .chars()
            .any(|c| "*?{}<>|$%()[],;=\"'!&^+` ".contains(c))
        || token.len() > 160
    {
        return None;
    }
    // A naming mask (`migrate/YYYYMMDDHHMMSS_name.sql`, `decisions/ADR-NNN-title.md`):
    // format letters stand where a file's date or number goes.
    if NAMING_MASKS.iter().any(|mask| token.contains(mask)) {
        return None;
    }
    let lower = token.to_lowercase();
    if examples::is_placeholder_path(token) {
        return None;
    }
    if [
        "path/to",
        "your",
        "example",
        "xxx",
        "foo",
        "bar/",
        "/bar",
        "my-",
        "some",
        "node_modules",
        ".git/",
        "__pycache__",
        ".venv",
        "venv/",
        "dist/",
        "build/",
        "target/",
        ".next/",
        "coverage/",
        "out/",
        "tmp/",
        ".cache",
        ".env",
    ]
    .iter()
    .any(|w| lower.contains(w) || lower.starts_with(w.trim_start_matches('/')))
    {
        return None;
    }
    let name = token.trim_end_matches('/').rsplit('/').next()?;
    let is_dir = token.ends_with('/');
    let has_folder = token.trim_end_matches('/').contains('/');
    let extension = name.rsplit_once('.');
    let known_file = match extension {
        Some((stem, ext)) => {
            !stem.is_empty()
                && EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str())
                && !(ext.eq_ignore_ascii_case("js")
                    && !has_folder
                    && (stem.starts_with(|c: char| c.is_ascii_uppercase())
                        || JS_LIBRARIES.contains(&stem.to_ascii_lowercase().as_str())))
        }
        None => BARE_FILES.contains(&name),
    };
    if !has_folder {
        // A bare name: only a file name in a code span.
        return (in_code && known_file && !is_dir).then(|| token.to_string());
    }
    // Segments must look like file names: no version numbers (`v1.2/3`) or ratios.
    let segments: Vec<&str> = token.trim_end_matches('/').split('/').collect();
    if segments.iter().any(|s| s.is_empty()) {
        return None;
    }
    let first = segments[0];
    // `and/or`, `CI/CD`, `React/Vue`: words with a slash, not paths.
    let path_like_first = first.starts_with('.')
        || first.contains(['_', '-', '.'])
        || first
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
    if known_file {
        if !path_like_first && segments.len() < 3 && !in_code {
            return None;
        }
        return Some(token.to_string());
    }
    if is_dir && path_like_first && (in_code || segments.len() >= 2) {
        return Some(token.to_string());
    }
    // A folder path in a code span with several lowercase segments (`src/core/claims`).
    if in_code
        && segments.len() >= 2
        && path_like_first
        && segments.iter().all(|s| {
            s.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "_-.".contains(c))
        })
    {
        return Some(token.to_string());
    }
    None
}

/// A dot-folder path that names tracked configuration (`.github/workflows/ci.yml`,
/// `.cargo/config.toml`), as opposed to a dotfile that is usually untracked.
fn is_dot_path(token: &str) -> bool {
    let in_folder = |dir: &str| {
        token
            .strip_prefix(dir)
            .is_some_and(|rest| rest.starts_with('/'))
    };
    TRACKED_DOT_FOLDERS.iter().any(|dir| in_folder(dir))
        || crate::formats::AGENT_FOLDERS
            .iter()
            .any(|dir| in_folder(dir))
        || token.starts_with(crate::formats::roo_rules::CLINERULES)
}

/// Tool folders whose files are tracked configuration (the agents' own come from the
/// format model).
const TRACKED_DOT_FOLDERS: [&str; 5] = [".github", ".cargo", ".vscode", ".devcontainer", ".husky"];

/// A backticked package name in the tech context (`zod`, `@tanstack/react-query`,
/// `serde@1`): the name without its version.
fn dependency_candidate(code: &str) -> Option<String> {
    let name = match code.rfind('@') {
        Some(at) if at > 0 => &code[..at],
        _ => code,
    };
    let name = name.split([' ', '=', '^', '~', '<', '>']).next()?;
    if !PACKAGE_NAME.is_match(name) || NOT_DEPENDENCIES.contains(&name) {
        return None;
    }
    if name.contains('.') && !name.starts_with('@') {
        // `config.json`, `next.config.js`: files, not packages.
        return None;
    }
    Some(name.to_string())
}

/// Parts of an upper-case name that make it an example rather than a variable: the
/// metasyntactic names programmers write for "any" (`FOO_BAR`, `PREFIX_X`, `MY_XXX`).
const PLACEHOLDER_NAMES: [&str; 9] = ["X", "Y", "Z", "N", "FOO", "BAR", "BAZ", "QUX", "XXX"];

/// A backticked code symbol or environment variable: identifiers whose shape says
/// code (`processRefund`, `RefundService`, `process_refund`, `MAX_RETRIES`, `refund()`,
/// `Refunds::create`, `api.refund()`), never a plain word.
fn symbol_candidate(code: &str) -> Option<(ClaimKind, String)> {
    let (body, called) = match code.strip_suffix("()") {
        Some(body) => (body, true),
        None => (code, false),
    };
    let last = if let Some((_, last)) = body.rsplit_once("::") {
        last
    } else if called && let Some((_, last)) = body.rsplit_once('.') {
        last
    } else {
        body
    };
    if !IDENT.is_match(last)
        || last.len() < 4
        || NOT_SYMBOLS.contains(&last)
        || AGENT_TOOLS.contains(&last)
    {
        return None;
    }
    // A naming pattern with a slot for the name (`useXxxStore`, `IFooService`) names no
    // one thing.
    if ["Xxx", "XXX", "Foo", "Something"]
        .iter()
        .any(|slot| last.contains(slot))
    {
        return None;
    }
    // An MCP tool as Claude Code names it (`mcp__server__tool`): the server's, not code
    // of the project.
    if last.starts_with("mcp__") {
        return None;
    }
    // Errors and exceptions named in prose are mostly the platform's or a library's.
    if ["Error", "Exception", "Denied", "NotFound", "Warning"]
        .iter()
        .any(|suffix| last.ends_with(suffix))
    {
        return None;
    }
    if body != last && !IDENT.is_match(&body.replace("::", "_").replace('.', "_")) {
        return None;
    }
    let has_lower = last.chars().any(|c| c.is_ascii_lowercase());
    let has_upper = last.chars().any(|c| c.is_ascii_uppercase());
    if !has_lower && has_upper && last.contains('_') {
        let trimmed = last.trim_matches('_');
        // So are error codes (`ERR_MODULE_NOT_FOUND`, `EACCES_DENIED`): the runtime's,
        // not variables of the project.
        let parts: Vec<&str> = trimmed.split('_').collect();
        if parts
            .first()
            .is_some_and(|p| ["ERR", "ERROR", "E"].contains(p))
            || parts.last().is_some_and(|p| {
                [
                    "ERROR",
                    "FOUND",
                    "FAILED",
                    "FAILURE",
                    "DENIED",
                    "EXCEPTION",
                    "INVALID",
                ]
                .contains(p)
            })
        {
            return None;
        }
        // `NEXT_PUBLIC_` names a family of variables, not one; `PREFIX_X` is an example.
        if last.ends_with('_')
            || trimmed.split('_').any(str::is_empty)
            || trimmed.len() < 4
            || trimmed
                .split('_')
                .any(|part| PLACEHOLDER_NAMES.contains(&part))
        {
            return None;
        }
        return Some((ClaimKind::EnvVar, last.to_string()));
    }
    let humps = last
        .as_bytes()
        .windows(2)
        .filter(|w| {
            (w[0].is_ascii_lowercase() || w[0].is_ascii_digit()) && w[1].is_ascii_uppercase()
        })
        .count();
    let camel = last.starts_with(|c: char| c.is_ascii_lowercase()) && humps >= 1;
    let pascal = last.starts_with(|c: char| c.is_ascii_uppercase()) && humps >= 1 && has_lower;
    // One underscore is as often a config key, scope or table (`offline_access`) as a
    // function: it takes a call or a third word.
    let snake = last.contains('_')
        && !has_upper
        && !last.starts_with('_')
        && (called || last.split('_').filter(|s| !s.is_empty()).count() >= 3);
    if camel || pascal || snake || (called && body == last) {
        return Some((ClaimKind::Symbol, last.to_string()));
    }
    None
}

#[cfg(test)]
mod tests;

//! Limits on every parser mbank runs over files it finds on disk, and the cheap linear
//! pre-scans that enforce them before the real parser sees a byte.
//!
//! The parsers are not all linear: serde_norway (libyaml) spends time in proportion to
//! the nesting on every token, so 200 KB of `[[[[` takes seconds to minutes, and a few
//! dozen YAML aliases can expand a small file into billions of nodes. A file over a
//! limit is not parsed; callers report it as a [`FindingCode::ParseLimit`] finding (or, for mbank's
//! own settings files, an error) that names the file, the limit and what was found.
//!
//! | what | parser | size | depth |
//! |---|---|---|---|
//! | mode rule files, `.roomodes` | YAML / JSON / TOML | [`MODE_FILE`] 512 KiB | 64 |
//! | frontmatter, `.memory-config.md` | YAML | [`FRONTMATTER`] 64 KiB | 64 |
//! | Infinity `memories.json`, JSON documents | JSON | [`JSON_STORE`] 16 MiB | 64 |
//! | `config.toml`, keymap, theme | TOML | [`SETTINGS`] 256 KiB | 64 |
//! | preview | markdown (pulldown-cmark) | [`MARKDOWN`] 4 MiB | 64 block containers |
//! | decision logs | line scan | [`DECISION_LOG_MAX_BYTES`] 8 MiB | — |
//! | token cache, listing cache | binary | [`CACHE_MAX_BYTES`] 128 MiB | — |
//!
//! YAML also allows at most [`YAML_MAX_ALIASES`] anchors and as many aliases, and the
//! aliases together may add no more than the size limit again (see [`yaml_shape`]).
//!
//! The pre-scans err on the side of counting too deep (a stray bracket in prose may count
//! as a level); the limits sit far above what real files use, so that costs nothing.
use std::collections::HashMap;
use std::path::Path;

use crate::findings::{Finding, FindingCode, Severity};

/// Size and nesting limits of one kind of file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of text parsed at most.
    pub max_bytes: usize,
    /// Nesting levels at most: collections for YAML, JSON and TOML; block containers
    /// (quotes and list items) for markdown.
    pub max_depth: usize,
}

const KIB: usize = 1024;
const MIB: usize = 1024 * 1024;

/// `.clinerules-{mode}`, `.roorules-{mode}` (JSON, YAML or TOML) and `.roomodes`: real
/// ones are under 60 KB and nest a handful of levels.
pub const MODE_FILE: Limits = Limits {
    max_bytes: 512 * KIB,
    max_depth: 64,
};

/// YAML frontmatter of a markdown file (and ConKeeper's `.memory-config.md`).
pub const FRONTMATTER: Limits = Limits {
    max_bytes: 64 * KIB,
    max_depth: 64,
};

/// Infinity's `memories.json` and JSON documents in document banks: as large as any
/// memory file mbank reads (`text::MAX_READ_BYTES`).
pub const JSON_STORE: Limits = Limits {
    max_bytes: 16 * MIB,
    max_depth: 64,
};

/// mbank's own TOML: `config.toml`, `keymap.toml`, theme files.
pub const SETTINGS: Limits = Limits {
    max_bytes: 256 * KIB,
    max_depth: 64,
};

/// The markdown preview: bigger or deeper files are shown as plain text.
pub const MARKDOWN: Limits = Limits {
    max_bytes: 4 * MIB,
    max_depth: 64,
};

/// Decision logs above this are not parsed: no timeline entries, no append-only check.
pub const DECISION_LOG_MAX_BYTES: u64 = 8 * MIB as u64;

/// The token cache and the listing cache: a bigger file is ignored (and rewritten).
pub const CACHE_MAX_BYTES: u64 = 128 * MIB as u64;

/// YAML anchors (`&name`) at most, and aliases (`*name`) at most.
pub const YAML_MAX_ALIASES: usize = 256;

/// The syntax a limit was checked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    Yaml,
    Json,
    Toml,
    Markdown,
}

impl Syntax {
    pub fn label(self) -> &'static str {
        match self {
            Syntax::Yaml => "YAML",
            Syntax::Json => "JSON",
            Syntax::Toml => "TOML",
            Syntax::Markdown => "markdown",
        }
    }
}

/// A limit a text exceeds, with what was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LimitExceeded {
    Size {
        syntax: Syntax,
        found: u64,
        limit: u64,
    },
    Depth {
        syntax: Syntax,
        /// The deepest nesting in the text.
        found: usize,
        limit: usize,
        /// 1-based line where the nesting first goes past the limit.
        line: usize,
    },
    /// Too many YAML anchors or aliases; `what` is "anchors" or "aliases".
    Aliases {
        what: &'static str,
        found: usize,
        limit: usize,
        line: usize,
    },
    /// YAML aliases that would expand the document past the limit ("billion laughs").
    Expansion { found: u64, limit: u64, line: usize },
}

impl LimitExceeded {
    /// The 1-based line the problem shows on, when there is one.
    pub fn line(&self) -> Option<usize> {
        match self {
            LimitExceeded::Size { .. } => None,
            LimitExceeded::Depth { line, .. }
            | LimitExceeded::Aliases { line, .. }
            | LimitExceeded::Expansion { line, .. } => Some(*line),
        }
    }

    /// The finding for `file`: code [`FindingCode::ParseLimit`], the file's name, what was found and
    /// the limit, and `consequence` (what mbank skipped because of it).
    pub fn finding(&self, severity: Severity, file: &Path, consequence: &str) -> Finding {
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| file.display().to_string());
        Finding::new(
            severity,
            FindingCode::ParseLimit,
            file,
            self.line(),
            format!("{name} was not parsed: {self}; {consequence}"),
        )
    }
}

impl std::fmt::Display for LimitExceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LimitExceeded::Size {
                syntax,
                found,
                limit,
            } => {
                let (found_words, limit_words) = (size_in_words(*found), size_in_words(*limit));
                if found_words == limit_words {
                    write!(
                        f,
                        "its {} text is {found} bytes, over the {limit_words} ({limit}-byte) limit",
                        syntax.label()
                    )
                } else {
                    write!(
                        f,
                        "its {} text is {found_words}, over the {limit_words} limit",
                        syntax.label()
                    )
                }
            }
            LimitExceeded::Depth {
                syntax,
                found,
                limit,
                line,
            } => write!(
                f,
                "its {} nests {found} levels deep (past the limit on line {line}), over the \
                 limit of {limit} levels",
                syntax.label()
            ),
            LimitExceeded::Aliases {
                what,
                found,
                limit,
                line,
            } => write!(
                f,
                "it has {found} YAML {what} (the {}th on line {line}), over the limit of {limit}",
                limit + 1
            ),
            LimitExceeded::Expansion { found, limit, line } => write!(
                f,
                "its YAML aliases would expand it by about {} (past the limit on line {line}), \
                 over the {} limit",
                size_in_words(*found),
                size_in_words(*limit)
            ),
        }
    }
}

/// `512 KiB`, `8 MiB`, `9.1 MiB`, `300 bytes`.
pub fn size_in_words(bytes: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    for (unit, name) in UNITS {
        if bytes >= unit {
            let whole = bytes / unit;
            let tenths = (bytes % unit) * 10 / unit;
            return if tenths == 0 || whole >= 100 {
                format!("{whole} {name}")
            } else {
                format!("{whole}.{tenths} {name}")
            };
        }
    }
    format!("{bytes} bytes")
}

/// Checks `text` against `limits` for `syntax`: its size first, then a linear pre-scan of
/// its nesting (and, for YAML, its anchors and aliases). Ok means the parser may run.
pub fn check(text: &str, syntax: Syntax, limits: Limits) -> Result<(), LimitExceeded> {
    check_size(text.len() as u64, syntax, limits)?;
    let nesting = match syntax {
        Syntax::Json => json_nesting(text, limits.max_depth),
        Syntax::Toml => toml_nesting(text, limits.max_depth),
        Syntax::Markdown => markdown_nesting(text, limits.max_depth),
        Syntax::Yaml => {
            let shape = yaml_shape(text, limits);
            if shape.nesting.over_limit_at.is_none() {
                shape.check_aliases(limits)?;
            }
            shape.nesting
        }
    };
    nesting.check(syntax, limits.max_depth)
}

/// Checks only the size (for files whose size is known before reading them).
pub(crate) fn check_size(size: u64, syntax: Syntax, limits: Limits) -> Result<(), LimitExceeded> {
    if size > limits.max_bytes as u64 {
        return Err(LimitExceeded::Size {
            syntax,
            found: size,
            limit: limits.max_bytes as u64,
        });
    }
    Ok(())
}

/// How deep a text nests, from a pre-scan.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Nesting {
    /// The deepest level seen.
    pub deepest: usize,
    /// 1-based line where the nesting first went past the limit the scan was given.
    pub over_limit_at: Option<usize>,
}

impl Nesting {
    fn reach(&mut self, depth: usize, limit: usize, line: usize) {
        if depth > self.deepest {
            self.deepest = depth;
        }
        if depth > limit && self.over_limit_at.is_none() {
            self.over_limit_at = Some(line);
        }
    }

    fn check(self, syntax: Syntax, limit: usize) -> Result<(), LimitExceeded> {
        match self.over_limit_at {
            Some(line) => Err(LimitExceeded::Depth {
                syntax,
                found: self.deepest,
                limit,
                line,
            }),
            None => Ok(()),
        }
    }
}

// ---------------------------------------------------------------------------------------
// JSON
// ---------------------------------------------------------------------------------------

/// Nesting of arrays and objects, brackets inside strings excluded. Exact for valid JSON.
pub(crate) fn json_nesting(text: &str, limit: usize) -> Nesting {
    let mut nesting = Nesting::default();
    let mut depth = 0usize;
    let mut line = 1;
    let mut in_string = false;
    let mut escaped = false;
    for &byte in text.as_bytes() {
        if byte == b'\n' {
            line += 1;
        }
        if in_string {
            if escaped {
                escaped = false;
            } else if byte == b'\\' {
                escaped = true;
            } else if byte == b'"' {
                in_string = false;
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                nesting.reach(depth, limit, line);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    nesting
}

// ---------------------------------------------------------------------------------------
// TOML
// ---------------------------------------------------------------------------------------

/// Nesting of TOML: the segments of the current table header (`[a.b.c]` is 3), plus the
/// segments of a dotted key (`x.y = …` is 2), plus arrays and inline tables in the value.
/// Strings (basic, literal, multi-line) and comments are skipped.
pub(crate) fn toml_nesting(text: &str, limit: usize) -> Nesting {
    #[derive(PartialEq)]
    enum Quote {
        None,
        Basic,
        Literal,
        MultiBasic,
        MultiLiteral,
    }
    let mut nesting = Nesting::default();
    let mut quote = Quote::None;
    let mut table_depth = 0usize;
    let mut key_depth = 0usize;
    let mut brackets = 0usize;
    for (index, line) in text.split('\n').enumerate() {
        let number = index + 1;
        let bytes = line.as_bytes();
        let mut i = 0;
        // A line that starts outside any value: a table header, a key, or nothing.
        let at_statement = quote == Quote::None && brackets == 0;
        let mut in_key = false;
        if at_statement {
            while i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b'\t') {
                i += 1;
            }
            if bytes.get(i) == Some(&b'[') {
                // `[a.b]` or `[[a.b]]`: count the segments outside quotes.
                let mut segments = 1;
                let mut in_quote: Option<u8> = None;
                for &byte in &bytes[i..] {
                    match in_quote {
                        Some(q) if byte == q => in_quote = None,
                        Some(_) => {}
                        None => match byte {
                            b'"' | b'\'' => in_quote = Some(byte),
                            b'.' => segments += 1,
                            b'#' => break,
                            _ => {}
                        },
                    }
                }
                table_depth = segments;
                key_depth = 0;
                nesting.reach(table_depth, limit, number);
                continue;
            }
            key_depth = 1;
            in_key = true;
        }
        while i < bytes.len() {
            let byte = bytes[i];
            match quote {
                Quote::Basic | Quote::MultiBasic => {
                    if byte == b'\\' {
                        i += 2;
                        continue;
                    }
                    if byte == b'"' {
                        if quote == Quote::Basic {
                            quote = Quote::None;
                        } else if bytes[i..].starts_with(b"\"\"\"") {
                            quote = Quote::None;
                            i += 3;
                            continue;
                        }
                    }
                }
                Quote::Literal | Quote::MultiLiteral => {
                    if byte == b'\'' {
                        if quote == Quote::Literal {
                            quote = Quote::None;
                        } else if bytes[i..].starts_with(b"'''") {
                            quote = Quote::None;
                            i += 3;
                            continue;
                        }
                    }
                }
                Quote::None => match byte {
                    b'#' => break,
                    b'"' | b'\'' => {
                        let triple = if byte == b'"' { &b"\"\"\""[..] } else { b"'''" };
                        if bytes[i..].starts_with(triple) {
                            quote = if byte == b'"' {
                                Quote::MultiBasic
                            } else {
                                Quote::MultiLiteral
                            };
                            i += 3;
                            continue;
                        }
                        quote = if byte == b'"' {
                            Quote::Basic
                        } else {
                            Quote::Literal
                        };
                    }
                    b'.' if in_key => key_depth += 1,
                    b'=' if in_key => in_key = false,
                    b'[' | b'{' if !in_key => {
                        brackets += 1;
                        nesting.reach(table_depth + key_depth + brackets, limit, number);
                    }
                    b']' | b'}' if !in_key => brackets = brackets.saturating_sub(1),
                    _ => {}
                },
            }
            i += 1;
        }
        if quote == Quote::Basic || quote == Quote::Literal {
            // Single-line strings end with their line (an unclosed one is a syntax error).
            quote = Quote::None;
        }
        nesting.reach(table_depth + key_depth, limit, number);
    }
    nesting
}

// ---------------------------------------------------------------------------------------
// Markdown
// ---------------------------------------------------------------------------------------

/// Length of a list marker (`- `, `* `, `+ `, `1. `, `12) `) at the start of `rest`,
/// without the space after it.
fn list_marker_len(rest: &[u8]) -> Option<usize> {
    let followed_by_space = |at: usize| matches!(rest.get(at), None | Some(b' ' | b'\t'));
    match rest.first()? {
        b'-' | b'*' | b'+' if followed_by_space(1) => Some(1),
        b'0'..=b'9' => {
            let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
            (digits <= 9
                && matches!(rest.get(digits), Some(b'.' | b')'))
                && followed_by_space(digits + 1))
            .then_some(digits + 1)
        }
        _ => None,
    }
}

/// Nesting of markdown block containers: block quotes (`>`) and list items, counted from
/// the markers at the start of each line and the indentation that keeps a line inside
/// the list items above it. Inline syntax (emphasis, links) is not counted: pulldown-cmark
/// handles long runs of `*` or `[` in linear time.
pub(crate) fn markdown_nesting(text: &str, limit: usize) -> Nesting {
    let mut nesting = Nesting::default();
    // Content columns of the open list items, outermost first.
    let mut items: Vec<usize> = Vec::new();
    for (index, line) in text.split('\n').enumerate() {
        let bytes = line.as_bytes();
        let indent = bytes.iter().take_while(|&&b| b == b' ').count();
        if indent == bytes.len() || bytes[indent] == b'\r' {
            continue;
        }
        while items.last().is_some_and(|&column| column > indent) {
            items.pop();
        }
        let mut depth = items.len();
        let mut at = indent;
        let mut quoted = false;
        loop {
            let rest = &bytes[at..];
            if rest.first() == Some(&b'>') {
                depth += 1;
                quoted = true;
                at += 1;
                if matches!(bytes.get(at), Some(b' ')) {
                    at += 1;
                }
                continue;
            }
            let Some(len) = list_marker_len(rest) else {
                break;
            };
            depth += 1;
            at += len;
            let spaces = bytes[at..]
                .iter()
                .take(4)
                .take_while(|&&b| b == b' ' || b == b'\t')
                .count()
                .max(1);
            at = (at + spaces).min(bytes.len());
            // Items inside a quote are re-marked on every line; only bare items nest by
            // indentation.
            if !quoted {
                items.push(at);
            }
        }
        nesting.reach(depth, limit, index + 1);
    }
    nesting
}

// ---------------------------------------------------------------------------------------
// YAML
// ---------------------------------------------------------------------------------------

/// What a pre-scan of a YAML text found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct YamlShape {
    /// Block levels (by indentation and `- ` / `? ` indicators) plus flow levels
    /// (`[` and `{`).
    pub nesting: Nesting,
    pub anchors: usize,
    pub aliases: usize,
    /// Line of the anchor past [`YAML_MAX_ALIASES`], if any.
    pub anchors_over_limit_at: Option<usize>,
    /// Line of the alias past [`YAML_MAX_ALIASES`], if any.
    pub aliases_over_limit_at: Option<usize>,
    /// About how many bytes the aliases add when the document is expanded: each alias
    /// adds the text of the node its anchor names, with the aliases inside that node
    /// expanded too. An over-estimate where the end of a node is unclear.
    pub expansion: u64,
    /// The line of the alias that took the expansion past the size limit.
    pub expansion_over_limit_at: Option<usize>,
}

impl YamlShape {
    fn check_aliases(&self, limits: Limits) -> Result<(), LimitExceeded> {
        if let Some(line) = self.anchors_over_limit_at {
            return Err(LimitExceeded::Aliases {
                what: "anchors",
                found: self.anchors,
                limit: YAML_MAX_ALIASES,
                line,
            });
        }
        if let Some(line) = self.aliases_over_limit_at {
            return Err(LimitExceeded::Aliases {
                what: "aliases",
                found: self.aliases,
                limit: YAML_MAX_ALIASES,
                line,
            });
        }
        if let Some(line) = self.expansion_over_limit_at {
            return Err(LimitExceeded::Expansion {
                found: self.expansion,
                limit: limits.max_bytes as u64,
                line,
            });
        }
        Ok(())
    }
}

/// Where an anchored node ends, as far as a line scan can tell.
#[derive(Debug, Clone, Copy)]
enum AnchorEnd {
    /// A node in block context: it ends at the first later line indented less than
    /// `column` (the block collection holding it), or as much unless that line continues
    /// it (a `- ` line may be a mapping value's sequence; a new item ends an anchored item).
    Block { column: usize, item: bool },
    /// A node inside (or opening) a flow collection: it ends when the flow level falls
    /// back to `level`, at a closing bracket or a `,` on that level.
    Flow { level: usize },
}

struct OpenAnchor<'t> {
    name: &'t str,
    start: usize,
    /// What the aliases inside the node add.
    added: u64,
    end: AnchorEnd,
}

/// One pass over a YAML text; work per byte is constant and the bookkeeping of anchors
/// is bounded by [`YAML_MAX_ALIASES`].
struct YamlScan<'t> {
    limits: Limits,
    shape: YamlShape,
    /// Indentation of the block nodes on the current path.
    block: Vec<usize>,
    flow: usize,
    /// An open quoted scalar that continues on the next line.
    quote: Option<u8>,
    /// Inside a block scalar (`|`, `>`): lines indented more than this are its content.
    block_scalar: Option<usize>,
    /// Finished anchors and the bytes their node expands to.
    anchors: HashMap<&'t str, u64>,
    open: Vec<OpenAnchor<'t>>,
    /// An anchor whose node has not started yet: name and offset.
    pending: Option<(&'t str, usize)>,
    /// Column of the innermost block collection on the current line, and whether the
    /// last token was a `- ` indicator (the next node is a sequence item).
    collection_column: usize,
    after_item_indicator: bool,
}

fn is_blank(byte: Option<&u8>) -> bool {
    matches!(byte, None | Some(b' ' | b'\t'))
}

fn is_flow_indicator(byte: u8) -> bool {
    matches!(byte, b',' | b'[' | b']' | b'{' | b'}')
}

impl<'t> YamlScan<'t> {
    fn new(limits: Limits) -> Self {
        YamlScan {
            limits,
            shape: YamlShape::default(),
            block: Vec::new(),
            flow: 0,
            quote: None,
            block_scalar: None,
            anchors: HashMap::new(),
            open: Vec::new(),
            pending: None,
            collection_column: 0,
            after_item_indicator: false,
        }
    }

    fn reach(&mut self, line: usize) {
        let depth = self.block.len() + self.flow;
        self.shape.nesting.reach(depth, self.limits.max_depth, line);
    }

    fn close_top(&mut self, at: usize) {
        if let Some(anchor) = self.open.pop() {
            let size = (at.saturating_sub(anchor.start) as u64).saturating_add(anchor.added);
            self.anchors.insert(anchor.name, size);
        }
    }

    /// Closes the open block anchors that a block line at `indent` ends.
    fn close_block_anchors(&mut self, indent: usize, is_item: bool, at: usize) {
        while let Some(anchor) = self.open.last() {
            let ends = match anchor.end {
                AnchorEnd::Block { column, item } => {
                    indent < column || (indent == column && (item || !is_item))
                }
                // Every flow collection is over on a block line.
                AnchorEnd::Flow { .. } => true,
            };
            if !ends {
                break;
            }
            self.close_top(at);
        }
    }

    /// Closes the flow anchors that end now that the flow level is `self.flow` (after a
    /// closing bracket, or at a `,`).
    fn close_flow_anchors(&mut self, at: usize) {
        while let Some(anchor) = self.open.last() {
            match anchor.end {
                AnchorEnd::Flow { level } if level >= self.flow => self.close_top(at),
                _ => break,
            }
        }
    }

    /// The anchor waiting for its node gets one, which ends as `end` says.
    fn start_pending(&mut self, end: AnchorEnd) {
        if let Some((name, start)) = self.pending.take() {
            self.open.push(OpenAnchor {
                name,
                start,
                added: 0,
                end,
            });
        }
    }

    /// The node here is a scalar (or, at the end of a line, the block node below).
    fn start_pending_here(&mut self) {
        if self.pending.is_none() {
            return;
        }
        let end = if self.flow > 0 {
            AnchorEnd::Flow { level: self.flow }
        } else {
            AnchorEnd::Block {
                column: self.collection_column,
                item: self.after_item_indicator,
            }
        };
        self.start_pending(end);
    }

    fn anchor(&mut self, name: &'t str, at: usize, line: usize) {
        self.start_pending_here();
        self.shape.anchors += 1;
        if self.shape.anchors > YAML_MAX_ALIASES {
            self.shape.anchors_over_limit_at.get_or_insert(line);
            return;
        }
        self.pending = Some((name, at));
    }

    fn alias(&mut self, name: &'t str, at: usize, line: usize) {
        self.start_pending_here();
        self.shape.aliases += 1;
        if self.shape.aliases > YAML_MAX_ALIASES {
            self.shape.aliases_over_limit_at.get_or_insert(line);
            return;
        }
        // An alias cannot point into its own node: an anchor still open here was
        // over-estimated, and its node ends before the alias.
        if let Some(position) = self.open.iter().rposition(|a| a.name == name) {
            while self.open.len() > position {
                self.close_top(at);
            }
        }
        let size = self.anchors.get(name).copied().unwrap_or(0);
        for anchor in &mut self.open {
            anchor.added = anchor.added.saturating_add(size);
        }
        self.shape.expansion = self.shape.expansion.saturating_add(size);
        if self.shape.expansion > self.limits.max_bytes as u64 {
            self.shape.expansion_over_limit_at.get_or_insert(line);
        }
    }

    fn open_flow(&mut self, line: usize) {
        self.after_item_indicator = false;
        let level = self.flow;
        self.start_pending(AnchorEnd::Flow { level });
        self.flow += 1;
        self.reach(line);
    }

    /// One line (without its line break); `start` is its byte offset in the text.
    fn line(&mut self, text: &'t str, start: usize, number: usize) {
        let bytes = text.as_bytes();
        let indent = bytes.iter().take_while(|&&b| b == b' ').count();
        if let Some(threshold) = self.block_scalar {
            if indent == bytes.len() || indent > threshold {
                return;
            }
            self.block_scalar = None;
        }
        let mut i = 0;
        let mut token_start = true;
        if self.quote.is_none() {
            if indent == bytes.len() || bytes[indent] == b'#' {
                return;
            }
            i = indent;
            if self.flow == 0 {
                let marker = indent == 0
                    && (text.starts_with("---") || text.starts_with("..."))
                    && is_blank(bytes.get(3));
                if marker {
                    // A new document: nothing of the last one is open any more.
                    while !self.open.is_empty() {
                        self.close_top(start);
                    }
                    self.anchors.clear();
                    self.pending = None;
                    self.block.clear();
                    i = 3;
                } else if indent == 0 && bytes[0] == b'%' {
                    return;
                } else {
                    let is_item = bytes[indent] == b'-' && is_blank(bytes.get(indent + 1));
                    self.start_pending_here();
                    self.close_block_anchors(indent, is_item, start);
                    while self.block.last().is_some_and(|&column| column >= indent) {
                        self.block.pop();
                    }
                    self.block.push(indent);
                    self.reach(number);
                }
                self.collection_column = indent;
                self.after_item_indicator = false;
            }
        }
        let mut key_column = i;
        while i < bytes.len() {
            let byte = bytes[i];
            if let Some(quote) = self.quote {
                if quote == b'"' && byte == b'\\' {
                    i += 2;
                    continue;
                }
                if byte == quote {
                    if quote == b'\'' && bytes.get(i + 1) == Some(&b'\'') {
                        i += 2;
                        continue;
                    }
                    self.quote = None;
                    token_start = false;
                }
                i += 1;
                continue;
            }
            if byte == b' ' || byte == b'\t' {
                i += 1;
                continue;
            }
            if byte == b'#' && (i == 0 || matches!(bytes[i - 1], b' ' | b'\t')) {
                break;
            }
            let next = bytes.get(i + 1);
            if token_start {
                match byte {
                    b'&' | b'*' | b'!' => {
                        let end = bytes[i + 1..]
                            .iter()
                            .position(|&b| b == b' ' || b == b'\t' || is_flow_indicator(b))
                            .map_or(bytes.len(), |p| i + 1 + p);
                        let name = &text[i + 1..end];
                        if !name.is_empty() {
                            match byte {
                                b'&' => self.anchor(name, start + i, number),
                                b'*' => {
                                    self.alias(name, start + i, number);
                                    token_start = false;
                                }
                                _ => {}
                            }
                        }
                        i = end;
                        continue;
                    }
                    b'"' | b'\'' => {
                        self.start_pending_here();
                        key_column = i;
                        self.quote = Some(byte);
                        i += 1;
                        continue;
                    }
                    _ => {}
                }
            }
            if self.flow > 0 {
                match byte {
                    b'[' | b'{' => {
                        self.open_flow(number);
                        token_start = true;
                    }
                    b']' | b'}' => {
                        self.start_pending_here();
                        self.flow -= 1;
                        self.close_flow_anchors(start + i + 1);
                        token_start = false;
                    }
                    b',' => {
                        self.start_pending_here();
                        self.close_flow_anchors(start + i);
                        token_start = true;
                    }
                    b':' | b'?' => token_start = true,
                    _ if token_start => {
                        self.start_pending_here();
                        token_start = false;
                    }
                    _ => {}
                }
                i += 1;
                continue;
            }
            if token_start {
                match byte {
                    b'-' | b'?' | b':' if is_blank(next) => {
                        let mut j = i + 1;
                        while j < bytes.len() && (bytes[j] == b' ' || bytes[j] == b'\t') {
                            j += 1;
                        }
                        // `- - x`: the second indicator opens a sequence in the first.
                        if self.after_item_indicator {
                            self.block.push(i);
                            self.reach(number);
                        }
                        self.collection_column = i;
                        self.after_item_indicator = byte == b'-';
                        key_column = j;
                        i = j;
                        continue;
                    }
                    b'[' | b'{' => {
                        self.open_flow(number);
                        i += 1;
                        continue;
                    }
                    b'|' | b'>' => {
                        self.start_pending_here();
                        self.block_scalar = Some(self.collection_column);
                        break;
                    }
                    _ => {
                        self.start_pending_here();
                        key_column = i;
                        token_start = false;
                    }
                }
            } else if byte == b':' && is_blank(next) {
                // The scalar before was a key: its mapping is the innermost collection,
                // nested in the item when it follows a `- ` (`- key: value`).
                if self.after_item_indicator {
                    self.block.push(key_column);
                    self.reach(number);
                }
                self.collection_column = key_column;
                self.after_item_indicator = false;
                token_start = true;
            }
            i += 1;
        }
        if self.quote.is_none() {
            // `key: &a` at the end of a line: the node is the block below.
            self.start_pending_here();
        }
    }
}

/// Pre-scans a YAML text: its nesting, its anchors and aliases, and about how much the
/// aliases would expand it ("billion laughs": a few nested aliases multiply the nodes a
/// parser builds). Linear in the text; `limits` says where to note the first excess.
pub fn yaml_shape(text: &str, limits: Limits) -> YamlShape {
    let mut scan = YamlScan::new(limits);
    let mut start = 0;
    for (index, raw) in text.split('\n').enumerate() {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        scan.line(line, start, index + 1);
        start += raw.len() + 1;
    }
    scan.shape
}

#[cfg(test)]
mod tests {
    use super::*;

    const WIDE: Limits = Limits {
        max_bytes: 1 << 20,
        max_depth: 1000,
    };

    fn yaml_depth(text: &str) -> usize {
        yaml_shape(text, WIDE).nesting.deepest
    }

    #[test]
    fn json_nesting_skips_strings() {
        assert_eq!(json_nesting(r#"{"a": [1, {"b": "[[[{{"}]}"#, 64).deepest, 3);
        assert_eq!(json_nesting(r#"["\"[", []]"#, 64).deepest, 2);
        let deep = json_nesting(&format!("{{\n\"a\":\n{}", "[".repeat(70)), 64);
        assert_eq!((deep.deepest, deep.over_limit_at), (71, Some(3)));
    }

    #[test]
    fn toml_nesting_counts_tables_keys_and_values() {
        let text = "title = \"[[[\" # [[[\n[a.b]\nc.d = [[1], {e = 2}]\n\
                    s = '''\n[[[[[\n'''\n[\"x.y\".z]\nm = \"\"\"\n{{{\"\"\"\n";
        // [a.b] is 2, c.d adds 2, [[1]] adds 2.
        assert_eq!(toml_nesting(text, 64).deepest, 6);
        let deep = format!("a = {}{}", "[".repeat(100), "]".repeat(100));
        assert_eq!(toml_nesting(&deep, 64).over_limit_at, Some(1));
        let dotted = format!("{} = 1", vec!["k"; 80].join("."));
        assert_eq!(toml_nesting(&dotted, 64).deepest, 80);
        let header = format!("x = 1\n[{}]\n", vec!["k"; 80].join("."));
        assert_eq!(toml_nesting(&header, 64).over_limit_at, Some(2));
    }

    #[test]
    fn markdown_nesting_counts_quotes_and_list_items() {
        assert_eq!(markdown_nesting("# Title\n\ntext *a* [b]\n", 64).deepest, 0);
        assert_eq!(markdown_nesting("> > > x\n", 64).deepest, 3);
        let list = "- a\n  - b\n    - c\n  - d\n- e\n\n1. x\n   > quoted - not a list\n";
        assert_eq!(markdown_nesting(list, 64).deepest, 3);
        assert_eq!(markdown_nesting("- - - - x\n", 64).deepest, 4);
        let deep = markdown_nesting(&">".repeat(100_000), 64);
        assert_eq!((deep.deepest, deep.over_limit_at), (100_000, Some(1)));
        let indented: String = (0..100)
            .map(|i| format!("{}- x\n", "  ".repeat(i)))
            .collect();
        assert_eq!(markdown_nesting(&indented, 64).over_limit_at, Some(65));
        // Inline runs are not nesting.
        assert_eq!(markdown_nesting(&"*[".repeat(10_000), 64).deepest, 0);
    }

    #[test]
    fn yaml_block_and_flow_nesting() {
        assert_eq!(yaml_depth("a: 1\nb: 2\n"), 1);
        assert_eq!(yaml_depth("a:\n  b:\n    c: 1\nd: 2\n"), 3);
        assert_eq!(yaml_depth("- - - x\n"), 3);
        assert_eq!(yaml_depth("a: [1, {b: [2]}]\n"), 4);
        assert_eq!(yaml_depth("a: [\n  1,\n  [2],\n]\n"), 3);
        // Brackets in quotes, comments, plain scalars and block scalars are not nesting.
        let text =
            "a: \"[[[\"\nb: 'it''s [['\nc: it's a[b{c\nd: x # [[[\ne: |\n  [[[[\n  {{{\nf: 1\n";
        assert_eq!(yaml_depth(text), 1);
        let text = "- key: |\n    [[[\n  other: [x]\n";
        assert_eq!(yaml_depth(text), 3);
        let deep = yaml_shape(&format!("a: {}", "[".repeat(200_000)), MODE_FILE);
        assert_eq!(deep.nesting.deepest, 200_001);
        assert_eq!(deep.nesting.over_limit_at, Some(1));
        let multi = "a: \"x\n  [[[[ still quoted\n  \"\nb: 1\n";
        assert_eq!(yaml_depth(multi), 1);
    }

    #[test]
    fn yaml_anchors_and_aliases_are_counted_and_expansion_estimated() {
        let compose = "base: &base\n  image: x\n  env: [a, b]\nweb:\n  <<: *base\n  port: 1\n\
                       db:\n  <<: *base\n";
        let shape = yaml_shape(compose, MODE_FILE);
        assert_eq!((shape.anchors, shape.aliases), (1, 2));
        let base_len = "&base\n  image: x\n  env: [a, b]\n".len() as u64;
        assert_eq!(shape.expansion, 2 * base_len);
        assert!(check(compose, Syntax::Yaml, MODE_FILE).is_ok());

        // Nine levels of nine aliases: 9^9 copies of the first list.
        let mut lol = String::from("a: &a [\"lol\",\"lol\",\"lol\"]\n");
        let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
        for pair in names.windows(2) {
            let refs = vec![format!("*{}", pair[0]); 9].join(",");
            lol.push_str(&format!("{}: &{} [{refs}]\n", pair[1], pair[1]));
        }
        let err = check(&lol, Syntax::Yaml, MODE_FILE).unwrap_err();
        assert!(matches!(err, LimitExceeded::Expansion { .. }), "{err}");

        // The same in block style, and with the anchored lists at the mapping's indent.
        let mut block = String::from("a: &a\n- lol\n- lol\n");
        for pair in names.windows(2) {
            block.push_str(&format!("{}: &{}\n", pair[1], pair[1]));
            for _ in 0..9 {
                block.push_str(&format!("- *{}\n", pair[0]));
            }
        }
        let err = check(&block, Syntax::Yaml, MODE_FILE).unwrap_err();
        assert!(matches!(err, LimitExceeded::Expansion { .. }), "{err}");

        let many = "a: &a 1\n".to_string() + &"- *a\n".repeat(YAML_MAX_ALIASES + 1);
        let err = check(&many, Syntax::Yaml, MODE_FILE).unwrap_err();
        assert!(
            matches!(err, LimitExceeded::Aliases { what: "aliases", found, .. } if found == YAML_MAX_ALIASES + 1),
            "{err}"
        );
        // `* item` and `a*b` are not aliases.
        let shape = yaml_shape("text: |\n  * item\n* x\nb: a*b &c\n", MODE_FILE);
        assert_eq!((shape.anchors, shape.aliases), (0, 0));
    }

    #[test]
    fn check_reports_size_first_and_names_the_limit() {
        let big = "a".repeat(MODE_FILE.max_bytes + 1);
        let err = check(&big, Syntax::Json, MODE_FILE).unwrap_err();
        assert_eq!(
            err.to_string(),
            "its JSON text is 524289 bytes, over the 512 KiB (524288-byte) limit"
        );
        let err = check(&"[".repeat(100), Syntax::Json, MODE_FILE).unwrap_err();
        assert_eq!(
            err.to_string(),
            "its JSON nests 100 levels deep (past the limit on line 1), over the limit of 64 levels"
        );
        let finding = err.finding(Severity::Error, Path::new("/p/.roomodes"), "modes skipped");
        assert_eq!(
            (finding.code, finding.line),
            (FindingCode::ParseLimit, Some(1))
        );
        assert!(
            finding
                .message
                .starts_with(".roomodes was not parsed: its JSON nests 100")
        );
        assert_eq!(size_in_words(8 << 20), "8 MiB");
        assert_eq!(size_in_words(300), "300 bytes");
        assert_eq!(size_in_words((9 << 20) + (1 << 19)), "9.5 MiB");
    }
}

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
//! | mode rule files, `.roomodes` | YAML / JSON / TOML | `MODE_FILE` 512 KiB | 64 |
//! | frontmatter, `.memory-config.md` | YAML | [`FRONTMATTER`] 64 KiB | 64 |
//! | Infinity `memories.json`, JSON documents | JSON | [`JSON_STORE`] 16 MiB | 64 |
//! | `config.toml`, keymap, theme | TOML | `SETTINGS` 256 KiB | 64 |
//! | preview | markdown (pulldown-cmark) | [`MARKDOWN`] 4 MiB | 64 block containers |
//! | decision logs | line scan | `DECISION_LOG_MAX_BYTES` 8 MiB | — |
//! | token cache, listing cache | binary | `CACHE_MAX_BYTES` 128 MiB | — |
//!
//! YAML also allows at most `YAML_MAX_ALIASES` anchors and as many aliases, and the
//! aliases together may add no more than the size limit again (see `yaml_shape`).
//!
//! The pre-scans err on the side of counting too deep (a stray bracket in prose may count
//! as a level); the limits sit far above what real files use, so that costs nothing.
//! The pre-scans of JSON, TOML and markdown are in `nesting`, YAML's in `yaml`.
use std::path::Path;

use crate::findings::{Finding, FindingCode, Severity};

mod nesting;
pub(crate) use nesting::list_marker_len;
mod yaml;

pub use nesting::Nesting;
pub(crate) use nesting::{json_nesting, markdown_nesting, toml_nesting};
pub(crate) use yaml::yaml_shape;

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
pub(crate) const MODE_FILE: Limits = Limits {
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
pub(crate) const SETTINGS: Limits = Limits {
    max_bytes: 256 * KIB,
    max_depth: 64,
};

/// The markdown preview: bigger or deeper files are shown as plain text.
pub const MARKDOWN: Limits = Limits {
    max_bytes: 4 * MIB,
    max_depth: 64,
};

/// Decision logs above this are not parsed: no timeline entries, no append-only check.
pub(crate) const DECISION_LOG_MAX_BYTES: u64 = 8 * MIB as u64;

/// The token cache and the listing cache: a bigger file is ignored (and rewritten).
pub(crate) const CACHE_MAX_BYTES: u64 = 128 * MIB as u64;

/// YAML anchors (`&name`) at most, and aliases (`*name`) at most.
pub(crate) const YAML_MAX_ALIASES: usize = 256;

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
#[cfg(test)]
mod tests {
    use super::*;

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

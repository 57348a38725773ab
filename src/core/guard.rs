//! The rules an agent's write must pass before it reaches the disk, beyond what the
//! guarded write itself enforces (confinement, markdown only, atomic rename, conflicts):
//!
//! | rule | refused when |
//! |------|--------------|
//! | `append-only` | a decision log loses or retitles an entry (the Cline memory bank spec) |
//! | `secret` | an added line outside `<private>` holds a key, token or password (the review's detectors) |
//! | `elision` | an elision placeholder (`[... rest unchanged ...]`, `// existing content`) replaces most of a file |
//! | `version` | the caller's `expectedVersion` is not the file's current [`content_version`] |
//!
//! Each rule can be relaxed in `[serve.guard]` of config.toml; the defaults protect.
//! Everything here is a pure function of texts, so the servers, tests and any later
//! writer share one definition.
use std::collections::HashSet;
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::analysis::decisions;
use super::markdown;
use super::model::Role;
use super::review::signals;

/// Which rules are on. `Default` protects: every rule on, `expectedVersion` optional.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct GuardPolicy {
    /// Decision logs only grow: entries may be added or re-marked, never dropped or retitled.
    pub append_only: bool,
    /// Refuse added lines that look like secrets outside `<private>` blocks.
    pub secrets: bool,
    /// Refuse an elision placeholder standing in for most of a file.
    pub elisions: bool,
    /// Refuse to replace an existing file unless the caller sends `expectedVersion`.
    pub require_expected_version: bool,
}

impl Default for GuardPolicy {
    fn default() -> Self {
        GuardPolicy {
            append_only: true,
            secrets: true,
            elisions: true,
            require_expected_version: false,
        }
    }
}

/// A file's version as agents see it: the first 128 bits of the SHA-256 of its text, in
/// hex. Stable across runs, builds and machines (unlike `write::Fingerprint`), so an agent
/// can keep it between calls and send it back as `expectedVersion`.
pub fn content_version(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    let mut out = String::with_capacity(32);
    for byte in &digest[..16] {
        out.push(char::from_digit(u32::from(byte >> 4), 16).unwrap_or('0'));
        out.push(char::from_digit(u32::from(byte & 0xf), 16).unwrap_or('0'));
    }
    out
}

/// A decision-log entry a write would drop.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LostEntry {
    pub title: String,
    /// `YYYY-MM-DD` when the entry had a date.
    pub date: Option<String>,
    /// 1-based line of the entry in the file as it is now.
    pub line: usize,
}

/// A line that looks like a secret. The secret itself is never repeated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SecretHit {
    /// 1-based line in the text the agent sent.
    pub line: usize,
    /// What it looks like ("an AWS access key", "a password or key assignment"…).
    pub kind: String,
}

/// Why a write was refused; `message()` says what to do instead.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "rule", rename_all = "kebab-case")]
pub enum Refusal {
    AppendOnly {
        file: String,
        lost: Vec<LostEntry>,
    },
    Secret {
        file: String,
        hits: Vec<SecretHit>,
    },
    Elision {
        file: String,
        /// 1-based line of the placeholder in the text sent.
        line: usize,
        placeholder: String,
        /// Non-blank lines of the current file the new text still holds, of how many.
        kept_lines: usize,
        old_lines: usize,
    },
    Version {
        file: String,
        expected: String,
        actual: String,
    },
    MissingVersion {
        file: String,
    },
}

impl Refusal {
    /// Stable rule id (`append-only`, `secret`, `elision`, `version`, `missing-version`).
    pub fn rule(&self) -> &'static str {
        match self {
            Refusal::AppendOnly { .. } => "append-only",
            Refusal::Secret { .. } => "secret",
            Refusal::Elision { .. } => "elision",
            Refusal::Version { .. } => "version",
            Refusal::MissingVersion { .. } => "missing-version",
        }
    }

    pub fn file(&self) -> &str {
        match self {
            Refusal::AppendOnly { file, .. }
            | Refusal::Secret { file, .. }
            | Refusal::Elision { file, .. }
            | Refusal::Version { file, .. }
            | Refusal::MissingVersion { file } => file,
        }
    }

    /// What was refused and how to succeed, in one paragraph an agent can act on.
    pub fn message(&self) -> String {
        match self {
            Refusal::AppendOnly { file, lost } => {
                let names: Vec<String> = lost
                    .iter()
                    .take(10)
                    .map(|e| match &e.date {
                        Some(date) => format!("\"{}\" ({date}, line {})", e.title, e.line),
                        None => format!("\"{}\" (line {})", e.title, e.line),
                    })
                    .collect();
                let more = if lost.len() > names.len() {
                    format!(" and {} more", lost.len() - names.len())
                } else {
                    String::new()
                };
                format!(
                    "{file} is an append-only decision log; this write would drop or retitle {} \
                     entr{}: {}{more}. Keep every existing entry (mark an old one \"Superseded\" \
                     instead of removing it) and add new entries after them, or use log_decision.",
                    lost.len(),
                    if lost.len() == 1 { "y" } else { "ies" },
                    names.join(", ")
                )
            }
            Refusal::Secret { file, hits } => {
                let lines: Vec<String> = hits
                    .iter()
                    .take(10)
                    .map(|h| format!("line {} ({})", h.line, h.kind))
                    .collect();
                format!(
                    "{file}: the content holds what looks like a secret on {}. Memory files are \
                     read by every agent and often committed: remove it, or put it inside a \
                     <private> … </private> block (tags on their own lines).",
                    lines.join(", ")
                )
            }
            Refusal::Elision {
                file,
                line,
                placeholder,
                kept_lines,
                old_lines,
            } => format!(
                "{file}: line {line} ({placeholder:?}) is an elision placeholder, and the new \
                 content keeps only {kept_lines} of the file's {old_lines} lines. Writing it \
                 would replace the rest of the file with the placeholder: send the complete \
                 file content."
            ),
            Refusal::Version {
                file,
                expected,
                actual,
            } => format!(
                "{file} changed since you read it (expectedVersion {expected}, current version \
                 {actual}); nothing was written. Read it again, merge your change, and retry \
                 with the new version."
            ),
            Refusal::MissingVersion { file } => format!(
                "{file} exists and this server requires expectedVersion for updates: read the \
                 file first and pass the version it returns."
            ),
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message())
    }
}

/// Checks `expectedVersion` against the text on disk (`None` when there is no file).
pub fn check_version(
    policy: &GuardPolicy,
    file: &str,
    current: Option<&str>,
    expected: Option<&str>,
) -> Result<(), Refusal> {
    let Some(current) = current else {
        return Ok(());
    };
    match expected.map(str::trim).filter(|v| !v.is_empty()) {
        Some(expected) => {
            let actual = content_version(current);
            if expected.eq_ignore_ascii_case(&actual) {
                Ok(())
            } else {
                Err(Refusal::Version {
                    file: file.to_string(),
                    expected: expected.to_string(),
                    actual,
                })
            }
        }
        None if policy.require_expected_version => Err(Refusal::MissingVersion {
            file: file.to_string(),
        }),
        None => Ok(()),
    }
}

/// The content rules for replacing `old` (or creating, when `None`) with `new`.
/// `path` and `role` say whether the file is a decision log.
pub fn check_replace(
    policy: &GuardPolicy,
    file: &str,
    path: &Path,
    role: Role,
    old: Option<&str>,
    new: &str,
) -> Result<(), Refusal> {
    if policy.append_only
        && role.is_decision_log()
        && let Some(old) = old
    {
        check_append_only(file, path, role, old, Some(new))?;
    }
    if policy.elisions
        && let Some(old) = old
    {
        check_elision(file, old, new)?;
    }
    if policy.secrets {
        let old_lines: HashSet<&str> = old.map(|o| o.lines().collect()).unwrap_or_default();
        check_secrets(file, new, |line| !old_lines.contains(line))?;
    }
    Ok(())
}

/// The content rules for removing a file holding `old`.
pub fn check_removal(
    policy: &GuardPolicy,
    file: &str,
    path: &Path,
    role: Role,
    old: &str,
) -> Result<(), Refusal> {
    if policy.append_only && role.is_decision_log() {
        check_append_only(file, path, role, old, None)?;
    }
    Ok(())
}

/// The content rules for text appended to a file by the server itself (a logged
/// decision, a progress line): only the added text can hold a secret.
pub fn check_added(policy: &GuardPolicy, file: &str, added: &str) -> Result<(), Refusal> {
    if policy.secrets {
        check_secrets(file, added, |_| true)?;
    }
    Ok(())
}

fn check_append_only(
    file: &str,
    path: &Path,
    role: Role,
    old: &str,
    new: Option<&str>,
) -> Result<(), Refusal> {
    let before = decisions::parse_file(path, role, old);
    if before.is_empty() {
        return Ok(());
    }
    let after = new
        .map(|n| decisions::parse_file(path, role, n))
        .unwrap_or_default();
    let lost: Vec<LostEntry> = decisions::lost_entries(&before, &after)
        .into_iter()
        .map(|d| LostEntry {
            title: d.title.clone(),
            date: d.date.map(|date| date.to_string()),
            line: d.line,
        })
        .collect();
    if lost.is_empty() {
        Ok(())
    } else {
        Err(Refusal::AppendOnly {
            file: file.to_string(),
            lost,
        })
    }
}

/// Lines (1-based) that automation never loads: a `private: true` file, `<private>` blocks.
fn private_lines(text: &str) -> Option<HashSet<usize>> {
    if markdown::is_private_file(text) {
        return None;
    }
    let total = text.lines().count();
    Some(
        markdown::private_blocks(text)
            .into_iter()
            .flat_map(|b| b.start..=b.end.unwrap_or(total))
            .collect(),
    )
}

fn check_secrets(file: &str, text: &str, is_new: impl Fn(&str) -> bool) -> Result<(), Refusal> {
    // A whole file marked private is hidden from automation: nothing to refuse.
    let Some(private) = private_lines(text) else {
        return Ok(());
    };
    let hits: Vec<SecretHit> = text
        .lines()
        .enumerate()
        .map(|(i, line)| (i + 1, line))
        .filter(|(n, line)| !private.contains(n) && is_new(line))
        .filter_map(|(line, text)| {
            signals::secret_in_line(text).map(|kind| SecretHit {
                line,
                kind: kind.to_string(),
            })
        })
        .collect();
    if hits.is_empty() {
        Ok(())
    } else {
        Err(Refusal::Secret {
            file: file.to_string(),
            hits,
        })
    }
}

/// What an elision placeholder says once its comment markers, brackets and dots are gone.
static ELISION_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    let pattern = r"(?x)^(?:
        (?:the\s+)?rest(?:\s+of\s+(?:the\s+)?[a-z]+(?:\s+[a-z]+)?)?(?:\s+(?:is|are|remains?|stays?|kept))?\s+(?:unchanged|the\s+same|as\s+before|omitted|as\s+is)
      | (?:existing|previous|remaining|original|unchanged|other|prior|old)\s+(?:[a-z]+\s+){0,2}(?:content|code|sections?|entries|text|decisions?|items|notes|lines|file|rows)\b.*
      | .*\b(?:omitted\s+for\s+brevity|truncated\s+for\s+brevity|unchanged\s+from\s+before|same\s+as\s+before|no\s+changes\s+(?:below|above|here))\b.*
      | (?:content|file|section|everything\s+else)s?\s+(?:is\s+|are\s+)?(?:unchanged|omitted|truncated)
    )$";
    Regex::new(pattern).unwrap_or_else(|e| unreachable!("constant regex: {e}"))
});

/// True when a line is an elision placeholder: short, wrapped in brackets, a comment or
/// dots, and saying that content was left out.
pub fn is_elision_line(line: &str) -> bool {
    let t = line.trim();
    if t.is_empty() || t.chars().count() > 120 {
        return false;
    }
    let has_dots = t.contains("...") || t.contains('…');
    let wrapped = ["[", "(", "{", "//", "<!--", "/*", "--"]
        .iter()
        .any(|open| t.starts_with(open));
    // A heading ("## Existing entries") is content unless it also carries dots.
    if !(has_dots || wrapped) {
        return false;
    }
    let lower = t.to_lowercase();
    let core = lower
        .trim_matches(|c: char| {
            c.is_whitespace() || "[](){}<>!-/*#.…:>".contains(c) || c == '\u{2014}'
        })
        .replace("...", " ")
        .replace('…', " ");
    let core = core.split_whitespace().collect::<Vec<_>>().join(" ");
    ELISION_WORDS.is_match(&core)
}

fn check_elision(file: &str, old: &str, new: &str) -> Result<(), Refusal> {
    let old_placeholders: HashSet<&str> = old
        .lines()
        .filter(|l| is_elision_line(l))
        .map(str::trim)
        .collect();
    let Some((index, placeholder)) = new
        .lines()
        .enumerate()
        .find(|(_, l)| is_elision_line(l) && !old_placeholders.contains(l.trim()))
    else {
        return Ok(());
    };
    let new_lines: HashSet<&str> = new.lines().map(str::trim).collect();
    let old_lines: Vec<&str> = old
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let kept = old_lines.iter().filter(|l| new_lines.contains(*l)).count();
    // A placeholder beside most of the file is a quotation, not an elision.
    if old_lines.is_empty() || kept * 2 > old_lines.len() {
        return Ok(());
    }
    Err(Refusal::Elision {
        file: file.to_string(),
        line: index + 1,
        placeholder: placeholder.trim().to_string(),
        kept_lines: kept,
        old_lines: old_lines.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = "# Decision Log\n\n\
## Decision: Use Postgres\n- **Date**: 2025-01-02\n- **Status**: Accepted\n\n\
## Decision: Cache in Redis\n- **Date**: 2025-02-03\n- **Status**: Accepted\n";

    fn replace(old: Option<&str>, new: &str, role: Role) -> Result<(), Refusal> {
        check_replace(
            &GuardPolicy::default(),
            "decisionLog.md",
            Path::new("decisionLog.md"),
            role,
            old,
            new,
        )
    }

    #[test]
    fn versions_are_stable_hex_and_differ_by_content() {
        // Pinned: the value agents keep between calls must never change across releases.
        assert_eq!(content_version(""), "e3b0c44298fc1c149afbf4c8996fb924");
        assert_eq!(content_version("a").len(), 32);
        assert_ne!(content_version("a"), content_version("b"));
    }

    #[test]
    fn version_check_refuses_a_stale_version_and_names_the_current_one() {
        let policy = GuardPolicy::default();
        let v = content_version("old");
        check_version(&policy, "f.md", Some("old"), Some(&v)).unwrap();
        check_version(&policy, "f.md", Some("old"), None).unwrap();
        check_version(&policy, "f.md", None, Some("whatever")).unwrap();
        let err = check_version(&policy, "f.md", Some("new"), Some(&v)).unwrap_err();
        assert_eq!(err.rule(), "version");
        assert!(err.message().contains(&content_version("new")));
        let strict = GuardPolicy {
            require_expected_version: true,
            ..policy
        };
        let err = check_version(&strict, "f.md", Some("x"), None).unwrap_err();
        assert_eq!(err.rule(), "missing-version");
    }

    #[test]
    fn dropping_or_retitling_a_decision_is_refused_by_name() {
        let dropped = "# Decision Log\n\n## Decision: Use Postgres\n- **Date**: 2025-01-02\n";
        let err = replace(Some(LOG), dropped, Role::Decisions).unwrap_err();
        assert_eq!(err.rule(), "append-only");
        let message = err.message();
        assert!(
            message.contains("\"Cache in Redis\" (2025-02-03, line 7)"),
            "{message}"
        );
        assert!(!message.contains("Use Postgres"), "{message}");

        let retitled = LOG.replace("Cache in Redis", "Cache in Valkey");
        let err = replace(Some(LOG), &retitled, Role::Decisions).unwrap_err();
        assert!(err.message().contains("Cache in Redis"));

        // Appending and re-marking are fine; so is the same text for a non-log file.
        let appended = format!("{LOG}\n## Decision: Queue jobs\n- **Date**: 2025-03-04\n");
        replace(Some(LOG), &appended, Role::Decisions).unwrap();
        let superseded = LOG.replacen("Accepted", "Superseded by Decision: Queue jobs", 1);
        replace(Some(LOG), &superseded, Role::Decisions).unwrap();
        replace(Some(LOG), dropped, Role::Active).unwrap();

        let err = check_removal(
            &GuardPolicy::default(),
            "decisionLog.md",
            Path::new("decisionLog.md"),
            Role::Decisions,
            LOG,
        )
        .unwrap_err();
        assert_eq!(err.rule(), "append-only");
        let relaxed = GuardPolicy {
            append_only: false,
            ..GuardPolicy::default()
        };
        check_replace(
            &relaxed,
            "decisionLog.md",
            Path::new("decisionLog.md"),
            Role::Decisions,
            Some(LOG),
            dropped,
        )
        .unwrap();
    }

    #[test]
    fn secrets_are_refused_by_line_and_kind_outside_private_blocks() {
        let key = "AKIAIOSFODNN7REALKEY";
        let new = format!("# Tech\n\n- deploy with {key}\n");
        let err = replace(None, &new, Role::Tech).unwrap_err();
        assert_eq!(err.rule(), "secret");
        let message = err.message();
        assert!(message.contains("line 3"), "{message}");
        assert!(
            !message.contains(key),
            "the secret is never echoed: {message}"
        );

        let private = format!("# Tech\n\n<private>\n- deploy with {key}\n</private>\n");
        replace(None, &private, Role::Tech).unwrap();
        let private_file = format!("---\nprivate: true\n---\n- {key}\n");
        replace(None, &private_file, Role::Tech).unwrap();
        // A secret already in the file is not what this write adds.
        replace(Some(&new), &format!("{new}- more\n"), Role::Tech).unwrap();
        let err = check_added(&GuardPolicy::default(), "progress.md", &new).unwrap_err();
        assert_eq!(err.rule(), "secret");
        let relaxed = GuardPolicy {
            secrets: false,
            ..GuardPolicy::default()
        };
        check_added(&relaxed, "progress.md", &new).unwrap();
    }

    #[test]
    fn elision_lines_are_recognised() {
        for yes in [
            "[... rest unchanged ...]",
            "[...rest of file unchanged...]",
            "// existing content",
            "// ... existing code ...",
            "<!-- rest of the document remains unchanged -->",
            "(previous entries unchanged)",
            "... existing decisions ...",
            "# ... existing sections ...",
            "[Content omitted for brevity]",
            "/* remaining sections unchanged */",
            "…rest unchanged…",
        ] {
            assert!(is_elision_line(yes), "{yes}");
        }
        for no in [
            "## Existing entries",
            "- API unchanged since v2",
            "The rest is history.",
            "[Decision Title]",
            "// TODO: add tests",
            "",
        ] {
            assert!(!is_elision_line(no), "{no}");
        }
    }

    #[test]
    fn a_placeholder_replacing_most_of_a_file_is_refused() {
        let old = "# Active Context\n\n## Current Focus\n- auth\n\n## Recent Changes\n- a\n- b\n- c\n- d\n";
        let lazy = "# Active Context\n\n## Current Focus\n- payments\n\n[... rest unchanged ...]\n";
        let err = replace(Some(old), lazy, Role::Active).unwrap_err();
        assert_eq!(err.rule(), "elision");
        let message = err.message();
        assert!(message.contains("line 6"), "{message}");
        assert!(
            message.contains("keeps only 2 of the file's 8 lines"),
            "{message}"
        );
        // Quoting the placeholder while keeping the file is fine, as is creating with it.
        let quoted = format!(
            "{old}- agents sometimes write \"[... rest unchanged ...]\"\n[... rest unchanged ...]\n"
        );
        replace(Some(old), &quoted, Role::Active).unwrap();
        replace(None, lazy, Role::Active).unwrap();
        let relaxed = GuardPolicy {
            elisions: false,
            ..GuardPolicy::default()
        };
        check_replace(
            &relaxed,
            "activeContext.md",
            Path::new("activeContext.md"),
            Role::Active,
            Some(old),
            lazy,
        )
        .unwrap();
    }

    #[test]
    fn policy_reads_from_toml_with_defaults() {
        let policy: GuardPolicy = toml::from_str("secrets = false").unwrap();
        assert!(!policy.secrets && policy.append_only && policy.elisions);
        assert!(toml::from_str::<GuardPolicy>("secret = false").is_err());
    }
}

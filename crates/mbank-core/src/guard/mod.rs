//! The rules an agent's write must pass before it reaches the disk, beyond what the
//! guarded write itself enforces (confinement, markdown only, atomic rename, conflicts):
//!
//! | rule | refused when |
//! |------|--------------|
//! | `append-only` | a decision log loses, retitles or hides an entry a reader saw (the Cline memory bank spec) |
//! | `secret` | the file as it will be after the write, outside well-formed `<private>` blocks, or any name, title, brief or entry an agent sends, holds a key, token or password ([`secrets`]) |
//! | `elision` | a placeholder-shaped line (`[...]`, `<!-- unchanged -->`, `// rest of code`) stands where most of a file was ([`elision`]) |
//! | `version` | the caller's `expectedVersion` is not the file's current [`content_version`] |
//!
//! Each rule can be relaxed in `[serve.guard]` of config.toml; the defaults protect.
//! Everything here is a pure function of texts, so the servers, tests and any later
//! writer share one definition.
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::analysis::decisions;
use crate::model::Role;

pub mod elision;
pub mod refusals;
pub mod secrets;

pub use elision::is_placeholder_line;
pub use secrets::{DOCUMENTED_EXAMPLE_KEYS, secret_in_line};

/// Which rules are on. `Default` protects: every rule on, `expectedVersion` optional.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct GuardPolicy {
    /// Decision logs only grow: entries may be added or re-marked, never dropped or retitled.
    pub append_only: bool,
    /// Refuse secrets in the written file outside `<private>` blocks, and in any name,
    /// title, brief or entry an agent sends.
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
    /// 1-based line in the file as it would be after the write (or in the name, title,
    /// brief or entry sent).
    pub line: usize,
    /// What it looks like ("an AWS access key", "a password or key assignment"…).
    pub kind: String,
}

/// Which text an agent sent a secret in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TextPart {
    /// A file's (or an Infinity memory's) content as it would be after the write.
    Content,
    /// A decision, progress line or active-context item the server appends.
    Entry,
    /// The name of a file to write.
    FileName,
    /// The title of an Infinity memory.
    Title,
    /// `initialize_memory_bank`'s brief (the first `projectBrief.md`).
    Brief,
}

impl TextPart {
    fn describe(self) -> &'static str {
        match self {
            TextPart::Content => "the content",
            TextPart::Entry => "the entry",
            TextPart::FileName => "the file name",
            TextPart::Title => "the memory title",
            TextPart::Brief => "the project brief",
        }
    }

    /// Names and titles are listed to every agent and cannot hold a `<private>` block.
    fn is_name(self) -> bool {
        matches!(self, TextPart::FileName | TextPart::Title)
    }
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
        /// The file or memory written; for a refused name or title, what was named
        /// (never the name itself, which holds the secret).
        file: String,
        part: TextPart,
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

    /// True when the refusal is about a name or title, so the name the agent sent holds
    /// the secret and must not be logged ([`Refusal::file`] is safe to log instead).
    pub fn withholds_name(&self) -> bool {
        matches!(self, Refusal::Secret { part, .. } if part.is_name())
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
            Refusal::Secret { file, part, hits } if part.is_name() => {
                let kinds: Vec<&str> = hits.iter().take(10).map(|h| h.kind.as_str()).collect();
                format!(
                    "{file}: {} holds what looks like a secret ({}). Names and titles are listed \
                     to every agent: choose one without it.",
                    part.describe(),
                    kinds.join(", ")
                )
            }
            Refusal::Secret { file, part, hits } => {
                let lines: Vec<String> = hits
                    .iter()
                    .take(10)
                    .map(|h| format!("line {} ({})", h.line, h.kind))
                    .collect();
                let more = if hits.len() > lines.len() {
                    format!(" and {} more", hits.len() - lines.len())
                } else {
                    String::new()
                };
                let fix = if *part == TextPart::Entry {
                    "leave it out of the entry"
                } else {
                    "remove it, or put it inside a <private> … </private> block (tags on their \
                     own lines, outside code blocks)"
                };
                format!(
                    "{file}: {} holds what looks like a secret on {}{more}. Memory files are \
                     read by every agent and often committed: {fix}.",
                    part.describe(),
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
pub(crate) fn check_version(
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
/// `path` and `role` say whether the file is a decision log. Secrets are looked for in
/// all of `new`, the file as it will be: a line that was already there counts too, so
/// unwrapping a `<private>` block is refused like writing the secret.
pub(crate) fn check_replace(
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
    check_result(policy, file, new)
}

/// The content rules for removing a file holding `old`.
pub(crate) fn check_removal(
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

/// The secret rule for a file's whole text as it will be after a write.
pub(crate) fn check_result(policy: &GuardPolicy, file: &str, text: &str) -> Result<(), Refusal> {
    if policy.secrets {
        check_secrets(file, TextPart::Content, text)?;
    }
    Ok(())
}

/// The secret rule for an entry the server adds to a file on an agent's behalf (a
/// logged decision, a progress line, a memory's first content), judged alone so that a
/// refused entry fails without its neighbours.
pub(crate) fn check_added(policy: &GuardPolicy, file: &str, added: &str) -> Result<(), Refusal> {
    if policy.secrets {
        check_secrets(file, TextPart::Entry, added)?;
    }
    Ok(())
}

/// The secret rule for a text an agent sends besides content: a file name, a memory
/// title or a brief. `what` names the target in the refusal; for names and titles it
/// must not be the text itself.
pub(crate) fn check_text(
    policy: &GuardPolicy,
    what: &str,
    part: TextPart,
    text: &str,
) -> Result<(), Refusal> {
    if !policy.secrets {
        return Ok(());
    }
    if !part.is_name() {
        return check_secrets(what, part, text);
    }
    // A name has no `<private>` block to hide in: every line counts.
    let hits: Vec<SecretHit> = text
        .lines()
        .enumerate()
        .filter_map(|(i, line)| {
            secret_in_line(line).map(|kind| SecretHit {
                line: i + 1,
                kind: kind.to_string(),
            })
        })
        .collect();
    if hits.is_empty() {
        Ok(())
    } else {
        Err(Refusal::Secret {
            file: what.to_string(),
            part,
            hits,
        })
    }
}

fn check_append_only(
    file: &str,
    path: &Path,
    role: Role,
    old: &str,
    new: Option<&str>,
) -> Result<(), Refusal> {
    // Entries as a reader sees them: hiding an entry (a comment, `<details>`, a
    // `<private>` block, `private: true`) drops it as surely as deleting it.
    let before = decisions::visible_entries(path, role, old);
    if before.is_empty() {
        return Ok(());
    }
    let after = new
        .map(|n| decisions::visible_entries(path, role, n))
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

/// Texts below this size are scanned whole every time; above it, the last clean text of
/// a file is kept so an append to it scans the appended part only.
const CLEAN_TEXT_MIN_BYTES: usize = 64 * 1024;
/// Files whose last clean text is kept (a bound on the memory the shortcut takes).
const CLEAN_TEXTS_MAX: usize = 16;

/// The last text of each large file this process found free of exposed secrets.
static CLEAN_TEXTS: LazyLock<Mutex<HashMap<PathBuf, Arc<str>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// [`check_result`] for a text the server built by appending to `old` (a batch of
/// logged decisions): the same verdict, but when `new` only extends a text of `path`
/// this process already found clean, only the extension is scanned. The extension must
/// start on a line of its own and hold no `<private>` tag, so the context of the old
/// text cannot change what it exposes; anything else is scanned whole.
pub(crate) fn check_appended_result(
    policy: &GuardPolicy,
    file: &str,
    path: &Path,
    old: Option<&str>,
    new: &str,
) -> Result<(), Refusal> {
    if !policy.secrets {
        return Ok(());
    }
    let old = old.unwrap_or("");
    let extension = new
        .strip_prefix(old)
        .filter(|added| !old.is_empty() && old.ends_with('\n') && !added.contains("private>"));
    let known_clean = extension.is_some()
        && CLEAN_TEXTS
            .lock()
            .get(path)
            .is_some_and(|clean| clean.as_ref() == old);
    match extension {
        Some(added) if known_clean => {
            if let Err(mut refusal) = check_secrets(file, TextPart::Content, added) {
                // Lines of the file, not of the extension.
                let offset = old.bytes().filter(|b| *b == b'\n').count();
                if let Refusal::Secret { hits, .. } = &mut refusal {
                    hits.iter_mut().for_each(|h| h.line += offset);
                }
                return Err(refusal);
            }
        }
        _ => check_secrets(file, TextPart::Content, new)?,
    }
    if new.len() >= CLEAN_TEXT_MIN_BYTES {
        let mut texts = CLEAN_TEXTS.lock();
        if texts.len() >= CLEAN_TEXTS_MAX
            && !texts.contains_key(path)
            && let Some(evicted) = texts.keys().next().cloned()
        {
            texts.remove(&evicted);
        }
        texts.insert(path.to_path_buf(), Arc::from(new));
    }
    Ok(())
}

fn check_secrets(file: &str, part: TextPart, text: &str) -> Result<(), Refusal> {
    let hits: Vec<SecretHit> = secrets::exposed_secrets(text)
        .into_iter()
        .map(|h| SecretHit {
            line: h.line,
            kind: h.kind.to_string(),
        })
        .collect();
    if hits.is_empty() {
        Ok(())
    } else {
        Err(Refusal::Secret {
            file: file.to_string(),
            part,
            hits,
        })
    }
}

fn check_elision(file: &str, old: &str, new: &str) -> Result<(), Refusal> {
    match elision::find_elision(old, new) {
        None => Ok(()),
        Some(found) => Err(Refusal::Elision {
            file: file.to_string(),
            line: found.line,
            placeholder: found.placeholder,
            kept_lines: found.kept_lines,
            old_lines: found.old_lines,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The history reuses a write's SHA-256 for both hashes, which holds only while the
    /// version an agent sees is the start of the history's content hash.
    #[test]
    fn a_writes_content_version_is_the_start_of_its_content_hash() {
        for text in ["", "one\n", "# Title\n\n- é ✓\n", &"x".repeat(70_000)] {
            assert_eq!(
                content_version(text),
                crate::history::content_hash(text)[..32],
                "{text:.20}"
            );
        }
    }

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
        // The file as it will be is judged: a secret already there is refused too.
        let err = replace(Some(&new), &format!("{new}- more\n"), Role::Tech).unwrap_err();
        assert!(err.message().contains("line 3"), "{}", err.message());
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
        let is_elision_line = is_placeholder_line;
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

    const KEY: &str = "AKIAZ7QWERTYUIOPASDF";

    fn tech(old: Option<&str>, new: &str) -> Result<(), Refusal> {
        check_replace(
            &GuardPolicy::default(),
            "techContext.md",
            Path::new("techContext.md"),
            Role::Tech,
            old,
            new,
        )
    }

    fn secret_kinds(result: Result<(), Refusal>) -> Vec<String> {
        match result {
            Err(Refusal::Secret { hits, .. }) => hits.into_iter().map(|h| h.kind).collect(),
            other => panic!("expected a secret refusal, got {other:?}"),
        }
    }

    #[test]
    fn a_key_unwrapped_from_a_private_block_by_a_second_write_is_refused() {
        let wrapped = format!("# Tech\n\n<private>\n- deploy key {KEY}\n</private>\n");
        tech(None, &wrapped).unwrap();
        let unwrapped = format!("# Tech\n\n- deploy key {KEY}\n");
        let err = tech(Some(&wrapped), &unwrapped).unwrap_err();
        assert_eq!(err.rule(), "secret");
        assert!(
            err.message().contains("line 3 (an AWS access key id)"),
            "{err}"
        );
        assert!(!err.message().contains(KEY), "{err}");
        // Only the closing tag removed: the block no longer protects anything.
        let unclosed = format!("# Tech\n\n<private>\n- deploy key {KEY}\n");
        assert_eq!(
            err.rule(),
            tech(Some(&wrapped), &unclosed).unwrap_err().rule()
        );
    }

    #[test]
    fn a_key_under_an_unclosed_private_tag_is_refused() {
        let new = format!("# Tech\n<private>\n- {KEY}\n");
        assert_eq!(secret_kinds(tech(None, &new)), vec!["an AWS access key id"]);
    }

    #[test]
    fn a_private_tag_inside_a_code_fence_protects_nothing() {
        let fenced = format!("# Tech\n```\n<private>\n{KEY}\n</private>\n```\n");
        assert_eq!(
            secret_kinds(tech(None, &fenced)),
            vec!["an AWS access key id"]
        );
        let tilde = format!("# Tech\n~~~\n<private>\n~~~\n{KEY}\n</private>\n");
        // The opening tag is in code, so the closing one closes nothing.
        assert_eq!(
            secret_kinds(tech(None, &tilde)),
            vec!["an AWS access key id"]
        );
    }

    #[test]
    fn keys_glued_to_words_are_refused() {
        for line in [
            format!("awskey{KEY}"),
            format!("{KEY}_prod"),
            "export GH=tokenghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789x".to_string(),
        ] {
            let err = tech(None, &format!("# Tech\n{line}\n")).unwrap_err();
            assert_eq!(err.rule(), "secret", "{line}");
        }
    }

    #[test]
    fn prefixed_secret_assignments_and_google_keys_are_refused() {
        for (line, kind) in [
            (
                "AWS_SECRET_ACCESS_KEY=Zx8yW7vU6tS5rQ4pO3nM2lK1jI0hG9fE8dC7bA6z",
                "a password or key assignment",
            ),
            ("DB_PASSWORD=hunter2hunter2", "a password or key assignment"),
            (
                "MY_API_TOKEN=a1b2c3d4e5f6g7h8",
                "a password or key assignment",
            ),
            (
                "maps key AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW",
                "a Google API key",
            ),
        ] {
            let kinds = secret_kinds(tech(None, &format!("# Tech\n{line}\n")));
            assert_eq!(kinds, vec![kind], "{line}");
        }
    }

    #[test]
    fn aws_documented_example_keys_are_allowed_and_listed() {
        assert!(DOCUMENTED_EXAMPLE_KEYS.contains(&"AKIAIOSFODNN7EXAMPLE"));
        assert!(DOCUMENTED_EXAMPLE_KEYS.contains(&"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"));
        let docs = "# Tech\nAWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\n\
AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n";
        tech(None, docs).unwrap();
        // One character off the documented key is a key like any other.
        let off = docs.replace("EXAMPLEKEY", "EXAMPLEKEX");
        assert_eq!(
            secret_kinds(tech(None, &off)),
            vec!["a password or key assignment"]
        );
    }

    #[test]
    fn ordinary_memory_prose_passes_the_secret_rule() {
        let prose = "# Tech\n\n- password reset flow sends a one-time link\n\
- token counting uses o200k_base (max_tokens: 4096)\n\
- DATABASE_URL=\"file:../app.db\"\n- the secret to fast CI: cache the registry\n\
- task-management-system-overview-2024 lives in docs/\n";
        tech(None, prose).unwrap();
    }

    #[test]
    fn secrets_in_names_titles_and_briefs_are_refused_without_echoing_them() {
        let policy = GuardPolicy::default();
        for (part, text) in [
            (TextPart::FileName, format!("notes-{KEY}.md")),
            (TextPart::Title, format!("Deploy with {KEY}")),
        ] {
            let err = check_text(&policy, "a new file", part, &text).unwrap_err();
            assert_eq!(err.rule(), "secret");
            assert!(err.withholds_name());
            assert!(!err.message().contains(KEY), "{err}");
            assert!(err.message().contains("an AWS access key id"), "{err}");
            check_text(&policy, "a new file", part, "decision-log.md").unwrap();
        }
        let brief = format!("A todo API.\nStaging key {KEY}\n");
        let err = check_text(&policy, "projectBrief.md", TextPart::Brief, &brief).unwrap_err();
        assert!(err.message().contains("the project brief holds"), "{err}");
        assert!(err.message().contains("line 2"), "{err}");
        assert!(!err.withholds_name());
        let private = format!("A todo API.\n<private>\n{KEY}\n</private>\n");
        check_text(&policy, "projectBrief.md", TextPart::Brief, &private).unwrap();
        let relaxed = GuardPolicy {
            secrets: false,
            ..policy
        };
        check_text(&relaxed, "a new file", TextPart::FileName, KEY).unwrap();
    }

    /// A thirteen-line active context.
    const ACTIVE: &str = "# Active Context\n\n## Current Focus\n- auth rewrite\n- token refresh\n\n\
## Recent Changes\n- moved sessions to Redis\n- added rate limits\n- fixed login redirect\n\n\
## Next Steps\n- audit logging\n- admin panel\n- docs\n";

    #[test]
    fn placeholders_worded_any_way_that_replace_most_of_a_file_are_refused() {
        for placeholder in [
            "<!-- unchanged -->",
            "[rest of file]",
            "[... 200 lines omitted ...]",
            "[Keep existing content]",
            "// rest of code",
            "[...]",
            "[truncated]",
            "<snip>",
        ] {
            let lazy =
                format!("# Active Context\n\n## Current Focus\n- payments\n\n{placeholder}\n");
            let err = check_replace(
                &GuardPolicy::default(),
                "activeContext.md",
                Path::new("activeContext.md"),
                Role::Active,
                Some(ACTIVE),
                &lazy,
            )
            .unwrap_err();
            assert_eq!(err.rule(), "elision", "{placeholder}");
            assert!(
                err.message()
                    .contains("keeps only 2 of the file's 12 lines"),
                "{err}"
            );
        }
    }

    #[test]
    fn a_genuine_rewrite_and_unchanged_bracketed_prose_pass_the_elision_rule() {
        let active = |old: &str, new: &str| {
            check_replace(
                &GuardPolicy::default(),
                "activeContext.md",
                Path::new("activeContext.md"),
                Role::Active,
                Some(old),
                new,
            )
        };
        active(ACTIVE, "# Active Context\n\n## Current Focus\n- payments\n").unwrap();
        let quoting = format!("{ACTIVE}\n## Style\n[...]\n- marks a cut in a quotation\n");
        active(
            &quoting,
            "# Active Context\n\n## Style\n[...]\n- marks a cut in a quotation\n",
        )
        .unwrap();
    }

    fn decisions(old: &str, new: &str) -> Result<(), Refusal> {
        check_replace(
            &GuardPolicy::default(),
            "decisionLog.md",
            Path::new("decisionLog.md"),
            Role::Decisions,
            Some(old),
            new,
        )
    }

    fn lost_titles(result: Result<(), Refusal>) -> Vec<String> {
        match result {
            Err(Refusal::AppendOnly { lost, .. }) => lost.into_iter().map(|e| e.title).collect(),
            other => panic!("expected an append-only refusal, got {other:?}"),
        }
    }

    #[test]
    fn hiding_decision_entries_is_refused_like_dropping_them() {
        let body = LOG.trim_start_matches("# Decision Log\n");
        let both = vec!["Use Postgres".to_string(), "Cache in Redis".to_string()];
        let private = format!("# Decision Log\n<private>\n{body}</private>\n");
        assert_eq!(lost_titles(decisions(LOG, &private)), both);
        let flagged = format!("---\nprivate: true\n---\n{LOG}");
        assert_eq!(lost_titles(decisions(LOG, &flagged)), both);
        let commented = format!("# Decision Log\n<!--\n{body}-->\n");
        assert_eq!(lost_titles(decisions(LOG, &commented)), both);
        let folded =
            format!("# Decision Log\n\n<details>\n<summary>old</summary>\n{body}\n</details>\n");
        assert_eq!(lost_titles(decisions(LOG, &folded)), both);
        // Appending after a comment or a closed `<details>` hides nothing.
        let appended = format!(
            "{LOG}\n<!-- reviewed in March -->\n<details>\n<summary>notes</summary>\n\nx\n\n</details>\n\n\
## Decision: Queue jobs\n- **Date**: 2025-03-04\n"
        );
        decisions(LOG, &appended).unwrap();
    }

    /// A clean log over the size from which its clean text is kept.
    fn big_log() -> String {
        let mut log = String::from("# Decision Log\n");
        let mut i = 0;
        while log.len() < CLEAN_TEXT_MIN_BYTES + 1024 {
            log.push_str(&format!(
                "\n## Decision: entry {i}\n- **Date**: 2025-01-01 10:00:00\n- **Selected**: append\n"
            ));
            i += 1;
        }
        log
    }

    #[test]
    fn an_appended_batch_gets_the_verdict_of_the_whole_result() {
        let policy = GuardPolicy::default();
        let path = Path::new("/guard-test/appended/decisionLog.md");
        let log = big_log();
        check_appended_result(&policy, "decisionLog.md", path, None, &log).unwrap();
        let clean = format!("{log}\n## Decision: next\n- **Selected**: ship\n");
        check_appended_result(&policy, "decisionLog.md", path, Some(&log), &clean).unwrap();
        // A key in the extension is refused on the file's own line number.
        let leaked = format!("{clean}\n## Decision: deploy\n- **Context**: key{KEY}\n");
        let whole = check_result(&policy, "decisionLog.md", &leaked).unwrap_err();
        let appended =
            check_appended_result(&policy, "decisionLog.md", path, Some(&clean), &leaked)
                .unwrap_err();
        assert_eq!(appended, whole);
        assert!(
            whole
                .message()
                .contains(&format!("line {}", leaked.lines().count()))
        );
    }

    #[test]
    fn an_append_to_a_log_changed_behind_the_guards_back_is_scanned_whole() {
        let policy = GuardPolicy::default();
        let path = Path::new("/guard-test/changed/decisionLog.md");
        let log = big_log();
        check_appended_result(&policy, "decisionLog.md", path, None, &log).unwrap();
        // Someone else put a key in the log; the next append is refused for it.
        let edited = log.replacen("- **Selected**: append", &format!("- {KEY}"), 1);
        let appended = format!("{edited}\n## Decision: next\n");
        let err = check_appended_result(&policy, "decisionLog.md", path, Some(&edited), &appended)
            .unwrap_err();
        assert!(
            err.message().contains("line 5 (an AWS access key id)"),
            "{err}"
        );
    }

    #[test]
    fn private_tags_in_an_appended_part_are_judged_in_the_whole_file() {
        let policy = GuardPolicy::default();
        let path = Path::new("/guard-test/fenced/notes.md");
        // Clean, but ends inside an open code fence.
        let log = format!("{}\n```\n", big_log());
        check_appended_result(&policy, "notes.md", path, None, &log).unwrap();
        // Alone, these tags would hide the key; in the file they sit in code.
        let appended = format!("{log}<private>\n{KEY}\n</private>\n");
        let err =
            check_appended_result(&policy, "notes.md", path, Some(&log), &appended).unwrap_err();
        assert_eq!(
            err,
            check_result(&policy, "notes.md", &appended).unwrap_err()
        );
    }
}

//! The rules an agent's write must pass before it reaches the disk, beyond what the
//! guarded write itself enforces (confinement, markdown only, atomic rename, conflicts):
//!
//! | rule | refused when |
//! |------|--------------|
//! | `append-only` | a decision log loses, retitles or hides an entry a reader saw (the Cline memory bank spec) |
//! | `secret` | the file as it will be after the write, outside well-formed `<private>` blocks, or any name, title, brief or entry an agent sends, holds a key, token or password ([`secrets`]) |
//! | `elision` | a placeholder-shaped line (`[...]`, `<!-- unchanged -->`, `// rest of code`) stands where most of a file was ([`elision`]) |
//! | `shrinkage` | an agent's writes since the last text a person made (wrote, accepted, restored, reviewed) together remove more than `max_shrink_percent` of it |
//! | `version` | the caller's `expectedVersion` is not the file's current `content_version` |
//! | `size` | the file as it will be after the write is bigger than mbank reads (`MAX_FILE_BYTES`) |
//!
//! Each rule but `size` can be relaxed in `[serve.guard]` of config.toml; the defaults
//! protect. `size` always holds: a file past it could no longer be read back.
//! A write is judged by one call, [`check`], whose rules are chosen by what the write
//! does ([`GuardKind`]). The verdict is a function of the texts alone: the only thing a
//! [`Guard`] remembers (texts it found clean) makes an append cheaper, never different.
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::analysis::decisions;
use crate::model::Role;

pub mod elision;
pub mod refusals;
pub mod secrets;

pub(crate) use secrets::secret_in_line;

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
    /// The share of a file, in percent of its non-blank lines and of its bytes, that
    /// agents' writes may remove together since the last text a person made; past it, a
    /// person must make the change. 100 turns the rule off.
    pub max_shrink_percent: u8,
}

impl Default for GuardPolicy {
    fn default() -> Self {
        GuardPolicy {
            append_only: true,
            secrets: true,
            elisions: true,
            require_expected_version: false,
            max_shrink_percent: 50,
        }
    }
}

/// The largest memory file a write may leave: what mbank reads back
/// (`io::text::MAX_READ_BYTES`), so a file mbank wrote can always be read again.
pub(crate) const MAX_FILE_BYTES: u64 = crate::io::text::MAX_READ_BYTES;

/// A file's version as agents see it: the first 128 bits of the SHA-256 of its text, in
/// hex. Stable across runs, builds and machines (unlike `write::Fingerprint`), so an agent
/// can keep it between calls and send it back as `expectedVersion`.
pub(crate) fn content_version(text: &str) -> String {
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
    /// Agents' writes since the last text a person made would together remove more of
    /// it than `max_shrink_percent`.
    Shrinkage {
        file: String,
        /// Non-blank lines of the person's text the new one still holds, of how many.
        kept_lines: usize,
        old_lines: usize,
        /// Bytes of the new text and of the person's.
        new_bytes: usize,
        old_bytes: usize,
        limit_percent: u8,
    },
    /// The file would be bigger than mbank reads (`MAX_FILE_BYTES`).
    TooLarge {
        file: String,
        /// Its size after the write (a lower bound when `at_least`: the text sent alone
        /// passes the limit).
        bytes: u64,
        at_least: bool,
        limit: u64,
    },
}

impl Refusal {
    /// Stable rule id (`append-only`, `secret`, `elision`, `version`, `missing-version`,
    /// `shrinkage`, `size`).
    pub fn rule(&self) -> &'static str {
        match self {
            Refusal::Shrinkage { .. } => "shrinkage",
            Refusal::TooLarge { .. } => "size",
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
            | Refusal::MissingVersion { file }
            | Refusal::Shrinkage { file, .. }
            | Refusal::TooLarge { file, .. } => file,
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
            Refusal::Shrinkage {
                file,
                kept_lines,
                old_lines,
                new_bytes,
                old_bytes,
                limit_percent,
            } => format!(
                "{file}: since a person last saved, accepted or reviewed it, agents' writes \
                 have cut it down, and this one would leave {kept_lines} of that version's \
                 {old_lines} lines and {new_bytes} of its {old_bytes} bytes: more than \
                 {limit_percent}% removed without a person; nothing was written. Send the \
                 complete file (keep what you did not mean to remove), or ask the person to \
                 make this change or to review the file in mbank, then retry."
            ),
            Refusal::TooLarge {
                file,
                bytes,
                at_least,
                limit,
            } => format!(
                "{file} would be {}{bytes} bytes after this write, over the {limit}-byte ({}) \
                 limit mbank reads a memory file up to; nothing was written. Keep the file \
                 smaller: move old entries into another file (an archive), or split it.",
                if *at_least { "at least " } else { "" },
                crate::limits::size_in_words(*limit)
            ),
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message())
    }
}

/// The rules on, and the texts of large files it found clean (so an append to one scans
/// the appended part only). Clones share what they remember: a server keeps one for all
/// its requests.
#[derive(Debug, Clone, Default)]
pub struct Guard {
    pub policy: GuardPolicy,
    clean: Arc<CleanTexts>,
}

impl Guard {
    pub fn new(policy: GuardPolicy) -> Guard {
        Guard {
            policy,
            clean: Arc::default(),
        }
    }
}

/// Whether a write is checked against the version its caller read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExpectedVersion<'a> {
    /// Not checked: a person's write (an accepted proposal) decides with the file as it
    /// is now.
    Unchecked,
    /// The agent's `expectedVersion` (`None`: it sent none).
    Sent(Option<&'a str>),
}

/// What a write does, which chooses the rules it is judged by.
#[derive(Debug, Clone, Copy)]
pub enum GuardKind<'a> {
    /// A name, title or brief an agent sends besides content; the request's `file`
    /// names what it is for (for names and titles, never the text itself).
    Text { part: TextPart, text: &'a str },
    /// An entry the server adds to a file on an agent's behalf (a logged decision, a
    /// progress line), judged alone so that a refused entry fails without its
    /// neighbours: secrets.
    Entry { added: &'a str },
    /// A file created (`old: None`) or replaced with `new`: the version, then
    /// append-only (for a decision log, per `path` and `role`), elisions, and secrets
    /// in all of `new`, the file as it will be (a line that was there already counts
    /// too, so unwrapping a `<private>` block is refused like writing the secret).
    /// `person_made`: for an agent's write, when agents made `old` and every text since
    /// the last one a person made, that text: the agents' writes together are judged
    /// against it (`shrinkage`).
    Replace {
        path: &'a Path,
        role: Role,
        old: Option<&'a str>,
        new: &'a str,
        version: ExpectedVersion<'a>,
        person_made: Option<&'a str>,
    },
    /// A file holding `old` removed: the version, then append-only.
    Remove {
        path: &'a Path,
        role: Role,
        old: &'a str,
        version: ExpectedVersion<'a>,
    },
    /// A text the server built by appending to `old` (a batch of entries): secrets in
    /// all of `new`, scanning only the appended part when `old` is a text of `path`
    /// this guard found clean, with the same verdict.
    Append {
        path: &'a Path,
        old: Option<&'a str>,
        new: &'a str,
    },
    /// A whole text as it will be, judged for secrets only (a new memory's content, an
    /// Infinity store as an accepted proposal leaves it).
    Whole { text: &'a str },
}

/// One write to judge: `file` names it in a refusal.
#[derive(Debug, Clone, Copy)]
pub struct GuardRequest<'a> {
    pub file: &'a str,
    pub kind: GuardKind<'a>,
}

/// Judges a person taking text back into `path` (a revert to a recorded version, a
/// restore), which holds `current` now (`None`: gone) and is to hold `wanted` (`None`:
/// removed). The rules are a write's, with no expected version (the caller compared the
/// text), except that a secret standing exposed in the file already does not stop it.
pub(crate) fn check_taking_back(
    guard: &Guard,
    file: &str,
    path: &Path,
    role: Role,
    current: Option<&str>,
    wanted: Option<&str>,
) -> Result<(), Refusal> {
    let kind = match (wanted, current) {
        (Some(new), old) => GuardKind::Replace {
            path,
            role,
            old,
            new,
            version: ExpectedVersion::Unchecked,
            person_made: None,
        },
        (None, Some(old)) => GuardKind::Remove {
            path,
            role,
            old,
            version: ExpectedVersion::Unchecked,
        },
        (None, None) => return Ok(()),
    };
    match check(guard, &GuardRequest { file, kind }) {
        Err(refusal) if !exposed_already(guard, file, &refusal, wanted, current) => Err(refusal),
        _ => Ok(()),
    }
}

/// Whether `refusal` is only about secrets that stand exposed in `current` already, line
/// for line: the write brings none back, and refusing it (a hunk elsewhere in the file
/// taken back) would only keep the agent's change, secret included, on disk. The secret
/// rule is judged last, so the other rules passed.
fn exposed_already(
    guard: &Guard,
    name: &str,
    refusal: &Refusal,
    wanted: Option<&str>,
    current: Option<&str>,
) -> bool {
    let (Refusal::Secret { hits, .. }, Some(new), Some(current)) = (refusal, wanted, current)
    else {
        return false;
    };
    let now = check(
        guard,
        &GuardRequest {
            file: name,
            kind: GuardKind::Whole { text: current },
        },
    );
    let Err(Refusal::Secret { hits: now_hits, .. }) = now else {
        return false;
    };
    let lines_of = |text: &str, hits: &[SecretHit]| -> Option<HashSet<String>> {
        let lines: Vec<&str> = text.lines().collect();
        hits.iter()
            .map(|hit| lines.get(hit.line.checked_sub(1)?).map(|l| l.to_string()))
            .collect()
    };
    match (lines_of(new, hits), lines_of(current, &now_hits)) {
        (Some(brought), Some(standing)) => brought.is_subset(&standing),
        _ => false,
    }
}

/// Judges a write by the rules its kind calls for; the first rule it breaks is the
/// refusal.
pub fn check(guard: &Guard, request: &GuardRequest<'_>) -> Result<(), Refusal> {
    let policy = &guard.policy;
    let file = request.file;
    // Before any work in proportion to the text's size.
    match request.kind {
        GuardKind::Text {
            part: TextPart::Brief,
            text,
        }
        | GuardKind::Entry { added: text } => check_size(file, text.len() as u64, true)?,
        GuardKind::Replace { new, .. } | GuardKind::Append { new, .. } => {
            check_size(file, new.len() as u64, false)?
        }
        GuardKind::Text { .. } | GuardKind::Remove { .. } | GuardKind::Whole { .. } => {}
    }
    match request.kind {
        GuardKind::Text { part, text } => check_text(policy, file, part, text),
        GuardKind::Entry { added } => check_added(policy, file, added),
        GuardKind::Replace {
            path,
            role,
            old,
            new,
            version,
            person_made,
        } => {
            if let ExpectedVersion::Sent(expected) = version {
                check_version(policy, file, old, expected)?;
            }
            check_replace(policy, file, path, role, old, new)?;
            match person_made {
                Some(person_made) => check_shrinkage(policy, file, person_made, new),
                None => Ok(()),
            }
        }
        GuardKind::Remove {
            path,
            role,
            old,
            version,
        } => {
            if let ExpectedVersion::Sent(expected) = version {
                check_version(policy, file, Some(old), expected)?;
            }
            check_removal(policy, file, path, role, old)
        }
        GuardKind::Append { path, old, new } => {
            check_appended_result(policy, &guard.clean, file, path, old, new)
        }
        GuardKind::Whole { text } => check_result(policy, file, text),
    }
}

/// The `size` rule: the file named `file` will be `bytes` long (`at_least`: at least
/// that long, when only a part of it was measured). The write path judges the bytes it
/// writes by it too, so a text no guard judged (a person's save, a review's undo) is
/// refused alike.
pub(crate) fn check_size(file: &str, bytes: u64, at_least: bool) -> Result<(), Refusal> {
    if bytes <= MAX_FILE_BYTES {
        return Ok(());
    }
    Err(Refusal::TooLarge {
        file: file.to_string(),
        bytes,
        at_least,
        limit: MAX_FILE_BYTES,
    })
}

/// Checks `expectedVersion` against the text on disk (`None` when there is no file).
fn check_version(
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
fn check_replace(
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
fn check_removal(
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
fn check_result(policy: &GuardPolicy, file: &str, text: &str) -> Result<(), Refusal> {
    if policy.secrets {
        check_secrets(file, TextPart::Content, text)?;
    }
    Ok(())
}

/// The secret rule for an entry the server adds to a file on an agent's behalf (a
/// logged decision, a progress line, a memory's first content), judged alone so that a
/// refused entry fails without its neighbours.
fn check_added(policy: &GuardPolicy, file: &str, added: &str) -> Result<(), Refusal> {
    if policy.secrets {
        check_secrets(file, TextPart::Entry, added)?;
    }
    Ok(())
}

/// The secret rule for a text an agent sends besides content: a file name, a memory
/// title or a brief. `what` names the target in the refusal; for names and titles it
/// must not be the text itself.
fn check_text(policy: &GuardPolicy, what: &str, part: TextPart, text: &str) -> Result<(), Refusal> {
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

/// The last text of each large file a [`Guard`] found free of exposed secrets.
#[derive(Debug, Default)]
struct CleanTexts {
    texts: Mutex<HashMap<PathBuf, Arc<str>>>,
}

/// [`check_result`] for a text the server built by appending to `old` (a batch of
/// logged decisions): the same verdict, but when `new` only extends a text of `path`
/// this guard already found clean, only the extension (and the old text's last line) is
/// scanned. The extension must
/// start on a line of its own and hold no `<private>` tag, so the context of the old
/// text cannot change what it exposes; anything else is scanned whole.
fn check_appended_result(
    policy: &GuardPolicy,
    clean: &CleanTexts,
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
        && clean
            .texts
            .lock()
            .get(path)
            .is_some_and(|clean| clean.as_ref() == old);
    match extension {
        Some(_) if known_clean => {
            // From the old text's last line on: a key split across the break between
            // it and the extension is judged joined.
            let from = old[..old.len() - 1].rfind('\n').map_or(0, |at| at + 1);
            if let Err(mut refusal) = check_secrets(file, TextPart::Content, &new[from..]) {
                // Lines of the file, not of the part scanned.
                let offset = old[..from].bytes().filter(|b| *b == b'\n').count();
                if let Refusal::Secret { hits, .. } = &mut refusal {
                    hits.iter_mut().for_each(|h| h.line += offset);
                }
                return Err(refusal);
            }
        }
        _ => check_secrets(file, TextPart::Content, new)?,
    }
    if new.len() >= CLEAN_TEXT_MIN_BYTES {
        let mut texts = clean.texts.lock();
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

/// The `shrinkage` rule: `new` may not remove more than the policy's share of
/// `person_made`, the last text a person made, in non-blank lines (at least
/// `elision::MIN_LINES_NEAR` of them) and in bytes both, so that a rewrite of about the
/// same size passes and so does a file that only grew.
fn check_shrinkage(
    policy: &GuardPolicy,
    file: &str,
    person_made: &str,
    new: &str,
) -> Result<(), Refusal> {
    let limit = usize::from(policy.max_shrink_percent);
    if limit >= 100 {
        return Ok(());
    }
    let removed_bytes = person_made.len().saturating_sub(new.len());
    if removed_bytes * 100 <= person_made.len() * limit {
        return Ok(());
    }
    let old_lines: Vec<&str> = person_made.lines().map(str::trim).collect();
    let new_lines: Vec<&str> = new.lines().map(str::trim).collect();
    let old_count = old_lines.iter().filter(|l| !l.is_empty()).count();
    let kept = elision::kept_lines(&old_lines, &new_lines);
    let dropped = old_count - kept.min(old_count);
    if dropped < elision::MIN_LINES_NEAR || dropped * 100 <= old_count * limit {
        return Ok(());
    }
    Err(Refusal::Shrinkage {
        file: file.to_string(),
        kept_lines: kept,
        old_lines: old_count,
        new_bytes: new.len(),
        old_bytes: person_made.len(),
        limit_percent: policy.max_shrink_percent,
    })
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
mod tests;

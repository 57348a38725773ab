//! Review signals: what in a change deserves a closer look before it is trusted.
//!
//! | code | severity | raised when |
//! |------|----------|-------------|
//! | `decision-removed` | error | a decision-log entry of the baseline is gone (deleted or retitled) |
//! | `decision-rewritten` | warning | an entry kept its title and date but lines of its body were removed or changed |
//! | `stable-layer-changed` | warning (info for a new file) | a brief or product-context file changed |
//! | `budget-crossed` | warning | a token budget that was ok or near before the change is over after it |
//! | `secret-added` | error | an added line outside `<private>` holds a key, token, private key, JWT, password assignment or connection-string password |
//! | `hidden-unicode` | error (bidi) / warning (zero-width) | an added line holds bidi overrides or zero-width characters |
//! | `placeholder-added` | warning | an added line is an unfilled template placeholder |
//! | `import-outside-project` | warning | an added `@import` resolves outside the project |
//! | `import-sensitive` | error | an added `@import` names a sensitive file (`.env`, `.ssh/` …) |
//! | `claim-missing-path`, `-script`, `-symbol`, `-dependency` | warning | an added line names a path, script, symbol or dependency the work tree contradicts (see `core::claims`) |
//!
//! Every signal carries the line it comes from: `new_line` in the current text for what
//! was added, `old_line` in the baseline for what was removed.
use std::collections::HashSet;
use std::path::Path;

use serde::Serialize;

use super::diff::{FileDiff, HunkId, LineKind};
use crate::analysis::budgets::{self, BudgetStatus, Measure};
use crate::analysis::decisions::{self, Decision};
use crate::analysis::imports::{self, HomeRoots, ImportPolicy, Resolution};
use crate::analysis::validate;
use crate::findings::{FindingCode, Severity};
use crate::markup::markdown;
use crate::markup::sanitize::{self, Hidden};
use crate::model::{Bank, Format, Role};

/// One thing a reviewer should look at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Signal {
    pub severity: Severity,
    /// Stable machine name (see the module table).
    pub code: &'static str,
    pub message: String,
    /// 1-based line in the current text (for added content).
    pub new_line: Option<usize>,
    /// 1-based line in the baseline text (for removed content).
    pub old_line: Option<usize>,
    /// The pending hunk the signal comes from, when it comes from one still to review.
    pub hunk: Option<HunkId>,
}

impl Signal {
    /// An error about a whole file (no line, no hunk).
    pub(crate) fn error(code: &'static str, message: impl Into<String>) -> Signal {
        Signal::new(Severity::Error, code, message)
    }

    fn new(severity: Severity, code: &'static str, message: impl Into<String>) -> Signal {
        Signal {
            severity,
            code,
            message: message.into(),
            new_line: None,
            old_line: None,
            hunk: None,
        }
    }

    fn at_new(mut self, line: usize) -> Signal {
        self.new_line = Some(line);
        self
    }

    fn at_old(mut self, line: usize) -> Signal {
        self.old_line = Some(line);
        self
    }
}

/// What the content checks need to know about one changed file.
pub(crate) struct ChangeContext<'a> {
    pub project: &'a Path,
    pub path: &'a Path,
    pub display: &'a str,
    pub format: Format,
    pub role: Role,
    pub baseline: Option<&'a str>,
    pub current: Option<&'a str>,
    /// Baseline → current.
    pub diff: &'a FileDiff,
    pub home: &'a HomeRoots,
}

/// Every content signal of one change (budgets are checked per bank: [`budget_signals`]).
pub(crate) fn content_signals(change: &ChangeContext<'_>) -> Vec<Signal> {
    let mut out = Vec::new();
    let added: Vec<(usize, &str)> = change
        .diff
        .hunks
        .iter()
        .flat_map(|h| &h.lines)
        .filter(|l| l.kind == LineKind::Added)
        .filter_map(|l| l.new_line.map(|n| (n, l.text.as_str())))
        .collect();
    if change.role.is_decision_log() {
        out.extend(decision_signals(change));
    }
    if matches!(change.role, Role::Brief | Role::Product) && !change.diff.is_empty() {
        let (severity, what) = match (change.baseline, change.current) {
            (None, _) => (Severity::Info, "was created"),
            (_, None) => (Severity::Warning, "was deleted"),
            _ => (Severity::Warning, "changed"),
        };
        let mut signal = Signal::new(
            severity,
            "stable-layer-changed",
            format!(
                "{} ({} layer) {what}; it should change rarely and on purpose",
                change.display, change.role
            ),
        );
        if let Some(first) = change.diff.hunks.first() {
            let first_of = |kind: LineKind| first.lines.iter().find(|l| l.kind == kind);
            if let Some(line) = first_of(LineKind::Added).and_then(|l| l.new_line) {
                signal = signal.at_new(line);
            }
            if let Some(line) = first_of(LineKind::Removed).and_then(|l| l.old_line) {
                signal = signal.at_old(line);
            }
        }
        out.push(signal);
    }
    if let Some(current) = change.current {
        let private = private_lines(current);
        for &(line, text) in &added {
            if !private.contains(&line) {
                out.extend(secret_in_line(text).map(|kind| {
                    Signal::new(
                        Severity::Error,
                        "secret-added",
                        format!("line {line} adds what looks like {kind}; move it out of memory or inside a <private> block"),
                    )
                    .at_new(line)
                }));
            }
            out.extend(hidden_unicode(text, line == 1).map(|(severity, what)| {
                Signal::new(
                    severity,
                    "hidden-unicode",
                    format!("line {line} adds hidden Unicode: {what}"),
                )
                .at_new(line)
            }));
        }
        let added_lines: HashSet<usize> = added.iter().map(|(n, _)| *n).collect();
        for line in validate::placeholder_lines(current) {
            if added_lines.contains(&line) {
                out.push(
                    Signal::new(
                        Severity::Warning,
                        "placeholder-added",
                        format!("line {line} is an unfilled template placeholder"),
                    )
                    .at_new(line),
                );
            }
        }
        if imports::format_expands_imports(change.format) {
            out.extend(import_signals(change, current, &added_lines));
        }
    }
    out
}

/// Claims the change adds that the code of `repo`'s work tree contradicts: a path that is
/// not there (or was renamed, said to what), a script no manifest defines, a symbol
/// found nowhere. Claims the baseline already made are `check`'s, not the change's.
pub(crate) fn claim_signals(change: &ChangeContext<'_>, repo: &crate::git::GitRepo) -> Vec<Signal> {
    let Some(current) = change.current else {
        return Vec::new();
    };
    let doc = crate::claims::MemoryDoc {
        path: change.path,
        role: change.role,
    };
    crate::claims::ClaimChecker::new()
        .check_change(repo, doc, change.baseline, current)
        .into_iter()
        .map(|finding| {
            let signal = Signal::new(finding.severity, finding.code.id(), finding.message);
            match finding.line {
                Some(line) => signal.at_new(line),
                None => signal,
            }
        })
        .collect()
}

fn private_lines(text: &str) -> HashSet<usize> {
    if markdown::is_private_file(text) {
        return (1..=text.lines().count()).collect();
    }
    let total = text.lines().count();
    markdown::private_blocks(text)
        .into_iter()
        .flat_map(|b| b.start..=b.end.unwrap_or(total))
        .collect()
}

fn decision_key(d: &Decision) -> (String, Option<chrono::NaiveDate>) {
    (d.title.trim().to_lowercase(), d.date)
}

fn entry_lines<'t>(text: &'t str, d: &Decision) -> Vec<&'t str> {
    text.lines()
        .skip(d.line.saturating_sub(1))
        .take(d.end_line.saturating_sub(d.line) + 1)
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect()
}

/// Status lines may change (marking an entry superseded is how logs evolve).
fn is_status_line(line: &str) -> bool {
    let lower = line.to_lowercase();
    lower.contains("status") || lower.contains("supersed")
}

fn decision_signals(change: &ChangeContext<'_>) -> Vec<Signal> {
    let Some(baseline) = change.baseline else {
        return Vec::new();
    };
    let current = change.current.unwrap_or("");
    let old = decisions::parse_file(change.path, change.role, baseline);
    let new = decisions::parse_file(change.path, change.role, current);
    let mut out = Vec::new();
    let lost = decisions::lost_entries(&old, &new);
    for d in &lost {
        let date = d.date.map(|d| format!(" ({d})")).unwrap_or_default();
        out.push(
            Signal::new(
                Severity::Error,
                "decision-removed",
                format!(
                    "decision \"{}\"{date} was removed or retitled; decision logs are append-only (mark it superseded instead)",
                    d.title
                ),
            )
            .at_old(d.line),
        );
    }
    let lost_lines: HashSet<usize> = lost.iter().map(|d| d.line).collect();
    for before in old.iter().filter(|d| !lost_lines.contains(&d.line)) {
        let Some(after) = new.iter().find(|n| decision_key(n) == decision_key(before)) else {
            continue;
        };
        let kept: HashSet<&str> = entry_lines(current, after).into_iter().collect();
        let changed = entry_lines(baseline, before)
            .into_iter()
            .filter(|l| !is_status_line(l))
            .any(|l| !kept.contains(l));
        if changed {
            // Point at the first changed line inside the entry, so the hunk is found.
            let changed_line = change.diff.hunks.iter().flat_map(|h| &h.lines).find(|l| {
                (l.kind == LineKind::Added
                    && l.new_line
                        .is_some_and(|n| n >= after.line && n <= after.end_line))
                    || (l.kind == LineKind::Removed
                        && l.old_line
                            .is_some_and(|o| o >= before.line && o <= before.end_line))
            });
            let (old_line, new_line) = match changed_line {
                Some(l) => (
                    l.old_line.unwrap_or(before.line),
                    l.new_line.unwrap_or(after.line),
                ),
                None => (before.line, after.line),
            };
            out.push(
                Signal::new(
                    Severity::Warning,
                    "decision-rewritten",
                    format!(
                        "decision \"{}\" was rewritten; decision logs are append-only (add a new entry instead)",
                        before.title
                    ),
                )
                .at_old(old_line)
                .at_new(new_line),
            );
        }
    }
    out
}

fn import_signals(
    change: &ChangeContext<'_>,
    current: &str,
    added: &HashSet<usize>,
) -> Vec<Signal> {
    let policy = ImportPolicy::new(change.project, change.home).for_format(change.format);
    let project = imports::normalize_lexically(change.project);
    let mut out = Vec::new();
    for import in imports::find_imports(current) {
        if !added.contains(&import.line) {
            continue;
        }
        let (severity, code, where_to) =
            match imports::resolve(change.path, &import.target, &policy) {
                Resolution::Outside(path) => (
                    Severity::Warning,
                    "import-outside-project",
                    path.display().to_string(),
                ),
                Resolution::Sensitive(path) => (
                    Severity::Error,
                    FindingCode::ImportSensitive.id(),
                    path.display().to_string(),
                ),
                Resolution::Missing(path)
                    if !path.starts_with(&project)
                        && !policy.allowed_roots.iter().any(|r| path.starts_with(r)) =>
                {
                    (
                        Severity::Warning,
                        "import-outside-project",
                        path.display().to_string(),
                    )
                }
                _ => continue,
            };
        out.push(
            Signal::new(
                severity,
                code,
                format!(
                    "line {} adds @{} which resolves to {where_to}, outside the project",
                    import.line, import.target
                ),
            )
            .at_new(import.line),
        );
    }
    out
}

// ---------------------------------------------------------------------------------------
// Secrets
// ---------------------------------------------------------------------------------------

/// One definition of a secret for the review and the write guard.
pub(crate) use crate::guard::secret_in_line;

/// Hidden characters of an added line, as the terminal sanitiser classes them
/// ([`sanitize::hidden`]): bidi controls (which can reorder what a reader sees: an
/// error) and zero-width or other invisible characters (a warning). A byte-order mark
/// is fine at the very start of a file only.
pub(crate) fn hidden_unicode(line: &str, first_line: bool) -> Option<(Severity, String)> {
    let mut bidi = Vec::new();
    let mut zero_width = Vec::new();
    for (i, c) in line.char_indices() {
        let code = c as u32;
        match sanitize::hidden(c) {
            Some(Hidden::Bidi) => bidi.push(format!("U+{code:04X}")),
            Some(Hidden::Invisible) if !(c == '\u{FEFF}' && first_line && i == 0) => {
                zero_width.push(format!("U+{code:04X}"))
            }
            _ => {}
        }
    }
    let list = |v: &mut Vec<String>| {
        v.dedup();
        v.join(", ")
    };
    if !bidi.is_empty() {
        return Some((
            Severity::Error,
            format!("bidirectional control characters {}", list(&mut bidi)),
        ));
    }
    if !zero_width.is_empty() {
        return Some((
            Severity::Warning,
            format!("zero-width characters {}", list(&mut zero_width)),
        ));
    }
    None
}

// ---------------------------------------------------------------------------------------
// Budgets
// ---------------------------------------------------------------------------------------

/// Budgets crossed by a change: every rule (on the file, or on the bank's total) that
/// was ok or near with the `before` measures and is over with `after`. Measures are
/// per file of `bank.files`.
pub(crate) fn budget_signals(
    bank: &Bank,
    file_index: usize,
    before: &[Measure],
    after: &[Measure],
    preset: Option<&str>,
    overrides: &crate::config::BudgetOverrides,
) -> Vec<Signal> {
    let was = budgets::evaluate(bank, before, preset, overrides);
    let now = budgets::evaluate(bank, after, preset, overrides);
    let mut out = Vec::new();
    let crossed = |old: &[budgets::BudgetCheck], new: &[budgets::BudgetCheck], scope: &str| {
        new.iter()
            .filter(|n| n.status == BudgetStatus::Over)
            .filter(|n| {
                old.iter()
                    .find(|o| o.rule == n.rule && o.unit == n.unit)
                    .is_some_and(|o| o.status < BudgetStatus::Over)
            })
            .map(|n| {
                let before_value = old
                    .iter()
                    .find(|o| o.rule == n.rule && o.unit == n.unit)
                    .map_or(0, |o| o.value);
                Signal::new(
                    Severity::Warning,
                    "budget-crossed",
                    format!(
                        "{scope} goes over budget: {before_value} → {} of {} {} ({}; {})",
                        n.value,
                        n.limit,
                        n.unit.label(),
                        n.rule,
                        n.source
                    ),
                )
            })
            .collect::<Vec<_>>()
    };
    let empty = Vec::new();
    out.extend(crossed(
        was.files.get(file_index).unwrap_or(&empty),
        now.files.get(file_index).unwrap_or(&empty),
        "this file",
    ));
    out.extend(crossed(&was.bank, &now.bank, "the bank's total"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::diff::diff_texts;
    use std::path::PathBuf;

    fn signals_of(role: Role, format: Format, old: Option<&str>, new: Option<&str>) -> Vec<Signal> {
        let diff = diff_texts(old.unwrap_or(""), new.unwrap_or(""));
        let project = PathBuf::from("/nonexistent/project");
        let path = project.join("memory-bank/file.md");
        content_signals(&ChangeContext {
            project: &project,
            path: &path,
            display: "memory-bank/file.md",
            format,
            role,
            baseline: old,
            current: new,
            diff: &diff,
            home: &HomeRoots::default(),
        })
    }

    fn codes(signals: &[Signal]) -> Vec<&'static str> {
        signals.iter().map(|s| s.code).collect()
    }

    const LOG: &str = "# Decision Log\n\n## 2025-01-10 - Use SQLite\n\nSmall data, one file.\n\n## 2025-02-01 - Ship weekly\n\nSmall batches.\n";

    #[test]
    fn removed_decisions_are_errors_appended_ones_are_not() {
        let appended = format!("{LOG}\n## 2025-03-01 - Add caching\n\nFaster pages.\n");
        let s = signals_of(Role::Decisions, Format::Cline, Some(LOG), Some(&appended));
        assert!(codes(&s).is_empty(), "{s:?}");
        let removed = "# Decision Log\n\n## 2025-02-01 - Ship weekly\n\nSmall batches.\n";
        let s = signals_of(Role::Decisions, Format::Cline, Some(LOG), Some(removed));
        assert_eq!(codes(&s), vec!["decision-removed"]);
        assert_eq!(s[0].severity, Severity::Error);
        assert_eq!(s[0].old_line, Some(3));
        let s = signals_of(Role::Decisions, Format::Cline, Some(LOG), None);
        assert_eq!(codes(&s), vec!["decision-removed", "decision-removed"]);
    }

    #[test]
    fn rewritten_bodies_warn_but_status_changes_do_not() {
        let rewritten = LOG.replace("Small data, one file.", "Big data, many files.");
        let s = signals_of(Role::Decisions, Format::Cline, Some(LOG), Some(&rewritten));
        assert_eq!(codes(&s), vec!["decision-rewritten"]);
        let status = LOG.replace(
            "Small data, one file.\n",
            "Small data, one file.\n\n**Status:** Superseded by Postgres\n",
        );
        let s = signals_of(Role::Decisions, Format::Cline, Some(LOG), Some(&status));
        assert!(s.is_empty(), "{s:?}");
    }

    #[test]
    fn stable_layers_are_flagged_other_roles_are_not() {
        let s = signals_of(
            Role::Brief,
            Format::Cline,
            Some("# Brief\nA\n"),
            Some("# Brief\nB\n"),
        );
        assert_eq!(codes(&s), vec!["stable-layer-changed"]);
        assert_eq!(s[0].severity, Severity::Warning);
        assert_eq!(s[0].new_line, Some(2));
        let s = signals_of(Role::Product, Format::Cline, None, Some("# Product\n"));
        assert_eq!(s[0].severity, Severity::Info);
        let s = signals_of(
            Role::Active,
            Format::Cline,
            Some("# A\nA\n"),
            Some("# A\nB\n"),
        );
        assert!(s.is_empty());
    }

    #[test]
    fn real_looking_secrets_fire() {
        let cases = [
            ("AWS key AKIAZ7QWERTYUIOPASDF here", "an AWS access key id"),
            (
                "token ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
                "a GitHub token",
            ),
            ("glpat-Zx9_aB3cD4eF5gH6iJ7k", "a GitLab token"),
            ("xoxb-1234567890-abcdefghij", "a Slack token"),
            ("sk_live_4eC39HqLyjWDarjtT1zdp7dc", "a Stripe key"),
            (
                "OPENAI=sk-proj-Ab3dEf6hIj9kLmN0pQrStUv",
                "an OpenAI API key",
            ),
            (
                "sk-ant-api03-Ab3dEf6hIj9kLmN0pQrStUvWx",
                "an Anthropic API key",
            ),
            ("-----BEGIN OPENSSH PRIVATE KEY-----", "a private key block"),
            ("-----BEGIN RSA PRIVATE KEY-----", "a private key block"),
            (
                "auth: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
                "a JSON Web Token",
            ),
            ("password = hunter2hunter2", "a password or key assignment"),
            (
                "api_key: 9f8e7d6c5b4a39281706",
                "a password or key assignment",
            ),
            (
                "DATABASE_URL=postgres://app:S3cr3tPw@db.internal:5432/app",
                "a connection string with a password",
            ),
        ];
        for (line, what) in cases {
            assert_eq!(secret_in_line(line), Some(what), "{line}");
        }
    }

    #[test]
    fn common_false_positives_stay_quiet() {
        for line in [
            "request id 123e4567-e89b-12d3-a456-426614174000",
            "fixed in 9fceb02d0ae598e95dc970b74767f19372d61af8",
            "AWS docs use AKIAIOSFODNN7EXAMPLE as a sample",
            "api_key: <your-api-key>",
            "password=${DB_PASSWORD}",
            "OPENAI_API_KEY=sk-xxxxxxxxxxxxxxxxxxxxxxxx",
            "postgres://user:password@localhost/db",
            "token: ghp_your_token_here",
            "password: short",
            "The password policy needs review",
            "See https://example.com/docs?page=2",
            "-----BEGIN PUBLIC KEY-----",
        ] {
            assert_eq!(secret_in_line(line), None, "{line}");
        }
    }

    #[test]
    fn secrets_inside_private_blocks_are_fine() {
        let new = "# Active\n<private>\npassword = hunter2hunter2\n</private>\n";
        let s = signals_of(
            Role::Active,
            Format::ConKeeper,
            Some("# Active\n"),
            Some(new),
        );
        assert!(s.is_empty(), "{s:?}");
        let new = "# Active\npassword = hunter2hunter2\n";
        let s = signals_of(
            Role::Active,
            Format::ConKeeper,
            Some("# Active\n"),
            Some(new),
        );
        assert_eq!(codes(&s), vec!["secret-added"]);
        assert_eq!(s[0].new_line, Some(2));
        // Already in the baseline: not added by this change.
        let s = signals_of(
            Role::Active,
            Format::ConKeeper,
            Some(new),
            Some(&format!("{new}more\n")),
        );
        assert!(s.is_empty(), "{s:?}");
    }

    #[test]
    fn hidden_unicode_is_found() {
        assert_eq!(
            hidden_unicode("access \u{202E}denied", false).unwrap().0,
            Severity::Error
        );
        assert_eq!(
            hidden_unicode("a\u{2066}b", false).unwrap().0,
            Severity::Error
        );
        assert_eq!(
            hidden_unicode("zero\u{200B}width", false).unwrap().0,
            Severity::Warning
        );
        assert_eq!(
            hidden_unicode("word\u{2060}joiner", false).unwrap().0,
            Severity::Warning
        );
        assert_eq!(
            hidden_unicode("mid\u{FEFF}text", true).unwrap().0,
            Severity::Warning
        );
        assert!(hidden_unicode("\u{FEFF}# Title", true).is_none());
        assert!(hidden_unicode("plain text — with ü and 日本", false).is_none());
        let s = signals_of(
            Role::Active,
            Format::Cline,
            Some("a\n"),
            Some("a\nb\u{200D}c\n"),
        );
        assert_eq!(codes(&s), vec!["hidden-unicode"]);
    }

    #[test]
    fn added_placeholders_are_flagged() {
        let s = signals_of(
            Role::Active,
            Format::Cline,
            Some("# A\n"),
            Some("# A\n[Describe the current focus]\n"),
        );
        assert_eq!(codes(&s), vec!["placeholder-added"]);
        let s = signals_of(
            Role::Active,
            Format::Cline,
            Some("# A\n"),
            Some("# A\nWorking on [checkout](docs/x.md).\n"),
        );
        assert!(s.is_empty(), "{s:?}");
    }

    #[test]
    fn imports_leaving_the_project_are_flagged() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("p");
        std::fs::create_dir_all(project.join("docs")).unwrap();
        std::fs::write(project.join("docs/a.md"), "x").unwrap();
        std::fs::write(dir.path().join("outside.md"), "x").unwrap();
        std::fs::write(project.join(".env"), "x").unwrap();
        let path = project.join("CLAUDE.md");
        let run = |new: &str| {
            let diff = diff_texts("# Main\n", new);
            content_signals(&ChangeContext {
                project: &project,
                path: &path,
                display: "CLAUDE.md",
                format: Format::ClaudeMd,
                role: Role::Instructions,
                baseline: Some("# Main\n"),
                current: Some(new),
                diff: &diff,
                home: &HomeRoots::default(),
            })
        };
        assert!(run("# Main\n@docs/a.md\n").is_empty());
        assert_eq!(
            codes(&run("# Main\n@../outside.md\n")),
            vec!["import-outside-project"]
        );
        assert_eq!(
            codes(&run("# Main\n@../../nowhere/x.md\n")),
            vec!["import-outside-project"]
        );
        assert_eq!(codes(&run("# Main\n@.env\n")), vec!["import-sensitive"]);
    }

    #[test]
    fn budgets_crossed_only_when_the_change_crosses_them() {
        use crate::model::MemoryFile;
        let file = |name: &str| MemoryFile::for_test(PathBuf::from(name), name, Role::Active);
        let bank = Bank {
            format: Format::Cline,
            root: PathBuf::from("."),
            files: vec![file("activeContext.md"), file("progress.md")],
            project_id: None,
            modes: vec![],
            problems: vec![],
            outside: vec![],
            parsed_store: None,
        };
        let m = |tokens: u64| Measure {
            tokens: Some(tokens),
            lines: 1,
            chars: 1,
            bytes: 1,
        };
        let overrides = Default::default();
        let s = budget_signals(
            &bank,
            0,
            &[m(900), m(100)],
            &[m(1200), m(100)],
            None,
            &overrides,
        );
        assert_eq!(codes(&s), vec!["budget-crossed"]);
        assert!(s[0].message.contains("900 → 1200"), "{}", s[0].message);
        // Already over before: not this change's doing.
        let s = budget_signals(
            &bank,
            0,
            &[m(1100), m(100)],
            &[m(1200), m(100)],
            None,
            &overrides,
        );
        assert!(s.is_empty());
        // The bank total crosses 5,000.
        let s = budget_signals(
            &bank,
            1,
            &[m(900), m(3900)],
            &[m(900), m(4200)],
            None,
            &overrides,
        );
        assert_eq!(s.len(), 1);
        assert!(s[0].message.contains("bank's total"));
    }
}

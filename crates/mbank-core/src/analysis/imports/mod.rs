//! `@path` imports of hierarchical instruction memory (CLAUDE.md, GEMINI.md, BEANS.md):
//! finding them in markdown, resolving them safely and expanding them recursively
//! (the Beans-Code memory recommendations).
//!
//! Safety rules applied while expanding: at most `MAX_IMPORT_DEPTH` hops, cycles are
//! reported with their chain, sensitive files (`.env`, credentials, `~/.ssh`, `~/.aws`) are
//! never read, and a target must lie inside an allowed folder *after* symlinks are resolved.
//!
//! Placement of imported text: Claude Code's documentation says imported files are
//! "expanded and loaded into context at launch, alongside the CLAUDE.md that references
//! them", and its `/memory` and `/context` views list every imported file as its own entry
//! right after the file that imports it (depth-first), each file loaded once. We follow that
//! observable behaviour: the importing text stays as written (the `@path` line included) and
//! each imported file follows it, in order of appearance. Token totals are the same as a
//! splice in place; only the order of the pieces differs.
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::findings::{Finding, FindingCode, Severity};
use crate::io::text;
use crate::markup::markdown;
use crate::model::Format;

mod keyword;
mod policy;

pub use policy::{HomeRoots, ImportPolicy, Resolution, absolute, resolve};
pub(crate) use policy::{is_sensitive, normalize_lexically};

/// Claude Code follows imports at most four hops deep (its memory documentation today); a
/// format may follow more (`FormatRules::import_depth`).
pub(crate) const MAX_IMPORT_DEPTH: usize = 4;
/// Guards against a bank whose imports fan out absurdly; real banks import a handful.
const MAX_IMPORTED_FILES: usize = 1_000;
/// Total text read through imports of one expander.
const MAX_IMPORTED_BYTES: usize = 16 * 1024 * 1024;

/// Folders under the home folder that hold an agent's own memory and may be imported
/// from: the instruction-file family's own folders (`~/.claude`, `~/.codex`…).
pub(crate) fn home_memory_dirs() -> impl Iterator<Item = &'static str> {
    crate::formats::instruction_family().map(|member| member.dot_dir)
}

/// Whether an agent of this format expands `@path` imports. Codex reads AGENTS.md verbatim,
/// so an `@` there is plain text.
pub(crate) fn format_expands_imports(format: Format) -> bool {
    crate::formats::rules(format).expands_imports()
}

/// One `@path` token found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ImportRef {
    /// The path as written after `@`, with escapes (`\ `) undone and a `#fragment` dropped.
    pub target: String,
    /// 1-based line of the `@`.
    pub line: usize,
    /// 1-based column (in characters) of the `@`.
    pub column: usize,
}

/// One flag per line (index 0 = line 1): is it inside a fenced code block?
pub(crate) fn fenced_line_mask(text: &str) -> Vec<bool> {
    let count = text.lines().count();
    let mut mask = vec![false; count];
    for (start, end) in markdown::fenced_lines(text) {
        for flag in mask
            .iter_mut()
            .take(end.min(count))
            .skip(start.saturating_sub(1))
        {
            *flag = true;
        }
    }
    mask
}

/// Byte ranges of inline code spans on one line. A run of N backticks opens a span that
/// the next run of exactly N backticks closes; an unmatched run is literal text. Linear:
/// each run's next same-length run is found in one backward pass.
pub(crate) fn code_span_ranges(line: &str) -> Vec<(usize, usize)> {
    let bytes = line.as_bytes();
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'`' {
            let start = i;
            while i < bytes.len() && bytes[i] == b'`' {
                i += 1;
            }
            runs.push((start, i - start));
        } else {
            i += 1;
        }
    }
    let mut next_same = vec![None; runs.len()];
    let mut last_of_len: std::collections::HashMap<usize, usize> = Default::default();
    for index in (0..runs.len()).rev() {
        next_same[index] = last_of_len.get(&runs[index].1).copied();
        last_of_len.insert(runs[index].1, index);
    }
    let mut spans = Vec::new();
    let mut index = 0;
    while index < runs.len() {
        match next_same[index] {
            Some(close) => {
                let (open_at, _) = runs[index];
                let (close_at, close_len) = runs[close];
                spans.push((open_at, close_at + close_len));
                index = close + 1;
            }
            None => index += 1,
        }
    }
    spans
}

/// Characters that never appear in an import path but do in decorators, calls and markup.
const NOT_PATH_CHARS: &[char] = &[
    '(', ')', '[', ']', '{', '}', '<', '>', '"', '\'', '=', ',', ';', '|', '`', '*', '$', '!',
];

/// Trailing punctuation that ends a sentence rather than a path.
const TRAILING_PUNCTUATION: &[char] = &[',', ';', ':', '!', '?', ')', ']', '}', '>', '"', '\''];

fn has_file_extension(target: &str) -> bool {
    let last = target.rsplit('/').next().unwrap_or(target);
    match last.rfind('.') {
        // A dotfile (`.env`, `.clinerules`) is a file name in its own right.
        Some(0) => {
            last.len() > 1
                && last[1..]
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
        }
        Some(dot) => {
            let ext = &last[dot + 1..];
            (1..=10).contains(&ext.len())
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
                && ext.chars().any(|c| c.is_ascii_alphabetic())
        }
        _ => false,
    }
}

/// The path-shape heuristic: `./`, `../`, `~/` or `/` prefixes, or a `/` inside, or a file
/// extension (or a dotfile name). Plain `@mentions`, decorators and `@@` hunks do not qualify.
fn looks_like_path(target: &str) -> bool {
    if target.is_empty() || target == "/" || target.starts_with('@') {
        return false;
    }
    if target.contains(NOT_PATH_CHARS) {
        return false;
    }
    if target.starts_with("./")
        || target.starts_with("../")
        || target.starts_with("~/")
        || target.starts_with('/')
    {
        return true;
    }
    let first_ok = target
        .chars()
        .next()
        .is_some_and(|c| c.is_alphanumeric() || matches!(c, '.' | '_' | '-'));
    first_ok && (target.contains('/') || has_file_extension(target))
}

/// Reads the token after `@`: up to whitespace, where `\ ` is an escaped space.
/// Returns the raw token end (byte offset in `line`) and the unescaped token.
fn read_token(line: &str, from: usize) -> (usize, String) {
    let mut token = String::new();
    let mut chars = line[from..].char_indices().peekable();
    let mut end = line.len();
    while let Some((offset, c)) = chars.next() {
        if c == '\\' && chars.peek().is_some_and(|(_, n)| *n == ' ') {
            token.push(' ');
            chars.next();
            continue;
        }
        if c.is_whitespace() {
            end = from + offset;
            break;
        }
        token.push(c);
    }
    (end, token)
}

fn clean_target(token: &str) -> String {
    let without_fragment = token.split('#').next().unwrap_or("");
    let mut target = without_fragment.trim_end_matches(TRAILING_PUNCTUATION);
    // A sentence-ending dot, unless the path itself ends in `.` or `..`.
    while target.ends_with('.')
        && !target.ends_with("/.")
        && !target.ends_with("/..")
        && target != "."
        && target != ".."
        && !target.ends_with("..")
    {
        target = target[..target.len() - 1].trim_end_matches(TRAILING_PUNCTUATION);
    }
    target.to_string()
}

/// Every `@path` import of a markdown text, skipping fenced blocks and code spans.
/// An `@` counts only at the start of a line or after whitespace, so e-mail addresses
/// never match; the token must look like a path (see `looks_like_path`).
pub(crate) fn find_imports(text: &str) -> Vec<ImportRef> {
    let fenced = fenced_line_mask(text);
    let mut found = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if fenced.get(index).copied().unwrap_or(false) || !line.contains('@') {
            continue;
        }
        let spans = code_span_ranges(line);
        // Spans are ordered, so one cursor walks them alongside the `@`s (no rescans).
        let mut span_cursor = 0;
        let mut previous: Option<char> = None;
        let mut skip_until = 0;
        for (char_index, (at, c)) in line.char_indices().enumerate() {
            let column = char_index + 1;
            let prev = previous;
            previous = Some(c);
            if at < skip_until || c != '@' {
                continue;
            }
            if prev.is_some_and(|p| !p.is_whitespace()) {
                continue;
            }
            while span_cursor < spans.len() && spans[span_cursor].1 <= at {
                span_cursor += 1;
            }
            if spans
                .get(span_cursor)
                .is_some_and(|&(start, _)| start <= at)
            {
                continue;
            }
            let (end, token) = read_token(line, at + 1);
            skip_until = end;
            let target = clean_target(&token);
            if looks_like_path(&target) {
                found.push(ImportRef {
                    target,
                    line: index + 1,
                    column,
                });
            }
        }
    }
    found
}

/// A file loaded through an import.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ImportedFile {
    /// Canonical path of the imported file.
    pub path: PathBuf,
    /// The target as written after `@`.
    pub written: String,
    /// The files it came through: the top-level file first, the direct importer last.
    pub chain: Vec<PathBuf>,
    /// Line and column of the `@` in the direct importer.
    pub line: usize,
    pub column: usize,
    /// The imported file's own text (its imports follow it as further entries).
    pub text: String,
}

impl ImportedFile {
    /// Hops from the top-level file (a direct import is 1).
    pub fn depth(&self) -> usize {
        self.chain.len()
    }
}

/// The result of expanding one top-level file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Expansion {
    /// The top-level text followed by every imported file, depth-first (see module doc).
    pub text: String,
    /// Files read through imports, in load order.
    pub files: Vec<ImportedFile>,
    /// Imports skipped because their file was already loaded (path, importer, line).
    pub repeats: Vec<(PathBuf, PathBuf, usize)>,
    pub findings: Vec<Finding>,
}

/// Expands imports of several top-level files of one bank, loading each file once across
/// all of them, as an agent does within one session.
#[derive(Debug)]
pub(crate) struct Expander {
    policy: ImportPolicy,
    /// Folders of top-level files and their real paths, when found free of links
    /// ([`ImportPolicy::link_free_real_path`]): a bank's files share a few folders.
    real_folders: std::cell::RefCell<HashMap<PathBuf, Option<PathBuf>>>,
    loaded: HashSet<PathBuf>,
    files_read: usize,
    bytes_read: usize,
    limit_reported: bool,
}

struct Visit<'a> {
    chain: &'a mut Vec<PathBuf>,
    out: &'a mut Expansion,
}

impl Expander {
    pub fn new(policy: ImportPolicy) -> Self {
        Expander {
            policy,
            real_folders: std::cell::RefCell::default(),
            loaded: HashSet::new(),
            files_read: 0,
            bytes_read: 0,
            limit_reported: false,
        }
    }

    /// True when the file was already loaded, as a top-level file or through an import.
    pub(crate) fn is_loaded(&self, path: &Path) -> bool {
        self.loaded.contains(&self.real_path(path))
    }

    /// Where the top-level file `path` really is; where nothing is there, its path
    /// made absolute and without `.` or `..`.
    fn real_path(&self, path: &Path) -> PathBuf {
        self.real_path_in_known_folder(path).unwrap_or_else(|| {
            self.policy
                .real_path(path)
                .unwrap_or_else(|_| normalize_lexically(&absolute(path)))
        })
    }

    /// `path`'s real path from its folder's, the folder found free of links once for all
    /// its files, when `path` itself is no link: one `lstat` instead of one per name
    /// below the project. `None` when that does not settle it.
    fn real_path_in_known_folder(&self, path: &Path) -> Option<PathBuf> {
        let (folder, name) = (path.parent()?, path.file_name()?);
        let real_folder = {
            let mut folders = self.real_folders.borrow_mut();
            match folders.get(folder) {
                Some(known) => known.clone(),
                None => {
                    let found = self.policy.link_free_real_path(folder);
                    folders.insert(folder.to_path_buf(), found.clone());
                    found
                }
            }
        }?;
        let meta = std::fs::symlink_metadata(path).ok()?;
        (!meta.file_type().is_symlink()).then(|| real_folder.join(name))
    }

    /// Expands the imports of `text`, the content of the top-level file `path`.
    pub fn expand(&mut self, path: &Path, text: &str) -> Expansion {
        let root = self.real_path(path);
        self.expand_resolved(path, root, text)
    }

    /// [`Expander::expand`] of a top-level file not loaded yet; `None` when it was (as
    /// [`Expander::is_loaded`] says), its path resolved once for both.
    pub(crate) fn expand_unless_loaded(&mut self, path: &Path, text: &str) -> Option<Expansion> {
        let root = self.real_path(path);
        if self.loaded.contains(&root) {
            return None;
        }
        Some(self.expand_resolved(path, root, text))
    }

    /// [`Expander::expand`] of `path`, resolved as `root`.
    fn expand_resolved(&mut self, path: &Path, root: PathBuf, text: &str) -> Expansion {
        self.loaded.insert(root.clone());
        let mut out = Expansion::default();
        let mut chain = vec![root];
        self.visit(
            path,
            text,
            Visit {
                chain: &mut chain,
                out: &mut out,
            },
        );
        let mut combined = String::with_capacity(
            text.len() + out.files.iter().map(|f| f.text.len() + 1).sum::<usize>(),
        );
        combined.push_str(text);
        for file in &out.files {
            if !combined.is_empty() && !combined.ends_with('\n') {
                combined.push('\n');
            }
            combined.push_str(&file.text);
        }
        out.text = combined;
        out
    }

    fn chain_text(&self, chain: &[PathBuf], last: &Path) -> String {
        chain
            .iter()
            .map(|p| self.policy.show(p))
            .chain(std::iter::once(self.policy.show(last)))
            .collect::<Vec<_>>()
            .join(" → ")
    }

    fn visit(&mut self, importer: &Path, text: &str, visit: Visit<'_>) {
        // A depth of none: the agent's settings turn imports off, so `@` is plain text.
        if self.policy.max_depth == 0 {
            return;
        }
        let Visit { chain, out } = visit;
        for (line, target) in keyword::keyword_imports(text) {
            out.findings.push(Finding::new(
                Severity::Warning,
                FindingCode::ImportMissing,
                importer,
                Some(line),
                format!(
                    "@import {target} is no import: the agent takes @ and a path, so it looks \
                     for a file called import and loads nothing; write @{target}"
                ),
            ));
        }
        for import in find_imports(text) {
            let finding = |severity, code, message: String| {
                Finding::new(severity, code, importer, Some(import.line), message)
            };
            let target = match resolve(importer, &import.target, &self.policy) {
                Resolution::Found(target) => target,
                // A missing name with no file extension (`@vue/test-utils`,
                // `@scope/package` in prose) names a package or a handle, not a file
                // someone meant to import: the agent finds nothing and goes on.
                Resolution::Missing(_) if !has_file_extension(&import.target) => continue,
                Resolution::Missing(path) => {
                    out.findings.push(finding(
                        Severity::Warning,
                        FindingCode::ImportMissing,
                        format!(
                            "@{} points to {}, which does not exist; the agent skips it",
                            import.target,
                            self.policy.show(&path)
                        ),
                    ));
                    continue;
                }
                Resolution::Sensitive(path) => {
                    out.findings.push(finding(
                        Severity::Error,
                        FindingCode::ImportSensitive,
                        format!(
                            "@{} imports {}, a sensitive file (secrets, credentials or keys); \
                             it was not read — remove the import",
                            import.target,
                            self.policy.show(&path)
                        ),
                    ));
                    continue;
                }
                Resolution::Outside(path) => {
                    out.findings.push(finding(
                        Severity::Warning,
                        FindingCode::ImportOutside,
                        format!(
                            "@{} resolves to {}, outside the project and the home memory \
                             folders; it was not read",
                            import.target,
                            path.display()
                        ),
                    ));
                    continue;
                }
                Resolution::NoHome => {
                    out.findings.push(finding(
                        Severity::Warning,
                        FindingCode::ImportNoHome,
                        format!(
                            "@{} needs the home folder, which is unknown (HOME is not set)",
                            import.target
                        ),
                    ));
                    continue;
                }
            };
            if chain.contains(&target) {
                out.findings.push(finding(
                    Severity::Error,
                    FindingCode::ImportCycle,
                    format!("import cycle: {}", self.chain_text(chain, &target)),
                ));
                continue;
            }
            if self.loaded.contains(&target) {
                out.repeats
                    .push((target, importer.to_path_buf(), import.line));
                continue;
            }
            let depth = chain.len();
            if depth > self.policy.max_depth {
                out.findings.push(finding(
                    Severity::Warning,
                    FindingCode::ImportTooDeep,
                    format!(
                        "@{} is {depth} imports deep, past the limit of {}; the agent does \
                         not load it ({})",
                        import.target,
                        self.policy.max_depth,
                        self.chain_text(chain, &target)
                    ),
                ));
                continue;
            }
            if self.files_read >= MAX_IMPORTED_FILES || self.bytes_read >= MAX_IMPORTED_BYTES {
                if !self.limit_reported {
                    self.limit_reported = true;
                    out.findings.push(finding(
                        Severity::Warning,
                        FindingCode::ImportLimit,
                        format!(
                            "imports stopped after {} files / {} bytes; the rest were not read",
                            self.files_read, self.bytes_read
                        ),
                    ));
                }
                continue;
            }
            let imported_text = match text::read_text(&target) {
                Ok(t) => t,
                Err(e) => {
                    out.findings.push(finding(
                        Severity::Warning,
                        FindingCode::ImportUnreadable,
                        format!("@{} cannot be loaded: {e}", import.target),
                    ));
                    continue;
                }
            };
            self.files_read += 1;
            self.bytes_read += imported_text.len();
            self.loaded.insert(target.clone());
            out.files.push(ImportedFile {
                path: target.clone(),
                written: import.target.clone(),
                chain: chain.clone(),
                line: import.line,
                column: import.column,
                text: imported_text.clone(),
            });
            chain.push(target.clone());
            self.visit(
                &target,
                &imported_text,
                Visit {
                    chain: &mut *chain,
                    out: &mut *out,
                },
            );
            chain.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Project;
    use std::fs;

    fn targets(text: &str) -> Vec<(String, usize, usize)> {
        find_imports(text)
            .into_iter()
            .map(|i| (i.target, i.line, i.column))
            .collect()
    }

    #[test]
    fn finds_path_shaped_imports_with_positions() {
        let text = "# Main\n@./rules/style.md\nSee @docs/x.md and @../shared/y.md.\n\
                    - @~/notes.md\n@/etc/x.md\n@README.md\n";
        assert_eq!(
            targets(text),
            vec![
                ("./rules/style.md".into(), 2, 1),
                ("docs/x.md".into(), 3, 5),
                ("../shared/y.md".into(), 3, 20),
                ("~/notes.md".into(), 4, 3),
                ("/etc/x.md".into(), 5, 1),
                ("README.md".into(), 6, 1),
            ]
        );
    }

    #[test]
    fn ignores_code_mail_mentions_and_decorators() {
        let text = "mail me at bob@example.com\nthanks @alice and @bob!\n\
                    use `@types/node` or ``@scope/pkg``\n```ts\n@./in-fence.md\n```\n\
                    @Component({selector: 'x'})\n@app.route(\"/x\")\n@@ -1,2 +1,2 @@\n";
        assert_eq!(targets(text), vec![]);
    }

    #[test]
    fn unmatched_backticks_are_literal_and_escapes_and_fragments_handled() {
        let text = "a ` b @./x.md\n@my\\ notes.md#section\n";
        assert_eq!(
            targets(text),
            vec![("./x.md".into(), 1, 7), ("my notes.md".into(), 2, 1)]
        );
        assert_eq!(code_span_ranges("x `a` ``b`` `c"), vec![(2, 5), (6, 11)]);
    }

    #[test]
    fn huge_single_line_is_linear() {
        // Every second `@a/b` falls inside a span that the `` pairs open and close.
        let line = "@a/b `` ".repeat(60_000);
        let found =
            crate::hang_guard::finishes("the import scan", move || find_imports(&line).len());
        assert_eq!(found, 30_000);
    }

    #[test]
    fn sensitive_names_and_folders() {
        for p in [
            "/p/.env",
            "/p/.env.local",
            "/p/credentials.json",
            "/p/secrets.yaml",
            "/home/u/.ssh/config",
            "/home/u/.aws/credentials",
        ] {
            assert!(is_sensitive(Path::new(p)), "{p}");
        }
        assert!(!is_sensitive(Path::new("/p/env.md")));
        assert!(!is_sensitive(Path::new("/p/secretsauce.md")));
    }

    fn write(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    #[test]
    fn expands_depth_first_once_each_with_cycle_and_missing() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        // `@vue/test-utils`, missing and with no extension, names a package.
        let main = "# Main\n@a.md\n@b.md\n@gone.md\nTests: Vitest with @vue/test-utils\n";
        write(&p.join("CLAUDE.md"), main);
        write(&p.join("a.md"), "A\n@sub/c.md\n");
        write(&p.join("sub/c.md"), "C\n@../CLAUDE.md\n@../b.md\n");
        write(&p.join("b.md"), "B\n");
        let policy = ImportPolicy::new(p, &HomeRoots::default());
        let mut expander = Expander::new(policy);
        let root = p.join("CLAUDE.md");
        let text = fs::read_to_string(&root).unwrap();
        let exp = expander.expand(&root, &text);
        let names: Vec<_> = exp
            .files
            .iter()
            .map(|f| (f.written.as_str(), f.depth()))
            .collect();
        assert_eq!(names, vec![("a.md", 1), ("sub/c.md", 2), ("../b.md", 3)]);
        assert_eq!(
            exp.text,
            format!("{text}A\n@sub/c.md\nC\n@../CLAUDE.md\n@../b.md\nB\n")
        );
        let codes: Vec<_> = exp
            .findings
            .iter()
            .map(|f| (f.code.id(), f.severity, f.line))
            .collect();
        assert_eq!(
            codes,
            vec![
                ("import-cycle", Severity::Error, Some(2)),
                ("import-missing", Severity::Warning, Some(4)),
            ]
        );
        assert_eq!(
            exp.findings[0].message,
            "import cycle: CLAUDE.md → a.md → sub/c.md → CLAUDE.md"
        );
        // b.md was already loaded through sub/c.md, so the root's own @b.md is a repeat.
        assert_eq!(exp.repeats.len(), 1);
        assert!(expander.is_loaded(&p.join("b.md")));
        // A file loaded already is not expanded again as a top-level file.
        let b = p.join("b.md");
        assert!(expander.expand_unless_loaded(&b, "B\n").is_none());
        let mut fresh = Expander::new(ImportPolicy::new(p, &HomeRoots::default()));
        let once = fresh.expand_unless_loaded(&root, &text).unwrap();
        assert_eq!((once.text, once.findings), (exp.text, exp.findings));
        assert!(fresh.expand_unless_loaded(&root, &text).is_none());
    }

    #[test]
    fn depth_limit_sensitive_outside_and_symlink_escape() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("proj");
        let outside = dir.path().join("elsewhere");
        write(&outside.join("secret.md"), "outside\n");
        // Chain of six hops: CLAUDE.md → d1 → … → d6; d1…d4 load, d5 is a fifth hop.
        write(&project.join("CLAUDE.md"), "@d1.md\n@.env\n@link.md\n");
        for n in 1..=6 {
            write(
                &project.join(format!("d{n}.md")),
                &format!("@d{}.md\n", n + 1),
            );
        }
        write(&project.join(".env"), "KEY=1\n");
        std::os::unix::fs::symlink(outside.join("secret.md"), project.join("link.md")).unwrap();
        let mut expander = Expander::new(ImportPolicy::new(&project, &HomeRoots::default()));
        let root = project.join("CLAUDE.md");
        let exp = expander.expand(&root, &fs::read_to_string(&root).unwrap());
        assert_eq!(exp.files.len(), 4);
        let codes: Vec<_> = exp.findings.iter().map(|f| (f.code.id(), f.line)).collect();
        assert_eq!(
            codes,
            vec![
                ("import-too-deep", Some(1)),
                ("import-sensitive", Some(2)),
                ("import-outside", Some(3)),
            ]
        );
        assert!(exp.findings[0].file.ends_with("d4.md"));
        assert!(
            exp.findings[0]
                .message
                .contains("CLAUDE.md → d1.md → d2.md → d3.md → d4.md → d5.md"),
            "{}",
            exp.findings[0].message
        );
        assert!(!exp.text.contains("KEY=1"));
        assert!(!exp.text.contains("outside"));
    }

    #[test]
    fn home_imports_allowed_only_in_memory_folders() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let project = dir.path().join("proj");
        write(&home.join(".claude/prefs.md"), "prefs\n");
        write(&home.join("notes.md"), "notes\n");
        write(
            &project.join("CLAUDE.md"),
            "@~/.claude/prefs.md\n@~/notes.md\n",
        );
        let mut expander = Expander::new(ImportPolicy::new(
            &project,
            &HomeRoots::resolve(Some(&home)),
        ));
        let root = project.join("CLAUDE.md");
        let exp = expander.expand(&root, &fs::read_to_string(&root).unwrap());
        assert_eq!(exp.files.len(), 1);
        assert_eq!(exp.files[0].text, "prefs\n");
        assert_eq!(exp.findings.len(), 1);
        assert_eq!(exp.findings[0].code.id(), "import-outside");
        let mut no_home = Expander::new(ImportPolicy::new(&project, &HomeRoots::default()));
        let exp = no_home.expand(&root, "@~/x.md\n");
        assert_eq!(exp.findings[0].code.id(), "import-no-home");
    }

    #[test]
    fn binary_target_is_unreadable_finding() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        fs::write(p.join("bin.md"), [0u8, 1, 2, 3]).unwrap();
        let mut expander = Expander::new(ImportPolicy::new(p, &HomeRoots::default()));
        let exp = expander.expand(&p.join("CLAUDE.md"), "@bin.md\n");
        assert_eq!(exp.findings[0].code.id(), "import-unreadable");
        assert!(
            exp.findings[0].message.contains("binary"),
            "{}",
            exp.findings[0].message
        );
    }

    #[test]
    fn normalising_never_drops_a_leading_parent() {
        for (path, normal) in [
            ("../../x.md", "../../x.md"),
            ("./../x.md", "../x.md"),
            ("a/../../x.md", "../x.md"),
            ("a/b/../c/./d.md", "a/c/d.md"),
            ("/a/../../x.md", "/x.md"),
            ("/a/b/../x.md", "/a/x.md"),
        ] {
            assert_eq!(
                normalize_lexically(Path::new(path)),
                PathBuf::from(normal),
                "{path}"
            );
        }
    }

    #[test]
    fn a_relative_importer_resolves_like_an_absolute_one() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("a/proj");
        fs::create_dir_all(&project).unwrap();
        let policy = ImportPolicy::new(&project, &HomeRoots::default());
        let absolute = resolve(&project.join("CLAUDE.md"), "../../gone.md", &policy);
        assert_eq!(absolute, Resolution::Missing(dir.path().join("gone.md")));
        // The same importer named from inside the project, as `mbank check .` names it.
        let cwd = std::env::current_dir().unwrap();
        let relative = Path::new(".").join(pathdiff_like(&cwd, &project).join("CLAUDE.md"));
        assert_eq!(resolve(&relative, "../../gone.md", &policy), absolute);
    }

    /// `to` relative to `from` (both absolute), through `..` where needed.
    fn pathdiff_like(from: &Path, to: &Path) -> PathBuf {
        let from: Vec<_> = from.components().collect();
        let to: Vec<_> = to.components().collect();
        let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
        let mut out = PathBuf::new();
        for _ in common..from.len() {
            out.push("..");
        }
        for part in &to[common..] {
            out.push(part.as_os_str());
        }
        out
    }

    #[cfg(unix)]
    #[test]
    fn an_import_linked_to_a_sensitive_or_outside_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let project = dir.path().join("proj");
        write(&home.join(".ssh/id_rsa"), "PRIVATE KEY\n");
        write(&project.join(".env"), "KEY=1\n");
        write(&dir.path().join("elsewhere/notes.md"), "outside\n");
        fs::create_dir_all(home.join(".claude")).unwrap();
        std::os::unix::fs::symlink(home.join(".ssh/id_rsa"), home.join(".claude/key.md")).unwrap();
        std::os::unix::fs::symlink(project.join(".env"), project.join("env.md")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("elsewhere"), project.join("docs")).unwrap();
        let mut expander = Expander::new(ImportPolicy::new(
            &project,
            &HomeRoots::resolve(Some(&home)),
        ));
        let root = project.join("CLAUDE.md");
        let exp = expander.expand(&root, "@~/.claude/key.md\n@env.md\n@docs/notes.md\n");
        let codes: Vec<_> = exp.findings.iter().map(|f| f.code.id()).collect();
        assert_eq!(
            codes,
            vec!["import-sensitive", "import-sensitive", "import-outside"]
        );
        assert!(exp.files.is_empty());
        assert!(!exp.text.contains("PRIVATE") && !exp.text.contains("KEY=1"));
    }

    #[cfg(unix)]
    #[test]
    fn a_project_found_through_a_link_allows_what_resolving_its_folder_allows() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        fs::create_dir_all(real.join("p/docs")).unwrap();
        fs::write(real.join("p/docs/a.md"), "A").unwrap();
        std::os::unix::fs::symlink(&real, dir.path().join("link")).unwrap();
        let root = dir.path().join("link");
        // No memory yet: no project.
        assert!(crate::scan::discovery::scan(&root, &Default::default()).is_empty());
        let found = Project {
            name: "p".into(),
            path: root.join("p"),
            banks: Vec::new(),
            last_write: None,
            real: Some(fs::canonicalize(real.join("p")).unwrap()),
        };
        let unknown = Project {
            real: None,
            ..found.clone()
        };
        let home = HomeRoots::default();
        let by_path = ImportPolicy::new(&found.path, &home).allowed_roots;
        assert_eq!(
            ImportPolicy::of_project(&found, &home).allowed_roots,
            by_path
        );
        assert_eq!(
            ImportPolicy::of_project(&unknown, &home).allowed_roots,
            by_path
        );
        // Discovery carries the real path down, as resolving the folder gives it.
        fs::write(real.join("p/CLAUDE.md"), "@docs/a.md\n").unwrap();
        let projects_now = crate::scan::discovery::scan(&root, &Default::default());
        assert_eq!(projects_now.len(), 1);
        assert_eq!(projects_now[0].real.as_ref(), found.real.as_ref());
        let policy = ImportPolicy::of_project(&projects_now[0], &home);
        assert!(matches!(
            resolve(
                &projects_now[0].path.join("CLAUDE.md"),
                "docs/a.md",
                &policy
            ),
            Resolution::Found(_)
        ));
    }

    #[cfg(unix)]
    #[test]
    fn a_path_below_the_project_resolves_as_canonicalize_resolves_it() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        let outside = dir.path().join("outside");
        fs::create_dir_all(real.join("p/docs")).unwrap();
        fs::create_dir_all(&outside).unwrap();
        fs::write(real.join("p/docs/a.md"), "A").unwrap();
        fs::write(real.join("p/CLAUDE.md"), "C").unwrap();
        fs::write(outside.join("secret.md"), "S").unwrap();
        std::os::unix::fs::symlink(&real, dir.path().join("link")).unwrap();
        std::os::unix::fs::symlink(&outside, real.join("p/docs/out")).unwrap();
        std::os::unix::fs::symlink(real.join("p/docs"), real.join("p/notes")).unwrap();
        // The project named through a link to its parent, as a root given as a link is.
        let project = dir.path().join("link/p");
        let policy = ImportPolicy::new(&project, &HomeRoots::default());
        for rel in [
            "",
            "CLAUDE.md",
            "docs",
            "docs/a.md",
            "docs/out/secret.md",
            "notes/a.md",
        ] {
            let path = if rel.is_empty() {
                project.clone()
            } else {
                project.join(rel)
            };
            assert_eq!(
                policy.real_path(&path).unwrap(),
                fs::canonicalize(&path).unwrap(),
                "{rel}"
            );
        }
        for rel in ["missing.md", "docs/missing/a.md", "docs/a.md/b.md"] {
            assert!(policy.real_path(&project.join(rel)).is_err(), "{rel}");
        }
        // Outside the project: resolved in full.
        assert_eq!(
            policy.real_path(&outside.join("secret.md")).unwrap(),
            fs::canonicalize(outside.join("secret.md")).unwrap()
        );
        // An expander's top-level files, their folders' real paths remembered from the
        // first file in each: the same real paths, twice over, a link among the files.
        std::os::unix::fs::symlink(real.join("p/CLAUDE.md"), real.join("p/docs/c.md")).unwrap();
        let expander = Expander::new(policy.clone());
        for _ in 0..2 {
            for rel in [
                "CLAUDE.md",
                "docs/a.md",
                "docs/c.md",
                "notes/a.md",
                "docs/out/secret.md",
            ] {
                let path = project.join(rel);
                assert_eq!(
                    expander.real_path(&path),
                    fs::canonicalize(&path).unwrap(),
                    "{rel}"
                );
            }
            let missing = project.join("docs/missing.md");
            assert_eq!(
                expander.real_path(&missing),
                normalize_lexically(&absolute(&missing))
            );
        }
    }

    #[cfg(unix)]
    #[test]
    fn home_roots_follow_links_and_are_resolved_again_when_the_home_folder_changes() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        fs::create_dir_all(home.join(".claude")).unwrap();
        let mut roots = HomeRoots::resolve(Some(&home));
        let claude = fs::canonicalize(home.join(".claude")).unwrap();
        assert!(roots.memory_roots.contains(&claude));
        let unchanged = roots.clone();
        roots.refresh();
        assert_eq!(roots, unchanged);
        // `.codex` becomes a link elsewhere: the home folder's stamp changes with it.
        let elsewhere = dir.path().join("elsewhere");
        fs::create_dir(&elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, home.join(".codex")).unwrap();
        roots.refresh();
        assert!(
            roots
                .memory_roots
                .contains(&fs::canonicalize(&elsewhere).unwrap())
        );
        assert_eq!(roots.home(), Some(home.as_path()));
        assert_eq!(HomeRoots::resolve(None), HomeRoots::default());
    }
}

//! A bank's structure: the required and recommended files of its format (present, held
//! under a variant name, stood in for, or missing), two spellings of one core file,
//! ConKeeper's folders, and a folder that holds no markdown at its top at all.
//!
//! The expected set is the project's own when one of its rule files names at least three
//! of the bank's files; else the format's template, binding (errors, warnings) only when
//! the bank's contents prove the format and information otherwise.

use std::collections::HashMap;
use std::path::PathBuf;

use super::at_bank_top;
use crate::findings::{Finding, FindingCode, Severity};
use crate::formats::{
    self, DECLARING_RULE_FILES as RULE_FILES, DECLARING_RULE_FOLDERS as RULE_FOLDERS,
    ExpectedFiles, roo_rules,
};
use crate::io::text;
use crate::model::{Bank, LoadKind, MemoryFile, Project, Role};
use crate::scan::listings::{Entries, Entry};

/// Largest file read for its heading or for the file names it declares.
const READ_MAX_BYTES: u64 = 256 * 1024;

/// One expected file: held (perhaps under a variant name), stood in for by a lookalike,
/// a file whose heading names the role or a file of a neighbouring role (all said as
/// information), or else `missing` reports it.
fn check_expected_file(
    present: &[&MemoryFile],
    top_files: &[&MemoryFile],
    (role, name): (Role, &str),
    out: &mut Vec<Finding>,
    missing: impl FnOnce(&mut Vec<Finding>),
) {
    let in_role = || present.iter().filter(|f| f.role == role);
    // Held under its own name (`systemPatterns.md` for `system-patterns.md`), whatever
    // other file the role's names also take in (`systemArchitecture.md`).
    if in_role().any(|f| formats::names::same_name_key(&f.file_name(), name)) {
        return;
    }
    if let Some(file) = in_role().next() {
        // Held under another name of the name table: said, not faulted.
        out.push(Finding::new(
            Severity::Info,
            FindingCode::VariantFileName,
            &file.path,
            None,
            format!(
                "{name} not found; {} looks like it and is read as the {role} file",
                file.file_name()
            ),
        ));
        return;
    }
    let others = || top_files.iter().filter(|f| f.role == Role::Other);
    if let Some(lookalike) =
        others().find(|f| formats::names::lookalike_role(&f.file_name()) == Some(role))
    {
        out.push(Finding::new(
            Severity::Info,
            FindingCode::VariantFileName,
            &lookalike.path,
            None,
            format!(
                "{name} not found; {} looks like it (rename it to {name} if it is the {role} file)",
                lookalike.file_name()
            ),
        ));
        return;
    }
    if let Some(titled) = others().find(|f| first_heading_role(f) == Some(role)) {
        out.push(Finding::new(
            Severity::Info,
            FindingCode::VariantFileName,
            &titled.path,
            None,
            format!(
                "{name} not found; {} is titled as the {role} file and stands in for it",
                titled.file_name()
            ),
        ));
        return;
    }
    let stand_in = formats::names::stand_in_roles(role)
        .iter()
        .find_map(|other| present.iter().find(|f| f.role == *other));
    if let Some(file) = stand_in {
        out.push(Finding::new(
            Severity::Info,
            FindingCode::StandInFile,
            &file.path,
            None,
            format!(
                "{name} not found; {} ({}) stands in for the {role} file",
                file.file_name(),
                file.role
            ),
        ));
        return;
    }
    missing(out);
}

/// The role the first markdown heading of a file names, if it names one.
fn first_heading_role(file: &MemoryFile) -> Option<Role> {
    if !formats::names::is_markdown(&file.file_name()) || file.size > READ_MAX_BYTES {
        return None;
    }
    let text = text::read_text_limited(&file.path, READ_MAX_BYTES).ok()?;
    let heading = text.lines().find(|l| l.trim_start().starts_with('#'))?;
    formats::names::heading_role(heading.trim())
}

/// The bank's files as one of the project's rule files lists them.
struct DeclaredSet {
    /// The rule file, relative to the project.
    rule_file: String,
    /// Names the rule file gives the bank's files that the bank does not hold.
    missing: Vec<String>,
}

/// Fewest of the bank's own files a rule file must name to be taken as its declared set.
const DECLARED_MIN_FILES: usize = 3;

/// The set of the bank's files the project's own rules declare: the rule file naming the
/// most of the bank's top files, when it names at least [`DECLARED_MIN_FILES`].
fn declared_file_set(
    project: &Project,
    bank: &Bank,
    top_files: &[&MemoryFile],
    rules: &DeclaringRules,
) -> Option<DeclaredSet> {
    let bank_dir = bank.root.file_name()?.to_string_lossy().into_owned();
    // Most projects have no rule text to weigh: the bank's names are keyed for the first.
    let mut top_keys: Option<Vec<String>> = None;
    let mut best: Option<(usize, DeclaredSet)> = None;
    for (path, text) in rules.of(project) {
        let Some(text) = text else {
            continue;
        };
        let top_keys = top_keys.get_or_insert_with(|| {
            top_files
                .iter()
                .filter(|f| formats::names::is_markdown(&f.file_name()))
                .map(|f| formats::name_key(&f.file_name()))
                .collect()
        });
        let names = named_bank_files(text, &bank_dir);
        let mut held = Vec::new();
        let mut missing: Vec<String> = Vec::new();
        for (name, in_bank_folder) in names {
            let key = formats::name_key(&name);
            if top_keys.contains(&key) {
                if !held.contains(&key) {
                    held.push(key);
                }
            } else if (in_bank_folder || formats::role_for_name(&name).is_some())
                && !missing.iter().any(|m| formats::name_key(m) == key)
            {
                missing.push(name);
            }
        }
        if held.len() >= DECLARED_MIN_FILES && best.as_ref().is_none_or(|(n, _)| held.len() > *n) {
            let rule_file = path
                .strip_prefix(&project.path)
                .unwrap_or(path)
                .display()
                .to_string();
            best = Some((held.len(), DeclaredSet { rule_file, missing }));
        }
    }
    best.map(|(_, set)| set)
}

/// The project's rule files that may declare a bank's files, each with its text (`None`:
/// not readable as text), in the order they are weighed: read once for all the banks of
/// the project ([`super::ValidationContext::declaring_rules`]).
#[derive(Debug, Default)]
pub struct DeclaringRules {
    /// The project folder's entries as this run listed them, when it did: a rule file or
    /// folder whose first name is not among them is known to be missing without a look.
    project_entries: Option<Entries>,
    texts: std::sync::OnceLock<Vec<(PathBuf, Option<String>)>>,
}

impl DeclaringRules {
    /// Rules looked for on disk.
    pub fn new() -> Self {
        DeclaringRules::default()
    }

    /// Rules looked for in a project whose folder was listed as `entries`.
    pub fn in_listed_project(entries: Option<Entries>) -> Self {
        DeclaringRules {
            project_entries: entries,
            texts: std::sync::OnceLock::new(),
        }
    }

    /// The rule files of `project` and their texts, read at the first call.
    fn of(&self, project: &Project) -> &[(PathBuf, Option<String>)] {
        self.texts
            .get_or_init(|| rule_texts(project, self.project_entries.as_deref()))
    }
}

/// [`DeclaringRules`]' files of `project`, read. A name under a first folder or file the
/// project's listing (`entries`) does not hold is missing: it is left out without a look,
/// and noted as a missing path is, by the project folder it could appear in (once).
fn rule_texts(project: &Project, entries: Option<&[Entry]>) -> Vec<(PathBuf, Option<String>)> {
    let surely_missing = |relative: &str| {
        let first = relative.split('/').next().unwrap_or(relative);
        entries.is_some_and(|entries| !entries.iter().any(|e| e.name == first))
    };
    let mut any_missing = false;
    let mut candidates: Vec<PathBuf> = Vec::new();
    for file in RULE_FILES {
        if surely_missing(file) {
            any_missing = true;
        } else {
            candidates.push(project.path.join(file));
        }
    }
    for folder in RULE_FOLDERS {
        if surely_missing(folder) {
            any_missing = true;
            continue;
        }
        let dir = project.path.join(folder);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            crate::io::reads::absent(&dir);
            continue;
        };
        crate::io::reads::folder(&dir);
        for entry in entries.flatten().take(200) {
            let path = entry.path();
            // `.roo/` holds its rules in `rules/` and `rules-{mode}/`.
            if folder == roo_rules::ROO_DIR {
                if entry.file_name().to_string_lossy().starts_with("rules")
                    && let Ok(inner) = std::fs::read_dir(&path)
                {
                    crate::io::reads::folder(&path);
                    candidates.extend(inner.flatten().take(200).map(|e| e.path()));
                }
            } else {
                candidates.push(path);
            }
        }
    }
    if any_missing {
        crate::io::reads::folder(&project.path);
    }
    candidates
        .into_iter()
        .map(|path| {
            let text = text::read_text_limited(&path, READ_MAX_BYTES).ok();
            (path, text)
        })
        .collect()
}

/// Markdown file names a rule text may give the bank's files, each with whether it was
/// written as a path in the bank's folder (`memory-bank/tasks.md`); a bare name
/// (`README.md`) is only a bank file if the bank holds it or it names a core role. Names
/// under another folder (`docs/architecture.md`) are the project's other documents.
fn named_bank_files(text: &str, bank_dir: &str) -> Vec<(String, bool)> {
    let mut names = Vec::new();
    let is_path_char = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/');
    for token in text.split(|c: char| !is_path_char(c)) {
        let token = token.trim_matches('.');
        // `.md` in any case, without lowering a copy of every word of the rules.
        let ends_md = token
            .len()
            .checked_sub(3)
            .and_then(|at| token.as_bytes().get(at..))
            .is_some_and(|end| end.eq_ignore_ascii_case(b".md"));
        if !ends_md {
            continue;
        }
        let (folder, name) = match token.rsplit_once('/') {
            Some((folder, name)) => (Some(folder), name),
            None => (None, token),
        };
        let in_bank_folder = folder.is_some_and(|f| f.rsplit('/').next() == Some(bank_dir));
        if (folder.is_none() || in_bank_folder)
            && !name.is_empty()
            && !names.iter().any(|(n, _): &(String, bool)| n == name)
        {
            names.push((name.to_string(), in_bank_folder));
        }
    }
    names
}

/// "1 file", "37 files".
fn files_phrase(n: usize) -> String {
    if n == 1 {
        "1 file".to_string()
    } else {
        format!("{n} files")
    }
}

/// `bank_proven`: the bank's contents prove its format
/// ([`formats::FormatRules::contents_prove_format`]).
pub(super) fn check_required(
    project: &Project,
    bank: &Bank,
    (rules, bank_proven): (&DeclaringRules, bool),
    out: &mut Vec<Finding>,
) {
    let ExpectedFiles {
        required,
        recommended,
        suggested,
        suggested_because,
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
            FindingCode::NotAMemoryBank,
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
    // The project's own rules name the bank's files: that set is what the agent is told
    // to read, whatever the template of the format.
    if let Some(declared) = declared_file_set(project, bank, &top_files, rules) {
        for name in &declared.missing {
            out.push(Finding::new(
                Severity::Warning,
                FindingCode::MissingDeclaredFile,
                &bank.root,
                None,
                format!(
                    "{} names {name} among the bank's files, but it is missing",
                    declared.rule_file
                ),
            ));
        }
    } else {
        // A folder's name (`memory-bank/`, `.claude/memory/`) is shared by many tools: only
        // the bank's contents make the format's template binding.
        let certain = bank_proven;
        for (list, severity, code, what) in [
            (
                required,
                Severity::Error,
                FindingCode::MissingRequiredFile,
                "required",
            ),
            (
                recommended,
                Severity::Warning,
                FindingCode::MissingRecommendedFile,
                "recommended",
            ),
        ] {
            for &(role, name) in list {
                check_expected_file(&present, &top_files, (role, name), out, |out| {
                    let label = bank.format.label();
                    let (severity, message) = if certain {
                        (
                            severity,
                            format!("{what} file {name} ({role}) is missing from the {label}"),
                        )
                    } else {
                        // Named as the bank names its files: the template's spelling of
                        // a format the bank is only guessed to be would mislead.
                        let names: Vec<String> = top_files
                            .iter()
                            .map(|f| f.file_name().into_owned())
                            .collect();
                        let name = formats::names::spelled_like(name, &names);
                        (
                            Severity::Info,
                            format!(
                                "this looks like a {label} by its folder; a {label} would \
                                 expect {name} ({role}), which is not here"
                            ),
                        )
                    };
                    out.push(Finding::new(severity, code, &bank.root, None, message));
                });
            }
        }
        for &(role, name) in suggested {
            check_expected_file(&present, &top_files, (role, name), out, |out| {
                out.push(Finding::new(
                    Severity::Info,
                    FindingCode::MissingRecommendedFile,
                    &bank.root,
                    None,
                    format!(
                        "{name} ({role}) is not in the {}: {suggested_because}",
                        bank.format.label()
                    ),
                ));
            });
        }
    }
    // Two spellings of one core file (activeContext.md and active-context.md): the agent
    // reads one and the other silently drifts. Names that only share a role
    // (designPatterns.md beside systemPatterns.md) are documents of their own.
    let mut seen: HashMap<(Role, String), &MemoryFile> = HashMap::new();
    for file in &present {
        let core = required
            .iter()
            .chain(recommended)
            .chain(suggested)
            .any(|(r, _)| *r == file.role);
        if !core {
            continue;
        }
        let spelling = (file.role, formats::name_key(&file.file_name()));
        if let Some(first) = seen.get(&spelling) {
            out.push(Finding::new(
                Severity::Warning,
                FindingCode::DuplicateCoreFile,
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
            seen.insert(spelling, file);
        }
    }
    let rules = formats::rules(bank.format);
    if bank_proven {
        for dir in rules.required_folders() {
            if !bank.root.join(dir).is_dir() {
                out.push(Finding::new(
                    Severity::Warning,
                    FindingCode::MissingRequiredDir,
                    &bank.root,
                    None,
                    format!("required folder {dir}/ is missing (it may be empty, but must exist)"),
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::{bank::list_banks, discovery};
    use std::path::Path;

    fn write(path: &Path, text: &str) {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(path, text).unwrap();
    }

    /// The findings of `check_required` for the project's bank in `folder` (its format is
    /// whatever discovery decides).
    fn required_findings(dir: &Path, folder: &str) -> Vec<Finding> {
        let project = discovery::project_at(dir, "p".into()).expect("a project");
        let bank = list_banks(&project)
            .into_iter()
            .find(|b| b.root == dir.join(folder))
            .expect("a bank in the folder");
        let mut out = Vec::new();
        let proven = formats::rules(bank.format).contents_prove_format(&bank);
        check_required(&project, &bank, (&DeclaringRules::new(), proven), &mut out);
        out
    }

    #[test]
    fn rule_files_looked_for_in_a_listed_project_are_those_found_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(
            &root.join("CLAUDE.md"),
            "Read memory-bank/progress.md first.\n",
        );
        write(
            &root.join(".cursor/rules/memory.md"),
            "Keep activeContext.md.\n",
        );
        write(&root.join(".roo/rules-code/a.md"), "code\n");
        write(&root.join(".github/other.md"), "not a rule\n");
        std::fs::create_dir_all(root.join(".windsurf")).unwrap();
        let project = discovery::project_at(root, "p".into()).unwrap();
        let on_disk = crate::io::reads::recording(|| DeclaringRules::new().of(&project).to_vec());
        let listings = crate::scan::listings::Listings::in_memory();
        let entries = listings.list(root).unwrap();
        let listed = crate::io::reads::recording(|| {
            DeclaringRules::in_listed_project(Some(entries))
                .of(&project)
                .to_vec()
        });
        // The same rule texts, and the same folders noted (a missing name left out of
        // the listed project's candidates is noted once, by the project folder).
        let read = |(texts, reads): &(Vec<(PathBuf, Option<String>)>, crate::io::reads::Reads)| {
            let texts: Vec<_> = texts
                .iter()
                .filter(|(_, text)| text.is_some())
                .cloned()
                .collect();
            let mut folders = reads.folders.clone();
            folders.sort();
            folders.dedup();
            (texts, reads.files.clone(), folders, reads.unstampable)
        };
        assert_eq!(read(&listed), read(&on_disk));
        let texts = &on_disk.0;
        assert!(texts.contains(&(
            root.join("CLAUDE.md"),
            Some("Read memory-bank/progress.md first.\n".into())
        )));
        assert!(
            texts
                .iter()
                .any(|(path, _)| path == &root.join(".roo/rules-code/a.md"))
        );
        // A folder that is not there: noted by the project folder it could appear in.
        assert!(on_disk.1.folders.contains(&root.to_path_buf()));
    }

    fn of_code<'a>(findings: &'a [Finding], code: &str) -> Vec<&'a Finding> {
        findings.iter().filter(|f| f.code.id() == code).collect()
    }

    #[test]
    fn a_claude_memory_folder_without_conkeeper_markers_is_not_held_to_its_required_files() {
        let dir = tempfile::tempdir().unwrap();
        write(
            &dir.path().join(".claude/memory/active-context.md"),
            "# Active\n\nnow\n",
        );
        let findings = required_findings(dir.path(), ".claude/memory");
        assert!(
            findings.iter().all(|f| f.severity != Severity::Error),
            "{findings:?}"
        );
        let missing = of_code(&findings, "missing-required-file");
        assert_eq!(missing.len(), 1, "{findings:?}");
        assert_eq!(missing[0].severity, Severity::Info);
        assert!(missing[0].message.contains("looks like a ConKeeper"));
        assert!(of_code(&findings, "missing-required-dir").is_empty());
    }

    #[test]
    fn conkeeper_markers_make_its_required_files_binding() {
        let dir = tempfile::tempdir().unwrap();
        let bank = dir.path().join(".claude/memory");
        write(&bank.join("active-context.md"), "# Active\n\nnow\n");
        write(
            &bank.join(".memory-config.md"),
            "---\ntoken_budget: standard\n---\n",
        );
        let findings = required_findings(dir.path(), ".claude/memory");
        let missing = of_code(&findings, "missing-required-file");
        assert_eq!(missing.len(), 1, "{findings:?}");
        assert_eq!(missing[0].severity, Severity::Error);
        assert!(missing[0].message.contains("product-context.md"));
        assert_eq!(of_code(&findings, "missing-required-dir").len(), 2);
    }

    #[test]
    fn conkeeper_category_tags_prove_the_format() {
        let dir = tempfile::tempdir().unwrap();
        write(
            &dir.path().join(".claude/memory/active-context.md"),
            "# Active\n\n<!-- @category: state -->\nnow\n",
        );
        let findings = required_findings(dir.path(), ".claude/memory");
        let missing = of_code(&findings, "missing-required-file");
        assert_eq!(missing[0].severity, Severity::Error, "{findings:?}");
    }

    #[test]
    fn a_project_summary_stands_in_for_a_missing_product_context() {
        let dir = tempfile::tempdir().unwrap();
        let bank = dir.path().join(".claude/memory");
        write(&bank.join("active-context.md"), "# Active\n\nnow\n");
        write(&bank.join("project-brief.md"), "# Brief\n\nwhy\n");
        write(
            &bank.join(".memory-config.md"),
            "---\ntoken_budget: standard\n---\n",
        );
        let findings = required_findings(dir.path(), ".claude/memory");
        assert!(
            of_code(&findings, "missing-required-file").is_empty(),
            "{findings:?}"
        );
        let stand_in = of_code(&findings, "stand-in-file");
        assert_eq!(stand_in.len(), 1, "{findings:?}");
        assert_eq!(stand_in[0].severity, Severity::Info);
        assert!(stand_in[0].message.contains("project-brief.md"));
    }

    /// A bank holding four of Cline's own names, so its template binds.
    fn proven_cline_bank(dir: &Path) {
        for name in [
            "projectBrief.md",
            "activeContext.md",
            "progress.md",
            "techContext.md",
        ] {
            write(&dir.join("memory-bank").join(name), "# Core\n\ntext\n");
        }
    }

    #[test]
    fn a_file_whose_heading_names_a_role_stands_in_for_it() {
        let dir = tempfile::tempdir().unwrap();
        proven_cline_bank(dir.path());
        write(
            &dir.path().join("memory-bank/why.md"),
            "# Product Context: the shop\n\nwhy\n",
        );
        let findings = required_findings(dir.path(), "memory-bank");
        let missing: Vec<&Finding> = of_code(&findings, "missing-recommended-file");
        assert!(
            missing
                .iter()
                .all(|f| !f.message.contains("productContext")),
            "{findings:?}"
        );
        assert!(
            findings
                .iter()
                .any(|f| f.code.id() == "variant-file-name" && f.message.contains("why.md")),
            "{findings:?}"
        );
        // The proven bank still misses systemPatterns.md, as a warning.
        assert!(
            missing
                .iter()
                .any(|f| f.severity == Severity::Warning && f.message.contains("systemPatterns"))
        );
    }

    #[test]
    fn a_bank_of_clines_six_documented_files_is_only_told_of_the_decision_log() {
        let six = [
            "projectbrief.md",
            "productContext.md",
            "systemPatterns.md",
            "techContext.md",
            "activeContext.md",
            "progress.md",
        ];
        let decision_log = |findings: &[Finding]| -> Vec<(Severity, String)> {
            of_code(findings, "missing-recommended-file")
                .into_iter()
                .filter(|f| f.message.contains("decisionLog.md"))
                .map(|f| (f.severity, f.message.clone()))
                .collect()
        };
        let findings_of = |names: &[&str]| {
            let dir = tempfile::tempdir().unwrap();
            for name in names {
                write(
                    &dir.path().join("memory-bank").join(name),
                    "# Core\n\ntext\n",
                );
            }
            required_findings(dir.path(), "memory-bank")
        };
        let findings = findings_of(&six);
        let told = decision_log(&findings);
        assert_eq!(told.len(), 1, "{findings:?}");
        assert_eq!(told[0].0, Severity::Info);
        assert!(
            told[0]
                .1
                .contains("Cline's own memory bank documentation lists six")
        );
        // Short of the six, the bank keeps to the specification's list: still a warning.
        let five: Vec<&str> = six.into_iter().filter(|n| *n != "techContext.md").collect();
        let findings = findings_of(&five);
        let told = decision_log(&findings);
        assert_eq!(told.len(), 1, "{findings:?}");
        assert_eq!(told[0].0, Severity::Warning);
    }

    #[test]
    fn the_projects_rule_file_declares_the_banks_file_set() {
        let dir = tempfile::tempdir().unwrap();
        for name in [
            "activeContext.md",
            "systemArchitecture.md",
            "progress.md",
            "decisionLog.md",
        ] {
            write(
                &dir.path().join("memory-bank").join(name),
                "# Core\n\ntext\n",
            );
        }
        write(
            &dir.path().join(".kilocode/rules/memory-bank.md"),
            "# Memory\n\n1. `activeContext.md` now\n2. `systemArchitecture.md` stack\n\
             3. `progress.md` done\n4. `decisionLog.md` why\n\
             Read `memory-bank/tasks.md` too; see docs/setup.md and README.md.\n",
        );
        let findings = required_findings(dir.path(), "memory-bank");
        assert!(
            of_code(&findings, "missing-required-file").is_empty()
                && of_code(&findings, "missing-recommended-file").is_empty(),
            "{findings:?}"
        );
        let declared = of_code(&findings, "missing-declared-file");
        assert_eq!(declared.len(), 1, "{findings:?}");
        assert_eq!(declared[0].severity, Severity::Warning);
        assert!(declared[0].message.contains("tasks.md"));
        assert!(
            declared[0]
                .message
                .contains(".kilocode/rules/memory-bank.md")
        );
    }

    #[test]
    fn a_rule_file_naming_fewer_than_three_bank_files_declares_nothing() {
        let dir = tempfile::tempdir().unwrap();
        proven_cline_bank(dir.path());
        write(
            &dir.path().join(".clinerules"),
            "Read `activeContext.md` and `progress.md` first.\n",
        );
        let findings = required_findings(dir.path(), "memory-bank");
        assert!(of_code(&findings, "missing-declared-file").is_empty());
        assert!(
            !of_code(&findings, "missing-recommended-file").is_empty(),
            "{findings:?}"
        );
    }

    #[test]
    fn rule_text_names_bank_files_by_path_or_bare_name_only() {
        let names = named_bank_files(
            "see memory-bank/tasks.md, docs/architecture.md and `progress.md`.",
            "memory-bank",
        );
        assert_eq!(
            names,
            vec![
                ("tasks.md".to_string(), true),
                ("progress.md".to_string(), false)
            ]
        );
    }

    #[test]
    fn a_file_under_its_own_name_is_not_said_stood_in_for_by_another_of_its_role() {
        let dir = tempfile::tempdir().unwrap();
        let bank = dir.path().join("memory-bank");
        for name in [
            "activeContext.md",
            "productContext.md",
            "progress.md",
            "decisionLog.md",
            "systemArchitecture.md",
            "systemPatterns.md",
        ] {
            write(&bank.join(name), "# Notes\n\nText.\n");
        }
        let findings = required_findings(dir.path(), "memory-bank");
        let variants = of_code(&findings, "variant-file-name");
        assert!(
            variants
                .iter()
                .all(|f| !f.message.contains("systemArchitecture.md")),
            "{findings:?}"
        );
    }
}

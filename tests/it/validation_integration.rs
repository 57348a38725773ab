//! Validation over real folders, one bank per format with planted problems: the exact
//! findings (code, severity, file, line) each produces. Includes import chains (a cycle,
//! six hops, `.env`, a symlink escaping the project), broken JSON/YAML, a binary `.md`
//! and a 500 KB single-line file, and a no-panic sweep over the corpus.
use crate::common;

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mbank::core::analysis::validate::{ValidationContext, validate_bank};
use mbank::core::findings::{Finding, Severity};
use mbank::core::model::{Bank, Format, Project};
use mbank::core::scan::bank::list_banks;
use mbank::core::scan::discovery::{self, ScanOptions};

use Severity::{Error, Info, Warning};

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn project_at(dir: &Path) -> Project {
    discovery::project_at(dir, "p".into()).expect("a project")
}

fn bank_of(project: &Project, format: Format) -> Bank {
    list_banks(project)
        .into_iter()
        .find(|b| b.format == format)
        .unwrap_or_else(|| panic!("no {format} bank in {:?}", project.banks))
}

fn no_git() -> ValidationContext {
    ValidationContext {
        tracked_by_git: None,
        home: Default::default(),
        ignored_by_git: None,
        ..Default::default()
    }
}

/// (code, severity, file relative to `base`, line) — what a person reads in the report.
fn summary(
    findings: &[Finding],
    base: &Path,
) -> Vec<(&'static str, Severity, String, Option<usize>)> {
    let base = fs::canonicalize(base).unwrap();
    findings
        .iter()
        .map(|f| {
            let file = fs::canonicalize(&f.file).unwrap_or_else(|_| f.file.clone());
            let rel = file
                .strip_prefix(&base)
                .map(|p| p.display().to_string())
                .unwrap_or_else(|_| f.file.display().to_string());
            (f.code.id(), f.severity, rel, f.line)
        })
        .collect()
}

fn row(
    code: &'static str,
    severity: Severity,
    file: &str,
    line: Option<usize>,
) -> (&'static str, Severity, String, Option<usize>) {
    (code, severity, file.to_string(), line)
}

#[test]
fn cline_bank_findings() {
    let dir = tempfile::tempdir().unwrap();
    let bank_dir = dir.path().join("memory-bank");
    write(&bank_dir.join("projectbrief.md"), "# Brief\nA tool.\n");
    write(
        &bank_dir.join("activeContext.md"),
        "# Active Context\n## Ongoing Tasks\n- [Task 1]\n- [Task 2]\n## Notes\n- real note\n",
    );
    write(&bank_dir.join("productContext.md"), "\n\n");
    write(
        &bank_dir.join("systemPatterns.md"),
        "Patterns without a heading.\n",
    );
    fs::write(
        bank_dir.join("techContext.md"),
        b"# Tech\n\x00\x01\x02binary",
    )
    .unwrap();
    // Cline reads a bank file whole and parses no frontmatter: a `---` never closed is
    // no metadata swallowing the file, so no finding.
    write(
        &bank_dir.join("decisionLog.md"),
        "---\nstatus: open\n# Decision Log\nnever closed\n",
    );
    // A 500 KB single line: must be handled in linear time.
    let huge = "[word] ".repeat(75_000);
    write(&bank_dir.join("notes.md"), &huge);
    let project = project_at(dir.path());
    let bank = bank_of(&project, Format::Cline);
    let started = Instant::now();
    let findings = validate_bank(&project, &bank, &no_git());
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(
        summary(&findings, dir.path()),
        vec![
            row("missing-required-file", Error, "memory-bank", None),
            row(
                "unfilled-placeholder",
                Warning,
                "memory-bank/activeContext.md",
                Some(3)
            ),
            row("no-heading", Warning, "memory-bank/notes.md", None),
            // `[word]` reads as a lower-case template word, 75,000 times on line 1.
            row(
                "unfilled-placeholder",
                Warning,
                "memory-bank/notes.md",
                Some(1)
            ),
            row("empty-file", Warning, "memory-bank/productContext.md", None),
            row("no-heading", Warning, "memory-bank/systemPatterns.md", None),
            row("unreadable-file", Error, "memory-bank/techContext.md", None),
        ]
    );
    assert!(
        findings[0].message.contains("progress.md"),
        "{}",
        findings[0].message
    );
    assert!(
        findings[1].message.starts_with("2 lines"),
        "{}",
        findings[1].message
    );
    assert!(
        findings[6].message.contains("binary"),
        "{}",
        findings[6].message
    );
    assert!(
        findings[3].message.starts_with("1 line still"),
        "{}",
        findings[3].message
    );
}

#[test]
fn memory_bank_mcp_and_document_bank_findings() {
    let dir = tempfile::tempdir().unwrap();
    let bank_dir = dir.path().join("memory-bank");
    write(&bank_dir.join("product-context.md"), "# Product\n");
    write(&bank_dir.join("active-context.md"), "# Active\n");
    write(&bank_dir.join("activeContext.md"), "# Active (old name)\n");
    write(&bank_dir.join("system-patterns.md"), "# Patterns\n");
    write(
        &bank_dir.join("progress.md"),
        "# Progress\n## Update History\n- [2025-01-02 10:00:00] - Built: the parser\n",
    );
    let docs = dir.path().join("docs/global-memory-bank");
    write(
        &docs.join("core/glossary.json"),
        "{\n  \"terms\": [\n    1,\n  ]\n}\n",
    );
    write(&docs.join("core/ok.json"), "{\"a\": 1}\n");
    let project = project_at(dir.path());
    let banks: Vec<Bank> = list_banks(&project)
        .into_iter()
        .filter(|b| b.format == Format::MemoryBankMcp)
        .collect();
    assert_eq!(banks.len(), 2);
    let mut findings = Vec::new();
    for bank in &banks {
        findings.extend(validate_bank(&project, bank, &no_git()));
    }
    assert_eq!(
        summary(&findings, dir.path()),
        vec![
            row("missing-recommended-file", Warning, "memory-bank", None),
            row(
                "duplicate-core-file",
                Warning,
                "memory-bank/activeContext.md",
                None
            ),
            row(
                "json-malformed",
                Error,
                "docs/global-memory-bank/core/glossary.json",
                Some(4)
            ),
        ]
    );
    assert!(
        findings[0].message.contains("decision-log.md"),
        "{}",
        findings[1].message
    );
}

#[test]
fn conkeeper_bank_findings() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join(".claude/memory");
    write(
        &m.join("active-context.md"),
        "# Active Context\n\
         ## Current Focus\n\
         - Shipping the parser\n\
         <!-- @category: decision -->\n\
         <!-- @category: Misc -->\n\
         <!-- @category: gossip -->\n\
         <private>\n\
         - api key\n",
    );
    write(
        &m.join("decisions/ADR-001-use-rust.md"),
        "# ADR-001: Use Rust\n",
    );
    write(&m.join("decisions/ADR-003-split.md"), "# ADR-003: Split\n");
    write(&m.join("decisions/ADR-003-merge.md"), "# ADR-003: Merge\n");
    write(&m.join("decisions/ADR-004-Bad Name.md"), "# ADR-004\n");
    write(
        &m.join(".memory-config.md"),
        "---\ntoken_budget: huge\nauto_sync_threshold: 150\nstaleness_commits: 5\n---\n",
    );
    let project = project_at(dir.path());
    let bank = bank_of(&project, Format::ConKeeper);
    let findings = validate_bank(&project, &bank, &no_git());
    let base = dir.path().join(".claude/memory");
    assert_eq!(
        summary(&findings, &base),
        vec![
            row("missing-required-dir", Warning, "", None),
            row("missing-required-file", Error, "", None),
            row("memory-config", Warning, ".memory-config.md", Some(2)),
            row("memory-config", Warning, ".memory-config.md", Some(3)),
            row("tag-syntax", Warning, "active-context.md", Some(5)),
            row("unknown-category", Warning, "active-context.md", Some(6)),
            row("unclosed-private", Warning, "active-context.md", Some(7)),
            row(
                "adr-numbering-gap",
                Warning,
                "decisions/ADR-003-merge.md",
                None
            ),
            row(
                "adr-duplicate-number",
                Warning,
                "decisions/ADR-003-split.md",
                None
            ),
            row("adr-naming", Info, "decisions/ADR-004-Bad Name.md", None),
        ]
    );
    assert!(
        findings[0].message.contains("sessions/"),
        "{}",
        findings[0].message
    );
    assert!(findings[1].message.contains("product-context.md"));
    assert!(
        findings[7].message.contains("002"),
        "{}",
        findings[7].message
    );
}

#[test]
fn conkeeper_broken_config_yaml_has_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join(".ai/memory");
    write(&m.join("active-context.md"), "# Active\n");
    write(&m.join("product-context.md"), "# Product\n");
    fs::create_dir_all(m.join("decisions")).unwrap();
    fs::create_dir_all(m.join("sessions")).unwrap();
    write(
        &m.join(".memory-config.md"),
        "---\nauto_load: true\ntoken_budget: [light\n---\n",
    );
    let project = project_at(dir.path());
    let findings = validate_bank(&project, &bank_of(&project, Format::ConKeeper), &no_git());
    assert_eq!(
        summary(&findings, &m),
        vec![row("memory-config", Error, ".memory-config.md", Some(4))]
    );
}

#[test]
fn claude_md_imports_local_files_and_frontmatter() {
    let dir = tempfile::tempdir().unwrap();
    let project_dir = dir.path().join("proj");
    let outside = dir.path().join("outside");
    write(&outside.join("notes.md"), "# Outside\n");
    write(
        &project_dir.join("CLAUDE.md"),
        "# Project\n@docs/a.md\n@chain/d1.md\n@.env\n@escape.md\n@missing.md\n`@not/an/import.md`\n",
    );
    write(&project_dir.join("docs/a.md"), "# A\n@b.md\n");
    write(&project_dir.join("docs/b.md"), "# B\n@../CLAUDE.md\n");
    for n in 1..=6 {
        write(
            &project_dir.join(format!("chain/d{n}.md")),
            &format!("# D{n}\n@d{}.md\n", n + 1),
        );
    }
    write(&project_dir.join("chain/d7.md"), "# D7\n");
    write(&project_dir.join(".env"), "TOKEN=secret\n");
    std::os::unix::fs::symlink(outside.join("notes.md"), project_dir.join("escape.md")).unwrap();
    write(&project_dir.join("CLAUDE.local.md"), "# Mine\n");
    write(
        &project_dir.join(".claude/rules/api.md"),
        "---\npaths:\n  - src/**\nglobs: [unclosed\n---\n# API rules\n",
    );
    let project = project_at(&project_dir);
    let bank = bank_of(&project, Format::ClaudeMd);
    let tracked: HashSet<PathBuf> = [PathBuf::from("CLAUDE.local.md"), PathBuf::from("CLAUDE.md")]
        .into_iter()
        .collect();
    let ctx = ValidationContext {
        tracked_by_git: Some(tracked),
        home: Default::default(),
        ignored_by_git: None,
        ..Default::default()
    };
    let findings = validate_bank(&project, &bank, &ctx);
    assert_eq!(
        summary(&findings, &project_dir),
        vec![
            row(
                "frontmatter-invalid",
                Warning,
                ".claude/rules/api.md",
                Some(5)
            ),
            row("local-file-tracked", Warning, "CLAUDE.local.md", None),
            row("import-sensitive", Error, "CLAUDE.md", Some(4)),
            row("import-outside", Warning, "CLAUDE.md", Some(5)),
            row("import-missing", Warning, "CLAUDE.md", Some(6)),
            row("import-too-deep", Warning, "chain/d4.md", Some(2)),
            row("import-cycle", Error, "docs/b.md", Some(2)),
        ]
    );
    let cycle = findings
        .iter()
        .find(|f| f.code.id() == "import-cycle")
        .unwrap();
    assert_eq!(
        cycle.message,
        "import cycle: CLAUDE.md → docs/a.md → docs/b.md → CLAUDE.md"
    );
    let deep = findings
        .iter()
        .find(|f| f.code.id() == "import-too-deep")
        .unwrap();
    assert!(deep.message.contains("5 imports deep"), "{}", deep.message);
    let sensitive = findings
        .iter()
        .find(|f| f.code.id() == "import-sensitive")
        .unwrap();
    assert!(!sensitive.message.contains("TOKEN"));
}

#[test]
fn infinity_store_findings() {
    let dir = tempfile::tempdir().unwrap();
    let inf = dir.path().join(".infinity");
    write(
        &inf.join("memories.json"),
        "{\n  \"project_id\": \"p1\",\n  \"memories\": [\n    {\"id\": \"a\",}\n  ]\n}\n",
    );
    let project = project_at(dir.path());
    let findings = validate_bank(&project, &bank_of(&project, Format::Infinity), &no_git());
    assert_eq!(
        summary(&findings, &inf),
        vec![row("infinity-json", Error, "memories.json", Some(4))]
    );
    assert!(
        findings[0].message.contains("column 16"),
        "{}",
        findings[0].message
    );

    write(
        &inf.join("memories.json"),
        r#"{
  "project_id": "p1",
  "memories": [
    {"id": "a", "title": "Overview", "type": "project_overview", "content": "x",
     "created_at": "2025-01-01T00:00:00Z"},
    {"id": "a", "title": "", "type": "wishlist", "content": "y",
     "created_at": "2025-01-01T00:00:00Z"}
  ]
}"#,
    );
    write(&inf.join("project_id"), "p2\n");
    let findings = validate_bank(&project, &bank_of(&project, Format::Infinity), &no_git());
    let rows = summary(&findings, &inf);
    assert_eq!(
        rows,
        vec![
            // All three are the second memory's, which starts on line 6 (it repeats
            // the first one's id).
            row("infinity-schema", Error, "memories.json", Some(6)),
            row("infinity-schema", Warning, "memories.json", Some(6)),
            row("infinity-schema", Warning, "memories.json", Some(6)),
            row(
                "infinity-project-id-mismatch",
                Warning,
                "project_id",
                Some(1)
            ),
        ]
    );
}

#[test]
fn infinity_missing_project_id_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join(".infinity/memories.json"),
        r#"{"project_id": "p", "memories": []}"#,
    );
    let project = project_at(dir.path());
    let findings = validate_bank(&project, &bank_of(&project, Format::Infinity), &no_git());
    assert_eq!(
        summary(&findings, dir.path()),
        vec![row(
            "infinity-project-id-missing",
            Warning,
            ".infinity",
            None
        )]
    );
}

#[test]
fn roo_mode_files_that_do_not_parse() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        &d.join(".clinerules-code"),
        "mode: code\ninstructions:\n  memory_bank:\n    files_to_read: [a.md\n    files_to_update: []\n",
    );
    write(
        &d.join(".clinerules-ask"),
        "# Ask mode\n\nAnswer questions. Read the bank first.\n",
    );
    write(
        &d.join(".roomodes"),
        "{\"customModes\": [\n  {\"slug\": \"x\",}\n]}\n",
    );
    write(&d.join(".clinerules"), "");
    write(
        &d.join(".roo/rules/base.md"),
        "# Base rules\n- [Date] entries are fine in rules\n",
    );
    let project = project_at(d);
    let findings = validate_bank(&project, &bank_of(&project, Format::RooRules), &no_git());
    assert_eq!(
        summary(&findings, d),
        vec![
            row("empty-file", Warning, ".clinerules", None),
            row("mode-file-parse", Error, ".clinerules-code", Some(5)),
            row("mode-file-parse", Error, ".roomodes", Some(2)),
        ]
    );
}

#[test]
fn healthy_banks_have_no_findings() {
    let dir = tempfile::tempdir().unwrap();
    let b = dir.path().join("memory-bank");
    for name in [
        "projectbrief.md",
        "productContext.md",
        "systemPatterns.md",
        "techContext.md",
        "activeContext.md",
        "progress.md",
        "decisionLog.md",
    ] {
        write(
            &b.join(name),
            &format!("# {name}\n\nFilled in: see [docs](https://x).\n- [ ] a task\n"),
        );
    }
    write(
        &dir.path().join("CLAUDE.md"),
        "# Rules\n@memory-bank/progress.md\n",
    );
    let project = project_at(dir.path());
    for bank in list_banks(&project) {
        let findings = validate_bank(&project, &bank, &no_git());
        assert_eq!(findings, vec![], "{}", bank.format);
    }
}

#[test]
fn corpus_validates_without_panicking() {
    // Prints the skip notice itself when the corpus is absent.
    let Some(root) = common::corpus_root() else {
        return;
    };
    let options = ScanOptions {
        depth: 2,
        ..ScanOptions::default()
    };
    let started = Instant::now();
    let projects = discovery::scan(&root, &options);
    assert!(!projects.is_empty());
    let mut total = 0;
    for project in &projects {
        for bank in list_banks(project) {
            total += validate_bank(project, &bank, &ValidationContext::default()).len();
        }
    }
    eprintln!(
        "corpus: {} projects, {total} findings in {:?}",
        projects.len(),
        started.elapsed()
    );
    assert!(started.elapsed() < Duration::from_secs(120));
}

#[test]
fn only_two_spellings_of_one_name_are_a_duplicate_core_file() {
    let dir = tempfile::tempdir().unwrap();
    let bank_dir = dir.path().join("memory-bank");
    for (name, text) in [
        ("projectbrief.md", "# Brief\n"),
        ("activeContext.md", "# Active\n"),
        ("active-context.md", "# Active (old name)\n"),
        ("progress.md", "# Progress\n"),
        ("systemPatterns.md", "# System patterns\n"),
        // Another document that shares the role's name family, not a second copy.
        ("designPatterns.md", "# Design and UX patterns\n"),
    ] {
        write(&bank_dir.join(name), text);
    }
    let project = project_at(dir.path());
    let mut findings = Vec::new();
    for bank in &list_banks(&project) {
        findings.extend(validate_bank(&project, bank, &no_git()));
    }
    let duplicates: Vec<String> = findings
        .iter()
        .filter(|f| f.code.id() == "duplicate-core-file")
        .map(|f| f.message.clone())
        .collect();
    assert_eq!(duplicates.len(), 1, "{duplicates:?}");
    assert!(duplicates[0].contains("activeContext.md"), "{duplicates:?}");
}

/// `.claude/CLAUDE.md` imported by both CLAUDE.md and GEMINI.md (two agents' banks):
/// each import it gets wrong is said once.
#[test]
fn a_file_reached_twice_reports_each_of_its_findings_once() {
    let dir = tempfile::tempdir().unwrap();
    let project_dir = dir.path().join("shop");
    for agent in ["CLAUDE.md", "GEMINI.md"] {
        write(&project_dir.join(agent), "# Shop\n@.claude/CLAUDE.md\n");
    }
    write(
        &project_dir.join(".claude/CLAUDE.md"),
        "# Rules\n@docs/missing.md\n",
    );
    let sandbox = common::Sandbox::new();
    let json = sandbox
        .run(&["check", "--json", project_dir.to_str().unwrap()])
        .json();
    let missing: Vec<&serde_json::Value> = json["projects"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|p| p["findings"].as_array().unwrap())
        .filter(|f| f["code"] == "import-missing")
        .collect();
    assert_eq!(missing.len(), 1, "{missing:#?}");
}

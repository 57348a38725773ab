//! Bad input never panics or hangs: invalid UTF-8, a binary `.md`, a 50 MB file, a 500 KB
//! single line, broken JSON and YAML, files that cannot be read (a dangling symlink, a
//! folder named `x.md`, a FIFO, chmod 000), a symlink loop and a file deleted between
//! listing and analysis. Each case runs the core (listing, analysis with validation,
//! session context) and the CLI (`check --json`, `tokens --json`, `context --json`) under
//! a time limit, and must produce a finding or error that names the file.
use crate::common;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{Sandbox, within, write};
use mbank::core::analysis::context::{ContextOptions, session_context_with};
use mbank::core::analysis::report::{Analyzer, Depth, ProjectReport};
use mbank::core::config::Config;
use mbank::core::findings::Finding;
use mbank::core::model::Project;
use mbank::core::scan::bank::list_banks;
use mbank::core::scan::discovery::{self, ScanOptions};
use mbank::core::tokens::{self, Encoding, TokenCache};

/// How long one bad-input case may take before it counts as a hang.
const LIMIT: Duration = common::HANG_LIMIT;

/// A healthy Cline bank, so that the only problem is the one a test plants.
fn cline_project(dir: &Path) -> PathBuf {
    let project = dir.join("proj");
    for name in [
        "projectbrief.md",
        "productContext.md",
        "systemPatterns.md",
        "techContext.md",
        "activeContext.md",
        "progress.md",
    ] {
        write(
            &project.join("memory-bank").join(name),
            &format!("# {name}\n\nFilled in.\n"),
        );
    }
    project
}

fn project_at(dir: &Path) -> Project {
    discovery::project_at(dir, "proj".into()).expect("a project")
}

/// Listing, analysis with validation and every bank's session context, on a thread with
/// a time limit.
fn analyze_bounded(project_dir: &Path) -> ProjectReport {
    let dir = project_dir.to_path_buf();
    within(
        LIMIT,
        &format!("analysis of {}", dir.display()),
        move || {
            let project = project_at(&dir);
            let config = Config::default();
            let mut analyzer = Analyzer::new(
                &config,
                Encoding::O200k,
                TokenCache::in_memory(Encoding::O200k),
                &common::test_clock(),
            );
            let report = analyzer.analyze(&project, Depth::full());
            let options = ContextOptions::default();
            let count = |text: &str| tokens::count(Encoding::O200k, text);
            for bank in list_banks(&project) {
                session_context_with(&project, &bank, &count, &options);
            }
            report
        },
    )
}

/// The findings about `file` (by path or, for listing problems, by message).
fn findings_about<'a>(report: &'a ProjectReport, file: &Path) -> Vec<&'a Finding> {
    let name = file.file_name().unwrap().to_string_lossy().into_owned();
    report
        .findings
        .iter()
        .filter(|f| {
            f.file == file
                || f.message.contains(&name)
                || f.details.iter().any(|d| d.contains(&name))
        })
        .collect()
}

/// `check --json`, `tokens --json` and `context --json` on the project: no panic, no
/// hang, exit 0 or 1 (2 only where the brief allows), valid JSON, and the check names
/// the file.
fn cli_names_the_file(project: &Path, file: &Path) -> serde_json::Value {
    let sandbox = Sandbox::new();
    let p = project.to_str().unwrap();
    let check = sandbox.run(&["check", "--json", p]);
    assert!(
        check.code == 0 || check.code == 1,
        "check exit {}: {}",
        check.code,
        check.stderr
    );
    assert!(!check.stderr.contains("panicked"), "{}", check.stderr);
    let json = check.json();
    let name = file.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        json.to_string().contains(&name),
        "check --json does not name {name}:\n{json:#}"
    );
    for command in ["tokens", "context"] {
        let run = sandbox.run(&[command, p, "--json"]);
        run.expect_code(0);
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
        run.json();
    }
    json
}

#[test]
fn invalid_utf8_is_a_finding_with_the_offset() {
    let dir = tempfile::tempdir().unwrap();
    let project = cline_project(dir.path());
    let file = project.join("memory-bank/decisionLog.md");
    fs::write(&file, b"# Decisions\n\nCaf\xe9 au lait\n").unwrap();
    let report = analyze_bounded(&project);
    let about = findings_about(&report, &file);
    assert!(
        about
            .iter()
            .any(|f| f.message.contains("not valid UTF-8") && f.message.contains("offset 16")),
        "{about:?}"
    );
    let json = cli_names_the_file(&project, &file);
    assert_eq!(json["failed"], true);
}

#[test]
fn a_binary_file_named_md_is_reported_as_binary() {
    let dir = tempfile::tempdir().unwrap();
    let project = cline_project(dir.path());
    let file = project.join("memory-bank/decisionLog.md");
    let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
    bytes.extend((0..4096u32).map(|i| (i % 251) as u8));
    fs::write(&file, &bytes).unwrap();
    let report = analyze_bounded(&project);
    assert!(
        findings_about(&report, &file)
            .iter()
            .any(|f| f.message.contains("binary")),
        "{:?}",
        report.findings
    );
    cli_names_the_file(&project, &file);
}

#[test]
fn a_50_mb_file_is_refused_by_size_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let project = cline_project(dir.path());
    let file = project.join("memory-bank/decisionLog.md");
    let line = "- 2025-01-01: an agent appended this line again and again\n";
    let text = line.repeat(50 * 1024 * 1024 / line.len() + 1);
    fs::write(&file, &text).unwrap();
    let report = analyze_bounded(&project);
    let about = findings_about(&report, &file);
    assert!(
        about
            .iter()
            .any(|f| f.message.contains("over the") && f.message.contains("limit")),
        "{about:?}"
    );
    // The listing still shows the file and its size.
    let listed = report.banks[0]
        .files
        .iter()
        .find(|f| f.file.path == file)
        .expect("the big file is listed");
    assert_eq!(listed.file.size, text.len() as u64);
    assert!(listed.error.is_some());
    cli_names_the_file(&project, &file);
}

#[test]
fn a_500_kb_single_line_is_counted_in_bounded_time() {
    let dir = tempfile::tempdir().unwrap();
    let project = cline_project(dir.path());
    // Words, and a run with no whitespace at all (one enormous pre-token).
    let words = "tokens ".repeat(500 * 1024 / 7);
    let run: String = "abcdefghij".repeat(50 * 1024);
    write(
        &project.join("memory-bank/words.md"),
        &format!("# W\n{words}"),
    );
    write(&project.join("memory-bank/run.md"), &format!("# R\n{run}"));
    let report = analyze_bounded(&project);
    for name in ["words.md", "run.md"] {
        let file = report.banks[0]
            .files
            .iter()
            .find(|f| f.file.path.ends_with(name))
            .unwrap();
        let stats = file
            .stats
            .as_ref()
            .unwrap_or_else(|| panic!("{:?}", file.error));
        assert_eq!(stats.lines, 2);
        assert!(
            stats.loaded_tokens > 1000,
            "{name}: {}",
            stats.loaded_tokens
        );
    }
    // A single 500 KB line is far over the per-file budget: a finding names it.
    let run_file = project.join("memory-bank/run.md");
    assert!(
        findings_about(&report, &run_file)
            .iter()
            .any(|f| f.code.id() == "budget-over"),
        "{:?}",
        report.findings
    );
    cli_names_the_file(&project, &run_file);
}

#[test]
fn broken_infinity_json_names_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("proj");
    let store = project.join(".infinity/memories.json");
    write(
        &store,
        "{\n  \"project_id\": \"p\",\n  \"memories\": [\n    {\"id\": \"m1\",, }\n  ]\n}\n",
    );
    let report = analyze_bounded(&project);
    let about = findings_about(&report, &store);
    assert!(
        about
            .iter()
            .any(|f| f.line == Some(4) && f.message.contains("column")),
        "{about:?}"
    );
    cli_names_the_file(&project, &store);
}

#[test]
fn broken_yaml_in_rule_frontmatter_and_mode_files_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("proj");
    let rule = project.join(".claude/rules/api.md");
    write(&project.join("CLAUDE.md"), "# Rules\n\nBe brief.\n");
    write(
        &rule,
        "---\npaths: [src/api/**\n  - : : broken\n---\n# API rules\n",
    );
    let mode = project.join(".clinerules-code");
    write(
        &mode,
        "mode: code\ninstructions:\n  memory_bank:\n    - read: [unclosed\n   bad: indentation\n",
    );
    let report = analyze_bounded(&project);
    let mode_findings = findings_about(&report, &mode);
    assert!(
        mode_findings
            .iter()
            .any(|f| f.code.id() == "mode-file-parse"),
        "{:?}",
        report.findings
    );
    // The rule with unparseable frontmatter is still listed and counted.
    let rule_listed = report
        .banks
        .iter()
        .flat_map(|b| &b.files)
        .find(|f| f.file.path == rule)
        .expect("the broken rule is listed");
    assert!(rule_listed.stats.is_some());
    cli_names_the_file(&project, &mode);
}

#[test]
fn broken_memory_config_frontmatter_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("proj");
    let memory = project.join(".claude/memory");
    write(&memory.join("active-context.md"), "# Active\n\nNow.\n");
    let config = memory.join(".memory-config.md");
    write(&config, "---\ntoken_budget: [standard\n---\n");
    let report = analyze_bounded(&project);
    assert!(
        !findings_about(&report, &config).is_empty(),
        "{:?}",
        report.findings
    );
    cli_names_the_file(&project, &config);
}

#[cfg(unix)]
#[test]
fn a_dangling_symlink_is_a_listing_problem() {
    let dir = tempfile::tempdir().unwrap();
    let project = cline_project(dir.path());
    let link = project.join("memory-bank/decisionLog.md");
    std::os::unix::fs::symlink(project.join("memory-bank/gone.md"), &link).unwrap();
    let report = analyze_bounded(&project);
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.message.contains("decisionLog.md") && f.message.contains("symlink")),
        "{:?}",
        report.findings
    );
    cli_names_the_file(&project, &link);
}

#[test]
fn a_folder_named_like_a_memory_file_is_not_read_as_one() {
    let dir = tempfile::tempdir().unwrap();
    let project = cline_project(dir.path());
    let folder = project.join("memory-bank/x.md");
    fs::create_dir_all(&folder).unwrap();
    write(&folder.join("inner.md"), "# Inner\n\nText.\n");
    // A CLAUDE.md that is a folder: a marker by name, but nothing to read.
    fs::create_dir_all(project.join("CLAUDE.md")).unwrap();
    let report = analyze_bounded(&project);
    for bank in &report.banks {
        assert!(
            bank.files.iter().all(|f| f.file.path != folder),
            "the folder x.md was listed as a file"
        );
    }
    let inner = project.join("memory-bank/x.md/inner.md");
    assert!(
        report.banks[0].files.iter().any(|f| f.file.path == inner),
        "files inside x.md/ are listed"
    );
    let sandbox = Sandbox::new();
    let p = project.to_str().unwrap();
    let check = sandbox.run(&["check", "--json", p]);
    assert!(check.code == 0 || check.code == 1, "{}", check.stderr);
    check.json();
    let tokens = sandbox.run(&["tokens", "--json", p]);
    tokens.expect_code(0);
    assert!(
        tokens.stdout.contains("memory-bank/x.md/inner.md"),
        "{}",
        tokens.stdout
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_named_md_never_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let project = cline_project(dir.path());
    let fifo = project.join("memory-bank/decisionLog.md");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("NOTICE: mkfifo is not available here; skipping the FIFO case");
        return;
    }
    let report = analyze_bounded(&project);
    let about = findings_about(&report, &fifo);
    assert!(
        about
            .iter()
            .any(|f| f.message.contains("not a regular file")),
        "{about:?}"
    );
    cli_names_the_file(&project, &fifo);
}

#[cfg(unix)]
#[test]
fn a_file_without_read_permission_is_a_finding() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let project = cline_project(dir.path());
    let file = project.join("memory-bank/decisionLog.md");
    write(&file, "# Decisions\n\nSecret.\n");
    fs::set_permissions(&file, fs::Permissions::from_mode(0o000)).unwrap();
    if fs::read(&file).is_ok() {
        // root (or CAP_DAC_OVERRIDE) reads it anyway; the dangling-symlink, folder and
        // FIFO cases cover unreadable files there.
        eprintln!(
            "NOTICE: running with permission to read chmod 000 files (root?); skipping the chmod 000 case"
        );
        return;
    }
    let report = analyze_bounded(&project);
    assert!(
        findings_about(&report, &file)
            .iter()
            .any(|f| f.message.contains("ermission denied")),
        "{:?}",
        report.findings
    );
    cli_names_the_file(&project, &file);
}

#[cfg(unix)]
#[test]
fn symlink_loops_end_in_a_finding_not_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    let project = cline_project(dir.path());
    let bank = project.join("memory-bank");
    // A file link pointing to itself, a pair pointing to each other, and a folder link
    // back up to the bank and the root.
    std::os::unix::fs::symlink(bank.join("self.md"), bank.join("self.md")).unwrap();
    std::os::unix::fs::symlink(bank.join("b.md"), bank.join("a.md")).unwrap();
    std::os::unix::fs::symlink(bank.join("a.md"), bank.join("b.md")).unwrap();
    std::os::unix::fs::symlink(&bank, bank.join("again")).unwrap();
    std::os::unix::fs::symlink(dir.path(), project.join("up")).unwrap();
    let report = analyze_bounded(&project);
    for name in ["self.md", "a.md", "b.md"] {
        assert!(
            report
                .findings
                .iter()
                .any(|f| f.message.contains(&format!("memory-bank/{name}"))
                    && f.message.contains("symlink")),
            "{name}: {:?}",
            report.findings
        );
    }
    // The root scan with a deep depth terminates and finds the project once.
    let root = dir.path().to_path_buf();
    let projects = within(LIMIT, "scan with loops", move || {
        discovery::scan(
            &root,
            &ScanOptions {
                depth: 16,
                ..ScanOptions::default()
            },
        )
    });
    let names: Vec<&str> = projects.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, vec!["proj"]);
    cli_names_the_file(&project, &bank.join("self.md"));
}

#[test]
fn a_file_deleted_between_listing_and_reading_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let project_dir = cline_project(dir.path());
    let victim = project_dir.join("memory-bank/progress.md");
    let project = project_at(&project_dir);
    let banks = list_banks(&project);
    assert!(banks[0].files.iter().any(|f| f.path == victim));
    fs::remove_file(&victim).unwrap();
    let within_limit = within(LIMIT, "reading a vanished file", move || {
        let mut cache = TokenCache::in_memory(Encoding::O200k);
        let results = tokens::stats_for_files(
            &banks[0].files,
            None,
            Encoding::O200k,
            &mut cache,
            common::test_clock().today(),
        );
        let errors: Vec<String> = banks[0]
            .files
            .iter()
            .zip(&results)
            .filter_map(|(f, r)| r.as_ref().err().map(|e| (f, e)))
            .map(|(f, e)| format!("{}: {e}", f.display))
            .collect();
        let context = session_context_with(
            &project,
            &banks[0],
            &|t: &str| tokens::count(Encoding::O200k, t),
            &ContextOptions::default(),
        );
        let findings = mbank::core::analysis::validate::validate_bank(
            &project,
            &banks[0],
            &mbank::core::analysis::validate::ValidationContext {
                tracked_by_git: None,
                home: Default::default(),
                ignored_by_git: None,
                ..Default::default()
            },
        );
        (errors, context, findings)
    });
    let (errors, context, findings) = within_limit;
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("progress.md") && errors[0].contains("No such file"),
        "{errors:?}"
    );
    assert!(
        context
            .skipped
            .iter()
            .any(|s| s.file == victim && s.reason.contains("cannot be read")),
        "{:?}",
        context.skipped
    );
    assert!(
        findings.iter().any(|f| f.file == victim),
        "validation does not name the vanished file: {findings:?}"
    );
}

#[test]
fn a_bank_folder_vanishing_mid_scan_is_survived() {
    let dir = tempfile::tempdir().unwrap();
    let project_dir = cline_project(dir.path());
    let project = project_at(&project_dir);
    fs::remove_dir_all(project_dir.join("memory-bank")).unwrap();
    let report = within(LIMIT, "analysis of a vanished bank", move || {
        let config = Config::default();
        let mut analyzer = Analyzer::new(
            &config,
            Encoding::O200k,
            TokenCache::in_memory(Encoding::O200k),
            &common::test_clock(),
        );
        analyzer.analyze(&project, Depth::full())
    });
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.message.contains("memory-bank")),
        "{:?}",
        report.findings
    );
}

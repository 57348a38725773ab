//! Safe writes over real folders: discovery → bank listing → confinement → guarded
//! atomic write, including project isolation across sibling projects joined by symlinks,
//! `mbank init` output, and the bundled demo.
use std::fs;
use std::path::{Path, PathBuf};

use mbank::core::error::CoreError;
use mbank::core::init::{InitFormat, init_bank};
use mbank::core::io::text::read_text;
use mbank::core::model::{Bank, Format, Project};
use mbank::core::scan::bank::list_banks;
use mbank::core::scan::discovery::{self, ScanOptions};
use mbank::core::write::{Expected, resolve_target, write_guarded, write_infinity_content};

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn project<'a>(projects: &'a [Project], name: &str) -> &'a Project {
    projects
        .iter()
        .find(|p| p.name == name)
        .unwrap_or_else(|| panic!("no project {name} in {projects:?}"))
}

fn bank_of(project: &Project, format: Format) -> Bank {
    list_banks(project)
        .into_iter()
        .find(|b| b.format == format)
        .unwrap_or_else(|| panic!("{} has no {format} bank", project.name))
}

fn confined_reason(err: CoreError) -> String {
    match err {
        CoreError::Confined { reason, .. } => reason,
        other => panic!("expected a confinement error, got {other}"),
    }
}

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn a_write_through_a_listed_file_is_guarded_and_atomic() {
    let root = tempfile::tempdir().unwrap();
    let report = init_bank(
        &root.path().join("alpha"),
        InitFormat::Cline,
        Some("Alpha."),
    )
    .unwrap();
    assert_eq!(report.created.len(), 8);
    let projects = discovery::scan(root.path(), &ScanOptions::default());
    let bank = bank_of(project(&projects, "alpha"), Format::Cline);
    assert_eq!(bank.files.len(), 7);
    for file in &bank.files {
        let rel = file.path.strip_prefix(&bank.root).unwrap();
        let target = resolve_target(&bank, rel.to_str().unwrap()).unwrap();
        assert_eq!(target, fs::canonicalize(&file.path).unwrap());
    }
    let target = resolve_target(&bank, "activeContext.md").unwrap();
    let read = read_text(&target).unwrap();
    let edited = read.replace("## Current Focus", "## Current Focus\nShipping v1.");
    write_guarded(&target, &edited, Expected::text(&read)).unwrap();
    assert_eq!(fs::read_to_string(&target).unwrap(), edited);
    // Saving again from the old read is a conflict: the first save must not be lost.
    let err = write_guarded(&target, &read, Expected::text(&read)).unwrap_err();
    assert!(matches!(err, CoreError::Conflict { .. }), "{err}");
    assert_eq!(fs::read_to_string(&target).unwrap(), edited);
    let leftovers: Vec<_> = fs::read_dir(&bank.root)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".mbank-tmp"))
        .collect();
    assert!(leftovers.is_empty());
}

#[cfg(unix)]
#[test]
fn a_write_for_one_project_never_lands_in_its_sibling() {
    use std::os::unix::fs::symlink;
    let root = tempfile::tempdir().unwrap();
    let r = root.path();
    let victim = r.join("bravo/memory-bank/progress.md");
    write(&victim, "# Bravo progress\n");
    write(&r.join("bravo/CLAUDE.md"), "# Bravo\n");
    write(
        &r.join("bravo/.claude/memory/decisions/ADR-001-x.md"),
        "# ADR-001: x\n",
    );
    write(
        &r.join("alpha/memory-bank/progress.md"),
        "# Alpha progress\n",
    );
    write(
        &r.join("alpha/.claude/memory/active-context.md"),
        "# Active\n",
    );
    // A file link, an instruction-file link and a folder link from alpha into bravo.
    symlink(&victim, r.join("alpha/memory-bank/borrowed.md")).unwrap();
    symlink(r.join("bravo/CLAUDE.md"), r.join("alpha/CLAUDE.md")).unwrap();
    symlink(
        r.join("bravo/.claude/memory/decisions"),
        r.join("alpha/.claude/memory/decisions"),
    )
    .unwrap();
    let projects = discovery::scan(r, &ScanOptions::default());
    let alpha = project(&projects, "alpha");

    let cline = bank_of(alpha, Format::Cline);
    let reason = confined_reason(resolve_target(&cline, "borrowed.md").unwrap_err());
    assert!(reason.contains("outside the bank's folder"), "{reason}");
    assert!(resolve_target(&cline, "progress.md").is_ok());

    // A link into a sibling project is not listed (`confine`), and refused all the same.
    let claude = bank_of(alpha, Format::ClaudeMd);
    assert!(!claude.files.iter().any(|f| f.display == "CLAUDE.md"));
    assert!(
        claude
            .outside
            .iter()
            .any(|l| l.link == r.join("alpha/CLAUDE.md"))
    );
    let reason = confined_reason(resolve_target(&claude, "CLAUDE.md").unwrap_err());
    assert!(reason.contains("outside"), "{reason}");

    let conkeeper = bank_of(alpha, Format::ConKeeper);
    let reason = confined_reason(resolve_target(&conkeeper, "decisions/ADR-001-x.md").unwrap_err());
    assert!(reason.contains("outside"), "{reason}");
    let reason =
        confined_reason(resolve_target(&conkeeper, "decisions/ADR-002-new.md").unwrap_err());
    assert!(reason.contains("outside"), "{reason}");

    assert_eq!(fs::read_to_string(&victim).unwrap(), "# Bravo progress\n");
    assert_eq!(
        fs::read_to_string(r.join("bravo/CLAUDE.md")).unwrap(),
        "# Bravo\n"
    );
    assert!(
        !r.join("bravo/.claude/memory/decisions/ADR-002-new.md")
            .exists()
    );
}

#[cfg(unix)]
#[test]
fn a_bank_folder_linked_into_another_project_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let r = root.path();
    write(&r.join("bravo/memory-bank/progress.md"), "# Bravo\n");
    fs::create_dir_all(r.join("alpha")).unwrap();
    std::os::unix::fs::symlink(r.join("bravo/memory-bank"), r.join("alpha/memory-bank")).unwrap();
    let projects = discovery::scan(r, &ScanOptions::default());
    let bank = bank_of(project(&projects, "alpha"), Format::Cline);
    // The listing does not show bravo's file under alpha's name (the link is recorded as
    // leading out of alpha), and writing through the link is refused all the same.
    assert!(bank.files.is_empty());
    assert_eq!(bank.outside.len(), 1);
    let reason = confined_reason(resolve_target(&bank, "progress.md").unwrap_err());
    assert!(reason.contains("outside its project"), "{reason}");
    let reason = confined_reason(resolve_target(&bank, "new.md").unwrap_err());
    assert!(reason.contains("outside its project"), "{reason}");
}

#[test]
fn rejections_name_the_reason() {
    let root = tempfile::tempdir().unwrap();
    let r = root.path();
    write(&r.join("p/.claude/memory/active-context.md"), "# Active\n");
    write(&r.join("p/.claude/memory/.last-sync"), "1763800000\n");
    write(&r.join("p/secret.md"), "secret\n");
    let projects = discovery::scan(r, &ScanOptions::default());
    let bank = bank_of(project(&projects, "p"), Format::ConKeeper);
    // Listed, but not markdown in a markdown-only format.
    assert!(bank.files.iter().any(|f| f.display.ends_with(".last-sync")));
    let cases = [
        ("", "empty"),
        ("../../secret.md", ".."),
        ("/etc/hosts", "absolute"),
        ("a\0b.md", "NUL"),
        (".last-sync", "only .md"),
        ("notes/x.md", "not a known file of the"),
    ];
    for (name, expected) in cases {
        let reason = confined_reason(resolve_target(&bank, name).unwrap_err());
        assert!(reason.contains(expected), "{name:?}: {reason}");
    }
}

fn demo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo")
}

#[test]
fn every_listed_demo_file_is_editable_and_infinity_edits_keep_identity() {
    let copy = tempfile::tempdir().unwrap();
    copy_tree(&demo_root(), copy.path());
    let projects = discovery::scan(copy.path(), &ScanOptions::default());
    let summary: Vec<(String, Vec<Format>)> = projects
        .iter()
        .map(|p| (p.name.clone(), p.formats()))
        .collect();
    assert_eq!(
        summary,
        vec![
            (
                "billing-roo".to_string(),
                vec![Format::MemoryBankMcp, Format::RooRules]
            ),
            ("gemini-cli-tool".to_string(), vec![Format::GeminiMd]),
            ("ml-pipeline".to_string(), vec![Format::Infinity]),
            ("mobile-app".to_string(), vec![Format::ConKeeper]),
            (
                "storefront".to_string(),
                vec![Format::ClaudeMd, Format::AgentsMd]
            ),
            ("weather-api".to_string(), vec![Format::Cline]),
        ]
    );
    let mut checked = 0;
    for project in &projects {
        for bank in list_banks(project) {
            assert!(bank.problems.is_empty(), "{:?}", bank.problems);
            for file in bank.files.iter().filter(|f| !f.is_virtual()) {
                assert!(file.unreadable.is_none(), "{}", file.display);
                read_text(&file.path).unwrap();
                let rel = file.path.strip_prefix(&bank.root).unwrap();
                let resolved = resolve_target(&bank, rel.to_str().unwrap());
                let is_md = rel.extension().is_some_and(|e| e == "md");
                if bank.format.is_markdown_only() && !is_md {
                    assert!(resolved.is_err(), "{}", file.display);
                } else {
                    let resolved = resolved.unwrap_or_else(|e| panic!("{}: {e}", file.display));
                    assert_eq!(resolved, fs::canonicalize(&file.path).unwrap());
                    checked += 1;
                }
            }
        }
    }
    assert!(checked >= 30, "only {checked} demo files checked");

    let ml = project(&projects, "ml-pipeline");
    let bank = bank_of(ml, Format::Infinity);
    assert_eq!(bank.files.len(), 7);
    let memory = bank.files[0].memory.clone().unwrap();
    let store = resolve_target(&bank, "memories.json").unwrap();
    let before = read_text(&store).unwrap();
    write_infinity_content(
        &store,
        &memory.id,
        "# Rewritten\n",
        &before,
        mbank::core::clock::Clock::system(),
    )
    .unwrap();
    let after = list_banks(ml)
        .into_iter()
        .find(|b| b.format == Format::Infinity)
        .unwrap();
    let edited = after
        .files
        .iter()
        .find_map(|f| f.memory.as_ref().filter(|m| m.id == memory.id))
        .unwrap();
    assert_eq!((&edited.title, &edited.kind), (&memory.title, &memory.kind));
    assert_ne!(edited.updated_at, memory.updated_at);
}

#[test]
fn demo_has_the_problems_the_screenshots_show() {
    let demo = demo_root();
    let read = |rel: &str| fs::read_to_string(demo.join(rel)).unwrap();
    // Stale active context: its newest date is older than progress's newest date.
    assert!(read("weather-api/memory-bank/activeContext.md").contains("Last updated: 2026-10-13"));
    assert!(read("weather-api/memory-bank/progress.md").contains("2026-11-19"));
    // Over budget: one Cline file well above 1,000 tokens (bytes/4 estimate).
    assert!(read("weather-api/memory-bank/techContext.md").len() / 4 > 1_300);
    assert!(read("weather-api/memory-bank/decisionLog.md").contains("**Status**: Superseded"));
    assert!(
        read("mobile-app/.claude/memory/decisions/ADR-002-sqlite-offline-cache.md")
            .contains("**Status:** Superseded by ADR-003")
    );
    assert!(read("mobile-app/.claude/memory/patterns.md").contains("<private>\n"));
    let config = read("mobile-app/.claude/memory/.memory-config.md");
    assert!(config.contains("token_budget: light") && config.contains("staleness_commits: 5"));
    assert!(read("storefront/CLAUDE.md").contains("\n@docs/agents/architecture.md\n"));
    assert!(
        !demo
            .join("billing-roo/memory-bank/system-patterns.md")
            .exists()
    );
    // Every file a person would open is short, except the deliberately long one.
    let ages = read("ages.toml");
    for line in ages.lines().filter(|l| l.starts_with('"')) {
        let rel = line.split('"').nth(1).unwrap();
        let len = fs::metadata(demo.join(rel)).unwrap().len();
        if !rel.ends_with("techContext.md") && !rel.ends_with("memories.json") {
            assert!(len / 4 < 800, "{rel} is {len} bytes");
        }
    }
}

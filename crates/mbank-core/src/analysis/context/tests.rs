use super::*;
use crate::scan::{bank, discovery};
use std::fs;

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn words(text: &str) -> usize {
    text.split_whitespace().count()
}

fn context_of(dir: &Path, format: Format, home: Option<&Path>) -> BankContext {
    let project = discovery::project_at(dir, "p".into()).unwrap();
    let bank = bank::list_banks(&project)
        .into_iter()
        .find(|b| b.format == format)
        .unwrap();
    let options = ContextOptions {
        home: home.map(Path::to_path_buf),
        include_user_files: home.is_some(),
        include_ancestors: false,
        codex_home: None,
    };
    session_context_with(&project, &bank, &words, &options)
}

#[test]
fn a_file_imported_and_held_by_another_bank_loads_once() {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("CLAUDE.md"),
        "# Main\n@.claude/memory/active-context.md\n",
    );
    let memory = dir.path().join(".claude/memory");
    write(
        &memory.join("active-context.md"),
        "# Active\nfive words are here\n",
    );
    write(
        &memory.join("product-context.md"),
        "# Product\nthree more\n",
    );
    let project = discovery::project_at(dir.path(), "p".into()).unwrap();
    let listed = bank::list_banks(&project);
    let banks: Vec<&Bank> = listed.iter().collect();
    let options = ContextOptions::default();
    let alone: usize = banks
        .iter()
        .map(|b| session_context_with(&project, b, &words, &options).total_tokens)
        .sum();
    let contexts = project_context(&project, &banks, &words, &options, None);
    let total: usize = contexts.iter().map(|c| c.total_tokens).sum();
    // CLAUDE.md (3) + active (6) + product (4): the import is not counted again.
    assert_eq!((alone, total), (19, 13));
    let claude = contexts
        .iter()
        .find(|c| c.format == Format::ClaudeMd)
        .unwrap();
    assert_eq!(claude.pieces.len(), 1);
    assert!(claude.skipped[0].reason.contains("with the ConKeeper bank"));
    let conkeeper = contexts
        .iter()
        .find(|c| c.format == Format::ConKeeper)
        .unwrap();
    let active = conkeeper
        .pieces
        .iter()
        .find(|p| p.display == ".claude/memory/active-context.md")
        .unwrap();
    assert_eq!(
        active.reached,
        vec![
            "start-up file (ConKeeper)".to_string(),
            "imported through CLAUDE.md by @.claude/memory/active-context.md (line 2), depth 1"
                .to_string()
        ]
    );
}

#[test]
fn cline_loads_startup_files_whole_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let b = dir.path().join("memory-bank");
    write(&b.join("progress.md"), "# Progress\ndone one\n");
    write(
        &b.join("projectbrief.md"),
        "# Brief\n<private>\nkept anyway\n</private>\n",
    );
    write(&b.join("archive/old.md"), "# Old\n");
    write(&b.join("tasks/TASK001.md"), "# Task\n");
    let ctx = context_of(dir.path(), Format::Cline, None);
    let shown: Vec<_> = ctx
        .pieces
        .iter()
        .map(|p| (p.display.as_str(), p.tokens))
        .collect();
    // Cline reads ALL memory bank files: the sub-folder's after the core files, but
    // not the archive, which the specification keeps out of the session.
    assert_eq!(
        shown,
        vec![
            ("memory-bank/projectbrief.md", 6),
            ("memory-bank/progress.md", 4),
            ("memory-bank/tasks/TASK001.md", 2)
        ]
    );
    assert_eq!(ctx.total_tokens, 12);
    assert_eq!(ctx.pieces[0].notes.len(), 1);
    assert!(ctx.cutoffs.is_empty());
}

#[test]
fn conkeeper_strips_private_and_skips_private_files() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join(".claude/memory");
    write(
        &m.join("active-context.md"),
        "# Active\nshown\n<private>\nsecret key\n</private>\nalso shown\n",
    );
    write(
        &m.join("product-context.md"),
        "---\nprivate: true\n---\n# Product\n",
    );
    write(&m.join("decisions/ADR-001-x.md"), "# ADR\n");
    let ctx = context_of(dir.path(), Format::ConKeeper, None);
    assert_eq!(ctx.pieces.len(), 1);
    assert_eq!(ctx.pieces[0].text, "# Active\nshown\nalso shown\n");
    assert_eq!(
        ctx.pieces[0].notes,
        vec!["1 line inside <private> blocks stripped"]
    );
    assert_eq!(ctx.skipped.len(), 1);
    assert!(ctx.skipped[0].file.ends_with("product-context.md"));
}

#[test]
fn claude_imports_follow_their_importer_and_user_files_load_first() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("proj");
    let home = dir.path().join("home");
    write(
        &project.join("CLAUDE.md"),
        "# Main\n@docs/style.md\n@.env\n",
    );
    write(&project.join("docs/style.md"), "# Style\n@../shared.md\n");
    write(&project.join("shared.md"), "shared words\n");
    write(&project.join(".env"), "SECRET=1\n");
    write(&project.join("CLAUDE.local.md"), "# Local\n@shared.md\n");
    write(&home.join(".claude/CLAUDE.md"), "# Global\n");
    let ctx = context_of(&project, Format::ClaudeMd, Some(&home));
    let shown: Vec<_> = ctx
        .pieces
        .iter()
        .map(|p| (p.display.as_str(), p.scope, p.via.len()))
        .collect();
    assert_eq!(
        shown,
        vec![
            ("~/.claude/CLAUDE.md", Scope::User, 0),
            ("CLAUDE.md", Scope::Project, 0),
            ("docs/style.md", Scope::Project, 1),
            ("shared.md", Scope::Project, 2),
            ("CLAUDE.local.md", Scope::Project, 0),
        ]
    );
    assert_eq!(ctx.import_findings.len(), 1);
    assert_eq!(ctx.import_findings[0].code.id(), "import-sensitive");
    assert!(ctx.cutoffs.is_empty());
}

#[test]
fn codex_stops_at_32_kib() {
    let dir = tempfile::tempdir().unwrap();
    let line = "x".repeat(99) + "\n";
    write(&dir.path().join("AGENTS.md"), &line.repeat(400));
    let ctx = context_of(dir.path(), Format::AgentsMd, None);
    assert_eq!(ctx.pieces[0].bytes, CODEX_PROJECT_DOC_MAX_BYTES);
    let cut = &ctx.cutoffs[0];
    assert_eq!(
        (cut.kept_bytes, cut.dropped_bytes),
        (32_768, 40_000 - 32_768)
    );
    assert_eq!(cut.kept_lines, 328);
}

#[test]
fn windsurf_session_cuts_each_rule_on_its_own_with_no_shared_limit() {
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join(".windsurf/rules");
    let body = |n: usize| format!("---\ntrigger: always_on\n---\n{}", "w ".repeat(n));
    write(&rules.join("a.md"), &body(10_000));
    write(&rules.join("b.md"), &body(5_000));
    write(&rules.join("c.md"), &body(10));
    let ctx = context_of(dir.path(), Format::Windsurf, None);
    let chars: Vec<(&str, usize)> = ctx
        .pieces
        .iter()
        .map(|p| (p.display.as_str(), p.text.chars().count()))
        .collect();
    // a.md: 12,000 of its 20,026; b.md and c.md whole, although together they pass
    // 12,000: Windsurf documents the limit per file only.
    let b_len = body(5_000).chars().count();
    let c_len = body(10).chars().count();
    assert_eq!(
        chars,
        vec![
            (".windsurf/rules/a.md", 12_000),
            (".windsurf/rules/b.md", b_len),
            (".windsurf/rules/c.md", c_len)
        ]
    );
    assert_eq!(ctx.cutoffs.len(), 1, "{:?}", ctx.cutoffs);
    assert!(ctx.cutoffs[0].rule.contains("a rule file"));
    assert!(ctx.skipped.is_empty(), "{:?}", ctx.skipped);
    assert!(ctx.pieces[0].notes[0].contains("cut after 12000 characters"));
}

#[test]
fn each_agent_session_holds_only_its_own_files() {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("CLAUDE.md"), "# Claude\none two\n");
    write(&dir.path().join("AGENTS.md"), "# Codex\nthree four five\n");
    write(&dir.path().join(".clinerules"), "# Cline rule\n");
    write(&dir.path().join(".roorules-code"), "# Roo code rule\n");
    for name in ["projectbrief.md", "productContext.md", "systemPatterns.md"] {
        write(&dir.path().join("memory-bank").join(name), "# Core\n");
    }
    write(
        &dir.path().join("memory-bank/activeContext.md"),
        "# Active\n",
    );
    write(
        &dir.path().join(".cursor/memory-bank/progress.md"),
        "# Cursor progress\n",
    );
    let project = discovery::project_at(dir.path(), "p".into()).unwrap();
    let listed = bank::list_banks(&project);
    let banks: Vec<&Bank> = listed.iter().collect();
    let sessions = agent_sessions(&project, &banks, &words, &ContextOptions::default(), None);
    let shown: Vec<(&str, Vec<&str>, usize)> = sessions
        .iter()
        .map(|s| {
            let files = s
                .banks
                .iter()
                .flat_map(|b| b.pieces.iter().map(|p| p.display.as_str()))
                .collect();
            (s.agent.id(), files, s.total_tokens)
        })
        .collect();
    assert_eq!(
        shown,
        vec![
            ("claude-code", vec!["CLAUDE.md"], 4),
            ("codex", vec!["AGENTS.md"], 5),
            (
                "cline",
                vec![
                    "memory-bank/projectbrief.md",
                    "memory-bank/productContext.md",
                    "memory-bank/systemPatterns.md",
                    "memory-bank/activeContext.md",
                    ".clinerules",
                ],
                11
            ),
            ("roo", vec![".clinerules", ".roorules-code"], 7),
            // Kilo Code reads AGENTS.md by default, and with no rules folder of its own
            // the first non-empty legacy rule file.
            ("kilo", vec![".clinerules", "AGENTS.md"], 8),
            ("cursor", vec![".cursor/memory-bank/progress.md"], 3),
            // Zed: the first of its list present, `.clinerules` before AGENTS.md.
            ("zed", vec![".clinerules"], 3),
            // opencode: the AGENTS.md at the top, which stands beside CLAUDE.md.
            ("opencode", vec!["AGENTS.md"], 5),
        ]
    );
}

#[test]
fn infinity_lists_metadata_only() {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join(".infinity/memories.json"),
        r#"{"project_id":"p","memories":[{"id":"a","title":"Plan","type":"implementation_plan","content":"long content here","created_at":"2025-01-01T00:00:00Z"}]}"#,
    );
    let ctx = context_of(dir.path(), Format::Infinity, None);
    assert!(ctx.pieces.is_empty());
    assert_eq!(ctx.total_tokens, 0);
    let listing = ctx.listing.unwrap();
    assert_eq!(listing.memories, 1);
    assert_eq!(
        listing.bytes,
        r#"{"memories":[{"id":"a","title":"Plan","type":"implementation_plan"}],"success":true}"#
            .len()
    );
}

#[cfg(unix)]
#[test]
fn links_out_of_the_project_or_home_never_load() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("proj");
    let home = dir.path().join("home");
    write(&dir.path().join("secret.txt"), "SECRET\n");
    write(&home.join(".ssh/id_rsa"), "PRIVATE KEY\n");
    write(&project.join("CLAUDE.local.md"), "# local\n");
    symlink(dir.path().join("secret.txt"), project.join("CLAUDE.md")).unwrap();
    fs::create_dir_all(home.join(".claude")).unwrap();
    symlink(home.join(".ssh/id_rsa"), home.join(".claude/CLAUDE.md")).unwrap();
    let ctx = context_of(&project, Format::ClaudeMd, Some(&home));
    let shown: Vec<_> = ctx.pieces.iter().map(|p| p.display.as_str()).collect();
    assert_eq!(shown, vec!["CLAUDE.local.md"]);
    assert!(
        ctx.pieces
            .iter()
            .all(|p| !p.text.contains("SECRET") && !p.text.contains("KEY"))
    );
    assert_eq!(ctx.findings.len(), 1);
    assert_eq!(ctx.findings[0].code.id(), "symlink-outside");
    assert!(ctx.findings[0].message.contains("secret.txt"));
    let skipped = &ctx.skipped[0];
    assert!(skipped.file.ends_with(".claude/CLAUDE.md"));
    assert!(skipped.reason.contains("sensitive"), "{}", skipped.reason);

    // A bank handed over with the link in it (stale, or built by hand) still does
    // not load it: each project file is checked right before it is read.
    let project_model = discovery::project_at(&project, "p".into()).unwrap();
    let mut bank = bank::list_banks(&project_model)
        .into_iter()
        .find(|b| b.format == Format::ClaudeMd)
        .unwrap();
    let mut forged = bank.files[0].clone();
    forged.path = project.join("CLAUDE.md");
    bank.files.push(forged);
    let ctx = session_context_with(&project_model, &bank, &words, &ContextOptions::default());
    assert!(ctx.pieces.iter().all(|p| !p.text.contains("SECRET")));
    assert!(
        ctx.skipped
            .iter()
            .any(|s| s.file.ends_with("CLAUDE.md") && s.reason.contains("outside the project")),
        "{:?}",
        ctx.skipped
    );
}
